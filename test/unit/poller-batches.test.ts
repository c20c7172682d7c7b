import { describe, expect, it } from 'vitest';
import { DOWNLOAD_BATCH_BYTES, DOWNLOAD_BATCH_MESSAGES, downloadBatches } from '../../src/runtime/poller.js';

const MAX = 40 * 1024 * 1024;
const sizes = (batches: Array<Array<{ size?: number }>>) => batches.map((b) => b.map((m) => m.size));

describe('downloadBatches', () => {
  it.each([
    ['nothing', [], []],
    ['a few small messages in one batch', [100, 200, 300], [[100, 200, 300]]],
    ['a batch closes at the byte budget', [6 << 20, 6 << 20, 6 << 20], [[6 << 20, 6 << 20], [6 << 20]]],
    ['a message that does not fit starts the next batch', [2 << 20, 15 << 20, 100], [[2 << 20], [15 << 20, 100]]],
    ['a message over the byte budget goes alone', [100, 20 << 20, 100], [[100], [20 << 20], [100]]],
    ['oversize messages are not downloaded, so they count nothing', [100, MAX + 1, MAX + 1, 100], [[100, MAX + 1, MAX + 1, 100]]],
    ['an unknown size counts nothing', [undefined, undefined], [[undefined, undefined]]],
  ] as const)('%s', (_name, input, expected) => {
    expect(sizes(downloadBatches(input.map((size) => ({ size })), MAX))).toEqual(expected);
  });

  it('closes a batch at the message count and keeps the order', () => {
    const messages = Array.from({ length: 2 * DOWNLOAD_BATCH_MESSAGES + 1 }, (_, uid) => ({ uid, size: 10 }));
    const batches = downloadBatches(messages, MAX);
    expect(batches.map((b) => b.length)).toEqual([DOWNLOAD_BATCH_MESSAGES, DOWNLOAD_BATCH_MESSAGES, 1]);
    expect(batches.flat()).toEqual(messages);
    expect(DOWNLOAD_BATCH_BYTES).toBe(16 << 20);
  });
});
