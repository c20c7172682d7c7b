/**
 * The attachments of a ticket's mail, read again from its stored raw mail: `GET /tickets/:id/attachments/:n` on the
 * dashboard and `npm run review -- show <id> --save-attachments DIR`. Mail whose words are only in an attachment is
 * parked for a person to read that attachment; the ticket keeps only names, types and sizes, so the bytes come from
 * the raw mail (`raw-store.ts`) for as long as the ticket's retention keeps it.
 *
 * The numbers are the ticket's: attachment n is the n-th entry of `ticket.attachments`, which ingest made from
 * mailparser's attachment list (`src/mail/parse.ts`). The raw mail is read with the same parser and options, and every
 * part up to n must have the type and name the ticket lists, or nothing is served: another file under the listed name
 * would be worse than none.
 *
 * A download must not render in the dashboard's origin, which holds the operator's login: whatever the sender
 * declared, it goes out as `application/octet-stream`, `Content-Disposition: attachment`, `nosniff` and a CSP sandbox.
 * Its file name is the sender's, cut down to one plain path segment ({@link attachmentFileName}).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import { MailParser, type AttachmentStream, type MessageText } from 'mailparser';
import type { Logger } from '../logger.js';
import { RAW_NOT_KEPT } from '../mail/ingest.js';
import { visibleHeaderText } from '../mail/invisible.js';
import { MIME_PARTS_READ, PARSER_OPTIONS, firstMimeParts, isPartLimit, parserInput } from '../mail/parse.js';
import { RAW_REF_SCHEME, loadRaw } from '../mail/raw-store.js';
import { TICKET_ID_PATTERN, type AttachmentSummary, type Ticket } from '../tickets/ticket.js';
import type { TicketStore } from '../tickets/ticket-store.js';
import { HttpError, errorResult, send, userOf, type ErrorRenderer } from './http.js';

/** One attachment of a ticket with its content. */
export interface TicketAttachment {
  /** Its number on the ticket, from 1: the position in `ticket.attachments`. */
  number: number;
  /** What the ticket lists of it. */
  listed: AttachmentSummary;
  /** The name to download or save it under ({@link attachmentFileName}). */
  fileName: string;
  /** The decoded bytes, as the sender attached them. */
  content: Buffer;
}

/**
 * Why a ticket's attachment cannot be had; the message is for the operator. `kind`: the ticket lists no such
 * attachment (`unlisted`), its raw mail is not stored (`not-stored`), or the raw mail cannot be read or does not
 * match the ticket's list (`unreadable`, which should not happen and is logged).
 */
export class AttachmentUnavailableError extends Error {
  override readonly name = 'AttachmentUnavailableError';
  constructor(
    message: string,
    readonly kind: 'unlisted' | 'not-stored' | 'unreadable',
  ) {
    super(message);
  }
}

/**
 * Most UTF-8 bytes of a file name we hand out: under the 255 bytes of common file systems, with room for the
 * ` (2)` a saved copy adds beside an existing file.
 */
export const MAX_FILE_NAME_BYTES = 200;

// An extension is kept through a cut when it is this short; a longer "extension" is just a name with a dot in it.
const EXTENSION = /\.[^.\s]{1,16}$/;
// Characters Windows refuses in a file name (the path separators are handled before), and which a quoted header
// parameter would have to escape.
const FORBIDDEN_IN_NAMES = /[<>:"|?*]/g;
// Windows opens a device, not a file, for these names whatever the extension; older Windows also after dropping the
// spaces and dots before it (`con .txt`).
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])[ .]*(?:\..*)?$/i;
// An extension plain enough to keep on the ASCII name of a download.
const ASCII_EXTENSION = /^\.[A-Za-z0-9]{1,16}$/;

