/**
 * Outcomes: how each ticket ended, recorded once when it reaches an end state, so the team can see how often drafts
 * go out untouched, how much operators change them, and what is rejected or ignored.
 *
 * Pure logic only: which outcome a transition records ({@link outcomeOnEntering}), the edit ratio between the agent's
 * draft and the text an operator sent ({@link editRatio}), and the Redis keys the ticket store counts them in
 * ({@link outcomeKeys}). The store writes the outcome and the counters in the same atomic write as the state change,
 * so a ticket's outcome is counted exactly once per time it ends.
 */
import type { AgentResult } from '../agent/types.js';
import { QUOTE_HEADER_PATTERNS, REPLY_ORIGINAL_SEPARATOR } from '../mail/parse.js';
import { localDay } from './local-day.js';
import { addressDigest } from './rate-limit.js';
import type { Ticket, TicketState } from './ticket.js';

/** Every outcome, in the order dashboards list them. */
export const OUTCOMES = ['auto_sent', 'approved_as_is', 'approved_edited', 'rejected', 'ignored', 'failed'] as const;

/** How a ticket ended. */
export type OutcomeKind = (typeof OUTCOMES)[number];

/** The outcome recorded on a ticket when it reached an end state. */
export interface TicketOutcome {
  kind: OutcomeKind;
  /** When it was recorded (ISO 8601): the time of the final state change. */
  at: string;
  /**
   * The day (`YYYY-MM-DD`) the store counted it on in the per-day aggregates: {@link outcomeDay} of `at` in the zone
   * of the process that counted it. A reopening takes the ending back on this day and an erasure looks for its
   * rejection reason there ({@link countedDay}), whatever zone they run in. Absent on outcomes counted before it was
   * stored.
   */
  day?: string;
  /**
   * For approved replies: 0 when the text sent equals the agent's draft, 1 when it was rewritten entirely; see
   * {@link editRatio}. Absent for approvals recorded before edit ratios were (the history still tells edited or not).
   */
  editRatio?: number;
  /** For `rejected`, `ignored` and `failed`: the ticket's reason at that moment. */
  reason?: string;
  /**
   * For `rejected`: a person closed the ticket because its reply cannot be delivered (the SMTP server refused it for
   * good, or it bounced), not because the draft was wrong; so it is no review of the draft (src/tickets/trust.ts).
   */
  undeliverable?: true;
  /** For `approved_edited`: the kinds of fact the operator corrected ({@link changedFacts}), when any. */
  factsChanged?: FactKind[];
  /**
   * For reviews (approved or rejected): {@link senderDigest} of the customer who asked, so that trust counts one
   * review per person (src/tickets/trust.ts). A digest, not the address: it is copied into the trust records.
   */
  sender?: string;
}

/** Hex characters of a {@link senderDigest}: enough to tell a mailbox's customers apart. */
const SENDER_DIGEST_CHARS = 16;

/**
 * A short SHA-256 digest of a sender's address in the form the automatic-reply limits compare (case, full-width
 * letters, IDN spelling, a `+tag` and a Gmail address's dots folded: `victim+1@` and `victim+2@` are one mailbox,
 * src/tickets/rate-limit.ts).
 */
export function senderDigest(address: string): string {
  return addressDigest(address).slice(0, SENDER_DIGEST_CHARS);
}

/** Kinds of fact an operator's edit can correct, in the order {@link changedFacts} lists them. */
export const FACT_KINDS = ['number', 'date', 'url', 'email', 'error code'] as const;

/** A kind of fact in a reply: see {@link changedFacts}. */
export type FactKind = (typeof FACT_KINDS)[number];

/**
 * How each kind of fact is found, most specific first: each kind's matches are cut out of the text before the next
 * kind is looked for, so the digits of a date or a URL are not counted again as numbers.
 */
