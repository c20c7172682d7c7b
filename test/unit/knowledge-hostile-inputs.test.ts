/**
 * Files an admin may drop into MANUALS_DIR or QA_DIR that once stalled a reindex for minutes or ran it out of memory
 * (an audit's samples, made small here). Each must be read in time linear in its size. The per-test timeouts are
 * generous: the old code took minutes at these sizes, the new takes milliseconds.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { listSourceFiles } from '../../src/knowledge/files.js';
import { cleanMarkdown, markdownSections } from '../../src/knowledge/manual-loader.js';
import type { Logger } from '../../src/logger.js';
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

describe('a knowledge folder holding a file whose name is not UTF-8', () => {
  // A Windows zip unpacked on Linux leaves Shift_JIS names; the name read as UTF-8 names no file, and lstat of it
  // failed the whole reindex, every scheduled run, until someone renamed the file.
  it('skips that file with a warning naming the reason, and lists the others', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'kb-names-'));
    try {
      await writeFile(path.join(dir, 'ok.md'), '# OK\n本文\n');
      await writeFile(Buffer.concat([Buffer.from(dir + '/'), iconv.encode('操作手順', 'shift_jis'), Buffer.from('.md')]), '# 手順\n本文\n');
      const warnings: string[] = [];
      const logger = { warn: (_: unknown, msg: string) => void warnings.push(msg), debug: () => undefined, info: () => undefined } as unknown as Logger;
      const files = await listSourceFiles(dir, ['.md'], 'manual', logger);
      expect(files.map((f) => f.fileName)).toEqual(['ok.md']);
      expect(warnings).toEqual([expect.stringContaining('is not UTF-8')]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
