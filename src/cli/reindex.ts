/**
 * `npm run reindex [-- --manual-only | --qa-only] [--json]`: rebuilds the manual and Q&A indexes from MANUALS_DIR
 * and QA_DIR with the same jobs the scheduler runs, then prints one summary line (or, with --json, one JSON object)
 * on stdout. Progress goes to stderr.
 *
 * `--queue` hands the rebuild to the maintenance workers instead (the scheduler role): it adds `reindex-manual`
 * and/or `reindex-qa` to the `maintenance` queue and prints the job ids; `--wait` then waits for the jobs and prints
 * the same summary. Use it where the indexes live with the workers (another machine's DATA_DIR, a deployment whose
 * knowledge files are mounted into the scheduler) and so that the rebuild never overlaps a scheduled one.
 *
 * Either way each build is recorded in Redis (`src/search/index-builds.ts`) as the one agent workers must serve: with
 * the embedded engines a local rebuild is how a machine's agent worker becomes current again after a rebuild
 * elsewhere. Redis is not needed for the rebuild itself: when it cannot be reached at all the rebuild stands and the
 * command exits 0 with a warning (README's `npm run reindex && npm run -s ask` runs without Redis); when Redis answers
 * but refuses the record (an error reply, out of memory) the command exits 1 after the rebuild.
 */
import { LearnedAnswerStore } from '../knowledge/learned-answers.js';
import { QueueEvents, type Job } from 'bullmq';
import { Command, Option } from 'commander';
import { reindexManual, type ReindexManualResult } from '../../jobs/reindex-manual.js';
import { reindexQa, type ReindexQaResult } from '../../jobs/reindex-qa.js';
import type { Config } from '../config.js';
import { isTextless, noReadableManualMessage } from '../knowledge/manual-loader.js';
import { connectProducer, createWorkerConnection, produce, RedisUnavailableError } from '../queues/connection.js';
import { reindexJob } from '../queues/job-options.js';
import { QUEUE_NAMES } from '../queues/names.js';
import { LockBusyError, withReindexLock } from '../queues/redis-lock.js';
import { closeAll as closeQueues, createQueues } from '../queues/registry.js';
import { createSearchBackends } from '../search/factory.js';
import { recordBuild, type IndexName } from '../search/index-builds.js';
import type { ManualSearch, QaSearch } from '../search/types.js';
import type { Redis } from 'ioredis';
import { CliError, closeAll, plural, parseCommandLine, runCommand, type CliContext } from './common.js';
import { formatReindexSummary, type ReindexSummary } from './format.js';
import { createProgressReporter } from './progress.js';

interface ReindexOptions {
  manualOnly?: boolean;
  qaOnly?: boolean;
  json?: boolean;
  queue?: boolean;
  wait?: boolean;
  verbose?: boolean;
}

/** One job added by `--queue`. */
interface QueuedJob {
  name: 'reindex-manual' | 'reindex-qa';
  jobId: string;
}

const program = new Command('reindex')
  .description('Rebuild the manual and Q&A search indexes from MANUALS_DIR and QA_DIR')
  .addOption(new Option('--manual-only', 'only the manual').conflicts('qaOnly'))
  .addOption(new Option('--qa-only', 'only the Q&A pairs').conflicts('manualOnly'))
  .option('--json', 'print the result as one JSON object')
  .option('--queue', 'queue the rebuild for the maintenance workers (npm run scheduler) instead of running it here')
  .addOption(new Option('--wait', 'with --queue: wait for the queued jobs and print their summary'))
  .option('--verbose', 'info log lines on stderr even while a progress bar is drawn')
  .showHelpAfterError()
  .action(async (opts: ReindexOptions) => {
    if (opts.wait && !opts.queue) program.error('error: --wait needs --queue');
    // A progress bar redraws its line on a terminal: info log lines would tear it, so they wait for --verbose.
    await runCommand('reindex', (ctx) => (opts.queue ? queueReindex(ctx, opts) : reindexHere(ctx, opts)), {
      groups: ['search', 'knowledge', 'llm', 'scheduler', 'pipeline'],
      quiet: process.stderr.isTTY === true,
      verbose: opts.verbose ?? false,
    });
  });

/** The job names a run asks for, manual first (it needs no LLM server, so it is useful even when that is down). */
function requestedJobs(opts: ReindexOptions): QueuedJob['name'][] {
  return [...(opts.qaOnly ? [] : (['reindex-manual'] as const)), ...(opts.manualOnly ? [] : (['reindex-qa'] as const))];
}

