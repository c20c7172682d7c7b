/**
 * Contracts of the two knowledge-base searches. Each has an embedded implementation (no server, files under
 * DATA_DIR) and a server implementation (Meilisearch / Qdrant), chosen in `src/search/factory.ts`.
 */
import { removeInvisible } from '../mail/invisible.js';

/** What a search tool hands the agent: at most a few of these per call (the design's SearchOutput). */
export interface SearchOutput {
  /** The manual file name, or the Q&A source as `file.csv#row` so an operator can find the pair. */
  fileName: string;
  content: string;
}

/** A search result with its rank score (higher is better; scales differ between engines). */
export interface SearchHit extends SearchOutput {
  /** The chunk's or pair's stable id ({@link ManualChunk.id} / {@link QaPair.id}). */
  id: string;
  /** Manual hits: the section heading path of the chunk. */
  heading?: string;
  /** Learned Q&A pairs: the ticket whose approved reply taught the pair. */
  learnedFrom?: string;
  score: number;
}

/** One piece of the manual as indexed. */
export interface ManualChunk {
  /** Stable id: `${fileName}#${ordinal}`. */
  id: string;
  fileName: string;
  /** Section heading path the chunk sits under, e.g. `セキュリティ > 二段階認証`; empty when none. */
  heading: string;
  content: string;
}

/** One past question and answer as indexed. */
export interface QaPair {
  /** Stable id: `${fileName}#${row}` where row is the 1-based data row (header excluded). */
  id: string;
  fileName: string;
  row: number;
  question: string;
  answer: string;
  /** Learned pairs (`learned#<n>`, see src/knowledge/learned-answers.ts): the ticket that taught the pair. */
  ticketId?: string;
}

/** Id prefix of the learned pairs (`learned#<n>`): index rows with it are replaced by the current ones from Redis. */
export const LEARNED_ID_PREFIX = 'learned#';

/**
 * The index an embedded engine serves in this process: present with the content hash its file carries (undefined
 * for a file written before build hashes), or absent (never built here, or unreadable: `error` says why).
 */
export type ServedIndex = { present: true; hash: string | undefined } | { present: false; error?: string };

/** Progress callback of long operations: `done` of `total` units of `stage`. */
export type ProgressFn = (progress: { stage: string; done: number; total: number }) => void | Promise<void>;

/** Full-text search over the product manual (`search_xyz_manual`). */
export interface ManualSearch {
  /** Backend name for logs and readiness checks, e.g. `embedded` or `meilisearch`. */
  readonly kind: string;
  search(keywords: string, k?: number): Promise<SearchHit[]>;
  /**
   * Replaces the whole index with `chunks`, built beside the live one and switched in atomically: searches during
   * the rebuild answer from the old index. Running it twice with the same input gives the same index.
   */
  replaceAll(chunks: ManualChunk[], onProgress?: ProgressFn): Promise<void>;
  /** Number of chunks in the live index (0 when there is none yet). */
  count(): Promise<number>;
  /** Throws when the backend cannot answer (readiness checks). */
  ping(): Promise<void>;
  /**
   * The index this process serves (embedded engines, whose files each machine holds for itself); absent on a server
   * backend, whose one index every machine shares. Reloads a newer file first, as a search would.
   */
  served?(): Promise<ServedIndex>;
  /** The content hash of what this instance's last {@link replaceAll} indexed (`index-builds.ts`); undefined before one. */
  builtHash?(): string | undefined;
  close?(): Promise<void>;
}

/** Similarity search over past questions and answers (`search_xyz_qa`). */
export interface QaSearch {
  readonly kind: string;
  search(query: string, k?: number): Promise<SearchHit[]>;
  /** As {@link ManualSearch.replaceAll}; embeds the pairs (through the embedding cache) before switching. */
  replaceAll(pairs: QaPair[], onProgress?: ProgressFn): Promise<void>;
  /**
   * Adds or replaces pairs in the live index at once, without a reindex. Present on backends that store learned
   * pairs themselves (Qdrant); the embedded index reads them from Redis instead (see `LearnedPairSource`).
   */
  upsertPairs?(pairs: QaPair[]): Promise<void>;
  /** Removes pairs from the live index at once (the counterpart of {@link upsertPairs}). */
  removePairs?(ids: string[]): Promise<void>;
  count(): Promise<number>;
  ping(): Promise<void>;
  /** As {@link ManualSearch.served}: the base file's hash, learned pairs merged in or not. */
  served?(): Promise<ServedIndex>;
  /** As {@link ManualSearch.builtHash}; learned pairs are not part of it. */
  builtHash?(): string | undefined;
  close?(): Promise<void>;
}

/** Turns texts into vectors. Implementations: OpenAI-compatible embeddings API, or the local hashed n-gram embedder. */
export interface Embedder {
  /** Identifies the vector space (model and dimensions); part of the cache key. */
  readonly id: string;
  embed(texts: string[]): Promise<Float32Array[]>;
}

/**
 * The text of a Q&A pair as the agent sees it and as it is embedded: without characters a reader does not see
 * (src/mail/invisible.ts), which could carry instructions to the model that no operator saw in the pair.
 */
export function formatQaPair(pair: Pick<QaPair, 'question' | 'answer'>): string {
  return removeInvisible(`Q: ${pair.question}\nA: ${pair.answer}`).text;
}

/** What starts a pair's answer in {@link formatQaPair}'s text. */
const ANSWER_MARK = '\nA: ';

/**
 * The answer of a Q&A pair's text as {@link formatQaPair} writes it (and a search tool may cut it), or '' when the text
 * has no answer part. Read from the last answer mark: the question is a customer's words (a learned pair's always)
 * and may write an `A: ` line of its own; an answer that writes one loses what comes before it, which only makes less
 * of the answer count (see src/tickets/quote-omission.ts `knowledgeFound`). A learned question is at most
 * MAX_CANDIDATE_QUESTION_CHARS, well under what the tool shows of a hit, so its real mark is never cut off.
 */
export function qaPairAnswerOf(text: string): string {
  const at = text.lastIndexOf(ANSWER_MARK);
  return at < 0 ? '' : text.slice(at + ANSWER_MARK.length);
}

/** Most results a search tool returns to the agent (the design's MAX_SEARCH_RESULTS). */
export const MAX_SEARCH_RESULTS = 3;
