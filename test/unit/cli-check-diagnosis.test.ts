/**
 * What `npm run check` says when a mail server, Redis or the settings are not as the roles need them: the error the
 * library raised (in the shapes imapflow and nodemailer give them), in; the admin's fix, out. Each row is a message a
 * newcomer met that said what broke but not what to change (a TLS mismatch called "unreachable", a 16 s hang ending in
 * "Greeting never received", a 535 without a hint, a missing mailbox without the names that exist).
 */
import { describe, expect, it } from 'vitest';
import {
  appPasswordHint,
  durabilityProblem,
  evictionPolicyProblem,
  mailConnectionProblem,
  missingLoginSettings,
  missingMailboxProblem,
  type MailServerSetting,
} from '../../src/cli/check-diagnosis.js';
import { imapLoginSetting } from '../../src/mail/oauth2.js';
import { classifySmtpError } from '../../src/mail/smtp-transport.js';

const imap = (over: Partial<MailServerSetting> = {}): MailServerSetting => ({
  protocol: 'IMAP',
  host: 'mail.example.co.jp',
  port: 993,
  secure: true,
  user: 'support@example.co.jp',
  oauth2: false,
  ...over,
});
const smtp = (over: Partial<MailServerSetting> = {}): MailServerSetting => ({ ...imap(over), protocol: 'SMTP', port: 587, secure: false, ...over });

const OPENSSL_WRONG_VERSION = '80AC65A0377F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:\n';
/** An error as imapflow raises it: Node's own, code and all. */
const imapError = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);
/** An error as the SMTP transport raises it: nodemailer's, with its code moved to originalCode, classified. */
const smtpError = (message: string, fields: Record<string, unknown>) => classifySmtpError(Object.assign(new Error(message), { code: 'ESOCKET', command: 'CONN', ...fields }));

const TRUST = 'use a certificate from a public CA on the server, or trust its CA here: NODE_EXTRA_CA_CERTS=/path/ca.pem in the environment the process starts with (Node reads it at start, before .env is read)';

