import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnowledgeError } from '../../src/knowledge/errors.js';
import { loadQaPairs, parseQaCsv, qaFieldText } from '../../src/knowledge/qa-loader.js';
import type { Logger } from '../../src/logger.js';

type Row = [row: number, question: string, answer: string];

describe('parseQaCsv', () => {
  it('warns, naming the columns it reads, when a wider header names no question and answer', () => {
    const warnings: string[] = [];
    const logger = { warn: (_: unknown, msg: string) => void warnings.push(msg), debug: () => undefined, info: () => undefined } as unknown as Logger;
    parseQaCsv('id,category,text\n1,ログイン,x\n', 'faq.csv', { logger });
    expect(warnings).toEqual([expect.stringContaining('reading the first two columns (id, category)')]);
    warnings.length = 0;
    parseQaCsv('ID,質問,回答\n1,Q1,A1\n', 'faq.csv', { logger });
    parseQaCsv('x,y\nQ1,A1\n', 'faq.csv', { logger });
    expect(warnings).toEqual([]);
  });


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
    { name: 'columns named in any order among others', csv: 'id,カテゴリ,回答,質問\n1,ログイン,A1,Q1\n', pairs: [[1, 'Q1', 'A1']] },
    { name: 'English names in any case, after an id and a category', csv: 'ID,Category,Question,Answer,URL\n7,x,Q1,A1,https://x\n', pairs: [[1, 'Q1', 'A1']] },
    { name: 'names with a qualifier', csv: 'No,質問（日本語）,回答（日本語）\n1,Q1,A1\n', pairs: [[1, 'Q1', 'A1']] },
    { name: 'full-width Ｑ and Ａ', csv: '番号,Ｑ,Ａ\n1,Q1,A1\n', pairs: [[1, 'Q1', 'A1']] },
    { name: 'a header naming neither: the first two columns', csv: 'foo,bar,baz\nQ1,A1,x\n', pairs: [[1, 'Q1', 'A1']] },
    { name: 'English names with a qualifier', csv: 'faq_id,answer_text,question_text\n5,A1,Q1\n', pairs: [[1, 'Q1', 'A1']] },
    { name: 'empty file', csv: '', pairs: [] },
    // FAQ tools export their answers as HTML: indexed and quoted as the text a reader sees, links with their address.
    {
      name: 'an HTML answer as its text',
      csv: 'question,answer\nパスワードの条件は?,"<p>パスワードは<strong>12 文字以上</strong>です。</p><p>詳しくは<a href=""https://x.example/pw"">こちら</a>。</p>"\n',
      pairs: [[1, 'パスワードの条件は?', 'パスワードは12 文字以上です。\n\n詳しくはこちら [https://x.example/pw]。']],
    },
    { name: 'line breaks and a list in HTML', csv: 'q,a\nQ1,"手順:<br>設定を開く<br/>保存する<ul><li>SMS</li><li>認証アプリ</li></ul>"\n', pairs: [[1, 'Q1', '手順:\n設定を開く\n保存する\n・SMS\n・認証アプリ']] },
    { name: 'HTML entities alone', csv: 'q,a\nR&amp;D&nbsp;部の窓口は?,A1\n', pairs: [[1, 'R&D 部の窓口は?', 'A1']] },
    { name: 'angle brackets that are not HTML stay', csv: 'q,a\nURL は?,https://x.example/sso/<テナント ID> から入ります。a < b のとき。\n', pairs: [[1, 'URL は?', 'https://x.example/sso/<テナント ID> から入ります。a < b のとき。']] },
    { name: 'an HTML answer of images only is empty', csv: 'q,a\nQ1,"<p><img src=""a.png""></p>"\nQ2,A2\n', pairs: [[2, 'Q2', 'A2']], skipped: [1] },
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

describe('qaFieldText', () => {
  it('reads an HTML field of thousands of nested elements (no stack overflow, the text kept)', () => {
    expect(qaFieldText(`<p>${'<div>'.repeat(20_000)}答え。`)).toBe('答え。');
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
