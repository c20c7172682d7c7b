/**
 * Erasing a customer (`forgetCustomer`, what `npm run review -- forget --yes` runs) while a learned-answer proposal of
 * one of their tickets is under way, on a real redis-server with real BullMQ queues and the product's queue worker.
 * The proposal is made to pause at a point of its own (its ticket read, or its write about to happen) through its
 * deps, so each interleaving happens every run:
 * - the job read the ticket (and scrubbed its text) before the erasure and writes after it: nothing is stored;
 * - the job writes while the erasure is half way (candidates gone, tickets not yet): nothing is stored;
 * - jobs still queued (waiting, delayed for a retry) are removed, and one the erasure could not remove (it was
 *   running) finds no ticket and stores nothing.
 * Neither what the jobs carry nor what BullMQ keeps of them afterwards holds the customer's words: a job of an erased
 * ticket is removed with its events once it ends.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UnrecoverableError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { proposeLearnedAnswer, type ProposeLearnedDeps, type ProposeLearnedResult } from '../../jobs/propose-learned-answer.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { LearnedAnswerStore } from '../../src/knowledge/learned-answers.js';
import { connectProducer, createWorkerConnection } from '../../src/queues/connection.js';
import { proposeLearnedAnswerJob, proposeLearnedJobId } from '../../src/queues/job-options.js';
import { closeAll, createQueueWorker, createQueues, type Queues } from '../../src/queues/registry.js';
import { forgetCustomer, type ForgetDeps } from '../../src/tickets/retention.js';
import { approveTicket } from '../../src/tickets/review.js';
import { jobGeneration, newTicket, type Ticket } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { removePrefix, waitFor } from '../support/pipeline.js';
import { pausePoints } from '../support/pause-point.js';

let server: RedisServer;
let redis: Redis;
let root: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  server = await startRedis();
  redis = await connectProducer(server.url);
  root = await mkdtemp(path.join(tmpdir(), 'forget-learned-race-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

interface Setup {
  prefix: string;
  store: TicketStore;
  learned: LearnedAnswerStore;
  queues: Queues;
  forgetDeps: ForgetDeps;
}

function fresh(): Setup {
  const prefix = `forgetrace${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  cleanups.push(() => removePrefix(server.url, prefix));
  const queues = createQueues(redis, prefix);
  cleanups.push(() => closeAll(queues));
  const store = new TicketStore(redis, { prefix });
  return {
    prefix,
    store,
    learned: new LearnedAnswerStore(redis, { prefix }),
    queues,
    forgetDeps: { redis, store, prefix, archiveDir: path.join(root, prefix), queues },
  };
}

/** The customer's own words: none of it may outlive the erasure in Redis. */
const ORDER = 'A-77881';
const question = (name: string) => `注文番号 ${ORDER} の領収書の宛名を「${name}商事」に変えたいです。\n\nよろしくお願いいたします。\n${name}`;
const REPLY = '山田様\n\n「請求」→「領収書」→「宛名を編集」で宛名を変更できます。\n\nよろしくお願いいたします。';

/** A ticket of `from` approved by an operator as the review page does it, which queues its proposal job. */
async function approved(setup: Setup, from: string, name: string): Promise<Ticket> {
  const ticket = newTicket({ messageId: `<${randomUUID()}@customer.example>`, from, fromName: `${name} 太郎`, subject: '領収書', question: question(name), actor: 'poller' });
  await setup.store.createIfAbsent(ticket);
  await setup.store.transition(ticket.id, { from: ['received'], to: 'processing', actor: 'agent-worker' });
  await setup.store.transition(ticket.id, { from: ['processing'], to: 'parked', actor: 'agent-worker', patch: { draft: REPLY, reason: 'review' } });
  const outcome = await approveTicket(
    { store: setup.store, outbound: setup.queues.outbound, learning: setup.queues.tickets, redis, config: { SENDER_ATTEMPTS: 3 } },
    { ticketId: ticket.id, operator: 'sato' },
  );
  if (outcome.outcome !== 'approved') throw new Error(`approval refused: ${outcome.message}`);
  return outcome.ticket;
}

/** The product's `tickets` worker with the real proposal handler on `deps`; returns each completed job's result by job id. */
function startProposalWorker(setup: Setup, deps: ProposeLearnedDeps, concurrency = 4): Map<string, ProposeLearnedResult> {
  const connection = createWorkerConnection(server.url);
  const worker = createQueueWorker({
    queueName: 'tickets',
    handlers: {
      'answer-ticket': async () => {
        throw new UnrecoverableError('no agent in this test');
      },
      'propose-learned-answer': (_job, data, context) => proposeLearnedAnswer(data, deps, context.signal),
    },
    connection,
    prefix: setup.prefix,
    concurrency,
    logger: pino({ level: 'silent' }),
  });
  cleanups.push(() => closeAll(worker, connection));
  // Read from the event: the job of an erased ticket is removed from Redis once it ends.
  const results = new Map<string, ProposeLearnedResult>();
  worker.on('completed', (job, result: ProposeLearnedResult) => void results.set(job.id!, result));
  return results;
}

