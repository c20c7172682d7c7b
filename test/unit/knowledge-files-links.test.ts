import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnowledgeError } from '../../src/knowledge/errors.js';
import { MAX_SOURCE_FILE_BYTES, listSources } from '../../src/knowledge/files.js';
import type { Logger } from '../../src/logger.js';

let root: string;
let manuals: string;
let outside: string;
let warnings: string[];
const logger = (): Logger => ({ warn: (_: unknown, msg: string) => void warnings.push(msg), debug: () => undefined, info: () => undefined }) as unknown as Logger;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'manual-links-'));
  manuals = path.join(root, 'manuals'); // MANUALS_DIR, a documentation checkout
  outside = path.join(root, 'app'); // stands for /app, /etc or /run/secrets on the server
  await mkdir(path.join(manuals, 'guide'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(manuals, 'guide', 'login.md'), '# ログイン\n本文。');
  await writeFile(path.join(outside, 'config.txt'), 'SMTP_PASS=hunter2');
  warnings = [];
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a folder link in a knowledge folder follows the rule of a file link', () => {
  it.each([
    ['a folder outside the tree', () => outside, 'ops'],
    ['the parent of the tree', () => root, 'up'],
    ['a folder beside the tree whose name starts like it', () => `${manuals}-secrets`, 'near'],
  ])('a link to %s is not followed, with a warning naming the link', async (_, target, link) => {
    await mkdir(`${manuals}-secrets`, { recursive: true });
    await writeFile(path.join(`${manuals}-secrets`, 'key.txt'), 'secret');
    await symlink(target(), path.join(manuals, link));
    const listing = await listSources(manuals, ['.md', '.txt'], 'manuals', logger(), { recursive: true });
    expect(listing.files.map((f) => f.fileName)).toEqual(['guide/login.md']);
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`^skipping ${link}: a link to a folder outside the folder being read`))]);
  });

  it('a link that stays inside the tree is read once, under the path of its target', async () => {
    await symlink(path.join(manuals, 'guide'), path.join(manuals, 'alias'));
    await symlink(path.join(outside, 'config.txt'), path.join(manuals, 'guide', 'config.txt'));
    const listing = await listSources(manuals, ['.md', '.txt'], 'manuals', logger(), { recursive: true });
    expect(listing.files.map((f) => f.fileName)).toEqual(['guide/login.md']);
    expect(warnings).toEqual([expect.stringContaining('alias'), expect.stringMatching(/^skipping guide\/config\.txt: a link to a file outside/)]);
  });
});

describe('a knowledge file larger than a reader takes', () => {
  it('is refused, naming the file, its size and the limit, before anything reads it', async () => {
    // Sparse: the size is declared without writing the bytes.
    const big = path.join(manuals, 'guide', 'huge.txt');
    await writeFile(big, '');
    await truncate(big, MAX_SOURCE_FILE_BYTES + 1);
    const error = await listSources(manuals, ['.md', '.txt'], 'manuals', logger(), { recursive: true }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(KnowledgeError);
    expect((error as KnowledgeError).file).toBe(big);
    expect((error as Error).message).toBe(
      `${big}: ${(MAX_SOURCE_FILE_BYTES + 1).toLocaleString('en-US')} bytes, more than the ${MAX_SOURCE_FILE_BYTES.toLocaleString('en-US')} a knowledge file may hold; split it or make it smaller`,
    );
  });

  it('at the limit it is listed', async () => {
    const big = path.join(manuals, 'guide', 'large.txt');
    await writeFile(big, '');
    await truncate(big, MAX_SOURCE_FILE_BYTES);
    const listing = await listSources(manuals, ['.md', '.txt'], 'manuals', logger(), { recursive: true });
    expect(listing.files.map((f) => f.fileName)).toEqual(['guide/large.txt', 'guide/login.md']);
  });

  it('a file of a kind not read is not refused for its size', async () => {
    const video = path.join(manuals, 'guide', 'tour.mp4');
    await writeFile(video, '');
    await truncate(video, MAX_SOURCE_FILE_BYTES + 1);
    const listing = await listSources(manuals, ['.md', '.txt'], 'manuals', logger(), { recursive: true });
    expect(listing.files.map((f) => f.fileName)).toEqual(['guide/login.md']);
  });
});
