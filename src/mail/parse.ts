/**
 * Turns one raw inbound mail (the bytes IMAP hands us) into the {@link InboundMail} the rest of the pipeline works
 * with: decoded headers, addresses, the full text and the customer's own question with quoted history and signatures
 * removed. Broken input degrades to "what could be read" plus warnings; only input with no header at all throws.
 */
import EmailReplyParser from 'email-reply-parser';
import { convert, type FormatCallback, type HtmlToTextOptions } from 'html-to-text';
import { simpleParser, type ParsedMail } from 'mailparser';
import { isAscii } from 'node:buffer';
import { createLogger } from '../logger.js';
import { comparableAddress, domainOf, isUsableAddress, normaliseAddress, parseAddressList, stripComments, type MailAddress } from './addresses.js';
import { decodeBytes, encodedWordCharset, guessLegacyCharset, hasJisCodesMailparserLoses, isJisLabel, isSupportedCharset, isValidUtf8, looksMisdecoded, rawHeaderCharset, relabelTextParts, withoutDataUriPayloads, type CharsetRepair, type RelabelledTextBudget } from './charsets.js';
import { asksOnlyInSubject, FORWARDED_DELIMITER, ORIGINAL_PARTS, reportsDelivery } from './classify.js';
import {
  BLOCK_DATE_FIRST,
  BLOCK_FROM,
  BLOCK_NEXT,
  BLOCK_RECIPIENT,
  INLINE_DATE_LABEL,
  INLINE_FROM_LABEL,
  INLINE_SUBJECT_LABEL,
  PIPE_QUOTE_LINE,
  PIPE_TABLE_ROW,
  REPLY_ORIGINAL_SEPARATOR,
  REPLY_ORIGINAL_WORDS,
  separatorLine,
} from './quote-markers.js';
import { deliveryReportOf, type DeliveryReport } from './delivery-report.js';
import { isZipArchive, onlyGreetings, onlyGreetingsAndIntroduction, unreadableReason } from './unreadable.js';
import { withoutHiddenElements } from './hidden-html.js';
import { limitHtmlNesting, MAX_HTML_DEPTH } from './html-nesting.js';
import { massMailingEvidence, questionSentences } from './mass-mailing.js';
import { removeControls, removeInvisible, visibleHeaderText } from './invisible.js';
import { NO_SUBJECT_PLACEHOLDERS } from './compose-reply.js';
import { normaliseMessageId, parseMessageIdList } from './message-id.js';

export type { MailAddress } from './addresses.js';

const log = createLogger('mail');

/** Metadata of one attachment; the content itself is not kept. */
export interface AttachmentInfo {
  /** The file name the sender gave (decoded), or undefined for an unnamed part. */
  filename: string | undefined;
  /** MIME type of the part, lower-case, e.g. `application/pdf`. */
  contentType: string;
  /** Decoded size in bytes. */
  size: number;
}

/** A parsed inbound mail. */
export interface InboundMail {
  /** Normalised Message-ID in `<left@right>` form, or undefined when the mail has none. */
  messageId: string | undefined;
  /** First usable mailbox of the From header, or undefined when there is none. */
  from: MailAddress | undefined;
  /**
   * First usable mailbox of the Reply-To header; its first mailbox when none is usable (the reply decision then
   * ignores the mail); undefined without a Reply-To. Replies go here when present.
   */
  replyTo: MailAddress | undefined;
  /** All mailboxes of the To header(s), groups flattened. */
  to: MailAddress[];
  /** All mailboxes of the Cc header(s), groups flattened. */
  cc: MailAddress[];
  /** Decoded subject, trimmed; '' when the mail has none. */
  subject: string;
  /** The Date header, or undefined when missing or unparseable. */
  date: Date | undefined;
  /**
   * The offset from UTC, in minutes, the Date header was written in (`+0900` → 540, `GMT` → 0): the sender's own
   * zone, which {@link date} as an instant loses. Absent without a readable {@link date}, and when the header names no
   * zone one can trust: `-0000` (RFC 5322 §3.3: the writer's zone is unknown), a military letter (RFC 5322 §4.3:
   * their signs were often written wrong), or an offset no zone has.
   */
  dateOffsetMinutes?: number;
  /** First well-formed msg-id of In-Reply-To, normalised; undefined when none. */
  inReplyTo: string | undefined;
  /**
   * Well-formed msg-ids of References, normalised, oldest first, malformed ones dropped; of a longer list, the first
   * (the thread's root) and the newest 99.
   */
  references: string[];
  /**
   * Raw (unfolded, trimmed) values of the top-level headers the reply decision reads ({@link CLASSIFIER_HEADERS}),
   * keyed by lower-case name, one array entry per occurrence in header order. Absent headers have no key.
   */
  headers: Record<string, string[]>;
  /** Top-level MIME type, lower-case, e.g. `text/plain`, `multipart/report` (`text/plain` when undeclared). */
  contentType: string;
  /**
   * The full plain text: the text/plain part(s), or the HTML converted to text when there is no plain part or the body
   * declares no type and is HTML.
   */
  text: string;
  /**
   * The customer's own words: {@link text} without quoted history and signatures, followed by the text of the mails
   * they forward, in the text or attached (see `extractQuestion`), or the subject when that leaves nothing; trimmed, ''
   * when neither has content. The checks that read the sender's words (an acknowledgement, an automatic notice) read
   * this; the ticket's question adds the subject where the words lean on it ({@link questionWithSubject}).
   */
  question: string;
  /**
   * The words of {@link question} the customer wrote themselves, as the parser found them: their note above the mails
   * they forward ('' when they only forward, whose text is then the question alone, unmarked), or the whole question
   * when they forward nothing with words. The draft checks let an account or address through only from these: a
   * forwarded mail is a stranger's, and the question cannot tell it from a note (bug review B3a HIGH 1, MED 2: a phish
   * that writes the forward delimiter itself, a forward under a subject with no Fwd:).
   */
  customerWords?: string;
  /** Attachments (and inline parts such as images) by name, type and size; not processed further. */
  attachments: AttachmentInfo[];
  /** Non-fatal problems met while parsing (truncation, malformed MIME, unparseable dates…); [] when none. */
  parseWarnings: string[];
  /** Charset trouble (unknown labels, undecodable bytes, replacement characters); absent when there was none. */
  charsetProblems?: string[];
  /**
   * For a bounce that may report a delivery (see `reportsDelivery`) that names the mail it returns: which mail and what happened to it; absent for
   * every other mail.
   */
  deliveryReport?: DeliveryReport;
  /**
   * Why the agent cannot answer the mail from its text (encrypted, only in winmail.dat, a calendar invitation), see
   * `unreadableReason`, led by what a parser limit cut of its text when one did ({@link TEXT_NOT_READ_WHOLE}); absent
   * for mail it can read.
   */
  unreadable?: string;
  /**
   * Why the reply would go to a sender the mail does not name unambiguously: more than one From field, or a From of
   * several mailboxes, whatever a Sender field says (e.g. `the sender cannot be told: 2 From fields (a@x.example,
   * b@y.example); …`); absent for a mail whose From names one mailbox. The draft then waits for a person.
   */
  senderUnclear?: string;
  /**
   * Why the mail's own text reads as a mass mailing though no header says so (an unsubscribe link in its footer, a
   * mass-mail footer line…), see `massMailingEvidence`; absent for other mail.
   */
  massMailing?: string;
  /**
   * The type of the first of the mail's own parts that is a mail or a mail's header section (`message/rfc822`,
   * `text/rfc822-headers`…), inline or attached, read from the raw MIME structure: mailparser reads an inline one into
   * the text and lists no attachment for it. Absent for other mail. A bounce returns one, a spam complaint reports one.
   */
  returnedOriginal?: string;
  /** The Feedback-Type of an ARF report (RFC 5965: `abuse`, `auth-failure`…), lower-case; absent for other mail. */
  feedbackType?: string;
}

/** Options of {@link parseInboundMail}. */
export interface ParseOptions {
  /** Bytes beyond this are not parsed (a warning says so). Default {@link DEFAULT_MAX_BYTES}. */
  maxBytes?: number;
  /** Header names to keep in {@link InboundMail.headers} besides {@link CLASSIFIER_HEADERS} (e.g. SPAM_HEADER). */
  extraHeaders?: readonly string[];
  /**
   * Our own addresses (MAIL_FROM, SUPPORT_ADDRESSES…, bare or `Name <addr>`): a sender line naming one under a
   * Chinese or Korean separator is our quoted mail whatever its domain (an internal helpdesk shares its customers').
   */
  ownAddresses?: readonly string[];
}

/**
 * How {@link InboundMail.unreadable} begins for a mail whose text a limit of the parser cut (the 500-part cut, the HTML
 * cut, the raw-bytes cut…): what lay past the cut may be the question, and the agent would answer the rest, often the
 * subject alone. What was cut follows in parentheses.
 */
export const TEXT_NOT_READ_WHOLE = "the mail's text was not read whole";

/** Thrown only for input that is not a mail at all (empty, no header field, or a header section it cannot read). */
export class MailParseError extends Error {
  override readonly name = 'MailParseError';
}

/** Default cap on the bytes parsed per mail: above common provider limits (25 MB) plus transfer-encoding overhead. */
export const DEFAULT_MAX_BYTES = 40 * 1024 * 1024;

/** Headers copied into {@link InboundMail.headers}; what the reply decision needs, nothing that bloats a queue job. */
export const CLASSIFIER_HEADERS: readonly string[] = [
  'auto-submitted',
  'x-autoreply',
  'x-auto-reply',
  'x-autorespond',
  'x-autoresponder',
  'x-auto-response-suppress',
  'precedence',
  'list-id',
  'list-unsubscribe',
  'list-post',
  'list-help',
  'list-subscribe',
  'list-owner',
  'list-archive',
  'x-mailing-list',
  'mailing-list',
  'x-ml-name',
  'x-mlserver',
  'x-loop',
  'return-path',
  'sender',
  'content-type',
  'x-failed-recipients',
  'x-ms-exchange-inbox-rules-loop',
  'x-ms-exchange-generated-message-source',
  'feedback-id',
];

// HTML larger than this is cut before conversion: html-to-text is linear but slow, and the question sits at the top.
const MAX_HTML_CHARS = 2_000_000;

/**
 * Most bytes of a mail's text/plain parts, all together, read again in the charset their bytes are in when their
 * label is wrong: far more than the 20,000 characters a ticket keeps of the text. Read whole, an 8 MB part of high
 * bytes held the poller for ten seconds.
 */
export const MAX_RELABELLED_TEXT_BYTES = 1024 * 1024;

/**
 * The same for text/html parts: one byte for each of the {@link MAX_HTML_CHARS} characters that are converted to
 * text. HTML's bulk (markup, style sheets, a pasted image's data: URI, megabytes of it before the customer's words) is
 * ASCII, one byte a character, so the part is read again as far as the conversion reads it, less only the extra bytes
 * of the kanji before the cut; that is still over 660,000 characters of UTF-8 kanji (three bytes each). Twice as many
 * bytes cost an 8 MB Shift_JIS HTML part 0.8 s and 340 MB instead of 0.65 s and 290 MB.
 */
export const MAX_RELABELLED_HTML_BYTES = MAX_HTML_CHARS;

const RELABELLED_TEXT_BUDGET: RelabelledTextBudget = { plain: MAX_RELABELLED_TEXT_BYTES, html: MAX_RELABELLED_HTML_BYTES };

// Only the start of the text is searched for the question; a customer's own words never run this long.
const MAX_QUESTION_SOURCE_CHARS = 16_000;
// email-reply-parser runs patterns with unbounded `[\s\S]+` spans over the whole text (its Danish "skrev" header
// goes cubic: 4,000 hostile characters cost ~0.5 s, 8,000 ~3 s). Longer texts get only our own, linear rules.
const MAX_REPLY_PARSER_CHARS = 4_000;

/** An element of the document html-to-text walks, as far as a table cell's formatter reads it. */
interface HtmlNode {
  type: string;
  name?: string;
  data?: string;
  children?: HtmlNode[];
  parent?: HtmlNode | null;
  prev?: HtmlNode | null;
  next?: HtmlNode | null;
}

/** The nearest sibling element before (`prev`) or after (`next`) `node`, skipping text and comments. */
function siblingElement(node: HtmlNode, side: 'prev' | 'next'): HtmlNode | undefined {
  let sibling = node[side];
  while (sibling && sibling.type !== 'tag') sibling = sibling[side];
  return sibling ?? undefined;
}

/** The last text node under `node` that is not blank, or undefined. */
function lastTextNode(node: HtmlNode): HtmlNode | undefined {
  if (node.type === 'text') return (node.data ?? '').trim() === '' ? undefined : node;
  const children = node.children ?? [];
  for (let i = children.length - 1; i >= 0; i--) {
    const text = lastTextNode(children[i]!);
    if (text) return text;
  }
  return undefined;
}

const isCell = (node: HtmlNode | undefined): boolean => node?.name === 'td' || node?.name === 'th';
const TABLE_SECTIONS = new Set(['thead', 'tbody', 'tfoot']);
// html-to-text's own spacing around a table: a blank line before and after it.
const TABLE_LINE_BREAKS = 2;

/**
 * A table row on a line of its own. The first row opens with the table's own spacing: html-to-text gives a block's
 * first line breaks to the block around it, so a first row of one line break would pull the table up to the text
 * before it, which no table did before rows had lines of their own.
 */
const formatTableRow: FormatCallback = (elem, walk, builder) => {
  const row = elem as unknown as HtmlNode;
  const section = row.parent;
  const first =
    siblingElement(row, 'prev')?.name !== 'tr' && !(section?.name && TABLE_SECTIONS.has(section.name) && siblingElement(section, 'prev'));
  builder.openBlock({ leadingLineBreaks: first ? TABLE_LINE_BREAKS : 1 });
  walk(elem.children, builder);
  builder.closeBlock({ trailingLineBreaks: 1 });
};

/**
 * A table cell as a reader sees a row: set off by a space from the cell before it, and a header cell that labels the
 * data cell after it followed by a colon (unless it ends with one). A web form's row `<th>お名前</th><td>鈴木</td>` reads
 * "お名前: 鈴木", and its empty field "お名前:", which the question check knows as an empty form field.
 */
const formatTableCell: FormatCallback = (elem, walk, builder) => {
  const cell = elem as unknown as HtmlNode;
  if (isCell(siblingElement(cell, 'prev'))) builder.addInline(' ');
  // The colon joins the label's last word, also when the label sits in a paragraph of its own (`<th><p>お名前</p>`).
  const label = cell.name === 'th' && siblingElement(cell, 'next')?.name === 'td' ? lastTextNode(cell) : undefined;
  if (label && !/[:：]\s*$/.test(label.data ?? '')) label.data = `${(label.data ?? '').trimEnd()}:`;
  walk(elem.children, builder);
};

const HTML_TO_TEXT: HtmlToTextOptions = {
  wordwrap: false,
  formatters: { tableRow: formatTableRow, tableCell: formatTableCell },
  selectors: [
    // Link targets are not visible words and may be tracking or hostile URLs; the link text stays.
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'head', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'template', format: 'skip' },
    { selector: 'iframe', format: 'skip' },
    { selector: 'object', format: 'skip' },
    { selector: 'svg', format: 'skip' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', options: { uppercaseHeaderCells: false } },
    // Each row on a line of its own: run together, a web form's fields read "お名前鈴木 花子メールアドレス…".
    { selector: 'tr', format: 'tableRow' },
    { selector: 'td', format: 'tableCell' },
    { selector: 'th', format: 'tableCell' },
  ],
};

// Charset problems named one by one; the rest are counted. A header of encoded-words, each in a charset of its own
// (`=?x-0?Q?a?= =?x-1?Q?a?= …`), makes tens of thousands, and a list that long helps no one reading a ticket.
const MAX_CHARSET_PROBLEMS = 20;

/** Collects warnings and charset problems without duplicates, and the characters removed from what strangers wrote. */
class Notes {
  readonly warnings: string[] = [];
  // Every distinct problem, in order: looked up per note (a list's `includes` made tens of thousands quadratic, a
  // minute for a 0.8 MB header), and what another reading's notes bring in ({@link Notes.addCharsetProblemsOf}).
  private readonly charsetSeen = new Set<string>();
  /** Invisible characters ({@link removeInvisible}) removed from the text, subject, display names and file names. */
  invisibleRemoved = 0;
  /** Control characters ({@link removeControls}) removed from the same. */
  controlsRemoved = 0;
  /** Runs of encoded-words read in another charset than their label ({@link encodedWordCharset}). */
  encodedWordsRepaired = 0;
  /** Runs of ISO-2022-JP encoded-words holding codes mailparser reads as `?` ({@link hasJisCodesMailparserLoses}). */
  jisWordsMailparserLoses = 0;
  /** What of the mail's text a limit left unread, for {@link TEXT_NOT_READ_WHOLE} (`only its first 500 MIME parts…`). */
  readonly cuts: string[] = [];
  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }
  /** A warning that some of the text was not read, and what was not, as the reason's words. */
  cut(warning: string, what: string): void {
    this.warn(warning);
    if (!this.cuts.includes(what)) this.cuts.push(what);
  }
  /** Records the warnings and cuts of `other` (a reading whose text is the one kept), as if they were found here. */
  addWarningsOf(other: Notes): void {
    for (const warning of other.warnings) this.warn(warning);
    for (const what of other.cuts) if (!this.cuts.includes(what)) this.cuts.push(what);
  }
  charsetProblem(message: string): void {
    this.charsetSeen.add(message);
  }
  /** Records the charset problems `other` recorded, as if they were found here. */
  addCharsetProblemsOf(other: Notes): void {
    for (const message of other.charsetSeen) this.charsetSeen.add(message);
  }
  /** The charset problems: the first {@link MAX_CHARSET_PROBLEMS}, then how many more there were. */
  get charset(): string[] {
    const named = [...this.charsetSeen].slice(0, MAX_CHARSET_PROBLEMS);
    const more = this.charsetSeen.size - named.length;
    return more > 0 ? [...named, `…and ${more.toLocaleString('en')} more charset problems`] : named;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Charset decoding for the header values we decode ourselves (addresses, 8-bit subjects).

/**
 * Decodes a raw header value. Bytes are UTF-8 when valid (RFC 6532); raw ISO-2022-JP (ESC sequences, sent unencoded by
 * old Japanese clients) is decoded as such; other 8-bit bytes are decoded by validity, see {@link guessLegacyCharset}.
 */
function decodeRawHeader(bytes: Buffer, charsets: HeaderCharsets, what: string, notes: Notes): string {
  return decodeWords(decodeRawBytes(bytes, charsets, what, notes), what, notes);
}

/** What a mail tells about the charset of its raw 8-bit header values. */
interface HeaderCharsets {
  /** The charset the mail declares (its top-level one, else the first other it names), for its headers too. */
  declared: string | undefined;
  /** The charset its raw 8-bit header values read in together, see {@link rawHeaderCharset}. */
  preferred: string | undefined;
}

// The headers whose raw values we decode; together they tell which charset a sender's client writes them in.
const DECODED_HEADERS = new Set(['subject', 'from', 'reply-to', 'to', 'cc']);

/**
 * An attachment's name as its sender wrote it when the name's raw 8-bit bytes stand in the part's header as they are
 * (Outlook Express and Foxmail write `name="绩效管理.xls"` in GBK, undeclared): mailparser reads each byte as a Latin-1
 * character (「¼¨Ð§¹ÜÀí.xls」). Read again as the mail's raw headers are ({@link readRawBytes}) only when those exact
 * bytes are a `name=` or `filename=` value in the raw mail (`rawNames`, {@link rawNameValues}) and are not UTF-8: a
 * name in RFC 2231 or an encoded-word that decodes to Latin-1 letters (`Gr%F6%DFe.pdf`, `=?iso-8859-1?Q?Gr=F6=DFe?=`)
 * is not found there raw and keeps its reading, and the same bytes by chance inside an 8-bit part's content are no
 * name. The charset note only when the reading changes: a Latin-1 name read as Latin-1 again was read right.
 */
function rawFilename(name: string, rawNames: () => ReadonlySet<string>, charsets: HeaderCharsets, notes: Notes): string {
  if (!/[\u0080-\u00ff]/.test(name) || /[^\u0000-\u00ff]/.test(name)) return name;
  const bytes = Buffer.from(name, 'latin1');
  if (isValidUtf8(bytes) || !rawNames().has(name)) return name;
  const read = readRawBytes(bytes, charsets);
  if (read.text !== name && read.charset) notes.charsetProblem(`attachment name: raw 8-bit bytes that are not UTF-8, decoded as ${read.charset}`);
  return read.text;
}

// A `name=` or `filename=` parameter's value, quoted or not, in any case. Linear: a quoted value ends at the next
// quote or line break, which the next `name="` holds.
const RAW_NAME_PARAMETER = /name=(?:"([^"\r\n]*)"|([^\s";]+))/gi;

/**
 * The values of the `name=` and `filename=` parameters in `input` that hold an 8-bit byte, as Latin-1 text (what
 * mailparser reads such a raw name as): read once per mail in one pass, for all its attachments' names (bug review
 * 46a: six searches of the whole mail per name took a 9.6 MB mail of 500 encoded-word names 9 s). Values in a part's
 * content are read too; only names mailparser read from a header are looked up.
 */
function rawNameValues(input: Buffer): Set<string> {
  const values = new Set<string>();
  for (const match of input.toString('latin1').matchAll(RAW_NAME_PARAMETER)) {
    const value = match[1] ?? match[2]!;
    if (/[\u0080-\u00ff]/.test(value)) values.add(value);
  }
  return values;
}

/** {@link decodeRawHeader} without the RFC 2047 step, for values that must be tokenised before words are decoded. */
function decodeRawBytes(bytes: Buffer, charsets: HeaderCharsets, what: string, notes: Notes): string {
  const read = readRawBytes(bytes, charsets);
  if (read.charset) notes.charsetProblem(`${what}: raw 8-bit bytes that are not UTF-8, decoded as ${read.charset}`);
  return read.text;
}

/** Raw 8-bit header bytes as text, and the legacy charset they were guessed to be in when they are not UTF-8. */
function readRawBytes(bytes: Buffer, charsets: HeaderCharsets): { text: string; charset?: string } {
  if (bytes.includes(0x1b)) return { text: new TextDecoder('iso-2022-jp').decode(bytes) };
  if (!bytes.some((b) => b >= 0x80) || isValidUtf8(bytes)) return { text: bytes.toString('utf8') };
  const guess = guessLegacyCharset(bytes, charsets.declared, { preferred: charsets.preferred });
  return { text: guess.text, charset: guess.charset };
}

const ENCODED_WORD = /=\?([^?\s*]+)(?:\*[^?\s]*)?\?([bBqQ])\?([^?\s]*)\?=/g;

