/**
 * The token source against the stand-in identity provider (a real HTTP server on loopback): the request it sends,
 * caching until shortly before expiry, one request for concurrent callers, dropping a refused token, and errors that
 * name the endpoint and never the secret.
 */
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
