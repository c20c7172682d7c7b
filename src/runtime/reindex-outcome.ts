/**
 * How the last queued reindex of each index ended (a scheduled run, the review page's "Reindex now", `npm run reindex
 * -- --queue`), for the review page: a reindex that fails leaves the old index serving, so nothing else would tell
 * the operator that the agent answers from knowledge that is no longer current. Written by the maintenance worker
 * when a reindex job completes or fails for good; an in-process `npm run reindex` reports on its own terminal.
 *
 * | key (P = QUEUE_PREFIX) | type | fields                                                  |
 * |------------------------|------|---------------------------------------------------------|
 * | `P:reindex:last`       | hash | `manual`, `qa` → `{at, ok, error?}` (JSON, epoch ms)     |
 */
import type { Redis } from 'ioredis';
import { failureLine } from './role-status.js';

/** The indexes a reindex job rebuilds. */
export type ReindexKind = 'manual' | 'qa';

/** How one reindex ended. */
export interface ReindexOutcome {
  at: Date;
  ok: boolean;
  /** Why it failed (one line). */
  error?: string;
}

/** The Redis hash of the last outcome per index. */
export function reindexOutcomeKey(prefix: string): string {
  if (!prefix) throw new TypeError('reindexOutcomeKey: prefix is required');
  return `${prefix}:reindex:last`;
}

/** Records how a reindex of `kind` ended. */
export async function recordReindexOutcome(redis: Redis, prefix: string, kind: ReindexKind, outcome: { ok: true } | { ok: false; error: string }, at = new Date()): Promise<void> {
  const stored = outcome.ok ? { at: at.getTime(), ok: true } : { at: at.getTime(), ok: false, error: failureLine(outcome.error) };
  await redis.hset(reindexOutcomeKey(prefix), kind, JSON.stringify(stored));
}

/** The last outcome of each index that was reindexed through the queue. */
export async function readReindexOutcomes(redis: Redis, prefix: string): Promise<Partial<Record<ReindexKind, ReindexOutcome>>> {
  const outcomes: Partial<Record<ReindexKind, ReindexOutcome>> = {};
  const hash = await redis.hgetall(reindexOutcomeKey(prefix));
  for (const kind of ['manual', 'qa'] as const) {
    try {
      const stored = JSON.parse(hash[kind] ?? 'null') as { at?: unknown; ok?: unknown; error?: unknown } | null;
      if (!stored || typeof stored.at !== 'number' || typeof stored.ok !== 'boolean') continue;
      outcomes[kind] = { at: new Date(stored.at), ok: stored.ok, ...(typeof stored.error === 'string' ? { error: stored.error } : {}) };
    } catch {
      continue;
    }
  }
  return outcomes;
}
