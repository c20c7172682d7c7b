/**
 * The dashboard app over real HTTP (port 0 on loopback) against a real redis-server: authentication on every
 * protected route, the JSON API, the review page's forms with CSRF tokens, escaping of hostile mail, security
 * headers, Bull Board, metrics and readiness. Tickets are created with the TicketStore directly, each test under
 * a fresh QUEUE_PREFIX.
 */
import { pino } from 'pino';
import { LOGIN_FAILURES_ALLOWED, LoginThrottle } from '../../src/server/auth.js';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agent/types.js';
import { ConfigError, parseConfig, type Config } from '../../src/config.js';
import { mailboxStateKey, readPollerStatus } from '../../src/runtime/poller.js';
import { readRoleStatus, roleStatusKey } from '../../src/runtime/role-status.js';
import { recordReindexOutcome } from '../../src/runtime/reindex-outcome.js';
import { rawRefFor, saveRaw } from '../../src/mail/raw-store.js';
import type { ReplySignals } from '../../src/mail/classify.js';
import { connectProducer } from '../../src/queues/connection.js';
import { answerJobId, sendJobId } from '../../src/queues/job-options.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { createSearchBackends } from '../../src/search/factory.js';
import { createDashboardApp, type DashboardDeps } from '../../src/server/app.js';
import { METRIC_NAMES, recordAgentRun, recordFailedAgentRun, recordIgnored, recordReplySent } from '../../src/server/metrics.js';
import { jobGeneration, newTicket, ticketIdFor, type AttachmentSummary, type Ticket } from '../../src/tickets/ticket.js';
import { RERUN_NOTE } from '../../src/tickets/review.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { editRatio, outcomeDay, senderDigest } from '../../src/tickets/outcome.js';
import { buildMail, removePrefix } from '../support/pipeline.js';
import { freePort } from '../../src/dev/ports.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';

const USER = 'admin';
const PASSWORD = 'correct horse battery staple';
const XSS_SCRIPT = '<script>alert(1)</script>';
const XSS_IMG = '<img src=x onerror=alert(1)>';

let redisServer: RedisServer;
let redis: Redis;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  redisServer = await startRedis();
  redis = await connectProducer(redisServer.url);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
});

interface Dashboard {
  url: string;
  prefix: string;
  config: Config;
  store: TicketStore;
  queues: Queues;
}

/** Serves a dashboard on 127.0.0.1:0 with a fresh prefix; stopped and its keys removed after the test. */
async function startDashboard(env: Record<string, string> = {}, extra: Partial<DashboardDeps> = {}, connection: Redis = redis): Promise<Dashboard> {
  const prefix = `dash${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const config = parseConfig({ REDIS_URL: redisServer.url, QUEUE_PREFIX: prefix, DASHBOARD_USER: USER, DASHBOARD_PASSWORD: PASSWORD, ...env });
  const store = new TicketStore(connection, { prefix });
  const queues = createQueues(connection, prefix);
  const app = createDashboardApp({ config, redis: connection, store, queues, ...extra });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  cleanups.push(async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    await closeAll(queues).catch(() => undefined);
    if (redisServer.running) await removePrefix(redisServer.url, prefix);
  });
  return { url: `http://127.0.0.1:${port}`, prefix, config, store, queues };
}

function basic(user = USER, password = PASSWORD): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

