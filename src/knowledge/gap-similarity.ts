/**
 * How alike two support questions are, for grouping unanswered questions into knowledge gaps (src/knowledge/gaps.ts).
 *
 * No model and no dictionary: the questions are turned into term vectors with the tokenizer the search uses
 * (src/search/tokenize.ts: NFKC, lower case, katakana long-vowel variants folded; Japanese runs as overlapping
 * character bigrams, other scripts as words) and compared by cosine. Two things keep phrasing from outweighing topic:
 * hiragana (particles, endings, okurigana: `を`, `ので`, `ください`) separates instead of forming bigrams, and the words that phrase a request
 * or a research step rather than name a topic (教えて, 方法, 調べる, "how", "please"). What is left of
 * 「二段階認証を設定する方法を教えてください」 is 二段, 段階, 階認, 認証, 設定 — the topic.
 */
import { normalizeText, tokenize } from '../search/tokenize.js';

/**
 * Cosine similarity from which two questions count as one topic (one gap). Measured on the table of
 * test/unit/knowledge-gaps.test.ts: paraphrases of one question (Japanese and English; a customer's wording against
 * the agent's 「…について調べる」 subtask; full-width, half-width, サーバー/サーバ spellings) score 0.7 and above;
 * different questions score 0.5 at most, the highest being two questions about one document (請求書の宛名を変更 vs
 * 請求書を再発行). A paraphrase that shares too few words (「書き出したい」 for 「エクスポート」) opens a second gap rather
 * than merging questions that only share a noun.
 */
export const GAP_SIMILARITY_THRESHOLD = 0.6;

/** Hiragana (particles, auxiliaries, okurigana, polite endings); the long-vowel mark is katakana's. */
const HIRAGANA_RUN = /[\u3041-\u309f]+/gu;
/** Where katakana meets kanji (サーバ移行, ログイン時): two words, not one bigram across them. */
const KATAKANA_THEN_KANJI = /([\p{Script=Katakana}ー])(?=\p{Script=Han})/gu;
const KANJI_THEN_KATAKANA = /(\p{Script=Han})(?=[\p{Script=Katakana}ー])/gu;

/**
 * The question with only its topic-bearing runs left apart: normalised, hiragana replaced by a space, katakana and
 * kanji runs split from each other. Bigrams are then made within 二段階認証 or サーバ, never across 証を or バ移.
 */
export function topicText(question: string): string {
  return normalizeText(question).replace(HIRAGANA_RUN, ' ').replace(KATAKANA_THEN_KANJI, '$1 ').replace(KANJI_THEN_KATAKANA, '$1 ');
}

/**
 * Bigrams and words that phrase a request, a question or a research step (the agent's subtasks read 「…について調べる」,
 * 「…を確認する」) instead of naming what it is about.
 */
const FRAMING_TERMS = new Set([
  // Japanese words and single kanji left between the hiragana of a request (教えて, 調べる, 知りたい, 下さい).
  '教',
  '調',
  '知',
  '下',
  '願',
  '問',
  '合',
  '何',
  '方',
  '確認',
  '方法',
  '手順',
  '質問',
  '場合',
  '出来',
  // English words.
  'a',
  'about',
  'an',
  'and',
  'any',
  'are',
  'can',
  'check',
  'could',
  'do',
  'does',
  'find',
  'for',
  'how',
  'i',
  'in',
  'is',
  'it',
  'know',
  'me',
  'my',
  'of',
  'on',
  'or',
  'out',
  'please',
  'should',
  'tell',
  'the',
  'there',
  'this',
  'to',
  'way',
  'we',
  'what',
  'when',
  'where',
  'which',
  'why',
  'with',
  'would',
  'you',
  'your',
]);

/**
 * A light English stemmer, so that "invoices"/"invoice", "exporting"/"export" and "changed"/"change" meet: drops a
 * plural or verb ending, then a final e. Words of four letters or fewer, and anything not plain a–z, stay as they are.
 */
export function stem(word: string): string {
  if (!/^[a-z]+$/.test(word) || word.length <= 4) return word;
  const base = word.endsWith('ies') ? `${word.slice(0, -3)}y` : word.replace(/(?<!s)s$/, '').replace(/(?:ing|ed)$/, '');
  return base.length > 3 ? base.replace(/e$/, '') : word;
}

/**
 * The topic terms of a question with their counts: the search tokenizer's terms without hiragana-only bigrams and
 * {@link FRAMING_TERMS}, English words stemmed.
 */
export function questionTerms(question: string): Map<string, number> {
  const terms = new Map<string, number>();
  for (const token of tokenize(topicText(question), { normalized: true })) {
    if (FRAMING_TERMS.has(token)) continue;
    const term = stem(token);
    if (FRAMING_TERMS.has(term)) continue;
    terms.set(term, (terms.get(term) ?? 0) + 1);
  }
  return terms;
}

/** Cosine of two term-count vectors: 1 for the same terms in the same proportions, 0 for none in common. */
export function cosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  if (a.size === 0 || b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [term, n] of small) dot += n * (large.get(term) ?? 0);
  if (dot === 0) return 0;
  const norm = (v: ReadonlyMap<string, number>) => Math.sqrt([...v.values()].reduce((s, n) => s + n * n, 0));
  return dot / (norm(a) * norm(b));
}

/** How alike two questions are (0–1); see the module comment. */
export function questionSimilarity(a: string, b: string): number {
  return cosine(questionTerms(a), questionTerms(b));
}

/** A group of questions to compare a new one with. */
export interface QuestionGroup {
  id: string;
  /** The group's example questions; a question is as close to the group as to its closest example. */
  examples: readonly string[];
}

/**
 * The group closest to `question` with its similarity, if one reaches `threshold` (default
 * {@link GAP_SIMILARITY_THRESHOLD}). Ties go to the group listed first.
 */
export function closestGroup(
  question: string,
  groups: Iterable<QuestionGroup>,
  threshold = GAP_SIMILARITY_THRESHOLD,
): { id: string; similarity: number } | undefined {
  const terms = questionTerms(question);
  let best: { id: string; similarity: number } | undefined;
  for (const group of groups) {
    for (const example of group.examples) {
      const similarity = cosine(terms, questionTerms(example));
      if (similarity >= threshold && (!best || similarity > best.similarity)) best = { id: group.id, similarity };
    }
  }
  return best;
}
