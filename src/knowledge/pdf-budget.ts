/**
 * The guard a PDF manual passes before pdf.js opens it, the PDF counterpart of `office-archive.ts`. pdf.js decodes
 * each stream it reads (page content, fonts, object streams) whole into memory, so a one-page file whose content
 * stream inflates to gigabytes (a decompression bomb: 1 MB of deflated spaces is 1 GB) would exhaust the maintenance
 * worker; the page limit does not see it. This module measures what the streams decode to, without keeping it.
 *
 * How streams are found: no package in package.json parses PDF object structure (unpdf bundles pdf.js but does not
 * export its parser; pdfkit only writes), so this is a documented scan, not a full parser. Every `>> stream EOL` is a
 * stream; its dictionary runs back to the `N G obj` before it. The body is `/Length` bytes long when the dictionary
 * gives a length (directly, or as a reference to a plain `N G obj <int> endobj`) and `endstream` follows it, which
 * is how pdf.js reads it. Otherwise a decoder is handed the rest of the file, since it stops at its own end marker,
 * and a fake `endstream` planted inside compressed data (where pdf.js, knowing the length, reads past it) cannot cut
 * the measurement short; but raw bytes (an unfiltered stream, a body that does not decode) count only up to the next
 * `endstream`, as pdf.js reads a stream without a length: to the end of the file, every such stream would count
 * the rest of the file again (60 uncompressed pages before an 8 MB photo, each length 2 off, were refused). A fake
 * `endstream` there hides at most raw file bytes, which grow nothing. Streams cannot sit inside object streams (PDF 32000 §7.5.7), so the
 * object streams are measured like any stream and their text is searched only for references (see `imagesOnlyDrawn`).
 */
import { constants, createInflate, inflateSync } from 'node:zlib';

/**
 * The most the streams of a PDF manual may decode to, all together, before pdf.js opens it: the same budget as an
 * Office file's unpacked text parts (`MAX_UNPACKED_TEXT_BYTES`), some 3,000 pages of text. Pictures do not count
 * (see {@link checkPdfStreams}); a real manual of hundreds of pages decodes to a few MB.
 */
export const MAX_PDF_DECODED_BYTES = 64_000_000;

/** Thrown when a PDF's streams decode to more than {@link MAX_PDF_DECODED_BYTES} (or the limit given). */
export class PdfTooLargeError extends Error {
  override readonly name = 'PdfTooLargeError';
}

const megabytes = (bytes: number): string => `${Math.round((bytes / 1_000_000) * 10) / 10} MB`;

/** Abbreviations the PDF allows in inline images, which some writers use in stream dictionaries too. */
const FILTER_NAMES: Record<string, string> = {
  Fl: 'FlateDecode', AHx: 'ASCIIHexDecode', A85: 'ASCII85Decode', LZW: 'LZWDecode', RL: 'RunLengthDecode',
  CCF: 'CCITTFaxDecode', DCT: 'DCTDecode',
};
/**
 * Filters whose output is pixels. pdf.js decodes them only to draw an image, which text extraction never does, so
 * the measurement stops at them and counts what was decoded up to them.
 */
const IMAGE_FILTERS = new Set(['DCTDecode', 'JPXDecode', 'CCITTFaxDecode', 'JBIG2Decode']);
/**
 * Keys whose value is an image, never read as page content or font data: the entries of a resources `/XObject`
 * dictionary (text extraction skips an XObject whose own dictionary says `/Subtype /Image`), a soft mask or mask of an
 * image, a page thumbnail.
 */
const IMAGE_KEYS = new Set(['SMask', 'Mask', 'Thumb']);

/** What the scan found: the streams' decoded bytes counted against the limit, and the image streams left out. */
export interface PdfStreamBudget {
  decodedBytes: number;
  streams: number;
  imagesNotCounted: number;
}

interface PdfStream {
  objectNumber: number | undefined;
  dict: string;
  bodyStart: number;
  /** End of the body as pdf.js reads it, or undefined when the length cannot be confirmed (measure to the end). */
  bodyEnd: number | undefined;
  /** Where the scan resumed: the body's end, or the `endstream` after it. */
  skipTo: number;
}

