/**
 * A reindex whose build cannot be recorded on a machine with one agent worker: the new index is live there, but the
 * worker compares it with the last build recorded and takes no tickets. With Redis unreachable the rebuild is what was
 * asked for (README's `npm run reindex && npm run -s ask` needs no Redis), so the command exits 0 with a warning that
 * says what it means; with Redis answering but refusing the record it fails. Either way `npm run check` compares the
 * index as the worker does, names the fix for one machine (reindex again with Redis reachable), and fails when there
 * is no index at all, as the worker then takes no tickets either.
 *
 * `npm run reindex` is the real command in a child process against a real redis-server; the index check is
 * `npm run check`'s own ({@link checkIndexes}), called in this process.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIndexes } from '../../src/cli/check-indexes.js';
import { parseConfig, type Config } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { createSearchBackends } from '../../src/search/factory.js';
import { readIndexBuilds, shortHash } from '../../src/search/index-builds.js';
import { removePrefix } from '../support/pipeline.js';
import { runTsx, type CommandRun } from '../support/run-command.js';

const MANUAL_V1 = '# XYZ 設定ガイド\n\n## 無操作タイムアウト\n\n無操作タイムアウトの既定値は 60 分です。\n';
const MANUAL_V2 = '# XYZ 設定ガイド\n\n## 無操作タイムアウト\n\n無操作タイムアウトの既定値は 30 分です。\n';
const QA = 'question,answer\n請求書の宛名を変更したい,「管理」→「契約」→「請求先」で宛名を変更できます。\n';
const ONE_MACHINE_FIX = 'run `npm run reindex` on this machine with Redis reachable; with several machines, copy the knowledge folders to this machine first';

let redisServer: RedisServer;
let redis: Redis;
let root: string;
let prefix: string;

beforeAll(async () => {
  redisServer = await startRedis();
  redis = await connectProducer(redisServer.url);
  root = await mkdtemp(path.join(tmpdir(), 'index-unrecorded-'));
  prefix = `unrec${randomUUID().replaceAll('-', '').slice(0, 12)}`;
});
afterAll(async () => {
  if (redisServer) await removePrefix(redisServer.url, prefix).catch(() => undefined);
  redis?.disconnect();
  await redisServer?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

/** A loopback port nothing listens on: Redis "down". */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function machine(name = 'host', queuePrefix = prefix): Promise<{ dir: string; env: Record<string, string>; config: Config }> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'manuals'), { recursive: true });
  await mkdir(path.join(dir, 'qa'), { recursive: true });
  await writeFile(path.join(dir, 'manuals', 'guide.md'), MANUAL_V1);
  await writeFile(path.join(dir, 'qa', 'qa.csv'), QA);
  const env: Record<string, string> = {
    HELPDESK_ENV_FILE: 'none',
    LOG_LEVEL: 'warn',
    REDIS_URL: redisServer.url,
    QUEUE_PREFIX: queuePrefix,
    DATA_DIR: path.join(dir, 'data'),
    MANUALS_DIR: path.join(dir, 'manuals'),
    QA_DIR: path.join(dir, 'qa'),
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDING_DIMENSIONS: '256',
    MEILI_HOST: '',
    QDRANT_URL: '',
    OPENAI_API_KEY: 'test-key',
  };
  return { dir, env, config: parseConfig(env) };
}

/** `npm run reindex` as the operator runs it (the real command, in its own process). */
function reindexCommand(env: Record<string, string>): Promise<CommandRun> {
  return runTsx('src/cli/reindex.ts', [], { env: { PATH: process.env.PATH ?? '', HOME: root, ...env } });
}

async function servedHashes(config: Config): Promise<{ manual?: string | undefined; qa?: string | undefined }> {
  const backends = createSearchBackends(config);
  try {
    const [manual, qa] = await Promise.all([backends.manual.served?.(), backends.qa.served?.()]);
    return { manual: manual?.present ? manual.hash : undefined, qa: qa?.present ? qa.hash : undefined };
  } finally {
    await Promise.all([backends.manual.close?.(), backends.qa.close?.()]);
  }
}

