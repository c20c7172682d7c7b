/**
 * Should this inbound mail get an answer? A pure decision over the parsed headers that keeps the worker out of
 * conversations with machines: auto-responders, bounces, mailing lists, itself. Rate limiting and the "is there a
 * question at all" check need state or come later in the pipeline and are not decided here.
 */
import { isUsableAddress, localPart, normaliseAddress, ownAddressMatcher, parseAddressList, stripComments, type MailAddress } from './addresses.js';
import type { Config } from '../config.js';
import type { InboundMail } from './parse.js';

/** Why a mail is not answered. */
export type IgnoreReason = 'auto-reply' | 'bounce' | 'list' | 'loop' | 'own-address' | 'spam' | 'no-reply-sender' | 'no-sender';

/** Our own addresses, as {@link ReplyContext.ourAddresses} takes them: MAIL_FROM and SUPPORT_ADDRESSES. */
export function ourAddressesOf(config: Pick<Config, 'MAIL_FROM' | 'SUPPORT_ADDRESSES'>): string[] {
  return [...(config.MAIL_FROM ? [config.MAIL_FROM] : []), ...config.SUPPORT_ADDRESSES];
}

/** The outcome of {@link decideReply}; `detail` names the header or address that decided, for logs and the dashboard. */
export type ReplyDecision = { answer: true } | { answer: false; reason: IgnoreReason; detail: string };

/** What {@link decideReply} needs besides the mail. */
export interface ReplyContext {
  /** Our own addresses: MAIL_FROM and SUPPORT_ADDRESSES (bare or `Name <addr>`). */
  ourAddresses: readonly string[];
  /** A token our outgoing mail carries in X-Loop (besides our addresses); an inbound X-Loop containing it is a loop. */
  loopMarker?: string | undefined;
  /**
   * A spam filter's verdict header besides the common ones (SPAM_HEADER / SPAM_HEADER_VALUE): the mail is spam when
   * the header is present and, with a `value`, its value contains it (case ignored).
   */
  spamHeader?: { name: string; value?: string | undefined } | undefined;
}

/**
 * The subset of {@link InboundMail} the decision reads. The subject and the thread (In-Reply-To, References) are
 * optional: without them an out-of-office notice known only by its subject is answered.
 */
export type ClassifiableMail = Pick<InboundMail, 'from' | 'replyTo' | 'headers' | 'contentType'> &
  Partial<Pick<InboundMail, 'subject' | 'inReplyTo' | 'references'>>;

/**
 * What the reply decision reads of a mail besides what its ticket holds anyway (subject, thread), recorded on the
 * ticket when the poller ingests it, so the agent worker decides without loading and parsing the raw mail again
 * (that was about a tenth of its CPU per ticket). It is a plain JSON value: {@link decideReply} over it and the
 * ticket's subject and thread, once stored and read back, decides as over the parsed mail.
 */
export type ReplySignals = Pick<InboundMail, 'from' | 'replyTo' | 'headers' | 'contentType'>;

/** Signals larger than this (a mail with thousands of List or X-Loop headers) are not stored; the agent parses instead. */
export const MAX_REPLY_SIGNALS_CHARS = 16_384;

/** The {@link ReplySignals} of a parsed mail, or undefined when they are too large to keep on the ticket. */
export function replySignalsOf(mail: ClassifiableMail): ReplySignals | undefined {
  const signals: ReplySignals = { from: mail.from, replyTo: mail.replyTo, headers: mail.headers, contentType: mail.contentType };
  return JSON.stringify(signals).length <= MAX_REPLY_SIGNALS_CHARS ? signals : undefined;
}

/** First token of a header value: comments removed, parameters after `;` dropped, lower-case. */
function keyword(value: string): string {
  return (stripComments(value).split(';')[0] ?? '').trim().toLowerCase();
}

function values(mail: ClassifiableMail, name: string): string[] {
  return mail.headers[name] ?? [];
}

// Values by which a sender says "this is NOT automatic" in the non-standard autoresponder headers below.
const NEGATIVE = new Set(['', 'no', 'false', '0', 'off']);

