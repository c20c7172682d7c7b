/**
 * The fair baseline of npm run eval (character unigrams + bigrams of the NFKC, lower-cased text) and the paired
 * comparison of ours with each baseline (better / worse by reciprocal rank, exact sign test).
 */
import { describe, expect, it } from 'vitest';
import { formatDatasetResults } from '../../src/search/evaluate-dataset.js';
import { formatReport, pairedCounts, runEvaluation, signTestP, uniBigramTerms } from '../../src/search/evaluate.js';

const U = '\u0001';

describe('uniBigramTerms', () => {
  it.each([
    ['NFKC and lower case', 'Ｅ－１', [`${U}e`, `${U}-`, `${U}1`, 'e-', '-1']],
    ['whitespace removed, so bigrams span it', '二段 認証', [`${U}二`, `${U}段`, `${U}認`, `${U}証`, '二段', '段認', '認証']],
    ['one character', 'あ', [`${U}あ`]],
    ['empty', ' ', []],
  ])('%s', (_name, text, terms) => {
    expect(uniBigramTerms(text)).toEqual(terms);
  });
});

describe('paired comparison', () => {
  it.each([
    { a: 0, b: 0, p: 1 },
    { a: 1, b: 1, p: 1 },
    { a: 5, b: 0, p: 2 / 32 },
    { a: 2, b: 10, p: (2 * (1 + 12 + 66)) / 4096 },
  ])('signTestP($a, $b)', ({ a, b, p }) => {
    expect(signTestP(a, b)).toBeCloseTo(p, 12);
  });

  it('stays a probability on thousands of queries (2^n overflows a double)', () => {
    expect(signTestP(1500, 1500)).toBeCloseTo(1, 6);
    const p = signTestP(1000, 1150);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.01);
  });

  it('counts queries ours ranks higher or lower, ties left out', () => {
    // better (1 vs 2), tie, worse (missed vs 1), better (3 vs missed), tie (both missed)
    expect(pairedCounts([1, 2, undefined, 3, undefined], [2, 2, 1, undefined, undefined])).toEqual({ better: 2, worse: 1, signP: 1 });
  });
});

describe('npm run eval reports the uni+bigram baseline beside the bigram one', () => {
  it('on the repository-style sets', async () => {
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
    expect(report.manual.keyword.uniBigram).toEqual({ queries: 1, hitAt3: 1, mrrAt10: 1 });
    expect(report.manual.keyword.versusUniBigram).toEqual({ better: 0, worse: 0, signP: 1 });
    expect(report.qa!.uniBigram.queries).toBe(1);
    expect(formatReport(report)).toMatch(/bigram +uni\+bi +ours/);
  });

  it('on a dataset, with ours query by query against each baseline', () => {
    const metrics = { queries: 4, hitAt1: 0.5, hitAt3: 0.75, hitAt10: 1, mrrAt10: 0.7 };
    const text = formatDatasetResults([
      { task: 'Q&A (qa/pairs.csv)', engine: 'embedded', metrics },
      { task: 'Q&A (qa/pairs.csv)', engine: 'bigram BM25', metrics, oursVersus: { better: 3, worse: 0, signP: 0.25 } },
      { task: 'Q&A (qa/pairs.csv)', engine: 'uni+bigram BM25', metrics, oursVersus: { better: 1, worse: 2, signP: 1 } },
    ]);
    expect(text).toMatch(/vs bigram BM25 +better 3 \/ worse 0 \(p 0\.250\)/);
    expect(text).toMatch(/vs uni\+bigram BM25 +better 1 \/ worse 2 \(p 1\.000\)/);
  });
});
