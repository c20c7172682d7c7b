/**
 * `npm run reindex -- --queue` as an operator runs it: a separate process that adds the reindex jobs to the
 * maintenance queue of a real redis-server (and, with --wait, waits for the maintenance role to run them).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createWorkerConnection } from '../../src/queues/connection.js';
import { startMaintenanceRole } from '../../src/runtime/maintenance.js';
import { closeAll } from '../../src/queues/registry.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { runTsx, type CommandRun } from '../support/run-command.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

let server: RedisServer;
let connection: Redis;
let root: string;
let cleanup: (() => Promise<unknown>)[] = [];

// Each run starts a Node process that compiles TypeScript on the fly; a busy two-core CI machine needs the room.
const SLOW = { timeout: 120_000 };

beforeAll(async () => {
  server = await startRedis();
  connection = createWorkerConnection(server.url);
  root = await mkdtemp(path.join(tmpdir(), 'scheduler-cli-'));
});

afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

afterAll(async () => {
  await closeAll(connection);
  await server?.stop();
  await rm(root, { recursive: true, force: true });
});

/** The environment of one test: a fresh queue prefix and DATA_DIR, the sample knowledge, the local embedder. */
async function freshEnv(): Promise<Record<string, string>> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: root,
    REDIS_URL: server.url,
    QUEUE_PREFIX: `cli-${randomUUID()}`,
    DATA_DIR: await mkdtemp(path.join(root, 'data-')),
    MANUALS_DIR: path.join(ROOT, 'data/manuals'),
    QA_DIR: path.join(ROOT, 'data/qa'),
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDING_DIMENSIONS: '256',
    LOG_LEVEL: 'silent',
    REINDEX_MANUAL_CRON: '',
    REINDEX_QA_CRON: '',
    RETENTION_CRON: '',
  };
}

/** Runs `src/cli/reindex.ts` as `npm run reindex -- …` does (tsx). */
function reindex(args: string[], env: Record<string, string>): Promise<CommandRun> {
  return runTsx('src/cli/reindex.ts', args, { cwd: ROOT, env });
}

/** The maintenance queue under `prefix`, obliterated after the test. */
function maintenanceQueue(prefix: string): Queue {
  const queue = new Queue('maintenance', { connection, prefix });
  cleanup.push(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });
  return queue;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const QUEUED_LINE = /^queued (reindex-manual|reindex-qa) as job (\S+)$/;

describe('reindex --queue', () => {
  it('adds both jobs (trigger cli) and prints their ids; --qa-only adds one, joining the job already waiting', SLOW, async () => {
    const env = await freshEnv();
    const queue = maintenanceQueue(env.QUEUE_PREFIX!);

    const both = await reindex(['--queue'], env);
    expect(both.stderr).toBe('');
    expect(both.code).toBe(0);
    const lines = both.stdout.trim().split('\n');
    expect(lines.map((l) => QUEUED_LINE.exec(l)?.[1])).toEqual(['reindex-manual', 'reindex-qa']);
    const ids = lines.map((l) => QUEUED_LINE.exec(l)![2]!);
    const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
    expect(jobs.map((j) => [j?.name, j?.data])).toEqual([
      ['reindex-manual', { trigger: 'cli' }],
      ['reindex-qa', { trigger: 'cli' }],
    ]);
    expect(await queue.getWaitingCount()).toBe(2);

    // No worker runs, so the Q&A job still waits: a second request joins it rather than stacking another rebuild.
    const qaOnly = await reindex(['--queue', '--qa-only', '--json'], env);
    expect(qaOnly.code).toBe(0);
    expect(JSON.parse(qaOnly.stdout)).toEqual({ queued: [{ name: 'reindex-qa', jobId: ids[1] }] });
    expect(await queue.getWaitingCount()).toBe(2);

    const manualOnly = await reindex(['--queue', '--manual-only', '--json'], env);
    expect(JSON.parse(manualOnly.stdout)).toEqual({ queued: [{ name: 'reindex-manual', jobId: ids[0] }] });
  });

  it('--wait waits for the maintenance role to run the jobs and prints their summary', SLOW, async () => {
    const env = await freshEnv();
    maintenanceQueue(env.QUEUE_PREFIX!);
    const role = await startMaintenanceRole(parseConfig(env), { buildEmptyIndexes: false });
    cleanup.push(() => role.stop());

    const run = await reindex(['--queue', '--wait', '--json'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as {
      queued: { name: string; jobId: string }[];
      manual: { files: number; chunks: number };
      qa: { files: number; pairs: number; skipped: number };
      seconds: number;
    };
    expect(out.queued.map((q) => q.name)).toEqual(['reindex-manual', 'reindex-qa']);
    expect(out.manual.files).toBe(1);
    expect(out.manual.chunks).toBeGreaterThan(20);
    expect(out.qa).toMatchObject({ files: 1, skipped: 0 });
    expect(out.qa.pairs).toBeGreaterThan(5);
    expect(out.seconds).toBeGreaterThan(0);

    const text = await reindex(['--queue', '--wait', '--manual-only'], env);
    expect(text.code).toBe(0);
    const [queuedLine, summary] = text.stdout.trim().split('\n');
    expect(queuedLine).toMatch(/^queued reindex-manual as job \S+; waiting for it to finish$/);
    expect(summary).toMatch(/^reindexed: 1 manual file, \d+ chunks in \d+\.\d s$/);
  });

  it('a job that fails for good ends --wait with its reason', SLOW, async () => {
    const env = await freshEnv();
    maintenanceQueue(env.QUEUE_PREFIX!);
    const seeding = await startMaintenanceRole(parseConfig(env), { buildEmptyIndexes: false });
    expect((await reindex(['--queue', '--wait', '--manual-only'], env)).code).toBe(0);
    await seeding.stop();

    // The role reads the manual from its own MANUALS_DIR, now empty: it refuses to swap an empty index in.
    const emptyDir = await mkdtemp(path.join(root, 'empty-'));
    const role = await startMaintenanceRole(parseConfig({ ...env, MANUALS_DIR: emptyDir }), { buildEmptyIndexes: false });
    cleanup.push(() => role.stop());
    const refused = await reindex(['--queue', '--wait', '--manual-only'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^reindex: reindex-manual job \S+ failed: no manual chunks found in .*refusing to replace the live manual index/),
    ]);
  });

  it('says in one line that Redis is unreachable', SLOW, async () => {
    const env = { ...(await freshEnv()), REDIS_URL: `redis://127.0.0.1:${await closedPort()}` };
    const run = await reindex(['--queue'], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^reindex: Redis unavailable at redis:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED.*: is Redis running\? Set REDIS_URL$/)]);
  });

  it('--wait without --queue is refused', SLOW, async () => {
    const run = await reindex(['--wait'], await freshEnv());
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--wait needs --queue');
  });
});
