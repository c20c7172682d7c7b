/**
 * An in-test SMTP server (the `smtp-server` package on a free loopback port)
 * that records what the reply sender delivers and can answer each DATA with
 * a scripted status, e.g. 451 then 250, to exercise retry handling.
 *
 * It is a real SMTP endpoint on a real socket, so the code under test talks
 * to it through nodemailer unchanged.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type HeaderValue, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { LOOPBACK } from './ports.js';

/** SMTP envelope as given in MAIL FROM / RCPT TO. */
export interface SmtpEnvelope {
  /** MAIL FROM address; `''` for the null sender `<>`. */
  from: string;
  /** RCPT TO addresses in order. */
  to: string[];
}

/** Reply a {@link SmtpResponder} chooses for the end of DATA. */
export interface SmtpReply {
  /** 2xx accepts (smtp-server always answers 250 then); 4xx is a temporary and 5xx a permanent rejection. */
  code: number;
  /** Reply text; a generic one per class when omitted. */
  message?: string;
  /**
   * Take the message, as a server that has queued it, then close the connection without replying: what an MTA
   * restart or a NAT idle cut right after the final dot looks like to the client. The message counts as received.
   */
  dropConnection?: boolean;
}

/** What a {@link SmtpResponder} gets to decide on. */
export interface SmtpAttemptContext {
  envelope: SmtpEnvelope;
  /** 1-based count of DATA transactions this receiver has seen, accepted or not. */
  attempt: number;
  raw: Buffer;
  parsed: ParsedMail;
  /** AUTH username of the session, if the client authenticated. */
  authUser: string | undefined;
}

/** Decides the reply to each DATA; returning nothing means 250. */
export type SmtpResponder = (context: SmtpAttemptContext) => SmtpReply | undefined | Promise<SmtpReply | undefined>;

/** One DATA transaction and how it was answered. */
export interface SmtpAttempt {
  attempt: number;
  envelope: SmtpEnvelope;
  raw: Buffer;
  reply: Required<SmtpReply>;
}

/** An accepted message. */
export interface ReceivedMessage {
  /** Exactly the bytes received after DATA (dot-unstuffed). */
  raw: Buffer;
  envelope: SmtpEnvelope;
  /** Decoded Subject. */
  subject: string | undefined;
  /** Decoded text/plain body. */
  text: string | undefined;
  /** Decoded text/html body, if any. */
  html: string | undefined;
  /** Parsed headers keyed by lower-case name (mailparser's representation). */
  headers: Map<string, HeaderValue>;
  /** The full mailparser result, for attachments, addresses, references... */
  parsed: ParsedMail;
  /** AUTH username of the session, if the client authenticated. */
  authUser: string | undefined;
  /** The {@link SmtpAttempt.attempt} number that delivered it. */
  attempt: number;
}

/** Options for {@link startSmtpReceiver}. */
export interface SmtpReceiverOptions {
  /** If set together with `password`, AUTH must match them; otherwise any credentials are accepted. */
  user?: string;
  password?: string;
  /** Maximum message size in bytes, advertised via SIZE and enforced with 552; default 25 MiB. */
  maxSize?: number;
  /** Initial responder; see {@link SmtpReceiver.respondWith}. */
  respond?: SmtpResponder;
  /**
   * Offer AUTH XOAUTH2 and accept a token when `accepts` says so (a test's stand-in identity provider). A refused token
   * gets a plain 535, as Microsoft 365 answers; password logins are then refused.
   */
  oauth2?: { accepts(user: string, accessToken: string): boolean };
}

/** One AUTH the receiver answered. */
export interface SmtpLogin {
  method: string;
  user: string;
  accepted: boolean;
}

