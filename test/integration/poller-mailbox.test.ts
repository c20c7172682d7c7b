/**
 * The IMAP poller end to end against a real Dovecot and a real redis-server: mail delivered to the mailbox becomes
 * exactly one ticket and one `answer-ticket` job, and is marked (or moved) only after that, through IDLE, outages
 * of either server and a renumbered mailbox.
 *
 * Each test watches its own mailbox and writes under its own QUEUE_PREFIX, so tests share the two servers.
 */
import { randomUUID } from 'node:crypto';
import type { JobType } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { MailboxSupervisor, readMailboxState, readPollerStatus } from '../../src/runtime/poller.js';
import { isStartTlsRefusal } from '../../src/mail/imap-security.js';
import { loadRaw } from '../../src/mail/raw-store.js';
import { connectForSentCopy } from '../../src/mail/sent-copy.js';
import { connectProducer, waitForReady } from '../../src/queues/connection.js';
import { answerJobId } from '../../src/queues/job-options.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { pollerCheck } from '../../src/server/health.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { ticketIdFor, type Ticket } from '../../src/tickets/ticket.js';
import { startDovecot, type DovecotServer } from '../../src/dev/dovecot.js';
import { pollUntil } from '../../src/dev/ports.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { encodeIso2022Jp } from '../support/iso-2022-jp.js';

const ALL_JOB_STATES: JobType[] = ['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children'];
/** Long enough that only IDLE (or an explicit trigger) can explain a sync within a test. */
const NO_SAFETY_POLL = String(60 * 60 * 1000);

let redisServer: RedisServer;
let imap: DovecotServer;
let redis: Redis;
const cleanups: Array<() => Promise<unknown>> = [];
const prefixes: string[] = [];

beforeAll(async () => {
  [redisServer, imap] = await Promise.all([startRedis(), startDovecot()]);
  redis = await connectProducer(redisServer.url);
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  if (!redisServer.running) await redisServer.start();
  if (redis.status !== 'ready') await waitForReady(redis, 20_000);
  for (const prefix of prefixes.splice(0)) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
});

afterAll(async () => {
  if (redis) await closeAll(redis);
  await Promise.all([redisServer?.stop(), imap?.stop()]);
});

interface Harness {
  mailbox: string;
  prefix: string;
  store: TicketStore;
  queues: Queues;
  config: ReturnType<typeof parseConfig>;
  supervisor: MailboxSupervisor;
  /** A further supervisor on the same mailbox and prefix (a restarted poller). */
  another(): MailboxSupervisor;
}

/** A fresh mailbox and prefix and a supervisor watching them (not started). */
async function harness(env: Record<string, string> = {}, options: { store?: (prefix: string) => TicketStore } = {}): Promise<Harness> {
  const mailbox = `t-${randomUUID().slice(0, 8)}`;
  await imap.createMailbox(mailbox);
  const prefix = `test-${randomUUID()}`;
  prefixes.push(prefix);
  const config = parseConfig({
    IMAP_HOST: imap.host,
    IMAP_PORT: String(imap.port),
    IMAP_SECURE: 'false',
    IMAP_ALLOW_PLAIN_LOGIN: 'true',
    IMAP_USER: imap.user,
    IMAP_PASSWORD: imap.password,
    IMAP_MAILBOX: mailbox,
    IMAP_POLL_INTERVAL_MS: NO_SAFETY_POLL,
    QUEUE_PREFIX: prefix,
    ...env,
  });
  const queues = createQueues(redis, prefix);
  // While Redis is down BullMQ re-emits connection errors on the queues; unheard, it prints them.
  for (const q of [queues.tickets, queues.outbound, queues.maintenance]) q.on('error', () => undefined);
  cleanups.push(() => closeAll(queues));
  const store = options.store?.(prefix) ?? new TicketStore(redis, { prefix });
  const make = (): MailboxSupervisor => {
    const supervisor = new MailboxSupervisor({
      config,
      redis,
      store,
      ticketsQueue: queues.tickets,
      reconnect: { initialDelayMs: 100, maxDelayMs: 1_000 },
    });
    cleanups.push(() => supervisor.stop());
    return supervisor;
  };
  return { mailbox, prefix, store, queues, config, supervisor: make(), another: make };
}

