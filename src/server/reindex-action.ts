/**
 * The dashboard's "Reindex now": queues a rebuild of the manual and of the Q&A index on `maintenance`, where the
 * scheduler role runs them (`src/runtime/maintenance.ts`). BullMQ's deduplication (see `reindexOptions`) keeps one waiting job per kind, so pressing
 * the button repeatedly does not stack rebuilds.
 */
import type { Redis } from 'ioredis';
import { produce } from '../queues/connection.js';
import { reindexJob, type JobTuning } from '../queues/job-options.js';
import type { Queues } from '../queues/registry.js';

/** One queued (or deduplicated) reindex job. */
export interface QueuedReindex {
  name: 'reindex-manual' | 'reindex-qa';
  /** The BullMQ job id; for a deduplicated request, the id of the job already waiting. */
  jobId: string;
}

/** Adds `reindex-manual` and `reindex-qa` (trigger `manual`) to the maintenance queue. */
export async function requestReindex(
  deps: { maintenance: Pick<Queues['maintenance'], 'add'>; redis: Redis; tuning?: JobTuning },
): Promise<QueuedReindex[]> {
  const queued: QueuedReindex[] = [];
  for (const name of ['reindex-manual', 'reindex-qa'] as const) {
    const job = reindexJob(name, { trigger: 'manual' }, deps.tuning);
    const added = await produce(deps.redis, () => deps.maintenance.add(job.name, job.data, job.opts));
    queued.push({ name, jobId: String(added.id) });
  }
  return queued;
}
