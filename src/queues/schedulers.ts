/**
 * The cron schedules of the maintenance queue (the reindex jobs and the retention job), kept in Redis as BullMQ job
 * schedulers.
 *
 * Every process that runs the maintenance role calls {@link registerReindexSchedulers} and
 * {@link registerRetentionScheduler} at start, so the schedules in Redis always follow the configuration of the last
 * process started: a changed cron replaces the old one, an emptied cron removes it. Scheduler ids are the job names,
 * and `upsertJobScheduler` replaces a scheduler with the same id in one Lua script, so any number of starts (or
 * processes starting at once on several machines) leave exactly one scheduler, and one pending job, per schedule.
 *
 * Each schedule is stored with the IANA time zone of the process that registered it. BullMQ computes the next run
 * after each run in whichever worker took the job, from the job's repeat options: without a zone there, a run taken
 * by a scheduler in another zone would move the schedule to that zone's 03:00.
 *
 * When a start replaces (or removes) a schedule that Redis holds with other settings, it logs a warning naming both.
 * It does not refuse to start: that is also what a deliberate change of REINDEX_*_CRON, RETENTION_CRON or TZ looks
 * like, and a refusal would stop every maintenance job of that process (retention included) over a schedule.
 */
import type { JobSchedulerJson, Queue } from 'bullmq';
import { ConfigError, type Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import { isConnectionError } from './connection.js';
import { DEFAULT_TUNING, reindexSchedulers, retentionScheduler, type JobTuning, type RetentionSchedulerSpec, type SchedulerSpec } from './job-options.js';

/** A schedule as it stands in Redis after its registration. */
export interface RegisteredScheduler {
  /** Scheduler id, which is also the job name it produces. */
  id: SchedulerSpec['id'];
  /** Cron pattern the scheduler follows. */
  pattern: string;
  /** IANA time zone the pattern is evaluated in; absent when this process's zone has no IANA name. */
  timeZone?: string;
  /** When the next job is due (epoch ms), as BullMQ computed it; absent if BullMQ did not report one. */
  next?: number;
}

/** The retention schedule as it stands in Redis after {@link registerRetentionScheduler}. */
export interface RegisteredRetentionScheduler extends Omit<RegisteredScheduler, 'id'> {
  id: 'retention';
}

/** The settings of one schedule: its cron pattern and the zone it is evaluated in (`undefined`: none stored). */
export interface ScheduleSettings {
  pattern: string;
  timeZone: string | undefined;
}

/** A schedule this start replaced or removed, which Redis held with other settings (see {@link registerReindexSchedulers}). */
export interface ReplacedSchedule {
  id: SchedulerSpec['id'] | 'retention';
  /** The variable of this schedule's cron. */
  variable: 'REINDEX_MANUAL_CRON' | 'REINDEX_QA_CRON' | 'RETENTION_CRON';
  /** What Redis held before this start (left by an earlier start of this or another process). */
  inRedis: ScheduleSettings;
  /** This process's settings, now in Redis; `undefined` when its cron is empty and the schedule was removed. */
  thisProcess: ScheduleSettings | undefined;
}

/** What {@link registerReindexSchedulers} did. */
export interface SchedulerRegistration {
  /** Schedules present now, one per reindex kind whose cron is set. */
  registered: RegisteredScheduler[];
  /** Kinds whose cron is empty: their scheduler (if any was left from an earlier configuration) is gone. */
  disabled: SchedulerSpec['id'][];
  /** Schedules Redis held with other settings than this process's, now replaced or removed (each logged as a warning). */
  replaced: ReplacedSchedule[];
}

/** Options of the registrations. */
export interface SchedulerOptions {
  /** IANA time zone the cron patterns are evaluated in. Default: {@link processTimeZone}. */
  timeZone?: string;
  /** Where a replaced schedule is reported. Default: the `maintenance` module logger. */
  logger?: Logger;
}

/** The variable each schedule comes from, for error messages. */
const CRON_VARIABLE = { 'reindex-manual': 'REINDEX_MANUAL_CRON', 'reindex-qa': 'REINDEX_QA_CRON', retention: 'RETENTION_CRON' } as const;

/** The part of a BullMQ queue the registration uses (any `Queue` of the maintenance queue fits). */
export type SchedulerQueue = Pick<Queue, 'upsertJobScheduler' | 'removeJobScheduler' | 'getJobScheduler'>;

/**
 * The IANA name of this process's time zone (`TZ`, else the system's), which is the zone cron patterns meant until
 * now; `undefined` when ICU cannot name it (TZ set to a POSIX rule such as `JST-9`, or to an unknown name).
 */
export function processTimeZone(): string | undefined {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone as string | undefined;
  return zone && zone !== 'Etc/Unknown' ? zone : undefined;
}

/**
 * Makes the reindex job schedulers in Redis match REINDEX_MANUAL_CRON and REINDEX_QA_CRON, in this process's time
 * zone: upserts the schedule of each kind whose cron is set and removes the one whose cron is empty. Idempotent;
 * safe to run concurrently. A schedule Redis held with another pattern or zone is replaced all the same, with a
 * warning naming both settings.
 *
 * @param queue the `maintenance` queue.
 * @returns the schedules now registered, the kinds now disabled and the schedules replaced.
 * @throws ConfigError naming the variable when BullMQ's cron parser rejects a pattern that passed the configuration's
 *   shape check (e.g. `99 3 * * *`).
 */
export async function registerReindexSchedulers(
  queue: SchedulerQueue,
  config: Pick<Config, 'REINDEX_MANUAL_CRON' | 'REINDEX_QA_CRON'>,
  tuning: JobTuning = DEFAULT_TUNING,
  options: SchedulerOptions = {},
): Promise<SchedulerRegistration> {
  const context = registrationContext(options);
  const registered: RegisteredScheduler[] = [];
  const disabled: SchedulerSpec['id'][] = [];
  const replaced: ReplacedSchedule[] = [];
  for (const spec of reindexSchedulers(config, tuning)) {
    const outcome = await registerSchedule(queue, spec, context);
    if (outcome.replaced) replaced.push(outcome.replaced);
    if (outcome.registered) registered.push({ ...outcome.registered, id: spec.id });
    else disabled.push(spec.id);
  }
  return { registered, disabled, replaced };
}

/**
 * Makes the retention job scheduler in Redis match RETENTION_CRON, like {@link registerReindexSchedulers}: upserted
 * in this process's time zone when set, removed when empty, with a warning when Redis held other settings. Returns
 * the schedule now registered, or `undefined` when disabled.
 *
 * @throws ConfigError naming RETENTION_CRON when BullMQ's cron parser rejects the pattern.
 */
export async function registerRetentionScheduler(
  queue: SchedulerQueue,
  config: Pick<Config, 'RETENTION_CRON'>,
  tuning: JobTuning = DEFAULT_TUNING,
  options: SchedulerOptions = {},
): Promise<RegisteredRetentionScheduler | undefined> {
  const outcome = await registerSchedule(queue, retentionScheduler(config, tuning), registrationContext(options));
  return outcome.registered && { ...outcome.registered, id: 'retention' };
}

interface RegistrationContext {
  timeZone: string | undefined;
  logger: Logger;
}

function registrationContext(options: SchedulerOptions): RegistrationContext {
  const logger = options.logger ?? createLogger('maintenance');
  const timeZone = options.timeZone ?? processTimeZone();
  if (timeZone === undefined) {
    logger.warn(
      "this process's time zone has no IANA name (TZ is a POSIX rule or unknown?): the schedules are stored without one, so each run's " +
        'successor is computed in the zone of whichever process ran it. Set TZ to a name such as UTC or Asia/Tokyo.',
    );
  }
  return { timeZone, logger };
}

/** Upserts or removes one schedule, comparing it first with what Redis holds. */
async function registerSchedule(
  queue: SchedulerQueue,
  spec: SchedulerSpec | RetentionSchedulerSpec,
  { timeZone, logger }: RegistrationContext,
): Promise<{ registered?: Omit<RegisteredScheduler, 'id'>; replaced?: ReplacedSchedule }> {
  const variable = CRON_VARIABLE[spec.id];
  const wanted: ScheduleSettings | undefined = spec.enabled ? { pattern: spec.pattern, timeZone } : undefined;
  const before = settingsOf(await queue.getJobScheduler(spec.id));
  const replaced = before && !sameSettings(before, wanted) ? { id: spec.id, variable, inRedis: before, thisProcess: wanted } : undefined;
  if (replaced) logger.warn(replaced, replacementMessage(replaced));

  if (!wanted) {
    // Removing an absent scheduler is a no-op, so a disabled schedule needs no check first.
    await queue.removeJobScheduler(spec.id);
    return { ...(replaced ? { replaced } : {}) };
  }
  try {
    await queue.upsertJobScheduler(spec.id, { pattern: wanted.pattern, ...(timeZone ? { tz: timeZone } : {}) }, spec.template);
  } catch (err) {
    if (isConnectionError(err)) throw err;
    // The configuration only checks the field count; the cron parser is the judge of the values.
    throw new ConfigError([`${variable}=${JSON.stringify(wanted.pattern)}: ${err instanceof Error ? err.message : String(err)}`]);
  }
  const stored = await queue.getJobScheduler(spec.id);
  const registered = {
    pattern: stored?.pattern ?? wanted.pattern,
    ...(timeZone ? { timeZone } : {}),
    ...(stored?.next !== undefined ? { next: stored.next } : {}),
  };
  return { registered, ...(replaced ? { replaced } : {}) };
}

function settingsOf(stored: JobSchedulerJson | undefined): ScheduleSettings | undefined {
  // A scheduler of `every` (not ours) has no pattern; compare it as the empty pattern, so it is reported and replaced.
  return stored ? { pattern: stored.pattern ?? '', timeZone: stored.tz } : undefined;
}

function sameSettings(a: ScheduleSettings, b: ScheduleSettings | undefined): boolean {
  return b !== undefined && a.pattern === b.pattern && a.timeZone === b.timeZone;
}

function describeSettings(settings: ScheduleSettings): string {
  return `${JSON.stringify(settings.pattern)} in ${settings.timeZone ?? "no time zone (each run's successor in the zone of the process that ran it)"}`;
}

/** One line that names both settings and what to do if the warning comes back. */
function replacementMessage({ id, variable, inRedis, thisProcess }: ReplacedSchedule): string {
  const change = thisProcess
    ? `this process's ${describeSettings(thisProcess)} replaces the ${id} schedule in Redis, ${describeSettings(inRedis)}`
    : `this process's ${variable} is empty, so it removes the ${id} schedule in Redis, ${describeSettings(inRedis)}`;
  return (
    `${change}. Expected once after ${variable} or TZ changed; if it comes back at each start of a scheduler, schedulers with different ` +
    `settings are replacing each other's (the last one started wins): give every scheduler the same ${variable} and TZ.`
  );
}
