/**
 * A subject of hundreds of kilobytes through the real agent worker (real Redis, BullMQ, SMTP receiver, the scripted
 * model). The link check read it in time quadratic in its links (`www.a.b ` × 75,000: 80 s with the event loop
 * blocked), the worker lost its jobs' locks and an innocent mail beside it waited two minutes; and a follow-up
 * carried the earlier mail's whole subject into every model call.
 *
 * The poller now cuts a subject at parse time, but a ticket stored before that carries it whole, and neither check
 * may rely on it: the tickets here are stored as such a poller stored them (the production ingest steps, the subject
 * left uncut).
 */
import { QueueEvents } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONVERSATION_CHARS } from '../../jobs/answer-ticket.js';
import { parseConfig } from '../../src/config.js';
import { replySignalHeaders } from '../../src/mail/classify.js';
import { ticketInputForMail, ticketMessageId } from '../../src/mail/ingest.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { rawRefFor, saveRaw } from '../../src/mail/raw-store.js';
import { createWorkerConnection } from '../../src/queues/connection.js';
import { answerTicketJob } from '../../src/queues/job-options.js';
import { QUEUE_NAMES } from '../../src/queues/names.js';
import { closeAll } from '../../src/queues/registry.js';
import type { WorkerTimings } from '../../src/runtime/worker-timings.js';
import { jobGeneration, newTicket, threadRefs, ticketIdFor } from '../../src/tickets/ticket.js';
import {
  FAST_TUNING,
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  startPipelineServers,
  startRoles,
  waitForState,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';

let servers: PipelineServers;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  servers = await startPipelineServers();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.smtp.clear();
  servers.llm.reset();
});
afterAll(async () => {
  await servers?.stop();
});

// Locks long enough that a second or two of a busy machine never loses one, short enough that the minute and a half
// the check took before is seen as a stall within the test.
const TIMINGS: WorkerTimings = { lockDurationMs: 10_000, stalledIntervalMs: 1_000, maxStalledCount: 2 };

async function run(): Promise<RunningRoles> {
  const config = parseConfig(pipelineEnv(servers));
  const running = await startRoles(config, { agent: { timings: TIMINGS } });
  cleanups.push(async () => {
    await running.stop();
    await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
  });
  return running;
}

/** Every `stalled` event of the tickets queue from now on (BullMQ's own record of a job whose worker lost its lock). */
async function stallsOf(running: RunningRoles): Promise<string[]> {
  const connection = createWorkerConnection(servers.redis.url);
  const events = new QueueEvents(QUEUE_NAMES.tickets, { connection, prefix: running.services.config.QUEUE_PREFIX });
  cleanups.push(() => closeAll(events, connection));
  await events.waitUntilReady();
  const stalled: string[] = [];
  events.on('stalled', ({ jobId }) => stalled.push(jobId));
  return stalled;
}

/** `words` as a subject header folded into lines of 100 words, as a mail client folds a long one. */
function foldedSubject(words: readonly string[]): string {
  const lines: string[] = [];
  for (let i = 0; i < words.length; i += 100) lines.push(words.slice(i, i + 100).join(' '));
  return lines.join('\r\n ');
}

/**
 * Stores a mail as the poller did before it cut subjects: raw copy, ticket (the subject as the mail writes it), and its
 * `answer-ticket` job: the steps of ingestMessage. Returns the ticket id.
 */
async function storeUncut(running: RunningRoles, spec: Parameters<typeof buildMail>[0], words: readonly string[]): Promise<string> {
  const { config } = running.services;
  const raw = Buffer.from(buildMail({ ...spec, subject: 'SUBJECT' }).toString('latin1').replace('Subject: SUBJECT', `Subject: ${foldedSubject(words)}`), 'latin1');
  const mail = await parseInboundMail(raw, { maxBytes: config.MAX_EMAIL_BYTES, extraHeaders: replySignalHeaders(config) });
  const ticketId = ticketIdFor(ticketMessageId(mail, raw));
  const redis = await running.services.producer();
  await saveRaw(redis, config.QUEUE_PREFIX, ticketId, raw);
  const thread = await running.store.joinConversation(threadRefs(mail), (mail.replyTo ?? mail.from)?.address);
  const input = ticketInputForMail(mail, raw, { rawRef: rawRefFor(config.QUEUE_PREFIX, ticketId), conversationId: thread.conversationId });
  input.subject = words.join(' ');
  const ticket = newTicket(input);
  expect((await running.store.createIfAbsent(ticket)).created).toBe(true);
  const job = answerTicketJob(config, ticket.id, jobGeneration(ticket), FAST_TUNING);
  await (await running.services.queues()).tickets.add(job.name, job.data, job.opts);
  return ticket.id;
}

