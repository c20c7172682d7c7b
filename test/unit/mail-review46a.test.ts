/**
 * Bug review 46a's LOW findings on the round 10 and security review 14 changes (fix 46f), whole mails through the
 * parser and the reply decision:
 * - GTUBE only in the `>` lines of a reply (a customer quoting our reply that named it) was ignored as spam: the
 *   customer's own words and the subject are read for it.
 * - An away-notice prefix before a question (「Автоответ: как включить?」, "Automatic reply: how do I turn it on?") on a
 *   reply to ours was ignored as an automatic reply; a notice's subject never ends in a question mark.
 * - A raw Latin-1 attachment name read as Latin-1 again took a charset note: the note is for a name read otherwise.
 */
import { describe, expect, it } from 'vitest';
import { parseInboundMail } from '../../src/mail/parse.js';
import { mailOutcome, OUR_REPLY_ID } from '../support/mail-outcome.js';

const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

const mail = (subject: string, body: string, { reply = false } = {}) =>
  Buffer.from(
    `From: 山田 <yamada@customer.example.jp>\r\nTo: support@helpdesk.example.jp\r\nSubject: ${subject}\r\nMessage-ID: <m${subject.length}-${body.length}@customer.example.jp>\r\n${reply ? `In-Reply-To: ${OUR_REPLY_ID}\r\n` : ''}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`,
  );

describe('GTUBE in a quoted part', () => {
  it('answers a reply that quotes the string only in > lines', async () => {
    const body = `ご回答ありがとうございます。まだ解決しません。フィルタの設定はどこで確認できますか？\r\n\r\n> 以前のメール:\r\n> ${GTUBE}\r\n`;
    expect(await mailOutcome(mail('Re: スパムフィルタについて', body, { reply: true }))).toBe('answer');
  });
  it.each([
    ['the string alone', GTUBE],
    ['the string after a line of the customer’s', `スパム設定のテストです。\r\n${GTUBE}`],
  ])('ignores %s as spam', async (_what, body) => {
    expect(await mailOutcome(mail('test', body))).toMatch(/^ignore spam: /);
  });
  it('ignores the string in the subject as spam', async () => {
    expect(await mailOutcome(mail(GTUBE, 'テスト'))).toMatch(/^ignore spam: /);
  });
});

describe('an away-notice prefix before a question on a reply to ours', () => {
  const question = 'Здравствуйте! Как настроить эту функцию в вашем продукте? Спасибо.';
  it.each([
    ['Автоответ: как включить?'],
    ['自动答复：无法关闭？'],
    ['Automatic reply: how do I turn it on?'],
    ['Balasan Otomatis: bagaimana mengatur?'],
  ])('answers %s', async (subject) => {
    expect(await mailOutcome(mail(subject, question, { reply: true }))).toBe('answer');
  });
  it.each([
    ['Automatic reply: Your order', 'I am out of the office until June 5.'],
    ['自動返信：お問い合わせありがとうございます', '6月5日まで不在にしております。'],
    ['Автоответ: Re: Заказ', 'Я в отпуске до 5 июня.'],
    // The subject a notice answers, ours, may end in the customer's question mark.
    ['Automatic reply: Re: How do I reset my password?', 'I am out of the office until June 5.'],
    ['自动答复: 回复: 如何关闭？', '我正在休假，6月5日回来。'],
  ])('ignores %s', async (subject, body) => {
    expect(await mailOutcome(mail(subject, body, { reply: true }))).toMatch(/^ignore auto-reply: /);
  });
});

describe('a charset note for a raw attachment name', () => {
  const withRawName = (textCharset: string, name: Buffer) =>
    Buffer.concat([
      Buffer.from(
        `From: a@example.org\r\nTo: support@helpdesk.example.jp\r\nSubject: Rechnung\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain; charset=${textCharset}\r\n\r\nWarum ist die Rechnung falsch?\r\n--b\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename="`,
      ),
      name,
      Buffer.from('"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERg==\r\n--b--\r\n'),
    ]);
  it('takes none for a Latin-1 name read as Latin-1 again', async () => {
    const parsed = await parseInboundMail(withRawName('iso-8859-1', Buffer.from('Größe_März.pdf', 'latin1')));
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['Größe_März.pdf']);
    expect((parsed.charsetProblems ?? []).filter((p) => p.startsWith('attachment name'))).toEqual([]);
  });
  it('takes one for a GBK name read otherwise', async () => {
    const parsed = await parseInboundMail(withRawName('gb2312', Buffer.from([0xbc, 0xa8, 0xd0, 0xa7, 0x2e, 0x78, 0x6c, 0x73])));
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['绩效.xls']);
    expect((parsed.charsetProblems ?? []).filter((p) => p.startsWith('attachment name'))).toEqual(['attachment name: raw 8-bit bytes that are not UTF-8, decoded as gb2312']);
  });
});
