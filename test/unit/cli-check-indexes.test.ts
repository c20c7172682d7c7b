/**
 * `npm run check`'s word on the folders the reindex reads: MANUALS_DIR or QA_DIR naming no folder left check ✓ while
 * `npm run reindex` exited 1 and the nightly reindex failed with nobody told (walkthrough 45, L4).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeFolderProblem } from '../../src/cli/check-indexes.js';

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
