/**
 * A customer's question that the checks ignored (it came through the customer's CRM, which writes a List-Unsubscribe
 * header), reopened by a person and answered: the agent's new draft is parked for review even when asked for from a
 * terminal in `auto` mode, and only the person's approval sends the one reply, without Auto-Submitted. Real agent
 * worker and sender, the scripted model, redis-server and the SMTP receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { approveTicket, reopenIgnored, rerunAgent, rerunReason } from '../../src/tickets/review.js';
import { buildMail, customerMessageId, ingest, pipelineEnv, removePrefix, startPipelineServers, startRoles, waitFor, waitForState, type PipelineServers, type RunningRoles } from '../support/pipeline.js';

let servers: PipelineServers;
let running: RunningRoles;
let env: Record<string, string>;

beforeAll(async () => {
  servers = await startPipelineServers();
  // `auto`: a complete answer (the scripted model's default) would be sent without a person.
  env = pipelineEnv(servers, { REVIEW_MODE: 'auto' });
  running = await startRoles(parseConfig(env));
}, 60_000);
afterAll(async () => {
  await running?.stop();
  if (servers) await removePrefix(servers.redis.url, env.QUEUE_PREFIX!);
  await servers?.stop();
});

describe('an ignored question reopened by a person', () => {
  it('gets a draft for review, never an automatic reply, and one reply once approved', async () => {
    const messageId = customerMessageId('crm');
    const { ticketId } = await ingest(
      running,
      buildMail({
        messageId,
        from: 'Hanako <hanako@customer.example>',
        subject: 'パスワードについて',
        body: 'パスワードの条件を教えてください。',
        headers: { 'List-Unsubscribe': '<mailto:leave@crm.customer.example>' },
      }),
    );
    const ignored = await waitForState(running.store, ticketId, ['ignored', 'parked', 'sent'], 30_000);
    expect(ignored.state).toBe('ignored');
    expect(ignored.reason).toMatch(/^list: List-Unsubscribe/);

    const deps = { store: running.store, redis: await running.services.producer() };
    expect(await reopenIgnored(deps, { ticketId, operator: 'anna' })).toMatchObject({ outcome: 'reopened', alreadyReopened: false });
    // As `npm run review -- rerun` asks, in `auto` mode: nothing says "for review" but the reopening.
    const queues = await running.services.queues();
    const asked = await rerunAgent({ ...deps, tickets: queues.tickets, config: running.services.config }, { ticketId, operator: 'anna' });
    expect(asked.outcome).toBe('requeued');

    const drafted = await waitFor(async () => {
      const t = await running.store.require(ticketId);
      return t.history.some((h) => h.from === 'processing') && ['parked', 'drafted', 'sending', 'sent'].includes(t.state) ? t : undefined;
    }, 'the agent to answer the reopened mail', 30_000);
    expect(drafted.state).toBe('parked');
    expect(drafted.reason).toBe(rerunReason('anna'));
    expect(drafted.draft?.trim()).not.toBe('');
    // Give a wrongly queued send time to happen before counting.
    await new Promise((r) => setTimeout(r, 500));
    expect(servers.smtp.messages).toHaveLength(0);
    expect(asked).toMatchObject({ forReview: true });

    const approved = await approveTicket({ ...deps, outbound: queues.outbound, config: running.services.config }, { ticketId, operator: 'anna' });
    expect(approved.outcome).toBe('approved');
    const sent = await waitForState(running.store, ticketId, ['sent', 'parked'], 30_000);
    expect(sent.state, sent.reason).toBe('sent');
    expect(sent.outcome).toMatchObject({ kind: 'approved_as_is' });
    const [mail] = await servers.smtp.waitFor(1);
    expect(mail!.envelope.to).toEqual(['hanako@customer.example']);
    expect(mail!.parsed.inReplyTo).toBe(messageId);
    expect(mail!.headers.has('auto-submitted')).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(servers.smtp.messages).toHaveLength(1);
  }, 90_000);
});
