/**
 * The per-process reports behind /readyz's sender and agent checks, against a real redis-server: a process that was
 * killed leaves its report behind; the heartbeat of a running process removes those of processes gone for good.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { ROLE_STATUS_FORGET_MS, RoleStatusReporter, roleStatusKey } from '../../src/runtime/role-status.js';

let server: RedisServer;
let redis: Redis;
beforeAll(async () => {
  server = await startRedis();
  redis = await connectProducer(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('RoleStatusReporter', () => {
  it('removes the reports of processes gone for more than a day, and keeps the others', async () => {
    const prefix = `rs${randomUUID().slice(0, 8)}`;
    const key = roleStatusKey(prefix, 'sender');
    const now = Date.now();
    await redis.hset(key, 'old-host#111', JSON.stringify({ seenAt: now - ROLE_STATUS_FORGET_MS - 60_000 }), 'other-host#222', JSON.stringify({ seenAt: now - 10 * 60_000 }), 'junk#333', 'not json');
    const reporter = new RoleStatusReporter(redis, prefix, 'sender');
    try {
      await reporter.reached();
      const fields = Object.keys(await redis.hgetall(key)).sort();
      expect(fields).toHaveLength(2);
      expect(fields).toContain('other-host#222');
      expect(fields).not.toContain('old-host#111');
      expect(fields).not.toContain('junk#333');
    } finally {
      await reporter.close();
      await redis.del(key);
    }
  });
});
