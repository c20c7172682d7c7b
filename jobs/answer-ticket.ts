/**
 * `answer-ticket` (queue `tickets`): decides whether a received mail gets an answer, runs the help-desk agent on
 * it, and either queues the reply for sending or parks the draft for a person.
 *
 * Idempotent by the ticket's state: a duplicate or re-delivered job whose ticket already moved past `processing`
 * changes nothing, so a mail is answered at most once however often its job runs. A job that finds its ticket
 * `drafted` only makes sure the `send-reply` job exists (same deterministic id, so BullMQ keeps one), which heals a
 * crash between drafting and queueing. A job queued before a person's decision on its ticket (a take-over, then "Get a
 * new draft", which queues a job of its own) is superseded: it ends `skipped` without touching the ticket, whatever its
 * state ({@link supersedingDecision}).
 *
 * Error policy (see DEVELOPERS.md): anything that may pass — the LLM answering 429/5xx or timing out, a search
 * backend or Redis being briefly unreachable — is rethrown as is, so BullMQ retries with exponential backoff up to
 * AGENT_ATTEMPTS. What can never pass — the ticket or its stored mail missing or unreadable, an empty question, the
 * LLM refusing the request itself (4xx) — becomes `UnrecoverableError`. On the last failure the ticket is parked
 * with the error for a person before the error is rethrown, so no mail is silently dropped. A model server out of use
 * for a while (no connection, timeout or 408, 429 rate limit, 5xx: `modelOutage`) is waited for instead, up to
 * AGENT_MODEL_OUTAGE_MINUTES from the start of the outage (or the ticket's first such failure, if earlier), without
 * using attempts: the handler throws
 * {@link ModelServerWait}, notes the first wait on the ticket, and the agent worker pauses the queue.
 *
 * A ticket parked or drafted with the agent's result also updates the knowledge gaps (src/knowledge/gaps.ts) once
 * the ticket is written: its unanswered subtasks are recorded, and a confident answer closes the gaps it answers.
 * That step never fails the job.
 *
 * The mail is untrusted: it reaches the agent only as the question and the earlier conversation, which the agent
 * puts into delimited user content; nothing of it is ever used as an instruction or a configuration value.
 */
import { UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { APIError } from 'openai';
import { getDomain } from 'tldts';
import { EmptyQuestionError, agentRunSpendOf, withSpend } from '../src/agent/agent.js';
import { errorWithoutSecrets, modelFailure, modelOutageSummary, withoutSecrets, type ModelServerSettings } from '../src/agent/model-errors.js';
import { MODEL_SERVER_WAIT_NOTE, PARK_NOTE } from '../src/tickets/park-notes.js';
import { BLOCK_TAGS, PromptConfigError, defaultPrompts, type PromptSet } from '../src/agent/prompts.js';
import type { AgentResult, AgentRunSpend, LlmUsage, Subtask } from '../src/agent/types.js';
import type { Config } from '../src/config.js';
import { learnGapsFrom } from '../src/knowledge/gaps.js';
import { createLogger, type Logger } from '../src/logger.js';
import {
  bulkMailDetail,
  decideReply,
  forgedSenderDetail,
  FORWARDED_DELIMITER,
  ownGroupReviewDetail,
  ownMailboxesOf,
  dmarcResultOf,
  hasQuestion,
  ignoreReasonText,
  noQuestionReason,
  isNoReplyAddress,
  isSameOrSubdomain,
  listCopyReviewReason,
  organisationDomain,
  ourAddressesOf,
  outrankedBySenderVerification,
  parkBeforeAgentReason,
  replySignalHeaders,
  senderVerificationOf,
  senderVouchedFor,
  type IgnoreReason,
  type ReplySignals,
  type SenderVerification,
} from '../src/mail/classify.js';
import { domainOf, isSameMailbox } from '../src/mail/addresses.js';
import { MailParseError, parseInboundMail } from '../src/mail/parse.js';
import { loadRaw } from '../src/mail/raw-store.js';
import { isSharedMailDomain } from '../src/mail/shared-mail-domains.js';
import { produce } from '../src/queues/connection.js';
import { sendReplyJob, type JobTuning } from '../src/queues/job-options.js';
import type { AnswerTicketData } from '../src/queues/payloads.js';
import type { Queues } from '../src/queues/registry.js';
import { foreignFindings, foreignLinks, foreignLinksReason, type AllowedLinks } from '../src/tickets/foreign-links.js';
import { replyBody } from '../src/tickets/outcome.js';
import { promptEcho } from '../src/tickets/prompt-echo.js';
import { knowledgeFound } from '../src/tickets/quote-omission.js';
import { ANSWERING_STATES, claimQuestion, repeatedQuestionReason, takeOverQuestion } from '../src/tickets/repeated-question.js';
import { operatorActor, rerunReason } from '../src/tickets/review.js';
import { secretRequestReason } from '../src/tickets/secret-request.js';
import { draftScriptProblem } from '../src/tickets/draft-script.js';
import { draftPlaceholderReason, placeholderKnowledge } from '../src/tickets/draft-placeholders.js';
import { autoReplyBudget, recordAgentRun, recordAutoReplyBudget, type AgentRunBudget, type AgentRunLimits, type AutoReplyBudget, type AutoReplyLimits, type AutoReplyParties } from '../src/tickets/rate-limit.js';
import { learnVerdict, unsourcedSubtasks, type TrustSettings } from '../src/tickets/trust.js';
import { IllegalTransitionError, jobGeneration, threadRefs, type HistoryEntry, type ReplyBounce, type Ticket, type TicketState } from '../src/tickets/ticket.js';
import { TicketConflictError, TicketNotFoundError, type ConversationEntry, type TicketStore } from '../src/tickets/ticket-store.js';

export type { AnswerTicketData };

/** Actor name of the history entries this job writes. */
export const AGENT_WORKER_ACTOR = 'agent-worker';

/** States in which the agent has nothing (more) to do for a ticket. */
export const PAST_PROCESSING: readonly TicketState[] = ['drafted', 'sending', 'sent', 'parked', 'approved', 'rejected', 'ignored', 'failed'];

/** Earlier tickets of a thread given to the agent as context; older ones are left out. */
export const CONVERSATION_LIMIT = 10;

/** What the handler runs against; built once per process by `src/runtime/services.ts`. */
export interface AnswerTicketDeps {
  config: Pick<Config, 'REVIEW_MODE' | 'REPEATED_QUESTION_HOURS' | 'AUTO_REPLY_LIMIT_PER_HOUR' | 'AUTO_REPLY_LIMIT_TOTAL_PER_HOUR' | 'AGENT_RUN_LIMIT_PER_HOUR' | 'AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR' | 'AGENT_RUN_LIMIT_TOTAL_PER_HOUR' | 'TRUSTED_REPLY_TO_DOMAINS' | 'TRUSTED_LINK_DOMAINS' | 'SPAM_ACTION' | 'SPAM_HEADER' | 'SPAM_HEADER_VALUE' | 'MAIL_FROM' | 'SUPPORT_ADDRESSES' | 'SUPPORT_GROUP_ADDRESSES' | 'AUTHSERV_ID' | 'SENDER_ATTEMPTS' | 'MAX_EMAIL_BYTES' | 'QUEUE_PREFIX' | 'PRODUCT_NAME'> &
    TrustSettings &
    // Optional: only the reason of a ticket parked after a model failure names them.
    ModelServerSettings;
  store: TicketStore;
  /** A producer connection (fail-fast), for the raw mail and the per-sender auto-reply window. */
  redis: Redis;
  /** Where `send-reply` jobs go. */
  outbound: Queues['outbound'];
  /** The help-desk agent: `runAgent`, and the prompts it uses, which a draft must not repeat. */
  agent: { runAgent(question: string, options?: { conversation?: string; signal?: AbortSignal }): Promise<AgentResult>; readonly prompts: Readonly<PromptSet> };
  /** Backoff of the `send-reply` jobs this handler queues; tests shorten it. */
  tuning?: JobTuning;
  logger?: Logger;
}

/** The attempt being run, from the BullMQ job. */
export interface AttemptInfo {
  /** Attempts that already failed (BullMQ's `job.attemptsMade`). */
  attemptsMade: number;
  /** Attempts allowed (`job.opts.attempts`). */
  attempts: number;
  signal?: AbortSignal;
  /** BullMQ job id, carried on every log line with the ticket id. */
  jobId?: string;
  /** The bounded wait for a model server out of use (AGENT_MODEL_OUTAGE_MINUTES); absent: no wait, as with 0. */
  modelOutage?: ModelOutageWindow;
}

/**
 * How long a ticket may wait for a model server that cannot be used for a while ({@link modelOutage}: no connection,
 * timeout, 429 rate limit, 5xx) before its failures count against AGENT_ATTEMPTS again. The agent worker keeps the
 * start of the wait in the job's data, so a restart does not start it over.
 */
export interface ModelOutageWindow {
  /** When this job's wait began (ms since the epoch): its first outage failure. Undefined while it has not waited. */
  since?: number;
  /**
   * When the outage the agent workers share began (ms since the epoch), if one was known when the run began. The
   * window runs from the earlier of this and {@link since}: a ticket that reached a worker late in a long outage
   * (behind a backlog that waited) waits only what is left of it, so after AGENT_MODEL_OUTAGE_MINUTES of one outage
   * every ticket uses its attempts and is parked, however many there are.
   */
  outageSince?: number;
  /** How long it may wait, in ms (AGENT_MODEL_OUTAGE_MINUTES); 0: not at all. */
  windowMs: number;
  /**
   * Asked before the agent runs: what kind of failure the model server last had (never its words:
   * `modelOutageSummary`) while another ticket is trying it during a known outage (this run then waits without a
   * request of its own), undefined when this run may call it.
   */
  hold?: () => Promise<string | undefined>;
}

/**
 * Thrown by {@link answerTicket} instead of the model's error while the ticket waits for the model server: the job
 * goes back to the queue without using an attempt (the agent worker pauses its workers first), the ticket stays
 * `processing`. `what` says what went wrong for this ticket, as a park reason would; `outage` says only what kind of
 * failure it was (`modelOutageSummary`: nothing the server said, which may echo this ticket's request), for what the
 * workers share; `cause` is the model's error, absent when the ticket was held for another ticket's try.
 */
export class ModelServerWait extends Error {
  constructor(
    /** When the ticket's wait began (ms since the epoch). */
    readonly since: number,
    readonly what: string,
    readonly outage: string,
    cause?: Error,
  ) {
    super(`waiting for the model server: ${what}`, cause ? { cause } : undefined);
    this.name = 'ModelServerWait';
  }

  /** True for a run held back while another ticket tried the server: it made no request of its own. */
  get held(): boolean {
    return this.cause === undefined;
  }
}

/** Thrown inside a run held back while another ticket tries the model server ({@link ModelOutageWindow.hold}). */
class HeldForModelServer extends Error {
  constructor(readonly what: string) {
    super(`held while another ticket tries the model server: ${what}`);
    this.name = 'HeldForModelServer';
  }
}

/** What one run did, returned as the job's result (visible in the dashboard and `job.returnvalue`). */
export type AnswerOutcome = (
  | { outcome: 'queued-for-sending'; ticketId: string }
  | { outcome: 'parked'; ticketId: string; reason: string }
  | {
      outcome: 'ignored';
      ticketId: string;
      reason: string;
      ignoreReason: IgnoreReason;
      /**
       * For a bounce of one of our replies: the ticket of that reply, marked bounced by this report (absent when an
       * earlier report had marked it), so the bounce counts once.
       */
      bouncedReplyOf?: string;
    }
  | { outcome: 'skipped'; ticketId: string; state: TicketState }
) & {
  /**
   * Present when the agent ran to a result in this attempt: what the metrics record (duration, LLM calls and
   * tokens). A run that fails has no outcome; its error carries what it spent (`agentRunSpendOf`), which the agent
   * worker records on the job's `failed` event.
   */
  agentRun?: { durationMs: number; usage: LlmUsage };
};

/** Runs the `answer-ticket` job for `data.ticketId`; see the module comment. */
export async function answerTicket(data: AnswerTicketData, deps: AnswerTicketDeps, attempt: AttemptInfo): Promise<AnswerOutcome> {
  const log = (deps.logger ?? createLogger('answer-ticket')).child({ ticketId: data.ticketId, jobId: attempt.jobId, attempt: attempt.attemptsMade + 1 });
  try {
    return await answer(data.ticketId, deps, attempt, log, data.reviewBy);
  } catch (err) {
    // What BullMQ stores and logs of the failure (Bull Board shows it) carries no key or URL secret of the model server.
    const failure = errorWithoutSecrets(toJobError(err), deps.config);
    const wait = await waitForModelServer(failure, data.ticketId, deps, attempt, log);
    if (wait instanceof ModelServerWait) throw wait;
    if (wait) return wait;
    if (failure instanceof UnrecoverableError || attempt.attemptsMade + 1 >= attempt.attempts) {
      const since = attempt.modelOutage?.since;
      const waited = since === undefined ? undefined : Date.now() - since;
      await parkAfterFailure(deps.store, data.ticketId, agentFailureReason(failure, attempt.attempts, data.ticketId, deps.config, waited), log);
    }
    throw failure;
  }
}

/** When a job's window began: the earlier of its own first wait and the outage's start; undefined when neither is known. */
function windowStart(window: ModelOutageWindow): number | undefined {
  const starts = [window.since, window.outageSince].filter((at): at is number => at !== undefined);
  return starts.length > 0 ? Math.min(...starts) : undefined;
}

/** Whether a job may still wait for the model server: inside AGENT_MODEL_OUTAGE_MINUTES from {@link windowStart}. */
function withinOutageWindow(window: ModelOutageWindow | undefined, now = Date.now()): window is ModelOutageWindow {
  if (!window || window.windowMs <= 0) return false;
  const start = windowStart(window);
  return start === undefined || now - start < window.windowMs;
}

/**
 * What becomes of a failed run while the model server cannot be used for a while: a {@link ModelServerWait} to throw
 * instead of the failure when the ticket may still wait (its first wait is noted on the ticket, once), an outcome
 * when the ticket moved on meanwhile (an operator's decision stands), or undefined for the usual attempts and park:
 * another failure, AGENT_MODEL_OUTAGE_MINUTES=0, or the wait is over.
 */
async function waitForModelServer(failure: Error, ticketId: string, deps: AnswerTicketDeps, attempt: AttemptInfo, log: Logger): Promise<ModelServerWait | AnswerOutcome | undefined> {
  const window = attempt.modelOutage;
  const held = failure instanceof HeldForModelServer;
  // A held run was inside the window when it was held; a failure of its own must still be.
  if (!window || window.windowMs <= 0 || (!held && !withinOutageWindow(window))) return undefined;
  // A held ticket is told only the kind of failure another ticket's request met; a ticket whose own request failed
  // keeps its own error.
  const outage = held ? failure.what : !(failure instanceof UnrecoverableError) ? modelOutageSummary(failure, deps.config) : undefined;
  const what = held ? outage : outage && modelFailure(failure, deps.config)?.what;
  if (!outage || !what) return undefined;
  if (window.since !== undefined) return new ModelServerWait(window.since, what, outage, held ? undefined : failure);
  const since = Date.now();
  // Said once, at the first wait, on the ticket the operator reads; the agent worker logs every pause. What is left of
  // the window, which runs from the outage's start when that was earlier.
  const left = (windowStart(window) ?? since) + window.windowMs - since;
  const reason = `${MODEL_SERVER_WAIT_NOTE}${new Date(since).toISOString()} (at most ${waitedText(left)}, AGENT_MODEL_OUTAGE_MINUTES): ${what}; the agent tries again by itself once it answers`;
  try {
    await deps.store.transition(ticketId, { from: ['processing'], to: 'processing', actor: AGENT_WORKER_ACTOR, note: reason, patch: { reason } });
  } catch (err) {
    if (err instanceof TicketConflictError) return skippedAfterRace(err, ticketId, log);
    // Erased meanwhile: nothing is left to answer or wait for.
    if (err instanceof TicketNotFoundError) throw new UnrecoverableError(`ticket ${ticketId} does not exist`);
    throw err;
  }
  return new ModelServerWait(since, what, outage, held ? undefined : failure);
}

/**
 * Characters of a ticket id the rerun command in a reason names: what `review list` prints, which the CLI takes, and
 * shown whole on the review page (which shortens a full id behind a link, hiding the rest of the command's argument).
 */
const RERUN_ID_CHARS = 12;

/**
 * The reason a ticket is parked with when the agent gave up (`failure` as {@link toJobError} made it). A model
 * server that could not be used is named with its masked URL and the setting to check, and the reason ends with the
 * command that tries again once it is fixed; any other failure keeps its error. Never carries the API key.
 */
export function agentFailureReason(failure: Error, attempts: number, ticketId: string, settings: ModelServerSettings, waitedMs?: number): string {
  const failed = failure instanceof UnrecoverableError ? `${PARK_NOTE.agentFailed} permanently` : `${PARK_NOTE.agentFailed} ${attempts} time(s)`;
  // A ticket that waited out AGENT_MODEL_OUTAGE_MINUTES says so: the operator sees it was not parked after seconds.
  const ran = waitedMs === undefined ? failed : `${failed} after waiting ${waitedText(waitedMs)} for the model server`;
  const model = modelFailure(failure, settings);
  if (model) return `${ran}: ${model.what}; ${model.then}, rerun: npm run review -- rerun ${ticketId.slice(0, RERUN_ID_CHARS)}`;
  const separator = failure instanceof UnrecoverableError ? ': ' : '; last error: ';
  return withoutSecrets(`${ran}${separator}${failure.message}`, settings);
}

/** `31 minutes`, or `40 seconds` for a wait under a minute. */
function waitedText(ms: number): string {
  if (ms < 60_000) {
    const seconds = Math.max(0, Math.round(ms / 1000));
    return `${seconds} second${seconds === 1 ? '' : 's'}`;
  }
  const minutes = Math.round(ms / 60_000);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * Parks a ticket the agent gave up on, if it is still the agent's (received, processing, or drafted: its draft was
 * stored but its send job could not be queued, and no later attempt will queue it): the job failed for good, and a
 * person must answer it. A drafted ticket keeps its draft, so approving it sends it; should a send job exist after
 * all, it finds the ticket parked and leaves it. Used by the handler and by the worker's `failed` listener (for
 * failures the handler never saw, such as a job that stalled too often). A failure to park is logged, not thrown:
 * the caller is already reporting the original error.
 */