function encodedWordBytes(encoding: string, payload: string): Buffer {
  if (encoding.toUpperCase() === 'B') return Buffer.from(payload, 'base64');
  const q = payload.replace(/_/g, ' ');
  const bytes: number[] = [];
  for (let i = 0; i < q.length; i++) {
    const hex = q.slice(i + 1, i + 3);
    if (q[i] === '=' && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(q.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

/**
 * RFC 2047 decoding. Adjacent encoded-words in one charset are joined before decoding, because senders split
 * multi-byte characters (and ISO-2022-JP shift states) across words; whitespace between encoded-words is dropped.
 */
export function decodeEncodedWords(value: string): string {
  return decodeWords(value, 'header', new Notes());
}

function decodeWords(value: string, what: string, notes: Notes): string {
  const matches = [...value.matchAll(ENCODED_WORD)];
  if (matches.length === 0) return value;
  let out = '';
  let cursor = 0;
  let pending: { charset: string; bytes: Buffer[]; raw: string } | undefined;
  const flush = (): void => {
    if (!pending) return;
    const bytes = Buffer.concat(pending.bytes);
    // UTF-8 labelled Latin-1 is read as UTF-8 here as in the body, or the reply's subject goes out as mojibake.
    const repaired = encodedWordCharset(bytes, pending.charset);
    if (repaired) {
      notes.encodedWordsRepaired += 1;
      notes.charsetProblem(`${what}: an encoded-word declared as ${pending.charset} was read as ${repaired}, which its bytes are in`);
    }
    if (isJisLabel(pending.charset) && hasJisCodesMailparserLoses(bytes)) notes.jisWordsMailparserLoses += 1;
    const decoded = decodeBytes(bytes, repaired ?? pending.charset);
    if (decoded === undefined) {
      notes.charsetProblem(`${what}: unknown charset "${pending.charset}" in an encoded-word`);
      out += pending.raw;
    } else {
      out += decoded;
    }
    pending = undefined;
  };
  for (const m of matches) {
    const [word, charset = '', encoding = 'B', payload = ''] = m;
    const index = m.index;
    const gap = value.slice(cursor, index);
    if (!(pending && /^[ \t\r\n]*$/.test(gap))) {
      flush();
      out += gap;
    }
    const bytes = encodedWordBytes(encoding, payload);
    if (pending && pending.charset.toLowerCase() === charset.toLowerCase()) {
      pending.bytes.push(bytes);
      pending.raw += word;
    } else {
      flush();
      pending = { charset, bytes: [bytes], raw: word };
    }
    cursor = index + word.length;
  }
  flush();
  return out + value.slice(cursor);
}

// ---------------------------------------------------------------------------------------------------------------
// Raw header access.

interface RawHeader {
  /** Lower-case, trimmed field name. */
  key: string;
  /** Unfolded value bytes (binary string from mailparser turned back into bytes). */
  bytes: Buffer;
}

const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;

function rawHeaders(mail: ParsedMail): RawHeader[] {
  const out: RawHeader[] = [];
  for (const { line } of mail.headerLines ?? []) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    // Trimmed because obsolete syntax allows `From  :` (RFC 5322 §4.5), which mailparser files under "from  ".
    const key = line.slice(0, colon).trim().toLowerCase();
    if (!FIELD_NAME.test(key)) continue;
    const value = line.slice(colon + 1).replace(/\r?\n(?=[ \t])/g, '').trim();
    // mailparser keeps header lines as binary strings: one char per byte.
    out.push({ key, bytes: Buffer.from(value, 'latin1') });
  }
  return out;
}

function rawText(bytes: Buffer): string {
  return isValidUtf8(bytes) ? bytes.toString('utf8') : bytes.toString('latin1');
}

function firstRaw(headers: RawHeader[], key: string): RawHeader | undefined {
  return headers.find((h) => h.key === key);
}

/** Charset labels declared in Content-Type fields anywhere in the raw mail (latin1 text), lower-case. */
function contentTypeCharsets(text: string): Set<string> {
  const labels = new Set<string>();
  for (const m of text.matchAll(/^content-type:[^\n]*(?:\n[ \t][^\n]*)*/gim)) {
    const param = /charset\s*=\s*(?:"([^"]*)"|([^\s;"]+))/i.exec(m[0]);
    const label = (param?.[1] ?? param?.[2] ?? '').trim();
    if (label) labels.add(label.toLowerCase());
  }
  return labels;
}

/**
 * True when a part labelled ISO-2022-JP may hold 8-bit bytes: the mail has some, or a part is in base64 or
 * quoted-printable. mailparser's ISO-2022-JP decoder turns Shift_JIS or EUC-JP bytes under that label (an old
 * mailer's mistake) into plausible kanji and kana without a replacement character, so such a label is judged on its
 * part's bytes whatever the text looks like. A plain 7-bit ISO-2022-JP mail, the usual kind, skips that pass.
 */
function mayHoldEightBitJis(raw: Buffer, partLabels: readonly string[]): boolean {
  if (!partLabels.some(isJisLabel)) return false;
  return !isAscii(raw) || /^content-transfer-encoding:\s*"?(?:base64|quoted-printable)/im.test(raw.toString('latin1'));
}

/**
 * Bytes at the start of a mail searched for ISO-2022-JP codes mailparser loses: more than the text parts read again
 * hold together ({@link MAX_RELABELLED_TEXT_BYTES} of plain text, {@link MAX_RELABELLED_HTML_BYTES} of HTML) with
 * their headers, and only those are read by our decoder (a part cut to that budget keeps mailparser's reading). The
 * scan of 38 MB of `ESC $ B` took 1.1 s and a 38 MB 7-bit attachment added 280 ms to every parse (review 45a); these
 * 4 MB take at most 80 ms (of ESC $ B). A text part after megabytes of attachments keeps mailparser's reading.
 */
const MAX_JIS_SCANNED_BYTES = 4 * 1024 * 1024;

/**
 * True when a 7-bit mail with a part labelled ISO-2022-JP holds, in its first {@link MAX_JIS_SCANNED_BYTES}, codes
 * mailparser reads as a plain `?` ({@link hasJisCodesMailparserLoses}): NEC row 13's ≒ ≡ ∫ √ ⊥ ∠ ∵ ∩ ∪, a carrier's
 * emoji. Such a part is read again by our decoder; an ordinary JIS mail is scanned once and read by mailparser only.
 */
function mayHoldJisCodesMailparserLoses(raw: Buffer, partLabels: readonly string[]): boolean {
  return partLabels.some(isJisLabel) && hasJisCodesMailparserLoses(raw.subarray(0, MAX_JIS_SCANNED_BYTES));
}

/** Charset labels declared in Content-Type fields and encoded-words anywhere in the raw mail. */
function declaredCharsets(raw: Buffer): { all: string[]; ofParts: string[] } {
  const text = raw.toString('latin1');
  const ofParts = contentTypeCharsets(text);
  const labels = new Set(ofParts);
  for (const m of text.matchAll(/=\?([^?\s*]+)(?:\*[^?\s]*)?\?[bBqQ]\?/g)) {
    if (m[1]) labels.add(m[1].toLowerCase());
  }
  return { all: [...labels], ofParts: [...ofParts] };
}

function mailboxes(headers: RawHeader[], key: string, charsets: HeaderCharsets, notes: Notes): MailAddress[] {
  const out: MailAddress[] = [];
  for (const header of headers.filter((h) => h.key === key)) {
    // Encoded-words are decoded per display name after tokenising: a decoded name may contain `,` or `<`.
    const value = decodeRawBytes(header.bytes, charsets, key, notes);
    for (const entry of parseAddressList(value)) {
      out.push({ address: entry.address, name: visibleLine(decodeWords(entry.name, key, notes), notes) });
    }
  }
  return out;
}

// Addresses an unclear sender's reason names; the rest are an ellipsis (a From of 1,000 addresses is one line).
const UNCLEAR_SENDER_ADDRESSES_NAMED = 2;
// Characters of one address named there: a quoted local part can be as long as the header.
const UNCLEAR_SENDER_ADDRESS_CHARS = 100;

/**
 * Why the mail's author cannot be told from its From ({@link InboundMail.senderUnclear}): RFC 5322 allows exactly one
 * From field. A reply goes to the first From address, which a hostile mail chooses (a bank's, above its own); a Sender
 * field, which RFC 5322 asks for beside several, names who sent the mail, not which author the reply goes to, and the
 * mail writes it as freely (review 42b: an empty `Sender:` let `From: ceo@bank.example, me@evil.example` through).
 * Undefined when the From fields name one mailbox however often written (a group of one, the same mailbox twice, with
 * a `+tag` or in other case or width: {@link comparableAddress}).
 */
function unclearSender(fromList: readonly MailAddress[], headers: readonly RawHeader[]): string | undefined {
  // The first spelling of each mailbox, in order.
  const byMailbox = new Map<string, string>();
  for (const { address } of fromList) {
    const mailbox = comparableAddress(address) ?? address.toLowerCase();
    if (!byMailbox.has(mailbox)) byMailbox.set(mailbox, address.toLowerCase());
  }
  const addresses = [...byMailbox.values()];
  if (addresses.length <= 1) return undefined;
  const fields = headers.filter((h) => h.key === 'from').length;
  const named = addresses.slice(0, UNCLEAR_SENDER_ADDRESSES_NAMED).map((a) => (a.length > UNCLEAR_SENDER_ADDRESS_CHARS ? `${a.slice(0, UNCLEAR_SENDER_ADDRESS_CHARS)}…` : a));
  const list = [...named, ...(addresses.length > named.length ? ['…'] : [])].join(', ');
  if (fields > 1) return `the sender cannot be told: ${fields.toLocaleString('en')} From fields (${list}); RFC 5322 allows one, and a reply would go to the first`;
  return `the sender cannot be told: a From of ${addresses.length.toLocaleString('en')} addresses (${list}); a reply would go to the first, and a Sender field does not choose it`;
}

/**
 * What a customer wrote on one line (a subject, a display name, a file name) as a reader sees it: without invisible
 * characters, control characters and line breaks (see {@link visibleHeaderText}); what was removed is counted in
 * `notes`. A name is shown beside the address it came with (`${name} <${address}>`): a right-to-left override left in
 * it reversed the address on the review page and in `review show`.
 */
function visibleLine(value: string, notes: Notes): string {
  const visible = visibleHeaderText(value);
  notes.invisibleRemoved += visible.invisibleRemoved;
  notes.controlsRemoved += visible.controlsRemoved;
  return visible.text;
}

/**
 * Most characters (code points) of a subject: RFC 5322's limit on a line. No mail client writes a longer one, and each
 * check that reads the subject, the review page and every list pay for its length (a 600 KB subject was accepted).
 */
export const MAX_SUBJECT_CHARS = 998;

/**
 * `subject` cut to {@link MAX_SUBJECT_CHARS} characters, the last of them an ellipsis, and its length in characters
 * when it was cut; never splits a surrogate pair.
 */
export function capSubject(subject: string): { subject: string; cutFrom?: number } {
  // UTF-16 units are never fewer than code points: a subject this short has no more characters than allowed.
  if (subject.length <= MAX_SUBJECT_CHARS) return { subject };
  let count = 0;
  // Where the first MAX_SUBJECT_CHARS - 1 characters end, in UTF-16 units.
  let end = 0;
  for (const char of subject) {
    count++;
    if (count < MAX_SUBJECT_CHARS) end += char.length;
  }
  if (count <= MAX_SUBJECT_CHARS) return { subject };
  return { subject: `${subject.slice(0, end)}…`, cutFrom: count };
}

// A Date header with comments is some 60 characters; anything much longer is not a date a client wrote.
const MAX_DATE_CHARS = 1_000;

/**
 * The Date header as a Date, or undefined. Parsed here because mailparser substitutes the current time for a date it
 * cannot read, which would silently misdate the ticket. Comments and the obsolete whitespace around `:` are removed
 * first (`09(comment):   55  :  06` → `09:55:06`).
 */
function parseDate(value: string): Date | undefined {
  const cleaned = cleanedDate(value);
  if (!cleaned) return undefined;
  const date = new Date(cleaned);
  return writableYear(date) ? date : undefined;
}

// RFC 5322 §3.3 writes a year in four digits. A year outside them is no date a client wrote, its ISO form
// (`+275760-09-13T…`, the ticket's `mailDate`) neither sorts nor compares with the others, and at the edge of the
// Date range (year 275760) the writer's offset moves it out, so quoting it in their time could not be done.
const FIRST_YEAR = 1;
const LAST_YEAR = 9999;

/** Whether `date` is a date (not NaN) in a year of four digits, 0001 to 9999 in UTC. */
function writableYear(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(year) && year >= FIRST_YEAR && year <= LAST_YEAR;
}

/** A Date header without comments and obsolete whitespace; undefined for one too long to be a date. */
function cleanedDate(value: string): string | undefined {
  if (value.length > MAX_DATE_CHARS) return undefined;
  // Whitespace runs are collapsed before the colons are tightened: `\s*:\s*` over a long run of spaces without a
  // colon backtracks once per space (300 KB of them held the event loop for minutes).
  return stripComments(value).replace(/\s+/g, ' ').replace(/ ?: ?/g, ':').trim();
}

// The zone at the end of a date-time (RFC 5322 §3.3 and its obsolete names, §4.3), after a time. An ISO 8601 `+09:00`
// is taken too: some webmail writes the header that way, and the Date constructor reads it.
const DATE_ZONE = /\d:\d\d(?::\d\d)? ?(?:([+-])(\d\d):?(\d\d)|(UT|GMT|EST|EDT|CST|CDT|MST|MDT|PST|PDT))$/i;
// RFC 5322 §4.3's North American zones.
const NAMED_ZONE_HOURS: Record<string, number> = { UT: 0, GMT: 0, EST: -5, EDT: -4, CST: -6, CDT: -5, MST: -7, MDT: -6, PST: -8, PDT: -7 };
// Kiribati is 14 hours ahead of UTC, Baker Island 12 behind: a larger offset is no zone a client writes in.
const MAX_ZONE_MINUTES = 14 * 60;

/** The offset, in minutes, a Date header was written in ({@link InboundMail.dateOffsetMinutes}); undefined when it names none. */
function dateOffsetMinutes(value: string): number | undefined {
  const match = DATE_ZONE.exec(cleanedDate(value) ?? '');
  if (!match) return undefined;
  if (match[4]) return NAMED_ZONE_HOURS[match[4].toUpperCase()]! * 60;
  const [hours, minutes] = [Number(match[2]), Number(match[3])];
  const offset = hours * 60 + minutes;
  if (minutes > 59 || offset > MAX_ZONE_MINUTES || (offset === 0 && match[1] === '-')) return undefined;
  return match[1] === '-' ? -offset : offset;
}

// Real threads reference a few dozen mails at most; a hostile References of thousands would ride on the ticket
// (rewritten on every state change) and on our reply.
const MAX_REFERENCES = 100;

/** The thread's root (the first id) and the newest ids (the parent last), at most {@link MAX_REFERENCES}. */
function capReferences(references: string[]): string[] {
  if (references.length <= MAX_REFERENCES) return references;
  return [references[0]!, ...references.slice(references.length - (MAX_REFERENCES - 1))];
}

function firstUsable(list: MailAddress[]): MailAddress | undefined {
  return list.find((entry) => isUsableAddress(entry.address));
}

// ---------------------------------------------------------------------------------------------------------------
// Question extraction.

// 写道：/寫道： is also "it says:" and 님이 작성: "Mr … wrote:", words a customer writes above what a screen or a
// letter said. So a Korean or Chinese attribution must name the writer's address (Gmail, Apple Mail, our own replies)
// or a date with a time, at the line's start (ours, Apple Mail, Thunderbird's 「在 2024/1/15 10:00, 王伟 写道:」) or after
// 于/於 (Gmail zh: 「王伟 <a@b> 于2024年1月15日周一 10:00写道：」, zh-TW: 「… 於 2024年1月15日 週一 上午10:05 寫道：」). Lazy
// scans of at most 300 characters, so a long line costs no more than the other patterns.
const MAIL_ADDRESS = String.raw`<[^<>\s@]+@[^<>\s@]+>|[\w.+-]@[\w-]+\.\w`;
const ATTRIBUTION_ADDRESS = String.raw`(?=.{0,300}?(?:${MAIL_ADDRESS}))`;
// "… writes:" is also what a customer or an operator writes above a quote of a manual or a screen ("The manual
// writes:"); Gnus's line names the writer's address, others the time of the mail (bug review 39, finding 7). "…
// wrote:" is a client's past tense (Thunderbird's "Name wrote:" has neither) and stays an attribution on its own.
const ATTRIBUTION_TIME = String.raw`(?=.{0,300}?\d{1,2}:\d\d)`;
const CJK_DATE = String.raw`\d{4}\s*(?:[年년]\s*\d{1,2}\s*[月월]\s*\d{1,2}\s*[日일]|[/.-]\d{1,2}[/.-]\d{1,2})`;
const ATTRIBUTION_DATE = String.raw`(?:\s*(?:在\s*)?|.{0,300}?[于於]\s*)${CJK_DATE}.{0,60}?\d{1,2}:\d\d`;
/** Korean and Chinese attribution lines (Gmail's and ours), each with an address or a date and time on it. */
const CJK_ATTRIBUTIONS: readonly RegExp[] = [
  new RegExp(String.raw`^(?:${ATTRIBUTION_ADDRESS}|(?=${ATTRIBUTION_DATE})).{0,300}님이\s*작성\s*[:：]\s*$`), // "2024년 1월 15일 (월) 오전 10:00, 김민수 <a@b>님이 작성:"
  new RegExp(String.raw`^(?:${ATTRIBUTION_ADDRESS}|(?=${ATTRIBUTION_DATE})).{0,300}(?:写道|寫道)\s*[:：]\s*$`), // "王伟 <a@b> 于2024年1月15日周一 10:00写道："
];

// How Gmail, Outlook, Apple Mail and Thunderbird end an attribution in Spanish, Portuguese, German, French, Italian,
// Dutch, Vietnamese and Thai (mail audit 7, 547: inline answers below 「El … escribió:」 were cut with the quote). German
// and Dutch put the verb before the name ("Am … um 10:02 Uhr schrieb Name <a@b>:", "Op … om 10:02 schreef Name <a@b>:").
// The name after the verb holds no colon, and white space before the colon is its own: no two runs that take spaces
// meet (a line of " schrieb" and spaces cost milliseconds).
const LOCALIZED_ATTRIBUTION_END = String.raw`(?:(?:\sescribió|\sescreveu|\sa\s+écrit|\sha\s+scritto|\shet volgende geschreven|\sđã viết|\s?เขียนว่า)\s*|\s(?:schrieb|schreef)(?:\s[^:：]{0,300})?)[:：]\s*$`;

// Gmail mobile (de): "Name <a@b> schrieb am Di., 4. März 2025, 09:12:", the time's colon right before the line's own.
// The writer's address and the time are both needed: "Mein Kollege schrieb am Montag:" is the customer's.
const GERMAN_MOBILE_ATTRIBUTION = /^[^<>]{0,300}<[^<>\s@]+@[^<>\s@]+>\s+schrieb\s+am\s[^:：<>]{1,120}?\d{1,2}:\d\d[:：]\s*$/;
// Gmail (ru): "пн, 3 февр. 2025 г. в 10:15, Name <a@b>:", no verb: the date with its "г. в", the time and the
// writer's address are all needed (mail round 12).
const RUSSIAN_GMAIL_ATTRIBUTION = /^[ \t]{0,20}(?:[а-яё]{2},\s)?\d{1,2}\s[а-яё]{3,5}\.?\s\d{4}\sг\.,?\s(?:в\s)?\d{1,2}:\d\d,?\s[^<>]{0,200}<[^<>\s@]+@[^<>\s@]+>\s*:\s*$/iu;
// Gmail (da, sv, no): "Den man. 3. feb. 2025 kl. 10.15 skrev Name <a@b>:" (older versions without "Den", Swedish
// "kl 10:15"): the date, the time (with a dot in Danish) and the writer's address. "I går kl. 10.15 skrev jeres
// tekniker:" is the customer's (mail round 12).
const SCANDINAVIAN_GMAIL_ATTRIBUTION =
  /^[ \t]{0,20}(?:den\s)?(?:\p{L}{2,4}\.?,?\s)?\d{1,2}\.?\s\p{L}{3,9}\.?\s\d{4},?\s(?:kl\.?\s)?\d{1,2}[.:]\d\d\sskrev\s[^<>]{0,200}<[^<>\s@]+@[^<>\s@]+>\s*:\s*$/iu;
/**
 * The attributions that name the writer's address, which their clients wrap over two lines before the address or
 * inside the date (「чт, 13 окт. 2022 г. в 16:43, Name⏎<a@b>:」, "Name <a@b> schrieb am So., 23.⏎Juni 2024, 21:08:").
 */
const WRAPPED_ADDRESS_ATTRIBUTIONS: readonly RegExp[] = [GERMAN_MOBILE_ATTRIBUTION, RUSSIAN_GMAIL_ATTRIBUTION, SCANDINAVIAN_GMAIL_ATTRIBUTION];
// Longer than two lines of an attribution: not joined.
const MAX_WRAPPED_ATTRIBUTION_CHARS = 600;

// Attribution lines that introduce quoted history, English, Japanese, Korean and Chinese client styles.
/** The attribution lines above a quoted original, as mail clients and our own replies write them. */
export const QUOTE_HEADER_PATTERNS: readonly RegExp[] = [
  /^\s*On\s.{1,300}\swrote\s*:\s*$/i, // Gmail, Apple Mail, Thunderbird (en)
  /^.{1,300}\swrote\s*:\s*$/i, // "Name <addr> wrote:" (our own replies), "Name wrote:" (Thunderbird without date)
  ...WRAPPED_ADDRESS_ATTRIBUTIONS,
  // Apple Mail (ru): "3 февр. 2025 г., в 10:15, Name <a@b> написал(а):", Thunderbird (ru): "03.02.2025 10:15, Name
  // пишет:": the writer's address, or Thunderbird's date opening with its own verb, so "Сегодня в 10:15 менеджер
  // написал:" (round 12) and "12.03.2025 10:15, ваш оператор написал:" (bug review 50) stay the customer's.
  new RegExp(String.raw`^(?:${ATTRIBUTION_ADDRESS}|(?=\s{0,20}\d{1,2}\.\d{1,2}\.\d{4}\s\d{1,2}:\d\d,.{1,300}\sпишет\s*:\s*$)).{1,300}\s(?:написал\(а\)|написала?|пишет)\s*:\s*$`, 'iu'),
  new RegExp(String.raw`^(?:${ATTRIBUTION_ADDRESS}|${ATTRIBUTION_TIME}).{1,300}\swrites\s*:\s*$`, 'i'), // "Name <addr> writes:" (Gnus)
  /^.{0,300}書きました\s*[:：]\s*$/, // Thunderbird ja: "2024/01/15 10:00 に 山田 さんは書きました:"
  /^.{0,300}(?:のメール|のメッセージ)\s*[:：]\s*$/, // Apple Mail / iOS ja: "2024/01/15 10:00、山田 <a@b>のメール:"
  /^\s*\d{4}年\s*\d{1,2}月\s*\d{1,2}日.{0,300}[:：]\s*$/, // Gmail ja: "2024年1月15日(月) 10:00 山田 <a@b>:"
  ...CJK_ATTRIBUTIONS,
];
export { REPLY_ORIGINAL_SEPARATOR };
/**
 * "El lun, 3 mar 2025 a las 10:02, Name (<a@b>) escribió:", "Le lun. 3 mars 2025 à 10:02, Name <a@b> a écrit :": the
 * client's date opening, then the writer's address or the mail's time. A customer writes the same verbs above what
 * someone told them (「Ayer a las 10:30 su técnico me escribió:」, bug review 41c), so such a line opens quoted history
 * only above `>` lines ({@link quotedHistoryStart}), and is no attribution to any other reader.
 */
const LOCALIZED_ATTRIBUTION = new RegExp(
  String.raw`^\s*(?:El|Em|Am|Le|Il|Op|Vào|เมื่อ)\s(?=.{0,40}?\d)(?:${ATTRIBUTION_ADDRESS}|${ATTRIBUTION_TIME}).{1,300}?${LOCALIZED_ATTRIBUTION_END}`,
);
// The words of a forward's separator: Gmail's in the user's language ("---------- Mensaje reenviado ---------"; mail
// audit 7, 580/582: kept in the question above the English one we write), Thunderbird's and Japanese clients'.
const FORWARDED_WORDS = String.raw`forwarded message|転送(?:された)?メッセージ|mensaje reenviado|mensagem encaminhada|weitergeleitete nachricht|message transf[ée]r[ée]|messaggio inoltrato|doorgestuurd bericht`;
const ORIGINAL_MESSAGE = separatorLine(String.raw`${REPLY_ORIGINAL_WORDS}|${FORWARDED_WORDS}`);
// Foxmail's separator (`------------------ Original ------------------`, over From:/Date:/To:/Subject: or
// 发件人:/发送时间:/收件人:/主题:). A bare "original" frames a customer's own text too (「--- original ---」 above their data
// as it was): it opens quoted history only above a header block.
const FOXMAIL_ORIGINAL = separatorLine('original');
// Apple Mail's heading over a forward, in the user's language (mail audit 7, 581: 「Anfang der weitergeleiteten
// Nachricht:」 was read as the customer's words and the invoice below it lost).
const BEGIN_FORWARDED =
  /^\s*(?:begin forwarded message|inicio del mensaje reenviado|in[íi]cio da mensagem (?:re)?encaminhada|anfang der weitergeleiteten (?:nachricht|e[-‐‑]?mail)|d[ée]but du message (?:réexpédié|transféré)|inizio (?:del )?messaggio inoltrato|begin doorgestuurd bericht|(?:以下[、，]?)?転送されたメッセージ|(?:以下是)?(?:转发的邮件|轉寄的郵件)|전달된 메시지)\s*[:：]\s*$/i;
