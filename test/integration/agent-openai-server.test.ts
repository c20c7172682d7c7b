/** The scripted OpenAI-compatible server, driven by the real openai SDK. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import {
  delayed,
  hashedEmbedding,
  httpError,
  jsonResponse,
  startOpenAIServer,
  textResponse,
  toolCallsResponse,
  type OpenAIServer,
} from '../../src/dev/openai-server.js';

let server: OpenAIServer;
let client: OpenAI;

beforeEach(async () => {
  server = await startOpenAIServer({ embeddingDimensions: 16 });
  client = new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
});

afterEach(async () => {
  await server.close();
});

describe('openai-server', () => {
  it('answers text with usage and records the request', async () => {
    server.setHandler(() => textResponse('こんにちは', { usage: { prompt_tokens: 7, completion_tokens: 3 } }));
    const res = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]!.message.content).toBe('こんにちは');
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(res.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    const [req] = server.chatRequests();
    expect(req!.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(req!.status).toBe(200);
    expect(req!.endedAt).toBeGreaterThanOrEqual(req!.startedAt);
  });

  it('answers tool calls with finish_reason tool_calls', async () => {
    server.setHandler(() => toolCallsResponse([{ name: 'search_xyz_manual', arguments: { keywords: 'E-1001' } }]));
    const res = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'E-1001?' }],
      tools: [{ type: 'function', function: { name: 'search_xyz_manual', parameters: { type: 'object' } } }],
    });
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
    const call = res.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function).toEqual({ name: 'search_xyz_manual', arguments: '{"keywords":"E-1001"}' });
    expect(res.usage!.total_tokens).toBeGreaterThan(0);
  });

  it('answers structured output that chat.completions.parse accepts', async () => {
    server.setHandler(() => jsonResponse({ subtasks: ['a', 'b'] }));
    const res = await client.chat.completions.parse({
      model: 'm',
      messages: [{ role: 'user', content: 'plan' }],
      response_format: zodResponseFormat(z.object({ subtasks: z.array(z.string()) }), 'plan'),
    });
    expect(res.choices[0]!.message.parsed).toEqual({ subtasks: ['a', 'b'] });
    expect(server.chatRequests()[0]!.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'plan' } });
  });

  it('returns HTTP errors with Retry-After, and the SDK retries them', async () => {
    let n = 0;
    server.setHandler(() => (n++ === 0 ? httpError(429, { retryAfterSeconds: 0, retryAfterMs: 10 }) : textResponse('ok')));
    const retrying = new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 1 });
    const res = await retrying.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(res.choices[0]!.message.content).toBe('ok');
    expect(server.chatRequests().map((r) => r.status)).toEqual([429, 200]);

    server.setHandler(() => httpError(500, { message: 'boom' }));
    await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 500,
    });
  });

  it('delays a reply', async () => {
    server.setHandler(() => delayed(80, textResponse('late')));
    await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const [req] = server.chatRequests();
    expect(req!.endedAt! - req!.startedAt).toBeGreaterThanOrEqual(70);
  });

  it('reports a throwing handler as a 400 so the SDK does not retry it', async () => {
    server.setHandler(() => {
      throw new Error('no rule');
    });
    await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(/no rule/);
  });

  it('serves deterministic embeddings and the model list', async () => {
    const a = await client.embeddings.create({ model: 'e', input: ['二段階認証', '二段階認証', 'バックアップ'] });
    expect(a.data).toHaveLength(3);
    expect(a.data[0]!.embedding).toHaveLength(16);
    expect(a.data[0]!.embedding).toEqual(a.data[1]!.embedding);
    expect(a.data[0]!.embedding).not.toEqual(a.data[2]!.embedding);
    // The SDK asked for base64 float32 and decoded it.
    const expected = Array.from(new Float32Array(hashedEmbedding('二段階認証', 16)));
    expect(a.data[0]!.embedding).toEqual(expected);
    const floats = await client.embeddings.create({ model: 'e', input: '二段階認証', encoding_format: 'float' });
    expect(floats.data[0]!.embedding).toEqual(hashedEmbedding('二段階認証', 16));
    expect(a.usage.total_tokens).toBeGreaterThan(0);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['scripted-model']);
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/embeddings', '/v1/embeddings', '/v1/models']);
  });
});
