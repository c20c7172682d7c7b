/**
 * ingestMessage and the park functions against a real redis-server: one ticket and one job per mail however often
 * it is ingested, the raw bytes stored before the job, and a clear failure (nothing half-done that a retry cannot
 * finish) while Redis is down.
 */
import { randomUUID } from 'node:crypto';
import type { JobType } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { ingestMessage, isSyntheticMessageId, parkFromEnvelope, parkOversizeMessage, syntheticMessageId, type IngestDeps } from '../../src/mail/ingest.js';
import { legacyRawKey } from '../../src/mail/message-id.js';
import { deleteRaw, loadRaw, rawKey } from '../../src/mail/raw-store.js';
import { connectProducer, RedisUnavailableError, waitForReady } from '../../src/queues/connection.js';
import { answerJobId } from '../../src/queues/job-options.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { newTicket, ticketIdFor } from '../../src/tickets/ticket.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';

const ALL_JOB_STATES: JobType[] = ['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children'];

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
  if (redis.status !== 'ready') await waitForReady(redis, 20_000);
  for (const prefix of prefixes.splice(0)) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
});

afterAll(async () => {
  await closeAll(redis);
  await server?.stop();
});

function harness(env: Record<string, string> = {}): IngestDeps & { queues: Queues } {
  const prefix = `test-${randomUUID()}`;
  prefixes.push(prefix);
  const config = parseConfig({ QUEUE_PREFIX: prefix, ...env });
  const queues = createQueues(redis, prefix);
  for (const q of [queues.tickets, queues.outbound, queues.maintenance]) q.on('error', () => undefined);
  opened.push(queues);
  return { redis, store: new TicketStore(redis, { prefix }), ticketsQueue: queues.tickets, prefix, config, queues };
}

function mail(id: string | undefined, body = 'How do I reset my password?'): Buffer {
  return Buffer.from(
    [
      'From: Customer <customer@example.com>',
      'To: support@support.example',
      'Subject: Password',
      ...(id ? [`Message-ID: ${id}`] : []),
      'Content-Type: text/plain; charset=UTF-8',
      '',
      body,
      '',
    ].join('\r\n'),
  );
}

/** `raw` with `headers` in place of the ones of the same names (From, Date), or added. */
function withHeaders(raw: Buffer, headers: string[]): Buffer {
  const names = new Set(headers.map((h) => h.slice(0, h.indexOf(':')).toLowerCase()));
  const [head = '', ...rest] = raw.toString('utf8').split('\r\n\r\n');
  const kept = head.split('\r\n').filter((line) => !names.has(line.slice(0, line.indexOf(':')).toLowerCase()));
  return Buffer.from([[...headers, ...kept].join('\r\n'), ...rest].join('\r\n\r\n'));
}

/** A Japanese mail as a client writes it: UTF-8, 8bit. */
function japaneseMail(id: string): Buffer {
  return Buffer.from(
    [
      'From: 山田 花子 <hanako@customer.example>',
      'To: support@support.example',
      'Subject: 会員登録について',
      `Message-ID: ${id}`,
      'Date: Tue, 3 Mar 2026 09:00:00 +0900',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=UTF-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      '会員登録の確認メールが届きません。もう一度送っていただけますか。よろしくお願いいたします。迷惑メールフォルダも確認しましたが、見つかりませんでした。',
      'ご確認ください。',
      '会員番号は 12345 です。',
      '',
    ].join('\r\n'),
  );
}

/** `raw` (a single-part 8bit mail) with its body re-encoded, as a relay to a server without 8BITMIME does. */
function reencoded(raw: Buffer, encoding: 'base64' | 'quoted-printable'): Buffer {
  const text = raw.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split).replace('Content-Transfer-Encoding: 8bit', `Content-Transfer-Encoding: ${encoding}`);
  const body = Buffer.from(text.slice(split + 4), 'utf8');
  const encoded =
    encoding === 'base64'
      ? (body.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n')
      : quotedPrintable(body);
  return Buffer.from(`${head}\r\n\r\n${encoded}\r\n`);
}

