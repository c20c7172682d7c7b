/**
 * What the roles say about a mail server they could not use: the poller's log line and `/readyz` detail
 * (`describeImapFailure`), the sender's log, readiness and park reasons (`classifySmtpError`, given the server as the
 * transport gives it). They say what `npm run check` says, about the server by name: a certificate this machine does
 * not trust was reached (not "unreachable"), also when STARTTLS met it (not "did not start TLS"); a port that does
 * not speak TLS at once names the setting. A refused connection and a server without STARTTLS keep their words, and
 * no SMTP failure changes between retried and parked. The errors have the shapes imapflow and nodemailer give them
 * (seen against a real STARTTLS server with a self-signed certificate).
 */
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { MailServerSetting } from '../../src/mail/connection-problem.js';
import { classifySmtpError, type SmtpFailureKind } from '../../src/mail/smtp-transport.js';
import { describeImapFailure } from '../../src/runtime/poller.js';

const TRUST = 'use a certificate from a public CA on the server, or trust its CA here: NODE_EXTRA_CA_CERTS=/path/ca.pem in the environment the process starts with (Node reads it at start, before .env is read)';
const OPENSSL_WRONG_VERSION = '80AC65A0377F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:\n';

/** An error as imapflow raises it: Node's own, code and all; `tlsFailed` on anything that failed in STARTTLS. */
const imapError = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);
/** An error as nodemailer raises it on the socket: its own code, Node's kept as `originalCode`. */
const smtpError = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), { code: 'ESOCKET', command: 'CONN', ...fields });