const FACT_PATTERNS: ReadonlyArray<readonly [FactKind, RegExp]> = [
  ['url', /\b(?:https?:\/\/|www\.)[^\s<>"'「」『』（）()【】、。]+/giu],
  // Bounded and anchored at the start of a run: unbounded, it was tried from every position of a long run of
  // letters without '@' (Japanese without punctuation), quadratic in the run (20,000 letters: 25 s).
  ['email', /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){1,8}/gu],
  ['date', /\d{4}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}\s*日?|\d{4}\s*年\s*\d{1,2}\s*月|\d{1,2}\s*月\s*\d{1,2}\s*日/gu],
  ['error code', /\b[A-Z][A-Z0-9]{0,7}[-_]?\d{2,}\b/gu],
  ['number', /\d+(?:[.,]\d+)*/gu],
];

/**
 * The kinds of fact — numbers, dates, URLs, e-mail addresses, error codes — whose values differ between the reply
 * bodies ({@link replyBody}) of `draft` and `sent`, compared as multisets after NFKC (so `１，０００` is `1,000` and a
 * reordering changes nothing). A reviewer who changes 「7 日間」 to 「3 日間」 corrected the agent, though the edit ratio
 * is tiny: such an approval must not count as the agent being right.
 */
export function changedFacts(draft: string, sent: string): FactKind[] {
  const [before, after] = [factsOf(replyContent(draft)), factsOf(replyContent(sent))];
  return FACT_KINDS.filter((kind) => before.get(kind) !== after.get(kind));
}

/** Each kind of fact in `text`, as its sorted values joined (a comparable multiset). */
function factsOf(text: string): Map<FactKind, string> {
  let rest = text.normalize('NFKC');
  const facts = new Map<FactKind, string>();
  for (const [kind, pattern] of FACT_PATTERNS) {
    // A number is compared without its thousands separators: 1,000円 rewritten as 1000円 is the same amount, not a
    // correction (bug review B2: it blocked the correct Q&A row that said 1,000円).
    const values = (rest.match(pattern) ?? []).map((v) => {
      const plain = v.replace(/\s+/g, '');
      return kind === 'number' ? withoutThousandsSeparators(plain) : plain;
    });
    facts.set(kind, values.sort().join('\u0000'));
    rest = rest.replace(pattern, ' ');
  }
  return facts;
}

/** `1,000,000` as `1000000`: commas between groups of three digits go; `1,5` or `10,20` stay. */
export function withoutThousandsSeparators(text: string): string {
  return text.replace(/(\d),(?=\d{3}(?!\d))/g, '$1');
}

/**
 * What the operator's approval changed, stored with the approval because the agent's draft is at hand only then
 * (the sender, which records the outcome, does not read the agent result).
 */
export interface ApprovalRecord {
  /** True when the text approved differs from the agent's draft (ignoring line endings and outer whitespace). */
  edited: boolean;
  /** {@link editRatio} of the agent's draft and the approved text. */
  editRatio: number;
  /** The kinds of fact the edit corrected ({@link changedFacts}); absent when none. */
  factsChanged?: FactKind[];
  /**
   * The agent had no answer ({@link agentHadNoAnswer}): the reviewer wrote the reply, so it corrected nothing and
   * names no changed facts. Absent otherwise.
   */
  agentHadNoAnswer?: true;
}

/** Upper bounds of the edit-ratio histogram: most approvals change little, so the low end is finer. */
export const EDIT_RATIO_BUCKETS = [0, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1] as const;

/**
 * Longest text (in code points, after stripping and removing the common prefix and suffix) the edit distance is
 * computed on. The distance is O(n·m) and runs in the dashboard's request; a reply is far shorter than this, and a
 * longer one is compared on its first part, which still tells "unchanged" from "rewritten".
 */
export const MAX_EDIT_DISTANCE_CHARS = 4_000;

/** The state whose entry records each outcome family; every other state records none. */
const OUTCOME_STATES: readonly TicketState[] = ['sent', 'rejected', 'ignored', 'failed'];

/** True for a state a ticket records an outcome on entering. */
export function isOutcomeState(state: TicketState): boolean {
  return OUTCOME_STATES.includes(state);
}

/** True for a string naming an {@link OutcomeKind}. */
export function isOutcomeKind(value: unknown): value is OutcomeKind {
  return typeof value === 'string' && (OUTCOMES as readonly string[]).includes(value);
}

