/**
 * The rows of an Excel workbook (.xlsx), for the Q&A loader: each visible sheet's non-blank rows as the text its
 * cells show (rich text joined, a formula's result, a link's text, a date or time by its number format), with the
 * sheet's row numbers for messages.
 */
import ExcelJS from 'exceljs';
import { normalizeNewlines } from './files.js';
import { MAX_UNPACKED_TEXT_BYTES, checkOfficeArchive } from './office-archive.js';

/** One non-blank row of a sheet. */
export interface SheetRecord {
  /** The cells' shown text, from column A. */
  record: string[];
  /** The row's number in the sheet (Excel's, 1-based). */
  line: number;
}

/** A visible sheet and its non-blank rows, in order. */
export interface WorkbookSheet {
  name: string;
  records: SheetRecord[];
}

/** Columns of a sheet that are read; a Q&A sheet names its question and answer columns near the front. */
export const MAX_WORKBOOK_COLUMNS = 1_000;

/**
 * The visible sheets of the workbook in `data`, in the workbook's order. Hidden sheets (lookup tables, notes) are
 * left out. The file first passes {@link checkOfficeArchive} with `maxUnpackedBytes` over every part, pictures
 * included, since exceljs unpacks every part whole in memory.
 *
 * @throws Error from the guard or exceljs when `data` is not a readable workbook or unpacks to too much.
 */
export async function workbookSheets(data: Buffer, maxUnpackedBytes = MAX_UNPACKED_TEXT_BYTES): Promise<WorkbookSheet[]> {
  await checkOfficeArchive(data, maxUnpackedBytes, 'every');
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(data as unknown as ExcelJS.Buffer);
  // Each number format is read once per workbook: a workbook holds few, and its cells repeat them.
  const formats = new Map<string, DateFormat>();
  return book.worksheets
    .filter((sheet) => sheet.state === 'visible')
    .map((sheet) => {
      const records: SheetRecord[] = [];
      sheet.eachRow({ includeEmpty: false }, (row, line) => {
        // Only the cells that hold something, and only the first MAX_WORKBOOK_COLUMNS: one stray cell in column XFD
        // made every row 16,384 cells (getCell creates each missing one), and a 12 KB workbook ran out of memory.
        const record: string[] = [];
        row.eachCell({ includeEmpty: false }, (cell, column) => {
          if (column <= MAX_WORKBOOK_COLUMNS) record[column - 1] = normalizeNewlines(shownText(cell, formats));
        });
        const dense = Array.from(record, (cell) => cell ?? '');
        if (dense.some((cell) => cell.trim() !== '')) records.push({ record: dense, line });
      });
      return { name: sheet.name, records };
    });
}

/**
 * A cell's text as Excel shows it. exceljs's own `cell.text` renders a date (a number of days shown through a date
 * format) as a JS Date string in the machine's zone ("Wed Jul 01 2026 09:00:00 GMT+0900 (Japan Standard Time)"): a
 * cover sheet's 更新日 then read as text and the sheet became pairs, and an answer quoted that string (walkthrough 45,
 * M1). A date, or a formula whose result is one, is rendered by the cell's number format instead.
 */
function shownText(cell: ExcelJS.Cell, formats: Map<string, DateFormat>): string {
  const value = cell.value;
  const date = value instanceof Date ? value : formulaResult(value);
  if (!date) return cell.text ?? '';
  const numFmt = cell.numFmt ?? '';
  let format = formats.get(numFmt);
  if (format === undefined) formats.set(numFmt, (format = dateFormat(numFmt)));
  return shownDate(date, format);
}

function formulaResult(value: ExcelJS.CellValue): Date | undefined {
  if (value === null || typeof value !== 'object' || !('formula' in value || 'sharedFormula' in value)) return undefined;
  const result: unknown = value.result;
  return result instanceof Date ? result : undefined;
}

// exceljs names the built-in short date (numFmt 14) and date-time (22) by their US patterns; Excel shows them by the
// reader's locale, and a Japanese reader sees yyyy/m/d.
const LOCALE_FORMATS: Record<string, string> = { 'mm-dd-yy': 'yyyy/m/d', 'm/d/yy "h":mm': 'yyyy/m/d h:mm', 'm/d/yy h:mm': 'yyyy/m/d h:mm' };
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const JA_WEEKDAYS = ['日', '月', '火', '水', '木', '金', '土'];
/**
 * The parts of a date format read here: quoted or escaped text, a bracketed locale, colour, condition or elapsed
 * code, date and time codes, AM/PM, and any other character (a `;` outside quotes ends a section).
 */
const FORMAT_TOKEN = /"[^"]*"|\\.|_.|\*.|\[[^\]]*\]|am\/pm|a\/p|y+|m+|d+|h+|s+|a{3,4}|[eEgGbB]|./gi;
/** Excel refuses a number format longer than this; a longer one comes from no spreadsheet a person saved. */
const MAX_FORMAT_LENGTH = 255;
/** Excel's dates run from day 0 (1899-12-30 to exceljs) to 9999-12-31; it shows any other serial as #. */
const FIRST_DAY = Date.UTC(1899, 11, 30);
const PAST_LAST_DAY = Date.UTC(10000, 0, 1);
/** What Excel shows for a serial outside its dates: the cell filled with #. */
const NO_DATE = '########';

/**
 * A number format read for dates: its first section's tokens, which `m` tokens are minutes, and whether it counts
 * hours by twelve; `iso` for a format shown as ISO 8601 (see {@link shownDate}).
 */
