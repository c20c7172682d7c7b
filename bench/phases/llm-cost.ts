/**
 * Phase 8: LLM calls and tokens of one ticket with the design's two-topic question, and what 1,000 such tickets cost
 * at the prices of `bench/prices.json` (or `--prices FILE`).
 *
 * The agent runs in this process against the scripted OpenAI-compatible server over HTTP, searching the sample
 * knowledge base. The server's usage figures are replaced by an o200k_base count (GPT-4o's tokenizer) of each
 * request (messages, tool definitions and response schema) and reply, so the product records the tokens a GPT-4o
 * deployment would bill, not the test server's rough characters-per-token estimate. Completion tokens are the
 * scripted model's (its subtask answers quote the search hits whole); prompt tokens (the product's prompts, the
 * question and the search results it sends) are the product's own.
 *
 * Prompt caching: providers bill a repeated prompt prefix at a discount (OpenAI: half price, for prefixes of at least
 * 1,024 tokens, counted in steps of 128). A second, different two-topic ticket is run after the first; each of its
 * calls is compared token by token with the first ticket's call of the same step, in the order a provider reads a
 * request (tool definitions, response schema, then the messages). The tokens before the first difference are the
 * prefix identical across tickets; rounded down to the provider's steps they are what its cache would serve.
 */
import { createHelpDeskAgent } from '../../src/agent/create-agent.js';
import { parseConfig } from '../../src/config.js';
import { createSearchBackends } from '../../src/search/factory.js';
import { estimateTokens, startOpenAIServer, type ChatRequest, type ScriptedResponse } from '../../src/dev/openai-server.js';
import { TWO_TOPIC_QUESTION, classify, scriptedModel } from '../../src/dev/scripted-model.js';
import type { BenchContext } from '../lib/context.js';
import { sampleKnowledge, sampleKnowledgeEnv } from '../lib/sample-kb.js';

/** The model named in the product configuration and looked up in the price table. */
const MODEL = 'gpt-4o';

export async function llmCostPhase(ctx: BenchContext): Promise<void> {
  const dataDir = await sampleKnowledge(ctx);
  const counter = await tokenCounter();
  const model = scriptedModel({ tools: 'both' });
  const seen: ChatRequest[] = [];
  const server = await startOpenAIServer({
    handler: (request: ChatRequest): ScriptedResponse => {
      seen.push(request);
      const reply = model(request);
      if (reply.type !== 'chat') return reply;
      const { messages, tools, response_format } = request.body;
      const prompt = counter.count(JSON.stringify({ messages, tools, response_format }));
      const completion = counter.count(reply.content ?? JSON.stringify(reply.toolCalls ?? []));
      return { ...reply, usage: { prompt_tokens: prompt, completion_tokens: completion } };
    },
  });
  try {
    const config = parseConfig({
      ...sampleKnowledgeEnv(dataDir),
      LOG_LEVEL: 'warn',
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: 'bench',
      OPENAI_MODEL: MODEL,
    });
    const agent = createHelpDeskAgent(config, createSearchBackends(config));
    seen.length = 0;
    const result = await agent.runAgent(TWO_TOPIC_QUESTION);
    const first = seen.splice(0);
    const second = await agent.runAgent(OTHER_TWO_TOPIC_QUESTION);
    const prefix = sharedPrefixes(first, seen.splice(0), counter);
    const { calls, promptTokens, completionTokens, totalTokens } = result.usage;
    const steps = result.llmCalls.map((c) => c.step);
    const perSubtask = result.subtasks.map((s) => s.usage.calls);
    const criticalPath = 2 + Math.max(0, ...perSubtask);
    ctx.figures.add({
      id: 'llm.twoTopic.calls',
      phase: '8',
      name: 'LLM calls per two-topic ticket',
      value: calls,
      unit: '',
      note: `${result.plan.subtasks.length} subtasks; per subtask ${perSubtask.join('+')}; ${criticalPath} on the critical path (${steps.filter((s) => s === 'create_plan').length} plan, ${steps.filter((s) => s === 'create_answer').length} answer)`,
    });
    ctx.figures.add({ id: 'llm.twoTopic.promptTokens', phase: '8', name: 'prompt tokens per two-topic ticket', value: promptTokens, unit: 'tok', note: counter.what });
    ctx.figures.add({ id: 'llm.twoTopic.completionTokens', phase: '8', name: 'completion tokens per two-topic ticket', value: completionTokens, unit: 'tok', note: 'scripted replies (subtask answers quote the search hits whole)' });
    ctx.figures.add({
      id: 'llm.twoTopic.cacheablePrefixShare',
      phase: '8',
      name: 'prompt tokens in a prefix identical across tickets',
      value: (100 * prefix.shared) / prefix.total,
      unit: '%',
      ...(ctx.quick ? {} : { target: { op: '>=' as const, limit: 50 } }),
      note: `${prefix.shared} of ${prefix.total} tok of a second two-topic ticket (${second.usage.calls} calls) equal from the start to the first one's; ${prefix.cached} in OpenAI's cacheable steps (≥ 1,024, then 128)`,
    });
    for (const [name, price] of Object.entries(ctx.prices)) {
      const cost = (1000 * (promptTokens * price.inputPerMTok + completionTokens * price.outputPerMTok)) / 1e6;
      ctx.figures.add({
        id: `llm.twoTopic.costPer1000.${name}`,
        phase: '8',
        name: `cost per 1,000 tickets, ${name}`,
        value: cost,
        unit: 'USD',
        note: `${totalTokens} tok/ticket at $${price.inputPerMTok}/$${price.outputPerMTok} per M in/out`,
      });
      if (price.cachedInputPerMTok !== undefined) {
        // Per ticket of the second kind: its cacheable prefix tokens at the cached price, the rest at the full one.
        const share = prefix.cached / prefix.total;
        const cached = promptTokens * share;
        const cachedCost = (1000 * ((promptTokens - cached) * price.inputPerMTok + cached * price.cachedInputPerMTok + completionTokens * price.outputPerMTok)) / 1e6;
        ctx.figures.add({
          id: `llm.twoTopic.costPer1000Cached.${name}`,
          phase: '8',
          name: `cost per 1,000 tickets with prompt caching, ${name}`,
          value: cachedCost,
          unit: 'USD',
          note: `${(100 * share).toFixed(0)} % of prompt tokens at the cached $${price.cachedInputPerMTok} per M`,
        });
      }
    }
    const reported = second.llmCalls.reduce((n, c) => n + (c.cachedPromptTokens ?? 0), 0);
    if (second.llmCalls.some((c) => c.cachedPromptTokens !== undefined)) {
      ctx.figures.add({ id: 'llm.twoTopic.reportedCachedTokens', phase: '8', name: 'cached prompt tokens the server reported', value: reported, unit: 'tok', note: 'usage.prompt_tokens_details.cached_tokens' });
    }
  } finally {
    await server.close();
  }
}

