/**
 * Loads the product manual: every Markdown, text, HTML and PDF file of a directory becomes sections with a heading
 * path (`章 > 節 > 項`), and each section is cut into overlapping chunks small enough for a search hit to be read
 * by the agent in full. Order and ids are deterministic, so reindexing unchanged files gives an identical index.
 */
import { readFile } from 'node:fs/promises';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { convert, type FormatCallback } from 'html-to-text';
import { extractText, getDocumentProxy } from 'unpdf';
import type { Logger } from '../logger.js';
import type { ManualChunk, ProgressFn } from '../search/types.js';
import { errorMessage, KnowledgeError } from './errors.js';
import { decodeText, listSourceFiles, normalizeNewlines, type SourceFile } from './files.js';

/** File types the manual loader reads; anything else in the directory is skipped. */
export const MANUAL_EXTENSIONS = ['.md', '.markdown', '.txt', '.html', '.htm', '.pdf'] as const;

/** Default chunking, as in the design (CHUNK_SIZE / CHUNK_OVERLAP). */
export const DEFAULT_CHUNK_SIZE = 300;
export const DEFAULT_CHUNK_OVERLAP = 20;

/**
 * Split points from coarse to fine. Japanese has no spaces between words, so sentence (`。`) and clause (`、`)
 * marks come before the space; the empty string is the last resort for one enormous unbroken run.
 */
export const JAPANESE_SEPARATORS = ['\n\n', '\n', '。', '、', ' ', ''] as const;

/** Separator between heading levels in {@link ManualSection.heading}. */
export const HEADING_SEPARATOR = ' > ';

/** A run of manual text under one heading path. */
export interface ManualSection {
  /** Heading path such as `セキュリティ > 二段階認証`; empty for text before the first heading or without headings. */
  heading: string;
  text: string;
}

/** Chunking parameters. */
export interface ChunkOptions {
  chunkSize?: number;
  chunkOverlap?: number;
}

/** What {@link loadManualChunks} read. */
export interface ManualLoadResult {
  /** Base names of the files that were read, in index order. */
  files: string[];
  chunks: ManualChunk[];
}

/**
 * A recursive splitter that keeps each separator at the end of the piece before it. LangChain's own splitter keeps
 * it at the start of the next piece, which would open chunks with a stray `。` or `、`. The final character-level
 * split goes by code point so a surrogate pair (e.g. an emoji) is never cut in half.
 */
class TrailingSeparatorSplitter extends RecursiveCharacterTextSplitter {
  protected override splitOnSeparator(text: string, separator: string): string[] {
    if (separator === '') return Array.from(text);
    const escaped = separator.replace(/[/\-\\^$*+?.()|[\]{}]/g, '\\$&');
    return text.split(new RegExp(`(?<=${escaped})`)).filter((s) => s !== '');
  }
}

/** The splitter used for manual sections (exported so tests and tools chunk exactly as reindexing does). */
export function createManualSplitter(options: ChunkOptions = {}): RecursiveCharacterTextSplitter {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunkOverlap = options.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunk size must be a positive integer, got ${chunkSize}`);
  if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
    throw new RangeError(`chunk overlap must be an integer from 0 to chunk size - 1 (${chunkSize - 1}), got ${chunkOverlap}`);
  }
  return new TrailingSeparatorSplitter({ chunkSize, chunkOverlap, separators: [...JAPANESE_SEPARATORS], keepSeparator: true });
}

/**
 * Splits Markdown into sections by its `#`, `##` and `###` headings (ATX style). Deeper headings stay in the text,
 * where they still help matching; lines inside fenced code blocks are never taken for headings. Sections without
 * any text (a chapter heading directly followed by a section heading) are dropped.
 */
export function markdownSections(markdown: string): ManualSection[] {
  const sections: ManualSection[] = [];
  const path: string[] = [];
  let lines: string[] = [];
  let fence: string | undefined;
  const flush = () => {
    const text = lines.join('\n').trim();
    if (text) sections.push({ heading: path.filter(Boolean).join(HEADING_SEPARATOR), text });
    lines = [];
  };
  for (const line of normalizeNewlines(markdown).split('\n')) {
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch?.[1]) {
      const marker = fenceMatch[1];
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      lines.push(line);
      continue;
    }
    const heading = fence === undefined ? /^\s{0,3}(#{1,3})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line) : null;
    if (heading?.[1] && heading[2] !== undefined) {
      flush();
      const level = heading[1].length;
      path.length = level - 1;
      // Keep a skipped level (`#` then `###`) as an empty slot that flush() filters out, so a later `##` still
      // replaces the right level.
      for (let i = 0; i < level - 1; i++) path[i] ??= '';
      path[level - 1] = heading[2].trim();
      continue;
    }
    lines.push(line);
  }
  flush();
  return sections;
}

/** Marks heading lines in html-to-text output; private-use code points never occur in real manuals. */
const HEADING_MARK = '\uE000';
const HEADING_LINE = /^\uE000([1-3])\uE001(.*)$/;

function headingFormatter(level: number): FormatCallback {
  return (elem, walk, builder) => {
    builder.openBlock({ leadingLineBreaks: 2 });
    builder.addLiteral(`${HEADING_MARK}${level}\uE001`);
    walk(elem.children, builder);
    builder.closeBlock({ trailingLineBreaks: 2 });
  };
}

/**
 * Converts HTML to plain text (html-to-text: body only, scripts and styles dropped, tables and lists kept
 * readable) and splits it into sections by `h1`–`h3`, like {@link markdownSections}.
 */
export function htmlSections(html: string): ManualSection[] {
  const text = convert(html, {
    wordwrap: false,
    formatters: { heading1: headingFormatter(1), heading2: headingFormatter(2), heading3: headingFormatter(3) },
    selectors: [
      { selector: 'h1', format: 'heading1' },
      { selector: 'h2', format: 'heading2' },
      { selector: 'h3', format: 'heading3' },
      // Link targets and image sources are noise to a keyword search and to the agent reading the chunk.
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      // Without this, table cells run together ("項目値"); dataTable lays them out in columns.
      { selector: 'table', format: 'dataTable' },
      { selector: 'ul', options: { itemPrefix: '・' } },
    ],
  });
  const sections: ManualSection[] = [];
  const path: string[] = [];
  let lines: string[] = [];
  const flush = () => {
    const body = lines.join('\n').trim();
    if (body) sections.push({ heading: path.filter(Boolean).join(HEADING_SEPARATOR), text: body });
    lines = [];
  };
  for (const line of normalizeNewlines(text).split('\n')) {
    const heading = HEADING_LINE.exec(line);
    if (heading?.[1] && heading[2] !== undefined) {
      flush();
      const level = Number(heading[1]);
      path.length = level - 1;
      for (let i = 0; i < level - 1; i++) path[i] ??= '';
      path[level - 1] = heading[2].trim();
      continue;
    }
    lines.push(line);
  }
  flush();
  return sections;
}

/**
 * Extracts the text of a PDF, page by page (pages separated by a blank line so the splitter prefers page breaks).
 *
 * @throws KnowledgeError naming `file` when the bytes are not a readable PDF.
 */
export async function pdfText(data: Uint8Array, file: string): Promise<string> {
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given; a copy keeps the caller's bytes usable. Verbosity 0
    // stops its console warnings ("Indexing all PDF objects"), which would otherwise land on a CLI's stdout.
    const pdf = await getDocumentProxy(new Uint8Array(data), { verbosity: 0 });
    try {
      const { text } = await extractText(pdf, { mergePages: false });
      return text.map((page) => normalizeNewlines(page).trim()).filter(Boolean).join('\n\n');
    } finally {
      await pdf.destroy();
    }
  } catch (err) {
    throw new KnowledgeError(`${file}: cannot read PDF: ${errorMessage(err)}`, file, undefined, { cause: err });
  }
}