/**
 * Resolves with what the streams of the PDF in `data` decode to when that is at most `limit` bytes; rejects with
 * {@link PdfTooLargeError} naming the limit otherwise. Nothing decoded is kept: pdf.js decodes the file again.
 *
 * Counted: every stream pdf.js may decode while extracting text (page content, form XObjects, fonts and their
 * CMaps, object and cross-reference streams), by decoding it: Flate with node:zlib capped at the remaining budget,
 * and the filters that can sit before or after it in a chain (ASCIIHex, ASCII85, LZW, RunLength) too, each stage's
 * output counted. Not counted: image XObjects, drawn only through a page's `/XObject` resources (or as a mask or
 * thumbnail), since text extraction never decodes them and a manual's screenshots decode to hundreds of MB; a
 * stream that merely says `/Subtype /Image` but is used as page content is counted. An encrypted PDF's streams do not
 * decode without its key: each counts its raw length plus whatever the decoder produced before it failed. That is a
 * known gap: pdf.js opens a PDF encrypted with an empty user password, and decrypts and inflates what this check
 * could only count raw; closing it means deriving the key (PDF 32000 §7.6; RC4 needs OpenSSL's legacy provider).
 */
export async function checkPdfStreams(data: Uint8Array, limit: number = MAX_PDF_DECODED_BYTES): Promise<PdfStreamBudget> {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  // latin1 maps each byte to one character, so string offsets are byte offsets and regexes see the PDF's syntax.
  const text = bytes.toString('latin1');
  const streams = findStreams(text);
  const budget = new Budget(limit);
  const isObjectStream = (stream: PdfStream): boolean => /\/Type\s*\/ObjStm\b/.test(stream.dict);
  // Object streams first: the references that decide which images are only drawn may sit inside them.
  const objectStreamTexts: string[] = [];
  for (const stream of streams.filter(isObjectStream)) {
    const decoded = await measure(bodyOf(bytes, stream), rawLengthOf(stream), filtersOf(stream.dict), budget, true);
    if (decoded !== undefined) objectStreamTexts.push(decoded.toString('latin1'));
  }
  const images = new Set(streams.filter((s) => !isObjectStream(s) && /\/Subtype\s*\/Image\b/.test(s.dict) && s.objectNumber !== undefined));
  const onlyDrawn = images.size === 0 ? new Set<number>() : imagesOnlyDrawn([...syntaxOutsideStreams(text, streams), ...objectStreamTexts].join('\n'), new Set([...images].map((s) => s.objectNumber!)));
  let imagesNotCounted = 0;
  for (const stream of streams) {
    if (isObjectStream(stream)) continue;
    if (stream.objectNumber !== undefined && onlyDrawn.has(stream.objectNumber) && images.has(stream)) {
      imagesNotCounted++;
      continue;
    }
    await measure(bodyOf(bytes, stream), rawLengthOf(stream), filtersOf(stream.dict), budget, false);
  }
  return { decodedBytes: budget.used, streams: streams.length, imagesNotCounted };
}

const bodyOf = (bytes: Buffer, stream: PdfStream): Buffer => bytes.subarray(stream.bodyStart, stream.bodyEnd ?? bytes.length);
/** The body's raw bytes as pdf.js finds them: its confirmed length, or up to the next `endstream`. */
const rawLengthOf = (stream: PdfStream): number => (stream.bodyEnd ?? stream.skipTo) - stream.bodyStart;

/** The file without its stream bodies: where dictionaries, and so references between objects, are written. */
function syntaxOutsideStreams(text: string, streams: PdfStream[]): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (const stream of streams) {
    pieces.push(text.slice(from, stream.bodyStart));
    from = stream.skipTo;
  }
  pieces.push(text.slice(from));
  return pieces;
}

class Budget {
  used = 0;
  constructor(readonly limit: number) {}
  get remaining(): number {
    return this.limit - this.used;
  }
  add(bytes: number): void {
    this.used += bytes;
    if (this.used > this.limit) this.refuse();
  }
  refuse(): never {
    throw new PdfTooLargeError(`its streams decode to more than ${megabytes(this.limit)} (MAX_PDF_DECODED_BYTES)`);
  }
}

