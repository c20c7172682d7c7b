/**
 * The JSON API: list, search and read tickets, approve or reject a parked one, have the agent answer it again, close as sent a
 * reply that may already have been sent and arrived, acknowledge and close one that cannot be delivered, reopen mail
 * the automatic checks ignored by mistake, or take over a ticket that waits for the model server to answer it by hand.
 * Input is
 * validated with zod and every refusal is a 4xx with `{ "error": message }`.
 */
import { z } from 'zod';
import type { TicketOutcome } from '../tickets/outcome.js';
import { TICKET_ID_PATTERN, TICKET_STATES, type Ticket } from '../tickets/ticket.js';
import type { TicketStore } from '../tickets/ticket-store.js';
import { ANONYMOUS_OPERATOR } from './auth.js';
import { HttpError, parseInput, type Handler, type HandlerResult } from './http.js';
import { MAX_SEARCH_CHARS, SEARCH_SCAN_LIMIT, searchTickets, searchWords } from './ticket-search.js';
import {
  CONVERSATION_SEEN,
  MAX_REASON_CHARS,
  MAX_REPLY_CHARS,
  NO_COPY_CHECKED,
  READ_NEWER_MAIL,
  NEITHER_REPLY_NOR_SEEN,
  SENDER_VERIFIED,
  approveTicket,
  closeUndeliverable,
  confirmArrived,
  rejectTicket,
  reopenIgnored,
  rerunAgent,
  takeOverTicket,
  type RerunDeps,
  type ReviewDeps,
  type ReviewRefusal,
} from '../tickets/review.js';

/** A ticket in lists: enough to pick one, without the agent's full result. */
export interface TicketSummary {
  id: string;
  state: Ticket['state'];
  from: string;
  fromName?: string;
  /** Where replies go, when not to {@link from}. */
  replyTo?: string;
  subject: string;
  reason?: string;
  createdAt: string;
  updatedAt: string;
  hasDraft: boolean;
  /** How the ticket ended, once it has (see src/tickets/outcome.ts). */
  outcome?: TicketOutcome;
}

/** The list form of a ticket. */
export function summarize(t: Ticket): TicketSummary {
  return {
    id: t.id,
    state: t.state,
    from: t.from,
    ...(t.fromName ? { fromName: t.fromName } : {}),
    ...(t.replyTo && t.replyTo !== t.from ? { replyTo: t.replyTo } : {}),
    subject: t.subject,
    ...(t.reason ? { reason: t.reason } : {}),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    hasDraft: Boolean(t.draft?.trim()),
    ...(t.outcome ? { outcome: t.outcome } : {}),
  };
}

// `q`: a search (see ticket-search.ts); `limit` then caps the matches, and `skip` goes on where an earlier one stopped.
const listQuerySchema = z
  .object({
    state: z.enum(TICKET_STATES, { error: `must be one of ${TICKET_STATES.join(', ')}` }).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    offset: z.coerce.number().int().min(0).optional(),
    q: z.string().max(MAX_SEARCH_CHARS).optional(),
    skip: z.coerce.number().int().min(0).max(100_000_000).optional(),
  })
  .strict()
  .superRefine((query, ctx) => {
    if (query.q === undefined && query.skip !== undefined) ctx.addIssue({ code: 'custom', path: ['skip'], message: 'only with q' });
    if (query.q !== undefined && query.offset !== undefined) ctx.addIssue({ code: 'custom', path: ['offset'], message: 'not with q (a search goes on with skip)' });
  });

