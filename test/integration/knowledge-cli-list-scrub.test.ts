/**
 * `npm run knowledge -- list`, spawned against a real redis-server: each candidate says under its line what the scrub
 * replaced or removed (personal data, the question's links, invisible characters) and how the model's pass went, as
 * the Knowledge page does.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { LearnedAnswerStore } from '../../src/knowledge/learned-answers.js';
import type { ScrubSummary } from '../../src/knowledge/learned-candidates.js';
import { connectProducer } from '../../src/queues/connection.js';
import { removePrefix, runNpm } from '../support/pipeline.js';

let redisServer: RedisServer;
let redis: Redis;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  redisServer = await startRedis();
  redis = await connectProducer(redisServer.url);
  dir = await mkdtemp(path.join(tmpdir(), 'knowledge-list-'));
  env = { REDIS_URL: redisServer.url, QUEUE_PREFIX: `klist${randomUUID().replaceAll('-', '').slice(0, 12)}`, LOG_LEVEL: 'silent', DATA_DIR: dir };
});
afterAll(async () => {
  if (redisServer) await removePrefix(redisServer.url, env.QUEUE_PREFIX!);
  redis?.disconnect();
  await redisServer?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// [ticket, scrub, the line under the candidate's]
const CASES: [string, ScrubSummary, string][] = [
  ['a'.repeat(64), { replaced: 0, modelPass: 'off' }, 'scrubbed: personal data 0, links 0, invisible characters 0; model pass off'],
  ['b'.repeat(64), { replaced: 2, modelPass: 'done', linksReplaced: 3, invisibleRemoved: 5 }, 'scrubbed: personal data 2, links 3, invisible characters 5; model pass done'],
  ['c'.repeat(64), { replaced: 1, modelPass: 'failed', modelError: 'timeout', linksReplaced: 1 }, 'scrubbed: personal data 1, links 1, invisible characters 0; model pass failed (timeout)'],
];

describe('npm run knowledge -- list', () => {
  it('shows each candidate\'s scrub counts, the links replaced in its question among them', async () => {
    const learned = new LearnedAnswerStore(redis, { prefix: env.QUEUE_PREFIX! });
    for (const [ticket, scrub] of CASES) await learned.propose(ticket, [{ question: `質問 ${ticket.slice(0, 1)}`, answer: '回答です。', origin: 'rules', scrub }]);
    const list = await runNpm(['run', 'knowledge', '--', 'list'], env, 60_000);
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.split('\n');
    for (const [ticket, , expected] of CASES) {
      const at = lines.findIndex((l) => l.includes(`ticket ${ticket.slice(0, 12)}`));
      expect(at, ticket).toBeGreaterThan(0);
      expect(lines[at + 1]!.trim(), ticket).toBe(expected);
    }
  }, 120_000);
});
