import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HashedNgramEmbedder } from '../../src/search/embeddings.js';
import { parseQaPairs } from '../../src/search/evaluate.js';
import { formatQaPair } from '../../src/search/types.js';
import {
  bytesOf,
  candidateCount,
  decodeContainer,
  encodeContainer,
  float32View,
  normalizeInPlace,
  quantizedStride,
  quantizeRows,
  topKByDot,
  VectorIndex,
  type VectorMatch,
} from '../../src/search/vector-store.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function random(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) - 0.5;
}

function normalizedRows(rows: number, dims: number, rnd: () => number): Float32Array {
  const m = Float32Array.from({ length: rows * dims }, rnd);
  for (let r = 0; r < rows; r++) normalizeInPlace(m.subarray(r * dims, (r + 1) * dims));
  return m;
}

/** Rows clustered tightly around a few centres: many near-ties, the hard case for a quantised first pass. */
function clusteredRows(rows: number, dims: number, centres: number, spread: number, rnd: () => number): Float32Array {
  const c = normalizedRows(centres, dims, rnd);
  const m = new Float32Array(rows * dims);
  for (let r = 0; r < rows; r++) {
    const base = (r % centres) * dims;
    for (let j = 0; j < dims; j++) m[r * dims + j] = c[base + j]! + spread * rnd();
    normalizeInPlace(m.subarray(r * dims, (r + 1) * dims));
  }
  return m;
}

/** Share of the exact top-k rows that `got` also returned. */
function recall(exact: VectorMatch[], got: VectorMatch[]): { found: number; total: number } {
  const want = new Set(exact.map((m) => m.index));
  return { found: got.filter((m) => want.has(m.index)).length, total: exact.length };
}

describe('quantizeRows', () => {
  it('maps each row’s largest magnitude to ±127 with a per-row scale, pads rows to a multiple of 16 with zeros', () => {
    const dims = 20;
    const m = Float32Array.from([...Array.from({ length: dims }, (_, j) => (j - 5) / 100), ...new Array<number>(dims).fill(0)]);
    const { codes, scales, stride } = quantizeRows(m, dims);
    expect(stride).toBe(32);
    expect(quantizedStride(16)).toBe(16);
    expect(codes).toHaveLength(2 * stride);
    expect(scales[0]).toBeCloseTo(0.14 / 127, 9);
    expect(codes[dims - 1]).toBe(127);
    expect(Array.from(codes.subarray(dims, stride))).toEqual(new Array<number>(stride - dims).fill(0));
    for (let j = 0; j < dims; j++) expect(Math.abs(codes[j]! * scales[0]! - m[j]!)).toBeLessThanOrEqual(scales[0]! / 2 + 1e-9);
    expect(scales[1]).toBe(0);
    expect(Array.from(codes.subarray(stride))).toEqual(new Array<number>(stride).fill(0));
  });

  it('is deterministic', () => {
    const m = normalizedRows(7, 50, random(3));
    const a = quantizeRows(m, 50);
    const b = quantizeRows(m, 50);
    expect(Buffer.from(bytesOf(a.codes)).equals(Buffer.from(bytesOf(b.codes)))).toBe(true);
    expect(Array.from(a.scales)).toEqual(Array.from(b.scales));
  });
});

