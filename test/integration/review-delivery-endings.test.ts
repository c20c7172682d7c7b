/**
 * Tickets whose reply the mail system, not the draft, left open, and how an operator finishes them on the review page,
 * the API and `npm run review`:
 * - a reply that "may already have been sent", which the operator finds did arrive: "It arrived — close as sent" ends
 *   it `sent`, confirmed by a person (no SMTP response), without sending or copying anything, counted once, and
 *   teaching trust only what the send of that approval would have taught;
 * - a reply the SMTP server refused for good (5xx): "Acknowledge and close" ends it `rejected` without a reply, as an
 *   undeliverable reply rather than a judgement of the draft (no trust, no knowledge gap);
 * - a reply that bounced after it was sent: "Acknowledge and close" records who took care of it, keeps the ticket
 *   `sent` and its outcome, and takes it off the start page's "Replies that did not arrive".
 * Each is refused (409) once the ticket changed since the page was opened, and a double submit is one decision.
 * Real HTTP against the dashboard app, the review CLI as a child process, and a real redis-server.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agent/types.js';
import { GapStore } from '../../src/knowledge/gaps.js';
import { metricsKeys } from '../../src/server/metrics.js';
import { BOUNCED_FIELD, latencyBucket, normalizeReason } from '../../src/tickets/insights.js';
import { outcomeDay, outcomeKeys } from '../../src/tickets/outcome.js';
import { MAYBE_SENT_REASON, SMTP_REFUSED_REASON, UNDELIVERABLE_REASON } from '../../src/tickets/review.js';
import { newTicket, ticketIdFor, type Ticket, type TicketState } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { citedSources, trustKeys } from '../../src/tickets/trust.js';
import { basicAuth, useDashboardHarness, type TestDashboard as Dashboard, postToDashboard } from '../support/dashboard.js';
import { runNpm } from '../support/pipeline.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();

const DRAFT = 'Open Settings, then Security, and choose "Reset password".';
const REFUSAL = '550 5.1.1 <hanako@customer.example>: Recipient address rejected: User unknown';

function agentResult(): AgentResult {
  const usage = { calls: 2, promptTokens: 100, completionTokens: 20, totalTokens: 120 };
  return {
    question: 'How do I reset my password?',
    plan: { subtasks: ['find the reset steps'] },
    subtasks: [
      {
        taskName: 'find the reset steps',
        toolResults: [[{ toolName: 'search_xyz_manual', args: '{"keywords":"password reset"}', results: [{ fileName: 'account.md', content: 'Settings → Security → Reset password' }] }]],
        reflectionResults: [{ advice: 'enough', isCompleted: true }],
        isCompleted: true,
        subtaskAnswer: DRAFT,
        challengeCount: 1,
        usedFallback: false,
        usage,
      },
    ],
    answer: DRAFT,
    sources: [{ kind: 'manual', fileName: 'account.md' }],
    usage,
    llmCalls: [],
    truncated: false,
    droppedSubtasks: [],
    durationMs: 10,
  };
}

const post = (d: Dashboard, pathname: string, body: { form?: Record<string, string>; json?: unknown }) => postToDashboard(d.url, pathname, body, AUTH);

async function getPage(d: Dashboard, pathname: string): Promise<string> {
  return (await fetch(`${d.url}${pathname}`, { headers: { authorization: AUTH } })).text();
}

/** The ticket's page, and the hidden fields of its form posting to `/tickets/<id>/<action>` (undefined: no such form). */
async function openPage(d: Dashboard, ticketId: string): Promise<{ html: string; form(action: string): Record<string, string> | undefined }> {
  const html = await getPage(d, `/tickets/${ticketId}`);
  return {
    html,
    form(action) {
      const start = html.indexOf(`action="/tickets/${ticketId}/${action}"`);
      if (start === -1) return undefined;
      const form = html.slice(start, html.indexOf('</form>', start));
      return Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
    },
  };
}

