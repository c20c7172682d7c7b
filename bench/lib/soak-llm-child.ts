/**
 * Child process of the soak (`bench/soak.ts`): the scripted OpenAI-compatible model behind an HTTP front that can
 * misbehave the way model servers and the networks before them do. It runs apart from the soak so that a front that
 * hangs or drops sockets never stalls the soak's own clocks and checks. Talks to the parent over IPC:
 * - sends `{ type: 'ready', url }` once listening;
 * - `{ type: 'mode', mode }` sets how every following request is met ({@link LlmFrontMode}).
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startOpenAIServer } from '../../src/dev/openai-server.js';
import { LOOPBACK } from '../../src/dev/ports.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';

/**
 * How the front meets a request: `ok` passes it to the model; `500` and `429` answer with OpenAI's error shape (429
 * with `retry-after: 2`, as a rate limit does); `hang` reads the request and never answers (the client's timeout must
 * end it); `drop` destroys the connection as soon as the request arrived.
 */
export type LlmFrontMode = 'ok' | '500' | '429' | 'hang' | 'drop';

/** Delay of every chat answer: a fast model, so that a soak of minutes sees hundreds of tickets. */
const LATENCY_MS = 150;

const inner = await startOpenAIServer({ handler: scriptedModel({ tools: 'both', delayMs: () => LATENCY_MS }) });
// The server records every request for tests' assertions; a soak's thousands of bodies would only grow the heap here.
setInterval(() => inner.reset(), 1_000).unref();
const innerUrl = new URL(inner.url);

let mode: LlmFrontMode = 'ok';

const front = createServer((req, res) => {
  if (mode === 'drop') {
    req.resume();
    req.socket.destroy();
    return;
  }
  if (mode === 'hang') {
    req.resume();
    return;
  }
  if (mode === '500' || mode === '429') {
    const status = Number(mode);
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '2' } : {}) });
      res.end(JSON.stringify({ error: { message: `soak fault ${status}`, type: status === 429 ? 'rate_limit_error' : 'server_error', code: null } }));
    });
    return;
  }
  const upstream = httpRequest({ host: innerUrl.hostname, port: innerUrl.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
});
await new Promise<void>((resolve) => front.listen(0, LOOPBACK, () => resolve()));
const { port } = front.address() as AddressInfo;

process.on('message', (message: { type: string; mode?: LlmFrontMode }) => {
  if (message.type === 'mode' && message.mode) mode = message.mode;
});
const stop = (): void => void inner.close().finally(() => process.exit(0));
process.on('disconnect', stop);
process.on('SIGTERM', stop);
// The same path as the model server's URL (it ends in /v1), so OPENAI_BASE_URL reads the same either way.
process.send?.({ type: 'ready', url: `http://${LOOPBACK}:${port}${innerUrl.pathname}` });
