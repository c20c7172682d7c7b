/**
 * The guard an Office file (a Word manual, an Excel Q&A workbook) passes before its reader opens it. Both are zips,
 * and mammoth and exceljs unpack their parts in memory through JSZip, which inflates a part whole and compares it
 * with the size the zip declared only afterwards: a few kilobytes that inflate to gigabytes (a zip bomb) would
 * exhaust the maintenance worker before any error.
 */
import yauzl from 'yauzl';

/**
 * The most an Office file's text parts (a document, its styles and notes; a workbook's sheets and strings; not their
 * pictures) may unpack to: some 3,000 pages of text. The readers hold them in memory several times over.
 */
export const MAX_UNPACKED_TEXT_BYTES = 64_000_000;

/** Thrown when an Office file's parts unpack to more than its reader takes, or to more than they declare. */
export class OfficeArchiveTooLargeError extends Error {
  override readonly name = 'OfficeArchiveTooLargeError';
}

// The parts the readers parse: XML and its relationships (a document, its styles, numbering and notes; a workbook's
// sheets and shared strings). Media, embedded objects and fonts are never opened, so their size costs nothing.
const TEXT_PART = /\.(?:xml|rels)$/i;

const megabytes = (bytes: number): string => `${Math.round((bytes / 1_000_000) * 10) / 10} MB`;

/**
 * Resolves when the text parts of the zip in `data` unpack to at most `limit` bytes together; rejects with
 * {@link OfficeArchiveTooLargeError} otherwise, and with yauzl's error when `data` is not a readable zip.
 *
 * The declared sizes are checked first, so an honest huge part is refused without inflating anything; then every
 * text part is streamed through yauzl and counted, and yauzl stops a stream that runs past its declared size, so a
 * lying header costs at most what it declared. Nothing is kept: the reader unpacks the file again afterwards.
 */
export async function checkOfficeArchive(data: Buffer, limit: number): Promise<void> {
  const zip = await yauzl.fromBufferPromise(data, { lazyEntries: true, validateEntrySizes: true });
  try {
    const parts: yauzl.Entry[] = [];
    let declared = 0;
    for await (const entry of zip.eachEntry()) {
      if (!TEXT_PART.test(entry.fileName)) continue;
      parts.push(entry);
      declared += entry.uncompressedSize;
    }
    if (declared > limit) throw new OfficeArchiveTooLargeError(`its text parts unpack to more than ${megabytes(limit)} (${megabytes(declared)} declared)`);
    let unpacked = 0;
    for (const part of parts) {
      const stream = await zip.openReadStreamPromise(part);
      try {
        for await (const chunk of stream) {
          unpacked += (chunk as Buffer).length;
          if (unpacked > limit) throw new OfficeArchiveTooLargeError(`its text parts unpack to more than ${megabytes(limit)}`);
        }
      } catch (err) {
        stream.destroy();
        if (err instanceof OfficeArchiveTooLargeError) throw err;
        // yauzl's "too many bytes in the stream": the part inflates past the size its header declared.
        throw new OfficeArchiveTooLargeError(`${part.fileName}: ${(err as Error).message}`, { cause: err });
      }
    }
  } finally {
    zip.close();
  }
}
