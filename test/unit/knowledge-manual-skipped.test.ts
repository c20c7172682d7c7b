// One manual file that cannot be read (corrupt, password-protected, over a size or unpacking budget, or of a type
// not read such as .doc) is skipped with a warning naming it, the reason and what to do; the other files are
// indexed, and the reindex summary lists what was skipped (newcomer walkthrough 39, items 4 and 7).
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { Document, Packer, Paragraph } from 'docx';
import JSZip from 'jszip';
import mammoth from 'mammoth';
import PDFDocument from 'pdfkit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reindexManual } from '../../jobs/reindex-manual.js';
import { formatReindexSummary, type ReindexSummary } from '../../src/cli/format.js';
import { parseConfig } from '../../src/config.js';
import { MAX_SOURCE_FILE_BYTES } from '../../src/knowledge/files.js';
import { MANUAL_EXTENSIONS, loadManualChunks, noReadableManualMessage } from '../../src/knowledge/manual-loader.js';
import { MAX_UNPACKED_TEXT_BYTES } from '../../src/knowledge/office-archive.js';
import { MAX_PDF_DECODED_BYTES } from '../../src/knowledge/pdf-budget.js';
import type { Logger } from '../../src/logger.js';
import { createSearchBackends } from '../../src/search/factory.js';

// Wrapped, not replaced: the tests assert that a file refused by a budget is never handed to its reader.
vi.mock('unpdf', async (importOriginal) => {
  const original = await importOriginal<typeof import('unpdf')>();
  return { ...original, getDocumentProxy: vi.fn(original.getDocumentProxy), extractTextItems: vi.fn(original.extractTextItems) };
});
// Our own checks before the readers, wrapped so a test can plant a bug of ours in them.
vi.mock('../../src/knowledge/pdf-budget.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/knowledge/pdf-budget.js')>();
  return { ...original, checkPdfStreams: vi.fn(original.checkPdfStreams) };
});
vi.mock('../../src/knowledge/office-archive.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/knowledge/office-archive.js')>();
  return { ...original, checkOfficeArchive: vi.fn(original.checkOfficeArchive) };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs/promises')>();
  return { ...original, readFile: vi.fn(original.readFile) };
});
const { extractTextItems, getDocumentProxy } = await import('unpdf');
const { checkPdfStreams } = await import('../../src/knowledge/pdf-budget.js');
const { checkOfficeArchive } = await import('../../src/knowledge/office-archive.js');
const { readFile } = await import('node:fs/promises');

async function makePdf(lines: string[], options: PDFKit.PDFDocumentOptions = {}): Promise<Buffer> {
  const doc = new PDFDocument({ info: { CreationDate: new Date('2025-01-01T00:00:00Z') }, ...options });
  const parts: Buffer[] = [];
  doc.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise<void>((resolve) => doc.on('end', resolve));
  for (const line of lines) doc.text(line);
  doc.end();
  await ended;
  return Buffer.concat(parts);
}

