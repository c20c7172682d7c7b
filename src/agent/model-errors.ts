/**
 * What a person is told when the agent could not use the model server: which server (its URL, credentials masked),
 * which setting points there, what went wrong, and when trying again makes sense. "Connection error." alone, the
 * SDK's own words, names neither the URL nor the variable.
 *
 * Never carries a secret: the URL is shown masked, and the API key or the URL's password is cut from whatever the
 * server or the network layer said.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { PLACEHOLDER_API_KEY, type Config } from '../config.js';
import { baseUrlHint, causes, llmServerUrl } from '../openai.js';
import { maskedJsonValue, withoutApiKey } from '../openai-fetch.js';

/** The settings that name the model server; the key only to keep it out of what is shown. */
export type ModelServerSettings = Partial<Pick<Config, 'OPENAI_BASE_URL' | 'OPENAI_MODEL' | 'OPENAI_API_KEY'>>;

/** A model server that could not be used: what went wrong, and when to try again ("once it answers"). */
export interface ModelFailure {
  what: string;
  then: string;
}

/**
 * A part of the base URL (password, query value) is cut from any length but this: below it, cutting would take digits
 * and letters out of every word. Its URL forms are masked by pattern whatever its length.
 */
const MIN_URL_PART_LENGTH = 3;
/** The userinfo of any URL in a text (`scheme://user:pass@`), up to the last `@` before the path. */
const URL_USERINFO = /\b([a-z][a-z\d+.-]*:\/\/)[^/\s?#]*@/gi;
/** A query value (`?name=value`, `&name=value`): a gateway's token may ride in any of them. */
const QUERY_VALUE = /([?&][^=&\s?#]+=)[^&\s#]*/g;
/** The userinfo of the base URL as written in `.env`, before any parser re-encodes it. */
const WRITTEN_USERINFO = /^[a-z][a-z\d+.-]*:\/\/([^/\s?#]*)@/i;

/**
 * The server's URL as shown to a person: user, password and query values masked, since a gateway's token may ride
 * in any of them (`https://***@host/v1`, Azure's `?api-key=***`).
 */
export function maskedServerUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(OPENAI_BASE_URL is not a URL)';
  }
  const auth = parsed.username || parsed.password ? '***@' : '';
  const query = [...parsed.searchParams.keys()].map((key) => `${key}=***`).join('&');
  const path = parsed.pathname === '/' && !url.endsWith('/') ? '' : parsed.pathname;
  return `${parsed.protocol}//${auth}${parsed.host}${path}${query ? `?${query}` : ''}`;
}

/**
 * What went wrong with the model server, when `err` (or an error it wraps) says it could not be used: no connection
 * or no answer in time, the key refused (401, 403), the model unknown (404), rate limit or quota (429), the server
 * failing (5xx). Undefined for a refusal of one request (400, 422: its content) and for errors not from the server.
 */
export function modelFailure(err: unknown, settings: ModelServerSettings): ModelFailure | undefined {
  const found = describe(err, settings);
  return found && { what: withoutSecrets(found.what, settings), then: found.then };
}

/**
 * `text` with every secret replaced by `***`: by pattern, the userinfo (`scheme://***@`) and query values (`?key=***`)
 * of any URL in it, and any OpenAI-style key (`sk-…`); by value, the API key and the base URL's user, password and
 * query values, each as written, decoded, percent-encoded and in base64 (a Basic or Bearer header), wherever they
 * appear, and any word holding a run of the API key (a prefix or an end a gateway printed, the key padded).
 *
 * The client masks the key in the server's errors already (`keyMaskingFetch`); this covers what did not come
 * through it (errors built elsewhere, text read before) and the URL's secrets, which the client does not know.
 */
export function withoutSecrets(text: string, settings: ModelServerSettings): string {
  const key = settings.OPENAI_API_KEY === PLACEHOLDER_API_KEY ? undefined : settings.OPENAI_API_KEY;
  const cut = [...new Set(urlSecretsOf(settings.OPENAI_BASE_URL))]
    .sort((a, b) => b.length - a.length)
    .reduce((cleaned, secret) => cleaned.split(secret).join('***'), withoutApiKey(text, key));
  return cut.replace(URL_USERINFO, '$1***@').replace(QUERY_VALUE, '$1***');
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

/** The base URL's user, password and query values in every form a message may repeat them in. */
function urlSecretsOf(baseUrl: string | undefined): string[] {
  if (!baseUrl || !URL.canParse(baseUrl)) return [];
  const url = new URL(baseUrl);
  // As written in .env: the parser re-encodes what the userinfo may not hold raw, and reads `+` in a query as a space.
  const writtenUserinfo = WRITTEN_USERINFO.exec(baseUrl)?.[1] ?? '';
  const colon = writtenUserinfo.indexOf(':');
  const written = colon < 0 ? [writtenUserinfo] : [writtenUserinfo.slice(0, colon), writtenUserinfo.slice(colon + 1)];
  const writtenQuery = url.search.slice(1).split('&').map((pair) => pair.slice(pair.indexOf('=') + 1));
  const parts = [url.username, url.password, ...written, ...writtenQuery, ...url.searchParams.values()].filter((part) => part.length >= MIN_URL_PART_LENGTH);
  const basicAuth = url.username || url.password ? [`${safeDecode(url.username)}:${safeDecode(url.password)}`] : [];
  return [...parts.flatMap(formsOf), ...basicAuth.flatMap(base64Forms)];
}

/** A secret as written, decoded, percent-encoded, and in base64. */
function formsOf(secret: string): string[] {
  const decoded = safeDecode(secret);
  return [secret, decoded, encodeURIComponent(decoded), ...base64Forms(decoded)];
}

/** Base64 of `text`, with and without its padding (a header may drop it), in the standard and URL alphabets. */
function base64Forms(text: string): string[] {
  const bytes = Buffer.from(text);
  return [bytes.toString('base64'), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url')];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
