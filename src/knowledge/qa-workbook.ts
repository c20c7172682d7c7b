/**
 * The rows of an Excel workbook (.xlsx), for the Q&A loader: each visible sheet's non-blank rows as the text its
 * cells show (rich text joined, a formula's result, a link's text), with the sheet's row numbers for messages.
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
          if (column <= MAX_WORKBOOK_COLUMNS) record[column - 1] = normalizeNewlines(cell.text ?? '');
        });
        const dense = Array.from(record, (cell) => cell ?? '');
        if (dense.some((cell) => cell.trim() !== '')) records.push({ record: dense, line });
      });
      return { name: sheet.name, records };
    });
}
