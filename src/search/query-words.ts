/**
 * Query words for engines that read only the first few words of a query. Meilisearch considers the first ten
 * (a documented limit), and its Japanese segmentation counts particles and endings as words, so a natural sentence
 * such as 「先月から何度もログインしようとしているのですが、銀行振込について教えてください」 loses its tail — often
 * the very term that matters. Such a query is reduced to its content words before it is sent.
 *
 * Words come from `Intl.Segmenter`'s dictionary-based Japanese segmentation (ICU, built into Node), close
 * to what the engine does; ASCII runs such as `E-1001` or `v2.3` stay one word, as product codes must.
 */
import type { KeywordCoverage } from './bm25.js';
import { weightedTerms, WORD_BIGRAM_PREFIX } from './tokenize.js';

/** Words Meilisearch reads of one query. */
export const MEILI_QUERY_WORD_LIMIT = 10;

/**
 * Words, as `Intl.Segmenter` counts them, that a query may have and still reach Meilisearch whole. Meilisearch
 * segments Japanese with a dictionary of IPADIC's kind, which splits finer than ICU (〜したのは, 油田開発). Counted
 * with kuromoji (IPADIC) on the first 2,000 JSQuAD questions: of the 552 with at most ten ICU words, 112 had more
 * than ten IPADIC words and lost their tail; of the 330 with at most eight, 6.
 */
export const MEILI_QUERY_WORD_BUDGET = 8;

const segmenter = new Intl.Segmenter('ja', { granularity: 'word' });

/** An ASCII code or word, with inner connectors (`E-1001`, `api_key`, `v2.3`). */
const ASCII_RUN = /[A-Za-z0-9](?:[A-Za-z0-9._\-/:+#@]*[A-Za-z0-9])?/g;

/** Only hiragana (and the long-vowel mark): particles, auxiliaries, endings (の, から, ですが, ください). */
const HIRAGANA_ONLY = /^[\u3040-\u309fー]+$/u;

/**
 * Words with kanji that phrase a request or a question rather than name its topic (教えてください, 知りたい,
 * お願いします, 何度も), so they only take places among the ten.
 */
const REQUEST_WORDS = new Set(['教え', '知り', '知る', '願い', 'お願い', '下さい', '頂き', '頂け', '分かり', '分から', '分かる', '出来', '出来る', '何', '方', '良い', '宜しく']);

/** The words of `text` in order, as a word-counting engine would see them (punctuation and spaces dropped). */
export function queryWords(text: string): string[] {
  const normalized = text.normalize('NFKC');
  const words: string[] = [];
  let last = 0;
  for (const match of normalized.matchAll(ASCII_RUN)) {
    words.push(...segmentWords(normalized.slice(last, match.index)), match[0]);
    last = match.index + match[0].length;
  }
  words.push(...segmentWords(normalized.slice(last)));
  return words;
}

/**
 * Characters handed to the segmenter at once: each segment it yields keeps a copy of its input, so one long run of
 * text (16,000 か: 500 MB) costs memory quadratic in its length. Pieces are cut after a space or punctuation mark.
 */
const SEGMENT_PIECE_CHARS = 1_000;
const PIECE_BREAK = /[\s、。，,.!?！？・]/u;

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function segmentWords(text: string): string[] {
  if (!text.trim()) return [];
  const words: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + SEGMENT_PIECE_CHARS);
    if (end < text.length) {
      let cut = end;
      while (cut > start + SEGMENT_PIECE_CHARS / 2 && !PIECE_BREAK.test(text[cut - 1]!)) cut--;
      // No break in the second half of the piece: cut where it is, but never inside a surrogate pair.
      end = cut > start + SEGMENT_PIECE_CHARS / 2 ? cut : isLowSurrogate(text.charCodeAt(end)) ? end - 1 : end;
    }
    for (const segment of segmenter.segment(text.slice(start, end))) if (segment.isWordLike) words.push(segment.segment);
    start = end;
  }
  return words;
}

/** The words of `text` that name its topic, first occurrence only, in order. */
export function contentWords(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const word of queryWords(text)) {
    if (HIRAGANA_ONLY.test(word) || REQUEST_WORDS.has(word) || seen.has(word)) continue;
    seen.add(word);
    out.push(word);
  }
  return out;
}

/** Kana or kanji: text the engine segments with its Japanese dictionary, more finely than ICU. */
const JAPANESE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/**
 * `text` itself when the engine reads all of it: at most `limit` words, or {@link MEILI_QUERY_WORD_BUDGET} as ICU
 * counts them when it holds Japanese, for the engine's finer count. Otherwise its content words, as many, joined by
 * spaces. Keyword queries therefore reach the engine unchanged, and only long sentences are rewritten.
 */
