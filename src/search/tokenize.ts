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
/**
 * A dash NFKC leaves alone (hyphen, non-breaking hyphen, figure dash, en and em dashes, horizontal bar, minus sign,
 * small hyphen-minus) or a long-vowel mark (an IME slip) between ASCII letters or digits: PDF and Word text writes
 * `E‐1001` so, and it must be the code `E-1001` to be found by it.
 */
const DASH_IN_CODE = /(?<=[a-z0-9])[\u2010-\u2015\u2212\ufe63ーｰ](?=[a-z0-9])/g;
/** A katakana word long enough that a trailing ー is an optional spelling variant (サーバー/サーバ, JIS Z 8301). */
// A lookbehind, not a captured run: the run followed by ー backtracked over the whole run from every start, quadratic
// on a long katakana run (50,000 characters took minutes).
const KATAKANA_TRAILING_LONG_VOWEL = /(?<=[\p{Script=Katakana}ー]{3})ー(?![\p{Script=Katakana}ー])/gu;
/**
 * Normalises text for indexing and querying alike: NFKC (full-width ASCII and half-width katakana fold to their
 * usual forms, so `Ｅ－１００１` becomes `E-1001`), lower case, a dash or ー inside an ASCII code becomes `-` (`E‐1001`),
 * dash variants after kana become ー, and the optional
 * trailing ー of longer katakana words is dropped so サーバー and サーバ meet.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(DASH_IN_CODE, '-')
    .replace(LONG_VOWEL_VARIANTS, 'ー')
    .replace(KATAKANA_TRAILING_LONG_VOWEL, '');
}

/** True for code points segmented by bigrams: Han, hiragana, katakana, the long-vowel and iteration marks. */
export function isCjkCodePoint(cp: number): boolean {
  return (
    // Hiragana and katakana (incl. ー), except the double hyphen ゠ and the middle dot ・, which separate words.
    (cp >= 0x3040 && cp <= 0x30ff && cp !== 0x30a0 && cp !== 0x30fb) ||
    (cp >= 0x4e00 && cp <= 0x9fff) || // CJK unified ideographs
    (cp >= 0x3400 && cp <= 0x4dbf) || // extension A
    cp === 0x3005 || // 々
    cp === 0x3006 || // 〆
    (cp >= 0x31f0 && cp <= 0x31ff) || // katakana phonetic extensions
    (cp >= 0xf900 && cp <= 0xfaff) || // compatibility ideographs
    (cp >= 0x20000 && cp <= 0x3ffff) // extensions B and later
  );
}

/** True for Han characters (kanji), which carry meaning on their own and can back off to unigrams. */
export function isKanjiCodePoint(cp: number): boolean {
  return (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || cp === 0x3005 || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x3ffff);
}

/** True for one-character strings that {@link isCjkCodePoint} accepts. */
export function isCjkChar(ch: string): boolean {
  return isCjkCodePoint(ch.codePointAt(0) ?? 0);
}

const NON_ASCII_WORD = /[\p{L}\p{N}]/u;

/** Letters and digits outside CJK: ASCII fast path, Unicode properties for the rest (accented Latin, Hangul...). */
function isWordCodePoint(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a);
  return !isCjkCodePoint(cp) && NON_ASCII_WORD.test(String.fromCodePoint(cp));
}

/** Characters that join word parts into one code (`e-1001`, `v2.3`, `api_key`, `a/b`, `issue#12`, `user@host`). */
function isConnector(cp: number): boolean {
  return cp === 0x2d || cp === 0x5f || cp === 0x2e || cp === 0x2f || cp === 0x3a || cp === 0x2b || cp === 0x23 || cp === 0x40;
}

