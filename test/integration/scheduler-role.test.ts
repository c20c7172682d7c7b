/**
 * The maintenance role against a real redis-server and the embedded search engines under a temporary DATA_DIR: the
 * reindex schedules it keeps in Redis, the progress and result of a reindex job, searches answering from the old
 * index while a new one is built, and no two reindex jobs ever running at once, even with two roles (as two
 * processes would be) taking jobs from the queue.
 */
import { randomUUID } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue, QueueEvents, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, type Config } from '../../src/config.js';
import { createWorkerConnection } from '../../src/queues/connection.js';
import { DEFAULT_TUNING, reindexJob } from '../../src/queues/job-options.js';
import {
  MAINTENANCE_GLOBAL_CONCURRENCY,
  startMaintenanceRole,
  type MaintenanceRole,
  type MaintenanceRoleOverrides,
  type ReindexProgress,
} from '../../src/runtime/maintenance.js';
import type { ReindexData } from '../../src/queues/payloads.js';
import { closeAll } from '../../src/queues/registry.js';
import { registerReindexSchedulers } from '../../src/queues/schedulers.js';
import { createSearchBackends, type SearchBackends } from '../../src/search/factory.js';
import { readReindexOutcomes } from '../../src/runtime/reindex-outcome.js';
import { waitFor } from '../support/pipeline.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SAMPLE_MANUAL = path.join(ROOT, 'data/manuals/xyz-manual.md');
/** A term that appears only in the manual file added before the second reindex. */
const NEW_TERM = 'ZQXJ-7788';
/** Copies of the sample manual in the large manual: enough chunks that building takes many event-loop turns. */
const LARGE_MANUAL_COPIES = 12;

let server: RedisServer;
let connection: Redis;
let root: string;
let largeManualDir: string;
let cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await startRedis();
  connection = createWorkerConnection(server.url);
  root = await mkdtemp(path.join(tmpdir(), 'scheduler-role-'));
  // The sample manual several times over, plus one file with a term the sample does not have.
  largeManualDir = path.join(root, 'large-manual');
  await mkdir(largeManualDir);
  const sample = await readFile(SAMPLE_MANUAL, 'utf8');
  for (let i = 1; i <= LARGE_MANUAL_COPIES; i++) await writeFile(path.join(largeManualDir, `copy-${i}.md`), sample);
  await writeFile(
    path.join(largeManualDir, 'release-notes.md'),
    `# リリースノート\n\n## 新しいエラーコード\n\nエラーコード ${NEW_TERM} は、アップロードしたファイルの形式が古い場合に表示されます。最新の形式で保存し直してください。\n`,
  );
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

/** A configuration with a fresh queue prefix and DATA_DIR, the sample knowledge and the local embedder. */
async function freshConfig(env: Record<string, string> = {}): Promise<Config> {
  const dataDir = await mkdtemp(path.join(root, 'data-'));
  return parseConfig({
    REDIS_URL: server.url,
    QUEUE_PREFIX: `sched-${randomUUID()}`,
    DATA_DIR: dataDir,
    MANUALS_DIR: path.join(ROOT, 'data/manuals'),
    QA_DIR: path.join(ROOT, 'data/qa'),
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDING_DIMENSIONS: '256',
    LOG_LEVEL: 'silent',
    // Its own tests (test/integration/retention.test.ts) cover the retention schedule; here it would be one more job.
    RETENTION_CRON: '',
    ...env,
  });
}

/** The maintenance queue of `config`, obliterated after the test. */
function maintenanceQueue(config: Config): Queue {
  const queue = new Queue('maintenance', { connection, prefix: config.QUEUE_PREFIX });
  cleanup.push(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });
  return queue;
}

/**
 * Starts the role (as a process would), stopping it after the test. The first build of empty indexes is off unless
 * asked for, so that each test's own jobs are the only ones in the queue.
 */
async function startRole(config: Config, options: MaintenanceRoleOverrides = {}): Promise<MaintenanceRole> {
  const role = await startMaintenanceRole(config, { tuning: { ...DEFAULT_TUNING, reindexBackoffMs: 200 }, buildEmptyIndexes: false, ...options });
  cleanup.push(() => role.stop());
  return role;
}

/** Global events of the maintenance queue, listening before the test adds jobs. */
async function queueEvents(config: Config): Promise<QueueEvents> {
  const eventsConnection = createWorkerConnection(server.url);
  const events = new QueueEvents('maintenance', { connection: eventsConnection, prefix: config.QUEUE_PREFIX });
  cleanup.push(() => closeAll(events, eventsConnection));
  await events.waitUntilReady();
  return events;
}

async function addReindex(queue: Queue, name: 'reindex-manual' | 'reindex-qa', data: ReindexData): Promise<Job> {
  const job = reindexJob(name, data);
  return queue.add(job.name, job.data, job.opts);
}

