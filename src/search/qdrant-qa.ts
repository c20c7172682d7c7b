/**
 * Q&A similarity search on a Qdrant server. Searches go through a collection alias; reindexing fills a new
 * collection and repoints the alias in one request, so searches never see a half-built collection (Qdrant applies
 * the request's actions one by one, without rollback: see {@link QdrantQaSearch.replaceAll}'s alias switch).
 */
import { createHash } from 'node:crypto';
import {
  QdrantClient,
  QdrantClientResourceExhaustedError,
  QdrantClientTimeoutError,
  QdrantClientUnexpectedResponseError,
} from '@qdrant/js-client-rest';
import { createLogger, type Logger } from '../logger.js';
import { embedQuery } from './embeddings.js';
import { qaContentHash } from './index-builds.js';
import { formatQaPair, type Embedder, type ProgressFn, type QaPair, type QaSearch, type SearchHit } from './types.js';

/** Payload stored with each point: everything needed to rebuild the hit without another lookup. */
export type QdrantQaPayload = {
  pairId: string;
  question: string;
  answer: string;
  fileName: string;
  row: number;
  /** Learned pairs: the ticket that taught the pair. */
  ticketId?: string;
};

/** Options of {@link QdrantQaSearch}. */
export interface QdrantQaSearchOptions {
  /** Base URL, e.g. `http://localhost:6333`, `https://qdrant.example.com` (port 443) or `https://proxy/qdrant`. */
  url: string;
  /** Sent as the `api-key` header. */
  apiKey?: string | undefined;
  /** Alias that searches use; each reindex points it at a new `${collection}_${timestamp}` collection. */
  collection: string;
  embedder: Embedder;
  /** Texts per {@link Embedder.embed} call while reindexing (default 64). */
  embedBatchSize?: number;
  /** Most points per upsert request (default 256); a request also stays under {@link MAX_UPSERT_BODY_BYTES}. */
  upsertBatchSize?: number;
  /** Timeout of each HTTP request in ms (default 60 s). */
  requestTimeoutMs?: number;
}

/** Where the client connects: what {@link qdrantConnection} reads from a `QDRANT_URL`. */
export interface QdrantConnection {
  host: string;
  port: number;
  https: boolean;
  /** Path under which a proxy serves Qdrant, e.g. `/qdrant`; empty for none. */
  prefix: string;
}

/**
 * Reads `QDRANT_URL` the way a browser would. The client's own `url` option falls back to port 6333 when the URL
 * names none (so `https://qdrant.example.com` would reach port 6333, not 443) and ignores a path (so a proxy's
 * `https://proxy/qdrant` would reach the proxy's root); passing host, port, scheme and prefix avoids both.
 */
export function qdrantConnection(url: string): QdrantConnection {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`QDRANT_URL "${url}" is not a URL (expected e.g. http://localhost:6333)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`QDRANT_URL "${url}" must start with http:// or https://`);
  }
  const https = parsed.protocol === 'https:';
  const prefix = parsed.pathname.replace(/\/+$/, '');
  return {
    // An IPv6 literal keeps its brackets, which the client's `${host}:${port}` needs.
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : https ? 443 : 80,
    https,
    prefix,
  };
}

/** Namespace of the point ids, so ids derived from the same pair id differ from other applications' v5 UUIDs. */
const POINT_ID_NAMESPACE = 'helpdesk-worker/qa-pair';

/**
 * Qdrant point id for a pair id: a name-based (version 5 layout) UUID. Qdrant accepts only unsigned integers or
 * UUIDs, and deriving the id from the pair id makes a rebuild from the same CSV produce the same points.
 */
