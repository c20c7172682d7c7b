/**
 * The poller's first start against an existing support mailbox, the whole pipeline in one process (real Dovecot,
 * redis-server and SMTP receiver, the scripted model over HTTP): unseen mail the server received long before the
 * first start is ticketed and held for a person: the checks before the agent run on it as on any day, so the
 * auto-replies, bounces and list mail an unread backlog is mostly made of are ignored, and the rest is parked with no
 * agent run and no reply, while recent unseen mail is answered as always. Only the first start holds mail: after a UIDVALIDITY change, or
 * on a restart with sync state, unseen mail is what arrived while the poller was away and is answered.
 */
import { randomUUID } from 'node:crypto';
import { ImapFlow } from 'imapflow';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues } from '../../src/queues/registry.js';
import { ticketMessageId } from '../../src/mail/ingest.js';
import { ignoreKindOf } from '../../src/mail/classify.js';
import { MailboxSupervisor, mailboxStateKey } from '../../src/runtime/poller.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { ticketIdFor } from '../../src/tickets/ticket.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  startPipelineServers,
  startRoles,
  waitFor,
  waitForState,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const FINAL = ['sent', 'parked', 'ignored', 'failed'] as const;
/** Words only the old mail's question has: no request to the model may carry them while it is held. */
const OLD_QUESTION = '認証アプリを使った二段階認証の設定方法を教えてください。';
const NEW_QUESTION = '二段階認証を認証アプリで設定する手順を教えてください。';

let servers: PipelineServers;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  servers = await startPipelineServers({ imap: true });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  servers.llm.reset();
});
afterAll(async () => {
  await servers?.stop();
});

/** Appends `raw` unseen to `mailbox` with the INTERNALDATE `receivedAt`, as the mail server would have stored it. */
async function appendReceivedAt(mailbox: string, raw: Buffer, receivedAt: Date): Promise<{ uid: number; uidValidity: string }> {
  const imap = servers.imap!;
  const client = new ImapFlow({ host: imap.host, port: imap.port, secure: false, auth: { user: imap.user, pass: imap.password }, logger: false });
  await client.connect();
  try {
    const appended = await client.append(mailbox, raw, [], receivedAt);
    if (!appended || !appended.uid || appended.uidValidity === undefined) throw new Error(`APPEND to ${mailbox} returned no UID`);
    return { uid: appended.uid, uidValidity: String(appended.uidValidity) };
  } finally {
    await client.logout().catch(() => client.close());
  }
}

async function seen(mailbox: string, uid: number): Promise<boolean> {
  const out = await servers.imap!.doveadm(['fetch', '-u', servers.imap!.user, 'flags', 'mailbox', mailbox, 'uid', String(uid)]);
  return /\\Seen/.test(out);
}

/** A fresh mailbox holding an old and a recent unseen question, and the configuration that watches it. */
async function mailboxWithBacklog(): Promise<{
  mailbox: string;
  config: ReturnType<typeof parseConfig>;
  old: { messageId: string; uid: number; uidValidity: string };
  recent: { messageId: string; uid: number };
}> {
  const mailbox = `first-${randomUUID().slice(0, 8)}`;
  await servers.imap!.createMailbox(mailbox);
  const config = parseConfig(pipelineEnv(servers, { IMAP_MAILBOX: mailbox }));
  cleanups.push(() => removePrefix(servers.redis.url, config.QUEUE_PREFIX));
  const oldAt = new Date(Date.now() - 120 * DAY_MS);
  const recentAt = new Date(Date.now() - HOUR_MS);
  const oldId = customerMessageId('old');
  const recentId = customerMessageId('recent');
  const oldMail = buildMail({ messageId: oldId, from: 'Old Customer <old@customer.example>', subject: '二段階認証の設定', body: OLD_QUESTION, date: oldAt.toUTCString() });
  const recentMail = buildMail({ messageId: recentId, from: 'New Customer <new@customer.example>', subject: '認証アプリ', body: NEW_QUESTION, date: recentAt.toUTCString() });
  const old = await appendReceivedAt(mailbox, oldMail, oldAt);
  const recent = await appendReceivedAt(mailbox, recentMail, recentAt);
  return { mailbox, config, old: { messageId: oldId, ...old }, recent: { messageId: recentId, uid: recent.uid } };
}

