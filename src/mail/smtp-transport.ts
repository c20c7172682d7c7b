/**
 * The SMTP side of the sender: a transport built from the SMTP_* variables (nodemailer's SMTPConnection, one
 * connection per reply), a readiness check, and the classification of SMTP failures into "the server refused this
 * mail for good", "try again later" and "it may have been delivered".
 *
 * Exactly-once is decided by the sender job and the ticket's `sending` claim, not here. Nothing here retries: a
 * connection that closes after the message was sent may have delivered it already, and retries are left to BullMQ's
 * backoff and the sender job's judgement.
 */
import { Readable } from 'node:stream';
import MailComposer from 'nodemailer/lib/mail-composer';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import XOAuth2 from 'nodemailer/lib/xoauth2';
import type { Config } from '../config.js';
import { domainOf, isUsableAddress, localPart } from './addresses.js';
import type { ReplyMail } from './compose-reply.js';
import { mailServerProblem, type MailServerSetting } from './connection-problem.js';
import { mailTokenSource, OAuth2TokenError, usesOAuth2, type MailOAuth2Config, type OAuth2TokenSource } from './oauth2.js';

/** Where the transport connects, for log lines: host, port, TLS and the user (never the password). */
export function describeSmtp(config: Pick<Config, 'SMTP_HOST' | 'SMTP_PORT' | 'SMTP_SECURE' | 'SMTP_USER'>): string {
  const scheme = config.SMTP_SECURE ? 'smtps' : 'smtp';
  const user = config.SMTP_USER ? `${config.SMTP_USER}:***@` : '';
  return `${scheme}://${user}${config.SMTP_HOST ?? '(SMTP_HOST unset)'}:${config.SMTP_PORT}`;
}

/** What the SMTP server said when it accepted a reply. */
export interface SmtpAcceptance {
  /** The server's final response line, e.g. `250 2.0.0 OK: queued as 4F2A`. */
  response: string;
  /** Recipients the server accepted. */
  accepted: string[];
  /** The message exactly as it was handed to the server (the Sent-folder copy is made of these bytes). */
  raw: Buffer;
}

/** A reply as MIME bytes plus the SMTP envelope taken from its headers. */
export interface BuiltReply {
  raw: Buffer;
  envelope: { from: string; to: string[] };
}

/**
 * Renders a reply to the bytes that go on the wire, with nodemailer's MailComposer (what `sendMail` would build).
 * The sender sends these bytes as they are, so a copy filed in the Sent folder is byte-identical to what went out.
 */
export async function buildReplyMessage(mail: ReplyMail): Promise<BuiltReply> {
  const node = composer(mail).compile();
  const envelope = node.getEnvelope();
  const problem = recipientProblem(mail.to, envelope.to);
  if (problem) throw new TypeError(problem);
  if (!envelope.from) throw new TypeError('buildReplyMessage: the reply has no sender address');
  return { raw: await node.build(), envelope: { from: envelope.from, to: envelope.to } };
}

/**
 * Why a reply must not be sent because of its recipient, or undefined: its SMTP envelope, as nodemailer builds it from
 * the headers, would hold anything but its one recipient `mail.to`, or that address is none a reply may go to
 * ({@link isUsableAddress}: a quoted local part other than a plain dotted one, a domain literal, a percent-hack or bang
 * route). The recipient goes to
 * nodemailer as an address object, never as a header value it parses again, so a display name or a quoted local part
 * with a comma cannot become a second recipient; this is the check that it did not. The sender parks a ticket for it
 * before it claims the reply.
 */
export function replyRecipientProblem(mail: ReplyMail): string | undefined {
  return recipientProblem(mail.to, composer(mail).compile().getEnvelope().to);
}

/** {@link replyRecipientProblem} over the envelope's recipients as nodemailer built them (IDN domains in punycode). */
function recipientProblem(to: string, recipients: readonly string[]): string | undefined {
  const refuse = (what: string) => `the reply would not go to exactly one address a reply may go to: ${what}`;
  if (!isUsableAddress(to)) return refuse(to.trim() === '' ? 'the ticket has no address to reply to' : `${JSON.stringify(to)} is not a plain local@domain address`);
  const sameAddress = (a: string) => localPart(a) === localPart(to) && domainOf(a) === domainOf(to);
  if (recipients.length === 1 && sameAddress(recipients[0]!)) return undefined;
  return refuse(`its SMTP envelope names ${JSON.stringify(recipients)}, not ${JSON.stringify(to)} alone`);
}

