/**
 * The pure logic behind "It arrived — close as sent" and "Acknowledge and close": which tickets qualify, the outcome
 * each ending records, whether the sources' trust learns from it, and the reply time a confirmed arrival counts.
 */
import { describe, expect, it } from 'vitest';
import { insightFieldsOnWrite, latencyBucket, replySeconds } from '../../src/tickets/insights.js';
import { outcomeOnEntering, senderDigest, type TicketOutcome } from '../../src/tickets/outcome.js';
import { MAYBE_SENT_REASON, SMTPUTF8_REASON, SMTP_REFUSED_REASON, UNDELIVERABLE_REASON, undeliverableWhy } from '../../src/tickets/review.js';
import { canTransition, type HistoryEntry, type OutboundInfo, type ReplyBounce } from '../../src/tickets/ticket.js';
import { isReview } from '../../src/tickets/trust.js';

const OUTBOUND: OutboundInfo = { messageId: '<reply-1@support.example>', autoSubmitted: false, approvedBy: 'anna' };
const BOUNCE: ReplyBounce = { at: '2025-04-02T10:00:00.000Z', reportTicketId: 'b'.repeat(64), status: '5.1.1', diagnostic: 'User unknown', recipient: 'hanako@customer.example' };
const HISTORY: HistoryEntry[] = [{ at: '2025-04-02T09:00:00.000Z', from: 'parked', to: 'approved', actor: 'operator:anna', note: 'approved' }];

describe('undeliverableWhy', () => {
  it.each([
    ['a permanent SMTP refusal', { reason: `${SMTP_REFUSED_REASON}: 550 5.1.1 User unknown`, outbound: OUTBOUND }, `${SMTP_REFUSED_REASON}: 550 5.1.1 User unknown`],
    ['an address that needs SMTPUTF8', { reason: `${SMTPUTF8_REASON} (553 5.6.7)`, outbound: OUTBOUND }, `${SMTPUTF8_REASON} (553 5.6.7)`],
    ['a bounce of the reply', { reason: `${MAYBE_SENT_REASON} (Connection closed)`, outbound: OUTBOUND, replyBounce: BOUNCE }, 'our reply bounced: 5.1.1 User unknown (to hanako@customer.example)'],
    ['attempts used up on temporary failures: it may still go out', { reason: 'reply not accepted after 3 attempt(s); last error: 451 try later', outbound: OUTBOUND }, undefined],
    ['a reply that may already have been sent', { reason: `${MAYBE_SENT_REASON} (Connection closed)`, outbound: OUTBOUND }, undefined],
    ['a draft never handed to a mail server', { reason: `${SMTP_REFUSED_REASON}: 550`, outbound: undefined }, undefined],
    ['a draft waiting for review', { reason: 'review mode always', outbound: undefined }, undefined],
  ])('%s', (_name, ticket, expected) => {
    expect(undeliverableWhy(ticket)).toBe(expected);
  });
});

describe('the endings a person gives a reply the mail system left open', () => {
  it('lets a person close a parked ticket as sent; sent and rejected stay final', () => {
    expect(canTransition('parked', 'sent')).toBe(true);
    expect(canTransition('sent', 'rejected')).toBe(false);
    expect(canTransition('rejected', 'sent')).toBe(false);
  });

  it('records a confirmed arrival as the send of that attempt would have: approved, or automatic', () => {
    const at = '2025-04-02T12:00:00.000Z';
    const approved = outcomeOnEntering(
      { from: 'hanako@customer.example', history: HISTORY, approval: { edited: false, editRatio: 0 }, outbound: { ...OUTBOUND, deliveryCheck: { verdict: 'arrived', by: 'anna', at } } },
      'sent',
      at,
    );
    expect(approved).toEqual({ kind: 'approved_as_is', at, editRatio: 0, sender: senderDigest('hanako@customer.example') });
    expect(isReview(approved!)).toBe(true);
    const automatic = outcomeOnEntering({ from: 'taro@customer.example', history: [], outbound: { ...OUTBOUND, autoSubmitted: true, deliveryCheck: { verdict: 'arrived', by: 'anna', at } } }, 'sent', at);
    expect(automatic).toEqual({ kind: 'auto_sent', at });
    expect(isReview(automatic!)).toBe(false);
  });

  it('records a closed undeliverable reply as a rejection that is no review and names no sender', () => {
    const at = '2025-04-02T12:00:00.000Z';
    const closed = outcomeOnEntering(
      { from: 'hanako@customer.example', history: HISTORY, reason: UNDELIVERABLE_REASON, approval: { edited: false, editRatio: 0 }, outbound: { ...OUTBOUND, deliveryCheck: { verdict: 'undeliverable', by: 'anna', at } } },
      'rejected',
      at,
    );
    expect(closed).toEqual({ kind: 'rejected', at, reason: UNDELIVERABLE_REASON, undeliverable: true });
    expect(isReview(closed!)).toBe(false);
    // A person's rejection of the draft stays a review.
    const rejected = outcomeOnEntering({ from: 'hanako@customer.example', history: HISTORY, reason: 'wrong answer', outbound: OUTBOUND }, 'rejected', at);
    expect(rejected).toMatchObject({ kind: 'rejected', reason: 'wrong answer', sender: senderDigest('hanako@customer.example') });
    expect(isReview(rejected!)).toBe(true);
  });

  it('counts the reply time of a confirmed arrival to its attempt, and of any other reply to its outcome', () => {
    const createdAt = '2025-04-02T09:00:00.000Z';
    const outcome: TicketOutcome = { kind: 'approved_as_is', at: '2025-04-04T09:00:00.000Z', editRatio: 0 };
    const sentAt = '2025-04-02T09:02:00.000Z';
    const confirmed = { createdAt, outbound: { ...OUTBOUND, sentAt, deliveryCheck: { verdict: 'arrived' as const, by: 'anna', at: outcome.at } } };
    expect(replySeconds(confirmed, outcome)).toBe(120);
    expect(replySeconds({ createdAt, outbound: { ...OUTBOUND, sentAt } }, outcome)).toBe(2 * 86_400);
    expect(replySeconds({ createdAt }, outcome)).toBe(2 * 86_400);
    expect([...insightFieldsOnWrite(confirmed, outcome, undefined).keys()]).toContain(`lat:reviewed:${latencyBucket(120)}`);
  });
});