export async function parkAfterFailure(store: TicketStore, ticketId: string, reason: string, log: Logger): Promise<void> {
  try {
    const ticket = await store.get(ticketId, { agentResult: false });
    if (!ticket || (ticket.state !== 'received' && ticket.state !== 'processing' && ticket.state !== 'drafted')) return;
    await store.transition(ticketId, {
      from: [ticket.state],
      to: 'parked',
      actor: AGENT_WORKER_ACTOR,
      note: reason,
      patch: { reason },
    });
    log.warn({ reason }, 'Ticket parked for a person after the agent failed');
  } catch (err) {
    log.error({ err, reason }, 'Could not park the ticket after the agent failed; it stays where it is');
  }
}

async function answer(ticketId: string, deps: AnswerTicketDeps, attempt: AttemptInfo, log: Logger, reviewBy?: string): Promise<AnswerOutcome> {
  const { store } = deps;
  let ticket = await produce(deps.redis, () => store.get(ticketId, { agentResult: false }));
  if (!ticket) throw new UnrecoverableError(`ticket ${ticketId} does not exist`);

  // Before anything else, the drafted state included: the person's decision has its own job (a rerun's, with their
  // `reviewBy`), which does what is left; this one, still waiting in the queue from before, must not draft or send.
  const decision = supersedingDecision(ticket, attempt.jobId);
  if (decision) {
    log.info({ state: ticket.state, decidedBy: decision.actor }, 'A person decided on the ticket after this job was queued; leaving it to them');
    return { outcome: 'skipped', ticketId, state: ticket.state };
  }

  if (ticket.state === 'drafted') {
    await queueSend(ticket, deps);
    return { outcome: 'queued-for-sending', ticketId };
  }
  if (PAST_PROCESSING.includes(ticket.state)) {
    log.info({ state: ticket.state }, 'Ticket already handled; nothing to do');
    return { outcome: 'skipped', ticketId, state: ticket.state };
  }

  // What the checks before the agent and after its draft read of the mail; a ticket without recorded signals has its
  // raw mail parsed here, before the agent runs, so a missing raw mail fails the job before anything is spent.
  const signals = ticket.replySignals ?? (await replySignalsFromRaw(ticket, deps));
  if (ticket.state === 'received') {
    const early = await checkBeforeAgent(ticket, signals, deps);
    if (early) {
      // Before the transition, so a retry after a crash in between marks the reply still (marking is idempotent).
      const bounced = early.to === 'ignored' ? await markBouncedReply(ticket, deps) : undefined;
      const reason = bounced ? `${early.reason}; our reply of ticket ${bounced.id} did not arrive` : early.reason;
      const marked = bounced?.replyBounce?.reportTicketId === ticketId ? bounced.id : undefined;
      try {
        await store.transition(ticketId, { from: ['received'], to: early.to, actor: AGENT_WORKER_ACTOR, note: reason, patch: { reason }, current: ticket });
      } catch (err) {
        if (err instanceof TicketConflictError) return skippedAfterRace(err, ticketId, log);
        throw err;
      }
      // Reasons may name the sender; addresses stay out of info-level logs, so info gets the reason's kind only.
      log.info({ state: early.to, reason: early.ignoreReason ?? early.reason.split(':')[0], ...(bounced ? { replyTicketId: bounced.id } : {}) }, early.to === 'ignored' ? 'Mail ignored' : 'Ticket parked before the agent');
      log.debug({ reason }, 'Reason in full');
      if (early.to === 'ignored' && early.ignoreReason) {
        return { outcome: 'ignored', ticketId, reason, ignoreReason: early.ignoreReason, ...(marked ? { bouncedReplyOf: marked } : {}) };
      }
      return { outcome: 'parked', ticketId, reason };
    }
  }

  // While the model server is known to be out of use, one ticket at a time tries it; the others wait without a request.
  // A ticket already `processing` asks first: held, it goes back to the queue without a write (a waiting one noted its
  // wait once, at the first), so the many held runs of a long outage leave its history alone.
  const window = attempt.modelOutage;
  const mayWait = withinOutageWindow(window);
  const resumed = ticket.state === 'processing';
  if (mayWait && resumed) {
    const held = await window.hold?.();
    if (held) throw new HeldForModelServer(held);
  }

  // `processing` again means an earlier attempt crashed, stalled or failed temporarily after the checks passed, or
  // that the ticket waited for the model server; the table's processing → processing edge records that this run is
  // another try. Every run that goes on to call the model makes this write, checked against the ticket as read
  // (`current`): of two runs of one job at once (a stalled job handed to a second worker), only one gets past it.
  const tried = attempt.attemptsMade + 1;
  const waited = resumed && mayWait && window.since !== undefined;
  const note = waited ? `resumed while waiting for the model server (attempt ${tried})` : resumed ? `resumed (attempt ${tried})` : `attempt ${tried}`;
  try {
    ticket = await store.transition(ticketId, { from: [ticket.state], to: 'processing', actor: AGENT_WORKER_ACTOR, note, current: ticket });
  } catch (err) {
    if (err instanceof TicketConflictError) return skippedAfterRace(err, ticketId, log);
    throw err;
  }

  // A ticket just taken from `received` is held after its first write: its wait is noted from `processing`.
  if (mayWait && !resumed) {
    const held = await window.hold?.();
    if (held) throw new HeldForModelServer(held);
  }

  const earlier = await conversationOf(ticket, deps);
  const conversation = formatConversation(earlier);
  const result = await deps.agent.runAgent(ticket.question, {
    ...(conversation ? { conversation } : {}),
    ...(attempt.signal ? { signal: attempt.signal } : {}),
  });
  try {
    // Our earlier replies in the thread went out checked (or approved): their links are vouched for.
    const ourReplies = earlier.flatMap((e) => (e.reply ? [e.reply] : []));
    return await settle(ticket, result, ourReplies, signals, deps, log, reviewBy);
  } catch (err) {
    // Someone moved the ticket while the agent ran (a person took over a ticket waiting for the model server): theirs is
    // the newer decision, so no retry is owed; the run's calls were billed all the same.
    if (err instanceof TicketConflictError) return { ...skippedAfterRace(err, ticketId, log), agentRun: { durationMs: result.durationMs, usage: result.usage } };
    // The model billed the run's calls whatever failed after it (a Redis write, the send job): the error carries them
    // to the worker's counters. `settle` marks the failure after the result was stored itself.
    throw agentRunSpendOf(err) ? err : withSpend(err, spendOf(result, false));
  }
}

/** What a finished run spent, for an error after it; `resultStored`: see {@link AgentRunSpend}. */
function spendOf(result: AgentResult, resultStored: boolean): AgentRunSpend {
  return { durationMs: result.durationMs, usage: result.usage, llmCalls: result.llmCalls, resultStored };
}

