/**
 * A model server (or a gateway in front of it) that repeats the API key in its error: "Invalid API key: sk-…", the
 * Authorization header it got, a prefix of the key, the key in a header. Whatever it echoes, the key must reach no
 * place an operator or a log reader sees: the SDK's error (its message, stack, body and headers), the park reason,
 * the log serializer's output, BullMQ's failedReason and stacktrace (shown on Bull Board).
 *
 * Real parts: a loopback HTTP server answering each case, the real `openai` SDK through the project's client, and for
 * the job record the real agent worker on a real Redis.
 */
import http from 'node:http';
import { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFailureReason, toJobError } from '../../jobs/answer-ticket.js';
import { parseConfig } from '../../src/config.js';
import { httpError } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { serializeError } from '../../src/logger.js';
import { createOpenAIClient } from '../../src/openai.js';
import { buildMail, customerMessageId, ingest, pipelineEnv, removePrefix, startPipelineServers, startRoles, waitFor, waitForState } from '../support/pipeline.js';

const KEY = 'sk-live-Q7vX2mRk9TzL4pWn8HsJ3dYbF6cA';
/** The part of the key that is secret: every key of the account starts `sk-live-`. */
const SECRET = KEY.slice('sk-live-'.length);
const TICKET = `0123456789ab${'c'.repeat(52)}`;

/** The pieces of the key a reader must not find: any 8 characters of its secret part in a row. */
function leakedPiece(text: string): string | undefined {
  for (let i = 0; i + 8 <= SECRET.length; i++) if (text.includes(SECRET.slice(i, i + 8))) return SECRET.slice(i, i + 8);
  return undefined;
}

interface Answer {
  status: number;
  /** The response body as sent: `(authorization) => body`. */
  body: (authorization: string) => string;
  contentType: string;
  headers?: Record<string, string>;
}