// `seen`: the ticket's history length the caller decided on; a ticket that moved on since is refused (409).
const seenField = z.number().int().min(0).optional();
// `checkedNoCopy`: the caller checked that the customer has no copy of a reply that may already have been sent;
// `conversationSeen`: when the newest mail of the conversation the caller read was received, and `readNewerMail`:
// they read the customer's mail after this ticket's; `senderVerified`: they verified a possibly forged sender.
const approveBodySchema = z
  .object({
    reply: z.string().max(MAX_REPLY_CHARS).optional(),
    seen: seenField,
    [NO_COPY_CHECKED]: z.boolean().optional(),
    [CONVERSATION_SEEN]: z.iso.datetime().optional(),
    [READ_NEWER_MAIL]: z.boolean().optional(),
    [SENDER_VERIFIED]: z.boolean().optional(),
  })
  .strict()
  // Without either, the approval would be of whatever draft is stored when it arrives: a rerun may have replaced the
  // one the caller read. `reply` is what it sends; `seen` pins the draft it read.
  .refine((body) => body.reply !== undefined || body.seen !== undefined, {
    message: NEITHER_REPLY_NOR_SEEN,
    path: ['reply'],
  });
const rejectBodySchema = z.object({ reason: z.string().trim().min(1, 'required').max(MAX_REASON_CHARS), seen: seenField }).strict();
const rerunBodySchema = z.object({ seen: seenField }).strict();
// `note`: the operator's optional note on a reply's delivery (how they know it arrived, what they did instead).
const deliveryBodySchema = z.object({ note: z.string().max(MAX_REASON_CHARS).optional(), seen: seenField }).strict();
// `note`: why the operator reopens an ignored mail (optional).
const reopenBodySchema = z.object({ note: z.string().max(MAX_REASON_CHARS).optional(), seen: seenField }).strict();
const takeOverBodySchema = z.object({ seen: seenField }).strict();

function ticketIdParam(params: Record<string, string>): string {
  const id = params.id ?? '';
  if (!TICKET_ID_PATTERN.test(id)) throw new HttpError(400, 'Not a ticket id (64 lower-case hex characters)');
  return id;
}

function refusal(r: ReviewRefusal): HandlerResult {
  const status = r.outcome === 'not-found' ? 404 : r.outcome === 'conflict' ? 409 : 400;
  return { status, json: { error: r.message, ...(r.outcome === 'conflict' && r.state ? { state: r.state } : {}) } };
}

