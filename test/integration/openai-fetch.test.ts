/**
 * The OpenAI client's keep-alive fetch (src/openai-fetch.ts) against real loopback HTTP servers, through the real
 * `openai` SDK where the SDK is what depends on it: sockets reused, the SDK's timeout and retries, encodings, bodies
 * without content, redirects and what it hands to the global fetch.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeepAliveFetch } from '../../src/openai-fetch.js';
import { createOpenAIClient } from '../../src/openai.js';

interface TestServer {
  url: string;
  connections: number;
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

const servers: TestServer[] = [];

async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<TestServer> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      handler(req, body, res);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', () => (state.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const state: TestServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: 0,
    requests: [],
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(state);
  return state;
}

const completion = (content: string) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });

const json = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
};

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const clientFor = (url: string, extra: Partial<{ LLM_TIMEOUT_MS: number; LLM_MAX_RETRIES: number }> = {}) =>
  createOpenAIClient({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${url}/v1`, LLM_TIMEOUT_MS: 5_000, LLM_MAX_RETRIES: 0, ...extra });

describe('keep-alive fetch of the OpenAI client', () => {
  it('sends the SDK request as is and reuses one socket for calls in sequence', async () => {
    const server = await serve((_req, _body, res) => json(res, 200, completion('二段階認証の設定方法です。')));
    const client = clientFor(server.url);
    for (let i = 0; i < 5; i++) {
      const r = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `質問 ${i}` }] });
      expect(r.choices[0]?.message.content).toBe('二段階認証の設定方法です。');
    }
    expect(server.connections).toBe(1);
    const first = server.requests[0]!;
    expect(first.method).toBe('POST');
    expect(first.path).toBe('/v1/chat/completions');
    expect(first.headers.authorization).toBe('Bearer sk-test');
    expect(JSON.parse(first.body)).toMatchObject({ model: 'm', messages: [{ role: 'user', content: '質問 0' }] });
  });

  it('lets the SDK time out and retry: a hung server gives APIConnectionTimeoutError after every try', async () => {
    const server = await serve(() => undefined);
    const client = clientFor(server.url, { LLM_TIMEOUT_MS: 200, LLM_MAX_RETRIES: 1 });
    await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      OpenAI.APIConnectionTimeoutError,
    );
    expect(server.requests).toHaveLength(2);
  });

  it('lets the SDK retry a 503 and read the status and body of a 400', async () => {
    let calls = 0;
    const server = await serve((_req, _body, res) => {
      calls += 1;
      if (calls === 1) json(res, 503, JSON.stringify({ error: { message: 'busy' } }), { 'retry-after-ms': '10' });
      else json(res, 400, JSON.stringify({ error: { message: 'bad model', type: 'invalid_request_error' } }));
    });
    const client = clientFor(server.url, { LLM_MAX_RETRIES: 1 });
    const err = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('bad model');
    expect(calls).toBe(2);
  });

  it('fails a refused connection as a connection error', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    await server.close();
    servers.length = 0;
    await expect(clientFor(url).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      OpenAI.APIConnectionError,
    );
  });

  it('decodes a gzip body a proxy sent unasked', async () => {
    const server = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(completion('圧縮')));
    });
    const r = await clientFor(server.url).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(r.choices[0]?.message.content).toBe('圧縮');
  });

  it('answers a 204 with no body and keeps repeated headers', async () => {
    const server = await serve((_req, _body, res) => {
      res.setHeader('x-trace', ['a', 'b']);
      res.writeHead(204);
      res.end();
    });
    const response = await createKeepAliveFetch()(`${server.url}/v1/x`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(response.headers.get('x-trace')).toBe('a, b');
  });

  it('hands back a response that reads like fetch: text, json, bytes, body stream, clone, and one read only', async () => {
    const payload = completion('本文');
    const server = await serve((_req, _body, res) => json(res, 200, `\uFEFF${payload}`, { 'x-request-id': 'req_1' }));
    const f = createKeepAliveFetch();
    const url = `${server.url}/v1/chat/completions`;
    const init = { method: 'POST', body: '{}' };
    const global = await fetch(url, init);
    const ours = await f(url, init);
    expect(ours).toBeInstanceOf(Response);
    expect([ours.status, ours.ok, ours.headers.get('x-request-id'), ours.bodyUsed]).toEqual([200, true, 'req_1', false]);
    const copy = ours.clone();
    // A BOM is dropped by text() and json(), as fetch does.
    expect(await ours.json()).toEqual(await global.json());
    expect(ours.bodyUsed).toBe(true);
    await expect(ours.text()).rejects.toBeInstanceOf(TypeError);
    expect(() => ours.clone()).toThrow(TypeError);
    expect(await copy.text()).toBe(payload);
    const bytes = new Uint8Array(await (await f(url, init)).arrayBuffer());
    expect(Buffer.from(bytes).toString('utf8')).toBe(`\uFEFF${payload}`);
    const streamed = await f(url, init);
    expect(await new Response(streamed.body).text()).toBe(payload);
    expect(streamed.bodyUsed).toBe(true);
    expect(await (await f(url, init)).blob().then((b) => b.size)).toBe(Buffer.byteLength(`\uFEFF${payload}`));
  });

  it('hands redirects, streamed bodies and Request objects to the fallback fetch', async () => {
    const target = await serve((_req, _body, res) => json(res, 200, '{"moved":true}'));
    const origin = await serve((_req, _body, res) => {
      res.writeHead(307, { location: `${target.url}/there` });
      res.end();
    });
    const fallbackCalls: string[] = [];
    const fallback = ((input: string | URL | Request, init?: RequestInit) => {
      fallbackCalls.push(input instanceof Request ? input.url : String(input));
      return globalThis.fetch(input, init);
    }) as typeof fetch;
    const f = createKeepAliveFetch({ fallback });
    const redirected = await f(`${origin.url}/here`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(await redirected.json()).toEqual({ moved: true });
    await f(`${target.url}/stream`, { method: 'POST', body: new Blob(['x']) });
    await f(new Request(`${target.url}/request`));
    expect(fallbackCalls).toEqual([`${origin.url}/here`, `${target.url}/stream`, `${target.url}/request`]);
    expect(target.requests.map((r) => r.path)).toEqual(['/there', '/stream', '/request']);
  });
});
