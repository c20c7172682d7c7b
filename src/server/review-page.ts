/**
 * Handlers of the review page: the list of parked tickets (or of another state's, or the tickets a search finds), a
 * ticket's detail view, and the form posts (approve, reject, get a new draft, close as sent a reply that arrived,
 * acknowledge and close one that cannot be delivered, reopen mail the checks ignored by mistake, take over a ticket that
 * waits for the model server, reindex) that answer
 * with a 303 redirect to a page saying what happened.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Config } from '../config.js';
import { learnedPairIdOf, type LearnedAnswerStore } from '../knowledge/learned-answers.js';
import type { Logger } from '../logger.js';
import { removeInvisible } from '../mail/invisible.js';
import { parseInboundMail } from '../mail/parse.js';
import { RAW_REF_SCHEME, loadRaw } from '../mail/raw-store.js';
import type { Queues } from '../queues/registry.js';
import { outcomeOnEntering } from '../tickets/outcome.js';
import { quoteOmission, type QuoteConfig } from '../tickets/quote-omission.js';
import { describeStanding, isReview, labelledSources, parkedForTrust, readReviewEntry, readStanding, reviewEntry, reviewedSources, usedLabelledSources, type Review, type TrustSettings } from '../tickets/trust.js';
import { TICKET_ID_PATTERN, TICKET_STATES, type Ticket } from '../tickets/ticket.js';
import type { TicketStore } from '../tickets/ticket-store.js';
import { ANONYMOUS_OPERATOR, type CsrfTokens } from './auth.js';
import { HttpError, type ErrorRenderer, type Handler, type HandlerResult } from './http.js';
import { requestReindex } from './reindex-action.js';
import { MAX_SEARCH_CHARS, SEARCH_SCAN_LIMIT, searchTickets, searchWords, ticketsByReference, type TicketReference } from './ticket-search.js';
import { DEFAULT_TUNING } from '../queues/job-options.js';
import {
  CONVERSATION_SEEN,
  NO_COPY_CHECKED,
  READ_NEWER_MAIL,
  SENDER_VERIFIED,
  approveTicket,
  closeUndeliverable,
  confirmArrived,
  conversationAround,
  laterMailCounts,
  rejectTicket,
  reopenIgnored,
  rerunAgent,
  sendRetryStatus,
  takeOverTicket,
  type RerunDeps,
  type ReviewDeps,
  type ReviewRefusal,
} from '../tickets/review.js';
import { renderMessagePage, renderTicketDetail, renderTicketList, type DeploymentProblem, type Flash, type LearningView, type SubmittedText } from './views.js';

/** Parked tickets per page of the list. */
export const PAGE_SIZE = 50;

/** Matches one search on the start page shows. */
export const SEARCH_RESULTS_SHOWN = 100;

/** What the review page needs. */
export interface ReviewPageDeps {
  store: TicketStore;
  /** Producer connection: raw mail, and the queue adds' error mapping. */
  redis: Redis;
  /** QUEUE_PREFIX, for the raw mail store. */
  prefix: string;
  review: ReviewDeps;
  /** For "answer it again with the agent". */
  rerun: RerunDeps;
  /** Where "Reindex now" queues its jobs, and whether a scheduler listens there to take them. */
  maintenance: Pick<Queues['maintenance'], 'add' | 'getWorkersCount'>;
  csrf: CsrfTokens;
  now: () => Date;
  logger: Logger;
  /**
   * The learned answers, to name the ticket that taught a learned pair among a ticket's sources, and to list the
   * candidates and pairs a ticket's approval taught.
   */
  learned?: Pick<LearnedAnswerStore, 'pair' | 'taughtBy'>;
  /**
   * What decides whether a reply quotes the customer's mail: the page shows the sender's decision
   * ({@link quoteOmission}) beside the draft, before anyone approves it.
   */
  quoting: QuoteConfig;
  /**
   * What is wrong with the deployment now, one banner each on the start page: the failing `/readyz` checks of the
   * poller, the agent workers and the senders, and the indexes whose last queued reindex failed, in red; a failed
   * poll while the last good one is still recent, in yellow. The operator learns that no mail comes in, no answer is
   * written, no reply goes out or the knowledge is not current, where they work.
   */
  deploymentProblems?: () => Promise<DeploymentProblem[]>;
  /** The IANA zone the pages show times in (the deployment's `TZ`); UTC when absent. */
  timeZone?: string;
  /** Most tickets one search reads (default {@link SEARCH_SCAN_LIMIT}). */
  searchScanLimit?: number;
  /**
   * The review mode and the trust settings: a draft parked for trust shows its sources' standing as it is now, and
   * in `learn` an approval says how its sources will stand. Without them, neither is shown.
   */
  trust?: TrustSettings & Pick<Config, 'REVIEW_MODE'>;
}