/**
 * The outcome a ticket records on entering `to`, read from the ticket as it will be written (state, reason, outbound
 * record and approval already applied), or undefined when `to` ends nothing.
 *
 * - `sent` without a person (`outbound.autoSubmitted`): `auto_sent`;
 * - `sent` after an approval: `approved_edited` with the edit ratio when the operator changed the draft, else
 *   `approved_as_is` (edit ratio 0). An approval stored before {@link ApprovalRecord} existed is judged by its
 *   history note, without a ratio. The same when a person confirmed that a reply which may already have been sent
 *   arrived (`parked → sent`): the reply is what the attempt sent, automatic or approved;
 * - `rejected`, `ignored`, `failed`: that outcome with the ticket's reason; a rejection that closed an undeliverable
 *   reply (`outbound.deliveryCheck`) is marked `undeliverable` and names no sender: it reviewed no draft.
 */
export function outcomeOnEntering(
  ticket: Pick<Ticket, 'reason' | 'outbound' | 'approval' | 'history'> & Partial<Pick<Ticket, 'from'>>,
  to: TicketState,
  at: string,
): TicketOutcome | undefined {
  const outcome = endingOutcome(ticket, to, at);
  if (!outcome || !ticket.from || outcome.undeliverable || !['approved_as_is', 'approved_edited', 'rejected'].includes(outcome.kind)) return outcome;
  return { ...outcome, sender: senderDigest(ticket.from) };
}

function endingOutcome(ticket: Pick<Ticket, 'reason' | 'outbound' | 'approval' | 'history'>, to: TicketState, at: string): TicketOutcome | undefined {
  switch (to) {
    case 'sent': {
      if (ticket.outbound?.autoSubmitted) return { kind: 'auto_sent', at };
      if (ticket.approval) {
        const facts = ticket.approval.factsChanged;
        return ticket.approval.edited
          ? { kind: 'approved_edited', at, editRatio: ticket.approval.editRatio, ...(facts && facts.length > 0 ? { factsChanged: facts } : {}) }
          : { kind: 'approved_as_is', at, editRatio: 0 };
      }
      const approval = [...ticket.history].reverse().find((h) => h.to === 'approved');
      return { kind: approval?.note?.includes('edited') ? 'approved_edited' : 'approved_as_is', at };
    }
    case 'rejected':
      return {
        kind: to,
        at,
        ...(ticket.reason ? { reason: ticket.reason } : {}),
        ...(ticket.outbound?.deliveryCheck?.verdict === 'undeliverable' ? { undeliverable: true as const } : {}),
      };
    case 'ignored':
    case 'failed':
      return { kind: to, at, ...(ticket.reason ? { reason: ticket.reason } : {}) };
    default:
      return undefined;
  }
}

/**
 * What an operator's approval changed: `agent` is the agent's result or just its answer (absent or empty when the
 * agent wrote none, so a reply written from scratch has ratio 1), `sent` the text approved for sending.
 *
 * When the agent had no answer ({@link agentHadNoAnswer}) no facts are compared: every number of a reply the reviewer
 * wrote over an empty draft or the "not found" fallback is new, not a correction of the agent (walkthrough W1: such
 * an approval read "corrected by the reviewer (number changed)" on the Knowledge page).
 */
export function approvalRecord(agent: string | Pick<AgentResult, 'answer' | 'subtasks'> | undefined, sent: string): ApprovalRecord {
  const draft = typeof agent === 'string' ? agent : agent?.answer;
  const before = normalizeLines(draft ?? '').trim();
  const after = normalizeLines(sent).trim();
  if (before === after) return { edited: false, editRatio: 0 };
  const ratio = editRatio(before, after);
  if (agentHadNoAnswer(typeof agent === 'string' ? { answer: agent } : agent)) return { edited: true, editRatio: ratio, agentHadNoAnswer: true };
  const facts = changedFacts(before, after);
  return { edited: true, editRatio: ratio, ...(facts.length > 0 ? { factsChanged: facts } : {}) };
}

/**
 * True when the agent gave no answer a reviewer could correct: it wrote none (no run, or an empty answer), or every
 * subtask ran out of tries, so its answer only says that nothing was found (the fallback, src/agent/agent.ts
 * `fallbackSubtaskAnswer`, in whatever words the final writer put it). A run where some subtasks were answered had an
 * answer: what the reviewer changed of it is a correction.
 */
