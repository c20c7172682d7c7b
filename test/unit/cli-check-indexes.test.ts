/**
 * `npm run check`'s word on the folders the reindex reads: MANUALS_DIR or QA_DIR naming no folder left check ✓ while
 * `npm run reindex` exited 1 and the nightly reindex failed with nobody told (walkthrough 45, L4).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeFolderProblem, withSourceFolder } from '../../src/cli/check-indexes.js';
import type { CheckOutcome } from '../../src/cli/check.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'check-indexes-'));
  await mkdir(path.join(dir, 'manuals'));
  await writeFile(path.join(dir, 'qa.csv'), 'question,answer\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('knowledgeFolderProblem', () => {
  it.each<[variable: 'MANUALS_DIR' | 'QA_DIR', folder: string, cron: string, says: ((abs: string) => string) | undefined]>([
    ['MANUALS_DIR', 'manuals', '0 3 * * *', undefined],
    [
      'MANUALS_DIR',
      'nowhere',
      '0 3 * * *',
      (abs) => `MANUALS_DIR ${abs} does not exist: npm run reindex fails, and so does the scheduled reindex (REINDEX_MANUAL_CRON 0 3 * * *); set MANUALS_DIR to the folder of the manual files`,
    ],
    [
      'QA_DIR',
      'nowhere',
      '30 3 * * *',
      (abs) => `QA_DIR ${abs} does not exist: npm run reindex fails, and so does the scheduled reindex (REINDEX_QA_CRON 30 3 * * *); set QA_DIR to the folder of the Q&A files`,
    ],
    // No schedule: only the command fails.
    ['QA_DIR', 'nowhere', '', (abs) => `QA_DIR ${abs} does not exist: npm run reindex fails; set QA_DIR to the folder of the Q&A files`],
    // A file where the folder should be, as when QA_DIR names the CSV itself.
    [
      'QA_DIR',
      'qa.csv',
      '30 3 * * *',
      (abs) => `QA_DIR ${abs} is not a directory: npm run reindex fails, and so does the scheduled reindex (REINDEX_QA_CRON 30 3 * * *); set QA_DIR to the folder of the Q&A files`,
    ],
  ])('%s %s (cron %j)', async (variable, folder, cron, says) => {
    const abs = path.join(dir, folder);
    expect(await knowledgeFolderProblem(variable, abs, cron)).toBe(says?.(abs));
  });

  it('names the folder as the reindex does, resolved from the working directory', async () => {
    const relative = path.relative(process.cwd(), path.join(dir, 'nowhere'));
    expect(await knowledgeFolderProblem('MANUALS_DIR', relative, '')).toContain(`MANUALS_DIR ${path.join(dir, 'nowhere')} does not exist`);
  });
});

// An agent-only machine with Meilisearch or Qdrant never reindexes: another machine builds the shared index, and the
// default data/manuals or data/qa is missing here. check said ✗ and exited 1 there (bug review 45e #6). With an
// external backend the folder is a warning for the machine that runs the reindex; the embedded engine's own reindex
// needs it, so there it stays a failure.
describe('withSourceFolder', () => {
  const ok = (what: string): CheckOutcome => ({ what, where: 'here', status: 'ok', detail: '12 entries' });
  const config = (over: { MEILI_HOST?: string; QDRANT_URL?: string }) => ({
    MANUALS_DIR: path.join(dir, 'nowhere'),
    QA_DIR: path.join(dir, 'nowhere'),
    REINDEX_MANUAL_CRON: '',
    REINDEX_QA_CRON: '',
    MEILI_HOST: '',
    QDRANT_URL: '',
    ...over,
  });
  const missing = (variable: string, files: string) => `${variable} ${path.join(dir, 'nowhere')} does not exist: npm run reindex fails; set ${variable} to the folder of ${files}`;

  it.each<[name: string, index: 'manual' | 'qa', over: { MEILI_HOST?: string; QDRANT_URL?: string }, status: CheckOutcome['status'], detail: () => string]>([
    ['embedded manual engine', 'manual', {}, 'failed', () => `${missing('MANUALS_DIR', 'the manual files')}; the index here: 12 entries`],
    ['embedded Q&A index', 'qa', {}, 'failed', () => `${missing('QA_DIR', 'the Q&A files')}; the index here: 12 entries`],
    ['Meilisearch', 'manual', { MEILI_HOST: 'http://127.0.0.1:7700' }, 'warning', () => `12 entries; if this machine runs the reindex: ${missing('MANUALS_DIR', 'the manual files')}`],
    ['Qdrant', 'qa', { QDRANT_URL: 'http://127.0.0.1:6333' }, 'warning', () => `12 entries; if this machine runs the reindex: ${missing('QA_DIR', 'the Q&A files')}`],
    // Each index by its own backend: Qdrant does not excuse the embedded manual engine's folder.
    ['embedded manual beside Qdrant', 'manual', { QDRANT_URL: 'http://127.0.0.1:6333' }, 'failed', () => `${missing('MANUALS_DIR', 'the manual files')}; the index here: 12 entries`],
  ])('%s (%s index, %j): a missing folder makes the line %s', async (_name, index, over, status, detail) => {
    const what = index === 'manual' ? 'Manual search' : 'Q&A search';
    expect(await withSourceFolder(index, ok(what), config(over))).toEqual({ what, where: 'here', status, detail: detail() });
  });

  it('an external backend that failed stays failed, the folder named beside it', async () => {
    const failed: CheckOutcome = { what: 'Manual search', where: 'Meilisearch', status: 'failed', detail: 'connection refused' };
    expect(await withSourceFolder('manual', failed, config({ MEILI_HOST: 'http://127.0.0.1:7700' }))).toEqual({
      ...failed,
      detail: `connection refused; if this machine runs the reindex: ${missing('MANUALS_DIR', 'the manual files')}`,
    });
  });

  it('a readable folder leaves the line as it was, whatever the backend', async () => {
    const readable = { ...config({ MEILI_HOST: 'http://127.0.0.1:7700' }), MANUALS_DIR: path.join(dir, 'manuals') };
    expect(await withSourceFolder('manual', ok('Manual search'), readable)).toEqual(ok('Manual search'));
    expect(await withSourceFolder('manual', ok('Manual search'), { ...readable, MEILI_HOST: '' })).toEqual(ok('Manual search'));
  });
});
