/**
 * A reply the SMTP server accepted and that bounced afterwards: the bounce is ignored as before, and the replied
 * ticket is marked so the operator sees that the customer has no answer (the review page's start page and the
 * ticket's page, the counter). Real roles, the real SMTP receiver, Redis and the dashboard over HTTP.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createDashboardApp } from '../../src/server/app.js';
import { metricsKeys } from '../../src/server/metrics.js';
import { forgetCustomer } from '../../src/tickets/retention.js';
import { readInsights } from '../../src/tickets/insights.js';
import { DEFAULT_PRICES } from '../../src/agent/prices.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Ticket } from '../../src/tickets/ticket.js';
import { buildMail, customerMessageId, ingest, pipelineEnv, removePrefix, startPipelineServers, startRoles, waitFor, waitForState, type PipelineServers, type RunningRoles } from '../support/pipeline.js';

let servers: PipelineServers;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  servers = await startPipelineServers();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.smtp.clear();
});
afterAll(async () => {
  await servers?.stop();
});

async function run(): Promise<RunningRoles> {
  const config = parseConfig(pipelineEnv(servers));
  const running = await startRoles(config);
  cleanups.push(async () => {
    await running.stop();
    await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
  });
  return running;
}

/** A customer's question, answered and sent; returns its ticket as sent. */
async function answered(running: RunningRoles, tag: string): Promise<Ticket> {
  const raw = buildMail({ messageId: customerMessageId(tag), from: `${tag}@customer.example`, subject: 'パスワードについて', body: 'パスワードの条件を教えてください。' });
  const { ticketId } = await ingest(running, raw);
  const ticket = await waitForState(running.store, ticketId, ['sent', 'parked']);
  expect(ticket.state, ticket.reason).toBe('sent');
  return ticket;
}

/** The part of a report that quotes our reply's headers, as bounces and read receipts both attach it. */
function quotedReplyHeaders(replyMessageId: string, recipient: string): string[] {
  return ['Content-Type: text/rfc822-headers', '', 'From: XYZ Support <support@support.example>', `To: ${recipient}`, 'Subject: Re: パスワードについて', `Message-ID: ${replyMessageId}`, ''];
}