const QUOTED_LINE = /^\s*[>＞]/;
// 发件人/寄件者/보낸 사람 and the labels after them (日期, 主题, 날짜, 제목, 참조) are everyday words: customers write them
// when they describe a sender setting, paste a bounce or fill in a form of their own (bug review 38d, finding 1). A
// block opened by one is a client's quote header only under a separator (「-----原始邮件-----」, Outlook's `____`) or
// with the shape clients write: the labels adjacent, among them a sent date with digits and a recipient.
const CJK_BLOCK_FROM = /^\s*(?:\*\s*)?(?:发件人|寄件者|보낸\s?사람)\s*(?:\*\s*)?[:：]/;
const CJK_BLOCK_SENT = /^\s*(?:\*\s*)?(?:发送时间|寄件日期|보낸\s?날짜|日期|날짜)\s*(?:\*\s*)?[:：][^\d\n]{0,40}\d/;
const CJK_BLOCK_TO = /^\s*(?:\*\s*)?(?:收件人|收件者|받는\s?사람)\s*(?:\*\s*)?[:：]/;
const CJK_ORIGINAL_MESSAGE = /原始邮件|原始郵件|원본\s?메시지/;
// A client's From line names the sender's address; a customer's own 发件人/보낸 사람 line (a setting, a form) does not.
const HOLDS_MAIL_ADDRESS = new RegExp(MAIL_ADDRESS);
// A sender line without a label under a separator (「XYZ 支持 <support@…>」, QQ's `"XYZ Support"<support@…>;`): a
// name, then an address that ends the line. Bounded parts, so a long line of word characters costs little; the `;`
// takes its trailing whitespace with it, so no two whitespace runs meet (a word-character name, an address, then a long
// run of spaces and one more character backtracked per space and per split of the name from the address: 23 s for a
// 16,000-character line, hostile-input audit 40).
const SENDER_LINE = /^[^@]{0,200}(?:<[^<>\s@]{1,64}@[^<>\s@]{1,255}>|[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8})\s*(?:[;；,]\s*)?$/;
// Longer than any real sender line: a name of 200 and an address of at most 322 characters in brackets, or 318 bare (a
// domain has at most 253), and a separator. The bare form's pattern would take up to 640 (eight labels of 63), which no
// domain reaches; a longer line is not scanned.
const MAX_SENDER_LINE_CHARS = 600;
// The date a client writes under such a sender line (QQ: 「2026年11月18日(星期三) 上午10:30」): a short line with a date
// or a time of day near its start.
const SENT_DATE_LINE = new RegExp(String.raw`^.{0,40}?(?:${CJK_DATE}|\d{1,2}:\d\d)`);
const MAX_SENT_DATE_LINE_CHARS = 80;
// The lines below a sender line (blank ones aside) where a client writes its date, a quote or a header label.
const SENDER_LINE_FOLLOWERS = 2;
// Outlook's rule above its header block in HTML mail turned to text.
const OUTLOOK_RULE = /^\s*_{5,}\s*$/;
// A line of the customer's asking, in the first paragraph under a CJK header block they pasted.
const CJK_ASKS = /[?？]\s*$|请问|麻烦|拜托|請問|麻煩|부탁|주세요|주시겠|주실\s?수/;
/**
 * A line of separator characters (`-----`, `━━━`, `＊＊＊`, em and en dashes `—————` as word processors and GitHub-style
 * signatures draw them) that frames a signature or a banner.
 */
export const SEPARATOR_LINE = /^\s*[-_=*＊━─―－~〜#+・=＝—–]{3,}\s*$/;
// The line a phone, a carrier or a mail app adds under a mail ("Sent from my iPhone", "Sent via Bell Mobility's Text
// Messaging service.", "Envoyé de mon iPhone", "Von meinem iPhone gesendet", "Galaxy から送信"…), in the languages of
// the customers we see. Matched against one trimmed line of at most MAX_FOOTER_CHARS.
// The store link Outlook mobile writes after its footer ("Get Outlook for iOS<https://aka.ms/o0ukef>").
const APP_LINK = String.raw`(?:\s?<https?://[^\s<>]{1,80}>)?`;
const SERVICE_FOOTER = new RegExp(
  `^(?:${[
    String.raw`(?:Sent|Envoyé|Enviado|Inviato|Gesendet|Verzonden|Verstuurd|Sendt|Skickat|Lähetetty|Wysłane|Отправлено)\s(?:from|via|with|by|using|de|depuis|par|avec|à partir de|desde|con|por|vía|do|pelo|a partir do|da|dal|tramite|von|mit|über|vom|vanaf|met|van|fra|från|med|från min|z|из|с)\s.{1,70}`,
    String.raw`Von meine[mr]\s.{1,40}\sgesendet`,
    // Outlook mobile's: "Get Outlook for Android" (newer versions' "Download Outlook for Android" is
    // OUTLOOK_DOWNLOAD_FOOTER), "Obtener Outlook para Android", 「Android 用 Outlook を入手」, with the store link the app
    // writes after them. Each names the platform and ends there, so a customer's "Get Outlook for Android crashes on
    // start" or 「Obtener Outlook para Android me da el error 0x80」 stays (bug reviews 41c, 41d).
    String.raw`Get Outlook for\s(?:Android|iOS)${APP_LINK}`,
    String.raw`Obtener Outlook para\s(?:Android|iOS)${APP_LINK}`,
    String.raw`(?:Obter|Obtenha|Baixe|Baixar) o Outlook para\s(?:Android|iOS)${APP_LINK}`,
    String.raw`Outlook für\s(?:Android|iOS)\sherunterladen${APP_LINK}`,
    String.raw`Scarica Outlook per\s(?:Android|iOS)${APP_LINK}`,
    String.raw`Outlook voor\s(?:Android|iOS)\sdownloaden${APP_LINK}`,
    String.raw`(?:Android|iOS)\s?用\s?(?:の\s?)?Outlook\s?を入手${APP_LINK}`,
    String.raw`[^、。?？]{1,40}からの?送信(?:されました)?`, // 「iPhoneから送信」, Android's 「Android携帯からの送信」
    String.raw`送信元\s*[:：]\s*.{1,40}`,
    String.raw`发自我的.{1,40}`,
    String.raw`(?:從|从)我的.{1,40}(?:傳送|發送|发送)`,
    String.raw`[^.!?]{1,40}에서 보냄`,
    // A ticket system's footer under the mail it sends (Zendesk: 「このメールは…から送信されています。[7KQ1XY-Z8P2]」).
    String.raw`(?:この|本)(?:メール|メッセージ)は.{1,60}(?:から|によって|により)(?:送信|配信)(?:されて(?:い|おり)ます|されました)。?(?:\s*\[[A-Z0-9-]{4,20}\])?`,
    String.raw`This (?:e-?mail|message) is a service from .{1,60}?\.?(?:\s*\[[A-Z0-9-]{4,20}\])?`,
  ].join('|')})$`,
  'iu',
);
// Newer Outlook mobile versions' tagline ("Download Outlook for Android<https://aka.ms/…>", mail round 11), read as
// SERVICE_FOOTER's "Get Outlook for" is; a pattern of its own, so SERVICE_FOOTER's reviewed regex-safety verdict holds.
const OUTLOOK_DOWNLOAD_FOOTER = new RegExp(String.raw`^Download Outlook for\s(?:Android|iOS)${APP_LINK}$`, 'iu');
// A footer is a short line; a longer one is a sentence of the customer's that starts the same way.
const MAX_FOOTER_CHARS = 80;
const CONTACT_MARKER =
  /@|https?:\/\/|www\.|\b(?:tel|fax|phone|mobile|mail)\b|電話|携帯|株式会社|有限会社|合同会社|\b(?:inc|ltd|llc|gmbh|corp)\b|〒|\d{2,4}-\d{2,4}-\d{3,4}/i;
// A line that asks: never a signature's, so a framed link or error with the customer's question below it stays.
const SIGNATURE_NEVER_ASKS = /(?:[?？]|(?:でしょう|ます|です)か[。.]?)\s*$/u;
// A sentence of five or more words that ends as one: what a customer writes under a table's underline or a rule above
// a link ("Please renew them and send the invoice to billing@…"), never a signature's line (mail round 11). Words
// split by spaces, so Japanese, which a signature rule frames most, is not read by it.
const PROSE_SENTENCE = /^\s*(?:\S+\s+){4,}\S*[.!]\s*$/u;

/** Whether a signature block's first line reads as a name line: short, no digit, no sentence end (Jane Doe, 山田 太郎, John Smith | Acme Corp). */
function opensWithName(line: string): boolean {
  const text = line.trim();
  return text.length <= 40 && !/[0-9０-９]/.test(text) && !/[.!?。！？]$/.test(text);
}
// Longest signature block (non-empty lines after its separator) we are willing to remove.
const MAX_SIGNATURE_LINES = 8;
// The count (`Re[2]:`) takes its trailing whitespace with it: two whitespace runs side by side around an optional
// group backtrack quadratically over a long run of spaces without a colon.
const REPLY_OR_FORWARD_PREFIX = /^\s*(?:(?:re|fwd?|aw|wg|sv|vs|antw|tr|réf|rif|odp|返信|転送|回复|答复|转发|回覆|轉寄|회신|답장|전달)\s*(?:(?:\[\d+\]|\(\d+\))\s*)?[:：]\s*)+/i;

/**
 * The last line of a localized attribution ({@link LOCALIZED_ATTRIBUTION}) at `index`: that line, or the next one when
 * the client wrapped it before the address and the line opens with the client's date (「El mar, 24 nov 2026 a las 15:02,
 * XYZ Support (<」), never when the next line is an attribution of its own. Undefined when there is none.
 */
function localizedAttributionEnd(lines: string[], index: number): number | undefined {
  const line = lines[index] ?? '';
  if (LOCALIZED_ATTRIBUTION.test(line)) return index;
  const next = lines[index + 1];
  if (next === undefined || !LOCALIZED_WRAPPED_START.test(line) || isQuoteHeader(next, lines[index + 2]) || LOCALIZED_ATTRIBUTION.test(next)) return undefined;
  return LOCALIZED_ATTRIBUTION.test(`${line.trimEnd()} ${next.trim()}`) ? index + 1 : undefined;
}
// A localized attribution's opening with its date right after it, a weekday's short name between ("El mar, 24",
// "Am Mo., 3.", "Le lun. 3", "Vào Th 3,", "Il 24/11"), case as the clients write it: "Am I right that order 4512…" is
// no date.
const LOCALIZED_WRAPPED_START = /^\s*(?:El|Em|Am|Le|Il|Op|Vào|เมื่อ)\s(?:\p{L}{1,4}\.?,?\s)?\d/u;
// How an attribution a client may wrap starts: "On …" or a date. Not the localized openings: "Am I right that order 4512
// ships today?" joined with an attribution below it read as one (bug review 41c).
const WRAPPED_ATTRIBUTION_START = /^\s*(?:On\s|\d{4}[年/-])/i;

function isQuoteHeader(line: string, next: string | undefined): boolean {
  if (QUOTE_HEADER_PATTERNS.some((re) => re.test(line))) return true;
  if (next === undefined) return false;
  // Clients wrap long attributions ("On …, Name <\naddr> wrote:"); try the line joined with the next one.
  if (WRAPPED_ATTRIBUTION_START.test(line) && QUOTE_HEADER_PATTERNS.some((re) => re.test(`${line.trimEnd()} ${next.trim()}`))) return true;
  return isWrappedAddressAttribution(line, next);
}

/**
 * True when `line` and `next` are one attribution of {@link WRAPPED_ADDRESS_ATTRIBUTIONS} wrapped in two, joined as the
 * client broke it (no space inside the address's `<…>`). Never when `next` alone is an attribution: the customer's
 * "Tak" joined to the line below would read as one.
 */
function isWrappedAddressAttribution(line: string, next: string): boolean {
  // Each names the writer's address: no `@`, no such attribution, and no pattern is tried.
  if (line.length + next.length > MAX_WRAPPED_ATTRIBUTION_CHARS || !`${line}${next}`.includes('@')) return false;
  if (QUOTE_HEADER_PATTERNS.some((re) => re.test(next))) return false;
  const head = line.trimEnd();
  const joined = head.endsWith('<') ? `${head}${next.trim()}` : `${head} ${next.trim()}`;
  return WRAPPED_ADDRESS_ATTRIBUTIONS.some((re) => re.test(joined));
}

function isHeaderBlockStart(lines: string[], index: number): boolean {
  if (isOneLineHeaderBlock(lines[index] ?? '')) return true;
  if (BLOCK_DATE_FIRST.test(lines[index] ?? '')) return opensDateFirstBlock(lines, index);
  if (opensSubjectFirstBlock(lines, index)) return true;
  if (!BLOCK_FROM.test(lines[index] ?? '')) return false;
  if (CJK_BLOCK_FROM.test(lines[index] ?? '') && !underSeparator(lines, index) && !isCjkClientHeader(lines, index)) return false;
  let seen = 0;
  for (let j = index + 1; j < lines.length && seen < 4; j++) {
    const line = lines[j] ?? '';
    if (line.trim() === '') continue;
    // Another From line opens a block of its own: this one's fields would have followed it at once. A customer's
    // "From: the Osaka branch" above a real block was read as its start, and all their words as the quote (round 11).
    if (BLOCK_FROM.test(line)) return false;
    seen++;
    // A From line without an address and a To line under it are also a customer's booking or trip ("From: London /
    // To: Paris", bug review B3b): a client's block has an address, or a Subject, Sent or Cc label among its next
    // lines (blank lines between them too, as some HTML gives them).
    if (BLOCK_NEXT.test(line) && (HOLDS_MAIL_ADDRESS.test(lines[index] ?? '') || HOLDS_MAIL_ADDRESS.test(line) || DATE_FIRST_BLOCK_LABEL.test(line))) return true;
  }
  return false;
}

// A one-line header block is no longer than a client's four fields.
const MAX_ONE_LINE_BLOCK_CHARS = 1000;
// How far after a one-line block's date label the date's first digit stands ("Enviado el: martes, 4 de …").
const ONE_LINE_DATE_REACH = 40;

/**
 * True for a header block on one line ("Date: … From: … To: … Subject: …": Outlook's or Apple's block whose line
 * breaks were lost; mail round 12): it opens with a From or a date label and holds a sender's, a date's (a digit soon
 * after it) and a subject's label ({@link INLINE_FROM_LABEL}).
 */
function isOneLineHeaderBlock(line: string): boolean {
  if (line.length > MAX_ONE_LINE_BLOCK_CHARS || !(BLOCK_FROM.test(line) || BLOCK_DATE_FIRST.test(line))) return false;
  const date = INLINE_DATE_LABEL.exec(line);
  const afterDate = date ? line.slice(date.index + date[0].length, date.index + date[0].length + ONE_LINE_DATE_REACH) : '';
  return /\d/.test(afterDate) && INLINE_FROM_LABEL.test(line) && INLINE_SUBJECT_LABEL.test(line);
}

// The label lines right below a block's Date line among which its From line stands: To, Cc and Subject may all come
// before it ("Sent: …⏎To: …⏎Cc: …⏎Subject: …⏎From: …"; session 51).
const DATE_FIRST_FOLLOWERS = 4;
// Italian Outlook's To label ("A: Anna Berg"), which BLOCK_NEXT leaves out (a lone "A:" opens a customer's answer as
// often): read only among the labels under a block's date line, and only capitalised as Outlook writes it.
const ITALIAN_BLOCK_TO = /^\s*(?:\*\s*)?A\s*(?:\*\s*)?:/;
// The lines below a Date-first block's From line without an address in which the block names an address or a label
// of its own ({@link DATE_FIRST_BLOCK_LABEL}): a client's To, Cc and Subject lines.
const DATE_FIRST_FROM_FOLLOWERS = 4;
// The labels of BLOCK_NEXT a customer's booking or trip does not write under its date and From line: a subject, a sent
// date, a copy (Subject/Sent/Cc in the languages BLOCK_NEXT knows). To and a date are not among them: "Date: 12 March⏎
// From: London⏎To: Paris" is a trip (bug review 50, B3b).
const DATE_FIRST_BLOCK_LABEL =
  /^\s*(?:\*\s*)?(?:sent|cc|subject|送信日時|送信日|件名|gesendet|betreff|envoyé|objet|enviad[oa](?:\s(?:em|el))?|assunto|asunto|inviato|oggetto|verzonden|onderwerp|sendt|emne|skickat|ämne|wysłano|dw|temat|odesláno|kopie|předmět|发送时间|抄送|主题|寄件日期|副本|主旨|보낸\s?날짜|참조|제목)\s*(?:\*\s*)?[:：]/i;

/**
 * True when the date line at `index` ({@link BLOCK_DATE_FIRST}) opens a header block: a From line among the next label
 * lines, adjacent as clients write them ("Date: …⏎From: …⏎To: …"; mail round 12), that names a mail address, has a
 * Subject or Cc label above it ({@link DATE_FIRST_BLOCK_LABEL}: "Sent: …⏎To: …⏎Subject: …⏎From: Shop Support", the From
 * line last; session 51), or has another label right below it and a client's block under it
 * ({@link namesClientBlockBelow}). A customer's "Date: 4 March suits us." over their own sentences is none, nor their
 * booking's "Date: 12 March 2025⏎From: London" over a blank line or "⏎To: Paris" (bug review 50: read as a block, their
 * words were lost), nor "Date: 12 March⏎To: Paris⏎From: London", which names no subject. A block whose From line is
 * last and names no address counts only below words of the customer's: on top of a mail it is their own memo head as
 * often, and read as a quote all their words would go.
 */
function opensDateFirstBlock(lines: string[], index: number): boolean {
  let namesSubject = false;
  for (let j = index + 1; j < lines.length && j <= index + DATE_FIRST_FOLLOWERS; j++) {
    const line = lines[j] ?? '';
    if (BLOCK_FROM.test(line)) return HOLDS_MAIL_ADDRESS.test(line) || (namesSubject && hasWordsAbove(lines, index)) || (BLOCK_NEXT.test(lines[j + 1] ?? '') && namesClientBlockBelow(lines, j));
    if (!BLOCK_NEXT.test(line) && !ITALIAN_BLOCK_TO.test(line)) return false;
    namesSubject ||= DATE_FIRST_BLOCK_LABEL.test(line);
  }
  return false;
}

// The label lines right below a Subject line among which a Subject-first block's date and From lines stand.
const SUBJECT_FIRST_FOLLOWERS = 3;

/**
 * True when the Subject line at `index` opens a header block as Thunderbird writes one ("Subject: …⏎Date: …⏎From: Name
 * <a@b>⏎To: …"; crisp-oss/email-forward-parser's thunderbird fixtures), pasted without the separator above it: a date
 * line with digits ({@link BLOCK_DATE_FIRST}), then a From line that names a mail address, among the adjacent label
 * lines below it. A customer's own "Subject: …⏎From: Anna" memo head names neither a date nor an address.
 */
function opensSubjectFirstBlock(lines: string[], index: number): boolean {
  const line = lines[index] ?? '';
  if (!BLOCK_SUBJECT.test(line) && !FORWARDED_SUBJECT.test(line)) return false;
  let dated = false;
  for (let j = index + 1; j < lines.length && j <= index + SUBJECT_FIRST_FOLLOWERS; j++) {
    const label = lines[j] ?? '';
    if (BLOCK_FROM.test(label)) return dated && HOLDS_MAIL_ADDRESS.test(label);
    if (BLOCK_DATE_FIRST.test(label)) dated = true;
    else if (!BLOCK_NEXT.test(label)) return false;
  }
  return false;
}

/** True when a line above `index` has words. */
function hasWordsAbove(lines: string[], index: number): boolean {
  for (let i = 0; i < index; i++) if (hasWords(lines[i] ?? '')) return true;
  return false;
}

/**
 * True when one of the lines right below the From line at `from`, up to a blank line, names a mail address or opens
 * with a Subject, Sent or Cc label ({@link DATE_FIRST_BLOCK_LABEL}): Outlook's "Sent: …⏎From: Shop Support⏎To: Casey⏎
 * Subject: …" names its subject, a customer's trip ("From: London⏎To: Paris CDG⏎Flight: AF1081") neither. Any line,
 * not only labels: Outlook's To line of many names wraps, and Italian's "A:" is none of BLOCK_NEXT.
 */
function namesClientBlockBelow(lines: string[], from: number): boolean {
  for (let j = from + 1; j < lines.length && j <= from + DATE_FIRST_FROM_FOLLOWERS; j++) {
    const line = lines[j] ?? '';
    if (line.trim() === '') return false;
    if (HOLDS_MAIL_ADDRESS.test(line) || DATE_FIRST_BLOCK_LABEL.test(line)) return true;
  }
  return false;
}

/**
 * True when the header block at `index` is the customer's own From and To lines on top of their mail ("De: Juan
 * Pérez⏎Para: Soporte⏎⏎Hola, no puedo entrar…", 「差出人: 田中⏎宛先: サポート」; mail round 12): nothing above it, no
 * address on its From line, and no label but recipients' right below it. A client's block names a date or a subject, or
 * the sender's address; read as a quote, the customer's words were lost and the mail parked as only a quote.
 */
function isOwnHeaderLinesOnTop(lines: string[], index: number): boolean {
  const from = lines[index] ?? '';
  if (lines.slice(0, index).some((l) => l.trim() !== '') || !BLOCK_FROM.test(from) || HOLDS_MAIL_ADDRESS.test(from) || isOneLineHeaderBlock(from)) return false;
  let end = index + 1;
  while (end < lines.length && BLOCK_NEXT.test(lines[end] ?? '')) end += 1;
  return lines.slice(index + 1, end).every((l) => BLOCK_RECIPIENT.test(l));
}

/** Index of the first non-blank line after `index`, or -1. */
function nextContentIndex(lines: string[], index: number): number {
  for (let i = index + 1; i < lines.length; i++) if ((lines[i] ?? '').trim() !== '') return i;
  return -1;
}

/** True when the line above `index` (blank lines aside) is a reply's separator or Outlook's rule. */
function underSeparator(lines: string[], index: number): boolean {
  const above = lines
    .slice(0, index)
    .reverse()
    .find((l) => l.trim() !== '');
  return above !== undefined && (ORIGINAL_MESSAGE.test(above) || FOXMAIL_ORIGINAL.test(above) || OUTLOOK_RULE.test(above));
}

/**
 * True when the CJK From line at `index` heads the block a mail client writes: at least two adjacent labels below it,
 * a sent date with digits and a recipient among them, and either an address on the From line or no question of the
 * customer's own right under it with nothing quoted further down (a sender's header pasted to ask about it). Under a
 * client's block with the sender's address, a paragraph that asks is our previous answer asking back (bug review 39,
 * finding 1).
 */
function isCjkClientHeader(lines: string[], index: number): boolean {
  let end = index + 1;
  while (end < lines.length && BLOCK_NEXT.test(lines[end] ?? '')) end += 1;
  const labels = lines.slice(index + 1, end);
  if (labels.length < 2 || !labels.some((l) => CJK_BLOCK_SENT.test(l)) || !labels.some((l) => CJK_BLOCK_TO.test(l))) return false;
  return HOLDS_MAIL_ADDRESS.test(lines[index] ?? '') || !customerAsksBelow(lines, end);
}

/** True when the first paragraph from `start` asks or requests and no quoted mail follows it. */
function customerAsksBelow(lines: string[], start: number): boolean {
  let first = start;
  while (first < lines.length && (lines[first] ?? '').trim() === '') first += 1;
  let end = first;
  while (end < lines.length && (lines[end] ?? '').trim() !== '') end += 1;
  if (!lines.slice(first, end).some((l) => CJK_ASKS.test(l))) return false;
  const rest = lines.slice(end);
  return !rest.some((l, i) => QUOTED_LINE.test(l) || ORIGINAL_MESSAGE.test(l) || BEGIN_FORWARDED.test(l) || BLOCK_FROM.test(l) || isQuoteHeader(l, rest[i + 1]));
}

/**
 * True for a reply's separator line at `index`. A Chinese or Korean one (「-----原始邮件-----」) counts only above a
 * header, an attribution, a sender line that heads a quoted mail ({@link opensQuotedMail}; `recipients` are the To and
 * Cc addresses that may be ours, lower-case: {@link ourMailboxesOf}) or a quoted line: a customer may write it in a
 * question about the line itself. Foxmail's ({@link FOXMAIL_ORIGINAL}) counts only above a header block.
 */
function isOriginalMessageSeparator(lines: string[], index: number, recipients: readonly string[]): boolean {
  const line = lines[index] ?? '';
  if (FOXMAIL_ORIGINAL.test(line)) {
    const at = nextContentIndex(lines, index);
    return at >= 0 && isHeaderBlockStart(lines, at);
  }
  if (!ORIGINAL_MESSAGE.test(line)) return false;
  if (!CJK_ORIGINAL_MESSAGE.test(line)) return true;
  const at = nextContentIndex(lines, index);
  if (at < 0) return false;
  const next = lines[at] ?? '';
  if (isSenderLine(next)) return opensQuotedMail(lines, at, recipients);
  return BLOCK_FROM.test(next) || BLOCK_NEXT.test(next) || QUOTED_LINE.test(next) || isQuoteHeader(next, lines[at + 1]);
}

/**
 * True when the bare sender line at `index` (under a CJK separator) heads a quoted mail: it names one of `recipients`
 * (the mailbox written to, not a colleague Cc'd: so the quote is of our mail, whose answer may well ask back: bug
 * review 39d, finding 4), a client writes its date, a quote or a header label right below it, or the text below asks
 * nothing (our answer's words). A customer quotes such a line in a new mail and asks about it below, with nothing quoted further down (bug
 * review 39b, finding 3).
 */
function opensQuotedMail(lines: string[], index: number, recipients: readonly string[]): boolean {
  if (namesRecipient(lines[index] ?? '', recipients)) return true;
  let seen = 0;
  for (let i = index + 1; i < lines.length && seen < SENDER_LINE_FOLLOWERS; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    seen += 1;
    if (QUOTED_LINE.test(line) || BLOCK_FROM.test(line) || BLOCK_NEXT.test(line) || isSentDateLine(line)) return true;
  }
  return !customerAsksBelow(lines, index + 1);
}

/**
 * The addresses a sender line may name as our own mailbox: our `ownAddresses` (lower-case), and the `recipients` (To
 * and Cc, lower-case) off the `sender`'s domain. A customer's colleague in Cc shares that domain (bug review 39f,
 * finding 3); our own addresses count on it too, for an internal helpdesk (39g, finding 1). All recipients when the
 * sender has no address.
 */
function ourMailboxesOf(recipients: readonly string[], sender: MailAddress | undefined, ownAddresses: readonly string[] = []): string[] {
  const domain = domainOf(sender?.address ?? '');
  const offDomain = domain === '' ? recipients : recipients.filter((address) => domainOf(address) !== domain);
  const own = ownAddresses.flatMap((address) => normaliseAddress(address) ?? []);
  return [...new Set([...offDomain, ...own])];
}

/** True when the sender `line` names one of `recipients` (lower-case) as its address. */
function namesRecipient(line: string, recipients: readonly string[]): boolean {
  const address = MAIL_ADDRESS_IN_HEADER.exec(line)?.[0]?.toLowerCase();
  return address !== undefined && recipients.includes(address);
}

/** True when `line` is a bare sender line ({@link SENDER_LINE}); trailing whitespace aside, a short line only. */
function isSenderLine(line: string): boolean {
  const trimmed = line.trimEnd();
  return trimmed.length <= MAX_SENDER_LINE_CHARS && SENDER_LINE.test(trimmed);
}

function isSentDateLine(line: string): boolean {
  return line.length <= MAX_SENT_DATE_LINE_CHARS && SENT_DATE_LINE.test(line) && !CJK_ASKS.test(line);
}

/**
 * Index of the first line of quoted history (attribution, separator or header block), or -1. `recipients` (the To and
 * Cc addresses that may be ours, lower-case: {@link ourMailboxesOf}) mark a quote of our own mail
 * ({@link opensQuotedMail}).
 */
function quotedHistoryStart(lines: string[], recipients: readonly string[] = []): number {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    if (isOriginalMessageSeparator(lines, i, recipients) || BEGIN_FORWARDED.test(line)) return i;
    if (isHeaderBlockStart(lines, i) && !isOwnHeaderLinesOnTop(lines, i)) return i;
    const localized = isQuoteHeader(line, lines[i + 1]) ? undefined : localizedAttributionEnd(lines, i);
    if (localized !== undefined || isQuoteHeader(line, lines[i + 1])) {
      // A wrapped attribution ends on the next line.
      const end = localized ?? (QUOTE_HEADER_PATTERNS.some((re) => re.test(line)) ? i : i + 1);
      const next = lines.slice(end + 1).find((l) => l.trim() !== '');
      // Attribution followed by `>` lines: bottom-posted answers below the quote must survive, so only the
      // attribution goes here and the quoted lines are dropped later. Otherwise everything below is history, but for
      // a localized line ({@link LOCALIZED_ATTRIBUTION}), which without `>` lines below is the customer's own.
      if (next !== undefined && QUOTED_LINE.test(next)) {
        lines.fill('', i, end + 1);
        i = end;
        continue;
      }
      if (localized !== undefined) continue;
      return i;
    }
  }
  return -1;
}

