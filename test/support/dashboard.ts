/**
 * The dashboard app over real HTTP for integration tests: one redis-server per test file, and dashboards served on
 * 127.0.0.1:0, each under a fresh QUEUE_PREFIX, stopped and their keys removed after each test.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { parseConfig, type Config } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { createDashboardApp, type DashboardDeps } from '../../src/server/app.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { newTicket, ticketIdFor, type Ticket } from '../../src/tickets/ticket.js';
import { removePrefix } from './pipeline.js';

/** The login every test dashboard has unless a test sets another. */
export const TEST_DASHBOARD_LOGIN = { user: 'admin', password: 'correct horse battery staple' };

/** A served dashboard. */
export interface TestDashboard {
  /** `http://127.0.0.1:<port>` */
  url: string;
  prefix: string;
  config: Config;
  store: TicketStore;
  queues: Queues;
}

/** What {@link useDashboardHarness} gives a test file. */
export interface DashboardHarness {
  /** The file's redis-server connection (set once `beforeAll` ran). */
  redis(): Redis;
  /** Serves a dashboard with `env` on top of the test login; stopped after the test. */
  start(env?: Record<string, string>, extra?: Partial<DashboardDeps>): Promise<TestDashboard>;
}

/** Registers the file's hooks (call at the top level of a test file) and returns the harness. */
export function useDashboardHarness(): DashboardHarness {
  let redisServer: RedisServer | undefined;
  let redis: Redis | undefined;
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
  const connection = (): Redis => {
    if (!redis) throw new Error('the dashboard harness is used before its beforeAll ran');
    return redis;
  };
  return {
    redis: connection,
    async start(env = {}, extra = {}) {
      const redis = connection();
      const redisUrl = redisServer!.url;
      const prefix = `dash${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const config = parseConfig({ REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, DASHBOARD_USER: TEST_DASHBOARD_LOGIN.user, DASHBOARD_PASSWORD: TEST_DASHBOARD_LOGIN.password, ...env });
      const store = new TicketStore(redis, { prefix });
      const queues = createQueues(redis, prefix);
      const server = createServer(createDashboardApp({ config, redis, store, queues, ...extra }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await closeAll(queues).catch(() => undefined);
        await removePrefix(redisUrl, prefix);
      });
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, prefix, config, store, queues };
    },
  };
}

/** An `Authorization: Basic` value. */
export function basicAuth(user = TEST_DASHBOARD_LOGIN.user, password = TEST_DASHBOARD_LOGIN.password): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/**
 * POSTs to the dashboard at `url` as the test operator: a form (`application/x-www-form-urlencoded`, as the review
 * page submits it) or JSON (as the API takes it); redirects are returned, not followed.
 */
export function postToDashboard(url: string, pathname: string, body: { form?: Record<string, string>; json?: unknown }, authorization = basicAuth()): Promise<Response> {
  const form = body.form !== undefined;
  return fetch(`${url}${pathname}`, {
    method: 'POST',
    headers: { authorization, 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: form ? new URLSearchParams(body.form).toString() : JSON.stringify(body.json ?? {}),
    redirect: 'manual',
  });
}

/** The ticket page as the operator opened it, and its approve form as a browser submits it. */
export interface ApprovePage {
  /** The whole page. */
  page: string;
  /** The approve form's markup. */
  form: string;
  /** Its hidden fields as the page wrote them (the CSRF token, `seen`, the conversation's newest mail). */
  hidden: Record<string, string>;
  /** The draft in its textarea as a browser reads it (the line feed right after `<textarea>` is the parser's). */
  draft: string;
}

/** GETs the ticket page at `url` as the test operator and reads its approve form ({@link ApprovePage}). */
export async function openApprovePage(url: string, ticketId: string, authorization = basicAuth()): Promise<ApprovePage> {
  const page = await (await fetch(`${url}/tickets/${ticketId}`, { headers: { authorization } })).text();
  const start = page.indexOf(`action="/tickets/${ticketId}/approve"`);
  const form = page.slice(start, page.indexOf('</form>', start));
  const hidden = Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
  const draft = (/<textarea[^>]*>([^<]*)<\/textarea>/.exec(form)?.[1] ?? '').replace(/^\n/, '');
  return { page, form, hidden, draft };
}

/** The customer mail and draft of {@link parkedTicket}; unset fields are an English password question. */
export interface ParkedTicketMail {
  /** Start of the made-up Message-ID's local part, which names the test in Redis. */
  prefix?: string;
  from?: string;
  subject?: string;
  question?: string;
  draft?: string;
}

/** A ticket stored as the poller and the agent worker leave one in review mode: parked with its draft. */
export async function parkedTicket(d: TestDashboard, mail: ParkedTicketMail = {}): Promise<Ticket> {
  const { prefix = 'q', from = 'hanako@customer.example', subject = 'Password', question = 'How do I reset my password?', draft = 'Open Settings, then Password.' } = mail;
  const messageId = `<${prefix}-${randomUUID()}@customer.example>`;
  const id = ticketIdFor(messageId);
  await d.store.createIfAbsent(newTicket({ messageId, from, subject, question, actor: 'poller' }));
  await d.store.transition(id, { to: 'processing', actor: 'agent-worker' });
  return d.store.transition(id, { to: 'parked', actor: 'agent-worker', patch: { reason: 'review mode always', draft } });
}

/** What a rerun does after the operator opened the page: the agent parks another draft. */
export async function rerunParksNewDraft(d: TestDashboard, ticketId: string, draft = 'A new draft.'): Promise<void> {
  await d.store.transition(ticketId, { from: ['parked'], to: 'processing', actor: 'operator:admin' });
  await d.store.transition(ticketId, { from: ['processing'], to: 'parked', actor: 'agent-worker', patch: { draft } });
}
