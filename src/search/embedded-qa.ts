/**
 * Embedded similarity search over past questions and answers: normalised vectors (an int8 copy scanned by usearch, the
 * best candidates re-scored with the Float32 rows — see {@link VectorIndex}), plus a BM25 index over the same pairs,
 * fused with weighted reciprocal rank fusion ({@link fusionWeightsFor}). Vectors catch paraphrases (with a real
 * embedding model); BM25 catches exact product terms and error codes that embeddings blur. Everything lives in one file under `dir`, switched atomically
 * on reindex and reloaded by other processes on their next search.
 */
import path from 'node:path';
import { createLogger, type Logger } from '../logger.js';
import { Bm25Builder, Bm25Index, type Bm25Params } from './bm25.js';
import { askingSentenceCoverage, keywordCoverage, splitQuestionWords } from './query-words.js';
import { weightedTerms } from './tokenize.js';
import { embedQuery } from './embeddings.js';
import {
  bytesOf,
  decodeContainer,
  encodeContainer,
  float32View,
  LiveIndexFile,
  normalizeInPlace,
  quantizedStride,
  type QuantizedRows,
  quantizeRows,
  VectorIndex,
} from './vector-store.js';
import { formatQaPair, LEARNED_ID_PREFIX, MAX_SEARCH_RESULTS, type Embedder, type ProgressFn, type QaPair, type QaSearch, type SearchHit, type ServedIndex } from './types.js';
import { qaContentHash, servedIndex } from './index-builds.js';

/** Name of the index file inside the directory. */
export const QA_INDEX_FILE = 'qa.idx';

/** Ranking settings; stored in the index so searches use what it was built with. */
export interface QaRankingOptions {
  bm25: Bm25Params;
  /** Multiplier on question-term frequencies (answer terms count 1). */
  questionWeight: number;
  /** Weight of kanji unigram backoff terms on both sides (0 disables them). */
  unigramWeight: number;
  /** Query-side multiplier of hiragana-only bigrams (particles and endings of a natural sentence). */
  queryHiraganaFactor: number;
  /** The k of reciprocal rank fusion: larger flattens the advantage of the very top ranks. */
  rrfK: number;
  /** Candidates taken from each ranking before fusion. */
  depth: number;
}

/** Defaults chosen on the retrieval evaluation (src/search/evaluate.ts). */
export const DEFAULT_QA_RANKING: QaRankingOptions = {
  bm25: { k1: 1.2, b: 0.75 },
  // Weighting questions over answers did not help on the evaluation: answers restate the question's terms.
  questionWeight: 1,
  unigramWeight: 0.6,
  queryHiraganaFactor: 1,
  rrfK: 60,
  depth: 50,
};

/**
 * File format version. 2 added the int8 rows (section 2, rows × {@link quantizedStride} bytes, zero-padded) and their
 * Float32 scales (section 3) after version 1's Float32 rows and BM25 (sections 0 and 1, unchanged); version 1 files
 * still load, quantised while loading. Any other version fails `ping()` with a message asking for a reindex.
 */
const QA_FORMAT_VERSION = 2;

interface QaMeta {
  format: 'helpdesk-qa-index';
  version: 1 | 2;
  embedderId: string;
  dims: number;
  ranking: QaRankingOptions;
  pairs: QaPair[];
  /**
   * {@link qaContentHash} of the pairs built in, so the agent worker can tell whether it serves the last recorded
   * build (`index-freshness.ts`). Absent from files written before it; readers of either version ignore what they
   * do not know, so the format version stays.
   */
  contentHash?: string;
}

interface LoadedQa {
  pairs: QaPair[];
  embedderId: string;
  dims: number;
  vectors: VectorIndex;
  bm25: Bm25Index;
  ranking: QaRankingOptions;
  /** Of the base file; undefined for a file older than build hashes, and for a merge with learned pairs. */
  contentHash?: string | undefined;
}

/** Texts per embed call during a rebuild: progress granularity, and how much is cached if a rebuild dies midway. */
const EMBED_CHUNK = 256;
const YIELD_EVERY = 250;

/**
 * Weights of the two rankings in the fusion (each rank contributes weight / (rrfK + rank + 1)). 0 leaves a ranking
 * out. They apply at search time, so changing them needs no reindex.
 */
export interface QaFusionWeights {
  lexical: number;
  vector: number;
}

/**
 * Pairs that join the index between reindexes: the accepted learned answers (`src/knowledge/learned-answers.ts`).
 * {@link EmbeddedQaSearch} asks {@link version} on every search and merges {@link pairs} in when it changed.
 */
