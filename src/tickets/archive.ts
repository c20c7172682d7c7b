/**
 * The ticket archive: final tickets that left Redis, as gzip'd JSON lines under `DATA_DIR/archive/`, one file per
 * month of the ticket's creation (`YYYY-MM.jsonl.gz`, UTC), one {@link ArchiveRecord} per line. `zcat` reads them.
 *
 * Why files and not Redis: the point of archiving is to take a year of tickets out of Redis memory; gzip'd JSON lines
 * cost about a fifth of the space on disk and need no service to read.
 *
 * Appending is crash-safe through a one-entry journal (`.pending.json`), written and fsynced before the archive is
 * touched: it holds the gzip member to append, the archive's size before the append and the ticket ids the member
 * carries. A crash mid-append leaves a torn gzip member at the end of the archive (which would make every later
 * member unreadable); the next writer finds the journal, cuts the archive back to the recorded size and appends
 * the member again, so each batch lands exactly once. The tickets are deleted from Redis only after the member is
 * fsynced, and the journal is removed only after that delete, so a crash at any point neither loses a ticket nor
 * writes it twice. One writer at a time is the caller's business (see `src/tickets/retention.ts`: a Redis lock).
 *
 * Rewrites (erasing a customer) write a temporary file beside the archive, fsync it and rename it over the archive.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip, gzipSync } from 'node:zlib';
import type { Ticket } from './ticket.js';

/** One archived ticket: a line of an archive file. */
export interface ArchiveRecord {
  /** When the ticket was archived (ISO 8601). */
  archivedAt: string;
  /** The whole ticket as it was in Redis, agent result included. */
  ticket: Ticket;
}

/** The pending append of {@link writeJournal}. */
export interface ArchiveJournal {
  /** Archive file name (`YYYY-MM.jsonl.gz`) inside the archive directory. */
  file: string;
  /** Size of the archive before the append. */
  offset: number;
  /** Ids of the tickets in {@link member}. */
  ids: string[];
  /**
   * Their versions as archived, in the order of {@link ids}: a ticket found at another version when the append is
   * finished changed since, and stays. Absent in journals written before versions were recorded.
   */
  versions?: number[];
  /** The gzip member to append. */
  member: Buffer;
}

const ARCHIVE_FILE = /^\d{4}-\d{2}\.jsonl\.gz$/;
const JOURNAL = '.pending.json';

/** The archive directory under DATA_DIR. */
export function archiveDir(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'archive');
}

/** The archive file a ticket goes to: the UTC month of its creation. */
export function archiveFileFor(ticket: Pick<Ticket, 'createdAt'>): string {
  const ms = Date.parse(ticket.createdAt);
  if (Number.isNaN(ms)) throw new TypeError(`Ticket createdAt is not a date: ${ticket.createdAt}`);
  return `${new Date(ms).toISOString().slice(0, 7)}.jsonl.gz`;
}

/** The archive files in `dir`, oldest month first; none when the directory does not exist. */
export async function listArchiveFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => ARCHIVE_FILE.test(name)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

// What the journal write and an archive rewrite write before their rename: `.pending.json.<hex>.tmp`,
// `.<YYYY-MM>.jsonl.gz.<hex>.tmp`.
const TEMPORARY_FILE = /^\.(?:pending\.json|\d{4}-\d{2}\.jsonl\.gz)\.[0-9a-f]{12}\.tmp$/;

/**
 * Removes the temporary files a crash left between a write and its rename. They hold whole tickets, which neither
 * retention nor an erasure would ever reach. Only call it while holding the retention lock: no writer is then at work.
 */
export async function removeTemporaryFiles(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const stale = names.filter((name) => TEMPORARY_FILE.test(name));
  await Promise.all(stale.map((name) => rm(path.join(dir, name), { force: true })));
  return stale.length;
}

/** One gzip member holding `records` as JSON lines. */
export function archiveMember(records: readonly ArchiveRecord[]): Buffer {
  return gzipSync(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

// A rename or a new file is durable only once its directory is synced. Some file systems refuse to sync a
// directory; the data itself was synced already, so that is not worth failing over.
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // See above.
  } finally {
    await handle.close();
  }
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}

