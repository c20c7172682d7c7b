/**
 * Loads past questions and answers from CSV files (RFC 4180: a header row, then one pair per row; quoted fields may
 * hold commas, doubled quotes and line breaks) and Excel workbooks (.xlsx: each visible sheet read the same way).
 * Spreadsheet exports are accepted as they come: UTF-8 with BOM or Shift_JIS, CRLF, blank lines, and columns in any
 * order when the header names them (`question`/`answer`, `質問`/`回答`, `Q`/`A`, a helpdesk's `お問い合わせ内容`/`対応内容`…,
 * see {@link qaColumns}); a header that names one means that one and the column of text beside it, one that names
 * neither the first two columns; a column of only numbers or ids is never read as questions or answers. Fields
 * exported as HTML are read as their text ({@link qaFieldText}).
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

/**
 * Header names of the question column, normalised (NFKC, lower case, no spaces), the likelier first: a header that
 * has two of them reads the first listed.
 */
const QUESTION_HEADERS = [
  'question', 'questions', 'q', 'query', 'inquiry', 'enquiry',
  '質問', '質問文', '質問内容', '問い合わせ', '問い合わせ内容', 'お問い合わせ', 'お問い合わせ内容', '問合せ', '問合せ内容', 'お問合せ', 'お問合せ内容',
  '相談内容', '問', '問い',
];
/** Header names of the answer column, normalised likewise: a FAQ's names first, then a helpdesk export's (how a ticket was handled). */
const ANSWER_HEADERS = [
  'answer', 'answers', 'a', 'response', 'reply', 'resolution', 'solution',
  '回答', '回答文', '回答内容', '回答例', '答え', '答', '解答', '返答', '返答内容',
  '対応内容', '対応', '解決方法', '対処方法', '対処', '処置',
];
/** 内容 ("content") heads a helpdesk export's question only beside a named answer: alone it may be either. */
const CONTENT_HEADERS = ['内容'];
/**
 * Headers of the columns around a pair in an export (an id, a category, a person, a date, a link), passed over when
 * the header names only one of question and answer and the other is looked for.
 */
const RECORD_HEADERS = [
  'id', 'no', 'no.', '#', '番号', 'category', 'カテゴリ', 'カテゴリー', '分類', '担当', '担当者', '対応者', 'date', '日付', '受付日',
  '作成日', '更新日', '対応日', 'url', 'status', 'ステータス', '状態', 'tags', 'タグ',
];

function normalizedHeader(cell: string): string {
  return cell.normalize('NFKC').toLowerCase().replace(/\s+/g, '');
}

