/**
 * The `answer-ticket` job when a step after a finished agent run fails: the model billed the run's calls, so the
 * error carries them (`agentRunSpendOf`), and says whether the ticket holds the result. Real Redis and BullMQ; the
 * agent is a stand-in that returns a real run's result at once.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerTicket } from '../../jobs/answer-ticket.js';
import { agentRunSpendOf } from '../../src/agent/agent.js';
import type { AgentResult } from '../../src/agent/types.js';
import { parseConfig } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { TWO_TOPIC_QUESTION } from '../../src/dev/scripted-model.js';
import { ingestMessage } from '../../src/mail/ingest.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues } from '../../src/queues/registry.js';
import { TicketStore, type TransitionRequest } from '../../src/tickets/ticket-store.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import { buildMail, removePrefix } from '../support/pipeline.js';

let server: RedisServer;
let redis: Redis;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  server = await startRedis();
  redis = await connectProducer(server.url);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** A finished run's result, as the agent returns it. */
const RESULT: AgentResult = {
  question: TWO_TOPIC_QUESTION,
  plan: { subtasks: ['二段階認証の設定について調べる'] },
  subtasks: [
    {
      taskName: '二段階認証の設定について調べる',
      toolResults: [[{ toolName: 'search_xyz_manual', args: '{"keywords":"二段階認証"}', results: [{ fileName: 'xyz-manual.md', content: '「設定」→「セキュリティ」' }] }]],
      reflectionResults: [{ advice: '十分', isCompleted: true }],
      isCompleted: true,
      subtaskAnswer: '「設定」→「セキュリティ」→「二段階認証」から設定できます。',
      challengeCount: 1,
      usedFallback: false,
      usage: { calls: 3, promptTokens: 900, completionTokens: 90, totalTokens: 990 },
    },
  ],
  answer: 'お問い合わせありがとうございます。\n\n「設定」→「セキュリティ」→「二段階認証」から設定できます。\n\nよろしくお願いいたします。',
  sources: [{ kind: 'manual', fileName: 'xyz-manual.md' }],
  llmCalls: [
    { step: 'create_plan', model: 'm', durationMs: 5, promptTokens: 300, completionTokens: 30 },
    { step: 'select_tools', subtask: 's', model: 'm', durationMs: 5, promptTokens: 300, completionTokens: 30 },
    { step: 'create_answer', model: 'm', durationMs: 5, promptTokens: 300, completionTokens: 30 },
  ],
  usage: { calls: 3, promptTokens: 900, completionTokens: 90, totalTokens: 990 },
  truncated: false,
  droppedSubtasks: [],
  durationMs: 42,
} as unknown as AgentResult;

/** A ticket store whose state changes that store an agent result fail, as a Redis write can. */
class FailingResultWrites extends TicketStore {
  override async transition(id: string, request: TransitionRequest): Promise<Ticket> {
    if (request.patch && 'agent' in request.patch) throw new Error('connection lost while writing the ticket');
    return super.transition(id, request);
  }
}

async function setup(store: (prefix: string) => TicketStore) {
  const prefix = `spend${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  cleanups.push(() => removePrefix(server.url, prefix));
  const config = parseConfig({ REDIS_URL: server.url, QUEUE_PREFIX: prefix, REVIEW_MODE: 'auto', MAIL_FROM: 'Support <support@support.example>', LOG_LEVEL: 'silent' });
  const queues = createQueues(redis, prefix);
  cleanups.push(() => closeAll(queues));
  const tickets = store(prefix);
  const ingested = await ingestMessage(buildMail({ messageId: `<${randomUUID()}@customer.example>`, from: 'taro@customer.example', subject: '二段階認証', body: TWO_TOPIC_QUESTION }), {
    redis,
    store: tickets,
    ticketsQueue: queues.tickets,
    prefix,
    config,
  });
  const deps = { config, store: tickets, redis, outbound: queues.outbound, agent: { runAgent: async () => RESULT } };
  return { prefix, tickets, ticketId: (ingested as { ticketId: string }).ticketId, deps };
}

describe('answer-ticket after a finished run', () => {
  it('carries the run\'s calls on the error when the ticket could not store the result', async () => {
    const { ticketId, deps } = await setup((prefix) => new FailingResultWrites(redis, { prefix }));
    const error = await answerTicket({ ticketId }, deps, { attemptsMade: 0, attempts: 3 }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('connection lost while writing the ticket');
    expect(agentRunSpendOf(error)).toEqual({ durationMs: 42, usage: RESULT.usage, llmCalls: RESULT.llmCalls, resultStored: false });
  });

  it('says the ticket holds the result when only the send job could not be queued', async () => {
    const { prefix, tickets, ticketId, deps } = await setup((prefix) => new TicketStore(redis, { prefix }));
    // A key of the wrong type makes BullMQ's add fail with WRONGTYPE: Redis is up but refuses the job.
    const meta = `${prefix}:outbound:meta`;
    await redis.del(meta);
    await redis.set(meta, 'not-a-hash');
    const error = await answerTicket({ ticketId }, deps, { attemptsMade: 0, attempts: 3 }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/WRONGTYPE/);
    expect(agentRunSpendOf(error)).toMatchObject({ llmCalls: RESULT.llmCalls, resultStored: true });
    expect((await tickets.require(ticketId)).agent?.llmCalls).toEqual(RESULT.llmCalls);
  });
});
