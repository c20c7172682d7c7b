/**
 * In-memory BM25 inverted index over pre-tokenised documents.
 *
 * Postings live in flat typed arrays (CSR layout: one offsets array, one doc-id array, one tf array) so a query is a
 * few tight loops over contiguous memory and the whole index serialises to one binary blob that loads without
 * re-parsing postings. Queries use OR semantics: every query term that occurs contributes, so a natural sentence
 * without spaces (tokenised into many bigrams) still ranks the chunks that share the most informative bigrams.
 */

/** BM25 free parameters. */
export interface Bm25Params {
  /** Term-frequency saturation; higher lets repeated terms count longer. */
  k1: number;
  /** Length normalisation strength, 0 (none) to 1 (full). */
  b: number;
}

/** The usual defaults (Lucene/Elasticsearch). */
export const DEFAULT_BM25_PARAMS: Bm25Params = { k1: 1.2, b: 0.75 };

/** One ranked document: its insertion index and score. */
export interface Bm25Result {
  doc: number;
  score: number;
}

/** Query terms: a list (repeats raise a term's weight) or explicit term → weight. */
export type Bm25Query = readonly string[] | ReadonlyMap<string, number>;

/** Collects documents (as term → weighted frequency) and freezes them into a {@link Bm25Index}. */
export class Bm25Builder {
  private readonly params: Bm25Params;
  private readonly postings = new Map<string, { docs: number[]; tfs: number[] }>();
  private readonly docLengths: number[] = [];

  constructor(params: Partial<Bm25Params> = {}) {
    this.params = { ...DEFAULT_BM25_PARAMS, ...params };
  }

  /**
   * Adds one document and returns its index. Frequencies may be fractional or scaled (a field weight is simply a
   * multiplier on the field's term counts, BM25F-style); the document length is their sum.
   */
  add(termFrequencies: ReadonlyMap<string, number>): number {
    const doc = this.docLengths.length;
    let length = 0;
    for (const [term, tf] of termFrequencies) {
      if (!(tf > 0)) continue;
      let p = this.postings.get(term);
      if (!p) {
        p = { docs: [], tfs: [] };
        this.postings.set(term, p);
      }
      p.docs.push(doc);
      p.tfs.push(tf);
      length += tf;
    }
    this.docLengths.push(length);
    return doc;
  }

  /** Number of documents added so far. */
  get size(): number {
    return this.docLengths.length;
  }

  /** Freezes the collected documents. Term order is first-seen order, so the same input gives the same bytes. */
  build(): Bm25Index {
    const terms = [...this.postings.keys()];
    const offsets = new Uint32Array(terms.length + 1);
    let total = 0;
    terms.forEach((t, i) => {
      offsets[i] = total;
      total += this.postings.get(t)!.docs.length;
    });
    offsets[terms.length] = total;
    const docs = new Uint32Array(total);
    const tfs = new Float32Array(total);
    terms.forEach((t, i) => {
      const p = this.postings.get(t)!;
      docs.set(p.docs, offsets[i]!);
      tfs.set(p.tfs, offsets[i]!);
    });
    return new Bm25Index(this.params, terms, offsets, docs, tfs, Float32Array.from(this.docLengths));
  }
}

const MAGIC = 0x35324d42; // "BM25" little-endian
const VERSION = 1;

/** A frozen, searchable BM25 index. Build with {@link Bm25Builder}; persist with {@link Bm25Index.serialize}. */
export class Bm25Index {
  readonly params: Bm25Params;
  readonly docCount: number;
  private readonly termIds: Map<string, number>;
  /** k1 * (1 - b + b * len / avgLen) per document, precomputed because it is in every posting's score. */
  private readonly docNorm: Float32Array;
  /** Scratch accumulator reused across queries; search() is synchronous so no two queries share it at once. */
  private readonly acc: Float64Array;
  private readonly touched: Uint32Array;

  constructor(
    params: Bm25Params,
    private readonly terms: string[],
    private readonly offsets: Uint32Array,
    private readonly docs: Uint32Array,
    private readonly tfs: Float32Array,
    private readonly docLengths: Float32Array,
  ) {
    this.params = { k1: params.k1, b: params.b };
    this.docCount = docLengths.length;
    this.termIds = new Map();
    for (let i = 0; i < terms.length; i++) this.termIds.set(terms[i]!, i);
    let sum = 0;
    for (let d = 0; d < docLengths.length; d++) sum += docLengths[d]!;
    const avg = docLengths.length > 0 && sum > 0 ? sum / docLengths.length : 1;
    const { k1, b } = this.params;
    this.docNorm = new Float32Array(docLengths.length);
    for (let d = 0; d < docLengths.length; d++) this.docNorm[d] = k1 * (1 - b + (b * docLengths[d]!) / avg);
    this.acc = new Float64Array(docLengths.length);
    this.touched = new Uint32Array(docLengths.length);
  }

