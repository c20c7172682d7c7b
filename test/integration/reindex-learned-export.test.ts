/**
 * The learned pairs' export (`npm run knowledge -- export`) dropped into QA_DIR as it is (audit s49 H4, MED 5): each
 * pair was indexed twice, as its CSV row and as learned#N, and a pair removed on the Knowledge page lived on in its
 * CSV copy. The reindex reads no row whose id is a learned pair's, whether the pair still exists or not, and counts it
 * among the skipped rows.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reindexQa } from '../../jobs/reindex-qa.js';
import { parseConfig, type Config } from '../../src/config.js';
import { CSV_COLUMNS, learnedPairsCsv, toQaPair, type LearnedPair } from '../../src/knowledge/learned-answers.js';
import { loadQaPairs } from '../../src/knowledge/qa-loader.js';
import { createSearchBackends, type SearchBackends } from '../../src/search/factory.js';

function pair(id: number, question: string, answer: string): LearnedPair {
  const at = '2026-11-28T21:45:39.701Z';
  return { id, question, answer, ticketId: `t${id}`, ticketIds: [`t${id}`], acceptedBy: 'anna', acceptedAt: at, createdAt: at };
}

/** learned#1 is still accepted; learned#2 was removed after the export. */
const KEPT = pair(1, '領収書の宛名を会社名に変更できますか？', '「請求」→「領収書」→「宛名を編集」で変更できます。');
const REMOVED = pair(2, 'データの保持期間は？', '削除したデータは30日間保持されます。');
const FAQ = '質問,回答\r\nパスワードを忘れました,ログイン画面の「パスワードを忘れた」から再設定できます。\r\n';

describe('a learned-pairs export in QA_DIR', () => {
  let root: string;
  let dir: string;
  let config: Config;
  let backends: SearchBackends;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'reindex-learned-export-'));
    dir = path.join(root, 'qa');
    await mkdir(dir);
    await writeFile(path.join(dir, 'faq.csv'), FAQ);
    await writeFile(path.join(dir, 'learned-export.csv'), learnedPairsCsv([KEPT, REMOVED]));
    config = parseConfig({ DATA_DIR: path.join(root, 'data'), QA_DIR: dir, EMBEDDINGS_PROVIDER: 'local', EMBEDDING_DIMENSIONS: '256', LOG_LEVEL: 'silent' });
    backends = createSearchBackends(config);
  });

  afterAll(async () => {
    await backends.qa.close?.();
    await rm(root, { recursive: true, force: true });
  });

  it('indexes each learned pair once, as learned#N, and a removed one not at all; the copies count as skipped', async () => {
    const result = await reindexQa({}, { config, qa: backends.qa, learned: async () => [toQaPair(KEPT)] });
    expect(result).toMatchObject({ files: 2, pairs: 2, learned: 1, skipped: 2, learnedCopies: 2 });
    expect(await backends.qa.count()).toBe(2);
    const removedHits = await backends.qa.search('データの保持期間は？ 30日間', 5);
    expect(removedHits.map((h) => h.fileName)).not.toContain('learned-export.csv#2');
    expect(removedHits.some((h) => h.content.includes('30日間'))).toBe(false);
    const keptHits = await backends.qa.search('領収書の宛名を会社名に変更', 5);
    expect(keptHits.filter((h) => h.content.includes('宛名を編集')).map((h) => h.fileName)).toEqual(['learned#1']);
  });

  it('the loader names why: a learned pair, indexed from the Knowledge page', async () => {
    const loaded = await loadQaPairs(dir);
    expect(loaded.pairs.map((p) => p.id)).toEqual(['faq.csv#1']);
    expect(loaded.skipped).toEqual([
      { fileName: 'learned-export.csv', row: 1, line: 2, reason: expect.stringMatching(/^learned#1 is a learned pair /) as unknown as string, learnedPair: 'learned#1' },
      { fileName: 'learned-export.csv', row: 2, line: 3, reason: expect.stringMatching(/^learned#2 is a learned pair /) as unknown as string, learnedPair: 'learned#2' },
    ]);
  });

  it('the export saved as a workbook is read the same way', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('learned');
    sheet.addRow([...CSV_COLUMNS]);
    sheet.addRow([REMOVED.question, REMOVED.answer, ' learned#2 ', 't2', 'anna', REMOVED.acceptedAt, REMOVED.createdAt]);
    sheet.addRow(['ほかの質問', 'ほかの回答', 'FAQ-7', '', '', '', '']);
    const xlsxDir = path.join(root, 'xlsx');
    await mkdir(xlsxDir);
    await book.xlsx.writeFile(path.join(xlsxDir, 'learned.xlsx'));
    const loaded = await loadQaPairs(xlsxDir);
    expect(loaded.pairs.map((p) => p.question)).toEqual(['ほかの質問']);
    expect(loaded.skipped.map((s) => s.row)).toEqual([1]);
  });
});
