/**
 * The failed-login throttle of the dashboard over real HTTP against a real redis-server, as operators meet it behind
 * a reverse proxy or Docker's port mapping, where many clients share one socket address: a stranger's wrong
 * passwords must not lock out operators who logged in before, an operator's logins must not reset a stranger's
 * count, and with DASHBOARD_TRUST_PROXY each forwarded client is counted on its own.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { DashboardDeps } from '../../src/server/app.js';
import {
  KNOWN_DEVICE_COOKIE,
  LOGIN_FAILURES_ALLOWED,
  LOGIN_FAILURES_ALLOWED_FROM_NEW_BROWSERS,
  LOGIN_FAILURES_ALLOWED_PER_SITE,
  LoginThrottle,
} from '../../src/server/auth.js';
import { TEST_DASHBOARD_LOGIN, basicAuth, useDashboardHarness } from '../support/dashboard.js';

const USER = TEST_DASHBOARD_LOGIN.user;
const PASSWORD = TEST_DASHBOARD_LOGIN.password;

const harness = useDashboardHarness();

/** Serves a dashboard on 127.0.0.1:0 with a fresh prefix; its URL. Stopped and its keys removed after the test. */
async function startDashboard(env: Record<string, string> = {}, extra: Partial<DashboardDeps> = {}): Promise<string> {
  return (await harness.start(env, extra)).url;
}

const basic = basicAuth;

interface Visit {
  /** An Authorization header, or false for none; default the right password. */
  auth?: string | false;
  /** The known-device cookie to send (`name=value`). */
  device?: string;
  headers?: Record<string, string>;
}

/** One GET; every client of these tests connects from 127.0.0.1, as all do behind one proxy. */
function visit(url: string, pathname: string, options: Visit = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== false) headers.authorization = options.auth ?? basic();
  if (options.device) headers.cookie = `theme=dark; ${options.device}`;
  return fetch(`${url}${pathname}`, { headers, redirect: 'manual' });
}

/** The known-device cookie a response sets, as a browser would send it back, or undefined. */
function deviceCookieOf(res: Response): string | undefined {
  const set = res.headers.getSetCookie().find((c) => c.startsWith(`${KNOWN_DEVICE_COOKIE}=`));
  return set?.split(';')[0];
}

/** Logs in from a browser without the cookie and returns the cookie it is given. */
async function knownDevice(url: string, password = PASSWORD): Promise<string> {
  const res = await visit(url, '/', { auth: basic(USER, password) });
  expect(res.status).toBe(200);
  const cookie = deviceCookieOf(res);
  expect(cookie, 'a successful login sets the known-device cookie').toBeDefined();
  return cookie!;
}

const guess = (i: number | string) => basic(USER, `guess-${i}`);

