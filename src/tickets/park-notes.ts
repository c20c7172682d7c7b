/**
 * How the agent worker's park notes begin when the mail needed an answer the worker could not give: the agent failed
 * (the job's own reason, or the worker's `failed` listener for a job that never reached it) or an hourly limit held it;
 * and the one park for what the mail is that the worker words itself (spam).
 * The review flow and the insights read a note by these beginnings to tell such a park from one for what the mail
 * itself is (src/tickets/review.ts `parkedForTheMailItself`), so the writers and that reader share them.
 */
export const PARK_NOTE = {
  /** `agent failed 3 time(s): …`, `agent failed permanently: …` (jobs/answer-ticket.ts `agentFailureReason`). */
  agentFailed: 'agent failed',
  /** The worker's `failed` listener, for a job that failed without its handler parking the ticket. */
  agentJobFailed: 'agent job failed for good',
  /** AUTO_REPLY_LIMIT_PER_HOUR / _TOTAL_PER_HOUR. */
  autoReplyLimit: 'auto-reply limit reached',
  /** AGENT_RUN_LIMIT_PER_HOUR / _TOTAL_PER_HOUR. */
  agentRunLimit: 'agent-run limit reached',
  /**
   * SPAM_ACTION=park: `spam: <what the filter said>`, a park for what the mail is. Written inline by jobs/answer-ticket.ts
   * `checkMailBeforeAgent` today; named here so the reader does not guess it.
   */
  spam: 'spam',
} as const;

/**
 * How the reason (and the one history note) of a ticket that waits for the model server begins: `waiting for the model
 * server since <ISO time> (at most …, AGENT_MODEL_OUTAGE_MINUTES): …`, written by jobs/answer-ticket.ts
 * `waitForModelServer` while the ticket stays `processing` (AGENT_MODEL_OUTAGE_MINUTES). It is no park: the review flow
 * reads it to let a person take such a ticket over (src/tickets/ticket.ts `waitsForModelServer`, the one `processing`
 * ticket a person may park), so the writer and that reader share it.
 */
export const MODEL_SERVER_WAIT_NOTE = 'waiting for the model server since ';