export function agentHadNoAnswer(agent: { answer?: string; subtasks?: readonly Pick<AgentResult['subtasks'][number], 'usedFallback'>[] } | undefined): boolean {
  if (!agent?.answer?.trim()) return true;
  const subtasks = agent.subtasks ?? [];
  return subtasks.length > 0 && subtasks.every((s) => s.usedFallback);
}

/**
 * How much of `draft` was changed to give `sent`: the Levenshtein distance (in code points) of their contents
 * ({@link replyContent}: no greeting, closing, signature or quoted original, but a "P.S." below the closing kept)
 * divided by the longer one's length, so 0 is unchanged and 1 rewritten. Rounded to four decimals so it reads and
 * stores cleanly.
 */
export function editRatio(draft: string, sent: string, options: ReplyBodyOptions = {}): number {
  // Content below a closing (a "P.S." correction) is no greeting or signature: it is compared with the body. Not the
  // whole text, which would count a changed salutation whenever a disclaimer sits below the signature.
  const a = Array.from(replyContent(draft, options));
  const b = Array.from(replyContent(sent, options));
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 0;
  return Math.round((levenshtein(a, b) / longest) * 10_000) / 10_000;
}

/**
 * Levenshtein distance of two code-point arrays, in two rows of memory. The common prefix and suffix are cut first
 * (edits are usually local), then each side is capped at {@link MAX_EDIT_DISTANCE_CHARS}. Past the cap the result
 * is an upper bound (each character beyond it counts as one edit), still at most the longer length, so a ratio
 * stays within 0–1.
 */
export function levenshtein(a: readonly string[], b: readonly string[]): number {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  let x = a.slice(start, endA);
  let y = b.slice(start, endB);
  const capped = Math.max(0, Math.max(x.length, y.length) - MAX_EDIT_DISTANCE_CHARS);
  x = x.slice(0, MAX_EDIT_DISTANCE_CHARS);
  y = y.slice(0, MAX_EDIT_DISTANCE_CHARS);
  if (x.length < y.length) [x, y] = [y, x];
  if (y.length === 0) return x.length + capped;
  let previous = new Int32Array(y.length + 1);
  let current = new Int32Array(y.length + 1);
  for (let j = 0; j <= y.length; j++) previous[j] = j;
  for (let i = 1; i <= x.length; i++) {
    current[0] = i;
    const xi = x[i - 1];
    for (let j = 1; j <= y.length; j++) {
      const substitution = previous[j - 1]! + (xi === y[j - 1] ? 0 : 1);
      const deletion = previous[j]! + 1;
      const insertion = current[j - 1]! + 1;
      current[j] = Math.min(substitution, deletion, insertion);
    }
    [previous, current] = [current, previous];
  }
  return previous[y.length]! + capped;
}

/** Options of {@link replyBody}. */
export interface ReplyBodyOptions {
  /** A fixed signature appended to replies (e.g. the support team's block), removed wherever it starts a line. */
  signature?: string;
}