export function toQdrantPointId(pairId: string): string {
  const bytes = createHash('sha1').update(POINT_ID_NAMESPACE).update('\0').update(pairId).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Vector search over past questions and answers on a Qdrant server. */
export class QdrantQaSearch implements QaSearch {
  readonly kind = 'qdrant';

  readonly #client: QdrantClient;
  readonly #url: string;
  readonly #alias: string;
  readonly #embedder: Embedder;
  readonly #embedBatchSize: number;
  readonly #upsertBatchSize: number;
  readonly #log = createLogger('search', { backend: 'qdrant' });
  /** Last verdict of the embedder check, see {@link QdrantQaSearch.#builtBySameEmbedder}. */
  #checked: { at: number; ok: true } | { at: number; ok: false; error: EmbedderMismatchError } | undefined;
  /** What the last {@link replaceAll} of this instance indexed (learned pairs left out), for the build record. */
  #builtHash: string | undefined;

  constructor(options: QdrantQaSearchOptions) {
    this.#url = options.url;
    this.#alias = options.collection;
    this.#embedder = options.embedder;
    this.#embedBatchSize = Math.max(1, options.embedBatchSize ?? 64);
    this.#upsertBatchSize = Math.max(1, options.upsertBatchSize ?? 256);
    const connection = qdrantConnection(options.url);
    // An empty key from the environment means "no key"; the client would otherwise send an empty header.
    const apiKey = options.apiKey || undefined;
    if (apiKey && !connection.https) warnKeyOverHttpOnce(this.#log, options.url);
    this.#client = new QdrantClient({
      ...connection,
      // Sent as a plain header rather than `apiKey`, whose plain-http warning goes to the console on every
      // construction; warnKeyOverHttpOnce says it once, through the logger.
      ...(apiKey ? { headers: { 'api-key': apiKey } } : {}),
      timeout: options.requestTimeoutMs ?? 60_000,
      // The built-in check fires a request from the constructor and reports through console.warn; ping() is the
      // place where the server is contacted.
      checkCompatibility: false,
    });
  }

  async search(query: string, k = 3): Promise<SearchHit[]> {
    const text = query.trim();
    if (!text) return [];
    const vector = await embedQuery(this.#embedder, text);
    if (!vector) throw new Error(`embedder ${this.#embedder.id} returned no vector for the query`);
    try {
      if (!(await this.#builtBySameEmbedder(vector.length))) return [];
      const response = await this.#client.query(this.#alias, {
        query: Array.from(vector),
        limit: Math.max(1, Math.floor(k)),
        with_payload: true,
      });
      return response.points.flatMap((point) => {
        const payload = readPayload(point.payload);
        if (!payload) {
          this.#log.warn({ pointId: point.id, collection: this.#alias }, 'point without a Q&A payload skipped');
          return [];
        }
        return [
          {
            id: payload.pairId,
            fileName: `${payload.fileName}#${payload.row}`,
            content: formatQaPair(payload),
            ...(payload.ticketId ? { learnedFrom: payload.ticketId } : {}),
            score: point.score,
          },
        ];
      });
    } catch (error) {
      if (error instanceof EmbedderMismatchError) throw error;
      throw this.#wrap(error, `query "${this.#alias}"`);
    }
  }

  async replaceAll(pairs: QaPair[], onProgress?: ProgressFn): Promise<void> {
    assertUniqueIds(pairs);
    const started = Date.now();
    // Checked before embedding, which is the slow (and possibly paid) part.
    const previous = await this.#aliasTarget();
    await this.#dropStaleBuilds(previous);

    const vectors = await this.#embedAll(pairs, onProgress);
    const dims = await this.#dimensions(vectors);
    const build = `${this.#alias}_${buildStamp()}`;
    this.#log.info({ alias: this.#alias, build, pairs: pairs.length, dims, embedder: this.#embedder.id }, 'building Q&A collection');

    try {
      await this.#call(`create collection "${build}"`, () =>
        this.#client.createCollection(build, { vectors: { size: dims, distance: 'Cosine' } }),
      );
      // createCollection of client 1.18 drops `metadata`, so it is set in a second request.
      const metadata: CollectionEmbedderRecord = { embedder: this.#embedder.id, dims };
      await this.#call(`record the embedder of "${build}"`, () => this.#client.updateCollection(build, { metadata: { ...metadata } }));
      await onProgress?.({ stage: 'upload', done: 0, total: pairs.length });
      let done = 0;
      for (const points of upsertBatches(pairs, vectors, this.#upsertBatchSize, MAX_UPSERT_BODY_BYTES)) {
        await this.#call(`upsert points ${done + 1}-${done + points.length} into "${build}"`, () =>
          this.#client.upsert(build, { wait: true, points }),
        );
        done += points.length;
        await onProgress?.({ stage: 'upload', done, total: pairs.length });
      }
    } catch (error) {
      await this.#dropQuietly(build);
      throw error;
    }
    await this.#pointAliasAt(build, previous);
    this.#checked = { at: Date.now(), ok: true };

    if (previous && previous !== build) {
      // The new collection is already live: a failed cleanup costs disk, not correctness.
      try {
        await this.#call(`delete previous collection "${previous}"`, () => this.#client.deleteCollection(previous));
      } catch (error) {
        this.#log.warn({ err: error, collection: previous }, 'could not delete the previous Q&A collection');
      }
    }
    this.#builtHash = qaContentHash(pairs);
    this.#log.info({ alias: this.#alias, collection: build, pairs: pairs.length, ms: Date.now() - started }, 'Q&A collection replaced');
  }

  /** The content hash of the last collection this instance built; every machine searches that one collection. */
  builtHash(): string | undefined {
    return this.#builtHash;
  }

  /**
   * Embeds `pairs` and upserts them as points into the live collection (through the alias), so a learned pair is
   * searchable at once; the point id derives from the pair id, so an edited pair replaces its point. Refused, like
   * searches, when the collection was built by another embedder; fails when no reindex has created it yet.
   */
  async upsertPairs(pairs: QaPair[]): Promise<void> {
    if (pairs.length === 0) return;
    assertUniqueIds(pairs);
    const vectors = await this.#embedAll(pairs);
    const dims = await this.#dimensions(vectors);
    if (!(await this.#builtBySameEmbedder(dims))) {
      throw new Error(`Qdrant at ${this.#url}: Q&A collection "${this.#alias}" does not exist yet; run a reindex first`);
    }
    const points = pairs.map((pair, i) => ({ id: toQdrantPointId(pair.id), vector: Array.from(vectors[i]!), payload: toPayload(pair) }));
    await this.#call(`upsert ${points.length} points into "${this.#alias}"`, () => this.#client.upsert(this.#alias, { wait: true, points }));
  }

  /** Deletes the points of `ids` from the live collection (ids not there are no error, as in Qdrant). */
  async removePairs(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.#client.delete(this.#alias, { wait: true, points: ids.map(toQdrantPointId) });
    } catch (error) {
      // Nothing to remove from a collection that does not exist.
      if (isCollectionMissing(error)) return;
      throw this.#wrap(error, `delete ${ids.length} points from "${this.#alias}"`);
    }
  }

  async count(): Promise<number> {
    try {
      const result = await this.#client.count(this.#alias, { exact: true });
      return result.count;
    } catch (error) {
      if (isCollectionMissing(error)) return 0;
      throw this.#wrap(error, `count points in "${this.#alias}"`);
    }
  }

  /** Lists the collections: unlike `GET /` or `/healthz`, Qdrant answers it only with a valid key. */
  async ping(): Promise<void> {
    await this.#call('list collections', () => this.#client.getCollections());
  }

  /**
   * Moves the alias from `previous` to `build` in one request (delete + create, the pattern of Qdrant's docs), so
   * there is no moment where it points nowhere. When the request fails the switch may still have happened (a time-out
   * after the server applied it, a proxy error on the way back): the aliases are read again, and `build` is dropped
   * only when the alias does not point at it — deleting a collection deletes the aliases that point to it, which
   * would leave searches with nothing.
   *
   * Qdrant applies the actions one by one and keeps each at once, with no rollback (`update_aliases`): when
   * create_alias fails after delete_alias succeeded (`build` vanished meanwhile), the alias is gone. Then it is
   * pointed back at `previous`, so searches keep their answers; the reindex still fails.
   */
  async #pointAliasAt(build: string, previous: string | undefined): Promise<void> {
    const actions = [
      ...(previous ? [{ delete_alias: { alias_name: this.#alias } }] : []),
      { create_alias: { collection_name: build, alias_name: this.#alias } },
    ];
    try {
      await this.#call(`point alias "${this.#alias}" at "${build}"`, () => this.#client.updateCollectionAliases({ actions }));
      return;
    } catch (error) {
      let target: string | undefined;
      try {
        const { aliases } = await this.#client.getAliases();
        target = aliases.find((alias) => alias.alias_name === this.#alias)?.collection_name;
      } catch (readError) {
        // Unknown outcome: keep the build (it may be live); the next reindex removes it once it is stale and unused.
        this.#log.warn({ err: readError, build }, 'alias switch failed and the aliases cannot be read; keeping the new collection');
        throw error;
      }
      if (target !== build) {
        // No target: the delete was applied and the create was not. Another target: another process switched the
        // alias since; leave that alone.
        if (target === undefined && previous) await this.#restoreAlias(previous, build, error);
        await this.#dropQuietly(build);
        throw error;
      }
      this.#log.warn({ err: error, alias: this.#alias, collection: build }, 'the alias switch reported an error but was applied');
    }
  }

  /**
   * Points the alias back at `previous` after a switch that deleted it and failed to create it. Qdrant checks that
   * `previous` still exists when it applies the action. Another process's switch between our read of the aliases and
   * this request would be overwritten with `previous`; reindexes take a lock in Redis (`withReindexLock`,
   * src/queues/redis-lock.ts), so only a reindex run past it (a second deployment on the same Qdrant) could do that.
   * Failing here is logged, not thrown: the caller throws the switch's own error.
   */
  async #restoreAlias(previous: string, build: string, switchError: unknown): Promise<void> {
    const actions = [{ create_alias: { collection_name: previous, alias_name: this.#alias } }];
    try {
      await this.#call(`point alias "${this.#alias}" back at "${previous}"`, () => this.#client.updateCollectionAliases({ actions }));
      this.#log.warn(
        { err: switchError, alias: this.#alias, collection: previous, build },
        'the alias switch deleted the alias and then failed; pointed it back at the previous Q&A collection',
      );
    } catch (restoreError) {
      this.#log.error(
        { err: restoreError, switchError, alias: this.#alias, collection: previous, build },
        'the alias switch deleted the alias and then failed, and the alias cannot be restored: Q&A searches find nothing until a reindex succeeds',
      );
    }
  }

  /**
   * Whether the live collection was built by this process's embedder. Another model's vectors of the same size give
   * meaningless neighbours, and another size fails every query, so a mismatch refuses searches until a reindex.
   * The verdict is kept for a minute: another process may repoint the alias at any time, but not every query needs
   * to ask.
   */
  async #builtBySameEmbedder(queryDims: number): Promise<boolean> {
    const now = Date.now();
    if (this.#checked && now - this.#checked.at < EMBEDDER_CHECK_TTL_MS) {
      if (!this.#checked.ok) throw this.#checked.error;
      return true;
    }
    let info;
    try {
      info = await this.#client.getCollection(this.#alias);
    } catch (error) {
      if (isCollectionMissing(error)) {
        this.#log.warn({ collection: this.#alias }, 'Q&A collection does not exist yet; run a reindex');
        return false;
      }
      throw error;
    }
    const vectors = info.config.params.vectors as { size?: number } | undefined;
    const size = typeof vectors?.size === 'number' ? vectors.size : undefined;
    const record = readEmbedderRecord(info.config.metadata);
    let problem: string | undefined;
    if (record && record.embedder !== this.#embedder.id) {
      problem = `was built with embedder ${record.embedder} (${record.dims} dimensions), but this process embeds with ${this.#embedder.id} (${queryDims})`;
    } else if (size !== undefined && size !== queryDims) {
      problem = `holds ${size}-dimensional vectors, but embedder ${this.#embedder.id} gives ${queryDims}`;
    } else if (!record) {
      this.#log.warn({ collection: this.#alias }, 'Q&A collection does not record its embedder (built by an older version); reindex to record it');
    }
    if (problem) {
      const error = new EmbedderMismatchError(
        `Qdrant at ${this.#url}: Q&A collection "${this.#alias}" ${problem}; run a reindex (or restore EMBEDDINGS_PROVIDER / EMBEDDING_MODEL)`,
      );
      this.#checked = { at: now, ok: false, error };
      throw error;
    }
    this.#checked = { at: now, ok: true };
    return true;
  }

  /**
   * Deletes collections named like this alias's builds that are older than an hour and that no alias points at:
   * leftovers of a reindex that crashed between create and switch. The age spares a build another process is
   * filling right now.
   */
  async #dropStaleBuilds(live: string | undefined): Promise<void> {
    const [{ aliases }, { collections }] = await Promise.all([
      this.#call('list aliases', () => this.#client.getAliases()),
      this.#call('list collections', () => this.#client.getCollections()),
    ]);
    const used = new Set(aliases.map((alias) => alias.collection_name));
    if (live) used.add(live);
    const pattern = new RegExp(`^${escapeRegExp(this.#alias)}_(\\d{13,})$`);
    for (const { name } of collections) {
      const stamp = pattern.exec(name)?.[1];
      if (!stamp || used.has(name) || Date.now() - Number(stamp) < STALE_BUILD_AGE_MS) continue;
      try {
        await this.#call(`delete stale build "${name}"`, () => this.#client.deleteCollection(name));
        this.#log.info({ collection: name }, 'deleted a Q&A collection left over by an unfinished reindex');
      } catch (error) {
        this.#log.warn({ err: error, collection: name }, 'could not delete a stale Q&A build collection');
      }
    }
  }

  /**
   * The collection the alias points at now, or undefined before the first reindex. Fails when a real collection
   * already carries the alias name: Qdrant would refuse the alias only after all the embedding work.
   */
  async #aliasTarget(): Promise<string | undefined> {
    const [{ aliases }, { collections }] = await Promise.all([
      this.#call('list aliases', () => this.#client.getAliases()),
      this.#call('list collections', () => this.#client.getCollections()),
    ]);
    if (collections.some((collection) => collection.name === this.#alias)) {
      throw new Error(
        `Qdrant at ${this.#url}: "${this.#alias}" is a collection, but it must be free to serve as the alias of the ` +
          'Q&A collection; delete or rename that collection, or set QDRANT_COLLECTION to another name',
      );
    }
    return aliases.find((alias) => alias.alias_name === this.#alias)?.collection_name;
  }

  async #embedAll(pairs: QaPair[], onProgress?: ProgressFn): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    await onProgress?.({ stage: 'embed', done: 0, total: pairs.length });
    for (let start = 0; start < pairs.length; start += this.#embedBatchSize) {
      const batch = pairs.slice(start, start + this.#embedBatchSize);
      const embedded = await this.#embedder.embed(batch.map(formatQaPair));
      if (embedded.length !== batch.length) {
        throw new Error(`embedder ${this.#embedder.id} returned ${embedded.length} vectors for ${batch.length} texts`);
      }
      vectors.push(...embedded);
      await onProgress?.({ stage: 'embed', done: start + batch.length, total: pairs.length });
    }
    return vectors;
  }

  /** The collection's vector size; with no pairs, a probe embedding still tells it so an empty collection can exist. */
  async #dimensions(vectors: Float32Array[]): Promise<number> {
    const sample = vectors[0] ?? (await this.#embedder.embed([formatQaPair({ question: '', answer: '' })]))[0];
    const dims = sample?.length ?? 0;
    if (dims === 0) throw new Error(`embedder ${this.#embedder.id} returned an empty vector`);
    const odd = vectors.findIndex((vector) => vector.length !== dims);
    if (odd >= 0) throw new Error(`embedder ${this.#embedder.id} returned vectors of ${dims} and ${vectors[odd]!.length} dimensions`);
    return dims;
  }

  async #dropQuietly(collection: string): Promise<void> {
    try {
      await this.#client.deleteCollection(collection);
    } catch (error) {
      this.#log.warn({ err: error, collection }, 'could not delete the unfinished Q&A collection');
    }
  }

  async #call<T>(what: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.#wrap(error, what);
    }
  }

  #wrap(error: unknown, what: string): Error {
    return describeQdrantError(this.#url, what, error);
  }
}

/**
 * Most JSON bytes in one upsert request: half of Qdrant's default request limit (`service.max_request_size_mb`,
 * 32 MiB), which a batch of 256 points passes with 3072-dimensional vectors (about 20 bytes a number) and answers of
 * some 25,000 characters; pairs from CSV files and workbooks have no length cap.
 */
export const MAX_UPSERT_BODY_BYTES = 16 * 1024 * 1024;

/** A point as upserted. */
interface QdrantPoint {
  id: string;
  vector: number[];
  payload: QdrantQaPayload;
}

/**
 * Splits the points of `pairs` (with `vectors` in the same order) into upsert batches of at most `maxPoints` points
 * and `maxBytes` of JSON, measured as the client serialises them. A point larger than `maxBytes` alone goes alone, so
 * that Qdrant names its refusal.
 */
function* upsertBatches(pairs: QaPair[], vectors: Float32Array[], maxPoints: number, maxBytes: number): Generator<QdrantPoint[]> {
  // `{"points":[` and `]}` around the points, and a comma before each but the first.
  const envelope = Buffer.byteLength('{"points":[]}');
  let batch: QdrantPoint[] = [];
  let bytes = envelope;
  for (const [i, pair] of pairs.entries()) {
    const point = { id: toQdrantPointId(pair.id), vector: Array.from(vectors[i]!), payload: toPayload(pair) };
    const size = Buffer.byteLength(JSON.stringify(point));
    if (batch.length > 0 && (batch.length >= maxPoints || bytes + 1 + size > maxBytes)) {
      yield batch;
      batch = [];
      bytes = envelope;
    }
    bytes += (batch.length > 0 ? 1 : 0) + size;
    batch.push(point);
  }
  if (batch.length > 0) yield batch;
}

/** How long a verdict of the embedder check stands before the collection is asked again. */
const EMBEDDER_CHECK_TTL_MS = 60_000;
/** A build collection this old that no alias uses is a leftover, not a reindex in progress. */
export const STALE_BUILD_AGE_MS = 60 * 60_000;

/** What a Q&A collection records about the vectors in it (collection `metadata`). */
export interface CollectionEmbedderRecord {
  /** {@link Embedder.id} of the embedder that built the collection. */
  embedder: string;
  dims: number;
}

/** The live collection was built by another embedder than the one this process queries with. */
export class EmbedderMismatchError extends Error {
  override readonly name = 'EmbedderMismatchError';
}

function readEmbedderRecord(metadata: unknown): CollectionEmbedderRecord | undefined {
  if (!metadata || typeof metadata !== 'object') return undefined;
  const { embedder, dims } = metadata as Record<string, unknown>;
  if (typeof embedder !== 'string') return undefined;
  const size = typeof dims === 'bigint' ? Number(dims) : dims;
  return { embedder, dims: typeof size === 'number' ? size : 0 };
}

let warnedKeyOverHttp = false;

/** The key travels in clear text over http: worth saying, once per process rather than once per client. */
function warnKeyOverHttpOnce(log: Logger, url: string): void {
  if (warnedKeyOverHttp) return;
  warnedKeyOverHttp = true;
  log.warn({ url }, 'QDRANT_API_KEY is sent over plain http; use https unless Qdrant is on a private network');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

let lastStamp = 0;

/** `Date.now()`, but strictly increasing within the process so two quick rebuilds never pick the same name. */
function buildStamp(): number {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return lastStamp;
}

function toPayload(pair: QaPair): QdrantQaPayload {
  return { pairId: pair.id, question: pair.question, answer: pair.answer, fileName: pair.fileName, row: pair.row, ...(pair.ticketId ? { ticketId: pair.ticketId } : {}) };
}

function readPayload(payload: Record<string, unknown> | null | undefined): QdrantQaPayload | undefined {
  if (!payload) return undefined;
  const { pairId, question, answer, fileName, row } = payload;
  if (typeof pairId !== 'string' || typeof question !== 'string' || typeof answer !== 'string' || typeof fileName !== 'string') {
    return undefined;
  }
  // Integers may come back as bigint: the client parses JSON with a bigint-aware reviver.
  const rowNumber = typeof row === 'bigint' ? Number(row) : row;
  if (typeof rowNumber !== 'number') return undefined;
  const ticketId = typeof payload.ticketId === 'string' ? payload.ticketId : undefined;
  return { pairId, question, answer, fileName, row: rowNumber, ...(ticketId ? { ticketId } : {}) };
}

/** Two pairs with one id would map to one point and silently lose a pair. */
function assertUniqueIds(pairs: QaPair[]): void {
  const seen = new Set<string>();
  for (const pair of pairs) {
    if (seen.has(pair.id)) throw new Error(`duplicate Q&A pair id "${pair.id}"`);
    seen.add(pair.id);
  }
}

/** Shape of the client's HTTP errors (`ApiError` of its fetch layer, which the package does not re-export). */
interface HttpError extends Error {
  status: number;
  data?: unknown;
  headers?: Headers;
}

function isHttpError(error: unknown): error is HttpError {
  return error instanceof Error && typeof (error as Partial<HttpError>).status === 'number';
}

/**
 * Qdrant's own answer for a collection or alias that does not exist yet. Any other 404 (a proxy, a wrong path in
 * QDRANT_URL) is an error, not an empty index.
 */
function isCollectionMissing(error: unknown): boolean {
  return isHttpError(error) && error.status === 404 && /^Not found: Collection\b/.test(serverReason(error.data) ?? '');
}

/** Qdrant puts the reason in `{ status: { error } }`; undefined for any other body. */
function serverReason(data: unknown): string | undefined {
  if (data && typeof data === 'object' && 'status' in data) {
    const status = (data as { status: unknown }).status;
    if (status && typeof status === 'object' && 'error' in status) return String((status as { error: unknown }).error);
  }
  return undefined;
}

/** The readable text of a response body, without markup, short enough for one log line. */
function bodySnippet(data: unknown): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data ?? '');
  // No tag closes after the last `>`: the pattern reads only up to it, or each `<` of a proxy's page of unclosed
  // markup would read the rest of the body again (security review 15).
  const tagsEnd = text.lastIndexOf('>') + 1;
  return (text.slice(0, tagsEnd).replace(/<[^>]*>/g, ' ') + text.slice(tagsEnd)).replace(/\s+/g, ' ').trim().slice(0, 120);
}

/** A body that is not Qdrant's JSON (a proxy's HTML error page, a plain-text refusal), shortened for a log line. */
function foreignBody(error: HttpError): string {
  const type = error.headers?.get?.('content-type') ?? 'unknown type';
  const snippet = bodySnippet(error.data);
  return `a response that is not Qdrant's (${type})${snippet ? `: ${snippet}` : ''}`;
}

/** Turns client errors into messages that say which server and which step, keeping the original as `cause`. */
function describeQdrantError(url: string, what: string, error: unknown): Error {
  if (error instanceof QdrantClientResourceExhaustedError) {
    return new Error(`Qdrant at ${url}: ${what} was rate-limited (HTTP 429); retry after ${error.retry_after} s`, { cause: error });
  }
  if (isHttpError(error)) {
    const reason = serverReason(error.data);
    const auth = error.status === 401 || error.status === 403 ? ' — check QDRANT_API_KEY' : '';
    if (error.status === 429) {
      return new Error(`Qdrant at ${url}: ${what} was rate-limited (HTTP 429): ${reason ?? error.message}`, { cause: error });
    }
    // Qdrant itself refuses a key in plain text; other statuses without its JSON come from something in between.
    if (reason === undefined && !auth) {
      return new Error(`Qdrant at ${url}: ${what} got HTTP ${error.status} with ${foreignBody(error)}`, { cause: error });
    }
    return new Error(`Qdrant at ${url}: ${what} was refused with HTTP ${error.status}: ${reason ?? bodySnippet(error.data)}${auth}`, {
      cause: error,
    });
  }
  if (error instanceof QdrantClientTimeoutError) {
    return new Error(`Qdrant at ${url}: ${what} timed out`, { cause: error });
  }
  if (error instanceof QdrantClientUnexpectedResponseError) {
    return new Error(`Qdrant at ${url}: ${what} got an unexpected response: ${error.message}`, { cause: error });
  }
  if (error instanceof TypeError) {
    // fetch failures: "fetch failed" with the errno (ECONNREFUSED, ENOTFOUND…) in `cause`.
    const inner = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return new Error(`Qdrant at ${url} is unreachable (${what}): ${error.message}${inner}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`Qdrant at ${url}: ${what} failed: ${message}`, { cause: error });
}