// Non-standard autoresponder headers, by lower-case name and as written in a reason.
const VENDOR_AUTO_REPLY_HEADERS: ReadonlyArray<readonly [name: string, label: string]> = [
  ['x-autoreply', 'X-Autoreply'],
  ['x-autorespond', 'X-Autorespond'],
  ['x-autoresponder', 'X-Autoresponder'],
];

// Precedence values some autoresponders write instead of Auto-Submitted.
const AUTO_REPLY_PRECEDENCE = new Set(['auto_reply', 'auto-reply']);

// The fixed prefix an out-of-office notice puts before the subject of the mail it answers, from systems that write
// none of the headers (client-side rules, some groupware and hosting autoresponders): Outlook's in several
// languages, Exchange 2003's, and the bracketed forms of Japanese autoresponders. Followed by a colon (ASCII or
// full-width) or, bracketed, standing alone.
const AUTO_REPLY_SUBJECT = new RegExp(
  String.raw`^\s*(?:(?:${[
    String.raw`auto(?:matic)?[- ]?(?:reply|response)`,
    String.raw`out of (?:the )?office(?: auto-?reply)?`,
    'oof',
    'ooo',
    'automatische antwort',
    'abwesenheitsnotiz',
    String.raw`r[ée]ponse automatique`,
    String.raw`respuesta autom[áa]tica`,
    'risposta automatica',
    String.raw`resposta autom[áa]tica`,
    'automatisch antwoord',
    '自動応答',
    '自動返信',
    '自動返答',
    '不在通知',
    '自动回复',
    '自動回覆',
    String.raw`자동\s?회신`,
  ].join('|')})\s*[:：]|[【\[［](?:自動応答|自動返信|自動返答|不在通知)[】\]］])`,
  'iu',
);

function autoReplyDetail(mail: ClassifiableMail): string | undefined {
  for (const value of values(mail, 'auto-submitted')) {
    const kw = keyword(value);
    // RFC 3834 §5: any value other than "no" means automatic; an empty header says nothing either way.
    if (kw !== '' && kw !== 'no') return `Auto-Submitted: ${value}`;
  }
  for (const [name, label] of VENDOR_AUTO_REPLY_HEADERS) {
    for (const value of values(mail, name)) {
      if (!NEGATIVE.has(keyword(value))) return `${label}: ${value}`;
    }
  }
  for (const value of values(mail, 'precedence')) {
    if (AUTO_REPLY_PRECEDENCE.has(keyword(value))) return `Precedence: ${value}`;
  }
  for (const value of values(mail, 'x-auto-response-suppress')) {
    const tokens = stripComments(value)
      .split(/[\s,;]+/)
      .map((t) => t.toLowerCase());
    // Exchange marks its own out-of-office and rule-generated mail this way; DR/NDR/RN alone are ordinary senders
    // asking not to get receipts.
    if (tokens.some((t) => t === 'oof' || t === 'autoreply' || t === 'all')) return `X-Auto-Response-Suppress: ${value}`;
  }
  const rulesLoop = values(mail, 'x-ms-exchange-inbox-rules-loop')[0];
  if (rulesLoop !== undefined) return `X-MS-Exchange-Inbox-Rules-Loop: ${rulesLoop}`;
  for (const value of values(mail, 'x-ms-exchange-generated-message-source')) {
    // "Mailbox Rules Agent" is Exchange answering for the mailbox (out-of-office, inbox rules); other agents
    // (transport rules adding disclaimers) touch human mail and are no reason to stay silent.
    if (/mailbox rules agent/i.test(value)) return `X-MS-Exchange-Generated-Message-Source: ${value}`;
  }
  const isReply = Boolean(mail.inReplyTo) || (mail.references?.length ?? 0) > 0;
  if (isReply && mail.subject && AUTO_REPLY_SUBJECT.test(mail.subject)) return `Subject: ${mail.subject}`;
  return undefined;
}

// Local parts of delivery-system senders (RFC 5321 §4.5.1 postmaster, sendmail/Postfix MAILER-DAEMON).
const BOUNCE_SENDERS = new Set(['mailer-daemon', 'postmaster']);
// Machine-generated reports of any report-type (delivery status, read receipts, feedback loops).
const REPORT_TYPES = new Set(['multipart/report', 'message/delivery-status', 'message/disposition-notification', 'message/feedback-report']);