/** Whether a normalised header cell is `name` followed by a qualifier (`質問（日本語）`, `question_text`). */
function qualifiedName(cell: string, name: string): boolean {
  // One-letter names only match whole, so `q` does not claim `quantity`.
  return name.length > 1 && cell.startsWith(name) && /^[(（:：_\-\[［]/.test(cell.slice(name.length));
}

/** The column headed by one of `names` (the earliest listed name wins), else by one of them with a qualifier; -1 when none. */
function namedColumn(cells: readonly string[], names: readonly string[]): number {
  for (const name of names) {
    const exact = cells.indexOf(name);
    if (exact >= 0) return exact;
  }
  return cells.findIndex((c) => names.some((n) => qualifiedName(c, n)));
}

/** A number or a date, bare or as a row number (`12`, `001`, `#5`, `No.3`, `2024/01/05`). */
const NUMBER_SHAPE = /^(?:#|no\.?\s*)?\d+(?:[-_./:]\d+)*$/i;
/** A number, a date, a ticket id (`T-201`, `INC0012345`) or a UUID. */
const ID_SHAPE = /^(?:#|no\.?\s*)?(?:\d+|[a-z]{1,8}[-_]\d+|[a-z]{1,8}\d{3,})(?:[-_./:]\d+)*$|^[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i;

/** The column's non-blank values in `rows`. */
function columnValues(rows: readonly (readonly string[])[], column: number): string[] {
  return rows.map((record) => (record[column] ?? '').normalize('NFKC').trim()).filter((value) => value !== '');
}

/** Whether a column holds values and every one has `shape`: no questions or answers to index. */
function onlyOfShape(values: readonly string[], shape: RegExp): boolean {
  return values.length > 0 && values.every((value) => shape.test(value));
}

/** Which columns hold the question and the answer, and which of them the header names. */
export interface QaColumns {
  question: number;
  answer: number;
  /** `both`, one of them (the other was looked for), or `none` (the first two columns). */
  named: 'both' | 'question' | 'answer' | 'none';
}

/**
 * The column that goes with the one the header names: the nearest with text in it, looking after a question and
 * before an answer first, and passing over the columns of a record around the pair (an id, a person, a date) and
 * columns of numbers or ids. The adjacent column when none has text.
 */
function otherColumn(cells: readonly string[], rows: readonly (readonly string[])[], named: number, ahead: 1 | -1): number {
  const width = cells.length;
  const nearest = (step: 1 | -1): number[] => {
    const found: number[] = [];
    for (let i = named + step; i >= 0 && i < width; i += step) found.push(i);
    return found;
  };
  const order = [...nearest(ahead), ...nearest(ahead === 1 ? -1 : 1)];
  const hasText = (i: number): boolean => {
    const values = columnValues(rows, i);
    return !RECORD_HEADERS.includes(cells[i] ?? '') && values.length > 0 && !onlyOfShape(values, ID_SHAPE);
  };
  return order.find(hasText) ?? order[0] ?? named + 1;
}

/**
 * The question and answer columns of a header row: those it names (`question`/`answer`, `質問`/`回答`, `Q`/`A`,
 * `お問い合わせ内容`/`対応内容`…, in any order, among other columns such as an id or a category); when it names only
 * one, that one and the nearest column of text beside it (see `rows`, the data rows); else the first two.
 */
export function qaColumns(header: readonly string[], rows: readonly (readonly string[])[] = []): QaColumns {
  const cells = header.map(normalizedHeader);
  let question = namedColumn(cells, QUESTION_HEADERS);
  const answer = namedColumn(cells, ANSWER_HEADERS);
  if (question < 0 && answer >= 0) {
    const content = cells.flatMap((c, i) => (CONTENT_HEADERS.some((n) => c === n || qualifiedName(c, n)) ? [i] : []));
    if (content.length === 1) question = content[0]!;
  }
  if (question >= 0 && answer >= 0) return { question, answer, named: 'both' };
  if (question >= 0) return { question, answer: otherColumn(cells, rows, question, 1), named: 'question' };
  if (answer >= 0) return { question: otherColumn(cells, rows, answer, -1), answer, named: 'answer' };
  return { question: 0, answer: 1, named: 'none' };
}

/** A column as a message names it: its header, or its position when the header cell is blank. */
function columnName(header: readonly string[], column: number): string {
  return header[column]?.trim() || `#${column + 1}`;
}

/** The warning for a header of more than two columns that does not name both, saying which columns are read. */
function columnsWarning(header: readonly string[], columns: QaColumns): string | undefined {
  if (header.length <= 2) return undefined;
  const question = columnName(header, columns.question);
  const answer = columnName(header, columns.answer);
  switch (columns.named) {
    case 'both':
      return undefined;
    case 'question':
      return `the header names the question column (${question}) but no answer column (answer, 回答, 対応内容…); reading ${answer} as the answer`;
    case 'answer':
      return `the header names the answer column (${answer}) but no question column (question, 質問, 問い合わせ…); reading ${question} as the question`;
    case 'none':
      return `the header names no question and answer columns (question/answer, 質問/回答, Q/A); reading the first two columns (${question}, ${answer}) as question and answer`;
  }
}

/** A data record as read, or fitted to the header's width by {@link fitToHeader}. */
interface FittedRecord {
  record: string[];
  /** How many fields the row had, when more than the header's columns. */
  fields?: number;
  /** Whether those fields were joined back into the last of two columns (else the row is not read). */
  joined?: boolean;
}

/**
 * A CSV record fitted to a header of `width` columns. An ASCII comma typed unquoted in Japanese text splits a field:
 * with a two-column header the fields after the first are joined back with their commas (the writer's answer); a
 * wider header leaves no telling which field was split, so `fields` is reported and the row is not read. Empty fields
 * past the header (a trailing comma) are no text and are dropped.
 */
function fitToHeader(record: readonly string[], width: number): FittedRecord {
  let end = record.length;
  while (end > width && (record[end - 1] ?? '').trim() === '') end--;
  if (width < 2 || end <= width) return { record: record.slice(0, end) };
  if (width === 2) return { record: [record[0] ?? '', record.slice(1, end).join(',')], fields: end, joined: true };
  return { record: record.slice(0, end), fields: end, joined: false };
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
 * header of more than two columns does not name both). Row numbers count data records after the header, including
 * skipped ones, so a pair keeps its id (`${fileName}#${row}`) when a neighbouring row is fixed or emptied. Rows whose
 * question or answer is empty (after trimming) are skipped, each with a warning naming the file and row; a row with
 * more fields than the header (an unquoted comma) is mended or skipped with a warning ({@link fitToHeader}).
 *
 * @param file path used in messages; its base name is `fileName`.
 * @throws KnowledgeError with the line of the problem when the CSV is malformed (e.g. an unclosed quote), or naming
 *   the header when the question or answer column holds only numbers or ids.
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
      // A short row is reported as a missing answer below and a long one mended or skipped (fitToHeader), rather than
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
  return pairsOfRows(rows, fileName, { file, where: file, lineName: 'line', csv: true, logger: options.logger });
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
    const { pairs, skipped } = pairsOfRows(sheet.records, `${fileName}:${sheet.name}`, { file, where: `${file} sheet ${sheet.name}`, lineName: 'Excel row', csv: false, logger: options.logger });
    // Not push(...): a spread of more than ~125,000 items overflows the call stack (a large history export).
    for (const pair of pairs) result.pairs.push(pair);
    for (const skip of skipped) result.skipped.push(skip);
  }
  return result;
}

/**
 * Why the question or the answer column cannot be read, or undefined. A column the header names is refused when it
 * holds only numbers (a named error-code column, `E-1001`, may be a real question); one taken without a name also
 * when it holds only ids (`T-201`): a file read so would index ticket numbers as questions, and only its header can
 * say which columns to read.
 */
function columnOfIds(header: readonly string[], rows: readonly (readonly string[])[], columns: QaColumns): string | undefined {
  const roles = [
    { column: columns.question, role: 'questions', named: columns.named === 'both' || columns.named === 'question' },
    { column: columns.answer, role: 'answers', named: columns.named === 'both' || columns.named === 'answer' },
  ];
  const refused = roles.find(({ column, named }) => onlyOfShape(columnValues(rows, column), named ? NUMBER_SHAPE : ID_SHAPE));
  if (!refused) return undefined;
  return `the column ${columnName(header, refused.column)} holds only numbers or ids and would be indexed as the ${refused.role}; the header reads ${header.join(', ')}: head the question column question (or 質問, 問い合わせ, Q) and the answer column answer (or 回答, 対応内容, A), then reindex`;
}

/** Why a row without a question or an answer is skipped, or undefined when it has both. */
function emptyFieldReason(question: string, answer: string): string | undefined {
  if (!question && !answer) return 'empty question and answer';
  if (!question) return 'empty question';
  return answer ? undefined : 'empty answer';
}

/**
 * Pairs of a header row and the data rows after it, reading the columns {@link qaColumns} picks (with a warning when a
 * header of more than two columns does not name both). Row numbers count data records after the header, including
 * skipped ones, so a pair keeps its id (`${fileName}#${row}`) when a neighbouring row is fixed or emptied. Rows whose
 * question or answer is empty (after trimming) are skipped, each with a warning naming `where` and the row; so are CSV
 * rows with more fields than the header that cannot be mended ({@link fitToHeader}).
 *
 * @throws KnowledgeError when the question or the answer column holds only numbers or ids ({@link columnOfIds}).
 */
function pairsOfRows(
  rows: SheetRecord[],
  fileName: string,
  options: { file: string; where: string; lineName: string; csv: boolean; logger?: Logger | undefined },
): QaParseResult {
  const { file, where, lineName, logger } = options;
  const pairs: QaPair[] = [];
  const skipped: SkippedQaRow[] = [];
  const untrimmed = rows[0]?.record ?? [];
  let width = untrimmed.length;
  // An export's header may end in empty cells of formatted but unused columns.
  while (width > 0 && (untrimmed[width - 1] ?? '').trim() === '') width--;
  const header = untrimmed.slice(0, width);
  const data = rows.slice(1).map(({ record, line }, index) => {
    const fitted: FittedRecord = options.csv ? fitToHeader(record, width) : { record };
    return { row: index + 1, line, ...fitted };
  });
  const readable = data.filter((d) => d.fields === undefined || d.joined).map((d) => d.record);
  const columns = qaColumns(header, readable);
  const refusal = columnOfIds(header, readable, columns);
  if (refusal) throw new KnowledgeError(`${where}: ${refusal}`, file);
  const warning = columnsWarning(header, columns);
  if (warning) logger?.warn({ file: where, header }, `${where}: ${warning}`);
  for (const { row, line, record, fields, joined } of data) {
    const at = `${where} row ${row} (${lineName} ${line})`;
    if (joined) logger?.warn({ file: where, row, line }, `${at}: ${fields} fields where the header has 2 (an unquoted comma?); joined the last ones back into ${columnName(header, 1)} with their commas`);
    const question = qaFieldText(record[columns.question] ?? '');
    const answer = qaFieldText(record[columns.answer] ?? '');
    const reason = fields !== undefined && !joined ? `${fields} fields where the header has ${width} (an unquoted comma? quote the field that holds it)` : emptyFieldReason(question, answer);
    if (reason) {
      skipped.push({ fileName, row, line, reason });
      logger?.warn({ file: where, row, line }, `${at}: ${reason}; skipped`);
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
