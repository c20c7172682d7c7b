import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnowledgeError } from '../../src/knowledge/errors.js';
import { loadManualChunks, pdfText } from '../../src/knowledge/manual-loader.js';

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
    expect(await pdfText(pdf, 'tiny.pdf')).toBe(
      'Backup notifications\nOpen Settings, then Notifications.\n\nTwo-factor authentication uses an app.',
    );
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
  ])('$name is a clear error naming the file', async ({ bytes }) => {
    await writeFile(path.join(dir, 'broken.pdf'), await bytes());
    const error = await loadManualChunks(dir).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(KnowledgeError);
    expect((error as Error).message).toMatch(new RegExp(`^${path.join(dir, 'broken.pdf').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: cannot read PDF: `));
  });

  it('reads the Japanese sample manual PDF', async () => {
    const text = await pdfText(await readFile(SAMPLE_PDF), SAMPLE_PDF);
    expect(text).toContain('XYZ システム');
    expect(text).toContain('二段階認証');
    expect(text).toContain('認証アプリ');

    await copyFile(SAMPLE_PDF, path.join(dir, 'xyz-manual.pdf'));
    const { chunks } = await loadManualChunks(dir, { chunkSize: 300, chunkOverlap: 20 });
    expect(chunks.length).toBeGreaterThan(20);
    expect(chunks.every((c) => c.heading === '' && c.content.length <= 300)).toBe(true);
    expect(chunks.some((c) => c.content.includes('バックアップ'))).toBe(true);
  });
});
