/**
 * Two operators on one ticket: the second submits from a page opened before the first decided. The refusal names who
 * decided, when (in the desk's zone, as the page shows times) and how, and says whether anything is left to decide;
 * what the second typed stays on the page. Real HTTP against the dashboard app and a real redis-server.
 */
import { describe, expect, it } from 'vitest';
import { localTime } from '../../src/server/views.js';
import { deskTimeZone } from '../../src/tickets/local-day.js';
import { TEST_DASHBOARD_LOGIN, parkedTicket } from '../support/dashboard.js';
import { basicAuth, openApprovePage, useDashboardHarness, type TestDashboard as Dashboard, postToDashboard } from '../support/dashboard.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();
const post = (d: Dashboard, pathname: string, form: Record<string, string>) => postToDashboard(d.url, pathname, { form }, AUTH);

/** The approve form's hidden fields as a browser submits them. */
const openPage = async (d: Dashboard, ticketId: string) => (await openApprovePage(d.url, ticketId, AUTH)).hidden;


const unescape = (s: string) => s.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');

/** When the ticket's last decision by a person was stored, as the page writes times. */
async function decidedAt(d: Dashboard, ticketId: string): Promise<string> {
  const entry = (await d.store.require(ticketId)).history.findLast((h) => h.actor.startsWith('operator:'));
  return localTime(entry!.at, deskTimeZone())!;
}

describe('a decision refused because another operator decided first', () => {
  const who = TEST_DASHBOARD_LOGIN.user;
  it.each<{ name: string; first: { action: string; form: Record<string, string> }; after: (d: Dashboard, id: string) => Promise<void>; says: (at: string) => string }>([
    {
      name: 'approved with another reply, now being sent',
      first: { action: 'approve', form: { reply: '申し訳ありませんが来客用の駐車場はございません（Aliceより）。' } },
      after: async (d: Dashboard, id: string) => void (await d.store.transition(id, { from: ['approved'], to: 'sending', actor: 'sender', note: 'attempt 1' })),
      says: (at: string) => `approved by ${who} at ${at} with a reply of its own; it is being sent — nothing left to decide here`,
    },
    {
      name: 'approved with another reply, still queued',
      first: { action: 'approve', form: { reply: '駐車場は3台分ございます。' } },
      after: async () => {},
      says: (at: string) => `approved by ${who} at ${at} with a reply of its own; it is being sent — nothing left to decide here`,
    },
    {
      name: 'approved as drafted, then sent',
      first: { action: 'approve', form: {} },
      after: async (d: Dashboard, id: string) => {
        await d.store.transition(id, { from: ['approved'], to: 'sending', actor: 'sender' });
        await d.store.transition(id, { from: ['sending'], to: 'sent', actor: 'sender' });
      },
      says: (at: string) => `approved by ${who} at ${at} with the draft as it was; it was sent — nothing left to decide here`,
    },
    {
      name: 'rejected',
      first: { action: 'reject', form: { reason: 'answered by phone' } },
      after: async () => {},
      says: (at: string) => `rejected by ${who} at ${at} (answered by phone); nothing is sent — nothing left to decide here`,
    },
  ])('$name: says who decided, when and that nothing is left, and keeps the typed reply', async ({ first, after, says }) => {
    const d = await harness.start();
    const t = await parkedTicket(d, { prefix: 'race', from: 'kato@customer.example', subject: '駐車場', question: '来客用の駐車場はありますか', draft: '駐車場はございます。' });
    const bobsPage = await openPage(d, t.id);
    const alicesPage = await openPage(d, t.id);
    expect((await post(d, `/tickets/${t.id}/${first.action}`, { ...alicesPage, ...first.form })).status).toBe(303);
    await after(d, t.id);

    const bobsReply = '申し訳ありませんが来客用の駐車場はございません（Bobより）。';
    const refused = await post(d, `/tickets/${t.id}/approve`, { ...bobsPage, reply: bobsReply });
    expect(refused.status).toBe(409);
    const page = unescape(await refused.text());
    expect(page).toContain(says(await decidedAt(d, t.id)));
    expect(page).toContain('changed since you opened it');
    expect(page).not.toContain('decide again');
    expect(/<textarea[^>]*\breadonly\b[^>]*>\n([^<]*)<\/textarea>/.exec(page)?.[1]).toBe(bobsReply);
  });

  it('still asks for a new decision when the ticket is parked again for a person', async () => {
    const d = await harness.start();
    const t = await parkedTicket(d, { prefix: 'race', from: 'kato@customer.example', subject: '駐車場', question: '来客用の駐車場はありますか', draft: '駐車場はございます。' });
    const bobsPage = await openPage(d, t.id);
    expect((await post(d, `/tickets/${t.id}/approve`, await openPage(d, t.id))).status).toBe(303);
    await d.store.transition(t.id, { from: ['approved'], to: 'sending', actor: 'sender' });
    await d.store.transition(t.id, { from: ['sending'], to: 'parked', actor: 'sender', patch: { reason: 'the mail server refused the reply' } });

    const refused = await post(d, `/tickets/${t.id}/approve`, { ...bobsPage, reply: 'x' });
    expect(refused.status).toBe(409);
    const page = unescape(await refused.text());
    expect(page).toContain(`approved by ${who} at ${await decidedAt(d, t.id)} with the draft as it was; it is parked again (the mail server refused the reply): reload it and decide again`);
  });
});