/** True for a bounce or another delivery report: what the reply decision ignores as `bounce`. */
export function isBounce(mail: ClassifiableMail): boolean {
  return bounceDetail(mail) !== undefined;
}

// What a report is, by its report-type (RFC 6522) or its own type, for the operator reading the reason.
const REPORT_KINDS: Record<string, string> = {
  'disposition-notification': 'read receipt',
  'message/disposition-notification': 'read receipt',
  'feedback-report': 'spam complaint',
  'message/feedback-report': 'spam complaint',
};

function bounceDetail(mail: ClassifiableMail): string | undefined {
  if (REPORT_TYPES.has(mail.contentType)) {
    const reportType = /;\s*report-type\s*=\s*"?([\w.-]+)/i.exec(values(mail, 'content-type')[0] ?? '')?.[1]?.toLowerCase();
    const header = `Content-Type: ${mail.contentType}${reportType ? `; report-type=${reportType}` : ''}`;
    const kind = REPORT_KINDS[reportType ?? mail.contentType];
    return kind ? `${kind} (${header})` : header;
  }
  // The topmost Return-Path is the one the final MTA wrote; an empty reverse-path is how MTAs send bounces.
  const returnPath = values(mail, 'return-path')[0];
  if (returnPath !== undefined && stripComments(returnPath).replace(/\s+/g, '') === '<>') return 'Return-Path: <>';
  const failed = values(mail, 'x-failed-recipients')[0];
  if (failed !== undefined) return `X-Failed-Recipients: ${failed}`;
  if (mail.from && BOUNCE_SENDERS.has(localPart(mail.from.address))) return `From: ${mail.from.address}`;
  const sender = normaliseAddress(values(mail, 'sender')[0]);
  if (sender && BOUNCE_SENDERS.has(localPart(sender))) return `Sender: ${sender}`;
  return undefined;
}

const BULK_PRECEDENCE = new Set(['bulk', 'list', 'junk']);

// RFC 2919's List-Id and RFC 2369's fields, which list software writes even where it writes no List-Id (older
// Mailman, Majordomo, LISTSERV), then the older managers' own: SmartList and vger (X-Mailing-List), ezmlm and Yahoo
// Groups (Mailing-List). Any of them, with a value, marks list traffic; `List-Post: NO` is an announcement list.
const LIST_HEADERS: ReadonlyArray<readonly [name: string, label: string]> = [
  ['list-id', 'List-Id'],
  ['list-unsubscribe', 'List-Unsubscribe'],
  ['list-post', 'List-Post'],
  ['list-help', 'List-Help'],
  ['list-subscribe', 'List-Subscribe'],
  ['list-owner', 'List-Owner'],
  ['list-archive', 'List-Archive'],
  ['x-mailing-list', 'X-Mailing-List'],
  ['mailing-list', 'Mailing-List'],
];

function listDetail(mail: ClassifiableMail): string | undefined {
  for (const [name, label] of LIST_HEADERS) {
    const value = values(mail, name).find((v) => v.trim() !== '');
    if (value !== undefined) return `${label}: ${value}`;
  }
  for (const value of values(mail, 'precedence')) {
    if (BULK_PRECEDENCE.has(keyword(value))) return `Precedence: ${value}`;
  }
  return undefined;
}

/**
 * The customer behind a From that our own group rewrote to itself (Google Groups and Mailman do so for senders whose
 * domain publishes a strict DMARC policy, and put the sender in Reply-To): the Reply-To mailbox; undefined for any
 * other mail. The ticket's sender is then the customer, so the per-sender limits and the repeated-question check do
 * not count every such customer as one sender, ourselves.
 */
export function customerBehindOwnGroup(mail: ClassifiableMail, ourAddresses: readonly string[]): MailAddress | undefined {
  const isOurs = ownAddressMatcher(ourAddresses);
  return isOurs(mail.from?.address) && isViaOwnGroup(mail, ourAddresses, isOurs) ? customerInReplyTo(mail, isOurs) : undefined;
}

function customerInReplyTo(mail: ClassifiableMail, isOurs: (address: string | undefined) => boolean): MailAddress | undefined {
  return mail.replyTo && !isOurs(mail.replyTo.address) ? mail.replyTo : undefined;
}

