/**
 * The proposal job on a real redis-server, split by the rules and by the model (the scripted OpenAI-compatible
 * server): approvals of replies that are still the agent's "not found" fallback, of mail the agent could not read or
 * that asks nothing, propose nothing; a fallback the operator wrote over is learned, without the team's signature.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { proposeLearnedAnswer, type ProposeLearnedDeps } from '../../jobs/propose-learned-answer.js';
import { fallbackSubtaskAnswer } from '../../src/agent/agent.js';
import type { AgentResult, Subtask } from '../../src/agent/types.js';
import { startOpenAIServer, type OpenAIServer } from '../../src/dev/openai-server.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { LearnedAnswerStore } from '../../src/knowledge/learned-answers.js';
import { createOpenAIClient } from '../../src/openai.js';
import { connectProducer } from '../../src/queues/connection.js';
import { newTicket, type NewTicketInput, type Ticket } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { removePrefix } from '../support/pipeline.js';

let redisServer: RedisServer;
let redis: Redis;
let llmServer: OpenAIServer;
const prefixes: string[] = [];

beforeAll(async () => {
  [redisServer, llmServer] = await Promise.all([startRedis(), startOpenAIServer({ handler: scriptedModel() })]);
  redis = await connectProducer(redisServer.url);
});
afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await removePrefix(redisServer.url, prefix);
});
afterAll(async () => {
  redis?.disconnect();
  await Promise.allSettled([redisServer?.stop(), llmServer?.close()]);
});

function freshStores(): { learned: LearnedAnswerStore; tickets: TicketStore } {
  const prefix = `learnable${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  prefixes.push(prefix);
  return { learned: new LearnedAnswerStore(redis, { prefix }), tickets: new TicketStore(redis, { prefix }) };
}

const llm = () => ({ client: createOpenAIClient({ OPENAI_API_KEY: 'test', OPENAI_BASE_URL: llmServer.url, LLM_TIMEOUT_MS: 10_000, LLM_MAX_RETRIES: 0 }), model: 'scripted-model' });

function subtask(taskName: string, usedFallback: boolean): Subtask {
  const subtaskAnswer = usedFallback ? fallbackSubtaskAnswer(taskName) : `${taskName}の答えです。`;
  return { taskName, toolResults: [], reflectionResults: [], isCompleted: !usedFallback, subtaskAnswer, challengeCount: usedFallback ? 3 : 1, usedFallback, usage: { promptTokens: 0, completionTokens: 0 } } as unknown as Subtask;
}

/**
 * A ticket an operator approved with `reply`: drafted by the agent (`subtasks`) and parked, or, for mail the agent
 * cannot read, parked before any run.
 */
async function approved(tickets: TicketStore, input: Partial<NewTicketInput> & { question: string }, subtasks: Subtask[], reply: string): Promise<Ticket> {
  const ticket = newTicket({ messageId: `<${randomUUID()}@customer.example>`, from: 'kim@customer.example', replyTo: 'kim@customer.example', subject: '質問', references: [], attachments: [], actor: 'poller', ...input });
  await tickets.createIfAbsent(ticket);
  if (input.unreadable) {
    await tickets.transition(ticket.id, { from: ['received'], to: 'parked', actor: 'agent-worker', patch: { reason: input.unreadable } });
  } else {
    const agent = { question: input.question, subtasks } as unknown as AgentResult;
    await tickets.transition(ticket.id, { from: ['received'], to: 'processing', actor: 'agent-worker' });
    await tickets.transition(ticket.id, { from: ['processing'], to: 'parked', actor: 'agent-worker', patch: { agent, draft: reply, reason: 'review' } });
  }
  return tickets.transition(ticket.id, { from: ['parked'], to: 'approved', actor: 'operator:sato', patch: { draft: reply, approval: { edited: false, editRatio: 0 } } });
}

