import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnowledgeError } from '../../src/knowledge/errors.js';
import { loadManualChunks } from '../../src/knowledge/manual-loader.js';
import { MAX_PDF_PAGES, pdfSections } from '../../src/knowledge/pdf-layout.js';

/** A small PDF in the standard Helvetica font, so the test needs no font files. */
async function makePdf(pages: string[][]): Promise<Buffer> {
  const doc = new PDFDocument({ info: { CreationDate: new Date('2025-01-01T00:00:00Z') } });
  const parts: Buffer[] = [];
  doc.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise<void>((resolve) => doc.on('end', resolve));
  for (const [i, lines] of pages.entries()) {
    if (i > 0) doc.addPage();
    for (const line of lines) doc.text(line);
  }
  doc.end();
  await ended;
  return Buffer.concat(parts);
}

const SAMPLE_PDF = path.resolve('data/pdf/xyz-manual.pdf');

describe('PDF manuals', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'manual-pdf-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('extracts the text of every page, pages separated by a blank line', async () => {
    const pdf = await makePdf([['Backup notifications', 'Open Settings, then Notifications.'], ['Two-factor authentication uses an app.']]);
    expect(await pdfSections(pdf, 'tiny.pdf')).toEqual([
      { heading: '', text: 'Backup notifications\nOpen Settings, then Notifications.\n\nTwo-factor authentication uses an app.' },
    ]);
    // The caller's buffer is still usable afterwards (pdf.js would otherwise detach it).
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('chunks a PDF in the manuals directory with an empty heading', async () => {
    await writeFile(path.join(dir, 'tiny.pdf'), await makePdf([['First page text.'], ['Second page text.']]));
    const { files, chunks } = await loadManualChunks(dir);
    expect(files).toEqual(['tiny.pdf']);
    expect(chunks).toEqual([{ id: 'tiny.pdf#1', fileName: 'tiny.pdf', heading: '', content: 'First page text.\n\nSecond page text.' }]);
  });

  it.each([
    { name: 'not a PDF at all', bytes: () => Promise.resolve(Buffer.from('just some text, not a PDF')) },
    { name: 'a truncated PDF', bytes: async () => (await makePdf([['Hello']])).subarray(0, 200) },
  ])('$name is skipped with a reason naming the file, not read as text', async ({ bytes }) => {
    await writeFile(path.join(dir, 'broken.pdf'), await bytes());
    await writeFile(path.join(dir, 'guide.md'), '# ログイン\n本文。');
    const result = await loadManualChunks(dir);
    expect(result.files).toEqual(['guide.md']);
    expect(result.skipped).toEqual([{ fileName: 'broken.pdf', reason: expect.stringMatching(/^cannot read PDF: .+; re-export it as PDF or \.docx, or remove it$/) }]);
    // Its reader still says which file, for callers that read one PDF.
    const error = await pdfSections(await bytes(), path.join(dir, 'broken.pdf')).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(KnowledgeError);
    expect((error as Error).message.startsWith(`${path.join(dir, 'broken.pdf')}: cannot read PDF: `)).toBe(true);
  });

  // A PDF of tens of thousands of (empty) pages kept a reindex busy for minutes, and every scheduled one after it.
  it('refuses a PDF with more pages than MAX_PDF_PAGES, naming the file', async () => {
    const pdf = await makePdf(Array.from({ length: MAX_PDF_PAGES + 1 }, () => []));
    await expect(pdfSections(pdf, 'huge.pdf')).rejects.toThrow(new RegExp(`^huge\\.pdf: .*${MAX_PDF_PAGES + 1} pages, more than MAX_PDF_PAGES`));
  }, 60_000);

  it('reads the Japanese sample manual PDF as sections under its headings, sentences whole, without page numbers', async () => {
    const sections = await pdfSections(await readFile(SAMPLE_PDF), SAMPLE_PDF);
    const text = sections.map((s) => s.text).join('\n');
    // Headings by type size: the title, the chapters, the sections (data/manuals/xyz-manual.md's #, ## and ###).
    expect(sections.map((s) => s.heading)).toContain('XYZ システム 利用者マニュアル > 第1章 はじめに > 動作環境と推奨ブラウザ');
    expect(sections.find((s) => s.heading.endsWith('> 二段階認証'))?.text).toContain('認証アプリ');
    // Lines the page wrapped inside a sentence are one line again, also when it holds half-width letters.
    expect(text).toContain('次のブラウザとバージョンでのみ動作を保証しています。');
    expect(text).toContain('同じブラウザでは 14 日間パスワードの再入力が不要になります。');
    expect(text).toContain('管理者が「管理」→「セキュリティ」→「二段階認証ポリシー」で');
    // The footer's page numbers (`- 3 -`) are not text of the manual.
    expect(text).not.toMatch(/^- \d+ -$/m);

    await copyFile(SAMPLE_PDF, path.join(dir, 'xyz-manual.pdf'));
    const { chunks } = await loadManualChunks(dir, { chunkSize: 300, chunkOverlap: 20 });
    expect(chunks.length).toBeGreaterThan(20);
    expect(chunks.every((c) => c.content.length <= 300)).toBe(true);
    expect(chunks.find((c) => c.content.includes('バックアップコード'))?.heading).toMatch(/二段階認証/);
  });

  it('leaves out a running header, a footer with page numbers and a contents page, and joins a sentence across a page break', async () => {
    const doc = new PDFDocument({ info: { CreationDate: new Date('2025-01-01T00:00:00Z') }, autoFirstPage: false });
    const parts: Buffer[] = [];
    doc.on('data', (part: Buffer) => parts.push(part));
    const ended = new Promise<void>((resolve) => doc.on('end', resolve));
    const page = (n: number, draw: () => void) => {
      doc.addPage({ margin: 72 });
      doc.fontSize(9).text('Acme Backup Administrator Guide', 72, 40);
      draw();
      doc.fontSize(9).text(`Page ${n} of 4`, 72, 740);
    };
    page(1, () => {
      doc.fontSize(20).text('Contents', 72, 90);
      doc.fontSize(11).text('Scheduling backups ........ 2', 72, 130);
      doc.text('Restoring files ........ 3', 72, 146);
    });
    page(2, () => {
      doc.fontSize(20).text('Scheduling backups', 72, 90);
      doc.fontSize(11).text('Backups run every night at two in the morning unless an administrator picks another time in the schedule settings of the console.', 72, 130, { width: 300 });
    });
    page(3, () => {
      doc.fontSize(20).text('Restoring files', 72, 90);
      doc.fontSize(11).text('Open the restore page, pick the snapshot you need and the files to bring back, then press the button to restore them to', 72, 650, { width: 300 });
    });
    page(4, () => {
      doc.fontSize(11).text('their original folder.', 72, 90, { width: 300 });
    });
    doc.end();
    await ended;

    const sections = await pdfSections(Buffer.concat(parts), 'guide.pdf');
    expect(sections).toEqual([
      { heading: 'Scheduling backups', text: 'Backups run every night at two in the morning unless an administrator picks another time in the schedule settings of the console.' },
      { heading: 'Restoring files', text: 'Open the restore page, pick the snapshot you need and the files to bring back, then press the button to restore them to their original folder.' },
    ]);
  });
});
