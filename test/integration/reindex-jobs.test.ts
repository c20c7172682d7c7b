import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reindexManual } from '../../jobs/reindex-manual.js';
import { reindexQa } from '../../jobs/reindex-qa.js';
import { parseConfig, type Config } from '../../src/config.js';
import { EmptySourceError, KnowledgeError } from '../../src/knowledge/errors.js';
import { createSearchBackends, type SearchBackends } from '../../src/search/factory.js';
import type { ProgressFn } from '../../src/search/types.js';

const MANUALS_DIR = path.resolve('data/manuals');
const QA_DIR = path.resolve('data/qa');

function recorder(): { onProgress: ProgressFn; events: { stage: string; done: number; total: number }[] } {
  const events: { stage: string; done: number; total: number }[] = [];
  return { events, onProgress: (p) => void events.push({ ...p }) };
}

describe('reindex jobs on the embedded engines', () => {
  let root: string;
  let config: Config;
  let backends: SearchBackends;
  let emptyDir: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'reindex-jobs-'));
    emptyDir = path.join(root, 'empty');
    await mkdir(emptyDir);
    config = parseConfig({
      DATA_DIR: path.join(root, 'data'),
      MANUALS_DIR,
      QA_DIR,
      EMBEDDINGS_PROVIDER: 'local',
      EMBEDDING_DIMENSIONS: '256',
      LOG_LEVEL: 'silent',
    });
    backends = createSearchBackends(config);
  });

  afterAll(async () => {
    await backends.manual.close?.();
    await backends.qa.close?.();
    await rm(root, { recursive: true, force: true });
  });

  it('an empty source directory and no index yet is fine: nothing to wipe', async () => {
    const manual = await reindexManual({ dir: emptyDir }, { config, manual: backends.manual });
    const qa = await reindexQa({ dir: emptyDir }, { config, qa: backends.qa });
    expect(manual).toMatchObject({ files: 0, chunks: 0 });
    expect(qa).toMatchObject({ files: 0, pairs: 0 });
    expect(await backends.manual.count()).toBe(0);
  });

  it('indexes the sample manual and Q&A, reporting progress', async () => {
    const manualProgress = recorder();
    const manual = await reindexManual({}, { config, manual: backends.manual, onProgress: manualProgress.onProgress });
    expect(manual.files).toBe(1);
    expect(manual.chunks).toBeGreaterThan(20);
    expect(manual.seconds).toBeGreaterThan(0);
    expect(await backends.manual.count()).toBe(manual.chunks);

    const qaProgress = recorder();
    const qa = await reindexQa({}, { config, qa: backends.qa, onProgress: qaProgress.onProgress });
    expect(qa.files).toBe(1);
    expect(qa.pairs).toBeGreaterThan(5);
    expect(qa.skipped).toBe(0);
    expect(await backends.qa.count()).toBe(qa.pairs);

    for (const { events } of [manualProgress, qaProgress]) {
      expect(events[0]).toEqual({ stage: 'read', done: 0, total: 1 });
      expect(events).toContainEqual({ stage: 'read', done: 1, total: 1 });
      // After reading, the backend reports its own stage(s), ending complete.
      const backendEvents = events.filter((e) => e.stage !== 'read');
      expect(backendEvents.length).toBeGreaterThan(0);
      for (const e of events) expect(e.done).toBeLessThanOrEqual(e.total);
      const last = events.at(-1)!;
      expect(last.done).toBe(last.total);
    }

    const manualHits = await backends.manual.search('二段階認証 認証アプリ', 3);
    expect(manualHits[0]?.fileName).toBe('xyz-manual.md');
    expect(manualHits.some((h) => h.content.includes('認証アプリ'))).toBe(true);
    const qaHits = await backends.qa.search('バックアップが失敗しても通知が届かない', 3);
    expect(qaHits.length).toBeGreaterThan(0);
    expect(qaHits[0]?.fileName).toMatch(/^xyz-qa\.csv#\d+$/);
  });

  it('a rerun with unchanged sources gives the same index', async () => {
    const manualFile = path.join(config.DATA_DIR, 'manual-index', 'manual.idx');
    const before = await readFile(manualFile);
    const hitsBefore = await backends.manual.search('バックアップ 通知', 3);
    const qaBefore = await backends.qa.search('認証アプリで二段階認証', 3);

    const manual = await reindexManual({}, { config, manual: backends.manual });
    const qa = await reindexQa({}, { config, qa: backends.qa });
    expect(manual.chunks).toBe(await backends.manual.count());
    expect(qa.pairs).toBe(await backends.qa.count());
    expect(await readFile(manualFile)).toEqual(before);
    expect(await backends.manual.search('バックアップ 通知', 3)).toEqual(hitsBefore);
    expect(await backends.qa.search('認証アプリで二段階認証', 3)).toEqual(qaBefore);
  });

  it('another process sees the new index', async () => {
    const other = createSearchBackends(config);
    try {
      expect(await other.manual.count()).toBe(await backends.manual.count());
      expect(await other.qa.count()).toBe(await backends.qa.count());
    } finally {
      await other.manual.close?.();
      await other.qa.close?.();
    }
  });

  it('refuses to replace a non-empty index from an empty directory', async () => {
    const chunks = await backends.manual.count();
    const pairs = await backends.qa.count();
    await expect(reindexManual({ dir: emptyDir }, { config, manual: backends.manual })).rejects.toThrow(EmptySourceError);
    await expect(reindexManual({ dir: emptyDir }, { config, manual: backends.manual })).rejects.toThrow(
      `no manual chunks found in ${emptyDir} (0 readable files); refusing to replace the live manual index of ${chunks} chunks`,
    );
    await expect(reindexQa({ dir: emptyDir }, { config, qa: backends.qa })).rejects.toThrow(
      `no Q&A pairs found in ${emptyDir} (0 CSV files); refusing to replace the live Q&A index of ${pairs} pairs`,
    );
    expect(await backends.manual.count()).toBe(chunks);
    expect(await backends.qa.count()).toBe(pairs);
    expect((await backends.manual.search('二段階認証', 1)).length).toBe(1);
  });

  it('refuses when every row of the CSVs is unusable', async () => {
    const dir = path.join(root, 'qa-unusable');
    await mkdir(dir);
    await writeFile(path.join(dir, 'x.csv'), 'question,answer\n質問だけ,\n,回答だけ\n');
    await expect(reindexQa({ dir }, { config, qa: backends.qa })).rejects.toThrow(/no Q&A pairs found .*\(1 CSV files\)/);
  });

  it('a missing directory or a malformed file fails before anything is replaced', async () => {
    const chunks = await backends.manual.count();
    const pairs = await backends.qa.count();
    await expect(reindexManual({ dir: path.join(root, 'nope') }, { config, manual: backends.manual })).rejects.toThrow(KnowledgeError);

    const dir = path.join(root, 'qa-broken');
    await mkdir(dir);
    await writeFile(path.join(dir, 'a.csv'), 'question,answer\n質問,回答\n');
    await writeFile(path.join(dir, 'b.csv'), 'question,answer\n"閉じていない,回答\n');
    await expect(reindexQa({ dir }, { config, qa: backends.qa })).rejects.toThrow(/b\.csv:\d+: malformed CSV/);

    expect(await backends.manual.count()).toBe(chunks);
    expect(await backends.qa.count()).toBe(pairs);
  });

  it('job data overrides the directory and chunking, and is validated', async () => {
    const dir = path.join(root, 'manual-small');
    await mkdir(dir);
    await writeFile(path.join(dir, 'small.md'), `# 章\n${'これは手順の説明です。'.repeat(30)}`);
    const fine = await reindexManual({ dir, chunkSize: 60, chunkOverlap: 0 }, { config, manual: backends.manual });
    const coarse = await reindexManual({ dir, chunkSize: 400, chunkOverlap: 0 }, { config, manual: backends.manual });
    expect(fine.chunks).toBe(6);
    expect(coarse.chunks).toBe(1);
    expect(await backends.manual.count()).toBe(1);

    await expect(reindexManual({ chunkSize: 'big' } as never, { config, manual: backends.manual })).rejects.toThrow(
      /^reindex-manual: invalid job data: chunkSize: /,
    );
    await expect(reindexManual({ chunkSize: 100, chunkOverlap: 100 }, { config, manual: backends.manual })).rejects.toThrow(
      'reindex-manual: chunk overlap 100 must be smaller than chunk size 100',
    );
    await expect(reindexQa({ dir: '' }, { config, qa: backends.qa })).rejects.toThrow(/^reindex-qa: invalid job data: dir: /);

    // Back to the sample manual for any later test.
    await reindexManual(undefined, { config, manual: backends.manual });
    expect(await backends.manual.count()).toBeGreaterThan(20);
  });
});

