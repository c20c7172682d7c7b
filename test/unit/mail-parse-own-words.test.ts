/**
 * Whether a mail is read by the agent or parked for a person depends on the words the sender wrote themselves, not on
 * whether its text has letters: a phone's footer, a signature, greetings, a pointer to the attachment or the quoted
 * earlier mail are no question, and answering the subject in their place answers a question nobody asked.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseInboundMail } from '../../src/mail/parse.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/mail');
const fixture = (name: string): Buffer => readFileSync(path.join(fixtures, name));

const b64 = (text: string) => `=?UTF-8?B?${Buffer.from(text).toString('base64')}?=`;

/** A mail of one text part and the given attachment parts, under `subject`, optionally a reply. */
function mail(subject: string, text: string, attachments: string[], headers: string[] = []): Buffer {
  return Buffer.from(
    [
      'From: Taro <taro@customer.example>',
      'To: support@support.example',
      'Message-ID: <own-1@customer.example>',
      `Subject: ${b64(subject)}`,
      ...headers,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary=b',
      '',
      '--b',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      text.replace(/\n/g, '\r\n'),
      ...attachments.flatMap((part) => ['--b', part]),
      '--b--',
      '',
    ].join('\r\n'),
  );
}
const png = 'Content-Type: image/png; name=screenshot.png\r\nContent-Disposition: attachment; filename=screenshot.png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=';
const pdf = 'Content-Type: application/pdf; name=invoice.pdf\r\nContent-Disposition: attachment; filename=invoice.pdf\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK';
const reply = ['In-Reply-To: <our-reply-1@support.example>', 'References: <our-reply-1@support.example>'];

describe('parseInboundMail: a question only in an attachment, beside words that are not the sender\'s own', () => {
  it.each<[string, Buffer, string | undefined]>([
    // The audit's samples: answered from the subject alone before.
    ['a screenshot with only "iPhoneから送信"', fixture('attachment-phone-footer-only.eml'), "the mail's text is only in its attachment IMG_0001.PNG"],
    ['a PDF with only a signature', fixture('attachment-signature-only.eml'), 'only in its attachment mitsumori.pdf'],
    ['an Excel file with greetings and 詳細は添付ファイルをご確認ください', fixture('attachment-see-attached-ja.eml'), 'only in its attachment bug.xlsx'],
    ['a screenshot with "Sent from my iPhone"', mail('Error', '\n\nSent from my iPhone', [png]), 'only in its attachment screenshot.png'],
    ['a PDF with a pointer and a phone footer', mail('Invoice', 'Please see the attached file.\n\nSent from my iPhone', [pdf]), 'only in its attachment invoice.pdf'],
    ['a screenshot in a reply that holds only the quote', mail('Re: ログインできません', '\n2026年11月20日(金) 9:00 サポート <support@support.example>:\n> キャッシュを削除してお試しください。', [png], reply), 'only in its attachment screenshot.png'],
    // Words of the sender's own beside the file: the agent reads them.
    ['a screenshot beside a question and a footer', mail('エラー画面', 'CSVの取り込みでエラーが出ます。どうすればよいですか？\n\niPhoneから送信', [png]), undefined],
    ['an Excel file beside a pointer and a sentence of the problem', mail('不具合報告', 'お世話になっております。\n詳細は添付ファイルをご確認ください。\nCSVの取り込みでエラーになります。\nよろしくお願いいたします。', [pdf]), undefined],
    ['a PDF beside a sentence about the file itself', mail('請求書', '添付ファイルが開けません。', [pdf]), undefined],
    // A forward with nothing above it is a question about the forwarded mail, whose text is read.
    ['a PDF under a forwarded mail of text', mail('FW: Invoice', '\n-----Original Message-----\nFrom: Billing <billing@x.example>\nSent: Monday\nSubject: Invoice\n\nYour invoice 123 is overdue.', [pdf]), undefined],
    // Without an attachment nothing changes: the subject is the question (a phone that sends the subject only).
    ['only a phone footer, no attachment', mail('機種変更したらデータは引き継げますか', '\niPhoneから送信', []), undefined],
  ])('%s', async (_what, raw, expected) => {
    const parsed = await parseInboundMail(raw);
    if (expected === undefined) expect(parsed.unreadable).toBeUndefined();
    else expect(parsed.unreadable).toContain(expected);
  });
});

