/**
 * Copies of sent replies in the mailbox's Sent folder, against real Dovecot and the real SMTP receiver: the copy is
 * the bytes that went out, flagged \Seen, once; IMAP_SENT_MAILBOX names the folder, finds it by its \Sent flag when
 * unset, or turns copies off; an IMAP server that is down delays the copy, never the reply, and a copy job run again
 * after its APPEND finds the copy instead of adding a second. A sender that dies after the reply went out and before
 * its copy was queued leaves the copy to the send job's re-run, which queues it without sending anything.
 */
import { ImapFlow } from 'imapflow';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { SentFolderConnection, fileInSent, loadSentRaw, saveSentRaw } from '../../src/mail/sent-copy.js';
import { copyToSentJob, sendJobId, sentCopyJobId } from '../../src/queues/job-options.js';
import { sendReply, type SendReplyDeps } from '../../jobs/send-reply.js';
import { sentCopyQueuer } from '../../src/runtime/sender.js';
import { jobGeneration, type Ticket } from '../../src/tickets/ticket.js';
import {
  buildMail,
  customerMessageId,
  FAST_TUNING,
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
import { startTcpGate } from '../support/tcp-gate.js';

let servers: PipelineServers;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  servers = await startPipelineServers({ imap: true });
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.smtp.clear();
});
afterAll(async () => {
  await servers?.stop();
});

async function run(overrides: Record<string, string> = {}, roles: Parameters<typeof startRoles>[1] = {}): Promise<RunningRoles> {
  const config = parseConfig(pipelineEnv(servers, overrides));
  return runWith(config, roles);
}

async function runWith(config: ReturnType<typeof parseConfig>, roles: Parameters<typeof startRoles>[1] = {}): Promise<RunningRoles> {
  const running = await startRoles(config, roles);
  cleanups.push(async () => {
    await running.stop();
    await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
  });
  return running;
}

/** Ingests a customer mail and waits for its reply to be sent; returns the ticket as sent and the bytes received. */
async function sendOne(running: RunningRoles, tag: string): Promise<{ ticket: Ticket; received: Buffer }> {
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(tag), from: `${tag}@customer.example`, subject: 'パスワードについて', body: 'パスワードの条件を教えてください。' }));
  const ticket = await waitForState(running.store, ticketId, ['sent', 'parked', 'failed', 'ignored']);
  expect(ticket.state, ticket.reason).toBe('sent');
  const received = servers.smtp.messages.filter((m) => m.parsed.messageId === ticket.outbound?.messageId);
  expect(received).toHaveLength(1);
  return { ticket, received: received[0]!.raw };
}

/** Waits until the ticket records its Sent-folder copy. */
async function waitForCopy(running: RunningRoles, ticketId: string, timeoutMs = 20_000): Promise<NonNullable<Ticket['outbound']>['sentCopy']> {
  return waitFor(async () => (await running.store.get(ticketId))?.outbound?.sentCopy, 'the copy in the Sent folder to be recorded', timeoutMs);
}

/** The messages in `mailbox` carrying `messageId`, with their bytes and flags, read over a connection of the test's own. */
async function copiesIn(mailbox: string, messageId: string): Promise<{ source: Buffer; flags: Set<string> }[]> {
  const imap = servers.imap!;
  const client = new ImapFlow({ host: imap.host, port: imap.port, secure: false, auth: { user: imap.user, pass: imap.password }, logger: false });
  await client.connect();
  try {
    const lock = await client.getMailboxLock(mailbox, { readOnly: true });
    try {
      const uids = await client.search({ header: { 'message-id': messageId } }, { uid: true });
      if (!Array.isArray(uids) || uids.length === 0) return [];
      const copies: { source: Buffer; flags: Set<string> }[] = [];
      for await (const m of client.fetch(uids, { source: true, flags: true }, { uid: true })) copies.push({ source: m.source!, flags: m.flags ?? new Set() });
      return copies;
    } finally {
      lock.release();
    }
  } finally {
    await client.logout();
  }
}

