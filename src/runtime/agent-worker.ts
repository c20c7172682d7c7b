/**
 * The agent-worker role: a BullMQ worker on `tickets` running `answer-ticket`, AGENT_CONCURRENCY tickets at once,
 * and `propose-learned-answer` (candidate Q&A pairs from an approved reply; it may call the model too).
 *
 * Reindexing (the `maintenance` queue) is not run here but by its own role (`src/runtime/maintenance.ts`,
 * `npm run scheduler`), which `npm start` includes: a rebuild then never competes with tickets for this worker's
 * event loop, and the one-at-a-time rule for rebuilds lives in one place. Agent workers pick up a new index through
 * the search backends' atomic switch.
 *
 * With the embedded engines a rebuild writes only the files of the machine that ran it. Every few seconds this
 * worker compares the indexes it serves with the last recorded build (`src/search/index-freshness.ts`); while one is
 * another build, or missing although a build is recorded, or it has no index at all, it takes no tickets (its BullMQ
 * worker is paused locally, so the tickets wait for a worker that is current, or for this one), says so once in its
 * log, and reports it for `/readyz`; it takes tickets again once the index matches. It does the same while its decision
 * settings (REVIEW_MODE, the reply limits…) differ from the ones the poller recorded (`desk-settings.ts`): the same
 * mail must not be sent by one worker and parked by another.
 */
