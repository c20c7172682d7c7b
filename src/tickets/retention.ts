/**
 * What Redis keeps and for how long, and erasing a customer on request.
 *
 * Retention (the scheduled `retention` job): a settled ticket ({@link SETTLED_STATES}: `sent`, `rejected`, and
 * `ignored` — auto-replies, bounces, lists and spam, most of a mailbox's traffic — that nobody took up) whose last
 * change is older than RAW_MAIL_RETENTION_DAYS loses its raw mail (the mail itself stays in the IMAP mailbox); one
 * older than TICKET_RETENTION_DAYS is written to the archive (`src/tickets/archive.ts`) and then removed from Redis
 * with its raw mail and its index entries. Age counts from the last change (`updatedAt`), so a ticket parked for a
 * month and answered today keeps its mail for the whole period after the answer. Candidates come from the settled
 * states' indexes by creation time (which is never later than the last change), so nothing scans the key space.
 *
 * Erasure ({@link forgetCustomer}): every ticket whose sender (From) or reply address (Reply-To) is the customer's,
 * and every bounce whose delivery report names the customer as its recipient, compared as {@link comparableAddress}
 * does (case, IDN spelling, `+tag` and a Gmail address's dots folded), in any state; their raw mail, conversation entries and thread-index
 * links; their lines in every archive file; and the automatic-reply and agent-run rate-limit windows of those addresses
 * (and the tickets' ids in the agent-run windows of their organisation domains, both, which their colleagues share); the
 * knowledge gaps' questions from those tickets and the learned-answer candidates proposed from them (accepted pairs
 * stay); their sent replies awaiting a Sent-folder copy, their queue jobs in every state with their results, errors
 * and logs, and their entries in each queue's BullMQ event stream, and the words of their rejection reasons in the
 * insights. The tickets are marked erased first (src/tickets/erased.ts): a job running during the erasure (BullMQ
 * cannot remove it) stores nothing of its ticket when it writes after it, and the queue worker removes the job and
 * its events once it ends. It walks every ticket: a rare operator command, not a hot path.
 *
 * One at a time: both hold a lock in Redis (`P:retention:lock`) while they run, so an erasure can never rewrite an
 * archive file while the retention job appends to it, nor miss a ticket the job is moving from Redis to the archive.
 */
import path from 'node:path';
import type { Redis } from 'ioredis';
import { erasedTicketsKey, removeJobEvents } from './erased.js';
import { forgetReviewSenders } from './trust.js';
import { GapStore } from '../knowledge/gaps.js';
import { LearnedAnswerStore } from '../knowledge/learned-answers.js';
import { comparableAddress, normaliseAddress } from '../mail/addresses.js';
import { rawKey } from '../mail/raw-store.js';
import { sentRawKey } from '../mail/sent-copy.js';
import { execAll } from '../queues/connection.js';
import { answerJobId, proposeLearnedJobId, sendJobId, sentCopyJobId } from '../queues/job-options.js';
import type { Queues } from '../queues/registry.js';
import { LockBusyError, acquireRedisLock, type RedisLock } from '../queues/redis-lock.js';
import { normalizeReason } from './insights.js';
import { LuaScript } from './lua.js';
import { countedDay, outcomeKeys } from './outcome.js';
import { repeatedQuestionKeys } from './repeated-question.js';
import { agentRunDomainKey, agentRunDomainOf, agentRunKey, agentRunTotalKey, autoReplyKey, autoReplyRecipientKey, autoReplyTotalKey } from './rate-limit.js';
import {
  archiveFileFor,
  clearJournal,
  commitJournal,
  listArchiveFiles,
  readArchive,
  readJournal,
  removeTemporaryFiles,
  rewriteArchive,
  writeJournal,
  type ArchiveRecord,
} from './archive.js';
import { FINAL_STATES, type Ticket, type TicketState } from './ticket.js';
import type { TicketStore } from './ticket-store.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Tickets read and archived per step; bounds memory (full tickets are tens of kilobytes) and the lock's renewals. */
const ARCHIVE_BATCH = 100;
/** Ids per ZRANGE / EXISTS round trip. */
const ID_PAGE = 500;
/** How long the lock lives without renewal; every batch renews it, so only a dead holder lets it run out. */
export const RETENTION_LOCK_TTL_MS = 5 * 60 * 1000;

