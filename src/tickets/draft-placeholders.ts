/**
 * A draft that holds a placeholder of the personal-data scrub (`[氏名]`, `[name]`, `[メールアドレス]`, `[URL]`…). A learned
 * pair is stored scrubbed (src/knowledge/personal-data.ts, src/knowledge/learned-candidates.ts): "田中様、集合場所は…"
 * becomes "[氏名]様、集合場所は…", and a model that finds the pair copies the placeholder into the next customer's
 * reply, which the customer would read as written ("first ten minutes" finding 2). The model may copy it in the
 * brackets it writes itself (【氏名】, ［氏名］) or another case and spacing ([NAME], [Postal Code]), so each bracketed
 * word is compared without case, width, spaces, hyphens or underscores. Ordinary brackets ([重要], [1], [注]) and
 * Markdown links (`[email](mailto:…)`) are not placeholders; a placeholder the customer wrote themselves (quoting a
 * form: 「[氏名]と表示されます」) is theirs to read back, and so is one a manual page or Q&A row the agent found writes
 * as a form label (「用紙に【氏名】【住所】をご記入のうえ」): a learned pair's never, as its placeholders are the scrub's.
 *
 * An unfilled template field is the same bug whatever wrote it (bug review R1 finding 6): a model rewrites `[氏名]様` as
 * `(氏名)様`, `<name>様` or `{name}様`, or writes a field of its own (`[お名前]様`, `[Customer Name],`). So a short list
 * of template field names counts beside the scrub's, and round, angle and curly brackets count too, but only where a
 * field stands: not glued to the word before (`お名前（氏名）`, `greet(name)` are a gloss and a call) unless an
 * honorific follows, and not in Markdown code, where `<address>` and `{{name}}` are code samples.
 *
 * Pure functions: jobs/answer-ticket.ts chains {@link draftPlaceholderReason} with the other draft checks, and the
 * knowledge CLI names {@link draftPlaceholders} of an answer it accepts.
 */
import { QA_TOOL_NAME } from '../agent/tools.js';
import type { AgentResult } from '../agent/types.js';
import { PLACEHOLDERS } from '../knowledge/personal-data.js';
import { LEARNED_ID_PREFIX, qaPairAnswerOf } from '../search/types.js';

// learned-candidates.ts writes it for a customer's link in a question (not exported there), and the Knowledge page
// advises it for the same: an operator's edit may carry it into an answer too.
const LINK_PLACEHOLDER = '[URL]';

/** Every placeholder the scrub writes, in both languages, as the scrub writes it. */
export const SCRUB_PLACEHOLDERS: readonly string[] = [
  ...new Set([...Object.values(PLACEHOLDERS.ja), ...Object.values(PLACEHOLDERS.en), LINK_PLACEHOLDER]),
];

/** The word inside a bracket as compared: NFKC (full-width letters), lower case, without spaces, `-` or `_`. */
function placeholderKey(inner: string): string {
  return inner.normalize('NFKC').toLowerCase().replace(/[\s_-]/gu, '');
}

/**
 * Template field names a model writes for what it does not know, beyond the scrub's own words: a reply holding one
 * in brackets was sent unfilled. Words a reply uses in brackets as labels (`[注]`, `[重要]`) or longer ones naming a
 * form's field (`[お客様氏名]欄`) are not on it.
 */
export const TEMPLATE_FIELDS: readonly string[] = [
  'お名前', '名前', 'ご氏名', '注文番号', 'ご注文番号', 'ご住所', '会社名', '担当者名',
  'customer name', 'your name', 'first name', 'last name', 'full name', 'user name', 'company name', 'order number', 'order id',
];

const PLACEHOLDER_KEYS: ReadonlySet<string> = new Set([...SCRUB_PLACEHOLDERS.map((p) => p.slice(1, -1)), ...TEMPLATE_FIELDS].map(placeholderKey));