export interface LearnedPairSource {
  /** Changes whenever the pairs change; one cheap read. */
  version(): Promise<string>;
  /** The current pairs (ids `learned#<n>`). */
  pairs(): Promise<QaPair[]>;
}

export { LEARNED_ID_PREFIX };

/** The index a search ranks over: the live file with the learned pairs merged in, and what it was made from. */
interface MergedQa {
  base: LoadedQa | undefined;
  version: string;
  index: LoadedQa;
}

/** Embedded {@link QaSearch}: vectors + BM25 fused by RRF, one atomically replaced file under `dir`. */
export class EmbeddedQaSearch implements QaSearch {
  readonly kind = 'embedded';
  private readonly embedder: Embedder;
  private readonly live: LiveIndexFile<LoadedQa>;
  private readonly ranking: QaRankingOptions;
  private readonly fusion: QaFusionWeights;
  private readonly learned: LearnedPairSource | undefined;
  private merged: MergedQa | undefined;
  private merging: { base: LoadedQa | undefined; version: string; promise: Promise<LoadedQa> } | undefined;
  private readonly log = createLogger('search', { index: 'qa' });
  private warnedMismatch = '';
  private warnedLearned = false;
  private lastBuiltHash: string | undefined;

  /**
   * @param dir directory of the index (created on first reindex).
   * @param embedder embeds pairs on reindex and queries on search; must be the vector space the index was built in.
   * @param ranking overrides of {@link DEFAULT_QA_RANKING}, for evaluation.
   * @param fusion weights of the BM25 and vector rankings (default {@link fusionWeightsFor} the embedder).
   * @param checkIntervalMs minimum time between checks for a newer index file (default: every search).
   * @param learned pairs merged into the index as they change, without a reindex (see {@link withLearned}).
   */
  constructor({
    dir,
    embedder,
    ranking,
    fusion,
    checkIntervalMs,
    learned,
  }: { dir: string; embedder: Embedder; ranking?: Partial<QaRankingOptions>; fusion?: QaFusionWeights; checkIntervalMs?: number; learned?: LearnedPairSource }) {
    this.embedder = embedder;
    this.learned = learned;
    this.ranking = { ...DEFAULT_QA_RANKING, ...ranking };
    this.fusion = fusion ?? fusionWeightsFor(embedder.id);
    this.live = new LiveIndexFile({ file: path.join(dir, QA_INDEX_FILE), decode: (b) => decodeQa(b, this.log), log: this.log, checkIntervalMs });
  }