interface TokenCounter {
  count(text: string): number;
  /** The tokens themselves, to compare two prompts token by token (the estimate has none: characters stand in). */
  encode(text: string): ArrayLike<number>;
  what: string;
}

/** A second two-topic question, different words, same shape: only what is the same for every ticket may match. */
const OTHER_TWO_TOPIC_QUESTION = `お世話になっております。

1. パスワードの再設定について
パスワードを忘れてしまいました。再設定の方法を教えてください。

2. 請求書について
請求書の宛名を変更できますか。

よろしくお願いいたします。`;

/** OpenAI serves cached prefixes of at least 1,024 tokens, in steps of 128. */
function cacheableTokens(prefix: number): number {
  return prefix < 1024 ? 0 : 1024 + Math.floor((prefix - 1024) / 128) * 128;
}

/** A request as a provider reads it: tool definitions, response schema, then the messages in order. */
function requestText(request: ChatRequest): string {
  const { messages, tools, response_format } = request.body;
  return [JSON.stringify(tools ?? []), JSON.stringify(response_format ?? null), ...messages.map((m) => JSON.stringify(m))].join('');
}

/**
 * For each call of `later`, the tokens it shares from the start with the `earlier` ticket's calls of the same step
 * (the best match: a retried subtask has more than one), summed; `cached` rounds each to the provider's steps.
 */
function sharedPrefixes(earlier: ChatRequest[], later: ChatRequest[], counter: TokenCounter): { total: number; shared: number; cached: number } {
  const byKind = new Map<string, ArrayLike<number>[]>();
  for (const r of earlier) {
    const kind = classify(r).kind;
    byKind.set(kind, [...(byKind.get(kind) ?? []), counter.encode(requestText(r))]);
  }
  let total = 0;
  let shared = 0;
  let cached = 0;
  for (const r of later) {
    const tokens = counter.encode(requestText(r));
    let best = 0;
    for (const other of byKind.get(classify(r).kind) ?? []) {
      let i = 0;
      while (i < tokens.length && i < other.length && tokens[i] === other[i]) i++;
      best = Math.max(best, i);
    }
    total += tokens.length;
    shared += best;
    cached += cacheableTokens(best);
  }
  return { total, shared, cached };
}

/**
 * GPT-4o's tokenizer when js-tiktoken (a dependency of @langchain/core) can be loaded; otherwise the test server's
 * estimate, and the figure says so.
 */
async function tokenCounter(): Promise<TokenCounter> {
  try {
    const [{ Tiktoken }, ranks] = await Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/o200k_base')]);
    const encoder = new Tiktoken(ranks.default);
    return { count: (text) => encoder.encode(text).length, encode: (text) => encoder.encode(text), what: 'o200k_base count of messages, tools and schema' };
  } catch {
    return { count: estimateTokens, encode: (text) => Array.from(text, (ch) => ch.codePointAt(0)!), what: 'estimate (4 chars/token): js-tiktoken not loadable' };
  }
}
