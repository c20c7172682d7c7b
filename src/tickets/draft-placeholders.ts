/**
 * A draft that holds a placeholder of the personal-data scrub (`[氏名]`, `[name]`, `[メールアドレス]`, `[URL]`…). A learned
 * pair is stored scrubbed (src/knowledge/personal-data.ts, src/knowledge/learned-candidates.ts): "田中様、集合場所は…"
 * becomes "[氏名]様、集合場所は…", and a model that finds the pair copies the placeholder into the next customer's
 * reply, which the customer would read as written ("first ten minutes" finding 2). The model may copy it in the
 * brackets it writes itself (【氏名】, ［氏名］) or another case and spacing ([NAME], [Postal Code]), so each bracketed
 * word is compared without case, width, spaces, hyphens or underscores. Ordinary brackets ([重要], [1], [注]) and
 * Markdown links (`[email](mailto:…)`) are not placeholders; a placeholder the customer wrote themselves (quoting a
 * form: 「[氏名]と表示されます」) is theirs to read back.
 *
 * Pure functions: jobs/answer-ticket.ts chains {@link draftPlaceholderReason} with the other draft checks, and the
 * knowledge CLI names {@link draftPlaceholders} of an answer it accepts.
 */
import { PLACEHOLDERS } from '../knowledge/personal-data.js';

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

const PLACEHOLDER_KEYS: ReadonlySet<string> = new Set(SCRUB_PLACEHOLDERS.map((p) => placeholderKey(p.slice(1, -1))));

// A short bracketed word in any square-like bracket a model writes a placeholder in: ASCII, full-width, lenticular
// (【】), tortoise-shell (〔〕) and their white forms. Bounded inside and no nesting: linear. Not before `(`, which makes
// it a Markdown link's text, nor `[`, a reference link's.
const BRACKETED = /[[［【〔〖〘]([^[\]［］【】〔〕〖〗〘〙\r\n]{1,24})[\]］】〕〗〙](?![([])/gu;

/** The keys of the scrub's placeholders in `text`, each with its first form as written there. */
function placeholdersIn(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of text.matchAll(BRACKETED)) {
    const key = placeholderKey(match[1]!);
    if (PLACEHOLDER_KEYS.has(key) && !found.has(key)) found.set(key, match[0]);
  }
  return found;
}

/**
 * The scrub's placeholders that `draft` holds, as written there (`【氏名】`, `[NAME]`), first occurrence of each, in
 * the order they appear; those `customer` (the subject and question of the customer's mail) holds too are left out.
 */
export function draftPlaceholders(draft: string, customer: readonly string[] = []): string[] {
  const theirs = new Set(customer.flatMap((text) => [...placeholdersIn(text).keys()]));
  return [...placeholdersIn(draft)].filter(([key]) => !theirs.has(key)).map(([, written]) => written);
}

/**
 * Why a draft must not go out without a person because it holds a placeholder of the scrub that the customer's own
 * mail does not (see the module comment), or undefined.
 */
export function draftPlaceholderReason(draft: string, customer: readonly string[] = []): string | undefined {
  const found = draftPlaceholders(draft, customer);
  if (found.length === 0) return undefined;
  const named = found.join(', ');
  return `the draft holds the placeholder${found.length > 1 ? 's' : ''} ${named} from a scrubbed learned answer: the customer would read ${found.length > 1 ? 'them' : 'it'} as written; write what belongs there or leave ${found.length > 1 ? 'them' : 'it'} out`;
}
