/**
 * A person takes over a ticket that waits for the model server (AGENT_MODEL_OUTAGE_MINUTES): once the model answers
 * again, the agent worker leaves it parked with the person's reason and sends nothing; the person's approval sends
 * their reply, once. Also when a run was under way at the take-over: its draft is not stored. Real redis-server, SMTP
 * receiver and the scripted OpenAI-compatible server (503 while "down"), the pauses shortened through JobTuning.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { httpError, type ChatRequest, type ScriptedResponse } from '../../src/dev/openai-server.js';
import { classify, scriptedModel } from '../../src/dev/scripted-model.js';
import { answerJobId, type JobTuning } from '../../src/queues/job-options.js';
import { startAgentWorker } from '../../src/runtime/agent-worker.js';
import type { RoleHandle } from '../../src/runtime/lifecycle.js';
import { startSender } from '../../src/runtime/sender.js';
import { Services } from '../../src/runtime/services.js';
import { MODEL_SERVER_WAIT_NOTE } from '../../src/tickets/park-notes.js';
import { approveTicket, rerunAgent, takeOverReason, takeOverTicket } from '../../src/tickets/review.js';
import type { WorkerTimings } from '../../src/runtime/worker-timings.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import {
  FAST_TIMINGS,
  FAST_TUNING,
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  startPipelineServers,
  waitFor,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';

const TUNING: JobTuning = { ...FAST_TUNING, modelOutagePauseMs: 100, modelOutageMaxPauseMs: 400 };
/**
 * Locks longer than FAST_TIMINGS' 1.5 s: on a busy CI machine a starved event loop lost one, and the job's second run
 * (which found the ticket parked) completed in place of the run under way.
 */
const TIMINGS: WorkerTimings = { ...FAST_TIMINGS, lockDurationMs: 8_000, stalledIntervalMs: 2_000 };
const QUESTION = '二段階認証を認証アプリで設定する手順を教えてください。';
const OPERATOR_REPLY = 'お問い合わせありがとうございます。\n\n設定画面の「セキュリティ」から認証アプリを登録してください。';

let servers: PipelineServers;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  servers = await startPipelineServers();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.smtp.clear();
  servers.llm.setHandler(scriptedModel());
  servers.llm.reset();
});
afterAll(async () => {
  await servers?.stop();
});

async function run(tuning: JobTuning = TUNING, env: Record<string, string> = {}): Promise<RunningRoles> {
  const config = parseConfig(pipelineEnv(servers, { AGENT_MODEL_OUTAGE_MINUTES: '30', ...env }));
  const services = new Services(config, { tuning, processName: 'test' });
  const roles: RoleHandle[] = [await startSender(services, { timings: FAST_TIMINGS, readinessRetryMs: 200 }), await startAgentWorker(services, { timings: TIMINGS, host: 'machine-0' })];
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
  return { services, store, stop };
}

/**
 * The model server: 503 to every call while `down`; once up, a plan call waits for `release()` when `hold` is set (a
 * run under way), every call is answered as scripted. `planned()` resolves when a plan call arrives while up.
 */
function modelServer(): { up: (hold: boolean) => void; release: () => void; planned: Promise<void>; failed: () => number } {
  const model = scriptedModel();
  let down = true;
  let hold = false;
  let failed = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let planned!: () => void;
  const plannedPromise = new Promise<void>((resolve) => (planned = resolve));
  servers.llm.setHandler(async (request: ChatRequest): Promise<ScriptedResponse> => {
    const call = classify(request);
    if (down) {
      failed++;
      return httpError(503);
    }
    if (call.kind === 'plan') {
      planned();
      if (hold) await released;
    }
    return model(request);
  });
  return {
    up: (h) => {
      hold = h;
      down = false;
    },
    release,
    planned: plannedPromise,
    failed: () => failed,
  };
}

async function waitingTicket(running: RunningRoles, from: string): Promise<Ticket> {
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from, subject: '二段階認証について', body: QUESTION }));
  return waitFor(async () => {
    const t = await running.store.get(ticketId);
    return t?.state === 'processing' && t.reason?.startsWith(MODEL_SERVER_WAIT_NOTE) ? t : undefined;
  }, 'the ticket to wait for the model server');
}

/** Until the tickets queue holds no job to run: the taken-over ticket's job has run to its end. */
async function ticketJobsDone(running: RunningRoles): Promise<void> {
  const { tickets } = await running.services.queues();
  await waitFor(async () => (await tickets.getJobCountByTypes('waiting', 'active', 'delayed', 'prioritized')) === 0, 'the ticket job to end', 15_000);
}

async function approveOwnReply(running: RunningRoles, ticket: Ticket): Promise<void> {
  const queues = await running.services.queues();
  const outcome = await approveTicket(
    { store: running.store, outbound: queues.outbound, redis: await running.services.producer(), config: running.services.config, tuning: TUNING },
    { ticketId: ticket.id, operator: 'anna', reply: OPERATOR_REPLY, seen: ticket.history.length },
  );
  expect(outcome.outcome).toBe('approved');
}