// A short bracketed word in any square-like bracket a model writes a placeholder in: ASCII, full-width, lenticular
// (【】), tortoise-shell (〔〕) and their white forms. Bounded inside and no nesting: linear. Not before `[`, which
// makes it a reference link's text, nor before a `(…)` holding a link (`:`, `/`, `.`, `#` or `@` in it), a Markdown
// link's: `[氏名](様)` is a field with the honorific in brackets. The lookahead and the run after it are bounded.
const BRACKETED = /[[［【〔〖〘]([^[\]［］【】〔〕〖〗〘〙\r\n]{1,24})[\]］】〕〗〙](?!\[|\((?=[^()\s]{0,300}[/:.#@])[^()\s]{1,300}\))/gu;

// The same word in round, angle or curly brackets, ASCII or full-width; `{{name}}` is found as its inner `{name}`.
// Bounded inside and no nesting: linear. Where it stands is read by `fieldStandsAt`.
const OTHER_BRACKETED = /[(（<＜{｛]([^(){}<>（）＜＞｛｝\r\n]{1,24})[)）>＞}｝]/gu;
// Right before a round bracket: a letter or digit, with at most one space between (`お名前（氏名）`, `login ID (email)`),
// a gloss. Prose writes none in angle or curly brackets, so there only a word glued to it (`Array<Name>`) is read so.
const AFTER_WORD = /[\p{L}\p{N}][ \t]?$/u;
const GLUED = /[\p{L}\p{N}]$/u;
// Right after it: an honorific, which makes it the name of a salutation whatever comes before (`田中(氏名)様` too).
const HONORIFIC = /^[ \t]?(?:様|さま|さん|殿|御中|各位)/u;
// A Markdown code span on one line; fenced blocks are read line by line in `outsideCode`.
const CODE_SPAN = /`[^`\r\n]{1,500}`/gu;
const FENCE = /^ {0,3}(?:`{3}|~{3})/u;

/** `text` with its Markdown code (fenced blocks, code spans) blanked out: a code sample's `<address>` is no field. */
function outsideCode(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (FENCE.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line.replace(CODE_SPAN, (span) => ' '.repeat(span.length));
    })
    .join('\n');
}

/** Whether a round, angle or curly bracket at `start`…`end` of `text` stands where a field does (see the module). */
function fieldStandsAt(text: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - 2), start);
  const round = text[start] === '(' || text[start] === '（';
  return HONORIFIC.test(text.slice(end, end + 4)) || !(round ? AFTER_WORD : GLUED).test(before);
}

/** The keys of the placeholders and template fields in `text`, each with its first form as written there. */
function placeholdersIn(text: string): Map<string, string> {
  const plain = outsideCode(text);
  const matches = [
    ...[...text.matchAll(BRACKETED)],
    ...[...plain.matchAll(OTHER_BRACKETED)].filter((m) => fieldStandsAt(plain, m.index, m.index + m[0].length)),
  ].sort((a, b) => a.index - b.index);
  const found = new Map<string, string>();
  for (const match of matches) {
    const key = placeholderKey(match[1]!);
    if (PLACEHOLDER_KEYS.has(key) && !found.has(key)) found.set(key, match[0]);
  }
  return found;
}

/**
 * What the manual pages and Q&A rows the agent found for `result` write (a Q&A row's answer only: its question is a
 * customer's words), for {@link draftPlaceholders}' `knowledge`. Learned pairs are left out: their placeholders are
 * what the check is for.
 */
export function placeholderKnowledge(result: AgentResult | undefined): string[] {
  return (result?.subtasks ?? []).flatMap((s) =>
    s.toolResults.flat().flatMap((call) =>
      call.results.filter((hit) => !hit.fileName.startsWith(LEARNED_ID_PREFIX)).map((hit) => (call.toolName === QA_TOOL_NAME ? qaPairAnswerOf(hit.content) : hit.content)),
    ),
  );
}

/**
 * The scrub's placeholders and the template fields that `draft` holds, as written there (`【氏名】`, `[NAME]`,
 * `(氏名)`), first occurrence of each, in the order they appear; those `customer` (the subject and question of the
 * customer's mail) or `knowledge` (what the manual and Q&A the agent found write: {@link placeholderKnowledge}) holds
 * too, in any bracket, are left out.
 */
export function draftPlaceholders(draft: string, customer: readonly string[] = [], knowledge: readonly string[] = []): string[] {
  const theirs = new Set([...customer, ...knowledge].flatMap((text) => [...placeholdersIn(text).keys()]));
  return [...placeholdersIn(draft)].filter(([key]) => !theirs.has(key)).map(([, written]) => written);
}

/**
 * Why a draft must not go out without a person because it holds a placeholder or template field that neither the
 * customer's own mail nor the knowledge found writes (see the module comment), or undefined.
 */
export function draftPlaceholderReason(draft: string, customer: readonly string[] = [], knowledge: readonly string[] = []): string | undefined {
  const found = draftPlaceholders(draft, customer, knowledge);
  if (found.length === 0) return undefined;
  const named = found.join(', ');
  return `the draft holds the placeholder${found.length > 1 ? 's' : ''} ${named} from a scrubbed learned answer or a template: the customer would read ${found.length > 1 ? 'them' : 'it'} as written; write what belongs there or leave ${found.length > 1 ? 'them' : 'it'} out`;
}
