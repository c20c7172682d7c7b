import { describe, expect, it } from 'vitest';
import { pageLines, pdfLayoutSections, withoutPageFurniture, type PdfLine, type PdfTextRun } from '../../src/knowledge/pdf-layout.js';

const run = (str: string, x: number, y: number, width: number, fontSize = 10, hasEOL = false): PdfTextRun => ({ str, x, y, width, fontSize, hasEOL });
const line = (text: string, y: number, opts: Partial<PdfLine> = {}): PdfLine => ({ text, x: 50, right: 50 + 10 * text.length, y, size: 10, ...opts });

describe('pageLines', () => {
  it.each([
    { name: 'runs on one baseline are one line, a gap between them a space', runs: [run('項目', 50, 700, 20), run('値', 150, 700, 10)], lines: ['項目 値'] },
    { name: 'touching runs join without a space', runs: [run('二段階', 50, 700, 30), run('認証', 80, 700, 20)], lines: ['二段階認証'] },
    { name: 'letter-spaced Japanese joins without a space', runs: [run('目', 50, 700, 10), run('次', 66, 700, 10)], lines: ['目次'] },
    { name: 'Japanese table cells a column apart keep a space', runs: [run('項目', 50, 700, 20), run('内容', 120, 700, 20)], lines: ['項目 内容'] },
    { name: 'a new baseline starts a line', runs: [run('一行目', 50, 700, 30), run('二行目', 50, 686, 30)], lines: ['一行目', '二行目'] },
    { name: 'pdf.js ending a line starts one', runs: [run('一行目', 50, 700, 30, 10, true), run('続き', 80, 700, 20)], lines: ['一行目', '続き'] },
    { name: 'a jump back to the left on the same baseline is the next column', runs: [run('左の段', 50, 700, 200), run('右の段', 60, 700, 30)], lines: ['左の段', '右の段'] },
    { name: 'empty and blank runs add nothing', runs: [run('', 50, 700, 0), run(' ', 50, 700, 5), run('本文', 55, 700, 20)], lines: ['本文'] },
  ])('$name', ({ runs, lines }) => {
    expect(pageLines(runs).map((l) => l.text)).toEqual(lines);
  });
});

describe('withoutPageFurniture', () => {
  // Not a speed target (security review 15): the dot-leader pattern split each run of dots and spaces every way (6 ms
  // for a 200-character line, the longest tested), and a 2,000-page manual holds hundreds of thousands of lines. The
  // generous timeout only catches a blow-up.
  it('pages of long dot-leader lines that end in no page number are read without blowing up', { timeout: 10_000 }, () => {
    const hostile = `${'.....'.repeat(20)}${'\t'.repeat(99)}x....0`.slice(0, 200);
    const pages = Array.from({ length: 100 }, () => Array.from({ length: 20 }, (_, i) => line(hostile, 800 - 30 * i)));
    // Not contents lines; the two at each end of every page repeat on all of them, so they go as running headers.
    expect(withoutPageFurniture(pages).flat()).toHaveLength(100 * 16);
    expect(withoutPageFurniture([[line('Installing .......... 12', 800), line('Body text.', 700)]])[0]!.map((l) => l.text)).toEqual(['Body text.']);
  });

  const BODIES = ['ログインの手順です。', '二段階認証の設定です。', 'バックアップの説明です。', '通知の設定です。'];
  const pageOf = (n: number, footer: string) => [line('製品ガイド 第2版', 800), line(BODIES[n - 1]!, 700), line(footer, 30)];

  it.each([
    ['- 3 -'],
    ['3'],
    ['Page 3 of 12'],
    ['p. 3'],
    ['3 / 12'],
    ['3ページ'],
    ['(3)'],
    ['iii'],
  ])('page number %s at the foot of a page goes', (footer) => {
    const pages = [1, 2, 3, 4].map((n) => pageOf(n, footer.replace('3', String(n))));
    expect(withoutPageFurniture(pages).map((p) => p.map((l) => l.text))).toEqual(BODIES.map((b) => [b]));
  });

  it('a running header naming the chapter and the page number goes, also when the chapter has two pages', () => {
    const pages = [
      [line('Chapter 2: Utilities 6', 800), line('Run the tool with --help.', 700)],
      [line('Chapter 2: Utilities 7', 800), line('It prints the options.', 700)],
      [line('Chapter 3: Functions 8', 800), line('Each function returns a code.', 700)],
    ];
    expect(withoutPageFurniture(pages).map((p) => p.map((l) => l.text))).toEqual([['Run the tool with --help.'], ['It prints the options.'], ['Chapter 3: Functions 8', 'Each function returns a code.']]);
  });

  it('keeps a line at the top of a page that does not repeat, and everything in a document of two pages', () => {
    const pages = [[line('はじめに', 800), line('本文。', 700)], [line('設定', 800), line('本文。', 700)]];
    expect(withoutPageFurniture(pages)).toEqual(pages);
  });

  it.each(['第1章 はじめに ........ 3', 'ログイン・・・・・・・・ 12', '二段階認証 ………… 15', 'Backup . . . . . . 4'])('contents line %s goes', (text) => {
    expect(withoutPageFurniture([[line('目次', 800), line(text, 700), line('本文です。', 600)]])[0]!.map((l) => l.text)).toEqual(['目次', '本文です。']);
  });
});

