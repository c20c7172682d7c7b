/**
 * The model's output has caps of ours (security review 16, the model as the adversary): with LLM_MAX_OUTPUT_TOKENS set,
 * every call asks for at most that many tokens, in the parameter the server honours, and unset none is asked for (a
 * fixed cap made vLLM with a small --max-model-len and OpenAI's 4k-output models refuse every call); a plan with a subtask longer than MAX_SUBTASK_CHARS is
 * a bad plan; subtask answers and advice are cut before they are passed on or stored. Through the real agent, the
 * real `openai` SDK and the scripted OpenAI-compatible server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { reviewVerdict } from '../../jobs/answer-ticket.js';
import { HelpDeskAgent, MAX_ADVICE_CHARS, MAX_SUBTASK_ANSWER_CHARS, MAX_SUBTASK_CHARS } from '../../src/agent/agent.js';
import { createHelpDeskAgent, createSearchTools } from '../../src/agent/index.js';
import { parseConfig } from '../../src/config.js';
import { httpError, jsonResponse, startOpenAIServer, textResponse, type ChatRequest, type OpenAIServer } from '../../src/dev/openai-server.js';
import { classify, fixtureSearch, messageText, scriptedModel, type ScriptedModelOptions } from '../../src/dev/scripted-model.js';

let server: OpenAIServer;

beforeEach(async () => {
  server = await startOpenAIServer();
});

afterEach(async () => {
  await server.close();
});

/** An output cap as an admin of a small-context server would set it. */
const CAP = 2_048;

function makeAgent(maxOutputTokens?: number) {
  return new HelpDeskAgent({
    client: new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }),
    model: 'scripted-model',
    tools: createSearchTools(fixtureSearch()),
    productName: 'XYZ',
    maxQuestionChars: 1000,
    maxSubtasks: 5,
    recursionLimit: 50,
    maxOutputTokens,
  });
}

const useModel = (options: ScriptedModelOptions) => server.setHandler(scriptedModel(options));
const requestsOf = (kind: ReturnType<typeof classify>['kind']): ChatRequest[] => server.chatRequests().filter((r) => classify(r).kind === kind);
/** Characters of every prompt the run sent: what a provider bills. */
const promptChars = (): number => server.chatRequests().reduce((sum, r) => sum + r.body.messages.reduce((n, m) => n + messageText(m).length, 0), 0);

const QUESTION = '二段階認証の設定手順を教えてください。';
// A runaway or steered planner: five topics, each a page long.
const HOSTILE_PLAN = Array.from({ length: 5 }, (_, i) => `${i + 1}. 二段階認証について調べる。${'この手順を繰り返し確認する。'.repeat(1_500)}`);

describe('the completion cap of every call', () => {
  // vLLM refuses a prompt plus max_tokens over --max-model-len, OpenAI a max_tokens over the model's output limit:
  // unset, the server's own limit applies, as before the cap existed.
  it('asks for no output cap when none is configured', async () => {
    useModel({});
    const result = await makeAgent().runAgent(QUESTION);
    expect(result.subtasks.every((s) => s.isCompleted)).toBe(true);
    const requests = server.chatRequests();
    expect(requests.length).toBeGreaterThanOrEqual(5);
    for (const r of requests) {
      expect(r.body, classify(r).kind).not.toHaveProperty('max_completion_tokens');
      expect(r.body, classify(r).kind).not.toHaveProperty('max_tokens');
    }
  });

  it('takes the cap from LLM_MAX_OUTPUT_TOKENS, and sends none when it is empty', async () => {
    useModel({});
    const client = new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
    await createHelpDeskAgent(parseConfig({ LLM_MAX_OUTPUT_TOKENS: String(CAP) }), fixtureSearch(), client).runAgent(QUESTION);
    const capped = server.chatRequests();
    expect(capped.length).toBeGreaterThanOrEqual(5);
    for (const r of capped) expect(r.body.max_completion_tokens, classify(r).kind).toBe(CAP);

    await createHelpDeskAgent(parseConfig({ LLM_MAX_OUTPUT_TOKENS: '' }), fixtureSearch(), client).runAgent(QUESTION);
    const uncapped = server.chatRequests().slice(capped.length);
    expect(uncapped.length).toBeGreaterThanOrEqual(5);
    for (const r of uncapped) {
      expect(r.body, classify(r).kind).not.toHaveProperty('max_completion_tokens');
      expect(r.body, classify(r).kind).not.toHaveProperty('max_tokens');
    }
  });

  it('asks for at most the configured cap in max_completion_tokens, never both parameters', async () => {
    useModel({});
    await makeAgent(CAP).runAgent(QUESTION);
    const requests = server.chatRequests();
    expect(requests.length).toBeGreaterThanOrEqual(5);
    for (const r of requests) {
      expect(r.body.max_completion_tokens, classify(r).kind).toEqual(expect.any(Number));
      expect(r.body.max_completion_tokens, classify(r).kind).toBe(CAP);
      expect(r.body).not.toHaveProperty('max_tokens');
    }
  });

  // Ollama and LM Studio read only max_tokens and ignore the other: a reply longer than the cap shows it.
  it('sends max_tokens instead once a reply shows the server ignored max_completion_tokens', async () => {
    const scripted = scriptedModel({});
    let first = true;
    server.setHandler((req) => {
      const reply = scripted(req);
      if (!first || reply.type !== 'chat') return reply;
      first = false;
      return { ...reply, usage: { prompt_tokens: 100, completion_tokens: CAP + 500 } };
    });
    const agent = makeAgent(CAP);
    await agent.runAgent(QUESTION);
    const [plan, ...later] = server.chatRequests();
    expect(plan!.body.max_completion_tokens).toBe(CAP);
    expect(later.length).toBeGreaterThan(0);
    for (const r of later) {
      expect(r.body.max_tokens, classify(r).kind).toEqual(expect.any(Number));
      expect(r.body.max_tokens, classify(r).kind).toBe(CAP);
      expect(r.body).not.toHaveProperty('max_completion_tokens');
    }
  });

  // A strict server refusing the newer parameter: the same call is asked again with the older one.
  it('asks again with max_tokens when the server refuses max_completion_tokens', async () => {
    const scripted = scriptedModel({});
    server.setHandler((req) =>
      'max_completion_tokens' in req.body ? httpError(400, { message: 'Unrecognized request argument supplied: max_completion_tokens' }) : scripted(req),
    );
    const result = await makeAgent(CAP).runAgent(QUESTION);
    expect(result.subtasks.every((s) => s.isCompleted)).toBe(true);
    const refused = server.chatRequests().filter((r) => r.status === 400);
    expect(refused).toHaveLength(1);
    const answered = server.chatRequests().filter((r) => r.status === 200);
    for (const r of answered) expect(r.body.max_tokens).toBe(CAP);
  });
});