import { randomUUID } from 'node:crypto';
import v8 from 'node:v8';
import { WaitingError, Worker, type Job, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { APIConnectionError, APIError, type OpenAI } from 'openai';
import { answerTicket, ModelServerWait, parkAfterFailure, type AnswerOutcome } from '../../jobs/answer-ticket.js';
import { proposeLearnedAnswer, type ProposeLearnedResult } from '../../jobs/propose-learned-answer.js';
import { agentRunSpendOf } from '../agent/agent.js';
import { LearnedAnswerStore } from '../knowledge/learned-answers.js';
import { apiKeyProblem, BASE_URL_V1_HINT, causes, createOpenAIClient, modelServerFailure } from '../openai.js';
import type { Config } from '../config.js';
import { recordAgentRun, recordFailedAgentRun, recordIgnored, recordModelCalls, recordReplyBounced } from '../server/metrics.js';
import { createLogger, type Logger } from '../logger.js';
import { MODEL_OUTAGE_FIRST_PAUSE_MS, MODEL_OUTAGE_MAX_PAUSE_MS, type JobTuning } from '../queues/job-options.js';
import { createQueueWorker, MANUAL_RATE_LIMIT_ONLY, rateLimitSleepMs, type HandlerMap } from '../queues/registry.js';
import { INDEX_NAMES, shortHash, type IndexName } from '../search/index-builds.js';
import { anyBlocks, blocksTickets, describeIndexProblem, describeIndexProblems, IndexFreshnessMonitor, INDEX_LABELS, noIndexYet, type IndexVerdicts } from '../search/index-freshness.js';
import { DeskSettingsMonitor, deskSettingsOf, describeDeskSettingsMismatch } from './desk-settings.js';
import type { RoleHandle } from './lifecycle.js';
import { RoleStatusReporter } from './role-status.js';
import type { Services } from './services.js';
import { AGENT_WORKER_TIMINGS, bullmqTimings, type WorkerTimings } from './worker-timings.js';
import { PARK_NOTE } from '../tickets/park-notes.js';

/**
 * V8's old-generation growing factor for this process: the heap may grow to (1 + n/100) × what survived the last
 * full GC before the next one. Left to itself V8 picks up to 4× for a fast-allocating process, and agent runs
 * allocate fast: at AGENT_CONCURRENCY 32 the old space grew to ~190 MB around ~40 MB of live objects (RSS ~340 MB).
 * With 2× it stayed at ~100 MB (RSS ~250 MB) for the same CPU (measured: 32 concurrent two-topic runs, 600 runs).
 * Set at run time because NODE_OPTIONS does not accept this flag; V8 reads it at every GC, so it applies from here on.
 */
export const AGENT_HEAP_GROWING_PERCENT = 100;

/**
 * V8's interrupt budget for this process (bytecode executed before a function is considered for optimisation;
 * V8's default is 67,584). An agent run goes through a large amount of LangGraph, LangChain and OpenAI SDK code,
 * each function a few times per ticket, so with the default a fresh worker runs much of it unoptimised for its
 * first few hundred tickets: measured with 32 concurrent two-topic runs, CPU per run fell from 35 to 24 ms only
 * after ~300 runs, and with 16,384 it was at 25 ms after ~100 (and the same ~20 ms once warm). A worker that
 * starts (a deploy, a scale-up) therefore costs less for its first thousand tickets. Compiling sooner costs more
 * in the first minute; the sender and the poller, which run far less code per mail, do not gain and keep the default.
 * Set at run time for the same reason as the heap flag; it applies to functions compiled from here on, which is
 * all of the agent's per-ticket code.
 */
export const AGENT_INTERRUPT_BUDGET = 16_384;

/**
 * How often an agent worker compares its indexes with the last recorded build (besides before each ticket), so that
 * a worker that became stale stops fetching tickets, and one made current again resumes, within this time. A check is
 * one `stat` per index file and one Redis read.
 */
export const INDEX_CHECK_MS = 5_000;

/** See {@link IndexFreshnessOptions.settleMs}: a local build records itself within milliseconds of its rename. */
export const INDEX_SETTLE_MS = 1_000;

/**
 * The agent workers' shared view of a model server that cannot be used for a while (AGENT_MODEL_OUTAGE_MINUTES), in
 * two Redis keys: the outage (when it began, the current pause and when that began, when the current try was taken,
 * and what kind of failure the server last had), which ends by itself when no ticket has failed for a few pauses or
 * when the model answers, and the one ticket
 * allowed to try the server while it lasts. The pause itself is BullMQ's manual rate limit of the `tickets` queue,
 * which every agent worker honours ({@link MANUAL_RATE_LIMIT_ONLY}). Nothing of a ticket is kept here: a try is named
 * by a random token, not by its job id, and the failure by its kind and the server's masked URL
 * (`modelOutageSummary`), never by what the server answered a ticket's request. Times are Redis's (`TIME`), the
 * clock the pause's key expires by, so workers on several machines agree on them.
 */
export class ModelOutageGate {
  private readonly outageKey: string;
  private readonly probeKey: string;
  private readonly firstPauseMs: number;
  private readonly maxPauseMs: number;
  private readonly probeTtlMs: number;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    tuning: Pick<JobTuning, 'modelOutagePauseMs' | 'modelOutageMaxPauseMs'>,
    llmTimeoutMs: number,
  ) {
    this.outageKey = `${prefix}:agent:model-outage`;
    this.probeKey = `${prefix}:agent:model-outage:probe`;
    this.firstPauseMs = tuning.modelOutagePauseMs ?? MODEL_OUTAGE_FIRST_PAUSE_MS;
    this.maxPauseMs = Math.max(this.firstPauseMs, tuning.modelOutageMaxPauseMs ?? MODEL_OUTAGE_MAX_PAUSE_MS);
    // A try that outlives this (a worker that died during it) no longer keeps the others from trying.
    this.probeTtlMs = 2 * Math.max(this.maxPauseMs, llmTimeoutMs);
  }

  /**
   * Before a run calls the model: undefined when no outage is known or this run takes the one try (`token` names
   * it), else what the server last failed with (the run waits without a request of its own).
   */
  async hold(token: string): Promise<string | undefined> {
    const what = await this.redis.eval(HOLD_SCRIPT, 2, this.outageKey, this.probeKey, token, this.probeTtlMs);
    return typeof what === 'string' ? what : undefined;
  }

  /**
   * A run found the server out of use (`held`: it was held back, without a request of its own): the pause every agent
   * worker takes now, 0 when there is none. The first failure of an outage pauses {@link MODEL_OUTAGE_FIRST_PAUSE_MS};
   * the failed try of a run that took it once the pause had run its course doubles it up to the longest pause; any
   * other failure keeps it (a run fetched before the pause, which may take the try at once, tells nothing new). A held
   * run whose outage ended meanwhile (the model answered another ticket) starts none: it returns 0.
   */
  async failed(token: string, what: string, held: boolean): Promise<number> {
    const pauseMs = await this.redis.eval(FAILED_SCRIPT, 2, this.outageKey, this.probeKey, token, what, held ? '1' : '0', this.firstPauseMs, this.maxPauseMs, this.keepMs);
    return Number(pauseMs) || 0;
  }

  /**
   * When the outage began (ms since the epoch, Redis's clock): the first failure that created the record. Every
   * ticket's wait ends AGENT_MODEL_OUTAGE_MINUTES after it at the latest ({@link ModelOutageWindow.outageSince}).
   * Undefined when no outage is known.
   */
  async since(): Promise<number | undefined> {
    const since = Number(await this.redis.hget(this.outageKey, 'since'));
    return Number.isFinite(since) && since > 0 ? since : undefined;
  }

  /**
   * A ticket's attempt failed on the model server after the window (its failures count again, and no pause is set):
   * the outage, if one is known, is kept as long as after a wait, so its start still counts for the tickets behind
   * it, which would otherwise wait a whole window again once it had run out between their attempts.
   */
  async stillFailing(): Promise<void> {
    await this.redis.pexpire(this.outageKey, this.keepMs);
  }

  /** How long the outage is kept after its last failure: a few of the longest pauses and a try that outlives them. */
  private get keepMs(): number {
    return 3 * this.maxPauseMs + this.probeTtlMs;
  }

  /**
   * Sets the pause {@link failed} returned on the `tickets` queue (BullMQ's manual rate limit, which every agent
   * worker honours). Two steps, not one script: the model may answer another ticket in between ({@link answered}
   * ends the outage and lifts the pause), and a pause set after that would stop every worker for a whole pause with
   * no outage left (bug review 43c). So the pause is lifted again when the outage is gone once it is set; whichever
   * order the two land in, no pause outlives its outage. Returns whether the pause stands.
   */
  async pause(tickets: Queue, pauseMs: number): Promise<boolean> {
    await tickets.rateLimit(pauseMs);
    if ((await this.redis.exists(this.outageKey)) > 0) return true;
    await tickets.removeRateLimitKey();
    return false;
  }

  /** The model answered a run: the outage is over, and every worker takes tickets again as its pause ends. */
  async answered(tickets: Queue): Promise<boolean> {
    const ended = await this.redis.del(this.outageKey, this.probeKey);
    if (ended > 0) await tickets.removeRateLimitKey();
    return ended > 0;
  }

  /** The run of `token` ended: its try, if it had it, is free for the next ticket. */
  async release(token: string): Promise<void> {
    await this.redis.eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0", 1, this.probeKey, token);
  }
}

