/**
 * A decision is taken on what the review page showed. A page opened before the ticket moved on — another operator
 * approved it and the sender parked it again as "may already have been sent", or the agent wrote a new draft — must
 * not send: the operator never saw the warning or the new draft. A double submit of the same decision is one decision.
 * Real HTTP against the dashboard app and a real redis-server.
 */
import { describe, expect, it } from 'vitest';
import { NO_COPY_CHECKED } from '../../src/tickets/review.js';
import { basicAuth, openApprovePage, useDashboardHarness, type TestDashboard as Dashboard, postToDashboard, parkedTicket } from '../support/dashboard.js';

const AUTH = basicAuth();
const MAYBE_SENT = 'the SMTP connection broke after the message was handed over: it may already have been sent';

const harness = useDashboardHarness();
const startDashboard = () => harness.start();

const post = (d: Dashboard, pathname: string, body: { form?: Record<string, string>; json?: unknown }) => postToDashboard(d.url, pathname, body, AUTH);

/** The review page's decision forms as a browser would submit them: each hidden field, and the draft as shown. */
async function openPage(d: Dashboard, ticketId: string): Promise<{ hidden: Record<string, string>; draft: string }> {
  const { hidden, draft } = await openApprovePage(d.url, ticketId, AUTH);
  return { hidden, draft: draft.replaceAll('&amp;', '&') };
}


async function sendJobs(d: Dashboard): Promise<string[]> {
  return (await d.queues.outbound.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).map((j) => String(j.id));
}

/** What the sender does when the SMTP transaction ends without a clear answer: the reply may have gone out. */
async function parkAsMaybeSent(d: Dashboard, ticketId: string): Promise<void> {
  await d.store.transition(ticketId, { from: ['approved'], to: 'sending', actor: 'sender' });
  await d.store.transition(ticketId, { from: ['sending'], to: 'parked', actor: 'sender', patch: { reason: MAYBE_SENT } });
}

describe('a decision taken on a page that no longer shows the ticket as it is', () => {
  it('refuses an approval from a page opened before another approval parked the ticket as "may already have been sent"', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const pageA = await openPage(d, t.id);
    expect(pageA.hidden).toHaveProperty('seen');

    // Operator B approves; the send ends without a clear answer and the sender parks it again.
    expect((await post(d, `/api/tickets/${t.id}/approve`, { json: { seen: t.history.length } })).status).toBe(202);
    await parkAsMaybeSent(d, t.id);
    const jobsBefore = await sendJobs(d);

    const stale = await post(d, `/tickets/${t.id}/approve`, { form: { ...pageA.hidden, reply: pageA.draft } });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain('changed since you opened it');
    const ticket = await d.store.require(t.id);
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toBe(MAYBE_SENT);
    expect(await sendJobs(d)).toEqual(jobsBefore);

    // Reloaded, the page shows the warning, and an approval from it, checked, is the operator's informed decision.
    const reloaded = await openPage(d, t.id);
    expect((await post(d, `/tickets/${t.id}/approve`, { form: { ...reloaded.hidden, reply: reloaded.draft, [NO_COPY_CHECKED]: 'yes' } })).status).toBe(303);
    expect((await d.store.require(t.id)).state).toBe('approved');
  });

  it('refuses a stale approval or rejection through the API when `seen` is given', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const seen = t.history.length;
    await post(d, `/api/tickets/${t.id}/approve`, { json: { seen } });
    await parkAsMaybeSent(d, t.id);

    for (const [action, json] of [['approve', { seen }], ['reject', { seen, reason: 'answered by phone' }]] as const) {
      const res = await post(d, `/api/tickets/${t.id}/${action}`, { json });
      expect(res.status, action).toBe(409);
      expect(await res.json()).toMatchObject({ error: expect.stringContaining('changed since you opened it'), state: 'parked' });
    }
    expect((await d.store.require(t.id)).state).toBe('parked');
    expect((await post(d, `/api/tickets/${t.id}/reject`, { json: { seen: (await d.store.require(t.id)).history.length, reason: 'answered by phone' } })).status).toBe(200);
  });

  it('counts a double submit of the same approval once, also when both arrive at the same time', async () => {
    const d = await startDashboard();
    for (const together of [false, true]) {
      const t = await parkedTicket(d);
      const page = await openPage(d, t.id);
      const submit = () => post(d, `/tickets/${t.id}/approve`, { form: { ...page.hidden, reply: page.draft } });
      const responses = together ? await Promise.all([submit(), submit()]) : [await submit(), await submit()];
      expect(responses.map((r) => r.status), `together: ${together}`).toEqual([303, 303]);
      expect((await d.store.require(t.id)).state).toBe('approved');
      expect((await sendJobs(d)).filter((id) => id.includes(t.id))).toHaveLength(1);
    }
  });

  it('shows the reply the operator wrote on the refusal page, read-only, so the edit is not lost', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const pageB = await openPage(d, t.id);
    // Operator A decides first; B's page is stale, and B spent minutes on an edit.
    expect((await post(d, `/api/tickets/${t.id}/reject`, { json: { reason: 'answered by phone' } })).status).toBe(200);
    const edited = `${pageB.draft}\nSee <Settings> & "Security" — 3 steps.`;
    const stale = await post(d, `/tickets/${t.id}/approve`, { form: { ...pageB.hidden, reply: edited } });
    expect(stale.status).toBe(409);
    const page = await stale.text();
    expect(page).toContain('changed since you opened it');
    const kept = /<textarea[^>]*\breadonly\b[^>]*>([^<]*)<\/textarea>/.exec(page);
    expect(kept, 'a read-only text area with the submitted reply').not.toBeNull();
    const unescape = (s: string) => s.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
    expect(unescape(kept![1]!.replace(/^\n/, ''))).toBe(edited);
    expect(page).toContain('was not sent');
  });

  it('refuses a second approval with another text once the first is approved', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const page = await openPage(d, t.id);
    expect((await post(d, `/tickets/${t.id}/approve`, { form: { ...page.hidden, reply: page.draft } })).status).toBe(303);
    const other = await post(d, `/tickets/${t.id}/approve`, { form: { ...page.hidden, reply: `${page.draft} Edited.` } });
    expect(other.status).toBe(409);
    expect((await d.store.require(t.id)).draft).toBe(page.draft);
  });
});
