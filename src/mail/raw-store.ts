/**
 * The raw bytes of every inbound mail, kept until its ticket no longer needs them.
 *
 * Why Redis and not files under DATA_DIR: agent workers run on other machines than the poller and all of them
 * already share Redis, which (with AOF, as the queues require anyway) is durable. A file on the poller's disk would
 * need a shared volume or a fetch service, and would be a second store whose writes are not ordered with the queue's.
 * Here the order is simple: the poller writes the raw mail, then the ticket, then the job; a job therefore never
 * names a mail whose bytes are missing, and a crash in between leaves at most an unreferenced copy that the next
 * poll of the same (still unseen) mail reuses.
 *
 * Cost: mail sits in Redis memory until {@link deleteRaw} (retention: settled plus RAW_MAIL_RETENTION_DAYS; a parked
 * ticket's for as long as it stays parked); the poller refuses mail over MAX_EMAIL_BYTES (it becomes a parked ticket
 * without a download), so one entry is bounded by that. And since Redis runs with `noeviction`, a full Redis refuses
 * every write of the desk, so what strangers can make it hold is bounded too ({@link keepRaw}): one sender's mail, and
 * one organisation domain's, per hour (a sliding window: RAW_MAIL_BYTES_PER_SENDER_PER_HOUR,
 * RAW_MAIL_BYTES_PER_DOMAIN_PER_HOUR), and all raw mail by Redis's memory as Redis reports it
 * (RAW_MAIL_REDIS_MEMORY_PERCENT of maxmemory). Measured rather than counted: a running total of raw bytes would have
 * to follow every deletion (retention, erasure, the archive), and would still miss what else fills Redis. A mail over
 * a bound keeps no raw copy; ingest parks its ticket, whose text was taken from the mail before (the mail itself stays
 * in the mailbox).
 *
 * Key layout (P = QUEUE_PREFIX; no queue is named `raw` or `rawbudget`, so BullMQ's `P:<queue>:…` keys cannot
 * collide):
 *
 * | key                            | type   | content                                                           |
 * |--------------------------------|--------|-------------------------------------------------------------------|
 * | `P:raw:<ticketId>`             | string | the mail exactly as IMAP gave it                                  |
 * | `P:rawbudget:sender:<digest>`  | hash   | minute (epoch ms / 60,000) → bytes of raw mail kept of one sender |
 * | `P:rawbudget:domain:<digest>`  | hash   | the same for one organisation's domain                            |
 *
 * The budget hashes hold sizes only (no ticket id, no address: a digest), have at most 60 fields, and go an hour after
 * the last mail they counted.
 *
 * `Ticket.rawRef` holds `redis:P:raw:<ticketId>` ({@link rawRefFor}); readers use {@link loadRaw} with the ticket id.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { comparableAddress, domainOf } from './addresses.js';
import { organisationDomain } from './classify.js';
import { isSharedMailDomain } from './shared-mail-domains.js';
import { LuaScript } from '../tickets/lua.js';

/** Scheme of {@link rawRefFor}: tells a Redis-held raw mail apart from any other kind of reference. */
export const RAW_REF_SCHEME = 'redis:';

/** The Redis key holding the raw mail of a ticket. */
export function rawKey(prefix: string, ticketId: string): string {
  if (!prefix) throw new TypeError('rawKey: prefix is required');
  if (!ticketId) throw new TypeError('rawKey: ticketId is required');
  return `${prefix}:raw:${ticketId}`;
}

/** The value stored in `Ticket.rawRef` for a raw mail held by this module: `redis:<key>`. */
export function rawRefFor(prefix: string, ticketId: string): string {
  return `${RAW_REF_SCHEME}${rawKey(prefix, ticketId)}`;
}

/**
 * Stores the raw mail of a ticket unless a copy is already there, and returns whether this call wrote it.
 *
 * First copy wins (SET NX): the same Message-ID seen again maps to the same ticket, whose history began with the
 * first copy; a later re-delivery (possibly with other trace headers) must not change what the ticket refers to.
 */
export async function saveRaw(redis: Redis, prefix: string, ticketId: string, raw: Buffer): Promise<boolean> {
  if (!Buffer.isBuffer(raw)) throw new TypeError('saveRaw: raw must be a Buffer');
  const reply = await redis.set(rawKey(prefix, ticketId), raw, 'NX');
  return reply === 'OK';
}