/** Sources an approval's message lists; the rest are counted. */
const STANDING_SHOWN = 8;

/** The learned pairs among a ticket's sources → the ticket that taught each (null when removed since). */
async function learnedSourcesOf(ticket: Ticket, learned: ReviewPageDeps['learned']): Promise<Map<string, string | null> | undefined> {
  const names = (ticket.agent?.sources ?? []).map((s) => s.fileName).filter((name) => learnedPairIdOf(name) !== undefined);
  if (!learned || names.length === 0) return undefined;
  const pairs = await Promise.all(names.map((name) => learned.pair(learnedPairIdOf(name)!)));
  return new Map(names.map((name, i) => [name, pairs[i]?.ticketId ?? null]));
}

/** Error pages of the review routes: the message on a page with a way back. */
export function htmlErrorRenderer(): ErrorRenderer {
  return (status, message, user) => ({ status, html: renderMessagePage({ status, message, user }) });
}

const DONE_VALUES = ['approved', 'requeued', 'rejected', 'rerun', 'arrived', 'closed', 'acknowledged', 'reopened', 'taken-over', 'reindex'] as const;
/** The orders of the list: oldest first (the default: the longest-waiting customer on top) or newest first. */
const LIST_ORDERS = ['oldest', 'newest'] as const;
/** The order of the parked list. */
export type ListOrder = (typeof LIST_ORDERS)[number];

const listQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  order: z.enum(LIST_ORDERS).default('oldest'),
  // The tickets of another state than parked, newest first: ignored mail to reopen, what was sent or rejected.
  state: z.enum(TICKET_STATES).optional(),
  done: z.enum(DONE_VALUES).optional(),
  ticket: z.string().regex(TICKET_ID_PATTERN).optional(),
  // A search: what was typed, and how many of the newest tickets an earlier search of it already read.
  q: z.string().max(MAX_SEARCH_CHARS).optional(),
  skip: z.coerce.number().int().min(0).max(100_000_000).default(0),
});

/**
 * The ticket's subject, quoted, for a flash message. The message is text, where no <bdi> can isolate the subject: its
 * text-direction controls (left in tickets parsed before subjects lost them) are dropped instead, so they cannot
 * reorder the words after it.
 */
function subjectOf(ticket: Ticket | undefined): string {
  return ticket?.subject ? `“${removeInvisible(ticket.subject).text}”` : 'the ticket';
}

/**
 * The sources of a draft parked for trust alone, each with its standing read now: the stored reason keeps the counts
 * of when it was parked, and other approvals may have raised them since.
 */
async function learningOf(ticket: Ticket, deps: ReviewPageDeps): Promise<LearningView | undefined> {
  if (!deps.trust || ticket.state !== 'parked' || !ticket.agent || !parkedForTrust(ticket.reason)) return undefined;
  // The sources the learn gate asked of the agent's answer (learnVerdict), which an approval as is credits.
  const sources = usedLabelledSources(ticket.agent, ticket.agent.answer);
  if (sources.length === 0) return undefined;
  const standing = await readStanding(deps.redis, deps.prefix, sources.map((s) => s.key), deps.trust);
  return { sources: sources.map((s, i) => ({ label: s.label, standing: standing[i]! })) };
}

