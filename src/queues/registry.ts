/**
 * Workers in BullMQ's named-processor pattern: one Worker per queue, routing each job by `job.name` to exactly one
 * handler, with a startup check that every job name of the queue has its handler (after immich's job repository).
 *
 * Error policy: a handler's error propagates to BullMQ untouched, so BullMQ retries it with the job's backoff up
 * to its attempts; a handler signals a permanent failure by throwing `UnrecoverableError`. The registry itself
 * throws `UnrecoverableError` for an unknown job name and for invalid job data, which no retry can fix.
 */
import { Queue, UnrecoverableError, Worker, type Job, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { createLogger, type Logger } from '../logger.js';
import { removeErasedTicketJob } from '../tickets/erased.js';
import { isConnectionError } from './connection.js';
import { QUEUE_DEFAULT_JOB_OPTIONS } from './job-options.js';
import { ALL_QUEUE_NAMES, JOB_NAMES, QUEUE_NAMES, isQueueName, type JobNameOf, type QueueName } from './names.js';
import { parseJobData, type JobPayloads } from './payloads.js';

/** What a handler gets besides the job. */
export interface HandlerContext {
  /** Aborted when the worker is closing with force or the job is cancelled; pass it to long-running calls. */
  signal?: AbortSignal;
}

/** Processes one job; `data` is the validated payload. Throwing fails the attempt (and BullMQ retries). */
export type JobHandler<N extends JobNameOf<QueueName> = JobNameOf<QueueName>> = (
  job: Job<JobPayloads[N], unknown, N>,
  data: JobPayloads[N],
  context: HandlerContext,
) => Promise<unknown>;

/** One handler per job name of queue `Q`. */
export type HandlerMap<Q extends QueueName> = { [N in JobNameOf<Q>]: JobHandler<N> };

/** Thrown at startup when the handlers of a queue do not match its job names. */
export class HandlerRegistrationError extends Error {
  constructor(
    readonly queueName: string,
    readonly problems: string[],
  ) {
    super(`Handlers of queue '${queueName}' do not match its jobs:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'HandlerRegistrationError';
  }
}

/**
 * Checks that each job name of `queueName` has exactly one handler and that no handler is registered for a name
 * the queue does not have. `handlers` is a map, or a list of `[name, handler]` pairs (as assembled from several
 * modules, where a name can be registered twice). Throws {@link HandlerRegistrationError} listing every problem.
 */
export function assertHandlersComplete(
  queueName: string,
  handlers: Readonly<Record<string, unknown>> | Iterable<readonly [string, unknown]>,
): void {
  if (!isQueueName(queueName)) {
    throw new HandlerRegistrationError(queueName, [`unknown queue (known: ${ALL_QUEUE_NAMES.join(', ')})`]);
  }
  const entries: (readonly [string, unknown])[] =
    Symbol.iterator in handlers ? [...(handlers as Iterable<readonly [string, unknown]>)] : Object.entries(handlers);
  const expected: readonly string[] = JOB_NAMES[queueName];
  const counts = new Map<string, number>();
  const problems: string[] = [];
  for (const [name, handler] of entries) {
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if (typeof handler !== 'function') problems.push(`handler for '${name}' is not a function`);
  }
  for (const name of expected) {
    const n = counts.get(name) ?? 0;
    if (n === 0) problems.push(`no handler for job '${name}'`);
    if (n > 1) problems.push(`${n} handlers for job '${name}' (exactly one allowed)`);
  }
  for (const name of counts.keys()) {
    if (!expected.includes(name)) problems.push(`handler for unknown job '${name}' (jobs of this queue: ${expected.join(', ')})`);
  }
  if (problems.length > 0) throw new HandlerRegistrationError(queueName, problems);
}

/** Outcome details passed to {@link QueueWorkerOptions.onFailed}. */
export interface FailureInfo {
  /**
   * True when BullMQ will not retry: the error was unrecoverable or the attempts are used up. This is when a
   * ticket must be handed to a person (parked) so it is not lost.
   */
  final: boolean;
}

/** Options of {@link createQueueWorker}. */
export interface QueueWorkerOptions<Q extends QueueName> {
  /** The queue to work on. */
  queueName: Q;
  /** Exactly one handler per job name of the queue. */
  handlers: HandlerMap<Q>;
  /** A worker connection (`createWorkerConnection`); BullMQ duplicates it for its blocking commands. */
  connection: Redis;
  /** BullMQ key prefix (QUEUE_PREFIX). */
  prefix: string;
  /** Jobs processed in parallel by this worker. */
  concurrency?: number;
  /** Receives worker errors and job outcomes. */
  logger: Logger;
  /** Side effect after a job completed (metrics, audit). Its errors are logged, never thrown. */
  onCompleted?: (job: Job, result: unknown) => void | Promise<void>;
  /** Side effect after an attempt failed (metrics, parking the ticket when `final`). Errors are logged. */
  onFailed?: (job: Job | undefined, error: Error, info: FailureInfo) => void | Promise<void>;
  /** Further BullMQ worker settings (lockDuration, stalledInterval…); cannot override the ones above. */
  workerOptions?: Omit<WorkerOptions, 'connection' | 'prefix' | 'concurrency' | 'autorun'>;
}

/**
 * A BullMQ `limiter` that never limits by count (no queue runs 2^53 jobs a second) but makes every worker of the queue
 * honour a manual rate limit (`queue.rateLimit(ms)`): BullMQ reads the limiter key only for a worker with a limiter,
 * so without one a manual limit pauses just the worker that set it. The agent workers use it to pause together while
 * the model server is out of use (src/runtime/agent-worker.ts). Costs one INCR per job started.
 */
export const MANUAL_RATE_LIMIT_ONLY = { max: Number.MAX_SAFE_INTEGER, duration: 1_000 } as const;

/**
 * The longest a worker of a rate-limited queue sleeps before it looks again (BullMQ's `maximumRateLimitDelay`, 30 s by
 * default): a second at most, and a quarter of the lock. BullMQ's worker sleeps out a rate limit whenever no run has
 * finished, though runs may still be under way; a job one of them fetches as it finishes (or a job fetched before the
 * limit) waits, active and locked but neither started nor its lock renewed, until the sleep ends. With the default it
 * lost its lock, stalled and ran again beside its first run, or waited up to 30 s after the model server was back.
 * Costs one Redis call per worker per step while a pause lasts.
 */
export function rateLimitSleepMs(lockDurationMs: number): number {
  return Math.max(50, Math.min(1_000, Math.floor(lockDurationMs / 4)));
}

/** True when BullMQ will not retry the job after this failure. */
export function isFinalFailure(job: Job | undefined, error: Error): boolean {
  if (!job) return true;
  if (error instanceof UnrecoverableError || error.name === 'UnrecoverableError') return true;
  return job.attemptsMade >= (job.opts.attempts ?? 1);
}

/**
 * Starts a worker for `queueName` that routes jobs by name to `handlers`. Checks the handlers first
 * ({@link assertHandlersComplete}), so a missing handler stops the process at startup rather than failing jobs.
 * The returned Worker emits BullMQ's events as usual for further listeners.
 */
export function createQueueWorker<Q extends QueueName>(options: QueueWorkerOptions<Q>): Worker {
  const { queueName, handlers, logger } = options;
  assertHandlersComplete(queueName, handlers as Record<string, unknown>);
  const table = new Map<string, JobHandler>(Object.entries(handlers) as [string, JobHandler][]);
  const log = logger.child({ queue: queueName });

  const processor = async (job: Job, _token?: string, signal?: AbortSignal): Promise<unknown> => {
    const handler = table.get(job.name);
    if (!handler) throw new UnrecoverableError(`No handler for job '${job.name}' on queue '${queueName}'`);
    const data = parseJobData(job.name, job.data);
    return handler(job as Job<never, unknown, never>, data as never, signal ? { signal } : {});
  };

  const worker = new Worker(queueName, processor, {
    ...options.workerOptions,
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency ?? 1,
    autorun: true,
  });

  // Without an error listener an EventEmitter 'error' would crash the process; connection trouble is retried
  // by ioredis and must not take the worker down.
  worker.on('error', (err) => logError(log, err, 'Worker error'));
  // A job of a ticket erased on request that was running during the erasure ends after it: BullMQ has just stored its
  // result or error, and an event of it, which may quote the customer. Both go (see src/tickets/erased.ts).
  const removeIfErased = (job: Job) => runSideEffect(log, 'erasure', () => removeErasedTicketJob(options.connection, options.prefix, worker.toKey('events'), job));
  worker.on('completed', (job, result) => {
    log.debug({ jobId: job.id, job: job.name }, 'Job completed');
    if (options.onCompleted) runSideEffect(log, 'onCompleted', () => options.onCompleted?.(job, result));
    removeIfErased(job);
  });
  worker.on('failed', (job, error) => {
    if (job) removeIfErased(job);
    const final = isFinalFailure(job, error);
    log[final ? 'error' : 'warn'](
      { jobId: job?.id, job: job?.name, attemptsMade: job?.attemptsMade, attempts: job?.opts.attempts, final, err: error },
      final ? 'Job failed for good' : 'Job attempt failed; will retry',
    );
    if (options.onFailed) runSideEffect(log, 'onFailed', () => options.onFailed?.(job, error, { final }));
  });
  worker.on('stalled', (jobId) => log.warn({ jobId }, 'Job stalled (worker lost its lock); it will be retried'));
  return worker;
}

function runSideEffect(log: Logger, what: string, effect: () => void | Promise<unknown> | undefined): void {
  try {
    Promise.resolve(effect()).catch((err: unknown) => log.error({ err }, `${what} listener failed`));
  } catch (err) {
    log.error({ err }, `${what} listener failed`);
  }
}

/** The queues, typed by their job names and payloads. */
export interface Queues {
  /** `answer-ticket` jobs. */
  tickets: Queue<JobPayloads['answer-ticket'], unknown, JobNameOf<'tickets'>>;
  /** `send-reply` jobs. */
  outbound: Queue<JobPayloads['send-reply'], unknown, JobNameOf<'outbound'>>;
  /** `reindex-manual` and `reindex-qa` jobs. */
  maintenance: Queue<JobPayloads['reindex-manual'], unknown, JobNameOf<'maintenance'>>;
  /** `copy-to-sent` jobs. */
  sentcopy: Queue<JobPayloads['copy-to-sent'], unknown, JobNameOf<'sentcopy'>>;
}

/**
 * Producer handles of every queue on one shared connection (use `connectProducer` for fail-fast adds, and
 * wrap adds in `produce` for a clear error while Redis is down). Every queue gets bounded retention defaults, so even a job added without the job-options helpers does
 * not accumulate forever.
 */
export function createQueues(connection: Redis, prefix: string, logger: Logger = createLogger('queues')): Queues {
  if (connection.options.enableOfflineQueue === false && connection.status !== 'ready') {
    // See waitForReady: such a queue would fail its initial commands and stay broken after Redis comes back.
    throw new Error('createQueues: the fail-fast producer connection is not ready yet; await waitForReady(connection) first');
  }
  const opts = { connection, prefix, defaultJobOptions: QUEUE_DEFAULT_JOB_OPTIONS };
  const queues: Queues = {
    tickets: new Queue(QUEUE_NAMES.tickets, opts),
    outbound: new Queue(QUEUE_NAMES.outbound, opts),
    maintenance: new Queue(QUEUE_NAMES.maintenance, opts),
    sentcopy: new Queue(QUEUE_NAMES.sentcopy, opts),
  };
  for (const queue of [queues.tickets, queues.outbound, queues.maintenance, queues.sentcopy]) {
    // Without a listener BullMQ prints every connection error to stderr.
    queue.on('error', (err: Error) => logError(logger.child({ queue: queue.name }), err, 'Queue error'));
  }
  return queues;
}

// Connection errors repeat on every reconnection attempt and the connection's retry strategy already logs
// them, so they go to debug; anything else is an error.
function logError(log: Logger, err: Error, msg: string): void {
  if (isConnectionError(err)) log.debug({ err: err.message }, msg);
  else log.error({ err }, msg);
}

/** Anything {@link closeAll} can close. */
export type Closable = Worker | Queue | Queues | Redis | { close(): Promise<unknown> };

/**
 * Closes workers, queues and connections in the given order (workers first, so running jobs finish before their
 * connection goes), attempting every one even when some fail, and then throws an AggregateError of the failures.
 */
export async function closeAll(...items: Closable[]): Promise<void> {
  const errors: unknown[] = [];
  for (const item of items) {
    try {
      if (isRedis(item)) {
        if (item.status === 'end') continue;
        await item.quit().catch(() => item.disconnect());
      } else if (isQueues(item)) {
        for (const queue of [item.tickets, item.outbound, item.maintenance, item.sentcopy]) await queue.close();
      } else {
        await item.close();
      }
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, `closeAll: ${errors.length} resource(s) failed to close`);
}

function isRedis(item: Closable): item is Redis {
  return typeof (item as Redis).quit === 'function' && typeof (item as Redis).duplicate === 'function' && 'status' in item;
}

function isQueues(item: Closable): item is Queues {
  return 'tickets' in item && 'outbound' in item && 'maintenance' in item && item.tickets instanceof Queue;
}
