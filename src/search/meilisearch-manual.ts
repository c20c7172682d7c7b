/**
 * Manual search on a Meilisearch server. Reindexing builds a fresh index beside the live one and swaps the two
 * (`POST /swap-indexes`), so searches keep answering from the old data until the new index is complete.
 */
import { createHash } from 'node:crypto';
import {
  Meilisearch,
  MeilisearchApiError,
  MeilisearchRequestError,
  MeilisearchRequestTimeOutError,
  MeilisearchTaskTimeOutError,
  type EnqueuedTask,
  type IndexSwap,
  type Settings,
  type Task,
} from 'meilisearch';
import { createLogger } from '../logger.js';
import { manualContentHash } from './index-builds.js';
import { fitQueryWords } from './query-words.js';
import type { ManualChunk, ManualSearch, ProgressFn, SearchHit } from './types.js';

/** How the manual is stored in Meilisearch: one document per chunk. */
export interface MeiliManualDocument {
  /** {@link toMeiliDocumentId} of `chunkId`; Meilisearch ids only allow `[A-Za-z0-9_-]`. */
  id: string;
  /** The original {@link ManualChunk.id}, reported back as the hit id. */
  chunkId: string;
  fileName: string;
  heading: string;
  content: string;
}

/** Options of {@link MeilisearchManualSearch}. */
export interface MeilisearchManualSearchOptions {
  /** Base URL, e.g. `http://localhost:7700`. */
  host: string;
  /** Master or admin key; sent as `Authorization: Bearer …`. */
  apiKey?: string | undefined;
  /** Index uid that searches use; reindexing swaps a freshly built index into it. */
  index: string;
  /** Documents per `POST /documents` request while reindexing (default 1000). */
  batchSize?: number;
  /** Longest wait for one Meilisearch task, in ms (default 10 minutes: large batches index slowly). */
  taskTimeoutMs?: number;
  /** Task polling interval in ms (default 100). */
  taskPollIntervalMs?: number;
  /** Timeout of each HTTP request in ms (default 30 s). */
  requestTimeoutMs?: number;
}

/** Attributes searched, in ranking order: a heading match says more about a chunk than a body match. */
const SEARCHABLE_ATTRIBUTES = ['heading', 'content', 'fileName'];
/** Spelled out rather than left at `*`, so a stray field in a document never reaches the agent. */
const DISPLAYED_ATTRIBUTES = ['id', 'chunkId', 'fileName', 'heading', 'content'];
const RETRIEVED_ATTRIBUTES = ['chunkId', 'fileName', 'heading', 'content'];

/**
 * The index settings every build gets. The manual is Japanese: without `localizedAttributes` Meilisearch guesses the
 * language per field, and short kanji-only text — a heading, a file name such as 操作手順.pdf — is easily detected
 * as Chinese, which segments words differently. Every searchable attribute is therefore listed.
 */
export const MANUAL_INDEX_SETTINGS: Settings = {
  searchableAttributes: SEARCHABLE_ATTRIBUTES,
  displayedAttributes: DISPLAYED_ATTRIBUTES,
  localizedAttributes: [{ attributePatterns: SEARCHABLE_ATTRIBUTES, locales: ['jpn'] }],
};

/** A build index this old is a leftover of a crashed reindex, not one in progress. */
export const STALE_BUILD_AGE_MS = 60 * 60_000;

/** Search-time locale; must agree with the indexing locale above or the query is segmented differently. */
const SEARCH_LOCALES = ['jpn'];

const MAX_ID_PREFIX = 200;

/**
 * Meilisearch document id for a chunk id. Disallowed characters (`#`, `.`, Japanese file names…) become `_`; the hash
 * suffix keeps ids unique when two chunk ids sanitise alike, and stable so rebuilding yields the same ids.
 */
export function toMeiliDocumentId(chunkId: string): string {
  const readable = chunkId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_ID_PREFIX);
  const digest = createHash('sha256').update(chunkId).digest('hex').slice(0, 16);
  return `${readable}-${digest}`;
}

