/**
 * `/api/insights` and `/insights` over real HTTP against a real redis-server: a few dozen tickets spread over several
 * days go through the real store transitions and review actions (auto-sent, approved as is and edited, rejected with
 * reasons, ignored, failed), then the API's figures — read from the daily aggregates only — must equal a
 * recomputation from the tickets themselves, with days in the process's time zone (UTC, Tokyo, New York). Also: the
 * period filter, the provider sections (shown only with data), the page's SVG and tables under the review CSP, and a
 * refused `days`.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentResult, LlmCallRecord } from '../../src/agent/types.js';
import { parseConfig } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { createDashboardApp } from '../../src/server/app.js';
import { metricsKeys, recordFailedAgentRun, recordModelCalls } from '../../src/server/metrics.js';
import type { InsightProviders, InsightsReport } from '../../src/server/insights.js';
import { REVIEW_CSP } from '../../src/server/security.js';
import { latencyBucket, latencyBucketBound, nearestRank, normalizeReason, roundSeconds } from '../../src/tickets/insights.js';
import { EDIT_RATIO_BUCKETS, OUTCOMES, type OutcomeKind } from '../../src/tickets/outcome.js';
import { approveTicket, rejectTicket } from '../../src/tickets/review.js';
import { newTicket, type Ticket } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { removePrefix } from '../support/pipeline.js';

const USER = 'admin';
const PASSWORD = 'insights-test-password';
/** "Today" for the dashboard: the API's periods end on this day. */
const TODAY = new Date('2025-04-10T23:30:00Z');
const DAY_MS = 86_400_000;
// Prices of this test (LLM_PRICES); `local-llm` has none, so its tokens must stay out of the cost.
const PRICES = { 'gpt-4o-mini': { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 }, 'big-model': { inputPerMTok: 3, outputPerMTok: 15 } };
const REASONS = ['answered by phone', 'wrong   product', 'duplicate of an earlier ticket'];

let redisServer: RedisServer;
let redis: Redis;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  redisServer = await startRedis();
  redis = await connectProducer(redisServer.url);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  restoreZone();
  redis?.disconnect();
  await redisServer?.stop();
});

interface Fixture {
  url: string;
  /** QUEUE_PREFIX of this fixture. */
  prefix: string;
  store: TicketStore;
  queues: Queues;
  /** Sets the store's clock. */
  at(ms: number): void;
}

async function start(providers?: InsightProviders): Promise<Fixture> {
  const prefix = `ins${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  let clock = TODAY.getTime();
  const store = new TicketStore(redis, { prefix, now: () => new Date(clock) });
  const queues = createQueues(redis, prefix);
  const config = parseConfig({ REDIS_URL: redisServer.url, QUEUE_PREFIX: prefix, DASHBOARD_USER: USER, DASHBOARD_PASSWORD: PASSWORD, LLM_PRICES: JSON.stringify(PRICES) });
  const app = createDashboardApp({ config, redis, store, queues, now: () => TODAY, ...(providers ? { insightProviders: providers } : {}) });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    await closeAll(queues).catch(() => undefined);
    await removePrefix(redisServer.url, prefix);
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, prefix, store, queues, at: (ms) => (clock = ms) };
}

function get(f: Fixture, path: string): Promise<Response> {
  return fetch(`${f.url}${path}`, { headers: { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` } });
}

/** A deterministic sequence (mulberry32), so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function agentResult(answer: string, calls: LlmCallRecord[]): AgentResult {
  const usage = {
    calls: calls.length,
    promptTokens: calls.reduce((n, c) => n + c.promptTokens, 0),
    completionTokens: calls.reduce((n, c) => n + c.completionTokens, 0),
    totalTokens: calls.reduce((n, c) => n + c.promptTokens + c.completionTokens, 0),
  };
  return { question: 'q', plan: { subtasks: [] }, subtasks: [], answer, sources: [], usage, llmCalls: calls, truncated: false, droppedSubtasks: [], durationMs: 10 };
}

const DRAFT = 'お世話になっております。\n\n設定画面の「セキュリティ」から二段階認証を有効にできます。\n認証アプリでQRコードを読み取ってください。\n\nよろしくお願いいたします。';

/**
 * Seeds `count` tickets over the `spreadDays` days before {@link TODAY}, each through the pipeline's transitions with
 * the store's clock moving forward by a random few minutes to hours per step (some replies land on the next day).
 */
