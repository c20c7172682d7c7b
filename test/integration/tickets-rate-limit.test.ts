import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { erasedTicketsKey } from '../../src/tickets/erased.js';
import {
  AUTO_REPLY_WINDOW_MS,
  agentRunKey,
  agentRunTotalKey,
  autoReplyAllowed,
  autoReplyKey,
  recordAgentRun,
  recordAutoReply,
  type AgentRunLimits,
} from '../../src/tickets/rate-limit.js';
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

describe('agent-run limit (sliding windows per sender and in all)', () => {
  const GENEROUS: AgentRunLimits = { perSender: 100, total: 1000 };

  it.each([
    {
      name: 'per sender, every spelling of the address in one window',
      limits: { perSender: 2, total: 100 },
      runs: [['Mallory@Attacker.Example', 't1'], ['mallory+2@attacker.example', 't2'], ['ｍａｌｌｏｒｙ@attacker.example', 't3'], ['other@attacker.example', 't4']],
      expected: [
        { allowed: true, count: 1 },
        { allowed: true, count: 2 },
        { allowed: false, refusedBy: 'sender', count: 2 },
        { allowed: true, count: 1 },
      ],
    },
    {
      name: 'in all, over different senders',
      limits: { perSender: 5, total: 2 },
      runs: [['a@x.example', 't1'], ['b@x.example', 't2'], ['c@x.example', 't3']],
      expected: [
        { allowed: true, count: 1 },
        { allowed: true, count: 1 },
        { allowed: false, refusedBy: 'total', count: 2 },
      ],
    },
    {
      name: 'a retried run of the same ticket once, even in a full window',
      limits: { perSender: 1, total: 100 },
      runs: [['a@x.example', 't1'], ['a@x.example', 't1'], ['a@x.example', 't2']],
      expected: [
        { allowed: true, count: 1 },
        { allowed: true, count: 1 },
        { allowed: false, refusedBy: 'sender', count: 1 },
      ],
    },
    {
      name: 'nothing with a limit of 0, as the auto-reply limits',
      limits: { perSender: 0, total: 100 },
      runs: [['a@x.example', 't1']],
      expected: [{ allowed: false, refusedBy: 'sender', count: 0 }],
    },
    {
      name: 'everything with a negative limit',
      limits: { perSender: -1, total: -1 },
      runs: [['a@x.example', 't1'], ['a@x.example', 't2']],
      expected: [
        { allowed: true, count: 1 },
        { allowed: true, count: 2 },
      ],
    },
  ])('counts runs $name', async ({ limits, runs, expected }) => {
    const prefix = freshPrefix();
    const results = [];
    for (const [i, [sender, ticketId]] of runs.entries()) results.push(await recordAgentRun(redis, prefix, sender!, ticketId!, limits, T0 + i * MIN));
    expect(results).toEqual(expected);
  });

  it('frees a slot an hour after the run it holds', async () => {
    const prefix = freshPrefix();
    const limits = { perSender: 1, total: 100 };
    expect(await recordAgentRun(redis, prefix, 'a@x.example', 't1', limits, T0)).toEqual({ allowed: true, count: 1 });
    expect(await recordAgentRun(redis, prefix, 'a@x.example', 't2', limits, T0 + AUTO_REPLY_WINDOW_MS - 1)).toMatchObject({ allowed: false });
    expect(await recordAgentRun(redis, prefix, 'a@x.example', 't2', limits, T0 + AUTO_REPLY_WINDOW_MS)).toEqual({ allowed: true, count: 1 });
  });

  it('refuses atomically once a limit is reached, even under concurrency', async () => {
    const prefix = freshPrefix();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => recordAgentRun(redis, prefix, 'burst@x.example', `t${i}`, { perSender: 3, total: 100 }, T0 + i)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(3);
    expect(await redis.zcard(agentRunTotalKey(prefix))).toBe(3);
  });

  it('records nothing for a ticket erased on request', async () => {
    const prefix = freshPrefix();
    await redis.sadd(erasedTicketsKey(prefix), 'gone');
    expect(await recordAgentRun(redis, prefix, 'a@x.example', 'gone', GENEROUS, T0)).toEqual({ allowed: false, erased: true, count: 0 });
    expect(await redis.exists(agentRunKey(prefix, 'a@x.example'), agentRunTotalKey(prefix))).toBe(0);
  });

  it('keeps its windows apart from the auto-reply ones, keyed by a digest, expiring when idle', async () => {
    const prefix = freshPrefix();
    await recordAgentRun(redis, prefix, 'idle@x.example', 't', GENEROUS);
    expect(agentRunKey(prefix, 'idle@x.example')).not.toBe(autoReplyKey(prefix, 'idle@x.example'));
    expect(agentRunKey(prefix, 'idle@x.example')).not.toContain('idle');
    expect(await redis.exists(autoReplyKey(prefix, 'idle@x.example'))).toBe(0);
    for (const key of [agentRunKey(prefix, 'idle@x.example'), agentRunTotalKey(prefix)]) {
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(AUTO_REPLY_WINDOW_MS);
    }
  });
});
