/**
 * What a bounce says about the mail it returns: which mail (the Message-IDs of the original it quotes) and what
 * happened at the recipient (RFC 3464 delivery-status fields: `Action`, `Status`, `Diagnostic-Code`).
 *
 * Bounces come in two shapes. Standard ones (multipart/report; report-type=delivery-status) carry the fields in a
 * `message/delivery-status` part — which mailparser merges into the mail's text — and the original's headers in a
 * `message/rfc822` or `text/rfc822-headers` part. Older MTAs (qmail, Exchange's plain notices) write prose and paste
 * the original below it. Both name the original's `Message-ID:`, which is how a bounce of one of our replies finds its
 * ticket: the sender links each reply's Message-ID to its ticket.
 */
import { isValidMessageId, normaliseMessageId } from './message-id.js';

/** What a bounce reports; see the module comment. */
export interface DeliveryReport {
  /** Message-IDs of the mail the report is about, normalised `<left@right>`, at most {@link MAX_REPORTED_IDS}. */
  messageIds: string[];
  /**
   * True when delivery failed for good: a delivery-status `Action: failed`, or a report without those fields that
   * does not read as a warning. False for `delayed`, `delivered`, `relayed`, `expanded` and "still trying" notices.
   */
  failed: boolean;
  /** The recipient it is about (`Final-Recipient`, without its `rfc822;` type), when the report names one. */
  recipient?: string;
  /** The enhanced status code, e.g. `5.1.1`. */
  status?: string;
  /** What the receiving server said, one line, at most {@link MAX_DIAGNOSTIC_CHARS} characters. */
  diagnostic?: string;
}

/** A MIME part of the report other than its text, as mailparser hands it over. */
export interface ReportPart {
  contentType: string;
  content: Buffer;
}

/** Real reports name one original; a hostile one could name thousands. */
export const MAX_REPORTED_IDS = 5;
export const MAX_DIAGNOSTIC_CHARS = 300;
// Only the first part of a huge text or attached original is read: the fields and headers come first.
const MAX_SCANNED_CHARS = 64 * 1024;

const ORIGINAL_PARTS = new Set(['message/rfc822', 'text/rfc822-headers', 'message/rfc822-headers', 'message/global', 'message/global-headers']);
const STATUS_PARTS = new Set(['message/delivery-status', 'message/global-delivery-status']);
// Reports of the same multipart/report shape that are not about delivery: a read receipt (RFC 8098) and a mailbox
// provider's spam complaint (RFC 5965). Both quote the original's headers as a bounce does, and a read receipt of
// our reply says it arrived.
const NOT_DELIVERY_PARTS = new Set(['message/disposition-notification', 'message/global-disposition-notification', 'message/feedback-report']);
const MESSAGE_ID_LINE = /^[ \t>]*Message-ID[ \t]*:[ \t]*(<[^<>\s]{3,250}>)/gim;
// Notices that say the mail is still on its way, in the words of sendmail, Postfix, Exchange and Japanese MTAs.
const WARNING =
  /\b(?:warning message only|delivery (?:has been |is )?delayed|delayed mail|will (?:continue|keep) (?:trying|to try)|still (?:be )?trying|has not yet been delivered|not been delivered yet)\b|配信が遅れて|遅延/i;
