/**
 * `npm run knowledge` and a candidate whose answer holds a placeholder of the personal-data scrub (first-ten-minutes
 * finding 2): `accept` printed only "accepted learned#1 (by root); it is searchable now", and the next customer's reply
 * carried "[氏名]様" as written. `accept` prints the answer it stored and warns with the command that undoes it;
 * `show` warns before, with the real `edit` command. Spawned against a real redis-server.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { LearnedAnswerStore, type LearnedCandidate } from '../../src/knowledge/learned-answers.js';
import { connectProducer } from '../../src/queues/connection.js';
import { removePrefix, runNpm } from '../support/pipeline.js';

let redisServer: RedisServer;
let redis: Redis;
let dir: string;
let env: Record<string, string>;
let learned: LearnedAnswerStore;

beforeAll(async () => {
  redisServer = await startRedis();
  redis = await connectProducer(redisServer.url);
  dir = await mkdtemp(path.join(tmpdir(), 'knowledge-cli-ph-'));
  const prefix = `kcph${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  env = { REDIS_URL: redisServer.url, QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', DATA_DIR: dir };
  learned = new LearnedAnswerStore(redis, { prefix });
});
afterAll(async () => {
  if (redisServer) await removePrefix(redisServer.url, env.QUEUE_PREFIX!);
  redis?.disconnect();
  await redisServer?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const knowledge = (...args: string[]) => runNpm(['run', 'knowledge', '--', ...args], env, 150_000);
const candidate = (question: string, answer: string): Omit<LearnedCandidate, 'id' | 'ticketId' | 'proposedAt'> => ({
  question,
  answer,
  origin: 'rules',
  scrub: { replaced: 1, modelPass: 'off' },
});

describe('npm run knowledge and a placeholder in the answer', () => {
  it('show warns with the edit command; accept prints the answer, warns and names the undo; a clean answer has no warning', async () => {
    const walk = '[氏名]様、集合場所は東京駅丸の内北口です。';
    const [c1, c2] = await learned.propose('a'.repeat(64), [candidate('集合場所はどこですか', walk), candidate('集合時刻は何時ですか', '集合時刻は9時です。')]);

    const show = await knowledge('show', String(c1!.id));
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`Warning: the answer holds the placeholder [氏名] of the personal-data scrub`);
    expect(show.stdout).toContain(`Edit it first: \`npm run knowledge -- edit ${c1!.id} --answer '…'\``);

    const accept = await knowledge('accept', String(c1!.id), '--by', 'kato');
    expect(accept.code, accept.stderr).toBe(0);
    expect(accept.stdout).toContain(`accepted learned#${c1!.id} (by kato); it is searchable now\n\nAnswer:\n${walk}`);
    expect(accept.stdout).toContain('Warning: the answer holds the placeholder [氏名] of the personal-data scrub, which a reply copying the answer would carry to the customer as written');
    expect(accept.stdout).toContain(`take it out with \`npm run knowledge -- remove learned#${c1!.id}\``);

    const clean = await knowledge('accept', String(c2!.id), '--by', 'kato');
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toContain('Answer:\n集合時刻は9時です。');
    expect(clean.stdout).not.toContain('Warning');
  }, 500_000);

  it('an update that brings a placeholder names restore as its undo; a customer\'s control characters do not reach the terminal', async () => {
    const [first] = await learned.propose('b'.repeat(64), [candidate('雨天の場合は中止ですか', '雨天でも開催します。')]);
    expect(await knowledge('accept', String(first!.id), '--by', 'kato')).toMatchObject({ code: 0 });
    const [update] = await learned.propose('c'.repeat(64), [candidate('雨天の場合は中止ですか？', '【氏名】様、雨天でも開催します。')]);
    const accept = await knowledge('accept', String(update!.id), '--by', 'sato', '--answer', '\u001b]0;x\u0007[NAME]様、雨天でも開催します。');
    expect(accept.code, accept.stderr).toBe(0);
    expect(accept.stdout).toContain(`updated learned#${first!.id} (by sato)`);
    expect(accept.stdout).toContain('the placeholder [NAME] of the personal-data scrub');
    expect(accept.stdout).toContain(`put back the answer it replaced with \`npm run knowledge -- restore ${first!.id}\``);
    expect(accept.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  }, 500_000);
});
