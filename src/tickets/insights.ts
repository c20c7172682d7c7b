/**
 * Insights: what the support lead reads on `/insights` — tickets per day by outcome, the automation rate, how long
 * customers wait for a reply, how much operators edit drafts, why drafts are rejected, and what the model costs.
 *
 * Nothing here scans tickets. The ticket store adds the fields of {@link insightFieldsOnWrite} to the day hash of
 * `outcomeKeys(prefix).day(day)` in the same atomic write as the change they describe, and {@link readInsights}
 * reads one hash per day of the period, so the page costs O(days) whatever the number of tickets stored. A day is a
 * calendar day in the process's time zone (`TZ`, src/tickets/local-day.ts), for the writers and the reader alike.
 *
 * Fields of `P:outcomes:YYYY-MM-DD` besides the outcome counts and edit-ratio sums that src/tickets/outcome.ts
 * documents (all counters, only ever increased):
 *
 * | field                    | added when                          | counts                                               |
 * |--------------------------|-------------------------------------|------------------------------------------------------|
 * | `er:le:<bound>`          | an approved reply is sent           | approvals per edit-ratio bucket (`EDIT_RATIO_BUCKETS`) |
 * | `lat:auto:<i>`           | a reply goes out without review     | replies whose receipt→reply time falls in bucket i   |
 * | `lat:reviewed:<i>`       | an approved reply is sent           | the same, for replies a person approved              |
 * | `rej:<reason>`           | a ticket is rejected                | rejections per (normalised) reason                   |
 * | `rejected:no_draft`      | a ticket without a draft is rejected | of the rejections, those of mail the checks parked for what it is (`needsNoReply`) |
 * | `agent_runs`             | an agent result is stored           | agent runs                                           |
 * | `llm:<model>:calls`      | an agent result is stored, or an agent run fails | LLM calls of that model                 |
 * | `llm:<model>:in` / `:cached` / `:out` | the same               | prompt (of which cached) and completion tokens       |
 * | `bounced`                | a bounce marks a reply              | replies reported undelivered, each once              |
 * | `reopened:<outcome>`     | a person reopens an ended ticket    | endings taken back (an ignored mail reopened), on the day of the ending |
 * | `src:replies`            | a reply is sent, its sources given  | replies whose sources the write recorded (`replySources`) |
 * | `src:learned`            | the same                            | of those, replies citing a learned answer (`learned#<n>`) |
 *
 * A ticket a person reopens (`ignored → parked`, `failed → parked|processing`) ends again later and is counted then.
 * Its first ending stays in the outcome counts, which only grow, and the reopening is counted against it on the day
 * that ending was counted on ({@link REOPENED_FIELD_PREFIX}; the day stored with the outcome, `countedDay`, not its
 * day in the zone of the reopening): the insights read that day's outcome as one fewer, so a mail ends once in the
 * period's figures. The Prometheus counter `helpdesk_ticket_outcomes_total` keeps both endings.
 *
 * A failed agent run stores no result, so its calls are added by the agent worker when the attempt fails
 * (`recordFailedAgentRun`, src/server/metrics.ts), with {@link llmCallFields}; it is not an `agent_runs`.
 *
 * Weeks ({@link InsightWeek}) start on Monday in the same calendar and add up the days of the period they hold. Two
 * figures of theirs are not in the day hashes: their mail in, the tickets created in the week, counted in the ticket
 * store's creation index (`P:store:all`, scored by creation time) with one ZCOUNT per week, so it leaves out the
 * tickets retention archived and those erased on request; and their mail still waiting for a reply, the tickets
 * created in the week that are in one of the {@link AWAITING_REPLY_STATES} now, one ZCOUNT of each state's index
 * (`P:store:state:<state>`, scored the same) per week.
 *
 * Answered well ({@link answeredWellShare}) is a share of the mail that needed an answer: every ticket but those the
 * checks ignored (automatic, bulk, spam, our own). A ticket counts once: in the week it ended, by its outcome, or
 * while it still waits for a reply, in the week it came in. Answered well are the replies sent automatically or
 * approved as the agent drafted them; rejected drafts, failed, edited before sending and still waiting count against it.
 * A rejection of a ticket the checks parked before the agent for what the mail is ({@link NO_DRAFT_REJECTION_FIELD},
 * {@link needsNoReply}: no question, a colleague's forward, a recall, an invitation, a circular) is a person's word that the mail needed no
 * answer, as ignoring is the checks': it leaves the mail that needed one. A rejected draft still counts against it, and
 * so does a rejection of mail without a draft that needed an answer: the agent failed on it, a limit or its size parked it,
 * or the checks parked it for a person to answer (unreadable, a hold, a sender to verify). Days recorded before that
 * field existed hold no such count, so their rejections all count against it, as they did then.
 *
 * Reply times are kept as a histogram of geometric buckets ({@link LATENCY_BUCKET_RATIO} apart), so percentiles are
 * read as the upper bound of the bucket the exact percentile falls in: at most 10 % above it, never below.
 */
