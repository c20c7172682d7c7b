/**
 * What an admin reads when the model server cannot be used because of a setting: a base URL without its `/v1` (every
 * request then gets 404), OpenAI without a key, and a server's message that would break `npm run check`'s one line per
 * server. The same words in `check`, `ask`, a parked ticket and the agent worker's start.
 */
import OpenAI, { APIError } from 'openai';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLACEHOLDER_API_KEY } from '../../src/config.js';
import { modelFailure } from '../../src/agent/model-errors.js';
import { checkLine } from '../../src/cli/check-diagnosis.js';
import { describeError } from '../../src/cli/common.js';
import { startOpenAIServer, type OpenAIServer } from '../../src/dev/openai-server.js';
import { modelServerFailure } from '../../src/openai.js';
import { probeModelServer } from '../../src/runtime/agent-worker.js';
import type { RoleStatusReporter } from '../../src/runtime/role-status.js';

const V1_HINT = 'does OPENAI_BASE_URL end in /v1? (Ollama: http://host:11434/v1, vLLM: http://host:8000/v1)';
const answered = (status: number, message: string) => APIError.generate(status, { message }, message, new Headers());
const noRoute = answered(404, 'no route GET /models');

describe('a 404 from a base URL without /v1', () => {
  it.each<[string, string | undefined, boolean]>([
    ['no path', 'http://127.0.0.1:18439', true],
    ['only a slash', 'http://127.0.0.1:11434/', true],
    ['a path of its own', 'http://gateway.internal/api', true],
    ['/v1', 'http://127.0.0.1:11434/v1', false],
    ['/v1/', 'http://127.0.0.1:8000/v1/', false],
    ['a gateway path ending in /v1', 'https://openrouter.ai/api/v1', false],
    // Gemini's OpenAI-compatible endpoint: the version is there, just not last.
    ['a versioned path', 'https://generativelanguage.googleapis.com/v1beta/openai/', false],
    ['OpenAI (no base URL)', undefined, false],
  ])('%s: hint %s', (_what, baseUrl, hinted) => {
    const config = { OPENAI_BASE_URL: baseUrl };
    expect(modelServerFailure(noRoute, config)?.endsWith(`; ${V1_HINT}`)).toBe(hinted);
    expect(describeError(noRoute, config).endsWith(`; ${V1_HINT}`)).toBe(hinted);
    expect(modelFailure(noRoute, config)?.what.endsWith(`; ${V1_HINT}`)).toBe(hinted);
  });

  it('is the line check prints', () => {
    expect(modelServerFailure(noRoute, { OPENAI_BASE_URL: 'http://127.0.0.1:18439' })).toBe(`http://127.0.0.1:18439 answered 404: 404 no route GET /models; ${V1_HINT}`);
  });

  it.each([401, 403, 429, 500])('is not given for %i', (status) => {
    expect(modelServerFailure(answered(status, 'no'), { OPENAI_BASE_URL: 'http://127.0.0.1:18439' })).not.toContain('/v1?');
  });
});

describe("check's line per server", () => {
  it.each<[string, { detail?: string; where?: string }, string]>([
    ['a 401 ending in a newline', { detail: 'http://gw/v1 answered 401: 401 bad key\n — check OPENAI_API_KEY' }, '✗ Model server: http://gw/v1 — http://gw/v1 answered 401: 401 bad key — check OPENAI_API_KEY'],
    ['lines and tabs inside', { detail: 'first\r\n\tsecond  third\n' }, '✗ Model server: http://gw/v1 — first second third'],
    ['an escape sequence from the server', { detail: 'refused\u001b]0;owned\u0007 here' }, '✗ Model server: http://gw/v1 — refused]0;owned here'],
    ['a where with a newline', { where: 'http://gw/v1\n', detail: 'x' }, '✗ Model server: http://gw/v1 — x'],
    ['no detail', {}, '✗ Model server: http://gw/v1'],
  ])('%s', (_what, parts, line) => {
    expect(checkLine({ what: 'Model server', where: 'http://gw/v1', status: 'failed', ...parts })).toBe(line);
  });
});

describe("the agent worker's start-up check of the model server", () => {
  let server: OpenAIServer;
  beforeAll(async () => {
    server = await startOpenAIServer();
  });
  afterAll(async () => server.close());

  function probe(client: OpenAI, config: { OPENAI_BASE_URL: string | undefined; OPENAI_API_KEY: string }) {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const reports: string[] = [];
    const reporter = { reached: async () => void reports.push('reached'), failed: async (why: string) => void reports.push(`failed: ${why}`) };
    return { lines, reports, done: probeModelServer(client, config, reporter as unknown as RoleStatusReporter, logger) };
  }

  it('names a missing OPENAI_API_KEY for OpenAI, without asking OpenAI', async () => {
    const asked: string[] = [];
    const client = new OpenAI({
      apiKey: PLACEHOLDER_API_KEY,
      maxRetries: 0,
      fetch: async (url) => {
        asked.push(String(url));
        throw new TypeError('getaddrinfo ENOTFOUND api.openai.com');
      },
    });
    const run = probe(client, { OPENAI_BASE_URL: undefined, OPENAI_API_KEY: PLACEHOLDER_API_KEY });
    await run.done;
    expect(asked).toEqual([]);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]!.level).toBe(40);
    expect(run.lines[0]!.msg).toMatch(/^model server check at start failed: OPENAI_API_KEY is not set .*OpenAI needs a real key; a local server \(Ollama, vLLM\) needs OPENAI_BASE_URL/);
    expect(run.reports).toEqual([expect.stringMatching(/^failed: OPENAI_API_KEY is not set/)]);
  });

  it('warns of a base URL without /v1, without calling the server down', async () => {
    const base = server.url.replace(/\/v1$/, '');
    const run = probe(new OpenAI({ apiKey: 'any', baseURL: base, maxRetries: 0 }), { OPENAI_BASE_URL: base, OPENAI_API_KEY: 'any' });
    await run.done;
    expect(run.lines.map((l) => l.msg)).toEqual([`model server check at start: ${base} answered 404: 404 no route GET /models; ${V1_HINT}`]);
    // A server may lack a model list and still answer chat: /readyz is not turned red on a guess.
    expect(run.reports).toEqual([]);
  });

  it('says nothing of a server that lists its models', async () => {
    const run = probe(new OpenAI({ apiKey: 'any', baseURL: server.url, maxRetries: 0 }), { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'any' });
    await run.done;
    expect(run.lines).toEqual([]);
    expect(run.reports).toEqual(['reached']);
  });
});