describe('a reindex whose build cannot be recorded', () => {
  it('with Redis unreachable: writes the index, exits 0 warning what it means; check with Redis back fails it as the worker would', { timeout: 120_000 }, async () => {
    const m = await machine();
    const first = await reindexCommand(m.env);
    expect(first.code, first.stderr).toBe(0);
    const recorded = await readIndexBuilds(redis, prefix);
    expect((await checkIndexes(m.config)).map((o) => [o.what, o.status])).toEqual([
      ['Manual search', 'ok'],
      ['Q&A search', 'ok'],
    ]);

    // The admin edits the manual and reindexes while Redis is down.
    await writeFile(path.join(m.dir, 'manuals', 'guide.md'), MANUAL_V2);
    const port = await closedPort();
    const down = await reindexCommand({ ...m.env, REDIS_URL: `redis://127.0.0.1:${port}` });
    expect(down.code, down.stdout + down.stderr).toBe(0);
    expect(down.stdout).toMatch(/^reindexed/m);
    expect(down.stderr).toContain(`not recorded: Redis is unreachable at redis://127.0.0.1:${port}`);
    expect(down.stderr).toContain(
      'if a build was recorded there before, an agent worker serving this index takes no tickets until you run npm run reindex again with Redis reachable (npm run check compares them)',
    );
    const served = await servedHashes(m.config);
    expect(served.manual).toBeDefined();
    expect(served.manual).not.toBe(recorded.manual!.hash);
    expect(await readIndexBuilds(redis, prefix)).toEqual(recorded);

    // What the agent worker of this machine sees, `npm run check` says, with the fix for one machine first.
    const [manual, qa] = await checkIndexes(m.config);
    expect(manual).toMatchObject({ what: 'Manual search', status: 'failed' });
    expect(manual!.detail).toContain(`an agent worker here takes no tickets: its manual index ${shortHash(served.manual)} is not the last build ${shortHash(recorded.manual!.hash)}`);
    expect(manual!.detail).toContain(ONE_MACHINE_FIX);
    expect(qa).toMatchObject({ what: 'Q&A search', status: 'ok' });

    // The fix it names.
    const again = await reindexCommand(m.env);
    expect(again.code, again.stderr).toBe(0);
    expect((await readIndexBuilds(redis, prefix)).manual!.hash).toBe(served.manual);
    expect((await checkIndexes(m.config)).map((o) => o.status)).toEqual(['ok', 'ok']);
  });

  it.each([
    {
      refusal: 'an error reply (the builds key holds another type)',
      refuse: async (p: string) => {
        await redis.set(`${p}:index:builds`, 'not a hash');
      },
      allow: async () => undefined,
      says: 'WRONGTYPE',
    },
    {
      refusal: 'out of memory (maxmemory reached, noeviction)',
      refuse: async () => {
        await redis.config('SET', 'maxmemory-policy', 'noeviction');
        await redis.config('SET', 'maxmemory', '1');
      },
      allow: async () => {
        await redis.config('SET', 'maxmemory', '0');
      },
      says: 'OOM',
    },
  ])('with Redis answering but refusing the record ($refusal): writes the index and exits 1 saying why', { timeout: 120_000 }, async ({ refuse, allow, says }) => {
    const refusedPrefix = `${prefix}r${randomUUID().slice(0, 6)}`;
    const m = await machine(`refused-${says}`, refusedPrefix);
    await refuse(refusedPrefix);
    let refused: Awaited<ReturnType<typeof reindexCommand>>;
    try {
      refused = await reindexCommand(m.env);
    } finally {
      await allow();
      await removePrefix(redisServer.url, refusedPrefix);
    }
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stdout).toMatch(/^reindexed/m);
    expect(refused.stderr).toContain('this build is not recorded in Redis (');
    expect(refused.stderr).toContain(says);
    expect((await servedHashes(m.config)).manual).toBeDefined();
  });

  it.each([
    { redisState: 'reachable, no build recorded', url: () => Promise.resolve(redisServer.url) },
    { redisState: 'unreachable', url: async () => `redis://127.0.0.1:${await closedPort()}` },
  ])('check with no index at all fails both lines with the worker\'s words (Redis $redisState)', { timeout: 60_000 }, async ({ url }) => {
    const m = await machine('never-built', `${prefix}n${randomUUID().slice(0, 6)}`);
    const outcomes = await checkIndexes(parseConfig({ ...m.env, REDIS_URL: await url() }));
    const sentence = 'an agent worker here takes no tickets: no knowledge index yet: run `npm run reindex` (or start the scheduler) on this machine; the mail waits in the queue';
    expect(outcomes).toEqual([
      { what: 'Manual search', where: `embedded, ${m.config.DATA_DIR}`, status: 'failed', detail: sentence },
      { what: 'Q&A search', where: `embedded, ${m.config.DATA_DIR}`, status: 'failed', detail: sentence },
    ]);
  });

  it('check says so when it cannot read the recorded builds, and still counts the entries', { timeout: 60_000 }, async () => {
    const m = await machine();
    const [manual] = await checkIndexes(parseConfig({ ...m.env, REDIS_URL: `redis://127.0.0.1:${await closedPort()}` }));
    expect(manual).toMatchObject({ what: 'Manual search', status: 'warning' });
    expect(manual!.detail).toMatch(/^\d+ entries; not compared with the last recorded build \(Redis unavailable/);
  });
});