import type { Redis } from 'ioredis';
import type { AgentResult, AnswerSource, ModelCallUsage } from '../agent/types.js';
import { costOf, priceOf, type PriceTable } from '../agent/prices.js';
import { LEARNED_ID_PREFIX } from '../search/types.js';
import { addDays, deskTimeZone, localDay } from './local-day.js';
import { parkedForTheMailItself } from './review.js';
import { EDIT_RATIO_BUCKETS, EDIT_RATIO_SUM_SCALE, OUTCOMES, editRatioBucketField, isOutcomeKind, outcomeKeys, type OutcomeKind, type TicketOutcome } from './outcome.js';
import type { Ticket, TicketState } from './ticket.js';
import { TicketStore } from './ticket-store.js';

/** Ratio of consecutive reply-time bucket bounds: a percentile is read at most this much too high. */
export const LATENCY_BUCKET_RATIO = 1.1;

/** Longest rejection reason kept as a field; longer ones are counted by their start. */
export const MAX_REASON_FIELD_CHARS = 120;

/** Day-hash field of the replies reported undelivered that day (`TicketStore.recordReplyBounce`). */
export const BOUNCED_FIELD = 'bounced';

/**
 * Start of the day-hash fields `reopened:<outcome>`: endings of that day that a person took back by reopening the
 * ticket; {@link insightsFromDays} subtracts them from the day's outcome counts.
 */
export const REOPENED_FIELD_PREFIX = 'reopened:';

/**
 * Day-hash field of the rejections of mail the checks parked before the agent for what the mail is, without a draft
 * ({@link needsNoReply}), which a person closed judging that it needed no reply. Counted beside `rejected`. The name
 * stays as days recorded it.
 */
export const NO_DRAFT_REJECTION_FIELD = 'rejected:no_draft';

/** Day-hash field of the replies whose sources the write that recorded their outcome was given. */
export const REPLY_SOURCES_FIELD = 'src:replies';

/** Day-hash field of those of {@link REPLY_SOURCES_FIELD} that cite a learned answer. */
export const LEARNED_REPLY_FIELD = 'src:learned';

/** Longest period the page and the API accept, in days. */
export const MAX_INSIGHT_DAYS = 366;

/**
 * States of a ticket that needs an answer and has none yet: the mail still waiting for a reply. The others are
 * endings (`sent`, `rejected`, `failed`) or mail no reply is due to (`ignored`).
 */
export const AWAITING_REPLY_STATES = ['received', 'processing', 'drafted', 'sending', 'parked', 'approved'] as const satisfies readonly TicketState[];

/** Replies sent without a person, and those a person approved. */
export type ReplyKind = 'auto' | 'reviewed';

/** The bucket (0, 1, 2, …) of a receipt→reply time: bucket i holds times up to {@link latencyBucketBound}(i). */
export function latencyBucket(seconds: number): number {
  if (!(seconds > 1)) return 0;
  const i = Math.ceil(Math.log(seconds) / Math.log(LATENCY_BUCKET_RATIO) - 1e-9);
  // Rounding of the logarithm must never put a time above its bucket's bound.
  return latencyBucketBound(i) < seconds ? i + 1 : i;
}

/** Upper bound in seconds of reply-time bucket `i` (bucket 0: up to one second). */
export function latencyBucketBound(i: number): number {
  return i <= 0 ? 1 : LATENCY_BUCKET_RATIO ** i;
}

/** A rejection reason as counted: whitespace collapsed, cut to {@link MAX_REASON_FIELD_CHARS}, `(none)` for none. */
export function normalizeReason(reason: string | undefined): string {
  const text = (reason ?? '').replace(/\s+/g, ' ').trim();
  if (!text) return '(none)';
  const chars = Array.from(text);
  return chars.length > MAX_REASON_FIELD_CHARS ? `${chars.slice(0, MAX_REASON_FIELD_CHARS).join('')}…` : text;
}

/**
 * Receipt→reply time of a sent ticket in seconds: from the ticket's creation to the outcome; for a reply a person
 * confirmed arrived (`outbound.deliveryCheck`) after its attempt lost the server's answer, to that attempt
 * (`outbound.sentAt`): the customer had the reply then, and the confirmation may come days later.
 */
export function replySeconds(ticket: Pick<Ticket, 'createdAt'> & Partial<Pick<Ticket, 'outbound'>>, outcome: Pick<TicketOutcome, 'at'>): number {
  const confirmed = ticket.outbound?.deliveryCheck?.verdict === 'arrived' ? ticket.outbound.sentAt : undefined;
  return Math.max(0, (Date.parse(confirmed ?? outcome.at) - Date.parse(ticket.createdAt)) / 1000);
}

