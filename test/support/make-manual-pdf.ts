/**
 * Renders the Markdown manual (`data/manuals/xyz-manual.md`) as a PDF (`data/pdf/xyz-manual.pdf`) whose text can be
 * extracted again, so the PDF ingestion path can be exercised with the same content as the Markdown one.
 *
 *   npx tsx test/support/make-manual-pdf.ts [input.md] [output.pdf]
 *
 * A Japanese TrueType/OpenType font is embedded (subset, with a ToUnicode map) so that extractors such as unpdf
 * return Unicode text. The font is taken from XYZ_PDF_FONT or the first IPA Gothic file found in the usual places
 * (Debian/Ubuntu package `fonts-ipafont-gothic`). Markdown markup is stripped; headings are rendered larger, `#`
 * headings start a new page, list items keep their bullet or number and tables are drawn as plain grids.
 * The output is byte-for-byte reproducible: the creation date is fixed, so regenerating an unchanged manual gives
 * an identical file.
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DEFAULT_INPUT = path.join(ROOT, 'data/manuals/xyz-manual.md');
const DEFAULT_OUTPUT = path.join(ROOT, 'data/pdf/xyz-manual.pdf');

const FONT_CANDIDATES = [
  '/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf',
  '/usr/share/fonts/truetype/fonts-japanese-gothic.ttf',
  '/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf',
  '/usr/share/fonts/truetype/ipafont/ipag.ttf',
  '/Library/Fonts/ipag.ttf',
];

/** Fixed so that the file ID and metadata, and therefore the whole file, do not change between runs. */
const CREATION_DATE = new Date('2025-04-01T00:00:00Z');

const SIZE = { title: 22, h1: 18, h2: 15, h3: 12.5, body: 10.5, table: 9.5, footer: 8 } as const;
const MARGIN = 56;
const LIST_INDENT = 14;

function findFont(): string {
  const fromEnv = process.env.XYZ_PDF_FONT;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`XYZ_PDF_FONT points to a missing file: ${fromEnv}`);
    return fromEnv;
  }
  const found = FONT_CANDIDATES.find((candidate) => existsSync(candidate));
  if (!found) {
    throw new Error(
      `No Japanese font found (tried ${FONT_CANDIDATES.join(', ')}). ` +
        'Install fonts-ipafont-gothic or set XYZ_PDF_FONT to a .ttf/.otf file.',
    );
  }
  return found;
}

/** Removes inline Markdown markup: code spans, emphasis, links and images. */
export function stripInline(text: string): string {
  // Odd pieces are code spans: kept verbatim (they hold symbols such as `* _ ~` that are not emphasis).
  return text
    .split(/`([^`]+)`/)
    .map((piece, index) =>
      index % 2 === 1
        ? piece
        : piece
            .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/\[([^\]]+)\]\(([^)]+)\)/g, '$1（$2）')
            .replace(/\*\*([^*]+)\*\*/g, '$1')
            .replace(/__([^_]+)__/g, '$1')
            .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, '$1$2')
            .replace(/<br\s*\/?>/gi, ' '),
    )
    .join('');
}

type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'item'; marker: string; text: string }
  | { type: 'table'; rows: string[][] }
  | { type: 'code'; text: string };

/** Splits the Markdown into the few block kinds the manual uses. */
export function parseMarkdown(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ type: 'paragraph', text: stripInline(paragraph.join('')) });
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const trimmed = line.trim();
    if (trimmed.startsWith('```')) {
      flush();
      const code: string[] = [];
      for (i++; i < lines.length && !(lines[i] ?? '').trim().startsWith('```'); i++) code.push(lines[i] ?? '');
      blocks.push({ type: 'code', text: code.join('\n') });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(trimmed);
    if (heading) {
      flush();
      blocks.push({ type: 'heading', level: heading[1]!.length, text: stripInline(heading[2]!.trim()) });
      continue;
    }
    if (trimmed.startsWith('|')) {
      flush();
      const rows: string[][] = [];
      for (; i < lines.length && (lines[i] ?? '').trim().startsWith('|'); i++) {
        const cells = (lines[i] ?? '')
          .trim()
          .replace(/^\||\|$/g, '')
          .split('|')
          .map((cell) => stripInline(cell.trim()));
        if (cells.every((cell) => /^:?-{3,}:?$/.test(cell))) continue; // the header separator row
        rows.push(cells);
      }
      i--;
      blocks.push({ type: 'table', rows });
      continue;
    }
    const bullet = /^[-*+]\s+(.*)$/.exec(trimmed);
    const numbered = /^(\d+)\.\s+(.*)$/.exec(trimmed);
    if (bullet || numbered) {
      flush();
      blocks.push(
        bullet
          ? { type: 'item', marker: '・', text: stripInline(bullet[1]!) }
          : { type: 'item', marker: `${numbered![1]}.`, text: stripInline(numbered![2]!) },
      );
      continue;
    }
    if (trimmed === '') {
      flush();
      continue;
    }
    paragraph.push(trimmed);
  }
  flush();
  return blocks;
}

