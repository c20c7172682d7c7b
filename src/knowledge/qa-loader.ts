/**
 * Loads past questions and answers from CSV files (RFC 4180: a header row, then one pair per row; quoted fields may
 * hold commas, doubled quotes and line breaks) and Excel workbooks (.xlsx: each visible sheet read the same way).
 * Spreadsheet exports are accepted as they come: UTF-8 with BOM or Shift_JIS, CRLF, blank lines, and columns in any
 * order when the header names them (`question`/`answer`, `質問`/`回答`, `Q`/`A`…, see {@link qaColumns}); a header
 * that names neither means the first two columns. Fields exported as HTML are read as their text
 * ({@link qaFieldText}).
 */
import { readFile } from 'node:fs/promises';
import { CsvError, parse } from 'csv-parse/sync';
import { decodeHTMLStrict } from 'entities';
import { compile } from 'html-to-text';
import type { Logger } from '../logger.js';
import { limitHtmlNesting, MAX_HTML_DEPTH } from '../mail/html-nesting.js';
import type { ProgressFn, QaPair } from '../search/types.js';
import { errorMessage, KnowledgeError } from './errors.js';
import { decodeText, listSourceFiles, normalizeNewlines } from './files.js';
import { workbookSheets, type SheetRecord } from './qa-workbook.js';

/** File types the Q&A loader reads. */
export const QA_EXTENSIONS = ['.csv', '.xlsx'] as const;

/** A data row that was left out, and why. */
export interface SkippedQaRow {
  fileName: string;
  /** 1-based data row (header excluded), as in {@link QaPair.row}. */
  row: number;
  /** Line of the file the row ends on (a CSV file), or the row's number in its sheet (a workbook). */
  line: number;
  reason: string;
}

/** The pairs of one CSV text or workbook and the rows left out. */
export interface QaParseResult {
  pairs: QaPair[];
  skipped: SkippedQaRow[];
}

/** What {@link loadQaPairs} read. */
export interface QaLoadResult {
  /** Base names of the CSV files and workbooks that were read, in index order. */
  files: string[];
  pairs: QaPair[];
  skipped: SkippedQaRow[];
}

/** Header names of the question column, normalised (NFKC, lower case, no spaces). */
const QUESTION_HEADERS = ['question', 'questions', 'q', 'query', '質問', '質問文', '質問内容', '問い合わせ', '問い合わせ内容', 'お問い合わせ', '問合せ', '問', '問い'];
/** Header names of the answer column, normalised likewise. */
const ANSWER_HEADERS = ['answer', 'answers', 'a', 'response', '回答', '回答文', '回答内容', '答え', '答', '解答'];

function normalizedHeader(cell: string): string {
  return cell.normalize('NFKC').toLowerCase().replace(/\s+/g, '');
}