/** An RFC 3464 bounce of `replyMessageId`, as Postfix writes one. */
function dsn(tag: string, replyMessageId: string, recipient: string, action: 'failed' | 'delayed'): Buffer {
  const status = action === 'failed' ? '5.1.1' : '4.4.1';
  const body = [
    '--dsn',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    action === 'failed' ? 'I\'m sorry to have to inform you that your message could not be delivered.' : 'This is a warning message only. Delivery has been delayed.',
    '',
    '--dsn',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.customer.example',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    `Action: ${action}`,
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${action === 'failed' ? '550 5.1.1 <' + recipient + '>: Recipient address rejected: User unknown' : '451 4.4.1 connection timed out'}`,
    '',
    '--dsn',
    ...quotedReplyHeaders(replyMessageId, recipient),
    '--dsn--',
    '',
  ].join('\n');
  return buildMail({
    messageId: customerMessageId(`dsn-${tag}`),
    from: 'MAILER-DAEMON@mx.customer.example (Mail Delivery System)',
    subject: 'Undelivered Mail Returned to Sender',
    body: '',
    headers: { 'Auto-Submitted': 'auto-replied' },
    rawBody: { contentType: 'multipart/report; report-type=delivery-status; boundary=dsn', body },
  });
}

/** A read receipt (RFC 8098) of `replyMessageId`, as Thunderbird sends one: the reply's headers quoted as in a bounce. */
function readReceipt(tag: string, replyMessageId: string, recipient: string): Buffer {
  const body = [
    '--mdn',
    'Content-Type: text/plain; charset=UTF-8',
    '',
    `This is a Return Receipt for the mail that you sent to ${recipient}.`,
    '',
    '--mdn',
    'Content-Type: message/disposition-notification',
    '',
    'Reporting-UA: customer.example; Thunderbird 128.0',
    `Final-Recipient: rfc822;${recipient}`,
    `Original-Message-ID: ${replyMessageId}`,
    'Disposition: manual-action/MDN-sent-manually; displayed',
    '',
    '--mdn',
    ...quotedReplyHeaders(replyMessageId, recipient),
    '--mdn--',
    '',
  ].join('\n');
  return buildMail({
    messageId: customerMessageId(`mdn-${tag}`),
    from: recipient,
    subject: 'Return Receipt (displayed) - Re: パスワードについて',
    body: '',
    rawBody: { contentType: 'multipart/report; report-type=disposition-notification; boundary=mdn', body },
  });
}

async function dashboardPage(running: RunningRoles, pathname = '/'): Promise<string> {
  const app = createDashboardApp({ config: running.services.config, redis: await running.services.producer(), store: running.store, queues: await running.services.queues() });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${pathname}`);
    expect(res.status).toBe(200);
    return await res.text();
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const bouncedCount = async (running: RunningRoles): Promise<number> =>
  Number((await (await running.services.producer()).hget(metricsKeys(running.services.config.QUEUE_PREFIX).counters, 'replies_bounced')) ?? 0);

describe('a bounce of our reply', () => {
  it('is ignored and marks the reply it names as not arrived, once, for the operator to see', async () => {
    const running = await run();
    const replied = await answered(running, 'gone');
    const replyId = replied.outbound!.messageId;

    const first = await ingest(running, dsn('1', replyId, 'gone@customer.example', 'failed'));
    const report = await waitForState(running.store, first.ticketId, ['ignored', 'parked', 'sent', 'drafted']);
    expect(report.state).toBe('ignored');
    expect(report.reason).toContain(`our reply of ticket ${replied.id} did not arrive`);

    const marked = await running.store.require(replied.id);
    expect(marked.state).toBe('sent');
    expect(marked.replyBounce).toMatchObject({
      reportTicketId: first.ticketId,
      recipient: 'gone@customer.example',
      status: '5.1.1',
      diagnostic: '550 5.1.1 <gone@customer.example>: Recipient address rejected: User unknown',
    });
    expect((await running.store.bouncedReplies(10)).tickets.map((t) => t.id)).toEqual([replied.id]);
    await waitFor(async () => (await bouncedCount(running)) === 1, 'the bounced-replies counter');
    const insights = async () => (await readInsights(await running.services.producer(), running.services.config.QUEUE_PREFIX, { days: 1, prices: DEFAULT_PRICES })).totals;
    expect(await insights()).toMatchObject({ bounced: 1, answered: 1 });

    // A second report of the same reply changes nothing and is not counted again.
    const second = await ingest(running, dsn('2', replyId, 'gone@customer.example', 'failed'));
    expect((await waitForState(running.store, second.ticketId, ['ignored'])).reason).toContain(replied.id);
    expect((await running.store.require(replied.id)).replyBounce?.reportTicketId).toBe(first.ticketId);
    expect(await bouncedCount(running)).toBe(1);
    expect((await insights()).bounced).toBe(1);

    const page = await dashboardPage(running);
    expect(page).toContain('Replies that did not arrive');
    expect(await dashboardPage(running, '/insights')).toMatch(/Replies bounced<\/div><div class="tile-value">1</);
    expect(page).toContain(`/tickets/${replied.id}`);
    expect(page).toContain('5.1.1 550 5.1.1');
    const detail = await dashboardPage(running, `/tickets/${replied.id}`);
    expect(detail).toContain('Our reply did not arrive');
    expect(detail).toContain(`/tickets/${first.ticketId}`);
    // The bounce's own page links back to the reply it reports.
    expect(await dashboardPage(running, `/tickets/${first.ticketId}`)).toContain(`<a href="/tickets/${replied.id}"`);
    // Nothing was sent to the mailer daemon.
    expect(servers.smtp.messages).toHaveLength(1);
  });

  it('the Sent-folder copy, written from a copy of the ticket read before the bounce, keeps the bounce', async () => {
    const running = await run();
    const replied = await answered(running, 'copied');
    // What jobs/copy-to-sent.ts does: read the ticket, APPEND (meanwhile the bounce is read), record the copy.
    const beforeBounce = await running.store.require(replied.id);
    const report = await ingest(running, dsn('7', replied.outbound!.messageId, 'copied@customer.example', 'failed'));
    await waitForState(running.store, report.ticketId, ['ignored']);
    await running.store.update(replied.id, { outbound: { ...beforeBounce.outbound!, sentCopy: { mailbox: 'Sent', at: new Date().toISOString() } } });
    const after = await running.store.require(replied.id);
    expect(after.outbound?.sentCopy?.mailbox).toBe('Sent');
    expect(after.replyBounce?.reportTicketId).toBe(report.ticketId);
  });

  it('a delay notice, a read receipt, or a bounce of mail that is not ours, marks nothing', async () => {
    const running = await run();
    const replied = await answered(running, 'slow');
    const delayed = await ingest(running, dsn('3', replied.outbound!.messageId, 'slow@customer.example', 'delayed'));
    const opened = await ingest(running, readReceipt('3', replied.outbound!.messageId, 'slow@customer.example'));
    const foreign = await ingest(running, dsn('4', '<not-ours@elsewhere.example>', 'x@customer.example', 'failed'));
    // The customer's own mail is linked in the same index as our replies: a bounce naming it is not a bounce of ours.
    const own = await ingest(running, dsn('5', replied.messageId, 'slow@customer.example', 'failed'));
    for (const { ticketId } of [delayed, opened, foreign, own]) {
      const ticket = await waitForState(running.store, ticketId, ['ignored', 'parked', 'sent', 'drafted']);
      expect(ticket.state).toBe('ignored');
      expect(ticket.reason).not.toContain('did not arrive');
    }
    expect((await running.store.require(replied.id)).replyBounce).toBeUndefined();
    expect((await running.store.bouncedReplies(10)).total).toBe(0);
    expect(await dashboardPage(running)).not.toContain('Replies that did not arrive');
  });

  it("erasing the customer takes the bounce with it, which quotes the mail to them, and the reply's place in the list", async () => {
    const running = await run();
    const replied = await answered(running, 'erase');
    const bounce = await ingest(running, dsn('6', replied.outbound!.messageId, 'erase@customer.example', 'failed'));
    await waitForState(running.store, bounce.ticketId, ['ignored']);
    expect((await running.store.bouncedReplies(10)).total).toBe(1);
    const archiveDir = await mkdtemp(path.join(tmpdir(), 'bounce-forget-'));
    cleanups.push(() => rm(archiveDir, { recursive: true, force: true }));
    const deps = { redis: await running.services.producer(), store: running.store, prefix: running.services.config.QUEUE_PREFIX, archiveDir };
    const report = await forgetCustomer(deps, 'erase@customer.example', { confirm: true });
    expect(report.tickets.map((t) => t.id).sort()).toEqual([replied.id, bounce.ticketId].sort());
    expect(await running.store.get(bounce.ticketId)).toBeUndefined();
    expect(await (await running.services.producer()).zcard(running.store.keys().bounced)).toBe(0);
  });

  // qmail and others write their bounce as prose: no delivery-status part names the recipient, yet it quotes the
  // reply to the customer. It is found through the reply it marked.
  it('erasing the customer takes a prose bounce of the reply to them too', async () => {
    const running = await run();
    const replied = await answered(running, 'prose');
    const prose = [
      'Hi. This is the qmail-send program at mx.customer.example.',
      "I'm afraid I wasn't able to deliver your message to the following addresses.",
      "This is a permanent error; I've given up. Sorry it didn't work out.",
      '',
      '<prose@customer.example>:',
      'Sorry, no mailbox here by that name. (#5.1.1)',
      '',
      '--- Below this line is a copy of the message.',
      '',
      'From: XYZ Support <support@support.example>',
      'To: prose@customer.example',
      'Subject: Re: パスワードについて',
      `Message-ID: ${replied.outbound!.messageId}`,
      '',
      '> パスワードの条件を教えてください。',
    ].join('\n');
    const bounce = await ingest(running, buildMail({ messageId: customerMessageId('qmail'), from: 'MAILER-DAEMON@mx.customer.example', subject: 'failure notice', body: prose }));
    await waitForState(running.store, bounce.ticketId, ['ignored']);
    expect((await running.store.require(replied.id)).replyBounce?.reportTicketId).toBe(bounce.ticketId);
    const archiveDir = await mkdtemp(path.join(tmpdir(), 'bounce-forget-'));
    cleanups.push(() => rm(archiveDir, { recursive: true, force: true }));
    const deps = { redis: await running.services.producer(), store: running.store, prefix: running.services.config.QUEUE_PREFIX, archiveDir };
    const report = await forgetCustomer(deps, 'prose@customer.example', { confirm: true });
    expect(report.tickets.map((t) => t.id).sort()).toEqual([replied.id, bounce.ticketId].sort());
    expect(await running.store.get(bounce.ticketId)).toBeUndefined();
  });
});