/** The schedulers in Redis as `id → pattern`, and the pending (delayed) jobs they produced, by job name. */
async function schedulesIn(queue: Queue): Promise<{ schedulers: Record<string, string | undefined>; delayed: string[] }> {
  const list = await queue.getJobSchedulers();
  const delayed = await queue.getDelayed();
  return {
    schedulers: Object.fromEntries(list.map((s) => [s.key, s.pattern])),
    delayed: delayed.map((j) => j.name).sort(),
  };
}

describe('reindex schedules', () => {
  it('two starts, one after the other or at once, leave exactly one schedule and one pending job per kind', async () => {
    const config = await freshConfig({ REINDEX_MANUAL_CRON: '0 3 * * *', REINDEX_QA_CRON: '30 3 * * *' });
    const queue = maintenanceQueue(config);

    const first = await startRole(config);
    expect(first.schedulers.map((s) => [s.id, s.pattern])).toEqual([
      ['reindex-manual', '0 3 * * *'],
      ['reindex-qa', '30 3 * * *'],
    ]);
    for (const s of first.schedulers) expect(s.next).toBeGreaterThan(Date.now());
    await first.stop();
    await startRole(config);
    // Two more "processes" starting at the same moment.
    await Promise.all([startRole(config), startRole(config)]);

    expect(await schedulesIn(queue)).toEqual({
      schedulers: { 'reindex-manual': '0 3 * * *', 'reindex-qa': '30 3 * * *' },
      delayed: ['reindex-manual', 'reindex-qa'],
    });
    // The scheduled jobs carry the template: trigger `schedule` and the reindex attempts.
    const [manualJob] = (await queue.getDelayed()).filter((j) => j.name === 'reindex-manual');
    expect(manualJob?.data).toEqual({ trigger: 'schedule' });
    expect(manualJob?.opts.attempts).toBe(3);
  });

  it('an emptied cron removes its schedule and its pending job; a changed cron replaces the old one', async () => {
    const both = await freshConfig({ REINDEX_MANUAL_CRON: '0 3 * * *', REINDEX_QA_CRON: '30 3 * * *' });
    const queue = maintenanceQueue(both);
    await (await startRole(both)).stop();

    const qaOff = parseConfig({ ...configEnv(both), REINDEX_MANUAL_CRON: '15 4 * * *', REINDEX_QA_CRON: '' });
    const role = await startRole(qaOff);
    expect(role.schedulers.map((s) => s.id)).toEqual(['reindex-manual']);
    expect(await schedulesIn(queue)).toEqual({ schedulers: { 'reindex-manual': '15 4 * * *' }, delayed: ['reindex-manual'] });

    // Registering again with both off (as a second process with that configuration would) removes the other one.
    const registration = await registerReindexSchedulers(queue, { REINDEX_MANUAL_CRON: '', REINDEX_QA_CRON: '' });
    expect(registration).toEqual({
      registered: [],
      disabled: ['reindex-manual', 'reindex-qa'],
      // Reported (as a warning) since Redis held it with other settings: the schedule of the role started before.
      replaced: [
        {
          id: 'reindex-manual',
          variable: 'REINDEX_MANUAL_CRON',
          inRedis: { pattern: '15 4 * * *', timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone },
          thisProcess: undefined,
        },
      ],
    });
    expect(await schedulesIn(queue)).toEqual({ schedulers: {}, delayed: [] });
  });

  it('a cron that only looks like one stops the start, naming the variable, and leaves no worker behind', async () => {
    const config = await freshConfig({ REINDEX_MANUAL_CRON: '99 3 * * *', REINDEX_QA_CRON: '30 3 * * *' });
    const queue = maintenanceQueue(config);
    const start = startMaintenanceRole(config);
    await expect(start).rejects.toBeInstanceOf(ConfigError);
    await expect(start).rejects.toThrow(/REINDEX_MANUAL_CRON="99 3 \* \* \*": .*59/);
    expect(await queue.getWorkers()).toEqual([]);
  });
});

