/**
 * "Get a new draft" on the review page (and the API's rerun): a person asked for the draft, so it comes back to
 * them and never goes out on its own, whatever REVIEW_MODE says. A mail the agent cannot read keeps its clear reason
 * instead of being handed to the agent. A stale page is refused like approve and reject. Real HTTP against the
 * dashboard role, the real agent worker and sender, the scripted model, redis-server and the SMTP receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { replySignalsOf } from '../../src/mail/classify.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { startDashboardRole, type DashboardRole } from '../../src/runtime/dashboard.js';
import { ANONYMOUS_OPERATOR } from '../../src/server/auth.js';
import { RERUN_NOTE, rerunAgent, rerunReason } from '../../src/tickets/review.js';
import { newTicket, ticketIdFor } from '../../src/tickets/ticket.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  startPipelineServers,
  startRoles,
  waitFor,
  waitForState,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';

let servers: PipelineServers;
let running: RunningRoles;
let dashboard: DashboardRole;
let env: Record<string, string>;

beforeAll(async () => {
  servers = await startPipelineServers();
  // `auto`: a complete answer (the scripted model's default) is sent without a person.
  env = pipelineEnv(servers, { REVIEW_MODE: 'auto' });
  const config = parseConfig(env);
  running = await startRoles(config);
  dashboard = await startDashboardRole(config, { services: running.services });
}, 60_000);
afterAll(async () => {
  await dashboard?.stop();
  await running?.stop();
  if (servers) await removePrefix(servers.redis.url, env.QUEUE_PREFIX!);
  await servers?.stop();
});

/** The hidden fields of the page's form posting to `action`, as a browser submits them. */
async function formOf(ticketId: string, action: string): Promise<Record<string, string> | undefined> {
  const page = await (await fetch(`${dashboard.url}/tickets/${ticketId}`)).text();
  const start = page.indexOf(`action="/tickets/${ticketId}/${action}"`);
  if (start === -1) return undefined;
  const form = page.slice(start, page.indexOf('</form>', start));
  return Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
}

function postForm(pathname: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${dashboard.url}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
}

