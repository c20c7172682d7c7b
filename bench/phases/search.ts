/**
 * Phase 6: embedded search latency at benchmark size — the product's manual search (BM25 over Japanese-aware terms)
 * and Q&A search (query embedding + vector scan + BM25, fused) — each next to a brute-force scan over the same data
 * measured in the same run: a substring count of the query's terms over every chunk, and a plain cosine loop over
 * every pair vector with a full sort.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { HashedNgramEmbedder } from '../../src/search/embeddings.js';
import { EmbeddedManualSearch, MANUAL_INDEX_FILE } from '../../src/search/embedded-manual.js';
import { EmbeddedQaSearch, QA_INDEX_FILE, SEMANTIC_EMBEDDER_FUSION } from '../../src/search/embedded-qa.js';
import { normalizeText } from '../../src/search/tokenize.js';
import type { ManualChunk, QaPair } from '../../src/search/types.js';
import { decodeContainer, float32View } from '../../src/search/vector-store.js';
import { benchKnowledge } from '../lib/bench-kb.js';
import type { BenchContext } from '../lib/context.js';
import { REPO_ROOT } from '../lib/proc.js';
import { quantile } from '../lib/stats.js';

const WARMUP = 20;

export async function searchPhase(ctx: BenchContext): Promise<void> {
  const kb = await benchKnowledge(ctx);
  const { manualQueries, qaQueries } = await evalQueries();
  const n = ctx.sizes.searchQueries;

  // Manual: the product's engine as the factory builds it, and a brute-force scan of the same chunks.
  const manualDir = path.join(kb.dataDir, 'manual-index');
  const manual = new EmbeddedManualSearch({ dir: manualDir });
  const chunks = decodeContainer<{ chunks: ManualChunk[] }>(await readFile(path.join(manualDir, MANUAL_INDEX_FILE))).meta.chunks;
  const chunkTexts = chunks.map((c) => normalizeText(`${c.heading}\n${c.content}`));
  ctx.log(`manual search: ${n} queries over ${chunks.length} chunks, product and brute force`);
  const manualMs = await latencies(manualQueries, n, (q) => manual.search(q, 3));
  const bruteManualMs = await latencies(manualQueries, n, async (q) => bruteForceManual(chunkTexts, q, 3));
  report(ctx, 'manual', `${chunks.length} chunks`, manualMs, bruteManualMs, 10, 'substring count of the query terms over every chunk');

  // Q&A: the product's hybrid search with the query embedded each time (a customer's subtask is never in a cache),
  // and a brute-force cosine scan over the same vectors.
  const qaDir = path.join(kb.dataDir, 'qa-index');
  const embedder = new HashedNgramEmbedder({ dimensions: kb.config.EMBEDDING_DIMENSIONS });
  // The vectors stand in for a semantic model's (1,536 dimensions), so the search runs both rankings as it then would.
  const qa = new EmbeddedQaSearch({ dir: qaDir, embedder, fusion: SEMANTIC_EMBEDDER_FUSION });
  const container = decodeContainer<{ pairs: QaPair[]; dims: number }>(await readFile(path.join(qaDir, QA_INDEX_FILE)));
  const vectors = float32View(container.sections[0]!);
  const dims = container.meta.dims;
  ctx.log(`Q&A search: ${n} queries over ${container.meta.pairs.length} pairs × ${dims} dims, product and brute force`);
  const qaMs = await latencies(qaQueries, n, (q) => qa.search(q, 3));
  const bruteQaMs = await latencies(qaQueries, n, async (q) => bruteForceCosine(vectors, dims, embedder.embedOne(q), 3));
  report(ctx, 'qa', `${container.meta.pairs.length} pairs × ${dims} dims`, qaMs, bruteQaMs, 20, 'query embedding + cosine over every vector, full sort');
}

function report(ctx: BenchContext, kind: 'manual' | 'qa', size: string, product: number[], brute: number[], p95Limit: number, bruteWhat: string): void {
  const label = kind === 'manual' ? 'manual search' : 'Q&A search';
  const full = !ctx.quick;
  ctx.figures.add({ id: `search.${kind}.p50`, phase: '6', name: `${label} p50`, value: quantile(product, 0.5), unit: 'ms', note: `${size}, ${product.length} queries` });
  ctx.figures.add({
    id: `search.${kind}.p95`,
    phase: '6',
    name: `${label} p95`,
    value: quantile(product, 0.95),
    unit: 'ms',
    ...(full ? { target: { op: '<=' as const, limit: p95Limit } } : {}),
    note: `${size}, ${product.length} queries${kind === 'qa' ? ' (embed + vector scan + BM25 + fusion)' : ''}`,
  });
  ctx.figures.add({ id: `search.${kind}.bruteForce.p50`, phase: '6', name: `${label}: brute force p50`, value: quantile(brute, 0.5), unit: 'ms', note: bruteWhat });
  ctx.figures.add({ id: `search.${kind}.bruteForce.p95`, phase: '6', name: `${label}: brute force p95`, value: quantile(brute, 0.95), unit: 'ms', note: `same ${size}` });
}

/** Milliseconds of each of `n` searches, cycling through `queries`, after a warm-up (index load, JIT). */
async function latencies(queries: readonly string[], n: number, search: (q: string) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await search(queries[i % queries.length]!);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const q = queries[i % queries.length]!;
    const started = performance.now();
    await search(q);
    out.push(performance.now() - started);
  }
  return out;
}

