import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import {
  evaluateManualDataset,
  evaluateQaDataset,
  firstRelevantRank,
  formatDatasetResults,
  parseTsv,
  rankMetrics,
  sectionNumbers,
} from '../../src/search/evaluate-dataset.js';

const config = parseConfig({ EMBEDDINGS_PROVIDER: 'local' });

describe('dataset evaluation helpers', () => {
  it.each([
    { ranks: [1, 2, 3, undefined], metrics: { queries: 4, hitAt1: 0.25, hitAt3: 0.75, hitAt10: 0.75, mrrAt10: (1 + 0.5 + 1 / 3) / 4 } },
    { ranks: [10, undefined], metrics: { queries: 2, hitAt1: 0, hitAt3: 0, hitAt10: 0.5, mrrAt10: 0.05 } },
    { ranks: [], metrics: { queries: 0, hitAt1: 0, hitAt3: 0, hitAt10: 0, mrrAt10: 0 } },
  ])('rankMetrics($ranks)', ({ ranks, metrics }) => {
    const got = rankMetrics(ranks);
    expect({ ...got, mrrAt10: Number(got.mrrAt10.toFixed(6)) }).toEqual({ ...metrics, mrrAt10: Number(metrics.mrrAt10.toFixed(6)) });
  });

  it('firstRelevantRank looks at the top 10 only', () => {
    expect(firstRelevantRank([5, 6, 7], (x) => x === 7)).toBe(3);
    expect(firstRelevantRank(Array.from({ length: 12 }, (_, i) => i), (x) => x === 11)).toBeUndefined();
  });

  it('parseTsv names missing columns and keeps the first rows', () => {
    expect(parseTsv('query\trelevant_file\nq1\ta.md\nq2\tb.md\n', ['query', 'relevant_file'], 1)).toEqual([{ query: 'q1', relevant_file: 'a.md' }]);
    expect(() => parseTsv('query\tfile\n', ['query', 'relevant_file'])).toThrow(/relevant_file/);
  });

  it('sectionNumbers counts distinct heading paths per file in order', () => {
    const c = (fileName: string, heading: string) => ({ id: '', fileName, heading, content: '' });
    expect(sectionNumbers([c('a', 'x'), c('a', 'x'), c('a', 'y'), c('b', 'x'), c('a', 'z')])).toEqual([1, 1, 2, 1, 3]);
  });
});

describe('npm run eval on a directory and a CSV', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'eval-dataset-'));
    await mkdir(path.join(root, 'manual', 'guide'), { recursive: true });
    await writeFile(path.join(root, 'manual', 'index.md'), '# はじめに\n## 概要\n本製品はクラウド会計サービスです。\n## 料金\n月額料金は利用者数で決まります。');
    await writeFile(path.join(root, 'manual', 'guide', 'index.md'), '# ログイン\n## 二段階認証\n認証アプリで確認コードを入力します。\n## パスワード\nパスワードは設定画面で変更します。');
    await writeFile(
      path.join(root, 'manual-queries.tsv'),
      'query\trelevant_file\tparagraph_index\n認証アプリの確認コード\tguide/index.md\t1\nパスワードの変更\tguide/index.md\t2\n月額料金\tindex.md\t2\n',
    );
    await writeFile(path.join(root, 'qa.csv'), 'question,answer\nコードが届かない,SMS の受信設定を確認してください\n請求書はどこですか,管理画面からダウンロードできます\n');
    await writeFile(path.join(root, 'qa-queries.tsv'), 'query\trelevant_rows\n請求書をダウンロードしたい\t2\n確認コードが届きません\t1\n');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('manual: ours and the bigram baseline, by section and by file, on files in subfolders', async () => {
    const results = await evaluateManualDataset(config, { dir: path.join(root, 'manual'), queriesTsv: await readFile(path.join(root, 'manual-queries.tsv'), 'utf8') });
    expect(results.map((r) => `${r.task} / ${r.engine}`)).toEqual([
      'manual by section / embedded',
      'manual by section / bigram BM25',
      'manual by section / uni+bigram BM25',
      'manual by file / embedded',
      'manual by file / bigram BM25',
      'manual by file / uni+bigram BM25',
    ]);
    expect(results[0]!.metrics).toMatchObject({ queries: 3, hitAt1: 1 });
    expect(formatDatasetResults(results)).toMatch(/^task\s+engine\s+n\s+hit@1\s+hit@3\s+hit@10\s+MRR@10\n/);
  });

  it('qa: rows are 1-based data rows of the CSV', async () => {
    const results = await evaluateQaDataset(config, { csv: path.join(root, 'qa.csv'), queriesTsv: await readFile(path.join(root, 'qa-queries.tsv'), 'utf8') });
    expect(results[0]!.engine).toBe('embedded (hashed-ngram:1536)');
    expect(results[0]!.metrics).toMatchObject({ queries: 2, hitAt1: 1 });
    expect(results[1]!.engine).toBe('bigram BM25');
    expect(results[2]!.engine).toBe('uni+bigram BM25');
    expect(results[2]!.oursVersus).toBeDefined();
  });

  it('the command prints the table, writes --json, and exits 2 with usage on bad arguments', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn('npx', ['tsx', 'src/search/evaluate.ts', ...args], {
          env: { ...process.env, EMBEDDINGS_PROVIDER: 'local', LOG_LEVEL: 'warn' },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let stdout = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.on('close', (code) => resolve({ code, stdout }));
      });
    const json = path.join(root, 'out.json');
    const ok = await run(['qa', '--csv', path.join(root, 'qa.csv'), '--queries', path.join(root, 'qa-queries.tsv'), '--json', json]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/uni\+bigram BM25/);
    expect(JSON.parse(await readFile(json, 'utf8')).results).toHaveLength(3);
    const bad = await run(['manual', '--queries', path.join(root, 'manual-queries.tsv')]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/usage:/);
  }, 60_000);
});

