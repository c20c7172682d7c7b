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