/** nodemailer's composer of a reply, the recipient as an address object (see {@link replyRecipientProblem}). */
function composer(mail: ReplyMail): MailComposer {
  return new MailComposer({
    from: mail.from,
    to: { name: mail.toName ?? '', address: mail.to },
    subject: mail.subject,
    messageId: mail.messageId,
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
    ...(mail.references ? { references: mail.references } : {}),
    text: mail.text,
    headers: mail.headers,
    // UTF-8 throughout: Japanese replies must stay readable in every client.
    textEncoding: 'base64',
    // CRLF throughout. An ASCII text goes 7bit with the line ends it has, and SMTP's DATA stream turns a bare LF into
    // CRLF on the wire: the Sent copy, made of these bytes, would differ from what the server received, and IMAP
    // servers that refuse bare newlines (Cyrus) would refuse the copy.
    newline: 'windows',
  });
}

/**
 * How an SMTP failure should be handled: `permanent` (refused for good), `temporary` (not accepted, may work later),
 * `unknown` (the connection failed after the whole message was handed over and before the server answered, so the
 * server may have queued it: sending again could deliver a second copy).
 */
export type SmtpFailureKind = 'permanent' | 'temporary' | 'unknown';

/** An SMTP failure with its classification and the server's words, for the ticket and the log. */
export class SmtpSendError extends Error {
  constructor(
    message: string,
    /** See {@link SmtpFailureKind}. */
    readonly kind: SmtpFailureKind,
    /** The SMTP reply code, when the server answered; absent for connection failures. */
    readonly responseCode: number | undefined,
    /** The server's response text, when it answered. */
    readonly response: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SmtpSendError';
  }
}

interface NodemailerLikeError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
}

/**
 * Classifies a nodemailer error. RFC 5321: 5yz is a permanent rejection, 4yz transient. 503 (bad sequence of
 * commands) is about the session, not the message, so it is retried on a new connection. Errors without a reply
 * code (refused connection, timeout, TLS) mean the mail was not accepted and are retried. Authentication failures
 * (535) are treated as temporary: they are a configuration problem of ours that an admin fixes, and parking every
 * reply of the meantime would bury the operator in tickets that only need resending.
 *
 * With `server` (the transport's own), a certificate this machine does not trust, TLS from the start on a port that
 * does not speak it and a refused login are said as `npm run check` says them ({@link mailServerProblem}); only the
 * words change, never the kind.
 */
export function classifySmtpError(err: unknown, options: { messageHandedOver?: boolean; server?: MailServerSetting } = {}): SmtpSendError {
  if (err instanceof SmtpSendError) return err;
  // No token, no login: the endpoint's answer is the news, and an admin's fix (or the endpoint's recovery) the cure.
  if (err instanceof OAuth2TokenError) return new SmtpSendError(`SMTP login not tried: ${err.message}`, 'temporary', undefined, undefined, { cause: err });
  const e = (err instanceof Error ? err : new Error(String(err))) as NodemailerLikeError;
  const code = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const response = typeof e.response === 'string' ? e.response.trim() : undefined;
  const permanent = code !== undefined && code >= 500 && code < 600 && code !== 503 && e.code !== 'EAUTH';
  const what = response ?? e.message;
  let message = code !== undefined ? `SMTP server answered ${what.startsWith(String(code)) ? what : `${code} ${what}`}` : `SMTP failure: ${e.message}`;
  const known = options.server && mailServerProblem(e, options.server);
  if (known) {
    message = known;
  } else if (e.code === 'ETLS' || e.command === 'STARTTLS') {
    message = `the SMTP server did not start TLS (STARTTLS), so the login was not sent in clear; use SMTP_SECURE=true, or SMTP_ALLOW_PLAIN_AUTH=true for a trusted local relay (${message})`;
  }
  if (code === undefined && options.messageHandedOver) {
    return new SmtpSendError(`${message} after the whole message was sent, before the server answered: it may have been delivered`, 'unknown', code, response, {
      cause: err,
    });
  }
  return new SmtpSendError(message, permanent ? 'permanent' : 'temporary', code, response, { cause: err });
}

/** The sender's view of SMTP. */
export interface SmtpTransport {
  /** Masked description of the server, for log lines. */
  readonly where: string;
  /** Sends one reply; resolves when the server accepted it, rejects with {@link SmtpSendError}. */
  send(mail: ReplyMail): Promise<SmtpAcceptance>;
  /** Connects and authenticates without sending (readiness); rejects with {@link SmtpSendError}. */
  verify(): Promise<void>;
  /** Closes pooled connections. */
  close(): void;
}

