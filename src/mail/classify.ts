/**
 * Should this inbound mail get an answer? A pure decision over the parsed headers that keeps the worker out of
 * conversations with machines: auto-responders, bounces, mailing lists, itself; and out of conversations that are
 * over: a reply that only says thank you (read from the customer's own words). Rate limiting and the "is there a
 * question at all" check need state or come later in the pipeline and are not decided here.
 */
import { comparableAddress, domainOf, isSameMailbox, isUsableAddress, localPart, normaliseAddress, ownAddressMatcher, parseAddressList, stripComments, type MailAddress } from './addresses.js';
import type { Config } from '../config.js';
import { visibleHeaderText } from './invisible.js';
import type { InboundMail } from './parse.js';
import { BLOCK_FROM, BLOCK_NEXT, REPLY_ORIGINAL_SEPARATOR } from './quote-markers.js';
import { DO_NOT_REPLY_EVIDENCE, questionSentences } from './mass-mailing.js';
import { isSharedMailDomain } from './shared-mail-domains.js';
import { deliversOnlyPassword } from './unreadable.js';
import {
  MORE_ABSENCE,
  MORE_ABSENCE_NOTICE_PHRASES,
  MORE_ABSENCE_REQUEST,
  MORE_CUSTOMER_TROUBLE,
  MORE_ACKNOWLEDGING_PHRASES,
  MORE_AUTO_REPLY_NAMES,
  MORE_COURTESY_PHRASES,
  READ_RECEIPT_PREFIXES,
  asksBesideReceipt,
  saysMoreThanAwayNotice,
  serviceNoticeOf,
  serviceNoticeParkReason,
  type ServiceNotice,
} from './relay-notices.js';
import { getDomain } from 'tldts';

/** Why a mail is not answered. */
export type IgnoreReason = 'auto-reply' | 'bounce' | 'list' | 'loop' | 'own-address' | 'spam' | 'no-reply-sender' | 'no-sender' | 'acknowledgement';

/** The configuration of our own mailboxes: {@link ourAddressesOf} and {@link ownMailboxesOf} read it. */
export type MailboxConfig = Pick<Config, 'MAIL_FROM' | 'SUPPORT_ADDRESSES' | 'SUPPORT_GROUP_ADDRESSES' | 'AUTHSERV_ID'>;

/** Our own addresses, as {@link OwnMailboxes.ourAddresses} takes them: MAIL_FROM, SUPPORT_ADDRESSES, SUPPORT_GROUP_ADDRESSES. */
export function ourAddressesOf(config: MailboxConfig): string[] {
  return [...(config.MAIL_FROM ? [config.MAIL_FROM] : []), ...config.SUPPORT_ADDRESSES, ...config.SUPPORT_GROUP_ADDRESSES];
}

/**
 * Our own mailboxes as the classification reads them: our addresses, and which of them is a group delivering to the
 * polled mailbox whose mail our receiving server must have authenticated ({@link OwnMailboxes}).
 */
export function ownMailboxesOf(config: MailboxConfig): OwnMailboxes {
  return { ourAddresses: ourAddressesOf(config), groupAddresses: config.SUPPORT_GROUP_ADDRESSES, authservIds: config.AUTHSERV_ID };
}

/**
 * Our own mailboxes: what tells our own mail, and our own group's, from a stranger's.
 *
 * A support address that is a group (Google Groups, Mailman) delivering to the polled mailbox writes its list headers
 * into every customer's mail, and rewrites a From whose domain publishes a strict DMARC policy to itself with the
 * customer in Reply-To. Anyone can write the same headers, so a mail counts as the group's only when its list headers
 * name one of {@link groupAddresses} and the topmost Authentication-Results, written by one of {@link authservIds},
 * says that DKIM passed for the group's domain or DMARC passed for a From in it ({@link customerBehindOwnGroup}).
 */
export interface OwnMailboxes {
  /** Our own addresses: MAIL_FROM, SUPPORT_ADDRESSES and SUPPORT_GROUP_ADDRESSES (bare or `Name <addr>`). */
  ourAddresses: readonly string[];
  /** SUPPORT_GROUP_ADDRESSES: our addresses that are a group delivering to the polled mailbox (bare addresses). */
  groupAddresses?: readonly string[] | undefined;
  /** AUTHSERV_ID: the authserv-ids our receiving server writes first in its Authentication-Results. */
  authservIds?: readonly string[] | undefined;
}

/**
 * The outcome of {@link decideReply}; `detail` names the header or address that decided, for logs and the dashboard.
 * `kind`, when set, says what the mail is more precisely than `reason` for the person reading the ticket (`bulk mail`
 * for `Precedence: bulk|junk`), while `reason` stays the coarse class the metrics count it under.
 */
export type ReplyDecision = { answer: true } | { answer: false; reason: IgnoreReason; detail: string; kind?: string };

/**
 * The reason an ignored ticket records, e.g. `list: List-Id: <users.lists.example>` or `bulk mail: Precedence: junk`:
 * the decision's `kind` (else its `reason`) and `detail`.
 */
export function ignoreReasonText(decision: Extract<ReplyDecision, { answer: false }>): string {
  return `${decision.kind ?? decision.reason}: ${decision.detail}`;
}

/** The kind an ignored ticket's reason names ({@link ignoreReasonText} writes it first), or undefined. */
export function ignoreKindOf(reason: string | undefined): string | undefined {
  const colon = reason?.indexOf(':') ?? -1;
  return colon > 0 ? reason!.slice(0, colon) : undefined;
}

/** What {@link decideReply} needs besides the mail. */
export interface ReplyContext extends OwnMailboxes {
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
  Partial<Pick<InboundMail, 'subject' | 'inReplyTo' | 'references' | 'text' | 'question' | 'attachments' | 'to' | 'cc' | 'senderUnclear'>> &
  Pick<
    ReplySignals,
    | 'deliveryStatusPart'
    | 'senderIsRecipient'
    | 'massMailing'
    | 'unsolicited'
    | 'acknowledgement'
    | 'automaticNotice'
    | 'absenceNotice'
    | 'ticketAcknowledgement'
    | 'personInNotification'
    | 'inlineAnswers'
    | 'listCopy'
    | 'recipientCount'
    | 'serviceNotice'
    | 'receiptSubjectAsks'
    | 'dkimSignatures'
    | 'returnedOriginal'
    | 'failureWording'
    | 'feedbackType'
    | 'spamTestString'
  >;

/**
 * What the reply decision reads of a mail besides what its ticket holds anyway (subject, thread), recorded on the
 * ticket when the poller ingests it, so the agent worker decides without loading and parsing the raw mail again
 * (that was about a tenth of its CPU per ticket). It is a plain JSON value: {@link decideReply} over it and the
 * ticket's subject and thread, once stored and read back, decides as over the parsed mail. Its `headers` keep the
 * names in the order they first appear in the mail (JSON keeps it), which tells whose "not spam" verdict counts
 * ({@link notSpamBySameFilter}): nothing that rebuilds the record may sort them.
 */
export type ReplySignals = Pick<InboundMail, 'from' | 'replyTo' | 'headers' | 'contentType'> & {
  /**
   * The type of the delivery-status part (`message/delivery-status`, `message/global-delivery-status`) of a bounce
   * that is not multipart/report, as {@link deliveryStatusPartOf} found it in the parsed mail; absent for other mail.
   */
  deliveryStatusPart?: string | undefined;
  /**
   * True when the mail's Sender, another address than From, is also one of its To or Cc addresses, as
   * {@link senderIsRecipient} found it in the parsed mail: an old-style list (LISTSERV, majordomo) writes its own
   * address as both. Absent for other mail, so the recipients themselves need not be kept.
   */
  senderIsRecipient?: true | undefined;
  /**
   * Why the mail's own text reads as a mass mailing (an unsubscribe link in its footer, a mass-mail footer line…), as
   * the parser found it in the text and HTML ({@link InboundMail.massMailing}); absent for other mail, so the text
   * itself need not be kept. {@link bulkMailDetail} parks the draft for it.
   */
  massMailing?: string | undefined;
  /**
   * Why the mail reads as unsolicited business mail (a cold pitch's opener in a new mail, a vendor's 「ご査収」 beside
   * an attached document), as {@link unsolicitedDetail} found it in the parsed mail; absent for other mail.
   * {@link bulkMailDetail} parks the draft for it.
   */
  unsolicited?: string | undefined;
  /**
   * The customer's own words (the question) of a reply that only thanks or acknowledges, as
   * {@link acknowledgementOf} found them in the parsed mail; absent for other mail. {@link decideReply} ignores such
   * a reply as `acknowledgement`.
   */
  acknowledgement?: string | undefined;
  /**
   * The opening of the customer's own words, up to the line among its first three that says the mail was sent
   * automatically (「※このメールは自動送信されています」, 「お問い合わせありがとうございます。 本メールは…自動でお送り
   * しております。」), or `…` and that line among the last two of a short notice's text, when no customer's words
   * surround it, as {@link automaticNoticeOf} found it; absent for other mail. Only in a reply to one of our own Message-IDs, or beside a notice tag, is it an auto-reply: web-form
   * notifications say the same above a question.
   */
  automaticNotice?: string | undefined;
  /**
   * The customer's own words when they are an out-of-office notice and nothing else (an absence, a return date, whom
   * to call meanwhile, greetings and a signature), as {@link absenceNoticeOf} found them; absent for other mail. Only in
   * a reply to one of our own Message-IDs is it an auto-reply: a customer may say they will be away in a new mail.
   */
  absenceNotice?: string | undefined;
  /**
   * The opening of the own words of another helpdesk's ticket acknowledgement ("we have received your request … Ticket
   * ID", "opened on your behalf"), as {@link ticketAcknowledgementOf} found it; absent for other mail. An auto-reply in
   * a reply to one of our own Message-IDs, a sign of machine mail ({@link bulkMailDetail}) in any other.
   */
  ticketAcknowledgement?: string | undefined;
  /**
   * What a notification from a no-reply address carries of a person ({@link personMessageInNotificationOf}): their
   * address on another domain beside a message or note of theirs. Absent for other mail; {@link decideReply} does not
   * ignore such a mail as a no-reply sender, and {@link parkBeforeAgentReason} parks it.
   */
  personInNotification?: string | undefined;
  /**
   * The customer's words announcing answers written inline in the quoted mail below them (「インラインにて失礼いたします」,
   * "see my comments inline"), when that quoted mail has no `>` marks and none of its lines reached the question, as
   * {@link inlineAnswersOf} found them in the parsed mail; absent for other mail, so the text itself need not be kept.
   * {@link parkBeforeAgentReason} parks it.
   */
  inlineAnswers?: string | undefined;
  /**
   * The To and Cc addresses of list mail that names the list's own address among them beside another recipient, as
   * {@link listCopyOf} found them in the parsed mail: the list's addresses and the others. Absent for other mail, so
   * that the recipients of most mail need not be kept; {@link listCopyReviewReason} reads whether one of them is ours.
   */
  listCopy?: ListCopy | undefined;
  /**
   * How many distinct addresses the mail's To and Cc name, when more than {@link CIRCULAR_RECIPIENTS}: a circular,
   * which {@link parkBeforeAgentReason} holds for a person when it is a new mail. Absent for other mail, so that the
   * recipients themselves need not be kept.
   */
  recipientCount?: number | undefined;
  /**
   * A voicemail or fax notice, a marketplace's notice that a buyer asked something, or a read receipt's text, as
   * {@link serviceNoticeOf} found it in the parsed mail; absent for other mail. {@link decideReply} does not ignore the
   * first two as a no-reply sender's (nor a voicemail as an auto-reply), and {@link parkBeforeAgentReason} parks them;
   * a read receipt's text lets its localized subject prefix decide without threading ({@link readReceiptDetail}).
   */
  serviceNotice?: ServiceNotice | undefined;
  /**
   * True when the subject begins as a read receipt's ({@link READ_RECEIPT_SUBJECT}) and the words ask something
   * ({@link asksBesideReceipt}), as read in the parsed mail; absent for other mail. {@link readReceiptDetail} then
   * finds no receipt: a customer's subject may begin "Lu :" or "Read:".
   */
  receiptSubjectAsks?: true | undefined;
  /**
   * Why the sender cannot be told from the From fields (two of them, or several addresses, whatever a Sender says), as the
   * parser found it ({@link InboundMail.senderUnclear}); absent for other mail. The From the signals keep is cut to one
   * address when long, so this is recorded on its own; the agent worker holds the draft for it.
   */
  senderUnclear?: string | undefined;
  /**
   * How many DKIM-Signature fields the mail carries, when it has any: a verifier writes one dkim result for each, so a
   * topmost Authentication-Results with more holds results no verifier wrote ({@link readAuthenticationResults}). The
   * fields themselves are not kept.
   */
  dkimSignatures?: number | undefined;
  /**
   * The type of a returned mail the mail carries as one of its own parts, inline or attached (`message/rfc822`,
   * `text/rfc822-headers`…), as the parser found it in the MIME structure ({@link InboundMail.returnedOriginal}; not from the attachments, where mailparser leaves an inline one out and lists nested parts' beside the mail's own); absent for other mail, and on
   * tickets recorded before it was kept (they decide as they did). Beside a null envelope sender it is a bounce
   * ({@link bounceDetail}): mailparser reads an inline one into the text, so the attachments the agent worker lacks
   * would not show it anyway.
   */
  returnedOriginal?: string | undefined;
  /**
   * The line of the mail's own text that reports a failed delivery (a failed recipient, a delivery status or an SMTP
   * reply with one: KDDI's `Could not be delivered to: <…>`), as {@link failureWordingOf} found it; kept only beside a
   * {@link returnedOriginal}, the one place it decides. Absent on tickets recorded before it was kept: their returned
   * original beside a null envelope sender is then parked, not ignored (bug review 44c).
   */
  failureWording?: string | undefined;
  /**
   * The Feedback-Type of an ARF report (RFC 5965: `abuse`, `auth-failure`…), lower-case, as the parser read it
   * ({@link InboundMail.feedbackType}); absent for other mail. Only names the report in the ignore reason.
   */
  feedbackType?: string | undefined;
  /**
   * Where the mail carries the GTUBE test string ({@link spamTestStringOf}: `GTUBE in the subject` or `… in the
   * text`), found when the poller had the text; absent for other mail and on tickets recorded before it was kept.
   */
  spamTestString?: string | undefined;
};

/** The recipients of a list mail that names the list itself beside others ({@link ReplySignals.listCopy}). */
export interface ListCopy {
  /** The To and Cc addresses that are the list's own (bare, as the mail wrote them). */
  lists: string[];
  /** The other To and Cc addresses (bare, as the mail wrote them). */
  others: string[];
}

// Mass-mailing services' headers that name a campaign: Mailchimp's X-Campaign, X-campaignid and X-MC-User, Mailjet's
// X-Mailjet-Campaign, Constant Contact's X-Roving-Campaignid, and the X-Campaign-ID other senders write. Transactional
// mail through the same services (a contact form relayed by SendGrid, Amazon SES, Mailgun) writes none of them.
const CAMPAIGN_HEADERS: ReadonlyArray<readonly [name: string, label: string]> = [
  ['x-campaign', 'X-Campaign'],
  ['x-campaignid', 'X-Campaignid'],
  ['x-campaign-id', 'X-Campaign-ID'],
  ['x-mc-user', 'X-MC-User'],
  ['x-mailjet-campaign', 'X-Mailjet-Campaign'],
  ['x-roving-campaignid', 'X-Roving-Campaignid'],
];

// Headers that only challenge-response systems write on their request to confirm a sender (SpamAssassin's
// 20_vbounce.cf lists them): SpamArrest's, cPanel BoxTrapper's (which also writes it on mail it forwards, so only
// beside its X-Autorespond), Bluebottle's, ChoiceMail's; and TMDA's X-Delivery-Agent, which its users' own mail
// carries too, so only on an automatic reply.
const CHALLENGE_HEADERS = ['x-spamarrest-noauth', 'x-boxtrapper', 'x-bluebottle-request', 'x-choicemail-registration-request', 'x-delivery-agent'];

/**
 * Header fields the checks after the draft read ({@link forgedSenderDetail}, {@link bulkMailDetail}) and the
 * challenge-response check ({@link senderVerificationOf}) read besides those the parser always keeps for the reply
 * decision: the poller and the agent worker parse with them as extra headers. `From` shows a sender whose address the
 * parser left out as none a reply may go to, which is parked rather than ignored ({@link unusableSenderOf}).
 * X-Original-From and X-Original-Sender name the customer behind our own Google Group's rewritten From ({@link ownGroupRelayOf}).
 */
// The signature fields verifiers report on in Authentication-Results: DKIM's, Gmail's own (authentication-milter
// writes x-google-dkim for it) and the old DomainKeys'. Counted, not kept ({@link ReplySignals.dkimSignatures}).
const SIGNATURE_FIELDS = ['dkim-signature', 'x-google-dkim-signature', 'domainkey-signature'] as const;
export const REPLY_SIGNAL_HEADERS: readonly string[] = ['from', 'authentication-results', ...SIGNATURE_FIELDS, 'errors-to', 'x-original-from', 'x-original-sender', ...CAMPAIGN_HEADERS.map(([name]) => name), ...CHALLENGE_HEADERS];

/** The extra headers to keep when a mail is parsed for its reply signals: {@link REPLY_SIGNAL_HEADERS} and SPAM_HEADER. */
export function replySignalHeaders(config: Pick<Config, 'SPAM_HEADER'>): string[] {
  return [...REPLY_SIGNAL_HEADERS, ...(config.SPAM_HEADER ? [config.SPAM_HEADER] : [])];
}

// Headers of which only the topmost occurrence is read: every relay adds an Authentication-Results of its own, and a
// mail forwarded a few times would carry dozens; only the receiving server's, at the top, judges the sender.
const TOPMOST_ONLY = ['authentication-results'];

/** Signals larger than this (a mail with thousands of List or X-Loop headers) are not stored; the agent parses instead. */
export const MAX_REPLY_SIGNALS_CHARS = 16_384;

/** The {@link ReplySignals} of a parsed mail, or undefined when they are too large to keep on the ticket. */
export function replySignalsOf(mail: ClassifiableMail): ReplySignals | undefined {
  // The DKIM-Signature fields are counted, not kept: a few hundred characters each, and only their number is read.
  const headers = Object.fromEntries(Object.entries(mail.headers).filter(([name]) => !(SIGNATURE_FIELDS as readonly string[]).includes(name)));
  const signals: ReplySignals = { from: mail.from, replyTo: mail.replyTo, headers: withShortFrom(topmostOnly(headers)), contentType: mail.contentType };
  const dkimSignatures = dkimSignaturesOf(mail);
  if (dkimSignatures) signals.dkimSignatures = dkimSignatures;
  const statusPart = deliveryStatusPartOf(mail);
  if (statusPart) signals.deliveryStatusPart = statusPart;
  const returned = mail.returnedOriginal;
  if (returned) signals.returnedOriginal = returned;
  const failure = returned ? failureWordingOf(mail) : undefined;
  if (failure) signals.failureWording = failure;
  if (mail.feedbackType) signals.feedbackType = mail.feedbackType;
  const spamTest = spamTestStringOf(mail);
  if (spamTest) signals.spamTestString = spamTest;
  if (senderIsRecipient(mail)) signals.senderIsRecipient = true;
  if (mail.massMailing) signals.massMailing = mail.massMailing;
  const unsolicited = unsolicitedDetail(mail);
  if (unsolicited) signals.unsolicited = unsolicited;
  const acknowledgement = acknowledgementOf(mail);
  if (acknowledgement) signals.acknowledgement = acknowledgement;
  const notice = automaticNoticeOf(mail);
  if (notice) signals.automaticNotice = notice;
  const absence = absenceNoticeOf(mail);
  if (absence) signals.absenceNotice = absence;
  const ticketAcknowledgement = ticketAcknowledgementOf(mail);
  if (ticketAcknowledgement) signals.ticketAcknowledgement = ticketAcknowledgement;
  const person = personMessageInNotificationOf(mail);
  if (person) signals.personInNotification = person;
  const inline = inlineAnswersOf(mail);
  if (inline) signals.inlineAnswers = inline;
  const listCopy = listCopyOf(mail);
  if (listCopy) signals.listCopy = listCopy;
  const recipients = recipientCountOf(mail);
  if (recipients > CIRCULAR_RECIPIENTS) signals.recipientCount = recipients;
  const serviceNotice = serviceNoticeIn(mail);
  if (serviceNotice) signals.serviceNotice = serviceNotice;
  if (receiptSubjectAsks(mail)) signals.receiptSubjectAsks = true;
  if (mail.senderUnclear) signals.senderUnclear = mail.senderUnclear;
  return JSON.stringify(signals).length <= MAX_REPLY_SIGNALS_CHARS ? signals : undefined;
}

// The From header is a signal for one reading: the address written in it where the parser kept none
// ({@link unusableSenderOf}). Its display name, as long as a stranger likes, counted a second time beside the parsed
// From's and dropped the signals of a mail with a name of 8,000 characters (hostile-input audit 40). A From within a
// header line's length (RFC 5322's 998 characters) is kept as written; a longer one as its first address.
const MAX_FROM_SIGNAL_CHARS = 998;

/** `headers` with a From over {@link MAX_FROM_SIGNAL_CHARS} cut to the first address written in it (none: no From). */
function withShortFrom(headers: Record<string, string[]>): Record<string, string[]> {
  const from = headers.from;
  if (!from || from.reduce((chars, value) => chars + value.length, 0) <= MAX_FROM_SIGNAL_CHARS) return headers;
  const others = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'from'));
  const written = parseAddressList(from[0])[0];
  if (!written) return others;
  const bare = `<${written.address}>`;
  // Kept as written when the address alone would read back as another (the signals may then be too large to keep).
  return parseAddressList(bare)[0]?.address === written.address ? { ...others, from: [bare] } : headers;
}

function topmostOnly(headers: Record<string, string[]>): Record<string, string[]> {
  if (!TOPMOST_ONLY.some((name) => (headers[name]?.length ?? 0) > 1)) return headers;
  return Object.fromEntries(Object.entries(headers).map(([name, list]) => [name, TOPMOST_ONLY.includes(name) ? list.slice(0, 1) : list]));
}

/**
 * True when the mail's Sender is another address than its From and is also one of its To or Cc addresses: how an
 * old-style list (LISTSERV's default headers, majordomo) that writes no List-* field names itself. Read from
 * {@link ReplySignals.senderIsRecipient} when recorded, else from the parsed mail's recipients.
 */
export function senderIsRecipient(mail: ClassifiableMail): boolean {
  if (mail.senderIsRecipient) return true;
  const sender = comparableSender(mail);
  if (!sender) return false;
  return [...(mail.to ?? []), ...(mail.cc ?? [])].some((r) => comparableAddress(r.address) === sender);
}

/** The Sender address in its comparable form, when there is one and it is another address than From. */
function comparableSender(mail: ClassifiableMail): string | undefined {
  const sender = values(mail, 'sender')[0];
  const comparable = sender === undefined ? undefined : comparableAddress(sender);
  return comparable && comparable !== (mail.from ? comparableAddress(mail.from.address) : undefined) ? comparable : undefined;
}