/** What becomes of a ticket once the agent answered it: parked for a person, or drafted with its send job queued. */
async function settle(ticket: Ticket, result: AgentResult, ourReplies: readonly string[], signals: ReplySignals, deps: AnswerTicketDeps, log: Logger, reviewBy?: string): Promise<AnswerOutcome> {
  const { store, config } = deps;
  const ticketId = ticket.id;
  const agentRun = { durationMs: result.durationMs, usage: result.usage };
  const draft = result.answer.trim();
  // What no review mode sends without a person: no answer, one cut off, one leaking the model's reasoning…
  const readers = replyReaders(ticket, result, ourReplies, signals, config);
  // A draft asking for a password, code or identity document by mail is read after the links: when it also names a
  // foreign address to send it to, that address is what the person must see. A third language or look-alike letters
  // come last, as what the word lists before them could not read.
  const problem = draft
    ? (draftProblem(ticket.question, draft, result, deps.agent.prompts) ?? draftPlaceholderReason(draft, [ticket.subject, ticket.question], placeholderKnowledge(result)) ?? foreignLinksProblem(ticket, draft, readers) ?? secretRequestReason(draft, readers.allowed.knowledge) ?? draftScriptProblem(draft, { customer: [ticket.subject, ticket.question], knowledge: readers.allowed.knowledge }))
    : 'the agent produced an empty answer';
  let verdict = problem ? { send: false, reason: problem } : reviewVerdict(config.REVIEW_MODE, result);
  // A person asked for this draft from the review page or the API (`reviewBy`): it goes back to them, never out on its
  // own, whatever the mode; the checks before the agent, such as the repeated question, did not run on this rerun.
  if (reviewBy) verdict = { send: false, reason: rerunReason(reviewBy, verdict.send ? undefined : verdict.reason) };
  const parkDraft = async (reason: string): Promise<AnswerOutcome> => {
    const parked = await store.transition(ticketId, {
      from: ['processing'],
      to: 'parked',
      actor: AGENT_WORKER_ACTOR,
      note: reason,
      patch: { agent: result, draft: result.answer, reason },
      current: ticket,
    });
    await learnGapsFrom({ store, redis: deps.redis, logger: log }, parked);
    // The reason may name what the customer wrote (a phone number the draft repeated): info gets its kind only.
    log.info({ reason: reason.split(':')[0] }, 'Draft parked for review');
    log.debug({ reason }, 'Reason in full');
    return { outcome: 'parked', ticketId, reason, agentRun };
  };
  if (!verdict.send) return parkDraft(verdict.reason);

  // Who the reply would reach (a forged sender, bulk mail, a Reply-To on another domain than From), or whether the
  // mail may be a second copy of another ticket's. A person decides; the draft is kept, so sending it is one click.
  const hold = senderReviewReason(ticket, signals, config) ?? possibleCopyReview(ticket);
  if (hold) {
    const parked = await store.transition(ticketId, { from: ['processing'], to: 'parked', actor: AGENT_WORKER_ACTOR, note: hold.reason, patch: { agent: result, draft, reason: hold.reason }, current: ticket });
    await learnGapsFrom({ store, redis: deps.redis, logger: log }, parked);
    // The reason names addresses; info gets its kind only.
    log.info({ kind: hold.kind }, 'Draft parked: a person decides whether it goes out');
    log.debug({ reason: hold.reason }, 'Reason in full');
    return { outcome: 'parked', ticketId, reason: hold.reason, agentRun };
  }

  // Earned autonomy: what `auto` would send goes out only when every source it cited has proved itself in review.
  // Asked last, of a draft every other check let through: a wait for trust then means nothing else stood in its way,
  // which is what the review page tells the operator, and a forged sender keeps its own reason, banner and tick.
  if (config.REVIEW_MODE === 'learn') {
    verdict = await produce(deps.redis, () => learnVerdict(deps.redis, config.QUEUE_PREFIX, result, config));
    if (!verdict.send) return parkDraft(verdict.reason);
  }

  // The binding rate-limit check: counted atomically when the reply is queued, so two tickets of one sender (or
  // to one recipient) cannot both take the last slot of the hour.
  const recorded = await produce(deps.redis, () => recordAutoReplyBudget(deps.redis, config.QUEUE_PREFIX, partiesOf(ticket), ticketId, limitsOf(config)));
  // The customer was erased while the agent ran: neither the draft nor anything else of the run may be stored.
  if (recorded.erased) throw new UnrecoverableError(`ticket ${ticketId} was erased on request; its draft is not stored`);
  if (!recorded.allowed) {
    const reason = rateLimitReason(ticket, recorded, config);
    const parked = await store.transition(ticketId, { from: ['processing'], to: 'parked', actor: AGENT_WORKER_ACTOR, note: reason, patch: { agent: result, draft, reason }, current: ticket });
    await learnGapsFrom({ store, redis: deps.redis, logger: log }, parked);
    log.info({ count: recorded.count, window: recorded.refusedBy }, 'Draft parked: auto-reply limit reached');
    return { outcome: 'parked', ticketId, reason, agentRun };
  }

  const drafted = await store.transition(ticketId, {
    from: ['processing'],
    to: 'drafted',
    actor: AGENT_WORKER_ACTOR,
    note: verdict.reason,
    patch: { agent: result, draft, reason: null },
    current: ticket,
  });
  try {
    await queueSend(drafted, deps);
  } catch (err) {
    // The ticket holds the result now: the run produced one, and the insights count it from the ticket.
    throw withSpend(err, spendOf(result, true));
  }
  // After the send job is safe: the gaps are a by-product and must not delay or endanger the reply.
  await learnGapsFrom({ store, redis: deps.redis, logger: log }, drafted);
  log.info({ subtasks: result.subtasks.length }, 'Reply drafted and queued for sending');
  return { outcome: 'queued-for-sending', ticketId, agentRun };
}

/**
 * The checks that need no agent, in the order of the brief: mail that must not be answered is `ignored`; a spam
 * guard's request to confirm us as a sender (its held reply marked), list mail that copies our address, mail the
 * agent cannot read, mail with nothing to answer, mail an answer would take to the wrong party or that asks us nothing
 * (parkBeforeAgentReason), or from a sender over the hourly auto-reply limit, is `parked` (kept for a person, not dropped). Last, the run about to start is counted against the hourly agent-run limits, or
 * the mail is parked over them. Mail held at ingest ({@link Ticket.heldReason}: a first start's backlog, a raw copy
 * a budget refused) goes through every check of the mail itself, so it is ignored as on any day, and is then parked
 * with its hold (beside a park reason of those checks) instead of reaching the limits or the agent. Returns undefined
 * when the agent should run.
 */
async function checkBeforeAgent(
  ticket: Ticket,
  signals: ReplySignals,
  deps: AnswerTicketDeps,
): Promise<EarlyDecision | undefined> {
  const own = await checkMailBeforeAgent(ticket, signals, deps);
  if (own?.to === 'ignored') return own;
  // The hold first, so the reason reads as held (and a refused raw copy is named as such); the checks' words after.
  if (ticket.heldReason) return { to: 'parked', reason: own ? `${ticket.heldReason}; ${own.reason}` : ticket.heldReason };
  return own ?? (await checkLimitsBeforeAgent(ticket, signals, deps));
}

/** What the checks before the agent decided: the ticket is ignored or parked with `reason`. */
interface EarlyDecision {
  to: 'ignored' | 'parked';
  reason: string;
  ignoreReason?: IgnoreReason;
}

/** The checks before the agent that read the mail itself (not the hourly limits); see {@link checkBeforeAgent}. */
async function checkMailBeforeAgent(ticket: Ticket, signals: ReplySignals, deps: AnswerTicketDeps): Promise<EarlyDecision | undefined> {
  const { config } = deps;
  const spamHeader = config.SPAM_HEADER ? { name: config.SPAM_HEADER, value: config.SPAM_HEADER_VALUE } : undefined;
  // The subject and the thread are on the ticket itself (an out-of-office notice is a reply under a fixed prefix).
  const mail = { ...signals, subject: ticket.subject, inReplyTo: ticket.inReplyTo, references: ticket.references };
  const decision = decideReply(mail, { ...ownMailboxesOf(config), spamHeader });
  // A guard's request to confirm us as a sender often calls itself an automatic reply: parked all the same, since a
  // person may confirm so the customer gets our reply. Its own words (the question) are read here only: the reply
  // decision reads recorded signals, not the question.
  const verification = outrankedBySenderVerification(decision) ? senderVerificationOf({ ...mail, question: ticket.question }, ownMailboxesOf(config)) : undefined;
  if (verification) return { to: 'parked', reason: await heldReplyReason(ticket, verification, deps) };
  // SPAM_ACTION=park: a person looks at what the filter flagged (no draft is made for it), nothing is sent.
  if (!decision.answer && decision.reason === 'spam' && config.SPAM_ACTION === 'park') return { to: 'parked', reason: `spam: ${decision.detail}` };
  if (!decision.answer) return { to: 'ignored', reason: ignoreReasonText(decision), ignoreReason: decision.reason };
  // A list member asked us in Cc: neither ignored as list traffic nor answered into the list's discussion.
  const listCopy = listCopyReviewReason(mail, ownMailboxesOf(config));
  if (listCopy) return { to: 'parked', reason: listCopy };
  // Before the question check: an encrypted mail's question is its subject at best, and the reason says why.
  if (ticket.unreadable) return { to: 'parked', reason: ticket.unreadable };

  if (!hasQuestion(ticket)) return { to: 'parked', reason: noQuestionReason(ticket.question) };
  // Mail an answer would take to the wrong party, or that asks us nothing: a stranger named as us, a colleague, a
  // no-reply Reply-To beside a person, a null envelope sender that is no bounce, a circular.
  const held = parkBeforeAgentReason({ ...mail, question: ticket.question }, config);
  if (held) return { to: 'parked', reason: held };
  return undefined;
}

/**
 * The hourly limits before the agent: the sender's auto-reply budget (not in `always` mode), a repeated question,
 * then the agent-run limits, which count the run about to start; see {@link checkBeforeAgent}.
 */
async function checkLimitsBeforeAgent(ticket: Ticket, signals: ReplySignals, deps: AnswerTicketDeps): Promise<EarlyDecision | undefined> {
  const { config } = deps;
  // Nothing goes out automatically in `always` mode, so the sender's auto-reply budget is not touched there.
  if (config.REVIEW_MODE !== 'always') {
    const check = await produce(deps.redis, () => autoReplyBudget(deps.redis, config.QUEUE_PREFIX, partiesOf(ticket), limitsOf(config)));
    if (!check.allowed) return { to: 'parked', reason: rateLimitReason(ticket, check, config) };
  }
  // In every mode: in `always` each copy's draft waits for a person, and one approving both sends the customer two replies.
  const repeated = config.REPEATED_QUESTION_HOURS > 0 ? await repeatedQuestion(ticket, deps) : undefined;
  if (repeated) return { to: 'parked', reason: repeated };
  // Counted here, as the run starts and in every review mode: a run costs model calls and a reviewer's time whatever
  // becomes of its draft, and a parked draft never reaches the reply limits. Only mail comes this way (`received`): a
  // retry of a run that began is `processing`, as is a person's request for a new draft, which is theirs to spend.
  // A run on mail whose sender the receiving server vouched for counts in its domain's window of authenticated mail,
  // so forgeries under the domain (which anyone can write) cannot spend it (review 42a). Only for the From the ticket
  // is counted under: a ticket whose From was read elsewhere (an IMAP envelope) is vouched for by nothing here. And
  // only with AUTHSERV_ID: without it the topmost Authentication-Results may be the sender's own (review 42b).
  const authenticated =
    config.AUTHSERV_ID.length > 0 && isSameMailbox(signals.from?.address ?? '', ticket.from) && senderVouchedFor(signals, ownMailboxesOf(config));
  const sender = { address: ticket.from, authenticated };
  const run = await produce(deps.redis, () => recordAgentRun(deps.redis, config.QUEUE_PREFIX, sender, ticket.id, agentRunLimitsOf(config)));
  if (run.erased) throw new UnrecoverableError(`ticket ${ticket.id} was erased on request; the agent does not run on it`);
  if (!run.allowed) return { to: 'parked', reason: agentRunLimitReason(ticket, run, config, authenticated) };
  return undefined;
}

/** What a reply held by a customer's spam guard records as its bounce ({@link ReplyBounce.diagnostic}). */
const HELD_BY_SPAM_GUARD = "sender verification: held by the customer's spam guard until someone confirms us as a sender";

/**
 * Why a guard's request to confirm us as a sender ({@link senderVerificationOf}) is parked, naming the reply it holds.
 * That reply's ticket, found by the Message-ID the request answers as a bounce's is, is marked as not arrived
 * ({@link TicketStore.recordReplyBounce}, idempotent: the first mark stays), so the review page lists it with the
 * replies that did not arrive until a person has seen to it. Only on a guard's header or template subject: words alone
 * ({@link SenderVerification.wordsOnly}) may be a customer's question, whose reply did arrive; the reason says so.
 */
