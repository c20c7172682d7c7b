/**
 * The desk's calendar day: the insights count an outcome, a failed run or a bounce on the day it happened where the
 * support team works (the process's zone, `TZ`), so a Tokyo desk's Monday runs from Monday 00:00 to 24:00 in Tokyo,
 * not from 09:00 to 09:00 as a UTC day would.
 *
 * Days are `YYYY-MM-DD` strings. An instant becomes a day through ICU's zone rules (`Intl.DateTimeFormat`), so
 * daylight-saving days of 23 or 25 hours and half-hour zones need no offset arithmetic here; going from one day to
 * the next is calendar arithmetic on the date alone, never a step of 24 hours.
 */

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

/**
 * This process's IANA time zone: `TZ` (src/config.ts applies a `TZ` from `.env` to the process), else the system's;
 * `UTC` when Node cannot name it (an empty `TZ`, which Node reads as UTC). Read at each call, since `TZ` may be set
 * after this module loads.
 */
export function deskTimeZone(): string {
  const zone = new Intl.DateTimeFormat().resolvedOptions().timeZone as string | undefined;
  return zone && zone !== 'Etc/Unknown' ? zone : 'UTC';
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
  // (a new DateTimeFormat each time, since TZ may change after load) costs ~40 µs against well under one.
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
