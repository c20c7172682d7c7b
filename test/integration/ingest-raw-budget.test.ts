/**
 * What raw mail ingest leaves in Redis: at most RAW_MAIL_BYTES_PER_SENDER_PER_HOUR of one sender's mail (From, a
 * `+tag` folded), RAW_MAIL_BYTES_PER_DOMAIN_PER_HOUR of one organisation's domain (not a shared mail provider's), and
 * nothing past RAW_MAIL_REDIS_MEMORY_PERCENT of Redis's memory. A mail over a bound is stored as a ticket with its
 * text but without its raw copy, held for a person (`heldReason` naming the bound and where the mail still is), and
 * its job is added so the checks before the agent still ignore what they ignore on any day (held-mail-checks.test.ts
 * runs the agent worker on such tickets). Real redis-server, as the other ingest tests.
 */
import { randomUUID } from 'node:crypto';
import type { JobType } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { ingestMessage, type IngestDeps, type IngestOptions } from '../../src/mail/ingest.js';
import { loadRaw, rawKey } from '../../src/mail/raw-store.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { AttachmentUnavailableError, loadTicketAttachments } from '../../src/server/attachments.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';

const MiB = 1024 * 1024;
const ALL_JOB_STATES: JobType[] = ['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children'];
const QUESTION = '請求書の再発行をお願いできますか。';

let server: RedisServer;
let redis: Redis;
const opened: Queues[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  server = await startRedis();
  redis = await connectProducer(server.url);
});

afterEach(async () => {
  await closeAll(...opened.splice(0));
  for (const prefix of prefixes.splice(0)) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
});

afterAll(async () => {
  await closeAll(redis);
  await server?.stop();
});

type Harness = IngestDeps & { queues: Queues; clock: { at: number } };

function harness(env: Record<string, string> = {}): Harness {
  const prefix = `test-${randomUUID()}`;
  prefixes.push(prefix);
  const config = parseConfig({ QUEUE_PREFIX: prefix, ...env });
  const queues = createQueues(redis, prefix);
  for (const q of [queues.tickets, queues.outbound, queues.maintenance]) q.on('error', () => undefined);
  opened.push(queues);
  const clock = { at: Date.parse('2026-03-03T09:00:00Z') };
  return { redis, store: new TicketStore(redis, { prefix }), ticketsQueue: queues.tickets, prefix, config, queues, clock, now: () => new Date(clock.at) };
}

/** A mail from `from` (no From header when empty) of exactly `bytes` bytes: the question, then filler lines. */
function mail(from: string, bytes: number, headers: string[] = []): Buffer {
  const head = [
    ...(from ? [`From: ${from}`] : []),
    'To: support@support.example',
    'Subject: 請求書について',
    `Message-ID: <${randomUUID()}@customer.example>`,
    'Date: Tue, 3 Mar 2026 09:00:00 +0900',
    ...headers,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=UTF-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    QUESTION,
    '',
  ].join('\r\n');
  const start = Buffer.from(head, 'utf8');
  const line = `${'x'.repeat(76)}\r\n`;
  const filler = line.repeat(Math.ceil((bytes - start.length) / line.length)).slice(0, bytes - start.length - 2);
  return Buffer.concat([start, Buffer.from(`${filler}\r\n`, 'ascii')]);
}

async function jobsOf(deps: Harness) {
  return deps.queues.tickets.getJobs(ALL_JOB_STATES);
}

/** Checks a ticket whose raw mail was not kept: held with the reason, the text on it, no raw copy, its job for the checks. */
async function expectNotKept(deps: Harness, ticket: Ticket, reason: string | RegExp): Promise<void> {
  expect(ticket.state).toBe('received');
  if (typeof reason === 'string') expect(ticket.heldReason).toBe(reason);
  else expect(ticket.heldReason).toMatch(reason);
  expect(ticket.rawRef).toBeUndefined();
  expect(await redis.exists(rawKey(deps.prefix, ticket.id))).toBe(0);
  expect(ticket.question).toContain(QUESTION);
  expect(ticket.mailText).toContain(QUESTION);
  // The agent worker decides from the signals the ticket records, not the raw mail.
  expect(ticket.replySignals).toBeDefined();
  expect((await jobsOf(deps)).map((j) => j.data.ticketId)).toContain(ticket.id);
}

/** Whether ingest kept the raw copy of a mail or held its ticket for a person without it. */
async function fate(deps: Harness, result: { ticketId: string }): Promise<'kept' | 'held'> {
  const ticket = await deps.store.require(result.ticketId);
  return ticket.heldReason?.startsWith('raw mail not kept:') ? 'held' : 'kept';
}

