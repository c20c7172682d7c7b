/**
 * The agent's two read-only search tools, as LangChain tools so that their schemas reach the model through
 * `convertToOpenAITool`. The names keep the design's `xyz` whatever PRODUCT_NAME is: prompts, logs and stored
 * results refer to the tools by these names.
 *
 * Both hand every engine (embedded, Meilisearch, Qdrant) the query without mail greetings, closings and signatures
 * ({@link questionOfQuery}): a weak model passes the customer's mail as it is.
 *
 * The agent runs these two tools without `tool.invoke` (see {@link directSearchOf}): LangChain's tool machinery
 * (callback manager, run tree, signal race) costs more per call than the search of a small index.
 */
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { z } from 'zod';
import { scrubPersonalData } from '../knowledge/personal-data.js';
import { questionOfQuery } from '../search/query-text.js';
import { LEARNED_ID_PREFIX, MAX_SEARCH_RESULTS, type ManualSearch, type QaSearch, type SearchHit, type SearchOutput } from '../search/types.js';

/** Name of the manual full-text search tool. */
export const MANUAL_TOOL_NAME = 'search_xyz_manual';
/** Name of the past Q&A similarity search tool. */
export const QA_TOOL_NAME = 'search_xyz_qa';

/** Which kind of source a tool's results are, for {@link AnswerSource}. */
export const TOOL_SOURCE_KIND: Record<string, 'manual' | 'qa'> = {
  [MANUAL_TOOL_NAME]: 'manual',
  [QA_TOOL_NAME]: 'qa',
};

const manualSchema = z.object({
  keywords: z.string().describe('全文検索に使うキーワード。複数あるときは空白で区切る'),
});

const qaSchema = z.object({
  query: z.string().describe('過去の質問と似た意味の文を探すための検索文'),
});

/**
 * Characters of one hit the model is shown. A manual chunk is CHUNK_SIZE long, but a Q&A cell holds whatever was
 * pasted into it (a whole document): every subtask call, its reflection and the final answer would carry it.
 */
export const MAX_HIT_CHARS = 4_000;

/**
 * Characters of a search query the tools clean and search with. A question is a few sentences; past this a model
 * has pasted a log or a blob, and the cleaning's line rules and every engine's term weighing would run over all of
 * it (the schema's strings are unbounded).
 */
export const MAX_QUERY_CHARS = 2_000;

/** `query` cut by code points at {@link MAX_QUERY_CHARS}, then cleaned of mail boilerplate. */
function searchText(query: string): string {
  const chars = query.length <= MAX_QUERY_CHARS ? undefined : Array.from(query);
  return questionOfQuery(chars === undefined || chars.length <= MAX_QUERY_CHARS ? query : chars.slice(0, MAX_QUERY_CHARS).join(''));
}

/**
 * A hit's text as the model gets it: cut by code points at {@link MAX_HIT_CHARS}, with a line saying how much more.
 * What the trust records hash (src/tickets/trust.ts), so they name a source by the text the agent read.
 */
export function shownContent(content: string): string {
  if (content.length <= MAX_HIT_CHARS) return content;
  const chars = Array.from(content);
  if (chars.length <= MAX_HIT_CHARS) return content;
  return `${chars.slice(0, MAX_HIT_CHARS).join('')}\n[… ${(chars.length - MAX_HIT_CHARS).toLocaleString('en-US')} more characters not shown]`;
}

// The model only needs the text and where it came from; ids and scores would cost tokens and mean nothing to it.
const toOutputs = (hits: SearchHit[]): SearchOutput[] =>
  hits.slice(0, MAX_SEARCH_RESULTS).map((h) => ({ fileName: h.fileName, content: shownContent(h.content) }));

/**
 * What a Q&A hit from a learned pair (`learned#<n>`) carries besides its text: an operator accepted it from a reply a
 * reviewer approved, often one that corrected the manual or an older Q&A row, so where the two disagree the pair is
 * the newer word. But that reply went to one customer: a name, order number, amount or date the scrub and the
 * reviewer missed is that customer's, and the model, told to prefer the pair, copied customer A's name and order
 * number into customer B's draft (security review 19), so the note forbids repeating any the current customer did
 * not give. A field of its own beside `fileName` and `content`, not text in the hit: the trust records hash the
 * content (src/tickets/trust.ts), and a manual page or CSV cell cannot claim it by its wording. It rides in the tool
 * results, which differ per question anyway, so the cached prompt prefix (system prompt and tools) stays the same.
 */
export const LEARNED_HIT_NOTE =
  '担当者が承認した回答（学習済みQ&A）。マニュアルや他のQ&Aの記載と食い違うときは、こちらを優先する。' +
  'ただし一人のお客様への返信から作られたもの：その中の名前や番号（注文番号・金額・日付など）は、今回のお客様が自分で書いたもの以外は決して繰り返さない。';

/** What starts a Q&A hit's question and its answer in the text `formatQaPair` (src/search/types.ts) writes. */
const QUESTION_MARK = 'Q: ';
const ANSWER_MARK = '\nA: ';