/** The kind of reply an outcome is, or undefined for outcomes that sent nothing. */
export function replyKindOf(kind: OutcomeKind): ReplyKind | undefined {
  if (kind === 'auto_sent') return 'auto';
  if (kind === 'approved_as_is' || kind === 'approved_edited') return 'reviewed';
  return undefined;
}

/**
 * The day-hash increments of one write of the ticket store, as field → amount: those of the outcome it records
 * (reply time, edit-ratio bucket, rejection reason, and {@link NO_DRAFT_REJECTION_FIELD} for a ticket whose rejection
 * says it needed no reply, {@link needsNoReply}), those of the agent result it stores (runs, calls, tokens), a bounce when the write is the one that marks
 * the reply bounced (`change.replyBounced`), the ending a person takes
 * back when the write reopens an ended ticket (`change.reopened`, the outcome it removes), and for a reply whose write
 * is given the sources of the draft it sent (`change.replySources`: the agent result's `sources`, empty when the
 * agent cited none or wrote no draft) whether it cites a learned answer. The outcome counts and edit-ratio sums
 * themselves are counted by the store's own script (`outcomeKeys`).
 */
export function insightFieldsOnWrite(
  ticket: Pick<Ticket, 'createdAt'> & Partial<Pick<Ticket, 'outbound' | 'draft' | 'history' | 'heldReason'>>,
  outcome: TicketOutcome | undefined,
  agent: AgentResult | undefined,
  change: { replyBounced?: boolean; reopened?: OutcomeKind | undefined; replySources?: ReadonlyArray<Pick<AnswerSource, 'kind' | 'fileName'>> | undefined } = {},
): Map<string, number> {
  const fields = new Map<string, number>();
  const add = (field: string, n: number) => {
    if (n !== 0) fields.set(field, (fields.get(field) ?? 0) + n);
  };
  if (change.replyBounced) add(BOUNCED_FIELD, 1);
  if (change.reopened) add(`${REOPENED_FIELD_PREFIX}${change.reopened}`, 1);
  if (outcome) {
    const reply = replyKindOf(outcome.kind);
    if (reply) add(`lat:${reply}:${latencyBucket(replySeconds(ticket, outcome))}`, 1);
    if (reply === 'reviewed' && outcome.editRatio !== undefined) add(`er:${editRatioBucketField(outcome.editRatio)}`, 1);
    if (outcome.kind === 'rejected') add(`rej:${normalizeReason(outcome.reason)}`, 1);
    if (outcome.kind === 'rejected' && needsNoReply(ticket)) add(NO_DRAFT_REJECTION_FIELD, 1);
    if (reply && change.replySources) {
      add(REPLY_SOURCES_FIELD, 1);
      if (citesLearnedAnswer(change.replySources)) add(LEARNED_REPLY_FIELD, 1);
    }
  }
  if (agent) {
    add('agent_runs', 1);
    // An agent result stored by an older version (or a partial one) may lack the call records.
    for (const [field, n] of llmCallFields(agent.llmCalls ?? [])) add(field, n);
  }
  return fields;
}

/**
 * True when a rejection of the ticket is a person's word that its mail needed no reply: no draft, and the checks
 * before the agent parked it for mail that asks nothing of us ({@link parkedForTheMailItself}). Mail the agent failed
 * on, that a limit or its size parked, or that the checks parked for a person to answer needed an answer: its
 * rejection counts against answered well.
 */
export function needsNoReply(ticket: Partial<Pick<Ticket, 'draft' | 'history' | 'heldReason'>>): boolean {
  return !ticket.draft?.trim() && ticket.history !== undefined && parkedForTheMailItself({ history: ticket.history, heldReason: ticket.heldReason });
}

/** True when one of a draft's sources is a learned answer: a Q&A hit named `learned#<n>`. */
export function citesLearnedAnswer(sources: ReadonlyArray<Pick<AnswerSource, 'kind' | 'fileName'>>): boolean {
  return sources.some((s) => s.kind === 'qa' && s.fileName.startsWith(LEARNED_ID_PREFIX) && /^\d+$/.test(s.fileName.slice(LEARNED_ID_PREFIX.length)));
}

/** The day-hash increments of LLM calls, as field → amount: per model, the calls and their tokens. */
export function llmCallFields(calls: readonly ModelCallUsage[]): Map<string, number> {
  const fields = new Map<string, number>();
  const add = (field: string, n: number) => {
    if (n !== 0) fields.set(field, (fields.get(field) ?? 0) + n);
  };
  for (const call of calls) {
    add(`llm:${call.model}:calls`, 1);
    add(`llm:${call.model}:in`, call.promptTokens);
    add(`llm:${call.model}:cached`, call.cachedPromptTokens ?? 0);
    add(`llm:${call.model}:out`, call.completionTokens);
  }
  return fields;
}

