/** Phase 7a: reindex throughput of the product's reindex jobs with the local embedder (embedding cache cold). */
import { benchKnowledge } from '../lib/bench-kb.js';
import type { BenchContext } from '../lib/context.js';

export async function reindexPhase(ctx: BenchContext): Promise<void> {
  const kb = await benchKnowledge(ctx);
  ctx.figures.add({
    id: 'reindex.manual.chunksPerSecond',
    phase: '7',
    name: 'reindex manual',
    value: kb.manual.chunks / (kb.manualMs / 1000),
    unit: 'chunks/s',
    note: `${kb.manual.chunks} chunks from ${kb.manual.files} files in ${(kb.manualMs / 1000).toFixed(1)} s (read, chunk, BM25, atomic switch)`,
  });
  ctx.figures.add({
    id: 'reindex.qa.pairsPerSecond',
    phase: '7',
    name: 'reindex Q&A (local embedder)',
    value: kb.qa.pairs / (kb.qaMs / 1000),
    unit: 'pairs/s',
    note: `${kb.qa.pairs} pairs × ${kb.config.EMBEDDING_DIMENSIONS} dims in ${(kb.qaMs / 1000).toFixed(1)} s, embedding cache cold`,
  });
}
