/**
 * The desk's zone from `TZ`: an IANA name as ICU resolves it; a POSIX rule without daylight saving (`JST-9`, `EST+5`,
 * `IST-5:30`), which Node's Intl cannot name and the CLI and dashboard showed as UTC, as the fixed offset it means
 * (POSIX's sign is the reverse of ISO's: `JST-9` is UTC+9, as `Etc/GMT-9` is); anything else UTC, which
 * `npm run check` warns about, naming TZ (walkthrough 45).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shownTime } from '../../src/cli/format.js';
import { deskTimeZone, fixedOffsetZone, localDay, localTime, posixOffsetMinutes, resolveDeskTimeZone, timeZoneProblem } from '../../src/tickets/local-day.js';

describe('posixOffsetMinutes', () => {
  it.each<[tz: string, minutes: number | undefined]>([
    ['JST-9', 540],
    ['KST-9', 540],
    ['EST+5', -300],
    ['EST5', -300],
    ['IST-5:30', 330],
    ['NPT-5:45', 345],
    ['<+0545>-5:45', 345],
    ['<-03>3', -180],
    [':JST-9', 540],
    ['UTC0', 0],
    ['GMT+0', 0],
    ['NZST-12', 720],
    ['LINT-14', 840],
    // Not the form: a rule with daylight saving, an IANA name, an ISO offset, a name too short, nonsense.
    ['CET-1CEST,M3.5.0,M10.5.0/3', undefined],
    ['EST5EDT', undefined],
    ['Asia/Tokyo', undefined],
    ['+09:00', undefined],
    ['J-9', undefined],
    ['JST-9:75', undefined],
    ['JST-25', undefined],
    ['', undefined],
  ])('%s → %s', (tz, minutes) => {
    expect(posixOffsetMinutes(tz)).toBe(minutes);
  });
});

describe('fixedOffsetZone', () => {
  it.each<[minutes: number, zone: string | undefined]>([
    [0, 'UTC'],
    [540, 'Etc/GMT-9'],
    [-300, 'Etc/GMT+5'],
    [840, 'Etc/GMT-14'],
    [-720, 'Etc/GMT+12'],
    [330, 'Asia/Kolkata'],
    [345, 'Asia/Kathmandu'],
    [570, 'Australia/Darwin'],
    [-780, undefined],
    [900, undefined],
    [315, undefined],
  ])('%i → %s', (minutes, zone) => {
    expect(fixedOffsetZone(minutes)).toBe(zone);
  });
});

describe('resolveDeskTimeZone', () => {
  it.each<[tz: string | undefined, system: string | undefined, zone: string, source: string]>([
    ['Asia/Tokyo', 'Asia/Tokyo', 'Asia/Tokyo', 'iana'],
    ['asia/tokyo', 'Asia/Tokyo', 'Asia/Tokyo', 'iana'],
    ['EST5EDT', 'America/New_York', 'America/New_York', 'iana'],
    ['Etc/GMT-9', 'Etc/GMT-9', 'Etc/GMT-9', 'iana'],
    // What Node's Intl says of a POSIX TZ: nothing (JST-9), or UTC (IST-5:30).
    ['JST-9', undefined, 'Etc/GMT-9', 'posix'],
    ['EST+5', undefined, 'Etc/GMT+5', 'posix'],
    ['IST-5:30', 'UTC', 'Asia/Kolkata', 'posix'],
    ['Foo/Bar', undefined, 'UTC', 'unknown'],
    ['CET-1CEST,M3.5.0,M10.5.0/3', undefined, 'UTC', 'unknown'],
    ['XYZ-5:15', undefined, 'UTC', 'unknown'],
    [undefined, 'Europe/Berlin', 'Europe/Berlin', 'iana'],
    ['', 'UTC', 'UTC', 'iana'],
    [undefined, 'Etc/Unknown', 'UTC', 'iana'],
  ])('TZ=%s (ICU says %s) → %s', (tz, system, zone, source) => {
    expect(resolveDeskTimeZone(tz, system)).toEqual({ zone, source });
  });
});

describe('this process’s TZ', () => {
  let before: string | undefined;
  beforeEach(() => {
    before = process.env.TZ;
  });
  afterEach(() => {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  });

  const AT = '2025-01-02T18:34:05Z';
  it.each<[tz: string, zone: string, shown: string, day: string]>([
    ['JST-9', 'Etc/GMT-9', '2025-01-03 03:34 GMT+9', '2025-01-03'],
    ['EST+5', 'Etc/GMT+5', '2025-01-02 13:34 GMT-5', '2025-01-02'],
    ['IST-5:30', 'Asia/Kolkata', '2025-01-03 00:04 GMT+5:30', '2025-01-03'],
    ['Asia/Tokyo', 'Asia/Tokyo', '2025-01-03 03:34 GMT+9', '2025-01-03'],
    ['Foo/Bar', 'UTC', '2025-01-02 18:34 UTC', '2025-01-02'],
  ])('TZ=%s: the CLI, the dashboard and the insights’ days all use %s', (tz, zone, shown, day) => {
    process.env.TZ = tz;
    expect(deskTimeZone()).toBe(zone);
    expect(localTime(AT, deskTimeZone())).toBe(shown);
    expect(shownTime(AT)).toBe(shown);
    // The writers' default day (Date's local fields for an IANA TZ) and the reader's named zone agree.
    expect(localDay(new Date(AT))).toBe(day);
    expect(localDay(new Date(AT), deskTimeZone())).toBe(day);
  });

  it.each<[tz: string | undefined, warns: boolean]>([
    ['Asia/Tokyo', false],
    ['JST-9', false],
    ['IST-5:30', false],
    [undefined, false],
    ['Foo/Bar', true],
    ['CET-1CEST,M3.5.0,M10.5.0/3', true],
  ])('npm run check warns about TZ=%s: %s', (tz, warns) => {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
    const problem = timeZoneProblem();
    if (!warns) return expect(problem).toBeUndefined();
    expect(problem).toContain(`TZ=${tz}`);
    expect(problem).toContain('set TZ to an IANA name such as Asia/Tokyo');
  });
});