/** Redis's clock in ms, in a script. */
const NOW_MS = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";

/**
 * {@link ModelOutageGate.hold}: KEYS outage, probe; ARGV token, probe TTL. Nil when no outage is known or the try is
 * taken now (its time noted), else the outage's `what`.
 */
const HOLD_SCRIPT = `
local what = redis.call('HGET', KEYS[1], 'what')
if not what then return false end
if redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2], 'NX') then
  ${NOW_MS}
  redis.call('HSET', KEYS[1], 'probeAt', now)
  return false
end
return what`;

/**
 * {@link ModelOutageGate.failed}: KEYS outage, probe; ARGV token, what, held ('1'), first pause, longest pause, how
 * long the outage is kept (ms). Returns the pause, 0 for a held run whose outage is over. The outage's start is
 * written once, when its record is created.
 */
const FAILED_SCRIPT = `
local before = tonumber(redis.call('HGET', KEYS[1], 'pauseMs') or '0') or 0
if before == 0 and ARGV[3] == '1' then return 0 end
${NOW_MS}
local pause = before
if before == 0 then
  pause = tonumber(ARGV[4])
elseif redis.call('GET', KEYS[2]) == ARGV[1] then
  local began = tonumber(redis.call('HGET', KEYS[1], 'pausedAt') or '0') or 0
  local probeAt = tonumber(redis.call('HGET', KEYS[1], 'probeAt') or '0') or 0
  if probeAt >= began + before then pause = math.min(before * 2, tonumber(ARGV[5])) end
end
redis.call('HSETNX', KEYS[1], 'since', now)
if pause ~= before then redis.call('HSET', KEYS[1], 'pausedAt', now) end
redis.call('HSET', KEYS[1], 'pauseMs', pause, 'what', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return pause`;

