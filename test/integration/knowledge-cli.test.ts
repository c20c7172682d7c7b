/**
 * `npm run knowledge` as an operator uses it, spawned against a real redis-server: candidates proposed from approved
 * replies are listed with their ticket and the pair they would update, edited, accepted (by whom), discarded,
 * exported as CSV and removed; bad ids end with one line.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { LearnedAnswerStore, learnedKeys, type LearnedCandidate, type LearnedPair } from '../../src/knowledge/learned-answers.js';
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
  dir = await mkdtemp(path.join(tmpdir(), 'knowledge-cli-'));
  const prefix = `kcli${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  env = { REDIS_URL: redisServer.url, QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', DATA_DIR: dir };
  learned = new LearnedAnswerStore(redis, { prefix });
});
afterAll(async () => {
  if (redisServer) await removePrefix(redisServer.url, env.QUEUE_PREFIX!);
  redis?.disconnect();
  await redisServer?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const knowledge = (...args: string[]) => runNpm(['run', 'knowledge', '--', ...args], env, 60_000);
const draft = (question: string, answer: string): Omit<LearnedCandidate, 'id' | 'ticketId' | 'proposedAt'> => ({
  question,
  answer,
  origin: 'rules',
  scrub: { replaced: 1, modelPass: 'off' },
});
const T1 = 'a'.repeat(64);
const T2 = 'b'.repeat(64);

describe('npm run knowledge', () => {
  it('lists, edits, accepts, offers an update, discards, exports and removes', async () => {
    const [c1, c2] = await learned.propose(T1, [draft('領収書の宛名変更はできますか', '「請求」→「領収書」で変更できます。'), draft('不要な質問', '不要な回答')]);

    const edit = await knowledge('edit', String(c1!.id), '--answer', '「請求」→「領収書」→「宛名を編集」で変更できます。', '--by', 'kato');
    expect(edit.code, edit.stderr).toBe(0);
    const accept = await knowledge('accept', `${c1!.id}`, '--by', 'kato');
    expect(accept.code, accept.stderr).toBe(0);
    expect(accept.stdout).toContain(`accepted learned#${c1!.id} (by kato)`);
    expect(await knowledge('discard', String(c2!.id))).toMatchObject({ code: 0 });

    // Another customer's candidate on the same question is listed as an update of the pair.
    const [c3] = await learned.propose(T2, [draft('領収書の宛名変更はできますか？', '宛名は「請求」→「領収書」→「宛名を編集」で変更できます。')]);
    const [list, json, show] = await Promise.all([knowledge('list'), knowledge('list', '--json'), knowledge('show', String(c3!.id))]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${c3!.id}  ticket bbbbbbbbbbbb  領収書の宛名変更はできますか？  update of learned#${c1!.id}`));
    expect(list.stdout).toMatch(new RegExp(`learned#${c1!.id}  ticket aaaaaaaaaaaa  by kato`));
    const parsed = JSON.parse(json.stdout) as { candidates: { id: number; updateOf: string | null }[]; pairs: { id: number; answer: string }[] };
    expect(parsed.candidates).toEqual([expect.objectContaining({ id: c3!.id, updateOf: `learned#${c1!.id}` })]);
    expect(parsed.pairs).toEqual([expect.objectContaining({ id: c1!.id, answer: '「請求」→「領収書」→「宛名を編集」で変更できます。' })]);
    expect(show.stdout).toContain(`Update of:   learned#${c1!.id}`);

    const update = await knowledge('accept', String(c3!.id), '--by', 'sato');
    expect(update.stdout).toContain(`updated learned#${c1!.id} (by sato)`);

    const file = path.join(dir, 'learned.csv');
    expect(await knowledge('export', file)).toMatchObject({ code: 0, stdout: expect.stringContaining('exported 1 pair(s)') as unknown as string });
    const rows = parse(await readFile(file, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows).toEqual([
      expect.objectContaining({
        question: '領収書の宛名変更はできますか？',
        answer: '宛名は「請求」→「領収書」→「宛名を編集」で変更できます。',
        id: `learned#${c1!.id}`,
        ticket_id: T2,
        accepted_by: 'sato',
      }),
    ]);

    expect(await knowledge('remove', `learned#${c1!.id}`)).toMatchObject({ code: 0 });
    expect(await learned.pairs()).toEqual([]);
  }, 120_000);

  // A customer's escape sequences (retitle, an OSC 8 link whose text hides its target, clear screen) reached the
  // operator's terminal through `export -`: parse.ts and the candidates kept C0/C1 controls, and the export printed raw.
  it('stores and exports no control characters: an accepted candidate loses them, a pair stored before prints without them', async () => {
    const ESC = '\u001b';
    const title = `${ESC}]0;x\u0007`;
    const link = `${ESC}]8;;https://evil.example/reset${ESC}\\公式サイト${ESC}]8;;${ESC}\\${ESC}[2J`;
    const [c] = await learned.propose('c'.repeat(64), [draft(`請求書の再発行はできますか？${title}`, `「請求」→「再発行」から。${link}`)]);
    expect(await knowledge('accept', String(c!.id), '--by', 'kato')).toMatchObject({ code: 0 });
    expect(await learned.pair(c!.id)).toMatchObject({ question: '請求書の再発行はできますか？]0;x', answer: '「請求」→「再発行」から。]8;;https://evil.example/reset\\公式サイト]8;;\\[2J' });
    // Accepted before candidates and stored pairs lost them: written as the store wrote it then.
    const old: LearnedPair = {
      id: 900_001,
      question: `領収書の宛名変更はできますか？${title}`,
      answer: `「請求」→「領収書」\u009b2Jで変更できます。${link}\u202e`,
      ticketId: 'd'.repeat(64),
      ticketIds: ['d'.repeat(64)],
      acceptedBy: 'sato',
      acceptedAt: '2026-01-01T00:00:00.000Z',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    await redis.hset(learnedKeys(env.QUEUE_PREFIX!).pairs, String(old.id), JSON.stringify(old));

    const file = path.join(dir, 'learned-controls.csv');
    const [stdout, toFile] = await Promise.all([knowledge('export', '-'), knowledge('export', file)]);
    expect(stdout.code, stdout.stderr).toBe(0);
    expect(toFile.code, toFile.stderr).toBe(0);
    // C0 and C1 controls but tab, newline and the CR of the CSV's CRLF, and text-direction controls.
    const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\p{Bidi_Control}]/u;
    for (const [what, text] of [['stdout', stdout.stdout], ['file', await readFile(file, 'utf8')]] as const) {
      expect(text, what).not.toMatch(CONTROL);
      const rows = parse(text, { columns: true }) as Record<string, string>[];
      expect(rows.map((r) => r['question']), what).toEqual(['請求書の再発行はできますか？]0;x', '領収書の宛名変更はできますか？]0;x']);
    }
  }, 120_000);

  it('ends with one line for an unknown or malformed id', async () => {
    const [missing, malformed] = await Promise.all([knowledge('accept', '999999'), knowledge('show', 'abc')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toMatch(/No learned candidate 999999$/);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('not a learned-answer id: abc');
  }, 60_000);
});
