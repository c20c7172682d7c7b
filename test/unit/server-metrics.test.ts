import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/server/health.js';
import { AGENT_RUN_BUCKETS_SECONDS, agentRunBucketField, histogramFromHash, metricsKeys } from '../../src/server/metrics.js';
import { EDIT_RATIO_BUCKETS } from '../../src/tickets/outcome.js';

describe('agentRunBucketField', () => {
  it.each([
    [0, 'le:1'],
    [1000, 'le:1'],
    [1001, 'le:2.5'],
    [4_200, 'le:5'],
    [600_000, 'le:600'],
    [600_001, 'le:+Inf'],
  ])('%i ms → %s', (ms, field) => {
    expect(agentRunBucketField(ms)).toBe(field);
  });
});

describe('histogramFromHash', () => {
  it('turns per-bucket counts into cumulative Prometheus buckets', () => {
    const snapshot = histogramFromHash({ count: '4', sum_ms: '700500', 'le:1': '1', 'le:5': '2', 'le:+Inf': '1' });
    expect(snapshot.count).toBe(4);
    expect(snapshot.sum).toBe(700.5);
    expect(snapshot.buckets).toHaveLength(AGENT_RUN_BUCKETS_SECONDS.length + 1);
    expect(Object.fromEntries(snapshot.buckets.map((b) => [b.le, b.count]))).toMatchObject({ '1': 1, '2.5': 1, '5': 3, '600': 3, '+Inf': 4 });
  });

  it('re-bins buckets of an earlier bucket list into the next current bound', () => {
    const snapshot = histogramFromHash({ 'le:3': '2', 'le:1000': '1', 'le:0.5': '1' }, [1, 5, 10]);
    expect(snapshot.buckets).toEqual([
      { le: '1', count: 1 },
      { le: '5', count: 3 },
      { le: '10', count: 3 },
      { le: '+Inf', count: 4 },
    ]);
    expect(snapshot.count).toBe(4);
  });

  it('reads the edit-ratio histogram with its own bounds and sum field', () => {
    const snapshot = histogramFromHash({ count: '3', sum_e6: '450000', 'le:0': '1', 'le:0.05': '1', 'le:0.4': '1' }, EDIT_RATIO_BUCKETS, { field: 'sum_e6', scale: 1e6 });
    expect(snapshot.sum).toBeCloseTo(0.45);
    expect(Object.fromEntries(snapshot.buckets.map((b) => [b.le, b.count]))).toEqual({ '0': 1, '0.05': 2, '0.1': 2, '0.2': 2, '0.4': 3, '0.6': 3, '0.8': 3, '1': 3, '+Inf': 3 });
  });

  it('reads an empty or damaged hash as zeros', () => {
    expect(histogramFromHash({}).count).toBe(0);
    expect(histogramFromHash({ 'le:abc': '3', 'le:5': 'x', count: '-2' }).buckets.every((b) => b.count === 0)).toBe(true);
  });
});

describe('metricsKeys', () => {
  it('lives under the prefix, apart from the queues and the ticket store', () => {
    expect(metricsKeys('helpdesk')).toEqual({
      counters: 'helpdesk:metrics:counters',
      ignored: 'helpdesk:metrics:ignored',
      agentRun: 'helpdesk:metrics:agent_run',
    });
    expect(() => metricsKeys('')).toThrow(TypeError);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 s'],
    [42_400, '42 s'],
    [5 * 60_000, '5 min'],
    [3 * 3_600_000, '3 h'],
    [130 * 60_000, '2 h 10 min'],
    [50 * 3_600_000, '2 d 2 h'],
    [-5_000, '0 s'],
  ])('%i ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
