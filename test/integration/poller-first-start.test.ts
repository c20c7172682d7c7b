/**
 * The poller's first start against an existing support mailbox, the whole pipeline in one process (real Dovecot,
 * redis-server and SMTP receiver, the scripted model over HTTP): unseen mail the server received long before the
 * first start is ticketed but parked for a person, with no agent run and no reply, while recent unseen mail is
 * answered as always. Only the first start holds mail: after a UIDVALIDITY change, or on a restart with sync state,
 * unseen mail is what arrived while the poller was away and is answered.
 */
import { randomUUID } from 'node:crypto';
import { ImapFlow } from 'imapflow';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { answerJobId } from '../../src/queues/job-options.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues } from '../../src/queues/registry.js';
import { MailboxSupervisor, mailboxStateKey } from '../../src/runtime/poller.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { jobGeneration, ticketIdFor } from '../../src/tickets/ticket.js';
import {
  buildMail,
  customerMessageId,
  pipelineEnv,
  removePrefix,
  startPipelineServers,
  startRoles,
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
    expect(held.reason).toMatch(/^held: no sync state for this mailbox yet \(a first start, or Redis lost it\); it arrived 4 months earlier, on \d{4}-\d\d-\d\d \d\d:\d\d UTC \(FIRST_START_ANSWER_HOURS=24\): a person decides whether it still needs an answer$/);
    // The whole mail is kept, so a person can read it and let the agent draft a reply (rerun) after all.
    expect(held.question).toBe(OLD_QUESTION);
    expect(held.rawRef).toBeTruthy();
    expect(held.history.map((h) => h.to)).toEqual(['parked']);
    const tickets = (await running.services.queues()).tickets;
    expect(await tickets.getJob(answerJobId(held.id, jobGeneration(held)))).toBeUndefined();
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

  it('with FIRST_START_ANSWER_HOURS=0 holds all of it, and says in one info line how many it held', async () => {
    const { mailbox, config: base, old, recent } = await mailboxWithBacklog();
    const config = { ...base, FIRST_START_ANSWER_HOURS: 0, MAX_EMAIL_BYTES: 64 * 1024 };
    // Parked for its size whenever it came: not one the first start held, so not counted as held.
    const oversizeId = customerMessageId('oversize');
    const oversizeAt = new Date(Date.now() - 120 * DAY_MS);
    const oversize = buildMail({ messageId: oversizeId, from: 'Log Sender <logs@customer.example>', subject: 'ログ', body: 'log line\n'.repeat(10_000), date: oversizeAt.toUTCString() });
    await appendReceivedAt(mailbox, oversize, oversizeAt);
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
      const ticket = await store.require(ticketIdFor(messageId));
      expect(ticket.state).toBe('parked');
      expect(ticket.reason).toMatch(/FIRST_START_ANSWER_HOURS=0\): a person decides whether it still needs an answer$/);
    }
    const parkedForSize = await store.require(ticketIdFor(oversizeId));
    expect(parkedForSize.state).toBe('parked');
    expect(parkedForSize.reason).not.toMatch(/^held/);
    expect(await queues.tickets.getJobCounts()).toMatchObject({ waiting: 0, active: 0, delayed: 0, completed: 0 });
    const firstStart = lines.filter((l) => l.msg.startsWith('First start on '));
    expect(firstStart).toHaveLength(1);
    expect(firstStart[0]).toMatchObject({ level: 30, held: 2 });
    expect(firstStart[0]!.msg).toMatch(/held 2 of 3 unseen mails for a person/);
  });
});