/** Options of {@link createSmtpTransport}. */
export interface SmtpTransportOptions {
  /** Connections kept open between replies (default 2). */
  idleConnections?: number;
  /** How long a kept connection waits for the next reply before it is closed (default 10 s). */
  idleTimeoutMs?: number;
  /** Connect/greeting timeout in milliseconds. */
  connectionTimeoutMs?: number;
  /** Socket inactivity timeout in milliseconds. */
  socketTimeoutMs?: number;
}

/**
 * nodemailer's XOAUTH2 login for one SMTP login: it asks `tokens` for the token, and again with `renew` after the server
 * refused it with a 334 challenge (Gmail's way), when the refused token is dropped first. `used` keeps the token sent
 * last, so a plain 535 (Microsoft's way) can drop it too.
 */
function xoauth2Login(tokens: OAuth2TokenSource, user: string, used: { token?: string }): SMTPConnection.AuthenticationType {
  const oauth2 = new XOAuth2({
    user,
    provisionCallback: (_user, renew, done) => {
      if (renew && used.token !== undefined) tokens.invalidate(used.token);
      tokens.getToken().then(
        (token) => {
          used.token = token;
          done(null, token);
        },
        (err: Error) => done(err),
      );
    },
  });
  return { type: 'OAuth2', user, method: 'XOAUTH2', oauth2 };
}

/**
 * An SMTP transport from SMTP_HOST, SMTP_PORT, SMTP_SECURE, SMTP_USER and SMTP_PASSWORD (with MAIL_AUTH=oauth2: an
 * OAuth2 token for SMTP_USER, SASL XOAUTH2, fetched for each login), on nodemailer's SMTPConnection. STARTTLS is used
 * when the server offers it (SMTP_SECURE=false); authentication only when SMTP_USER is set. With credentials and no TLS
 * from the start, STARTTLS is required (`requireTLS`): someone on the path who strips the STARTTLS offer would
 * otherwise read the password or the token. SMTP_ALLOW_PLAIN_AUTH=true lifts that for a trusted local relay.
 *
 * The message is handed to the connection only after the server took the envelope (DATA answered 354), so whether
 * the whole message was sent when a connection fails is known, and a failure after that point with no reply is
 * {@link SmtpFailureKind} `unknown` rather than a reason to send again (nodemailer's pool renders the message before
 * it has a connection, which hides that). Connections are kept between replies (up to `idleConnections`, closed after
 * `idleTimeoutMs`); a kept connection the server closed meanwhile fails before any byte of the message was sent, and
 * the reply then goes out over a new connection at once.
 */
