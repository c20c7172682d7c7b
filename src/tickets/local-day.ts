/**
 * The desk's calendar day: the insights count an outcome, a failed run or a bounce on the day it happened where the
 * support team works (the process's zone, `TZ`), so a Tokyo desk's Monday runs from Monday 00:00 to 24:00 in Tokyo,
 * not from 09:00 to 09:00 as a UTC day would.
 *
 * Days are `YYYY-MM-DD` strings. An instant becomes a day through ICU's zone rules (`Intl.DateTimeFormat`), so
 * daylight-saving days of 23 or 25 hours and half-hour zones need no offset arithmetic here; going from one day to
 * the next is calendar arithmetic on the date alone, never a step of 24 hours.
 */

import { processTimeZoneSetting } from '../config.js';
import { processZoneFor, resolveDeskTimeZone, type DeskTimeZone } from '../time-zone.js';

// The resolver lives in src/time-zone.ts (src/config.ts uses it too, and this module imports config.ts); its API is
// still offered here.
export { fixedOffsetZone, posixOffsetMinutes, resolveDeskTimeZone, type DeskTimeZone } from '../time-zone.js';

// One formatter per zone: the deployment has one zone, tests a handful.
const dayFormats = new Map<string, Intl.DateTimeFormat>();

function dayFormat(timeZone: string): Intl.DateTimeFormat {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, calendar: 'gregory', numberingSystem: 'latn', year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(timeZone, format);
  }
  return format;
}

// One time formatter per zone, as for days.
const timeFormats = new Map<string, Intl.DateTimeFormat>();

/** The formatter of {@link localTime} in `timeZone`; throws RangeError for a zone ICU does not know. */
export function timeFormat(timeZone: string): Intl.DateTimeFormat {
  let format = timeFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' });
    timeFormats.set(timeZone, format);
  }
  return format;
}

/**
 * `at` as a wall-clock time in `timeZone`, the zone named (`2026-03-03 00:04 GMT+9`, `2026-03-02 15:04 UTC`), as the
 * dashboard, the review flow's refusals and the poller's hold reasons write a time, so an operator never converts from
 * UTC in their head; undefined for a value that is not a date.
 */
export function localTime(at: string | Date, timeZone = 'UTC'): string | undefined {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return undefined;
  const parts = timeFormat(timeZone).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')} ${part('timeZoneName')}`;
}

// Resolved once per value of TZ: localDay runs for every outcome counted, and TZ may change after this module loads.
let resolved: { tz: string | undefined; desk: DeskTimeZone; dateFields: boolean } | undefined;

/**
 * {@link resolveDeskTimeZone} for this process's `TZ`, cached per value, and whether Date's local fields are in that
 * zone: when `TZ` is unset or names the zone as written. Not for a POSIX rule or an ICU alias (`IST-5:30` and `JST`
 * both read as UTC there), which src/config.ts rewrites to the zone's name when the configuration is loaded.
 */
function currentDeskTimeZone(): { desk: DeskTimeZone; dateFields: boolean } {
  // Node takes its zone from TZ alone, and a POSIX rule there is what ICU does not name: the raw value is needed.
  const tz = processTimeZoneSetting();
  if (resolved !== undefined && resolved.tz === tz) return resolved;
  const desk = resolveDeskTimeZone(tz, new Intl.DateTimeFormat().resolvedOptions().timeZone as string | undefined);
  // Date's local fields are the desk's when TZ is unset or names a zone Date reads as ICU does (an alias such as
  // Asia/Kolkata or Japan too: the per-call formatter costs ten times as much), not a value loadConfig would rewrite.
  resolved = { tz, desk, dateFields: !tz?.trim() || (desk.source === 'iana' && processZoneFor(tz) === undefined) };
  return resolved;
}

/**
 * This process's time zone as a name Intl takes: `TZ` (src/config.ts applies a `TZ` from `.env` to the process), else
 * the system's; a POSIX `TZ` such as `JST-9` as the fixed offset it means; `UTC` when neither can be named (an empty
 * `TZ`, which Node reads as UTC, or an unknown one, which `npm run check` warns about). Read at each call, since `TZ`
 * may be set after this module loads. See {@link resolveDeskTimeZone}.
 */
export function deskTimeZone(): string {
  return currentDeskTimeZone().desk.zone;
}

/**
 * Why this process's `TZ` (or `tz`) shows times in UTC, for `npm run check`: set, but neither a zone ICU knows nor a
 * POSIX offset it can read; undefined when it is fine.
 */
export function timeZoneProblem(tz: string | undefined = processTimeZoneSetting()): string | undefined {
  const desk = tz === processTimeZoneSetting() ? currentDeskTimeZone().desk : resolveDeskTimeZone(tz, undefined);
  if (desk.source !== 'unknown') return undefined;
  return `TZ=${tz ?? ''} is no time zone this machine knows (nor a fixed offset such as JST-9): times are shown and days counted in UTC; set TZ to an IANA name such as Asia/Tokyo`;
}

/**
 * The calendar day (`YYYY-MM-DD`) `at` falls on in `timeZone`, by default this process's ({@link deskTimeZone}).
 *
 * @throws RangeError for an instant that is no date, or a zone ICU does not know.
 */
export function localDay(at: Date | number, timeZone?: string): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`localDay: not a date: ${String(at)}`);
  // The process's own zone through Date's local fields: every ticket's outcome is counted here, and naming the zone
  // (a new DateTimeFormat each time, since TZ may change after load) costs ~40 µs against well under one. Date's
  // local fields follow what ICU made of TZ, which is not the desk's zone when TZ is a POSIX rule (`IST-5:30` reads
  // as UTC), an alias (`JST`: Intl names Asia/Tokyo, Date stays in UTC) or unknown: then the resolved zone, so the
  // writers' days are the reader's (deskTimeZone) even where the configuration was not loaded.
  if (timeZone === undefined && !currentDeskTimeZone().dateFields) timeZone = deskTimeZone();
  if (timeZone === undefined) {
    const date = new Date(ms);
    return `${String(date.getFullYear()).padStart(4, '0')}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
  }
  const parts = dayFormat(timeZone).formatToParts(ms);
  const part = (type: 'year' | 'month' | 'day') => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year').padStart(4, '0')}-${part('month')}-${part('day')}`;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The calendar day `n` days after `day` (before it for a negative `n`): the same in every zone, whatever the length
 * of the days in between.
 *
 * @throws RangeError when `day` is not a `YYYY-MM-DD` calendar day.
 */
export function addDays(day: string, n: number): string {
  const match = DAY.exec(day);
  const [y, m, d] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [NaN, NaN, NaN];
  const date = new Date(Date.UTC(y, m - 1, d));
  // Date.UTC rolls 2026-02-30 over into March: such a day is refused, not moved.
  if (!match || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) throw new RangeError(`addDays: not a calendar day: ${JSON.stringify(day)}`);
  date.setUTCDate(date.getUTCDate() + n);
  return date.toISOString().slice(0, 10);
}