/** A ticket the agent worker parked with its draft (review mode), written by `store` (another clock, or the dashboard's). */
async function parkedDraft(store: TicketStore, createdAt = new Date()): Promise<Ticket> {
  const messageId = `<q-${randomUUID()}@customer.example>`;
  const id = ticketIdFor(messageId);
  await store.createIfAbsent(newTicket({ messageId, from: 'hanako@customer.example', subject: 'Password', question: 'How do I reset my password?', actor: 'poller' }, createdAt));
  await store.transition(id, { to: 'processing', actor: 'agent-worker' });
  return store.transition(id, { to: 'parked', actor: 'agent-worker', patch: { agent: agentResult(), draft: DRAFT, reason: 'review mode always' } });
}

/** A ticket whose draft the agent worker queued for sending without review. */
async function draftedReply(store: TicketStore, createdAt: Date): Promise<Ticket> {
  const messageId = `<q-${randomUUID()}@customer.example>`;
  const id = ticketIdFor(messageId);
  await store.createIfAbsent(newTicket({ messageId, from: 'taro@customer.example', subject: 'Login', question: 'How do I log in?', actor: 'poller' }, createdAt));
  await store.transition(id, { to: 'processing', actor: 'agent-worker' });
  return store.transition(id, { to: 'drafted', actor: 'agent-worker', patch: { agent: agentResult(), draft: DRAFT } });
}

/** What jobs/send-reply.ts writes for one attempt: the claim with our Message-ID, then how it ended. */
async function sendAttempt(store: TicketStore, ticketId: string, end: 'maybe-sent' | 'refused' | 'accepted'): Promise<Ticket> {
  const ticket = await store.require(ticketId);
  const from = ticket.state as 'drafted' | 'approved';
  const outbound = {
    messageId: ticket.outbound?.messageId ?? `<reply-${randomUUID()}@support.example>`,
    autoSubmitted: from === 'drafted',
    ...(from === 'approved' ? { approvedBy: 'admin' } : {}),
  };
  await store.transition(ticketId, { from: [from], to: 'sending', actor: 'sender', note: 'attempt 1', patch: { outbound } });
  await store.linkMessageId(outbound.messageId, ticketId);
  if (end === 'accepted') {
    return store.transition(ticketId, { from: ['sending'], to: 'sent', actor: 'sender', note: '250 OK', patch: { outbound: { ...outbound, sentAt: new Date().toISOString(), smtpResponse: '250 OK' }, reason: null } });
  }
  const reason = end === 'maybe-sent' ? `${MAYBE_SENT_REASON} (Connection closed unexpectedly)` : `${SMTP_REFUSED_REASON}: ${REFUSAL}`;
  return store.transition(ticketId, { from: ['sending'], to: 'parked', actor: 'sender', note: reason, patch: { reason, outbound: end === 'refused' ? { ...outbound, smtpResponse: REFUSAL } : outbound } });
}

async function approve(d: Dashboard, ticketId: string, json: Record<string, unknown> = {}): Promise<void> {
  const seen = (await d.store.require(ticketId)).history.length;
  expect((await post(d, `/api/tickets/${ticketId}/approve`, { json: { seen, ...json } })).status).toBe(202);
}

async function jobIds(d: Dashboard): Promise<string[]> {
  const states = ['waiting', 'delayed', 'active', 'completed', 'failed'] as const;
  const [outbound, copies] = await Promise.all([d.queues.outbound.getJobs([...states]), d.queues.sentcopy.getJobs([...states])]);
  return [...outbound, ...copies].map((j) => `${j.name}:${String(j.id)}`).sort();
}

/** The entries of the trust lists of every source the ticket's draft cited. */
async function trustEntries(d: Dashboard): Promise<string[]> {
  const keys = trustKeys(d.prefix);
  const redis = harness.redis();
  const entries = await Promise.all(citedSources(agentResult()).map((s) => redis.lrange(keys.source(s.key), 0, -1)));
  return entries.flat();
}

