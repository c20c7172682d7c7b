/**
 * "Reopen for review": mail the automatic checks ignored by mistake (a customer's question from an address that looks
 * automated, or carrying a list header) is found on the review page, shows why it was ignored, and a person reopens
 * it — `ignored → parked`, saying who and why — from the page, the API or `npm run review -- reopen`. A bounce and our
 * own mail stay ignored. A repeated submit is one reopening, a stale page is refused, a new draft asked for it is
 * always parked for a person, and the insights count the ticket's ending once. Real HTTP against the dashboard app,
 * the review CLI as a child process, and a real redis-server.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../src/agent/prices.js';
import { readInsights } from '../../src/tickets/insights.js';
import { outcomeKeys } from '../../src/tickets/outcome.js';
import { reopenReason, rerunAgent } from '../../src/tickets/review.js';
import { newTicket, ticketIdFor, type Ticket } from '../../src/tickets/ticket.js';
import type { TicketStore } from '../../src/tickets/ticket-store.js';
import { basicAuth, postToDashboard, useDashboardHarness, type TestDashboard as Dashboard } from '../support/dashboard.js';
import { runNpm } from '../support/pipeline.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();

const LIST_REASON = 'list: List-Unsubscribe: <mailto:leave@crm.customer.example>';
const BOUNCE_REASON = 'bounce: multipart/report (report-type=delivery-status)';
const OWN_REASON = 'own-address: From: support@helpdesk.test';
const QUESTION = 'Hello, the invoice for March shows the wrong company name. Can you correct it?';

/** A mail the agent worker ignored with `reason` before the agent ran, as jobs/answer-ticket.ts writes it. */
async function ignored(store: TicketStore, reason: string, from = 'hanako@customer.example'): Promise<Ticket> {
  const messageId = `<mail-${randomUUID()}@customer.example>`;
  const id = ticketIdFor(messageId);
  await store.createIfAbsent(newTicket({ messageId, from, fromName: 'Hanako', subject: 'Invoice for March', question: QUESTION, mailText: QUESTION, actor: 'poller' }));
  return store.transition(id, { from: ['received'], to: 'ignored', actor: 'agent-worker', note: reason, patch: { reason } });
}

const post = (d: Dashboard, pathname: string, body: { form?: Record<string, string>; json?: unknown }) => postToDashboard(d.url, pathname, body, AUTH);

async function getPage(d: Dashboard, pathname: string): Promise<string> {
  return (await fetch(`${d.url}${pathname}`, { headers: { authorization: AUTH } })).text();
}

/** The hidden fields of the form posting to `action` in `html` (undefined: no such form). */
function formIn(html: string, action: string): Record<string, string> | undefined {
  const start = html.indexOf(`action="${action}"`);
  if (start === -1) return undefined;
  const form = html.slice(start, html.indexOf('</form>', start));
  return Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
}

async function outcomeTotals(d: Dashboard): Promise<Record<string, string>> {
  return harness.redis().hgetall(outcomeKeys(d.prefix).totals);
}

/** What jobs/send-reply.ts writes when the SMTP server accepts an approved reply. */
async function sendApproved(store: TicketStore, ticketId: string): Promise<Ticket> {
  const outbound = { messageId: `<reply-${randomUUID()}@helpdesk.test>`, autoSubmitted: false, approvedBy: 'admin' };
  await store.transition(ticketId, { from: ['approved'], to: 'sending', actor: 'sender', note: 'attempt 1', patch: { outbound } });
  return store.transition(ticketId, { from: ['sending'], to: 'sent', actor: 'sender', note: '250 OK', patch: { outbound: { ...outbound, sentAt: new Date().toISOString(), smtpResponse: '250 OK' }, reason: null } });
}