/** Quoted-printable (RFC 2045) with soft line breaks at 76 characters; enough for the tests' UTF-8 text. */
function quotedPrintable(body: Buffer): string {
  const lines = body.toString('utf8').split('\r\n');
  return lines
    .map((line) => {
      const escaped = [...Buffer.from(line, 'utf8')].map((b) => (b >= 33 && b <= 126 && b !== 61 ? String.fromCharCode(b) : `=${b.toString(16).toUpperCase().padStart(2, '0')}`));
      const out: string[] = [];
      let current = '';
      for (const piece of escaped) {
        if (current.length + piece.length > 75) {
          out.push(`${current}=`);
          current = '';
        }
        current += piece;
      }
      out.push(current);
      return out.join('\r\n');
    })
    .join('\r\n');
}

async function jobsOf(deps: { queues: Queues }) {
  return deps.queues.tickets.getJobs(ALL_JOB_STATES);
}

/** A follow-up naming `parent` in In-Reply-To and References, from `from` (and Reply-To `replyTo` when given). */
function followUp(id: string, parent: string, from: string, replyTo?: string): Buffer {
  return Buffer.from(
    [
      `From: ${from}`,
      ...(replyTo ? [`Reply-To: ${replyTo}`] : []),
      'To: support@support.example',
      'Subject: Re: Password',
      `Message-ID: ${id}`,
      `In-Reply-To: ${parent}`,
      `References: ${parent}`,
      'Content-Type: text/plain; charset=UTF-8',
      '',
      'Please send me the whole earlier exchange again.',
      '',
    ].join('\r\n'),
  );
}

describe('ingestMessage: joining a thread', () => {
  it('joins the conversation when the address a reply goes to (Reply-To, else From) took part in it', async () => {
    const deps = harness();
    await ingestMessage(mail('<t1@example.com>'), deps);
    const root = ticketIdFor('<t1@example.com>');
    await ingestMessage(followUp('<t2@example.com>', '<t1@example.com>', 'Customer <CUSTOMER@example.com>'), deps);
    expect((await deps.store.require(ticketIdFor('<t2@example.com>'))).conversationId).toBe(root);
    await ingestMessage(followUp('<t3@example.com>', '<t1@example.com>', 'Other Device <customer+phone@example.net>', 'customer@example.com'), deps);
    expect((await deps.store.require(ticketIdFor('<t3@example.com>'))).conversationId).toBe(root);
  });

  it('stores the mail text on the ticket once, for the review page', async () => {
    const deps = harness();
    await ingestMessage(mail('<text1@example.com>', 'How do I reset my password?\n\n> quoted earlier mail'), deps);
    const ticket = await deps.store.require(ticketIdFor('<text1@example.com>'));
    expect(ticket.mailText).toContain('> quoted earlier mail');
    expect(ticket.question).toBe('How do I reset my password?');
  });

  it('a stranger naming a known Message-ID starts a new conversation with no history, and the ticket says why', async () => {
    const deps = harness();
    await ingestMessage(mail('<h1@example.com>'), deps);
    await ingestMessage(followUp('<h2@example.com>', '<h1@example.com>', 'Mallory <mallory@attacker.example>'), deps);
    const hijack = await deps.store.require(ticketIdFor('<h2@example.com>'));
    expect(hijack.conversationId).toBe(hijack.id);
    expect(await deps.store.conversationHistory(hijack.id)).toEqual([]);
    expect(hijack.history[0]?.note).toMatch(/not joined to the conversation of ticket [0-9a-f]+: the address a reply would go to took no part in it/);
    // A Reply-To naming the customer does not help an outsider either: only addresses that took part count.
    await ingestMessage(followUp('<h3@example.com>', '<h1@example.com>', 'Mallory <mallory@attacker.example>', 'mallory2@attacker.example'), deps);
    expect((await deps.store.require(ticketIdFor('<h3@example.com>'))).conversationId).toBe(ticketIdFor('<h3@example.com>'));
  });

  // Step one joins legitimately (the reply goes to the customer), but puts a ticket From the outsider into the
  // conversation; the outsider's own address must not count as a participant for it, or step two gets the
  // customer's exchange as context and the reply to it.
  it('an outsider whose mail joined with the customer as Reply-To does not become a participant by it', async () => {
    const deps = harness();
    await ingestMessage(mail('<b1@example.com>'), deps);
    const root = ticketIdFor('<b1@example.com>');
    await ingestMessage(followUp('<b2@example.com>', '<b1@example.com>', 'Mallory <mallory@attacker.example>', 'customer@example.com'), deps);
    expect((await deps.store.require(ticketIdFor('<b2@example.com>'))).conversationId).toBe(root);
    await ingestMessage(followUp('<b3@example.com>', '<b1@example.com>', 'Mallory <mallory@attacker.example>'), deps);
    const second = await deps.store.require(ticketIdFor('<b3@example.com>'));
    expect(second.conversationId).toBe(second.id);
    expect(await deps.store.conversationHistory(second.id)).toEqual([]);
  });

  it('a forged From of the customer does not join when the reply would go to another address (Reply-To)', async () => {
    const deps = harness();
    await ingestMessage(mail('<f1@example.com>'), deps);
    // The reply goes to Reply-To: an attacker forging the customer's From would receive the customer's exchange.
    await ingestMessage(followUp('<f2@example.com>', '<f1@example.com>', 'Customer <customer@example.com>', 'Customer <attacker@example.com>'), deps);
    const forged = await deps.store.require(ticketIdFor('<f2@example.com>'));
    expect(forged.conversationId).toBe(forged.id);
    expect(await deps.store.conversationHistory(forged.id)).toEqual([]);
  });
});

