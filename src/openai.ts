/**
 * The one OpenAI SDK client of a process, for chat and embeddings alike. It talks to OpenAI or to any
 * OpenAI-compatible server (Ollama, vLLM, the tests' scripted server) through OPENAI_BASE_URL, with the SDK's own
 * timeout and exponential-backoff retries on 408/409/429/5xx and connection errors.
 *
 * With LANGSMITH_TRACING on, the client is wrapped by LangSmith's `wrapOpenAI`, so every LLM call (its messages,
 * answer, tokens and latency) is traced to LANGSMITH_PROJECT. The LangSmith client is given the configuration
 * explicitly rather than reading the environment, so `.env` settings apply too.
 *
 * Requests go through {@link createKeepAliveFetch} (Node's http over keep-alive sockets) rather than the global fetch,
 * which costs nearly twice the CPU per call on Node 20. Its error responses go through {@link keyMaskingFetch}: a
 * gateway that repeats OPENAI_API_KEY in an error ("Invalid API key: sk-…") gets it masked before the SDK's error,
 * and so before any park reason, BullMQ failedReason or log line, holds it.
 *
 * The wrapper is loaded only when tracing is on: importing it installs a process-wide AsyncLocalStorage, which
 * costs every promise of the process on Node 20 and makes LangGraph build a run tree per step (see
 * `src/agent/langgraph.ts`). `require` of an ES module (Node ≥ 20.19) keeps this function synchronous and gives the
 * same module instance an `import` would.
 */
import { createRequire } from 'node:module';
import { Client as LangSmithClient } from 'langsmith';
import type { wrapOpenAI as WrapOpenAI } from 'langsmith/wrappers/openai';
import OpenAI, { APIConnectionError, APIError } from 'openai';
import { PLACEHOLDER_API_KEY, type Config } from './config.js';
import { createKeepAliveFetch, keyMaskingFetch, maskedServerUrl, withoutSecrets } from './openai-fetch.js';

const requireModule = createRequire(import.meta.url);
/** One set of keep-alive sockets per process, whichever client sends. */
let keepAliveFetch: typeof fetch | undefined;

type ClientConfig = Pick<Config, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'LLM_TIMEOUT_MS' | 'LLM_MAX_RETRIES'> &
  Partial<Pick<Config, 'LANGSMITH_TRACING' | 'LANGSMITH_API_KEY' | 'LANGSMITH_ENDPOINT' | 'LANGSMITH_PROJECT'>>;

/** Builds the client from configuration; `tracer` replaces the LangSmith client built from it (tests flush theirs). */
export function createOpenAIClient(config: ClientConfig, tracer?: LangSmithClient): OpenAI {
  const client = new OpenAI({
    apiKey: config.OPENAI_API_KEY,
    baseURL: config.OPENAI_BASE_URL,
    timeout: config.LLM_TIMEOUT_MS,
    maxRetries: config.LLM_MAX_RETRIES,
    // Masked where every answer of the server comes in, before the SDK makes an error of it: see keyMaskingFetch.
    fetch: keyMaskingFetch((keepAliveFetch ??= createKeepAliveFetch()), config.OPENAI_API_KEY === PLACEHOLDER_API_KEY ? undefined : config.OPENAI_API_KEY),
  });
  if (!config.LANGSMITH_TRACING) return client;
  const { wrapOpenAI } = requireModule('langsmith/wrappers/openai.mjs') as { wrapOpenAI: typeof WrapOpenAI };
  return wrapOpenAI(client, {
    client: tracer ?? createLangSmithClient(config),
    project_name: config.LANGSMITH_PROJECT ?? 'helpdesk-worker',
    tracingEnabled: true,
  });
}

/** The OpenAI-compatible server the process talks to, as shown to an operator. */
export function llmServerUrl(config: Pick<Config, 'OPENAI_BASE_URL'>): string {
  return config.OPENAI_BASE_URL ?? 'https://api.openai.com/v1';
}

/** Walks an error and its `cause` chain (bounded, in case of a cycle). */
export function* causes(err: unknown): Generator<unknown> {
  let current = err;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    yield current;
    current = current instanceof Error ? current.cause : undefined;
  }
}

/** Answers of the model server that no request gets past; see {@link modelServerFailure}. */
const SERVER_WIDE_STATUSES = [401, 403, 404, 429];

/**
 * What to add to a model server's own words for an answer about the key (401, 403): servers word it their own way
 * ("Incorrect API key provided", "Forbidden"), and none names the variable to fix.
 */
export function apiKeyHint(status: number | undefined): string {
  return status === 401 || status === 403 ? ' — check OPENAI_API_KEY' : '';
}

/** What to ask an admin whose base URL lacks the API's version (see {@link baseUrlHint}). */
export const BASE_URL_V1_HINT = 'does OPENAI_BASE_URL end in /v1? (Ollama: http://host:11434/v1, vLLM: http://host:8000/v1)';

