/**
 * The insights' weeks: weeks start on Monday in the desk's calendar, the period's first and last weeks hold only its
 * days, "answered well" is (auto-sent + approved as drafted) / replies sent with its change from the week before in
 * points, and the replies citing a learned answer are counted from what the store recorded with each reply.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../src/agent/prices.js';
import { dayStart, insightFieldsOnWrite, insightsFromDays, periodWeeks, weekStartOf } from '../../src/tickets/insights.js';
import type { OutcomeKind } from '../../src/tickets/outcome.js';

describe('weekStartOf', () => {
  it.each([
    ['2025-04-07', '2025-04-07'], // a Monday is its own week's start
    ['2025-04-10', '2025-04-07'],
    ['2025-04-13', '2025-04-07'], // Sunday ends the week, it does not start one
    ['2026-01-01', '2025-12-29'], // across a year
    ['2024-03-03', '2024-02-26'], // across 29 February
  ])('%s is in the week of %s', (day, monday) => {
    expect(weekStartOf(day)).toBe(monday);
  });
});

describe('periodWeeks', () => {
  it.each<[string, string[], Array<[string, string, string, number]>]>([
    ['a period inside one week', ['2025-04-08', '2025-04-09'], [['2025-04-07', '2025-04-08', '2025-04-09', 2]]],
    [
      'a period cut by Mondays, oldest first',
      ['2025-04-05', '2025-04-06', '2025-04-07', '2025-04-08', '2025-04-09', '2025-04-10', '2025-04-11', '2025-04-12', '2025-04-13', '2025-04-14'],
      [
        ['2025-03-31', '2025-04-05', '2025-04-06', 2],
        ['2025-04-07', '2025-04-07', '2025-04-13', 7],
        ['2025-04-14', '2025-04-14', '2025-04-14', 1],
      ],
    ],
  ])('%s', (_case, days, want) => {
    expect(periodWeeks(days).map((w) => [w.week, w.from, w.to, w.days])).toEqual(want);
  });
});

describe('dayStart', () => {
  it.each([
    ['UTC', '2025-04-07', '2025-04-07T00:00:00.000Z'],
    ['Asia/Tokyo', '2025-04-07', '2025-04-06T15:00:00.000Z'],
    ['Asia/Kolkata', '2025-04-07', '2025-04-06T18:30:00.000Z'],
    ['Pacific/Kiritimati', '2025-04-07', '2025-04-06T10:00:00.000Z'],
    ['Pacific/Pago_Pago', '2025-04-07', '2025-04-07T11:00:00.000Z'],
    // The spring-forward day starts at midnight all the same, the day after it an hour earlier in UTC.
    ['America/New_York', '2026-03-08', '2026-03-08T05:00:00.000Z'],
    ['America/New_York', '2026-03-09', '2026-03-09T04:00:00.000Z'],
    // Brazil moved its clocks at midnight: 4 November 2018 began at 01:00 there.
    ['America/Sao_Paulo', '2018-11-04', '2018-11-04T03:00:00.000Z'],
  ])('%s: %s starts at %s', (zone, day, iso) => {
    expect(new Date(dayStart(day, zone)).toISOString()).toBe(iso);
  });
});

/** One day's hash fields from outcome counts and extra fields. */
const day = (outcomes: Partial<Record<OutcomeKind, number>>, extra: Record<string, number> = {}) =>
  Object.fromEntries(Object.entries({ ...outcomes, ...extra }).map(([k, v]) => [k, String(v)]));

