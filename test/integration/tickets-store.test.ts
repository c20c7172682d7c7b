import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TicketConflictError, TicketNotFoundError, TicketStore } from '../../src/tickets/ticket-store.js';
import { IllegalTransitionError, newTicket, threadRefs, type Ticket, type TicketState } from '../../src/tickets/ticket.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';

let server: RedisServer;
let redis: Redis;
const prefixes: string[] = [];
const extraClients: Redis[] = [];

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
});

afterEach(async () => {
  await Promise.all(extraClients.splice(0).map((c) => c.quit()));
  // Test-only cleanup by pattern; the store itself never scans.
  for (const prefix of prefixes.splice(0)) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

/** A store with a fresh prefix and a clock that advances one second per call. */
function freshStore(start = Date.parse('2025-03-01T10:00:00Z')) {
  const prefix = `test-${randomUUID()}`;
  prefixes.push(prefix);
  let t = start;
  const clock = () => new Date((t += 1000));
  return { store: new TicketStore(redis, { prefix, now: clock }), prefix, clock };
}

/** Another connection, so concurrent calls really interleave on the server. */
function secondClient(): Redis {
  const client = redis.duplicate();
  extraClients.push(client);
  return client;
}

function mail(n: string | number, extra: Partial<Parameters<typeof newTicket>[0]> = {}, at?: Date): Ticket {
  return newTicket(
    { messageId: `<m${n}@customer.example>`, from: `c${n}@customer.example`, subject: `Question ${n}`, question: `How ${n}?`, actor: 'poller', ...extra },
    at,
  );
}

async function walk(store: TicketStore, id: string, states: TicketState[]): Promise<Ticket> {
  let t = await store.require(id);
  for (const to of states) t = await store.transition(id, { to, actor: 'test' });
  return t;
}

describe('createIfAbsent', () => {
  it('makes one ticket of the same mail seen twice', async () => {
    const { store } = freshStore();
    const first = await store.createIfAbsent(mail(1));
    const again = await store.createIfAbsent({ ...mail(1), question: 'different text from a re-poll' });
    expect(first.created).toBe(true);
    expect(again.created).toBe(false);
    expect(again.ticket).toEqual(first.ticket);
    expect((await store.list({ limit: 10 })).total).toBe(1);
    expect((await store.countByState()).received).toBe(1);
  });

  it('creates exactly one ticket under concurrent creates', async () => {
    const { store } = freshStore();
    const results = await Promise.all(Array.from({ length: 8 }, () => store.createIfAbsent(mail(2))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect((await store.list({ limit: 10 })).total).toBe(1);
  });

  it('refuses a ticket whose id is not derived from its Message-ID', async () => {
    const { store } = freshStore();
    await expect(store.createIfAbsent({ ...mail(3), id: 'f'.repeat(64) })).rejects.toThrow(/sha256 of the messageId/);
  });

  it('finds the ticket by Message-ID with or without brackets', async () => {
    const { store } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(4));
    expect((await store.findByMessageId('<m4@customer.example>'))?.id).toBe(ticket.id);
    expect((await store.findByMessageId('m4@customer.example'))?.id).toBe(ticket.id);
    expect(await store.findByMessageId('nope@x')).toBeUndefined();
    expect(await store.get(ticket.id)).toEqual(ticket);
  });
});

describe('transition', () => {
  it('walks the happy path, appending to the history and bumping the version', async () => {
    const { store } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(10));
    const seen: Ticket[] = [ticket];
    for (const to of ['processing', 'drafted', 'sending', 'sent'] as const) {
      const prev = seen.at(-1) as Ticket;
      const next = await store.transition(ticket.id, { from: [prev.state], to, actor: 'worker', note: `to ${to}` });
      // Append-only: the old entries are untouched, exactly one is added.
      expect(next.history.slice(0, prev.history.length)).toEqual(prev.history);
      expect(next.history).toHaveLength(prev.history.length + 1);
      expect(next.history.at(-1)).toMatchObject({ from: prev.state, to, actor: 'worker', note: `to ${to}` });
      expect(next.version).toBe(prev.version + 1);
      expect(await store.get(ticket.id)).toEqual(next);
      seen.push(next);
    }
    const counts = await store.countByState();
    expect(counts.sent).toBe(1);
    expect(counts.received + counts.processing + counts.drafted + counts.sending).toBe(0);
  });

  it('stores the patch in the same write as the state change', async () => {
    const { store } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(11));
    await store.transition(ticket.id, { to: 'processing', actor: 'worker' });
    const parked = await store.transition(ticket.id, { to: 'parked', actor: 'worker', patch: { reason: 'review mode', draft: 'Hello' } });
    expect(parked).toMatchObject({ state: 'parked', reason: 'review mode', draft: 'Hello' });
    const retried = await store.transition(ticket.id, { to: 'processing', actor: 'operator:ann', patch: { reason: null } });
    expect(retried.reason).toBeUndefined();
    expect(retried.draft).toBe('Hello');
  });

  it('rejects an illegal transition and leaves ticket and indexes unchanged', async () => {
    const { store } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(12));
    const sent = await walk(store, ticket.id, ['processing', 'drafted', 'sending', 'sent']);
    const countsBefore = await store.countByState();
    const error = await store.transition(ticket.id, { to: 'sending', actor: 'sender', patch: { draft: 'again' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect(error).toMatchObject({ from: 'sent', to: 'sending', ticketId: ticket.id });
    expect(await store.get(ticket.id)).toEqual(sent);
    expect(await store.countByState()).toEqual(countsBefore);
  });

  it('rejects a ticket that is not in an expected state, unchanged', async () => {
    const { store } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(13));
    const error = await store.transition(ticket.id, { from: ['drafted', 'approved'], to: 'sending', actor: 'sender' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TicketConflictError);
    expect(error).toMatchObject({ actual: 'received', expected: ['drafted', 'approved'] });
    expect(await store.get(ticket.id)).toEqual(ticket);
  });

  it('lets only one of two racing transitions from processing win', async () => {
    const { store } = freshStore();
    for (let round = 0; round < 25; round++) {
      const { ticket } = await store.createIfAbsent(mail(`race${round}`));
      await store.transition(ticket.id, { to: 'processing', actor: 'worker' });
      const other = new TicketStore(secondClient(), { prefix: store.prefix });
      const results = await Promise.allSettled([
        store.transition(ticket.id, { from: ['processing'], to: 'drafted', actor: 'worker-a', patch: { draft: 'A' } }),
        other.transition(ticket.id, { from: ['processing'], to: 'parked', actor: 'worker-b', patch: { reason: 'B' } }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]?.reason).toBeInstanceOf(TicketConflictError);
      const stored = await store.require(ticket.id);
      const winner = (won[0] as PromiseFulfilledResult<Ticket>).value;
      expect(stored).toEqual(winner);
      // The loser wrote nothing: one processing entry and exactly one entry after it.
      expect(stored.history.map((h) => h.to)).toEqual(['received', 'processing', winner.state]);
      expect(winner.state === 'drafted' ? stored.reason : stored.draft).toBeUndefined();
    }
  });

  it('fails clearly on a missing ticket', async () => {
    const { store } = freshStore();
    await expect(store.transition('0'.repeat(64), { to: 'processing', actor: 'x' })).rejects.toBeInstanceOf(TicketNotFoundError);
  });
});

describe('update', () => {
  it('changes fields but never the state or the history', async () => {
    const { store } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(20));
    const updated = await store.update(ticket.id, { draft: 'Try turning it off and on.' });
    expect(updated).toMatchObject({ state: 'received', draft: 'Try turning it off and on.', history: ticket.history, version: 2 });
    await expect(store.update(ticket.id, { state: 'sent' } as never)).rejects.toThrow(/cannot be patched/);
    await expect(store.update(ticket.id, { history: [] } as never)).rejects.toThrow(/cannot be patched/);
    await expect(store.transition(ticket.id, { to: 'processing', actor: 'x', patch: { id: 'x' } as never })).rejects.toThrow(/cannot be patched/);
    expect(await store.get(ticket.id)).toEqual(updated);
  });

  it('refuses an update outside the given states', async () => {
    const { store } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(21));
    await walk(store, ticket.id, ['processing', 'drafted', 'sending']);
    await expect(store.update(ticket.id, { draft: 'edited too late' }, { ifState: ['parked'] })).rejects.toBeInstanceOf(TicketConflictError);
    expect((await store.require(ticket.id)).draft).toBeUndefined();
  });

  it('does not lose a field update that races with a transition', async () => {
    const { store } = freshStore();
    for (let round = 0; round < 10; round++) {
      const { ticket } = await store.createIfAbsent(mail(`upd${round}`));
      const other = new TicketStore(secondClient(), { prefix: store.prefix });
      const [updated, moved] = await Promise.all([
        store.update(ticket.id, { rawRef: `raw/${round}.eml` }),
        other.transition(ticket.id, { to: 'processing', actor: 'worker' }),
      ]);
      const stored = await store.require(ticket.id);
      expect(stored.rawRef).toBe(`raw/${round}.eml`);
      expect(stored.state).toBe('processing');
      expect(stored.version).toBe(Math.max(updated.version, moved.version));
    }
  });
});

describe('writes from the caller\'s copy (current)', () => {
  it('writes on a fresh copy without reading it again, and decides again on the stored ticket when the copy is stale', async () => {
    const { store } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(80));
    const processing = await store.transition(ticket.id, { to: 'processing', actor: 'worker', current: ticket });
    expect(processing).toMatchObject({ state: 'processing', version: 2 });

    // A person's field update lands in between: the worker's copy is stale, the write still succeeds on top of it.
    await store.update(ticket.id, { reason: 'looked at by ann' });
    const drafted = await store.transition(ticket.id, { from: ['processing'], to: 'drafted', actor: 'worker', patch: { draft: 'D' }, current: processing });
    expect(drafted).toMatchObject({ state: 'drafted', version: 4, reason: 'looked at by ann', draft: 'D' });
    expect((await store.require(ticket.id)).history.map((h) => h.to)).toEqual(['received', 'processing', 'drafted']);
  });

  it('refuses on the stored state, not on a stale copy: a ticket moved on is a conflict, a stale from-state is not', async () => {
    const { store } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(81));
    const processing = await store.transition(ticket.id, { to: 'processing', actor: 'worker' });
    // The stale copy says `received`; the stored ticket is `processing`, which is what `from` asks for.
    const parked = await store.transition(ticket.id, { from: ['processing'], to: 'parked', actor: 'worker', current: ticket });
    expect(parked.state).toBe('parked');
    // The copy says `processing`, but the ticket was parked since: a conflict, and nothing changes.
    await expect(store.transition(ticket.id, { from: ['processing'], to: 'drafted', actor: 'worker', current: processing })).rejects.toBeInstanceOf(
      TicketConflictError,
    );
    await expect(store.update(ticket.id, { draft: 'x' }, { ifState: ['processing'], current: processing })).rejects.toBeInstanceOf(TicketConflictError);
    expect(await store.require(ticket.id)).toMatchObject({ state: 'parked', version: 3 });
  });
});