/** Median and 90th percentile of the reply times of one kind of reply. */
export interface ReplyTimeStats {
  /** Replies counted. */
  count: number;
  /** Upper bound of the bucket holding the median, in seconds; null without replies. */
  medianSeconds: number | null;
  /** Same for the 90th percentile (nearest rank). */
  p90Seconds: number | null;
}

/** One day of the period. */
export interface InsightDay {
  /** Calendar day in {@link Insights.timeZone}, `YYYY-MM-DD`. */
  day: string;
  /** Tickets that ended that day, per outcome. */
  outcomes: Record<OutcomeKind, number>;
  /** Replies sent: auto-sent plus approved. */
  answered: number;
  /** Of the day's rejections, those of tickets without a draft: mail a person judged needed no reply. */
  noReplyNeeded: number;
  /** auto_sent / answered; null on a day without replies. */
  automationRate: number | null;
  /** Replies of the day whose sources were recorded with their outcome (`src:replies`). */
  sourcesRecorded: number;
  /** Of those, replies citing a learned answer (`src:learned`). */
  learnedReplies: number;
  /** Agent runs whose result was stored that day. */
  agentRuns: number;
  llmCalls: number;
  promptTokens: number;
  cachedPromptTokens: number;
  completionTokens: number;
  /** Cost of that day's tokens (USD) for the models the price table knows; null when it knows none of them. */
  costUsd: number | null;
}

/**
 * One week of the period: Monday to Sunday in {@link Insights.timeZone}, of which the period's first and last week hold
 * only the days inside it. The figures are the sums of those days.
 */
export interface InsightWeek {
  /** The Monday the week starts on, `YYYY-MM-DD`. */
  week: string;
  /** First and last day of the period in the week, and how many days that is (7 but at the period's ends). */
  from: string;
  to: string;
  days: number;
  /** Tickets created in those days that Redis still holds; null when not read. */
  mailIn: number | null;
  /** Tickets that ended in those days, per outcome. */
  outcomes: Record<OutcomeKind, number>;
  /** Replies sent: auto-sent plus approved. */
  answered: number;
  /** Of the week's rejections, those of tickets without a draft: mail a person judged needed no reply. */
  noReplyNeeded: number;
  /** auto_sent / answered; null in a week without replies. */
  automationRate: number | null;
  /** Tickets created in those days still waiting for a reply now (in one of the {@link AWAITING_REPLY_STATES}). */
  waiting: number;
  /**
   * Mail that needed an answer: the replies sent, rejected drafts and failed tickets that ended in those days, and
   * {@link waiting}; everything but the mail the checks ignored and {@link noReplyNeeded}.
   */
  needingAnswer: number;
  /**
   * Answered well: (auto_sent + approved_as_is) / {@link needingAnswer}, the share of the mail that needed an answer
   * that got a reply nobody had to change; null when no mail needed one.
   */
  answeredWell: number | null;
  /** The older figure: (auto_sent + approved_as_is) / answered, of the replies sent; null without replies. */
  answeredWellOfReplies: number | null;
  /**
   * {@link answeredWell} minus the previous week's, in percentage points to a tenth; null for the period's first week
   * and when either week had no mail that needed an answer.
   */
  answeredWellChange: number | null;
  /** Replies whose sources were recorded with their outcome; the rest may or may not have cited a learned answer. */
  sourcesRecorded: number;
  /** Of those, replies citing a learned answer (`learned#<n>`). */
  learnedReplies: number;
}

/** Tokens and cost of one model over the period. */
export interface ModelUsage {
  model: string;
  calls: number;
  promptTokens: number;
  cachedPromptTokens: number;
  completionTokens: number;
  /** USD; null when the price table does not know the model. */
  costUsd: number | null;
}

