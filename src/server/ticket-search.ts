/**
 * Finding a customer's tickets for the review page and the API: an operator types a part of the customer's address,
 * their name, or words of the subject ("I mailed you yesterday about my invoice").
 *
 * Why a bounded scan and not an index: nothing in the store is keyed by address in a form that a *part* of an address
 * could look up (the rate limits and trust records keep digests of whole addresses; erasure walks every ticket), and an
 * index of every substring would cost more than it saves at a help desk's volume. So a search reads the newest tickets
 * of the state's (or the all-tickets) sorted set in pages, without their agent results, and stops after
 * {@link SEARCH_SCAN_LIMIT} of them or once it has enough matches; the answer says how far it read and where the next
 * search goes on (`skip`), so an older ticket is a click away and no request costs more than the limit.
 *
 * What is typed is text, never a pattern: it is NFKC-folded and lower-cased, split at white space, and each word must
 * occur as it is in the sender's address, the Reply-To address, the sender's name or the subject. A word that is a
 * whole address also matches the same mailbox written another way (case, full-width letters, IDN, a `+tag`), as
 * erasure compares addresses.
 *
 * A ticket's own name is looked up instead ({@link ticketsByReference}), as `npm run review` takes it: its id or a
 * start of it of at least 8 characters (the 12 that lists print), or the Message-ID of its mail.
 */
import { comparableAddress } from '../mail/addresses.js';
import type { Ticket, TicketState } from '../tickets/ticket.js';
import { isIdPrefix, type TicketStore } from '../tickets/ticket-store.js';

/** Longest search accepted, in characters (the page's box says so too). */
export const MAX_SEARCH_CHARS = 200;

/** Most tickets one search reads: about a month of a busy desk's mail, a few megabytes from Redis. */
export const SEARCH_SCAN_LIMIT = 2_000;

/** Tickets read from Redis per round trip of a search. */
const SCAN_PAGE = 200;

/** The ticket fields a search looks at. */
export type SearchableTicket = Pick<Ticket, 'from' | 'replyTo' | 'fromName' | 'subject'>;

function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** The words of a search: folded, split at white space, each once; none for a blank one. */
export function searchWords(text: string): string[] {
  return [...new Set(fold(text).split(/\s+/u).filter((w) => w !== ''))];
}

/** True when every one of `words` (from {@link searchWords}) is in the ticket's addresses, sender name or subject. */
export function matchesSearch(ticket: SearchableTicket, words: readonly string[]): boolean {
  if (words.length === 0) return false;
  const fields = [ticket.from, ticket.replyTo, ticket.fromName ?? '', ticket.subject].map(fold);
  let addresses: (string | undefined)[] | undefined;
  return words.every((word) => {
    if (fields.some((field) => field.includes(word))) return true;
    if (!word.includes('@')) return false;
    const wanted = comparableAddress(word);
    if (!wanted?.includes('@')) return false;
    addresses ??= [ticket.from, ticket.replyTo].map((a) => (a ? comparableAddress(a) : undefined));
    return addresses.includes(wanted);
  });
}

/** What {@link searchTickets} looks for and how far. */
export interface TicketSearchRequest {
  /** What the operator typed. */
  text: string;
  /** Only tickets in this state; all when absent. */
  state?: TicketState | undefined;
  /** Newest tickets to pass over: where an earlier search stopped ({@link TicketSearchResult.next}). */
  skip?: number;
  /** Most tickets to read (default {@link SEARCH_SCAN_LIMIT}). */
  scanLimit?: number;
  /** Most matches to return; the search stops at the last one. */
  resultLimit: number;
}

/** The matches of a search and how far it read. */
export interface TicketSearchResult {
  /** The matching tickets, newest first, without their agent results. */
  tickets: Ticket[];
  /** Tickets passed over before the search began. */
  skip: number;
  /** Tickets read after those. */
  scanned: number;
  /** Tickets in the index searched (all, or the state's), as last read. */
  total: number;
  /** The `skip` of a search that goes on with the next older tickets; absent when the oldest was read. */
  next?: number;
}