async function outcomeTotals(d: Dashboard): Promise<Record<string, string>> {
  return harness.redis().hgetall(outcomeKeys(d.prefix).totals);
}

describe('"It arrived — close as sent" for a reply that may already have been sent', () => {
  it('ends an approved reply `sent`, confirmed by the operator, without sending or copying it, counted and learned from once', async () => {
    const d = await harness.start();
    const t = await parkedDraft(d.store);
    await approve(d, t.id);
    const parked = await sendAttempt(d.store, t.id, 'maybe-sent');
    const attemptAt = parked.history.findLast((h) => h.to === 'sending')!.at;
    const jobsBefore = await jobIds(d);

    const page = await openPage(d, t.id);
    expect(page.html).toContain('It arrived — close as sent');
    const form = page.form('arrived');
    expect(form).toHaveProperty('seen', String(parked.history.length));
    const submit = () => post(d, `/tickets/${t.id}/arrived`, { form: { ...form, note: 'the customer answered it' } });
    // Submitted twice at once (a double click): one decision, and neither submit sees an error.
    expect((await Promise.all([submit(), submit()])).map((r) => r.status)).toEqual([303, 303]);

    const sent = await d.store.require(t.id);
    expect(sent.state).toBe('sent');
    expect(sent.reason).toBeUndefined();
    expect(sent.history).toHaveLength(parked.history.length + 1);
    const entry = sent.history.at(-1)!;
    expect(entry).toMatchObject({ from: 'parked', to: 'sent', actor: 'operator:admin' });
    expect(entry.note).toContain('confirmed by a person');
    expect(entry.note).toContain('the customer answered it');
    // Who confirmed it, and that no SMTP response did: the reply's record says so, with when it was handed over.
    expect(sent.outbound).toMatchObject({ approvedBy: 'admin', autoSubmitted: false, sentAt: attemptAt, deliveryCheck: { verdict: 'arrived', by: 'admin', note: 'the customer answered it' } });
    expect(sent.outbound?.smtpResponse).toBeUndefined();
    expect(sent.outcome).toMatchObject({ kind: 'approved_as_is', editRatio: 0 });

    // Nothing was sent again and nothing is copied to the Sent folder: no job beyond the approval's.
    expect(await jobIds(d)).toEqual(jobsBefore);
    // Counted once as an ending; the SMTP acceptance counter stays for what an SMTP server accepted.
    expect(await outcomeTotals(d)).toEqual({ approved_as_is: '1' });
    expect(await harness.redis().hget(metricsKeys(d.prefix).counters, 'replies_sent')).toBeNull();
    // The person's approval is one review, as the send of that approval would have recorded it.
    const reviews = await trustEntries(d);
    expect(reviews).toHaveLength(citedSources(agentResult()).length);
    for (const review of reviews) expect(review).toMatch(new RegExp(`^approved_as_is 0 ${t.id} sender=`));

    // A double submit is one decision: the second finds it done and changes nothing.
    expect((await submit()).status).toBe(303);
    expect((await d.store.require(t.id)).version).toBe(sent.version);
    expect(await outcomeTotals(d)).toEqual({ approved_as_is: '1' });
    expect(await trustEntries(d)).toHaveLength(reviews.length);

    const after = await openPage(d, t.id);
    expect(after.html).toContain('confirmed by admin');
    expect(after.form('arrived')).toBeUndefined();
  });

  it('ends an automatic reply as auto_sent, teaches trust nothing, and measures its reply time to the attempt', async () => {
    const d = await harness.start();
    const createdAt = Date.now() - 3 * 3600_000;
    let clock = createdAt;
    // The sender's writes of three hours ago, on their own clock.
    const then = new TicketStore(harness.redis(), { prefix: d.prefix, now: () => new Date((clock += 45_000)) });
    const t = await draftedReply(then, new Date(createdAt));
    const parked = await sendAttempt(then, t.id, 'maybe-sent');
    const attemptAt = parked.history.findLast((h) => h.to === 'sending')!.at;

    const res = await post(d, `/api/tickets/${t.id}/arrived`, { json: { seen: parked.history.length } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ticketId: t.id, state: 'sent' });
    const sent = await d.store.require(t.id);
    expect(sent.outcome?.kind).toBe('auto_sent');
    expect(sent.outbound).toMatchObject({ autoSubmitted: true, sentAt: attemptAt, deliveryCheck: { verdict: 'arrived', by: 'admin' } });
    expect(sent.history.at(-1)).toMatchObject({ from: 'parked', to: 'sent', actor: 'operator:admin' });
    // Nobody reviewed the draft: no source earns anything from it.
    expect(await harness.redis().zcard(trustKeys(d.prefix).sources)).toBe(0);
    // The customer waited until the attempt that delivered it, not until someone confirmed it.
    const day = await harness.redis().hgetall(outcomeKeys(d.prefix).day(outcomeDay(sent.outcome!.at)));
    const waited = (Date.parse(attemptAt) - createdAt) / 1000;
    expect(Object.keys(day).filter((f) => f.startsWith('lat:'))).toEqual([`lat:auto:${latencyBucket(waited)}`]);
    expect(day.auto_sent).toBe('1');
  });

  it('is refused once the ticket changed since the page was opened, and for a ticket whose reply cannot have gone out', async () => {
    const d = await harness.start();
    const t = await parkedDraft(d.store);
    await approve(d, t.id);
    await sendAttempt(d.store, t.id, 'maybe-sent');
    const stalePage = await openPage(d, t.id);
    // Another operator checked and sends it again.
    await approve(d, t.id, { checkedNoCopy: true });
    const stale = await post(d, `/tickets/${t.id}/arrived`, { form: { ...stalePage.form('arrived'), note: '' } });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain('changed since you opened it');
    expect((await d.store.require(t.id)).state).toBe('approved');

    // A draft never handed to a mail server, and a reply the server refused: nothing to confirm.
    const waiting = await parkedDraft(d.store);
    const refused = await parkedDraft(d.store);
    await approve(d, refused.id);
    await sendAttempt(d.store, refused.id, 'refused');
    for (const ticket of [waiting, refused]) {
      expect((await openPage(d, ticket.id)).form('arrived')).toBeUndefined();
      const res = await post(d, `/api/tickets/${ticket.id}/arrived`, { json: {} });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { error: string }).error).toContain('may have reached the customer');
      expect((await d.store.require(ticket.id)).state).toBe('parked');
    }
    expect(await outcomeTotals(d)).toEqual({});
  });
});