/** The raw mail of a ticket, or `undefined` when none is stored (never stored, or already deleted). */
export async function loadRaw(redis: Redis, prefix: string, ticketId: string): Promise<Buffer | undefined> {
  const raw = await redis.getBuffer(rawKey(prefix, ticketId));
  return raw ?? undefined;
}

/** Deletes the raw mail of a ticket; returns whether there was one. Idempotent. */
export async function deleteRaw(redis: Redis, prefix: string, ticketId: string): Promise<boolean> {
  return (await redis.del(rawKey(prefix, ticketId))) === 1;
}

/** Length of the window RAW_MAIL_BYTES_PER_SENDER_PER_HOUR and RAW_MAIL_BYTES_PER_DOMAIN_PER_HOUR count in. */
export const RAW_BUDGET_WINDOW_MS = 60 * 60 * 1000;
/**
 * The window's steps: bytes are summed per minute, so a budget hash has at most 60 fields however many mails it
 * counts, and a mail's bytes leave the window 59 to 60 minutes after it was kept.
 */
const RAW_BUDGET_BUCKET_MS = 60 * 1000;

/** How much raw mail may be kept: RAW_MAIL_BYTES_PER_SENDER_PER_HOUR, …_PER_DOMAIN_PER_HOUR, RAW_MAIL_REDIS_MEMORY_PERCENT. */
export interface RawMailBudgets {
  /** Bytes of one sender's mail per hour. */
  perSender: number;
  /** Bytes of the mail of one organisation's domain per hour. */
  perDomain: number;
  /** Share (1–100) of Redis's memory that used memory, a new raw mail included, may reach. */
  memoryPercent: number;
}

/** The digest a budget key names an address or a domain by: key names never hold header text. */
function budgetDigest(kind: string, value: string): string {
  return createHash('sha256').update(`raw-budget\0${kind}\0${value}`).digest('hex');
}

/** The sender a budget counts for: the comparable form of the address (case, `+tag`, IDN folded); '' for none. */
function budgetSender(address: string): string {
  return comparableAddress(address) ?? address.trim().toLowerCase();
}

/**
 * The organisation domain whose senders share a budget (`mail.corp.example` and `corp.example` count as `corp.example`;
 * IDN as punycode), or undefined when there is none: no address, or a shared mail provider's domain, where strangers
 * hold the mailboxes (one of them must not spend the others' budget). The agent-run limit's domain window
 * (src/tickets/rate-limit.ts) reads senders the same way.
 */
export function budgetDomainOf(address: string): string | undefined {
  const domain = domainOf(budgetSender(address));
  if (!domain) return undefined;
  const organisation = organisationDomain(domain);
  return isSharedMailDomain(domain) || isSharedMailDomain(organisation) ? undefined : organisation;
}

/** The Redis key of one sender's budget window ('' names mail without a sender address: all of it shares one). */
export function rawBudgetSenderKey(prefix: string, address: string): string {
  return `${prefix}:rawbudget:sender:${budgetDigest('sender', budgetSender(address))}`;
}

/** The Redis key of one organisation domain's budget window. */
export function rawBudgetDomainKey(prefix: string, domain: string): string {
  return `${prefix}:rawbudget:domain:${budgetDigest('domain', domain.toLowerCase())}`;
}

/** Redis's memory, from `INFO memory`. */
export interface RedisMemory {
  /** `used_memory`. */
  used: number;
  /** What Redis may use at most: `maxmemory`, else the machine's memory (`total_system_memory`). */
  max: number;
  /** Where {@link RedisMemory.max} comes from. */
  source: 'maxmemory' | 'system';
}

/**
 * Redis's used and usable memory from the text of `INFO memory`, or undefined when it does not say. Without
 * maxmemory Redis grows until the machine has no memory left (and the kernel kills it, or it refuses writes once the
 * allocator fails), so the machine's memory is what bounds it then.
 */
