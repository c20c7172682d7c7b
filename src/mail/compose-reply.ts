/**
 * Builds the reply mail for a ticket: recipients, a non-stacking `Re:` subject, RFC 5322 threading headers, a UTF-8
 * text body with the original quoted below the answer (under a dated attribution line in the reply's language) when
 * the reply goes to the sender's own mailbox and the sender did not decide to leave the quote out, and RFC 3834
 * `Auto-Submitted` when no person approved it. The recipient is one address, its display name kept apart.
 */
import { randomUUID } from 'node:crypto';
import { parse as parseHost } from 'tldts';
import { isSameMailbox, normaliseAddress, type MailAddress } from './addresses.js';
import { isValidMessageId } from './message-id.js';
import { foreignLinks, type AllowedLinks } from '../tickets/foreign-links.js';

/** What the reply needs to know about the customer's mail. */
export interface OriginalMail {
  messageId?: string;
  subject: string;
  /** The original's own References header, oldest first. */
  references: string[];
  /**
   * Ids of the original's own In-Reply-To header. Named in the reply's References only when the original has no
   * References and this holds exactly one well-formed id ({@link replyReferences}). The sender passes the ticket's,
   * which is one id: the first well-formed id of the header (src/mail/parse.ts), so a mail whose In-Reply-To names
   * several is threaded after the first of them.
   */
  inReplyTo?: readonly string[];
  /**
   * The sender's address alone (the ticket's From). A `Name <addr>` value is still read, as one mailbox or not at
   * all: a name written unquoted before the address (`v1@victim.example, x <a@b>`) would be two recipients.
   */
  from: string;
  /** The sender's display name, apart from the address, so it can never be read as another recipient. */
  fromName?: string;
  replyTo?: string;
  /** The Reply-To's own display name, apart from its address; absent when it had none (or was not recorded). */
  replyToName?: string;
  /**
   * When the customer sent it, for the attribution line of the quote: the mail's Date header as written (RFC 5322)
   * or ISO 8601. A numeric offset in it (`+0900`, `+09:00`) is the customer's own, and the time is shown in it; an
   * instant alone (`…Z`, as tickets store it) is shown in the offset {@link dateOffsetMinutes} names, else in the
   * sender's zone, named.
   */
  date?: string;
  /**
   * The offset from UTC, in minutes, the customer's Date header was written in (`+0900` → 540), for a {@link date}
   * that is an instant which lost it (a ticket's `mailDate`): the time is shown in it, unlabelled, as the customer's
   * client showed it. Ignored unless whole minutes within ±14 hours.
   */
  dateOffsetMinutes?: number;
  /** The customer's text as received (quoted below the answer when the reply goes to `from` itself). */
  text: string;
  /**
   * Why the quote is left out of a reply to `from` itself: the sender's decision when it sends
   * (`quoteOmission`, src/tickets/quote-omission.ts), a link, address or phone number nothing vouches for in the
   * words of a sender nothing authenticates.
   */
  quoteOmitted?: string;
}

/** A reply ready for nodemailer's `sendMail`. */
export interface ReplyMail {
  from: string;
  /** The recipient's address alone: exactly one mailbox, never a header value to parse again. */
  to: string;
  /**
   * The recipient's display name: the Reply-To's own when the reply goes there, the From's when it goes to the From;
   * one line, handed to nodemailer apart from the address, which encodes or quotes it.
   */
  toName?: string;
  subject: string;
  messageId: string;
  inReplyTo?: string;
  references?: string[];
  text: string;
  headers: Record<string, string>;
}

/** Inputs of {@link composeReply}. */
export interface ComposeReplyInput {
  original: OriginalMail;
  answer: string;
  /** Our From header (MAIL_FROM). */
  from: string;
  /** Our Message-ID, generated and stored before sending so a retry reuses it. */
  messageId: string;
  /** True when the reply goes out without a person's approval. */
  automatic: boolean;
  /** Time zone of the quote's date (default the process's, `TZ`). */
  timeZone?: string;
}

// Reply prefixes of common clients and languages, collapsed into one (forward prefixes stay). The count (`Re[2]:`)
// takes its trailing whitespace with it: two whitespace runs side by side around an optional group backtrack
// quadratically over a long run of spaces without a colon. `Ｒｅ：` and `Ｒｅ［２］：` are the same prefix typed with a
// Japanese input method on, whose letters, digits, brackets and colon are full-width.
const REPLY_PREFIX = /^\s*(?:(?:re|ｒｅ|aw|sv|vs|antw|réf|rif|odp|返信|回复|答复|回覆|회신)\s*(?:(?:[[［][\d０-９]+[\]］]|[(（][\d０-９]+[)）])\s*)?[:：]\s*)+/i;