/** The start of a job's wait for the model server, as the handler keeps it in the job's data. */
function outageSinceOf(data: unknown): number | undefined {
  const since = (data as { modelOutageSince?: unknown } | undefined)?.modelOutageSince;
  return typeof since === 'number' && Number.isFinite(since) ? since : undefined;
}

/** Options of {@link startAgentWorker}; everything else comes from the configuration. */
export interface AgentWorkerOptions {
  /** Overrides AGENT_CONCURRENCY. */
  concurrency?: number;
  /** Overrides of {@link AGENT_WORKER_TIMINGS} (tests lower them). */
  timings?: Partial<WorkerTimings>;
  /** The machine's name in reports (default the host name): tests run several "machines" in one process. */
  host?: string;
  /** Overrides {@link INDEX_CHECK_MS} (tests lower it). */
  indexCheckMs?: number;
  /** Overrides {@link INDEX_SETTLE_MS}. */
  indexSettleMs?: number;
  /** The role's logger (default `createLogger('agent-worker')`). */
  logger?: Logger;
}

/** The running agent worker. */
export interface AgentWorkerRole extends RoleHandle {
  /** The BullMQ worker of the `tickets` queue, for listeners (tests). */
  readonly worker: Worker;
}

/**
 * What changed about the indexes, as log lines: an error (with what to do) for an index that now keeps the worker
 * from taking tickets (one for both when it has none at all), a warning for one that is missing before any build, an
 * info line for one that is fine again. An index whose problem did not change gives no line, so each problem is
 * logged once.
 */
export function indexLogLines(verdicts: IndexVerdicts, previous: IndexVerdicts | undefined): IndexLogLine[] {
  const words = { who: 'this agent worker', where: 'this machine', when: (at: number) => `built ${new Date(at).toISOString()}` };
  // With no index at all both indexes have one problem, said once.
  const problem = (of: IndexVerdicts, index: IndexName) =>
    noIndexYet(of) ? describeIndexProblems(of, words)[0] : describeIndexProblem(index, of[index], words);
  const lines = INDEX_NAMES.flatMap((index): IndexLogLine[] => {
    const now = problem(verdicts, index);
    const before = previous && problem(previous, index);
    if (now === before) return [];
    if (now) return [{ level: blocksTickets(verdicts[index]) || noIndexYet(verdicts) ? 'error' : 'warn', message: now }];
    const last = verdicts[index].state === 'current' ? ', the last build' : '';
    return [{ level: 'info', message: `the ${INDEX_LABELS[index]} index here is ${shortHash(verdicts[index].hash)} now${last}` }];
  });
  return lines.filter((line, i) => lines.findIndex((other) => other.message === line.message) === i);
}

/** One line of {@link indexLogLines}. */
export interface IndexLogLine {
  level: 'error' | 'warn' | 'info';
  message: string;
}

/**
 * Asks the model server for its model list once, when the worker starts, so `/readyz` says at once that the key is
 * refused or the server cannot be reached, instead of after the first customer's mail failed and parked. Only what
 * no request gets past counts as a failure: no connection, or 401. A server without a model list (404) or a key not
 * allowed to list models (403) says nothing about chat, and is no report either way; a 404 under a base URL without
 * `/v1` is worth a warning, since chat is then likely to miss as well. Costs no tokens.
 *
 * OpenAI without a real key ({@link apiKeyProblem}) is reported as that, without a request: OpenAI refuses it
 * anyway, and on a machine without access to OpenAI the request's "cannot reach … ENOTFOUND" hid the cause.
 */
export async function probeModelServer(
  client: OpenAI,
  config: Pick<Config, 'OPENAI_BASE_URL' | 'OPENAI_API_KEY'>,
  reporter: RoleStatusReporter,
  logger: Logger,
): Promise<void> {
  const keyProblem = apiKeyProblem(config);
  if (keyProblem) {
    logger.warn(`model server check at start failed: ${keyProblem}; tickets are retried, then parked for a person, until it is fixed`);
    await reporter.failed(keyProblem);
    return;
  }
  try {
    await client.models.list();
    await reporter.reached();
  } catch (err) {
    const failure = modelServerFailure(err, config);
    const refused = [...causes(err)].some((e) => e instanceof APIConnectionError || (e instanceof APIError && e.status === 401));
    if (failure?.endsWith(BASE_URL_V1_HINT)) logger.warn(`model server check at start: ${failure}`);
    if (!failure || !refused) return;
    logger.warn(`model server check at start failed: ${failure}; tickets are retried, then parked for a person, until it is fixed`);
    await reporter.failed(failure);
  }
}

