/**
 * Prometheus metrics of the whole deployment, served by the dashboard at `/metrics`.
 *
 * Two kinds of numbers:
 * - State the dashboard can read at scrape time: tickets per state (`TicketStore.countByState`, one ZCARD per state,
 *   no scanning) and the job counts of each queue (BullMQ `getJobCounts`).
 * - Events that happen in other processes (agent workers, the sender, the poller): those processes record them with
 *   {@link recordAgentRun}, {@link recordFailedAgentRun}, {@link recordReplySent}, {@link recordReplyBounced} and
 *   {@link recordIgnored} into Redis
 *   counters, and the dashboard reads the counters at scrape time. Redis is already shared by every process, so the
 *   numbers add up across all machines without a push gateway or one scrape target per worker.
 *
 * Redis key layout (P = QUEUE_PREFIX; no queue is named `metrics`, so BullMQ's `P:<queue>:…` keys cannot collide):
 *
 * | key                   | type | fields                                                                        |
 * |-----------------------|------|-------------------------------------------------------------------------------|
 * | `P:metrics:counters`  | hash | `llm_calls`, `llm_prompt_tokens`, `llm_completion_tokens` (of runs finished   |
 * |                       |      | and failed), `agent_runs_failed`, `replies_sent`, `replies_bounced`,          |
 * |                       |      | `tickets_archived`, `raw_mails_dropped` (retention job)                       |
 * | `P:metrics:ignored`   | hash | one field per ignore reason (`auto-reply`, `bounce`, …) → mails ignored        |
 * | `P:metrics:agent_run` | hash | `count`, `sum_ms` (total duration in ms), and `le:<seconds>` / `le:+Inf`: runs |
 * |                       |      | whose duration fell in that bucket (not cumulative; summed up at scrape time)  |
 *
 * An agent run counts in the duration histogram when it produced a result (the ticket was then drafted or parked).
 * A run that failed (the model server erred midway, the job was retried or given up on) has no comparable duration,
 * but the model still billed the calls it answered: those count in the LLM counters, and the run in
 * `agent_runs_failed`. {@link recordFailedAgentRun} also adds them to the insights' day hash, where the ticket store
 * counts the calls of the runs whose result it stores.
 *
 * Ticket outcomes and the edit-ratio histogram are counted by the ticket store itself, in the write that ends a
 * ticket (keys in src/tickets/outcome.ts, `outcomeKeys`), and read here the same way.
 *
 * Every field only ever grows (HINCRBY), as Prometheus counters expect; deleting the keys resets the counters, which
 * Prometheus' `rate()` handles as a counter reset. Buckets are stored per bucket rather than cumulatively so one run
 * costs one HINCRBY, and so a later change of {@link AGENT_RUN_BUCKETS_SECONDS} only re-bins old counts (each stored
 * bucket is counted in the first current bucket at or above it) instead of corrupting them.
 */
import type { Redis } from 'ioredis';
import { Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValueWithName } from 'prom-client';
import { usageOf, type AgentRunSpend, type LlmUsage, type ModelCallUsage } from '../agent/types.js';
import type { IgnoreReason } from '../mail/classify.js';
import { execAll } from '../queues/connection.js';
import { ALL_QUEUE_NAMES } from '../queues/names.js';
import type { Queues } from '../queues/registry.js';
import { TICKET_STATES } from '../tickets/ticket.js';
import type { TicketStore } from '../tickets/ticket-store.js';
import { llmCallFields } from '../tickets/insights.js';
import { EDIT_RATIO_BUCKETS, EDIT_RATIO_SUM_SCALE, OUTCOME_DAY_TTL_S, OUTCOMES, outcomeDay, outcomeKeys } from '../tickets/outcome.js';

/** Upper bounds (seconds) of the agent run duration histogram: runs take seconds to minutes. */
export const AGENT_RUN_BUCKETS_SECONDS = [1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600] as const;

/** Every ignore reason, so each has a series (0 until it happens) and dashboards need not guess the label values. */
export const IGNORE_REASONS = [
  'auto-reply',
  'bounce',
  'list',
  'loop',
  'own-address',
  'spam',
  'no-reply-sender',
  'no-sender',
  'acknowledgement',
] as const satisfies readonly IgnoreReason[];
// Fails to compile when src/mail/classify.ts gains a reason that is missing above.
const everyReasonListed: Exclude<IgnoreReason, (typeof IGNORE_REASONS)[number]> extends never ? true : never = true;
void everyReasonListed;

