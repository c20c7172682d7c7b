/**
 * What a person can decide about a parked ticket: approve its reply (possibly edited) for sending, reject it, or have
 * the agent answer it again; and, where the mail system rather than the draft left a ticket open, close as sent a reply
 * that may already have been sent and did arrive ({@link confirmArrived}), or acknowledge and close a reply that
 * cannot be delivered: refused for good by the SMTP server, or bounced ({@link closeUndeliverable}); and reopen mail the
 * automatic checks ignored by mistake, which parks it for these decisions ({@link reopenIgnored}); and take over a ticket
 * that waits for the model server, to answer it by hand ({@link takeOverTicket}).
 * Shared by the dashboard (JSON API and review page) and the `review` CLI, so both record the same history and
 * enqueue the same job.
 *
 * The functions return an outcome instead of throwing for the expected refusals (unknown ticket, wrong state, bad
 * input), so each caller words them its own way (HTTP status, CLI exit code). Redis being unreachable still throws
 * (`RedisUnavailableError`): that is not a decision about the ticket.
 */
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { learnFromCorrection, learnGapsFrom } from '../knowledge/gaps.js';
import { CIRCULAR_REASON, COLLEAGUE_REASON, LIST_COPY_KIND, NO_QUESTION_REASON, hasQuestion, ignoreKindOf, noQuestionReason, type IgnoreReason } from '../mail/classify.js';
import { IMIP_METHODS, RECALL_REASON } from '../mail/unreadable.js';
import { MODEL_SERVER_WAIT_NOTE, PARK_NOTE } from './park-notes.js';
import { produce } from '../queues/connection.js';
import { createLogger } from '../logger.js';
import { answerTicketJob, proposeLearnedAnswerJob, sendReplyJob, type JobTuning } from '../queues/job-options.js';
import type { Queues } from '../queues/registry.js';
import { deskTimeZone, localTime } from './local-day.js';
import { approvalRecord } from './outcome.js';
import { IllegalTransitionError, TICKET_ID_PATTERN, describeBounce, jobGeneration, waitsForModelServer, type Acknowledgement, type HistoryEntry, type Ticket, type TicketPatch, type TicketState } from './ticket.js';
import { TicketConflictError, TicketNotFoundError, type ConversationEntry, type TicketStore } from './ticket-store.js';

/** Longest reply an operator may store; far beyond any real mail, small enough to keep one ticket document bounded. */
export const MAX_REPLY_CHARS = 100_000;
/** Longest rejection reason. */
export const MAX_REASON_CHARS = 2_000;

/** What the review actions need. */
export interface ReviewDeps {
  store: TicketStore;
  /** The `outbound` queue (only `add` is used). */
  outbound: Pick<Queues['outbound'], 'add'>;
  /** The producer connection of the queue, so an outage surfaces as `RedisUnavailableError`. */
  redis: Redis;
  config: Pick<Config, 'SENDER_ATTEMPTS'>;
  /** Backoff of the send job; tests shorten it. */
  tuning?: JobTuning;
  /**
   * The `tickets` queue, to propose learned answers from each approval (`propose-learned-answer`). Without it (or
   * when adding the job fails) the approval stands and no candidates are proposed.
   */
  learning?: Pick<Queues['tickets'], 'add'> | undefined;
}

/** An expected refusal: the caller reports `message` and does nothing else. */
export type ReviewRefusal =
  | { outcome: 'not-found'; message: string }
  | {
      outcome: 'conflict';
      message: string;
      state: TicketState | undefined;
      /**
       * On the refusal of a ticket that changed since it was read: what changed, in words of no surface
       * (`approved by alice at … with the draft as it was; it is being sent — nothing left to decide`), for one whose
       * next step is not the page's "reload it" (the CLI's is `show`).
       */
      changed?: string;
    }
  | {
      outcome: 'invalid';
      message: string;
      /** On the refusal of a `seen` that names no draft the ticket ever had (forged or mistyped): that `seen`. */
      seenNamesNoDraft?: number;
    };

/** Result of {@link approveTicket}. */
export type ApproveOutcome =
  | {
      outcome: 'approved';
      ticket: Ticket;
      /** Id of the `send-reply` job on `outbound`. */
      jobId: string;
      /**
       * True when the ticket was approved before and its job was only added again (a retry after Redis failed
       * between the approval and the job, or a double click); the deterministic job id keeps it to one job.
       */
      alreadyApproved: boolean;
    }
  | ReviewRefusal;

/** Result of {@link rejectTicket}. */
export type RejectOutcome = { outcome: 'rejected'; ticket: Ticket } | ReviewRefusal;

/** The history actor of a person: `operator:<name>`. */
export function operatorActor(operator: string): string {
  return `${OPERATOR_PREFIX}${operator}`;
}

const OPERATOR_PREFIX = 'operator:';
/** The history note of an approval whose reply the operator changed. */
const EDITED_APPROVAL_NOTE = 'approved with an edited reply';

/**
 * The operator of the latest approval by a person in a ticket's history, if any. Only a person's entry counts: the
 * sender gives a ticket back to `approved` after an SMTP 4xx (`sending → approved`) while it retries, and that entry is
 * no approval.
 */
export function approverOf(ticket: Pick<Ticket, 'history'>): string | undefined {
  const entry = ticket.history.findLast((h) => h.to === 'approved' && h.actor.startsWith(OPERATOR_PREFIX));
  return entry?.actor.slice(OPERATOR_PREFIX.length);
}