export function redisMemoryOf(info: string): RedisMemory | undefined {
  const field = (name: string): number | undefined => {
    const match = new RegExp(`^${name}:(\\d+)\\s*$`, 'm').exec(info);
    return match ? Number(match[1]) : undefined;
  };
  const used = field('used_memory');
  const maxmemory = field('maxmemory') ?? 0;
  const system = field('total_system_memory') ?? 0;
  if (used === undefined) return undefined;
  if (maxmemory > 0) return { used, max: maxmemory, source: 'maxmemory' };
  return system > 0 ? { used, max: system, source: 'system' } : undefined;
}

/** Why a raw mail would take Redis past RAW_MAIL_REDIS_MEMORY_PERCENT: the figures a reason names. */
export interface MemoryRefusal extends RedisMemory {
  /** Bytes of the mail. */
  size: number;
  /** {@link RedisMemory.max} times the percentage: what used memory may reach with raw mail. */
  limit: number;
  percent: number;
}

/**
 * Raw mail of at most this many bytes is never refused on the memory bound: its ticket (question, mail text, signals)
 * costs Redis about as much, so refusing it saves little, and a mail without its raw copy is parked unchecked (an
 * out-of-office reply or a bounce then waits for a person). The per-sender and per-domain budgets still count it.
 */
export const SMALL_RAW_MAIL_BYTES = 256 * 1024;

/**
 * The share of Redis's memory past which even small raw mail ({@link SMALL_RAW_MAIL_BYTES}) is not kept: many senders,
 * each within their own budget, must not take Redis to its maxmemory, where every write of the desk fails.
 */
export const SMALL_RAW_MAIL_CEILING_PERCENT = 95;

/**
 * Why keeping `size` more bytes would take Redis past `percent` of its memory, or undefined when it fits or the memory
 * is unknown. A small mail ({@link SMALL_RAW_MAIL_BYTES}) is held to {@link SMALL_RAW_MAIL_CEILING_PERCENT} instead
 * (or `percent`, when higher).
 */
export function rawMailMemoryRefusal(memory: RedisMemory | undefined, size: number, percent: number): MemoryRefusal | undefined {
  if (!memory) return undefined;
  const share = size <= SMALL_RAW_MAIL_BYTES ? Math.max(percent, SMALL_RAW_MAIL_CEILING_PERCENT) : percent;
  const limit = Math.floor((memory.max * share) / 100);
  return memory.used + size > limit ? { ...memory, size, limit, percent: share } : undefined;
}

/** Why {@link keepRaw} kept no raw copy. */
export type RawMailRefusal =
  | {
      by: 'sender';
      /** The sender's address as given ('' for mail without one). */
      sender: string;
      /** Bytes of this sender's mail kept in the last hour. */
      held: number;
      size: number;
      limit: number;
    }
  | { by: 'domain'; domain: string; held: number; size: number; limit: number }
  | ({ by: 'memory' } & MemoryRefusal);

/** Result of {@link keepRaw}. */
export type KeepRawResult =
  | {
      kept: true;
      /** True when this call stored it; false when a copy was there already (the same mail ingested before). */
      wrote: boolean;
    }
  | { kept: false; refusal: RawMailRefusal };

// KEYS: the raw mail, then the budget windows; ARGV: now ms, window ms, bucket ms, size, then one limit per window.
// A copy already stored (the same mail ingested again) counts nothing again; else each window (old minutes dropped)
// must hold the mail, and only then are all of them charged, so a refused mail costs no window anything.
// Returns {1 charged / 2 stored already / 0 refused, the refusing window's 1-based index, its bytes held}.
// The mail itself is stored after it, with SET: passing megabytes through the script would hold them in the Lua
// heap too, memory that maxmemory does not count.
const CHARGE = new LuaScript(
  `
if redis.call('EXISTS', KEYS[1]) == 1 then return {2, 0, 0} end
local now = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local bucketMs = tonumber(ARGV[3])
local size = tonumber(ARGV[4])
local bucket = math.floor(now / bucketMs)
local oldest = bucket - math.floor(windowMs / bucketMs) + 1
for i = 2, #KEYS do
  local fields = redis.call('HGETALL', KEYS[i])
  local held = 0
  for j = 1, #fields, 2 do
    if tonumber(fields[j]) < oldest then
      redis.call('HDEL', KEYS[i], fields[j])
    else
      held = held + tonumber(fields[j + 1])
    end
  end
  if held + size > tonumber(ARGV[3 + i]) then return {0, i - 1, held} end
end
for i = 2, #KEYS do
  redis.call('HINCRBY', KEYS[i], string.format('%d', bucket), size)
  redis.call('PEXPIRE', KEYS[i], windowMs)
end
return {1, 0, 0}
`,
  1,
  true,
);

