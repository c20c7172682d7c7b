/**
 * Builds the manual and Q&A indexes `config` names (DATA_DIR, MANUALS_DIR, QA_DIR, the embedder) as the reindex jobs
 * do, for the stand-ins that need a knowledge base before the workers start: the pipeline tests, `npm run soak`.
 */
import { reindexManual } from '../../jobs/reindex-manual.js';
import { reindexQa } from '../../jobs/reindex-qa.js';
import type { Config } from '../config.js';
import { createSearchBackends } from '../search/factory.js';

/** Indexes the manual and the Q&A pairs of `config` into its DATA_DIR, then closes the search backends. */
export async function indexKnowledge(config: Config): Promise<void> {
  const backends = createSearchBackends(config);
  try {
    await reindexManual({}, { config, manual: backends.manual });
    await reindexQa({}, { config, qa: backends.qa });
  } finally {
    await backends.manual.close?.();
    await backends.qa.close?.();
  }
}
