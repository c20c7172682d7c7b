/**
 * Handlers of the review page: the list of parked tickets, a ticket's detail view, and the form posts (approve,
 * reject, reindex) that answer with a 303 redirect to a page saying what happened.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { learnedPairIdOf, type LearnedAnswerStore } from '../knowledge/learned-answers.js';
import type { Logger } from '../logger.js';
import { parseInboundMail } from '../mail/parse.js';
import { RAW_REF_SCHEME, loadRaw } from '../mail/raw-store.js';
import type { Queues } from '../queues/registry.js';
import { TICKET_ID_PATTERN, type Ticket } from '../tickets/ticket.js';
import type { TicketStore } from '../tickets/ticket-store.js';
import { ANONYMOUS_OPERATOR, type CsrfTokens } from './auth.js';
import { HttpError, type ErrorRenderer, type Handler, type HandlerResult } from './http.js';
import { requestReindex } from './reindex-action.js';
import { approveTicket, rejectTicket, rerunAgent, type RerunDeps, type ReviewDeps, type ReviewRefusal } from '../tickets/review.js';
import { renderMessagePage, renderTicketDetail, renderTicketList, type Flash } from './views.js';

/** Parked tickets per page of the list. */
export const PAGE_SIZE = 50;

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
  maintenance: Pick<Queues['maintenance'], 'add'>;
  csrf: CsrfTokens;
  now: () => Date;
  logger: Logger;
  /** The learned answers, to name the ticket that taught a learned pair among a ticket's sources. */
  learned?: Pick<LearnedAnswerStore, 'pair'>;
  /**
   * What is wrong with the deployment now, one sentence each, for red banners on the start page: the failing
   * `/readyz` checks of the poller, the agent workers and the senders (their details), and the indexes whose last
   * queued reindex failed. The operator learns that no mail comes in, no answer is written, no reply goes out or the
   * knowledge is not current, where they work.
   */
  deploymentProblems?: () => Promise<string[]>;
}

/** The learned pairs among a ticket's sources → the ticket that taught each (null when removed since). */
async function learnedSourcesOf(ticket: Ticket, learned: ReviewPageDeps['learned']): Promise<Map<string, string | null> | undefined> {
  const names = (ticket.agent?.sources ?? []).map((s) => s.fileName).filter((name) => learnedPairIdOf(name) !== undefined);
  if (!learned || names.length === 0) return undefined;
  const pairs = await Promise.all(names.map((name) => learned.pair(learnedPairIdOf(name)!)));
  return new Map(names.map((name, i) => [name, pairs[i]?.ticketId ?? null]));
}

/** Error pages of the review routes: the message on a page with a way back. */
export function htmlErrorRenderer(): ErrorRenderer {
  return (status, message) => ({ status, html: renderMessagePage({ status, message, user: undefined }) });
}

const DONE_VALUES = ['approved', 'requeued', 'rejected', 'rerun', 'reindex'] as const;
const listQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  done: z.enum(DONE_VALUES).optional(),
  ticket: z.string().regex(TICKET_ID_PATTERN).optional(),
});

function subjectOf(ticket: Ticket | undefined): string {
  return ticket?.subject ? `“${ticket.subject}”` : 'the ticket';
}