/**
 * True for lines of contact details: a few non-empty lines, one of them a phone, an address or a company name, none
 * of them a question (a customer may well name an address or a number in the one sentence they write).
 */
function isContactBlock(lines: string[]): boolean {
  const content = lines.filter((l) => l.trim() !== '' && !SEPARATOR_LINE.test(l));
  if (content.length === 0 || content.length > MAX_SIGNATURE_LINES || content.some((l) => /[?？]\s*$/.test(l))) return false;
  return content.some((l) => CONTACT_MARKER.test(l));
}

/**
 * Removes a trailing separator-delimited block that looks like contact details (Japanese-style signatures). A text
 * that is nothing but such a block (a screenshot sent with the signature only) is left empty, so the subject is the
 * question; a block at the top with anything after its closing separator is kept, as it may be a banner, and so is a
 * block with a question in it or below it ({@link SIGNATURE_NEVER_ASKS}) or a sentence of prose ({@link PROSE_SENTENCE})
 * but for a mass mailing's footer ({@link massMailingEvidence}).
 */
export function stripSignatureBlock(lines: string[]): string[] {
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first >= 0 && SEPARATOR_LINE.test(lines[first] ?? '')) {
    const close = lines.findIndex((l, i) => i > first && SEPARATOR_LINE.test(l));
    const after = close < 0 ? [] : lines.slice(close + 1);
    if (after.every((l) => l.trim() === '' || SEPARATOR_LINE.test(l)) && isContactBlock(lines.slice(first + 1, close < 0 ? undefined : close))) return [];
  }
  for (let i = 1; i < lines.length; i++) {
    if (!SEPARATOR_LINE.test(lines[i] ?? '')) continue;
    if (!lines.slice(0, i).some((l) => l.trim() !== '' && !SEPARATOR_LINE.test(l))) continue;
    const tail = lines.slice(i + 1).filter((l) => l.trim() !== '' && !SEPARATOR_LINE.test(l));
    const signatureLike = tail.length === 0 || tail.some((l) => CONTACT_MARKER.test(l));
    if (tail.length > MAX_SIGNATURE_LINES || !signatureLike || tail.some((l) => SIGNATURE_NEVER_ASKS.test(l))) continue;
    // A newsletter's or a no-reply sender's footer is written in sentences too; its block goes as a signature's would.
    // A signature opens with a name, and a sentence lower down (a confidentiality line, a slogan) is its own (bug review
    // B4); a block that opens with anything else (the customer's sentence, a table's row) and holds a sentence is theirs.
    const customersProse = PROSE_SENTENCE.test(tail[0] ?? '') || (!opensWithName(tail[0] ?? '') && tail.some((l) => PROSE_SENTENCE.test(l)));
    if (!customersProse || massMailingEvidence({ text: lines.slice(i).join('\n'), quoted: false }) !== undefined) {
      return lines.slice(0, i);
    }
  }
  return lines;
}

/**
 * Cuts at the last `-- ` delimiter (RFC 3676 §4.3) that has content above it and a short block below. A delimiter
 * with nothing above it cuts too when the block below looks like contact details (a screenshot sent with the
 * signature only), so the subject is the question rather than the sender's name and phone number.
 */
export function stripDelimitedSignature(lines: string[]): string[] {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!/^--\s?$/.test(lines[i] ?? '')) continue;
    const below = lines.slice(i + 1);
    if (below.filter((l) => l.trim() !== '').length > MAX_SIGNATURE_LINES + 4) continue;
    if (lines.slice(0, i).some((l) => l.trim() !== '') || isContactBlock(below)) return lines.slice(0, i);
  }
  return lines;
}

/**
 * Cuts a phone's, carrier's or mail app's footer line ({@link SERVICE_FOOTER}, {@link OUTLOOK_DOWNLOAD_FOOTER}) among
 * the last three lines of text, with what follows it and the separator lines that framed it.
 */
function stripServiceFooter(lines: string[]): string[] {
  const contentIndexes = lines.flatMap((l, i) => (l.trim() === '' || SEPARATOR_LINE.test(l) ? [] : [i]));
  // Only near the end: "Sent from my iPhone" mid-text is more likely part of what the customer says.
  for (const i of contentIndexes.slice(-3)) {
    if (isServiceFooter(lines[i] ?? '')) return withoutTrailingSeparators(lines.slice(0, i));
  }
  return lines;
}

function isServiceFooter(line: string): boolean {
  const text = line.trim();
  // A question is the customer's, however it starts ("Sent by courier on Monday: has it arrived?").
  return text.length <= MAX_FOOTER_CHARS && !/[?？]$/.test(text) && (SERVICE_FOOTER.test(text) || OUTLOOK_DOWNLOAD_FOOTER.test(text));
}

function withoutTrailingSeparators(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && (lines[end - 1]!.trim() === '' || SEPARATOR_LINE.test(lines[end - 1]!))) end -= 1;
  return lines.slice(0, end);
}

/**
 * The subject without `Re:`/`Fwd:`/`返信:`… prefixes, for use as the question of a body-less mail; '' for the
 * placeholder our reply gave a mail without a subject (`Re: (no subject)`).
 */
export function subjectAsQuestion(subject: string): string {
  const bare = subject.replace(REPLY_OR_FORWARD_PREFIX, '').trim();
  return NO_SUBJECT_PLACEHOLDERS.includes(bare) ? '' : bare;
}

/**
 * The customer's own words in `text`: quoted history (`>` lines, "On … wrote:", Japanese attributions, Outlook
 * "-----Original Message-----" / `差出人:` header blocks) and signatures (`-- `, "Sent from my…" and other service
 * footers, closing blocks email-reply-parser knows, separator-delimited contact blocks) removed. When the history is
 * a forwarded mail (a forwarding subject, or a forwarded-message marker) rather than the answer being replied to, the
 * forwarded mail's own text is what the customer asks about: it follows their note under a
 * {@link FORWARDED_DELIMITER} line with its From and Subject (cut to {@link MAX_FORWARDED_CHARS}), or is the question
 * alone when they wrote nothing above it. Else, with nothing of their own, the subject (without reply prefixes); ''
 * when neither has content.
 */
export function extractQuestion(text: string, subject = ''): string {
  const own = ownTextOf(text, subject);
  return withForwards(own.note, own.forwarded ? [own.forwarded] : []) ?? subjectAsQuestion(subject);
}

/** What the customer wrote of their own in a mail's text, as the question reads it. */
interface OwnText {
  /** Their words above any quoted or forwarded history, without quoted lines, signatures and footers; may be ''. */
  note: string;
  /** The mail they forward in the text, when its history is a forward rather than the answer replied to. */
  forwarded: ForwardedMessage | undefined;
  /**
   * Their words that vouch for what they write (their own account or address) when that is less than `note`: above a
   * mail they pasted, not below its closing separator, which the pasted mail itself may have written (bug review B4).
   */
  vouching?: string;
  /** True when `forwarded` is a mail pasted in with no marker of a forward ({@link isPastedMail}). */
  pasted?: boolean;
}

/**
 * The customer's own part of `text` (its first MAX_QUESTION_SOURCE_CHARS): their note and a mail they forward in it.
 * `recipients` are the To and Cc addresses, lower-case; `ourMailboxes` those of them that may be ours
 * ({@link ourMailboxesOf}); `reply` when the mail replies to another (threading headers or a reply subject), where
 * runs of `|` lines are a quote ({@link withPipeQuotesMarked}).
 */
function ownTextOf(
  text: string,
  subject: string,
  recipients: readonly string[] = [],
  ourMailboxes: readonly string[] = recipients,
  reply: boolean = REPLY_OR_FORWARD_PREFIX.test(subject) && !FORWARD_SUBJECT.test(subject),
  customer?: string,
): OwnText {
  let source = text.replace(/\r\n?/g, '\n');
  if (source.length > MAX_QUESTION_SOURCE_CHARS) {
    const cut = source.lastIndexOf('\n', MAX_QUESTION_SOURCE_CHARS);
    source = source.slice(0, cut > 0 ? cut : cutOutsidePlaceholder(source, MAX_QUESTION_SOURCE_CHARS));
  }
  const signed = unwrapClearSigned(source.split('\n'));
  const unwrapped = reply ? withPipeQuotesMarked(signed) : signed;
  // A copy: quotedHistoryStart blanks the attributions above `>` lines, which the banner check must still see as before.
  const all = withoutExternalBanner(atReplyMarker(unwrapped, quotedHistoryStart([...unwrapped], ourMailboxes)));
  const historyStart = quotedHistoryStart(all, ourMailboxes);
  const pasted = pastedMail(all, historyStart, recipients);
  if (pasted) return pasted;
  if (historyStart < 0) return { note: ownWords(all), forwarded: undefined };
  const memoBody = !reply && customer !== undefined ? ownMemoBodyStart(all, historyStart, customer) : -1;
  if (memoBody >= 0) return ownTextOf(all.slice(memoBody).join('\n'), subject, recipients, ourMailboxes, reply, customer);
  let history = all.slice(historyStart);
  let note = ownWords(all.slice(0, historyStart));
  if (!hasWords(note)) {
    // Bottom-posted: nothing above the history, so the customer may have written below it.
    const below = noteBelowHistory(history, recipients, customer);
    if (below) ({ note, history } = { note: below.note, history: history.slice(0, below.start) });
  }
  const marked = isForward(all[historyStart] ?? '', subject) || pointsAtHistory(note, history, recipients);
  const pastedIn = !marked && isPastedMail(all, historyStart, reply, ourMailboxes);
  return { note, forwarded: marked || pastedIn ? forwardedMessage(history) : undefined, ...(pastedIn ? { pasted: true } : {}) };
}

/**
 * Where the customer's words start below a header block at `historyStart` that is their own memo head: on top of the
 * text (nothing above it), its From line naming `customer`, the address they write from ("Subject: Broken item⏎Date: 3
 * March 2025⏎From: Anna Berg <anna@…>⏎⏎The mug arrived broken."). Such a block is theirs, no pasted mail nor quote, and
 * was parked with no words of theirs (bug review R2, finding 6). -1 for any other block. Only in a mail that replies to
 * nothing (the caller's): atop a reply it is their earlier mail quoted.
 */
function ownMemoBodyStart(lines: string[], historyStart: number, customer: string): number {
  if (hasWordsAbove(lines, historyStart) || !isHeaderBlockStart(lines, historyStart)) return -1;
  const history = lines.slice(historyStart);
  const headEnd = forwardHeadEnd(history);
  return headEnd > 0 && isFromRecipient(history.slice(0, headEnd), [customer.toLowerCase()]) ? historyStart + headEnd : -1;
}

// A MIME part's own field in the text: a mail whose structure broke (a part's header lost, its parts read as text), no
// mail a person pasted. Its header blocks stay a quote, so no raw part lands in the question under a forward's head.
const RAW_MIME_FIELD = /^content-type[ \t]{0,5}:/i;

/**
 * True when the history at `historyStart` is a mail the customer pasted into a mail of their own: a mail's header
 * block ({@link isHeaderBlockStart}: "From: XYZ Billing <billing@…>⏎Sent: …⏎Subject: …") that names a mail address,
 * in a mail that replies to nothing (no threading headers, no reply subject: the caller's `reply`), from none of
 * `ourMailboxes` (our answer, pasted below a new mail, stays a quote). A block without an address is a device's or a
 * form's as often (a scanner's 「送信元：RICOH …⏎送信日時：…」 under its notice) and stays as it was read. No "Fwd:", no
 * separator: read as a quote, it was dropped from the question, and where the block went unseen its words vouched as
 * the customer's (session 51). As a forward it stays in the question, and only the words above it vouch
 * ({@link InboundMail.customerWords}); a customer's own mail pasted so vouches no more, which parks a refund reply at
 * worst.
 */
function isPastedMail(lines: string[], historyStart: number, reply: boolean, ourMailboxes: readonly string[]): boolean {
  if (reply || !isHeaderBlockStart(lines, historyStart) || lines.some((line) => RAW_MIME_FIELD.test(line))) return false;
  const history = lines.slice(historyStart);
  const head = history.slice(0, forwardHeadEnd(history));
  return head.some((line) => HOLDS_MAIL_ADDRESS.test(line)) && !isFromRecipient(head, ourMailboxes);
}

// Words above a run of `|` lines that point at it: the customer's own list, log or pasted text follows.
const POINTS_AT_RUN = /以下|下記|次の|[:：]\s*$|\b(?:following|below)\b/iu;
// The fewest `|` lines in a row read as a quote: one or two are a customer's own marks as often (a log line, a path).
const MIN_PIPE_QUOTE_LINES = 3;

/**
 * `lines` with the runs of `|`-quoted lines ({@link PIPE_QUOTE_LINE}: older Japanese mailers' mark, audit 413) marked
 * as `>` quotes, so our previous answer is not read as the customer's words. Only in a reply (the caller's to know),
 * only runs of {@link MIN_PIPE_QUOTE_LINES} or more without a table row ({@link PIPE_TABLE_ROW}), and only where a
 * quote stands: under an attribution line, or at the end of the text (the customer top-posts) below words that do not
 * point at it ({@link POINTS_AT_RUN}). A table or a drawing the customer writes in the middle of their text stays
 * theirs.
 */
function withPipeQuotesMarked(lines: string[]): string[] {
  const marked = [...lines];
  for (let start = 0; start < lines.length; start++) {
    if (!PIPE_QUOTE_LINE.test(lines[start] ?? '')) continue;
    let end = start;
    while (end < lines.length && PIPE_QUOTE_LINE.test(lines[end] ?? '')) end += 1;
    const run = lines.slice(start, end);
    // Under an attribution line, or ending the text (the customer top-posts) unless the words above point at it: then
    // it is the customer's own list or pasted text (「以下の3点を教えてください。⏎| 1. …」, 「エラー内容：」; bug review 41b).
    const above = lastNonBlankBefore(lines, start);
    const atEnd = lines.slice(end).every((line) => line.trim() === '' || PIPE_QUOTE_LINE.test(line));
    const quoteStands = isQuoteHeader(above, undefined) || (atEnd && !POINTS_AT_RUN.test(above));
    if (run.length >= MIN_PIPE_QUOTE_LINES && !run.some((line) => PIPE_TABLE_ROW.test(line)) && quoteStands) {
      for (let i = start; i < end; i++) marked[i] = (lines[i] ?? '').replace(/^([ \t]*)[|｜]/, '$1>');
    }
    start = end;
  }
  return marked;
}

// Words that point at a mail pasted below them: 「以下のメールが届きました」, 「下記のメッセージ」, 「次のようなメール」, "the
// following email", "the message below". Not 「以下のメールアドレス」.
const POINTS_AT_FOLLOWING_MAIL =
  /(?:以下|下記|次)の(?:ような|内容の)?(?:メール|メッセージ|SMS)(?!アドレス|ボックス|ソフト|設定)|\bthe following (?:e-?mail|mail|message)\b|\b(?:e-?mail|mail|message) (?:below|pasted below)\b|\bbelow (?:e-?mail|mail|message)\b/iu;

/**
 * True when the customer's `note` points at the mail that `history` starts with (a header block or a marker pasted or
 * forwarded without a forwarding subject), which is then read as a forward: with its links under the forward's
 * delimiter, the quoted mail's and not the customer's. Never a quote attribution (「… wrote:」, the answer replied to)
 * nor a mail from one of `recipients` (ours, quoted in a reply to us).
 */
function pointsAtHistory(note: string, history: string[], recipients: readonly string[]): boolean {
  if (!POINTS_AT_FOLLOWING_MAIL.test(note) || isQuoteHeader(history[0] ?? '', history[1])) return false;
  return !isFromRecipient(history.slice(0, forwardHeadEnd(history)), recipients);
}

/**
 * The customer's note and the mail they pasted between separator lines below words pointing at it (legit-4 074:
 * 「以下のメールが届きました。貴社からのものでしょうか？」 over `-----` lines framing a suspicious mail), read as a forward
 * is: the note first (with what they wrote under the closing separator), the pasted mail under the forward's
 * delimiter, so a link in it is the quoted mail's and not the customer's. Undefined when no words point at it, the
 * block is a signature or a mail of ours, or quoted history starts above its opening separator.
 */
function pastedMail(lines: string[], historyStart: number, recipients: readonly string[]): OwnText | undefined {
  const pointer = lines.findIndex((line) => POINTS_AT_FOLLOWING_MAIL.test(line));
  if (pointer < 0 || (historyStart >= 0 && historyStart <= pointer)) return undefined;
  const open = lines.findIndex((line, i) => i > pointer && SEPARATOR_LINE.test(line));
  if (open < 0 || (historyStart >= 0 && historyStart < open)) return undefined;
  const closeAfter = lines.slice(open + 1).findIndex((line) => SEPARATOR_LINE.test(line));
  const close = closeAfter < 0 ? lines.length : open + 1 + closeAfter;
  const block = lines.slice(open + 1, close);
  if (pointsAtMessage(lines[pointer] ?? '') && !looksLikeMail(block)) return undefined;
  if ((isContactBlock(block) && !block.some(isMailSentence)) || isFromRecipient(block.slice(0, forwardHeadEnd(block)), recipients)) return undefined;
  const forwarded = forwardedMessage(block);
  if (!hasWords(forwarded.text)) return undefined;
  const after = lines.slice(close + 1);
  const afterHistory = quotedHistoryStart(after);
  return { note: ownWords([...lines.slice(0, open), '', ...(afterHistory < 0 ? after : after.slice(0, afterHistory))]), forwarded, vouching: ownWords(lines.slice(0, open)) };
}

// 「メッセージ」 and "message" also name what a screen shows (「以下のメッセージが表示されます」, "I get the following
// message"): a block below them is a mail only with a mail's header lines.
const MESSAGE_WORD = /メッセージ|message/iu;
const PASTED_HEADER_LINE = /^\s*(?:件名|題名|差出人|送信者|送信元|送信日時|日時|From|Subject|Sent)\s*[:：]/iu;
// A pasted mail's header lines are its first lines.
const MAX_PASTED_HEADER_LINES = 6;

