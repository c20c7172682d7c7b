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
  return book.worksheets
    .filter((sheet) => sheet.state === 'visible')
    .map((sheet) => {
      const records: SheetRecord[] = [];
      sheet.eachRow({ includeEmpty: false }, (row, line) => {
        // Only the cells that hold something, and only the first MAX_WORKBOOK_COLUMNS: one stray cell in column XFD
        // made every row 16,384 cells (getCell creates each missing one), and a 12 KB workbook ran out of memory.
        const record: string[] = [];
        row.eachCell({ includeEmpty: false }, (cell, column) => {
          if (column <= MAX_WORKBOOK_COLUMNS) record[column - 1] = normalizeNewlines(shownText(cell));
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
function shownText(cell: ExcelJS.Cell): string {
  const value = cell.value;
  const date = value instanceof Date ? value : formulaResult(value);
  return date ? shownDate(date, cell.numFmt) : (cell.text ?? '');
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
/** The parts of a date format read here: quoted or escaped text, date and time codes, AM/PM, and any other character. */
const FORMAT_TOKEN = /"[^"]*"|\\.|_.|\*.|am\/pm|a\/p|y+|m+|d+|h+|s+|a{3,4}|[eEgGbB]|./gi;

/**
 * `date` (exceljs reads a date as UTC: the wall-clock time Excel shows, whatever this machine's zone) through the
 * first section of the number format `numFmt`: years, months (m after an hour or before seconds is the minute), days,
 * weekdays (ddd English, aaa Japanese), hours, minutes, seconds and AM/PM, the rest as written. A format with codes
 * beyond these (a Japanese era, elapsed hours, fractions of seconds) gives ISO 8601: `2026-07-01`, with ` 09:30`
 * when the time of day is not midnight.
 */
function shownDate(date: Date, numFmt: string | undefined): string {
  // A locale, colour or condition in brackets is dropped; elapsed time ([h]) stays, and falls back to ISO below.
  const format = LOCALE_FORMATS[numFmt ?? ''] ?? (numFmt ?? '').split(';')[0]!.replace(/\[(?!h+\]|m+\]|s+\])[^\]]*\]/gi, '');
  const tokens = format.match(FORMAT_TOKEN) ?? [];
  const twelveHour = tokens.some((t) => /^(?:am\/pm|a\/p)$/i.test(t));
  const pad = (n: number, width: number): string => String(n).padStart(width, '0');
  const hours = date.getUTCHours();
  let out = '';
  for (const [i, token] of tokens.entries()) {
    const code = token.toLowerCase();
    const minute = code.startsWith('m') && code.length <= 2 && (/^h/i.test(previousCode(tokens, i) ?? '') || /^s/i.test(nextCode(tokens, i) ?? ''));
    if (token.startsWith('"')) out += token.slice(1, -1);
    else if (token.startsWith('\\')) out += token.slice(1);
    else if (token.startsWith('_')) out += ' ';
    else if (token.startsWith('*')) continue;
    else if (minute) out += pad(date.getUTCMinutes(), code.length);
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

/** The nearest date or time code before `tokens[i]`, past separators and text. */
function previousCode(tokens: readonly string[], i: number): string | undefined {
  return tokens.slice(0, i).reverse().find((t) => /^[ymdhs]/i.test(t) && !t.startsWith('"'));
}

/** The nearest date or time code after `tokens[i]`, past separators and text. */
function nextCode(tokens: readonly string[], i: number): string | undefined {
  return tokens.slice(i + 1).find((t) => /^[ymdhs]/i.test(t) && !t.startsWith('"'));
}

function isoDate(date: Date): string {
  const [day, time] = date.toISOString().split('T') as [string, string];
  return time.startsWith('00:00:00') ? day : `${day} ${time.slice(0, 5)}`;
}