/** Full-text search over the manual on a Meilisearch server. */
export class MeilisearchManualSearch implements ManualSearch {
  readonly kind = 'meilisearch';

  readonly #client: Meilisearch;
  readonly #host: string;
  readonly #index: string;
  readonly #batchSize: number;
  readonly #wait: { timeout: number; interval: number };
  readonly #log = createLogger('search', { backend: 'meilisearch' });
  /** What the last {@link replaceAll} of this instance indexed, for the build record (`index-builds.ts`). */
  #builtHash: string | undefined;

  constructor(options: MeilisearchManualSearchOptions) {
    this.#host = options.host;
    this.#index = options.index;
    this.#batchSize = Math.max(1, options.batchSize ?? 1000);
    this.#wait = { timeout: options.taskTimeoutMs ?? 600_000, interval: options.taskPollIntervalMs ?? 100 };
    this.#client = new Meilisearch({
      host: options.host,
      // An empty key from the environment means "no key", not "Bearer ".
      apiKey: options.apiKey || undefined,
      timeout: options.requestTimeoutMs ?? 30_000,
      defaultWaitOptions: this.#wait,
    });
  }

  async search(keywords: string, k = 3): Promise<SearchHit[]> {
    const query = keywords.trim();
    // An empty query is a placeholder search in Meilisearch (arbitrary documents); it finds nothing relevant.
    if (!query) return [];
    try {
      // Meilisearch reads only the first ten words of a query; a long sentence is cut down to its content words.
      const response = await this.#client.index<MeiliManualDocument>(this.#index).search(fitQueryWords(query), {
        limit: Math.max(1, Math.floor(k)),
        // The default strategy (`last`) never stops requiring the query's first word, so a customer's sentence whose
        // first content word is in no chunk (先月, お世話) found nothing. `frequency` drops the words no document holds
        // first, then the most frequent, and keeps the rarest: the one that names the topic.
        matchingStrategy: 'frequency',
        showRankingScore: true,
        attributesToRetrieve: RETRIEVED_ATTRIBUTES,
        locales: SEARCH_LOCALES,
      });
      return response.hits.map((hit) => {
        const heading = hit.heading ?? '';
        const result: SearchHit = {
          id: hit.chunkId,
          fileName: hit.fileName,
          content: heading ? `【${heading}】\n${hit.content}` : hit.content,
          score: hit._rankingScore ?? 0,
        };
        if (heading) result.heading = heading;
        return result;
      });
    } catch (error) {
      if (isIndexNotFound(error)) {
        // Nothing indexed yet: an empty manual, not an outage.
        this.#log.warn({ index: this.#index }, 'manual index does not exist yet; run a reindex');
        return [];
      }
      throw this.#wrap(error, `search in index "${this.#index}"`);
    }
  }

  async replaceAll(chunks: ManualChunk[], onProgress?: ProgressFn): Promise<void> {
    const build = `${this.#index}_build_${buildStamp()}`;
    const documents = chunks.map(toDocument);
    assertUniqueIds(documents);
    const started = Date.now();
    this.#log.info({ index: this.#index, build, chunks: documents.length }, 'building manual index');
    await this.#dropStaleBuilds();

    try {
      await this.#run(this.#client.createIndex(build, { primaryKey: 'id' }), `create index "${build}"`);
      await this.#run(this.#client.index(build).updateSettings(MANUAL_INDEX_SETTINGS), `apply settings to "${build}"`);

      await onProgress?.({ stage: 'index', done: 0, total: documents.length });
      for (let start = 0; start < documents.length; start += this.#batchSize) {
        const batch = documents.slice(start, start + this.#batchSize);
        await this.#run(
          this.#client.index<MeiliManualDocument>(build).addDocuments(batch, { primaryKey: 'id' }),
          `add documents ${start + 1}-${start + batch.length} to "${build}"`,
        );
        await onProgress?.({ stage: 'index', done: start + batch.length, total: documents.length });
      }

      await this.#ensureLiveIndex();
      // The server defaults `rename` to false; leaving it out keeps servers older than 1.18 (which reject the
      // unknown field) working, hence the cast past the client's type that marks it required.
      const swap = { indexes: [this.#index, build] } as IndexSwap;
      await this.#run(this.#client.swapIndexes([swap]), `swap "${this.#index}" with "${build}"`);
    } catch (error) {
      await this.#dropQuietly(build);
      throw error;
    }

    // After the swap `build` holds the previous data; the new index is already live, so a failed cleanup is
    // logged rather than failing a reindex that did succeed.
    try {
      await this.#run(this.#client.deleteIndex(build), `delete old index (now "${build}")`);
    } catch (error) {
      this.#log.warn({ err: error, index: build }, 'could not delete the previous manual index');
    }
    this.#builtHash = manualContentHash(chunks);
    this.#log.info({ index: this.#index, chunks: documents.length, ms: Date.now() - started }, 'manual index replaced');
  }

  /** The content hash of the last index this instance built; every machine searches that one index. */
  builtHash(): string | undefined {
    return this.#builtHash;
  }

  async count(): Promise<number> {
    try {
      const stats = await this.#client.index(this.#index).getStats();
      return stats.numberOfDocuments;
    } catch (error) {
      if (isIndexNotFound(error)) return 0;
      throw this.#wrap(error, `read stats of index "${this.#index}"`);
    }
  }

  /**
   * Reads the live index: unlike `GET /health`, which Meilisearch answers without a key, this fails with a wrong
   * key or one that may not read the index. A missing index is fine (nothing indexed yet).
   */
  async ping(): Promise<void> {
    try {
      await this.#client.getRawIndex(this.#index);
    } catch (error) {
      if (isIndexNotFound(error)) return;
      throw this.#wrap(error, `read index "${this.#index}"`);
    }
  }

  /**
   * Swapping needs both indexes to exist; on the very first reindex the live one does not. Asked first, so a
   * routine reindex does not leave a failed `indexCreation` task in the task list each time; a creation racing
   * another process's still counts "already exists" as success.
   */
  async #ensureLiveIndex(): Promise<void> {
    try {
      await this.#client.getRawIndex(this.#index);
      return;
    } catch (error) {
      if (!isIndexNotFound(error)) throw this.#wrap(error, `read index "${this.#index}"`);
    }
    const task = await this.#enqueue(this.#client.createIndex(this.#index, { primaryKey: 'id' }), `create index "${this.#index}"`);
    const done = await this.#waitFor(task, `create index "${this.#index}"`);
    if (done.status === 'failed' && done.error?.code !== 'index_already_exists') {
      throw taskFailure(this.#host, `create index "${this.#index}"`, done);
    }
  }

  /**
   * Deletes build indexes of this index older than an hour: leftovers of a reindex that crashed between create and
   * swap. Searches only ever use the live uid, and the age spares a build another process is filling right now.
   */
  async #dropStaleBuilds(): Promise<void> {
    let uids: string[];
    try {
      const { results } = await this.#client.getRawIndexes({ limit: 1000 });
      uids = results.map((entry) => entry.uid);
    } catch (error) {
      throw this.#wrap(error, 'list indexes');
    }
    const pattern = new RegExp(`^${escapeRegExp(this.#index)}_build_(\\d{13,})$`);
    for (const uid of uids) {
      const stamp = pattern.exec(uid)?.[1];
      if (!stamp || Date.now() - Number(stamp) < STALE_BUILD_AGE_MS) continue;
      try {
        await this.#run(this.#client.deleteIndex(uid), `delete stale build "${uid}"`);
        this.#log.info({ index: uid }, 'deleted a manual index left over by an unfinished reindex');
      } catch (error) {
        this.#log.warn({ err: error, index: uid }, 'could not delete a stale manual build index');
      }
    }
  }

  /** Enqueues, waits for the task and throws unless it succeeded. */
  async #run(enqueued: Promise<EnqueuedTask>, what: string): Promise<Task> {
    const task = await this.#waitFor(await this.#enqueue(enqueued, what), what);
    if (task.status !== 'succeeded') throw taskFailure(this.#host, what, task);
    return task;
  }

  async #enqueue(enqueued: Promise<EnqueuedTask>, what: string): Promise<EnqueuedTask> {
    try {
      return await enqueued;
    } catch (error) {
      throw this.#wrap(error, what);
    }
  }

  async #waitFor(task: EnqueuedTask, what: string): Promise<Task> {
    try {
      return await this.#client.tasks.waitForTask(task.taskUid, this.#wait);
    } catch (error) {
      throw this.#wrap(error, `${what} (task ${task.taskUid})`);
    }
  }

  async #dropQuietly(uid: string): Promise<void> {
    try {
      const task = await this.#client.deleteIndex(uid);
      await this.#client.tasks.waitForTask(task.taskUid, this.#wait);
    } catch (error) {
      this.#log.warn({ err: error, index: uid }, 'could not delete the unfinished build index');
    }
  }

  #wrap(error: unknown, what: string): Error {
    return describeMeiliError(this.#host, what, error);
  }
}

