/**
 * Embedded full-text search over the product manual: a BM25 index over Japanese-aware tokens (see tokenize.ts),
 * kept in one file under `dir` and switched atomically on reindex. No server; any number of processes can search
 * the same directory, and each picks up a new index on its next search.
 */
import path from 'node:path';
import { createLogger } from '../logger.js';
import { Bm25Builder, Bm25Index, type Bm25Params } from './bm25.js';
import { askingSentenceCoverage, keywordCoverage } from './query-words.js';
import { weightedTerms } from './tokenize.js';
import { decodeContainer, encodeContainer, LiveIndexFile } from './vector-store.js';
import { manualContentHash, servedIndex } from './index-builds.js';
import { MAX_SEARCH_RESULTS, type ManualChunk, type ManualSearch, type ProgressFn, type SearchHit, type ServedIndex } from './types.js';

/** Name of the index file inside the directory. */
export const MANUAL_INDEX_FILE = 'manual.idx';

/** Separator of heading levels in {@link ManualChunk.heading} (as the manual loader writes it). */
const HEADING_SEPARATOR = ' > ';

/** Analysis and ranking settings; stored in the index so a search always uses what the index was built with. */
export interface ManualRankingOptions {
  bm25: Bm25Params;
  /** Multiplier on the innermost heading's term frequencies: a term in the section title says more than one in its body. */
  headingWeight: number;
  /** Multiplier on the outer headings of the path (chapter titles), which are shared by many chunks. */
  ancestorHeadingWeight: number;
  /** Index-side weight of kanji unigram terms (0 disables them). */
  unigramWeight: number;
  /** Query-side weight of kanji unigrams: they match where paraphrases share a kanji but no bigram. */
  queryUnigramWeight: number;
  /** Query-side multiplier of hiragana-only bigrams (particles and endings of a natural sentence). */
  queryHiraganaFactor: number;
}

/** Defaults chosen on the retrieval evaluation (src/search/evaluate.ts). */
export const DEFAULT_MANUAL_RANKING: ManualRankingOptions = {
  // Milder length normalisation than the usual 0.75: a long section that covers a topic fully should not lose to a
  // short chunk that merely mentions one of its words.
  bm25: { k1: 1.2, b: 0.5 },
  headingWeight: 3,
  ancestorHeadingWeight: 1,
  // Kanji unigrams at full weight lifted natural-sentence MRR the most: paraphrases often share single kanji
  // (消した/削除, 保存/保持) while no bigram matches.
  unigramWeight: 1,
  queryUnigramWeight: 1,
  // Down-weighting hiragana-only bigrams was tried and lost: okurigana such as した/たい carry intent.
  queryHiraganaFactor: 1,
};

interface ManualMeta {
  format: 'helpdesk-manual-index';
  version: 1;
  ranking: ManualRankingOptions;
  chunks: ManualChunk[];
  /**
   * {@link manualContentHash} of the chunks, so the agent worker can tell whether it serves the last recorded build
   * (`index-freshness.ts`). Absent from files written before it; readers of either version ignore what they do not
   * know, so the format version stays.
   */
  contentHash?: string;
}

interface LoadedManual {
  chunks: ManualChunk[];
  ranking: ManualRankingOptions;
  bm25: Bm25Index;
  /** Undefined for a file written before build hashes. */
  contentHash: string | undefined;
}

/** How many chunks are analysed between yields to the event loop during a rebuild, so searches keep flowing. */
const YIELD_EVERY = 250;

/** Embedded {@link ManualSearch}: BM25 over heading + content, one atomically replaced file under `dir`. */
export class EmbeddedManualSearch implements ManualSearch {
  readonly kind = 'embedded';
  private readonly live: LiveIndexFile<LoadedManual>;
  private readonly ranking: ManualRankingOptions;
  private readonly log = createLogger('search', { index: 'manual' });
  private lastBuiltHash: string | undefined;

  /**
   * @param dir directory of the index (created on first reindex).
   * @param ranking overrides of {@link DEFAULT_MANUAL_RANKING}, for evaluation; they apply to indexes this instance
   *   builds, while searches use whatever the loaded index was built with.
   * @param checkIntervalMs minimum time between checks for a newer index file (default: every search).
   */
  constructor({ dir, ranking, checkIntervalMs }: { dir: string; ranking?: Partial<ManualRankingOptions>; checkIntervalMs?: number }) {
    this.ranking = { ...DEFAULT_MANUAL_RANKING, ...ranking };
    this.live = new LiveIndexFile({
      file: path.join(dir, MANUAL_INDEX_FILE),
      decode: decodeManual,
      log: this.log,
      checkIntervalMs,
    });
  }