/** Reads one manual file into sections according to its extension. */
export async function readManualSections(file: SourceFile, logger?: Logger): Promise<ManualSection[]> {
  const data = await readFile(file.path);
  switch (file.ext) {
    case '.pdf': {
      const text = await pdfText(data, file.path);
      if (!text) logger?.warn({ file: file.path }, `${file.fileName} has no extractable text (scanned images?); nothing indexed from it`);
      return text ? [{ heading: '', text }] : [];
    }
    case '.md':
    case '.markdown':
      return markdownSections(decodeText(data, file.path, logger));
    case '.html':
    case '.htm':
      return htmlSections(decodeText(data, file.path, logger));
    default: {
      const text = decodeText(data, file.path, logger).trim();
      return text ? [{ heading: '', text }] : [];
    }
  }
}

/**
 * Chunks the sections of one file. Ids are `${fileName}#${n}` with n counting the file's chunks from 1, so the
 * same file always yields the same ids.
 */
export async function chunkSections(
  fileName: string,
  sections: readonly ManualSection[],
  splitter: RecursiveCharacterTextSplitter,
): Promise<ManualChunk[]> {
  const chunks: ManualChunk[] = [];
  for (const section of sections) {
    for (const piece of await splitter.splitText(section.text)) {
      const content = piece.trim();
      if (content) chunks.push({ id: `${fileName}#${chunks.length + 1}`, fileName, heading: section.heading, content });
    }
  }
  return chunks;
}

/**
 * Reads and chunks every manual file in `dir` (non-recursive, sorted by name).
 *
 * @param onProgress called with stage `read` after each file.
 * @throws KnowledgeError when the directory is missing or a file cannot be read (the message names the file).
 */
export async function loadManualChunks(
  dir: string,
  options: ChunkOptions & { logger?: Logger; onProgress?: ProgressFn } = {},
): Promise<ManualLoadResult> {
  const { logger, onProgress } = options;
  const splitter = createManualSplitter(options);
  const files = await listSourceFiles(dir, MANUAL_EXTENSIONS, 'manuals', logger);
  const chunks: ManualChunk[] = [];
  await onProgress?.({ stage: 'read', done: 0, total: files.length });
  for (const [i, file] of files.entries()) {
    let sections: ManualSection[];
    try {
      sections = await readManualSections(file, logger);
    } catch (err) {
      if (err instanceof KnowledgeError) throw err;
      throw new KnowledgeError(`${file.path}: ${errorMessage(err)}`, file.path, undefined, { cause: err });
    }
    const fileChunks = await chunkSections(file.fileName, sections, splitter);
    logger?.debug({ file: file.path, sections: sections.length, chunks: fileChunks.length }, `read ${file.fileName}`);
    chunks.push(...fileChunks);
    await onProgress?.({ stage: 'read', done: i + 1, total: files.length });
  }
  return { files: files.map((f) => f.fileName), chunks };
}