async function reindexHere({ config, logger, print }: CliContext, opts: ReindexOptions): Promise<void> {
  const started = performance.now();
  const backends = createSearchBackends(config);
  const progress = createProgressReporter(logger);
  const summary: ReindexSummary = { seconds: 0 };
  // A server backend (Meilisearch, Qdrant) is shared with the scheduler: its rebuild takes the same lock as the
  // scheduled one, so the two never swap aliases or delete builds under each other, and cannot go without Redis.
  // The embedded engine needs Redis only to record its build: each rebuild writes its own file and switches it in
  // with one rename.
  const server = Boolean(config.MEILI_HOST || config.QDRANT_URL);
  const connect = () => connectProducer(config.REDIS_URL, { name: `${config.QUEUE_PREFIX}:cli-reindex`, giveUpOnError: true, timeoutMs: 3_000 });
  const redis = server ? await connect() : undefined;
  // Connected while the rebuild runs, and waited for only when a build is to be recorded.
  const recorder: Promise<Redis | Error> = redis ? Promise.resolve(redis) : connect().catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
  // Why the first build could not be recorded: said once the rebuild is done (a warning or the command's failure).
  let unrecorded: unknown;
  const locked = async <T>(server: boolean, kind: 'manual' | 'qa', work: () => Promise<T>): Promise<T> => {
    if (!server || !redis) return await work();
    try {
      return await withReindexLock(redis, config.QUEUE_PREFIX, kind, work);
    } catch (err) {
      throw err instanceof LockBusyError ? new CliError(err.message) : err;
    }
  };
  // Right after each index is switched in, as the scheduler does: an agent worker of this machine that looks in
  // between sees a build it does not know for a moment only.
  const record = async (index: IndexName, backend: ManualSearch | QaSearch): Promise<void> => {
    try {
      const target = await recorder;
      if (target instanceof Error) throw target;
      await recordBuild(target, config.QUEUE_PREFIX, index, backend);
    } catch (err) {
      unrecorded ??= err;
    }
  };
  try {
    for (const name of requestedJobs(opts)) {
      if (name === 'reindex-manual') {
        summary.manual = await locked(Boolean(config.MEILI_HOST), 'manual', async () => {
          const result = await reindexManual({}, { config, manual: backends.manual, onProgress: progress.track('manual'), logger });
          await record('manual', backends.manual);
          return result;
        });
      } else {
        summary.qa = await locked(Boolean(config.QDRANT_URL), 'qa', async () => {
          // As before build records: with a server backend configured, the learned pairs are built in too.
          const learned = server && redis ? { learned: () => new LearnedAnswerStore(redis, { prefix: config.QUEUE_PREFIX }).qaPairs() } : {};
          const result = await reindexQa({}, { config, qa: backends.qa, onProgress: progress.track('Q&A'), logger, ...learned });
          await record('qa', backends.qa);
          return result;
        });
      }
    }
  } finally {
    progress.stop();
    await closeAll(backends.manual, backends.qa);
    const connection = await recorder;
    if (!(connection instanceof Error)) connection.disconnect();
  }
  summary.seconds = (performance.now() - started) / 1000;
  print(opts.json ? JSON.stringify(summary) : formatReindexSummary(summary));
  failWhenNothingFound(summary, config);
  if (unrecorded === undefined) return;
  if (!isUnreachable(unrecorded)) throw new CliError(unrecordedMessage(unrecorded));
  logger.warn(unreachableWarning(unrecorded));
}

/**
 * True when the connection to Redis failed before Redis said anything (refused, unknown host, no answer in time):
 * there may be no Redis here at all, as in README's `npm run reindex && npm run -s ask`, and the rebuild is all that
 * was asked. A Redis that answered with an error (a wrong password) set up for the workers is not that.
 */
function isUnreachable(err: unknown): err is RedisUnavailableError {
  return err instanceof RedisUnavailableError && !(err.cause instanceof Error && err.cause.name === 'ReplyError');
}

/**
 * Redis could not be reached: whether an agent worker minds depends on a build recorded there before, which cannot
 * be known now (without one, workers answer as before), so the command warns with both cases instead of failing.
 */
function unreachableWarning(err: RedisUnavailableError): string {
  const why = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `the index is rebuilt here, but this build is not recorded: Redis is unreachable at ${err.where}${why}; if a build was recorded there before, an agent worker serving this index takes no tickets until you run npm run reindex again with Redis reachable (npm run check compares them)`;
}

/**
 * Redis answered but refused the record: the rebuild stands, but agent workers compare what they serve with the last
 * recorded build there, so one serving this new index may take no tickets (see README, Scaling agent workers). A
 * success exit would hide a Redis the workers depend on refusing writes until mail stops being answered.
 */
function unrecordedMessage(err: unknown): string {
  const why = err instanceof Error ? err.message : String(err);
  return `the index is rebuilt here, but this build is not recorded in Redis (${why}): agent workers compare their index with the last build recorded there, so while another is recorded one serving this index takes no tickets; run \`npm run reindex\` again once Redis accepts the record (npm run check compares them)`;
}

/**
 * A manual directory with no readable file at all is almost always a wrong MANUALS_DIR or an unsupported layout:
 * the command says so and exits 1 (after the rest of the work), so a script or an operator cannot miss it. The job's
 * result names only the first skipped files; the rest are counted. File names reach the terminal through
 * `runCommand`, which makes the line `terminalSafe`. A manual of files that were read but held no text (scans, empty
 * pages) was counted as files read and gave an empty index without an error; it still does, its files now named in
 * the summary's warnings.
 */
