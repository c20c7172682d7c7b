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
 * optional: without them an out-of-office notice known only by its subject is answered. The text and the attachments
 * are optional too: they show a delivery-status part inside a mail that is not multipart/report, which
 * {@link ReplySignals.deliveryStatusPart} records for a decision without them.
 */
export type ClassifiableMail = Pick<InboundMail, 'from' | 'replyTo' | 'headers' | 'contentType'> &
  Partial<Pick<InboundMail, 'subject' | 'inReplyTo' | 'references' | 'text' | 'attachments'>> &
  Pick<ReplySignals, 'deliveryStatusPart'>;

/**
 * What the reply decision reads of a mail besides what its ticket holds anyway (subject, thread), recorded on the
 * ticket when the poller ingests it, so the agent worker decides without loading and parsing the raw mail again
 * (that was about a tenth of its CPU per ticket). It is a plain JSON value: {@link decideReply} over it and the
 * ticket's subject and thread, once stored and read back, decides as over the parsed mail.
 */
export type ReplySignals = Pick<InboundMail, 'from' | 'replyTo' | 'headers' | 'contentType'> & {
  /**
   * The type of the delivery-status part (`message/delivery-status`, `message/global-delivery-status`) of a bounce
   * that is not multipart/report, as {@link deliveryStatusPartOf} found it in the parsed mail; absent for other mail.
   */
  deliveryStatusPart?: string | undefined;
};

/** Signals larger than this (a mail with thousands of List or X-Loop headers) are not stored; the agent parses instead. */
export const MAX_REPLY_SIGNALS_CHARS = 16_384;

/** The {@link ReplySignals} of a parsed mail, or undefined when they are too large to keep on the ticket. */
export function replySignalsOf(mail: ClassifiableMail): ReplySignals | undefined {
  const signals: ReplySignals = { from: mail.from, replyTo: mail.replyTo, headers: mail.headers, contentType: mail.contentType };
  const statusPart = deliveryStatusPartOf(mail);
  if (statusPart) signals.deliveryStatusPart = statusPart;
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
  ['x-auto-reply', 'X-Auto-Reply'],
  ['x-autorespond', 'X-Autorespond'],
  ['x-autoresponder', 'X-Autoresponder'],
];

// Precedence values some autoresponders write instead of Auto-Submitted.
const AUTO_REPLY_PRECEDENCE = new Set(['auto_reply', 'auto-reply']);

