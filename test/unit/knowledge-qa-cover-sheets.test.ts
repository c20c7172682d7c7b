/**
 * A workbook's cover sheet beside its FAQ sheet, whose date reads as Excel's number format shows it (2026年7月1日,
 * 2026/7/1 9:30, 2026/7/1(水), 令和8年7月1日), is passed over like one with a digits-only date (walkthrough 45, M1);
 * a Q&A table whose answers are all dates or durations is still read, alone or in a CSV (bug review 45e #1: counting
 * such dates as ids stopped the reindex on real Q&A files).
 */
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { parseQaCsv, readQaWorkbook } from '../../src/knowledge/qa-loader.js';

async function workbook(sheets: { name: string; rows: ExcelJS.CellValue[][] }[]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  for (const sheet of sheets) {
    const ws = book.addWorksheet(sheet.name);
    for (const row of sheet.rows) ws.addRow(row);
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

const FAQ = { name: 'FAQ', rows: [['質問', '回答'], ['パスワードを忘れました', 'ログイン画面から再設定できます。']] };

describe('a cover sheet beside the FAQ sheet', () => {
  it.each([
    { name: 'in 年月日', date: '2026年7月1日' },
    { name: 'in an era', date: '令和8年7月1日' },
    { name: 'with a time', date: '2026/7/1 9:30' },
    { name: 'with a weekday', date: '2026/7/1(水)' },
    { name: 'as a month', date: '2026年7月' },
    { name: 'in English', date: '1-Jul-26' },
  ])('is passed over, its date $name', async ({ date }) => {
    const data = await workbook([{ name: '表紙', rows: [['版', '1.3'], ['更新日', date]] }, FAQ]);
    const { pairs, passedOver } = await readQaWorkbook(data, 'faq.xlsx');
    expect(pairs.map((p) => p.id)).toEqual(['faq.xlsx:FAQ#1']);
    expect(passedOver).toEqual([{ table: 'faq.xlsx:表紙', reason: expect.stringContaining('holds only numbers or ids') }]);
  });
});

describe('a sheet of questions and dates beside the FAQ sheet', () => {
  // Review 45f: a header that names its question column is a FAQ's, not a cover's, whatever its answers are.
  it('is read', async () => {
    const data = await workbook([FAQ, { name: 'メンテナンス', rows: [['質問', '日付'], ['次回メンテナンスはいつですか', '2026年8月1日']] }]);
    const { pairs, passedOver } = await readQaWorkbook(data, 'faq.xlsx');
    expect(pairs.map((p) => [p.question, p.answer])).toEqual([
      ['パスワードを忘れました', 'ログイン画面から再設定できます。'],
      ['次回メンテナンスはいつですか', '2026年8月1日'],
    ]);
    expect(passedOver).toEqual([]);
  });
});

describe('answers that are all dates or durations', () => {
  it.each([
    { name: 'a workbook of one sheet', rows: [['項目', '内容'], ['発売日', '2026年7月1日'], ['保証期間', '3年'], ['サポート終了', '令和8年3月31日']] },
    { name: 'a workbook of one sheet, dates with times', rows: [['項目', '内容'], ['受付開始', '2026/4/1 9:00'], ['受付終了', '2026/4/30 18:00']] },
  ])('are read as before, not refused ($name)', async ({ rows }) => {
    const { pairs, passedOver } = await readQaWorkbook(await workbook([{ name: 'Sheet1', rows }]), 'faq.xlsx');
    expect(pairs).toHaveLength(rows.length - 1);
    expect(passedOver).toEqual([]);
  });

  it.each([
    { name: 'dates and a duration', csv: '項目,内容\n発売日,2026年7月1日\n保証期間,3年\nサポート終了,令和8年3月31日\n' },
    { name: 'dates as questions', csv: '項目,内容\n3月10日,祝日のため休業です\n令和6年,料金改定がありました\n' },
  ])('in a CSV file are read as before ($name)', ({ csv }) => {
    const result = parseQaCsv(csv, 'faq.csv', { file: '/qa/faq.csv' });
    expect(result.pairs).toHaveLength(csv.trim().split('\n').length - 1);
    expect(result.passedOver).toEqual([]);
  });
});
