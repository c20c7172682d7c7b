import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_REPLY_WINDOW_MS, autoReplyAllowed, autoReplyKey, recordAutoReply } from '../../src/tickets/rate-limit.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';

let server: RedisServer;
let redis: Redis;
const prefixes: string[] = [];

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
});

afterEach(async () => {
  for (const prefix of prefixes.splice(0)) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

function freshPrefix(): string {
  const prefix = `test-${randomUUID()}`;
  prefixes.push(prefix);
  return prefix;
}

const MIN = 60_000;
const T0 = Date.parse('2025-06-01T12:00:00Z');

describe('auto-reply limit (sliding window)', () => {
  it('allows up to the limit per sender within any hour and frees slots as they age out', async () => {
    const prefix = freshPrefix();
    const sender = 'loop@customer.example';
    for (const [i, at] of [T0, T0 + 10 * MIN, T0 + 20 * MIN].entries()) {
      expect(await autoReplyAllowed(redis, prefix, sender, 3, at)).toEqual({ allowed: true, count: i });
      expect(await recordAutoReply(redis, prefix, sender, `ticket-${i}`, { now: at })).toEqual({ recorded: true, count: i + 1 });
    }
    expect(await autoReplyAllowed(redis, prefix, sender, 3, T0 + 30 * MIN)).toEqual({ allowed: false, count: 3 });
    // Exactly one hour after the first reply it no longer counts.
    expect(await autoReplyAllowed(redis, prefix, sender, 3, T0 + AUTO_REPLY_WINDOW_MS)).toEqual({ allowed: true, count: 2 });
    expect(await autoReplyAllowed(redis, prefix, sender, 3, T0 + 80 * MIN + 1)).toEqual({ allowed: true, count: 0 });
    // Another sender has its own window; the address is case-insensitive.
    expect(await autoReplyAllowed(redis, prefix, 'other@customer.example', 3, T0 + 30 * MIN)).toEqual({ allowed: true, count: 0 });
    expect((await autoReplyAllowed(redis, prefix, 'LOOP@Customer.Example', 3, T0 + 30 * MIN)).count).toBe(3);
  });

  it('counts every spelling of one mailbox in one window: +tags, full-width letters, an IDN domain', async () => {
    const prefix = freshPrefix();
    const spellings = ['victim+1@customer.example', 'Victim+2@Customer.Example', 'ｖｉｃｔｉｍ@customer.example', 'victim@customer.example.'];
    for (const [i, address] of spellings.entries()) await recordAutoReply(redis, prefix, address, `ticket-${i}`, { now: T0 + i });
    expect(await autoReplyAllowed(redis, prefix, 'victim@customer.example', 3, T0 + 10)).toEqual({ allowed: false, count: 4 });
    const idn = freshPrefix();
    await recordAutoReply(redis, idn, 'a@bücher.example', 't1', { now: T0 });
    expect((await autoReplyAllowed(redis, idn, 'a@xn--bcher-kva.example', 3, T0 + 1)).count).toBe(1);
  });

  it('counts the same ticket once', async () => {
    const prefix = freshPrefix();
    await recordAutoReply(redis, prefix, 'a@x', 't1', { now: T0 });
    expect(await recordAutoReply(redis, prefix, 'a@x', 't1', { now: T0 + MIN })).toEqual({ recorded: true, count: 1 });
    expect((await autoReplyAllowed(redis, prefix, 'a@x', 5, T0 + 2 * MIN)).count).toBe(1);
  });

  it('refuses atomically once the limit is reached, even under concurrency', async () => {
    const prefix = freshPrefix();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => recordAutoReply(redis, prefix, 'burst@x', `t${i}`, { limitPerHour: 3, now: T0 + i })),
    );
    expect(results.filter((r) => r.recorded)).toHaveLength(3);
    expect(results.filter((r) => !r.recorded).every((r) => r.count === 3)).toBe(true);
    // A ticket already counted stays recorded (its retry is not refused).
    const counted = results.findIndex((r) => r.recorded);
    expect(await recordAutoReply(redis, prefix, 'burst@x', `t${counted}`, { limitPerHour: 3, now: T0 + 100 })).toEqual({ recorded: true, count: 3 });
  });

  it('allows nothing with a limit of 0', async () => {
    const prefix = freshPrefix();
    expect(await autoReplyAllowed(redis, prefix, 'a@x', 0, T0)).toEqual({ allowed: false, count: 0 });
    expect(await recordAutoReply(redis, prefix, 'a@x', 't', { limitPerHour: 0, now: T0 })).toEqual({ recorded: false, count: 0 });
  });

  it('lets the key of an idle sender expire', async () => {
    const prefix = freshPrefix();
    await recordAutoReply(redis, prefix, 'idle@x', 't');
    const ttl = await redis.pttl(autoReplyKey(prefix, 'idle@x'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(AUTO_REPLY_WINDOW_MS);
    expect(autoReplyKey(prefix, 'idle@x')).not.toContain('idle@x');
  });
});
