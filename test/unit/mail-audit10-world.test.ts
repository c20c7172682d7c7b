/**
 * Mail audit round 10 (tmp/rev46c): mail in other languages and charsets.
 * - An attachment named in raw 8-bit GBK (Outlook Express, Foxmail: `name="绩效管理,究竟谁错了.xls"` undeclared) was
 *   shown, and named in the park reason, as Latin-1 noise (「¼¨Ð§¹ÜÀí…」); a name in RFC 2231 keeps its reading.
 * - Outlook's automatic-reply prefix in Simplified Chinese (自动答复), Greek, Hebrew, Arabic, Russian (Автоответ),
 *   Bulgarian, Romanian, Croatian and Indonesian on a reply to ours, with an away text in words the rules do not know, was
 *   answered; a customer's subject naming the feature stays answered.
 * - A no-reply word in the Return-Path is no bulk sign (fix 46f, finding 1): contact-form relays (Webflow, Google
 *   Forms, HubSpot, WordPress) and a company's own mail system write one under a person's question, as the invoice
 *   notice it was meant for did on its own organisation's domain.
 */
import { describe, expect, it } from 'vitest';
import { parseInboundMail } from '../../src/mail/parse.js';
import { mailOutcome, OUR_REPLY_ID } from '../support/mail-outcome.js';

function gbkNamedAttachment(): Buffer {
  const head = [
    'From: "Sara.Gang" <ynbe.ctrhk@example.com>',
    'To: support@helpdesk.example.jp',
    'Subject: =?GB2312?B?vKjQp7ncwO0svr++ucuttO3Byw==?=',
    'Message-ID: <gbk-name@example.com>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"; charset="GB2312"',
    '',
    '--b1',
    'Content-Type: text/plain',
    '',
    '',
    '--b1',
  ].join('\r\n');
  const name = Buffer.from([0xbc, 0xa8, 0xd0, 0xa7, 0xb9, 0xdc, 0xc0, 0xed, 0x2c, 0xbe, 0xbf, 0xbe, 0xb9, 0xcb, 0xad, 0xb4, 0xed, 0xc1, 0xcb]);
  return Buffer.concat([
    Buffer.from(`${head}\r\nContent-Type: application/octet-stream; name="`),
    name,
    Buffer.from('.xls"\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename="'),
    name,
    Buffer.from('.xls"\r\n\r\n0M8R4KGxGuE=\r\n--b1--\r\n'),
  ]);
}

describe('attachment names in raw 8-bit legacy bytes', () => {
  it('reads a raw GBK name as the mail’s raw headers are read, and names it so in the park reason', async () => {
    const mail = await parseInboundMail(gbkNamedAttachment());
    expect(mail.attachments.map((a) => a.filename)).toEqual(['绩效管理,究竟谁错了.xls']);
    expect(mail.charsetProblems?.join(';')).toContain('attachment name');
    expect(await mailOutcome(gbkNamedAttachment())).toContain('绩效管理,究竟谁错了.xls');
  });

  it('keeps a Latin-1 name given in RFC 2231', async () => {
    const raw = Buffer.from(
      'From: a@example.org\r\nTo: support@helpdesk.example.jp\r\nSubject: Rechnung\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nWarum ist die Rechnung falsch?\r\n--b\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename*=iso-8859-1\'\'Gr%F6%DFe.pdf\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERg==\r\n--b--\r\n',
    );
    expect((await parseInboundMail(raw)).attachments.map((a) => a.filename)).toEqual(['Größe.pdf']);
  });

  it('keeps a Latin-1 name given in an encoded-word, and reads a raw Latin-1 name in a Latin-1 mail as before', async () => {
    const encoded = Buffer.from(
      'From: a@example.org\r\nTo: support@helpdesk.example.jp\r\nSubject: Rechnung\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nWarum ist die Rechnung falsch?\r\n--b\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename="=?iso-8859-1?Q?Gr=F6=DFe.pdf?="\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERg==\r\n--b--\r\n',
    );
    expect((await parseInboundMail(encoded)).attachments.map((a) => a.filename)).toEqual(['Größe.pdf']);
    const raw = Buffer.concat([
      Buffer.from('From: a@example.org\r\nTo: support@helpdesk.example.jp\r\nSubject: Rechnung\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\r\nWarum ist die Rechnung falsch?\r\n--b\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename="Gr'),
      Buffer.from([0xf6, 0xdf]),
      Buffer.from('e.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERg==\r\n--b--\r\n'),
    ]);
    expect((await parseInboundMail(raw)).attachments.map((a) => a.filename)).toEqual(['Größe.pdf']);
  });
});

