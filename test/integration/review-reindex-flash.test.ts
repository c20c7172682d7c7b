/**
 * What the review page says after "Reindex now": the scheduler role (not an agent worker) rebuilds the indexes, and
 * when no worker listens on the maintenance queue the jobs wait in silence, so the page says so. Real Redis, a real
 * BullMQ worker on the maintenance queue.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer, createWorkerConnection } from '../../src/queues/connection.js';
import { QUEUE_NAMES } from '../../src/queues/names.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { createDashboardApp } from '../../src/server/app.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { removePrefix } from '../support/pipeline.js';

const USER = 'admin';
const PASSWORD = 'correct horse battery staple';

let redisServer: RedisServer;
let redis: Redis;
let queues: Queues;
let server: Server;
let url: string;
let prefix: string;

beforeAll(async () => {
  redisServer = await startRedis();
  redis = await connectProducer(redisServer.url);
  prefix = `flash${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const config = parseConfig({ REDIS_URL: redisServer.url, QUEUE_PREFIX: prefix, DASHBOARD_USER: USER, DASHBOARD_PASSWORD: PASSWORD });
  queues = createQueues(redis, prefix);
  server = createServer(createDashboardApp({ config, redis, store: new TicketStore(redis, { prefix }), queues }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (queues) await closeAll(queues).catch(() => undefined);
  if (redisServer?.running) await removePrefix(redisServer.url, prefix);
  redis?.disconnect();
  await redisServer?.stop();
});

async function flashAfterReindex(): Promise<string> {
  const res = await fetch(`${url}/?done=reindex`, { headers: { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` } });
  const page = await res.text();
  return /<div class="flash[^"]*"[^>]*>([^<]*Reindex queued[^<]*)</.exec(page)?.[1] ?? `(no reindex flash in the page)`;
}

describe('the flash after "Reindex now"', () => {
  it('says the scheduler is not running when no worker listens on the maintenance queue', async () => {
    const flash = await flashAfterReindex();
    expect(flash).not.toContain('agent worker');
    expect(flash).toBe(
      'Reindex queued: the scheduler rebuilds the manual and the Q&amp;A index, but none is connected now: is npm run scheduler (or npm start, or the compose service) running? The jobs wait until one is.',
    );
  });

  it('names the scheduler alone while one listens', async () => {
    const connection = createWorkerConnection(redisServer.url);
    const worker = new Worker(QUEUE_NAMES.maintenance, async () => undefined, { connection, prefix });
    try {
      await worker.waitUntilReady();
      expect(await flashAfterReindex()).toBe('Reindex queued: the scheduler rebuilds the manual and the Q&amp;A index.');
    } finally {
      await worker.close();
      connection.disconnect();
    }
  });
});