/** What `/api/insights` answers. */
export interface Insights {
  /** First and last day of the period (calendar days in {@link Insights.timeZone}, inclusive). */
  from: string;
  to: string;
  /** The IANA zone the days are counted in: the process's (`TZ`), which the writers of the day hashes share. */
  timeZone: string;
  days: number;
  daily: InsightDay[];
  /** The period's weeks, oldest first. */
  weekly: InsightWeek[];
  totals: {
    outcomes: Record<OutcomeKind, number>;
    /** Tickets that ended in the period (sum of the outcomes). */
    ended: number;
    answered: number;
    automationRate: number | null;
    /** Tickets created in the period still waiting for a reply now; see {@link InsightWeek.waiting}. */
    waiting: number;
    /** Of the period's rejections, those of tickets without a draft: mail a person judged needed no reply. */
    noReplyNeeded: number;
    /** Replies sent, rejected drafts and failed tickets that ended in the period, and {@link waiting}. */
    needingAnswer: number;
    /** (auto_sent + approved_as_is) / needingAnswer over the period; null when no mail needed an answer. */
    answeredWell: number | null;
    /** (auto_sent + approved_as_is) / answered over the period; null without replies. */
    answeredWellOfReplies: number | null;
    /** Replies sent that a bounce later reported undelivered, counted on the day the bounce was read. */
    bounced: number;
  };
  replyTime: Record<ReplyKind, ReplyTimeStats>;
  /** Edit ratios of the approved replies sent (as-is approvals count as 0). */
  editRatio: {
    count: number;
    /** Mean ratio; null without approvals. */
    mean: number | null;
    /** Approvals per bucket: ratio ≤ `le` and above the previous bucket's bound. */
    buckets: Array<{ le: number; count: number }>;
  };
  /** Rejections per reason, most frequent first (ties by reason). */
  rejectionReasons: Array<{ reason: string; count: number }>;
  /** Calls, tokens and cost include the calls of runs that failed; `agentRuns` counts only runs with a result. */
  llm: {
    agentRuns: number;
    calls: number;
    promptTokens: number;
    cachedPromptTokens: number;
    completionTokens: number;
    /** Per agent run (a ticket the operator sends back to the agent runs again); null without runs. */
    callsPerRun: number | null;
    tokensPerRun: number | null;
    /** USD over the models the price table knows; null when it knows none of those used. */
    costUsd: number | null;
    costPerRun: number | null;
    models: ModelUsage[];
    /** Models used in the period that the price table does not know: their tokens are not in the cost. */
    unpricedModels: string[];
  };
}

/** Options of {@link readInsights} and {@link insightsFromDays}. */
export interface InsightsOptions {
  /** Days in the period, ending with today: 1–{@link MAX_INSIGHT_DAYS}. */
  days: number;
  /** Today; defaults to now. */
  now?: Date;
  /** The zone whose calendar days the period is; defaults to the process's, the one the day hashes are written in. */
  timeZone?: string;
  /** Price table for the cost (see src/agent/prices.ts). */
  prices: PriceTable;
}

/** The calendar days in `timeZone` (default: the process's) of the period ending with `now`'s day, oldest first. */
export function periodDays(days: number, now: Date, timeZone?: string): string[] {
  if (!(Number.isInteger(days) && days >= 1 && days <= MAX_INSIGHT_DAYS)) throw new RangeError(`days must be an integer 1–${MAX_INSIGHT_DAYS}`);
  const today = localDay(now, timeZone);
  return Array.from({ length: days }, (_, i) => addDays(today, i - (days - 1)));
}

/**
 * Reads the day hashes of the period (one pipelined HGETALL per day), the mail in of its weeks (one ZCOUNT of the
 * ticket store's creation index per week) and their mail still waiting (one ZCOUNT per week of each of the
 * {@link AWAITING_REPLY_STATES}' index), and computes the {@link Insights}.
 */
export async function readInsights(redis: Redis, prefix: string, options: InsightsOptions): Promise<Insights> {
  const timeZone = options.timeZone ?? deskTimeZone();
  const days = periodDays(options.days, options.now ?? new Date(), timeZone);
  const weeks = periodWeeks(days);
  const k = outcomeKeys(prefix);
  const storeKeys = new TicketStore(redis, { prefix }).keys();
  const created = storeKeys.all;
  const pipeline = redis.pipeline();
  for (const day of days) pipeline.hgetall(k.day(day));
  // The weeks are consecutive: each one ends where the next begins.
  const bounds = [...weeks.map((w) => w.from), addDays(days.at(-1)!, 1)].map((day) => dayStart(day, timeZone));
  weeks.forEach((_, i) => pipeline.zcount(created, bounds[i]!, `(${bounds[i + 1]!}`));
  weeks.forEach((_, i) => {
    for (const state of AWAITING_REPLY_STATES) pipeline.zcount(storeKeys.state(state), bounds[i]!, `(${bounds[i + 1]!}`);
  });
  const results = (await pipeline.exec()) ?? [];
  const value = (i: number): unknown => {
    const [err, result] = results[i] ?? [new Error('missing pipeline result'), null];
    if (err) throw err;
    return result;
  };
  const hashes = days.map((day, i) => ({ day, fields: (value(i) ?? {}) as Record<string, string> }));
  const mailIn = new Map(weeks.map((w, i) => [w.week, Number(value(days.length + i))]));
  const waitingFrom = days.length + weeks.length;
  const waiting = new Map(
    weeks.map((w, i) => [w.week, AWAITING_REPLY_STATES.reduce((n, _, s) => n + Number(value(waitingFrom + i * AWAITING_REPLY_STATES.length + s)), 0)]),
  );
  return insightsFromDays(hashes, options.prices, timeZone, mailIn, waiting);
}

