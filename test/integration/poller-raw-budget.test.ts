/**
 * The raw-mail budget as the poller meets it, against a real Dovecot and a real redis-server: of one sender's large
 * mails only RAW_MAIL_BYTES_PER_SENDER_PER_HOUR keep their raw copy; a later one is held for a person without it (its
 * job runs the checks before the agent, which park it unless they ignore it), and its held reason tells a person where
 * the mail still is: its UID in the watched mailbox, or, with
 * IMAP_PROCESSED_MAILBOX, the mailbox it was moved to and the UID it had before (the move gives it a new one). Marked
 * seen (and moved) as any ticketed mail, so the next sync does not take it again.
 */
import { randomUUID } from 'node:crypto';
import type { JobType } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { formatBytes } from '../../src/mail/ingest.js';
import { loadRaw } from '../../src/mail/raw-store.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues } from '../../src/queues/registry.js';
import { MailboxSupervisor, readMailboxState } from '../../src/runtime/poller.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { ticketIdFor } from '../../src/tickets/ticket.js';
import { startDovecot, type DovecotServer } from '../../src/dev/dovecot.js';
import { pollUntil } from '../../src/dev/ports.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { buildMail, customerMessageId } from '../support/pipeline.js';

const ALL_JOB_STATES: JobType[] = ['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children'];
const MiB = 1024 * 1024;
/** Long enough that only the first sync, on start, takes the mail. */
const NO_SAFETY_POLL = String(60 * 60 * 1000);
const SENDER = 'Taro Yamada <taro@customer.example>';

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
  for (const prefix of prefixes.splice(0)) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
});

afterAll(async () => {
  if (redis) await closeAll(redis);
  await Promise.all([redisServer?.stop(), imap?.stop()]);
});

/** A customer's mail of about 600 KB: a question with a pasted log, as support mail with a large attachment is. */
function largeMail(messageId: string, n: number): Buffer {
  const log = `2026-03-03 09:00:${String(n).padStart(2, '0')} ERROR sync failed: upstream returned 503 (request ${n})\n`;
  return buildMail({
    messageId,
    from: SENDER,
    subject: `同期エラーについて (${n})`,
    body: `同期が失敗します。ログを貼り付けますので、原因を教えてください。\n\n${log.repeat(Math.ceil((450 * 1024) / log.length))}`,
  });
}

async function flagsByUid(mailbox: string): Promise<Map<number, { flags: string[]; messageId: string }>> {
  const out = await imap.doveadm(['fetch', '-u', imap.user, 'uid flags hdr.message-id', 'mailbox', mailbox]);
  const messages = new Map<number, { flags: string[]; messageId: string }>();
  for (const block of out.split('\f')) {
    const uid = /^uid: (\d+)$/m.exec(block)?.[1];
    if (uid === undefined) continue;
    const flags = (/^flags: ?(.*)$/m.exec(block)?.[1] ?? '').split(/\s+/).filter(Boolean);
    messages.set(Number(uid), { flags, messageId: /^hdr\.message-id: ?(.*)$/m.exec(block)?.[1]?.trim() ?? '' });
  }
  return messages;
}

const cases = [
  {
    what: 'left in the watched mailbox: its UID there',
    mailbox: () => 'INBOX',
    processed: undefined,
    place: (mailbox: string, _processed: string | undefined, uid: number) => `${mailbox}/${uid}`,
  },
  {
    what: 'moved to IMAP_PROCESSED_MAILBOX: that mailbox, and the UID it had before the move',
    mailbox: () => `t-${randomUUID().slice(0, 8)}`,
    processed: `done-${randomUUID().slice(0, 8)}`,
    place: (mailbox: string, processed: string | undefined, uid: number) => `${processed} (moved there from ${mailbox}, where its UID was ${uid})`,
  },
];

