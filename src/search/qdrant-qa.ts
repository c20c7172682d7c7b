/**
 * Q&A similarity search on a Qdrant server. Searches go through a collection alias; reindexing fills a new
 * collection and repoints the alias in one atomic request, so searches never see a half-built collection.
 */
import { createHash } from 'node:crypto';
import { QdrantClient, QdrantClientTimeoutError, QdrantClientUnexpectedResponseError } from '@qdrant/js-client-rest';
import { createLogger } from '../logger.js';
import { formatQaPair, type Embedder, type ProgressFn, type QaPair, type QaSearch, type SearchHit } from './types.js';

/** Payload stored with each point: everything needed to rebuild the hit without another lookup. */
export type QdrantQaPayload = {
  pairId: string;
  question: string;
  answer: string;
  fileName: string;
  row: number;
};

/** Options of {@link QdrantQaSearch}. */
export interface QdrantQaSearchOptions {
  /** Base URL, e.g. `http://localhost:6333`. */
  url: string;
  /** Sent as the `api-key` header. */
  apiKey?: string | undefined;
  /** Alias that searches use; each reindex points it at a new `${collection}_${timestamp}` collection. */
  collection: string;
  embedder: Embedder;
  /** Texts per {@link Embedder.embed} call while reindexing (default 64). */
  embedBatchSize?: number;
  /** Points per upsert request (default 256). */
  upsertBatchSize?: number;
  /** Timeout of each HTTP request in ms (default 60 s). */
  requestTimeoutMs?: number;
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

  constructor(options: QdrantQaSearchOptions) {
    this.#url = options.url;
    this.#alias = options.collection;
    this.#embedder = options.embedder;
    this.#embedBatchSize = Math.max(1, options.embedBatchSize ?? 64);
    this.#upsertBatchSize = Math.max(1, options.upsertBatchSize ?? 256);
    this.#client = new QdrantClient({
      url: options.url,
      // An empty key from the environment means "no key"; the client would otherwise send an empty header.
      apiKey: options.apiKey || undefined,
      timeout: options.requestTimeoutMs ?? 60_000,
      // The built-in check fires a request from the constructor and reports through console.warn; ping() is the
      // place where the server is contacted.
      checkCompatibility: false,
    });
  }

  async search(query: string, k = 3): Promise<SearchHit[]> {
    const text = query.trim();
    if (!text) return [];
    const [vector] = await this.#embedder.embed([text]);
    if (!vector) throw new Error(`embedder ${this.#embedder.id} returned no vector for the query`);
    try {
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
            score: point.score,
          },
        ];
      });
    } catch (error) {
      if (isNotFound(error)) {
        this.#log.warn({ collection: this.#alias }, 'Q&A collection does not exist yet; run a reindex');
        return [];
      }
      throw this.#wrap(error, `query "${this.#alias}"`);
    }
  }

  async replaceAll(pairs: QaPair[], onProgress?: ProgressFn): Promise<void> {
    assertUniqueIds(pairs);
    const started = Date.now();
    // Checked before embedding, which is the slow (and possibly paid) part.
    const previous = await this.#aliasTarget();

    const vectors = await this.#embedAll(pairs, onProgress);
    const dims = await this.#dimensions(vectors);
    const build = `${this.#alias}_${buildStamp()}`;
    this.#log.info({ alias: this.#alias, build, pairs: pairs.length, dims, embedder: this.#embedder.id }, 'building Q&A collection');

    try {
      await this.#call(`create collection "${build}"`, () =>
        this.#client.createCollection(build, { vectors: { size: dims, distance: 'Cosine' } }),
      );
      await onProgress?.({ stage: 'upload', done: 0, total: pairs.length });
      for (let start = 0; start < pairs.length; start += this.#upsertBatchSize) {
        const batch = pairs.slice(start, start + this.#upsertBatchSize);
        const points = batch.map((pair, offset) => ({
          id: toQdrantPointId(pair.id),
          vector: Array.from(vectors[start + offset]!),
          payload: toPayload(pair),
        }));
        await this.#call(`upsert points ${start + 1}-${start + batch.length} into "${build}"`, () =>
          this.#client.upsert(build, { wait: true, points }),
        );
        await onProgress?.({ stage: 'upload', done: start + batch.length, total: pairs.length });
      }

      // One request, so there is no moment where the alias points nowhere.
      const actions = [
        ...(previous ? [{ delete_alias: { alias_name: this.#alias } }] : []),
        { create_alias: { collection_name: build, alias_name: this.#alias } },
      ];
      await this.#call(`point alias "${this.#alias}" at "${build}"`, () => this.#client.updateCollectionAliases({ actions }));
    } catch (error) {
      await this.#dropQuietly(build);
      throw error;
    }

    if (previous && previous !== build) {
      // The new collection is already live: a failed cleanup costs disk, not correctness.
      try {
        await this.#call(`delete previous collection "${previous}"`, () => this.#client.deleteCollection(previous));
      } catch (error) {
        this.#log.warn({ err: error, collection: previous }, 'could not delete the previous Q&A collection');
      }
    }
    this.#log.info({ alias: this.#alias, collection: build, pairs: pairs.length, ms: Date.now() - started }, 'Q&A collection replaced');
  }

  async count(): Promise<number> {
    try {
      const result = await this.#client.count(this.#alias, { exact: true });
      return result.count;
    } catch (error) {
      if (isNotFound(error)) return 0;
      throw this.#wrap(error, `count points in "${this.#alias}"`);
    }
  }

  async ping(): Promise<void> {
    await this.#call('version check', () => this.#client.versionInfo());
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

let lastStamp = 0;

/** `Date.now()`, but strictly increasing within the process so two quick rebuilds never pick the same name. */
function buildStamp(): number {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return lastStamp;
}

function toPayload(pair: QaPair): QdrantQaPayload {
  return { pairId: pair.id, question: pair.question, answer: pair.answer, fileName: pair.fileName, row: pair.row };
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
  return { pairId, question, answer, fileName, row: rowNumber };
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
}

function isHttpError(error: unknown): error is HttpError {
  return error instanceof Error && typeof (error as Partial<HttpError>).status === 'number';
}

function isNotFound(error: unknown): boolean {
  return isHttpError(error) && error.status === 404;
}

/** Qdrant puts the reason in `{ status: { error } }`. */
function serverReason(data: unknown): string | undefined {
  if (typeof data === 'string') return data || undefined;
  if (data && typeof data === 'object' && 'status' in data) {
    const status = (data as { status: unknown }).status;
    if (status && typeof status === 'object' && 'error' in status) return String((status as { error: unknown }).error);
  }
  return undefined;
}

/** Turns client errors into messages that say which server and which step, keeping the original as `cause`. */
function describeQdrantError(url: string, what: string, error: unknown): Error {
  if (isHttpError(error)) {
    const reason = serverReason(error.data) ?? error.message;
    const auth = error.status === 401 || error.status === 403 ? ' — check QDRANT_API_KEY' : '';
    return new Error(`Qdrant at ${url}: ${what} was refused with HTTP ${error.status}: ${reason}${auth}`, { cause: error });
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