/**
 * Records the append of `records` to `file` in the journal (temporary file, fsync, rename), to be carried out by
 * {@link commitJournal}. Throws when a journal is already pending: it must be committed first.
 */
export async function writeJournal(dir: string, file: string, records: readonly ArchiveRecord[]): Promise<ArchiveJournal> {
  if (!ARCHIVE_FILE.test(file)) throw new TypeError(`Not an archive file name: ${file}`);
  await mkdir(dir, { recursive: true });
  if (await readJournal(dir)) throw new Error(`an archive append is still pending in ${path.join(dir, JOURNAL)}; commit it first`);
  const journal: ArchiveJournal = {
    file,
    offset: await sizeOf(path.join(dir, file)),
    ids: records.map((r) => r.ticket.id),
    versions: records.map((r) => r.ticket.version),
    member: archiveMember(records),
  };
  const text = JSON.stringify({ file, offset: journal.offset, ids: journal.ids, versions: journal.versions, member: journal.member.toString('base64') });
  const tmp = path.join(dir, `${JOURNAL}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path.join(dir, JOURNAL));
  await syncDir(dir);
  return journal;
}

/** The pending append, if a writer recorded one and did not clear it. */
export async function readJournal(dir: string): Promise<ArchiveJournal | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(dir, JOURNAL), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const parsed = JSON.parse(text) as { file: string; offset: number; ids: string[]; versions?: unknown; member: string };
  if (!ARCHIVE_FILE.test(parsed.file) || !Number.isInteger(parsed.offset) || parsed.offset < 0 || !Array.isArray(parsed.ids)) {
    throw new Error(`the archive journal ${path.join(dir, JOURNAL)} is damaged; inspect it by hand`);
  }
  const versions = parsed.versions;
  if (versions !== undefined && !(Array.isArray(versions) && versions.length === parsed.ids.length && versions.every((v) => Number.isInteger(v)))) {
    throw new Error(`the archive journal ${path.join(dir, JOURNAL)} is damaged; inspect it by hand`);
  }
  return { file: parsed.file, offset: parsed.offset, ids: parsed.ids, ...(versions ? { versions: versions as number[] } : {}), member: Buffer.from(parsed.member, 'base64') };
}

/**
 * Carries out the pending append: cuts the archive back to the size recorded before it (dropping whatever a crash
 * left of an earlier try), appends the member and fsyncs. Running it again has the same result.
 */
export async function commitJournal(dir: string, journal: ArchiveJournal): Promise<void> {
  const target = path.join(dir, journal.file);
  const existed = (await sizeOf(target)) > 0;
  const handle = await open(target, 'a+', 0o600);
  try {
    const { size } = await handle.stat();
    if (size < journal.offset) {
      throw new Error(`${target} is shorter (${size} bytes) than before the pending append (${journal.offset}); it was changed by something else, inspect it by hand`);
    }
    if (size > journal.offset) await handle.truncate(journal.offset);
    await handle.write(journal.member, 0, journal.member.length, journal.offset);
    await handle.sync();
  } finally {
    await handle.close();
  }
  if (!existed) await syncDir(dir);
}

/** Removes the journal once its tickets are out of Redis. */
export async function clearJournal(dir: string): Promise<void> {
  await rm(path.join(dir, JOURNAL), { force: true });
  await syncDir(dir);
}

/** What {@link readArchive} found besides the records. */
export interface ArchiveReadSummary {
  /** Records read. */
  records: number;
  /** Lines that were not an archive record (a torn end after a crash); skipped. */
  damaged: number;
}

/**
 * Calls `onRecord` for every record of an archive file, in order, streaming (a month of tickets does not fit in one
 * string). A torn end left by a crash mid-append is skipped rather than failing the read: its tickets are still in
 * Redis and the journal puts them back on the next append.
 *
 * @throws when the file is damaged elsewhere (invalid compressed data): after the records before the damage were
 *   passed on, since what follows cannot be read.
 */
export async function readArchive(
  file: string,
  onRecord: (record: ArchiveRecord, line: string) => void | Promise<void>,
  onDamaged?: (line: string) => void | Promise<void>,
): Promise<ArchiveReadSummary> {
  const summary: ArchiveReadSummary = { records: 0, damaged: 0 };
  const gunzip = createGunzip();
  const source = createReadStream(file);
  source.on('error', (err) => gunzip.destroy(err));
  let torn = false;
  let corrupt: Error | undefined;
  // A torn end (a crash cut the last member short) surfaces as zlib's "unexpected end of file" after the complete
  // lines were read. Invalid data is damage inside the file: reading on would drop every record after it unseen,
  // and a rewrite (an erasure) would lose them for good.
  gunzip.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'Z_BUF_ERROR') torn = true;
    else if (err.code === 'Z_DATA_ERROR') corrupt = err;
  });
  const lines = createInterface({ input: source.pipe(gunzip), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (!line.trim()) continue;
      const record = parseRecord(line);
      if (record) {
        summary.records++;
        await onRecord(record, line);
      } else {
        summary.damaged++;
        await onDamaged?.(line);
      }
    }
  } catch (err) {
    if (!torn && !corrupt) throw err;
  }
  if (corrupt) {
    throw new Error(
      `the archive file ${file} is damaged (${corrupt.message}) after ${summary.records} records: the records after the damage cannot be read; restore it from a backup, it is left as it is`,
      { cause: corrupt },
    );
  }
  if (torn) summary.damaged++;
  return summary;
}

function parseRecord(line: string): ArchiveRecord | undefined {
  try {
    const value = JSON.parse(line) as ArchiveRecord;
    return value && typeof value === 'object' && value.ticket && typeof value.ticket.id === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A ticket found in the archive. */
export interface ArchivedTicket extends ArchiveRecord {
  /** The archive file it was found in. */
  file: string;
}

/**
 * The archived ticket with this id, or `undefined`. Reads every archive file; when a ticket appears more than once
 * (archived again after an older copy was restored by hand), the last line wins.
 */
export async function findArchived(dir: string, ticketId: string): Promise<ArchivedTicket | undefined> {
  let found: ArchivedTicket | undefined;
  for (const file of await listArchiveFiles(dir)) {
    await readArchive(path.join(dir, file), (record) => {
      if (record.ticket.id === ticketId) found = { ...record, file };
    });
  }
  return found;
}

/**
 * Rewrites an archive file without the lines `drop` picks: the kept lines go to a temporary file beside it, which is
 * fsynced and renamed over the archive, so a crash leaves either the old or the new file. A file from which nothing
 * is dropped is left untouched. Returns the records dropped.
 */
export async function rewriteArchive(
  dir: string,
  file: string,
  drop: (record: ArchiveRecord | undefined, line: string) => boolean,
): Promise<ArchiveRecord[]> {
  const target = path.join(dir, file);
  const tmp = path.join(dir, `.${file}.${randomBytes(6).toString('hex')}.tmp`);
  const dropped: ArchiveRecord[] = [];
  const gzip = createGzip();
  const out = createWriteStream(tmp, { mode: 0o600 });
  const written = pipeline(gzip, out);
  const write = (line: string) => (gzip.write(`${line}\n`) ? Promise.resolve() : new Promise<void>((resolve) => gzip.once('drain', resolve)));
  try {
    await readArchive(
      target,
      async (record, line) => {
        if (drop(record, line)) dropped.push(record);
        else await write(line);
      },
      async (line) => {
        if (!drop(undefined, line)) await write(line);
      },
    );
    gzip.end();
    await written;
    if (dropped.length === 0) {
      await rm(tmp, { force: true });
      return dropped;
    }
    const handle = await open(tmp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
    await syncDir(dir);
    return dropped;
  } catch (err) {
    gzip.destroy();
    await written.catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
}