/**
 * What to add to a 404 of a server whose OPENAI_BASE_URL names no API version (`http://host:11434`, `…/api`): the SDK
 * appends `/models` and `/chat/completions` to it, so every request misses the server's routes, and its "no route GET
 * /models" or "page not found" names neither the setting nor the fix. A path with a version anywhere (`/v1`,
 * Gemini's `/v1beta/openai`) is taken as meant; so is OpenAI's own URL (no OPENAI_BASE_URL).
 */
export function baseUrlHint(status: number | undefined, config: Partial<Pick<Config, 'OPENAI_BASE_URL'>>): string {
  if (status !== 404 || !config.OPENAI_BASE_URL || !URL.canParse(config.OPENAI_BASE_URL)) return '';
  const segments = new URL(config.OPENAI_BASE_URL).pathname.split('/');
  return segments.some((segment) => /^v\d/i.test(segment)) ? '' : `; ${BASE_URL_V1_HINT}`;
}

/**
 * What else works when OpenAI's own server (no OPENAI_BASE_URL) cannot be reached, e.g. on a machine without that
 * access: a server of one's own, or indexing without an embedding model.
 */
export const OWN_SERVER_HINT = 'set OPENAI_BASE_URL to a server you run (Ollama, vLLM), or EMBEDDINGS_PROVIDER=local to index without an embedding model';

/**
 * Why the key cannot work, said before any request: OpenAI (no OPENAI_BASE_URL) needs one, and an unset or empty
 * OPENAI_API_KEY is the placeholder meant for servers that take any key. Undefined with OPENAI_BASE_URL set, since
 * Ollama and vLLM want none.
 *
 * Not a configuration error: roles that never call the model (poller, sender, a scheduler with local embeddings)
 * and the review commands must start without a key, and `npm run check` is where an admin learns about it.
 */
export function apiKeyProblem(config: Pick<Config, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL'>): string | undefined {
  if (config.OPENAI_BASE_URL) return undefined;
  if (config.OPENAI_API_KEY && config.OPENAI_API_KEY !== PLACEHOLDER_API_KEY) return undefined;
  // An unset or empty key becomes the placeholder (src/config.ts), so the two cannot be told apart here: "not set" is
  // what a newcomer with an empty key looks for (walkthrough W1), the placeholder what one who copied .env.example
  // has (alone, "not set" sent that admin looking for a line that is there).
  return `OPENAI_API_KEY is not set (or is the placeholder ${PLACEHOLDER_API_KEY}, as .env.example has it): OpenAI needs a real key; a local server (Ollama, vLLM) needs OPENAI_BASE_URL`;
}

/**
 * {@link llmServerUrl} as an operator may see it: the user, password and query values of OPENAI_BASE_URL masked,
 * since a gateway's token may ride in any of them (`https://***@host/v1`, Azure's `?api-key=***`).
 */
export function shownLlmServerUrl(config: Pick<Config, 'OPENAI_BASE_URL'>): string {
  return config.OPENAI_BASE_URL ? maskedServerUrl(config.OPENAI_BASE_URL) : llmServerUrl(config);
}

/**
 * One line saying that the model server cannot be used at all, when `err` (or an error it wraps) says so: no
 * connection, or an answer that no request gets past (401 or 403: the key, which the line then names; 404: the model
 * or the URL, whose missing `/v1` the line then asks about; 429: quota or rate; 5xx). Undefined for a refusal of one request (400, 422: its content) and for
 * errors not from the server.
 *
 * Never carries a secret, whoever shows the line (the worker's log, `/readyz`, the start page, `npm run check`): the
 * URL is masked, and OPENAI_API_KEY and the URL's password and query values are cut from what the server or the
 * network layer said, since a gateway may repeat the request's path or headers in its error. The hints, our own
 * words, are added after the masking, so a short secret cannot cut into them.
 */
export function modelServerFailure(err: unknown, config: Pick<Config, 'OPENAI_BASE_URL'> & Partial<Pick<Config, 'OPENAI_API_KEY'>>): string | undefined {
  const said = (text: string) => withoutSecrets(text, config);
  for (const e of causes(err)) {
    if (e instanceof APIConnectionError) {
      const detail = e.cause instanceof Error && e.cause.message !== e.message ? ` (${e.cause.message})` : '';
      return `cannot reach ${shownLlmServerUrl(config)}: ${said(`${e.message}${detail}`)}`;
    }
    if (e instanceof APIError && typeof e.status === 'number' && (SERVER_WIDE_STATUSES.includes(e.status) || e.status >= 500)) {
      return `${shownLlmServerUrl(config)} answered ${e.status}: ${said(e.message)}${apiKeyHint(e.status)}${baseUrlHint(e.status, config)}`;
    }
  }
  return undefined;
}

/** The LangSmith client tracing goes through (exported so tests and shutdown can flush it). */
export function createLangSmithClient(config: Pick<ClientConfig, 'LANGSMITH_API_KEY' | 'LANGSMITH_ENDPOINT'>): LangSmithClient {
  return new LangSmithClient({
    ...(config.LANGSMITH_ENDPOINT ? { apiUrl: config.LANGSMITH_ENDPOINT } : {}),
    ...(config.LANGSMITH_API_KEY ? { apiKey: config.LANGSMITH_API_KEY } : {}),
  });
}