describe('reindex jobs run by the maintenance role', () => {
  let searcher: SearchBackends | undefined;

  afterEach(async () => {
    await searcher?.manual.close?.();
    await searcher?.qa.close?.();
    searcher = undefined;
  });

  it('reports progress, returns the summary and swaps the index while searches keep answering', async () => {
    // The role reads MANUALS_DIR at each job (job data never names a directory): the sample first, then a larger one.
    const manualDir = await mkdtemp(path.join(root, 'manual-'));
    await cp(path.join(ROOT, 'data/manuals'), manualDir, { recursive: true });
    const config = await freshConfig({ REINDEX_MANUAL_CRON: '', REINDEX_QA_CRON: '', MANUALS_DIR: manualDir });
    const queue = maintenanceQueue(config);
    const events = await queueEvents(config);
    await startRole(config);

    // The live index before the rebuild: the sample manual.
    const initial = await addReindex(queue, 'reindex-manual', { trigger: 'manual' });
    const initialResult = (await initial.waitUntilFinished(events)) as { files: number; chunks: number };
    expect(initialResult.files).toBe(1);

    // Searches run in this "agent worker" through its own engine instance on the same DATA_DIR.
    searcher = createSearchBackends(config);
    const manual = searcher.manual;
    expect(await manual.search(NEW_TERM)).toEqual([]);

    const progress: ReindexProgress[] = [];
    events.on('progress', ({ data }) => void progress.push(data as ReindexProgress));
    await rm(manualDir, { recursive: true, force: true });
    await cp(largeManualDir, manualDir, { recursive: true });
    const job = await addReindex(queue, 'reindex-manual', { trigger: 'manual' });
    let finished = false;
    const outcome = job.waitUntilFinished(events).finally(() => (finished = true));

    const duringJob = { searches: 0, empty: 0, errors: [] as unknown[] };
    while (!finished) {
      try {
        const hits = await manual.search('二段階認証 設定');
        duringJob.searches += 1;
        if (hits.length === 0) duringJob.empty += 1;
      } catch (err) {
        duringJob.errors.push(err);
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const result = (await outcome) as { files: number; chunks: number; seconds: number };

    expect(duringJob.errors).toEqual([]);
    expect(duringJob.empty).toBe(0);
    expect(duringJob.searches).toBeGreaterThan(5);

    expect(result.files).toBe(LARGE_MANUAL_COPIES + 1);
    expect(result.chunks).toBeGreaterThan(initialResult.chunks * LARGE_MANUAL_COPIES);
    expect(result.seconds).toBeGreaterThan(0);
    const stored = await queue.getJob(String(job.id));
    expect(stored?.returnvalue).toEqual(result);
    expect(stored?.progress).toEqual({ stage: 'index', done: result.chunks, total: result.chunks, percent: 100 });

    // Progress went through reading the files and building the index, each stage counting up to its total.
    expect(progress.map((p) => p.stage)).toEqual(expect.arrayContaining(['read', 'index']));
    expect(progress).toContainEqual({ stage: 'read', done: LARGE_MANUAL_COPIES + 1, total: LARGE_MANUAL_COPIES + 1, percent: 100 });
    for (const p of progress) {
      expect(p.done).toBeLessThanOrEqual(p.total);
      expect(p.percent).toBe(p.total > 0 ? Math.floor((p.done / p.total) * 100) : 100);
    }
    expect(progress.filter((p) => p.stage === 'index').length).toBeGreaterThan(2);

    // The new index is live for the other instance too.
    const hits = await manual.search(NEW_TERM);
    expect(hits[0]?.fileName).toBe('release-notes.md');
    expect(await manual.count()).toBe(result.chunks);
  });

  it('builds the indexes that are empty at start, and leaves filled ones alone', async () => {
    const config = await freshConfig({ REINDEX_MANUAL_CRON: '', REINDEX_QA_CRON: '' });
    const queue = maintenanceQueue(config);
    const events = await queueEvents(config);
    const first = await startRole(config, { buildEmptyIndexes: true });
    expect(first.firstBuilds).toEqual(['reindex-manual', 'reindex-qa']);
    const jobs = await queue.getJobs(['waiting', 'active', 'completed']);
    expect(jobs.map((j) => [j.name, j.data]).sort()).toEqual([
      ['reindex-manual', { trigger: 'schedule' }],
      ['reindex-qa', { trigger: 'schedule' }],
    ]);
    await Promise.all(jobs.map((job) => job.waitUntilFinished(events)));
    searcher = createSearchBackends(config);
    expect(await searcher.manual.count()).toBeGreaterThan(0);
    expect(await searcher.qa.count()).toBeGreaterThan(0);
    await first.stop();

    const second = await startRole(config, { buildEmptyIndexes: true });
    expect(second.firstBuilds).toEqual([]);
    expect(await queue.getJobCounts('waiting', 'active', 'delayed')).toEqual({ waiting: 0, active: 0, delayed: 0 });
  });

  it('a source that cannot be indexed fails the job at once and leaves the live index serving', async () => {
    const manualDir = await mkdtemp(path.join(root, 'manual-'));
    await cp(path.join(ROOT, 'data/manuals'), manualDir, { recursive: true });
    const config = await freshConfig({ REINDEX_MANUAL_CRON: '', REINDEX_QA_CRON: '', MANUALS_DIR: manualDir });
    const queue = maintenanceQueue(config);
    const events = await queueEvents(config);
    await startRole(config);
    const initial = await addReindex(queue, 'reindex-manual', { trigger: 'manual' });
    const { chunks } = (await initial.waitUntilFinished(events)) as { chunks: number };

    for (const file of await readdir(manualDir)) await rm(path.join(manualDir, file), { recursive: true });
    const job = await addReindex(queue, 'reindex-manual', { trigger: 'manual' });
    await expect(job.waitUntilFinished(events)).rejects.toThrow(/refusing to replace the live manual index/);
    const failed = await queue.getJob(String(job.id));
    // Unrecoverable: one attempt, not the three a temporary failure gets.
    expect(failed?.attemptsMade).toBe(1);

    searcher = createSearchBackends(config);
    expect(await searcher.manual.count()).toBe(chunks);

    // The review page learns that the manual's index is no longer current, and why; the Q&A was never reindexed here.
    const outcomes = await waitFor(async () => {
      const read = await readReindexOutcomes(connection, config.QUEUE_PREFIX);
      return read.manual?.ok === false ? read : undefined;
    }, 'the failed reindex recorded');
    expect(outcomes).toEqual({ manual: { at: expect.any(Date), ok: false, error: expect.stringMatching(/refusing to replace the live manual index/) } });

    // A reindex that succeeds afterwards clears it.
    await cp(path.join(ROOT, 'data/manuals'), manualDir, { recursive: true });
    await (await addReindex(queue, 'reindex-manual', { trigger: 'manual' })).waitUntilFinished(events);
    await waitFor(async () => (await readReindexOutcomes(connection, config.QUEUE_PREFIX)).manual?.ok === true || undefined, 'the successful reindex recorded');
  });

  it('a job whose data names a directory (Bull Board, a hand-made job) reindexes the configured one', async () => {
    const config = await freshConfig({ REINDEX_MANUAL_CRON: '', REINDEX_QA_CRON: '' });
    const queue = maintenanceQueue(config);
    const events = await queueEvents(config);
    await startRole(config);
    const job = await queue.add('reindex-manual', { dir: largeManualDir, trigger: 'manual' });
    const result = (await job.waitUntilFinished(events)) as { files: number };
    expect(result.files).toBe(1);
    searcher = createSearchBackends(config);
    expect(await searcher.manual.search(NEW_TERM)).toEqual([]);
  });

  it('two reindex jobs added together never run at the same time, even with two roles taking jobs', async () => {
    const config = await freshConfig({ REINDEX_MANUAL_CRON: '', REINDEX_QA_CRON: '', MANUALS_DIR: largeManualDir });
    const queue = maintenanceQueue(config);
    const events = await queueEvents(config);
    const roles = [await startRole(config), await startRole(config)];
    expect(await queue.getGlobalConcurrency()).toBe(MAINTENANCE_GLOBAL_CONCURRENCY);

    // Each role records when its worker took and finished a job, besides the times BullMQ stores on the job.
    const spans: { role: number; job: string; start: number; end?: number }[] = [];
    roles.forEach((role, i) => {
      role.worker.on('active', (job) => void spans.push({ role: i, job: job.name, start: performance.now() }));
      role.worker.on('completed', (job) => {
        const span = spans.find((s) => s.role === i && s.job === job.name && s.end === undefined);
        if (span) span.end = performance.now();
      });
    });

    const jobs = await Promise.all([
      addReindex(queue, 'reindex-manual', { trigger: 'manual' }),
      addReindex(queue, 'reindex-qa', { trigger: 'manual' }),
    ]);
    await Promise.all(jobs.map((job) => job.waitUntilFinished(events)));

    const stored = await Promise.all(jobs.map(async (job) => (await queue.getJob(String(job.id)))!));
    const [a, b] = stored.map((job) => ({ start: job.processedOn!, end: job.finishedOn! })).sort((x, y) => x.start - y.start);
    expect(a!.end).toBeLessThanOrEqual(b!.start);

    expect(spans).toHaveLength(2);
    const [first, second] = [...spans].sort((x, y) => x.start - y.start);
    expect(first!.end).toBeDefined();
    expect(first!.end!).toBeLessThanOrEqual(second!.start);
  });
});

/** The environment a configuration was parsed from, for a variant of it (same prefix and DATA_DIR). */
function configEnv(config: Config): Record<string, string> {
  return {
    REDIS_URL: config.REDIS_URL,
    QUEUE_PREFIX: config.QUEUE_PREFIX,
    DATA_DIR: config.DATA_DIR,
    MANUALS_DIR: config.MANUALS_DIR,
    QA_DIR: config.QA_DIR,
    EMBEDDINGS_PROVIDER: config.EMBEDDINGS_PROVIDER,
    EMBEDDING_DIMENSIONS: String(config.EMBEDDING_DIMENSIONS),
    LOG_LEVEL: config.LOG_LEVEL,
    RETENTION_CRON: config.RETENTION_CRON,
  };
}
