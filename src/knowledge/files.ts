/**
 * File-system helpers shared by the manual and Q&A loaders: listing a source directory deterministically and
 * decoding text files the way operators actually save them (UTF-8 with or without BOM, Windows line ends, or
 * Shift_JIS from older Japanese Excel).
 */
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { KnowledgeError } from './errors.js';

/** One source file found in a knowledge directory. */
export interface SourceFile {
  /**
   * Path relative to the listed directory with `/` separators (`guide/login.md`, or just `faq.csv` at the top);
   * part of chunk and pair ids and shown as the source, so it must be stable across runs and machines.
   */
  fileName: string;
  /** Absolute path. */
  path: string;
  /** Lower-case extension including the dot, e.g. `.md`. */
  ext: string;
}

/** Options of {@link listSourceFiles}. */
export interface ListOptions {
  /**
   * Descend into subfolders (documentation sites keep their pages in folder trees). Dot-folders are skipped. A
   * symbolic link to a folder is never followed: one into the tree is skipped, since that folder is read under its
   * own path (so no loop and no file read twice), and one out of it is refused with a warning, as a linked file is.
   */
  recursive?: boolean;
  /**
   * Entries that are not content, by name (compared in lower case) with the reason logged at debug: a documentation
   * repository's `node_modules`, a site's navigation files. Skipped like dotfiles, so they count nowhere.
   */
  skip?: ReadonlyMap<string, string>;
  /**
   * Entries skipped as {@link skip} is, but only in a folder that also holds one of `markers` (what a generator writes
   * beside its build, such as Sphinx's `searchindex.js`): elsewhere the same name is an admin's own file or folder.
   */
  skipInBuild?: { names: ReadonlyMap<string, string>; markers: readonly string[] };
  /**
   * What a file over {@link MAX_SOURCE_FILE_BYTES} does: `refuse` (default) fails the listing, `skip` leaves it out,
   * unread, and lists it in {@link SourceListing.refused} so the caller can warn and read the rest.
   */
  oversized?: 'refuse' | 'skip';
}

/** A file left out of a listing before any byte of it was read, with why and what to do. */
export interface RefusedSource {
  fileName: string;
  reason: string;
}

/** What {@link listSourceFiles} found, for summaries and warnings. */
export interface SourceListing {
  files: SourceFile[];
  /** Readable files per folder (`.` for the top), only folders that hold at least one. */
  perFolder: Record<string, number>;
  /**
   * Folders (relative, `.` for the top) whose whole subtree holds no readable file: the top always, a subfolder when
   * it holds files of other kinds that are not {@link SITE_ASSET_EXTENSIONS} (documents in a format not read).
   */
  emptyFolders: string[];
  /**
   * Files (relative, `/`-separated) not read for their type that are no {@link SITE_ASSET_EXTENSIONS} either:
   * documents in a format not read, such as a legacy `.doc`.
   */
  unsupported: string[];
  /** Files over {@link MAX_SOURCE_FILE_BYTES}, with `oversized: 'skip'` only. */
  refused: RefusedSource[];
  /** Folders (relative, `.` for the top) holding one of `skipInBuild`'s markers: a generator's build. */
  buildFolders: string[];
}

/**
 * The largest manual or Q&A file read: each is read whole into memory and its reader holds several copies of its
 * text. Room for a PDF or Word manual full of screenshots; a bigger file is refused before any byte is read.
 */
export const MAX_SOURCE_FILE_BYTES = 200_000_000;

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * What a documentation site keeps beside its pages (pictures, styles, scripts, fonts, media, configuration): not
 * documents, so a folder of them alone (`images/`, `assets/`) is not reported as holding nothing readable.
 */
