/**
 * The `fetch` the OpenAI client sends its requests with: Node's `http`/`https` over keep-alive agents, the response
 * read whole and handed back as a standard `Response`.
 *
 * Why not the global fetch: on Node 20 its WHATWG-stream machinery costs about 1.2 ms of CPU per chat completion, this
 * about 0.7 ms (measured with the SDK against a loopback server), and an agent worker makes eight calls per two-topic
 * ticket. Chat completions and embeddings are JSON in, JSON out and never streamed by this product, so nothing of
 * fetch's streaming is lost. What this does not handle itself (a body that is not text or bytes, a non-HTTP URL, a
 * redirect) goes to the global fetch, so the SDK always gets fetch's behaviour.
 *
 * The SDK keeps its own timeout and retries: it aborts the signal at `LLM_TIMEOUT_MS`, which destroys the request
 * with an `AbortError`, and retries connection errors and 408/409/429/5xx, except after a wait longer than
 * {@link MAX_RETRY_WAIT_MS} was asked for.
 */
import http from 'node:http';
import https from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { PLACEHOLDER_API_KEY, type Config } from './config.js';

/** Statuses whose response has no body (the `Response` constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Longest server-asked wait (`Retry-After`, `retry-after-ms`) the SDK may sleep through before it retries. The SDK
 * waits whatever the server says, and a quota-exhausted gateway says an hour: the ticket would sit in `processing`
 * holding a worker slot. Above this the response is marked `x-should-retry: false`, which the SDK honours: the call
 * fails, and the job is retried with BullMQ's backoff (or the ticket parked for a person when attempts run out).
 */
export const MAX_RETRY_WAIT_MS = 60_000;

/** The wait a response asks for before a retry, in ms; 0 when it asks for none. */
export function retryWaitMs(headers: Headers, now = Date.now()): number {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms)) return ms;
  const value = headers.get('retry-after');
  if (!value) return 0;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? 0 : at - now;
}

/** Options of {@link createKeepAliveFetch}. */
export interface KeepAliveFetchOptions {
  /** Sockets per host and protocol (default 256: an agent worker's concurrency times its parallel subtasks). */
  maxSockets?: number;
  /** The fetch used for what this one does not handle (default the global fetch). */
  fallback?: typeof fetch;
}

/** A fetch-compatible function over keep-alive `http`/`https` agents; see the module comment. */
export function createKeepAliveFetch(options: KeepAliveFetchOptions = {}): typeof fetch {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256 };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };
  const fallback = options.fallback ?? globalThis.fetch;

  const keepAliveFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
    const body = init.body;
    const plainBody = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    if (!url || !(url.protocol in agents) || !plainBody) return fallback(input, init);
    const response = await send(url, init, agents[url.protocol as keyof typeof agents], body as string | Uint8Array | null | undefined);
    if (REDIRECT_STATUSES.has(response.status) && init.redirect !== 'manual') return fallback(input, init);
    return response;
  };
  return keepAliveFetch as typeof fetch;
}

