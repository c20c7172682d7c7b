/**
 * The end of a model outage (AGENT_MODEL_OUTAGE_MINUTES) with many tickets waiting on two agent workers: every ticket
 * is answered by one agent run, soon after the server answers again; and a run that ends in a wait after the model
 * billed some of its calls has them counted. Real redis-server and the scripted OpenAI-compatible server. The locks
 * are longer than FAST_TIMINGS' 1.5 s, which a busy CI machine's starved event loop lost (a `stalled` event with no
 * bug behind it); a job run twice shows as a second plan call instead.
 */
import type { Job } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { httpError } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import type { JobTuning } from '../../src/queues/job-options.js';
import { rateLimitSleepMs } from '../../src/queues/registry.js';
import { startAgentWorker } from '../../src/runtime/agent-worker.js';
import type { RoleHandle } from '../../src/runtime/lifecycle.js';
import { Services } from '../../src/runtime/services.js';
import { metricsKeys } from '../../src/server/metrics.js';
import type { WorkerTimings } from '../../src/runtime/worker-timings.js';
import {
  FAST_TUNING,
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  startPipelineServers,
  waitFor,
  waitForState,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';

const QUESTION = '二段階認証を認証アプリで設定する手順を教えてください。';
/**
 * Locks of 8 s: a worker still sleeps a pause out in steps of 1 s ({@link rateLimitSleepMs}, as with the 60 s of
 * production), and a starved event loop does not lose a lock it renews.
 */
const TIMINGS: WorkerTimings = { lockDurationMs: 8_000, stalledIntervalMs: 2_000, maxStalledCount: 2 };

let servers: PipelineServers;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  servers = await startPipelineServers();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.llm.setHandler(scriptedModel());
  servers.llm.reset();
});
afterAll(async () => {
  await servers?.stop();
});

/** `agents` agent workers (no sender: a reply stays drafted), each with `concurrency`, and what they report. */
async function run(tuning: JobTuning, agents: number, concurrency: number): Promise<RunningRoles & { events: string[] }> {
  const config = parseConfig(pipelineEnv(servers, { AGENT_MODEL_OUTAGE_MINUTES: '30', AGENT_CONCURRENCY: String(concurrency) }));
  const services = new Services(config, { tuning, processName: 'test' });
  const roles: RoleHandle[] = [];
  const events: string[] = [];
  for (let i = 0; i < agents; i++) {
    const role = await startAgentWorker(services, { timings: TIMINGS, host: `machine-${i}` });
    role.worker!.on('stalled', (jobId: string) => events.push(`stalled ${jobId}`));
    role.worker!.on('failed', (job: Job | undefined, err: Error) => events.push(`failed ${job?.id}: ${err.message}`));
    roles.push(role);
  }
  const store = await services.store();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const role of roles.reverse()) await role.stop();
      await services.close();
    })());
  cleanups.push(async () => {
    await stop();
    await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
  });
  return { services, store, stop, events };
}

async function mail(running: RunningRoles, from: string, body = QUESTION): Promise<string> {
  return (await ingest(running, buildMail({ messageId: customerMessageId(), from, subject: '二段階認証について', body }))).ticketId;
}