describe('weekly figures from the day hashes', () => {
  type Row = [week: string, days: number, mailIn: number | null, answered: number, autoSent: number, asDrafted: number, edited: number, answeredWell: number | null, change: number | null, learned: number, recorded: number];
  it.each<[string, Array<[string, Record<string, string>]>, Record<string, number> | undefined, Row[]]>([
    [
      'two part weeks: answered well and its change in points',
      [
        ['2025-04-05', day({ auto_sent: 1, approved_as_is: 1 })],
        ['2025-04-06', day({ approved_edited: 2, rejected: 1 })],
        ['2025-04-07', day({ auto_sent: 3, approved_edited: 1 })],
        ['2025-04-08', day({ approved_as_is: 1, ignored: 4 })],
      ],
      { '2025-03-31': 9, '2025-04-07': 12 },
      [
        ['2025-03-31', 2, 9, 4, 1, 1, 2, 0.5, null, 0, 0],
        ['2025-04-07', 2, 12, 5, 3, 1, 1, 0.8, 30, 0, 0],
      ],
    ],
    [
      'a week without replies has no rate, and the week after it no change',
      [
        ['2025-04-06', day({ auto_sent: 1, approved_edited: 2 })],
        ['2025-04-07', day({ rejected: 2 })],
        ['2025-04-14', day({ approved_as_is: 1 })],
      ],
      undefined,
      [
        ['2025-03-31', 1, null, 3, 1, 0, 2, 1 / 3, null, 0, 0],
        ['2025-04-07', 1, null, 0, 0, 0, 0, null, null, 0, 0],
        ['2025-04-14', 1, null, 1, 0, 1, 0, 1, null, 0, 0],
      ],
    ],
    [
      'an ending taken back leaves the week; a falling share is a negative change',
      [
        ['2025-04-11', day({ auto_sent: 3, approved_as_is: 1 }, { 'reopened:auto_sent': 1 })],
        ['2025-04-14', day({ auto_sent: 1, approved_edited: 2 })],
      ],
      undefined,
      [
        ['2025-04-07', 1, null, 3, 2, 1, 0, 1, null, 0, 0],
        ['2025-04-14', 1, null, 3, 1, 0, 2, 1 / 3, -66.7, 0, 0],
      ],
    ],
    [
      'replies citing a learned answer, of the replies whose sources were recorded',
      [
        ['2025-04-09', day({ auto_sent: 2, approved_as_is: 1 }, { 'src:replies': 2, 'src:learned': 1 })],
        ['2025-04-10', day({ auto_sent: 1 }, { 'src:replies': 1, 'src:learned': 1 })],
      ],
      { '2025-04-07': 5 },
      [['2025-04-07', 2, 5, 4, 3, 1, 0, 1, null, 2, 3]],
    ],
  ])('%s', (_case, hashes, mailIn, want) => {
    const r = insightsFromDays(
      hashes.map(([d, fields]) => ({ day: d, fields })),
      DEFAULT_PRICES,
      'UTC',
      mailIn ? new Map(Object.entries(mailIn)) : undefined,
    );
    const got = r.weekly.map((w) => [w.week, w.days, w.mailIn, w.answered, w.outcomes.auto_sent, w.outcomes.approved_as_is, w.outcomes.approved_edited, w.answeredWell, w.answeredWellChange, w.learnedReplies, w.sourcesRecorded]);
    expect(got).toEqual(want);
  });

  it('gives the period answered well over all its replies', () => {
    const r = insightsFromDays([{ day: '2025-04-07', fields: day({ auto_sent: 1, approved_as_is: 2, approved_edited: 1, rejected: 5 }) }], DEFAULT_PRICES, 'UTC');
    expect(r.totals.answeredWell).toBe(0.75);
    expect(insightsFromDays([{ day: '2025-04-07', fields: day({ rejected: 5 }) }], DEFAULT_PRICES, 'UTC').totals.answeredWell).toBeNull();
  });
});

describe('replies citing a learned answer, as the store counts them', () => {
  const ticket = { createdAt: '2025-04-01T10:00:00.000Z' };
  const at = '2025-04-01T10:05:00.000Z';
  const learned = { kind: 'qa' as const, fileName: 'learned#4' };
  const csv = { kind: 'qa' as const, fileName: 'faq.csv#12' };
  const manual = { kind: 'manual' as const, fileName: 'guide/login.md' };
  it.each<[string, OutcomeKind, ReadonlyArray<{ kind: 'qa' | 'manual'; fileName: string }> | undefined, Record<string, number>]>([
    ['an automatic reply citing a learned pair', 'auto_sent', [manual, learned], { 'src:replies': 1, 'src:learned': 1 }],
    ['an approved reply citing a learned pair', 'approved_edited', [learned], { 'src:replies': 1, 'src:learned': 1 }],
    ['a reply citing only the manual and the Q&A file', 'approved_as_is', [manual, csv], { 'src:replies': 1 }],
    ['a reply a person wrote where the agent cited nothing', 'approved_edited', [], { 'src:replies': 1 }],
    ['a reply whose sources the write did not record', 'auto_sent', undefined, {}],
    ['a rejection is no reply, whatever it cited', 'rejected', [learned], {}],
    ['a manual file that happens to look like a learned id', 'auto_sent', [{ kind: 'manual', fileName: 'learned#4' }], { 'src:replies': 1 }],
  ])('%s', (_case, kind, replySources, want) => {
    const fields = insightFieldsOnWrite(ticket, { kind, at }, undefined, replySources ? { replySources } : {});
    const src = Object.fromEntries([...fields].filter(([f]) => f.startsWith('src:')));
    expect(src).toEqual(want);
  });
});