/** The retrieval evaluation sets: keyword and natural-sentence manual queries, paraphrased Q&A questions. */
async function evalQueries(): Promise<{ manualQueries: string[]; qaQueries: string[] }> {
  const read = async (f: string) => JSON.parse(await readFile(path.join(REPO_ROOT, 'test/fixtures/eval', f), 'utf8')) as { query: string }[];
  const manual = (await read('manual.json')).map((q) => q.query);
  const qa = (await read('qa.json')).map((q) => q.query);
  return { manualQueries: manual, qaQueries: [...qa, ...manual] };
}

/** Brute force: count every occurrence of each query term (words, CJK bigrams) in every chunk; top k. */
export function bruteForceManual(texts: readonly string[], query: string, k: number): { index: number; score: number }[] {
  const terms: string[] = [];
  for (const word of normalizeText(query).split(/\s+/).filter(Boolean)) {
    const chars = Array.from(word);
    if (chars.length <= 2 || /^[\x00-\x7f]+$/.test(word)) terms.push(word);
    else for (let i = 0; i + 1 < chars.length; i++) terms.push(chars[i]! + chars[i + 1]!);
  }
  const scored: { index: number; score: number }[] = [];
  texts.forEach((text, index) => {
    let score = 0;
    for (const t of terms) for (let at = text.indexOf(t); at !== -1; at = text.indexOf(t, at + t.length)) score += 1;
    if (score > 0) scored.push({ index, score });
  });
  return scored.sort((a, b) => b.score - a.score).slice(0, k);
}

/** Brute force: cosine of the query with every row (norms computed), all scores sorted; top k. */
export function bruteForceCosine(matrix: Float32Array, dims: number, query: Float32Array, k: number): { index: number; score: number }[] {
  const rows = matrix.length / dims;
  let qn = 0;
  for (let j = 0; j < dims; j++) qn += query[j]! * query[j]!;
  const scored: { index: number; score: number }[] = [];
  for (let r = 0; r < rows; r++) {
    let dot = 0;
    let rn = 0;
    const base = r * dims;
    for (let j = 0; j < dims; j++) {
      const x = matrix[base + j]!;
      dot += x * query[j]!;
      rn += x * x;
    }
    scored.push({ index: r, score: dot / (Math.sqrt(qn * rn) || 1) });
  }
  return scored.sort((a, b) => b.score - a.score).slice(0, k);
}