async function heldReplyReason(ticket: Ticket, verification: SenderVerification, deps: AnswerTicketDeps): Promise<string> {
  const held: ReplyBounce = { at: new Date().toISOString(), reportTicketId: ticket.id, diagnostic: HELD_BY_SPAM_GUARD };
  let replied: Ticket | undefined;
  for (const messageId of verification.wordsOnly ? [] : verification.ourMessageIds) {
    replied = await produce(deps.redis, () => deps.store.recordReplyBounce(messageId, held));
    if (replied) break;
  }
  const what = replied
    ? `our reply of ticket ${replied.id}`
    : verification.ourMessageIds[0] !== undefined
      ? `our reply ${verification.ourMessageIds[0]}`
      : 'a mail of ours, which it does not name,';
  const unmarked = verification.wordsOnly ? ' (only its words say so: the reply is not marked as not arrived)' : '';
  return `sender verification: the customer's spam guard holds ${what} until someone confirms${unmarked}; a person decides whether to (${verification.detail})`;
}

/**
 * For a bounce that reports one of our replies undelivered (`Action: failed`, or a prose bounce that is no warning):
 * marks that reply's ticket bounced, so the review page shows that the customer got no answer. Returns the marked
 * ticket, or undefined when the mail reports nothing of ours. A delay notice marks nothing: the mail is still on its
 * way.
 */
async function markBouncedReply(ticket: Ticket, deps: AnswerTicketDeps): Promise<Ticket | undefined> {
  const report = ticket.deliveryReport;
  if (!report?.failed) return undefined;
  const bounce: ReplyBounce = {
    at: new Date().toISOString(),
    reportTicketId: ticket.id,
    ...(report.recipient ? { recipient: report.recipient } : {}),
    ...(report.status ? { status: report.status } : {}),
    ...(report.diagnostic ? { diagnostic: report.diagnostic } : {}),
  };
  for (const messageId of report.messageIds) {
    const replied = await produce(deps.redis, () => deps.store.recordReplyBounce(messageId, bounce));
    if (replied) return replied;
  }
  return undefined;
}

/**
 * Why the ticket is a repeat of a question the same sender asked within REPEATED_QUESTION_HOURS that is being (or
 * was) answered, or undefined; see src/tickets/repeated-question.ts. An earlier copy that ended without an answer
 * hands the question to this one.
 */
async function repeatedQuestion(ticket: Ticket, deps: AnswerTicketDeps): Promise<string | undefined> {
  const { redis, config, store } = deps;
  const windowMs = config.REPEATED_QUESTION_HOURS * 3_600_000;
  const earlierId = await produce(redis, () => claimQuestion(redis, config.QUEUE_PREFIX, ticket, windowMs));
  if (!earlierId) return undefined;
  const earlier = await produce(redis, () => store.get(earlierId, { agentResult: false }));
  if (earlier && ANSWERING_STATES.includes(earlier.state)) return repeatedQuestionReason(earlier, new Date());
  await produce(redis, () => takeOverQuestion(redis, config.QUEUE_PREFIX, ticket, windowMs));
  return undefined;
}

/**
 * Why a ticket is parked as having no question: nothing at all to read, or a web form whose fields are all empty
 * (its labels are letters, but no question).
 */
/** For a ticket without recorded {@link Ticket.replySignals}: the stored raw mail, parsed again. */
async function replySignalsFromRaw(ticket: Ticket, deps: AnswerTicketDeps): Promise<ReplySignals> {
  const raw = await produce(deps.redis, () => loadRaw(deps.redis, deps.config.QUEUE_PREFIX, ticket.id));
  if (!raw) throw new UnrecoverableError(`the stored raw mail of ticket ${ticket.id} is missing (rawRef ${ticket.rawRef ?? 'unset'})`);
  return parseInboundMail(raw, { maxBytes: deps.config.MAX_EMAIL_BYTES, extraHeaders: replySignalHeaders(deps.config) });
}

/** Who an automatic reply concerns: the sender, and the address the sender will mail (Reply-To, else From). */
function partiesOf(ticket: Ticket): AutoReplyParties {
  return { sender: ticket.from, recipient: ticket.replyTo || ticket.from };
}

function limitsOf(config: Pick<Config, 'AUTO_REPLY_LIMIT_PER_HOUR' | 'AUTO_REPLY_LIMIT_TOTAL_PER_HOUR'>): AutoReplyLimits {
  return { perAddress: config.AUTO_REPLY_LIMIT_PER_HOUR, total: config.AUTO_REPLY_LIMIT_TOTAL_PER_HOUR };
}

type AgentRunLimitConfig = Pick<Config, 'AGENT_RUN_LIMIT_PER_HOUR' | 'AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR' | 'AGENT_RUN_LIMIT_TOTAL_PER_HOUR'>;

function agentRunLimitsOf(config: AgentRunLimitConfig): AgentRunLimits {
  return { perSender: config.AGENT_RUN_LIMIT_PER_HOUR, perDomain: config.AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR, total: config.AGENT_RUN_LIMIT_TOTAL_PER_HOUR };
}

/** `1 agent run`, `20 agent runs`: what the limit counts, a run whatever became of its draft. */
function agentRuns(count: number): string {
  return `${count} agent run${count === 1 ? '' : 's'}`;
}

/**
 * The park reason of a run a window refused: its count and limit, and which window, of authenticated mail or of the
 * rest. `authenticated` is the mail's, as counted: a sender's run is refused only by the window of its own kind of
 * mail, which the budget does not name for the sender's windows.
 */
function agentRunLimitReason(ticket: Ticket, budget: AgentRunBudget, config: AgentRunLimitConfig, authenticated: boolean): string {
  // The total is counted apart for authenticated mail and the rest: the count is that window's, and which one refused
  // tells the reviewer whether a flood of strangers' mail filled it.
  if (budget.refusedBy === 'total' && budget.authenticated) {
    return `${PARK_NOTE.agentRunLimit}: ${agentRuns(budget.count)} on mail the receiving server authenticated in the last hour (AGENT_RUN_LIMIT_TOTAL_PER_HOUR=${config.AGENT_RUN_LIMIT_TOTAL_PER_HOUR}, shared by all authenticated mail)`;
  }
  if (budget.refusedBy === 'total') {
    return (
      `${PARK_NOTE.agentRunLimit}: ${agentRuns(budget.count)} on mail no receiving server authenticated in the last hour ` +
      `(AGENT_RUN_LIMIT_TOTAL_PER_HOUR=${config.AGENT_RUN_LIMIT_TOTAL_PER_HOUR}, shared by all such mail, which anyone can write: authenticated mail counts apart and still runs)`
    );
  }
  // The domain is the From's as domainOf writes it (lower case, IDN as punycode): no header text beyond that. Which of
  // its two windows refused tells the reviewer whether raising the limit helps the organisation or a forger.
  if (budget.refusedBy === 'domain' && budget.authenticated) {
    return (
      `${PARK_NOTE.agentRunLimit}: ${agentRuns(budget.count)} on mail from ${budget.domain} that the receiving server authenticated in the last hour ` +
      `(AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR=${config.AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR}, shared by every authenticated address of the domain: raise it if this organisation really writes this much)`
    );
  }
  if (budget.refusedBy === 'domain') {
    return (
      `${PARK_NOTE.agentRunLimit}: ${agentRuns(budget.count)} on mail from ${budget.domain} that no receiving server authenticated in the last hour ` +
      `(AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR=${config.AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR}, shared by every such address of the domain, which anyone can write: its authenticated mail counts apart and still runs)`
    );
  }
  // The sender's windows are split the same way (security review 14): forgeries under a customer's address fill only
  // the window of unauthenticated mail, and the reviewer should see that the customer's own mail still runs.
  if (authenticated) {
    return (
      `${PARK_NOTE.agentRunLimit}: ${agentRuns(budget.count)} on mail from ${ticket.from} that the receiving server authenticated in the last hour ` +
      `(AGENT_RUN_LIMIT_PER_HOUR=${config.AGENT_RUN_LIMIT_PER_HOUR}, for this address's authenticated mail: raise it if this sender really writes this much)`
    );
  }
  return (
    `${PARK_NOTE.agentRunLimit}: ${agentRuns(budget.count)} on mail from ${ticket.from} that no receiving server authenticated in the last hour ` +
    `(AGENT_RUN_LIMIT_PER_HOUR=${config.AGENT_RUN_LIMIT_PER_HOUR}, for such mail from this address, which anyone can write: its authenticated mail counts apart and still runs)`
  );
}

function rateLimitReason(ticket: Ticket, budget: AutoReplyBudget, config: Pick<Config, 'AUTO_REPLY_LIMIT_PER_HOUR' | 'AUTO_REPLY_LIMIT_TOTAL_PER_HOUR'>): string {
  if (budget.refusedBy === 'total') {
    return `${PARK_NOTE.autoReplyLimit}: ${budget.count} automatic replies in the last hour (AUTO_REPLY_LIMIT_TOTAL_PER_HOUR=${config.AUTO_REPLY_LIMIT_TOTAL_PER_HOUR})`;
  }
  const address = budget.refusedBy === 'recipient' ? partiesOf(ticket).recipient : ticket.from;
  return `${PARK_NOTE.autoReplyLimit}: ${budget.count} automatic replies to ${address} in the last hour (AUTO_REPLY_LIMIT_PER_HOUR=${config.AUTO_REPLY_LIMIT_PER_HOUR})`;
}

/**
 * The parent of two domains, one the same as or under the other, when it is a public suffix rather than one
 * organisation's domain (`co.jp` above `bigcorp.co.jp`, `jp`, `com`): their organisation domains differ. Nobody can
 * authenticate mail from a public suffix, so a From there gets `dmarc=none`, never `fail`, and "covers" every company
 * under it. `organisationDomain` (src/mail/classify.ts) reads the Public Suffix List, its private section included
 * (`tokyo.jp`, `github.io`), and Microsoft 365's `onmicrosoft.com`.
 */
function publicSuffixAbove(fromDomain: string, replyDomain: string): string | undefined {
  if (organisationDomain(fromDomain) === organisationDomain(replyDomain)) return undefined;
  return fromDomain.length <= replyDomain.length ? fromDomain : replyDomain;
}

// A web form (our contact page, WordPress, a form service, a CRM) sends from its own address with the visitor's in
// Reply-To: whatever the visitor typed, a victim's address too. No setting can vouch for it (TRUSTED_REPLY_TO_DOMAINS
// matches the Reply-To, each visitor's own domain), so form mail is held by design and the reviewer is told why.
const WEB_FORM_NOTE = "a web form's Reply-To is typed by the visitor: check the address before approving";

/**
 * Why an automatic reply must not go to the ticket's Reply-To, or undefined when it may. A Reply-To on a trusted
 * domain (`TRUSTED_REPLY_TO_DOMAINS`, a listed domain or a subdomain of one) may always be answered. Otherwise:
 * - a no-reply From (noreply@, do-not-reply@…) with another address in Reply-To is a system's notification naming
 *   someone else (an invitation, a CRM's "X assigned you…"), not that person's question;
 * - a Reply-To on another domain than From can aim our reply at a third party (a relay). A subdomain either way
 *   (`reply.mysurvey.example` beside `mysurvey.example`) is the same sender, within one organisation's domain: not
 *   a company under the public suffix the other names ({@link publicSuffixAbove}: From `co.jp`, Reply-To
 *   `bigcorp.co.jp`);
 * - but not on a shared mail provider's domain (gmail.com, docomo.ne.jp, ocn.ne.jp: src/mail/shared-mail-domains.ts),
 *   where anyone holds a mailbox: From mallory@gmail.com with Reply-To victim@gmail.com is two strangers, and the
 *   reply would be mallory's message to the victim from our address. Only the From's own mailbox (case and `+tag`
 *   aside) goes out there.
 * Web-form mail meets the first or second rule and is held by design: its Reply-To is what a visitor typed.
 */
