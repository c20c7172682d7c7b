/**
 * The data of every job, as zod schemas. Jobs carry ids, not content: the ticket store is the truth, so a job
 * retried hours later acts on the ticket as it is then, and no mail text sits in the queue.
 *
 * Unknown extra fields are stripped rather than rejected, so a worker of the previous release keeps processing
 * jobs a newer producer enqueued during a rolling deploy instead of failing them for good.
 */
import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { TICKET_ID_PATTERN } from '../tickets/ticket.js';
import { isJobName, type JobName } from './names.js';

const ticketId = z.string().regex(TICKET_ID_PATTERN, 'must be a ticket id (sha256 hex)');

/**
 * `answer-ticket`: run the agent on a ticket. `reviewBy`: the operator who asked for a new draft from the review page
 * or the API; that draft is parked for them whatever REVIEW_MODE says (a worker of the previous release strips the
 * field and decides as for any run).
 */
export const answerTicketSchema = z.object({ ticketId, reviewBy: z.string().min(1).max(200).optional() });
/** `send-reply`: send a ticket's drafted or approved reply. */
export const sendReplySchema = z.object({ ticketId });
/** `propose-learned-answer`: propose candidate Q&A pairs from a ticket's approved reply. */
export const proposeLearnedAnswerSchema = z.object({ ticketId });
/** `copy-to-sent`: file the reply a ticket's `send-reply` sent in the mailbox's Sent folder. */
export const copyToSentSchema = z.object({ ticketId });
/**
 * `reindex-manual` / `reindex-qa`: rebuild an index from the configured directory (MANUALS_DIR / QA_DIR). Job data
 * never names a directory: anyone who can add a job (Bull Board, Redis) could otherwise index any folder the worker
 * can read into the live knowledge base, and the next draft would quote it. A `dir` field is stripped like any other
 * unknown one.
 */
export const reindexSchema = z.object({
  trigger: z.enum(['schedule', 'manual', 'cli']),
});

/**
 * `retention`: archive old final tickets and drop old raw mail (`src/tickets/retention.ts`); the periods come from
 * configuration. Only the schedule queues it; `npm run review -- retention` runs the same code in the terminal.
 */
export const retentionSchema = z.object({
  trigger: z.enum(['schedule']),
});

/** The schema of each job name. */
export const PAYLOAD_SCHEMAS = {
  'answer-ticket': answerTicketSchema,
  'send-reply': sendReplySchema,
  'reindex-manual': reindexSchema,
  'reindex-qa': reindexSchema,
  retention: retentionSchema,
  'copy-to-sent': copyToSentSchema,
  'propose-learned-answer': proposeLearnedAnswerSchema,
} as const satisfies Record<JobName, z.ZodType>;

/** The data type of each job name. */
export type JobPayloads = { [N in JobName]: z.output<(typeof PAYLOAD_SCHEMAS)[N]> };
/** Data of an `answer-ticket` job. */
export type AnswerTicketData = JobPayloads['answer-ticket'];
/** Data of a `send-reply` job. */
export type SendReplyData = JobPayloads['send-reply'];
/** Data of a `copy-to-sent` job. */
export type CopyToSentData = JobPayloads['copy-to-sent'];
/** Data of a `propose-learned-answer` job. */
export type ProposeLearnedAnswerData = JobPayloads['propose-learned-answer'];
/** Data of a reindex job. */
export type ReindexData = JobPayloads['reindex-manual'];
/** Data of a `retention` job. */
export type RetentionData = JobPayloads['retention'];

/**
 * Validates a job's data. Bad data (or an unknown job name) can never succeed on a retry, so it throws BullMQ's
 * `UnrecoverableError`, which fails the job at once and keeps it in the failed set for inspection.
 */
export function parseJobData<N extends JobName>(name: N, data: unknown): JobPayloads[N];
export function parseJobData(name: string, data: unknown): JobPayloads[JobName];
export function parseJobData(name: string, data: unknown): JobPayloads[JobName] {
  if (!isJobName(name)) throw new UnrecoverableError(`Unknown job name '${name}'`);
  const parsed = PAYLOAD_SCHEMAS[name].safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`).join('; ');
    throw new UnrecoverableError(`Invalid data for job '${name}': ${issues}`);
  }
  return parsed.data;
}