describe("the poller with one sender's large mails past RAW_MAIL_BYTES_PER_SENDER_PER_HOUR", () => {
  it.each(cases)('holds the mail past the budget for a person without its raw copy, and names where it is, $what', async ({ mailbox: mailboxName, processed, place }) => {
    const mailbox = mailboxName();
    if (mailbox !== 'INBOX') await imap.createMailbox(mailbox);
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
      ...(processed ? { IMAP_PROCESSED_MAILBOX: processed } : {}),
      IMAP_POLL_INTERVAL_MS: NO_SAFETY_POLL,
      QUEUE_PREFIX: prefix,
      // Its minimum: one mail of 600 KB fits, a second does not.
      RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: String(MiB),
    });
    const queues = createQueues(redis, prefix);
    cleanups.push(() => closeAll(queues));
    const store = new TicketStore(redis, { prefix });

    const ids = [1, 2, 3].map((n) => customerMessageId(`log${n}`));
    const raws = ids.map((id, i) => largeMail(id, i + 1));
    expect(raws[0]!.length).toBeGreaterThan(550 * 1024);
    expect(raws[0]!.length + raws[1]!.length).toBeGreaterThan(MiB);
    // A mail someone already handled and deleted goes first, so that UIDs are no longer the sequence numbers.
    const gone = buildMail({ messageId: customerMessageId('gone'), from: 'someone@other.example', subject: 'Thanks', body: 'Solved, thank you.' });
    const [deleted, ...delivered] = await imap.deliverMany([gone, ...raws], mailbox);
    await imap.doveadm(['expunge', '-u', imap.user, 'mailbox', mailbox, 'uid', String(deleted!.uid)]);

    const supervisor = new MailboxSupervisor({ config, redis, store, ticketsQueue: queues.tickets, reconnect: { initialDelayMs: 100, maxDelayMs: 1_000 } });
    cleanups.push(() => supervisor.stop());
    supervisor.start();
    await pollUntil(async () => (await readMailboxState(redis, supervisor.stateRedisKey)).lastSuccessfulPollAt !== undefined, {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: 'the first sync',
    });

    const [first, ...later] = await Promise.all(ids.map((id) => store.require(ticketIdFor(id))));
    expect(first).toMatchObject({ state: 'received' });
    expect((await loadRaw(redis, prefix, first!.id))?.equals(raws[0]!)).toBe(true);
    for (const [i, ticket] of later.entries()) {
      const uid = delivered[i + 1]!.uid;
      expect(ticket.state).toBe('received');
      // The first mail's bytes are all this sender kept: a refused mail spends nothing of the budget.
      expect(ticket.heldReason).toBe(
        `raw mail not kept: ${formatBytes(raws[0]!.length)} from this sender in the last hour, and this mail is ${formatBytes(raws[i + 1]!.length)} ` +
          `(RAW_MAIL_BYTES_PER_SENDER_PER_HOUR is 1 MB); the mail is still in the mailbox, ${place(mailbox, processed, uid)}`,
      );
      expect(ticket.rawRef).toBeUndefined();
      expect(await loadRaw(redis, prefix, ticket.id)).toBeUndefined();
      expect(ticket.question).toContain('原因を教えてください');
    }
    expect((await queues.tickets.getJobs(ALL_JOB_STATES)).map((j) => j.data.ticketId).sort()).toEqual(ids.map(ticketIdFor).sort());

    // Marked done like every ticketed mail (moved, with IMAP_PROCESSED_MAILBOX), so no later sync takes it again.
    const left = await flagsByUid(mailbox);
    const done = processed ? await flagsByUid(processed) : left;
    expect(processed ? left.size : 0).toBe(0);
    expect([...done.values()].map((m) => m.messageId).sort()).toEqual([...ids].sort());
    expect([...done.values()].every((m) => m.flags.includes('\\Seen'))).toBe(true);
    if (!processed) expect([...done.keys()].sort((a, b) => a - b)).toEqual(delivered.map((d) => d.uid));
    expect(await supervisor.syncNow()).toMatchObject({ considered: 0, queued: 0, parked: 0 });
  }, 15_000);
});