const json = (message: string) => JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'invalid_api_key' } });
/** `text` as a JSON string's inside, with the characters `escaped` picks written as `\uXXXX` (as some gateways write). */
const jsonEscaped = (text: string, escaped: (char: string, index: number) => boolean) =>
  [...text].map((char, i) => (escaped(char, i) ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}` : char)).join('');
/** An error body whose message holds the key `\u`-escaped: the raw text never shows the key, the parsed JSON does. */
const escapedJson = (escaped: (char: string, index: number) => boolean) => () =>
  `{"error":{"message":"Invalid API key: ${jsonEscaped(KEY, escaped)}","type":"invalid_request_error","code":"invalid_api_key"}}`;

let answer: Answer;
let server: http.Server;
let baseUrl = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': answer.contentType, ...answer.headers }).end(answer.body(req.headers.authorization ?? ''));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

type Call = 'chat' | 'chat streamed' | 'embeddings';

describe("a model server's error that repeats the API key", () => {
  const settings = () => ({ OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: KEY, OPENAI_MODEL: 'm' });

  it.each<[string, Call, Answer, string]>([
    ['401, the key whole in the JSON message', 'chat', { status: 401, contentType: 'application/json', body: () => json(`Invalid API key: ${KEY}`) }, 'Invalid API key'],
    ['401, the Authorization header echoed', 'chat', { status: 401, contentType: 'application/json', body: (auth) => json(`invalid credentials: got "${auth}"`) }, 'invalid credentials'],
    ['401, a 20-character prefix and dots', 'chat', { status: 401, contentType: 'application/json', body: () => json(`invalid credentials (key ${KEY.slice(0, 20)}...)`) }, 'invalid credentials'],
    ['403, the key padded by the gateway', 'chat', { status: 403, contentType: 'application/json', body: () => json(`key ${KEY}:tenant-7 is not allowed here`) }, 'is not allowed here'],
    ['403, the key cut short at the end', 'chat', { status: 403, contentType: 'application/json', body: () => json(`forbidden for …${KEY.slice(12)}`) }, 'forbidden for'],
    ['500, the key in a plain-text body', 'chat', { status: 500, contentType: 'text/plain', body: (auth) => `upstream failed for request with ${auth}` }, 'upstream failed'],
    ['400, the key in a JSON message', 'chat', { status: 400, contentType: 'application/json', body: () => json(`bad request from ${KEY}`) }, 'bad request'],
    [
      '401, the key in a header and the body',
      'chat',
      { status: 401, contentType: 'application/json', headers: { 'www-authenticate': `Bearer error="invalid_token", token="${KEY}"`, 'x-debug-key': KEY }, body: () => json(`Invalid API key: ${KEY}`) },
      'Invalid API key',
    ],
    // The SDK makes an error of every answer that is not ok, 3xx included (a 301 without Location comes back as is).
    ['300, the key in the JSON message', 'chat', { status: 300, contentType: 'application/json', body: () => json(`Invalid API key: ${KEY}`) }, 'Invalid API key'],
    ['301 without Location, the key in the JSON message', 'chat', { status: 301, contentType: 'application/json', body: () => json(`Invalid API key: ${KEY}`) }, 'Invalid API key'],
    ['399, the Authorization header echoed', 'chat', { status: 399, contentType: 'application/json', body: (auth) => json(`invalid credentials: got "${auth}"`) }, 'invalid credentials'],
    ['304, the key in a header (no body)', 'chat', { status: 304, contentType: 'application/json', headers: { 'x-debug-key': KEY }, body: () => '' }, '304'],
    // Masking the raw text alone misses these: the key shows only once the SDK has parsed the JSON.
    ['401, the key \\u-escaped whole', 'chat', { status: 401, contentType: 'application/json', body: escapedJson(() => true) }, 'Invalid API key'],
    ['401, the key partly \\u-escaped', 'chat', { status: 401, contentType: 'application/json', body: escapedJson((_char, i) => i % 3 === 1) }, 'Invalid API key'],
    ['401, only the key\'s dashes \\u-escaped', 'chat', { status: 401, contentType: 'application/json', body: escapedJson((char) => char === '-') }, 'Invalid API key'],
    ['401 on a streamed request', 'chat streamed', { status: 401, contentType: 'application/json', body: () => json(`Invalid API key: ${KEY}`) }, 'Invalid API key'],
    ['401 on an embeddings request', 'embeddings', { status: 401, contentType: 'application/json', body: () => json(`Invalid API key: ${KEY}`) }, 'Invalid API key'],
  ])('%s (%s)', async (_what, call, given, kept) => {
    answer = given;
    const client = createOpenAIClient({ ...settings(), LLM_TIMEOUT_MS: 5_000, LLM_MAX_RETRIES: 0 });
    const request =
      call === 'embeddings'
        ? client.embeddings.create({ model: 'e', input: 'x' })
        : call === 'chat streamed'
          ? client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true })
          : client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const err = await request.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(APIError);
    const apiError = err as APIError;
    expect(apiError.status).toBe(given.status);
    // The operator still reads what the server said, without the key.
    expect(apiError.message).toContain(kept);
    const shown = {
      message: apiError.message,
      stack: apiError.stack ?? '',
      body: JSON.stringify(apiError.error ?? null),
      headers: JSON.stringify([...(apiError.headers ?? new Headers())]),
      log: JSON.stringify(serializeError(apiError)),
      reason: agentFailureReason(toJobError(apiError), 3, TICKET, settings()),
      jobError: JSON.stringify(serializeError(toJobError(apiError))),
    };
    for (const [where, text] of Object.entries(shown)) expect(leakedPiece(text), `${where}: ${text}`).toBeUndefined();
  });

  it('keeps a successful answer as the server sent it', async () => {
    answer = { status: 200, contentType: 'application/json', body: () => JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5, 0.25] }], model: KEY, usage: { prompt_tokens: 1, total_tokens: 1 } }) };
    const client = createOpenAIClient({ ...settings(), LLM_TIMEOUT_MS: 5_000, LLM_MAX_RETRIES: 0 });
    const result = await client.embeddings.create({ model: 'e', input: 'x', encoding_format: 'float' });
    expect(result.data[0]!.embedding).toEqual([0.5, 0.25]);
    // Only errors are rewritten: a success is read as it came.
    expect(result.model).toBe(KEY);
  });
});

describe('the agent worker, when the model server repeats the key', () => {
  it("keeps it out of the park reason and the failed job's failedReason and stacktrace", async () => {
    const servers = await startPipelineServers();
    try {
      servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === 'plan' ? httpError(401, { message: `Incorrect API key provided: ${KEY.slice(0, 20)}... (${KEY})` }) : undefined) }));
      const config = parseConfig(pipelineEnv(servers, { OPENAI_API_KEY: KEY }));
      const running = await startRoles(config, { sender: false });
      try {
        const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'k@customer.example', subject: '質問', body: '二段階認証の設定方法を教えてください。' }));
        const parked = await waitForState(running.store, ticketId, ['parked', 'sent']);
        expect(parked.state).toBe('parked');
        expect(parked.reason).toContain('refused the API key');
        const queues = await running.services.queues();
        // The ticket is parked inside the processor; BullMQ moves the job to failed after it returns, a moment later
        // on a busy machine.
        const failed = await waitFor(async () => (await queues.tickets.getFailed())[0], 'the failed job');
        expect(failed.failedReason).toContain('Incorrect API key provided');
        // Bull Board shows the stack too, which repeats the message.
        expect((failed!.stacktrace ?? []).join('\n')).toContain('Incorrect API key provided');
        const shown = { reason: parked.reason ?? '', failedReason: failed!.failedReason, stacktrace: (failed!.stacktrace ?? []).join('\n') };
        for (const [where, text] of Object.entries(shown)) expect(leakedPiece(text), `${where}: ${text}`).toBeUndefined();
      } finally {
        await running.stop();
        await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
      }
    } finally {
      await servers.stop();
    }
  });
});
