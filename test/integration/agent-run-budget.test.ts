/**
 * What agent runs a flood of mail can cost: runs on one sender's mail (AGENT_RUN_LIMIT_PER_HOUR) and in all
 * (AGENT_RUN_LIMIT_TOTAL_PER_HOUR) are counted per hour when the run is about to start, whatever becomes of its draft,
 * so mail whose drafts all end parked (a Reply-To on another domain, bulk signs, a forged sender) no longer buys model
 * calls and reviewer time without end. Real Redis and BullMQ, the agent worker against the scripted model server,
 * whose requests are the model calls counted.
 */
import { describe, expect, it } from 'vitest';
import { httpError } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { rerunAgent, rerunReason } from '../../src/tickets/review.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  waitFor,
  waitForState,
  type MailSpec,
  type RunningRoles,
} from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();

function run(overrides: Record<string, string>): Promise<RunningRoles> {
  return suite.run(overrides);
}

const QUESTION = '二段階認証の設定方法を教えてください。';

/** A mail of `from` asking {@link QUESTION}; `spec` changes the rest. */
function mail(from: string, spec: Partial<MailSpec> = {}): Buffer {
  return buildMail({ messageId: customerMessageId(), from, subject: '二段階認証について', body: QUESTION, ...spec });
}

/** One mail ingested and handled to its end, with the model calls its handling made. */
interface Handled {
  ticket: Ticket;
  modelCalls: number;
}

/** Ingests each mail after the one before it settled, so the windows fill in a known order. */
async function handleInTurn(running: RunningRoles, mails: readonly Buffer[]): Promise<Handled[]> {
  const handled: Handled[] = [];
  for (const raw of mails) {
    const before = suite.servers.llm.chatRequests().length;
    const { ticketId } = await ingest(running, raw);
    const ticket = await waitForState(running.store, ticketId, ['parked', 'sent', 'ignored', 'failed'], 30_000);
    handled.push({ ticket, modelCalls: suite.servers.llm.chatRequests().length - before });
  }
  return handled;
}

/** The limited ones: parked before the agent, no draft, no model call. */
function expectLimited(handled: readonly Handled[], reason: string): void {
  for (const { ticket, modelCalls } of handled) {
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toBe(reason);
    expect(ticket.draft ?? '').toBe('');
    expect(ticket.history.some((h) => h.to === 'processing')).toBe(false);
    expect(modelCalls).toBe(0);
  }
}

/** Mails handled in turn under `env`: the first `runs` get the agent, the rest are parked with `reason`. */
interface LimitCase {
  name: string;
  env: Record<string, string>;
  mails: Buffer[];
  runs: number;
  reason: string;
}