describe("the poller's words for a failed IMAP connection", () => {
  const config = (over: Partial<Config> = {}) => ({
    IMAP_HOST: 'mail.example.co.jp',
    IMAP_PORT: 993,
    IMAP_SECURE: true,
    IMAP_USER: 'support@example.co.jp',
    IMAP_MAILBOX: 'INBOX',
    ...over,
  });
  const STARTTLS = { IMAP_PORT: 143, IMAP_SECURE: false };

  it.each<[name: string, settings: Partial<Config>, err: Error, says: string]>([
    [
      'a self-signed certificate, TLS from the start',
      {},
      imapError('self-signed certificate', { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
      `IMAP server mail.example.co.jp:993 was reached, but its certificate is not trusted: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT); ${TRUST}`,
    ],
    [
      'a self-signed certificate met by STARTTLS: a certificate problem, not a server refusing STARTTLS',
      STARTTLS,
      imapError('self-signed certificate', { code: 'DEPTH_ZERO_SELF_SIGNED_CERT', tlsFailed: true }),
      `IMAP server mail.example.co.jp:143 was reached, but its certificate is not trusted: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT); ${TRUST}`,
    ],
    [
      'a certificate for another host name',
      {},
      imapError("Hostname/IP does not match certificate's altnames: Host: mail.example.co.jp. is not in the cert's altnames: DNS:*.hosting.example", {
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      }),
      "IMAP server mail.example.co.jp:993 was reached, but its certificate is not trusted: it is for another host name (Host: mail.example.co.jp. is not in the cert's altnames: DNS:*.hosting.example) (ERR_TLS_CERT_ALTNAME_INVALID); set IMAP_HOST to a name the certificate lists, or get a certificate for mail.example.co.jp",
    ],
    [
      'IMAP_SECURE=true on the STARTTLS port',
      { IMAP_PORT: 143 },
      imapError(OPENSSL_WRONG_VERSION, { code: 'ERR_SSL_WRONG_VERSION_NUMBER' }),
      'IMAP server mail.example.co.jp:143 does not speak TLS at once (ERR_SSL_WRONG_VERSION_NUMBER): set IMAP_SECURE=false for port 143 (STARTTLS), or use port 993 with IMAP_SECURE=true',
    ],
    [
      'IMAP_SECURE=true on 993, and the server there is plain',
      {},
      imapError(OPENSSL_WRONG_VERSION, { code: 'ERR_SSL_WRONG_VERSION_NUMBER' }),
      'IMAP server mail.example.co.jp:993 does not speak TLS at once (ERR_SSL_WRONG_VERSION_NUMBER), as IMAP_SECURE=true expects: is IMAP_PORT right? STARTTLS is usually port 143, with IMAP_SECURE=false',
    ],
    [
      'a refused connection: as before',
      {},
      imapError('connect ECONNREFUSED 192.0.2.7:993', { code: 'ECONNREFUSED' }),
      'IMAP server mail.example.co.jp:993 unreachable (connect ECONNREFUSED 192.0.2.7:993)',
    ],
    [
      'a server without STARTTLS: as before',
      STARTTLS,
      imapError('Server does not support STARTTLS', { tlsFailed: true }),
      'IMAP server mail.example.co.jp:143 did not start TLS (STARTTLS), so the login was not sent in clear; use TLS from the start (IMAP_SECURE=true, usually IMAP_PORT=993), or IMAP_ALLOW_PLAIN_LOGIN=true for a trusted local server',
    ],
    [
      // Advising IMAP_ALLOW_PLAIN_LOGIN here would tell the admin to log in in clear past a man in the middle.
      'data injected before the TLS handshake: the attack named, no advice to log in in clear',
      STARTTLS,
      imapError('Server sent data after the STARTTLS response and before the TLS handshake; possible plaintext-injection attack', { code: 'STARTTLS_INJECTION', tlsFailed: true }),
      'IMAP server mail.example.co.jp:143: data came before the TLS handshake of STARTTLS (STARTTLS_INJECTION), as when someone between us and the server tampers with the connection; nothing was sent in clear: check the network path, or use TLS from the start (IMAP_SECURE=true, usually IMAP_PORT=993)',
    ],
  ])('%s', (_name, settings, err, says) => {
    expect(describeImapFailure(config(settings), 'connect', err)).toBe(says);
  });
});

describe("the sender's words for a failed SMTP connection", () => {
  const server = (over: Partial<MailServerSetting> = {}): MailServerSetting => ({
    protocol: 'SMTP',
    host: 'smtp.example.co.jp',
    port: 587,
    secure: false,
    user: 'support@example.co.jp',
    oauth2: false,
    ...over,
  });
  const IMPLICIT = { port: 465, secure: true };

  it.each<[name: string, at: MailServerSetting, err: Error, says: string, kind: SmtpFailureKind]>([
    [
      'a self-signed certificate, TLS from the start',
      server(IMPLICIT),
      smtpError('self-signed certificate', { originalCode: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
      `SMTP server smtp.example.co.jp:465 was reached, but its certificate is not trusted: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT); ${TRUST}`,
      'temporary',
    ],
    [
      'a self-signed certificate met by STARTTLS',
      server(),
      smtpError('self-signed certificate', { originalCode: 'DEPTH_ZERO_SELF_SIGNED_CERT' }),
      `SMTP server smtp.example.co.jp:587 was reached, but its certificate is not trusted: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT); ${TRUST}`,
      'temporary',
    ],
    [
      'SMTP_SECURE=true on 587',
      server({ secure: true }),
      smtpError(OPENSSL_WRONG_VERSION, { originalCode: 'ERR_SSL_WRONG_VERSION_NUMBER' }),
      'SMTP server smtp.example.co.jp:587 does not speak TLS at once (ERR_SSL_WRONG_VERSION_NUMBER): set SMTP_SECURE=false for port 587 (STARTTLS), or use port 465 with SMTP_SECURE=true',
      'temporary',
    ],
    [
      'a refused login',
      server(),
      Object.assign(new Error('Invalid login: 535 5.7.8 Authentication credentials invalid'), {
        code: 'EAUTH',
        response: '535 5.7.8 Authentication credentials invalid',
        responseCode: 535,
        command: 'AUTH PLAIN',
      }),
      'SMTP login as support@example.co.jp refused (535 5.7.8 Authentication credentials invalid): wrong SMTP_USER or SMTP_PASSWORD?',
      'temporary',
    ],
    [
      'a refused connection: as before',
      server(),
      smtpError('connect ECONNREFUSED 192.0.2.7:587', { originalCode: 'ECONNREFUSED' }),
      'SMTP failure: connect ECONNREFUSED 192.0.2.7:587',
      'temporary',
    ],
    [
      'a server without STARTTLS: as before',
      server(),
      Object.assign(new Error('Error upgrading connection with STARTTLS: 502 5.5.1 Unrecognized command'), {
        code: 'ETLS',
        response: '502 5.5.1 Unrecognized command',
        responseCode: 502,
        command: 'STARTTLS',
      }),
      'the SMTP server did not start TLS (STARTTLS), so the login was not sent in clear; use SMTP_SECURE=true, or SMTP_ALLOW_PLAIN_AUTH=true for a trusted local relay (SMTP server answered 502 5.5.1 Unrecognized command)',
      'permanent',
    ],
  ])('%s', (_name, at, err, says, kind) => {
    const failure = classifySmtpError(err, { server: at });
    expect(failure.message).toBe(says);
    // Retried or parked as without the server's name: only the words changed.
    expect(failure.kind).toBe(kind);
    expect(failure.kind).toBe(classifySmtpError(err).kind);
  });
});
