/**
 * Chooses the search backends from configuration: Meilisearch when MEILI_HOST is set, else the embedded manual
 * engine; Qdrant when QDRANT_URL is set, else the embedded Q&A index. Both embedded stores live under DATA_DIR.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import { createEmbedder } from './embeddings.js';
import { EmbeddedManualSearch } from './embedded-manual.js';
import { EmbeddedQaSearch, type LearnedPairSource } from './embedded-qa.js';
import { MeilisearchManualSearch } from './meilisearch-manual.js';
import { QdrantQaSearch } from './qdrant-qa.js';
import type { Embedder, ManualSearch, QaSearch } from './types.js';

/** The knowledge-base searches of one process. */
export interface SearchBackends {
  manual: ManualSearch;
  qa: QaSearch;
  embedder: Embedder;
}

/**
 * Builds both searches (no I/O until first use). `learned` (the accepted learned answers in Redis) is merged into
 * the embedded Q&A index as it changes; Qdrant holds learned pairs as points of its own instead.
 */
export function createSearchBackends(config: Config, options: { learned?: LearnedPairSource } = {}): SearchBackends {
  const embedder = createEmbedder(config);
  const manual: ManualSearch = config.MEILI_HOST
    ? new MeilisearchManualSearch({ host: config.MEILI_HOST, apiKey: config.MEILI_API_KEY, index: config.MEILI_INDEX })
    : new EmbeddedManualSearch({ dir: path.resolve(config.DATA_DIR, 'manual-index') });
  const qa: QaSearch = config.QDRANT_URL
    ? new QdrantQaSearch({ url: config.QDRANT_URL, apiKey: config.QDRANT_API_KEY, collection: config.QDRANT_COLLECTION, embedder })
    : new EmbeddedQaSearch({
        dir: path.resolve(config.DATA_DIR, 'qa-index'),
        embedder,
        ...(config.QA_FUSION_WEIGHTS ? { fusion: config.QA_FUSION_WEIGHTS } : {}),
        ...(options.learned ? { learned: options.learned } : {}),
      });
  return { manual, qa, embedder };
}
