/**
 * An OPENAI_BASE_URL, MEILI_HOST or QDRANT_URL may carry a secret (`http://user:password@host/v1`, Azure's
 * `?api-key=…`), and a gateway may repeat the request's path or headers in its error. None of it may reach what an
 * operator sees: the agent worker's log and its failure report (the start page banner, /readyz), or `npm run check`.
 *
 * The real openai SDK talks to a real HTTP server on loopback that answers each status with an error repeating the
 * path and the Authorization header it was sent, as some proxies do.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { APIConnectionError, APIError, NotFoundError } from 'openai';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIndexes } from '../../src/cli/check-indexes.js';
import { parseConfig } from '../../src/config.js';
import { BASE_URL_V1_HINT, createOpenAIClient, modelServerFailure } from '../../src/openai.js';
import { probeModelServer } from '../../src/runtime/agent-worker.js';
import type { RoleStatusReporter } from '../../src/runtime/role-status.js';
import type { Logger } from '../../src/logger.js';
import { runCommand, type CommandRun } from '../support/run-command.js';

const API_KEY = 'sk-proj-SECRETKEY0123456789abcdefABCDEF';
const SECRETS = ['URLPASSWORD', 'QUERYSECRET', API_KEY];
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** The status the echoing server answers with, per base-URL path, so tests in parallel do not share it. */
const statusOf = new Map<string, number>();
let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    const first = (req.url ?? '/').split(/[/?]/)[1] ?? '';
    res.writeHead(statusOf.get(first) ?? 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url} (auth ${req.headers.authorization})` } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

/** A base URL whose first path segment picks the server's answer. */
function baseUrl(kind: 'userinfo' | 'query', segment: string, status: number): string {
  statusOf.set(segment, status);
  return kind === 'userinfo' ? `http://llmuser:URLPASSWORD@127.0.0.1:${port}/${segment}` : `http://127.0.0.1:${port}/${segment}?api-key=QUERYSECRET`;
}

function configFor(base: string) {
  return parseConfig({ OPENAI_BASE_URL: base, OPENAI_API_KEY: API_KEY, LLM_MAX_RETRIES: '0', LOG_LEVEL: 'silent' });
}

/** What the real client's `models.list()` threw. */
async function listModelsError(config: ReturnType<typeof configFor>): Promise<unknown> {
  return createOpenAIClient(config).models.list().then(
    () => new Error('the server answered 2xx'),
    (err: unknown) => err,
  );
}

describe('modelServerFailure keeps the base URL’s and the key’s secrets out', () => {
  it.each<[string, 'userinfo' | 'query', string, number, (port: number) => string]>([
    ['userinfo, 404 without /v1', 'userinfo', 'api', 404, (p) => `http://***@127.0.0.1:${p}/api answered 404: 404 no route GET /api/models (auth Bearer ***); ${BASE_URL_V1_HINT}`],
    ['query key, 404 without /v1', 'query', 'apiq', 404, (p) => `http://127.0.0.1:${p}/apiq?api-key=*** answered 404: 404 no route GET /apiq?api-key=*** (auth Bearer ***); ${BASE_URL_V1_HINT}`],
    ['userinfo, 401', 'userinfo', 'v1', 401, (p) => `http://***@127.0.0.1:${p}/v1 answered 401: 401 no route GET /v1/models (auth Bearer ***) — check OPENAI_API_KEY`],
    ['query key, 401', 'query', 'v1q', 401, (p) => `http://127.0.0.1:${p}/v1q?api-key=*** answered 401: 401 no route GET /v1q?api-key=*** (auth Bearer ***) — check OPENAI_API_KEY`],
    ['userinfo, 500', 'userinfo', 'v1e', 500, (p) => `http://***@127.0.0.1:${p}/v1e answered 500: 500 no route GET /v1e/models (auth Bearer ***)`],
    ['query key, 500', 'query', 'v1eq', 500, (p) => `http://127.0.0.1:${p}/v1eq?api-key=*** answered 500: 500 no route GET /v1eq?api-key=*** (auth Bearer ***)`],
  ])('%s', async (_what, kind, segment, status, line) => {
    const config = configFor(baseUrl(kind, segment, status));
    const failure = modelServerFailure(await listModelsError(config), config);
    expect(failure).toBe(line(port));
  });

  it('a server that cannot be reached, the password in its URL', async () => {
    const config = configFor('http://llmuser:URLPASSWORD@127.0.0.1:1/v1');
    expect(modelServerFailure(await listModelsError(config), config)).toBe('cannot reach http://***@127.0.0.1:1/v1: Connection error. (connect ECONNREFUSED 127.0.0.1:1)');
  });

  it.each<[string, string]>([
    ['the API key', `upstream refused Bearer ${API_KEY}`],
    ['the URL’s password, decoded', 'upstream at http://127.0.0.1/v1 refused llmuser / URLPASSWORD'],
    ['the query value alone', 'upstream refused QUERYSECRET'],
  ])('an error built past the client (its key masking) that repeats %s', (_what, message) => {
    const config = { OPENAI_BASE_URL: 'http://llmuser:URLPASSWORD@127.0.0.1:1/v1?api-key=QUERYSECRET', OPENAI_API_KEY: API_KEY };
    const failure = modelServerFailure(APIError.generate(502, { message }, message, new Headers()), config);
    expect(failure).toMatch(/^http:\/\/\*\*\*@127\.0\.0\.1:1\/v1\?api-key=\*\*\* answered 502: 502 upstream/);
    for (const secret of SECRETS) expect(failure).not.toContain(secret);
  });
});