function findStreams(text: string): PdfStream[] {
  const streams: PdfStream[] = [];
  // Built on the first indirect /Length only: most writers give lengths directly, and the scan reads the whole file.
  let integers: Map<number, number> | undefined;
  const integerObject = (objectNumber: number): number | undefined => (integers ??= integerObjects(text)).get(objectNumber);
  // pdf.js also accepts a lone CR after `stream`, so the scan does too.
  const keyword = />>\s*stream(?:\r\n|\n|\r)/g;
  for (let match = keyword.exec(text); match !== null; match = keyword.exec(text)) {
    const bodyStart = match.index + match[0].length;
    const header = objectHeader(text, match.index);
    const dict = text.slice(header?.dictStart ?? Math.max(0, match.index - 4096), match.index + 2);
    const bodyEnd = confirmedEnd(text, bodyStart, dict, integerObject);
    // Skip the body, so bytes inside compressed data are not taken for syntax.
    const next = bodyEnd ?? text.indexOf('endstream', bodyStart);
    const skipTo = next < 0 ? text.length : next;
    streams.push({ objectNumber: header?.objectNumber, dict, bodyStart, bodyEnd, skipTo });
    keyword.lastIndex = skipTo;
  }
  return streams;
}

/**
 * The `N G obj` that opens the object whose dictionary ends at `dictEnd`: the last `obj` keyword before it (at most
 * 64 KB back) that follows two numbers. A dictionary holds no `obj` keyword of its own.
 */
function objectHeader(text: string, dictEnd: number): { objectNumber: number; dictStart: number } | undefined {
  const from = Math.max(0, dictEnd - 65_536);
  for (let at = text.lastIndexOf('obj', dictEnd); at >= from; at = text.lastIndexOf('obj', at - 1)) {
    const numbers = /(\d+)\s+\d+\s+$/.exec(text.slice(Math.max(0, at - 40), at));
    if (numbers !== null) return { objectNumber: Number(numbers[1]), dictStart: at + 3 };
  }
  return undefined;
}

function confirmedEnd(text: string, bodyStart: number, dict: string, integerObject: (objectNumber: number) => number | undefined): number | undefined {
  // The last /Length: a nested dictionary (DecodeParms) has none, and the stream's own entries come last in practice.
  const lengths = [...dict.matchAll(/\/Length\s+(\d+)(?:\s+(\d+)\s+R)?/g)];
  const entry = lengths.at(-1);
  if (entry === undefined) return undefined;
  const length = entry[2] === undefined ? Number(entry[1]) : integerObject(Number(entry[1]));
  if (length === undefined) return undefined;
  const end = bodyStart + length;
  const after = text.slice(end, end + 64);
  return /^\s*endstream/.test(after) ? end : undefined;
}

/** The objects that are a bare integer (`12 0 obj 3456 endobj`): where writers such as pdfTeX put a stream's length. */
function integerObjects(text: string): Map<number, number> {
  const integers = new Map<number, number>();
  for (const match of text.matchAll(/(?<!\d)(\d+)\s+\d+\s+obj\s*(\d+)\s*endobj/g)) integers.set(Number(match[1]), Number(match[2]));
  return integers;
}

/**
 * Which of the image objects `candidates` are only ever drawn as images: every reference to them is an entry of an
 * `/XObject` resources dictionary (written inline, or as an object of its own that an `/XObject` key references) or
 * the value of an image key. Any other use (`/Contents`, a font file, a Type 3 glyph) makes pdf.js decode the stream
 * as text or font data whatever its dictionary says, so such a stream is counted. An object nothing references is
 * never read, so it costs nothing either.
 */
function imagesOnlyDrawn(syntax: string, candidates: Set<number>): Set<number> {
  const xobjectDictionaries = new Set([...syntax.matchAll(/\/XObject\s*(\d+)\s+\d+\s+R\b/g)].map((m) => Number(m[1])));
  const readOtherwise = new Set<number>();
  for (const match of syntax.matchAll(/(?<![\d.])(\d+)\s+\d+\s+R\b/g)) {
    const objectNumber = Number(match[1]);
    if (!candidates.has(objectNumber) || readOtherwise.has(objectNumber)) continue;
    if (!drawnHere(syntax.slice(Math.max(0, match.index - 4096), match.index), xobjectDictionaries)) readOtherwise.add(objectNumber);
  }
  return new Set([...candidates].filter((n) => !readOtherwise.has(n)));
}

