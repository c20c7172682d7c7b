/**
 * One sender's flood of large mails through the whole pipeline (the security review's finding: 20 mails of 9 MB from
 * one address grew Redis by about 280 MB, every raw copy kept until its ticket settled plus retention, a parked one's
 * for ever). With the default RAW_MAIL_BYTES_PER_SENDER_PER_HOUR only that much of the sender's mail stays in Redis;
 * the rest keeps its text without a raw copy and goes through the checks before the agent from its recorded signals:
 * the automatic replies among it are ignored as on any day, the questions parked for a person with no agent run, and
 * a person can still get a draft of one, for review. Real Redis, BullMQ and SMTP catcher; the scripted model server.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { rerunAgent, rerunReason } from '../../src/tickets/review.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import { buildMail, customerMessageId, ingest, waitFor, waitForState } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();
const MiB = 1024 * 1024;
const usedMemory = async (r: Redis) => Number(/used_memory:(\d+)/.exec(await r.info('memory'))![1]);

describe('raw mail of one sender in Redis', () => {
  it("keeps at most RAW_MAIL_BYTES_PER_SENDER_PER_HOUR of one sender's mail; of the rest the auto-replies are ignored, the questions parked without an agent run, and a person can still get a draft", async () => {
    const running = await suite.run({ REVIEW_MODE: 'auto', REPEATED_QUESTION_HOURS: '0' });
    const prefix = running.services.config.QUEUE_PREFIX;
    const redis = new Redis(suite.servers.redis.url);
    suite.cleanups.push(async () => redis.disconnect());
    const before = await usedMemory(redis);
    // Under the parser's 10 MiB once encoded (base64: 7 MiB → 9.4 MiB): a mail read only in part is parked as such,
    // and no agent runs on it even at a person's request.
    const filler = 'x'.repeat(7 * MiB);
    const handled: Array<{ ticket: Ticket; size: number; modelCalls: number; auto: boolean }> = [];
    for (let i = 0; i < 20; i++) {
      const auto = i % 2 === 0;
      const raw = buildMail({
        messageId: customerMessageId(`big${i}`),
        from: 'mallory@evil-co.example',
        subject: 'パスワード',
        body: `パスワードの条件を教えてください。\n${filler}`,
        ...(auto ? { headers: { 'Auto-Submitted': 'auto-replied' } } : {}),
      });
      const calls = suite.servers.llm.chatRequests().length;
      const { ticketId } = await ingest(running, raw);
      const ticket = await waitForState(running.store, ticketId, ['sent', 'parked', 'ignored'], 60_000);
      handled.push({ ticket, size: raw.length, modelCalls: suite.servers.llm.chatRequests().length - calls, auto });
    }
    const kept = Math.floor((64 * MiB) / handled[0]!.size);
    expect(kept).toBeGreaterThanOrEqual(4);
    expect(await redis.keys(`${prefix}:raw:*`)).toHaveLength(kept);
    expect((await usedMemory(redis)) - before).toBeLessThan(80 * MiB);

    const notKept = handled.slice(kept);
    for (const { ticket, modelCalls, auto } of notKept) {
      expect(ticket.state, ticket.reason).toBe(auto ? 'ignored' : 'parked');
      expect(ticket.reason).toMatch(auto ? /^auto-reply: / : /^raw mail not kept: [\d.]+ MB from this sender in the last hour/);
      expect(ticket.rawRef).toBeUndefined();
      expect(ticket.history.some((h) => h.to === 'processing')).toBe(false);
      expect(modelCalls).toBe(0);
    }

    // The agent needs no raw mail: a person's request for a draft of such a ticket gets one, for review even when
    // the request does not ask for it (the CLI's): the mail never passed the checks to the agent.
    const asked = notKept.find(({ auto }) => !auto)!.ticket;
    const deps = { store: running.store, redis: await running.services.producer(), tickets: (await running.services.queues()).tickets, config: running.services.config };
    expect(await rerunAgent(deps, { ticketId: asked.id, operator: 'anna' })).toMatchObject({ outcome: 'requeued', forReview: true });
    const redrafted = await waitFor(async () => {
      const t = await running.store.require(asked.id);
      return t.state === 'parked' && t.draft ? t : undefined;
    }, 'the new draft', 60_000);
    expect(redrafted.reason).toBe(rerunReason('anna'));
  }, 240_000);
});
