/**
 * Reads a PDF manual as a reader sees its pages: lines rebuilt from the positioned text runs pdf.js reports
 * (through unpdf), headings recognised by their type size, sentences joined across the line breaks and page breaks
 * of the layout, and the page furniture that repeats on every page (running headers and footers, page numbers) and
 * the leader lines of a table of contents left out.
 *
 * Why geometry and not the extracted text: a PDF has no paragraphs, only runs of glyphs at positions. Joining the
 * lines of the plain text by their character count failed on mixed Japanese and Latin text (a line of half-width
 * letters holds more characters than a full line of kanji), so most wrapped sentences stayed cut in two; and every
 * page's footer, page number and the contents page's list of every heading were indexed as manual text.
 */
import { extractTextItems, getDocumentProxy, type StructuredTextItem } from 'unpdf';
import { errorMessage, KnowledgeError } from './errors.js';
import { checkPdfStreams, MAX_PDF_DECODED_BYTES } from './pdf-budget.js';
import { SectionCollector, type ManualSection } from './sections.js';

/** A text run as pdf.js reports it: PDF coordinates in points, y growing upwards. */
export type PdfTextRun = Pick<StructuredTextItem, 'str' | 'x' | 'y' | 'width' | 'fontSize' | 'hasEOL'>;

/** One line of a page, rebuilt from its runs. */
export interface PdfLine {
  text: string;
  /** Left and right edges and baseline, in points. */
  x: number;
  right: number;
  y: number;
  /** Type size of the line's longest run. */
  size: number;
}

/**
 * What ends a sentence at the end of a full line. Closing brackets (`」`, `）`) do not: in Japanese they close a
 * quoted menu name or a note mid-sentence far more often than they end a paragraph at the margin.
 */
const SENTENCE_END = /[。．.!！?？:：]$/;
const LIST_START = /^(?:[・•●○■□◆◇▶►\-–*※]|\d+[.)．）]|[（(]\d+[)）]|[①-⑳]|第.+[章節条])/;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303F\uFF00-\uFFEF]/u;
/**
 * A page number alone on its line, digits made `#` (see {@link furnitureKey}): `3`, `- 3 -`, `Page 3`, `3 / 20`,
 * `p. 3`, `3ページ`, `(3)`, and the roman numbers of front matter (`iv`).
 */
