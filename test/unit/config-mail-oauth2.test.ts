import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, requireVariables, type VariableName } from '../../src/config.js';
import { sentCopySetting } from '../../src/mail/sent-copy.js';
import { POLLER_VARIABLES } from '../../src/runtime/poller.js';

const MAILBOX = { IMAP_HOST: 'outlook.office365.com', IMAP_USER: 'support@example.co.jp', SMTP_HOST: 'smtp.office365.com', SMTP_USER: 'support@example.co.jp' };
const MICROSOFT = {
  ...MAILBOX,
  MAIL_AUTH: 'oauth2',
  MAIL_OAUTH2_TOKEN_URL: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token',
  MAIL_OAUTH2_CLIENT_ID: '00000000-0000-0000-0000-000000000001',
  MAIL_OAUTH2_CLIENT_SECRET: 'client-secret-value',
  MAIL_OAUTH2_SCOPE: 'https://outlook.office365.com/.default',
};

/** The problems parseConfig names, or [] when it accepts the environment. */
function problems(env: Record<string, string | undefined>, groups?: Parameters<typeof parseConfig>[1]): string[] {
  try {
    parseConfig(env, groups);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe('MAIL_AUTH', () => {
  it('is password unless set, and takes only password or oauth2', () => {
    expect(parseConfig({}).MAIL_AUTH).toBe('password');
    expect(parseConfig(MICROSOFT).MAIL_AUTH).toBe('oauth2');
    expect(problems({ MAIL_AUTH: 'xoauth2' })).toEqual(['MAIL_AUTH="xoauth2" is not one of password, oauth2']);
  });

  it('with oauth2 names every missing token setting in one message', () => {
    const found = problems({ ...MAILBOX, MAIL_AUTH: 'oauth2' });
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^MAIL_OAUTH2_TOKEN_URL is required with MAIL_AUTH=oauth2: the token endpoint/);
    expect(found[1]).toMatch(/^MAIL_OAUTH2_CLIENT_ID is required with MAIL_AUTH=oauth2: /);
    // Nothing asked of a command that does not use the mailbox.
    expect(problems({ MAIL_AUTH: 'oauth2' }, { groups: ['search'] })).toEqual([]);
  });

  it.each([
    ['https://login.microsoftonline.com/t/oauth2/v2.0/token', true],
    ['https://oauth2.googleapis.com/token', true],
    ['http://127.0.0.1:8080/token', true],
    ['http://localhost:8080/token', true],
    ['http://[::1]:8080/token', true],
    ['http://login.microsoftonline.com/t/oauth2/v2.0/token', false],
    ['http://10.0.0.5/token', false],
    ['ftp://example.com/token', false],
    ['login.microsoftonline.com/token', false],
  ])('MAIL_OAUTH2_TOKEN_URL=%s is accepted: %s (the secret is posted to it)', (url, accepted) => {
    const found = problems({ ...MICROSOFT, MAIL_OAUTH2_TOKEN_URL: url });
    if (accepted) expect(found).toEqual([]);
    else expect(found).toEqual([expect.stringMatching(/^MAIL_OAUTH2_TOKEN_URL=".*" (must be an https URL|is not a URL)/)]);
  });

  it('an invalid token URL is named once, not also as missing', () => {
    expect(problems({ ...MICROSOFT, MAIL_OAUTH2_TOKEN_URL: 'http://idp.example.com/token', MAIL_OAUTH2_CLIENT_ID: '' })).toEqual([
      expect.stringMatching(/^MAIL_OAUTH2_TOKEN_URL="http:\/\/idp.example.com\/token" must be an https URL/),
      expect.stringMatching(/^MAIL_OAUTH2_CLIENT_ID is required with MAIL_AUTH=oauth2/),
    ]);
  });

  it('keeps the secrets out of messages', () => {
    const found = problems({ ...MICROSOFT, MAIL_OAUTH2_CLIENT_SECRET: 'secret-123', MAIL_OAUTH2_REFRESH_TOKEN: 'refresh-456', MAIL_OAUTH2_CLIENT_ID: '' });
    expect(found.join('\n')).not.toMatch(/secret-123|refresh-456/);
  });
});

describe('the roles that log in to the mailbox, with MAIL_AUTH=oauth2', () => {
  const missing = (env: Record<string, string>, names: VariableName[]): string[] => {
    try {
      requireVariables(parseConfig(env), names, 'IMAP poller');
      return [];
    } catch (err) {
      if (err instanceof ConfigError) return err.problems.map((p) => p.split(' ')[0]!);
      throw err;
    }
  };

  it('need no IMAP_PASSWORD, but the client secret for the client_credentials grant', () => {
    expect(missing(MICROSOFT, POLLER_VARIABLES)).toEqual([]);
    expect(missing({ ...MICROSOFT, MAIL_OAUTH2_CLIENT_SECRET: '' }, POLLER_VARIABLES)).toEqual(['MAIL_OAUTH2_CLIENT_SECRET']);
    // A refresh token (Gmail) is the grant's own proof; whether the endpoint also wants the secret is its to say.
    expect(missing({ ...MICROSOFT, MAIL_OAUTH2_CLIENT_SECRET: '', MAIL_OAUTH2_REFRESH_TOKEN: 'refresh' }, POLLER_VARIABLES)).toEqual([]);
    // With passwords, as before.
    expect(missing(MAILBOX, POLLER_VARIABLES)).toEqual(['IMAP_PASSWORD']);
  });

  it('copy replies to Sent without IMAP_PASSWORD', () => {
    const config = parseConfig(MICROSOFT);
    expect(sentCopySetting(config)).toEqual({ mode: 'auto' });
    expect(sentCopySetting({ ...config, MAIL_OAUTH2_CLIENT_ID: undefined })).toEqual({
      mode: 'off',
      why: 'IMAP_HOST, IMAP_USER, MAIL_OAUTH2_TOKEN_URL, MAIL_OAUTH2_CLIENT_ID or MAIL_OAUTH2_CLIENT_SECRET is not set',
    });
  });
});
