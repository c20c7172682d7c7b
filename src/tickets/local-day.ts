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
 * Zones of ICU without daylight saving whose offset is not a whole number of hours, for a POSIX `TZ` such as
 * `IST-5:30`: ICU names whole-hour offsets (`Etc/GMT-9`) but no other fixed offset, and Node 20's Intl takes no
 * `+05:30`. Each is used only while its offset this year, winter and summer, is the one `TZ` gives
 * ({@link fixedOffsetZone}), so a change of the zone's rules can make it unused, never wrong.
 */
const FRACTIONAL_OFFSET_ZONES: ReadonlyMap<number, readonly string[]> = new Map([
  [-570, ['Pacific/Marquesas']],
  [210, ['Asia/Tehran']],
  [270, ['Asia/Kabul']],
  [330, ['Asia/Kolkata', 'Asia/Colombo']],
  [345, ['Asia/Kathmandu']],
  [390, ['Asia/Yangon', 'Indian/Cocos']],
  [525, ['Australia/Eucla']],
  [570, ['Australia/Darwin']],
]);

// A POSIX TZ without a daylight-saving part: a name of three or more letters (or `<+09>` quoted), then the offset
// WEST of UTC, `[+-]hh[:mm]` (`JST-9` is nine hours east, UTC+9). A leading `:` is allowed, as glibc allows it.
const POSIX_FIXED_ZONE = /^:?(?:[A-Za-z]{3,}|<[A-Za-z0-9+-]{1,16}>)([+-]?)(\d{1,2})(?::([0-5]\d))?$/;

/**
 * The minutes EAST of UTC a POSIX `TZ` without a daylight-saving part means (`JST-9` → 540, `EST+5` → -300,
 * `IST-5:30` → 330), or undefined when `tz` is not of that form (an IANA name, a rule with DST such as
 * `CET-1CEST,M3.5.0,M10.5.0/3`, or nonsense). POSIX's sign is the reverse of ISO's.
 */
export function posixOffsetMinutes(tz: string): number | undefined {
  const match = POSIX_FIXED_ZONE.exec(tz.trim());
  if (!match) return undefined;
  const west = Number(match[2]) * 60 + Number(match[3] ?? 0);
  if (west > 24 * 60) return undefined;
  return match[1] === '-' || west === 0 ? west : -west;
}

/** The UTC offset in minutes of `timeZone` at `at` (`GMT+05:30` → 330), from ICU's `longOffset` name. */
function offsetAt(timeZone: string, at: Date): number | undefined {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value;
  if (name === 'GMT') return 0;
  const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name ?? '');
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : undefined;
}

/**
 * A zone ICU knows whose offset is always `minutes` east of UTC: `UTC`, `Etc/GMT-9` for +9 (the `Etc` names reverse
 * the sign, as POSIX does), or one of {@link FRACTIONAL_OFFSET_ZONES} while its offset this year is `minutes` all year;
 * undefined when there is none (beyond -12 and +14 hours, or an offset no zone has, such as +5:15).
 */
export function fixedOffsetZone(minutes: number, now = new Date()): string | undefined {
  if (minutes === 0) return 'UTC';
  if (minutes % 60 === 0) {
    const hours = minutes / 60;
    return hours >= -12 && hours <= 14 ? `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}` : undefined;
  }
  const year = now.getUTCFullYear();
  const seasons = [new Date(Date.UTC(year, 0, 15)), new Date(Date.UTC(year, 6, 15))];
  return FRACTIONAL_OFFSET_ZONES.get(minutes)?.find((zone) => seasons.every((at) => offsetAt(zone, at) === minutes));
}

/** How the desk's zone was found from `TZ` ({@link resolveDeskTimeZone}). */
export interface DeskTimeZone {
  /** A zone name Intl takes: the IANA name, or the fixed-offset zone a POSIX `TZ` means. */
  zone: string;
  /**
   * `iana`: `TZ` is a zone ICU knows, or unset and the system's zone is; `posix`: a POSIX `TZ` read as its fixed
   * offset; `unknown`: `TZ` is set but means nothing known, and the desk shows UTC (`npm run check` warns).
   */
  source: 'iana' | 'posix' | 'unknown';
}

/** Whether ICU knows `zone` (an IANA name or one of its links, any case). */
function knownZone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * The desk's zone for a `TZ` value: the one resolver the CLI, the dashboard, the insights' days and the check share.
 * A name ICU knows is used as ICU resolved it for the process (`systemZone`); a POSIX rule without daylight saving
 * (`JST-9`, `EST+5`, `IST-5:30`), which Node's Intl cannot name and showed as UTC, becomes the fixed offset it means
 * ({@link posixOffsetMinutes}, {@link fixedOffsetZone}); anything else is UTC, `unknown`. Without `TZ` (unset or
 * blank), the system's zone, UTC when ICU cannot name it.
 *
 * @param systemZone what `Intl.DateTimeFormat().resolvedOptions().timeZone` says in the process.
 */
export function resolveDeskTimeZone(tz: string | undefined, systemZone: string | undefined): DeskTimeZone {
  const system = systemZone && systemZone !== 'Etc/Unknown' ? systemZone : undefined;
  const value = tz?.trim().replace(/^:/, '');
  if (!value) return { zone: system ?? 'UTC', source: 'iana' };
  const known = knownZone(value);
  if (known !== undefined) return { zone: system ?? known, source: 'iana' };
  const minutes = posixOffsetMinutes(value);
  const fixed = minutes === undefined ? undefined : fixedOffsetZone(minutes);
  return fixed !== undefined ? { zone: fixed, source: 'posix' } : { zone: 'UTC', source: 'unknown' };
}

// Resolved once per value of TZ: localDay runs for every outcome counted, and TZ may change after this module loads.
let resolved: { tz: string | undefined; desk: DeskTimeZone } | undefined;

/** {@link resolveDeskTimeZone} for this process's `TZ`, cached per value. */
function currentDeskTimeZone(): DeskTimeZone {
  // Node takes its zone from TZ alone, and a POSIX rule there is what ICU does not name: the raw value is needed.
  const tz = processTimeZoneSetting();
  if (resolved !== undefined && resolved.tz === tz) return resolved.desk;
  const desk = resolveDeskTimeZone(tz, new Intl.DateTimeFormat().resolvedOptions().timeZone as string | undefined);
  resolved = { tz, desk };
  return desk;
}

/**
 * This process's time zone as a name Intl takes: `TZ` (src/config.ts applies a `TZ` from `.env` to the process), else
 * the system's; a POSIX `TZ` such as `JST-9` as the fixed offset it means; `UTC` when neither can be named (an empty
 * `TZ`, which Node reads as UTC, or an unknown one, which `npm run check` warns about). Read at each call, since `TZ`
 * may be set after this module loads. See {@link resolveDeskTimeZone}.
 */
export function deskTimeZone(): string {
  return currentDeskTimeZone().zone;
}

/**
 * Why this process's `TZ` (or `tz`) shows times in UTC, for `npm run check`: set, but neither a zone ICU knows nor a
 * POSIX offset it can read; undefined when it is fine.
 */
export function timeZoneProblem(tz: string | undefined = processTimeZoneSetting()): string | undefined {
  const desk = tz === processTimeZoneSetting() ? currentDeskTimeZone() : resolveDeskTimeZone(tz, undefined);
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
  // as UTC) or unknown: then the resolved zone, so the writers' days are the reader's (deskTimeZone).
  if (timeZone === undefined && currentDeskTimeZone().source !== 'iana') timeZone = deskTimeZone();
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