function send(url: URL, init: RequestInit, agent: http.Agent, body: string | Uint8Array | null | undefined): Promise<Response> {
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<Response>((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? 'GET', headers: headerRecord(init.headers), agent, ...(init.signal ? { signal: init.signal } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          try {
            const status = res.statusCode ?? 0;
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (value === undefined) continue;
              for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
            }
            const raw = Buffer.concat(chunks);
            const decoded = decode(raw, headers.get('content-encoding'));
            if (decoded !== raw) {
              headers.delete('content-encoding');
              headers.set('content-length', String(decoded.length));
            }
            if (retryWaitMs(headers) > MAX_RETRY_WAIT_MS) headers.set('x-should-retry', 'false');
            const init = { status, statusText: res.statusMessage ?? '', headers };
            resolve(NULL_BODY_STATUSES.has(status) ? new Response(null, init) : new BufferedResponse(decoded, init));
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** fetch's `HeadersInit` as the plain record `http.request` takes. */
function headerRecord(init: RequestInit['headers']): Record<string, string> {
  if (!init) return {};
  // The SDK hands a `Headers` already: read it as is rather than copy it into another one first.
  return Object.fromEntries(init instanceof Headers ? init : new Headers(init as ConstructorParameters<typeof Headers>[0]));
}

const BOM = 0xfeff;

/**
 * A `Response` over a body that was read whole. The standard constructor wraps the bytes in a WHATWG stream (on Node
 * 20 a transferable object with its own controller and queue) that `json()` then reads back chunk by chunk, for a
 * body that is already in memory: measured, 26–42 µs per response against 13–18 µs here, eight responses per
 * two-topic ticket. The SDK only calls `json()` or `text()`; those read the bytes directly, and the stream is made
 * only when `body` (or `blob()`, `formData()`) is asked for.
 * What fetch promises still holds: one read only, a BOM dropped by `text()`/`json()`, `clone()` before a read.
 */
class BufferedResponse extends Response {
  readonly #bytes: Buffer;
  readonly #init: ResponseInit;
  #taken = false;
  #standard: Response | undefined;

  constructor(bytes: Buffer, init: ResponseInit) {
    super(null, init);
    this.#bytes = bytes;
    this.#init = init;
  }

  static {
    // On the prototype, as the standard's are: the DOM typings declare these members as properties, not methods.
    const text = function (this: BufferedResponse): string {
      const decoded = this.#take().toString('utf8');
      return decoded.charCodeAt(0) === BOM ? decoded.slice(1) : decoded;
    };
    const methods: Partial<Record<keyof Response, PropertyDescriptor>> = {
      body: {
        get(this: BufferedResponse) {
          return this.#asStandard().body;
        },
      },
      bodyUsed: {
        get(this: BufferedResponse) {
          return this.#taken || (this.#standard?.bodyUsed ?? false);
        },
      },
      text: {
        value: async function (this: BufferedResponse) {
          return text.call(this);
        },
      },
      json: {
        value: async function (this: BufferedResponse) {
          return JSON.parse(text.call(this)) as unknown;
        },
      },
      arrayBuffer: {
        value: async function (this: BufferedResponse) {
          const bytes = this.#take();
          return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
        },
      },
      blob: {
        value: async function (this: BufferedResponse) {
          return this.#whole().blob();
        },
      },
      formData: {
        value: async function (this: BufferedResponse) {
          return this.#whole().formData();
        },
      },
      clone: {
        value: function (this: BufferedResponse) {
          if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
          return new BufferedResponse(this.#bytes, { ...this.#init, headers: new Headers(this.headers) });
        },
      },
    };
    for (const descriptor of Object.values(methods)) Object.assign(descriptor, { configurable: true, enumerable: false });
    Object.defineProperties(BufferedResponse.prototype, methods);
  }

  #take(): Buffer {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.#taken = true;
    return this.#bytes;
  }

  /** The standard response over the same bytes, for what is read through a stream (`body`, `blob`, `formData`). */
  #asStandard(): Response {
    this.#standard ??= new Response(this.#bytes, { ...this.#init, headers: this.headers });
    return this.#standard;
  }

  /** {@link #asStandard}, refused once the body was read here. */
  #whole(): Response {
    if (this.#taken) throw new TypeError('Body is unusable: Body has already been read');
    return this.#asStandard();
  }
}

/** Undoes a content encoding, as fetch does; the request never asks for one, but a proxy may still send it. */
function decode(raw: Buffer, encoding: string | null): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(raw);
    case 'deflate':
      return inflateSync(raw);
    case 'br':
      return brotliDecompressSync(raw);
    default:
      return raw;
  }
}

/** What a masked secret becomes in a model server's error (the same mark `src/agent/model-errors.ts` leaves). */
export const SECRET_MASK = '***';
/** Shorter keys are no secret worth cutting (and would cut ordinary words out of a message). */
const MIN_KEY_LENGTH = 6;
/**
 * A run of this many of the key's characters in a row is taken for the key: a gateway may print a prefix of it
 * ("sk-live-SECRETKEY012..."), its end ("…6789abcd"), or the key glued to more ("<key>:tenant-7"). Random keys share
 * no such run with ordinary words.
 */
const KEY_RUN_LENGTH = 8;
/**
 * Where the whole key was cut, before the words are read: part of a word, so what a gateway glued to the key
 * ("<key>x7") goes with it. The same character sent by a server only costs its word: that word is masked too.
 */
const CUT = '\u0001';
/** A word of the characters keys and their base64 are made of (and {@link CUT}), which is what is masked whole. */
const KEY_LIKE_WORD = /[\w.~+/=\u0001-]+/g;
/** An OpenAI-style key (`sk-…`, `sk-proj-…`), whoever's it is, with at least this many characters after `sk-`. */
const OPENAI_STYLE_KEY = /^sk-[\w-]{8,}/;

/**
 * `text` without the API key: the key as written, percent-encoded and in base64 (a Basic header), and any word that
 * holds a run of {@link KEY_RUN_LENGTH} of its characters (a prefix, an end, the key padded), each replaced by
 * {@link SECRET_MASK}; so is any OpenAI-style key, configured or not. Without a key (or one too short to be a secret)
 * only the OpenAI-style words are masked.
 */
export function withoutApiKey(text: string, apiKey: string | undefined): string {
  const key = apiKey && apiKey.length >= MIN_KEY_LENGTH ? apiKey : undefined;
  const whole = key ? keyForms(key).reduce((cleaned, form) => cleaned.split(form).join(CUT), text) : text;
  const runs = new Set<string>();
  for (let i = 0; key && i + KEY_RUN_LENGTH <= key.length; i++) runs.add(key.slice(i, i + KEY_RUN_LENGTH));
  const masked = (word: string) => word.includes(CUT) || OPENAI_STYLE_KEY.test(word) || holdsRun(word, runs);
  return whole.replace(KEY_LIKE_WORD, (word) => (masked(word) ? SECRET_MASK : word));
}

function holdsRun(word: string, runs: ReadonlySet<string>): boolean {
  if (runs.size === 0) return false;
  for (let i = 0; i + KEY_RUN_LENGTH <= word.length; i++) if (runs.has(word.slice(i, i + KEY_RUN_LENGTH))) return true;
  return false;
}

/** The key as a message may repeat it, longest first: as written, decoded, percent-encoded, in base64. */
function keyForms(key: string): string[] {
  let decoded = key;
  try {
    decoded = decodeURIComponent(key);
  } catch {
    // Not percent-encoded: the key as written is all there is.
  }
  const base64 = [key, decoded].flatMap((form) => {
    const bytes = Buffer.from(form);
    return [bytes.toString('base64'), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url')];
  });
  return [...new Set([key, decoded, encodeURIComponent(decoded), ...base64])].filter((form) => form.length > 0).sort((a, b) => b.length - a.length);
}

/** Deeper than this, a JSON error body is not walked (nor shown): no server's error nests anywhere near it. */
const MAX_JSON_DEPTH = 64;

/**
 * `value` (parsed JSON) with every string in it, keys included, passed through `mask`. Throws a `RangeError` past
 * {@link MAX_JSON_DEPTH}, so a hostile body cannot exhaust the stack.
 */
export function maskedJsonValue(value: unknown, mask: (text: string) => string, depth = 0): unknown {
  if (depth > MAX_JSON_DEPTH) throw new RangeError(`JSON nested deeper than ${MAX_JSON_DEPTH}`);
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskedJsonValue(item, mask, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [mask(name), maskedJsonValue(item, mask, depth + 1)]));
}

/**
 * An error body without the API key. A JSON body is masked string by string after parsing: a gateway may write the
 * key with `\u` escapes (`"sk-\u0061…"`), which the raw text never shows and the SDK's parsed message holds whole.
 * Any other body is masked as text, which is how the SDK reads it.
 */
function maskedBody(text: string, apiKey: string | undefined): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return withoutApiKey(text, apiKey);
  }
  try {
    return JSON.stringify(maskedJsonValue(parsed, (value) => withoutApiKey(value, apiKey)));
  } catch {
    return `(the model server's error body is not shown: JSON nested deeper than ${MAX_JSON_DEPTH})`;
  }
}

