/**
 * Which `answer-ticket` jobs are superseded by a person's decision (bug review 43c): the job's generation is in its
 * id, and a person's history entry at or after it ends the job's round. Every path that must still run does.
 */
import { describe, expect, it } from 'vitest';
import { answerJobGeneration, supersedingDecision } from '../../jobs/answer-ticket.js';
import { answerJobId } from '../../src/queues/job-options.js';
import type { HistoryEntry, TicketState } from '../../src/tickets/ticket.js';

const ID = 'a'.repeat(64);
const AT = '2026-11-28T00:00:00.000Z';

function entry(from: TicketState | null, to: TicketState, actor: string, note?: string): HistoryEntry {
  return { at: AT, from, to, actor, ...(note ? { note } : {}) };
}

/** A ticket of that history. */
function ticket(...history: HistoryEntry[]): { id: string; history: HistoryEntry[] } {
  return { id: ID, history };
}

describe('answerJobGeneration', () => {
  it('reads the generation answerJobId wrote', () => {
    for (const n of [1, 2, 17, 123_456]) expect(answerJobGeneration(answerJobId(ID, n), ID)).toBe(n);
  });

  it('is undefined for an id without a generation, of another ticket or kind, or none', () => {
    for (const jobId of [undefined, '', 'answer-x', `answer-${ID}`, `answer-${ID}-g`, `answer-${ID}-gx`, `answer-${ID}-g1-extra`, `answer-${ID}-g-1`, `send-${ID}-g3`, `answer-${'b'.repeat(64)}-g3`, '42', `answer-${ID}-g${'9'.repeat(16)}`]) {
      expect(answerJobGeneration(jobId, ID), String(jobId)).toBeUndefined();
    }
  });
});

describe('supersedingDecision', () => {
  const received = entry(null, 'received', 'poller');
  const first = answerJobId(ID, 1);

  it('lets the job of a new ticket run, and its retries and waits after its own entries', () => {
    expect(supersedingDecision(ticket(received), first)).toBeUndefined();
    const tried = ticket(
      received,
      entry('received', 'processing', 'agent-worker', 'attempt 1'),
      entry('processing', 'processing', 'agent-worker', 'waiting for the model server since …'),
      entry('processing', 'processing', 'agent-worker', 'resumed while waiting for the model server (attempt 1)'),
    );
    expect(supersedingDecision(tried, first)).toBeUndefined();
  });

  it('ends the waiting job once a person took the ticket over, and after their rerun', () => {
    const takenOver = ticket(
      received,
      entry('received', 'processing', 'agent-worker', 'attempt 1'),
      entry('processing', 'processing', 'agent-worker', 'waiting for the model server since …'),
      entry('processing', 'parked', 'operator:anna', 'taken over'),
    );
    expect(supersedingDecision(takenOver, first)).toMatchObject({ to: 'parked', actor: 'operator:anna' });
    const rerun = ticket(...takenOver.history, entry('parked', 'processing', 'operator:anna', 'rerun'));
    expect(supersedingDecision(rerun, first)).toMatchObject({ to: 'parked', actor: 'operator:anna' });
    // The rerun's own job is queued after the person's entries (its generation is the history length then).
    const rerunJob = answerJobId(ID, rerun.history.length);
    expect(supersedingDecision(rerun, rerunJob)).toBeUndefined();
    // … and its retries see only the agent's entries after it.
    const retried = ticket(...rerun.history, entry('processing', 'processing', 'agent-worker', 'resumed (attempt 2)'));
    expect(supersedingDecision(retried, rerunJob)).toBeUndefined();
  });

  it('lets the job of a reopened and rerun ticket run', () => {
    const reopened = ticket(
      received,
      entry('received', 'ignored', 'agent-worker', 'auto-reply'),
      entry('ignored', 'parked', 'operator:anna', 'reopened'),
      entry('parked', 'processing', 'operator:anna', 'rerun'),
    );
    expect(supersedingDecision(reopened, answerJobId(ID, reopened.history.length))).toBeUndefined();
    expect(supersedingDecision(reopened, first)).toMatchObject({ actor: 'operator:anna' });
  });

  it('runs a job whose id carries no generation as before', () => {
    const takenOver = ticket(received, entry('received', 'processing', 'agent-worker'), entry('processing', 'parked', 'operator:anna'), entry('parked', 'processing', 'operator:anna'));
    expect(supersedingDecision(takenOver, undefined)).toBeUndefined();
    expect(supersedingDecision(takenOver, 'manual-job')).toBeUndefined();
  });
});
