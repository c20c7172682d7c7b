/**
 * Past Q&A kept in an Excel workbook (.xlsx), as many support teams keep their FAQ: each visible sheet is read like a
 * CSV file (a header row, then one pair per row), and the file goes through the same unpacking guard as a Word manual.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnowledgeError } from '../../src/knowledge/errors.js';
import { loadQaPairs, readQaWorkbook } from '../../src/knowledge/qa-loader.js';
import type { Logger } from '../../src/logger.js';

type Cell = ExcelJS.CellValue;

/** A workbook with one sheet per entry, in order; `hidden` sheets are hidden as Excel hides them. */
async function workbook(sheets: { name: string; rows: Cell[][]; hidden?: boolean }[]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  for (const sheet of sheets) {
    const ws = book.addWorksheet(sheet.name, sheet.hidden ? { state: 'hidden' } : {});
    for (const row of sheet.rows) ws.addRow(row);
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger = { warn: (_: unknown, msg: string) => void warnings.push(msg), debug: () => undefined, info: () => undefined } as unknown as Logger;
  return { logger, warnings };
}

describe('readQaWorkbook', () => {
  it('reads each visible sheet like a CSV file, naming pairs by file, sheet and row', async () => {
    const data = await workbook([
      { name: 'ログイン', rows: [['No', '質問', '回答', 'カテゴリ'], [1, 'パスワードを忘れました', 'ログイン画面の「パスワードをお忘れの方」から再設定できます。', 'ログイン'], [2, '二段階認証を解除したい', '管理者に依頼してください。', 'ログイン']] },
      { name: '請求', rows: [['Q', 'A'], ['請求書の宛名を変えたい', '「管理」→「請求情報」で変更できます。']] },
      { name: 'メモ', hidden: true, rows: [['質問', '回答'], ['内部用', '公開しない']] },
    ]);
    const { pairs, skipped } = await readQaWorkbook(data, 'faq.xlsx');
    expect(skipped).toEqual([]);
    expect(pairs).toEqual([
      { id: 'faq.xlsx:ログイン#1', fileName: 'faq.xlsx:ログイン', row: 1, question: 'パスワードを忘れました', answer: 'ログイン画面の「パスワードをお忘れの方」から再設定できます。' },
      { id: 'faq.xlsx:ログイン#2', fileName: 'faq.xlsx:ログイン', row: 2, question: '二段階認証を解除したい', answer: '管理者に依頼してください。' },
      { id: 'faq.xlsx:請求#1', fileName: 'faq.xlsx:請求', row: 1, question: '請求書の宛名を変えたい', answer: '「管理」→「請求情報」で変更できます。' },
    ]);
  });

  it('reads cells as they are shown: rich text, formulas by their result, links by their text, line breaks kept', async () => {
    const data = await workbook([
      {
        name: 'FAQ',
        rows: [
          ['question', 'answer'],
          [
            { richText: [{ text: '保存期間は' }, { text: '何日', font: { bold: true } }, { text: 'ですか' }] },
            { formula: '"30"&"日間です。"', result: '30日間です。' },
          ],
          ['手順を教えて', { text: 'ヘルプセンター', hyperlink: 'https://help.example/steps' }],
          ['改行は', '1. 開く\n2. 押す'],
        ],
      },
    ]);
    const { pairs } = await readQaWorkbook(data, 'faq.xlsx');
    expect(pairs.map((p) => [p.question, p.answer])).toEqual([
      ['保存期間は何日ですか', '30日間です。'],
      ['手順を教えて', 'ヘルプセンター'],
      ['改行は', '1. 開く\n2. 押す'],
    ]);
  });

  it('skips rows without a question or an answer with a warning naming the sheet and the row, and blank rows silently', async () => {
    const data = await workbook([{ name: 'FAQ', rows: [['質問', '回答'], ['Q1', ''], [], ['Q3', 'A3'], ['', 'A4']] }]);
    const { logger, warnings } = recordingLogger();
    const { pairs, skipped } = await readQaWorkbook(data, 'faq.xlsx', { file: '/qa/faq.xlsx', logger });
    expect(pairs.map((p) => p.id)).toEqual(['faq.xlsx:FAQ#2']);
    expect(skipped).toEqual([
      { fileName: 'faq.xlsx:FAQ', row: 1, line: 2, reason: 'empty answer' },
      { fileName: 'faq.xlsx:FAQ', row: 3, line: 5, reason: 'empty question' },
    ]);
    expect(warnings).toEqual(['/qa/faq.xlsx sheet FAQ row 1 (Excel row 2): empty answer; skipped', '/qa/faq.xlsx sheet FAQ row 3 (Excel row 5): empty question; skipped']);
  });

  // Japanese FAQ workbooks carry a cover, a revision history or a count sheet beside the FAQ; English ones a summary.
  // Such a sheet is passed over with a warning naming it, and the FAQ is read (bug review 39c #1).
  it.each([
    { sheet: '表紙', rows: [['よくある質問集'], ['作成日', '2024/04/01'], ['版数', '1.2']], column: '#2' },
    { sheet: '改訂履歴', rows: [['版', '日付', '内容', '担当'], [1, '2024/01/05', '初版', '佐藤'], [2, '2024/03/01', '質問追加', '鈴木']], column: '版' },
    { sheet: '集計', rows: [['カテゴリ', '件数'], ['ログイン', 12], ['請求', 5]], column: '件数' },
    { sheet: 'Summary', rows: [['Category', 'Count'], ['Login', 3], ['Billing', 2]], column: 'Count' },
    { sheet: '履歴', rows: [['No', 'カテゴリ', 'メモ'], [1, 'ログイン', 'x'], [2, '請求', 'y']], column: 'No' },
  ])('passes over a $sheet sheet of numbers or ids with a warning naming it, and reads the FAQ sheet', async ({ sheet, rows, column }) => {
    const data = await workbook([{ name: sheet, rows }, { name: 'FAQ', rows: [['質問', '回答'], ['Q1', 'A1']] }]);
    const { logger, warnings } = recordingLogger();
    const { pairs, passedOver } = await readQaWorkbook(data, 'faq.xlsx', { file: '/qa/faq.xlsx', logger });
    expect(pairs.map((p) => p.id)).toEqual(['faq.xlsx:FAQ#1']);
    expect(passedOver).toEqual([{ table: `faq.xlsx:${sheet}`, reason: expect.stringContaining(`the column ${column} holds only numbers or ids`) }]);
    expect(warnings.filter((w) => w.includes('not read'))).toEqual([
      expect.stringMatching(new RegExp(`^/qa/faq\\.xlsx sheet ${sheet}: not read: the column ${column} holds only numbers or ids.*head the question column question \\(or 質問, 問い合わせ, Q\\) and the answer column answer`)),
    ]);
  });

  // An export with text whose header names neither question nor answer is passed over only beside another sheet of
  // the same workbook that gives pairs; alone (or beside only a count sheet) it stops the reindex (bug review 39e #5).
  const zendesk = { name: 'Tickets', rows: [['Ticket ID', 'Subject', 'Description', 'Comment'], [1, 'Login', 'I cannot log in', 'Clear the cache'], [2, 'Invoice', 'Where is the invoice', 'See billing']] };
  const numbered = { name: 'Sheet1', rows: [[1, 'パスワードを忘れた', '再設定してください'], [2, '料金は？', '月額1000円です']] };
  it.each([
    { name: 'a Zendesk export alone', sheets: [zendesk], sheet: 'Tickets', column: 'Ticket ID' },
    { name: 'a Zendesk export beside a count sheet', sheets: [{ name: '集計', rows: [['カテゴリ', '件数'], ['ログイン', 12]] }, zendesk], sheet: 'Tickets', column: 'Ticket ID' },
    { name: 'a numbered FAQ without a header', sheets: [numbered], sheet: 'Sheet1', column: '1' },
  ])('refuses, naming the sheet, its columns and how to head them, a sheet with text and no other sheet of pairs ($name)', async ({ sheets, sheet, column }) => {
    const error = await readQaWorkbook(await workbook(sheets), 'faq.xlsx', { file: '/qa/faq.xlsx' }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(KnowledgeError);
    expect((error as KnowledgeError).file).toBe('/qa/faq.xlsx');
    expect((error as Error).message).toMatch(new RegExp(`^/qa/faq\\.xlsx sheet ${sheet}: the column ${column} holds only numbers or ids.*the header reads .*head the question column question`));
  });

  it('passes over a sheet with text beside a sheet of pairs in the same workbook, naming it', async () => {
    const data = await workbook([zendesk, { name: 'FAQ', rows: [['質問', '回答'], ['Q1', 'A1']] }]);
    const { pairs, passedOver } = await readQaWorkbook(data, 'faq.xlsx', { file: '/qa/faq.xlsx' });
    expect(pairs.map((p) => p.id)).toEqual(['faq.xlsx:FAQ#1']);
    expect(passedOver).toEqual([{ table: 'faq.xlsx:Tickets', reason: expect.stringContaining('the column Ticket ID holds only numbers or ids') }]);
  });

  it('a cell beyond the header is a note, not a split answer: a sheet has no commas to mend', async () => {
    const data = await workbook([{ name: 'FAQ', rows: [['質問', '回答'], ['Q1', 'A1', '確認済み']] }]);
    const { logger, warnings } = recordingLogger();
    const { pairs, skipped } = await readQaWorkbook(data, 'faq.xlsx', { logger });
    expect(pairs.map((p) => [p.question, p.answer])).toEqual([['Q1', 'A1']]);
    expect(skipped).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('a file that is not a workbook, or unpacks to too much, is a clear error naming it', async () => {
    const notZip = await readQaWorkbook(Buffer.from('question,answer\nQ,A\n'), 'faq.xlsx', { file: '/qa/faq.xlsx' }).catch((err: unknown) => err);
    expect(notZip).toBeInstanceOf(KnowledgeError);
    expect((notZip as Error).message).toMatch(/^\/qa\/faq\.xlsx: cannot read Excel workbook: /);
    const big = await workbook([{ name: 'FAQ', rows: [['質問', '回答'], ...Array.from({ length: 2_000 }, (_, i) => [`質問 ${i}`, `${i} ${'回答'.repeat(200)}`])] }]);
    const tooLarge = await readQaWorkbook(big, 'big.xlsx', { maxUnpackedBytes: 1_000_000 }).catch((err: unknown) => err);
    expect(tooLarge).toBeInstanceOf(KnowledgeError);
    expect((tooLarge as Error).message).toMatch(/^big\.xlsx: cannot read Excel workbook: its parts unpack to more than 1 MB/);
  });

  it('counts the pictures too: exceljs unpacks every part of a workbook, not only its sheets', async () => {
    const book = new ExcelJS.Workbook();
    const ws = book.addWorksheet('FAQ');
    ws.addRow(['質問', '回答']);
    ws.addRow(['Q1', 'A1']);
    // Zeros pack to a few kilobytes: a picture that is a zip bomb.
    ws.addImage(book.addImage({ buffer: Buffer.alloc(3_000_000) as unknown as ExcelJS.Buffer, extension: 'png' }), 'C1:D2');
    const data = Buffer.from(await book.xlsx.writeBuffer());
    expect(data.length).toBeLessThan(100_000);
    const error = await readQaWorkbook(data, 'pictures.xlsx', { maxUnpackedBytes: 1_000_000 }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(KnowledgeError);
    expect((error as Error).message).toMatch(/^pictures\.xlsx: cannot read Excel workbook: its parts unpack to more than 1 MB/);
  });
});

// Excel stores a date as a number of days and shows it through the cell's number format; exceljs hands the cell over
// as a JS Date (UTC-based) whose text read "Wed Jul 01 2026 09:00:00 GMT+0900 (Japan Standard Time)": a cover sheet's
// 更新日 no longer looked like a date, so the sheet became pairs, and an answer quoted that English string to a customer
// (walkthrough 45, M1). The dates below are rendered as Japanese Excel shows them, whatever the machine's TZ.
describe('readQaWorkbook: dates and times as Excel shows them', () => {
  /** A cell holding `value` shown through the number format `numFmt` (exceljs gives a Date without one numFmt 14). */
  type Formatted = { value: Cell; numFmt?: string };
  async function formattedWorkbook(sheets: { name: string; rows: (Cell | Formatted)[][] }[], date1904 = false): Promise<Buffer> {
    const book = new ExcelJS.Workbook();
    if (date1904) book.properties.date1904 = true;
    for (const sheet of sheets) {
      const ws = book.addWorksheet(sheet.name);
      for (const cells of sheet.rows) {
        const formatted = (c: Cell | Formatted): c is Formatted => typeof c === 'object' && c !== null && 'value' in c && !(c instanceof Date);
        const row = ws.addRow(cells.map((c) => (formatted(c) ? c.value : c)));
        cells.forEach((c, i) => {
          if (formatted(c) && c.numFmt) row.getCell(i + 1).numFmt = c.numFmt;
        });
      }
    }
    return Buffer.from(await book.xlsx.writeBuffer());
  }
  const july1 = new Date(Date.UTC(2026, 6, 1));
  const july1At = new Date(Date.UTC(2026, 6, 1, 9, 30, 15));

  it('passes over a cover sheet of 版 and 更新日 (a date cell as Excel stores it) and reads the FAQ sheet', async () => {
    const data = await formattedWorkbook([
      { name: '表紙', rows: [['版', 1.3], ['更新日', july1]] },
      { name: 'FAQ', rows: [['質問', '回答'], ['パスワードを忘れました', '再設定してください。']] },
    ]);
    const { logger, warnings } = recordingLogger();
    const { pairs, passedOver } = await readQaWorkbook(data, 'faq.xlsx', { file: '/qa/faq.xlsx', logger });
    expect(pairs.map((p) => [p.id, p.question, p.answer])).toEqual([['faq.xlsx:FAQ#1', 'パスワードを忘れました', '再設定してください。']]);
    expect(passedOver).toEqual([{ table: 'faq.xlsx:表紙', reason: expect.stringContaining('holds only numbers or ids') }]);
    expect(warnings.filter((w) => w.includes('not read'))).toHaveLength(1);
  });

  it.each([
    { numFmt: undefined, value: july1, shown: '2026/7/1', why: 'numFmt 14, the short date (mm-dd-yy to exceljs), as Japanese Excel shows it' },
    { numFmt: 'yyyy/m/d', value: july1, shown: '2026/7/1', why: 'yyyy/m/d' },
    { numFmt: 'yyyy/mm/dd', value: july1, shown: '2026/07/01', why: 'zero-padded' },
    { numFmt: 'yyyy"年"m"月"d"日"', value: july1, shown: '2026年7月1日', why: 'quoted literals' },
    { numFmt: 'yyyy年m月d日', value: july1, shown: '2026年7月1日', why: 'bare literals' },
    { numFmt: 'm/d/yyyy', value: july1, shown: '7/1/2026', why: 'month first' },
    { numFmt: 'yy/mm/dd', value: july1, shown: '26/07/01', why: 'two-digit year' },
    { numFmt: 'yyyy/m/d(aaa)', value: july1, shown: '2026/7/1(水)', why: 'Japanese weekday' },
    { numFmt: 'd-mmm-yy', value: july1, shown: '1-Jul-26', why: 'numFmt 15, an English month name' },
    { numFmt: 'yyyy/m/d h:mm', value: july1At, shown: '2026/7/1 9:30', why: 'a date and time: m after h is the minute' },
    { numFmt: 'm/d/yy "h":mm', value: july1At, shown: '2026/7/1 9:30', why: 'numFmt 22 as exceljs names it, as Japanese Excel shows it' },
    { numFmt: 'yyyy-mm-dd hh:mm:ss', value: july1At, shown: '2026-07-01 09:30:15', why: 'a full time' },
    { numFmt: '[$-ja-JP]ggge"年"m"月"d"日"', value: july1, shown: '2026-07-01', why: 'a Japanese era: no usable format, ISO' },
    { numFmt: '[$-ja-JP]ggge"年"m"月"d"日"', value: july1At, shown: '2026-07-01 09:30', why: 'no usable format with a time of day, ISO' },
  ])('an answer holding a date shows it as $shown ($why)', async ({ numFmt, value, shown }) => {
    const data = await formattedWorkbook([{ name: 'FAQ', rows: [['質問', '回答'], ['新しい版の公開日は？', { value, numFmt }]] }]);
    const { pairs } = await readQaWorkbook(data, 'faq.xlsx');
    expect(pairs.map((p) => p.answer)).toEqual([shown]);
  });

  it.each([
    { numFmt: 'h:mm', shown: '9:30' },
    { numFmt: 'hh:mm:ss', shown: '09:30:15' },
    { numFmt: 'h:mm AM/PM', shown: '9:30 AM' },
    { numFmt: 'h"時"mm"分"', shown: '9時30分' },
  ])('a time-of-day cell shows as $shown ($numFmt)', async ({ numFmt, shown }) => {
    // Excel keeps a time of day as a fraction of day 0, which exceljs reads as 1899-12-30.
    const data = await formattedWorkbook([{ name: 'FAQ', rows: [['質問', '回答'], ['受付時間は？', { value: new Date(Date.UTC(1899, 11, 30, 9, 30, 15)), numFmt }]] }]);
    const { pairs } = await readQaWorkbook(data, 'faq.xlsx');
    expect(pairs.map((p) => p.answer)).toEqual([shown]);
  });

  it('text around a date is kept, a question cell holding a date reads as one, and a formula is shown by its date result', async () => {
    const data = await formattedWorkbook([
      {
        name: 'FAQ',
        rows: [
          ['質問', '回答'],
          [{ value: july1, numFmt: 'yyyy/m/d' }, '定期メンテナンスの日です。'],
          ['次回の更新日は？', { value: { formula: 'DATE(2026,7,1)', result: july1 }, numFmt: 'yyyy"年"m"月"d"日"' }],
        ],
      },
    ]);
    const { pairs } = await readQaWorkbook(data, 'faq.xlsx');
    expect(pairs.map((p) => [p.question, p.answer])).toEqual([
      ['2026/7/1', '定期メンテナンスの日です。'],
      ['次回の更新日は？', '2026年7月1日'],
    ]);
  });

  // exceljs turns a serial past year 9999 (above ~1e8 it is not even a valid Date) or before day 0 into a Date Excel
  // cannot show: Excel fills such a cell with #. One such cell made the whole workbook unreadable (RangeError from
  // toISOString) or read "NaN/NaN/NaN" (bug review 45e #2, #5).
  it.each([
    { value: 1e12, numFmt: 'yyyy/m/d', why: 'an invalid Date' },
    { value: 1e12, numFmt: '[$-ja-JP]ggge"年"m"月"d"日"', why: 'an invalid Date through an era format' },
    { value: 1e12, numFmt: '[h]:mm', why: 'an invalid Date through elapsed hours' },
    { value: 3e6, numFmt: 'yyyy/m/d', why: 'past 9999-12-31' },
    { value: -1, numFmt: 'yyyy/m/d', why: 'a negative serial' },
  ])('a serial Excel cannot show as a date reads as Excel shows it, ######## ($why), and the rest of the workbook is read', async ({ value, numFmt }) => {
    const data = await formattedWorkbook([{ name: 'FAQ', rows: [['質問', '回答'], ['公開日は？', { value, numFmt }], ['Q2', '普通の回答です。']] }]);
    const { pairs } = await readQaWorkbook(data, 'faq.xlsx');
    expect(pairs.map((p) => p.answer)).toEqual(['########', '普通の回答です。']);
  });

  it.each([
    { numFmt: 'yyyy";"m/d', shown: '2026;7/1', why: 'a quoted ; is text, not a section break' },
    { numFmt: 'yyyy/m/d;@', shown: '2026/7/1', why: 'the first section of two' },
    { numFmt: '[<1]h:mm;yyyy/m/d', shown: '2026-07-01 09:30', why: 'a condition picks the section: ISO' },
    { numFmt: '[h]:mm', shown: '2026-07-01 09:30', why: 'elapsed hours: ISO' },
    { numFmt: '[$-ja-JP]yyyy/m/d', shown: '2026/7/1', why: 'a locale is not a condition' },
    { numFmt: '[Red]yyyy/m/d', shown: '2026/7/1', why: 'a colour is not a condition' },
    // An escaped \; cannot be told from a section break here: exceljs drops every backslash of a format it reads.
  ])('a format with sections, conditions or elapsed codes: $shown ($why)', async ({ numFmt, shown }) => {
    const data = await formattedWorkbook([{ name: 'FAQ', rows: [['質問', '回答'], ['公開日は？', { value: new Date(Date.UTC(2026, 6, 1, 9, 30)), numFmt }]] }]);
    const { pairs } = await readQaWorkbook(data, 'faq.xlsx');
    expect(pairs.map((p) => p.answer)).toEqual([shown]);
  });

  // The codes either side of each m were found by scanning the whole token list: an 80 KB format took 25.9 s for one cell (bug
  // review 45e #3). Excel refuses a format over 255 characters; one is shown as ISO, and each format is read once.
  it('reads a hostile number format of 80 KB in one cell, and 2,000 cells of a long format, in seconds, not minutes', async () => {
    const july1At = new Date(Date.UTC(2026, 6, 1, 9, 30));
    const hostile = `h ${'m '.repeat(40_000)}`;
    const long = `h ${'m '.repeat(126)}`; // 254 characters: within Excel's limit
    const data = await formattedWorkbook([
      { name: 'FAQ', rows: [['質問', '回答'], ['Q0', { value: july1At, numFmt: hostile }], ...Array.from({ length: 2_000 }, (_, i) => [`Q${i + 1}`, { value: july1At, numFmt: long }])] },
    ]);
    const started = performance.now();
    const { pairs } = await readQaWorkbook(data, 'faq.xlsx');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(pairs[0]!.answer).toBe('2026-07-01 09:30');
    // m after m is the month again, as Excel reads it.
    expect(pairs[1]!.answer).toBe(`9 30 ${'7 '.repeat(125).trimEnd()}`);
    expect(pairs).toHaveLength(2_001);
  }, 120_000);

  it('reads a workbook of the 1904 date system (old Mac Excel) to the same day', async () => {
    const data = await formattedWorkbook([{ name: 'FAQ', rows: [['質問', '回答'], ['公開日は？', { value: july1, numFmt: 'yyyy/m/d' }]] }], true);
    const { pairs } = await readQaWorkbook(data, 'faq.xlsx');
    expect(pairs.map((p) => p.answer)).toEqual(['2026/7/1']);
  });
});

describe('loadQaPairs with workbooks', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'qa-xlsx-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads CSV files and workbooks side by side, and skips the owner file Excel leaves beside an open workbook', async () => {
    await writeFile(path.join(dir, 'a.csv'), 'question,answer\nQ1,A1\n');
    await writeFile(path.join(dir, 'b.xlsx'), await workbook([{ name: 'Sheet1', rows: [['question', 'answer'], ['Q2', 'A2']] }]));
    await writeFile(path.join(dir, '~$b.xlsx'), Buffer.alloc(165, 0x20));
    const result = await loadQaPairs(dir);
    expect(result.files).toEqual(['a.csv', 'b.xlsx']);
    expect(result.pairs.map((p) => p.id)).toEqual(['a.csv#1', 'b.xlsx:Sheet1#1']);
  });

  it('reindexes a FAQ workbook with a revision-history sheet beside a CSV file', async () => {
    await writeFile(path.join(dir, 'a.csv'), 'question,answer\nQ1,A1\n');
    await writeFile(path.join(dir, 'faq.xlsx'), await workbook([
      { name: 'FAQ', rows: [['質問', '回答'], ['Q2', 'A2']] },
      { name: '改訂履歴', rows: [['版', '日付', '内容', '担当'], [1, '2024/01/05', '初版', '佐藤']] },
    ]));
    const result = await loadQaPairs(dir);
    expect(result.pairs.map((p) => p.id)).toEqual(['a.csv#1', 'faq.xlsx:FAQ#1']);
    expect(result.passedOver.map((p) => p.table)).toEqual(['faq.xlsx:改訂履歴']);
  });

  // Pairs from another file do not excuse a sheet with text: only a sheet of the same workbook does.
  it('stops the reindex for a workbook whose only sheet is an export with text, beside a CSV file of pairs', async () => {
    await writeFile(path.join(dir, 'a.csv'), 'question,answer\nQ1,A1\n');
    await writeFile(path.join(dir, 'tickets.xlsx'), await workbook([{ name: 'Tickets', rows: [['Ticket ID', 'Subject', 'Description'], [1, 'Login', 'I cannot log in']] }]));
    const error = await loadQaPairs(dir).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(KnowledgeError);
    expect((error as Error).message).toMatch(/tickets\.xlsx sheet Tickets: the column Ticket ID holds only numbers or ids/);
  });

  it('fails as before when no sheet of any file yields a pair', async () => {
    await writeFile(path.join(dir, 'faq.xlsx'), await workbook([{ name: '集計', rows: [['カテゴリ', '件数'], ['ログイン', 12]] }]));
    const error = await loadQaPairs(dir).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(KnowledgeError);
    expect((error as Error).message).toMatch(/faq\.xlsx sheet 集計: the column 件数 holds only numbers or ids/);
  });
});