describe('"Reopen for review" on the review page', () => {
  it('finds the ignored mail, shows why it was ignored, and reopens it for a person, once however often it is submitted', async () => {
    const d = await harness.start();
    const t = await ignored(d.store, LIST_REASON);

    // The start page's state counts lead to the ignored mail, newest first, each with why it was ignored.
    const start = await getPage(d, '/');
    expect(start).toContain('href="/?state=ignored"');
    const list = await getPage(d, '/?state=ignored');
    expect(list).toContain('Ignored');
    expect(list).toContain(`href="/tickets/${t.id}"`);
    expect(list).toContain('Why ignored');
    expect(list).toContain('List-Unsubscribe: &lt;mailto:leave@crm.customer.example&gt;');

    const page = await getPage(d, `/tickets/${t.id}`);
    expect(page).toContain('Why ignored');
    expect(page).not.toContain(`action="/tickets/${t.id}/approve"`);
    const form = formIn(page, `/tickets/${t.id}/reopen`);
    expect(form).toMatchObject({ seen: String(t.history.length) });
    expect(form).toHaveProperty('_csrf');

    const submit = () => post(d, `/tickets/${t.id}/reopen`, { form: { ...form!, note: 'a customer writing from her CRM' } });
    const res = await submit();
    expect(res.status).toBe(303);
    // The operator stays on the ticket: the next step (a draft, or a reply of their own) is taken on it.
    expect(res.headers.get('location')).toBe(`/tickets/${t.id}?done=reopened&ticket=${t.id}`);

    const reopened = await d.store.require(t.id);
    expect(reopened).toMatchObject({ state: 'parked', reason: reopenReason('admin', LIST_REASON) });
    expect(reopened.outcome).toBeUndefined();
    expect(reopened.history).toHaveLength(t.history.length + 1);
    expect(reopened.history.at(-1)).toMatchObject({ from: 'ignored', to: 'parked', actor: 'operator:admin', note: `${reopenReason('admin', LIST_REASON)} — a customer writing from her CRM` });

    const after = await getPage(d, res.headers.get('location')!);
    expect(after).toContain('Reopened “Invoice for March”');
    expect(after).toContain(`action="/tickets/${t.id}/approve"`);
    expect(after).toContain(`action="/tickets/${t.id}/rerun"`);
    expect(after).toContain(`action="/tickets/${t.id}/reject"`);
    expect(formIn(after, `/tickets/${t.id}/reopen`)).toBeUndefined();

    // A double click: the same decision, found done; nothing else is written.
    const again = await submit();
    expect(again.status).toBe(303);
    expect((await d.store.require(t.id)).history).toHaveLength(reopened.history.length);
    // The reopening is no ending: the counters keep the one ignore they had.
    expect(await outcomeTotals(d)).toEqual({ ignored: '1' });
  });

  it('keeps a bounce and our own mail unanswered, and says why instead of offering it', async () => {
    const d = await harness.start();
    const bounce = await ignored(d.store, BOUNCE_REASON, 'mailer-daemon@mx.customer.example');
    const own = await ignored(d.store, OWN_REASON, 'support@helpdesk.test');

    const page = await getPage(d, `/tickets/${bounce.id}`);
    expect(page).toContain('Why ignored');
    expect(formIn(page, `/tickets/${bounce.id}/reopen`)).toBeUndefined();
    expect(page).toMatch(/bounce/);

    // A form made up from another page's token is refused just the same.
    const csrf = formIn(await getPage(d, '/'), '/reindex')!;
    const viaForm = await post(d, `/tickets/${own.id}/reopen`, { form: { ...csrf, seen: String(own.history.length) } });
    expect(viaForm.status).toBe(409);
    expect(await viaForm.text()).toContain('our own address');
    const viaApi = await post(d, `/api/tickets/${bounce.id}/reopen`, { json: {} });
    expect(viaApi.status).toBe(409);
    expect(((await viaApi.json()) as { error: string }).error).toMatch(/bounce/);

    for (const t of [bounce, own]) expect(await d.store.require(t.id)).toMatchObject({ state: 'ignored', history: t.history, outcome: t.outcome });
  });
});

describe('POST /api/tickets/:id/reopen', () => {
  it('reopens once however often it is asked, at the same moment too, and refuses a stale page or another state', async () => {
    const d = await harness.start();
    const t = await ignored(d.store, 'auto-reply: Auto-Submitted: auto-replied');

    const answers = await Promise.all(
      Array.from({ length: 4 }, () => post(d, `/api/tickets/${t.id}/reopen`, { json: { seen: t.history.length, note: 'a person wrote this' } })),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<{ ticketId: string; state: string; alreadyReopened: boolean }>;
    expect(bodies.filter((b) => !b.alreadyReopened)).toHaveLength(1);
    for (const b of bodies) expect(b).toMatchObject({ ticketId: t.id, state: 'parked' });
    const reopened = await d.store.require(t.id);
    expect(reopened.history.filter((h) => h.from === 'ignored')).toHaveLength(1);

    // Asked again without `seen` (a script run twice): done already.
    const again = await post(d, `/api/tickets/${t.id}/reopen`, { json: {} });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ alreadyReopened: true });

    // A page opened before another change is stale; a ticket that was never ignored has nothing to reopen.
    const other = await ignored(d.store, LIST_REASON);
    const stale = await post(d, `/api/tickets/${other.id}/reopen`, { json: { seen: other.history.length - 1 } });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: string }).error).toContain('changed since you opened it');
    await d.store.transition(reopened.id, { from: ['parked'], to: 'rejected', actor: 'operator:ben', patch: { reason: 'spam after all' } });
    const rejected = await post(d, `/api/tickets/${t.id}/reopen`, { json: {} });
    expect(rejected.status).toBe(409);
    expect(await rejected.json()).toMatchObject({ state: 'rejected' });
    expect(((await post(d, `/api/tickets/${'f'.repeat(64)}/reopen`, { json: {} })).status)).toBe(404);
    expect(((await post(d, `/api/tickets/${other.id}/reopen`, { json: { seen: 'x' } })).status)).toBe(400);
    expect((await d.store.require(other.id)).state).toBe('ignored');
  });
});

