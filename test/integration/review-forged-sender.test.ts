/**
 * A draft parked because its sender may be forged would answer whoever was impersonated. Its page says so at the top,
 * and approving it takes the operator's word that they verified the sender another way (the page's required tick,
 * the API's `senderVerified`); every other ticket keeps the two-key flow (Tab, Enter). Real HTTP against the
 * dashboard app and a real redis-server.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SENDER_VERIFIED, rerunReason } from '../../src/tickets/review.js';
import { newTicket, ticketIdFor, type Ticket } from '../../src/tickets/ticket.js';
import { basicAuth, openApprovePage, postToDashboard, useDashboardHarness, type TestDashboard as Dashboard } from '../support/dashboard.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();
const post = (d: Dashboard, pathname: string, body: { form?: Record<string, string>; json?: unknown }) => postToDashboard(d.url, pathname, body, AUTH);

// The agent worker's reasons (jobs/answer-ticket.ts senderReviewReason).
const FORGED = "possibly forged sender: the receiving server's Authentication-Results says dmarc=fail (header.from=bank.example); a reply would go to whoever was impersonated";
const OWN_GROUP = 'not authenticated as mail through our group: From is our own address support@example.test with Reply-To x@evil.example; no Authentication-Results of ours vouch for it';

async function parked(d: Dashboard, reason: string, options: { rerun?: boolean } = {}): Promise<Ticket> {
  const messageId = `<f-${randomUUID()}@bank.example>`;
  const id = ticketIdFor(messageId);
  await d.store.createIfAbsent(newTicket({ messageId, from: 'ceo@bank.example', subject: 'Urgent', question: 'Please send the invoice list.', actor: 'poller' }));
  await d.store.transition(id, { to: 'processing', actor: 'agent-worker' });
  const ticket = await d.store.transition(id, { to: 'parked', actor: 'agent-worker', note: reason, patch: { reason, draft: 'Here is the list.' } });
  if (!options.rerun) return ticket;
  // A new draft asked for later is parked with the rerun's reason; the mail, and its sender, are the same.
  await d.store.transition(id, { to: 'processing', actor: 'operator:anna' });
  const again = rerunReason('anna');
  return d.store.transition(id, { to: 'parked', actor: 'agent-worker', note: again, patch: { reason: again, draft: 'Here is the list.' } });
}

/** The page and its approve form: hidden fields, and the form's markup from the draft on. */
const openPage = (d: Dashboard, id: string) => openApprovePage(d.url, id, AUTH);

/** What a Tab after the draft reaches, in order: the focusable controls of the approve form after its text area. */
function controlsAfterDraft(form: string): string[] {
  const after = form.slice(form.indexOf('</textarea>'));
  return [...after.matchAll(/<(input|button)\b[^>]*>/g)].map((m) => m[0]).filter((tag) => !tag.includes('type="hidden"'));
}

describe('a draft parked because its sender may be forged', () => {
  it.each([
    ['a forged From (dmarc=fail)', FORGED, {}],
    ['mail from our own address not authenticated as our group', OWN_GROUP, {}],
    ['a forged From, after a new draft was asked for', FORGED, { rerun: true }],
  ])('%s: says so at the top, and approving takes the tick', async (_case, reason, options) => {
    const d = await harness.start();
    const t = await parked(d, reason, options);
    const { page, form, hidden } = await openPage(d, t.id);
    const alert = page.indexOf('id="unverified-sender"');
    expect(alert).toBeGreaterThan(-1);
    expect(alert).toBeLessThan(page.indexOf('<h1>'));
    expect(page).toContain('The sender may be forged.');
    expect(controlsAfterDraft(form)).toEqual([`<input type="checkbox" name="${SENDER_VERIFIED}" value="yes" required>`, '<button type="submit" class="secondary">']);

    const unticked = await post(d, `/tickets/${t.id}/approve`, { form: { ...hidden, reply: 'Here is the list.' } });
    expect(unticked.status).toBe(400);
    expect(await unticked.text()).toContain('I verified the sender another way');
    const api = await post(d, `/api/tickets/${t.id}/approve`, { json: { seen: (await d.store.require(t.id)).history.length } });
    expect(api.status).toBe(400);
    expect(((await api.json()) as { error: string }).error).toContain(`"${SENDER_VERIFIED}": true`);
    expect((await d.store.require(t.id)).state).toBe('parked');

    const ticked = await post(d, `/tickets/${t.id}/approve`, { form: { ...hidden, reply: 'Here is the list.', [SENDER_VERIFIED]: 'yes' } });
    expect(ticked.status).toBe(303);
    expect((await d.store.require(t.id)).state).toBe('approved');
  });

  it('leaves the flow of every other ticket as it was: the draft, then Approve (Tab, Enter)', async () => {
    const d = await harness.start();
    const t = await parked(d, 'bulk mail: Precedence: bulk');
    const { page, form } = await openPage(d, t.id);
    expect(page).not.toContain('id="unverified-sender"');
    expect(controlsAfterDraft(form)).toEqual(['<button type="submit" class="primary">']);
    expect((await post(d, `/api/tickets/${t.id}/approve`, { json: { seen: (await d.store.require(t.id)).history.length } })).status).toBe(202);
  });
});
