/**
 * The benchmark-size knowledge base: generated manual files and Q&A CSV (see corpus.ts), indexed by the product's
 * own reindex jobs with the local embedder into a DATA_DIR of this run. Built once per run; the reindex phase
 * reports how long the jobs took, the search phase searches the result.
 */
import path from 'node:path';
import { reindexManual, type ReindexManualResult } from '../../jobs/reindex-manual.js';
import { reindexQa, type ReindexQaResult } from '../../jobs/reindex-qa.js';
import { parseConfig, type Config } from '../../src/config.js';
import { createSearchBackends } from '../../src/search/factory.js';
import { type BenchContext, memo } from './context.js';
import { writeManualCorpus, writeQaCorpus } from './corpus.js';

/** The indexed benchmark knowledge base. */
export interface BenchKnowledge {
  config: Config;
  dataDir: string;
  manual: ReindexManualResult;
  qa: ReindexQaResult;
  /** Wall milliseconds of each reindex job (reading, chunking or embedding, indexing, atomic switch). */
  manualMs: number;
  qaMs: number;
}

// Chunks average well under CHUNK_SIZE (300): sections end mid-chunk and the splitter cuts at paragraph ends.
// Measured on the generated corpus: about 194 characters of section text per chunk.
const CHARS_PER_CHUNK = 194;

/** Generates and indexes the benchmark knowledge base (once per run). */
export function benchKnowledge(ctx: BenchContext): Promise<BenchKnowledge> {
  return memo(ctx, 'bench-knowledge', async () => {
    const root = path.join(ctx.tmp, 'kb');
    const manualsDir = path.join(root, 'manuals');
    const qaDir = path.join(root, 'qa');
    const dataDir = path.join(root, 'data');
    ctx.log(`generating ${ctx.sizes.searchChunks} chunks of manual and ${ctx.sizes.searchPairs} Q&A pairs`);
    await writeManualCorpus(manualsDir, ctx.sizes.searchChunks * CHARS_PER_CHUNK);
    await writeQaCorpus(qaDir, ctx.sizes.searchPairs);
    const config = parseConfig({
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      MANUALS_DIR: manualsDir,
      QA_DIR: qaDir,
      EMBEDDINGS_PROVIDER: 'local',
      EMBEDDING_DIMENSIONS: String(ctx.sizes.qaDims),
    });
    const backends = createSearchBackends(config);
    ctx.log('reindexing the manual (jobs/reindex-manual.ts)');
    let started = performance.now();
    const manual = await reindexManual({}, { config, manual: backends.manual });
    const manualMs = performance.now() - started;
    ctx.log(`reindexing the Q&A with the local embedder, ${ctx.sizes.qaDims} dimensions (jobs/reindex-qa.ts)`);
    started = performance.now();
    const qa = await reindexQa({}, { config, qa: backends.qa });
    const qaMs = performance.now() - started;
    return { config, dataDir, manual, qa, manualMs, qaMs };
  });
}