/** A one-page PDF whose content stream inflates to `size` bytes of spaces (a decompression bomb). */
function pdfBomb(size: number): Buffer {
  const body = deflateSync(Buffer.alloc(size, 0x20), { level: 9 });
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.5\n')];
  for (const [i, o] of objects.entries()) parts.push(Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`));
  parts.push(Buffer.from(`4 0 obj\n<< /Filter /FlateDecode /Length ${body.length} >>\nstream\n`), body, Buffer.from('\nendstream\nendobj\n'));
  parts.push(Buffer.from('trailer\n<< /Size 5 /Root 1 0 R >>\n%%EOF\n'));
  return Buffer.concat(parts);
}

/** A Word document whose main part unpacks to `size` bytes (spaces inside one paragraph). */
async function docxBomb(size: number): Promise<Buffer> {
  const zip = await JSZip.loadAsync(await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('x')] }] })));
  const main = await zip.file('word/document.xml')!.async('string');
  zip.file('word/document.xml', main.replace('<w:t', `${' '.repeat(size)}<w:t`));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

/** A Word document with one part replaced, as a damaged or hand-edited file carries it (bug review 39e, finding 1). */
async function docxWithPart(part: string, content: string): Promise<Buffer> {
  const zip = await JSZip.loadAsync(await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('x')] }] })));
  zip.file(part, content);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

function capture(): { logger: Logger; warnings: string[]; infos: { obj: Record<string, unknown>; msg: string }[] } {
  const warnings: string[] = [];
  const infos: { obj: Record<string, unknown>; msg: string }[] = [];
  const logger = {
    warn: (_: unknown, msg: string) => void warnings.push(msg),
    info: (obj: Record<string, unknown>, msg: string) => void infos.push({ obj, msg }),
    debug: () => undefined,
  } as unknown as Logger;
  return { logger, warnings, infos };
}

const REEXPORT = '; re-export it as PDF or .docx, or remove it';
const SPLIT = '; split it into smaller files, or remove it';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'manual-skipped-'));
  await writeFile(path.join(dir, 'guide.md'), '# ログイン\nメールアドレスでログインします。');
  vi.mocked(getDocumentProxy).mockClear();
  vi.mocked(readFile).mockClear();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

describe('a manual file that cannot be read is skipped, the others indexed', () => {
  it.each([
    { name: 'not a PDF at all', file: 'broken.pdf', bytes: () => Promise.resolve(Buffer.from('just some text, not a PDF')), reason: /^cannot read PDF: Invalid PDF structure; re-export it as PDF or \.docx, or remove it$/ },
    { name: 'a truncated PDF', file: 'broken.pdf', bytes: async () => (await makePdf(['Hello'])).subarray(0, 200), reason: /^cannot read PDF: .+; re-export it as PDF or \.docx, or remove it$/ },
    {
      name: 'a password-protected PDF',
      file: 'locked.pdf',
      bytes: () => makePdf(['Secret'], { userPassword: 'pw', ownerPassword: 'owner', pdfVersion: '1.7' }),
      reason: /^cannot read PDF: it is password-protected; save a copy without a password, or remove it$/,
    },
    { name: 'a corrupt Word document', file: 'bad.docx', bytes: () => Promise.resolve(Buffer.from('PK\u0003\u0004 not really a zip')), reason: /^cannot read Word document: .+; re-export it as PDF or \.docx, or remove it$/ },
    {
      // Word saves a password-protected .docx as an OLE compound file, not a zip.
      name: 'a password-protected Word document',
      file: 'locked.docx',
      bytes: () => Promise.resolve(Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(600)])),
      reason: /^cannot read Word document: it is password-protected, or a Word 97-2003 \.doc under a \.docx name; save it as \.docx without a password, or remove it$/,
    },
    // mammoth throws a plain TypeError on these malformed parts; wrapped by the reader it is still about the file.
    { name: 'a Word document whose relationships part is garbage', file: 'bad-rels.docx', bytes: () => docxWithPart('word/_rels/document.xml.rels', 'garbage'), reason: /^cannot read Word document: Cannot read properties of null \(reading 'tagName'\); re-export it as PDF or \.docx, or remove it$/ },
    {
      name: 'a Word document whose numbering has a <w:num/> without attributes',
      file: 'bad-numbering.docx',
      bytes: () => docxWithPart('word/numbering.xml', '<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:num/><w:abstractNum/></w:numbering>'),
      reason: /^cannot read Word document: Cannot read properties of undefined \(reading 'attributes'\); re-export it as PDF or \.docx, or remove it$/,
    },
    { name: 'text neither UTF-8 nor Shift_JIS', file: 'notes.txt', bytes: () => Promise.resolve(Buffer.from([0x41, 0xff, 0xfd, 0xff])), reason: /^not valid UTF-8 or Shift_JIS text; save it as UTF-8$/ },
  ])('$name', async ({ file, bytes, reason }) => {
    await writeFile(path.join(dir, file), await bytes());
    const { logger, warnings } = capture();
    const result = await loadManualChunks(dir, { logger });
    expect(result.files).toEqual(['guide.md']);
    expect(result.chunks.map((c) => c.id)).toEqual(['guide.md#1']);
    expect(result.skipped).toEqual([{ fileName: file, reason: expect.stringMatching(reason) }]);
    expect(warnings).toEqual([`skipping ${file}: ${result.skipped[0]!.reason}`]);
  });

  it('a file in a subfolder is named by its path in the tree', async () => {
    await mkdir(path.join(dir, 'admin'));
    await writeFile(path.join(dir, 'admin', 'broken.pdf'), 'not a PDF');
    const { logger, warnings } = capture();
    const result = await loadManualChunks(dir, { logger });
    expect(result.skipped.map((s) => s.fileName)).toEqual(['admin/broken.pdf']);
    // A folder whose only file could not be read holds nothing readable, and is counted as such.
    expect(result.perFolder).toEqual({ '.': 1 });
    expect(result.emptyFolders).toEqual(['admin']);
    expect(warnings).toContain(`no readable manual file (${MANUAL_EXTENSIONS.join(', ')}) in admin/ in ${dir}; skipped: admin/broken.pdf`);
  });
});

describe('a file refused by a budget is skipped without being opened', () => {
  it('a PDF whose streams decode to more than MAX_PDF_DECODED_BYTES never reaches pdf.js', async () => {
    await writeFile(path.join(dir, 'bomb.pdf'), pdfBomb(MAX_PDF_DECODED_BYTES + 1_000_000));
    await writeFile(path.join(dir, 'small.pdf'), await makePdf(['Backup runs nightly.']));
    const { logger, warnings } = capture();
    const result = await loadManualChunks(dir, { logger });
    expect(result.files).toEqual(['guide.md', 'small.pdf']);
    expect(result.skipped).toEqual([{ fileName: 'bomb.pdf', reason: expect.stringMatching(/^cannot read PDF: its streams decode to more than 64 MB .*; split it into smaller files, or remove it$/) }]);
    expect(result.skipped[0]!.reason.endsWith(SPLIT)).toBe(true);
    expect(vi.mocked(getDocumentProxy)).toHaveBeenCalledTimes(1);
    expect(warnings).toEqual([expect.stringMatching(/^skipping bomb\.pdf: /)]);
  });

  it('a Word document that unpacks to more than MAX_UNPACKED_TEXT_BYTES never reaches mammoth', async () => {
    const convert = vi.spyOn(mammoth, 'convertToHtml');
    await writeFile(path.join(dir, 'bomb.docx'), await docxBomb(MAX_UNPACKED_TEXT_BYTES + 1_000_000));
    const result = await loadManualChunks(dir);
    expect(result.files).toEqual(['guide.md']);
    expect(result.skipped).toEqual([{ fileName: 'bomb.docx', reason: expect.stringMatching(/^cannot read Word document: .*unpack to more than 64 MB.*; split it into smaller files, or remove it$/) }]);
    expect(convert).not.toHaveBeenCalled();
  });

  it('a file over MAX_SOURCE_FILE_BYTES is never read', async () => {
    const big = path.join(dir, 'huge.txt');
    await writeFile(big, '');
    await truncate(big, MAX_SOURCE_FILE_BYTES + 1);
    const result = await loadManualChunks(dir);
    expect(result.files).toEqual(['guide.md']);
    expect(result.skipped).toEqual([
      { fileName: 'huge.txt', reason: `${(MAX_SOURCE_FILE_BYTES + 1).toLocaleString('en-US')} bytes, more than the ${MAX_SOURCE_FILE_BYTES.toLocaleString('en-US')} a knowledge file may hold; split it or make it smaller` },
    ]);
    expect(vi.mocked(readFile).mock.calls.map(([file]) => String(file))).not.toContain(big);
  });
});

describe('a document of a type not read is named, with the fix', () => {
  it.each([
    { file: 'notes.doc', fix: 'save it as .docx or PDF' },
    { file: 'OLD.DOC', fix: 'save it as .docx or PDF' },
    { file: 'memo.rtf', fix: 'save it as .docx or PDF' },
    { file: 'guide.pages', fix: 'save it as .docx or PDF' },
    { file: 'prices.xls', fix: 'save it as PDF (questions and answers belong in QA_DIR as .xlsx or .csv)' },
    { file: 'slides.ppt', fix: 'save it as PDF' },
    { file: 'slides.pptx', fix: 'save it as PDF' },
  ])('$file', async ({ file, fix }) => {
    await writeFile(path.join(dir, file), 'legacy bytes');
    const { logger, warnings } = capture();
    const result = await loadManualChunks(dir, { logger });
    const ext = path.extname(file).toLowerCase();
    expect(result.files).toEqual(['guide.md']);
    expect(result.skipped).toEqual([{ fileName: file, reason: `${ext} is not read; ${fix}` }]);
    expect(warnings).toEqual([`skipping ${file}: ${ext} is not read (the manual is read from ${MANUAL_EXTENSIONS.join(', ')}); ${fix}`]);
  });

  it("a site's pictures, styles and scripts are not warned about", async () => {
    for (const name of ['logo.png', 'site.css', 'app.js', 'config.yml']) await writeFile(path.join(dir, name), 'x');
    const { logger, warnings } = capture();
    const result = await loadManualChunks(dir, { logger });
    expect(result.skipped).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('a folder of only .doc files: the no-readable-file message names them and the fix', async () => {
    await rm(path.join(dir, 'guide.md'));
    await writeFile(path.join(dir, 'manual.doc'), 'legacy');
    await writeFile(path.join(dir, 'broken.pdf'), 'not a PDF');
    const { logger, warnings } = capture();
    const result = await loadManualChunks(dir, { logger });
    expect(result.files).toEqual([]);
    expect(result.emptyFolders).toEqual(['.']);
    expect(result.skipped.map((s) => s.fileName)).toEqual(['broken.pdf', 'manual.doc']);
    const message = noReadableManualMessage(dir, result.skipped);
    expect(message).toBe(
      `no readable manual file found in ${dir} or its subfolders (${MANUAL_EXTENSIONS.join(', ')}); skipped: broken.pdf (${result.skipped[0]!.reason}), manual.doc (.doc is not read; save it as .docx or PDF)`,
    );
    expect(warnings).toContain(`no readable manual file (${MANUAL_EXTENSIONS.join(', ')}) in ${dir}; skipped: broken.pdf, manual.doc`);
  });

  it('without skipped files the message is the one of before', () => {
    expect(noReadableManualMessage('/m', [])).toBe(`no readable manual file found in /m or its subfolders (${MANUAL_EXTENSIONS.join(', ')})`);
  });
});

describe('the reindex summary lists the skipped files', () => {
  it('the job indexes the rest and logs and returns what it skipped', async () => {
    await writeFile(path.join(dir, 'broken.pdf'), 'not a PDF');
    await writeFile(path.join(dir, 'notes.doc'), 'legacy');
    const config = parseConfig({ DATA_DIR: path.join(dir, '.data'), MANUALS_DIR: dir, EMBEDDINGS_PROVIDER: 'local', EMBEDDING_DIMENSIONS: '256', LOG_LEVEL: 'silent' });
    const backends = createSearchBackends(config);
    try {
      const { logger, infos } = capture();
      const result = await reindexManual({}, { config, manual: backends.manual, logger });
      expect(result).toMatchObject({ files: 1, chunks: 1 });
      expect(result.skipped?.map((s) => s.fileName)).toEqual(['broken.pdf', 'notes.doc']);
      expect(await backends.manual.count()).toBe(1);
      const done = infos.find((i) => i.msg.startsWith('manual reindexed'));
      expect(done?.obj.skipped).toEqual(['broken.pdf', 'notes.doc']);
      expect(done?.msg).toBe('manual reindexed; skipped 2 files: broken.pdf, notes.doc');
    } finally {
      await backends.manual.close?.();
      await backends.qa.close?.();
    }
  });

  const skipped = (n: number): { fileName: string; reason: string }[] =>
    Array.from({ length: n }, (_, i) => ({ fileName: `old-${String(i + 1).padStart(2, '0')}.doc`, reason: '.doc is not read; save it as .docx or PDF' }));
  it.each([
    {
      name: 'one unreadable file',
      manual: { files: 3, chunks: 9, skipped: [{ fileName: 'broken.pdf', reason: `cannot read PDF: Invalid PDF structure${REEXPORT}` }] },
      text: `reindexed: 3 manual files, 9 chunks in 1.0 s\n  warning: skipped 1 file: cannot read PDF: Invalid PDF structure${REEXPORT}: broken.pdf`,
    },
    {
      name: 'more than ten of one reason: the rest counted in its line',
      manual: { files: 1, chunks: 2, skipped: skipped(12) },
      text: [
        'reindexed: 1 manual file, 2 chunks in 1.0 s',
        `  warning: skipped 12 files: ${skipped(1)[0]!.reason}: ${skipped(10).map((s) => s.fileName).join(', ')} and 2 more`,
      ].join('\n'),
    },
    {
      name: 'more than ten, the rest of another reason: counted on a line of their own',
      manual: { files: 1, chunks: 2, skipped: [...skipped(10), { fileName: 'broken.pdf', reason: 'cannot read PDF' }] },
      text: [
        'reindexed: 1 manual file, 2 chunks in 1.0 s',
        `  warning: skipped 10 files: ${skipped(1)[0]!.reason}: ${skipped(10).map((s) => s.fileName).join(', ')}`,
        '  warning: 1 more file skipped (named in the log)',
      ].join('\n'),
    },
    { name: 'none', manual: { files: 1, chunks: 2, skipped: [] }, text: 'reindexed: 1 manual file, 2 chunks in 1.0 s' },
  ])('CLI summary: $name', ({ manual, text }) => {
    expect(formatReindexSummary({ manual: { ...manual, seconds: 1 }, seconds: 1 } as ReindexSummary)).toBe(text);
  });
});

/** An error as Node's file system raises it: errno code, syscall and path. */
function systemError(code: string, syscall: string, file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${syscall} failed, '${file}'`), { code, errno: -5, syscall, path: file });
}