  /** Number of distinct terms. */
  get termCount(): number {
    return this.terms.length;
  }

  /** Documents containing `term`. */
  docFrequency(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : this.offsets[id + 1]! - this.offsets[id]!;
  }

  /** BM25 inverse document frequency (the non-negative Lucene variant); 0 for unknown terms. */
  idf(term: string): number {
    const df = this.docFrequency(term);
    if (df === 0) return 0;
    return Math.log(1 + (this.docCount - df + 0.5) / (df + 0.5));
  }

  /**
   * Ranks documents by the sum of BM25 contributions of every query term they contain (OR semantics). Ties break
   * by document index so results are deterministic. `filter` can exclude documents before ranking; `coverage`
   * scales each score by the share of the keywords the document holds ({@link KeywordCoverage}).
   */
  search(query: Bm25Query, k: number, filter?: (doc: number) => boolean, coverage?: KeywordCoverage): Bm25Result[] {
    if (k <= 0 || this.docCount === 0) return [];
    const weights = queryWeights(query);
    const { k1 } = this.params;
    const acc = this.acc;
    const touched = this.touched;
    const docNorm = this.docNorm;
    const docs = this.docs;
    const tfs = this.tfs;
    let nTouched = 0;
    for (const [term, qWeight] of weights) {
      const id = this.termIds.get(term);
      if (id === undefined || !(qWeight > 0)) continue;
      const start = this.offsets[id]!;
      const end = this.offsets[id + 1]!;
      const df = end - start;
      const w = qWeight * Math.log(1 + (this.docCount - df + 0.5) / (df + 0.5)) * (k1 + 1);
      for (let p = start; p < end; p++) {
        const d = docs[p]!;
        const tf = tfs[p]!;
        const prev = acc[d]!;
        if (prev === 0) touched[nTouched++] = d;
        // The epsilon keeps a document that only matched near-zero-idf terms from reading as untouched.
        acc[d] = prev + (w * tf) / (tf + docNorm[d]!) + 1e-12;
      }
    }
    if (coverage) this.scaleByCoverage(nTouched, coverage);
    const results = topK(acc, touched, nTouched, k, filter);
    for (let i = 0; i < nTouched; i++) acc[touched[i]!] = 0;
    return results;
  }

  /** Multiplies the accumulated scores of the touched documents by their {@link KeywordCoverage} factor. */
  private scaleByCoverage(nTouched: number, coverage: KeywordCoverage): void {
    let total = 0;
    const ids: number[] = [];
    const idfs: number[] = [];
    for (const term of coverage.terms) {
      const id = this.termIds.get(term);
      const idf = this.idf(term);
      total += idf;
      if (id !== undefined && idf > 0) {
        ids.push(id);
        idfs.push(idf);
      }
    }
    if (!(total > 0)) return;
    const got = new Float64Array(this.docCount);
    ids.forEach((id, i) => {
      for (let p = this.offsets[id]!; p < this.offsets[id + 1]!; p++) got[this.docs[p]!]! += idfs[i]!;
    });
    const floor = coverage.floor;
    for (let i = 0; i < nTouched; i++) {
      const d = this.touched[i]!;
      // The epsilon keeps the document touched (see search) even when it holds none of the keywords.
      this.acc[d] = this.acc[d]! * (floor + (1 - floor) * (got[d]! / total)) + 1e-12;
    }
  }

  /** Compact binary form: a small header, the term list and the typed arrays, 4-byte aligned. */
  serialize(): Uint8Array {
    const termBytes = new TextEncoder().encode(this.terms.join('\u0000'));
    const header = new Float64Array([this.params.k1, this.params.b]);
    const counts = new Uint32Array([MAGIC, VERSION, this.terms.length, this.docCount, this.docs.length, termBytes.length]);
    const termPadded = align4(termBytes.length);
    const size = counts.byteLength + header.byteLength + termPadded + this.docLengths.byteLength + this.offsets.byteLength + this.docs.byteLength + this.tfs.byteLength;
    const out = new Uint8Array(size);
    let pos = 0;
    const put = (bytes: Uint8Array, padded = bytes.length) => {
      out.set(bytes, pos);
      pos += padded;
    };
    put(bytesOf(counts));
    put(bytesOf(header));
    put(termBytes, termPadded);
    put(bytesOf(this.docLengths));
    put(bytesOf(this.offsets));
    put(bytesOf(this.docs));
    put(bytesOf(this.tfs));
    return out;
  }

