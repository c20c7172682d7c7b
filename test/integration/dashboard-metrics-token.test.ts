/**
 * A Prometheus scrape reads /metrics with a token of its own (METRICS_TOKEN), so its configuration — often in a
 * shared repository or secret store — does not hold the password that approves and sends mail. The token opens
 * /metrics and nothing else. Real HTTP against the dashboard app and a real redis-server.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { LOGIN_FAILURES_ALLOWED, LoginThrottle, metricsTokenAuth } from '../../src/server/auth.js';
import { basicAuth, useDashboardHarness } from '../support/dashboard.js';

const BASIC = basicAuth();
const TOKEN = 'scrape-3f9a1c7e5b2d4a6f8e0c1b3d';

const harness = useDashboardHarness();
const dashboard = async (env: Record<string, string>) => (await harness.start(env)).url;

const status = async (url: string, authorization?: string) => (await fetch(url, { headers: authorization ? { authorization } : {} })).status;

describe('METRICS_TOKEN', () => {
  it('opens /metrics to a bearer of the token, and nothing else', async () => {
    const base = await dashboard({ METRICS_TOKEN: TOKEN });
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('# TYPE');
    expect(await status(`${base}/metrics`, `Bearer ${TOKEN}x`)).toBe(401);
    expect(await status(`${base}/metrics`)).toBe(401);
    for (const path of ['/', '/api/tickets', '/insights', '/admin/queues']) expect(await status(`${base}${path}`, `Bearer ${TOKEN}`), path).toBe(401);
    // The operator's login still reads it.
    expect(await status(`${base}/metrics`, BASIC)).toBe(200);
  });

  // A wrong token is a failed login like a wrong password: the token must not be guessable at network speed.
  it('counts wrong tokens as failed logins: the eleventh from one address is throttled, the right token too', async () => {
    const base = await dashboard({ METRICS_TOKEN: TOKEN });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push(await status(`${base}/metrics`, `Bearer wrong-guess-${i}-0123456789abcdef`));
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429]);
    const throttled = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    // As for a throttled Basic login, the credentials are not even compared: right or wrong, the answer is the same.
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  // The token's guesses are counted apart from the operators' logins, per address and IPv6 /48 only: a scraper keeps
  // no known-device cookie, so a total shared with every new browser would let strangers deny it the scrape.
  describe('a throttle of its own', () => {
    const forwarded = (client: string, authorization: string) => ({ headers: { authorization, 'x-forwarded-for': client } });
    const at = async (url: string, client: string, authorization: string) => (await fetch(url, forwarded(client, authorization))).status;
    const guess = (i: number) => 'Basic ' + Buffer.from(`admin:guess-${i}`).toString('base64');

    it('is not spent by wrong passwords from a hundred addresses', async () => {
      const base = await dashboard({ METRICS_TOKEN: TOKEN, DASHBOARD_TRUST_PROXY: 'loopback' });
      for (let i = 0; i < 100; i++) await at(`${base}/metrics`, `203.0.113.${i + 1}`, guess(i));
      expect(await at(`${base}/metrics`, '198.51.100.7', `Bearer ${TOKEN}`)).toBe(200);
    });

    it('is not spent for a scraper by wrong tokens from a hundred addresses in other /48s', async () => {
      const base = await dashboard({ METRICS_TOKEN: TOKEN, DASHBOARD_TRUST_PROXY: 'loopback' });
      const statuses = new Set<number>();
      for (let i = 0; i < 100; i++) statuses.add(await at(`${base}/metrics`, `2001:db8:${(i + 1).toString(16)}::5`, `Bearer guess-${i}-0123456789abcdef`));
      expect([...statuses]).toEqual([401]);
      expect(await at(`${base}/metrics`, '198.51.100.7', `Bearer ${TOKEN}`)).toBe(200);
      expect(await at(`${base}/metrics`, '2001:db8:ffff::9', `Bearer ${TOKEN}`)).toBe(200);
    });

    it('throttles the /48 that spent its count, and no other', async () => {
      const base = await dashboard({ METRICS_TOKEN: TOKEN, DASHBOARD_TRUST_PROXY: 'loopback' });
      for (let i = 0; i < 30; i++) await at(`${base}/metrics`, `2001:db8:1:${i.toString(16)}::5`, `Bearer g6-${i}-0123456789abcdef`);
      expect(await at(`${base}/metrics`, '2001:db8:1:ff::9', `Bearer ${TOKEN}`)).toBe(429);
      expect(await at(`${base}/metrics`, '2001:db8:2::9', `Bearer ${TOKEN}`)).toBe(200);
    });

    it('does not make an operator wait for wrong tokens from the same address or from many', async () => {
      const base = await dashboard({ METRICS_TOKEN: TOKEN, DASHBOARD_TRUST_PROXY: 'loopback' });
      for (let i = 0; i < 11; i++) await at(`${base}/metrics`, '203.0.113.9', `Bearer wrong-guess-${i}-0123456789abcdef`);
      for (let i = 0; i < 100; i++) await at(`${base}/metrics`, `198.51.100.${i + 1}`, `Bearer guess-${i}-0123456789abcdef`);
      expect(await at(`${base}/metrics`, '203.0.113.9', `Bearer ${TOKEN}`)).toBe(429);
      expect(await at(`${base}/metrics`, '203.0.113.9', BASIC)).toBe(200);
      expect(await at(`${base}/`, '192.0.2.9', BASIC)).toBe(200);
    });
  });

  it('counts the same wrong token once, as the same wrong password is', async () => {
    const base = await dashboard({ METRICS_TOKEN: TOKEN });
    for (let i = 0; i < 15; i++) expect(await status(`${base}/metrics`, `Bearer ${TOKEN}-old`)).toBe(401);
    expect(await status(`${base}/metrics`, `Bearer ${TOKEN}`)).toBe(200);
  });

  it('is off without the variable: a bearer token reads nothing', async () => {
    const base = await dashboard({});
    expect(await status(`${base}/metrics`, `Bearer ${TOKEN}`)).toBe(401);
  });

  it('refuses a token too short to resist guessing, naming the variable', () => {
    expect(() => parseConfig({ DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: 'x', METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });
});

// Bug review 44e: a table of the token's throttle full of throttled addresses has no room for a new one, which once
// made every untracked scraper wait (429) before its token was compared. A right token records nothing, so it needs
// no room: it is let through; a wrong one is still refused. Its own gate on a small table, over real HTTP.
describe("METRICS_TOKEN's throttle with a full table", () => {
  const serve = async (throttle: LoginThrottle) => {
    const app = express();
    app.set('trust proxy', 'loopback');
    app.get('/metrics', metricsTokenAuth(TOKEN, { mode: 'basic', user: 'admin', password: 'x'.repeat(20) }, { throttle }), (_req, res) => void res.send('ok'));
    app.get('/metrics', (_req, res) => void res.status(401).send('login'));
    const server = await new Promise<Server>((resolve) => {
      const started = app.listen(0, '127.0.0.1', () => resolve(started));
    });
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  };
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });
  const at = (url: string, client: string, token: string) => fetch(url, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client } });

  it('lets a scraper not in it through with the right token, and refuses a wrong one', async () => {
    const url = await serve(new LoginThrottle({ newBrowsersTotal: false, maxTrackedClients: 2 }));
    for (const client of ['203.0.113.1', '203.0.113.2']) {
      for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) expect((await at(url, client, `wrong-${client}-${i}-0123456789abcdef`)).status).toBe(401);
      const throttled = await at(url, client, TOKEN);
      expect(throttled.status, client).toBe(429);
      expect(await throttled.text()).toBe('Too many wrong tokens; try again later\n');
    }
    expect((await at(url, '198.51.100.7', TOKEN)).status).toBe(200);
    expect((await at(url, '198.51.100.7', TOKEN)).status).toBe(200);
    // A wrong token from outside the full table is refused and not counted: the table stays within its bound however
    // many addresses guess, so that sender's right token still gets through.
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED + 5; i++) expect((await at(url, '198.51.100.8', `wrong-new-${i}-0123456789abcdef`)).status).toBe(429);
    expect((await at(url, '198.51.100.8', TOKEN)).status).toBe(200);
    for (let n = 0; n < 20; n++) expect((await at(url, `192.0.2.${n + 1}`, `wrong-${n}-0123456789abcdef`)).status).toBe(429);
    expect((await at(url, '192.0.2.1', TOKEN)).status, 'its wrong token took no room').toBe(200);
    // The throttled addresses stay throttled, the right token too.
    for (const client of ['203.0.113.1', '203.0.113.2']) expect((await at(url, client, TOKEN)).status, client).toBe(429);
  });
});
