import { randomUUID } from 'node:crypto';
import { Queue, UnrecoverableError, type Job, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createWorkerConnection } from '../../src/queues/connection.js';
import { DEFAULT_TUNING, answerTicketJob, reindexJob } from '../../src/queues/job-options.js';
import { HandlerRegistrationError, closeAll, createQueueWorker, createQueues, type FailureInfo, type Queues } from '../../src/queues/registry.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';

const logger = pino({ level: 'silent' });
const TICKET = 'c'.repeat(64);

let server: RedisServer;
let connection: Redis;
let cleanup: (() => Promise<void>)[] = [];

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

/** Fresh queues under a fresh prefix, obliterated after the test as BullMQ's own tests do. */
function freshQueues(): { prefix: string; queues: Queues } {
  const prefix = `test-${randomUUID()}`;
  const queues = createQueues(connection, prefix);
  cleanup.push(async () => {
    for (const q of [queues.tickets, queues.outbound, queues.maintenance]) await q.obliterate({ force: true });
    await closeAll(queues);
  });
  return { prefix, queues };
}

function track(worker: Worker): Worker {
  cleanup.push(() => worker.close());
  return worker;
}

/** Resolves with what `register`'s listener passes to `resolve`, or rejects after `timeoutMs`. */
function waitFor<T>(register: (resolve: (v: T) => void) => void, timeoutMs = 15_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
    register((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });
}

