import { describe, expect, it } from 'vitest';
import { mailContentKey } from '../../src/mail/ingest.js';
import { parseInboundMail } from '../../src/mail/parse.js';

type Content = Parameters<typeof mailContentKey>[0];

const BASE: Content = {
  text: 'How do I export my data from Café Manager?\nThe export button is greyed out.',
  subject: 'Export',
  attachments: [{ filename: 'screen.png', contentType: 'image/png', size: 2048 }],
};

describe('mailContentKey: what tells a copy of a mail from another mail under its Message-ID', () => {
  it.each<[string, Partial<Content>]>([
    ['another subject (a gateway tag, a list prefix)', { subject: '[EXTERNAL] Export' }],
    ['other line breaks and white space', { text: '  How do I export my data from Café Manager?\r\n\r\nThe export  button is greyed out.\n\n' }],
    ['the text in decomposed Unicode (NFD)', { text: BASE.text.normalize('NFD') }],
  ])('is the same with %s', (_name, change) => {
    expect(mailContentKey({ ...BASE, ...change })).toBe(mailContentKey(BASE));
  });

  it.each<[string, Partial<Content>]>([
    ['a word changed', { text: BASE.text.replace('greyed out', 'missing') }],
    ['a sentence added', { text: `${BASE.text}\nI also need the invoices.` }],
    ['another attachment name', { attachments: [{ filename: 'other.png', contentType: 'image/png', size: 2048 }] }],
    ['another attachment size', { attachments: [{ filename: 'screen.png', contentType: 'image/png', size: 2049 }] }],
    ['no attachment', { attachments: [] }],
  ])('differs with %s', (_name, change) => {
    expect(mailContentKey({ ...BASE, ...change })).not.toBe(mailContentKey(BASE));
  });

  it('counts the subject when the mail has neither text nor attachments: then the subject is the question', () => {
    const bare = { text: ' \n', attachments: [] };
    expect(mailContentKey({ ...bare, subject: 'Reset my password' })).not.toBe(mailContentKey({ ...bare, subject: 'Delete my account' }));
    expect(mailContentKey({ ...bare, subject: 'Reset  my password ' })).toBe(mailContentKey({ ...bare, subject: 'Reset my password' }));
  });

  it('reads the decoded mail: the same text sent 8bit and base64 is one content, another text another', async () => {
    const head = ['From: customer@example.com', 'Subject: 質問', 'Message-ID: <k@example.com>', 'MIME-Version: 1.0'];
    const text = '会員登録の確認メールが届きません。\r\nもう一度送っていただけますか。\r\n';
    const eightBit = [...head, 'Content-Type: text/plain; charset=UTF-8', 'Content-Transfer-Encoding: 8bit', '', text].join('\r\n');
    const base64 = [...head, 'Content-Type: text/plain; charset=UTF-8', 'Content-Transfer-Encoding: base64', '', Buffer.from(text).toString('base64')].join('\r\n');
    const other = eightBit.replace('もう一度', '至急');
    const [a, b, c] = await Promise.all([eightBit, base64, other].map((raw) => parseInboundMail(Buffer.from(raw))));
    expect(mailContentKey(a!)).toBe(mailContentKey(b!));
    expect(mailContentKey(a!)).not.toBe(mailContentKey(c!));
  });
});