/**
 * The review an approved ticket records once its reply is sent (the sender records it then), so the message after
 * the approval counts it already; undefined when it records none.
 */
function reviewOnSending(ticket: Ticket, now: Date): Review | undefined {
  const outcome = outcomeOnEntering(ticket, 'sent', now.toISOString());
  return outcome && isReview(outcome) ? readReviewEntry(reviewEntry(outcome, ticket.id)) : undefined;
}

/**
 * In `learn`, how each source of an approved draft stands with this approval counted: `<label>: 3 of 5 approved
 * unchanged — 2 more …`. Undefined in the other modes, where trust sends nothing, or when the draft cites no source.
 */
async function standingAfterApproval(ticket: Ticket | undefined, deps: ReviewPageDeps): Promise<string[] | undefined> {
  if (deps.trust?.REVIEW_MODE !== 'learn' || !ticket?.agent) return undefined;
  // The ones its review is recorded on when it is sent (reviewedSources): those the agent's draft and the approved
  // reply (the stored draft) used.
  const reviewed = new Set(reviewedSources(ticket.agent, ticket.draft ?? ticket.agent.answer).map((s) => s.key));
  const sources = labelledSources(ticket.agent).filter((s) => reviewed.has(s.key));
  if (sources.length === 0) return undefined;
  const standing = await readStanding(deps.redis, deps.prefix, sources.map((s) => s.key), deps.trust, reviewOnSending(ticket, deps.now()));
  const lines = sources.slice(0, STANDING_SHOWN).map((s, i) => `${s.label}: ${describeStanding(standing[i]!)}`);
  return sources.length > STANDING_SHOWN ? [...lines, `and ${sources.length - STANDING_SHOWN} more`] : lines;
}

/** What an approval did: queued (or, on a reload once it went out, sent), and in `learn` where its sources stand. */
async function approvedFlash(ticket: Ticket | undefined, deps: ReviewPageDeps): Promise<Flash> {
  const sent = ticket?.state === 'sent';
  const message = `Approved ${subjectOf(ticket)}: ${sent ? 'the reply was sent.' : 'the reply is queued for sending.'}`;
  const details = await standingAfterApproval(ticket, deps);
  if (!details) return { kind: 'ok', message };
  return { kind: 'ok', message: `${message} ${sent ? 'Its sources now stand:' : 'Once it is sent, it counts toward trusting its sources, which then stand:'}`, details };
}

/**
 * The flash after "Reindex now". The scheduler role takes the jobs; while none runs they wait in silence and `/readyz`
 * stays ready, so the page says so when BullMQ sees no worker on the queue. A Redis that refuses CLIENT LIST (some
 * managed ones) leaves that unknown, and the page asks instead.
 */
async function reindexFlash(maintenance: ReviewPageDeps['maintenance']): Promise<Flash> {
  const queued = 'Reindex queued: the scheduler rebuilds the manual and the Q&A index';
  const listening = await maintenance.getWorkersCount().catch(() => undefined);
  if (listening === undefined) return { kind: 'ok', message: `${queued} (is npm run scheduler running?).` };
  if (listening > 0) return { kind: 'ok', message: `${queued}.` };
  return { kind: 'bad', message: `${queued}, but none is connected now: is npm run scheduler (or npm start, or the compose service) running? The jobs wait until one is.` };
}

