/**
 * A stand-in for the identity provider (Microsoft Entra ID, Google): a real HTTP server on loopback with a token
 * endpoint for the client_credentials and refresh_token grants and an introspection endpoint for the mail servers
 * of the tests (Dovecot's oauth2 passdb posts `token=…` to it; the SMTP receiver asks {@link OAuth2Provider.accepts}).
 * It is the one party of the mail login that is not a library of ours, so tests may script it: count requests,
 * expire or revoke tokens, answer errors.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOOPBACK } from '../../src/dev/ports.js';

/** Options of {@link startOAuth2Provider}. */
export interface OAuth2ProviderOptions {
  /** The mailbox every token is for (what introspection names as `username`). */
  username: string;
  clientId: string;
  clientSecret: string;
  /** The refresh token the refresh_token grant accepts; default: that grant is refused. */
  refreshToken?: string;
  /** `expires_in` of issued tokens, in seconds; default 3600. */
  expiresInS?: number;
}

/** One request to the token endpoint, as received. */
export interface TokenRequest {
  grantType: string | null;
  clientId: string | null;
  scope: string | null;
  contentType: string | undefined;
  /** Whether the client authenticated with HTTP Basic rather than in the body. */
  basicAuth: boolean;
}

/** An error the token endpoint answers the next requests with. */
export interface TokenError {
  status: number;
  error: string;
  error_description?: string;
}

/** Handle to a running stand-in. */
export interface OAuth2Provider {
  /** `http://127.0.0.1:<port>/token`. */
  readonly tokenUrl: string;
  /** `http://127.0.0.1:<port>/introspect`. */
  readonly introspectionUrl: string;
  /** Every token request so far. */
  readonly tokenRequests: TokenRequest[];
  /** Introspection requests so far (one per IMAP login that sent a token). */
  readonly introspections: number;
  /** The answers to them, in order: whether the token was active. */
  readonly introspected: boolean[];
  /** Tokens issued so far, oldest first. */
  readonly issued: string[];
  /** Whether `token` is one this provider issued, for `user`, and still valid. */
  accepts(user: string, token: string): boolean;
  /** Makes `token` invalid at once (as an admin revoking consent, or a token that expired early). */
  revoke(token: string): void;
  /** Answers every later token request with `error` until called with `undefined`. */
  failWith(error: TokenError | undefined): void;
  /** Holds token responses until the returned function is called (to see concurrent callers share one request). */
  hold(): () => void;
  stop(): Promise<void>;
}

/** Starts the stand-in on a free loopback port. */
export async function startOAuth2Provider(options: OAuth2ProviderOptions): Promise<OAuth2Provider> {
  const valid = new Map<string, { user: string; expiresAt: number }>();
  const tokenRequests: TokenRequest[] = [];
  const issued: string[] = [];
  let introspections = 0;
  const introspected: boolean[] = [];
  let failure: TokenError | undefined;
  let held: Promise<void> | undefined;

  const accepts = (user: string, token: string): boolean => {
    const entry = valid.get(token);
    return entry !== undefined && entry.user === user && entry.expiresAt > Date.now();
  };

  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const readBody = async (req: IncomingMessage): Promise<URLSearchParams> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  };

  const token = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const form = await readBody(req);
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    const [basicId, basicSecret] = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').map(decodeURIComponent) : [];
    const clientId = basicId ?? form.get('client_id');
    const clientSecret = basicSecret ?? form.get('client_secret');
    tokenRequests.push({ grantType: form.get('grant_type'), clientId, scope: form.get('scope'), contentType: req.headers['content-type'], basicAuth: basic !== null });
    await held;
    if (failure) {
      const { status, ...body } = failure;
      json(res, status, body);
      return;
    }
    if (clientId !== options.clientId || clientSecret !== options.clientSecret) {
      json(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed.' });
      return;
    }
    const grant = form.get('grant_type');
    if (grant === 'refresh_token' && (options.refreshToken === undefined || form.get('refresh_token') !== options.refreshToken)) {
      json(res, 400, { error: 'invalid_grant', error_description: 'The refresh token is invalid or expired.' });
      return;
    }
    if (grant !== 'client_credentials' && grant !== 'refresh_token') {
      json(res, 400, { error: 'unsupported_grant_type', error_description: `grant_type ${String(grant)} is not supported` });
      return;
    }
    const expiresIn = options.expiresInS ?? 3600;
    const accessToken = `at-${issued.length + 1}-${randomBytes(12).toString('hex')}`;
    issued.push(accessToken);
    valid.set(accessToken, { user: options.username, expiresAt: Date.now() + expiresIn * 1000 });
    json(res, 200, { token_type: 'Bearer', access_token: accessToken, expires_in: expiresIn, ...(form.get('scope') ? { scope: form.get('scope') } : {}) });
  };

  const introspect = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    introspections += 1;
    const presented = (await readBody(req)).get('token') ?? '';
    const entry = valid.get(presented);
    if (!entry || entry.expiresAt <= Date.now()) {
      introspected.push(false);
      json(res, 200, { active: false });
      return;
    }
    introspected.push(true);
    json(res, 200, { active: true, username: entry.user, client_id: options.clientId });
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    const route = req.method === 'POST' && path === '/token' ? token : req.method === 'POST' && path === '/introspect' ? introspect : undefined;
    if (!route) {
      json(res, 404, { error: 'not_found' });
      return;
    }
    route(req, res).catch((err: unknown) => json(res, 500, { error: 'server_error', error_description: String(err) }));
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve((server.address() as AddressInfo).port));
  });
  const base = `http://${LOOPBACK}:${port}`;

  return {
    tokenUrl: `${base}/token`,
    introspectionUrl: `${base}/introspect`,
    tokenRequests,
    get introspections() {
      return introspections;
    },
    issued,
    introspected,
    accepts,
    revoke(revoked: string): void {
      valid.delete(revoked);
    },
    failWith(error: TokenError | undefined): void {
      failure = error;
    },
    hold(): () => void {
      let release!: () => void;
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        held = undefined;
        release();
      };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