export function fitQueryWords(text: string, limit = MEILI_QUERY_WORD_LIMIT): string {
  const budget = JAPANESE.test(text) ? Math.min(limit, MEILI_QUERY_WORD_BUDGET) : limit;
  if (queryWords(text).length <= budget) return text;
  const words = contentWords(text);
  // A sentence of nothing but function words: sending it whole finds what the engine finds in its first words.
  if (words.length === 0) return text;
  return words.slice(0, budget).join(' ');
}

/**
 * Interrogatives and question endings: how a question is asked, not what it is about. In Q&A search they matched
 * every stored question asked the same way (「次回の請求はいつですか」 for 「保守作業はいつですか」) over the pair about
 * the topic. Weighed down on the Q&A query side (JSQuAD `qa/` 34 queries better / 4 worse, `qa-short/` 75 / 24; on
 * the held-out half 13 / 0 and 27 / 7), not in the manual, where the repository's 「だれがいつ設定を書き換えたのか」
 * needs them to reach the audit log. `なん` only before the particles it asks with (なんで, なんの, なんだ, なんと),
 * so that なんとなく stays whole. Meilisearch's query words ({@link contentWords}) are not changed: it serves the
 * manual only.
 */
const QUESTION_WORDS = /何|なに|なん(?=[でのだ]|と(?!なく))|いつ|どこ|どちら|どれ|どの|どう|どんな|誰|だれ|いくつ|いくら|なぜ|ですか|ますか|でしょうか/gu;

/** A query split into what it asks about and how it asks; see {@link splitQuestionWords}. */
export interface QuestionWordSplit {
  /** The query with each question word replaced by a space (so no bigram spans the gap). */
  topic: string;
  /** The question words found, space-separated, in order. */
  asking: string;
}

/** Separates the question words and endings of a Japanese query from its topic. */
export function splitQuestionWords(query: string): QuestionWordSplit {
  const asking: string[] = [];
  const topic = query.replace(QUESTION_WORDS, (word) => {
    asking.push(word);
    return ' ';
  });
  return { topic, asking: asking.join(' ') };
}

/** Content words a query may have and still read as keywords that a result should hold all of. */
export const KEYWORD_QUERY_MAX_WORDS = 4;

/**
 * Factor of a result that holds none of a keyword query's words. Coverage may at most halve a score, so it
 * reorders near ties (the section holding パスワード and 変更 over the one repeating パスワード) but does not bury a
 * paraphrase that shares no keyword, such as 監査ログ for 「だれがいつ設定を書き換えたのか」 (at 0, full coverage, the
 * repository's natural-language sets lost MRR and Q&A hit@3 fell below the bigram baseline).
 */
export const KEYWORD_COVERAGE_FLOOR = 0.5;

/**
 * Coverage of a keyword query ({@link KeywordCoverage}): the index terms of its content words ({@link contentWords})
 * that `query` (its weighted terms) also holds. Undefined when it has no content words or more than
 * {@link KEYWORD_QUERY_MAX_WORDS}: a long sentence names its topic among words a good answer need not repeat. The
 * character bigrams of a Latin word are left out: they are a partial-spelling back-off, and a romanised name such
 * as `raosu` would otherwise reward any text holding `ra` or `su`.
 */
export function keywordCoverage(text: string, query: ReadonlyMap<string, number>, unigramWeight: number): KeywordCoverage | undefined {
  const words = contentWords(text);
  if (words.length === 0 || words.length > KEYWORD_QUERY_MAX_WORDS) return undefined;
  return coverageOf(words, query, unigramWeight);
}

/**
 * Whether a word lists names as alternatives: Latin or number runs joined by a slash, each of at least three
 * letters or digits (`XMODEM/ZMODEM/B-Plus/Quick-VAN`, `Windows/Mac`, `TCP/UDP`), as the tokenizer takes a run of
 * three or more for a name of its own (it gives such runs their character bigrams). A slash between shorter parts
 * joins one code (`TCP/IP`, `I/O`, `S/MIME`, `OK/NG`, `ISO/TS`, a date `2024/04/01`), which a page writes whole.
 */
function isAlternatives(word: string): boolean {
  const parts = word.split('/');
  return parts.length > 1 && parts.every((part) => [...part.replace(CODE_CONNECTORS, '')].length >= 3);
}