/**
 * `fetch` whose responses that are not ok (any status outside 200–299) carry no API key: the body, the headers and
 * the status text go through {@link withoutApiKey} before the SDK reads them. The SDK makes an `APIError` of every
 * such response, a 3xx included (300, a 301 without Location, 399), so every model-server error passes here first:
 * the error's message, its `error` body and its headers, and with them the park reason, the job's failedReason and
 * stack on Bull Board and every log line, show the key masked. Some gateways do repeat it ("Invalid API key: sk-…",
 * the Authorization header they got).
 *
 * Successful responses pass untouched, unread: the key has no business in an answer, and the product never streams
 * (an error inside a 200 event stream would not be masked here).
 */
export function keyMaskingFetch(inner: typeof fetch, apiKey: string | undefined): typeof fetch {
  const masking = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await inner(input, init);
    return response.ok ? response : maskedResponse(response, apiKey);
  };
  return masking as typeof fetch;
}

async function maskedResponse(response: Response, apiKey: string | undefined): Promise<Response> {
  // A 304's (or 204's) response may carry no body at all: the Response constructor refuses even an empty one.
  const body = NULL_BODY_STATUSES.has(response.status) ? null : maskedBody(await response.text(), apiKey);
  const headers = new Headers();
  for (const [name, value] of response.headers) headers.append(name, withoutApiKey(value, apiKey));
  // The body was read decoded and is now other text: its length and encoding no longer describe it.
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(body, { status: response.status, statusText: withoutApiKey(response.statusText, apiKey), headers });
}

