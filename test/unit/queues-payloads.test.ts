import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { ALL_JOB_NAMES, JOB_NAMES, QUEUE_NAMES, isJobName, queueOfJob } from '../../src/queues/names.js';
import { PAYLOAD_SCHEMAS, parseJobData } from '../../src/queues/payloads.js';

const TICKET = 'a'.repeat(64);

describe('queue and job names', () => {
  it('has the four queues with their jobs', () => {
    expect(QUEUE_NAMES).toEqual({ tickets: 'tickets', outbound: 'outbound', maintenance: 'maintenance', sentcopy: 'sentcopy' });
    expect(JOB_NAMES).toEqual({
      tickets: ['answer-ticket', 'propose-learned-answer'],
      outbound: ['send-reply'],
      maintenance: ['reindex-manual', 'reindex-qa', 'retention'],
      sentcopy: ['copy-to-sent'],
    });
  });

  it('uses names BullMQ accepts and that cannot collide with the store or rate-limit keys', () => {
    for (const q of Object.values(QUEUE_NAMES)) {
      expect(q).not.toContain(':');
      expect(['store', 'ratelimit', 'raw', 'sentraw', 'imap']).not.toContain(q);
    }
  });

  it('has a schema for every job name and no other', () => {
    expect(Object.keys(PAYLOAD_SCHEMAS).sort()).toEqual([...ALL_JOB_NAMES].sort());
  });

  it('maps a job to its queue', () => {
    expect(queueOfJob('send-reply')).toBe('outbound');
    expect(queueOfJob('reindex-qa')).toBe('maintenance');
    expect(queueOfJob('copy-to-sent')).toBe('sentcopy');
    expect(isJobName('park-ticket')).toBe(false);
  });
});

describe('parseJobData', () => {
  it.each([
    ['answer-ticket', { ticketId: TICKET }, { ticketId: TICKET }],
    ['send-reply', { ticketId: TICKET }, { ticketId: TICKET }],
    ['propose-learned-answer', { ticketId: TICKET }, { ticketId: TICKET }],
    ['reindex-manual', { trigger: 'schedule' }, { trigger: 'schedule' }],
    // A directory in job data is stripped: the directory comes from configuration only.
    ['reindex-qa', { trigger: 'cli', dir: '/data/qa' }, { trigger: 'cli' }],
    // Unknown fields from a newer producer are dropped, not fatal.
    ['answer-ticket', { ticketId: TICKET, extra: 1 }, { ticketId: TICKET }],
  ] as const)('accepts %s %j', (name, data, expected) => {
    expect(parseJobData(name, data)).toEqual(expected);
  });

  it.each([
    ['answer-ticket', {}],
    ['answer-ticket', { ticketId: 'not-a-hash' }],
    ['answer-ticket', { ticketId: 'A'.repeat(64) }],
    ['send-reply', null],
    ['propose-learned-answer', { ticketId: 'not-a-hash' }],
    ['send-reply', 'x'],
    ['reindex-manual', {}],
    ['reindex-manual', { trigger: 'cron' }],
  ] as const)('rejects %s %j with UnrecoverableError', (name, data) => {
    let error: unknown;
    try {
      parseJobData(name, data);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect((error as Error).message).toContain(`Invalid data for job '${name}'`);
  });

  it('rejects an unknown job name with UnrecoverableError', () => {
    expect(() => parseJobData('park-ticket', { ticketId: TICKET })).toThrow(UnrecoverableError);
    expect(() => parseJobData('park-ticket', {})).toThrow(/Unknown job name 'park-ticket'/);
  });

  it('names the bad field', () => {
    expect(() => parseJobData('answer-ticket', { ticketId: 5 })).toThrow(/ticketId/);
  });
});
