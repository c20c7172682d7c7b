/**
 * "Answered well" is a share of the mail that needed an answer, not of the replies sent: mail still waiting for a
 * reply (received, processing, parked…), a rejected draft, failed and edited before sending all count against it; mail
 * the checks ignored (automatic, bulk, spam) is not in it, nor mail a person rejected before the agent drafted a reply
 * (parked by the checks: the operator judged it needed none). The old figure stays, as "of replies sent". Through the real
 * ticket store on a real redis-server and `GET /api/insights` over HTTP, week row and period totals alike.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues } from '../../src/queues/registry.js';
import { createDashboardApp } from '../../src/server/app.js';
import type { InsightsReport } from '../../src/server/insights.js';
import { newTicket } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { removePrefix } from '../support/pipeline.js';

/** A Thursday: its week began on Monday 2025-04-07, and the mail below came in on the Tuesday. */
const TODAY = new Date('2025-04-10T12:00:00Z');
const TUESDAY = Date.parse('2025-04-08T09:00:00Z');
const DRAFT = 'Settings → Security → Two-factor authentication.';

/** Where a mail of the demo ends up. */
type Fate = 'auto_sent' | 'approved_as_is' | 'approved_edited' | 'rejected' | 'rejected_without_draft' | 'rejected_over_limit' | 'rejected_after_failure' | 'failed' | 'ignored' | 'reopened_ignored' | 'received' | 'processing' | 'parked';

let redisServer: RedisServer;
let redis: Redis;
const cleanups: Array<() => Promise<void>> = [];
const savedTz = process.env.TZ;

beforeAll(async () => {
  process.env.TZ = 'UTC';
  redisServer = await startRedis();
  redis = await connectProducer(redisServer.url);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
  redis?.disconnect();
  await redisServer?.stop();
});

/** Takes one mail through the store's transitions to its fate, the clock moving a minute per step. */
async function deliver(store: TicketStore, at: (ms: number) => void, i: number, fate: Fate): Promise<void> {
  let t = TUESDAY + i * 3_600_000;
  const step = () => at((t += 60_000));
  at(t);
  const ignored = fate === 'ignored' || fate === 'reopened_ignored';
  const ticket = newTicket(
    {
      messageId: `<aw-${i}-${randomUUID()}@customer.example>`,
      from: `c${i}@customer.example`,
      subject: `Question ${i}`,
      question: 'How do I turn on two-factor authentication?',
      actor: 'poller',
      ...(ignored ? { state: 'ignored' as const, reason: 'auto-reply: Auto-Submitted: auto-replied' } : {}),
    },
    new Date(t),
  );
  await store.createIfAbsent(ticket);
  if (fate === 'ignored' || fate === 'received') return;
  step();
  if (fate === 'rejected_without_draft' || fate === 'rejected_over_limit') {
    // Parked before the agent ran, no draft, as the checks park it (the reason also the note); the operator rejects it:
    // mail parked for what it is needed no reply, mail a limit parked needed one.
    const reason = fate === 'rejected_without_draft' ? 'calendar invitation (text/calendar; method=REQUEST): a person answers it' : 'agent-run limit reached: 20 agent runs in the last hour';
    await store.transition(ticket.id, { to: 'parked', actor: 'agent-worker', note: reason, patch: { reason } });
    step();
    await store.transition(ticket.id, { to: 'rejected', actor: 'operator:anna', patch: { reason: 'no reply needed' } });
    return;
  }
  if (fate === 'reopened_ignored') {
    await store.transition(ticket.id, { to: 'parked', actor: 'operator:anna', patch: { reason: 'reopened' } });
    return;
  }
  await store.transition(ticket.id, { to: 'processing', actor: 'agent-worker' });
  if (fate === 'processing') return;
  step();
  if (fate === 'rejected_after_failure') {
    const reason = 'agent failed 3 time(s): the model server could not be reached';
    await store.transition(ticket.id, { to: 'parked', actor: 'agent-worker', note: reason, patch: { reason } });
    step();
    await store.transition(ticket.id, { to: 'rejected', actor: 'operator:anna', patch: { reason: 'answered by phone' } });
    return;
  }
  if (fate === 'failed') {
    await store.transition(ticket.id, { to: 'failed', actor: 'agent-worker', patch: { reason: 'raw mail missing' } });
    return;
  }
  if (fate === 'auto_sent') {
    await store.transition(ticket.id, { to: 'drafted', actor: 'agent-worker', patch: { draft: DRAFT } });
    step();
    await store.transition(ticket.id, { to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${i}@helpdesk.test>`, autoSubmitted: true } } });
    step();
    await store.transition(ticket.id, { to: 'sent', actor: 'sender' });
    return;
  }
  await store.transition(ticket.id, { to: 'parked', actor: 'agent-worker', patch: { draft: DRAFT, reason: 'review mode always' } });
  if (fate === 'parked') return;
  step();
  if (fate === 'rejected') {
    await store.transition(ticket.id, { to: 'rejected', actor: 'operator:anna', patch: { reason: 'answered by phone' } });
    return;
  }
  const edited = fate === 'approved_edited';
  await store.transition(ticket.id, { to: 'approved', actor: 'operator:anna', patch: { approval: { edited, editRatio: edited ? 0.4 : 0 } } });
  step();
  await store.transition(ticket.id, { to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${i}@helpdesk.test>`, autoSubmitted: false } } });
  step();
  await store.transition(ticket.id, { to: 'sent', actor: 'sender' });
}

