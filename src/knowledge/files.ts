/**
 * File-system helpers shared by the manual and Q&A loaders: listing a source directory deterministically and
 * decoding text files the way operators actually save them (UTF-8 with or without BOM, Windows line ends, or
 * Shift_JIS from older Japanese Excel).
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { KnowledgeError } from './errors.js';

/** One source file found in a knowledge directory. */
export interface SourceFile {
  /** Base name; part of chunk and pair ids, so it must be stable across runs. */
  fileName: string;
  /** Absolute path. */
  path: string;
  /** Lower-case extension including the dot, e.g. `.md`. */
  ext: string;
}

/**
 * Lists the regular files of `dir` whose extension is in `extensions`, sorted by name (code-point order, so ids
 * and chunk order do not depend on the file system or locale). Other entries, dotfiles (editor and office lock
 * files such as `.~lock.qa.csv#`) and subdirectories are skipped with a debug log.
 *
 * @throws KnowledgeError when `dir` does not exist or is not a directory — a missing directory must never look
 *   like an empty knowledge base.
 */
export async function listSourceFiles(
  dir: string,
  extensions: readonly string[],
  what: string,
  logger?: Logger,
): Promise<SourceFile[]> {
  const abs = path.resolve(dir);
  let names: string[];
  try {
    const info = await stat(abs);
    if (!info.isDirectory()) throw new KnowledgeError(`${what} directory is not a directory: ${abs}`, abs);
    names = await readdir(abs);
  } catch (err) {
    if (err instanceof KnowledgeError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(err)})`;
    throw new KnowledgeError(`${what} directory ${reason}: ${abs}`, abs, undefined, { cause: err });
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const files: SourceFile[] = [];
  for (const fileName of names) {
    const filePath = path.join(abs, fileName);
    const ext = path.extname(fileName).toLowerCase();
    if (fileName.startsWith('.') || !extensions.includes(ext)) {
      logger?.debug({ file: filePath }, `skipping ${fileName}: not one of ${extensions.join(', ')}`);
      continue;
    }
    if (!(await stat(filePath)).isFile()) {
      logger?.debug({ file: filePath }, `skipping ${fileName}: not a regular file`);
      continue;
    }
    files.push({ fileName, path: filePath, ext });
  }
  return files;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const shiftJis = new TextDecoder('shift_jis', { fatal: true });

/**
 * Decodes a text file: UTF-8 (a BOM is dropped), else Shift_JIS, which Excel in Japanese locales still writes for
 * "CSV (comma delimited)". Line ends are normalised to `\n`.
 *
 * @throws KnowledgeError when the bytes are neither.
 */
export function decodeText(data: Uint8Array, file: string, logger?: Logger): string {
  let text: string;
  try {
    text = utf8.decode(data);
  } catch {
    try {
      text = shiftJis.decode(data);
      logger?.info({ file }, `${path.basename(file)} is not UTF-8; read it as Shift_JIS`);
    } catch (err) {
      throw new KnowledgeError(`${file}: not valid UTF-8 or Shift_JIS text; save it as UTF-8`, file, undefined, { cause: err });
    }
  }
  return normalizeNewlines(text);
}

/** Turns CRLF and lone CR into LF, so splitting and line numbers see one kind of line end. */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}