async function seed(f: Fixture, count: number, spreadDays: number, seedValue: number): Promise<void> {
  const rand = prng(seedValue);
  const minutes = (max: number) => Math.floor(1 + rand() * max) * 60_000;
  const models = ['gpt-4o-mini', 'local-llm', 'big-model'];
  const review = { store: f.store, outbound: f.queues.outbound, redis, config: { SENDER_ATTEMPTS: 3 } };
  for (let i = 0; i < count; i++) {
    let t = TODAY.getTime() - Math.floor(rand() * spreadDays) * DAY_MS - Math.floor(rand() * 20) * 3_600_000 - 3_600_000;
    const step = (ms: number) => f.at((t += ms));
    const kind = Math.floor(rand() * 7);
    f.at(t);
    const created = newTicket(
      {
        messageId: `<seed-${i}-${randomUUID()}@customer.example>`,
        from: `c${i}@customer.example`,
        subject: `Question ${i}`,
        question: 'How do I turn on two-factor authentication?',
        actor: 'poller',
        ...(kind === 6 ? { state: 'ignored' as const, reason: 'auto-reply: Auto-Submitted: auto-replied' } : {}),
      },
      new Date(t),
    );
    await f.store.createIfAbsent(created);
    if (kind === 6) continue;
    step(minutes(5));
    await f.store.transition(created.id, { to: 'processing', actor: 'agent-worker' });
    if (kind === 5) {
      step(minutes(5));
      await f.store.transition(created.id, { to: 'failed', actor: 'agent-worker', patch: { reason: 'raw mail missing' } });
      continue;
    }
    const calls: LlmCallRecord[] = Array.from({ length: 2 + Math.floor(rand() * 4) }, () => ({
      step: 'create_plan' as const,
      model: models[Math.floor(rand() * models.length)]!,
      durationMs: 100,
      promptTokens: 500 + Math.floor(rand() * 3000),
      completionTokens: 50 + Math.floor(rand() * 400),
      ...(rand() < 0.5 ? { cachedPromptTokens: 256 } : {}),
    }));
    const agent = agentResult(DRAFT, calls);
    step(minutes(3));
    if (kind <= 1) {
      await f.store.transition(created.id, { to: 'drafted', actor: 'agent-worker', patch: { agent, draft: DRAFT } });
      step(minutes(2));
      await f.store.transition(created.id, { to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${i}@helpdesk.test>`, autoSubmitted: true } } });
      step(minutes(1));
      await f.store.transition(created.id, { to: 'sent', actor: 'sender' });
      continue;
    }
    await f.store.transition(created.id, { to: 'parked', actor: 'agent-worker', patch: { agent, draft: DRAFT, reason: 'review mode always' } });
    step(minutes(600));
    if (kind === 4) {
      const reason = REASONS[Math.floor(rand() * REASONS.length)]!;
      expect((await rejectTicket({ store: f.store }, { ticketId: created.id, operator: 'anna', reason })).outcome).toBe('rejected');
      continue;
    }
    const reply = kind === 2 ? undefined : DRAFT.replace('認証アプリ', rand() < 0.5 ? 'Google Authenticator などの認証アプリ' : '認証用のスマートフォンアプリ');
    expect((await approveTicket(review, { ticketId: created.id, operator: 'anna', ...(reply ? { reply } : {}) })).outcome).toBe('approved');
    step(minutes(2));
    await f.store.transition(created.id, { to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${i}@helpdesk.test>`, autoSubmitted: false } } });
    step(minutes(1));
    await f.store.transition(created.id, { to: 'sent', actor: 'sender' });
  }
}

/** Every ticket of the fixture, from the store's list (what a recomputation without aggregates has to read). */
async function allTickets(f: Fixture): Promise<Ticket[]> {
  const page = await f.store.list({ limit: 500 });
  return page.tickets;
}

const STARTED_ZONE = process.env.TZ;

/** Runs this process in `zone` (as `TZ` does for every role) until {@link restoreZone}. */
function useZone(zone: string): void {
  process.env.TZ = zone;
  cleanups.push(async () => restoreZone());
}

function restoreZone(): void {
  if (STARTED_ZONE === undefined) delete process.env.TZ;
  else process.env.TZ = STARTED_ZONE;
}