describe('copies of sent replies in the Sent folder', () => {
  it('finds the folder flagged \\Sent when IMAP_SENT_MAILBOX is unset and files the sent bytes there once, \\Seen', async () => {
    const running = await run();
    const { ticket, received } = await sendOne(running, 'auto');
    const copy = await waitForCopy(running, ticket.id);
    expect(copy?.mailbox).toBe('Sent');
    const copies = await copiesIn('Sent', ticket.outbound!.messageId);
    expect(copies).toHaveLength(1);
    expect(copies[0]!.source.equals(received)).toBe(true);
    expect([...copies[0]!.flags]).toContain('\\Seen');
    // Filed: the bytes are not kept any longer.
    expect(await loadSentRaw(await running.services.producer(), running.services.config.QUEUE_PREFIX, ticket.id)).toBeUndefined();
  });

  it('a copy job run again after its APPEND (the ticket never recorded it) finds the copy instead of adding another', async () => {
    const running = await run();
    const { ticket, received } = await sendOne(running, 'again');
    await waitForCopy(running, ticket.id);
    // The state a sender leaves behind when it dies between the APPEND and recording the copy on the ticket.
    const current = await running.store.require(ticket.id);
    const { sentCopy: _recorded, ...outbound } = current.outbound!;
    await running.store.update(ticket.id, { outbound });
    const redis = await running.services.producer();
    await saveSentRaw(redis, running.services.config.QUEUE_PREFIX, ticket.id, received);
    const retry = copyToSentJob(ticket.id, jobGeneration(current) + 1, FAST_TUNING);
    const queues = await running.services.queues();
    const added = await queues.sentcopy.add(retry.name, retry.data, retry.opts);
    const done = await waitFor(async () => {
      const job = await queues.sentcopy.getJob(added.id!);
      return job?.finishedOn ? job : undefined;
    }, 'the repeated copy job to finish');
    expect(done.failedReason).toBeUndefined();
    expect(done.returnvalue).toMatchObject({ outcome: 'found', mailbox: 'Sent' });
    expect((await running.store.require(ticket.id)).outbound?.sentCopy?.mailbox).toBe('Sent');
    expect(await copiesIn('Sent', ticket.outbound!.messageId)).toHaveLength(1);
  });

  it('files the copy in the mailbox IMAP_SENT_MAILBOX names', async () => {
    await servers.imap!.createMailbox('Support Replies');
    const running = await run({ IMAP_SENT_MAILBOX: 'Support Replies' });
    const { ticket, received } = await sendOne(running, 'named');
    expect((await waitForCopy(running, ticket.id))?.mailbox).toBe('Support Replies');
    const copies = await copiesIn('Support Replies', ticket.outbound!.messageId);
    expect(copies).toHaveLength(1);
    expect(copies[0]!.source.equals(received)).toBe(true);
    expect(await copiesIn('Sent', ticket.outbound!.messageId)).toHaveLength(0);
  });

  it('makes no copy with IMAP_SENT_MAILBOX=off', async () => {
    const running = await run({ IMAP_SENT_MAILBOX: 'off' });
    const { ticket } = await sendOne(running, 'off');
    const queues = await running.services.queues();
    // The copy would be queued by the send job before it completes.
    await waitFor(async () => (await queues.outbound.getJobCounts('completed')).completed === 1, 'the send job to complete');
    expect(await queues.sentcopy.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed')).toEqual({ waiting: 0, active: 0, delayed: 0, completed: 0, failed: 0 });
    expect(await loadSentRaw(await running.services.producer(), running.services.config.QUEUE_PREFIX, ticket.id)).toBeUndefined();
    expect(await copiesIn('Sent', ticket.outbound!.messageId)).toHaveLength(0);
    expect((await running.store.require(ticket.id)).outbound?.sentCopy).toBeUndefined();
  });

  it('sends the reply once while IMAP is down and files one copy when IMAP is back', async () => {
    const imap = servers.imap!;
    const gate = await startTcpGate({ host: imap.host, port: imap.port });
    cleanups.push(() => gate.close());
    await gate.close();
    const running = await run({ IMAP_PORT: String(gate.port) });
    const { ticket, received } = await sendOne(running, 'down');
    const queues = await running.services.queues();
    // At least one copy attempt failed against the closed port.
    await waitFor(async () => {
      const [job] = await queues.sentcopy.getJobs(['delayed', 'waiting', 'active', 'failed']);
      return job && job.attemptsMade >= 1;
    }, 'a copy attempt to fail while IMAP is down');
    expect(await copiesIn('Sent', ticket.outbound!.messageId)).toHaveLength(0);

    await gate.open();
    await waitForCopy(running, ticket.id);
    const copies = await copiesIn('Sent', ticket.outbound!.messageId);
    expect(copies).toHaveLength(1);
    expect(copies[0]!.source.equals(received)).toBe(true);
    expect(servers.smtp.messages.filter((m) => m.parsed.messageId === ticket.outbound?.messageId)).toHaveLength(1);
    expect((await running.store.require(ticket.id)).history.map((h) => h.to)).toEqual(['received', 'processing', 'drafted', 'sending', 'sent']);
  });
});

describe('the Sent-folder copy of a reply whose sender died after sending it', () => {
  /** An agent worker drafts a reply; nothing sends it but the test's own runs of `send-reply`. */
  async function drafted(tag: string): Promise<{ running: RunningRoles; ticket: Ticket }> {
    const running = await run({}, { sender: false });
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(tag), from: `${tag}@customer.example`, subject: 'パスワードについて', body: 'パスワードの条件を教えてください。' }));
    const ticket = await waitForState(running.store, ticketId, ['drafted', 'parked', 'failed', 'ignored']);
    expect(ticket.state, ticket.reason).toBe('drafted');
    return { running, ticket };
  }

  /** The sender's dependencies as the sender role builds them, copies on. */
  async function senderDeps(running: RunningRoles): Promise<SendReplyDeps> {
    const { services } = running;
    const redis = await services.producer();
    return {
      config: services.config,
      store: running.store,
      redis,
      smtp: services.smtp(),
      sentCopy: sentCopyQueuer(redis, services.config.QUEUE_PREFIX, (await services.queues()).sentcopy, FAST_TUNING),
    };
  }

  /** `deps` whose step that queues the copy never returns: the process died there. `reached` resolves when it got there. */
  function dyingAtCopyQueue(deps: SendReplyDeps): { deps: SendReplyDeps; reached: Promise<void> } {
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    return {
      deps: {
        ...deps,
        sentCopy: {
          ...deps.sentCopy!,
          queue: () => {
            arrived();
            return new Promise<never>(() => undefined);
          },
        },
      },
      reached,
    };
  }

  /** One run of the ticket's `send-reply` job, as the sender's worker calls it. */
  const attempt = (ticket: Ticket, attemptsMade: number) => ({ attemptsMade, attempts: 3, jobId: sendJobId(ticket.id, jobGeneration(ticket)) });

  it("the send job's re-run after a crash before the copy was queued queues it, and the reply is filed in Sent once", async () => {
    const { running, ticket } = await drafted('crash');
    const deps = await senderDeps(running);
    const queues = await running.services.queues();

    // The first run sends the reply and dies before its copy is queued; BullMQ later hands the stalled job on.
    const dying = dyingAtCopyQueue(deps);
    void sendReply({ ticketId: ticket.id }, dying.deps, attempt(ticket, 0));
    await dying.reached;
    const sent = await running.store.require(ticket.id);
    expect(sent.state).toBe('sent');
    expect(servers.smtp.messages.filter((m) => m.parsed.messageId === sent.outbound?.messageId)).toHaveLength(1);
    const copyJobId = sentCopyJobId(ticket.id, jobGeneration(sent));
    expect(await queues.sentcopy.getJob(copyJobId)).toBeUndefined();

    // The re-run sends nothing and queues the copy.
    expect(await sendReply({ ticketId: ticket.id }, deps, attempt(ticket, 1))).toMatchObject({ outcome: 'skipped', state: 'sent' });
    expect(servers.smtp.messages.filter((m) => m.parsed.messageId === sent.outbound?.messageId)).toHaveLength(1);
    expect(await queues.sentcopy.getJob(copyJobId), 'the copy job queued by the re-run').toBeDefined();

    // The sender role files it: once, the bytes that went out.
    const sender = await runWith(running.services.config, { agent: false });
    expect((await waitForCopy(sender, ticket.id))?.mailbox).toBe('Sent');
    const received = servers.smtp.messages.filter((m) => m.parsed.messageId === sent.outbound?.messageId);
    expect(received).toHaveLength(1);
    const copies = await copiesIn('Sent', sent.outbound!.messageId);
    expect(copies).toHaveLength(1);
    expect(copies[0]!.source.equals(received[0]!.raw)).toBe(true);

    // A run after the copy was recorded queues nothing, even with the bytes back (a copy job that died before deleting them).
    await queues.sentcopy.remove(copyJobId);
    await saveSentRaw(await running.services.producer(), running.services.config.QUEUE_PREFIX, ticket.id, received[0]!.raw);
    expect(await sendReply({ ticketId: ticket.id }, deps, attempt(ticket, 2))).toMatchObject({ outcome: 'skipped', state: 'sent' });
    expect(await queues.sentcopy.getJob(copyJobId)).toBeUndefined();
    expect(await copiesIn('Sent', sent.outbound!.messageId)).toHaveLength(1);
  }, 60_000);

  it('a normal send keeps the bytes that went out and queues exactly one copy job; a repeated run adds none', async () => {
    const { running, ticket } = await drafted('normal');
    const deps = await senderDeps(running);
    const queues = await running.services.queues();
    const outcome = await sendReply({ ticketId: ticket.id }, deps, attempt(ticket, 0));
    expect(outcome.outcome).toBe('sent');
    const sent = await running.store.require(ticket.id);
    const received = servers.smtp.messages.filter((m) => m.parsed.messageId === sent.outbound?.messageId);
    expect(received).toHaveLength(1);
    expect((await loadSentRaw(await running.services.producer(), running.services.config.QUEUE_PREFIX, ticket.id))?.equals(received[0]!.raw)).toBe(true);
    const copyJobs = async () => queues.sentcopy.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
    expect((await copyJobs()).map((j) => j.id)).toEqual([sentCopyJobId(ticket.id, jobGeneration(sent))]);

    expect(await sendReply({ ticketId: ticket.id }, deps, attempt(ticket, 1))).toMatchObject({ outcome: 'skipped', state: 'sent' });
    expect((await copyJobs()).map((j) => j.id)).toEqual([sentCopyJobId(ticket.id, jobGeneration(sent))]);
    expect(servers.smtp.messages.filter((m) => m.parsed.messageId === sent.outbound?.messageId)).toHaveLength(1);
  }, 60_000);
});

