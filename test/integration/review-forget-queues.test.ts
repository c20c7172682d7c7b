/**
 * Erasing a customer (`npm run review -- forget ADDRESS --yes`) against everything the product keeps in Redis about
 * them, BullMQ's part included, on real servers (redis-server, the SMTP receiver, Dovecot for the Sent-folder copies,
 * the scripted model): the pipeline runs for the customer to the end (a reply sent and copied to the Sent folder, one
 * refused by the SMTP server, one parked by the reply limit, one waiting and one delayed), then the erasure, then every
 * key of the server is read — names and contents, whatever the type — for the customer's address, name, words,
 * address digest and ticket ids.
 *
 * Then the races: jobs running while the erasure runs and ending after it, each held at a pause point of its own so
 * the interleaving happens every run — an agent run in its model call (it records the reply budget and writes the
 * ticket afterwards), a reply the SMTP server accepted whose bytes for the Sent-folder copy are kept after the erasure,
 * a sent reply whose Sent-folder copy is queued after it, a repeated-question claim (or take-over) and a Message-ID
 * link made by jobs that read the ticket before it.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendReply } from '../../jobs/send-reply.js';
import { parseConfig, type Config } from '../../src/config.js';
import { classify, scriptedModel } from '../../src/dev/scripted-model.js';
import { answerJobId, answerTicketJob, sendJobId } from '../../src/queues/job-options.js';
import { closeAll, createQueueWorker } from '../../src/queues/registry.js';
import { sentCopyQueuer } from '../../src/runtime/sender.js';
import { addressDigest, agentRunDomainKey, agentRunKey, agentRunTotalKey } from '../../src/tickets/rate-limit.js';
import { claimQuestion, takeOverQuestion } from '../../src/tickets/repeated-question.js';
import { senderDigest } from '../../src/tickets/outcome.js';
import { approveTicket } from '../../src/tickets/review.js';
import { LearnedAnswerStore } from '../../src/knowledge/learned-answers.js';
import { forgetCustomer } from '../../src/tickets/retention.js';
import { jobGeneration, type Ticket } from '../../src/tickets/ticket.js';
import { archiveDir } from '../../src/tickets/archive.js';
import { pausePoints } from '../support/pause-point.js';
import {
  FAST_TUNING,
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  runNpm,
  startPipelineServers,
  startRoles,
  waitFor,
  waitForState,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';
import { tracesOf, type Trace } from '../support/redis-traces.js';

let servers: PipelineServers;
let redis: Redis;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  servers = await startPipelineServers({ imap: true });
  redis = new Redis(servers.redis.url, { maxRetriesPerRequest: 1 });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  servers.smtp.clear();
  servers.smtp.respondWith(undefined);
  servers.llm.setHandler(scriptedModel());
});
afterAll(async () => {
  redis?.disconnect();
  await servers?.stop();
});

function configFor(overrides: Record<string, string> = {}): { config: Config; env: Record<string, string> } {
  const env = pipelineEnv(servers, overrides);
  cleanups.push(() => removePrefix(servers.redis.url, env.QUEUE_PREFIX!));
  return { config: parseConfig(env), env };
}

async function run(config: Config, options: Parameters<typeof startRoles>[1] = {}): Promise<RunningRoles> {
  const running = await startRoles(config, options);
  cleanups.push(() => running.stop());
  return running;
}

/** A customer with words of their own: every one of them must be gone from Redis after the erasure. */
function customer(name: string) {
  const tag = randomUUID().slice(0, 8);
  const address = `${name.toLowerCase().replace(' ', '.')}.${tag}@customer.example`;
  const order = `ZK-${tag.toUpperCase()}`;
  return {
    address,
    name,
    order,
    mail: (subject: string, headers: Record<string, string> = {}) =>
      buildMail({
        messageId: customerMessageId(tag),
        from: `${name} <${address}>`,
        subject: `${subject} (order ${order})`,
        body: `パスワードの条件を教えてください。\n\n注文番号 ${order} の件です。\n${name}`,
        headers,
      }),
  };
}

/**
 * The words that would say, anywhere in Redis, that this customer wrote to us: the address's digest as the reply
 * limits name their keys (whole) and as the trust records' reviews hold it (its first characters, senderDigest; the
 * whole digest would never match there).
 */
function wordsOf(who: ReturnType<typeof customer>, ticketIds: readonly string[]): string[] {
  return [who.address, who.name, who.order, addressDigest(who.address), senderDigest(who.address), ...ticketIds];
}

