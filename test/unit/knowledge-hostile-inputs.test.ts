/**
 * Files an admin may drop into MANUALS_DIR or QA_DIR that once stalled a reindex for minutes or ran it out of memory
 * (an audit's samples, made small here). Each must be read in time linear in its size. The per-test timeouts are
 * generous: the old code took minutes at these sizes, the new takes milliseconds.
 */
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { cleanMarkdown, markdownSections } from '../../src/knowledge/manual-loader.js';
import { readQaWorkbook } from '../../src/knowledge/qa-loader.js';
import { MAX_WORKBOOK_COLUMNS, workbookSheets } from '../../src/knowledge/qa-workbook.js';
import { normalizeText } from '../../src/search/tokenize.js';

describe('knowledge files that took super-linear time or memory', () => {
  it('a workbook with one stray cell in the last column (XFD) of every row', { timeout: 60_000 }, async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('FAQ');
    sheet.addRow(['質問', '回答']);
    for (let i = 0; i < 30; i++) {
      const row = sheet.addRow([`質問${i}`, `回答${i}`]);
      row.getCell(16_384).value = 'x';
    }
    const data = Buffer.from(await book.xlsx.writeBuffer());
    // Each row was read as 16,384 cells, every missing one created: 2,000 such rows ran out of memory.
    const [read] = await workbookSheets(data);
    expect(Math.max(...read!.records.map((r) => r.record.length))).toBeLessThanOrEqual(MAX_WORKBOOK_COLUMNS);
    const { pairs } = await readQaWorkbook(data, 'faq.xlsx');
    expect(pairs).toHaveLength(30);
    expect(pairs[29]).toMatchObject({ question: '質問29', answer: '回答29' });
  });

  it('a long katakana run', { timeout: 20_000 }, () => {
    const text = `${'ア'.repeat(200_000)} サーバー`;
    expect(normalizeText(text).endsWith(' サーバ')).toBe(true);
  });

  it('keeps the katakana spelling rules', () => {
    expect(normalizeText('サーバー コンピューター ユーザー メール ゲーム')).toBe('サーバ コンピュータ ユーザ メール ゲーム');
  });

  it('a heading line and a front-matter title with a long run of spaces', { timeout: 20_000 }, () => {
    const spaces = ' '.repeat(150_000);
    const sections = markdownSections(`# ログイン${spaces}手順\n本文\n## 設定 ##\n本文2\n`);
    expect(JSON.stringify(sections)).toContain('設定');
    expect(JSON.stringify(sections)).toContain('手順');
    const cleaned = cleanMarkdown(`---\ntitle: ガイド${spaces}x\n---\n本文\n`);
    expect(cleaned).toContain('本文');
  });
});
