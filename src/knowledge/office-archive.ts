/**
 * The guard an Office file (a Word manual, an Excel Q&A workbook) passes before its reader opens it. Both are zips,
 * and mammoth and exceljs unpack their parts in memory through JSZip, which inflates a part whole and compares it
 * with the size the zip declared only afterwards: a few kilobytes that inflate to gigabytes (a zip bomb) would
 * exhaust the maintenance worker before any error. mammoth opens every part but pictures, embedded objects and fonts
 * (whatever the others are called); exceljs opens every part.
 */
import path from 'node:path';
import { Parser } from 'htmlparser2';
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

// What mammoth never inflates: pictures, embedded objects and fonts, which it meets only through image relationships
// and leaves unread (manual-loader gives it an image converter that never reads). Every other part counts, whatever
// its name: mammoth opens the main document, styles, numbering, notes and comments wherever the relationships put them.
const MEDIA_PART = /^word\/(?:media|embeddings|fonts)\//;
// Case-insensitive and after `\\` → `/`, `.`/`..` and a leading `/`, so no spelling of a target slips past.
const MEDIA_TARGET = /^word\/(?:media|embeddings|fonts)\//i;
const RELATIONSHIPS_PART = /\.rels$/i;
// The last segment of the relationship types mammoth follows to a part it reads as text (docx-reader.js: the package's
// officeDocument, then the main document's styles, numbering, footnotes, endnotes, comments); it follows no other
// type to read a part, so a 3D model or a hyperlink into word/media unpacks nothing. Matched on any namespace and
// case, a superset of mammoth's exact URIs. TargetMode="External" does not exempt one: mammoth ignores it.
const TEXT_RELATIONSHIP = /\/(?:officeDocument|styles|numbering|footnotes|endnotes|comments)$/i;

/**
 * Which parts of an Office file its reader unpacks: `text` (mammoth: every part but the pictures, embedded objects and
 * fonts of `word/media/`, `word/embeddings/`, `word/fonts/`, unless a relationship names one of those as a part
 * mammoth reads as text) or `every` (exceljs).
 */
export type UnpackedParts = 'text' | 'every';

const megabytes = (bytes: number): string => `${Math.round((bytes / 1_000_000) * 10) / 10} MB`;

/**
 * Resolves when the parts of the zip in `data` its reader unpacks (`parts`, default the text parts) unpack to at most
 * `limit` bytes together; rejects with {@link OfficeArchiveTooLargeError} otherwise, and with yauzl's error when
 * `data` is not a readable zip.
 *
 * The declared sizes are checked first, so an honest huge part is refused without inflating anything; then every
 * such part is streamed through yauzl and counted, and yauzl stops a stream that runs past its declared size, so a
 * lying header costs at most what it declared. Nothing is kept but the relationship parts, which count too: when one
 * of them names a picture, object or font folder part as a document, styles or notes, mammoth would open that part
 * as text, so every part counts.
 */
export async function checkOfficeArchive(data: Buffer, limit: number, parts: UnpackedParts = 'text'): Promise<void> {
  const zip = await yauzl.fromBufferPromise(data, { lazyEntries: true, validateEntrySizes: true });
  try {
    const counted: yauzl.Entry[] = [];
    const media: yauzl.Entry[] = [];
    for await (const entry of zip.eachEntry()) {
      // Folders (names ending in `/`) hold nothing.
      if (entry.fileName.endsWith('/')) continue;
      (parts === 'text' && MEDIA_PART.test(entry.fileName) && !RELATIONSHIPS_PART.test(entry.fileName) ? media : counted).push(entry);
    }
    const budget = new UnpackBudget(limit, parts === 'text' ? 'its text parts' : 'its parts');
    budget.declare(counted);
    const relationships = await unpack(zip, counted, budget, (part) => RELATIONSHIPS_PART.test(part.fileName));
    if (media.length > 0 && relationships.some(({ part, xml }) => namesMediaAsText(part, xml))) {
      budget.what = 'its parts';
      budget.declare(media);
      await unpack(zip, media, budget, () => false);
    }
  } finally {
    zip.close();
  }
}

/** The bytes counted so far against the limit, and what the error says was counted. */
class UnpackBudget {
  private declared = 0;
  unpacked = 0;
  constructor(
    readonly limit: number,
    public what: string,
  ) {}

  /** Adds the sizes `parts` declare; throws when they pass the limit, before anything is inflated. */
  declare(parts: readonly yauzl.Entry[]): void {
    for (const part of parts) this.declared += part.uncompressedSize;
    if (this.declared > this.limit) throw new OfficeArchiveTooLargeError(`${this.what} unpack to more than ${megabytes(this.limit)} (${megabytes(this.declared)} declared)`);
  }

  count(bytes: number): void {
    this.unpacked += bytes;
    if (this.unpacked > this.limit) throw new OfficeArchiveTooLargeError(`${this.what} unpack to more than ${megabytes(this.limit)}`);
  }
}

/** Streams `parts` through `budget`; returns the text of those `keep` accepts (bounded by the budget). */
async function unpack(zip: yauzl.ZipFile, parts: readonly yauzl.Entry[], budget: UnpackBudget, keep: (part: yauzl.Entry) => boolean): Promise<{ part: string; xml: string }[]> {
  const kept: { part: string; xml: string }[] = [];
  for (const part of parts) {
    const chunks: Buffer[] = [];
    const stream = await zip.openReadStreamPromise(part);
    try {
      for await (const chunk of stream) {
        budget.count((chunk as Buffer).length);
        if (keep(part)) chunks.push(chunk as Buffer);
      }
    } catch (err) {
      stream.destroy();
      if (err instanceof OfficeArchiveTooLargeError) throw err;
      // yauzl's "too many bytes in the stream": the part inflates past the size its header declared.
      throw new OfficeArchiveTooLargeError(`${part.fileName}: ${(err as Error).message}`, { cause: err });
    }
    if (keep(part)) kept.push({ part: part.fileName, xml: Buffer.concat(chunks).toString('utf8') });
  }
  return kept;
}

/**
 * True when the relationship part `part` (`word/_rels/document.xml.rels`) names a part of the picture, object or
 * font folders through a relationship mammoth follows to read text (a main document, styles, numbering, notes,
 * comments). Read with an XML parser (entities
 * decoded, any namespace prefix) and each target resolved both as mammoth joins it and normalised, so no spelling
 * hides one.
 */
function namesMediaAsText(part: string, xml: string): boolean {
  // `<folder>/_rels/<name>.rels` describes `<folder>/<name>`, whose folder relative targets start from.
  const base = path.posix.dirname(path.posix.dirname(part.replace(/\\/g, '/')));
  let found = false;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (found || name.slice(name.lastIndexOf(':') + 1) !== 'Relationship') return;
        const type = attributes.Type ?? '';
        const target = attributes.Target;
        if (target === undefined || !TEXT_RELATIONSHIP.test(type)) return;
        found = resolvedTargets(base === '.' ? '' : base, target).some((name) => MEDIA_TARGET.test(name));
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
  return found;
}

/** Where `target` may lead from `base`: as mammoth joins it (no `..` resolved) and normalised. */
function resolvedTargets(base: string, target: string): string[] {
  const slashed = target.replace(/\\/g, '/');
  const joined = slashed.startsWith('/') ? slashed : `${base}/${slashed}`;
  return [joined, path.posix.normalize(joined)].map((name) => name.replace(/^(?:\.?\/)+/, ''));
}