async function waitFor(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000): Promise<void> {
  await pollUntil(async () => condition(), { timeoutMs, intervalMs: 50, what });
}

/** Starts the supervisor and waits for its first complete sync. */
async function started(h: Harness, supervisor = h.supervisor): Promise<MailboxSupervisor> {
  supervisor.start();
  await waitFor(async () => (await readMailboxState(redis, supervisor.stateRedisKey)).lastSuccessfulPollAt !== undefined, 'the first sync');
  return supervisor;
}

/** Starts a supervisor of `h` that logs its warnings into `lines` (for the tests of failures it reports). */
function startLogged(h: Harness): { supervisor: MailboxSupervisor; lines: string[] } {
  const lines: string[] = [];
  const supervisor = new MailboxSupervisor({
    config: h.config,
    redis,
    store: h.store,
    ticketsQueue: h.queues.tickets,
    reconnect: { initialDelayMs: 100, maxDelayMs: 1_000 },
    logger: pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }),
  });
  cleanups.push(() => supervisor.stop());
  supervisor.start();
  return { supervisor, lines };
}

async function tickets(h: Harness): Promise<Ticket[]> {
  return (await h.store.list({ limit: 100 })).tickets;
}

async function jobs(h: Harness) {
  return h.queues.tickets.getJobs(ALL_JOB_STATES);
}

/** Flags by UID, read with doveadm so the check does not go through the code under test. */
async function flagsByUid(mailbox: string): Promise<Map<number, string[]>> {
  const out = await imap.doveadm(['fetch', '-u', imap.user, 'uid flags', 'mailbox', mailbox]);
  const flags = new Map<number, string[]>();
  for (const block of out.split('\f')) {
    const uid = /^uid: (\d+)$/m.exec(block)?.[1];
    if (uid === undefined) continue;
    flags.set(Number(uid), (/^flags: ?(.*)$/m.exec(block)?.[1] ?? '').split(/\s+/).filter(Boolean));
  }
  return flags;
}

async function seen(mailbox: string, uid: number): Promise<boolean> {
  return (await flagsByUid(mailbox)).get(uid)?.includes('\\Seen') ?? false;
}

async function markSeen(mailbox: string, uid: number): Promise<void> {
  await imap.doveadm(['flags', 'add', '-u', imap.user, '\\Seen', 'mailbox', mailbox, 'uid', String(uid)]);
}

async function messageCount(mailbox: string): Promise<number> {
  const out = await imap.doveadm(['mailbox', 'status', '-u', imap.user, 'messages', mailbox]);
  return Number(/messages=(\d+)/.exec(out)?.[1]);
}

async function uidValidityOf(mailbox: string): Promise<string> {
  const out = await imap.doveadm(['mailbox', 'status', '-u', imap.user, 'uidvalidity', mailbox]);
  return /uidvalidity=(\d+)/.exec(out)?.[1] ?? '';
}

function plainMail(messageId: string, subject = 'Question', body = 'How do I export my data?'): Buffer {
  return Buffer.from(
    [
      'From: Customer <customer@example.com>',
      'To: support@support.example',
      `Subject: ${subject}`,
      `Message-ID: ${messageId}`,
      'Date: Mon, 2 Mar 2026 10:00:00 +0900',
      'Content-Type: text/plain; charset=UTF-8',
      '',
      body,
      '',
    ].join('\r\n'),
  );
}

function japaneseMail(messageId: string): Buffer {
  const word = (text: string): string => `=?ISO-2022-JP?B?${encodeIso2022Jp(text).toString('base64')}?=`;
  const head = [
    `From: ${word('山田太郎')} <taro@customer.example>`,
    'To: support@support.example',
    `Subject: ${word('パスワードの再設定について')}`,
    `Message-ID: ${messageId}`,
    'Date: Tue, 3 Mar 2026 09:00:00 +0900',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=ISO-2022-JP',
    'Content-Transfer-Encoding: 7bit',
    '',
    '',
  ].join('\r\n');
  const body = encodeIso2022Jp('パスワードを忘れてしまいました。\r\n再設定の方法を教えてください。\r\n');
  return Buffer.concat([Buffer.from(head), body]);
}