/** The API's handlers. */
export function apiHandlers(deps: { store: TicketStore; review: ReviewDeps; rerun: RerunDeps; searchScanLimit?: number }): Record<'list' | 'get' | 'approve' | 'reject' | 'rerun' | 'arrived' | 'close' | 'reopen' | 'takeOver', Handler> {
  return {
    async list({ query }) {
      const q = parseInput(listQuerySchema, query, 'query');
      if (q.q !== undefined && searchWords(q.q).length > 0) {
        // Bounded: the matches among the newest tickets read; the headers say how many were read and where to go on.
        const found = await searchTickets(deps.store, { text: q.q, state: q.state, skip: q.skip ?? 0, scanLimit: deps.searchScanLimit ?? SEARCH_SCAN_LIMIT, resultLimit: q.limit });
        const headers: Record<string, string> = { 'X-Searched-Count': String(found.scanned) };
        if (found.next !== undefined) headers['X-Search-Next-Skip'] = String(found.next);
        return { status: 200, json: found.tickets.map(summarize), headers };
      }
      const page = await deps.store.list({ limit: q.limit, offset: q.offset ?? 0, ...(q.state ? { state: q.state } : {}) });
      return { status: 200, json: page.tickets.map(summarize), headers: { 'X-Total-Count': String(page.total) } };
    },

    async get({ params }) {
      const ticket = await deps.store.get(ticketIdParam(params));
      if (!ticket) throw new HttpError(404, `Ticket ${params.id} not found`);
      return { status: 200, json: ticket };
    },

    async approve({ params, body, user }) {
      const ticketId = ticketIdParam(params);
      const input = parseInput(approveBodySchema, body ?? {}, 'body');
      const outcome = await approveTicket(deps.review, {
        ticketId,
        operator: user ?? ANONYMOUS_OPERATOR,
        reply: input.reply,
        seen: input.seen,
        checkedNoCopy: input[NO_COPY_CHECKED] ?? false,
        conversationSeen: input[CONVERSATION_SEEN],
        readNewerMail: input[READ_NEWER_MAIL] ?? false,
        senderVerified: input[SENDER_VERIFIED] ?? false,
      });
      if (outcome.outcome !== 'approved') return refusal(outcome);
      return {
        status: 202,
        json: { ticketId, state: outcome.ticket.state, jobId: outcome.jobId, alreadyApproved: outcome.alreadyApproved },
      };
    },

    async reject({ params, body, user }) {
      const ticketId = ticketIdParam(params);
      const input = parseInput(rejectBodySchema, body ?? {}, 'body');
      const outcome = await rejectTicket(deps.review, { ticketId, operator: user ?? ANONYMOUS_OPERATOR, reason: input.reason, seen: input.seen });
      if (outcome.outcome !== 'rejected') return refusal(outcome);
      return { status: 200, json: { ticketId, state: outcome.ticket.state, reason: outcome.ticket.reason } };
    },

    async rerun({ params, body, user }) {
      const ticketId = ticketIdParam(params);
      const input = parseInput(rerunBodySchema, body ?? {}, 'body');
      // A person asked: the new draft is parked for them (the review page does the same).
      const outcome = await rerunAgent(deps.rerun, { ticketId, operator: user ?? ANONYMOUS_OPERATOR, seen: input.seen, forReview: true });
      if (outcome.outcome !== 'requeued') return refusal(outcome);
      return { status: 202, json: { ticketId, state: outcome.ticket.state, jobId: outcome.jobId, alreadyRequeued: outcome.alreadyRequeued } };
    },

    async arrived({ params, body, user }) {
      const ticketId = ticketIdParam(params);
      const input = parseInput(deliveryBodySchema, body ?? {}, 'body');
      const outcome = await confirmArrived(deps.review, { ticketId, operator: user ?? ANONYMOUS_OPERATOR, note: input.note, seen: input.seen });
      if (outcome.outcome !== 'confirmed') return refusal(outcome);
      return { status: 200, json: { ticketId, state: outcome.ticket.state, alreadyConfirmed: outcome.alreadyConfirmed } };
    },

    async close({ params, body, user }) {
      const ticketId = ticketIdParam(params);
      const input = parseInput(deliveryBodySchema, body ?? {}, 'body');
      const outcome = await closeUndeliverable(deps.review, { ticketId, operator: user ?? ANONYMOUS_OPERATOR, note: input.note, seen: input.seen });
      if (outcome.outcome !== 'closed') return refusal(outcome);
      return { status: 200, json: { ticketId, state: outcome.ticket.state, closedAs: outcome.closedAs, alreadyClosed: outcome.alreadyClosed } };
    },

    async reopen({ params, body, user }) {
      const ticketId = ticketIdParam(params);
      const input = parseInput(reopenBodySchema, body ?? {}, 'body');
      const outcome = await reopenIgnored(deps.review, { ticketId, operator: user ?? ANONYMOUS_OPERATOR, note: input.note, seen: input.seen });
      if (outcome.outcome !== 'reopened') return refusal(outcome);
      return { status: 200, json: { ticketId, state: outcome.ticket.state, reason: outcome.ticket.reason, alreadyReopened: outcome.alreadyReopened } };
    },

    async takeOver({ params, body, user }) {
      const ticketId = ticketIdParam(params);
      const input = parseInput(takeOverBodySchema, body ?? {}, 'body');
      const outcome = await takeOverTicket(deps.review, { ticketId, operator: user ?? ANONYMOUS_OPERATOR, seen: input.seen });
      if (outcome.outcome !== 'taken-over') return refusal(outcome);
      return { status: 200, json: { ticketId, state: outcome.ticket.state, reason: outcome.ticket.reason, alreadyTakenOver: outcome.alreadyTakenOver } };
    },
  };
}
