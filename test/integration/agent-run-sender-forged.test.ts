/**
 * Agent runs per sender (AGENT_RUN_LIMIT_PER_HOUR) under a forged From, security review 14: anyone can write a
 * customer's address in the From, so forgeries (parked as possibly forged, but the agent ran on them) used up that
 * customer's own window, and the customer's genuine mail, which the receiving server authenticated, was parked for the
 * limit. The sender's window is counted apart for authenticated mail and the rest, as the domain's and the total are.
 * Real Redis and BullMQ, the agent worker against the scripted model server, whose requests are the model calls counted.
 */
import { describe, expect, it } from 'vitest';
import type { Ticket } from '../../src/tickets/ticket.js';
import { buildMail, customerMessageId, ingest, waitForState, type RunningRoles } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();
const OURS = 'mx.helpdesk.test';
const CUSTOMER = 'tanaka@bank.example';
/** What our receiving server writes for a forgery under the customer's domain, and for the customer's own mail. */
const FORGED = { 'Authentication-Results': `${OURS}; spf=fail smtp.mailfrom=evil.example; dmarc=none header.from=bank.example` };
const GENUINE = { 'Authentication-Results': `${OURS}; spf=pass smtp.mailfrom=bank.example; dkim=pass header.d=bank.example; dmarc=pass header.from=bank.example` };
/** The park reason of the sender's window of authenticated mail, or of the rest: which one refused, in its words. */
const SENDER_REASON = (count: number, limit: number, authenticated: boolean) =>
  `agent-run limit reached: ${count} agent run${count === 1 ? '' : 's'} on mail from ${CUSTOMER} that ` +
  (authenticated
    ? `the receiving server authenticated in the last hour (AGENT_RUN_LIMIT_PER_HOUR=${limit}, for this address's authenticated mail: raise it if this sender really writes this much)`
    : `no receiving server authenticated in the last hour (AGENT_RUN_LIMIT_PER_HOUR=${limit}, for such mail from this address, which anyone can write: its authenticated mail counts apart and still runs)`);

interface Handled {
  ticket: Ticket;
  modelCalls: number;
}

let numbered = 0;

/** A question of its own under a subject of its own. */
function mail(headers: Record<string, string>): Buffer {
  const n = ++numbered;
  return buildMail({ messageId: customerMessageId(`forged-${n}`), from: `Tanaka <${CUSTOMER}>`, subject: `パスワード ${n}`, body: `パスワードの条件を教えてください。${n}`, headers });
}

async function handle(running: RunningRoles, raw: Buffer): Promise<Handled> {
  const before = suite.servers.llm.chatRequests().length;
  const { ticketId } = await ingest(running, raw);
  const ticket = await waitForState(running.store, ticketId, ['parked', 'sent', 'ignored', 'failed'], 60_000);
  return { ticket, modelCalls: suite.servers.llm.chatRequests().length - before };
}

/** Parked before the agent for the sender's window: no draft, no model call. */
function expectLimited({ ticket, modelCalls }: Handled, reason: string): void {
  expect(ticket.state).toBe('parked');
  expect(ticket.reason).toBe(reason);
  expect(ticket.history.some((h) => h.to === 'processing')).toBe(false);
  expect(modelCalls).toBe(0);
}

function run(overrides: Record<string, string>): Promise<RunningRoles> {
  return suite.run({ REVIEW_MODE: 'auto', AUTHSERV_ID: OURS, REPEATED_QUESTION_HOURS: '0', ...overrides });
}

describe("agent runs per sender under a forged From", () => {
  it("forgeries under a customer's address spend only that address's unauthenticated window: the customer's own mail is answered", async () => {
    const running = await run({ AGENT_RUN_LIMIT_PER_HOUR: '2' });
    for (let i = 0; i < 2; i++) {
      const forged = await handle(running, mail(FORGED));
      expect(forged.ticket.state).toBe('parked');
      expect(forged.ticket.reason).toMatch(/^possibly forged sender/);
      expect(forged.modelCalls).toBeGreaterThan(0);
    }
    // A third forgery is over the window of the address's unauthenticated mail.
    expectLimited(await handle(running, mail(FORGED)), SENDER_REASON(2, 2, false));

    const genuine = await handle(running, mail(GENUINE));
    expect(genuine.ticket.state, genuine.ticket.reason).toBe('sent');
    expect(genuine.modelCalls).toBeGreaterThan(0);
    expect(suite.servers.smtp.messages.map((m) => m.envelope.to)).toEqual([[CUSTOMER]]);
  }, 120_000);

  it("still bounds a flood of the customer's own authenticated mail", async () => {
    const running = await run({ AGENT_RUN_LIMIT_PER_HOUR: '2' });
    for (let i = 0; i < 2; i++) {
      const genuine = await handle(running, mail(GENUINE));
      expect(genuine.ticket.state, genuine.ticket.reason).toBe('sent');
    }
    expectLimited(await handle(running, mail(GENUINE)), SENDER_REASON(2, 2, true));
    // Its unauthenticated window is apart, and has the same limit.
    const forged = await handle(running, mail(FORGED));
    expect(forged.ticket.reason).toMatch(/^possibly forged sender/);
  }, 120_000);
});