const SITE_ASSET_EXTENSIONS: ReadonlySet<string> = new Set(
  [
    ...['png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'avif', 'ico', 'bmp', 'tif', 'tiff', 'drawio', 'excalidraw'],
    ...['css', 'scss', 'sass', 'less', 'js', 'mjs', 'cjs', 'ts', 'tsx', 'jsx', 'vue', 'map'],
    ...['woff', 'woff2', 'ttf', 'otf', 'eot'],
    ...['mp4', 'webm', 'mov', 'mp3', 'wav', 'ogg'],
    ...['json', 'yml', 'yaml', 'toml', 'xml'],
  ].map((ext) => `.${ext}`),
);

/**
 * Lists the regular files of `dir` whose extension is in `extensions`, sorted by relative path in code-point order
 * (so ids and chunk order do not depend on the file system or locale). Other entries, dotfiles (editor and
 * LibreOffice lock files such as `.~lock.qa.csv#`) and Microsoft Office owner files (`~$qa.csv`) are skipped with
 * a debug log; subfolders are listed only with `recursive`.
 *
 * @throws KnowledgeError when `dir` does not exist or is not a directory — a missing directory must never look
 *   like an empty knowledge base — or when a file to read is larger than {@link MAX_SOURCE_FILE_BYTES}, naming it.
 */
export async function listSourceFiles(
  dir: string,
  extensions: readonly string[],
  what: string,
  logger?: Logger,
  options: ListOptions = {},
): Promise<SourceFile[]> {
  return (await listSources(dir, extensions, what, logger, options)).files;
}

/** {@link listSourceFiles} with the per-folder counts and the folders that hold nothing readable. */
export async function listSources(
  dir: string,
  extensions: readonly string[],
  what: string,
  logger?: Logger,
  options: ListOptions = {},
): Promise<SourceListing> {
  const abs = path.resolve(dir);
  try {
    const info = await stat(abs);
    if (!info.isDirectory()) throw new KnowledgeError(`${what} directory is not a directory: ${abs}`, abs);
    await readdir(abs);
  } catch (err) {
    if (err instanceof KnowledgeError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(err)})`;
    throw new KnowledgeError(`${what} directory ${reason}: ${abs}`, abs, undefined, { cause: err });
  }
  const listing: SourceListing = { files: [], perFolder: {}, emptyFolders: [], unsupported: [], refused: [], buildFolders: [] };
  const rootReal = await realpath(abs);
  await walk(abs, '');
  listing.files.sort((a, b) => byCodePoint(a.fileName, b.fileName));
  listing.unsupported.sort(byCodePoint);
  listing.refused.sort((a, b) => byCodePoint(a.fileName, b.fileName));
  return listing;

  /** Lists one folder; returns how many readable files its subtree holds, and how many files it did not read. */
  async function walk(folder: string, rel: string): Promise<{ found: number; unread: number }> {
    let found = 0;
    let unread = 0;
    // A name that is not UTF-8 (Shift_JIS names from a Windows zip unpacked on Linux) reads as U+FFFD and then names
    // no file at all: lstat failed and the whole reindex with it. Such a file is skipped with the reason.
    const names: string[] = [];
    for (const raw of await readdir(folder, { encoding: 'buffer' })) {
      const name = utf8Name(raw);
      if (name !== undefined) names.push(name);
      else {
        unread++;
        logger?.warn({ folder }, `skipping a file in ${rel || '.'} whose name is not UTF-8 (${raw.toString('latin1').replace(/[^\x20-\x7e]/g, '?')}): rename it`);
      }
    }
    names.sort(byCodePoint);
    const build = options.skipInBuild;
    const lowerNames = build ? new Set(names.map((name) => name.toLowerCase())) : undefined;
    const inBuild = build !== undefined && build.markers.some((marker) => lowerNames?.has(marker.toLowerCase()));
    if (inBuild) listing.buildFolders.push(rel || '.');
    for (const name of names) {
      const filePath = path.join(folder, name);
      const relName = rel ? `${rel}/${name}` : name;
      if (name.startsWith('.')) {
        logger?.debug({ file: filePath }, `skipping ${relName}: hidden`);
        continue;
      }
      // Microsoft Office's owner file (`~$manual.docx`, `~$qa.csv` from Excel) sits beside a document while it is
      // open; it is not the document, and reading it would fail the whole reindex.
      if (name.startsWith('~$')) {
        logger?.debug({ file: filePath }, `skipping ${relName}: an Office owner (lock) file`);
        continue;
      }
      const notContent = options.skip?.get(name.toLowerCase()) ?? (inBuild ? build.names.get(name.toLowerCase()) : undefined);
      if (notContent !== undefined) {
        logger?.debug({ file: filePath }, `skipping ${relName}: ${notContent}`);
        continue;
      }
      const entry = await lstat(filePath);
      let info = entry;
      if (entry.isSymbolicLink()) {
        try {
          info = await stat(filePath);
        } catch {
          logger?.warn({ file: filePath }, `skipping ${relName}: broken symbolic link`);
          continue;
        }
      }
      if (info.isDirectory()) {
        if (!options.recursive) {
          logger?.debug({ file: filePath }, `skipping ${relName}: a folder`);
          continue;
        }
        // A documentation checkout can carry folder links as it carries file links (git stores both), and
        // `ops -> /etc` would put every text file below it into the knowledge base the agent quotes to anyone. A
        // folder from elsewhere belongs in the tree as a copy or a bind mount, which the admin makes on purpose.
        if (entry.isSymbolicLink()) {
          if (isWithin(await realpath(filePath), rootReal)) {
            logger?.warn({ file: filePath }, `skipping ${relName}: links into the folder being read (read under its own path)`);
          } else {
            logger?.warn({ file: filePath }, `skipping ${relName}: a link to a folder outside the folder being read is not followed (copy or mount that folder instead)`);
          }
          continue;
        }
        const inner = await walk(filePath, relName);
        if (inner.found === 0 && inner.unread > 0) listing.emptyFolders.push(relName);
        found += inner.found;
        unread += inner.unread;
        continue;
      }
      const ext = path.extname(name).toLowerCase();
      if (!extensions.includes(ext)) {
        logger?.debug({ file: filePath }, `skipping ${relName}: not one of ${extensions.join(', ')}`);
        if (!SITE_ASSET_EXTENSIONS.has(ext)) {
          unread++;
          listing.unsupported.push(relName);
        }
        continue;
      }
      if (!info.isFile()) {
        logger?.debug({ file: filePath }, `skipping ${relName}: not a regular file`);
        continue;
      }
      // A linked file is read only when it stays in the folder being read. A documentation checkout can carry links
      // (git stores them), and `config.txt -> /app/.env` would otherwise put the server's secrets into the knowledge
      // base, where the agent may quote them to anyone.
      if (entry.isSymbolicLink()) {
        const real = await realpath(filePath);
        if (!isWithin(real, rootReal)) {
          logger?.warn({ file: filePath }, `skipping ${relName}: a link to a file outside the folder being read is not followed`);
          continue;
        }
      }
      // Every reader reads its file whole; a file of gigabytes would exhaust the worker before any error.
      if (info.size > MAX_SOURCE_FILE_BYTES) {
        const reason = `${info.size.toLocaleString('en-US')} bytes, more than the ${MAX_SOURCE_FILE_BYTES.toLocaleString('en-US')} a knowledge file may hold; split it or make it smaller`;
        if (options.oversized !== 'skip') throw new KnowledgeError(`${filePath}: ${reason}`, filePath);
        listing.refused.push({ fileName: relName, reason });
        unread++;
        continue;
      }
      listing.files.push({ fileName: relName, path: filePath, ext });
      const key = rel || '.';
      listing.perFolder[key] = (listing.perFolder[key] ?? 0) + 1;
      found++;
    }
    if (rel === '' && found === 0) listing.emptyFolders.unshift('.');
    return { found, unread };
  }
}

/** True when `real` is `root` or lies below it (both real paths). */
function isWithin(real: string, root: string): boolean {
  return real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
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

/** A file name's bytes as UTF-8 (the decoder of {@link decodeText}), or undefined when they are not UTF-8. */
function utf8Name(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}