interface BudgetCase {
  name: string;
  env: Record<string, string>;
  /** Mails of 1 MiB ingested in turn: their From, and the reason when the raw mail is not kept (undefined: kept). */
  mails: Array<{ from: string; refused?: string }>;
}

const OVER_SENDER = 'raw mail not kept: 3 MB from this sender in the last hour, and this mail is 1 MB (RAW_MAIL_BYTES_PER_SENDER_PER_HOUR is 3 MB); the mail is still in the mailbox, INBOX/7';

const BUDGET_CASES: BudgetCase[] = [
  {
    name: 'one address: the mail that would pass RAW_MAIL_BYTES_PER_SENDER_PER_HOUR, not another address of its domain',
    env: { RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: String(3 * MiB) },
    mails: [{ from: 'a@corp.example' }, { from: 'a@corp.example' }, { from: 'A@Corp.Example' }, { from: 'a@corp.example', refused: OVER_SENDER }, { from: 'b@corp.example' }],
  },
  {
    name: 'one mailbox written with +tags',
    env: { RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: String(3 * MiB) },
    mails: [{ from: 'a+1@corp.example' }, { from: 'a+2@corp.example' }, { from: 'a@corp.example' }, { from: 'a+4@corp.example', refused: OVER_SENDER }],
  },
  {
    name: 'mail without a From shares one budget',
    env: { RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: String(3 * MiB) },
    mails: [
      { from: '' },
      { from: '' },
      { from: '' },
      { from: '', refused: 'raw mail not kept: 3 MB from mail without a sender address in the last hour, and this mail is 1 MB (RAW_MAIL_BYTES_PER_SENDER_PER_HOUR is 3 MB); the mail is still in the mailbox, INBOX/7' },
      { from: 'a@corp.example' },
    ],
  },
  {
    name: "one organisation's domain, its subdomains included: the mail that would pass RAW_MAIL_BYTES_PER_DOMAIN_PER_HOUR",
    env: { RAW_MAIL_BYTES_PER_DOMAIN_PER_HOUR: String(3 * MiB) },
    mails: [
      { from: 'a@corp.example' },
      { from: 'b@corp.example' },
      { from: 'c@mail.corp.example' },
      { from: 'd@corp.example', refused: 'raw mail not kept: 3 MB from senders at corp.example in the last hour, and this mail is 1 MB (RAW_MAIL_BYTES_PER_DOMAIN_PER_HOUR is 3 MB); the mail is still in the mailbox, INBOX/7' },
      { from: 'x@other.example' },
    ],
  },
  {
    name: "a shared mail provider's domain is no organisation: its strangers do not share a budget",
    env: { RAW_MAIL_BYTES_PER_DOMAIN_PER_HOUR: String(3 * MiB) },
    mails: [{ from: 'a@gmail.com' }, { from: 'b@gmail.com' }, { from: 'c@gmail.com' }, { from: 'd@gmail.com' }, { from: 'e@docomo.ne.jp' }],
  },
];

