/**
 * What the review reads from a ticket alone before a person decides: whether its sender may be forged (the agent
 * worker's hold, kept through a new draft), and where the sender stands with a reply the SMTP server has not accepted
 * yet (attempts, the next one, when it is parked if every one fails).
 */
import { describe, expect, it } from 'vitest';
import { senderReviewReason } from '../../jobs/answer-ticket.js';
import { parseConfig } from '../../src/config.js';
import { WILL_RETRY_NOTE, rerunReason, sendRetryStatus, unverifiedSender } from '../../src/tickets/review.js';
import type { ReplySignals } from '../../src/mail/classify.js';
import type { HistoryEntry, TicketState } from '../../src/tickets/ticket.js';

const entry = (at: string, from: HistoryEntry['from'], to: TicketState, actor: string, note?: string): HistoryEntry => ({ at, from, to, actor, ...(note ? { note } : {}) });
const T = (minute: number) => `2026-03-02T10:${String(minute).padStart(2, '0')}:00.000Z`;

describe('unverifiedSender', () => {
  const config = parseConfig({ MAIL_FROM: 'support@support.example', AUTHSERV_ID: 'mx.support.example' });
  const signals = (results: string): ReplySignals => ({ from: { address: 'ceo@bank.example', name: '' }, replyTo: undefined, headers: { 'authentication-results': [results] }, contentType: 'text/plain' });
  // What the agent worker parks with: the review must recognise its words.
  const forged = senderReviewReason({ from: 'ceo@bank.example', replyTo: 'ceo@bank.example' }, signals('mx.support.example; spf=pass smtp.mailfrom=esp.example; dmarc=fail header.from=bank.example'), config)!.reason;
  const received = [entry(T(0), null, 'received', 'poller'), entry(T(1), 'received', 'processing', 'agent-worker')];
  const parkedWith = (reason: string) => [...received, entry(T(2), 'processing', 'parked', 'agent-worker', reason)];

  it.each<[string, HistoryEntry[], string | undefined]>([
    ['parked for a forged From', parkedWith(forged), forged],
    ['parked again with a new draft asked for since', [...parkedWith(forged), entry(T(3), 'parked', 'processing', 'operator:anna'), entry(T(4), 'processing', 'parked', 'agent-worker', rerunReason('anna'))], forged],
    ['parked for another reason', parkedWith('review mode always'), undefined],
    ['sent automatically, never parked', [...received, entry(T(2), 'processing', 'drafted', 'agent-worker')], undefined],
  ])('%s', (_case, history, expected) => {
    expect(forged).toMatch(/^possibly forged sender: .*dmarc=fail/);
    expect(unverifiedSender({ history })).toBe(expected);
  });
});

describe('sendRetryStatus', () => {
  const send = { attempts: 8, backoffMs: 60_000 };
  const approved = [entry(T(0), null, 'received', 'poller'), entry(T(1), 'received', 'processing', 'agent-worker'), entry(T(2), 'processing', 'parked', 'agent-worker'), entry(T(3), 'parked', 'approved', 'operator:anna')];
  const failedAttempt = (n: number, state: TicketState, minute: number): HistoryEntry[] => [
    entry(T(minute), state, 'sending', 'sender', `attempt ${n}`),
    entry(T(minute), 'sending', state, 'sender', `${WILL_RETRY_NOTE}451 4.3.0 try again later (attempt ${n})`),
  ];
  const minutes = (iso: string) => (Date.parse(iso) - Date.parse(T(0))) / 60_000;

  it.each<[string, TicketState, HistoryEntry[], { failed: number; error?: string; next?: number; last?: number } | undefined]>([
    // After the n-th failure BullMQ waits at most 2^(n-1) minutes; the 8th attempt starts after 1+2+…+64 = 127.
    ['one failed attempt', 'approved', [...approved, ...failedAttempt(1, 'approved', 4)], { failed: 1, error: '451 4.3.0 try again later (attempt 1)', next: 5, last: 4 + 127 }],
    ['three failed attempts', 'approved', [...approved, ...failedAttempt(1, 'approved', 4), ...failedAttempt(2, 'approved', 5), ...failedAttempt(3, 'approved', 7)], { failed: 3, next: 11, last: 7 + 4 + 8 + 16 + 32 + 64 }],
    ['the attempts of an earlier approval do not count', 'approved', [...approved, ...failedAttempt(1, 'approved', 4), entry(T(5), 'approved', 'sending', 'sender'), entry(T(5), 'sending', 'parked', 'sender', 'SMTP server rejected the reply: 550'), entry(T(6), 'parked', 'approved', 'operator:ben'), ...failedAttempt(1, 'approved', 7)], { failed: 1, next: 8, last: 7 + 127 }],
    ['an automatic reply', 'drafted', [entry(T(0), null, 'received', 'poller'), entry(T(1), 'received', 'processing', 'agent-worker'), entry(T(2), 'processing', 'drafted', 'agent-worker'), ...failedAttempt(1, 'drafted', 3)], { failed: 1, next: 4, last: 3 + 127 }],
    ['a reply being sent now', 'sending', [...approved, entry(T(4), 'approved', 'sending', 'sender', 'attempt 1')], undefined],
    ['an approved reply not tried yet', 'approved', approved, undefined],
    ['a reply the sender parked', 'parked', [...approved, entry(T(4), 'approved', 'sending', 'sender'), entry(T(4), 'sending', 'parked', 'sender', 'reply not accepted after 8 attempt(s)')], undefined],
  ])('%s', (_case, state, history, expected) => {
    const status = sendRetryStatus({ state, history }, send);
    if (!expected) return expect(status).toBeUndefined();
    expect(status).toMatchObject({ failedAttempts: expected.failed, attempts: 8, ...(expected.error ? { lastError: expected.error } : {}) });
    expect(minutes(status!.nextAttemptBy)).toBe(expected.next);
    expect(minutes(status!.lastAttemptBy)).toBe(expected.last);
  });
});