// What mail clients show for a mail without a subject. A bare `Re:` reads as a truncated subject, and clients list
// it as an empty one.
const NO_SUBJECT: Record<AttributionLanguage, string> = { en: '(no subject)', ja: '(件名なし)', ko: '(제목 없음)', zh: '(无主题)' };
/** The subjects our replies give a mail that had none, in every language: a customer's answer to one has no subject either. */
export const NO_SUBJECT_PLACEHOLDERS: readonly string[] = Object.values(NO_SUBJECT);

/**
 * `Re: <subject>` without stacking `Re:` (or `RE[2]:`, `AW:`, `返信:`) prefixes; for a subject that is empty (or only
 * prefixes), `Re: (no subject)` or, in Japanese, `Re: (件名なし)`.
 */
export function replySubject(subject: string, language: AttributionLanguage = 'en'): string {
  const base = subject.replace(REPLY_PREFIX, '').trim();
  return asSent(`Re: ${base || NO_SUBJECT[language]}`);
}

/**
 * `text` as our mail writes it: U+FFFD, a character of the customer's mail that could not be decoded (a phone
 * carrier's emoji in an ISO-2022-JP subject or name), as 〓 (geta), the mark Japanese mail writes for a character it
 * cannot show; a customer's client shows U+FFFD as a bare `?` or a box (`Re: 題名�`). The ticket and the review page
 * keep U+FFFD, named in the mail's charset notes.
 */
function asSent(text: string): string {
  return text.includes('\uFFFD') ? text.replace(/\uFFFD/g, '〓') : text;
}

/** A new RFC 5322 Message-ID in our domain (taken from the From address). */
export function newMessageId(fromAddress: string): string {
  const domain = /@([^>\s]+)/.exec(fromAddress)?.[1] ?? 'helpdesk-worker.invalid';
  return `<${randomUUID()}@${domain}>`;
}

/** The language of the reply's own words (the quote's attribution line, a missing subject's placeholder). */
export type AttributionLanguage = 'ja' | 'ko' | 'zh' | 'en';

/** Options of {@link quoteOriginal}. */
export interface QuoteOptions {
  /** Language of the attribution line (default English). */
  language?: AttributionLanguage;
  /**
   * IANA time zone of its date when the date's own offset is unknown (default the process's: `TZ`, as mail clients
   * use their own zone); the zone is then named after the time.
   */
  timeZone?: string;
  /** The offset the date was written in, when the date is an instant that lost it ({@link OriginalMail.dateOffsetMinutes}). */
  dateOffsetMinutes?: number;
}

// A display name longer than this is cut: the attribution must stay one line that the quote-stripping patterns
// (`src/mail/parse.ts`, `src/tickets/outcome.ts`: at most 300 characters before "wrote:") still recognise when the
// customer answers our reply.
const MAX_ATTRIBUTION_NAME_CHARS = 200;

/**
 * The line above the quoted original, in the reply's language, as the common clients write it:
 * `On Tue, 24 Nov 2026 at 10:00, Name <a@b> wrote:`, Gmail's Japanese `2026年11月24日(火) 10:00 山田 <a@b>:`, Korean
 * `2026년 11월 24일 (화) 10:00, 김민수 <a@b>님이 작성:` and Chinese `2026年11月24日(周二) 10:00 王伟 <a@b> 写道：`; without a
 * usable date, `Name <a@b> wrote:` / `山田 <a@b>のメール:` / `김민수 <a@b>님이 작성:` / `王伟 <a@b> 写道：`. The time is the
 * one the customer wrote at, in the offset of their Date header (`options.dateOffsetMinutes`, else one written in
 * `date`); for a date whose offset is unknown, the time in `timeZone` followed by its offset (`01:00 UTC`,
 * `10:00 UTC+9`), so it is never read in the wrong zone. The sender's name is put on one line and
 * cut to 200 characters, so a hostile display name cannot break the quote into lines of its own.
 */