// nodemailer writes an all-ASCII reply 7bit with the line ends it is given, and SMTP's DATA stream turns a bare LF into
// CRLF: a copy of bare-LF bytes would differ from what the server received, and servers refusing bare newlines
// (Cyrus) would refuse it. Japanese replies are base64, CRLF either way; this is the English one.
describe('the Sent-folder copy of an English reply', () => {
  it('files the very bytes SMTP received, CRLF throughout', async () => {
    const running = await run({}, { agent: false, sender: false });
    const { ticketId } = await ingest(
      running,
      buildMail({ messageId: customerMessageId('english'), from: 'Ann <ann@customer.example>', subject: 'Password rules', body: 'What are the password rules?\r\nThanks,\r\nAnn' }),
    );
    // The draft an agent would write, in English: the reply and its quote are ASCII only.
    await running.store.transition(ticketId, { from: ['received'], to: 'processing', actor: 'test' });
    await running.store.transition(ticketId, { from: ['processing'], to: 'drafted', actor: 'test', patch: { draft: 'Thank you for your message.\n\nA password needs 12 characters.\n\nBest regards,\nSupport' } });
    const { services } = running;
    const redis = await services.producer();
    const ticket = await running.store.require(ticketId);
    const outcome = await sendReply(
      { ticketId },
      { config: services.config, store: running.store, redis, smtp: services.smtp(), sentCopy: sentCopyQueuer(redis, services.config.QUEUE_PREFIX, (await services.queues()).sentcopy, FAST_TUNING) },
      { attemptsMade: 0, attempts: 3, jobId: sendJobId(ticket.id, jobGeneration(ticket)) },
    );
    expect(outcome.outcome).toBe('sent');
    const sent = await running.store.require(ticketId);
    const received = servers.smtp.messages.filter((m) => m.parsed.messageId === sent.outbound?.messageId);
    expect(received).toHaveLength(1);
    const wire = received[0]!.raw.toString('latin1');
    expect(wire).toMatch(/\r\nContent-Transfer-Encoding: 7bit\r\n/i);
    expect(wire).toContain('\r\nTo: Ann <ann@customer.example>\r\n');
    // The bytes kept for the copy are those the server received.
    expect((await loadSentRaw(redis, services.config.QUEUE_PREFIX, ticketId))?.equals(received[0]!.raw)).toBe(true);

    // The sender role files the copy the send job queued.
    const sender = await runWith(services.config, { agent: false });
    expect((await waitForCopy(sender, ticketId))?.mailbox).toBe('Sent');
    const copies = await copiesIn('Sent', sent.outbound!.messageId);
    expect(copies).toHaveLength(1);
    expect(copies[0]!.source.toString('latin1')).not.toMatch(/(?<!\r)\n/);
    expect(copies[0]!.source.equals(received[0]!.raw)).toBe(true);
  }, 60_000);
});