describe('parseInboundMail: a reply of only the quoted earlier mail', () => {
  it.each<[string, Buffer, string | undefined]>([
    ['the audit sample: a Gmail-style quote of our reply, nothing above it', fixture('reply-quote-only-ja.eml'), 'the reply holds only the quoted earlier mail'],
    ['an Outlook reply with nothing new', mail('RE: Invoice', '\n\n________________________________\nFrom: Support <support@support.example>\nSent: Monday\nTo: me\nSubject: Invoice\n\nOur earlier answer.', [], reply), 'the reply holds only the quoted earlier mail'],
    ['`>` lines and a phone footer', mail('Re: Invoice', '> Our earlier answer.\n\nSent from my iPhone', [], reply), 'the reply holds only the quoted earlier mail'],
    ['a question above the quote', mail('Re: ログインできません', 'まだログインできません。\n\n2026年11月20日(金) 9:00 サポート <support@support.example>:\n> キャッシュを削除してお試しください。', [], reply), undefined],
    ['an answer below the quote', mail('Re: Invoice', 'On Mon, Nov 2, 2026, Support wrote:\n> Which invoice?\n\nNumber 123.', [], reply), undefined],
    ['only a signature, no quote', mail('CSVエクスポートの文字コードを変更できますか', '--\n山田 太郎\nTEL: 03-1234-5678', []), undefined],
  ])('%s', async (_what, raw, expected) => {
    const parsed = await parseInboundMail(raw);
    if (expected === undefined) expect(parsed.unreadable).toBeUndefined();
    else expect(parsed.unreadable).toContain(expected);
  });

  it('keeps the subject as the question for the person who reads it', async () => {
    expect((await parseInboundMail(fixture('reply-quote-only-ja.eml'))).question).toBe('ログインできません');
  });
});

// RFC 2183 says an unknown disposition reads as `attachment`, so mailparser files the only part of such a mail as an
// attachment and the mail has no text. A single-part text mail's one part is its body unless the sender's client
// marked it as a file (`attachment`): a person opens that file, as a mail client shows it.
describe('parseInboundMail: a single-part text mail with a Content-Disposition', () => {
  const single = (type: string, disposition: string | undefined, body: string) =>
    Buffer.from(
      [
        'From: <redacted@customer.example>',
        'Subject: Redacted',
        'To: <support@support.example>',
        'Message-ID: <105647271315.NCV17523@customer.example>',
        'MIME-version: 1.0',
        `Content-Type: ${type.includes('charset') ? type : `${type};\r\n charset=utf-8`}`,
        ...(disposition ? [`Content-Disposition: ${disposition}`] : []),
        'Content-Transfer-Encoding: quoted-printable',
        ...(disposition ? [`Content-Disposition: ${disposition}`] : []),
        '',
        body,
        '',
      ].join('\r\n'),
    );

  it.each<[string, Buffer, { question: string; text: string; unreadable?: string; attachments: number }]>([
    // The corpus's error_emails/multiple_invalid_content_dispositions.eml.
    ['text/html, a bogus disposition twice', single('text/html', '=?utf-8?Q?invalid?=', '<p>foo</p>'), { question: 'foo', text: 'foo', attachments: 0 }],
    ['text/plain, an unknown disposition', single('text/plain', 'x-unknown', 'How do I export my invoices?'), { question: 'How do I export my invoices?', text: 'How do I export my invoices?', attachments: 0 }],
    ['text/plain in ISO-8859-1 under an unknown disposition', single('text/plain; charset=iso-8859-1', 'bogus', 'Caf=E9 question: how do I export?'), { question: 'Café question: how do I export?', text: 'Café question: how do I export?', attachments: 0 }],
    ['text/plain, inline', single('text/plain', 'inline', 'How do I export my invoices?'), { question: 'How do I export my invoices?', text: 'How do I export my invoices?', attachments: 0 }],
    // A file the sender attached as the whole mail stays a file.
    [
      'text/plain marked as an attachment with a file name',
      single('text/plain', 'attachment; filename=error.log', 'ERROR 500 at /export'),
      { question: 'Redacted', text: '', unreadable: 'only in its attachment error.log', attachments: 1 },
    ],
  ])('%s', async (_what, raw, expected) => {
    const parsed = await parseInboundMail(raw);
    expect(parsed.question).toBe(expected.question);
    expect(parsed.text.trim()).toBe(expected.text);
    expect(parsed.attachments).toHaveLength(expected.attachments);
    if (expected.unreadable === undefined) expect(parsed.unreadable).toBeUndefined();
    else expect(parsed.unreadable).toContain(expected.unreadable);
  });
});
