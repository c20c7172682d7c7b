import { describe, expect, it } from 'vitest';
import { baselineTerms, main, parseQaPairs, runEvaluation, splitMarkdownChunks } from '../../src/search/evaluate.js';

describe('evaluation helpers', () => {
  it('splits Markdown by headings into heading-path chunks of about the given size', () => {
    const md = ['# 第1章', '前書き', '## 認証', 'あ'.repeat(250), 'い'.repeat(100), '### SMS', '本文', '```', '# not a heading', '```'].join('\n');
    const chunks = splitMarkdownChunks(md, 'm.md', 300);
    expect(chunks.map((c) => c.heading)).toEqual(['第1章', '第1章 > 認証', '第1章 > 認証', '第1章 > 認証 > SMS']);
    expect(chunks[1]!.content).toBe('あ'.repeat(250));
    expect(chunks[3]!.content).toContain('# not a heading');
    expect(chunks.map((c) => c.id)).toEqual(['m.md#1', 'm.md#2', 'm.md#3', 'm.md#4']);
  });

  it('parses RFC 4180 CSV into pairs numbered by data row', () => {
    const csv = '\ufeffquestion,answer\r\n"Q, one","line1\nline2 ""quoted"""\r\n,empty question\r\nq3,a3\r\n';
    expect(parseQaPairs(csv, 'qa.csv')).toEqual([
      { id: 'qa.csv#1', fileName: 'qa.csv', row: 1, question: 'Q, one', answer: 'line1\nline2 "quoted"' },
      { id: 'qa.csv#3', fileName: 'qa.csv', row: 3, question: 'q3', answer: 'a3' },
    ]);
  });

  it('baseline terms are raw bigrams: no normalisation, no words', () => {
    expect(baselineTerms('二段階認証 E-1 あ')).toEqual(['二段', '段階', '階認', '認証', 'E-', '-1', 'あ']);
    expect(baselineTerms('Ｅ－１')).toEqual(['Ｅ－', '－１']);
  });

  it('computes hit@3 and MRR@10 for both engines on a tiny set', async () => {
    const report = await runEvaluation({
      manualMarkdown: '## 二段階認証\n確認コードを入力します。\n## 請求書\nPDF でダウンロードできます。',
      manualFileName: 'm.md',
      manualCases: [
        { query: '認証', kind: 'keyword', expectHeading: '二段階認証' },
        { query: '請求書をダウンロードしたい', kind: 'natural', expectHeading: '請求書' },
      ],
      qaCsv: 'question,answer\nコードが届かない,SMS を確認\n請求書はどこ,管理画面から\n',
      qaCases: [{ query: '請求書', expectRow: 2 }],
    });
    expect(report.manual.keyword.ours).toEqual({ queries: 1, hitAt3: 1, mrrAt10: 1 });
    expect(report.manual.natural.ours.hitAt3).toBe(1);
    expect(report.qa!.ours).toEqual({ queries: 1, hitAt3: 1, mrrAt10: 1 });
    expect(report.qa!.embedder).toBe('hashed-ngram:1536');
  });
});

describe('npm run eval -- --help', () => {
  it.each([['--help'], ['-h'], ['manual', '--help']])('%s prints the usage and evaluates nothing', async (...argv) => {
    const lines: string[] = [];
    expect(await main(argv, (line) => void lines.push(line))).toBe(0);
    expect(lines.join('\n')).toMatch(/^usage:\n {2}npm run eval /);
  });
});

// Not a speed target (security review 15): the heading pattern tried every split of a run of tabs between its lazy
// title and its three trailing parts (a heading of 2 x 2,000 tabs took 6.8–17.7 s, growing with the fourth power, so
// 2 x 3,000 about five times that). The bound is far from both a linear read and the blow-up, so a busy machine does
// not fail it.
describe('splitMarkdownChunks: a heading with long runs of tabs', () => {
  it('reads it in time', { timeout: 300_000 }, () => {
    const started = performance.now();
    const chunks = splitMarkdownChunks(`# ${'\t'.repeat(3_000)}x${'\t'.repeat(3_000)}y ##\n本文`, 'a.md');
    expect(chunks.map((c) => [c.heading, c.content])).toEqual([[`x${'\t'.repeat(3_000)}y`, '本文']]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
