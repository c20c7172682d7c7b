/**
 * Mail held for a person at ingest (the poller's first start found it long unread, or a raw-mail budget kept no raw
 * copy of it) still goes through every check before the agent: what the checks ignore on any day ends ignored (a
 * bounce marking our reply), and what they park carries their reason beside the hold. Only then, where the limits and
 * the agent would run, is it parked with the hold: no agent run, no reply, and a person's rerun is for review. Real
 * Redis, BullMQ and SMTP catcher; the scripted model server; the agent worker's own handler.
 */
import { describe, expect, it } from 'vitest';
import { ignoreKindOf } from '../../src/mail/classify.js';
import { ingestMessage, type IngestOptions } from '../../src/mail/ingest.js';
import { rerunAgent, rerunReason } from '../../src/tickets/review.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import { buildMail, customerMessageId, FAST_TUNING, ingest, waitFor, waitForState, type RunningRoles } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();
const FINAL = ['sent', 'parked', 'ignored', 'failed'] as const;
const HOLD = 'held: no sync state for this mailbox yet (a first start, or Redis lost it); it arrived 4 months earlier: a person decides whether it still needs an answer';

/** How a mail is held: the first start's hold, or a raw copy no budget let in (every sender's budget is one byte). */
const HOLDS: Array<{ how: string; options: IngestOptions; refuse: boolean; reason: RegExp }> = [
  { how: "at the poller's first start", options: { hold: HOLD }, refuse: false, reason: /^held: no sync state/ },
  { how: 'its raw copy refused by a budget', options: { place: 'INBOX/7' }, refuse: true, reason: /^raw mail not kept: .*RAW_MAIL_BYTES_PER_SENDER_PER_HOUR.*INBOX\/7/ },
];

async function ingestHeld(running: RunningRoles, raw: Buffer, hold: (typeof HOLDS)[number]) {
  const { services } = running;
  const config = hold.refuse ? { ...services.config, RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: 1 } : services.config;
  const deps = { redis: await services.producer(), store: running.store, ticketsQueue: (await services.queues()).tickets, prefix: services.config.QUEUE_PREFIX, config, tuning: FAST_TUNING };
  return ingestMessage(raw, deps, hold.options);
}

function modelSaw(text: string): boolean {
  return suite.servers.llm.chatRequests().some((r) => JSON.stringify(r.body).includes(text));
}

function neverRan(ticket: Ticket): boolean {
  return !ticket.history.some((h) => h.to === 'processing');
}

const MAILS: Array<{ what: string; from: string; subject: string; body: string; headers?: Record<string, string>; ends: 'ignored' | 'parked'; kind?: string; own?: RegExp }> = [
  { what: 'an out-of-office reply', from: 'away@other.example', subject: '不在通知: お問い合わせ', body: '現在不在にしております。', headers: { 'Auto-Submitted': 'auto-replied' }, ends: 'ignored', kind: 'auto-reply' },
  {
    what: 'a newsletter',
    from: 'news@shop.example',
    subject: '今週のセール情報',
    body: '今週のおすすめ商品をご紹介します。',
    headers: { 'List-Id': '<news.shop.example>', 'List-Unsubscribe': '<https://shop.example/unsub>', Precedence: 'bulk' },
    ends: 'ignored',
    kind: 'list',
  },
  { what: 'a stranger named as us', from: 'XYZ Support <support@xyz-help.example>', subject: 'アカウント確認', body: '確認のため、ご担当者様のお名前と電話番号をご返信ください。', ends: 'parked', own: /presents it as our own support/ },
  { what: 'a mail with no question', from: 'blank@customer.example', subject: '', body: '', ends: 'parked', own: /; no question: empty subject and body$/ },
  { what: 'a question', from: 'old@customer.example', subject: '二段階認証', body: '二段階認証の設定手順を教えてください。', ends: 'parked' },
];

