import { describe, expect, it } from 'vitest';
import { pollerCheck } from '../../src/server/health.js';
import type { PollerStatus } from '../../src/runtime/poller.js';

const NOW = new Date('2026-11-26T10:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);
const LOGIN = 'IMAP login as support@example.test to imap.example.test:993 failed (wrong IMAP_USER or IMAP_PASSWORD?)';
const MAX_AGE_MS = 3 * 60_000;

describe('pollerCheck', () => {
  it.each<[string, PollerStatus, 'ok' | 'fail', string]>([
    ['never polled, nothing failed', {}, 'fail', 'the IMAP poller has not completed a poll yet'],
    ['never polled, the login refused', { lastFailure: { at: ago(5), message: LOGIN } }, 'fail', `the IMAP poller has not completed a poll yet; last failure 5 s ago: ${LOGIN}`],
    ['polled recently', { lastSuccessfulPollAt: ago(30) }, 'ok', 'last successful poll 30 s ago (2026-11-26T09:59:30.000Z)'],
    ['polled recently, an older failure is history', { lastSuccessfulPollAt: ago(30), lastFailure: { at: ago(600), message: LOGIN } }, 'ok', 'last successful poll 30 s ago (2026-11-26T09:59:30.000Z)'],
    ['polled recently, failing since', { lastSuccessfulPollAt: ago(30), lastFailure: { at: ago(10), message: 'IMAP connection to imap.example.test:993 lost (ECONNRESET)' } }, 'ok', 'last successful poll 30 s ago (2026-11-26T09:59:30.000Z); last failure 10 s ago: IMAP connection to imap.example.test:993 lost (ECONNRESET)'],
    ['stale, failing since', { lastSuccessfulPollAt: ago(600), lastFailure: { at: ago(20), message: LOGIN } }, 'fail', `last successful poll 10 min ago (2026-11-26T09:50:00.000Z), longer than the allowed 3 min; last failure 20 s ago: ${LOGIN}`],
    ['stale, no failure recorded', { lastSuccessfulPollAt: ago(600) }, 'fail', 'last successful poll 10 min ago (2026-11-26T09:50:00.000Z), longer than the allowed 3 min'],
  ])('%s', (_what, status, expected, detail) => {
    expect(pollerCheck(status, NOW, MAX_AGE_MS)).toEqual({ status: expected, detail });
  });
});