describe('ingestMessage: raw mail per sender and per organisation domain per hour', () => {
  it.each(BUDGET_CASES)('$name', async ({ env, mails }) => {
    const deps = harness(env);
    for (const [i, { from, refused }] of mails.entries()) {
      const raw = mail(from, MiB);
      const result = await ingestMessage(raw, deps, { place: 'INBOX/7' });
      const ticket = await deps.store.require(result.ticketId);
      if (refused) {
        expect(result, `mail ${i + 1}`).toEqual({ ticketId: ticket.id, outcome: 'queued', state: 'received' });
        await expectNotKept(deps, ticket, refused);
      } else {
        expect(result.outcome, `mail ${i + 1}: ${ticket.reason ?? ''}`).toBe('queued');
        expect(ticket.heldReason, `mail ${i + 1}`).toBeUndefined();
        expect((await loadRaw(redis, deps.prefix, ticket.id))?.equals(raw), `mail ${i + 1}`).toBe(true);
      }
    }
  });

  it("lets a customer's several large mails through with the defaults, and keeps no more than 64 MB of one sender's in an hour", async () => {
    const deps = harness();
    const fates: string[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const result = await ingestMessage(mail('mallory@evil-co.example', 9 * MiB), deps);
      ids.push(result.ticketId);
      fates.push(await fate(deps, result));
    }
    expect(fates).toEqual([...Array<string>(7).fill('kept'), 'held']);
    // Without a place from the caller the reason still says the mail stays in the mailbox, and names it.
    await expectNotKept(deps, await deps.store.require(ids[7]!), /^raw mail not kept: 63 MB from this sender in the last hour, and this mail is 9 MB \(RAW_MAIL_BYTES_PER_SENDER_PER_HOUR is 64 MB\); the mail is still in the mailbox \(Message-ID <[^>]+@customer\.example>\)$/);
    expect(await redis.keys(`${deps.prefix}:raw:*`)).toHaveLength(7);
  });

  it('frees the budget as the hour passes: a sliding window, not a fixed hour', async () => {
    const deps = harness({ RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: String(2 * MiB) });
    const from = 'a@corp.example';
    expect(await fate(deps, await ingestMessage(mail(from, MiB), deps))).toBe('kept');
    deps.clock.at += 30 * 60_000;
    expect(await fate(deps, await ingestMessage(mail(from, MiB), deps))).toBe('kept');
    deps.clock.at += 20 * 60_000;
    expect(await fate(deps, await ingestMessage(mail(from, MiB), deps))).toBe('held');
    // The first mail is an hour old: its megabyte is free again, the second's is not.
    deps.clock.at += 11 * 60_000;
    expect(await fate(deps, await ingestMessage(mail(from, MiB), deps))).toBe('kept');
    expect(await fate(deps, await ingestMessage(mail(from, MiB), deps))).toBe('held');
  });

  it('counts a mail once however often it is ingested, and makes one ticket and one job of a refused one', async () => {
    const deps = harness({ RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: String(2 * MiB) });
    const first = mail('a@corp.example', MiB);
    expect((await ingestMessage(first, deps)).outcome).toBe('queued');
    for (let i = 0; i < 3; i++) expect((await ingestMessage(first, deps)).outcome).toBe('duplicate');
    expect((await ingestMessage(mail('a@corp.example', MiB), deps)).outcome).toBe('queued');

    const over = mail('a@corp.example', MiB);
    const refused = await ingestMessage(over, deps, { place: 'INBOX/9' });
    expect(await fate(deps, refused)).toBe('held');
    expect(await ingestMessage(over, deps, { place: 'INBOX/9' })).toEqual({ ticketId: refused.ticketId, outcome: 'duplicate', state: 'received' });
    const jobs = await jobsOf(deps);
    expect(jobs).toHaveLength(3);
    expect(jobs.filter((j) => j.data.ticketId === refused.ticketId)).toHaveLength(1);
    // The readers of raw mail say it is not stored instead of failing: the attachments download, here.
    const ticket = await deps.store.require(refused.ticketId);
    await expect(loadTicketAttachments({ redis, prefix: deps.prefix }, { ...ticket, attachments: [{ contentType: 'application/pdf', size: 1, filename: 'a.pdf' }] })).rejects.toBeInstanceOf(AttachmentUnavailableError);
  });

  it.each<{ name: string; raw: (from: string) => Buffer; options: IngestOptions; state: string; reason: (t: Ticket) => string | undefined; pattern: RegExp }>([
    {
      name: 'held at the first start',
      raw: (from) => mail(from, MiB),
      options: { hold: 'held: no sync state for this mailbox yet; a person decides' },
      state: 'received',
      reason: (t) => t.heldReason,
      pattern: /^held: no sync state/,
    },
    { name: 'unreadable (no mail at all)', raw: () => Buffer.concat([Buffer.from('\r\n \r\n'), Buffer.alloc(MiB, 0x20)]), options: {}, state: 'parked', reason: (t) => t.reason, pattern: /^unreadable mail: / },
  ])('a mail held or parked anyway ($name) keeps its reason; the note says its raw copy was not kept', async ({ raw, options, state, reason, pattern }) => {
    const deps = harness({ RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: String(MiB) });
    const from = 'a@corp.example';
    // Mail without a From shares one budget: spend both that one and a@'s.
    await ingestMessage(mail(from, MiB - 2048), deps);
    await ingestMessage(mail('', MiB - 2048), deps);
    const result = await ingestMessage(raw(from), deps, { ...options, place: 'INBOX/3' });
    const ticket = await deps.store.require(result.ticketId);
    expect(ticket.state).toBe(state);
    expect(reason(ticket)).toMatch(pattern);
    expect(ticket.rawRef).toBeUndefined();
    expect(await redis.exists(rawKey(deps.prefix, ticket.id))).toBe(0);
    expect(ticket.history[0]?.note).toMatch(/raw mail not kept: .* the mail is still in the mailbox, INBOX\/3/);
  });
});