// The fixed prefix an out-of-office notice puts before the subject of the mail it answers, from systems that write
// none of the headers (client-side rules, some groupware and hosting autoresponders): Outlook's in several
// languages, Exchange 2003's. The prefix must end where a notice's does — a colon (ASCII or full-width), the
// answered subject's own `Re:`, a dash, bar or bracket before a return date, or the end — so that a customer's
// subject that only begins with the words ("Out of office settings don't work") is not one.
const AUTO_REPLY_NAMES = [
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
  'automatiskt svar',
  String.raw`automatisk (?:svar|besked)`,
  String.raw`odpowied[źz] automatyczna`,
  'automaattinen vastaus',
  String.raw`automatick[áa] odpov[ěe]ď`,
  String.raw`automatikus v[áa]lasz`,
  String.raw`otomatik (?:yan[ıi]t|cevap)`,
  'автоматический ответ',
  'автоматична відповідь',
  '自動応答',
  '自動返信',
  '自動返答',
  '不在通知',
  '自动回复',
  '自動回覆',
  String.raw`자동\s?회신`,
];
// What may follow a notice's name: the subject it answers under its own reply or forward prefix, a return date in
// brackets or after a dash, or nothing.
const ANSWERED_PREFIX = String.raw`(?:re|aw|sv|vs|antw|odp|fw|fwd|wg|tr|rv|回复|回覆|答复)\s*[:：]`;
const NAME_END = String.raw`(?:\s*[:：]|\s+${ANSWERED_PREFIX}|\s*[-–—|(（\[【［]|\s*$)`;
// Japanese absence notices name the absence rather than the autoresponder, usually with no colon: 不在のお知らせ,
// 不在のご連絡, 休暇のお知らせ, 年末年始休業のお知らせ, 休暇のため不在にしております. Followed by a particle they are a
// customer's sentence (不在のお知らせが届きません, 不在通知の設定について), so they too must end where a notice does.
const JA_ABSENCE = String.raw`(?:(?:年末年始|夏季|冬季|長期|臨時|お盆|GW|ゴールデンウィーク)?(?:休暇|休業|出張|外出|不在)中?(?:の|に関する)?(?:お知らせ|ご連絡|連絡|ご案内|案内|通知)|(?:(?:休暇|休業|出張|外出)中?(?:の|のため|につき)[、，]?)?不在に(?:して|いたして)?(?:おります|います))`;
const JA_END = String.raw`(?=\s|$|[:：】\]］)）(（【\[［「『<＜。、!！]|${ANSWERED_PREFIX})`;
// Whitespace is allowed only after an opening bracket, never as a second run beside the leading one: two adjacent
// runs cost a pass per split of a long run of spaces.
const AUTO_REPLY_SUBJECT = new RegExp(
  String.raw`^\s*(?:(?:${AUTO_REPLY_NAMES.join('|')})${NAME_END}|[【\[［](?:自動応答|自動返信|自動返答|不在通知)[】\]］]|(?:[【\[［(（<＜]\s*)?${JA_ABSENCE}${JA_END})`,
  'iu',
);
// Lotus/HCL Domino's out-of-office agent: "AUTO: Taro Yamada is out of the office (returning 05/01/2024)". Only in
// capitals, as Domino writes it: "Auto: …" is a word in several languages.
const DOMINO_AUTO_SUBJECT = /^\s*AUTO:\s*\S/u;

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
  if (isReply && mail.subject && (AUTO_REPLY_SUBJECT.test(mail.subject) || DOMINO_AUTO_SUBJECT.test(mail.subject))) return `Subject: ${mail.subject}`;
  return undefined;
}

// Local parts of delivery-system senders (RFC 5321 §4.5.1 postmaster, sendmail/Postfix MAILER-DAEMON).
const BOUNCE_SENDERS = new Set(['mailer-daemon', 'postmaster']);
// Machine-generated reports of any report-type (delivery status, read receipts, feedback loops).
const REPORT_TYPES = new Set(['multipart/report', 'message/delivery-status', 'message/disposition-notification', 'message/feedback-report']);
// RFC 3464's and RFC 6533's delivery-status parts: what says "bounce" in a DSN that is not multipart/report.
const STATUS_PARTS = new Set(['message/delivery-status', 'message/global-delivery-status']);
// The returned original (or its headers) a DSN carries beside its status.
const ORIGINAL_PARTS = new Set(['message/rfc822', 'text/rfc822-headers', 'message/rfc822-headers', 'message/global', 'message/global-headers']);
// mailparser merges a message/delivery-status part into the text. RFC 3464 requires Reporting-MTA in the
// per-message fields and Final-Recipient, Action and Status in each per-recipient block, all at the start of a line.
const REPORTING_MTA = /^Reporting-MTA[ \t]*:[ \t]*[\w-]+[ \t]*;/im;
const RECIPIENT_FIELDS = [
  /^Final-Recipient[ \t]*:[ \t]*[\w-]+[ \t]*;/im,
  /^Action[ \t]*:[ \t]*(?:failed|delayed|delivered|relayed|expanded)\b/im,
  /^Status[ \t]*:[ \t]*[245]\.\d{1,3}\.\d{1,3}\b/im,
];
// Only the start of a text is searched: a DSN's fields follow a few lines of prose.
const MAX_STATUS_SCAN_CHARS = 64 * 1024;
// A customer forwarding a bounce inline (with its parts) asks about it: such mail is theirs, not the MTA's.
const FORWARD_SUBJECT = /^\s*(?:fwd?|wg|tr|rv|enc|転送|转发|轉寄)\s*[:：]/i;

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
  const statusPart = deliveryStatusPartOf(mail);
  if (statusPart) return `${statusPart} part in ${mail.contentType}`;
  // The topmost Return-Path is the one the final MTA wrote; an empty reverse-path is how MTAs send bounces, and
  // sendmail's local delivery writes it as <MAILER-DAEMON> (with or without its host).
  const returnPath = values(mail, 'return-path')[0];
  if (returnPath !== undefined) {
    const reversePath = stripComments(returnPath).replace(/\s+/g, '').replace(/^<|>$/g, '');
    if (reversePath === '') return 'Return-Path: <>';
    if (localPart(reversePath) === 'mailer-daemon') return `Return-Path: ${returnPath}`;
  }
  const failed = values(mail, 'x-failed-recipients')[0];
  if (failed !== undefined) return `X-Failed-Recipients: ${failed}`;
  if (mail.from && BOUNCE_SENDERS.has(localPart(mail.from.address))) return `From: ${mail.from.address}`;
  const sender = normaliseAddress(values(mail, 'sender')[0]);
  if (sender && BOUNCE_SENDERS.has(localPart(sender))) return `Sender: ${sender}`;
  return undefined;
}