describe('a reopened mail', () => {
  it('gets its new draft parked for a person, asked for on the page or from a terminal: the sender may be a machine after all', async () => {
    const d = await harness.start();
    const rerun = { store: d.store, redis: harness.redis(), tickets: d.queues.tickets, config: d.config };
    const [onPage, fromTerminal] = [await ignored(d.store, LIST_REASON), await ignored(d.store, 'no-reply-sender: From: mailer.jones@customer.example')];
    for (const t of [onPage, fromTerminal]) expect((await post(d, `/api/tickets/${t.id}/reopen`, { json: {} })).status).toBe(200);

    const page = await getPage(d, `/tickets/${onPage.id}`);
    expect((await post(d, `/tickets/${onPage.id}/rerun`, { form: formIn(page, `/tickets/${onPage.id}/rerun`)! })).status).toBe(303);
    // As `npm run review -- rerun` asks: without the page's request for review.
    const asked = await rerunAgent(rerun, { ticketId: fromTerminal.id, operator: 'kato' });
    expect(asked.outcome).toBe('requeued');

    const jobs = await d.queues.tickets.getJobs(['waiting', 'delayed', 'prioritized']);
    const reviewBy = Object.fromEntries(jobs.map((j) => [(j.data as { ticketId: string }).ticketId, (j.data as { reviewBy?: string }).reviewBy]));
    expect(reviewBy).toEqual({ [onPage.id]: 'admin', [fromTerminal.id]: 'kato' });
    expect(asked).toMatchObject({ forReview: true });
  });

  it('ends once in the insights, as answered or rejected, not also as ignored; the outcome counter keeps both endings', async () => {
    const d = await harness.start();
    const answered = await ignored(d.store, LIST_REASON);
    const rejected = await ignored(d.store, 'spam: X-Spam-Flag: YES');
    const stillIgnored = await ignored(d.store, 'auto-reply: Auto-Submitted: auto-replied');
    for (const t of [answered, rejected]) expect((await post(d, `/api/tickets/${t.id}/reopen`, { json: {} })).status).toBe(200);

    expect((await post(d, `/api/tickets/${answered.id}/approve`, { json: { reply: 'Dear Hanako,\n\nWe corrected the company name on the March invoice.' } })).status).toBe(202);
    const sent = await sendApproved(d.store, answered.id);
    expect(sent.outcome).toMatchObject({ kind: 'approved_edited' });
    expect((await post(d, `/api/tickets/${rejected.id}/reject`, { json: { reason: 'a newsletter after all' } })).status).toBe(200);

    const insights = await readInsights(harness.redis(), d.prefix, { days: 1, prices: DEFAULT_PRICES });
    expect(insights.totals.outcomes).toMatchObject({ ignored: 1, approved_edited: 1, rejected: 1 });
    expect(insights.totals.ended).toBe(3);
    expect(insights.rejectionReasons).toEqual([{ reason: 'a newsletter after all', count: 1 }]);
    // helpdesk_ticket_outcomes_total is a counter: it counts every ending, the two taken back included.
    expect(await outcomeTotals(d)).toEqual({ ignored: '3', approved_edited: '1', rejected: '1' });
    expect((await d.store.require(stillIgnored.id)).outcome).toMatchObject({ kind: 'ignored' });
  });
});

describe('npm run review -- reopen', () => {
  it('reopens from a terminal, finds it done when run again, and refuses a bounce with one line', async () => {
    const d = await harness.start();
    const env = { REDIS_URL: d.config.REDIS_URL, QUEUE_PREFIX: d.prefix, LOG_LEVEL: 'silent' };
    const review = (...args: string[]) => runNpm(['run', 'review', '--', ...args], env, 60_000);
    const t = await ignored(d.store, LIST_REASON);
    const bounce = await ignored(d.store, BOUNCE_REASON, 'mailer-daemon@mx.customer.example');

    const [reopened, refused] = await Promise.all([review('reopen', t.id.slice(0, 12), '--by', 'anna', '--note', 'she asked about her invoice'), review('reopen', bounce.id, '--by', 'anna')]);
    expect(reopened.code, reopened.stderr).toBe(0);
    expect(reopened.stdout).toContain(`reopened ${t.id}`);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/bounce/);

    const stored = await d.store.require(t.id);
    expect(stored).toMatchObject({ state: 'parked', reason: reopenReason('anna', LIST_REASON) });
    expect(stored.history.at(-1)).toMatchObject({ actor: 'operator:anna', note: `${reopenReason('anna', LIST_REASON)} — she asked about her invoice` });
    expect((await d.store.require(bounce.id)).state).toBe('ignored');

    const again = await review('reopen', t.id, '--by', 'anna');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('already reopened');
    expect((await d.store.require(t.id)).history).toHaveLength(stored.history.length);
  }, 120_000);
});
