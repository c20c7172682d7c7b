/**
 * Embedders: the OpenAI-compatible embeddings API, a local hashed n-gram stand-in, and a persistent cache in front
 * of either so a reindex only pays for texts it has not embedded before.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type OpenAI from 'openai';
import type { Config } from '../config.js';
import { createLogger } from '../logger.js';
import { createOpenAIClient } from '../openai.js';
import { charNgrams, normalizeText, tokenize, UNIGRAM_PREFIX } from './tokenize.js';
import type { Embedder } from './types.js';

const log = createLogger('search', { component: 'embeddings' });

/**
 * Builds the configured embedder wrapped in a {@link CachedEmbedder} under `DATA_DIR/embedding-cache`.
 * `EMBEDDINGS_PROVIDER=local` gives the {@link HashedNgramEmbedder}; otherwise the OpenAI-compatible server.
 * No I/O happens until the first `embed`.
 */
export function createEmbedder(config: Config): Embedder {
  const inner: Embedder =
    config.EMBEDDINGS_PROVIDER === 'local'
      ? new HashedNgramEmbedder({ dimensions: config.EMBEDDING_DIMENSIONS })
      : new OpenAIEmbedder({ client: createOpenAIClient(config), model: config.EMBEDDING_MODEL, batchSize: config.EMBEDDING_BATCH_SIZE });
  return new CachedEmbedder({ inner, dir: path.join(config.DATA_DIR, 'embedding-cache') });
}

