/**
 * The maintenance role (`npm run scheduler`): a BullMQ worker on `maintenance` that runs the `reindex-manual`,
 * `reindex-qa` and `retention` jobs, and keeps the cron schedules of REINDEX_MANUAL_CRON / REINDEX_QA_CRON /
 * RETENTION_CRON in Redis. The retention job writes the archive under this role's DATA_DIR (see
 * `src/tickets/retention.ts`), so every process of this role must share that directory (Compose: the `app-data` volume).
 *
 * Two reindexes never run at once, on one machine or across many:
 * - the worker takes one job at a time (concurrency 1), and
 * - the queue's global concurrency is 1 (`queue.setGlobalConcurrency(1)`, stored in Redis), so however many
 *   processes run this role — or any other worker on `maintenance` — BullMQ moves at most one maintenance job to
 *   active at a time; the others wait in the queue.
 * Rebuilding the manual and the Q&A at the same time would only compete for the embeddings server and the search
 * engines, and two rebuilds of the same index would race for the switch; one at a time avoids both.
 *
 * Searches never see a half-built index: each backend's `replaceAll` builds beside the live index and switches it
 * in atomically (file rename, Meilisearch index swap, Qdrant alias), so agent workers keep answering from the old
 * index until the new one is complete.
 *
 * Progress is reported with `job.updateProgress({ stage, done, total, percent })`, which Bull Board shows, and the
 * job's result is the handler's summary (files, chunks or pairs, seconds).
 *
 * At start the role also queues a reindex of each index that is still empty, so a fresh deployment answers from its
 * knowledge base at once instead of after the first scheduled run.
 *
 * Each successful rebuild records its build in Redis (`src/search/index-builds.ts`: the content hash of what it
 * indexed, when, on which machine), inside the reindex lock and right after the new index is live: with the embedded
 * engines it is written only under this machine's DATA_DIR, and agent workers elsewhere compare what they serve with
 * it (`src/search/index-freshness.ts`).
 */
