/**
 * An OpenAI-compatible HTTP server on loopback for tests and for trying the product without a model: the real
 * `openai` SDK talks to it over HTTP, so retries, timeouts, `.parse` and tool calls behave as in production.
 *
 * Chat completions are answered by a handler that a test scripts (see the response helpers below and
 * `scripted-model.ts`); embeddings are deterministic hashed vectors; `GET /v1/models` lists one model. Every request
 * is recorded with its body and the time it was in flight, so tests can assert on what the agent sent and on
 * concurrency without relying on wall-clock durations.
 *
 * Run it alone with `npx tsx src/dev/openai-server.ts [port]`: it answers with the scripted model.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

/** A chat message as the server receives it (loosely typed on purpose: tests inspect what was really sent). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
  content?: string | null | { type: string; text?: string }[];
  tool_calls?: { id: string; type: string; function?: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The body of `POST /v1/chat/completions` as far as the tests care. */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  tools?: { type: string; function?: { name: string; description?: string; parameters?: unknown } }[];
  response_format?: { type: string; json_schema?: { name: string; schema?: unknown; strict?: boolean } };
  tool_choice?: 'none' | 'auto' | 'required' | { type: string; function?: { name: string } };
  temperature?: number;
  seed?: number;
  [key: string]: unknown;
}

/** One request the server received. Times are `performance.now()` milliseconds of this process. */
export interface RecordedRequest {
  /** 0-based arrival order. */
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined for GET or an unparsable body). */
  body: unknown;
  startedAt: number;
  /** Set once the response has been written. */
  endedAt?: number;
  /** HTTP status of the response. */
  status?: number;
}

/** A recorded chat completion request, with its body typed. */
export type ChatRequest = RecordedRequest & { body: ChatRequestBody };

/** One tool call a scripted reply makes; `arguments` may be given as an object. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

/** Token counts of a reply; estimated from the text when omitted. */
export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** As OpenAI reports prompt-cache hits. */
  prompt_tokens_details?: { cached_tokens: number };
}

/** What a handler answers a chat completion request with. */
export type ScriptedResponse =
  | {
      type: 'chat';
      content: string | null;
      toolCalls?: ScriptedToolCall[];
      finishReason?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
      usage?: ScriptedUsage | null;
      delayMs?: number;
    }
  | { type: 'error'; status: number; message: string; headers?: Record<string, string>; delayMs?: number }
  | { type: 'raw'; status: number; body: unknown; headers?: Record<string, string>; delayMs?: number };

/** Answers one chat completion request. */
export type ChatHandler = (request: ChatRequest) => ScriptedResponse | Promise<ScriptedResponse>;

/** A plain text reply (`finish_reason: 'stop'`). */
export function textResponse(content: string, options: { usage?: ScriptedUsage | null; delayMs?: number } = {}): ScriptedResponse {
  return { type: 'chat', content, ...options };
}

/** A reply calling tools (`finish_reason: 'tool_calls'`). */
export function toolCallsResponse(
  calls: ScriptedToolCall[],
  options: { content?: string | null; usage?: ScriptedUsage | null; delayMs?: number } = {},
): ScriptedResponse {
  const { content = null, ...rest } = options;
  return { type: 'chat', content, toolCalls: calls, finishReason: 'tool_calls', ...rest };
}

/** A structured-output reply: the JSON text of `value`, which `chat.completions.parse` validates and parses. */
export function jsonResponse(value: unknown, options: { usage?: ScriptedUsage | null; delayMs?: number } = {}): ScriptedResponse {
  return { type: 'chat', content: JSON.stringify(value), ...options };
}

/** An HTTP error in OpenAI's error shape, optionally with `Retry-After` (seconds) or `retry-after-ms`. */
export function httpError(
  status: number,
  options: { message?: string; retryAfterSeconds?: number; retryAfterMs?: number; delayMs?: number } = {},
): ScriptedResponse {
  const headers: Record<string, string> = {};
  if (options.retryAfterSeconds !== undefined) headers['retry-after'] = String(options.retryAfterSeconds);
  if (options.retryAfterMs !== undefined) headers['retry-after-ms'] = String(options.retryAfterMs);
  return {
    type: 'error',
    status,
    message: options.message ?? `scripted HTTP ${status}`,
    headers,
    ...(options.delayMs !== undefined ? { delayMs: options.delayMs } : {}),
  };
}

/** `response` answered after `ms` milliseconds. */
export function delayed(ms: number, response: ScriptedResponse): ScriptedResponse {
  return { ...response, delayMs: ms };
}

/** Options of {@link startOpenAIServer}. */
export interface OpenAIServerOptions {
  /** Chat completion handler; replace it later with `setHandler`. Defaults to answering `"ok"`. */
  handler?: ChatHandler;
  /** Model listed by `GET /v1/models`. */
  model?: string;
  /** Size of the embedding vectors. */
  embeddingDimensions?: number;
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
}