interface CallOptions {
  method?: string;
  /** `false`: no credentials; a string: this Authorization header. */
  auth?: boolean | string;
  json?: unknown;
  form?: Record<string, string>;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** One HTTP request; redirects are not followed so 303s can be checked. */
async function call(d: Dashboard, pathname: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== false) headers.authorization = typeof options.auth === 'string' ? options.auth : basic();
  let body: string | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  if (options.form) {
    body = new URLSearchParams(options.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  if (options.contentType) headers['content-type'] = options.contentType;
  return fetch(`${d.url}${pathname}`, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, redirect: 'manual' });
}

/** Status of `GET /api/tickets` sent with the given Host header (fetch does not let a caller set Host). */
function statusWithHost(d: Dashboard, host: string): Promise<number> {
  const url = new URL(d.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: '/api/tickets', headers: { host: `${host}:${url.port}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

function agentResult(question: string, overrides: Partial<AgentResult> = {}): AgentResult {
  const usage = { calls: 6, promptTokens: 5400, completionTokens: 610, totalTokens: 6010 };
  return {
    question,
    plan: { subtasks: ['パスワードの文字数と文字種の条件を調べる', 'パスワードを忘れた場合のリセット手順を調べる'] },
    subtasks: [
      {
        taskName: 'パスワードの文字数と文字種の条件を調べる',
        toolResults: [[{ toolName: 'search_xyz_manual', args: '{"keywords":"パスワード 条件"}', results: [{ fileName: 'account.md', content: '8文字以上' }] }]],
        reflectionResults: [{ advice: 'マニュアルの記述で十分に答えられている。', isCompleted: true }],
        isCompleted: true,
        subtaskAnswer: 'パスワードは8文字以上で、英大文字・英小文字・数字をそれぞれ1文字以上含める必要があります。',
        challengeCount: 1,
        usedFallback: false,
        usage,
      },
      {
        taskName: 'パスワードを忘れた場合のリセット手順を調べる',
        toolResults: [
          [{ toolName: 'search_xyz_qa', args: '{"query":"パスワード 忘れた"}', results: [] }],
          [{ toolName: 'search_xyz_manual', args: '{"keywords":"パスワード リセット"}', results: [{ fileName: 'account.md', content: 'リセット' }] }],
        ],
        reflectionResults: [
          { advice: 'Q&A に該当がない。マニュアルを「パスワード リセット」で検索すること。', isCompleted: false },
          { advice: '手順が揃った。', isCompleted: true },
        ],
        isCompleted: true,
        subtaskAnswer: 'ログイン画面の「パスワードをお忘れですか？」からリセット用のメールを受け取れます。',
        challengeCount: 2,
        usedFallback: false,
        usage,
      },
    ],
    answer: 'draft',
    sources: [
      { kind: 'manual', fileName: 'account.md' },
      { kind: 'qa', fileName: 'faq.csv#12' },
    ],
    usage,
    llmCalls: [],
    truncated: false,
    droppedSubtasks: [],
    durationMs: 8_400,
    ...overrides,
  };
}

interface ParkedSpec {
  subject?: string;
  body?: string;
  fromName?: string;
  draft?: string | null;
  reason?: string;
  agent?: AgentResult | null;
  /** Store the raw mail (default true). */
  raw?: boolean;
  /** The mail text the poller stores on the ticket (absent: a ticket from before it did). */
  mailText?: string;
  attachments?: AttachmentSummary[];
  /** What the poller recorded of the mail's headers (absent: nothing vouches for the sender). */
  replySignals?: ReplySignals;
}

/** A ticket parked by the agent worker with a draft, as the pipeline leaves it. */
async function parkedTicket(d: Dashboard, spec: ParkedSpec = {}): Promise<Ticket> {
  const messageId = `<q-${randomUUID()}@customer.example>`;
  const address = `c${randomUUID().slice(0, 6)}@customer.example`;
  const subject = spec.subject ?? 'パスワードの条件について';
  const body = spec.body ?? 'パスワードの条件を教えてください。\n忘れた場合の手順も知りたいです。';
  const fromName = spec.fromName ?? '山田 花子';
  const id = ticketIdFor(messageId);
  const withRaw = spec.raw !== false;
  if (withRaw) await saveRaw(redis, d.prefix, id, buildMail({ messageId, from: `${fromName} <${address}>`, subject, body }));
  await d.store.createIfAbsent(
    newTicket({
      messageId,
      from: address,
      fromName,
      subject,
      question: body,
      actor: 'poller',
      ...(withRaw ? { rawRef: rawRefFor(d.prefix, id) } : {}),
      ...(spec.mailText !== undefined ? { mailText: spec.mailText } : {}),
      ...(spec.attachments ? { attachments: spec.attachments } : {}),
      ...(spec.replySignals ? { replySignals: spec.replySignals } : {}),
    }),
  );
  await d.store.transition(id, { to: 'processing', actor: 'agent-worker' });
  const reason = spec.reason ?? 'review mode always: every draft waits for a person';
  return d.store.transition(id, {
    to: 'parked',
    actor: 'agent-worker',
    note: reason,
    patch: {
      reason,
      draft: spec.draft === undefined ? '山田様\n\nパスワードは8文字以上で、英大文字・英小文字・数字を含めてください。' : spec.draft,
      agent: spec.agent === undefined ? agentResult(body) : spec.agent,
    },
  });
}

/** The CSRF token of the forms on a page. */
async function csrfTokenOf(d: Dashboard, pathname = '/'): Promise<string> {
  const page = await (await call(d, pathname)).text();
  const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!token) throw new Error(`no CSRF token on ${pathname}`);
  return token;
}

async function outboundJobIds(d: Dashboard): Promise<string[]> {
  const jobs = await d.queues.outbound.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
  return jobs.map((j) => String(j.id));
}

describe('authentication', () => {
  it('answers 401 with a Basic challenge on every protected route without, or with wrong, credentials', async () => {
    // Many wrong logins from one address: the throttle (tested below) would step in before the last route.
    const d = await startDashboard({}, { loginThrottle: new LoginThrottle({ allowed: 1000 }) });
    const t = await parkedTicket(d);
    const routes: Array<[string, string, CallOptions]> = [
      ['GET', '/', {}],
      ['GET', `/tickets/${t.id}`, {}],
      ['GET', '/api/tickets', {}],
      ['GET', `/api/tickets/${t.id}`, {}],
      ['POST', `/api/tickets/${t.id}/approve`, { json: { seen: t.history.length } }],
      ['POST', `/api/tickets/${t.id}/reject`, { json: { reason: 'x' } }],
      ['POST', `/tickets/${t.id}/approve`, { form: { reply: 'x' } }],
      ['POST', `/tickets/${t.id}/reject`, { form: { reason: 'x' } }],
      ['POST', '/reindex', { form: {} }],
      ['GET', '/admin/queues', {}],
      ['GET', '/admin/queues/api/queues', {}],
      ['GET', '/metrics', {}],
      ['GET', '/assets/review.css', {}],
      ['GET', '/no-such-page', {}],
    ];
    const wrong = [false, basic(USER, 'wrong password'), basic('mallory', PASSWORD), 'Basic !!!notbase64', 'Bearer abc'] as const;
    for (const [method, pathname, options] of routes) {
      for (const auth of wrong) {
        const res = await call(d, pathname, { ...options, method, auth });
        expect(res.status, `${method} ${pathname} with ${String(auth)}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="helpdesk-worker dashboard"/);
      }
    }
    // Nothing happened to the ticket through any of those.
    expect((await d.store.require(t.id)).state).toBe('parked');
    expect(await outboundJobIds(d)).toEqual([]);
  });

  it('serves every protected page with the right credentials', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    for (const pathname of ['/', `/tickets/${t.id}`, '/api/tickets', `/api/tickets/${t.id}`, '/admin/queues', '/admin/queues/api/queues', '/metrics', '/assets/review.css']) {
      const res = await call(d, pathname);
      expect(res.status, pathname).toBe(200);
    }
    expect((await call(d, `/api/tickets/${t.id}/approve`, { json: { seen: t.history.length } })).status).toBe(202);
    const other = await parkedTicket(d);
    expect((await call(d, `/api/tickets/${other.id}/reject`, { json: { reason: 'answered by phone' } })).status).toBe(200);
  });

  it('throttles failed logins per client address (429 with Retry-After) and logs each failure without the password', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const d = await startDashboard({}, { logger });
    // Distinct guesses: a wrong password repeated counts once (see dashboard-login-throttle.test.ts).
    const wrong = (i: number) => basic(USER, `guess-1234567-${i}`);
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) expect((await call(d, '/api/tickets', { auth: wrong(i) })).status).toBe(401);
    const throttled = await call(d, '/api/tickets', { auth: wrong(LOGIN_FAILURES_ALLOWED) });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    // While throttled even the right password waits: guessing must not go on in the background.
    expect((await call(d, '/api/tickets')).status).toBe(429);
    expect(lines.filter((l) => l.includes('dashboard login failed')).length).toBeGreaterThanOrEqual(LOGIN_FAILURES_ALLOWED);
    expect(lines.join('\n')).not.toContain('guess-1234567');
    expect(lines.some((l) => l.includes('"user":"admin"'))).toBe(true);
  });

  it('counts wrong passwords sent to the open /readyz as failed logins, so the probe cannot be used to guess the password', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const d = await startDashboard({}, { logger });
    const details = async (auth: string | undefined) => {
      const res = await call(d, '/readyz', auth === undefined ? {} : { auth });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { checks: Record<string, unknown> };
      return typeof body.checks.redis === 'object';
    };
    expect(await details(undefined)).toBe(true);
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) expect(await details(basic(USER, `guess-${i}`))).toBe(false);
    expect(lines.filter((l) => l.includes('dashboard login failed') && l.includes('/readyz')).length).toBe(LOGIN_FAILURES_ALLOWED);
    // Throttled: the right password no longer shows the details (the probe still answers), nor opens another route.
    expect(await details(undefined)).toBe(false);
    expect((await call(d, '/api/tickets')).status).toBe(429);
    // A probe without credentials is no failed login and still gets its status.
    expect((await call(d, '/readyz', { auth: false })).status).toBe(200);
  });

  it.each([
    ['short', 'sandbox', true],
    ['holding the user', `${USER}-dashboard-2026`, true],
    ['easy to guess', 'password1234', true],
    ['strong', 'correct horse battery staple', false],
  ])('on loopback, warns at start when DASHBOARD_PASSWORD is %s', async (_name, password, warns) => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    await startDashboard({ DASHBOARD_PASSWORD: password }, { logger });
    expect(lines.some((l) => l.includes('DASHBOARD_PASSWORD is weak') && l.includes('openssl rand -base64 18'))).toBe(warns);
    expect(lines.join('')).not.toContain(password);
  });

  it('beyond loopback, refuses to build the app with a weak DASHBOARD_PASSWORD', async () => {
    const queues = createQueues(redis, 'unused');
    cleanups.push(() => closeAll(queues));
    const build = (password: string) => {
      const config = parseConfig({ REDIS_URL: redisServer.url, QUEUE_PREFIX: 'unused', DASHBOARD_HOST: '0.0.0.0', DASHBOARD_PASSWORD: password });
      return () => createDashboardApp({ config, redis, store: new TicketStore(redis, { prefix: 'unused' }), queues });
    };
    expect(build('sandbox')).toThrow(ConfigError);
    expect(build('sandbox')).toThrow(/DASHBOARD_PASSWORD is weak: .*0\.0\.0\.0.*openssl rand -base64 18/);
    expect(build('correct horse battery staple')).not.toThrow();
  });

  it('a successful login does not clear the failures of its address: behind a proxy they may be a stranger\'s', async () => {
    const d = await startDashboard();
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED - 1; i++) expect((await call(d, '/api/tickets', { auth: basic(USER, `wrong-${i}`) })).status).toBe(401);
    expect((await call(d, '/api/tickets')).status).toBe(200);
    expect((await call(d, '/api/tickets', { auth: basic(USER, 'wrong-last') })).status).toBe(401);
    expect((await call(d, '/api/tickets', { auth: basic(USER, 'wrong-more') })).status).toBe(429);
  });

  it('leaves /healthz and /readyz open for probes', async () => {
    const d = await startDashboard();
    const health = await call(d, '/healthz', { auth: false });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await call(d, '/readyz', { auth: false });
    expect(ready.status).toBe(200);
  });

  it('refuses to build the app without a password unless DASHBOARD_AUTH=off', async () => {
    const config = parseConfig({ REDIS_URL: redisServer.url, QUEUE_PREFIX: 'unused' });
    const queues = createQueues(redis, 'unused');
    cleanups.push(() => closeAll(queues));
    expect(() => createDashboardApp({ config, redis, store: new TicketStore(redis, { prefix: 'unused' }), queues })).toThrow(
      /DASHBOARD_PASSWORD.*DASHBOARD_AUTH=off/s,
    );
  });

  it('with DASHBOARD_AUTH=off serves without credentials but only to loopback host names', async () => {
    const d = await startDashboard({ DASHBOARD_AUTH: 'off', DASHBOARD_PASSWORD: '' });
    const t = await parkedTicket(d);
    expect((await call(d, '/', { auth: false })).status).toBe(200);
    const approved = await call(d, `/api/tickets/${t.id}/approve`, { auth: false, json: { seen: t.history.length } });
    expect(approved.status).toBe(202);
    expect((await d.store.require(t.id)).history.at(-1)?.actor).toBe('operator:local');
    // A page on another host name resolving to 127.0.0.1 (DNS rebinding) must not reach it.
    expect(await statusWithHost(d, 'attacker.example')).toBe(421);
    // A name that only starts like a loopback one is the attacker's too.
    expect(await statusWithHost(d, 'localhost.attacker.example')).toBe(421);
    expect(await statusWithHost(d, 'localhost')).toBe(200);
  });
});