describe('the sample manual as a PDF (data/pdf/xyz-manual.pdf, rendered from data/manuals/xyz-manual.md)', () => {
  it('is found by section under its headings, ours not below the bigram baseline', async () => {
    // The repository's manual queries with the heading each one is written against.
    const queries = JSON.parse(await readFile('test/fixtures/eval/manual.json', 'utf8')) as { query: string; expectHeading: string }[];
    const tsv = ['query\trelevant_file\trelevant_section', ...queries.map((q) => `${q.query}\txyz-manual.pdf\t${q.expectHeading}`)].join('\n');
    const results = await evaluateManualDataset(config, { dir: path.resolve('data/pdf'), queriesTsv: tsv });
    const bySection = results.filter((r) => r.task === 'manual by section');
    const [ours, base] = bySection;
    // Before headings were read from the type sizes, every PDF chunk had an empty heading: 0 by section.
    expect(ours!.metrics.hitAt3).toBeGreaterThan(0.7);
    expect(ours!.metrics.hitAt3).toBeGreaterThanOrEqual(base!.metrics.hitAt3);
    expect(ours!.metrics.mrrAt10).toBeGreaterThanOrEqual(base!.metrics.mrrAt10);
  }, 60_000);
});

// The development set of ../shared (JSQuAD, CC BY-SA 4.0); its README explains what the numbers do and do not say.
const DEV_SET = path.resolve('../shared/datasets/jsquad-retrieval');

describe('the JSQuAD development set (../shared/datasets/jsquad-retrieval)', () => {
  it('exists beside the checkout', () => {
    expect(existsSync(DEV_SET), `${DEV_SET} is missing: clone the project with ../shared beside it`).toBe(true);
  });

  it('manual in folders: every file found, ours not below the bigram baseline by section (first 500 queries)', async () => {
    const results = await evaluateManualDataset(config, {
      dir: path.join(DEV_SET, 'manual'),
      queriesTsv: await readFile(path.join(DEV_SET, 'manual-queries.tsv'), 'utf8'),
      limit: 500,
    });
    const [ours, base] = results;
    expect(ours!.metrics.hitAt1).toBeGreaterThanOrEqual(base!.metrics.hitAt1);
    expect(ours!.metrics.hitAt3).toBeGreaterThanOrEqual(base!.metrics.hitAt3);
  }, 60_000);

  it.each(['qa', 'qa-short'])('%s: ours not below the bigram baseline at hit@3 (first 500 queries)', async (set) => {
    const results = await evaluateQaDataset(config, {
      csv: path.join(DEV_SET, set, 'pairs.csv'),
      queriesTsv: await readFile(path.join(DEV_SET, 'qa-queries.tsv'), 'utf8'),
      limit: 500,
    });
    const [ours, base] = results;
    expect(ours!.metrics.hitAt3).toBeGreaterThanOrEqual(base!.metrics.hitAt3);
  }, 60_000);
});
