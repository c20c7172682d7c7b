/**
 * The sender against the real SMTP receiver: a temporary rejection is retried and the reply arrives once; a
 * permanent rejection parks the ticket with the server's words; a ticket found in `sending` (a crash between the
 * server's acceptance and our write) is parked for a person instead of being sent again.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { sendReplyJob } from '../../src/queues/job-options.js';
import { readRoleStatus } from '../../src/runtime/role-status.js';
import { startSender } from '../../src/runtime/sender.js';
import { freePort } from '../../src/dev/ports.js';
import { hostname } from 'node:os';
import { jobGeneration } from '../../src/tickets/ticket.js';
import { replySequence } from '../../src/dev/smtp-receiver.js';
import {
  FAST_TUNING,
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

let servers: PipelineServers;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  servers = await startPipelineServers();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.smtp.clear();
  servers.smtp.respondWith(undefined);
});
afterAll(async () => {
  await servers?.stop();
});

async function run(overrides: Record<string, string> = {}, options: Parameters<typeof startRoles>[1] = {}): Promise<RunningRoles> {
  const config = parseConfig(pipelineEnv(servers, overrides));
  const running = await startRoles(config, options);
  cleanups.push(async () => {
    await running.stop();
    await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
  });
  return running;
}

function mail(tag: string): Buffer {
  return buildMail({ messageId: customerMessageId(tag), from: `${tag}@customer.example`, subject: 'パスワードについて', body: 'パスワードの条件を教えてください。' });
}

describe('sender', () => {
  it('retries after 451 and delivers exactly one reply', async () => {
    servers.smtp.respondWith(replySequence({ code: 451, message: '4.7.1 Greylisted, try again later' }));
    const running = await run();
    const { ticketId } = await ingest(running, mail('grey'));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked']);
    expect(ticket.state, ticket.reason).toBe('sent');
    expect(servers.smtp.attempts.map((a) => a.reply.code)).toEqual([451, 250]);
    expect(servers.smtp.messages).toHaveLength(1);
    // Both attempts carried the same Message-ID, stored before the first one.
    const ids = servers.smtp.attempts.map((a) => /^Message-ID:\s*(\S+)/im.exec(a.raw.toString('utf8'))?.[1]);
    expect(ids).toEqual([ticket.outbound?.messageId, ticket.outbound?.messageId]);
    expect(ticket.outbound?.smtpResponse).toMatch(/^250/);
    expect(ticket.history.map((h) => h.to)).toEqual(['received', 'processing', 'drafted', 'sending', 'drafted', 'sending', 'sent']);
  });

  it("quotes the customer's mail under a line in the reply's language, dated by the mail's Date header", async () => {
    const running = await run();
    const raw = buildMail({
      messageId: customerMessageId('dated'),
      from: `=?UTF-8?B?${Buffer.from('山田太郎').toString('base64')}?= <dated@customer.example>`,
      subject: 'パスワードについて',
      body: 'パスワードの条件を教えてください。',
      date: 'Tue, 24 Nov 2026 10:05:00 +0900',
    });
    const { ticketId } = await ingest(running, raw);
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked']);
    expect(ticket.state, ticket.reason).toBe('sent');
    const text = servers.smtp.messages[0]!.text ?? '';
    // Gmail's Japanese form, at the time the customer wrote it in the offset of their Date header (+0900), whatever
    // this process's time zone (TZ), with no zone named, as their own client shows it.
    expect(text).toContain('\n\n2026年11月24日(火) 10:05 山田太郎 <dated@customer.example>:\n> パスワードの条件を教えてください。');
  });

  it('answers a mail whose Date header is at the edge of the date range, dated when it reached us', async () => {
    const running = await run();
    const raw = buildMail({ messageId: customerMessageId('edge'), from: 'edge@customer.example', subject: 'パスワードについて', body: 'パスワードの条件を教えてください。', date: 'Sat, 13 Sep 275760 09:00:00 +0900' });
    const { ticketId } = await ingest(running, raw);
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked']);
    expect(ticket.state, ticket.reason).toBe('sent');
    expect(ticket.mailDate).toBeUndefined();
    expect(servers.smtp.messages[0]!.text ?? '').toMatch(/\n\n\d{4}年\d{1,2}月\d{1,2}日\(.\) \d\d:\d\d UTC[^\n]* edge@customer\.example:\n> パスワードの条件を教えてください。/);
  });

  it('answers a mail that had no Message-ID without naming the made-up id of its ticket', async () => {
    const running = await run();
    const raw = Buffer.from(mail('noid').toString('latin1').replace(/^Message-ID: .*\r\n/m, ''), 'latin1');
    const { ticketId } = await ingest(running, raw);
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked']);
    expect(ticket.state, ticket.reason).toBe('sent');
    const [reply] = servers.smtp.messages;
    expect(reply!.headers.get('in-reply-to')).toBeUndefined();
    expect(reply!.raw.toString('latin1')).not.toContain(ticket.messageId.replace(/^<|>$/g, ''));
  });

  it('parks the ticket with the server message on 550, without retrying', async () => {
    servers.smtp.respondWith(() => ({ code: 550, message: '5.1.1 Mailbox does not exist' }));
    const running = await run();
    const { ticketId } = await ingest(running, mail('gone'));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked']);
    await waitForState(running.store, ticketId, ['parked']);
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toContain('550');
    expect(ticket.reason).toContain('Mailbox does not exist');
    expect(servers.smtp.attempts).toHaveLength(1);
    expect(servers.smtp.messages).toHaveLength(0);
  });

  it('parks a reply whose connection dropped after the whole message was sent, instead of sending it again', async () => {
    // The server has the message (an MTA restart, an idle cut after the final dot): a retry would be a second copy.
    servers.smtp.respondWith(replySequence({ code: 250, dropConnection: true }));
    const running = await run();
    const { ticketId } = await ingest(running, mail('dropped'));
    const ticket = await waitForState(running.store, ticketId, ['parked', 'sent']);
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toMatch(/^may already have been sent/);
    expect(servers.smtp.messages).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(servers.smtp.attempts).toHaveLength(1);
    expect((await running.store.require(ticketId)).state).toBe('parked');
  });

  it('parks the reply after SENDER_ATTEMPTS temporary failures', async () => {
    servers.smtp.respondWith(() => ({ code: 421, message: '4.3.2 System not accepting messages' }));
    const running = await run({ SENDER_ATTEMPTS: '2' });
    const { ticketId } = await ingest(running, mail('busy'));
    await waitForState(running.store, ticketId, ['parked'], 10_000);
    const ticket = await running.store.require(ticketId);
    expect(ticket.reason).toMatch(/^reply not accepted after 2 attempt\(s\); last error: .*421/);
    expect(servers.smtp.attempts).toHaveLength(2);
    // 421 is the server's state, not this reply's: /readyz learns that the sender cannot use it.
    const [status, ...others] = await readRoleStatus(await running.services.producer(), running.services.config.QUEUE_PREFIX, 'sender');
    expect(others).toEqual([]);
    expect(status!.process).toBe(`${hostname()}#${process.pid}`);
    expect(status!.lastFailure?.message).toMatch(/421 4\.3\.2 System not accepting messages/);
    expect(status!.lastFailure!.at.getTime()).toBeGreaterThan(status!.reachedAt!.getTime());
  });

  it('reports for /readyz that it cannot reach the SMTP server while it waits for it, and that it reached it once it did', async () => {
    const closed = await freePort();
    const running = await run({ SMTP_PORT: String(closed) }, { sender: false });
    const redis = await running.services.producer();
    const prefix = running.services.config.QUEUE_PREFIX;
    const waiting = await startSender(running.services, { readinessRetryMs: 200 });
    cleanups.push(() => waiting.stop());
    const refused = await waitFor(async () => (await readRoleStatus(redis, prefix, 'sender'))[0]?.lastFailure, 'the refused connection reported');
    expect(refused.message).toMatch(/ECONNREFUSED/);
    expect((await readRoleStatus(redis, prefix, 'sender'))[0]!.reachedAt).toBeUndefined();
    // A sender that stops takes its report with it: it is not one that cannot send.
    await waiting.stop();
    expect(await readRoleStatus(redis, prefix, 'sender')).toEqual([]);

    // A sender that can reach the server (the same prefix, as after the admin fixed SMTP_PORT) says so.
    const again = await run({ QUEUE_PREFIX: prefix }, { sender: false });
    const fixed = await startSender(again.services, { readinessRetryMs: 200 });
    cleanups.push(() => fixed.stop());
    const reached = await waitFor(async () => (await readRoleStatus(redis, prefix, 'sender'))[0]?.reachedAt, 'the sender to report the server reached');
    expect(reached.getTime()).toBeGreaterThan(refused.at.getTime());
  });

  it('parks a ticket found in sending ("may already have been sent") instead of sending again', async () => {
    const running = await run({}, { sender: false });
    const { ticketId } = await ingest(running, mail('crash'));
    const drafted = await waitForState(running.store, ticketId, ['drafted']);
    // The state a sender leaves behind when it dies between the server's 250 and writing `sent`.
    const sending = await running.store.transition(ticketId, { from: ['drafted'], to: 'sending', actor: 'sender', note: 'attempt 1' });
    expect(jobGeneration(sending)).toBeGreaterThan(jobGeneration(drafted));

    const queues = await running.services.queues();
    const retry = sendReplyJob(running.services.config, ticketId, jobGeneration(sending), FAST_TUNING);
    await queues.outbound.add(retry.name, retry.data, retry.opts);
    const sender = await startSender(running.services, { readinessRetryMs: 200 });
    cleanups.push(() => sender.stop());
    const parked = await waitForState(running.store, ticketId, ['parked', 'sent']);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toMatch(/^may already have been sent/);
    expect(servers.smtp.attempts).toHaveLength(0);
  });
});
