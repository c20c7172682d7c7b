/**
 * Every per-job option in one place: ids, attempts, backoff and retention. Producers build jobs only through the
 * functions here, so a retry policy is never decided at a call site.
 *
 * Deterministic job ids are the queue's half of "nothing answered twice": BullMQ ignores an `add` whose id
 * already exists (waiting, active, delayed, completed or failed and not yet removed), so the poller re-seeing a
 * mail, or a recovery sweep re-enqueueing a ticket stuck without a job, cannot create a second job. The ticket
 * store's transitions are the other half (a job whose ticket already moved on does nothing).
 *
 * Ids use `-` as separator: BullMQ rejects custom ids containing `:` (they would read as its own key separator;
 * only its legacy three-part repeat ids are allowed) and ids that parse as integers.
 */
import type { JobSchedulerTemplateOptions, JobsOptions } from 'bullmq';
import type { Config } from '../config.js';
import { TICKET_ID_PATTERN } from '../tickets/ticket.js';
import type { JobName } from './names.js';
import type { AnswerTicketData, CopyToSentData, ProposeLearnedAnswerData, ReindexData, RetentionData, SendReplyData } from './payloads.js';

const HOUR_S = 60 * 60;
const DAY_S = 24 * HOUR_S;

/** Backoff and retention knobs; tests shorten the delays, production uses {@link DEFAULT_TUNING}. */
export interface JobTuning {
  /** First retry delay of `answer-ticket` (doubles per attempt). */
  answerBackoffMs: number;
  /** First retry delay of `send-reply`; SMTP 4xx (greylisting, quota) wants minutes rather than seconds. */
  sendBackoffMs: number;
  /** First retry delay of reindex jobs. */
  reindexBackoffMs: number;
  /** Share of the delay randomised, so retries after a shared outage do not arrive in lockstep. */
  jitter: number;
  /** First retry delay of `copy-to-sent`; {@link SENT_COPY_BACKOFF_MS} when absent. */
  sentCopyBackoffMs?: number;
  /** First pause of the agent workers in a model outage; {@link MODEL_OUTAGE_FIRST_PAUSE_MS} when absent. */
  modelOutagePauseMs?: number;
  /** Longest pause of the agent workers in a model outage; {@link MODEL_OUTAGE_MAX_PAUSE_MS} when absent. */
  modelOutageMaxPauseMs?: number;
}

/**
 * The agent workers' first pause once a ticket found the model server out of use for a while (AGENT_MODEL_OUTAGE_MINUTES):
 * every agent worker stops taking tickets for it, then one ticket tries the model again. Each failed try doubles the
 * pause up to {@link MODEL_OUTAGE_MAX_PAUSE_MS}, so a long outage costs the model one request a minute, and a short one
 * is over for the tickets within seconds of the server answering again.
 */
export const MODEL_OUTAGE_FIRST_PAUSE_MS = 5_000;
/** Longest pause between two tries of a model server that is out of use; see {@link MODEL_OUTAGE_FIRST_PAUSE_MS}. */
export const MODEL_OUTAGE_MAX_PAUSE_MS = 60_000;

/** First retry delay of `copy-to-sent` in production: an IMAP server that is restarting is back within minutes. */
export const SENT_COPY_BACKOFF_MS = 60_000;
/**
 * Attempts of a `copy-to-sent` job: with {@link SENT_COPY_BACKOFF_MS} doubling, about two hours of IMAP trouble
 * are bridged. The copy is a convenience for the team (the reply went out already), so it is not retried forever.
 */
export const SENT_COPY_ATTEMPTS = 8;

/** Production tuning. With SENDER_ATTEMPTS=8 a reply is retried for about 2 hours before it is parked. */
export const DEFAULT_TUNING: JobTuning = {
  answerBackoffMs: 15_000,
  sendBackoffMs: 60_000,
  reindexBackoffMs: 60_000,
  jitter: 0.2,
};