describe('the end of a model outage', () => {
  it('answers every waiting ticket once, within seconds of the first answer', async () => {
    // Pauses of 1, 2, 4 s: a worker that slept through a pause whole (BullMQ's default step was 30 s) with a job
    // fetched and not started left it unworked (41 s after the model came back), or lost its lock, and the job ran
    // again beside its first run.
    expect(rateLimitSleepMs(TIMINGS.lockDurationMs)).toBe(1_000);
    const running = await run({ ...FAST_TUNING, modelOutagePauseMs: 1_000, modelOutageMaxPauseMs: 4_000 }, 2, 4);
    let down = true;
    let plansAnswered = 0;
    let firstAnswerAt = 0;
    servers.llm.setHandler(
      scriptedModel({
        override: (call) => {
          if (down) return httpError(503);
          if (call.kind === 'plan') {
            plansAnswered++;
            firstAnswerAt ||= Date.now();
          }
          return undefined;
        },
      }),
    );
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push(await mail(running, `c${i}@customer.example`));
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    down = false;

    let lastDraftedAt = 0;
    for (const id of ids) {
      const ticket = await waitForState(running.store, id, ['drafted', 'parked', 'failed'], 40_000);
      expect(ticket.state, ticket.reason).toBe('drafted');
      lastDraftedAt = Math.max(lastDraftedAt, Date.parse(ticket.history.at(-1)!.at));
    }
    // A second run of a job (a lock lost while a worker slept) would come within a lock's time and a stall check.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const tickets = await Promise.all(ids.map((id) => running.store.require(id)));
    for (const ticket of tickets) expect(ticket.history.filter((h) => h.to === 'drafted'), ticket.id).toHaveLength(1);
    // One agent run per ticket once the model answers: one plan call each.
    expect(plansAnswered).toBe(ids.length);
    expect(running.events.filter((e) => e.startsWith('failed') && !/waiting for the model server/.test(e))).toEqual([]);
    // Every ticket is drafted within seconds of the model's first answer, not after a worker's long sleep (30-41 s
    // with the bug); generous for a loaded CI machine, where the 16 runs alone took over 4 s.
    expect(lastDraftedAt - firstAnswerAt).toBeLessThan(10_000);
  }, 90_000);

  it('counts the calls the model billed in a run that ends in a wait', async () => {
    const running = await run({ ...FAST_TUNING, modelOutagePauseMs: 100, modelOutageMaxPauseMs: 400 }, 1, 2);
    // Plan, tool selection, subtask answer and reflection are answered; the first final answer fails with a 503.
    let finalFailed = false;
    const scripted = scriptedModel({
      override: (call) => {
        if (call.kind !== 'final_answer' || finalFailed) return undefined;
        finalFailed = true;
        return httpError(503);
      },
    });
    servers.llm.setHandler(async (request) => {
      const reply = await scripted(request);
      return reply.type === 'chat' ? { ...reply, usage: { prompt_tokens: 300, completion_tokens: 20 } } : reply;
    });
    const id = await mail(running, 'k@customer.example');
    const ticket = await waitForState(running.store, id, ['drafted', 'parked', 'failed'], 20_000);
    expect(ticket.state, ticket.reason).toBe('drafted');

    const answered = servers.llm.chatRequests().filter((r) => r.status === 200).length;
    const drafted = ticket.agent!.llmCalls.length;
    expect(answered).toBeGreaterThan(drafted);
    const redis = await running.services.producer();
    const counters = await waitFor(async () => {
      const hash = await redis.hgetall(metricsKeys(running.services.config.QUEUE_PREFIX).counters);
      return Number(hash.llm_calls ?? 0) >= answered && hash;
    }, "the waiting run's calls in the counters");
    expect(counters).toMatchObject({ llm_calls: String(answered), agent_runs_failed: '1' });
    expect(Number(counters.llm_prompt_tokens)).toBe(300 * answered);
  }, 30_000);

  it("tells a ticket held back during the outage the kind of failure only, never another ticket's server message", async () => {
    const running = await run({ ...FAST_TUNING, modelOutagePauseMs: 300, modelOutageMaxPauseMs: 300 }, 1, 4);
    // A proxy that quotes the request in its error: what one customer wrote must not reach another's ticket.
    servers.llm.setHandler(
      scriptedModel({
        override: (call) => (call.kind === 'plan' ? httpError(503, { message: `upstream failed for: ${call.question ?? ''}`, delayMs: 500 }) : undefined),
      }),
    );
    const first = await mail(running, 'first@customer.example', '注文番号 ORDER-1001 の二段階認証について教えてください。');
    await waitFor(async () => /^waiting for the model server/.test((await running.store.get(first))?.reason ?? ''), 'the first ticket to wait');
    const others: string[] = [];
    // As many as the worker runs at once: a run put back by the pause goes to the head of the queue.
    for (let i = 0; i < 3; i++) others.push(await mail(running, `other${i}@customer.example`, `注文番号 ORDER-200${i} の二段階認証について教えてください。`));

    const reasons = await waitFor(async () => {
      const all = await Promise.all([first, ...others].map((id) => running.store.get(id)));
      return all.every((t) => /^waiting for the model server/.test(t?.reason ?? '')) && all.map((t) => t!.reason!);
    }, 'every ticket to wait');
    const markers = ['ORDER-1001', 'ORDER-2000', 'ORDER-2001', 'ORDER-2002'];
    reasons.forEach((reason, i) => {
      // Its own request's error, or the kind of failure only.
      for (const [j, marker] of markers.entries()) if (j !== i) expect(reason).not.toContain(marker);
    });
    expect(reasons[0]).toContain('ORDER-1001');
    expect(reasons.filter((r) => / failed \(503\); the agent tries again by itself once it answers$/.test(r)).length).toBeGreaterThan(0);
  }, 30_000);
});
