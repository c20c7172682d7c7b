/**
 * Copies of sent replies in the support mailbox's Sent folder, so the team sees the whole conversation in any mail
 * client (IMAP_SENT_MAILBOX: a mailbox name, unset to find the mailbox flagged `\Sent`, `off` to disable).
 *
 * At most one copy per reply, and never at the cost of the reply itself:
 * - the sender keeps the bytes it handed to the SMTP server under {@link sentRawKey} once the server accepted them and
 *   before the ticket is `sent`, and queues a `copy-to-sent` job only after that; a send job run again (after a crash
 *   in between) that finds the ticket `sent`, no copy recorded and the bytes still kept queues the same job; the copy
 *   runs on its own queue and its failures never touch the send;
 * - before each APPEND the Sent folder is searched for the reply's Message-ID (among the messages that arrived since
 *   shortly before the send), so a copy job run again after an APPEND whose answer was lost (or after a crash before
 *   the ticket recorded it) finds the copy instead of adding another; a search the server refuses fails the attempt
 *   rather than appending blind.
 *
 * Key layout (P = QUEUE_PREFIX; no queue is named `sentraw`, so BullMQ's `P:<queue>:…` keys cannot collide):
 *
 * | key                    | type   | content                                                     |
 * |------------------------|--------|-------------------------------------------------------------|
 * | `P:sentraw:<ticketId>` | string | the reply as sent; expires after {@link SENT_RAW_TTL_S}       |
 */
import { ImapFlow } from 'imapflow';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { erasedTicketsKey } from '../tickets/erased.js';
import { LuaScript } from '../tickets/lua.js';
import { imapTransportSecurity } from './imap-security.js';
import { imapLoginSetting, mailTokenSource, type MailOAuth2Config } from './oauth2.js';

/** How long the bytes of a sent reply wait for their copy job; longer than all its retries take. */
export const SENT_RAW_TTL_S = 3 * 24 * 60 * 60;

/** The IMAP_SENT_MAILBOX value that turns the copies off. */
export const SENT_COPY_OFF = 'off';

/** The variables the copy needs (MAIL_AUTH and the token settings: password login when absent). */
export type SentCopyConfig = Pick<Config, 'IMAP_HOST' | 'IMAP_PORT' | 'IMAP_SECURE' | 'IMAP_ALLOW_PLAIN_LOGIN' | 'IMAP_USER' | 'IMAP_PASSWORD' | 'IMAP_SENT_MAILBOX'> &
  Partial<MailOAuth2Config>;

/**
 * Whether replies are copied, and where: `auto` finds the mailbox by its `\Sent` flag, `named` uses
 * IMAP_SENT_MAILBOX as given. `off` says why not (turned off, or no IMAP login to copy with).
 */
export type SentCopySetting = { mode: 'auto' } | { mode: 'named'; mailbox: string } | { mode: 'off'; why: string };

/** Reads IMAP_SENT_MAILBOX and the IMAP login into a {@link SentCopySetting}. */
export function sentCopySetting(config: SentCopyConfig): SentCopySetting {
  const value = config.IMAP_SENT_MAILBOX?.trim() ?? '';
  if (value.toLowerCase() === SENT_COPY_OFF) return { mode: 'off', why: `IMAP_SENT_MAILBOX=${SENT_COPY_OFF}` };
  const login = imapLoginSetting(config);
  if (!login.complete) return { mode: 'off', why: `${login.needed('or')} is not set` };
  return value ? { mode: 'named', mailbox: value } : { mode: 'auto' };
}

/** The Redis key holding the sent bytes of a ticket's reply until its copy is filed. */
export function sentRawKey(prefix: string, ticketId: string): string {
  if (!prefix) throw new TypeError('sentRawKey: prefix is required');
  if (!ticketId) throw new TypeError('sentRawKey: ticketId is required');
  return `${prefix}:sentraw:${ticketId}`;
}

// KEYS: the sent bytes' key, the set of tickets erased on request; ARGV: ticket id, bytes, seconds to keep them.
const SAVE_SENT_RAW = new LuaScript(
  `
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
`,
  2,
);

/**
 * Keeps the bytes of a sent reply for its copy job (replacing those of an earlier send of the same ticket), and returns
 * whether it did: not for a ticket erased on request (src/tickets/erased.ts) after its reply went out, since the
 * bytes quote the customer's mail and name them, and no copy is to be made of it then.
 */
export async function saveSentRaw(redis: Redis, prefix: string, ticketId: string, raw: Buffer): Promise<boolean> {
  return (await SAVE_SENT_RAW.run(redis, [sentRawKey(prefix, ticketId), erasedTicketsKey(prefix)], [ticketId, raw, SENT_RAW_TTL_S])) === 1;
}