/** The Monday (`YYYY-MM-DD`) starting the week of calendar day `day`: calendar arithmetic, the same in every zone. */
export function weekStartOf(day: string): string {
  const weekday = new Date(`${addDays(day, 0)}T00:00:00Z`).getUTCDay();
  return addDays(day, -((weekday + 6) % 7));
}

/** The weeks of a period's days (oldest first): each week's Monday and the first and last of the days in it. */
export function periodWeeks(days: readonly string[]): Array<{ week: string; from: string; to: string; days: number }> {
  const weeks: Array<{ week: string; from: string; to: string; days: number }> = [];
  for (const day of days) {
    const week = weekStartOf(day);
    const last = weeks.at(-1);
    if (last?.week === week) {
      last.to = day;
      last.days++;
    } else weeks.push({ week, from: day, to: day, days: 1 });
  }
  return weeks;
}

// Local midnight lies between 14 hours before and 12 hours after the UTC one (UTC+14 to UTC−12): a margin on each side.
const EARLIEST_MIDNIGHT_S = -15 * 3600;
const LATEST_MIDNIGHT_S = 13 * 3600;

/**
 * The instant (epoch ms) calendar day `day` begins in `timeZone`: its local midnight, or the first instant after it
 * where clocks skip midnight (Brazil's daylight saving began at 00:00, so 4 November 2018 began at 01:00). Searched
 * through the zone's own rules ({@link localDay}), to the second.
 */
export function dayStart(day: string, timeZone: string): number {
  const utcMidnightS = Date.parse(`${addDays(day, 0)}T00:00:00Z`) / 1000;
  // localDay(lo) is before `day`, localDay(hi) is `day` or later; days only move forward as time does.
  let lo = utcMidnightS + EARLIEST_MIDNIGHT_S;
  let hi = utcMidnightS + LATEST_MIDNIGHT_S;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (localDay(mid * 1000, timeZone) < day) lo = mid;
    else hi = mid;
  }
  return hi * 1000;
}

function emptyOutcomes(): Record<OutcomeKind, number> {
  return Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<OutcomeKind, number>;
}

/**
 * {@link Insights} from the day hashes of a period, oldest first (pure: the part {@link readInsights} does not read);
 * `timeZone` names the zone their days are in (default: the process's); `mailIn` holds the tickets created per week,
 * by the week's Monday (weeks absent from it have no mail in), and `waiting` the tickets created per week still
 * waiting for a reply (weeks absent from it have none).
 */
