/**
 * The Reply-To's display name in the To of an automatic reply, through the real pipeline (Redis, the agent worker
 * with the scripted model, the sender and the SMTP receiver): a name that holds a link and a phone number, or an
 * encoded word that the receiver's client decodes again into an address and a line break, is a stranger's words in
 * our reply's header, mailed from our address to another mailbox. The reply goes to the bare address (security
 * review 7, finding 1); a plain name is kept.
 */
import { describe, expect, it } from 'vitest';
import { buildMail, customerMessageId, ingest, waitForState } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();
const b64 = (s: string) => `=?utf-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`;

describe('the Reply-To\'s display name in an automatic reply to another mailbox', () => {
  it.each([
    ['a link and a phone number', b64('【重要】XYZサポート https://xyz-verify.example/login 03-1234-5678 へ至急'), ''],
    ['an encoded word inside an encoded word', b64(b64('<evil@attacker.example>\r\nBcc: e@x')), ''],
    ['a plain name', b64('山田 太郎'), '山田 太郎'],
  ])('%s', async (_case, encodedName, expectedName) => {
    const running = await suite.run({ REVIEW_MODE: 'auto' });
    const { ticketId } = await ingest(
      running,
      buildMail({
        messageId: customerMessageId(),
        from: 'mallory@customer.example',
        subject: '二段階認証について',
        headers: { 'Reply-To': `${encodedName} <ceo@customer.example>` },
        body: '二段階認証の設定方法を教えてください。',
      }),
    );
    const ticket = await waitForState(running.store, ticketId, ['parked', 'sent'], 60_000);
    expect(ticket.state, ticket.reason).toBe('sent');
    const [reply] = await suite.servers.smtp.waitFor(1);
    expect(reply!.envelope.to).toEqual(['ceo@customer.example']);
    expect((reply!.parsed.to as { value: { name: string; address: string }[] }).value).toEqual([{ name: expectedName, address: 'ceo@customer.example' }]);
    const toLine = reply!.raw.toString('latin1').split('\r\n\r\n')[0]!.split(/\r\n(?![ \t])/).find((l) => /^to:/i.test(l))!;
    expect(toLine).not.toMatch(/xyz-verify|1234|attacker|=\?utf-8\?B\?PGV2aW/i);
    expect(reply!.parsed.cc).toBeUndefined();
    expect(reply!.parsed.bcc).toBeUndefined();
  });
});