/** What Redis and the archive are reached through. */
export interface RetentionDeps {
  redis: Redis;
  store: TicketStore;
  /** QUEUE_PREFIX (raw mail and rate-limit keys live beside the store's). */
  prefix: string;
  /** The archive directory (`archiveDir(DATA_DIR)`). */
  archiveDir: string;
  /** Clock; tests pass a fixed one. */
  now?: () => Date;
}

/** How long data is kept, in days (RAW_MAIL_RETENTION_DAYS, TICKET_RETENTION_DAYS). */
export interface RetentionPolicy {
  rawMailDays: number;
  ticketDays: number;
}

/** What one retention run did. */
export interface RetentionResult {
  /** Raw mails deleted from final tickets that stay in Redis. */
  rawMailsDropped: number;
  /** Tickets written to the archive and removed from Redis (raw mail included). */
  ticketsArchived: number;
  /** Archive files appended to. */
  archiveFiles: string[];
  /** Tickets of an append a crash had interrupted, completed at the start of this run. */
  recovered: number;
}

/** Thrown when the lock is held by another run (or an erasure) for longer than the caller wanted to wait. */
export class RetentionBusyError extends LockBusyError {
  constructor(what: string) {
    super(`${what}: another retention run or erasure holds the lock; try again in a minute`);
    this.name = 'RetentionBusyError';
  }
}

/** The Redis key of the lock that serialises retention runs and erasures. */
export function retentionLockKey(prefix: string): string {
  return `${prefix}:retention:lock`;
}

async function acquireLock(redis: Redis, prefix: string, what: string, waitMs: number): Promise<RedisLock> {
  try {
    return await acquireRedisLock(redis, retentionLockKey(prefix), { ttlMs: RETENTION_LOCK_TTL_MS, waitMs, busyMessage: what });
  } catch (err) {
    throw err instanceof LockBusyError ? new RetentionBusyError(what) : err;
  }
}

/** The moment before which a last change makes data old enough to go, for `days` of retention. */
export function retentionCutoff(now: Date, days: number): number {
  if (!Number.isInteger(days) || days < 1) throw new RangeError(`retention days must be a whole number ≥ 1, got ${days}`);
  return now.getTime() - days * DAY_MS;
}

/**
 * States retention may clear: the final ones, and `ignored`. An ignored mail can still be taken up by a person
 * (`ignored → parked`), but one nobody took up within the retention period is as settled as a sent one; keeping it
 * would keep most of the mail (auto-replies, bounces, lists, spam) forever.
 */
export const SETTLED_STATES: readonly TicketState[] = [...FINAL_STATES, 'ignored'];

/** True when a settled ticket's last change is at or before `cutoff` (epoch ms). */
export function isExpired(ticket: Pick<Ticket, 'state' | 'updatedAt' | 'createdAt'>, cutoff: number): boolean {
  if (!SETTLED_STATES.includes(ticket.state)) return false;
  const changed = Date.parse(ticket.updatedAt || ticket.createdAt);
  return !Number.isNaN(changed) && changed <= cutoff;
}

/** Every id in `state` created at or before `cutoff`, oldest first. */
async function candidateIds(store: TicketStore, state: TicketState, cutoff: number): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += ID_PAGE) {
    const page = await store.idsCreatedBefore(state, cutoff, ID_PAGE, offset);
    ids.push(...page);
    if (page.length < ID_PAGE) return ids;
  }
}

/**
 * Completes an archive append a crash interrupted (see `archive.ts`): the member is put in place again and its
 * tickets are removed from Redis; the temporary files a crash left are removed first. Returns the number of tickets
 * of that append, 0 when none was pending.
 */
