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
 */
import { createHelpDeskAgent } from '../../src/agent/create-agent.js';
import { parseConfig } from '../../src/config.js';
import { createSearchBackends } from '../../src/search/factory.js';
import { estimateTokens, startOpenAIServer, type ChatRequest, type ScriptedResponse } from '../../src/dev/openai-server.js';
import { TWO_TOPIC_QUESTION, scriptedModel } from '../../src/dev/scripted-model.js';
import type { BenchContext } from '../lib/context.js';
import { sampleKnowledge, sampleKnowledgeEnv } from '../lib/sample-kb.js';

/** The model named in the product configuration and looked up in the price table. */
const MODEL = 'gpt-4o';

export async function llmCostPhase(ctx: BenchContext): Promise<void> {
  const dataDir = await sampleKnowledge(ctx);
  const counter = await tokenCounter();
  const model = scriptedModel({ tools: 'both' });
  const server = await startOpenAIServer({
    handler: (request: ChatRequest): ScriptedResponse => {
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
    const result = await agent.runAgent(TWO_TOPIC_QUESTION);
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
    }
  } finally {
    await server.close();
  }
}

interface TokenCounter {
  count(text: string): number;
  what: string;
}

/**
 * GPT-4o's tokenizer when js-tiktoken (a dependency of @langchain/core) can be loaded; otherwise the test server's
 * estimate, and the figure says so.
 */
async function tokenCounter(): Promise<TokenCounter> {
  try {
    const [{ Tiktoken }, ranks] = await Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/o200k_base')]);
    const encoder = new Tiktoken(ranks.default);
    return { count: (text) => encoder.encode(text).length, what: 'o200k_base count of messages, tools and schema' };
  } catch {
    return { count: estimateTokens, what: 'estimate (4 chars/token): js-tiktoken not loadable' };
  }
}