/** Embeddings from an OpenAI-compatible `/embeddings` endpoint, in batches, order preserved. */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  private readonly client: OpenAI;
  private readonly model: string;
  private readonly batchSize: number;

  constructor({ client, model, batchSize }: { client: OpenAI; model: string; batchSize: number }) {
    this.client = client;
    this.model = model;
    this.batchSize = Math.max(1, Math.floor(batchSize));
    this.id = `openai:${model}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      // The API rejects empty strings; a single space embeds "nothing" without failing the whole batch.
      const batch = texts.slice(start, start + this.batchSize).map((t) => (t.trim() === '' ? ' ' : t));
      const started = performance.now();
      // 'float' explicitly: without it the SDK asks for base64 and decodes blindly, which corrupts the vectors of
      // compatible servers that ignore encoding_format and answer with plain arrays.
      const res = await this.client.embeddings.create({ model: this.model, input: batch, encoding_format: 'float' });
      const data = [...res.data].sort((a, b) => a.index - b.index);
      if (data.length !== batch.length) {
        throw new Error(`embeddings: asked for ${batch.length} vectors, got ${data.length} (model ${this.model})`);
      }
      for (const d of data) out.push(toFloat32(d.embedding as unknown));
      log.debug({ model: this.model, batch: batch.length, ms: Math.round(performance.now() - started) }, 'embedded batch');
    }
    return out;
  }
}

function toFloat32(embedding: unknown): Float32Array {
  if (Array.isArray(embedding)) return Float32Array.from(embedding as number[]);
  if (typeof embedding === 'string') {
    const buf = Buffer.from(embedding, 'base64');
    return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  }
  throw new Error('embeddings: unexpected embedding format in response');
}

/**
 * A lexical stand-in for an embedding model, for running without any network or model: signed feature hashing of
 * the tokenize.ts terms (words, CJK bigrams, kanji unigrams at low weight) plus character trigrams into a fixed
 * number of dimensions, sublinear term frequency, L2-normalised. Texts that share wording land close together;
 * synonyms and paraphrases with different wording do not — it is not a semantic model.
 */
export class HashedNgramEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;

  constructor({ dimensions }: { dimensions: number }) {
    if (!Number.isInteger(dimensions) || dimensions < 1) throw new Error(`invalid embedding dimensions ${dimensions}`);
    this.dimensions = dimensions;
    this.id = `hashed-ngram:${dimensions}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  /** Synchronous form of {@link embed} for one text. */
  embedOne(text: string): Float32Array {
    const normalized = normalizeText(text);
    const features = new Map<string, number>();
    for (const t of tokenize(normalized, { normalized: true, kanjiUnigrams: true })) {
      const key = t.startsWith(UNIGRAM_PREFIX) ? `u${t}` : `t${t}`;
      features.set(key, (features.get(key) ?? 0) + 1);
    }
    for (const g of charNgrams(normalized, 3, { normalized: true })) features.set(`g${g}`, (features.get(`g${g}`) ?? 0) + 1);
    const v = new Float32Array(this.dimensions);
    for (const [feature, tf] of features) {
      const kind = feature.charCodeAt(0);
      // Unigrams are weak evidence (shared kanji), trigrams overlap the tokens: both weigh less than a token.
      const weight = kind === 0x75 /* u */ ? 0.4 : kind === 0x67 /* g */ ? 0.6 : 1;
      const h = fnv1a(feature);
      const index = (h >>> 0) % this.dimensions;
      const sign = mix32(h) & 1 ? -1 : 1;
      v[index] = v[index]! + sign * weight * (1 + Math.log(tf));
    }
    let sum = 0;
    for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
    if (sum > 0) {
      const inv = 1 / Math.sqrt(sum);
      for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
    }
    return v;
  }
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3 finaliser: decorrelates the sign bit from the bucket index taken from the same hash. */
function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const RECORD_MAGIC = 0x31424d45; // "EMB1" little-endian
const RECORD_HEAD = 12; // magic, dims, crc32
const KEY_BYTES = 32;

/** Hit/miss counters of a {@link CachedEmbedder}. */
export interface EmbeddingCacheStats {
  /** Texts answered without the inner embedder. */
  hits: number;
  /** Texts sent to the inner embedder. */
  misses: number;
  entries: number;
}

/** An embedder that can embed without persisting: {@link CachedEmbedder}'s query path. */
export interface TransientEmbedder extends Embedder {
  embedTransient(texts: string[]): Promise<Float32Array[]>;
}

/**
 * The vector of a search query. Through {@link CachedEmbedder.embedTransient} when the embedder has it: a customer's
 * question is a one-off text, and persisting it would grow the cache file (loaded whole by every worker) with text
 * that is never asked again and outlives the customer's erasure.
 */
export async function embedQuery(embedder: Embedder, query: string): Promise<Float32Array | undefined> {
  const e = embedder as Partial<TransientEmbedder>;
  const [v] = typeof e.embedTransient === 'function' ? await e.embedTransient.call(embedder, [query]) : await embedder.embed([query]);
  return v;
}

/**
 * Persistent embedding cache in front of another {@link Embedder}. Keys are sha256(embedder id + text), so a change
 * of model or dimensions never serves stale vectors. Storage is one append-only file per embedder id under `dir`:
 * records of `magic, dims, crc32, key, float32[dims]`; loading is one read and a linear scan, and a torn or foreign
 * record is skipped by its checksum instead of poisoning the rest. Only misses reach the inner embedder.
 */
export class CachedEmbedder implements Embedder {
  readonly id: string;
  readonly inner: Embedder;
  private readonly file: string;
  private entries: Map<string, Float32Array> | undefined;
  private loading: Promise<Map<string, Float32Array>> | undefined;
  /** Query vectors that are not worth persisting (see {@link embedTransient}); small and bounded. */
  private readonly transient = new Map<string, Float32Array>();
  private readonly transientLimit = 256;
  private appendChain: Promise<unknown> = Promise.resolve();
  private hits = 0;
  private misses = 0;

  constructor({ inner, dir }: { inner: Embedder; dir: string }) {
    this.inner = inner;
    this.id = inner.id;
    const shard = createHash('sha256').update(inner.id).digest('hex').slice(0, 16);
    this.file = path.join(dir, `${shard}.bin`);
  }

  /** The cache file of this embedder id. */
  get cacheFile(): string {
    return this.file;
  }

  /** Vectors for `texts` in order; misses are embedded in one call to the inner embedder and appended to disk. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    return this.lookup(texts, true);
  }

  /**
   * Like {@link embed} but misses are only kept in a small in-memory map: search queries are one-off texts, and
   * persisting each would grow the cache file without ever being hit again.
   */
  async embedTransient(texts: string[]): Promise<Float32Array[]> {
    return this.lookup(texts, false);
  }

  /** Counters since construction, and entries currently loaded. */
  stats(): EmbeddingCacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.entries?.size ?? 0 };
  }

  private async lookup(texts: string[], persist: boolean): Promise<Float32Array[]> {
    const entries = await this.load();
    const keys = texts.map((t) => this.keyOf(t));
    const out: (Float32Array | undefined)[] = keys.map((k) => entries.get(k) ?? (persist ? undefined : this.transient.get(k)));
    const missIndex = new Map<string, number[]>();
    out.forEach((v, i) => {
      if (v) return;
      const list = missIndex.get(keys[i]!);
      if (list) list.push(i);
      else missIndex.set(keys[i]!, [i]);
    });
    // A text repeated within one call is embedded once; its repeats count as hits.
    this.hits += texts.length - missIndex.size;
    if (missIndex.size > 0) {
      const missKeys = [...missIndex.keys()];
      const missTexts = missKeys.map((k) => texts[missIndex.get(k)![0]!]!);
      this.misses += missTexts.length;
      const vectors = await this.inner.embed(missTexts);
      if (vectors.length !== missTexts.length) throw new Error(`embedder ${this.id} returned ${vectors.length} vectors for ${missTexts.length} texts`);
      missKeys.forEach((k, j) => {
        const v = vectors[j]!;
        for (const i of missIndex.get(k)!) out[i] = v;
        if (persist) entries.set(k, v);
        else this.remember(k, v);
      });
      if (persist) await this.append(missKeys, vectors);
    }
    return out as Float32Array[];
  }

  private remember(key: string, v: Float32Array): void {
    if (this.transient.size >= this.transientLimit) this.transient.delete(this.transient.keys().next().value!);
    this.transient.set(key, v);
  }

  private keyOf(text: string): string {
    return createHash('sha256').update(this.id).update('\u0000').update(text).digest('base64');
  }

  private load(): Promise<Map<string, Float32Array>> {
    if (this.entries) return Promise.resolve(this.entries);
    this.loading ??= readCacheFile(this.file).then((m) => (this.entries = m));
    return this.loading;
  }

  private append(keys: string[], vectors: Float32Array[]): Promise<void> {
    let size = 0;
    for (const v of vectors) size += RECORD_HEAD + KEY_BYTES + 4 * v.length;
    const buf = Buffer.alloc(size);
    let pos = 0;
    keys.forEach((k, i) => {
      const v = vectors[i]!;
      const body = Buffer.concat([Buffer.from(k, 'base64'), Buffer.from(v.buffer, v.byteOffset, v.byteLength)]);
      buf.writeUInt32LE(RECORD_MAGIC, pos);
      buf.writeUInt32LE(v.length, pos + 4);
      buf.writeUInt32LE(crc32(body), pos + 8);
      body.copy(buf, pos + RECORD_HEAD);
      pos += RECORD_HEAD + body.length;
    });
    // One append per batch; O_APPEND keeps concurrent writers (other processes) from overwriting each other.
    const run = this.appendChain.then(async () => {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      await fs.appendFile(this.file, buf);
    });
    this.appendChain = run.catch((err: unknown) => log.warn({ file: this.file, err: String(err) }, 'embedding cache append failed'));
    return run.catch(() => undefined);
  }
}