export function insightsFromDays(
  hashes: ReadonlyArray<{ day: string; fields: Record<string, string> }>,
  prices: PriceTable,
  timeZone: string = deskTimeZone(),
  mailIn?: ReadonlyMap<string, number>,
  waiting?: ReadonlyMap<string, number>,
): Insights {
  const totals = emptyOutcomes();
  const latency: Record<ReplyKind, Map<number, number>> = { auto: new Map(), reviewed: new Map() };
  const editBuckets = new Map<string, number>();
  let editCount = 0;
  let editSum = 0;
  let bounced = 0;
  const reasons = new Map<string, number>();
  const models = new Map<string, ModelUsage>();
  const daily: InsightDay[] = [];

  for (const { day, fields } of hashes) {
    const outcomes = emptyOutcomes();
    const reopened = emptyOutcomes();
    const dayModels = new Map<string, ModelUsage>();
    let agentRuns = 0;
    let sourcesRecorded = 0;
    let learnedReplies = 0;
    let noDraftRejections = 0;
    for (const [field, raw] of Object.entries(fields)) {
      const n = Number(raw);
      if (!Number.isFinite(n)) continue;
      if ((OUTCOMES as readonly string[]).includes(field)) outcomes[field as OutcomeKind] += n;
      else if (field.startsWith(REOPENED_FIELD_PREFIX)) {
        const kind = field.slice(REOPENED_FIELD_PREFIX.length);
        if (isOutcomeKind(kind)) reopened[kind] += n;
      }
      else if (field === 'edit_ratio_count') editCount += n;
      else if (field === 'edit_ratio_sum_e6') editSum += n;
      else if (field === 'agent_runs') agentRuns += n;
      else if (field === BOUNCED_FIELD) bounced += n;
      else if (field === REPLY_SOURCES_FIELD) sourcesRecorded += n;
      else if (field === LEARNED_REPLY_FIELD) learnedReplies += n;
      else if (field === NO_DRAFT_REJECTION_FIELD) noDraftRejections += n;
      else if (field.startsWith('er:')) editBuckets.set(field.slice(3), (editBuckets.get(field.slice(3)) ?? 0) + n);
      else if (field.startsWith('rej:')) reasons.set(field.slice(4), (reasons.get(field.slice(4)) ?? 0) + n);
      else if (field.startsWith('lat:')) {
        const [, kind, bucket] = field.split(':');
        const histogram = latency[kind as ReplyKind];
        if (histogram && bucket !== undefined) histogram.set(Number(bucket), (histogram.get(Number(bucket)) ?? 0) + n);
      } else if (field.startsWith('llm:')) {
        // The model name may itself hold colons (`ollama/qwen2.5:7b`): the counter is after the last one.
        const at = field.lastIndexOf(':');
        const model = field.slice(4, at);
        const usage = dayModels.get(model) ?? { model, calls: 0, promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0, costUsd: null };
        const counter = field.slice(at + 1);
        if (counter === 'calls') usage.calls += n;
        else if (counter === 'in') usage.promptTokens += n;
        else if (counter === 'cached') usage.cachedPromptTokens += n;
        else if (counter === 'out') usage.completionTokens += n;
        dayModels.set(model, usage);
      }
    }
    // An ending taken back no longer counts; never below zero, should the day's own count be gone (an expired hash).
    for (const o of OUTCOMES) outcomes[o] = Math.max(0, outcomes[o] - reopened[o]);
    for (const o of OUTCOMES) totals[o] += outcomes[o];
    let dayCost: number | null = null;
    const sum = { calls: 0, promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0 };
    for (const usage of dayModels.values()) {
      sum.calls += usage.calls;
      sum.promptTokens += usage.promptTokens;
      sum.cachedPromptTokens += usage.cachedPromptTokens;
      sum.completionTokens += usage.completionTokens;
      const price = priceOf(prices, usage.model);
      if (price) dayCost = (dayCost ?? 0) + costOf(price, usage);
      const total = models.get(usage.model) ?? { model: usage.model, calls: 0, promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0, costUsd: null };
      total.calls += usage.calls;
      total.promptTokens += usage.promptTokens;
      total.cachedPromptTokens += usage.cachedPromptTokens;
      total.completionTokens += usage.completionTokens;
      models.set(usage.model, total);
    }
    const answered = outcomes.auto_sent + outcomes.approved_as_is + outcomes.approved_edited;
    daily.push({
      day,
      outcomes,
      answered,
      // Part of the day's rejections; a count above them (a hash written by hand) takes no other ending with it.
      noReplyNeeded: Math.min(noDraftRejections, outcomes.rejected),
      automationRate: answered > 0 ? outcomes.auto_sent / answered : null,
      sourcesRecorded,
      learnedReplies,
      agentRuns,
      llmCalls: sum.calls,
      promptTokens: sum.promptTokens,
      cachedPromptTokens: sum.cachedPromptTokens,
      completionTokens: sum.completionTokens,
      costUsd: dayCost,
    });
  }

  const modelList = [...models.values()].sort((a, b) => b.promptTokens + b.completionTokens - (a.promptTokens + a.completionTokens) || a.model.localeCompare(b.model));
  let cost: number | null = null;
  const unpriced: string[] = [];
  for (const usage of modelList) {
    const price = priceOf(prices, usage.model);
    if (price) {
      usage.costUsd = costOf(price, usage);
      cost = (cost ?? 0) + usage.costUsd;
    } else unpriced.push(usage.model);
  }
  const agentRuns = daily.reduce((n, d) => n + d.agentRuns, 0);
  const calls = daily.reduce((n, d) => n + d.llmCalls, 0);
  const promptTokens = daily.reduce((n, d) => n + d.promptTokens, 0);
  const completionTokens = daily.reduce((n, d) => n + d.completionTokens, 0);
  const answered = totals.auto_sent + totals.approved_as_is + totals.approved_edited;
  const weekly = insightWeeks(daily, mailIn, waiting);
  const totalWaiting = weekly.reduce((n, w) => n + w.waiting, 0);
  const noReplyNeeded = daily.reduce((n, d) => n + d.noReplyNeeded, 0);
  const needingAnswer = needingAnswerOf(totals, totalWaiting, noReplyNeeded);
  return {
    from: hashes[0]?.day ?? '',
    to: hashes.at(-1)?.day ?? '',
    timeZone,
    days: hashes.length,
    daily,
    weekly,
    totals: {
      outcomes: totals,
      ended: OUTCOMES.reduce((n, o) => n + totals[o], 0),
      answered,
      automationRate: answered > 0 ? totals.auto_sent / answered : null,
      waiting: totalWaiting,
      noReplyNeeded,
      needingAnswer,
      answeredWell: answeredWellShare(totals, needingAnswer),
      answeredWellOfReplies: answeredWellShare(totals, answered),
      bounced,
    },
    replyTime: { auto: percentiles(latency.auto), reviewed: percentiles(latency.reviewed) },
    editRatio: {
      count: editCount,
      mean: editCount > 0 ? editSum / EDIT_RATIO_SUM_SCALE / editCount : null,
      buckets: EDIT_RATIO_BUCKETS.map((le) => ({ le, count: editBuckets.get(`le:${String(le)}`) ?? 0 })),
    },
    rejectionReasons: [...reasons.entries()].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
    llm: {
      agentRuns,
      calls,
      promptTokens,
      cachedPromptTokens: daily.reduce((n, d) => n + d.cachedPromptTokens, 0),
      completionTokens,
      callsPerRun: agentRuns > 0 ? calls / agentRuns : null,
      tokensPerRun: agentRuns > 0 ? (promptTokens + completionTokens) / agentRuns : null,
      costUsd: cost,
      costPerRun: cost !== null && agentRuns > 0 ? cost / agentRuns : null,
      models: modelList,
      unpricedModels: unpriced,
    },
  };
}

