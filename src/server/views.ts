/**
 * The review page's HTML, as pure functions from data to {@link SafeHtml}. Everything is built with the escaping
 * `html` template; nothing here emits script, inline styles or event handlers (the CSP would refuse them anyway).
 */
import type { Subtask } from '../agent/types.js';
import { MANUAL_TOOL_NAME } from '../agent/tools.js';
import { cut } from '../cli/format.js';
import type { GapList, KnowledgeGap } from '../knowledge/gaps.js';
import type { TaughtByTicket } from '../knowledge/learned-answers.js';
import { forgetCommand } from '../tickets/retention.js';
import { describeBounce, waitsForModelServer, type Ticket, type TicketState } from '../tickets/ticket.js';
import { needsNoReply } from '../tickets/insights.js';
import { describeOutcome } from '../tickets/outcome.js';
import { describeStanding, parkedForTrust, type TrustStanding } from '../tickets/trust.js';
import { isSameMailbox } from '../mail/addresses.js';
import type { ConversationEntry } from '../tickets/ticket-store.js';
import {
  CONVERSATION_SEEN,
  NO_COPY_CHECKED,
  READ_NEWER_MAIL,
  SENDER_VERIFIED,
  approverOf,
  uncertainSendAttempts,
  undeliverableWhy,
  unverifiedSender,
  whyNoNewDraft,
  whyNotReopenable,
  type ConversationView,
  type SendRetryStatus,
  type UncertainSendAttempt,
} from '../tickets/review.js';
import type { PollerStatus } from '../runtime/poller.js';
import { failingSince, formatDuration, pollerCheck } from './health.js';
import { html, type HtmlValue, type SafeHtml } from './html.js';
import { STYLESHEET_PATH } from './styles.js';
import { MAX_SEARCH_CHARS, type TicketReference, type TicketSearchResult } from './ticket-search.js';
import { localTime, timeFormat } from '../tickets/local-day.js';

/** Where the page is, for the navigation. */
type Section = 'review' | 'knowledge' | 'insights' | 'none';

/** The page frame: head, navigation bar and `body`. */
export function layout(options: { title: string; user: string | undefined; section?: Section; body: SafeHtml; firstStop?: SafeHtml | null }): SafeHtml {
  const current = (s: Section) => (options.section === s ? 'current' : undefined);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · helpdesk-worker</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<header class="top">
  <span class="brand">helpdesk-worker</span>
  <nav>
    ${options.firstStop ?? null}
    <a href="/" class="${current('review')}">Review</a>
    <a href="/knowledge" class="${current('knowledge')}">Knowledge</a>
    <a href="/insights" class="${current('insights')}">Insights</a>
    <a href="/admin/queues">Queues</a>
    <a href="/metrics" title="Prometheus metrics as text, for a scraper">Metrics <span class="raw">(raw)</span></a>
    <a href="/readyz" title="JSON for a monitor or load balancer: HTTP 200 when ready, 503 naming the failing checks">Readiness <span class="raw">(JSON)</span></a>
  </nav>
  ${options.user ? html`<span class="who">signed in as ${options.user}</span>` : null}
</header>
<main>
${options.body}
</main>
</body>
</html>
`;
}

/** A banner telling what an action did (`ok`) or why it was refused (`bad`). */
export interface Flash {
  kind: 'ok' | 'bad';
  message: string;
  /** Lines listed under the message, e.g. how each source of an approved draft now stands. */
  details?: readonly string[];
}

/** The banner of {@link Flash}, or nothing. */
export function flashBanner(flash: Flash | undefined): SafeHtml | null {
  if (!flash) return null;
  const details = flash.details && flash.details.length > 0 ? html`<ul class="sources">${flash.details.map((d) => html`<li><bdi>${d}</bdi></li>`)}</ul>` : null;
  return html`<div class="flash ${flash.kind}" role="status">${flash.message}${details}</div>`;
}

/**
 * A banner about the deployment on the start page: `bad` (red, an alert) while work has stopped, `warn` (yellow) for
 * an early sign that may pass on its own.
 */
export interface DeploymentProblem {
  level: 'bad' | 'warn';
  /** What it means for the operator, in plain words, before the detail; absent when the detail says it itself. */
  headline?: string;
  /** What was found: a check's detail, or markup showing times as the page does. */
  detail: string | SafeHtml;
}

/** The banner of one {@link DeploymentProblem}. */
export function deploymentBanner(problem: DeploymentProblem): SafeHtml {
  const headline = problem.headline ? html`<strong>${problem.headline}:</strong> ` : null;
  return problem.level === 'bad'
    ? html`<div class="flash bad" role="alert">${headline}${problem.detail}</div>`
    : html`<div class="warning" role="status">${headline}${problem.detail}</div>`;
}

// The poller's red headline: what a stale poll means at the desk.
const MAIL_NOT_READ = 'Incoming mail is not being read';
// The poller's yellow headline: an attempt failed; mail is still read if the next one succeeds.
const LAST_POLL_FAILED = 'The last poll of the mailbox failed';

/**
 * What the start page says about the IMAP poller, times in `timeZone`: red exactly when `/readyz`'s poller check
 * fails ({@link pollerCheck}, so the two never disagree); yellow while the last poll is within `maxAgeMs` but an
 * attempt failed since, so the operator sees the cause at once rather than after `maxAgeMs`, without `/readyz`
 * failing on a dropped connection the poller reopens seconds later; nothing while mail is read.
 */
export function pollerProblem(status: PollerStatus, now: Date, maxAgeMs: number, timeZone?: string): DeploymentProblem | undefined {
  const { lastSuccessfulPollAt: at, lastFailure } = status;
  const ago = (then: Date) => formatDuration(now.getTime() - then.getTime());
  const failure = failingSince(lastFailure, at) ? lastFailure : undefined;
  const waits = 'New mail waits in the mailbox until a poll succeeds.';
  if (pollerCheck(status, now, maxAgeMs).status === 'fail') {
    const attempt = failure ? `; the last attempt failed ${ago(failure.at)} ago: ${failure.message}` : '';
    const detail = at
      ? html`the last successful poll was ${ago(at)} ago (${timeTag(at.toISOString(), timeZone)}), longer than the allowed ${formatDuration(maxAgeMs)}${attempt}. ${waits}`
      : html`the IMAP poller has not completed a poll yet${attempt}. ${waits}`;
    return { level: 'bad', headline: MAIL_NOT_READ, detail };
  }
  if (!failure || !at) return undefined;
  const deadline = new Date(at.getTime() + maxAgeMs).toISOString();
  return {
    level: 'warn',
    headline: LAST_POLL_FAILED,
    detail: html`${ago(failure.at)} ago: ${failure.message}; the poller tries again. The last successful poll was ${ago(at)} ago (${timeTag(at.toISOString(), timeZone)}); if none succeeds by ${timeTag(deadline, timeZone)}, incoming mail is not being read.`,
  };
}

/** Hidden CSRF field of every form. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/**
 * The IANA time zone `timeZone` if ICU knows it, for the pages' times.
 *
 * @throws RangeError naming the zone when ICU does not know it.
 */
export function checkTimeZone(timeZone: string): string {
  try {
    timeFormat(timeZone);
    return timeZone;
  } catch {
    throw new RangeError(`Unknown time zone for the dashboard's times: ${JSON.stringify(timeZone)} (use an IANA name such as Asia/Tokyo or UTC)`);
  }
}

/** The dashboard's times: {@link localTime} of src/tickets/local-day.ts. */
export { localTime };

/** A time of the page: {@link localTime} in a `<time>` element that keeps the exact ISO value (and shows it on hover). */
export function timeTag(iso: string, timeZone: string | undefined): SafeHtml {
  const local = localTime(iso, timeZone);
  return local ? html`<time datetime="${iso}" title="${iso}">${local}</time>` : html`${iso}`;
}

/** The hover text of a relative time (an age): the local time and the ISO value. */
function exactTime(iso: string, timeZone: string | undefined): string {
  const local = localTime(iso, timeZone);
  return local ? `${local} (${iso})` : iso;
}

function badgeClass(state: TicketState): string {
  if (state === 'parked') return 'parked';
  if (state === 'approved' || state === 'sent') return state;
  if (state === 'rejected' || state === 'failed') return state;
  return 'other';
}

// What a customer wrote that the page shows beside other text (their name, the subject, file names) is put in <bdi>:
// a text-direction control in it (`Support Team <U+202E>moc.lagel-zyx@ytiruces`) then cannot reorder what follows,
// such as the real address after the name. Parsing removes such controls since; tickets parsed before may hold them.