describe('agent result', () => {
  /** Enough of an AgentResult for storage: the store never looks inside it. */
  const result = (answer: string) => ({ question: 'q', plan: { subtasks: ['a'] }, subtasks: [], answer, sources: [], llmCalls: [] }) as unknown as NonNullable<Ticket['agent']>;

  it('lives in its own field: state changes neither read nor rewrite it, get puts it back', async () => {
    const { store, prefix } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(70));
    await store.transition(ticket.id, { to: 'processing', actor: 'worker' });
    const drafted = await store.transition(ticket.id, { to: 'drafted', actor: 'worker', patch: { agent: result('A'), draft: 'A' } });
    expect(drafted.agent?.answer).toBe('A');
    const key = `${prefix}:store:ticket:${ticket.id}`;
    expect(JSON.parse((await redis.hget(key, 'doc'))!)).not.toHaveProperty('agent');
    expect(JSON.parse((await redis.hget(key, 'agent'))!).answer).toBe('A');

    const sending = await store.transition(ticket.id, { to: 'sending', actor: 'sender' });
    expect(sending).not.toHaveProperty('agent');
    await store.update(ticket.id, { outbound: { messageId: '<r70@support.example>' } as NonNullable<Ticket['outbound']> });
    expect((await store.get(ticket.id))?.agent?.answer).toBe('A');
    expect(await store.get(ticket.id, { agentResult: false })).not.toHaveProperty('agent');
    expect((await store.list({ limit: 10 })).tickets[0]?.agent?.answer).toBe('A');
  });

  it('is replaced by a new result and removed by null', async () => {
    const { store } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(71));
    await store.transition(ticket.id, { to: 'processing', actor: 'worker' });
    await store.transition(ticket.id, { to: 'parked', actor: 'worker', patch: { agent: result('first') } });
    await store.transition(ticket.id, { to: 'processing', actor: 'operator:ann' });
    await store.update(ticket.id, { agent: result('second') });
    expect((await store.get(ticket.id))?.agent?.answer).toBe('second');
    await store.update(ticket.id, { agent: null });
    expect(await store.get(ticket.id)).not.toHaveProperty('agent');
  });

  it('moves out of a ticket stored before the split on its next write, and is read from either place meanwhile', async () => {
    const { store, prefix } = freshStore();
    const { ticket } = await store.createIfAbsent(mail(72));
    const key = `${prefix}:store:ticket:${ticket.id}`;
    // The earlier layout: the whole ticket, agent result included, in `doc`.
    await redis.hset(key, 'doc', JSON.stringify({ ...ticket, agent: result('old') }));
    expect((await store.get(ticket.id))?.agent?.answer).toBe('old');
    await store.transition(ticket.id, { to: 'processing', actor: 'worker' });
    expect(JSON.parse((await redis.hget(key, 'doc'))!)).not.toHaveProperty('agent');
    expect((await store.get(ticket.id))?.agent?.answer).toBe('old');
  });
});