export function attributionLine(from: string, date: string | undefined, options: QuoteOptions = {}): string {
  const who = oneLine(from, MAX_ATTRIBUTION_NAME_CHARS);
  const language = options.language ?? 'en';
  const when = date ? attributionDate(date, language, options.timeZone, options.dateOffsetMinutes) : undefined;
  switch (language) {
    case 'ja':
      return when ? `${when} ${who}:` : `${who}のメール:`;
    case 'ko':
      return when ? `${when}, ${who}님이 작성:` : `${who}님이 작성:`;
    case 'zh':
      return when ? `${when} ${who} 写道：` : `${who} 写道：`;
    default:
      return when ? `On ${when}, ${who} wrote:` : `${who} wrote:`;
  }
}

/** `text` on one line (control characters and line breaks as one space), cut to `max` characters with an ellipsis. */
function oneLine(text: string, max: number): string {
  const line = text.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  if (line.length <= max) return line;
  // Cut on a character, never inside a surrogate pair.
  return `${Array.from(line).slice(0, max).join('')}…`;
}

// The numeric zone of a date as its writer wrote it: RFC 5322's `+0900` (a comment may follow), ISO 8601's `+09:00`,
// or `GMT`/`UT`. ISO's `Z` is not one: it is how an instant is stored (`toISOString`), which says nothing of the
// writer's zone.
const WRITTEN_OFFSET = /\d:\d\d(?::\d\d(?:\.\d+)?)?\s*(?:([+-])(\d\d):?(\d\d)|(GMT|UTC?))\s*(?:\([^()]*\)\s*)?$/i;
// Zones as far as any place is from UTC (Kiribati +14, Baker Island -12); a larger offset is no zone a client wrote.
const MAX_OFFSET_MINUTES = 14 * 60;

/** `offset` when it is one a zone has (whole minutes within ±14 hours), else undefined. */
function zoneOffset(offset: number | undefined): number | undefined {
  return offset !== undefined && Number.isInteger(offset) && Math.abs(offset) <= MAX_OFFSET_MINUTES ? offset : undefined;
}

/** The offset from UTC, in minutes, that a written date states; undefined when it states none. */
function writtenOffsetMinutes(date: string): number | undefined {
  const match = WRITTEN_OFFSET.exec(date.trim());
  if (!match) return undefined;
  if (match[4]) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  if (Number(match[3]) > 59 || minutes > MAX_OFFSET_MINUTES) return undefined;
  return match[1] === '-' ? -minutes : minutes;
}

/**
 * The attribution's date in `language`: in the offset the date was written in (`knownOffset`, else one `written`
 * states), else in `timeZone` with that zone's offset after the time; undefined for a date that is not one (or a time
 * zone ICU does not know).
 */
function attributionDate(written: string, language: AttributionLanguage, timeZone: string | undefined, knownOffset: number | undefined): string | undefined {
  const date = new Date(written);
  if (Number.isNaN(date.getTime())) return undefined;
  const offset = zoneOffset(knownOffset) ?? writtenOffsetMinutes(written);
  // The writer's wall-clock time: the instant moved by their offset, read in UTC.
  const format = offset !== undefined ? attributionFormat(language, 'UTC', false) : attributionFormat(language, timeZone, true);
  if (!format) return undefined;
  // The writer's offset can move an instant at the edge of the Date range past it (year 275760 at +0900): such a line
  // goes without its date, as the reply must go all the same.
  const shown = offset !== undefined ? new Date(date.getTime() + offset * 60_000) : date;
  if (Number.isNaN(shown.getTime())) return undefined;
  const parts = format.formatToParts(shown);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const zone = offset === undefined ? ` ${zoneLabel(part('timeZoneName'))}` : '';
  const time = `${part('hour').padStart(2, '0')}:${part('minute')}${zone}`;
  switch (language) {
    case 'ja':
      return `${part('year')}年${part('month')}月${part('day')}日(${part('weekday')}) ${time}`;
    case 'ko':
      return `${part('year')}년 ${part('month')}월 ${part('day')}일 (${part('weekday')}) ${time}`;
    case 'zh':
      return `${part('year')}年${part('month')}月${part('day')}日(${part('weekday')}) ${time}`;
    default:
      return `${part('weekday')}, ${part('day')} ${part('month')} ${part('year')} at ${time}`;
  }
}