/**
 * True when the mail's list headers name one of our own addresses as the list itself: the support address is a
 * group (Google Groups, Mailman) delivering to the mailbox we poll. Read from `List-Post`'s mailto, `Mailing-List`'s
 * `list <address>` (Google Groups, ezmlm) and `List-Id`, whose id is the list address with `@` as `.` by the common
 * convention (RFC 2919 §3 leaves it free; Google Groups and Mailman follow it).
 */
function isViaOwnGroup(mail: ClassifiableMail, ourAddresses: readonly string[], isOurs: (address: string | undefined) => boolean): boolean {
  for (const value of values(mail, 'list-post')) {
    for (const [, address] of value.matchAll(/<mailto:([^>?\s]+)/gi)) if (isOurs(address)) return true;
  }
  for (const value of values(mail, 'mailing-list')) {
    const address = /^\s*list\s+([^;\s]+)/i.exec(value)?.[1];
    if (isOurs(address)) return true;
  }
  const ids = values(mail, 'list-id').map((v) => /<([^<>\s]+)>/.exec(v)?.[1]?.toLowerCase());
  if (ids.every((id) => id === undefined)) return false;
  const ourIds = new Set(parseAddressList(ourAddresses.join(', ')).map((a) => a.address.toLowerCase().replace('@', '.')));
  return ids.some((id) => id !== undefined && ourIds.has(id));
}

function loopDetail(mail: ClassifiableMail, isOurs: (address: string | undefined) => boolean, marker: string | undefined): string | undefined {
  const needle = marker?.trim().toLowerCase();
  for (const value of values(mail, 'x-loop')) {
    if (needle && value.toLowerCase().includes(needle)) return `X-Loop: ${value}`;
    // X-Loop usually holds a bare address, but some MTAs write `Name <addr>` or a list of them.
    if (parseAddressList(value).some((entry) => isOurs(entry.address))) return `X-Loop: ${value}`;
  }
  return undefined;
}

/**
 * The upstream filter's spam verdict, from the headers SpamAssassin, Rspamd and most appliances add: `X-Spam-Flag:
 * YES`, `X-Spam-Status: Yes, …`, `X-Spam: yes|true|spam`, and the configured header. An automatic reply to spam is
 * backscatter to a forged address, which gets our domain blocklisted.
 */
function spamDetail(mail: ClassifiableMail, configured: ReplyContext['spamHeader']): string | undefined {
  for (const value of values(mail, 'x-spam-flag')) if (keyword(value) === 'yes') return `X-Spam-Flag: ${value}`;
  for (const value of values(mail, 'x-spam-status')) if (/^\s*yes\b/i.test(value)) return `X-Spam-Status: ${value}`;
  for (const value of values(mail, 'x-spam')) if (['yes', 'true', 'spam', '1'].includes(keyword(value))) return `X-Spam: ${value}`;
  if (configured?.name) {
    const wanted = configured.value?.toLowerCase();
    for (const value of values(mail, configured.name.toLowerCase())) {
      if (!wanted || value.toLowerCase().includes(wanted)) return `${configured.name}: ${value}`;
    }
  }
  return undefined;
}

// noreply / no-reply / no_reply / donotreply / do-not-reply / dont-reply as a whole local part or one segment of
// it (gmail-noreply, noreply-12345), digits allowed right after the keyword (noreply2, noreply0015), and
// bounce(s)/mailer as the leading segment (VERP: bounces+abc, bounce-123-x).
const NO_REPLY_LOCAL_PART =
  /(?:^|[-_.+])(?:no[-_.]?reply|do[-_.]?not[-_.]?reply|dont[-_.]?reply)\d*(?:$|[-_.+])|^(?:bounces?|mailer)(?:$|[-_.+])/;

/** True when the local part of `address` marks a mailbox nobody reads (noreply@, do-not-reply@, bounces@, mailer@…). */
export function isNoReplyAddress(address: string): boolean {
  return NO_REPLY_LOCAL_PART.test(localPart(address));
}

