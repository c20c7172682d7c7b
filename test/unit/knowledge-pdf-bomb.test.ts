// A PDF whose compressed streams decode to far more than the file (a decompression bomb) is refused before pdf.js
// decodes them, as an Office file that unpacks to too much is (see knowledge-docx.test.ts).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateRawSync, deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KnowledgeError } from '../../src/knowledge/errors.js';
import { pdfSections } from '../../src/knowledge/pdf-layout.js';

// Wrapped, not replaced: the test asserts pdf.js was never handed a refused file, and lets it read the others.
vi.mock('unpdf', async (importOriginal) => {
  const original = await importOriginal<typeof import('unpdf')>();
  return { ...original, getDocumentProxy: vi.fn(original.getDocumentProxy) };
});
const { getDocumentProxy } = await import('unpdf');

const LIMIT = 1_000_000;
const TEXT = 'BT /F1 12 Tf 72 720 Td (Open Settings, then Backup.) Tj ET';

/** `size` bytes of page content: one line of text, then spaces, which deflate to almost nothing. */
function pageContent(size: number): Buffer {
  const content = Buffer.alloc(size, 0x20);
  content.write(TEXT, 0, 'latin1');
  return content;
}

/** A stream object's dictionary entries and body, bytes as they sit in the file. */
interface StreamObject {
  dict: string;
  body: Buffer;
}

/**
 * A one-page PDF: object 4 is the page's content stream, object 6 an extra object (an image, an object stream),
 * each either a plain dictionary or a stream. The cross-reference table is exact, so pdf.js reads it without repair.
 */
function onePagePdf(content: StreamObject, extra: StreamObject | string = '<< >>', pageExtra = ''): Buffer {
  const objects: (string | StreamObject)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >>${pageExtra} >> >>`,
    content,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    extra,
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.5\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((object, i) => {
    offsets.push(length);
    const bytes = typeof object === 'string'
      ? Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`, 'latin1')
      : Buffer.concat([Buffer.from(`${i + 1} 0 obj\n<< ${object.dict} /Length ${object.body.length} >>\nstream\n`, 'latin1'), object.body, Buffer.from('\nendstream\nendobj\n')]);
    parts.push(bytes);
    length += bytes.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

const flate = (size: number): StreamObject => ({ dict: '/Filter /FlateDecode', body: deflateSync(pageContent(size), { level: 9 }) });
const hexThenFlate = (size: number): StreamObject => ({
  dict: '/Filter [/ASCIIHexDecode /FlateDecode]',
  body: Buffer.from(`${deflateSync(pageContent(size), { level: 9 }).toString('hex')}>`, 'latin1'),
});
/** LZW as PDF writes it (EarlyChange 1): pdf.js decodes it, and it can grow a stream a thousandfold. */
function lzwEncode(data: Buffer): Buffer {
  const out: number[] = [];
  let bits = 0;
  let pending = 0;
  let width = 9;
  const put = (code: number): void => {
    pending = (pending << width) | code;
    bits += width;
    for (; bits >= 8; bits -= 8) out.push((pending >>> (bits - 8)) & 0xff);
    pending &= (1 << bits) - 1;
  };
  // Keyed by prefix code × 256 + next byte, so a word is its code.
  let table = new Map<number, number>();
  let next = 258;
  let word = data[0]!;
  put(256);
  for (const byte of data.subarray(1)) {
    const known = table.get(word * 256 + byte);
    if (known !== undefined) {
      word = known;
      continue;
    }
    put(word);
    table.set(word * 256 + byte, next++);
    if (next >= 1 << width && width < 12) width++;
    if (next >= 4095) {
      put(256);
      [table, next, width] = [new Map(), 258, 9];
    }
    word = byte;
  }
  put(word);
  put(257);
  if (bits > 0) out.push((pending << (8 - bits)) & 0xff);
  return Buffer.from(out);
}
const lzw = (size: number): StreamObject => ({ dict: '/Filter /LZWDecode', body: lzwEncode(pageContent(size)) });
const image = (body: Buffer): StreamObject => ({ dict: '/Type /XObject /Subtype /Image /Width 1000 /Height 1000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode', body });
/** A Flate-compressed object stream, padded with spaces: what pdf.js inflates to find the objects it holds. */
const objectStream = (size: number): StreamObject => {
  const objects = Buffer.alloc(size, 0x20);
  objects.write('7 0 << /Padding true >>', 0, 'latin1');
  return { dict: '/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', body: deflateSync(objects, { level: 9 }) };
};

