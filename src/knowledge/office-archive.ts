/**
 * The guard an Office file (a Word manual, an Excel Q&A workbook) passes before its reader opens it. Both are zips,
 * and mammoth and exceljs unpack their parts in memory through JSZip, which inflates a part whole and compares it
 * with the size the zip declared only afterwards: a few kilobytes that inflate to gigabytes (a zip bomb) would
 * exhaust the maintenance worker before any error. mammoth opens only the text parts; exceljs opens every part.
 */
import yauzl from 'yauzl';

/**
 * The most the parts an Office file's reader unpacks (a document, its styles and notes, not its pictures; every part
 * of a workbook) may unpack to: some 3,000 pages of text. The readers hold them in memory several times over.
 */
export const MAX_UNPACKED_TEXT_BYTES = 64_000_000;

/** Thrown when an Office file's parts unpack to more than its reader takes, or to more than they declare. */
export class OfficeArchiveTooLargeError extends Error {
  override readonly name = 'OfficeArchiveTooLargeError';
}

// The parts mammoth parses: XML and its relationships (a document, its styles, numbering and notes). Its pictures,
// embedded objects and fonts are never opened, so their size costs nothing.
const TEXT_PART = /\.(?:xml|rels)$/i;

/** Which parts of an Office file its reader unpacks: `text` (mammoth: XML and relationships) or `every` (exceljs). */
export type UnpackedParts = 'text' | 'every';

const megabytes = (bytes: number): string => `${Math.round((bytes / 1_000_000) * 10) / 10} MB`;

/**
 * Resolves when the parts of the zip in `data` its reader unpacks (`parts`, default the text parts) unpack to at most
 * `limit` bytes together; rejects with {@link OfficeArchiveTooLargeError} otherwise, and with yauzl's error when
 * `data` is not a readable zip.
 *
 * The declared sizes are checked first, so an honest huge part is refused without inflating anything; then every
 * such part is streamed through yauzl and counted, and yauzl stops a stream that runs past its declared size, so a
 * lying header costs at most what it declared. Nothing is kept: the reader unpacks the file again afterwards.
 */
export async function checkOfficeArchive(data: Buffer, limit: number, parts: UnpackedParts = 'text'): Promise<void> {
  const what = parts === 'text' ? 'its text parts' : 'its parts';
  const zip = await yauzl.fromBufferPromise(data, { lazyEntries: true, validateEntrySizes: true });
  try {
    const unpackedParts: yauzl.Entry[] = [];
    let declared = 0;
    for await (const entry of zip.eachEntry()) {
      // Folders (names ending in `/`) hold nothing.
      if (entry.fileName.endsWith('/') || (parts === 'text' && !TEXT_PART.test(entry.fileName))) continue;
      unpackedParts.push(entry);
      declared += entry.uncompressedSize;
    }
    if (declared > limit) throw new OfficeArchiveTooLargeError(`${what} unpack to more than ${megabytes(limit)} (${megabytes(declared)} declared)`);
    let unpacked = 0;
    for (const part of unpackedParts) {
      const stream = await zip.openReadStreamPromise(part);
      try {
        for await (const chunk of stream) {
          unpacked += (chunk as Buffer).length;
          if (unpacked > limit) throw new OfficeArchiveTooLargeError(`${what} unpack to more than ${megabytes(limit)}`);
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
