/**
 * The insights' weeks: weeks start on Monday in the desk's calendar, the period's first and last weeks hold only its
 * days, "answered well" is (auto-sent + approved as drafted) / the mail that needed an answer (every ending but
 * ignored, and the mail still waiting) with its change from the week before in points, beside the older figure of the
 * replies sent, and the replies citing a learned answer are counted from what the store recorded with each reply.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../src/agent/prices.js';
import { dayStart, insightFieldsOnWrite, insightsFromDays, periodWeeks, weekStartOf } from '../../src/tickets/insights.js';
import type { OutcomeKind } from '../../src/tickets/outcome.js';
import type { HistoryEntry } from '../../src/tickets/ticket.js';

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
  type Row = [
    week: string,
    days: number,
    mailIn: number | null,
    answered: number,
    autoSent: number,
    asDrafted: number,
    edited: number,
    waiting: number,
    needingAnswer: number,
    answeredWell: number | null,
    ofReplies: number | null,
    change: number | null,
    learned: number,
    recorded: number,
  ];
  type Counts = Record<string, number>;
  it.each<[string, Array<[string, Record<string, string>]>, { mailIn?: Counts; waiting?: Counts }, Row[]]>([
    [
      'two part weeks: answered well of the mail that needed an answer, and its change in points',
      [
        ['2025-04-05', day({ auto_sent: 1, approved_as_is: 1 })],
        ['2025-04-06', day({ approved_edited: 2, rejected: 1 })],
        ['2025-04-07', day({ auto_sent: 3, approved_edited: 1 })],
        ['2025-04-08', day({ approved_as_is: 1, ignored: 4 })],
      ],
      { mailIn: { '2025-03-31': 9, '2025-04-07': 12 }, waiting: { '2025-03-31': 1 } },
      [
        // 2 well of 4 replies, 1 rejected and 1 still waiting
        ['2025-03-31', 2, 9, 4, 1, 1, 2, 1, 6, 1 / 3, 0.5, null, 0, 0],
        // the ignored mail needed no answer
        ['2025-04-07', 2, 12, 5, 3, 1, 1, 0, 5, 0.8, 0.8, 46.7, 0, 0],
      ],
    ],
    [
      'a week of only rejections answered nothing well; a week without mail that needed an answer has no rate, nor the week after it a change',
      [
        ['2025-04-06', day({ auto_sent: 1, approved_edited: 2 })],
        ['2025-04-07', day({ rejected: 2 })],
        ['2025-04-14', day({ ignored: 3 })],
        ['2025-04-21', day({ approved_as_is: 1 })],
      ],
      {},
      [
        ['2025-03-31', 1, null, 3, 1, 0, 2, 0, 3, 1 / 3, 1 / 3, null, 0, 0],
        ['2025-04-07', 1, null, 0, 0, 0, 0, 0, 2, 0, null, -33.3, 0, 0],
        ['2025-04-14', 1, null, 0, 0, 0, 0, 0, 0, null, null, null, 0, 0],
        ['2025-04-21', 1, null, 1, 0, 1, 0, 0, 1, 1, 1, null, 0, 0],
      ],
    ],
    [
      'an ending taken back leaves the week; a falling share is a negative change',
      [
        ['2025-04-11', day({ auto_sent: 3, approved_as_is: 1 }, { 'reopened:auto_sent': 1 })],
        ['2025-04-14', day({ auto_sent: 1, approved_edited: 2 })],
      ],
      {},
      [
        ['2025-04-07', 1, null, 3, 2, 1, 0, 0, 3, 1, 1, null, 0, 0],
        ['2025-04-14', 1, null, 3, 1, 0, 2, 0, 3, 1 / 3, 1 / 3, -66.7, 0, 0],
      ],
    ],
    [
      'mail still waiting halves a week of only good replies; replies citing a learned answer, of those whose sources were recorded',
      [
        ['2025-04-09', day({ auto_sent: 2, approved_as_is: 1 }, { 'src:replies': 2, 'src:learned': 1 })],
        ['2025-04-10', day({ auto_sent: 1 }, { 'src:replies': 1, 'src:learned': 1 })],
      ],
      { mailIn: { '2025-04-07': 8 }, waiting: { '2025-04-07': 4 } },
      [['2025-04-07', 2, 8, 4, 3, 1, 0, 4, 8, 0.5, 1, null, 2, 3]],
    ],
    [
      'a rejection without a draft needed no reply and leaves the week; one with a draft counts against it; a week recorded before the split keeps every rejection',
      [
        ['2025-04-04', day({ auto_sent: 1, rejected: 1 })],
        ['2025-04-08', day({ auto_sent: 1, rejected: 3 }, { 'rejected:no_draft': 2 })],
      ],
      {},
      [
        ['2025-03-31', 1, null, 1, 1, 0, 0, 0, 2, 0.5, 1, null, 0, 0],
        ['2025-04-07', 1, null, 1, 1, 0, 0, 0, 2, 0.5, 1, 0, 0, 0],
      ],
    ],
  ])('%s', (_case, hashes, counts, want) => {
    const r = insightsFromDays(
      hashes.map(([d, fields]) => ({ day: d, fields })),
      DEFAULT_PRICES,
      'UTC',
      counts.mailIn ? new Map(Object.entries(counts.mailIn)) : undefined,
      counts.waiting ? new Map(Object.entries(counts.waiting)) : undefined,
    );
    const got = r.weekly.map((w) => [
      w.week,
      w.days,
      w.mailIn,
      w.answered,
      w.outcomes.auto_sent,
      w.outcomes.approved_as_is,
      w.outcomes.approved_edited,
      w.waiting,
      w.needingAnswer,
      w.answeredWell,
      w.answeredWellOfReplies,
      w.answeredWellChange,
      w.learnedReplies,
      w.sourcesRecorded,
    ]);
    expect(got).toEqual(want);
  });

  it.each<[string, Record<string, number>, number, { waiting: number; needing: number; well: number | null; ofReplies: number | null }]>([
    ['replies, rejections, ignored mail and one still waiting', { auto_sent: 1, approved_as_is: 2, approved_edited: 1, rejected: 5, ignored: 3 }, 1, { waiting: 1, needing: 10, well: 0.3, ofReplies: 0.75 }],
    ['only rejections: none answered well, no reply to divide by', { rejected: 5 }, 0, { waiting: 0, needing: 5, well: 0, ofReplies: null }],
    ['only mail still waiting', {}, 2, { waiting: 2, needing: 2, well: 0, ofReplies: null }],
    ['only ignored mail: nothing needed an answer', { ignored: 4 }, 0, { waiting: 0, needing: 0, well: null, ofReplies: null }],
    ['rejections without a draft needed no reply', { auto_sent: 1, rejected: 3, 'rejected:no_draft': 2 }, 1, { waiting: 1, needing: 3, well: 1 / 3, ofReplies: 1 }],
    ['only rejections without a draft: nothing needed an answer', { rejected: 2, 'rejected:no_draft': 2 }, 0, { waiting: 0, needing: 0, well: null, ofReplies: null }],
    ['a no-draft count above the rejections (a damaged hash) never takes more than them', { auto_sent: 1, rejected: 1, 'rejected:no_draft': 5 }, 0, { waiting: 0, needing: 1, well: 1, ofReplies: 1 }],
  ])('gives the period answered well over its mail that needed an answer: %s', (_case, outcomes, waiting, want) => {
    const r = insightsFromDays([{ day: '2025-04-07', fields: day({}, outcomes) }], DEFAULT_PRICES, 'UTC', undefined, new Map([['2025-04-07', waiting]]));
    expect([r.totals.waiting, r.totals.needingAnswer, r.totals.answeredWell, r.totals.answeredWellOfReplies]).toEqual([want.waiting, want.needing, want.well, want.ofReplies]);
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

describe('rejections that needed no reply, as the store counts them', () => {
  const at = '2025-04-01T10:05:00.000Z';
  const received: HistoryEntry = { from: null, to: 'received', actor: 'poller', at: '2025-04-01T10:00:00.000Z' };
  const parkedBy = (note: string, ran = false): HistoryEntry[] => [
    received,
    ...(ran ? [{ from: 'received', to: 'processing', actor: 'agent-worker', at } as HistoryEntry] : []),
    { from: ran ? 'processing' : 'received', to: 'parked', actor: 'agent-worker', at, note },
  ];
  const invitation = parkedBy('calendar invitation (text/calendar; method=REQUEST): a person answers it');
  it.each<[string, { draft?: string; history?: HistoryEntry[] }, OutcomeKind, Record<string, number>]>([
    ['a rejection of mail the checks parked before the agent for what it is', { history: invitation }, 'rejected', { 'rejected:no_draft': 1 }],
    ['a rejection of such mail whose draft is only blank lines', { draft: ' \n ', history: invitation }, 'rejected', { 'rejected:no_draft': 1 }],
    ['a rejection of the agent\'s draft', { draft: 'Settings → Security.', history: parkedBy('review mode always', true) }, 'rejected', {}],
    ['a rejection of mail the agent failed on: it needed an answer', { history: parkedBy('agent failed 3 time(s): the model server could not be reached', true) }, 'rejected', {}],
    ['a rejection of mail the agent-run limit parked', { history: parkedBy('agent-run limit reached: 20 agent runs in the last hour') }, 'rejected', {}],
    ['a rejection of mail the auto-reply limit parked', { history: parkedBy('auto-reply limit reached: 5 automatic replies in the last hour') }, 'rejected', {}],
    ['a rejection of mail parked as too large to read', { history: [{ from: null, to: 'parked', actor: 'poller', at, note: 'too large to download' }] }, 'rejected', {}],
    ['a rejection without a recorded history counts against', {}, 'rejected', {}],
    ['mail the checks ignored had no draft either, and is no rejection', { history: invitation }, 'ignored', {}],
    ['a failure without a draft', { history: invitation }, 'failed', {}],
  ])('%s', (_case, ticket, kind, want) => {
    const fields = insightFieldsOnWrite({ createdAt: '2025-04-01T10:00:00.000Z', ...ticket }, { kind, at, reason: 'calendar invitation' }, undefined);
    expect(Object.fromEntries([...fields].filter(([f]) => !f.startsWith('rej:')))).toEqual(want);
  });
});
