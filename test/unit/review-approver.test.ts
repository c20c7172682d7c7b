/**
 * Who approved a reply ({@link approverOf}): the sender copies it into `outbound.approvedBy` when it sends, and the
 * review page and `review show` print it. The sender's own `sending → approved` (an SMTP 4xx it retries) is no approval.
 */
import { describe, expect, it } from 'vitest';
import { approverOf } from '../../src/tickets/review.js';
import type { HistoryEntry } from '../../src/tickets/ticket.js';

const at = '2026-03-02T10:00:00.000Z';
const entry = (from: HistoryEntry['from'], to: HistoryEntry['to'], actor: string, note?: string): HistoryEntry => ({ at, from, to, actor, ...(note ? { note } : {}) });

const RECEIVED = [entry(null, 'received', 'poller'), entry('received', 'processing', 'agent-worker'), entry('processing', 'parked', 'agent-worker', 'review mode always')];
const APPROVED_BY_ANNA = [...RECEIVED, entry('parked', 'approved', 'operator:anna', 'approved')];
const RETRIED = [...APPROVED_BY_ANNA, entry('approved', 'sending', 'sender', 'attempt 1'), entry('sending', 'approved', 'sender', 'not accepted, will retry: 451 4.3.0 try later')];

describe('approverOf', () => {
  it.each<[string, HistoryEntry[], string | undefined]>([
    ['an approval by a person', APPROVED_BY_ANNA, 'anna'],
    ['after a send retry (the sender gave the ticket back to approved)', RETRIED, 'anna'],
    ['after two retries and the claim of the third attempt', [...RETRIED, entry('approved', 'sending', 'sender', 'attempt 2'), entry('sending', 'approved', 'sender', 'not accepted, will retry: 421'), entry('approved', 'sending', 'sender', 'attempt 3')], 'anna'],
    ['the later of two approvals (parked again by the sender, approved by another person)', [...RETRIED, entry('approved', 'sending', 'sender'), entry('sending', 'parked', 'sender', 'SMTP server rejected the reply: 550'), entry('parked', 'approved', 'operator:ben')], 'ben'],
    ['an automatic reply', [...RECEIVED.slice(0, 2), entry('processing', 'drafted', 'agent-worker'), entry('drafted', 'sending', 'sender'), entry('sending', 'drafted', 'sender', 'not accepted, will retry: 451')], undefined],
    ['a ticket nobody approved', RECEIVED, undefined],
  ])('%s', (_case, history, expected) => {
    expect(approverOf({ history })).toBe(expected);
  });
});
