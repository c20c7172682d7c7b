/**
 * OAuth2 access tokens for the mailbox logins (MAIL_AUTH=oauth2): Microsoft 365 refuses password logins to IMAP and
 * is retiring them for SMTP, and Google prefers tokens. IMAP (imapflow) and SMTP (nodemailer) both send the token with
 * SASL XOAUTH2 (imapflow uses OAUTHBEARER where the server offers it); this module only gets the token.
 *
 * A token comes from the token endpoint (RFC 6749): the client_credentials grant (Microsoft 365 app-only access), or
 * the refresh_token grant when MAIL_OAUTH2_REFRESH_TOKEN is set (a Gmail account's consent). One
 * {@link OAuth2TokenSource} per process and settings ({@link mailTokenSource}) keeps the token until shortly before it
 * expires and lets concurrent logins (the poller and the sender's Sent copies in `npm start`) share one request. A
 * token the mail server refuses is dropped with {@link OAuth2TokenSource.invalidate}, so the next login fetches a
 * fresh one instead of presenting it again until its expiry.
 */
import { loginVariables, type Config, type VariableName } from '../config.js';

/** The variables of an OAuth2 mailbox login. */
export type MailOAuth2Config = Pick<
  Config,
  'MAIL_AUTH' | 'MAIL_OAUTH2_TOKEN_URL' | 'MAIL_OAUTH2_CLIENT_ID' | 'MAIL_OAUTH2_CLIENT_SECRET' | 'MAIL_OAUTH2_SCOPE' | 'MAIL_OAUTH2_REFRESH_TOKEN'
>;

/** What a token request needs. */
export interface OAuth2Settings {
  tokenUrl: string;
  clientId: string;
  clientSecret?: string | undefined;
  /** Space-separated scopes; omitted from the request when empty. */
  scope?: string | undefined;
  /** Set: the refresh_token grant; unset: client_credentials. */
  refreshToken?: string | undefined;
}

/** Options of {@link OAuth2TokenSource}. */
export interface OAuth2TokenSourceOptions {
  /** Clock, for tests. */
  now?: () => number;
  /** How long one token request may take; default 15 s. */
  timeoutMs?: number;
}

/** A token is fetched anew this long before it expires, so no login presents one that expires on the way. */
export const TOKEN_REFRESH_MARGIN_MS = 60_000;
/** How long a token whose response gave no `expires_in` is kept (RFC 6749 only recommends the field). */
export const TOKEN_LIFETIME_WITHOUT_EXPIRY_MS = 5 * 60_000;
/**
 * One token request's budget: under the roles' 25 s shutdown deadline, so a silent endpoint does not hold a stopping
 * poller past it.
 */
const DEFAULT_TIMEOUT_MS = 15_000;
/** The longest answer read: a token response is a few KB; a larger one is no token endpoint's. */
const MAX_RESPONSE_BYTES = 256 * 1024;
/** Longest lifetime believed: a day (Microsoft's and Google's tokens live an hour). */
const MAX_LIFETIME_MS = 24 * 60 * 60_000;

/** The token endpoint did not give a token; the message names the endpoint and its `error`, never a secret. */
export class OAuth2TokenError extends Error {
  constructor(
    message: string,
    /** The endpoint, without query or user info. */
    readonly endpoint: string,
    /** The endpoint's `error` code (`invalid_client`, `invalid_grant`…), when it answered with one. */
    readonly oauthError?: string,
    /** The HTTP status, when the endpoint answered. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OAuth2TokenError';
  }
}

interface CachedToken {
  value: string;
  /** When it stops being handed out (epoch ms): the expiry less the margin. */
  useUntil: number;
}

/** Gets, caches and shares access tokens for one set of {@link OAuth2Settings}; see the module comment. */
export class OAuth2TokenSource {
  private cached: CachedToken | undefined;
  private inFlight: Promise<CachedToken> | undefined;
  private refreshToken: string | undefined;
  private readonly now: () => number;
  private readonly timeoutMs: number;
  /** Token requests sent so far. */
  requests = 0;

