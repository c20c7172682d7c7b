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
        const record = Array.from({ length: row.cellCount }, (_, i) => normalizeNewlines(row.getCell(i + 1).text ?? ''));
        if (record.some((cell) => cell.trim() !== '')) records.push({ record, line });
      });
      return { name: sheet.name, records };
    });
}