/** Attempts of a reindex job; a failed reindex leaves the previous index serving, so few retries suffice. */
export const REINDEX_ATTEMPTS = 3;

/**
 * Completed jobs are kept a week: long enough for the dashboard and for the deterministic ids to absorb late
 * duplicates, bounded by count so a busy mailbox cannot grow Redis without limit.
 */
export const KEEP_COMPLETED = { age: 7 * DAY_S, count: 10_000 } as const;
/** Failed jobs are kept a month for inspection (the ticket records the outcome, the job the stack trace). */
export const KEEP_FAILED = { age: 30 * DAY_S, count: 50_000 } as const;

/** Defaults for every queue, so a job added without these helpers still has bounded retention. */
export const QUEUE_DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 1,
  removeOnComplete: KEEP_COMPLETED,
  removeOnFail: KEEP_FAILED,
  keepLogs: 100,
  stackTraceLimit: 20,
};

/** A job ready for `queue.add(job.name, job.data, job.opts)`. */
export interface JobSpec<N extends JobName, D> {
  /** Job name. */
  name: N;
  /** Job data (validated again by the worker). */
  data: D;
  /** Every per-job option. */
  opts: JobsOptions;
}

function checkTicketId(ticketId: string): void {
  if (!TICKET_ID_PATTERN.test(ticketId)) throw new TypeError(`Not a ticket id: ${ticketId}`);
}

function checkGeneration(generation: number): void {
  if (!Number.isInteger(generation) || generation < 1) throw new TypeError(`Job generation must be a positive integer, got ${generation}`);
}

/**
 * Job id of the `answer-ticket` job of a ticket in a given generation (`jobGeneration(ticket)`, the number of
 * state changes when the job is enqueued): the same for every enqueue of that round, new after an operator retry.
 */
export function answerJobId(ticketId: string, generation: number): string {
  checkTicketId(ticketId);
  checkGeneration(generation);
  return `answer-${ticketId}-g${generation}`;
}

/** Job id of the `send-reply` job of a ticket in a given generation; see {@link answerJobId}. */
export function sendJobId(ticketId: string, generation: number): string {
  checkTicketId(ticketId);
  checkGeneration(generation);
  return `send-${ticketId}-g${generation}`;
}

/**
 * Job id of the `copy-to-sent` job of a ticket's reply sent in a given generation (`jobGeneration` of the `sent`
 * ticket), so a `send-reply` that runs again after its transition cannot queue a second copy.
 */
export function sentCopyJobId(ticketId: string, generation: number): string {
  checkTicketId(ticketId);
  checkGeneration(generation);
  return `sentcopy-${ticketId}-g${generation}`;
}

/**
 * Job id of the `propose-learned-answer` job of a ticket approved in a given generation (`jobGeneration` of the
 * approved ticket): a double click or a retried approval adds one job.
 */
export function proposeLearnedJobId(ticketId: string, generation: number): string {
  checkTicketId(ticketId);
  checkGeneration(generation);
  return `learn-${ticketId}-g${generation}`;
}

/** Attempts of a `propose-learned-answer` job: a model or Redis hiccup is retried; the rules need neither model nor luck. */
export const PROPOSE_LEARNED_ATTEMPTS = 3;

/** A `propose-learned-answer` job for `queues.tickets.add(job.name, job.data, job.opts)`. */
export function proposeLearnedAnswerJob(ticketId: string, generation: number, tuning: JobTuning = DEFAULT_TUNING): JobSpec<'propose-learned-answer', ProposeLearnedAnswerData> {
  return {
    name: 'propose-learned-answer',
    data: { ticketId },
    opts: {
      ...QUEUE_DEFAULT_JOB_OPTIONS,
      jobId: proposeLearnedJobId(ticketId, generation),
      attempts: PROPOSE_LEARNED_ATTEMPTS,
      backoff: { type: 'exponential', delay: tuning.answerBackoffMs, jitter: tuning.jitter },
    },
  };
}

