/**
 * The ticket store, the review actions and the sender for integration tests, without the dashboard or the roles: one
 * redis-server and one SMTP receiver per test file, and fixtures (a store and queues) each under a fresh QUEUE_PREFIX,
 * whose keys are removed after each test. Also the agent result a test stores with a draft.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { AgentResult, LlmUsage } from '../../src/agent/types.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../src/dev/smtp-receiver.js';
import { createSmtpTransport, type SmtpTransport } from '../../src/mail/smtp-transport.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import type { ReviewDeps } from '../../src/tickets/review.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { sendReply, type SendOutcome } from '../../jobs/send-reply.js';
import { removePrefix } from './pipeline.js';

/** The From of the replies the harness's sender mails. */
export const SENDER_MAIL_FROM = 'XYZ Support <support@helpdesk.test>';

/** A store and queues of one test, under a QUEUE_PREFIX of their own. */
export interface SenderFixture {
  prefix: string;
  store: TicketStore;
  queues: Queues;
}

/** What {@link useSenderHarness} gives a test file. */
export interface SenderHarness {
  /** The file's connection to its redis-server (set once `beforeAll` ran). */
  readonly redis: Redis;
  /** The redis-server's URL, for a connection of a test's own or a child process. */
  readonly redisUrl: string;
  /** The SMTP receiver the sender mails to; emptied after each test. */
  readonly smtpServer: SmtpReceiver;
  /** Run after the current test, last first (before the fixtures' keys are removed). */
  readonly cleanups: Array<() => Promise<void>>;
  /**
   * A store and queues under a fresh prefix that starts with `tag` (it names the test file in Redis), closed and their
   * keys removed after the test. With `clockFrom`, the store's clock starts there and moves a second at each reading.
   */
  fixture(tag: string, clockFrom?: string): SenderFixture;
  /** The review actions' dependencies on `f`, as the review page and the CLI pass them. */
  review(f: SenderFixture): ReviewDeps;
  /** The send job of `ticketId` as the sender runs it, first of three attempts, mailing to {@link smtpServer}. */
  send(f: SenderFixture, ticketId: string): Promise<SendOutcome>;
}

/** Registers the file's hooks (call it once at the top level of a test file) and returns the harness. */
export function useSenderHarness(): SenderHarness {
  let servers: { redisServer: RedisServer; redis: Redis; smtpServer: SmtpReceiver; smtp: SmtpTransport } | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  const started = () => {
    if (!servers) throw new Error('the sender harness is used before its beforeAll ran');
    return servers;
  };
  // What beforeAll started, each pushed as it starts, stopped last first by afterAll, which vitest runs even when
  // beforeAll failed: a server started beside one that failed is stopped too.
  const teardown: Array<() => unknown> = [];
  beforeAll(async () => {
    // allSettled, not all: when one server fails, the other may still be starting, and must be stopped once it is up.
    const [redisStarted, smtpStarted] = await Promise.allSettled([startRedis(), startSmtpReceiver()]);
    if (redisStarted.status === 'fulfilled') teardown.push(() => redisStarted.value.stop());
    if (smtpStarted.status === 'fulfilled') teardown.push(() => smtpStarted.value.stop());
    if (redisStarted.status === 'rejected') throw redisStarted.reason;
    if (smtpStarted.status === 'rejected') throw smtpStarted.reason;
    const redisServer = redisStarted.value;
    const smtpServer = smtpStarted.value;
    const redis = await connectProducer(redisServer.url);
    teardown.push(() => redis.disconnect());
    const smtp = createSmtpTransport({ SMTP_HOST: smtpServer.host, SMTP_PORT: smtpServer.port, SMTP_SECURE: false, SMTP_USER: undefined, SMTP_PASSWORD: undefined });
    teardown.push(() => smtp.close());
    servers = { redisServer, redis, smtpServer, smtp };
  });
  afterEach(async () => {
    // The list is emptied first, so a cleanup that throws must not keep the ones after it from running.
    await runEach([...cleanups.splice(0).reverse(), () => servers?.smtpServer.clear()]);
  });
  afterAll(async () => {
    await runEach(teardown.splice(0).reverse());
  });
  return {
    get redis() {
      return started().redis;
    },
    get redisUrl() {
      return started().redisServer.url;
    },
    get smtpServer() {
      return started().smtpServer;
    },
    cleanups,
    fixture(tag, clockFrom) {
      const { redis, redisServer } = started();
      const prefix = `${tag}${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const store = new TicketStore(redis, { prefix, ...(clockFrom === undefined ? {} : { now: ticksFrom(clockFrom) }) });
      const queues = createQueues(redis, prefix);
      cleanups.push(async () => {
        await closeAll(queues).catch(() => undefined);
        await removePrefix(redisServer.url, prefix);
      });
      return { prefix, store, queues };
    },
    review(f) {
      return { store: f.store, outbound: f.queues.outbound, redis: started().redis, config: { SENDER_ATTEMPTS: 3 } };
    },
    send(f, ticketId) {
      const { redis, smtp } = started();
      const config = { MAIL_FROM: SENDER_MAIL_FROM, SUPPORT_ADDRESSES: [], SUPPORT_GROUP_ADDRESSES: [], AUTHSERV_ID: [], TRUSTED_LINK_DOMAINS: [] };
      return sendReply({ ticketId }, { config, store: f.store, redis, smtp }, { attemptsMade: 0, attempts: 3 });
    },
  };
}

/**
 * Runs every step in turn, whether or not the ones before it threw, and then throws the first error; the later ones
 * go to stderr, so that none is lost.
 */
async function runEach(steps: Iterable<() => unknown>): Promise<void> {
  const errors: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 0) return;
  for (const later of errors.slice(1)) console.error('a further clean-up of the sender harness failed too:', later);
  throw errors[0];
}

/** A clock that starts at `start` and moves a second at each reading, so that every write of a test has its own time. */
function ticksFrom(start: string): () => Date {
  let t = Date.parse(start);
  return () => new Date((t += 1000));
}

/** The usage of one model call of 10 prompt and 10 completion tokens. */
export const ONE_CALL_USAGE: Readonly<LlmUsage> = { calls: 1, promptTokens: 10, completionTokens: 10, totalTokens: 20 };

/**
 * The agent result the agent worker stores beside the draft `answer`: by default question `q`, no plan, subtasks,
 * sources or model calls, one call's usage; `fields` replace any of them.
 */
export function draftAgentResult(answer: string, fields: Partial<AgentResult> = {}): AgentResult {
  return { question: 'q', plan: { subtasks: [] }, subtasks: [], answer, sources: [], usage: { ...ONE_CALL_USAGE }, llmCalls: [], truncated: false, droppedSubtasks: [], durationMs: 10, ...fields };
}