async function start(config: ReturnType<typeof parseConfig>): Promise<RunningRoles> {
  const running = await startRoles(config, { poller: true });
  cleanups.push(() => running.stop());
  return running;
}

/** A mailbox supervisor of its own on `config`'s mailbox (the roles' agent worker answers what it queues), and its log. */
async function superviseWithLog(config: ReturnType<typeof parseConfig>): Promise<{ store: TicketStore; lines: Array<{ level: number; msg: string; held?: number }> }> {
  const redis = await connectProducer(servers.redis.url);
  const queues = createQueues(redis, config.QUEUE_PREFIX);
  const store = new TicketStore(redis, { prefix: config.QUEUE_PREFIX });
  const lines: Array<{ level: number; msg: string; held?: number }> = [];
  const supervisor = new MailboxSupervisor({
    config,
    redis,
    store,
    ticketsQueue: queues.tickets,
    logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }),
  });
  cleanups.push(() => closeAll(queues, redis));
  cleanups.push(() => supervisor.stop());
  supervisor.start();
  return { store, lines };
}

/** An RFC 3464 bounce of our reply `replyMessageId`, as Postfix writes one. */
function bounceOf(messageId: string, replyMessageId: string, recipient: string, date: Date): Buffer {
  const body = [
    '--dsn',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    "I'm sorry to have to inform you that your message could not be delivered.",
    '',
    '--dsn',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.customer.example',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    'Action: failed',
    'Status: 5.1.1',
    `Diagnostic-Code: smtp; 550 5.1.1 <${recipient}>: Recipient address rejected: User unknown`,
    '',
    '--dsn',
    'Content-Type: text/rfc822-headers',
    '',
    'From: XYZ Support <support@helpdesk.test>',
    `To: ${recipient}`,
    'Subject: Re: パスワードについて',
    `Message-ID: ${replyMessageId}`,
    '',
    '--dsn--',
    '',
  ].join('\n');
  return buildMail({
    messageId,
    from: 'MAILER-DAEMON@mx.customer.example (Mail Delivery System)',
    subject: 'Undelivered Mail Returned to Sender',
    body: '',
    date: date.toUTCString(),
    headers: { 'Auto-Submitted': 'auto-replied' },
    rawBody: { contentType: 'multipart/report; report-type=delivery-status; boundary=dsn', body },
  });
}

function modelSaw(text: string): boolean {
  return servers.llm.chatRequests().some((r) => JSON.stringify(r.body).includes(text));
}

function repliesTo(messageId: string): number {
  return servers.smtp.messages.filter((m) => m.parsed.inReplyTo === messageId).length;
}