  constructor(
    private readonly settings: OAuth2Settings,
    options: OAuth2TokenSourceOptions = {},
  ) {
    this.refreshToken = settings.refreshToken || undefined;
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** The token endpoint as messages name it: no query, no user info. */
  get endpoint(): string {
    return describeEndpoint(this.settings.tokenUrl);
  }

  /** Which grant the requests use. */
  get grant(): 'refresh_token' | 'client_credentials' {
    return this.refreshToken ? 'refresh_token' : 'client_credentials';
  }

  /**
   * A token to log in with: the cached one while it is good for another {@link TOKEN_REFRESH_MARGIN_MS}, else a new
   * one (callers meanwhile wait for the same request). Rejects with {@link OAuth2TokenError}.
   */
  async getToken(): Promise<string> {
    if (this.cached && this.now() < this.cached.useUntil) return this.cached.value;
    this.inFlight ??= this.fetchToken().finally(() => {
      this.inFlight = undefined;
    });
    const token = await this.inFlight;
    return token.value;
  }

  /**
   * Forgets `token` after the mail server refused it (revoked, or expired early), so the next {@link getToken}
   * fetches a fresh one. A newer token already cached is kept: another login may have replaced the refused one.
   */
  invalidate(token: string): void {
    if (this.cached?.value === token) this.cached = undefined;
  }

  private async fetchToken(): Promise<CachedToken> {
    const { tokenUrl, clientId, clientSecret, scope } = this.settings;
    const form = new URLSearchParams({ grant_type: this.grant, client_id: clientId });
    // In the body, as Microsoft's and Google's token endpoints document it (RFC 6749 also allows HTTP Basic).
    if (clientSecret) form.set('client_secret', clientSecret);
    if (this.refreshToken) form.set('refresh_token', this.refreshToken);
    if (scope?.trim()) form.set('scope', scope.trim());
    const where = this.endpoint;
    this.requests += 1;
    const startedAt = this.now();
    let response: Response;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        signal: AbortSignal.timeout(this.timeoutMs),
        // A redirect would carry the client secret to wherever it points.
        redirect: 'error',
      });
    } catch (err) {
      throw new OAuth2TokenError(`OAuth2 token endpoint ${where} unreachable (${this.scrub(this.failureReason(err))})`, where, undefined, undefined, { cause: err });
    }
    let text: string;
    try {
      text = await readBounded(response, MAX_RESPONSE_BYTES);
    } catch (err) {
      throw new OAuth2TokenError(`OAuth2 token endpoint ${where} answered HTTP ${response.status}, but ${this.scrub(this.failureReason(err))}`, where, undefined, response.status, { cause: err });
    }
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
    } catch {
      // Not JSON (a proxy's error page): said below without quoting it, as it could echo the request.
    }
    const error = typeof body.error === 'string' ? body.error : undefined;
    const description = typeof body.error_description === 'string' ? body.error_description : undefined;
    if (!response.ok || error) {
      const said = error ? `: ${error}${description ? ` (${this.scrub(oneLine(description))})` : ''}` : text ? ' without an OAuth2 error' : '';
      throw new OAuth2TokenError(`OAuth2 token endpoint ${where} refused the ${this.grant} request, HTTP ${response.status}${said}`, where, error, response.status);
    }
    const accessToken = body.access_token;
    if (typeof accessToken !== 'string' || accessToken === '') {
      throw new OAuth2TokenError(`OAuth2 token endpoint ${where} answered HTTP ${response.status} without an access_token`, where, undefined, response.status);
    }
    // RFC 6749 §6: a refresh_token in the answer replaces the old one (this process keeps it; the next start uses the
    // configured one again, which the providers we document keep valid).
    if (this.refreshToken && typeof body.refresh_token === 'string' && body.refresh_token) this.refreshToken = body.refresh_token;
    // A number or a numeric string (some endpoints quote it), within a second and a day; anything else: the default.
    const expiresIn = body.expires_in;
    const expiresInS = typeof expiresIn === 'number' || (typeof expiresIn === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(expiresIn)) ? Number(expiresIn) : Number.NaN;
    const lifetimeMs = Number.isFinite(expiresInS) && expiresInS > 0 ? Math.min(Math.max(expiresInS * 1000, 1000), MAX_LIFETIME_MS) : TOKEN_LIFETIME_WITHOUT_EXPIRY_MS;
    // A lifetime shorter than twice the margin (a test server, a strict policy) is used for its first half.
    const margin = Math.min(TOKEN_REFRESH_MARGIN_MS, lifetimeMs / 2);
    const token = { value: accessToken, useUntil: startedAt + lifetimeMs - margin };
    this.cached = token;
    return token;
  }

  /**
   * `text` with the secret and the refresh token cut out, should an endpoint echo them: as sent (form-encoded, where
   * `~` or `+` in a secret change) and as written.
   */
  private scrub(text: string): string {
    let out = text;
    for (const secret of [this.settings.clientSecret, this.settings.refreshToken, this.refreshToken]) {
      if (!secret || secret.length < 4) continue;
      const encoded = new URLSearchParams({ s: secret }).toString().slice(2);
      for (const form of new Set([encoded, encodeURIComponent(secret), secret])) out = out.split(form).join('***');
    }
    return out;
  }

  /** Why a request or a read failed, in a few words: a timeout, a socket error's code, or the error's message. */
  private failureReason(err: unknown): string {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
    if (cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError')) return `no answer within ${this.timeoutMs / 1000} s`;
    // undici's own errors carry numeric codes (23 for a timeout): only a socket's string code (ECONNREFUSED) says more.
    const code = cause instanceof Error ? (cause as NodeJS.ErrnoException).code : undefined;
    if (typeof code === 'string' && code) return code;
    return cause instanceof Error ? cause.message : String(cause);
  }
}

