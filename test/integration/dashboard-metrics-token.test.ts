/**
 * A Prometheus scrape reads /metrics with a token of its own (METRICS_TOKEN), so its configuration — often in a
 * shared repository or secret store — does not hold the password that approves and sends mail. The token opens
 * /metrics and nothing else. Real HTTP against the dashboard app and a real redis-server.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues } from '../../src/queues/registry.js';
import { createDashboardApp } from '../../src/server/app.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { removePrefix } from '../support/pipeline.js';

const BASIC = `Basic ${Buffer.from('admin:correct horse battery staple').toString('base64')}`;
const TOKEN = 'scrape-3f9a1c7e5b2d4a6f8e0c1b3d';

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

async function dashboard(env: Record<string, string>): Promise<string> {
  const prefix = `metr${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const config = parseConfig({ REDIS_URL: redisServer.url, QUEUE_PREFIX: prefix, DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: 'correct horse battery staple', ...env });
  const queues = createQueues(redis, prefix);
  const server = createServer(createDashboardApp({ config, redis, store: new TicketStore(redis, { prefix }), queues }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    await closeAll(queues).catch(() => undefined);
    await removePrefix(redisServer.url, prefix);
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

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

  it('is off without the variable: a bearer token reads nothing', async () => {
    const base = await dashboard({});
    expect(await status(`${base}/metrics`, `Bearer ${TOKEN}`)).toBe(401);
  });

  it('refuses a token too short to resist guessing, naming the variable', () => {
    expect(() => parseConfig({ DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: 'x', METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });
});