/** ICU's `GMT+09:00` / `GMT-05:00` / `GMT+05:30` / `GMT` as `UTC+9` / `UTC-5` / `UTC+5:30` / `UTC`. */
function zoneLabel(icuOffset: string): string {
  const match = /([+-−])(\d{1,2})(?::?(\d\d))?/.exec(icuOffset);
  if (!match || (Number(match[2]) === 0 && Number(match[3] ?? 0) === 0)) return 'UTC';
  const minutes = match[3] && match[3] !== '00' ? `:${match[3]}` : '';
  return `UTC${match[1] === '+' ? '+' : '-'}${Number(match[2])}${minutes}`;
}

// Building an Intl.DateTimeFormat costs about 0.15 ms (ICU loads the locale's patterns), formatting with one a few
// µs: one per language and time zone, kept for the process, since a sender quotes in the same one or two all day.
const attributionFormats = new Map<string, Intl.DateTimeFormat | null>();

const LOCALES: Record<AttributionLanguage, string> = { en: 'en-US', ja: 'ja-JP', ko: 'ko-KR', zh: 'zh-CN' };

/** The formatter of the quote line's date, with the zone's offset when `withOffset`; null for a time zone ICU does not know. */
function attributionFormat(language: AttributionLanguage, timeZone: string | undefined, withOffset: boolean): Intl.DateTimeFormat | null {
  const key = `${language} ${timeZone ?? ''} ${withOffset}`;
  let format = attributionFormats.get(key);
  if (format !== undefined) return format;
  try {
    format = new Intl.DateTimeFormat(LOCALES[language], {
      ...(timeZone ? { timeZone } : {}),
      weekday: 'short',
      year: 'numeric',
      month: language === 'en' ? 'short' : 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      hourCycle: 'h23',
      ...(withOffset ? { timeZoneName: 'longOffset' as const } : {}),
    });
  } catch {
    format = null; // an unknown time zone: the line goes without its date rather than the reply failing
  }
  attributionFormats.set(key, format);
  return format;
}

/**
 * The original text with every line prefixed by `> `, under an {@link attributionLine} naming `fromName <from>` and
 * dated in the offset the original's Date was written in when known.
 */
export function quoteOriginal(original: Pick<OriginalMail, 'from' | 'date' | 'text'> & Partial<Pick<OriginalMail, 'fromName' | 'dateOffsetMinutes'>>, options: QuoteOptions = {}): string {
  const lines = original.text.replace(/\r\n?/g, '\n').trimEnd().split('\n');
  const who = original.fromName ? `${original.fromName} <${original.from}>` : original.from;
  const dated = original.dateOffsetMinutes !== undefined ? { ...options, dateOffsetMinutes: original.dateOffsetMinutes } : options;
  return asSent([attributionLine(who, original.date, dated), ...lines.map((l) => (l ? `> ${l}` : '>'))].join('\n'));
}

// Any kana makes a reply Japanese (Japanese writes Han characters too). Otherwise words are weighed against words:
// Latin and Hangul runs are words (both languages space them), and a run of Han characters is about one word per two
// characters (Chinese writes no spaces). The larger side names the language, so an English answer naming a screen
// (`设置`) or greeting a person (`김민수`) stays English and a Chinese one naming `Microsoft Outlook` stays Chinese.
// Han characters in an English sentence are names, screens and addresses, which can outweigh its few words
// (`Your address: 北京市朝阳区建国路88号华贸中心写字楼1座.`): Chinese is taken over Latin words only when its own
// punctuation or grammar words are there too, which no name or address has.
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL_WORD = /\p{Script=Hangul}+/gu;
const HAN = /\p{Script=Han}/gu;
const LATIN_WORD = /\p{Script=Latin}+/gu;
const HAN_CHARACTERS_PER_WORD = 2;
const CHINESE_PROSE = /[，。！？；：、「」『』（）]|[的了是您你我请請吗嗎呢吧这這和]/u;

/** The attribution's language for a reply: Japanese with kana in it, Korean or Chinese when written mostly in those, else English. */
export function replyLanguage(answer: string): AttributionLanguage {
  if (KANA.test(answer)) return 'ja';
  const latinWords = answer.match(LATIN_WORD)?.length ?? 0;
  const hangulWords = answer.match(HANGUL_WORD)?.length ?? 0;
  const hanWords = (answer.match(HAN)?.length ?? 0) / HAN_CHARACTERS_PER_WORD;
  if (hangulWords > 0 && hangulWords >= hanWords && hangulWords >= latinWords) return 'ko';
  if (hanWords > 0 && hanWords >= latinWords && (latinWords === 0 || CHINESE_PROSE.test(answer))) return 'zh';
  return 'en';
}