let lastStamp = 0;

/** `Date.now()`, but strictly increasing within the process so two quick rebuilds never pick the same name. */
function buildStamp(): number {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return lastStamp;
}

function toDocument(chunk: ManualChunk): MeiliManualDocument {
  return {
    id: toMeiliDocumentId(chunk.id),
    chunkId: chunk.id,
    fileName: chunk.fileName,
    heading: chunk.heading,
    content: chunk.content,
  };
}

/** Meilisearch silently keeps the last of two documents with one id; a duplicate chunk id is a chunker bug. */
function assertUniqueIds(documents: MeiliManualDocument[]): void {
  const seen = new Set<string>();
  for (const document of documents) {
    if (seen.has(document.id)) throw new Error(`duplicate manual chunk id "${document.chunkId}"`);
    seen.add(document.id);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isIndexNotFound(error: unknown): boolean {
  return error instanceof MeilisearchApiError && error.cause?.code === 'index_not_found';
}

function taskFailure(host: string, what: string, task: Task): Error {
  const reason = task.error ? `${task.error.message} (${task.error.code})` : `task ended as "${task.status}"`;
  return new Error(`Meilisearch at ${host}: ${what} failed in task ${task.uid}: ${reason}`);
}

/** Turns client errors into messages that say which server and which step, keeping the original as `cause`. */
function describeMeiliError(host: string, what: string, error: unknown): Error {
  if (error instanceof MeilisearchApiError) {
    const code = error.cause?.code ? ` (${error.cause.code})` : '';
    const auth = error.response.status === 401 || error.response.status === 403 ? ' — check MEILI_API_KEY' : '';
    return new Error(`Meilisearch at ${host}: ${what} was refused with HTTP ${error.response.status}: ${error.message}${code}${auth}`, {
      cause: error,
    });
  }
  if (error instanceof MeilisearchRequestError && error.cause instanceof MeilisearchRequestTimeOutError) {
    return new Error(`Meilisearch at ${host}: ${what} timed out after ${error.cause.cause.timeout} ms`, { cause: error });
  }
  if (error instanceof SyntaxError) {
    // The client parses every body as JSON before it looks at the status, so an HTML page from a proxy in front
    // (413 for a too large batch, 502 while Meilisearch is down) surfaces as a parse error of that page.
    return new Error(
      `Meilisearch at ${host}: ${what} got a response that is not Meilisearch's JSON (an error page from a proxy in between?): ${error.message}`,
      { cause: error },
    );
  }
  if (error instanceof MeilisearchRequestError) {
    const cause = error.cause instanceof Error ? describeCause(error.cause) : String(error.cause);
    return new Error(`Meilisearch at ${host} is unreachable (${what}): ${cause}`, { cause: error });
  }
  if (error instanceof MeilisearchTaskTimeOutError) {
    return new Error(`Meilisearch at ${host}: ${what} did not finish in ${error.cause.timeout} ms`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`Meilisearch at ${host}: ${what} failed: ${message}`, { cause: error });
}

/** fetch reports "fetch failed" and hides the useful part (ECONNREFUSED, ENOTFOUND…) one level down. */
function describeCause(error: Error): string {
  const inner = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${inner}`;
}