  /** Up to `k` pairs, fused from the vector and BM25 rankings. Empty or blank queries give no hits. */
  async search(query: string, k: number = MAX_SEARCH_RESULTS): Promise<SearchHit[]> {
    if (query.trim() === '' || k <= 0) return [];
    const index = await this.withLearned(await this.live.current());
    if (!index || index.pairs.length === 0) return [];
    const { ranking } = index;
    const depth = Math.max(ranking.depth, k);
    const fused = new Map<number, number>();
    const add = (doc: number, rank: number, weight: number) => fused.set(doc, (fused.get(doc) ?? 0) + weight / (ranking.rrfK + rank + 1));
    const { lexical: lexicalWeight, vector: vectorWeight } = this.fusion;

    if (lexicalWeight > 0) {
      const terms = qaQueryTerms(query, ranking);
      // The keywords are the topic's: a question word (誰, 何故) is down-weighted in `terms` and would otherwise take
      // a full share of the coverage, so a pair sharing only it and one topic word outranked the pair on the topic.
      // A long query's asking sentence is found by its question words and endings, so it reads the query itself.
      const coverage = keywordCoverage(splitQuestionWords(query).topic, terms, ranking.unigramWeight) ?? askingSentenceCoverage(query, terms, ranking.unigramWeight);
      index.bm25.search(terms, depth, undefined, coverage).forEach((r, rank) => add(r.doc, rank, lexicalWeight));
    }

    if (vectorWeight <= 0) {
      // The vector ranking is switched off: no query embedding is spent.
    } else if (this.embedder.id === index.embedderId && index.dims > 0) {
      const qv = await this.embedQuery(query);
      if (qv === undefined) {
        // Logged in embedQuery; the lexical ranking alone still answers.
      } else if (qv.length === index.dims) {
        const q = normalizedCopy(qv);
        index.vectors.topK(q, depth).forEach((m, rank) => add(m.index, rank, vectorWeight));
      } else this.warnMismatch(`dims ${qv.length} != ${index.dims}`);
    } else if (index.dims > 0) {
      this.warnMismatch(`embedder ${this.embedder.id} != index ${index.embedderId}`);
    }

    return [...fused]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k)
      .map(([doc, score]) => {
        const pair = index.pairs[doc]!;
        return { id: pair.id, fileName: `${pair.fileName}#${pair.row}`, content: formatQaPair(pair), ...(pair.ticketId ? { learnedFrom: pair.ticketId } : {}), score };
      });
  }

  /** Embeds every pair (through the embedder's cache), builds vectors + BM25, and renames the new file into place. */
  async replaceAll(pairs: QaPair[], onProgress?: ProgressFn): Promise<void> {
    const started = performance.now();
    const ranking = this.ranking;
    const total = pairs.length;
    const texts = pairs.map((p) => formatQaPair(p));
    const vectors: Float32Array[] = [];
    for (let start = 0; start < total; start += EMBED_CHUNK) {
      vectors.push(...(await this.embedder.embed(texts.slice(start, start + EMBED_CHUNK))));
      await onProgress?.({ stage: 'embed', done: Math.min(total, start + EMBED_CHUNK), total });
      // A local embedder resolves without ever leaving the microtask queue; let searches in this process run.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const dims = vectors[0]?.length ?? 0;
    const matrix = new Float32Array(total * dims);
    vectors.forEach((v, i) => {
      if (v.length !== dims) throw new Error(`embedder ${this.embedder.id} returned ${v.length} dimensions for pair ${pairs[i]!.id}, expected ${dims}`);
      const row = matrix.subarray(i * dims, (i + 1) * dims);
      row.set(v);
      normalizeInPlace(row);
    });

    const builder = new Bm25Builder(ranking.bm25);
    for (let i = 0; i < total; i++) {
      builder.add(pairTerms(pairs[i]!, ranking));
      if ((i + 1) % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const bm25 = builder.build();
    const stored = pairs.map(({ id, fileName, row, question, answer, ticketId }) => ({ id, fileName, row, question, answer, ...(ticketId ? { ticketId } : {}) }));
    const quantized = quantizeRows(matrix, dims);
    const contentHash = qaContentHash(stored);
    const meta: QaMeta = { format: 'helpdesk-qa-index', version: QA_FORMAT_VERSION, embedderId: this.embedder.id, dims, ranking, pairs: stored, contentHash };
    const bytes = encodeContainer(meta, [bytesOf(matrix), bm25.serialize(), bytesOf(quantized.codes), bytesOf(quantized.scales)]);
    await onProgress?.({ stage: 'index', done: total, total });
    const index = new VectorIndex(matrix, dims, quantized);
    await this.live.replace(bytes, { pairs: stored, embedderId: this.embedder.id, dims, vectors: index, bm25, ranking, contentHash });
    this.lastBuiltHash = contentHash;
    this.log.info({ pairs: total, dims, bytes: bytes.byteLength, ms: Math.round(performance.now() - started) }, 'qa index replaced');
  }

  /** The live file's content hash (reloaded first when it changed); learned pairs merged in do not change it. */
  served(): Promise<ServedIndex> {
    return servedIndex(() => this.live.current());
  }

  /** The content hash of the last index this instance built. */
  builtHash(): string | undefined {
    return this.lastBuiltHash;
  }

  /** Pairs in the live index (learned pairs included); 0 when none has been built. */
  async count(): Promise<number> {
    return (await this.withLearned(await this.live.current()))?.pairs.length ?? 0;
  }

  /**
   * The live index with the current learned pairs in place of the ones it was built with: rows with a
   * {@link LEARNED_ID_PREFIX} id are dropped (removed or edited since the reindex), the source's pairs appended, and
   * BM25 rebuilt over the whole set, so a learned pair ranks exactly as it would after a reindex. Base rows keep
   * their stored vectors; only the learned pairs are embedded (through the embedding cache). Rebuilt once per
   * process when the index file or the source's version changes (about the cost of the BM25 part of a reindex);
   * while the source cannot be read (Redis down) the last merge, or the file alone, keeps answering.
   */
  private async withLearned(base: LoadedQa | undefined): Promise<LoadedQa | undefined> {
    if (!this.learned) return base;
    let version: string;
    try {
      version = await this.learned.version();
      this.warnedLearned = false;
    } catch (err) {
      if (!this.warnedLearned) this.log.warn({ err: (err as Error).message }, 'learned answers cannot be read; searching without the latest ones');
      this.warnedLearned = true;
      const last = this.merged;
      return last && last.base === base ? last.index : base;
    }
    if (this.merged && this.merged.base === base && this.merged.version === version) return this.merged.index;
    if (!this.merging || this.merging.base !== base || this.merging.version !== version) {
      const promise = this.merge(base);
      const merging = { base, version, promise };
      this.merging = merging;
      void promise.then(
        (index) => {
          if (this.merging === merging) this.merging = undefined;
          this.merged = { base, version, index };
        },
        () => {
          if (this.merging === merging) this.merging = undefined;
        },
      );
    }
    return this.merging.promise;
  }

  private async merge(base: LoadedQa | undefined): Promise<LoadedQa> {
    const learned = await this.learned!.pairs();
    const ranking = base?.ranking ?? this.ranking;
    const keep = (base?.pairs ?? []).flatMap((p, i) => (p.id.startsWith(LEARNED_ID_PREFIX) ? [] : [i]));
    const pairs = [...keep.map((i) => base!.pairs[i]!), ...learned];
    // Base vectors are reusable only in this embedder's space; otherwise the merged index has none, as searches
    // would not use them anyway (see warnMismatch).
    const sameSpace = !base || (base.embedderId === this.embedder.id && base.dims > 0);
    const learnedVectors = sameSpace && learned.length > 0 ? await this.embedder.embed(learned.map((p) => formatQaPair(p))) : [];
    const dims = !sameSpace ? 0 : (base?.dims ?? learnedVectors[0]?.length ?? 0);
    const matrix = new Float32Array(pairs.length * dims);
    if (dims > 0) {
      keep.forEach((row, i) => matrix.set(base!.vectors.vectors.subarray(row * dims, (row + 1) * dims), i * dims));
      learnedVectors.forEach((v, j) => {
        if (v.length !== dims) throw new Error(`embedder ${this.embedder.id} returned ${v.length} dimensions for learned pair ${learned[j]!.id}, expected ${dims}`);
        const row = matrix.subarray((keep.length + j) * dims, (keep.length + j + 1) * dims);
        row.set(v);
        normalizeInPlace(row);
      });
    }
    const builder = new Bm25Builder(ranking.bm25);
    for (let i = 0; i < pairs.length; i++) {
      builder.add(pairTerms(pairs[i]!, ranking));
      if ((i + 1) % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const vectors = new VectorIndex(matrix, dims, quantizeRows(matrix, dims));
    this.log.debug({ pairs: pairs.length, learned: learned.length }, 'learned answers merged into the Q&A index');
    return { pairs, embedderId: base?.embedderId ?? this.embedder.id, dims, vectors, bm25: builder.build(), ranking };
  }

  /** Throws when the index file exists but cannot be read; a missing index is not an error. */
  async ping(): Promise<void> {
    await this.live.check();
  }

  /** Nothing to release: the index is plain memory. Present for symmetry with the server backends. */
  async close(): Promise<void> {}

  /**
   * The query vector, or undefined when the embedder fails (server down, timeout after the SDK's retries): a
   * BM25-only answer is worth more to the agent than a failed tool call.
   */
  private async embedQuery(query: string): Promise<Float32Array | undefined> {
    try {
      return await embedQuery(this.embedder, query);
    } catch (err) {
      this.log.error({ err: err instanceof Error ? err.message : String(err), embedder: this.embedder.id }, 'query embedding failed; ranking by BM25 only');
      return undefined;
    }
  }

  private warnMismatch(reason: string): void {
    if (this.warnedMismatch === reason) return;
    this.warnedMismatch = reason;
    this.log.warn({ reason }, 'qa index was built with another embedder; ranking by BM25 only until a reindex');
  }
}

function decodeQa(bytes: Uint8Array, log: Logger): LoadedQa {
  const { meta, sections } = decodeContainer<QaMeta>(bytes);
  if (meta.format !== 'helpdesk-qa-index') throw new Error('not a Q&A index (format)');
  if (meta.version !== 1 && meta.version !== QA_FORMAT_VERSION) {
    throw new Error(`Q&A index format version ${String(meta.version)} is not supported (this build reads 1 and ${QA_FORMAT_VERSION}); run a Q&A reindex`);
  }
  const [vecBytes, bm25Bytes, codeBytes, scaleBytes] = sections;
  if (!vecBytes || !bm25Bytes) throw new Error('Q&A index is missing a section');
  const rows = meta.pairs.length;
  const floats = float32View(vecBytes);
  if (floats.length !== rows * meta.dims) throw new Error('Q&A index: vector section does not match the pair count');
  const bm25 = Bm25Index.deserialize(bm25Bytes);
  if (bm25.docCount !== rows) throw new Error('Q&A index: BM25 section does not match the pair count');
  let quantized: QuantizedRows;
  if (meta.version === 1) {
    // Written before the int8 rows existed: quantise now (deterministic, so the same as a reindex would store).
    quantized = quantizeRows(floats, meta.dims);
    log.info({ pairs: rows, dims: meta.dims }, 'qa index is format version 1; quantised while loading (a reindex stores the int8 rows)');
  } else {
    if (!codeBytes || !scaleBytes) throw new Error('Q&A index is missing a section');
    const stride = quantizedStride(meta.dims);
    const codes = new Int8Array(codeBytes.buffer, codeBytes.byteOffset, codeBytes.byteLength);
    const scales = float32View(scaleBytes);
    if (codes.length !== rows * stride || scales.length !== rows) throw new Error('Q&A index: int8 section does not match the pair count');
    quantized = { codes, scales, stride };
  }
  const vectors = new VectorIndex(floats, meta.dims, quantized);
  const contentHash = typeof meta.contentHash === 'string' ? meta.contentHash : undefined;
  return { pairs: meta.pairs, embedderId: meta.embedderId, dims: meta.dims, vectors, bm25, ranking: meta.ranking, contentHash };
}

/** Lexical terms of a pair: question terms weighted up, answer terms at 1, kanji unigrams as weak backoff. */
export function pairTerms(pair: Pick<QaPair, 'question' | 'answer'>, ranking: QaRankingOptions): Map<string, number> {
  const tf = weightedTerms(pair.question, { weight: ranking.questionWeight, unigramWeight: ranking.unigramWeight * ranking.questionWeight });
  return weightedTerms(pair.answer, { weight: 1, unigramWeight: ranking.unigramWeight }, tf);
}

/**
 * Query-side weight of question words and endings ({@link splitQuestionWords}) relative to the topic's terms. Low,
 * not 0: a query made of nothing else still ranks by them (scaling every term alike keeps the order). 0, 0.25 and
 * 0.5 measured alike on JSQuAD's development half (`qa/` 49, 47 and 46 queries better, 6 worse each).
 */
const QA_QUESTION_WORD_WEIGHT = 0.25;

/**
 * Query terms for the BM25 side: the topic at full weight, the question words and endings down-weighted. Q&A only:
 * in the manual they helped nothing, and the project's natural set lost 「だれがいつ設定を書き換えたのか」 → 監査ログ.
 */
export function qaQueryTerms(query: string, ranking: QaRankingOptions): Map<string, number> {
  const { topic, asking } = splitQuestionWords(query);
  const terms = weightedTerms(topic, { weight: 1, unigramWeight: ranking.unigramWeight, hiraganaBigramFactor: ranking.queryHiraganaFactor });
  const w = QA_QUESTION_WORD_WEIGHT;
  return weightedTerms(asking, { weight: w, unigramWeight: ranking.unigramWeight * w, hiraganaBigramFactor: ranking.queryHiraganaFactor }, terms);
}

function normalizedCopy(v: Float32Array): Float32Array {
  return normalizeInPlace(Float32Array.from(v));
}

/**
 * Fusion weights for the local hashed embedder: BM25 alone. Its vectors are hashed character n-grams, a second and
 * noisier lexical ranking, and fusing them made every development set worse (JSQuAD `qa/` hit@3 0.954 → 0.916,
 * `qa-short/` 0.642 → 0.596 with equal weights; the repository's set 67.9 % → 69.8 % was the only gain).
 */
export const LOCAL_EMBEDDER_FUSION: QaFusionWeights = { lexical: 1, vector: 0 };
/**
 * Fusion weights for a semantic embedding model (OpenAI, bge-m3, nomic-embed-text…): the vectors lead and BM25 only
 * lifts exact terms (error codes, product names) among near-ties. A published measurement on a real Japanese FAQ set
 * found that equal-weight RRF of a strong embedding ranker with character BM25 lost a third of the embedding
 * ranker's hits at 3; a quarter weight keeps BM25's exact matches without outvoting the model.
 */
export const SEMANTIC_EMBEDDER_FUSION: QaFusionWeights = { lexical: 0.25, vector: 1 };

/** Default fusion weights for an embedder id: the local hashed embedder, or a semantic model. */
export function fusionWeightsFor(embedderId: string): QaFusionWeights {
  return embedderId.startsWith('hashed-ngram') ? LOCAL_EMBEDDER_FUSION : SEMANTIC_EMBEDDER_FUSION;
}
