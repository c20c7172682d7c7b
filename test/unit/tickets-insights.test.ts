/**
 * The pure parts of the insights: reply-time buckets, the fields one store write adds, the figures computed from day
 * hashes, and the price table with LLM_PRICES.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, costOf, priceOf, priceTable } from '../../src/agent/prices.js';
import { ConfigError, parseConfig } from '../../src/config.js';
import {
  LATENCY_BUCKET_RATIO,
  insightFieldsOnWrite,
  insightsFromDays,
  latencyBucket,
  latencyBucketBound,
  nearestRank,
  normalizeReason,
  periodDays,
} from '../../src/tickets/insights.js';

describe('reply-time buckets', () => {
  it('puts every time at or below its bucket bound and above the previous one', () => {
    for (const s of [0, 0.4, 1, 1.05, 1.1, 1.1000001, 2, 59.9, 60, 61, 3_600, 86_400, 1_000_000, 10 ** 7]) {
      const i = latencyBucket(s);
      expect(latencyBucketBound(i), `${s}`).toBeGreaterThanOrEqual(s);
      if (i > 0) expect(latencyBucketBound(i - 1), `${s}`).toBeLessThan(s);
    }
  });

  it('bounds grow by the ratio, so a percentile is read at most 10 % high', () => {
    expect(latencyBucketBound(40) / latencyBucketBound(39)).toBeCloseTo(LATENCY_BUCKET_RATIO, 9);
    expect(latencyBucketBound(0)).toBe(1);
  });
});

describe('nearestRank', () => {
  it.each([
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9, 9],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5, 5],
    [Array.from({ length: 70 }, (_, i) => i + 1), 0.9, 63],
    [[7], 0.9, 7],
  ])('%j at %d is %d', (values, q, want) => {
    expect(nearestRank(values, q)).toBe(want);
  });
  it('is undefined for no values', () => expect(nearestRank([], 0.5)).toBeUndefined());
});

describe('insightFieldsOnWrite', () => {
  const ticket = { createdAt: '2025-04-01T10:00:00.000Z' };
  it('counts the reply time and edit bucket of an approval', () => {
    const fields = insightFieldsOnWrite(ticket, { kind: 'approved_edited', at: '2025-04-01T11:00:00.000Z', editRatio: 0.3 }, undefined);
    expect(Object.fromEntries(fields)).toEqual({ [`lat:reviewed:${latencyBucket(3600)}`]: 1, 'er:le:0.4': 1 });
  });
  it('counts a rejection by its normalised reason, and nothing for ignored or failed', () => {
    // A rejected draft; a rejection without one is also counted as needing no reply (test/unit/insights-weekly.test.ts).
    expect(Object.fromEntries(insightFieldsOnWrite({ ...ticket, draft: 'Call us.' }, { kind: 'rejected', at: ticket.createdAt, reason: ' answered\n by  phone ' }, undefined))).toEqual({ 'rej:answered by phone': 1 });
    expect(insightFieldsOnWrite(ticket, { kind: 'ignored', at: ticket.createdAt, reason: 'list' }, undefined).size).toBe(0);
    expect(insightFieldsOnWrite(ticket, { kind: 'failed', at: ticket.createdAt }, undefined).size).toBe(0);
  });
  it('counts an agent run with its calls and tokens per model', () => {
    const call = (model: string, promptTokens: number, completionTokens: number, cachedPromptTokens?: number) => ({
      step: 'create_plan' as const,
      model,
      durationMs: 1,
      promptTokens,
      completionTokens,
      ...(cachedPromptTokens !== undefined ? { cachedPromptTokens } : {}),
    });
    const agent = {
      question: 'q',
      plan: { subtasks: [] },
      subtasks: [],
      answer: 'a',
      sources: [],
      usage: { calls: 3, promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      llmCalls: [call('gpt-4o', 100, 10, 64), call('gpt-4o', 50, 5), call('qwen2.5:7b', 30, 3)],
      truncated: false,
      droppedSubtasks: [],
      durationMs: 1,
    };
    expect(Object.fromEntries(insightFieldsOnWrite(ticket, undefined, agent))).toEqual({
      agent_runs: 1,
      'llm:gpt-4o:calls': 2,
      'llm:gpt-4o:in': 150,
      'llm:gpt-4o:cached': 64,
      'llm:gpt-4o:out': 15,
      'llm:qwen2.5:7b:calls': 1,
      'llm:qwen2.5:7b:in': 30,
      'llm:qwen2.5:7b:out': 3,
    });
  });
});

describe('insightsFromDays', () => {
  it('reads model names with colons and leaves unpriced models out of the cost', () => {
    const r = insightsFromDays(
      [
        { day: '2025-04-01', fields: { auto_sent: '3', approved_as_is: '1', agent_runs: '4', 'llm:qwen2.5:7b:calls': '8', 'llm:qwen2.5:7b:in': '1000', 'llm:gpt-4o-mini:calls': '2', 'llm:gpt-4o-mini:in': '1000000', 'llm:gpt-4o-mini:out': '1000000' } },
        { day: '2025-04-02', fields: {} },
      ],
      DEFAULT_PRICES,
    );
    expect(r.totals.automationRate).toBe(0.75);
    expect(r.daily[1]!.automationRate).toBeNull();
    expect(r.llm.unpricedModels).toEqual(['qwen2.5:7b']);
    expect(r.llm.models.map((m) => m.model)).toEqual(['gpt-4o-mini', 'qwen2.5:7b']);
    expect(r.llm.costUsd).toBeCloseTo(0.75, 9);
    expect(r.llm.callsPerRun).toBe(2.5);
    expect(r.replyTime.auto).toEqual({ count: 0, medianSeconds: null, p90Seconds: null });
  });

  it('names the time zone its days are in', () => {
    expect(insightsFromDays([{ day: '2025-04-11', fields: {} }], DEFAULT_PRICES, 'Asia/Tokyo')).toMatchObject({ from: '2025-04-11', to: '2025-04-11', timeZone: 'Asia/Tokyo' });
  });

  it('sums the bounced replies of the period', () => {
    const r = insightsFromDays([{ day: '2025-04-01', fields: { auto_sent: '3', bounced: '1' } }, { day: '2025-04-02', fields: { bounced: '2' } }, { day: '2025-04-03', fields: {} }], DEFAULT_PRICES);
    expect(r.totals.bounced).toBe(3);
    expect(r.totals.answered).toBe(3);
  });
});

describe('periodDays and normalizeReason', () => {
  it.each([
    ['UTC', '2025-03-01T23:59:59Z', 3, ['2025-02-27', '2025-02-28', '2025-03-01']],
    // 08:30 on 11 April in Tokyo: today is the 11th there, though UTC is still on the 10th.
    ['Asia/Tokyo', '2025-04-10T23:30:00Z', 2, ['2025-04-10', '2025-04-11']],
    ['Asia/Kolkata', '2025-04-10T18:29:00Z', 1, ['2025-04-10']],
    ['Asia/Kolkata', '2025-04-10T18:30:00Z', 1, ['2025-04-11']],
    // Just after the spring-forward day (23 hours): stepping back 24 h from local midnight would skip 8 March.
    ['America/New_York', '2026-03-09T04:30:00Z', 3, ['2026-03-07', '2026-03-08', '2026-03-09']],
    ['America/New_York', '2026-03-09T03:30:00Z', 2, ['2026-03-07', '2026-03-08']],
    // The fall-back day has 25 hours: its last hour is still 1 November.
    ['America/New_York', '2026-11-02T04:30:00Z', 3, ['2026-10-30', '2026-10-31', '2026-11-01']],
    ['America/New_York', '2026-11-02T05:00:00Z', 2, ['2026-11-01', '2026-11-02']],
  ] as const)('ends the period with today in %s (now %s, %i days)', (zone, now, days, want) => {
    expect(periodDays(days, new Date(now), zone)).toEqual(want);
  });

  it('refuses a period outside 1–366 days', () => {
    for (const days of [0, 367, 1.5]) expect(() => periodDays(days, new Date(), 'UTC')).toThrow(RangeError);
  });
  it('cuts long reasons and names a missing one', () => {
    expect(normalizeReason(undefined)).toBe('(none)');
    expect(Array.from(normalizeReason('あ'.repeat(500)))).toHaveLength(121);
  });
});

describe('prices', () => {
  it('knows dated snapshots by their family and prices cached input apart', () => {
    expect(priceOf(DEFAULT_PRICES, 'gpt-4o-mini-2024-07-18')).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceOf(DEFAULT_PRICES, 'gpt-4o-2024-08-06')).toBe(DEFAULT_PRICES['gpt-4o']);
    expect(priceOf(DEFAULT_PRICES, 'llama3')).toBeUndefined();
    expect(costOf({ inputPerMTok: 2, cachedInputPerMTok: 1, outputPerMTok: 8 }, { promptTokens: 1_000_000, cachedPromptTokens: 500_000, completionTokens: 1_000_000 })).toBeCloseTo(9.5, 9);
    expect(costOf({ inputPerMTok: 2, outputPerMTok: 8 }, { promptTokens: 1_000_000, cachedPromptTokens: 500_000, completionTokens: 0 })).toBeCloseTo(2, 9);
  });

  it('reads LLM_PRICES over the built-in table and names a bad one', () => {
    const config = parseConfig({ LLM_PRICES: '{"llama3": {"inputPerMTok": 0, "outputPerMTok": 0}, "gpt-4o": {"inputPerMTok": 1, "outputPerMTok": 2}}' });
    const table = priceTable(config.LLM_PRICES);
    expect(table['llama3']).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
    expect(table['gpt-4o']).toEqual({ inputPerMTok: 1, outputPerMTok: 2 });
    expect(table['gpt-4o-mini']).toEqual(DEFAULT_PRICES['gpt-4o-mini']);
    expect(() => parseConfig({ LLM_PRICES: '{not json' })).toThrow(/LLM_PRICES=.*is not JSON/);
    expect(() => parseConfig({ LLM_PRICES: '{"m": {"inputPerMTok": -1, "outputPerMTok": 0}}' })).toThrow(ConfigError);
  });
});