export function foreignReplyToReason(ticket: Pick<Ticket, 'from' | 'replyTo'>, trusted: readonly string[]): string | undefined {
  if (!ticket.replyTo || isSameMailbox(ticket.replyTo, ticket.from)) return undefined;
  const replyDomain = domainOf(ticket.replyTo);
  const fromDomain = domainOf(ticket.from);
  if (trusted.some((d) => isSameOrSubdomain(replyDomain, domainOf(`@${d}`)))) return undefined;
  if (isNoReplyAddress(ticket.from)) {
    return `From ${ticket.from} is a no-reply address and Reply-To names another, ${ticket.replyTo}: a system notification on someone else's behalf, or a web form's mail (${WEB_FORM_NOTE})`;
  }
  if (!isSameOrSubdomain(replyDomain, fromDomain) && !isSameOrSubdomain(fromDomain, replyDomain)) {
    return `Reply-To domain ${replyDomain} differs from the sender's domain ${fromDomain} (not in TRUSTED_REPLY_TO_DOMAINS): a relay, or a web form's mail (${WEB_FORM_NOTE})`;
  }
  const suffix = publicSuffixAbove(fromDomain, replyDomain);
  if (suffix !== undefined) {
    return `Reply-To domain ${replyDomain} differs from the sender's domain ${fromDomain}: ${suffix} is a public suffix, under which anyone registers a domain (not in TRUSTED_REPLY_TO_DOMAINS)`;
  }
  const shared = [replyDomain, fromDomain].find(isSharedMailDomain);
  if (shared === undefined) return undefined;
  return `Reply-To ${ticket.replyTo} is another mailbox than From ${ticket.from} on ${shared}, a shared mail provider: the same domain says nothing about who owns it (not in TRUSTED_REPLY_TO_DOMAINS)`;
}

/**
 * Why a finished draft needs a person before it goes out ({@link senderReviewReason}, {@link possibleCopyReview}),
 * and its kind for the logs.
 */
export interface SenderReview {
  kind: 'forged-sender' | 'unclear-sender' | 'own-group' | 'possible-phishing' | 'bulk-mail' | 'reply-to' | 'possible-copy';
  reason: string;
}

/** The start of the reason of a draft parked because its mail may be a second copy of another ticket's. */
export const POSSIBLE_COPY_REASON = 'possibly a second copy of ticket';

/**
 * A mail keyed apart because another with its Message-ID, sender and date says something else
 * ({@link Ticket.possibleCopyOf}): it may be an edited mail sent again, or the same mail changed on its way (a
 * gateway's banner on one route). Answering it on a guess could answer the customer twice, so a person compares.
 */
export function possibleCopyReview(ticket: Pick<Ticket, 'possibleCopyOf'>): SenderReview | undefined {
  if (!ticket.possibleCopyOf) return undefined;
  return {
    kind: 'possible-copy',
    reason: `${POSSIBLE_COPY_REASON} ${ticket.possibleCopyOf}: same Message-ID, sender and date, other text or attachments; send this reply only if the mail asks something that ticket's reply does not answer`,
  };
}

/**
 * Why a draft must wait for a person because of its mail's sender, or undefined, most serious first: the receiving
 * server found the sender forged (`dmarc=fail`, `spf=fail`: our reply would go to whoever was impersonated); the
 * sender cannot be told (two From fields, several From addresses, whatever a Sender says: {@link ReplySignals.senderUnclear});
 * the mail
 * is bulk mail by weaker signs than a list header (a mail service's bounce Return-Path, Errors-To, a system account, a
 * campaign header, a newsletter's unsubscribe footer recorded at ingest, a machine-made Reply-To), which a web form
 * relayed by such a service, or a customer's mail that reads like one, may also show; or the Reply-To is not to be
 * answered automatically
 * ({@link foreignReplyToReason}). Decided after the draft, so that sending it is one click where a person agrees.
 */
export function senderReviewReason(
  ticket: Pick<Ticket, 'from' | 'replyTo'> & Partial<Pick<Ticket, 'question' | 'subject'>>,
  signals: ReplySignals,
  config: Pick<Config, 'TRUSTED_REPLY_TO_DOMAINS' | 'MAIL_FROM' | 'SUPPORT_ADDRESSES' | 'SUPPORT_GROUP_ADDRESSES' | 'AUTHSERV_ID'> &
    Partial<Pick<Config, 'TRUSTED_LINK_DOMAINS'>>,
): SenderReview | undefined {
  const mailboxes = ownMailboxesOf(config);
  const forged = forgedSenderDetail(signals, mailboxes);
  if (forged) {
    return {
      kind: 'forged-sender',
      reason: `possibly forged sender: the receiving server's Authentication-Results says ${forged}; a reply would go to whoever was impersonated`,
    };
  }
  // Two From fields, or several From addresses, whatever a Sender says: the first, which the reply takes, is the mail's choice.
  if (signals.senderUnclear) return { kind: 'unclear-sender', reason: signals.senderUnclear };
  // Before bulk mail: a group's envelope and footer read as bulk mail, and what to configure is the useful reason.
  const group = ownGroupReviewDetail(signals, mailboxes);
  if (group) return { kind: 'own-group', reason: `not authenticated as mail through our group: ${group}` };
  const lure = loginLureDetail(`${ticket.subject ?? ''}\n${ticket.question ?? ''}`, signals, mailboxes, ownLinkDomains(mailboxes, config.TRUSTED_LINK_DOMAINS ?? []));
  // Worded as a check, not a verdict: the same words come from customers locked out of our own login screen.
  if (lure) return { kind: 'possible-phishing', reason: `check the sender before answering: ${lure}` };
  const bulk = bulkMailDetail(signals, mailboxes);
  if (bulk) return { kind: 'bulk-mail', reason: `bulk mail: ${bulk}` };
  const replyTo = foreignReplyToReason(ticket, config.TRUSTED_REPLY_TO_DOMAINS);
  return replyTo ? { kind: 'reply-to', reason: replyTo } : undefined;
}

// What a credential-phishing mail asks: that the reader verify or log in (on the link). Always there: it is the lure's
// purpose. A customer in a hurry names a locked account and a deadline too, but asks us to act, not themselves.
const LURE_CALL =
  /ご?(?:本人(?:様)?確認|ログイン|サインイン|パスワード|認証|アカウント(?:情報)?|登録情報|カード情報|お支払い情報)(?:を|の)?(?:ご?(?:確認|更新|再設定|再入力|入力)を?)?(?:お願い|完了|して(?:ください|下さい)|が必要|を行って)|\b(?:verify|confirm|update) your (?:account|identity|information|details|password|payment)\b/iu;
// What it threatens beside the call, one of them at least: that an account or card is restricted, a deadline. A
// customer asking about 本人確認書類 writes one of these signs at most.
const LURE_PRESSURE: readonly RegExp[] = [
  /(?:口座|アカウント|カード|お取引|ご利用|サービス)[^。\n]{0,15}(?:制限|凍結|停止|ロック|無効|利用できなく)|\baccount (?:has been |will be |is )?(?:suspended|locked|limited|restricted|disabled|closed)\b/iu,
  /(?:24|48|72)\s*時間以内|本日中|\bwithin (?:24|48|72) hours\b/iu,
];
// A link to follow: a URL in the text, the words that stand for one (an HTML link's URL is not in the text), or a
// link the link check reads in it (security review 14: a host written with 。 between its labels, a defanged link, a
// bare IP address with a path). Only links: an address or a phone number beside a deadline is how customers write
// about their own locked accounts too, and the draft check reads those anyway.
const LURE_LINK_WORDS = /https?:\/\/|\bwww\.|(?:下記|以下|次)の(?:リンク|URL|ＵＲＬ)|リンク(?:より|から|を(?:クリック|タップ))|(?:URL|ＵＲＬ)(?:より|から)|はこちら|\bclick (?:here|the link|below)\b/iu;
/**
 * Whether `words` hold a link to follow ({@link LURE_LINK_WORDS}, or a link the check reads not on `ownDomains`
 * written with a scheme or a path). A host or an address alone, a port beside it or not, is how customers name their
 * own sites and servers (「弊社サーバー 203.0.113.5:8443」; bug review 46a); a lure sends the reader to a page.
 */
function hasLureLink(words: string, ownDomains: readonly string[] = []): boolean {
  return (
    LURE_LINK_WORDS.test(words) ||
    foreignFindings(words, { knowledge: [], trustedDomains: ownDomains, addresses: [] }).some((f) => f.kind === 'link' && /[/?#]/.test(f.written.normalize('NFKC')))
  );
}
// How a lure names the reader: its lock-out is always the reader's, never the writer's own.
const READER = String.raw`(?:お客様|あなた|貴殿|会員様|ユーザー様)`;
// A customer reporting their own or their users' lock-out (「ログインできません」, 「私のアカウント」, 「弊社ユーザー（…）の
// アカウント」, 「社員のアカウント」, "my account is locked", "our users' accounts", "we cannot log in"): a phisher writes
// to the reader's account, never of its own or its staff's. The staff's words (ユーザー, 社員, with 弊社/当社 only right
// before them) need their own の before アカウント, so that a phisher's 「弊社システムにて、お客様のアカウントに…」 and
// 「当社サービスのアカウントが制限されました」 are no report; 「ロックされ…」 counts only when not said of the reader's
// account and not as a notice (「ロックされています」), which is how a lure puts it. Read without nav labels
// ({@link withoutNavLabels}): a footer's "My Account" link is no one's report.
const OWN_PROBLEM_REPORT = new RegExp(
  [
    String.raw`(?:私|わたし|僕|弊社|当社|自分|うち)の(?:アカウント|口座|ID|ユーザー|パスワード)`,
    String.raw`(?:(?:弊社|当社)の?)?(?:社員|(?<!各)ユーザー(?!様))(?:(?!${READER})[^。\n、，,]){0,60}?の(?:アカウント|ID|ＩＤ)`,
    String.raw`(?:ログイン|サインイン|ログオン)(?:が|も)?(?:でき(?:ません|ない|なくなりました|なくなった)|出来(?:ません|ない))`,
    String.raw`(?<!${READER}[^。\n]{0,20})ロックされ(?:、|て(?!います|おります)|ました)`,
    String.raw`\bmy (?:account|login|password|user(?:name)?)\b`,
    String.raw`\bour (?:users?|staff|employees?|members?|colleagues?)(?:'s?|’s?)? (?:accounts?|logins?|ids?)\b`,
    String.raw`\b(?:I|we) (?:can(?:no|')t|cannot|am unable to|are unable to|could not|couldn't|can ?not) (?:log ?in|sign ?in|access)\b`,
    String.raw`\bour (?:\w+ )?account (?:has been|was|is|got|will be) (?:locked|suspended|disabled|restricted)\b`,
  ].join('|'),
  'iu',
);
// The reader's account, as only a lure names it (「お客様のアカウント」, "your account has been suspended"; a customer
// quoting the screen's "verify your account" names no such state): beside it, the writer's words
// about logging in (「ログインできない場合は」, "we cannot access") are the threat, not a report of their own lock-out.
const READERS_ACCOUNT = new RegExp(
  String.raw`${READER}の?(?:アカウント|口座|ID|ＩＤ|カード|ご利用)|\byour (?:account|card|access|login)(?: has been| will be| is| was)? (?:suspended|locked|limited|restricted|disabled|closed|on hold)\b`,
  'iu',
);
// A notice of what will happen to the reader (「ログインできない状態となります」, 「停止されます」), the reader's account
// too: a customer tells what has happened, and a screen's notice they quote is read without its quotes (QUOTED).
const READERS_FUTURE =
  /(?:ログイン|サインイン|ご?利用)(?:が|も)?(?:でき(?:ない|なくなる)状態(?:と|に)なります|できなくなります)|(?:停止|制限|凍結|ロック|無効化?)(?:され|となり|になり)ます(?!か)/u;
// A quoted phrase (「…」『…』"…" “…”) on one line: a customer quoting what a screen or a mail says, whose call to act,
// reader and deadline are the screen's, not the writer's.
const QUOTED = /「[^「」\n]{1,80}」|『[^『』\n]{1,80}』|"[^"\n]{1,80}"|“[^“”\n]{1,80}”/gu;
// A `>` line: quoted too, but only beside words of the writer's own ({@link quotesSomeone}); a lure can write its
// call as `>` lines as easily as a customer pastes a screen.
const QUOTED_LINE = /^[ \t]*[>＞].*$/gmu;
// How a customer introduces what they paste (「次のように表示されます」, "The login page shows:").
const INTRODUCES_QUOTE = /表示|出て|出ま|書かれ|書いて|届きました|とのこと|\b(?:shows?|says?|said|displays?|displayed|reads?|got|received)\b/iu;
// A call to act the customer reports without quote marks (「本人確認が必要とのことですが」, 「カード情報の更新が必要と表示
// されます」): the screen's words again.
const REPORTED_CALL = new RegExp(
  String.raw`(?:${LURE_CALL.source})[^。\n、]{0,8}?(?:と|って)(?:表示|出て|出ま|書かれ|書いて|言われ|のこと|案内|記載)`,
  'giu',
);
// A sentence asking us how or where the writer can act (「どうすればよいでしょうか」, 「どこから行えばよいですか？」,
// 「手順を教えてください」, "Where do I …?", "How can we …?"): the customer's own problem. A lure asks the reader to act
// (「完了していただけますか？」, "Can you verify…?"), which is a request ({@link REQUEST}), not such a question.
// The whitespace after the closing marks is read once: `[」』)）\s]*[。．]?\s*$` split a run of spaces between two
// quantifiers at every place, ~2 s for one 16,000-character line (ReDoS sweep, security review 15); the same lines match.
const JA_QUESTION = /^(?=.*\p{Script=Hiragana}).*(?:か|[?？])[」』)）\s]*(?:[。．]\s*)?$/u;
const ASKS_US_TO_TELL = /教えて/u;
const EN_OWN_QUESTION = /\b(?:where|how|what|when|which|why|can|could|should|do|may|must|shall)\s+(?:(?:do|can|could|should|shall|may|must)\s+)?(?:I|we)\b[^?]*\?\s*$/iu;
// A request, to us or to the reader: which of the two is told by its link, its reader, its act and its threat.
const REQUEST = /お願い|(?:て|で)(?:ください|下さい)|(?:て|で)(?:いただけ|頂け|もらえ|くださ|下さ)(?:ます|ません)(?:でしょう)?か/u;
// Acts only the reader does for themselves (verify who they are or their account, log in, type in or update their
// credentials or card), never what a customer asks us to do for them (reset a password): 「アカウントの確認をお願い
// いたします」 beside a link and a deadline is the lure's call, not a customer asking us to look.
const READERS_OWN_ACT = /本人|ログイン|サインイン|認証|入力|確認|更新|カード情報|お支払い情報|登録情報/u;
// The account a request to us is about, as a customer names it (「管理者アカウントの」, 「担当者のID」): we act on one
// account of theirs, and they say which. A lure's 「パスワードの再設定をお願いします」 names none: the account is the
// reader's. (An address is no such name: a lure signs with its own.)
const NAMED_ACCOUNT =
  /(?:管理者?|担当者?|社員|従業員|スタッフ|メンバー|(?<!各)ユーザー(?!様)|利用者(?!様)|サブ|子|共有|法人|代表|前任者?|退職者?)(?:用)?の?\s*(?:アカウント|ID|ＩＤ)/u;