describe('the Q&A reindex keeps the desk\'s own addresses in the pairs it scrubs', () => {
  it.each([
    // MAIL_FROM's domain (with a display name) keeps the desk's address; a customer's on a shared domain goes.
    ['XYZ Support <desk@xyz.co.jp>', true],
    // A desk on a shared mail domain has no own domain: every address there is a customer's.
    ['XYZ Support <xyz.support@gmail.com>', false],
  ])('MAIL_FROM=%s', async (mailFrom, kept) => {
    const root = await mkdtemp(path.join(tmpdir(), 'reindex-own-'));
    try {
      const qaDir = path.join(root, 'qa');
      await mkdir(qaDir);
      await writeFile(
        path.join(qaDir, 'faq.csv'),
        '質問,回答\n"返品の窓口はどこですか","返品は desk@xyz.co.jp までご連絡ください。山田太郎様の件は taro.yamada@gmail.com へ返信済みです。"\n',
      );
      const config = parseConfig({ DATA_DIR: path.join(root, 'data'), QA_DIR: qaDir, MAIL_FROM: mailFrom, EMBEDDINGS_PROVIDER: 'local', EMBEDDING_DIMENSIONS: '256', LOG_LEVEL: 'silent' });
      const backends = createSearchBackends(config);
      try {
        await reindexQa({}, { config, qa: backends.qa });
        const [hit] = await backends.qa.search('返品の窓口', 1);
        expect(hit?.content).toBeDefined();
        expect(hit!.content.includes('desk@xyz.co.jp')).toBe(kept);
        expect(hit!.content).not.toContain('taro.yamada@gmail.com');
      } finally {
        await backends.manual.close?.();
        await backends.qa.close?.();
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