type DateFormat = 'iso' | { tokens: string[]; minute: boolean[]; twelveHour: boolean };

/**
 * `numFmt` read once, in linear time: the tokens of its first section (a `;` in quotes or escaped is text), locales
 * and colours dropped. A condition (`[<1]`) picks the section by the value and elapsed codes (`[h]`) count from day 0,
 * neither of which is read here, so either gives ISO; so does a format longer than Excel allows: scanning the tokens
 * around each `m` of one took 25.9 s for an 80 KB format (bug review 45e #3).
 */
function dateFormat(numFmt: string): DateFormat {
  if (numFmt.length > MAX_FORMAT_LENGTH) return 'iso';
  const all: string[] = (LOCALE_FORMATS[numFmt] ?? numFmt).match(FORMAT_TOKEN) ?? [];
  if (all.some((t) => /^\[[<>=]/.test(t))) return 'iso';
  const end = all.indexOf(';');
  const tokens: string[] = [];
  for (const token of end === -1 ? all : all.slice(0, end)) {
    if (/^\[(?:h+|m+|s+)\]$/i.test(token)) return 'iso';
    if (!token.startsWith('[') || token === '[') tokens.push(token);
  }
  // m after an hour or before seconds (the nearest date or time code either side, past separators and text) is the
  // minute: one pass each way.
  const isCode = (t: string) => /^[ymdhs]/i.test(t);
  const minute = tokens.map(() => false);
  let previous = '';
  for (const [i, token] of tokens.entries()) {
    if (/^m{1,2}$/i.test(token) && /^h/i.test(previous)) minute[i] = true;
    if (isCode(token)) previous = token;
  }
  let next = '';
  for (let i = tokens.length - 1; i >= 0; i--) {
    const token = tokens[i]!;
    if (/^m{1,2}$/i.test(token) && /^s/i.test(next)) minute[i] = true;
    if (isCode(token)) next = token;
  }
  return { tokens, minute, twelveHour: tokens.some((t) => /^(?:am\/pm|a\/p)$/i.test(t)) };
}

/**
 * `date` (exceljs reads a date as UTC: the wall-clock time Excel shows, whatever this machine's zone) through the
 * number format read as `format`: years, months (m after an hour or before seconds is the minute), days, weekdays
 * (ddd English, aaa Japanese), hours, minutes, seconds and AM/PM, the rest as written. A format with codes beyond
 * these (a Japanese era, elapsed hours, fractions of seconds, a condition) gives ISO 8601: `2026-07-01`, with
 * ` 09:30` when the time of day is not midnight. A serial that is no date Excel shows (negative, past 9999, or so
 * large that exceljs's Date is invalid) reads `########` as Excel shows it: the number itself is gone by then, and
 * `cell.text` would be "Invalid Date" or "NaN/NaN/NaN", English a customer could be quoted (bug review 45e #2).
 */
function shownDate(date: Date, format: DateFormat): string {
  const time = date.getTime();
  if (!(time >= FIRST_DAY && time < PAST_LAST_DAY)) return NO_DATE;
  if (format === 'iso') return isoDate(date);
  const { tokens, minute, twelveHour } = format;
  const pad = (n: number, width: number): string => String(n).padStart(width, '0');
  const hours = date.getUTCHours();
  let out = '';
  for (const [i, token] of tokens.entries()) {
    const code = token.toLowerCase();
    if (token.startsWith('"')) out += token.slice(1, -1);
    else if (token.startsWith('\\')) out += token.slice(1);
    else if (token.startsWith('_')) out += ' ';
    else if (token.startsWith('*')) continue;
    else if (minute[i]) out += pad(date.getUTCMinutes(), code.length);
    else if (code === 'yy') out += pad(date.getUTCFullYear() % 100, 2);
    else if (/^y{3,4}$/.test(code)) out += date.getUTCFullYear();
    else if (code === 'm' || code === 'mm') out += pad(date.getUTCMonth() + 1, code.length);
    else if (code === 'mmm') out += MONTHS[date.getUTCMonth()]!.slice(0, 3);
    else if (code === 'mmmm') out += MONTHS[date.getUTCMonth()];
    else if (code === 'd' || code === 'dd') out += pad(date.getUTCDate(), code.length);
    else if (code === 'ddd') out += WEEKDAYS[date.getUTCDay()]!.slice(0, 3);
    else if (code === 'dddd') out += WEEKDAYS[date.getUTCDay()];
    else if (code === 'aaa') out += JA_WEEKDAYS[date.getUTCDay()];
    else if (code === 'aaaa') out += `${JA_WEEKDAYS[date.getUTCDay()]}曜日`;
    else if (code === 'h' || code === 'hh') out += pad(twelveHour ? (hours + 11) % 12 + 1 : hours, code.length);
    else if (code === 's' || code === 'ss') out += pad(date.getUTCSeconds(), code.length);
    else if (code === 'am/pm') out += hours < 12 ? 'AM' : 'PM';
    else if (code === 'a/p') out += hours < 12 ? 'A' : 'P';
    else if (/^[ymdhsegb]/.test(code) || token === '[' || (token === '.' && /^s/i.test(tokens[i - 1] ?? ''))) return isoDate(date);
    else out += token;
  }
  return out === '' ? isoDate(date) : out;
}

function isoDate(date: Date): string {
  const [day, time] = date.toISOString().split('T') as [string, string];
  return time.startsWith('00:00:00') ? day : `${day} ${time.slice(0, 5)}`;
}
