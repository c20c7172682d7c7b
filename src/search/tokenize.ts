/**
 * Japanese-aware text analysis shared by the embedded full-text index, the Q&A lexical index and the local hashed
 * embedder. No dictionary: Japanese has no spaces, so CJK/kana runs become overlapping character bigrams (the
 * classic CJK approach that needs no morphological analyser and still matches 認証 inside 二段階認証), while ASCII
 * runs become words so product codes such as `E-1001` stay searchable as one token.
 *
 * Everything here is a pure function of its input; indexing and querying must call the same functions.
 */

/**
 * Dash-like characters that stand for the long-vowel mark when written after kana (IME and font variants). An ASCII
 * hyphen counts only when no CJK follows, since `ログイン-設定` is more likely a separator than a vowel.
 */
const LONG_VOWEL_VARIANTS =
  /(?<=[\p{Script=Katakana}\p{Script=Hiragana}ー])(?:[‐‑‒–—―−～〜]|-(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]))/gu;
/** A katakana word long enough that a trailing ー is an optional spelling variant (サーバー/サーバ, JIS Z 8301). */
const KATAKANA_TRAILING_LONG_VOWEL = /([\p{Script=Katakana}ー]{3,})ー(?![\p{Script=Katakana}ー])/gu;
/** Word-ish runs of non-CJK letters and digits, with inner connectors that keep codes together (`e-1001`, `v2.3`). */
const WORD_RUN = /[\p{L}\p{N}]+(?:[-_.\/:+#@][\p{L}\p{N}]+)*/uy;
const CONNECTOR = /[-_.\/:+#@]/u;

/**
 * Normalises text for indexing and querying alike: NFKC (full-width ASCII and half-width katakana fold to their
 * usual forms, so `Ｅ－１００１` becomes `E-1001`), lower case, dash variants after kana become ー, and the optional
 * trailing ー of longer katakana words is dropped so サーバー and サーバ meet.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(LONG_VOWEL_VARIANTS, 'ー')
    .replace(KATAKANA_TRAILING_LONG_VOWEL, '$1');
}

/** True for characters that are segmented by bigrams: Han, hiragana, katakana, the long-vowel and iteration marks. */
export function isCjkChar(ch: string): boolean {
  return /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々〆ヵヶ]/u.test(ch);
}

/** True for Han characters (kanji), which carry meaning on their own and can back off to unigrams. */
export function isKanji(ch: string): boolean {
  return /[\p{Script=Han}々]/u.test(ch);
}

/** Options of {@link tokenize}. */
export interface TokenizeOptions {
  /**
   * Also emit every kanji of a CJK run as a unigram prefixed with `\u0001` (so it never collides with a real
   * one-character token). Used as a low-weight backoff for queries whose bigrams do not occur verbatim.
   */
  kanjiUnigrams?: boolean;
  /** Skip {@link normalizeText} because the caller already normalised the text. */
  normalized?: boolean;
}

/** Prefix of kanji backoff unigrams; see {@link TokenizeOptions.kanjiUnigrams}. */
export const UNIGRAM_PREFIX = '\u0001';

/**
 * Splits text into index terms, in text order, duplicates kept (term frequency matters to BM25).
 *
 * - Runs of letters/digits outside CJK (with inner `-_./:+#@` connectors) give the whole run and, when it has
 *   connectors, each part too: `E-1001` → `e-1001`, `e`, `1001`.
 * - Runs of CJK/kana give overlapping bigrams; an isolated character gives a unigram.
 * - Everything else (spaces, punctuation, symbols) separates.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const s = options.normalized ? text : normalizeText(text);
  const out: string[] = [];
  const chars = Array.from(s);
  let i = 0;
  while (i < chars.length) {
    const ch = chars[i]!;
    if (isCjkChar(ch)) {
      let j = i;
      while (j < chars.length && isCjkChar(chars[j]!)) j++;
      emitCjkRun(chars, i, j, out, options.kanjiUnigrams === true);
      i = j;
      continue;
    }
    if (/[\p{L}\p{N}]/u.test(ch)) {
      // Re-run the sticky regex on the string from this character's UTF-16 offset.
      const offset = utf16Offset(chars, i);
      WORD_RUN.lastIndex = offset;
      const m = WORD_RUN.exec(s);
      const word = m ? m[0] : ch;
      // A word run stops at the first CJK character; \p{L} would otherwise swallow kana and kanji.
      const wordChars = Array.from(word);
      let len = 0;
      while (len < wordChars.length && !isCjkChar(wordChars[len]!)) len++;
      let clean = wordChars.slice(0, len).join('');
      // Trailing connector left when the run was cut at a CJK character (`e-` of `e-エラー`).
      while (clean.length > 0 && CONNECTOR.test(clean[clean.length - 1]!)) clean = clean.slice(0, -1);
      if (clean.length === 0) {
        i++;
        continue;
      }
      emitWord(clean, out);
      i += Array.from(clean).length;
      continue;
    }
    i++;
  }
  return out;
}

function utf16Offset(chars: string[], index: number): number {
  let n = 0;
  for (let k = 0; k < index; k++) n += chars[k]!.length;
  return n;
}

function emitWord(word: string, out: string[]): void {
  out.push(word);
  if (!CONNECTOR.test(word)) return;
  for (const part of word.split(/[-_.\/:+#@]+/u)) if (part.length > 0 && part !== word) out.push(part);
}

function emitCjkRun(chars: string[], start: number, end: number, out: string[], kanjiUnigrams: boolean): void {
  if (end - start === 1) {
    out.push(chars[start]!);
    return;
  }
  for (let k = start; k + 1 < end; k++) out.push(chars[k]! + chars[k + 1]!);
  if (kanjiUnigrams) {
    for (let k = start; k < end; k++) if (isKanji(chars[k]!)) out.push(UNIGRAM_PREFIX + chars[k]!);
  }
}

/**
 * Character n-grams (default trigrams) of the normalised text with whitespace removed, for the hashed embedder:
 * they add fuzzy overlap across token boundaries that bigrams and words alone miss.
 */
export function charNgrams(text: string, n = 3, options: { normalized?: boolean } = {}): string[] {
  const s = (options.normalized ? text : normalizeText(text)).replace(/[\s\p{P}\p{S}]+/gu, ' ').trim();
  const out: string[] = [];
  for (const segment of s.split(' ')) {
    const chars = Array.from(segment);
    if (chars.length === 0) continue;
    if (chars.length < n) {
      out.push(chars.join(''));
      continue;
    }
    for (let k = 0; k + n <= chars.length; k++) out.push(chars.slice(k, k + n).join(''));
  }
  return out;
}

/** Term frequencies of a token list (insertion order follows first occurrence, which keeps indexes deterministic). */
export function termFrequencies(tokens: string[], weight = 1, into: Map<string, number> = new Map()): Map<string, number> {
  for (const t of tokens) into.set(t, (into.get(t) ?? 0) + weight);
  return into;
}