/** The BullMQ job states exported per queue (BullMQ 6 keeps the jobs of a paused queue in `waiting`). */
export const QUEUE_JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed', 'completed'] as const;

/** Metric names, for dashboards, alerts and tests. */
export const METRIC_NAMES = {
  tickets: 'helpdesk_tickets',
  queueJobs: 'helpdesk_queue_jobs',
  agentRunDuration: 'helpdesk_agent_run_duration_seconds',
  agentRunsFailed: 'helpdesk_agent_runs_failed_total',
  llmCalls: 'helpdesk_llm_calls_total',
  llmTokens: 'helpdesk_llm_tokens_total',
  repliesSent: 'helpdesk_replies_sent_total',
  repliesBounced: 'helpdesk_replies_bounced_total',
  mailsIgnored: 'helpdesk_mails_ignored_total',
  ticketsStored: 'helpdesk_tickets_stored',
  redisMemory: 'helpdesk_redis_used_memory_bytes',
  ticketsArchived: 'helpdesk_tickets_archived_total',
  rawMailsDropped: 'helpdesk_raw_mails_dropped_total',
  ticketOutcomes: 'helpdesk_ticket_outcomes_total',
  editRatio: 'helpdesk_ticket_edit_ratio',
} as const;

/** The Redis keys of the recorded counters; see the module comment. */
export function metricsKeys(prefix: string) {
  if (!prefix) throw new TypeError('metricsKeys: prefix is required');
  return {
    counters: `${prefix}:metrics:counters`,
    ignored: `${prefix}:metrics:ignored`,
    agentRun: `${prefix}:metrics:agent_run`,
  } as const;
}

/** The hash field of the bucket a run of `durationMs` falls in. */
export function agentRunBucketField(durationMs: number): string {
  const seconds = durationMs / 1000;
  const bound = AGENT_RUN_BUCKETS_SECONDS.find((le) => seconds <= le);
  return `le:${bound === undefined ? '+Inf' : String(bound)}`;
}