describe('a stranger behind the same address as the operators', () => {
  it('cannot lock out an operator whose browser logged in before, even through the open /readyz', async () => {
    const url = await startDashboard();
    const operator = await knownDevice(url);
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) expect((await visit(url, '/readyz', { auth: guess(i) })).status).toBe(200);
    // The address is throttled: without the cookie even the right password waits, so guessing cannot go on.
    const stranger = await visit(url, '/api/tickets');
    expect(stranger.status).toBe(429);
    expect(Number(stranger.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await visit(url, '/api/tickets', { auth: guess('more') })).status).toBe(429);
    // The operator's browser is checked against the password all the same.
    expect((await visit(url, '/', { device: operator })).status).toBe(200);
    expect((await visit(url, '/api/tickets', { device: operator })).status).toBe(200);
    const ready = (await (await visit(url, '/readyz', { device: operator })).json()) as { checks: Record<string, unknown> };
    expect(typeof ready.checks.redis, 'a logged-in operator sees the details of /readyz').toBe('object');
    // The cookie opens nothing by itself: the password is still needed.
    expect((await visit(url, '/api/tickets', { device: operator, auth: false })).status).toBe(401);
  });

  it('is throttled after its failures although operators log in successfully in between', async () => {
    const url = await startDashboard();
    for (let i = 0; i <= LOGIN_FAILURES_ALLOWED; i++) {
      // Two guesses a round; the stranger has made 2i so far. Every third round an operator's script (no cookie
      // jar, like curl) logs in with the right password: that used to wipe the address's count.
      if (i % 3 === 0) expect((await visit(url, '/api/tickets')).status, `script in round ${i}`).toBe(2 * i < LOGIN_FAILURES_ALLOWED ? 200 : 429);
      expect((await visit(url, '/readyz', { auth: guess(i) })).status, `guess ${i}`).toBe(200);
      expect((await visit(url, '/api/tickets', { auth: guess(`${i}b`) })).status, `guess ${i}b`).toBe(2 * i + 1 < LOGIN_FAILURES_ALLOWED ? 401 : 429);
    }
  });

  it('counts failures of a known device against that device only', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const url = await startDashboard({}, { logger });
    const [mistyping, other] = [await knownDevice(url), await knownDevice(url)];
    expect(mistyping).not.toBe(other);
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) expect((await visit(url, '/', { device: mistyping, auth: guess(i) })).status).toBe(401);
    // That browser now waits, even with the right password: a stolen cookie gives no more guesses than an address.
    const waiting = await visit(url, '/', { device: mistyping });
    expect(waiting.status).toBe(429);
    expect(Number(waiting.headers.get('retry-after'))).toBeGreaterThan(0);
    // Nobody else does: not the other operator, not a new browser at the same address.
    expect((await visit(url, '/', { device: other })).status).toBe(200);
    expect((await visit(url, '/', { auth: guess('stranger') })).status).toBe(401);
    expect((await visit(url, '/')).status).toBe(200);
    expect(lines.filter((l) => l.includes('dashboard login failed')).length).toBe(LOGIN_FAILURES_ALLOWED + 1);
    expect(lines.join('\n')).not.toMatch(/guess-|correct horse/);
  });

  it('gains nothing from a forged, altered or foreign cookie, or one from before the password changed', async () => {
    const secret = randomBytes(32);
    const url = await startDashboard({}, { csrfSecret: secret });
    const genuine = await knownDevice(url);
    const otherProcess = await knownDevice(await startDashboard());
    const before = 'the password before the change';
    const oldPassword = await knownDevice(await startDashboard({ DASHBOARD_PASSWORD: before }, { csrfSecret: secret }), before);
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) await visit(url, '/readyz', { auth: guess(i) });
    const last = genuine.at(-1) === 'A' ? 'B' : 'A';
    const forged = [`${genuine.slice(0, -1)}${last}`, otherProcess, oldPassword, `${KNOWN_DEVICE_COOKIE}=x`, `${KNOWN_DEVICE_COOKIE}=`];
    for (const device of forged) expect((await visit(url, '/', { device })).status, device).toBe(429);
    expect((await visit(url, '/', { device: genuine })).status).toBe(200);
    // A dashboard with the same secret and password (a replica given the secret) accepts it.
    expect((await visit(await startDashboard({}, { csrfSecret: secret }), '/', { device: genuine })).status).toBe(200);
  });

  it('sets the cookie HttpOnly and SameSite=Strict, only after a successful login, and not again while it is fresh', async () => {
    const url = await startDashboard();
    for (const [pathname, auth] of [['/', false], ['/', guess(1)], ['/healthz', undefined], ['/readyz', undefined]] as const) {
      expect(deviceCookieOf(await visit(url, pathname, { auth })), `${pathname} ${String(auth)}`).toBeUndefined();
    }
    const res = await visit(url, '/');
    const header = res.headers.getSetCookie().find((c) => c.startsWith(`${KNOWN_DEVICE_COOKIE}=`)) ?? '';
    expect(header).toMatch(/; HttpOnly/i);
    expect(header).toMatch(/; SameSite=Strict/i);
    expect(header).toMatch(/; Path=\//i);
    expect(header).toMatch(/; Max-Age=\d+/i);
    // Plain HTTP (loopback, or a proxy that is not trusted): a Secure cookie would never come back.
    expect(header).not.toMatch(/; Secure/i);
    expect(deviceCookieOf(await visit(url, '/', { device: deviceCookieOf(res)! }))).toBeUndefined();
  });

  it('sets no cookie when authentication is off', async () => {
    const url = await startDashboard({ DASHBOARD_AUTH: 'off' });
    const res = await visit(url, '/', { auth: false });
    expect(res.status).toBe(200);
    expect(deviceCookieOf(res)).toBeUndefined();
  });
});

describe('repeated failures', () => {
  it('count a wrong password repeated (a script or open tab with an old password) once, not once per request', async () => {
    const url = await startDashboard();
    for (let i = 0; i < 3 * LOGIN_FAILURES_ALLOWED; i++) expect((await visit(url, '/metrics', { auth: basic(USER, 'the old password') })).status).toBe(401);
    expect((await visit(url, '/')).status).toBe(200);
    // New guesses are counted as ever: the old password was the first of ten.
    for (let i = 1; i < LOGIN_FAILURES_ALLOWED; i++) expect((await visit(url, '/', { auth: guess(i) })).status).toBe(401);
    expect((await visit(url, '/', { auth: guess('last') })).status).toBe(429);
  });
});