/** Whether the reference that follows `before` is an image key's value or an entry of an XObject dictionary. */
function drawnHere(before: string, xobjectDictionaries: Set<number>): boolean {
  const key = /\/([^\s/<>[\]()]+)\s*$/.exec(before);
  if (key === null) return false;
  if (IMAGE_KEYS.has(key[1]!)) return true;
  const open = before.lastIndexOf('<<', key.index);
  if (open < 0 || before.lastIndexOf('>>', key.index) > open) return false;
  const owner = before.slice(0, open);
  if (/\/XObject\s*$/.test(owner)) return true;
  // From the start of a run of digits only: a match found from inside one is found from its start, and trying each
  // digit rescanned the run (security review 15: 4 KB of digits before each reference, 26 ms a reference).
  const object = /(?<!\d)(\d+)\s+\d+\s+obj\s*$/.exec(owner);
  return object !== null && xobjectDictionaries.has(Number(object[1]));
}

/**
 * The stream's filters, abbreviations expanded. A `/Filter` given as a reference (rare) names an object this scan
 * cannot always read (it may sit in an object stream), so it is taken to be Flate: a body that does not inflate fails
 * at once and counts its raw length, and one that does is measured, as pdf.js would decode it.
 */
function filtersOf(dict: string): string[] {
  const entry = filterEntry(dict);
  if (entry === undefined) return /\/Filter\s*\d+\s+\d+\s+R\b/.test(dict) ? ['FlateDecode'] : [];
  return [...entry.matchAll(/\/([^\s/<>[\]()]+)/g)].map((name) => FILTER_NAMES[name[1]!] ?? name[1]!);
}

/**
 * The first `/Filter` value of `dict` that is a name or a closed array, as `/\/Filter\s*(\/[^\s/<>[\]()]+|\[[^\]]*\])/`
 * finds it. Not that pattern itself: it looked for the `]` of every unclosed `/Filter [` to the end of the dictionary
 * (security review 15: 64 KB of them, 0.7 s for each stream that shares the dictionary). An array opened after the
 * last `]` has none, so it is passed over without a search.
 */
function filterEntry(dict: string): string | undefined {
  const lastClose = dict.lastIndexOf(']');
  for (const match of dict.matchAll(/\/Filter\s*(\/[^\s/<>[\]()]+|\[)/g)) {
    if (match[1] !== '[') return match[1];
    const open = match.index + match[0].length - 1;
    if (open < lastClose) return dict.slice(open, dict.indexOf(']', open) + 1);
  }
  return undefined;
}

/**
 * Decodes `body` through `filters` within the budget, counting each stage's output (pdf.js holds each). An unfiltered
 * stream counts its raw length (`rawLength`, which may end before `body` does when the length was not confirmed). Returns the decoded bytes when `keep` (an object stream, searched for references).
 * A filter this module does not know (Crypt, which pdf.js applies during decryption, or a name pdf.js does not know
 * either) passes its input on, counted once more: the later filters in the chain are still measured.
 */
async function measure(body: Buffer, rawLength: number, filters: string[], budget: Budget, keep: boolean): Promise<Buffer | undefined> {
  if (filters.length === 0) {
    budget.add(rawLength);
    return keep ? body.subarray(0, rawLength) : undefined;
  }
  let input = body;
  for (const [stage, filter] of filters.entries()) {
    if (IMAGE_FILTERS.has(filter)) break;
    const decoded = await decodeStage(filter, input, stage === 0 ? rawLength : input.length, budget);
    if (decoded === undefined) return undefined;
    input = decoded;
  }
  return keep ? input : undefined;
}

/** One filter's output, counted; undefined when only its size was needed, or when it could not decode at all. */
async function decodeStage(filter: string, input: Buffer, rawLength: number, budget: Budget): Promise<Buffer | undefined> {
  switch (filter) {
    case 'FlateDecode':
      return inflateWithin(input, rawLength, budget);
    case 'ASCIIHexDecode': {
      const end = input.indexOf(0x3e); // '>'
      const hex = input.subarray(0, end < 0 ? input.length : end).toString('latin1').replace(/[^0-9a-fA-F]/g, '');
      budget.add(Math.ceil(hex.length / 2));
      return Buffer.from(hex.length % 2 === 0 ? hex : `${hex}0`, 'hex');
    }
    case 'ASCII85Decode':
      return ascii85Within(input, budget);
    // Counted from their codes without decoding. After Flate in a chain (rare) the next stage cannot be measured
    // from a size alone, so a chain that continues past them is counted up to them: pdf.js has no filter that grows
    // data other than these four, so what follows them is pictures or nothing.
    case 'RunLengthDecode':
      budget.add(runLengthSize(input));
      return undefined;
    case 'LZWDecode':
      budget.add(lzwSize(input));
      return undefined;
    default:
      // Passed on whole: a later decoder stops at its own end marker, not at an `endstream` inside its data.
      budget.add(rawLength);
      return input;
  }
}

/**
 * Inflates `input`, refusing as soon as the output passes the remaining budget (zlib's maxOutputLength stops it
 * there, so a bomb costs at most the budget). A stream that is cut short or corrupt (or encrypted) counts what
 * inflated before the error plus its raw length (`rawLength`); pdf.js keeps what it decoded up to such an error.
 */
async function inflateWithin(input: Buffer, rawLength: number, budget: Budget): Promise<Buffer | undefined> {
  try {
    const output = inflateSync(input, { maxOutputLength: budget.remaining + 1, finishFlush: constants.Z_SYNC_FLUSH });
    budget.add(output.length);
    return output;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') budget.refuse();
    budget.add(rawLength + (await partialInflate(input, budget.remaining + 1)));
    return undefined;
  }
}

/** How many bytes inflate from `input` before zlib reports an error (at most `cap`). The slow path: broken streams. */
function partialInflate(input: Buffer, cap: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
    let produced = 0;
    inflate.on('data', (chunk: Buffer) => {
      produced += chunk.length;
      if (produced > cap) inflate.destroy();
    });
    inflate.on('error', () => resolve(produced));
    inflate.on('close', () => resolve(produced));
    inflate.on('end', () => resolve(produced));
    inflate.end(input);
  });
}