  /** Reads {@link serialize}'s output. The typed arrays view `bytes` directly when it is 4-byte aligned. */
  static deserialize(bytes: Uint8Array): Bm25Index {
    const src = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
    if (src.byteLength < 40 || view.getUint32(0, true) !== MAGIC) throw new Error('not a BM25 index');
    const version = view.getUint32(4, true);
    if (version !== VERSION) throw new Error(`unsupported BM25 index version ${version}`);
    const nTerms = view.getUint32(8, true);
    const nDocs = view.getUint32(12, true);
    const nPostings = view.getUint32(16, true);
    const termLen = view.getUint32(20, true);
    const k1 = view.getFloat64(24, true);
    const b = view.getFloat64(32, true);
    let pos = 40;
    const need = pos + align4(termLen) + 4 * (nDocs + nTerms + 1 + 2 * nPostings);
    if (src.byteLength < need) throw new Error('truncated BM25 index');
    const termText = new TextDecoder().decode(src.subarray(pos, pos + termLen));
    const terms = nTerms === 0 ? [] : termText.split('\u0000');
    if (terms.length !== nTerms) throw new Error('corrupt BM25 term list');
    pos += align4(termLen);
    const f32 = (n: number) => {
      const a = new Float32Array(src.buffer, src.byteOffset + pos, n);
      pos += 4 * n;
      return a;
    };
    const u32 = (n: number) => {
      const a = new Uint32Array(src.buffer, src.byteOffset + pos, n);
      pos += 4 * n;
      return a;
    };
    const docLengths = f32(nDocs);
    const offsets = u32(nTerms + 1);
    const docs = u32(nPostings);
    const tfs = f32(nPostings);
    return new Bm25Index({ k1, b }, terms, offsets, docs, tfs, docLengths);
  }
}

/**
 * Keywords a result should hold all of (see `keywordCoverage` in query-words.ts): each result's score is multiplied
 * by `floor + (1 − floor) × share`, where share is the part of the keywords' IDF mass the result holds.
 */
export interface KeywordCoverage {
  terms: ReadonlySet<string>;
  /** Factor of a result holding none of the keywords; 1 switches coverage off. */
  floor: number;
}

function queryWeights(query: Bm25Query): Map<string, number> {
  if (query instanceof Map) return query as Map<string, number>;
  const m = new Map<string, number>();
  for (const t of query as readonly string[]) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/** Selects the k best of the touched documents with a bounded min-heap (k is small; touched may be thousands). */
function topK(
  acc: Float64Array,
  touched: Uint32Array,
  nTouched: number,
  k: number,
  filter?: (doc: number) => boolean,
): Bm25Result[] {
  const heapDocs: number[] = [];
  const heapScores: number[] = [];
  // "worse" = lower score, or equal score and higher doc index (so lower doc index wins ties).
  const worse = (i: number, j: number) =>
    heapScores[i]! < heapScores[j]! || (heapScores[i] === heapScores[j] && heapDocs[i]! > heapDocs[j]!);
  const swap = (i: number, j: number) => {
    [heapDocs[i], heapDocs[j]] = [heapDocs[j]!, heapDocs[i]!];
    [heapScores[i], heapScores[j]] = [heapScores[j]!, heapScores[i]!];
  };
  const siftDown = (i: number) => {
    const n = heapDocs.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && worse(l, m)) m = l;
      if (r < n && worse(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  for (let t = 0; t < nTouched; t++) {
    const d = touched[t]!;
    const s = acc[d]!;
    if (heapDocs.length === k) {
      const rootScore = heapScores[0]!;
      if (s < rootScore || (s === rootScore && d > heapDocs[0]!)) continue;
    }
    if (filter && !filter(d)) continue;
    if (heapDocs.length < k) {
      heapDocs.push(d);
      heapScores.push(s);
      let i = heapDocs.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(i, parent)) break;
        swap(i, parent);
        i = parent;
      }
    } else {
      heapDocs[0] = d;
      heapScores[0] = s;
      siftDown(0);
    }
  }
  const out = heapDocs.map((doc, i) => ({ doc, score: heapScores[i]! }));
  out.sort((a, b) => b.score - a.score || a.doc - b.doc);
  return out;
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