describe('JSON API: cross-site requests', () => {
  // A cross-site page can POST a bodiless form (Content-Type: application/x-www-form-urlencoded, or text/plain) with
  // the browser's cached Basic credentials and, over plain HTTP to a non-loopback host, with neither Sec-Fetch-Site
  // nor a real Origin: only `Origin: null`. Such a request must never change a ticket.
  it.each([
    { name: 'an empty form post with Origin: null', headers: { origin: 'null' }, contentType: 'application/x-www-form-urlencoded', status: 403 },
    { name: 'an empty form post without Origin', headers: {}, contentType: 'application/x-www-form-urlencoded', status: 415 },
    { name: 'an empty text/plain post', headers: {}, contentType: 'text/plain', status: 415 },
    { name: 'a post without any Content-Type', headers: {}, contentType: undefined, status: 415 },
    { name: 'a JSON post with Origin: null', headers: { origin: 'null' }, contentType: 'application/json', status: 403 },
  ])('refuses $name ($status) and leaves the ticket parked', async ({ headers, contentType, status }) => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const res = await call(d, `/api/tickets/${t.id}/approve`, { method: 'POST', headers: headers as Record<string, string>, ...(contentType ? { contentType } : {}) });
    expect(res.status).toBe(status);
    expect((await d.store.require(t.id)).state).toBe('parked');
  });

  it.each([
    { name: 'Content-Type: application/json with an empty body', headers: {}, contentType: 'application/json' },
    { name: 'an X-Requested-With header (which a cross-site page cannot send without a preflight)', headers: { 'x-requested-with': 'cli' }, contentType: undefined },
  ])('accepts $name', async ({ headers, contentType }) => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    // "Get a new draft": an API call that takes an empty body (an approval must name what it approves).
    const res = await call(d, `/api/tickets/${t.id}/rerun`, { method: 'POST', headers: headers as Record<string, string>, ...(contentType ? { contentType } : {}) });
    expect(res.status).toBe(202);
  });
});

