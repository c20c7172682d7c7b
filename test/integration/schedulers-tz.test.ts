/**
 * The cron schedules of the maintenance queue when more than one scheduler process registers them, against a real
 * redis-server: each schedule carries the time zone of the process that registered it, so its next run is the same
 * whichever process (in whatever zone) computes it after a run; and a start that replaces a schedule some other
 * process left in Redis with different settings says so in a warning naming both.
 *
 * Two "processes" are two registrations with different settings on the same queue; the time zone is passed
 * explicitly, as each process would pass its own.
 */
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { createWorkerConnection } from '../../src/queues/connection.js';
import { closeAll } from '../../src/queues/registry.js';
import { processTimeZone, registerReindexSchedulers, registerRetentionScheduler } from '../../src/queues/schedulers.js';

const HOUR_MS = 3_600_000;

let server: RedisServer;
let connection: Redis;
let cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await startRedis();
  connection = createWorkerConnection(server.url);
});

afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

afterAll(async () => {
  await closeAll(connection);
  await server?.stop();
});

/** A maintenance queue under a fresh prefix, obliterated after the test. */
function freshQueue(): { queue: Queue; prefix: string } {
  const prefix = `sched-tz-${randomUUID()}`;
  const queue = new Queue('maintenance', { connection, prefix });
  cleanup.push(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });
  return { queue, prefix };
}

/** A logger whose warnings the test reads, as parsed JSON lines. */
function capturingLogger(): { logger: pino.Logger; warnings: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
  return { logger, warnings: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 40) };
}

/**
 * A zone with a fixed offset from UTC (no daylight saving) that is not this process's, so a schedule computed in
 * this process's zone would land on another hour: Tokyo (+9), or Kolkata (+5:30) where Tokyo is local.
 */
const ZONE = new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset() === -540 ? { name: 'Asia/Kolkata', utcHour: 21, utcMinute: 30 } : { name: 'Asia/Tokyo', utcHour: 18, utcMinute: 0 };

describe('schedules carry the time zone of the process that registered them', () => {
  it('stores the zone with the schedule, and a run processed in another zone schedules the next one in it', async () => {
    const { queue, prefix } = freshQueue();
    const { logger } = capturingLogger();
    const before = Date.now();
    const { registered } = await registerReindexSchedulers(queue, { REINDEX_MANUAL_CRON: '0 3 * * *', REINDEX_QA_CRON: '' }, undefined, {
      timeZone: ZONE.name,
      logger,
    });

    expect(registered).toEqual([{ id: 'reindex-manual', pattern: '0 3 * * *', timeZone: ZONE.name, next: expect.any(Number) }]);
    const stored = await queue.getJobScheduler('reindex-manual');
    expect(stored?.tz).toBe(ZONE.name);
    // 03:00 in that zone, within the next day.
    const next = new Date(stored!.next!);
    expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([ZONE.utcHour, ZONE.utcMinute]);
    expect(next.getTime() - before).toBeLessThanOrEqual(24 * HOUR_MS);

    // Run the pending job now, in this process (another zone): the worker computes the next run from the job's own
    // repeat options, so without the zone in them it would be 03:00 of this process's zone.
    const [pending] = await queue.getDelayed();
    // BullMQ keeps the scheduler's repeat options on each job it produces, though its types leave them out.
    expect((pending?.opts as { repeat?: { tz?: string } } | undefined)?.repeat?.tz).toBe(ZONE.name);
    const workerConnection = createWorkerConnection(server.url);
    const worker = new Worker('maintenance', async () => 'done', { connection: workerConnection, prefix });
    cleanup.push(() => closeAll(worker, workerConnection));
    const ran = new Promise<void>((resolve) => worker.once('completed', () => resolve()));
    await pending!.promote();
    await ran;

    const following = (await queue.getDelayed()).filter((j) => j.name === 'reindex-manual');
    expect(following).toHaveLength(1);
    const followingAt = new Date(following[0]!.timestamp + (following[0]!.opts.delay ?? 0));
    expect([followingAt.getUTCHours(), followingAt.getUTCMinutes()]).toEqual([ZONE.utcHour, ZONE.utcMinute]);
    expect(followingAt.getTime() - next.getTime()).toBe(24 * HOUR_MS);
  });

  it("uses this process's own IANA zone by default, for the reindex and retention schedules alike", async () => {
    const { queue } = freshQueue();
    const { logger } = capturingLogger();
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(processTimeZone()).toBe(zone);

    await registerReindexSchedulers(queue, { REINDEX_MANUAL_CRON: '0 3 * * *', REINDEX_QA_CRON: '30 3 * * *' }, undefined, { logger });
    const retention = await registerRetentionScheduler(queue, { RETENTION_CRON: '15 4 * * *' }, undefined, { logger });

    expect(retention).toEqual({ id: 'retention', pattern: '15 4 * * *', timeZone: zone, next: expect.any(Number) });
    for (const id of ['reindex-manual', 'reindex-qa', 'retention']) expect((await queue.getJobScheduler(id))?.tz).toBe(zone);
  });
});

