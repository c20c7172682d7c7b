import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { erasedTicketsKey } from '../../src/tickets/erased.js';
import {
  AUTO_REPLY_WINDOW_MS,
  agentRunDomainKey,
  agentRunDomainOf,
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

describe('agent-run limit (sliding windows per sender, per organisation domain and in all)', () => {
  const GENEROUS: AgentRunLimits = { perSender: 100, perDomain: 100, total: 1000 };

  it.each([
    {
      name: 'per sender, every spelling of the address in one window',
      limits: { perSender: 2, perDomain: 100, total: 100 },
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
      limits: { perSender: 5, perDomain: 100, total: 2 },
      runs: [['a@x.example', 't1'], ['b@x.example', 't2'], ['c@x.example', 't3']],
      expected: [
        { allowed: true, count: 1 },
        { allowed: true, count: 1 },
        { allowed: false, refusedBy: 'total', authenticated: false, count: 2 },
      ],
    },
    {
      name: 'a retried run of the same ticket once, even in a full window',
      limits: { perSender: 1, perDomain: 100, total: 100 },
      runs: [['a@x.example', 't1'], ['a@x.example', 't1'], ['a@x.example', 't2']],
      expected: [
        { allowed: true, count: 1 },
        { allowed: true, count: 1 },
        { allowed: false, refusedBy: 'sender', count: 1 },
      ],
    },
    {
      name: 'nothing with a limit of 0, as the auto-reply limits',
      limits: { perSender: 0, perDomain: 100, total: 100 },
      runs: [['a@x.example', 't1']],
      expected: [{ allowed: false, refusedBy: 'sender', count: 0 }],
    },
    {
      name: 'per organisation domain over made-up addresses and its subdomains, leaving other domains and the total alone',
      limits: { perSender: 20, perDomain: 3, total: 5 },
      runs: [
        ['x0@flood.example', 't1'],
        ['x1@mail.flood.example', 't2'],
        ['X2@FLOOD.EXAMPLE', 't3'],
        ['taro@customer.example', 't4'],
        ['x3@flood.example', 't5'],
        ['x4@eu.mail.flood.example', 't6'],
        ['hanako@other.example', 't7'],
      ],
      expected: [
        { allowed: true, count: 1 },
        { allowed: true, count: 1 },
        { allowed: true, count: 1 },
        { allowed: true, count: 1 },
        { allowed: false, refusedBy: 'domain', domain: 'flood.example', authenticated: false, count: 3 },
        { allowed: false, refusedBy: 'domain', domain: 'flood.example', authenticated: false, count: 3 },
        { allowed: true, count: 1 },
      ],
    },
    {
      name: 'per organisation domain below a public suffix: each company under co.jp has its own window',
      limits: { perSender: 20, perDomain: 1, total: 100 },
      runs: [['a@bigcorp.co.jp', 't1'], ['b@smallcorp.co.jp', 't2'], ['c@tokyo.bigcorp.co.jp', 't3']],
      expected: [
        { allowed: true, count: 1 },
        { allowed: true, count: 1 },
        { allowed: false, refusedBy: 'domain', domain: 'bigcorp.co.jp', authenticated: false, count: 1 },
      ],
    },
    {
      name: 'not per domain on shared mail domains, whose senders are strangers to each other',
      limits: { perSender: 20, perDomain: 1, total: 100 },
      runs: [['a@gmail.com', 't1'], ['b@gmail.com', 't2'], ['c@docomo.ne.jp', 't3'], ['d@docomo.ne.jp', 't4'], ['e@ab.auone-net.jp', 't5'], ['f@cd.auone-net.jp', 't6']],
      expected: Array.from({ length: 6 }, () => ({ allowed: true, count: 1 })),
    },
    {
      name: 'none from an organisation domain with a per-domain limit of 0, still from a shared mail domain',
      limits: { perSender: 20, perDomain: 0, total: 100 },
      runs: [['z@customer.example', 't1'], ['a@gmail.com', 't2']],
      expected: [
        { allowed: false, refusedBy: 'domain', domain: 'customer.example', authenticated: false, count: 0 },
        { allowed: true, count: 1 },
      ],
    },
    {
      name: 'everything with a negative limit',
      limits: { perSender: -1, perDomain: -1, total: -1 },
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
    const limits = { perSender: 1, perDomain: 100, total: 100 };
    expect(await recordAgentRun(redis, prefix, 'a@x.example', 't1', limits, T0)).toEqual({ allowed: true, count: 1 });
    expect(await recordAgentRun(redis, prefix, 'a@x.example', 't2', limits, T0 + AUTO_REPLY_WINDOW_MS - 1)).toMatchObject({ allowed: false });
    expect(await recordAgentRun(redis, prefix, 'a@x.example', 't2', limits, T0 + AUTO_REPLY_WINDOW_MS)).toEqual({ allowed: true, count: 1 });
  });

  it('refuses atomically once a limit is reached, even under concurrency', async () => {
    const prefix = freshPrefix();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => recordAgentRun(redis, prefix, 'burst@x.example', `t${i}`, { perSender: 3, perDomain: 100, total: 100 }, T0 + i)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(3);
    expect(await redis.zcard(agentRunTotalKey(prefix, 'unauthenticated'))).toBe(3);
  });

  it('refuses atomically once a domain window is full, even under concurrency, and spends nothing of the others', async () => {
    const prefix = freshPrefix();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => recordAgentRun(redis, prefix, `x${i}@flood.example`, `t${i}`, { perSender: 20, perDomain: 3, total: 100 }, T0 + i)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(3);
    expect(await redis.zcard(agentRunDomainKey(prefix, 'flood.example', 'unauthenticated'))).toBe(3);
    expect(await redis.zcard(agentRunTotalKey(prefix, 'unauthenticated'))).toBe(3);
    // A refused run holds no slot in the sender's window either.
    const refused = results.findIndex((r) => !r.allowed);
    expect(await redis.exists(agentRunKey(prefix, `x${refused}@flood.example`, 'unauthenticated'))).toBe(0);
  });

  it('frees a slot of a domain window an hour after the run it holds', async () => {
    const prefix = freshPrefix();
    const limits = { perSender: 20, perDomain: 1, total: 100 };
    expect(await recordAgentRun(redis, prefix, 'a@flood.example', 't1', limits, T0)).toEqual({ allowed: true, count: 1 });
    expect(await recordAgentRun(redis, prefix, 'b@flood.example', 't2', limits, T0 + AUTO_REPLY_WINDOW_MS - 1)).toMatchObject({ allowed: false, refusedBy: 'domain' });
    expect(await recordAgentRun(redis, prefix, 'b@flood.example', 't2', limits, T0 + AUTO_REPLY_WINDOW_MS)).toEqual({ allowed: true, count: 1 });
  });

  // Review 42a, F4: anyone can write a From at a company's domain, so forged runs must not spend the window of the
  // mail its receiving server authenticated.
  it("counts runs on authenticated and on unauthenticated mail of a domain apart: a forged flood parks only the unauthenticated", async () => {
    const prefix = freshPrefix();
    const limits = { perSender: 20, perDomain: 100, total: 1000 };
    for (let i = 0; i < 100; i++) {
      expect(await recordAgentRun(redis, prefix, { address: `x${i}@bigcustomer.co.jp`, authenticated: false }, `forged-${i}`, limits, T0 + i)).toMatchObject({ allowed: true });
    }
    const genuine = await recordAgentRun(redis, prefix, { address: 'tanaka@bigcustomer.co.jp', authenticated: true }, 'genuine-1', limits, T0 + 100);
    expect(genuine).toEqual({ allowed: true, count: 1 });
    // An address alone is a sender nothing vouched for.
    for (const sender of [{ address: 'sato@bigcustomer.co.jp', authenticated: false }, 'sato@mail.bigcustomer.co.jp']) {
      expect(await recordAgentRun(redis, prefix, sender, 'forged-101', limits, T0 + 101)).toEqual({
        allowed: false,
        refusedBy: 'domain',
        domain: 'bigcustomer.co.jp',
        authenticated: false,
        count: 100,
      });
    }
    expect(await redis.zcard(agentRunDomainKey(prefix, 'bigcustomer.co.jp', 'unauthenticated'))).toBe(100);
    expect(await redis.zrange(agentRunDomainKey(prefix, 'bigcustomer.co.jp', 'authenticated'), 0, -1)).toEqual(['genuine-1']);
    expect(agentRunDomainKey(prefix, 'bigcustomer.co.jp', 'authenticated')).not.toBe(agentRunDomainKey(prefix, 'bigcustomer.co.jp', 'unauthenticated'));
    expect(await redis.zcard(agentRunTotalKey(prefix, 'unauthenticated'))).toBe(100);
    expect(await redis.zrange(agentRunTotalKey(prefix, 'authenticated'), 0, -1)).toEqual(['genuine-1']);
  });

  it('refuses runs on authenticated mail of a domain past the same limit, naming that window', async () => {
    const prefix = freshPrefix();
    const limits = { perSender: 20, perDomain: 2, total: 100 };
    const vouched = (address: string) => ({ address, authenticated: true });
    expect(await recordAgentRun(redis, prefix, vouched('a@corp.example'), 't1', limits, T0)).toEqual({ allowed: true, count: 1 });
    expect(await recordAgentRun(redis, prefix, vouched('b@mail.corp.example'), 't2', limits, T0 + 1)).toEqual({ allowed: true, count: 1 });
    expect(await recordAgentRun(redis, prefix, vouched('c@corp.example'), 't3', limits, T0 + 2)).toEqual({
      allowed: false,
      refusedBy: 'domain',
      domain: 'corp.example',
      authenticated: true,
      count: 2,
    });
    // The same ticket again counts once; unauthenticated mail of the domain still has its own window.
    expect(await recordAgentRun(redis, prefix, vouched('a@corp.example'), 't1', limits, T0 + 3)).toEqual({ allowed: true, count: 1 });
    expect(await recordAgentRun(redis, prefix, 'd@corp.example', 't4', limits, T0 + 4)).toEqual({ allowed: true, count: 1 });
    // A shared mail domain has neither window, vouched or not.
    expect(await recordAgentRun(redis, prefix, vouched('e@gmail.com'), 't5', { perSender: 20, perDomain: 0, total: 100 }, T0 + 5)).toEqual({ allowed: true, count: 1 });
  });

  // Security review 12, F3: a shared mail provider's domain has no domain window and throwaway domains each have their
  // own, so strangers' forged or unauthenticated mail spent the one total, and every customer's mail was parked for the
  // rest of the hour. The total is split as the domain windows are.
  it('counts runs on authenticated and on unauthenticated mail apart in the total too: a flood of strangers cannot park an authenticated customer', async () => {
    const prefix = freshPrefix();
    const limits = { perSender: 20, perDomain: 100, total: 1000 }; // the defaults
    // A thousand made-up addresses at gmail.com (no domain window), then ten throwaway domains' worth.
    for (let i = 0; i < 1000; i++) {
      const address = i < 500 ? `flood${i}@gmail.com` : `x${i}@throwaway${i % 5}.example`;
      expect(await recordAgentRun(redis, prefix, { address, authenticated: false }, `flood-${i}`, limits, T0 + i)).toMatchObject({ allowed: true });
    }
    expect(await recordAgentRun(redis, prefix, 'flood1000@gmail.com', 'flood-1000', limits, T0 + 1000)).toEqual({
      allowed: false,
      refusedBy: 'total',
      authenticated: false,
      count: 1000,
    });
    // Mail the receiving server authenticated has a total of its own, at a shared provider's domain as at a company's.
    expect(await recordAgentRun(redis, prefix, { address: 'keiri@customer.example', authenticated: true }, 'genuine-1', limits, T0 + 1001)).toEqual({ allowed: true, count: 1 });
    expect(await recordAgentRun(redis, prefix, { address: 'taro@gmail.com', authenticated: true }, 'genuine-2', limits, T0 + 1002)).toEqual({ allowed: true, count: 1 });
    expect(await redis.zcard(agentRunTotalKey(prefix, 'unauthenticated'))).toBe(1000);
    expect(await redis.zrange(agentRunTotalKey(prefix, 'authenticated'), 0, -1)).toEqual(['genuine-1', 'genuine-2']);
    expect(agentRunTotalKey(prefix, 'authenticated')).not.toBe(agentRunTotalKey(prefix, 'unauthenticated'));
  });

  it('refuses runs on authenticated mail past the same total, naming that window; a run the total refuses takes no slot of the others', async () => {
    const prefix = freshPrefix();
    const limits = { perSender: 20, perDomain: 100, total: 2 };
    const vouched = (address: string) => ({ address, authenticated: true });
    expect(await recordAgentRun(redis, prefix, vouched('a@one.example'), 't1', limits, T0)).toEqual({ allowed: true, count: 1 });
    expect(await recordAgentRun(redis, prefix, vouched('b@two.example'), 't2', limits, T0 + 1)).toEqual({ allowed: true, count: 1 });
    expect(await recordAgentRun(redis, prefix, vouched('c@three.example'), 't3', limits, T0 + 2)).toEqual({ allowed: false, refusedBy: 'total', authenticated: true, count: 2 });
    expect(await redis.exists(agentRunKey(prefix, 'c@three.example', 'authenticated'), agentRunDomainKey(prefix, 'three.example', 'authenticated'))).toBe(0);
    // The same ticket again counts once; unauthenticated mail still has its own total.
    expect(await recordAgentRun(redis, prefix, vouched('a@one.example'), 't1', limits, T0 + 3)).toEqual({ allowed: true, count: 1 });
    expect(await recordAgentRun(redis, prefix, 'd@three.example', 't4', limits, T0 + 4)).toEqual({ allowed: true, count: 1 });
    expect(await redis.zcard(agentRunTotalKey(prefix, 'unauthenticated'))).toBe(1);
    // An hour after the first run, its slot is free again.
    expect(await recordAgentRun(redis, prefix, vouched('c@three.example'), 't3', limits, T0 + AUTO_REPLY_WINDOW_MS)).toEqual({ allowed: true, count: 1 });
  });

  it('records nothing for a ticket erased on request', async () => {
    const prefix = freshPrefix();
    await redis.sadd(erasedTicketsKey(prefix), 'gone');
    expect(await recordAgentRun(redis, prefix, 'a@x.example', 'gone', GENEROUS, T0)).toEqual({ allowed: false, erased: true, count: 0 });
    expect(await recordAgentRun(redis, prefix, { address: 'a@x.example', authenticated: true }, 'gone', GENEROUS, T0)).toEqual({ allowed: false, erased: true, count: 0 });
    const domainWindows = [agentRunDomainKey(prefix, 'x.example', 'authenticated'), agentRunDomainKey(prefix, 'x.example', 'unauthenticated')];
    const totalWindows = [agentRunTotalKey(prefix, 'authenticated'), agentRunTotalKey(prefix, 'unauthenticated')];
    const senderWindows = [agentRunKey(prefix, 'a@x.example', 'authenticated'), agentRunKey(prefix, 'a@x.example', 'unauthenticated')];
    expect(await redis.exists(...senderWindows, ...domainWindows, ...totalWindows)).toBe(0);
  });

  it('keeps its windows apart from the auto-reply ones, keyed by a digest, expiring when idle', async () => {
    const prefix = freshPrefix();
    await recordAgentRun(redis, prefix, 'idle@x.example', 't', GENEROUS);
    for (const window of ['authenticated', 'unauthenticated'] as const) {
      expect(agentRunKey(prefix, 'idle@x.example', window)).not.toBe(autoReplyKey(prefix, 'idle@x.example'));
      expect(agentRunKey(prefix, 'idle@x.example', window)).not.toContain('idle');
    }
    expect(agentRunKey(prefix, 'idle@x.example', 'authenticated')).not.toBe(agentRunKey(prefix, 'idle@x.example', 'unauthenticated'));
    expect(await redis.exists(autoReplyKey(prefix, 'idle@x.example'))).toBe(0);
    await recordAgentRun(redis, prefix, { address: 'idle2@x.example', authenticated: true }, 't2', GENEROUS);
    for (const window of ['authenticated', 'unauthenticated'] as const) expect(agentRunDomainKey(prefix, 'x.example', window)).not.toContain('x.example');
    const domainWindows = [agentRunDomainKey(prefix, 'x.example', 'authenticated'), agentRunDomainKey(prefix, 'x.example', 'unauthenticated')];
    await recordAgentRun(redis, prefix, { address: 'idle3@gmail.com', authenticated: true }, 't3', GENEROUS);
    const totalWindows = [agentRunTotalKey(prefix, 'authenticated'), agentRunTotalKey(prefix, 'unauthenticated')];
    const senderWindows = [agentRunKey(prefix, 'idle@x.example', 'unauthenticated'), agentRunKey(prefix, 'idle2@x.example', 'authenticated')];
    for (const key of [...senderWindows, ...domainWindows, ...totalWindows]) {
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(AUTO_REPLY_WINDOW_MS);
    }
  });

  it.each([
    ['a company address', 'Taro <taro@Mail.Customer.Example>', 'customer.example'],
    ['a company under a public suffix', 'a@tokyo.bigcorp.co.jp', 'bigcorp.co.jp'],
    ['an IDN domain, as punycode', 'info@例え.jp', 'xn--r8jz45g.jp'],
    ['free mail', 'someone@gmail.com', undefined],
    ["a phone carrier's domain", 'someone@docomo.ne.jp', undefined],
    ["a consumer ISP's per-region host", 'someone@ab.auone-net.jp', undefined],
    ['no address', '', undefined],
  ])('counts %s under the organisation domain %s', (_, from, domain) => {
    expect(agentRunDomainOf(from)).toBe(domain);
  });
});