/** True when the words pointing at a pasted block (the `line` of {@link POINTS_AT_FOLLOWING_MAIL}) name a message. */
function pointsAtMessage(line: string): boolean {
  return MESSAGE_WORD.test(POINTS_AT_FOLLOWING_MAIL.exec(line)?.[0] ?? '');
}

/** True when `block` opens with a mail's header lines ({@link PASTED_HEADER_LINE}): 件名:, 差出人:, From:, Subject:. */
function looksLikeMail(block: string[]): boolean {
  return block.filter((line) => line.trim() !== '').slice(0, MAX_PASTED_HEADER_LINES).some((line) => PASTED_HEADER_LINE.test(line));
}

// A sentence of a pasted mail, which a signature block never holds (its link or address is a contact line there):
// 。, ！ or ？, or three words and then a `.`, `!` or `?` that ends a sentence ({@link isMailSentence}).
const MAIL_SENTENCE_MARK = /。|[！？]/u;
// A word's last character before whitespace: the end of a word of {@link isMailSentence}.
const WORD_END = /\S(?=\s)/gu;
const LATIN_SENTENCE_END = /[.!?](?:\s|$)/gu;

/**
 * True when `line` (one line) holds a sentence of a pasted mail ({@link MAIL_SENTENCE_MARK}), or matches
 * `(?:\S+\s+){3}[^\n]*[.!?](?:\s|$)`: a sentence end after the third word's end. Read once: that pattern tried the
 * rest of the line from every word, ~1 s for a 16,000-character line of words with no stop (ReDoS sweep, security
 * review 15).
 */
function isMailSentence(line: string): boolean {
  if (MAIL_SENTENCE_MARK.test(line)) return true;
  WORD_END.lastIndex = 0;
  let thirdWordEnd = -1;
  for (let words = 0; words < 3; words++) {
    const end = WORD_END.exec(line);
    if (!end) return false;
    thirdWordEnd = end.index + end[0].length;
  }
  // Past the whitespace character after the third word.
  LATIN_SENTENCE_END.lastIndex = thirdWordEnd + 1;
  return LATIN_SENTENCE_END.test(line);
}

// A ticket system's line that marks where a reply is typed (Zendesk's 「##- ここより上に返信を入力してください -##」,
// "##- Please type your reply above this line -##").
// Tested on the trimmed line: spaces around a lazy run backtracked quadratically on "##-" and 10 KB of spaces.
const REPLY_MARKER = /^##-[^\n]{1,80}-##$/u;

/** True when `line` is a ticket system's reply marker ({@link REPLY_MARKER}). */
function isReplyMarker(line: string): boolean {
  const trimmed = line.trim();
  return trimmed.length <= 86 && REPLY_MARKER.test(trimmed);
}

/**
 * `lines` without a ticket system's reply marker ({@link REPLY_MARKER}) and what the system quoted below it, when the
 * customer typed above it; without the marker line alone when it is on top (a mail the system sends, its words below).
 * The marker is looked for only above `historyStart` (the quoted or forwarded history, -1 for none): one inside a mail
 * the customer forwards is that mail's, and the forward below their note is what they ask about.
 */
function atReplyMarker(lines: string[], historyStart: number): string[] {
  const marker = lines.findIndex((line, i) => (historyStart < 0 || i < historyStart) && isReplyMarker(line));
  if (marker < 0) return lines;
  const above = lines.slice(0, marker);
  return above.some(hasWords) ? above : [...above, ...lines.slice(marker + 1)];
}

// A mail gateway's tag and banner for mail from outside the customer's company, put on a mail's first line:
// 「[EXTERNAL] 社外からのメールにご注意ください」, 【社外メール】, "CAUTION: This email originated from outside of the
// organization…". Read on the first lines only, and only an explicit tag or a whole banner sentence: at a mail-service
// helpdesk 社外/外部/external mail is the customer's topic (「社外からのメールが届かなくなりました」).
const EXTERNAL_TAG = /^\s*(?:\[\s*(?:external|外部|社外)(?:\s*(?:e-?mail|mail|sender|メール))?\s*\]|【\s*(?:external|外部|社外)(?:\s*(?:e-?mail|mail|メール))?\s*】|external e-?mail\s*[:：])\s*/iu;
// The banner sentences themselves, anchored at both ends so that a customer's sentence that starts alike stays.
const EXTERNAL_BANNER = [
  /^(?:(?:caution|warning|notice|注意|ご注意|警告)\s*[:：!！]?\s*)?this (?:e-?mail|message) (?:originated|came|was sent|is) from (?:outside (?:of )?(?:the|your|our) (?:organi[sz]ation|company|network)|an external (?:sender|source|address))[^?？]*$/iu,
  /^do not click (?:on )?links or open attachments\b[^?？]*$/iu,
  /^(?:(?:注意|ご注意|警告)\s*[:：!！]?\s*)?(?:※\s*)?(?:この|本)?(?:メールは)?(?:社外|外部)(?:から(?:の|届いた)?|の)(?:メール|送信者|差出人)(?:から(?:のメール)?)?(?:です|にご注意ください)[。.]?(?:\s*(?:リンク|URL|添付ファイル)[^。?？]{0,30}(?:ご)?注意(?:して)?ください[。.]?)?$/u,
];
// Words of a request or question: a banner warns, it asks nothing.
const BANNER_REQUEST = /[?？]|教えて|お願い|できません|でしょうか|いただけ|\b(?:please|how|can you|could you|would you)\b/iu;
// A banner is a line or two; a longer line is the customer's text.
const MAX_BANNER_CHARS = 300;
const MAX_BANNER_LINES = 2;

/** True when `text` (a trimmed line, its tag removed) is a whole gateway banner sentence ({@link EXTERNAL_BANNER}). */
function isExternalBanner(text: string): boolean {
  return !BANNER_REQUEST.test(text) && EXTERNAL_BANNER.some((banner) => banner.test(text));
}

/** `lines` without the gateway tag ({@link EXTERNAL_TAG}) and banner lines at their top; a request is never one. */
function withoutExternalBanner(lines: string[]): string[] {
  const kept = [...lines];
  for (let cut = 0; cut < MAX_BANNER_LINES; cut++) {
    const first = kept.findIndex((line) => line.trim() !== '');
    const line = kept[first] ?? '';
    if (first < 0 || line.length > MAX_BANNER_CHARS) break;
    const rest = line.replace(EXTERNAL_TAG, '');
    if (rest.trim() !== '' && !isExternalBanner(rest.trim())) {
      if (rest !== line) kept[first] = rest;
      break;
    }
    kept.splice(0, first + 1);
  }
  return kept;
}

// A legal notice a company's mail system appends (「本メールは機密情報を含む場合があります…」, "This e-mail and any
// attachments are confidential…", "CONFIDENTIALITY NOTICE: …"): its opening, and the two things every such notice
// says, that the mail is confidential and what a recipient it was not meant for does with it.
const NOTICE_OPENING =
  /^\s*(?:[*【[(]?\s*(?:confidentiality(?: notice| statement| note)?|disclaimer|legal notice|privileged (?:and|&) confidential|機密(?:保持)?(?:情報)?(?:に関する)?(?:注意|ご注意|通知|事項)|免責事項)\s*[*】\])]?\s*[:：]?|this (?:e-?mail|message|communication|transmission)\b|the information (?:contained )?in this (?:e-?mail|message)\b|(?:本|この)(?:電子)?(?:メール|メッセージ)(?:は|には|および|及び|の))/iu;
// A notice's heading on a line of its own, in the brackets and marks Japanese mail writes it with: 【機密保持に関するお知らせ】,
// 【機密保持について】, 【ご注意】, ＜機密情報＞, ■機密情報の取り扱いについて, [Confidentiality Notice]. A whole line only:
// 「機密保持についてのお知らせメールが届きません」 is a customer's sentence. What follows it is still read as a notice must be.
const NOTICE_HEADING =
  /^[【［[（(＜<〈《■□◆◇●※*]?[ 　]?(?:(?:機密|秘密|守秘)(?:保持|情報|保持義務)?(?:の取り?扱い?)?(?:に関する|について(?:の)?)?(?:お知らせ|ご案内|お願い|ご注意|注意(?:事項)?|通知|事項)?|ご?注意(?:事項)?|免責(?:事項)?|confidential(?:ity)?(?: notice| statement| note| warning)?|disclaimer|legal notice)[ 　]?[】］\]）)＞>〉》]?[ 　]?[:：]?$/iu;
// A heading is a few words; a longer line is never one, and is not scanned.
const MAX_NOTICE_HEADING_CHARS = 40;

/** True when `line` is a notice's heading on a line of its own ({@link NOTICE_HEADING}). */
function isNoticeHeading(line: string): boolean {
  const trimmed = line.trim();
  return trimmed.length <= MAX_NOTICE_HEADING_CHARS && NOTICE_HEADING.test(trimmed);
}
const NOTICE_CONFIDENTIAL = /confidential|privileged|vertraulich|confidentiel|confidencial|privilégi|privilegiad|機密|秘密|守秘/iu;
// The impersonal misdelivery wording of the templates, not a bare 誤って/破棄/in error: a customer who sent us a
// confidential file by mistake writes those words too.
const NOTICE_MISDELIVERY =
  /intended (?:solely |only |exclusively )?(?:for|recipient)|(?:for )?the (?:sole )?use of the (?:intended )?(?:addressee|recipient)|if you (?:are not|have received)|received (?:this|it) in error|宛先(?:に誤り|以外|に記載されていない)|誤って(?:受信|届|配信)|誤送信|(?:受信|受け取)(?:され|られ)た場合|無断で?[^。]{0,30}(?:禁じ|禁止)/iu;
// The customer's own voice: a notice speaks of "this e-mail" and "the sender", never of what I or we sent.
const NOTICE_FIRST_PERSON = /私|わたし|弊社|当社|僕|\b(?:I|we|my|our|me|us)\b/u;
// A question anywhere, or a request outside the notice's "if misdelivered, please delete" sentence.
const NOTICE_QUESTION = /[?？]|でしょうか|教えて|\b(?:how|can you|could you|would you|tell me)\b/iu;
const NOTICE_REQUEST = /ください|いただけ|お願い|\bplease\b/iu;
const NOTICE_CONDITION = /場合|\bif you\b|in error/iu;
const NOTICE_SENTENCE_END = /[。！!]|\.(?=\s|$)/gu;
const MAX_NOTICE_LINES = 12;
const MAX_NOTICE_CHARS = 1_500;

/** True when `notice` reads as a template's impersonal wording: no first person, no question, no request of its own. */
function isImpersonalNotice(notice: string): boolean {
  if (!NOTICE_CONFIDENTIAL.test(notice) || !NOTICE_MISDELIVERY.test(notice)) return false;
  if (NOTICE_FIRST_PERSON.test(notice) || NOTICE_QUESTION.test(notice)) return false;
  const sentences = notice.replace(/\s*\n\s*/g, ' ').split(/(?<=[。！!]|\.(?=\s|$))/u);
  return sentences.every((sentence) => !NOTICE_REQUEST.test(sentence) || NOTICE_CONDITION.test(sentence));
}

/**
 * Cuts a legal notice (confidentiality, misdelivery; {@link NOTICE_OPENING}) that ends the text, with its heading line
 * ({@link NOTICE_HEADING}) and the separators that framed it, in English as in Japanese. Only below the customer's
 * words, after a separator or when it is a notice of two sentences or more, and only a template's impersonal wording
 * ({@link isImpersonalNotice}): a customer's own sentence about a confidential file sent in error, or a P.S. below the
 * notice, is the request.
 */
function stripLegalNotice(lines: string[]): string[] {
  const isContent = (line: string) => line.trim() !== '' && !SEPARATOR_LINE.test(line);
  const firstWords = lines.findIndex((line) => hasWords(line) && !SEPARATOR_LINE.test(line));
  // The content lines from each line to the end. A notice is the text's last few lines: where more follow, nothing is
  // read, so a text of many heading-like lines costs no more than one of few.
  const contentFrom = new Array<number>(lines.length + 1).fill(0);
  for (let i = lines.length - 1; i >= 0; i--) contentFrom[i] = contentFrom[i + 1]! + (isContent(lines[i] ?? '') ? 1 : 0);
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (contentFrom[i]! > MAX_NOTICE_LINES || (!NOTICE_OPENING.test(line) && !isNoticeHeading(line))) continue;
    // A heading above the notice's first sentence goes with it, however long the notice below it is.
    const start = noticeHeadingAbove(lines, i);
    if (firstWords < 0 || firstWords >= start) continue;
    const notice = lines.slice(i).filter(isContent).join('\n');
    if (notice.length > MAX_NOTICE_CHARS || !isImpersonalNotice(notice)) continue;
    const afterSeparator = SEPARATOR_LINE.test(lastNonBlankBefore(lines, start));
    if (afterSeparator || (notice.match(NOTICE_SENTENCE_END)?.length ?? 0) >= 2) return withoutTrailingSeparators(lines.slice(0, start));
  }
  return lines;
}

/** The last line above `index` with something on it, or ''. */
function lastNonBlankBefore(lines: string[], index: number): string {
  for (let i = index - 1; i >= 0; i--) if ((lines[i] ?? '').trim() !== '') return lines[i]!;
  return '';
}

/** The index of a notice heading ({@link NOTICE_HEADING}) right above line `i`, blank lines between; else `i`. */
function noticeHeadingAbove(lines: string[], i: number): number {
  let above = i - 1;
  while (above > 0 && (lines[above] ?? '').trim() === '') above -= 1;
  return above > 0 && isNoticeHeading(lines[above] ?? '') ? above : i;
}

// A note written below the history ends in a sentence; a forwarded mail's signature under a separator (a name, a
// team, a phone number) does not.
const NOTE_SENTENCE = /[?？。.!！]/u;
// Opening hours are a support desk's signature line, never a customer's note (「受付時間 平日9:00-18:00」).
const OPENING_HOURS = /受付時間|営業時間|対応時間|business hours|opening hours|\b\d{1,2}:\d{2}\s*[-–~〜～]\s*\d{1,2}:\d{2}\b/i;
// A note opens with a greeting or the addressee (「XYZサポート様」) or a sentence; a signature with a name or team line.
const NOTE_OPENING = /[?？。.!！、,]|様|さん|殿|御中|各位|(?:です|ます|ました|ません)\s*$|^\s*(?:dear|hi|hello|hey)\b/iu;
const ASKS = /[?？]|か[。.]?\s*$/mu;
const MAIL_ADDRESS_IN_HEADER = /[^\s<>[\]():;,"]{1,64}@[^\s<>[\]():;,"]{1,255}/u;

/**
 * True when the text under the history's last separator reads as that mail's signature: contact lines or opening
 * hours, or a name or team line first with no question in it. Such text is the quoted mail's own, not a note.
 */
function readsAsSignature(lines: string[]): boolean {
  const content = lines.filter((l) => l.trim() !== '');
  if (isContactBlock(content) || content.some((l) => OPENING_HOURS.test(l))) return true;
  return !NOTE_OPENING.test(content[0] ?? '') && !ASKS.test(content.join('\n'));
}

/** True when the header block `head` names as its From one of `recipients`: a mail of the mailbox now written to. */
function isFromRecipient(head: string[], recipients: readonly string[]): boolean {
  const address = MAIL_ADDRESS_IN_HEADER.exec(headerValue(head, BLOCK_FROM) ?? '')?.[0]?.toLowerCase();
  return address !== undefined && recipients.includes(address);
}

/**
 * The customer's note below `history` (which starts with a quoted or forwarded mail), and where it starts: the text
 * after the last separator line (「------」) that follows the last mail's header block, when it holds a sentence of
 * its own. Undefined when there is none: without a separator the last mail's text and a note below it cannot be told
 * apart, and the history is read as before. Undefined too when that text is the last mail's own: the mail is from one
 * of `recipients` (ours, quoted in a reply to us) or the text reads as its signature.
 */
function noteBelowHistory(history: string[], recipients: readonly string[], customer?: string): { note: string; start: number } | undefined {
  let lastBlock = -1;
  for (let i = 0; i < history.length; i++) {
    const line = history[i] ?? '';
    if (ORIGINAL_MESSAGE.test(line) || BEGIN_FORWARDED.test(line) || isHeaderBlockStart(history, i)) lastBlock = i;
  }
  if (lastBlock < 0) return undefined;
  let body = lastBlock + 1;
  while (body < history.length && isForwardHead(history[body] ?? '')) body += 1;
  const ours = isFromRecipient(history.slice(lastBlock, body), recipients);
  // Under a mail of ours only what follows its end can be the customer's: our reply may hold separators of its own.
  // The customer as our reply named them: the address it went to, on the quoted block's To line, may be another of
  // theirs than the one they write from now (an alias, a +tag; bug review 41d).
  const writers = ours ? [...(customer ? [customer] : []), ...addressesIn(history.slice(lastBlock, body)).filter((a) => !recipients.includes(a))] : [];
  const from = ours ? ourReplyEnd(history, body, writers) : body;
  if (from < 0) return undefined;
  let separator = -1;
  for (let i = history.length - 1; i >= from && separator < 0; i--) if (SEPARATOR_LINE.test(history[i] ?? '')) separator = i;
  if (!ours) return separator < 0 ? undefined : noteFrom(history, separator);
  // Below the end of our reply a blank line parts it from the customer's words as well as a separator does. What is
  // read there must ask something: a gateway's 「ウイルスチェック済み」 line or a thank-you under our quote is no question
  // to answer, and the mail stays a person's (bug review 41b).
  const found = noteFrom(history, separator < 0 ? from : separator);
  return found && questionSentences(found.note).length > 0 ? found : undefined;
}

/**
 * The note in `history` from line `start` (a separator line, or the first line after our quoted reply): undefined when
 * it reads as the quoted mail's signature ({@link readsAsSignature}) or holds no sentence.
 */
function noteFrom(history: string[], start: number): { note: string; start: number } | undefined {
  const below = history.slice(start).filter((l) => !SEPARATOR_LINE.test(l));
  if (!hasWords(below.join('\n')) || readsAsSignature(below)) return undefined;
  // Read with its separator, so a signature block under it is cut as one; the separator is no part of the note.
  const [first = '', ...rest] = ownWords(history.slice(start)).split('\n');
  const note = (SEPARATOR_LINE.test(first) ? rest : [first, ...rest]).join('\n').trim();
  return hasWords(note) && NOTE_SENTENCE.test(note) ? { note, start } : undefined;
}

/**
 * Where the customer's words may start below our own reply quoted without `>` marks (Outlook's 差出人 block over our
 * mail, audit 405/406), `body` being our reply's first line: after the first `>` quote in it under an attribution
 * line that names the `customer`'s address, the quote of their own mail that compose-reply puts below every answer,
 * or -1 when there is none, and the mail is read as only the quote. Only that end: a line with our address or a
 * separator may stand anywhere in our answer or its footer (bug review 41b: 「下記までお問い合わせください。⏎XYZサポート⏎
 * support@…」 mid-answer, a footer under our signature, were read as the customer's), a quote in our answer of what
 * someone wrote may be followed by more of our answer (bug review 41c), and a later `>` quote may be one the customer
 * cites.
 */
function ourReplyEnd(history: string[], body: number, customers: readonly string[]): number {
  if (customers.length === 0) return -1;
  for (let i = body; i < history.length; i++) {
    if (!QUOTED_LINE.test(history[i] ?? '') || !quoteUnderAttribution(history, body, i, customers)) continue;
    let end = i;
    while (end < history.length && QUOTED_LINE.test(history[end] ?? '')) end += 1;
    return end;
  }
  return -1;
}

/**
 * True when the `>` line at `index` belongs to a quote opened by an attribution line between `body` and it, one that
 * names one of `writers`' addresses when given.
 */
function quoteUnderAttribution(history: string[], body: number, index: number, writers?: readonly string[]): boolean {
  let i = index;
  while (i > body && (QUOTED_LINE.test(history[i - 1] ?? '') || (history[i - 1] ?? '').trim() === '')) i -= 1;
  const attribution = (history[i - 1] ?? '').toLowerCase();
  return i > body && isQuoteHeader(attribution, history[i]) && (writers === undefined || writers.some((w) => attribution.includes(w.toLowerCase())));
}

/** The mail addresses written on `lines` (a quoted mail's header block), lower-case ({@link MAIL_ADDRESS_IN_HEADER}). */
function addressesIn(lines: readonly string[]): string[] {
  return [...lines.join('\n').matchAll(new RegExp(MAIL_ADDRESS_IN_HEADER.source, 'gu'))].map((m) => m[0].toLowerCase());
}

/** True for a line of a quoted or forwarded mail's marker and header block, blank lines among them. */
function isForwardHead(line: string): boolean {
  return line.trim() === '' || ORIGINAL_MESSAGE.test(line) || BEGIN_FORWARDED.test(line) || SEPARATOR_LINE.test(line) || BLOCK_FROM.test(line) || BLOCK_NEXT.test(line);
}

/**
 * The customer's note and the mails they forward (in the text, then attached), or undefined when they wrote nothing
 * of their own (a quote, a signature or a phone's footer only) and forward nothing with words. With nothing of their
 * own, the first forwarded mail's text is what they ask about.
 */
function withForwards(note: string, forwards: readonly ForwardedMessage[]): string | undefined {
  const readable = forwards.filter((forwarded) => hasWords(forwarded.text));
  if (hasWords(note)) return [note, ...readable.map(forwardedBlock)].join('\n\n');
  const [first, ...rest] = readable;
  return first ? [first.text, ...rest.map(forwardedBlock)].join('\n\n') : undefined;
}

// Words that point at the subject instead of repeating it: 件名の通り, 標題の件, 表題のとおり, "as in the subject".
const POINTS_AT_SUBJECT =
  /(?:件名|表題|標題|題名)(?:の(?:通り|とおり|件|ように|内容)|に(?:記載|書いた|書きました|ある)(?:の|した)?(?:通り|とおり|件|内容)?)|タイトルの(?:通り|とおり)|\b(?:as (?:per|in|stated in|mentioned in|said in|written in) (?:the|my) subject(?: line)?|see (?:the )?subject(?: line)?|(?:the )?subject(?: line)? says it all)\b/iu;

/**
 * The question a ticket carries for the agent and the operator: the mail's {@link InboundMail.question}, with the
 * subject where the words lean on it. As for a mail of no words at all, the bare subject (without reply prefixes) is
 * the question when the customer's words are only greetings and a closing ({@link onlyGreetings}) in a mail that
 * replies to nothing (a reply's subject is the thread's, not a new question), and leads the words when they are
 * greetings and who writes ({@link onlyGreetingsAndIntroduction}: 「田中です」 under 「至急電話ください」, the name kept
 * for the agent where greetings carry nothing it needs); when their words point at the subject
 * (「件名の通り、コードが届きません」, 「標題の件」) the subject comes first, as the mail reads. The agent is handed the
 * question alone, so a question asked only in the subject is otherwise lost.
 */
export function questionWithSubject(mail: Pick<InboundMail, 'question' | 'subject' | 'text' | 'inReplyTo' | 'references'>): string {
  const { question } = mail;
  const fromSubject = subjectAsQuestion(mail.subject);
  if (question === '' || fromSubject === '' || question === fromSubject) return question;
  // The customer's note: a forward they add below it is not theirs to point with.
  const note = question.split(`\n\n${FORWARDED_DELIMITER}\n`)[0] ?? question;
  if (POINTS_AT_SUBJECT.test(note) && !squeezed(question).includes(squeezed(fromSubject))) return `${fromSubject}\n\n${question}`;
  const reply = Boolean(mail.inReplyTo) || mail.references.length > 0 || REPLY_OR_FORWARD_PREFIX.test(mail.subject) || ownPart(mail.text).quoted;
  if (reply) return question;
  if (onlyGreetings(question) || asksOnlyInSubject(question, fromSubject)) return fromSubject;
  // Who writes is worth keeping where greetings are not: the agent addresses the sender and a person calls them back.
  return onlyGreetingsAndIntroduction(question) ? `${fromSubject}\n\n${question}` : question;
}

