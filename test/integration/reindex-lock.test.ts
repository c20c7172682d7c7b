/**
 * Rebuilds of a server backend never overlap (issue: a CLI reindex racing a scheduled one orphaned a collection):
 * the maintenance role's reindex jobs and `npm run reindex` take one Redis lock per index, released whatever happens.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { createLogger } from '../../src/logger.js';
import { LockBusyError, acquireRedisLock, reindexLockKey, withReindexLock } from '../../src/queues/redis-lock.js';
import { createMaintenanceHandlers } from '../../src/runtime/maintenance.js';
import type { ManualSearch, QaSearch } from '../../src/search/types.js';

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

const prefix = () => `t${randomUUID().replaceAll('-', '').slice(0, 12)}`;

describe('the reindex lock', () => {
  it('runs the rebuild, refuses a second one meanwhile, and is free again afterwards, even after a failure', async () => {
    const p = prefix();
    let release!: () => void;
    const running = withReindexLock(redis, p, 'qa', () => new Promise<string>((resolve) => (release = () => resolve('built'))));
    await expect.poll(() => redis.exists(reindexLockKey(p, 'qa'))).toBe(1);
    await expect(withReindexLock(redis, p, 'qa', async () => 'second')).rejects.toThrow(LockBusyError);
    // One index's rebuild does not hold up the other's.
    await expect(withReindexLock(redis, p, 'manual', async () => 'manual')).resolves.toBe('manual');
    release();
    await expect(running).resolves.toBe('built');
    expect(await redis.exists(reindexLockKey(p, 'qa'))).toBe(0);
    await expect(withReindexLock(redis, p, 'qa', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await redis.exists(reindexLockKey(p, 'qa'))).toBe(0);
  });

  it('is renewed in the background while a long rebuild runs, so it never lapses under it', async () => {
    const key = `${prefix()}:lock`;
    const lock = await acquireRedisLock(redis, key, { ttlMs: 600, autoRenewMs: 200, busyMessage: 'busy' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await redis.exists(key)).toBe(1);
    await lock.release();
    expect(await redis.exists(key)).toBe(0);
    // Without renewal the same lock lapses after its time to live, as a dead holder's does.
    const dead = await acquireRedisLock(redis, key, { ttlMs: 300, busyMessage: 'busy' });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await redis.exists(key)).toBe(0);
    await expect(dead.renew()).rejects.toThrow(LockBusyError);
  });

  it("the maintenance role's reindex job fails its try (to be retried) while a CLI rebuild holds the lock", async () => {
    const p = prefix();
    const config = parseConfig({ QUEUE_PREFIX: p });
    const calls: string[] = [];
    const manual = { kind: 'test', replaceAll: async () => void calls.push('manual') } as unknown as ManualSearch;
    const qa = { kind: 'test', replaceAll: async () => void calls.push('qa') } as unknown as QaSearch;
    const handlers = createMaintenanceHandlers(config, { manual, qa }, createLogger('test'), redis);
    const job = { id: '1', updateProgress: async () => undefined } as never;
    await redis.set(reindexLockKey(p, 'manual'), 'cli-run', 'PX', 60_000);
    await expect(handlers['reindex-manual'](job, { trigger: 'schedule' }, {} as never)).rejects.toThrow(/already running/);
    expect(calls).toEqual([]);
  });
});