const QUESTION = '二段階認証の設定方法を教えてください。';

describe('a subject of hundreds of kilobytes', () => {
  it('is link-checked without holding up the mail beside it', async () => {
    const running = await run();
    const stalled = await stallsOf(running);
    // A reply to another mailbox repeats the subject there, so the subject is link-checked (600 KB of bare links).
    const attacker = await storeUncut(
      running,
      { messageId: customerMessageId('stall'), from: 'Mallory <mallory@attacker.example>', headers: { 'Reply-To': 'accounts@attacker.example' }, subject: '', body: QUESTION },
      Array.from({ length: 75_000 }, () => 'www.a.b'),
    );
    const innocent = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'Hanako <hanako@customer.example>', subject: '二段階認証', body: QUESTION }));

    const parked = await waitForState(running.store, attacker, ['sent', 'parked', 'failed', 'ignored'], 60_000);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toBe(
      'the subject, which the reply repeats to accounts@attacker.example (not the sender), contains links, addresses or phone numbers that are neither in the knowledge the agent found nor trusted (TRUSTED_LINK_DOMAINS): www.a.b',
    );
    const answered = await waitForState(running.store, innocent.ticketId, ['sent', 'parked', 'failed', 'ignored'], 60_000);
    expect(answered.state, answered.reason).toBe('sent');
    expect(servers.smtp.messages.map((m) => m.envelope.to)).toEqual([['hanako@customer.example']]);
    // Each job ran once, under its first lock.
    expect(stalled).toEqual([]);
    for (const ticket of [parked, answered]) expect(ticket.history.filter((h) => h.to === 'processing').map((h) => h.note)).toEqual(['attempt 1']);
  }, 180_000);

  it('reaches the model calls of a follow-up cut', async () => {
    const running = await run();
    // Plain words: nothing parks the first mail, and its reply goes back to the From.
    const words = Array.from({ length: 33_000 }, (_, i) => `w${i % 1000}x`);
    const firstMessageId = customerMessageId('ctx');
    const first = await storeUncut(running, { messageId: firstMessageId, from: 'Mallory <mallory@attacker.example>', subject: '', body: QUESTION }, words);
    const sent = await waitForState(running.store, first, ['sent', 'parked', 'failed', 'ignored'], 60_000);
    expect(sent.state, sent.reason).toBe('sent');
    expect(sent.subject.length).toBeGreaterThan(190_000);

    const before = servers.llm.chatRequests().length;
    const followUp = await ingest(
      running,
      buildMail({ messageId: customerMessageId('ctx'), inReplyTo: firstMessageId, from: 'Mallory <mallory@attacker.example>', subject: 'Re: 二段階認証', body: '二段階認証のバックアップコードはどこですか？' }),
    );
    const second = await waitForState(running.store, followUp.ticketId, ['sent', 'parked', 'failed', 'ignored'], 60_000);
    expect(second.conversationId).toBe(first);
    const calls = servers.llm.chatRequests().slice(before);
    expect(calls.length).toBeGreaterThan(0);
    const conversations = calls.map((c) => JSON.stringify(c.body)).filter((body) => body.includes('w0x w1x w2x'));
    // The planner and the final answer read the earlier conversation: the subject's first 200 characters (up to w41x).
    expect(conversations.length).toBeGreaterThan(0);
    for (const body of conversations) {
      expect(body).not.toContain('w60x');
      expect(body.length).toBeLessThan(MAX_CONVERSATION_CHARS + 20_000);
    }
  }, 180_000);
});