/** `text` without white space, for telling whether one text holds another. */
function squeezed(text: string): string {
  return text.replace(/\s+/gu, '');
}

/**
 * The sender's own part of `text`, for the mass-mailing check: the text above quoted or forwarded history (looked for
 * in its first MAX_QUESTION_SOURCE_CHARS, as for the question), whole when there is none; `quoted` when there is
 * history or a `>` line (or, in a `reply`, a run of `|` lines: {@link withPipeQuotesMarked}), whose footer is the
 * quoted mail's and not the sender's.
 */
function ownPart(text: string, reply = false): { text: string; quoted: boolean } {
  const read = (text.length > MAX_QUESTION_SOURCE_CHARS ? text.slice(0, MAX_QUESTION_SOURCE_CHARS) : text).split('\n');
  const lines = reply ? withPipeQuotesMarked(read) : read;
  const start = quotedHistoryStart(lines);
  if (start >= 0) return { text: lines.slice(0, start).join('\n'), quoted: true };
  return { text, quoted: lines.some((line) => QUOTED_LINE.test(line)) };
}

function hasWords(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}

// What a mail client writes in the plain-text alternative of an HTML mail for each image in it: Gmail `[image: name]`
// (its alt text), Outlook `[cid:image001.png@01DB3F2A.5C1E7E80]`. Marks of a picture, no words of the sender's: a mail of
// screenshots alone is a mail of attachments, and a question beside one is only its words. Bounded, one line; one
// space before it goes with it (a run of them would be rescanned from every start).
const PLACEHOLDER = String.raw`\[(?:image:[^\]\n]{0,200}|cid:[^\]\s]{1,200})\]`;
const IMAGE_PLACEHOLDER = new RegExp(String.raw`[ \t]?${PLACEHOLDER}`, 'giu');
// One placeholder where it starts, and how long one may be ("[image:", 200 characters, "]").
const PLACEHOLDER_AT = new RegExp(PLACEHOLDER, 'iuy');
const MAX_PLACEHOLDER_CHARS = 208;

/**
 * Where to cut `text` at `cut` (mid-line: a line longer than the text limit) so that no image placeholder is split: a
 * split one ("[image") is none for {@link withoutImagePlaceholders} and would stay as words (bug review 39b, finding 7).
 */
function cutOutsidePlaceholder(text: string, cut: number): number {
  // Every `[` a placeholder straddling the cut may start at: its name may hold brackets of its own.
  for (let open = text.lastIndexOf('[', cut - 1); open >= 0 && cut - open < MAX_PLACEHOLDER_CHARS; open = open > 0 ? text.lastIndexOf('[', open - 1) : -1) {
    PLACEHOLDER_AT.lastIndex = open;
    const found = PLACEHOLDER_AT.exec(text);
    if (found && open + found[0].length > cut) return open;
  }
  return cut;
}

/** `lines` without image placeholders ({@link IMAGE_PLACEHOLDER}), and without the lines that held nothing else. */
function withoutImagePlaceholders(lines: string[]): string[] {
  return lines.flatMap((line) => {
    const rest = line.replace(IMAGE_PLACEHOLDER, '');
    return rest === line ? [line] : rest.trim() === '' ? [] : [rest];
  });
}

// email-reply-parser's bare separators (`--`, `----`, `__`, `++`, `==`, two to four of a kind; not the RFC's `-- `): it
// hides all below one as a signature, though customers draw them as markdown rules and over steps they tried.
const LIBRARY_SEPARATOR = /^\s*(?:-{2,4}|_{2,4}|\+{2,4}|={2,4})$/;

/**
 * The text email-reply-parser shows of `text`, and besides it a fragment the library hid only as a signature below one
 * of its bare separators ({@link LIBRARY_SEPARATOR}) when a line of it asks ({@link SIGNATURE_NEVER_ASKS}): "----" then
 * "What should I do next?" is the customer's question (mail round 11). Such a kept fragment is left to our own
 * signature rules. Keeping every fragment under such a separator brought back list footers and quotes below "__" and
 * "====", so only one that asks is kept.
 */
function replyParserVisible(text: string): string {
  const email = new EmailReplyParser().read(text);
  const fragments = email.getFragments();
  const asksBelowSeparator = (fragment: (typeof fragments)[number]): boolean => {
    if (!fragment.isHidden() || !fragment.isSignature() || fragment.isQuoted()) return false;
    const lines = fragment.getContent().trimStart().split('\n');
    return LIBRARY_SEPARATOR.test(lines[0] ?? '') && lines.some((line) => SIGNATURE_NEVER_ASKS.test(line));
  };
  const kept = fragments.map((fragment) => (asksBelowSeparator(fragment) ? fragment.getContent() : wordsUnderClosing(fragment)));
  if (kept.every((words) => words === undefined)) return email.getVisibleText();
  return fragments
    .flatMap((fragment, i) => (!fragment.isHidden() ? [fragment.getContent()] : (kept[i] ?? [])))
    .join('\n');
}

/** A fragment of email-reply-parser's reading of a text. */
type ReplyParserFragment = ReturnType<ReturnType<EmailReplyParser['read']>['getFragments']>[number];
// The lines under a closing among which the customer's text may go on: a name, a title or a department, then theirs.
const MAX_LINES_UNDER_CLOSING = 3;

/**
 * The customer's text that email-reply-parser hid as a signature only because a closing it knows ("Best regards,",
 * "Kind Regards", "Cheers,", "Best wishes,") opens it: from the first of the next {@link MAX_LINES_UNDER_CLOSING}
 * lines that is a sentence ({@link PROSE_SENTENCE}) or asks ({@link SIGNATURE_NEVER_ASKS}) and is no signature's
 * courtesy ({@link SIGNATURE_COURTESY}), with no contact line above it ("Best regards,⏎Anna Berg⏎The Grand Hotel
 * Reservations team will call you back to confirm."; session 51: the sentence was lost). The closing and the name go
 * as before; what follows is left to our own signature rules. A tagline without a sentence ("The Grand Hotel
 * Reservations") is no text of theirs: undefined, and the fragment stays hidden.
 */
function wordsUnderClosing(fragment: ReplyParserFragment): string | undefined {
  if (!fragment.isHidden() || !fragment.isSignature() || fragment.isQuoted()) return undefined;
  const lines = fragment.getContent().trimStart().split('\n');
  if (!CLOSING_LINE.test(lines[0] ?? '')) return undefined;
  let seen = 0;
  for (let i = 1; i < lines.length && seen < MAX_LINES_UNDER_CLOSING; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    seen += 1;
    if (CONTACT_MARKER.test(line)) return undefined;
    // A mail system's footer opens what the library rightly hid: it and all below it stay hidden.
    if (isMailFooterLine(line)) return undefined;
    if ((PROSE_SENTENCE.test(line) || SIGNATURE_NEVER_ASKS.test(line)) && !SIGNATURE_COURTESY.test(line)) return lines.slice(i).join('\n');
  }
  return undefined;
}

// A line that speaks of the mail itself, as a confidentiality footer does ("This email and any attachments…", "Diese
// E-Mail…", "Ce message…", "Este mensaje…"): a customer's "The contract is confidential" names no mail.
const FOOTER_NAMES_MAIL =
  /\b(?:this|the) (?:e-?mail|message|communication|transmission|mail)\b|\bany attachments?\b|\bdiese[rs]? (?:e-?mail|nachricht)\b|\b(?:ce|cet) (?:message|e-?mail|courriel)\b|\b(?:este|el) (?:mensaje|correo)\b/iu;
// The other footers a company's mail system writes under a signature: an unattended mailbox and not to reply to it, a
// company register entry, in English, German, French, Spanish and Japanese (送信専用, 返信不可).
const SIGNATURE_FOOTER =
  /\b(?:not|never) (?:be )?(?:monitored|attended)\b|\bunmonitored\b|\b(?:do not|don't|never) (?:reply|respond)\b|\bnicht überwacht|\bantworten sie nicht\b|\bnicht (?:zu )?(?:beantworten|antworten)\b|\bpas (?:surveill|consult)|\bne (?:pas )?r[ée]pond(?:ez pas|re)\b|\bno (?:está |es )?(?:supervisad|monitorizad|monitoread|atendid)[oa]\b|\bno (?:responda|conteste)\b|送信専用|返信(?:しないで|はご遠慮|できません|不可|いただいても)|\bregistered (?:in|office|under|at)\b|\bcompany (?:registration|number)\b|\bHRB ?\d|\bAmtsgericht\b|\bRegistergericht\b|\bGeschäftsführ|\bSitz der Gesellschaft\b|\bRCS\b|\bSIRE[NT]\b|\bRegistro Mercantil\b/iu;
// A gateway's virus-scan line ("This email has been scanned for viruses", "Diese E-Mail wurde auf Viren geprüft",
// 「ウイルスチェック済み」): a virus word and a scan word on one line, either order, a bounded gap between.
const VIRUS_SCANNED =
  /(?:\b(?:anti-?)?vir(?:us|en)|\bmalware|ウ[イィ]ルス)[^\n]{0,60}(?:scann|check|geprüft|prüf|analy|escane|detect|free\b|frei\b|libre|チェック|スキャン|検査)|(?:scann|check|geprüft|prüf|analy|escane)[^\n]{0,60}(?:\b(?:anti-?)?vir(?:us|en)|\bmalware|ウ[イィ]ルス)/iu;

/**
 * True when `line`, under a closing, opens a mail system's footer rather than the customer's text: a confidentiality
 * or privilege notice that names the mail ({@link NOTICE_CONFIDENTIAL}, {@link FOOTER_NAMES_MAIL}) or the misdelivery
 * wording of one ({@link NOTICE_MISDELIVERY}), an unattended mailbox, do-not-reply or register line
 * ({@link SIGNATURE_FOOTER}), a virus-scan line ({@link VIRUS_SCANNED}). Never a line in the first person or one that
 * asks ({@link NOTICE_FIRST_PERSON}, {@link NOTICE_QUESTION}): "Please do not reply to my old address" is theirs (bug
 * review R2, finding 3: such footers leaked into the question once sentences under a closing were kept).
 */
function isMailFooterLine(line: string): boolean {
  if (NOTICE_FIRST_PERSON.test(line) || NOTICE_QUESTION.test(line)) return false;
  if (NOTICE_CONFIDENTIAL.test(line) && (FOOTER_NAMES_MAIL.test(line) || NOTICE_OPENING.test(line))) return true;
  return NOTICE_MISDELIVERY.test(line) || SIGNATURE_FOOTER.test(line) || VIRUS_SCANNED.test(line);
}

/** The text of `lines` without quoted lines and signatures, trimmed. */
function ownWords(history: string[]): string {
  const { body, postscript } = postscriptBelowSignature(withoutImagePlaceholders(history.filter((l) => !QUOTED_LINE.test(l))));

  let visible = body.join('\n');
  if (visible.trim() !== '' && visible.length <= MAX_REPLY_PARSER_CHARS) visible = replyParserVisible(visible);

  const unsigned = withoutTaglineAfterClosing(stripSignatureBlock(stripDelimitedSignature(stripLegalNotice(visible.split('\n')))));
  const words = stripServiceFooter(postscript.length > 0 ? [...unsigned, '', ...postscript] : unsigned)
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return NO_BODY_PLACEHOLDER.test(words) ? '' : words;
}

// A closing line ("Thanks,", "Best regards", "Cheers!") on its own.
const CLOSING_LINE =
  /^\s{0,10}(?:thanks(?:\s(?:again|so much|a lot))?|thank you(?:\s(?:so much|again))?|many thanks|thx|cheers|(?:best|kind|warm|warmest)(?:\s(?:regards|wishes))?|regards|sincerely|yours(?:\s(?:truly|sincerely))?|all the best)\s{0,3}[,!.]?\s{0,10}$/iu;
// A name and a title on one line ("Jim Smith | Enrollment Manager", "Jane Doe – Head of Customer Success"): a name of two
// or three capitalised words, a bar or a dash, then a short title of capitalised words (and "of", "and", "&", "for",
// "the"; "VP, Sales") without digits. A sentence after the dash ("Anna Berg – please call me back after 3pm",
// "Billing Portal | Error Code 500 appears") is the customer's (bug review 50).
const NAME_TITLE_LINE =
  /^\s{0,10}\p{Lu}[\p{L}'’.-]{0,30}(?:\s\p{Lu}[\p{L}'’.-]{0,30}){1,2}\s[|–—-]\s(?=[^\n]{2,60}$)\p{Lu}[\p{L}&'’.-]*(?:,?\s(?:\p{Lu}[\p{L}&'’.-]*|of|and|&|for|the))*$/u;

/**
 * `lines` without a last line of a name and a title ({@link NAME_TITLE_LINE}) right under a closing ({@link CLOSING_LINE}):
 * the tagline of a signature the reply parser did not know ("Thanks,⏎Jim Smith | Enrollment Manager"; mail round 12).
 * The closing stays, as a name under it does; a name-and-title line anywhere else is the customer's words, and so is a
 * postscript ({@link POSTSCRIPT_START}: "P.S. The Error - …" read as a name and a title; bug review 50).
 */
function withoutTaglineAfterClosing(lines: string[]): string[] {
  const content = lines.flatMap((l, i) => (l.trim() === '' ? [] : [i]));
  const last = content.at(-1);
  const above = content.at(-2);
  if (last === undefined || above === undefined) return lines;
  const tagline = lines[last] ?? '';
  if (!NAME_TITLE_LINE.test(tagline) || POSTSCRIPT_START.test(tagline) || !CLOSING_LINE.test(lines[above] ?? '')) return lines;
  return lines.slice(0, last);
}

// What a client or a phone writes for a mail sent without a body (「（本文なし）」, "(no message body)"): no words of the
// sender's, so the subject is the question, as for an empty body.
const NO_BODY_PLACEHOLDER =
  /^(?:[（(【［\[＜<]\s*(?:本文(?:なし|無し)|no (?:message )?body|no text|empty)\s*[）)】］\]＞>]|本文(?:なし|無し))$/iu;

// The opening of a postscript (追伸, ※追記, "P.S.", "PS:"), which a customer may write below their signature.
const POSTSCRIPT_START = /^\s*(?:(?:追伸|※\s*追記)(?:\s*[:：、,]|\s|$)|P\.\s?(?:P\.\s?)?S\.|P\.?S\s*[:：])/iu;
// RFC 3676's signature delimiter. Not a separator line: what such a frame holds may be the customer's (a pasted link or
// error), kept because a question follows it ({@link SIGNATURE_NEVER_ASKS}), and a postscript is such a question.
const SIGNATURE_DELIMITER = /^--\s?$/;
// Longest postscript (non-empty lines) kept below a signature.
const MAX_POSTSCRIPT_LINES = 8;
// A signature's own requests ask nothing of us: to bear with a holiday (ご了承ください), to mind something, to spare
// paper ("Please consider the environment before printing", 「印刷は必要な場合のみにしてください」).
const SIGNATURE_COURTESY =
  /ご了承|ご容赦|ご注意|ご留意|印刷(?:は|する前に|前に|の際は)|お控え|\bplease (?:consider|note|be (?:advised|aware))\b|\bbefore (?:you )?print/iu;
