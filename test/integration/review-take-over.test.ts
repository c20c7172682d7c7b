/**
 * "Answer it yourself": a ticket that waits for the model server (AGENT_MODEL_OUTAGE_MINUTES, still `processing`) is
 * taken over by a person from the review page, the API or `npm run review -- take-over`: `processing → parked`, its
 * reason saying who took it and that the agent no longer answers it, with no draft; the person writes the reply. Any
 * other `processing` ticket (the agent is answering it right now) and a ticket in another state are refused; a repeated
 * submit is one take-over, a stale page is refused. Real HTTP against the dashboard app, the review CLI as a child
 * process, and a real redis-server; the agent worker's side is in agent-model-outage-take-over.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { takeOverReason } from '../../src/tickets/review.js';
import { newTicket, ticketIdFor, type Ticket } from '../../src/tickets/ticket.js';
import type { TicketStore } from '../../src/tickets/ticket-store.js';
import { basicAuth, postToDashboard, useDashboardHarness, type TestDashboard as Dashboard } from '../support/dashboard.js';
import { runNpm } from '../support/pipeline.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();
const QUESTION = 'Hello, how do I set up two-factor sign-in with an authenticator app?';
const BUTTON = 'Answer it yourself (stop waiting for the model)';

/** A ticket the agent worker took, which is `processing` while it runs (attempt 1). */
async function answering(store: TicketStore, from = 'hanako@customer.example'): Promise<Ticket> {
  const messageId = `<mail-${randomUUID()}@customer.example>`;
  const id = ticketIdFor(messageId);
  await store.createIfAbsent(newTicket({ messageId, from, fromName: 'Hanako', subject: 'Two-factor sign-in', question: QUESTION, mailText: QUESTION, actor: 'poller' }));
  return store.transition(id, { from: ['received'], to: 'processing', actor: 'agent-worker', note: 'attempt 1' });
}

