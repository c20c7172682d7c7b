/**
 * The calendar day the insights count an instant on, in the desk's time zone: zones with and without daylight saving
 * and a half-hour zone, each passed explicitly so the machine's TZ changes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addDays, deskTimeZone, localDay } from '../../src/tickets/local-day.js';

// [zone, instant, the day it falls on there]
const DAYS: [string, string, string][] = [
  ['UTC', '2026-03-01T23:59:59.999Z', '2026-03-01'],
  ['UTC', '2026-03-02T00:00:00.000Z', '2026-03-02'],
  // Tokyo (+9): a day runs from 15:00 UTC to 15:00 UTC; Monday 08:00 mail is Monday's, not Sunday's.
  ['Asia/Tokyo', '2026-03-01T14:59:59.999Z', '2026-03-01'],
  ['Asia/Tokyo', '2026-03-01T15:00:00.000Z', '2026-03-02'],
  ['Asia/Tokyo', '2026-11-29T23:00:00.000Z', '2026-11-30'],
  ['Asia/Tokyo', '2026-12-31T15:00:00.000Z', '2027-01-01'],
  // New York, spring forward on 2026-03-08: that day runs 05:00Z–04:00Z next day, 23 hours.
  ['America/New_York', '2026-03-08T04:59:59.999Z', '2026-03-07'],
  ['America/New_York', '2026-03-08T05:00:00.000Z', '2026-03-08'],
  ['America/New_York', '2026-03-08T07:30:00.000Z', '2026-03-08'],
  ['America/New_York', '2026-03-09T03:59:59.999Z', '2026-03-08'],
  ['America/New_York', '2026-03-09T04:00:00.000Z', '2026-03-09'],
  // Fall back on 2026-11-01: that day runs 04:00Z–05:00Z next day, 25 hours.
  ['America/New_York', '2026-11-01T03:59:59.999Z', '2026-10-31'],
  ['America/New_York', '2026-11-01T04:00:00.000Z', '2026-11-01'],
  ['America/New_York', '2026-11-02T04:30:00.000Z', '2026-11-01'],
  ['America/New_York', '2026-11-02T04:59:59.999Z', '2026-11-01'],
  ['America/New_York', '2026-11-02T05:00:00.000Z', '2026-11-02'],
  // Kolkata (+5:30): the half hour counts.
  ['Asia/Kolkata', '2026-03-01T18:29:59.999Z', '2026-03-01'],
  ['Asia/Kolkata', '2026-03-01T18:30:00.000Z', '2026-03-02'],
];

describe('localDay', () => {
  it.each(DAYS)('in %s, %s is on %s', (zone, iso, day) => {
    expect(localDay(new Date(iso), zone)).toBe(day);
    expect(localDay(Date.parse(iso), zone)).toBe(day);
  });

  it('refuses an instant that is no date and a zone ICU does not know', () => {
    expect(() => localDay(Number.NaN, 'UTC')).toThrow(RangeError);
    expect(() => localDay(new Date(0), 'Asia/Tokio')).toThrow(RangeError);
  });
});

describe('addDays', () => {
  it.each([
    ['2026-03-08', -1, '2026-03-07'],
    ['2026-03-08', 1, '2026-03-09'],
    ['2026-11-01', 1, '2026-11-02'],
    ['2024-02-28', 1, '2024-02-29'],
    ['2026-03-01', -1, '2026-02-28'],
    ['2026-12-31', 1, '2027-01-01'],
    ['2026-01-01', -365, '2025-01-01'],
    ['2026-04-10', 0, '2026-04-10'],
  ] as const)('%s %i → %s', (day, n, want) => {
    expect(addDays(day, n)).toBe(want);
  });

  it('refuses what is not a calendar day', () => {
    for (const bad of ['2026-3-1', '2026-02-30', 'today', '']) expect(() => addDays(bad, 1), bad).toThrow(RangeError);
  });
});

describe('deskTimeZone', () => {
  const started = process.env.TZ;
  afterEach(() => {
    if (started === undefined) delete process.env.TZ;
    else process.env.TZ = started;
  });

  it.each([
    ['Asia/Tokyo', 'Asia/Tokyo'],
    ['America/New_York', 'America/New_York'],
    ['Asia/Kolkata', 'Asia/Kolkata'],
    // An empty TZ is UTC to Node, which names it Etc/Unknown.
    ['', 'UTC'],
  ])("is the process's zone: TZ=%j → %s, and localDay defaults to it", (tz, zone) => {
    process.env.TZ = tz;
    // ICU names a zone by its canonical id (Asia/Kolkata is Asia/Calcutta to it).
    expect(deskTimeZone()).toBe(new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone);
    const at = new Date('2026-03-01T18:45:00Z');
    expect(localDay(at)).toBe(localDay(at, zone));
  });
});
