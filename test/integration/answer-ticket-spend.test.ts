/**
 * The `answer-ticket` job when a step after a finished agent run fails: the model billed the run's calls, so the
 * error carries them (`agentRunSpendOf`), and says whether the ticket holds the result; and what its info-level log
 * lines say of a parked draft. Real Redis and BullMQ, the real agent against the scripted OpenAI-compatible server.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerTicket } from '../../jobs/answer-ticket.js';
import { agentRunSpendOf } from '../../src/agent/agent.js';
import { createHelpDeskAgent } from '../../src/agent/create-agent.js';
import { parseConfig } from '../../src/config.js';
import { textResponse } from '../../src/dev/openai-server.js';
import { TWO_TOPIC_QUESTION, scriptedModel } from '../../src/dev/scripted-model.js';
import { ingestMessage } from '../../src/mail/ingest.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues } from '../../src/queues/registry.js';
import { createSearchBackends } from '../../src/search/factory.js';
import { TicketStore, type TransitionRequest } from '../../src/tickets/ticket-store.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import { buildMail, pipelineEnv, removePrefix, startPipelineServers, type PipelineServers } from '../support/pipeline.js';

let servers: PipelineServers;
let redis: Redis;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  servers = await startPipelineServers();
  redis = await connectProducer(servers.redis.url);
}, 120_000);
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  servers.llm.setHandler(scriptedModel());
});
afterAll(async () => {
  redis?.disconnect();
  await servers?.stop();
});

/** A ticket store whose state changes that store an agent result fail, as a Redis write can. */
class FailingResultWrites extends TicketStore {
  override async transition(id: string, request: TransitionRequest): Promise<Ticket> {
    if (request.patch && 'agent' in request.patch) throw new Error('connection lost while writing the ticket');
    return super.transition(id, request);
  }
}

async function setup(store: (prefix: string) => TicketStore) {
  const config = parseConfig(pipelineEnv(servers));
  const prefix = config.QUEUE_PREFIX;
  cleanups.push(() => removePrefix(servers.redis.url, prefix));
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
  const search = createSearchBackends(config);
  cleanups.push(() => Promise.all([search.manual.close?.(), search.qa.close?.()]));
  const deps = { config, store: tickets, redis, outbound: queues.outbound, agent: createHelpDeskAgent(config, search) };
  return { prefix, tickets, ticketId: (ingested as { ticketId: string }).ticketId, deps };
}

/** The calls the scripted server answered since the test began, as the agent recorded them. */
const answered = () => servers.llm.chatRequests().filter((r) => r.status === 200).length;

describe('answer-ticket after a finished run', () => {
  it("carries the run's calls on the error when the ticket could not store the result", async () => {
    servers.llm.reset();
    const { ticketId, deps } = await setup((prefix) => new FailingResultWrites(redis, { prefix }));
    const error = await answerTicket({ ticketId }, deps, { attemptsMade: 0, attempts: 3 }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('connection lost while writing the ticket');
    const spend = agentRunSpendOf(error);
    expect(spend?.resultStored).toBe(false);
    expect(spend?.llmCalls.length).toBeGreaterThan(0);
    expect(spend?.llmCalls).toHaveLength(answered());
    expect(spend?.usage.calls).toBe(spend?.llmCalls.length);
  });

  it('says the ticket holds the result when only the send job could not be queued', async () => {
    servers.llm.reset();
    const { prefix, tickets, ticketId, deps } = await setup((prefix) => new TicketStore(redis, { prefix }));
    // A key of the wrong type makes BullMQ's add fail with WRONGTYPE: Redis is up but refuses the job.
    const meta = `${prefix}:outbound:meta`;
    await redis.del(meta);
    await redis.set(meta, 'not-a-hash');
    const error = await answerTicket({ ticketId }, deps, { attemptsMade: 0, attempts: 3 }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/WRONGTYPE/);
    const spend = agentRunSpendOf(error);
    expect(spend?.resultStored).toBe(true);
    expect(spend?.llmCalls).toHaveLength(answered());
    expect((await tickets.require(ticketId)).agent?.llmCalls).toEqual(spend?.llmCalls);
  });
});

describe("answer-ticket's log lines", () => {
  // A draft parked for the links or numbers in it names them in its reason, and the customer's own phone number is
  // one of them: the reason is on the ticket for the operator, info-level logs get its kind only.
  it('name what parked a draft without the personal data its reason holds', async () => {
    const answer = textResponse('お電話番号 090-1234-5678 に折り返しご連絡いたします。');
    servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === 'final_answer' ? answer : undefined) }));
    const { ticketId, tickets, deps } = await setup((prefix) => new TicketStore(redis, { prefix }));
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) }));
    const outcome = await answerTicket({ ticketId }, { ...deps, logger }, { attemptsMade: 0, attempts: 3 });
    expect(outcome.outcome).toBe('parked');
    expect((await tickets.require(ticketId)).reason).toContain('090-1234-5678');
    expect(lines.join('')).toContain('Draft parked for review');
    expect(lines.join('')).not.toContain('090-1234-5678');
  });
});