function nonNegativeInt(value: number, what: string): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${what} must be a finite number ≥ 0, got ${value}`);
  return Math.round(value);
}

/**
 * Records one agent run that produced a result: its duration (histogram) and its LLM calls and tokens. Called by
 * the agent worker when an `answer-ticket` job completed after running the agent; a run that failed is recorded by
 * {@link recordFailedAgentRun} instead.
 */
export async function recordAgentRun(
  redis: Redis,
  prefix: string,
  run: { durationMs: number; usage: CountedUsage },
): Promise<void> {
  const k = metricsKeys(prefix);
  const ms = nonNegativeInt(run.durationMs, 'durationMs');
  await execWithUsage(
    prefix,
    redis
      .multi()
      .hincrby(k.agentRun, 'count', 1)
      .hincrby(k.agentRun, 'sum_ms', ms)
      .hincrby(k.agentRun, agentRunBucketField(ms), 1),
    run.usage,
  );
}

type CountedUsage = Pick<LlmUsage, 'calls' | 'promptTokens' | 'completionTokens'>;

/** Adds a run's LLM calls and tokens to the counters, in the transaction `multi`, and runs it. */
async function execWithUsage(prefix: string, multi: ReturnType<Redis['multi']>, usage: CountedUsage): Promise<void> {
  const k = metricsKeys(prefix);
  await execAll(
    multi
      .hincrby(k.counters, 'llm_calls', nonNegativeInt(usage.calls, 'usage.calls'))
      .hincrby(k.counters, 'llm_prompt_tokens', nonNegativeInt(usage.promptTokens, 'usage.promptTokens'))
      .hincrby(k.counters, 'llm_completion_tokens', nonNegativeInt(usage.completionTokens, 'usage.completionTokens')),
  );
}

/**
 * Records one agent run that failed: the LLM calls the model server answered before the failure, and their tokens,
 * in the counters and in the insights' day hash of `at` (the failure's day in the process's zone, `outcomeDay`), and
 * the run in `agent_runs_failed`. Not in the duration histogram: a run cut short says nothing about how long
 * answering takes. Called by the agent worker when an `answer-ticket` attempt failed, retried or not.
 */
export async function recordFailedAgentRun(
  redis: Redis,
  prefix: string,
  spend: Pick<AgentRunSpend, 'usage' | 'llmCalls'>,
  at: Date = new Date(),
): Promise<void> {
  const multi = redis.multi().hincrby(metricsKeys(prefix).counters, 'agent_runs_failed', 1);
  await execWithUsage(prefix, withDayCalls(multi, prefix, spend.llmCalls, at), spend.usage);
}

/**
 * Records LLM calls made outside an agent run (proposing learned answers: splitting the approved reply, the
 * personal-data pass): in the LLM counters and in the insights' day hash of `at`, so the cost shown covers them.
 * Called by the agent worker when a `propose-learned-answer` job completed.
 */
export async function recordModelCalls(redis: Redis, prefix: string, calls: readonly ModelCallUsage[], at: Date = new Date()): Promise<void> {
  if (calls.length === 0) return;
  await execWithUsage(prefix, withDayCalls(redis.multi(), prefix, calls, at), usageOf(calls));
}

/** Adds the day-hash increments of `calls` (per model: calls and tokens) to `multi`. */
function withDayCalls(multi: ReturnType<Redis['multi']>, prefix: string, calls: readonly ModelCallUsage[], at: Date): ReturnType<Redis['multi']> {
  const day = outcomeKeys(prefix).day(outcomeDay(at.toISOString()));
  for (const [field, n] of llmCallFields(calls)) multi.hincrby(day, field, nonNegativeInt(n, field));
  return multi.expire(day, OUTCOME_DAY_TTL_S);
}

/** Records one reply accepted by the SMTP server. Called by the sender. */
export async function recordReplySent(redis: Redis, prefix: string): Promise<void> {
  await redis.hincrby(metricsKeys(prefix).counters, 'replies_sent', 1);
}

/** Records what a retention run removed from Redis. Called by the retention job. */
export async function recordRetention(redis: Redis, prefix: string, run: { ticketsArchived: number; rawMailsDropped: number }): Promise<void> {
  const k = metricsKeys(prefix);
  await execAll(
    redis
      .multi()
      .hincrby(k.counters, 'tickets_archived', nonNegativeInt(run.ticketsArchived, 'ticketsArchived'))
      .hincrby(k.counters, 'raw_mails_dropped', nonNegativeInt(run.rawMailsDropped, 'rawMailsDropped')),
  );
}

/** Records one reply of ours that a bounce reported undelivered. Called by the agent worker. */
export async function recordReplyBounced(redis: Redis, prefix: string): Promise<void> {
  await redis.hincrby(metricsKeys(prefix).counters, 'replies_bounced', 1);
}

/** Records one inbound mail that gets no answer, by reason. Called by the poller. */
export async function recordIgnored(redis: Redis, prefix: string, reason: IgnoreReason): Promise<void> {
  if (!(IGNORE_REASONS as readonly string[]).includes(reason)) throw new TypeError(`Unknown ignore reason: ${String(reason)}`);
  await redis.hincrby(metricsKeys(prefix).ignored, reason, 1);
}

/** A histogram as read from the `agent_run` hash. */
export interface HistogramSnapshot {
  /** Cumulative counts per upper bound, in the order of {@link AGENT_RUN_BUCKETS_SECONDS}, then `+Inf`. */
  buckets: { le: string; count: number }[];
  count: number;
  /** Sum of the observations, in the metric's unit. */
  sum: number;
}

function toCount(value: string | undefined): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** Where a histogram hash keeps its sum: the field and what one unit of it is worth (agent runs: milliseconds). */
export interface HistogramSum {
  field: string;
  /** Stored units per unit of the metric. */
  scale: number;
}

const AGENT_RUN_SUM: HistogramSum = { field: 'sum_ms', scale: 1000 };
const EDIT_RATIO_SUM: HistogramSum = { field: 'sum_e6', scale: EDIT_RATIO_SUM_SCALE };

/**
 * Turns the stored per-bucket counts into Prometheus' cumulative buckets. A stored bound that is no longer in
 * `bounds` counts in the first current bound at or above it (or `+Inf`).
 */
export function histogramFromHash(
  hash: Record<string, string>,
  bounds: readonly number[] = AGENT_RUN_BUCKETS_SECONDS,
  sum: HistogramSum = AGENT_RUN_SUM,
): HistogramSnapshot {
  const perBucket = new Array<number>(bounds.length + 1).fill(0);
  for (const [field, value] of Object.entries(hash)) {
    if (!field.startsWith('le:')) continue;
    const le = field === 'le:+Inf' ? Number.POSITIVE_INFINITY : Number(field.slice(3));
    if (Number.isNaN(le)) continue;
    const index = bounds.findIndex((b) => le <= b);
    const slot = index < 0 ? bounds.length : index;
    perBucket[slot] = (perBucket[slot] ?? 0) + toCount(value);
  }
  let running = 0;
  const buckets = perBucket.map((n, i) => {
    running += n;
    return { le: i < bounds.length ? String(bounds[i]) : '+Inf', count: running };
  });
  // `count` is written in the same MULTI as the bucket, so the two agree; the bucket sum is the fallback when a
  // hash was written by hand.
  const count = hash.count !== undefined ? toCount(hash.count) : running;
  return { buckets, count, sum: toCount(hash[sum.field]) / sum.scale };
}

/**
 * A histogram whose observations live in Redis: prom-client has no way to load bucket counts into its own
 * Histogram, so this one answers the registry from a {@link HistogramSnapshot} read at scrape time.
 */
class RedisBackedHistogram extends Histogram<string> {
  constructor(
    private readonly metricName: string,
    private readonly metricHelp: string,
    private readonly read: () => Promise<HistogramSnapshot>,
    registry: Registry,
    buckets: readonly number[],
  ) {
    super({ name: metricName, help: metricHelp, buckets: [...buckets], registers: [registry] });
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const snapshot = await this.read();
    const values: MetricValueWithName<string>[] = [
      ...snapshot.buckets.map((b) => ({ metricName: `${this.metricName}_bucket`, labels: { le: b.le }, value: b.count })),
      { metricName: `${this.metricName}_sum`, labels: {}, value: snapshot.sum },
      { metricName: `${this.metricName}_count`, labels: {}, value: snapshot.count },
    ];
    return {
      name: this.metricName,
      help: this.metricHelp,
      // prom-client's typings declare the type as a (runtime-less) enum; the registry prints the string.
      type: 'histogram' as unknown as MetricObjectWithValues<never>['type'],
      aggregator: 'sum',
      values,
      collect: () => undefined,
    };
  }

  /** The registry prefers this (undocumented) variant when present; the values carry no shared labels, so it equals {@link get}. */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    return this.get();
  }
}

/** What the metrics are read from. */
export interface MetricsSources {
  store: Pick<TicketStore, 'countByState' | 'keys'>;
  queues: Queues;
  /** Connection for reading the recorded counters. */
  redis: Redis;
  /** QUEUE_PREFIX, for {@link metricsKeys}. */
  prefix: string;
}

/** A registry of its own (not prom-client's global one) with every metric, each read from its source at scrape time. */
export function createMetricsRegistry(sources: MetricsSources): Registry {
  const registry = new Registry();
  const keys = metricsKeys(sources.prefix);
  const registers = [registry];

  new Gauge({
    name: METRIC_NAMES.tickets,
    help: 'Tickets per state',
    labelNames: ['state'],
    registers,
    async collect() {
      const counts = await sources.store.countByState();
      for (const state of TICKET_STATES) this.set({ state }, counts[state]);
    },
  });

  const queueList = ALL_QUEUE_NAMES.map((name) => sources.queues[name]);
  new Gauge({
    name: METRIC_NAMES.queueJobs,
    help: 'Jobs per queue and BullMQ state',
    labelNames: ['queue', 'status'],
    registers,
    async collect() {
      const all = await Promise.all(queueList.map((queue) => queue.getJobCounts(...QUEUE_JOB_STATES)));
      all.forEach((counts, i) => {
        for (const status of QUEUE_JOB_STATES) this.set({ queue: queueList[i]?.name ?? 'unknown', status }, counts[status] ?? 0);
      });
    },
  });

  new RedisBackedHistogram(
    METRIC_NAMES.agentRunDuration,
    'Duration of agent runs that produced a result (the ticket drafted or parked) in seconds; failed runs are not in it',
    async () => histogramFromHash(await sources.redis.hgetall(keys.agentRun)),
    registry,
    AGENT_RUN_BUCKETS_SECONDS,
  );

  new Counter({
    name: METRIC_NAMES.agentRunsFailed,
    help: 'Agent runs that failed (the job retried or given up on); their LLM calls and tokens are in the LLM counters',
    registers,
    async collect() {
      const n = toCount((await sources.redis.hget(keys.counters, 'agent_runs_failed')) ?? undefined);
      this.reset();
      this.inc(n);
    },
  });

  new Counter({
    name: METRIC_NAMES.llmCalls,
    help: 'LLM requests made by agent runs, finished or failed, and by learned-answer proposals',
    registers,
    async collect() {
      const n = toCount((await sources.redis.hget(keys.counters, 'llm_calls')) ?? undefined);
      this.reset();
      this.inc(n);
    },
  });

  new Counter({
    name: METRIC_NAMES.llmTokens,
    help: 'LLM tokens used by agent runs, finished or failed, and by learned-answer proposals, by kind (prompt or completion)',
    labelNames: ['kind'],
    registers,
    async collect() {
      const [prompt, completion] = await sources.redis.hmget(keys.counters, 'llm_prompt_tokens', 'llm_completion_tokens');
      this.reset();
      this.inc({ kind: 'prompt' }, toCount(prompt ?? undefined));
      this.inc({ kind: 'completion' }, toCount(completion ?? undefined));
    },
  });

  new Counter({
    name: METRIC_NAMES.repliesSent,
    help: 'Replies accepted by the SMTP server',
    registers,
    async collect() {
      const n = toCount((await sources.redis.hget(keys.counters, 'replies_sent')) ?? undefined);
      this.reset();
      this.inc(n);
    },
  });

  new Counter({
    name: METRIC_NAMES.repliesBounced,
    help: 'Replies the SMTP server accepted that a bounce later reported undelivered',
    registers,
    async collect() {
      const n = toCount((await sources.redis.hget(keys.counters, 'replies_bounced')) ?? undefined);
      this.reset();
      this.inc(n);
    },
  });

  new Counter({
    name: METRIC_NAMES.mailsIgnored,
    help: 'Inbound mails that got no answer, by reason',
    labelNames: ['reason'],
    registers,
    async collect() {
      const stored = await sources.redis.hgetall(keys.ignored);
      this.reset();
      for (const reason of IGNORE_REASONS) this.inc({ reason }, toCount(stored[reason]));
    },
  });

  new Gauge({
    name: METRIC_NAMES.ticketsStored,
    help: 'Tickets held in Redis (all states); final tickets leave for the archive after TICKET_RETENTION_DAYS',
    registers,
    async collect() {
      this.set(await sources.redis.zcard(sources.store.keys().all));
    },
  });

  new Gauge({
    name: METRIC_NAMES.redisMemory,
    help: 'Memory Redis uses (INFO memory used_memory), for every key it holds, not only ours',
    registers,
    async collect() {
      this.set(usedMemory(await sources.redis.info('memory')));
    },
  });

  for (const [name, field, help] of [
    [METRIC_NAMES.ticketsArchived, 'tickets_archived', 'Final tickets moved from Redis to the archive by the retention job'],
    [METRIC_NAMES.rawMailsDropped, 'raw_mails_dropped', 'Raw mails of final tickets deleted from Redis by the retention job'],
  ] as const) {
    new Counter({
      name,
      help,
      registers,
      async collect() {
        const n = toCount((await sources.redis.hget(keys.counters, field)) ?? undefined);
        this.reset();
        this.inc(n);
      },
    });
  }
  // Outcomes are counted by the ticket store in the same write that ends a ticket (src/tickets/outcome.ts).
  const outcomes = outcomeKeys(sources.prefix);
  new Counter({
    name: METRIC_NAMES.ticketOutcomes,
    help: 'Tickets that reached an end state, by outcome (auto_sent, approved_as_is, approved_edited, rejected, ignored, failed)',
    labelNames: ['outcome'],
    registers,
    async collect() {
      const stored = await sources.redis.hgetall(outcomes.totals);
      this.reset();
      for (const outcome of OUTCOMES) this.inc({ outcome }, toCount(stored[outcome]));
    },
  });

  new RedisBackedHistogram(
    METRIC_NAMES.editRatio,
    'Edit ratio of approved replies sent (0: the draft unchanged, 1: rewritten; greeting, signature and quote aside)',
    async () => histogramFromHash(await sources.redis.hgetall(outcomes.editRatio), EDIT_RATIO_BUCKETS, EDIT_RATIO_SUM),
    registry,
    EDIT_RATIO_BUCKETS,
  );

  return registry;
}

/** `used_memory` from the text of `INFO memory`; 0 when absent. */
export function usedMemory(info: string): number {
  const match = /^used_memory:(\d+)\s*$/m.exec(info);
  return match ? Number(match[1]) : 0;
}