describe('agent runs per hour', () => {
  it('a flood of mail from one sender whose drafts are all parked (Reply-To on another domain) costs at most AGENT_RUN_LIMIT_PER_HOUR runs', async () => {
    const running = await run({ AGENT_RUN_LIMIT_PER_HOUR: '3', AUTO_REPLY_LIMIT_PER_HOUR: '1', AUTO_REPLY_LIMIT_TOTAL_PER_HOUR: '2' });
    // Numbered subjects, as a script's: the same question under one subject would be parked as a repeated question
    // while the first copy's draft waits, before any run.
    const flood = Array.from({ length: 12 }, (_, i) => mail('mallory@attacker.example', { subject: `二段階認証について ${i + 1}`, headers: { 'Reply-To': 'x@elsewhere.example' } }));
    const handled = await handleInTurn(running, flood);

    // Each mail is a question of its own: one run each, up to the limit.
    for (const { ticket, modelCalls } of handled.slice(0, 3)) {
      expect(ticket.state).toBe('parked');
      expect(ticket.reason).toMatch(/^Reply-To domain elsewhere\.example differs/);
      expect(ticket.draft).toBeTruthy();
      expect(modelCalls).toBeGreaterThan(0);
    }
    expectLimited(handled.slice(3), 'agent-run limit reached: 3 agent runs on mail from mallory@attacker.example that no receiving server authenticated in the last hour (AGENT_RUN_LIMIT_PER_HOUR=3, for such mail from this address, which anyone can write: its authenticated mail counts apart and still runs)');
    expect(suite.servers.smtp.attempts).toHaveLength(0);

    // A person asking for a draft of a limited ticket gets one: the limit is for mail, not for the reviewers.
    const limited = handled[5]!.ticket;
    const deps = { store: running.store, redis: await running.services.producer(), tickets: (await running.services.queues()).tickets, config: running.services.config };
    expect(await rerunAgent(deps, { ticketId: limited.id, operator: 'anna', forReview: true })).toMatchObject({ outcome: 'requeued' });
    const before = suite.servers.llm.chatRequests().length;
    const redrafted = await waitFor(async () => {
      const t = await running.store.require(limited.id);
      return t.state === 'parked' && t.draft ? t : undefined;
    }, 'the new draft', 30_000);
    expect(redrafted.reason).toBe(rerunReason('anna'));
    expect(suite.servers.llm.chatRequests().length).toBeGreaterThan(before);
  }, 120_000);

  it.each<LimitCase>([
    {
      name: 'in all (AGENT_RUN_LIMIT_TOTAL_PER_HOUR), over different senders',
      env: { AGENT_RUN_LIMIT_TOTAL_PER_HOUR: '2' },
      mails: [mail('a@customer.example'), mail('b@customer.example', { subject: 'パスワード' }), mail('c@customer.example', { subject: 'ログイン' })],
      runs: 2,
      reason: 'agent-run limit reached: 2 agent runs on mail no receiving server authenticated in the last hour (AGENT_RUN_LIMIT_TOTAL_PER_HOUR=2, shared by all such mail, which anyone can write: authenticated mail counts apart and still runs)',
    },
    {
      name: 'per sender in every spelling of the address',
      env: { AGENT_RUN_LIMIT_PER_HOUR: '2' },
      mails: [mail('h@customer.example'), mail('H+billing@Customer.Example', { subject: 'パスワード' }), mail('Hanako <h@customer.example>', { subject: 'ログイン' })],
      runs: 2,
      reason: 'agent-run limit reached: 2 agent runs on mail from h@customer.example that no receiving server authenticated in the last hour (AGENT_RUN_LIMIT_PER_HOUR=2, for such mail from this address, which anyone can write: its authenticated mail counts apart and still runs)',
    },
    {
      name: 'in REVIEW_MODE=always too, where nothing is sent',
      env: { REVIEW_MODE: 'always', AGENT_RUN_LIMIT_PER_HOUR: '1' },
      mails: [mail('r@customer.example'), mail('r@customer.example', { subject: 'パスワード' })],
      runs: 1,
      reason: 'agent-run limit reached: 1 agent run on mail from r@customer.example that no receiving server authenticated in the last hour (AGENT_RUN_LIMIT_PER_HOUR=1, for such mail from this address, which anyone can write: its authenticated mail counts apart and still runs)',
    },
    {
      name: 'none at all with a limit of 0, as the auto-reply limits',
      env: { AGENT_RUN_LIMIT_PER_HOUR: '0' },
      mails: [mail('z@customer.example')],
      runs: 0,
      reason: 'agent-run limit reached: 0 agent runs on mail from z@customer.example that no receiving server authenticated in the last hour (AGENT_RUN_LIMIT_PER_HOUR=0, for such mail from this address, which anyone can write: its authenticated mail counts apart and still runs)',
    },
  ])('limits runs $name', async ({ env, mails, runs, reason }) => {
    const running = await run(env);
    const handled = await handleInTurn(running, mails);
    for (const { ticket, modelCalls } of handled.slice(0, runs)) {
      expect(ticket.agent, ticket.reason).toBeDefined();
      expect(modelCalls).toBeGreaterThan(0);
    }
    expectLimited(handled.slice(runs), reason);
  }, 90_000);

  it('counts a run its job retries (a model error) once', async () => {
    let plans = 0;
    suite.servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === 'plan' && ++plans === 1 ? httpError(503) : undefined) }));
    const running = await run({ AGENT_RUN_LIMIT_PER_HOUR: '2' });
    const handled = await handleInTurn(running, [mail('k@customer.example'), mail('k@customer.example', { subject: 'パスワード' }), mail('k@customer.example', { subject: 'ログイン' })]);
    const [retried, second] = handled.map((h) => h.ticket);
    expect(retried!.state, retried!.reason).toBe('sent');
    expect(retried!.history.filter((h) => h.to === 'processing')).toHaveLength(2);
    expect(second!.state, second!.reason).toBe('sent');
    expectLimited(handled.slice(2), 'agent-run limit reached: 2 agent runs on mail from k@customer.example that no receiving server authenticated in the last hour (AGENT_RUN_LIMIT_PER_HOUR=2, for such mail from this address, which anyone can write: its authenticated mail counts apart and still runs)');
  }, 90_000);

  it('counts a follow-up in the thread like any other mail', async () => {
    const running = await run({ AGENT_RUN_LIMIT_PER_HOUR: '1' });
    const [first] = await handleInTurn(running, [mail('f@customer.example')]);
    expect(first!.ticket.state, first!.ticket.reason).toBe('sent');
    const followUp = await handleInTurn(running, [mail('f@customer.example', { subject: 'Re: 二段階認証について', body: 'パスワードの条件も教えてください。', inReplyTo: first!.ticket.outbound!.messageId })]);
    expect(followUp[0]!.ticket.conversationId).toBe(first!.ticket.id);
    expectLimited(followUp, 'agent-run limit reached: 1 agent run on mail from f@customer.example that no receiving server authenticated in the last hour (AGENT_RUN_LIMIT_PER_HOUR=1, for such mail from this address, which anyone can write: its authenticated mail counts apart and still runs)');
  }, 90_000);
});
