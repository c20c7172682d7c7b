/**
 * What to tell the admin when a mail server could not be used: the same words in `npm run check`, the poller's log
 * and `/readyz` detail (`describeImapFailure`), and the sender's log, readiness and park reasons
 * (`classifySmtpError`). The libraries' own words say what broke, not what to set: OpenSSL's "wrong version number"
 * for TLS from the start on a STARTTLS port, a 16 s wait ending in "Greeting never received" for the opposite, a
 * "self-signed certificate" for a server that was reached, a bare 535. Here each becomes the setting to change, read
 * from the error codes imapflow and nodemailer give (nodemailer keeps Node's code as `originalCode` beneath its own);
 * anything else is left to the roles' own descriptions, which these lines replace only where they know better.
 */

/** One mail server as the configuration names it. */
export interface MailServerSetting {
  protocol: 'IMAP' | 'SMTP';
  host: string;
  port: number;
  /** IMAP_SECURE / SMTP_SECURE: TLS from the start (true) or STARTTLS on a plain connection. */
  secure: boolean;
  user: string | undefined;
  /** MAIL_AUTH=oauth2: a token, not a password, is sent. */
  oauth2: boolean;
}

/** The ports where TLS starts at once (RFC 8314) and where STARTTLS is used, per protocol. */
const IMPLICIT_TLS_PORT = { IMAP: 993, SMTP: 465 } as const;
const STARTTLS_PORT = { IMAP: 143, SMTP: 587 } as const;

/** OpenSSL's words for a plain-text answer to a TLS handshake. */
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);

/** Node's codes of a certificate that failed verification (OpenSSL's X509_V_ERR names), and the host name check's. */
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * How to make this machine trust a certificate. Node reads NODE_EXTRA_CA_CERTS once, when the process starts (Node's
 * CLI documentation), and the configuration reads `.env` later and into its own table (src/config.ts), so a line in
 * `.env` cannot set it for `npm run` / `npm start`; Compose's `env_file` is the container's environment, so there it can.
 */
const TRUST_ITS_CA =
  'use a certificate from a public CA on the server, or trust its CA here: NODE_EXTRA_CA_CERTS=/path/ca.pem in the environment the process starts with (Node reads it at start, before .env is read)';

const GMAIL_APP_PASSWORD = "Gmail takes an app password of the account (it needs 2-step verification), not the account's own password";

/** The fields imapflow and nodemailer put on their errors, any of them absent. */
interface MailLibraryError {
  message?: unknown;
  code?: unknown;
  originalCode?: unknown;
  timeoutType?: unknown;
  command?: unknown;
  responseCode?: unknown;
  response?: unknown;
  authenticationFailed?: unknown;
  cause?: unknown;
}

/** `err` and the errors it wraps (the SMTP transport's SmtpSendError holds nodemailer's as its cause). */
function chain(err: unknown): MailLibraryError[] {
  const errors: MailLibraryError[] = [];
  for (let e = err; typeof e === 'object' && e !== null && errors.length < 5; e = (e as MailLibraryError).cause) errors.push(e as MailLibraryError);
  return errors;
}