const PAGE_NUMBER = /^(?:[-–—‐(（[［]?\s*(?:p(?:age)?\.?\s*)?#+\s*(?:(?:\/|／|of)\s*#+)?\s*(?:ページ|頁)?\s*[-–—‐)）\]］]?|[ivxlc]{1,7}|[IVXLC]{1,7})$/i;
/** A table-of-contents line: a title, a dot leader and a page number. */
// Not started just after a leader character: a leader found from there is found from that character, and trying each
// one split the run of dots and spaces every way again (security review 15: 6 ms a 200-character line). The check
// looks back from the first leader, not from every position of a run of blanks, and the blanks before the number
// are one run (`(?:L\s*){4,}\s*` split them two ways): linear, where lines over MAX_FURNITURE_CHARS are not tested
// anyway (round 2: a 100,000-blank line 7 s before, 0.2 ms now).
const TOC_LEADER = /[.．・･…‥·⋯](?<![.．・･…‥·⋯]\s*[.．・･…‥·⋯])(?:\s*[.．・･…‥·⋯]){3,}\s*\d+\s*$/;
/** Lines of a page looked at for running headers and footers: the two topmost and the two lowest. */
const EDGE_LINES = 2;
/** A heading's type is at least this much larger than the body text's. */
const HEADING_SIZE_RATIO = 1.15;
const HEADING_MAX_CHARS = 80;
/** Above this many lines on a page (a real page holds under a hundred), column extents are taken page-wide: the
 * pairwise pass is quadratic. */
const MAX_LINES_FOR_COLUMNS = 400;
/** Contents lines and page numbers are short; longer lines are not tested (the leader pattern backtracks). */
const MAX_FURNITURE_CHARS = 200;

/**
 * Rebuilds a page's lines from its runs in content order: a new line where pdf.js ends one, where the baseline
 * moves by more than half the type size, or where the text jumps back to the left (the next column).
 */
export function pageLines(runs: readonly PdfTextRun[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let current: (PdfLine & { longest: number }) | undefined;
  /** The last run added to `current`. */
  let tail = '';
  let ended = false;
  for (const run of runs) {
    if (run.str === '') {
      ended ||= run.hasEOL;
      continue;
    }
    const size = run.fontSize > 0 ? run.fontSize : (current?.size ?? 0);
    const blank = run.str.trim() === '';
    const jumps =
      current !== undefined &&
      (ended || Math.abs(run.y - current.y) > 0.5 * Math.max(size, current.size, 1) || run.x < current.right - 2 * Math.max(size, 1));
    if (current === undefined || jumps) {
      if (current) lines.push(current);
      current = blank ? undefined : { text: run.str, x: run.x, right: run.x + run.width, y: run.y, size, longest: run.str.length };
      tail = run.str;
    } else {
      // A visible gap between two runs of one line is a space (table cells, words placed one by one). Between two
      // Japanese characters it takes a whole character's width: less is letter spacing (justified lines, spaced-out
      // headings such as 目　次), and a space there would split the word for the search.
      // The line's last run, not the line: reading the end of a growing string flattens it each time.
      const cjkPair = CJK.test(tail.slice(-1)) && CJK.test(run.str[0] ?? '');
      const gap = run.x - current.right > (cjkPair ? 1 : 0.2) * Math.max(size, 1) && !/\s$/.test(tail) && !/^\s/.test(run.str);
      current.text += (gap ? ' ' : '') + run.str;
      tail = run.str;
      current.right = Math.max(current.right, run.x + run.width);
      if (!blank && run.str.length > current.longest) {
        current.longest = run.str.length;
        current.size = size;
      }
    }
    ended = run.hasEOL;
  }
  if (current) lines.push(current);
  return lines
    .map(({ text, x, right, y, size }) => ({ text: text.replace(/\s+/g, ' ').trim(), x, right, y, size }))
    .filter((line) => line.text !== '');
}

/** A line's text with digits made alike, so `- 3 -` on page 3 and `- 4 -` on page 4 compare equal. */
function furnitureKey(text: string): string {
  return text.normalize('NFKC').replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

/**
 * Leaves out what is not the manual's text: page numbers; lines that repeat at the top or bottom of at least half
 * of the pages (three at least), or of two pages with a page number at one end (running headers and footers); and
 * table-of-contents lines with a dot leader. A line set larger than the body text is a heading and stays.
 */
export function withoutPageFurniture(pages: readonly PdfLine[][], body = bodySize(pages.flat())): PdfLine[][] {
  const edges = pages.map((lines) => {
    const byHeight = [...lines].sort((a, b) => b.y - a.y);
    return new Set([...byHeight.slice(0, EDGE_LINES), ...byHeight.slice(-EDGE_LINES)]);
  });
  const pagesWithKey = new Map<string, number>();
  for (const edge of edges) {
    for (const key of new Set([...edge].map((line) => furnitureKey(line.text)))) pagesWithKey.set(key, (pagesWithKey.get(key) ?? 0) + 1);
  }
  // A running header or footer repeats on half the pages; one that names the chapter changes with it, but it
  // carries the page number at one end.
  const repeats = (key: string) => {
    const count = pagesWithKey.get(key) ?? 0;
    return (count >= 3 && count >= pages.length / 2) || (count >= 2 && /^#\s|\s#$/.test(key));
  };
  return pages.map((lines, i) =>
    lines.filter((line) => {
      if (line.text.length <= MAX_FURNITURE_CHARS && TOC_LEADER.test(line.text)) return false;
      // Headings are never furniture: numbered ones (`2.1 ログイン`) at the top of many pages look alike once
      // their digits are made alike.
      if (!edges[i]?.has(line) || isHeadingLine(line, body)) return true;
      const key = furnitureKey(line.text);
      return !(key.length <= MAX_FURNITURE_CHARS && PAGE_NUMBER.test(key)) && !repeats(key);
    }),
  );
}

/** Rounds a type size so that 10.5 and 10.49 are one size. */
const sizeClass = (size: number) => Math.round(size * 2) / 2;

/** The body text's type size: the size that sets the most characters. */
export function bodySize(lines: readonly PdfLine[]): number {
  const chars = new Map<number, number>();
  for (const line of lines) chars.set(sizeClass(line.size), (chars.get(sizeClass(line.size)) ?? 0) + line.text.length);
  let best = 0;
  let most = -1;
  for (const [size, count] of chars) {
    if (count > most || (count === most && size < best)) [best, most] = [size, count];
  }
  return best;
}

function isHeadingLine(line: PdfLine, body: number): boolean {
  return (
    body > 0 &&
    line.size >= body * HEADING_SIZE_RATIO &&
    Array.from(line.text).length <= HEADING_MAX_CHARS &&
    /\p{L}/u.test(line.text) &&
    !/[。．]$/.test(line.text)
  );
}

/**
 * Heading levels by type size: the largest size of a heading-like line (short, larger than the body text, not a
 * sentence) is level 1, the next two are levels 2 and 3. Smaller heading sizes stay text, as `####` does in
 * Markdown.
 */
export function headingLevels(lines: readonly PdfLine[], body: number): Map<number, number> {
  const sizes = [...new Set(lines.filter((line) => isHeadingLine(line, body)).map((line) => sizeClass(line.size)))].sort((a, b) => b - a);
  return new Map(sizes.slice(0, 3).map((size, i) => [size, i + 1]));
}

/**
 * Marks the lines that run to the right edge of their column, as a line the layout wrapped does. The column is
 * the body text the line overlaps horizontally; a line alone in its column is never taken as wrapped.
 */
function fullLines(lines: readonly PdfLine[], body: number): Set<PdfLine> {
  const bodyLines = lines.filter((line) => Math.abs(line.size - body) <= body * 0.15);
  const full = new Set<PdfLine>();
  const isFull = (line: PdfLine, left: number, right: number) => right - line.right <= Math.max(2 * line.size, 0.12 * (right - left));
  if (lines.length > MAX_LINES_FOR_COLUMNS) {
    // Page-wide extents: one pass, whatever the page holds.
    if (bodyLines.length < 2) return full;
    const left = bodyLines.reduce((min, line) => Math.min(min, line.x), Infinity);
    const right = bodyLines.reduce((max, line) => Math.max(max, line.right), -Infinity);
    for (const line of lines) if (isFull(line, left, right)) full.add(line);
    return full;
  }
  for (const line of lines) {
    let left = line.x;
    let right = line.right;
    let others = 0;
    for (const other of bodyLines) {
      if (other === line || other.x >= line.right || other.right <= line.x) continue;
      others++;
      left = Math.min(left, other.x);
      right = Math.max(right, other.right);
    }
    if (others > 0 && isFull(line, left, right)) full.add(line);
  }
  return full;
}

/**
 * The usual distance between the baselines of two consecutive body lines (the median), so that a paragraph break
 * (a larger gap) can be told from a table's looser rows.
 */
function linePitch(pages: readonly PdfLine[][], body: number): number {
  const gaps: number[] = [];
  for (const lines of pages) {
    for (let i = 1; i < lines.length; i++) {
      const [a, b] = [lines[i - 1]!, lines[i]!];
      const gap = a.y - b.y;
      if (Math.abs(a.size - body) <= body * 0.15 && Math.abs(b.size - body) <= body * 0.15 && gap > 0 && gap < 3 * body) gaps.push(gap);
    }
  }
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor((gaps.length - 1) / 2)] ?? 1.2 * body;
}

/**
 * Sections of a PDF's pages (lines already rebuilt): heading paths from the heading sizes, body lines joined where
 * the layout wrapped a sentence (also across a page break), a blank line between paragraphs and between pages.
 * Without any heading size the whole text is one section with an empty heading.
 */
export function pdfLayoutSections(pages: readonly PdfLine[][]): ManualSection[] {
  // The body size is the same with or without the few furniture lines: measured once, on every line.
  const body = bodySize(pages.flat());
  const kept = withoutPageFurniture(pages, body);
  const levels = headingLevels(kept.flat(), body);
  const pitch = linePitch(kept, body);
  const sections = new SectionCollector();
  /** The last body line, while the next line may still continue its sentence; none after a heading. */
  let open: { line: PdfLine; full: boolean } | undefined;
  let lastHeading: { level: number; line: PdfLine } | undefined;
  const joiner = (before: string, after: string) => (CJK.test(before.slice(-1)) || CJK.test(after[0] ?? '') ? '' : ' ');

  /**
   * The open line ends in a hyphen after a letter: held back until the next line shows whether it splits a word
   * (`admin-` + `istrator`) or belongs there.
   */
  let hyphen = false;
  const releaseHyphen = () => {
    if (hyphen) sections.add('-');
    hyphen = false;
  };

  for (const lines of kept) {
    const full = fullLines(lines, body);
    let previous: PdfLine | undefined;
    for (const line of lines) {
      const level = isHeadingLine(line, body) ? levels.get(sizeClass(line.size)) : undefined;
      if (level !== undefined) {
        releaseHyphen();
        // A heading the layout wrapped onto a second line of the same size continues the heading (up to a heading's
        // length: large type running on is a banner, not one heading).
        const title = sections.titleAt(level);
        const joined = lastHeading?.level === level && previous === lastHeading.line ? `${title}${joiner(title, line.text)}${line.text}` : undefined;
        if (joined !== undefined && Array.from(joined).length <= HEADING_MAX_CHARS) sections.retitle(level, joined);
        else sections.heading(level, line.text);
        open = undefined;
        lastHeading = { level, line };
        previous = line;
        continue;
      }
      lastHeading = undefined;
      if (open && open.full && !SENTENCE_END.test(open.line.text) && !LIST_START.test(line.text)) {
        if (hyphen && /^[a-z]/.test(line.text)) hyphen = false;
        else {
          releaseHyphen();
          sections.add(joiner(open.line.text, line.text));
        }
      } else {
        releaseHyphen();
        if (sections.hasText) sections.add(previous === undefined || previous.y - line.y > 1.5 * pitch ? '\n\n' : '\n');
      }
      hyphen = /[A-Za-z]-$/.test(line.text);
      sections.add(hyphen ? line.text.slice(0, -1) : line.text);
      open = { line, full: full.has(line) };
      previous = line;
    }
  }
  releaseHyphen();
  return sections.finish();
}

/**
 * Most pages a manual PDF may have: pdf.js reads page after page on the event loop, and a PDF of tens of thousands
 * of pages (a malformed export, or a hostile one) kept a reindex busy for minutes. A real manual has hundreds.
 */
export const MAX_PDF_PAGES = 2_000;

/** Limits of {@link pdfSections}; tests lower them to stay small. */
export interface PdfReadOptions {
  /** Most bytes the file's streams may decode to (default {@link MAX_PDF_DECODED_BYTES}); see `pdf-budget.ts`. */
  maxDecodedBytes?: number;
}

/**
 * What a reader library (pdf.js, mammoth) threw on a file's bytes, wrapped for the named file: its verdict on that
 * file even when it is a TypeError (mammoth throws one on a malformed part). Only the calls into the library are
 * wrapped in it, never our own code around them, whose TypeError is a bug of ours (bug review 39f, finding 4).
 */
export class ReaderVerdictError extends KnowledgeError {
  readonly fromReader = true;
}

/**
 * Runs one call into a reader library; what it throws becomes a {@link ReaderVerdictError} whose message reads
 * `${file}: cannot read ${what}: …`.
 */
export async function readerCall<T>(file: string, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw new ReaderVerdictError(`${file}: cannot read ${what}: ${errorMessage(err)}`, file, undefined, { cause: err });
  }
}

/**
 * Reads a PDF file's text as sections; see the module comment. Before pdf.js opens the file, its streams are
 * measured ({@link checkPdfStreams}), so a decompression bomb is refused instead of decoded.
 *
 * @throws KnowledgeError naming `file` when the bytes are not a readable PDF, or decode to more than the limit.
 */
export async function pdfSections(data: Uint8Array, file: string, options: PdfReadOptions = {}): Promise<ManualSection[]> {
  try {
    await checkPdfStreams(data, options.maxDecodedBytes ?? MAX_PDF_DECODED_BYTES);
  } catch (err) {
    // Named for the file, but not pdf.js's verdict: a TypeError here is a bug of ours and still fails the reindex.
    throw new KnowledgeError(`${file}: cannot read PDF: ${errorMessage(err)}`, file, undefined, { cause: err });
  }
  const runs = await pdfTextRuns(data, file);
  return pdfLayoutSections(runs.map((page) => pageLines(page)));
}

/** pdf.js's text runs, page by page; each call into pdf.js alone is wrapped by {@link readerCall}. */
async function pdfTextRuns(data: Uint8Array, file: string): Promise<PdfTextRun[][]> {
  // pdf.js takes ownership of (detaches) the buffer it is given; a copy keeps the caller's bytes usable. Verbosity 0
  // stops its console warnings ("Indexing all PDF objects"), which would otherwise land on a CLI's stdout.
  const pdf = await readerCall(file, 'PDF', () => getDocumentProxy(new Uint8Array(data), { verbosity: 0 }));
  try {
    if (pdf.numPages > MAX_PDF_PAGES) {
      throw new KnowledgeError(`${file}: ${pdf.numPages} pages, more than MAX_PDF_PAGES (${MAX_PDF_PAGES}); split it, or leave it out of the manuals`, file);
    }
    const { items } = await readerCall(file, 'PDF', () => extractTextItems(pdf));
    return items;
  } finally {
    await readerCall(file, 'PDF', () => pdf.destroy());
  }
}