describe('DASHBOARD_TRUST_PROXY', () => {
  const forwarded = (client: string, extra: Record<string, string> = {}) => ({ headers: { 'x-forwarded-for': client, ...extra } });

  it('is off by default: X-Forwarded-For, which any client can send, does not choose the address counted', async () => {
    const url = await startDashboard();
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) await visit(url, '/', { auth: guess(i), ...forwarded(`203.0.113.${i}`) });
    expect((await visit(url, '/', forwarded('198.51.100.7'))).status).toBe(429);
  });

  it('counts each client a trusted proxy names on its own, and logs that address', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const url = await startDashboard({ DASHBOARD_TRUST_PROXY: 'loopback' }, { logger });
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) expect((await visit(url, '/', { auth: guess(i), ...forwarded('203.0.113.9') })).status).toBe(401);
    expect((await visit(url, '/', forwarded('203.0.113.9'))).status).toBe(429);
    expect((await visit(url, '/', forwarded('198.51.100.7'))).status).toBe(200);
    expect(lines.some((l) => l.includes('"client":"203.0.113.9"'))).toBe(true);
  });

  it('with a hop count, trusts only that many proxies: addresses a client adds in front do not give it new guesses', async () => {
    const url = await startDashboard({ DASHBOARD_TRUST_PROXY: '1' });
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) {
      expect((await visit(url, '/', { auth: guess(i), ...forwarded(`10.9.9.${i}, 203.0.113.9`) })).status).toBe(401);
    }
    expect((await visit(url, '/', { auth: guess('x'), ...forwarded('10.9.9.99, 203.0.113.9') })).status).toBe(429);
    expect((await visit(url, '/', forwarded('203.0.113.10'))).status).toBe(200);
  });

  it('marks the cookie Secure when the trusted proxy says the browser used HTTPS', async () => {
    const url = await startDashboard({ DASHBOARD_TRUST_PROXY: 'loopback' });
    const res = await visit(url, '/', forwarded('198.51.100.7', { 'x-forwarded-proto': 'https' }));
    expect(res.headers.getSetCookie().find((c) => c.startsWith(`${KNOWN_DEVICE_COOKIE}=`))).toMatch(/; Secure/i);
  });
});