async function completed(setup: Setup, jobId: string): Promise<Job> {
  // The state first, then the job: a job read before it completed would lack its return value.
  await waitFor(async () => (await setup.queues.tickets.getJobState(jobId)) === 'completed', `job ${jobId} to complete`);
  return (await setup.queues.tickets.getJob(jobId))!;
}

/** The result of the job of an erased ticket, once it ended and BullMQ's worker removed it with its events. */
async function endedAndRemoved(setup: Setup, results: ReadonlyMap<string, ProposeLearnedResult>, jobId: string): Promise<ProposeLearnedResult> {
  const result = await waitFor(() => results.get(jobId), `job ${jobId} to complete`);
  await waitFor(async () => (await setup.queues.tickets.getJobState(jobId)) === 'unknown', `job ${jobId} to be removed`);
  await waitFor(async () => !JSON.stringify(await redis.xrange(`${setup.prefix}:tickets:events`, '-', '+')).includes(jobId), `the events of job ${jobId} to be removed`);
  return result;
}

/** Everything BullMQ keeps of a job (its hash: data, return value, error, stack trace) and its queue's events. */
async function keptOf(setup: Setup, jobId: string): Promise<string> {
  const hash = await redis.hgetall(`${setup.prefix}:tickets:${jobId}`);
  const events = await redis.xrange(`${setup.prefix}:tickets:events`, '-', '+');
  return JSON.stringify([hash, events]);
}

function expectNoWordsOf(text: string, name: string, address: string): void {
  for (const words of [ORDER, name, address, '領収書の宛名を']) expect(text).not.toContain(words);
}