const refusal = async (pdf: Buffer, file: string, maxDecodedBytes = LIMIT): Promise<unknown> =>
  pdfSections(pdf, file, { maxDecodedBytes }).then(() => 'read', (err: unknown) => err);

describe('a PDF whose streams decode to more than the reader takes (a decompression bomb)', () => {
  afterEach(() => {
    vi.mocked(getDocumentProxy).mockClear();
  });

  it.each([
    { name: 'a Flate content stream', pdf: () => onePagePdf(flate(2 * LIMIT)) },
    { name: 'Flate behind ASCIIHex in a filter chain', pdf: () => onePagePdf(hexThenFlate(2 * LIMIT)) },
    { name: 'an LZW content stream', pdf: () => onePagePdf(lzw(2 * LIMIT)) },
    { name: 'an object stream (itself Flate)', pdf: () => onePagePdf(flate(1_000), objectStream(2 * LIMIT)) },
    { name: 'several content-sized streams that only together pass the limit', pdf: () => onePagePdf(flate(LIMIT / 2 + 1), { dict: '/Filter /FlateDecode', body: deflateSync(pageContent(LIMIT / 2 + 1)) }) },
    { name: 'a stream marked as an image but used as the page content', pdf: () => onePagePdf(image(deflateSync(pageContent(2 * LIMIT)))) },
  ])('$name is refused, naming the file and the limit, before pdf.js opens it', async ({ pdf }) => {
    const bytes = pdf();
    expect(bytes.length).toBeLessThan(100_000);
    const error = await refusal(bytes, 'bomb.pdf');
    expect(error).toBeInstanceOf(KnowledgeError);
    expect((error as KnowledgeError).file).toBe('bomb.pdf');
    expect((error as Error).message).toMatch(/^bomb\.pdf: cannot read PDF: its streams decode to more than 1 MB \(MAX_PDF_DECODED_BYTES\)/);
    expect(getDocumentProxy).not.toHaveBeenCalled();
  });

  it.each([
    { name: 'Flate', content: flate },
    { name: 'ASCIIHex then Flate', content: hexThenFlate },
    { name: 'LZW', content: lzw },
  ])('the same page under the limit is read ($name)', async ({ content }) => {
    expect(await pdfSections(onePagePdf(content(LIMIT / 2)), 'manual.pdf', { maxDecodedBytes: LIMIT })).toEqual([
      { heading: '', text: 'Open Settings, then Backup.' },
    ]);
  });

  it('a large picture costs nothing: text extraction never decodes an image XObject', async () => {
    // 3 MB of pixels (1000 × 1000 RGB), drawn on the page through its resources as a real manual's screenshot is.
    const pdf = onePagePdf(flate(1_000), image(deflateSync(Buffer.alloc(3_000_000, 0x80))), ' /XObject << /Im1 6 0 R >>');
    expect(await pdfSections(pdf, 'screenshots.pdf', { maxDecodedBytes: LIMIT })).toEqual([{ heading: '', text: 'Open Settings, then Backup.' }]);
  });

  it('the sample manual reads under the default limit', async () => {
    const sections = await pdfSections(await readFile(path.resolve('data/pdf/xyz-manual.pdf')), 'xyz-manual.pdf');
    expect(sections.length).toBeGreaterThan(10);
  });
});

/** `pdf` with every stream's direct /Length made `by` bytes longer than its body: a writer's off-by-a-few length. */
const lengthsOff = (pdf: Buffer, by: number): Buffer =>
  Buffer.from(pdf.toString('latin1').replace(/\/Length (\d+)( >>\nstream\n)/g, (_, n: string, rest: string) => `/Length ${Number(n) + by}${rest}`), 'latin1');