const QUOTED_LINE = /^\s*[>＞]/;
// Attributions and separators that introduce a quoted original, as ours (`quoteOriginal`) and mail clients write them:
// the mail parser's, so what cuts a customer's quote cuts ours.
const ATTRIBUTION = QUOTE_HEADER_PATTERNS;
const ORIGINAL_MESSAGE = REPLY_ORIGINAL_SEPARATOR;
// Opening lines: an address to the customer ("Dear …", "Hi …,", "山田様") or a stock courtesy phrase. A courtesy
// phrase ends at its sentence's end: the answer may follow on the same line ("Thank you for your patience. Your order
// shipped yesterday.", 「お世話になっております。ご注文の商品は…」), and a line is a greeting only when each of its
// sentences is one ({@link isGreetingLine}).
const GREETING = [
  /^(?:dear|hi|hello|hey|good\s+(?:morning|afternoon|evening)|greetings)\b[^\n]{0,60}[,!.:]?$/i,
  /^(?:thank(?:s| you) for (?:contacting|reaching out|your (?:e-?mail|message|inquiry|enquiry|question|patience)))[^\n.!?。！？]{0,80}[.!。！]?$/i,
  /^[^\n。]{0,40}(?:様|さま|さん|殿)\s*[、,。:：]?$/,
  /^(?:いつも|平素より?|平素は)?[^\n。]{0,10}お世話になって(?:おります|います)[^\n.!?。！？]{0,40}[。.！!]?$/,
  /^[^\n。]{0,30}(?:サポート|カスタマーサポート|サポートセンター|サポート窓口|担当)[^\n。]{0,20}です[。.]?$/,
  /^(?:この度は|このたびは)?[^\n。]{0,20}お問い?合わせ(?:いただき|頂き)?(?:まして)?、?(?:誠に|まことに)?ありがとうございます[。.]?$/,
];
// Closing lines: everything from the last one on is a sign-off (name, team, contact details).
const CLOSING = [
  /^(?:best|kind|warm)?\s*regards,?$/i,
  /^(?:best|many thanks|thanks|thank you|sincerely|yours sincerely|yours truly|cheers|all the best)[,!.]?$/i,
  // The whitespace after 以上 is taken whole (`(?=(\s*))\1`, as a possessive `\s*+`): the `\s*` after it then has none
  // left, rather than both splitting a run in every way before failing (security review 15: quadratic in the run).
  /^(?:以上[、,]?(?=(\s*))\1)?(?:今後とも|引き続き|何卒|なにとぞ|どうぞ)?\s*(?:よろしく|宜しく)お願い(?:いた|致|申し上げ)?(?:し)?ます[。.]?$/,
];
const SIGNATURE_DELIMITER = /^--\s?$/;
// Lines after a sign-off that are content, not signature: a postscript or a note.
const POSTSCRIPT = /^(?:p\.?\s?s\.?|追伸|尚|なお|※|訂正|注意|note\b|correction\b)/i;
/** Longest line (in code points) of a signature block: names, team, phone, address, URL. */
const SIGNATURE_LINE_CHARS = 60;
/** Longest signature line that may end like a sentence (`XYZ Co., Ltd.`, `よろしくお願いいたします。`). */
const SIGNATURE_SENTENCE_CHARS = 20;
const SEPARATOR_LINE = /^\s*[-_=*＊━─―－~〜#+・＝]{3,}\s*$/;
// Lines of a closing block looked at from the end: a sign-off is short.
const CLOSING_WINDOW = 6;

/**
 * A reply's own content, for comparing a draft with the text sent: quoted original (`>` lines, the "On … wrote:" /
 * "…のメール:" attribution when quoted lines follow it, and all below it, "-----Original Message-----"), the signature
 * (`-- ` and everything below, a separator line near the end, the configured signature), the closing ("Best regards",
 * "よろしくお願いいたします" and what follows) and the opening greeting lines ("Dear …", "山田様", "お世話になって
 * おります") removed; line endings normalised and blank runs collapsed. A postscript after the closing is removed too:
 * {@link replyContent} keeps it, and {@link editRatio} compares that.
 */
export function replyBody(text: string, options: ReplyBodyOptions = {}): string {
  return replyParts(text, options).body;
}

/**
 * {@link replyBody} followed by the content after the sign-off that is not signature: a "P.S." or 「追伸」 paragraph,
 * a sentence too long for a signature. What a learned answer is cut from: a correction an operator added under the
 * closing is part of the answer.
 */
export function replyContent(text: string, options: ReplyBodyOptions = {}): string {
  const { body, afterClosing } = replyParts(text, options);
  return [body, ...afterClosing].filter((p) => p !== '').join('\n\n');
}

/** A reply cut as {@link replyBody} cuts it, with the paragraphs of content found below the closing. */
interface ReplyParts {
  body: string;
  afterClosing: string[];
}

function replyParts(text: string, options: ReplyBodyOptions): ReplyParts {
  let lines = normalizeLines(text).split('\n');
  if (options.signature?.trim()) lines = cutAtSignature(lines, normalizeLines(options.signature.trim()));
  const quoteStart = lines.findIndex((l, i) => ORIGINAL_MESSAGE.test(l) || (ATTRIBUTION.some((re) => re.test(l)) && quotedLinesFollow(lines, i)));
  if (quoteStart >= 0) lines = lines.slice(0, quoteStart);
  lines = lines.filter((l) => !QUOTED_LINE.test(l)).map((l) => l.trimEnd());
  const signOff = signOffStart(lines);
  const afterClosing = contentParagraphs(lines.slice(signOff));
  lines = lines.slice(0, signOff);

  let first = 0;
  while (first < lines.length) {
    const line = (lines[first] ?? '').trim();
    if (line === '' || isGreetingLine(line)) first++;
    else break;
  }
  return { body: collapseBlankRuns(lines.slice(first).join('\n')), afterClosing };
}

// Where a line's sentences end: after 。！？ or after . ! ? before a space.
const SENTENCE_BREAK = /(?<=[。！？])|(?<=[.!?])\s+/;

/**
 * Whether a line is an opening: one greeting ("Dear Mr. Smith,"), or sentences that are each one
 * (「いつもお世話になっております。サポート担当の佐藤です。」, "Thank you for contacting us. Thanks for your patience!").
 */
function isGreetingLine(line: string): boolean {
  if (GREETING.some((re) => re.test(line))) return true;
  const sentences = line.split(SENTENCE_BREAK).map((s) => s.trim()).filter((s) => s !== '');
  return sentences.length > 1 && sentences.every((s) => GREETING.some((re) => re.test(s)));
}

/**
 * Whether quoted lines follow the attribution-like line at `index` (after blank lines): only then does it introduce a
 * quoted original. An ordinary line may end in `：` or "writes:" (「次のとおりです：」, "as the screen writes:").
 */
function quotedLinesFollow(lines: readonly string[], index: number): boolean {
  const next = lines.slice(index + 1).find((l) => l.trim() !== '');
  return next !== undefined && QUOTED_LINE.test(next);
}

/** Where the sign-off starts: the `-- ` delimiter, a separator line near the end, or the closing line. */
function signOffStart(all: readonly string[]): number {
  let lines = [...all];
  const delimiter = lines.findIndex((l) => SIGNATURE_DELIMITER.test(l));
  if (delimiter >= 0) lines = lines.slice(0, delimiter);
  const nonEmpty = lines.flatMap((l, i) => (l.trim() === '' ? [] : [i]));
  const tail = nonEmpty.slice(-CLOSING_WINDOW);
  const separator = tail.find((i) => i > 0 && SEPARATOR_LINE.test(lines[i] ?? ''));
  if (separator !== undefined) lines = lines.slice(0, separator);
  const closing = tail.find((i) => i < lines.length && CLOSING.some((re) => re.test((lines[i] ?? '').trim())));
  if (closing !== undefined) lines = lines.slice(0, closing);
  return lines.length;
}

/** Whether a line below the closing reads as signature (a name, team, phone, URL) rather than content. */
function isSignatureLine(line: string): boolean {
  const text = line.trim();
  if (text === '' || SIGNATURE_DELIMITER.test(line) || SEPARATOR_LINE.test(text) || CLOSING.some((re) => re.test(text))) return true;
  if (POSTSCRIPT.test(text)) return false;
  const length = Array.from(text).length;
  return length <= SIGNATURE_LINE_CHARS && !(length > SIGNATURE_SENTENCE_CHARS && /[。.!?！？]$/.test(text));
}

/** The paragraphs of `lines` (a sign-off block) that start with a content line, each to its next blank line. */
function contentParagraphs(lines: readonly string[]): string[] {
  const paragraphs: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (isSignatureLine(lines[i] ?? '')) continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '');
    const stop = end < 0 ? lines.length : end;
    paragraphs.push(lines.slice(i, stop).join('\n').trim());
    i = stop;
  }
  return paragraphs;
}

