/**
 * What the product makes of a raw customer mail before the agent, for the mail audits' tables: the poller's ticket
 * (parse, then the ticket its input makes) and the agent worker's checks in their order (the reply decision, what the
 * agent cannot read, a question at all, the parks before the agent, bulk mail held for a person). No Redis: the
 * limits and the repeated-question claim are left out.
 */
import {
  bulkMailDetail,
  decideReply,
  hasQuestion,
  ignoreReasonText,
  ownMailboxesOf,
  parkBeforeAgentReason,
  REPLY_SIGNAL_HEADERS,
  type ParkConfig,
} from '../../src/mail/classify.js';
import { ticketInputForMail } from '../../src/mail/ingest.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { newTicket } from '../../src/tickets/ticket.js';

/** Our mailboxes in the audits' samples. */
export const AUDIT_MAILBOX_CONFIG: ParkConfig = {
  MAIL_FROM: 'XYZ Support <support@helpdesk.example.jp>',
  SUPPORT_ADDRESSES: ['support@helpdesk.example.jp'],
  SUPPORT_GROUP_ADDRESSES: [],
  AUTHSERV_ID: [],
};

/** One of our replies, which the samples' replies answer. */
export const OUR_REPLY_ID = '<3f2b9c1e-7a4d-4e0b-9a51-2c6d8e0f1a11@helpdesk.example.jp>';

const mailboxes = ownMailboxesOf(AUDIT_MAILBOX_CONFIG);

/**
 * `ignore <reason>`, `park <reason>`, `held <reason>` (answered, the draft held for a person) or `answer`: what the
 * poller and the agent worker's checks make of `raw`.
 */
export async function mailOutcome(raw: Buffer): Promise<string> {
  const mail = await parseInboundMail(raw, { extraHeaders: REPLY_SIGNAL_HEADERS });
  const ticket = newTicket(ticketInputForMail(mail, raw, { rawRef: 'raw:test', mailboxes }));
  if (ticket.state === 'parked') return `park ${ticket.reason}`;
  // Signals too large to record on the ticket: the agent worker reads the raw mail again, as parsed here.
  const signals = { ...(ticket.replySignals ?? mail), subject: ticket.subject, inReplyTo: ticket.inReplyTo, references: ticket.references };
  const decision = decideReply(signals, mailboxes);
  if (!decision.answer) return `ignore ${ignoreReasonText(decision)}`;
  if (ticket.unreadable) return `park ${ticket.unreadable}`;
  if (!hasQuestion(ticket)) return 'park no question';
  const park = parkBeforeAgentReason({ ...signals, question: ticket.question }, AUDIT_MAILBOX_CONFIG);
  if (park) return `park ${park}`;
  const held = bulkMailDetail(signals, mailboxes);
  return held ? `held ${held}` : 'answer';
}
