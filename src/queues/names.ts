/**
 * Queue and job names: the one list every producer, worker and the startup completeness check use.
 *
 * There is no `park-ticket` job: parking is a ticket-store transition done inside the job that decides it (or by
 * the `failed` listener once a job used up its attempts), so no separate queue round trip is needed and no parked
 * ticket depends on a second job being processed.
 */

/** The queues, keyed by their role. BullMQ queue names must not contain `:`. */
export const QUEUE_NAMES = {
  /** Inbound tickets waiting for the agent, and the learned-answer proposals of approved replies (they need the LLM too). */
  tickets: 'tickets',
  /** Replies waiting for SMTP. */
  outbound: 'outbound',
  /** Reindexing of the manual and the Q&A (scheduled and manual), and the daily retention run. */
  maintenance: 'maintenance',
  /**
   * Copies of sent replies for the mailbox's Sent folder. A queue of its own, so a slow or unreachable IMAP server
   * never holds one of the sender's slots while replies wait.
   */
  sentcopy: 'sentcopy',
} as const;

/** A queue name. */
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

/** Job names of each queue. */
export const JOB_NAMES = {
  tickets: ['answer-ticket', 'propose-learned-answer'],
  outbound: ['send-reply'],
  maintenance: ['reindex-manual', 'reindex-qa', 'retention'],
  sentcopy: ['copy-to-sent'],
} as const satisfies Record<QueueName, readonly string[]>;

/** The job names of queue `Q`. */
export type JobNameOf<Q extends QueueName> = (typeof JOB_NAMES)[Q][number];
/** Any job name. */
export type JobName = JobNameOf<QueueName>;

/** Every queue name. */
export const ALL_QUEUE_NAMES: readonly QueueName[] = Object.values(QUEUE_NAMES);

/** Every job name. */
export const ALL_JOB_NAMES: readonly JobName[] = ALL_QUEUE_NAMES.flatMap((q) => JOB_NAMES[q]);

/** True for a known queue name. */
export function isQueueName(value: unknown): value is QueueName {
  return typeof value === 'string' && (ALL_QUEUE_NAMES as readonly string[]).includes(value);
}

/** True for a known job name (of any queue). */
export function isJobName(value: unknown): value is JobName {
  return typeof value === 'string' && (ALL_JOB_NAMES as readonly string[]).includes(value);
}

/** The queue a job name belongs to. */
export function queueOfJob(name: JobName): QueueName {
  const queue = ALL_QUEUE_NAMES.find((q) => (JOB_NAMES[q] as readonly string[]).includes(name));
  if (!queue) throw new TypeError(`Unknown job name: ${name}`);
  return queue;
}