/**
 * A Message-ID a reply may name: `<…>` around printable US-ASCII without spaces or brackets. Not only RFC 5322's
 * `<local@domain>`: clients write ids without `@` (`<11107978796724623>`) or with several, and thread by them as
 * written, so a reply that leaves them out lands apart from the customer's mail.
 */
// Printable ASCII only: CR, LF and other control characters could end the header and start another, and a raw UTF-8
// id (RFC 6532 allows it in the customer's mail) in our headers would need SMTPUTF8, which the sender does not ask
// for, and a server without it refuses the whole reply.
const MESSAGE_ID = /^<[!-;=?-~]+>$/;
// Real ids are well under 100 characters. A longer one (a hostile mail) would make a header line longer than the
// 998 characters RFC 5322 allows, which servers may refuse or cut; the reply goes without it.
const MAX_MESSAGE_ID_CHARS = 250;

/** An id a reply may name in In-Reply-To or References. */
function referable(id: string): boolean {
  return id.length <= MAX_MESSAGE_ID_CHARS && MESSAGE_ID.test(id);
}
/** About what `References` may take: RFC 5322 §3.6.4 lets a client trim the middle of a long chain. */
const MAX_REFERENCES_CHARS = 2048;

/**
 * The `References` of a reply (RFC 5322 §3.6.4): the original's References, or, when it has none, its In-Reply-To
 * (`inReplyTo`) if that holds a single `<local@domain>` id (given several, none is named: the parent is unclear; text
 * around no id is none), then the original's Message-ID; each id once, where it first appears, the Message-ID last. The sender gives the ticket's one id, the first of the header
 * ({@link OriginalMail.inReplyTo}), so in production a mail whose In-Reply-To names several is threaded after the
 * first. Ids that are not `<…>` around printable ASCII without spaces or brackets, or longer than 250 characters, are
 * dropped; a chain longer than about 2 KB keeps its first id (the thread's root) and as many of the last as fit, as mail
 * clients trim it, so a hostile mail with thousands of ids cannot make our reply huge.
 */
export function replyReferences(references: readonly string[], messageId: string | undefined, inReplyTo: readonly string[] = []): string[] {
  const own = messageId ? [messageId.trim()].filter(referable) : [];
  // Each id once, where it first appears, and the mail's own id last: a client may already have put it in its own
  // References (or an id twice), and a repeat only makes the header longer.
  const named = new Set(own);
  const chain = references.map((r) => r.trim()).filter((r) => referable(r) && !named.has(r) && named.add(r));
  const parent = chain.length === 0 && inReplyTo.length === 1 ? inReplyTo[0]!.trim() : undefined;
  // The In-Reply-To fallback asks for `@` too: a client writing no References may write an RFC 822 phrase there
  // ("Your message of …"), and a word of it is no id. A parent that is the mail itself is not named twice.
  if (parent && isValidMessageId(parent) && referable(parent) && !named.has(parent)) chain.push(parent);
  const valid = [...chain, ...own];
  const length = (ids: readonly string[]) => ids.reduce((n, r) => n + r.length + 1, 0);
  if (valid.length <= 1 || length(valid) <= MAX_REFERENCES_CHARS) return valid;
  const [first, ...rest] = valid;
  const tail: string[] = [];
  let size = first!.length + 1;
  for (let i = rest.length - 1; i >= 0; i--) {
    size += rest[i]!.length + 1;
    if (size > MAX_REFERENCES_CHARS) break;
    tail.unshift(rest[i]!);
  }
  return [first!, ...tail];
}

/**
 * Builds the reply; pure, so the sender can rebuild the identical mail on a retry. The original is quoted only when
 * the reply goes to the From's own mailbox (no Reply-To, or one that is the From, case and `+tag` aside) and
 * {@link OriginalMail.quoteOmitted} is not set.
 */
