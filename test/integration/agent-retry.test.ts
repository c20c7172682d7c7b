/**
 * The subtask loop: retries and their cap, what a retry sends back to the model (the design's filter bug fixed),
 * replies without tool calls, invalid tool calls, and HTTP 429 retried by the SDK.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { UnrecoverableError } from 'bullmq';
import { toJobError } from '../../jobs/answer-ticket.js';
import { HelpDeskAgent, MAX_CHALLENGE_COUNT, agentRunSpendOf, createSearchTools, defaultPrompts } from '../../src/agent/index.js';
import { createOpenAIClient } from '../../src/openai.js';
import { httpError, startOpenAIServer, type OpenAIServer } from '../../src/dev/openai-server.js';
import { classify, fixtureSearch, messageText, scriptedModel, type ScriptedModelOptions } from '../../src/dev/scripted-model.js';

let server: OpenAIServer;

beforeEach(async () => {
  server = await startOpenAIServer();
});

afterEach(async () => {
  await server.close();
});

function makeAgent(model: ScriptedModelOptions = {}, client?: OpenAI) {
  server.setHandler(scriptedModel(model));
  const search = fixtureSearch();
  const agent = new HelpDeskAgent({
    client: client ?? new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }),
    model: 'scripted-model',
    tools: createSearchTools(search),
    productName: 'XYZ',
    maxQuestionChars: 1000,
    maxSubtasks: 5,
    recursionLimit: 50,
  });
  return { agent, search };
}

const ONE_TOPIC = '1. 二段階認証の設定について';
const SUBTASK = '二段階認証の設定について調べる';

describe('retry loop', () => {
  it('gives up after MAX_CHALLENGE_COUNT tries with the fallback answer', async () => {
    const { agent, search } = makeAgent({ forceIncomplete: () => true });
    const result = await agent.runAgent(ONE_TOPIC);

    expect(MAX_CHALLENGE_COUNT).toBe(3);
    const [subtask] = result.subtasks;
    expect(subtask).toMatchObject({
      taskName: SUBTASK,
      isCompleted: false,
      challengeCount: 3,
      usedFallback: true,
      subtaskAnswer: `${SUBTASK}の回答が見つかりませんでした。`,
    });
    expect(subtask!.toolResults).toHaveLength(3);
    expect(subtask!.reflectionResults).toHaveLength(3);
    expect(subtask!.reflectionResults.every((r) => !r.isCompleted && r.advice.length > 0)).toBe(true);
    expect(search.manual.queries).toHaveLength(3);
    // plan + 3 × (select, answer, reflect) + final
    expect(result.llmCalls).toHaveLength(11);
    expect(subtask!.usage.calls).toBe(9);
    // The final writer got the fallback, and no source is claimed for an unanswered subtask.
    const finalUser = messageText(server.chatRequests().at(-1)!.body.messages[1]!);
    expect(finalUser).toContain('の回答が見つかりませんでした。');
    expect(result.sources).toEqual([]);
  });

  it('stops as soon as a retry succeeds', async () => {
    const { agent, search } = makeAgent({ keywords: (s, attempt) => (attempt === 1 ? '存在しない語句' : '二段階認証') });
    const result = await agent.runAgent(ONE_TOPIC);
    const [subtask] = result.subtasks;
    expect(subtask).toMatchObject({ isCompleted: true, challengeCount: 2, usedFallback: false });
    expect(subtask!.toolResults[0]![0]!.results).toEqual([]);
    expect(subtask!.toolResults[1]![0]!.results.length).toBeGreaterThan(0);
    expect(subtask!.reflectionResults.map((r) => r.isCompleted)).toEqual([false, true]);
    expect(subtask!.subtaskAnswer).toContain('QRコード');
    expect(search.manual.queries).toEqual(['存在しない語句', '二段階認証']);
    expect(result.sources).toEqual([{ kind: 'manual', fileName: 'xyz-manual.md' }]);
  });

  it('drops every tool message and every assistant tool_calls message on a retry, then adds the retry prompt', async () => {
    const { agent } = makeAgent({ forceIncomplete: () => true });
    await agent.runAgent(ONE_TOPIC);

    const selects = server.chatRequests().filter((r) => classify(r).kind === 'select_tools');
    expect(selects.map((r) => classify(r).attempt)).toEqual([1, 2, 3]);
    const [first, second, third] = selects;
    expect(first!.body.messages.map((m) => m.role)).toEqual(['system', 'user']);

    for (const retry of [second!, third!]) {
      const messages = retry.body.messages;
      expect(messages.some((m) => m.role === 'tool')).toBe(false);
      expect(messages.some((m) => m.role === 'assistant' && 'tool_calls' in m)).toBe(false);
      const last = messages.at(-1)!;
      expect(last.role).toBe('user');
      expect(messageText(last)).toBe(defaultPrompts.subtaskRetryAnswerUserPrompt);
      // The rest of the conversation (answers and reflections) is kept.
      expect(messages.filter((m) => m.role === 'assistant').length).toBeGreaterThan(0);
    }
    // Try 2: system, first prompt, answer 1, reflection prompt, reflection 1, retry prompt.
    expect(second!.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);

    // The answer step of a retry sees only that try's tool traffic.
    const answers = server.chatRequests().filter((r) => classify(r).kind === 'subtask_answer');
    for (const a of answers) {
      expect(a.body.messages.filter((m) => m.role === 'assistant' && m.tool_calls).length).toBe(1);
    }
  });
});

describe('model replies the agent must cope with', () => {
  it('goes on when the model answers without calling a tool', async () => {
    const { agent, search } = makeAgent({ noToolCall: (call) => call.attempt === 1 });
    const result = await agent.runAgent(ONE_TOPIC);
    const [subtask] = result.subtasks;

    // Try 1 ran no tool and recorded [] for that try; the reflection sent it round again.
    expect(subtask!.toolResults[0]).toEqual([]);
    expect(subtask!.challengeCount).toBe(2);
    expect(subtask!.isCompleted).toBe(true);
    expect(search.manual.queries).toHaveLength(1);

    const firstAnswer = server.chatRequests().find((r) => classify(r).kind === 'subtask_answer')!;
    const roles = firstAnswer.body.messages.map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant']);
    expect(messageText(firstAnswer.body.messages[2]!)).toContain('ツールを使わずに回答します');
  });

  it('answers a call of an unknown tool or with bad arguments instead of crashing', async () => {
    const { agent, search } = makeAgent({
      toolCalls: (call) =>
        call.attempt === 1
          ? [
              { name: 'delete_everything', arguments: '{}' },
              { name: 'search_xyz_manual', arguments: '{"keywords": ' },
              { name: 'search_xyz_qa', arguments: { wrong: 1 } },
            ]
          : [{ name: 'search_xyz_manual', arguments: { keywords: '二段階認証' } }],
    });
    const result = await agent.runAgent(ONE_TOPIC);
    const [subtask] = result.subtasks;

    expect(subtask!.toolResults[0]).toEqual([
      { toolName: 'delete_everything', args: '{}', results: [] },
      { toolName: 'search_xyz_manual', args: '{"keywords": ', results: [] },
      { toolName: 'search_xyz_qa', args: '{"wrong":1}', results: [] },
    ]);
    expect(search.manual.queries).toEqual(['二段階認証']);
    expect(search.qa.queries).toEqual([]);
    expect(subtask).toMatchObject({ isCompleted: true, challengeCount: 2 });

    // Each invalid call got its own tool message saying so.
    const firstAnswer = server.chatRequests().find((r) => classify(r).kind === 'subtask_answer')!;
    const toolMessages = firstAnswer.body.messages.filter((m) => m.role === 'tool');
    expect(toolMessages).toHaveLength(3);
    for (const m of toolMessages) expect(messageText(m)).toMatch(/無効なツール呼び出し/);
  });

  it('treats a refused reflection as a failed try', async () => {
    const { agent } = makeAgent();
    const scripted = scriptedModel();
    server.setHandler((req) => {
      if (classify(req).kind !== 'reflection') return scripted(req);
      return {
        type: 'raw',
        status: 200,
        body: {
          id: 'refusal',
          object: 'chat.completion',
          created: 0,
          model: 'scripted-model',
          choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: null, refusal: 'できません' } }],
        },
      };
    });
    const result = await agent.runAgent(ONE_TOPIC);
    expect(result.subtasks[0]).toMatchObject({ isCompleted: false, challengeCount: 3, usedFallback: true });
    expect(result.subtasks[0]!.reflectionResults).toEqual([
      { advice: '', isCompleted: false },
      { advice: '', isCompleted: false },
      { advice: '', isCompleted: false },
    ]);
  });
});

describe('HTTP errors', () => {
  it('retries a 429 through the SDK and then succeeds', async () => {
    const client = createOpenAIClient({ OPENAI_API_KEY: 'test', OPENAI_BASE_URL: server.url, LLM_TIMEOUT_MS: 5000, LLM_MAX_RETRIES: 2 });
    const { agent } = makeAgent({}, client);
    const scripted = scriptedModel();
    let first = true;
    server.setHandler((req) => {
      if (first) {
        first = false;
        return httpError(429, { message: 'rate limited', retryAfterMs: 20 });
      }
      return scripted(req);
    });
    const result = await agent.runAgent(ONE_TOPIC);
    expect(result.answer).toContain('QRコード');

    const [limited, retried] = server.chatRequests();
    expect(limited!.status).toBe(429);
    expect(retried!.status).toBe(200);
    expect(retried!.body).toEqual(limited!.body);
    expect(retried!.startedAt).toBeGreaterThanOrEqual(limited!.endedAt!);
    // Only the successful call is recorded as an LLM call.
    expect(result.llmCalls.filter((c) => c.step === 'create_plan')).toHaveLength(1);
  });

  it('fails the run when the errors outlast the retries', async () => {
    const client = createOpenAIClient({ OPENAI_API_KEY: 'test', OPENAI_BASE_URL: server.url, LLM_TIMEOUT_MS: 5000, LLM_MAX_RETRIES: 1 });
    const { agent } = makeAgent({}, client);
    server.setHandler(() => httpError(500, { message: 'down', retryAfterMs: 5 }));
    await expect(agent.runAgent(ONE_TOPIC)).rejects.toMatchObject({ status: 500 });
    expect(server.chatRequests()).toHaveLength(2);
  });

  it.each([
    [500, 'the error as the server gave it'],
    [400, 'the permanent failure the job turns it into'],
  ])('a run failing with HTTP %i after some steps were answered carries their calls and tokens on %s', async (status) => {
    const { agent } = makeAgent();
    const scripted = scriptedModel({ plan: () => ['二段階認証の設定について調べる', 'パスワードの変更について調べる'] });
    server.setHandler(async (req) => {
      if (classify(req).kind === 'final_answer') return httpError(status, { message: 'model crashed' });
      const reply = await scripted(req);
      return reply.type === 'chat' ? { ...reply, usage: { prompt_tokens: 100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 40 } } } : reply;
    });
    const err: unknown = await agent.runAgent('二段階認証とパスワード変更について').catch((e: unknown) => e);
    // The error itself is unchanged, so retrying or giving up is decided as before.
    expect(err).toMatchObject({ status, message: expect.stringContaining('model crashed') });

    const answered = server.chatRequests().filter((r) => r.status === 200).length;
    // The plan, then select, answer and reflect for each of the two subtasks.
    expect(answered).toBe(7);
    const failure = status === 400 ? toJobError(err) : err;
    expect(failure instanceof UnrecoverableError).toBe(status === 400);
    const spend = agentRunSpendOf(failure);
    expect(spend?.usage).toEqual({ calls: 7, promptTokens: 700, completionTokens: 70, totalTokens: 770 });
    expect(spend?.llmCalls.filter((c) => c.step === 'reflect_subtask').map((c) => c.subtask).sort()).toEqual(['パスワードの変更について調べる', '二段階認証の設定について調べる']);
    expect(spend?.llmCalls.every((c) => c.cachedPromptTokens === 40 && c.model === 'scripted-model')).toBe(true);
    expect(spend?.durationMs).toBeGreaterThanOrEqual(0);
    // Nothing is claimed for an error that did not come out of a run.
    expect(agentRunSpendOf(new Error('elsewhere'))).toBeUndefined();
  });
});