describe('forget and a learned-answer proposal of the same customer', () => {
  it('a proposal that read the ticket before the erasure and writes after it stores nothing', async () => {
    const setup = fresh();
    const ivan = await approved(setup, 'ivan@customer.example', '伊凡');
    const judy = await approved(setup, 'judy@customer.example', '樹里');
    // Both jobs run in the product's worker; each pauses after reading its ticket and scrubbing the candidate text,
    // right before storing it.
    const atWrite = pausePoints();
    const results = startProposalWorker(setup, {
      store: setup.store,
      learned: { proposeOnce: (ticketId, drafts, now) => atWrite.wrap(ticketId, () => setup.learned.proposeOnce(ticketId, drafts, now)) },
    });
    await Promise.all([atWrite.reached(ivan.id), atWrite.reached(judy.id)]);
    const ivanJobId = proposeLearnedJobId(ivan.id, jobGeneration(ivan));
    const judyJobId = proposeLearnedJobId(judy.id, jobGeneration(judy));
    expect(await (await setup.queues.tickets.getJob(ivanJobId))?.isActive()).toBe(true);

    const report = await forgetCustomer(setup.forgetDeps, 'ivan@customer.example', { confirm: true });
    expect(report.tickets.map((t) => t.id)).toEqual([ivan.id]);
    expect(await setup.store.get(ivan.id)).toBeUndefined();
    // A running job is locked: BullMQ cannot remove it, so it runs to its end.
    expect(await setup.queues.tickets.getJob(ivanJobId)).toBeDefined();

    atWrite.release(ivan.id);
    atWrite.release(judy.id);
    const [ivanResult, judyJob] = [await endedAndRemoved(setup, results, ivanJobId), await completed(setup, judyJobId)];
    expect(ivanResult).toMatchObject({ proposed: [], skipped: 'the ticket was erased' });
    // Judy was not erased: the same pause lets her candidate through.
    expect((judyJob.returnvalue as { proposed: number[] }).proposed).toHaveLength(1);
    const candidates = await setup.learned.candidates();
    expect(candidates.map((c) => c.ticketId)).toEqual([judy.id]);
    expect(JSON.stringify(await redis.hgetall(`${setup.prefix}:learned:cand`))).not.toContain(ivan.id);
    // BullMQ would keep Ivan's job a week (KEEP_COMPLETED): it is gone with its events, Judy's stays.
    expect(await redis.exists(`${setup.prefix}:tickets:${ivanJobId}`)).toBe(0);
    expect(judyJob.data).toEqual({ ticketId: judy.id });
    expectNoWordsOf(await keptOf(setup, ivanJobId), '伊凡', 'ivan@customer.example');
  }, 60_000);

  it('a proposal that writes while the erasure is half way (candidates gone, tickets not yet) stores nothing', async () => {
    const setup = fresh();
    const kim = await approved(setup, 'kim@customer.example', '金');
    // The erasure's first step removes what derives from the tickets; the tickets themselves go last.
    expect(await setup.learned.candidatesOfTickets(new Set([kim.id]), { remove: true })).toEqual([]);
    expect(await setup.store.get(kim.id)).toBeDefined();
    expect(await proposeLearnedAnswer({ ticketId: kim.id }, { store: setup.store, learned: setup.learned })).toMatchObject({
      proposed: [],
      skipped: 'the ticket was erased',
    });
    expect(await setup.learned.propose(kim.id, [{ question: 'q', answer: 'a', origin: 'rules', scrub: { replaced: 0, modelPass: 'off' } }])).toEqual([]);
    expect(await setup.learned.candidates()).toEqual([]);

    const report = await forgetCustomer(setup.forgetDeps, 'kim@customer.example', { confirm: true });
    expect(report.tickets.map((t) => t.id)).toEqual([kim.id]);
    expect(await setup.learned.candidates()).toEqual([]);
  }, 60_000);

  it('removes the proposals still queued, and one it could not remove finds no ticket and stores nothing', async () => {
    const setup = fresh();
    // Leo: one proposal waiting (just approved), one delayed (as a retry after a failed attempt waits), and one
    // running when the erasure comes, paused before it reads its ticket.
    const waiting = await approved(setup, 'leo@customer.example', '玲央');
    const retrying = await approved(setup, 'LEO+billing@customer.example', '玲央');
    const running = await approved(setup, 'leo@customer.example', '玲央');
    const waitingJob = proposeLearnedAnswerJob(waiting.id, jobGeneration(waiting));
    const retryingJob = proposeLearnedAnswerJob(retrying.id, jobGeneration(retrying));
    const runningJobId = proposeLearnedJobId(running.id, jobGeneration(running));
    await setup.queues.tickets.remove(retryingJob.opts.jobId!);
    await setup.queues.tickets.add(retryingJob.name, retryingJob.data, { ...retryingJob.opts, delay: 60_000 });
    // One job at a time: the worker takes the running ticket's job, and the waiting one stays queued behind it.
    await setup.queues.tickets.remove(waitingJob.opts.jobId!);
    const beforeRead = pausePoints();
    const results = startProposalWorker(
      setup,
      { store: { get: (id, options) => beforeRead.wrap(id, () => setup.store.get(id, options)) }, learned: setup.learned },
      1,
    );
    await beforeRead.reached(running.id);
    await setup.queues.tickets.add(waitingJob.name, waitingJob.data, waitingJob.opts);
    expect(await setup.queues.tickets.getJobState(waitingJob.opts.jobId!)).toBe('waiting');
    expect(await setup.queues.tickets.getJobState(retryingJob.opts.jobId!)).toBe('delayed');
    expect(await setup.queues.tickets.getJobState(runningJobId)).toBe('active');
    // What a queued proposal carries: the ticket id, nothing of the mail.
    expect((await setup.queues.tickets.getJob(waitingJob.opts.jobId!))?.data).toEqual({ ticketId: waiting.id });
    expect((await setup.queues.tickets.getJob(retryingJob.opts.jobId!))?.data).toEqual({ ticketId: retrying.id });

    const report = await forgetCustomer(setup.forgetDeps, 'leo@customer.example', { confirm: true });
    expect(report.tickets.map((t) => t.id).sort()).toEqual([waiting.id, retrying.id, running.id].sort());
    expect(await setup.queues.tickets.getJob(waitingJob.opts.jobId!)).toBeUndefined();
    expect(await setup.queues.tickets.getJob(retryingJob.opts.jobId!)).toBeUndefined();
    expect(await setup.queues.tickets.getJobState(runningJobId)).toBe('active');

    beforeRead.release(running.id);
    // Done for good, not failed and retried: there is nothing left to learn from.
    expect(await endedAndRemoved(setup, results, runningJobId)).toEqual({ proposed: [], skipped: 'the ticket no longer exists' });
    expect(await setup.learned.candidates()).toEqual([]);
    expect(await setup.queues.tickets.getJobCounts('waiting', 'delayed', 'failed', 'active')).toEqual({ waiting: 0, delayed: 0, failed: 0, active: 0 });
    expectNoWordsOf(await keptOf(setup, runningJobId), '玲央', 'leo@customer.example');
  }, 60_000);
});