// --- The base URL's secrets: what a person is shown of the model server's URL and of what it said. ---

/** The settings that name the model server; the key only to keep it out of what is shown. */
export type ModelServerSettings = Partial<Pick<Config, 'OPENAI_BASE_URL' | 'OPENAI_MODEL' | 'OPENAI_API_KEY'>>;

/**
 * A part of the base URL (password, query value) is cut from any length but this: below it, cutting would take digits
 * and letters out of every word. Its URL forms are masked by pattern whatever its length.
 */
const MIN_URL_PART_LENGTH = 3;

/**
 * The userinfo of any URL in a text (`scheme://user:pass@`), up to the last `@` before the path. Found from its `://`
 * and the scheme looked for behind it: read forward, the scheme was tried from every word start of a long run of
 * scheme characters (a gateway's page of `a+a+…`), growing with the square (security review 15).
 */
const URL_USERINFO = /:\/\/(?<=\b[a-z][a-z\d+.-]*:\/\/)[^/\s?#]*@/gi;

/** A query value (`?name=value`, `&name=value`): a gateway's token may ride in any of them. */
const QUERY_VALUE = /([?&](?!api-version=)[^=&\s?#]+=)[^&\s#)\]>"']*/g;
/** Query parameters that carry no secret and help a diagnosis: Azure's `api-version` (a date the server may refuse). */
const PLAIN_QUERY_PARAMETERS = new Set(['api-version']);

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
  const query = [...parsed.searchParams].map(([key, value]) => `${key}=${PLAIN_QUERY_PARAMETERS.has(key) ? value : '***'}`).join('&');
  const path = parsed.pathname === '/' && !url.endsWith('/') ? '' : parsed.pathname;
  return `${parsed.protocol}//${auth}${parsed.host}${path}${query ? `?${query}` : ''}`;
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
  // A key that is the server's host name, or a label of it (Ollama's conventional key `ollama` in compose, where the
  // host is `ollama`), is shown in the URL anyway; cutting it would take the host out of "ENOTFOUND ollama".
  const hostLabels = settings.OPENAI_BASE_URL && URL.canParse(settings.OPENAI_BASE_URL) ? new URL(settings.OPENAI_BASE_URL).hostname.split('.') : [];
  const key = settings.OPENAI_API_KEY === PLACEHOLDER_API_KEY || hostLabels.includes(settings.OPENAI_API_KEY ?? '') ? undefined : settings.OPENAI_API_KEY;
  const cut = [...new Set(urlSecretsOf(settings.OPENAI_BASE_URL))]
    .sort((a, b) => b.length - a.length)
    .reduce((cleaned, secret) => cleaned.split(secret).join('***'), withoutApiKey(text, key));
  return cut.replace(URL_USERINFO, '://***@').replace(QUERY_VALUE, '$1***');
}

/** The base URL's user, password and query values in every form a message may repeat them in. */
function urlSecretsOf(baseUrl: string | undefined): string[] {
  if (!baseUrl || !URL.canParse(baseUrl)) return [];
  const url = new URL(baseUrl);
  // As written in .env: the parser re-encodes what the userinfo may not hold raw, and reads `+` in a query as a space.
  const writtenUserinfo = WRITTEN_USERINFO.exec(baseUrl)?.[1] ?? '';
  const colon = writtenUserinfo.indexOf(':');
  const written = colon < 0 ? [writtenUserinfo] : [writtenUserinfo.slice(0, colon), writtenUserinfo.slice(colon + 1)];
  const secretPairs = url.search.slice(1).split('&').filter((pair) => !PLAIN_QUERY_PARAMETERS.has(safeDecode(pair.slice(0, Math.max(0, pair.indexOf('='))))));
  const writtenQuery = secretPairs.map((pair) => pair.slice(pair.indexOf('=') + 1));
  const parsedQuery = [...url.searchParams].filter(([name]) => !PLAIN_QUERY_PARAMETERS.has(name)).map(([, value]) => value);
  const parts = [url.username, url.password, ...written, ...writtenQuery, ...parsedQuery].filter((part) => part.length >= MIN_URL_PART_LENGTH);
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