/** The bytes of a ticket's sent reply, or `undefined` once filed or expired. */
export async function loadSentRaw(redis: Redis, prefix: string, ticketId: string): Promise<Buffer | undefined> {
  return (await redis.getBuffer(sentRawKey(prefix, ticketId))) ?? undefined;
}

/** Whether the bytes of a ticket's sent reply are still kept: not filed, erased or expired. */
export async function hasSentRaw(redis: Redis, prefix: string, ticketId: string): Promise<boolean> {
  return (await redis.exists(sentRawKey(prefix, ticketId))) === 1;
}

/** Forgets the bytes of a ticket's sent reply. Idempotent. */
export async function deleteSentRaw(redis: Redis, prefix: string, ticketId: string): Promise<void> {
  await redis.del(sentRawKey(prefix, ticketId));
}

/** Thrown when IMAP_SENT_MAILBOX is unset and no mailbox carries the `\Sent` flag: no retry can fix that. */
export class SentMailboxNotFoundError extends Error {
  constructor(readonly mailboxes: string[]) {
    super(`no mailbox is flagged \\Sent (mailboxes: ${mailboxes.join(', ') || 'none'}); set IMAP_SENT_MAILBOX to the Sent folder's name, or to ${SENT_COPY_OFF}`);
    this.name = 'SentMailboxNotFoundError';
  }
}

/**
 * The Sent folder of a mailbox: IMAP_SENT_MAILBOX when named, else the mailbox the server flags `\Sent` (RFC 6154).
 * A flag the server reports wins over one imapflow guessed from a folder name (`Sent Items`, `送信済み`).
 */
export async function resolveSentMailbox(client: ImapFlow, setting: Exclude<SentCopySetting, { mode: 'off' }>): Promise<string> {
  if (setting.mode === 'named') return setting.mailbox;
  const mailboxes = await client.list();
  const sent = mailboxes.filter((m) => m.specialUse === '\\Sent');
  const chosen = sent.find((m) => m.specialUseSource === 'extension') ?? sent[0];
  if (!chosen) throw new SentMailboxNotFoundError(mailboxes.map((m) => m.path));
  return chosen.path;
}

/** What {@link fileInSent} did. */
export interface FiledCopy {
  mailbox: string;
  /** False when a message with the reply's Message-ID was already there (an earlier attempt filed it). */
  appended: boolean;
}

/**
 * How far before the send the search for an earlier copy reaches back. A copy we filed carries the server's arrival
 * time (APPEND gives no date), so it is never older than the send; the margin covers SEARCH SINCE's whole days in the
 * server's time zone and a server clock that is off.
 */
export const SENT_SEARCH_MARGIN_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * Files `raw` in `mailbox` with `\Seen` unless a message with `messageId` is already there. Throws when the search
 * fails: appending without knowing could make a second copy.
 *
 * The search covers the messages that arrived since shortly before `sentAt` ({@link SENT_SEARCH_MARGIN_MS}): a Sent
 * folder keeps every reply ever sent, and a header search over all of them would cost the IMAP server more with
 * every copy, while an earlier copy of this reply can only have arrived after it was sent.
 */
export async function fileInSent(client: ImapFlow, mailbox: string, raw: Buffer, messageId: string, sentAt: Date): Promise<FiledCopy> {
  if (Number.isNaN(sentAt.getTime())) throw new TypeError('fileInSent: sentAt is not a date');
  // Selected read-write: imapflow only passes APPEND flags that the selected mailbox lets us set, and an EXAMINEd
  // mailbox permits none, so the copy would arrive unread.
  const lock = await client.getMailboxLock(mailbox);
  try {
    const since = new Date(sentAt.getTime() - SENT_SEARCH_MARGIN_MS);
    const found = await client.search({ header: { 'message-id': messageId }, since }, { uid: true });
    if (!Array.isArray(found)) throw new Error(`the search of ${mailbox} for ${messageId} failed`);
    if (found.length > 0) return { mailbox, appended: false };
    const appended = await client.append(mailbox, raw, ['\\Seen']);
    if (!appended) throw new Error(`the server refused to APPEND the reply to ${mailbox}`);
    return { mailbox, appended: true };
  } finally {
    lock.release();
  }
}

/** Timeouts of the copy's IMAP connection. */
export interface SentCopyImapTimeouts {
  connectionTimeoutMs: number;
  greetingTimeoutMs: number;
  socketTimeoutMs: number;
}

/** Production timeouts: as the poller's, so a server slow to greet is not taken for a dead one. */
export const SENT_COPY_IMAP_TIMEOUTS: SentCopyImapTimeouts = { connectionTimeoutMs: 30_000, greetingTimeoutMs: 16_000, socketTimeoutMs: 120_000 };

/**
 * Connects and logs in to the support mailbox for Sent-folder copies; the caller logs out. See
 * {@link SentFolderConnection} for how long a connection is kept. With MAIL_AUTH=oauth2 the token is fetched first
 * (rejects with `OAuth2TokenError` when the endpoint gives none), and a token the server refuses is dropped from the
 * cache, so the job's next attempt logs in with a new one.
 */