/** Redis's memory now; undefined when Redis will not say (INFO renamed away or refused by an ACL). */
async function redisMemory(redis: Redis): Promise<RedisMemory | undefined> {
  try {
    return redisMemoryOf(await redis.info('memory'));
  } catch (err) {
    // A refused command is no outage: the per-sender budgets still bound what strangers can make Redis hold.
    if (err instanceof Error && err.name === 'ReplyError') return undefined;
    throw err;
  }
}

/** How old a reading of Redis's memory may be for small mail: refused only near the ceiling, a second is near enough. */
const SMALL_MAIL_READING_MS = 1_000;
const recentReadings = new WeakMap<Redis, { at: number; memory: Promise<RedisMemory | undefined> }>();

/**
 * {@link redisMemory}, read at most once a {@link SMALL_MAIL_READING_MS} per connection: most mail is small, and an INFO
 * round trip and its parse per mail was a measurable share of the poller's time (issue 16).
 */
function recentRedisMemory(redis: Redis, now: number): Promise<RedisMemory | undefined> {
  const last = recentReadings.get(redis);
  if (last && now - last.at >= 0 && now - last.at < SMALL_MAIL_READING_MS) return last.memory;
  const memory = redisMemory(redis);
  recentReadings.set(redis, { at: now, memory });
  // A failed read is not kept: the next mail asks again.
  memory.catch(() => recentReadings.delete(redis));
  return memory;
}

/**
 * Stores the raw mail of a ticket, as {@link saveRaw} does (a copy already there stays, and counts nothing again),
 * when it stays within `budgets`: the bytes of `sender`'s mail and of its organisation domain's ({@link budgetDomainOf})
 * kept in the last hour, and Redis's memory ({@link rawMailMemoryRefusal}). Otherwise stores nothing and says which
 * bound refused it. Checking and charging the windows are one script, so two mails of one sender cannot both take the
 * last room; a crash between the charge and the store counts that mail twice when it is ingested again, which only
 * makes its sender's hour a little shorter.
 */
export async function keepRaw(
  redis: Redis,
  prefix: string,
  ticketId: string,
  raw: Buffer,
  sender: string,
  budgets: RawMailBudgets,
  now: Date = new Date(),
): Promise<KeepRawResult> {
  if (!Buffer.isBuffer(raw)) throw new TypeError('keepRaw: raw must be a Buffer');
  const key = rawKey(prefix, ticketId);
  const reading = raw.length > SMALL_RAW_MAIL_BYTES ? await redisMemory(redis) : await recentRedisMemory(redis, now.getTime());
  const memory = rawMailMemoryRefusal(reading, raw.length, budgets.memoryPercent);
  if (memory) {
    // Stored by an earlier ingest of this mail (a crash before its ticket): those bytes are in memory already.
    return (await redis.exists(key)) === 1 ? { kept: true, wrote: false } : { kept: false, refusal: { by: 'memory', ...memory } };
  }
  const domain = budgetDomainOf(sender);
  const windows: Array<{ key: string; limit: number }> = [
    { key: rawBudgetSenderKey(prefix, sender), limit: budgets.perSender },
    ...(domain ? [{ key: rawBudgetDomainKey(prefix, domain), limit: budgets.perDomain }] : []),
  ];
  const [status, window, held] = (await CHARGE.run(
    redis,
    [key, ...windows.map((w) => w.key)],
    [now.getTime(), RAW_BUDGET_WINDOW_MS, RAW_BUDGET_BUCKET_MS, raw.length, ...windows.map((w) => w.limit)],
  )) as [number, number, number];
  if (status === 2) return { kept: true, wrote: false };
  if (status === 1) return { kept: true, wrote: await saveRaw(redis, prefix, ticketId, raw) };
  if (window === 2 && domain) return { kept: false, refusal: { by: 'domain', domain, held, size: raw.length, limit: budgets.perDomain } };
  return { kept: false, refusal: { by: 'sender', sender, held, size: raw.length, limit: budgets.perSender } };
}
