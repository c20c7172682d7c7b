import { describe, expect, it } from 'vitest';
import { pollerCheck, senderCheck } from '../../src/server/health.js';
import type { PollerStatus } from '../../src/runtime/poller.js';
import type { SenderStatus } from '../../src/runtime/sender.js';

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

describe('senderCheck', () => {
  const AUTH = 'SMTP failure: Invalid login: 535 5.7.8 Authentication failed';
  const report = (sender: string, fields: Omit<SenderStatus, 'sender' | 'seenAt'>): SenderStatus => ({ sender, seenAt: ago(1), ...fields });
  const failing = (at: number) => `cannot use the SMTP server (${at} s ago: ${AUTH})`;
  it.each<[string, SenderStatus[], 'ok' | 'fail' | 'skipped', string]>([
    ['no running sender has reported', [], 'skipped', 'no running sender has reported yet (a sender reports once it has tried the SMTP server)'],
    ['a sender still trying for the first time', [report('a#1', {})], 'skipped', 'no running sender has reported yet (a sender reports once it has tried the SMTP server)'],
    ['reached it', [report('a#1', { smtpReachedAt: ago(7_200) })], 'ok', 'the sender reached the SMTP server 2 h ago, with no failure since'],
    ['never reached it', [report('a#1', { lastFailure: { at: ago(5), message: AUTH } })], 'fail', `the sender ${failing(5)}; replies wait in the outbound queue`],
    ['failing since it reached it', [report('a#1', { smtpReachedAt: ago(600), lastFailure: { at: ago(30), message: AUTH } })], 'fail', `the sender ${failing(30)}; replies wait in the outbound queue`],
    ['reached it again after a failure', [report('a#1', { smtpReachedAt: ago(10), lastFailure: { at: ago(30), message: AUTH } })], 'ok', 'the sender reached the SMTP server 10 s ago, with no failure since'],
    [
      'one of two senders failing',
      [report('a#1', { smtpReachedAt: ago(60) }), report('b#2', { smtpReachedAt: ago(600), lastFailure: { at: ago(20), message: AUTH } })],
      'fail',
      `sender b#2 ${failing(20)}; replies wait in the outbound queue`,
    ],
    [
      'two senders reached it',
      [report('a#1', { smtpReachedAt: ago(60) }), report('b#2', { smtpReachedAt: ago(120) })],
      'ok',
      'sender a#1 reached the SMTP server 1 min ago, with no failure since; sender b#2 reached the SMTP server 2 min ago, with no failure since',
    ],
  ])('%s', (_what, senders, expected, detail) => {
    expect(senderCheck(senders, NOW)).toEqual({ status: expected, detail });
  });
});