/** The calendar day of `iso` in this process's zone, by another route than the code under test. */
const dayOf = (iso: string) => new Date(iso).toLocaleDateString('sv-SE');

/** The figures of the API, recomputed from the tickets with no aggregate at all. */
function recompute(tickets: readonly Ticket[], days: readonly string[]) {
  const inPeriod = (iso: string) => days.includes(dayOf(iso));
  const perDay = new Map(days.map((d) => [d, Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<OutcomeKind, number>]));
  const times: Record<'auto' | 'reviewed', number[]> = { auto: [], reviewed: [] };
  const ratios: number[] = [];
  const reasons = new Map<string, number>();
  const tokens = new Map<string, { calls: number; promptTokens: number; cachedPromptTokens: number; completionTokens: number }>();
  let runs = 0;
  for (const t of tickets) {
    const o = t.outcome;
    if (o && inPeriod(o.at)) {
      perDay.get(dayOf(o.at))![o.kind]++;
      const seconds = (Date.parse(o.at) - Date.parse(t.createdAt)) / 1000;
      if (o.kind === 'auto_sent') times.auto.push(seconds);
      if (o.kind === 'approved_as_is' || o.kind === 'approved_edited') {
        times.reviewed.push(seconds);
        ratios.push(o.editRatio!);
      }
      if (o.kind === 'rejected') reasons.set(normalizeReason(o.reason), (reasons.get(normalizeReason(o.reason)) ?? 0) + 1);
    }
    // The agent result is counted on the day the agent stored it: the history entry leaving `processing` with it.
    const stored = t.history.find((h) => h.from === 'processing' && (h.to === 'drafted' || h.to === 'parked'));
    if (t.agent && stored && inPeriod(stored.at)) {
      runs++;
      for (const call of t.agent.llmCalls) {
        const m = tokens.get(call.model) ?? { calls: 0, promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0 };
        m.calls++;
        m.promptTokens += call.promptTokens;
        m.cachedPromptTokens += call.cachedPromptTokens ?? 0;
        m.completionTokens += call.completionTokens;
        tokens.set(call.model, m);
      }
    }
  }
  const percentile = (values: number[], q: number) => {
    const exact = nearestRank([...values].sort((a, b) => a - b), q);
    return exact === undefined ? null : { exact, reported: roundSeconds(latencyBucketBound(latencyBucket(exact))) };
  };
  const cost = [...tokens.entries()].reduce((sum, [model, m]) => {
    const p = (PRICES as Record<string, { inputPerMTok: number; outputPerMTok: number; cachedInputPerMTok?: number }>)[model];
    if (!p) return sum;
    return sum + ((m.promptTokens - m.cachedPromptTokens) * p.inputPerMTok + m.cachedPromptTokens * (p.cachedInputPerMTok ?? p.inputPerMTok) + m.completionTokens * p.outputPerMTok) / 1e6;
  }, 0);
  const buckets = EDIT_RATIO_BUCKETS.map((le, i) => ({ le, count: ratios.filter((r) => r <= le && (i === 0 || r > EDIT_RATIO_BUCKETS[i - 1]!)).length }));
  return { perDay, times, percentile, ratios, buckets, reasons, tokens, runs, cost };
}

/** The `days` calendar days ending with {@link TODAY}'s day in this process's zone. */
function periodOf(days: number): string[] {
  const [y, m, d] = dayOf(TODAY.toISOString()).split('-').map(Number) as [number, number, number];
  return Array.from({ length: days }, (_, i) => new Date(Date.UTC(y, m - 1, d - (days - 1 - i))).toISOString().slice(0, 10));
}