function collapseBlankRuns(text: string): string {
  return text.replace(/\n{3,}/g, '\n\n').trim();
}

function cutAtSignature(lines: string[], signature: string): string[] {
  const firstLine = signature.split('\n')[0]!.trim();
  const at = lines.findIndex((l) => l.trim() === firstLine);
  return at >= 0 ? lines.slice(0, at) : lines;
}

function normalizeLines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/**
 * One line for people: `approved_edited (edit ratio 0.23)`, `rejected: answered by phone`, `auto_sent`. Used by the
 * review page and `review show`, so both say the same.
 */
export function describeOutcome(outcome: Pick<TicketOutcome, 'kind' | 'editRatio' | 'reason'>): string {
  const ratio = outcome.kind === 'approved_edited' && outcome.editRatio !== undefined ? ` (edit ratio ${outcome.editRatio.toFixed(2)})` : '';
  return `${outcome.kind}${ratio}${outcome.reason ? `: ${outcome.reason}` : ''}`;
}

/** The hash field of the edit-ratio bucket `ratio` falls in (stored per bucket, summed up at scrape time). */
export function editRatioBucketField(ratio: number): string {
  const bound = EDIT_RATIO_BUCKETS.find((le) => ratio <= le);
  return `le:${bound === undefined ? '+Inf' : String(bound)}`;
}