/** Options of an `answer-ticket` job: AGENT_ATTEMPTS with exponential backoff. */
export function answerTicketOptions(
  config: Pick<Config, 'AGENT_ATTEMPTS'>,
  ticketId: string,
  generation: number,
  tuning: JobTuning = DEFAULT_TUNING,
): JobsOptions {
  return {
    ...QUEUE_DEFAULT_JOB_OPTIONS,
    jobId: answerJobId(ticketId, generation),
    attempts: config.AGENT_ATTEMPTS,
    backoff: { type: 'exponential', delay: tuning.answerBackoffMs, jitter: tuning.jitter },
  };
}

/** Options of a `send-reply` job: SENDER_ATTEMPTS with exponential backoff. */
export function sendReplyOptions(
  config: Pick<Config, 'SENDER_ATTEMPTS'>,
  ticketId: string,
  generation: number,
  tuning: JobTuning = DEFAULT_TUNING,
): JobsOptions {
  return {
    ...QUEUE_DEFAULT_JOB_OPTIONS,
    jobId: sendJobId(ticketId, generation),
    attempts: config.SENDER_ATTEMPTS,
    backoff: { type: 'exponential', delay: tuning.sendBackoffMs, jitter: tuning.jitter },
  };
}

/** Options of a `copy-to-sent` job: {@link SENT_COPY_ATTEMPTS} with exponential backoff. */
export function copyToSentOptions(ticketId: string, generation: number, tuning: JobTuning = DEFAULT_TUNING): JobsOptions {
  return {
    ...QUEUE_DEFAULT_JOB_OPTIONS,
    jobId: sentCopyJobId(ticketId, generation),
    attempts: SENT_COPY_ATTEMPTS,
    backoff: { type: 'exponential', delay: tuning.sentCopyBackoffMs ?? SENT_COPY_BACKOFF_MS, jitter: tuning.jitter },
  };
}

/**
 * Options of a manually triggered reindex. Deduplicated per job name: a request while one is waiting is dropped,
 * a request while one runs is kept as a single follow-up (`keepLastIfActive`), since files may have changed after
 * the running one read them.
 */
export function reindexOptions(name: 'reindex-manual' | 'reindex-qa', tuning: JobTuning = DEFAULT_TUNING): JobsOptions {
  return {
    ...QUEUE_DEFAULT_JOB_OPTIONS,
    attempts: REINDEX_ATTEMPTS,
    backoff: { type: 'exponential', delay: tuning.reindexBackoffMs, jitter: tuning.jitter },
    deduplication: { id: name, keepLastIfActive: true },
  };
}

/** Template options of the cron job schedulers of the reindex jobs (`queue.upsertJobScheduler`). */
export function reindexSchedulerTemplateOptions(tuning: JobTuning = DEFAULT_TUNING): JobSchedulerTemplateOptions {
  return {
    ...QUEUE_DEFAULT_JOB_OPTIONS,
    attempts: REINDEX_ATTEMPTS,
    backoff: { type: 'exponential', delay: tuning.reindexBackoffMs, jitter: tuning.jitter },
  };
}

/**
 * An `answer-ticket` job for `queues.tickets.add(job.name, job.data, job.opts)`. `reviewBy`: see
 * {@link AnswerTicketData}; the job id does not depend on it, so asking twice is still one job.
 */
export function answerTicketJob(
  config: Pick<Config, 'AGENT_ATTEMPTS'>,
  ticketId: string,
  generation: number,
  tuning?: JobTuning,
  reviewBy?: string,
): JobSpec<'answer-ticket', AnswerTicketData> {
  return { name: 'answer-ticket', data: { ticketId, ...(reviewBy ? { reviewBy } : {}) }, opts: answerTicketOptions(config, ticketId, generation, tuning) };
}

/** A `send-reply` job for `queues.outbound.add(job.name, job.data, job.opts)`. */
export function sendReplyJob(
  config: Pick<Config, 'SENDER_ATTEMPTS'>,
  ticketId: string,
  generation: number,
  tuning?: JobTuning,
): JobSpec<'send-reply', SendReplyData> {
  return { name: 'send-reply', data: { ticketId }, opts: sendReplyOptions(config, ticketId, generation, tuning) };
}