/** Handle to a running receiver. */
export interface SmtpReceiver {
  readonly host: typeof LOOPBACK;
  readonly port: number;
  /** Accepted messages in arrival order. */
  readonly messages: ReceivedMessage[];
  /** Every DATA transaction including rejected ones, in order. */
  readonly attempts: SmtpAttempt[];
  /** Every AUTH, accepted or not, in order. */
  readonly logins: SmtpLogin[];
  /**
   * Resolves with {@link SmtpReceiver.messages} once at least `count`
   * messages have been accepted; rejects after `timeoutMs` (default 5 s).
   */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMessage[]>;
  /** Replaces the responder for subsequent DATA transactions; `undefined` restores "always 250". */
  respondWith(responder: SmtpResponder | undefined): void;
  /** Connections clients opened so far (kept across {@link SmtpReceiver.clear}). */
  readonly connectionCount: number;
  /** Closes every open client connection from the server side, as a server's idle timeout or restart does. */
  closeConnections(): void;
  /** Forgets recorded messages and attempts and restarts attempt numbering; the responder stays. */
  clear(): void;
  /** Closes the listener and drops open client connections. Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_MAX_SIZE = 25 * 1024 * 1024;
/** Thrown by the DATA handler when the responder asked to drop the connection instead of replying. */
const DROP_CONNECTION = new Error('drop the connection without a reply');

/**
 * Builds a responder that replies with `replies` for the first attempts in
 * order and 250 afterwards, e.g. `replySequence({ code: 451 })` for "defer
 * once, then accept".
 */
export function replySequence(...replies: SmtpReply[]): SmtpResponder {
  return ({ attempt }) => replies[attempt - 1];
}

/**
 * Starts an SMTP receiver on 127.0.0.1 (no TLS, AUTH PLAIN/LOGIN optional, or XOAUTH2 with `oauth2`).
 *
 * @example
 * ```ts
 * const smtp = await startSmtpReceiver();
 * afterAll(() => smtp.stop());
 * const transport = nodemailer.createTransport({ host: smtp.host, port: smtp.port, secure: false, ignoreTLS: true });
 * await transport.sendMail(mail);
 * const [message] = await smtp.waitFor(1);
 * ```
 */
export async function startSmtpReceiver(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
  const maxSize = options.maxSize ?? DEFAULT_MAX_SIZE;
  const messages: ReceivedMessage[] = [];
  const attempts: SmtpAttempt[] = [];
  const logins: SmtpLogin[] = [];
  const waiters = new Set<() => void>();
  let responder = options.respond;
  let attemptCounter = 0;
  let connectionCount = 0;
  let stopped = false;

  const checkAuth = (username: string | undefined, password: string | undefined): boolean => {
    if (options.user === undefined || options.password === undefined) return true;
    return username === options.user && password === options.password;
  };

  const handleData = async (stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const envelope: SmtpEnvelope = {
      from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
      to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
    };
    attemptCounter += 1;
    const attempt = attemptCounter;
    const authUser = session.user;

    let reply: Required<SmtpReply>;
    let parsed: ParsedMail | undefined;
    if (stream.sizeExceeded) {
      reply = { code: 552, message: `Message exceeds the fixed limit of ${maxSize} bytes`, dropConnection: false };
    } else {
      parsed = await simpleParser(raw);
      const chosen = (await responder?.({ envelope, attempt, raw, parsed, authUser })) ?? { code: 250 };
      const code = chosen.code >= 200 && chosen.code < 300 ? 250 : chosen.code;
      reply = { code, message: chosen.message ?? defaultReplyText(code), dropConnection: chosen.dropConnection === true };
    }
    attempts.push({ attempt, envelope, raw, reply });

    if (reply.code >= 200 && reply.code < 300 && parsed !== undefined) {
      messages.push({
        raw,
        envelope,
        subject: parsed.subject,
        text: parsed.text,
        html: parsed.html === false ? undefined : parsed.html,
        headers: parsed.headers,
        parsed,
        authUser,
        attempt,
      });
      for (const wake of [...waiters]) wake();
      if (reply.dropConnection) throw DROP_CONNECTION;
      return reply.message;
    }
    throw Object.assign(new Error(reply.message), { responseCode: reply.code });
  };

  const server = new SMTPServer({
    name: 'smtp-receiver.test',
    authOptional: true,
    authMethods: options.oauth2 ? ['XOAUTH2'] : ['PLAIN', 'LOGIN'],
    // No TLS on loopback, so AUTH has to be allowed in the clear.
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    size: maxSize,
    logger: false,
    // The default reverse DNS lookup of 127.0.0.1 can take hundreds of ms in CI sandboxes.
    disableReverseLookup: true,
    // Real MTAs (Postfix, Exim) take the quoted local parts a reply to a legacy docomo/au address carries
    // (`"taro..yamada"@docomo.ne.jp`); smtp-server's strict default answers 501.
    lenientAddressParsing: true,
    // Pooled clients may keep a connection open; stop() should not wait 30 s for them.
    closeTimeout: 100,
    onConnect(_session, callback) {
      connectionCount += 1;
      callback();
    },
    onAuth(auth, _session, callback) {
      const user = auth.username ?? '';
      const accepted = options.oauth2
        ? auth.method === 'XOAUTH2' && options.oauth2.accepts(user, auth.accessToken ?? '')
        : checkAuth(auth.username ?? undefined, auth.password ?? undefined);
      logins.push({ method: auth.method, user, accepted });
      if (accepted) {
        callback(null, { user: auth.username });
        return;
      }
      if (options.oauth2) {
        callback(Object.assign(new Error('5.7.3 Authentication unsuccessful'), { responseCode: 535 }));
        return;
      }
      callback(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      handleData(stream, session).then(
        (message) => callback(null, message),
        (err: unknown) => {
          if (err === DROP_CONNECTION) {
            // No reply at all: the session's connection is closed under the client.
            for (const connection of server.connections as Set<{ session?: { id?: string }; close(): void }>) {
              if (connection.session?.id === session.id) connection.close();
            }
            return;
          }
          callback(err instanceof Error ? err : new Error(String(err)));
        },
      );
    },
  });

  const port = await new Promise<number>((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen(0, LOOPBACK, () => {
      server.off('error', onError);
      resolve((server.server.address() as AddressInfo).port);
    });
  });
  // A client resetting its socket must not crash the test worker.
  server.on('error', () => undefined);

  return {
    host: LOOPBACK,
    port,
    messages,
    attempts,
    logins,
    waitFor(count: number, timeoutMs = 5_000): Promise<ReceivedMessage[]> {
      if (messages.length >= count) return Promise.resolve(messages);
      return new Promise<ReceivedMessage[]>((resolve, reject) => {
        const wake = (): void => {
          if (messages.length < count) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(messages);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          const replies = attempts.map((a) => `#${a.attempt} ${a.reply.code}`).join(', ') || 'none';
          reject(new Error(`expected ${count} accepted message(s) within ${timeoutMs} ms, got ${messages.length} (attempts: ${replies})`));
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    get connectionCount() {
      return connectionCount;
    },
    closeConnections(): void {
      for (const connection of server.connections as Set<{ close(): void }>) connection.close();
    },
    respondWith(next: SmtpResponder | undefined): void {
      responder = next;
    },
    clear(): void {
      messages.length = 0;
      attempts.length = 0;
      attemptCounter = 0;
    },
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function defaultReplyText(code: number): string {
  if (code >= 200 && code < 300) return 'OK: queued';
  if (code >= 400 && code < 500) return 'Temporary failure, try again later';
  return 'Message rejected';
}
