/**
 * Each node of the agent run alone, as in the design's step-by-step section, against the scripted model over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import {
  HelpDeskAgent,
  createSearchTools,
  initialAgentState,
  initialSubGraphState,
  type AgentSubGraphState,
} from '../../src/agent/index.js';
import { startOpenAIServer, type OpenAIServer } from '../../src/dev/openai-server.js';
import { TWO_TOPIC_QUESTION, classify, fixtureSearch, scriptedModel } from '../../src/dev/scripted-model.js';

let server: OpenAIServer;
let agent: HelpDeskAgent;

beforeAll(async () => {
  server = await startOpenAIServer({ handler: scriptedModel({ tools: 'both' }) });
  agent = new HelpDeskAgent({
    client: new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }),
    model: 'scripted-model',
    tools: createSearchTools(fixtureSearch()),
    productName: 'XYZ',
    maxQuestionChars: 1000,
    maxSubtasks: 5,
    recursionLimit: 50,
  });
});

afterAll(async () => {
  await server.close();
});

describe('HelpDeskAgent nodes, one at a time', () => {
  it('walks plan → select tools → execute tools → subtask answer → reflection → final answer', async () => {
    const question = TWO_TOPIC_QUESTION;

    const planned = await agent.createPlan(initialAgentState(question));
    expect(planned.plan).toEqual(['二段階認証の設定について調べる', 'バックアップ失敗時の通知について調べる']);
    expect(planned.droppedSubtasks).toEqual([]);
    expect(planned.llmCalls).toHaveLength(1);
    expect(planned.llmCalls[0]).toMatchObject({ step: 'create_plan', model: 'scripted-model' });
    const planRequest = server.chatRequests().at(-1)!;
    expect(planRequest.body).toMatchObject({ temperature: 0, seed: 0, response_format: { type: 'json_schema', json_schema: { name: 'plan' } } });

    const subtask = planned.plan[0]!;
    const base: AgentSubGraphState = initialSubGraphState(question, planned.plan, subtask);

    const selected = await agent.selectTools(base);
    const last = selected.messages.at(-1)!;
    expect(selected.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(last.role).toBe('assistant');
    const toolCalls = last.role === 'assistant' ? (last.tool_calls ?? []) : [];
    expect(toolCalls.map((c) => (c.type === 'function' ? c.function.name : ''))).toEqual(['search_xyz_manual', 'search_xyz_qa']);
    const selectRequest = server.chatRequests().at(-1)!;
    expect(selectRequest.body.tools?.map((t) => t.function?.name)).toEqual(['search_xyz_manual', 'search_xyz_qa']);
    expect(selectRequest.body).toMatchObject({ temperature: 0, seed: 0 });

    const executed = await agent.executeTools({ ...base, messages: selected.messages });
    expect(executed.toolResults).toHaveLength(1);
    const [manualCall, qaCall] = executed.toolResults[0]!;
    expect(manualCall).toMatchObject({ toolName: 'search_xyz_manual', args: JSON.stringify({ keywords: '二段階認証 設定' }) });
    expect(manualCall!.results[0]).toEqual({ fileName: 'xyz-manual.md', content: expect.stringContaining('認証アプリ') });
    expect(manualCall!.results.length).toBeLessThanOrEqual(3);
    expect(qaCall!.toolName).toBe('search_xyz_qa');
    expect(executed.messages.slice(3).map((m) => m.role)).toEqual(['tool', 'tool']);

    const answered = await agent.createSubtaskAnswer({ ...base, messages: executed.messages, toolResults: executed.toolResults });
    expect(answered.subtaskAnswer).toContain('QRコード');
    expect(answered.messages.at(-1)).toEqual({ role: 'assistant', content: answered.subtaskAnswer });
    expect(classify(server.chatRequests().at(-1)!).kind).toBe('subtask_answer');

    const reflected = await agent.reflectSubtask({
      ...base,
      messages: answered.messages,
      toolResults: executed.toolResults,
      subtaskAnswer: answered.subtaskAnswer,
    });
    expect(reflected.isCompleted).toBe(true);
    expect(reflected.challengeCount).toBe(1);
    expect(reflected.usedFallback).toBe(false);
    expect(reflected.subtaskAnswer).toBeUndefined();
    expect(reflected.reflectionResults[0]).toEqual({ advice: expect.any(String), isCompleted: true });
    expect(reflected.llmCalls[0]).toMatchObject({ step: 'reflect_subtask', subtask });
    expect(server.chatRequests().at(-1)!.body.response_format?.json_schema?.name).toBe('reflection_result');

    const final = await agent.createAnswer({
      ...initialAgentState(question),
      plan: planned.plan,
      subtaskResults: [
        {
          taskName: subtask,
          toolResults: executed.toolResults,
          reflectionResults: reflected.reflectionResults,
          isCompleted: true,
          subtaskAnswer: answered.subtaskAnswer,
          challengeCount: 1,
          usedFallback: false,
          usage: { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 },
        },
      ],
    });
    expect(final.lastAnswer).toContain('お問い合わせいただきありがとうございます');
    expect(final.lastAnswer).toContain('QRコード');
    expect(final.llmCalls[0]).toMatchObject({ step: 'create_answer' });
    expect(final.llmCalls[0]).not.toHaveProperty('subtask');
  });

  it('records an LLM call with the tokens of response.usage', async () => {
    const before = server.chatRequests().length;
    const planned = await agent.createPlan(initialAgentState('1. パスワードの設定について'));
    expect(server.chatRequests()).toHaveLength(before + 1);
    const call = planned.llmCalls[0]!;
    expect(call.promptTokens).toBeGreaterThan(0);
    expect(call.completionTokens).toBeGreaterThan(0);
    expect(call.durationMs).toBeGreaterThanOrEqual(0);
  });
});