/**
 * The replies that went out as the agent drafted them (auto_sent + approved_as_is) as a share of `of`: of the mail
 * that needed an answer ({@link needingAnswerOf}), or of the replies sent for the older figure; null when `of` is 0.
 */
export function answeredWellShare(outcomes: Record<OutcomeKind, number>, of: number): number | null {
  return of > 0 ? (outcomes.auto_sent + outcomes.approved_as_is) / of : null;
}

/**
 * Mail that needed an answer: every ending but `ignored`, less the rejections a person made without a draft
 * (`noReplyNeeded`, part of `outcomes.rejected`), and the mail still waiting for a reply.
 */
export function needingAnswerOf(outcomes: Record<OutcomeKind, number>, waiting: number, noReplyNeeded = 0): number {
  return OUTCOMES.reduce((n, o) => (o === 'ignored' ? n : n + outcomes[o]), 0) - noReplyNeeded + waiting;
}

/** The weeks of a period from its days (oldest first), with the mail in and the mail still waiting of each week by its Monday. */
function insightWeeks(daily: readonly InsightDay[], mailIn: ReadonlyMap<string, number> | undefined, waitingByWeek: ReadonlyMap<string, number> | undefined): InsightWeek[] {
  const byDay = new Map(daily.map((d) => [d.day, d]));
  const weeks: InsightWeek[] = [];
  for (const w of periodWeeks(daily.map((d) => d.day))) {
    const outcomes = emptyOutcomes();
    let sourcesRecorded = 0;
    let learnedReplies = 0;
    let noReplyNeeded = 0;
    for (let day = w.from; day <= w.to; day = addDays(day, 1)) {
      const d = byDay.get(day);
      if (!d) continue;
      for (const o of OUTCOMES) outcomes[o] += d.outcomes[o];
      sourcesRecorded += d.sourcesRecorded;
      learnedReplies += d.learnedReplies;
      noReplyNeeded += d.noReplyNeeded;
    }
    const answered = outcomes.auto_sent + outcomes.approved_as_is + outcomes.approved_edited;
    const waiting = waitingByWeek?.get(w.week) ?? 0;
    const needingAnswer = needingAnswerOf(outcomes, waiting, noReplyNeeded);
    const answeredWell = answeredWellShare(outcomes, needingAnswer);
    const previous = weeks.at(-1)?.answeredWell ?? null;
    weeks.push({
      ...w,
      mailIn: mailIn?.get(w.week) ?? null,
      outcomes,
      answered,
      noReplyNeeded,
      automationRate: answered > 0 ? outcomes.auto_sent / answered : null,
      waiting,
      needingAnswer,
      answeredWell,
      answeredWellOfReplies: answeredWellShare(outcomes, answered),
      answeredWellChange: answeredWell !== null && previous !== null ? Math.round((answeredWell - previous) * 1000) / 10 : null,
      sourcesRecorded,
      learnedReplies,
    });
  }
  return weeks;
}

/**
 * Nearest-rank percentile of a sorted list of values: the value at rank ⌈q·n⌉. The histogram percentiles below use
 * the same rank, so they are the bucket bound of exactly this value.
 */
export function nearestRank<T>(sorted: readonly T[], q: number): T | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[rankOf(q, sorted.length) - 1];
}

/** ⌈q·n⌉ within 1–n; the tolerance keeps 0.9 × 70 (63.000…01 in floating point) at rank 63. */
function rankOf(q: number, n: number): number {
  return Math.min(n, Math.max(1, Math.ceil(q * n - 1e-9)));
}

function percentiles(histogram: Map<number, number>): ReplyTimeStats {
  const buckets = [...histogram.entries()].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
  const count = buckets.reduce((n, [, c]) => n + c, 0);
  const at = (q: number): number | null => {
    if (count === 0) return null;
    const rank = rankOf(q, count);
    let seen = 0;
    for (const [bucket, n] of buckets) {
      seen += n;
      if (seen >= rank) return roundSeconds(latencyBucketBound(bucket));
    }
    return null;
  };
  return { count, medianSeconds: at(0.5), p90Seconds: at(0.9) };
}

/** Bucket bounds to the tenth of a second: what a person reads, and stable in JSON. */
export function roundSeconds(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}