/**
 * The name attachment `number` is downloaded or saved under: the sender's `name` without what a reader does not see
 * (text-direction overrides that show `fdp.exe` as `exe.pdf`, zero-width characters) or control characters (CR/LF),
 * only its last path segment (`../../etc/passwd` is `passwd`), no characters Windows refuses, no leading dot (a hidden
 * file, `..`) or trailing dot or space, no Windows device name, at most {@link MAX_FILE_NAME_BYTES} bytes with its
 * extension kept; `attachment-<number>` when nothing is left.
 */
export function attachmentFileName(name: string | undefined, number: number): string {
  const fallback = `attachment-${number}`;
  if (!name) return fallback;
  const visible = visibleHeaderText(name).text.normalize('NFC');
  const lastSegment = visible.split(/[\\/]/).pop() ?? '';
  let safe = lastSegment
    .replace(FORBIDDEN_IN_NAMES, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.]+/, '');
  safe = withoutTrailingDotsAndSpaces(safe);
  if (!safe) return fallback;
  if (WINDOWS_DEVICE.test(safe)) safe = `_${safe}`;
  return withinBytes(safe, '', MAX_FILE_NAME_BYTES);
}

/**
 * `fileName` as its `copy`-th copy, for a folder that already holds it: `report.pdf` → `report (2).pdf`, within
 * {@link MAX_FILE_NAME_BYTES}.
 */
export function numberedFileName(fileName: string, copy: number): string {
  return withinBytes(fileName, ` (${copy})`, MAX_FILE_NAME_BYTES);
}

/**
 * `text` without its trailing dots and white space (what `/[\s.]+$/` removes), counted off the end: that pattern
 * rescans a run of dots inside a name from each one (security review 15: quadratic, and a sender's name may be as long
 * as a MIME header, up to 1 MB).
 */