describe('ingestMessage', () => {
  it('stores the raw mail, a received ticket and one answer-ticket job with the deterministic id', async () => {
    const deps = harness();
    const raw = mail('<q1@example.com>');
    const result = await ingestMessage(raw, deps);
    const ticketId = ticketIdFor('<q1@example.com>');
    expect(result).toEqual({ ticketId, outcome: 'queued', state: 'received' });

    const ticket = await deps.store.require(ticketId);
    expect(ticket).toMatchObject({ state: 'received', from: 'customer@example.com', subject: 'Password', question: 'How do I reset my password?' });
    expect(ticket.rawRef).toBe(`redis:${rawKey(deps.prefix, ticketId)}`);
    expect((await loadRaw(redis, deps.prefix, ticketId))?.equals(raw)).toBe(true);

    const jobs = await jobsOf(deps);
    expect(jobs.map((j) => [j.id, j.name, j.data])).toEqual([[answerJobId(ticketId, 1), 'answer-ticket', { ticketId }]]);
  });

  // A support address that is a Google Group rewrites From to itself and puts the customer in Reply-To; the ticket's
  // sender is the customer, once our receiving server authenticated the group. The same mail seen again (a poller
  // crash before \Seen, a second folder) is that ticket.
  it('makes one ticket and one job of the same mail through our own group ingested twice', async () => {
    const deps = harness({ MAIL_FROM: 'help@support.example', SUPPORT_GROUP_ADDRESSES: 'help@support.example', AUTHSERV_ID: 'mx.support.example' });
    const viaGroup = Buffer.from(
      [
        'Authentication-Results: mx.support.example; dkim=pass header.i=@support.example header.s=google; dmarc=pass header.from=support.example',
        "From: 'Customer' via Help <help@support.example>",
        'Reply-To: Customer <customer@example.com>',
        'To: help@support.example',
        'Subject: Password',
        'Message-ID: <group-twice@example.com>',
        'Date: Mon, 2 Mar 2026 10:00:00 +0900',
        'List-Post: <mailto:help@support.example>',
        'List-Id: <help.support.example>',
        'Content-Type: text/plain; charset=UTF-8',
        '',
        'How do I reset my password?',
        '',
      ].join('\r\n'),
    );
    const first = await ingestMessage(viaGroup, deps);
    expect(first.outcome).toBe('queued');
    expect((await deps.store.require(first.ticketId)).from).toBe('customer@example.com');
    expect(await ingestMessage(viaGroup, deps)).toEqual({ ticketId: first.ticketId, outcome: 'duplicate', state: 'received' });
    expect((await deps.store.list({ limit: 10 })).total).toBe(1);
    expect(await jobsOf(deps)).toHaveLength(1);
  });

  it('makes one ticket and one job of the same mail ingested twice', async () => {
    const deps = harness();
    const first = await ingestMessage(mail('<twice@example.com>'), deps);
    // A second delivery of the same mail by another route: other trace fields, the same text.
    const again = withHeaders(mail('<twice@example.com>'), ['Received: from mx2.example by mail.support.example; Mon, 2 Mar 2026 10:00:03 +0900', 'Delivered-To: help@support.example']);
    const second = await ingestMessage(again, deps);
    expect(second).toEqual({ ticketId: first.ticketId, outcome: 'duplicate', state: 'received' });
    expect((await deps.store.list({ limit: 10 })).total).toBe(1);
    expect(await jobsOf(deps)).toHaveLength(1);
    // The first copy stays the ticket's raw mail.
    expect((await loadRaw(redis, deps.prefix, first.ticketId))?.toString()).not.toContain('Delivered-To');
  });

  // What relays and gateways do to a mail on the way changes neither its text nor its attachments, so a copy that
  // went another way is still the same mail: one ticket, one answer.
  it.each([
    ['other trace fields', (raw: Buffer) => withHeaders(raw, ['Received: from relay.example by mx.support.example; Mon, 2 Mar 2026 10:00:09 +0900', 'X-Spam-Score: 0.2', 'Authentication-Results: mx.support.example; spf=pass'])],
    ['a subject a gateway tagged', (raw: Buffer) => Buffer.from(raw.toString('utf8').replace('Subject: 会員登録について', 'Subject: [EXTERNAL] 会員登録について'))],
    ['the body re-encoded as base64 by a relay without 8BITMIME', (raw: Buffer) => reencoded(raw, 'base64')],
    ['the body re-encoded as quoted-printable, lines re-wrapped', (raw: Buffer) => reencoded(raw, 'quoted-printable')],
  ])('takes a copy of a stored mail with %s for the same mail', async (_name, change) => {
    const deps = harness();
    const raw = japaneseMail('<copy@customer.example>');
    const first = await ingestMessage(raw, deps);
    const copy = change(raw);
    expect(copy.equals(raw)).toBe(false);
    expect(await ingestMessage(copy, deps)).toEqual({ ticketId: first.ticketId, outcome: 'duplicate', state: 'received' });
    expect((await deps.store.list({ limit: 10 })).total).toBe(1);
    expect(await jobsOf(deps)).toHaveLength(1);
  });

  // A script or a broken client that writes one Message-ID into every mail in the same second, or a customer's client
  // re-sending an edited message under its first Message-ID and Date: the same sender, the same Date, another mail.
  it('gives a mail with the Message-ID, From and Date of a stored one but other text a ticket of its own, not lost as a duplicate', async () => {
    const deps = harness();
    const dated = (body: string): Buffer => withHeaders(mail('<edited@example.com>', body), ['Date: Mon, 2 Mar 2026 10:00:00 +0900']);
    const firstRaw = dated('How do I reset my password?');
    const editedRaw = dated('How do I reset my password? The reset mail never arrives.');
    const first = await ingestMessage(firstRaw, deps);
    const edited = await ingestMessage(editedRaw, deps);
    expect(edited.outcome).toBe('queued');
    expect(edited.ticketId).not.toBe(first.ticketId);
    const ticket = await deps.store.require(edited.ticketId);
    expect(ticket.question).toBe('How do I reset my password? The reset mail never arrives.');
    expect(ticket.history[0]?.note).toContain(`a mail with Message-ID <edited@example.com> is already stored as ticket ${first.ticketId}`);
    // Keyed apart like a mail of another sender: the reply names the mail's own Message-ID, the key is made up.
    expect(ticket.mailMessageId).toBe('<edited@example.com>');
    expect(isSyntheticMessageId(ticket.messageId)).toBe(true);
    expect((await loadRaw(redis, deps.prefix, edited.ticketId))?.equals(editedRaw)).toBe(true);
    expect((await deps.store.require(first.ticketId)).question).toBe('How do I reset my password?');
    expect((await jobsOf(deps)).map((j) => j.data.ticketId).sort()).toEqual([first.ticketId, edited.ticketId].sort());

    // Each seen again (a re-sync, a crash before \Seen) is a duplicate of its own ticket, whichever comes first.
    expect(await ingestMessage(editedRaw, deps)).toEqual({ ticketId: edited.ticketId, outcome: 'duplicate', state: 'received' });
    expect(await ingestMessage(firstRaw, deps)).toEqual({ ticketId: first.ticketId, outcome: 'duplicate', state: 'received' });
    // A third text under the same id is a third mail.
    const third = await ingestMessage(dated('Never mind, it arrived.'), deps);
    expect(third.outcome).toBe('queued');
    expect(new Set([first.ticketId, edited.ticketId, third.ticketId]).size).toBe(3);
    expect((await deps.store.list({ limit: 10 })).total).toBe(3);
    expect(await jobsOf(deps)).toHaveLength(3);
  });

  it('gives a mail with the same text but another attachment under a stored Message-ID, From and Date a ticket of its own', async () => {
    const deps = harness();
    const withAttachment = (name: string, content: string): Buffer =>
      Buffer.from(
        [
          'From: Customer <customer@example.com>',
          'To: support@support.example',
          'Subject: Invoice',
          'Message-ID: <attached@example.com>',
          'Date: Mon, 2 Mar 2026 10:00:00 +0900',
          'MIME-Version: 1.0',
          'Content-Type: multipart/mixed; boundary="b"',
          '',
          '--b',
          'Content-Type: text/plain; charset=UTF-8',
          '',
          'The invoice attached is wrong.',
          '--b',
          `Content-Type: application/pdf; name="${name}"`,
          `Content-Disposition: attachment; filename="${name}"`,
          'Content-Transfer-Encoding: base64',
          '',
          Buffer.from(content).toString('base64'),
          '--b--',
          '',
        ].join('\r\n'),
      );
    const first = await ingestMessage(withAttachment('march.pdf', '%PDF-1.4 march'), deps);
    const other = await ingestMessage(withAttachment('april.pdf', '%PDF-1.4 april'), deps);
    expect(other.outcome).toBe('queued');
    expect(other.ticketId).not.toBe(first.ticketId);
    expect((await deps.store.require(other.ticketId)).attachments.map((a) => a.filename)).toEqual(['april.pdf']);
  });

  it('keys apart a mail with other text under the Message-ID, From and Date of a mail already keyed apart for its sender', async () => {
    const deps = harness();
    const date = 'Date: Mon, 2 Mar 2026 10:00:00 +0900';
    const first = await ingestMessage(withHeaders(mail('<form@example.com>'), [date]), deps);
    const bob = (body: string): Buffer => withHeaders(mail('<form@example.com>', body), ['From: Bob <bob@b.example>', date]);
    const bobFirst = await ingestMessage(bob('I was charged twice this month.'), deps);
    const bobSecond = await ingestMessage(bob('And my address changed.'), deps);
    expect([first.outcome, bobFirst.outcome, bobSecond.outcome]).toEqual(['queued', 'queued', 'queued']);
    expect(new Set([first.ticketId, bobFirst.ticketId, bobSecond.ticketId]).size).toBe(3);
    const ticket = await deps.store.require(bobSecond.ticketId);
    expect(ticket.mailMessageId).toBe('<form@example.com>');
    expect(ticket.history[0]?.note).toContain(`a mail with Message-ID <form@example.com> is already stored as ticket ${bobFirst.ticketId}`);
    expect(await ingestMessage(bob('And my address changed.'), deps)).toEqual({ ticketId: bobSecond.ticketId, outcome: 'duplicate', state: 'received' });
    expect(await ingestMessage(bob('I was charged twice this month.'), deps)).toEqual({ ticketId: bobFirst.ticketId, outcome: 'duplicate', state: 'received' });
  });

  it('takes a mail whose ticket was made from its envelope (no stored mail to compare with) for that ticket', async () => {
    const deps = harness();
    const raw = withHeaders(mail('<envelope-first@example.com>'), ['Date: Mon, 2 Mar 2026 10:00:00 +0900']);
    const envelope = { messageId: '<envelope-first@example.com>', subject: 'Password', date: new Date('2026-03-02T01:00:00Z'), from: [{ address: 'customer@example.com' }] };
    const parked = await parkFromEnvelope(envelope, raw.length, 'could not be queued after 3 attempts: boom', deps, { parkReceived: true });
    expect(await ingestMessage(raw, deps)).toEqual({ ticketId: parked.ticketId, outcome: 'duplicate', state: 'parked' });
    expect((await deps.store.list({ limit: 10 })).total).toBe(1);
    expect(await jobsOf(deps)).toHaveLength(0);
  });

  it.each([
    ['another sender', 'From: Bob <bob@b.example>', 'Date: Mon, 2 Mar 2026 10:00:00 +0900'],
    ['the same sender at another time (a web form writing one Message-ID)', 'From: Customer <customer@example.com>', 'Date: Mon, 2 Mar 2026 11:30:00 +0900'],
  ])('gives a mail of %s under a Message-ID already taken a ticket of its own, not lost as a duplicate', async (_name, from, date) => {
    const deps = harness();
    const first = await ingestMessage(withHeaders(mail('<1@localhost>'), ['Date: Mon, 2 Mar 2026 10:00:00 +0900']), deps);
    const otherRaw = withHeaders(mail('<1@localhost>', 'I was charged twice this month.'), [from, date]);
    const other = await ingestMessage(otherRaw, deps);
    expect(other.outcome).toBe('queued');
    expect(other.ticketId).not.toBe(first.ticketId);
    const ticket = await deps.store.require(other.ticketId);
    expect(ticket.question).toBe('I was charged twice this month.');
    expect(ticket.history[0]?.note).toContain(`Message-ID <1@localhost> is already the id of ticket ${first.ticketId}`);
    // Keyed apart, it keeps the mail's own id for the reply's threading headers; the first ticket's key is its own.
    expect(ticket.mailMessageId).toBe('<1@localhost>');
    expect(await deps.store.require(first.ticketId)).not.toHaveProperty('mailMessageId');
    expect((await loadRaw(redis, deps.prefix, other.ticketId))?.equals(otherRaw)).toBe(true);
    expect(await jobsOf(deps)).toHaveLength(2);
    // Seen again (a re-sync), it is a duplicate of its own ticket.
    expect(await ingestMessage(otherRaw, deps)).toEqual({ ticketId: other.ticketId, outcome: 'duplicate', state: 'received' });
    expect((await deps.store.list({ limit: 10 })).total).toBe(2);
  });

  it('keys mail without a Message-ID by what its sender wrote: a second delivery with other trace headers is the same mail', async () => {
    const deps = harness();
    const viaTo = withHeaders(mail(undefined), ['Received: from mx1.example by mail.support.example; Mon, 2 Mar 2026 10:00:01 +0900', 'Delivered-To: support@support.example', 'Date: Mon, 2 Mar 2026 10:00:00 +0900']);
    const viaCc = withHeaders(mail(undefined), ['Received: from mx2.example by mail.support.example; Mon, 2 Mar 2026 10:00:03 +0900', 'Delivered-To: help@support.example', 'Return-Path: <customer@example.com>', 'Date: Mon, 2 Mar 2026 10:00:00 +0900']);
    const first = await ingestMessage(viaTo, deps);
    expect(await ingestMessage(viaCc, deps)).toEqual({ ticketId: first.ticketId, outcome: 'duplicate', state: 'received' });
    expect(await jobsOf(deps)).toHaveLength(1);
  });

  it('finds the ticket of mail without a Message-ID stored under the former key (the hash of its bytes)', async () => {
    const deps = harness();
    const raw = mail(undefined, 'Stored before the upgrade');
    const before = newTicket({ messageId: syntheticMessageId(legacyRawKey(raw)), from: 'customer@example.com', subject: 'Password', question: 'q', actor: 'poller' });
    await deps.store.createIfAbsent(before);
    expect(await ingestMessage(raw, deps)).toEqual({ ticketId: before.id, outcome: 'duplicate', state: 'received' });
    expect((await deps.store.list({ limit: 10 })).total).toBe(1);
  });

  it('keys mail without a Message-ID by its bytes', async () => {
    const deps = harness();
    const a = await ingestMessage(mail(undefined), deps);
    const again = await ingestMessage(mail(undefined), deps);
    const other = await ingestMessage(mail(undefined, 'Another question'), deps);
    expect(again).toMatchObject({ ticketId: a.ticketId, outcome: 'duplicate' });
    expect(other.ticketId).not.toBe(a.ticketId);
    expect((await deps.store.require(a.ticketId)).messageId).toMatch(/@no-message-id\.invalid>$/);
    expect(await jobsOf(deps)).toHaveLength(2);
  });

  it('parks input that is not a mail, keeping its bytes, without a job', async () => {
    const deps = harness();
    const raw = Buffer.from('\r\n \r\n');
    const result = await ingestMessage(raw, deps);
    expect(result.outcome).toBe('parked');
    const ticket = await deps.store.require(result.ticketId);
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toMatch(/^unreadable mail: empty input/);
    expect((await loadRaw(redis, deps.prefix, result.ticketId))?.equals(raw)).toBe(true);
    expect(await jobsOf(deps)).toHaveLength(0);
    expect((await ingestMessage(raw, deps)).outcome).toBe('duplicate');
  });

  it('re-adds the job of a ticket still received (a crash between ticket and job), never of one that moved on', async () => {
    const deps = harness();
    const { ticketId } = await ingestMessage(mail('<crash@example.com>'), deps);
    await (await deps.queues.tickets.getJob(answerJobId(ticketId, 1)))?.remove();
    expect(await jobsOf(deps)).toHaveLength(0);

    expect((await ingestMessage(mail('<crash@example.com>'), deps)).outcome).toBe('duplicate');
    expect((await jobsOf(deps)).map((j) => j.id)).toEqual([answerJobId(ticketId, 1)]);

    await deps.store.transition(ticketId, { to: 'processing', actor: 'test' });
    await (await deps.queues.tickets.getJob(answerJobId(ticketId, 1)))?.remove();
    await deleteRaw(redis, deps.prefix, ticketId);
    expect(await ingestMessage(mail('<crash@example.com>'), deps)).toEqual({ ticketId, outcome: 'duplicate', state: 'processing' });
    expect(await jobsOf(deps)).toHaveLength(0);
    // A late duplicate does not bring back raw bytes its ticket's owner already deleted.
    expect(await loadRaw(redis, deps.prefix, ticketId)).toBeUndefined();
  });

  it('links a follow-up to the conversation of the mail it answers', async () => {
    const deps = harness();
    const root = await ingestMessage(mail('<root@example.com>'), deps);
    const followUp = Buffer.from(
      ['From: customer@example.com', 'Subject: Re: Password', 'Message-ID: <f@example.com>', 'In-Reply-To: <root@example.com>', '', 'Still broken.', ''].join(
        '\r\n',
      ),
    );
    const result = await ingestMessage(followUp, deps);
    expect((await deps.store.require(result.ticketId)).conversationId).toBe(root.ticketId);
  });
});

