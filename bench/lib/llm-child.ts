/**
 * Child process: the OpenAI-compatible test server answering with the scripted model after a fixed delay per chat
 * call (the latency model). It runs apart from the benchmark so that its CPU does not slow the harness's clocks and
 * is not counted as the workers'. Talks to the parent over IPC:
 * - sends `{ type: 'ready', url }` once listening;
 * - `{ type: 'latency', ms }` sets the delay of every following chat call;
 * - `{ type: 'stats' }` answers `{ type: 'stats', chat, inFlightMax }`.
 */
import { startOpenAIServer } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';

let latencyMs = Number(process.env.BENCH_LLM_LATENCY_MS ?? 0);
let chat = 0;
let inFlight = 0;
let inFlightMax = 0;
const model = scriptedModel({ tools: 'both', delayMs: () => latencyMs });

const server = await startOpenAIServer({
  handler: (request) => {
    chat += 1;
    inFlight += 1;
    inFlightMax = Math.max(inFlightMax, inFlight);
    const reply = model(request);
    // Counted down when the delay has passed; the reply is written right after.
    setTimeout(() => (inFlight -= 1), reply.delayMs ?? 0);
    return reply;
  },
});
// The server records every request for tests' assertions; thousands of bodies would only grow the heap here.
setInterval(() => server.reset(), 1_000).unref();

process.on('message', (message: { type: string; ms?: number }) => {
  if (message.type === 'latency' && typeof message.ms === 'number') {
    latencyMs = message.ms;
    process.send?.({ type: 'latency', ms: latencyMs });
  } else if (message.type === 'stats') {
    process.send?.({ type: 'stats', chat, inFlightMax });
  }
});
process.on('disconnect', () => void server.close().finally(() => process.exit(0)));
process.on('SIGTERM', () => void server.close().finally(() => process.exit(0)));
process.send?.({ type: 'ready', url: server.url });