export function createSmtpTransport(
  config: Pick<Config, 'SMTP_HOST' | 'SMTP_PORT' | 'SMTP_SECURE' | 'SMTP_USER' | 'SMTP_PASSWORD'> & Partial<Pick<Config, 'SMTP_ALLOW_PLAIN_AUTH'> & MailOAuth2Config>,
  options: SmtpTransportOptions = {},
): SmtpTransport {
  if (!config.SMTP_HOST) throw new TypeError('createSmtpTransport: SMTP_HOST is not set');
  const connectionOptions: SMTPConnection.Options = {
    host: config.SMTP_HOST,
    port: config.SMTP_PORT,
    secure: config.SMTP_SECURE,
    ...(config.SMTP_USER && !config.SMTP_SECURE && !config.SMTP_ALLOW_PLAIN_AUTH ? { requireTLS: true } : {}),
    connectionTimeout: options.connectionTimeoutMs ?? 30_000,
    greetingTimeout: options.connectionTimeoutMs ?? 30_000,
    socketTimeout: options.socketTimeoutMs ?? 120_000,
    logger: false,
  };
  const user = config.SMTP_USER;
  // What its failures are said of (see classifySmtpError).
  const server: MailServerSetting = { protocol: 'SMTP', host: config.SMTP_HOST, port: config.SMTP_PORT, secure: config.SMTP_SECURE, user, oauth2: usesOAuth2(config) };
  const tokens = user ? mailTokenSource(config) : undefined;
  const password = user ? { credentials: { user, pass: config.SMTP_PASSWORD ?? '' } } : undefined;
  const maxIdle = options.idleConnections ?? 2;
  const idleTimeoutMs = options.idleTimeoutMs ?? 10_000;
  const open = new Set<Session>();
  const idle: Session[] = [];

  /** A connected (and logged-in) connection, with the 'error' event every step races. */
  interface Session {
    connection: SMTPConnection;
    /** Rejects on the connection's 'error' event: some failures (no STARTTLS where required) arrive only so. */
    failure: Promise<never>;
    idleTimer?: NodeJS.Timeout;
  }

  const step = <T>(session: Pick<Session, 'failure'>, run: (done: (err: Error | null | undefined, value?: T) => void) => void): Promise<T> =>
    Promise.race([session.failure, new Promise<T>((resolve, reject) => run((err, value) => (err ? reject(err) : resolve(value as T))))]);

  /** Forgets a connection: `quit` says goodbye to a healthy one, `close` drops a failed one. */
  const discard = (session: Session, how: 'quit' | 'close' = 'close'): void => {
    clearTimeout(session.idleTimer);
    const at = idle.indexOf(session);
    if (at >= 0) idle.splice(at, 1);
    open.delete(session);
    session.connection[how]();
  };

  const connect = async (): Promise<Session> => {
    const connection = new SMTPConnection(connectionOptions);
    const failure = new Promise<never>((_, reject) => connection.on('error', reject));
    // Listening also keeps an error of an idle connection from going unhandled.
    failure.catch(() => undefined);
    const session: Session = { connection, failure };
    open.add(session);
    connection.once('end', () => discard(session));
    try {
      await step<void>(session, (done) => connection.connect((err) => done(err)));
      if (tokens && user) {
        const used: { token?: string } = {};
        try {
          await step<void>(session, (done) => connection.login(xoauth2Login(tokens, user, used), (err) => done(err)));
        } catch (err) {
          // Refused (535): not presented again; the next attempt logs in with a new token.
          if (used.token !== undefined && typeof (err as NodemailerLikeError).responseCode === 'number') tokens.invalidate(used.token);
          throw err;
        }
      } else if (password) {
        await step<void>(session, (done) => connection.login(password, (err) => done(err)));
      }
      return session;
    } catch (err) {
      discard(session);
      throw err;
    }
  };

  const keep = (session: Session): void => {
    if (idle.length >= maxIdle || !open.has(session)) {
      discard(session, 'quit');
      return;
    }
    session.idleTimer = setTimeout(() => discard(session, 'quit'), idleTimeoutMs);
    session.idleTimer.unref();
    idle.push(session);
  };

  /** Sends over `session`; `handedOver` tells whether the connection read the whole message. */
  const sendOver = (session: Session, envelope: BuiltReply['envelope'], raw: Buffer, handedOver: { value: boolean; started: boolean }) =>
    step<SMTPConnection.SentMessageInfo>(session, (done) => {
      // Read by the connection only after DATA was answered 354: `read` marks the start, 'end' that it took it all.
      // (No 'data' listener: one would start the stream flowing at once.)
      const body = new Readable({
        read() {
          handedOver.started = true;
          this.push(raw);
          this.push(null);
        },
      });
      body.once('end', () => {
        handedOver.value = true;
      });
      // Sent as these bytes, so no header is added after the copy for the Sent folder was taken.
      session.connection.send(envelope, body, (err, sent) => done(err, sent));
    });

  return {
    where: describeSmtp(config),
    async send(mail: ReplyMail): Promise<SmtpAcceptance> {
      // Set once the connection has read the whole message, which it starts only after DATA was answered 354.
      const handedOver = { value: false, started: false };
      try {
        const { raw, envelope } = await buildReplyMessage(mail);
        const reused = idle.shift();
        if (reused) clearTimeout(reused.idleTimer);
        let session = reused ?? (await connect());
        let info: SMTPConnection.SentMessageInfo;
        try {
          info = await sendOver(session, envelope, raw, handedOver);
        } catch (err) {
          discard(session);
          const code = (err as NodemailerLikeError).responseCode;
          // A kept connection the server closed meanwhile: not a byte of the message went out, so a new connection
          // may send it at once.
          if (!reused || handedOver.started || (code !== undefined && code !== 421)) throw err;
          session = await connect();
          info = await sendOver(session, envelope, raw, handedOver);
        }
        keep(session);
        return { response: String(info.response ?? ''), accepted: (info.accepted ?? []).map(String), raw };
      } catch (err) {
        throw classifySmtpError(err, { messageHandedOver: handedOver.value, server });
      }
    },
    async verify(): Promise<void> {
      try {
        discard(await connect(), 'quit');
      } catch (err) {
        throw classifySmtpError(err, { server });
      }
    },
    close(): void {
      for (const session of [...open]) discard(session);
    },
  };
}
