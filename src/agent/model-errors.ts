/**
 * What a person is told when the agent could not use the model server: which server (its URL, credentials masked),
 * which setting points there, what went wrong, and when trying again makes sense. "Connection error." alone, the
 * SDK's own words, names neither the URL nor the variable.
 *
 * Never carries a secret: the URL is shown masked, and the API key or the URL's password is cut from whatever the
 * server or the network layer said.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { baseUrlHint, causes, llmServerUrl } from '../openai.js';
import { maskedJsonValue, maskedServerUrl, withoutSecrets, type ModelServerSettings } from '../openai-fetch.js';

// Kept here for the modules that read model failures; they live beside the client's key masking, which src/openai.ts
// uses too.
export { maskedServerUrl, withoutSecrets, type ModelServerSettings };

/** A model server that could not be used: what went wrong, and when to try again ("once it answers"). */
export interface ModelFailure {
  what: string;
  then: string;
}

/**
 * What went wrong with the model server, when `err` (or an error it wraps) says it could not be used: no connection
 * or no answer in time (or a 408), the key refused (401, 403), the model unknown (404), rate limit or quota (429), the
 * server failing (5xx). Undefined for a refusal of one request (400, 422: its content) and for errors not from the server.
 */
export function modelFailure(err: unknown, settings: ModelServerSettings): ModelFailure | undefined {
  const found = describe(err, settings);
  return found && { what: withoutSecrets(found.what, settings), then: found.then };
}

/**
 * Codes of a 429 that refuses more requests for the account, not for the moment: OpenAI's quota or billing refusal.
 * Waiting minutes does not end it, so such a ticket is parked at once (after its attempts) as before.
 */
const QUOTA_REFUSALS: ReadonlySet<string> = new Set(['insufficient_quota', 'billing_hard_limit_reached', 'billing_not_active']);

/**
 * Words of a 429 whose server says only in its message that the account's quota or billing refuses: Azure's
 * (`code: "429"`, "… exceeded … quota"), Gemini's and OpenAI's ("You exceeded your current quota, please check your
 * plan and billing details"). A whole word: Azure's rate-limit message links to `aka.ms/oai/quotaincrease`.
 */
const QUOTA_WORDS = /(?:\b|_)(?:quota|billing)(?:\b|_)/i;

/**
 * True when `err` (or an error it wraps) says the model server could not be used *for a while*: no connection, no
 * answer within LLM_TIMEOUT_MS, a 408 (the server's time-out), a 429 rate limit (not a quota or billing refusal,
 * {@link QUOTA_REFUSALS}, {@link QUOTA_WORDS}), or a 5xx. Such a failure is worth waiting out
 * (AGENT_MODEL_OUTAGE_MINUTES); a refused key (401, 403), an unknown model (404), a refused request (400, 422) and our
 * own errors are not: they fail the same way however long one waits.
 */
export function modelOutage(err: unknown): boolean {
  for (const e of causes(err)) {
    // The timeout is a connection error too.
    if (e instanceof APIConnectionError) return true;
    if (!(e instanceof APIError) || typeof e.status !== 'number') continue;
    if (e.status === 429) return !quotaRefusal(e);
    return e.status === 408 || e.status >= 500;
  }
  return false;
}

function quotaRefusal(e: APIError): boolean {
  const body = typeof e.error === 'object' && e.error !== null ? (e.error as Record<string, unknown>) : {};
  if ([e.code, e.type, body['code'], body['type']].some((v) => typeof v === 'string' && QUOTA_REFUSALS.has(v))) return true;
  return [e.message, body['message']].some((v) => typeof v === 'string' && QUOTA_WORDS.test(v));
}

/**
 * What kind of outage `err` is ({@link modelOutage}), naming the server by its masked URL and nothing the server said:
 * `the model server at … failed (503)`, `… could not be reached`, `… did not answer in time`, `… refused more
 * requests: rate limit (429)`. This is what the agent workers share about an outage and what a ticket held back
 * during it is told: the server's own message may echo another ticket's request (a proxy quoting its body).
 * Undefined when `err` is no outage.
 */
export function modelOutageSummary(err: unknown, settings: ModelServerSettings): string | undefined {
  if (!modelOutage(err)) return undefined;
  const server = `the model server at ${serverLabel(settings)}`;
  for (const e of causes(err)) {
    if (e instanceof APIConnectionTimeoutError) return `${server} did not answer in time`;
    if (e instanceof APIConnectionError) return `${server} could not be reached`;
    if (!(e instanceof APIError) || typeof e.status !== 'number') continue;
    if (e.status === 408) return `${server} did not answer in time (408)`;
    if (e.status === 429) return `${server} refused more requests: rate limit (429)`;
    return `${server} failed (${e.status})`;
  }
  return undefined;
}

