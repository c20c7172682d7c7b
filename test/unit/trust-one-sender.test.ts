/**
 * Trust counts people, not mails: within the trust window a source counts at most one review per customer address
 * (folded as the automatic-reply limits fold it: case, full-width letters, `+tag`), so five approvals of one sender's
 * one question do not make its sources trusted for everyone.
 */
import { describe, expect, it } from 'vitest';
import { outcomeOnEntering } from '../../src/tickets/outcome.js';
import { judgeTrust, readReviewEntry, reviewEntry, type Review, type TrustSettings } from '../../src/tickets/trust.js';

const SETTINGS: TrustSettings = { TRUST_MIN_REVIEWS: 5, TRUST_MIN_AS_IS: 0.9, TRUST_WINDOW: 20, TRUST_MAX_EDIT_RATIO: 0.2 };
const at = '2026-11-26T10:00:00.000Z';
const asIs = (sender?: string): Review => ({ kind: 'approved_as_is', editRatio: 0, ticketId: 't', ...(sender ? { sender } : {}) });
const heavy = (sender?: string): Review => ({ kind: 'approved_edited', editRatio: 0.5, ticketId: 't', ...(sender ? { sender } : {}) });

function senderOf(from: string): string | undefined {
  return outcomeOnEntering({ from, outbound: { messageId: '<m@x>', autoSubmitted: false }, approval: { edited: false, editRatio: 0 }, history: [] }, 'sent', at)?.sender;
}

describe('the sender of a review', () => {
  it('is recorded on review outcomes as a digest of the folded address', () => {
    const mallory = senderOf('mallory@attacker.example');
    expect(mallory).toMatch(/^[0-9a-f]{16}$/);
    expect(senderOf('Mallory+2@ATTACKER.example')).toBe(mallory);
    expect(senderOf('ｍａｌｌｏｒｙ@attacker.example')).toBe(mallory);
    expect(senderOf('bob@customer.example')).not.toBe(mallory);
    const rejected = outcomeOnEntering({ from: 'mallory@attacker.example', reason: 'wrong', history: [] }, 'rejected', at);
    expect(rejected?.sender).toBe(mallory);
    // Not a review: nothing recorded.
    expect(outcomeOnEntering({ from: 'mallory@attacker.example', outbound: { messageId: '<m@x>', autoSubmitted: true }, history: [] }, 'sent', at)?.sender).toBeUndefined();
  });

  it('is written to and read back from a source list', () => {
    const entry = reviewEntry({ kind: 'approved_as_is', editRatio: 0, sender: 'abcdef0123456789' }, 'tid');
    expect(entry).toBe('approved_as_is 0 tid sender=abcdef0123456789');
    expect(readReviewEntry(entry)).toEqual({ kind: 'approved_as_is', editRatio: 0, ticketId: 'tid', sender: 'abcdef0123456789' });
    expect(readReviewEntry(reviewEntry({ kind: 'approved_edited', editRatio: 0.01, factsChanged: ['date'], sender: 'ff' }, 'tid'))).toEqual({
      kind: 'approved_edited',
      editRatio: 0.01,
      ticketId: 'tid',
      factsChanged: true,
      sender: 'ff',
    });
  });
});

describe('judgeTrust with senders', () => {
  it.each([
    ['five approvals of one sender', [asIs('m'), asIs('m'), asIs('m'), asIs('m'), asIs('m')], false, '1 of 5 reviews'],
    ['five approvals of five senders', [asIs('a'), asIs('b'), asIs('c'), asIs('d'), asIs('e')], true, undefined],
    ['one sender repeated among four others counts once', [asIs('m'), asIs('m'), asIs('a'), asIs('b'), asIs('c'), asIs('d')], true, undefined],
    ['one sender repeated among three others', [asIs('m'), asIs('m'), asIs('a'), asIs('b'), asIs('c')], false, '4 of 5 reviews'],
    ['the newest review of a sender is the one that counts', [heavy('m'), asIs('m'), asIs('a'), asIs('b'), asIs('c'), asIs('d')], false, '4 of its last 5 reviews approved as is, needs 90 %'],
    ['reviews recorded before senders were each count', [asIs(), asIs(), asIs(), asIs(), asIs()], true, undefined],
  ] as const)('%s', (_name, reviews, trusted, missing) => {
    const record = judgeTrust('s', reviews, SETTINGS);
    expect(record.trusted).toBe(trusted);
    expect(record.missing).toBe(missing);
  });
});