describe('the agent worker’s model server check at start', () => {
  it.each<[string, 'userinfo' | 'query', string, number, { warned: boolean; reported: boolean }]>([
    ['userinfo, 404 without /v1: the hint is logged', 'userinfo', 'probe-api', 404, { warned: true, reported: false }],
    ['query key, 404 without /v1: the hint is logged', 'query', 'probe-apiq', 404, { warned: true, reported: false }],
    ['query key, 401: reported', 'query', 'v1-probe-q', 401, { warned: true, reported: true }],
    ['userinfo, 401: reported', 'userinfo', 'v1-probe', 401, { warned: true, reported: true }],
  ])('%s', async (_what, kind, segment, status, expected) => {
    const config = configFor(baseUrl(kind, segment, status));
    const { lines, reports, logger, reporter } = recorder();
    await probeModelServer(createOpenAIClient(config), config, reporter, logger);
    expect(lines.length > 0).toBe(expected.warned);
    expect(reports.length > 0).toBe(expected.reported);
    if (status === 404) expect(lines[0]).toMatch(new RegExp(`^model server check at start: http://(\\*\\*\\*@)?127\\.0\\.0\\.1:${port}/.* answered 404: .*; does OPENAI_BASE_URL end in /v1\\?`));
    for (const secret of SECRETS) expect([...lines, ...reports].join('\n')).not.toContain(secret);
  });

  it('a server that cannot be reached, the password in its URL: reported without it', async () => {
    const config = configFor('http://llmuser:URLPASSWORD@127.0.0.1:1/v1');
    const { lines, reports, logger, reporter } = recorder();
    await probeModelServer(createOpenAIClient(config), config, reporter, logger);
    expect(reports).toEqual(['cannot reach http://***@127.0.0.1:1/v1: Connection error. (connect ECONNREFUSED 127.0.0.1:1)']);
    for (const secret of SECRETS) expect([...lines, ...reports].join('\n')).not.toContain(secret);
  });
});

/** A logger and a status reporter that keep what they were given. */
function recorder() {
  const lines: string[] = [];
  const reports: string[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push((JSON.parse(String(chunk)) as { msg: string }).msg), done()) }));
  const reporter = { failed: async (message: string) => void reports.push(message), reached: async () => undefined } as unknown as RoleStatusReporter;
  return { lines, reports, logger: logger as unknown as Logger, reporter };
}