describe('a PDF whose syntax is made to stall the scan', () => {
  // Not a speed target (security review 15): the stream scan looked for the `]` of every unclosed `/Filter [` to the
  // end of a 64 KB dictionary (0.7 s for each stream sharing it), and for the `N G obj` before a reference from every
  // digit of a run (26 ms for each reference after 4 KB of digits). The generous timeout only catches a blow-up.
  it('unclosed filter arrays and long digit runs are scanned without blowing up', { timeout: 10_000 }, async () => {
    const { checkPdfStreams } = await import('../../src/knowledge/pdf-budget.js');
    const unclosed = `1 0 obj\n<< ${'(/Filter['.repeat(7_000)} >>stream\nX\nendstream\n${'>>stream\nX\nendstream\n'.repeat(20)}endobj\n`;
    const image = '5 0 obj\n<< /Type /XObject /Subtype /Image /Length 1 >>stream\nX\nendstream\nendobj\n6 0 obj\n<< /XObject 7 0 R >>\nendobj\n';
    const references = Array.from({ length: 300 }, (_, i) => `${'0'.repeat(4_000)}x 7 0 obj << /Im${i} 5 0 R >>\n`).join('');
    const pdf = Buffer.from(`%PDF-1.4\n${unclosed}${image}${references}%%EOF\n`, 'latin1');
    const budget = await checkPdfStreams(pdf);
    expect(budget.streams).toBe(22);
    expect(budget.imagesNotCounted).toBe(1);
    // A filter array after unclosed ones is still read, and a name after them too.
    const chained = Buffer.from(`%PDF-1.4\n1 0 obj\n<< /Filter[ /Filter [/ASCIIHexDecode] /Length 3 >>stream\n41>\nendstream\nendobj\n%%EOF\n`, 'latin1');
    expect((await checkPdfStreams(chained)).decodedBytes).toBe(4);
  });
});

describe('a stream whose /Length cannot be confirmed', () => {
  it('an uncompressed 60-page manual with an 8 MB photo whose /Length values are 2 off is read (pdf.js reads it)', async () => {
    const { default: PDFDocument } = await import('pdfkit');
    const doc = new PDFDocument({ compress: false });
    const parts: Buffer[] = [];
    doc.on('data', (d: Buffer) => parts.push(d));
    const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(parts))));
    // A baseline JPEG header (1920 × 1080) around 8 MB of filler: pdfkit embeds it as a DCT image, never decoded.
    const sof = Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x04, 0x38, 0x07, 0x80, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]);
    const jpeg = Buffer.concat([sof, Buffer.alloc(8_000_000, 0x20), Buffer.from([0xff, 0xd9])]);
    for (let page = 0; page < 60; page++) {
      if (page > 0) doc.addPage();
      doc.text(`Page ${page}: how to export CSV. `.repeat(20));
      if (page === 59) doc.image(jpeg, 50, 300, { width: 400 });
    }
    doc.end();
    const pdf = (await done).toString('latin1').replace(/\/Length (\d+)\n>>\nstream\n/g, (m, n: string) => m.replace(`/Length ${n}`, `/Length ${Number(n) + 2}`));
    const { checkPdfStreams } = await import('../../src/knowledge/pdf-budget.js');
    await expect(checkPdfStreams(Buffer.from(pdf, 'latin1'))).resolves.toBeDefined();
  });

  it('a Flate bomb with a fake endstream inside its compressed data is still refused', async () => {
    // A stored (uncompressed) deflate block carries the bytes `endstream` verbatim; the bomb's compressed spaces follow.
    const decoy = Buffer.from('\nendstream\n', 'latin1');
    const stored = Buffer.concat([Buffer.from([0x00, decoy.length, 0x00, ~decoy.length & 0xff, 0xff]), decoy]);
    const rest = deflateRawSync(pageContent(2 * LIMIT), { level: 9 });
    const zlibBody = Buffer.concat([Buffer.from([0x78, 0x01]), stored, rest, Buffer.alloc(4)]);
    expect(zlibBody.includes('endstream')).toBe(true);
    const pdf = lengthsOff(onePagePdf({ dict: '/Filter /FlateDecode', body: zlibBody }), 2);
    const error = await refusal(pdf, 'bomb.pdf');
    expect((error as Error).message).toMatch(/decode to more than 1 MB/);
  });
});
