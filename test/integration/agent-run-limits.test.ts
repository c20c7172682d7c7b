/**
 * What bounds one agent run: a failed run stops its other subtasks' model calls; one tool-selection reply cannot make
 * the run search without end, feed back unbounded tool output or store huge arguments; and a subtask answer the
 * model was cut off in is never used as if it were complete.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { reviewVerdict } from '../../jobs/answer-ticket.js';
import {
  HelpDeskAgent,
  MAX_STORED_TOOL_ARGS_CHARS,
  MAX_TOOL_ARGS_CHARS,
  MAX_TOOL_CALLS_PER_TRY,
  MAX_TOOL_OUTPUT_CHARS_PER_TRY,
  createSearchTools,
  fallbackSubtaskAnswer,
} from '../../src/agent/index.js';
import { httpError, startOpenAIServer, type ChatRequest, type OpenAIServer } from '../../src/dev/openai-server.js';
import {
  MemoryManualSearch,
  classify,
  fixtureSearch,
  messageText,
  scriptedModel,
  type ScriptedModelOptions,
} from '../../src/dev/scripted-model.js';
import type { ManualChunk } from '../../src/search/types.js';

let server: OpenAIServer;

beforeEach(async () => {
  server = await startOpenAIServer();
});

afterEach(async () => {
  await server.close();
});

/** One HTTP request the SDK made: the signal it was given and whether it has settled. */
interface SentRequest {
  body: string;
  signal: AbortSignal | undefined;
  settled: Promise<unknown>;
}

function makeAgent(search = fixtureSearch()) {
  const sent: SentRequest[] = [];
  // The SDK's own fetch, watched: which requests were in flight, and whether the run aborted them.
  const watchedFetch: typeof fetch = (input, init) => {
    const response = fetch(input, init);
    sent.push({ body: typeof init?.body === 'string' ? init.body : '', signal: init?.signal ?? undefined, settled: response.then(() => undefined, () => undefined) });
    return response;
  };
  const agent = new HelpDeskAgent({
    client: new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0, fetch: watchedFetch }),
    model: 'scripted-model',
    tools: createSearchTools(search),
    productName: 'XYZ',
    maxQuestionChars: 1000,
    maxSubtasks: 5,
    recursionLimit: 50,
  });
  return { agent, search, sent };
}

const useModel = (options: ScriptedModelOptions) => server.setHandler(scriptedModel(options));
const requestsOf = (kind: ReturnType<typeof classify>['kind']): ChatRequest[] => server.chatRequests().filter((r) => classify(r).kind === kind);

describe('a failed run', () => {
  it('aborts the model calls of its other subtasks, in flight and later ones', async () => {
    const { agent, sent } = makeAgent();
    const scripted = scriptedModel({ plan: () => ['A 二段階認証の設定について調べる', 'B バックアップ失敗時の通知について調べる'], forceIncomplete: () => true });
    let bArrived!: () => void;
    const bInFlight = new Promise<void>((resolve) => (bArrived = resolve));
    let releaseB!: () => void;
    const bReleased = new Promise<void>((resolve) => (releaseB = resolve));
    server.setHandler(async (req) => {
      const call = classify(req);
      if (call.kind === 'select_tools' && call.subtask?.startsWith('A')) {
        // A fails for good while B's request is certainly in flight.
        await bInFlight;
        return httpError(400, { message: 'context_length_exceeded' });
      }
      if (call.kind === 'select_tools' && call.subtask?.startsWith('B') && call.attempt === 1) {
        bArrived();
        await bReleased;
      }
      return scripted(req);
    });

    const err: unknown = await agent.runAgent('二段階認証とバックアップについて').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400 });
    const atFailure = server.chatRequests().length;
    // plan, A's select (400), B's select (held)
    expect(atFailure).toBe(3);
    // B's request was still waiting for the model when the run failed: the run aborted it.
    const pending = sent.filter((r) => classify({ body: JSON.parse(r.body) } as ChatRequest).subtask?.startsWith('B'));
    expect(pending).toHaveLength(1);
    expect(pending[0]!.signal?.aborted).toBe(true);

    // Whatever the server answers B now, the branch makes no further request.
    releaseB();
    await Promise.all(sent.map((r) => r.settled));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.chatRequests()).toHaveLength(atFailure);
  });

  it('aborts the run when the caller’s signal aborts, as before', async () => {
    const { agent } = makeAgent();
    const controller = new AbortController();
    const scripted = scriptedModel();
    server.setHandler(async (req) => {
      if (classify(req).kind === 'select_tools') controller.abort(new Error('shutdown'));
      return scripted(req);
    });
    await expect(agent.runAgent('1. 二段階認証の設定について', { signal: controller.signal })).rejects.toThrow();
    expect(requestsOf('subtask_answer')).toHaveLength(0);
  });
});

