/**
 * A minimal raw customer mail to the support address, and what the poller and the agent worker's checks before the
 * agent decide of it, in their order, with the sender verification and list-copy checks that
 * {@link ./mail-outcome.ts}'s `mailOutcome` leaves out: the tables of mail audit 7 and bug review 41a.
 */
import { parseConfig } from '../../src/config.js';
import {
  decideReply,
  hasQuestion,
  ignoreReasonText,
  listCopyReviewReason,
  noQuestionReason,
  outrankedBySenderVerification,
  ownMailboxesOf,
  parkBeforeAgentReason,
  replySignalHeaders,
  senderVerificationOf,
} from '../../src/mail/classify.js';
import { ticketInputForMail } from '../../src/mail/ingest.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { newTicket } from '../../src/tickets/ticket.js';

/** The support address of the tables. */
export const SUPPORT = 'support@helpdesk.example.jp';
/** One of our replies, which the tables' replies answer. */
const OUR_ID = '<3f2b9c1e-7a4d@helpdesk.example.jp>';

const config = parseConfig({ ...process.env, MAIL_FROM: `XYZ Support <${SUPPORT}>`, SUPPORT_ADDRESSES: SUPPORT, OPENAI_API_KEY: 'x' }, { groups: [] as never });
const mailboxes = ownMailboxesOf(config);

/** A mail of the tables: its From, subject, text and extra headers. */
export interface RawMail {
  from: string;
  subject: string;
  body: string;
  /** Extra header lines, as written. */
  headers?: string[];
  /** Threaded under one of our replies. */
  reply?: boolean;
  /** An attachment's content type and file name (a few bytes of a PDF's start as its content). */
  attachment?: [type: string, name: string];
}

function encoded(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text).toString('base64')}?=`;
}

/** A raw mail to the support address, UTF-8 text, optionally with one attachment. */
export function raw({ from, subject, body, headers = [], reply = false, attachment }: RawMail): Buffer {
  const text = ['Content-Type: text/plain; charset=UTF-8', 'Content-Transfer-Encoding: base64', '', Buffer.from(body.replace(/\n/g, '\r\n')).toString('base64')];
  const content = attachment
    ? [
        'Content-Type: multipart/mixed; boundary="b0"',
        '',
        '--b0',
        ...text,
        '--b0',
        `Content-Type: ${attachment[0]}; name="${attachment[1]}"`,
        `Content-Disposition: attachment; filename="${attachment[1]}"`,
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('JVBERi0xLjQKJSVFT0YK').toString('base64'),
        '--b0--',
      ]
    : text;
  return Buffer.from(
    [
      `From: ${from}`,
      `To: XYZ Support <${SUPPORT}>`,
      `Subject: ${encoded(subject)}`,
      'Date: Wed, 25 Nov 2026 14:06:11 +0900',
      'Message-ID: <m1@sender.example>',
      ...(reply ? [`In-Reply-To: ${OUR_ID}`, `References: ${OUR_ID}`] : []),
      ...headers,
      'MIME-Version: 1.0',
      ...content,
      '',
    ].join('\r\n'),
  );
}

/**
 * What the poller and the agent worker's checks before the agent decide: `ignore <reason>: <detail>`,
 * `park <reason>`, or `answer` (the agent runs). A Buffer is taken as the raw mail itself (a fixture).
 */
export async function decisionOf(mail: RawMail | Buffer): Promise<string> {
  const bytes = Buffer.isBuffer(mail) ? mail : raw(mail);
  const parsed = await parseInboundMail(bytes, { maxBytes: config.MAX_EMAIL_BYTES, extraHeaders: replySignalHeaders(config) });
  const ticket = newTicket(ticketInputForMail(parsed, bytes, { rawRef: 'x', mailboxes }));
  if (ticket.state === 'parked') return `park ${ticket.reason}`;
  const signals = { ...(ticket.replySignals ?? parsed), subject: ticket.subject, inReplyTo: ticket.inReplyTo, references: ticket.references };
  const decision = decideReply(signals, mailboxes);
  const verification = outrankedBySenderVerification(decision) ? senderVerificationOf({ ...signals, question: ticket.question }, mailboxes) : undefined;
  if (verification) return `park sender verification ${verification.detail}`;
  if (!decision.answer) return `ignore ${ignoreReasonText(decision)}`;
  const listCopy = listCopyReviewReason(signals, mailboxes);
  if (listCopy) return `park ${listCopy}`;
  if (ticket.unreadable) return `park ${ticket.unreadable}`;
  if (!hasQuestion(ticket)) return `park ${noQuestionReason(ticket.question)}`;
  const held = parkBeforeAgentReason({ ...signals, question: ticket.question }, config);
  return held ? `park ${held}` : 'answer';
}