async function readCacheFile(file: string): Promise<Map<string, Float32Array>> {
  const started = performance.now();
  const map = new Map<string, Float32Array>();
  let buf: Buffer;
  try {
    buf = await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return map;
    throw err;
  }
  let pos = 0;
  let skipped = 0;
  while (pos + RECORD_HEAD + KEY_BYTES <= buf.length) {
    const dims = buf.readUInt32LE(pos + 4);
    const end = pos + RECORD_HEAD + KEY_BYTES + 4 * dims;
    if (buf.readUInt32LE(pos) !== RECORD_MAGIC || dims === 0 || end > buf.length || crc32(buf.subarray(pos + RECORD_HEAD, end)) !== buf.readUInt32LE(pos + 8)) {
      // Torn tail of an interrupted append, or garbage: step one byte and look for the next record.
      pos++;
      skipped++;
      continue;
    }
    const keyStart = pos + RECORD_HEAD;
    const key = buf.toString('base64', keyStart, keyStart + KEY_BYTES);
    const dataStart = keyStart + KEY_BYTES;
    const aligned = (buf.byteOffset + dataStart) % 4 === 0;
    const vector = aligned
      ? new Float32Array(buf.buffer, buf.byteOffset + dataStart, dims)
      : new Float32Array(buf.buffer.slice(buf.byteOffset + dataStart, buf.byteOffset + end));
    map.set(key, vector);
    pos = end;
  }
  if (skipped > 0) log.warn({ file, skippedBytes: skipped }, 'embedding cache had unreadable bytes; those entries will be re-embedded');
  log.debug({ file, entries: map.size, ms: Math.round(performance.now() - started) }, 'embedding cache loaded');
  return map;
}