describe('JSON API', () => {
  it('lists tickets filtered by a validated state, newest first, with the total', async () => {
    const d = await startDashboard();
    const first = await parkedTicket(d, { subject: 'first' });
    const second = await parkedTicket(d, { subject: 'second' });
    await d.store.transition(second.id, { to: 'rejected', actor: 'operator:x', patch: { reason: 'spam' } });
    const third = await parkedTicket(d, { subject: 'third' });

    const parked = await call(d, '/api/tickets?state=parked');
    expect(parked.status).toBe(200);
    expect(parked.headers.get('x-total-count')).toBe('2');
    const list = (await parked.json()) as Array<{ id: string; state: string; subject: string; hasDraft: boolean; reason: string }>;
    expect(list.map((t) => t.id).sort()).toEqual([first.id, third.id].sort());
    expect(list[0]).toMatchObject({ state: 'parked', hasDraft: true, reason: expect.stringContaining('review mode') });
    expect(list[0]).not.toHaveProperty('agent');

    const all = (await (await call(d, '/api/tickets?limit=2')).json()) as unknown[];
    expect(all).toHaveLength(2);

    for (const bad of ['state=bogus', 'state=parked&state=sent', 'limit=0', 'limit=abc', 'offset=-1', 'colour=blue']) {
      const res = await call(d, `/api/tickets?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/Invalid query/);
    }
  });

  it('returns one ticket in full, 404 for an unknown id and 400 for a malformed one', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const res = await call(d, `/api/tickets/${t.id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Ticket;
    expect(body.id).toBe(t.id);
    expect(body.agent?.plan.subtasks).toHaveLength(2);
    const unknown = await call(d, `/api/tickets/${'0'.repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: expect.stringContaining('not found') });
    expect((await call(d, '/api/tickets/not-an-id')).status).toBe(400);
    expect((await call(d, '/api/nothing-here')).status).toBe(404);
  });

  it('approves a parked ticket: 202, state approved by the operator, one send-reply job with its deterministic id', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const res = await call(d, `/api/tickets/${t.id}/approve`, { json: { seen: t.history.length } });
    expect(res.status).toBe(202);
    const approved = await d.store.require(t.id);
    expect(approved.state).toBe('approved');
    expect(approved.draft).toBe(t.draft);
    expect(approved.reason).toBeUndefined();
    expect(approved.history.at(-1)).toMatchObject({ from: 'parked', to: 'approved', actor: `operator:${USER}` });
    const jobId = sendJobId(t.id, jobGeneration(approved));
    expect(await res.json()).toEqual({ ticketId: t.id, state: 'approved', jobId, alreadyApproved: false });
    const job = await d.queues.outbound.getJob(jobId);
    expect(job?.name).toBe('send-reply');
    expect(job?.data).toEqual({ ticketId: t.id });
    expect(job?.opts.attempts).toBe(d.config.SENDER_ATTEMPTS);

    // A second approve (double click, retry after an outage) adds no second job.
    const again = await call(d, `/api/tickets/${t.id}/approve`, { json: { seen: t.history.length } });
    expect(again.status).toBe(202);
    expect(await again.json()).toMatchObject({ alreadyApproved: true, jobId });
    expect(await outboundJobIds(d)).toEqual([jobId]);
  });

  it('re-approving a ticket whose send is waiting for a retry (SMTP 4xx) adds no second send job', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const res = await call(d, `/api/tickets/${t.id}/approve`, { json: { seen: t.history.length } });
    const { jobId } = (await res.json()) as { jobId: string };
    // What the sender does on a 4xx: claim, then give the ticket back to `approved` while BullMQ retries the job.
    await d.store.transition(t.id, { from: ['approved'], to: 'sending', actor: 'sender', note: 'attempt 1' });
    await d.store.transition(t.id, { from: ['sending'], to: 'approved', actor: 'sender', note: 'not accepted, will retry: 451' });
    // A stale form resubmitted, or the API called again: a second job would race the retry and park a sent reply.
    const again = await call(d, `/api/tickets/${t.id}/approve`, { json: { seen: t.history.length } });
    expect(again.status).toBe(202);
    expect(await again.json()).toMatchObject({ alreadyApproved: true, jobId });
    expect(await outboundJobIds(d)).toEqual([jobId]);
  });

  it('hands a parked ticket back to the agent (API and form): one answer-ticket job, refused once a reply may have gone out', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const res = await call(d, `/api/tickets/${t.id}/rerun`, { json: {} });
    expect(res.status).toBe(202);
    const requeued = await d.store.require(t.id);
    expect(requeued.state).toBe('processing');
    expect(requeued.history.at(-1)).toMatchObject({ from: 'parked', to: 'processing', actor: `operator:${USER}`, note: RERUN_NOTE });
    const jobId = answerJobId(t.id, jobGeneration(requeued));
    expect(await res.json()).toEqual({ ticketId: t.id, state: 'processing', jobId, alreadyRequeued: false });
    // Asked again while the job waits: the same job.
    expect(await (await call(d, `/api/tickets/${t.id}/rerun`, { json: {} })).json()).toMatchObject({ alreadyRequeued: true, jobId });
    const jobs = await d.queues.tickets.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
    // A person asked: the job names them, and its new draft is parked for them.
    expect(jobs.map((j) => [String(j.id), j.name, j.data])).toEqual([[jobId, 'answer-ticket', { ticketId: t.id, reviewBy: USER }]]);

    // The review page offers it for a parked ticket, through a form with its CSRF token.
    const other = await parkedTicket(d);
    const page = await (await call(d, `/tickets/${other.id}`)).text();
    expect(page).toContain(`action="/tickets/${other.id}/rerun"`);
    const form = await call(d, `/tickets/${other.id}/rerun`, { form: { _csrf: await csrfTokenOf(d) } });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe(`/?done=rerun&ticket=${other.id}`);
    expect((await d.store.require(other.id)).state).toBe('processing');
    expect(await (await call(d, `/?done=rerun&ticket=${other.id}`)).text()).toContain('is back with the agent');

    // A ticket a reply may have left for: only an approval sends it.
    const maybeSent = await parkedTicket(d);
    await d.store.transition(maybeSent.id, { from: ['parked'], to: 'approved', actor: 'operator:ops' });
    await d.store.transition(maybeSent.id, { from: ['approved'], to: 'sending', actor: 'sender' });
    await d.store.transition(maybeSent.id, { from: ['sending'], to: 'parked', actor: 'sender', patch: { reason: 'may already have been sent' } });
    const refused = await call(d, `/api/tickets/${maybeSent.id}/rerun`, { json: {} });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: expect.stringContaining('may already have gone out') });
    expect(await (await call(d, `/tickets/${maybeSent.id}`)).text()).not.toContain('/rerun"');
    expect((await call(d, `/api/tickets/${'0'.repeat(64)}/rerun`, { json: {} })).status).toBe(404);
  });

  it('stores an edited reply as the draft when approving', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const edited = '山田様\n\nお問い合わせありがとうございます。\nパスワードは8文字以上です。\n\nXYZ サポート';
    const res = await call(d, `/api/tickets/${t.id}/approve`, { json: { reply: edited } });
    expect(res.status).toBe(202);
    const approved = await d.store.require(t.id);
    expect(approved.draft).toBe(edited);
    expect(approved.history.at(-1)?.note).toBe('approved with an edited reply');
    // Once approved, the text can no longer change.
    const late = await call(d, `/api/tickets/${t.id}/approve`, { json: { reply: 'something else' } });
    expect(late.status).toBe(409);
    expect((await d.store.require(t.id)).draft).toBe(edited);
  });

  it('rejects a parked ticket with a reason and queues nothing', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const res = await call(d, `/api/tickets/${t.id}/reject`, { json: { reason: '  answered by phone  ' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ticketId: t.id, state: 'rejected', reason: 'answered by phone' });
    const rejected = await d.store.require(t.id);
    expect(rejected.state).toBe('rejected');
    expect(rejected.reason).toBe('answered by phone');
    expect(rejected.history.at(-1)).toMatchObject({ to: 'rejected', actor: `operator:${USER}`, note: 'answered by phone' });
    expect(await outboundJobIds(d)).toEqual([]);
  });

  it('answers bad input with 4xx and a message, never 500, and changes nothing', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const noDraft = await parkedTicket(d, { draft: null });
    const cases: Array<[string, string, CallOptions, number, RegExp]> = [
      ['bad JSON', `/api/tickets/${t.id}/approve`, { body: '{"reply": ', contentType: 'application/json' }, 400, /not a valid JSON object/],
      ['JSON that is not an object', `/api/tickets/${t.id}/approve`, { body: '"hello"', contentType: 'application/json' }, 400, /not a valid JSON object/],
      ['a JSON array', `/api/tickets/${t.id}/approve`, { body: '[]', contentType: 'application/json' }, 400, /expected object/],
      ['text/plain body', `/api/tickets/${t.id}/approve`, { body: '{"reply":"x"}', contentType: 'text/plain' }, 415, /application\/json/],
      ['form body', `/api/tickets/${t.id}/reject`, { form: { reason: 'x' } }, 415, /application\/json/],
      ['reply of the wrong type', `/api/tickets/${t.id}/approve`, { json: { reply: 42 } }, 400, /reply/],
      ['blank reply', `/api/tickets/${t.id}/approve`, { json: { reply: '  \n ' } }, 400, /empty/],
      ['unknown field', `/api/tickets/${t.id}/approve`, { json: { reply: 'x', send: 'now' } }, 400, /send|Unrecognized/i],
      ['neither reply nor seen', `/api/tickets/${t.id}/approve`, { json: {} }, 400, /reply.*seen/],
      ['no draft and no reply', `/api/tickets/${noDraft.id}/approve`, { json: { seen: noDraft.history.length } }, 400, /no draft/],
      ['missing reason', `/api/tickets/${t.id}/reject`, { json: {} }, 400, /reason/],
      ['blank reason', `/api/tickets/${t.id}/reject`, { json: { reason: '   ' } }, 400, /reason/],
      ['unknown ticket', `/api/tickets/${'f'.repeat(64)}/approve`, { json: { seen: 0 } }, 404, /not found/],
      ['unknown ticket (reject)', `/api/tickets/${'f'.repeat(64)}/reject`, { json: { reason: 'x' } }, 404, /not found/],
      ['malformed id', `/api/tickets/..%2F..%2Fetc/approve`, { json: {} }, 400, /ticket id/],
    ];
    for (const [what, pathname, options, status, message] of cases) {
      const res = await call(d, pathname, { method: 'POST', ...options });
      expect(res.status, what).toBe(status);
      expect(res.headers.get('content-type'), what).toMatch(/^application\/json/);
      expect(((await res.json()) as { error: string }).error, what).toMatch(message);
    }
    expect((await d.store.require(t.id)).state).toBe('parked');
    expect((await d.store.require(noDraft.id)).state).toBe('parked');
    expect(await outboundJobIds(d)).toEqual([]);
  });

  it('answers 409 for a transition the state machine forbids', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    await d.store.transition(t.id, { to: 'rejected', actor: 'operator:other', patch: { reason: 'duplicate' } });
    const approve = await call(d, `/api/tickets/${t.id}/approve`, { json: { seen: t.history.length } });
    expect(approve.status).toBe(409);
    expect(await approve.json()).toEqual({ error: expect.stringMatching(/rejected/), state: 'rejected' });
    const reject = await call(d, `/api/tickets/${t.id}/reject`, { json: { reason: 'again' } });
    expect(reject.status).toBe(409);
    const received = newTicket({ messageId: `<r-${randomUUID()}@x.example>`, from: 'a@x.example', subject: 's', question: 'q', actor: 'poller' });
    await d.store.createIfAbsent(received);
    expect((await call(d, `/api/tickets/${received.id}/approve`, { json: { reply: 'hi' } })).status).toBe(409);
    expect(await outboundJobIds(d)).toEqual([]);
  });

  it('answers 503, not 500, while Redis is down', async () => {
    const own = await startRedis();
    cleanups.push(() => own.stop());
    const connection = await connectProducer(own.url);
    cleanups.push(async () => connection.disconnect());
    const d = await startDashboard({}, {}, connection);
    const t = await parkedTicket(d, { raw: false });
    await own.kill();
    for (const [pathname, options] of [
      ['/api/tickets', {}],
      [`/api/tickets/${t.id}`, {}],
      [`/api/tickets/${t.id}/approve`, { json: { seen: t.history.length } }],
    ] as const) {
      const res = await call(d, pathname, options);
      expect(res.status, pathname).toBe(503);
      expect(((await res.json()) as { error: string }).error).toMatch(/Redis/);
    }
    expect((await call(d, '/')).status).toBe(503);
    const ready = await call(d, '/readyz', { auth: false });
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: { redis: string } }).checks.redis).toBe('fail');
    expect((await call(d, '/healthz', { auth: false })).status).toBe(200);
  });
});

describe('review page', () => {
  it('lists parked tickets with reason, sender, subject and age', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d, { subject: '請求書の再発行', reason: 'not fully answered: unanswered subtasks 「請求書を探す」' });
    const other = await parkedTicket(d, { subject: 'already handled' });
    await d.store.transition(other.id, { to: 'rejected', actor: 'operator:x', patch: { reason: 'x' } });
    const res = await call(d, '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain(`href="/tickets/${t.id}"`);
    expect(page).toContain('請求書の再発行');
    expect(page).toContain('not fully answered: unanswered subtasks 「請求書を探す」');
    // The name, and the address on a line of its own (it may wrap).
    expect(page).toMatch(/<td class="from"><bdi class="name">山田 花子<\/bdi><span class="addr">[^<]+@[^<]+<\/span><\/td>/);
    expect(page).toMatch(/<td class="age"[^>]*>\d+ s<\/td>/);
    expect(page).not.toContain('already handled');
  });

  it('shows the mail, the editable draft, the plan, subtask answers, sources and reflection advice', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d, { body: 'パスワードの条件を教えてください。\n\n> 以前のメールの引用\n\n--\n山田' });
    const res = await call(d, `/tickets/${t.id}`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('以前のメールの引用'); // the full text of the stored mail, not only the extracted question
    expect(page).toMatch(/<textarea id="reply" name="reply" rows="\d+" required autofocus>\n山田様\n\nパスワードは8文字以上/);
    expect(page).toContain('パスワードを忘れた場合のリセット手順を調べる');
    expect(page).toContain('ログイン画面の「パスワードをお忘れですか？」');
    expect(page).toContain('account.md');
    expect(page).toContain('faq.csv#12');
    expect(page).toContain('Q&amp;A に該当がない。マニュアルを「パスワード リセット」で検索すること。');
    expect(page).toContain(`action="/tickets/${t.id}/approve"`);
    expect(page).toContain(`action="/tickets/${t.id}/reject"`);
    expect(page).not.toContain('<script');
    expect(page).not.toContain(' style=');

    // The text the poller stored on the ticket is shown without the raw mail (a page view never parses it again).
    const stored = await parkedTicket(d, { raw: false, mailText: 'ご担当者様\n\n請求書の宛名を変更できますか。\n\n> 以前の引用' });
    const storedPage = await (await call(d, `/tickets/${stored.id}`)).text();
    expect(storedPage).toContain('請求書の宛名を変更できますか。');
    expect(storedPage).toContain('以前の引用');
    expect(storedPage).not.toContain('The mail was not downloaded');

    const noRaw = await parkedTicket(d, { raw: false, agent: null });
    const fallback = await (await call(d, `/tickets/${noRaw.id}`)).text();
    expect(fallback).toContain('The mail was not downloaded');
    expect(fallback).toContain('The agent has not run on this ticket.');
    expect((await call(d, `/tickets/${'a'.repeat(64)}`)).status).toBe(404);
    expect((await call(d, '/tickets/whatever')).status).toBe(404);
  });

  // The sender decides when it sends whether the reply quotes the customer's mail; the operator sees that decision
  // beside the draft before approving: a sender nothing authenticates whose mail holds a link is a forger's notice
  // as far as anyone can tell.
  it('says beside the draft when the customer\'s mail will not be quoted in the reply, and why', async () => {
    const d = await startDashboard();
    const body = '二段階認証の設定方法を教えてください。\n24時間以内に https://xyz-account-verify.example/login で確認してください。';
    const unvouched = await parkedTicket(d, { body });
    const page = await (await call(d, `/tickets/${unvouched.id}`)).text();
    const notice = `<p class="warning small" id="quote-omitted">The customer's mail will not be quoted in the reply: the sender is not authenticated (no Authentication-Results of our receiving server vouch for ${unvouched.from}), and the quoted mail contains links, addresses or phone numbers that are neither in the knowledge the agent found nor trusted (TRUSTED_LINK_DOMAINS): https://xyz-account-verify.example/login</p>`;
    expect(page).toContain(notice);
    // Beside the draft it is about, inside the decision's form.
    expect(page.indexOf(notice)).toBeGreaterThan(page.indexOf('<h2>Draft reply</h2>'));
    expect(page.indexOf(notice)).toBeLessThan(page.indexOf('<textarea id="reply"'));

    // Quoted as always: a mail without a link, and one whose sender our receiving server vouched for.
    const plain = await parkedTicket(d);
    const authenticated = await parkedTicket(d, {
      body,
      replySignals: { from: { address: 'x@customer.example', name: '' }, replyTo: undefined, contentType: 'text/plain', headers: { 'authentication-results': ['mx.helpdesk.test; dmarc=pass header.from=customer.example'] } },
    });
    for (const t of [plain, authenticated]) expect(await (await call(d, `/tickets/${t.id}`)).text(), t.question).not.toContain('will not be quoted');
  });

  it('approves through the form with the edits and redirects to a page saying so', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d, { subject: 'ログインできません' });
    const token = await csrfTokenOf(d, `/tickets/${t.id}`);
    const res = await call(d, `/tickets/${t.id}/approve`, { form: { _csrf: token, reply: '山田様\r\n\r\n修正した回答です。\r\n' } });
    expect(res.status).toBe(303);
    const location = res.headers.get('location') ?? '';
    expect(location).toBe(`/?done=approved&ticket=${t.id}`);
    const approved = await d.store.require(t.id);
    expect(approved.state).toBe('approved');
    expect(approved.draft).toBe('山田様\n\n修正した回答です。\n');
    expect(await outboundJobIds(d)).toEqual([sendJobId(t.id, jobGeneration(approved))]);
    const after = await (await call(d, location)).text();
    expect(after).toContain('Approved “ログインできません”: the reply is queued for sending.');
    expect(after).not.toContain(`href="/tickets/${t.id}"`);
  });

  it('rejects through the form with a reason', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const token = await csrfTokenOf(d, `/tickets/${t.id}`);
    const res = await call(d, `/tickets/${t.id}/reject`, { form: { _csrf: token, reason: '電話で回答済み' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/?done=rejected&ticket=${t.id}`);
    expect(await d.store.require(t.id)).toMatchObject({ state: 'rejected', reason: '電話で回答済み' });
    const page = await (await call(d, res.headers.get('location') ?? '/')).text();
    expect(page).toContain('no reply will be sent');

    const missing = await call(d, `/tickets/${(await parkedTicket(d)).id}/reject`, { form: { _csrf: token, reason: ' ' } });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('A reason is required');
  });

  it('refuses form posts without the CSRF token, with a wrong one, or from another site', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const token = await csrfTokenOf(d);
    const attempts: Array<[string, string, CallOptions]> = [
      ['approve without token', `/tickets/${t.id}/approve`, { form: { reply: 'forged' } }],
      ['approve with a wrong token', `/tickets/${t.id}/approve`, { form: { _csrf: `${token.slice(0, -2)}xx`, reply: 'forged' } }],
      ['approve with an empty token', `/tickets/${t.id}/approve`, { form: { _csrf: '', reply: 'forged' } }],
      ['reject without token', `/tickets/${t.id}/reject`, { form: { reason: 'forged' } }],
      ['reindex without token', '/reindex', { form: {} }],
      ['reindex with no body', '/reindex', { method: 'POST' }],
      ['cross-site post with a valid token', `/tickets/${t.id}/approve`, { form: { _csrf: token, reply: 'x' }, headers: { 'sec-fetch-site': 'cross-site' } }],
      // Another host of the same site (a sibling subdomain) is not the dashboard either.
      ['same-site post with a valid token', `/tickets/${t.id}/approve`, { form: { _csrf: token, reply: 'x' }, headers: { 'sec-fetch-site': 'same-site' } }],
      ['foreign Origin with a valid token', `/tickets/${t.id}/reject`, { form: { _csrf: token, reason: 'x' }, headers: { origin: 'https://evil.example' } }],
    ];
    for (const [what, pathname, options] of attempts) {
      const res = await call(d, pathname, options);
      expect(res.status, what).toBe(403);
    }
    // Another user's token does not work either (tokens are bound to the Basic user).
    const d2 = await startDashboard({ DASHBOARD_USER: 'operator2' });
    const t2 = await parkedTicket(d2);
    const res = await call(d2, `/tickets/${t2.id}/approve`, { auth: basic('operator2', PASSWORD), form: { _csrf: token, reply: 'x' } });
    expect(res.status).toBe(403);

    const wrongType = await call(d, `/tickets/${t.id}/approve`, { json: { _csrf: token, reply: 'x' } });
    expect(wrongType.status).toBe(415);
    expect((await d.store.require(t.id)).state).toBe('parked');
    expect(await outboundJobIds(d)).toEqual([]);
    expect(await d.queues.maintenance.getJobCounts('waiting')).toEqual({ waiting: 0 });
  });

  it('answers form actions on a ticket that moved on with a 409 page', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const token = await csrfTokenOf(d);
    await d.store.transition(t.id, { to: 'rejected', actor: 'operator:other', patch: { reason: 'handled' } });
    const res = await call(d, `/tickets/${t.id}/approve`, { form: { _csrf: token, reply: 'late' } });
    expect(res.status).toBe(409);
    const page = await res.text();
    expect(page).toContain('rejected');
    expect(page).toContain(`href="/tickets/${t.id}"`);
  });

  it('queues reindex-manual and reindex-qa from the Reindex button', async () => {
    const d = await startDashboard();
    const token = await csrfTokenOf(d);
    const res = await call(d, '/reindex', { form: { _csrf: token } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/?done=reindex');
    const jobs = await d.queues.maintenance.getJobs(['waiting', 'delayed', 'prioritized']);
    expect(jobs.map((j) => j.name).sort()).toEqual(['reindex-manual', 'reindex-qa']);
    for (const job of jobs) {
      expect(job.data).toEqual({ trigger: 'manual' });
      expect(job.opts.attempts).toBe(3);
    }
    // Pressing it again while they wait adds nothing (deduplicated per job name).
    await call(d, '/reindex', { form: { _csrf: token } });
    expect((await d.queues.maintenance.getJobs(['waiting', 'delayed', 'prioritized'])).length).toBe(2);
    expect(await (await call(d, '/?done=reindex')).text()).toContain('Reindex queued');
  });

  // `Support Team <U+202E>moc.lagel-zyx@ytiruces` shows as `Support Team security@xyz-legal.com`, and its unclosed
  // right-to-left override reversed the real address printed after it: `<…elpmaxe.live@m>`. Tickets parsed before
  // names lost such characters still hold them.
  it('isolates customer-supplied names, subjects and file names in <bdi>, so they cannot reorder what follows', async () => {
    const d = await startDashboard();
    const name = 'Support Team \u202emoc.lagel-zyx@ytiruces';
    const subject = '請求書 \u202efdp.exe';
    const filename = 'invoice\u202efdp.exe';
    const t = await parkedTicket(d, { fromName: name, subject, attachments: [{ filename, contentType: 'application/pdf', size: 10 }] });
    const [list, detail] = await Promise.all([call(d, '/'), call(d, `/tickets/${t.id}`)].map(async (res) => (await res).text()));
    for (const [page, texts] of [
      [list, [name, subject]],
      [detail, [name, subject, filename]],
    ] as const) {
      // The page's <title> cannot hold elements; everything in its body can.
      const body = page!.slice(page!.indexOf('<body'));
      for (const text of texts) {
        const shown = body.split(text).length - 1;
        expect(shown, text).toBeGreaterThan(0);
        const isolated = new RegExp(`<bdi[^>]*>(?:<a [^>]+>)?${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:</a>)?</bdi>`, 'g');
        expect(body.match(isolated)?.length ?? 0, text).toBe(shown);
      }
    }
    expect(detail).toContain(`<dt>From</dt><dd><bdi>${name}</bdi> &lt;${t.from}&gt;</dd>`);
    // A flash message is text, where the subject cannot be isolated: it loses the control instead.
    expect(await (await call(d, `/?done=rejected&ticket=${t.id}`)).text()).toContain('Rejected “請求書 fdp.exe”: no reply will be sent.');
  });

  it('renders hostile mail as escaped text in the list and the detail view', async () => {
    const d = await startDashboard();
    const payload = `${XSS_SCRIPT} ${XSS_IMG} "quoted" & 'single'`;
    const t = await parkedTicket(d, {
      subject: `Hi ${XSS_SCRIPT}${XSS_IMG}`,
      body: `Body ${payload}\n<a href="javascript:alert(1)">click</a>`,
      fromName: `Eve ${XSS_IMG}`,
      draft: `Draft ${payload}</textarea><script>alert(2)</script>`,
      reason: `reason ${XSS_SCRIPT}`,
      agent: agentResult('q', {
        plan: { subtasks: [`plan ${XSS_SCRIPT}`] },
        sources: [{ kind: 'manual', fileName: `${XSS_IMG}.md` }],
        subtasks: [
          {
            ...agentResult('q').subtasks[0]!,
            taskName: `task ${XSS_IMG}`,
            subtaskAnswer: `answer ${XSS_SCRIPT}`,
            reflectionResults: [{ advice: `advice ${XSS_IMG}`, isCompleted: true }],
            toolResults: [[{ toolName: 'search_xyz_manual', args: `{"keywords":"${XSS_SCRIPT}"}`, results: [{ fileName: XSS_IMG, content: '' }] }]],
          },
        ],
      }),
    });
    for (const pathname of ['/', `/tickets/${t.id}`]) {
      const page = await (await call(d, pathname)).text();
      expect(page, pathname).not.toMatch(/<script/i);
      expect(page, pathname).not.toMatch(/<img/i);
      expect(page, pathname).not.toMatch(/<a href="javascript/i);
      expect(page, pathname).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(page, pathname).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
    const detail = await (await call(d, `/tickets/${t.id}`)).text();
    expect(detail).toContain('&quot;quoted&quot; &amp; &#39;single&#39;');
    // The draft cannot close its textarea early.
    expect(detail.match(/<\/textarea>/g)).toHaveLength(1);
    expect(detail).toContain('&lt;/textarea&gt;&lt;script&gt;alert(2)&lt;/script&gt;</textarea>');
  });

  it('sends the security headers on pages, the API, errors and the stylesheet', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    const csp = "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
    for (const [pathname, auth] of [
      ['/', true],
      [`/tickets/${t.id}`, true],
      ['/api/tickets', true],
      ['/no-such-page', true],
      ['/assets/review.css', true],
      ['/healthz', false],
      ['/', false],
    ] as const) {
      const res = await call(d, pathname, { auth });
      expect(res.headers.get('content-security-policy'), pathname).toBe(csp);
      expect(res.headers.get('x-content-type-options'), pathname).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), pathname).toBe('no-referrer');
      expect(res.headers.get('x-frame-options'), pathname).toBe('DENY');
      // Pages and API answers carry personal data; only the stylesheet may be cached.
      if (pathname !== '/assets/review.css') expect(res.headers.get('cache-control'), pathname).toBe('no-store');
      expect(res.headers.get('x-powered-by'), pathname).toBeNull();
    }
    const css = await call(d, '/assets/review.css');
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await css.text()).toContain('textarea');
    const board = await call(d, '/admin/queues');
    expect(board.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(board.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
  });
});

describe('review page in learn mode', () => {
  const MANUAL_HIT = { fileName: 'account.md', content: '【アカウント > パスワード】\nパスワードは8文字以上で設定します。' };
  const QA_HIT = { fileName: 'faq.csv#12', content: 'Q: パスワードを忘れたときはどうすればよいですか？\nA: ログイン画面から再設定してください。' };
  // As learnVerdict wrote it when the drafts were parked: numbers of that moment, sources by key.
  const STALE_REASON = 'not yet trusted: manual:account.md#0123456789ab has 0 of 5 reviews; qa:faq.csv#12#ba9876543210 has 0 of 5 reviews';

  const DRAFT = '山田様\n\nパスワードは8文字以上で設定してください。忘れた場合はログイン画面から再設定できます。';

  /** An agent result citing the same manual section and Q&A pair, as the agent worker stores it, with its draft. */
  function learnAgent(question: string): AgentResult {
    const base = agentResult(question, { answer: DRAFT });
    const [first, second] = base.subtasks;
    return {
      ...base,
      subtasks: [
        { ...first!, toolResults: [[{ toolName: 'search_xyz_manual', args: '{"keywords":"パスワード"}', results: [MANUAL_HIT] }]] },
        { ...second!, toolResults: [[{ toolName: 'search_xyz_qa', args: '{"query":"パスワード 忘れた"}', results: [QA_HIT] }]] },
      ],
    };
  }

  /** What the sender does once the SMTP server accepted an approved reply: the review is recorded then. */
  async function markSent(d: Dashboard, id: string): Promise<void> {
    await d.store.transition(id, { from: ['approved'], to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${randomUUID()}@helpdesk.test>`, autoSubmitted: false } } });
    await d.store.transition(id, { from: ['sending'], to: 'sent', actor: 'sender' });
  }

  it('says the checks passed, names each cited source and shows its current count, which an approval of another ticket raises', async () => {
    const d = await startDashboard({ REVIEW_MODE: 'learn' });
    const first = await parkedTicket(d, { subject: 'パスワード 1', reason: STALE_REASON, draft: DRAFT, agent: learnAgent('q1') });
    const second = await parkedTicket(d, { subject: 'パスワード 2', reason: STALE_REASON, draft: DRAFT, agent: learnAgent('q2') });

    const before = await (await call(d, `/tickets/${second.id}`)).text();
    expect(before).toContain('The checks passed. This draft waits only because the desk is still learning: its sources have not been approved often enough yet. Approving it unchanged counts toward trusting them.');
    expect(before).toContain('account.md › パスワード');
    expect(before).toContain('faq.csv#12 › パスワードを忘れたときはどうすればよいですか？');
    expect(before).toContain('0 of 5 approved unchanged');
    // Nothing needs fixing: the offer of a new draft does not say there is a cause to fix.
    expect(before).not.toContain('Fixed the cause');
    // "Why parked" shows the counts of now, not those the reason kept (the history still has that note, as written).
    const whyParked = /<dt>Why parked<\/dt><dd>([\s\S]*?)<\/dd>/.exec(before)?.[1] ?? '';
    expect(whyParked).toContain('0 of 5 approved unchanged');
    expect(whyParked).not.toContain('has 0 of 5 reviews');

    // The operator approves the first as drafted; the next page says how its sources will stand once it is sent.
    const token = await csrfTokenOf(d, `/tickets/${first.id}`);
    const res = await call(d, `/tickets/${first.id}/approve`, { form: { _csrf: token, reply: DRAFT } });
    expect(res.status).toBe(303);
    const next = await (await call(d, res.headers.get('location') ?? '')).text();
    expect(next).toContain('account.md › パスワード: 1 of 5 approved unchanged — 4 more unchanged approvals until replies citing it go out on their own');

    await markSent(d, first.id);
    // Reloaded once the reply went out, the page no longer says it is queued.
    const reloaded = await (await call(d, res.headers.get('location') ?? '')).text();
    expect(reloaded).toContain('Approved “パスワード 1”: the reply was sent. Its sources now stand:');
    const after = await (await call(d, `/tickets/${second.id}`)).text();
    expect(after).toContain('1 of 5 approved unchanged');
    expect(after).not.toContain('0 of 5 approved unchanged');
    // The list does not repeat the numbers of park time either.
    const list = await (await call(d, '/')).text();
    expect(list).not.toContain('has 0 of 5 reviews');
    expect(list).toContain('The checks passed');
  });

  it('keeps the offer of a new draft and the stored reason for a draft that cites no source', async () => {
    const d = await startDashboard({ REVIEW_MODE: 'learn' });
    const t = await parkedTicket(d, { reason: 'not yet trusted: subtask 「料金を調べる」 cites no source', agent: learnAgent('q') });
    const page = await (await call(d, `/tickets/${t.id}`)).text();
    expect(page).toContain('cites no source');
    expect(page).not.toContain('The checks passed. This draft waits only');
    expect(page).toContain('Get a new draft');
  });
});

describe('Bull Board', () => {
  it('shows the tickets, outbound, maintenance and sentcopy queues', async () => {
    const d = await startDashboard();
    const page = await call(d, '/admin/queues');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const api = await call(d, '/admin/queues/api/queues');
    const body = (await api.json()) as { queues: Array<{ name: string }> };
    expect(body.queues.map((q) => q.name).sort()).toEqual(['maintenance', 'outbound', 'sentcopy', 'tickets']);
  });

  it('sends no X-Powered-By and makes the operator\'s browser fetch nothing from other hosts (no Google Fonts)', async () => {
    const d = await startDashboard();
    for (const pathname of ['/admin/queues', '/admin/queues/api/queues']) {
      const res = await call(d, pathname);
      expect(res.headers.get('x-powered-by'), pathname).toBeNull();
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, pathname).not.toMatch(/https?:/);
      const body = await res.text();
      expect(body, pathname).not.toMatch(/fonts\.(googleapis|gstatic)\.com/);
    }
  });

  it.each([
    ['add a job', 'POST', '/admin/queues/api/queues/maintenance/add', { name: 'reindex-manual', data: { dir: '/etc' } }],
    ['empty a queue', 'PUT', '/admin/queues/api/queues/tickets/empty', {}],
    ['clean a queue', 'PUT', '/admin/queues/api/queues/tickets/clean/completed', {}],
    ['obliterate a queue', 'PUT', '/admin/queues/api/queues/outbound/obliterate', {}],
    ['pause a queue', 'PUT', '/admin/queues/api/queues/outbound/pause', {}],
  ])('is read-only: it refuses to %s', async (_name, method, pathname, json) => {
    const d = await startDashboard();
    const res = await call(d, pathname, { method, json });
    expect(res.status).toBe(405);
    expect(await d.queues.maintenance.getJobCounts('waiting', 'delayed', 'active', 'prioritized')).toEqual({ waiting: 0, delayed: 0, active: 0, prioritized: 0 });
  });
});