describe('MailboxSupervisor', () => {
  it('takes a backlog in batches: every message ticketed once and flagged \\Seen, the oversize one parked, lastUid at the end', async () => {
    const h = await harness({ MAX_EMAIL_BYTES: '4096' });
    const total = 110; // more than two download batches
    const raws = Array.from({ length: total }, (_, i) =>
      i === 57 ? plainMail(`<big@customer.example>`, 'Big', 'x'.repeat(8_000)) : plainMail(`<backlog-${i % 100}@customer.example>`, `Q ${i}`),
    );
    // One IMAP session for the whole backlog: a doveadm run per mail took 17 s here on a busy 2-core machine.
    const uids = (await imap.deliverMany(raws, h.mailbox)).map((d) => d.uid);
    await started(h);

    const flags = await flagsByUid(h.mailbox);
    expect(uids.filter((uid) => !flags.get(uid)?.includes('\\Seen'))).toEqual([]);
    // 99 distinct Message-IDs among the ordinary mails (ten are second copies; backlog-57 was never sent) plus the oversize one.
    expect(await redis.zcard(h.store.keys().all)).toBe(100);
    expect((await h.store.require(ticketIdFor('<big@customer.example>'))).state).toBe('parked');
    expect(await jobs(h)).toHaveLength(99);
    expect((await readMailboxState(redis, h.supervisor.stateRedisKey)).lastUid).toBe(Math.max(...uids));
  });

  it('queues a Japanese ISO-2022-JP mail as one ticket and one job, then flags it \\Seen', async () => {
    const h = await harness();
    const raw = japaneseMail('<jis-1@customer.example>');
    const delivered = Date.now();
    const { uid } = await imap.deliver(raw, h.mailbox);
    await started(h);

    const ticketId = ticketIdFor('<jis-1@customer.example>');
    const ticket = await h.store.require(ticketId);
    expect(ticket).toMatchObject({
      state: 'received',
      from: 'taro@customer.example',
      fromName: '山田太郎',
      subject: 'パスワードの再設定について',
    });
    expect(ticket.question).toContain('再設定の方法を教えてください。');
    // When the poller noticed it: after the delivery, before the ticket was stored (the split of a reply's latency).
    expect(Date.parse(ticket.noticedAt!)).toBeGreaterThanOrEqual(delivered - 5);
    expect(Date.parse(ticket.noticedAt!)).toBeLessThanOrEqual(Date.parse(ticket.createdAt));
    expect((await loadRaw(redis, h.prefix, ticketId))?.equals(raw)).toBe(true);
    expect((await jobs(h)).map((j) => [j.id, j.name, j.data])).toEqual([[answerJobId(ticketId, 1), 'answer-ticket', { ticketId }]]);
    expect(await seen(h.mailbox, uid)).toBe(true);

    const state = await readMailboxState(redis, h.supervisor.stateRedisKey);
    expect(state).toMatchObject({ uidValidity: await uidValidityOf(h.mailbox), lastUid: uid });
    expect(await readPollerStatus(redis, h.config)).toEqual({ lastSuccessfulPollAt: state.lastSuccessfulPollAt });
  });

  it('ingests mail whose Message-ID is only brackets under an id of its own, and the mail after it too', async () => {
    const h = await harness();
    const broken = ['>', '<', '<<', '>>>'];
    const raws = [...broken.map((id, i) => plainMail(id, `Broken ${i}`)), plainMail('<after-broken@customer.example>', 'After')];
    const uids = (await imap.deliverMany(raws, h.mailbox)).map((d) => d.uid);
    const supervisor = await started(h);
    expect((await supervisor.syncNow()).error).toBeUndefined();

    const all = await tickets(h);
    expect(all).toHaveLength(5);
    expect(all.every((t) => t.state === 'received')).toBe(true);
    expect(new Set(all.map((t) => t.subject))).toEqual(new Set(['Broken 0', 'Broken 1', 'Broken 2', 'Broken 3', 'After']));
    expect(await jobs(h)).toHaveLength(5);
    for (const uid of uids) expect(await seen(h.mailbox, uid)).toBe(true);
    expect((await readMailboxState(redis, h.supervisor.stateRedisKey)).lastUid).toBe(Math.max(...uids));
  });

  it('makes one ticket and one job of the same Message-ID delivered twice', async () => {
    const h = await harness();
    const first = await imap.deliver(plainMail('<same@example.com>'), h.mailbox);
    const supervisor = await started(h);
    const second = await imap.deliver(plainMail('<same@example.com>', 'Question (sent again)'), h.mailbox);
    // IDLE may already be syncing; syncNow then waits for it plus exactly one more sync.
    expect((await supervisor.syncNow()).error).toBeUndefined();

    expect(await tickets(h)).toHaveLength(1);
    expect(await jobs(h)).toHaveLength(1);
    expect(await seen(h.mailbox, first.uid)).toBe(true);
    expect(await seen(h.mailbox, second.uid)).toBe(true);
  });

  // A script or a broken client that reuses one Message-ID, or a customer's client re-sending an edited message: the
  // same Message-ID, From and Date, but another text. It is another mail, not a second delivery of the first.
  it('gives a mail with the Message-ID, From and Date of an earlier one but other text a ticket of its own, also across a resync', async () => {
    const h = await harness();
    const firstRaw = plainMail('<reused@example.com>', 'Question', 'How do I export my data?');
    const editedRaw = plainMail('<reused@example.com>', 'Question', 'How do I export my data? I also need the invoices from 2025.');
    const uids = (await imap.deliverMany([firstRaw, editedRaw], h.mailbox)).map((d) => d.uid);
    const supervisor = await started(h);

    const all = await tickets(h);
    expect(all).toHaveLength(2);
    const first = all.find((t) => t.id === ticketIdFor('<reused@example.com>'))!;
    const edited = all.find((t) => t.id !== first.id)!;
    expect(first.question).toBe('How do I export my data?');
    expect(edited.question).toBe('How do I export my data? I also need the invoices from 2025.');
    // The operator sees why there are two tickets for one Message-ID; our reply still threads under the mail's own id.
    expect(edited.history[0]?.note).toContain(`a mail with Message-ID <reused@example.com> is already stored as ticket ${first.id}`);
    expect(edited.mailMessageId).toBe('<reused@example.com>');
    expect((await loadRaw(redis, h.prefix, edited.id))?.equals(editedRaw)).toBe(true);
    expect((await jobs(h)).map((j) => j.data.ticketId).sort()).toEqual([first.id, edited.id].sort());
    for (const uid of uids) expect(await seen(h.mailbox, uid)).toBe(true);

    // Both read again (the stored numbering lost, the flags with it): each is a duplicate of its own ticket.
    await redis.hset(supervisor.stateRedisKey, 'uidValidity', '1');
    for (const uid of uids) await imap.doveadm(['flags', 'remove', '-u', imap.user, '\\Seen', 'mailbox', h.mailbox, 'uid', String(uid)]);
    const resync = await supervisor.syncNow();
    expect(resync).toMatchObject({ mode: 'resync', considered: 2, duplicates: 2, queued: 0 });
    expect(await tickets(h)).toHaveLength(2);
    expect(await jobs(h)).toHaveLength(2);
  });

  // The same mail reaching the mailbox twice: identical bytes (a copy filed again), or by another route (a second of
  // our addresses), where each hop adds its own trace fields. One ticket, one answer.
  it('makes one ticket and one job of the same mail delivered again byte for byte and by another route', async () => {
    const h = await harness();
    const written = plainMail('<two-routes@example.com>', 'Question', 'How do I export my data?\r\nThe export button is greyed out.');
    const viaSupport = Buffer.concat([
      Buffer.from(
        [
          'Return-Path: <customer@example.com>',
          'Delivered-To: support@support.example',
          'Received: from mx1.example.net (mx1.example.net [192.0.2.1]) by mail.support.example; Mon, 2 Mar 2026 10:00:02 +0900',
          'X-Spam-Status: No, score=0.1',
          '',
        ].join('\r\n'),
      ),
      written,
    ]);
    const viaHelp = Buffer.concat([
      Buffer.from(
        [
          'Return-Path: <customer@example.com>',
          'Delivered-To: help@support.example',
          'X-Original-To: help@support.example',
          'Received: from mx2.example.net (mx2.example.net [192.0.2.2]) by mail.support.example; Mon, 2 Mar 2026 10:00:05 +0900',
          'Received: from relay.example.org by mx2.example.net; Mon, 2 Mar 2026 10:00:04 +0900',
          'X-Spam-Status: No, score=0.3',
          '',
        ].join('\r\n'),
      ),
      written,
    ]);
    const uids = (await imap.deliverMany([viaSupport, viaSupport, viaHelp], h.mailbox)).map((d) => d.uid);
    await started(h);

    const all = await tickets(h);
    expect(all.map((t) => t.id)).toEqual([ticketIdFor('<two-routes@example.com>')]);
    expect(all[0]).not.toHaveProperty('mailMessageId');
    expect(await jobs(h)).toHaveLength(1);
    // The first copy stays the ticket's mail; every copy is marked done.
    expect((await loadRaw(redis, h.prefix, all[0]!.id))?.equals(viaSupport)).toBe(true);
    for (const uid of uids) expect(await seen(h.mailbox, uid)).toBe(true);
  });

  it('takes only UNSEEN mail on its first run, but every new mail afterwards', async () => {
    const h = await harness();
    const old = await imap.deliver(plainMail('<old@example.com>'), h.mailbox);
    await markSeen(h.mailbox, old.uid);
    await imap.deliver(plainMail('<unread@example.com>'), h.mailbox);
    const supervisor = await started(h);
    expect((await tickets(h)).map((t) => t.messageId)).toEqual(['<unread@example.com>']);

    // Someone read it in their mail client before the poller got to it: still a customer waiting for an answer.
    const readEarly = await imap.deliver(plainMail('<read-early@example.com>'), h.mailbox);
    await markSeen(h.mailbox, readEarly.uid);
    expect((await supervisor.syncNow()).error).toBeUndefined();
    expect((await tickets(h)).map((t) => t.messageId).sort()).toEqual(['<read-early@example.com>', '<unread@example.com>']);
  });

  it('moves queued mail to IMAP_PROCESSED_MAILBOX, creating it when missing', async () => {
    const processed = `done-${randomUUID().slice(0, 8)}`;
    const h = await harness({ IMAP_PROCESSED_MAILBOX: processed });
    await imap.deliver(plainMail('<move-1@example.com>'), h.mailbox);
    const supervisor = await started(h);
    await imap.deliver(plainMail('<move-2@example.com>'), h.mailbox);
    expect((await supervisor.syncNow()).error).toBeUndefined();

    expect(await tickets(h)).toHaveLength(2);
    expect(await jobs(h)).toHaveLength(2);
    expect(await messageCount(h.mailbox)).toBe(0);
    expect(await messageCount(processed)).toBe(2);
    expect([...(await flagsByUid(processed)).values()].every((f) => f.includes('\\Seen'))).toBe(true);
  });

  it('parks mail over MAX_EMAIL_BYTES from its envelope, without downloading it or queueing a job', async () => {
    const h = await harness({ MAX_EMAIL_BYTES: '2048' });
    const big = await imap.deliver(plainMail('<big@example.com>', '大きな添付', 'x'.repeat(5_000)), h.mailbox);
    await imap.deliver(plainMail('<small@example.com>'), h.mailbox);
    await started(h);

    const parked = await h.store.require(ticketIdFor('<big@example.com>'));
    expect(parked).toMatchObject({ state: 'parked', from: 'customer@example.com', subject: '大きな添付' });
    expect(parked.reason).toMatch(/^message is 5(\.\d)? KB, over MAX_EMAIL_BYTES \(2 KB\); not downloaded$/);
    // Not downloaded: no raw copy was stored, and the ticket does not point at one.
    expect(parked.rawRef).toBeUndefined();
    expect(await loadRaw(redis, h.prefix, parked.id)).toBeUndefined();
    expect((await jobs(h)).map((j) => j.data.ticketId)).toEqual([ticketIdFor('<small@example.com>')]);
    expect(await seen(h.mailbox, big.uid)).toBe(true);
  });

  it('picks up new mail through IDLE while connected', async () => {
    const h = await harness();
    await started(h);
    await imap.deliver(plainMail('<idle@example.com>'), h.mailbox);
    // The safety poll is an hour away, so only the server's IDLE push can explain the ticket.
    await waitFor(async () => (await jobs(h)).length === 1, 'the mail to be queued through IDLE', 10_000);
    expect((await tickets(h)).map((t) => t.messageId)).toEqual(['<idle@example.com>']);
  });

  it('leaves mail unseen while Redis is down and queues it exactly once when Redis is back', async () => {
    const h = await harness();
    const supervisor = await started(h);
    await redisServer.kill();
    const { uid } = await imap.deliver(plainMail('<outage@example.com>'), h.mailbox);

    const report = await supervisor.syncNow();
    expect(report.error).toMatch(/Redis|Connection|closed|offline/i);
    expect(report.queued).toBe(0);
    expect(await seen(h.mailbox, uid)).toBe(false);

    await redisServer.start();
    // Redis coming back is itself a trigger; no poll or new mail is needed.
    await waitFor(() => seen(h.mailbox, uid), 'the mail to be queued after Redis came back', 20_000);
    expect(await jobs(h)).toHaveLength(1);
    expect(await tickets(h)).toHaveLength(1);
    const after = await supervisor.syncNow();
    expect(after.error).toBeUndefined();
    expect(after.considered).toBe(0);
    expect(await jobs(h)).toHaveLength(1);
  });

  it('reconnects after Dovecot restarts and picks up mail delivered after the restart', async () => {
    const h = await harness();
    const supervisor = await started(h);
    await imap.restart();
    await imap.deliver(plainMail('<after-restart@example.com>'), h.mailbox);
    await waitFor(async () => (await jobs(h)).length === 1, 'the mail delivered after the restart to be queued', 20_000);
    expect(supervisor.connected).toBe(true);
    expect((await tickets(h)).map((t) => t.messageId)).toEqual(['<after-restart@example.com>']);
  });

  it('resynchronises after UIDVALIDITY changes without a second job for mail already ticketed', async () => {
    const h = await harness();
    await imap.deliver(plainMail('<before@example.com>'), h.mailbox);
    const supervisor = await started(h);
    expect(await jobs(h)).toHaveLength(1);
    const before = await readMailboxState(redis, supervisor.stateRedisKey);

    // The server renumbers the mailbox under the connected poller: it is replaced by one with a new UIDVALIDITY in
    // which the mail already ticketed is back, unseen, with a new UID, next to a read mail and a new one. The
    // replacement is filled under another name first, so the poller never sees it half-filled (mail arriving after
    // a resync is new mail and taken even when read, which is not what this test is about).
    const replacement = `${h.mailbox}-new`;
    await imap.createMailbox(replacement);
    await imap.deliver(plainMail('<before@example.com>'), replacement);
    const read = await imap.deliver(plainMail('<read@example.com>'), replacement);
    await markSeen(replacement, read.uid);
    await imap.deliver(plainMail('<new@example.com>'), replacement);
    await imap.doveadm(['mailbox', 'delete', '-u', imap.user, h.mailbox]);
    await imap.doveadm(['mailbox', 'rename', '-u', imap.user, replacement, h.mailbox]);
    const uidValidity = await uidValidityOf(h.mailbox);
    expect(uidValidity).not.toBe(before.uidValidity);

    // The next sync (the safety poll in production) finds the session broken or the numbering changed.
    await waitFor(
      async () => {
        await supervisor.syncNow();
        return (await readMailboxState(redis, supervisor.stateRedisKey)).uidValidity === uidValidity;
      },
      'the resync under the new UIDVALIDITY',
      20_000,
    );
    expect((await tickets(h)).map((t) => t.messageId).sort()).toEqual(['<before@example.com>', '<new@example.com>']);
    expect(await jobs(h)).toHaveLength(2);
    expect([...(await flagsByUid(h.mailbox)).values()].every((f) => f.includes('\\Seen'))).toBe(true);
  });

  it('resynchronises when the stored UIDVALIDITY no longer matches, answering nothing twice', async () => {
    const h = await harness();
    await imap.deliver(plainMail('<kept@example.com>'), h.mailbox);
    const supervisor = await started(h);
    await redis.hset(supervisor.stateRedisKey, 'uidValidity', '1');
    // Unseen again, as if the flag had been lost with the renumbering: the ticket dedupes it.
    await imap.doveadm(['flags', 'remove', '-u', imap.user, '\\Seen', 'mailbox', h.mailbox, 'uid', '1']);
    await imap.deliver(plainMail('<fresh@example.com>'), h.mailbox);

    expect((await supervisor.syncNow()).error).toBeUndefined();
    // Only a resync looks below the stored lastUid: the old mail was considered again (and flagged), not re-queued.
    expect(await seen(h.mailbox, 1)).toBe(true);
    expect(await jobs(h)).toHaveLength(2);
    expect(await tickets(h)).toHaveLength(2);
    expect(await readMailboxState(redis, supervisor.stateRedisKey)).toMatchObject({ uidValidity: await uidValidityOf(h.mailbox), lastUid: 2 });
  });

  it('parks a mail that keeps failing to queue (Redis answering with an error), so it neither blocks nor vanishes', async () => {
    const h = await harness();
    const supervisor = await started(h);
    const meta = `${h.prefix}:tickets:meta`;
    await waitFor(async () => (await redis.exists(meta)) === 1, 'the queue to write its meta key');
    // A key of the wrong type makes BullMQ's add script fail with WRONGTYPE: Redis is up but refuses the job.
    await redis.del(meta);
    await redis.set(meta, 'not-a-hash');
    const { uid } = await imap.deliver(plainMail('<poison@example.com>'), h.mailbox);
    const ticketId = ticketIdFor('<poison@example.com>');
    await waitFor(
      async () => {
        await supervisor.syncNow();
        return (await h.store.get(ticketId))?.state === 'parked';
      },
      'the failing mail to be parked',
      20_000,
    );
    expect((await h.store.require(ticketId)).reason).toMatch(/^could not be queued after 3 attempts: .*WRONGTYPE/);
    expect(await seen(h.mailbox, uid)).toBe(true);

    await redis.del(meta);
    expect(await jobs(h)).toHaveLength(0);
    await imap.deliver(plainMail('<after-poison@example.com>'), h.mailbox);
    await supervisor.syncNow();
    expect((await jobs(h)).map((j) => j.data.ticketId)).toEqual([ticketIdFor('<after-poison@example.com>')]);
  });

  it('parks a mail whose envelope cannot be stored either under its place in the mailbox, so the mails after it are still taken', async () => {
    // A bug met by one sender's mail: every write of a ticket from that address fails, the envelope's park included.
    class FailingForOneSender extends TicketStore {
      override async createIfAbsent(ticket: Ticket) {
        if (ticket.from === 'poison@customer.example') throw new TypeError('a bug met by this sender');
        return super.createIfAbsent(ticket);
      }
    }
    const h = await harness({}, { store: (prefix) => new FailingForOneSender(redis, { prefix }) });
    const poison = Buffer.from(plainMail('<poison-2@customer.example>', 'Poison').toString().replace('customer@example.com', 'poison@customer.example'));
    const [first, second] = await imap.deliverMany([poison, plainMail('<after-poison-2@customer.example>', 'After')], h.mailbox);
    // Its first syncs fail at the poisoned mail; each is a failed attempt of it.
    const supervisor = h.supervisor;
    supervisor.start();
    await waitFor(
      async () => {
        await supervisor.syncNow();
        return (await tickets(h)).length === 2;
      },
      'both mails to be ticketed',
      20_000,
    );
    const all = await tickets(h);
    const parked = all.find((t) => t.state === 'parked');
    expect(parked?.reason).toMatch(/^could not be queued after 3 attempts: a bug met by this sender; .*stored by its place in the mailbox/);
    expect(all.find((t) => t.subject === 'After')?.state).toBe('received');
    expect(await seen(h.mailbox, first!.uid)).toBe(true);
    expect(await seen(h.mailbox, second!.uid)).toBe(true);
  });

  it('never sends the password in clear: with IMAP_SECURE=false and a server without STARTTLS it does not log in', async () => {
    const h = await harness({ IMAP_ALLOW_PLAIN_LOGIN: 'false' });
    await imap.deliver(plainMail('<clear@example.com>'), h.mailbox);
    const { supervisor, lines } = startLogged(h);
    await waitFor(() => lines.length >= 2, 'two refused connections');
    expect(JSON.parse(lines[0]!).msg).toContain('did not start TLS (STARTTLS), so the login was not sent in clear');
    expect(supervisor.connected).toBe(false);
    // /readyz reads why from Redis: no one has to open the poller's log to learn it.
    const status = await readPollerStatus(redis, h.config);
    expect(status.lastSuccessfulPollAt).toBeUndefined();
    expect(status.lastFailure?.message).toContain('did not start TLS (STARTTLS)');
    expect(await tickets(h)).toEqual([]);
    // The Sent-folder copies' connection refuses the same way.
    const refused = await connectForSentCopy({ ...h.config, IMAP_SENT_MAILBOX: 'Sent' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isStartTlsRefusal(refused)).toBe(true);
  });

  it('records a refused login for /readyz, in one line, and keeps it beside the successful poll that follows', async () => {
    const h = await harness({ IMAP_PASSWORD: 'not-the-password' });
    const { supervisor, lines } = startLogged(h);
    await waitFor(async () => (await readPollerStatus(redis, h.config)).lastFailure !== undefined, 'the refused login recorded', 30_000);
    await supervisor.stop();
    const refused = await readPollerStatus(redis, h.config);
    expect(refused.lastFailure?.message).toBe(`IMAP login as ${imap.user} to ${imap.host}:${imap.port} failed (wrong IMAP_USER or IMAP_PASSWORD?)`);
    expect(refused.lastFailure?.message).not.toContain('not-the-password');
    expect(JSON.parse(lines[0]!).msg).toContain(refused.lastFailure!.message);

    // The right password: the poll succeeds, and the failure stays with its time, older than the poll.
    const good = new MailboxSupervisor({ config: { ...h.config, IMAP_PASSWORD: imap.password }, redis, store: h.store, ticketsQueue: h.queues.tickets });
    cleanups.push(() => good.stop());
    good.start();
    await waitFor(async () => (await readPollerStatus(redis, h.config)).lastSuccessfulPollAt !== undefined, 'the first sync');
    const after = await readPollerStatus(redis, h.config);
    expect(after.lastFailure).toEqual(refused.lastFailure);
    expect(after.lastSuccessfulPollAt!.getTime()).toBeGreaterThan(after.lastFailure!.at.getTime());
  });

  // A new VM without NTP: /readyz said the mailbox was not read (or was) depending on which clock was wrong.
  it("stamps its polls and failures with Redis's clock, so a poller whose clock is minutes off reads as it is", async () => {
    const h = await harness();
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      vi.setSystemTime(Date.now() - 4 * 60_000);
      await started(h);
    } finally {
      vi.useRealTimers();
    }
    const status = await readPollerStatus(redis, h.config);
    expect(Math.abs(Date.now() - status.lastSuccessfulPollAt!.getTime())).toBeLessThan(10_000);
    expect(pollerCheck(status, new Date(), 3 * 60_000).status).toBe('ok');
    // Read by a dashboard whose clock is 4 min ahead: the same poll, as recent on its clock.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      vi.setSystemTime(Date.now() + 4 * 60_000);
      const ahead = await readPollerStatus(redis, h.config);
      expect(pollerCheck(ahead, new Date(), 3 * 60_000).detail).toMatch(/^last successful poll [0-9] s ago/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says in one line that TLS failed when IMAP_SECURE=true meets a plain port', async () => {
    const h = await harness({ IMAP_SECURE: 'true' });
    const { supervisor, lines } = startLogged(h);
    await waitFor(async () => (await readPollerStatus(redis, h.config)).lastFailure !== undefined, 'the failed connection recorded');
    await supervisor.stop();
    const message = (await readPollerStatus(redis, h.config)).lastFailure!.message;
    // Reached, and not speaking TLS at once: the setting to change, not "unreachable" with OpenSSL's words.
    expect(message).toBe(
      `IMAP server ${imap.host}:${imap.port} does not speak TLS at once (ERR_SSL_WRONG_VERSION_NUMBER): set IMAP_SECURE=false for port 143 (STARTTLS), or use port 993 with IMAP_SECURE=true`,
    );
    expect(message).not.toMatch(/\n/);
    expect(JSON.parse(lines[0]!).msg).not.toMatch(/\n/);
  });

  it('is stopped idempotently and a restarted poller continues where it left off', async () => {
    const h = await harness();
    await imap.deliver(plainMail('<one@example.com>'), h.mailbox);
    const supervisor = await started(h);
    await Promise.all([supervisor.stop(), supervisor.stop()]);
    expect(supervisor.connected).toBe(false);
    expect(await supervisor.syncNow()).toMatchObject({ mode: 'skipped' });

    await imap.deliver(plainMail('<two@example.com>'), h.mailbox);
    const next = h.another();
    next.start();
    await waitFor(async () => (await jobs(h)).length === 2, 'the restarted poller to queue the new mail');
    expect((await tickets(h)).map((t) => t.messageId).sort()).toEqual(['<one@example.com>', '<two@example.com>']);
  });
});