export function composeReply(input: ComposeReplyInput): ReplyMail {
  const { original } = input;
  // The quote is the From's words under the From's name. A reply to another mailbox (a Reply-To: a colleague's, a
  // partner's, or a stranger's on the same mail provider) would deliver them to someone who did not write them, from
  // our address: a fake "account suspended" notice with a phishing link under "XYZ Support Security <…>". No check
  // can tell such prose from a real question (a link check misses a notice without links, and the name), so the quote
  // is left out there, whoever allowed the reply (a trusted domain, the same company domain, an operator); the answer
  // stands on its own and the headers thread it. To the From itself it stays: the customer sees what they asked.
  // To the From itself it is left out too where the sender decided so (OriginalMail.quoteOmitted).
  const quoted = (!original.replyTo || isSameMailbox(original.replyTo, original.from)) && !original.quoteOmitted;
  const recipient = recipientOf(original);
  const language = replyLanguage(input.answer);
  const references = replyReferences(original.references, original.messageId, original.inReplyTo);
  const headers: Record<string, string> = {};
  // Our address in X-Loop: if this reply ever comes back (a forwarding rule, an auto-responder quoting headers), the
  // reply decision sees it as a loop and stays silent.
  const ours = normaliseAddress(input.from);
  if (ours) headers['X-Loop'] = ours;
  if (input.automatic) {
    // RFC 3834 §3.1.7: tells other responders not to answer us, which stops mail loops between auto-responders.
    headers['Auto-Submitted'] = 'auto-replied';
  }
  return {
    from: input.from,
    to: recipient.address,
    ...(recipient.name ? { toName: recipient.name } : {}),
    // The answer is in the customer's language, so its placeholder for a missing subject is too.
    subject: replySubject(original.subject, language),
    messageId: input.messageId,
    inReplyTo: original.messageId && referable(original.messageId.trim()) ? original.messageId : undefined,
    references: references.length > 0 ? references : undefined,
    // The answer greets the customer by the name the ticket holds, U+FFFD and all: sent as the quote is.
    text: quoted ? `${asSent(input.answer.trimEnd())}\n\n${quoteOriginal(original, { language, ...(input.timeZone ? { timeZone: input.timeZone } : {}) })}\n` : `${asSent(input.answer.trimEnd())}\n`,
    headers,
  };
}

// A display name longer than this is cut: no person's name is this long, and the To line stays well under RFC 5322's
// 998 characters however nodemailer writes it.
const MAX_RECIPIENT_NAME_CHARS = 200;

// Longer than any person's or team's name ("株式会社ABC 営業部 山田 太郎", "Dr. Anna Müller (Customer Success)"): a name
// this long is a sentence.
const MAX_PLAIN_NAME_CHARS = 80;
// What no name holds but a message does, beside the links, addresses and phone numbers the draft check finds
// ({@link foreignLinks}): an address's at sign or brackets, a scheme (`hxxp://`), an ideographic full stop between
// letters or digits (browsers read it as a host's dot, whatever script the labels are in: `サポート。jp`, `пример。рф`),
// an encoded word (the receiver's client decodes it once more: a name stored as `=?utf-8?B?…?=` shows there as
// `<evil@…>` and a line break), a character a reader does not see (controls, text-direction and zero-width
// characters, line and paragraph separators, default-ignorable fillers).
const NOT_A_NAME = [
  /[@<>]/u,
  /:\/\//u,
  /[\p{L}\p{N}-]。[\p{L}\p{N}]/u,
  /=\?/u,
  /[\p{C}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]/u,
] as const;
// A phone number in any shape: seven digits or more once the spaces, dashes, dots and brackets between their groups
// are left out. The draft check's finder reads only the shapes a draft writes (Japanese, North American, French,
// `+` international), and a name has no need of it: "5551234567", "212-5550100" and "44 20 7946 0958" are numbers to
// call, while "Team 2", "第2営業部", "Acme 2024" and a six-digit staff number stay names. Any script's digits
// (NFKC leaves Arabic-Indic and Devanagari ones as they are); the katakana long vowel mark is a dash between digits.
const PHONE_DIGITS = /\p{Nd}(?:[\s\p{Pd}.()ー]*\p{Nd}){6}/u;
// Nothing vouches for anything in a name: every link, address or phone number in it is foreign.
const NOTHING_VOUCHED: AllowedLinks = { knowledge: [], addresses: [], trustedDomains: [] };

