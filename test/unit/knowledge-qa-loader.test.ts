import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnowledgeError } from '../../src/knowledge/errors.js';
import { loadQaPairs, parseQaCsv } from '../../src/knowledge/qa-loader.js';

type Row = [row: number, question: string, answer: string];

describe('parseQaCsv', () => {
  const cases: { name: string; csv: string; pairs: Row[]; skipped?: number[] }[] = [
    { name: 'plain rows', csv: 'question,answer\nQ1,A1\nQ2,A2\n', pairs: [[1, 'Q1', 'A1'], [2, 'Q2', 'A2']] },
    { name: 'quoted comma', csv: 'q,a\n"設定は、どこ?","画面右上、歯車から"\n', pairs: [[1, '設定は、どこ?', '画面右上、歯車から']] },
    { name: 'ascii comma in quotes', csv: 'q,a\n"a, b","c, d, e"\n', pairs: [[1, 'a, b', 'c, d, e']] },
    { name: 'escaped quotes', csv: 'q,a\n"「""保存""」とは","""OK"" を押す"\n', pairs: [[1, '「"保存"」とは', '"OK" を押す']] },
    { name: 'newline inside a field', csv: 'q,a\n"一行目\n二行目","手順:\n1. 開く\n2. 押す"\nQ2,A2\n', pairs: [[1, '一行目\n二行目', '手順:\n1. 開く\n2. 押す'], [2, 'Q2', 'A2']] },
    { name: 'byte order mark', csv: '\uFEFFq,a\nQ1,A1\n', pairs: [[1, 'Q1', 'A1']] },
    { name: 'CRLF line ends', csv: 'q,a\r\nQ1,A1\r\n"x\r\ny",A2\r\n', pairs: [[1, 'Q1', 'A1'], [2, 'x\ny', 'A2']] },
    { name: 'blank lines are not rows', csv: 'q,a\n\nQ1,A1\n\n\nQ2,A2\n\n', pairs: [[1, 'Q1', 'A1'], [2, 'Q2', 'A2']] },
    { name: 'no final line break', csv: 'q,a\nQ1,A1', pairs: [[1, 'Q1', 'A1']] },
    { name: 'surrounding spaces trimmed', csv: 'q,a\n  Q1 , A1  \n', pairs: [[1, 'Q1', 'A1']] },
    { name: 'extra columns ignored', csv: 'q,a,tags\nQ1,A1,login\n', pairs: [[1, 'Q1', 'A1']] },
    { name: 'missing answer column', csv: 'q,a\nonly a question\nQ2,A2\n', pairs: [[2, 'Q2', 'A2']], skipped: [1] },
    { name: 'empty answer', csv: 'q,a\nQ1,\nQ2,A2\n', pairs: [[2, 'Q2', 'A2']], skipped: [1] },
    { name: 'empty question', csv: 'q,a\n,A1\nQ2,A2\n', pairs: [[2, 'Q2', 'A2']], skipped: [1] },
    { name: 'whitespace-only fields', csv: 'q,a\n" ","  "\nQ2,A2\n', pairs: [[2, 'Q2', 'A2']], skipped: [1] },
    { name: 'header only', csv: 'question,answer\n', pairs: [] },
    { name: 'empty file', csv: '', pairs: [] },
  ];

  it.each(cases)('$name', ({ csv, pairs, skipped = [] }) => {
    const result = parseQaCsv(csv, 'qa.csv');
    expect(result.pairs.map((p): Row => [p.row, p.question, p.answer])).toEqual(pairs);
    expect(result.skipped.map((s) => s.row)).toEqual(skipped);
    for (const p of result.pairs) {
      expect(p.id).toBe(`qa.csv#${p.row}`);
      expect(p.fileName).toBe('qa.csv');
    }
  });

  it('keeps row numbers (and ids) of later rows when an earlier row is skipped', () => {
    const { pairs } = parseQaCsv('q,a\nQ1,\nQ2,A2\nQ3,A3\n', 'f.csv');
    expect(pairs.map((p) => p.id)).toEqual(['f.csv#2', 'f.csv#3']);
  });

  it('describes skipped rows with file, row, line and reason', () => {
    const { skipped } = parseQaCsv('q,a\nQ1,A1\n\nQ2,\n', 'f.csv');
    expect(skipped).toEqual([{ fileName: 'f.csv', row: 2, line: 4, reason: 'empty answer' }]);
  });

  it.each([
    { name: 'unclosed quote', csv: 'q,a\n"Q1,A1\nQ2,A2\n' },
    { name: 'text after a closing quote', csv: 'q,a\n"Q1"x,A1\n' },
    { name: 'quote inside an unquoted field', csv: 'q,a\nQ"1,A1\n' },
  ])('malformed CSV ($name) is a KnowledgeError naming file and line', ({ csv }) => {
    let error: unknown;
    try {
      parseQaCsv(csv, 'bad.csv', { file: '/data/qa/bad.csv' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(KnowledgeError);
    const e = error as KnowledgeError;
    expect(e.message).toMatch(/^\/data\/qa\/bad\.csv:\d+: malformed CSV: /);
    expect(e.file).toBe('/data/qa/bad.csv');
    expect(e.line).toBeGreaterThanOrEqual(2);
  });
});

describe('loadQaPairs', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'qa-loader-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads every .csv in name order and nothing else', async () => {
    await writeFile(path.join(dir, 'b.csv'), 'q,a\nB1,b1\n');
    await writeFile(path.join(dir, 'a.csv'), 'q,a\nA1,a1\nA2,a2\n');
    await writeFile(path.join(dir, 'notes.txt'), 'not a csv');
    await mkdir(path.join(dir, 'old.csv'));
    const progress: number[] = [];
    const result = await loadQaPairs(dir, { onProgress: ({ done }) => void progress.push(done) });
    expect(result.files).toEqual(['a.csv', 'b.csv']);
    expect(result.pairs.map((p) => p.id)).toEqual(['a.csv#1', 'a.csv#2', 'b.csv#1']);
    expect(progress).toEqual([0, 1, 2]);
  });

  it('reads Shift_JIS files as written by Excel', async () => {
    // 「質問,回答」「ログイン,できます」 in Shift_JIS.
    const sjis = Buffer.from('8EBF96E22C89F1939A0D0A838D834F834383932C82C582AB82DC82B70D0A', 'hex');
    await writeFile(path.join(dir, 'sjis.csv'), sjis);
    const { pairs } = await loadQaPairs(dir);
    expect(pairs).toEqual([{ id: 'sjis.csv#1', fileName: 'sjis.csv', row: 1, question: 'ログイン', answer: 'できます' }]);
  });

  it('fails with the file and line of a malformed CSV', async () => {
    await writeFile(path.join(dir, 'ok.csv'), 'q,a\nQ,A\n');
    await writeFile(path.join(dir, 'broken.csv'), 'q,a\nQ1,A1\n"Q2,A2\n');
    await expect(loadQaPairs(dir)).rejects.toThrow(new RegExp(`${path.join(dir, 'broken.csv').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+: malformed CSV`));
  });

  it('a missing directory is an error, not an empty knowledge base', async () => {
    await expect(loadQaPairs(path.join(dir, 'nope'))).rejects.toThrow(/Q&A directory does not exist: .*nope/);
  });

  it('an empty directory gives no pairs', async () => {
    expect(await loadQaPairs(dir)).toEqual({ files: [], pairs: [], skipped: [] });
  });
});