/** A `copy-to-sent` job for `queues.sentcopy.add(job.name, job.data, job.opts)`. */
export function copyToSentJob(ticketId: string, generation: number, tuning?: JobTuning): JobSpec<'copy-to-sent', CopyToSentData> {
  return { name: 'copy-to-sent', data: { ticketId }, opts: copyToSentOptions(ticketId, generation, tuning) };
}

/** A manually triggered reindex job for `queues.maintenance.add(job.name, job.data, job.opts)`. */
export function reindexJob(
  name: 'reindex-manual' | 'reindex-qa',
  data: ReindexData,
  tuning?: JobTuning,
): JobSpec<'reindex-manual' | 'reindex-qa', ReindexData> {
  return { name, data, opts: reindexOptions(name, tuning) };
}

/** One cron job scheduler of the maintenance queue. */
export interface SchedulerSpec {
  /** Scheduler id (`upsertJobScheduler`'s first argument); one per job name, so upserts replace it. */
  id: 'reindex-manual' | 'reindex-qa';
  /** Cron pattern; empty when the schedule is disabled (the scheduler should then be removed). */
  pattern: string;
  /** False when the configured cron is empty: call `removeJobScheduler(id)` instead of upserting. */
  enabled: boolean;
  /** The job template for `upsertJobScheduler(id, { pattern }, template)`. */
  template: { name: 'reindex-manual' | 'reindex-qa'; data: ReindexData; opts: JobSchedulerTemplateOptions };
}

/** The reindex schedules from REINDEX_MANUAL_CRON and REINDEX_QA_CRON. */
export function reindexSchedulers(
  config: Pick<Config, 'REINDEX_MANUAL_CRON' | 'REINDEX_QA_CRON'>,
  tuning: JobTuning = DEFAULT_TUNING,
): SchedulerSpec[] {
  const specs: [SchedulerSpec['id'], string][] = [
    ['reindex-manual', config.REINDEX_MANUAL_CRON.trim()],
    ['reindex-qa', config.REINDEX_QA_CRON.trim()],
  ];
  return specs.map(([id, pattern]) => ({
    id,
    pattern,
    enabled: pattern !== '',
    template: { name: id, data: { trigger: 'schedule' }, opts: reindexSchedulerTemplateOptions(tuning) },
  }));
}

/**
 * Attempts of a retention run. A run that fails (Redis or the disk briefly unavailable, or an erasure holding the
 * lock) is retried a few times; tomorrow's run catches up on whatever is still left, since every run is idempotent.
 */
export const RETENTION_ATTEMPTS = 3;

/** Template options of the cron job scheduler of the retention job. */
export function retentionSchedulerTemplateOptions(tuning: JobTuning = DEFAULT_TUNING): JobSchedulerTemplateOptions {
  return {
    ...QUEUE_DEFAULT_JOB_OPTIONS,
    attempts: RETENTION_ATTEMPTS,
    backoff: { type: 'exponential', delay: tuning.reindexBackoffMs, jitter: tuning.jitter },
  };
}

/** The cron job scheduler of the retention job, from RETENTION_CRON. */
export interface RetentionSchedulerSpec {
  id: 'retention';
  pattern: string;
  enabled: boolean;
  template: { name: 'retention'; data: RetentionData; opts: JobSchedulerTemplateOptions };
}

/** The retention schedule from RETENTION_CRON (disabled when empty). */
export function retentionScheduler(config: Pick<Config, 'RETENTION_CRON'>, tuning: JobTuning = DEFAULT_TUNING): RetentionSchedulerSpec {
  const pattern = config.RETENTION_CRON.trim();
  return {
    id: 'retention',
    pattern,
    enabled: pattern !== '',
    template: { name: 'retention', data: { trigger: 'schedule' }, opts: retentionSchedulerTemplateOptions(tuning) },
  };
}
