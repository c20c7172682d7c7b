import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Document, HeadingLevel, ImageRun, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnowledgeError } from '../../src/knowledge/errors.js';
import { loadManualChunks, wordHtml } from '../../src/knowledge/manual-loader.js';
import { MAX_UNPACKED_TEXT_BYTES } from '../../src/knowledge/office-archive.js';

/** A 1×1 PNG, so the document holds an image as a real manual does. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** A Word manual as Word writes one: built-in heading styles (見出し 1–3 are `heading 1`–`3` inside the file). */
async function wordManual(): Promise<Buffer> {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: '第2章 アカウントとセキュリティ', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ text: '二段階認証', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ children: [new TextRun('ログイン時に '), new TextRun({ text: '6 桁の確認コード', bold: true }), new TextRun(' を入力します。')] }),
          new Paragraph({ children: [new ImageRun({ type: 'png', data: PNG, transformation: { width: 10, height: 10 } })] }),
          new Table({
            rows: [
              new TableRow({ children: [new TableCell({ children: [new Paragraph('方式')] }), new TableCell({ children: [new Paragraph('有効期限')] })] }),
              new TableRow({ children: [new TableCell({ children: [new Paragraph('SMS')] }), new TableCell({ children: [new Paragraph('5 分')] })] }),
            ],
          }),
          new Paragraph({ text: 'バックアップコード', heading: HeadingLevel.HEADING_3 }),
          new Paragraph('8 桁のコードが 10 個発行されます。'),
          new Paragraph({ text: 'パスワード', heading: HeadingLevel.HEADING_2 }),
          new Paragraph('12 文字以上にしてください。'),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

/** A Word document of `paragraphs` long paragraphs: its document.xml unpacks to about 1 KB per paragraph. */
async function longWordDocument(paragraphs: number): Promise<Buffer> {
  const text = 'バックアップは毎日午前 2 時に取得され、30 日間保存されます。'.repeat(12);
  return Packer.toBuffer(new Document({ sections: [{ children: Array.from({ length: paragraphs }, () => new Paragraph(text)) }] }));
}

/**
 * `zip` with the uncompressed size of `entry` written as `size`, in its central directory record and its local
 * header: what a zip bomb declares (a small size over a huge stream) or what a huge part honestly says.
 */
function withDeclaredSize(zip: Buffer, entry: string, size: number): Buffer {
  const out = Buffer.from(zip);
  for (let at = out.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at >= 0; at = out.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at - 1)) {
    const nameLength = out.readUInt16LE(at + 28);
    if (out.toString('utf8', at + 46, at + 46 + nameLength) !== entry) continue;
    out.writeUInt32LE(size, at + 24);
    out.writeUInt32LE(size, out.readUInt32LE(at + 42) + 22);
    return out;
  }
  throw new Error(`${entry} is not in the zip`);
}

describe('Word manuals (.docx)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'manual-docx-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('are indexed under their heading styles, tables readable, images left out', async () => {
    await writeFile(path.join(dir, 'security.docx'), await wordManual());
    const { files, chunks } = await loadManualChunks(dir);
    expect(files).toEqual(['security.docx']);
    expect(chunks.map(({ heading, content }) => ({ heading, content }))).toEqual([
      { heading: '第2章 アカウントとセキュリティ > 二段階認証', content: expect.stringMatching(/^ログイン時に 6 桁の確認コード を入力します。\n+方式 +有効期限\nSMS +5 分$/) },
      { heading: '第2章 アカウントとセキュリティ > 二段階認証 > バックアップコード', content: '8 桁のコードが 10 個発行されます。' },
      { heading: '第2章 アカウントとセキュリティ > パスワード', content: '12 文字以上にしてください。' },
    ]);
    expect(chunks.every((c) => !/data:image|base64/.test(c.content))).toBe(true);
    // Images are not even read: without that, mammoth inlines each one as base64 in the HTML.
    expect(await wordHtml(await wordManual(), 'security.docx')).not.toContain('data:image');
  });

  it("skips Word's owner file (~$name.docx), which Word leaves beside a document while it is open", async () => {
    await writeFile(path.join(dir, 'security.docx'), await wordManual());
    // What Word writes: 162 bytes holding the user's name, not a zip.
    await writeFile(path.join(dir, '~$curity.docx'), Buffer.alloc(162, 0x20));
    const { files } = await loadManualChunks(dir);
    expect(files).toEqual(['security.docx']);
  });

  describe('a document that unpacks to more than the reader takes (a zip bomb) is refused before it fills memory', () => {
    it('a part larger than the limit, honestly declared', async () => {
      const docx = await longWordDocument(2_000);
      expect(docx.length).toBeLessThan(200_000);
      const error = await wordHtml(docx, 'long.docx', { maxUnpackedBytes: 1_000_000 }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(KnowledgeError);
      expect((error as Error).message).toMatch(/^long\.docx: cannot read Word document: its text parts unpack to more than 1 MB/);
      // Under the default limit the same document reads.
      expect(await wordHtml(docx, 'long.docx')).toContain('バックアップは毎日午前 2 時に取得され');
    });

    it('a declared size beyond the limit is refused without unpacking', async () => {
      const bomb = withDeclaredSize(await wordManual(), 'word/document.xml', 0xfffffff0);
      const error = await wordHtml(bomb, 'bomb.docx').catch((err: unknown) => err);
      expect(error).toBeInstanceOf(KnowledgeError);
      expect((error as Error).message).toContain(`unpack to more than ${MAX_UNPACKED_TEXT_BYTES / 1_000_000} MB`);
    });

    it('a part that unpacks to more than it declares', async () => {
      const liar = withDeclaredSize(await longWordDocument(200), 'word/document.xml', 1_000);
      const error = await wordHtml(liar, 'liar.docx').catch((err: unknown) => err);
      expect(error).toBeInstanceOf(KnowledgeError);
      expect((error as Error).message).toMatch(/^liar\.docx: cannot read Word document: .*word\/document\.xml/);
    });

    it('the reindex skips it, naming it, as any unreadable manual file, and reads the rest', async () => {
      await writeFile(path.join(dir, 'bomb.docx'), withDeclaredSize(await wordManual(), 'word/document.xml', 0xfffffff0));
      await writeFile(path.join(dir, 'guide.md'), '# ログイン\n本文。');
      const result = await loadManualChunks(dir);
      expect(result.files).toEqual(['guide.md']);
      expect(result.skipped).toEqual([
        { fileName: 'bomb.docx', reason: expect.stringMatching(/^cannot read Word document: .*unpack to more than .*; split it into smaller files, or remove it$/) },
      ]);
    });
  });

  it('a file that is not a Word document is skipped with a clear reason naming it', async () => {
    await writeFile(path.join(dir, 'broken.docx'), 'not a zip at all');
    const result = await loadManualChunks(dir);
    expect(result.files).toEqual([]);
    expect(result.skipped).toEqual([{ fileName: 'broken.docx', reason: expect.stringMatching(/^cannot read Word document: .+; re-export it as PDF or \.docx, or remove it$/) }]);
    const error = await wordHtml(Buffer.from('not a zip at all'), path.join(dir, 'broken.docx')).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(KnowledgeError);
    expect((error as Error).message).toContain(`${path.join(dir, 'broken.docx')}: cannot read Word document`);
  });
});
