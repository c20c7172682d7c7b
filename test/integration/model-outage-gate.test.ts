/**
 * The agent workers' shared view of a model outage (ModelOutageGate) on a real redis-server: when the pause doubles,
 * that a run held back after the outage ended does not start it again, that no pause outlives its outage, and that the
 * outage's start is kept for the window of every ticket.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { ModelOutageGate } from '../../src/runtime/agent-worker.js';

const WHAT = 'the model server at http://127.0.0.1:1/v1 (OPENAI_BASE_URL) failed (503)';

let server: RedisServer;
let redis: Redis;
let n = 0;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** A gate on a fresh prefix: pauses of 300 ms doubling to 2.4 s. */
function gate(): { gate: ModelOutageGate; prefix: string } {
  const prefix = `gate-${process.pid}-${++n}`;
  return { gate: new ModelOutageGate(redis, prefix, { modelOutagePauseMs: 300, modelOutageMaxPauseMs: 2_400 }, 1_000), prefix };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ModelOutageGate', () => {
  it('doubles the pause only for a try taken once the pause had run its course', async () => {
    const { gate: g } = gate();
    expect(await g.failed('first', WHAT, false)).toBe(300);
    // A run fetched before the pause takes the try at once: its failure tells nothing new.
    expect(await g.hold('early')).toBeUndefined();
    expect(await g.failed('early', WHAT, false)).toBe(300);
    // Held runs keep the pause.
    expect(await g.hold('held')).toBe(WHAT);
    expect(await g.failed('held', WHAT, true)).toBe(300);
    await g.release('early');

    await sleep(350);
    expect(await g.hold('after-1')).toBeUndefined();
    expect(await g.failed('after-1', WHAT, false)).toBe(600);
    await g.release('after-1');
    // Again at once: kept.
    expect(await g.hold('early-2')).toBeUndefined();
    expect(await g.failed('early-2', WHAT, false)).toBe(600);
    await g.release('early-2');

    await sleep(650);
    expect(await g.hold('after-2')).toBeUndefined();
    expect(await g.failed('after-2', WHAT, false)).toBe(1_200);
  });

  it('starts no outage for a run held back before the model answered another ticket', async () => {
    const { gate: g, prefix } = gate();
    const queue = new Queue('tickets', { connection: redis.duplicate(), prefix });
    try {
      expect(await g.failed('first', WHAT, false)).toBe(300);
      expect(await g.hold('probe')).toBeUndefined();
      expect(await g.hold('held')).toBe(WHAT);
      // The try answers: the outage is over before the held run reports.
      expect(await g.answered(queue)).toBe(true);
      expect(await g.failed('held', WHAT, true)).toBe(0);
      expect(await g.hold('next')).toBeUndefined();
      expect(await redis.keys(`${prefix}:agent:*`)).toEqual([]);
      // A run whose own request fails starts one.
      expect(await g.failed('next', WHAT, false)).toBe(300);
      expect(await g.hold('probe-2')).toBeUndefined();
      expect(await g.hold('other')).toBe(WHAT);
    } finally {
      await queue.close();
      await (queue.opts.connection as Redis).quit?.();
    }
  });

  // Bug review 43c: a held run got its pause from failed(), the probe's answered() ended the outage, then the held run
  // set the pause: every worker stood still for a whole pause with no outage left. The order replayed by hand.
  it('lifts a pause set after the model answered another ticket', async () => {
    const { gate: g, prefix } = gate();
    const queue = new Queue('tickets', { connection: redis.duplicate(), prefix });
    try {
      expect(await g.failed('first', WHAT, false)).toBe(300);
      expect(await g.hold('probe')).toBeUndefined();
      expect(await g.hold('held')).toBe(WHAT);
      const pause = await g.failed('held', WHAT, true);
      expect(pause).toBe(300);
      expect(await g.answered(queue)).toBe(true);
      // The held run's next step.
      expect(await g.pause(queue, pause)).toBe(false);
      expect(await queue.getRateLimitTtl()).toBeLessThanOrEqual(0);
      expect(await redis.keys(`${prefix}:agent:*`)).toEqual([]);

      // While the outage lasts the pause stands.
      expect(await g.failed('next', WHAT, false)).toBe(300);
      expect(await g.pause(queue, 300)).toBe(true);
      expect(await queue.getRateLimitTtl()).toBeGreaterThan(0);
    } finally {
      await queue.close();
      await (queue.opts.connection as Redis).quit?.();
    }
  });

  it("keeps the outage's start from its first failure until the model answers", async () => {
    const { gate: g, prefix } = gate();
    const queue = new Queue('tickets', { connection: redis.duplicate(), prefix });
    try {
      expect(await g.since()).toBeUndefined();
      const before = Date.now();
      await g.failed('first', WHAT, false);
      const since = await g.since();
      // Redis's clock, on this machine the same as ours.
      expect(since).toBeGreaterThanOrEqual(before - 50);
      expect(since).toBeLessThanOrEqual(Date.now() + 50);
      await sleep(350);
      expect(await g.hold('later')).toBeUndefined();
      expect(await g.failed('later', WHAT, false)).toBe(600);
      await g.stillFailing();
      expect(await g.since()).toBe(since);
      await g.answered(queue);
      expect(await g.since()).toBeUndefined();
      // Kept alive only while it exists: a failure after the window starts no outage.
      await g.stillFailing();
      expect(await redis.keys(`${prefix}:agent:*`)).toEqual([]);
    } finally {
      await queue.close();
      await (queue.opts.connection as Redis).quit?.();
    }
  });
});
