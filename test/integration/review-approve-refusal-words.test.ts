/**
 * A refused approval speaks to the operator in the page's words, on the page frame of the other review pages
 * (walkthrough 40): a form that names no draft (no reply and no `seen`, or a `seen` the page never writes) names the
 * button and says to open the ticket again, never the API's field names; a `seen` no draft of the ticket ever had
 * (forged or mistyped) is refused as invalid, where a stale one still reads "changed since you opened it".
 * Real HTTP against the dashboard app and a real redis-server.
 */
import { describe, expect, it } from 'vitest';
import { basicAuth, openApprovePage, postToDashboard, TEST_DASHBOARD_LOGIN, parkedTicket, rerunParksNewDraft, useDashboardHarness, type TestDashboard as Dashboard } from '../support/dashboard.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();



const sendJobs = async (d: Dashboard) => (await d.queues.outbound.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).length;
const textOf = (page: string) => page.replace(/<[^>]+>/g, ' ').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replace(/\s+/g, ' ');

describe('an approve form that names no draft is refused in the page’s words', () => {
  it.each<{ what: string; form: Record<string, string> }>([
    { what: 'neither reply nor seen', form: {} },
    { what: 'a seen that is no number', form: { seen: 'abc' } },
    { what: 'a seen with a sign', form: { seen: '+3' } },
    { what: 'an empty seen', form: { seen: '' } },
  ])('$what', async ({ form }) => {
    const d = await harness.start();
    const t = await parkedTicket(d, { prefix: 'words' });
    const { hidden } = await openApprovePage(d.url, t.id, AUTH);
    const res = await postToDashboard(d.url, `/tickets/${t.id}/approve`, { form: { _csrf: hidden._csrf!, ...form } }, AUTH);
    expect(res.status).toBe(400);
    const page = await res.text();
    const text = textOf(page);
    // The page's words: the button as it shows it, and what to do about it.
    expect(text).toContain('“Approve and send”');
    expect(text).toMatch(/open the ticket again/i);
    expect(text).toContain('Nothing was sent');
    expect(text).not.toMatch(/"reply"|"seen"|history length|not filled in as expected/);
    // The frame of the other review pages: who is signed in, the review section, the way back to the ticket.
    expect(page).toContain(`signed in as ${TEST_DASHBOARD_LOGIN.user}`);
    expect(page).toContain('<a href="/" class="current">Review</a>');
    expect(page).toContain(`<a href="/tickets/${t.id}">← back</a>`);
    expect((await d.store.require(t.id)).state).toBe('parked');
    expect(await sendJobs(d)).toBe(0);
  });
});

// Bug review 41b: a reply over the form's limit was refused without showing what the operator typed.
it('a reply over the form\'s limit is refused with the typed text shown, so it is not lost', async () => {
  const d = await harness.start();
  const t = await parkedTicket(d, { prefix: 'words' });
  const { hidden } = await openApprovePage(d.url, t.id, AUTH);
  const typed = `typed-marker ${'x'.repeat(200_001)}`;
  const res = await postToDashboard(d.url, `/tickets/${t.id}/approve`, { form: { ...hidden, reply: typed } }, AUTH);
  expect(res.status).toBe(400);
  const page = await res.text();
  expect(page).toContain('typed-marker');
  expect(page).toContain(`signed in as ${TEST_DASHBOARD_LOGIN.user}`);
  expect((await d.store.require(t.id)).state).toBe('parked');
  expect(await sendJobs(d)).toBe(0);
});

describe('a seen that names no draft of the ticket is invalid, a stale one changed since', () => {
  it.each([
    { what: 'higher than the history ever was', seen: () => '99' },
    { what: 'zero', seen: () => '0' },
    { what: 'the entry of the received mail', seen: () => '1' },
  ])('page: seen $what is refused as naming no draft', async ({ seen }) => {
    const d = await harness.start();
    const t = await parkedTicket(d, { prefix: 'words' });
    const { hidden } = await openApprovePage(d.url, t.id, AUTH);
    const res = await postToDashboard(d.url, `/tickets/${t.id}/approve`, { form: { ...hidden, seen: seen() } }, AUTH);
    expect(res.status).toBe(400);
    const page = await res.text();
    const text = textOf(page);
    expect(text).not.toContain('changed since');
    expect(text).toContain('names no draft of this ticket');
    expect(text).toContain('“Approve and send”');
    expect(text).not.toMatch(/"seen"/);
    expect(page).toContain(`signed in as ${TEST_DASHBOARD_LOGIN.user}`);
    expect((await d.store.require(t.id)).state).toBe('parked');
    expect(await sendJobs(d)).toBe(0);
  });

  it('API: a seen that names no draft is a 400 naming the field, a stale one a 409', async () => {
    const d = await harness.start();
    const t = await parkedTicket(d, { prefix: 'words' });
    const forged = await postToDashboard(d.url, `/api/tickets/${t.id}/approve`, { json: { seen: 99 } }, AUTH);
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as { error: string }).error).toMatch(/^"seen" 99 names no draft of this ticket/);

    await rerunParksNewDraft(d, t.id);
    const stale = await postToDashboard(d.url, `/api/tickets/${t.id}/approve`, { json: { seen: t.history.length } }, AUTH);
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: string }).error).toContain('changed since you opened it');
    expect((await d.store.require(t.id)).state).toBe('parked');
    expect(await sendJobs(d)).toBe(0);
  });

  it('page: a stale seen still reads "changed since you opened it"', async () => {
    const d = await harness.start();
    const t = await parkedTicket(d, { prefix: 'words' });
    const { hidden } = await openApprovePage(d.url, t.id, AUTH);
    await rerunParksNewDraft(d, t.id);
    const res = await postToDashboard(d.url, `/tickets/${t.id}/approve`, { form: hidden }, AUTH);
    expect(res.status).toBe(409);
    expect(await res.text()).toContain('changed since you opened it');
  });
});

// Walkthrough 41: the review routes' error pages (no such ticket, a start several ids share, no such page, a form
// posted with another body type) came without the frame's "signed in as", as if no one were signed in.
describe('the review routes’ error pages show who is signed in', () => {
  it.each<{ what: string; path: string; status: number; method?: 'POST' }>([
    { what: 'no such ticket', path: '/tickets/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', status: 404 },
    { what: 'no such page', path: '/no-such-page', status: 404 },
    { what: 'a form posted as JSON', path: '/tickets/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef/approve', status: 415, method: 'POST' },
  ])('$what', async ({ path, status, method }) => {
    const d = await harness.start();
    const res =
      method === 'POST'
        ? await postToDashboard(d.url, path, { json: { reply: 'x' } }, AUTH)
        : await fetch(new URL(path, d.url), { headers: { authorization: AUTH } });
    expect(res.status).toBe(status);
    expect(await res.text()).toContain(`signed in as ${TEST_DASHBOARD_LOGIN.user}`);
  });
});
