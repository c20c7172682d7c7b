import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { firstStartHoldReason } from '../../src/runtime/poller.js';

const FIRST_START = new Date('2026-03-10T12:00:00Z');
const before = (ms: number): Date => new Date(FIRST_START.getTime() - ms);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('firstStartHoldReason', () => {
  it.each([
    ['received an hour before: answered', before(HOUR), 24, undefined],
    ['received exactly at the cut-off: answered', before(24 * HOUR), 24, undefined],
    ['received after the first start began (the server clock ahead): answered', new Date(FIRST_START.getTime() + 5 * MIN), 24, undefined],
    ['a day and a minute before: held', before(24 * HOUR + MIN), 24, /^held: no sync state for this mailbox yet \(a first start, or Redis lost it\); it arrived 24 hours earlier, on 2026-03-09 11:59 UTC \(FIRST_START_ANSWER_HOURS=24\)/],
    ['three days before: held', before(3 * DAY), 24, /; it arrived 3 days earlier, /],
    ['four months before: held', before(120 * DAY), 24, /; it arrived 4 months earlier, on 2025-11-10 12:00 UTC /],
    ['three years before: held', before(3 * 365 * DAY + DAY), 24, /; it arrived 3 years earlier, /],
    ['with a cut-off of 72 hours, two days before: answered', before(2 * DAY), 72, undefined],
    ['with 0, even a minute before: held', before(MIN), 0, /; it arrived 1 minute earlier, .*\(FIRST_START_ANSWER_HOURS=0\)/],
    ['with 0, five hours before: held', before(5 * HOUR), 0, /; it arrived 5 hours earlier, /],
    ['an INTERNALDATE as the server wrote it (a string)', before(3 * DAY).toISOString(), 24, /; it arrived 3 days earlier, /],
    ['no INTERNALDATE: held, its age unknown', undefined, 24, /^held: no sync state for this mailbox yet \(a first start, or Redis lost it\); the server gave no arrival time for it/],
    ['an unreadable INTERNALDATE: held', 'not a date', 24, /^held: no sync state for this mailbox yet \(a first start, or Redis lost it\); the server gave no arrival time for it/],
  ] as const)('%s', (_name, receivedAt, hours, expected) => {
    const reason = firstStartHoldReason(receivedAt, FIRST_START, hours);
    if (expected === undefined) expect(reason).toBeUndefined();
    else {
      expect(reason).toMatch(expected);
      expect(reason).toMatch(/: a person decides whether it still needs an answer$/);
    }
  });
});

describe('FIRST_START_ANSWER_HOURS', () => {
  it.each([
    ['unset', {}, 24],
    ['0 holds all', { FIRST_START_ANSWER_HOURS: '0' }, 0],
    ['a weekend', { FIRST_START_ANSWER_HOURS: '72' }, 72],
  ] as const)('%s', (_name, env, expected) => {
    expect(parseConfig(env).FIRST_START_ANSWER_HOURS).toBe(expected);
  });

  it.each(['-1', '1.5', 'a day'])('refuses %s', (value) => {
    expect(() => parseConfig({ FIRST_START_ANSWER_HOURS: value })).toThrow(/FIRST_START_ANSWER_HOURS/);
  });
});