/** The days of `period` by the Monday of their week, by another route than the code under test. */
function mondaysOf(period: readonly string[]): Map<string, string[]> {
  const weeks = new Map<string, string[]>();
  for (const day of period) {
    const noon = Date.parse(`${day}T12:00:00Z`);
    const monday = new Date(noon - ((new Date(noon).getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10);
    weeks.set(monday, [...(weeks.get(monday) ?? []), day]);
  }
  return weeks;
}

describe('insights API', () => {
  // TODAY is 08:30 on 11 April in Tokyo and 19:30 on 10 April in New York: each zone cuts the days elsewhere.
  it.each(['UTC', 'Asia/Tokyo', 'America/New_York'])('answers the same numbers as a recomputation from the tickets, for the whole spread and a shorter period, in %s', async (zone) => {
    useZone(zone);
    const periods: Array<{ from: string; to: string; limit: number }> = [];
    const f = await start({ gaps: { topGaps: async (period) => (periods.push(period), []) } });
    await seed(f, 42, 6, 15);
    const tickets = await allTickets(f);
    expect(tickets).toHaveLength(42);

    for (const days of [7, 3]) {
      const res = await get(f, `/api/insights?days=${days}`);
      expect(res.status).toBe(200);
      const api = (await res.json()) as InsightsReport;
      const period = periodOf(days);
      const want = recompute(tickets, period);

      expect(api.from).toBe(period[0]);
      expect(api.to).toBe(period.at(-1));
      expect(api.daily.map((d) => d.day)).toEqual(period);
      for (const d of api.daily) {
        expect(d.outcomes, d.day).toEqual(want.perDay.get(d.day));
        const answered = d.outcomes.auto_sent + d.outcomes.approved_as_is + d.outcomes.approved_edited;
        expect(d.answered).toBe(answered);
        expect(d.automationRate).toBe(answered > 0 ? d.outcomes.auto_sent / answered : null);
      }
      const totals = Object.fromEntries(OUTCOMES.map((o) => [o, period.reduce((n, day) => n + want.perDay.get(day)![o], 0)]));
      expect(api.totals.outcomes).toEqual(totals);
      expect(api.totals.ended).toBe(Object.values(totals).reduce((a, b) => a + b, 0));

      for (const kind of ['auto', 'reviewed'] as const) {
        const stats = api.replyTime[kind];
        expect(stats.count).toBe(want.times[kind].length);
        for (const [q, got] of [
          [0.5, stats.medianSeconds],
          [0.9, stats.p90Seconds],
        ] as const) {
          const p = want.percentile(want.times[kind], q);
          expect(got).toBe(p?.reported ?? null);
          // The bucketed figure is never below the exact percentile and at most 10 % above it.
          if (p) {
            expect(got!).toBeGreaterThanOrEqual(p.exact - 0.05);
            expect(got!).toBeLessThanOrEqual(p.exact * 1.1 + 0.05);
          }
        }
      }

      expect(api.editRatio.count).toBe(want.ratios.length);
      expect(api.editRatio.buckets).toEqual(want.buckets);
      if (want.ratios.length > 0) expect(api.editRatio.mean).toBeCloseTo(want.ratios.reduce((a, b) => a + b, 0) / want.ratios.length, 5);
      else expect(api.editRatio.mean).toBeNull();
      expect(api.rejectionReasons).toEqual([...want.reasons.entries()].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)));

      expect(api.llm.agentRuns).toBe(want.runs);
      const models = Object.fromEntries(api.llm.models.map((m) => [m.model, { calls: m.calls, promptTokens: m.promptTokens, cachedPromptTokens: m.cachedPromptTokens, completionTokens: m.completionTokens }]));
      expect(models).toEqual(Object.fromEntries(want.tokens));
      expect(api.llm.calls).toBe([...want.tokens.values()].reduce((n, m) => n + m.calls, 0));
      expect(api.llm.costUsd).toBeCloseTo(want.cost, 9);
      expect(api.llm.unpricedModels).toEqual(want.tokens.has('local-llm') ? ['local-llm'] : []);
      expect(api.daily.reduce((n, d) => n + (d.costUsd ?? 0), 0)).toBeCloseTo(want.cost, 9);
      expect(api.timeZone).toBe(zone);
      expect(periods.at(-1)).toEqual({ from: period[0], to: period.at(-1), limit: 10 });

      // Weeks from Monday in the zone: the sums of their days, and the mail in counted from the tickets' creation.
      const weeks = mondaysOf(period);
      expect(api.weekly.map((w) => w.week)).toEqual([...weeks.keys()]);
      for (const w of api.weekly) {
        const weekDays = weeks.get(w.week)!;
        const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, weekDays.reduce((n, day) => n + want.perDay.get(day)![o], 0)]));
        expect(w.outcomes, w.week).toEqual(outcomes);
        expect([w.from, w.to, w.days]).toEqual([weekDays[0], weekDays.at(-1), weekDays.length]);
        expect(w.mailIn, w.week).toBe(tickets.filter((t) => weekDays.includes(dayOf(t.createdAt))).length);
        const answered = outcomes.auto_sent! + outcomes.approved_as_is! + outcomes.approved_edited!;
        const well = outcomes.auto_sent! + outcomes.approved_as_is!;
        // Mail that needed an answer: every ending but ignored, and what still waits, in the week it came in.
        const waiting = tickets.filter((t) => !t.outcome && weekDays.includes(dayOf(t.createdAt))).length;
        const needing = answered + outcomes.rejected! + outcomes.failed! + waiting;
        expect([w.waiting, w.needingAnswer], w.week).toEqual([waiting, needing]);
        expect(w.answeredWell).toBe(needing > 0 ? well / needing : null);
        expect(w.answeredWellOfReplies).toBe(answered > 0 ? well / answered : null);
      }
    }
    const page = await (await get(f, '/insights?days=3')).text();
    expect(page).toContain(`${periodOf(3)[0]} – ${periodOf(3).at(-1)} (${zone})`);

    // The seed covers every outcome, so the comparison above was not vacuous.
    const all = (await (await get(f, '/api/insights?days=30')).json()) as InsightsReport;
    for (const o of OUTCOMES) expect(all.totals.outcomes[o], o).toBeGreaterThan(0);
    expect(all.rejectionReasons.map((r) => r.reason)).toContain('wrong product');
    expect(all.knowledgeGaps).toBeUndefined();
    expect(all.sourceTrust).toBeUndefined();
  });

  it('renders the page: SVG charts with a table under each, under the review CSP; provider sections only with data', async () => {
    const empty: InsightProviders = { gaps: { topGaps: async () => [] }, trust: { sourceRecords: async () => [] } };
    const bare = await start(empty);
    await seed(bare, 8, 2, 3);
    const page = await get(bare, '/insights?days=7');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(REVIEW_CSP);
    const body = await page.text();
    expect(body).toContain('<svg class="chart"');
    expect(body).toContain('Tickets per day by outcome');
    expect(body.match(/<table class="numbers">/g)!.length).toBeGreaterThanOrEqual(4);
    expect(body).not.toMatch(/<script|<img|https?:\/\/(?!www\.w3\.org)/);
    expect(body).not.toContain('knowledge gaps');
    expect(body).not.toContain('not-yet-trusted');

    const providers: InsightProviders = {
      gaps: {
        topGaps: async ({ from, to, limit }) => {
          expect({ from, to, limit }).toEqual({ from: periodOf(30)[0], to: periodOf(30).at(-1), limit: 10 });
          return [{ topic: '請求書の再発行 <b>', tickets: 4, example: '請求書をもう一度送ってください' }];
        },
      },
      trust: {
        sourceRecords: async () => [
          { sourceId: 'guide/login.md#3', reviews: 3, approvedAsIs: 3, trusted: false, missing: '3 of 5 reviews' },
          { sourceId: 'qa:faq.csv#12', reviews: 7, approvedAsIs: 7, trusted: true },
          { sourceId: 'manual:xyz-manual.md#56f291ea4a12', reviews: 1, approvedAsIs: 0, trusted: false, missing: '1 of 5 reviews' },
        ],
      },
    };
    const fed = await start(providers);
    const api = (await (await get(fed, '/api/insights')).json()) as InsightsReport;
    expect(api.days).toBe(30);
    expect(api.knowledgeGaps).toEqual([{ topic: '請求書の再発行 <b>', tickets: 4, example: '請求書をもう一度送ってください' }]);
    expect(api.sourceTrust).toEqual({
      trusted: 1,
      notYetTrusted: 2,
      sources: [
        { sourceId: 'qa:faq.csv#12', reviews: 7, approvedAsIs: 7, trusted: true },
        { sourceId: 'guide/login.md#3', reviews: 3, approvedAsIs: 3, trusted: false, missing: '3 of 5 reviews' },
        { sourceId: 'manual:xyz-manual.md#56f291ea4a12', reviews: 1, approvedAsIs: 0, trusted: false, missing: '1 of 5 reviews' },
      ],
    });
    const html = await (await get(fed, '/insights')).text();
    expect(html).toContain('Top knowledge gaps');
    expect(html).toContain('請求書の再発行 &lt;b&gt;');
    expect(html).toContain('not yet trusted: 3 of 5 reviews');
    // A source by its file first; the key, ending in a hash of the text, only tells sections of one file apart.
    expect(html).toMatch(/<td><bdi>xyz-manual\.md<\/bdi><br><code class="small muted">manual:xyz-manual\.md#56f291ea4a12<\/code><\/td>/);
  });

  it('counts the calls of agent runs that failed in the tokens and cost, not as runs, and shows them on the page', async () => {
    const f = await start();
    // A day on which the model server broke off every run: nothing was stored, the calls it answered were billed.
    const call = (promptTokens: number): LlmCallRecord => ({ step: 'select_tools', subtask: 's', model: 'gpt-4o-mini', durationMs: 5, promptTokens, completionTokens: 100_000 });
    const calls = [call(1_000_000), call(1_000_000)];
    const usage = { calls: 2, promptTokens: 2_000_000, completionTokens: 200_000, totalTokens: 2_200_000 };
    await recordFailedAgentRun(redis, f.prefix, { usage, llmCalls: calls }, TODAY);
    await recordFailedAgentRun(redis, f.prefix, { usage: { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 }, llmCalls: [] }, TODAY);

    const api = (await (await get(f, '/api/insights?days=1')).json()) as InsightsReport;
    expect(api.llm).toMatchObject({ agentRuns: 0, calls: 2, promptTokens: 2_000_000, completionTokens: 200_000, callsPerRun: null, costPerRun: null });
    // 2 M prompt tokens at $0.15 and 0.2 M completion tokens at $0.60 per million.
    expect(api.llm.costUsd).toBeCloseTo(0.42);
    const html = await (await get(f, '/insights?days=1')).text();
    expect(html).not.toContain('The agent did not run in this period.');
    expect(html).toContain('<code>gpt-4o-mini</code>');
  });

  it("counts the calls of a failed run and of a proposal on their day in the process's zone", async () => {
    useZone('Asia/Tokyo');
    const f = await start();
    const call = (model: string): LlmCallRecord => ({ step: 'select_tools', subtask: 's', model, durationMs: 5, promptTokens: 1_000, completionTokens: 10 });
    // 23:30 on 10 April in Tokyo (still the 10th in UTC, as TODAY is): the day before TODAY's Tokyo day.
    const lateOnThe10th = new Date('2025-04-10T14:30:00Z');
    await recordFailedAgentRun(redis, f.prefix, { usage: { calls: 1, promptTokens: 1_000, completionTokens: 10, totalTokens: 1_010 }, llmCalls: [call('failed-run')] }, lateOnThe10th);
    await recordModelCalls(redis, f.prefix, [{ model: 'proposal', promptTokens: 1_000, completionTokens: 10 }], TODAY);

    const api = (await (await get(f, '/api/insights?days=2')).json()) as InsightsReport;
    expect(api.daily.map((d) => [d.day, d.llmCalls])).toEqual([
      ['2025-04-10', 1],
      ['2025-04-11', 1],
    ]);
    expect(api.llm.models.map((m) => m.model).sort()).toEqual(['failed-run', 'proposal']);
  });

  it('counts the model calls of learned-answer proposals in the calls, tokens and cost, not as runs', async () => {
    const f = await start();
    const calls = [
      { model: 'gpt-4o-mini', promptTokens: 1_000_000, completionTokens: 100_000 },
      { model: 'gpt-4o-mini', promptTokens: 1_000_000, completionTokens: 100_000, cachedPromptTokens: 0 },
    ];
    await recordModelCalls(redis, f.prefix, calls, TODAY);
    await recordModelCalls(redis, f.prefix, [], TODAY);

    const api = (await (await get(f, '/api/insights?days=1')).json()) as InsightsReport;
    expect(api.llm).toMatchObject({ agentRuns: 0, calls: 2, promptTokens: 2_000_000, completionTokens: 200_000 });
    expect(api.llm.costUsd).toBeCloseTo(0.42);
    expect(await redis.hgetall(metricsKeys(f.prefix).counters)).toEqual({ llm_calls: '2', llm_prompt_tokens: '2000000', llm_completion_tokens: '200000' });
  });

  it('refuses a period outside 1–366 days', async () => {
    const f = await start();
    for (const days of ['0', '367', 'abc']) {
      const res = await get(f, `/api/insights?days=${days}`);
      expect(res.status, days).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/days/);
    }
    expect((await get(f, '/insights?days=0')).status).toBe(400);
  });
});