describe('pdfLayoutSections', () => {
  const body = (text: string, y: number, right = 550) => line(text, y, { right });
  it.each([
    {
      name: 'a full line without a sentence end continues on the next line; a short one ends its paragraph',
      pages: [[body('ログイン画面で「パスワードをお忘れの方」を押すと、再設定', 700), body('のメールが届きます。', 686, 200), body('次の段落です。', 660, 150)]],
      sections: [{ heading: '', text: 'ログイン画面で「パスワードをお忘れの方」を押すと、再設定のメールが届きます。\n\n次の段落です。' }],
    },
    {
      name: 'a closing bracket at the margin does not end the sentence',
      pages: [[body('設定は管理者が「管理」', 700), body('→「セキュリティ」で行います。', 686, 300)]],
      sections: [{ heading: '', text: '設定は管理者が「管理」→「セキュリティ」で行います。' }],
    },
    {
      name: 'a list item after a full line starts its own line',
      pages: [[body('次の条件をすべて満たす必要があり', 700), body('・12 文字以上', 686, 200)]],
      sections: [{ heading: '', text: '次の条件をすべて満たす必要があり\n・12 文字以上' }],
    },
    {
      name: 'Latin lines join with a space, a hyphenated word without one',
      pages: [[body('The notification goes to the', 700), body('owner of the backup job and its admin-', 686), body('istrator.', 672, 120)]],
      sections: [{ heading: '', text: 'The notification goes to the owner of the backup job and its administrator.' }],
    },
    {
      name: 'headings by size, a wrapped heading joined',
      pages: [
        [
          line('第2章 アカウントと', 760, { size: 18 }),
          line('セキュリティ', 738, { size: 18 }),
          line('二段階認証', 700, { size: 14 }),
          body('認証アプリを使います。', 680, 250),
          line('パスワード', 640, { size: 14 }),
          body('12 文字以上です。', 620, 250),
        ],
      ],
      sections: [
        { heading: '第2章 アカウントとセキュリティ > 二段階認証', text: '認証アプリを使います。' },
        { heading: '第2章 アカウントとセキュリティ > パスワード', text: '12 文字以上です。' },
      ],
    },
    {
      name: 'a large sentence is text, not a heading',
      pages: [[line('ご利用ありがとうございます。', 760, { size: 18 }), body('本文です。', 700, 150)]],
      sections: [{ heading: '', text: 'ご利用ありがとうございます。\n\n本文です。' }],
    },
  ])('$name', ({ pages, sections }) => {
    expect(pdfLayoutSections(pages)).toEqual(sections);
  });
});

describe('pdfLayoutSections on hostile pages', () => {
  it('rebuilds a line of 200,000 runs in one pass', () => {
    const runs = Array.from({ length: 200_000 }, (_, i) => run(i % 2 ? '字' : 'ab', 50 + i * 10, 700, 10));
    const [only] = pageLines(runs);
    expect(only?.text.length).toBe(300_000);
  });

  it('reads a page of 200,000 lines and a line of 200,000 characters in one pass', () => {
    const many = Array.from({ length: 200_000 }, (_, i) => line(`行 ${i} の本文`, 800 - i * 0.001 * 14, { right: 550 }));
    const long = [line(`${'・'.repeat(200_000)}`, 700, { right: 550 }), line(`${'-'.repeat(200_000)}1`, 690, { right: 550 })];
    const sections = pdfLayoutSections([many, long]);
    expect(sections).toHaveLength(1);
    expect(sections[0]!.text).toContain('行 199999 の本文');
    expect(sections[0]!.text.length).toBeGreaterThan(400_000);
  });
});