describe('"Acknowledge and close" for a reply that cannot be delivered', () => {
  it('ends a reply the SMTP server refused for good `rejected`, as undeliverable: no send, no trust, no knowledge gap', async () => {
    const d = await harness.start();
    const t = await parkedDraft(d.store);
    await approve(d, t.id);
    const parked = await sendAttempt(d.store, t.id, 'refused');
    const jobsBefore = await jobIds(d);

    const page = await openPage(d, t.id);
    expect(page.html).toContain('Acknowledge and close');
    expect(page.form('arrived')).toBeUndefined();
    const submit = () => post(d, `/tickets/${t.id}/close`, { form: { ...page.form('close'), note: 'phoned the customer' } });
    expect((await Promise.all([submit(), submit()])).map((r) => r.status)).toEqual([303, 303]);

    const closed = await d.store.require(t.id);
    expect(closed.state).toBe('rejected');
    expect(closed.reason).toBe(UNDELIVERABLE_REASON);
    const entry = closed.history.at(-1)!;
    expect(entry).toMatchObject({ from: 'parked', to: 'rejected', actor: 'operator:admin' });
    expect(entry.note).toContain(REFUSAL);
    expect(entry.note).toContain('phoned the customer');
    expect(closed.outbound).toMatchObject({ deliveryCheck: { verdict: 'undeliverable', by: 'admin', note: 'phoned the customer' } });
    expect(closed.outcome).toMatchObject({ kind: 'rejected', reason: UNDELIVERABLE_REASON, undeliverable: true });
    expect(closed.outcome?.sender).toBeUndefined();

    expect(await jobIds(d)).toEqual(jobsBefore);
    expect(await outcomeTotals(d)).toEqual({ rejected: '1' });
    // Counted among the rejections under one reason that names no customer.
    const day = await harness.redis().hgetall(outcomeKeys(d.prefix).day(outcomeDay(closed.outcome!.at)));
    expect(day[`rej:${normalizeReason(UNDELIVERABLE_REASON)}`]).toBe('1');
    // The draft was not judged: its sources keep no rejection, and the question is no knowledge gap.
    expect(await trustEntries(d)).toEqual([]);
    expect((await new GapStore(harness.redis(), { prefix: d.prefix }).list()).openTotal).toBe(0);

    expect((await submit()).status).toBe(303);
    expect((await d.store.require(t.id)).version).toBe(closed.version);
    expect(await outcomeTotals(d)).toEqual({ rejected: '1' });
    expect(parked.history.length + 1).toBe(closed.history.length);
  });

  it('is not offered for a draft the mail server never refused, and is refused when the page is stale', async () => {
    const d = await harness.start();
    const waiting = await parkedDraft(d.store);
    expect((await openPage(d, waiting.id)).form('close')).toBeUndefined();
    const res = await post(d, `/api/tickets/${waiting.id}/close`, { json: { note: 'no' } });
    expect(res.status).toBe(409);
    expect((await d.store.require(waiting.id)).state).toBe('parked');

    const t = await parkedDraft(d.store);
    await approve(d, t.id);
    await sendAttempt(d.store, t.id, 'refused');
    const stalePage = await openPage(d, t.id);
    // Another operator sends it again (e.g. after the address was fixed at the relay).
    await approve(d, t.id);
    const stale = await post(d, `/tickets/${t.id}/close`, { form: { ...stalePage.form('close') } });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain('changed since you opened it');
    expect((await d.store.require(t.id)).state).toBe('approved');
  });

  it('acknowledges a reply that bounced: the ticket stays sent and counted once, and leaves "Replies that did not arrive"', async () => {
    const d = await harness.start();
    const t = await parkedDraft(d.store);
    await approve(d, t.id);
    const sent = await sendAttempt(d.store, t.id, 'accepted');
    const bounce = { at: new Date().toISOString(), reportTicketId: ticketIdFor(`<bounce-${randomUUID()}@mx.customer.example>`), recipient: 'hanako@customer.example', status: '5.1.1', diagnostic: 'User unknown' };
    await d.store.recordReplyBounce(sent.outbound!.messageId, bounce);
    expect(await getPage(d, '/')).toContain('Replies that did not arrive');

    const page = await openPage(d, t.id);
    expect(page.html).toContain('Acknowledge and close');
    const submit = () => post(d, `/tickets/${t.id}/close`, { form: { ...page.form('close'), note: 'wrote to her other address by hand' } });
    expect((await submit()).status).toBe(303);

    const acknowledged = await d.store.require(t.id);
    expect(acknowledged.state).toBe('sent');
    expect(acknowledged.history).toEqual(sent.history);
    expect(acknowledged.outcome).toEqual(sent.outcome);
    expect(acknowledged.replyBounce).toMatchObject({ ...bounce, acknowledged: { by: 'admin', note: 'wrote to her other address by hand' } });
    expect(Date.parse(acknowledged.replyBounce!.acknowledged!.at)).not.toBeNaN();
    expect(await outcomeTotals(d)).toEqual({ approved_as_is: '1' });
    expect((await d.store.bouncedReplies(10)).total).toBe(0);
    expect(await getPage(d, '/')).not.toContain('Replies that did not arrive');
    // A second report of the same bounce lists nothing again, and the bounce still counts once.
    await d.store.recordReplyBounce(sent.outbound!.messageId, { ...bounce, at: new Date().toISOString() });
    expect(await getPage(d, '/')).not.toContain('Replies that did not arrive');
    const day = await harness.redis().hgetall(outcomeKeys(d.prefix).day(outcomeDay(bounce.at)));
    expect(day[BOUNCED_FIELD]).toBe('1');

    const after = await openPage(d, t.id);
    expect(after.html).toContain('acknowledged by admin');
    expect(after.html).toContain('wrote to her other address by hand');
    expect(after.form('close')).toBeUndefined();
    // The double submit: done already, nothing changes.
    expect((await submit()).status).toBe(303);
    expect((await d.store.require(t.id)).replyBounce).toEqual(acknowledged.replyBounce);
  });
});