const READER_NAMED = new RegExp(READER, 'u');
// A threat of what befalls the reader's account if they do not act (「確認がない場合、アカウントを停止します」): a lure's,
// which makes its request one to the reader.
const THREAT_IF_NOT =
  /(?:ない|なければ|無い|過ぎる)(?:場合|と|とき|時)[^。\n]{0,30}?(?:アカウント|口座|カード|ご利用|サービス|ログイン)[^。\n]{0,10}(?:停止|制限|凍結|ロック|無効|削除|でき)/u;
// A nav label, never a report: a capitalised "My Account", a link's words in brackets ([My Account]), a nav line of
// labels between bars ("My Account | Help | Privacy").
const NAV_LABEL = /\bMy (?:Account|Login|Profile|Page)\b|\[[^\]\n]{1,40}\]|^[^\n|｜]{1,30}(?:\s[|｜]\s[^\n|｜]{1,30})+$/gmu;
// The writer's own problem (a first-person word beside something not working or a question): a customer asking about
// their own site, whose link is theirs to give.
const FIRST_PERSON = /(?:私|わたし|弊社|当社|自社|うち)|\b(?:I|we|our|my)\b/iu;
const PROBLEM = /でき(?:ません|ない)|出来(?:ません|ない)|(?:完了|表示|動作|反映)(?:しません|されません)|エラー|不具合|教えて|[?？]|\b(?:how (?:do|can|to)|can't|cannot|doesn't|does not|won't|isn't|not working|fails?)\b/iu;
// The links of a text, each as its host (lower case): a URL's, or a `www.` host's.
const LINK_HOST = /(?:https?:\/\/|\bwww\.)([^\s/?#:<>"'()「」]{1,253})/giu;

/**
 * The registrable domains that are ours to link to: MAIL_FROM's and SUPPORT_ADDRESSES' organisation domains
 * (helpdesk.example.jp → example.jp, so app.example.jp is ours too) and TRUSTED_LINK_DOMAINS.
 */
function ownLinkDomains(mailboxes: ReturnType<typeof ownMailboxesOf>, trusted: readonly string[]): string[] {
  const ours = mailboxes.ourAddresses.flatMap((entry) => {
    const domain = domainOf(/<([^>]+)>/.exec(entry)?.[1] ?? entry);
    return domain ? [getDomain(domain) ?? domain] : [];
  });
  return [...ours, ...trusted].map((d) => d.toLowerCase().replace(/^\.+/, ''));
}

/**
 * Whether `unquoted` (a mail's words without quotes) reports the writer's own problem (a first-person word and a
 * question or something not working), naming no reader's account (`readers`): a lure names the reader's.
 */
function firstPersonProblem(unquoted: string, readers: boolean): boolean {
  return !readers && FIRST_PERSON.test(unquoted) && PROBLEM.test(unquoted);
}

/** The From's organisation domain (shop.customer.co.jp → customer.co.jp), as a list of none or one. */
function fromOrganisation(signals: ReplySignals): string[] {
  const domain = domainOf(signals.from?.address ?? '');
  return domain ? [getDomain(domain) ?? domain] : [];
}

/**
 * `words` without its quoted phrases ({@link QUOTED}), and without its `>` lines ({@link QUOTED_LINE}) when they
 * quote someone ({@link quotesSomeone}).
 */
function withoutQuotes(words: string): string {
  const outside = words.replace(QUOTED_LINE, ' ');
  return (quotesSomeone(outside) ? outside : words).replace(QUOTED, ' ');
}

/**
 * Whether `outside` (a mail's words outside its `>` lines) reads as a writer quoting someone: words of their own that
 * introduce the quote, ask something or tell their own problem, naming no reader's account. A mail of nothing but `>`
 * lines quotes no one, and a lure's own threat (「お客様のアカウントは…」, "Your account will be suspended") beside its
 * `>` call is the lure's voice, not a customer's.
 */
function quotesSomeone(outside: string): boolean {
  const own = outside.replace(QUOTED, ' ');
  if (READERS_ACCOUNT.test(own) || READERS_FUTURE.test(own)) return false;
  return INTRODUCES_QUOTE.test(own) || PROBLEM.test(own) || FIRST_PERSON.test(own) || own.split('\n').some((line) => JA_QUESTION.test(line.trim()));
}

/**
 * The sentences of `unquoted` whose call to act ({@link LURE_CALL}) may be addressed to the reader: without those that
 * ask us how the writer can act ({@link JA_QUESTION}, {@link ASKS_US_TO_TELL}, {@link EN_OWN_QUESTION}) in a mail that
 * threatens nothing (beside "Your account has been suspended", "How do I verify your account?" is the lure's), those
 * that ask us to act for the writer (a {@link REQUEST} with no link words, no reader named, no act of the reader's own,
 * in a mail that names the account it is about ({@link NAMED_ACCOUNT}), names no reader's account (`readers`) and
 * threatens nothing), and the calls the writer reports a screen made ({@link REPORTED_CALL}).
 */
function callsToReader(unquoted: string, readers: boolean): string {
  const threatens = readers || THREAT_IF_NOT.test(unquoted);
  const namesAccount = NAMED_ACCOUNT.test(unquoted);
  const sentences = unquoted.replace(REPORTED_CALL, ' ').split(/(?<=[。！？!?])|\n|(?<=\.)\s+/u);
  return sentences
    .filter((sentence) => {
      const text = sentence.trim();
      const call = LURE_CALL.exec(text)?.[0];
      if (call === undefined) return false;
      const ownQuestion = EN_OWN_QUESTION.test(text) || ASKS_US_TO_TELL.test(text) || (JA_QUESTION.test(text) && !REQUEST.test(text));
      if (ownQuestion && !threatens) return false;
      const forUs = REQUEST.test(text) && namesAccount && !threatens && !hasLureLink(text) && !READER_NAMED.test(text) && !READERS_OWN_ACT.test(call);
      return !forUs;
    })
    .join('\n');
}

/** `words` without its nav labels ({@link NAV_LABEL}). */
function withoutNavLabels(words: string): string {
  return words.replace(NAV_LABEL, ' ');
}

/** `words` without the links to `ownDomains` (a host in one of them or one of them itself). */
function withoutOwnLinks(words: string, ownDomains: readonly string[]): string {
  return words.replace(LINK_HOST, (link, host: string) => {
    const name = host.toLowerCase().replace(/\.+$/, '');
    return ownDomains.some((d) => name === d || name.endsWith(`.${d}`)) ? ' ' : link;
  });
}

/**
 * Why a mail reads as credential phishing (a bank's or a shop's name on a domain of its own), or undefined: a link to
 * follow (not to one of `ownDomains`, nor to the From's own domain in a first-person problem report), the call to
 * verify or log in ({@link LURE_CALL}) addressed to the reader ({@link callsToReader}: not a customer's request to us
 * or question how to act) and a restricted account or a deadline ({@link LURE_PRESSURE}) in `words` (the subject and
 * the question; calls, pressure and reader read outside quotes: a customer quoting a screen), not a customer's report of their own or
 * their users' lock-out ({@link OWN_PROBLEM_REPORT}) naming no reader's account ({@link READERS_ACCOUNT},
 * {@link READERS_FUTURE}), from a sender the receiving server did not authenticate by DMARC: its verdict is there and is not `pass` (`dmarc=none` of a domain
 * with no policy, which is what a phisher's own fresh domain has, `fail`, `temperror`, or no DMARC result in it).
 * SPF or DKIM passing for the sender's own domain proves only that the phisher owns it. A DMARC-passing sender's words
 * are read as they are; so are a mail's without any Authentication-Results: a server that writes none says nothing
 * of anyone, and holding on that alone would hold every customer behind it.
 */
function loginLureDetail(words: string, signals: ReplySignals, mailboxes: ReturnType<typeof ownMailboxesOf>, ownDomains: readonly string[]): string | undefined {
  const topmost = signals.headers['authentication-results']?.[0];
  const unquoted = withoutQuotes(words);
  const readers = READERS_ACCOUNT.test(unquoted) || READERS_FUTURE.test(unquoted);
  if (topmost === undefined || (OWN_PROBLEM_REPORT.test(withoutNavLabels(words)) && !readers)) return undefined;
  const notLures = firstPersonProblem(unquoted, readers) ? [...ownDomains, ...fromOrganisation(signals)] : ownDomains;
  const linked = withoutOwnLinks(words, notLures);
  if (!hasLureLink(linked, notLures) || !LURE_PRESSURE.some((sign) => sign.test(unquoted)) || !LURE_CALL.test(callsToReader(unquoted, readers))) return undefined;
  const dmarc = dmarcResultOf(topmost);
  if (dmarc === 'pass' && senderVouchedFor(signals, mailboxes)) return undefined;
  const verdict = dmarc ? `dmarc=${dmarc}` : 'no DMARC result';
  return `a login lure (a call to verify or log in, beside a restricted account or a deadline) with a link, from a sender not authenticated by DMARC (${verdict})`;
}

/** Whether a draft may go out without a person, and why (for the ticket's reason and history). */
export interface ReviewVerdict {
  send: boolean;
  reason: string;
}

/** Subtasks the agent could not answer: not completed, or answered with the "not found" fallback. */
export function unansweredSubtasks(result: Pick<AgentResult, 'subtasks'>): Subtask[] {
  return result.subtasks.filter((s) => !s.isCompleted || s.usedFallback);
}

/**
 * REVIEW_MODE applied to an agent result:
 * - `always`: every draft waits for a person;
 * - `auto`: sent only when every subtask completed without the fallback, rests on at least one search result
 *   ({@link unsourcedSubtasks}), and nothing of the question was skipped (cut at MAX_QUESTION_CHARS, topics over
 *   MAX_SUBTASKS), else parked naming what is missing;
 * - `learn`: as `auto` here but for the search results: the handler then requires every completed subtask to cite a
 *   source and every cited source to be trusted (src/tickets/trust.ts `learnVerdict`, which names an unsourced subtask
 *   in its own words);
 * - `never`: sent unless nothing could be answered at all (every subtask fell back, or there was no plan).
 */
export function reviewVerdict(mode: Config['REVIEW_MODE'], result: Pick<AgentResult, 'subtasks' | 'truncated' | 'droppedSubtasks'>): ReviewVerdict {
  const unanswered = unansweredSubtasks(result);
  const names = (list: readonly string[]) => list.map((name) => `「${name}」`).join(', ');
  if (mode === 'always') return { send: false, reason: 'review mode always' };
  if (result.subtasks.length === 0) return { send: false, reason: 'the agent planned no subtasks; nothing was researched' };
  // What the agent never looked at: the end of a question longer than MAX_QUESTION_CHARS, and topics over
  // MAX_SUBTASKS. A reply without them answers part of the mail; a customer's other request would go unanswered.
  const skipped = [
    ...(result.truncated ? ['the question is longer than MAX_QUESTION_CHARS: its end was not read'] : []),
    ...((result.droppedSubtasks ?? []).length > 0 ? [`the plan had more topics than MAX_SUBTASKS; not researched: ${names(result.droppedSubtasks)}`] : []),
  ];
  if (mode === 'auto' || mode === 'learn') {
    const missing = [
      ...(unanswered.length > 0 ? [`no full answer found in the manual or the past answers for ${names(unanswered.map((s) => s.taskName))}`] : []),
      ...(mode === 'auto' ? unsourcedReasons(result.subtasks) : []),
      ...skipped,
    ];
    return missing.length === 0 ? { send: true, reason: 'all subtasks answered' } : { send: false, reason: `not fully answered: ${missing.join('; ')}` };
  }
  const fallbacks = result.subtasks.filter((s) => s.usedFallback);
  if (fallbacks.length === result.subtasks.length) {
    return { send: false, reason: `nothing could be answered: every subtask fell back (${names(fallbacks.map((s) => s.taskName))})` };
  }
  const gaps = [...(unanswered.length > 0 ? [`unanswered subtasks ${names(unanswered.map((s) => s.taskName))}`] : []), ...skipped];
  return { send: true, reason: gaps.length === 0 ? 'all subtasks answered' : `sent with ${gaps.join('; ')} (review mode never)` };
}

/**
 * What `auto` says of each completed subtask that rests on no search result: the model wrote its answer from its own
 * "knowledge" (or the customer's words) and its self-check let that pass. The design has a subtask answer put into
 * words what the searches returned, and a self-check fail a subtask that found nothing, so no person would see such an
 * answer go out. Rarely a subtask is answered by the mail itself; a person sends that one.
 */
function unsourcedReasons(subtasks: readonly Subtask[]): string[] {
  const unsourced = new Set(unsourcedSubtasks({ subtasks: [...subtasks] }));
  return subtasks
    .filter((s) => unsourced.has(s.taskName))
    .map((s) => {
      const searched = s.toolResults.some((attempt) => attempt.length > 0);
      return `「${s.taskName}」 rests on no search result: ${searched ? 'its searches found nothing' : 'the agent searched nothing for it'}, yet its self-check passed the answer`;
    });
}

/** Longest answer sent without a person; real replies are a few thousand characters at most. */
export const MAX_AUTO_REPLY_CHARS = 20_000;

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}\p{Script=Hangul}]/u;

