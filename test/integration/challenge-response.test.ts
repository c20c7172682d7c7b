/**
 * A customer's spam guard answers our reply with a request to confirm us as a sender (「送信者確認」, Boxbe's "Please
 * verify your email"): the request is parked for a person, who may confirm so the customer gets our reply; it is not
 * answered (the draft would go to the guard) nor dropped as an automatic reply (nobody would learn that our reply is
 * held). The reply it holds is marked as not arrived, as a bounce marks it. A customer asking how to verify an address
 * is answered as before. Real roles, the real SMTP receiver, Redis and the dashboard over HTTP.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createDashboardApp } from '../../src/server/app.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import { buildMail, customerMessageId, ingest, waitForState, type RunningRoles } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();
const run = () => suite.run();

/** A customer's question, answered and sent; returns its ticket as sent. */
async function answered(running: RunningRoles, tag: string, subject = 'ログインできません', body = 'ログインできません。どうすればよいですか。'): Promise<Ticket> {
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(tag), from: `${tag}@customer.example`, subject, body }));
  const ticket = await waitForState(running.store, ticketId, ['sent', 'parked', 'ignored']);
  expect(ticket.state, ticket.reason).toBe('sent');
  return ticket;
}

const JA_GUARD = [
  'あなたが taro@customer.example 宛に送信したメールは保留されています。',
  '迷惑メール対策のため、送信者の確認を行っております。',
  '以下のURLをクリックするか、このメールにそのまま返信してください。',
  '',
  'https://spamguard.customer.example/confirm?id=8f3a2c',
].join('\n');

/** The audit's sample 25: a Japanese guard's request in answer to `replyMessageId`, marked as an automatic reply. */
function jaChallenge(tag: string, replyMessageId: string): Buffer {
  return buildMail({
    messageId: customerMessageId(`cr-${tag}`),
    from: 'Spam Guard <confirm@spamguard.customer.example>',
    subject: '【送信者確認】メールアドレスの確認をお願いします',
    body: JA_GUARD,
    inReplyTo: replyMessageId,
    headers: { 'Auto-Submitted': 'auto-replied' },
  });
}

async function dashboardPage(running: RunningRoles, pathname: string): Promise<string> {
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

const HOLD_REASON = (replyTicketId: string) =>
  `sender verification: the customer's spam guard holds our reply of ticket ${replyTicketId} until someone confirms; a person decides whether to (Subject: 【送信者確認】メールアドレスの確認をお願いします)`;

describe("a customer's spam guard holding our reply", () => {
  it('is parked for a person, naming the reply it holds, which is marked as not arrived, once', async () => {
    const running = await run();
    const replied = await answered(running, 'guarded');
    const replyId = replied.outbound!.messageId;

    const first = await ingest(running, jaChallenge('1', replyId));
    const request = await waitForState(running.store, first.ticketId, ['parked', 'ignored', 'sent', 'drafted']);
    expect(request.state).toBe('parked');
    expect(request.reason).toBe(HOLD_REASON(replied.id));
    // Parked before the agent: no draft for the guard, no run spent on it.
    expect(request.agent).toBeUndefined();
    expect(request.draft).toBeUndefined();

    const marked = await running.store.require(replied.id);
    expect(marked.state).toBe('sent');
    expect(marked.replyBounce).toMatchObject({ reportTicketId: first.ticketId, diagnostic: expect.stringContaining("held by the customer's spam guard") });
    expect((await running.store.bouncedReplies(10)).tickets.map((t) => t.id)).toEqual([replied.id]);

    // A second request for the same reply names it too, and leaves the first mark as it is.
    const second = await ingest(running, jaChallenge('2', replyId));
    expect((await waitForState(running.store, second.ticketId, ['parked', 'ignored', 'sent'])).reason).toBe(HOLD_REASON(replied.id));
    expect((await running.store.require(replied.id)).replyBounce?.reportTicketId).toBe(first.ticketId);

    // The operator sees it: on the start page's list, on the reply's page, with a link to the request.
    expect(await dashboardPage(running, '/')).toContain(`/tickets/${replied.id}`);
    const detail = await dashboardPage(running, `/tickets/${replied.id}`);
    expect(detail).toContain('spam guard');
    expect(detail).toContain(`/tickets/${first.ticketId}`);
    // Only the customer's reply went out: nothing to the guard.
    expect(suite.servers.smtp.messages.map((m) => m.envelope.to)).toEqual([['guarded@customer.example']]);
  });

  it('without a Message-ID of ours (25b), or with one no ticket has, is parked all the same', async () => {
    const running = await run();
    const boxbe = await ingest(
      running,
      buildMail({
        messageId: customerMessageId('boxbe'),
        from: 'Jane Doe <jane=customer.example@verify.boxbe.example>',
        headers: { 'Reply-To': 'jane=customer.example@verify.boxbe.example' },
        subject: 'Please verify your email: Re: Cannot log in',
        body: 'Hello,\n\nJane Doe is using a service to block unwanted email. To deliver your message, please verify your email address by clicking the link below.\n\nhttps://www.boxbe.example/verify?tc=12345\n\nThank you.',
      }),
    );
    const gone = await ingest(running, jaChallenge('gone', '<reply-removed-long-ago@helpdesk.test>'));
    expect(await waitForState(running.store, boxbe.ticketId, ['parked', 'ignored', 'sent'])).toMatchObject({
      state: 'parked',
      reason:
        "sender verification: the customer's spam guard holds a mail of ours, which it does not name, until someone confirms; a person decides whether to (Subject: Please verify your email: Re: Cannot log in)",
    });
    expect(await waitForState(running.store, gone.ticketId, ['parked', 'ignored', 'sent'])).toMatchObject({
      state: 'parked',
      reason:
        "sender verification: the customer's spam guard holds our reply <reply-removed-long-ago@helpdesk.test> until someone confirms; a person decides whether to (Subject: 【送信者確認】メールアドレスの確認をお願いします)",
    });
    expect((await running.store.bouncedReplies(10)).total).toBe(0);
    expect(suite.servers.smtp.messages).toHaveLength(0);
  });

  it('a customer asking how to verify an address, new or in a reply to ours, is answered', async () => {
    const running = await run();
    const asked = await answered(running, 'verify-en', 'How do I verify my email address?', 'How do I verify my email address? The link in the app does nothing.');
    await answered(running, 'verify-ja', 'メールアドレスの確認メールが届きません', '登録したのにメールアドレスの確認メールが届きません。どうすればよいですか。');
    const again = await ingest(
      running,
      buildMail({
        messageId: customerMessageId('verify-again'),
        from: 'verify-en@customer.example',
        subject: 'Re: How do I verify my email address?',
        body: 'I still cannot verify my email address. The verification link does nothing. What else can I try?',
        inReplyTo: asked.outbound!.messageId,
      }),
    );
    const followUp = await waitForState(running.store, again.ticketId, ['sent', 'parked', 'ignored']);
    expect(followUp.state, followUp.reason).toBe('sent');
    expect((await running.store.require(asked.id)).replyBounce).toBeUndefined();
  });
});