describe('a plan with a subtask over MAX_SUBTASK_CHARS', () => {
  it('is a bad plan: the question is the only subtask, and the run stays small', async () => {
    useModel({ plan: () => HOSTILE_PLAN });
    const result = await makeAgent().runAgent(QUESTION);
    expect(result.plan.subtasks).toEqual([QUESTION]);
    expect(result.subtasks.map((s) => s.taskName)).toEqual([QUESTION]);
    // The review measured 17 calls and 2.14 M prompt characters for this plan; the plan call's reply is not a prompt.
    expect(server.chatRequests().length).toBeLessThanOrEqual(5);
    expect(promptChars()).toBeLessThan(40_000);
    expect(JSON.stringify(result).length).toBeLessThan(20_000);
  });

  it('keeps a plan whose subtasks are as long as MAX_SUBTASK_CHARS', async () => {
    const longest = `二段階認証の設定${'あ'.repeat(MAX_SUBTASK_CHARS - 8)}`;
    expect(Array.from(longest)).toHaveLength(MAX_SUBTASK_CHARS);
    useModel({ plan: () => [longest, 'バックアップ失敗時の通知について調べる'] });
    const result = await makeAgent().runAgent(QUESTION);
    expect(result.plan.subtasks).toEqual([longest, 'バックアップ失敗時の通知について調べる']);
  });
});

describe('subtask answers and advice', () => {
  const LONG_ANSWER = `二段階認証は設定画面から。${'同じ説明をもう一度書きます。'.repeat(1_500)}`;
  const LONG_ADVICE = `別の語句で検索してください。${'念のため'.repeat(1_300)}`;

  it('an answer over MAX_SUBTASK_ANSWER_CHARS is cut and counts as a failed try; the final writer never sees it whole', async () => {
    useModel({ plan: () => ['二段階認証の設定について調べる'], override: (c) => (c.kind === 'subtask_answer' ? textResponse(LONG_ANSWER) : undefined) });
    const result = await makeAgent().runAgent(QUESTION);
    const [subtask] = result.subtasks;
    expect(subtask).toMatchObject({ isCompleted: false, usedFallback: true, challengeCount: 3 });
    // Not asked to judge an answer it would pass on cut.
    expect(requestsOf('reflection')).toHaveLength(0);
    for (const r of [...requestsOf('select_tools'), ...requestsOf('subtask_answer')]) {
      for (const m of r.body.messages) expect(messageText(m).length).toBeLessThanOrEqual(MAX_SUBTASK_ANSWER_CHARS + 1);
    }
    const finalUser = messageText(requestsOf('final_answer')[0]!.body.messages[1]!);
    expect(finalUser).not.toContain('同じ説明をもう一度書きます。同じ説明をもう一度書きます。');
    expect(reviewVerdict('auto', result).send).toBe(false);
    expect(promptChars()).toBeLessThan(120_000);
  });

  it('advice over MAX_ADVICE_CHARS is cut before the retry reads it and before it is stored', async () => {
    useModel({
      plan: () => ['二段階認証の設定について調べる'],
      override: (c) => (c.kind === 'reflection' ? jsonResponse({ advice: LONG_ADVICE, isCompleted: c.attempt === 2 }) : undefined),
    });
    const result = await makeAgent().runAgent(QUESTION);
    const [subtask] = result.subtasks;
    expect(subtask!.reflectionResults).toHaveLength(2);
    for (const r of subtask!.reflectionResults) {
      expect(r.advice.length).toBeLessThanOrEqual(MAX_ADVICE_CHARS + 1);
      expect(r.advice.startsWith('別の語句で検索してください。')).toBe(true);
    }
    const retry = requestsOf('select_tools').find((r) => classify(r).attempt === 2)!;
    const longest = Math.max(...retry.body.messages.map((m) => messageText(m).length));
    expect(longest).toBeLessThan(LONG_ADVICE.length);
  });
});
