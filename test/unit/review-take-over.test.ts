/**
 * "Answer it yourself": a ticket that waits for the model server (AGENT_MODEL_OUTAGE_MINUTES) is the one `processing`
 * ticket a person may take from the agent. Which tickets are, read from the reason the agent worker writes, and the
 * review page's button, offered on such a ticket's page only.
 */
import { describe, expect, it } from 'vitest';
import { renderTicketDetail } from '../../src/server/views.js';
import { MODEL_SERVER_WAIT_NOTE } from '../../src/tickets/park-notes.js';
import { takeOverReason } from '../../src/tickets/review.js';
import { newTicket, waitsForModelServer, type HistoryEntry, type Ticket, type TicketState } from '../../src/tickets/ticket.js';

const AT = '2026-03-02T09:00:00.000Z';
const WAIT_REASON = `waiting for the model server since ${AT} (at most 30 minutes, AGENT_MODEL_OUTAGE_MINUTES): the model server at http://127.0.0.1:1/v1 (OPENAI_BASE_URL) failed (503 Service Unavailable); the agent tries again by itself once it answers`;
const base = newTicket({ messageId: '<wait-1@customer.example>', from: 'mary@customer.example', subject: 'Two-factor setup', question: 'How do I set up two-factor?', actor: 'poller' }, new Date(AT));
const entry = (from: TicketState, to: TicketState, actor: string, note?: string): HistoryEntry => ({ from, to, actor, at: AT, ...(note ? { note } : {}) });
const started = [...base.history, entry('received', 'processing', 'agent-worker', 'attempt 1')];
const waiting: Ticket = { ...base, state: 'processing', reason: WAIT_REASON, history: [...started, entry('processing', 'processing', 'agent-worker', WAIT_REASON)] };
const answering: Ticket = { ...base, state: 'processing', history: started };

describe('waitsForModelServer', () => {
  it.each<[string, Pick<Ticket, 'state' | 'reason'>, boolean]>([
    ['processing, the reason the agent worker writes while it waits', waiting, true],
    ['processing, no reason: the agent is answering it', answering, false],
    ['processing after a rerun, the old park reason kept: the agent is answering it', { state: 'processing', reason: 'agent failed 3 time(s) after waiting 31 minutes for the model server: …' }, false],
    ['parked after the wait, its reason naming it', { state: 'parked', reason: `agent failed 3 time(s) after waiting 31 minutes for the model server: …` }, false],
    ['parked with a reason that begins as a wait: not processing', { state: 'parked', reason: WAIT_REASON }, false],
    ['the words elsewhere in the reason', { state: 'processing', reason: `resumed; ${WAIT_REASON}` }, false],
  ])('%s → %s', (_case, ticket, expected) => {
    expect(waitsForModelServer(ticket)).toBe(expected);
  });

  it('reads the beginning the agent worker writes', () => {
    expect(WAIT_REASON.startsWith(MODEL_SERVER_WAIT_NOTE)).toBe(true);
  });
});

describe('the review page of a ticket that waits for the model server', () => {
  const page = (ticket: Ticket) => String(renderTicketDetail({ ticket, mailText: undefined, now: new Date('2026-03-02T12:00:00.000Z'), csrfToken: 'token-1', user: 'anna', timeZone: 'UTC' }));
  const formOf = (html: string, action: string): string | undefined => {
    const start = html.indexOf(`action="${action}"`);
    return start === -1 ? undefined : html.slice(start, html.indexOf('</form>', start));
  };
  const action = `/tickets/${base.id}/take-over`;

  it('offers "Answer it yourself" with the CSRF token and what the page showed', () => {
    const html = page(waiting);
    const form = formOf(html, action);
    expect(form).toBeDefined();
    expect(form).toContain('<input type="hidden" name="_csrf" value="token-1">');
    expect(form).toContain(`<input type="hidden" name="seen" value="${waiting.history.length}">`);
    expect(form).toContain('>Answer it yourself (stop waiting for the model)</button>');
    expect(html).toMatch(/form method="post" action="\/tickets\/[0-9a-f]{64}\/take-over"/);
    // Still no decision on a draft: the agent has none yet.
    expect(formOf(html, `/tickets/${base.id}/approve`)).toBeUndefined();
  });

  it.each<[string, Ticket]>([
    ['a ticket the agent is answering right now', answering],
    ['a received ticket', base],
    ['a parked ticket whose reason still reads as a wait', { ...waiting, state: 'parked' }],
  ])('does not offer it for %s', (_case, ticket) => {
    const html = page(ticket);
    expect(formOf(html, action)).toBeUndefined();
    expect(html).not.toContain('Answer it yourself');
  });

  it('shows a ticket taken over with an empty reply box, its reason saying who took it and that the agent no longer answers it', () => {
    const reason = takeOverReason('anna');
    expect(reason).toMatch(/^taken over by anna while waiting for the model server: /);
    expect(reason).toMatch(/the agent no longer answers it/);
    const takenOver: Ticket = { ...waiting, state: 'parked', reason, history: [...waiting.history, entry('processing', 'parked', 'operator:anna', reason)] };
    const html = page(takenOver);
    const approve = formOf(html, `/tickets/${base.id}/approve`);
    expect(approve).toContain('<textarea id="reply" name="reply" rows="10" required autofocus>\n</textarea>');
    expect(approve).toContain('There is no draft (see the reason): write the reply here');
    expect(html).toContain(reason);
    expect(formOf(html, action)).toBeUndefined();
  });
});