describe('named worker', () => {
  it('routes each job name to its handler with validated data', async () => {
    const { prefix, queues } = freshQueues();
    const calls: string[] = [];
    const done: string[] = [];
    const worker = track(
      createQueueWorker({
        queueName: 'maintenance',
        connection,
        prefix,
        logger,
        concurrency: 2,
        handlers: {
          'reindex-manual': async (job, data) => {
            calls.push(`${job.name}:${data.trigger}:${JSON.stringify(data)}`);
            return { chunks: 12 };
          },
          'reindex-qa': async (job, data) => {
            calls.push(`${job.name}:${data.trigger}:${JSON.stringify(data)}`);
            return { pairs: 3 };
          },
          retention: async () => ({ ticketsArchived: 0 }),
        },
      }),
    );
    const finished = waitFor<void>((resolve) =>
      worker.on('completed', (job) => {
        done.push(job.name);
        if (done.length === 2) resolve();
      }),
    );
    const a = reindexJob('reindex-manual', { trigger: 'cli' });
    const b = reindexJob('reindex-qa', { trigger: 'manual' });
    // A directory in the data (a hand-made job) is stripped before the handler sees it.
    const jobA = await queues.maintenance.add(a.name, { ...a.data, dir: '/srv/manuals' } as typeof a.data, a.opts);
    const jobB = await queues.maintenance.add(b.name, b.data, b.opts);
    await finished;
    expect(calls.sort()).toEqual(['reindex-manual:cli:{"trigger":"cli"}', 'reindex-qa:manual:{"trigger":"manual"}']);
    expect((await queues.maintenance.getJob(jobA.id as string))?.returnvalue).toEqual({ chunks: 12 });
    expect((await queues.maintenance.getJob(jobB.id as string))?.returnvalue).toEqual({ pairs: 3 });
  });

  it('fails an unknown job name at once, without retries', async () => {
    const { prefix } = freshQueues();
    // A producer that does not know our names (e.g. an older release) adds a job nobody handles.
    const raw = new Queue('maintenance', { connection, prefix });
    cleanup.push(() => raw.close());
    const failures: [string | undefined, FailureInfo][] = [];
    const worker = track(
      createQueueWorker({
        queueName: 'maintenance',
        connection,
        prefix,
        logger,
        handlers: { 'reindex-manual': async () => 'ok', 'reindex-qa': async () => 'ok', retention: async () => 'ok' },
        onFailed: (job, _err, info) => void failures.push([job?.name, info]),
      }),
    );
    const failed = waitFor<Job>((resolve) => worker.on('failed', (job) => job && resolve(job)));
    await raw.add('park-ticket', { ticketId: TICKET }, { attempts: 5, backoff: { type: 'fixed', delay: 10 } });
    const job = await failed;
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toContain("No handler for job 'park-ticket'");
    expect(await job.getState()).toBe('failed');
    expect(failures).toEqual([['park-ticket', { final: true }]]);
  });

  it('fails invalid data at once with UnrecoverableError', async () => {
    const { prefix, queues } = freshQueues();
    let called = false;
    const worker = track(
      createQueueWorker({
        queueName: 'tickets',
        connection,
        prefix,
        logger,
        handlers: {
          'answer-ticket': async () => {
            called = true;
          },
          'propose-learned-answer': async () => {},
        },
      }),
    );
    const failed = waitFor<[Job, Error]>((resolve) => worker.on('failed', (job, err) => job && resolve([job, err])));
    await queues.tickets.add('answer-ticket', { ticketId: 'not-a-ticket' }, { attempts: 3 });
    const [job, err] = await failed;
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/Invalid data for job 'answer-ticket'.*ticketId/);
    expect(called).toBe(false);
  });

  it('retries a thrown Error with exponential backoff up to the attempts, then fails for good', async () => {
    const { prefix, queues } = freshQueues();
    const startedAt: number[] = [];
    const infos: FailureInfo[] = [];
    const worker = track(
      createQueueWorker({
        queueName: 'tickets',
        connection,
        prefix,
        logger,
        handlers: {
          'answer-ticket': async (_job, data) => {
            startedAt.push(Date.now());
            throw new Error(`search backend down for ${data.ticketId.slice(0, 4)}`);
          },
          'propose-learned-answer': async () => {},
        },
        onFailed: (_job, _err, info) => void infos.push(info),
      }),
    );
    const finalFailure = waitFor<Job>((resolve) =>
      worker.on('failed', (job) => {
        if (job && job.attemptsMade >= 3) resolve(job);
      }),
    );
    const config = parseConfig({ AGENT_ATTEMPTS: '3' });
    const spec = answerTicketJob(config, TICKET, 1, { ...DEFAULT_TUNING, answerBackoffMs: 200, jitter: 0 });
    await queues.tickets.add(spec.name, spec.data, spec.opts);
    const job = await finalFailure;
    expect(job.attemptsMade).toBe(3);
    expect(job.failedReason).toBe('search backend down for cccc');
    expect(await job.getState()).toBe('failed');
    expect(startedAt).toHaveLength(3);
    // Exponential: ≥ 200 ms before the 2nd attempt, ≥ 400 ms before the 3rd.
    expect((startedAt[1] as number) - (startedAt[0] as number)).toBeGreaterThanOrEqual(190);
    expect((startedAt[2] as number) - (startedAt[1] as number)).toBeGreaterThanOrEqual(390);
    expect(infos).toEqual([{ final: false }, { final: false }, { final: true }]);
  });

  it('deduplicates the same ticket enqueued twice through the deterministic job id', async () => {
    const { queues } = freshQueues();
    const config = parseConfig({});
    const spec = answerTicketJob(config, TICKET, 1);
    const first = await queues.tickets.add(spec.name, spec.data, spec.opts);
    const second = await queues.tickets.add(spec.name, spec.data, spec.opts);
    expect(second.id).toBe(first.id);
    expect(await queues.tickets.getJobCounts('waiting', 'delayed', 'active')).toEqual({ waiting: 1, delayed: 0, active: 0 });
    const nextRound = answerTicketJob(config, TICKET, 4);
    await queues.tickets.add(nextRound.name, nextRound.data, nextRound.opts);
    expect((await queues.tickets.getJobCounts('waiting')).waiting).toBe(2);
  });

  it('refuses to start with an incomplete handler map', () => {
    expect(() =>
      createQueueWorker({
        queueName: 'maintenance',
        connection,
        prefix: 'unused',
        logger,
        handlers: { 'reindex-manual': async () => undefined } as never,
      }),
    ).toThrow(HandlerRegistrationError);
  });

  it('keeps a listener error from reaching BullMQ', async () => {
    const { prefix, queues } = freshQueues();
    const worker = track(
      createQueueWorker({
        queueName: 'outbound',
        connection,
        prefix,
        logger,
        handlers: { 'send-reply': async () => 'sent' },
        onCompleted: () => {
          throw new Error('metrics exploded');
        },
      }),
    );
    const completed = waitFor<Job>((resolve) => worker.on('completed', (job) => resolve(job)));
    await queues.outbound.add('send-reply', { ticketId: TICKET });
    expect((await completed).returnvalue).toBe('sent');
    expect(worker.isRunning()).toBe(true);
    expect(worker.listenerCount('error')).toBeGreaterThan(0);
  });
});