function withoutTrailingDotsAndSpaces(text: string): string {
  let end = text.length;
  while (end > 0 && /[\s.]/.test(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}

/** `name` with `suffix` before its extension, the rest cut (whole code points) to `max` UTF-8 bytes in all. */
function withinBytes(name: string, suffix: string, max: number): string {
  const ext = EXTENSION.exec(name)?.[0] ?? '';
  let stem = ext ? name.slice(0, -ext.length) : name;
  const room = max - Buffer.byteLength(suffix + ext);
  if (Buffer.byteLength(stem) > room) {
    const kept: string[] = [];
    let bytes = 0;
    for (const char of stem) {
      bytes += Buffer.byteLength(char);
      if (bytes > room) break;
      kept.push(char);
    }
    stem = withoutTrailingDotsAndSpaces(kept.join(''));
  }
  return `${stem}${suffix}${ext}`;
}

/**
 * The `Content-Disposition` of attachment `number` named `fileName` ({@link attachmentFileName}) (RFC 6266):
 * `filename` in printable ASCII for old clients, and `filename*` in UTF-8 when that is not the name itself. The ASCII
 * name is `fileName` with accents dropped and other characters, quotes, backslashes and `%` as `_`
 * ({@link asciiFileName}).
 */
export function attachmentDisposition(fileName: string, number: number): string {
  const ascii = asciiFileName(fileName, number);
  const header = `attachment; filename="${ascii}"`;
  return ascii === fileName ? header : `${header}; filename*=UTF-8''${encodeRfc5987(fileName)}`;
}

/**
 * The ASCII name of a download named `fileName`. Folding to ASCII turns full-width letters, dot leaders and slashes
 * into plain ones after {@link attachmentFileName} checked the name (`ｃｏｎ.txt` → `con.txt`, `invoice․pdf` →
 * `invoice.pdf`), so the folded name must pass the same rules unchanged and keep the dots it had; otherwise it is
 * `attachment-<number>` with the name's extension when that is plain ASCII.
 */
function asciiFileName(fileName: string, number: number): string {
  const folded = fileName
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\x20-\x7e]+/g, '_')
    .replace(/["\\%]/g, '_');
  const dots = (name: string): number => name.split('.').length;
  if (dots(folded) === dots(fileName) && attachmentFileName(folded, number) === folded) return folded;
  const ext = EXTENSION.exec(fileName)?.[0] ?? '';
  return `attachment-${number}${ASCII_EXTENSION.test(ext) ? ext : ''}`;
}

/** Percent-encoding of RFC 5987's value-chars: encodeURIComponent leaves `'()*` as they are, which it does not allow. */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A name as ingest keeps it on the ticket (and as a ticket stored before that cleaning shows it). */
function shownName(name: string | undefined): string | undefined {
  return (name && visibleHeaderText(name).text) || undefined;
}

function describePart(type: string, name: string | undefined): string {
  return name ? `${name} (${type})` : `an unnamed ${type}`;
}

/**
 * {@link readParts} of `input`, or of its first parts as parse.ts reads a mail over mailparser's part limit.
 */
async function readPartsWithinPartLimit(input: Buffer, listed: readonly AttachmentSummary[], wanted: ReadonlySet<number>): Promise<Map<number, Buffer>> {
  try {
    return await readParts(input, listed, wanted);
  } catch (err) {
    const cut = isPartLimit(err) ? firstMimeParts(input, MIME_PARTS_READ) : undefined;
    if (!cut) throw err;
    return readParts(cut, listed, wanted);
  }
}

/**
 * The contents of attachments `wanted` (numbers from 1) of `input`, reading its attachments in order up to the last
 * wanted one and checking each against the ticket's `listed` entry. Streamed: the parts not wanted are not kept, and
 * parsing stops after the last wanted one.
 */
function readParts(input: Buffer, listed: readonly AttachmentSummary[], wanted: ReadonlySet<number>): Promise<Map<number, Buffer>> {
  const last = Math.max(...wanted);
  return new Promise((resolve, reject) => {
    const parser = new MailParser(PARSER_OPTIONS);
    const contents = new Map<number, Buffer>();
    let seen = 0;
    let settled = false;
    const settle = (err?: Error): void => {
      if (settled) return;
      settled = true;
      parser.removeAllListeners('data');
      // What the parser still meets after it is stopped concerns nobody.
      parser.on('error', () => undefined);
      parser.destroy();
      if (err) reject(err);
      else resolve(contents);
    };
    parser.on('data', (data: AttachmentStream | MessageText) => {
      if (data.type !== 'attachment' || settled) return;
      const number = ++seen;
      const type = (data.contentType || 'application/octet-stream').toLowerCase();
      const expected = listed[number - 1]!;
      if (type !== expected.contentType.toLowerCase() || shownName(data.filename) !== shownName(expected.filename)) {
        data.release();
        settle(
          new AttachmentUnavailableError(
            `The stored mail does not match the ticket's list of attachments: attachment ${number} is ${describePart(type, shownName(data.filename))} there, ` +
              `${describePart(expected.contentType, shownName(expected.filename))} on the ticket. Nothing is served rather than another file.`,
            'unreadable',
          ),
        );
        return;
      }
      const keep = wanted.has(number);
      const chunks: Buffer[] = [];
      data.content.on('data', (chunk: Buffer) => {
        if (keep) chunks.push(chunk);
      });
      data.content.on('end', () => {
        data.release();
        if (keep) contents.set(number, Buffer.concat(chunks));
        if (number === last) settle();
      });
    });
    parser.on('error', (err: Error) => settle(err));
    parser.on('end', () => settle());
    parser.end(input);
  });
}

/**
 * Attachments `numbers` (default: all; numbers from 1, as the ticket lists them) of the raw mail `raw`, whose ticket
 * lists `listed`.
 *
 * @throws {AttachmentUnavailableError} for a number the ticket does not list, a raw mail that cannot be read, or one
 *   whose attachments are not those the ticket lists.
 */
export async function readTicketAttachments(raw: Buffer, listed: readonly AttachmentSummary[], numbers?: readonly number[]): Promise<TicketAttachment[]> {
  const wanted = new Set(numbers ?? listed.map((_, i) => i + 1));
  if (wanted.size === 0) return [];
  for (const n of wanted) {
    if (!Number.isInteger(n) || n < 1 || n > listed.length) throw new AttachmentUnavailableError(noSuchAttachment(listed.length, String(n)), 'unlisted');
  }
  let contents: Map<number, Buffer>;
  try {
    contents = await readPartsWithinPartLimit(parserInput(raw), listed, wanted);
  } catch (err) {
    if (err instanceof AttachmentUnavailableError) throw err;
    throw new AttachmentUnavailableError(`The stored mail could not be read: ${(err as Error).message}`, 'unreadable');
  }
  return [...wanted]
    .sort((a, b) => a - b)
    .map((number) => {
      const content = contents.get(number);
      if (!content) {
        throw new AttachmentUnavailableError(`The stored mail does not match the ticket's list of attachments: it has fewer than ${number}. Nothing is served rather than another file.`, 'unreadable');
      }
      const entry = listed[number - 1]!;
      return { number, listed: entry, fileName: attachmentFileName(entry.filename, number), content };
    });
}

function noSuchAttachment(count: number, asked: string): string {
  const has = count === 0 ? 'has no attachments' : `has ${count} attachment${count === 1 ? '' : 's'} (numbered from 1)`;
  return `This ticket ${has}; there is no attachment ${asked}.`;
}

/** Where the raw mail of tickets is kept. */
export interface RawMailSource {
  redis: Redis;
  /** QUEUE_PREFIX. */
  prefix: string;
}

/**
 * Attachments `numbers` (default: all) of `ticket`, from its stored raw mail; [] for a ticket without attachments.
 *
 * @throws {AttachmentUnavailableError} when the mail was not downloaded, its raw copy was not kept or is gone, and as
 *   {@link readTicketAttachments} does.
 */
export async function loadTicketAttachments(
  source: RawMailSource,
  ticket: Pick<Ticket, 'id' | 'rawRef' | 'attachments'> & Partial<Pick<Ticket, 'reason' | 'heldReason' | 'history'>>,
  numbers?: readonly number[],
): Promise<TicketAttachment[]> {
  if (ticket.attachments.length === 0 && !numbers?.length) return [];
  if (numbers) {
    for (const n of numbers) {
      if (!Number.isInteger(n) || n < 1 || n > ticket.attachments.length) throw new AttachmentUnavailableError(noSuchAttachment(ticket.attachments.length, String(n)), 'unlisted');
    }
  }
  if (!ticket.rawRef?.startsWith(RAW_REF_SCHEME)) {
    throw new AttachmentUnavailableError(notStoredMessage(ticket), 'not-stored');
  }
  const raw = await loadRaw(source.redis, source.prefix, ticket.id);
  if (!raw) {
    throw new AttachmentUnavailableError(
      "The raw mail of this ticket is no longer stored (its retention ended, or the customer's data was erased), so its attachments cannot be opened; the ticket keeps only their names and sizes.",
      'not-stored',
    );
  }
  return readTicketAttachments(raw, ticket.attachments, numbers);
}

/**
 * Why a ticket without a raw copy cannot serve its attachments: a budget refused the copy (its reason or first note
 * says so; the mail itself stays in the mailbox), or the mail was never downloaded whole.
 */
function notStoredMessage(ticket: Partial<Pick<Ticket, 'reason' | 'heldReason' | 'history'>>): string {
  const refused = [ticket.heldReason, ticket.reason].some((r) => r?.startsWith(RAW_NOT_KEPT)) || ticket.history?.some((h) => h.note?.includes(RAW_NOT_KEPT));
  if (refused) {
    return "The raw copy of this mail was not kept (a raw-mail budget was spent when it arrived: see the ticket's reason or history), so its attachments cannot be opened here; the mail is still in the mailbox, and the ticket keeps only their names and sizes.";
  }
  return 'The mail of this ticket was not downloaded, so its attachments cannot be opened; the ticket keeps only their names and sizes.';
}

/** Most copies of one name {@link saveAttachments} tries beside the files already in the folder. */
const MAX_COPIES = 1_000;

/**
 * Writes `attachments` into `dir` (created when missing) under their file names, each a new file readable by its
 * owner only (they hold a customer's data): a name already there, a link included, is never written through; the
 * attachment gets the first free `name (2).ext`, `name (3).ext`… instead. Returns the paths written, in order.
 */
export async function saveAttachments(dir: string, attachments: readonly TicketAttachment[]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const attachment of attachments) written.push(await writeNewFile(dir, attachment.fileName, attachment.content));
  return written;
}

async function writeNewFile(dir: string, fileName: string, content: Buffer): Promise<string> {
  // attachmentFileName makes names of one segment; a name of another kind must not reach the file system at all.
  if (path.basename(fileName) !== fileName || fileName === '.' || fileName === '..') throw new TypeError(`not a plain file name: ${JSON.stringify(fileName)}`);
  for (let copy = 1; copy <= MAX_COPIES; copy++) {
    const file = path.join(dir, copy === 1 ? fileName : numberedFileName(fileName, copy));
    try {
      // `wx`: O_CREAT | O_EXCL, which fails on any existing name, a dangling link too, and follows no link.
      await writeFile(file, content, { flag: 'wx', mode: 0o600 });
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new Error(`${dir} already holds ${MAX_COPIES} files named like ${fileName}; choose another folder`);
}

/**
 * The policy of a download: `sandbox` makes a document that a browser renders anyway (an old one, a plugin) an opaque
 * origin without script, forms or the dashboard's cookies and login; nothing may be loaded from it either.
 */
export const ATTACHMENT_CSP = "sandbox; default-src 'none'";

/** What the download route needs. */
export interface AttachmentRouteDeps {
  store: Pick<TicketStore, 'get'>;
  redis: Redis;
  /** QUEUE_PREFIX, for the raw mail store. */
  prefix: string;
  logger: Logger;
}

// A number as the ticket page links it; anything else names no attachment.
const ATTACHMENT_NUMBER = /^[1-9][0-9]{0,5}$/;

/** Attachment `n` (the path's text) of ticket `id`, or an {@link HttpError} 404 saying why there is none. */
async function requestedAttachment(deps: AttachmentRouteDeps, id: string, n: string): Promise<TicketAttachment> {
  const ticket = TICKET_ID_PATTERN.test(id) ? await deps.store.get(id, { agentResult: false }) : undefined;
  if (!ticket) throw new HttpError(404, TICKET_ID_PATTERN.test(id) ? `No ticket ${id}` : 'No ticket has this id');
  if (!ATTACHMENT_NUMBER.test(n)) throw new HttpError(404, noSuchAttachment(ticket.attachments.length, n.slice(0, 20)));
  try {
    const [attachment] = await loadTicketAttachments(deps, ticket, [Number(n)]);
    return attachment!;
  } catch (err) {
    if (!(err instanceof AttachmentUnavailableError)) throw err;
    if (err.kind === 'unreadable') deps.logger.warn({ ticketId: ticket.id, attachment: n, reason: err.message }, 'Attachment of a ticket not served');
    throw new HttpError(404, err.message);
  }
}

/**
 * `GET /tickets/:id/attachments/:n`: attachment n (from 1, as the ticket lists it) as a download that cannot render
 * in the dashboard's origin; 404 with the reason, rendered by `renderError`, when there is none. Reads only.
 */
export function attachmentDownloadRoute(deps: AttachmentRouteDeps, renderError: ErrorRenderer): RequestHandler {
  return async (req: Request, res: Response) => {
    let attachment: TicketAttachment;
    try {
      attachment = await requestedAttachment(deps, String(req.params.id ?? ''), String(req.params.n ?? ''));
    } catch (err) {
      send(res, errorResult(err, renderError, deps.logger, req, userOf(res)));
      return;
    }
    res
      .status(200)
      .set({
        // Never the sender's type: an HTML or SVG file declared as such would run as a page of the dashboard.
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': attachmentDisposition(attachment.fileName, attachment.number),
        'Content-Security-Policy': ATTACHMENT_CSP,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
      })
      .send(attachment.content);
  };
}