/**
 * Starts the agent-worker role. Waits for Redis (logging while it is unreachable); the returned handle's `stop`
 * lets running jobs finish (`worker.close()`), after which the process may close the shared services.
 */
export async function startAgentWorker(services: Services, options: AgentWorkerOptions = {}): Promise<AgentWorkerRole> {
  const { config } = services;
  const logger = options.logger ?? createLogger('agent-worker');
  v8.setFlagsFromString(`--heap-growing-percent=${AGENT_HEAP_GROWING_PERCENT}`);
  v8.setFlagsFromString(`--interrupt-budget=${AGENT_INTERRUPT_BUDGET}`);
  const timings = { ...AGENT_WORKER_TIMINGS, ...options.timings };
  const [redis, store, queues] = [await services.producer(), await services.store(), await services.queues()];
  // Whether this worker can use the model server, for /readyz and the review page (src/runtime/role-status.ts).
  const reporter = new RoleStatusReporter(redis, config.QUEUE_PREFIX, 'agent', { ...(options.host ? { host: options.host } : {}), logger });
  // In the background: a slow or absent server must not hold up taking tickets (they retry on their own).
  void probeModelServer(createOpenAIClient(config), config, reporter, logger);
  const agent = services.agent();
  const deps = { config, store, redis, outbound: queues.outbound, agent, tuning: services.tuning, logger };
  const learnedDeps = {
    store,
    learned: new LearnedAnswerStore(redis, { prefix: config.QUEUE_PREFIX }),
    llm: { client: createOpenAIClient(config), model: config.OPENAI_MODEL },
    logger: createLogger('learned-answers'),
    mailFrom: config.MAIL_FROM,
  };

  // The monitors start once the worker exists: their first verdicts may pause it.
  let worker: Worker | undefined;
  // What keeps the worker from fetching tickets; it runs again once neither does.
  const blockedBy = { indexes: false, deskSettings: false };
  let paused = false;
  /** Pauses or resumes the worker for `blockedBy`, synchronously, so no ticket is fetched before it takes effect. */
  const applyBlocks = (): void => {
    const blocked = blockedBy.indexes || blockedBy.deskSettings;
    if (blocked && !paused) {
      paused = true;
      // Tickets already running finish; the worker only stops fetching.
      worker?.pause(true).catch((err: unknown) => logger.warn({ err }, 'could not pause the worker'));
    } else if (!blocked && paused) {
      paused = false;
      worker?.resume().catch((err: unknown) => logger.warn({ err }, 'could not resume the worker'));
    }
  };
  const freshness = new IndexFreshnessMonitor({
    redis,
    prefix: config.QUEUE_PREFIX,
    search: services.search(),
    intervalMs: options.indexCheckMs ?? INDEX_CHECK_MS,
    settleMs: options.indexSettleMs ?? INDEX_SETTLE_MS,
    log: logger,
    onChange: async (verdicts, previous) => {
      // Paused before anything is awaited, so no ticket is fetched in between (see the gate below).
      const blocked = anyBlocks(verdicts);
      blockedBy.indexes = blocked;
      applyBlocks();
      for (const line of indexLogLines(verdicts, previous)) logger[line.level]({ process: reporter.process }, line.message);
      if (!blocked && anyBlocks(previous)) logger.info({ process: reporter.process }, 'the indexes are current again; taking tickets');
      await reporter.indexes(verdicts);
    },
  });
  const deskSettings = new DeskSettingsMonitor({
    redis,
    prefix: config.QUEUE_PREFIX,
    own: deskSettingsOf(config),
    intervalMs: options.indexCheckMs ?? INDEX_CHECK_MS,
    settleMs: options.indexSettleMs ?? INDEX_SETTLE_MS,
    log: logger,
    onChange: async (mismatch, previous) => {
      // As for the indexes: paused before anything is awaited.
      blockedBy.deskSettings = mismatch !== undefined;
      applyBlocks();
      if (mismatch) logger.error({ process: reporter.process }, describeDeskSettingsMismatch(mismatch, { who: 'this agent worker', where: 'this machine' }));
      else if (previous) logger.info({ process: reporter.process }, `the decision settings match those of ${previous.pollerHost} (the poller's machine) again; taking tickets`);
      await reporter.deskSettings(mismatch);
    },
  });
  /**
   * Each ticket checks first, so one that arrives just after a rebuild elsewhere is not answered from the old index
   * while the periodic check is still to come, nor one just after the poller recorded other decision settings with
   * this worker's. A ticket this worker must not answer goes back to the queue untouched, attempts and all, for a
   * worker whose indexes and settings are current (this one is paused by then).
   */
  const answerWhenCurrent = async (job: Job): Promise<void> => {
    const [verdicts, mismatch] = await Promise.all([freshness.check(), deskSettings.check()]);
    if (!anyBlocks(verdicts) && !mismatch) return;
    await job.moveToWait(job.token);
    throw new WaitingError();
  };

  const outage = new ModelOutageGate(redis, config.QUEUE_PREFIX, services.tuning, config.LLM_TIMEOUT_MS);
  const outageWindowMs = Math.round(config.AGENT_MODEL_OUTAGE_MINUTES * 60_000);
  /**
   * A ticket whose model server is out of use for a while waits instead of using its attempts: the start of its wait
   * goes into the job's data (a restart keeps it), every agent worker pauses (BullMQ's manual rate limit of the queue,
   * which puts the job back at the head of the queue without counting an attempt), and after the pause one ticket
   * tries the server again. Once AGENT_MODEL_OUTAGE_MINUTES have passed since the outage began (or since the ticket's
   * first wait, if earlier) the ticket's failures count again: tickets a backlog kept in the queue all that time are
   * parked after their attempts too, not a whole window later.
   */
  const waitForModelServer = async (job: Job, wait: ModelServerWait): Promise<never> => {
    if (outageSinceOf(job.data) === undefined) await job.updateData({ ...(job.data as object), modelOutageSince: wait.since });
    // The model billed the calls it answered before the run broke off; a wait fires no `failed` event to count them.
    const spend = agentRunSpendOf(wait.cause);
    if (spend?.resultStored) await recordAgentRun(redis, config.QUEUE_PREFIX, spend);
    else if (spend) await recordFailedAgentRun(redis, config.QUEUE_PREFIX, spend);
    const pauseMs = await outage.failed(runToken(job), wait.outage, wait.held);
    const ticketId = (job.data as { ticketId?: unknown }).ticketId;
    if (pauseMs === 0) {
      // Held, but the model answered another ticket meanwhile: this one goes back to the head of the queue at once.
      logger.info({ jobId: job.id, ticketId }, 'the model server answered another ticket meanwhile; this ticket tries it now');
      throw Worker.RateLimitError();
    }
    logger.warn(
      { jobId: job.id, ticketId, waitingSince: new Date(wait.since).toISOString(), pauseMs },
      `waiting for the model server (AGENT_MODEL_OUTAGE_MINUTES): ${wait.what}; agent workers pause ${pauseMs} ms, then one ticket tries it again`,
    );
    // /readyz says the model server fails, as for a failed attempt.
    const serverDown = wait.cause ? modelServerFailure(wait.cause, config) : undefined;
    if (serverDown) await reporter.failed(serverDown);
    await outage.pause(queues.tickets, pauseMs);
    throw Worker.RateLimitError();
  };
  // One token per run: the try a run takes is its own, not that of a later run of the same job.
  const runTokens = new WeakMap<Job, string>();
  const runToken = (job: Job): string => {
    let token = runTokens.get(job);
    if (!token) runTokens.set(job, (token = randomUUID()));
    return token;
  };

  const ticketHandlers: HandlerMap<'tickets'> = {
    'answer-ticket': async (job, data, context) => {
      await answerWhenCurrent(job);
      const since = outageSinceOf(job.data);
      const outageSince = outageWindowMs > 0 ? await outage.since() : undefined;
      try {
        const outcome = await answerTicket(data, deps, {
          attemptsMade: job.attemptsMade,
          attempts: job.opts.attempts ?? 1,
          ...(job.id ? { jobId: job.id } : {}),
          ...(context.signal ? { signal: context.signal } : {}),
          modelOutage: {
            ...(since !== undefined ? { since } : {}),
            ...(outageSince !== undefined ? { outageSince } : {}),
            windowMs: outageWindowMs,
            hold: () => outage.hold(runToken(job)),
          },
        });
        if (outcome.agentRun && (await outage.answered(queues.tickets))) {
          logger.info({ jobId: job.id }, 'the model server answers again; agent workers take tickets again');
        }
        return outcome;
      } catch (err) {
        if (err instanceof ModelServerWait) return await waitForModelServer(job, err);
        throw err;
      } finally {
        await outage.release(runToken(job));
      }
    },
    'propose-learned-answer': (_job, data, context) => proposeLearnedAnswer(data, learnedDeps, context.signal),
  };
  worker = createQueueWorker({
    queueName: 'tickets',
    handlers: ticketHandlers,
    connection: services.workerConnection(),
    prefix: config.QUEUE_PREFIX,
    concurrency: options.concurrency ?? config.AGENT_CONCURRENCY,
    logger,
    // The handler parks on the failures it sees; this catches the ones it cannot (a job that stalled too often).
    onFailed: async (job, error, { final }) => {
      // A failed proposal loses a suggestion, never the ticket: only the agent's own job parks.
      if (!job || job.name !== 'answer-ticket') return;
      const ticketId = (job.data as { ticketId?: unknown }).ticketId;
      if (final && typeof ticketId === 'string') await parkAfterFailure(store, ticketId, `${PARK_NOTE.agentJobFailed}: ${error.message}`, logger);
      // Every failed attempt, retried or not: the model billed the calls it answered before the run broke off.
      const spend = agentRunSpendOf(error);
      // A run whose result the ticket holds produced one (the send job could not be queued after it).
      if (spend?.resultStored) await recordAgentRun(redis, config.QUEUE_PREFIX, spend);
      else if (spend) await recordFailedAgentRun(redis, config.QUEUE_PREFIX, spend);
      const serverDown = modelServerFailure(error, config);
      if (serverDown) await Promise.all([reporter.failed(serverDown), outage.stillFailing()]);
    },
    // Metrics hang off the lifecycle event, not the handler: a failing counter never fails a ticket.
    onCompleted: async (job, result) => {
      if (job.name === 'propose-learned-answer') {
        const proposal = result as ProposeLearnedResult | undefined;
        if (proposal?.llmCalls) await recordModelCalls(redis, config.QUEUE_PREFIX, proposal.llmCalls);
        return;
      }
      const outcome = result as AnswerOutcome | undefined;
      if (outcome?.agentRun) await Promise.all([recordAgentRun(redis, config.QUEUE_PREFIX, outcome.agentRun), reporter.reached()]);
      if (outcome?.outcome === 'ignored') await recordIgnored(redis, config.QUEUE_PREFIX, outcome.ignoreReason);
      if (outcome?.outcome === 'ignored' && outcome.bouncedReplyOf) await recordReplyBounced(redis, config.QUEUE_PREFIX);
    },
    // Every agent worker honours the pause one of them sets when the model server is out of use, and sleeps through
    // it in short steps: see rateLimitSleepMs.
    workerOptions: { ...bullmqTimings(timings), limiter: MANUAL_RATE_LIMIT_ONLY, maximumRateLimitDelay: rateLimitSleepMs(timings.lockDurationMs) },
  });
  freshness.start();
  deskSettings.start();
  const started = worker;

  logger.info(
    { concurrency: options.concurrency ?? config.AGENT_CONCURRENCY, reviewMode: config.REVIEW_MODE, ...timings },
    'Agent worker waiting for tickets',
  );
  let stopping: Promise<void> | undefined;
  return {
    name: 'agent-worker',
    worker: started,
    stop: () =>
      (stopping ??= (async () => {
        await Promise.all([freshness.stop(), deskSettings.stop()]);
        await started.close();
        await reporter.close();
      })()),
  };
}