/** Options of {@link tokenize}. */
export interface TokenizeOptions {
  /**
   * Also emit every kanji of a CJK run as a unigram prefixed with `\u0001` (so it never collides with a real
   * one-character token and can be weighted on its own). They match paraphrases that share a kanji but no bigram.
   */
  kanjiUnigrams?: boolean;
  /** Skip {@link normalizeText} because the caller already normalised the text. */
  normalized?: boolean;
  /**
   * The analysis of the full-text (BM25) indexes, where a term's weight is its count: {@link foldNumbers} folds
   * number spellings; a run of 3+ letters or digits also gives its character bigrams (prefixed with
   * {@link WORD_BIGRAM_PREFIX}); a lone kanji gives only its unigram when `kanjiUnigrams` is on, and a lone kana
   * nothing. (Joining a number with its Japanese neighbours, `第22` and `22回`, was tried and dropped: on JSQuAD's
   * held-out half it ranked 6 queries better and 11 worse.)
   * Off by default: the hashed embedder and the knowledge-gap grouping keep the plain terms, so vectors stored in an
   * index (and in the embedding cache) under the same embedder id do not change.
   */
  searchIndex?: boolean;
}

/** Prefix of kanji unigram terms; see {@link TokenizeOptions.kanjiUnigrams}. */
export const UNIGRAM_PREFIX = '\u0001';

/**
 * Prefix of the character bigrams of a letter/digit run; see {@link TokenizeOptions.searchIndex}. Their own
 * namespace, so `ab` inside `abc` never counts as the word `ab`.
 */
export const WORD_BIGRAM_PREFIX = '\u0002';

/**
 * Thousands separators inside a number: `2,000`, `1,234,567` (not `639-1,639`, a list, nor `1,2345`).
 */
const THOUSANDS_GROUPED = /(?<![\d.,-])\d{1,3}(?:,\d{3})+(?![\d,])/g;

/**
 * Number spellings folded for the BM25 indexes: thousands separators dropped (`2,000円` → `2000円`), so a number
 * is one term however it was written.
 */
export function foldNumbers(normalized: string): string {
  return normalized.replace(THOUSANDS_GROUPED, (n) => n.replaceAll(',', ''));
}

/**
 * Splits text into index terms, in text order, duplicates kept (term frequency matters to BM25).
 *
 * - Runs of letters/digits outside CJK (with inner `-_./:+#@` connectors) give the whole run and, when it has
 *   connectors, each part too: `E-1001` → `e-1001`, `e`, `1001`.
 * - Runs of CJK/kana give overlapping bigrams; an isolated character gives a unigram.
 * - Everything else (spaces, punctuation, symbols) separates.
 * - With {@link TokenizeOptions.searchIndex}, the additions described there.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const normalized = options.normalized ? text : normalizeText(text);
  const search = options.searchIndex === true;
  const s = search ? foldNumbers(normalized) : normalized;
  // Code points and their UTF-16 offsets, so tokens are cheap slices of `s` even with astral characters.
  const cps: number[] = [];
  const offs: number[] = [];
  for (let i = 0; i < s.length; ) {
    const cp = s.codePointAt(i)!;
    cps.push(cp);
    offs.push(i);
    i += cp > 0xffff ? 2 : 1;
  }
  offs.push(s.length);
  const out: string[] = [];
  const unigrams = options.kanjiUnigrams === true;
  let i = 0;
  const n = cps.length;
  while (i < n) {
    const cp = cps[i]!;
    if (isCjkCodePoint(cp)) {
      let j = i + 1;
      while (j < n && isCjkCodePoint(cps[j]!)) j++;
      if (j - i === 1) out.push(...loneCharacterTerms(s.slice(offs[i]!, offs[j]!), search, unigrams));
      else for (let k = i; k + 1 < j; k++) out.push(s.slice(offs[k]!, offs[k + 2]!));
      if (unigrams) {
        for (let k = i; k < j; k++) if (isKanjiCodePoint(cps[k]!)) out.push(UNIGRAM_PREFIX + s.slice(offs[k]!, offs[k + 1]!));
      }
      i = j;
    } else if (isWordCodePoint(cp)) {
      // A run of word characters, continuing over a connector only when a word character follows it.
      let j = i + 1;
      let hasConnector = false;
      while (j < n) {
        if (isWordCodePoint(cps[j]!)) j++;
        else if (isConnector(cps[j]!) && j + 1 < n && isWordCodePoint(cps[j + 1]!)) {
          hasConnector = true;
          j += 2;
        } else break;
      }
      const word = s.slice(offs[i]!, offs[j]!);
      out.push(word);
      if (hasConnector) for (const part of word.split(CONNECTORS)) if (part.length > 0) out.push(part);
      if (search) out.push(...wordBigrams(word));
      i = j;
    } else i++;
  }
  return out;
}

const CONNECTORS = /[-_.\/:+#@]+/u;

/**
 * Terms of a CJK character with no CJK neighbour. For the BM25 indexes a lone kanji is its unigram (the lone 「第」
 * of 「第22回」 was a rare term of its own that outweighed the number) and a lone kana (a particle between a code
 * and punctuation) says nothing; the kanji keeps its plain term when no unigrams are made, so it still matches.
 * Alone it moved little (JSQuAD, all three tasks: 18 queries better, 17 worse; the repository's Q&A set MRR 0.605
 * without it, 0.615 with it).
 */
