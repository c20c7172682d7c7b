/**
 * A rerun asked for again while the ticket is already `processing` (the first rerun's transition happened, its job
 * add did not: a Redis blip, the CLI killed, Ctrl-C) re-adds the job for review, as the first one would have been,
 * for mail a check parked before any run (spam with SPAM_ACTION=park, limits, a first start's hold): those checks do
 * not run again, so in REVIEW_MODE=auto the new draft would otherwise be mailed to the spam sender or the held mail.
 * Real redis-server and BullMQ queues.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { RERUN_NOTE, rerunAgent } from '../../src/tickets/review.js';
import { newTicket, ticketIdFor } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { removePrefix } from '../support/pipeline.js';

let server: RedisServer;
let redis: Redis;
let queues: Queues;
let store: TicketStore;
let prefix: string;

beforeAll(async () => {
  server = await startRedis();
  redis = await connectProducer(server.url);
  prefix = `rrr${randomUUID().slice(0, 8)}`;
  queues = createQueues(redis, prefix);
  store = new TicketStore(redis, { prefix });
});
afterAll(async () => {
  await closeAll(queues);
  await removePrefix(server.url, prefix);
  redis.disconnect();
  await server.stop();
});

it.each([
  { name: 'held at the first start', how: 'created', reason: 'held: no sync state for this mailbox yet (a first start, or Redis lost it); it arrived 4 months earlier' },
  { name: 'parked as spam', how: 'checked', reason: 'spam: X-Spam-Flag: YES' },
])('a CLI rerun retried after its job add failed keeps the draft for review: $name', async ({ how, reason }) => {
  const messageId = `<${randomUUID()}@customer.example>`;
  const ticketId = ticketIdFor(messageId);
  const base = { messageId, from: 'old@customer.example', subject: '二段階認証', question: '二段階認証の設定手順を教えてください。', actor: 'poller' };
  await store.createIfAbsent(newTicket(how === 'created' ? { ...base, state: 'parked', reason } : base));
  if (how === 'checked') await store.transition(ticketId, { to: 'parked', actor: 'agent-worker', patch: { reason } });
  const deps = { store, redis, tickets: queues.tickets, config: { AGENT_ATTEMPTS: 3 } };

  // What the first `npm run review -- rerun` did before its job add failed: the same transition rerunAgent makes.
  await store.transition(ticketId, { from: ['parked'], to: 'processing', actor: 'operator:cli', note: RERUN_NOTE });
  // The operator runs the command again.
  const outcome = await rerunAgent(deps, { ticketId, operator: 'cli' });
  expect(outcome.outcome).toBe('requeued');
  const jobs = await queues.tickets.getJobs(['waiting', 'delayed', 'prioritized']);
  const job = jobs.find((j) => j.data.ticketId === ticketId);
  expect(job).toBeDefined();
  // Without reviewBy the agent's draft is decided by REVIEW_MODE (auto: mailed to the spam sender / months-old mail).
  expect(job!.data).toHaveProperty('reviewBy', 'cli');
  expect(outcome).toMatchObject({ forReview: true });
});
