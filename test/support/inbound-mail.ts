/**
 * A parsed customer mail for the reply decision's unit tests (src/mail/classify.ts): a person's question to our
 * support address, which each row changes by the fields it is about.
 */
import type { InboundMail } from '../../src/mail/parse.js';

/** A Japanese customer's question to `support@support.example`, with `overrides` applied. */
export function inboundMail(overrides: Partial<InboundMail> = {}): InboundMail {
  return {
    messageId: '<m1@customer.example>',
    from: { address: 'taro@customer.example', name: 'Taro' },
    replyTo: undefined,
    to: [{ address: 'support@support.example', name: '' }],
    cc: [],
    subject: 'Question',
    date: undefined,
    inReplyTo: undefined,
    references: [],
    headers: {},
    contentType: 'text/plain',
    text: 'ログインできません。どうすればよいですか。',
    question: 'ログインできません。どうすればよいですか。',
    attachments: [],
    parseWarnings: [],
    ...overrides,
  };
}

/** What {@link rawCustomerMail} writes; each field has a customer's default. */
export interface RawCustomerMail {
  subject: string;
  body: string;
  /** The From line's value (default: 山田太郎, encoded, at taro.yamada@customer.example). */
  from?: string;
  to?: string;
  messageId?: string;
  /** More header lines, before the MIME ones (a reply's In-Reply-To and References). */
  headers?: readonly string[];
}

/** The subject or a name as an RFC 2047 encoded word, as mail clients write non-ASCII text in a header. */
export const encodedWord = (text: string): string => `=?UTF-8?B?${Buffer.from(text).toString('base64')}?=`;

/** A customer's plain-text UTF-8 mail as it arrives: CRLF line ends, the subject an encoded word. */
export function rawCustomerMail(mail: RawCustomerMail): Buffer {
  return Buffer.from(
    [
      `From: ${mail.from ?? `${encodedWord('山田太郎')} <taro.yamada@customer.example>`}`,
      `To: ${mail.to ?? 'support@support.example'}`,
      `Message-ID: ${mail.messageId ?? '<q1@customer.example>'}`,
      `Subject: ${encodedWord(mail.subject)}`,
      ...(mail.headers ?? []),
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      mail.body.replace(/\n/g, '\r\n'),
      '',
    ].join('\r\n'),
  );
}