/** A running server. */
export interface OpenAIServer {
  /** Base URL including `/v1`, for `OPENAI_BASE_URL` / `new OpenAI({ baseURL })`. */
  url: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  /** The chat completion requests only. */
  chatRequests(): ChatRequest[];
  setHandler(handler: ChatHandler): void;
  /** Forgets the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

/** Deterministic unit vector of `text`: hashed character bigrams, so similar texts get similar vectors. */
export function hashedEmbedding(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  const chars = Array.from(text.normalize('NFKC').toLowerCase());
  const grams = chars.length < 2 ? chars : chars.slice(0, -1).map((c, i) => c + chars[i + 1]);
  for (const g of grams) {
    const h = createHash('sha1').update(g).digest();
    const slot = h.readUInt32BE(0) % dimensions;
    v[slot] = (v[slot] ?? 0) + ((h[4] ?? 0) & 1 ? 1 : -1);
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** A rough token count (about four characters a token) for the `usage` of replies. */
export const estimateTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the server on 127.0.0.1 with a free port. */
export async function startOpenAIServer(options: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  let handler: ChatHandler = options.handler ?? (() => textResponse('ok'));
  const model = options.model ?? 'scripted-model';
  const dimensions = options.embeddingDimensions ?? 64;
  const requests: RecordedRequest[] = [];
  let completionId = 0;

  const send = (res: ServerResponse, record: RecordedRequest, status: number, body: unknown, headers: Record<string, string> = {}) => {
    record.status = status;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body), () => {
      record.endedAt = performance.now();
    });
  };

  const chatCompletion = (body: ChatRequestBody, reply: Extract<ScriptedResponse, { type: 'chat' }>) => {
    const toolCalls = reply.toolCalls?.map((c, i) => ({
      id: c.id ?? `call_${++completionId}_${i}`,
      type: 'function' as const,
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
    }));
    const usage =
      reply.usage === null
        ? undefined
        : (reply.usage ?? {
            prompt_tokens: estimateTokens(JSON.stringify(body.messages ?? [])),
            completion_tokens: estimateTokens(reply.content ?? JSON.stringify(toolCalls ?? [])),
          });
    return {
      id: `chatcmpl-${++completionId}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.content,
            refusal: null,
            ...(toolCalls && toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: reply.finishReason ?? (toolCalls && toolCalls.length > 0 ? 'tool_calls' : 'stop'),
          logprobs: null,
        },
      ],
      ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
    };
  };

  const server = createServer((req, res) => {
    const record: RecordedRequest = {
      index: requests.length,
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0] ?? '/',
      headers: req.headers,
      body: undefined,
      startedAt: performance.now(),
    };
    requests.push(record);
    void (async () => {
      const text = await readBody(req);
      try {
        record.body = text ? JSON.parse(text) : undefined;
      } catch {
        return send(res, record, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
      }

      if (record.method === 'GET' && record.path === '/v1/models') {
        return send(res, record, 200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'tests' }] });
      }
      if (record.method === 'POST' && record.path === '/v1/embeddings') {
        const body = (record.body ?? {}) as { input?: string | string[]; model?: string; encoding_format?: string };
        const texts = Array.isArray(body.input) ? body.input : [body.input ?? ''];
        const tokens = texts.reduce((n, t) => n + estimateTokens(String(t)), 0);
        // The SDK asks for base64 (little-endian float32) unless the caller chose `float`, and decodes it itself.
        const encode = (v: number[]) =>
          body.encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v;
        return send(res, record, 200, {
          object: 'list',
          model: body.model ?? 'scripted-embedding',
          data: texts.map((t, index) => ({ object: 'embedding', index, embedding: encode(hashedEmbedding(String(t), dimensions)) })),
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        });
      }
      if (record.method === 'POST' && record.path === '/v1/chat/completions') {
        let reply: ScriptedResponse;
        try {
          reply = await handler(record as ChatRequest);
        } catch (err) {
          // 400, not 5xx: the SDK would retry a 5xx and hide the handler's bug behind three identical failures.
          return send(res, record, 400, { error: { message: `scripted handler threw: ${(err as Error).message}`, type: 'test_error' } });
        }
        if (reply.delayMs) await sleep(reply.delayMs);
        if (reply.type === 'error') {
          return send(res, record, reply.status, { error: { message: reply.message, type: 'scripted_error', code: null } }, reply.headers);
        }
        if (reply.type === 'raw') return send(res, record, reply.status, reply.body, reply.headers);
        return send(res, record, 200, chatCompletion(record.body as ChatRequestBody, reply));
      }
      return send(res, record, 404, { error: { message: `no route ${record.method} ${record.path}`, type: 'not_found' } });
    })().catch((err: unknown) => {
      if (!res.headersSent) send(res, record, 500, { error: { message: String(err), type: 'server_error' } });
    });
  });

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests: () => requests.filter((r): r is ChatRequest => r.path === '/v1/chat/completions'),
    setHandler: (h) => {
      handler = h;
    },
    reset: () => {
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Not a top-level await: scripted-model imports this module, which must finish evaluating first.
  void import('./scripted-model.js').then(async ({ scriptedModel }) => {
    const server = await startOpenAIServer({ handler: scriptedModel(), port: Number(process.argv[2] ?? 0) });
    process.stdout.write(`Scripted OpenAI-compatible server at ${server.url} (set OPENAI_BASE_URL to it; Ctrl-C stops)\n`);
  });
}
