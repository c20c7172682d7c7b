/**
 * Loads past questions and answers from CSV files (RFC 4180: a header row, then question and answer in the first two
 * columns; quoted fields may hold commas, doubled quotes and line breaks). Spreadsheet exports are accepted as they
 * come: UTF-8 with BOM or Shift_JIS, CRLF, blank lines.
 */
import { readFile } from 'node:fs/promises';
import { CsvError, parse } from 'csv-parse/sync';
import type { Logger } from '../logger.js';
import type { ProgressFn, QaPair } from '../search/types.js';
import { errorMessage, KnowledgeError } from './errors.js';
import { decodeText, listSourceFiles, normalizeNewlines } from './files.js';

/** File types the Q&A loader reads. */
export const QA_EXTENSIONS = ['.csv'] as const;

/** A data row that was left out, and why. */
export interface SkippedQaRow {
  fileName: string;
  /** 1-based data row (header excluded), as in {@link QaPair.row}. */
  row: number;
  /** Line of the file the row ends on. */
  line: number;
  reason: string;
}

/** The pairs of one CSV text and the rows left out. */
export interface QaParseResult {
  pairs: QaPair[];
  skipped: SkippedQaRow[];
}

/** What {@link loadQaPairs} read. */
export interface QaLoadResult {
  /** Base names of the CSV files that were read, in index order. */
  files: string[];
  pairs: QaPair[];
  skipped: SkippedQaRow[];
}

/**
 * Parses one CSV text into pairs. Row numbers count data records after the header, including skipped ones, so a
 * pair keeps its id (`${fileName}#${row}`) when a neighbouring row is fixed or emptied. Rows whose question or
 * answer is empty (after trimming) are skipped, each with a warning naming the file and row.
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
  const pairs: QaPair[] = [];
  const skipped: SkippedQaRow[] = [];
  for (const [index, { record, info }] of records.slice(1).entries()) {
    const row = index + 1;
    const question = (record[0] ?? '').trim();
    const answer = (record[1] ?? '').trim();
    if (!question || !answer) {
      const reason = !question && !answer ? 'empty question and answer' : !question ? 'empty question' : 'empty answer';
      skipped.push({ fileName, row, line: info.lines, reason });
      options.logger?.warn({ file, row, line: info.lines }, `${file} row ${row} (line ${info.lines}): ${reason}; skipped`);
      continue;
    }
    pairs.push({ id: `${fileName}#${row}`, fileName, row, question, answer });
  }
  return { pairs, skipped };
}

/**
 * Reads every CSV file in `dir` (non-recursive, sorted by name).
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
    const text = decodeText(await readFile(file.path), file.path, logger);
    const result = parseQaCsv(text, file.fileName, { file: file.path, logger });
    logger?.debug({ file: file.path, pairs: result.pairs.length, skipped: result.skipped.length }, `read ${file.fileName}`);
    pairs.push(...result.pairs);
    skipped.push(...result.skipped);
    await onProgress?.({ stage: 'read', done: i + 1, total: files.length });
  }
  return { files: files.map((f) => f.fileName), pairs, skipped };
}