describe('the Sent-folder connection', () => {
  const copyConfig = () => parseConfig(pipelineEnv(servers));
  const copyBytes = (messageId: string) =>
    Buffer.from(`From: support@helpdesk.test\r\nTo: c@customer.example\r\nSubject: copy\r\nMessage-ID: ${messageId}\r\n\r\nbody\r\n`);

  it('files a burst of copies over one login, logs out after a quiet spell, and logs in again for the next copy', async () => {
    const connection = new SentFolderConnection(copyConfig(), { mode: 'auto' }, { idleMs: 300 });
    cleanups.push(() => connection.close());
    const ids = [1, 2, 3].map((i) => `<burst-${i}-${Date.now()}@helpdesk.test>`);
    const filed = await Promise.all(ids.map((id) => connection.use((client, mailbox) => fileInSent(client, mailbox, copyBytes(id), id, new Date()))));
    expect(filed.map((f) => f.appended)).toEqual([true, true, true]);
    expect(filed.map((f) => f.mailbox)).toEqual(['Sent', 'Sent', 'Sent']);
    expect(connection.logins).toBe(1);
    for (const id of ids) expect(await copiesIn('Sent', id)).toHaveLength(1);

    await waitFor(async () => !connection.open || undefined, 'the quiet connection to be logged out', 5000);
    const later = `<later-${Date.now()}@helpdesk.test>`;
    expect((await connection.use((client, mailbox) => fileInSent(client, mailbox, copyBytes(later), later, new Date()))).appended).toBe(true);
    expect(connection.logins).toBe(2);
  });

  it('looks for an earlier copy among the messages that arrived since shortly before the send, not the whole folder', async () => {
    const connection = new SentFolderConnection(copyConfig(), { mode: 'named', mailbox: 'Sent' });
    cleanups.push(() => connection.close());
    const day = 24 * 60 * 60 * 1000;
    // A copy filed now is found by a retry days later: the window starts before the send, not before the retry.
    const recent = `<recent-${Date.now()}@helpdesk.test>`;
    expect((await connection.use((client, mailbox) => fileInSent(client, mailbox, copyBytes(recent), recent, new Date()))).appended).toBe(true);
    expect((await connection.use((client, mailbox) => fileInSent(client, mailbox, copyBytes(recent), recent, new Date(Date.now() - day)))).appended).toBe(false);
    expect(await copiesIn('Sent', recent)).toHaveLength(1);
    // A message that arrived a month before the send is outside the search, so it is not taken for this reply's copy.
    const old = `<old-${Date.now()}@helpdesk.test>`;
    await connection.use(async (client, mailbox) => {
      expect(await client.append(mailbox, copyBytes(old), ['\\Seen'], new Date(Date.now() - 30 * day))).toBeTruthy();
    });
    expect((await connection.use((client, mailbox) => fileInSent(client, mailbox, copyBytes(old), old, new Date()))).appended).toBe(true);
    expect(await copiesIn('Sent', old)).toHaveLength(2);
  });

  it('drops the connection after a failed copy, so the retry starts from a fresh login', async () => {
    const connection = new SentFolderConnection(copyConfig(), { mode: 'named', mailbox: 'Sent' });
    cleanups.push(() => connection.close());
    await expect(connection.use(async () => Promise.reject(new Error('broken mid-command')))).rejects.toThrow('broken mid-command');
    expect(connection.open).toBe(false);
    const id = `<after-error-${Date.now()}@helpdesk.test>`;
    expect((await connection.use((client, mailbox) => fileInSent(client, mailbox, copyBytes(id), id, new Date()))).appended).toBe(true);
    expect(connection.logins).toBe(2);
    await connection.close();
    await expect(connection.use(async () => 'late')).rejects.toThrow(/closed/);
  });
});