describe('only what a reader says about the file is skipped; the disk and our own bugs stop the reindex', () => {
  // Back to the wrapped original (vitest 3 resets a vi.fn to the implementation it was made with).
  afterEach(() => {
    vi.mocked(readFile).mockReset();
    vi.mocked(getDocumentProxy).mockReset();
    vi.mocked(extractTextItems).mockReset();
    vi.mocked(checkPdfStreams).mockReset();
    vi.mocked(checkOfficeArchive).mockReset();
  });

  // Nothing here says the file is bad: the disk, the permissions or the sync that replaced it mid-run, or a bug of
  // ours. Skipping would drop a good file's content from the live index as a "successful" reindex.
  it.each([
    { name: 'EIO (a failing disk or network mount)', file: 'guide.pdf', error: (p: string) => systemError('EIO', 'read', p) },
    { name: 'EACCES (permissions changed)', file: 'guide.docx', error: (p: string) => systemError('EACCES', 'open', p) },
    { name: 'ENOENT (the file was replaced mid-run)', file: 'faq.md', error: (p: string) => systemError('ENOENT', 'open', p) },
    { name: 'EMFILE (out of file descriptors)', file: 'notes.txt', error: (p: string) => systemError('EMFILE', 'open', p) },
    { name: 'a TypeError of our own code', file: 'faq.md', error: () => new TypeError("Cannot read properties of undefined (reading 'text')") },
    { name: 'a RangeError of our own code', file: 'faq.md', error: () => new RangeError('Invalid array length') },
    { name: 'a ReferenceError of our own code', file: 'faq.md', error: () => new ReferenceError('sections is not defined') },
  ])('reading the bytes fails: $name', async ({ file, error }) => {
    const target = path.join(dir, file);
    await writeFile(target, 'x');
    const thrown = error(target);
    const actual = await vi.importActual<typeof import('node:fs/promises')>('node:fs/promises');
    vi.mocked(readFile).mockImplementation(((p: Parameters<typeof actual.readFile>[0], ...rest: never[]) =>
      String(p) === target ? Promise.reject(thrown) : actual.readFile(p, ...rest)) as typeof actual.readFile);
    const { logger, warnings } = capture();
    await expect(loadManualChunks(dir, { logger })).rejects.toBe(thrown);
    expect(warnings).toEqual([]);
  });

  // A library's TypeError on malformed bytes looks like a bug of ours; once a reader has wrapped it for a named file
  // it is a verdict on that file (mammoth throws one on a garbage relationships part), so only an errno code below
  // the reader's error stops the reindex.
  it.each([
    { name: 'pdf.js throws a TypeError', file: 'guide.pdf', make: () => makePdf(['Hello']), fail: () => vi.mocked(getDocumentProxy).mockRejectedValueOnce(new TypeError('x is not a function')), reason: /^cannot read PDF: x is not a function; re-export/ },
    { name: 'mammoth throws a RangeError', file: 'guide.docx', make: () => Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('x')] }] })), fail: () => vi.spyOn(mammoth, 'convertToHtml').mockRejectedValueOnce(new RangeError('Invalid string length')), reason: /^cannot read Word document: Invalid string length; re-export/ },
    { name: 'mammoth throws a ReferenceError', file: 'guide.docx', make: () => Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('x')] }] })), fail: () => vi.spyOn(mammoth, 'convertToHtml').mockRejectedValueOnce(new ReferenceError('w is not defined')), reason: /^cannot read Word document: w is not defined; re-export/ },
    { name: 'pdf.js throws a TypeError reading the text', file: 'guide.pdf', make: () => makePdf(['Hello']), fail: () => vi.mocked(extractTextItems).mockRejectedValueOnce(new TypeError("Cannot read properties of null (reading 'items')")), reason: /^cannot read PDF: Cannot read properties of null \(reading 'items'\); re-export/ },
  ])('inside a reader, skipped: $name', async ({ file, make, fail, reason }) => {
    await writeFile(path.join(dir, file), await make());
    fail();
    const { logger, warnings } = capture();
    const result = await loadManualChunks(dir, { logger });
    expect(result.files).toEqual(['guide.md']);
    expect(result.skipped).toEqual([{ fileName: file, reason: expect.stringMatching(reason) }]);
    expect(warnings).toEqual([`skipping ${file}: ${result.skipped[0]!.reason}`]);
  });

  // Our own code around the readers (the budget checks, rebuilding lines from pdf.js's runs) is not a reader: a bug
  // there would skip every PDF or .docx and report the reindex a success (bug review 39f, finding 4).
  const bug = new TypeError("Cannot read properties of undefined (reading 'str')");
  it.each([
    { name: 'rebuilding the lines of a page (pageLines)', file: 'guide.pdf', make: () => makePdf(['Hello']), fail: () => vi.mocked(extractTextItems).mockResolvedValueOnce({ totalPages: 1, items: [[undefined as never]] }) },
    { name: 'measuring the PDF streams (checkPdfStreams)', file: 'guide.pdf', make: () => makePdf(['Hello']), fail: () => vi.mocked(checkPdfStreams).mockRejectedValueOnce(bug) },
    { name: 'measuring the Word parts (checkOfficeArchive)', file: 'guide.docx', make: () => Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('x')] }] })), fail: () => vi.mocked(checkOfficeArchive).mockRejectedValueOnce(bug) },
  ])('a bug of ours beside a reader fails the reindex: $name', async ({ file, make, fail }) => {
    await writeFile(path.join(dir, file), await make());
    fail();
    const { logger, warnings } = capture();
    const error = await loadManualChunks(dir, { logger }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(Error);
    const root = (error as Error).cause ?? error;
    expect(root).toBeInstanceOf(TypeError);
    expect((root as Error).message).toBe(bug.message);
    expect(warnings).toEqual([]);
  });

  it.each([
    { name: 'the PDF is read from a disk that fails mid-read (EIO inside the reader)', file: 'guide.pdf', make: () => makePdf(['Hello']), fail: () => vi.mocked(getDocumentProxy).mockRejectedValueOnce(systemError('EIO', 'read', 'guide.pdf')), cause: Error },
    { name: 'mammoth reports EACCES two causes deep', file: 'guide.docx', make: () => Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('x')] }] })), fail: () => vi.spyOn(mammoth, 'convertToHtml').mockRejectedValueOnce(new TypeError('open failed', { cause: systemError('EACCES', 'open', 'guide.docx') })), cause: TypeError },
  ])('inside a reader: $name', async ({ file, make, fail, cause }) => {
    await writeFile(path.join(dir, file), await make());
    fail();
    const { logger, warnings } = capture();
    const error = await loadManualChunks(dir, { logger }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(Error);
    // The reader's wrapper names the file; what it wraps is what decided.
    expect((error as Error).cause).toBeInstanceOf(cause);
    expect(warnings).toEqual([]);
  });

  it('a reindex that hits EIO fails and the live index keeps its chunks (the review of 3a9f86e, finding 5)', async () => {
    await writeFile(path.join(dir, 'guide.pdf'), await makePdf(['Backup runs nightly.']));
    const config = parseConfig({ DATA_DIR: path.join(dir, '.data'), MANUALS_DIR: dir, EMBEDDINGS_PROVIDER: 'local', EMBEDDING_DIMENSIONS: '256', LOG_LEVEL: 'silent' });
    const backends = createSearchBackends(config);
    try {
      expect(await reindexManual({}, { config, manual: backends.manual, logger: capture().logger })).toMatchObject({ files: 2, skipped: [] });
      const live = await backends.manual.count();
      const target = path.join(dir, 'guide.pdf');
      const actual = await vi.importActual<typeof import('node:fs/promises')>('node:fs/promises');
      vi.mocked(readFile).mockImplementation(((p: Parameters<typeof actual.readFile>[0], ...rest: never[]) =>
        String(p) === target ? Promise.reject(systemError('EIO', 'read', target)) : actual.readFile(p, ...rest)) as typeof actual.readFile);
      await expect(reindexManual({}, { config, manual: backends.manual, logger: capture().logger })).rejects.toMatchObject({ code: 'EIO' });
      expect(await backends.manual.count()).toBe(live);
    } finally {
      await backends.manual.close?.();
      await backends.qa.close?.();
    }
  });
});