/** Searches the newest tickets: see the module comment. */
export async function searchTickets(store: Pick<TicketStore, 'newestIds' | 'getMany'>, request: TicketSearchRequest): Promise<TicketSearchResult> {
  const words = searchWords(request.text);
  const skip = request.skip ?? 0;
  const scanLimit = request.scanLimit ?? SEARCH_SCAN_LIMIT;
  const found: Ticket[] = [];
  // New mail arriving between two pages pushes tickets already read into the next page: each is looked at once.
  const seen = new Set<string>();
  let scanned = 0;
  let total = 0;
  while (scanned < scanLimit && found.length < request.resultLimit) {
    const want = Math.min(SCAN_PAGE, scanLimit - scanned);
    const page = await store.newestIds({ limit: want, offset: skip + scanned, ...(request.state ? { state: request.state } : {}) });
    total = page.total;
    const tickets = new Map((await store.getMany(page.ids, { agentResult: false })).map((t) => [t.id, t]));
    for (const id of page.ids) {
      scanned++;
      const ticket = tickets.get(id);
      if (!ticket || seen.has(id)) continue;
      seen.add(id);
      if (matchesSearch(ticket, words)) found.push(ticket);
      if (found.length >= request.resultLimit) break;
    }
    if (page.ids.length < want) break;
  }
  const result: TicketSearchResult = { tickets: found, skip, scanned, total };
  if (skip + scanned < total) result.next = skip + scanned;
  return result;
}

/** How a text names a ticket: its whole id, a start of it, or the Message-ID of its mail. */
export type TicketReferenceKind = 'id' | 'id-prefix' | 'message-id';

/** The tickets a {@link ticketsByReference} lookup found. */
export interface TicketReference {
  kind: TicketReferenceKind;
  /** What was looked up: the id or its start in lower case, or the Message-ID as typed (trimmed). */
  text: string;
  /**
   * The tickets found (none, one, or up to the limit: for a start several ids share, or for a Message-ID the mails of
   * several tickets have), without their agent results. More than one is ambiguous: a person picks one by its id.
   */
  tickets: Ticket[];
  /** True when more tickets than those share the start or the Message-ID. */
  more: boolean;
}

/**
 * How `text` names a ticket, or undefined when it names none: 64 hex characters are an id, 8 to 63 a start of one
 * (the CLI's `MIN_ID_PREFIX`, either case), and a word with an `@` (angle brackets optional) a Message-ID.
 */
export function ticketReferenceKind(text: string): TicketReferenceKind | undefined {
  const key = text.trim();
  const hex = key.toLowerCase();
  if (/^[0-9a-f]{64}$/.test(hex)) return 'id';
  if (isIdPrefix(hex)) return 'id-prefix';
  return /^<?[^\s<>@]+@[^\s<>@]+>?$/u.test(key) ? 'message-id' : undefined;
}

/**
 * The tickets `text` names ({@link ticketReferenceKind}), at most `limit` for a start of an id that several share or
 * a Message-ID that several mails reused (a web form that writes one fixed id: ingest keys the later mails apart, and
 * naming only the first would show an operator one customer's ticket for another's); undefined when the text names no
 * ticket (then it is searched as words). A start of an id walks the ticket ids (`TicketStore.findByIdPrefix`), a
 * Message-ID the thread index (`TicketStore.findAllByMessageId`), both for people, as here.
 */
export async function ticketsByReference(store: Pick<TicketStore, 'get' | 'getMany' | 'findByIdPrefix' | 'findAllByMessageId'>, text: string, limit = 10): Promise<TicketReference | undefined> {
  const kind = ticketReferenceKind(text);
  if (!kind) return undefined;
  const key = text.trim();
  if (kind === 'message-id') return { kind, text: key, ...(await store.findAllByMessageId(key, limit)) };
  const hex = key.toLowerCase();
  if (kind === 'id') {
    const ticket = await store.get(hex, { agentResult: false });
    return { kind, text: hex, tickets: ticket ? [ticket] : [], more: false };
  }
  const ids = (await store.findByIdPrefix(hex, limit + 1)).sort();
  return { kind, text: hex, tickets: await store.getMany(ids.slice(0, limit), { agentResult: false }), more: ids.length > limit };
}