describe('mail held at ingest goes through the checks before the agent', () => {
  it.each(HOLDS)('held $how: ignored as on any day, or parked with the checks\' reason and the hold, never given to the agent', async (hold) => {
    const running = await suite.run({ REVIEW_MODE: 'auto' });
    for (const mail of MAILS) {
      const messageId = customerMessageId('held');
      const raw = buildMail({ messageId, from: mail.from, subject: mail.subject, body: mail.body, ...(mail.headers ? { headers: mail.headers } : {}) });
      const { ticketId } = await ingestHeld(running, raw, hold);
      const ticket = await waitForState(running.store, ticketId, FINAL, 30_000);
      const label = `${mail.what}: ${ticket.reason ?? ''}`;
      expect(ticket.state, label).toBe(mail.ends);
      expect(neverRan(ticket), label).toBe(true);
      if (hold.refuse) expect(ticket.rawRef, label).toBeUndefined();
      if (mail.ends === 'ignored') {
        expect(ignoreKindOf(ticket.reason), label).toBe(mail.kind);
        continue;
      }
      // The hold, and the checks' own reason beside it when one applies.
      expect(ticket.reason, label).toMatch(hold.reason);
      if (mail.own) expect(ticket.reason, label).toMatch(mail.own);
      if (mail.body) expect(modelSaw(mail.body), label).toBe(false);
    }
    expect(suite.servers.smtp.messages).toHaveLength(0);
  }, 90_000);

  it.each(HOLDS)('a bounce of our reply held $how is ignored and marks the reply as not arrived', async (hold) => {
    const running = await suite.run({ REVIEW_MODE: 'auto' });
    const replied = await ingest(running, buildMail({ messageId: customerMessageId('replied'), from: 'gone@customer.example', subject: 'パスワードについて', body: 'パスワードの条件を教えてください。' }));
    const sent = await waitForState(running.store, replied.ticketId, FINAL, 30_000);
    expect(sent.state, sent.reason).toBe('sent');
    const dsn = [
      '--dsn', 'Content-Type: text/plain; charset=us-ascii', '', 'Your message could not be delivered.', '',
      '--dsn', 'Content-Type: message/delivery-status', '', 'Reporting-MTA: dns; mx.customer.example', '',
      'Final-Recipient: rfc822; gone@customer.example', 'Action: failed', 'Status: 5.1.1', 'Diagnostic-Code: smtp; 550 5.1.1 User unknown', '',
      '--dsn', 'Content-Type: text/rfc822-headers', '', 'From: XYZ Support <support@helpdesk.test>', 'To: gone@customer.example', `Message-ID: ${sent.outbound!.messageId}`, '',
      '--dsn--', '',
    ].join('\n');
    const bounce = buildMail({
      messageId: customerMessageId('dsn'),
      from: 'MAILER-DAEMON@mx.customer.example (Mail Delivery System)',
      subject: 'Undelivered Mail Returned to Sender',
      body: '',
      headers: { 'Auto-Submitted': 'auto-replied' },
      rawBody: { contentType: 'multipart/report; report-type=delivery-status; boundary=dsn', body: dsn },
    });
    const { ticketId } = await ingestHeld(running, bounce, hold);
    const ticket = await waitForState(running.store, ticketId, FINAL, 30_000);
    expect(ticket.state, ticket.reason).toBe('ignored');
    expect(ignoreKindOf(ticket.reason)).toBe('bounce');
    expect((await running.store.require(sent.id)).replyBounce?.reportTicketId).toBe(ticketId);
  }, 90_000);

  it.each(HOLDS)('a rerun of a question held $how, asked from a terminal, is for review', async (hold) => {
    const running = await suite.run({ REVIEW_MODE: 'auto' });
    const body = '認証アプリでの二段階認証の設定手順を教えてください。';
    const { ticketId } = await ingestHeld(running, buildMail({ messageId: customerMessageId('rerun'), from: 'old@customer.example', subject: '二段階認証', body }), hold);
    const held = await waitForState(running.store, ticketId, FINAL, 30_000);
    expect(held.state, held.reason).toBe('parked');
    expect(held.reason).toMatch(hold.reason);
    expect(modelSaw(body)).toBe(false);
    const deps = { store: running.store, redis: await running.services.producer(), tickets: (await running.services.queues()).tickets, config: running.services.config };
    // No forReview: the CLI's rerun, decided by REVIEW_MODE unless the mail never passed the checks to the agent.
    expect(await rerunAgent(deps, { ticketId, operator: 'cli' })).toMatchObject({ outcome: 'requeued', forReview: true });
    const redrafted = await waitFor(async () => {
      const t = await running.store.require(ticketId);
      return t.state === 'parked' && t.draft ? t : undefined;
    }, 'the new draft', 60_000);
    expect(redrafted.reason).toBe(rerunReason('cli'));
    expect(suite.servers.smtp.messages.filter((m) => m.parsed.to?.toString().includes('old@customer.example'))).toHaveLength(0);
  }, 90_000);
});

describe('a mail whose raw copy was refused and whose signals could not be recorded', () => {
  it('is parked at ingest with a reason that says so, and no job', async () => {
    const running = await suite.run({ REVIEW_MODE: 'auto' });
    // Thousands of header lines: the reply signals are too large to record, and the checks need the raw mail.
    const loops = Array.from({ length: 1000 }, (_, i) => `X-Loop: relay-${i}.customer.example`).join('\r\n');
    const mail = buildMail({ messageId: customerMessageId('nosig'), from: 'big@customer.example', subject: '質問', body: '料金プランを教えてください。' });
    const raw = Buffer.from(mail.toString('latin1').replace('MIME-Version:', `${loops}\r\nMIME-Version:`), 'latin1');
    const result = await ingestHeld(running, raw, HOLDS[1]!);
    expect(result).toMatchObject({ outcome: 'parked', state: 'parked' });
    const ticket = await running.store.require(result.ticketId);
    expect(ticket.reason).toMatch(/^raw mail not kept: /);
    expect(ticket.replySignals).toBeUndefined();
    const jobs = await (await running.services.queues()).tickets.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized']);
    expect(jobs.map((j) => j.data.ticketId)).not.toContain(result.ticketId);
  }, 60_000);
});
