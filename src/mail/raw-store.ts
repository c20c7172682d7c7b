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
 * Cost: mail sits in Redis memory until {@link deleteRaw}; the poller refuses mail over MAX_EMAIL_BYTES (it becomes a
 * parked ticket without a download), so one entry is bounded by that. Size Redis (and keep `noeviction`) for the
 * mail waiting to be answered plus the retention the ticket's owner chooses before deleting it.
 *
 * Key layout (P = QUEUE_PREFIX; no queue is named `raw`, so BullMQ's `P:<queue>:…` keys cannot collide):
 *
 * | key                | type   | content                          |
 * |--------------------|--------|----------------------------------|
 * | `P:raw:<ticketId>` | string | the mail exactly as IMAP gave it |
 *
 * `Ticket.rawRef` holds `redis:P:raw:<ticketId>` ({@link rawRefFor}); readers use {@link loadRaw} with the ticket id.
 */
import type { Redis } from 'ioredis';

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
