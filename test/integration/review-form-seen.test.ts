/**
 * The review page's approve form says which draft it approves, as the API must (security review 9, finding 2): a
 * post with neither the reply nor the history length the page showed (`seen`) — hand-made with the operator's CSRF
 * token, after a rerun parked a new draft — is refused, and a `seen` that is not a whole decimal number is no `seen`.
 * Real HTTP against the dashboard app and a real redis-server.
 */
import { describe, expect, it } from 'vitest';
import { basicAuth, openApprovePage, postToDashboard, parkedTicket, rerunParksNewDraft, useDashboardHarness, type TestDashboard as Dashboard } from '../support/dashboard.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();
const NEW_DRAFT = 'A new draft the operator never saw.';

/** The approve form's hidden fields as the page wrote them (the CSRF token, `seen`). */
const openPage = async (d: Dashboard, ticketId: string) => (await openApprovePage(d.url, ticketId, AUTH)).hidden;



const sendJobs = async (d: Dashboard) => (await d.queues.outbound.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).length;

describe('the approve form says which draft it approves', () => {
  it('refuses a post with neither reply nor seen after a rerun parked a new draft', async () => {
    const d = await harness.start();
    const t = await parkedTicket(d, { prefix: 'seen' });
    const { _csrf } = await openPage(d, t.id);
    await rerunParksNewDraft(d, t.id, NEW_DRAFT);

    const res = await postToDashboard(d.url, `/tickets/${t.id}/approve`, { form: { _csrf: _csrf! } }, AUTH);
    expect(res.status).toBe(400);
    // The API's rule in the page's words: the button it shows, and what to do.
    const page = (await res.text()).replaceAll('&#39;', "'");
    expect(page).toContain('Nothing was sent: this approval did not say which draft you read, as “Approve and send” on the ticket’s page does. Open the ticket again, read its draft and press “Approve and send”.');
    expect(page).not.toContain('&quot;reply&quot;');
    expect(await d.store.require(t.id)).toMatchObject({ state: 'parked', draft: NEW_DRAFT });
    expect(await sendJobs(d)).toBe(0);
  });

  it.each(['', ' ', 'abc', '-1', '1e9', '1e1', '0x5', '5.0', '+5'])('refuses seen=%j without a reply as a form not filled in as the page fills it', async (seen) => {
    const d = await harness.start();
    const t = await parkedTicket(d, { prefix: 'seen' });
    const { _csrf } = await openPage(d, t.id);
    const res = await postToDashboard(d.url, `/tickets/${t.id}/approve`, { form: { _csrf: _csrf!, seen } }, AUTH);
    expect(res.status).toBe(400);
    expect((await d.store.require(t.id)).state).toBe('parked');
    expect(await sendJobs(d)).toBe(0);
  });

  it.each([
    { what: 'the seen the page showed', form: (seen: string) => ({ seen }) },
    { what: 'a reply of the operator\'s own', form: () => ({ reply: 'Open Settings, then Security, then Password.' }) },
  ])('approves with $what', async ({ form }) => {
    const d = await harness.start();
    const t = await parkedTicket(d, { prefix: 'seen' });
    const hidden = await openPage(d, t.id);
    const res = await postToDashboard(d.url, `/tickets/${t.id}/approve`, { form: { _csrf: hidden._csrf!, ...form(hidden.seen!) } }, AUTH);
    expect(res.status).toBe(303);
    expect((await d.store.require(t.id)).state).toBe('approved');
  });
});