function render(blocks: Block[], fontPath: string, output: string): Promise<void> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: {
      Title: 'XYZ システム 利用者マニュアル',
      Author: 'XYZ システム サポートチーム',
      Subject: '架空の製品 XYZ システムの利用者マニュアル（helpdesk-worker のテスト用データ）',
      CreationDate: CREATION_DATE,
      ModDate: CREATION_DATE,
    },
  });
  doc.registerFont('jp', fontPath);
  doc.font('jp');

  const width = doc.page.width - MARGIN * 2;
  const done = new Promise<void>((resolve, reject) => {
    const stream = createWriteStream(output);
    stream.on('finish', resolve);
    stream.on('error', reject);
    doc.pipe(stream);
  });

  /** Starts a new page when less than `needed` points are left, so headings are not orphaned at the bottom. */
  const ensureSpace = (needed: number) => {
    if (doc.y + needed > doc.page.height - MARGIN) doc.addPage();
  };

  let firstHeading = true;
  for (const block of blocks) {
    switch (block.type) {
      case 'heading': {
        if (block.level === 1 && !firstHeading) doc.addPage();
        const size = firstHeading ? SIZE.title : block.level === 1 ? SIZE.h1 : block.level === 2 ? SIZE.h2 : SIZE.h3;
        firstHeading = false;
        ensureSpace(size * 4);
        doc.moveDown(block.level <= 2 ? 0.8 : 0.5);
        doc.fontSize(size).fillColor(block.level <= 2 ? '#1a3a6b' : '#222222');
        doc.text(block.text, MARGIN, doc.y, { width });
        if (block.level <= 2) {
          const y = doc.y + 2;
          doc
            .moveTo(MARGIN, y)
            .lineTo(MARGIN + width, y)
            .lineWidth(block.level === 1 ? 1.2 : 0.6)
            .strokeColor('#9aaccc')
            .stroke();
        }
        doc.moveDown(0.4);
        doc.fillColor('#000000');
        break;
      }
      case 'paragraph':
        doc.fontSize(SIZE.body).text(block.text, MARGIN, doc.y, { width, lineGap: 3 });
        doc.moveDown(0.5);
        break;
      case 'item': {
        doc.fontSize(SIZE.body);
        const markerWidth = block.marker === '・' ? SIZE.body : SIZE.body * 1.6;
        ensureSpace(SIZE.body * 2);
        const y = doc.y;
        doc.text(block.marker, MARGIN + LIST_INDENT, y, { width: markerWidth, lineBreak: false });
        doc.text(block.text, MARGIN + LIST_INDENT + markerWidth + 2, y, {
          width: width - LIST_INDENT - markerWidth - 2,
          lineGap: 3,
        });
        doc.moveDown(0.25);
        break;
      }
      case 'code':
        doc.fontSize(SIZE.table).text(block.text, MARGIN + LIST_INDENT, doc.y, { width: width - LIST_INDENT });
        doc.moveDown(0.5);
        break;
      case 'table': {
        const columns = Math.max(...block.rows.map((row) => row.length));
        const colWidth = width / columns;
        const pad = 4;
        doc.fontSize(SIZE.table);
        doc.moveDown(0.3);
        block.rows.forEach((row, rowIndex) => {
          const heights = row.map((cell) => doc.heightOfString(cell || ' ', { width: colWidth - pad * 2 }));
          const rowHeight = Math.max(...heights) + pad * 2;
          ensureSpace(rowHeight);
          const top = doc.y;
          if (rowIndex === 0) doc.rect(MARGIN, top, width, rowHeight).fill('#e8eef8').fillColor('#000000');
          row.forEach((cell, c) => {
            doc.text(cell, MARGIN + c * colWidth + pad, top + pad, { width: colWidth - pad * 2 });
          });
          doc.rect(MARGIN, top, width, rowHeight).lineWidth(0.5).strokeColor('#9aaccc').stroke();
          doc.x = MARGIN;
          doc.y = top + rowHeight;
        });
        doc.moveDown(0.6);
        break;
      }
    }
  }

  // Page numbers only (no running title), so the extracted text is not padded with a repeated header.
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .fontSize(SIZE.footer)
      .fillColor('#666666')
      .text(`- ${i + 1} -`, MARGIN, doc.page.height - MARGIN / 2 - SIZE.footer, { width, align: 'center' });
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return done;
}

async function main(): Promise<void> {
  const input = path.resolve(process.argv[2] ?? DEFAULT_INPUT);
  const output = path.resolve(process.argv[3] ?? DEFAULT_OUTPUT);
  const fontPath = findFont();
  const blocks = parseMarkdown(readFileSync(input, 'utf8'));
  mkdirSync(path.dirname(output), { recursive: true });
  await render(blocks, fontPath, output);
  console.log(`${path.relative(ROOT, output)}: ${blocks.length} blocks from ${path.relative(ROOT, input)} (font ${fontPath})`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
