/**
 * Phase 4, the baselines: CPU per job of a bare BullMQ worker with a no-op processor, and CPU per run of a bare
 * LangGraph graph of the agent's shape with no-op nodes, each in a child process measured from /proc exactly like
 * the product's workers. The end-to-end phase puts the product's CPU per ticket next to them.
 */
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { startRedis } from '../../src/dev/redis-server.js';
import { type BenchContext, memo } from '../lib/context.js';
import { cpuMs, startChild, type Child } from '../lib/proc.js';

/** CPU milliseconds per unit of the two baselines. */
export interface Baselines {
  bullmqJobMs: number;
  /** LangGraph as the product runs it (src/agent/langgraph.ts). */
  langgraphRunMs: number;
  /** LangGraph's main entry as is, for comparison. */
  langgraphDefaultRunMs: number;
}

export function baselines(ctx: BenchContext): Promise<Baselines> {
  return memo(ctx, 'baselines', () => measureBaselines(ctx));
}

export async function baselinesPhase(ctx: BenchContext): Promise<void> {
  const b = await baselines(ctx);
  ctx.figures.add({
    id: 'baseline.bullmq.cpuPerJob',
    phase: '4',
    name: 'bare BullMQ no-op job: worker CPU',
    value: b.bullmqJobMs,
    unit: 'ms',
    note: `${ctx.sizes.baselineJobs} jobs, concurrency 8, one worker process`,
  });
  ctx.figures.add({
    id: 'baseline.langgraph.cpuPerRun',
    phase: '4',
    name: 'bare LangGraph run (agent shape)',
    value: b.langgraphRunMs,
    unit: 'ms',
    note: `${ctx.sizes.baselineGraphRuns} runs: plan → 2 × Send(4-node subgraph) → answer, no-op nodes; as the product runs it`,
  });
  ctx.figures.add({
    id: 'baseline.langgraph.default.cpuPerRun',
    phase: '4',
    name: 'bare LangGraph run, package defaults',
    value: b.langgraphDefaultRunMs,
    unit: 'ms',
    note: 'same graph from @langchain/langgraph as is (AsyncLocalStorage, a run tree per step)',
  });
}

/**
 * Measures the baselines now, whatever was measured before: the end-to-end phase measures them again around its CPU
 * batches, whose ratios are taken against bare costs of the same minutes (the host's load moves in between).
 */
export async function measureBaselines(ctx: BenchContext): Promise<Baselines> {
  const redis = await startRedis();
  try {
    return {
      bullmqJobMs: await bullmqNoop(ctx, redis.url),
      langgraphRunMs: await bareLangGraph(ctx, 'product'),
      langgraphDefaultRunMs: await bareLangGraph(ctx, 'default'),
    };
  } finally {
    await redis.stop();
  }
}

function ipcMessage(child: Child & { process: import('node:child_process').ChildProcess }, type: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type?: string }) => {
      if (m?.type !== type) return;
      child.process.off('message', onMessage);
      resolve();
    };
    child.process.on('message', onMessage);
    void child.exited.then(() => reject(new Error(`${child.name} exited before sending ${type}; see ${child.logFile}`)));
  });
}

async function bullmqNoop(ctx: BenchContext, redisUrl: string): Promise<number> {
  const prefix = 'bench-baseline';
  const queueName = 'noop';
  const child = startChild({
    name: 'bullmq-noop',
    script: 'bench/lib/baseline-child.ts',
    args: ['bullmq'],
    env: { REDIS_URL: redisUrl, BENCH_QUEUE: queueName, BENCH_PREFIX: prefix, BENCH_CONCURRENCY: '8' },
    logFile: path.join(ctx.tmp, 'baseline-bullmq.log'),
    ipc: true,
  });
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(queueName, { connection, prefix });
  try {
    await ipcMessage(child, 'ready');
    // Warm-up, then the measured batch; jobs are kept on completion like the product's (bounded retention).
    const opts = { removeOnComplete: { count: 10_000 }, removeOnFail: { count: 50_000 } };
    const batch = async (n: number) => {
      const before = (await queue.getJobCounts('completed')).completed ?? 0;
      for (let i = 0; i < n; i += 500) await queue.addBulk(Array.from({ length: Math.min(500, n - i) }, () => ({ name: 'noop', data: { n: i }, opts })));
      for (;;) {
        const done = (await queue.getJobCounts('completed')).completed ?? 0;
        if (done - before >= n) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await batch(200);
    const cpu0 = await cpuMs(child.pid);
    await batch(ctx.sizes.baselineJobs);
    const cpu1 = await cpuMs(child.pid);
    return (cpu1 - cpu0) / ctx.sizes.baselineJobs;
  } finally {
    await queue.close();
    connection.disconnect();
    await child.stop(5_000);
  }
}

async function bareLangGraph(ctx: BenchContext, flavor: 'product' | 'default'): Promise<number> {
  const child = startChild({
    name: `langgraph-bare-${flavor}`,
    script: 'bench/lib/baseline-child.ts',
    args: ['langgraph', flavor],
    env: {},
    logFile: path.join(ctx.tmp, `baseline-langgraph-${flavor}.log`),
    ipc: true,
  });
  try {
    await ipcMessage(child, 'ready');
    const cpu0 = await cpuMs(child.pid);
    const done = ipcMessage(child, 'done');
    child.process.send({ type: 'go', runs: ctx.sizes.baselineGraphRuns });
    await done;
    const cpu1 = await cpuMs(child.pid);
    return (cpu1 - cpu0) / ctx.sizes.baselineGraphRuns;
  } finally {
    await child.stop(5_000);
  }
}
