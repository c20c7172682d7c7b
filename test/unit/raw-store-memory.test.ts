/**
 * How much of Redis's memory raw mail may take: read from `INFO memory` (maxmemory, else the machine's memory), and
 * whether one more mail stays within RAW_MAIL_REDIS_MEMORY_PERCENT of it.
 */
import { describe, expect, it } from 'vitest';
import { rawMailMemoryRefusal, redisMemoryOf } from '../../src/mail/raw-store.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** The lines of `INFO memory` that matter here, as Redis 7 writes them (CRLF, among many others). */
function info(fields: Record<string, number>): string {
  return ['# Memory', 'used_memory_human:1.00M', ...Object.entries(fields).map(([k, v]) => `${k}:${v}`), 'maxmemory_policy:noeviction', ''].join('\r\n');
}

describe('redisMemoryOf', () => {
  it.each([
    { name: 'maxmemory set', text: info({ used_memory: 2 * GiB, maxmemory: 4 * GiB, total_system_memory: 16 * GiB }), memory: { used: 2 * GiB, max: 4 * GiB, source: 'maxmemory' } },
    { name: 'no maxmemory: the machine bounds Redis', text: info({ used_memory: 2 * GiB, maxmemory: 0, total_system_memory: 16 * GiB }), memory: { used: 2 * GiB, max: 16 * GiB, source: 'system' } },
    { name: 'neither known', text: info({ used_memory: 2 * GiB, maxmemory: 0 }), memory: undefined },
    { name: 'no used_memory', text: info({ maxmemory: 4 * GiB }), memory: undefined },
    { name: 'not INFO at all', text: 'ERR unknown command', memory: undefined },
  ])('$name', ({ text, memory }) => {
    expect(redisMemoryOf(text)).toEqual(memory);
  });
});

describe('rawMailMemoryRefusal', () => {
  it.each([
    { name: 'room left under the share', used: 2 * GiB, max: 4 * GiB, size: 9 * MiB, percent: 75, refused: false },
    { name: 'exactly at the share', used: 3 * GiB - 9 * MiB, max: 4 * GiB, size: 9 * MiB, percent: 75, refused: false },
    { name: 'one byte past the share', used: 3 * GiB - 9 * MiB + 1, max: 4 * GiB, size: 9 * MiB, percent: 75, refused: true },
    { name: 'already past the share: a mail over 256 KB', used: 3.5 * GiB, max: 4 * GiB, size: 256 * 1024 + 1, percent: 75, refused: true },
    // Its ticket costs about as much memory as its raw copy: refusing it only parks it unchecked, up to the ceiling.
    { name: 'already past the share: a mail of 256 KB is kept', used: 3.5 * GiB, max: 4 * GiB, size: 256 * 1024, percent: 75, refused: false },
    { name: 'already past the share: a 390-byte mail is kept', used: 3.5 * GiB, max: 4 * GiB, size: 390, percent: 75, refused: false },
    { name: '100%: only what would not fit at all', used: 4 * GiB - 10 * MiB, max: 4 * GiB, size: 9 * MiB, percent: 100, refused: false },
  ])('$name', ({ used, max, size, percent, refused }) => {
    const refusal = rawMailMemoryRefusal({ used, max, source: 'maxmemory' }, size, percent);
    if (!refused) expect(refusal).toBeUndefined();
    else expect(refusal).toEqual({ used, size, limit: Math.floor((max * percent) / 100), max, source: 'maxmemory', percent });
  });

  // Many senders each within their budget must not take Redis to maxmemory with small mail (review 6, F3).
  it.each([
    { name: 'past 95 %: a 390-byte mail is refused', used: 3.9 * GiB, size: 390, percent: 75, share: 95 },
    { name: 'past 95 %: a mail of 256 KB is refused', used: 3.9 * GiB, size: 256 * 1024, percent: 75, share: 95 },
    { name: 'a share above 95 % holds small mail too', used: 4 * GiB - 100, size: 390, percent: 100, share: 100 },
  ])('$name', ({ used, size, percent, share }) => {
    const max = 4 * GiB;
    expect(rawMailMemoryRefusal({ used, max, source: 'maxmemory' }, size, percent)).toEqual({ used, size, limit: Math.floor((max * share) / 100), max, source: 'maxmemory', percent: share });
  });

  it('keeps small mail up to 95 %', () => {
    expect(rawMailMemoryRefusal({ used: 3.79 * GiB, max: 4 * GiB, source: 'maxmemory' }, 390, 75)).toBeUndefined();
  });

  it('sets no bound when the memory is unknown', () => {
    expect(rawMailMemoryRefusal(undefined, 9 * MiB, 75)).toBeUndefined();
  });
});
