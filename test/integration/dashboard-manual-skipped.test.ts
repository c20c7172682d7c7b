/**
 * A manual file the scheduler's reindex skips (here a PDF truncated as a sync in progress leaves it) leaves the live
 * index while the job succeeds: the start page says so, naming the file and why, until a later build no longer
 * skips it (review 39c, finding 5). The maintenance role, its BullMQ queue and the dashboard run against a real
 * redis-server; the page is fetched over HTTP.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { DEFAULT_TUNING, reindexJob } from '../../src/queues/job-options.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { startMaintenanceRole } from '../../src/runtime/maintenance.js';
import { indexBuildsKey } from '../../src/search/index-builds.js';
import { createDashboardApp } from '../../src/server/app.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { removePrefix, waitFor } from '../support/pipeline.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SAMPLE_PDF = path.join(ROOT, 'data/pdf/xyz-manual.pdf');
const USER = 'admin';
const PASSWORD = 'correct horse battery staple';

let redisServer: RedisServer;
let redis: Redis;
let root: string;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  redisServer = await startRedis();
  redis = await connectProducer(redisServer.url);
  root = await mkdtemp(path.join(tmpdir(), 'dash-skipped-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
  await rm(root, { recursive: true, force: true });
});

interface Desk {
  url: string;
  config: Config;
  manuals: string;
  queues: Queues;
}

/** A manual of one Markdown page and the sample PDF, the maintenance role that reindexes it, and the dashboard. */
async function startDesk(): Promise<Desk> {
  const prefix = `skip${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const manuals = await mkdtemp(path.join(root, 'manuals-'));
  await writeFile(path.join(manuals, 'a.md'), '# A\n\nセッションのタイムアウトは既定値 60 分です。\n');
  await writeFile(path.join(manuals, 'b.pdf'), await readFile(SAMPLE_PDF));
  const config = parseConfig({
    REDIS_URL: redisServer.url,
    QUEUE_PREFIX: prefix,
    DATA_DIR: await mkdtemp(path.join(root, 'data-')),
    MANUALS_DIR: manuals,
    QA_DIR: path.join(root, 'no-qa'),
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDING_DIMENSIONS: '64',
    LOG_LEVEL: 'silent',
    REINDEX_MANUAL_CRON: '',
    REINDEX_QA_CRON: '',
    RETENTION_CRON: '',
    DASHBOARD_USER: USER,
    DASHBOARD_PASSWORD: PASSWORD,
  });
  const role = await startMaintenanceRole(config, { tuning: { ...DEFAULT_TUNING, reindexBackoffMs: 200 }, buildEmptyIndexes: false });
  const queues = createQueues(redis, prefix);
  const app = createDashboardApp({ config, redis, store: new TicketStore(redis, { prefix }), queues });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    await role.stop();
    await closeAll(queues).catch(() => undefined);
    await removePrefix(redisServer.url, prefix);
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, config, manuals, queues };
}

/** Queues a manual reindex as "Reindex now" does and waits for it to complete; returns its result. */
async function reindexNow(desk: Desk): Promise<{ files: number; skipped?: { fileName: string }[] }> {
  const spec = reindexJob('reindex-manual', { trigger: 'manual' });
  const added: Job = await desk.queues.maintenance.add(spec.name, spec.data, spec.opts);
  const done = await waitFor(async () => {
    const job = await desk.queues.maintenance.getJob(added.id!);
    const state = await job?.getState();
    if (state === 'failed') throw new Error(`reindex failed: ${job?.failedReason}`);
    return state === 'completed' ? job : undefined;
  }, 'the manual reindex to complete', 60_000);
  return done!.returnvalue as { files: number; skipped?: { fileName: string }[] };
}

async function startPage(desk: Desk): Promise<string> {
  const response = await fetch(`${desk.url}/`, { headers: { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` } });
  expect(response.status).toBe(200);
  return response.text();
}

const SKIP_BANNER = /<div class="warning" role="status">the last manual reindex skipped 1 file: fix or remove it; its content is not searchable<ul><li>1 file: <bdi>cannot read PDF: [^<]*; re-export it as PDF or \.docx, or remove it<\/bdi>: <bdi>b\.pdf<\/bdi><\/li><\/ul><\/div>/;