/** The generation of a ticket's `send-reply` job: the one in which the agent drafted its reply. */
function sendGeneration(ticket: Ticket): number {
  return ticket.history.findIndex((h) => h.to === 'drafted') + 1;
}

/** Ticket ids may stay in the tombstones that make late writes of an erased ticket store nothing. */
function tombstones(prefix: string): (key: string) => boolean {
  return (key) => key === `${prefix}:learned:erased` || key === `${prefix}:forget:reasons`;
}

/** The traces of `words` still in Redis after up to 5 s: the queue workers clean up after a job of an erased ticket ends. */
async function tracesLeft(words: readonly string[], allowed: (key: string, word: string) => boolean): Promise<Trace[]> {
  let left: Trace[] = [];
  try {
    await waitFor(async () => (left = await tracesOf(redis, words, allowed)).length === 0, 'nothing of the customer left in Redis', 5_000);
  } catch {
    // The assertion below names what is left.
  }
  return left;
}

describe('forget leaves nothing of the customer in Redis', () => {
  it("after the pipeline ran for them: tickets, raw mail, jobs in every state, their results and errors, the queues' events, the Sent-folder copy, the reply limits", async () => {
    const { config, env } = configFor({ AUTO_REPLY_LIMIT_PER_HOUR: '2', AUTHSERV_ID: 'mx.helpdesk.test' });
    const prefix = config.QUEUE_PREFIX;
    const hanako = customer('Hanako Yamada');
    const bob = customer('Bob Smith');
    const running = await run(config);

    // Sent, and copied to the Sent folder.
    // Authenticated by the receiving server: its run counts in the domain's window of authenticated mail, the others' in
    // the window of unauthenticated mail.
    const authenticated = { 'Authentication-Results': 'mx.helpdesk.test; dmarc=pass header.from=customer.example' };
    const sent = await waitForState(running.store, (await ingest(running, hanako.mail('Password', authenticated))).ticketId, ['sent', 'parked', 'failed', 'ignored']);
    expect(sent.state, sent.reason).toBe('sent');
    await waitFor(async () => (await running.store.get(sent.id))?.outbound?.sentCopy, 'the Sent-folder copy', 20_000);
    const bobSent = await waitForState(running.store, (await ingest(running, bob.mail('Password'))).ticketId, ['sent', 'parked', 'failed', 'ignored']);
    expect(bobSent.state, bobSent.reason).toBe('sent');
    // Refused by the SMTP server for good, in words that name the address: the send job fails and is kept a month.
    servers.smtp.respondWith(({ envelope }) => (envelope.to.includes(hanako.address) ? { code: 550, message: `5.2.2 <${hanako.address}>: mailbox full` } : undefined));
    const refused = await waitForState(running.store, (await ingest(running, hanako.mail('Login'))).ticketId, ['sent', 'parked', 'failed', 'ignored']);
    expect(refused.reason).toContain(hanako.address);
    // Over the hourly reply limit: parked before the agent, the job's result naming the address.
    const limited = await waitForState(running.store, (await ingest(running, hanako.mail('Backup'))).ticketId, ['sent', 'parked', 'failed', 'ignored']);
    expect(limited.reason).toContain(`automatic replies to ${hanako.address}`);
    await running.stop();

    // With no agent worker running: one job waiting, one delayed as a retry waits for its backoff.
    const idle = await run(config, { agent: false, sender: false });
    const waiting = await ingest(idle, hanako.mail('Invoice'));
    const delayed = await ingest(idle, hanako.mail('Notifications'));
    const queues = await idle.services.queues();
    const retry = answerTicketJob(config, delayed.ticketId, 1, FAST_TUNING);
    await queues.tickets.remove(retry.opts.jobId!);
    await queues.tickets.add(retry.name, retry.data, { ...retry.opts, delay: 60_000 });
    expect(await queues.tickets.getJobState(answerJobId(waiting.ticketId, 1))).toBe('waiting');
    expect(await queues.tickets.getJobState(answerJobId(delayed.ticketId, 1))).toBe('delayed');

    const ids = [sent.id, refused.id, limited.id, waiting.ticketId, delayed.ticketId];
    const words = wordsOf(hanako, ids);
    const before = await tracesOf(redis, words);
    // The scan reads what BullMQ keeps: the failed send job's error, the parked job's result, the events stream.
    expect(before.some((t) => t.key === `${prefix}:outbound:${sendJobId(refused.id, sendGeneration(refused))}` && t.word === hanako.address)).toBe(true);
    expect(before.some((t) => t.key === `${prefix}:tickets:${answerJobId(limited.id, 1)}` && t.word === hanako.address)).toBe(true);
    expect(before.some((t) => t.key === `${prefix}:tickets:events` && t.word === hanako.address)).toBe(true);
    expect(before.some((t) => t.key === agentRunDomainKey(prefix, 'customer.example', 'authenticated') && t.word === sent.id)).toBe(true);
    expect(before.some((t) => t.key === agentRunDomainKey(prefix, 'customer.example', 'unauthenticated') && t.word === refused.id)).toBe(true);
    expect(before.some((t) => t.key === agentRunTotalKey(prefix, 'authenticated') && t.word === sent.id)).toBe(true);
    expect(before.some((t) => t.key === agentRunTotalKey(prefix, 'unauthenticated') && t.word === refused.id)).toBe(true);
    // So do the sender's own windows (security review 14), named by the address's digest.
    for (const window of ['authenticated', 'unauthenticated'] as const) {
      expect(before.some((t) => t.key === agentRunKey(prefix, hanako.address, window) && t.inName && t.word === addressDigest(hanako.address))).toBe(true);
    }

    const forget = await runNpm(['run', 'review', '--', 'forget', hanako.address, '--yes', '--json'], env, 60_000);
    expect(forget.code, forget.stderr).toBe(0);
    expect((JSON.parse(forget.stdout) as { tickets: { id: string }[] }).tickets.map((t) => t.id).sort()).toEqual([...ids].sort());

    expect(await tracesOf(redis, words, tombstones(prefix))).toEqual([]);
    // Bob keeps his ticket and his jobs.
    expect((await idle.store.get(bobSent.id))?.state).toBe('sent');
    expect(await queues.outbound.getJobState(sendJobId(bobSent.id, sendGeneration(bobSent)))).toBe('completed');
    expect((await tracesOf(redis, [bob.address])).length).toBeGreaterThan(0);
  }, 180_000);

  it("after an operator approved their reply: the trust records' reviews keep the approval but not the sender digest", async () => {
    const { config, env } = configFor({ REVIEW_MODE: 'always' });
    const prefix = config.QUEUE_PREFIX;
    const yui = customer('Yui Tanaka');
    const running = await run(config);
    const [producer, queues] = [await running.services.producer(), await running.services.queues()];
    const drafted = await waitForState(running.store, (await ingest(running, yui.mail('Password'))).ticketId, ['drafted', 'parked', 'failed', 'ignored']);
    expect(drafted.draft, drafted.reason).toBeTruthy();
    const approval = await approveTicket({ store: running.store, outbound: queues.outbound, learning: queues.tickets, redis: producer, config, tuning: FAST_TUNING }, { ticketId: drafted.id, operator: 'sato', reply: drafted.draft! });
    expect(approval.outcome).toBe('approved');
    await waitForState(running.store, drafted.id, ['sent'], 30_000);
    const words = wordsOf(yui, [drafted.id]);
    // The review as a source's list holds it, naming the customer by the digest's first characters only: a scan for
    // the whole digest would find nothing there.
    const reviews = await waitFor(async () => {
      const found = (await tracesOf(redis, words)).filter((t) => t.key.startsWith(`${prefix}:trust:`) && t.word === senderDigest(yui.address));
      return found.length > 0 ? found : undefined;
    }, "the approval's review in a trust record", 20_000);
    expect(reviews.some((t) => t.word === addressDigest(yui.address))).toBe(false);
    await waitFor(async () => (await new LearnedAnswerStore(producer, { prefix }).candidates()).some((c) => c.ticketId === drafted.id), 'the learned candidate', 30_000);

    const forget = await runNpm(['run', 'review', '--', 'forget', yui.address, '--yes', '--json'], env, 60_000);
    expect(forget.code, forget.stderr).toBe(0);
    // The reviews stay, the operator's judgement of the sources, by the ticket id that names nobody.
    const kept = (key: string, word: string) => tombstones(prefix)(key) || (key.startsWith(`${prefix}:trust:src:`) && word === drafted.id);
    expect(await tracesLeft(words, kept)).toEqual([]);
    expect((await tracesOf(redis, [drafted.id])).filter((t) => t.key.startsWith(`${prefix}:trust:src:`)).length).toBe(reviews.length);
  }, 120_000);

  it('with jobs running during the erasure and ending after it: an agent run, replies whose Sent-folder bytes or copy come after, a question claim and a reply link', async () => {
    const { config } = configFor();
    const prefix = config.QUEUE_PREFIX;
    const kenji = customer('Kenji Sato');
    // The agent worker runs; replies are sent by a worker of this test's own, so the copy can be held.
    const running = await run(config, { sender: false });
    const [producer, store, queues] = [await running.services.producer(), running.store, await running.services.queues()];

    // Two replies drafted and sent, each held at a step of its Sent-folder copy: one where its copy is queued, after
    // the ticket became `sent` (its bytes kept), the other where its bytes are to be kept, after the SMTP server
    // accepted it and before the ticket says so.
    const drafted = await waitForState(store, (await ingest(running, kenji.mail('Password'))).ticketId, ['drafted', 'parked', 'failed', 'ignored']);
    expect(drafted.state, drafted.reason).toBe('drafted');
    const accepted = await waitForState(store, (await ingest(running, kenji.mail('Invoice'))).ticketId, ['drafted', 'parked', 'failed', 'ignored']);
    expect(accepted.state, accepted.reason).toBe('drafted');
    const atCopy = pausePoints();
    atCopy.release(`keep:${drafted.id}`);
    atCopy.release(`queue:${accepted.id}`);
    const copySteps = sentCopyQueuer(producer, prefix, queues.sentcopy, FAST_TUNING);
    const sentCopy = {
      keep: (ticketId: string, raw: Buffer) => atCopy.wrap(`keep:${ticketId}`, () => copySteps.keep(ticketId, raw)),
      queue: (sent: Ticket) => atCopy.wrap(`queue:${sent.id}`, () => copySteps.queue(sent)),
      pending: (ticketId: string) => copySteps.pending(ticketId),
    };
    const sender = createQueueWorker({
      queueName: 'outbound',
      handlers: {
        'send-reply': (job, data) =>
          sendReply(
            data,
            { config, store, redis: producer, smtp: running.services.smtp(), sentCopy },
            { attemptsMade: job.attemptsMade, attempts: job.opts.attempts ?? 1, ...(job.id ? { jobId: job.id } : {}) },
          ),
      },
      connection: running.services.workerConnection(),
      prefix,
      concurrency: 2,
      logger: pino({ level: 'silent' }),
    });
    cleanups.push(() => closeAll(sender));
    await atCopy.reached(`queue:${drafted.id}`);
    expect((await store.get(drafted.id))?.state).toBe('sent');
    await atCopy.reached(`keep:${accepted.id}`);
    expect((await store.get(accepted.id))?.state).toBe('sending');

    // An agent run held in its first model call: its ticket is `processing`, the budget and the draft are still to write.
    const atPlan = pausePoints();
    const scripted = scriptedModel();
    servers.llm.setHandler(async (request) => {
      const call = classify(request);
      if (call.kind === 'plan') await atPlan.wrap('plan', async () => undefined);
      return scripted(request);
    });
    const asked = await ingest(running, kenji.mail('Backup'));
    await atPlan.reached('plan');
    const finalAnswers = () => servers.llm.chatRequests().filter((request) => classify(request).kind === 'final_answer').length;
    const answered = finalAnswers();
    // What jobs of these tickets read before the erasure and write after it.
    const readBefore = (await store.get(asked.ticketId, { agentResult: false }))!;

    const report = await forgetCustomer({ redis: producer, store, prefix, archiveDir: archiveDir(config.DATA_DIR), queues }, kenji.address, { confirm: true });
    expect(report.tickets.map((t) => t.id).sort()).toEqual([drafted.id, accepted.id, asked.ticketId].sort());

    atPlan.release('plan');
    atCopy.release(`queue:${drafted.id}`);
    atCopy.release(`keep:${accepted.id}`);
    const finished = async (state: Promise<string>) => !['active', 'waiting', 'delayed'].includes(await state);
    await waitFor(() => finished(queues.tickets.getJobState(answerJobId(asked.ticketId, 1))), 'the held agent run to end', 20_000);
    await waitFor(() => finished(queues.outbound.getJobState(sendJobId(drafted.id, jobGeneration(drafted)))), 'the held send job to end', 20_000);
    await waitFor(() => finished(queues.outbound.getJobState(sendJobId(accepted.id, jobGeneration(accepted)))), 'the send job held before keeping its bytes to end', 20_000);
    // The held run went on to its answer, so it came to its writes after the erasure.
    expect(finalAnswers()).toBe(answered + 1);
    expect(await claimQuestion(producer, prefix, readBefore, 60_000)).toBeUndefined();
    await takeOverQuestion(producer, prefix, readBefore, 60_000);
    expect.soft(await store.linkMessageId(`<late-${randomUUID()}@helpdesk.test>`, drafted.id)).toBe(false);

    expect(await tracesLeft(wordsOf(kenji, [drafted.id, accepted.id, asked.ticketId]), tombstones(prefix))).toEqual([]);
  }, 120_000);
});
