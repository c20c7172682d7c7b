import { randomBytes } from 'node:crypto';
import { Document, Packer, Paragraph } from 'docx';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { wordHtml } from '../../src/knowledge/manual-loader.js';
import { checkOfficeArchive } from '../../src/knowledge/office-archive.js';

const LIMIT = 200_000;
const OFFICE_DOCUMENT = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument';

/** A Word document whose word/document.xml unpacks to about 1 KB per paragraph. */
async function longWordDocument(paragraphs: number): Promise<Buffer> {
  const text = 'バックアップは毎日午前 2 時に取得され、30 日間保存されます。'.repeat(12);
  return Packer.toBuffer(new Document({ sections: [{ children: Array.from({ length: paragraphs }, () => new Paragraph(text)) }] }));
}

/**
 * `docx` with its main part moved to `to` and `_rels/.rels` naming it through `target` (as written into the XML):
 * mammoth opens whatever the package relationships name, whatever the part is called.
 */
async function withMainPartAt(docx: Buffer, to: string, target: string, rootRels?: (xml: string) => string): Promise<Buffer> {
  const zip = await JSZip.loadAsync(docx);
  const main = await zip.file('word/document.xml')!.async('uint8array');
  const rels = await zip.file('word/_rels/document.xml.rels')!.async('string');
  zip.remove('word/document.xml');
  zip.remove('word/_rels/document.xml.rels');
  zip.file(to, main);
  const slash = to.lastIndexOf('/');
  zip.file(`${to.slice(0, slash)}/_rels/${to.slice(slash + 1)}.rels`, rels);
  let root = (await zip.file('_rels/.rels')!.async('string')).replace('Target="word/document.xml"', `Target="${target}"`);
  if (rootRels) root = rootRels(root);
  zip.file('_rels/.rels', root);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** `docx` with `bytes` of pictures that do not compress under word/media (and an embedded workbook a chart names). */
async function withLargeMedia(docx: Buffer, bytes: number): Promise<Buffer> {
  const zip = await JSZip.loadAsync(docx);
  zip.file('word/media/screenshot1.png', randomBytes(bytes));
  zip.file('word/embeddings/Microsoft_Excel_Worksheet.xlsx', randomBytes(bytes));
  zip.file('word/fonts/font1.odttf', randomBytes(bytes));
  zip.file(
    'word/charts/_rels/chart1.xml.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/package" Target="../embeddings/Microsoft_Excel_Worksheet.xlsx"/></Relationships>',
  );
  zip.file(
    'word/_rels/fontTable.xml.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/font" Target="fonts/font1.odttf"/></Relationships>',
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

describe('the unpacked-size guard of a Word document counts every part mammoth opens, whatever its name', () => {
  it.each([
    ['a main part not named *.xml', 'word/document.bin', 'word/document.bin'],
    ['a main part in the pictures folder', 'word/media/image1.png', 'word/media/image1.png'],
    ['a main part among the embedded objects', 'word/embeddings/oleObject1.bin', 'word/embeddings/oleObject1.bin'],
    ['a main part among the fonts', 'word/fonts/font1.odttf', 'word/fonts/font1.odttf'],
    ['a main part named by an absolute target', 'word/media/image1.png', '/word/media/image1.png'],
    ['a main part named through a character reference', 'word/media/image1.png', 'word/&#x6D;edia/image1.png'],
  ])('%s (%s) is refused', async (_, to, target) => {
    const docx = await withMainPartAt(await longWordDocument(600), to, target);
    await expect(wordHtml(docx, 'hostile.docx', { maxUnpackedBytes: LIMIT })).rejects.toThrow(/unpack to more than 0\.2 MB/);
  });

  it('a main part in the pictures folder named by a relationship written with a namespace prefix is refused', async () => {
    const prefixed = (xml: string): string =>
      xml
        .replace(/<Relationships xmlns="([^"]+)"/, '<r:Relationships xmlns:r="$1"')
        .replace(/<Relationship /g, '<r:Relationship ')
        .replace('</Relationships>', '</r:Relationships>');
    const docx = await withMainPartAt(await longWordDocument(600), 'word/media/image1.png', 'word/media/image1.png', prefixed);
    expect(await JSZip.loadAsync(docx).then((z) => z.file('_rels/.rels')!.async('string'))).toContain(`<r:Relationship Id="rId1" Type="${OFFICE_DOCUMENT}"`);
    await expect(wordHtml(docx, 'hostile.docx', { maxUnpackedBytes: LIMIT })).rejects.toThrow(/unpack to more than 0\.2 MB/);
  });

  it('a styles part moved into the pictures folder by the document relationships is refused', async () => {
    const zip = await JSZip.loadAsync(await longWordDocument(1));
    zip.file('word/media/styles.png', 'x'.repeat(LIMIT * 2));
    const rels = await zip.file('word/_rels/document.xml.rels')!.async('string');
    zip.file('word/_rels/document.xml.rels', rels.replace(/Target="styles\.xml"/, 'Target="media/styles.png"'));
    const docx = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    expect(rels).toMatch(/Target="styles\.xml"/);
    await expect(checkOfficeArchive(docx, LIMIT)).rejects.toThrow(/unpack to more than 0\.2 MB/);
  });

  it('pictures, embedded objects and fonts larger than the limit do not count: such a manual still reads', async () => {
    const docx = await withLargeMedia(await longWordDocument(20), LIMIT);
    await expect(checkOfficeArchive(docx, LIMIT)).resolves.toBeUndefined();
    expect(await wordHtml(docx, 'screenshots.docx', { maxUnpackedBytes: LIMIT })).toContain('バックアップは毎日午前 2 時に取得され');
    // A workbook's pictures are unpacked by exceljs, so there they count.
    await expect(checkOfficeArchive(docx, LIMIT, 'every')).rejects.toThrow(/unpack to more than/);
  });

  it.each([
    ['a 3D model', '<Relationship Id="rIdM" Type="http://schemas.microsoft.com/office/2017/06/relationships/model3d" Target="media/model3d1.glb"/>'],
    ['an external hyperlink whose address reads media/…', '<Relationship Id="rIdH" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="media/manual.pdf" TargetMode="External"/>'],
    ['an internal hyperlink into the pictures folder', '<Relationship Id="rIdH" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="media/screenshot1.png"/>'],
  ])('pictures still do not count beside %s, a relationship mammoth never opens', async (_, relationship) => {
    const zip = await JSZip.loadAsync(await withLargeMedia(await longWordDocument(20), LIMIT));
    zip.file('word/media/model3d1.glb', randomBytes(LIMIT));
    const rels = await zip.file('word/_rels/document.xml.rels')!.async('string');
    zip.file('word/_rels/document.xml.rels', rels.replace('</Relationships>', `${relationship}</Relationships>`));
    const docx = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    await expect(checkOfficeArchive(docx, LIMIT)).resolves.toBeUndefined();
  });

  it('a styles relationship into the pictures folder marked External is refused: mammoth ignores TargetMode', async () => {
    const zip = await JSZip.loadAsync(await longWordDocument(1));
    zip.file('word/media/styles.png', 'x'.repeat(LIMIT * 2));
    const rels = await zip.file('word/_rels/document.xml.rels')!.async('string');
    zip.file('word/_rels/document.xml.rels', rels.replace(/Target="styles\.xml"/, 'Target="media/styles.png" TargetMode="External"'));
    const docx = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    await expect(checkOfficeArchive(docx, LIMIT)).rejects.toThrow(/unpack to more than 0\.2 MB/);
  });
});