describe('guesses spread over many addresses (behind a trusted proxy that names each client)', () => {
  const proxied = { DASHBOARD_TRUST_PROXY: 'loopback' };
  const from = (client: string, options: Visit = {}): Visit => ({ ...options, headers: { 'x-forwarded-for': client } });

  it.each([
    // A subscriber or hosting customer gets a whole /48 (65 536 /64s): per /64 alone it would guess without end.
    ['the /64s of one IPv6 /48 share one count', (n: number) => `2001:db8:77:${n.toString(16)}::1`, 20, LOGIN_FAILURES_ALLOWED_PER_SITE, '2001:db8:77:ffff::1', 429],
    // Not per /24: IPv4 addresses cost money each, and a /24 is often a carrier's or a cloud's, shared by strangers.
    ['the addresses of one IPv4 /24 are counted each on its own', (n: number) => `198.51.100.${n}`, 5, 5 * LOGIN_FAILURES_ALLOWED, '198.51.100.200', 200],
  ])('%s', async (_name, address, clients, checked, neighbour, neighbourStatus) => {
    const url = await startDashboard(proxied);
    let compared = 0;
    for (let n = 1; n <= clients; n++) {
      for (let i = 0; i < LOGIN_FAILURES_ALLOWED + 2; i++) if ((await visit(url, '/', from(address(n), { auth: guess(`${n}-${i}`) }))).status === 401) compared++;
    }
    expect(compared, 'wrong passwords compared').toBe(checked);
    // Another client of the same network, with the right password.
    const next = await visit(url, '/', from(neighbour));
    expect(next.status).toBe(neighbourStatus);
    if (neighbourStatus === 429) expect(Number(next.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await visit(url, '/', from('2001:db8:78:1::1'))).status, 'another network').toBe(200);
  });

  it('share one total among browsers that never logged in: once it is spent they all wait, while operators\' browsers get in', async () => {
    const url = await startDashboard(proxied);
    const operator = await knownDevice(url);
    const networks = LOGIN_FAILURES_ALLOWED_FROM_NEW_BROWSERS / LOGIN_FAILURES_ALLOWED;
    for (let n = 0; n < networks; n++) {
      // A new IPv4 address and a new IPv6 /48 each time: no per-address or per-site count is reached.
      const client = n % 2 ? `203.0.113.${n}` : `2001:db8:${(0x100 + n).toString(16)}::1`;
      for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) expect((await visit(url, '/', from(client, { auth: guess(`${n}-${i}`) }))).status, `${client} ${i}`).toBe(401);
    }
    for (const fresh of ['192.0.2.44', '2001:db8:fff::1']) {
      const wrong = await visit(url, '/api/tickets', from(fresh, { auth: guess(`fresh ${fresh}`) }));
      expect(wrong.status, `${fresh}, a wrong password`).toBe(429);
      expect(Number(wrong.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await visit(url, '/', from(fresh))).status, `${fresh}, the right password`).toBe(429);
    }
    // An operator's browser, from any address: in with the password, and its own mistype is a plain 401.
    expect((await visit(url, '/api/tickets', from('192.0.2.44', { device: operator }))).status).toBe(200);
    expect((await visit(url, '/', from('192.0.2.45', { device: operator, auth: guess('mistyped') }))).status).toBe(401);
    expect((await visit(url, '/', from('192.0.2.45', { device: operator }))).status).toBe(200);
  });

  it('keep a throttled /64 throttled after 10 000 other /64s failed once each', async () => {
    const url = await startDashboard(proxied);
    const victim = from('2001:db8:99:1::1', { auth: guess('after') });
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) await visit(url, '/', from('2001:db8:99:1::1', { auth: guess(`victim ${i}`) }));
    expect((await visit(url, '/', victim)).status).toBe(429);
    for (let n = 0; n < 10_000; n += 100) {
      await Promise.all(
        Array.from({ length: 100 }, async (_, k) => {
          const res = await visit(url, '/', from(`2001:db8:${(0x1000 + n + k).toString(16)}:1::1`, { auth: guess('x') }));
          await res.arrayBuffer();
        }),
      );
    }
    expect((await visit(url, '/', victim)).status).toBe(429);
    // 10 000 requests: a few seconds on an idle machine, several times that on a busy CI runner.
  }, 120_000);
});

describe('a full table of clients', () => {
  const proxied = { DASHBOARD_TRUST_PROXY: 'loopback' };
  const from = (client: string, options: Visit = {}): Visit => ({ ...options, headers: { 'x-forwarded-for': client } });
  /** Fails `client` until it is throttled. */
  const throttle = async (url: string, client: string) => {
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) expect((await visit(url, '/', from(client, { auth: guess(`${client} ${i}`) }))).status).toBe(401);
    expect((await visit(url, '/', from(client))).status).toBe(429);
  };
  // A small table and a total out of the way, so that the table fills up after a few clients.
  const smallTable = (maxTrackedClients: number) => ({ loginThrottle: new LoginThrottle({ maxTrackedClients, allowedFromNewBrowsers: 10_000 }) });

  it('makes room by forgetting clients that are not throttled, never one that is', async () => {
    const url = await startDashboard(proxied, smallTable(4));
    await throttle(url, '203.0.113.1');
    for (let n = 1; n <= 12; n++) expect((await visit(url, '/', from(`198.51.100.${n}`, { auth: guess(n) }))).status, `client ${n}`).toBe(401);
    expect((await visit(url, '/', from('203.0.113.1'))).status).toBe(429);
  });

  it('refuses new browsers (429) when every client in it is throttled, and still lets operators in', async () => {
    const url = await startDashboard(proxied, smallTable(2));
    const operator = await knownDevice(url);
    await throttle(url, '203.0.113.1');
    await throttle(url, '203.0.113.2');
    for (const auth of [undefined, guess('new')]) {
      const res = await visit(url, '/', from('198.51.100.9', auth ? { auth } : {}));
      expect(res.status, `a new client with ${auth ? 'a wrong' : 'the right'} password`).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    for (const client of ['203.0.113.1', '203.0.113.2']) expect((await visit(url, '/', from(client))).status, client).toBe(429);
    expect((await visit(url, '/', from('198.51.100.9', { device: operator }))).status).toBe(200);
    expect((await visit(url, '/', from('198.51.100.9', { device: operator, auth: guess('mistyped') }))).status).toBe(401);
  });
});