describe('a start that replaces another process’s schedule', () => {
  it('warns naming the schedule in Redis and this process’s, then replaces it (the last start wins)', async () => {
    const { queue } = freshQueue();
    const hostA = capturingLogger();
    const hostB = capturingLogger();
    const settingsA = { REINDEX_MANUAL_CRON: '0 3 * * *', REINDEX_QA_CRON: '30 3 * * *' };
    const settingsB = { REINDEX_MANUAL_CRON: '0 3 * * *', REINDEX_QA_CRON: '45 2 * * *' };

    await registerReindexSchedulers(queue, settingsA, undefined, { timeZone: 'Asia/Tokyo', logger: hostA.logger });
    // The same settings again (a restart of A) change nothing and say nothing.
    await registerReindexSchedulers(queue, settingsA, undefined, { timeZone: 'Asia/Tokyo', logger: hostA.logger });
    expect(hostA.warnings()).toEqual([]);

    const registration = await registerReindexSchedulers(queue, settingsB, undefined, { timeZone: 'UTC', logger: hostB.logger });
    expect(registration.replaced).toEqual([
      { id: 'reindex-manual', variable: 'REINDEX_MANUAL_CRON', inRedis: { pattern: '0 3 * * *', timeZone: 'Asia/Tokyo' }, thisProcess: { pattern: '0 3 * * *', timeZone: 'UTC' } },
      { id: 'reindex-qa', variable: 'REINDEX_QA_CRON', inRedis: { pattern: '30 3 * * *', timeZone: 'Asia/Tokyo' }, thisProcess: { pattern: '45 2 * * *', timeZone: 'UTC' } },
    ]);
    const warnings = hostB.warnings();
    expect(warnings).toHaveLength(2);
    expect(warnings[0]!.msg).toContain('"0 3 * * *" in Asia/Tokyo');
    expect(warnings[0]!.msg).toContain('"0 3 * * *" in UTC');
    expect(warnings[1]!.msg).toContain('"30 3 * * *" in Asia/Tokyo');
    expect(warnings[1]!.msg).toContain('"45 2 * * *" in UTC');
    expect(warnings[1]!.msg).toContain('REINDEX_QA_CRON');
    expect(warnings[1]!.msg).toContain('TZ');

    // The last start wins: B's settings are in Redis now.
    expect((await queue.getJobScheduler('reindex-qa'))?.pattern).toBe('45 2 * * *');
    expect((await queue.getJobScheduler('reindex-qa'))?.tz).toBe('UTC');
  });

  it('warns when it removes a schedule another process enabled, and when a schedule in Redis has no zone', async () => {
    const { queue } = freshQueue();
    const hostA = capturingLogger();
    const hostB = capturingLogger();

    // B (defaults) enables retention; A, with RETENTION_CRON empty, starts later and removes it.
    await registerRetentionScheduler(queue, { RETENTION_CRON: '15 4 * * *' }, undefined, { timeZone: 'UTC', logger: hostB.logger });
    expect(await registerRetentionScheduler(queue, { RETENTION_CRON: '' }, undefined, { timeZone: 'Asia/Tokyo', logger: hostA.logger })).toBeUndefined();
    expect(await queue.getJobScheduler('retention')).toBeUndefined();
    const [removal] = hostA.warnings();
    expect(removal?.msg).toContain('"15 4 * * *" in UTC');
    expect(removal?.msg).toContain('RETENTION_CRON is empty');

    // A schedule registered without a zone (as earlier versions did) is computed in whichever process's zone.
    await queue.upsertJobScheduler('retention', { pattern: '15 4 * * *' }, { name: 'retention', data: { trigger: 'schedule' } });
    const registered = await registerRetentionScheduler(queue, { RETENTION_CRON: '15 4 * * *' }, undefined, { timeZone: 'Asia/Tokyo', logger: hostA.logger });
    expect(registered?.timeZone).toBe('Asia/Tokyo');
    const [, noZone] = hostA.warnings();
    expect(noZone?.msg).toContain('no time zone');
    expect(noZone?.msg).toContain('"15 4 * * *" in Asia/Tokyo');
  });
});