/** ASCII85 decodes 5 characters to 4 bytes, and `z` to 4 zero bytes: the one way it grows, counted before decoding. */
function ascii85Within(input: Buffer, budget: Budget): Buffer {
  const end = input.indexOf('~>', 0, 'latin1');
  const source = input.subarray(0, end < 0 ? input.length : end).toString('latin1').replace(/\s/g, '');
  const zeros = (source.match(/z/g) ?? []).length;
  budget.add(zeros * 4 + Math.floor(((source.length - zeros) * 4) / 5));
  const out: number[] = [];
  let group: number[] = [];
  const flush = (count: number): void => {
    let value = 0;
    for (let i = 0; i < 5; i++) value = value * 85 + (group[i] ?? 84);
    for (let i = 0; i < count; i++) out.push((value >>> (24 - 8 * i)) & 0xff);
    group = [];
  };
  for (const char of source) {
    if (char === 'z' && group.length === 0) {
      out.push(0, 0, 0, 0);
      continue;
    }
    const code = char.charCodeAt(0) - 33;
    if (code < 0 || code > 84) continue;
    group.push(code);
    if (group.length === 5) flush(4);
  }
  if (group.length > 1) flush(group.length - 1);
  return Buffer.from(out);
}

/** The decoded size of RunLength data, read from its length bytes without decoding. */
function runLengthSize(input: Buffer): number {
  let size = 0;
  for (let i = 0; i < input.length; ) {
    const length = input[i]!;
    if (length === 128) break;
    if (length < 128) {
      size += length + 1;
      i += length + 2;
    } else {
      size += 257 - length;
      i += 2;
    }
  }
  return size;
}

/**
 * The decoded size of LZW data (PDF 32000 §7.4.4, EarlyChange 1, the default), from the codes alone: each table
 * entry's length is its prefix's plus one, so no string is built. LZW can grow a stream a thousandfold, so it is
 * measured like Flate rather than trusted.
 */
function lzwSize(input: Buffer): number {
  const lengths = new Uint32Array(4097);
  let next = 258;
  let codeLength = 9;
  let previous = -1;
  let size = 0;
  let bits = 0;
  let buffer = 0;
  for (let i = 0; i < input.length; i++) {
    buffer = ((buffer << 8) | input[i]!) >>> 0;
    bits += 8;
    while (bits >= codeLength) {
      bits -= codeLength;
      const code = (buffer >>> bits) & ((1 << codeLength) - 1);
      if (code === 256) {
        next = 258;
        codeLength = 9;
        previous = -1;
        continue;
      }
      if (code === 257) return size;
      const length = code < 256 ? 1 : code < next ? lengths[code]! : previous >= 0 ? (previous < 256 ? 1 : lengths[previous]!) + 1 : 1;
      size += length;
      if (previous >= 0 && next < 4096) {
        lengths[next] = (previous < 256 ? 1 : lengths[previous]!) + 1;
        next++;
      }
      previous = code;
      if (next + 1 >= 1 << codeLength && codeLength < 12) codeLength++;
    }
  }
  return size;
}
