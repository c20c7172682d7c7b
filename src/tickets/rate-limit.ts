/**
 * Automatic replies per sender per hour, so that a mail loop or a chatty sender cannot make the worker send an
 * unbounded number of replies. When the limit is reached, further mail from that sender is parked for a person.
 *
 * Choice: a sliding window over a sorted set per sender (member = ticket id, score = time of queueing in ms)
 * rather than a fixed hourly counter. A fixed window lets twice the limit through around the top of the hour; the
 * sliding one never allows more than the limit in any 60 minutes. Using the ticket id as member makes recording
 * idempotent: a retried or duplicated record of the same reply counts once.
 *
 * When it counts: a reply counts when it is queued for automatic sending ({@link recordAutoReply}), not when the
 * agent drafts it (a parked draft sends nothing) and not when SMTP accepts it (a reply stuck in retries must
 * still count, or a loop could queue many before the first goes out). Replies a person approved do not count.
 *
 * `autoReplyAllowed` only reads (for the agent worker's early "park instead of drafting" decision); the binding
 * check is {@link recordAutoReply} with `limitPerHour`, which checks and records in one atomic script so two
 * concurrent tickets of one sender cannot both take the last slot.
 *
 * A limit of 0 allows no automatic replies at all (every mail is parked).
 *
 * Key: `P:ratelimit:auto-reply:<sha256 of the lower-cased address>` (hashed so arbitrary header text never becomes
 * part of a key name); it expires one window after the last record, so idle senders cost nothing.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LuaScript } from './lua.js';

/** Length of the sliding window. */
export const AUTO_REPLY_WINDOW_MS = 60 * 60 * 1000;

/** Result of {@link autoReplyAllowed}. */
export interface AutoReplyCheck {
  /** True when one more automatic reply stays within the limit. */
  allowed: boolean;
  /** Automatic replies to this sender queued in the last hour. */
  count: number;
}

/** Result of {@link recordAutoReply}. */
export interface AutoReplyRecord {
  /** True when the reply is (now or already) counted; false when the limit refused it. */
  recorded: boolean;
  /** Automatic replies to this sender in the window, including this one when recorded. */
  count: number;
}

/** The Redis key of one sender's window. */
export function autoReplyKey(prefix: string, senderAddress: string): string {
  const digest = createHash('sha256').update(senderAddress.trim().toLowerCase()).digest('hex');
  return `${prefix}:ratelimit:auto-reply:${digest}`;
}

// KEYS[1] window; ARGV: now, window ms, limit (-1 = none), member.
// Trims expired entries, then adds the member unless the limit is reached (a member already present is kept,
// since that reply was counted before). Returns {recorded 0/1, count}.
const RECORD = new LuaScript(
  `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZSCORE', KEYS[1], ARGV[4]) then
  return {1, redis.call('ZCARD', KEYS[1])}
end
local count = redis.call('ZCARD', KEYS[1])
if limit >= 0 and count >= limit then return {0, count} end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
return {1, count + 1}
`,
  1,
);

/**
 * Whether one more automatic reply to `senderAddress` stays within `limitPerHour` (read only).
 * Entries are counted when their time is within the last hour, the window's oldest edge excluded.
 */
export async function autoReplyAllowed(
  redis: Redis,
  prefix: string,
  senderAddress: string,
  limitPerHour: number,
  now: number = Date.now(),
): Promise<AutoReplyCheck> {
  const count = await redis.zcount(autoReplyKey(prefix, senderAddress), `(${now - AUTO_REPLY_WINDOW_MS}`, '+inf');
  return { allowed: count < limitPerHour, count };
}

/**
 * Counts an automatic reply to `senderAddress` for ticket `ticketId`; call it when the reply is queued for
 * sending. With `limitPerHour` the reply is recorded only while the window has room (atomically); without it,
 * it is always recorded. Recording the same ticket twice counts once.
 */
export async function recordAutoReply(
  redis: Redis,
  prefix: string,
  senderAddress: string,
  ticketId: string,
  options: { limitPerHour?: number; now?: number } = {},
): Promise<AutoReplyRecord> {
  const now = options.now ?? Date.now();
  const limit = options.limitPerHour ?? -1;
  const [recorded, count] = (await RECORD.run(
    redis,
    [autoReplyKey(prefix, senderAddress)],
    [now, AUTO_REPLY_WINDOW_MS, limit, ticketId],
  )) as [number, number];
  return { recorded: recorded === 1, count };
}