async function recoverPendingAppend(deps: RetentionDeps): Promise<number> {
  await removeTemporaryFiles(deps.archiveDir);
  const journal = await readJournal(deps.archiveDir);
  if (!journal) return 0;
  await commitJournal(deps.archiveDir, journal);
  const reopened = new Set<string>();
  const archivedVersion = new Map(journal.ids.map((id, i) => [id, journal.versions?.[i]]));
  for (const ticket of await deps.store.getMany(journal.ids, { agentResult: false })) {
    // Only final tickets were journalled; a ticket in any other state, or at another version (a person decided it
    // again, a bounce marked it), is not the copy that was archived, and its later changes must not be lost.
    const version = archivedVersion.get(ticket.id);
    const moved = !SETTLED_STATES.includes(ticket.state) || (await deps.store.remove(ticket, rawKey(deps.prefix, ticket.id), { version })) === 'moved';
    if (moved) reopened.add(ticket.id);
  }
  await dropArchivedCopies(deps, journal.file, reopened);
  await clearJournal(deps.archiveDir);
  return journal.ids.length - reopened.size;
}

/**
 * Takes the archive lines of `ids` out of `file` again: tickets a person reopened while they were being archived
 * live on in Redis, and a stale copy would be archived a second time when they end. Rare, so the rewrite is too.
 */
async function dropArchivedCopies(deps: RetentionDeps, file: string, ids: ReadonlySet<string>): Promise<void> {
  if (ids.size === 0) return;
  await rewriteArchive(deps.archiveDir, file, (record) => record !== undefined && ids.has(record.ticket.id));
}

async function archiveExpiredTickets(deps: RetentionDeps, cutoff: number, now: Date, lock: RedisLock, result: RetentionResult): Promise<void> {
  const files = new Set<string>();
  const archivedIds: string[] = [];
  for (const state of SETTLED_STATES) {
    const ids = await candidateIds(deps.store, state, cutoff);
    for (let i = 0; i < ids.length; i += ARCHIVE_BATCH) {
      const tickets = (await deps.store.getMany(ids.slice(i, i + ARCHIVE_BATCH))).filter((t) => isExpired(t, cutoff));
      const byFile = new Map<string, ArchiveRecord[]>();
      for (const ticket of tickets) {
        const file = archiveFileFor(ticket);
        byFile.set(file, [...(byFile.get(file) ?? []), { archivedAt: now.toISOString(), ticket }]);
      }
      for (const [file, records] of byFile) {
        // Order matters for crash safety: journal, append + fsync, delete from Redis, clear the journal.
        const journal = await writeJournal(deps.archiveDir, file, records);
        await commitJournal(deps.archiveDir, journal);
        const removed = await Promise.all(records.map(({ ticket }) => deps.store.remove(ticket, rawKey(deps.prefix, ticket.id), { version: ticket.version })));
        // A ticket reopened or changed between the read and the removal ('moved') stays in Redis and leaves the
        // archive again; the next run archives it as it is then.
        const reopened = new Set(records.filter((_, j) => removed[j] === 'moved').map(({ ticket }) => ticket.id));
        for (const { ticket } of records) if (!reopened.has(ticket.id)) archivedIds.push(ticket.id);
        await dropArchivedCopies(deps, file, reopened);
        await clearJournal(deps.archiveDir);
        result.ticketsArchived += records.length - reopened.size;
        files.add(file);
      }
      await lock.renew();
    }
  }
  result.archiveFiles = [...files].sort();
  // The knowledge gaps quote the questions of the tickets they count: those of tickets gone from Redis go too (a gap
  // left with no example goes whole; counts stay), or the customers' words would outlive TICKET_RETENTION_DAYS.
  await new GapStore(deps.redis, { prefix: deps.prefix }).forgetTickets(archivedIds);
}

