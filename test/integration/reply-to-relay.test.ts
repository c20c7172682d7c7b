/**
 * A Reply-To that is not the sender's own mailbox, through the real pipeline (Redis, the agent worker with the
 * scripted model, the sender and the SMTP receiver): on a shared mail provider the same domain proves nothing, so the
 * draft waits for a person; on a company's own domain it goes out. Either way the reply to another mailbox carries
 * neither the sender's quoted text nor their display name, and a link in the subject it repeats parks it.
 */
import { describe, expect, it } from 'vitest';
import { approveTicket } from '../../src/tickets/review.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  waitForState,
  type RunningRoles,
} from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();

function run(overrides: Record<string, string> = {}): Promise<RunningRoles> {
  return suite.run({ REVIEW_MODE: 'auto', ...overrides });
}

const QUESTION = '二段階認証の設定方法を教えてください。';
// A real question, then a fake notice from "XYZ Support" with a phishing link: what the quote would carry.
const PHISHING_BODY = [
  QUESTION,
  '',
  '【重要】XYZサポートより: 24時間以内にアカウントが停止されます。',
  '継続するには https://xyz-account-verify.example/login でパスワードを確認してください。',
].join('\n');

describe('Reply-To on the sender\'s own domain', () => {
  it('another mailbox on a shared mail provider is parked, nothing sent; an approved reply goes without the quoted mail', async () => {
    const running = await run();
    const { ticketId } = await ingest(
      running,
      buildMail({
        messageId: '<atk-relay-1@mail.gmail.com>',
        from: 'Account Security <mallory@gmail.com>',
        subject: '二段階認証について',
        headers: { 'Reply-To': 'victim.hanako@gmail.com' },
        body: PHISHING_BODY,
      }),
    );
    const parked = await waitForState(running.store, ticketId, ['parked', 'sent', 'ignored', 'rejected'], 60_000);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toBe(
      'Reply-To victim.hanako@gmail.com is another mailbox than From mallory@gmail.com on gmail.com, a shared mail provider: the same domain says nothing about who owns it (not in TRUSTED_REPLY_TO_DOMAINS)',
    );
    expect(parked.draft).toBeTruthy();
    expect(suite.servers.smtp.attempts).toHaveLength(0);

    // A person who knows the two (a family member writing for the customer) may send it: the answer goes, the
    // stranger's words and name do not.
    const queues = await running.services.queues();
    const approval = await approveTicket(
      { store: running.store, redis: await running.services.producer(), outbound: queues.outbound, config: running.services.config, tuning: running.services.tuning },
      { ticketId, operator: 'test' },
    );
    expect(approval.outcome).toBe('approved');
    expect((await waitForState(running.store, ticketId, ['sent', 'parked'])).state).toBe('sent');
    const [reply] = await suite.servers.smtp.waitFor(1);
    expect(reply!.envelope.to).toEqual(['victim.hanako@gmail.com']);
    expect(reply!.text).toContain(parked.draft!.trim());
    expect(reply!.text).not.toContain('xyz-account-verify.example');
    expect(reply!.text).not.toContain('アカウントが停止されます');
    expect(reply!.text).not.toContain('Account Security');
    expect(reply!.text).not.toContain('mallory@gmail.com');
  });

  it('TRUSTED_REPLY_TO_DOMAINS still lets a shared provider\'s Reply-To through, and the quote still stays out', async () => {
    const running = await run({ TRUSTED_REPLY_TO_DOMAINS: 'gmail.com' });
    const { ticketId } = await ingest(
      running,
      buildMail({ messageId: customerMessageId(), from: 'Taro <taro@gmail.com>', subject: '二段階認証について', headers: { 'Reply-To': 'hanako@gmail.com' }, body: PHISHING_BODY }),
    );
    const ticket = await waitForState(running.store, ticketId, ['parked', 'sent'], 60_000);
    expect(ticket.state, ticket.reason).toBe('sent');
    const [reply] = await suite.servers.smtp.waitFor(1);
    expect(reply!.envelope.to).toEqual(['hanako@gmail.com']);
    expect(reply!.text).not.toContain('xyz-account-verify.example');
    expect(reply!.text).not.toContain('taro@gmail.com');
  });

  it('a corporate Reply-To on the sender\'s own domain is still answered, without quoting the mail to the other mailbox', async () => {
    const running = await run();
    const messageId = customerMessageId();
    const { ticketId } = await ingest(
      running,
      buildMail({ messageId, from: 'Taro <taro@customer.example>', subject: '二段階認証について', headers: { 'Reply-To': 'Desk <desk@customer.example>' }, body: QUESTION }),
    );
    const ticket = await waitForState(running.store, ticketId, ['parked', 'sent'], 60_000);
    expect(ticket.state, ticket.reason).toBe('sent');
    const [reply] = await suite.servers.smtp.waitFor(1);
    expect(reply!.envelope.to).toEqual(['desk@customer.example']);
    expect(reply!.subject).toBe('Re: 二段階認証について');
    expect(reply!.parsed.inReplyTo).toBe(messageId);
    expect(reply!.text).toContain(ticket.draft!.trim());
    expect(reply!.text).not.toContain(`> ${QUESTION}`);
    expect(reply!.text).not.toContain('taro@customer.example');
  });

  it('the common case is as before: a reply to the From quotes the mail under its attribution line', async () => {
    const running = await run();
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'Taro <taro@customer.example>', subject: '二段階認証について', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['parked', 'sent'], 60_000);
    expect(ticket.state, ticket.reason).toBe('sent');
    const [reply] = await suite.servers.smtp.waitFor(1);
    expect(reply!.envelope.to).toEqual(['taro@customer.example']);
    expect(reply!.text).toMatch(/Taro <taro@customer\.example>:\n> 二段階認証の設定方法を教えてください。/);
  });

  it('a subject with a link nothing vouches for is parked when the reply repeats it to another mailbox, and sent back to a writer our server authenticated', async () => {
    const running = await run();
    const subject = '二段階認証 https://xyz-account-verify.example/login';
    const relayed = await ingest(
      running,
      buildMail({ messageId: customerMessageId(), from: 'taro@customer.example', subject, headers: { 'Reply-To': 'desk@customer.example' }, body: QUESTION }),
    );
    const parked = await waitForState(running.store, relayed.ticketId, ['parked', 'sent'], 60_000);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toBe(
      'the subject, which the reply repeats to desk@customer.example (not the sender), contains links, addresses or phone numbers that are neither in the knowledge the agent found nor trusted (TRUSTED_LINK_DOMAINS): https://xyz-account-verify.example/login',
    );
    expect(suite.servers.smtp.attempts).toHaveLength(0);

    // To the From itself the subject goes back to whoever wrote it, when the receiving server vouches for that From
    // (without Authentication-Results it would be parked too: test/integration/forged-from-quote.test.ts). Another
    // writer: Taro's same question again would be parked as repeated while his first copy waits for a person.
    const authenticated = { 'Authentication-Results': 'mx.helpdesk.test; dmarc=pass header.from=customer.example' };
    const own = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'hanako@customer.example', subject, headers: authenticated, body: QUESTION }));
    expect((await waitForState(running.store, own.ticketId, ['parked', 'sent'], 60_000)).state).toBe('sent');
  });
});
