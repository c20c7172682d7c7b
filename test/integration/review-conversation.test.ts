/**
 * A draft is approved for the mail it answers, but the customer may have written again in the same conversation since
 * (withdrawn the question, asked something else). The ticket's page shows the conversation around it (earlier mail
 * with our replies, later mail), an approval taken on a page that did not show the later mail is refused (409) naming
 * it, and one that did show it needs the operator's word that they read it; the API and the list of parked tickets
 * say so too. Real HTTP against the dashboard app and a real redis-server.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { READ_NEWER_MAIL } from '../../src/tickets/review.js';
import { newTicket, ticketIdFor, type Ticket } from '../../src/tickets/ticket.js';
import { basicAuth, openApprovePage, postToDashboard, useDashboardHarness, type TestDashboard as Dashboard } from '../support/dashboard.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();
const post = (d: Dashboard, pathname: string, body: { form?: Record<string, string>; json?: unknown }) => postToDashboard(d.url, pathname, body, AUTH);
const get = async (d: Dashboard, pathname: string) => (await fetch(`${d.url}${pathname}`, { headers: { authorization: AUTH } })).text();

/** The approve form's hidden fields and draft, as a browser submits them. */
const openPage = (d: Dashboard, ticketId: string) => openApprovePage(d.url, ticketId, AUTH);

