/**
 * Lock and stall settings of the BullMQ workers, chosen so that a worker that dies without a goodbye (SIGKILL, OOM,
 * a lost machine) has its job picked up again by another worker.
 *
 * How BullMQ recovers a job: the worker holding it renews its lock every `lockDuration / 2`. When the worker dies
 * the lock lapses after at most `lockDuration`; every `stalledInterval` each live worker checks for active jobs
 * without a lock and moves them back to waiting (counting a stall), or fails them once they stalled more than
 * `maxStalledCount` times. A dead worker's job therefore runs again within about `lockDuration + stalledInterval`.
 *
 * - Agent worker: lock 60 s, check every 30 s, 2 stalls allowed → a ticket resumes within ~90 s. An agent run takes
 *   tens of seconds to minutes; its lock stays renewed as long as the event loop turns, and 60 s leaves room for
 *   a busy event loop (a large BM25 search, a GC pause) without a false stall. Two stalls are allowed because the
 *   re-run is safe (the ticket store makes it resume, not repeat); a mail that kills its worker twice is parked.
 * - Sender: lock 30 s, check every 15 s, 1 stall allowed. An SMTP transaction takes seconds; a re-run after a stall
 *   finds the ticket in `sending` and parks it for a person, so allowing more stalls would gain nothing.
 *
 * Tests lower these through the role options (never through the environment).
 */

/** Lock and stall settings of one worker. */
export interface WorkerTimings {
  /** How long a job's lock lasts without renewal. */
  lockDurationMs: number;
  /** How often this worker looks for stalled jobs of its queue. */
  stalledIntervalMs: number;
  /** Stalls after which a job is failed instead of run again. */
  maxStalledCount: number;
}

/** Agent worker (`tickets` queue); see the module comment. */
export const AGENT_WORKER_TIMINGS: WorkerTimings = { lockDurationMs: 60_000, stalledIntervalMs: 30_000, maxStalledCount: 2 };

/** Sender (`outbound` queue); see the module comment. */
export const SENDER_TIMINGS: WorkerTimings = { lockDurationMs: 30_000, stalledIntervalMs: 15_000, maxStalledCount: 1 };

/** BullMQ worker options of {@link WorkerTimings}. */
export function bullmqTimings(t: WorkerTimings): { lockDuration: number; stalledInterval: number; maxStalledCount: number } {
  return { lockDuration: t.lockDurationMs, stalledInterval: t.stalledIntervalMs, maxStalledCount: t.maxStalledCount };
}