/** Node's codes on the errors of {@link chain}: nodemailer's own (ESOCKET) hides Node's under `originalCode`. */
function codes(err: unknown): string[] {
  return chain(err)
    .flatMap((e) => [e.originalCode, e.code])
    .filter((c): c is string => typeof c === 'string');
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * The certificate's failure as what it is and what fixes it, to follow "reached, but": the server answered, so
 * "unreachable" would send the admin to the network. Undefined when it is none.
 */
function certificateProblem(err: unknown, server: MailServerSetting): string | undefined {
  const code = codes(err).find((c) => CERTIFICATE_CODES.has(c));
  if (!code) return undefined;
  const message = oneLine(String(chain(err).find((e) => e.originalCode === code || e.code === code)?.message ?? code));
  const [why, fix] = ((): [string, string] => {
    switch (code) {
      case 'DEPTH_ZERO_SELF_SIGNED_CERT':
        return ['it is self-signed', TRUST_ITS_CA];
      case 'SELF_SIGNED_CERT_IN_CHAIN':
      case 'UNABLE_TO_GET_ISSUER_CERT':
      case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
        return ['it is issued by a CA this machine does not know', TRUST_ITS_CA];
      case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
        return ['its issuer is unknown here: a private CA, or the server does not send its intermediate certificate', `have the server send its whole chain, or ${TRUST_ITS_CA}`];
      case 'ERR_TLS_CERT_ALTNAME_INVALID':
      case 'HOSTNAME_MISMATCH':
        return [
          `it is for another host name (${message.replace(/^Hostname\/IP does not match certificate's altnames: /, '')})`,
          `set ${server.protocol}_HOST to a name the certificate lists, or get a certificate for ${server.host}`,
        ];
      case 'CERT_HAS_EXPIRED':
        return ['it has expired', 'renew it on the server'];
      case 'CERT_NOT_YET_VALID':
        return ['it is not valid yet', "check this machine's clock, and the certificate's dates"];
      default:
        return [message, 'use a certificate from a public CA on the server'];
    }
  })();
  return `its certificate is not trusted: ${why} (${code}); ${fix}`;
}

/**
 * With TLS from the start, a plain-text answer to the handshake: OpenSSL's code, and the setting to change, to follow
 * "does not speak TLS at once (code)". Undefined otherwise.
 */
function notTlsProblem(err: unknown, server: MailServerSetting): { code: string; fix: string } | undefined {
  const code = server.secure ? codes(err).find((c) => NOT_TLS.has(c)) : undefined;
  if (!code) return undefined;
  const secure = `${server.protocol}_SECURE`;
  const implicitPort = IMPLICIT_TLS_PORT[server.protocol];
  const startTlsPort = STARTTLS_PORT[server.protocol];
  if (server.port === implicitPort) {
    return { code, fix: `, as ${secure}=true expects: is ${server.protocol}_PORT right? STARTTLS is usually port ${startTlsPort}, with ${secure}=false` };
  }
  return { code, fix: `: set ${secure}=false for port ${startTlsPort} (STARTTLS), or use port ${implicitPort} with ${secure}=true` };
}

/** True when the connection waited for a greeting that did not come (imapflow's code, nodemailer's timeouts). */
export function gotNoGreeting(err: unknown): boolean {
  return chain(err).some(
    (e) => e.code === 'GREETING_TIMEOUT' || e.timeoutType === 'GREETING_TIMEOUT' || (e.timeoutType === 'SOCKET_TIMEOUT' && e.command === 'CONN'),
  );
}

/** An SMTP login the server refused with a reply code, as what to check. */
function smtpLoginProblem(err: unknown, server: MailServerSetting): string | undefined {
  const errors = chain(err);
  if (!errors.some((e) => e.code === 'EAUTH') || !errors.some((e) => typeof e.responseCode === 'number')) return undefined;
  const response = errors.map((e) => e.response).find((r): r is string => typeof r === 'string');
  const answer = oneLine(response ?? String(errors[0]?.message ?? ''));
  const as = server.user ? ` as ${server.user}` : '';
  if (server.oauth2) {
    return `SMTP login${as} with an OAuth2 token refused (${answer}): is SMTP_USER the mailbox, and may the application send as it? The next login fetches a new token`;
  }
  return `SMTP login${as} refused (${answer}): wrong SMTP_USER or SMTP_PASSWORD?${isGmail(server.host) ? ` ${GMAIL_APP_PASSWORD}` : ''}`;
}

const isGmail = (host: string) => /^(imap|smtp)\.(gmail|googlemail)\.com\.?$/i.test(host);

/**
 * `npm run check`'s line for a failed connection to a mail server, or undefined when the roles' own description says
 * it as well: a certificate not trusted (reached, not unreachable: what it is and how to trust it), TLS from the start
 * on a port that does not speak it, no plain-text greeting where the server speaks TLS at once, an SMTP login refused.
 * `speaksTlsAtOnce` is what a TLS handshake with the server found when the check tried one: true with `err`
 * undefined when it answered before the connection failed.
 */
export function mailConnectionProblem(err: unknown, server: MailServerSetting, speaksTlsAtOnce?: boolean): string | undefined {
  const certificate = certificateProblem(err, server);
  if (certificate) return `reached, but ${certificate}`;
  const notTls = notTlsProblem(err, server);
  if (notTls) return `the server does not speak TLS at once on port ${server.port} (${notTls.code})${notTls.fix}`;
  const secure = `${server.protocol}_SECURE`;
  const implicitPort = IMPLICIT_TLS_PORT[server.protocol];
  if (!server.secure && (err === undefined || gotNoGreeting(err)) && (speaksTlsAtOnce ?? (err !== undefined && server.port === implicitPort))) {
    const who = server.port === implicitPort ? `port ${server.port} expects` : `the server on port ${server.port} speaks`;
    return `${who} TLS from the start (${secure}=false waits for a plain-text greeting that never comes): set ${secure}=true`;
  }
  return server.protocol === 'SMTP' ? smtpLoginProblem(err, server) : undefined;
}

/**
 * A role's line for a failed connection to a mail server, naming it, or undefined when the error alone does not
 * tell (the role then says it in its own words): a certificate not trusted, TLS from the start on a port that does
 * not speak it, an SMTP login refused. Unlike {@link mailConnectionProblem} it does not read a missing greeting as
 * TLS spoken at once: only the check's own TLS handshake can tell that from a server that is slow or stuck. A
 * certificate failure is what it is also when STARTTLS met it (imapflow marks any failed upgrade `tlsFailed`).
 */
export function mailServerProblem(err: unknown, server: MailServerSetting): string | undefined {
  const who = `${server.protocol} server ${server.host}:${server.port}`;
  const certificate = certificateProblem(err, server);
  if (certificate) return `${who} was reached, but ${certificate}`;
  const notTls = notTlsProblem(err, server);
  if (notTls) return `${who} does not speak TLS at once (${notTls.code})${notTls.fix}`;
  return server.protocol === 'SMTP' ? smtpLoginProblem(err, server) : undefined;
}

/**
 * What to add to a refused password login: with Gmail, that it takes an app password (the account's own is refused
 * even when right). Empty otherwise.
 */
export function appPasswordHint(err: unknown, server: MailServerSetting): string {
  const refused = chain(err).some((e) => e.authenticationFailed === true || e.code === 'EAUTH');
  return refused && !server.oauth2 && isGmail(server.host) ? `; ${GMAIL_APP_PASSWORD}` : '';
}