function loneCharacterTerms(ch: string, search: boolean, unigrams: boolean): string[] {
  if (!search) return [ch];
  if (!isKanjiCodePoint(ch.codePointAt(0)!)) return [];
  return unigrams ? [] : [ch]; // with unigrams on, the caller adds UNIGRAM_PREFIX + ch
}

/**
 * Character bigrams of a letter/digit run of 3+ characters (connectors left out), prefixed. A CJK word of n
 * characters weighs n−1 bigrams plus its kanji, a product name or year only one term, so the Japanese words of a
 * query outvoted its names and numbers. The bigrams also let partial spellings meet (`e1010` / `E-1010`,
 * `iphone15` / `iphone`). JSQuAD, against the same analysis without them: queries ranked better / worse, manual
 * 14 / 1, `qa/` 24 / 9, `qa-short/` 54 / 41.
 */
function wordBigrams(word: string): string[] {
  const chars = Array.from(word.replace(/[-_.\/:+#@]/g, ''));
  if (chars.length < 3) return [];
  const out: string[] = [];
  for (let k = 0; k + 1 < chars.length; k++) out.push(WORD_BIGRAM_PREFIX + chars[k]! + chars[k + 1]!);
  return out;
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

/** Weights of {@link weightedTerms}. */
export interface TermWeights {
  /** Weight of each word and bigram occurrence. */
  weight: number;
  /** Weight of each kanji unigram occurrence (0: none are produced). */
  unigramWeight?: number;
  /**
   * Multiplier for bigrams made only of hiragana (particles, okurigana, polite endings: `ので`, `ます`). They carry
   * little topic, and in a natural-language question they are most of the bigrams.
   */
  hiraganaBigramFactor?: number;
}

const HIRAGANA_ONLY = /^[\u3040-\u309f]+$/;

/**
 * Adds the weighted terms of `text` into `into` (term → summed weight) and returns it: the BM25 indexes' analysis
 * ({@link TokenizeOptions.searchIndex}). An index built with an earlier analysis still answers (the terms it lacks
 * match nothing) and ranks as it did until the next reindex.
 */
export function weightedTerms(text: string, weights: TermWeights, into: Map<string, number> = new Map()): Map<string, number> {
  const unigramWeight = weights.unigramWeight ?? 0;
  const hiraganaFactor = weights.hiraganaBigramFactor ?? 1;
  for (const t of tokenize(text, { kanjiUnigrams: unigramWeight > 0, searchIndex: true })) {
    let w: number;
    if (t.startsWith(UNIGRAM_PREFIX)) w = unigramWeight;
    else if (hiraganaFactor !== 1 && HIRAGANA_ONLY.test(t)) w = weights.weight * hiraganaFactor;
    else w = weights.weight;
    if (w > 0) into.set(t, (into.get(t) ?? 0) + w);
  }
  return into;
}