describe('a ticket taken over while it waits for the model server', () => {
  it('stays parked for the person once the model answers again: no reply from the agent, one from the person', async () => {
    const model = modelServer();
    const running = await run();
    const waiting = await waitingTicket(running, 'a@customer.example');

    const outcome = await takeOverTicket({ store: running.store }, { ticketId: waiting.id, operator: 'anna', seen: waiting.history.length });
    expect(outcome.outcome).toBe('taken-over');
    model.up(false);

    // Longer than the longest pause: the job runs again, finds the ticket parked, and leaves it.
    await ticketJobsDone(running);
    await new Promise((resolve) => setTimeout(resolve, 800));
    const parked = await running.store.require(waiting.id);
    expect(parked).toMatchObject({ state: 'parked', reason: takeOverReason('anna') });
    expect(parked.draft).toBeUndefined();
    expect(parked.history.at(-1)).toMatchObject({ from: 'processing', to: 'parked', actor: 'operator:anna' });
    expect(servers.smtp.messages).toHaveLength(0);
    const { tickets } = await running.services.queues();
    const [job] = await tickets.getJobs(['completed']);
    expect(job?.returnvalue).toMatchObject({ outcome: 'skipped', state: 'parked' });
    expect(model.failed()).toBeGreaterThanOrEqual(1);

    await approveOwnReply(running, parked);
    await waitFor(() => servers.smtp.messages.length >= 1, 'the operator reply');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(servers.smtp.messages).toHaveLength(1);
    expect(servers.smtp.messages[0]!.text).toContain('認証アプリを登録してください');
    expect((await running.store.require(waiting.id)).state).toBe('sent');
  });

  it('keeps the draft of a run under way at the take-over out of the ticket, and sends only the person reply', async () => {
    const model = modelServer();
    const running = await run();
    const waiting = await waitingTicket(running, 'b@customer.example');

    // The model answers again, and the next try is under way (its plan call waits) when the person takes it over.
    model.up(true);
    await model.planned;
    const outcome = await takeOverTicket({ store: running.store }, { ticketId: waiting.id, operator: 'anna', seen: waiting.history.length });
    // The page was read at the first wait; the tries since (one entry each) leave the ticket as it showed.
    expect(outcome.outcome).toBe('taken-over');
    model.release();

    await ticketJobsDone(running);
    await new Promise((resolve) => setTimeout(resolve, 800));
    const parked = await running.store.require(waiting.id);
    expect(parked).toMatchObject({ state: 'parked', reason: takeOverReason('anna') });
    expect(parked.draft).toBeUndefined();
    expect(parked.history.filter((h) => h.actor === 'agent-worker' && h.from === 'processing' && h.to !== 'processing')).toEqual([]);
    // The run's write of its draft found the ticket parked: the job ends there, in that attempt (the person's decision
    // is no failure to retry), and the run's billed calls are counted.
    const [job] = await (await running.services.queues()).tickets.getJobs(['completed']);
    expect(job?.returnvalue).toMatchObject({ outcome: 'skipped', state: 'parked', agentRun: { usage: { calls: expect.any(Number) } } });
    expect(job?.attemptsMade).toBe(1);
    expect(servers.smtp.messages).toHaveLength(0);
    expect(await (await running.services.queues()).outbound.getJobCountByTypes('completed', 'failed', 'waiting', 'active', 'delayed')).toBe(0);

    await approveOwnReply(running, parked);
    await waitFor(() => servers.smtp.messages.length >= 1, 'the operator reply');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(servers.smtp.messages).toHaveLength(1);
    expect(servers.smtp.messages[0]!.text).toContain('認証アプリを登録してください');
  });

  // Bug review 43c: the waiting job (rate-limited back to the head of the queue for a long pause) ran before the
  // rerun's own job, found the ticket `processing` again, and drafted without the person's `reviewBy`: in
  // REVIEW_MODE=auto the reply went out unread. A job queued before a person's decision now ends there.
  for (const concurrency of ['1', '2']) {
    it(`parks the draft of "Get a new draft" after a take-over for the person, not the old waiting job's (concurrency ${concurrency})`, async () => {
      const model = modelServer();
      // A pause longer than the steps below: the old job is still in the queue when the rerun queues its own.
      const running = await run({ ...TUNING, modelOutagePauseMs: 3000, modelOutageMaxPauseMs: 3000 }, { AGENT_CONCURRENCY: concurrency });
      const waiting = await waitingTicket(running, `rerun${concurrency}@customer.example`);
      const oldJobId = answerJobId(waiting.id, 1);

      const taken = await takeOverTicket({ store: running.store }, { ticketId: waiting.id, operator: 'anna', seen: waiting.history.length });
      expect(taken.outcome).toBe('taken-over');
      const parked = await running.store.require(waiting.id);
      const queues = await running.services.queues();
      const rerun = await rerunAgent(
        { store: running.store, redis: await running.services.producer(), tickets: queues.tickets, config: running.services.config, tuning: TUNING },
        { ticketId: waiting.id, operator: 'anna', seen: parked.history.length, forReview: true },
      );
      expect(rerun).toMatchObject({ outcome: 'requeued', forReview: true });
      const newJobId = rerun.outcome === 'requeued' ? rerun.jobId : '';
      expect(newJobId).not.toBe(oldJobId);
      expect(await queues.tickets.getJob(oldJobId)).toBeDefined();
      model.up(false);

      await ticketJobsDone(running);
      await new Promise((resolve) => setTimeout(resolve, 800));
      const final = await running.store.require(waiting.id);
      expect(final.state).toBe('parked');
      expect(final.draft).toBeTruthy();
      expect(final.history.at(-1)).toMatchObject({ from: 'processing', to: 'parked', actor: 'agent-worker' });
      // One run after the person's rerun, the rerun job's; the old job wrote nothing after the take-over.
      const afterRerun = final.history.slice(parked.history.length + 1);
      expect(afterRerun.filter((h) => h.from === 'processing' && h.to === 'processing')).toHaveLength(1);
      expect(afterRerun.some((h) => (h.note ?? '').startsWith('resumed while waiting'))).toBe(false);
      expect(servers.smtp.messages).toHaveLength(0);
      expect((await queues.tickets.getJob(oldJobId))?.returnvalue).toMatchObject({ outcome: 'skipped' });
      expect((await queues.tickets.getJob(newJobId))?.returnvalue).toMatchObject({ outcome: 'parked' });
    }, 60_000);
  }
});