/** Line endings of browser form posts (CRLF) become LF, as in the rest of the ticket's text. */
function normalizeText(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

function refusalOf(err: unknown, action: string): ReviewRefusal | undefined {
  if (err instanceof TicketNotFoundError) return { outcome: 'not-found', message: err.message };
  if (err instanceof TicketConflictError) {
    return { outcome: 'conflict', message: `Cannot ${action}: ${err.message}`, state: err.actual };
  }
  if (err instanceof IllegalTransitionError) return { outcome: 'conflict', message: `Cannot ${action}: ${err.message}`, state: err.from };
  return undefined;
}

/** The review form's field (and the API's body field) by which the operator says the customer has no copy. */
export const NO_COPY_CHECKED = 'checkedNoCopy';

/** A send attempt of a ticket's reply that may have reached the customer: the SMTP transaction ended without an answer. */
export interface UncertainSendAttempt {
  /** When the sender claimed the reply for this attempt (ISO 8601). */
  at: string;
  /** Our reply's Message-ID (every attempt of a ticket reuses it), to search the Sent folder or the server log by. */
  messageId: string | undefined;
  /** What the sender recorded: the SMTP error, or the whole note when it names none. */
  error: string;
}

/**
 * The sender's reason for an attempt whose outcome is unknown (jobs/send-reply.ts parks with it, with the error in
 * parentheses). Here because the review reads it back; a refusal (5xx, attempts used up) parks with other words:
 * that reply never arrived.
 */
export const MAYBE_SENT_REASON =
  'may already have been sent: a send attempt was interrupted after the reply was handed to the SMTP server; check the recipient or the server log before approving it again';

/**
 * The send attempts of a ticket that may have delivered its reply: a `sending → parked` entry in the sender's words
 * for "may already have been sent". Any of them, not only the last: a later refusal does not take back an earlier
 * copy that arrived.
 */
export function uncertainSendAttempts(ticket: Pick<Ticket, 'history' | 'outbound'>): UncertainSendAttempt[] {
  return ticket.history.flatMap((h, i) => {
    if (h.from !== 'sending' || h.to !== 'parked' || !h.note?.startsWith(MAYBE_SENT_REASON)) return [];
    const claim = ticket.history.slice(0, i).findLast((e) => e.to === 'sending');
    // The error is the parenthesised end the sender adds; nested parentheses (an SMTP reply's) are kept.
    const error = /\(((?:[^()]|\([^()]*\))*)\)\s*$/.exec(h.note)?.[1] ?? h.note;
    return [{ at: claim?.at ?? h.at, messageId: ticket.outbound?.messageId, error }];
  });
}

/** The refusal of an approval that would send again a reply that may have arrived, without the operator's check. */
function unconfirmedResend(): ReviewRefusal {
  return {
    outcome: 'invalid',
    message:
      'This reply may already have reached the customer: a send attempt ended without the server\'s answer. Check the Sent folder or the mail server\'s log for its Message-ID, then tick "I checked: the customer has no copy of this reply" (API: "checkedNoCopy": true) to send it again, or, if it arrived, close it with "It arrived — close as sent" (API: POST /api/tickets/<id>/arrived).',
  };
}

/**
 * The start of the sender's reason for a reply the SMTP server refused for good (a 5xx answer; jobs/send-reply.ts parks
 * with it, then the server's words). Here because the review reads it back: sending that reply to the same address
 * again is refused again, so the page offers to close the ticket instead.
 */
export const SMTP_REFUSED_REASON = 'SMTP server rejected the reply';

/** The sender's reason for a reply refused because the customer's address needs SMTPUTF8 (RFC 6531), which the SMTP server does not offer. */
export const SMTPUTF8_REASON = "the customer's address needs SMTPUTF8, which the SMTP server does not offer";

/**
 * Why a ticket's reply cannot be delivered as it is: the sender's reason for a permanent refusal by the SMTP server,
 * or the bounce that came back; undefined when nothing says so (a temporary failure that used up the attempts may
 * still go out).
 */
export function undeliverableWhy(ticket: Pick<Ticket, 'reason' | 'replyBounce' | 'outbound'>): string | undefined {
  if (!ticket.outbound) return undefined;
  if (ticket.reason?.startsWith(SMTP_REFUSED_REASON) || ticket.reason?.startsWith(SMTPUTF8_REASON)) return ticket.reason;
  if (ticket.replyBounce) return `our reply bounced: ${describeBounce(ticket.replyBounce)}`;
  return undefined;
}

/**
 * The start of the sender's history note when the SMTP server did not accept a reply and BullMQ retries the job
 * (jobs/send-reply.ts gives the ticket back to `approved` or `drafted` with it, then the error).
 */
export const WILL_RETRY_NOTE = 'not accepted, will retry: ';

/** A reply the SMTP server has not accepted yet, while the sender retries it ({@link sendRetryStatus}). */
export interface SendRetryStatus {
  /** Attempts of this send that failed so far. */
  failedAttempts: number;
  /** Attempts the sender makes in all (SENDER_ATTEMPTS). */
  attempts: number;
  /** The last attempt's error, as the sender recorded it. */
  lastError: string;
  /** When the last attempt failed (ISO 8601). */
  lastFailedAt: string;
  /** When the next attempt starts at the latest, the workers running (ISO 8601). */
  nextAttemptBy: string;
  /** When the last attempt starts at the latest: if it fails too, the reply is parked for a person (ISO 8601). */
  lastAttemptBy: string;
}

/**
 * Where the sender stands with a reply the SMTP server did not accept yet (an approved or automatic one whose last
 * history entry is the sender's "will retry"), or undefined. From the ticket alone: the failed attempts since the
 * decision that queued the send, and the send job's exponential backoff (`backoffMs` doubling, BullMQ's jitter only
 * shortening it), so the times are the latest an attempt starts while a sender runs.
 */
export function sendRetryStatus(ticket: Pick<Ticket, 'state' | 'history'>, send: { attempts: number; backoffMs: number }): SendRetryStatus | undefined {
  if (ticket.state !== 'approved' && ticket.state !== 'drafted') return undefined;
  const last = ticket.history.at(-1);
  if (!last || last.from !== 'sending' || last.to !== ticket.state || !last.note?.startsWith(WILL_RETRY_NOTE)) return undefined;
  // The decision that queued this send: the last entry into the state that did not come back from an attempt.
  const decided = ticket.history.findLastIndex((h) => h.to === ticket.state && h.from !== 'sending');
  const failedAttempts = ticket.history.slice(decided + 1).filter((h) => h.from === 'sending' && h.to === ticket.state).length;
  const failedAt = Date.parse(last.at);
  // After the n-th failure BullMQ waits at most backoff·2^(n-1): the next attempt by then, the last after the sum.
  const wait = (n: number) => send.backoffMs * 2 ** (n - 1);
  let lastAttemptAt = failedAt;
  for (let n = failedAttempts; n < send.attempts; n++) lastAttemptAt += wait(n);
  return {
    failedAttempts,
    attempts: send.attempts,
    lastError: last.note.slice(WILL_RETRY_NOTE.length),
    lastFailedAt: last.at,
    nextAttemptBy: new Date(failedAt + wait(failedAttempts)).toISOString(),
    lastAttemptBy: new Date(lastAttemptAt).toISOString(),
  };
}

/** The reason of a ticket closed as undeliverable: one wording, so the insights count these closings as one reason. */
export const UNDELIVERABLE_REASON = 'undeliverable: closed by a person without a reply (the mail server refused it for good, or it bounced)';

/** The start of the history note of a reply a person confirmed arrived (`parked → sent`). */
export const ARRIVED_NOTE = 'the reply arrived, confirmed by a person (no SMTP response): nothing was sent again';

/** The start of the history note of a ticket closed as undeliverable (`parked → rejected`). */
export const UNDELIVERABLE_NOTE = 'closed as undeliverable';

/** Who decides on which ticket, and what their page showed of it. */
export interface DecisionRequest {
  ticketId: string;
  operator: string;
  /**
   * How many history entries the ticket had on the page the decision was taken on. Given, the decision is refused
   * when the ticket moved on since (another operator's approval that the sender parked again as "may already have
   * been sent", a new draft): the operator never saw that. The review page always sends it; API callers may. An
   * approval's `seen` that names no draft of the ticket (longer than its history, or an earlier length that did not
   * end with a parking) is refused as invalid, not as changed: no page of the ticket wrote it.
   */
  seen?: number | undefined;
}

/** An approval: {@link DecisionRequest}, the reply as edited (absent: the draft as it is), and the operator's check. */
export interface ApproveRequest extends DecisionRequest {
  reply?: string | undefined;
  /**
   * The operator checked that the customer has no copy of a reply that may already have been sent
   * ({@link uncertainSendAttempts}). `false` refuses to approve such a ticket; `undefined` is a caller with no such
   * step, which approves as before. The page, the API and the CLI (`--checked-no-copy`) all ask.
   */
  checkedNoCopy?: boolean | undefined;
  /**
   * When the newest mail of the ticket's conversation that the page showed was received (ISO 8601,
   * {@link ConversationView.newestAt}): mail received after it is mail the operator never saw, and refuses the
   * approval whatever {@link readNewerMail} says. Absent (the CLI, an API caller without it): the caller saw only
   * this ticket's mail, and {@link readNewerMail} speaks for all the later mail.
   */
  conversationSeen?: string | undefined;
  /**
   * The operator read the customer's mail received in the conversation after this ticket's
   * ({@link laterMailRefusal}); without it, such mail refuses the approval. The page's tick, the API's
   * `readNewerMail`, the CLI's `--read-newer-mail`.
   */
  readNewerMail?: boolean | undefined;
  /**
   * The operator verified another way that the sender wrote this mail, for a ticket parked because its sender may be
   * forged ({@link unverifiedSender}). `false` refuses to approve such a ticket; `undefined` is a caller with no such
   * step, which approves as before. The page, the API and the CLI (`--sender-verified`) all ask.
   */
  senderVerified?: boolean | undefined;
}

/** The review form's field (and the API's body field) of {@link ApproveRequest.conversationSeen}. */
export const CONVERSATION_SEEN = 'conversationSeen';
/** The review form's field (and the API's body field) of {@link ApproveRequest.readNewerMail}. */
export const READ_NEWER_MAIL = 'readNewerMail';
/** The review form's field (and the API's body field) of {@link ApproveRequest.senderVerified}. */
export const SENDER_VERIFIED = 'senderVerified';

/** Mail of one conversation shown or named at most, each way from the ticket. */
export const CONVERSATION_SHOWN = 20;

/** What the review reads of the conversation: the store and the connection it uses. */
export type ConversationDeps = { store: TicketStore; redis: Redis };

/**
 * The mail of a ticket's conversation around it, for the review page: what came before (with the replies we sent)
 * and what the customer wrote after it, and when the newest of all was received.
 */
export interface ConversationView {
  /** The earlier tickets, oldest first, at most {@link CONVERSATION_SHOWN} of the most recent. */
  earlier: ConversationEntry[];
  /** The later tickets, oldest first, at most {@link CONVERSATION_SHOWN} of the oldest. */
  later: ConversationEntry[];
  /** How many tickets of the conversation came after this one, shown or not. */
  laterTotal: number;
  /** When the newest mail of the conversation was received (this ticket's own time when none came after it). */
  newestAt: string;
}

/** A ticket as a {@link ConversationEntry}: as `TicketStore.conversationHistory` makes them, our sent reply included. */
function conversationEntryOf(t: Ticket): ConversationEntry {
  const entry: ConversationEntry = { ticketId: t.id, createdAt: t.createdAt, from: t.from, subject: t.subject, question: t.question, state: t.state };
  if (t.state === 'sent' && t.draft !== undefined) {
    entry.reply = t.draft;
    if (t.outbound?.sentAt) entry.repliedAt = t.outbound.sentAt;
  }
  return entry;
}

/**
 * The kinds of ignored mail (the start of its reason, src/mail/classify.ts `ignoreReasonText`) that no person wrote:
 * an auto-reply or out-of-office notice, a read receipt, a bounce, a thank-you only, spam. Such mail in the
 * conversation is no customer writing again, and must not ask for the later-mail tick with a message saying so.
 */
const AUTOMATIC_MAIL_KINDS: ReadonlySet<string> = new Set<IgnoreReason | 'read receipt'>(['auto-reply', 'read receipt', 'bounce', 'acknowledgement', 'spam']);

/** True when the ticket is mail the checks ignored as no person's ({@link AUTOMATIC_MAIL_KINDS}); a reopened one is not. */
function isAutomaticMail(t: Pick<Ticket, 'state' | 'reason' | 'deliveryReport'>): boolean {
  if (t.state !== 'ignored') return false;
  const kind = ignoreKindOf(t.reason);
  return t.deliveryReport !== undefined || (kind !== undefined && AUTOMATIC_MAIL_KINDS.has(kind));
}

/** Later tickets read at most to tell automatic mail from a person's; any beyond are counted as a person's. */
const LATER_MAIL_READ = 200;

/**
 * The tickets of the conversation received after `afterMs` (epoch ms; strictly after) that a person may have written
 * (not {@link isAutomaticMail}), oldest first, at most `limit`, and how many there are. The conversation's sorted set
 * is scored by each ticket's creation. Only the first {@link LATER_MAIL_READ} are read: the rest count whatever they
 * are, which errs on the side of asking for the tick.
 */
async function mailAfter(deps: ConversationDeps, conversationId: string, afterMs: number, limit: number): Promise<{ tickets: Ticket[]; total: number }> {
  const key = deps.store.keys().conversation(conversationId);
  const [ids, count] = await Promise.all([deps.redis.zrangebyscore(key, `(${afterMs}`, '+inf', 'LIMIT', 0, LATER_MAIL_READ), deps.redis.zcount(key, `(${afterMs}`, '+inf')]);
  const written = (await deps.store.getMany(ids, { agentResult: false })).filter((t) => !isAutomaticMail(t));
  return { tickets: written.slice(0, limit), total: written.length + Math.max(0, count - ids.length) };
}

/** The mail of the ticket's conversation around it ({@link ConversationView}). */
export async function conversationAround(deps: ConversationDeps, ticket: Ticket): Promise<ConversationView> {
  const [earlier, later] = await Promise.all([
    deps.store.conversationHistory(ticket.id, { limit: CONVERSATION_SHOWN }),
    mailAfter(deps, ticket.conversationId, Date.parse(ticket.createdAt), CONVERSATION_SHOWN),
  ]);
  return { earlier, later: later.tickets.map(conversationEntryOf), laterTotal: later.total, newestAt: await newestMailAt(deps, ticket, later) };
}

/** When the newest mail of the conversation was received: the last later ticket's, read by score when not all were read. */
async function newestMailAt(deps: ConversationDeps, ticket: Ticket, later: { tickets: Ticket[]; total: number }): Promise<string> {
  if (later.total === 0) return ticket.createdAt;
  if (later.total === later.tickets.length && later.tickets.length > 0) return later.tickets.at(-1)!.createdAt;
  const [, score] = await deps.redis.zrevrangebyscore(deps.store.keys().conversation(ticket.conversationId), '+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, 1);
  const ms = Number(score);
  // The score is the creation time in ms, the same instant `createdAt` holds.
  return Number.isFinite(ms) && ms > Date.parse(ticket.createdAt) ? new Date(ms).toISOString() : ticket.createdAt;
}

/**
 * How many tickets each ticket's conversation received after it that a person may have written ({@link mailAfter}),
 * for the list of parked tickets: one count per ticket. Tickets whose conversation got no such mail are left out.
 */
export async function laterMailCounts(deps: ConversationDeps, tickets: readonly Ticket[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  // Read, not only counted, to leave automatic mail out: the reads of a page of tickets run side by side.
  const found = await Promise.all(tickets.map((t) => mailAfter(deps, t.conversationId, Date.parse(t.createdAt), 0)));
  tickets.forEach((t, i) => {
    if (found[i]!.total > 0) counts.set(t.id, found[i]!.total);
  });
  return counts;
}

/** One later mail, named for a refusal: its subject, id (a link on the page), when it came and its state. */
function namedMail(t: Ticket): string {
  return `“${t.subject || '(no subject)'}” (ticket ${t.id}, received ${t.createdAt}, ${t.state})`;
}

function namedMails(found: { tickets: Ticket[]; total: number }): string {
  const more = found.total > found.tickets.length ? ` and ${found.total - found.tickets.length} more` : '';
  return `${found.tickets.map(namedMail).join('; ')}${more}`;
}

/**
 * Why the approval must wait because the customer wrote again in the conversation after this ticket's mail (a reply
 * drafted for the first mail may no longer fit: the customer withdrew the question, or asked something else), or
 * undefined: mail received after what the page showed ({@link ApproveRequest.conversationSeen}) refuses it always;
 * later mail the operator saw refuses it until they say they read it ({@link ApproveRequest.readNewerMail}). Both
 * name the later mail. The check and the approval are two writes apart: mail that arrives between them is mail the
 * approval could not have known of either way.
 */
export async function laterMailRefusal(deps: ConversationDeps, ticket: Ticket, request: Pick<ApproveRequest, 'conversationSeen' | 'readNewerMail'>): Promise<ReviewRefusal | undefined> {
  const ownMs = Date.parse(ticket.createdAt);
  if (request.conversationSeen !== undefined) {
    const seenMs = Date.parse(request.conversationSeen);
    if (Number.isNaN(seenMs)) return { outcome: 'invalid', message: `${CONVERSATION_SEEN} is not a time (ISO 8601): ${request.conversationSeen.slice(0, 80)}` };
    const unseen = await mailAfter(deps, ticket.conversationId, Math.max(ownMs, seenMs), 3);
    if (unseen.total > 0) {
      return {
        outcome: 'conflict',
        message: `The customer wrote again after you opened this ticket: ${namedMails(unseen)}. Read it, then reload this ticket and decide again: the draft may no longer fit.`,
        state: ticket.state,
      };
    }
  }
  if (request.readNewerMail === true) return undefined;
  const later = await mailAfter(deps, ticket.conversationId, ownMs, 3);
  if (later.total === 0) return undefined;
  return {
    outcome: 'conflict',
    message: `The customer wrote again in this conversation after this mail: ${namedMails(later)}. Read it first: the draft may no longer fit. To send it anyway, tick "I read the customer's later mail" (API: "${READ_NEWER_MAIL}": true; CLI: --read-newer-mail).`,
    state: ticket.state,
  };
}

/**
 * The starts of the agent worker's reasons for a draft held because its sender may not be who the mail says
 * (jobs/answer-ticket.ts `senderReviewReason`): the receiving server found the From forged, or mail from our own
 * address through a group was not authenticated as the group's. A reply goes to whoever was impersonated.
 */
export const UNVERIFIED_SENDER_REASONS = ['possibly forged sender:', 'not authenticated as mail through our group:'] as const;

/**
 * Why the ticket's sender may be forged, or undefined: the agent worker's hold ({@link UNVERIFIED_SENDER_REASONS}),
 * found in its history, so that a new draft asked for later (parked with another reason) keeps it: the mail is the
 * same.
 */
export function unverifiedSender(ticket: Pick<Ticket, 'history'>): string | undefined {
  return ticket.history.findLast((h) => h.to === 'parked' && UNVERIFIED_SENDER_REASONS.some((start) => h.note?.startsWith(start)))?.note;
}

/** The refusal of an approval of a possibly forged sender's mail without the operator's check. */
function unverifiedSenderRefusal(why: string): ReviewRefusal {
  return {
    outcome: 'invalid',
    message: `The sender of this mail may be forged (${why}). Verify another way that they wrote it (a phone call, an address you already know), then tick "I verified the sender another way" (API: "${SENDER_VERIFIED}": true; CLI: --sender-verified) to send it; otherwise reject it.`,
  };
}

/**
 * The refusal of a decision taken on a page that no longer shows the ticket as it is. When a person decided since
 * (`seen`: the history length the page showed; without it, the last decision), it names who, when and how, and
 * whether anything is left to decide: a second operator must not think their approval is still wanted.
 */
function changedSince(ticket: Ticket, seen?: number): ReviewRefusal {
  const decision = ticket.history.slice(seen ?? 0).findLast((h) => h.from === 'parked' && h.actor.startsWith(OPERATOR_PREFIX));
  if (decision) {
    const left = whatIsLeft(ticket);
    const changed = `${describeDecision(decision)}; ${left.fact}`;
    return { outcome: 'conflict', message: `The ticket changed since you opened it: ${describeDecision(decision)}; ${left.onPage}.`, state: ticket.state, changed };
  }
  const last = ticket.history.at(-1);
  const why = ticket.reason ?? last?.note;
  const changed = `it is now ${ticket.state}${why ? ` (${why})` : ''}${last ? `, last changed by ${last.actor}` : ''}`;
  return { outcome: 'conflict', message: `The ticket changed since you opened it: ${changed}. Reload it and decide again.`, state: ticket.state, changed };
}

/**
 * The refusal of an approval whose `seen` names no draft of the ticket: no entry of its history that parked one ends
 * there (beyond its history, or the entry of another state). No page of the ticket wrote it, so it is not "changed
 * since you opened it": it was forged or mistyped.
 */
function seenNamesNoDraft(ticket: Ticket, seen: number): ReviewRefusal {
  return {
    outcome: 'invalid',
    message: `"seen" ${seen} names no draft of this ticket (its history has ${ticket.history.length} entries, and a draft's "seen" is the history length when it was parked): read the ticket again and send the history length it has while parked`,
    seenNamesNoDraft: seen,
  };
}

/**
 * True when `seen` is no length the ticket's history had with a draft parked for review: beyond its history, or an
 * earlier length whose last entry is not a parking. The length it has now is the ticket as it is, whose state says
 * what is left ("only parked tickets can be approved").
 */
function namesNoDraft(ticket: Ticket, seen: number): boolean {
  if (seen === ticket.history.length) return false;
  return seen < 1 || seen > ticket.history.length || ticket.history[seen - 1]?.to !== 'parked';
}

/** A person's decision on a parked ticket: `approved by alice at 2026-03-03 10:02 GMT+9 with a reply of its own`. */
function describeDecision(entry: HistoryEntry): string {
  const by = `by ${entry.actor.slice(OPERATOR_PREFIX.length)} at ${deskTime(entry.at)}`;
  switch (entry.to) {
    case 'approved':
      return `approved ${by} ${entry.note === EDITED_APPROVAL_NOTE ? 'with a reply of its own' : 'with the draft as it was'}`;
    case 'rejected':
      return `rejected ${by}${entry.note ? ` (${entry.note})` : ''}`;
    case 'processing':
      return `sent back to the agent for a new draft ${by}`;
    default:
      return `${entry.to} ${by}`;
  }
}

/**
 * What the ticket's state leaves to the operator whose decision came too late: the fact, and the fact with the
 * page's next step.
 */
function whatIsLeft(ticket: Ticket): { fact: string; onPage: string } {
  const done = (fact: string) => ({ fact: `${fact} — nothing left to decide`, onPage: `${fact} — nothing left to decide here` });
  switch (ticket.state) {
    case 'approved':
    case 'sending':
      return done('it is being sent');
    case 'sent':
      return done('it was sent');
    case 'rejected':
      return done('nothing is sent');
    case 'processing':
      return { fact: 'the agent is writing a new draft', onPage: 'the agent is writing a new draft: open it again once it is parked' };
    case 'parked': {
      const fact = `it is parked again${ticket.reason ? ` (${ticket.reason})` : ''}`;
      return { fact, onPage: `${fact}: reload it and decide again` };
    }
    default:
      return { fact: `it is now ${ticket.state}`, onPage: `it is now ${ticket.state}: reload it to see what is left` };
  }
}

/** `iso` as the review page writes a time ({@link localTime}), in the desk's zone; `iso` itself when it is no date. */
function deskTime(iso: string): string {
  return localTime(iso, deskTimeZone()) ?? iso;
}

/** True when the entry right after the `seen` ones is an approval: the one a repeated submit of that page made. */
function isApprovalAfter(ticket: Ticket, seen: number): boolean {
  const next = ticket.history[seen];
  return next !== undefined && next.from === 'parked' && next.to === 'approved';
}

function checkId(ticketId: string): ReviewRefusal | undefined {
  return TICKET_ID_PATTERN.test(ticketId) ? undefined : { outcome: 'invalid', message: `Not a ticket id: ${ticketId.slice(0, 80)}` };
}

/**
 * The generation of the job a person's decision queued: that of the last `parked → to` entry, not of the ticket now.
 * Later entries do not make it another job: the sender gives a ticket back to `approved` after an SMTP 4xx while
 * BullMQ retries the same job, and an agent run resumed after a crash moves `processing → processing`. Asking again
 * must find that job, because a second one would race it (and park a reply that went out).
 */
function decisionGeneration(ticket: Ticket, to: 'approved' | 'processing'): number {
  const at = ticket.history.findLastIndex((h) => h.from === 'parked' && h.to === to);
  return at === -1 ? jobGeneration(ticket) : at + 1;
}

async function queueSend(deps: ReviewDeps, ticket: Ticket): Promise<string> {
  const job = sendReplyJob(deps.config, ticket.id, decisionGeneration(ticket, 'approved'), deps.tuning);
  await produce(deps.redis, () => deps.outbound.add(job.name, job.data, job.opts));
  return String(job.opts.jobId);
}

/**
 * Why an approval that carries neither the text to send (`reply`) nor the history length of the ticket read (`seen`)
 * is refused, by the API and the review page alike: it would approve whatever draft is stored when it arrives, and a
 * rerun may have parked one the operator never saw.
 */
export const NEITHER_REPLY_NOR_SEEN = 'send "reply" (the text to send) or "seen" (the history length of the ticket you read, to approve its draft)';

/**
 * Approves a parked ticket's reply: stores `reply` as the draft when given and what the approval changed of the
 * agent's answer (`approval`, from which the sent ticket's outcome and edit ratio follow), moves the ticket
 * `parked → approved` (actor `operator:<operator>`) and adds its `send-reply` job; what the agent did answer closes
 * the knowledge gaps it matches. Approving an already approved (not yet claimed)
 * ticket again only re-adds the job of that approval (also while the sender waits to retry it), so a retry after a
 * failure in between is safe.
 */
export async function approveTicket(deps: ReviewDeps, request: ApproveRequest): Promise<ApproveOutcome> {
  return approveOnce(deps, request, true);
}

async function approveOnce(deps: ReviewDeps, request: ApproveRequest, mayRetry: boolean): Promise<ApproveOutcome> {
  const badId = checkId(request.ticketId);
  if (badId) return badId;
  const reply = request.reply === undefined ? undefined : normalizeText(request.reply);
  if (reply !== undefined && reply.trim() === '') return { outcome: 'invalid', message: 'The reply is empty' };
  if (reply !== undefined && reply.length > MAX_REPLY_CHARS) {
    return { outcome: 'invalid', message: `The reply is longer than ${MAX_REPLY_CHARS} characters` };
  }
  const ticket = await deps.store.get(request.ticketId);
  if (!ticket) return { outcome: 'not-found', message: `Ticket ${request.ticketId} not found` };
  if (request.seen !== undefined && namesNoDraft(ticket, request.seen)) return seenNamesNoDraft(ticket, request.seen);

  if (ticket.state === 'approved') {
    // Another operator's approval, with another reply than this one, reads as "approved by … with a reply of its own".
    if (reply !== undefined && reply !== ticket.draft) return changedSince(ticket, request.seen);
    // The same decision submitted twice (a double click, a retry): the approval right after what the page showed.
    if (request.seen !== undefined && !isApprovalAfter(ticket, request.seen)) return changedSince(ticket, request.seen);
    return { outcome: 'approved', ticket, jobId: await queueSend(deps, ticket), alreadyApproved: true };
  }
  if (request.seen !== undefined && ticket.history.length !== request.seen) return changedSince(ticket, request.seen);
  if (ticket.state !== 'parked') {
    return { outcome: 'conflict', message: `The ticket is ${ticket.state}; only parked tickets can be approved`, state: ticket.state };
  }
  const text = reply ?? ticket.draft;
  if (!text?.trim()) return { outcome: 'invalid', message: 'The ticket has no draft; write the reply to send' };
  if (request.checkedNoCopy === false && uncertainSendAttempts(ticket).length > 0) return unconfirmedResend();
  const forged = request.senderVerified === false ? unverifiedSender(ticket) : undefined;
  if (forged) return unverifiedSenderRefusal(forged);
  const laterMail = await laterMailRefusal(deps, ticket, request);
  if (laterMail) return laterMail;

  // Measured against the agent's own answer, not the current draft: a draft edited in an earlier round (approved,
  // then parked again by the sender) is still the operator's change.
  const patch: TicketPatch = { reason: null, approval: approvalRecord(ticket.agent, text) };
  if (reply !== undefined) patch.draft = reply;
  // Who approved is the history entry's actor; the sender copies it into `outbound.approvedBy` when it sends.
  let approved: Ticket;
  try {
    approved = await deps.store.transition(ticket.id, {
      from: ['parked'],
      // The draft and the checks above are this read's; a rerun that parked another draft since makes it stale.
      ifHistoryLength: ticket.history.length,
      to: 'approved',
      actor: operatorActor(request.operator),
      note: reply !== undefined && reply !== ticket.draft ? EDITED_APPROVAL_NOTE : 'approved',
      patch,
    });
  } catch (err) {
    // Another request moved the ticket between our read and our write: decide again on what is stored, so the
    // second of two simultaneous submits of one approval finds it approved instead of failing.
    if (err instanceof TicketConflictError && mayRetry) return approveOnce(deps, request, false);
    const refusal = refusalOf(err, 'approve');
    if (refusal) return refusal;
    throw err;
  }
  const jobId = await queueSend(deps, approved);
  // The transition returns the ticket without the agent result; the one read above has it.
  await learnGapsFrom({ store: deps.store, redis: deps.redis }, { ...approved, ...(ticket.agent ? { agent: ticket.agent } : {}) });
  // A corrected fact marks the sources that said it (not trusted until fixed) and asks for their fix.
  await learnFromCorrection({ store: deps.store, redis: deps.redis }, { ...approved, ...(ticket.agent ? { agent: ticket.agent } : {}) }, text);
  await queueProposal(deps, approved);
  return { outcome: 'approved', ticket: approved, jobId, alreadyApproved: false };
}

const log = createLogger('review');

/**
 * Queues the learned-answer proposal of an approved ticket. After the approval and its send job, and never failing
 * either: the candidates are a suggestion, the reply is the customer's.
 */
async function queueProposal(deps: ReviewDeps, ticket: Ticket): Promise<void> {
  if (!deps.learning) return;
  try {
    const job = proposeLearnedAnswerJob(ticket.id, jobGeneration(ticket), deps.tuning);
    await produce(deps.redis, () => deps.learning!.add(job.name, job.data, job.opts));
  } catch (err) {
    log.warn({ ticketId: ticket.id, err: err instanceof Error ? err.message : String(err) }, 'could not queue the learned-answer proposal; the approval stands');
  }
}

/**
 * Rejects a parked ticket: no reply goes out (`parked → rejected`, actor `operator:<operator>`); `reason` is stored
 * as the ticket's reason and in the history. With `redis`, a rejected draft is recorded in the knowledge gaps.
 */
export async function rejectTicket(
  deps: Pick<ReviewDeps, 'store'> & Partial<Pick<ReviewDeps, 'redis'>>,
  request: DecisionRequest & { reason: string },
): Promise<RejectOutcome> {
  const badId = checkId(request.ticketId);
  if (badId) return badId;
  const reason = normalizeText(request.reason).trim();
  if (reason === '') return { outcome: 'invalid', message: 'A reason is required to reject a ticket' };
  if (reason.length > MAX_REASON_CHARS) return { outcome: 'invalid', message: `The reason is longer than ${MAX_REASON_CHARS} characters` };
  try {
    if (request.seen !== undefined) {
      const current = await deps.store.get(request.ticketId, { agentResult: false });
      if (current && current.history.length !== request.seen) return changedSince(current, request.seen);
    }
    // A rerun that parked another draft between the read above and this write leaves the state as it was and makes
    // the history longer: the write is refused on the history the person saw.
    const ticket = await deps.store.transition(request.ticketId, {
      from: ['parked'],
      ...(request.seen !== undefined ? { ifHistoryLength: request.seen } : {}),
      to: 'rejected',
      actor: operatorActor(request.operator),
      note: reason,
      patch: { reason },
    });
    if (deps.redis) await learnGapsFrom({ store: deps.store, redis: deps.redis }, ticket);
    return { outcome: 'rejected', ticket };
  } catch (err) {
    // Lost to a change since the page was read (a rerun's new draft): say what changed, as an approval does.
    if (err instanceof TicketConflictError && request.seen !== undefined) {
      const latest = await deps.store.get(request.ticketId, { agentResult: false });
      if (latest && latest.history.length !== request.seen) return changedSince(latest, request.seen);
    }
    const refusal = refusalOf(err, 'reject');
    if (refusal) return refusal;
    throw err;
  }
}

/** What {@link rerunAgent} needs. */
export interface RerunDeps {
  store: TicketStore;
  /** The producer connection of the queue, so an outage surfaces as `RedisUnavailableError`. */
  redis: Redis;
  /** The `tickets` queue (only `add` is used). */
  tickets: Pick<Queues['tickets'], 'add'>;
  config: Pick<Config, 'AGENT_ATTEMPTS'>;
  tuning?: JobTuning;
}

/** Result of {@link rerunAgent}. */
export type RerunOutcome =
  | {
      outcome: 'requeued';
      ticket: Ticket;
      /** Id of the `answer-ticket` job on `tickets`. */
      jobId: string;
      /** True when a person had asked before and the job was only added again (see {@link approveTicket}). */
      alreadyRequeued: boolean;
      /** True when the new draft is parked for a person, whatever the review mode (see {@link RerunRequest.forReview}). */
      forReview: boolean;
    }
  | ReviewRefusal;

/**
 * The reason of a draft a person asked for from the review page or the API: it waits for them, whatever the review
 * mode. `parkedAnyway`, the reason the draft would have been parked for without the request, is kept after it.
 */
export function rerunReason(operator: string, parkedAnyway?: string): string {
  const asked = `new draft asked for by ${operator}: review it`;
  return parkedAnyway ? `${asked} (${parkedAnyway})` : asked;
}

/** The note of the history entry that hands a parked ticket back to the agent. */
export const RERUN_NOTE = 'the agent answers it again (asked by a person)';

/** Who asks for a new draft of which ticket, and what their page showed of it. */
export interface RerunRequest extends DecisionRequest {
  /**
   * True when a person asks from the review page or the API: the new draft is parked for them (see
   * {@link rerunReason}) whatever the review mode, since they are looking at the ticket and expect to read it. The
   * CLI leaves it unset: its rerun is for a batch after a fixed cause, decided as any run.
   */
  forReview?: boolean | undefined;
}

/**
 * Why the agent must not be given this ticket again, or undefined. A reply may already have left (the ticket went
 * through `sending`): only an approval sends then, so nothing goes out twice. And the checks on the mail's content that
 * parked it before the agent still hold: the mail is unreadable (encrypted, its text only in an attachment, …) or has
 * no question; the agent would answer the subject alone, or fail and replace that clear reason with its error.
 */
export function whyNoNewDraft(ticket: Pick<Ticket, 'history' | 'unreadable' | 'question'>): string | undefined {
  if (ticket.history.some((h) => h.to === 'sending')) return 'A reply to this ticket may already have gone out; approve its draft to send it, close it (as sent if it arrived, as undeliverable if the server refused it), or reject it';
  if (ticket.unreadable) return `The agent cannot read this mail (${ticket.unreadable}); write the reply yourself and approve it, or reject it`;
  if (!hasQuestion(ticket)) return `The mail has no question for the agent (${noQuestionReason(ticket.question).slice(NO_QUESTION_REASON.length).trim()}); write the reply yourself and approve it, or reject it`;
  return undefined;
}

/**
 * True when the mail never reached the agent through the checks before it: a check parked it while it was
 * `received` (spam with SPAM_ACTION=park, the auto-reply or agent-run limits, a repeated question, a hold recorded at
 * ingest: the poller's first start, a raw copy not kept) or it was created parked (such a hold by an older version).
 * Those checks run only on a `received` ticket (jobs/answer-ticket.ts), so
 * a rerun's draft of such mail must not go out on the review mode's word alone.
 */
export function parkedBeforeAgent(ticket: Pick<Ticket, 'history'>): boolean {
  return !ticket.history.some((h) => h.from === 'received' && h.to === 'processing');
}

/** The actor of the checks before the agent (jobs/answer-ticket.ts, `AGENT_WORKER_ACTOR`); src/ does not import jobs/. */
const CHECKS_ACTOR = 'agent-worker';

/**
 * How the checks' park reasons begin for mail that asks nothing of us, so that rejecting it says it needed no reply:
 * an empty mail or web form, a colleague's forward (a person answers its customer), a circular, a list member's copy,
 * spam, a repeated question (its customer has the first copy's reply), an Outlook recall and calendar protocol mail
 * (answered in the calendar, not by mail). Every other park by the checks needed a person's reply: mail the agent
 * cannot read although its customer asked something (encrypted, its text only in an attachment, a screenshot it cannot
 * see), a reply a customer's spam guard holds, a stranger named as us, a no-reply Reply-To beside a person, a null
 * envelope sender, our own group without its setting, a hold. An allow-list, so that a new park reason counts as
 * needing a reply until it is named here.
 */
const NO_REPLY_NEEDED: readonly string[] = [
  NO_QUESTION_REASON,
  `${COLLEAGUE_REASON} `,
  CIRCULAR_REASON,
  `${LIST_COPY_KIND}:`,
  `${PARK_NOTE.spam}:`,
  // src/tickets/repeated-question.ts `repeatedQuestionReason` (its prefix is not exported; a test reads the writer).
  'repeated question:',
  RECALL_REASON,
  ...new Set(Object.values(IMIP_METHODS).map((what) => `${what} (text/calendar;`)),
];

/**
 * True when rejecting the ticket says its mail needed no reply: the checks before the agent parked it for mail that asks
 * nothing of us ({@link NO_REPLY_NEEDED}: no question, a colleague's forward, a circular, a list member's copy, spam, a
 * repeated question, a recall, a calendar invitation or answer), or a person reopened mail the checks ignored. False
 * for mail that needed an answer the desk could not give: unreadable (encrypted, its text only in an attachment, a
 * screenshot the agent cannot see), held for a person (a customer's spam guard, a hold alone), parked at ingest (too
 * large, unparseable), by an hourly limit, after a failure, or after any run of the agent. The last park decides, by
 * its history note: the ticket's reason is a person's once they rejected it.
 */
export function parkedForTheMailItself(ticket: Pick<Ticket, 'history'> & Partial<Pick<Ticket, 'heldReason'>>): boolean {
  if (!parkedBeforeAgent(ticket)) return false;
  const park = ticket.history.findLast((h) => h.to === 'parked');
  if (park?.from === 'ignored') return true;
  if (park?.from !== 'received' || park.actor !== CHECKS_ACTOR) return false;
  // A hold comes first in the note; what the checks found of the mail, if anything, follows it.
  const note = park.note ?? '';
  const why = ticket.heldReason && note.startsWith(ticket.heldReason) ? note.slice(ticket.heldReason.length).replace(/^;\s*/, '') : note;
  return NO_REPLY_NEEDED.some((start) => why.startsWith(start));
}

/** True when the entry right after the `seen` ones is a person's rerun: the one a repeated submit of that page made. */
function isRerunAfter(ticket: Ticket, seen: number): boolean {
  const next = ticket.history[seen];
  return next !== undefined && next.from === 'parked' && next.to === 'processing' && next.actor.startsWith(OPERATOR_PREFIX);
}

/**
 * Hands a parked ticket back to the agent (`parked → processing`, actor `operator:<operator>`) and adds its
 * `answer-ticket` job: after the cause of a failure was fixed (the LLM key or model, a manual section written for a
 * knowledge gap). With `forReview` the new draft is parked for the person; without it the run decides as any other.
 * Refused for what {@link whyNoNewDraft} names, and, given `seen`, for a ticket that moved on since the page was
 * opened. Asking again while the job waits only re-adds the same job. The draft of mail a person reopened after the
 * checks ignored it, or that a check parked before any run ({@link parkedBeforeAgent}), is always for review, from a
 * terminal too.
 */
export async function rerunAgent(deps: RerunDeps, request: RerunRequest): Promise<RerunOutcome> {
  const badId = checkId(request.ticketId);
  if (badId) return badId;
  const ticket = await deps.store.get(request.ticketId, { agentResult: false });
  if (!ticket) return { outcome: 'not-found', message: `Ticket ${request.ticketId} not found` };
  // The checks that ignored the mail may have been right after all (an auto-responder that quotes a question), or a
  // check parked it before any run (a repeated question, whose customer already has an automatic reply, spam, a first
  // start's hold): those checks do not run again on a rerun, so its reply goes out only once a person read it, from a
  // terminal too. Decided before either path, so a request repeated after its job add failed queues the same job.
  if (reopenedFromIgnored(ticket) || parkedBeforeAgent(ticket)) request = { ...request, forReview: true };
  const last = ticket.history.at(-1);
  if (ticket.state === 'processing' && last?.from === 'parked' && last.actor.startsWith(OPERATOR_PREFIX)) {
    if (request.seen !== undefined && !isRerunAfter(ticket, request.seen)) return changedSince(ticket, request.seen);
    return { outcome: 'requeued', ticket, jobId: await queueAnswer(deps, ticket, request), alreadyRequeued: true, forReview: Boolean(request.forReview) };
  }
  if (request.seen !== undefined && ticket.history.length !== request.seen) return changedSince(ticket, request.seen);
  if (ticket.state !== 'parked') {
    return { outcome: 'conflict', message: `The ticket is ${ticket.state}; only parked tickets can be answered again`, state: ticket.state };
  }
  const refused = whyNoNewDraft(ticket);
  if (refused) return { outcome: 'conflict', message: refused, state: ticket.state };
  let requeued: Ticket;
  try {
    requeued = await deps.store.transition(ticket.id, { from: ['parked'], to: 'processing', actor: operatorActor(request.operator), note: RERUN_NOTE, current: ticket });
  } catch (err) {
    const refusal = refusalOf(err, 'answer it again');
    if (refusal) return refusal;
    throw err;
  }
  return { outcome: 'requeued', ticket: requeued, jobId: await queueAnswer(deps, requeued, request), alreadyRequeued: false, forReview: Boolean(request.forReview) };
}

async function queueAnswer(deps: RerunDeps, ticket: Ticket, request: RerunRequest): Promise<string> {
  const job = answerTicketJob(deps.config, ticket.id, decisionGeneration(ticket, 'processing'), deps.tuning, request.forReview ? request.operator : undefined);
  await produce(deps.redis, () => deps.tickets.add(job.name, job.data, job.opts));
  return String(job.opts.jobId);
}

/** A person's word on a reply's delivery: {@link DecisionRequest} and what they note (how they know, what they did). */
export interface DeliveryRequest extends DecisionRequest {
  note?: string | undefined;
}

/** Result of {@link confirmArrived}. */
export type ArrivedOutcome =
  | {
      outcome: 'confirmed';
      ticket: Ticket;
      /** True when the ticket was confirmed before (a double submit, the command run twice): nothing changed. */
      alreadyConfirmed: boolean;
    }
  | ReviewRefusal;

/** Result of {@link closeUndeliverable}. */
export type CloseOutcome =
  | {
      outcome: 'closed';
      ticket: Ticket;
      /**
       * `rejected`: a parked ticket ended without a reply; `acknowledged`: the bounce of a ticket that keeps its state
       * (a sent reply) was acknowledged.
       */
      closedAs: 'rejected' | 'acknowledged';
      /** True when it was closed before (a double submit, the command run twice): nothing changed. */
      alreadyClosed: boolean;
    }
  | ReviewRefusal;

/** The operator's note, normalised; a refusal when it is too long. */
function noteOf(request: { note?: string | undefined }): { note?: string } | ReviewRefusal {
  const note = normalizeText(request.note ?? '').trim();
  if (note.length > MAX_REASON_CHARS) return { outcome: 'invalid', message: `The note is longer than ${MAX_REASON_CHARS} characters` };
  return note ? { note } : {};
}

function isRefusal(value: object): value is ReviewRefusal {
  return 'outcome' in value;
}

/** The ticket a decision with a note (on a reply's delivery, a reopening) is about, with the note; or why there is none to decide on. */
async function ticketAndNote(deps: Pick<ReviewDeps, 'store'>, request: DecisionRequest & { note?: string | undefined }): Promise<{ ticket: Ticket; note: { note?: string } } | ReviewRefusal> {
  const badId = checkId(request.ticketId);
  if (badId) return badId;
  const note = noteOf(request);
  if (isRefusal(note)) return note;
  const ticket = await deps.store.get(request.ticketId, { agentResult: false });
  if (!ticket) return { outcome: 'not-found', message: `Ticket ${request.ticketId} not found` };
  return { ticket, note };
}

/** Who says so, now, and their note. */
function acknowledgementOf(operator: string, note: { note?: string }): Acknowledgement {
  return { by: operator, at: new Date().toISOString(), ...note };
}

function withNote(text: string, note: { note?: string }): string {
  return note.note ? `${text} — ${note.note}` : text;
}

/** True when the entry right after the `seen` ones is a person's confirmation of arrival: a repeated submit's. */
function isArrivalAfter(ticket: Ticket, seen: number): boolean {
  const next = ticket.history[seen];
  return next !== undefined && next.from === 'parked' && next.to === 'sent' && next.actor.startsWith(OPERATOR_PREFIX);
}

/**
 * Closes as sent a parked ticket whose reply may already have been sent ({@link uncertainSendAttempts}) and that the
 * operator found did arrive (the customer answered it, the mail server's log shows it): `parked → sent`, actor
 * `operator:<operator>`, with `outbound.deliveryCheck` saying who confirmed it, instead of an SMTP response, and
 * `outbound.sentAt` the time of the first attempt that may have delivered it. Nothing is sent, and no copy is filed in
 * the Sent folder: the bytes that went out were kept only for an accepted reply. The outcome is the one the send of
 * that attempt would have recorded — `auto_sent` for an automatic reply, the approval's for an approved one (which
 * the cited sources' trust then counts, once, as the send would have) — recorded once, as the ticket enters `sent`
 * once. Refused, given `seen`, for a ticket that moved on since the page was opened; a repeated submit finds it done.
 */
export async function confirmArrived(deps: Pick<ReviewDeps, 'store'>, request: DeliveryRequest): Promise<ArrivedOutcome> {
  return confirmArrivedOnce(deps, request, true);
}

async function confirmArrivedOnce(deps: Pick<ReviewDeps, 'store'>, request: DeliveryRequest, mayRetry: boolean): Promise<ArrivedOutcome> {
  const read = await ticketAndNote(deps, request);
  if (isRefusal(read)) return read;
  const { ticket, note } = read;
  const confirmed = ticket.state === 'sent' && ticket.outbound?.deliveryCheck?.verdict === 'arrived';
  if (request.seen !== undefined && ticket.history.length !== request.seen) {
    return confirmed && isArrivalAfter(ticket, request.seen) ? { outcome: 'confirmed', ticket, alreadyConfirmed: true } : changedSince(ticket, request.seen);
  }
  if (confirmed) return { outcome: 'confirmed', ticket, alreadyConfirmed: true };
  if (ticket.state !== 'parked') {
    return { outcome: 'conflict', message: `The ticket is ${ticket.state}; only a parked ticket whose reply may already have been sent can be closed as sent`, state: ticket.state };
  }
  const [first] = uncertainSendAttempts(ticket);
  if (!first || !ticket.outbound) {
    return {
      outcome: 'conflict',
      message: "Nothing says this ticket's reply may have reached the customer: no send attempt of it ended without the mail server's answer. Approve it to send it, or reject it.",
      state: ticket.state,
    };
  }
  try {
    const sent = await deps.store.transition(ticket.id, {
      from: ['parked'],
      to: 'sent',
      actor: operatorActor(request.operator),
      note: withNote(ARRIVED_NOTE, note),
      patch: { reason: null, outbound: { ...ticket.outbound, sentAt: first.at, deliveryCheck: { verdict: 'arrived', ...acknowledgementOf(request.operator, note) } } },
      current: ticket,
    });
    return { outcome: 'confirmed', ticket: sent, alreadyConfirmed: false };
  } catch (err) {
    // Another request moved the ticket between our read and our write: decide again on what is stored, so the second
    // of two simultaneous submits of one confirmation finds it done instead of failing.
    if (err instanceof TicketConflictError && mayRetry) return confirmArrivedOnce(deps, request, false);
    const refusal = refusalOf(err, 'close it as sent');
    if (refusal) return refusal;
    throw err;
  }
}

/** True when the entry right after the `seen` ones is a person's closing as undeliverable: a repeated submit's. */
function isUndeliverableCloseAfter(ticket: Ticket, seen: number): boolean {
  const next = ticket.history[seen];
  return next !== undefined && next.from === 'parked' && next.to === 'rejected' && ticket.outbound?.deliveryCheck?.verdict === 'undeliverable';
}

/**
 * Acknowledges and closes a ticket whose reply cannot be delivered ({@link undeliverableWhy}), with who, when and the
 * operator's optional note:
 * - parked (the SMTP server refused the reply for good, or it bounced): `parked → rejected`, actor
 *   `operator:<operator>`, reason {@link UNDELIVERABLE_REASON}, `outbound.deliveryCheck` `undeliverable`. Nothing is
 *   sent. The outcome is a rejection marked `undeliverable`: nobody judged the draft, so the cited sources' trust
 *   learns nothing and no knowledge gap is recorded (a rejection by {@link rejectTicket} does both);
 * - any other state with an unacknowledged bounce (a `sent` reply, whose state is final and whose outcome was
 *   counted): the bounce is acknowledged (`replyBounce.acknowledged`) and leaves the start page's list; the state,
 *   history and outcome stay.
 * Refused, given `seen`, for a ticket that moved on since the page was opened; a repeated submit finds it done.
 */
export async function closeUndeliverable(deps: Pick<ReviewDeps, 'store'>, request: DeliveryRequest): Promise<CloseOutcome> {
  return closeUndeliverableOnce(deps, request, true);
}

async function closeUndeliverableOnce(deps: Pick<ReviewDeps, 'store'>, request: DeliveryRequest, mayRetry: boolean): Promise<CloseOutcome> {
  const read = await ticketAndNote(deps, request);
  if (isRefusal(read)) return read;
  const { ticket, note } = read;
  if (request.seen !== undefined && ticket.history.length !== request.seen) {
    return isUndeliverableCloseAfter(ticket, request.seen) ? { outcome: 'closed', ticket, closedAs: 'rejected', alreadyClosed: true } : changedSince(ticket, request.seen);
  }
  const acknowledgement = acknowledgementOf(request.operator, note);
  try {
    if (ticket.state !== 'parked') {
      const closedBefore = ticket.state === 'rejected' && ticket.outbound?.deliveryCheck?.verdict === 'undeliverable';
      if (!ticket.replyBounce) {
        if (closedBefore) return { outcome: 'closed', ticket, closedAs: 'rejected', alreadyClosed: true };
        return {
          outcome: 'conflict',
          message: `The ticket is ${ticket.state}; only a parked ticket whose reply the mail server refused for good, or a ticket whose reply bounced, can be acknowledged and closed`,
          state: ticket.state,
        };
      }
      // Also mends a closing whose acknowledgement of the bounce did not get written.
      const { ticket: written, changed } = await deps.store.acknowledgeReplyBounce(ticket.id, acknowledgement);
      return { outcome: 'closed', ticket: written, closedAs: closedBefore ? 'rejected' : 'acknowledged', alreadyClosed: closedBefore || !changed };
    }
    const why = undeliverableWhy(ticket);
    if (!why || !ticket.outbound) {
      return {
        outcome: 'conflict',
        message: 'Nothing says this reply cannot be delivered: only a reply the mail server refused for good, or one that bounced, can be acknowledged and closed. Approve the draft to send it, or reject it.',
        state: ticket.state,
      };
    }
    const closed = await deps.store.transition(ticket.id, {
      from: ['parked'],
      to: 'rejected',
      actor: operatorActor(request.operator),
      note: withNote(`${UNDELIVERABLE_NOTE} (${why})`, note),
      patch: { reason: UNDELIVERABLE_REASON, outbound: { ...ticket.outbound, deliveryCheck: { verdict: 'undeliverable', ...acknowledgement } } },
      current: ticket,
    });
    // A parked reply that bounced (sent by an attempt that lost the server's answer) also leaves the bounced list.
    const done = closed.replyBounce && !closed.replyBounce.acknowledged ? (await deps.store.acknowledgeReplyBounce(ticket.id, acknowledgement)).ticket : closed;
    return { outcome: 'closed', ticket: done, closedAs: 'rejected', alreadyClosed: false };
  } catch (err) {
    // As for a confirmation: the second of two simultaneous submits finds the ticket closed.
    if (err instanceof TicketConflictError && mayRetry) return closeUndeliverableOnce(deps, request, false);
    const refusal = refusalOf(err, 'close it');
    if (refusal) return refusal;
    throw err;
  }
}

/**
 * Why an ignored mail must stay unanswered whoever asks, by the kind of check that ignored it (the start of its
 * reason, src/mail/classify.ts `ignoreReasonText`). The other kinds may hide a person's question and can be reopened:
 * an auto-reply or out-of-office header, a list or bulk header (a customer's CRM or mailing tool writes them on
 * ordinary mail), the spam filter's verdict, an address that looks like nobody reads it.
 */
const STAYS_IGNORED: Partial<Record<IgnoreReason, string>> = {
  // A reply would reach a mail server's robot; what the report says about our reply is on that reply's ticket.
  bounce:
    "it is a bounce, a mail server's report on mail we sent: nobody reads a reply to it, and a reply of ours it reports is marked on that reply's ticket. If a customer forwarded a bounce to ask about it, answer them from your own mailbox",
  // Answering our own mail that came back is how a mail loop goes round again.
  loop: 'it is our own mail come back (a mail loop): a reply would send the loop round again',
  // The reply would be mailed to ourselves, and land in the polled mailbox as new mail.
  'own-address': 'it comes from one of our own addresses, or asks for replies to go to one: a reply would be mailed to ourselves',
  'no-sender': 'it has no address a reply may go to',
};

/**
 * Why a person may not reopen this ignored mail ({@link STAYS_IGNORED}), or undefined when they may. A delivery
 * report is a bounce whatever its reason says, and mail without a reply address has nowhere to be answered.
 */
export function whyNotReopenable(ticket: Pick<Ticket, 'reason' | 'replyTo'> & Partial<Pick<Ticket, 'deliveryReport'>>): string | undefined {
  const kind = ignoreKindOf(ticket.reason);
  const why = ticket.deliveryReport ? STAYS_IGNORED.bounce : !ticket.replyTo.trim() ? STAYS_IGNORED['no-sender'] : kind ? STAYS_IGNORED[kind as IgnoreReason] : undefined;
  return why ? `This mail stays unanswered: ${why}` : undefined;
}

/** The reason of a reopened ticket (and its history note): who reopened it and why the checks had ignored it. */
export function reopenReason(operator: string, ignoredAs: string | undefined): string {
  return `reopened by ${operator}: the automatic checks had ignored it (${ignoredAs ?? 'no reason recorded'})`;
}

/** True when a person reopened the ticket after the checks ignored it: its sender may be a machine after all. */
export function reopenedFromIgnored(ticket: Pick<Ticket, 'history'>): boolean {
  return ticket.history.some((h) => h.from === 'ignored' && h.to === 'parked');
}

/** Who reopens which ignored ticket, what their page showed of it, and why (optional). */
export interface ReopenRequest extends DecisionRequest {
  /** Why the checks were wrong, as the operator puts it; appended to the history note. */
  note?: string | undefined;
}

/** Result of {@link reopenIgnored}. */
export type ReopenOutcome =
  | {
      outcome: 'reopened';
      /** The ticket, parked. */
      ticket: Ticket;
      /** True when it was reopened before (a double submit, the command run twice): nothing changed. */
      alreadyReopened: boolean;
    }
  | ReviewRefusal;

/** True when the entry right after the `seen` ones is a person's reopening: a repeated submit's. */
function isReopenAfter(ticket: Ticket, seen: number): boolean {
  const next = ticket.history[seen];
  return next !== undefined && next.from === 'ignored' && next.to === 'parked' && next.actor.startsWith(OPERATOR_PREFIX);
}

/**
 * Reopens mail the automatic checks ignored by mistake (a customer's question from an address that looks automated,
 * or carrying a list header): `ignored → parked`, actor `operator:<operator>`, with the reason and history note
 * {@link reopenReason} (and the operator's note). Nothing is sent: the ticket waits for a person to have the agent
 * draft a reply (always parked for review, see {@link rerunAgent}), write one and approve it, or reject it. Its
 * outcome `ignored` is removed, and the insights take that ending back (src/tickets/insights.ts). Refused for mail
 * that must stay unanswered ({@link whyNotReopenable}), for any state but `ignored`, and, given `seen`, for a ticket
 * that moved on since the page was opened; a repeated submit finds it done.
 */
export async function reopenIgnored(deps: Pick<ReviewDeps, 'store'>, request: ReopenRequest): Promise<ReopenOutcome> {
  return reopenOnce(deps, request, true);
}

async function reopenOnce(deps: Pick<ReviewDeps, 'store'>, request: ReopenRequest, mayRetry: boolean): Promise<ReopenOutcome> {
  const read = await ticketAndNote(deps, request);
  if (isRefusal(read)) return read;
  const { ticket, note } = read;
  if (request.seen !== undefined && ticket.history.length !== request.seen) {
    return isReopenAfter(ticket, request.seen) ? { outcome: 'reopened', ticket, alreadyReopened: true } : changedSince(ticket, request.seen);
  }
  if (ticket.state !== 'ignored') {
    // Asked again without a page (the command run twice): the reopening is the last change, done already.
    if (request.seen === undefined && ticket.state === 'parked' && isReopenAfter(ticket, ticket.history.length - 1)) return { outcome: 'reopened', ticket, alreadyReopened: true };
    return { outcome: 'conflict', message: `The ticket is ${ticket.state}; only an ignored ticket can be reopened`, state: ticket.state };
  }
  const refused = whyNotReopenable(ticket);
  if (refused) return { outcome: 'conflict', message: refused, state: ticket.state };
  const reason = reopenReason(request.operator, ticket.reason);
  try {
    const reopened = await deps.store.transition(ticket.id, { from: ['ignored'], to: 'parked', actor: operatorActor(request.operator), note: withNote(reason, note), patch: { reason }, current: ticket });
    return { outcome: 'reopened', ticket: reopened, alreadyReopened: false };
  } catch (err) {
    // As for a confirmation: the second of two simultaneous submits finds the ticket reopened.
    if (err instanceof TicketConflictError && mayRetry) return reopenOnce(deps, request, false);
    const refusal = refusalOf(err, 'reopen it');
    if (refusal) return refusal;
    throw err;
  }
}

/**
 * The reason of a ticket a person took over while it waited for the model server (and its history note): who, and
 * that the agent no longer answers it. The draft is empty: the person writes the reply.
 */
export function takeOverReason(operator: string): string {
  return `taken over by ${operator} while waiting for the model server: the agent no longer answers it; answer it here`;
}

/** Who takes which waiting ticket from the agent, and what their page showed of it. */
export type TakeOverRequest = DecisionRequest;

/** Result of {@link takeOverTicket}. */
export type TakeOverOutcome =
  | {
      outcome: 'taken-over';
      /** The ticket, parked for the person. */
      ticket: Ticket;
      /** True when it was taken over before (a double submit, the command run twice): nothing changed. */
      alreadyTakenOver: boolean;
    }
  | ReviewRefusal;

/** An agent worker's try of a ticket it keeps (`processing → processing`): a try of the model server while it waits. */
function isAgentTry(entry: HistoryEntry): boolean {
  return entry.from === 'processing' && entry.to === 'processing' && entry.actor === CHECKS_ACTOR;
}

/**
 * True when the entry after the `seen` ones is a person's take-over, past the agent worker's tries of the server that
 * the page did not show: a repeated submit's.
 */
function isTakeOverAfter(ticket: Ticket, seen: number): boolean {
  const next = ticket.history.slice(seen).find((h) => !isAgentTry(h));
  return next !== undefined && next.from === 'processing' && next.to === 'parked' && next.actor.startsWith(OPERATOR_PREFIX);
}

/**
 * True when a page that showed `seen` history entries already showed the ticket's current wait for the model server,
 * and the agent worker's tries of the server are all that happened since (`processing → processing`, one per probe
 * while the wait lasts, up to a minute apart): the ticket is as the person saw it, waiting, and their take-over stands.
 */
function waitSeen(ticket: Ticket, seen: number): boolean {
  const wait = ticket.history.findLastIndex((h) => h.from === 'processing' && h.to === 'processing' && (h.note?.startsWith(MODEL_SERVER_WAIT_NOTE) ?? false));
  if (wait === -1 || wait >= seen || seen > ticket.history.length) return false;
  return ticket.history.slice(wait + 1).every(isAgentTry);
}

/** Why a ticket that does not wait for the model server cannot be taken over, in words of no surface. */
function notWaitingRefusal(ticket: Ticket): ReviewRefusal {
  const message =
    ticket.state === 'processing'
      ? 'The agent is answering this ticket right now (it is not waiting for the model server): only a ticket waiting for the model server can be taken over. Its draft is parked for review or sent as any other.'
      : `The ticket is ${ticket.state}; only a ticket waiting for the model server (processing) can be taken over${ticket.state === 'parked' ? ': approve, edit or reject it as any parked ticket' : ''}`;
  return { outcome: 'conflict', message, state: ticket.state };
}

/**
 * "Answer it yourself": a person takes a ticket that waits for the model server ({@link waitsForModelServer}) from the
 * agent, `processing → parked` (actor `operator:<operator>`) with the reason {@link takeOverReason} and no draft, to
 * write the reply and approve it (or reject it). The write is a compare-and-set on the ticket as read here (its version
 * and history length): a wait that ended meanwhile (the model answered and the agent parked or drafted it) refuses
 * it, and an agent run under way when it lands finds the ticket parked when it stores its draft and leaves it, as a
 * later run does (jobs/answer-ticket.ts). Refused for any other ticket: the agent is answering it right now, or it is
 * not the agent's. Given `seen`, refused for a ticket that moved on since the page was opened, but for the agent
 * worker's tries of the server while it waits ({@link waitSeen}); a repeated submit finds it done.
 */
export async function takeOverTicket(deps: Pick<ReviewDeps, 'store'>, request: TakeOverRequest): Promise<TakeOverOutcome> {
  return takeOverOnce(deps, request, true);
}

async function takeOverOnce(deps: Pick<ReviewDeps, 'store'>, request: TakeOverRequest, mayRetry: boolean): Promise<TakeOverOutcome> {
  const badId = checkId(request.ticketId);
  if (badId) return badId;
  const ticket = await deps.store.get(request.ticketId, { agentResult: false });
  if (!ticket) return { outcome: 'not-found', message: `Ticket ${request.ticketId} not found` };
  if (request.seen !== undefined && ticket.history.length !== request.seen) {
    if (isTakeOverAfter(ticket, request.seen)) return { outcome: 'taken-over', ticket, alreadyTakenOver: true };
    // The agent worker tried the server again since the page was read: the ticket still waits as it showed.
    if (!(waitsForModelServer(ticket) && waitSeen(ticket, request.seen))) return changedSince(ticket, request.seen);
  }
  if (!waitsForModelServer(ticket)) {
    // Asked again without a page (the command run twice): the take-over is the last change, done already.
    if (request.seen === undefined && ticket.state === 'parked' && isTakeOverAfter(ticket, ticket.history.length - 1)) return { outcome: 'taken-over', ticket, alreadyTakenOver: true };
    return notWaitingRefusal(ticket);
  }
  const reason = takeOverReason(request.operator);
  try {
    const taken = await deps.store.transition(ticket.id, {
      from: ['processing'],
      to: 'parked',
      // On the wait this read saw: a run that resumed or parked since changed the history, and the ticket is refused.
      ifHistoryLength: ticket.history.length,
      current: ticket,
      actor: operatorActor(request.operator),
      note: reason,
      patch: { reason, draft: null },
    });
    return { outcome: 'taken-over', ticket: taken, alreadyTakenOver: false };
  } catch (err) {
    // The second of two simultaneous submits finds it taken over; a wait that ended meanwhile is refused as such.
    if (err instanceof TicketConflictError && mayRetry) return takeOverOnce(deps, request, false);
    const refusal = refusalOf(err, 'take it over');
    if (refusal) return refusal;
    throw err;
  }
}
