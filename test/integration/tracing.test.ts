import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createLangSmithClient, createOpenAIClient } from '../../src/openai.js';
import { startOpenAIServer, textResponse, type OpenAIServer } from '../../src/dev/openai-server.js';
import { startRecordingServer, type RecordingHttpServer } from '../support/recording-http-server.js';

let llm: OpenAIServer;
let langsmith: RecordingHttpServer;

beforeAll(async () => {
  llm = await startOpenAIServer({ handler: () => textResponse('こんにちは') });
  langsmith = await startRecordingServer();
  // Whatever LangSmith's client calls answers 200: this test checks what reaches it.
  langsmith.on('GET', '/info', () => ({ status: 200, body: { version: '0.0.0', batch_ingest_config: {} } }));
  langsmith.on('POST', /^\/runs/, () => ({ status: 200, body: {} }));
  langsmith.on('PATCH', /^\/runs/, () => ({ status: 200, body: {} }));
});
afterAll(async () => {
  await llm?.close();
  await langsmith?.close();
});

describe('LangSmith tracing', () => {
  const base = { OPENAI_BASE_URL: '', OPENAI_API_KEY: 'k', LLM_MAX_RETRIES: '0' };

  it('is off by default: LLM calls reach no tracing endpoint', async () => {
    const config = parseConfig({ ...base, OPENAI_BASE_URL: llm.url, LANGSMITH_ENDPOINT: langsmith.url });
    expect(config.LANGSMITH_TRACING).toBe(false);
    const client = createOpenAIClient(config);
    await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(langsmith.requests).toHaveLength(0);
  });

  it('traces every LLM call to LANGSMITH_ENDPOINT with the API key when LANGSMITH_TRACING is on', async () => {
    const config = parseConfig({
      ...base,
      OPENAI_BASE_URL: llm.url,
      LANGSMITH_TRACING: 'true',
      LANGSMITH_ENDPOINT: langsmith.url,
      LANGSMITH_API_KEY: 'ls-test-key',
      LANGSMITH_PROJECT: 'helpdesk-test',
    });
    const tracer = createLangSmithClient(config);
    const client = createOpenAIClient(config, tracer);
    const answer = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: '二段階認証' }] });
    expect(answer.choices[0]?.message.content).toBe('こんにちは');
    await tracer.awaitPendingTraceBatches();
    const posts = langsmith.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/runs'));
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((r) => r.headers['x-api-key'] === 'ls-test-key')).toBe(true);
  });
});