describe('the first start of the poller on a mailbox with old unseen mail', () => {
  it('parks unseen mail received more than FIRST_START_ANSWER_HOURS (24) before it, unanswered, and answers the recent one', async () => {
    const { mailbox, config, old, recent } = await mailboxWithBacklog();
    const running = await start(config);

    const answered = await waitForState(running.store, ticketIdFor(recent.messageId), FINAL, 30_000);
    expect(answered.state, answered.reason).toBe('sent');
    expect(repliesTo(recent.messageId)).toBe(1);

    const held = await waitForState(running.store, ticketIdFor(old.messageId), FINAL, 30_000);
    expect(held.state).toBe('parked');
    expect(held.reason).toMatch(/^held: no sync state for this mailbox yet \(a first start, or Redis lost it\); it arrived 4 months earlier, on \d{4}-\d\d-\d\d \d\d:\d\d \S+ \(FIRST_START_ANSWER_HOURS=24\): a person decides whether it still needs an answer$/);
    // The whole mail is kept, so a person can read it and let the agent draft a reply (rerun) after all.
    expect(held.question).toBe(OLD_QUESTION);
    expect(held.rawRef).toBeTruthy();
    // Parked by the agent worker's checks, before the limits and the agent: no run was counted or started.
    expect(held.history.map((h) => h.to)).toEqual(['received', 'parked']);
    expect(held.heldReason).toBe(held.reason);
    expect(modelSaw(OLD_QUESTION)).toBe(false);
    expect(modelSaw(NEW_QUESTION)).toBe(true);
    expect(repliesTo(old.messageId)).toBe(0);
    // Marked as any ticketed mail is: a restart does not take it again.
    expect(await seen(mailbox, old.uid)).toBe(true);
    expect(await seen(mailbox, recent.uid)).toBe(true);
  });

  it.each([
    { when: 'the mailbox was renumbered (UIDVALIDITY changed)', state: (_uidValidity: string) => ({ uidValidity: '1', lastUid: '0' }) },
    { when: 'the poller restarts with sync state', state: (uidValidity: string) => ({ uidValidity, lastUid: '0' }) },
  ])('answers old unseen mail when $when: it arrived while the poller was away', async ({ state }) => {
    const { config, old, recent } = await mailboxWithBacklog();
    const redis = new Redis(servers.redis.url);
    try {
      const key = mailboxStateKey(config.QUEUE_PREFIX, { user: config.IMAP_USER!, host: config.IMAP_HOST!, mailbox: config.IMAP_MAILBOX });
      await redis.hset(key, state(old.uidValidity));
    } finally {
      redis.disconnect();
    }
    const running = await start(config);

    for (const messageId of [old.messageId, recent.messageId]) {
      const ticket = await waitForState(running.store, ticketIdFor(messageId), FINAL, 30_000);
      expect(ticket.state, ticket.reason).toBe('sent');
      expect(repliesTo(messageId)).toBe(1);
    }
    expect(modelSaw(OLD_QUESTION)).toBe(true);
  });

  it('ignores the old auto-replies, list mail and bounces it finds as on any day, and parks only what would be answered', async () => {
    const { mailbox, config, old } = await mailboxWithBacklog();
    // The agent worker and the sender only: the poller's first start comes once the backlog is complete.
    const running = await startRoles(config);
    cleanups.push(() => running.stop());
    // One of our replies, sent before the first start, that an old bounce in the backlog reports as undelivered.
    const replied = await ingest(running, buildMail({ messageId: customerMessageId('replied'), from: 'gone@customer.example', subject: 'パスワードについて', body: 'パスワードの条件を教えてください。' }));
    const sent = await waitForState(running.store, replied.ticketId, FINAL, 30_000);
    expect(sent.state, sent.reason).toBe('sent');

    const oldAt = new Date(Date.now() - 120 * DAY_MS);
    const ids = { ooo: customerMessageId('ooo'), news: customerMessageId('news'), bounce: customerMessageId('dsn') };
    const junk = [
      {
        what: 'an out-of-office reply',
        kind: 'auto-reply',
        messageId: ids.ooo,
        raw: buildMail({ messageId: ids.ooo, from: 'away@other.example', subject: '不在通知: お問い合わせ', body: '現在不在にしております。', date: oldAt.toUTCString(), headers: { 'Auto-Submitted': 'auto-replied' } }),
      },
      {
        what: 'a newsletter',
        kind: 'list',
        messageId: ids.news,
        raw: buildMail({
          messageId: ids.news,
          from: 'news@shop.example',
          subject: '今週のセール情報',
          body: '今週のおすすめ商品をご紹介します。',
          date: oldAt.toUTCString(),
          headers: { 'List-Id': '<news.shop.example>', 'List-Unsubscribe': '<https://shop.example/unsub>', Precedence: 'bulk' },
        }),
      },
      { what: 'a bounce of our reply', kind: 'bounce', messageId: ids.bounce, raw: bounceOf(ids.bounce, sent.outbound!.messageId, 'gone@customer.example', oldAt) },
    ];
    for (const { raw } of junk) await appendReceivedAt(mailbox, raw, oldAt);
    // Parked as unreadable whenever it came: not one the first start held, so not counted as held.
    const unreadable = Buffer.from('no header at all, only words\r\n');
    await appendReceivedAt(mailbox, unreadable, oldAt);
    const { store, lines } = await superviseWithLog(config);

    for (const { what, kind, messageId } of junk) {
      const ticket = await waitForState(store, ticketIdFor(messageId), FINAL, 30_000);
      // As the same mail arriving today ends: ignored, under the same kind, with no agent run and no reply.
      expect({ what, state: ticket.state, kind: ignoreKindOf(ticket.reason) }, ticket.reason).toEqual({ what, state: 'ignored', kind });
      expect(repliesTo(messageId)).toBe(0);
    }
    expect((await store.require(sent.id)).replyBounce?.reportTicketId).toBe(ticketIdFor(ids.bounce));
    const held = await waitForState(store, ticketIdFor(old.messageId), FINAL, 30_000);
    expect(held.state).toBe('parked');
    expect(held.reason).toMatch(/^held: /);
    const unread = await waitForState(store, ticketIdFor(ticketMessageId(undefined, unreadable)), FINAL, 30_000);
    expect(unread.state).toBe('parked');
    expect(unread.reason).toMatch(/^unreadable mail: /);
    expect(modelSaw(OLD_QUESTION)).toBe(false);

    await waitFor(() => lines.find((l) => l.msg.startsWith('First start on ')), 'the first start\'s info line');
    const firstStart = lines.filter((l) => l.msg.startsWith('First start on '));
    expect(firstStart).toHaveLength(1);
    // Every old mail but the unreadable one (parked for being unreadable whenever it came) is held unless the checks
    // ignore it, which they decide later: the line says so. The recent one is answered.
    expect(firstStart[0]).toMatchObject({ level: 30, held: 4 });
    expect(firstStart[0]!.msg).toMatch(/held 4 of 6 unseen mails for a person \(received more than 24 h before the start\) unless the checks ignore them: /);
  });

  it('with FIRST_START_ANSWER_HOURS=0 holds all of it, and says in one info line how many it held', async () => {
    const { mailbox, config: base, old, recent } = await mailboxWithBacklog();
    const config = { ...base, FIRST_START_ANSWER_HOURS: 0, MAX_EMAIL_BYTES: 64 * 1024 };
    // Parked for its size whenever it came: not one the first start held, so not counted as held.
    const oversizeId = customerMessageId('oversize');
    const oversizeAt = new Date(Date.now() - 120 * DAY_MS);
    const oversize = buildMail({ messageId: oversizeId, from: 'Log Sender <logs@customer.example>', subject: 'ログ', body: 'log line\n'.repeat(10_000), date: oversizeAt.toUTCString() });
    await appendReceivedAt(mailbox, oversize, oversizeAt);
    // The agent worker runs the checks that park what the first start held.
    const running = await startRoles(config);
    cleanups.push(() => running.stop());
    const redis = await connectProducer(servers.redis.url);
    const queues = createQueues(redis, config.QUEUE_PREFIX);
    const store = new TicketStore(redis, { prefix: config.QUEUE_PREFIX });
    const lines: Array<{ level: number; msg: string; held?: number }> = [];
    const supervisor = new MailboxSupervisor({
      config,
      redis,
      store,
      ticketsQueue: queues.tickets,
      logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }),
    });
    cleanups.push(() => closeAll(queues, redis));
    cleanups.push(() => supervisor.stop());
    supervisor.start();
    await waitForState(store, ticketIdFor(recent.messageId), FINAL);

    // The next sync (the state is written after the first) takes nothing again and logs no second line.
    expect(await supervisor.syncNow()).toMatchObject({ mode: 'incremental', considered: 0 });
    for (const messageId of [old.messageId, recent.messageId]) {
      const ticket = await waitForState(store, ticketIdFor(messageId), FINAL, 30_000);
      expect(ticket.state).toBe('parked');
      expect(ticket.reason).toMatch(/FIRST_START_ANSWER_HOURS=0\): a person decides whether it still needs an answer$/);
      expect(ticket.history.some((h) => h.to === 'processing')).toBe(false);
    }
    expect(modelSaw(OLD_QUESTION) || modelSaw(NEW_QUESTION)).toBe(false);
    const parkedForSize = await store.require(ticketIdFor(oversizeId));
    expect(parkedForSize.state).toBe('parked');
    expect(parkedForSize.reason).not.toMatch(/^held/);
    const firstStart = lines.filter((l) => l.msg.startsWith('First start on '));
    expect(firstStart).toHaveLength(1);
    expect(firstStart[0]).toMatchObject({ level: 30, held: 2 });
    expect(firstStart[0]!.msg).toMatch(/held 2 of 3 unseen mails for a person/);
  });
});
