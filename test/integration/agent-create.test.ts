/** createHelpDeskAgent wires configuration into the agent; the client it builds talks to the configured server. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PromptConfigError, createHelpDeskAgent } from '../../src/agent/index.js';
import { parseConfig } from '../../src/config.js';
import { startOpenAIServer, type OpenAIServer } from '../../src/dev/openai-server.js';
import { classify, fixtureSearch, messageText, scriptedModel } from '../../src/dev/scripted-model.js';

let server: OpenAIServer;
const dir = mkdtempSync(path.join(tmpdir(), 'agent-create-'));

beforeAll(async () => {
  server = await startOpenAIServer({ handler: scriptedModel() });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('createHelpDeskAgent', () => {
  it('uses OPENAI_MODEL, PRODUCT_NAME, MAX_QUESTION_CHARS, MAX_SUBTASKS and PROMPTS_FILE', async () => {
    const promptsFile = path.join(dir, 'prompts.json');
    writeFileSync(promptsFile, JSON.stringify({ subtaskRetryAnswerUserPrompt: '{product}: 別の方法で調べ直してください。' }));
    const config = parseConfig({
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: 'test',
      OPENAI_MODEL: 'my-model',
      LLM_MAX_RETRIES: '0',
      PRODUCT_NAME: 'Acme Cloud',
      MAX_QUESTION_CHARS: '60',
      MAX_SUBTASKS: '1',
      AGENT_RECURSION_LIMIT: '40',
      PROMPTS_FILE: promptsFile,
    });
    const search = fixtureSearch();
    const agent = createHelpDeskAgent(config, search);
    expect(agent.prompts.subtaskRetryAnswerUserPrompt).toBe('{product}: 別の方法で調べ直してください。');
    expect(agent.toolNames).toEqual(['search_xyz_manual', 'search_xyz_qa']);

    server.reset();
    const result = await agent.runAgent(`1. 最新リリースの確認について\n2. 存在しない機能について\n${'よろしくお願いします。'.repeat(8)}`);
    expect(result.truncated).toBe(true);
    expect(result.plan.subtasks).toEqual(['最新リリースの確認について調べる']);
    expect(result.droppedSubtasks).toEqual(['存在しない機能について調べる']);
    const requests = server.chatRequests();
    expect(new Set(requests.map((r) => r.body.model))).toEqual(new Set(['my-model']));
    expect(result.llmCalls.every((c) => c.model === 'my-model')).toBe(true);
    expect(messageText(requests[0]!.body.messages[0]!)).toContain('Acme Cloud');
    const select = requests.find((r) => classify(r).kind === 'select_tools')!;
    expect(select.body.tools?.[0]?.function?.description).toContain('Acme Cloud');
    expect(search.manual.queries.length).toBeGreaterThan(0);
  });

  it.each([
    ['ja', /^[^A-Za-z]*[\u3040-\u30ff\u3400-\u9fff]/, 'Japanese'],
    ['en', /two-factor/i, 'English'],
  ])('KNOWLEDGE_LANGUAGE=%s: an English mail is searched in that language and answered in English', async (language, searched, named) => {
    const config = parseConfig({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', LLM_MAX_RETRIES: '0', KNOWLEDGE_LANGUAGE: language });
    const search = fixtureSearch();
    const agent = createHelpDeskAgent(config, search);
    server.reset();
    const result = await agent.runAgent('How do I set up two-factor authentication with an authenticator app?');
    const select = server.chatRequests().find((r) => classify(r).kind === 'select_tools')!;
    expect(messageText(select.body.messages[0]!)).toContain(`Search in ${named}, the language of the knowledge base`);
    expect(search.manual.queries.length).toBeGreaterThan(0);
    for (const query of search.manual.queries) expect(query).toMatch(searched);
    expect(result.answer).toMatch(/^Thank you for contacting us/);
  });

  it('records the prompt tokens a server served from its cache, when it reports them', async () => {
    const config = parseConfig({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', LLM_MAX_RETRIES: '0' });
    const scripted = scriptedModel();
    server.setHandler((request) => {
      const reply = scripted(request);
      const kind = classify(request).kind;
      return reply.type === 'chat' && kind !== 'final_answer' ? { ...reply, usage: { prompt_tokens: 2048, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 1024 } } } : reply;
    });
    try {
      const result = await createHelpDeskAgent(config, fixtureSearch()).runAgent('二段階認証の設定方法を教えてください。');
      const plan = result.llmCalls.find((c) => c.step === 'create_plan')!;
      expect(plan.cachedPromptTokens).toBe(1024);
      expect(result.llmCalls.find((c) => c.step === 'create_answer')!.cachedPromptTokens).toBeUndefined();
    } finally {
      server.setHandler(scriptedModel());
    }
  });

  it('uses the overridden retry prompt on a retry', async () => {
    const promptsFile = path.join(dir, 'retry.json');
    writeFileSync(promptsFile, JSON.stringify({ subtaskRetryAnswerUserPrompt: '{product}: 別の方法で調べ直してください。' }));
    const config = parseConfig({ OPENAI_BASE_URL: server.url, LLM_MAX_RETRIES: '0', PRODUCT_NAME: 'Acme', PROMPTS_FILE: promptsFile });
    const agent = createHelpDeskAgent(config, fixtureSearch());
    server.setHandler(scriptedModel({ keywords: (_s, attempt) => (attempt === 1 ? '該当なし' : 'リリース') }));
    server.reset();
    await agent.runAgent('1. 最新リリースの確認について');
    const retry = server.chatRequests().filter((r) => classify(r).kind === 'select_tools')[1]!;
    expect(messageText(retry.body.messages.at(-1)!)).toBe('Acme: 別の方法で調べ直してください。');
    server.setHandler(scriptedModel());
  });

  it('fails at creation on a broken prompts file', () => {
    const promptsFile = path.join(dir, 'broken.json');
    writeFileSync(promptsFile, JSON.stringify({ finalAnswer: 'x' }));
    const config = parseConfig({ OPENAI_BASE_URL: server.url, PROMPTS_FILE: promptsFile });
    expect(() => createHelpDeskAgent(config, fixtureSearch())).toThrow(PromptConfigError);
    expect(() => createHelpDeskAgent(config, fixtureSearch())).toThrow(/unknown prompt name\(s\) finalAnswer/);
  });
});