/** The response's text, at most `maxBytes` of it read: fails past that rather than holding a huge answer in memory. */
async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`its answer of ${declared} bytes is larger than a token response (${maxBytes} at most)`);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw new Error(`its answer passed ${maxBytes} bytes, larger than a token response`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** `https://host/path` of a URL: what a message may name (a query or user info could hold a secret). */
export function describeEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(MAIL_OAUTH2_TOKEN_URL is not a URL)';
  }
}

/** True when MAIL_AUTH=oauth2 asks for tokens. */
export function usesOAuth2(config: Partial<Pick<Config, 'MAIL_AUTH'>>): boolean {
  return config.MAIL_AUTH === 'oauth2';
}

/**
 * Whether the configuration holds an IMAP login: IMAP_HOST and IMAP_USER, and IMAP_PASSWORD, or with MAIL_AUTH=oauth2
 * the token settings instead ({@link loginVariables}). `needed` names the variables a login takes, for messages;
 * `missing` those of them not set, so a message can name only what the admin still has to set.
 */
export function imapLoginSetting(
  config: Pick<Config, 'IMAP_HOST' | 'IMAP_USER' | 'IMAP_PASSWORD'> & Partial<MailOAuth2Config>,
): { complete: boolean; missing: VariableName[]; needed: (conjunction: 'and' | 'or') => string } {
  // The same substitution the roles' variable check makes (IMAP_PASSWORD → the token settings).
  const names = loginVariables(config, ['IMAP_HOST', 'IMAP_USER', 'IMAP_PASSWORD']);
  const value = config as Partial<Record<VariableName, unknown>>;
  // An empty IMAP_PASSWORD is a password (a test server's); an empty host, user or token setting is none.
  const missing = names.filter((name) => (name === 'IMAP_PASSWORD' ? value[name] === undefined : !value[name]));
  return { complete: missing.length === 0, missing, needed: (conjunction) => `${names.slice(0, -1).join(', ')} ${conjunction} ${names.at(-1)}` };
}

const sources = new Map<string, OAuth2TokenSource>();

/**
 * The process's token source for the configured settings, or `undefined` with MAIL_AUTH=password. Every caller with
 * the same settings gets the same source, so the poller, the sender and its Sent copies share one token.
 *
 * @throws `TypeError` with MAIL_AUTH=oauth2 and no token endpoint or client id (the configuration check says so first).
 */
export function mailTokenSource(config: Partial<MailOAuth2Config>): OAuth2TokenSource | undefined {
  if (!usesOAuth2(config)) return undefined;
  const { MAIL_OAUTH2_TOKEN_URL: tokenUrl, MAIL_OAUTH2_CLIENT_ID: clientId } = config;
  if (!tokenUrl || !clientId) throw new TypeError('MAIL_AUTH=oauth2 needs MAIL_OAUTH2_TOKEN_URL and MAIL_OAUTH2_CLIENT_ID');
  const settings: OAuth2Settings = {
    tokenUrl,
    clientId,
    clientSecret: config.MAIL_OAUTH2_CLIENT_SECRET,
    scope: config.MAIL_OAUTH2_SCOPE,
    refreshToken: config.MAIL_OAUTH2_REFRESH_TOKEN,
  };
  const key = JSON.stringify([settings.tokenUrl, settings.clientId, settings.clientSecret ?? '', settings.scope ?? '', settings.refreshToken ?? '']);
  let source = sources.get(key);
  if (!source) {
    source = new OAuth2TokenSource(settings);
    sources.set(key, source);
  }
  return source;
}