async function dropExpiredRawMail(deps: RetentionDeps, cutoff: number, lock: RedisLock, result: RetentionResult): Promise<void> {
  for (const state of SETTLED_STATES) {
    const ids = await candidateIds(deps.store, state, cutoff);
    for (let i = 0; i < ids.length; i += ID_PAGE) {
      const page = ids.slice(i, i + ID_PAGE);
      const exists = deps.redis.pipeline();
      for (const id of page) exists.exists(rawKey(deps.prefix, id));
      const held = ((await exists.exec()) ?? []).flatMap(([err, n], j) => {
        if (err) throw err;
        return n === 1 ? [page[j]!] : [];
      });
      // Only tickets that still hold a raw mail are read: after the first run that is about one day's worth.
      const expired = (await deps.store.getMany(held, { agentResult: false })).filter((t) => isExpired(t, cutoff));
      if (expired.length > 0) result.rawMailsDropped += await deps.redis.del(...expired.map((t) => rawKey(deps.prefix, t.id)));
      await lock.renew();
    }
  }
}

/**
 * One retention run: completes an interrupted archive append, archives (and removes from Redis) the final tickets
 * older than `policy.ticketDays`, then drops the raw mail of final tickets older than `policy.rawMailDays`.
 * Idempotent: a second run right after the first finds nothing to do.
 *
 * @throws {@link RetentionBusyError} when another run or an erasure holds the lock (the job is retried later).
 */
export async function runRetention(deps: RetentionDeps, policy: RetentionPolicy): Promise<RetentionResult> {
  const now = deps.now?.() ?? new Date();
  const ticketCutoff = retentionCutoff(now, policy.ticketDays);
  const rawCutoff = retentionCutoff(now, policy.rawMailDays);
  const lock = await acquireLock(deps.redis, deps.prefix, 'retention', 0);
  try {
    const result: RetentionResult = { rawMailsDropped: 0, ticketsArchived: 0, archiveFiles: [], recovered: await recoverPendingAppend(deps) };
    await archiveExpiredTickets(deps, ticketCutoff, now, lock, result);
    await dropExpiredRawMail(deps, rawCutoff, lock, result);
    return result;
  } finally {
    await lock.release();
  }
}

// ------------------------------------------------------------------------------------------------------------------
// Erasure on request.

/** The comparable form of the customer address to erase, or `undefined` when `value` holds no address. */
export function customerAddress(value: string): string | undefined {
  const address = comparableAddress(value);
  return address && address.includes('@') ? address : undefined;
}

/**
 * True when the ticket's sender or reply address is `address` (a {@link customerAddress}), or when it is a bounce
 * whose report names `address` as the recipient: it quotes the mail to the customer.
 */
export function isCustomersTicket(ticket: Pick<Ticket, 'from' | 'replyTo' | 'deliveryReport'>, address: string): boolean {
  return [ticket.from, ticket.replyTo, ticket.deliveryReport?.recipient].some((a) => typeof a === 'string' && a !== '' && comparableAddress(a) === address);
}

/** One ticket an erasure covers. */
export interface ForgottenTicket {
  id: string;
  state: TicketState;
  from: string;
  replyTo: string;
  subject: string;
  createdAt: string;
  /** True when it had a raw mail in Redis. */
  rawMail: boolean;
}

/** What {@link forgetCustomer} removed (or, for a dry run, would remove). */
export interface ForgetReport {
  /** The address compared (see {@link customerAddress}). */
  address: string;
  /** Tickets in Redis. */
  tickets: ForgottenTicket[];
  /** Lines per archive file. */
  archiveLines: { file: string; tickets: string[] }[];
  /** Thread-index links (Message-ID → ticket) besides the tickets' own. */
  threadLinks: number;
  /** Rate-limit windows of the customer's addresses, and the marks of their recent questions (repeated-question.ts). */
  rateLimitKeys: string[];
  /** Learned-answer candidates proposed from the customer's tickets and not yet accepted or discarded. */
  learnedCandidates: number[];
  /**
   * Accepted learned pairs built from the customer's tickets. They stay (an operator read and accepted their text);
   * listed because once the tickets are gone nothing else leads from the customer to them.
   */
  learnedPairs: number[];
  /**
   * Knowledge gaps that count, quote or were closed by the customer's tickets. Their questions are the customer's
   * words: those go, and a gap left with no example goes whole.
   */
  knowledgeGaps: string[];
  /**
   * Reviews in the sources' trust records that name the customer by a digest of their address (trust counts one
   * review per customer): the digest goes, the review stays.
   */
  trustReviews: number;
  /** False for a dry run: nothing was changed. */
  removed: boolean;
}