describe('npm run check', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'model-server-secrets-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  // A user or password in these URLs is refused by the configuration (fetch would refuse it); a gateway's token may
  // still ride in a query value.
  it('shows the search servers’ URLs without their query values', async () => {
    const config = parseConfig({
      DATA_DIR: path.join(root, 'data'),
      EMBEDDINGS_PROVIDER: 'local',
      LOG_LEVEL: 'silent',
      REDIS_URL: 'redis://127.0.0.1:1',
      MEILI_HOST: 'https://127.0.0.1:1/meili?token=MEILIQUERY',
      QDRANT_URL: 'https://127.0.0.1:1/qdrant?api_key=QDRANTQUERY',
    });
    const outcomes = await checkIndexes(config);
    expect(outcomes.map((o) => o.where)).toEqual(['Meilisearch https://127.0.0.1:1/meili?token=*** xyz_manual', 'Qdrant https://127.0.0.1:1/qdrant?api_key=*** xyz_qa']);
    for (const secret of ['MEILIQUERY', 'QDRANTQUERY']) expect(JSON.stringify(outcomes)).not.toContain(secret);
  });

  it('shows the model server’s URL without its password or query key', { timeout: 90_000 }, async () => {
    const base = `http://llmuser:URLPASSWORD@127.0.0.1:${port}/v1-check?api-key=QUERYSECRET`;
    statusOf.set('v1-check', 401);
    const { code, stdout, stderr } = await runCheck({
      OPENAI_BASE_URL: base,
      OPENAI_API_KEY: API_KEY,
      HELPDESK_ENV_FILE: 'none',
      LOG_LEVEL: 'silent',
      EMBEDDINGS_PROVIDER: 'local',
      DATA_DIR: path.join(root, 'check-data'),
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    expect(code, stderr).toBe(1);
    expect(stdout).toContain(`✗ Model server: http://***@127.0.0.1:${port}/v1-check?api-key=*** — http://***@127.0.0.1:${port}/v1-check?api-key=*** answered 401: 401 no route GET /v1-check?api-key=*** (auth Bearer ***) — check OPENAI_API_KEY`);
    for (const secret of SECRETS) expect(stdout + stderr).not.toContain(secret);
  });
});

/** `npm run check` in its own process, as an admin runs it. */
function runCheck(env: Record<string, string>): Promise<CommandRun> {
  // The test allows 90 s: the command gets most of it, so a hung check fails with its output.
  return runCommand(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), ['src/cli/check.ts'], { env: { ...process.env, ...env }, timeoutMs: 80_000 });
}

// What is no secret stays readable: the masking must not take the diagnosis with it.
describe('what the model server line keeps', () => {
  it.each([
    {
      why: "Ollama's default key, which is also the host's name in compose",
      config: { OPENAI_BASE_URL: 'http://ollama:11434/v1', OPENAI_API_KEY: 'ollama' },
      err: new APIConnectionError({ cause: Object.assign(new Error('getaddrinfo ENOTFOUND ollama'), { code: 'ENOTFOUND' }) }),
      line: 'cannot reach http://ollama:11434/v1: Connection error. (getaddrinfo ENOTFOUND ollama)',
    },
    {
      why: "Azure's api-version, a version and no key",
      config: { OPENAI_BASE_URL: 'https://x.openai.azure.com/openai/deployments/gpt4o?api-version=2024-02-01&api-key=QUERYSECRET', OPENAI_API_KEY: API_KEY },
      err: new NotFoundError(404, { message: 'Unsupported api-version 2024-02-01 (GET /openai/models?api-version=2024-02-01&api-key=QUERYSECRET)' }, undefined, new Headers()),
      // The /v1 hint is asked of every 404 under a base URL without /v1.
      line: 'https://x.openai.azure.com/openai/deployments/gpt4o?api-version=2024-02-01&api-key=*** answered 404: 404 Unsupported api-version 2024-02-01 (GET /openai/models?api-version=2024-02-01&api-key=***); does OPENAI_BASE_URL end in /v1? (Ollama: http://host:11434/v1, vLLM: http://host:8000/v1)',
    },
  ])('$why', ({ config, err, line }) => {
    expect(modelServerFailure(err, config)).toBe(line);
  });

  it('still cuts a key that is no part of the host name', () => {
    const err = new APIConnectionError({ cause: new Error('proxy said: token ollama-secret refused') });
    expect(modelServerFailure(err, { OPENAI_BASE_URL: 'http://gpu-box:8000/v1', OPENAI_API_KEY: 'ollama-secret' })).toBe('cannot reach http://gpu-box:8000/v1: Connection error. (proxy said: token *** refused)');
  });
});