/**
 * `err` with {@link withoutSecrets} applied, in place, to what BullMQ stores of a failed job (its message, the
 * failedReason, and its stack, the stacktrace Bull Board shows) and to what the log serializer prints: the message and
 * stack of every error in its `cause` chain, and an `APIError`'s `error` body. The same error is returned, so its
 * class and status still decide whether the job is retried.
 *
 * The client masks the key in the server's errors already (`keyMaskingFetch`); this is for errors built elsewhere
 * from text that repeats a secret, before the job's error leaves the process.
 */
export function errorWithoutSecrets<E extends Error>(err: E, settings: ModelServerSettings): E {
  const mask = (text: string) => withoutSecrets(text, settings);
  try {
    for (const e of causes(err)) {
      if (!(e instanceof Error)) break;
      maskOne(e, mask);
    }
  } catch {
    // A `cause` getter that throws ends the walk: what was masked so far stays masked.
  }
  return err;
}

/** One error of the chain; a property whose getter throws or that holds no string is skipped. */
function maskOne(e: Error, mask: (text: string) => string): void {
  const read = (key: 'message' | 'stack'): unknown => {
    try {
      return e[key];
    } catch {
      return undefined;
    }
  };
  const message = read('message');
  if (typeof message === 'string') setIfWritable(e, 'message', mask(message));
  const stack = read('stack');
  if (typeof stack === 'string' && stack !== '') setIfWritable(e, 'stack', mask(stack));
  if (e instanceof APIError && e.error !== undefined) setIfWritable(e, 'error', maskedErrorBody(e.error, mask));
}

/**
 * Sets `key` of `e` unless the error will not take it (frozen, a getter, a DOMException's message): the job's error
 * must still reach the park and BullMQ. Such a value stays as it is; what the model server said was masked by the
 * client before any error was built from it.
 */
function setIfWritable(e: Error, key: 'message' | 'stack' | 'error', value: unknown): void {
  try {
    (e as unknown as Record<string, unknown>)[key] = value;
  } catch {
    // Read-only: left as it is.
  }
}

function maskedErrorBody(body: unknown, mask: (text: string) => string): unknown {
  try {
    return maskedJsonValue(body, mask);
  } catch {
    return '(not shown: nested too deeply)';
  }
}

function describe(err: unknown, settings: ModelServerSettings): ModelFailure | undefined {
  const server = `the model server at ${serverLabel(settings)}`;
  for (const e of causes(err)) {
    if (e instanceof APIConnectionTimeoutError) return { what: `${server} did not answer within LLM_TIMEOUT_MS (${e.message})`, then: 'once it answers' };
    if (e instanceof APIConnectionError) {
      const detail = e.cause instanceof Error && e.cause.message && e.cause.message !== e.message ? `; ${e.cause.message}` : '';
      return { what: `${server} could not be reached (${e.message}${detail})`, then: 'once it answers' };
    }
    if (!(e instanceof APIError) || typeof e.status !== 'number') continue;
    if (e.status === 401 || e.status === 403) return { what: `${server} refused the API key (${e.message})`, then: 'once OPENAI_API_KEY is right' };
    if (e.status === 404) {
      const model = settings.OPENAI_MODEL ? `the model "${settings.OPENAI_MODEL}"` : 'the model';
      return { what: `${server} does not serve ${model} (OPENAI_MODEL), or the URL is wrong (${e.message})${baseUrlHint(e.status, settings)}`, then: 'once OPENAI_MODEL names a model it serves' };
    }
    if (e.status === 408) return { what: `${server} did not answer in time (${e.message})`, then: 'once it answers' };
    if (e.status === 429) return { what: `${server} refused more requests: rate limit or quota (${e.message})`, then: "once the account's quota or rate limit allows" };
    if (e.status >= 500) return { what: `${server} failed (${e.message})`, then: 'once it answers' };
  }
  return undefined;
}

/** The URL and the setting it comes from: without OPENAI_BASE_URL the SDK talks to OpenAI. */
function serverLabel(settings: ModelServerSettings): string {
  if (!settings.OPENAI_BASE_URL) return `${llmServerUrl({ OPENAI_BASE_URL: undefined })} (OpenAI: OPENAI_BASE_URL is not set)`;
  return `${maskedServerUrl(settings.OPENAI_BASE_URL)} (OPENAI_BASE_URL)`;
}