describe('ingestMessage: raw mail and the memory Redis may use', () => {
  it('holds a mail without its raw copy when keeping it would take Redis past RAW_MAIL_REDIS_MEMORY_PERCENT of its maxmemory', async () => {
    const deps = harness({ RAW_MAIL_REDIS_MEMORY_PERCENT: '50', MAX_EMAIL_BYTES: String(64 * MiB) });
    const used = Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))![1]);
    // Raw mail may bring Redis to used + 12 MiB: half of this maxmemory. Redis's own buffers (a client's query buffer
    // holds a mail for a moment) move used memory by a few megabytes, so the mails are far from that line either way.
    await redis.config('SET', 'maxmemory', String(2 * (used + 12 * MiB)));
    try {
      expect((await ingestMessage(mail('a@corp.example', MiB), deps)).outcome).toBe('queued');
      const refused = await ingestMessage(mail('b@corp.example', 16 * MiB), deps, { place: 'INBOX/12' });
      expect(await fate(deps, refused)).toBe('held');
      await expectNotKept(
        deps,
        await deps.store.require(refused.ticketId),
        /^raw mail not kept: Redis uses [\d.]+ MB, and this 16 MB mail would take it past [\d.]+ MB, RAW_MAIL_REDIS_MEMORY_PERCENT \(50%\) of its maxmemory \([\d.]+ MB\): give Redis more memory \(README, Redis memory\); the mail is still in the mailbox, INBOX\/12$/,
      );
      // A small mail still fits.
      expect(await fate(deps, await ingestMessage(mail('c@corp.example', 64 * 1024), deps))).toBe('kept');
    } finally {
      await redis.config('SET', 'maxmemory', '0');
    }
  });

  it('keeps mail of at most 256 KB past RAW_MAIL_REDIS_MEMORY_PERCENT, so it is decided as on any day, and still counts it per sender', async () => {
    const deps = harness({ RAW_MAIL_REDIS_MEMORY_PERCENT: '1', RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: String(MiB) });
    // 1 % of this maxmemory is less than Redis holds already: every mail over 256 KB is refused on the memory bound.
    await redis.config('SET', 'maxmemory', String(64 * MiB));
    try {
      const cases: Array<{ from: string; size: number; outcome: string; reason?: RegExp }> = [
        { from: 'small@corp.example', size: 390, outcome: 'kept' },
        ...Array.from({ length: 4 }, () => ({ from: 'small@corp.example', size: 255 * 1024, outcome: 'kept' })),
        { from: 'large@corp.example', size: 256 * 1024 + 1024, outcome: 'held', reason: /^raw mail not kept: Redis uses .*RAW_MAIL_REDIS_MEMORY_PERCENT \(1%\)/ },
        // The small mails' sender has its hour spent (390 B + 5 × 255 KB > 1 MiB): the sender's budget refuses it.
        { from: 'small@corp.example', size: 255 * 1024, outcome: 'held', reason: /^raw mail not kept: [\d.]+ KB from this sender in the last hour/ },
      ];
      for (const [i, { from, size, outcome, reason }] of cases.entries()) {
        const result = await ingestMessage(mail(from, size), deps);
        const ticket = await deps.store.require(result.ticketId);
        expect(await fate(deps, result), `mail ${i + 1}: ${ticket.heldReason ?? ''}`).toBe(outcome);
        if (reason) expect(ticket.heldReason, `mail ${i + 1}`).toMatch(reason);
        else expect(await loadRaw(redis, deps.prefix, ticket.id), `mail ${i + 1}`).toBeDefined();
      }
    } finally {
      await redis.config('SET', 'maxmemory', '0');
    }
  });

  it('still bounds each sender when Redis will not tell its memory (INFO refused by an ACL, as some hosted Redis do)', async () => {
    await redis.call('ACL', 'SETUSER', 'no-info', 'on', '>secret', '~*', '&*', '+@all', '-info');
    const limited = await connectProducer(server.url.replace('redis://', 'redis://no-info:secret@'));
    try {
      await expect(limited.info('memory')).rejects.toThrow(/NOPERM/);
      const deps = { ...harness({ RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: String(MiB) }), redis: limited };
      expect(await fate(deps, await ingestMessage(mail('a@corp.example', MiB), deps))).toBe('kept');
      expect(await fate(deps, await ingestMessage(mail('a@corp.example', MiB), deps))).toBe('held');
    } finally {
      await closeAll(limited);
      await redis.call('ACL', 'DELUSER', 'no-info');
    }
  });
});