async function flashFor(done: (typeof DONE_VALUES)[number] | undefined, ticketId: string | undefined, deps: ReviewPageDeps): Promise<Flash | undefined> {
  if (!done) return undefined;
  if (done === 'reindex') return reindexFlash(deps.maintenance);
  const ticket = ticketId ? await deps.store.get(ticketId) : undefined;
  switch (done) {
    case 'approved':
      return approvedFlash(ticket, deps);
    case 'requeued':
      return { kind: 'ok', message: `${subjectOf(ticket)} was already approved; its reply is queued for sending.` };
    case 'rejected':
      return { kind: 'ok', message: `Rejected ${subjectOf(ticket)}: no reply will be sent.` };
    case 'rerun':
      return { kind: 'ok', message: `${subjectOf(ticket)} is back with the agent: its new draft will be parked for your review; nothing is sent without you.` };
    case 'arrived':
      return { kind: 'ok', message: `Closed ${subjectOf(ticket)} as sent: you confirmed the reply arrived; nothing was sent again.` };
    case 'closed':
      return { kind: 'ok', message: `Closed ${subjectOf(ticket)} without a reply: it cannot be delivered; nothing will be sent.` };
    case 'acknowledged':
      return { kind: 'ok', message: `Acknowledged the bounce of ${subjectOf(ticket)}: it is no longer listed under “Replies that did not arrive”.` };
    case 'reopened':
      return {
        kind: 'ok',
        message: `Reopened ${subjectOf(ticket)}: it waits for review. “Get a new draft” has the agent write one (it comes back here), or write the reply and approve it, or reject it; nothing is sent without you.`,
      };
    case 'taken-over':
      return { kind: 'ok', message: `You took over ${subjectOf(ticket)}: the agent no longer answers it. Write the reply below and approve it, or reject it; nothing is sent without you.` };
  }
}

/** The mail's full text (stored on the ticket at ingest, else from the raw store), or why it is not shown. */
async function mailTextOf(ticket: Ticket, deps: ReviewPageDeps): Promise<{ text?: string; note?: string }> {
  const fallback = 'showing the question extracted from it';
  // The text made at ingest: a page view parses nothing. Older tickets fall back to the raw mail below.
  if (ticket.mailText !== undefined) return ticket.mailText.trim() ? { text: ticket.mailText } : { note: `The mail has no text part; ${fallback}.` };
  if (!ticket.rawRef?.startsWith(RAW_REF_SCHEME)) return { note: `The mail was not downloaded; ${fallback}.` };
  const raw = await loadRaw(deps.redis, deps.prefix, ticket.id);
  if (!raw) return { note: `The raw mail is no longer stored; ${fallback}.` };
  try {
    const mail = await parseInboundMail(raw);
    return mail.text.trim() ? { text: mail.text } : { note: `The mail has no text part; ${fallback}.` };
  } catch (err) {
    deps.logger.warn({ ticketId: ticket.id, err }, 'Stored mail could not be parsed for display');
    return { note: `The stored mail could not be parsed; ${fallback}.` };
  }
}

/**
 * The page of a refused form post, in the frame of the other review pages (who is signed in, the way back to the
 * ticket); `submitted`, what the operator typed, is shown read-only so it is not lost.
 */
function refusalPage(refusal: ReviewRefusal, ticketId: string, user: string | undefined, submitted?: SubmittedText): HandlerResult {
  const status = refusal.outcome === 'not-found' ? 404 : refusal.outcome === 'conflict' ? 409 : 400;
  const back = TICKET_ID_PATTERN.test(ticketId) && refusal.outcome !== 'not-found' ? `/tickets/${ticketId}` : '/';
  return { status, html: renderMessagePage({ status, message: refusal.message, user, back, submitted, section: 'review' }) };
}

/**
 * A form post's handler whose refusals of the form itself (an {@link HttpError} 400: not filled in as the page fills
 * it) show on the frame of the other review pages, as its decision's refusals do, rather than the bare error page.
 */
function framedForm(handler: Handler): Handler {
  return async (request) => {
    try {
      return await handler(request);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 400) throw err;
      return refusalPage({ outcome: 'invalid', message: err.message }, request.params.id ?? '', request.user);
    }
  };
}

