/**
 * A plain customer mail as a mail client would write it, for the sandbox and the demo to deliver into the mailbox.
 */
import { randomUUID } from 'node:crypto';

/** What a customer writes. */
export interface CustomerMailInput {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** Default: a fresh `<uuid@sandbox.example>`. */
  messageId?: string;
}

/** The raw RFC 5322 message (CRLF, UTF-8 subject and body in base64). */
export function customerMail(input: CustomerMailInput): string {
  return [
    `From: ${input.from}`,
    `To: ${input.to}`,
    `Subject: =?UTF-8?B?${Buffer.from(input.subject).toString('base64')}?=`,
    `Message-ID: ${input.messageId ?? `<${randomUUID()}@sandbox.example>`}`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=UTF-8',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from(input.text).toString('base64'),
    '',
  ].join('\r\n');
}
