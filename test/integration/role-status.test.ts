/**
 * The per-process reports behind /readyz's sender and agent checks, against a real redis-server: a process that was
 * killed leaves its report behind; the heartbeat of a running process removes those of processes gone for good; the
 * times in a report are Redis's, so a machine whose clock is minutes off neither hides nor fakes a report.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { ROLE_STATUS_FORGET_MS, RoleStatusReporter, checkClockSkew, readRoleStatus, roleStatusKey } from '../../src/runtime/role-status.js';
import { AGENT_WORDS, SENDER_WORDS, dependencyCheck } from '../../src/server/health.js';

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
afterEach(() => {
  vi.useRealTimers();
});

const MINUTES_4 = 4 * 60_000;
/** This process's clock runs `skewMs` off from here on (Date only: timers, and so Redis's timeouts, stay real). */
function skewClock(skewMs: number): void {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(Date.now() + skewMs);
}

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

describe('reports across machines whose clocks disagree', () => {
  it('a report from a machine whose clock is minutes behind counts, with its failure', async () => {
    const prefix = `rs${randomUUID().slice(0, 8)}`;
    skewClock(-MINUTES_4);
    const reporter = new RoleStatusReporter(redis, prefix, 'agent', { host: 'behind' });
    try {
      await reporter.failed('cannot reach http://127.0.0.1:9/v1: Connection error.');
      vi.useRealTimers();
      const reports = await readRoleStatus(redis, prefix, 'agent');
      expect(reports.map((r) => r.process)).toEqual([`behind#${process.pid}`]);
      const check = dependencyCheck(reports, new Date(), AGENT_WORDS);
      expect(check.status).toBe('fail');
      expect(check.detail).toMatch(/^the agent worker cannot use the model server \([0-2] s ago: cannot reach/);
    } finally {
      await reporter.close();
    }
  });

  it('a dashboard whose clock is minutes ahead (or behind) sees a report just written as recent', async () => {
    const prefix = `rs${randomUUID().slice(0, 8)}`;
    const reporter = new RoleStatusReporter(redis, prefix, 'sender', { host: 'right' });
    try {
      await reporter.reached();
      for (const skew of [MINUTES_4, -MINUTES_4]) {
        skewClock(skew);
        const reports = await readRoleStatus(redis, prefix, 'sender');
        expect(reports).toHaveLength(1);
        expect(dependencyCheck(reports, new Date(), SENDER_WORDS).detail).toMatch(/^the sender reached the SMTP server [0-2] s ago/);
        vi.useRealTimers();
      }
    } finally {
      await reporter.close();
    }
  });

  it('a process warns at start when its clock is more than 30 s off from Redis, naming both times', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    await checkClockSkew(redis, logger);
    expect(lines).toEqual([]);
    skewClock(-MINUTES_4);
    await checkClockSkew(redis, logger);
    expect(lines).toHaveLength(1);
    const { msg, localTime, redisTime } = JSON.parse(lines[0]!) as { msg: string; localTime: string; redisTime: string };
    expect(msg).toMatch(/^this machine's clock is 4 min behind Redis's \(here [0-9T:.-]+Z, Redis [0-9T:.-]+Z\)/);
    expect(Date.parse(redisTime) - Date.parse(localTime)).toBeGreaterThan(MINUTES_4 - 5_000);
    expect(Date.parse(redisTime) - Date.parse(localTime)).toBeLessThan(MINUTES_4 + 5_000);
  });
});
