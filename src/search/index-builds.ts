/**
 * Which build of each index is the current one, for every machine sharing the Redis. With the embedded engines each
 * machine searches files under its own DATA_DIR, and a reindex writes only the files of the machine that runs it, so
 * another machine's agent worker would go on answering from its old index without anyone noticing. Every successful
 * build therefore records here what it indexed (a content hash: the chunks or pairs, not a time) and who built it
 * when; each agent worker compares the index it serves with the last build recorded (`index-freshness.ts`).
 *
 * | key (P = QUEUE_PREFIX) | type | fields                                                               |
 * |------------------------|------|----------------------------------------------------------------------|
 * | `P:index:builds`       | hash | `manual`, `qa` → `{hash, at, host, pid, backend}` (JSON; `at` is Redis's clock, epoch ms) |
 *
 * Learned pairs are not part of a Q&A build's hash: they reach every machine's index through Redis at once (see
 * `LearnedPairSource`), whether or not a rebuild has included them yet.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { LEARNED_ID_PREFIX, type ManualChunk, type ManualSearch, type QaPair, type QaSearch, type ServedIndex } from './types.js';

/** The two indexes of the knowledge base. */
export type IndexName = 'manual' | 'qa';

/** Both indexes, manual first. */
export const INDEX_NAMES: readonly IndexName[] = ['manual', 'qa'];

/** One recorded build of an index. */
export interface IndexBuild {
  /** {@link manualContentHash} / {@link qaContentHash} of what was indexed. */
  hash: string;
  /** When it was recorded, by Redis's clock (epoch ms): the one clock all machines share. */
  at: number;
  /** The machine that built it (its host name) and its process. */
  host: string;
  pid: number;
  /** The engine it was built in (`embedded`, `meilisearch`, `qdrant`). */
  backend: string;
}

/** The Redis hash of the last build per index. */
export function indexBuildsKey(prefix: string): string {
  if (!prefix) throw new TypeError('indexBuildsKey: prefix is required');
  return `${prefix}:index:builds`;
}

/**
 * Records a successful build of `index` as the one every agent worker should serve, stamped with Redis's clock.
 * Returns the record as stored.
 */
export async function recordIndexBuild(redis: Redis, prefix: string, index: IndexName, build: Omit<IndexBuild, 'at'>): Promise<IndexBuild> {
  const [seconds, micros] = await redis.time();
  const stored: IndexBuild = { ...build, at: Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) };
  await redis.hset(indexBuildsKey(prefix), index, JSON.stringify(stored));
  return stored;
}

/**
 * Records the build `backend` has just made of `index` (its `builtHash()`), naming this machine (`host`, default its
 * host name) and process. Returns the record, or undefined for a backend that keeps no hash.
 */
export async function recordBuild(
  redis: Redis,
  prefix: string,
  index: IndexName,
  backend: Pick<ManualSearch | QaSearch, 'kind' | 'builtHash'>,
  host: string = hostname(),
): Promise<IndexBuild | undefined> {
  const hash = backend.builtHash?.();
  if (hash === undefined) return undefined;
  return recordIndexBuild(redis, prefix, index, { hash, host, pid: process.pid, backend: backend.kind });
}

/** The last recorded build of each index; an index never built (or built before builds were recorded) is absent. */
export async function readIndexBuilds(redis: Redis, prefix: string): Promise<Partial<Record<IndexName, IndexBuild>>> {
  const hash = await redis.hgetall(indexBuildsKey(prefix));
  const builds: Partial<Record<IndexName, IndexBuild>> = {};
  for (const index of INDEX_NAMES) {
    const build = parseBuild(hash[index]);
    if (build) builds[index] = build;
  }
  return builds;
}

function parseBuild(json: string | undefined): IndexBuild | undefined {
  if (json === undefined) return undefined;
  try {
    const b = JSON.parse(json) as Partial<IndexBuild>;
    const valid = typeof b.hash === 'string' && typeof b.at === 'number' && typeof b.host === 'string' && typeof b.pid === 'number' && typeof b.backend === 'string';
    return valid ? (b as IndexBuild) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The content hash of a manual build: SHA-256 over every chunk's id, file, heading and content, in id order (so two
 * machines whose file systems list the folder differently agree), each field length-delimited by JSON.
 */
export function manualContentHash(chunks: readonly Pick<ManualChunk, 'id' | 'fileName' | 'heading' | 'content'>[]): string {
  return contentHash(
    'helpdesk-manual-content/1',
    chunks.map((c) => [c.id, c.fileName, c.heading, c.content]),
  );
}

/** The content hash of a Q&A build: as {@link manualContentHash} over the pairs, learned pairs left out. */
export function qaContentHash(pairs: readonly Pick<QaPair, 'id' | 'fileName' | 'row' | 'question' | 'answer'>[]): string {
  return contentHash(
    'helpdesk-qa-content/1',
    pairs.filter((p) => !p.id.startsWith(LEARNED_ID_PREFIX)).map((p) => [p.id, p.fileName, p.row, p.question, p.answer]),
  );
}

function contentHash(domain: string, rows: (string | number)[][]): string {
  const hash = createHash('sha256').update(domain);
  const sorted = rows.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
  for (const row of sorted) hash.update('\n').update(JSON.stringify(row));
  return hash.digest('hex');
}

/** A hash as people compare it: its first 12 hex digits (`of unknown content` for an index older than build hashes). */
export function shortHash(hash: string | undefined): string {
  return hash === undefined ? 'of unknown content' : hash.slice(0, 12);
}

/**
 * What an embedded engine serves: the content hash of its live index (`current` reloads a newer file first), absent
 * when none was built here, or absent with the reason when the file cannot be read.
 */
export async function servedIndex(current: () => Promise<{ contentHash?: string | undefined } | undefined>): Promise<ServedIndex> {
  try {
    const index = await current();
    return index ? { present: true, hash: index.contentHash } : { present: false };
  } catch (err) {
    return { present: false, error: err instanceof Error ? err.message : String(err) };
  }
}
