/**
 * The cron schedules of the reindex jobs, kept in Redis as BullMQ job schedulers on the `maintenance` queue.
 *
 * Every process that runs the maintenance role calls {@link registerReindexSchedulers} at start, so the schedules in
 * Redis always follow the configuration of the last process started: a changed cron replaces the old one, an emptied
 * cron removes it. Scheduler ids are the job names, and `upsertJobScheduler` replaces a scheduler with the same id
 * in one Lua script, so any number of starts (or processes starting at once on several machines) leave exactly one
 * scheduler, and one pending job, per reindex kind.
 */
import type { Queue } from 'bullmq';
import { ConfigError, type Config } from '../config.js';
import { isConnectionError } from './connection.js';
import { DEFAULT_TUNING, reindexSchedulers, retentionScheduler, type JobTuning, type SchedulerSpec } from './job-options.js';

/** A reindex schedule as it stands in Redis after {@link registerReindexSchedulers}. */
export interface RegisteredScheduler {
  /** Scheduler id, which is also the job name it produces. */
  id: SchedulerSpec['id'];
  /** Cron pattern the scheduler follows. */
  pattern: string;
  /** When the next job is due (epoch ms), as BullMQ computed it; absent if BullMQ did not report one. */
  next?: number;
}

/** What {@link registerReindexSchedulers} did. */
export interface SchedulerRegistration {
  /** Schedules present now, one per reindex kind whose cron is set. */
  registered: RegisteredScheduler[];
  /** Kinds whose cron is empty: their scheduler (if any was left from an earlier configuration) is gone. */
  disabled: SchedulerSpec['id'][];
}

/** The variable each schedule comes from, for error messages. */
const CRON_VARIABLE = { 'reindex-manual': 'REINDEX_MANUAL_CRON', 'reindex-qa': 'REINDEX_QA_CRON' } as const;

/** The part of a BullMQ queue the registration uses (any `Queue` of the maintenance queue fits). */
export type SchedulerQueue = Pick<Queue, 'upsertJobScheduler' | 'removeJobScheduler' | 'getJobScheduler'>;

/**
 * Makes the reindex job schedulers in Redis match REINDEX_MANUAL_CRON and REINDEX_QA_CRON: upserts the schedule of
 * each kind whose cron is set and removes the one whose cron is empty. Idempotent; safe to run concurrently.
 *
 * @param queue the `maintenance` queue.
 * @returns the schedules now registered and the kinds now disabled.
 * @throws ConfigError naming the variable when BullMQ's cron parser rejects a pattern that passed the configuration's
 *   shape check (e.g. `99 3 * * *`).
 */
export async function registerReindexSchedulers(
  queue: SchedulerQueue,
  config: Pick<Config, 'REINDEX_MANUAL_CRON' | 'REINDEX_QA_CRON'>,
  tuning: JobTuning = DEFAULT_TUNING,
): Promise<SchedulerRegistration> {
  const registered: RegisteredScheduler[] = [];
  const disabled: SchedulerSpec['id'][] = [];
  for (const spec of reindexSchedulers(config, tuning)) {
    if (!spec.enabled) {
      // Removing an absent scheduler is a no-op, so a disabled schedule needs no check first.
      await queue.removeJobScheduler(spec.id);
      disabled.push(spec.id);
      continue;
    }
    try {
      await queue.upsertJobScheduler(spec.id, { pattern: spec.pattern }, spec.template);
    } catch (err) {
      if (isConnectionError(err)) throw err;
      // The configuration only checks the field count; the cron parser is the judge of the values.
      throw new ConfigError([`${CRON_VARIABLE[spec.id]}=${JSON.stringify(spec.pattern)}: ${err instanceof Error ? err.message : String(err)}`]);
    }
    const stored = await queue.getJobScheduler(spec.id);
    registered.push({ id: spec.id, pattern: stored?.pattern ?? spec.pattern, ...(stored?.next !== undefined ? { next: stored.next } : {}) });
  }
  return { registered, disabled };
}

/**
 * Makes the retention job scheduler in Redis match RETENTION_CRON, like {@link registerReindexSchedulers}: upserted
 * when set, removed when empty. Returns the schedule now registered, or `undefined` when disabled.
 *
 * @throws ConfigError naming RETENTION_CRON when BullMQ's cron parser rejects the pattern.
 */
export async function registerRetentionScheduler(
  queue: SchedulerQueue,
  config: Pick<Config, 'RETENTION_CRON'>,
  tuning: JobTuning = DEFAULT_TUNING,
): Promise<{ id: 'retention'; pattern: string; next?: number } | undefined> {
  const spec = retentionScheduler(config, tuning);
  if (!spec.enabled) {
    await queue.removeJobScheduler(spec.id);
    return undefined;
  }
  try {
    await queue.upsertJobScheduler(spec.id, { pattern: spec.pattern }, spec.template);
  } catch (err) {
    if (isConnectionError(err)) throw err;
    throw new ConfigError([`RETENTION_CRON=${JSON.stringify(spec.pattern)}: ${err instanceof Error ? err.message : String(err)}`]);
  }
  const stored = await queue.getJobScheduler(spec.id);
  return { id: spec.id, pattern: stored?.pattern ?? spec.pattern, ...(stored?.next !== undefined ? { next: stored.next } : {}) };
}
