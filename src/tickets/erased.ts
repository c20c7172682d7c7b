/**
 * Tickets erased on request (`npm run review -- forget`, src/tickets/retention.ts), and what keeps a job of one of
 * them that was running during the erasure from bringing something of the customer back when it ends after it.
 *
 * The erasure marks the ticket ids in one set before it removes anything. Every write of what derives from a ticket
 * checks the mark in the same Lua script as the write, so a job that read the ticket before the erasure and writes
 * after it stores nothing: learned-answer candidates, knowledge-gap examples, the automatic-reply windows, the
 * repeated-question claims and the bytes a sent reply keeps for its Sent-folder copy. Writes of the ticket itself
 * (compare-and-set on its version) and of its Message-ID links need the ticket, which is gone.
 *
 * What BullMQ stores when a job ends — its return value or error in the job's hash, and an entry in the queue's event
 * stream — is no write of ours, and both can quote the customer (a parked ticket's reason names the address). The
 * erasure removes the jobs it can, but not a running one (BullMQ keeps its lock), so the queue worker removes a job of
 * an erased ticket, and its events, once it ends ({@link removeErasedTicketJob}).
 *
 * Key (P = QUEUE_PREFIX): `P:learned:erased`, a set of ticket ids; named for the learned answers, which checked it
 * first. The ids stay: a ticket id is a digest of a Message-ID and names nobody, and a job may come late.
 */
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';

/** The Redis key of the set of ticket ids erased on request. */
export function erasedTicketsKey(prefix: string): string {
  if (!prefix) throw new TypeError('erasedTicketsKey: prefix is required');
  return `${prefix}:learned:erased`;
}

/** Entries of a queue's event stream read per round trip. */
const EVENT_PAGE = 1_000;

/**
 * Deletes the entries of a BullMQ event stream (`key`, e.g. `P:tickets:events`) whose job id `ofJob` accepts. The
 * stream holds at most BullMQ's `streams.events.maxLen` entries (10,000 by default), so reading it whole is bounded.
 */
export async function removeJobEvents(redis: Redis, key: string, ofJob: (jobId: string) => boolean): Promise<void> {
  for (let start = '-'; ; ) {
    const page = await redis.xrange(key, start, '+', 'COUNT', EVENT_PAGE);
    const doomed = page.filter(([, fields]) => {
      // Fields come as name, value pairs: a value that happens to read `jobId` is not the field.
      const at = fields.indexOf('jobId');
      return at >= 0 && at % 2 === 0 && ofJob(fields[at + 1] ?? '');
    });
    if (doomed.length > 0) await redis.xdel(key, ...doomed.map(([id]) => id));
    if (page.length < EVENT_PAGE) return;
    // The next page starts after the last entry read ('(' is exclusive).
    start = `(${page[page.length - 1]![0]}`;
  }
}

/**
 * Removes a job that just ended, and its entries in the queue's event stream `eventsKey`, when the ticket its data
 * names was erased on request; returns whether it did. A job that is running again already (a retry picked it up)
 * is left to the end of that run.
 */
export async function removeErasedTicketJob(redis: Redis, prefix: string, eventsKey: string, job: Pick<Job, 'id' | 'data' | 'remove' | 'isActive'>): Promise<boolean> {
  const ticketId = (job.data as { ticketId?: unknown } | undefined)?.ticketId;
  const jobId = job.id;
  if (typeof ticketId !== 'string' || !jobId) return false;
  if ((await redis.sismember(erasedTicketsKey(prefix), ticketId)) === 0) return false;
  try {
    await job.remove();
  } catch (err) {
    if (await job.isActive()) return false;
    throw err;
  }
  await removeJobEvents(redis, eventsKey, (id) => id === jobId);
  return true;
}
