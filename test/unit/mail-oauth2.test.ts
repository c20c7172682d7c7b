/**
 * The token source against the stand-in identity provider (a real HTTP server on loopback): the request it sends,
 * caching until shortly before expiry, one request for concurrent callers, dropping a refused token, and errors that
 * name the endpoint and never the secret.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { mailTokenSource, OAuth2TokenError, OAuth2TokenSource, TOKEN_REFRESH_MARGIN_MS } from '../../src/mail/oauth2.js';
import { classifySmtpError } from '../../src/mail/smtp-transport.js';
import { describeImapFailure } from '../../src/runtime/poller.js';
import { startOAuth2Provider, type OAuth2Provider } from '../support/oauth2-provider.js';

const USER = 'support@example.test';
const CLIENT = { clientId: 'client-1', clientSecret: 'client-secret-xyz' };

let provider: OAuth2Provider | undefined;
afterEach(async () => {
  await provider?.stop();
  provider = undefined;
});

async function start(options: { expiresInS?: number; refreshToken?: string } = {}): Promise<OAuth2Provider> {
  provider = await startOAuth2Provider({ username: USER, ...CLIENT, ...options });
  return provider;
}

describe('OAuth2TokenSource', () => {
  it('posts a form for the client_credentials grant with the scope, and caches the token', async () => {
    const idp = await start();
    const source = new OAuth2TokenSource({ tokenUrl: idp.tokenUrl, ...CLIENT, scope: 'https://outlook.office365.com/.default' });
    const token = await source.getToken();
    expect(idp.accepts(USER, token)).toBe(true);
    expect(await source.getToken()).toBe(token);
    expect(idp.tokenRequests).toEqual([
      { grantType: 'client_credentials', clientId: 'client-1', scope: 'https://outlook.office365.com/.default', contentType: 'application/x-www-form-urlencoded', basicAuth: false },
    ]);
  });

  it('uses the refresh_token grant when a refresh token is given, and sends no empty scope', async () => {
    const idp = await start({ refreshToken: 'refresh-abc' });
    const source = new OAuth2TokenSource({ tokenUrl: idp.tokenUrl, ...CLIENT, refreshToken: 'refresh-abc', scope: '' });
    expect(source.grant).toBe('refresh_token');
    expect(idp.accepts(USER, await source.getToken())).toBe(true);
    expect(idp.tokenRequests[0]).toMatchObject({ grantType: 'refresh_token', scope: null });
  });

  it('fetches a new token once the cached one is within a minute of its expiry', async () => {
    const idp = await start({ expiresInS: 3600 });
    let now = 1_000_000;
    const source = new OAuth2TokenSource({ tokenUrl: idp.tokenUrl, ...CLIENT }, { now: () => now });
    const first = await source.getToken();
    now += 3600_000 - TOKEN_REFRESH_MARGIN_MS - 1;
    expect(await source.getToken()).toBe(first);
    now += 1;
    const second = await source.getToken();
    expect(second).not.toBe(first);
    expect(idp.tokenRequests).toHaveLength(2);
  });

  it('lets concurrent callers share one request', async () => {
    const idp = await start();
    const source = new OAuth2TokenSource({ tokenUrl: idp.tokenUrl, ...CLIENT });
    const release = idp.hold();
    const callers = Array.from({ length: 5 }, () => source.getToken());
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const tokens = await Promise.all(callers);
    expect(new Set(tokens).size).toBe(1);
    expect(idp.tokenRequests).toHaveLength(1);
    expect(source.requests).toBe(1);
  });

  it('drops a refused token, but not a newer one another login already fetched', async () => {
    const idp = await start();
    const source = new OAuth2TokenSource({ tokenUrl: idp.tokenUrl, ...CLIENT });
    const first = await source.getToken();
    source.invalidate('some-older-token');
    expect(await source.getToken()).toBe(first);
    source.invalidate(first);
    const second = await source.getToken();
    expect(second).not.toBe(first);
    expect(idp.tokenRequests).toHaveLength(2);
  });

  it("names the endpoint and its error, never the secret, and caches nothing after a failure", async () => {
    const idp = await start();
    const source = new OAuth2TokenSource({ tokenUrl: `${idp.tokenUrl}?tenant=x`, clientId: 'client-1', clientSecret: 'wrong-secret-123' });
    const failure = await source.getToken().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(OAuth2TokenError);
    const err = failure as OAuth2TokenError;
    expect(err.message).toBe(`OAuth2 token endpoint ${idp.tokenUrl} refused the client_credentials request, HTTP 401: invalid_client (Client authentication failed.)`);
    expect(err.oauthError).toBe('invalid_client');
    expect(err.message).not.toContain('wrong-secret-123');
    // An endpoint that echoes the secret in its description does not get it printed either.
    idp.failWith({ status: 400, error: 'invalid_request', error_description: 'client_secret wrong-secret-123 is malformed' });
    const echoed = (await source.getToken().catch((e: unknown) => e)) as Error;
    expect(echoed.message).toContain('invalid_request (client_secret *** is malformed)');
    idp.failWith(undefined);
    expect(idp.tokenRequests).toHaveLength(2);
    // Nothing of the failures was cached: the next call asks again, and gets a token the server would take.
    const good = new OAuth2TokenSource({ tokenUrl: idp.tokenUrl, ...CLIENT });
    expect(idp.accepts(USER, await good.getToken())).toBe(true);
    expect((await source.getToken().catch((e: unknown) => e)) as Error).toBeInstanceOf(OAuth2TokenError);
    expect(idp.tokenRequests).toHaveLength(4);
  });

  it('says so when the endpoint cannot be reached or answers without a token', async () => {
    const idp = await start();
    const url = idp.tokenUrl;
    await idp.stop();
    provider = undefined;
    const unreachable = (await new OAuth2TokenSource({ tokenUrl: url, ...CLIENT }).getToken().catch((e: unknown) => e)) as Error;
    expect(unreachable.message).toBe(`OAuth2 token endpoint ${url} unreachable (ECONNREFUSED)`);
  });
});

describe('OAuth2TokenSource against endpoints that misbehave', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });
  /** A raw HTTP server playing a broken token endpoint; returns its URL. */
  async function endpoint(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => handler(req, body, res));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  }
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  it('says that a silent endpoint did not answer in time, with a secret set', async () => {
    const url = await endpoint(() => undefined);
    const source = new OAuth2TokenSource({ tokenUrl: url, ...CLIENT }, { timeoutMs: 300 });
    const err = (await source.getToken().catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(OAuth2TokenError);
    expect(err.message).toBe(`OAuth2 token endpoint ${url} unreachable (no answer within 0.3 s)`);
  });

  it('refuses an answer larger than a token response, declared or streamed', async () => {
    const big = 'x'.repeat(300 * 1024);
    const url = await endpoint((req, _body, res) => {
      if (req.url?.includes('chunked')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"access_token":"${big}`);
        res.end('"}');
      } else json(res, 200, { access_token: big });
    });
    for (const tokenUrl of [url, `${url}?chunked`]) {
      const err = (await new OAuth2TokenSource({ tokenUrl, ...CLIENT }).getToken().catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(OAuth2TokenError);
      expect(err.message).toMatch(/larger than a token response/);
    }
  });

  it.each<[string, unknown, number]>([
    ['a lifetime past a day is taken as a day', 1e306, 24 * 3600_000],
    ['a numeric string is read', '3600', 3600_000],
    ['true is no lifetime: five minutes', true, 5 * 60_000],
    ['a negative one: five minutes', -5, 5 * 60_000],
  ])('expires_in: %s', async (_what, expiresIn, lifetimeMs) => {
    let issued = 0;
    const url = await endpoint((_req, _body, res) => json(res, 200, { access_token: `t${++issued}`, token_type: 'Bearer', expires_in: expiresIn }));
    let now = 0;
    const source = new OAuth2TokenSource({ tokenUrl: url, ...CLIENT }, { now: () => now });
    expect(await source.getToken()).toBe('t1');
    const margin = Math.min(TOKEN_REFRESH_MARGIN_MS, lifetimeMs / 2);
    now = lifetimeMs - margin - 1;
    expect(await source.getToken()).toBe('t1');
    now = lifetimeMs - margin;
    expect(await source.getToken()).toBe('t2');
  });

  it('cuts a secret out of an echoed request, form-encoded too', async () => {
    const url = await endpoint((_req, body, res) => json(res, 400, { error: 'invalid_request', error_description: `bad request: ${body}` }));
    const secret = 'abc~def+ghi/jkl';
    const err = (await new OAuth2TokenSource({ tokenUrl: url, clientId: 'client-1', clientSecret: secret }).getToken().catch((e: unknown) => e)) as Error;
    expect(err.message).toContain('client_secret=***');
    for (const form of [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)]) expect(err.message).not.toContain(form);
  });
});