describe('mailConnectionProblem', () => {
  it.each<[name: string, err: unknown, server: MailServerSetting, says: string | undefined, speaksTls?: boolean]>([
    [
      'IMAP_SECURE=true on the STARTTLS port',
      imapError(OPENSSL_WRONG_VERSION, { code: 'ERR_SSL_WRONG_VERSION_NUMBER' }),
      imap({ port: 143 }),
      'the server does not speak TLS at once on port 143 (ERR_SSL_WRONG_VERSION_NUMBER): set IMAP_SECURE=false for port 143 (STARTTLS), or use port 993 with IMAP_SECURE=true',
    ],
    [
      'SMTP_SECURE=true on 587',
      smtpError(OPENSSL_WRONG_VERSION, { originalCode: 'ERR_SSL_WRONG_VERSION_NUMBER' }),
      smtp({ secure: true }),
      'the server does not speak TLS at once on port 587 (ERR_SSL_WRONG_VERSION_NUMBER): set SMTP_SECURE=false for port 587 (STARTTLS), or use port 465 with SMTP_SECURE=true',
    ],
    [
      'SMTP_SECURE=true on 465, and the server there is plain',
      smtpError(OPENSSL_WRONG_VERSION, { originalCode: 'ERR_SSL_PACKET_LENGTH_TOO_LONG' }),
      smtp({ port: 465, secure: true }),
      'the server does not speak TLS at once on port 465 (ERR_SSL_PACKET_LENGTH_TOO_LONG), as SMTP_SECURE=true expects: is SMTP_PORT right? STARTTLS is usually port 587, with SMTP_SECURE=false',
    ],
    [
      'SMTP_SECURE=false on 465: no greeting in plain text',
      classifySmtpError(Object.assign(new Error('Greeting never received'), { code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT', command: 'CONN' })),
      smtp({ port: 465 }),
      'port 465 expects TLS from the start (SMTP_SECURE=false waits for a plain-text greeting that never comes): set SMTP_SECURE=true',
    ],
    [
      'SMTP_SECURE=false on 465: the socket timeout came first',
      classifySmtpError(Object.assign(new Error('Timeout'), { code: 'ETIMEDOUT', timeoutType: 'SOCKET_TIMEOUT', command: 'CONN' })),
      smtp({ port: 465 }),
      'port 465 expects TLS from the start (SMTP_SECURE=false waits for a plain-text greeting that never comes): set SMTP_SECURE=true',
    ],
    [
      'SMTP_SECURE=false on 465: the TLS probe answered before any timeout',
      undefined,
      smtp({ port: 465 }),
      'port 465 expects TLS from the start (SMTP_SECURE=false waits for a plain-text greeting that never comes): set SMTP_SECURE=true',
      true,
    ],
    [
      'no greeting on another port, and the server there speaks TLS',
      classifySmtpError(Object.assign(new Error('Greeting never received'), { code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT', command: 'CONN' })),
      smtp({ port: 2465 }),
      'the server on port 2465 speaks TLS from the start (SMTP_SECURE=false waits for a plain-text greeting that never comes): set SMTP_SECURE=true',
      true,
    ],
    [
      'no greeting on another port, and the server there speaks no TLS either: not guessed',
      classifySmtpError(Object.assign(new Error('Greeting never received'), { code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT', command: 'CONN' })),
      smtp({ port: 2465 }),
      undefined,
      false,
    ],
    [
      'IMAP_SECURE=false on 993',
      imapError('Failed to receive greeting from server in required time. Maybe should use TLS?', { code: 'GREETING_TIMEOUT' }),
      imap({ secure: false }),
      'port 993 expects TLS from the start (IMAP_SECURE=false waits for a plain-text greeting that never comes): set IMAP_SECURE=true',
    ],
    [
      'a self-signed IMAP certificate: reached, not unreachable',
      imapError('self-signed certificate', { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
      imap(),
      `reached, but its certificate is not trusted: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT); ${TRUST}`,
    ],
    [
      'a self-signed certificate met by STARTTLS: a certificate problem, not a server without STARTTLS',
      imapError('self-signed certificate', { code: 'DEPTH_ZERO_SELF_SIGNED_CERT', tlsFailed: true }),
      imap({ port: 143, secure: false }),
      `reached, but its certificate is not trusted: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT); ${TRUST}`,
    ],
    [
      'a self-signed SMTP certificate',
      smtpError('self-signed certificate', { originalCode: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
      smtp({ port: 465, secure: true }),
      `reached, but its certificate is not trusted: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT); ${TRUST}`,
    ],
    [
      'a private CA',
      smtpError('self-signed certificate in certificate chain', { originalCode: 'SELF_SIGNED_CERT_IN_CHAIN' }),
      smtp(),
      `reached, but its certificate is not trusted: it is issued by a CA this machine does not know (SELF_SIGNED_CERT_IN_CHAIN); ${TRUST}`,
    ],
    [
      'an unknown issuer',
      imapError('unable to get local issuer certificate', { code: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' }),
      imap(),
      `reached, but its certificate is not trusted: it is issued by a CA this machine does not know (UNABLE_TO_GET_ISSUER_CERT_LOCALLY); ${TRUST}`,
    ],
    [
      'a missing intermediate certificate',
      imapError('unable to verify the first certificate', { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }),
      imap(),
      `reached, but its certificate is not trusted: its issuer is unknown here: a private CA, or the server does not send its intermediate certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE); have the server send its whole chain, or ${TRUST}`,
    ],
    [
      'a certificate for another host name',
      imapError("Hostname/IP does not match certificate's altnames: Host: mail.example.co.jp. is not in the cert's altnames: DNS:*.hosting.example", {
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      }),
      imap(),
      "reached, but its certificate is not trusted: it is for another host name (Host: mail.example.co.jp. is not in the cert's altnames: DNS:*.hosting.example) (ERR_TLS_CERT_ALTNAME_INVALID); set IMAP_HOST to a name the certificate lists, or get a certificate for mail.example.co.jp",
    ],
    [
      'an expired certificate',
      smtpError('certificate has expired', { originalCode: 'CERT_HAS_EXPIRED' }),
      smtp(),
      'reached, but its certificate is not trusted: it has expired (CERT_HAS_EXPIRED); renew it on the server',
    ],
    [
      'a certificate not valid yet',
      imapError('certificate is not yet valid', { code: 'CERT_NOT_YET_VALID' }),
      imap(),
      "reached, but its certificate is not trusted: it is not valid yet (CERT_NOT_YET_VALID); check this machine's clock, and the certificate's dates",
    ],
    [
      'another verification failure',
      imapError('certificate revoked', { code: 'CERT_REVOKED' }),
      imap(),
      'reached, but its certificate is not trusted: certificate revoked (CERT_REVOKED); use a certificate from a public CA on the server',
    ],
    [
      'SMTP 535 with a password',
      classifySmtpError(Object.assign(new Error('Invalid login'), { code: 'EAUTH', response: '535 5.7.8 Authentication credentials invalid', responseCode: 535, command: 'AUTH PLAIN' })),
      smtp(),
      'SMTP login as support@example.co.jp refused (535 5.7.8 Authentication credentials invalid): wrong SMTP_USER or SMTP_PASSWORD?',
    ],
    [
      'Gmail refuses the account password',
      classifySmtpError(
        Object.assign(new Error('Invalid login'), {
          code: 'EAUTH',
          response: '535-5.7.8 Username and Password not accepted. For more information, go to\n535 5.7.8  https://support.google.com/mail/?p=BadCredentials d9-20020a170902',
          responseCode: 535,
          command: 'AUTH PLAIN',
        }),
      ),
      smtp({ host: 'smtp.gmail.com', port: 465, secure: true }),
      'SMTP login as support@example.co.jp refused (535-5.7.8 Username and Password not accepted. For more information, go to 535 5.7.8 https://support.google.com/mail/?p=BadCredentials d9-20020a170902): wrong SMTP_USER or SMTP_PASSWORD? Gmail takes an app password of the account (it needs 2-step verification), not the account\'s own password',
    ],
    [
      'an OAuth2 token refused by SMTP',
      classifySmtpError(Object.assign(new Error('Invalid login'), { code: 'EAUTH', response: '535 5.7.3 Authentication unsuccessful', responseCode: 535, command: 'AUTH XOAUTH2' })),
      smtp({ host: 'smtp.office365.com', oauth2: true }),
      'SMTP login as support@example.co.jp with an OAuth2 token refused (535 5.7.3 Authentication unsuccessful): is SMTP_USER the mailbox, and may the application send as it? The next login fetches a new token',
    ],
    ['a refused connection: left to the role\'s own words', imapError('connect ECONNREFUSED 127.0.0.1:993', { code: 'ECONNREFUSED' }), imap(), undefined],
    ['an IMAP login refused: left to the role\'s own words', imapError('Command failed', { authenticationFailed: true }), imap(), undefined],
  ])('%s', (_name, err, server, says, speaksTls) => {
    expect(mailConnectionProblem(err, server, speaksTls)).toBe(says);
  });
});

describe('appPasswordHint', () => {
  it.each<[name: string, err: unknown, server: MailServerSetting, says: string]>([
    ['Gmail IMAP refused the password', imapError('Command failed', { authenticationFailed: true }), imap({ host: 'imap.gmail.com' }), "; Gmail takes an app password of the account (it needs 2-step verification), not the account's own password"],
    ['another server', imapError('Command failed', { authenticationFailed: true }), imap(), ''],
    ['Gmail with OAuth2: no password involved', imapError('Command failed', { authenticationFailed: true }), imap({ host: 'imap.gmail.com', oauth2: true }), ''],
    ['Gmail, but not a refused login', imapError('connect ECONNREFUSED', { code: 'ECONNREFUSED' }), imap({ host: 'imap.gmail.com' }), ''],
  ])('%s', (_name, err, server, says) => {
    expect(appPasswordHint(err, server)).toBe(says);
  });
});

describe('missingMailboxProblem', () => {
  const many = Array.from({ length: 14 }, (_, i) => `Folder ${i + 1}`);
  it.each<[name: string, mailbox: string, existing: readonly string[], says: string | undefined]>([
    ['a name the server lacks: the ones it has', 'Support', ['INBOX', 'Sent', 'Trash'], 'there is no mailbox Support on the server; it has INBOX, Sent, Trash: set IMAP_MAILBOX to one of them'],
    ['at most ten names', 'Support', ['INBOX', ...many], 'there is no mailbox Support on the server; it has INBOX, Folder 1, Folder 2, Folder 3, Folder 4, Folder 5, Folder 6, Folder 7, Folder 8, Folder 9 and 5 more: set IMAP_MAILBOX to one of them'],
    ['a name it has (it failed for another reason)', 'Sent', ['INBOX', 'Sent'], undefined],
    ['INBOX in any case is INBOX', 'inbox', ['INBOX'], undefined],
    ['a name spelt in another case is another mailbox', 'sent', ['INBOX', 'Sent'], 'there is no mailbox sent on the server; it has INBOX, Sent: set IMAP_MAILBOX to one of them'],
    ['a name with control characters shows without them', 'Support', ['INBOX', 'Evil\u001b]0;title\u0007'], 'there is no mailbox Support on the server; it has INBOX, Evil]0;title: set IMAP_MAILBOX to one of them'],
  ])('%s', (_name, mailbox, existing, says) => {
    expect(missingMailboxProblem(mailbox, existing)).toBe(says);
  });
});

describe('missingLoginSettings', () => {
  const settings = (over: Record<string, string | undefined>) => ({ IMAP_HOST: 'mail.example.co.jp', IMAP_USER: 'support', IMAP_PASSWORD: 'secret', ...over });
  it.each<[name: string, config: ReturnType<typeof settings> & Record<string, unknown>, says: string]>([
    ['only the user missing', settings({ IMAP_USER: undefined }), 'IMAP_USER is required by the poller'],
    ['user and password missing', settings({ IMAP_USER: undefined, IMAP_PASSWORD: undefined }), 'IMAP_USER and IMAP_PASSWORD are required by the poller'],
    ['all three missing', settings({ IMAP_HOST: undefined, IMAP_USER: undefined, IMAP_PASSWORD: undefined }), 'IMAP_HOST, IMAP_USER and IMAP_PASSWORD are required by the poller'],
    [
      'with OAuth2: the token settings, not the password',
      { ...settings({ IMAP_PASSWORD: undefined }), MAIL_AUTH: 'oauth2', MAIL_OAUTH2_TOKEN_URL: 'https://login.example/token' },
      'MAIL_OAUTH2_CLIENT_ID and MAIL_OAUTH2_CLIENT_SECRET are required by the poller',
    ],
  ])('%s', (_name, config, says) => {
    const login = imapLoginSetting(config as Parameters<typeof imapLoginSetting>[0]);
    expect(login.complete).toBe(false);
    expect(missingLoginSettings(login.missing)).toBe(says);
  });

  it('an empty IMAP_PASSWORD is a password (a test server takes it)', () => {
    expect(imapLoginSetting(settings({ IMAP_PASSWORD: '' })).missing).toEqual([]);
  });
});

describe('evictionPolicyProblem', () => {
  it.each<[policy: string | undefined, says: string | undefined]>([
    ['noeviction', undefined],
    [
      'allkeys-lru',
      'maxmemory-policy is allkeys-lru: when memory runs short Redis deletes keys, queued mail and tickets among them (the roles warn of it at start); set maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction; on a managed Redis, its parameter settings)',
    ],
    [
      'volatile-lru',
      'maxmemory-policy is volatile-lru: when memory runs short Redis deletes keys, queued mail and tickets among them (the roles warn of it at start); set maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction; on a managed Redis, its parameter settings)',
    ],
    [undefined, 'maxmemory-policy could not be read (CONFIG and INFO refused): make sure it is noeviction, or Redis may delete queued mail and tickets when memory runs short'],
  ])('%s', (policy, says) => {
    expect(evictionPolicyProblem(policy)).toBe(says);
  });
});

// README, Running without Docker: appendonly yes and appendfsync always, as docker-compose.yml runs Redis; with
// everysec a crash of the host answered mail twice (fault soak 42: 19 double replies in 30 crashes).
describe('durabilityProblem', () => {
  const fsyncFix = 'set appendfsync always (redis.conf, or CONFIG SET appendfsync always and CONFIG REWRITE; on a managed Redis, its persistence settings)';
  it.each<[settings: { appendonly?: string; appendfsync?: string }, says: string | undefined]>([
    [{ appendonly: 'yes', appendfsync: 'always' }, undefined],
    [
      { appendonly: 'yes', appendfsync: 'everysec' },
      `appendfsync is everysec: a crash of the host loses the writes not yet on disk (up to the last second), and a mail whose reply had just gone out is taken again and answered twice; ${fsyncFix}`,
    ],
    [
      { appendonly: 'yes', appendfsync: 'no' },
      `appendfsync is no: a crash of the host loses the writes not yet on disk (up to about 30 s), and a mail whose reply had just gone out is taken again and answered twice; ${fsyncFix}`,
    ],
    // Without the append-only file, fsync does not matter: the fix names both settings.
    ...(['always', 'everysec', undefined] as const).map((appendfsync): [{ appendonly?: string; appendfsync?: string }, string] => [
      { appendonly: 'no', appendfsync },
      'appendonly is no: Redis keeps no append-only file, so a restart or crash loses the queued mail and tickets written since its last snapshot (or all of them); set appendonly yes and appendfsync always (redis.conf, or CONFIG SET appendonly yes, CONFIG SET appendfsync always and CONFIG REWRITE; on a managed Redis, its persistence settings)',
    ]),
    // CONFIG refused (managed Redis), INFO said the append-only file is on: fsync is not in INFO.
    [
      { appendonly: 'yes' },
      'appendfsync could not be read (CONFIG refused): make sure it is always, or a crash of the host can answer a mail twice (on a managed Redis, its persistence settings)',
    ],
    [
      {},
      'appendonly and appendfsync could not be read (CONFIG and INFO refused): make sure appendonly is yes and appendfsync always, or a crash of the host can lose mail or answer it twice (on a managed Redis, its persistence settings)',
    ],
  ])('%j', (settings, says) => {
    expect(durabilityProblem(settings)).toBe(says);
  });
});