/** Share of the letters of `text` that are Chinese, Japanese or Korean script. */
function cjkShare(text: string): number {
  const letters = text.match(/\p{L}/gu) ?? [];
  if (letters.length === 0) return 0;
  return letters.filter((c) => CJK.test(c)).length / letters.length;
}

/**
 * The least share of Japanese letters in what a Japanese question asks. A Japanese sentence keeps about a third or
 * more of its letters in kana and kanji even when it names several products in Latin letters (0.36–0.52 on such
 * questions: 「Google Workspace と Microsoft 365 の連携で…」), while an English sentence naming a Japanese screen stays
 * far below. Low on purpose: judging a question Japanese parks an English draft for a person, while judging it not
 * Japanese lets an English refusal reach a customer who wrote in Japanese.
 */
const JAPANESE_QUESTION_SHARE = 0.25;

// A line that only introduces the writer (株式会社カスタマーの李です。, 山田です, 李と申します): no sentence that asks.
// The name has no hiragana and what comes before its の names an organisation, so 「ログインできないです」 and
// 「インポート時のエラーです」 are none.
const ORGANISATION = String.raw`(?:株式会社|有限会社|合同会社|㈱|（株）|\(株\)|会社|社|部|課|室|係|センター|グループ|チーム|事務所|店|大学|病院)`;
const SELF_INTRODUCTION = new RegExp(
  String.raw`^(?:[^。！？!?\n]{0,30}${ORGANISATION}[^。！？!?\n]{0,30}の)?[\p{Script=Han}\p{Script=Katakana}\p{Script=Latin}ー・ 　]{1,12}(?:です|でございます)[。．.]?$|^[^。！？!?\n]{1,40}と申します[。．.]?$`,
  'u',
);

/**
 * Whether a question is Japanese, so that its answer must be too. Replies go out in the customer's language, and the
 * customer's language is that of what they ask, not of their set phrases: the greeting and closing (「お世話になって
 * おります」, 「よろしくお願いいたします」 and a signature below it, as {@link replyBody} cuts them from a reply) often wrap
 * an English question from a Japanese company. What is left is Japanese when it has kana (Japanese prose always
 * does; kanji alone is Chinese) and at least {@link JAPANESE_QUESTION_SHARE} of its letters are Japanese, either
 * over all of it or over its lines with kana other than a self-introduction: a pasted English error log or stack trace
 * has no kana and outweighs the Japanese sentences that ask about it, while an English question line has none either
 * and leaves no such line once the greeting is cut. A question in both languages below that share may be answered in
 * either: the customer wrote both.
 */
function japaneseQuestion(question: string): boolean {
  const asked = replyBody(question) || question;
  if (!KANA.test(asked)) return false;
  const sentences = asked.split('\n').filter((line) => KANA.test(line) && !SELF_INTRODUCTION.test(line.trim()));
  return cjkShare(asked) >= JAPANESE_QUESTION_SHARE || cjkShare(sentences.join('\n')) >= JAPANESE_QUESTION_SHARE;
}

const HAN_OR_HANGUL = /[\p{Script=Han}\p{Script=Hangul}]/u;
const HANGUL = /\p{Script=Hangul}/u;

/** Share of the letters of `text` that are Han or Hangul. */
function hanOrHangulShare(text: string): number {
  const letters = text.match(/\p{L}/gu) ?? [];
  if (letters.length === 0) return 0;
  return letters.filter((c) => HAN_OR_HANGUL.test(c)).length / letters.length;
}

// Words of Chinese that Japanese does not write, simplified or traditional: pronouns (您, 我们), particles (吗, 呢, 吧),
// question words (怎, 什么), and simplified forms Japanese keeps in their old shape (请 for 請, 问 for 問, 这 for 這…).
// 的, 了 and 是 are left out: Japanese writes them in 定期的, 完了, 是非.
const CHINESE_ONLY = /[您们們吗嗎呢吧怎么麼这还请问谢说发开关时过为对进没页设码账录该]|我們|我们|你们|謝謝|請問|可以|已經|沒有/u;

/**
 * Whether a question is Chinese or Korean, and which: what it asks (greeting and closing aside, as for
 * {@link japaneseQuestion}) has no kana, which Japanese prose always has, and at least
 * {@link JAPANESE_QUESTION_SHARE} of its letters are Han or Hangul, over all of it or over its lines that hold any
 * (a pasted English log does not make it English). An English question naming a kanji menu (「Where is the 設定
 * menu?」) stays below that share. Hangul anywhere makes it Korean. Kana in the whole mail (its greeting, closing or
 * signature) make it Japanese unless what it asks holds Chinese words no Japanese writes ({@link CHINESE_ONLY}): a
 * Japanese business mail often asks in kanji alone between 「お世話になっております」 and 「よろしくお願いいたします」
 * (「請求書再発行依頼。」), while a Chinese customer of a Japanese company may put the same set phrases around a
 * Chinese question. A terse note in kanji alone with no kana anywhere (「請求書再発行希望」) still reads as Chinese: a
 * Japanese draft to it waits for a person, nothing worse.
 */
function chineseOrKoreanQuestion(question: string): 'Chinese' | 'Korean' | undefined {
  const asked = replyBody(question) || question;
  if (KANA.test(asked)) return undefined;
  const lines = asked.split('\n').filter((line) => HAN_OR_HANGUL.test(line));
  if (hanOrHangulShare(asked) < JAPANESE_QUESTION_SHARE && hanOrHangulShare(lines.join('\n')) < JAPANESE_QUESTION_SHARE) return undefined;
  if (HANGUL.test(asked)) return 'Korean';
  return KANA.test(question) && !CHINESE_ONLY.test(asked) ? undefined : 'Chinese';
}

// What an answer quotes in brackets: the names of screens and buttons, which a Chinese or Korean answer built from a
// Japanese manual keeps as the customer sees them (「設定」→「セキュリティ」), in its own prose.
const QUOTED_LABEL = /「[^「」\n]{0,60}」|『[^『』\n]{0,60}』|【[^【】\n]{0,60}】|“[^“”\n]{0,60}”|"[^"\n]{0,60}"/g;

const HAN = /\p{Script=Han}/u;

/**
 * Whether a draft's own prose (outside the labels it quotes) is in `language`: Korean has Hangul; Chinese has Han and
 * no Hangul (Japanese prose is told by {@link japaneseProse} first). An English, a Chinese or a Korean stand-in for the
 * other is as foreign to the customer as a Japanese one.
 */
function writtenIn(language: 'Chinese' | 'Korean', draft: string): boolean {
  const prose = draft.replace(QUOTED_LABEL, '');
  return language === 'Korean' ? HANGUL.test(prose) : HAN.test(prose) && !HANGUL.test(prose);
}

/** Whether a draft is written in Japanese: it has kana outside the labels it quotes. */
function japaneseProse(draft: string): boolean {
  return KANA.test(draft) && KANA.test(draft.replace(QUOTED_LABEL, ''));
}

// Reasoning as models write it when served without a reasoning parser: <think>/<thinking>/<reasoning> tags, gpt-oss's
// harmony channels, Kimi's ◁think▷, Mistral's [THINK].
const REASONING = /<\/?(?:think(?:ing)?|reasoning)>|<\|channel\|>\s*(?:analysis|commentary)|◁\/?think▷|\[\/?THINK\]/i;
// The delimited blocks the agent's prompts wrap their inputs in (src/agent/prompts.ts): in an answer, an echo.
const OWN_BLOCK = new RegExp(`</?(?:${Object.values(BLOCK_TAGS).join('|')})>`, 'i');

/**
 * Why the agent's final answer must not go out without a person, whatever the review mode, or undefined. The model
 * stopped before it was done (the token limit cut the answer off); the answer carries the model's reasoning
 * (`<think>`, from a reasoning model served without a reasoning parser); it holds only a greeting and a closing; it is
 * not in the customer's language (a Japanese question, by {@link japaneseQuestion}, answered without a kana, a
 * question without any CJK script answered in Japanese: typically a refusal; a Chinese or Korean question, by
 * {@link chineseOrKoreanQuestion}, answered in Japanese prose, {@link japaneseProse}, or in no prose of its own
 * language, {@link writtenIn}); it is longer than any reply
 * ({@link MAX_AUTO_REPLY_CHARS}); or it repeats the agent's own input, a passage of `prompts` (the prompts in use:
 * the agent's, PROMPTS_FILE applied) or the subtask results (src/tickets/prompt-echo.ts).
 */
export function draftProblem(
  question: string,
  draft: string,
  result: Pick<AgentResult, 'answerFinishReason'>,
  prompts: Readonly<PromptSet> = defaultPrompts,
): string | undefined {
  if (result.answerFinishReason === 'length') return 'the answer was cut off: the model reached its output limit before it finished';
  if (result.answerFinishReason) return `the model stopped before it finished the answer (finish_reason: ${result.answerFinishReason})`;
  if (REASONING.test(draft)) return "the answer contains the model's reasoning (<think>, an analysis channel): serve the model with a reasoning parser";
  if (OWN_BLOCK.test(draft)) return "the answer contains a block of the agent's own prompt (the model echoed its input)";
  if (draft.length > MAX_AUTO_REPLY_CHARS) return `the answer is longer than ${MAX_AUTO_REPLY_CHARS.toLocaleString('en-US')} characters`;
  const echo = promptEcho(draft, prompts);
  if (echo) return `the answer repeats ${echo}: the agent's own input, not a reply (an instruction in the mail may have asked for it)`;
  if (replyBody(draft) === '') return 'the answer holds only a greeting and a closing: no answer';
  // Japanese prose always has kana: an answer of kanji alone is Chinese, and a kanji label in English is no Japanese.
  if (japaneseQuestion(question) && !KANA.test(draft)) {
    return 'the answer is not in the language of the question (Japanese question, no Japanese in the answer)';
  }
  if (!CJK.test(question) && cjkShare(draft) > 0.5) return 'the answer is not in the language of the question (answered in Chinese, Japanese or Korean)';
  const otherCjk = chineseOrKoreanQuestion(question);
  if (otherCjk && japaneseProse(draft)) return `the answer is not in the language of the question (${otherCjk} question, answered in Japanese)`;
  if (otherCjk && !writtenIn(otherCjk, draft)) return `the answer is not in the language of the question (${otherCjk} question, no ${otherCjk} in the answer)`;
  return undefined;
}