describe('Outlook automatic-reply prefixes in other languages', () => {
  const reply = (subject: string, body: string) =>
    Buffer.from(
      `From: A <a@example.org>\r\nTo: support@helpdesk.example.jp\r\nSubject: ${subject}\r\nIn-Reply-To: ${OUR_REPLY_ID}\r\nMessage-ID: <r${subject.length}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`,
    );
  it.each([
    ['自动答复: 关于发票的问题', '我正在休假，6月5日回来。'],
    ['Αυτόματη απάντηση: Παραγγελία 123', 'Θα λείπω από το γραφείο έως 5/6.'],
    ['ΑΥΤΟΜΑΤΗ ΑΠΑΝΤΗΣΗ: Παραγγελία 123', 'Θα λείπω από το γραφείο έως 5/6.'],
    ['Автоматичен отговор: Поръчка', 'Ще отсъствам до 5 юни.'],
    ['תשובה אוטומטית: הזמנה', 'אני מחוץ למשרד עד 5/6.'],
    ['رد تلقائي: طلب', 'أنا خارج المكتب حتى 5/6.'],
    ['Автоответ: Re: Заказ', 'Я в отпуске до 5 июня.'],
    ['Răspuns automat: Comanda', 'Sunt în concediu până pe 5 iunie.'],
    ['Automatski odgovor: Narudžba', 'Na godišnjem sam odmoru do 5.6.'],
    ['Balasan Otomatis: Pesanan', 'Saya sedang cuti sampai 5 Juni.'],
  ])('ignores %s', async (subject, body) => {
    expect(await mailOutcome(reply(subject, body))).toMatch(/^ignore auto-reply: Subject:/);
  });
  it.each([
    ['自动答复功能怎么关闭？', '请问怎么关闭自动答复？'],
    ['Автоответ не работает', 'Почему автоответ не отправляется клиентам?'],
    ['Automatski odgovor ne radi', 'Zašto se automatski odgovor ne šalje kupcima?'],
  ])('answers the customer’s %s', async (subject, body) => {
    expect(await mailOutcome(reply(subject, body))).toBe('answer');
  });
});

describe('a no-reply envelope sender', () => {
  // A web form's relay: the envelope is the service's no-reply mailbox, the customer in Reply-To (bug review 46a).
  const relayed = (returnPath: string, from: string) =>
    Buffer.from(
      `Return-Path: <${returnPath}>\r\nFrom: ${from}\r\nReply-To: 佐藤 花子 <hanako.sato@gmail.com>\r\nTo: support@helpdesk.example.jp\r\nSubject: お問い合わせ: ログインできません\r\nMessage-ID: <form-${returnPath.length}@example.jp>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nお名前: 佐藤 花子\r\nメール: hanako.sato@gmail.com\r\nお問い合わせ内容: パスワードを再設定してもログインできません。どうすればよいですか。\r\n`,
    );
  it.each([
    ['no-reply-forms@webflow.com', 'Webflow <no-reply-forms@webflow.com>'],
    ['noreply@shop.example.co.jp', 'WordPress <wordpress@shop.example.co.jp>'],
    ['forms-receipts-noreply@google.com', 'Google Forms <forms-receipts-noreply@google.com>'],
    ['noreply@shop-site.example.jp', 'ショップ <noreply@shop-site.example.jp>'],
    ['noreply@hubspot.com', 'HubSpot <noreply@notifications.hubspot.com>'],
    ['no-reply@customer-site.example.jp', '山田 太郎 <yamada@customer-site.example.jp>'],
  ])('answers a form relay’s customer under Return-Path <%s>', async (returnPath, from) => {
    expect(await mailOutcome(relayed(returnPath, from))).toBe('answer');
  });
  const notice = (returnPath: string, from: string) =>
    Buffer.from(
      `Return-Path: <${returnPath}>\r\nFrom: ${from}\r\nTo: support@helpdesk.example.jp\r\nSubject: Ihre Rechnung als PDF-Dokument\r\nMessage-ID: <inv-${returnPath.length}@example.de>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nIhre Rechnung B181347 liegt als PDF bei. Wie kann ich die Zahlungsart ändern?\r\n`,
    );
  it.each([
    ['anna@example.de', 'Anna <anna@example.de>'],
    // A company's own mail system writes its bounce or no-reply address under its people's mail.
    ['bounces-4711@example.de', 'Anna <anna@example.de>'],
    ['noreply@example.de', 'Anna <anna@example.de>'],
    ['replyto-noreplynot@example.de', 'Anna <anna@example.de>'],
  ])('answers a person under Return-Path <%s>', async (returnPath, from) => {
    expect(await mailOutcome(notice(returnPath, from))).toBe('answer');
  });
});
