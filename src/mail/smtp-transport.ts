/**
 * The SMTP side of the sender: one pooled nodemailer transport built from the SMTP_* variables, a readiness check,
 * and the classification of SMTP failures into "the server refused this mail for good" and "try again later".
 *
 * Exactly-once is decided by the sender job and the ticket's `sending` claim, not here. Two transport settings keep
 * nodemailer from second-guessing that: the pool never requeues a message on its own (`maxRequeues: 0`), because a
 * connection that closes after DATA may have delivered the mail already, and retries are left to BullMQ's backoff.
 */
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Config } from '../config.js';
import type { ReplyMail } from './compose-reply.js';

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
  const node = new MailComposer({
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    messageId: mail.messageId,
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
    ...(mail.references ? { references: mail.references } : {}),
    text: mail.text,
    headers: mail.headers,
    // UTF-8 throughout: Japanese replies must stay readable in every client.
    textEncoding: 'base64',
  }).compile();
  const envelope = node.getEnvelope();
  if (!envelope.from || envelope.to.length === 0) throw new TypeError('buildReplyMessage: the reply has no sender or no recipient address');
  return { raw: await node.build(), envelope: { from: envelope.from, to: envelope.to } };
}

/** How an SMTP failure should be handled. */
export type SmtpFailureKind = 'permanent' | 'temporary';

/** An SMTP failure with its classification and the server's words, for the ticket and the log. */
export class SmtpSendError extends Error {
  constructor(
    message: string,
    /** `permanent`: the server refused the mail for good (5xx); `temporary`: not accepted, may work later. */
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
 */
export function classifySmtpError(err: unknown): SmtpSendError {
  if (err instanceof SmtpSendError) return err;
  const e = (err instanceof Error ? err : new Error(String(err))) as NodemailerLikeError;
  const code = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const response = typeof e.response === 'string' ? e.response.trim() : undefined;
  const permanent = code !== undefined && code >= 500 && code < 600 && code !== 503 && e.code !== 'EAUTH';
  const what = response ?? e.message;
  let message = code !== undefined ? `SMTP server answered ${what.startsWith(String(code)) ? what : `${code} ${what}`}` : `SMTP failure: ${e.message}`;
  if (e.code === 'ETLS' || e.command === 'STARTTLS') {
    message = `the SMTP server did not start TLS (STARTTLS), so the login was not sent in clear; use SMTP_SECURE=true, or SMTP_ALLOW_PLAIN_AUTH=true for a trusted local relay (${message})`;
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
  /** Connections kept open to the server. */
  maxConnections?: number;
  /** Connect/greeting timeout in milliseconds. */
  connectionTimeoutMs?: number;
  /** Socket inactivity timeout in milliseconds. */
  socketTimeoutMs?: number;
}

/**
 * A pooled SMTP transport from SMTP_HOST, SMTP_PORT, SMTP_SECURE, SMTP_USER and SMTP_PASSWORD. STARTTLS is used when
 * the server offers it (SMTP_SECURE=false); authentication only when SMTP_USER is set. With credentials and no TLS
 * from the start, STARTTLS is required (nodemailer's `requireTLS`): someone on the path who strips the STARTTLS
 * offer would otherwise read the password. SMTP_ALLOW_PLAIN_AUTH=true lifts that for a trusted local relay.
 */
export function createSmtpTransport(
  config: Pick<Config, 'SMTP_HOST' | 'SMTP_PORT' | 'SMTP_SECURE' | 'SMTP_USER' | 'SMTP_PASSWORD'> & Partial<Pick<Config, 'SMTP_ALLOW_PLAIN_AUTH'>>,
  options: SmtpTransportOptions = {},
): SmtpTransport {
  if (!config.SMTP_HOST) throw new TypeError('createSmtpTransport: SMTP_HOST is not set');
  const transporter = nodemailer.createTransport({
    pool: true,
    host: config.SMTP_HOST,
    port: config.SMTP_PORT,
    secure: config.SMTP_SECURE,
    ...(config.SMTP_USER ? { auth: { user: config.SMTP_USER, pass: config.SMTP_PASSWORD ?? '' } } : {}),
    ...(config.SMTP_USER && !config.SMTP_SECURE && !config.SMTP_ALLOW_PLAIN_AUTH ? { requireTLS: true } : {}),
    maxConnections: options.maxConnections ?? 2,
    // See the module comment: a requeue after a dropped connection could deliver the mail twice.
    maxRequeues: 0,
    connectionTimeout: options.connectionTimeoutMs ?? 30_000,
    greetingTimeout: options.connectionTimeoutMs ?? 30_000,
    socketTimeout: options.socketTimeoutMs ?? 120_000,
    logger: false,
  });
  return {
    where: describeSmtp(config),
    async send(mail: ReplyMail): Promise<SmtpAcceptance> {
      try {
        const { raw, envelope } = await buildReplyMessage(mail);
        // Sent as raw bytes (with the envelope nodemailer would have derived) so no header is added after the copy
        // for the Sent folder was taken.
        const info = await transporter.sendMail({ envelope, raw });
        return { response: String(info.response ?? ''), accepted: (info.accepted ?? []).map(String), raw };
      } catch (err) {
        throw classifySmtpError(err);
      }
    },
    async verify(): Promise<void> {
      try {
        await transporter.verify();
      } catch (err) {
        throw classifySmtpError(err);
      }
    },
    close(): void {
      transporter.close();
    },
  };
}