describe('mailTokenSource', () => {
  it('is shared by every caller with the same settings, and absent for password logins', async () => {
    const idp = await start();
    const config = { MAIL_AUTH: 'oauth2' as const, MAIL_OAUTH2_TOKEN_URL: idp.tokenUrl, MAIL_OAUTH2_CLIENT_ID: 'client-1', MAIL_OAUTH2_CLIENT_SECRET: 'client-secret-xyz' };
    expect(mailTokenSource(config)).toBe(mailTokenSource({ ...config }));
    expect(mailTokenSource({ ...config, MAIL_OAUTH2_SCOPE: 'other' })).not.toBe(mailTokenSource(config));
    expect(mailTokenSource({ ...config, MAIL_AUTH: 'password' })).toBeUndefined();
  });
});

describe('what the roles say about a token login', () => {
  const imap = { IMAP_HOST: 'outlook.office365.com', IMAP_PORT: 993, IMAP_USER: 'support@example.co.jp', IMAP_MAILBOX: 'INBOX', MAIL_AUTH: 'oauth2' as const };
  const tokenError = new OAuth2TokenError(
    'OAuth2 token endpoint https://login.microsoftonline.com/t/oauth2/v2.0/token refused the client_credentials request, HTTP 401: invalid_client (AADSTS7000215)',
    'https://login.microsoftonline.com/t/oauth2/v2.0/token',
    'invalid_client',
    401,
  );

  it.each([
    [tokenError, `IMAP login as support@example.co.jp to outlook.office365.com:993 not tried: ${tokenError.message}`],
    [
      Object.assign(new Error('Command failed'), { authenticationFailed: true, responseText: 'AUTHENTICATE failed.' }),
      'IMAP login as support@example.co.jp to outlook.office365.com:993 with an OAuth2 token refused (AUTHENTICATE failed.): is IMAP_USER the mailbox, and may the application open it? The next login fetches a new token',
    ],
    [new Error('Unsupported authentication mechanism'), 'IMAP server outlook.office365.com:993 offers no OAuth2 login (AUTH=XOAUTH2 or AUTH=OAUTHBEARER); use MAIL_AUTH=password with it'],
  ])('IMAP: %s', (err, line) => {
    expect(describeImapFailure(imap, 'connect', err)).toBe(line);
  });

  it('SMTP: no token is a temporary failure that names the endpoint', () => {
    const failure = classifySmtpError(Object.assign(tokenError, { code: 'EAUTH', command: 'AUTH XOAUTH2' }));
    expect(failure.kind).toBe('temporary');
    expect(failure.message).toBe(`SMTP login not tried: ${tokenError.message}`);
  });
});