async function insightsAfter(fates: readonly Fate[]): Promise<InsightsReport> {
  const prefix = `aw${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  let clock = TODAY.getTime();
  const store = new TicketStore(redis, { prefix, now: () => new Date(clock) });
  const queues = createQueues(redis, prefix);
  const config = parseConfig({ REDIS_URL: redisServer.url, QUEUE_PREFIX: prefix, DASHBOARD_AUTH: 'off' });
  const server = createServer(createDashboardApp({ config, redis, store, queues, now: () => TODAY }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    await closeAll(queues).catch(() => undefined);
    await removePrefix(redisServer.url, prefix);
  });
  for (const [i, fate] of fates.entries()) await deliver(store, (ms) => (clock = ms), i, fate);
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/insights?days=7`);
  expect(res.status).toBe(200);
  return (await res.json()) as InsightsReport;
}

describe('answered well: a share of the mail that needed an answer', () => {
  it.each<[string, Fate[], { needing: number; well: number | null; ofReplies: number | null }]>([
    ['the demo: two mails in, one auto-sent, one still parked', ['auto_sent', 'parked'], { needing: 2, well: 0.5, ofReplies: 1 }],
    ['mail the checks ignored is not counted', ['auto_sent', 'parked', 'ignored', 'ignored'], { needing: 2, well: 0.5, ofReplies: 1 }],
    ['a rejected mail counts against it', ['auto_sent', 'rejected'], { needing: 2, well: 0.5, ofReplies: 1 }],
    ['a mail rejected before the agent drafted anything needed no reply', ['auto_sent', 'rejected_without_draft'], { needing: 1, well: 1, ofReplies: 1 }],
    ['a rejected draft counts against it beside one that needed no reply', ['auto_sent', 'rejected', 'rejected_without_draft'], { needing: 2, well: 0.5, ofReplies: 1 }],
    ['only mail rejected without a draft: nothing to divide', ['rejected_without_draft'], { needing: 0, well: null, ofReplies: null }],
    ['a mail the agent failed on, rejected without a draft, needed an answer', ['auto_sent', 'rejected_after_failure'], { needing: 2, well: 0.5, ofReplies: 1 }],
    ['a mail the agent-run limit parked, rejected without a draft, needed an answer', ['auto_sent', 'rejected_over_limit'], { needing: 2, well: 0.5, ofReplies: 1 }],
    ['mail waiting anywhere before a reply counts', ['approved_as_is', 'received', 'processing', 'parked'], { needing: 4, well: 0.25, ofReplies: 1 }],
    ['failed and edited before sending count, as drafted is well', ['auto_sent', 'approved_as_is', 'approved_edited', 'failed'], { needing: 4, well: 0.5, ofReplies: 2 / 3 }],
    ['an ignored mail a person reopened needs an answer again', ['auto_sent', 'reopened_ignored'], { needing: 2, well: 0.5, ofReplies: 1 }],
    ['only ignored mail: nothing to divide', ['ignored'], { needing: 0, well: null, ofReplies: null }],
  ])('%s', async (_case, fates, want) => {
    const r = await insightsAfter(fates);
    const week = r.weekly.find((w) => w.week === '2025-04-07')!;
    for (const span of [r.totals, week]) {
      expect(span.answeredWell).toBe(want.well);
      expect(span.needingAnswer).toBe(want.needing);
      expect(span.answeredWellOfReplies).toBe(want.ofReplies);
    }
    // The week before holds none of this mail: nothing to divide there, so no change either.
    expect(r.weekly.find((w) => w.week === '2025-03-31')?.answeredWell).toBeNull();
  });
});