import { hostname } from 'node:os';
import { LearnedAnswerStore } from '../knowledge/learned-answers.js';
import { Queue, UnrecoverableError, type Job, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { recordReindexOutcome, type ReindexKind } from './reindex-outcome.js';
import { reindexManual } from '../../jobs/reindex-manual.js';
import { reindexQa } from '../../jobs/reindex-qa.js';
import { retention } from '../../jobs/retention.js';
import type { Config } from '../config.js';
import { EmptySourceError, KnowledgeError } from '../knowledge/errors.js';
import { createLogger, type Logger } from '../logger.js';
import type { RoleHandle } from './lifecycle.js';
import { createSearchBackends, type SearchBackends } from '../search/factory.js';
import { recordBuild, type IndexName } from '../search/index-builds.js';
import type { ManualSearch, ProgressFn, QaSearch } from '../search/types.js';
import { checkClockSkewOnce } from './role-status.js';
import { checkEvictionPolicy, createWorkerConnection, describeRedis } from '../queues/connection.js';
import { DEFAULT_TUNING, QUEUE_DEFAULT_JOB_OPTIONS, reindexJob, type JobTuning } from '../queues/job-options.js';
import { QUEUE_NAMES } from '../queues/names.js';
import { withReindexLock } from '../queues/redis-lock.js';
import { createQueueWorker, type HandlerMap } from '../queues/registry.js';
import { registerReindexSchedulers, registerRetentionScheduler, type RegisteredScheduler } from '../queues/schedulers.js';

/** Maintenance jobs that may run at the same time across every worker of the queue. */
export const MAINTENANCE_GLOBAL_CONCURRENCY = 1;

/**
 * Lock and stall settings of the maintenance worker. A reindex keeps its lock renewed while the event loop turns
 * (the engines yield while building); when its process dies the job runs again on another maintenance worker within
 * about `lockDuration + stalledInterval`. One stall is allowed because a rerun is harmless (the rebuild is
 * idempotent); a job that kills its worker twice is failed rather than taking every worker down in turn.
 */
export const MAINTENANCE_TIMINGS = { lockDuration: 60_000, stalledInterval: 30_000, maxStalledCount: 1 } as const;

/** Progress of a reindex job as stored with `job.updateProgress` (and shown by Bull Board). */
export interface ReindexProgress {
  /**
   * `read` while reading files, `scrub` while the Q&A pairs lose their personal data, then the backend's stages
   * (`index`, `embed`, `upload`).
   */
  stage: string;
  done: number;
  total: number;
  /** `done / total` of the current stage, 0–100. */
  percent: number;
}

/** Something whose progress can be stored; a BullMQ `Job`. */
export type ProgressTarget = Pick<Job, 'updateProgress'>;

/**
 * A {@link ProgressFn} that stores progress on `job`, at most once per whole percent of each stage: a 10 000-pair
 * rebuild would otherwise write to Redis (and publish an event) 10 000 times.
 */
export function jobProgress(job: ProgressTarget): ProgressFn {
  let last: string | undefined;
  return async ({ stage, done, total }) => {
    const percent = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
    const key = `${stage}:${percent}`;
    if (key === last) return;
    last = key;
    const progress: ReindexProgress = { stage, done, total, percent };
    await job.updateProgress(progress);
  };
}

/**
 * Reindex failures that no retry can fix — a malformed file (KnowledgeError), an empty source that would wipe a live
 * index (EmptySourceError), invalid job data (TypeError, RangeError) — fail the job at once instead of using up its
 * attempts on the same error; anything else (a search engine or embeddings server that is down) is retried.
 */
async function failFastOnBadInput<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof KnowledgeError || err instanceof EmptySourceError || err instanceof TypeError || err instanceof RangeError) {
      const permanent = new UnrecoverableError(err.message);
      permanent.cause = err;
      throw permanent;
    }
    throw err;
  }
}

/** Options of {@link createMaintenanceHandlers}. */
export interface MaintenanceHandlerOptions {
  /** The machine's name in the build records (default the host name). */
  host?: string;
}

/**
 * The handlers of the `maintenance` queue: each reindex job runs against `search`, reporting progress on the job,
 * and records its build; the retention job runs against `redis` and DATA_DIR. Each returns the job's summary.
 */
export function createMaintenanceHandlers(
  config: Config,
  search: Pick<SearchBackends, 'manual' | 'qa'>,
  logger: Logger,
  redis: Redis,
  options: MaintenanceHandlerOptions = {},
): HandlerMap<'maintenance'> {
  const learned = new LearnedAnswerStore(redis, { prefix: config.QUEUE_PREFIX });
  const host = options.host ?? hostname();
  // Recorded inside the lock, so two builds of one index never record in the opposite order of their switches; a
  // record that fails fails the job, whose retry rebuilds (the same content) and records.
  const built = async <R>(index: IndexName, backend: Pick<ManualSearch | QaSearch, 'kind' | 'builtHash'>, result: R): Promise<R> => {
    const build = await recordBuild(redis, config.QUEUE_PREFIX, index, backend, host);
    if (build) logger.info({ index, hash: build.hash, host: build.host }, 'index build recorded');
    return result;
  };
  return {
    retention: (_job, data) => retention(data, { config, redis, logger }),
    'reindex-manual': (job, data) =>
      failFastOnBadInput(() => {
        logger.info({ jobId: job.id, trigger: data.trigger }, 'manual reindex started');
        // Never beside a CLI rebuild of the same index (a busy lock fails the try; BullMQ retries it later).
        return withReindexLock(redis, config.QUEUE_PREFIX, 'manual', async () =>
          built('manual', search.manual, await reindexManual({}, { config, manual: search.manual, onProgress: jobProgress(job), logger })),
        );
      }),
    'reindex-qa': (job, data) =>
      failFastOnBadInput(() => {
        logger.info({ jobId: job.id, trigger: data.trigger }, 'Q&A reindex started');
        return withReindexLock(redis, config.QUEUE_PREFIX, 'qa', async () =>
          built('qa', search.qa, await reindexQa({}, { config, qa: search.qa, onProgress: jobProgress(job), logger, learned: () => learned.qaPairs() })),
        );
      }),
  };
}

