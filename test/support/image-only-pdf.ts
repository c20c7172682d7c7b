/**
 * A PDF of one page holding a picture and a drawn box and no text layer: what a scanner writes without OCR, for the
 * tests of manual files that give no text.
 */
import PDFDocument from 'pdfkit';

/** A one-pixel PNG: the "scan" on the page. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** The PDF's bytes; the same on every run (the creation date is fixed). */
export async function imageOnlyPdf(): Promise<Buffer> {
  const doc = new PDFDocument({ info: { CreationDate: new Date('2025-01-01T00:00:00Z') } });
  const parts: Buffer[] = [];
  doc.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise<void>((resolve) => doc.on('end', resolve));
  doc.image(PIXEL, 50, 50, { width: 400 });
  doc.rect(50, 500, 200, 100).fill('#888888');
  doc.end();
  await ended;
  return Buffer.concat(parts);
}
