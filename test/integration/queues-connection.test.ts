import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { captureLogger, WARN } from '../support/capture-logger.js';
import {
  RedisUnavailableError,
  checkEvictionPolicy,
  connectProducer,
  createWorkerConnection,
  produce,
} from '../../src/queues/connection.js';
import { closeAll, createQueueWorker, createQueues, type Closable } from '../../src/queues/registry.js';
import { freePort } from '../../src/dev/ports.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';

const TICKET = 'd'.repeat(64);

let servers: RedisServer[] = [];
let closables: Closable[] = [];

afterEach(async () => {
  await closeAll(...closables.reverse()).catch(() => undefined);
  closables = [];
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});

async function redisServer(options: Parameters<typeof startRedis>[0] = {}): Promise<RedisServer> {
  const server = await startRedis(options);
  servers.push(server);
  return server;
}

function keep<T extends Closable>(item: T): T {
  closables.push(item);
  return item;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('checkEvictionPolicy', () => {
  it('warns when Redis may evict keys', async () => {
    const server = await redisServer({ maxmemoryPolicy: 'allkeys-lru' });
    const redis = keep(await connectProducer(server.url));
    const { logger, lines } = captureLogger();
    expect(await checkEvictionPolicy(redis, logger)).toBe('allkeys-lru');
    const warning = lines.find((l) => l.level === WARN);
    expect(warning?.msg).toMatch(/maxmemory-policy is allkeys-lru; it must be noeviction/);
    expect(warning?.maxmemoryPolicy).toBe('allkeys-lru');
  });

  it('is quiet with noeviction', async () => {
    // appendfsync always: the test Redis skips fsync for speed, which the same start-up check warns of.
    const server = await redisServer({ appendfsync: 'always' });
    const redis = keep(await connectProducer(server.url));
    const { logger, lines } = captureLogger();
    expect(await checkEvictionPolicy(redis, logger)).toBe('noeviction');
    expect(lines.filter((l) => l.level >= WARN)).toEqual([]);
  });

  it('falls back to INFO when CONFIG is disabled', async () => {
    const server = await redisServer({ maxmemoryPolicy: 'volatile-lru', extraArgs: ['--rename-command', 'CONFIG', '""'] });
    const redis = keep(await connectProducer(server.url));
    await expect(redis.call('CONFIG', 'GET', 'maxmemory-policy')).rejects.toThrow(/unknown command/i);
    const { logger, lines } = captureLogger();
    expect(await checkEvictionPolicy(redis, logger)).toBe('volatile-lru');
    expect(lines.some((l) => l.level === WARN && /volatile-lru/.test(l.msg))).toBe(true);
  });

  it('does not blame the policy when Redis refuses the password, and checks it once the password is right', async () => {
    const server = await redisServer({ maxmemoryPolicy: 'allkeys-lru' });
    // Logged in before requirepass is set, so it stays usable to change the password later.
    const admin = keep(new Redis(server.url));
    await admin.config('SET', 'requirepass', 'the-right-one');
    const { logger, lines } = captureLogger();
    const url = new URL(server.url);
    url.password = 'Sup3rSecretTypo';
    const connection = keep(createWorkerConnection(url.toString(), { logger }));

    expect(await checkEvictionPolicy(connection, logger)).toBeUndefined();
    // The retry warning says why and what to do; nothing sends the admin after the eviction policy.
    await until(() => lines.some((l) => l.level === WARN && /^Redis unreachable at redis:\/\/\*\*\*@127\.0\.0\.1:\d+, retrying in \d+ ms: WRONGPASS .* — check the password in REDIS_URL$/.test(l.msg)));
    expect(lines.filter((l) => l.level === WARN && /maxmemory-policy/.test(l.msg))).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain('Sup3rSecretTypo');

    // The admin fixes the password: the connection gets in at its next attempt, and the policy is checked then.
    await admin.config('SET', 'requirepass', 'Sup3rSecretTypo');
    await until(() => lines.some((l) => l.level === WARN && /maxmemory-policy is allkeys-lru; it must be noeviction/.test(l.msg)));
    expect(lines.some((l) => /Could not read the Redis maxmemory-policy/.test(l.msg))).toBe(false);
  });
});

describe('producer connection', () => {
  it('fails fast with a clear, password-free error when Redis is down at startup', async () => {
    const port = await freePort();
    const started = Date.now();
    const error = await connectProducer(`redis://:s3cret@127.0.0.1:${port}`, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect((error as Error).message).toContain(`Redis unavailable at redis://***@127.0.0.1:${port}`);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('for a command-line tool, gives up at the first connection error instead of waiting out the timeout', async () => {
    const port = await freePort();
    const started = Date.now();
    const error = await connectProducer(`redis://127.0.0.1:${port}`, { timeoutMs: 30_000, giveUpOnError: true }).catch((e: unknown) => e);
    // Well under the 30 s timeout even on a loaded machine: the refusal is the answer.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });

  it('fails an add fast while Redis is down and recovers when it is back', async () => {
    const server = await redisServer();
    const producer = keep(await connectProducer(server.url));
    const prefix = `test-${randomUUID()}`;
    const queues = createQueues(producer, prefix);
    closables.splice(closables.indexOf(producer), 0, queues);
    await queues.tickets.add('answer-ticket', { ticketId: TICKET }, { jobId: 'before' });

    await server.kill();
    const started = Date.now();
    const error = await produce(producer, () => queues.tickets.add('answer-ticket', { ticketId: TICKET }, { jobId: 'during' })).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect((error as Error).message).toContain(`Redis unavailable at redis://127.0.0.1:${server.port}`);

    await server.start();
    await until(() => producer.status === 'ready');
    await produce(producer, () => queues.tickets.add('answer-ticket', { ticketId: TICKET }, { jobId: 'after' }));
    // AOF kept the job added before the crash.
    expect((await queues.tickets.getJobs(['waiting'])).map((j) => j.id).sort()).toEqual(['after', 'before']);
  });

  it('refuses to create queues on a fail-fast connection that is not ready', async () => {
    const server = await redisServer();
    const producer = keep(await connectProducer(server.url));
    await server.kill();
    await until(() => producer.status !== 'ready');
    expect(() => createQueues(producer, 'test-unready')).toThrow(/waitForReady/);
  });
});

describe('worker connection', () => {
  it('rides out a Redis restart: logs the masked retry and processes jobs afterwards', async () => {
    const server = await redisServer();
    const { logger, lines } = captureLogger();
    const connection: Redis = keep(createWorkerConnection(server.url, { logger, name: 'test-worker' }));
    const prefix = `test-${randomUUID()}`;
    const processed: string[] = [];
    const worker = createQueueWorker({
      queueName: 'outbound',
      connection,
      prefix,
      logger,
      handlers: {
        'send-reply': async (job: Job) => {
          processed.push(job.id as string);
        },
      },
    });
    closables.unshift(worker);
    const producer = keep(await connectProducer(server.url));
    const queues = createQueues(producer, prefix);
    closables.splice(closables.indexOf(producer), 0, queues);

    await queues.outbound.add('send-reply', { ticketId: TICKET }, { jobId: 'one' });
    await until(() => processed.includes('one'));

    await server.kill();
    await until(() => lines.some((l) => /Redis unreachable at redis:\/\/127\.0\.0\.1:\d+, retrying in \d+ ms/.test(l.msg)));
    // Down, not misconfigured: the warning says what to do about it.
    await until(() => lines.some((l) => /retrying in \d+ ms: connect ECONNREFUSED .* — start Redis or check REDIS_URL$/.test(l.msg)));
    await server.start();
    await until(() => producer.status === 'ready');
    await queues.outbound.add('send-reply', { ticketId: TICKET }, { jobId: 'two' });
    await until(() => processed.includes('two'), 25_000);
    expect(worker.isRunning()).toBe(true);
  });
});