/**
 * Decides whether a mail gets an answer. Pure: same mail and context, same decision.
 *
 * Rules, first match wins; the order puts the most specific evidence first so `reason` says what really happened:
 * 1. `loop` — X-Loop contains one of our addresses or `loopMarker`: our own mail came back.
 * 2. `own-address` — From, or the reply target (Reply-To), is one of our addresses (case and `+tag` ignored):
 *    answering would mail ourselves. Except a From that our own group rewrote to itself with the customer in
 *    Reply-To ({@link customerBehindOwnGroup}).
 * 3. `bounce` — multipart/report (any report-type) or another report type at top level, `Return-Path: <>`,
 *    X-Failed-Recipients, or a MAILER-DAEMON / postmaster From or Sender. Before `auto-reply` because delivery
 *    reports also carry `Auto-Submitted`, and "bounce" is the more useful answer.
 * 4. `auto-reply` — Auto-Submitted other than `no` (RFC 3834), X-Autoreply, X-Autorespond, X-Autoresponder,
 *    Precedence auto_reply, X-Auto-Response-Suppress with OOF/AutoReply/All, X-MS-Exchange-Inbox-Rules-Loop,
 *    Exchange "Mailbox Rules Agent" messages, and a reply (In-Reply-To or References) whose subject starts with an
 *    out-of-office prefix (`Automatic reply:`, `自動応答:`, `【自動返信】`…); a new mail with such a subject is
 *    answered, since it may be asking about the feature.
 * 5. `list` — List-Id, RFC 2369's List-* fields (Unsubscribe, Post, Help, Subscribe, Owner, Archive), X-Mailing-List,
 *    Mailing-List, Precedence bulk/list/junk; not when the list is one of our own addresses (the support address
 *    is a group delivering to the polled mailbox).
 * 5a. `spam` — the upstream filter's verdict (X-Spam-Flag, X-Spam-Status, X-Spam, the configured header).
 * 6. `no-sender` — neither Reply-To nor From holds a usable address.
 * 7. `no-reply-sender` — the address a reply would go to (Reply-To, else From) is a noreply-style mailbox. Reply-To
 *    wins so web forms that send from noreply@ with the customer in Reply-To are still answered.
 * Otherwise the mail is answered.
 */
export function decideReply(mail: ClassifiableMail, ctx: ReplyContext): ReplyDecision {
  const isOurs = ownAddressMatcher(ctx.ourAddresses);
  const ignore = (reason: IgnoreReason, detail: string): ReplyDecision => ({ answer: false, reason, detail });

  const loop = loopDetail(mail, isOurs, ctx.loopMarker);
  if (loop) return ignore('loop', loop);
  // Delivered through a group that is our own support address: its list headers are no mailing list, and a From
  // rewritten to the group (DMARC) with the customer in Reply-To is the customer's mail.
  const viaOwnGroup = isViaOwnGroup(mail, ctx.ourAddresses, isOurs);
  if (isOurs(mail.from?.address) && !(viaOwnGroup && customerInReplyTo(mail, isOurs))) return ignore('own-address', `From: ${mail.from?.address}`);
  if (isOurs(mail.replyTo?.address)) return ignore('own-address', `Reply-To: ${mail.replyTo?.address}`);

  const bounce = bounceDetail(mail);
  if (bounce) return ignore('bounce', bounce);
  const auto = autoReplyDetail(mail);
  if (auto) return ignore('auto-reply', auto);
  const list = viaOwnGroup ? undefined : listDetail(mail);
  if (list) return ignore('list', list);
  const spam = spamDetail(mail, ctx.spamHeader);
  if (spam) return ignore('spam', spam);

  const target = mail.replyTo ?? mail.from;
  if (!target) return ignore('no-sender', 'no usable From or Reply-To address');
  if (!isUsableAddress(target.address)) {
    return ignore('no-sender', `${mail.replyTo ? 'Reply-To' : 'From'} is not an address a reply may go to (route or domain literal): ${target.address}`);
  }
  if (isNoReplyAddress(target.address)) {
    return ignore('no-reply-sender', `${mail.replyTo ? 'Reply-To' : 'From'}: ${target.address}`);
  }
  return { answer: true };
}

/**
 * True when the mail carries something to answer: its question (body, or subject as fallback) has at least one
 * letter or digit. Kept apart from {@link decideReply} because the pipeline checks it after rate limiting.
 */
export function hasQuestion(mail: Pick<InboundMail, 'question'>): boolean {
  return /[\p{L}\p{N}]/u.test(mail.question);
}