/** The connectors inside a part of a code or name (`B-Plus`, `api_key`, `v2.3`). */
const CODE_CONNECTORS = /[-_.:+#@]/g;

/**
 * The coverage of content words: the index terms of each that `query` also holds, but a Latin word's character
 * bigrams (see {@link keywordCoverage}) and the parts of alternatives ({@link isAlternatives}), of which a page
 * that answers holds one, not all: each part as a keyword cut the Tera Term help's XMODEM tips to three quarters of
 * its score beside the menu page that names them all (retrieval audit 10). Alternatives count as written, whole,
 * which only a page listing the same names holds (a term no page holds counts for nothing); their parts still
 * score as the query's terms. A code keeps its parts (`tcp/ip`, `tcp`, `ip`), as `E-1001` does.
 */
function coverageOf(words: readonly string[], query: ReadonlyMap<string, number>, unigramWeight: number): KeywordCoverage | undefined {
  const terms = new Set<string>();
  for (const word of words) {
    const alternatives = isAlternatives(word);
    for (const t of weightedTerms(word, { weight: 1, unigramWeight }).keys()) {
      if (query.has(t) && !t.startsWith(WORD_BIGRAM_PREFIX) && (!alternatives || t.includes('/'))) terms.add(t);
    }
  }
  return terms.size > 0 ? { terms, floor: KEYWORD_COVERAGE_FLOOR } : undefined;
}

/** Ends of a sentence: the full stops, question and exclamation marks, and line breaks a customer ends one with. */
const SENTENCE_SPLIT = /(?<=[。．！!？?\n])/u;
const ONLY_PUNCTUATION = /^[。．！!？?\s]*$/u;

/** The sentences of a query, trimmed, in order; empty ones (a stray mark) are dropped. */
export function querySentences(text: string): string[] {
  return text
    .split(SENTENCE_SPLIT)
    .map((s) => s.trim())
    .filter((s) => !ONLY_PUNCTUATION.test(s));
}

/** Endings of a sentence that asks or requests: a question mark, か (ですか, でしょうか), ください, 〜たい, ほしい. */
const ASKING_END = /(?:[？?]|か|かね|ください|下さい|たい|たいです|ほしい|欲しい)[。．！!？?\s]*$/u;

/** True for a sentence that asks: an asking ending ({@link ASKING_END}) or a question word ({@link splitQuestionWords}). */
export function isAskingSentence(sentence: string): boolean {
  return ASKING_END.test(sentence) || splitQuestionWords(sentence).asking !== '';
}

/**
 * Content words of two or more characters the asking sentences must have for their coverage to apply. With fewer,
 * the question leans on its context (「夜間の保存処理が失敗したのに通知が来なかった。何を見直せばいい？」, 「…残りわずかです。
 * 枠を増やせますか」) and the context names the topic; a lone kanji is most often a verb the segmenter split (見/直).
 * On JSQuAD development queries whose topic was moved into a sentence before the question, queries ranked worse
 * than without the coverage: manual 6 → 3, `qa/` 7 → 0, `qa-short/` 21 → 10 (against 10 better), gains elsewhere kept.
 */
export const ASKING_SENTENCE_MIN_WORDS = 2;

/**
 * "How" nouns before the particle that asks with them (取り消す方法を教えて, やり方は, 手順について): the shape of the
 * question, not its topic. Counted as content words, they made 「間違えてRenoteしてしまいました。取り消す方法を教えて
 * ください。」 a question of two words (取り消す, 方法) that ignored Renote in the sentence before, and the coverage
 * halved the page about Renote (retrieval audit 11). Only here: in the Q&A weights ({@link splitQuestionWords}) they
 * stay topic words, since a stored question 「…の方法は？」 is matched by them. A compound (手順書, 方法論) is a thing, and
 * so is one the noun ends (支払い方法, ログイン方法, 配送方法: the head of the topic, which the rule stripped, bug review
 * B2): only after a verb's dictionary form (取り消す方法, 書く手順) or の (設定の方法) is the noun the question's shape.
 */
const HOW_NOUN = /(?<=[うくぐすつぬぶむる]|の)(?:方法|やり方|仕方|手順)(?=を|は|が|って|について)/gu;

/**
 * Coverage of a long query by its asking sentences: when the query has sentences that ask ({@link isAskingSentence})
 * and sentences that do not (what the customer was doing, who asked them, when they need it), a result's score is
 * scaled by the share of the asking sentences' content words it holds, as {@link keywordCoverage} does for keyword
 * queries and with its floor. A weak model passes the customer's paragraph whole, and OR-BM25 lets every context
 * sentence rank the sections it happens to match; weighting the context sentences down instead hurt queries whose
 * topic is in the context more. Undefined for one sentence, when every or no sentence asks, and for a question with
 * fewer than {@link ASKING_SENTENCE_MIN_WORDS} longer content words. Question words and "how" nouns ({@link HOW_NOUN}) are
 * not content words here.
 */
export function askingSentenceCoverage(text: string, query: ReadonlyMap<string, number>, unigramWeight: number): KeywordCoverage | undefined {
  const sentences = querySentences(text);
  if (sentences.length < 2) return undefined;
  const asking = sentences.filter(isAskingSentence);
  if (asking.length === 0 || asking.length === sentences.length) return undefined;
  const words = contentWords(asking.map((s) => splitQuestionWords(s).topic.replace(HOW_NOUN, ' ')).join(' '));
  if (words.filter((w) => [...w].length >= 2).length < ASKING_SENTENCE_MIN_WORDS) return undefined;
  return coverageOf(words, query, unigramWeight);
}