function failWhenNothingFound(summary: ReindexSummary, config: Config): void {
  if (summary.manual && summary.manual.files === 0) {
    const skipped = summary.manual.skipped ?? [];
    // The loader lists the files without text first (loadManualChunks), so the named ones tell for the whole manual,
    // however many other files (120 old .doc) the result leaves unnamed.
    if (skipped.some(isTextless)) return;
    const unnamed = (summary.manual.skippedCount ?? skipped.length) - skipped.length;
    const more = unnamed > 0 ? `; and ${plural(unnamed, 'more file')} skipped (named in the log)` : '';
    throw new CliError(`${noReadableManualMessage(config.MANUALS_DIR, skipped)}${more}`);
  }
}

async function queueReindex({ config, print }: CliContext, opts: ReindexOptions): Promise<void> {
  const started = performance.now();
  // Fails within seconds with RedisUnavailableError ("Redis unavailable at redis://host:port: …"), one line.
  const redis = await connectProducer(config.REDIS_URL, { name: `${config.QUEUE_PREFIX}:cli-reindex`, giveUpOnError: true });
  const queues = createQueues(redis, config.QUEUE_PREFIX);
  // Listening starts before the jobs are added, so a job that finishes at once still reports its outcome.
  const events = opts.wait ? await listenForOutcomes(config) : undefined;
  try {
    const added: Job[] = [];
    for (const name of requestedJobs(opts)) {
      const job = reindexJob(name, { trigger: 'cli' });
      added.push(await produce(redis, () => queues.maintenance.add(job.name, job.data, job.opts)));
    }
    const queued: QueuedJob[] = added.map((job) => ({ name: job.name as QueuedJob['name'], jobId: String(job.id) }));
    if (!events) {
      print(opts.json ? JSON.stringify({ queued }) : queued.map((q) => `queued ${q.name} as job ${q.jobId}`).join('\n'));
      return;
    }
    if (!opts.json) print(queued.map((q) => `queued ${q.name} as job ${q.jobId}; waiting for it to finish`).join('\n'));
    const summary = await waitForJobs(added, events);
    summary.seconds = (performance.now() - started) / 1000;
    print(opts.json ? JSON.stringify({ queued, ...summary }) : formatReindexSummary(summary));
    failWhenNothingFound(summary, config);
  } finally {
    await closeQueues(...(events ? [events.queueEvents, events.connection] : []), queues, redis).catch(() => undefined);
  }
}

/** A running QueueEvents listener and its own connection (it blocks on XREAD, so it cannot share the producer's). */
interface OutcomeListener {
  queueEvents: QueueEvents;
  connection: ReturnType<typeof createWorkerConnection>;
}

async function listenForOutcomes(config: Config): Promise<OutcomeListener> {
  const connection = createWorkerConnection(config.REDIS_URL, { name: `${config.QUEUE_PREFIX}:cli-reindex:events` });
  const queueEvents = new QueueEvents(QUEUE_NAMES.maintenance, { connection, prefix: config.QUEUE_PREFIX });
  // The connection reconnects by itself and its retry strategy reports outages; an unhandled 'error' would crash.
  queueEvents.on('error', () => undefined);
  await queueEvents.waitUntilReady();
  return { queueEvents, connection };
}

/**
 * Waits for each job to complete (through its retries) and collects the summaries. A job that fails for good ends the
 * command with its reason; the other jobs keep running in the workers.
 */
/** How long `--wait` waits for a worker to take a job before it says that none has. */
const WAIT_HINT_MS = 15_000;

async function waitForJobs(jobs: Job[], { queueEvents }: OutcomeListener): Promise<ReindexSummary> {
  const summary: ReindexSummary = { seconds: 0 };
  for (const job of jobs) {
    let result: unknown;
    // Nothing takes the job while no scheduler role runs: say so once instead of waiting in silence.
    const hint = setTimeout(() => {
      void job.getState().then(
        (state) => {
          if (state === 'waiting' || state === 'delayed' || state === 'prioritized') {
            process.stderr.write(
              `reindex: no worker has taken ${job.name} job ${job.id} yet: is the scheduler role running (npm run scheduler, npm start, or the compose service)? Still waiting; Ctrl-C stops waiting, the job stays queued\n`,
            );
          }
        },
        () => undefined,
      );
    }, WAIT_HINT_MS);
    try {
      result = await job.waitUntilFinished(queueEvents);
    } catch (err) {
      throw new CliError(`${job.name} job ${job.id} failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      clearTimeout(hint);
    }
    if (job.name === 'reindex-manual') summary.manual = result as ReindexManualResult;
    else summary.qa = result as ReindexQaResult;
  }
  return summary;
}

await parseCommandLine(program);