function postJson(pathname: string, json: unknown): Promise<Response> {
  return fetch(`${dashboard.url}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json), redirect: 'manual' });
}

/** Two copies of one question (its subject tagged with `tag`): the first is answered and sent, the second parked as a repeat of it. */
async function repeatedQuestion(tag: string): Promise<{ firstId: string; repeatId: string }> {
  const QUESTION = { from: 'Ichiro <ichiro@customer.example>', subject: `パスワードについて (${tag})`, body: 'パスワードの条件を教えてください。' };
  const first = await ingest(running, buildMail({ messageId: customerMessageId('first'), ...QUESTION }));
  await waitForState(running.store, first.ticketId, ['sent'], 30_000);
  const repeat = await ingest(running, buildMail({ messageId: customerMessageId('again'), ...QUESTION }));
  const parked = await waitForState(running.store, repeat.ticketId, ['parked', 'sent'], 30_000);
  expect(parked.state).toBe('parked');
  expect(parked.reason).toMatch(/^repeated question/);
  return { firstId: first.ticketId, repeatId: repeat.ticketId };
}

/** The ticket once the run a person asked for ended (parked again, or sent). */
function afterRerun(ticketId: string) {
  return waitFor(async () => {
    const t = await running.store.require(ticketId);
    return ['parked', 'sent'].includes(t.state) && t.history.some((h) => h.from === 'parked' && h.to === 'processing') ? t : undefined;
  }, 'the run asked for to end', 30_000);
}

describe('a new draft asked for on the review page', () => {
  it('is parked for the person who asked, never sent on its own: the customer gets no second reply', async () => {
    const { repeatId } = await repeatedQuestion('page');
    const mailsBefore = servers.smtp.messages.length;

    const page = await (await fetch(`${dashboard.url}/tickets/${repeatId}`)).text();
    expect(page).toContain('Get a new draft');
    expect(page).not.toContain('Answer again');
    const form = await formOf(repeatId, 'rerun');
    expect(form).toHaveProperty('seen');
    const res = await postForm(`/tickets/${repeatId}/rerun`, form!);
    expect(res.status).toBe(303);

    const reparked = await afterRerun(repeatId);
    expect(reparked.state).toBe('parked');
    expect(reparked.reason).toBe(rerunReason(ANONYMOUS_OPERATOR));
    expect(reparked.reason).toBe(`new draft asked for by ${ANONYMOUS_OPERATOR}: review it`);
    expect(reparked.draft?.trim()).not.toBe('');
    expect(reparked.history.map((h) => h.to)).not.toContain('drafted');
    // Give a wrongly queued send time to happen before counting.
    await new Promise((r) => setTimeout(r, 500));
    expect(servers.smtp.messages).toHaveLength(mailsBefore);
  }, 90_000);

  it('through the API too', async () => {
    const { repeatId } = await repeatedQuestion('api');
    const mailsBefore = servers.smtp.messages.length;
    const res = await postJson(`/api/tickets/${repeatId}/rerun`, {});
    expect(res.status).toBe(202);
    const reparked = await afterRerun(repeatId);
    expect(reparked.state).toBe('parked');
    expect(reparked.reason).toBe(rerunReason(ANONYMOUS_OPERATOR));
    await new Promise((r) => setTimeout(r, 500));
    expect(servers.smtp.messages).toHaveLength(mailsBefore);
  }, 90_000);

  it('from a terminal (rerunAgent as `npm run review -- rerun` calls it), a repeated question is parked too: the customer already has a reply', async () => {
    const { repeatId } = await repeatedQuestion('cli');
    const mailsBefore = servers.smtp.messages.length;
    const queues = await running.services.queues();
    const outcome = await rerunAgent(
      { store: running.store, redis: await running.services.producer(), tickets: queues.tickets, config: running.services.config },
      { ticketId: repeatId, operator: 'cli' },
    );
    expect(outcome.outcome).toBe('requeued');
    const reparked = await afterRerun(repeatId);
    expect(reparked.state).toBe('parked');
    expect(reparked.reason).toMatch(/^new draft asked for by cli: review it/);
    await new Promise((r) => setTimeout(r, 500));
    expect(servers.smtp.messages).toHaveLength(mailsBefore);
  }, 90_000);

  // The checks before the agent (spam, limits, a first start's hold, a repeated question) run only on a `received`
  // ticket: a rerun of mail they parked skips them, so its draft must reach a person, from a terminal too.
  it.each([
    { name: 'parked by the spam check (SPAM_ACTION=park)', tag: 'spam', path: 'checked', reason: 'spam: X-Spam-Flag: YES', sent: false },
    { name: "held at the poller's first start", tag: 'held', path: 'created', reason: "held at this installation's first start: it arrived 4 months earlier", sent: false },
    { name: 'parked by the agent after a run (a model error), decided as any run', tag: 'ran', path: 'ran', reason: 'the LLM server answered 500', sent: true },
  ])('from a terminal, a new draft of mail $name', async ({ tag, path, reason, sent }) => {
    const messageId = customerMessageId(`cli-${tag}`);
    const ticketId = ticketIdFor(messageId);
    const from = `${tag}@customer.example`;
    const mail = await parseInboundMail(buildMail({ messageId, from, subject: '二段階認証', body: '二段階認証の設定手順を教えてください。' }));
    const base = { messageId, from, subject: mail.subject, question: mail.question, replySignals: replySignalsOf(mail), actor: 'poller' };
    await running.store.createIfAbsent(newTicket(path === 'created' ? { ...base, state: 'parked', reason } : base));
    if (path === 'ran') await running.store.transition(ticketId, { to: 'processing', actor: 'agent-worker' });
    if (path !== 'created') await running.store.transition(ticketId, { to: 'parked', actor: 'agent-worker', patch: { reason } });
    const mailsBefore = servers.smtp.messages.length;
    const queues = await running.services.queues();
    const outcome = await rerunAgent(
      { store: running.store, redis: await running.services.producer(), tickets: queues.tickets, config: running.services.config },
      { ticketId, operator: 'cli' },
    );
    expect(outcome).toMatchObject({ outcome: 'requeued', forReview: !sent });
    const after = await afterRerun(ticketId);
    if (sent) {
      await waitForState(running.store, ticketId, ['sent'], 30_000);
      return;
    }
    expect(after.state).toBe('parked');
    expect(after.reason).toMatch(/^new draft asked for by cli: review it/);
    await new Promise((r) => setTimeout(r, 500));
    expect(servers.smtp.messages).toHaveLength(mailsBefore);
  }, 90_000);

  it('keeps the clear reason of a mail whose text is only in an attachment, and is not offered for it', async () => {
    const png = Buffer.alloc(600, 7).toString('base64');
    const body = [
      '--b1', 'Content-Type: text/plain; charset=utf-8', '', '',
      '--b1', 'Content-Type: image/png', 'Content-Disposition: attachment; filename="error-screen.png"', 'Content-Transfer-Encoding: base64', '', png,
      '--b1--', '',
    ].join('\n');
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('att'), from: 'kenji@customer.example', subject: '', body: '', rawBody: { contentType: 'multipart/mixed; boundary=b1', body } }));
    const parked = await waitForState(running.store, ticketId, ['parked'], 30_000);
    expect(parked.reason).toContain('error-screen.png');

    expect(await formOf(ticketId, 'rerun')).toBeUndefined();
    const res = await postJson(`/api/tickets/${ticketId}/rerun`, {});
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toContain(parked.reason);
    const after = await running.store.require(ticketId);
    expect(after).toMatchObject({ state: 'parked', reason: parked.reason });
    expect(after.history).toHaveLength(parked.history.length);
  }, 60_000);

  it('is refused from a stale page (409), like approve and reject', async () => {
    const messageId = customerMessageId('stale');
    const ticketId = ticketIdFor(messageId);
    await running.store.createIfAbsent(newTicket({ messageId, from: 'hana@customer.example', subject: '二段階認証', question: '二段階認証の設定手順を教えてください。', actor: 'poller' }));
    await running.store.transition(ticketId, { to: 'processing', actor: 'agent-worker' });
    await running.store.transition(ticketId, { to: 'parked', actor: 'agent-worker', patch: { reason: 'review mode always', draft: '設定画面から行えます。' } });
    const staleForm = await formOf(ticketId, 'rerun');
    expect(staleForm).toHaveProperty('seen');

    // Meanwhile another operator asked for a new draft, and the agent parked it: the page shows the old one.
    await running.store.transition(ticketId, { from: ['parked'], to: 'processing', actor: 'operator:other', note: RERUN_NOTE });
    await running.store.transition(ticketId, { from: ['processing'], to: 'parked', actor: 'agent-worker', patch: { reason: rerunReason('other'), draft: '新しい下書き' } });
    const before = await running.store.require(ticketId);

    const stale = await postForm(`/tickets/${ticketId}/rerun`, staleForm!);
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain('changed since you opened it');
    const api = await postJson(`/api/tickets/${ticketId}/rerun`, { seen: Number(staleForm!.seen) });
    expect(api.status).toBe(409);
    expect(await running.store.require(ticketId)).toMatchObject({ state: 'parked', history: before.history });
    expect(await running.services.queues().then((q) => q.tickets.getJobs(['waiting', 'delayed', 'active']))).toEqual([]);

    // Reloaded, the page asks for the new draft on what it shows.
    const fresh = await formOf(ticketId, 'rerun');
    expect((await postForm(`/tickets/${ticketId}/rerun`, fresh!)).status).toBe(303);
    await waitFor(async () => {
      const t = await running.store.require(ticketId);
      return t.state === 'parked' && t.history.length > before.history.length ? t : undefined;
    }, 'the new draft to be parked', 30_000);
  }, 60_000);
});