async function findCustomersTickets(deps: RetentionDeps, address: string): Promise<Ticket[]> {
  const found: Ticket[] = [];
  for (let offset = 0; ; offset += ID_PAGE) {
    const ids = await deps.store.allIds(ID_PAGE, offset);
    for (const ticket of await deps.store.getMany(ids, { agentResult: false })) if (isCustomersTicket(ticket, address)) found.push(ticket);
    if (ids.length < ID_PAGE) break;
  }
  // A bounce written as prose names no recipient a report could be matched by, but it quotes our reply to the
  // customer: it is found through the reply it marked.
  const known = new Set(found.map((t) => t.id));
  const reports = [...new Set(found.flatMap((t) => (t.replyBounce ? [t.replyBounce.reportTicketId] : [])))].filter((id) => !known.has(id));
  if (reports.length > 0) found.push(...(await deps.store.getMany(reports, { agentResult: false })));
  return found;
}

async function existingKeys(redis: Redis, keys: readonly string[]): Promise<boolean[]> {
  if (keys.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.exists(key);
  return ((await pipeline.exec()) ?? []).map(([err, n]) => {
    if (err) throw err;
    return n === 1;
  });
}

/** Every Message-ID link in the thread index that points at one of `ids` (HSCAN: erasures are rare). */
async function threadLinksTo(deps: RetentionDeps, ids: ReadonlySet<string>): Promise<string[]> {
  const fields: string[] = [];
  if (ids.size === 0) return fields;
  let cursor = '0';
  do {
    const [next, flat] = await deps.redis.hscan(deps.store.keys().msgid, cursor, 'COUNT', 1000);
    for (let i = 0; i + 1 < flat.length; i += 2) if (ids.has(flat[i + 1]!)) fields.push(flat[i]!);
    cursor = next;
  } while (cursor !== '0');
  return fields;
}

function rateLimitKeysOf(prefix: string, addresses: Iterable<string>): string[] {
  const keys = new Set<string>();
  for (const a of addresses) {
    if (!a) continue;
    keys.add(autoReplyKey(prefix, a));
    keys.add(autoReplyRecipientKey(prefix, a));
    // Both of the sender's agent-run windows: of authenticated mail and of the rest, since a ticket's run counted in either.
    for (const window of ['authenticated', 'unauthenticated'] as const) keys.add(agentRunKey(prefix, a, window));
  }
  return [...keys];
}

/**
 * The agent-run windows of the organisation domains of `addresses` (a run counts in its From's), both of each: of
 * authenticated mail and of the rest, since a ticket's run counted in either.
 */
function agentRunDomainKeysOf(prefix: string, addresses: Iterable<string>): string[] {
  const keys = new Set<string>();
  for (const a of addresses) {
    const domain = a ? agentRunDomainOf(a) : undefined;
    if (domain) for (const window of ['authenticated', 'unauthenticated'] as const) keys.add(agentRunDomainKey(prefix, domain, window));
  }
  return [...keys];
}

function summary(ticket: Ticket, rawMail: boolean): ForgottenTicket {
  return { id: ticket.id, state: ticket.state, from: ticket.from, replyTo: ticket.replyTo, subject: ticket.subject, createdAt: ticket.createdAt, rawMail };
}

/** Options of {@link forgetCustomer}. */
export interface ForgetOptions {
  /** Remove for real; without it nothing changes and the report says what would go. */
  confirm: boolean;
  /** How long to wait for a running retention job (ms); default one minute. */
  lockWaitMs?: number;
}

/**
 * Erases a customer: see the module comment for what is covered. With `confirm: false` it only reports. The lock is
 * held for the whole erasure, so the retention job cannot archive a ticket of this customer in between.
 *
 * The tickets (in Redis and in the archive) are what finds everything else, so they go last: what derives from them
 * (gap examples, candidates, counts, jobs, links) is removed first, each step safe to repeat, and an erasure that
 * failed half way (Redis gone, a write refused) is completed by running it again.
 *
 * @param value the customer's address (`a@b` or `Name <a@b>`).
 * @throws TypeError when `value` holds no address; {@link RetentionBusyError} when the lock stays taken.
 */
export async function forgetCustomer(deps: ForgetDeps, value: string, options: ForgetOptions): Promise<ForgetReport> {
  const address = customerAddress(value);
  if (!address) throw new TypeError(`not a mail address: ${JSON.stringify(value)}`);
  const lock = await acquireLock(deps.redis, deps.prefix, 'forget', options.lockWaitMs ?? 60_000);
  try {
    // An interrupted append may hold this customer's tickets half in Redis, half in the archive: finish it first.
    if (options.confirm) await recoverPendingAppend(deps);
    const tickets = await findCustomersTickets(deps, address);
    const raw = await existingKeys(deps.redis, tickets.map((t) => rawKey(deps.prefix, t.id)));
    const report: ForgetReport = {
      address,
      tickets: tickets.map((t, i) => summary(t, raw[i] ?? false)),
      archiveLines: [],
      threadLinks: 0,
      rateLimitKeys: [],
      learnedCandidates: [],
      learnedPairs: [],
      knowledgeGaps: [],
      trustReviews: 0,
      removed: options.confirm,
    };
    // Rate-limit windows are keyed by the address as written (lower-cased), so every spelling seen gets its window checked.
    const addresses = new Set([address, normaliseAddress(value) ?? address, ...tickets.flatMap((t) => [t.from, t.replyTo])]);
    // Archived bounces of their replies go too (see findCustomersTickets); those of replies archived themselves are
    // rare enough to be left to the address match.
    const reportIds = new Set(tickets.flatMap((t) => (t.replyBounce ? [t.replyBounce.reportTicketId] : [])));
    const drop = (record: ArchiveRecord | undefined, line: string) =>
      record ? isCustomersTicket(record.ticket, address) || reportIds.has(record.ticket.id) : line.toLowerCase().includes(address);
    const archived: Ticket[] = [];
    const archiveFiles: string[] = [];
    for (const file of await listArchiveFiles(deps.archiveDir)) {
      const matched: ArchiveRecord[] = [];
      await readArchive(path.join(deps.archiveDir, file), (record, line) => void (drop(record, line) && matched.push(record)));
      for (const { ticket } of matched) addresses.add(ticket.from).add(ticket.replyTo);
      if (matched.length > 0) {
        report.archiveLines.push({ file, tickets: matched.map((r) => r.ticket.id) });
        archived.push(...matched.map((r) => r.ticket));
        archiveFiles.push(file);
      }
      await lock.renew();
    }
    // A question's mark is keyed by a digest of the reply address and the question, or, when claimed before that, of
    // the From: each of the customer's tickets names one or two.
    const limitKeys = [...rateLimitKeysOf(deps.prefix, addresses), ...new Set([...tickets, ...archived].flatMap((t) => repeatedQuestionKeys(deps.prefix, t)))];
    const existing = await existingKeys(deps.redis, limitKeys);
    report.rateLimitKeys = limitKeys.filter((_, i) => existing[i]);
    const ids = new Set([...tickets.map((t) => t.id), ...archived.map((t) => t.id)]);
    const ownLinks = new Set(tickets.flatMap((t) => [t.messageId, t.outbound?.messageId]));
    const links = await threadLinksTo(deps, ids);
    report.threadLinks = links.filter((l) => !ownLinks.has(l)).length;
    const learned = new LearnedAnswerStore(deps.redis, { prefix: deps.prefix });
    report.learnedCandidates = await learned.candidatesOfTickets(ids, { remove: false });
    report.learnedPairs = (await learned.pairs()).filter((p) => p.ticketIds.some((id) => ids.has(id))).map((p) => p.id);
    const gaps = new GapStore(deps.redis, { prefix: deps.prefix });
    report.knowledgeGaps = (await gaps.gapsOfTickets(ids)).map((g) => g.id);
    report.trustReviews = await forgetReviewSenders(deps.redis, deps.prefix, ids, { dryRun: true });
    if (!options.confirm) return report;

    // 1. What derives from the tickets. The tickets are marked erased first (src/tickets/erased.ts): no write of a
    //    job running now (a proposal, a knowledge-gap example, a reply window, a question claim, a sent reply's bytes;
    //    each checks the mark in the same script) can store anything of them afterwards, even while the tickets
    //    themselves are still there, and the queue workers remove such a job and its events when it ends. So the mark
    //    comes before anything is read: what was written before it is found and cleaned, what comes after is refused.
    //    The knowledge gaps keep questions, which the personal-data rules cannot be sure to have cleaned.
    if (ids.size > 0) await deps.redis.sadd(erasedTicketsKey(deps.prefix), ...ids);
    report.learnedCandidates = await learned.candidatesOfTickets(ids, { remove: true });
    await gaps.forgetTickets(ids);
    report.trustReviews = await forgetReviewSenders(deps.redis, deps.prefix, ids);
    for (const ticket of [...tickets, ...archived]) await forgetRejectionReason(deps, ticket);
    if (deps.queues) await removeJobsOf(deps.redis, deps.queues, [...tickets, ...archived]);
    const cleanup = deps.redis.multi();
    if (ids.size > 0) cleanup.del(...[...ids].map((id) => sentRawKey(deps.prefix, id)));
    if (links.length > 0) cleanup.hdel(deps.store.keys().msgid, ...links);
    // Tickets keyed apart from a reused Message-ID are listed under it (TicketStore `reused`); removing a ticket takes
    // it off, and the archived ones were taken off when archived: this catches what an interrupted removal left.
    for (const t of [...tickets, ...archived]) if (t.mailMessageId) cleanup.zrem(deps.store.keys().reused(t.mailMessageId), t.id);
    if (report.rateLimitKeys.length > 0) cleanup.del(...report.rateLimitKeys);
    // The overall windows (both agent-run totals: of authenticated mail and of the rest, since a ticket's run counted
    // in either), and the agent-run windows of the senders' organisation domains (shared with the customer's
    // colleagues, so kept), count replies and agent runs by ticket id; the ids go too, though the windows forget them
    // within the hour.
    if (ids.size > 0) {
      cleanup.zrem(autoReplyTotalKey(deps.prefix), ...ids);
      for (const window of ['authenticated', 'unauthenticated'] as const) cleanup.zrem(agentRunTotalKey(deps.prefix, window), ...ids);
      for (const key of agentRunDomainKeysOf(deps.prefix, addresses)) cleanup.zrem(key, ...ids);
    }
    await execAll(cleanup);
    await lock.renew();

    // 2. The tickets themselves: the archive lines, then Redis.
    for (const file of archiveFiles) {
      await rewriteArchive(deps.archiveDir, file, drop);
      await lock.renew();
    }
    for (const ticket of tickets) {
      let current: Ticket | undefined = ticket;
      // A ticket that changed state between the read and the delete is read again; it is this customer's either way.
      for (let attempt = 0; current; attempt++) {
        if ((await deps.store.remove(current, rawKey(deps.prefix, current.id))) !== 'moved') break;
        if (attempt >= 16) throw new Error(`ticket ${current.id} keeps changing state; stop the workers and run forget again`);
        current = await deps.store.get(current.id, { agentResult: false });
      }
    }
    return report;
  } finally {
    await lock.release();
  }
}

/** What {@link forgetCustomer} reaches: the retention's stores and, to remove the tickets' jobs, the queues. */
export interface ForgetDeps extends RetentionDeps {
  /**
   * The queues whose jobs name the tickets: their return values and errors may quote the customer's address (a
   * reason, an SMTP server's refusal) and BullMQ keeps finished jobs for days. Without them the jobs stay until
   * BullMQ drops them.
   */
  queues?: Pick<Queues, 'tickets' | 'outbound' | 'sentcopy'>;
}

/** Where the rejection reasons of erased tickets count from then on: the count stays, the operator's words go. */
export const ERASED_REASON_FIELD = 'rej:(erased on request)';

// The reason field of an erased ticket's day moves to ERASED_REASON_FIELD once per ticket: the erased ids are
// remembered for a month, so running an erasure again (after a failure) never moves another ticket's count.
const FORGET_REASON = new LuaScript(
  `
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then return 0 end
if redis.call('HINCRBY', KEYS[1], ARGV[2], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[2]) end
redis.call('HINCRBY', KEYS[1], ARGV[3], 1)
return 1
`,
  2,
);

/** The rejection reason an operator wrote counts in the day's insights by its words (`rej:<reason>`). */
async function forgetRejectionReason(deps: RetentionDeps, ticket: Ticket): Promise<void> {
  const outcome = ticket.outcome;
  if (outcome?.kind !== 'rejected') return;
  // The day it was counted on, as stored with it: recomputed in this process's zone it may be the next or previous day.
  const day = outcomeKeys(deps.prefix).day(countedDay(outcome));
  const field = `rej:${normalizeReason(outcome.reason)}`;
  if (field === ERASED_REASON_FIELD) return;
  await FORGET_REASON.run(deps.redis, [day, `${deps.prefix}:forget:reasons`], [ticket.id, field, ERASED_REASON_FIELD, 30 * DAY_MS]);
}

/** Every job a ticket's rounds can have had (one per generation and kind), removed whatever its state. */
async function removeJobsOf(redis: Redis, queues: Pick<Queues, 'tickets' | 'outbound' | 'sentcopy'>, tickets: readonly Ticket[]): Promise<void> {
  for (const ticket of tickets) {
    // A job is named by the generation it was enqueued in; one past the last state change covers a job just added.
    for (let generation = 1; generation <= ticket.history.length + 1; generation++) {
      await Promise.all([
        queues.tickets.remove(answerJobId(ticket.id, generation)),
        queues.tickets.remove(proposeLearnedJobId(ticket.id, generation)),
        queues.outbound.remove(sendJobId(ticket.id, generation)),
        queues.sentcopy.remove(sentCopyJobId(ticket.id, generation)),
      ]);
    }
  }
  // BullMQ's event stream of each queue keeps what its jobs returned and why they failed (a parked ticket's reason
  // names the address) well after the jobs are gone: the entries of these tickets' jobs go too. Deleted one by one
  // rather than bounded by a shorter `streams.events.maxLen`: BullMQ trims by count, so a quiet mailbox would keep
  // the entries for weeks whatever the length, and an erasure must not wait for traffic.
  const ids = [...new Set(tickets.map((t) => t.id))];
  if (ids.length === 0) return;
  const ofTickets = (jobId: string) => ids.some((id) => jobId.includes(id));
  await Promise.all([queues.tickets, queues.outbound, queues.sentcopy].map((queue) => removeJobEvents(redis, queue.keys.events ?? queue.toKey('events'), ofTickets)));
}

/**
 * The command that erases a customer, as the dashboard shows it, quoted for a POSIX shell: addresses may hold
 * characters a shell would act on (`'`, `$`, `&`), and a pasted command must erase that address and do nothing else.
 */
export function forgetCommand(address: string): string {
  const quoted = /^[A-Za-z0-9@._+=-]+$/.test(address) ? address : `'${address.replaceAll("'", `'\\''`)}'`;
  return `npm run review -- forget ${quoted}`;
}