/** The sender as `name <address>`, the name isolated. */
function sender(ticket: Pick<Ticket, 'from' | 'fromName'>): SafeHtml {
  return ticket.fromName ? html`<bdi>${ticket.fromName}</bdi> &lt;${ticket.from}&gt;` : html`${ticket.from}`;
}

/** The sender's name in a list cell, isolated; nothing when the mail gave none. */
function senderName(ticket: Pick<Ticket, 'fromName'>): SafeHtml | null {
  return ticket.fromName ? html`<bdi class="name">${ticket.fromName}</bdi>` : null;
}

/** The sender in a list cell: the name, and the address on a line of its own that may wrap anywhere. */
function senderCell(ticket: Pick<Ticket, 'from' | 'fromName'>): SafeHtml {
  return html`<td class="from">${senderName(ticket)}<span class="addr">${ticket.from}</span></td>`;
}

/**
 * The subject in a list cell, a link to the ticket, isolated; with `laterMail`, a mark that the customer wrote that
 * many more mails in the conversation since, which its draft may not fit.
 */
function subjectCell(ticket: Pick<Ticket, 'id' | 'subject'>, laterMail?: number): SafeHtml {
  const mark = laterMail
    ? html` <span class="badge parked" title="The customer wrote again in this conversation after this mail: read it before approving">+${laterMail} newer mail</span>`
    : null;
  return html`<td class="subject"><bdi><a href="/tickets/${ticket.id}">${ticket.subject || '(no subject)'}</a></bdi>${mark}</td>`;
}

// Ticket ids named in a reason or a history note (a repeated question's first copy, a bounced reply, the bounce).
const TICKET_ID_IN_TEXT = /\b[0-9a-f]{64}\b/g;

/** `text` with every ticket id in it a link to that ticket, shown by its first 12 characters; the rest escaped. */
export function withTicketLinks(text: string): HtmlValue[] {
  const parts: HtmlValue[] = [];
  let last = 0;
  for (const match of text.matchAll(TICKET_ID_IN_TEXT)) {
    const id = match[0];
    parts.push(text.slice(last, match.index), html`<a href="/tickets/${id}" title="${id}"><code>${id.slice(0, 12)}…</code></a>`);
    last = match.index + id.length;
  }
  parts.push(text.slice(last));
  return parts;
}

/** Data of the list page. */
export interface TicketListView {
  tickets: Ticket[];
  total: number;
  page: number;
  pageSize: number;
  /** The list's order: oldest first (the longest-waiting customer on top) or newest first. */
  order: 'oldest' | 'newest';
  /** The state listed: parked (the default), or another state's tickets, newest first. */
  state?: TicketState | undefined;
  counts: Record<TicketState, number>;
  now: Date;
  csrfToken: string;
  user: string | undefined;
  flash?: Flash | undefined;
  /** What is wrong with the deployment now, one banner each (see `ReviewPageDeps.deploymentProblems`). */
  problems?: readonly DeploymentProblem[];
  /** Replies that bounced in the last 30 days, newest first, and how many there are in all. */
  bounced?: { tickets: Ticket[]; total: number };
  /** The IANA zone the page's times are shown in (default UTC). */
  timeZone?: string | undefined;
  /** A search of the tickets: shown instead of the parked list. */
  search?: TicketSearchView | undefined;
  /** How many mails each listed ticket's conversation received after it (tickets with none left out). */
  laterMail?: ReadonlyMap<string, number> | undefined;
  /** The id of the ticket the review flow opens next (the longest-waiting parked one), if any waits. */
  nextToReview?: string | undefined;
}

/** A search on the start page: what was typed, and what was found how far back. */
export interface TicketSearchView {
  /** What the operator typed, as typed. */
  text: string;
  /** The search's answer. */
  result: TicketSearchResult;
  /** The most tickets one search reads. */
  scanLimit: number;
  /** The most matches one search shows. */
  resultLimit: number;
  /**
   * What was typed as a ticket's own name (its id, a start of it, its mail's Message-ID), when it was one and named
   * no single ticket: none, or several ids with that start.
   */
  reference?: TicketReference | undefined;
}

/** What a lookup by a ticket's own name found, above the search's matches: several tickets to pick from, or none. */
function renderReference(reference: TicketReference | undefined, timeZone: string | undefined): SafeHtml | null {
  if (!reference) return null;
  const what = reference.kind === 'message-id' ? html`with the Message-ID <code>${reference.text}</code>` : reference.kind === 'id' ? html`with the id <code>${reference.text}</code>` : html`whose id starts with <code>${reference.text}</code>`;
  // An address looks like a Message-ID too: a search for one that is no mail's says nothing of it.
  if (reference.tickets.length === 0) return reference.kind === 'message-id' ? null : html`<p class="small muted">No ticket ${what}.</p>`;
  const items = reference.tickets.map((t) => html`<li><a href="/tickets/${t.id}"><code>${t.id.slice(0, SHORT_TICKET_ID)}…</code></a> <span class="badge ${badgeClass(t.state)}">${t.state}</span> ${timeTag(t.createdAt, timeZone)} <bdi>${t.subject || '(no subject)'}</bdi></li>`);
  return html`<p class="small">Tickets ${what}${reference.more ? ' (the first ones; give more characters)' : ''}:</p><ul class="sources">${items}</ul>`;
}

/**
 * The start page's card of replies the SMTP server accepted but that bounced: the customer got no answer, and only a
 * person can reach them another way (or fix the address). Absent when there are none.
 */
function renderBouncedReplies(bounced: { tickets: Ticket[]; total: number } | undefined, now: Date, timeZone: string | undefined): SafeHtml | null {
  if (!bounced || bounced.tickets.length === 0) return null;
  const rows = bounced.tickets.map((t) => {
    const bounce = t.replyBounce;
    return html`<tr>
      <td class="age" title="${bounce ? exactTime(bounce.at, timeZone) : ''}">${bounce ? formatDuration(now.getTime() - Date.parse(bounce.at)) : ''}</td>
      <td class="from"><span class="addr">${t.replyTo}</span></td>
      ${subjectCell(t)}
      <td class="text">${bounce ? describeBounce(bounce) : ''}</td>
    </tr>`;
  });
  return html`<section class="card" id="bounced">
  <h2>Replies that did not arrive <span class="muted">(${bounced.total} in the last 30 days)</span></h2>
  <p class="small muted">The mail server accepted these replies, then a bounce came back: the customer has no answer. Once you have reached one another way, or there is nothing more to do, open it and acknowledge and close it.</p>
  <table class="list">
    <colgroup><col class="age"><col class="from"><col class="subject"><col></colgroup>
    <thead><tr><th>Bounced</th><th>To</th><th>Subject</th><th>What the receiving server said</th></tr></thead>
    <tbody>${rows}</tbody>
  </table>
  ${bounced.total > bounced.tickets.length ? html`<p class="small muted">Showing the newest ${bounced.tickets.length}.</p>` : null}
</section>`;
}

/**
 * A ticket's reason in a list. A draft parked for trust alone gets what it means instead of its reason, whose counts
 * are those of when it was parked (its page shows them as they are now).
 */
function listedReason(ticket: Pick<Ticket, 'state' | 'reason'>): HtmlValue {
  if (ticket.state === 'parked' && parkedForTrust(ticket.reason)) return WAITS_FOR_TRUST_SHORT;
  return withTicketLinks(ticket.reason ?? '');
}

/** A draft parked for trust alone, in the list. */
const WAITS_FOR_TRUST_SHORT = 'The checks passed; it waits only while the desk learns to trust its sources (open it to see how far along they are).';

/** The toggle of the list's order; the current order is plain text. */
function orderToggle(order: TicketListView['order']): SafeHtml {
  const option = (value: TicketListView['order'], label: string) =>
    order === value ? html`<b>${label}</b>` : html`<a href="/?order=${value}">${label}</a>`;
  return html`<span class="order small">${option('oldest', 'oldest first')} · ${option('newest', 'newest first')}</span>`;
}