describe('VectorIndex', () => {
  it("uses usearch's native kernel on this Node, and both kernels return the exact scan's rows and scores", () => {
    const dims = 100;
    const m = normalizedRows(301, dims, random(11));
    const q = quantizeRows(m, dims);
    const native = new VectorIndex(m, dims, q);
    const js = new VectorIndex(m, dims, q, { native: false });
    expect(native.kernel).toBe('usearch');
    expect(js.kernel).toBe('js');
    const rnd = random(12);
    for (let i = 0; i < 10; i++) {
      const query = normalizeInPlace(Float32Array.from({ length: dims }, rnd));
      const exact = topKByDot(m, dims, query, 20);
      expect(native.topK(query, 20)).toEqual(exact);
      expect(js.topK(query, 20)).toEqual(exact);
      // With no margin the shortlist is the approximate top 20 alone; int8 rounding may swap a near-tie at its edge.
      const overlap = native.topK(query, 20, 20).filter((hit) => exact.some((e) => e.index === hit.index)).length;
      expect(overlap).toBeGreaterThanOrEqual(18);
    }
  });

  it.each([
    ['random rows, 1,536 dims', () => normalizedRows(3000, 1536, random(21)), 1536],
    ['random rows, 100 dims (not a multiple of 16)', () => normalizedRows(3000, 100, random(22)), 100],
    ['clustered near-duplicates, 256 dims', () => clusteredRows(3000, 256, 20, 0.05, random(23)), 256],
  ])('%s: recall@10 against the exact scan ≥ 0.99, and the default result equals topKByDot', (_name, make, dims) => {
    const m = make();
    const index = new VectorIndex(m, dims, quantizeRows(m, dims));
    const rnd = random(99);
    let found = 0;
    let total = 0;
    let identical = 0;
    const queries = 40;
    for (let i = 0; i < queries; i++) {
      // Half the queries are perturbed rows of the index, so their best matches crowd together.
      const query =
        i % 2 === 0
          ? normalizeInPlace(Float32Array.from({ length: dims }, rnd))
          : normalizeInPlace(Float32Array.from(m.subarray((i * 37) * dims, (i * 37 + 1) * dims), (x) => x + 0.02 * rnd()));
      const exact = topKByDot(m, dims, query, 10);
      const got = index.topK(query, 10);
      const r = recall(exact, got);
      found += r.found;
      total += r.total;
      if (JSON.stringify(got) === JSON.stringify(exact)) identical++;
      // Depth 50 is what the fused Q&A search asks for.
      const exact50 = topKByDot(m, dims, query, 50);
      expect(recall(exact50, index.topK(query, 50)).found).toBeGreaterThanOrEqual(49);
    }
    expect(found / total).toBeGreaterThanOrEqual(0.99);
    expect(identical).toBeGreaterThanOrEqual(queries - 1);
  });

  it('on the sample Q&A data with the local embedder: recall@10 ≥ 0.99 even without a candidate margin, exact with it', async () => {
    const pairs = parseQaPairs(await readFile(path.join(ROOT, 'data/qa/xyz-qa.csv'), 'utf8'), 'xyz-qa.csv');
    const read = async (f: string) => JSON.parse(await readFile(path.join(ROOT, 'test/fixtures/eval', f), 'utf8')) as { query: string }[];
    const queries = [...(await read('qa.json')), ...(await read('manual.json'))].map((q) => q.query);
    const dims = 1536;
    const embedder = new HashedNgramEmbedder({ dimensions: dims });
    const m = new Float32Array(pairs.length * dims);
    pairs.forEach((p, i) => m.set(embedder.embedOne(formatQaPair(p)), i * dims));
    const index = new VectorIndex(m, dims, quantizeRows(m, dims));
    let found = 0;
    let total = 0;
    for (const text of queries) {
      const query = embedder.embedOne(text);
      const exact = topKByDot(m, dims, query, 10);
      const r = recall(exact, index.topK(query, 10, 10));
      found += r.found;
      total += r.total;
      expect(index.topK(query, 10)).toEqual(exact);
    }
    expect(queries.length).toBeGreaterThan(100);
    expect(found / total).toBeGreaterThanOrEqual(0.99);
  });

  it('scans past one kernel block (8,192 rows), with row counts that are not multiples of four', () => {
    const dims = 16;
    for (const rows of [8192 * 2 + 3, 5, 1]) {
      const m = normalizedRows(rows, dims, random(rows));
      const index = new VectorIndex(m, dims, quantizeRows(m, dims));
      const query = Float32Array.from(m.subarray((rows - 1) * dims, rows * dims));
      const got = index.topK(query, 3);
      expect(got[0]!.score).toBeCloseTo(1, 5);
      expect(got).toEqual(topKByDot(m, dims, query, 3));
      expect(new VectorIndex(m, dims, quantizeRows(m, dims), { native: false }).topK(query, 3)).toEqual(got);
    }
  });

  it('handles k beyond the row count, a zero query, an empty index, and rejects a query of the wrong length', () => {
    const dims = 8;
    const m = normalizedRows(5, dims, random(5));
    const index = new VectorIndex(m, dims, quantizeRows(m, dims));
    const query = normalizeInPlace(Float32Array.from({ length: dims }, random(6)));
    expect(index.topK(query, 50)).toEqual(topKByDot(m, dims, query, 50));
    expect(index.topK(new Float32Array(dims), 3)).toEqual([0, 1, 2].map((i) => ({ index: i, score: 0 })));
    expect(index.topK(query, 0)).toEqual([]);
    expect(new VectorIndex(new Float32Array(0), dims, quantizeRows(new Float32Array(0), dims)).topK(query, 3)).toEqual([]);
    expect(() => index.topK(new Float32Array(dims + 1), 3)).toThrow(/dimensions/);
    expect(() => new VectorIndex(m, dims, quantizeRows(m.subarray(dims), dims))).toThrow(/do not match/);
  });

  it('gives the exact scan\'s result for int8 rows that are views into the index file bytes (usearch ignores a view\'s offset)', () => {
    const dims = 48;
    const m = normalizedRows(200, dims, random(8));
    const q = quantizeRows(m, dims);
    const file = encodeContainer({ dims }, [bytesOf(m), bytesOf(q.codes), bytesOf(q.scales)]);
    const bytes = new Uint8Array(file.byteLength + 8).subarray(8);
    bytes.set(file);
    const { sections } = decodeContainer<{ dims: number }>(bytes);
    const codes = new Int8Array(sections[1]!.buffer, sections[1]!.byteOffset, sections[1]!.byteLength);
    const inPlace = new VectorIndex(float32View(sections[0]!), dims, { codes, scales: float32View(sections[2]!), stride: q.stride });
    expect(codes.buffer).toBe(bytes.buffer);
    expect(codes.byteOffset).toBeGreaterThan(0);
    expect(inPlace.kernel).toBe('usearch');
    const query = normalizeInPlace(Float32Array.from({ length: dims }, random(9)));
    expect(inPlace.topK(query, 10)).toEqual(topKByDot(m, dims, query, 10));
  });

  it('keeps a candidate margin of at least 64 rows and twice k', () => {
    expect(candidateCount(3)).toBe(67);
    expect(candidateCount(50)).toBe(114);
    expect(candidateCount(100)).toBe(200);
  });
});