const TRIP = '来月の社員旅行の集合場所はどこですか？';
const japaneseReply = (body: string) => `お問い合わせいただきありがとうございます。\n\n${body}\n\n以上、よろしくお願いいたします。`;
const TRIP_AS_DRAFTED = japaneseReply(`■ ${TRIP}\n${fallbackSubtaskAnswer(TRIP)}`);
const paths: [string, () => ProposeLearnedDeps['llm']][] = [
  ['rules', () => undefined],
  ['model', llm],
];

describe.each(paths)('proposeLearnedAnswer, split by %s', (origin, model) => {
  it('proposes nothing for a one-section reply approved as the fallback', async () => {
    const { learned, tickets } = freshStores();
    const ticket = await approved(tickets, { question: TRIP }, [subtask(TRIP, true)], TRIP_AS_DRAFTED);
    const result = await proposeLearnedAnswer({ ticketId: ticket.id }, { store: tickets, learned, llm: model() });
    expect(result).toMatchObject({ proposed: [], skipped: expect.stringMatching(/not found/) });
    expect(await learned.candidates()).toEqual([]);
  });

  it('proposes nothing for the fallback under an operator\'s P.S.', async () => {
    const { learned, tickets } = freshStores();
    const question = 'We never receive the backup failure notification e-mails. What should we check?';
    const reply = `Thank you for contacting us.\n\n■ Hi,\n${fallbackSubtaskAnswer('Hi,')}\n\nBest regards,\nXYZ Support\n\nP.S. Please check the spam folder and the notification address under Settings > Notifications.`;
    const ticket = await approved(tickets, { question }, [subtask('Hi,', true)], reply);
    expect(await proposeLearnedAnswer({ ticketId: ticket.id }, { store: tickets, learned, llm: model() })).toMatchObject({ proposed: [] });
    expect(await learned.candidates()).toEqual([]);
  });

  it('learns what the operator wrote over the fallback, without the team\'s signature', async () => {
    const { learned, tickets } = freshStores();
    const ticket = await approved(tickets, { question: TRIP }, [subtask(TRIP, true)], '集合場所は東京駅丸の内北口の改札前です。\n\nACME Japan');
    const result = await proposeLearnedAnswer({ ticketId: ticket.id }, { store: tickets, learned, llm: model(), mailFrom: 'ACME Japan <support@acme.example>' });
    expect(result).toMatchObject({ origin });
    expect((await learned.candidates()).map((c) => [c.question, c.answer])).toEqual([[TRIP, '集合場所は東京駅丸の内北口の改札前です。']]);
  });

  it('cuts a support-team signature line under the answer', async () => {
    const { learned, tickets } = freshStores();
    const question = '忘年会の会場はどこになりますか？';
    const ticket = await approved(tickets, { question }, [subtask(question, false)], '忘年会の会場は本社3階の大会議室です。\n\nXYZサポート');
    await proposeLearnedAnswer({ ticketId: ticket.id }, { store: tickets, learned, llm: model() });
    expect((await learned.candidates()).map((c) => c.answer)).toEqual(['忘年会の会場は本社3階の大会議室です。']);
  });

  it.each<[string, Partial<NewTicketInput> & { question: string }, RegExp]>([
    [
      'mail parked as unreadable (its text only in an attachment)',
      { question: 'エラーについて', unreadable: "the mail's text is only in its attachment error-screen.png: a person reads it" },
      /could not read/,
    ],
    ['mail with no question at all', { question: '' }, /no question/],
    ['a question that only points at the attachment (a ticket stored before the unreadable check)', { question: '詳細は添付ファイルをご確認ください。' }, /no question/],
  ])('proposes nothing for %s', async (_name, input, why) => {
    const { learned, tickets } = freshStores();
    const reply = 'お問い合わせありがとうございます。添付のエラー画面を拝見しました。キャッシュを削除してから再度お試しください。\n\nXYZサポート';
    const ticket = await approved(tickets, input, [], reply);
    expect(await proposeLearnedAnswer({ ticketId: ticket.id }, { store: tickets, learned, llm: model() })).toMatchObject({ proposed: [], skipped: expect.stringMatching(why) });
    expect(await learned.candidates()).toEqual([]);
  });
});
