/**
 * A decision made on one draft must not land on another: when an agent rerun parks the ticket again with a new
 * draft between the read an approval or a rejection decides on and its write (parked → processing → parked, the
 * state the write expects), the write is refused and the operator is told the ticket changed (security review 8,
 * finding 2). Real redis-server and BullMQ queues; the store is the product's, with the rerun made right after the
 * read the decision makes.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { approveTicket, rejectTicket } from '../../src/tickets/review.js';
import { newTicket, ticketIdFor, type Ticket } from '../../src/tickets/ticket.js';
import { TicketStore, type ReadOptions } from '../../src/tickets/ticket-store.js';
import { removePrefix } from '../support/pipeline.js';

/** The product's store, which reruns the agent on a ticket right after the next read of it. */
class RerunAfterRead extends TicketStore {
  rerunAfterReadOf: string | undefined;
  override async get(id: string, options?: ReadOptions): Promise<Ticket | undefined> {
    const read = await super.get(id, options);
    if (this.rerunAfterReadOf === id) {
      this.rerunAfterReadOf = undefined;
      await this.transition(id, { from: ['parked'], to: 'processing', actor: 'operator:bob' });
      await this.transition(id, { from: ['processing'], to: 'parked', actor: 'agent-worker', patch: { draft: 'A draft nobody read', reason: 'review' } });
    }
    return read;
  }
}

let server: RedisServer;
let redis: Redis;
let queues: Queues;
let store: RerunAfterRead;
let prefix: string;

beforeAll(async () => {
  server = await startRedis();
  redis = await connectProducer(server.url);
  prefix = `rdr${randomUUID().slice(0, 8)}`;
  queues = createQueues(redis, prefix);
  store = new RerunAfterRead(redis, { prefix });
});
afterAll(async () => {
  await closeAll(queues);
  await removePrefix(server.url, prefix);
  redis.disconnect();
  await server.stop();
});

async function parkedTicket(): Promise<Ticket> {
  const messageId = `<${randomUUID()}@customer.example>`;
  await store.createIfAbsent(newTicket({ messageId, from: 'hanako@customer.example', subject: 'CSV', question: 'CSVの出力方法は？', actor: 'poller' }));
  const id = ticketIdFor(messageId);
  await store.transition(id, { to: 'processing', actor: 'agent-worker' });
  return store.transition(id, { to: 'parked', actor: 'agent-worker', patch: { reason: 'review', draft: 'The draft the operator read' } });
}

it.each([
  { decision: 'approve the draft read', decide: (t: Ticket) => approveTicket({ store, redis, outbound: queues.outbound, config: parseConfig({ QUEUE_PREFIX: prefix }) }, { ticketId: t.id, operator: 'alice', seen: t.history.length }) },
  { decision: 'reject the draft read', decide: (t: Ticket) => rejectTicket({ store, redis }, { ticketId: t.id, operator: 'alice', seen: t.history.length, reason: 'wrong answer' }) },
])('$decision: a rerun that parks a new draft between the read and the write is refused', async ({ decide }) => {
  const ticket = await parkedTicket();
  store.rerunAfterReadOf = ticket.id;
  const outcome = await decide(ticket);
  expect(outcome).toMatchObject({ outcome: 'conflict', message: expect.stringMatching(/^The ticket changed since you opened it/) });
  const after = (await store.get(ticket.id))!;
  expect(after.state).toBe('parked');
  expect(after.draft).toBe('A draft nobody read');
  expect(await queues.outbound.getJobCounts('waiting', 'delayed', 'prioritized')).toEqual({ waiting: 0, delayed: 0, prioritized: 0 });
});

it('an approval of the draft read still goes through when nothing changed in between', async () => {
  const ticket = await parkedTicket();
  const outcome = await approveTicket({ store, redis, outbound: queues.outbound, config: parseConfig({ QUEUE_PREFIX: prefix }) }, { ticketId: ticket.id, operator: 'alice', seen: ticket.history.length });
  expect(outcome.outcome).toBe('approved');
  expect((await store.get(ticket.id))!.draft).toBe('The draft the operator read');
});