describe('a manual file the reindex skipped is shown on the start page', () => {
  it('a PDF truncated between two reindexes: the job succeeds, the start page names the file until a build no longer skips it', async () => {
    const desk = await startDesk();
    expect(await reindexNow(desk)).toMatchObject({ files: 2, skipped: [] });
    expect(await startPage(desk)).not.toContain('skipped');

    // A sync in progress leaves a third of the file, as the nightly reindex runs.
    const pdf = await readFile(path.join(desk.manuals, 'b.pdf'));
    await writeFile(path.join(desk.manuals, 'b.pdf'), pdf.subarray(0, Math.floor(pdf.length / 3)));
    expect(await reindexNow(desk)).toMatchObject({ files: 1, skipped: [{ fileName: 'b.pdf' }] });
    expect(await startPage(desk)).toMatch(SKIP_BANNER);
    // Not a readiness failure: the deployment works, only part of the manual is missing.
    expect((await fetch(`${desk.url}/readyz`)).status).toBe(200);

    // The operator removes it and reindexes: nothing skipped, no banner.
    await rm(path.join(desk.manuals, 'b.pdf'));
    expect(await reindexNow(desk)).toMatchObject({ files: 1, skipped: [] });
    expect(await startPage(desk)).not.toContain('skipped');
  });

  it('a build recorded after the job (npm run reindex on a machine) is no longer the one that skipped', async () => {
    const desk = await startDesk();
    await writeFile(path.join(desk.manuals, 'b.pdf'), 'not a PDF');
    await reindexNow(desk);
    expect(await startPage(desk)).toMatch(SKIP_BANNER);
    // Two minutes on: later than the job by more than the clock skew allowed between machines.
    const [seconds] = await redis.time();
    const later = { hash: 'f'.repeat(64), at: (Number(seconds) + 120) * 1000, host: 'other', pid: 1, backend: 'embedded' };
    await redis.hset(indexBuildsKey(desk.config.QUEUE_PREFIX), 'manual', JSON.stringify(later));
    expect(await startPage(desk)).not.toContain('skipped');
  });

  it('many skipped files: grouped by reason, the first 10 named, the rest counted, and a file name cannot inject markup', async () => {
    const desk = await startDesk();
    await mkdir(path.join(desk.manuals, 'old'));
    for (let i = 1; i <= 23; i++) await writeFile(path.join(desk.manuals, 'old', `m${String(i).padStart(2, '0')}.doc`), 'legacy');
    await writeFile(path.join(desk.manuals, '<img src=x onerror=alert(1)>.pdf'), 'not a PDF');
    expect((await reindexNow(desk)).skipped).toHaveLength(24);
    const page = await startPage(desk);
    expect(page).toContain('the last manual reindex skipped 24 files: fix or remove them; their content is not searchable<ul><li>1 file: <bdi>cannot read PDF: ');
    expect(page).toContain(': <bdi>&lt;img src=x onerror=alert(1)&gt;.pdf</bdi></li><li>23 files: <bdi>.doc is not read; save it as .docx or PDF</bdi>: <bdi>old/m01.doc</bdi>, ');
    expect(page).toContain('<bdi>old/m09.doc</bdi> and 14 more</li></ul>');
    expect(page).not.toContain('old/m10.doc');
    expect(page).not.toContain('<img src=x');
  });

  it('more than 100 skipped files: the job result keeps the first 100 and the count, the start page counts them all (security review 9, finding 3)', async () => {
    const desk = await startDesk();
    await mkdir(path.join(desk.manuals, 'old'));
    await Promise.all(Array.from({ length: 130 }, (_, i) => writeFile(path.join(desk.manuals, 'old', `m${String(i).padStart(3, '0')}.doc`), 'legacy')));
    const result = (await reindexNow(desk)) as { files: number; skipped?: unknown[]; skippedCount?: number };
    expect(result).toMatchObject({ files: 2, skippedCount: 130 });
    expect(result.skipped).toHaveLength(100);
    const page = await startPage(desk);
    expect(page).toContain('the last manual reindex skipped 130 files: fix or remove them; their content is not searchable<ul><li>100 files: <bdi>.doc is not read; save it as .docx or PDF</bdi>: <bdi>old/m000.doc</bdi>, ');
    expect(page).toContain('<bdi>old/m009.doc</bdi> and 90 more</li><li>30 more files (named in the maintenance worker’s log)</li></ul>');
  });
});
