/**
 * What the product's log lines say of a real ioredis error: with a wrong password in REDIS_URL, ioredis attaches the
 * AUTH command (the password as its argument) to the error, and the workers log such errors whole.
 */
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { loggerOptions } from '../../src/logger.js';

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
  const admin = new Redis(server.url);
  await admin.config('SET', 'requirepass', 'the-right-one');
  admin.disconnect();
});
afterAll(async () => {
  await server?.stop();
});

describe('log lines', () => {
  it('never carry the Redis password of a failed AUTH', async () => {
    const url = new URL(server.url);
    url.password = 'Sup3rSecretTypo';
    // What the workers' error listeners receive.
    const client = new Redis(url.toString(), { maxRetriesPerRequest: 0, retryStrategy: () => null });
    const err = await new Promise<Error>((resolve) => client.once('error', resolve));
    client.on('error', () => undefined);
    client.disconnect();
    expect(err).toBeInstanceOf(Error);
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
    // Logged by pino as it comes, the error shows the password.
    pino({ level: 'debug' }, sink).error({ err }, 'Worker error');
    expect(lines.join('')).toContain('Sup3rSecretTypo');
    lines.length = 0;

    const log = pino(loggerOptions('debug'), sink);
    log.error({ err }, 'Worker error');
    log.error({ jobId: '1', err: new Error('job failed', { cause: err }) }, 'Job failed');
    log.warn(err, 'plain');
    // pino writes the errors of an AggregateError (Promise.any, a connect to several addresses) and an error held in
    // another field out in full, the command's arguments included.
    log.error({ err: new AggregateError([err], 'every attempt failed') }, 'Aggregate');
    log.error({ err: Object.assign(new Error('step failed'), { redisError: err }) }, 'Nested');
    expect(lines).toHaveLength(5);
    expect(lines.join('')).not.toContain('Sup3rSecretTypo');
    expect(lines[0]).toContain('WRONGPASS');
  });
});
