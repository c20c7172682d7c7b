/**
 * `npm run reindex` over a manual folder with one good page, one empty .md and one PDF of a picture without a text
 * layer (a scan): the page is indexed and counted, the two are named in the summary as skipped, each with what to do
 * (walkthrough 45, L1: both were counted among the files read and named nowhere). A folder of such files alone still
 * gives an empty index and exit 0, as before. The command runs as a child process, as an admin runs it, against a
 * real redis-server.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { removePrefix, runNpm } from '../support/pipeline.js';
import { imageOnlyPdf } from '../support/image-only-pdf.js';

let redisServer: RedisServer;
let root: string;

beforeAll(async () => {
  redisServer = await startRedis();
  root = await mkdtemp(path.join(tmpdir(), 'reindex-textless-'));
});
afterAll(async () => {
  await redisServer?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

/** A desk whose manual folder holds the empty page and the scan, and the good page when asked; the command's env. */
async function desk(withGoodPage: boolean): Promise<Record<string, string>> {
  const dir = await mkdtemp(path.join(root, 'desk-'));
  const manuals = path.join(dir, 'manuals');
  await mkdir(manuals);
  await mkdir(path.join(dir, 'qa'));
  if (withGoodPage) await writeFile(path.join(manuals, 'good.md'), '# 料金\n\n月額 1,000 円です。セッションのタイムアウトは 60 分です。\n');
  await writeFile(path.join(manuals, 'empty.md'), '');
  await writeFile(path.join(manuals, 'scan.pdf'), await imageOnlyPdf());
  return {
    HELPDESK_ENV_FILE: 'none',
    LOG_LEVEL: 'silent',
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDING_DIMENSIONS: '64',
    REDIS_URL: redisServer.url,
    QUEUE_PREFIX: `txl${randomUUID().replaceAll('-', '').slice(0, 12)}`,
    DATA_DIR: path.join(dir, 'data'),
    MANUALS_DIR: manuals,
    QA_DIR: path.join(dir, 'qa'),
  };
}

const EMPTY = '  warning: skipped 1 file: empty file: empty.md';
const SCAN = '  warning: skipped 1 file: no text: a scanned PDF needs OCR first (run OCR on it, or export it again with its text): scan.pdf';

describe('npm run reindex names the manual files without text', () => {
  it('indexes the good page and reports the empty page and the scan as skipped, with reasons', async () => {
    const env = await desk(true);
    try {
      const run = await runNpm(['run', 'reindex', '--', '--manual-only'], env, 90_000);
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^reindexed: 1 manual file, [1-9]\d* chunks? in /);
      expect(lines).toContain(EMPTY);
      expect(lines).toContain(SCAN);
      const json = await runNpm(['run', 'reindex', '--', '--manual-only', '--json'], env, 90_000);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ manual: { files: 1, skippedCount: 2, skipped: [{ fileName: 'empty.md' }, { fileName: 'scan.pdf' }] } });
      const search = await runNpm(['run', 'search', '--', 'manual', 'タイムアウト'], env, 90_000);
      expect(search.code, search.stderr).toBe(0);
      expect(search.stdout).toContain('good.md#1');
    } finally {
      await removePrefix(redisServer.url, env.QUEUE_PREFIX!);
    }
  }, 240_000);

  it('a scan as the only readable file behind more than 100 other skips whose names sort first still exits 0, as before', async () => {
    const env = await desk(false);
    // The job's result names the first 100 skipped files; .doc files sorted before the scan and the empty page.
    for (let i = 0; i < 120; i++) await writeFile(path.join(env.MANUALS_DIR!, `a${String(i).padStart(3, '0')}.doc`), 'old Word');
    try {
      const run = await runNpm(['run', 'reindex', '--', '--manual-only'], env, 90_000);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim().split('\n')[0]).toMatch(/^reindexed: 0 manual files, 0 chunks in /);
    } finally {
      await removePrefix(redisServer.url, env.QUEUE_PREFIX!);
    }
  }, 120_000);

  it('a folder of files without text alone: an empty index and exit 0, as before, the files named', async () => {
    const env = await desk(false);
    try {
      const run = await runNpm(['run', 'reindex', '--', '--manual-only'], env, 90_000);
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^reindexed: 0 manual files, 0 chunks in /);
      expect(lines).toContain(EMPTY);
      expect(lines).toContain(SCAN);
    } finally {
      await removePrefix(redisServer.url, env.QUEUE_PREFIX!);
    }
  }, 120_000);
});
