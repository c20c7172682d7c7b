import { describe, expect, it } from 'vitest';
import { firstStartHoldReason } from '../../src/runtime/poller.js';

const FIRST_START = new Date('2026-03-10T12:00:00Z');
const RECEIVED = new Date('2025-11-10T15:30:00Z');

describe('firstStartHoldReason names the arrival time in the zone the dashboard shows times in (TZ)', () => {
  it.each([
    ['UTC', 'on 2025-11-10 15:30 UTC '],
    ['Asia/Tokyo', 'on 2025-11-11 00:30 GMT+9 '],
    ['America/New_York', 'on 2025-11-10 10:30 EST '],
  ] as const)('%s', (timeZone, expected) => {
    expect(firstStartHoldReason(RECEIVED, FIRST_START, 24, timeZone)).toContain(`it arrived 4 months earlier, ${expected}(FIRST_START_ANSWER_HOURS=24)`);
  });
});