  /**
   * Up to `k` chunks ranked by BM25 (OR over the query's terms), a keyword query's scores scaled by how many of its
   * keywords each chunk holds ({@link keywordCoverage}), a long query's by how much of its asking sentence
   * ({@link askingSentenceCoverage}). Empty or blank queries give no hits.
   */
  async search(keywords: string, k: number = MAX_SEARCH_RESULTS): Promise<SearchHit[]> {
    if (keywords.trim() === '' || k <= 0) return [];
    const index = await this.live.current();
    if (!index) return [];
    const query = manualQueryTerms(keywords, index.ranking);
    if (query.size === 0) return [];
    const unigramWeight = index.ranking.unigramWeight > 0 ? index.ranking.queryUnigramWeight : 0;
    const coverage = keywordCoverage(keywords, query, unigramWeight) ?? askingSentenceCoverage(keywords, query, unigramWeight);
    return index.bm25.search(query, k, undefined, coverage).map(({ doc, score }) => {
      const chunk = index.chunks[doc]!;
      return { id: chunk.id, fileName: chunk.fileName, heading: chunk.heading, content: withHeadingLine(chunk), score };
    });
  }

  /** Builds the whole index in memory, writes it beside the live file and renames it into place. */
  async replaceAll(chunks: ManualChunk[], onProgress?: ProgressFn): Promise<void> {
    const started = performance.now();
    const ranking = this.ranking;
    const builder = new Bm25Builder(ranking.bm25);
    const total = chunks.length;
    for (let i = 0; i < total; i++) {
      builder.add(chunkTerms(chunks[i]!, ranking));
      if ((i + 1) % YIELD_EVERY === 0 && i + 1 < total) {
        await onProgress?.({ stage: 'index', done: i + 1, total });
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    const bm25 = builder.build();
    const stored = chunks.map(({ id, fileName, heading, content }) => ({ id, fileName, heading, content }));
    const contentHash = manualContentHash(stored);
    const meta: ManualMeta = { format: 'helpdesk-manual-index', version: 1, ranking, chunks: stored, contentHash };
    const bytes = encodeContainer(meta, [bm25.serialize()]);
    await onProgress?.({ stage: 'index', done: total, total });
    await this.live.replace(bytes, { chunks: stored, ranking, bm25, contentHash });
    this.lastBuiltHash = contentHash;
    this.log.info({ chunks: total, terms: bm25.termCount, bytes: bytes.byteLength, ms: Math.round(performance.now() - started) }, 'manual index replaced');
  }

  /** The live file's content hash (reloaded first when it changed), or why there is no index. */
  served(): Promise<ServedIndex> {
    return servedIndex(() => this.live.current());
  }

  /** The content hash of the last index this instance built. */
  builtHash(): string | undefined {
    return this.lastBuiltHash;
  }

  /** Chunks in the live index; 0 when none has been built. */
  async count(): Promise<number> {
    return (await this.live.current())?.chunks.length ?? 0;
  }

  /** Throws when the index file exists but cannot be read; a missing index is not an error. */
  async ping(): Promise<void> {
    await this.live.check();
  }

  /** Nothing to release: the index is plain memory. Present for symmetry with the server backends. */
  async close(): Promise<void> {}
}

function decodeManual(bytes: Uint8Array): LoadedManual {
  const { meta, sections } = decodeContainer<ManualMeta>(bytes);
  if (meta.format !== 'helpdesk-manual-index' || meta.version !== 1) throw new Error('not a manual index (format/version)');
  if (!sections[0]) throw new Error('manual index has no BM25 section');
  const bm25 = Bm25Index.deserialize(sections[0]);
  if (bm25.docCount !== meta.chunks.length) throw new Error('manual index: chunk count does not match the BM25 index');
  return { chunks: meta.chunks, ranking: meta.ranking, bm25, contentHash: typeof meta.contentHash === 'string' ? meta.contentHash : undefined };
}

/** Index terms of one chunk: content, innermost heading weighted up, outer headings, kanji unigrams weighted down. */
export function chunkTerms(chunk: Pick<ManualChunk, 'heading' | 'content'>, ranking: ManualRankingOptions): Map<string, number> {
  const tf = weightedTerms(chunk.content, { weight: 1, unigramWeight: ranking.unigramWeight });
  const parts = chunk.heading ? chunk.heading.split(HEADING_SEPARATOR) : [];
  parts.forEach((part, i) => {
    const weight = i === parts.length - 1 ? ranking.headingWeight : ranking.ancestorHeadingWeight;
    weightedTerms(part, { weight, unigramWeight: ranking.unigramWeight * weight }, tf);
  });
  return tf;
}

/** Query terms with weights: words/bigrams at 1 per occurrence, hiragana-only bigrams and kanji unigrams lower. */
export function manualQueryTerms(query: string, ranking: ManualRankingOptions): Map<string, number> {
  return weightedTerms(query, {
    weight: 1,
    unigramWeight: ranking.unigramWeight > 0 ? ranking.queryUnigramWeight : 0,
    hiraganaBigramFactor: ranking.queryHiraganaFactor,
  });
}

/** The text the agent sees: the heading line, then the chunk (unless the chunk already starts with it). */
export function withHeadingLine(chunk: Pick<ManualChunk, 'heading' | 'content'>): string {
  if (!chunk.heading) return chunk.content;
  const line = `【${chunk.heading}】`;
  return chunk.content.startsWith(line) ? chunk.content : `${line}\n${chunk.content}`;
}
