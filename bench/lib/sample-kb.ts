/** The repository's sample knowledge base (`data/`) indexed with the local embedder into this run's scratch dir. */
import path from 'node:path';
import { reindexManual } from '../../jobs/reindex-manual.js';
import { reindexQa } from '../../jobs/reindex-qa.js';
import { parseConfig } from '../../src/config.js';
import { createSearchBackends } from '../../src/search/factory.js';
import { type BenchContext, memo } from './context.js';
import { SAMPLE_MANUALS_DIR, SAMPLE_QA_DIR } from './corpus.js';

/** Environment of the sample knowledge base, for workers and in-process configs. */
export function sampleKnowledgeEnv(dataDir: string): Record<string, string> {
  return { DATA_DIR: dataDir, MANUALS_DIR: SAMPLE_MANUALS_DIR, QA_DIR: SAMPLE_QA_DIR, EMBEDDINGS_PROVIDER: 'local' };
}

/** Indexes the sample manual and Q&A once per run (product default of 1,536 dimensions); returns DATA_DIR. */
export function sampleKnowledge(ctx: BenchContext): Promise<string> {
  return memo(ctx, 'sample-knowledge', async () => {
    const dataDir = path.join(ctx.tmp, 'sample-data');
    const config = parseConfig({ ...sampleKnowledgeEnv(dataDir), LOG_LEVEL: 'warn' });
    const backends = createSearchBackends(config);
    await reindexManual({}, { config, manual: backends.manual });
    await reindexQa({}, { config, qa: backends.qa });
    return dataDir;
  });
}