describe('tool calls of one reply', () => {
  it(`runs at most ${MAX_TOOL_CALLS_PER_TRY} distinct calls a try and answers every other call id`, async () => {
    const { agent, search } = makeAgent();
    const words = ['二段階認証', 'バックアップ', '通知', 'パスワード', '設定', 'リリース'];
    useModel({
      plan: () => ['二段階認証の設定について調べる'],
      toolCalls: () => [
        // The same call twice first: a duplicate is never searched again and does not use up the cap.
        { name: 'search_xyz_manual', arguments: { keywords: '二段階認証' } },
        { name: 'search_xyz_manual', arguments: { keywords: '二段階認証' } },
        ...Array.from({ length: 60 }, (_, i) =>
          i % 2 ? { name: 'search_xyz_qa', arguments: { query: `${words[i % words.length]} ${i}` } } : { name: 'search_xyz_manual', arguments: { keywords: `${words[i % words.length]} ${i}` } },
        ),
      ],
    });
    const result = await agent.runAgent('二段階認証の設定手順を教えてください。');

    expect(search.manual.queries.length + search.qa.queries.length).toBe(MAX_TOOL_CALLS_PER_TRY);
    expect(search.manual.queries.filter((q) => q === '二段階認証')).toHaveLength(1);
    const [firstTry] = result.subtasks[0]!.toolResults;
    expect(firstTry).toHaveLength(MAX_TOOL_CALLS_PER_TRY);

    // The conversation stays valid for the API: every tool_call id of the reply has exactly one tool message.
    const answer = requestsOf('subtask_answer')[0]!;
    const asked = answer.body.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
    const answered = answer.body.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(asked).toHaveLength(62);
    expect([...answered].sort()).toEqual([...asked].sort());
    const notRun = answer.body.messages.filter((m) => m.role === 'tool' && /実行しませんでした/.test(messageText(m)));
    expect(notRun).toHaveLength(62 - MAX_TOOL_CALLS_PER_TRY);
  });

  it(`bounds the tool output fed back in one try to ${MAX_TOOL_OUTPUT_CHARS_PER_TRY} characters`, async () => {
    // Chunks as long as a hit is shown (4,000 characters), each found by its own keyword: four searches find
    // 3 × 4 of them, twice what a try may feed back.
    const chunks: ManualChunk[] = Array.from({ length: 12 }, (_, i) => ({
      id: `long.md#${i}`,
      fileName: `long-${i}.md`,
      heading: '長い章',
      content: `語${Math.floor(i / 3)} ${'あ'.repeat(3990)}`,
    }));
    const { agent } = makeAgent({ manual: new MemoryManualSearch(chunks), qa: fixtureSearch().qa });
    useModel({
      plan: () => ['長い章について調べる'],
      toolCalls: () => [0, 1, 2, 3].map((i) => ({ name: 'search_xyz_manual', arguments: { keywords: `語${i}` } })),
    });
    const result = await agent.runAgent('長い章について教えてください。');

    const answer = requestsOf('subtask_answer')[0]!;
    const toolText = answer.body.messages.filter((m) => m.role === 'tool').reduce((n, m) => n + messageText(m).length, 0);
    expect(toolText).toBeLessThanOrEqual(MAX_TOOL_OUTPUT_CHARS_PER_TRY + 1_000);
    // What was not fed back is not recorded either: sources are what the model saw.
    const hits = result.subtasks[0]!.toolResults[0]!.flatMap((c) => c.results);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThan(12);
    expect(hits.reduce((n, h) => n + h.content.length, 0)).toBeLessThanOrEqual(MAX_TOOL_OUTPUT_CHARS_PER_TRY);
    // Every call still has its tool message, the ones over the budget saying why they are empty.
    expect(answer.body.messages.filter((m) => m.role === 'tool')).toHaveLength(4);
  });

  it('refuses a call with huge arguments without searching, and stores its arguments cut', async () => {
    const { agent, search } = makeAgent();
    const huge = '二段階認証 '.repeat(20_000);
    useModel({
      plan: () => ['二段階認証の設定について調べる'],
      toolCalls: (call) =>
        call.attempt === 1
          ? [{ name: 'search_xyz_manual', arguments: { keywords: huge } }, { name: 'search_xyz_qa', arguments: { query: huge } }]
          : [{ name: 'search_xyz_manual', arguments: { keywords: '二段階認証' } }],
    });
    const result = await agent.runAgent('二段階認証の設定手順を教えてください。');

    expect(search.manual.queries).toEqual(['二段階認証']);
    expect(search.qa.queries).toEqual([]);
    const [firstTry, secondTry] = result.subtasks[0]!.toolResults;
    expect(firstTry).toHaveLength(2);
    for (const call of firstTry!) {
      expect(call.results).toEqual([]);
      expect(call.args.length).toBeGreaterThan(MAX_STORED_TOOL_ARGS_CHARS - 100);
      expect(call.args.length).toBeLessThanOrEqual(MAX_STORED_TOOL_ARGS_CHARS + 100);
      expect(call.args).toMatch(/^\{"(keywords|query)":"二段階認証 /);
    }
    expect(JSON.stringify({ keywords: huge }).length).toBeGreaterThan(MAX_TOOL_ARGS_CHARS);
    // An ordinary call is stored exactly as the model made it.
    expect(secondTry).toEqual([expect.objectContaining({ args: '{"keywords":"二段階認証"}' })]);
    const refused = requestsOf('subtask_answer')[0]!.body.messages.filter((m) => m.role === 'tool');
    expect(refused.map(messageText)).toEqual([expect.stringMatching(/無効なツール呼び出し.*長すぎる/), expect.stringMatching(/無効なツール呼び出し.*長すぎる/)]);
  });
});

describe('a subtask answer cut off by the output limit', () => {
  const cutOff = (finishReason: 'length' | 'content_filter') =>
    ({ type: 'chat', content: '手順: 「設定」→「セキュリティ」→「二段階認証」を開き、認証方式で「', finishReason }) as const;

  it('is a failed try: retried without asking the reflection, and the complete answer is used', async () => {
    const { agent } = makeAgent();
    useModel({ plan: () => ['二段階認証の設定について調べる'], override: (c) => (c.kind === 'subtask_answer' && c.attempt === 1 ? cutOff('length') : undefined) });
    const result = await agent.runAgent('二段階認証の設定手順を教えてください。');

    const [subtask] = result.subtasks;
    expect(subtask).toMatchObject({ isCompleted: true, challengeCount: 2, usedFallback: false });
    expect(subtask!.subtaskAnswer).toContain('QRコード');
    expect(subtask!.reflectionResults.map((r) => r.isCompleted)).toEqual([false, true]);
    expect(subtask!.reflectionResults[0]!.advice).toMatch(/途中で切れ/);
    // The cut-off try cost no reflection call.
    expect(requestsOf('reflection')).toHaveLength(1);
  });

  it.each(['length', 'content_filter'] as const)('(finish_reason %s) on every try ends with the fallback, which auto mode parks', async (finishReason) => {
    const { agent } = makeAgent();
    useModel({ plan: () => ['二段階認証の設定について調べる'], override: (c) => (c.kind === 'subtask_answer' ? cutOff(finishReason) : undefined) });
    const result = await agent.runAgent('二段階認証の設定手順を教えてください。');

    const [subtask] = result.subtasks;
    expect(subtask).toMatchObject({ isCompleted: false, challengeCount: 3, usedFallback: true, subtaskAnswer: fallbackSubtaskAnswer('二段階認証の設定について調べる') });
    expect(requestsOf('reflection')).toHaveLength(0);
    // The broken sentence never reached the final answer.
    const finalUser = messageText(requestsOf('final_answer')[0]!.body.messages[1]!);
    expect(finalUser).not.toContain('認証方式で「');
    expect(reviewVerdict('auto', result).send).toBe(false);
  });
});
