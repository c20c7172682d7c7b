import { describe, expect, it } from 'vitest';
import { Bm25Builder, Bm25Index } from '../../src/search/bm25.js';
import { termFrequencies } from '../../src/search/tokenize.js';

function build(docs: string[][], params = {}): Bm25Index {
  const b = new Bm25Builder(params);
  for (const d of docs) b.add(termFrequencies(d));
  return b.build();
}

describe('Bm25Index', () => {
  const docs = [
    ['apple', 'banana', 'apple'],
    ['banana', 'cherry'],
    ['cherry', 'durian', 'elder', 'fig', 'grape', 'apple'],
    ['kiwi'],
  ];

  it('ranks by BM25 with OR semantics', () => {
    const index = build(docs);
    const hits = index.search(['apple', 'cherry'], 10);
    // Every document with either term is returned; doc 2 has both.
    expect(hits.map((h) => h.doc).sort()).toEqual([0, 1, 2]);
    expect(hits[0]!.doc).toBe(2);
    expect(index.search(['nothing'], 10)).toEqual([]);
  });

  it('matches the textbook formula', () => {
    const index = build(docs, { k1: 1.2, b: 0.75 });
    const N = 4;
    const avg = (3 + 2 + 6 + 1) / 4;
    const idf = (df: number) => Math.log(1 + (N - df + 0.5) / (df + 0.5));
    const score = (tf: number, len: number, df: number) => (idf(df) * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * len) / avg));
    const [top] = index.search(['apple'], 1);
    expect(top!.doc).toBe(0);
    expect(top!.score).toBeCloseTo(score(2, 3, 2), 5);
  });

  it('b = 0 ignores document length; k1 saturates repeats', () => {
    const index = build([['x', 'pad', 'pad', 'pad', 'pad'], ['x']], { b: 0 });
    const [a, b] = index.search(['x'], 2);
    expect(a!.score).toBeCloseTo(b!.score, 9);
    const saturated = build([['x', 'x', 'x', 'x'], ['x']], { k1: 0.01, b: 0 }).search(['x'], 2);
    expect(saturated[0]!.score / saturated[1]!.score).toBeLessThan(1.01);
  });

  it('weights query terms by repetition or explicit weight', () => {
    const index = build(docs);
    const plain = index.search(['banana', 'cherry'], 2);
    const weighted = index.search(new Map([['banana', 1], ['cherry', 5]]), 2);
    expect(plain[0]!.doc).toBe(1);
    expect(weighted[0]!.doc).toBe(1);
    expect(weighted[1]!.doc).toBe(2);
  });

  it('breaks ties by insertion order and honours k and filter', () => {
    const index = build([['t'], ['t'], ['t']]);
    expect(index.search(['t'], 2).map((h) => h.doc)).toEqual([0, 1]);
    expect(index.search(['t'], 5, (d) => d !== 0).map((h) => h.doc)).toEqual([1, 2]);
    expect(index.search(['t'], 0)).toEqual([]);
  });

  it('handles an empty index', () => {
    const index = new Bm25Builder().build();
    expect(index.search(['a'], 3)).toEqual([]);
    expect(Bm25Index.deserialize(index.serialize()).docCount).toBe(0);
  });

  it('round-trips through its binary form, byte-identically and at any alignment', () => {
    const index = build(docs, { k1: 1.5, b: 0.5 });
    const bytes = index.serialize();
    expect(Buffer.from(build(docs, { k1: 1.5, b: 0.5 }).serialize()).equals(Buffer.from(bytes))).toBe(true);
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    for (const copy of [Bm25Index.deserialize(bytes), Bm25Index.deserialize(shifted.subarray(1))]) {
      expect(copy.params).toEqual({ k1: 1.5, b: 0.5 });
      expect(copy.search(['apple', 'cherry'], 10)).toEqual(index.search(['apple', 'cherry'], 10));
      expect(copy.docFrequency('apple')).toBe(2);
    }
    expect(() => Bm25Index.deserialize(bytes.subarray(0, bytes.length - 4))).toThrow(/truncated/);
    expect(() => Bm25Index.deserialize(new Uint8Array(64))).toThrow(/not a BM25/);
  });

  it('uses fractional (field-weighted) frequencies', () => {
    const b = new Bm25Builder();
    b.add(new Map([['title', 3], ['body', 1]]));
    b.add(new Map([['title', 1], ['body', 1]]));
    expect(b.build().search(['title'], 2)[0]!.doc).toBe(0);
  });
});