// What a signature's own P.S. announces: a holiday or closure, a move, new contact details, the printing line, or bears
// with one of them (ご了承, ご注意).
const SIGNATURE_NOTICE =
  /休業|休暇|年末年始|夏季|冬季|お盆|移転|引っ?越|営業時間|営業日|定休日|新住所|住所(?:が|を)?変更|電話番号(?:が|を)?変更|(?:電話|FAX)番号.*変わ|印刷|ご了承|ご注意|ご容赦|\bwe(?:'ve| have) moved\b|\bnew (?:office |mailing |postal |e-?mail |web ?site |phone |telephone )?(?:address|website|site|number|office|phone)\b|\b(?:office|we) (?:is |are |will be )?closed\b|\bholidays?\b|\benvironment\b|\bbefore (?:you )?print|\bprint(?:ing)? this\b/iu;
// The kanji spellings of a request, which {@link NOTICE_REQUEST} leaves to the notice's own wording (「お送り下さい」).
const KANJI_REQUEST = /下さい|頂け/u;
const WEB_ADDRESS = /https?:\/\/\S+/gu;
// What a notice's continuation line may hold besides digits and marks (「12月29日～1月3日」, "Dec 29 - Jan 3", 「TEL 03-…」).
const DATES_AND_NUMBERS = /[年月日時分〜～]|[（(]?[月火水木金土日][）)]|\b(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b(?:am|pm|tel|fax|to)\b|〒/giu;

/** True when `sentence` holds only dates, times or numbers: a notice's continuation (「12月29日～1月3日」), asking nothing. */
function onlyDatesAndNumbers(sentence: string): boolean {
  return sentence.replace(DATES_AND_NUMBERS, '').replace(/[\p{N}\p{P}\p{S}\s]/gu, '') === '';
}

/**
 * True when `clause` (a sentence, or a part of one between 、 or commas) asks us something: a question
 * ({@link SIGNATURE_NEVER_ASKS}, {@link NOTICE_QUESTION}) or a request ({@link NOTICE_REQUEST}) that is no signature's
 * courtesy ({@link SIGNATURE_COURTESY}).
 */
function clauseAsks(clause: string): boolean {
  if (SIGNATURE_NEVER_ASKS.test(clause) || NOTICE_QUESTION.test(clause)) return true;
  return (NOTICE_REQUEST.test(clause) || KANJI_REQUEST.test(clause)) && !SIGNATURE_COURTESY.test(clause);
}

/**
 * True when `postscript` reads as the signature's own notice: every sentence announces something
 * ({@link SIGNATURE_NOTICE}) or only carries its dates, and no clause asks ({@link clauseAsks}). A P.S. that tells (a
 * holiday, a move) is the signature's (bug review 40b): kept, it made a thank-you a question. Anything else is the
 * customer's, for an ask has more wordings than any list holds (bug review 40c: 「…送ってほしいです」, "Kindly resend…").
 * Sentences end at a line's end as well as at 。, and a courtesy (ご了承ください) excuses only its own clause: joined,
 * 「ご了承ください」 cancelled the request on the next line.
 */
function postscriptIsSignatureNotice(postscript: string[]): boolean {
  const sentences = postscript
    .map((line, i) => (i === 0 ? line.replace(POSTSCRIPT_START, '') : line).replace(WEB_ADDRESS, ''))
    .flatMap((line) => line.split(/(?<=[。！!]|\.(?=\s|$))/u))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
  if (sentences.some((sentence) => sentence.split(/[、，,]/u).some(clauseAsks))) return false;
  return sentences.every((sentence) => SIGNATURE_NOTICE.test(sentence) || onlyDatesAndNumbers(sentence));
}

/**
 * `lines` split at a postscript (a last paragraph opening with {@link POSTSCRIPT_START}) written below a `--` signature
 * that is no notice of the signature's own ({@link postscriptIsSignatureNotice}): email-reply-parser and
 * {@link stripDelimitedSignature} cut everything below the delimiter, the customer's afterthought with it (mail audit 6,
 * 447). No postscript when none follows a signature or it is the signature's notice: then the lines are read as they
 * are, and it goes with the signature.
 */
function postscriptBelowSignature(lines: string[]): { body: string[]; postscript: string[] } {
  const whole = { body: lines, postscript: [] };
  let start = -1;
  for (let i = lines.length - 1; i > 0; i--) {
    const line = lines[i] ?? '';
    if (SIGNATURE_DELIMITER.test(line)) break;
    if (POSTSCRIPT_START.test(line) && (lines[i - 1] ?? '').trim() === '') {
      start = i;
      break;
    }
  }
  if (start < 0 || lines.slice(start).filter((l) => l.trim() !== '').length > MAX_POSTSCRIPT_LINES || postscriptIsSignatureNotice(lines.slice(start))) return whole;
  const signature = lines.findIndex((l, i) => i < start && SIGNATURE_DELIMITER.test(l));
  if (signature < 0 || !lines.slice(0, signature).some(hasWords)) return whole;
  return { body: lines.slice(0, start), postscript: lines.slice(start) };
}

// A subject that forwards (Fwd:, FW:, WG:, TR:, RV:, 転送:, 转发:, 轉寄:, 전달:), and the markers that open a forwarded
// mail.
const FORWARD_SUBJECT = /^\s*(?:fwd?|wg|tr|rv|転送|转发|轉寄|전달)\s*[:：]/i;
const FORWARD_MARKER = new RegExp(FORWARDED_WORDS, 'i');
// The Subject line of a forwarded mail's header block, in the languages BLOCK_NEXT knows.
const BLOCK_SUBJECT = /^\s*(?:\*\s*)?(?:subject|件名|betreff|objet|主题|主旨|제목)\s*(?:\*\s*)?[:：]/i;

export { FORWARDED_DELIMITER };
/**
 * Characters of a forwarded mail kept after the customer's note. Twice the agent's default MAX_QUESTION_CHARS: with
 * the default the agent's own cut applies (and flags the unread end for review), a higher setting reads more of the
 * forward, and a forwarded newsletter of 16,000 characters never rides on the ticket whole.
 */
export const MAX_FORWARDED_CHARS = 2_000;
// A header value of a forwarded mail is a name and an address, or a subject line; anything longer is cut.
const MAX_FORWARDED_HEADER_CHARS = 200;

/** True when `html` shows the part with Content-ID `cid` (`src="cid:…"`, as Outlook places a signature logo). */
// Signature icons and small logos are a few KB. A screenshot pasted into the mail (Outlook sends it inline too) is
// more, yet a cropped error dialog can be 10 KB, as large as many logos: past this, an inline image counts as a
// picture sent to be looked at, and a question leaning on it is parked rather than answered blind.
const MAX_LAYOUT_IMAGE_BYTES = 4 * 1024;

/**
 * True for a small image the HTML shows by its Content-ID: part of the layout (a signature logo), not a picture
 * sent to be looked at. A pasted screenshot is inline too, but larger, and counts as attached.
 */
function layoutImage(cid: string | undefined, size: number, html: unknown): boolean {
  if (!cid || typeof html !== 'string' || size > MAX_LAYOUT_IMAGE_BYTES) return false;
  return html.toLowerCase().includes(`cid:${cid.toLowerCase()}`);
}

/** What a question carries of a forwarded mail. */
interface ForwardedMessage {
  /** Its From header's value, when its header block has one. */
  from: string | undefined;
  /** Its Subject header's value, when its header block has one. */
  subject: string | undefined;
  /** Its own words: without its header block, quoted lines and signatures. */
  text: string;
}

/** True when the history starting at `line` is a forwarded mail rather than the answer being replied to. */
function isForward(line: string, subject: string): boolean {
  return FORWARD_SUBJECT.test(subject) || BEGIN_FORWARDED.test(line) || (ORIGINAL_MESSAGE.test(line) && FORWARD_MARKER.test(line));
}

// The From and Subject labels of a forwarded mail's head that no Outlook-style block has (Apple Mail it/nl/es/pt).
const FORWARDED_FROM = /^\s*(?:da|van)\s*[:：]/i;
const FORWARDED_SUBJECT = /^\s*(?:asunto|assunto|oggetto|onderwerp)\s*[:：]/i;
// A line of a forwarded mail's head in any language ("Datum:", "Fecha:", "Objet :", "Antwort an:"): a short label.
const FORWARDED_HEAD_LABEL = /^\s*\p{L}[\p{L}\p{M} .-]{0,24}[:：]\s*\S/u;

/**
 * The forwarded mail that `history` starts with: its marker line and header block read, its text after them. Under
 * Apple Mail's heading the whole mail is quoted with `>` ({@link withForwardUnquoted}), which would drop all of it as a
 * quote: it is read one level down, its head down to the blank line that ends it.
 */
function forwardedMessage(history: string[]): ForwardedMessage {
  const unquoted = BEGIN_FORWARDED.test(history[0] ?? '') ? withForwardUnquoted(history) : undefined;
  const lines = unquoted ?? history;
  const bodyStart = localizedHeadEnd(lines, forwardHeadEnd(lines), unquoted !== undefined);
  const head = lines.slice(0, bodyStart);
  return {
    from: headerValue(head, BLOCK_FROM) ?? headerValue(head, FORWARDED_FROM),
    subject: headerValue(head, BLOCK_SUBJECT) ?? headerValue(head, FORWARDED_SUBJECT),
    text: ownWords(lines.slice(bodyStart)),
  };
}

/**
 * Where a forwarded mail's head ends when its labels go on past `end` (where the Outlook-style labels stop): from a
 * From label no such block knows ({@link FORWARDED_FROM}: Gmail it/nl) or Italian Outlook's To ({@link ITALIAN_BLOCK_TO}:
 * "Da: …⏎Inviato: …⏎A: …⏎Oggetto: …" pasted as a mail; session 51), or, in an Apple Mail forward (`apple`), right
 * below a label ("Datum:", "Fecha:"): every label line down to the blank line that ends the head. A first line of the
 * mail's text after a blank line ("Hinweis: …") is never read as one.
 */
function localizedHeadEnd(lines: string[], end: number, apple: boolean): number {
  const goesOn = FORWARDED_FROM.test(lines[end] ?? '') || ITALIAN_BLOCK_TO.test(lines[end] ?? '') || (apple && end > 0 && (lines[end - 1] ?? '').trim() !== '');
  if (!goesOn) return end;
  let last = end;
  while (last < lines.length && FORWARDED_HEAD_LABEL.test(lines[last] ?? '')) last += 1;
  return last;
}

/**
 * `history` (a heading, then the mail forwarded under it) with one level of `>` taken off the quoted lines right under
 * the heading, as Apple Mail quotes the mail it forwards; undefined when the first line under the heading is no quote.
 */
function withForwardUnquoted(history: string[]): string[] | undefined {
  const first = nextContentIndex(history, 0);
  if (first < 0 || !QUOTED_LINE.test(history[first] ?? '')) return undefined;
  let end = first;
  while (end < history.length && (QUOTED_LINE.test(history[end] ?? '') || (history[end] ?? '').trim() === '')) end += 1;
  const forwarded = history.slice(1, end).map((line) => line.replace(/^\s*[>＞] ?/, ''));
  return [history[0] ?? '', ...forwarded, ...history.slice(end)];
}

/** Where the text of the mail that `history` starts with begins: after its marker and header lines. */
function forwardHeadEnd(history: string[]): number {
  let bodyStart = 0;
  while (bodyStart < history.length && isForwardHead(history[bodyStart] ?? '')) bodyStart += 1;
  return bodyStart;
}

/** The value of the first line of `head` that `field` matches (Outlook's bold `*From:*` unwrapped), bounded. */
function headerValue(head: string[], field: RegExp): string | undefined {
  for (const line of head) {
    const name = field.exec(line);
    if (!name) continue;
    return boundedHeaderValue(line.slice(name[0].length).replace(/^\s*\*?\s*/, ''));
  }
  return undefined;
}

/** A forwarded mail's header value on one line, cut to {@link MAX_FORWARDED_HEADER_CHARS}; undefined when empty. */
function boundedHeaderValue(value: string): string | undefined {
  const line = value.replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  const chars = Array.from(line);
  return chars.length > MAX_FORWARDED_HEADER_CHARS ? `${chars.slice(0, MAX_FORWARDED_HEADER_CHARS).join('')}…` : line;
}

/**
 * A forwarded mail as it follows the customer's note: under {@link FORWARDED_DELIMITER}, its From and Subject, its
 * text cut to {@link MAX_FORWARDED_CHARS}. The note comes first because the agent reads a question from its start
 * (MAX_QUESTION_CHARS): a long forward never pushes the note out.
 */
function forwardedBlock(forwarded: ForwardedMessage): string {
  const head = [
    FORWARDED_DELIMITER,
    ...(forwarded.from ? [`From: ${forwarded.from}`] : []),
    ...(forwarded.subject ? [`Subject: ${forwarded.subject}`] : []),
  ];
  return `${head.join('\n')}\n\n${cutAtLineEnd(forwarded.text, MAX_FORWARDED_CHARS)}`;
}

/** `text` when it has at most `max` characters; else its start, cut at a line end where there is one, and `[…]`. */
function cutAtLineEnd(text: string, max: number): string {
  if (text.length <= max) return text;
  const lineEnd = text.lastIndexOf('\n', max);
  let cut = lineEnd > max / 2 ? lineEnd : max;
  // Never half a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(text[cut - 1] ?? '')) cut -= 1;
  return `${text.slice(0, cut).trimEnd()}\n[…]`;
}

/**
 * The signed text of an OpenPGP clear-signed message (RFC 4880 §7), without the armour lines, the `Hash:` header and
 * the signature block, dash-escaped lines (`- -…`) restored; the lines as they are when they hold no such message.
 */
function unwrapClearSigned(lines: string[]): string[] {
  const start = lines.findIndex((l) => l.trimEnd() === '-----BEGIN PGP SIGNED MESSAGE-----');
  if (start < 0) return lines;
  const end = lines.findIndex((l, i) => i > start && l.trimEnd() === '-----BEGIN PGP SIGNATURE-----');
  const close = lines.findIndex((l, i) => i > end && l.trimEnd() === '-----END PGP SIGNATURE-----');
  if (end < 0 || close < 0) return lines;
  let body = start + 1;
  while (body < end && lines[body]!.trim() !== '') body += 1; // the armour headers (Hash: …) end at a blank line
  const signed = lines.slice(body + 1, end).map((l) => (l.startsWith('- ') ? l.slice(2) : l));
  return [...lines.slice(0, start), ...signed, ...lines.slice(close + 1)];
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing.

/**
 * The mail's text: mailparser's text of its text/plain parts, or its HTML converted to text when there is no plain
 * text or the plain text only says the mail is HTML ({@link htmlInsteadOfNotice}; HTML conversion is ours, see
 * {@link HTML_TO_TEXT}). A body that declares no type and clearly is HTML is
 * converted as well: read as text/plain by default, its markup would be the question. `from` names the type of the
 * parts the text was made from (an untyped body is a text/plain part): a cut of the other type's parts loses nothing.
 */
function bodyText(mail: ParsedMail, notes: Notes): { text: string; from: 'plain' | 'html' } {
  const plain = (mail.text ?? '').replace(/\r\n?/g, '\n');
  if (plain.trim() !== '') {
    if (declaredContentType(mail) !== undefined || !looksLikeHtml(plain)) {
      const html = htmlInsteadOfNotice(mail, plain, notes);
      return html === undefined ? { text: plain, from: 'plain' } : { text: html, from: 'html' };
    }
    notes.warn('the body has no Content-Type but is HTML; it was converted to text as HTML');
    return { text: htmlText(plain, notes), from: 'plain' };
  }
  if (typeof mail.html !== 'string' || mail.html.trim() === '') return { text: plain, from: 'plain' };
  return { text: htmlText(mail.html, notes), from: 'html' };
}

// A sentence an HTML mailer writes in the text part in place of the text (「このメールはHTML形式で送信されています。」,
// 「HTML表示に対応したメールソフトでご覧ください。」, "This message is in HTML format.", "Your mail client does not support
// HTML."): it names HTML, the mail program or viewing.
const HTML_NOTICE_SENTENCE = /HTML|メールソフト|メーラー|ご覧(?:ください|下さい)|\b(?:e-?mail|mail) (?:client|program|reader|viewer|software)\b|\bview (?:this|the) (?:message|e-?mail)\b/iu;
// Such a notice is a sentence or two; a longer text part holds the customer's words.
const MAX_HTML_NOTICE_CHARS = 300;

/** True when `text` is only an HTML mailer's notice that the mail is HTML ({@link HTML_NOTICE_SENTENCE}). */
function isHtmlOnlyNotice(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.length > MAX_HTML_NOTICE_CHARS || !/HTML/i.test(trimmed)) return false;
  return trimmed.split(/(?<=[。．.!！])|\n/u).every((sentence) => sentence.trim() === '' || HTML_NOTICE_SENTENCE.test(sentence));
}

/**
 * The HTML part's text when the text part only says the mail is HTML ({@link isHtmlOnlyNotice}) and the HTML part has
 * words of its own: the notice would be the question and the customer's words never read (mail audit 6, 426).
 */
function htmlInsteadOfNotice(mail: ParsedMail, plain: string, notes: Notes): string | undefined {
  if (typeof mail.html !== 'string' || !isHtmlOnlyNotice(plain)) return undefined;
  // Its notes are the mail's only when its text is read.
  const htmlNotes = new Notes();
  const html = htmlText(mail.html, htmlNotes);
  if (!hasWords(html) || isHtmlOnlyNotice(html)) return undefined;
  notes.addWarningsOf(htmlNotes);
  return html;
}

/**
 * HTML as the text its reader sees: without the payloads of the `data:` URIs in its tags and `<style>`
 * ({@link withoutDataUriPayloads}: a pasted image after the customer's words was cut and parked the mail, review 42b),
 * cut to {@link MAX_HTML_CHARS} (html-to-text is linear but slow), nesting bounded, hidden elements left out. The cut
 * counts as text not read only when what it leaves out has visible text ({@link hasVisibleText}).
 */
function htmlText(html: string, notes: Notes): string {
  html = withoutDataUriPayloads(html);
  if (html.length > MAX_HTML_CHARS) {
    const cut = htmlCutAt(html, MAX_HTML_CHARS);
    const rest = html.slice(cut);
    html = html.slice(0, cut);
    if (hasVisibleText(rest)) {
      notes.cut(
        `HTML body longer than ${MAX_HTML_CHARS} characters; only the start was converted to text`,
        `only the first ${MAX_HTML_CHARS.toLocaleString('en')} characters of its HTML were read`,
      );
    } else {
      notes.warn(`HTML body longer than ${MAX_HTML_CHARS} characters; only the start was converted to text, and the ${rest.length.toLocaleString('en')} characters after it hold markup and no visible text`);
    }
  }
  const bounded = limitHtmlNesting(html, MAX_HTML_DEPTH);
  if (bounded.dropped > 0) {
    notes.warn(`HTML body nested deeper than ${MAX_HTML_DEPTH} elements; ${bounded.dropped} deeper tags were ignored when converting it to text`);
  }
  try {
    const shown = withoutHiddenElements(bounded.html);
    if (shown.removed > 0) notes.warn(`${shown.removed} HTML element(s) hidden from the reader (display:none, hidden, zero size, off-screen, <noscript>…) were left out of the text`);
    return convert(shown.html, HTML_TO_TEXT);
  } catch (err) {
    notes.cut(`HTML body could not be converted to text: ${(err as Error).message}`, 'its HTML could not be converted to text');
    return '';
  }
}

/** Where to cut `html` to at most `max` characters: before a tag the cut would split, and never inside a surrogate pair. */
function htmlCutAt(html: string, max: number): number {
  const open = html.lastIndexOf('<', max - 1);
  if (open > html.lastIndexOf('>', max - 1)) return open;
  return /[\uD800-\uDBFF]/.test(html[max - 1] ?? '') ? max - 1 : max;
}

// Where a part of the HTML starts that a reader never sees, up to its end tag (or the end: unclosed, it runs on). An
// end tag runs to the next `>` and may hold spaces, a `/` and attributes (`</style x>`: html-to-text ends the element
// there, review 42c F5); the `>` is looked for apart (in the pattern, `[^>]*` on `</style ` × 1M was quadratic).
const OUT_OF_SIGHT_START = /<!--|<(style|script|template|noscript|title)(?=[\s/>])/gi;
const OUT_OF_SIGHT_END: Readonly<Record<string, RegExp>> = Object.fromEntries(
  ['style', 'script', 'template', 'noscript', 'title'].map((name) => [name, new RegExp(`</${name}(?=[\\s/>])`, 'gi')]),
);
// A comment's end, searched from its `<!--` on by two characters: `<!-->` and `<!--->` are whole, empty comments.
const COMMENT_END = /-->/g;
// White space written as a character reference, named or numbered (`&nbsp;`, `&#160;`, `&#x3000;`, zero-width ones).
const SPACE_ENTITY = /&(?:nbsp|ensp|emsp|thinsp|zwnj|zwj|shy|lrm|rlm|#0*(?:9|10|13|32|160|173|820[1-7]|8194|8195|12288)|#x0*(?:9|a|d|20|a0|ad|200[2-9a-f]|3000));/gi;

/**
 * True when a stretch of HTML (what the cut at {@link MAX_HTML_CHARS} leaves out) shows words to a reader: a letter
 * or digit or a character reference other than white space's outside tags, comments, `<style>`, `<script>`,
 * `<template>`, `<noscript>` and `<title>`. Errs towards text: an element hidden by its style, a `<` never closed, a
 * tag split by a quoted `<`, a named reference (`&copy;`) and what follows `</style/>` or `</style x>` count. Linear
 * in the stretch's length: each search goes on from where the last one ended.
 */
function hasVisibleText(html: string): boolean {
  let shown = '';
  let pos = 0;
  for (;;) {
    OUT_OF_SIGHT_START.lastIndex = pos;
    const start = OUT_OF_SIGHT_START.exec(html);
    if (!start) {
      shown += html.slice(pos);
      break;
    }
    shown += `${html.slice(pos, start.index)} `;
    const end = start[1] ? OUT_OF_SIGHT_END[start[1].toLowerCase()]! : COMMENT_END;
    end.lastIndex = start[1] ? start.index + start[0].length : start.index + 2;
    const found = end.exec(html);
    if (!found) break;
    const close = start[1] ? html.indexOf('>', found.index) : found.index + 2;
    if (close < 0) break;
    pos = close + 1;
  }
  const text = shown.replace(/<[^<>]*>/g, ' ').replace(SPACE_ENTITY, ' ');
  // Any other character reference counts as text by its name or digits, whatever character it names.
  return hasWords(text);
}

// Elements that make up the markup of an HTML mail body; a plain text names one now and then, never dozens.
const HTML_BODY_TAG =
  /<\/?(?:html|head|body|meta|title|style|p|div|span|br|hr|font|b|i|u|s|em|strong|center|blockquote|pre|tt|h[1-6]|ul|ol|li|table|thead|tbody|tr|td|th|a|img)(?=[\s/>])[^<>]*>/gi;
// How a body that is HTML starts: a doctype, a comment, or a tag of one of the elements above.
const HTML_START = new RegExp(`^(?:<!doctype\\s+html\\b|<!--|${HTML_BODY_TAG.source})`, 'i');
// Enough of an untyped body is read to tell; a clear case shows in its start.
const HTML_SNIFF_CHARS = 64 * 1024;
// Tags in a body that does not start with one: at least so many, making up at least so much of its visible characters.
const MIN_HTML_TAGS = 5;
const MIN_HTML_TAG_SHARE = 1 / 3;

/**
 * True when an untyped body clearly is HTML: it starts with markup (a doctype, a comment, `<html>`, `<p>`, `<div>`,
 * `<font>`…) and has more than one tag, or at least {@link MIN_HTML_TAGS} tags make up a third of it. A text that
 * mentions a tag or two is not.
 */
function looksLikeHtml(text: string): boolean {
  const sample = text.slice(0, HTML_SNIFF_CHARS);
  const tags = sample.match(HTML_BODY_TAG) ?? [];
  if (HTML_START.test(sample.trimStart())) return tags.length >= 2;
  const visible = sample.replace(/\s+/g, '').length;
  const tagChars = tags.reduce((sum, tag) => sum + tag.replace(/\s+/g, '').length, 0);
  return tags.length >= MIN_HTML_TAGS && tagChars >= visible * MIN_HTML_TAG_SHARE;
}

// mailparser (mailsplit) refuses a mail of more than 1,000 MIME parts outright. Such a mail is read as its first
// parts: the text a customer wrote comes first, and hundreds of attachments after it change nothing for the answer.
export const MIME_PARTS_READ = 500;

/**
 * `input` as mailparser is handed it: without a byte order mark (from a mail saved by a Windows editor, or a web
 * form's upload: the first header's name would be `\ufeffFrom`, and the mail lose its sender), and with an obsolete
 * `From  :` first line (whitespace before the colon) spelled `From:`, which mailparser reads as an mbox "From "
 * separator and then drops the sender (the key still uses the raw bytes).
 */
export function parserInput(input: Buffer): Buffer {
  let read = input;
  if (read[0] === 0xef && read[1] === 0xbb && read[2] === 0xbf) read = read.subarray(3);
  const obsoleteFrom = /^From[ \t]+:/.exec(read.toString('latin1', 0, 64));
  if (obsoleteFrom) read = Buffer.concat([Buffer.from('From:'), read.subarray(obsoleteFrom[0].length)]);
  return read;
}

/**
 * mailparser's parse, except that a mail over its part limit is read as its first {@link MIME_PARTS_READ} parts
 * (cut before the next boundary line of any of its multiparts) with a warning, instead of failing as a whole: the
 * fallback for failures would hand the raw MIME, base64 and all, to the agent as the question.
 */
async function simpleParserWithinPartLimit(input: Buffer, notes: Notes): Promise<ParsedMail> {
  try {
    return withPartTypes(await simpleParser(input, PARSER_OPTIONS));
  } catch (err) {
    if (!isPartLimit(err)) throw err;
    const cut = firstMimeParts(input, MIME_PARTS_READ);
    if (!cut) {
      // No cut within the boundaries looked at (a multipart nested deeper than them, each level under its own): the
      // caller reads the body undecoded, raw MIME that must not reach the agent as the question, so it is parked.
      notes.cut(
        `the mail has more MIME parts than can be read (over 1,000) and no cut after its first ${MIME_PARTS_READ} was found`,
        'it has more than 1,000 MIME parts, and its body was read undecoded',
      );
      throw err;
    }
    // Parts past the cut may hold the text (a multipart nested thousands deep has it innermost): the mail is parked.
    notes.cut(
      `the mail has more MIME parts than can be read (over 1,000); only its first ${MIME_PARTS_READ} parts were read`,
      `only its first ${MIME_PARTS_READ} MIME parts were read`,
    );
    return withPartTypes(await simpleParser(cut, PARSER_OPTIONS));
  }
}

/**
 * `mail` with every attachment's type a string: mailparser gives a part whose Content-Type field is empty (or cut off
 * at the end of the mail) the type `false`, which every reader of the parts lower-cases. Such a part is a file of
 * unknown type, as a part of no type is everywhere else here.
 */
function withPartTypes(mail: ParsedMail): ParsedMail {
  for (const part of mail.attachments ?? []) {
    if (typeof part.contentType !== 'string' || part.contentType.trim() === '') part.contentType = 'application/octet-stream';
  }
  return mail;
}

/** True for mailparser's refusal of a mail of more MIME parts than it reads (see {@link MIME_PARTS_READ}). */
export function isPartLimit(err: unknown): boolean {
  return (err as { code?: unknown }).code === 'EMAXLEN' && /child nodes/i.test((err as Error).message);
}

/** `raw` cut before the `keep`-th boundary line of any of its multiparts, closed with the outermost boundary. */
export function firstMimeParts(raw: Buffer, keep: number): Buffer | undefined {
  const text = raw.toString('latin1');
  const boundaries = [...new Set(Array.from(text.matchAll(/boundary\s*=\s*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))/gi), (m) => m[1] ?? m[2] ?? ''))]
    .filter(Boolean)
    // The outermost first; a hostile mail may declare thousands, and each line is compared with them.
    .slice(0, 50);
  if (boundaries.length === 0) return undefined;
  let seen = 0;
  for (const line of text.matchAll(/(?:^|\n)--([^\r\n]*)/g)) {
    const rest = line[1] ?? '';
    if (!boundaries.some((b) => rest === b || rest.startsWith(b))) continue;
    seen += 1;
    if (seen === keep) {
      const at = line.index + (line[0].startsWith('\n') ? 1 : 0);
      return Buffer.concat([raw.subarray(0, at), Buffer.from(`--${boundaries[0]}--\r\n`)]);
    }
  }
  return undefined;
}

/**
 * Bytes of one MIME part's header section mailparser reads (mailsplit's default, passed so the reason of a mail over
 * it names the limit in force); a longer one fails the whole mail.
 */
export const MAX_HEADER_SECTION_BYTES = 1024 * 1024;

/** How mailparser reads inbound mail, here and where an attachment is read again (src/server/attachments.ts). */
export const PARSER_OPTIONS = {
  maxHeadSize: MAX_HEADER_SECTION_BYTES,
  // We convert HTML ourselves; mailparser's own conversion also rejects the whole mail when the HTML is large.
  skipHtmlToText: true,
  skipImageLinks: true,
  skipTextToHtml: true,
  skipTextLinks: true,
  keepCidLinks: true,
} as const;

/**
 * Why the header section of a mail could not be read, in an operator's words (the ticket's reason puts "unreadable
 * mail: " before it), mailparser's own after them.
 */
function headerSectionProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if ((err as { code?: unknown }).code === 'EMAXLEN' && /header size/i.test(message)) {
    return `its header section is over the parser's limit of ${MAX_HEADER_SECTION_BYTES / (1024 * 1024)} MB per MIME part (${message})`;
  }
  return `its header section could not be read (${message})`;
}

/**
 * Where the header section ends (after its blank line), searched in the first `limit` bytes; `limit` (at most the
 * length) when no blank line is there. A scan that reads only that far passes its own limit: a 25 MB mail without a
 * blank line is then not searched twice whole.
 */
function headerEnd(raw: Buffer, limit = raw.length): number {
  const head = raw.subarray(0, limit);
  const crlf = head.indexOf('\r\n\r\n');
  // An LF-only blank line can end the section only before a CRLF one: no need to search past it.
  const lf = head.subarray(0, crlf >= 0 ? crlf + 2 : head.length).indexOf('\n\n');
  const ends = [crlf >= 0 ? crlf + 4 : -1, lf >= 0 ? lf + 2 : -1].filter((n) => n >= 0);
  return ends.length > 0 ? Math.min(...ends) : head.length;
}

/**
 * What mailparser's failure was, in an operator's words (it follows "the MIME parser could not read it"), its own
 * message in parentheses.
 */
function mimeParserProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // Plain string tests: a new regex literal would need recording in test/fixtures/regex-safety.json.
  if ((err as { code?: unknown } | null)?.code === 'EMAXLEN' && message.toLowerCase().includes('header size')) {
    return `: the header section of one of its MIME parts is over the parser's limit of ${MAX_HEADER_SECTION_BYTES / (1024 * 1024)} MB (${message})`;
  }
  return ` (${message})`;
}

/**
 * Second attempt when mailparser rejects the mail: headers alone (they drive the reply decision), and the body as
 * undecoded text so a person can still read it. A body that is text as it stands (7bit, 8bit or binary, not a
 * multipart or an enclosed message) is the customer's words and stays the question; any other one read so is MIME
 * (boundaries, part headers, base64), which must not reach the agent as the question, so the mail is recorded as not
 * read whole and parked, with mailparser's error (`err`) named. The part limit's failure recorded its own cut already.
 */
async function parseHeadersOnly(raw: Buffer, notes: Notes, err: unknown): Promise<ParsedMail> {
  const end = headerEnd(raw);
  const head = raw.subarray(0, end);
  const mail = await simpleParser(Buffer.concat([head, Buffer.from('\r\n\r\n')]), PARSER_OPTIONS);
  const body = raw.subarray(end);
  const bodyString = isValidUtf8(body) ? body.toString('utf8') : body.toString('latin1');
  const contentType = mail.headers.get('content-type');
  const type = typeof contentType === 'object' && contentType !== null && 'value' in contentType ? String(contentType.value) : '';
  if (/^text\/html/i.test(type)) mail.html = bodyString;
  else mail.text = bodyString;
  mail.attachments = [];
  const encodingHeader = mail.headers.get('content-transfer-encoding');
  const encoding = (typeof encodingHeader === 'string' ? encodingHeader : '').trim().toLowerCase();
  const topType = type.trim().toLowerCase();
  const notText = topType.startsWith('multipart/') || topType.startsWith('message/') || !['', '7bit', '8bit', 'binary'].includes(encoding);
  if (notText && !isPartLimit(err)) {
    notes.cut(
      'body parsed as undecoded text after the MIME parser failed',
      `the MIME parser could not read it${mimeParserProblem(err)}, and its body was read undecoded`,
    );
  } else {
    notes.warn('body parsed as undecoded text after the MIME parser failed');
  }
  return mail;
}