describe('npm run review -- arrived | close', () => {
  it('finishes the same tickets from a terminal, and refuses the rest with one line', async () => {
    const d = await harness.start();
    const env = { REDIS_URL: d.config.REDIS_URL, QUEUE_PREFIX: d.prefix, LOG_LEVEL: 'silent' };
    const review = (...args: string[]) => runNpm(['run', 'review', '--', ...args], env, 60_000);

    const maybe = await parkedDraft(d.store);
    await approve(d, maybe.id);
    await sendAttempt(d.store, maybe.id, 'maybe-sent');
    const refused = await parkedDraft(d.store);
    await approve(d, refused.id);
    await sendAttempt(d.store, refused.id, 'refused');
    const bounced = await parkedDraft(d.store);
    await approve(d, bounced.id);
    const sent = await sendAttempt(d.store, bounced.id, 'accepted');
    await d.store.recordReplyBounce(sent.outbound!.messageId, { at: new Date().toISOString(), reportTicketId: ticketIdFor(`<b-${randomUUID()}@x>`), status: '5.1.1' });
    const waiting = await parkedDraft(d.store);

    const [arrived, closed, acknowledged, notSent] = await Promise.all([
      review('arrived', maybe.id.slice(0, 12), '--by', 'anna', '--note', 'found in the server log'),
      review('close', refused.id, '--by', 'anna'),
      review('close', bounced.id, '--by', 'anna', '--note', 'phoned'),
      review('arrived', waiting.id, '--by', 'anna'),
    ]);
    expect(arrived.code, arrived.stderr).toBe(0);
    expect(arrived.stdout).toContain(maybe.id);
    expect(closed.code, closed.stderr).toBe(0);
    expect(acknowledged.code, acknowledged.stderr).toBe(0);
    expect(notSent.code).toBe(1);
    expect(notSent.stderr.trim().split('\n')).toHaveLength(1);

    const states = async (id: string): Promise<TicketState> => (await d.store.require(id)).state;
    expect(await states(maybe.id)).toBe('sent');
    expect((await d.store.require(maybe.id)).outbound?.deliveryCheck).toMatchObject({ verdict: 'arrived', by: 'anna', note: 'found in the server log' });
    expect(await states(refused.id)).toBe('rejected');
    expect((await d.store.require(refused.id)).history.at(-1)?.actor).toBe('operator:anna');
    expect((await d.store.require(bounced.id)).replyBounce?.acknowledged).toMatchObject({ by: 'anna', note: 'phoned' });
    expect(await states(waiting.id)).toBe('parked');

    const show = await review('show', maybe.id);
    expect(show.stdout).toMatch(/confirmed arrived by anna/);
    const showBounce = await review('show', bounced.id);
    expect(showBounce.stdout).toMatch(/acknowledged by anna/);
  }, 120_000);
});