/** The column whose header is one of `names`, or carries one of them before a qualifier (`質問（日本語）`, `question_text`). */
function namedColumn(header: readonly string[], names: readonly string[]): number {
  const cells = header.map(normalizedHeader);
  const exact = cells.findIndex((c) => names.includes(c));
  if (exact >= 0) return exact;
  // One-letter names only match whole, so `q` does not claim `quantity`.
  return cells.findIndex((c) => names.some((n) => n.length > 1 && c.startsWith(n) && /^[(（:：_\-\[［]/.test(c.slice(n.length))));
}

/** Which columns hold the question and the answer; `named` is false when the header names neither (the first two). */
export interface QaColumns {
  question: number;
  answer: number;
  named: boolean;
}

/**
 * The question and answer columns of a CSV header: those it names (`question`/`answer`, `質問`/`回答`, `Q`/`A`, in any
 * order, among other columns such as an id or a category), else the first two. A spreadsheet export often starts
 * with an id or a category column; taking the first two columns blindly would index those as the questions.
 */
export function qaColumns(header: readonly string[]): QaColumns {
  const question = namedColumn(header, QUESTION_HEADERS);
  const answer = namedColumn(header, ANSWER_HEADERS);
  if (question >= 0 && answer >= 0 && question !== answer) return { question, answer, named: true };
  return { question: 0, answer: 1, named: false };
}

/** Tags of the HTML a FAQ tool exports (a help centre's article body); `<テナント ID>` or `a < b` are none of them. */
const HTML_TAG = /<\/?(?:p|br|div|span|a|ul|ol|li|strong|b|em|i|u|font|table|thead|tbody|tr|td|th|h[1-6]|img|blockquote|pre|code|hr|dl|dt|dd)(?:\s[^<>]*)?\/?>/i;
const HTML_ENTITY = /&(?:[a-z][a-z0-9]{1,31}|#\d{1,7}|#x[0-9a-f]{1,6});/i;

/** html-to-text compiled once (as its documentation advises for many documents): an export holds thousands of fields. */
let htmlFieldText: ((html: string) => string) | undefined;
function compileHtmlFieldText(): (html: string) => string {
  return compile({
    wordwrap: false,
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'ul', options: { itemPrefix: '・' } },
      ...(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const).map((selector) => ({ selector, options: { uppercase: false } })),
    ],
  });
}

/** What a spreadsheet starts a formula with: = + - @, or a tab or carriage return before anything. */
export const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A field's text as a reader sees it. FAQ tools export answers as HTML: indexed as it is, every pair would match
 * `href`, `https` and `strong`, and the agent would quote the markup. A field with HTML tags becomes its text
 * (paragraphs, line breaks and list items kept; a link as its text and address; images dropped); entities alone are
 * decoded; the `'` the learned-answer export puts before a field that would start a spreadsheet formula is dropped.
 * Anything else is left as written.
 */
export function qaFieldText(raw: string): string {
  // The learned-answer export writes a field that would start a spreadsheet formula with a leading ': read it back.
  const field = raw.startsWith("'") && FORMULA_START.test(raw.slice(1)) ? raw.slice(1) : raw;
  if (HTML_TAG.test(field)) return (htmlFieldText ??= compileHtmlFieldText())(limitHtmlNesting(field, MAX_HTML_DEPTH).html).trim();
  return HTML_ENTITY.test(field) ? decodeHTMLStrict(field).replace(/\u00a0/g, ' ').trim() : field.trim();
}

/**
 * Parses one CSV text into pairs, reading the columns {@link qaColumns} picks from the header (with a warning when a
 * header of more than two columns names neither). Row numbers count data records after the header, including skipped
 * ones, so a pair keeps its id (`${fileName}#${row}`) when a neighbouring row is fixed or emptied. Rows whose
 * question or answer is empty (after trimming) are skipped, each with a warning naming the file and row.
 *
 * @param file path used in messages; its base name is `fileName`.
 * @throws KnowledgeError with the line of the problem when the CSV is malformed (e.g. an unclosed quote).
 */
export function parseQaCsv(text: string, fileName: string, options: { file?: string; logger?: Logger } = {}): QaParseResult {
  const file = options.file ?? fileName;
  let records: { record: string[]; info: { lines: number } }[];
  try {
    // Line breaks inside quoted fields become \n like all others, so an answer reads the same whatever saved it.
    records = parse(normalizeNewlines(text), {
      bom: true,
      info: true,
      skip_empty_lines: true,
      // A short row is reported as a missing answer below and extra columns (notes, tags) are ignored, rather than
      // rejecting the whole file.
      relax_column_count: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    if (err instanceof CsvError) {
      const line = typeof err.lines === 'number' ? err.lines : undefined;
      throw new KnowledgeError(`${file}${line ? `:${line}` : ''}: malformed CSV: ${err.message}`, file, line, { cause: err });
    }
    throw new KnowledgeError(`${file}: cannot parse CSV: ${errorMessage(err)}`, file, undefined, { cause: err });
  }
  const rows = records.map(({ record, info }) => ({ record, line: info.lines }));
  return pairsOfRows(rows, fileName, { where: file, lineName: 'line', logger: options.logger });
}

/**
 * Reads a workbook's visible sheets as {@link parseQaCsv} reads a CSV file: each sheet has its header row and its
 * pairs, named `${fileName}:${sheet}` (a colon cannot appear in a sheet name), so `faq.xlsx:請求#3` is the third data
 * row of the sheet 請求. Skipped rows are reported with the sheet and its row number as Excel shows it.
 *
 * @throws KnowledgeError naming the file when it is not a readable workbook or unpacks to too much.
 */
export async function readQaWorkbook(
  data: Buffer,
  fileName: string,
  options: { file?: string; logger?: Logger; maxUnpackedBytes?: number } = {},
): Promise<QaParseResult> {
  const file = options.file ?? fileName;
  let sheets;
  try {
    sheets = await workbookSheets(data, options.maxUnpackedBytes);
  } catch (err) {
    throw new KnowledgeError(`${file}: cannot read Excel workbook: ${errorMessage(err)}`, file, undefined, { cause: err });
  }
  const result: QaParseResult = { pairs: [], skipped: [] };
  for (const sheet of sheets) {
    const { pairs, skipped } = pairsOfRows(sheet.records, `${fileName}:${sheet.name}`, { where: `${file} sheet ${sheet.name}`, lineName: 'Excel row', logger: options.logger });
    // Not push(...): a spread of more than ~125,000 items overflows the call stack (a large history export).
    for (const pair of pairs) result.pairs.push(pair);
    for (const skip of skipped) result.skipped.push(skip);
  }
  return result;
}

/**
 * Pairs of a header row and the data rows after it, reading the columns {@link qaColumns} picks (with a warning when a
 * header of more than two columns names neither). Row numbers count data records after the header, including skipped
 * ones, so a pair keeps its id (`${fileName}#${row}`) when a neighbouring row is fixed or emptied. Rows whose question
 * or answer is empty (after trimming) are skipped, each with a warning naming `where` and the row.
 */
function pairsOfRows(rows: SheetRecord[], fileName: string, options: { where: string; lineName: string; logger?: Logger | undefined }): QaParseResult {
  const { where, lineName, logger } = options;
  const pairs: QaPair[] = [];
  const skipped: SkippedQaRow[] = [];
  const header = rows[0]?.record ?? [];
  const columns = qaColumns(header);
  if (!columns.named && header.length > 2) {
    logger?.warn(
      { file: where, header },
      `${where}: the header names no question and answer columns (question/answer, 質問/回答, Q/A); reading the first two columns (${header.slice(0, 2).join(', ')}) as question and answer`,
    );
  }
  for (const [index, { record, line }] of rows.slice(1).entries()) {
    const row = index + 1;
    const question = qaFieldText(record[columns.question] ?? '');
    const answer = qaFieldText(record[columns.answer] ?? '');
    if (!question || !answer) {
      const reason = !question && !answer ? 'empty question and answer' : !question ? 'empty question' : 'empty answer';
      skipped.push({ fileName, row, line, reason });
      logger?.warn({ file: where, row, line }, `${where} row ${row} (${lineName} ${line}): ${reason}; skipped`);
      continue;
    }
    pairs.push({ id: `${fileName}#${row}`, fileName, row, question, answer });
  }
  return { pairs, skipped };
}

/**
 * Reads every CSV file and workbook in `dir` (non-recursive, sorted by name).
 *
 * @param onProgress called with stage `read` after each file.
 * @throws KnowledgeError when the directory is missing or a file is malformed (the message names file and line).
 */
export async function loadQaPairs(dir: string, options: { logger?: Logger; onProgress?: ProgressFn } = {}): Promise<QaLoadResult> {
  const { logger, onProgress } = options;
  const files = await listSourceFiles(dir, QA_EXTENSIONS, 'Q&A', logger);
  const pairs: QaPair[] = [];
  const skipped: SkippedQaRow[] = [];
  await onProgress?.({ stage: 'read', done: 0, total: files.length });
  for (const [i, file] of files.entries()) {
    const data = await readFile(file.path);
    const result =
      file.ext === '.xlsx'
        ? await readQaWorkbook(data, file.fileName, { file: file.path, logger })
        : parseQaCsv(decodeText(data, file.path, logger), file.fileName, { file: file.path, logger });
    logger?.debug({ file: file.path, pairs: result.pairs.length, skipped: result.skipped.length }, `read ${file.fileName}`);
    for (const pair of result.pairs) pairs.push(pair);
    for (const skip of result.skipped) skipped.push(skip);
    await onProgress?.({ stage: 'read', done: i + 1, total: files.length });
  }
  return { files: files.map((f) => f.fileName), pairs, skipped };
}