describe('list and counts', () => {
  it('pages per state and overall, newest first', async () => {
    const { store } = freshStore();
    const base = Date.parse('2025-04-01T08:00:00Z');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const { ticket } = await store.createIfAbsent(mail(`l${i}`, {}, new Date(base + i * 60_000)));
      ids.push(ticket.id);
      if (i % 2 === 0) await store.transition(ticket.id, { to: 'parked', actor: 'poller', patch: { reason: 'limit' } });
    }
    // parked: 0, 2, 4, 6 → newest first 6, 4, 2, 0
    const page = await store.list({ state: 'parked', limit: 2, offset: 1 });
    expect(page.total).toBe(4);
    expect(page.tickets.map((t) => t.id)).toEqual([ids[4], ids[2]]);
    expect(page.tickets.every((t) => t.state === 'parked')).toBe(true);

    const all = await store.list({ limit: 3 });
    expect(all.total).toBe(7);
    expect(all.tickets.map((t) => t.id)).toEqual([ids[6], ids[5], ids[4]]);
    expect((await store.list({ limit: 5, offset: 5 })).tickets.map((t) => t.id)).toEqual([ids[1], ids[0]]);
    expect((await store.list({ state: 'sent', limit: 5 })).tickets).toEqual([]);

    const counts = await store.countByState();
    expect(counts).toMatchObject({ parked: 4, received: 3, sent: 0 });
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(7);
  });

  it('validates paging arguments', async () => {
    const { store } = freshStore();
    await expect(store.list({ limit: 0 })).rejects.toThrow(RangeError);
    await expect(store.list({ limit: 10, offset: -1 })).rejects.toThrow(RangeError);
    await expect(store.list({ limit: 10, state: 'bogus' as TicketState })).rejects.toThrow(/Unknown ticket state/);
  });
});