/**
 * Reads the one part of a single-part text mail (top-level text/plain or text/html) as its body when mailparser filed
 * it as an attachment for a Content-Disposition that is neither `inline` nor `attachment` (a bogus or unknown value,
 * which RFC 2183 says to treat as `attachment`): with no other part, that part is what the sender wrote, and the mail
 * would otherwise be parked as "text only in its attachment" or answered from its subject. A part marked `attachment`
 * stays a file: the sender's client sent a file (a log, a saved page) as the whole mail, which a person opens.
 */
function readTextPartFiledAsAttachment(mail: ParsedMail, notes: Notes): void {
  const type = declaredContentType(mail);
  const [part, ...others] = mail.attachments ?? [];
  if ((type !== 'text/plain' && type !== 'text/html') || !part || others.length > 0) return;
  if ((mail.text ?? '') !== '' || typeof mail.html === 'string') return;
  const disposition = (part.contentDisposition ?? '').toLowerCase();
  if (part.contentType?.toLowerCase() !== type || disposition === 'attachment' || disposition === 'inline') return;
  const charset = paramsOf(part.headers?.get('content-type'))['charset']?.trim() || 'utf-8';
  const content = part.content ?? Buffer.alloc(0);
  const decoded = decodeBytes(content, charset) ?? content.toString('utf8');
  if (type === 'text/html') mail.html = decoded;
  else mail.text = decoded;
  mail.attachments = [];
  notes.warn("the mail's only part has a Content-Disposition that is neither inline nor attachment; it was read as the mail's text");
}

/** The parameters of a structured header as mailparser reports it (`{ value, params }`); {} for anything else. */
function paramsOf(header: unknown): Record<string, string> {
  const params = typeof header === 'object' && header !== null && 'params' in header ? (header as { params: unknown }).params : undefined;
  if (typeof params !== 'object' || params === null) return {};
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => typeof e[1] === 'string').map(([k, v]) => [k.toLowerCase(), v]));
}

function contentTypeOf(mail: ParsedMail): string {
  return declaredContentType(mail) ?? 'text/plain';
}

/** The top-level MIME type the mail declares, lower-case; undefined without a Content-Type or with one of no type. */
function declaredContentType(mail: ParsedMail): string | undefined {
  const header = mail.headers.get('content-type');
  const value = typeof header === 'object' && header !== null && 'value' in header ? String(header.value) : '';
  const type = value.trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) ? type : undefined;
}

function charsetOfContentType(mail: ParsedMail): string | undefined {
  return paramsOf(mail.headers.get('content-type'))['charset']?.trim() || undefined;
}

/**
 * Parses one raw mail. Never throws for broken MIME, bad charsets or malformed headers: what could be read is
 * returned and the problems are listed in `parseWarnings` / `charsetProblems`.
 *
 * @throws {MailParseError} when the input is empty or has no header field at all (not a mail).
 */
export async function parseInboundMail(raw: Buffer, opts: ParseOptions = {}): Promise<InboundMail> {
  return (await readMail(raw, opts, 0)).mail;
}

/** A parsed mail and what a mail that forwards it as an attachment reads of it. */
interface ReadMail {
  mail: InboundMail;
  /** Its From as it names itself (`Name <address>`), usable for a reply or not; undefined without one. */
  sender: string | undefined;
  /** Its own words and the mails it forwards, never its subject; undefined when it has none. */
  ownWords: string | undefined;
}

/** {@link parseInboundMail} of a mail `depth` attachments deep (0: the mail we received). */
async function readMail(raw: Buffer, opts: ParseOptions, depth: number): Promise<ReadMail> {
  if (!Buffer.isBuffer(raw)) throw new MailParseError('expected the raw mail as a Buffer');
  if (raw.every((b) => b <= 0x20)) {
    throw new MailParseError('empty input: no header fields and no body');
  }
  const notes = new Notes();
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  let input = raw;
  if (raw.length > maxBytes) {
    input = raw.subarray(0, maxBytes);
    notes.cut(
      `mail of ${raw.length} bytes truncated to the first ${maxBytes} bytes`,
      `only its first ${maxBytes.toLocaleString('en')} of ${raw.length.toLocaleString('en')} bytes were read`,
    );
  }

  input = parserInput(input);

  let parsed: ParsedMail;
  try {
    parsed = await simpleParserWithinPartLimit(input, notes);
  } catch (err) {
    notes.warn(`MIME parser failed: ${(err as Error).message}`);
    log.warn({ err }, 'MIME parser failed; falling back to headers and undecoded body');
    try {
      parsed = await parseHeadersOnly(input, notes, err);
    } catch (second) {
      throw new MailParseError(headerSectionProblem(second));
    }
  }

  const headers = rawHeaders(parsed);
  if (headers.length === 0) throw new MailParseError('no RFC 5322 header fields found: the input is not a mail');
  readTextPartFiledAsAttachment(parsed, notes);

  const { all: declared, ofParts: declaredOfParts } = declaredCharsets(input);
  const topCharset = charsetOfContentType(parsed);
  const fallbackCharset = [topCharset, ...declared].find(
    (label): label is string => label !== undefined && isSupportedCharset(label) && !/^(?:us-?ascii|utf-?8)$/i.test(label),
  );
  const headerCharsets: HeaderCharsets = {
    declared: fallbackCharset,
    preferred: rawHeaderCharset(
      headers.filter((h) => DECODED_HEADERS.has(h.key)).map((h) => h.bytes),
      fallbackCharset,
      declared,
    ),
  };

  const rawSubject = firstRaw(headers, 'subject');
  let subject: string;
  if (rawSubject && (rawSubject.bytes.includes(0x1b) || (rawSubject.bytes.some((b) => b >= 0x80) && !isValidUtf8(rawSubject.bytes)))) {
    subject = decodeRawHeader(rawSubject.bytes, headerCharsets, 'subject', notes);
  } else {
    // mailparser's reading, unless an encoded-word in it is UTF-8 under a Latin label, which only ours reads as UTF-8,
    // or ISO-2022-JP with codes mailparser makes a plain `?` (「題名?」), which ours reads or marks as U+FFFD.
    const ownNotes = new Notes();
    const ours = rawSubject ? decodeRawHeader(rawSubject.bytes, headerCharsets, 'subject', ownNotes) : '';
    const theirs = typeof parsed.subject === 'string' ? parsed.subject : undefined;
    const useOurs = ownNotes.encodedWordsRepaired > 0 || ownNotes.jisWordsMailparserLoses > 0 || theirs === undefined;
    // mailparser unfolds a folded line to one space; the raw value kept the tab or space that began the next line.
    subject = useOurs ? ours.replace(/[\t\r\n]+/g, ' ') : theirs;
    if (useOurs) notes.addCharsetProblemsOf(ownNotes);
  }
  // Removed before anything reads it: the reply decision, the question of a mail without a body, the review page.
  subject = visibleLine(subject, notes);
  const capped = capSubject(subject);
  subject = capped.subject;
  if (capped.cutFrom !== undefined) {
    notes.warn(`subject of ${capped.cutFrom.toLocaleString('en')} characters cut to its first ${MAX_SUBJECT_CHARS - 1} and an ellipsis`);
  }

  const fromList = mailboxes(headers, 'from', headerCharsets, notes);
  const replyToList = mailboxes(headers, 'reply-to', headerCharsets, notes);
  const to = mailboxes(headers, 'to', headerCharsets, notes);
  const cc = mailboxes(headers, 'cc', headerCharsets, notes);

  const messageIdHeader = firstRaw(headers, 'message-id');
  const messageId = messageIdHeader ? normaliseMessageId(rawText(messageIdHeader.bytes)) : undefined;
  const inReplyToHeader = firstRaw(headers, 'in-reply-to');
  const inReplyTo = inReplyToHeader ? parseMessageIdList(rawText(inReplyToHeader.bytes))[0] : undefined;
  const references = capReferences(
    parseMessageIdList(
      headers
        .filter((h) => h.key === 'references')
        .map((h) => rawText(h.bytes))
        .join(' '),
    ),
  );

  const dateHeader = firstRaw(headers, 'date');
  const date = dateHeader ? parseDate(rawText(dateHeader.bytes)) : undefined;
  if (dateHeader && !date) notes.warn('unparseable Date header');
  const dateOffset = dateHeader && date ? dateOffsetMinutes(rawText(dateHeader.bytes)) : undefined;

  const classifierHeaders: Record<string, string[]> = {};
  const extra = (opts.extraHeaders ?? []).map((h) => h.trim().toLowerCase());
  for (const header of headers) {
    // Spam filters' verdicts come under many names (X-Spam-Flag, X-Spam-Status, X-Spamd-Result…): keep them all.
    if (!CLASSIFIER_HEADERS.includes(header.key) && !header.key.includes('spam') && !extra.includes(header.key)) continue;
    (classifierHeaders[header.key] ??= []).push(rawText(header.bytes));
  }

  // The body as mailparser read it, or read again with the text parts' labels fixed (headers stay as first read).
  // What converting a reading's body found (an HTML body cut, hidden elements) is said of the reading kept only.
  let body = parsed;
  let bodyNotes = new Notes();
  let read = bodyText(parsed, bodyNotes);
  let repairs: CharsetRepair[] = [];
  let bytesLeftOut = 0;
  if (looksMisdecoded(read.text) || declared.some((label) => !isSupportedCharset(label)) || mayHoldEightBitJis(input, declaredOfParts) || mayHoldJisCodesMailparserLoses(input, declaredOfParts)) {
    const relabelled = await relabelTextParts(input, RELABELLED_TEXT_BUDGET);
    if (relabelled) {
      try {
        body = await simpleParserWithinPartLimit(relabelled.raw, notes);
        readTextPartFiledAsAttachment(body, notes);
        bodyNotes = new Notes();
        read = bodyText(body, bodyNotes);
        repairs = relabelled.repairs;
        // Only a cut of the parts the text is made from loses any of it (review 42b: the bytes of a 2 MB HTML
        // alternative, a pasted image, parked a mail whose short plain text was read whole).
        bytesLeftOut = relabelled.bytesLeftOutByType[read.from];
      } catch (err) {
        log.debug({ err }, 'the mail with its text parts relabelled could not be parsed; keeping the first reading');
      }
    }
  }
  notes.addWarningsOf(bodyNotes);
  let text = read.text;
  if (bytesLeftOut > 0) {
    notes.cut(
      `text parts longer than can be read again in the charset their bytes are in were cut to at most ${MAX_RELABELLED_TEXT_BYTES.toLocaleString('en')} bytes of plain text and ${MAX_RELABELLED_HTML_BYTES.toLocaleString('en')} bytes of HTML in all; the ${bytesLeftOut.toLocaleString('en')} bytes after the cut were not read`,
      `the last ${bytesLeftOut.toLocaleString('en')} bytes of its text were not read: text read again in the charset its bytes are in stops at ${MAX_RELABELLED_TEXT_BYTES.toLocaleString('en')} bytes of plain text and ${MAX_RELABELLED_HTML_BYTES.toLocaleString('en')} of HTML`,
    );
  }
  for (const repair of repairs) {
    // A part only read by a better decoder than mailparser's had the right label: what that one could not read is
    // U+FFFD in the text, named below.
    if (repair.redecoded) continue;
    notes.charsetProblem(`text ${repair.declared ? `declared as ${repair.declared}` : 'without a charset'} was read as ${repair.charset}, which its bytes are in`);
  }
  const repairedLabels = new Set(repairs.map((r) => r.declared?.toLowerCase()));
  for (const label of declared) {
    if (!isSupportedCharset(label) && !repairedLabels.has(label)) notes.charsetProblem(`unknown charset "${label}"; its text was read as UTF-8`);
  }
  // Removed before anything reads the text: the question, the reply decision, the review page and learned pairs.
  const visibleText = removeInvisible(text);
  const plainText = removeControls(visibleText.text);
  // Control characters are what shows a body decoded to noise (a broken charset or transfer encoding), so the
  // unreadable check reads the text with them.
  const decodedText = visibleText.text;
  text = plainText.text;
  notes.invisibleRemoved += visibleText.removed;
  notes.controlsRemoved += plainText.removed;
  if (text.includes('\uFFFD')) notes.charsetProblem('body text contains replacement characters (undecodable bytes)');
  if (subject.includes('\uFFFD')) notes.charsetProblem('subject contains replacement characters (undecodable bytes)');

  // Before the list and the park reasons read the names (the reason names an attachment it parks for).
  let rawNames: Set<string> | undefined;
  const rawNamesOnce = () => (rawNames ??= rawNameValues(input));
  for (const a of body.attachments ?? []) if (a.filename) a.filename = rawFilename(a.filename, rawNamesOnce, headerCharsets, notes);
  const attachments: AttachmentInfo[] = (body.attachments ?? []).map((a) => ({
    // Shown on the review page beside the part's type and size, which a text-direction control would reorder.
    filename: (a.filename && visibleLine(a.filename, notes)) || undefined,
    contentType: (a.contentType || 'application/octet-stream').toLowerCase(),
    size: typeof a.size === 'number' ? a.size : (a.content?.length ?? 0),
  }));
  if (notes.invisibleRemoved > 0) {
    notes.warn(
      `${notes.invisibleRemoved} invisible character(s) removed (Unicode tags, text-direction controls, zero-width characters): text a reader does not see, possibly instructions hidden for the model`,
    );
  }
  if (notes.controlsRemoved > 0) {
    notes.warn(`${notes.controlsRemoved} control character(s) removed (terminal escape sequences, NUL, DEL): a mail client shows nothing of them, an operator's terminal would run them`);
  }

  // A quoted mail from a mailbox this one was sent to is ours (the customer replies to it): its closing text is no note.
  const recipients = [...to, ...cc].map((m) => m.address.toLowerCase());
  // A `|` quote is one only in a reply: in a first mail such lines are a customer's table, log or drawing, and in a
  // forward the forwarded mail's own (an alert's data lines).
  const reply = (Boolean(inReplyTo) || references.length > 0 || REPLY_OR_FORWARD_PREFIX.test(subject)) && !FORWARD_SUBJECT.test(subject);
  const own = ownTextOf(text, subject, recipients, ourMailboxesOf(recipients, firstUsable(fromList), opts.ownAddresses), reply, firstUsable(fromList)?.address);
  const attached = await attachedMails(body, input, opts, depth);
  const forwards = [...(own.forwarded ? [own.forwarded] : []), ...attached];
  const ownWords = withForwards(own.note, forwards);
  const question = ownWords ?? subjectAsQuestion(subject);
  // A mail pasted in without a forward's marker is in the question, but the checks of what the sender wrote read their
  // words as before: a new mail of only a pasted mail is parked for a person, as one of only an attached mail is.
  const sendersWords = own.pasted ? withForwards(own.note, attached) : ownWords;
  const sendersPart = ownPart(text, reply);
  const mail: InboundMail = {
    messageId,
    from: firstUsable(fromList),
    // A Reply-To with no usable address (a route, a domain literal) is kept as it is, so the reply decision parks the
    // mail, naming it, rather than answer its From, which the sender asked us not to.
    replyTo: firstUsable(replyToList) ?? replyToList[0],
    to,
    cc,
    subject,
    date,
    ...(dateOffset !== undefined ? { dateOffsetMinutes: dateOffset } : {}),
    inReplyTo,
    references,
    headers: classifierHeaders,
    contentType: contentTypeOf(parsed),
    text,
    question,
    // As withForwards reads them: only a forward with words goes into the question.
    customerWords: forwards.some((forwarded) => hasWords(forwarded.text)) ? (hasWords(own.note) ? (own.vouching ?? own.note) : '') : question,
    attachments,
    parseWarnings: notes.warnings,
  };
  const charsetProblems = notes.charset;
  if (charsetProblems.length > 0) mail.charsetProblems = charsetProblems;
  const unreadable = unreadableReason({
    top: { contentType: mail.contentType, params: paramsOf(parsed.headers.get('content-type')) },
    text: decodedText,
    // Whether the customer wrote anything decides whether an attachment or the quote is all there is; the subject,
    // which stands in for a question when they wrote nothing, does not count.
    ownWords: sendersWords ?? '',
    ownText: own.note,
    quoted: sendersPart.quoted,
    parts: (body.attachments ?? []).map((a) => ({
      contentType: a.contentType || '',
      params: paramsOf(a.headers?.get('content-type')),
      filename: a.filename,
      inline: layoutImage(a.cid, a.size ?? a.content?.length ?? 0, body.html),
      // A zip's bytes tell whether it is encrypted; they go to this check only, never onto the mail or the ticket.
      ...(a.content && isZipArchive({ contentType: a.contentType || '', filename: a.filename }) ? { content: a.content } : {}),
    })),
    subject,
    threaded: Boolean(inReplyTo) || references.length > 0,
    exchangeRecall: headers.some((h) => h.key === 'x-ms-traffictypediagnostic' && /\bEE_MessageRecallEmail\b/i.test(rawText(h.bytes))),
  });
  // A cut first: it may be why the rest reads as it does (the question past it, only an attachment before it).
  const cut = notes.cuts.length > 0 ? `${TEXT_NOT_READ_WHOLE} (${notes.cuts.join('; ')})` : undefined;
  if (cut || unreadable) mail.unreadable = [cut, unreadable].filter(Boolean).join('; ');
  const senderUnclear = unclearSender(fromList, headers);
  if (senderUnclear) mail.senderUnclear = senderUnclear;
  const massMailing = massMailingEvidence({ ...sendersPart, html: typeof body.html === 'string' ? body.html : undefined });
  if (massMailing) mail.massMailing = massMailing;
  const returned = returnedMailPart(input, mail.contentType, paramsOf(parsed.headers.get('content-type'))['boundary']);
  if (returned) mail.returnedOriginal = returned;
  const feedbackType = feedbackTypeOf(mail.contentType, body.attachments ?? []);
  if (feedbackType) mail.feedbackType = feedbackType;
  // Only a bounce reports on our reply: a customer's mail attaching one (under a null envelope sender, "is this from
  // you?") or Microsoft's complaint about it would otherwise mark it undelivered (bug review 44c).
  if (reportsDelivery(mail)) {
    const report = deliveryReportOf(text, (body.attachments ?? []).map((a) => ({ contentType: a.contentType || '', content: a.content ?? Buffer.alloc(0) })));
    if (report) mail.deliveryReport = report;
  }
  if (notes.warnings.length > 0 || charsetProblems.length > 0) {
    log.debug({ messageId, warnings: notes.warnings, charsetProblems }, 'mail parsed with problems');
  }
  const named = fromList[0];
  return { mail, sender: named && (named.name ? `${named.name} <${named.address}>` : named.address), ownWords };
}

// Bounds of the scan for them: a bounce's parts come first, and a part's header section is short.
const MAX_RETURNED_SCAN_BYTES = 1024 * 1024;
const MAX_RETURNED_SCAN_PARTS = 50;
const MAX_PART_HEADER_CHARS = 8 * 1024;

/**
 * The type of the first top-level part of a multipart mail that is a mail or its headers ({@link ORIGINAL_PARTS}),
 * found by the part delimiters in the raw bytes; undefined for other mail. Only the top level: a mail attached to a
 * forwarded one is that mail's.
 */
function returnedMailPart(raw: Buffer, contentType: string, boundary: string | undefined): string | undefined {
  if (!contentType.startsWith('multipart/') || !boundary) return undefined;
  const text = raw.subarray(0, MAX_RETURNED_SCAN_BYTES).toString('latin1');
  const delimiter = `--${boundary}`;
  let at = text.indexOf(delimiter, headerEnd(raw, MAX_RETURNED_SCAN_BYTES) - 1);
  for (let parts = 0; at >= 0 && parts < MAX_RETURNED_SCAN_PARTS; at = text.indexOf(delimiter, at + delimiter.length)) {
    if (at > 0 && text[at - 1] !== '\n') continue;
    const lineEnd = text.indexOf('\n', at);
    if (lineEnd < 0) return undefined;
    // Only transport padding may follow a delimiter (RFC 2046 §5.1.1): `--b0--` closes; `--b0x` is another boundary.
    const rest = text.slice(at + delimiter.length, lineEnd);
    if (/^--\s*$/.test(rest)) return undefined;
    if (rest.trim() !== '') continue;
    parts++;
    const window = text.slice(lineEnd, lineEnd + MAX_PART_HEADER_CHARS);
    const blank = /\r?\n\r?\n/.exec(window);
    const head = window.slice(0, blank ? blank.index : window.length).replace(/\r?\n[ \t]+/g, ' ');
    const type = /^content-type[ \t]*:[ \t]*([^;\s]+)/im.exec(head)?.[1]?.toLowerCase();
    if (type && ORIGINAL_PARTS.has(type)) return type;
  }
  return undefined;
}

/** The Feedback-Type of an ARF report's message/feedback-report part, lower-case; undefined for other mail. */
function feedbackTypeOf(contentType: string, attachments: ParsedMail['attachments']): string | undefined {
  if (contentType !== 'multipart/report') return undefined;
  const part = attachments.find((a) => (a.contentType ?? '').toLowerCase() === 'message/feedback-report');
  const fields = part?.content?.subarray(0, MAX_PART_HEADER_CHARS).toString('latin1') ?? '';
  return /^Feedback-Type[ \t]*:[ \t]*([\w.-]+)/im.exec(fields)?.[1]?.toLowerCase();
}

// Attached mails read into the question: a customer forwards one or two ("is this genuine?"), a hostile mail hundreds.
const MAX_ATTACHED_MAILS = 3;
// How deep attached mails are read: one attached to the customer's mail, and one attached to that (a colleague's forward
// of the suspicious mail, which the customer forwards to us); each is cut to MAX_FORWARDED_CHARS in the one above it.
const MAX_ATTACHED_MAIL_DEPTH = 2;
// Bytes of an attached mail parsed: its text comes first, and its own attachments add nothing to the question.
const MAX_ATTACHED_MAIL_BYTES = 1024 * 1024;
const ATTACHED_MAIL_TYPES = new Set(['message/rfc822', 'message/global']);
// A multipart/digest's parts are message/rfc822 by default: a list's digest, not mail anyone forwards to us.
const DIGEST = /^content-type:[ \t]*(?:\r?\n[ \t]+)?multipart\/digest\b/im;

/**
 * The mails attached to `body` (message/rfc822, Gmail's and Outlook's "forward as attachment"), read as a forward in
 * the text is: From, Subject and their own words, for the question. Not the mail a delivery report returns, nor a
 * digest's; at most {@link MAX_ATTACHED_MAILS}, {@link MAX_ATTACHED_MAIL_DEPTH} deep, each from its first
 * {@link MAX_ATTACHED_MAIL_BYTES}.
 */
async function attachedMails(body: ParsedMail, input: Buffer, opts: ParseOptions, depth: number): Promise<ForwardedMessage[]> {
  if (depth >= MAX_ATTACHED_MAIL_DEPTH) return [];
  const parts = (body.attachments ?? []).filter((a) => ATTACHED_MAIL_TYPES.has((a.contentType ?? '').toLowerCase())).slice(0, MAX_ATTACHED_MAILS);
  if (parts.length === 0 || contentTypeOf(body) === 'multipart/report' || DIGEST.test(input.toString('latin1'))) return [];
  const maxBytes = Math.min(opts.maxBytes ?? DEFAULT_MAX_BYTES, MAX_ATTACHED_MAIL_BYTES);
  const forwards: ForwardedMessage[] = [];
  for (const part of parts) {
    let attached: ReadMail;
    try {
      attached = await readMail(part.content ?? Buffer.alloc(0), { maxBytes }, depth + 1);
    } catch (err) {
      if (err instanceof MailParseError) continue;
      throw err;
    }
    forwards.push({ from: boundedHeaderValue(attached.sender ?? ''), subject: boundedHeaderValue(attached.mail.subject), text: attached.ownWords ?? '' });
  }
  return forwards;
}