// `seen`: the history length the page showed (see DecisionRequest.seen); every decision form carries it, in decimal
// digits. Coerced as a number, an empty field was 0 and `0x3` or `3e0` was 3: none of them is what a page wrote.
const seenField = z
  .string()
  .regex(/^\d{1,7}$/)
  .transform(Number)
  .pipe(z.number().int().max(1_000_000))
  .optional();
// The checkbox of a reply that may already have been sent: present (any value) only when ticked.
// The ticks of the later mail and of a possibly forged sender likewise; `conversationSeen`: the newest mail of the
// conversation the page showed (see ApproveRequest.conversationSeen).
const tick = z.string().max(10).optional();
const approveFormSchema = z.object({
  reply: z.string().max(200_000).optional(),
  seen: seenField,
  [CONVERSATION_SEEN]: z.string().max(40).optional(),
  [NO_COPY_CHECKED]: tick,
  [READ_NEWER_MAIL]: tick,
  [SENDER_VERIFIED]: tick,
});

// The API's rule (NEITHER_REPLY_NOR_SEEN) in the page's words: the page always sends the reply and `seen` (hidden),
// so an approval without them, or with a `seen` the page never writes, came from no page of the ticket as it is.
const NAMES_NO_DRAFT_STEP = 'Open the ticket again, read its draft and press “Approve and send”.';
const FORM_NAMES_NO_DRAFT = `Nothing was sent: this approval did not say which draft you read, as “Approve and send” on the ticket’s page does. ${NAMES_NO_DRAFT_STEP}`;
// A `seen` that is a number but names no draft the ticket ever had (approveTicket's `seenNamesNoDraft`).
const FORM_SEEN_NAMES_NO_DRAFT = `Nothing was sent: this approval names no draft of this ticket; it did not come from the ticket’s page as the page wrote it. ${NAMES_NO_DRAFT_STEP}`;

const rejectFormSchema = z.object({ reason: z.string().max(10_000).default(''), seen: seenField });
const rerunFormSchema = z.object({ seen: seenField });
const deliveryFormSchema = z.object({ note: z.string().max(10_000).optional(), seen: seenField });
const reopenFormSchema = z.object({ note: z.string().max(10_000).optional(), seen: seenField });
const takeOverFormSchema = z.object({ seen: seenField });

const FORM_NOT_AS_FILLED = 'The form was not filled in as expected; reload the page and try again';

function parseForm<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw new HttpError(400, FORM_NOT_AS_FILLED);
  return parsed.data;
}

/** The reply an approve form carried, to show on its refusal page so it is not lost. */
function submittedReply(body: unknown): SubmittedText {
  const reply = (body as { reply?: unknown } | undefined)?.reply;
  return { label: 'Your reply', text: typeof reply === 'string' ? reply : '' };
}

/** Bounced replies listed on the start page; the card says how many more there are. */
const BOUNCED_SHOWN = 10;

// Every parked ticket was created before this: the upper bound of "created at or before" on the state's index.
const ANY_TIME = Number.MAX_SAFE_INTEGER;

/**
 * A page of parked tickets in `order`. Oldest first reads the state's index from its low end, which the store offers
 * as `idsCreatedBefore`; the count is the state's.
 */
async function parkedPage(store: TicketStore, order: ListOrder, page: number, total: number): Promise<{ tickets: Ticket[]; total: number }> {
  const offset = (page - 1) * PAGE_SIZE;
  if (order === 'newest') return store.list({ state: 'parked', limit: PAGE_SIZE, offset });
  return { tickets: await store.getMany(await store.idsCreatedBefore('parked', ANY_TIME, PAGE_SIZE, offset)), total };
}

