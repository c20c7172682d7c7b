/**
 * CPU of the agent run alone, in this process: the two-topic question answered many times at once, the model's answers
 * coming back in one of three ways. The differences split the agent worker's CPU per ticket into the graph, the HTTP
 * exchange with the model server and the rest (README, "Where a two-topic ticket's worker CPU goes").
 *
 *   npx tsx bench/agent-run-cpu.ts [--answers http|turn|lockstep] [--warm 100] [--runs 200] [--concurrency 32]
 *
 * - `http` (default): the scripted OpenAI-compatible server in a child process, over the product's keep-alive fetch,
 *   as the agent worker talks to a model server;
 * - `turn`: the same answers handed to the SDK in this process, one event-loop turn (`setImmediate`) per call, so
 *   runs interleave as they do around I/O;
 * - `lockstep`: handed over without a turn. Concurrent runs then advance together through microtasks and cost far
 *   less than in any real process: shown for what it is, the trap in measuring parts in one process.
 *
 * In-process answers are the server's own, recorded by request body during the warm-up and replayed, so the
 * scripted model's CPU is not counted; the warm-up must reach every request the measured runs make (it does after a
 * few runs: the agent's requests repeat once the server's tool-call ids do). Prints CPU per run for three batches.
 */
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import OpenAI from 'openai';
import { createHelpDeskAgent } from '../src/agent/create-agent.js';
import { parseConfig } from '../src/config.js';
import { TWO_TOPIC_QUESTION } from '../src/dev/scripted-model.js';
import { createOpenAIClient } from '../src/openai.js';
import { createSearchBackends } from '../src/search/factory.js';
import { AGENT_INTERRUPT_BUDGET } from '../src/runtime/agent-worker.js';
import type { BenchContext } from './lib/context.js';
import { sampleKnowledge, sampleKnowledgeEnv } from './lib/sample-kb.js';

const { values } = parseArgs({
  options: {
    answers: { type: 'string', default: 'http' },
    warm: { type: 'string', default: '100' },
    runs: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '32' },
  },
});
const answers = values.answers ?? 'http';
if (!['http', 'turn', 'lockstep'].includes(answers)) throw new Error(`--answers is http, turn or lockstep, not ${answers}`);
const [warm, runs, concurrency] = [Number(values.warm), Number(values.runs), Number(values.concurrency)];

// As the agent worker sets it (src/runtime/agent-worker.ts), so warm-up goes as it does there.
v8.setFlagsFromString(`--interrupt-budget=${AGENT_INTERRUPT_BUDGET}`);

const server = fork(path.join(import.meta.dirname, 'lib/llm-child.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const serverUrl = await new Promise<string>((resolve) => server.on('message', (m: { type?: string; url?: string }) => m.type === 'ready' && resolve(m.url!)));
const tmp = await mkdtemp(path.join(tmpdir(), 'agent-run-cpu-'));
try {
  const ctx = { tmp, log: () => undefined, quick: true, memo: new Map() } as unknown as BenchContext;
  const config = parseConfig({ ...sampleKnowledgeEnv(await sampleKnowledge(ctx)), LOG_LEVEL: 'warn', OPENAI_BASE_URL: serverUrl, OPENAI_API_KEY: 'bench', OPENAI_MODEL: 'gpt-4o' });

  const http = createOpenAIClient(config);
  const recorded = new Map<string, string>();
  // Through the real server the first time a request is seen, from the record afterwards.
  const replay = (async (url: string | URL | Request, init: RequestInit = {}) => {
    const body = String(init.body);
    let text = recorded.get(body);
    if (text === undefined) {
      text = await (await fetch(url, init)).text();
      recorded.set(body, text);
    }
    if (answers === 'turn') await new Promise((resolve) => setImmediate(resolve));
    return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  const client = answers === 'http' ? http : new OpenAI({ apiKey: 'bench', baseURL: serverUrl, fetch: replay, timeout: config.LLM_TIMEOUT_MS, maxRetries: config.LLM_MAX_RETRIES });
  const agent = createHelpDeskAgent(config, createSearchBackends(config), client);

  const batch = async (n: number) => {
    let started = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (started++ < n) await agent.runAgent(TWO_TOPIC_QUESTION);
      }),
    );
  };
  await batch(warm);
  const seen = recorded.size;
  for (let i = 0; i < 3; i++) {
    const before = process.cpuUsage();
    await batch(runs);
    const used = process.cpuUsage(before);
    process.stdout.write(`answers ${answers}, concurrency ${concurrency}, after ${warm + i * runs} runs: ${((used.user + used.system) / runs / 1000).toFixed(2)} ms CPU per run\n`);
  }
  if (answers !== 'http' && recorded.size !== seen) process.stdout.write(`note: ${recorded.size - seen} requests first seen after the warm-up went to the server\n`);
} finally {
  server.kill();
  await rm(tmp, { recursive: true, force: true });
}
