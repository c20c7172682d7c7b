/**
 * What a lookup by Message-ID costs Redis when strangers made many tickets under made-up ids (mail without a
 * Message-ID, web forms reusing one): the review page looks up every search with an `@`, a customer's address
 * included, so the lookup must not read every such ticket (bug review R3: 1,000 of them cost 1,003 commands). Counted
 * in Redis commands (`INFO commandstats`), not time. Real redis-server; tickets as ingest keys them apart.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { syntheticMessageId } from '../../src/mail/ingest.js';
import { newTicket, normalizeMessageId, ticketIdFor } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';

let server: RedisServer;
let redis: Redis;
let stats: Redis;
let store: TicketStore;
const prefix = `lookup-cost-${process.pid}`;

/** Tickets strangers' mail made under made-up ids (no Message-ID of their own). */
const STRANGERS = 1_000;
const SHARED = '<contact-form@shop.example>';

/** A mail's ticket as ingest stores it: keyed by its own Message-ID, or apart under a made-up one keeping its own. */
function mailTicket(n: number, from: string, own?: string, apart = false) {
  return newTicket(
    {
      messageId: own && !apart ? own : syntheticMessageId(`k${n}`),
      ...(own && apart ? { mailMessageId: own } : {}),
      from,
      subject: '領収書',
      question: '領収書の宛名を変更できますか？',
      actor: 'poller',
    },
    new Date(Date.UTC(2026, 2, 2, 1, 0, 0) + n * 1000),
  );
}

/** Redis commands `body` sends, INFO and CONFIG (the counting itself) aside. */
async function commandsOf(body: () => Promise<unknown>): Promise<number> {
  await stats.config('RESETSTAT');
  await body();
  const info = await stats.info('commandstats');
  let calls = 0;
  for (const [, name, n] of info.matchAll(/^cmdstat_([a-z|]{1,40}):calls=(\d{1,12}),/gm)) if (name !== 'info' && name !== 'config') calls += Number(n);
  return calls;
}

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  stats = new Redis(server.url);
  store = new TicketStore(redis, { prefix });
  for (let n = 0; n < STRANGERS; n++) await store.createIfAbsent(mailTicket(n, `stranger${n}@example.net`));
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  stats?.disconnect();
  await server?.stop();
});

describe('findAllByMessageId among 1,000 tickets under made-up ids', () => {
  const ann = mailTicket(2_000, 'ann@customer.example', SHARED);
  const bob = mailTicket(2_001, 'bob@other.example', SHARED, true);
  const eve = mailTicket(2_002, 'eve@third.example', SHARED, true);

  beforeAll(async () => {
    for (const t of [ann, bob, eve]) await store.createIfAbsent(t);
  });

  const rows: Array<[what: string, typed: string, ids: () => string[]]> = [
    ['a Message-ID three mails reused', SHARED, () => [ann.id, bob.id, eve.id]],
    ["a customer's address typed in the search", 'ann@customer.example', () => []],
  ];
  it.each(rows)('%s: a handful of commands, the right tickets', async (_what, typed, ids) => {
    let found: string[] = [];
    const commands = await commandsOf(async () => (found = (await store.findAllByMessageId(typed)).tickets.map((t) => t.id)));
    expect({ found, few: commands <= 8 }).toEqual({ found: ids(), few: true });
  });

  it('a removed ticket leaves the list, and the first mail gone keeps the later ones found', async () => {
    expect(normalizeMessageId(SHARED)).toBe(SHARED);
    expect(await store.remove(bob, 'unused-raw-key')).toBe('removed');
    expect((await store.findAllByMessageId(SHARED)).tickets.map((t) => t.id)).toEqual([ann.id, eve.id]);
    expect(await store.remove(ann, 'unused-raw-key')).toBe('removed');
    expect(await store.findAllByMessageId(SHARED)).toMatchObject({ tickets: [{ id: eve.id }], more: false });
    expect(await store.remove(eve, 'unused-raw-key')).toBe('removed');
    expect(await redis.exists(`${prefix}:store:reused:${ticketIdFor(SHARED)}`)).toBe(0);
  });
});