/** A page of the tickets the start page lists: parked ones in `order`, or another state's newest first. */
async function listedPage(store: TicketStore, state: Ticket['state'], order: ListOrder, page: number, total: number): Promise<{ tickets: Ticket[]; total: number }> {
  if (state === 'parked') return parkedPage(store, order, page, total);
  return store.list({ state, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
}

/**
 * Where the page goes after a decision on `decided`: the longest-waiting other parked ticket, saying what was done
 * (the operator works through the queue without going back to the list), else the list.
 */
async function afterDecision(store: TicketStore, done: (typeof DONE_VALUES)[number], decided: string): Promise<string> {
  const next = await nextToReview(store, decided);
  return next ? `/tickets/${next}?done=${done}&ticket=${decided}` : `/?done=${done}&ticket=${decided}`;
}

/**
 * The ticket the review flow opens next: the longest-waiting parked one other than `decided`. The start page's first
 * tab stop leads there too, so the keyboard and the flow agree on where the queue starts.
 */
async function nextToReview(store: TicketStore, decided?: string): Promise<string | undefined> {
  // Two ids: the decided ticket may still be parked (a refused race) and first in line.
  return (await store.idsCreatedBefore('parked', ANY_TIME, 2)).find((id) => id !== decided);
}

/**
 * The page of `/tickets/<name>` where the name is no whole ticket id: a start of one or a Message-ID (as the CLI takes
 * them) leads to its ticket; a start several ids share lists them (300); anything else is no ticket.
 */
function referencedTicket(reference: TicketReference | undefined, user: string | undefined): HandlerResult {
  const [only] = reference?.tickets ?? [];
  if (!reference || !only) throw new HttpError(404, 'No such ticket');
  if (reference.tickets.length === 1 && !reference.more) return { status: 303, location: `/tickets/${only.id}` };
  const ids = reference.tickets.map((t) => t.id).join(', ');
  const message = `${reference.text} is the start of more than one ticket id: ${ids}${reference.more ? ', and more' : ''}. Open one, or give more characters.`;
  return { status: 300, html: renderMessagePage({ status: 300, message, user }) };
}

const detailQuerySchema = z.object({ done: z.enum(DONE_VALUES).optional(), ticket: z.string().regex(TICKET_ID_PATTERN).optional() });

/** The review page's handlers. */
export function reviewPageHandlers(deps: ReviewPageDeps): Record<'list' | 'detail' | 'approve' | 'reject' | 'rerun' | 'arrived' | 'close' | 'reopen' | 'takeOver' | 'reindex', Handler> {
  const operator = (user: string | undefined) => user ?? ANONYMOUS_OPERATOR;
  const csrfToken = (user: string | undefined) => deps.csrf.tokenFor(operator(user));

  const handlers: ReturnType<typeof reviewPageHandlers> = {
    async list({ query, user }) {
      const parsed = listQuerySchema.safeParse(query);
      if (!parsed.success) {
        const tooLong = parsed.error.issues.some((i) => i.path[0] === 'q');
        throw new HttpError(400, tooLong ? `A search has at most ${MAX_SEARCH_CHARS} characters` : 'Invalid page address');
      }
      const { page, order, done, ticket, q, skip } = parsed.data;
      const state = parsed.data.state ?? 'parked';
      // A blank search is none: the parked list, as without one.
      const searching = q !== undefined && searchWords(q).length > 0;
      // A ticket's own name (its id, a start of it, its mail's Message-ID) opens that ticket, as the CLI takes it.
      const reference = searching && skip === 0 ? await ticketsByReference(deps.store, q) : undefined;
      const [only] = reference?.tickets ?? [];
      if (only && reference?.tickets.length === 1 && !reference.more) return { status: 303, location: `/tickets/${only.id}` };
      const scanLimit = deps.searchScanLimit ?? SEARCH_SCAN_LIMIT;
      const counts = await deps.store.countByState();
      const [list, flash, problems, bounced, found, next] = await Promise.all([
        searching ? { tickets: [], total: counts[state] } : listedPage(deps.store, state, order, page, counts[state]),
        flashFor(done, ticket, deps),
        deps.deploymentProblems?.() ?? [],
        searching || state !== 'parked' ? undefined : deps.store.bouncedReplies(BOUNCED_SHOWN),
        searching ? searchTickets(deps.store, { text: q, skip, scanLimit, resultLimit: SEARCH_RESULTS_SHOWN }) : undefined,
        counts.parked > 0 ? nextToReview(deps.store) : undefined,
      ]);
      const laterMail = !searching && state === 'parked' ? await laterMailCounts(deps, list.tickets) : undefined;
      return {
        status: 200,
        html: renderTicketList({
          tickets: list.tickets,
          total: list.total,
          page,
          pageSize: PAGE_SIZE,
          order,
          state,
          counts,
          now: deps.now(),
          csrfToken: csrfToken(user),
          user,
          flash,
          problems,
          bounced,
          timeZone: deps.timeZone,
          search: found && q !== undefined ? { text: q, result: found, scanLimit, resultLimit: SEARCH_RESULTS_SHOWN, reference } : undefined,
          laterMail,
          nextToReview: next,
        }),
      };
    },

    async detail({ params, query, user }) {
      const id = params.id ?? '';
      if (!TICKET_ID_PATTERN.test(id)) return referencedTicket(await ticketsByReference(deps.store, id), user);
      const ticket = await deps.store.get(id);
      if (!ticket) throw new HttpError(404, 'No such ticket');
      // What the decision on the previous ticket did, when this page is where it led.
      const decided = detailQuerySchema.safeParse(query);
      const [mail, learnedSources, flash, conversation, learning, taught] = await Promise.all([
        mailTextOf(ticket, deps),
        learnedSourcesOf(ticket, deps.learned),
        decided.success ? flashFor(decided.data.done, decided.data.ticket, deps) : undefined,
        conversationAround(deps, ticket),
        learningOf(ticket, deps),
        deps.learned?.taughtBy(ticket.id),
      ]);
      return {
        status: 200,
        html: renderTicketDetail({
          ticket,
          mailText: mail.text,
          mailTextNote: mail.note,
          learnedSources,
          taught,
          quoteOmitted: quoteOmission(ticket, deps.quoting),
          now: deps.now(),
          csrfToken: csrfToken(user),
          user,
          flash,
          timeZone: deps.timeZone,
          conversation,
          sendRetry: sendRetryStatus(ticket, { attempts: deps.review.config.SENDER_ATTEMPTS, backoffMs: (deps.review.tuning ?? DEFAULT_TUNING).sendBackoffMs }),
          learning,
        }),
      };
    },

    async approve({ params, body, user }) {
      const ticketId = params.id ?? '';
      const parsed = approveFormSchema.safeParse(body ?? {});
      const submitted = submittedReply(body);
      // A `seen` the page never writes (not decimal digits) names no draft, as the lack of it and of the reply does.
      // Any other refusal of the form still shows the reply typed (one over the limit, bug review 41b).
      if (!parsed.success && !parsed.error.issues.some((issue) => issue.path[0] === 'seen')) {
        return refusalPage({ outcome: 'invalid', message: FORM_NOT_AS_FILLED }, ticketId, user, submitted);
      }
      const form = parsed.data;
      if (!form || (form.reply === undefined && form.seen === undefined)) return refusalPage({ outcome: 'invalid', message: FORM_NAMES_NO_DRAFT }, ticketId, user, submitted);
      const outcome = await approveTicket(deps.review, {
        ticketId,
        operator: operator(user),
        reply: form.reply,
        seen: form.seen,
        checkedNoCopy: form[NO_COPY_CHECKED] !== undefined,
        conversationSeen: form[CONVERSATION_SEEN],
        readNewerMail: form[READ_NEWER_MAIL] !== undefined,
        senderVerified: form[SENDER_VERIFIED] !== undefined,
      });
      if (outcome.outcome === 'invalid' && outcome.seenNamesNoDraft !== undefined) {
        return refusalPage({ outcome: 'invalid', message: FORM_SEEN_NAMES_NO_DRAFT }, ticketId, user, submitted);
      }
      if (outcome.outcome !== 'approved') return refusalPage(outcome, ticketId, user, submitted);
      return { status: 303, location: await afterDecision(deps.store, outcome.alreadyApproved ? 'requeued' : 'approved', outcome.ticket.id) };
    },

    async reject({ params, body, user }) {
      const ticketId = params.id ?? '';
      const form = parseForm(rejectFormSchema, body);
      const outcome = await rejectTicket(deps.review, { ticketId, operator: operator(user), reason: form.reason, seen: form.seen });
      if (outcome.outcome !== 'rejected') return refusalPage(outcome, ticketId, user, { label: 'Your reason', text: form.reason });
      return { status: 303, location: await afterDecision(deps.store, 'rejected', outcome.ticket.id) };
    },

    async rerun({ params, body, user }) {
      const ticketId = params.id ?? '';
      const form = parseForm(rerunFormSchema, body);
      // The person is on the ticket's page: the new draft comes back to them, never out on its own.
      const outcome = await rerunAgent(deps.rerun, { ticketId, operator: operator(user), seen: form.seen, forReview: true });
      if (outcome.outcome !== 'requeued') return refusalPage(outcome, ticketId, user);
      return { status: 303, location: await afterDecision(deps.store, 'rerun', outcome.ticket.id) };
    },

    async arrived({ params, body, user }) {
      const ticketId = params.id ?? '';
      const form = parseForm(deliveryFormSchema, body);
      const outcome = await confirmArrived(deps.review, { ticketId, operator: operator(user), note: form.note, seen: form.seen });
      if (outcome.outcome !== 'confirmed') return refusalPage(outcome, ticketId, user, { label: 'Your note', text: form.note ?? '' });
      return { status: 303, location: await afterDecision(deps.store, 'arrived', outcome.ticket.id) };
    },

    async close({ params, body, user }) {
      const ticketId = params.id ?? '';
      const form = parseForm(deliveryFormSchema, body);
      const outcome = await closeUndeliverable(deps.review, { ticketId, operator: operator(user), note: form.note, seen: form.seen });
      if (outcome.outcome !== 'closed') return refusalPage(outcome, ticketId, user, { label: 'Your note', text: form.note ?? '' });
      return { status: 303, location: await afterDecision(deps.store, outcome.closedAs === 'acknowledged' ? 'acknowledged' : 'closed', outcome.ticket.id) };
    },

    async reopen({ params, body, user }) {
      const ticketId = params.id ?? '';
      const form = parseForm(reopenFormSchema, body);
      const outcome = await reopenIgnored(deps.review, { ticketId, operator: operator(user), note: form.note, seen: form.seen });
      if (outcome.outcome !== 'reopened') return refusalPage(outcome, ticketId, user, { label: 'Your note', text: form.note ?? '' });
      // The next step (a draft from the agent, or a reply of the operator's own) is taken on this ticket, not the next.
      return { status: 303, location: `/tickets/${outcome.ticket.id}?done=reopened&ticket=${outcome.ticket.id}` };
    },

    async takeOver({ params, body, user }) {
      const ticketId = params.id ?? '';
      const form = parseForm(takeOverFormSchema, body);
      const outcome = await takeOverTicket(deps.review, { ticketId, operator: operator(user), seen: form.seen });
      if (outcome.outcome !== 'taken-over') return refusalPage(outcome, ticketId, user);
      // The operator writes the reply on this ticket, not the next.
      return { status: 303, location: `/tickets/${outcome.ticket.id}?done=taken-over&ticket=${outcome.ticket.id}` };
    },

    async reindex() {
      await requestReindex({ maintenance: deps.maintenance, redis: deps.redis, ...(deps.review.tuning ? { tuning: deps.review.tuning } : {}) });
      return { status: 303, location: '/?done=reindex' };
    },
  };
  const forms = ['approve', 'reject', 'rerun', 'arrived', 'close', 'reopen', 'takeOver'] as const;
  return { ...handlers, ...Object.fromEntries(forms.map((name) => [name, framedForm(handlers[name])])) };
}
