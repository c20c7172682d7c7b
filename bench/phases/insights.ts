/**
 * Phase 9: the insights API with 100,000 tickets stored. A private redis-server is filled through the product's own
 * ticket store — every ticket created and moved through its states (auto-sent, approved as is or edited, rejected,
 * ignored, failed) with the store's clock spread over 120 days, so the daily aggregates are the ones real traffic
 * leaves — then `GET /api/insights` is timed over HTTP against the dashboard app for 30 and 365 days. The page reads
 * one hash per day, so the figure should not move with the number of tickets.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentResult } from '../../src/agent/types.js';
import { parseConfig } from '../../src/config.js';
import { startRedis } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues } from '../../src/queues/registry.js';
import { createDashboardApp } from '../../src/server/app.js';
import { newTicket, type Ticket } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import type { BenchContext } from '../lib/context.js';
import { prng, quantile } from '../lib/stats.js';

const PREFIX = 'bench-insights';
const SPREAD_DAYS = 120;
/** Tickets seeded at once: each lane has its own store clock. */
const LANES = 64;
const TIMED_REQUESTS = 20;
const DRAFT = 'お世話になっております。\n\n設定画面の「セキュリティ」から二段階認証を有効にできます。\n\nよろしくお願いいたします。';

export async function insightsPhase(ctx: BenchContext): Promise<void> {
  const tickets = ctx.quick ? 2_000 : 100_000;
  const redisServer = await startRedis();
  const redis = await connectProducer(redisServer.url);
  const queues = createQueues(redis, PREFIX);
  let server: ReturnType<typeof createServer> | undefined;
  try {
    ctx.log(`insights: seeding ${tickets} tickets through the ticket store (${LANES} at a time, over ${SPREAD_DAYS} days)`);
    const seedStarted = performance.now();
    const now = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: LANES }, async (_, lane) => {
        const rand = prng(lane + 1);
        let clock = now;
        const store = new TicketStore(redis, { prefix: PREFIX, now: () => new Date(clock) });
        while (next < tickets) {
          const i = next++;
          clock = now - Math.floor(rand() * SPREAD_DAYS * 86_400_000) - 3_600_000 * 6;
          await seedTicket(store, i, rand, () => new Date(clock), (ms) => (clock += ms));
          if (i > 0 && i % 20_000 === 0) ctx.log(`insights: ${i} tickets stored`);
        }
      }),
    );
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const stored = await redis.zcard(new TicketStore(redis, { prefix: PREFIX }).keys().all);

    const config = parseConfig({ QUEUE_PREFIX: PREFIX, REDIS_URL: redisServer.url, DASHBOARD_AUTH: 'off' });
    const app = createDashboardApp({ config, redis, store: new TicketStore(redis, { prefix: PREFIX }), queues });
    const listening = createServer(app);
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    for (const days of [30, 365]) {
      const times: number[] = [];
      let ended = 0;
      for (let i = 0; i < TIMED_REQUESTS + 2; i++) {
        const started = performance.now();
        const res = await fetch(`${base}/api/insights?days=${days}`);
        const body = (await res.json()) as { totals?: { ended: number } };
        if (res.status !== 200 || !body.totals) throw new Error(`GET /api/insights?days=${days} answered ${res.status}`);
        // The first two warm the JIT and the connection.
        if (i >= 2) times.push(performance.now() - started);
        ended = body.totals.ended;
      }
      ctx.figures.add({
        id: `insights.api.${days}d.p95`,
        phase: '9',
        name: `GET /api/insights?days=${days}, p95`,
        value: quantile(times, 0.95),
        unit: 'ms',
        ...(days === 30 && !ctx.quick ? { target: { op: '<=' as const, limit: 1000 } } : {}),
        note: `${stored} tickets stored (${ended} ended in the period), ${times.length} requests over HTTP; median ${quantile(times, 0.5).toFixed(1)} ms`,
      });
    }
    ctx.figures.add({
      id: 'insights.seed.ticketsPerSecond',
      phase: '9',
      name: 'tickets through the store (seeding)',
      value: tickets / seedSeconds,
      unit: 'tickets/s',
      note: `${tickets} tickets, each 2–6 store writes with the aggregates, in ${seedSeconds.toFixed(1)} s`,
    });
  } finally {
    if (server) {
      const s = server;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    }
    await closeAll(queues).catch(() => undefined);
    redis.disconnect();
    await redisServer.stop();
  }
}

