/**
 * The dashboard role and its process entry (`workers/dashboard.ts`) against a real redis-server: it refuses to
 * start without a password (in-process and as `npm run dashboard` would run it), binds loopback only with
 * DASHBOARD_AUTH=off, and serves, then stops, on DASHBOARD_PORT.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';
import { startDashboardRole, type DashboardRole } from '../../src/runtime/dashboard.js';
import { removePrefix, spawnTsx } from '../support/pipeline.js';
import { freePort } from '../../src/dev/ports.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';

const PASSWORD = 'role-test-password';
let redisServer: RedisServer;
let dataDir: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  redisServer = await startRedis();
  dataDir = await mkdtemp(path.join(tmpdir(), 'dash-role-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await redisServer?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The environment of one test: real Redis, a fresh prefix, a free port. */
async function env(overrides: Record<string, string> = {}): Promise<Record<string, string>> {
  const prefix = `role${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  cleanups.push(() => removePrefix(redisServer.url, prefix));
  return {
    LOG_LEVEL: 'info',
    REDIS_URL: redisServer.url,
    QUEUE_PREFIX: prefix,
    DATA_DIR: dataDir,
    DASHBOARD_PORT: String(await freePort()),
    DASHBOARD_USER: 'admin',
    DASHBOARD_PASSWORD: PASSWORD,
    DASHBOARD_AUTH: 'on',
    ...overrides,
  };
}

async function start(vars: Record<string, string>): Promise<DashboardRole> {
  const role = await startDashboardRole(parseConfig(vars));
  cleanups.push(() => role.stop());
  return role;
}

const auth = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };

describe('startDashboardRole', () => {
  // The demo holds its port from its first moment (src/cli/demo.ts): a second demo started beside it took the port in
  // the moment between freeing it and listening again, and this one stopped with "the port is in use".
  it('answers on a server already listening that it is given, and never lets the port go', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const port = (holder.address() as AddressInfo).port;
    const vars = await env({ DASHBOARD_PORT: String(port) });
    const taken: boolean[] = [];
    // Whoever tries the port while the role starts finds it taken.
    const probe = setInterval(() => {
      const other = createServer();
      other.once('error', () => taken.push(true));
      other.listen(port, '127.0.0.1', () => {
        taken.push(false);
        other.close();
      });
    }, 1);
    let role: DashboardRole;
    try {
      role = await startDashboardRole(parseConfig(vars), { listening: holder });
    } finally {
      clearInterval(probe);
    }
    cleanups.push(() => role.stop());
    expect(role.address.port).toBe(port);
    expect(role.url).toBe(`http://127.0.0.1:${port}`);
    expect(taken.length).toBeGreaterThan(0);
    expect(taken.every(Boolean)).toBe(true);
    const answer = await fetch(`${role.url}/healthz`);
    expect(answer.status).toBe(200);
    await role.stop();
    expect(holder.listening).toBe(false);
  });

  it('refuses to start without a password, naming DASHBOARD_PASSWORD and DASHBOARD_AUTH, and binds nothing', async () => {
    const vars = await env({ DASHBOARD_PASSWORD: '' });
    const failure = await startDashboardRole(parseConfig(vars)).then(
      (role) => {
        cleanups.push(() => role.stop());
        return undefined;
      },
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(/DASHBOARD_PASSWORD is required by the dashboard/);
    expect((failure as Error).message).toMatch(/DASHBOARD_AUTH=off/);
    await expect(fetch(`http://127.0.0.1:${vars.DASHBOARD_PORT}/healthz`)).rejects.toThrow();
  });

  it('with DASHBOARD_AUTH=off listens on 127.0.0.1 only and needs no credentials', async () => {
    const role = await start(await env({ DASHBOARD_AUTH: 'off', DASHBOARD_PASSWORD: '' }));
    expect(role.address.address).toBe('127.0.0.1');
    expect(role.url).toBe(`http://127.0.0.1:${role.address.port}`);
    const res = await fetch(`${role.url}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Waiting for review');
  });

  it('listens on 127.0.0.1 unless DASHBOARD_HOST says otherwise, even with a password', async () => {
    const role = await start(await env());
    expect(role.address.address).toBe('127.0.0.1');
    expect(role.url).toBe(`http://127.0.0.1:${role.address.port}`);
    await role.stop();
  });

  it('with DASHBOARD_HOST=0.0.0.0 and a password listens on every interface, requires credentials, and stops cleanly', async () => {
    const vars: Record<string, string> = { ...(await env()), DASHBOARD_HOST: '0.0.0.0' };
    const role = await start(vars);
    expect(role.address.port).toBe(Number(vars.DASHBOARD_PORT));
    expect(role.address.address).toBe('0.0.0.0');
    const url = `http://127.0.0.1:${role.address.port}`;
    expect((await fetch(`${url}/`)).status).toBe(401);
    expect((await fetch(`${url}/`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    // No IMAP settings in this environment: the poller check is skipped; Redis and the embedded search answer.
    const ready = (await (await fetch(`${url}/readyz`)).json()) as { status: string; checks: Record<string, string> };
    expect(ready.status).toBe('ready');
    expect(ready.checks.imapPoller).toBe('skipped');
    await role.stop();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  // With the exact fix (newcomer's walk, 3): a free port after the busy one, and where to set it.
  it('reports a port in use clearly, naming a free port to set', async () => {
    const first = await start(await env());
    const busy = first.address.port;
    const failure = await startDashboardRole(parseConfig(await env({ DASHBOARD_PORT: String(busy) }))).catch((err: unknown) => err);
    const match = /the port is in use; stop what holds it, or set DASHBOARD_PORT=(\d+) in \.env \(or run with it: DASHBOARD_PORT=\1 npm start\)$/.exec((failure as Error).message);
    expect(match, (failure as Error).message).not.toBeNull();
    const named = Number(match![1]);
    // 0 (any port) only when none of the next twenty is free.
    if (named !== 0) {
      expect(named).toBeGreaterThan(busy);
      const second = await start(await env({ DASHBOARD_PORT: String(named) }));
      expect(second.address.port).toBe(named);
    }
  });
});

describe('workers/dashboard.ts', () => {
  it('exits with status 2 and one message when the password is missing', async () => {
    const child = spawnTsx('workers/dashboard.ts', [], await env({ DASHBOARD_PASSWORD: '' }));
    const exit = await child.exited;
    expect(exit.code).toBe(2);
    expect(child.output()).toMatch(/DASHBOARD_PASSWORD is required by the dashboard.*DASHBOARD_AUTH=off/);
    expect(child.output()).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('serves on DASHBOARD_PORT and exits 0 on SIGTERM', async () => {
    const vars = await env();
    const child = spawnTsx('workers/dashboard.ts', [], vars);
    cleanups.push(async () => {
      child.kill('SIGKILL');
      await child.exited;
    });
    await child.waitForOutput(/Dashboard listening/);
    const url = `http://127.0.0.1:${vars.DASHBOARD_PORT}`;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/api/tickets`)).status).toBe(401);
    const list = await fetch(`${url}/api/tickets`, { headers: auth });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual([]);
    expect(child.output()).not.toContain(PASSWORD);
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
  });
});

describe('workers/all.ts (npm start)', () => {
  it('names every missing variable of its roles in one message before starting any, with Redis not even reachable', async () => {
    const child = spawnTsx('workers/all.ts', [], { HELPDESK_ENV_FILE: 'none', REDIS_URL: 'redis://127.0.0.1:1', DASHBOARD_AUTH: 'off', LOG_LEVEL: 'warn' });
    const exit = await child.exited;
    expect(exit.code).toBe(2);
    for (const name of ['SMTP_HOST', 'MAIL_FROM', 'IMAP_HOST', 'IMAP_USER', 'IMAP_PASSWORD']) expect(child.output()).toContain(`${name} is required by the`);
    expect(child.output()).not.toMatch(/\n\s+at /);
  });
});

