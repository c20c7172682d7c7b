/**
 * `npm run reindex` over a manual folder holding a file whose name carries terminal escape sequences (security
 * review 9, finding 1): the summary's "skipped" line, the "no readable manual file" error and the `--queue --wait`
 * summary print the name without its control characters. The command runs as a child process, as an admin runs it,
 * against a real redis-server; `--queue` hands the rebuild to a real maintenance role.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { DEFAULT_TUNING } from '../../src/queues/job-options.js';
import { startMaintenanceRole } from '../../src/runtime/maintenance.js';
import { removePrefix, runNpm } from '../support/pipeline.js';

// A retitle (OSC 0 ended by BEL), a screen clear, a colour, a one-byte CSI and a right-to-left override.
const HOSTILE_NAME = 'a\u001b]0;PWNED-TITLE\u0007\u001b[2J\u001b[31m\u009b1m\u202Ered.doc';
const SHOWN_NAME = 'a]0;PWNED-TITLE[2J[31m1mred.doc';
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Bidi_Control}]/u;

let redisServer: RedisServer;
let root: string;

beforeAll(async () => {
  redisServer = await startRedis();
  root = await mkdtemp(path.join(tmpdir(), 'reindex-terminal-'));
});
afterAll(async () => {
  await redisServer?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

/** A manual folder with the hostile file (and a readable page when asked), a Q&A folder, and the command's env. */
async function desk(withReadablePage: boolean): Promise<Record<string, string>> {
  const dir = await mkdtemp(path.join(root, 'desk-'));
  const manuals = path.join(dir, 'manuals');
  await mkdir(manuals);
  await mkdir(path.join(dir, 'qa'));
  await writeFile(path.join(manuals, HOSTILE_NAME), 'legacy');
  if (withReadablePage) await writeFile(path.join(manuals, 'ok.md'), '# OK\n\nセッションのタイムアウトは 60 分です。\n');
  await writeFile(path.join(dir, 'qa', 'faq.csv'), 'question,answer\nq,a\n');
  return {
    HELPDESK_ENV_FILE: 'none',
    LOG_LEVEL: 'silent',
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDING_DIMENSIONS: '64',
    REDIS_URL: redisServer.url,
    QUEUE_PREFIX: `term${randomUUID().replaceAll('-', '').slice(0, 12)}`,
    DATA_DIR: path.join(dir, 'data'),
    MANUALS_DIR: manuals,
    QA_DIR: path.join(dir, 'qa'),
    REINDEX_MANUAL_CRON: '',
    REINDEX_QA_CRON: '',
    RETENTION_CRON: '',
  };
}

describe('npm run reindex prints a hostile manual file name inert', () => {
  it.each([
    { what: 'the summary of a rebuild that skipped it', readable: true, code: 0, stream: 'stdout' as const, shows: `  warning: skipped 1 file: .doc is not read; save it as .docx or PDF: ${SHOWN_NAME}` },
    { what: 'the error of a rebuild that found nothing else', readable: false, code: 1, stream: 'stderr' as const, shows: `reindex: no readable manual file found in ` },
  ])('$what', async ({ readable, code, stream, shows }) => {
    const env = await desk(readable);
    try {
      const run = await runNpm(['run', 'reindex', '--', '--manual-only'], env, 60_000);
      expect(run.code, run.stderr).toBe(code);
      expect(run.stdout).not.toMatch(CONTROL);
      expect(run.stderr).not.toMatch(CONTROL);
      expect(run[stream]).toContain(shows);
      expect(run[stream]).toContain(SHOWN_NAME);
    } finally {
      await removePrefix(redisServer.url, env.QUEUE_PREFIX!);
    }
  }, 90_000);

  it('the error of a rebuild that skipped more files than its result names still counts them all', async () => {
    const env = await desk(false);
    await Promise.all(Array.from({ length: 104 }, (_, i) => writeFile(path.join(env.MANUALS_DIR!, `old-${String(i).padStart(3, '0')}.doc`), 'legacy')));
    try {
      const run = await runNpm(['run', 'reindex', '--', '--manual-only'], env, 60_000);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toMatch(/^ {2}warning: skipped 100 files: \.doc is not read; save it as \.docx or PDF: (?:[^,\n]+, ){9}[^,\n]+ and 90 more$/m);
      expect(run.stdout).toContain('  warning: 5 more files skipped (named in the log)');
      expect(run.stderr.trimEnd()).toMatch(/; and 5 more files skipped \(named in the log\)$/);
    } finally {
      await removePrefix(redisServer.url, env.QUEUE_PREFIX!);
    }
  }, 90_000);

  it('--queue --wait: the summary of the maintenance worker\'s job', async () => {
    const env = await desk(true);
    const role = await startMaintenanceRole(parseConfig(env), { tuning: { ...DEFAULT_TUNING, reindexBackoffMs: 200 }, buildEmptyIndexes: false });
    try {
      const run = await runNpm(['run', 'reindex', '--', '--manual-only', '--queue', '--wait'], env, 60_000);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toMatch(CONTROL);
      expect(run.stdout).toContain(`  warning: skipped 1 file: .doc is not read; save it as .docx or PDF: ${SHOWN_NAME}`);
    } finally {
      await role.stop();
      await removePrefix(redisServer.url, env.QUEUE_PREFIX!);
    }
  }, 90_000);
});