/** A ticket that waits for the model server, noted as jobs/answer-ticket.ts `waitForModelServer` notes it. */
async function waiting(store: TicketStore, from?: string): Promise<Ticket> {
  const t = await answering(store, from);
  const reason = `waiting for the model server since ${new Date().toISOString()} (at most 30 minutes, AGENT_MODEL_OUTAGE_MINUTES): the model server at http://127.0.0.1:9/v1 (OPENAI_BASE_URL) failed (503 Service Unavailable); the agent tries again by itself once it answers`;
  return store.transition(t.id, { from: ['processing'], to: 'processing', actor: 'agent-worker', note: reason, patch: { reason } });
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

function expectTakenOver(ticket: Ticket, before: Ticket, operator: string): void {
  expect(ticket).toMatchObject({ state: 'parked', reason: takeOverReason(operator) });
  expect(ticket.draft).toBeUndefined();
  expect(ticket.history).toHaveLength(before.history.length + 1);
  expect(ticket.history.at(-1)).toMatchObject({ from: 'processing', to: 'parked', actor: `operator:${operator}`, note: takeOverReason(operator) });
}

describe('"Answer it yourself" on the review page', () => {
  it('is offered on a waiting ticket only, takes it over once however often it is submitted, and leads to writing the reply', async () => {
    const d = await harness.start();
    const t = await waiting(d.store);
    const busy = await answering(d.store, 'taro@customer.example');

    // The processing list shows why each ticket is there, and says what can be done about a waiting one.
    const list = await getPage(d, '/?state=processing');
    expect(list).toContain(`href="/tickets/${t.id}"`);
    expect(list).toContain('waiting for the model server since');
    expect(list).toContain(BUTTON);

    expect(formIn(await getPage(d, `/tickets/${busy.id}`), `/tickets/${busy.id}/take-over`)).toBeUndefined();
    const page = await getPage(d, `/tickets/${t.id}`);
    expect(page).toContain(BUTTON);
    const form = formIn(page, `/tickets/${t.id}/take-over`);
    expect(form).toMatchObject({ seen: String(t.history.length) });
    expect(form).toHaveProperty('_csrf');

    // Without the page's token, nothing happens.
    expect((await post(d, `/tickets/${t.id}/take-over`, { form: { seen: form!.seen! } })).status).toBe(403);
    expect((await d.store.require(t.id)).state).toBe('processing');

    // The agent worker tried the server again since the page was read (an entry per try): the ticket waits as shown.
    const tried = await d.store.transition(t.id, { from: ['processing'], to: 'processing', actor: 'agent-worker', note: 'resumed while waiting for the model server (attempt 1)' });
    const submit = () => post(d, `/tickets/${t.id}/take-over`, { form: form! });
    const res = await submit();
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/tickets/${t.id}?done=taken-over&ticket=${t.id}`);
    const taken = await d.store.require(t.id);
    expectTakenOver(taken, tried, 'admin');

    const after = await getPage(d, res.headers.get('location')!);
    expect(after).toContain('You took over “Two-factor sign-in”');
    expect(formIn(after, `/tickets/${t.id}/approve`)).toMatchObject({ seen: String(taken.history.length) });
    expect(after).toContain('<textarea id="reply" name="reply" rows="10" required autofocus>\n</textarea>');
    expect(formIn(after, `/tickets/${t.id}/take-over`)).toBeUndefined();

    // A double click: found done; nothing else is written.
    const again = await submit();
    expect(again.status).toBe(303);
    expect((await d.store.require(t.id)).history).toHaveLength(taken.history.length);

    // A form made up for the ticket the agent is answering right now is refused, and says so.
    const refused = await post(d, `/tickets/${busy.id}/take-over`, { form: { ...form!, seen: String(busy.history.length) } });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('The agent is answering this ticket right now');
    expect(await d.store.require(busy.id)).toMatchObject({ state: 'processing', history: busy.history });

    // The operator's reply goes out as any approval: one send job.
    const approve = await post(d, `/tickets/${t.id}/approve`, { form: { ...formIn(after, `/tickets/${t.id}/approve`)!, reply: 'Dear Hanako,\n\nOpen Settings > Security and scan the code with the app.' } });
    expect(approve.status).toBe(303);
    expect((await d.store.require(t.id)).state).toBe('approved');
    expect(await d.queues.outbound.getJobCountByTypes('waiting', 'delayed', 'prioritized')).toBe(1);
  });
});

describe('POST /api/tickets/:id/take-over', () => {
  it('takes a waiting ticket over once however often it is asked, at the same moment too, and refuses every other ticket', async () => {
    const d = await harness.start();
    const t = await waiting(d.store);

    const answers = await Promise.all(Array.from({ length: 4 }, () => post(d, `/api/tickets/${t.id}/take-over`, { json: { seen: t.history.length } })));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<{ ticketId: string; state: string; reason: string; alreadyTakenOver: boolean }>;
    expect(bodies.filter((b) => !b.alreadyTakenOver)).toHaveLength(1);
    for (const b of bodies) expect(b).toMatchObject({ ticketId: t.id, state: 'parked', reason: takeOverReason('admin') });
    expectTakenOver(await d.store.require(t.id), t, 'admin');
    // Asked again without `seen` (a script run twice): done already.
    const again = await post(d, `/api/tickets/${t.id}/take-over`, { json: {} });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ alreadyTakenOver: true });

    // The agent is answering it right now: refused, unchanged.
    const busy = await answering(d.store, 'taro@customer.example');
    const refused = await post(d, `/api/tickets/${busy.id}/take-over`, { json: {} });
    expect(refused.status).toBe(409);
    const error = (await refused.json()) as { error: string; state: string };
    expect(error.state).toBe('processing');
    expect(error.error).toMatch(/^The agent is answering this ticket right now/);
    expect(error.error).toContain('only a ticket waiting for the model server can be taken over');
    expect(await d.store.require(busy.id)).toMatchObject({ state: 'processing', history: busy.history });

    // Not processing: nothing to take from the agent.
    const received = await d.store.createIfAbsent(newTicket({ messageId: `<m-${randomUUID()}@customer.example>`, from: 'a@customer.example', subject: 's', question: QUESTION, actor: 'poller' }));
    const notProcessing = await post(d, `/api/tickets/${received.ticket.id}/take-over`, { json: {} });
    expect(notProcessing.status).toBe(409);
    expect(((await notProcessing.json()) as { error: string }).error).toMatch(/^The ticket is received; only a ticket waiting for the model server .* can be taken over/);

    // A page opened before another change is stale; an unknown ticket, a bad body.
    const other = await waiting(d.store, 'jiro@customer.example');
    const stale = await post(d, `/api/tickets/${other.id}/take-over`, { json: { seen: other.history.length - 1 } });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { error: string }).error).toContain('changed since you opened it');
    expect((await post(d, `/api/tickets/${'f'.repeat(64)}/take-over`, { json: {} })).status).toBe(404);
    expect((await post(d, `/api/tickets/${other.id}/take-over`, { json: { seen: 'x' } })).status).toBe(400);
    expect((await post(d, `/api/tickets/${other.id}/take-over`, { json: { by: 'mallory' } })).status).toBe(400);
    expect((await d.store.require(other.id)).state).toBe('processing');

    // The taken-over ticket is approved with the operator's own reply.
    const approved = await post(d, `/api/tickets/${t.id}/approve`, { json: { reply: 'Dear Hanako,\n\nOpen Settings > Security.' } });
    expect(approved.status).toBe(202);
  });
});

describe('npm run review -- take-over', () => {
  it('takes over from a terminal, finds it done when run again, and refuses a ticket the agent is answering with one line', async () => {
    const d = await harness.start();
    const env = { REDIS_URL: d.config.REDIS_URL, QUEUE_PREFIX: d.prefix, LOG_LEVEL: 'silent' };
    const review = (...args: string[]) => runNpm(['run', 'review', '--', ...args], env, 60_000);
    const t = await waiting(d.store);
    const busy = await answering(d.store, 'taro@customer.example');

    const [taken, refused] = await Promise.all([review('take-over', t.id.slice(0, 12), '--by', 'anna'), review('take-over', busy.id, '--by', 'anna')]);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stdout).toContain(`took over ${t.id}`);
    expect(taken.stdout).toContain(`approve ${t.id} --reply-file`);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('The agent is answering this ticket right now');

    expectTakenOver(await d.store.require(t.id), t, 'anna');
    expect(await d.store.require(busy.id)).toMatchObject({ state: 'processing', history: busy.history });

    const again = await review('take-over', t.id, '--by', 'anna');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('already taken over');
  }, 120_000);
});