export async function connectForSentCopy(config: SentCopyConfig, timeouts: SentCopyImapTimeouts = SENT_COPY_IMAP_TIMEOUTS): Promise<ImapFlow> {
  const login = imapLoginSetting(config);
  if (!login.complete || !config.IMAP_HOST || !config.IMAP_USER) throw new TypeError(`connectForSentCopy: ${login.needed('and')} are required`);
  const tokens = mailTokenSource(config);
  const accessToken = await tokens?.getToken();
  const client = new ImapFlow({
    host: config.IMAP_HOST,
    port: config.IMAP_PORT,
    // A token is a credential as a password is: the same TLS rule.
    ...imapTransportSecurity(config),
    auth: accessToken === undefined ? { user: config.IMAP_USER, pass: config.IMAP_PASSWORD ?? '' } : { user: config.IMAP_USER, accessToken },
    logger: false,
    // No IDLE: the connection only carries our own commands and is closed after a short quiet spell.
    disableAutoIdle: true,
    connectionTimeout: timeouts.connectionTimeoutMs,
    greetingTimeout: timeouts.greetingTimeoutMs,
    socketTimeout: timeouts.socketTimeoutMs,
  });
  // Without a listener an 'error' event would crash the process; the failed command rejects on its own.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    // A refused login leaves the socket open until the server gives up on it; nobody else will close it.
    client.close();
    if (accessToken !== undefined && (err as { authenticationFailed?: boolean }).authenticationFailed) tokens?.invalidate(accessToken);
    throw err;
  }
  return client;
}

/** How long a Sent-folder connection stays open after its last copy. */
export const SENT_COPY_IDLE_MS = 10_000;

/** Options of {@link SentFolderConnection}. */
export interface SentFolderConnectionOptions {
  /** Quiet time after which the connection is logged out; default {@link SENT_COPY_IDLE_MS}. */
  idleMs?: number;
  timeouts?: SentCopyImapTimeouts;
}

/**
 * The sender's IMAP connection for Sent-folder copies, opened at the first copy and kept while copies keep coming:
 * a burst of replies costs one login, one LIST and one SELECT instead of one of each per reply (mail providers also
 * limit how often one account may log in). It is logged out after {@link SENT_COPY_IDLE_MS} without a copy, and
 * dropped after any error or when the server closes it, so the next copy connects afresh: no reconnection loop is
 * needed, a failed copy is retried by its job. Copies run one at a time on it.
 */
export class SentFolderConnection {
  private client: ImapFlow | undefined;
  private mailbox: string | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly idleMs: number;

  constructor(
    private readonly config: SentCopyConfig,
    private readonly setting: Exclude<SentCopySetting, { mode: 'off' }>,
    private readonly options: SentFolderConnectionOptions = {},
  ) {
    this.idleMs = options.idleMs ?? SENT_COPY_IDLE_MS;
  }

  /** Logins made so far. */
  logins = 0;

  /** Whether a logged-in connection is held now. */
  get open(): boolean {
    return this.client?.usable === true;
  }

  /** Runs `copy` with a logged-in client and the Sent folder's path, after any copy still running. */
  use<T>(copy: (client: ImapFlow, mailbox: string) => Promise<T>): Promise<T> {
    return this.enqueue(() => this.run(copy));
  }

  private enqueue<T>(step: () => Promise<T>): Promise<T> {
    const run = this.queue.then(step);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run<T>(copy: (client: ImapFlow, mailbox: string) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the Sent-folder connection is closed');
    clearTimeout(this.idleTimer);
    try {
      if (!this.client?.usable) {
        this.drop();
        this.client = await connectForSentCopy(this.config, this.options.timeouts);
        this.logins += 1;
      }
      this.mailbox ??= await resolveSentMailbox(this.client, this.setting);
      return await copy(this.client, this.mailbox);
    } catch (err) {
      // Whatever state the connection is in after an error, the retry starts from a fresh one.
      await this.logout();
      throw err;
    } finally {
      if (this.client && !this.closed) {
        this.idleTimer = setTimeout(() => void this.enqueue(() => this.logout()), this.idleMs);
        this.idleTimer.unref();
      }
    }
  }

  /** Logs out now; copies after this one connect again. */
  private async logout(): Promise<void> {
    const client = this.client;
    this.drop();
    if (client) await client.logout().catch(() => client.close());
  }

  private drop(): void {
    clearTimeout(this.idleTimer);
    this.client = undefined;
    this.mailbox = undefined;
  }

  /** Waits for a copy in progress, then logs out; later copies are refused. */
  async close(): Promise<void> {
    await this.queue;
    this.closed = true;
    await this.logout();
  }
}