/** A mail of the customer's conversation `conversationId`, received `minutesAgo`, in `state` with a draft. */
async function mail(
  d: Dashboard,
  options: { minutesAgo: number; subject: string; question: string; conversationId?: string; state: 'parked' | 'sent'; draft: string },
): Promise<Ticket> {
  const messageId = `<c-${randomUUID()}@customer.example>`;
  const id = ticketIdFor(messageId);
  const at = new Date(Date.now() - options.minutesAgo * 60_000);
  await d.store.createIfAbsent(
    newTicket({ messageId, from: 'taro@customer.example', subject: options.subject, question: options.question, actor: 'poller', ...(options.conversationId ? { conversationId: options.conversationId } : {}) }, at),
  );
  await d.store.transition(id, { to: 'processing', actor: 'agent-worker' });
  if (options.state === 'parked') return d.store.transition(id, { to: 'parked', actor: 'agent-worker', patch: { reason: 'review mode always', draft: options.draft } });
  await d.store.transition(id, { to: 'drafted', actor: 'agent-worker', patch: { draft: options.draft } });
  await d.store.transition(id, { to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${randomUUID()}@support.example>`, autoSubmitted: true } } });
  return d.store.transition(id, { to: 'sent', actor: 'sender', patch: { outbound: { messageId: `<r-${randomUUID()}@support.example>`, autoSubmitted: true, sentAt: new Date(at.getTime() + 60_000).toISOString() } } });
}

async function sendJobs(d: Dashboard): Promise<string[]> {
  return (await d.queues.outbound.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).map((j) => String(j.id));
}

describe('the conversation of a parked ticket', () => {
  it('refuses an approval from a page opened before the customer wrote again, names the new mail, and asks for a tick once the page shows it', async () => {
    const d = await harness.start();
    const first = await mail(d, { minutesAgo: 30, subject: '領収書について', question: '領収書の宛名変更はできますか？', state: 'parked', draft: '「請求」→「領収書」で変更できます。' });
    const stalePage = await openPage(d, first.id);
    expect(stalePage.page).not.toContain('name="readNewerMail"');

    const followUp = await mail(d, { minutesAgo: 5, subject: 'Re: 領収書について', question: 'FOLLOWUP-MARK 自己解決しましたので回答は不要です。', conversationId: first.id, state: 'parked', draft: '承知しました。' });
    const stale = await post(d, `/tickets/${first.id}/approve`, { form: { ...stalePage.hidden, reply: stalePage.draft } });
    expect(stale.status).toBe(409);
    const refusal = await stale.text();
    expect(refusal).toContain('The customer wrote again after you opened this ticket');
    expect(refusal).toContain(`href="/tickets/${followUp.id}"`);
    expect((await d.store.require(first.id)).state).toBe('parked');
    expect(await sendJobs(d)).toEqual([]);

    // Reloaded: the conversation card shows the later mail, and the approval needs the operator's tick.
    const reloaded = await openPage(d, first.id);
    expect(reloaded.page).toContain('<h2>Conversation');
    expect(reloaded.page).toContain(`href="/tickets/${followUp.id}"`);
    expect(reloaded.page).toContain('FOLLOWUP-MARK');
    expect(reloaded.form).toMatch(/<input type="checkbox" name="readNewerMail" value="yes" required>/);
    const unticked = await post(d, `/tickets/${first.id}/approve`, { form: { ...reloaded.hidden, reply: reloaded.draft } });
    expect(unticked.status).toBe(409);
    expect(await unticked.text()).toContain('I read the customer');
    const ticked = await post(d, `/tickets/${first.id}/approve`, { form: { ...reloaded.hidden, reply: reloaded.draft, [READ_NEWER_MAIL]: 'yes' } });
    expect(ticked.status).toBe(303);
    expect((await d.store.require(first.id)).state).toBe('approved');
  });

  it('shows the earlier mail with the reply we sent, and the later mail, each a link with its state and time', async () => {
    const d = await harness.start({ TZ: 'Asia/Tokyo' });
    const root = await mail(d, { minutesAgo: 90, subject: 'パスワード', question: 'ROOT-QUESTION パスワードの条件は？', state: 'sent', draft: 'OUR-REPLY 8文字以上です。' });
    const middle = await mail(d, { minutesAgo: 30, subject: 'Re: パスワード', question: 'MIDDLE-QUESTION 記号は使えますか？', conversationId: root.id, state: 'parked', draft: '使えます。' });
    const later = await mail(d, { minutesAgo: 10, subject: 'Re: Re: パスワード', question: 'LATER-QUESTION やはり結構です。', conversationId: root.id, state: 'parked', draft: '承知しました。' });
    const { page } = await openPage(d, middle.id);
    const card = page.slice(page.indexOf('<h2>Conversation'), page.indexOf('</section>', page.indexOf('<h2>Conversation')));
    for (const t of [root, later]) expect(card).toContain(`href="/tickets/${t.id}"`);
    expect(card).not.toContain(`href="/tickets/${middle.id}"`);
    expect(card).toContain('ROOT-QUESTION');
    expect(card).toContain('OUR-REPLY');
    expect(card).toContain('LATER-QUESTION');
    expect(card).toMatch(/class="badge sent">sent</);
    expect(card).toContain(`datetime="${later.createdAt}"`);
    // Earlier mail alone asks for nothing: only what came after this mail can change the answer.
    const rootPage = await openPage(d, root.id);
    expect(rootPage.page).toContain('<h2>Conversation');
  });

  it('asks the API for the same: refused naming the later mail, unless readNewerMail; mail newer than conversationSeen is refused anyway', async () => {
    const d = await harness.start();
    const first = await mail(d, { minutesAgo: 30, subject: 'Invoice', question: 'Can I change the name on my invoice?', state: 'parked', draft: 'Yes, under Billing.' });
    const followUp = await mail(d, { minutesAgo: 5, subject: 'Re: Invoice', question: 'Never mind, solved.', conversationId: first.id, state: 'parked', draft: 'Glad to hear.' });

    const plain = await post(d, `/api/tickets/${first.id}/approve`, { json: { seen: (await d.store.require(first.id)).history.length } });
    expect(plain.status).toBe(409);
    expect(((await plain.json()) as { error: string }).error).toContain(followUp.id);
    const seenBefore = await post(d, `/api/tickets/${first.id}/approve`, { json: { seen: (await d.store.require(first.id)).history.length, conversationSeen: first.createdAt, [READ_NEWER_MAIL]: true } });
    expect(seenBefore.status).toBe(409);
    expect(((await seenBefore.json()) as { error: string }).error).toContain('after you opened this ticket');
    expect(await sendJobs(d)).toEqual([]);

    const read = await post(d, `/api/tickets/${first.id}/approve`, { json: { seen: (await d.store.require(first.id)).history.length, conversationSeen: followUp.createdAt, [READ_NEWER_MAIL]: true } });
    expect(read.status).toBe(202);
    // The later mail itself has nothing after it: approved as before.
    expect((await post(d, `/api/tickets/${followUp.id}/approve`, { json: { seen: (await d.store.require(followUp.id)).history.length } })).status).toBe(202);
  });

  // Automatic mail that joined the conversation (ignored by the checks, with the reason they record) is no customer
  // writing again: no tick, no 409, no mark. A person's follow-up still asks for both.
  it.each([
    { name: 'an out-of-office reply', reason: 'auto-reply: Auto-Submitted: auto-replied', counts: false },
    { name: 'a read receipt', reason: 'read receipt: Disposition-Notification', counts: false },
    { name: 'a bounce of an earlier reply', reason: 'bounce: Content-Type: multipart/report; report-type=delivery-status', counts: false },
    { name: 'a thank-you only', reason: 'acknowledgement: the reply only thanks or acknowledges (“ありがとうございました。”): nothing to answer', counts: false },
    { name: 'spam', reason: 'spam: X-Spam-Flag: YES', counts: false },
    { name: "a person's follow-up question", reason: undefined, counts: true },
  ])('later mail that is $name: counts as the customer writing again: $counts', async ({ reason, counts }) => {
    const d = await harness.start();
    const first = await mail(d, { minutesAgo: 30, subject: 'Invoice', question: 'Can I change the name on my invoice?', state: 'parked', draft: 'Yes, under Billing.' });
    const messageId = `<auto-${randomUUID()}@customer.example>`;
    const at = new Date(Date.now() - 5 * 60_000);
    const base = { messageId, from: 'taro@customer.example', subject: 'Re: Invoice', question: 'And the address on it too?', conversationId: first.id, actor: 'poller' };
    await d.store.createIfAbsent(newTicket(reason ? { ...base, state: 'ignored', reason } : base, at));

    const list = await get(d, '/');
    const row = list.slice(list.lastIndexOf('<tr', list.indexOf(`href="/tickets/${first.id}"`)), list.indexOf('</tr>', list.indexOf(`href="/tickets/${first.id}"`)));
    const { form } = await openPage(d, first.id);
    const plain = await post(d, `/api/tickets/${first.id}/approve`, { json: { seen: (await d.store.require(first.id)).history.length } });
    expect({ marked: row.includes('newer mail'), tick: form.includes('name="readNewerMail"'), status: plain.status }).toEqual(
      counts ? { marked: true, tick: true, status: 409 } : { marked: false, tick: false, status: 202 },
    );
  });

  it('marks parked tickets whose conversation has later mail in the list', async () => {
    const d = await harness.start();
    const first = await mail(d, { minutesAgo: 30, subject: 'Invoice', question: 'Can I change the name on my invoice?', state: 'parked', draft: 'Yes.' });
    const alone = await mail(d, { minutesAgo: 20, subject: 'Login', question: 'How do I log in?', state: 'parked', draft: 'With your address.' });
    await mail(d, { minutesAgo: 5, subject: 'Re: Invoice', question: 'And the address?', conversationId: first.id, state: 'parked', draft: 'Also.' });
    const list = await get(d, '/');
    const row = (id: string) => list.slice(list.lastIndexOf('<tr', list.indexOf(`href="/tickets/${id}"`)), list.indexOf('</tr>', list.indexOf(`href="/tickets/${id}"`)));
    expect(row(first.id)).toContain('+1 newer mail');
    expect(row(alone.id)).not.toContain('newer mail');
  });
});
