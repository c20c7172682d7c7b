/**
 * One zone for every role (bug review 46b): a `TZ` that Node's Date and ICU read differently (a POSIX fixed offset
 * such as `IST-5:30`, which both read as UTC while the desk's resolver reads +5:30; an ICU alias such as `JST`, which
 * Intl names Asia/Tokyo while Date's local fields stay UTC) is rewritten by loadConfig to the zone the desk's resolver
 * names, so Date, Intl, the schedulers' cron and localDay agree. An unknown TZ is left as it is (`npm run check`
 * warns). Each row restores process.env.TZ.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { processTimeZone } from '../../src/queues/schedulers.js';
import { deskTimeZone, localDay } from '../../src/tickets/local-day.js';

const saved = process.env.TZ;
afterEach(() => {
  if (saved === undefined) delete process.env.TZ;
  else process.env.TZ = saved;
});

function startWith(tz: string | undefined): void {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
}

describe('loadConfig: process.env.TZ names the zone the desk reads', () => {
  it.each<[before: string | undefined, after: string | undefined]>([
    ['JST-9', 'Etc/GMT-9'],
    ['<+09>-9', 'Etc/GMT-9'],
    ['EST+5', 'Etc/GMT+5'],
    ['IST-5:30', 'Asia/Kolkata'],
    ['JST', 'Asia/Tokyo'],
    [':Asia/Tokyo', 'Asia/Tokyo'],
    ['asia/tokyo', 'Asia/Tokyo'],
    ['Asia/Tokyo', 'Asia/Tokyo'],
    ['UTC', 'UTC'],
    ['Europe/Paris', 'Europe/Paris'],
    // Other names of the zone Date reads as well: left as written (ICU names them Asia/Calcutta and UTC).
    ['Asia/Kolkata', 'Asia/Kolkata'],
    ['Etc/UTC', 'Etc/UTC'],
    [undefined, undefined],
    // Unknown: left as it is, as Node reads it (check warns).
    ['Foo/Bar', 'Foo/Bar'],
    [':/etc/localtime', ':/etc/localtime'],
    ['CET-1CEST,M3.5.0,M10.5.0/3', 'CET-1CEST,M3.5.0,M10.5.0/3'],
  ])('TZ=%s → %s', (before, after) => {
    startWith(before);
    loadConfig({ HELPDESK_ENV_FILE: 'none' });
    expect(process.env.TZ).toBe(after);
    // Once: a second load (a role loading its configuration again) leaves the rewritten zone as it is.
    loadConfig({ HELPDESK_ENV_FILE: 'none' });
    expect(process.env.TZ).toBe(after);
  });
});

describe("after loadConfig, Date's local day, localDay, deskTimeZone and the schedulers' zone agree", () => {
  // 20:00 UTC on New Year's Day: the next day at +9 and +5:30, the same day in UTC.
  const at = new Date(Date.UTC(2026, 0, 1, 20, 0));
  const dateDay = (): string =>
    `${String(at.getFullYear())}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}`;

  it.each<[tz: string | undefined, day: string | undefined]>([
    ['JST-9', '2026-01-02'],
    ['IST-5:30', '2026-01-02'],
    ['<+09>-9', '2026-01-02'],
    ['JST', '2026-01-02'],
    [':Asia/Tokyo', '2026-01-02'],
    ['Asia/Tokyo', '2026-01-02'],
    ['UTC', '2026-01-01'],
    [undefined, undefined],
  ])('TZ=%s', (tz, day) => {
    startWith(tz);
    loadConfig({ HELPDESK_ENV_FILE: 'none' });
    const zone = deskTimeZone();
    expect(processTimeZone()).toBe(zone);
    expect(localDay(at)).toBe(dateDay());
    expect(localDay(at, zone)).toBe(dateDay());
    if (day !== undefined) expect(localDay(at)).toBe(day);
  });
});
