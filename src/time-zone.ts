/**
 * The desk's time zone from a `TZ` value, on ICU (Intl) alone. A module without imports: src/config.ts makes `TZ` name
 * the zone resolved here, so Date, Intl, cron and the reply composer read one zone, and src/tickets/local-day.ts (the
 * desk's days and times), which imports config.ts, resolves the same way; neither can import the other for it.
 */

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

/**
 * The zone to set `TZ` to so that Date and Intl read the zone the desk reads from `tz` ({@link resolveDeskTimeZone}):
 * `JST-9` → `Etc/GMT-9`, `IST-5:30` → `Asia/Kolkata` (both read as UTC by ICU and Date), `JST` or `asia/tokyo` →
 * `Asia/Tokyo` (Intl names it, Date's local fields stay UTC), `:Asia/Tokyo` → `Asia/Tokyo`. Undefined when `tz` is
 * blank or unknown (left as it is: `npm run check` warns), or another name of the same zone that Date reads as well
 * (`Asia/Kolkata`, which ICU calls Asia/Calcutta; `Etc/UTC`), so a rewritten TZ is not rewritten again.
 *
 * Date's offsets are this process's: call it while `TZ` is `tz`.
 */
export function processZoneFor(tz: string | undefined, now = new Date()): string | undefined {
  if (!tz?.trim()) return undefined;
  const desk = resolveDeskTimeZone(tz, undefined);
  if (desk.source === 'unknown' || desk.zone === tz) return undefined;
  const year = now.getUTCFullYear();
  const seasons = [new Date(Date.UTC(year, 0, 15)), new Date(Date.UTC(year, 6, 15))];
  const dateReadsIt = seasons.every((at) => -at.getTimezoneOffset() === offsetAt(desk.zone, at));
  return knownZone(tz) === desk.zone && dateReadsIt ? undefined : desk.zone;
}
