import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import {
  DEFAULT_TUNING,
  KEEP_COMPLETED,
  KEEP_FAILED,
  QUEUE_DEFAULT_JOB_OPTIONS,
  REINDEX_ATTEMPTS,
  answerJobId,
  answerTicketJob,
  answerTicketOptions,
  reindexJob,
  reindexSchedulerTemplateOptions,
  reindexSchedulers,
  sendJobId,
  sendReplyJob,
  sendReplyOptions,
} from '../../src/queues/job-options.js';

const TICKET = '0123456789abcdef'.repeat(4);
const config = parseConfig({ AGENT_ATTEMPTS: '4', SENDER_ATTEMPTS: '9' });

// BullMQ's own rule (Job.validateOptions): a custom id must not parse as an integer, and must not contain ':'.
function bullmqAcceptsId(id: string): boolean {
  return `${parseInt(id, 10)}` !== id && !id.includes(':');
}

describe('job ids', () => {
  it('are deterministic per ticket and generation', () => {
    expect(answerJobId(TICKET, 1)).toBe(answerJobId(TICKET, 1));
    expect(answerJobId(TICKET, 1)).not.toBe(answerJobId(TICKET, 3));
    expect(sendJobId(TICKET, 2)).toBe(`send-${TICKET}-g2`);
    expect(answerJobId(TICKET, 1)).toBe(`answer-${TICKET}-g1`);
  });

  it('are accepted by BullMQ even for an all-digit ticket id', () => {
    const digits = '1'.repeat(64);
    for (const id of [answerJobId(TICKET, 1), sendJobId(TICKET, 7), answerJobId(digits, 1), sendJobId(digits, 1)]) {
      expect(bullmqAcceptsId(id), id).toBe(true);
    }
  });

  it('refuse what is not a ticket id or a generation', () => {
    expect(() => answerJobId('abc', 1)).toThrow(/ticket id/);
    expect(() => sendJobId(TICKET, 0)).toThrow(/generation/);
    expect(() => sendJobId(TICKET, 1.5)).toThrow(/generation/);
  });
});

describe('per-job options', () => {
  it('answer-ticket: AGENT_ATTEMPTS, exponential backoff, bounded retention keeping failures', () => {
    const opts = answerTicketOptions(config, TICKET, 1);
    expect(opts).toMatchObject({
      jobId: answerJobId(TICKET, 1),
      attempts: 4,
      backoff: { type: 'exponential', delay: DEFAULT_TUNING.answerBackoffMs },
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
    });
  });

  it('send-reply: SENDER_ATTEMPTS, exponential backoff', () => {
    const opts = sendReplyOptions(config, TICKET, 2);
    expect(opts).toMatchObject({ jobId: sendJobId(TICKET, 2), attempts: 9, backoff: { type: 'exponential', delay: DEFAULT_TUNING.sendBackoffMs } });
  });

  it('uses the configured defaults of config.ts', () => {
    const defaults = parseConfig({});
    expect(answerTicketOptions(defaults, TICKET, 1).attempts).toBe(3);
    expect(sendReplyOptions(defaults, TICKET, 1).attempts).toBe(8);
  });

  it('keeps failed jobs longer than completed ones and never removes them at once', () => {
    for (const keep of [QUEUE_DEFAULT_JOB_OPTIONS.removeOnFail, answerTicketOptions(config, TICKET, 1).removeOnFail]) {
      expect(typeof keep).toBe('object');
      expect((keep as { age: number }).age).toBeGreaterThanOrEqual(7 * 24 * 3600);
    }
    expect(KEEP_FAILED.age).toBeGreaterThan(KEEP_COMPLETED.age);
    expect(QUEUE_DEFAULT_JOB_OPTIONS.removeOnComplete).not.toBe(true);
  });

  it('accepts shorter delays for tests', () => {
    const tuning = { ...DEFAULT_TUNING, answerBackoffMs: 10, jitter: 0 };
    expect(answerTicketOptions(config, TICKET, 1, tuning).backoff).toEqual({ type: 'exponential', delay: 10, jitter: 0 });
  });

  it('builds job specs for queue.add', () => {
    expect(answerTicketJob(config, TICKET, 1)).toMatchObject({ name: 'answer-ticket', data: { ticketId: TICKET }, opts: { jobId: answerJobId(TICKET, 1) } });
    expect(sendReplyJob(config, TICKET, 1)).toMatchObject({ name: 'send-reply', data: { ticketId: TICKET } });
  });

  it('deduplicates manual reindexes per job name, keeping one follow-up while one runs', () => {
    const job = reindexJob('reindex-qa', { trigger: 'manual' });
    expect(job.opts).toMatchObject({ attempts: REINDEX_ATTEMPTS, deduplication: { id: 'reindex-qa', keepLastIfActive: true } });
    expect(job.opts.jobId).toBeUndefined();
  });
});

describe('reindex schedulers', () => {
  it('builds one scheduler per reindex job from the cron settings', () => {
    const specs = reindexSchedulers({ ...parseConfig({}), REINDEX_QA_CRON: '' });
    expect(specs.map((s) => [s.id, s.pattern, s.enabled])).toEqual([
      ['reindex-manual', '0 3 * * *', true],
      ['reindex-qa', '', false],
    ]);
    expect(specs[0]?.template).toEqual({
      name: 'reindex-manual',
      data: { trigger: 'schedule' },
      opts: reindexSchedulerTemplateOptions(),
    });
    // Scheduler templates may not carry a jobId or deduplication (BullMQ owns the ids of scheduled jobs).
    expect(specs[0]?.template.opts).not.toHaveProperty('jobId');
    expect(specs[0]?.template.opts).not.toHaveProperty('deduplication');
  });
});