/**
 * The type of the delivery-status part of a bounce that is not multipart/report (some MTAs send multipart/mixed from
 * an address of their own, and the null Return-Path does not always survive delivery); undefined for other mail.
 * Read from {@link ReplySignals.deliveryStatusPart} when recorded, else from the attachments (a status part mailparser
 * keeps apart) and the text (one it merges into the text, next to an attached original). A mail forwarded with a
 * bounce's parts is the customer's.
 */
export function deliveryStatusPartOf(mail: ClassifiableMail): string | undefined {
  if (mail.deliveryStatusPart) return mail.deliveryStatusPart;
  if (REPORT_TYPES.has(mail.contentType) || !mail.contentType.startsWith('multipart/')) return undefined;
  if (mail.subject && FORWARD_SUBJECT.test(mail.subject)) return undefined;
  const attachments = mail.attachments ?? [];
  const attached = attachments.find((a) => STATUS_PARTS.has(a.contentType))?.contentType;
  if (attached) return attached;
  if (!mail.text || !attachments.some((a) => ORIGINAL_PARTS.has(a.contentType))) return undefined;
  const text = mail.text.slice(0, MAX_STATUS_SCAN_CHARS);
  const perMessage = REPORTING_MTA.exec(text);
  if (!perMessage) return undefined;
  const rest = text.slice(perMessage.index).replace(/\r\n?/g, '\n');
  const hasRecipientBlock = rest.split(/\n[ \t]*\n/).some((block) => RECIPIENT_FIELDS.every((field) => field.test(block)));
  return hasRecipientBlock ? 'message/delivery-status' : undefined;
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
 * 3. `bounce` — multipart/report (any report-type) or another report type at top level, a delivery-status part
 *    in another multipart ({@link deliveryStatusPartOf}), `Return-Path: <>` (or `<MAILER-DAEMON>`),
 *    X-Failed-Recipients, or a MAILER-DAEMON / postmaster From or Sender. Before `auto-reply` because delivery
 *    reports also carry `Auto-Submitted`, and "bounce" is the more useful answer.
 * 4. `auto-reply` — Auto-Submitted other than `no` (RFC 3834), X-Autoreply, X-Auto-Reply, X-Autorespond,
 *    X-Autoresponder, Precedence auto_reply, X-Auto-Response-Suppress with OOF/AutoReply/All,
 *    X-MS-Exchange-Inbox-Rules-Loop, Exchange "Mailbox Rules Agent" messages, and a reply (In-Reply-To or
 *    References) whose subject starts with an out-of-office notice (`Automatic reply:`, `Out of office`,
 *    `Automatiskt svar:`, Domino's `AUTO:`, `自動応答:`, `【自動返信】`, `不在のお知らせ`, `休暇のため不在にしております`…)
 *    that ends where a notice's name does; a new mail with such a subject is answered, since it may be asking about
 *    the feature.
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