// An SMTP reply in prose: `550 5.1.1 …`, `550-5.1.1 …`, `554 …`.
const SMTP_REPLY = /(?:^|[\s(:;])([45]\d\d[ -](?:[45]\.\d{1,3}\.\d{1,3}\b)?[^\n]*)/m;

/**
 * The report of a bounce, from its text and its parts; undefined when it names no original Message-ID (nothing to
 * match it with), and for a read receipt or a spam complaint, which are not about delivery. Pure and bounded: at most
 * the first 64 KB of the text and of each part are read.
 */
export function deliveryReportOf(text: string, parts: readonly ReportPart[]): DeliveryReport | undefined {
  if (parts.some((p) => NOT_DELIVERY_PARTS.has(p.contentType.toLowerCase()))) return undefined;
  const originals = parts.filter((p) => ORIGINAL_PARTS.has(p.contentType.toLowerCase())).map((p) => headerBlock(p.content));
  const statusTexts = [text.slice(0, MAX_SCANNED_CHARS), ...parts.filter((p) => STATUS_PARTS.has(p.contentType.toLowerCase())).map((p) => p.content.toString('utf8', 0, MAX_SCANNED_CHARS))];
  // The attached original's headers first: its Message-ID is the one the report is about. Quoted headers in the text
  // (a prose bounce with the original below) come next.
  const messageIds = uniqueIds([...originals, ...statusTexts]);
  if (messageIds.length === 0) return undefined;
  const fields = recipientFields(statusTexts.join('\n\n'));
  if (fields) {
    const report: DeliveryReport = { messageIds, failed: /^failed\b/i.test(fields.action) };
    if (fields.recipient) report.recipient = fields.recipient;
    if (fields.status) report.status = fields.status;
    const diagnostic = oneLine(fields.diagnostic ?? '');
    if (diagnostic) report.diagnostic = diagnostic;
    return report;
  }
  const prose = text.slice(0, MAX_SCANNED_CHARS);
  const report: DeliveryReport = { messageIds, failed: !WARNING.test(prose) };
  const reply = SMTP_REPLY.exec(prose)?.[1];
  const diagnostic = reply ? oneLine(reply) : '';
  if (diagnostic) report.diagnostic = diagnostic;
  const status = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(diagnostic)?.[1];
  if (status) report.status = status;
  return report;
}

/** The header section of an attached original (up to its first blank line), unfolded. */
function headerBlock(content: Buffer): string {
  const text = content.toString('utf8', 0, MAX_SCANNED_CHARS).replace(/\r\n?/g, '\n');
  const end = text.search(/\n[ \t]*\n/);
  return (end >= 0 ? text.slice(0, end) : text).replace(/\n[ \t]+/g, ' ');
}

function uniqueIds(texts: readonly string[]): string[] {
  const ids: string[] = [];
  for (const text of texts) {
    for (const match of text.matchAll(MESSAGE_ID_LINE)) {
      const id = normaliseMessageId(match[1]);
      if (id && isValidMessageId(id) && !ids.includes(id)) ids.push(id);
      if (ids.length >= MAX_REPORTED_IDS) return ids;
    }
  }
  return ids;
}

interface RecipientFields {
  action: string;
  recipient?: string;
  status?: string;
  diagnostic?: string;
}

/**
 * The per-recipient fields of a delivery-status report: the first block with `Action: failed`, else the first block
 * with an `Action` at all; undefined when there is none. A report about our reply has one recipient, the customer.
 */
function recipientFields(text: string): RecipientFields | undefined {
  let first: RecipientFields | undefined;
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n/)) {
    if (!/^Action[ \t]*:/im.test(block)) continue;
    const fields = new Map<string, string>();
    for (const line of block.replace(/\n[ \t]+/g, ' ').split('\n')) {
      const m = /^([A-Za-z-]+)[ \t]*:[ \t]*(.*)$/.exec(line);
      if (m && !fields.has(m[1]!.toLowerCase())) fields.set(m[1]!.toLowerCase(), m[2]!.trim());
    }
    const found: RecipientFields = { action: fields.get('action') ?? '' };
    const recipient = (fields.get('final-recipient') ?? fields.get('original-recipient'))?.replace(/^[^;]*;\s*/, '').replace(/^<|>$/g, '');
    if (recipient) found.recipient = recipient.slice(0, 254);
    const status = /\b[245]\.\d{1,3}\.\d{1,3}\b/.exec(fields.get('status') ?? '')?.[0];
    if (status) found.status = status;
    const diagnostic = fields.get('diagnostic-code')?.replace(/^[^;]*;\s*/, '');
    if (diagnostic) found.diagnostic = diagnostic;
    if (/^failed\b/i.test(found.action)) return found;
    first ??= found;
  }
  return first;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_DIAGNOSTIC_CHARS ? `${line.slice(0, MAX_DIAGNOSTIC_CHARS)}…` : line;
}