/** One ticket of the mix (60 % auto-sent, 25 % approved, 7 % rejected, 5 % ignored, 3 % failed) through the store. */
async function seedTicket(store: TicketStore, i: number, rand: () => number, now: () => Date, advance: (ms: number) => void): Promise<void> {
  const r = rand();
  const ignored = r >= 0.92 && r < 0.97;
  const ticket = newTicket(
    {
      messageId: `<bench-${i}@customer.example>`,
      from: `c${i % 5000}@customer.example`,
      subject: `Question ${i}`,
      question: '二段階認証の設定方法を教えてください。',
      actor: 'poller',
      ...(ignored ? { state: 'ignored' as const, reason: 'auto-reply: Auto-Submitted: auto-replied' } : {}),
    },
    now(),
  );
  const { ticket: created } = await store.createIfAbsent(ticket);
  if (ignored) return;
  let current = await store.transition(ticket.id, { to: 'processing', actor: 'agent-worker', current: created });
  advance(5_000 + Math.floor(rand() * 30_000));
  if (r >= 0.97) {
    await store.transition(ticket.id, { to: 'failed', actor: 'agent-worker', patch: { reason: 'raw mail missing' }, current });
    return;
  }
  const agent = agentResult(rand);
  if (r < 0.6) {
    current = await store.transition(ticket.id, { to: 'drafted', actor: 'agent-worker', patch: { agent, draft: DRAFT }, current });
    advance(2_000);
    current = await store.transition(ticket.id, { to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${i}@helpdesk.test>`, autoSubmitted: true } }, current: withoutAgent(current) });
    advance(1_000);
    await store.transition(ticket.id, { to: 'sent', actor: 'sender', current });
    return;
  }
  current = await store.transition(ticket.id, { to: 'parked', actor: 'agent-worker', patch: { agent, draft: DRAFT, reason: 'review' }, current });
  advance((5 + Math.floor(rand() * 600)) * 60_000);
  if (r < 0.85) {
    const edited = rand() < 0.4;
    const approval = { edited, editRatio: edited ? Math.round(rand() * 6_000) / 10_000 : 0 };
    current = await store.transition(ticket.id, { to: 'approved', actor: 'operator:anna', patch: { approval }, current: withoutAgent(current) });
    advance(3_000);
    current = await store.transition(ticket.id, { to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${i}@helpdesk.test>`, autoSubmitted: false } }, current });
    advance(1_000);
    await store.transition(ticket.id, { to: 'sent', actor: 'sender', current });
    return;
  }
  const reasons = ['answered by phone', 'not a support question', 'duplicate', 'customer wrote again'];
  await store.transition(ticket.id, { to: 'rejected', actor: 'operator:anna', patch: { reason: reasons[Math.floor(rand() * reasons.length)]! }, current: withoutAgent(current) });
}

/**
 * The ticket as the next write may start from it: a copy holding the agent result is never trusted by the store (it
 * reads the ticket again), so the seeding drops it after the write that stored it, as the pipeline's steps do.
 */
function withoutAgent(ticket: Ticket): Ticket {
  const { agent: _agent, ...rest } = ticket;
  return rest;
}

function agentResult(rand: () => number): AgentResult {
  const calls = 4 + Math.floor(rand() * 6);
  const llmCalls = Array.from({ length: calls }, () => ({
    step: 'create_subtask_answer' as const,
    model: 'gpt-4o-mini',
    durationMs: 800,
    promptTokens: 1500 + Math.floor(rand() * 2000),
    completionTokens: 100 + Math.floor(rand() * 300),
    cachedPromptTokens: 1024,
  }));
  return { question: 'q', plan: { subtasks: [] }, subtasks: [], answer: DRAFT, sources: [], usage: { calls, promptTokens: 0, completionTokens: 0, totalTokens: 0 }, llmCalls, truncated: false, droppedSubtasks: [], durationMs: 9000 };
}
