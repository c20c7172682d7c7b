/**
 * The pure rules of "Reopen for review": which ignored mail a person may reopen (and why the rest must stay
 * unanswered), how the reopening reads on the ticket, that a reopened ticket is known as such later (its new draft
 * is always for a person), and how the insights take a reopened ticket's first ending back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../src/agent/prices.js';
import { REOPENED_FIELD_PREFIX, insightFieldsOnWrite, insightsFromDays } from '../../src/tickets/insights.js';
import { countedDay, countedOutcome } from '../../src/tickets/outcome.js';
import { reopenReason, reopenedFromIgnored, whyNotReopenable } from '../../src/tickets/review.js';
import { canTransition, TICKET_STATES, type HistoryEntry } from '../../src/tickets/ticket.js';

const CUSTOMER = 'hanako@customer.example';

describe('whyNotReopenable', () => {
  it.each([
    ['an out-of-office notice', 'auto-reply: Auto-Submitted: auto-replied'],
    ['a list header on a customer\'s mail', 'list: List-Unsubscribe: <mailto:leave@lists.customer.example>'],
    ['bulk mail', 'bulk mail: Precedence: bulk'],
    ['the spam filter\'s verdict', 'spam: X-Spam-Flag: YES'],
    ['an address that looks like no one reads it', 'no-reply-sender: From: mailer.jones@customer.example'],
    ['a reason from before the reasons were named', 'ignored by an older version'],
    ['no recorded reason', undefined],
  ])('lets a person reopen %s', (_case, reason) => {
    expect(whyNotReopenable({ reason, replyTo: CUSTOMER })).toBeUndefined();
  });

  it.each([
    ['a bounce', 'bounce: multipart/report (report-type=delivery-status)', /bounce/],
    ['a bounce that marked our reply', `bounce: Return-Path: <>; our reply of ticket ${'a'.repeat(64)} did not arrive`, /bounce/],
    ['our own mail come back', 'loop: X-Loop: support@helpdesk.test', /our own mail/],
    ['mail from our own address', 'own-address: From: support@helpdesk.test', /our own address/],
    ['mail whose replies would go to our own address', 'own-address: Reply-To: help@helpdesk.test', /our own address/],
    ['mail with no address to answer', 'no-sender: no usable From or Reply-To address', /no address/],
  ])('refuses %s', (_case, reason, why) => {
    expect(whyNotReopenable({ reason, replyTo: CUSTOMER })).toMatch(why);
  });

  it('refuses a delivery report whatever its reason says, and mail without an address to answer', () => {
    expect(whyNotReopenable({ reason: 'auto-reply: Auto-Submitted: auto-generated', replyTo: CUSTOMER, deliveryReport: { messageIds: [], failed: true } })).toMatch(/bounce/);
    expect(whyNotReopenable({ reason: 'auto-reply: X-Autoreply: yes', replyTo: ' ' })).toMatch(/no address/);
  });
});

describe('reopening an ignored ticket', () => {
  it('is the one way out of ignored, and only to a person', () => {
    for (const to of TICKET_STATES) expect(canTransition('ignored', to), to).toBe(to === 'parked');
  });

  it('says who reopened it and why it had been ignored', () => {
    expect(reopenReason('anna', 'list: List-Id: <users.lists.example>')).toBe('reopened by anna: the automatic checks had ignored it (list: List-Id: <users.lists.example>)');
    expect(reopenReason('anna', undefined)).toBe('reopened by anna: the automatic checks had ignored it (no reason recorded)');
  });

  const entry = (from: HistoryEntry['from'], to: HistoryEntry['to'], actor: string): HistoryEntry => ({ at: '2025-04-01T10:00:00.000Z', from, to, actor });
  it.each([
    ['ignored, then reopened by a person', [entry(null, 'received', 'poller'), entry('received', 'ignored', 'agent-worker'), entry('ignored', 'parked', 'operator:anna')], true],
    ['reopened, answered again and parked since', [entry('received', 'ignored', 'agent-worker'), entry('ignored', 'parked', 'operator:anna'), entry('parked', 'processing', 'operator:anna'), entry('processing', 'parked', 'agent-worker')], true],
    ['still ignored', [entry(null, 'received', 'poller'), entry('received', 'ignored', 'agent-worker')], false],
    ['parked by the checks, never ignored', [entry(null, 'received', 'poller'), entry('received', 'parked', 'agent-worker')], false],
  ])('knows a ticket %s', (_case, history, reopened) => {
    expect(reopenedFromIgnored({ history })).toBe(reopened);
  });
});

describe('the insights of a reopened ticket', () => {
  const ticket = { createdAt: '2025-04-01T10:00:00.000Z' };

  it('counts the reopening on a field of its own, and nothing else', () => {
    expect(Object.fromEntries(insightFieldsOnWrite(ticket, undefined, undefined, { reopened: 'ignored' }))).toEqual({ [`${REOPENED_FIELD_PREFIX}ignored`]: 1 });
    expect(insightFieldsOnWrite(ticket, undefined, undefined, {}).size).toBe(0);
  });

  it.each([
    ['an ignored mail reopened and answered counts once, as answered', { ignored: '3', [`${REOPENED_FIELD_PREFIX}ignored`]: '1' }, { approved_edited: '1' }, { ignored: 2 }, { ignored: 2, approved_edited: 1 }, 3],
    ['a failed ticket reopened and rejected counts once, as rejected', { failed: '1', [`${REOPENED_FIELD_PREFIX}failed`]: '1' }, { rejected: '1' }, { failed: 0 }, { failed: 0, rejected: 1 }, 1],
    ['a reopening whose ending is no longer stored takes nothing below zero', { [`${REOPENED_FIELD_PREFIX}ignored`]: '1' }, {}, { ignored: 0 }, { ignored: 0 }, 0],
  ])('%s', (_case, firstDay, secondDay, firstDayOutcomes, outcomes, ended) => {
    const r = insightsFromDays([{ day: '2025-04-01', fields: firstDay }, { day: '2025-04-02', fields: secondDay }], DEFAULT_PRICES);
    expect(r.daily[0]!.outcomes).toMatchObject(firstDayOutcomes);
    expect(r.totals.outcomes).toMatchObject(outcomes);
    expect(r.totals.ended).toBe(ended);
  });
});

describe('the day a reopening takes an ending back on', () => {
  const STARTED_ZONE = process.env.TZ;
  afterEach(() => {
    if (STARTED_ZONE === undefined) delete process.env.TZ;
    else process.env.TZ = STARTED_ZONE;
  });
  // 20:00 UTC on 26 November: the 26th in UTC and New York, the 27th in Tokyo.
  const at = '2026-11-26T20:00:00.000Z';

  it.each([
    // [case, zone it was counted in, zone it is read back in, stored without its day, day]
    ['counted under UTC, read under Asia/Tokyo', 'UTC', 'Asia/Tokyo', false, '2026-11-26'],
    ['counted under Asia/Tokyo, read under UTC', 'Asia/Tokyo', 'UTC', false, '2026-11-27'],
    ['counted under Asia/Tokyo, read under America/New_York', 'Asia/Tokyo', 'America/New_York', false, '2026-11-27'],
    ['stored without its day (an older version: its UTC day), read under Asia/Tokyo', 'UTC', 'Asia/Tokyo', true, '2026-11-26'],
    ['stored without its day, read under America/New_York', 'UTC', 'America/New_York', true, '2026-11-26'],
  ])('%s', (_case, countedIn, readIn, withoutDay, day) => {
    process.env.TZ = countedIn;
    const { day: stored, ...old } = countedOutcome({ kind: 'ignored', at, reason: 'bulk' });
    expect(stored).toBe(countedIn === 'Asia/Tokyo' ? '2026-11-27' : '2026-11-26');
    process.env.TZ = readIn;
    expect(countedDay(withoutDay ? old : { ...old, day: stored })).toBe(day);
  });
});