/**
 * The calendar day (`YYYY-MM-DD`) an outcome, or anything else the per-day aggregates count, counts for: the day of
 * `at` in `timeZone`, by default the process's (`TZ`), so the desk's Monday is Monday where it works. Every process
 * writing the aggregates must run in the same zone, or their counts land on different days.
 */
export function outcomeDay(at: string, timeZone?: string): string {
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) throw new TypeError(`outcomeDay: not a date: ${at}`);
  return localDay(ms, timeZone);
}

/**
 * `outcome` as the store counts it now: with the day it counts on ({@link TicketOutcome.day}, {@link outcomeDay} in
 * the process's zone), stored with it so that what later reads the count back finds the same day.
 */
export function countedOutcome(outcome: TicketOutcome): TicketOutcome {
  return { ...outcome, day: outcomeDay(outcome.at) };
}

/**
 * The day (`YYYY-MM-DD`) `outcome` was counted on, where a reopening takes it back and an erasure finds its
 * rejection reason: the day stored with it, not one recomputed from `at`, which another zone (this process's now, or
 * every process's since the upgrade that made days follow `TZ`) may put on the next or the previous day.
 */
export function countedDay(outcome: Pick<TicketOutcome, 'at' | 'day'>): string {
  if (outcome.day !== undefined) return outcome.day;
  // No stored day: counted by a version from before outcomes kept their day, and every such version counted an
  // outcome on its UTC day (days followed TZ only from the same upgrade, 2026-11-27, that began storing them).
  const ms = Date.parse(outcome.at);
  if (Number.isNaN(ms)) throw new TypeError(`countedDay: not a date: ${outcome.at}`);
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The Redis keys outcomes are counted in (P = QUEUE_PREFIX, the ticket store's prefix; no queue is named `metrics`
 * or `outcomes`, so BullMQ's `P:<queue>:…` keys cannot collide):
 *
 * | key                      | type | fields                                                                         |
 * |--------------------------|------|--------------------------------------------------------------------------------|
 * | `P:metrics:outcomes`     | hash | one field per {@link OutcomeKind} → tickets that ended so                      |
 * | `P:metrics:edit_ratio`   | hash | `count`, `sum_e6` (sum of ratios × 10⁶), `le:<bound>` / `le:+Inf` per bucket    |
 * | `P:outcomes:YYYY-MM-DD`  | hash | per day ({@link outcomeDay}: in the process's zone): one field per outcome, `edit_ratio_count`, `edit_ratio_sum_e6`, and the insight fields of src/tickets/insights.ts |
 *
 * The edit-ratio histogram holds every approval (as-is ones as 0), so its count is the number of approved replies
 * sent and its low buckets the share sent (nearly) unchanged.
 */
export function outcomeKeys(prefix: string) {
  if (!prefix) throw new TypeError('outcomeKeys: prefix is required');
  return {
    totals: `${prefix}:metrics:outcomes`,
    editRatio: `${prefix}:metrics:edit_ratio`,
    day: (day: string) => `${prefix}:outcomes:${day}`,
  } as const;
}

/**
 * How long a day's hash (`outcomeKeys(prefix).day`) is kept after its last write: the insights read at most
 * MAX_INSIGHT_DAYS (366) days back, and one hash per day for ever was Redis memory nobody reads.
 */
export const OUTCOME_DAY_TTL_S = 400 * 24 * 60 * 60;

/** Scale of the stored edit-ratio sums: integers in Redis, so every field only ever grows by HINCRBY. */
export const EDIT_RATIO_SUM_SCALE = 1_000_000;