async function flashFor(done: (typeof DONE_VALUES)[number] | undefined, ticketId: string | undefined, store: TicketStore): Promise<Flash | undefined> {
  if (!done) return undefined;
  if (done === 'reindex') return { kind: 'ok', message: 'Reindex queued: an agent worker will rebuild the manual and the Q&A index.' };
  const ticket = ticketId ? await store.get(ticketId) : undefined;
  switch (done) {
    case 'approved':
      return { kind: 'ok', message: `Approved ${subjectOf(ticket)}: the reply is queued for sending.` };
    case 'requeued':
      return { kind: 'ok', message: `${subjectOf(ticket)} was already approved; its reply is queued for sending.` };
    case 'rejected':
      return { kind: 'ok', message: `Rejected ${subjectOf(ticket)}: no reply will be sent.` };
    case 'rerun':
      return { kind: 'ok', message: `${subjectOf(ticket)} is back with the agent: its new draft is sent or parked here as any other.` };
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

function refusalPage(refusal: ReviewRefusal, ticketId: string, user: string | undefined): HandlerResult {
  const status = refusal.outcome === 'not-found' ? 404 : refusal.outcome === 'conflict' ? 409 : 400;
  const back = TICKET_ID_PATTERN.test(ticketId) && refusal.outcome !== 'not-found' ? `/tickets/${ticketId}` : '/';
  return { status, html: renderMessagePage({ status, message: refusal.message, user, back }) };
}

// `seen`: the history length the page showed (see DecisionRequest.seen); every decision form carries it.
const seenField = z.coerce.number().int().min(0).max(1_000_000).optional();
const approveFormSchema = z.object({ reply: z.string().max(200_000).optional(), seen: seenField });
const rejectFormSchema = z.object({ reason: z.string().max(10_000).default(''), seen: seenField });

function parseForm<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw new HttpError(400, 'The form was not filled in as expected; reload the page and try again');
  return parsed.data;
}

/** Bounced replies listed on the start page; the card says how many more there are. */
const BOUNCED_SHOWN = 10;

/** The review page's handlers. */
export function reviewPageHandlers(deps: ReviewPageDeps): Record<'list' | 'detail' | 'approve' | 'reject' | 'rerun' | 'reindex', Handler> {
  const operator = (user: string | undefined) => user ?? ANONYMOUS_OPERATOR;
  const csrfToken = (user: string | undefined) => deps.csrf.tokenFor(operator(user));

  return {
    async list({ query, user }) {
      const parsed = listQuerySchema.safeParse(query);
      if (!parsed.success) throw new HttpError(400, 'Invalid page address');
      const { page, done, ticket } = parsed.data;
      const [list, counts, flash, problems, bounced] = await Promise.all([
        deps.store.list({ state: 'parked', limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
        deps.store.countByState(),
        flashFor(done, ticket, deps.store),
        deps.deploymentProblems?.() ?? [],
        deps.store.bouncedReplies(BOUNCED_SHOWN),
      ]);
      return {
        status: 200,
        html: renderTicketList({
          tickets: list.tickets,
          total: list.total,
          page,
          pageSize: PAGE_SIZE,
          counts,
          now: deps.now(),
          csrfToken: csrfToken(user),
          user,
          flash,
          problems,
          bounced,
        }),
      };
    },

    async detail({ params, user }) {
      const id = params.id ?? '';
      const ticket = TICKET_ID_PATTERN.test(id) ? await deps.store.get(id) : undefined;
      if (!ticket) throw new HttpError(404, 'No such ticket');
      const [mail, learnedSources] = await Promise.all([mailTextOf(ticket, deps), learnedSourcesOf(ticket, deps.learned)]);
      return {
        status: 200,
        html: renderTicketDetail({ ticket, mailText: mail.text, mailTextNote: mail.note, learnedSources, now: deps.now(), csrfToken: csrfToken(user), user }),
      };
    },

    async approve({ params, body, user }) {
      const ticketId = params.id ?? '';
      const form = parseForm(approveFormSchema, body);
      const outcome = await approveTicket(deps.review, { ticketId, operator: operator(user), reply: form.reply, seen: form.seen });
      if (outcome.outcome !== 'approved') return refusalPage(outcome, ticketId, user);
      return { status: 303, location: `/?done=${outcome.alreadyApproved ? 'requeued' : 'approved'}&ticket=${outcome.ticket.id}` };
    },

    async reject({ params, body, user }) {
      const ticketId = params.id ?? '';
      const form = parseForm(rejectFormSchema, body);
      const outcome = await rejectTicket(deps.review, { ticketId, operator: operator(user), reason: form.reason, seen: form.seen });
      if (outcome.outcome !== 'rejected') return refusalPage(outcome, ticketId, user);
      return { status: 303, location: `/?done=rejected&ticket=${outcome.ticket.id}` };
    },

    async rerun({ params, user }) {
      const ticketId = params.id ?? '';
      const outcome = await rerunAgent(deps.rerun, { ticketId, operator: operator(user) });
      if (outcome.outcome !== 'requeued') return refusalPage(outcome, ticketId, user);
      return { status: 303, location: `/?done=rerun&ticket=${outcome.ticket.id}` };
    },

    async reindex() {
      await requestReindex({ maintenance: deps.maintenance, redis: deps.redis, ...(deps.review.tuning ? { tuning: deps.review.tuning } : {}) });
      return { status: 303, location: '/?done=reindex' };
    },
  };
}