/** What the reply's words are read against: the knowledge found and our earlier replies, and whom the reply reaches. */
interface ReplyReaders {
  allowed: AllowedLinks;
  /** The address the reply goes to: Reply-To, else From. */
  recipient: string;
  /** True when that is the From's own mailbox. */
  toSender: boolean;
  /** True when the receiving server's Authentication-Results vouch for the From ({@link senderVouchedFor}). */
  vouched: boolean;
}

// A subject that forwards (as the parser reads one: Fwd:, FW:, WG:, TR:, RV:, 転送:, 转发:, 轉寄:, 전달:).
const FORWARD_SUBJECT = /^\s*(?:fwd?|wg|tr|rv|転送|转发|轉寄|전달)\s*[:：]/i;

/**
 * The customer's own words in the ticket's question, which vouch for what they wrote (their account for a refund,
 * their postal address): the note above the first mail they forward (the parser writes {@link FORWARDED_DELIMITER}
 * before each), not the forwarded mail, which is a stranger's (security review 18, HIGH 1: a phishing mail's IBAN,
 * forwarded to ask whether it is real, vouched for a draft confirming it as "your account"). With no note the parser
 * makes the first forwarded mail's text the question, unmarked: a forwarding subject, or an attached mail, with no
 * marker in the question leaves no words of the customer's own. The parser knows which words are the note and the
 * ticket keeps them when the mail forwards ({@link Ticket.customerWords}): a guess from the question reads a phish that
 * writes the delimiter line itself as a note above a forward, and a forward under a subject with no Fwd: as the
 * customer's words (bug review B3a HIGH 1, MED 2). The guess stays for tickets stored before, and for a mail that
 * forwards nothing the parser found, whose question is all theirs unless its subject forwards or it attaches a mail.
 */
function customerOwnWords(ticket: Ticket): string[] {
  if (ticket.customerWords !== undefined) return ticket.customerWords.trim() === '' ? [] : [ticket.customerWords];
  const { question } = ticket;
  const at = question.startsWith(`${FORWARDED_DELIMITER}\n`) ? 0 : question.indexOf(`\n${FORWARDED_DELIMITER}\n`);
  const forwards = FORWARD_SUBJECT.test(ticket.subject) || ticket.attachments.some((a) => a.contentType.toLowerCase() === 'message/rfc822');
  if (at < 0) return forwards ? [] : [question];
  const note = question.slice(0, at);
  return note.trim() === '' ? [] : [note];
}

function replyReaders(ticket: Ticket, result: AgentResult, ourReplies: readonly string[], signals: ReplySignals, config: AnswerTicketDeps['config']): ReplyReaders {
  const knowledge = [...knowledgeFound(result), ...ourReplies];
  const recipient = ticket.replyTo || ticket.from;
  const toSender = isSameMailbox(recipient, ticket.from);
  // The From's address is the reader's own only when the reply goes back to it. To another mailbox, a draft that
  // points the reader at the From ("write to … to restore your account", an instruction the mail slipped to the
  // model) is the relay this check is for.
  const addresses = [...ourAddressesOf(config), recipient, ...(toSender ? [ticket.from] : [])];
  const vouched = senderVouchedFor(signals, ownMailboxesOf(config));
  // A postal address the customer wrote (their own, for a return label) is theirs to read back, but only when the
  // reply goes to the sender the receiving server vouched for: a forged From's mail would otherwise vouch for the
  // forger's drop address in a reply to the person impersonated.
  const customerMail = toSender && vouched ? customerOwnWords(ticket) : [];
  return { allowed: { knowledge, trustedDomains: config.TRUSTED_LINK_DOMAINS, addresses, customerMail }, recipient, toSender, vouched };
}

/**
 * Why a draft must not go out without a person because of its links, addresses and phone numbers (see
 * src/tickets/foreign-links.ts), or undefined: any that is neither in what the agent's searches returned for this
 * answer or in our earlier replies of the thread, nor ours or the reader's, nor on a `TRUSTED_LINK_DOMAINS` domain.
 * The subject, which the reply repeats, is read too when its words may not be the reader's: a reply to another
 * mailbox than From (a Reply-To), or to a From that no Authentication-Results of our receiving server vouch for
 * (a forged `From: victim@bank.example` with no failing verdict: the reply would carry the forger's link to the victim).
 */
function foreignLinksProblem(ticket: Ticket, draft: string, readers: ReplyReaders): string | undefined {
  const { allowed, recipient, toSender, vouched } = readers;
  const foreign = foreignLinks(draft, allowed);
  if (foreign.length > 0) return foreignLinksReason(foreign);
  if (toSender && vouched) return undefined;
  // The reply repeats the subject (`Re: …`): the From's words, which the quote leaves out to another mailbox for that
  // reason (src/mail/compose-reply.ts). A subject cannot be left out (the reader and their mail client recognise the
  // thread by it), so a link, address or phone number in it that nothing vouches for waits for a person.
  const inSubject = foreignLinks(ticket.subject, allowed);
  if (inSubject.length === 0) return undefined;
  const where = toSender ? `${recipient}, a sender no Authentication-Results of our receiving server vouch for,` : `${recipient} (not the sender),`;
  return foreignLinksReason(inSubject, `the subject, which the reply repeats to ${where}`);
}

/** Adds the `send-reply` job of a drafted ticket; its id is fixed by the ticket's generation, so re-adding is a no-op. */
async function queueSend(ticket: Ticket, deps: AnswerTicketDeps): Promise<void> {
  const job = sendReplyJob(deps.config, ticket.id, jobGeneration(ticket), deps.tuning);
  await produce(deps.redis, () => deps.outbound.add(job.name, job.data, job.opts));
}

/**
 * The earlier tickets of the ticket's thread. The poller links a follow-up to its conversation when it creates the
 * ticket; for a ticket created before its parent was known (both in one poll), the thread index is asked again
 * here over In-Reply-To and References, with the same rule: only an address that took part in the thread gets its
 * history in a reply.
 */
async function conversationOf(ticket: Ticket, deps: AnswerTicketDeps): Promise<ConversationEntry[]> {
  const { store } = deps;
  if (ticket.conversationId !== ticket.id) return store.conversationHistory(ticket.id, { limit: CONVERSATION_LIMIT });
  const refs = threadRefs(ticket);
  if (refs.length === 0) return [];
  const { conversationId: root } = await store.joinConversation(refs, ticket.replyTo || ticket.from);
  if (!root || root === ticket.id) return [];
  // The ticket is not in the root's conversation set; read that set up to this ticket's creation.
  return store.conversationHistory(ticket.id, { limit: CONVERSATION_LIMIT, conversationId: root });
}

/** Longest question or reply of one earlier mail given to the agent as context. */
export const MAX_CONVERSATION_ENTRY_CHARS = 2_000;
/**
 * Longest subject of one earlier mail given to the agent: a subject names a thread in a line, and one of 200 KB (the
 * sender's own words, which no other limit cut) went into every model call of the thread's next mail.
 */
export const MAX_CONVERSATION_SUBJECT_CHARS = 200;
/**
 * Longest earlier conversation given to the agent (UTF-16 code units, as `length` counts), newest mails kept: every
 * later mail of a thread carries it, and ten long mails made prompts a 128k-context model refuses. A hard cap: the
 * newest mail is cut to it too.
 */
export const MAX_CONVERSATION_CHARS = 8_000;

/** Between two mails of the conversation. */
const ENTRY_SEPARATOR = '\n\n---\n\n';

/** `text` cut to `max` characters (whole code points), marked with `…` when cut. */
function cutText(text: string, max: number): string {
  const chars = Array.from(text.trim());
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max).join('')}…`;
}

/** `text` cut to at most `max` UTF-16 code units, the `…` that marks the cut included, never inside a surrogate pair. */
function cutToLength(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * The thread as plain text for the agent's `<earlier_conversation>` block, oldest first; '' for none. Each subject is
 * cut to {@link MAX_CONVERSATION_SUBJECT_CHARS}, each question and reply to {@link MAX_CONVERSATION_ENTRY_CHARS}; the
 * oldest mails are left out beyond {@link MAX_CONVERSATION_CHARS} (the newest exchange is what a follow-up refers
 * to), and the newest is cut to it: the result is never longer.
 */
export function formatConversation(entries: readonly ConversationEntry[]): string {
  const blocks: string[] = [];
  let total = 0;
  for (const e of [...entries].reverse()) {
    const subject = cutText(e.subject, MAX_CONVERSATION_SUBJECT_CHARS);
    const parts = [`[${e.createdAt}] Customer <${e.from}> — Subject: ${subject}\n${cutText(e.question, MAX_CONVERSATION_ENTRY_CHARS)}`];
    if (e.reply) parts.push(`[${e.repliedAt ?? 'sent'}] Our reply:\n${cutText(e.reply, MAX_CONVERSATION_ENTRY_CHARS)}`);
    const block = parts.join('\n\n');
    if (blocks.length === 0) {
      // The newest mail is kept whatever its size, so it is what must fit: its sender's address is as long as they like.
      const newest = cutToLength(block, MAX_CONVERSATION_CHARS);
      blocks.push(newest);
      total = newest.length;
      continue;
    }
    if (total + ENTRY_SEPARATOR.length + block.length > MAX_CONVERSATION_CHARS) break;
    blocks.push(block);
    total += ENTRY_SEPARATOR.length + block.length;
  }
  return blocks.reverse().join(ENTRY_SEPARATOR);
}

/** How the history actor of a person begins (`operator:<name>`, {@link operatorActor}). */
const OPERATOR_ACTOR_PREFIX = operatorActor('');

/**
 * The generation an `answer-ticket` job was queued in, read from its id (`answerJobId`: `answer-<ticket id>-g<N>`,
 * N the ticket's history length then); undefined for an id of another form (a job added by hand), which is then run
 * as before.
 */
export function answerJobGeneration(jobId: string | undefined, ticketId: string): number | undefined {
  const prefix = `answer-${ticketId}-g`;
  if (!jobId?.startsWith(prefix)) return undefined;
  const digits = jobId.slice(prefix.length);
  return /^\d{1,15}$/.test(digits) ? Number(digits) : undefined;
}

/**
 * The first entry a person wrote in the ticket's history after the job `jobId` was queued, if any: the job is then
 * superseded. A take-over parks a ticket that waits for the model server while its job stays in the queue (held back
 * or rate-limited to the head of the queue); "Get a new draft" then queues a job of its own, whose generation follows
 * the person's entries. Run first, the old job found the ticket `processing` again and drafted without the person's
 * `reviewBy`, so in REVIEW_MODE=auto the reply went out unread (bug review 43c). Only agent-worker, poller and sender
 * entries follow a job's generation while it is the ticket's (its tries, a retry, a park), and any decision of a
 * person after it ends that job's round: approvals, rejections and reruns come with their own jobs.
 */
export function supersedingDecision(ticket: Pick<Ticket, 'id' | 'history'>, jobId: string | undefined): HistoryEntry | undefined {
  const generation = answerJobGeneration(jobId, ticket.id);
  if (generation === undefined) return undefined;
  return ticket.history.slice(generation).find((h) => h.actor.startsWith(OPERATOR_ACTOR_PREFIX));
}

function skippedAfterRace(err: TicketConflictError, ticketId: string, log: Logger): AnswerOutcome {
  // Another worker or a person moved the ticket between our read and our write; theirs is the newer decision.
  log.info({ state: err.actual }, 'Ticket changed concurrently; leaving it to the other writer');
  return { outcome: 'skipped', ticketId, state: err.actual ?? 'received' };
}

/**
 * The error to hand BullMQ: `UnrecoverableError` for failures no retry can fix, the original error otherwise
 * (transient by default, so an unknown failure is retried rather than given up on at once).
 */
export function toJobError(err: unknown): Error {
  if (err instanceof UnrecoverableError) return err;
  const error = err instanceof Error ? err : new Error(String(err));
  if (isPermanent(error)) {
    const permanent = new UnrecoverableError(error.message);
    permanent.cause = error;
    return permanent;
  }
  return error;
}

function isPermanent(err: Error): boolean {
  if (
    err instanceof EmptyQuestionError ||
    err instanceof MailParseError ||
    err instanceof TicketNotFoundError ||
    err instanceof IllegalTransitionError ||
    err instanceof PromptConfigError ||
    err.name === 'GraphRecursionError'
  ) {
    return true;
  }
  // The LLM server refused the request itself (bad request, auth, unknown model): the same request fails again.
  // 408 (timeout), 409 (conflict) and 429 (rate limit) are the server asking us to come back later.
  if (err instanceof APIError && typeof err.status === 'number') {
    return err.status >= 400 && err.status < 500 && ![408, 409, 429].includes(err.status);
  }
  return false;
}