/**
 * True when a display name is plainly a name: at most 80 characters, with no link, address or phone number the draft
 * check would find in a draft ({@link foreignLinks}: `Free-Quilting.com` and `www.x` are links, `J.Smith` is not),
 * no host ({@link namesAHost}), no run of digits long enough to call ({@link PHONE_DIGITS}) and none of
 * {@link NOT_A_NAME}, read after NFKC (so full-width `＠` and `０３－１２３４` are what they look like). A name is text a
 * stranger wrote; in our reply's To it reaches the mailbox it names from our address, and no draft check reads it
 * (security review 7, finding 1).
 */
export function isPlainDisplayName(name: string): boolean {
  const folded = name.normalize('NFKC').replace(/[ \t]+/g, ' ').trim();
  // A joiner or an emoji's variation selector inside a name (a Persian name's ZWNJ, 👨‍👩‍👧, ❤️) is part of how it is written.
  const read = folded.replace(NAME_JOINER, '');
  return (
    Array.from(folded).length <= MAX_PLAIN_NAME_CHARS &&
    !NOT_A_NAME.some((pattern) => pattern.test(read)) &&
    !PHONE_DIGITS.test(read) &&
    !namesAHost(read) &&
    foreignLinks(read, NOTHING_VOUCHED).length === 0
  );
}

const NAME_JOINER = /(?<=[\p{L}\p{M}\p{Extended_Pictographic}])[\u200c\u200d\ufe0f](?=[\p{L}\p{Extended_Pictographic}]|$)/gu;
// Dotted words: `office-update.zip`, `xyz-login.evil.example`, `J.Smith`, `St.John`.
const DOTTED = /[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;

/**
 * Whether `name` holds a host name: dotted words of three labels or more, or of two whose last is in lower case or a
 * top-level domain (`xyz-verify.example`, `Free-Quilting.COM`, `shop.jp`, `пример.рф`). The draft check lets a file
 * name (`office-update.zip`, `setup.mov`), a product (`ASP.NET`) or a company suffix (`CO.LTD`) pass as text, as
 * a draft writes them; a name has no need of one, and those top-level domains are live. `J.Smith`, `Mr.Smith` and
 * `St.John` end in a capitalised word that is no domain and are names.
 */
function namesAHost(name: string): boolean {
  for (const [token] of name.matchAll(DOTTED)) {
    const labels = token.split('.');
    if (labels.length >= 3 || /^[a-z]{2,}$/u.test(labels.at(-1)!) || parseHost(token).isIcann === true) return true;
  }
  return false;
}

/** `name` on one line when it is plainly a name ({@link isPlainDisplayName}), else '' (the reply goes to the bare address). */
function recipientName(name: string): string {
  return isPlainDisplayName(name) ? asSent(oneLine(name, MAX_RECIPIENT_NAME_CHARS)) : '';
}

/**
 * Whom a reply goes to, with the name the customer gave that mailbox: the Reply-To's address and its own name (the
 * From's, when the Reply-To names none and is the From's mailbox; none when it is another's, as on a ticket stored
 * before Reply-To names were kept), else the From's address and name. A `from` written as `Name <addr>` (callers before
 * {@link OriginalMail.fromName}) is split at its last `<`: the address is what the brackets at the end hold, and
 * everything before them is the name, however many addresses it spells, so a name can never add a recipient. Nothing
 * is parsed as an address list: `Support <v1@victim.example> <a@b>` parses as one mailbox, the victim's. The name is
 * put on one line; nodemailer gets it apart from the address and encodes or quotes it, so nothing in it can add a
 * recipient or a header. Whatever is left, the sender checks (`replyRecipientProblem`, src/mail/smtp-transport.ts).
 */
function recipientOf(original: Pick<OriginalMail, 'from' | 'fromName' | 'replyTo' | 'replyToName'>): MailAddress {
  const sender = fromMailbox(original);
  if (!original.replyTo) return sender;
  const address = original.replyTo.trim();
  const name = original.replyToName ?? (isSameMailbox(address, sender.address) ? sender.name : '');
  return { address, name: recipientName(name) };
}

/** The From's address and display name, apart (see {@link recipientOf}). */
function fromMailbox(original: Pick<OriginalMail, 'from' | 'fromName'>): MailAddress {
  const from = original.from.trim();
  const open = from.lastIndexOf('<');
  if (original.fromName !== undefined || open < 0 || !from.endsWith('>')) return { address: from, name: recipientName(original.fromName ?? '') };
  return { address: from.slice(open + 1, -1).trim(), name: recipientName(from.slice(0, open).trim().replace(/^"([^"]*)"$/, '$1')) };
}