/** `n` and the noun, in the plural unless `n` is 1: `2,000 tickets`. */
function counted(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

/** The search box of the start page; what was typed stays in it. */
function searchBox(text: string): SafeHtml {
  return html`<form method="get" action="/" class="search" role="search">
    <input type="search" name="q" value="${text}" maxlength="${MAX_SEARCH_CHARS}" placeholder="Address, name, subject, ticket id or Message-ID" aria-label="Search tickets by customer address, name or subject words, or open one by its id or Message-ID">
    <button type="submit" class="secondary">Search</button>
  </form>`;
}

/** How far a search read: "Searched all 42 tickets", "Searched the newest 2,000 of 9,000 tickets", or a later stretch. */
function searchedStretch(result: TicketSearchResult): string {
  if (result.scanned === 0) return `No tickets were searched: there ${result.total === 1 ? 'is' : 'are'} ${counted(result.total, 'ticket')} in all`;
  if (result.skip === 0 && result.next === undefined) return result.total === 1 ? 'Searched the only ticket' : `Searched all ${counted(result.total, 'ticket')}`;
  if (result.skip === 0) return `Searched the newest ${result.scanned.toLocaleString('en-US')} of ${counted(result.total, 'ticket')}`;
  return `Searched tickets ${(result.skip + 1).toLocaleString('en-US')}–${(result.skip + result.scanned).toLocaleString('en-US')} of ${result.total.toLocaleString('en-US')}, newest first`;
}

/**
 * The matches of a search, newest first: when each came, its state, who sent it and its subject (a link to it); how
 * far back the search read, and a link that goes on with the next older tickets.
 */
function renderSearchResults(search: TicketSearchView, timeZone: string | undefined): SafeHtml {
  const { result } = search;
  const rows = result.tickets.map(
    (t) => html`<tr data-ticket="${t.id}">
      <td class="nowrap small">${timeTag(t.createdAt, timeZone)}</td>
      <td><span class="badge ${badgeClass(t.state)}">${t.state}</span></td>
      <td class="from">${senderName(t)}<span class="addr">${t.from}</span>${
        t.replyTo && t.replyTo !== t.from ? html`<span class="addr muted">reply to ${t.replyTo}</span>` : null
      }</td>
      ${subjectCell(t)}
    </tr>`,
  );
  const next = result.next;
  const more =
    next === undefined
      ? null
      : result.tickets.length >= search.resultLimit
        ? html`<p class="small">Showing the first ${search.resultLimit} matches. <a href="/?q=${encodeURIComponent(search.text)}&amp;skip=${next}">Search on from the last one →</a></p>`
        : html`<p class="small"><a href="/?q=${encodeURIComponent(search.text)}&amp;skip=${next}">Search the next ${counted(Math.min(search.scanLimit, result.total - next), 'older ticket')} →</a></p>`;
  return html`<section class="card" id="search">
  <h2>Tickets matching “${search.text}” <span class="muted">(${result.tickets.length})</span> <a href="/" class="small">clear the search</a></h2>
  ${renderReference(search.reference, timeZone)}
  <p class="small muted">${searchedStretch(result)}: sender and Reply-To addresses, sender names and subjects, ${counted(search.scanLimit, 'ticket')} at most per search. A ticket's id (8 characters or more) or its mail's Message-ID opens that ticket.</p>
  ${
    rows.length > 0
      ? html`<table class="list">
    <colgroup><col class="when"><col class="state"><col class="from"><col></colgroup>
    <thead><tr><th>Received</th><th>State</th><th>From</th><th>Subject</th></tr></thead>
    <tbody>${rows}</tbody>
  </table>`
      : html`<p class="empty">No ticket matches.</p>`
  }
  ${more}
</section>`;
}

/**
 * The start page: parked tickets (oldest first unless asked otherwise), with state counts, the search box and the
 * reindex button; the matches instead of the parked tickets while a search is shown.
 */
export function renderTicketList(view: TicketListView): SafeHtml {
  const listed = view.state ?? 'parked';
  // Each count opens its state's list: how ignored mail is found to reopen it.
  const chips = (Object.entries(view.counts) as [TicketState, number][])
    .filter(([, n]) => n > 0)
    .map(([state, n]) =>
      !view.search && state === listed
        ? html`<span class="chip current">${state} <b>${n}</b></span>`
        : html`<a class="chip" href="${stateListPath(state)}">${state} <b>${n}</b></a>`,
    );
  const rows = view.tickets.map((t) =>
    listed === 'sent'
      ? html`<tr>
      <td class="nowrap small">${t.outbound?.sentAt ? timeTag(t.outbound.sentAt, view.timeZone) : 'no time recorded'}</td>
      ${senderCell(t)}
      ${subjectCell(t)}
      <td class="text">${howSent(t)}</td>
    </tr>`
      : html`<tr>
      <td class="age" title="${exactTime(t.createdAt, view.timeZone)}">${formatDuration(view.now.getTime() - Date.parse(t.createdAt))}</td>
      ${senderCell(t)}
      ${subjectCell(t, view.laterMail?.get(t.id))}
      <td class="text">${listedReason(t)}</td>
    </tr>`,
  );
  const body = html`
${flashBanner(view.flash)}
${(view.problems ?? []).map(deploymentBanner)}
<div class="toolbar">
  <div class="chips">${chips.length > 0 ? chips : html`<span class="chip">no tickets yet</span>`}</div>
  ${searchBox(view.search?.text ?? '')}
  <form method="post" action="/reindex">
    ${csrfField(view.csrfToken)}
    <button type="submit" class="secondary">Reindex now</button>
  </form>
</div>
${view.search ? renderSearchResults(view.search, view.timeZone) : listed === 'parked' ? renderParked(view, rows) : renderStateList(view, listed, rows)}`;
  return layout({
    title: view.search ? 'Search' : listed === 'parked' ? 'Review' : stateTitle(listed),
    user: view.user,
    section: 'review',
    body: html`${body}${view.search ? null : renderBouncedReplies(view.bounced, view.now, view.timeZone)}`,
    firstStop: nextToReviewLink(view.nextToReview),
  });
}

/**
 * The start page's first tab stop: the ticket the review flow opens next, so a keyboard reaches it with one Tab
 * instead of passing the menu, the state counts, the search and the reindex button.
 */
function nextToReviewLink(ticketId: string | undefined): SafeHtml | null {
  // To its reply form: the decision the flow is about, where the page puts the cursor anyway.
  return ticketId ? html`<a href="/tickets/${ticketId}#reply" class="next-to-review">Review the oldest waiting ticket</a>` : null;
}

/** How a sent reply went out: without a person, or approved by whom (the sender's record, else the history). */
function howSent(ticket: Ticket): string {
  const out = ticket.outbound;
  if (out?.autoSubmitted) return 'sent automatically';
  const approver = out?.approvedBy ?? approverOf(ticket);
  return approver ? `approved by ${approver}` : 'approved by a person';
}

/** The start page's list of a state's tickets: `/` for the parked ones, `/?state=<state>` for the others. */
function stateListPath(state: TicketState): string {
  return state === 'parked' ? '/' : `/?state=${state}`;
}

/** The heading of a state's list: `Ignored`, `Sent`. */
function stateTitle(state: TicketState): string {
  return `${state.charAt(0).toUpperCase()}${state.slice(1)}`;
}

/** What a ticket's reason says in its state: why it is parked, was ignored, rejected, failed. */
function reasonLabel(state: TicketState): string {
  switch (state) {
    case 'parked':
      return 'Why parked';
    case 'ignored':
    case 'rejected':
    case 'failed':
      return `Why ${state}`;
    default:
      return 'Reason';
  }
}

/**
 * The start page's card of the tickets in another state than parked, newest first, each with its reason: ignored mail
 * (why the checks ignored it, to reopen what they got wrong), rejected, sent or failed tickets.
 */
function renderStateList(view: TicketListView, state: TicketState, rows: readonly SafeHtml[]): SafeHtml {
  const pages = Math.max(1, Math.ceil(view.total / view.pageSize));
  const page = (n: number) => `/?state=${state}&page=${n}`;
  return html`<section class="card">
  <h2>${stateTitle(state)} <span class="muted">(${view.total})</span> <span class="order small">newest first · <a href="/">back to the tickets waiting for review</a></span></h2>
  ${state === 'ignored' ? html`<p class="small muted">Mail the automatic checks decided needs no reply. Open one the checks got wrong (a customer's question from an address that looks automated, or carrying a list header) to reopen it for review.</p>` : null}
  ${view.tickets.some(waitsForModelServer) ? html`<p class="small muted">A ticket waiting for the model server is answered by the agent once the server answers again. To answer one yourself now, open it and press “Answer it yourself (stop waiting for the model)”.</p>` : null}
  ${
    rows.length > 0
      ? html`<table class="list">
    <colgroup><col class="${state === 'sent' ? 'when' : 'age'}"><col class="from"><col class="subject"><col></colgroup>
    <thead><tr>${state === 'sent' ? html`<th>Sent</th><th>From</th><th>Subject</th><th>How it went out</th>` : html`<th>Age</th><th>From</th><th>Subject</th><th>${reasonLabel(state)}</th>`}</tr></thead>
    <tbody>${rows}</tbody>
  </table>`
      : html`<p class="empty">No ${state} tickets.</p>`
  }
  ${
    pages > 1
      ? html`<div class="pager">
    ${view.page > 1 ? html`<a href="${page(view.page - 1)}">← newer</a>` : null}
    <span class="muted">page ${view.page} of ${pages}</span>
    ${view.page < pages ? html`<a href="${page(view.page + 1)}">older →</a>` : null}
  </div>`
      : null
  }
</section>`;
}

/** The parked tickets' card of the start page, with the order toggle and the pager. */
function renderParked(view: TicketListView, rows: readonly SafeHtml[]): SafeHtml {
  const pages = Math.max(1, Math.ceil(view.total / view.pageSize));
  return html`<section class="card">
  <h2>Waiting for review <span class="muted">(${view.total})</span> ${view.total > 1 ? orderToggle(view.order) : null}</h2>
  ${
    rows.length > 0
      ? html`<table class="list">
    <colgroup><col class="age"><col class="from"><col class="subject"><col></colgroup>
    <thead><tr><th>Age</th><th>From</th><th>Subject</th><th>Why parked</th></tr></thead>
    <tbody>${rows}</tbody>
  </table>`
      : html`<p class="empty">Nothing waits for a person.</p>`
  }
  ${
    pages > 1
      ? html`<div class="pager">
    ${view.page > 1 ? html`<a href="/?order=${view.order}&amp;page=${view.page - 1}">← ${view.order === 'oldest' ? 'older' : 'newer'}</a>` : null}
    <span class="muted">page ${view.page} of ${pages}</span>
    ${view.page < pages ? html`<a href="/?order=${view.order}&amp;page=${view.page + 1}">${view.order === 'oldest' ? 'newer' : 'older'} →</a>` : null}
  </div>`
      : null
  }
</section>`;
}

/** Data of the detail page. */
export interface TicketDetailView {
  ticket: Ticket;
  /** The mail's full text (from the stored raw mail), or `undefined` when it is not available. */
  mailText: string | undefined;
  /** Why {@link mailText} is missing, when it is. */
  mailTextNote?: string | undefined;
  /**
   * The learned pairs among the sources (`learned#<n>` → the ticket that taught it, or null when the pair has been
   * removed since).
   */
  learnedSources?: ReadonlyMap<string, string | null> | undefined;
  /** The learned-answer candidates and pairs this ticket's approval taught (audit H4, LOW 7); none shown when absent. */
  taught?: TaughtByTicket | undefined;
  /**
   * Why the reply will leave out the customer's mail although it goes to the From (the sender's decision,
   * `quoteOmission` in src/tickets/quote-omission.ts); undefined when it quotes it, or goes to another mailbox.
   */
  quoteOmitted?: string | undefined;
  now: Date;
  csrfToken: string;
  user: string | undefined;
  flash?: Flash | undefined;
  /** The IANA zone the page's times are shown in (default UTC). */
  timeZone?: string | undefined;
  /** The other mail of the ticket's conversation; absent, the page shows none and its approval names none it saw. */
  conversation?: ConversationView | undefined;
  /** Where the sender stands with a reply the SMTP server has not accepted yet. */
  sendRetry?: SendRetryStatus | undefined;
  /** A draft parked for trust alone (`REVIEW_MODE=learn`): its cited sources and how each stands now. */
  learning?: LearningView | undefined;
}

/** The sources of a draft parked for trust alone, each with its standing read when the page was built. */
export interface LearningView {
  sources: ReadonlyArray<{ label: string; standing: TrustStanding }>;
}

/** What a draft parked for trust alone waits for, in plain words, first on its page. */
export const WAITS_FOR_TRUST =
  'The checks passed. This draft waits only because the desk is still learning: its sources have not been approved often enough yet. Approving it unchanged counts toward trusting them.';

/** The same draft once every source it cites has been trusted since it was parked. */
const TRUSTED_SINCE =
  'The checks passed, and every source this draft cites has been trusted since it was parked: a draft like it now goes out on its own. Approving it sends it as written.';

/**
 * Why a draft parked for trust waits, in place of its parking reason (whose counts are those of when it was parked,
 * and whose sources are keys ending in a hash): the plain sentence, then each cited source by name with its count now.
 */
function renderLearning(learning: LearningView): SafeHtml {
  const allTrusted = learning.sources.every((s) => s.standing.record.trusted);
  const rows = learning.sources.map((s) => html`<tr><td><bdi>${s.label}</bdi></td><td>${describeStanding(s.standing)}</td></tr>`);
  return html`<div id="learning">
    <p>${allTrusted ? TRUSTED_SINCE : WAITS_FOR_TRUST}</p>
    <table class="numbers">
      <caption>The sources it cites, counted now</caption>
      <thead><tr><th>Source</th><th>Reviews</th></tr></thead>
      <tbody>${rows}</tbody>
    </table>
  </div>`;
}

function subtaskStatus(s: Subtask): SafeHtml {
  if (s.usedFallback) return html`<span class="badge fallback">not found</span>`;
  if (s.isCompleted) return html`<span class="badge done">answered</span>`;
  return html`<span class="badge partial">incomplete</span>`;
}

/** The widest a manual section's heading is shown beside its file name, in columns (a CJK character takes two). */
const SECTION_HEADING_COLUMNS = 120;

/**
 * The section a manual result sits under, as the search hands it to the agent (its first line, `【章 > 節】`), after
 * the file name: the same file name three times tells the operator nothing. Q&A results are named by their row. The
 * heading is the manual's text, as long as its author made it: cut to one line and in <bdi> (review 44b). A chunk with
 * no heading whose own text opens with such a line (`【重要】`) reads the same: the result carries nothing to tell them
 * apart.
 */
function manualSection(toolName: string, content: string): SafeHtml | null {
  const heading = toolName === MANUAL_TOOL_NAME ? /^【([^】\n]+)】(?:\n|$)/.exec(content)?.[1] : undefined;
  return heading ? html` <span class="muted">§ <bdi>${cut(heading, SECTION_HEADING_COLUMNS)}</bdi></span>` : null;
}

function renderSubtask(s: Subtask, index: number): SafeHtml {
  const tools = s.toolResults.flatMap((attempt, tryIndex) =>
    attempt.map(
      (call) =>
        html`<li>try ${tryIndex + 1}: <code>${call.toolName}</code> ${call.args} → ${
          call.results.length > 0 ? call.results.map((r, i) => html`${i > 0 ? '; ' : ''}${r.fileName}${manualSection(call.toolName, r.content)}`) : 'no results'
        }</li>`,
    ),
  );
  const advice = s.reflectionResults.map(
    (r, i) => html`<li>try ${i + 1} ${r.isCompleted ? '(sufficient)' : '(insufficient)'}: ${r.advice}</li>`,
  );
  return html`<div class="subtask">
  <header><h3>${index + 1}. ${s.taskName}</h3>${subtaskStatus(s)}</header>
  <div class="answer">${s.subtaskAnswer}</div>
  ${tools.length > 0 ? html`<div class="small muted">Searches</div><ul>${tools}</ul>` : null}
  ${advice.length > 0 ? html`<div class="small muted">Reflection advice</div><ul>${advice}</ul>` : null}
</div>`;
}

function renderSource(s: { kind: 'manual' | 'qa'; fileName: string }, learned: ReadonlyMap<string, string | null> | undefined): SafeHtml {
  if (!learned?.has(s.fileName)) return html`<li><span class="muted">${s.kind === 'qa' ? 'Q&A' : 'manual'}</span> ${s.fileName}</li>`;
  const teacher = learned.get(s.fileName);
  return html`<li><span class="badge learned">learned pair</span> <a href="/knowledge#pair-${s.fileName.slice(s.fileName.indexOf('#') + 1)}">${s.fileName}</a> ${
    teacher ? html`<span class="muted">taught by <a href="/tickets/${teacher}">ticket ${teacher.slice(0, 12)}</a></span>` : html`<span class="muted">(removed since)</span>`
  }</li>`;
}

/**
 * What this ticket's approval taught the knowledge base: candidates waiting on the Knowledge page and accepted pairs
 * that name the ticket, so an operator can trace a pair back to its tickets and a ticket forward to its pairs.
 */
function renderTaught(ticketId: string, taught: TaughtByTicket | undefined): SafeHtml | null {
  if (!taught || (taught.candidates.length === 0 && taught.pairs.length === 0)) return null;
  const candidates = taught.candidates.map(
    (c) => html`<li><span class="badge">candidate</span> <a href="/knowledge#candidate-${String(c.id)}">candidate ${String(c.id)}</a> <bdi>${c.question}</bdi>${
      c.ticketId === ticketId ? null : html` <span class="muted small">(this approval was folded into it)</span>`
    }</li>`,
  );
  const pairs = taught.pairs.map(
    (p) => html`<li><span class="badge learned">learned pair</span> <a href="/knowledge#pair-${String(p.id)}">learned#${String(p.id)}</a> <bdi>${p.question}</bdi> <span class="muted small">${
      p.ticketId === ticketId ? 'its current text is this ticket’s' : p.previous?.some((old) => old.ticketId === ticketId) ? 'this ticket’s text is among its previous answers' : 'its current text came from another ticket'
    }</span></li>`,
  );
  return html`<section class="card" id="taught">
  <h2>What this ticket taught</h2>
  <ul class="sources">${candidates}${pairs}</ul>
</section>`;
}

/** How long the agent's run took: a tenth of a second under 10 s (a scripted run takes 0.4 s, not "0 s"). */
function runDuration(ms: number): string {
  return ms < 10_000 ? `${(Math.max(0, ms) / 1000).toFixed(1)} s` : formatDuration(ms);
}

function renderAgent(ticket: Ticket, learned: ReadonlyMap<string, string | null> | undefined): SafeHtml {
  const agent = ticket.agent;
  if (!agent) return html`<section class="card"><h2>Agent</h2><p class="muted">The agent has not run on this ticket.</p></section>`;
  const sources = agent.sources.map((s) => renderSource(s, learned));
  return html`<section class="card">
  <h2>Plan</h2>
  ${agent.plan.subtasks.length > 0 ? html`<ol class="plan">${agent.plan.subtasks.map((t) => html`<li>${t}</li>`)}</ol>` : html`<p class="muted">No subtasks were planned.</p>`}
  ${agent.droppedSubtasks.length > 0 ? html`<p class="small muted">Dropped (over MAX_SUBTASKS): ${agent.droppedSubtasks.join(' / ')}</p>` : null}
  ${agent.subtasks.map((s, i) => renderSubtask(s, i))}
</section>
<section class="card">
  <h2>Sources used</h2>
  ${sources.length > 0 ? html`<ul class="sources">${sources}</ul>` : html`<p class="muted">No sources.</p>`}
  <p class="small muted">${agent.usage.calls} LLM calls · ${agent.usage.promptTokens} prompt + ${agent.usage.completionTokens} completion tokens · run ${runDuration(agent.durationMs)}${agent.truncated ? ' · question was truncated' : ''}</p>
</section>`;
}

/** Tall enough to show the whole draft without scrolling, within reason (the operator reads it before approving). */
function draftRows(draft: string | undefined): number {
  const lines = (draft ?? '').split('\n').reduce((n, line) => n + Math.max(1, Math.ceil(line.length / 45)), 0);
  return Math.min(Math.max(lines + 1, 10), 36);
}

/** What the page showed of the ticket, so a decision taken on it is refused once the ticket moved on. */
function seenField(ticket: Ticket): SafeHtml {
  return html`<input type="hidden" name="seen" value="${String(ticket.history.length)}">`;
}

/**
 * "Get a new draft": the agent writes the reply again (after its cause was fixed) and the draft comes back here. Not
 * offered where {@link whyNoNewDraft} refuses it; the page says why instead.
 */
function renderNewDraft(ticket: Ticket, csrfToken: string): SafeHtml {
  const refused = whyNoNewDraft(ticket);
  if (refused) return html`<p class="small muted new-draft">${refused}.</p>`;
  // A ticket the agent never answered (mail reopened after the checks ignored it) has no draft to replace.
  const hasDraft = Boolean(ticket.draft?.trim());
  // A draft parked for trust alone has no cause to fix: only a wrong draft is worth another.
  const offer = !hasDraft
    ? 'No draft yet: the agent can write one; it comes back here for you to review, nothing is sent.'
    : parkedForTrust(ticket.reason)
      ? 'Nothing needs fixing for this draft: the checks passed. If it is wrong, the agent can write a new one; it comes back here for you to review, nothing is sent.'
      : "Fixed the cause (the model's settings, the manual)? The agent writes a new draft; it comes back here for you to review, nothing is sent.";
  return html`<form method="post" action="/tickets/${ticket.id}/rerun" class="reject">
    ${csrfField(csrfToken)}
    ${seenField(ticket)}
    <span class="small muted">${offer}</span>
    <button type="submit">Get a new draft</button>
  </form>`;
}

/**
 * "Reopen for review", for mail the automatic checks ignored: the operator reads why, and reopens what they got wrong
 * (the ticket is parked for the decisions above); for mail that must stay unanswered (a bounce, our own mail), why not.
 */
function renderReopen(ticket: Ticket, csrfToken: string): SafeHtml {
  const refused = whyNotReopenable(ticket);
  if (refused) return html`<p class="small muted">${refused}.</p>`;
  return html`<p class="small muted">If the checks were wrong — a customer's question from an address that looks automated, or carrying a list header — reopen it: it waits for review, where you get a draft from the agent or write the reply yourself. Nothing is sent without you.</p>
  <form method="post" action="/tickets/${ticket.id}/reopen" class="reject">
    ${csrfField(csrfToken)}
    ${seenField(ticket)}
    <input type="text" name="note" maxlength="2000" placeholder="Why, e.g. sent via a CRM" aria-label="Why you reopen it">
    <button type="submit">Reopen for review</button>
  </form>`;
}

/**
 * "Answer it yourself", on a ticket that waits for the model server ({@link waitsForModelServer}) only: the operator
 * takes it from the agent, which no longer answers it, and writes the reply here. Any other `processing` ticket is
 * being answered right now; the server refuses it too.
 */
function renderTakeOver(ticket: Ticket, csrfToken: string): SafeHtml | null {
  if (!waitsForModelServer(ticket)) return null;
  return html`<p class="small muted">The agent waits for the model server and answers this mail by itself once it answers again (see “Reason”). To answer it yourself now, take it over: it is parked here for you without a draft, and the agent no longer answers it. Nothing is sent without you.</p>
  <form method="post" action="/tickets/${ticket.id}/take-over" class="reject">
    ${csrfField(csrfToken)}
    ${seenField(ticket)}
    <button type="submit">Answer it yourself (stop waiting for the model)</button>
  </form>`;
}

/**
 * Above the decision of a reply that may already have reached the customer: what to look for before sending it again
 * (our Message-ID in the Sent folder or the server's log), when, and what the SMTP server (did not) say.
 */
function renderMaybeSentWarning(attempts: readonly UncertainSendAttempt[], timeZone: string | undefined): SafeHtml | null {
  if (attempts.length === 0) return null;
  const items = attempts.map(
    (a) => html`<li>attempt at ${timeTag(a.at, timeZone)}: ${a.error}${a.messageId ? html`<br>our reply's Message-ID <code>${a.messageId}</code>` : null}</li>`,
  );
  return html`<div class="warning" role="alert">
    <strong>This reply may already have reached the customer.</strong>
    The whole reply was handed to the mail server, then the connection ended without its answer:
    <ul>${items}</ul>
    Before sending it again, look for this Message-ID in the support mailbox's Sent folder or the mail server's log. If it arrived (it is in the log, the customer answered it), do not approve: close it with “It arrived — close as sent”, which sends nothing.
  </div>`;
}

/** The operator's check before a reply that may already have arrived is sent again; the server refuses without it. */
function noCopyCheck(attempts: readonly UncertainSendAttempt[]): SafeHtml | null {
  if (attempts.length === 0) return null;
  return html`<label class="check"><input type="checkbox" name="${NO_COPY_CHECKED}" value="yes" required> I checked: the customer has no copy of this reply</label>`;
}

/**
 * "It arrived — close as sent", for a reply that may already have reached the customer: the operator found it did,
 * and the ticket ends `sent` on their word; nothing is sent.
 */
function renderArrived(ticket: Ticket, attempts: readonly UncertainSendAttempt[], csrfToken: string): SafeHtml | null {
  if (attempts.length === 0) return null;
  return html`<form method="post" action="/tickets/${ticket.id}/arrived" class="reject">
    ${csrfField(csrfToken)}
    ${seenField(ticket)}
    <input type="text" name="note" maxlength="2000" placeholder="How you know (optional)" aria-label="How you know it arrived">
    <button type="submit">It arrived — close as sent</button>
  </form>`;
}

/**
 * "Acknowledge and close", for a reply that cannot be delivered ({@link undeliverableWhy}) or a bounce: a parked
 * ticket ends without a reply, not as a judgement of its draft; a bounced ticket in another state keeps it and leaves
 * the start page's list.
 */
function renderCloseUndeliverable(ticket: Ticket, csrfToken: string): SafeHtml {
  const parked = ticket.state === 'parked';
  return html`<form method="post" action="/tickets/${ticket.id}/close" class="reject">
    ${csrfField(csrfToken)}
    ${seenField(ticket)}
    <input type="text" name="note" maxlength="2000" placeholder="${parked ? 'Note, e.g. phoned them' : 'What you did (optional)'}" aria-label="Note on closing">
    <button type="submit">Acknowledge and close</button>
  </form>
  <p class="small muted">${
    parked
      ? 'The mail server will not deliver this reply to this address. “Acknowledge and close” ends the ticket without a reply, and it does not count as a rejection of the draft. If the address was fixed, approve it to send it again.'
      : html`The customer has no answer from us. Once you have reached them another way, or there is nothing more to do, acknowledge the bounce: the ticket stays <span class="badge ${badgeClass(ticket.state)}">${ticket.state}</span> and leaves “Replies that did not arrive”.`
  }</p>`;
}

/**
 * Beside a reply still to go out (parked, drafted, approved): that it will not quote the customer's mail, and why. A
 * reply that went out is in the Sent folder as it was sent; the decision is the sender's, taken when it sends.
 */
function renderQuoteNotice(ticket: Ticket, quoteOmitted: string | undefined): SafeHtml | null {
  if (!quoteOmitted || !['parked', 'drafted', 'approved'].includes(ticket.state)) return null;
  return html`<p class="warning small" id="quote-omitted">The customer's mail will not be quoted in the reply: ${quoteOmitted}</p>`;
}

/** What the decision card needs besides the ticket. */
interface DecisionView {
  csrfToken: string;
  timeZone: string | undefined;
  quoteOmitted: string | undefined;
  conversation: ConversationView | undefined;
  sendRetry: SendRetryStatus | undefined;
}

/**
 * The reply that went out: to whom, our Message-ID, when, who vouched for it (a person's approval, or none: sent
 * automatically), what the SMTP server answered, its copy in the Sent folder, and whether it quoted the customer's
 * mail (as the sender decides it from this ticket: to another mailbox than the From, or because of what the quote
 * holds, `quoteOmitted`).
 */
function renderSentReply(ticket: Ticket, timeZone: string | undefined, quoteOmitted: string | undefined): SafeHtml | null {
  const out = ticket.outbound;
  if (ticket.state !== 'sent' || !out) return null;
  const recipient = ticket.replyTo || ticket.from;
  const approver = out.approvedBy ?? (out.autoSubmitted ? undefined : approverOf(ticket));
  const how = out.autoSubmitted ? 'sent automatically (no person approved it)' : approver ? `approved by ${approver}` : 'approved by a person';
  const quote = !isSameMailbox(recipient, ticket.from)
    ? "left out: the reply went to another mailbox than the sender's"
    : quoteOmitted
      ? `left out: ${quoteOmitted}`
      : "the customer's mail was quoted below the reply";
  return html`<dl class="meta" id="sent-reply">
    <dt>To</dt><dd>${recipient}</dd>
    <dt>Our Message-ID</dt><dd><code>${out.messageId}</code></dd>
    <dt>Sent</dt><dd>${out.sentAt ? timeTag(out.sentAt, timeZone) : 'no time recorded'}${out.deliveryCheck?.verdict === 'arrived' ? html` <span class="muted small">(the attempt that a person confirmed arrived)</span>` : null}</dd>
    <dt>How</dt><dd>${how}</dd>
    ${out.smtpResponse ? html`<dt>SMTP answer</dt><dd><code>${out.smtpResponse}</code></dd>` : null}
    <dt>Sent folder</dt><dd>${out.sentCopy ? html`copy filed in <code>${out.sentCopy.mailbox}</code> ${timeTag(out.sentCopy.at, timeZone)}` : 'no copy filed (IMAP_SENT_MAILBOX is off, or the copy has not been filed yet)'}</dd>
    <dt>Quote</dt><dd>${quote}</dd>
  </dl>`;
}

/**
 * A reply the SMTP server has not accepted yet: that it is not sent, how many attempts failed and why, when the next
 * one starts, and when, if every attempt fails, it is parked here for a person.
 */
function renderSendRetry(retry: SendRetryStatus | undefined, timeZone: string | undefined): SafeHtml | null {
  if (!retry) return null;
  return html`<div class="warning" role="status" id="send-retry">
    <strong>Not sent yet:</strong> the mail server did not accept this reply. Attempt ${retry.failedAttempts} of ${retry.attempts} failed ${timeTag(retry.lastFailedAt, timeZone)}: ${retry.lastError}.
    The sender tries again by ${timeTag(retry.nextAttemptBy, timeZone)}${
      retry.failedAttempts + 1 < retry.attempts ? html`; if every attempt fails, the last starts by ${timeTag(retry.lastAttemptBy, timeZone)}, and the reply is then parked here for you` : html`; that is the last attempt: if it fails, the reply is parked here for you`
    }. Nothing needs doing now; if the mail server stays down, see “Readiness”.
  </div>`;
}

/** The later mail of the conversation, at the draft: the customer wrote again, and the draft may no longer fit. */
function renderLaterMailWarning(conversation: ConversationView | undefined): SafeHtml | null {
  if (!conversation || conversation.laterTotal === 0) return null;
  const links = conversation.later.map((m, i) => html`${i > 0 ? ', ' : ''}<a href="/tickets/${m.ticketId}"><bdi>${m.subject || '(no subject)'}</bdi></a>`);
  const more = conversation.laterTotal > conversation.later.length ? ` and ${conversation.laterTotal - conversation.later.length} more` : '';
  return html`<div class="warning" role="alert" id="later-mail">
    <strong>The customer wrote again after this mail:</strong> ${links}${more} (see “Conversation”). Read it before you approve: this draft may no longer fit.
  </div>`;
}

/** The operator's word that they read the later mail; the server refuses the approval without it. */
function laterMailCheck(conversation: ConversationView | undefined): SafeHtml | null {
  if (!conversation || conversation.laterTotal === 0) return null;
  return html`<label class="check"><input type="checkbox" name="${READ_NEWER_MAIL}" value="yes" required> I read the customer's later mail</label>`;
}

/** At the top of the page of a possibly forged sender's mail: who a reply would really reach, and what to do. */
function renderUnverifiedSender(ticket: Ticket): SafeHtml | null {
  const why = ticket.state === 'parked' ? unverifiedSender(ticket) : undefined;
  if (!why) return null;
  return html`<div class="flash bad" role="alert" id="unverified-sender">
    <strong>The sender may be forged.</strong> ${why}. A reply goes to ${ticket.replyTo || ticket.from}, who may not have written this mail.
    Reject it unless you verified another way (a phone call, an address you already know) that they did.
  </div>`;
}

/** The operator's word that they verified the sender; the server refuses the approval without it. */
function senderCheck(ticket: Ticket): SafeHtml | null {
  if (!unverifiedSender(ticket)) return null;
  return html`<label class="check"><input type="checkbox" name="${SENDER_VERIFIED}" value="yes" required> I verified the sender another way</label>`;
}

function renderDecision(ticket: Ticket, view: DecisionView): SafeHtml {
  const { csrfToken, timeZone, quoteOmitted, conversation } = view;
  if (ticket.state === 'ignored') {
    return html`<section class="card">
  <h2>No reply</h2>
  <p class="muted">The automatic checks decided this mail needs no reply${ticket.reason ? ' (see “Why ignored”)' : ''}.</p>
  ${renderReopen(ticket, csrfToken)}
</section>`;
  }
  if (ticket.state !== 'parked') {
    const sent = renderSentReply(ticket, timeZone, quoteOmitted);
    return html`<section class="card">
  <h2>${sent ? 'Sent reply' : 'Reply'}</h2>
  ${renderSendRetry(view.sendRetry, timeZone)}
  ${sent ?? html`<p class="muted">This ticket is <span class="badge ${badgeClass(ticket.state)}">${ticket.state}</span>; only parked tickets can be approved or rejected.</p>`}
  ${renderTakeOver(ticket, csrfToken)}
  ${renderQuoteNotice(ticket, quoteOmitted)}
  ${ticket.draft ? html`<pre class="text">${ticket.draft}</pre>` : null}
  ${ticket.replyBounce && !ticket.replyBounce.acknowledged ? renderCloseUndeliverable(ticket, csrfToken) : null}
</section>`;
  }
  const uncertain = uncertainSendAttempts(ticket);
  // A possibly forged sender's draft is not one keystroke away: approving is secondary, behind the operator's check.
  const unverified = unverifiedSender(ticket) !== undefined;
  // Mail the checks parked as needing no reply (a repeated question whose first copy has or gets the reply, a
  // forward, a circular) has no draft: sending is then the exception, not the action the page leads to.
  const noReplyNeeded = needsNoReply(ticket);
  // The line feed right after <textarea> is the one the HTML parser drops (html.spec.whatwg.org, "element
  // restrictions"): without it a draft's own leading newline is lost and an untouched approval reads as an edit.
  return html`<section class="card">
  <h2>Draft reply</h2>
  ${renderMaybeSentWarning(uncertain, timeZone)}
  ${renderLaterMailWarning(conversation)}
  ${renderQuoteNotice(ticket, quoteOmitted)}
  <form method="post" action="/tickets/${ticket.id}/approve">
    ${csrfField(csrfToken)}
    ${seenField(ticket)}
    ${conversation ? html`<input type="hidden" name="${CONVERSATION_SEEN}" value="${conversation.newestAt}">` : null}
    <label for="reply" class="small muted">${replyLabel(ticket, noReplyNeeded)}</label>
    <textarea id="reply" name="reply" rows="${draftRows(ticket.draft)}" required autofocus>\n${ticket.draft ?? ''}</textarea>
    <div class="actions">
      ${noCopyCheck(uncertain)}
      ${laterMailCheck(conversation)}
      ${senderCheck(ticket)}
      <button type="submit" class="${unverified || noReplyNeeded ? 'secondary' : 'primary'}">Approve and send</button>
    </div>
  </form>
  ${renderArrived(ticket, uncertain, csrfToken)}
  ${undeliverableWhy(ticket) ? renderCloseUndeliverable(ticket, csrfToken) : null}
  ${renderReject(ticket, unverified, csrfToken)}
  ${renderNewDraft(ticket, csrfToken)}
</section>`;
}

/**
 * What the reply box holds: the draft to edit, or nothing, said so with why (the reason above tells which), so that an
 * empty box under "Draft reply" does not read as a draft lost.
 */
function replyLabel(ticket: Ticket, noReplyNeeded: boolean): string {
  if (ticket.draft?.trim()) return 'Edit the reply if needed; it is sent exactly as written here.';
  if (noReplyNeeded) {
    return 'There is no draft: the checks parked this mail as needing no reply of its own (see the reason). Write a reply only if one is needed; it is sent exactly as written here.';
  }
  return 'There is no draft (see the reason): write the reply here; it is sent exactly as written.';
}

/**
 * The reject form of a parked ticket. Without a draft, on mail the checks parked before the agent as asking nothing
 * of us (`needsNoReply`: no question, a colleague's forward, a recall, an invitation, a circular), rejecting it is the operator's word that the mail needs no reply, and the insights count it so
 * (`rejected:no_draft`): the button says that; the route and the action are the same. Mail the agent failed on, or
 * that a limit or its size parked, needed an answer: its button stays "Reject".
 */
function renderReject(ticket: Ticket, unverified: boolean, csrfToken: string): SafeHtml {
  const noDraft = needsNoReply(ticket);
  const example = unverified ? 'sender could not be verified' : noDraft ? 'an FYI forward' : 'answered by phone';
  return html`<form method="post" action="/tickets/${ticket.id}/reject" class="reject">
    ${csrfField(csrfToken)}
    ${seenField(ticket)}
    <input type="text" name="reason" required maxlength="2000" placeholder="Reason, e.g. ${example}" aria-label="${noDraft ? 'Why no reply is needed' : 'Reason for rejecting'}">
    <button type="submit" class="danger">${noDraft ? 'No reply needed' : 'Reject'}</button>
  </form>`;
}

/** One other mail of the conversation: when, its state, its subject (a link to it), what the customer wrote, our reply. */
function renderConversationMail(mail: ConversationEntry, timeZone: string | undefined): SafeHtml {
  return html`<div class="subtask">
  <header><h3>${timeTag(mail.createdAt, timeZone)} · <a href="/tickets/${mail.ticketId}"><bdi>${mail.subject || '(no subject)'}</bdi></a></h3><span class="badge ${badgeClass(mail.state)}">${mail.state}</span></header>
  <div class="answer">${mail.question}</div>
  ${mail.reply !== undefined ? html`<div class="small muted">Our reply${mail.repliedAt ? html`, sent ${timeTag(mail.repliedAt, timeZone)}` : null}</div><pre class="text">${mail.reply}</pre>` : null}
</div>`;
}

/**
 * The other mail of the ticket's conversation, oldest first, this mail's place among them marked: what was asked
 * and answered before, and what the customer wrote after it. Absent when the conversation is this mail alone.
 */
function renderConversation(ticket: Ticket, conversation: ConversationView | undefined, timeZone: string | undefined): SafeHtml | null {
  if (!conversation || (conversation.earlier.length === 0 && conversation.laterTotal === 0)) return null;
  const hidden = conversation.laterTotal - conversation.later.length;
  return html`<section class="card" id="conversation">
  <h2>Conversation <span class="muted">(${conversation.earlier.length} earlier, ${conversation.laterTotal} later)</span></h2>
  ${conversation.earlier.map((m) => renderConversationMail(m, timeZone))}
  <p class="small"><b>This mail</b>, received ${timeTag(ticket.createdAt, timeZone)}</p>
  ${conversation.later.map((m) => renderConversationMail(m, timeZone))}
  ${hidden > 0 ? html`<p class="small muted">and ${hidden} more later mail not shown.</p>` : null}
</section>`;
}

/**
 * How to erase this customer. A command rather than a button: erasure cannot be undone, also rewrites the archive
 * under the maintenance role's DATA_DIR, and lists what it would remove before it is run with `--yes`.
 */
function renderCustomerData(ticket: Ticket): SafeHtml {
  const addresses = [...new Set([ticket.from, ticket.replyTo].filter((a) => a !== ''))];
  return html`<section class="card">
  <h2>Customer data</h2>
  <p class="small muted">To erase everything stored about this customer on request (tickets, raw mail, conversation entries, archive lines and rate-limit windows), run where DATA_DIR is mounted:</p>
  ${addresses.map((a) => html`<pre class="text"><code>${forgetCommand(a)}</code></pre>`)}
  <p class="small muted">Without <code>--yes</code> it only lists what it would remove; add <code>--yes</code> to remove it.</p>
</section>`;
}

/** A person's word on the reply's delivery, where no SMTP answer settled it: who, when, and their note. */
function renderDeliveryCheck(ticket: Ticket, timeZone: string | undefined): SafeHtml | null {
  const check = ticket.outbound?.deliveryCheck;
  if (!check) return null;
  const what = check.verdict === 'arrived' ? `arrived: confirmed by ${check.by}, not by the mail server` : `undeliverable: closed by ${check.by} without a reply`;
  return html`<dt>Delivery</dt><dd>${what} <span class="muted small">${timeTag(check.at, timeZone)}</span>${check.note ? html`: ${check.note}` : null}</dd>`;
}

/** The detail page of one ticket: the mail, the draft with approve/reject, and the agent's work. */
export function renderTicketDetail(view: TicketDetailView): SafeHtml {
  const t = view.ticket;
  const zone = view.timeZone;
  const history = t.history.map(
    (h) => html`<tr><td class="small">${timeTag(h.at, zone)}</td><td>${h.from ?? '—'} → ${h.to}</td><td class="text">${h.actor}</td><td class="text">${withTicketLinks(h.note ?? '')}</td></tr>`,
  );
  // Each name opens the attachment as a download (src/server/attachments.ts), read from the stored raw mail.
  const attachments = t.attachments.map(
    (a, i) => html`<li><bdi><a href="/tickets/${t.id}/attachments/${i + 1}">${a.filename ?? '(unnamed)'}</a></bdi> <span class="muted">${a.contentType}, ${a.size} bytes</span></li>`,
  );
  const body = html`
${flashBanner(view.flash)}
${renderUnverifiedSender(t)}
${t.replyBounce ? html`<div class="flash bad" role="alert">Our reply did not arrive: a bounce came back (${describeBounce(t.replyBounce)}). The customer has no answer.</div>` : null}
<p class="small">${t.state === 'ignored' ? html`<a href="${stateListPath(t.state)}">← all ignored mail</a> · ` : null}<a href="/">← all parked tickets</a></p>
<section class="card">
  <h1><bdi>${t.subject || '(no subject)'}</bdi></h1>
  <span class="badge ${badgeClass(t.state)}">${t.state}</span>
  <dl class="meta">
    <dt>From</dt><dd>${sender(t)}</dd>
    ${t.replyTo !== t.from ? html`<dt>Reply-To</dt><dd>${t.replyTo}</dd>` : null}
    <dt>Received</dt><dd>${timeTag(t.createdAt, zone)} <span class="muted">(${formatDuration(view.now.getTime() - Date.parse(t.createdAt))} ago)</span></dd>
    ${t.reason ? html`<dt>${reasonLabel(t.state)}</dt><dd>${view.learning ? renderLearning(view.learning) : withTicketLinks(t.reason)}</dd>` : null}
    ${
      t.replyBounce
        ? html`<dt>Reply bounced</dt><dd>${describeBounce(t.replyBounce)} <span class="muted small">${timeTag(t.replyBounce.at, zone)}</span> · <a href="/tickets/${t.replyBounce.reportTicketId}">the bounce</a>${
            t.replyBounce.acknowledged ? html`<br>acknowledged by ${t.replyBounce.acknowledged.by} <span class="muted small">${timeTag(t.replyBounce.acknowledged.at, zone)}</span>${t.replyBounce.acknowledged.note ? html`: ${t.replyBounce.acknowledged.note}` : null}` : null
          }</dd>`
        : null
    }
    ${renderDeliveryCheck(t, zone)}
    ${t.outcome ? html`<dt>Outcome</dt><dd><span class="outcome">${describeOutcome(t.outcome)}</span> <span class="muted small">${timeTag(t.outcome.at, zone)}</span></dd>` : null}
    <dt>Message-ID</dt><dd><code>${t.messageId}</code></dd>
    ${attachments.length > 0 ? html`<dt>Attachments</dt><dd><ul class="sources">${attachments}</ul></dd>` : null}
  </dl>
</section>
<div class="columns">
  <section class="card">
    <h2>Original mail</h2>
    ${view.mailTextNote ? html`<p class="small muted">${view.mailTextNote}</p>` : null}
    <pre class="text">${view.mailText ?? t.question}</pre>
  </section>
  ${renderDecision(t, { csrfToken: view.csrfToken, timeZone: zone, quoteOmitted: view.quoteOmitted, conversation: view.conversation, sendRetry: view.sendRetry })}
</div>
${renderConversation(t, view.conversation, zone)}
${renderAgent(t, view.learnedSources)}
${renderTaught(t.id, view.taught)}
<section class="card">
  <h2>History</h2>
  <table class="history"><colgroup><col class="when"><col class="change"><col class="by"><col></colgroup><thead><tr><th>When</th><th>Change</th><th>By</th><th>Note</th></tr></thead><tbody>${history}</tbody></table>
</section>
${renderCustomerData(t)}`;
  return layout({ title: t.subject || 'Ticket', user: view.user, section: 'review', body });
}

/** What an operator typed into a refused form (the edited reply, the rejection's reason), shown so it is not lost. */
export interface SubmittedText {
  /** What the text is, e.g. "Your reply". */
  label: string;
  text: string;
}

/** The refused form's text, read-only: selectable and copyable, never submitted from here. */
function renderSubmitted(submitted: SubmittedText | undefined): SafeHtml | null {
  if (!submitted?.text.trim()) return null;
  // The line feed after <textarea> is dropped by the HTML parser; the text's own first one stays (see renderDecision).
  return html`<section class="card">
  <h2>${submitted.label} as you submitted it</h2>
  <p class="small muted">It was not sent and not saved. Copy it before you reload the ticket if you still need it: the message above says what is left to decide.</p>
  <textarea id="submitted" readonly rows="${draftRows(submitted.text)}" aria-label="${submitted.label} as you submitted it">\n${submitted.text}</textarea>
</section>`;
}

/**
 * A page saying something went wrong (or was refused), with a way back and what the operator had typed; `section`,
 * the part of the dashboard it belongs to (a refused review decision: `review`), for the navigation.
 */
export function renderMessagePage(options: { status: number; message: string; user: string | undefined; back?: string; submitted?: SubmittedText | undefined; section?: Section }): SafeHtml {
  // A refusal may name other tickets (the customer's later mail): each a link, the rest escaped.
  const body = html`<div class="flash bad" role="alert">${withTicketLinks(options.message)}</div>
${renderSubmitted(options.submitted)}
<p><a href="${options.back ?? '/'}">← back</a></p>`;
  return layout({ title: `Error ${options.status}`, user: options.user, section: options.section, body });
}

/** Characters of a ticket id shown in lists (what `npm run review -- list` prints). */
const SHORT_TICKET_ID = 12;

function renderGapRow(gap: KnowledgeGap, timeZone: string | undefined): SafeHtml {
  const tickets = gap.tickets.map((id, i) => html`${i > 0 ? ', ' : ''}<a href="/tickets/${id}"><code>${id.slice(0, SHORT_TICKET_ID)}</code></a>`);
  const closed = gap.closedAt
    ? html`<div class="small muted">closed ${timeTag(gap.closedAt, timeZone)} by ${
        gap.closedBy ? html`<a href="/tickets/${gap.closedBy}"><code>${gap.closedBy.slice(0, SHORT_TICKET_ID)}</code></a>` : 'a later ticket'
      }${gap.closedByQuestion ? html`: ${gap.closedByQuestion}` : null}</div>`
    : null;
  return html`<tr>
      <td class="nowrap"><b>${gap.count}</b></td>
      <td><ul class="sources">${gap.examples.map((e) => html`<li>${e}</li>`)}</ul>${closed}</td>
      <td class="nowrap small">${timeTag(gap.firstSeen, timeZone)}</td>
      <td class="nowrap small">${timeTag(gap.lastSeen, timeZone)}</td>
      <td class="small">${tickets}${gap.count > gap.tickets.length ? html` <span class="muted">(latest ${gap.tickets.length} of ${gap.count})</span>` : null}</td>
    </tr>`;
}

function gapTable(gaps: readonly KnowledgeGap[], timeZone: string | undefined): SafeHtml {
  return html`<table>
    <thead><tr><th>Tickets</th><th>Questions</th><th>First seen</th><th>Last seen</th><th>Ticket ids</th></tr></thead>
    <tbody>${gaps.map((gap) => renderGapRow(gap, timeZone))}</tbody>
  </table>`;
}

/**
 * The knowledge gaps for the Knowledge page: open gaps largest first (what to write into the manual next), then the
 * closed ones the list carries, each with the ticket whose answer closed it. Every question shown is customer or
 * model text, escaped like the rest of the page.
 */
export function renderGapsSection(gaps: Pick<GapList, 'open' | 'closed' | 'openTotal' | 'closedTotal'>, timeZone?: string): SafeHtml {
  return html`<section class="card" id="gaps">
  <h2>Knowledge gaps <span class="muted">(${gaps.openTotal} open)</span></h2>
  <p class="small muted">Questions the agent could not answer from the manual or the Q&amp;A, and rejected drafts, grouped by topic; the largest gap is what to write into the manual next. A gap closes when a later ticket on it is answered.</p>
  ${gaps.open.length > 0 ? gapTable(gaps.open, timeZone) : html`<p class="empty">No open gaps: every recent question was answered.</p>`}
  ${
    gaps.closed.length > 0
      ? html`<h3>Closed <span class="muted">(${gaps.closedTotal})</span></h3>
  ${gapTable(gaps.closed, timeZone)}`
      : null
  }
</section>`;
}