/**
 * Queues `reindex-manual` / `reindex-qa` (trigger `schedule`) for each index that has no content yet, and returns
 * the kinds queued. Several processes starting at once queue one job per kind: the reindex options deduplicate a
 * request while one is waiting. An index whose engine cannot be asked now is left to the schedule, with a warning,
 * rather than failing the start.
 */
export async function queueFirstIndexes(
  queue: Pick<Queue, 'add'>,
  search: Pick<SearchBackends, 'manual' | 'qa'>,
  logger: Logger,
  tuning: JobTuning = DEFAULT_TUNING,
): Promise<('reindex-manual' | 'reindex-qa')[]> {
  const queued: ('reindex-manual' | 'reindex-qa')[] = [];
  for (const [name, index] of [['reindex-manual', search.manual], ['reindex-qa', search.qa]] as const) {
    let count: number;
    try {
      count = await index.count();
    } catch (err) {
      logger.warn({ err, job: name, backend: index.kind }, 'could not tell whether the index is empty; leaving it to the schedule');
      continue;
    }
    if (count > 0) continue;
    const job = reindexJob(name, { trigger: 'schedule' }, tuning);
    await queue.add(job.name, job.data, job.opts);
    queued.push(name);
  }
  if (queued.length > 0) logger.info({ jobs: queued }, 'queued the first build of the empty indexes');
  return queued;
}

/** Shared resources and test settings for {@link startMaintenanceRole}; whatever is given is not closed by it. */
export interface MaintenanceRoleOverrides {
  logger?: Logger;
  /**
   * A worker connection (`createWorkerConnection`) to share with other roles of the process. Default: the role
   * opens its own and closes it on stop.
   */
  connection?: Redis;
  /** Search backends to rebuild. Default: `createSearchBackends(config)`, closed on stop. */
  search?: Pick<SearchBackends, 'manual' | 'qa'>;
  /** Backoff of the scheduled jobs; tests shorten it. */
  tuning?: JobTuning;
  /** Overrides of {@link MAINTENANCE_TIMINGS}. */
  timings?: Partial<{ lockDuration: number; stalledInterval: number; maxStalledCount: number }>;
  /** Queue a build of the indexes that are empty at start ({@link queueFirstIndexes}); default true. */
  buildEmptyIndexes?: boolean;
  /** The machine's name in the build records (default the host name): tests run several "machines" in one process. */
  host?: string;
}

/** The index a maintenance job rebuilds, if it is a reindex. */
function reindexKindOf(jobName: string): ReindexKind | undefined {
  return jobName === 'reindex-manual' ? 'manual' : jobName === 'reindex-qa' ? 'qa' : undefined;
}

/** The running maintenance role. */
export interface MaintenanceRole extends RoleHandle {
  /** The reindex schedules registered at start. */
  readonly schedulers: RegisteredScheduler[];
  /** The retention schedule registered at start; `undefined` when RETENTION_CRON is empty. */
  readonly retentionSchedule: { id: 'retention'; pattern: string; next?: number } | undefined;
  /** The reindex jobs queued at start because their index was empty. */
  readonly firstBuilds: ('reindex-manual' | 'reindex-qa')[];
  /** The BullMQ worker, for listeners (metrics, tests). */
  readonly worker: Worker;
}

/**
 * Starts the maintenance role: sets the queue's global concurrency, starts the worker and registers the reindex
 * schedules. While Redis is unreachable the start waits (the connection logs each reconnection attempt).
 */