describe('threads', () => {
  it('finds the conversation through our outbound Message-ID and lists earlier mail oldest first', async () => {
    const { store } = freshStore();
    const t0 = Date.parse('2025-05-01T09:00:00Z');

    // First mail, answered automatically.
    const first = (await store.createIfAbsent(mail('t1', {}, new Date(t0)))).ticket;
    await walk(store, first.id, ['processing', 'drafted']);
    await store.update(first.id, { draft: 'Press reset for 5 s.', outbound: { messageId: 'reply1@support.example', autoSubmitted: true } });
    await store.transition(first.id, { to: 'sending', actor: 'sender' });
    expect(await store.linkMessageId('<reply1@support.example>', first.id)).toBe(true);
    await store.transition(first.id, {
      to: 'sent',
      actor: 'sender',
      patch: { outbound: { messageId: 'reply1@support.example', autoSubmitted: true, sentAt: '2025-05-01T09:05:00.000Z', smtpResponse: '250 OK' } },
    });

    // The customer answers our reply; the client only names our reply.
    const followUp = { inReplyTo: '<reply1@support.example>', references: ['<reply1@support.example>'] };
    const conversation = await store.findConversation(threadRefs(followUp));
    expect(conversation).toBe(first.id);
    const second = (await store.createIfAbsent(mail('t2', { ...followUp, conversationId: conversation }, new Date(t0 + 3_600_000)))).ticket;

    // A third mail naming only the second inbound mail still lands in the root conversation.
    const thirdRefs = threadRefs({ inReplyTo: '<mt2@customer.example>', references: ['<unknown@elsewhere>', '<mt2@customer.example>'] });
    expect(await store.findConversation(thirdRefs)).toBe(first.id);
    const third = (await store.createIfAbsent(mail('t3', { conversationId: first.id }, new Date(t0 + 7_200_000)))).ticket;

    const history = await store.conversationHistory(third.id);
    expect(history.map((h) => h.ticketId)).toEqual([first.id, second.id]);
    expect(history[0]).toMatchObject({ question: 'How t1?', reply: 'Press reset for 5 s.', repliedAt: '2025-05-01T09:05:00.000Z', state: 'sent' });
    expect(history[1]).toMatchObject({ question: 'How t2?', state: 'received' });
    expect(history[1]).not.toHaveProperty('reply');

    expect((await store.conversationHistory(second.id)).map((h) => h.ticketId)).toEqual([first.id]);
    expect(await store.conversationHistory(first.id)).toEqual([]);
    expect((await store.conversationHistory(third.id, { limit: 1 })).map((h) => h.ticketId)).toEqual([second.id]);

    // A ticket created before its thread was known reads the thread it turned out to belong to, up to its creation.
    const late = (await store.createIfAbsent(mail('t4', {}, new Date(t0 + 1_800_000)))).ticket;
    expect(late.conversationId).toBe(late.id);
    expect(await store.conversationHistory(late.id)).toEqual([]);
    expect((await store.conversationHistory(late.id, { conversationId: first.id })).map((h) => h.ticketId)).toEqual([first.id]);
  });

  it('keeps a Message-ID with the first ticket it was linked to', async () => {
    const { store } = freshStore();
    const a = (await store.createIfAbsent(mail('a'))).ticket;
    const b = (await store.createIfAbsent(mail('b'))).ticket;
    expect(await store.linkMessageId('out@support', a.id)).toBe(true);
    expect(await store.linkMessageId('<out@support>', a.id)).toBe(true);
    expect(await store.linkMessageId('out@support', b.id)).toBe(false);
    // The inbound Message-ID of b is linked on creation and cannot be claimed by a.
    expect(await store.linkMessageId('mb@customer.example', a.id)).toBe(false);
    expect(await store.findConversation(['out@support'])).toBe(a.id);
    expect(await store.findConversation(['nothing@here'])).toBeUndefined();
    expect(await store.findConversation([])).toBeUndefined();
  });
});