/**
 * A learned pair's hit text as the Q&A tool serves it: its question and its answer each scrubbed again by the
 * personal-data rules (src/knowledge/personal-data.ts; no names, no model), as the proposal scrubbed them. A pair
 * accepted before a rule existed, or edited by an operator at accept, then loses what the rules find now, whenever it
 * is read (security review 19). The rules leave text they scrubbed as it is, so a pair they find nothing in is served
 * unchanged. The answer starts at the last answer mark, as `qaPairAnswerOf` reads it; text of another shape is
 * scrubbed whole.
 */
export function servedLearnedContent(content: string): string {
  const cached = servedLearned.get(content);
  if (cached !== undefined) {
    // Read again: the most recently served stay longest.
    servedLearned.delete(content);
    servedLearned.set(content, cached);
    return cached;
  }
  const at = content.lastIndexOf(ANSWER_MARK);
  const served =
    !content.startsWith(QUESTION_MARK) || at < 0
      ? scrubPersonalData(content).text
      : `${QUESTION_MARK}${scrubPersonalData(content.slice(QUESTION_MARK.length, at)).text}${ANSWER_MARK}${scrubPersonalData(content.slice(at + ANSWER_MARK.length)).text}`;
  servedLearned.set(content, served);
  if (servedLearned.size > MAX_SERVED_LEARNED) servedLearned.delete(servedLearned.keys().next().value!);
  return served;
}

/**
 * Learned hits scrubbed lately, by their text as stored. The rules cost milliseconds a hit on a loaded worker, and
 * the few pairs a desk has learned are served again and again; the rules are this process's code, so a text's scrub
 * never changes while it runs. Bounded, least recently served first out: a pair's text is at most about ten thousand
 * characters (MAX_CANDIDATE_QUESTION_CHARS and MAX_CANDIDATE_ANSWER_CHARS), so the cache holds a few megabytes at most.
 */
const servedLearned = new Map<string, string>();
const MAX_SERVED_LEARNED = 128;

/** A search output the model reads, with {@link LEARNED_HIT_NOTE} on a learned pair's hit. */
export interface QaSearchOutput extends SearchOutput {
  note?: string;
}

// A learned hit is scrubbed before it is cut to what the model is shown, so that a cut never splits what a rule reads.
const toQaOutputs = (hits: SearchHit[]): QaSearchOutput[] =>
  toOutputs(hits.slice(0, MAX_SEARCH_RESULTS).map((h) => (h.fileName.startsWith(LEARNED_ID_PREFIX) ? { ...h, content: servedLearnedContent(h.content) } : h))).map((out) =>
    out.fileName.startsWith(LEARNED_ID_PREFIX) ? { fileName: out.fileName, note: LEARNED_HIT_NOTE, content: out.content } : out,
  );

/**
 * What a search tool does, without LangChain's tool machinery: `run` validates the model's arguments like
 * `tool.invoke` does (unknown keys dropped) and searches. It returns undefined for arguments the schema rejects.
 */
export interface DirectSearch {
  run(input: unknown): Promise<SearchOutput[]> | undefined;
}

const directSearches = new WeakMap<StructuredToolInterface, DirectSearch>();

/** The direct form of a tool built by this module; undefined for any other tool (which then runs via `invoke`). */
export function directSearchOf(searchTool: StructuredToolInterface): DirectSearch | undefined {
  return directSearches.get(searchTool);
}

function withDirectSearch<S extends z.ZodType>(
  searchTool: StructuredToolInterface,
  schema: S,
  search: (input: z.infer<S>) => Promise<SearchOutput[]>,
): StructuredToolInterface {
  directSearches.set(searchTool, {
    run: (input) => {
      const parsed = schema.safeParse(input);
      return parsed.success ? search(parsed.data) : undefined;
    },
  });
  return searchTool;
}

/** Builds the manual search tool over `manual`. */
export function createManualSearchTool(manual: ManualSearch, productName = 'XYZ'): StructuredToolInterface {
  const search = async ({ keywords }: z.infer<typeof manualSchema>): Promise<SearchOutput[]> =>
    toOutputs(await manual.search(searchText(keywords), MAX_SEARCH_RESULTS));
  const searchTool = tool(search, {
    name: MANUAL_TOOL_NAME,
    description:
      `${productName}のマニュアルをキーワードで全文検索するツール。` +
      'エラーコードや画面名・機能名などの固有名詞が問い合わせに含まれるときは、その語句でこのツールを使う。',
    schema: manualSchema,
  });
  return withDirectSearch(searchTool, manualSchema, search);
}

/** Builds the past Q&A search tool over `qa`. */
export function createQaSearchTool(qa: QaSearch, productName = 'XYZ'): StructuredToolInterface {
  const search = async ({ query }: z.infer<typeof qaSchema>): Promise<QaSearchOutput[]> =>
    toQaOutputs(await qa.search(searchText(query), MAX_SEARCH_RESULTS));
  const searchTool = tool(search, {
    name: QA_TOOL_NAME,
    description: `${productName}について過去に寄せられた質問と回答の組から、意味の近いものを探すツール。`,
    schema: qaSchema,
  });
  return withDirectSearch(searchTool, qaSchema, search);
}

/** Both tools, manual first (the design's order). */
export function createSearchTools(
  search: { manual: ManualSearch; qa: QaSearch },
  productName = 'XYZ',
): StructuredToolInterface[] {
  return [createManualSearchTool(search.manual, productName), createQaSearchTool(search.qa, productName)];
}