describe('parkOversizeMessage', () => {
  it('creates a parked ticket from the envelope with the sizes in the reason, no raw copy and no job', async () => {
    const deps = harness({ MAX_EMAIL_BYTES: String(10 * 1024 * 1024) });
    const envelope = { messageId: '<huge@example.com>', subject: '添付ファイル', from: [{ name: '山田', address: 'yamada@example.com' }] };
    const result = await parkOversizeMessage(envelope, 12_900_000, deps);
    expect(result).toEqual({ ticketId: ticketIdFor('<huge@example.com>'), outcome: 'parked', state: 'parked' });
    const ticket = await deps.store.require(result.ticketId);
    expect(ticket).toMatchObject({
      state: 'parked',
      reason: 'message is 12.3 MB, over MAX_EMAIL_BYTES (10 MB); not downloaded',
      from: 'yamada@example.com',
      subject: '添付ファイル',
    });
    expect(ticket.rawRef).toBeUndefined();
    expect(await loadRaw(redis, deps.prefix, result.ticketId)).toBeUndefined();
    expect(await jobsOf(deps)).toHaveLength(0);
    expect((await parkOversizeMessage(envelope, 12_900_000, deps)).outcome).toBe('duplicate');
  });
});

// A web form that writes one fixed Message-ID, or a broken client: the ticket under that id is another sender's.
describe("parkFromEnvelope: a Message-ID another sender's ticket already has", () => {
  it("gives an oversize mail a ticket of its own, and never parks the other sender's ticket", async () => {
    const deps = harness({ MAX_EMAIL_BYTES: String(10 * 1024 * 1024) });
    const first = await ingestMessage(mail('<fixed@form.example>'), deps);
    expect(first.outcome).toBe('queued');
    const envelope = { messageId: '<fixed@form.example>', subject: 'Big file', date: new Date('2026-03-02T01:00:00Z'), from: [{ address: 'other@example.org' }] };

    const oversize = await parkOversizeMessage(envelope, 12_900_000, deps);
    expect(oversize.outcome).toBe('parked');
    expect(oversize.ticketId).not.toBe(first.ticketId);
    expect(await deps.store.require(oversize.ticketId)).toMatchObject({ from: 'other@example.org', state: 'parked', mailMessageId: '<fixed@form.example>' });
    expect((await parkOversizeMessage(envelope, 12_900_000, deps)).outcome).toBe('duplicate');

    // Repeated ingest failures of the other mail park its own ticket, not the first sender's `received` one.
    const failed = await parkFromEnvelope({ ...envelope, subject: 'Broken' }, 2_000, 'ingest failed 3 times', deps, { parkReceived: true });
    expect(failed.ticketId).not.toBe(first.ticketId);
    expect((await deps.store.require(first.ticketId)).state).toBe('received');
  });
});

describe('while Redis is down', () => {
  it('fails with RedisUnavailableError and leaves nothing a later ingest cannot complete', async () => {
    const deps = harness();
    await server.kill();
    try {
      await expect(ingestMessage(mail('<down@example.com>'), deps)).rejects.toBeInstanceOf(RedisUnavailableError);
    } finally {
      await server.start();
    }
    await waitForReady(redis, 20_000);
    const result = await ingestMessage(mail('<down@example.com>'), deps);
    expect(result.outcome).toBe('queued');
    expect(await jobsOf(deps)).toHaveLength(1);
  });
});