describe('metrics', () => {
  it('exports tickets by state, queue depths and the counters other processes record in Redis', async () => {
    const d = await startDashboard();
    const t = await parkedTicket(d);
    await parkedTicket(d);
    await call(d, `/api/tickets/${t.id}/approve`, { json: { seen: t.history.length } });
    await recordAgentRun(redis, d.prefix, { durationMs: 4_200, usage: { calls: 5, promptTokens: 1000, completionTokens: 200 } });
    await recordAgentRun(redis, d.prefix, { durationMs: 750_000, usage: { calls: 7, promptTokens: 1500, completionTokens: 300 } });
    // A run the model server broke off after two answered calls: billed, but not a run of the duration histogram.
    const answered = { step: 'create_plan' as const, model: 'gpt-4o', durationMs: 5, promptTokens: 100, completionTokens: 20 };
    await recordFailedAgentRun(redis, d.prefix, { usage: { calls: 2, promptTokens: 200, completionTokens: 40, totalTokens: 240 }, llmCalls: [answered, answered] });
    await recordReplySent(redis, d.prefix);
    await recordIgnored(redis, d.prefix, 'auto-reply');
    await recordIgnored(redis, d.prefix, 'auto-reply');
    await recordIgnored(redis, d.prefix, 'list');

    const res = await call(d, '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    for (const name of Object.values(METRIC_NAMES)) expect(text).toContain(`# TYPE ${name} `);
    expect(text).toContain('# TYPE helpdesk_agent_run_duration_seconds histogram');
    expect(text).toContain('helpdesk_tickets{state="parked"} 1');
    expect(text).toContain('helpdesk_tickets{state="approved"} 1');
    expect(text).toContain('helpdesk_tickets{state="sent"} 0');
    expect(text).toContain('helpdesk_queue_jobs{queue="outbound",status="waiting"} 1');
    // The approval's learned-answer proposal waits on `tickets` for an agent worker.
    expect(text).toContain('helpdesk_queue_jobs{queue="tickets",status="waiting"} 1');
    expect(text).toContain('helpdesk_agent_run_duration_seconds_bucket{le="2.5"} 0');
    expect(text).toContain('helpdesk_agent_run_duration_seconds_bucket{le="5"} 1');
    expect(text).toContain('helpdesk_agent_run_duration_seconds_bucket{le="600"} 1');
    expect(text).toContain('helpdesk_agent_run_duration_seconds_bucket{le="+Inf"} 2');
    expect(text).toContain('helpdesk_agent_run_duration_seconds_sum 754.2');
    expect(text).toContain('helpdesk_agent_run_duration_seconds_count 2');
    expect(text).toContain('helpdesk_agent_runs_failed_total 1');
    expect(text).toContain('helpdesk_llm_calls_total 14');
    expect(text).toContain('helpdesk_llm_tokens_total{kind="prompt"} 2700');
    expect(text).toContain('helpdesk_llm_tokens_total{kind="completion"} 540');
    expect(text).toContain('helpdesk_replies_sent_total 1');
    expect(text).toContain('helpdesk_mails_ignored_total{reason="auto-reply"} 2');
    expect(text).toContain('helpdesk_mails_ignored_total{reason="list"} 1');
    expect(text).toContain('helpdesk_mails_ignored_total{reason="bounce"} 0');

    // Scraping again does not double anything (the counters are read, not accumulated in the dashboard).
    const again = await (await call(d, '/metrics')).text();
    expect(again).toContain('helpdesk_llm_calls_total 14');
    expect(again).toContain('helpdesk_agent_run_duration_seconds_count 2');
  });
});

describe('outcomes', () => {
  const DRAFT = '山田様\n\nパスワードは8文字以上で、英大文字・英小文字・数字を含めてください。\n\nよろしくお願いいたします。';

  /** What the sender does once the SMTP server accepted an approved reply. */
  async function markSent(d: Dashboard, id: string): Promise<void> {
    await d.store.transition(id, { from: ['approved'], to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${randomUUID()}@helpdesk.test>`, autoSubmitted: false } } });
    await d.store.transition(id, { from: ['sending'], to: 'sent', actor: 'sender' });
  }

  it('returns the outcome in the API, shows it on the review page and counts it in /metrics', async () => {
    const d = await startDashboard();
    const asIs = await parkedTicket(d, { draft: DRAFT, agent: agentResult('q', { answer: DRAFT }) });
    const edited = await parkedTicket(d, { draft: DRAFT, agent: agentResult('q', { answer: DRAFT }) });
    const rejected = await parkedTicket(d);
    const reply = '山田様\n\nパスワードは12文字以上で、英大文字・英小文字・数字・記号を含めてください。\n\nよろしくお願いいたします。';
    expect((await call(d, `/api/tickets/${asIs.id}/approve`, { json: { seen: asIs.history.length } })).status).toBe(202);
    expect((await call(d, `/api/tickets/${edited.id}/approve`, { json: { reply } })).status).toBe(202);
    expect((await call(d, `/api/tickets/${rejected.id}/reject`, { json: { reason: 'answered by phone <b>today</b>' } })).status).toBe(200);
    await markSent(d, asIs.id);
    await markSent(d, edited.id);

    const ratio = editRatio(DRAFT, reply);
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThan(0.2);
    const one = (await (await call(d, `/api/tickets/${edited.id}`)).json()) as Ticket;
    // 8 → 12 characters corrects a number; a review names its customer by a digest (src/tickets/trust.ts).
    expect(one.outcome).toEqual({ kind: 'approved_edited', at: one.updatedAt, day: outcomeDay(one.updatedAt), editRatio: ratio, factsChanged: ['number'], sender: senderDigest(one.from) });
    const list = (await (await call(d, '/api/tickets')).json()) as Array<{ id: string; outcome?: { kind: string } }>;
    expect(Object.fromEntries(list.map((t) => [t.id, t.outcome?.kind]))).toEqual({
      [asIs.id]: 'approved_as_is',
      [edited.id]: 'approved_edited',
      [rejected.id]: 'rejected',
    });

    const page = await (await call(d, `/tickets/${edited.id}`)).text();
    expect(page).toContain(`approved_edited (edit ratio ${ratio.toFixed(2)})`);
    const rejectedPage = await (await call(d, `/tickets/${rejected.id}`)).text();
    expect(rejectedPage).toContain('rejected: answered by phone &lt;b&gt;today&lt;/b&gt;');

    const text = await (await call(d, '/metrics')).text();
    expect(text).toContain('# TYPE helpdesk_ticket_outcomes_total counter');
    expect(text).toContain('helpdesk_ticket_outcomes_total{outcome="approved_as_is"} 1');
    expect(text).toContain('helpdesk_ticket_outcomes_total{outcome="approved_edited"} 1');
    expect(text).toContain('helpdesk_ticket_outcomes_total{outcome="rejected"} 1');
    expect(text).toContain('helpdesk_ticket_outcomes_total{outcome="auto_sent"} 0');
    expect(text).toContain('# TYPE helpdesk_ticket_edit_ratio histogram');
    expect(text).toContain('helpdesk_ticket_edit_ratio_bucket{le="0"} 1');
    expect(text).toContain(`helpdesk_ticket_edit_ratio_bucket{le="${ratio <= 0.05 ? '0.05' : ratio <= 0.1 ? '0.1' : '0.2'}"} 2`);
    expect(text).toContain('helpdesk_ticket_edit_ratio_bucket{le="+Inf"} 2');
    expect(text).toContain('helpdesk_ticket_edit_ratio_count 2');
    expect(text).toContain(`helpdesk_ticket_edit_ratio_sum ${Math.round(ratio * 1e6) / 1e6}`);
  });
});

describe('readiness', () => {
  async function searchBackends(overrides: Record<string, string> = {}) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'dash-search-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    return createSearchBackends(parseConfig({ DATA_DIR: dataDir, EMBEDDINGS_PROVIDER: 'local', EMBEDDING_DIMENSIONS: '64', ...overrides }));
  }

  const imapEnv = { IMAP_HOST: 'imap.example.test', IMAP_USER: 'support@example.test', IMAP_POLL_INTERVAL_MS: '60000' };

  async function recordPoll(d: Dashboard, at: number): Promise<void> {
    const key = mailboxStateKey(d.prefix, { user: imapEnv.IMAP_USER, host: imapEnv.IMAP_HOST, mailbox: 'INBOX' });
    await redis.hset(key, 'lastSuccessfulPollAt', String(at));
  }

  it('is ready when Redis answers, the poller polled recently and the search backends answer', async () => {
    const search = await searchBackends();
    let config: Config | undefined;
    const d = await startDashboard(imapEnv, { search, pollerStatus: () => readPollerStatus(redis, config!) });
    config = d.config;
    await recordPoll(d, Date.now() - 30_000);
    const res = await call(d, '/readyz');
    const body = (await res.json()) as { status: string; checks: Record<string, { status: string; detail: string }> };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.status).toBe('ready');
    expect(Object.fromEntries(Object.entries(body.checks).map(([k, v]) => [k, v.status]))).toEqual({
      redis: 'ok',
      imapPoller: 'ok',
      agent: 'skipped',
      sender: 'skipped',
      manualSearch: 'ok',
      qaSearch: 'ok',
    });
    expect(body.checks.imapPoller?.detail).toMatch(/last successful poll 3\d s ago/);
  });

  it('is not ready (503) when the last poll is older than 3 × IMAP_POLL_INTERVAL_MS, or there was none', async () => {
    let config: Config | undefined;
    const d = await startDashboard(imapEnv, { pollerStatus: () => readPollerStatus(redis, config!) });
    config = d.config;
    const never = await call(d, '/readyz');
    expect(never.status).toBe(503);
    expect(((await never.json()) as { checks: { imapPoller: { detail: string } } }).checks.imapPoller.detail).toMatch(/not completed a poll/);
    await recordPoll(d, Date.now() - 4 * 60_000);
    const stale = await call(d, '/readyz');
    expect(stale.status).toBe(503);
    const body = (await stale.json()) as { status: string; checks: { imapPoller: { status: string; detail: string }; redis: { status: string } } };
    expect(body.status).toBe('not ready');
    expect(body.checks.imapPoller).toMatchObject({ status: 'fail', detail: expect.stringMatching(/4 min ago.*allowed 3 min/) });
    expect(body.checks.redis.status).toBe('ok');
  });

  it('says why the poller is not polling: the failure it recorded after its last successful poll', async () => {
    let config: Config | undefined;
    const d = await startDashboard(imapEnv, { pollerStatus: () => readPollerStatus(redis, config!) });
    config = d.config;
    const key = mailboxStateKey(d.prefix, { user: imapEnv.IMAP_USER, host: imapEnv.IMAP_HOST, mailbox: 'INBOX' });
    const login = `IMAP login as ${imapEnv.IMAP_USER} to ${imapEnv.IMAP_HOST}:993 failed (wrong IMAP_USER or IMAP_PASSWORD?)`;
    await redis.hset(key, 'lastFailure', login, 'lastFailureAt', String(Date.now() - 5_000));
    const res = await call(d, '/readyz');
    expect(res.status).toBe(503);
    const detail = ((await res.json()) as { checks: { imapPoller: { detail: string } } }).checks.imapPoller.detail;
    expect(detail).toMatch(/^the IMAP poller has not completed a poll yet; last failure \d+ s ago: IMAP login as support@example\.test/);
    // The operator sees it where they work: a banner on the start page.
    const page = await (await call(d, '/')).text();
    expect(page).toMatch(
      /<div class="flash bad" role="alert"><strong>Incoming mail is not being read:<\/strong> the IMAP poller has not completed a poll yet; the last attempt failed \d+ s ago: IMAP login as support@example\.test/,
    );
    // A failure from before the last successful poll is history, not news.
    await recordPoll(d, Date.now() - 1_000);
    const ok = await call(d, '/readyz');
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { checks: { imapPoller: { detail: string } } }).checks.imapPoller.detail).not.toContain('failure');
    expect(await (await call(d, '/')).text()).not.toMatch(/role="alert"|class="warning"/);
    // A failure since a poll that is still recent: /readyz stays ready (one dropped connection is no outage), the
    // start page warns in yellow at once, with the page's times.
    await redis.hset(key, 'lastFailure', 'IMAP server imap.example.test:993 unreachable (ECONNREFUSED)', 'lastFailureAt', String(Date.now()));
    expect((await call(d, '/readyz')).status).toBe(200);
    const warned = await (await call(d, '/')).text();
    expect(warned).not.toContain('role="alert"');
    expect(warned).toMatch(
      /<div class="warning" role="status"><strong>The last poll of the mailbox failed:<\/strong> \d+ s ago: IMAP server imap\.example\.test:993 unreachable \(ECONNREFUSED\); the poller tries again\. The last successful poll was \d+ s ago \(<time datetime="[^"]+Z" title="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d [^<]+<\/time>\); if none succeeds by <time/,
    );
    // Past the allowed time (3 × IMAP_POLL_INTERVAL_MS) it is red, with the last poll's time as the page shows times.
    await recordPoll(d, Date.now() - 4 * 60_000);
    expect(await (await call(d, '/')).text()).toMatch(
      /<div class="flash bad" role="alert"><strong>Incoming mail is not being read:<\/strong> the last successful poll was 4 min ago \(<time datetime="[^"]+Z" title="[^"]+">[^<]+<\/time>\), longer than the allowed 3 min; the last attempt failed \d+ s ago: IMAP server/,
    );
  });

  it('says so on the start page when it cannot read the poller\'s state', async () => {
    const d = await startDashboard(imapEnv, { pollerStatus: () => Promise.reject(new Error('Command timed out')) });
    expect(await (await call(d, '/')).text()).toContain('<div class="flash bad" role="alert"><strong>Cannot tell whether incoming mail is being read:</strong> Command timed out</div>');
    expect((await call(d, '/readyz')).status).toBe(503);
  });

  it('is not ready while the sender cannot use the SMTP server, and says why; ready again once it reached it', async () => {
    const d = await startDashboard({}, { senderStatus: () => readRoleStatus(redis, d.prefix, 'sender') });
    const key = roleStatusKey(d.prefix, 'sender');
    const sender = async () => {
      const res = await call(d, '/readyz');
      return { status: res.status, check: ((await res.json()) as { checks: { sender: { status: string; detail: string } } }).checks.sender };
    };
    expect(await sender()).toMatchObject({ status: 200, check: { status: 'skipped', detail: expect.stringMatching(/no running sender has reported yet \(it reports once it has tried the SMTP server\)/) } });
    const failure = 'SMTP failure: Invalid login: 535 5.7.8 Authentication failed';
    await redis.hset(key, 'mail1#42', JSON.stringify({ failedAt: Date.now() - 3_000, failure, seenAt: Date.now() }));
    // A sender gone silent for longer than three heartbeats no longer runs: its failure is not the deployment's.
    await redis.hset(key, 'mail2#7', JSON.stringify({ failedAt: Date.now() - 600_000, failure, seenAt: Date.now() - 600_000 }));
    expect(await sender()).toMatchObject({
      status: 503,
      check: { status: 'fail', detail: expect.stringMatching(/^the sender cannot use the SMTP server \(\d+ s ago: SMTP failure: Invalid login: 535 .*\); replies wait in the outbound queue$/) },
    });
    expect(await (await call(d, '/')).text()).toMatch(/<div class="flash bad" role="alert">the sender cannot use the SMTP server \(\d+ s ago: SMTP failure: Invalid login: 535 /);
    await redis.hset(key, 'mail1#42', JSON.stringify({ failedAt: Date.now() - 3_000, failure, reachedAt: Date.now(), seenAt: Date.now() }));
    expect(await sender()).toMatchObject({ status: 200, check: { status: 'ok', detail: expect.stringMatching(/^the sender reached the SMTP server \d+ s ago, with no failure since$/) } });
  });

  it('shows a failed reindex on the start page, not in /readyz: the old index still serves', async () => {
    const d = await startDashboard();
    await recordReindexOutcome(redis, d.prefix, 'qa', { ok: false, error: 'embeddings server unreachable' });
    expect(await (await call(d, '/')).text()).toMatch(/<div class="flash bad" role="alert">the last reindex of the past Q&amp;A failed \d+ s ago \(embeddings server unreachable\); the agent answers from the index built before it/);
    expect((await call(d, '/readyz')).status).toBe(200);
    await recordReindexOutcome(redis, d.prefix, 'qa', { ok: true });
    expect(await (await call(d, '/')).text()).not.toContain('role="alert"');
  });

  it('without credentials answers only the status of each check; the details (hosts, users, errors) need the login', async () => {
    const deadPort = await freePort();
    const search = await searchBackends({ QDRANT_URL: `http://127.0.0.1:${deadPort}` });
    const d = await startDashboard({}, { search });
    const open = await call(d, '/readyz', { auth: false });
    expect(open.status).toBe(503);
    const text = await open.text();
    expect(JSON.parse(text)).toEqual({ status: 'not ready', checks: { redis: 'ok', imapPoller: 'skipped', agent: 'skipped', sender: 'skipped', manualSearch: 'ok', qaSearch: 'fail' } });
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain(String(deadPort));
    const detailed = (await (await call(d, '/readyz')).json()) as { checks: Record<string, { status: string; detail: string }> };
    expect(detailed.checks.qaSearch).toMatchObject({ status: 'fail', detail: expect.any(String) });
    expect(detailed.checks.redis?.detail.length).toBeGreaterThan(0);
  });

  it('is not ready when a search backend does not answer', async () => {
    const deadPort = await freePort();
    const search = await searchBackends({ QDRANT_URL: `http://127.0.0.1:${deadPort}` });
    const d = await startDashboard({}, { search });
    const res = await call(d, '/readyz');
    expect(res.status).toBe(503);
    const body = (await res.json()) as { checks: Record<string, { status: string; detail: string }> };
    expect(body.checks.qaSearch?.status).toBe('fail');
    expect(body.checks.manualSearch?.status).toBe('ok');
    expect(body.checks.imapPoller?.status).toBe('skipped');
  });
});