export async function startMaintenanceRole(config: Config, overrides: MaintenanceRoleOverrides = {}): Promise<MaintenanceRole> {
  const logger = overrides.logger ?? createLogger('maintenance');
  const ownConnection = overrides.connection === undefined;
  const connection =
    overrides.connection ?? createWorkerConnection(config.REDIS_URL, { logger, name: `${config.QUEUE_PREFIX}:maintenance:worker` });
  const ownSearch = overrides.search === undefined;
  const search = overrides.search ?? createSearchBackends(config);

  const queue = new Queue(QUEUE_NAMES.maintenance, { connection, prefix: config.QUEUE_PREFIX, defaultJobOptions: QUEUE_DEFAULT_JOB_OPTIONS });
  // Without a listener BullMQ prints each connection error; the connection's retry strategy already reports them.
  queue.on('error', (err: Error) => logger.debug({ err: err.message }, 'maintenance queue connection error'));

  let worker: Worker | undefined;
  const release = async (): Promise<void> => {
    await worker?.close();
    await queue.close();
    if (ownSearch) await Promise.all([search.manual.close?.(), search.qa.close?.()]);
    if (ownConnection && connection.status !== 'end') {
      // QUIT would wait for a connection that is down; nothing is pending on it then, so a disconnect loses nothing.
      if (connection.status === 'ready') await connection.quit().catch(() => connection.disconnect());
      else connection.disconnect();
    }
  };

  try {
    if (ownConnection) await checkEvictionPolicy(connection, logger);
    await checkClockSkewOnce(connection, logger);
    // Set before the worker starts, so even its first fetch respects the limit.
    await queue.setGlobalConcurrency(MAINTENANCE_GLOBAL_CONCURRENCY);
    worker = createQueueWorker({
      queueName: 'maintenance',
      handlers: createMaintenanceHandlers(config, search, logger, connection, overrides.host ? { host: overrides.host } : {}),
      connection,
      prefix: config.QUEUE_PREFIX,
      concurrency: 1,
      logger,
      onCompleted: async (job, result) => {
        logger.info({ jobId: job.id, job: job.name, result }, job.name === 'retention' ? 'retention finished' : 'reindex finished');
        const kind = reindexKindOf(job.name);
        if (kind) await recordReindexOutcome(connection, config.QUEUE_PREFIX, kind, { ok: true });
      },
      // Only a reindex that failed for good is news: an attempt that will be retried may still build the index.
      onFailed: async (job, error, { final }) => {
        const kind = job && reindexKindOf(job.name);
        if (kind && final) await recordReindexOutcome(connection, config.QUEUE_PREFIX, kind, { ok: false, error: error.message });
      },
      workerOptions: { ...MAINTENANCE_TIMINGS, ...overrides.timings },
    });
    const tuning = overrides.tuning ?? DEFAULT_TUNING;
    const { registered, disabled } = await registerReindexSchedulers(queue, config, tuning);
    const retentionSchedule = await registerRetentionScheduler(queue, config, tuning);
    const firstBuilds = (overrides.buildEmptyIndexes ?? true) ? await queueFirstIndexes(queue, search, logger, tuning) : [];
    logger.info(
      {
        redis: describeRedis(config.REDIS_URL),
        schedules: registered,
        disabledSchedules: disabled,
        retention: retentionSchedule ?? 'disabled',
        manual: search.manual.kind,
        qa: search.qa.kind,
      },
      'maintenance worker waiting for reindex jobs',
    );

    let stopping: Promise<void> | undefined;
    const started = worker;
    return {
      name: 'maintenance',
      schedulers: registered,
      retentionSchedule,
      firstBuilds,
      worker: started,
      stop: () => (stopping ??= release()),
    };
  } catch (err) {
    await release().catch((closeErr: unknown) => logger.warn({ err: closeErr }, 'maintenance role did not close cleanly after a failed start'));
    throw err;
  }
}
