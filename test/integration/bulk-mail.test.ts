/**
 * Mail that must get no automatic reply although it carries no List-* field, through the real agent worker and sender
 * (real Redis, the SMTP receiver, the scripted model): old-style lists and scanner spam verdicts are ignored before the
 * agent runs; bulk mail and forged senders get their draft parked for a person, who can still send it in one click;
 * an empty web form parks as having no question. Modelled on the mails of the real-world corpus audit.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deleteRaw } from '../../src/mail/raw-store.js';
import { metricsKeys } from '../../src/server/metrics.js';
import { approveTicket } from '../../src/tickets/review.js';
import { POSSIBLE_COPY_REASON } from '../../jobs/answer-ticket.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  startRoles,
  SUPPORT_ADDRESS,
  waitFor,
  waitForState,
  type RunningRoles,
} from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();

function run(overrides: Record<string, string> = {}, options: Parameters<typeof startRoles>[1] = {}): Promise<RunningRoles> {
  return suite.run(overrides, options);
}

async function approve(running: RunningRoles, ticketId: string): Promise<void> {
  const queues = await running.services.queues();
  const approval = await approveTicket(
    { store: running.store, redis: await running.services.producer(), outbound: queues.outbound, config: running.services.config, tuning: running.services.tuning },
    { ticketId, operator: 'test' },
  );
  expect(approval.outcome).toBe('approved');
}

const QUESTION = '二段階認証を認証アプリで設定する手順を教えてください。';
const FINAL = ['sent', 'parked', 'ignored', 'failed'] as const;

describe('mail without list headers that must get no automatic reply', () => {
  it.each<{ what: string; from: string; headers: Record<string, string>; reason: string }>([
    {
      what: 'a newsletter sent through a mail service (bounce Return-Path on another domain)',
      from: 'Free Quilting <enews@free-quilting.example>',
      headers: { 'Return-Path': '<bounces+123@mail.esp.example>' },
      reason: 'bulk mail: Return-Path <bounces+123@mail.esp.example> on another domain than From',
    },
    {
      what: 'a mailing with Errors-To',
      from: 'Card News <newsflash@card.example>',
      headers: { 'Errors-To': '101BN3c3ce68600277550d@bounce.quris.example' },
      reason: 'bulk mail: Errors-To: 101BN3c3ce68600277550d@bounce.quris.example',
    },
    {
      what: 'a notification from a system account',
      from: 'www-data@web1.example',
      headers: { 'Return-Path': '<www-data@web1.example>' },
      reason: 'bulk mail: From <www-data@web1.example> is a system account',
    },
  ])('$what: the draft is parked naming the header, never sent automatically', async ({ from, headers, reason }) => {
    // REVIEW_MODE=never sends whatever could be answered: these drafts still wait for a person.
    const running = await run({ REVIEW_MODE: 'never' });
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from, subject: '二段階認証', body: QUESTION, headers }));
    const ticket = await waitForState(running.store, ticketId, FINAL);
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toBe(reason);
    expect(ticket.draft).toBeTruthy();
    expect(suite.servers.llm.chatRequests().length).toBeGreaterThan(0);
    expect(suite.servers.smtp.attempts).toHaveLength(0);
  });

  it('a newsletter without list headers (配信停止 link in its HTML footer) is parked with its draft, never sent, from the signal recorded at ingest; a customer asking how to unsubscribe and a customer through our own group (its footer says "To unsubscribe…") are answered', async () => {
    // Our support address is a group our receiving server authenticates (see own-group-forgery.test.ts).
    const env = { QUEUE_PREFIX: `t${randomUUID().replaceAll('-', '').slice(0, 16)}`, SUPPORT_GROUP_ADDRESSES: SUPPORT_ADDRESS, AUTHSERV_ID: 'mx.helpdesk.test' };
    const ingesting = await run(env, { agent: false, sender: false });
    const newsletter = await ingest(
      ingesting,
      buildMail({
        messageId: customerMessageId(),
        from: 'Shop <news@shop.example>',
        subject: '今月のお知らせ',
        body: '',
        rawBody: {
          contentType: 'text/html; charset=utf-8',
          body: `<html><body><p>${QUESTION}</p><p>今月の新機能をご紹介します。</p><hr><p>株式会社ショップ</p><p><a href="https://mag.shop.example/stop?id=1">配信停止はこちら</a></p></body></html>`,
        },
      }),
    );
    const customer = await ingest(
      ingesting,
      buildMail({ messageId: customerMessageId(), from: 'Taro <taro@customer.example>', subject: '二段階認証', body: `${QUESTION}
あと、メルマガの配信停止はどこからできますか？
山田` }),
    );
    const viaGroup = await ingest(
      ingesting,
      buildMail({
        messageId: customerMessageId(),
        from: 'Hanako <hanako@customer.example>',
        to: SUPPORT_ADDRESS,
        subject: '二段階認証',
        body: `${QUESTION}

-- 
You received this message because you are subscribed to the Google Groups "Support" group.
To unsubscribe from this group and stop receiving emails from it, send an email to support+unsubscribe@helpdesk.test.
`,
        headers: {
          'Authentication-Results': 'mx.helpdesk.test; dkim=pass header.d=helpdesk.test header.s=google; dmarc=pass header.from=customer.example',
          'List-ID': `<${SUPPORT_ADDRESS.replace('@', '.')}>`,
          'List-Post': `<mailto:${SUPPORT_ADDRESS}>`,
          Precedence: 'list',
        },
      }),
    );
    expect((await ingesting.store.get(newsletter.ticketId))?.replySignals?.massMailing).toBe('an unsubscribe link in the footer (“配信停止はこちら” https://mag.shop.example/stop?id=1)');
    // Decided without the raw mail: what the ticket recorded at ingest is enough.
    await deleteRaw(await ingesting.services.producer(), env.QUEUE_PREFIX, newsletter.ticketId);

    const answering = await run({ ...env, REVIEW_MODE: 'never' });
    const parked = await waitForState(answering.store, newsletter.ticketId, FINAL);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toBe('bulk mail: an unsubscribe link in the footer (“配信停止はこちら” https://mag.shop.example/stop?id=1)');
    expect(parked.draft).toBeTruthy();
    for (const { ticketId } of [customer, viaGroup]) {
      const ticket = await waitForState(answering.store, ticketId, FINAL);
      expect(ticket.state, ticket.reason).toBe('sent');
    }
    const replies = await suite.servers.smtp.waitFor(2);
    expect(replies.map((r) => r.envelope.to).sort()).toEqual([['hanako@customer.example'], ['taro@customer.example']]);
  });

  it('a mail with the Message-ID, sender and date of an answered one but other text: its own ticket, its draft parked naming the first (it may be a copy changed on its way), and one approval sends it', async () => {
    const running = await run({ REVIEW_MODE: 'never' });
    const mail = { messageId: customerMessageId(), from: 'Taro <taro@customer.example>', subject: '二段階認証', date: 'Thu, 26 Nov 2026 09:00:00 +0900' };
    const first = await ingest(running, buildMail({ ...mail, body: QUESTION }));
    expect((await waitForState(running.store, first.ticketId, FINAL)).state).toBe('sent');
    await suite.servers.smtp.waitFor(1);

    // A gateway on one route tagged the subject and put a banner above the text (the banner is cut from the question,
    // the tag keeps the subject apart, so this is not the same question asked again).
    const second = await ingest(running, buildMail({ ...mail, subject: `[EXTERNAL] ${mail.subject}`, body: `[EXTERNAL] 社外からのメールです。リンクや添付ファイルにご注意ください。\n\n${QUESTION}` }));
    expect(second.ticketId).not.toBe(first.ticketId);
    const parked = await waitForState(running.store, second.ticketId, FINAL);
    expect(parked.state).toBe('parked');
    expect(parked.possibleCopyOf).toBe(first.ticketId);
    expect(parked.reason).toMatch(new RegExp(`^${POSSIBLE_COPY_REASON} ${first.ticketId}: same Message-ID, sender and date`));
    expect(parked.draft).toBeTruthy();
    expect(suite.servers.smtp.attempts).toHaveLength(1);

    await approve(running, second.ticketId);
    expect((await waitForState(running.store, second.ticketId, ['sent', 'parked', 'failed'])).state).toBe('sent');
    await suite.servers.smtp.waitFor(2);
  });

  it('a web form sent through a mail service with the customer in Reply-To: parked with its draft, and one approval sends it to the customer', async () => {
    const running = await run();
    const { ticketId } = await ingest(
      running,
      buildMail({
        messageId: customerMessageId(),
        from: 'Contact form <forms@shop.example>',
        subject: 'お問い合わせ',
        body: QUESTION,
        headers: { 'Return-Path': '<bounces+8812-taro=customer.example@mail.esp.example>', 'Reply-To': 'Taro <taro@customer.example>' },
      }),
    );
    const parked = await waitForState(running.store, ticketId, FINAL);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toBe('bulk mail: Return-Path <bounces+8812-taro=customer.example@mail.esp.example> on another domain than From');
    expect(parked.draft).toBeTruthy();
    expect(suite.servers.smtp.attempts).toHaveLength(0);

    await approve(running, ticketId);
    expect((await waitForState(running.store, ticketId, ['sent', 'parked', 'failed'])).state).toBe('sent');
    const [reply] = await suite.servers.smtp.waitFor(1);
    expect(reply!.envelope.to).toEqual(['taro@customer.example']);
  });

  it('a forged sender (the receiving server says dmarc=fail) is parked after the draft, from the signals recorded at ingest', async () => {
    const prefix = { QUEUE_PREFIX: `t${randomUUID().replaceAll('-', '').slice(0, 16)}` };
    const ingesting = await run(prefix, { agent: false, sender: false });
    const redis = await ingesting.services.producer();
    const forged = await ingest(
      ingesting,
      buildMail({
        messageId: customerMessageId(),
        from: 'Bank <security@bank.example>',
        subject: '二段階認証',
        body: QUESTION,
        headers: { 'Authentication-Results': 'mx.support.example; spf=pass smtp.mailfrom=relay.example; dkim=none; dmarc=fail (p=REJECT) header.from=bank.example' },
      }),
    );
    const genuine = await ingest(
      ingesting,
      buildMail({
        messageId: customerMessageId(),
        from: 'taro@customer.example',
        subject: '二段階認証',
        body: QUESTION,
        headers: { 'Authentication-Results': 'mx.support.example; spf=softfail smtp.mailfrom=customer.example; dmarc=none' },
      }),
    );
    expect((await ingesting.store.get(forged.ticketId))?.replySignals?.headers['authentication-results']).toHaveLength(1);
    // Decided without the raw mail: what the ticket recorded at ingest is enough.
    await deleteRaw(redis, prefix.QUEUE_PREFIX, forged.ticketId);

    const answering = await run({ ...prefix, REVIEW_MODE: 'never' });
    const parked = await waitForState(answering.store, forged.ticketId, FINAL);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toBe(
      'possibly forged sender: the receiving server\'s Authentication-Results says dmarc=fail (header.from=bank.example); a reply would go to whoever was impersonated',
    );
    expect(parked.draft).toBeTruthy();
    expect((await waitForState(answering.store, genuine.ticketId, FINAL)).state).toBe('sent');
    const replies = await suite.servers.smtp.waitFor(1);
    expect(replies.map((r) => r.envelope.to)).toEqual([['taro@customer.example']]);
  });

  it('an old-style list, a MailScanner spam verdict and Precedence: junk are ignored before the agent, with reasons that say what they are', async () => {
    const running = await run();
    const list = await ingest(
      running,
      buildMail({
        messageId: customerMessageId(),
        from: '"Lon L. Peters" <lpeters@pacifier.example>',
        to: 'RRGA-L@LIST.RTOWEST.example',
        subject: 'PGP Comments on RTO West',
        body: QUESTION,
        headers: { Sender: 'RTO West Regional Representatives Group <RRGA-L@LIST.RTOWEST.example>', 'Return-Path': 'owner-rrga-l@list.rtowest.example' },
      }),
    );
    const spam = await ingest(
      running,
      buildMail({ messageId: customerMessageId(), from: 'winner@lottery.example', subject: '当選', body: QUESTION, headers: { 'X-CSI-MailScanner-SpamCheck': 'spam, ORDB-RBL' } }),
    );
    const junk = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'enews@quilting.example', subject: '40% OFF', body: QUESTION, headers: { Precedence: 'junk' } }));

    const ignored = async (ticketId: string) => {
      const ticket = await waitForState(running.store, ticketId, FINAL);
      expect(ticket.state).toBe('ignored');
      return ticket.reason;
    };
    expect(await ignored(list.ticketId)).toMatch(/^list: Sender: rrga-l@list\.rtowest\.example/);
    expect(await ignored(spam.ticketId)).toBe('spam: X-Csi-MailScanner-SpamCheck: spam, ORDB-RBL');
    expect(await ignored(junk.ticketId)).toBe('bulk mail: Precedence: junk');
    expect(suite.servers.llm.chatRequests()).toHaveLength(0);
    expect(suite.servers.smtp.attempts).toHaveLength(0);
    // The metrics keep counting list and bulk mail under `list`, as dashboards and stored tickets know it.
    const redis = await running.services.producer();
    const counts = await waitFor(async () => {
      const c = await redis.hgetall(metricsKeys(running.services.config.QUEUE_PREFIX).ignored);
      return c['list'] === '2' && c['spam'] === '1' ? c : undefined;
    }, 'the ignored mails counted by reason');
    expect(counts).toMatchObject({ list: '2', spam: '1' });
  });

  it('an empty web form (labels with nothing after them) parks as having no question, without a model call', async () => {
    const running = await run();
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'visitor@customer.example', subject: '', body: 'CONTACT:\n\nCOMMENT:\n\nPAGE THEY WERE ON:\n' }));
    const ticket = await waitForState(running.store, ticketId, FINAL);
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toBe("no question: only form labels with nothing after them or the sender's own details (an empty web form)");
    expect(suite.servers.llm.chatRequests()).toHaveLength(0);
  });

  it('a Reply-To on a subdomain of From is the same sender and is answered; a no-reply From naming another Reply-To is parked saying so', async () => {
    const running = await run();
    const survey = await ingest(
      running,
      buildMail({ messageId: customerMessageId(), from: 'carol@mysurvey.example', subject: '二段階認証', body: QUESTION, headers: { 'Reply-To': 'carol@reply.mysurvey.example' } }),
    );
    const notice = await ingest(
      running,
      buildMail({ messageId: customerMessageId(), from: 'Gmail Team <gmail-noreply@google.example>', subject: '二段階認証', body: QUESTION, headers: { 'Reply-To': 'x.y@gmail.example' } }),
    );
    expect((await waitForState(running.store, survey.ticketId, FINAL)).state).toBe('sent');
    const parked = await waitForState(running.store, notice.ticketId, FINAL);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toBe("From gmail-noreply@google.example is a no-reply address and Reply-To names another, x.y@gmail.example: a system notification on someone else's behalf, or a web form's mail (a web form's Reply-To is typed by the visitor: check the address before approving)");
    expect(parked.draft).toBeTruthy();
    const replies = await suite.servers.smtp.waitFor(1);
    expect(replies.map((r) => r.envelope.to)).toEqual([['carol@reply.mysurvey.example']]);
  });
});