/** First token of a header value: comments removed, parameters after `;` dropped, lower-case. */
function keyword(value: string): string {
  return (stripComments(value).split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * How many DKIM-Signature fields a mail carries: as recorded with its reply signals, else as parsed (the field is one
 * of {@link REPLY_SIGNAL_HEADERS}); undefined when neither says (signals recorded before the count was).
 */
function dkimSignaturesOf(mail: ClassifiableMail): number | undefined {
  if (mail.dkimSignatures !== undefined) return mail.dkimSignatures;
  const fields = SIGNATURE_FIELDS.map((name) => mail.headers[name]?.length ?? 0).reduce((sum, n) => sum + n, 0);
  return fields > 0 ? fields : undefined;
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
  // Outlook's own in Simplified Chinese, whose Automatic Replies are 自动答复 (zh-TW's are 自動回覆, above).
  '自动答复',
  '自動回覆',
  // Outlook's in Greek, Hebrew, Arabic, Russian, Bulgarian, Romanian, Croatian and Indonesian: the singular of its
  // Automatic Replies as Microsoft's localized Outlook help names them (Αυτόματες απαντήσεις, תשובות אוטומטיות,
  // الردود التلقائية, Автоответы, Автоматични отговори, Răspunsuri automate, Automatski odgovori, Balasan Otomatis:
  // OfficeDocs-AlchemyInsights-pr.<locale>, outlook-desktop-send-out-of-office-replies.md). Greek capitals drop the
  // accents (ΑΥΤΟΜΑΤΗ ΑΠΑΝΤΗΣΗ).
  String.raw`αυτ[όο]ματη απ[άα]ντηση`,
  'תשובה אוטומטית',
  'رد تلقائي',
  'автоответ',
  'автоматичен отговор',
  String.raw`r[ăa]spuns automat`,
  'automatski odgovor',
  'balasan otomatis',
  String.raw`자동\s?회신`,
  String.raw`부재중\s?자동\s?(?:응답|회신)`,
  ...MORE_AUTO_REPLY_NAMES,
];
// What may follow a notice's name: the subject it answers under its own reply or forward prefix, a return date in
// brackets or after a dash, or nothing.
const ANSWERED_PREFIX = String.raw`(?:re|aw|sv|vs|antw|odp|fw|fwd|wg|tr|rv|回复|回覆|答复)\s*[:：]`;
const NAME_END = String.raw`(?:\s*[:：]|\s+${ANSWERED_PREFIX}|\s*[-–—|(（\[【［]|\s*$)`;
// Japanese absence notices name the absence rather than the autoresponder, usually with no colon: 不在のお知らせ,
// 不在のご連絡, 休暇のお知らせ, 年末年始休業のお知らせ, 休暇のため不在にしております. Followed by a particle they are a
// customer's sentence (不在のお知らせが届きません, 不在通知の設定について), so they too must end where a notice does.
const JA_ABSENCE = String.raw`(?:(?:年末年始|夏季|冬季|長期|臨時|お盆|GW|ゴールデンウィーク)?(?:休暇|休業|出張|外出|不在)中?(?:の|に関する)?(?:お知らせ|ご連絡|連絡|ご案内|案内|通知)|(?:(?:休暇|休業|出張|外出)中?(?:の|のため|につき)[、，]?)?不在に(?:して|いたして)?(?:おります|います))`;
// Korean 부재중 is also a missed call (「부재중 전화 알림이 오지 않습니다」, 「부재중: 알림 설정 문의」): a notice's only
// when the subject it answers follows, which in a reply to ours begins with our Re: (「부재중: Re: …」, 「(부재중) RE: …」);
// 부재중 자동응답 and the bracketed [부재중] are a notice's with anything after them.
const KO_ABSENCE = String.raw`(?:[(（]\s?부재중\s?[)）]|부재중\s?[:：\-–—]?)\s*(?:${ANSWERED_PREFIX}|(?:회신|답장)\s*[:：])`;
const JA_END = String.raw`(?=\s|$|[:：】\]］)）(（【\[［「『<＜。、!！]|${ANSWERED_PREFIX})`;
// Whitespace is allowed only after an opening bracket, never as a second run beside the leading one: two adjacent
// runs cost a pass per split of a long run of spaces.
const AUTO_REPLY_SUBJECT = new RegExp(
  String.raw`^\s*(?:(?:${AUTO_REPLY_NAMES.join('|')})${NAME_END}|[【\[［](?:自動応答|自動返信|自動返答|不在通知|부재중)[】\]］]|${KO_ABSENCE}|(?:[【\[［(（<＜]\s*)?${JA_ABSENCE}${JA_END})`,
  'iu',
);
// A reply or forward prefix anywhere in a subject, as a word: what a notice's subject holds of the one it answers.
const ANSWERED_PREFIX_IN = new RegExp(String.raw`(?<![\p{L}\p{N}])${ANSWERED_PREFIX}`, 'iu');

/**
 * Whether a subject under an away notice's name is a customer's question (「Автоответ: как включить?」, 「自动答复：
 * 无法关闭？」, "Automatic reply: how do I turn it on?"; bug review 46a): it ends in a question mark and holds no reply
 * prefix. A notice writes its name before the subject it answers, ours under our `Re:` ("Automatic reply: Re: How
 * do I reset it?"), or its own words, which ask nothing ("Automatic reply: Your order").
 */
function asksUnderNoticeName(subject: string): boolean {
  return /[?？]\s*$/u.test(subject) && !ANSWERED_PREFIX_IN.test(subject);
}
// Lotus/HCL Domino's out-of-office agent: "AUTO: Taro Yamada is out of the office (returning 05/01/2024)". Only in
// capitals, as Domino writes it: "Auto: …" is a word in several languages.
const DOMINO_AUTO_SUBJECT = /^\s*AUTO:\s*\S/u;
// Domino's whole notice, which decides on a mail that answers nothing too (its notice to a new mail, or one that lost
// the thread): "AUTO: Smith, John is out of the office. (returning 05/01/2010)". In capitals, with Domino's ending and
// no question mark (bug review 44c): a customer's "AUTO: my colleague is out of office, who can approve the invoice?"
// or "auto: why is out of office not working" asks something; "AUTO: renewal question" says nothing of an office.
const DOMINO_OUT_OF_OFFICE_SUBJECT = /^\s*AUTO:\s[^?]*\bis out of (?:the )?office\.?\s*(?:\(returning [^)]*\))?\s*$/u;
// A Japanese autoresponder's bracketed tag, wherever it puts it: before its own subject (【自動返信】お問い合わせ
// ありがとうございます) or after the one it answers (Re: ログインできません【自動返信】); not when a particle follows it
// (【自動返信】が届きません, 【自動返信】の設定). Not 自動送信, which web forms write above a customer's question. A customer
// may name the feature in brackets (【自動返信】機能が動作しない), so on a new mail the tag decides only beside more of a
// notice ({@link noticeTagDecides}).
const NOTICE_TAG = /[【\[［〔〖《≪<＜]\s?(?:自動返信|自動応答|自動返答|不在通知)(?:メール|メッセージ)?\s?[】\]］〕〗》≫>＞](?![ \t　]*[がをはのにへでとも])/u;
// Only reply and forward prefixes before a tag: a person answering or forwarding someone's auto-reply
// (Re: 【自動返信】…, Fwd: 【自動返信】…), perhaps to ask about it.
const ONLY_ANSWER_PREFIXES = /^(?:\s*(?:re|aw|sv|vs|antw|odp|fw|fwd|wg|tr|rv|enc|転送|回复|回覆|答复|转发|轉寄)(?:\[\d{1,3}\])?\s*[:：])+\s*$/iu;
// A read receipt sent as plain mail (some Japanese clients, Outlook to outside recipients) rather than as an RFC 8098
// report: its prefix before the subject of the mail it reports on. Only on a reply, and only with its colon: 開封済み
// and 既読 are words a customer may begin a question with.
const READ_RECEIPT_SUBJECT = new RegExp(String.raw`^\s*(?:開封済み|開封済|既読|read|${READ_RECEIPT_PREFIXES.join('|')})\s*[:：]`, 'iu');
// A line of an autoresponder's opening saying so: 本メールは自動返信です, ※このメールは自動送信されています,
// ※本メールは送信専用アドレスから自動送信しております, 本メールは受付確認のため自動でお送りしております. Web-form
// notifications open with the same sentence above a customer's question, so it decides only in a reply to our own
// mail ({@link repliesToOurMail}).
const AUTOMATIC_NOTICE = /^[\s※＊*■□◆◇●○・【\[［(（]*(?:本|この)(?:メール|メッセージ)(?:は|につきましては)[、，,\s]*[^。\n]{0,20}?自動(?:で|的に)?(?:送信|返信|応答|返答|配信|お送り|送付)/u;
// How many of the opening's non-blank lines may hold the notice: a helpdesk's acknowledgement thanks first
// (「お問い合わせありがとうございます。⏎本メールは受付確認のため自動でお送りしております。」).
const NOTICE_LINES = 3;
// A holiday responder may instead close with it, above at most its company's name (「…年末年始休業とさせていただきます。
// ⏎※本メールは自動返信です。⏎丸井製菓株式会社」): the notice is then one of the last non-blank lines, a line of its own,
// in a short text.
const CLOSING_NOTICE_LINES = 2;
const MAX_CLOSING_NOTICE_LINE_CHARS = 80;
const MAX_CLOSING_NOTICE_TEXT_CHARS = 600;
// Marks a closing notice as kept in {@link ReplySignals.automaticNotice}: the words before it are left out.
const CLOSING_NOTICE_MARK = '…';
// What a customer who pasted a notice writes above it, and no autoresponder does: words pointing at the pasted mail
// (下記のメールが届きました, 以下の通知), or that it came.
const POINTS_AT_PASTED_NOTICE = /(?:下記|以下|上記|次)の(?:ような)?(?:メール|通知|メッセージ|連絡|内容)|(?:届き|届いて|来て|受信し)(?:ました|います|おります)/u;
// What the text above a closing notice must say for an autoresponder's: an absence or a holiday, or that the mail was
// received and will be answered. A customer's 「ログインできません。…再起動もしました。」 above a pasted line says none.
const CLOSING_NOTICE_BODY = /休業|休暇|不在|出張|外出|年末年始|夏季休|連休|お盆|受け付け|受付|承りました|順次(?:ご)?(?:対応|返信|回答|連絡)|担当者(?:より|から)/u;
// What an autoresponder writes above its notice: thanks for the inquiry or order, a greeting, that it was received.
// Anything else there (「ログインできません。」, 「下記のようなメールが届きました。」) is a customer's, who pasted the notice.
const NOTICE_PREAMBLE_SENTENCE = new RegExp(
  String.raw`^(?:(?:この度は|このたびは|先日は)[、，]?)?(?:(?:お|ご)?(?:問い?合わ?せ|注文|申し?込み?|連絡|依頼|予約|登録|メール|ご利用)(?:を|の)?(?:いただき|頂き|下さり|くださり)?(?:まして)?[、，]?)?(?:誠に|まことに|大変|本当に)?(?:ありがとうございます|ありがとうございました)` +
    String.raw`|^(?:いつも|大変)?お世話に(?:なっております|なります)` +
    String.raw`|^(?:(?:お|ご)?(?:問い?合わ?せ|注文|申し?込み?|依頼|予約|登録)(?:内容)?を)?(?:受け付けました|受付(?:いた|致)?しました|承りました|受領(?:いた|致)?しました)`,
  'u',
);
// A link, whose query may hold a `?`: an autoresponder's or a guard's text carries one, and only a `?` outside links
// says the writer is asking. Fixed schemes, so that a stranger's long run of letters is read once.
const LINK = /(?:https?:\/\/|ftp:\/\/|mailto:|www\.)\S*/giu;
// What a customer who pasted a notice writes below it, and no autoresponder does: a question mark (outside links), an
// arrow or a phrase pointing back at the pasted mail (↑このようなメールが届きましたが), a question or a plea to explain. Autoresponders' own
// paragraphs (an absence, a return date, 「お急ぎの場合は…までご連絡ください」) have none of them.
const CUSTOMER_WORDS_AFTER_NOTICE =
  /[?？↑⇧]|(?:(?:この|その|上の|上記の|以下の)ような|こういう|こんな|そんな)(?:メール|通知|連絡|メッセージ|案内)(?:が|を)|(?:この|上の|上記の)(?:メール|通知|メッセージ)が(?:届|来)|どういう(?:こと|意味)|どうすれば|どうしたら|教えて|でしょうか|ですか|ますか/u;
// The longest opening kept as the notice.
const MAX_NOTICE_CHARS = 120;
// What beside a tag makes a new mail's subject a notice's ({@link noticeTagDecides}): the subject it answers, behind its
// own reply prefix; a notice's wording whole (受付のお知らせ, お問い合わせいただきありがとうございます, ご注文確認,
// 不在のお知らせ); a reference number beside such wording (No.12345).
const ANSWERED_SUBJECT = new RegExp(String.raw`^(?:re|aw|sv|vs|antw|odp|fw|fwd|wg|tr|rv|回复|回覆|答复)(?:\[\d{1,3}\])?\s*[:：]`, 'iu');
const NOTICE_OBJECT = String.raw`(?:お問い?合わ?せ|ご?注文|ご?予約|お申し?込み?|ご?登録|ご?応募|ご?依頼|ご?連絡|ご?相談|メール|ご?送信)`;
const NOTICE_WORDING = new RegExp(
  String.raw`^(?:(?:${NOTICE_OBJECT}(?:内容)?(?:の|を)?)?(?:受付|受領|受信|確認)(?:完了)?(?:の?(?:お知らせ|ご連絡|ご案内|通知|メール))?` +
    String.raw`|${NOTICE_OBJECT}(?:を|の)?(?:受け付けました|受付(?:いた|致)?しました|受領(?:いた|致)?しました|承りました)` +
    String.raw`|(?:この度は|${NOTICE_OBJECT}(?:を)?(?:いただき|頂き)?)?(?:誠に|まことに)?(?:ありがとうございます|ありがとうございました)` +
    String.raw`|${JA_ABSENCE})$`,
  'u',
);
const REFERENCE_NUMBER = /^(?:(?:no\.?|id|ref)[:：#]?\s?|#)?(?=[\w-]*\d)[a-z\d][\w-]{0,30}$/iu;
// Marks around the parts of a subject beside a tag: brackets, colons, dashes, spaces.
const SUBJECT_PART_MARK = /[\s:：\-–—|/()（）「」『』\[\]［］【】]/u;

/**
 * The subject, when a Japanese autoresponder's bracketed tag ({@link NOTICE_TAG}) decides it: in it other than behind
 * a person's Re: or Fwd:, and beside more of a notice unless the mail replies to ours ({@link noticeTagDecides}).
 */
function noticeTagDetail(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
  const subject = mail.subject;
  const tag = subject ? NOTICE_TAG.exec(subject) : null;
  if (!subject || !tag || (tag.index > 0 && ONLY_ANSWER_PREFIXES.test(subject.slice(0, tag.index)))) return undefined;
  return noticeTagDecides(mail, mailboxes, subject, tag) ? `Subject: ${subject}` : undefined;
}

/**
 * Whether a tag in the subject decides: in a reply to one of our Message-IDs, as an autoresponder answers our reply;
 * else only when the own words open with an automatic notice ({@link automaticNoticeOf}) or what stands beside the tag
 * is a notice's: nothing, the subject it answers behind a reply prefix, a notice's wording whole, a reference number
 * beside it ({@link NOTICE_WORDING}). A customer naming the feature in brackets (【自動返信】機能が動作しない,
 * 【自動返信】 メールの設定方法) writes words of their own there.
 */
function noticeTagDecides(mail: ClassifiableMail, mailboxes: OwnMailboxes, subject: string, tag: RegExpExecArray): boolean {
  if (repliesToOurMail(mail, mailboxes) !== undefined || automaticNoticeOf(mail) !== undefined) return true;
  const parts = [subject.slice(0, tag.index), subject.slice(tag.index + tag[0].length)].map(withoutSurroundingMarks).filter((part) => part !== '');
  if (parts.some((part) => ANSWERED_SUBJECT.test(part))) return true;
  const worded = parts.filter((part) => NOTICE_WORDING.test(part.normalize('NFKC')));
  return worded.length > 0 ? parts.every((part) => worded.includes(part) || REFERENCE_NUMBER.test(part.normalize('NFKC'))) : parts.length === 0;
}

/**
 * `part` without the marks around it ({@link SUBJECT_PART_MARK}), read a character at a time: a pattern anchored at the
 * end would start again at every mark of a stranger's long run of spaces.
 */
function withoutSurroundingMarks(part: string): string {
  let start = 0;
  let end = part.length;
  while (start < end && SUBJECT_PART_MARK.test(part[start]!)) start++;
  while (end > start && SUBJECT_PART_MARK.test(part[end - 1]!)) end--;
  return part.slice(start, end);
}

/**
 * The opening of the customer's own words up to the line that says the mail was sent automatically
 * ({@link AUTOMATIC_NOTICE}), one of its first {@link NOTICE_LINES} non-blank lines, its lines joined by a space and
 * cut to {@link MAX_NOTICE_CHARS}; without one there, such a line closing a short notice ({@link closingNoticeOf});
 * read from {@link ReplySignals.automaticNotice} when recorded, else from the question. Only when the lines above it are an autoresponder's courtesies ({@link NOTICE_PREAMBLE_SENTENCE}), and not
 * when the rest reads as a customer's words about a notice they pasted ({@link CUSTOMER_WORDS_AFTER_NOTICE}):
 * 「※このメールは自動送信されています。…↑このようなメールが届きましたが、どういうことでしょうか？」 is a question.
 */
export function automaticNoticeOf(mail: Pick<ClassifiableMail, 'question' | 'automaticNotice'>): string | undefined {
  if (mail.automaticNotice) return mail.automaticNotice;
  const question = mail.question?.trimStart() ?? '';
  const lines = openingLines(question, NOTICE_LINES);
  const at = lines.findIndex((line) => AUTOMATIC_NOTICE.test(line.text));
  if (at < 0) return closingNoticeOf(question);
  if (!lines.slice(0, at).every((line) => isNoticePreamble(line.text))) return undefined;
  const notice = AUTOMATIC_NOTICE.exec(lines[at]!.text)!;
  if (CUSTOMER_WORDS_AFTER_NOTICE.test(question.slice(lines[at]!.start + notice[0].length).replace(LINK, ' '))) return undefined;
  // A PPAP tool's password notice says it was sent automatically too, but ignored, it would leave the customer's
  // encrypted file unopened: the unreadable check parks it for a person instead.
  if (deliversOnlyPassword(question)) return undefined;
  return Array.from(lines.slice(0, at + 1).map((line) => line.text.trim()).join(' ')).slice(0, MAX_NOTICE_CHARS).join('');
}

/**
 * The line among the last {@link CLOSING_NOTICE_LINES} non-blank ones of a short text that says the mail was sent
 * automatically ({@link AUTOMATIC_NOTICE}), behind {@link CLOSING_NOTICE_MARK}, or undefined: only a line of its own,
 * below a notice's words ({@link CLOSING_NOTICE_BODY}), and only when nothing in the text reads as a customer's (a
 * question, a trouble, words about a pasted mail).
 */
function closingNoticeOf(question: string): string | undefined {
  if (question.length > MAX_CLOSING_NOTICE_TEXT_CHARS) return undefined;
  const notice = closingLines(question, CLOSING_NOTICE_LINES).find((line) => AUTOMATIC_NOTICE.test(line.text) && line.text.trim().length <= MAX_CLOSING_NOTICE_LINE_CHARS);
  if (!notice) return undefined;
  const words = question.replace(LINK, ' ');
  const above = question.slice(0, notice.start);
  if (!CLOSING_NOTICE_BODY.test(above) || POINTS_AT_PASTED_NOTICE.test(above)) return undefined;
  if (/[?？]/u.test(words) || CUSTOMER_WORDS_AFTER_NOTICE.test(words) || CUSTOMER_TROUBLE.test(words)) return undefined;
  if (deliversOnlyPassword(question)) return undefined;
  return `${CLOSING_NOTICE_MARK}${notice.text.trim()}`;
}

/** The last `count` non-blank lines of `text` (a short one), last first. */
function closingLines(text: string, count: number): TextLine[] {
  const lines: TextLine[] = [];
  let start = 0;
  for (const line of text.split('\n')) {
    if (/\S/u.test(line)) lines.push({ text: line, start });
    start += line.length + 1;
  }
  return lines.slice(-count).reverse();
}

/** A line of a text and where it starts in it. */
interface TextLine {
  text: string;
  start: number;
}

/** The first `count` non-blank lines of `text`, read a line at a time: a stranger's text may be one long line. */
function openingLines(text: string, count: number): TextLine[] {
  const lines: TextLine[] = [];
  for (let start = 0; lines.length < count && start <= text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    if (/\S/u.test(text.slice(start, end))) lines.push({ text: text.slice(start, end), start });
    if (newline < 0) break;
    start = newline + 1;
  }
  return lines;
}

/** Whether a line above a notice is an autoresponder's courtesy: each of its sentences ({@link NOTICE_PREAMBLE_SENTENCE}). */
function isNoticePreamble(line: string): boolean {
  const sentences = line.normalize('NFKC').split(/[。.!！]/u).map((sentence) => sentence.trim()).filter((sentence) => sentence !== '');
  return sentences.length > 0 && sentences.every((sentence) => NOTICE_PREAMBLE_SENTENCE.test(sentence) && !/[?？]/u.test(sentence));
}

/** The Message-ID of ours (right of its `@`, one of our addresses' domains) that the mail answers, if any. */
function repliesToOurMail(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
  const ours = ourMessageIdMatcher(mailboxes);
  return [mail.inReplyTo, ...(mail.references ?? [])].find((id) => id !== undefined && ours(id));
}

/** Whether a Message-ID is ours: right of its `@`, one of our addresses' domains. */
function ourMessageIdMatcher(mailboxes: OwnMailboxes): (id: string) => boolean {
  const domains = new Set(bareOwnAddresses(mailboxes).map((address) => domainOf(address)));
  return (id) => domains.has(domainOf(id.replace(/>\s*$/, '')));
}

/**
 * Why the mail is a read receipt sent as plain mail, by its subject ({@link READ_RECEIPT_SUBJECT}) on a reply, or over
 * a receipt's own text (Outlook's "Su mensaje … fue leído el …", which it sends with no In-Reply-To). Never when the
 * words ask something ({@link asksBesideReceipt}): a customer's subject may begin "Lu :" or "Read:".
 */
function readReceiptDetail(mail: ClassifiableMail): string | undefined {
  if (!mail.subject || !READ_RECEIPT_SUBJECT.test(mail.subject) || receiptSubjectAsks(mail)) return undefined;
  if (isReply(mail)) return `Subject: ${mail.subject}`;
  const notice = serviceNoticeIn(mail);
  return notice?.kind === 'read receipt' ? `Subject: ${mail.subject}, and the text says “${notice.evidence}”` : undefined;
}

/** Whether a mail under a read receipt's subject asks something: {@link ReplySignals.receiptSubjectAsks} when recorded, else read from the parsed mail. */
function receiptSubjectAsks(mail: ClassifiableMail): boolean {
  if (mail.receiptSubjectAsks) return true;
  return mail.subject !== undefined && READ_RECEIPT_SUBJECT.test(mail.subject) && asksBesideReceipt(mail.question ?? mail.text ?? '');
}

/** The {@link ServiceNotice} recorded in the signals, else read from the parsed mail. */
function serviceNoticeIn(mail: ClassifiableMail): ServiceNotice | undefined {
  if (mail.serviceNotice) return mail.serviceNotice;
  const target = mail.replyTo ?? mail.from;
  return serviceNoticeOf(mail, target !== undefined && isNoReplyAddress(target.address));
}

/** True when the mail names a mail it answers (In-Reply-To or References). */
function isReply(mail: ClassifiableMail): boolean {
  return Boolean(mail.inReplyTo) || (mail.references?.length ?? 0) > 0;
}

function autoReplyDetail(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
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
  if (isReply(mail) && mail.subject && ((AUTO_REPLY_SUBJECT.test(mail.subject) && !asksUnderNoticeName(mail.subject)) || DOMINO_AUTO_SUBJECT.test(mail.subject))) {
    return `Subject: ${mail.subject}`;
  }
  if (mail.subject && DOMINO_OUT_OF_OFFICE_SUBJECT.test(mail.subject)) return `Subject: ${mail.subject}`;
  const tagged = noticeTagDetail(mail, mailboxes);
  if (tagged) return tagged;
  const notice = automaticNoticeOf(mail);
  const absence = absenceNoticeOf(mail);
  const acknowledgement = ticketAcknowledgementOf(mail);
  const ours = notice || absence || acknowledgement ? repliesToOurMail(mail, mailboxes) : undefined;
  if (!ours) return undefined;
  if (notice?.startsWith(CLOSING_NOTICE_MARK)) return `the text ends “${notice.slice(CLOSING_NOTICE_MARK.length)}” in a reply to our mail ${ours}`;
  if (notice) return `the text begins “${notice}” in a reply to our mail ${ours}`;
  if (absence) return `the text is only an out-of-office notice (“${quoted(absence)}”) in a reply to our mail ${ours}`;
  return `the text is a ticket system's acknowledgement (“${quoted(acknowledgement!)}”) in a reply to our mail ${ours}`;
}

// Reading an out-of-office notice by its words, for autoresponders that write no header and keep the subject
// (procmail, ISPs', mail clients' rules). The customer's own words are cut into sentences, and each must be one of a
// notice's: that the writer is away now ({@link ABSENCE}), or one of the notice's own phrasings around it
// ({@link ABSENCE_NOTICE_PHRASES}), a greeting or thanks, or the signature, with nothing asked beside them
// ({@link ABSENCE_REQUEST}). Anything else ("エクスポートはまだ文字化けしています", "Please cancel my order") is the
// customer's own, and the mail is answered: a pointless reply to an autoresponder costs little, a customer ignored a lot.
// Away now, in each language the desk meets: 不在にしております, 休暇をいただいております, "I'm currently out of the office",
// 휴가 중입니다, 부재중이라, 休假中, 不在办公室, absent(e) du bureau, en congés, nicht im Büro, abwesend, fuera de la oficina.
// Present and future forms only: 不在にしておりました and 休暇をいただいておりました are a customer back at their desk,
// and 부재중 alone is as often a missed call (부재중 전화).
const ABSENCE = new RegExp(
  [
    String.raw`(?:不在|留守)に(?:して|いたして|致して)(?:おります|います|おり(?=[、，,]))|休暇を(?:いただいて|頂いて|取得して|とって|取って)(?:おります|います|おり(?=[、，,]))|(?:休暇|出張|外出|休業|不在)中(?:です|でございます|のため|につき|となっております)`,
    String.raw`\b(?:i am|i'm|i will be|i'll be)(?: currently| now| presently)? (?:out of (?:the )?office|ooo|away from (?:the |my )?(?:office|desk)|on (?:annual |parental |sick |maternity |paternity )?leave|on (?:vacation|holiday|holidays|a business trip|business travel))\b`,
    String.raw`(?:부재|휴가|출장|외근|휴무)\s?중(?:입니다|이며|이라|이어서|이오니|이므로|이니|으로|에는|이기)|자리(?:를|에) (?:비웁|비우|없습)|현재 자리에 없`,
    String.raw`休假(?:中|期间|期間)|不在(?:办公室|辦公室)|出差(?:中|期间|期間)|外出(?:中|期间|期間)`,
    String.raw`absente? du bureau|\ben cong[ée]s?(?!\p{L})|\ben vacances\b|\ben d[ée]placement\b`,
    String.raw`nicht im b[üu]ro|\babwesend\b|\bim urlaub\b|au[ßs]er haus`,
    String.raw`fuera de la oficina|\bde vacaciones\b|\bausente\b`,
    ...MORE_ABSENCE,
  ].join('|'),
  'iu',
);
// The past, which no notice writes of its absence: the customer was away and writes now (返信が遅れました, 늦었습니다,
// "I was out of the office", war im Urlaub).
const ABSENCE_PAST =
  /(?<!ありがとうござい)ました|でした|(?:었|았|였|했|됐|갔|왔|봤|셨)(?:습니다|어요|다|는데|지만|으나|고)|\b(?:i was|i've been|i have been|i had been|we were)\b|\b(?:war|waren|gewesen)\b|(?<!\p{L})(?:j'étais|étais|ai été)(?!\p{L})|\b(?:estuve|estaba|he estado)\b/iu;
// A notice's own phrasings beside the absence, present or future, each whole: when the writer returns or answers, that
// answers may be late or the mail is not forwarded, whom to call meanwhile or for urgent matters, its apology and
// closing. A sentence passes only when taking them out leaves nothing asked ({@link ABSENCE_REQUEST}); a word such as
// "back" or 返信 in a customer's own sentence is no notice.
const ABSENCE_NOTICE_PHRASES = new RegExp(
  [
    // 12月1日より順次ご返信いたします, 以降に順次対応させていただきます, 戻り次第ご連絡いたします
    String.raw`(?:順次|改めて|以降に?|より|から|戻り次第|帰社後|出社後|復帰後)[、，]?(?:順次)?(?:ご|お)?(?:返信|返答|回答|対応|連絡|確認)(?:を)?(?:いたします|致します|させていただきます|させて頂きます|します|申し上げます)`,
    String.raw`(?:出社|帰社|復帰)(?:予定|の予定|いたします|致します|します)|戻り(?:は|の予定は)?[^。]{0,20}?(?:予定|となります)|戻ります|戻る予定`,
    String.raw`(?:ご|お)?(?:返信|返答|回答|連絡|対応)(?:が|は)?(?:遅れ|遅く)(?:ます|る(?:場合|可能性|こと)|なります|なる(?:場合|可能性|こと))`,
    String.raw`(?:お急ぎ|至急|緊急)(?:の)?(?:方|場合|ご用件|ご用|用件|案件|際)?(?:は|につきましては|の際は)[^。]{0,60}?(?:ご連絡|お電話|連絡|お問い合わせ|電話)(?:を)?(?:ください|下さい|お願い(?:いたし|致し|し)ます|願います|いただけますよう[^。]{0,15})`,
    String.raw`(?:何卒|なにとぞ)?(?:ご了承|ご理解|ご容赦)(?:の(?:ほど|程))?(?:を)?(?:ください|下さい|お願い(?:いたし|致し|申し上げ)?ます|願います|いただけますよう[^。]{0,15})|ご(?:迷惑|不便)を?(?:お)?かけ(?:いたし|致し|し)?ますが|(?:何卒|なにとぞ)?(?:よろしく|宜しく)お願い(?:いたし|致し|申し上げ)?ます`,
    String.raw`(?:メール|メッセージ)(?:の)?(?:確認|返信|閲覧)(?:が|は)?(?:できません|出来ません|できない|難しい|困難)|(?:メール|メッセージ)は転送されません|(?:期間中|不在中|休暇中)(?:は)?[、，]?(?:メール(?:の)?)?(?:ご?返信|ご?連絡|対応|確認)(?:が|は|を)?(?:できません|いたしかねます|致しかねます|出来ません|できかねます)`,
    // I will be back on, upon my return, I will respond when I return, limited access to email
    String.raw`\b(?:i will|i'll|i shall) (?:be )?(?:back|return|returning)\b|\b(?:i am|i'm) (?:back|returning) on\b|\b(?:upon|on|after) my return\b|\bwhen i (?:return|get back|am back)\b|\b(?:back|returning) (?:in the office |to the office )?on\b`,
    String.raw`\b(?:i will|i'll|i shall)(?: (?:be happy to|gladly|then|try to|do my best to))? (?:reply|respond|answer|get back to you|attend to|deal with|read)\b|\b(?:responses?|replies|my (?:reply|response))(?: to (?:your )?(?:e-?mails?|messages?))? (?:may|will|might) be (?:delayed|slow|late|slower)\b|\b(?:with|have|having) (?:limited|no|intermittent|little) access to (?:my )?e-?mails?\b`,
    // For urgent matters please contact, In my absence please contact, If you need immediate assistance, please call
    String.raw`\b(?:for|in case of|if you have an?|if this is an?|if it is an?|if this is|if it is|if your (?:matter|request|enquiry|inquiry) is) (?:urgent (?:matters?|issues?|requests?|enquiries|inquiries|queries|questions?)|anything urgent|urgent)\b[, ]*(?:please )?(?:contact|call|reach|e-?mail|write to|get in touch with)?`,
    String.raw`\b(?:in my absence|meanwhile|in the meantime|during my absence|while i am (?:away|out))[, ]*(?:please )?(?:contact|call|reach out to|reach|e-?mail|write to|get in touch with)\b|\bif you (?:need|require) (?:immediate|urgent) (?:assistance|help|support)[, ]*(?:please )?(?:contact|call|reach|e-?mail)\b|\bplease (?:note|be advised)(?: that)?\b`,
    String.raw`\b(?:your )?(?:e-?mails?|messages?|mails?) (?:will|is|are) not (?:be )?(?:forwarded|read|monitored|checked)\b`,
    // 12월 1일에 복귀합니다, 회신이 늦어질 수 있습니다, 급한 용무는 …로 연락 부탁드립니다, 전달되지 않습니다
    String.raw`복귀(?:합니다|할 예정|예정입니다|하겠습니다|후|하는 대로)|돌아(?:옵니다|올 예정|오는 대로|온 후)`,
    String.raw`(?:회신|답장|답변|연락|확인)(?:이|은|을|는)?\s?(?:늦어질 수 있습니다|늦어질 수 있으니|늦어집니다|어렵습니다|어려우니|불가합니다|불가능합니다|드리겠습니다|하겠습니다|드릴 예정입니다)`,
    String.raw`(?:급한|긴급한?)\s?(?:용무|용건|사항|문의|일|건)(?:는|은|가 있으시면|이 있으시면|의 경우)?[^.]{0,60}?(?:연락|문의|전화)\s?(?:해\s?주시기 바랍니다|해\s?주세요|하시기 바랍니다|주십시오|주시기 바랍니다|부탁드립니다|바랍니다)|전달되지 않습니다`,
    // 12月1日返回办公室, 回复可能会延迟, 如有急事，请联系, 不会转发
    String.raw`(?:返回|回到|回)(?:办公室|辦公室|公司)|(?:返回|回来|回來)(?:后|後)(?:尽快|盡快)?(?:回复|回覆|处理|處理)?|(?:回复|回覆|答复)(?:可能)?(?:会|會)?(?:有所)?(?:延迟|延遲|延误|延誤)|(?:无法|無法|不能)(?:及时|及時)?(?:查看|回复|回覆)(?:邮件|郵件)?|(?:如有|如果有|若有)(?:急事|紧急|緊急|要事)[^。]{0,10}?[，,]?\s?(?:请|請)?(?:联系|聯繫|聯絡|致电|致電)|不会转发|不會轉發`,
    String.raw`\b(?:serai|suis) de retour\b|\b(?:à|dès) mon retour\b|\bje (?:vous )?(?:répondrai|traiterai|recontacterai)\b|\bne sera pas (?:transférée?|lue?)(?!\p{L})|\b(?:en cas d'urgence|pour toute (?:demande|question) urgente|pour les urgences)[, ]*(?:veuillez |merci de )?(?:contacter|joindre|écrire à|vous adresser à)?|\baccès limité(?!\p{L})`,
    String.raw`\b(?:ab|am)\b[^.]{0,30}?\b(?:wieder (?:im b[üu]ro|erreichbar|da|zur[üu]ck)|zur[üu]ck)\b|\b(?:werde|wird|werden) [^.]{0,40}?(?:beantworten|bearbeiten|antworten|bearbeitet|beantwortet)\b|\bwird nicht weitergeleitet\b|\b(?:in dringenden f[äa]llen|bei dringenden (?:anliegen|fragen|angelegenheiten))[, ]*(?:wenden sie sich (?:bitte )?an|kontaktieren sie (?:bitte )?|bitte)?|\b(?:eingeschr[äa]nkte[mn]?|keinen) zugriff\b`,
    String.raw`\b(?:responderé|contestaré|atenderé)(?!\p{L})|\b(?:a mi regreso|regresaré|volveré|estaré de vuelta)(?!\p{L})|\bno (?:será|sera) reenviad[oa]\b|\b(?:para|en caso de) (?:asuntos |temas )?urgen(?:te|tes|cias?)[, ]*(?:por favor )?(?:contacte|contactar con|póngase en contacto con|escriba a)?|\bacceso limitado\b`,
    ...MORE_ABSENCE_NOTICE_PHRASES,
  ].join('|'),
  'giu',
);
// Something asked of us, which no notice asks outside its own phrasings: a request or an imperative, in each language.
const ABSENCE_REQUEST = new RegExp(
  [
    String.raw`ください|下さい|お願い|願います|いただけ(?:ます|ません)か|頂け(?:ます|ません)か|(?:ほ|欲)しい|希望(?:します|です)|부탁|주세요|주십시오|주시기|바랍니다|请|請|麻烦|麻煩|帮我|幫我`,
    String.raw`\b(?:please|pls|plz|kindly|could you|can you|would you|will you|we need|i need|we would like|i would like|i'd like|we'd like|i want|we want)\b|\bbitte\b|\bveuillez\b|\bmerci de\b|s'il vous pla[iî]t|\bpor favor\b|\bnecesito\b|\bbrauche\b`,
    ...MORE_ABSENCE_REQUEST,
  ].join('|'),
  'iu',
);
// Greetings, thanks for the mail and closings a notice writes in the languages beside Japanese and English, whose own
// are the acknowledgement lists'.
const ABSENCE_COURTESY =
  /^(?:bonjour|bonsoir|hallo|guten tag|sehr geehrte damen und herren|hola|buenos d[ií]as|estimad[oa]s?(?: \p{L}+)?)$|^(?:thank you|thanks|vielen dank|danke|merci|gracias)(?: (?:for|f[üu]r|pour|por) (?:your|ihre|votre|su) (?:e-?mail|message|nachricht|courriel|mensaje|correo))?$|^(?:cordialement|bien cordialement|mit freundlichen gr[üu](?:ß|ss)en|viele gr[üu](?:ß|ss)e|beste gr[üu](?:ß|ss)e|saludos|un saludo|atentamente)$|^(?:感谢您的(?:来信|邮件)|感謝您的(?:來信|郵件))$|^(?:メール|ご連絡)(?:を)?(?:いただき)?ありがとうございます$/u;
// What only a customer writes: the trouble they are in. An autoresponder's sentence never names an error.
const CUSTOMER_TROUBLE = new RegExp(
  [String.raw`エラー|文字化け|不具合|\b(?:error|errors|fails?|failed|failing|broken|bug|garbled|crash(?:es|ed)?|still)\b|오류|에러|깨지|깨집|错误|錯誤|报错|乱码|亂碼|erreur|fehler`, ...MORE_CUSTOMER_TROUBLE].join('|'),
  'iu',
);
// The away phrases, to take them all out of a Thai or Vietnamese line ({@link saysMoreThanAwayNotice}).
const ABSENCE_ALL = new RegExp(ABSENCE.source, 'giu');
// A line of CJK text that says something rather than names someone: a pronoun, an object particle, a verb's ending, or
// what a customer asks to have done (解約, 환불, 取消).
const CJK_SENTENCE =
  /を|[私僕我您你]|わたし|저는|제가|저희|(?:ます|ません|です|ました|でした|します|する|した|して|ない|たい|れる|られる|ましょう)$|(?:니다|세요|어요|아요|해요|에요|예요|나요|까요|죠)$|再発行|解約|キャンセル|返金|変更|削除|送付|환불|취소|해지|삭제|변경|요청|取消|退款|退货|退貨|删除|刪除|修改|更改|发送|發送|寄|开具|開具|需要|希望|想|要求|处理|處理|办理|辦理|帮|幫/u;
// A word of a Latin signature line: a capitalised name or company word, an acronym, a number or a phone, an address
// label, or a joining word ("Head of Sales", "Acme & Co", "Tel: +81 3 1234 5678").
const SIGNATURE_WORD =
  /^(?:\p{Lu}[\p{L}\p{M}'’.&-]*|[\p{L}.-]*\d[\p{L}\p{N}+.:()-]*|[+(]?\d[\d().+-]*|of|and|&|de|du|des|la|le|von|van|der|den|di|da|y|e|at|tel|fax|mobile|phone|mob|cell|direct|e-?mail|mail|web|www\S*|[\p{P}\p{S}]+)$/u;
// What a customer asks to have done, never a word of a name or a company in a signature.
const SIGNATURE_ACTION =
  /\b(?:cancel|refund|delete|remove|send|change|update|close|stop|call|ship|issue|reset|renew|unsubscribe|k[üu]ndigen|stornieren|l[öo]schen|annuler|supprimer|envoyer|cancelar|eliminar|enviar)\b/iu;
// The longest text read as a notice, and the longest signature line below it.
const MAX_ABSENCE_NOTICE_CHARS = 600;
const MAX_SIGNATURE_LINE_CHARS = 40;
const MAX_SIGNATURE_LINES = 4;

/**
 * The customer's own words when they are an out-of-office notice and nothing else, or undefined. Read from
 * {@link ReplySignals.absenceNotice} when recorded, else from the parsed mail: no `?`/`？` outside links, no trouble
 * named ({@link CUSTOMER_TROUBLE}), at most {@link MAX_ABSENCE_NOTICE_CHARS} characters, at least one sentence saying
 * the writer is away now ({@link ABSENCE}, not in the past: {@link ABSENCE_PAST}), and every other one a notice's own
 * phrasing ({@link ABSENCE_NOTICE_PHRASES}), a greeting, a thanks, a closing or the sender's name, with nothing asked
 * ({@link ABSENCE_REQUEST}) outside those phrasings; below them at most {@link MAX_SIGNATURE_LINES} lines of a
 * signature, each shaped as a name, a company or a contact ({@link isSignatureLine}).
 */
export function absenceNoticeOf(mail: Pick<ClassifiableMail, 'question' | 'absenceNotice' | 'from'>): string | undefined {
  if (mail.absenceNotice) return mail.absenceNotice;
  const words = mail.question?.trim() ?? '';
  if (words === '' || words.length > MAX_ABSENCE_NOTICE_CHARS) return undefined;
  const text = words.replace(LINK, ' ').replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gu, ' ');
  // Every mail is read at ingest: one look for an away phrase anywhere spares the others the sentence-by-sentence pass.
  if (/[?？]/u.test(text) || CUSTOMER_TROUBLE.test(text.normalize('NFKC')) || !ABSENCE.test(text.normalize('NFKC'))) return undefined;
  const names = nameWordsOf(mail.from?.name);
  for (const word of localPart(mail.from?.address ?? '').toLowerCase().split(/[._+-]/u)) if (word.length >= 3) names.add(word);
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  let away = false;
  let unread = -1;
  lines.forEach((line, at) => {
    for (const sentence of line.normalize('NFKC').split(/[。!！]|(?<!\d)\.(?=\s|$)/u)) {
      const phrase = noticePhraseOf(sentence);
      if (!/[\p{L}]/u.test(phrase) || isNoticeCourtesy(phrase, names)) continue;
      const rest = sentence.replace(ABSENCE_NOTICE_PHRASES, ' ');
      const absent = ABSENCE.test(sentence);
      // Thai writes no sentence marks and Vietnamese joins clauses with commas: such a line is read as a notice only
      // when it holds almost nothing else.
      const notice = (absent || rest !== sentence) && !ABSENCE_PAST.test(sentence) && !ABSENCE_REQUEST.test(rest) && !saysMoreThanAwayNotice(rest, ABSENCE_ALL);
      if (notice) away ||= absent;
      else if (unread < 0) unread = at;
    }
  });
  if (!away) return undefined;
  const signature = unread < 0 ? [] : lines.slice(unread);
  return signature.length <= MAX_SIGNATURE_LINES && signature.every((line) => isSignatureLine(line, names)) ? words : undefined;
}

/** A sentence as the phrase lists compare it: {@link comparable}, marks read as spaces, no comma at either end. */
function noticePhraseOf(sentence: string): string {
  return comparable(sentence).replace(/[^\p{L}\p{N}\p{M}'、, ]+/gu, ' ').replace(/\s+/gu, ' ').replace(/^[、, ]+|[、, ]+$/gu, '');
}

/**
 * Whether a line below a notice may be its signature: short, one piece (no sentence mark inside), asking nothing
 * ({@link ABSENCE_REQUEST}, {@link SIGNATURE_ACTION}), and shaped as a name, a company or a contact: CJK text with no
 * verb or pronoun ({@link CJK_SENTENCE}), else words each a name's, a company's or a contact's ({@link SIGNATURE_WORD}) or
 * the sender's own. "please delete my account" and 「見積書を本日中にご送付ください」 are a customer's.
 */
function isSignatureLine(line: string, names: ReadonlySet<string>): boolean {
  const bare = line.normalize('NFKC').replace(/[。.!！、,]+$/u, '');
  if (line.length > MAX_SIGNATURE_LINE_CHARS || /[。.!！]\s*\S/u.test(bare) || ABSENCE.test(bare) || ABSENCE_REQUEST.test(bare) || SIGNATURE_ACTION.test(bare)) return false;
  if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(bare)) return !CJK_SENTENCE.test(bare);
  return bare
    .split(/[\s,;|/·•–—]+/u)
    .filter((word) => word !== '')
    .map((word) => word.replace(/[:：]$/u, ''))
    .every((word) => word === '' || SIGNATURE_WORD.test(word) || names.has(comparable(word)));
}

/** Whether a notice's phrase is a greeting, a thanks, a closing or the sender's name ({@link phraseKind}, {@link ABSENCE_COURTESY}). */
function isNoticeCourtesy(phrase: string, names: ReadonlySet<string>): boolean {
  if (ABSENCE_COURTESY.test(phrase) || phraseKind(phrase, names) !== undefined) return true;
  const introduced = /^(.+?)(?:입니다|です|でございます)$/u.exec(phrase)?.[1];
  return introduced !== undefined && introduced.split(' ').every((word) => names.has(word));
}

// Another helpdesk's acknowledgement of a ticket (Freshdesk, ServiceNow, Salesforce, Zendesk's first mail): the
// ticket's number, and that a person of theirs will answer or that the ticket was opened. "We have received your
// email" alone is no sign: a customer's purchasing or accounts team writes it above what they ask of us.
const TICKET_OPENED = /\b(?:(?:ticket|case|incident|request)(?: (?:#|no\.? ?|number )?[\w-]*\d[\w-]*)? (?:has been|was|is now) (?:created|opened|logged|raised|registered)|opened on your behalf)\b/iu;
const TICKET_NUMBER = /\b(?:ticket|case|incident|request|reference)\s*(?:id|number|no\.?|#)\s*(?:is|:|-|–)?\s*#?[\w-]*\d|\b(?:ticket|case|incident) #?[a-z]{0,5}\d{3,}\b/iu;
const RESPONSE_PROMISED =
  /\b(?:a (?:support )?(?:representative|agent|engineer|specialist)|a member of our (?:[a-z]+ )?team|one of our (?:agents|representatives|team members|engineers)|our (?:support )?team) will (?:respond|review|reply|get back|contact|be (?:in touch|reviewing|with you|responding))/iu;
// A person's own trouble or voice, which no ticket system's acknowledgement carries.
// Not "me": a link's words say it ("Take me to the Incident").
const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|my)\b/iu;
// What a ticket system asks of the one it answers, taken out before asking whether the text asks anything: to visit
// the portal, to keep the subject, not to reply; and its "we would like to acknowledge".
const TICKET_SYSTEM_INSTRUCTION =
  /\bplease (?:visit|click|use|follow|see|go to|log ?in|sign in|quote|include|reference|keep|refer to|note|allow|be patient|feel free|do not hesitate|contact us|do not (?:reply|respond|change|modify|remove|edit|alter)|don't (?:reply|respond|change)|(?:reply|respond) (?:to|above) this (?:e-?mail|message|line))\b|\bwe would like to (?:acknowledge|inform|confirm|let you know)\b/giu;
// A request or an imperative addressed to us, in the languages the desk meets: a customer's, never an acknowledgement's.
const ADDRESSED_REQUEST =
  /\b(?:please|pls|kindly|could you|can you|would you|will you|we need|we would like|we'd like|we want|we require|we request|we ask|we expect)\b|ください|下さい|お願い|부탁|주세요|주십시오|请|請|麻烦|麻煩|\bbitte\b|\bveuillez\b|\bpor favor\b/iu;
// We or our (team, users, order…) beside a need or a problem: a business customer's own voice ("our users cannot log
// in", "we still need the quote"). Not "our team will review", which a ticket system writes.
const OUR_NEED_OR_TROUBLE =
  /\b(?:we|our(?: [a-z]+){1,2})(?: (?:still|also|now|currently|really))? (?:cannot|can't|can not|could not|couldn't|are unable|were unable|do not|don't|did not|didn't|does not|doesn't|have not|haven't|has not|hasn't|are having|have had|are still|is still|are missing|is missing|is wrong|are wrong|need|needs|require|requires|want|wants)\b/iu;
// The longest text read as an acknowledgement.
const MAX_TICKET_ACKNOWLEDGEMENT_CHARS = 1_500;

/**
 * The opening of the own words of another helpdesk's English ticket acknowledgement, or undefined. Read from
 * {@link ReplySignals.ticketAcknowledgement} when recorded, else from the parsed mail: a ticket's number
 * ({@link TICKET_NUMBER}) beside a promise of a person's answer ({@link RESPONSE_PROMISED}) or the ticket's opening
 * ({@link TICKET_OPENED}); no `?` outside links, no trouble named, no first person singular, and nothing asked of us
 * ({@link ADDRESSED_REQUEST} outside a ticket system's own instructions, {@link OUR_NEED_OR_TROUBLE}).
 */
export function ticketAcknowledgementOf(mail: Pick<ClassifiableMail, 'question' | 'ticketAcknowledgement'>): string | undefined {
  if (mail.ticketAcknowledgement) return mail.ticketAcknowledgement;
  const words = mail.question?.trim() ?? '';
  if (words === '' || words.length > MAX_TICKET_ACKNOWLEDGEMENT_CHARS) return undefined;
  const text = words.replace(LINK, ' ');
  // Every mail is read at ingest: the ticket number, which few have, is looked for first.
  if (!TICKET_NUMBER.test(text) || /[?？]/u.test(text) || CUSTOMER_TROUBLE.test(text) || FIRST_PERSON.test(text)) return undefined;
  if (ADDRESSED_REQUEST.test(text.replace(TICKET_SYSTEM_INSTRUCTION, ' ')) || OUR_NEED_OR_TROUBLE.test(text)) return undefined;
  const acknowledges = RESPONSE_PROMISED.test(text) || TICKET_OPENED.test(text);
  return acknowledges ? Array.from(words.replace(/\s+/gu, ' ')).slice(0, MAX_NOTICE_CHARS).join('') : undefined;
}

/**
 * A challenge-response system's request to confirm us as a sender, as {@link senderVerificationOf} found it.
 */
export interface SenderVerification {
  /** What decided, for the reason: a header (`X-Boxtrapper: …`), the subject (`Subject: …`), or the text's opening. */
  detail: string;
  /**
   * True when only the opening of the mail's own words decided, no header and no template subject: a customer may
   * write such words too, so the reply it names is not marked as not arrived on them alone.
   */
  wordsOnly?: true;
  /**
   * Our own Message-IDs the mail answers (In-Reply-To, then References newest first): the reply the guard holds, by
   * which its ticket is found. Empty when the mail names none of ours.
   */
  ourMessageIds: string[];
}

// A subject that is a guard's template whole: its request, then the subject of the mail it holds, which for ours
// begins "Re:" (「送信者確認のお願い：Re: ログインできません」, 25b's "Please verify your email: Re: Cannot log in"). A
// customer's subject about verifying an address is a question ("How do I verify…"), or an app's bare "Please verify
// your email address" pasted in: no subject of ours behind it.
const HELD_SUBJECT = String.raw`\s*(?:[:：\-–—]\s*["'“「『(（]?|["'“「『(（])\s*(?:re|aw|sv|vs|antw|odp)\s*[:：]`;
const CHALLENGE_SUBJECTS: readonly RegExp[] = [
  new RegExp(String.raw`^(?:please\s+)?(?:verify|confirm)\s+your\s+e-?mail(?:\s+address)?${HELD_SUBJECT}`, 'iu'),
  new RegExp(String.raw`^(?:送信者|差出人)の?(?:確認|認証)(?:の?(?:お願い|ご依頼|依頼))?${HELD_SUBJECT}`, 'iu'),
  // A bracketed tag opening the subject (the audit's 「【送信者確認】メールアドレスの確認をお願いします」), unless a
  // particle follows it: 「【送信者確認】について」 is about one.
  /^[【\[〔]\s?(?:送信者|差出人)の?(?:確認|認証)\s?[】\]〕](?![ \t　]*[がをはのにへでとも])/u,
  // cPanel BoxTrapper (behind a filter's tag at most), and the subjects SpamAssassin's rules know besides.
  /^(?:\[[^\]\n]{1,20}\]\s*)?your\s+e-?mail\s+requires\s+verification\s+verify[#:]\S/iu,
  /^unverified\s+e-?mail\s+to\s+\S+@\S/iu,
  /^your\s+mail\s+to\s+\S+@\S+\s+requires\s+confirmation\b/iu,
];
// In a reply to one of our Message-IDs, a subject that only names the request (the text may be a link alone); not
// when a question mark or more words follow it.
const CHALLENGE_SUBJECT_ON_OUR_REPLY = /^(?:[【\[〔]\s?)?(?:送信者|差出人|送信元)の?(?:確認|認証)(?:の?(?:お願い|ご依頼|依頼))?\s?[】\]〕]?\s*$|^(?:please\s+)?(?:verify|confirm)\s+your\s+e-?mail(?:\s+address)?\s*[.!]?\s*$/iu;
// The opening of a guard's text, in a reply to one of our Message-IDs: it asks for verification and says a mail is
// held; both, so a customer's reply about verifying an address ("I still cannot verify my email address", 「送信者の
// 確認メールが届きません」) is not one. From TMDA's, BoxTrapper's, Boxbe's, Bluebottle's and SpamArrest's templates.
const VERIFICATION_ASKED: readonly RegExp[] = [
  /(?:送信者|差出人|送信元)様?の?(?:確認|認証)/u,
  /\b(?:verify|confirm)\s+(?:your\s+(?:e-?mail\s+)?address|your\s+e-?mail|(?:that\s+)?you\s+are\s+(?:a\s+)?(?:real\s+)?(?:live\s+)?(?:human|person|sender)|(?:that\s+)?you\s+are\s+not\s+a\s+(?:robot|spammer))\b/iu,
  /\bsender\s+verification\b|\byour\s+address\s+(?:was|is)\s+not\s+(?:recogni[sz]ed|verified)\b/iu,
  /\b(?:add(?:ed)?\s+(?:yourself|your\s+address)|your\s+address\s+added)\s+to\s+(?:my|the\s+recipient'?s?)\s+(?:\w+\s+){0,2}(?:guest|approved|allowed|safe|white)\s*(?:list|senders)\b|\blist\s+of\s+approved\s+senders\b/iu,
];
const MAIL_HELD: readonly RegExp[] = [
  /保留/u,
  /\byour\s+(?:message|e-?mail|mail)\b[^.!?\n]{0,80}?\b(?:held|waitlisted|wait-listed|quarantined|pending|not\s+(?:yet\s+)?(?:been\s+)?delivered)\b/iu,
  /\bto\s+(?:deliver|release)\s+your\s+(?:message|e-?mail|mail)\b|\bdelivery\s+of\s+your\s+(?:message|e-?mail|mail)\b/iu,
  /\bmessage\s+you\s+sent\s+requires\b|\bso\s+(?:that\s+)?your\s+(?:message|e-?mail|mail)s?\s+(?:will|can)\b|\bincoming\s+messages\s+only\s+from\s+senders\b/iu,
];
// How much of the subject and of the text's opening the patterns read: a guard states its request at once.
const MAX_CHALLENGE_SUBJECT_CHARS = 500;
const CHALLENGE_OPENING_CHARS = 400;
// Mailinblack writes no header of its own; its MIME boundary names it.
const MAILINBLACK_BOUNDARY = /multipartboundary_mailinblack/i;

/**
 * A challenge-response system's request to confirm us as a sender (SpamArrest, Boxbe, BoxTrapper, Bluebottle, TMDA,
 * Mailinblack, a Japanese 「送信者確認」 service): it holds our reply until someone does, so the agent worker parks it
 * for a person rather than answer the guard or drop the request. Known by, in this order:
 * - a header only those systems write ({@link CHALLENGE_HEADERS}; TMDA's on an automatic reply only, BoxTrapper's only
 *   beside its X-Autorespond) or Mailinblack's MIME boundary;
 * - a subject that is a guard's template whole ({@link CHALLENGE_SUBJECTS}): its request followed by the subject of
 *   the mail it holds (`Please verify your email: Re: …`, 「送信者確認のお願い：Re: …」), a 【送信者確認】 tag opening
 *   it, BoxTrapper's `Your email requires verification verify#…`; this decides on a new mail too, since a customer's
 *   question about verification has no subject of ours behind its words;
 * - in a reply to one of our own Message-IDs only: a subject that is the request alone (「送信者確認のお願い」), or
 *   own words whose opening both asks for verification and says a mail is held and asks no question (a `?` outside
 *   links); on these words alone a customer's question might be taken for a guard's, so they set
 *   {@link SenderVerification.wordsOnly}.
 * A reply or forward of a guard's mail (`Re:`/`Fwd:` first) is a person's, and is not one.
 */
export function senderVerificationOf(mail: ClassifiableMail, mailboxes: OwnMailboxes): SenderVerification | undefined {
  const ourMessageIds = ourMessageIdsIn(mail, mailboxes);
  const header = challengeHeaderDetail(mail);
  if (header) return { detail: header, ourMessageIds };
  const subject = challengeSubjectDetail(mail, ourMessageIds.length > 0);
  if (subject) return { detail: subject, ourMessageIds };
  const opening = ourMessageIds.length > 0 ? challengeOpeningDetail(mail) : undefined;
  return opening ? { detail: opening, ourMessageIds, wordsOnly: true } : undefined;
}

/**
 * Whether a sender verification ({@link senderVerificationOf}) decides over this reply decision: it does over an
 * answer and over the ignores a guard's request may also meet (an automatic reply, a no-reply or no sender, words
 * that read as thanks); a bounce (which marks our reply itself), a list, spam, a loop or our own mail stands.
 */
export function outrankedBySenderVerification(decision: ReplyDecision): boolean {
  return decision.answer || OUTRANKED_BY_SENDER_VERIFICATION.has(decision.reason);
}

const OUTRANKED_BY_SENDER_VERIFICATION: ReadonlySet<IgnoreReason> = new Set(['auto-reply', 'no-reply-sender', 'no-sender', 'acknowledgement']);

/** Our own Message-IDs (right of `@` one of our addresses' domains) the mail answers: In-Reply-To, then References newest first. */
function ourMessageIdsIn(mail: ClassifiableMail, mailboxes: OwnMailboxes): string[] {
  const ours = ourMessageIdMatcher(mailboxes);
  return [...new Set([mail.inReplyTo, ...[...(mail.references ?? [])].reverse()].filter((id): id is string => id !== undefined && ours(id)))];
}

/** The challenge-response header that decides, as `Name: value`. */
function challengeHeaderDetail(mail: ClassifiableMail): string | undefined {
  const shown = (label: string, value: string) => `${label}: ${value.trim().slice(0, MAX_HEADER_VALUE_CHARS)}`;
  const first = (name: string) => values(mail, name)[0];
  const spamArrest = first('x-spamarrest-noauth');
  if (spamArrest !== undefined) return shown('X-Spamarrest-noauth', spamArrest);
  const boxTrapper = first('x-boxtrapper');
  if (boxTrapper !== undefined && first('x-autorespond') !== undefined) return shown('X-Boxtrapper', boxTrapper);
  const bluebottle = first('x-bluebottle-request');
  if (bluebottle !== undefined) return shown('X-Bluebottle-Request', bluebottle);
  const choiceMail = first('x-choicemail-registration-request');
  if (choiceMail !== undefined) return shown('X-Choicemail-Registration-Request', choiceMail);
  const tmda = values(mail, 'x-delivery-agent').find((value) => /^\s*tmda\b/i.test(value));
  if (tmda !== undefined && values(mail, 'auto-submitted').some((value) => keyword(value) === 'auto-replied')) return shown('X-Delivery-Agent', tmda);
  const boundary = values(mail, 'content-type').find((value) => MAILINBLACK_BOUNDARY.test(value));
  return boundary === undefined ? undefined : shown('Content-Type', boundary);
}

/** The subject that decides ({@link senderVerificationOf}), as `Subject: …`: a template whole, or the request alone on a reply to ours. */
function challengeSubjectDetail(mail: ClassifiableMail, answersOurs: boolean): string | undefined {
  const subject = (mail.subject ?? '').trim();
  const comparableSubject = subject.slice(0, MAX_CHALLENGE_SUBJECT_CHARS).normalize('NFKC');
  if (CHALLENGE_SUBJECTS.some((pattern) => pattern.test(comparableSubject))) return `Subject: ${quoted(subject)}`;
  return answersOurs && CHALLENGE_SUBJECT_ON_OUR_REPLY.test(comparableSubject) ? `Subject: ${quoted(subject)}` : undefined;
}

/**
 * The opening of the own words that decides in a reply to ours ({@link senderVerificationOf}), as `the text begins
 * “…”`: it asks for verification and says a mail is held, and asks no question (a `?` outside links): 「送信者の確認
 * メールが届かず、注文が保留のままです。どうすればよいですか？」 is a customer's.
 */
function challengeOpeningDetail(mail: ClassifiableMail): string | undefined {
  const opening = (mail.question ?? '').trimStart().slice(0, CHALLENGE_OPENING_CHARS);
  const comparableOpening = opening.normalize('NFKC').replace(/\s+/gu, ' ');
  if (/[?？]/u.test(comparableOpening.replace(LINK, ' '))) return undefined;
  if (!VERIFICATION_ASKED.some((pattern) => pattern.test(comparableOpening)) || !MAIL_HELD.some((pattern) => pattern.test(comparableOpening))) return undefined;
  return `the text begins “${quoted(opening)}”`;
}

// Local parts of delivery-system senders (RFC 5321 §4.5.1 postmaster, sendmail/Postfix MAILER-DAEMON), as carriers
// spell them too (Verizon's post_master@vtext.com); the whole local part, so john.postmaster@ is a person.
const BOUNCE_SENDER = /^(?:mailer[-_.]?daemon|post[-_.]?master)$/i;
// Machine-generated reports of any report-type (delivery status, read receipts, feedback loops).
const REPORT_TYPES = new Set(['multipart/report', 'message/delivery-status', 'message/disposition-notification', 'message/feedback-report']);
// RFC 3464's and RFC 6533's delivery-status parts: what says "bounce" in a DSN that is not multipart/report.
const STATUS_PARTS = new Set(['message/delivery-status', 'message/global-delivery-status']);
/** The part types of a returned original (or its headers) a DSN carries beside its status, and a complaint reports. */
export const ORIGINAL_PARTS: ReadonlySet<string> = new Set(['message/rfc822', 'text/rfc822-headers', 'message/rfc822-headers', 'message/global', 'message/global-headers']);
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
// A bounce's subject, as MTAs write it: Postfix's "Undelivered Mail Returned to Sender", sendmail's "Returned mail:
// …", Exim's "Mail delivery failed: …", Exchange's "Undeliverable: …", Gmail's "Delivery Status Notification
// (Failure)", qmail's "failure notice", Japanese ISPs' and carriers' 「メール配信エラーのお知らせ」, 「メール送信エラー」,
// 「【配信不能】Re: …」. Not KDDI's 「メールエラー通知」: its bounce says "Could not be delivered to:" beside the returned
// original, which decides without it, while a customer's mail under those words through a form relay is parked
// (bug review 44e). Whole or before a colon or bracket, so that a customer's 「メール送信エラーについて」 is none.
// Read only beside a null envelope sender, which form relays use too (see nullEnvelopeSender), or a delivery system's
// name in the From (DELIVERY_SYSTEM_NAME).
const BOUNCE_SUBJECT_NAME = String.raw`(?:メール)?(?:の)?(?:配信|送信|配送|受信)(?:エラー|不能|失敗)|(?:メール)?不達(?:通知)?`;
const BOUNCE_SUBJECT = new RegExp(
  String.raw`^\s*(?:(?:undeliver(?:ed|able)(?: mail| message)?(?: returned to sender)?|returned mail|mail delivery (?:failed|failure)|delivery (?:status notification|failure|failed|notification)|failure notice|non-?delivery(?: report| notification)?|message (?:not delivered|undeliverable)|mail system error)(?=\s*(?:[:：(\-–—]|$))|warning: could not send message for past\b)` +
    String.raw`|^\s*[【\[［]\s*(?:${BOUNCE_SUBJECT_NAME})\s*[】\]］]|^\s*(?:${BOUNCE_SUBJECT_NAME})(?:の(?:お知らせ|ご連絡|通知))?\s*(?:[:：]|$)`,
  'iu',
);
// The display names MTAs send bounces under, whole: Postfix's and Exim's "Mail Delivery System", sendmail's "Mail
// Delivery Subsystem", OpenSMTPD's "Mailer Daemon", au's "Mail Administrator", IMail's and AOL's "Postmaster", X1's
// "Mail Deliver System". Where the stored mail lacks Return-Path, OpenSMTPD's bounce from poostmaster@ is known only
// by its name and subject (round 8b); a name anyone may type decides only beside a bounce subject and only without a
// Return-Path: a customer's IT writes under "Postmaster" about our bounced replies with an ordinary one (review 44e).
const DELIVERY_SYSTEM_NAME = /^(?:mailer[-_ ]?daemon|mail deliver(?:y)? (?:sub)?system|mail administrator|post[-_ ]?master)$/i;
// A customer forwarding a bounce inline (with its parts) asks about it: such mail is theirs, not the MTA's. Only keeps
// mail from being ignored, so it reads every forward prefix the parser's does (転送, 전달, Finnish/Swedish VS, Polish PD,
// Turkish İLT, Outlook's Fwd[2]) and more: behind a gateway's [EXTERNAL] tag or a reply's Re:, and bracketed
// (［転送］, [転送], [Fwd: …]).
const FORWARD_SUBJECT = /^\s*(?:\[(?:EXTERNAL|EXT)\]\s*)?(?:re\s*[:：]\s*)*(?:(?:fwd?|wg|tr|rv|enc|vs|pd|ilt|İLT|İlt|転送|转发|轉寄|전달)\s*(?:\[\d{1,3}\])?\s*[:：]|[\[［]\s*(?:転送|fwd?\s*[:：]))/iu;

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
// What an ARF report is by its Feedback-Type (RFC 5965, RFC 6591), where that says more than "spam complaint".
const FEEDBACK_KINDS: Record<string, string> = {
  'auth-failure': 'DMARC/authentication failure report',
};
// Microsoft's Junk Mail Reporting Program sends its complaints as multipart/mixed with the reported mail inline, under
// this subject alone, naming the sending IP (v4 or v6), from staff@hotmail.com. A customer may write the same words
// and attach the spam they got (bug review 44c): only Microsoft's sender beside them is a complaint.
const JMRP_SENDER = 'staff@hotmail.com';
const JMRP_SUBJECT = /^\s*complaint about message from (?:(?:\d{1,3}\.){3}\d{1,3}|[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?:(?:\d{1,3}\.){3}\d{1,3})?)\s*$/i;

function bounceDetail(mail: ClassifiableMail): string | undefined {
  if (REPORT_TYPES.has(mail.contentType)) {
    const reportType = /;\s*report-type\s*=\s*"?([\w.-]+)/i.exec(values(mail, 'content-type')[0] ?? '')?.[1]?.toLowerCase();
    const header = `Content-Type: ${mail.contentType}${reportType ? `; report-type=${reportType}` : ''}`;
    const kind = (mail.feedbackType && FEEDBACK_KINDS[mail.feedbackType]) || REPORT_KINDS[reportType ?? mail.contentType];
    return kind ? `${kind} (${header})` : header;
  }
  const statusPart = deliveryStatusPartOf(mail);
  if (statusPart) return `${statusPart} part in ${mail.contentType}`;
  const complaint = jmrpComplaintDetail(mail);
  if (complaint) return complaint;
  // A null envelope sender is named first, as it always was, but decides only beside a second sign: form relays send
  // people's questions with it too. A returned mail is one only with a report of a failed delivery in the text (KDDI's
  // bounce under "Mail" from a user's address): a form relay attaching the submission, or a customer attaching the mail
  // they ask about ("Is this from you?"), under any subject, is parked as before (bug review 44c).
  const nullSender = nullEnvelopeSender(mail);
  const second = bounceSenderDetail(mail);
  if (nullSender && (second || (mail.subject && BOUNCE_SUBJECT.test(mail.subject)))) return nullSender;
  const returned = mail.returnedOriginal;
  const failure = nullSender && returned && !(mail.subject && FORWARD_SUBJECT.test(mail.subject)) ? failureWordingOf(mail) : undefined;
  if (failure) return `${nullSender} beside a returned original (${returned}) and a failed delivery in its text (“${quoted(failure)}”)`;
  return second ?? deliverySystemNameDetail(mail);
}

/**
 * A delivery system's display name in the From ({@link DELIVERY_SYSTEM_NAME}) beside a bounce subject, for a mail
 * stored without any Return-Path; else undefined. A delivered bounce's envelope sender is null or MAILER-DAEMON, which
 * decides without the name; a mail with an ordinary one under "Postmaster" is a customer's IT asking (bug review 44e).
 */
function deliverySystemNameDetail(mail: ClassifiableMail): string | undefined {
  if (values(mail, 'return-path').length > 0) return undefined;
  const name = (mail.from?.name ?? '').replace(/\s+/g, ' ').trim();
  if (!DELIVERY_SYSTEM_NAME.test(name) || !mail.subject || !BOUNCE_SUBJECT.test(mail.subject)) return undefined;
  return `From: "${name}" <${mail.from?.address ?? ''}> beside Subject: ${mail.subject.trim()}`;
}

/** Microsoft JMRP's complaint ({@link JMRP_SUBJECT}): its subject and sender beside the reported mail; else undefined. */
function jmrpComplaintDetail(mail: ClassifiableMail): string | undefined {
  if (!mail.returnedOriginal || !mail.subject || !JMRP_SUBJECT.test(mail.subject)) return undefined;
  if (comparableAddress(mail.from?.address ?? '') !== JMRP_SENDER) return undefined;
  return `spam complaint (Microsoft JMRP: Subject: ${mail.subject.trim()})`;
}

/**
 * True for a bounce ({@link isBounce}) that may report what became of a mail: not Microsoft's JMRP complaint, which
 * returns the mail it reports but says nothing of its delivery (ARF reports say so by their own part, which
 * `deliveryReportOf` reads). Only such mail may mark our reply undelivered.
 */
export function reportsDelivery(mail: ClassifiableMail): boolean {
  return isBounce(mail) && jmrpComplaintDetail(mail) === undefined;
}

// What a bounce's text says of a recipient it failed: KDDI's and au's "Could not be delivered to: <address>", RFC
// 3464's Action and Status fields (merged into the text), an SMTP reply with its enhanced status ("550 5.1.1 …").
const FAILURE_WORDING = [
  /could not be delivered to[ \t]*:?[ \t]*<?[^\s<>@]{1,64}@[^\s<>]/i,
  /^[ \t]*Action[ \t]*:[ \t]*failed\b/im,
  /^[ \t]*Status[ \t]*:[ \t]*[45]\.\d{1,3}\.\d{1,3}\b/im,
  /(?:^|[\s(:;])[45]\d\d[ -][45]\.\d{1,3}\.\d{1,3}\b/m,
];
const MAX_FAILURE_WORDING_CHARS = 200;
/** Matches of the failure wording read at most, so a text full of them costs no more than a few. */
const MAX_FAILURE_WORDING_MATCHES = 20;
/** How far a sentence around a match is read each way: a customer's sentence is shorter, a report's line too. */
const SENTENCE_REACH_CHARS = 300;
// Where a sentence ends: a full stop before a space (not the dots of an address or a status code), !, ?, their
// full-width and Japanese forms, or a blank line.
const SENTENCE_END = /[!?。！？]|\.(?=\s|$)|\n[ \t]*\r?\n/g;
// A sentence that asks something: a question mark, or a question word of English or Japanese. "when" and "can" are
// left out: "when I forward your mail" tells, and reports say "could not be delivered".
const ASKING = /[?？]|\b(?:why|how|what|which|who|whom|where)\b|なぜ|何故|なんで|どうして|どうすれば|どうしたら|どうやって|どのように|でしょうか|ですか|ますか|教えて/i;
// Double quotes and Japanese brackets around words a customer cites; single quotes are left out: they are apostrophes
// too, and Exchange's reports put their own status in them ('550 5.1.1 RESOLVER…').
const QUOTE_PAIRS: ReadonlyArray<[open: string, close: string]> = [['"', '"'], ['＂', '＂'], ['“', '”'], ['「', '」'], ['『', '』']];

/**
 * True when the failure wording at `start`–`end` of `text` is the sender's own words about it rather than a report's:
 * inside quotes of its sentence, or in a sentence that asks something (bug review 44d: "I get "Could not be delivered
 * to: <…>" when I forward your mail. Why?").
 */
function citedOrAskedAbout(text: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - SENTENCE_REACH_CHARS), start);
  let from = 0;
  for (const boundary of before.matchAll(SENTENCE_END)) from = boundary.index + boundary[0].length;
  const after = text.slice(end, end + SENTENCE_REACH_CHARS);
  const stop = new RegExp(SENTENCE_END.source).exec(after);
  const [head, tail] = [before.slice(from), stop ? after.slice(0, stop.index + stop[0].length) : after];
  if (ASKING.test(head + text.slice(start, end) + tail)) return true;
  return QUOTE_PAIRS.some(([open, close]) => {
    if (open === close) return head.split(open).length % 2 === 0 && tail.includes(close);
    return head.lastIndexOf(open) > head.lastIndexOf(close) && tail.includes(close);
  });
}

/**
 * The line of the mail's text that reports a failed delivery ({@link FAILURE_WORDING}), trimmed; undefined when there
 * is none. Wording the sender cites or asks about ({@link citedOrAskedAbout}) is no report: a customer asking about
 * an error under a null envelope sender is parked, and the reply they attach is not marked undelivered. Read from
 * {@link ReplySignals.failureWording} when recorded, else from the first 64 KB of the text.
 */
function failureWordingOf(mail: ClassifiableMail): string | undefined {
  if (mail.failureWording) return mail.failureWording;
  if (!mail.text) return undefined;
  const text = mail.text.slice(0, MAX_STATUS_SCAN_CHARS);
  for (const pattern of FAILURE_WORDING) {
    let read = 0;
    for (const match of text.matchAll(new RegExp(pattern.source, `${pattern.flags}g`))) {
      if (++read > MAX_FAILURE_WORDING_MATCHES) break;
      if (citedOrAskedAbout(text, match.index, match.index + match[0].length)) continue;
      const start = text.lastIndexOf('\n', match.index) + 1;
      const end = text.indexOf('\n', match.index + match[0].length);
      return text.slice(start, end < 0 ? text.length : end).trim().slice(0, MAX_FAILURE_WORDING_CHARS);
    }
  }
  return undefined;
}

/**
 * `Return-Path: <>` (or sendmail's `<MAILER-DAEMON>`, with or without its host) in the topmost Return-Path, the one
 * the final MTA wrote: the null reverse-path MTAs send bounces with, and RFC 3834 responders and some form relays
 * their mail. Undefined for any other envelope sender.
 */
function nullEnvelopeSender(mail: ClassifiableMail): string | undefined {
  const returnPath = values(mail, 'return-path')[0];
  if (returnPath === undefined) return undefined;
  const reversePath = stripComments(returnPath).replace(/\s+/g, '').replace(/^<|>$/g, '');
  if (reversePath === '') return 'Return-Path: <>';
  return localPart(reversePath) === 'mailer-daemon' ? `Return-Path: ${returnPath}` : undefined;
}

/** X-Failed-Recipients, or a MAILER-DAEMON or postmaster From or Sender: each a bounce's. */
function bounceSenderDetail(mail: ClassifiableMail): string | undefined {
  const failed = values(mail, 'x-failed-recipients')[0];
  if (failed !== undefined) return `X-Failed-Recipients: ${failed}`;
  if (mail.from && BOUNCE_SENDER.test(localPart(mail.from.address))) return `From: ${mail.from.address}`;
  const sender = normaliseAddress(values(mail, 'sender')[0]);
  if (sender && BOUNCE_SENDER.test(localPart(sender))) return `Sender: ${sender}`;
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

// Precedence values of list traffic, and of bulk mail that is no list (newsletters, machine notifications).
const LIST_PRECEDENCE = new Set(['list']);
const BULK_PRECEDENCE = new Set(['bulk', 'junk']);

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
  // fml, the Japanese list manager, writes neither List-* fields (before 4.0) nor Precedence on every list.
  ['x-ml-name', 'X-ML-Name'],
  ['x-mlserver', 'X-MLServer'],
];

// A list's own mailboxes, by the conventions list software that writes no List-* field still follows: sendmail's
// aliases and majordomo (`owner-list` takes the errors, `list-request` the commands), LISTSERV (`owner-list` as the
// envelope sender), Mailman (`list-bounces` as the envelope sender, `list-owner`, `list-request`). As a Sender, any of
// them; as the envelope sender (Return-Path), those list software writes there. Matched before a VERP `+…` tag.
const LIST_MAILBOX_SENDER = /^owner-(?<list>.+)$|^(?<base>.+)-(?:request|bounces|owner)$/;
const LIST_MAILBOX_RETURN_PATH = /^owner-(?<list>.+)$|^(?<base>.+)-(?:bounces|request)$/;

/**
 * The address of the list behind one of its own mailboxes (`owner-users@lists.example`, `users-bounces+x=y@…` →
 * `users@lists.example`), or undefined when the address is none by `pattern`.
 */
function listBehind(address: string, pattern: RegExp): string | undefined {
  const at = address.lastIndexOf('@');
  const local = localPart(address).split('+')[0] ?? '';
  const match = pattern.exec(local);
  const list = match?.groups?.['list'] ?? match?.groups?.['base'];
  return list ? `${list}${address.slice(at)}` : undefined;
}

/**
 * Old-style list traffic known by the list's own addresses, for software that writes no List-* field: a Sender (not
 * the From) that is a list mailbox or is also a To/Cc address (LISTSERV writes the list as both), or a Return-Path
 * that is a list's envelope sender. Not when that list is one of our own addresses (the support address is a list).
 */
function listMailboxDetail(mail: ClassifiableMail, isOurs: (address: string | undefined) => boolean): string | undefined {
  const sender = comparableSender(mail) && normaliseAddress(values(mail, 'sender')[0]);
  if (sender) {
    const list = listBehind(sender, LIST_MAILBOX_SENDER);
    if (list && !isOurs(list)) return `Sender: ${sender} (a list's own mailbox)`;
    if (!list && !isOurs(sender) && senderIsRecipient(mail)) return `Sender: ${sender} (also a To or Cc address: the list itself)`;
  }
  const returnPath = normaliseAddress(values(mail, 'return-path')[0]);
  const list = returnPath && listBehind(returnPath, LIST_MAILBOX_RETURN_PATH);
  if (list && !isOurs(list)) return `Return-Path: ${returnPath} (a list's envelope sender)`;
  return undefined;
}

function listDetail(mail: ClassifiableMail, isOurs: (address: string | undefined) => boolean): string | undefined {
  for (const [name, label] of LIST_HEADERS) {
    const value = values(mail, name).find((v) => v.trim() !== '');
    if (value !== undefined) return `${label}: ${value}`;
  }
  const mailbox = listMailboxDetail(mail, isOurs);
  if (mailbox) return mailbox;
  for (const value of values(mail, 'precedence')) {
    if (LIST_PRECEDENCE.has(keyword(value))) return `Precedence: ${value}`;
  }
  return undefined;
}

/** `Precedence: bulk|junk`: mail sent in bulk (a newsletter, a notification), whether through a list or not. */
function bulkPrecedenceDetail(mail: ClassifiableMail): string | undefined {
  const value = values(mail, 'precedence').find((v) => BULK_PRECEDENCE.has(keyword(v)));
  return value === undefined ? undefined : `Precedence: ${value}`;
}

// The List-* fields whose mailto URLs are the list software's own mailboxes, on the list's domain.
const LIST_MAILTO_HEADERS = ['list-post', 'list-unsubscribe', 'list-subscribe', 'list-help', 'list-owner'];
/** What a list mail that copies our address ({@link listCopyReviewReason}) is, first in its reason; read by src/tickets/review.ts. */
export const LIST_COPY_KIND = 'list mail that copies our address';

/** How a list names itself in a mail it delivered ({@link listIdentityOf}). */
interface ListIdentity {
  /** The list's own addresses, comparable ({@link comparableAddress}). */
  addresses: Set<string>;
  /** List-Id's ids, lower case: by the common convention the list's address with `@` as `.`. */
  ids: Set<string>;
  /** The domains of the list's mailboxes, never a shared mail domain's, where anyone may hold one. */
  domains: Set<string>;
  /** fml's list names ({@link fmlListNames}): a recipient with that local part is the list. */
  names: Set<string>;
}

/** The mailto addresses of a List-* field (`<mailto:users@lists.example?subject=help>` → `users@lists.example`). */
function mailtoAddresses(value: string): string[] {
  return [...value.matchAll(/<mailto:([^>?\s]+)/gi)].map((match) => match[1]!);
}

/**
 * How a list names itself, undefined for mail that shows no list: its own addresses (List-Post's mailto,
 * Mailing-List's `list …`, X-Mailing-List's, the list behind a list mailbox in Sender or Return-Path, a Sender that
 * is also a recipient), its List-Id, and its domains (of those addresses, of its List-* mailtos, and the List-Id's
 * after its first label: `it-team.customer.example` → `customer.example`).
 */
function listIdentityOf(mail: ClassifiableMail): ListIdentity | undefined {
  const addresses = new Set<string>();
  const add = (address: string | undefined): void => {
    const comparable = address === undefined ? undefined : comparableAddress(address);
    if (comparable) addresses.add(comparable);
  };
  for (const value of values(mail, 'list-post')) mailtoAddresses(value).forEach(add);
  for (const value of values(mail, 'mailing-list')) add(/^\s*list\s+([^;\s]+)/i.exec(value)?.[1]);
  // Split first: a pattern searched over a long value without an `@` would start again at every character.
  for (const value of values(mail, 'x-mailing-list')) add(value.split(/[\s<>;,"]+/).find((token) => /^[^@]+@[^@]+$/.test(token)));
  const sender = comparableSender(mail) && normaliseAddress(values(mail, 'sender')[0]);
  const senderList = sender ? listBehind(sender, LIST_MAILBOX_SENDER) : undefined;
  add(senderList ?? (sender && senderIsRecipient(mail) ? sender : undefined));
  const returnPath = normaliseAddress(values(mail, 'return-path')[0]);
  add(returnPath ? listBehind(returnPath, LIST_MAILBOX_RETURN_PATH) : undefined);
  const hasListHeader = LIST_HEADERS.some(([name]) => values(mail, name).some((v) => v.trim() !== ''));
  if (!hasListHeader && addresses.size === 0) return undefined;
  const ids = new Set(values(mail, 'list-id').flatMap((v) => /<([^<>\s]+)>/.exec(v)?.[1]?.toLowerCase() ?? []));
  const domains = new Set([...addresses].map((address) => domainOf(address)));
  for (const name of LIST_MAILTO_HEADERS) for (const value of values(mail, name)) for (const address of mailtoAddresses(value)) domains.add(domainOf(address));
  for (const id of ids) if (/^[^.]+\.[^.]+\.[^.]+/.test(id)) domains.add(id.slice(id.indexOf('.') + 1));
  for (const domain of domains) if (domain === '' || isSharedMailDomain(domain)) domains.delete(domain);
  return { addresses, ids, domains, names: fmlListNames(mail) };
}

/** Whether a recipient is the list's own address: one it names, the one its List-Id names, or one on its domain. */
function isListAddress(list: ListIdentity, address: string): boolean {
  const comparable = comparableAddress(address);
  if (comparable === undefined) return false;
  return list.addresses.has(comparable) || list.ids.has(`${localPart(address)}.${domainOf(address)}`) || list.domains.has(domainOf(address)) || list.names.has(localPart(comparable));
}

/**
 * The To and Cc addresses of list mail when one of them is the list's own ({@link isListAddress}) beside another
 * recipient; undefined for other mail. Read from {@link ReplySignals.listCopy} when recorded, else from the parsed
 * mail's recipients and list headers.
 */
function listCopyOf(mail: ClassifiableMail): ListCopy | undefined {
  if (mail.listCopy) return mail.listCopy;
  const list = listIdentityOf(mail);
  if (!list) return undefined;
  const seen = new Set<string>();
  const recipients = [...(mail.to ?? []), ...(mail.cc ?? [])].flatMap(({ address }) => {
    const comparable = comparableAddress(address);
    if (comparable === undefined || seen.has(comparable)) return [];
    seen.add(comparable);
    return [address];
  });
  const lists = recipients.filter((address) => isListAddress(list, address));
  return lists.length > 0 && recipients.length > 1 ? { lists, others: recipients.filter((address) => !lists.includes(address)) } : undefined;
}

/**
 * The list address and the address of ours (MAIL_FROM or SUPPORT_ADDRESSES; our group has its own rules) that a
 * list mail names side by side in To or Cc ({@link listCopyOf}), or undefined.
 */
function copiedListMember(mail: ClassifiableMail, mailboxes: OwnMailboxes, isOurs: (address: string | undefined) => boolean): { list: string; ours: string } | undefined {
  const copy = listCopyOf(mail);
  if (!copy) return undefined;
  const isGroup = ownAddressMatcher(mailboxes.groupAddresses ?? []);
  const ours = [...copy.others, ...copy.lists].find((address) => isOurs(address) && !isGroup(address));
  const list = copy.lists.find((address) => !isOurs(address) && comparableAddress(address) !== comparableAddress(ours ?? ''));
  return ours && list ? { list, ours } : undefined;
}

/**
 * Why a list mail that names one of our addresses (MAIL_FROM, SUPPORT_ADDRESSES) in To or Cc beside the list's own
 * address waits for a person: a member of the list (a customer's own team list with support in Cc) asked us
 * directly, where ignoring it as list traffic would leave the question unseen, and an automatic reply might go into
 * a list discussion that wants none. Undefined for any other mail: a newsletter or bulk mail addressed to us alone
 * (its List-Id and List-Unsubscribe are there as well; no recipient beside us is the list's), a foreign list's mail
 * to the list alone, and mail through our own group ({@link OwnMailboxes}), whose rules stand. {@link decideReply}
 * does not ignore such mail as `list`, so what decides before or after the list rule (a bounce, an automatic reply,
 * spam, a no-reply sender, thanks only) still does; the agent worker parks the rest before the agent runs.
 */
export function listCopyReviewReason(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
  const isOurs = ownMatcher(mailboxes);
  if (claimedOwnList(mail, mailboxes) !== undefined || listDetail(mail, isOurs) === undefined) return undefined;
  const copied = copiedListMember(mail, mailboxes, isOurs);
  if (!copied) return undefined;
  const id = values(mail, 'list-id').flatMap((v) => /<([^<>\s]+)>/.exec(v)?.[1] ?? [])[0];
  const member = id ? `a member of list <${id.slice(0, MAX_HEADER_VALUE_CHARS)}> wrote to ${copied.list}` : `a member of list ${copied.list} wrote to it`;
  return `${LIST_COPY_KIND}: ${member} and asked ${copied.ours} directly; a person decides whether and whom to answer`;
}

/**
 * The customer behind a From that our own group rewrote to itself (Google Groups and Mailman do so for senders whose
 * domain publishes a strict DMARC policy, and put the sender in Reply-To): the Reply-To mailbox, when the mail is our
 * group's by the receiving server's verdict ({@link OwnMailboxes}); undefined for any other mail. The ticket's sender
 * is then the customer, so the per-sender limits and the repeated-question check do not count every such customer as
 * one sender, ourselves. A From of ours that nothing authenticates stays the ticket's sender, and
 * {@link ownGroupReviewDetail} parks its draft.
 */
export function customerBehindOwnGroup(mail: ClassifiableMail, mailboxes: OwnMailboxes): MailAddress | undefined {
  const isOurs = ownMatcher(mailboxes);
  return isOurs(mail.from?.address) && ownGroupVerdict(mail, mailboxes, isOurs).verified ? customerInReplyTo(mail, isOurs) : undefined;
}

function customerInReplyTo(mail: ClassifiableMail, isOurs: (address: string | undefined) => boolean): MailAddress | undefined {
  return mail.replyTo && !isOurs(mail.replyTo.address) ? mail.replyTo : undefined;
}

/** "Is this one of our addresses?" over our addresses and our groups'. */
function ownMatcher(mailboxes: OwnMailboxes): (address: string | undefined) => boolean {
  return ownAddressMatcher([...mailboxes.ourAddresses, ...(mailboxes.groupAddresses ?? [])]);
}

/**
 * Which of `candidates` (bare addresses) the mail's list headers name as the list itself: `List-Post`'s mailto,
 * `Mailing-List`'s `list <address>` (Google Groups, ezmlm) and `List-Id`, whose id is the list address with `@` as `.`
 * by the common convention (RFC 2919 §3 leaves it free; Google Groups and Mailman follow it).
 */
function listAddressesNamed(mail: ClassifiableMail, candidates: readonly string[]): string[] {
  const posted = new Set<string>();
  const add = (address: string | undefined): void => {
    const comparable = address === undefined ? undefined : comparableAddress(address);
    if (comparable) posted.add(comparable);
  };
  for (const value of values(mail, 'list-post')) for (const [, address] of value.matchAll(/<mailto:([^>?\s]+)/gi)) add(address);
  for (const value of values(mail, 'mailing-list')) add(/^\s*list\s+([^;\s]+)/i.exec(value)?.[1]);
  const ids = new Set(values(mail, 'list-id').map((v) => /<([^<>\s]+)>/.exec(v)?.[1]?.toLowerCase()));
  // fml's X-ML-Name names the list without its domain: one of ours by its local part. A claim as the others are (and a
  // foreign list of the same name is claimed too): unless the receiving server vouches for our group, it is parked.
  const names = fmlListNames(mail);
  return candidates.filter((candidate) => {
    const comparable = comparableAddress(candidate);
    if (comparable !== undefined && posted.has(comparable)) return true;
    return ids.has(candidate.toLowerCase().replace('@', '.')) || (comparable !== undefined && names.has(localPart(comparable)));
  });
}

/**
 * The list names of fml's X-ML-Name (`X-ML-Name: support`), lower-case: the local part of the list's address, whose
 * domain fml does not write. fml before 4.0 writes no List-* field, so this is how its list is told (bug review 44c).
 */
function fmlListNames(mail: ClassifiableMail): Set<string> {
  return new Set(values(mail, 'x-ml-name').map((v) => v.trim().toLowerCase()).filter((name) => /^[^\s@<>]{1,64}$/.test(name)));
}

/** Our addresses as bare addresses, MAIL_FROM first: what a list header may name. */
function bareOwnAddresses(mailboxes: OwnMailboxes): string[] {
  return parseAddressList([...mailboxes.ourAddresses, ...(mailboxes.groupAddresses ?? [])].join(', ')).map((a) => a.address);
}

/**
 * The address of ours that the mail's list headers name as the list itself, if any: the mail claims to come through
 * our own group. Anyone can write list headers, so this is a claim; {@link ownGroupVerdict} says whether it holds.
 */
function claimedOwnList(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
  return listAddressesNamed(mail, bareOwnAddresses(mailboxes))[0];
}

/** Whether a mail is our own group's ({@link OwnMailboxes}) and, when it is not, why not, for a person. */
interface GroupVerdict {
  verified: boolean;
  /** Our address the list headers name, when they name one. */
  claimed: string | undefined;
  /** Why the mail is not the group's (empty when it is). */
  why: string;
}

/**
 * Whether the mail came through our own group, decided on what no outsider can write: its list headers name a
 * configured group (SUPPORT_GROUP_ADDRESSES; never one of our other addresses just because a header names it), a From
 * of ours is that group's own address (the group rewrote it), and the topmost Authentication-Results is by our
 * receiving server (AUTHSERV_ID: the server adds its own above whatever the mail arrived with) and says `dkim=pass`
 * for the group's domain or `dmarc=pass` for a From in it. Without AUTHSERV_ID, or when the server wrote no
 * Authentication-Results, nothing is the group's.
 */
function ownGroupVerdict(mail: ClassifiableMail, mailboxes: OwnMailboxes, isOurs: (address: string | undefined) => boolean): GroupVerdict {
  const claimed = claimedOwnList(mail, mailboxes);
  const group = listAddressesNamed(mail, mailboxes.groupAddresses ?? [])[0];
  const not = (why: string): GroupVerdict => ({ verified: false, claimed: group ?? claimed, why });
  if (!group) return not(claimed ? `${claimed} is not in SUPPORT_GROUP_ADDRESSES` : 'no list header names a group of SUPPORT_GROUP_ADDRESSES');
  const from = mail.from?.address;
  if (from && isOurs(from) && comparableAddress(from) !== comparableAddress(group)) return not(`From ${from} is not the group's own address ${group}`);
  const authservIds = (mailboxes.authservIds ?? []).map((id) => id.toLowerCase());
  const topmost = values(mail, 'authentication-results')[0];
  // Named so that an admin whose real group mail is parked sees the value AUTHSERV_ID wants.
  if (authservIds.length === 0) {
    const seen = topmost === undefined ? 'this mail carries no Authentication-Results' : `this mail's topmost Authentication-Results is ${authservShown(topmost)}`;
    return not(`AUTHSERV_ID is not set, so no receiving server's verdict is trusted (${seen})`);
  }
  if (topmost === undefined) return not(`no Authentication-Results of the receiving server (AUTHSERV_ID ${authservIds.join(', ')})`);
  const authserv = authservIdOf(topmost);
  if (!authservIds.includes(authserv)) return not(`the topmost Authentication-Results is ${authservShown(topmost)}, not by one of AUTHSERV_ID (${authservIds.join(', ')})`);
  const domain = domainOf(group);
  const { results, unreadable } = readAuthenticationResults(topmost, dkimSignaturesOf(mail));
  if (unreadable) return not(`the receiving server's Authentication-Results (${authserv}) could not be read unambiguously (${unreadable})`);
  const signed = results.some((r) => r.method === 'dkim' && r.result === 'pass' && isAlignedWith(signingDomain(r), domain));
  const fromDomain = from ? domainOf(from) : '';
  const dmarc = results.some((r) => r.method === 'dmarc' && r.result === 'pass' && isAlignedWith(r.props.get('header.from') ?? '', domain) && isAlignedWith(fromDomain, domain));
  if (signed || dmarc) return { verified: true, claimed: group, why: '' };
  return not(`the receiving server's Authentication-Results (${authserv}) show no dkim=pass for ${domain} nor dmarc=pass for a From in it`);
}

/**
 * True when `domain` belongs to whoever holds `groupDomain`: the same domain, a subdomain of it, or a parent of it
 * within its organisation's domain (`support.example` signing for `groups.support.example`), never a parent above
 * that (`example`) nor a look-alike (`evilsupport.example`).
 */
function isAlignedWith(domain: string, groupDomain: string): boolean {
  if (domain === '' || groupDomain === '') return false;
  return isSameOrSubdomain(domain, groupDomain) || (isSameOrSubdomain(groupDomain, domain) && isSameOrSubdomain(domain, organisationDomain(groupDomain)));
}

/**
 * Why the draft of a mail that claims our own group, or that comes from our own address with a customer in Reply-To,
 * must wait for a person: the claim is not proven ({@link OwnMailboxes}), and anyone can write list headers and a
 * From. Undefined for mail that is our group's, and for mail that claims neither. Names what is missing (the
 * configured group, AUTHSERV_ID, the receiving server's verdict), so that an admin whose real group mail is parked
 * sees what to set.
 */
export function ownGroupReviewDetail(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
  const isOurs = ownMatcher(mailboxes);
  const verdict = ownGroupVerdict(mail, mailboxes, isOurs);
  if (verdict.verified) return undefined;
  const customer = isOurs(mail.from?.address) ? customerInReplyTo(mail, isOurs) : undefined;
  if (customer) {
    return `From is our own address ${mail.from!.address} with Reply-To ${customer.address}; ${verdict.why}, and anyone can write list headers and a From: a person checks that ${customer.address} is the customer`;
  }
  return verdict.claimed ? `the list headers name our address ${verdict.claimed}; ${verdict.why}, and anyone can write list headers` : undefined;
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

// MailScanner names its headers after the site (`X-<OrgName>-MailScanner-SpamCheck`; without a name by default):
// SpamCheck holds the verdict (`spam, SpamAssassin (score=…)`, `not spam, …`), SpamScore the score as a run of one
// character (`sssss` for 5).
const MAILSCANNER_SPAM_CHECK = /^x-(?:.+-)?mailscanner-spamcheck$/;
const MAILSCANNER_SPAM_SCORE = /^x-(?:.+-)?mailscanner-spamscore$/;
// SpamAssassin's default threshold (required_score 5.0), as X-Spam-Level and MailScanner's SpamScore write a score:
// one character per whole point.
const SPAM_SCORE_MARKS = 5;
const SPAM_SCORE_RUN = new RegExp(String.raw`^(\S)\1{${SPAM_SCORE_MARKS - 1},}$`);

/** The values of every header whose lower-case name matches `pattern`, with the name as the mail writes it. */
function matchingHeaders(mail: ClassifiableMail, pattern: RegExp): Array<[name: string, value: string]> {
  return Object.entries(mail.headers).flatMap(([name, list]) => (pattern.test(name) ? list.map((value): [string, string] => [name, value]) : []));
}

// Words of header names as their writers spell them; other words get a capital first letter.
const HEADER_WORDS: Record<string, string> = { mailscanner: 'MailScanner', spamcheck: 'SpamCheck', spamscore: 'SpamScore' };

/** `x-csi-mailscanner-spamcheck` → `X-Csi-MailScanner-SpamCheck`: a header's name for a reason, from its stored key. */
function headerLabel(name: string): string {
  return name
    .split('-')
    .map((word) => HEADER_WORDS[word] ?? `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
    .join('-');
}

/** A filter's own "not spam" verdict: the header it writes it in, and whether a value of it says not spam. */
interface FilterVerdict {
  header: string;
  saysNotSpam: (value: string) => boolean;
}

// SpamAssassin's verdicts beside its X-Spam-Level (amavis writes the same headers): `X-Spam-Status: No, score=…`,
// `X-Spam-Flag: NO`.
const SPAMASSASSIN_VERDICTS: readonly FilterVerdict[] = [
  { header: 'x-spam-status', saysNotSpam: (v) => /^\s*no\b/i.test(v) },
  { header: 'x-spam-flag', saysNotSpam: (v) => keyword(v) === 'no' },
];

/** MailScanner's verdict beside a SpamScore: the SpamCheck of the same site name, `not spam, …`. */
function mailScannerVerdict(scoreHeader: string): FilterVerdict {
  return { header: scoreHeader.replace(/spamscore$/, 'spamcheck'), saysNotSpam: (v) => /^\s*not\s+spam\b/i.test(v) };
}

// The score and threshold a verdict names: SpamAssassin's `score=7.2 required=10.0` (`hits=` before 3.0), amavis'
// `score=6.1 … required=8`, MailScanner's `(… score=6.5, required 8, …)`; rspamd's milter_headers write the score
// alone (`No, score=5.90`).
const VERDICT_SCORE = /\b(?:score|hits)=(-?\d+(?:\.\d+)?)/i;
const VERDICT_REQUIRED = /\brequired[=\s]\s*(-?\d+(?:\.\d+)?)/i;

/**
 * True when a verdict names the very score the marks show (one mark per whole point), and a threshold above it when
 * it names one: the same filter's reading of this mail, which a sender writing its own verdict can only guess.
 */
function namesScoreOfMarks(verdict: string, marks: number): boolean {
  const score = Number(VERDICT_SCORE.exec(verdict)?.[1] ?? NaN);
  const required = VERDICT_REQUIRED.exec(verdict)?.[1];
  return Math.trunc(score) === marks && (required === undefined || score < Number(required));
}

/**
 * Whether the filter that wrote a score of marks (`scoreHeader`, e.g. X-Spam-Level) says in its own verdict that the
 * mail is not spam: its own threshold, which may be above the default, then has the last word over a count of marks.
 *
 * Only the same filter's verdict counts (SpamAssassin's X-Spam-Status or X-Spam-Flag for X-Spam-Level, the SpamCheck
 * of the same `X-<site>-MailScanner-` for its SpamScore), and only from the filter's own block. Headers are prepended
 * as mail travels, so a verdict below the filter's block was written before the score, by the sender or an earlier
 * hop: a spammer's `X-Spam-Status: No` must not cancel the score. The headers a ticket records keep each name's
 * values top to bottom and the names in the order they first appear (JSON on the ticket keeps it), but not the
 * Received lines between one name and another, so the block is read as follows. The topmost verdict counts when its
 * name first appears above the score's: it was written after the score, by the filter or a later hop of ours. Below
 * the score it counts only when it names the score the marks show, under its threshold: SpamAssassin and amavis write
 * `X-Spam-Status: No, score=7.2 required=10.0` right under `X-Spam-Level: *******`, MailScanner its SpamCheck on
 * either side of its SpamScore.
 */
function notSpamBySameFilter(mail: ClassifiableMail, scoreHeader: string, score: string, verdicts: readonly FilterVerdict[]): boolean {
  const order = Object.keys(mail.headers);
  const marks = /^(\S)\1*/.exec(score.trim())?.[0].length ?? 0;
  return verdicts.some(({ header, saysNotSpam }) => {
    const verdict = values(mail, header)[0];
    if (verdict === undefined || !saysNotSpam(verdict)) return false;
    return order.indexOf(header) < order.indexOf(scoreHeader) || namesScoreOfMarks(verdict, marks);
  });
}

/**
 * A score written as marks at or over SpamAssassin's default threshold (`X-Spam-Level: *****`, `…-SpamScore:
 * sssss`) that the same filter's verdict does not outweigh ({@link notSpamBySameFilter}).
 */
function spamScoreDetail(mail: ClassifiableMail): string | undefined {
  const level = values(mail, 'x-spam-level').find((v) => v.trim().startsWith('*'.repeat(SPAM_SCORE_MARKS)));
  if (level !== undefined && !notSpamBySameFilter(mail, 'x-spam-level', level, SPAMASSASSIN_VERDICTS)) return `X-Spam-Level: ${level.trim()}`;
  const score = matchingHeaders(mail, MAILSCANNER_SPAM_SCORE).find(
    ([name, v]) => SPAM_SCORE_RUN.test(v.trim()) && !notSpamBySameFilter(mail, name, v, [mailScannerVerdict(name)]),
  );
  return score ? `${headerLabel(score[0])}: ${score[1].trim()}` : undefined;
}

/**
 * The upstream filter's spam verdict, from the headers SpamAssassin, Rspamd, MailScanner and most appliances add:
 * `X-Spam-Flag: YES`, `X-Spam-Status: Yes, …`, `X-Spam: yes|true|spam`, MailScanner's `X-<site>-MailScanner-SpamCheck:
 * spam, …`, the configured header, and a score of marks at or over 5 (`X-Spam-Level: *****`, MailScanner's
 * SpamScore) unless the same filter's verdict says not spam; and the GTUBE test string, with or without a filter. An
 * automatic reply to spam is backscatter to a forged address, which gets our domain blocklisted.
 */
function spamDetail(mail: ClassifiableMail, configured: ReplyContext['spamHeader']): string | undefined {
  for (const value of values(mail, 'x-spam-flag')) if (keyword(value) === 'yes') return `X-Spam-Flag: ${value}`;
  for (const value of values(mail, 'x-spam-status')) if (/^\s*yes\b/i.test(value)) return `X-Spam-Status: ${value}`;
  for (const value of values(mail, 'x-spam')) if (['yes', 'true', 'spam', '1'].includes(keyword(value))) return `X-Spam: ${value}`;
  const scanner = matchingHeaders(mail, MAILSCANNER_SPAM_CHECK).find(([, value]) => /^\s*spam\b/i.test(value));
  if (scanner) return `${headerLabel(scanner[0])}: ${scanner[1]}`;
  if (configured?.name) {
    const wanted = configured.value?.toLowerCase();
    for (const value of values(mail, configured.name.toLowerCase())) {
      if (!wanted || value.toLowerCase().includes(wanted)) return `${configured.name}: ${value}`;
    }
  }
  return spamScoreDetail(mail) ?? spamTestStringOf(mail);
}

// GTUBE, the Generic Test for Unsolicited Bulk Email: a line every spam filter takes for spam (SpamAssassin scores it
// 1,000 points in the subject or the body; Rspamd reads its X…, Y… and Z… forms as asks to reject, add a header or
// tag the subject). Admins send it to see what their setup does with spam, and with no filter in front of the
// mailbox it was answered. Only the whole string, unbroken, counts: a person who names GTUBE is answered.
const GTUBE = /[A-Z]JS\*C4JDBQADN1\.NSBN3\*2IDNEN\*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL\*C\.34X/;

/**
 * The line that opens a forwarded mail in a question, whatever the customer's client wrote (Gmail's, Thunderbird's,
 * Apple Mail's, Outlook's, Japanese): one form the agent and the reviewer recognise. Here because the spam test reads
 * the customer's note above it; the parser, which writes it, imports it.
 */
export const FORWARDED_DELIMITER = '---------- Forwarded message ----------';

/**
 * Where the mail carries the GTUBE test string: {@link ReplySignals.spamTestString} when recorded, else its subject or
 * the sender's own words: the question, which the parser makes without the quoted mail, up to a mail it forwards
 * inline or attached (a customer forwarding a test mail to ask about it is answered: bug review 46c); the text when
 * the parser made no question. A customer quoting our reply that named the string (`> XJS*C4…`) is answered too.
 */
function spamTestStringOf(mail: ClassifiableMail): string | undefined {
  if (mail.spamTestString) return mail.spamTestString;
  if (mail.subject !== undefined && GTUBE.test(mail.subject)) return 'GTUBE in the subject';
  const ownWords = mail.question !== undefined ? customerNote(mail.question) : mail.text;
  return ownWords !== undefined && GTUBE.test(ownWords) ? 'GTUBE in the text' : undefined;
}

/** A question's words above the first mail it forwards ({@link FORWARDED_DELIMITER}); all of it when it forwards none. */
function customerNote(question: string): string {
  const at = question.startsWith(`${FORWARDED_DELIMITER}\n`) ? 0 : question.indexOf(`\n${FORWARDED_DELIMITER}\n`);
  return at < 0 ? question : question.slice(0, at);
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
 *    answering would mail ourselves. Except a From of ours with the customer in Reply-To in a mail whose list
 *    headers name our address: our own group may have rewritten it to itself ({@link customerBehindOwnGroup}). Nor
 *    a From and Reply-To of ours there with a customer in X-Original-From or a "'Name' via Group" From: the agent
 *    worker parks it ({@link ownGroupRelayDetail}). A voicemail or fax notice ({@link serviceNoticeOf}) is then
 *    never ignored as an auto-reply, nor it or a marketplace's notice of a buyer's inquiry as a no-reply sender's:
 *    the agent worker parks both.
 * 3. `bounce` — multipart/report (any report-type) or another report type at top level, a delivery-status part
 *    in another multipart ({@link deliveryStatusPartOf}), X-Failed-Recipients, a MAILER-DAEMON / postmaster From or
 *    Sender, or `Return-Path: <>` (or `<MAILER-DAEMON>`) beside a bounce's subject (「メール配信エラーのお知らせ」,
 *    "Undelivered Mail Returned to Sender"). A null envelope sender alone is no bounce: form relays send questions
 *    with it, and RFC 3834 responders, which the next rule ignores; the agent worker parks what is left
 *    ({@link parkBeforeAgentReason}). Before `auto-reply` because delivery reports also carry `Auto-Submitted`, and
 *    "bounce" is the more useful answer.
 * 4. `auto-reply` — Auto-Submitted other than `no` (RFC 3834), X-Autoreply, X-Auto-Reply, X-Autorespond,
 *    X-Autoresponder, Precedence auto_reply, X-Auto-Response-Suppress with OOF/AutoReply/All,
 *    X-MS-Exchange-Inbox-Rules-Loop, Exchange "Mailbox Rules Agent" messages, and a reply (In-Reply-To or
 *    References) whose subject starts with an out-of-office notice (`Automatic reply:`, `Out of office`,
 *    `Automatiskt svar:`, Domino's `AUTO:`, `自動応答:`, `【自動返信】`, `不在のお知らせ`, `休暇のため不在にしております`…)
 *    that ends where a notice's name does; a new mail with such a subject is answered, since it may be asking about
 *    the feature. A bracketed Japanese tag (`【自動返信】`, `［自動応答］`, `〔不在通知〕`) decides anywhere in the subject,
 *    unless a particle follows it or only a person's `Re:`/`Fwd:` stands before it, and on a mail that is no reply to
 *    ours only beside more of a notice ({@link noticeTagDecides}). A reply to one of our own Message-IDs whose own
 *    words say in their first three lines, below at most a thanks or greeting, 「※このメールは自動送信されています」,
 *    「本メールは自動返信です」 or 「本メールは受付確認のため自動でお送りしております」, with no customer's words about it
 *    ({@link automaticNoticeOf}; web-form notifications begin so too, and are new mail), or that say so on one of
 *    their last two lines below a holiday's or a receipt's words in a short text; a reply to ours whose own
 *    words are only an out-of-office notice ({@link absenceNoticeOf}) or another helpdesk's English ticket
 *    acknowledgement ({@link ticketAcknowledgementOf}; in other mail it holds the draft, {@link bulkMailDetail}). A reply whose subject starts
 *    `開封済み:`, `既読:` or `Read:`, a read receipt sent as plain mail, is one too (`kind` `read receipt`).
 * 5. `list` — List-Id, RFC 2369's List-* fields (Unsubscribe, Post, Help, Subscribe, Owner, Archive), X-Mailing-List,
 *    Mailing-List; for list software that writes none of them, a Sender (not the From) that is a list mailbox
 *    (`owner-…`, `…-request`, `…-bounces`, `…-owner`) or is also a To/Cc address, and a Return-Path `owner-…`,
 *    `…-bounces` or `…-request`; Precedence list, and Precedence bulk/junk (`kind` `bulk mail`). Not when the list is
 *    one of our own addresses (the support address may be a group delivering to the polled mailbox), nor when To or
 *    Cc names MAIL_FROM or a SUPPORT_ADDRESSES address beside the list's own: the agent worker parks that for a
 *    person ({@link listCopyReviewReason}) unless a later rule ignores it.
 *    Mail that only claims our own group by its list headers, which anyone can write, is answered here and its draft
 *    parked after ({@link ownGroupReviewDetail}) unless the receiving server authenticated it as the group's.
 * 5a. `spam` — the upstream filter's verdict (X-Spam-Flag, X-Spam-Status, X-Spam, MailScanner's SpamCheck, the
 *    configured header, and a score of 5 marks or more in X-Spam-Level or MailScanner's SpamScore).
 * 6. `no-sender` — neither Reply-To nor From holds an address at all (a From of only a name, or none). An address
 *    that is there but no reply may go to ({@link unusableSenderOf}: a quoted local part, a route, a domain literal)
 *    is not ignored for it: the rules below decide, and what they let through the agent worker parks for a person
 *    ({@link parkBeforeAgentReason}), who sees the mail while nothing is sent to that address automatically.
 * 7. `no-reply-sender` — the address a reply would go to (Reply-To, else From; one no reply may go to counts as
 *    written) is a noreply-style mailbox. Reply-To
 *    wins so web forms that send from noreply@ with the customer in Reply-To still get a draft (which the agent
 *    worker parks for a person: a no-reply From naming another Reply-To may as well be a system's notification).
 *    Not a no-reply Reply-To beside a person's From (a workflow tool sending for them): the agent worker parks that
 *    for a person to decide whom to answer ({@link parkBeforeAgentReason}). Nor a notification that carries a person's
 *    address and message ({@link personMessageInNotificationOf}), which the agent worker parks too.
 * 8. `acknowledgement` — a reply whose own words only thank or acknowledge ({@link acknowledgementOf}:
 *    「ありがとうございました。」, "Thanks, that fixed it!"): the conversation is over, and a reply would start it again.
 * Otherwise the mail is answered. Weaker signs that a mail is no person's ({@link bulkMailDetail}) or that its sender
 * is forged ({@link forgedSenderDetail}) do not decide here: the agent worker parks the draft for them.
 */
export function decideReply(mail: ClassifiableMail, ctx: ReplyContext): ReplyDecision {
  const isOurs = ownMatcher(ctx);
  const ignore = (reason: IgnoreReason, detail: string, kind?: string): ReplyDecision => ({ answer: false, reason, detail, ...(kind ? { kind } : {}) });

  const loop = loopDetail(mail, isOurs, ctx.loopMarker);
  if (loop) return ignore('loop', loop);
  // Claims to come through a group that is our own support address: its list headers are no foreign list, and a From
  // rewritten to the group (DMARC) with the customer in Reply-To may be the customer's mail, so neither is ignored.
  // Anyone can write those headers: unless the receiving server authenticated the mail as the group's, the agent
  // worker parks the draft (ownGroupReviewDetail), and the forged-sender check runs on it as on any mail.
  const claimsOwnList = claimedOwnList(mail, ctx) !== undefined;
  // Our group may also rewrite Reply-To to itself, leaving the customer only in X-Original-From or the From's
  // "'Name' via Group": not our own mail, and the agent worker parks it (ownGroupRelayDetail).
  const relayed = claimsOwnList && ownGroupRelayOf(mail, ctx) !== undefined;
  if (isOurs(mail.from?.address) && !(claimsOwnList && customerInReplyTo(mail, isOurs)) && !relayed) return ignore('own-address', `From: ${mail.from?.address}`);
  if (isOurs(mail.replyTo?.address) && !relayed) return ignore('own-address', `Reply-To: ${mail.replyTo?.address}`);

  const bounce = bounceDetail(mail);
  if (bounce) return ignore('bounce', bounce);
  // A voicemail or fax notice (and a marketplace's notice of a buyer's inquiry) is a machine's mail that a person must
  // act on: never ignored as an auto-reply or a no-reply sender's; the agent worker parks it (parkBeforeAgentReason).
  const notice = serviceNoticeIn(mail);
  const parkedNotice = notice?.kind === 'voicemail/fax' || notice?.kind === 'marketplace inquiry';
  const auto = notice?.kind === 'voicemail/fax' ? undefined : autoReplyDetail(mail, ctx);
  if (auto) return ignore('auto-reply', auto);
  // Counted with auto-replies (a mail client's automatic mail, and reopenable as one) but named for what it is.
  const receipt = readReceiptDetail(mail);
  if (receipt) return ignore('auto-reply', receipt, 'read receipt');
  const list = claimsOwnList ? undefined : listDetail(mail, isOurs);
  // A list member who names our address beside the list's asked us directly: not ignored, and parked for a person
  // by the agent worker (listCopyReviewReason) unless a rule below decides.
  const copiesUs = list !== undefined && copiedListMember(mail, ctx, isOurs) !== undefined;
  // A list on our own domain is our own group that SUPPORT_GROUP_ADDRESSES forgot, or a colleague's list: ignoring it
  // would drop every customer who writes to it without a trace. The agent worker parks it (parkBeforeAgentReason).
  // So is a list whose List-* URL names our own address in its path (a Microsoft 365 group's List-Unsubscribe).
  const ownDomainList = list !== undefined && (listOnOwnDomain(mail, ctx) !== undefined || ownAddressInListUrl(mail, ctx) !== undefined);
  if (list && !copiesUs && !ownDomainList) return ignore('list', list);
  // Counted with lists (the metrics' `list`, as stored tickets and dashboards know it) but named for what it is.
  const bulk = claimsOwnList || copiesUs || ownDomainList ? undefined : bulkPrecedenceDetail(mail);
  if (bulk) return ignore('list', bulk, 'bulk mail');
  const spam = spamDetail(mail, ctx.spamHeader);
  if (spam) return ignore('spam', spam);

  const target = mail.replyTo ?? mail.from;
  // An address no reply may go to (a route, a domain literal, a quoted local part) is still a person's: the rules
  // below may ignore the mail, else the agent worker parks it (parkBeforeAgentReason). Only no address at all is ignored.
  // The parser keeps no unusable From, so the address written in it is read instead: a system's noreply@[192.0.2.1]
  // is ignored as any no-reply sender, not parked (bug review 39b, finding 4).
  const sender = target ? { address: target.address, header: mail.replyTo ? 'Reply-To' : 'From' } : unusableSenderOf(mail);
  if (!sender) return ignore('no-sender', 'no address in From or Reply-To');
  // A notification that carries a person's message is not dropped: the agent worker parks it (parkBeforeAgentReason).
  if (isNoReplyAddress(sender.address) && !parkedNotice && personBehindNoReplyReplyTo(mail) === undefined && personInNotificationOf(mail, isOurs) === undefined) {
    return ignore('no-reply-sender', `${sender.header}: ${sender.address}`);
  }
  if (parkedNotice) return { answer: true };
  const acknowledgement = acknowledgementOf(mail);
  if (acknowledgement) return ignore('acknowledgement', `the reply only thanks or acknowledges (“${quoted(acknowledgement)}”): nothing to answer`);
  return { answer: true };
}

/**
 * The configuration {@link parkBeforeAgentReason} reads: our mailboxes, and the names we go by (MAIL_FROM's display
 * name, and PRODUCT_NAME when the caller's configuration has it).
 */
export type ParkConfig = MailboxConfig & Partial<Pick<Config, 'PRODUCT_NAME'>>;

/**
 * Why a mail that {@link decideReply} lets through must wait for a person before the agent runs, or undefined. Mail a
 * reply would reach the wrong party with, or that no one asked us:
 * - a sender's address no reply may go to ({@link unusableSenderOf}): a route or a domain literal may be abuse to make
 *   us mail an internal host, and a quoted local part may read as more than one address; first, since no other
 *   reason matters while a reply has nowhere to go;
 * - a stranger whose display name presents it as our own support: nothing but MAIL_FROM's display name, or the
 *   product name (PRODUCT_NAME) with a support word, and support or team words (「XYZ サポートセンター」), on a domain
 *   not ours; a reply would confirm our mailbox to a phisher ({@link imitationDetail});
 * - a colleague: a Reply-To, else From, on our own addresses' domain (or under it) that is none of our addresses, a
 *   shared mail provider's or a group host's never counting as ours; a reply would go to them, not to the customer
 *   whose mail they forward ({@link colleagueDetail});
 * - a person's From with a no-reply Reply-To (a workflow tool sending for them): whom to answer is a person's call;
 * - a no-reply notification carrying a person's address and message (a form service's, a share's note): the person
 *   is only in its text ({@link personMessageInNotificationOf});
 * - a reply whose customer answers inline in an unmarked quote the question lost ({@link inlineAnswersOf}): the agent
 *   would answer only the note above it;
 * - a web form's new mail with no Reply-To, a customer's address and message only in its fields
 *   ({@link formWithoutReplyToDetail}): a reply would go to the form service;
 * - a null envelope sender with nothing else of a bounce: a form relay's question, or a bounce no rule knows;
 * - an e-mail address change notice ({@link addressChangeDetail}): a person updates the customer's address;
 * - a circular: a new mail to more than {@link CIRCULAR_RECIPIENTS} recipients, or whose subject is a notice's
 *   (「年末年始休業のお知らせ」) under a 各位 salutation ({@link circularDetail}); a salutation with 各位 alone decides
 *   nothing, customers open questions with 「サポートご担当者各位」.
 * Reads what a ticket records (its {@link ReplySignals}, subject, thread and question), so the agent worker decides as
 * over the parsed mail.
 */
export function parkBeforeAgentReason(mail: ClassifiableMail, config: ParkConfig): string | undefined {
  const unusable = unusableSenderOf(mail);
  if (unusable) {
    return `the sender's address ${JSON.stringify(unusable.address)} (${unusable.header}) is not one a reply may go to (${unusable.why}): a person decides`;
  }
  const mailboxes = ownMailboxesOf(config);
  const relay = ownGroupRelayDetail(mail, mailboxes);
  if (relay) return relay;
  const imitation = imitationDetail(mail, config);
  if (imitation) return imitation;
  const notice = serviceNoticeIn(mail);
  const noticeReason = notice ? serviceNoticeParkReason(notice, (mail.replyTo ?? mail.from)?.address) : undefined;
  if (noticeReason) return noticeReason;
  const colleague = colleagueDetail(mail, mailboxes);
  if (colleague) return colleague;
  const ownList = unconfiguredOwnListDetail(mail, mailboxes);
  if (ownList) return ownList;
  const person = personBehindNoReplyReplyTo(mail);
  if (person) {
    return `Reply-To ${mail.replyTo!.address} is a no-reply address; the From ${person} is a person: a person decides whom to answer`;
  }
  const carried = personInNotificationOf(mail, ownMatcher(mailboxes));
  if (carried) {
    return `a system notification from the no-reply address ${(mail.replyTo ?? mail.from)!.address} carries a person's message (${carried}): their address is only in its text, so a person decides whom to answer`;
  }
  const inline = inlineAnswersOf(mail);
  if (inline) {
    return `the customer answers inline in the quoted text (“${inline}”), and only their words above it reached the question: a person reads the whole mail`;
  }
  const form = formWithoutReplyToDetail(mail);
  if (form) {
    return `a web form's mail from ${mail.from!.address} with no Reply-To carries ${form}: a reply would go to the form service, not the customer, so a person decides whom to answer`;
  }
  const nullSender = nullEnvelopeSender(mail);
  if (nullSender) return `null envelope sender (${nullSender}) but nothing else of a bounce: a person checks whether it is a delivery report or a question`;
  const addressChange = addressChangeDetail(mail);
  if (addressChange) return `an e-mail address change notice (${addressChange}): a person updates the customer's address; nothing for the agent to answer`;
  const circular = circularDetail(mail);
  return circular ? `${CIRCULAR_REASON} ${circular}; a person decides whether it asks us anything` : undefined;
}

/**
 * The list address (else the list's domain) of list mail whose list is on one of our own domains ({@link ownDomains}),
 * by its List-Id, List-* mailtos, Mailing-List or list mailbox; undefined for other mail.
 */
function listOnOwnDomain(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
  const list = listIdentityOf(mail);
  if (!list) return undefined;
  const own = ownDomains(mailboxes);
  const isOwn = (domain: string) => own.some((ours) => isSameOrSubdomain(domain, ours));
  const address = [...list.addresses].find((candidate) => isOwn(domainOf(candidate)));
  if (address) return address;
  // List-Id writes the list's address with `@` as `.`: info.support.example is info@support.example.
  const id = [...list.ids].find((candidate) => candidate.includes('.') && isOwn(candidate.slice(candidate.indexOf('.') + 1)));
  if (id) return `${id.slice(0, id.indexOf('.'))}@${id.slice(id.indexOf('.') + 1)}`;
  return [...list.domains].find(isOwn);
}

/**
 * Why list mail through a list on our own domain that is none of our configured groups waits for a person: most
 * likely our own group (Google Groups, Mailman) delivering a customer's mail to the support mailbox while
 * SUPPORT_GROUP_ADDRESSES does not name it. Not ignored as list traffic ({@link decideReply}), and not answered
 * blind: the group's From and footer are ours, and only a person (or the setting) says whom to answer. Undefined for
 * any other mail, and for mail whose list headers name one of our addresses (its own rules hold the draft).
 */
function unconfiguredOwnListDetail(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
  const isOurs = ownMatcher(mailboxes);
  if (claimedOwnList(mail, mailboxes) !== undefined || listDetail(mail, isOurs) === undefined) return undefined;
  const list = listOnOwnDomain(mail, mailboxes);
  if (!list) {
    const named = ownAddressInListUrl(mail, mailboxes);
    return named
      ? `list mail whose ${named.header} URL names our own address ${named.address} (our own group, such as a Microsoft 365 group, delivering to this mailbox): a person checks that ${mail.from?.address ?? 'the sender'} is the customer and answers them`
      : undefined;
  }
  const customer = customerInReplyTo(mail, isOurs);
  const whom = customer ? `the customer is likely ${customer.address} (Reply-To)` : 'a person decides whom to answer';
  return `mail through a group on our own domain (${list}) that SUPPORT_GROUP_ADDRESSES does not list: ${whom}; if that group delivers customers' mail to this mailbox, add it there`;
}

// The List-* fields whose URLs a group service writes with the group's own address in the path.
const LIST_URL_HEADERS: ReadonlyArray<readonly [name: string, label: string]> = LIST_HEADERS.filter(([name]) => name.startsWith('list-') && name !== 'list-id');

// Where Microsoft 365 groups' List-* URLs point: Outlook on the web's groups, worldwide and in the national clouds.
const M365_GROUPS_URL = /^https:\/\/(?:outlook\.office365\.com|outlook\.office\.com|outlook\.office365\.us|outlook\.office\.de|partner\.outlook\.cn)\/groups\//iu;

/**
 * Our own address (MAIL_FROM, SUPPORT_ADDRESSES, a group's) named as a whole segment of the path of a Microsoft 365
 * groups URL ({@link M365_GROUPS_URL}) in a List-* field, and the field: Microsoft 365 groups write
 * `List-Unsubscribe: <https://outlook.office365.com/groups/<domain>/<group address>/unsubscribe/…>`. Only the path: a
 * newsletter's unsubscribe URL names its subscriber (us) in its query (`?email=support@…`), and a mass-mailing
 * service's in its path as well (`/unsubscribe/support@…/7f3a`), so no other host counts.
 */
function ownAddressInListUrl(mail: ClassifiableMail, mailboxes: OwnMailboxes): { header: string; address: string } | undefined {
  const isOurs = ownMatcher(mailboxes);
  for (const [name, label] of LIST_URL_HEADERS) {
    for (const value of values(mail, name)) {
      // A URL holds no `<`: read up to the next one, not on over every later `<http://` for 2,000 characters (a
      // 900 KB header of them took seconds; ReDoS sweep, security review 15).
      for (const [, url] of value.matchAll(/<(https?:\/\/[^<>\s]{1,2000})>/giu)) {
        if (!M365_GROUPS_URL.test(url!)) continue;
        const path = url!.replace(/^https?:\/\/[^/]*/iu, '').split(/[?#]/u)[0] ?? '';
        for (const segment of path.split('/')) {
          let address = segment;
          try {
            address = decodeURIComponent(segment);
          } catch {
            // A malformed escape is read as written.
          }
          if (address.includes('@') && isOurs(address)) return { header: label, address };
        }
      }
    }
  }
  return undefined;
}

// Google Groups' From when it rewrites a member's mail to the group's own address: "'David Lee' via XYZ Support".
const VIA_GROUP_NAME = /^\s*'?(?<name>.+?)'?\s+via\s+\S.*$/u;

/**
 * Whom our own group relayed a mail for when it rewrote From to itself: the address of X-Original-From, else of
 * X-Original-Sender (Google Groups writes both), when it is none of ours; else, with a From of ours named
 * "'Name' via Group", the name alone. Undefined for mail whose From is not ours or that shows no one behind it (our own
 * post through the group, a colleague's).
 */
function ownGroupRelayOf(mail: ClassifiableMail, mailboxes: OwnMailboxes): { address?: string; header?: string; name?: string } | undefined {
  const isOurs = ownMatcher(mailboxes);
  if (!isOurs(mail.from?.address)) return undefined;
  for (const [name, label] of [['x-original-from', 'X-Original-From'], ['x-original-sender', 'X-Original-Sender']] as const) {
    const address = parseAddressList(values(mail, name)[0] ?? '')[0]?.address;
    // A colleague on our own domain posting through the group is our own mail, as before.
    if (address) return isOurs(address) || ownDomainOf(address, mailboxes) !== undefined ? undefined : { address, header: label };
  }
  const via = VIA_GROUP_NAME.exec(mail.from?.name ?? '')?.groups?.['name'];
  return via ? { name: via } : undefined;
}

/**
 * Why a mail our own group relayed with its From (and Reply-To) rewritten to the group waits for a person: the
 * customer is only in X-Original-From or the From's name, which anyone can write, and a reply to the From would
 * mail ourselves. Undefined for other mail.
 */
function ownGroupRelayDetail(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
  const isOurs = ownMatcher(mailboxes);
  const group = claimedOwnList(mail, mailboxes);
  const relay = group ? ownGroupRelayOf(mail, mailboxes) : undefined;
  if (!group || !relay || customerInReplyTo(mail, isOurs)) return undefined;
  const behind = relay.address
    ? `the customer is likely ${relay.address} (${relay.header}), which nothing here authenticates`
    : `the original sender is unknown (From “${mail.from!.name}”)`;
  return `mail relayed through our own group ${group} with From and Reply-To rewritten to the group: ${behind}; a person answers them (Google Groups: set "Reply to" to the author to have the customer in Reply-To)`;
}

/**
 * What a no-reply notification carries of a person ({@link personMessageInNotificationOf}), unless the person is one of
 * our own addresses or a colleague on our own domain (a Teams or Slack notice of a colleague's message to us).
 */
function personInNotificationOf(mail: ClassifiableMail, isOurs: (address: string | undefined) => boolean): string | undefined {
  const carried = personMessageInNotificationOf(mail);
  const address = carried?.split(' ')[0];
  return carried && !isOurs(address) ? carried : undefined;
}

/** The address a reply would go to when it is none a reply may go to, the header it is in, and why it is not. */
interface UnusableSender {
  address: string;
  header: 'From' | 'Reply-To';
  why: string;
}

// Longer addresses are cut in a park reason: a stranger writes the header.
const MAX_SHOWN_ADDRESS_CHARS = 200;

/**
 * The address a reply would go to (Reply-To, else From) when one is written but none a reply may go to
 * ({@link isUsableAddress}), or undefined. The parser keeps no unusable From, so a mail without one is read for the
 * From header it keeps for this ({@link REPLY_SIGNAL_HEADERS}); a From of only a name holds no address at all.
 */
function unusableSenderOf(mail: ClassifiableMail): UnusableSender | undefined {
  const described = (header: UnusableSender['header'], address: string): UnusableSender | undefined =>
    isUsableAddress(address) ? undefined : { header, address: Array.from(address).slice(0, MAX_SHOWN_ADDRESS_CHARS).join(''), why: unusableBecause(address) };
  if (mail.replyTo) return described('Reply-To', mail.replyTo.address);
  if (mail.from) return described('From', mail.from.address);
  const written = parseAddressList(values(mail, 'from')[0])[0];
  return written ? described('From', written.address) : undefined;
}

/** Why {@link isUsableAddress} refuses an address, in a reason's words. */
function unusableBecause(address: string): string {
  const at = address.lastIndexOf('@');
  const local = at < 0 ? address : address.slice(0, at);
  if (at > 0 && address.slice(at + 1).startsWith('[')) return 'a domain literal';
  if (local.startsWith('"')) return 'a quoted local part';
  if (/[%!]/.test(local)) return 'a route through another host';
  if (local.startsWith('.')) return 'a local part starting with a dot';
  return 'not a plain local@domain address';
}

/**
 * The From of a mail whose Reply-To is a no-reply address while the From is a person's usable, other mailbox (a
 * workflow tool such as kintone sending for them), or undefined.
 */
function personBehindNoReplyReplyTo(mail: ClassifiableMail): string | undefined {
  const replyTo = mail.replyTo?.address;
  const from = mail.from?.address;
  if (!replyTo || !from || !isNoReplyAddress(replyTo) || !isUsableAddress(from) || isNoReplyAddress(from) || isSameMailbox(from, replyTo)) return undefined;
  return from;
}

// A notification's field naming the address of the person it is about (a form's submitter), alone on its line; its
// value on the same line or the next.
const ADDRESS_FIELD_LABEL = /^[ \t]*(?:(?:your )?e-?mail(?: address)?|mail address|メールアドレス|メール|eメール|電子メール|連絡先メールアドレス|이메일(?: 주소)?|电子邮件|電子郵件|邮箱|郵箱)[ \t]*[:：][ \t]*(\S*)[ \t]*$/iu;
// A field holding a person's own words: a form's message or question, the note of a share or an invitation.
const MESSAGE_FIELD_LABEL =
  /^[ \t]*(?:(?:your |personal )?message|comments?|questions?|inquiry|enquiry|note|メッセージ|お問い?合わ?せ内容|お問い?合わ?せ|ご?質問(?:内容)?|ご?相談内容|ご?要望|本文|備考|コメント|문의(?:\s?내용)?|메시지|留言|咨询内容|諮詢內容|nachricht)[ \t]*[:：][ \t]*(.*)$/iu;
// The same field as a heading of its own line, its words on the lines below: file-transfer and share notices write
// 「■メッセージ」, 「【メッセージ】」, 「［送信者からのメッセージ］」, "Message from sender". A label needs a heading's
// mark around it (「メッセージ」 alone is a word of any text); the sender phrases are headings as they stand.
const MESSAGE_HEADING_LABEL = String.raw`(?:(?:your |personal )?message|comments?|questions?|inquiry|enquiry|note|メッセージ|お問い?合わ?せ内容|ご?質問(?:内容)?|ご?相談内容|本文|備考|コメント|(?:送信者|差出人|送り主)からの(?:メッセージ|コメント|メモ))`;
const MESSAGE_HEADING = new RegExp(
  String.raw`^[ \t]*(?:[■□◆◇●○▼▽◎★☆＊*][ \t]*${MESSAGE_HEADING_LABEL}|[【\[［〔<＜《][ \t]*${MESSAGE_HEADING_LABEL}[ \t]*[】\]］〕>＞》]|(?:message|note|comments?) from (?:the )?sender|sender'?s (?:message|note)|(?:送信者|差出人|送り主)からの(?:メッセージ|コメント|メモ))[ \t]*$`,
  'iu',
);
// A line that opens another field of the notice (「■ダウンロード期限」, 「【備考】」) or its closing note (「※このメールは
// 送信専用アドレスから…」): no message under an empty heading.
const HEADING_LINE = /^[ \t]*(?:[■□◆◇●○▼▽◎★☆※]|[【\[［〔][^】\]］〕\n]{1,30}[】\]］〕][ \t]*$)/u;
// A person named by their address beside their name, as share and invitation notices write them: 山田 太郎
// (taro.yamada@customer.co.jp) さんが…, "John Smith <john@acme.com> shared…".
const BRACKETED_ADDRESS = /[(（<＜]\s*([\w.+-]+@[\w-]+(?:\.[\w-]+)+)\s*[)）>＞]/gu;
const BARE_ADDRESS = /^<?([\w.+-]+@[\w-]+(?:\.[\w-]+)+)>?$/u;

/**
 * What a notification from a no-reply address (the address a reply would go to, with no person's From behind a no-reply
 * Reply-To) carries of a person, or undefined: their address on another organisation's domain than the sender's, in a
 * field of its own (`Email:`, `メールアドレス:`) or in brackets beside their name (a share's inviter), and beside it a
 * message or note field with their words (`Message:`, `お問い合わせ内容:`, `メッセージ:`). A HubSpot form, a Box invite
 * with a note: the person is only in the text, and ignoring it would drop them without a trace. A notice with no
 * address (Teams' missed message, a social network's), an empty form, or an address of the sender's own organisation
 * (a newsletter's contact) carries none. Read from {@link ReplySignals.personInNotification} when recorded.
 */
export function personMessageInNotificationOf(mail: Pick<ClassifiableMail, 'question' | 'personInNotification' | 'from' | 'replyTo'>): string | undefined {
  if (mail.personInNotification) return mail.personInNotification;
  const target = (mail.replyTo ?? mail.from)?.address;
  if (!target || !isNoReplyAddress(target) || personBehindNoReplyReplyTo(mail as ClassifiableMail) !== undefined) return undefined;
  const carried = personAndMessageIn(mail.question ?? '', target, { bracketed: true });
  return carried ? `${carried.person}, and their message “${quoted(carried.message)}”` : undefined;
}

/** A person's address and message in a notification's text ({@link personAndMessageIn}), and the lines they are on. */
interface CarriedPerson {
  person: string;
  personLine: number;
  message: string;
  messageLine: number;
}

/**
 * The first address in `text` of another organisation than `sender`'s, in a field of its own (and, when `bracketed`,
 * in brackets beside a name), and the first message or note field with words, or undefined without both.
 */
function personAndMessageIn(text: string, sender: string, { bracketed }: { bracketed: boolean }): CarriedPerson | undefined {
  const senderDomain = organisationDomain(domainOf(sender));
  const isOther = (address: string) => isUsableAddress(address) && !isNoReplyAddress(address) && organisationDomain(domainOf(address)) !== senderDomain;
  const lines = text.split('\n');
  // The first non-blank line below each, in one pass from the end: a search per empty field would be quadratic in
  // the lines of a text of empty fields.
  const below: string[] = new Array<string>(lines.length).fill('');
  for (let at = lines.length - 2; at >= 0; at--) below[at] = lines[at + 1]!.trim() || below[at + 1]!;
  const valueAt = (at: number, same: string) => (same.trim() !== '' ? same.trim() : below[at]!);
  let person: { text: string; line: number } | undefined;
  let message: { text: string; line: number } | undefined;
  lines.forEach((line, at) => {
    const field = ADDRESS_FIELD_LABEL.exec(line);
    const address = field ? BARE_ADDRESS.exec(valueAt(at, field[1]!))?.[1] : undefined;
    if (!person && address && isOther(address)) person = { text: `${address} in a field of its own`, line: at };
    if (!person && bracketed) for (const [, named] of line.matchAll(BRACKETED_ADDRESS)) if (!person && isOther(named!)) person = { text: `${named} beside their name`, line: at };
    const note = MESSAGE_FIELD_LABEL.exec(line);
    const heading = !note && MESSAGE_HEADING.test(line);
    const words = note ? valueAt(at, note[1]!) : heading ? below[at]! : '';
    const isField = (text: string) => ADDRESS_FIELD_LABEL.test(text) || MESSAGE_FIELD_LABEL.test(text) || MESSAGE_HEADING.test(text) || (heading && HEADING_LINE.test(text));
    if (!message && (note || heading) && /\p{L}/u.test(words) && !isField(words)) message = { text: words, line: at };
  });
  return person && message ? { person: person.text, personLine: person.line, message: message.text, messageLine: message.line } : undefined;
}

// The local part of a form's or a site's mailbox, which no person answers from: form@, webform@, formmailer@, contact@,
// info@, wordpress@, www@ (a token of it: site-form@, info.jp@). A customer writes from their own mailbox (shimizu@,
// taro@gmail.com).
const FORM_SENDER_LOCAL_PART =
  /(?:^|[-_.+])(?:(?:web)?forms?(?:mail(?:er)?)?|contact|info|inquiry|inquiries|enquiry|toiawase|otoiawase|webmaster|wordpress|mailer|system|postmaster|www)\d*(?:$|[-_.+])/iu;
// A form's own mailbox, in its local part or its domain (wordpress@site, formmailer@, contact@formmailer-cloud.jp):
// only a form sends from it, whatever name the form writes in the From (Contact Form 7's `[your-name] <wordpress@…>`),
// while a company's contact@ or info@ is also where its people write from.
const FORM_MAILBOX = /(?:^|[-_.+@])(?:(?:web)?forms?(?:mail(?:er)?)?|wordpress)\d*(?:$|[-_.+@])/iu;
// A form's field about the sender, besides the address and the message: お名前：…, 会社名：…, 電話番号：…, "Phone: …".
// The blanks around a field's mark and brackets are read once each (`[ \t]*(?:[■…][ \t]*)?`, not `[ \t]*[■…]?[ \t]*`):
// three runs of blanks that could each be empty split a line of 1,000 spaces every way, ~1.4 s a line (ReDoS sweep,
// security review 15); the same lines match.
const FORM_DETAIL_FIELD_LABEL =
  /^[ \t]*(?:[■・●◆][ \t]*)?(?:[【\[［][ \t]*)?(?:お?名前|ご?氏名|フリガナ|ふりがな|会社名|貴社名|御社名|法人名|団体名|部署名?|役職|ご?担当者名?|電話番号|お電話番号|電話|tel|携帯(?:電話)?(?:番号)?|fax|ご?住所|郵便番号|都道府県|件名|お問い?合わ?せ(?:種別|項目|の種類)|(?:full |first |last |your )?name|company(?: name)?|organi[sz]ation|phone(?: number)?|telephone|subject|country|website)[ \t]*(?:[】\]］][ \t]*)?[:：][ \t]*(.*)$/iu;
// A form's name field, whose value a customer writing from their own mailbox fills with the From's display name.
const NAME_FIELD_LABEL = /^[ \t]*(?:[■・●◆][ \t]*)?(?:[【\[［][ \t]*)?(?:お?名前|ご?氏名|ご?担当者名?|(?:full |your )?name)[ \t]*(?:[】\]］][ \t]*)?[:：][ \t]*(.*)$/iu;
// How many fields besides the address a form's text holds at least when it comes from a site's mailbox that people
// also write from (contact@, info@): a name and the message, say. From a form's own mailbox the message is enough.
const MIN_FORM_FIELDS = 2;

/**
 * What a web form's mail with no Reply-To carries of the customer, or undefined: a new mail (a form's is never a reply)
 * from a form's or a site's mailbox ({@link FORM_SENDER_LOCAL_PART}, or a no-reply one), its text shaped as a form (an
 * address field of another organisation's domain than the From's above a message field, `メールアドレス：…` then
 * `お問い合わせ内容：…`). From a site's mailbox people also write from (contact@, info@), the text holds at least
 * {@link MIN_FORM_FIELDS} fields in all but the address and no field naming the From's display name as the sender;
 * from a form's own mailbox ({@link FORM_MAILBOX}) or a no-reply one, the From's name is the form's doing, and from a
 * form's own mailbox the address and the message fields are enough. A reply would go to the form service, a third
 * party, and the customer would never get it. A customer writes their own structured mail from their own mailbox,
 * their other address in a field, and their signature with a private address comes below their words.
 */
function formWithoutReplyToDetail(mail: ClassifiableMail): string | undefined {
  const from = mail.from?.address;
  if (mail.replyTo || !from || isReply(mail)) return undefined;
  const formMailbox = FORM_MAILBOX.test(from);
  const noReply = isNoReplyAddress(from);
  if (!formMailbox && !noReply && !FORM_SENDER_LOCAL_PART.test(localPart(from))) return undefined;
  const question = mail.question ?? '';
  const carried = personAndMessageIn(question, from, { bracketed: false });
  if (!carried || carried.personLine >= carried.messageLine) return undefined;
  const lines = question.split('\n');
  const fields = lines.filter((line) => !ADDRESS_FIELD_LABEL.test(line) && (FORM_DETAIL_FIELD_LABEL.test(line) || MESSAGE_FIELD_LABEL.test(line) || MESSAGE_HEADING.test(line)));
  if (!formMailbox && fields.length < MIN_FORM_FIELDS) return undefined;
  if (!formMailbox && !noReply && namesFromAsSender(lines, mail.from?.name)) return undefined;
  return `${carried.person}, and their message “${quoted(carried.message)}”`;
}

/** Whether a name field among `lines` holds the From's display name (spaces and width aside): the sender's own mail. */
function namesFromAsSender(lines: readonly string[], displayName: string | undefined): boolean {
  const compact = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s+/gu, '');
  const name = compact(displayName ?? '');
  if (Array.from(name).length < 2) return false;
  return lines.some((line) => {
    const value = NAME_FIELD_LABEL.exec(line)?.[1];
    return value !== undefined && compact(value) !== '' && (compact(value).includes(name) || name.includes(compact(value)));
  });
}

// Words announcing answers written into the quoted mail below: 「インラインにて失礼いたします」, 「下記、インラインにて
// ご回答」, 「以下、【山田】にてコメントします」, 「赤字にて回答」, "see my comments inline", "answers below in red",
// "my comments below marked [JS]". Not "see below" (a log, a pasted mail) nor インライン画像. For 「下記の通り回答
// いたします」 and the like see ANSWERS_BELOW_LINE.
const INLINE_ANSWERS = new RegExp(
  [
    String.raw`インライン(?:にて|で|に)[、,]?\s?(?:失礼|(?:ご|お)?(?:回答|返信|返答|コメント|質問|記載|記入|追記|答え)|書き込|書か|書い|入れ)`,
    String.raw`[【\[［(（<＜][^】\]］)）>＞\n]{1,20}[】\]］)）>＞]\s?(?:に|にて|で)[、,]?\s?(?:ご|お)?(?:回答|返信|返答|コメント|答え|追記|記載)(?:いたし|致し|し|させていただき|させて頂き)`,
    String.raw`(?:赤|青|緑)(?:字|文字|色)(?:にて|で)[、,]?\s?(?:ご|お)?(?:回答|返信|返答|コメント|答え|追記|記載|記入)`,
    String.raw`\b(?:answers?|comments?|responses?|replies|notes?)(?: to (?:your|the) questions?)? (?:are )?(?:inline|in-line|(?:below )?in (?:red|blue|green|bold))\b`,
    String.raw`\b(?:answered|replied|responded|commented) (?:inline|in-line)\b|\binline (?:answers|comments|responses|replies)\b|\bmarked (?:with )?\[`,
  ].join('|'),
  'iu',
);
// A line announcing answers below, as phrasesOf writes it: 「下記の通り回答いたします」, 「ご質問の件、以下に回答
// いたします」, 「下記に回答を記入しました」, "my answers are below". Customers write these above answers in their own
// words as often as inside the quote, so they announce inline answers only when the customer's words hold nothing
// else but greetings and their name: then the answers can only be in the quote.
const ANSWERS_BELOW_LINE = new RegExp(
  [
    String.raw`^(?:[\p{L}\p{N} ]{0,20}[、,] ?)?(?:下記|以下)(?:の(?:通り|とおり)|に|にて|で)?[、,]? ?(?:ご|お)?(?:回答|返信|返答|コメント|答え|記入|記載|追記)(?:を(?:記入|記載|追記))?(?:いたします|致します|します|しました|いたしました|致しました|させていただきます|させて頂きます|させていただきました|です)?$`,
    String.raw`^(?:(?:please )?see )?(?:(?:my|our) )?(?:answers?|comments?|responses?|replies|notes?)(?: to (?:your|the) questions?)? (?:are |is )?(?:below|underneath)$`,
    String.raw`^(?:i(?:'ve| have)? )?(?:answered|replied|responded|commented) below$`,
  ].join('|'),
  'u',
);
// How far a text is read for the quoted mail below the customer's note.
const MAX_INLINE_SCAN_CHARS = 64 * 1024;

/**
 * The customer's words announcing answers written inline in the quoted mail below them ({@link INLINE_ANSWERS}, or
 * {@link ANSWERS_BELOW_LINE} in a note of nothing else but greetings and the name), when the mail's text quotes an
 * earlier mail without `>` marks (a header block or an "Original Message" line) and none of that quoted mail's lines
 * reached the question: the parser keeps only the note above such a quote, so the answers
 * are lost, and the agent would answer 「インラインにて失礼いたします。」 alone. Read from
 * {@link ReplySignals.inlineAnswers} when recorded, else from the parsed mail's text and question.
 */
export function inlineAnswersOf(mail: Pick<ClassifiableMail, 'question' | 'text' | 'inlineAnswers' | 'from'>): string | undefined {
  if (mail.inlineAnswers) return mail.inlineAnswers;
  const question = mail.question ?? '';
  const announced = INLINE_ANSWERS.exec(question.normalize('NFKC'))?.[0] ?? answersBelowOnly(question, mail.from?.name);
  if (!announced || !mail.text) return undefined;
  const lines = mail.text.slice(0, MAX_INLINE_SCAN_CHARS).replace(/\r\n?/gu, '\n').split('\n');
  const start = unmarkedQuoteBodyStart(lines);
  if (start === undefined) return undefined;
  const comparableLine = (line: string) => line.normalize('NFKC').replace(/\s+/gu, ' ').trim();
  const asked = new Set(question.split('\n').map(comparableLine));
  const above = new Set(lines.slice(0, start).map(comparableLine));
  const quoted = lines.slice(start).filter((line) => !/^[ \t]*[>＞|]/u.test(line)).map(comparableLine).filter((line) => /[\p{L}\p{N}]/u.test(line));
  if (quoted.length === 0 || quoted.some((line) => asked.has(line) && !above.has(line))) return undefined;
  return announced;
}

/**
 * The line of `words` announcing answers below ({@link ANSWERS_BELOW_LINE}) when every other phrase is a greeting, a
 * thanks, a closing or the sender's name ({@link phraseKind}), or undefined: a note that says anything more holds the
 * answers itself, or a question the agent reads.
 */
function answersBelowOnly(words: string, senderName: string | undefined): string | undefined {
  if (words.length > MAX_ACKNOWLEDGEMENT_CHARS) return undefined;
  const names = nameWordsOf(senderName);
  let announcing: string | undefined;
  for (const phrase of phrasesOf(words)) {
    if (ANSWERS_BELOW_LINE.test(phrase)) announcing ??= phrase;
    else if (phraseKind(phrase, names) === undefined) return undefined;
  }
  return announcing;
}

/**
 * Where the text of the first quoted mail without `>` marks starts below its separator or header block, read with
 * the parser's own markers (src/mail/quote-markers.ts), or undefined.
 */
function unmarkedQuoteBodyStart(lines: readonly string[]): number | undefined {
  for (let at = 0; at < lines.length; at++) {
    if (REPLY_ORIGINAL_SEPARATOR.test(lines[at]!)) return at + 1;
    if (!BLOCK_FROM.test(lines[at]!)) continue;
    let end = at + 1;
    while (end < lines.length && BLOCK_NEXT.test(lines[end]!)) end++;
    if (end - at >= 3) return end;
  }
  return undefined;
}

// The heading of an e-mail address change notice, a line of its own or the subject (【メールアドレス変更のお知らせ】,
// アドレス変更のご案内, "Email address change notice"): 「メールアドレス変更の方法」 or 「…のお知らせが届きません」 ask about it,
// and a customer asks for the change with 「…のお願い」. No `Re:` or `Fwd:`: a reply to our own 「…のご案内」 is the
// customer's word about it.
const ADDRESS_CHANGE_HEADING =
  /^[ \t]*[【\[［〔<＜■◆●]?[ \t]*(?:(?:メール|e-?mail|電子メール)\s?)?アドレス(?:の)?変更(?:の|に関する|に伴う)?(?:お知らせ|ご案内|ご連絡|ご通知|通知)[ \t]*[】\]］〕>＞]?[ \t]*$|^[ \t]*(?:notice of |notification of )?(?:(?:my |our )?e-?mail )?address change(?: notice| notification)?[ \t]*$|^[ \t]*change of (?:e-?mail )?address[ \t]*$/imu;
// What a customer writes who asks about their address rather than announcing it: a question, a request to be told or
// done (ください, 教えて, ご教示願います), "how do I…?". Not 願います alone: 「新アドレスへ送付願います」 under the
// notice asks the person who updates the address.
const ASKS_ABOUT_ADDRESS = /[?？]|ください|下さい|教えて|お教え|教示|ますか|でしょうか|\b(?:can|could|how|what|why|where)\b/iu;
// The old and the new address, each on a line of its label: 旧アドレス：…, 新メールアドレス：…, "Old address: …".
const OLD_ADDRESS_LINE = /^[ \t]*[■・●◆]?[ \t]*(?:旧|変更前の?)(?:メール|e-?mail)?アドレス[ \t]*[:：][ \t]*\S+@|^[ \t]*(?:old|previous|former) (?:e-?mail )?address[ \t]*:[ \t]*\S+@/imu;
const NEW_ADDRESS_LINE = /^[ \t]*[■・●◆]?[ \t]*(?:新|変更後の?)(?:メール|e-?mail)?アドレス[ \t]*[:：][ \t]*\S+@|^[ \t]*new (?:e-?mail )?address[ \t]*:[ \t]*\S+@/imu;

/**
 * What makes the customer's words an e-mail address change notice, or undefined: its heading on a line of its own or
 * as the subject ({@link ADDRESS_CHANGE_HEADING}), or an old and a new address under their labels; never when those
 * words ask anything ({@link ASKS_ABOUT_ADDRESS}), which the agent answers. A person updates
 * the customer's address; the agent has nothing to answer, and would only thank them or promise what no one did.
 */
function addressChangeDetail(mail: Pick<ClassifiableMail, 'question' | 'subject'>): string | undefined {
  const question = mail.question ?? '';
  if (ASKS_ABOUT_ADDRESS.test(question)) return undefined;
  const heading = ADDRESS_CHANGE_HEADING.exec(question)?.[0] ?? (mail.subject ? ADDRESS_CHANGE_HEADING.exec(mail.subject)?.[0] : undefined);
  if (heading) return `“${quoted(heading)}”`;
  return OLD_ADDRESS_LINE.test(question) && NEW_ADDRESS_LINE.test(question) ? 'an old and a new address' : undefined;
}

// Hosts of mailing lists and groups, where anyone may open a group: our group there (SUPPORT_GROUP_ADDRESSES on
// googlegroups.com, or a subgroup under groups.io) makes no other group or member on it ours. Subdomains included.
const GROUP_HOSTING_DOMAINS: readonly string[] = ['googlegroups.com', 'groups.io', 'freelists.org', 'yahoogroups.com', 'lists.sourceforge.net'];

/**
 * The domains of our own addresses, never a shared mail domain's or a group host's, where anyone may hold a mailbox.
 * The Q&A reindex keeps addresses on them in the pairs it scrubs (jobs/reindex-qa.ts).
 */
export function ownDomains(mailboxes: OwnMailboxes): string[] {
  return [...new Set(bareOwnAddresses(mailboxes).map((address) => domainOf(comparableAddress(address) ?? address)))].filter(
    (domain) => domain !== '' && !isSharedMailDomain(domain) && !GROUP_HOSTING_DOMAINS.some((host) => isSameOrSubdomain(domain, host)),
  );
}

/** Which of our own domains ({@link ownDomains}) `address` is on or under, if any. */
function ownDomainOf(address: string, mailboxes: OwnMailboxes): string | undefined {
  const domain = domainOf(comparableAddress(address) ?? address);
  return ownDomains(mailboxes).find((own) => isSameOrSubdomain(domain, own));
}

// A forwarded mail's sender, as a forward's header block writes it (the parser's own, Outlook's, Gmail's, Japanese
// clients' 差出人).
const FORWARDED_FROM = /^[ \t>]*(?:From|差出人|送信者|送信元)[ \t]*[:：][ \t]*([^\n]{1,300})/imu;

/** How a colleague's park reason begins ({@link parkBeforeAgentReason}); read by src/tickets/review.ts. */
export const COLLEAGUE_REASON = 'internal mail from';

/** How a circular's park reason begins ({@link parkBeforeAgentReason}); read by src/tickets/review.ts. */
export const CIRCULAR_REASON = 'a circular:';

/** How the park reason of mail without a question begins ({@link noQuestionReason}); read by src/tickets/review.ts. */
export const NO_QUESTION_REASON = 'no question:';

/**
 * Why a mail is internal: the address an answer would go to (Reply-To, else From) is on the domain of one of our
 * addresses (or under it) but is none of them, e.g. sales forwarding a customer's question to support with 「先方へ
 * 直接ご返信ください」. Names the forwarded sender when the question holds a forward. Not our website's form mailer with
 * the customer in Reply-To (the answer goes to the customer), nor a no-reply address (ignored before), and never on a
 * shared mail domain (MAIL_FROM on gmail.com makes no gmail.com user a colleague).
 */
function colleagueDetail(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
  const target = (mail.replyTo ?? mail.from)?.address;
  if (!target || ownMatcher(mailboxes)(target) || isNoReplyAddress(target)) return undefined;
  const domain = ownDomainOf(target, mailboxes);
  if (!domain) return undefined;
  const forwarded = parseAddressList(FORWARDED_FROM.exec(mail.question ?? '')?.[1]).map((entry) => entry.address).find((address) => !isSameMailbox(address, target));
  const whom = forwarded ? `the forwarded sender is ${forwarded}, whom a person answers` : 'a person answers';
  return `${COLLEAGUE_REASON} ${target} on our own domain ${domain} (a colleague, or a system of ours): an answer would go to them; ${whom}`;
}

// Words by which a display name claims to be a product's support or its operator, not a customer's person.
const SUPPORT_WORDS =
  /サポート|ヘルプデスク|カスタマー(?:サポート|センター|サービス|サクセス)|お客(?:様|さま)(?:センター|窓口|相談室|サービス)|窓口|事務局|運営|公式|セキュリティ|\b(?:support|help ?desk|customer (?:service|care|success|cent(?:er|re))|security|official|billing)\b/giu;

/**
 * `text` as display names are compared: NFKC, lower case, runs of spaces as one, and none beside a character that is
 * no Latin letter or digit (「XYZ サポート」 and 「XYZサポート」 are one name; "ACME Helpdesk" keeps its space).
 */
export function comparableDisplayName(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .replace(/ (?=[^\p{Script=Latin}\p{N} ])|(?<=[^\p{Script=Latin}\p{N} ]) /gu, '')
    .trim();
}

// Words naming a unit of a support organisation rather than who it is: 「XYZ サポートセンター」 and "XYZ Support Team"
// are one claim. Read after SUPPORT_WORDS, so that 「サポート窓口」 and 「カスタマーセンター」 are support words first.
const TEAM_WORDS = /センター|チーム|デスク|窓口|事務局|係|\b(?:team|cent(?:er|re)|desk|office|dept|department)\b/gu;

/**
 * What is left of a comparable display name ({@link comparableDisplayName}) once support words, team words and every
 * mark and space are taken out: the part that says who the sender is. Empty for a name that is only "Support".
 */
function identityOf(name: string): string {
  return name.replace(SUPPORT_WORDS, ' ').replace(TEAM_WORDS, ' ').replace(NOTICE_WORDS, ' ').replace(/[^\p{L}\p{N}]+/gu, '');
}

// Company forms, countries and notice words beside a name say nothing of who sends: "XYZ Inc. Support", "XYZ Support
// Japan", 「XYZ サポート事務局からのお知らせ」 are as much ours as "XYZ Support" (a phisher adds one to pass).
const NOTICE_WORDS =
  /株式会社|有限会社|合同会社|お知らせ|ご案内|通知|からの|より|\b(?:inc|corp|corporation|co|ltd|llc|gmbh|k\.k|japan|jp|global|notifications?|notices?|alerts?|info|news|no-?reply)\b/gu;

/**
 * `name` without `part` wherever it stands whole, or undefined when `part` is nowhere in it whole: where `part` begins
 * or ends with a Latin letter or digit, no such character may stand right beside it (XYZ is taken out of
 * 「XYZサポート」 and "XYZ Support", not out of "XYZZY").
 */
function withoutWhole(name: string, part: string): string | undefined {
  if (part === '') return undefined;
  const escaped = part.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  const before = /^[a-z0-9]/u.test(part) ? '(?<![a-z0-9])' : '';
  const after = /[a-z0-9]$/u.test(part) ? '(?![a-z0-9])' : '';
  const whole = new RegExp(`${before}${escaped}${after}`, 'gu');
  return whole.test(name) ? name.replace(whole, ' ') : undefined;
}

/**
 * Why the From's display name presents a stranger as our own support, on none of our domains. A name is ours only when
 * it is nothing but our name and support or team words ({@link identityOf}): MAIL_FROM's display name, when it is
 * more than support words (a "Support" of ours says nothing a customer's helpdesk does not), is compared whole by
 * equality (「XYZ サポートセンター」 for 「XYZサポート」); the product name needs a support word beside it and nothing else
 * (「XYZ カスタマーサポート」). A customer who names the product or our company (「佐藤 (XYZ セキュリティ担当)」,
 * 「XYZ販売店 サポート窓口」, "Bob (XYZ admin)", "Acme Japan 山田") keeps a part of the name that is theirs, and is none.
 */
function imitationDetail(mail: ClassifiableMail, config: ParkConfig): string | undefined {
  const name = mail.from?.name ? comparableDisplayName(mail.from.name) : '';
  const from = mail.from?.address;
  if (name === '' || !from) return undefined;
  const mailboxes = ownMailboxesOf(config);
  if (ownMatcher(mailboxes)(from) || ownDomainOf(from, mailboxes) !== undefined) return undefined;
  const ourIdentity = identityOf(comparableDisplayName(parseAddressList(config.MAIL_FROM ?? '')[0]?.name ?? ''));
  const withoutProduct = withoutWhole(name, comparableDisplayName(config.PRODUCT_NAME ?? ''));
  // Beside the product name, nothing but support words, or MAIL_FROM's name ("Acme XYZ Support" for "Acme Support").
  const restBesideProduct = withoutProduct === undefined ? undefined : identityOf(withoutProduct);
  const claim =
    withoutProduct !== undefined && new RegExp(SUPPORT_WORDS.source, 'iu').test(withoutProduct) && (restBesideProduct === '' || restBesideProduct === ourIdentity)
      ? `the product name ${quoted(config.PRODUCT_NAME ?? '')}`
      : ourIdentity !== '' && identityOf(name) === ourIdentity
        ? `MAIL_FROM's name ${quoted(parseAddressList(config.MAIL_FROM ?? '')[0]!.name)}`
        : undefined;
  if (!claim) return undefined;
  return `the sender's name 「${quoted(mail.from!.name)}」 presents it as our own support (${claim}), from ${domainOf(from)}, not our domain: possibly phishing that imitates us; a person checks it`;
}

// More recipients than a person's question is sent to: a circular to customers or partners.
const CIRCULAR_RECIPIENTS = 20;
// A subject that is a notice whole: 「年末年始休業のお知らせ」, 「【重要】システムメンテナンスのご案内（12/5）」, read in
// NFKC; bracketed tags before it and a bracketed note after it allowed. 「お知らせメールが届きません」 is a question.
const NOTICE_SUBJECT = /^(?:[【\[<〈《][^】\]>〉》\n]{1,12}[】\]>〉》]\s*)*[^\n]{0,60}?(?:お知らせ|ご案内|ご通知|お詫び)(?:\s*[(【\[][^)】\]\n]{0,30}[)】\]])?\s*$/u;
// A notice's subject is short; a longer one is a customer's sentence, and is not read.
const MAX_NOTICE_SUBJECT_CHARS = 120;
// A salutation to all of a group: お取引先各位, 関係者各位, お客様各位.
const ALL_SALUTATION = /^[\p{L}\p{N}・ ]{1,20}各位[、,。]?$/u;

/** How many distinct addresses To and Cc name; read from {@link ReplySignals.recipientCount} when recorded. */
function recipientCountOf(mail: ClassifiableMail): number {
  if (mail.recipientCount !== undefined) return mail.recipientCount;
  return new Set([...(mail.to ?? []), ...(mail.cc ?? [])].map(({ address }) => comparableAddress(address) ?? address)).size;
}

/**
 * Why a new mail is a circular: it names more than {@link CIRCULAR_RECIPIENTS} addresses in To and Cc, or its subject
 * is a notice's whole ({@link NOTICE_SUBJECT}) and one of its first lines a 各位 salutation. A reply is none: a
 * customer answering a thread many are copied on asks something.
 */
function circularDetail(mail: ClassifiableMail): string | undefined {
  if (isReply(mail)) return undefined;
  const count = recipientCountOf(mail);
  if (count > CIRCULAR_RECIPIENTS) return `a new mail to ${count} recipients (To and Cc)`;
  const subject = mail.subject?.trim() ?? '';
  if (subject === '' || subject.length > MAX_NOTICE_SUBJECT_CHARS || !NOTICE_SUBJECT.test(subject.normalize('NFKC'))) return undefined;
  const salutation = openingLines(mail.question ?? '', NOTICE_LINES)
    .map((line) => line.text.normalize('NFKC').replace(/\s+/gu, ' ').trim())
    .find((line) => ALL_SALUTATION.test(line));
  return salutation ? `the subject 「${quoted(subject)}」 is a notice's, addressed to 「${quoted(salutation.replace(/[、,。]$/u, ''))}」` : undefined;
}

// Reading a thank-you or an acknowledgement. The customer's own words (greetings are kept, quotes and signatures are
// not) are cut into phrases at line breaks and sentence or clause punctuation, and every phrase must be one of a
// closed list below: anything else ("ただ、まだエラーが出ます", "but it still fails") is something to answer. Phrases
// are compared in NFKC, lower case, with the marks between words (brackets, emoji, "^^") read as spaces.
// 「いつもありがとうございます」 opens a letter as 「いつもお世話になっております」 does: a greeting, thanks for nothing in
// particular. A courtesy, so that a reply of it and a closing under a new subject (the request) is answered.
const GREETING_THANKS = String.raw`(?:(?:本当に|誠に|大変) ?)*いつも ?(?:(?:本当に|誠に|大変|どうも) ?)*(?:ありがとう|有難う|有り難う)(?:ございます|御座います)?`;
// Thanks and acknowledgements: at least one of them makes the mail an acknowledgement.
const ACKNOWLEDGING_PHRASES: readonly RegExp[] = [
  // ありがとうございました, 早速のご回答ありがとうございます, ご丁寧なご回答をいただき誠にありがとうございました
  new RegExp(
    String.raw`^(?!${GREETING_THANKS}$)(?:(?:本当に|誠に|大変|どうも|いつも|早速) ?)*(?:(?:(?:お|ご)?(?:回答|返信|返答|返事|連絡|対応|教示|案内|説明|確認|手配|調査|支援|サポート|協力)|(?:早速の|迅速な|丁寧な|ご丁寧な|早急な|素早い|早い|詳しい|詳細な)(?:ご|お)?(?:回答|返信|返答|返事|連絡|対応|説明|案内)|ご丁寧に)(?:を|に)? ?(?:いただき|頂き|下さり|くださり|いただきまして|頂きまして|くださいまして|下さいまして)? ?)?(?:(?:本当に|誠に|大変|どうも) ?)?(?:ありがとう|有難う|有り難う|ありがと)(?:ございます|ございました|御座います|御座いました)?$`,
    'u',
  ),
  /^(?:大変|本当に|とても|非常に)?助かりました$|^感謝(?:いたします|致します|しております|申し上げます|です)$|^お騒がせ(?:しました|いたしました|致しました)$/u,
  // 承知しました, 確認いたしました, かしこまりました, 了解です; what was received before it: メール拝受いたしました,
  // 資料を受領しました, ご回答拝見しました.
  /^(?:(?:メール|(?:ご|お)?(?:連絡|回答|返信|返答|案内|説明|送付)|内容|資料)(?:を)? ?)?(?:承知|了解|確認|拝見|拝受|受領|把握)(?:しました|いたしました|致しました|です|しております|いたしております)$|^(?:かしこまりました|承りました|わかりました|分かりました|了解)$/u,
  // 解決しました, 無事に変更できました, 直りました: the customer reports success. Only these verbs: "再現できました"
  // (the fault showed again) is news to answer.
  // A purpose may come first: 「ご案内の方法で解決しました」, 「ご教示いただいた手順で」, 「ご案内どおりに設定できました」.
  /^(?:おかげさまで|お陰様で|おかげで)? ?(?:(?:ご|お)?(?:案内|教示|説明|回答|指示|指摘|連絡)(?:いただいた|頂いた|くださった|下さった|の)?(?:方法|手順|設定|やり方|通り|とおり|どおり)(?:で|に)? ?)?(?:無事に?|問題なく|正常に)? ?(?:(?:解決|解消)(?:しました|いたしました|致しました)|(?:解決|解消|変更|設定|登録|削除|解除|ログイン|ダウンロード|インストール|確認|送信|受信|保存|印刷|出力|復旧|接続|再設定|更新|表示)?(?:できました|出来ました)|直りました|治りました|動きました|動作(?:しました|いたしました|致しました|しております|しています|いたしております|致しております)|うまくいきました|上手くいきました|使えるようになりました)$/u,
  /^(?:早速)?(?:試して|やって|確認して)(?:みます|見ます)$|^(?:もう|これで)?大丈夫(?:です|そうです)$/u,
  // 社内で確認のうえ、改めてご連絡いたします, 内容確認のうえ…: the customer will write again when they have something to say.
  /^(?:(?:社内|こちら|弊社|当社|部内)で ?)?(?:(?:(?:内容|詳細|資料|メール)(?:を)? ?)?(?:確認|検討|相談|共有)(?:の上|のうえ|した上で|したうえで|して|させていただき|いたしまして|し) ?)?(?:改めて|あらためて|後ほど|のちほど|追って|また) ?(?:ご連絡|ご返信|ご報告|連絡|返信)(?:を)?(?:いたします|致します|します|させていただきます|させて頂きます|差し上げます)$/u,
  // thanks, thank you so much for your help, ok thanks, much appreciated
  /^(?:(?:ok|okay|great|perfect|awesome|excellent|brilliant|wonderful|super) )?(?:thanks|thank you|thx|ty|many thanks|much appreciated|appreciated|(?:i )?(?:really )?appreciate it)(?: (?:so|very) much| a lot| a ton| again| everyone| all| team)*(?: for (?:(?:all )?(?:your|the) )?(?:(?:quick|fast|prompt|kind|detailed|speedy|swift|great) )?(?:help|reply|response|answer|support|assistance|explanation|information|info))?(?: (?:so|very) much| again)?$/u,
  // that fixed it, it works now, problem solved, got it, ok
  // 감사합니다, 정말 고맙습니다, 감사드립니다
  /^(?:(?:정말|진심으로|너무|대단히|매우|다시 한번|다시 한 번) )*(?:감사|고맙)(?:합니다|해요|드립니다|드려요|했습니다|습니다)$/u,
  // 네, 확인했습니다, 알겠습니다; 덕분에 해결되었습니다, 잘 해결됐어요: the customer reports success. Not 해결되지 않았습니다.
  /^(?:네|예|넵)$|^(?:(?:네|예) )?(?:(?:잘 )?(?:확인|이해)(?:했습니다|했어요|하였습니다)|(?:잘 )?알겠습니다|알겠어요)$/u,
  /^(?:덕분에 )?(?:(?:잘|무사히|문제 ?없이) )?(?:해결|처리|설정|변경)(?:되었습니다|됐습니다|되었어요|됐어요|했습니다|했어요|할 수 있었습니다)$/u,
  // 谢谢, 非常感谢, 謝謝您, 多谢: thanks in Chinese, simplified and traditional.
  /^(?:非常|十分|万分|萬分|太|真的|真是|再次)?(?:感谢|感謝|谢谢|謝謝|多谢|多謝)(?:您|你|你们|你們|您们|您們|大家)?(?:的(?:帮助|幫助|回复|回覆|解答|支持))?(?:了|啦)?$/u,
  // 收到, 好的, 明白了; 问题已经解决了, 已解決: acknowledged, or solved. Not 还没有解决 or 没有解决.
  /^(?:收到|好的|好|明白|了解|知道|清楚)(?:了|啦)?$|^(?:问题|問題)?(?:已经|已經|已)(?:解决|解決)(?:了)?$|^(?:问题|問題)(?:解决|解決)了$/u,
  /^(?:(?:ok|okay|great|perfect|awesome|excellent|brilliant|wonderful|super|good) )?(?:(?:that|this|it) (?:fixed it|fixed the (?:issue|problem)|worked|solved it|solved the (?:issue|problem)|did it|did the trick|helped)(?: (?:perfectly|fine|great|now))?|(?:it's |it is )?working (?:now|again|fine now|fine)|(?:it )?works (?:now|again|fine|fine now|perfectly)|(?:problem|issue) (?:solved|resolved|fixed)|all (?:good|sorted|set|working)(?: now)?|got it|understood|noted|will do|(?:i'll|i will) (?:try|give) (?:that|it)(?: a try)?|sounds good|solved|resolved|fixed|that's (?:all|everything) (?:we|i) (?:needed|need|wanted|needed to know|wanted to know)|that (?:answers|answered) (?:it|everything|my question|our question|my questions|our questions)|(?:we|i)(?:'ll| will) (?:check (?:internally|with (?:the|my|our) team) and )?get back to you(?: (?:soon|later|if needed|if we need anything))?)$|^(?:ok|okay|great|perfect|awesome|excellent|brilliant|wonderful|super)$/u,
  // es, de, pt, fr, vi, th (mail audit 7)
  ...MORE_ACKNOWLEDGING_PHRASES,
];
// Greetings, forms of address and closings: allowed beside a thanks, never enough alone.
const COURTESY_PHRASES: readonly RegExp[] = [
  /^(?:いつも|大変)?お世話に(?:なっております|なっています|なります)$|^お疲れ(?:様|さま)です$|^(?:こんにちは|こんばんは|おはようございます)$/u,
  new RegExp(String.raw`^${GREETING_THANKS}$`, 'u'),
  /^(?:(?:引き続き|今後とも|今後共|また何か(?:あれば|ありましたら)|何卒|どうぞ|また) ?)*(?:よろしく|宜しく)(?:お願い|おねがい)(?:します|いたします|致します|申し上げます)$|^以上(?:です|になります|となります)?$|^失礼(?:します|いたします|致します)$/u,
  // サポートご担当者様, サポートセンター御中: whom the mail addresses, never any word ending in 様 (前回と同様, 仕様).
  /^[\p{L}\p{N} ]{0,20}(?:(?:担当|担当者|担当の方|サポート|センター|デスク|窓口|係|チーム)(?: ?(?:様|さま|殿))|御中|各位)$/u,
  /^(?:hi|hello|hey|good (?:morning|afternoon|evening))(?: (?:there|all|everyone|team|support|support team|helpdesk|help desk|folks|guys))?$|^dear(?: [\p{L}']+){1,3}$/u,
  /^(?:(?:best|kind|warm|warmest|many) )?regards$|^(?:best|cheers|all the best|best wishes|sincerely|yours sincerely|yours truly)$|^have a (?:nice|good|great) (?:day|weekend)$/u,
  // 안녕하세요; a Korean letter's closing under the writer's name: 김민수 드림, 박지영 올림.
  /^(?:안녕하세요|안녕하십니까)$|^(?:\p{L}{1,20} ?){0,2}(?:드림|올림|배상)$/u,
  // 您好; a Chinese letter's closing: 此致 敬礼, 王伟 敬上, 祝好.
  /^(?:您好|你好|您們好|你们好|大家好)$|^(?:此致|敬礼|敬禮|祝好|顺祝商祺|順祝商祺)$|^(?:\p{Script=Han}{1,4} ?)?敬上$/u,
  ...MORE_COURTESY_PHRASES,
];
// A bound on what may read as a short acknowledgement: a longer text is a letter with something in it.
const MAX_ACKNOWLEDGEMENT_CHARS = 300;
const MAX_ACKNOWLEDGEMENT_PHRASES = 12;
// Attachments that say nothing by themselves: a signature, a key, a contact card. A screenshot or a file beside a
// "よろしくお願いします" is what the customer sends.
const PASSIVE_ATTACHMENTS = new Set([
  'application/pkcs7-signature',
  'application/x-pkcs7-signature',
  'application/pgp-signature',
  'application/pgp-keys',
  'text/vcard',
  'text/x-vcard',
  'text/directory',
]);

/**
 * The customer's own words of a reply that only thanks or acknowledges (「ありがとうございました。」, "Thanks, that
 * fixed it!", 「承知しました。試してみます。」 and the sender's name under it), or undefined. Read from
 * {@link ReplySignals.acknowledgement} when recorded, else from the parsed mail: a reply (In-Reply-To or References;
 * a new mail's subject may be the question), no attachment but a signature, key or contact card, no `?`/`？`, at most
 * {@link MAX_ACKNOWLEDGEMENT_CHARS} characters, and every phrase a thanks, an acknowledgement, a greeting, a closing or
 * the sender's name (its display name's words), with at least one thanks or acknowledgement.
 */
export function acknowledgementOf(mail: ClassifiableMail): string | undefined {
  if (mail.acknowledgement) return mail.acknowledgement;
  const words = mail.question?.trim() ?? '';
  if (words === '' || words.length > MAX_ACKNOWLEDGEMENT_CHARS || /[?？]/u.test(words) || !isReply(mail)) return undefined;
  if ((mail.attachments ?? []).some((attachment) => !PASSIVE_ATTACHMENTS.has(attachment.contentType))) return undefined;
  const phrases = phrasesOf(words);
  if (phrases.length === 0 || phrases.length > MAX_ACKNOWLEDGEMENT_PHRASES) return undefined;
  const names = nameWordsOf(mail.from?.name);
  let acknowledges = false;
  for (const phrase of phrases) {
    const kind = phraseKind(phrase, names);
    if (kind === undefined) return undefined;
    acknowledges ||= kind === 'acknowledging';
  }
  return acknowledges ? words : undefined;
}

/** `text` in the form the phrase lists compare: NFKC, lower case, curly apostrophes straight. */
function comparable(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/’/gu, "'");
}

/** The phrases of a text: cut at line breaks and sentence or clause marks, other marks read as spaces. */
function phrasesOf(text: string): string[] {
  return comparable(text)
    .split(/[\n。.!~〜…]+/u)
    .map((phrase) => phrase.replace(/[^\p{L}\p{N}\p{M}'、, ]+/gu, ' ').replace(/\s+/gu, ' ').trim())
    .filter((phrase) => /[\p{L}\p{N}]/u.test(phrase));
}

/** The words of the sender's display name (「山田 太郎」 → 山田, 太郎, 山田太郎), as {@link phrasesOf} writes them. */
function nameWordsOf(name: string | undefined): Set<string> {
  const words = comparable(name ?? '').split(/[^\p{L}\p{M}']+/u).filter((word) => word !== '');
  return new Set(words.length > 1 ? [...words, words.join('')] : words);
}

/**
 * Whether a phrase thanks or acknowledges, is a courtesy (a greeting, a closing, the sender's name), or neither: read
 * whole (a comma inside a sentence, 「ご回答をいただき、誠にありがとうございました」, left out), else as its clauses
 * ("thanks, that fixed it"), else as its words around spaces (Japanese sentences run on after a space as after a 。:
 * 「ありがとうございました 解決しました」).
 */
function phraseKind(phrase: string, names: ReadonlySet<string>): 'acknowledging' | 'courtesy' | undefined {
  const wholes = [...new Set([phrase.replace(/ ?[、,] ?/gu, ''), phrase.replace(/ ?[、,] ?/gu, ' ')])];
  if (wholes.some((whole) => ACKNOWLEDGING_PHRASES.some((pattern) => pattern.test(whole)))) return 'acknowledging';
  if (wholes.some((whole) => COURTESY_PHRASES.some((pattern) => pattern.test(whole)) || isSendersName(whole, names))) return 'courtesy';
  const parts = (/[、,]/u.test(phrase) ? phrase.split(/[、,]/u) : phrase.split(' ')).map((part) => part.trim()).filter((part) => part !== '');
  if (parts.length < 2) return undefined;
  const kinds = parts.map((part) => phraseKind(part, names));
  if (kinds.includes(undefined)) return undefined;
  return kinds.includes('acknowledging') ? 'acknowledging' : 'courtesy';
}

// A company's name before the sender's on a Japanese signature line (清水運輸 清水, (株)清水運輸 清水): kanji and
// katakana only, so that a sentence (まだエラーが出ます 清水) never reads as one, and with a company's mark or a
// business's ending ({@link COMPANY_MARK}, {@link BUSINESS_ENDING}): any other word before the name may be a request
// (見積書再送希望 清水, 至急確認依頼 清水), which a thank-you above it must not hide.
const COMPANY_WORD = /^[\p{Script=Han}\p{Script=Katakana}ー]{1,20}$/u;
// The mark of a company's legal form, before or after its name; (株) and ㈱ reach here as 株, their brackets dropped.
const COMPANY_MARK =
  /^(?:株|有)$|^(?:株式会社|有限会社|合同会社|合資会社|合名会社|有限責任|一般社団法人|一般財団法人|公益社団法人|公益財団法人|医療法人|学校法人|社会福祉法人)|(?:株式会社|有限会社|合同会社|合資会社|合名会社)$/u;
const BUSINESS_ENDING =
  /(?:運輸|運送|物流|商事|商店|商会|工業|産業|建設|工務店|物産|電機|電気|電子|製作所|精機|製薬|化学|食品|製菓|興業|販売|事務所|銀行|信用金庫|証券|保険|病院|医院|クリニック|薬局|不動産|技研|設計|システム|システムズ|サービス|ホールディングス|コーポレーション|グループ)$/u;
// A mark standing alone as a word, which names the word after it: 株 シミズ (from ㈱シミズ, (株)シミズ), 株式会社 シミズ.
const BARE_COMPANY_MARK = /^(?:株|有|株式会社|有限会社|合同会社|合資会社|合名会社)$/u;
// A request's, a task's or a status's words, never in a company's name: 見積書再送希望, 至急確認依頼, 再発行手続中,
// 領収書印刷, キャンセル受付, 返金. 中 and 済 only at the end (田中工業, 済生会病院 are names). A printing company
// (清水印刷) reads as a request too, and is answered: better than a request ignored.
const REQUEST_OR_STATUS_WORD =
  /希望|依頼|願|要望|手配|確認|対応|予定|至急|再送|郵送|発送|送付|返送|再発行|手続|申請|見積|請求|印刷|受付|キャンセル|返金|返品|返却|交換|解約|取消|取り消|[中済]$|済み/u;

/**
 * Whether the words before the sender's name on a signature line are their company's name: each a company's word
 * with no request in it, and each with a company's mark or a business's ending, or right after a mark standing alone
 * (株 シミズ, from ㈱シミズ). A mark names only its own word: 「株式会社清水運輸 返金」 holds a request.
 */
function isCompanyName(words: readonly string[]): boolean {
  return words.every(
    (word, at) =>
      COMPANY_WORD.test(word) &&
      (COMPANY_MARK.test(word) || BUSINESS_ENDING.test(word) || (at > 0 && BARE_COMPANY_MARK.test(words[at - 1]!))) &&
      !REQUEST_OR_STATUS_WORD.test(word) &&
      !CUSTOMER_TROUBLE.test(word),
  );
}

/**
 * The sender's name (「山田」, "taro yamada"), their self-introduction (「山田です」, 「カスタマーの山田です」), or a
 * signature line of their company's name and theirs (「清水運輸 清水」).
 */
function isSendersName(phrase: string, names: ReadonlySet<string>): boolean {
  if (names.size === 0) return false;
  const name = /^(?:[^ ]{1,20}の)?(.+?)(?:です|でございます)$/u.exec(phrase)?.[1] ?? phrase;
  if (name.split(' ').every((word) => names.has(word))) return true;
  const words = phrase.split(' ');
  const company = words.slice(0, -1);
  return company.length >= 1 && company.length <= 2 && names.has(words.at(-1)!) && isCompanyName(company);
}

// Longest part of the customer's words quoted in a reason.
const MAX_QUOTED_WORDS_CHARS = 80;

/** `text` on one line, cut to {@link MAX_QUOTED_WORDS_CHARS} characters with `…` when cut. */
function quoted(text: string): string {
  const chars = Array.from(text.replace(/\s+/gu, ' ').trim());
  return chars.length > MAX_QUOTED_WORDS_CHARS ? `${chars.slice(0, MAX_QUOTED_WORDS_CHARS).join('')}…` : chars.join('');
}

// A form field's label with nothing after it ("COMMENT:", "PAGE THEY WERE ON:", "お問い合わせ内容："): a web form sent
// with nothing filled in is its labels alone. A label is short and has no sentence punctuation; a line that says
// something after its colon ("Note: the export fails") is no label.
const EMPTY_FORM_FIELD = /^[ \t]*[\p{L}\p{N}][\p{L}\p{N}\p{M} _'’/&()-]{0,39}[:：][ \t\r]*$/gmu;

// A form field that says who wrote (Contact Form 7's 差出人, お名前, 会社名, メールアドレス, 電話番号, Name, Email), with a
// short value on its line: a name, an address, a number, never a sentence (no 。!? mark, four words at most once
// an <address> is left out; see namesTheSender). A form whose message field is empty is these alone: nothing to answer.
// The blanks after the colon are taken whole (`(?=(x*))\1`, an atomic group): given back one at a time to the value's
// blanks or the line's end, a line of 16,000 took ~8 s (ReDoS sweep, security review 15); the same lines match.
const IDENTITY_FORM_FIELD =
  /^[ \t]*(?:(?<channel>メールアドレス|メール|E-?mail(?: address)?|電話番号|電話|TEL|FAX|携帯電話|Phone(?: number)?)|差出人|送信者|お名前|名前|氏名|ご氏名|フリガナ|ふりがな|会社名|貴社名|御社名|法人名|団体名|組織名|部署名?|役職|(?:Your |Full |First |Last )?Name|From|Company(?: name)?|Organi[sz]ation)[ \t]*[:：](?=(?<blanks>[ \t]*))\k<blanks>(?<value>(?:<[^<>\n]{0,200}>|[^\s<>。!！?？\n]{1,60})?(?:[ \t　]+(?:<[^<>\n]{0,200}>|[^\s<>。!！?？\n]{1,60})){0,3})[ \t\r]*$/gimu;
// What a mail or phone field holds: an address or a number. A field the visitor left blank in words (なし, N/A, -)
// holds no letter of the customer's either.
const CONTACT_VALUE = /[@＠]|\p{Nd}{2}/u;
const LEFT_BLANK = /^[(（]?(?:なし|無し|未記入|未入力|特になし|n\/?a|none|-+|ー+)[)）]?$/iu;
// A predicate makes the value a sentence (「届きません」, 「通話中のまま切れない」, "not arriving since Monday"): a polite
// or plain verb ending, a negation, a wish. Names end in none of these; kana names (佐藤ゆかり, やまだ たろう) do not either.
const JA_PREDICATE = /(?:ません|ない|ます|ました|です|でした|たい|ください|下さい|ている|ていた|てる|かった|できず)(?=$|[\s、,])/u;
// English sentence words, in lower case: a name or company is capitalised ("Will Smith", "Can Do Inc.").
const EN_PREDICATE =
  /(?<![\p{L}'’])(?:not|never|cannot|can['’]t|won['’]t|doesn['’]t|don['’]t|didn['’]t|isn['’]t|aren['’]t|wasn['’]t|weren['’]t|hasn['’]t|haven['’]t|is|are|was|were|has|have|had|does|did|will|can|since|keeps?|stopped|fails?|failed|broken)(?![\p{L}'’])/u;

/**
 * True when a form field's `value` names the sender rather than says something: no predicate ({@link JA_PREDICATE},
 * {@link EN_PREDICATE}), and for a mail or phone field (`channel`) an address or a number, or a blank in words. A
 * terse mail's only line, 「メール：届きません」 or "Email: not arriving since Monday", is the customer's words.
 */
function namesTheSender(value: string, channel: boolean): boolean {
  // An address is no sentence, whatever words its local part spells (will@, not.reply@).
  const words = value.replace(/<[^<>\n]*>|\S*[@＠]\S*/gu, ' ').trim();
  if (JA_PREDICATE.test(words) || EN_PREDICATE.test(words)) return false;
  return !channel || words === '' || CONTACT_VALUE.test(value) || LEFT_BLANK.test(words);
}

/** `question` without its identity form fields ({@link IDENTITY_FORM_FIELD} lines whose value names the sender). */
function withoutIdentityFields(question: string): string {
  return question.replace(IDENTITY_FORM_FIELD, (line, ...args) => {
    const groups = args[args.length - 1] as { channel?: string; value?: string };
    return namesTheSender(groups.value ?? '', groups.channel !== undefined) ? '' : line;
  });
}

/**
 * Why a mail without a question ({@link hasQuestion} false) is parked, for the ticket and the review page: an empty
 * web form (labels, or only the sender's own details) or nothing at all.
 */
export function noQuestionReason(question: string): string {
  return /[\p{L}\p{N}]/u.test(question)
    ? `${NO_QUESTION_REASON} only form labels with nothing after them or the sender's own details (an empty web form)`
    : `${NO_QUESTION_REASON} empty subject and body`;
}

/**
 * True when the mail carries something to answer: its question (body, or subject as fallback) has at least one
 * letter or digit outside form labels that have nothing after them (an empty web form is no question), and outside
 * fields that only say who wrote ({@link IDENTITY_FORM_FIELD}: a web form whose message is empty names its sender). Kept apart
 * from {@link decideReply} because the pipeline checks it after rate limiting.
 */
export function hasQuestion(mail: Pick<InboundMail, 'question'>): boolean {
  return /[\p{L}\p{N}]/u.test(withoutIdentityFields(mail.question.replace(EMPTY_FORM_FIELD, '')));
}

// What a contact form writes as the subject when it has none of the customer's: the placeholder of an empty subject
// field (111c's 「XYZ "(件名なし)"」), or the form's name (お問い合わせ, お問い合わせフォームからの送信, Contact form,
// New submission) as a part beside the site's name.
const EMPTY_SUBJECT_PLACEHOLDER = /件名なし|無題|\bno subject\b|\buntitled\b/iu;
const FORM_NAME =
  /^(?:(?:お|ご)?問い?合わ?せ|ご相談|資料請求)(?:フォーム)?(?:(?:から|より)の?(?:送信|メール|お問い?合わ?せ))?$|^(?:contact(?: us)?|inquiry|enquiry)(?: form)?(?: submission| message| entry)?$|^new (?:form )?(?:submission|message|entry|inquiry|enquiry)$/iu;
const SUBJECT_PARTS = /\s*[-–—|:：/「」『』"“”【】[\]()（）]\s*/u;

/**
 * True when the customer asks only in the subject: the words are contact fields alone (no question by
 * {@link hasQuestion}, yet not empty) and the subject is the customer's, not a form's title ({@link FORM_NAME},
 * {@link EMPTY_SUBJECT_PLACEHOLDER}). Such a mail is asked about by its subject, as one of greetings only is (the caller
 * reads the subject without reply prefixes, and only for a mail that replies to nothing).
 */
export function asksOnlyInSubject(question: string, subject: string): boolean {
  const words = /[\p{L}\p{N}]/u;
  if (!words.test(question) || hasQuestion({ question }) || !words.test(subject)) return false;
  if (EMPTY_SUBJECT_PLACEHOLDER.test(subject)) return false;
  return !subject.split(SUBJECT_PARTS).some((part) => FORM_NAME.test(part.trim()));
}

/** True when `domain` is `parent` or a subdomain of it (whole labels: `evilshop.example` is not under `shop.example`). */
export function isSameOrSubdomain(domain: string, parent: string): boolean {
  return parent !== '' && (domain === parent || domain.endsWith(`.${parent}`));
}

// Microsoft 365 names each tenant's own mail domain under these (contoso.onmicrosoft.com, and
// contoso.mail.onmicrosoft.com for routing), yet they are not in the Public Suffix List: without them every tenant
// would be one organisation.
const TENANT_SUFFIXES: readonly string[] = ['mail.onmicrosoft.com', 'onmicrosoft.com'];

// The Public Suffix List with its private section (github.io, blogspot.com: each customer's name is its own); names
// come already in domainOf's form, and a label a hostname may not have (`_dmarc`, a typo in a header) still counts.
const PUBLIC_SUFFIX_OPTIONS = { allowPrivateDomains: true, extractHostname: false, validateHostname: false } as const;

// A domain as domainOf writes it: lower-case ASCII labels, none empty, no root dot.
const ASCII_DOMAIN = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;

/**
 * The domain an organisation registered, by the Public Suffix List: `mail.shop.co.jp` → `shop.co.jp`,
 * `www.city.tokyo.jp` → `city.tokyo.jp`, `alice.github.io` → itself, `bounce.esp.net` → `esp.net`; under a TLD the
 * list does not know (`.example`, `.test`) the last two labels. Written as `domainOf` writes a domain (lower case, IDN
 * as punycode). A public suffix (`co.jp`, `github.io`) or an address literal (`[192.0.2.1]`) is no organisation's and
 * names itself, so it differs from every organisation under it; '' stays ''.
 */
export function organisationDomain(domain: string): string {
  // Callers pass domainOf's output already, which its IDN conversion would take four times the lookup to confirm.
  const name = ASCII_DOMAIN.test(domain) ? domain : domainOf(`@${domain}`);
  if (name.startsWith('[') || TENANT_SUFFIXES.includes(name)) return name;
  const tenantSuffix = TENANT_SUFFIXES.find((suffix) => name.endsWith(`.${suffix}`));
  if (tenantSuffix !== undefined) {
    const tenant = name.slice(name.lastIndexOf('.', name.length - tenantSuffix.length - 2) + 1, -tenantSuffix.length - 1);
    // The tenant's routing domain (contoso.mail.onmicrosoft.com) is the same organisation as contoso.onmicrosoft.com.
    return `${tenant}.onmicrosoft.com`;
  }
  return getDomain(name, PUBLIC_SUFFIX_OPTIONS) ?? name;
}

// Local parts of Unix system and service accounts: what a web server, a cron job or a daemon sends as, never a person.
const SYSTEM_ACCOUNTS = new Set([
  'anonymous', 'nobody', 'root', 'daemon', 'bin', 'www', 'www-data', 'wwwrun', 'apache', 'apache2', 'httpd', 'nginx',
  'lighttpd', 'postgres', 'mysql', 'mailman', 'cron', 'nagios', 'zabbix', 'jenkins',
]);
// A mail service's bounce handling in an envelope sender: `bounce`, `bounces` or `bnc` as a word of the local part
// (bounces+123@, bounce-mc.us5_…@) or as a label of the domain (…@bounce.esp.example, …@bnc3.esp.example).
const BOUNCE_WORD = /^(?:bounces?|bnc)\d*$/;
// Forwarders' SRS and BATV signatures write `=` into a person's envelope sender, as VERP does: not bulk.
const SIGNED_ENVELOPE = /^(?:srs[01]|prvs|msprvs\d*|btv1)=/;
// A machine-made id as long as no one's name: 16 letters and digits at least, 6 of them digits (Amazon SES's
// 0100018b2f…, ESPs' tracking ids).
const MACHINE_ID = /[a-z0-9]{16,}/g;

/**
 * VERP (D. J. Bernstein): the recipient encoded after the last `=` of the envelope sender's local part,
 * `…-taro=customer.example@…`, so that each bounce names whom it is about.
 */
function encodesRecipient(local: string): boolean {
  const eq = local.lastIndexOf('=');
  return eq > 0 && /^[\w-]+(?:\.[\w-]+)+$/.test(local.slice(eq + 1)) && /[-+.]./.test(local.slice(0, eq));
}

function isMachineId(local: string): boolean {
  return (local.match(MACHINE_ID) ?? []).some((run) => (run.match(/\d/g)?.length ?? 0) >= 6);
}

/** True when an envelope sender is a mail service's bounce address: a bounce word or label, VERP, a machine id. */
function isBounceHandler(address: string): boolean {
  const local = localPart(address);
  if (SIGNED_ENVELOPE.test(local)) return false;
  const words = local.split(/[-_.+=]/);
  const labels = domainOf(address).split('.');
  return words.some((w) => BOUNCE_WORD.test(w)) || labels.some((l) => BOUNCE_WORD.test(l)) || encodesRecipient(local) || isMachineId(local);
}

/**
 * Why a mail looks like bulk mail (a newsletter, a mailing, a machine's notification) though it writes no List-*
 * field, naming the header and its value; undefined when nothing says so:
 * - an envelope sender (the topmost Return-Path) that is a mail service's bounce address (a `bounce`/`bounces`/`bnc`
 *   word or domain label, VERP, a machine id) on another organisation's domain than From;
 * - an `Errors-To` field, which mail clients never write and list and bulk software still does;
 * - a From or Return-Path that is a system account (`www-data@`, `root@`, `anonymous@`, `nobody@`…);
 * - a mass-mailing service's header naming a campaign ({@link CAMPAIGN_HEADERS}: X-Campaign, X-MC-User…);
 * - what the parser found in the mail's own text ({@link ReplySignals.massMailing}): an unsubscribe link in the
 *   footer, a line in the wording only mass mail uses, an unsubscribe URL among many links or beside a tracking pixel;
 * - a Reply-To, other than From, that is a machine-made address (a long machine id, or a number too long for a phone
 *   number): a mail service's reply tracking, no person's mailbox, whatever its domain.
 *
 * None of them is strong enough to ignore the mail: a contact form on a customer's website is sent through the same
 * mail services (a VERP Return-Path on their domain) or by the web server itself (`www-data@`), by old form mailers
 * with an `Errors-To`, with the customer in Reply-To, and its question must reach a person. The agent worker
 * therefore parks the draft, which an operator sends with one click. Ignored here: the envelope of mail through our
 * own group, which describes the group's delivery and not the sender, and its text, whose footer the group writes
 * ("To unsubscribe from this group…"); only for mail the receiving server authenticated as the group's
 * ({@link OwnMailboxes}), since anyone can write list headers naming our address.
 */
export function bulkMailDetail(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
  const isOurs = ownMatcher(mailboxes);
  const viaOwnGroup = ownGroupVerdict(mail, mailboxes, isOurs).verified;
  const returnPath = viaOwnGroup ? undefined : normaliseAddress(values(mail, 'return-path')[0]);
  const fromDomain = mail.from ? organisationDomain(domainOf(mail.from.address)) : '';
  if (returnPath && !isOurs(returnPath) && isBounceHandler(returnPath) && organisationDomain(domainOf(returnPath)) !== fromDomain) {
    return `Return-Path <${returnPath}> on another domain than From`;
  }
  const errorsTo = viaOwnGroup ? undefined : values(mail, 'errors-to').find((v) => v.trim() !== '');
  if (errorsTo !== undefined) return `Errors-To: ${errorsTo.trim()}`;
  if (mail.from && SYSTEM_ACCOUNTS.has(localPart(mail.from.address))) return `From <${mail.from.address}> is a system account`;
  if (returnPath && SYSTEM_ACCOUNTS.has(localPart(returnPath))) return `Return-Path <${returnPath}> is a system account`;
  const campaign = campaignHeaderDetail(mail);
  if (campaign) return campaign;
  if (mail.massMailing && !viaOwnGroup && !isServiceSendingForPerson(mail, mail.massMailing, isOurs)) return mail.massMailing;
  const unsolicited = unsolicitedDetail(mail);
  if (unsolicited) return unsolicited;
  // In a reply to ours the acknowledgement is ignored as an auto-reply; elsewhere the same words might stand above a
  // person's, so the draft waits for one.
  const ticketAcknowledgement = ticketAcknowledgementOf(mail);
  if (ticketAcknowledgement) return `a ticket system's acknowledgement (“${quoted(ticketAcknowledgement)}”): another helpdesk's automatic receipt, not a person's question`;
  const replyTo = mail.replyTo?.address;
  if (replyTo && comparableAddress(replyTo) !== (mail.from ? comparableAddress(mail.from.address) : undefined) && isMachineAddress(localPart(replyTo))) {
    return `Reply-To <${replyTo}> is a machine-made address, no person's`;
  }
  return undefined;
}

/**
 * True when the only sign of mass mail is a do-not-reply line ({@link DO_NOT_REPLY_EVIDENCE}) and a reply goes to a
 * person elsewhere: a form or CRM service (formrun, a customer's CRM) sends from its own do-not-reply mailbox for the
 * person in Reply-To. That person is no noreply, machine-made or our own address, and either the line names them
 * (「ご返信は r.nakamura@… までお願いいたします」) or they are on another organisation's domain than the From (a payment
 * service's Reply-To to its own helpdesk stays a sign).
 */
function isServiceSendingForPerson(mail: ClassifiableMail, evidence: string, isOurs: (address: string | undefined) => boolean): boolean {
  const replyTo = mail.replyTo?.address;
  const from = mail.from?.address;
  if (!evidence.startsWith(DO_NOT_REPLY_EVIDENCE) || !replyTo || !from || isSameMailbox(replyTo, from)) return false;
  if (!isUsableAddress(replyTo) || isNoReplyAddress(replyTo) || isMachineAddress(localPart(replyTo)) || isOurs(replyTo)) return false;
  return evidence.toLowerCase().includes(replyTo.toLowerCase()) || organisationDomain(domainOf(replyTo)) !== organisationDomain(domainOf(from));
}

// The opener of a first contact from a stranger: 「突然のご連絡失礼いたします」, 「突然のメールにて失礼します」,
// 「突然ご連絡を差し上げる失礼をお許しください」. Read at the start of a line of the mail's first lines.
const COLD_OPENER = /(?:^|[\n。])[ \t　]*(突然(?:の)?(?:ご連絡|メール|お便り|ご案内)(?:に ?て|で|を)?(?:大変)?(?:失礼|申し訳)[^\n。]{0,12}|突然(?:の)?ご連絡(?:を)?差し上げ[^\n。]{0,16})/u;
// The English cold email's: "I hope this email finds you well" with "reaching out" near it.
const COLD_OUTREACH_EN = /\bI hope (?:this|my) (?:e-?mail|message|note) finds you well\b/iu;
const REACHING_OUT = /\b(?:reaching out|reach out)\b/iu;
// How far into the mail's words an opener is looked for: a pitch opens with it, below an address line or two.
const OPENER_CHARS = 400;
// An opener alone does not make a pitch: a first-time customer writes 突然のご連絡 or "I hope this email finds you
// well" too. A pitch offers the sender's own business (弊社では…, ご提案, ご紹介, 無料, サービスのご案内, "our
// solution", "we help companies") and asks for the reader's time (お打ち合わせ, 情報交換, お時間をいただけ, "a quick
// call", "15 minutes"); a customer asks about our product or their problem. PITCH_SIGN is either half; PITCH_ASK is
// what a pitch's questions ask for: the reader's time, interest or need (お困りではございませんか), never information.
const PITCH_SIGN = new RegExp(
  [
    String.raw`弊社(?:では|は|の(?:サービス|製品|ソリューション))|ご提案|ご紹介(?:可能|させて|いたし|致し|します)|無料|(?:サービス|製品)のご案内|ご案内させて|実績が(?:ございます|あります)`,
    String.raw`お打ち?合わせ|情報交換|お時間を(?:いただ|頂)|商談|面談`,
    String.raw`\bour (?:solution|platform|service|product|agency|team|company)s?\b|\bwe (?:help|work with|partner with|specialize in|specialise in)\b`,
    String.raw`\b(?:schedule|book|set up|hop on|jump on) a (?:quick |short |brief )?(?:call|meeting|demo|chat)\b|\b\d+ minutes\b`,
  ].join('|'),
  'iu',
);
const PITCH_ASK =
  /お打ち?合わせ|情報交換|お時間|機会|面談|商談|ご興味|ご関心|お困り|ご検討|ご都合|日程|\b(?:a|quick|short|brief) (?:call|chat)\b|\b(?:meeting|demo|minutes|interested|open to)\b/iu;
// 「ご査収ください」: "please find the enclosed and accept it", what a vendor writes over a quote or an invoice.
const PLEASE_ACCEPT = /ご査収/u;
const DOCUMENT_ATTACHMENT = /^application\/(?:pdf|vnd\.openxmlformats-officedocument\.|vnd\.ms-excel|msword)/u;

/**
 * Why a mail reads as unsolicited business mail rather than a question about our product, or undefined. Only a new mail
 * (no In-Reply-To or References: a reply sends what we asked for): one that opens as a stranger's pitch does
 * ({@link COLD_OPENER}, "I hope this email finds you well … reaching out") and pitches ({@link isPitch}: it offers and
 * asks for nothing but the reader's time), or one with 「ご査収」 beside an attached document that asks nothing (a
 * vendor's quote or invoice; a customer's order asks when it ships). A first-time customer may write all of these, so
 * this only holds the draft for a person ({@link bulkMailDetail}). Read from {@link ReplySignals.unsolicited} when
 * recorded, else from the parsed mail.
 */
export function unsolicitedDetail(mail: ClassifiableMail): string | undefined {
  if (mail.unsolicited) return mail.unsolicited;
  const words = mail.question ?? '';
  // A reply is in a thread we are part of: the customer sends what we asked for (a log in Excel 「ご査収ください」).
  if (words === '' || isReply(mail)) return undefined;
  const questions = questionSentences(words);
  const opening = words.slice(0, OPENER_CHARS);
  if (isPitch(words, questions)) {
    const opener = COLD_OPENER.exec(opening)?.[1];
    if (opener) return `an unsolicited first contact (「${quoted(opener.replace(/[、,]$/u, ''))}」): how sales, recruiting and seminar pitches open, though a first-time customer may write so too`;
    const outreach = COLD_OUTREACH_EN.exec(opening)?.[0];
    if (outreach && REACHING_OUT.test(opening)) return `an unsolicited first contact (“${outreach} … reaching out”): how a cold sales email opens`;
  }
  // A vendor sends a quote or an invoice and asks nothing; a customer's order or form beside 「ご査収」 asks when it
  // ships or whether we take it.
  const document = (mail.attachments ?? []).find((attachment) => DOCUMENT_ATTACHMENT.test(attachment.contentType) || /\.(?:pdf|xlsx?|docx?)$/iu.test(attachment.filename ?? ''));
  if (document && PLEASE_ACCEPT.test(words) && questions.length === 0) {
    return `「ご査収」 beside an attached document (${quoted(document.filename ?? document.contentType)}): a vendor's quote or invoice rather than a question`;
  }
  return undefined;
}

/**
 * Whether a new mail's words pitch ({@link PITCH_SIGN}) and ask nothing but the reader's time or need
 * ({@link PITCH_ASK}): any other question (how, how much, why an error) is a customer's.
 */
function isPitch(words: string, questions: readonly string[]): boolean {
  return PITCH_SIGN.test(words) && questions.every((question) => PITCH_ASK.test(question));
}

// Longest header value quoted in a reason.
const MAX_HEADER_VALUE_CHARS = 80;

/** The first campaign header ({@link CAMPAIGN_HEADERS}) with a value, as `a mass-mailing service's campaign header (X-MC-User: …)`. */
function campaignHeaderDetail(mail: ClassifiableMail): string | undefined {
  for (const [name, label] of CAMPAIGN_HEADERS) {
    const value = values(mail, name).find((v) => v.trim() !== '');
    if (value !== undefined) return `a mass-mailing service's campaign header (${label}: ${value.trim().slice(0, MAX_HEADER_VALUE_CHARS)})`;
  }
  return undefined;
}

// A local part of digits and separators only (`44.41.17.14.11.2010.1139.1.328.1477949.614`) with more digits than any
// phone number has (E.164: 15 at most), so that a mobile address such as 09012345678@ is a person's.
const LONG_NUMBER_ID = /^[\d.+=_-]+$/;
const MIN_NUMBER_ID_DIGITS = 16;

/** True for a local part no person chose: a long machine id ({@link isMachineId}), or a number longer than a phone's. */
function isMachineAddress(local: string): boolean {
  return isMachineId(local) || (LONG_NUMBER_ID.test(local) && (local.match(/\d/g)?.length ?? 0) >= MIN_NUMBER_ID_DIGITS);
}

// The methods of an Authentication-Results field whose failure says the sender is not who From claims: DMARC (the
// From domain itself) and SPF (the envelope sender's host). Soft results (softfail, neutral) say too little, and a
// DKIM failure alone is what a list that edits the mail causes.
const SENDER_CHECKS = new Set(['dmarc', 'spf']);
// Longest part of a result's properties quoted in a reason.
const MAX_RESULT_CHARS = 160;
// Longest Authentication-Results field read (security review 12). Real receivers write a few hundred bytes (Gmail,
// Microsoft 365, Stalwart, rspamd) to a few KB (a mail with several signatures, each result with its selector and
// header.b); a longer field holds text the sender chose, and reading a megabyte of it cost seconds at every check.
const MAX_AUTHENTICATION_RESULTS_CHARS = 16 * 1024;

/** One result of an Authentication-Results field (RFC 8601): `dkim=pass header.d=shop.example`. */
interface AuthenticationResult {
  /** The method, lower case: `dkim`, `spf`, `dmarc`… */
  method: string;
  /** The result, lower case: `pass`, `fail`, `none`… */
  result: string;
  /** The properties as written, comments removed, for a reason. */
  properties: string;
  /** The properties by lower-case name (`header.d`, `header.i`, `header.from`, `smtp.mailfrom`), values lower case. */
  props: Map<string, string>;
}

/**
 * One Authentication-Results field as read: its results in their order, and why it cannot be read one way only.
 * Receiving servers copy text the sender chose into their own field without escaping it: the envelope sender in
 * Gmail's spf comment and in `smtp.mailfrom`, a DKIM selector in `header.s`. A quoted local part may hold `(`, `)`,
 * `"`, `;` and spaces, so `"x(y"@evil.example` leaves a comment open that swallows the server's `dmarc=fail`, and
 * `"a);dmarc=pass header.from=bank.example;x"@evil.example` writes a result of its own (security review 10).
 */
interface AuthenticationReading {
  results: AuthenticationResult[];
  /** Why the field cannot be read unambiguously (`an unclosed comment`, `more than one dmarc result`…), or undefined. */
  unreadable?: string;
}

// A result element: the method, its result, and what follows (properties, a reason).
const RESULT_ELEMENT = /^\s*([\w.-]+)\s*=\s*([\w-]+)(.*)$/s;
// An element of a domain name alone: Exchange Online's 2019-21 form writes the tenant's domain after a result
// (`smtp.mailfrom=163.com; contoso.onmicrosoft.com; dkim=…`). It says nothing; any other element that is no result
// (two words, a quote, a parenthesis) may be the sender's text and leaves the field unreadable.
const BARE_DOMAIN_ELEMENT = /^\s*[a-z\d-]+(?:\.[a-z\d-]+)*\.[a-z]{2,}\.?\s*$/iu;
// Amazon SES's inbound field writes the client's address, the envelope sender and the HELO name as elements of their
// own (`client-ip=…; envelope-from=taro@shop.example; helo=…`): one word each, no result, saying nothing.
const SES_ELEMENT = /^\s*(?:client-ip|envelope-from|helo)\s*=\s*[^\s;]+\s*$/i;
// The methods whose results carry a signature's selector and data (header.s, header.b): dkim, dkim-atps, domainkeys,
// and a verifier's own for other signature fields (authentication-milter's x-google-dkim, for Gmail's
// X-Google-DKIM-Signature).
const SIGNATURE_METHOD = /dkim|domainkeys/;
// The properties that name a signature: its identity, domain, selector and data.
const SIGNATURE_PROPERTIES = ['header.i', 'header.d', 'header.s', 'header.b'] as const;
// Of those, the methods whose result names the signature's identity in header.i, read as a dkim result's: dkim and a
// verifier's own x-…dkim. dkim-adsp and domainkeys name the author's address in header.from (RFC 5617).
const SIGNING_IDENTITY_METHOD = /^(?:dkim|x-[\w-]*dkim)$/;
// The identities an spf result may name beside the envelope sender's, each checked once at most: the HELO name
// (Stalwart's EHLO check) and the purported responsible address (Cisco Secure Email writes `spf=None smtp.pra=…`).
const SPF_OTHER_IDENTITIES = ['smtp.helo', 'smtp.pra'] as const;
// The methods of which a field holds one result: a second, or one inside a comment or quoted string, is the sender's.
const SINGLE_RESULT_METHODS = ['dmarc', 'spf'] as const;

/**
 * An Authentication-Results field read fail-closed ({@link AuthenticationReading}): unreadable when its parentheses or
 * quotes do not pair up, an element after the authserv-id is no result, a property's value holds a quote or a
 * parenthesis (a quoted local part echoed raw) or comes twice in one result, it has more than one dmarc or spf result,
 * or a `; dmarc=fail` or `; spf=fail` in its text is not among the results read (hidden in a comment or quoted string);
 * and, without reading it, when it is longer than any receiving server writes ({@link MAX_AUTHENTICATION_RESULTS_CHARS}),
 * with no results. Linear in the field's length.
 */
function readAuthenticationResults(field: string, dkimSignatures?: number): AuthenticationReading {
  if (field.length > MAX_AUTHENTICATION_RESULTS_CHARS) {
    return { results: [], unreadable: `a field of ${field.length} characters, more than any receiving server writes (${MAX_AUTHENTICATION_RESULTS_CHARS} read at most)` };
  }
  const results: AuthenticationResult[] = [];
  let unreadable = unpairedSyntax(field);
  for (const resinfo of resultElements(field)) {
    if (/^\s*(?:none\s*)?$/i.test(resinfo) || BARE_DOMAIN_ELEMENT.test(resinfo) || SES_ELEMENT.test(resinfo)) continue;
    const match = RESULT_ELEMENT.exec(resinfo);
    if (!match) {
      unreadable ??= 'an element that is no result';
      continue;
    }
    const rest = match[3]!;
    const method = match[1]!.toLowerCase();
    const props = new Map<string, string>();
    let addresses = 0;
    for (const token of unquotedWords(rest)) {
      // An @ outside quoted strings: a reason="…" may say anything.
      const holdsAddress = token.replace(/"[^"]*"/g, '').includes('@');
      if (holdsAddress) addresses++;
      const property = /^([\w-]+\.[\w.-]+)=(.*)$/s.exec(token);
      if (!property) {
        // A word that is no property and holds an address is an identity the server copied with its spaces.
        if (holdsAddress && !token.includes('=')) unreadable ??= 'an address outside any property';
        continue;
      }
      const name = property[1]!.toLowerCase();
      const value = propertyValue(property[2]!);
      if (value === undefined) unreadable ??= `a quote or parenthesis in the value of ${name}`;
      if (props.has(name)) unreadable ??= `${name} twice in one result`;
      else props.set(name, (value ?? property[2]!).toLowerCase());
    }
    const result = match[2]!.toLowerCase();
    // Every signature's result names its identity alike (x-google-dkim too), so an echo ending in one is read alike.
    if (SIGNING_IDENTITY_METHOD.test(method)) unreadable ??= signingIdentityProblem(props, addresses, method === 'dkim' && result === 'pass');
    // A signature's selector and signature data belong to its result: elsewhere they are what followed an echo.
    else if (!SIGNATURE_METHOD.test(method) && (props.has('header.s') || props.has('header.b'))) unreadable ??= `header.s or header.b in a ${method} result`;
    results.push({ method, result, properties: rest.replace(/\s+/g, ' ').trim().slice(0, MAX_RESULT_CHARS), props });
  }
  for (const method of SINGLE_RESULT_METHODS) {
    // An spf result for the HELO name or the PRA beside the one for the envelope sender is no second verdict on the
    // same identity: Stalwart writes `spf=… smtp.helo=…` beside `spf=… smtp.mailfrom=…`, Cisco Secure Email both and
    // `spf=… smtp.pra=…`. Two for one identity are one too many.
    const ofMethod = results.filter((r) => r.method === method);
    const others = method === 'spf' ? SPF_OTHER_IDENTITIES.map((identity) => ofMethod.filter((r) => otherSpfIdentityOf(r) === identity).length) : [];
    const envelope = ofMethod.length - others.reduce((sum, count) => sum + count, 0);
    if (envelope > 1 || others.some((count) => count > 1)) unreadable ??= `more than one ${method} result`;
  }
  // One dkim result for each signature: more are results no verifier wrote (an identity echoed with its semicolons).
  // Counted by what a result names, not by its method's name, which an echo writes as it likes (review 42d): a
  // signature method's result naming a signature (not `none`: Microsoft's header.d=none), or any with a selector.
  const signatureResults = results.filter(
    (r) => (SIGNATURE_METHOD.test(r.method) && r.result !== 'none' && SIGNATURE_PROPERTIES.some((p) => r.props.has(p))) || r.props.has('header.s') || r.props.has('header.b'),
  ).length;
  if (dkimSignatures !== undefined && dkimSignatures > 0 && signatureResults > dkimSignatures) {
    unreadable ??= `${signatureResults} signature results for ${dkimSignatures} signature field${dkimSignatures === 1 ? '' : 's'}`;
  }
  // The failing methods read once: looked up for each `; dmarc=fail` of the text, a field of many of them cost the
  // number of them times the number of results (security review 12).
  const failed = new Set(results.filter((r) => r.result === 'fail').map((r) => r.method));
  for (const hidden of field.matchAll(/;\s*(dmarc|spf)\s*=\s*fail\b/gi)) {
    const method = hidden[1]!.toLowerCase();
    if (!failed.has(method)) unreadable ??= `a ${method}=fail inside a comment or quoted string`;
  }
  return unreadable === undefined ? { results } : { results, unreadable };
}

/**
 * Why a dkim result's signing identity (`header.i`, the signature's i= tag) cannot be the one the signature carried,
 * or undefined. Stalwart writes i= decoded and unquoted in place of `header.d`; its local part may hold anything
 * (`=20` is a space), and the signature passes when what follows its last `@` is the signer's domain, so
 * `x=20header.d=bank.example=20@evil.example` reads as a pass for bank.example. A real identity is one word with one
 * `@` (or `none`, as IronPort writes for no signature), the result's only address, and, in a pass, on the signing
 * domain or under it (RFC 6376 passes no other; a failing signature's may be anything, and vouches for nothing).
 */
function signingIdentityProblem(props: ReadonlyMap<string, string>, addresses: number, pass: boolean): string | undefined {
  const identity = props.get('header.i');
  // Outside a pass, an identity without @ is a verifier's word for none (dkim-milter's unknown, Haraka's undefined).
  const none = identity === undefined || identity === '' || identity === 'none' || (!pass && !identity.includes('@'));
  if (none) return addresses > 0 ? 'an address outside header.i in a dkim result' : undefined;
  // Zoho writes the signing domain alone (header.i=shop.example): read as @shop.example.
  const bareDomain = !identity.includes('@') && BARE_DOMAIN_ELEMENT.test(identity);
  if (!bareDomain && (identity.indexOf('@') !== identity.lastIndexOf('@') || !identity.includes('@'))) return 'a header.i that is no signing identity';
  if (addresses > (bareDomain ? 0 : 1)) return 'an address outside header.i in a dkim result';
  if (!pass) return undefined;
  const domain = props.get('header.d')?.replace(/\.$/, '');
  const identityDomain = domainOf(bareDomain ? `@${identity}` : identity);
  if (domain !== undefined && identityDomain !== domain && !identityDomain.endsWith(`.${domain}`)) return 'a header.i outside header.d';
  return undefined;
}

/** The identity other than the envelope sender's that an spf result alone names ({@link SPF_OTHER_IDENTITIES}), or undefined. */
function otherSpfIdentityOf(result: AuthenticationResult): (typeof SPF_OTHER_IDENTITIES)[number] | undefined {
  if (result.props.has('smtp.mailfrom')) return undefined;
  const named = SPF_OTHER_IDENTITIES.filter((identity) => result.props.has(identity));
  return named.length === 1 ? named[0] : undefined;
}

/**
 * Why the comments and quoted strings of a header value do not pair up, read as {@link stripComments} reads them
 * (comments nest, a quote inside one is text, a parenthesis inside a quoted string is text, a backslash escapes the
 * next character): `an unclosed comment`, `an unclosed quoted string`, or a closing parenthesis without its opening
 * one. Undefined when they pair up.
 */
function unpairedSyntax(value: string): string | undefined {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '\\') i++;
    else if (quoted) quoted = ch !== '"';
    else if (ch === '(') depth++;
    else if (ch === ')') {
      if (depth === 0) return 'a closing parenthesis without its opening one';
      depth--;
    } else if (ch === '"' && depth === 0) quoted = true;
  }
  if (depth > 0) return 'an unclosed comment';
  return quoted ? 'an unclosed quoted string' : undefined;
}

/** The words of a result's text without comments, split at white space outside quoted strings. */
function unquotedWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && quoted) {
      word += ch + (text[i + 1] ?? '');
      i++;
    } else if (/\s/.test(ch) && !quoted) {
      if (word !== '') words.push(word);
      word = '';
    } else {
      if (ch === '"') quoted = !quoted;
      word += ch;
    }
  }
  return word === '' ? words : [...words, word];
}

/**
 * A property's value (`shop.example`, `"AbCd1234"` as OpenDKIM quotes `header.b`) without the quotes around it;
 * undefined when a quote or parenthesis is part of it (`"x(y"@evil.example`), which only text the receiving server
 * copied from the sender without escaping has.
 */
function propertyValue(raw: string): string | undefined {
  if (!/["()\\]/.test(raw)) return raw;
  return /^"([^"\\()]*)"$/.exec(raw)?.[1];
}

/**
 * The results of an Authentication-Results field: its elements after the first (the receiving server's id), without
 * comments ("(earlier hop said spf=fail)", which also echo the envelope sender the sender picks:
 * `dmarc=pass@phisher.example`), split at semicolons outside quoted strings: a `reason="…"` may hold anything,
 * semicolons included, and none of it is a result.
 */
function resultElements(field: string): string[] {
  const elements: string[] = [];
  let element = '';
  let quoted = false;
  const text = stripComments(field);
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && quoted) {
      element += ch + (text[i + 1] ?? '');
      i++;
    } else if (ch === ';' && !quoted) {
      elements.push(element);
      element = '';
    } else {
      if (ch === '"') quoted = !quoted;
      element += ch;
    }
  }
  return [...elements, element].slice(1);
}

/** The DMARC result (`pass`, `none`, `fail`…, lower case) of an Authentication-Results field, or undefined when it has none. */
export function dmarcResultOf(field: string): string | undefined {
  return readAuthenticationResults(field).results.find((r) => r.method === 'dmarc')?.result;
}

/**
 * True when `mail` came through our own group ({@link ownGroupVerdict}) and our receiving server's ARC result says the
 * sender passed DMARC when the mail reached the group: `arc=pass (i=1 … dmarc=pass fromdomain=customer.example)`, as
 * Gmail writes it, for the From's domain. A group that adds a footer or a subject tag breaks the sender's signature,
 * so for a sender whose domain only monitors DMARC (p=none: the group keeps the From) our server's own DMARC check
 * fails on real customers' mail; the ARC chain, which our server verified, carries what DMARC said before the change.
 * Only for our group's mail: any list or forwarder can seal a chain, and only our group is trusted to have checked.
 */
function groupSealedDmarcPass(mail: ClassifiableMail, mailboxes: OwnMailboxes, topmost: string): boolean {
  const fromDomain = mail.from?.address ? domainOf(mail.from.address) : '';
  if (fromDomain === '' || !ownGroupVerdict(mail, mailboxes, ownMatcher(mailboxes)).verified) return false;
  for (const resinfo of topmost.split(';').slice(1)) {
    const arc = /^\s*arc\s*=\s*(\w+)\s*\(([^()]*)\)/i.exec(resinfo);
    if (!arc) continue;
    const said = arc[2]!.toLowerCase();
    return arc[1]!.toLowerCase() === 'pass' && /(?:^|\s)dmarc=pass(?:\s|$)/.test(said) && /(?:^|\s)fromdomain=([^\s]+)/.exec(said)?.[1]?.replace(/\.$/, '') === fromDomain;
  }
  return false;
}

/**
 * The authserv-id of an Authentication-Results field (its first element, without comments or a version), lower case:
 * what AUTHSERV_ID is compared with ({@link senderVouchedFor}, the own-group check), and what `npm run check`
 * recommends setting it to. Empty when the field starts with a result instead (`spf=pass …`, as Exchange Online
 * writes it: RFC 8601 requires the id, and a result taken for one would have an admin set AUTHSERV_ID=spf=pass).
 */
export function authservIdOf(field: string): string {
  const first = (stripComments(field).split(';')[0] ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  return first.includes('=') ? '' : first;
}

/**
 * Who wrote an Authentication-Results field, for a reason: `by mx.google.com`, or `without an authserv-id`. Unless
 * the receiving server writes its own on top, the field is the sender's text, and a reason reaches an operator's
 * terminal and the review page: the id loses control and invisible characters and is cut to
 * {@link MAX_HEADER_VALUE_CHARS}.
 */
function authservShown(field: string): string {
  const id = visibleHeaderText(authservIdOf(field)).text;
  if (id === '') return 'without an authserv-id';
  const chars = Array.from(id);
  return `by ${chars.length > MAX_HEADER_VALUE_CHARS ? `${chars.slice(0, MAX_HEADER_VALUE_CHARS).join('')}…` : id}`;
}

/** The domain a DKIM result is for: `header.d`, else the domain of `header.i` (Gmail writes only `header.i=@shop.example`). */
function signingDomain(result: AuthenticationResult): string {
  const d = result.props.get('header.d');
  if (d) return d.replace(/\.$/, '');
  const i = result.props.get('header.i');
  if (!i) return '';
  return domainOf(i.includes('@') ? i : `@${i}`);
}

/**
 * True when the receiving server's Authentication-Results say the From domain is authentic: `dmarc=pass` (for the
 * From's domain, when the result names it in `header.from`), `dkim=pass` signed by a domain aligned with the From's
 * ({@link isAlignedWith}: a mail service's signature for itself proves nothing about the From), or `spf=pass` for an
 * envelope sender (`smtp.mailfrom`) aligned with it; and, for mail that came through our own group, what
 * {@link forgedSenderDetail} accepts there: the ARC seal our server verified saying DMARC passed for the From's domain
 * when the mail reached the group ({@link groupSealedDmarcPass}; a customer whose domain only monitors DMARC, whose
 * signature the group's footer broke). Read from the receiving server's field only, as the own-group check reads it:
 * the topmost (the server adds its own above whatever the mail arrived with), and, with AUTHSERV_ID
 * (`mailboxes.authservIds`) given, only when that field is written by one of them. A pass lower down, or in a field by
 * another authserv-id, is the sender's own writing. Without AUTHSERV_ID a server that writes no field of its own
 * leaves the sender's topmost field to be read: the limit the README names.
 *
 * False when nothing vouches: no field, no From, soft or no results, a field that cannot be read unambiguously
 * ({@link readAuthenticationResults}: text the sender chose, copied into it unescaped), a pass for an envelope sender
 * with a quoted local part. Such a sender's words (subject, quoted text)
 * may be a stranger's put under a victim's address; the agent worker and the sender read them as such.
 */
export function senderVouchedFor(mail: ClassifiableMail, mailboxes: OwnMailboxes): boolean {
  const fromDomain = mail.from?.address ? domainOf(mail.from.address) : '';
  const topmost = mail.headers['authentication-results']?.[0];
  if (fromDomain === '' || topmost === undefined) return false;
  const ids = (mailboxes.authservIds ?? []).map((id) => id.toLowerCase());
  if (ids.length > 0 && !ids.includes(authservIdOf(topmost))) return false;
  const reading = readAuthenticationResults(topmost, dkimSignaturesOf(mail));
  if (reading.unreadable) return false;
  return reading.results.some((r) => r.result === 'pass' && vouchesFor(r, fromDomain)) || groupSealedDmarcPass(mail, mailboxes, topmost);
}

/** Whether one passing result is about the From's domain: DMARC for it, DKIM or SPF for a domain aligned with it. */
function vouchesFor(result: AuthenticationResult, fromDomain: string): boolean {
  if (result.method === 'dmarc') {
    const headerFrom = result.props.get('header.from')?.replace(/\.$/, '');
    return headerFrom === undefined || isAlignedWith(domainOf(`@${headerFrom}`), fromDomain);
  }
  if (result.method === 'dkim') return isAlignedWith(signingDomain(result), fromDomain);
  if (result.method === 'spf') {
    const mailFrom = result.props.get('smtp.mailfrom') ?? '';
    // A quoted local part may hold anything, a domain and spaces included: it is the sender's text, not a host.
    if (mailFrom.includes('"')) return false;
    return isAlignedWith(domainOf(mailFrom.includes('@') ? mailFrom : `@${mailFrom}`), fromDomain);
  }
  return false;
}

/**
 * Why the sender may be forged, by the receiving server's verdict: its Authentication-Results field (the topmost,
 * which that server adds above what the mail arrived with) says `dmarc=fail`, or `spf=fail` without a `dmarc=pass`
 * (DMARC passed by an aligned DKIM signature proves the From domain however a forwarder broke SPF). Names the result,
 * e.g. `dmarc=fail (header.from=bank.example)`; or, failing closed, that the field could not be read unambiguously
 * ({@link readAuthenticationResults}), since the sender's text copied into it may hide a `dmarc=fail`; undefined
 * otherwise. A reply would go to whoever was impersonated, so
 * the agent worker parks the draft. Mail that claims to come through our own group is judged alike (its list headers
 * prove nothing), and more: a `dkim=fail` for the domain of the group it names, with no signature of that domain
 * passing, says the claim is false, since a real group signs what it sends.
 */
export function forgedSenderDetail(mail: ClassifiableMail, mailboxes: OwnMailboxes): string | undefined {
  const topmost = values(mail, 'authentication-results')[0];
  if (topmost === undefined) return undefined;
  const { results, unreadable } = readAuthenticationResults(topmost, dkimSignaturesOf(mail));
  // Fail closed: what the sender's text hides may be a dmarc=fail, and what it adds a pass.
  if (unreadable) return `something that could not be read unambiguously (${unreadable}): text the sender chose may hide its verdict`;
  // The envelope sender's spf result, not one for the HELO name or the PRA written before it.
  const first = (method: string): AuthenticationResult | undefined =>
    results.find((r) => r.method === method && (method !== 'spf' || otherSpfIdentityOf(r) === undefined)) ?? results.find((r) => r.method === method);
  const failed = [...SENDER_CHECKS].find((method) => first(method)?.result === 'fail');
  if (failed && !(failed === 'spf' && first('dmarc')?.result === 'pass') && !(failed === 'dmarc' && groupSealedDmarcPass(mail, mailboxes, topmost))) {
    const { properties } = first(failed)!;
    return `${failed}=fail${properties ? ` (${properties})` : ''}`;
  }
  const claimed = claimedOwnList(mail, mailboxes);
  if (!claimed) return undefined;
  const domain = domainOf(claimed);
  const signatures = results.filter((r) => r.method === 'dkim' && isAlignedWith(signingDomain(r), domain));
  const broken = signatures.find((r) => r.result === 'fail');
  if (!broken || signatures.some((r) => r.result === 'pass')) return undefined;
  return `dkim=fail${broken.properties ? ` (${broken.properties})` : ''} for ${domain}, whose group ${claimed} the list headers name`;
}
