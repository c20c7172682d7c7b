/**
 * The IMAP side of the poller: one owner of the connection to the support mailbox, which notices new mail (IDLE
 * plus a safety poll), hands each mail to {@link ingestMessage}, and marks it done only once its job is in Redis.
 *
 * Reconnection: imapflow does not reconnect by itself, and a closed ImapFlow cannot be reused, so on `close` the
 * supervisor builds a new client after a capped exponential backoff and logs one line per attempt naming the server.
 *
 * Sync algorithm (per mailbox, state in Redis under {@link mailboxStateKey}):
 * - Normal run: fetch uid, size and envelope of `lastUid+1:*` and drop uids ≤ lastUid (IMAP answers `n:*` with the
 *   highest message even when its uid is below n). Every new message is taken, read or not, in uid order: a person
 *   opening a mail in their client before the poller got to it must not stop it from being answered.
 * - First run (no state) and UIDVALIDITY change (the server renumbered the mailbox, so stored uids mean nothing):
 *   only UNSEEN messages up to the current highest uid are taken, so years of read mail are not answered on the first
 *   start. A message the previous numbering already handled is \Seen (or moved away) and skipped; one that was
 *   ticketed but not yet marked gets the same ticket id from its Message-ID, so ticket dedupe and the deterministic
 *   job id keep it to one ticket and one job. The state is written only when the whole resync finished: an
 *   interrupted resync is simply run again, rather than leaving a lastUid below read mail that would then be taken.
 * - First run only: an unseen message the server received (INTERNALDATE) more than FIRST_START_ANSWER_HOURS before
 *   the sync is ingested as any other but held ({@link firstStartHoldReason}, recorded as the ticket's `heldReason`):
 *   the agent worker's checks before the agent run on it as on any day, so the auto-replies, bounces and list mail an
 *   unread backlog is mostly made of end ignored, not parked for a person to clear; whatever they would hand to the
 *   agent is parked for a person instead, so an existing mailbox's months of unread mail get no late automatic
 *   replies, and none of it is lost.
 *   After a UIDVALIDITY change unseen mail is what arrived while the poller was away, and is answered.
 * - A message larger than MAX_EMAIL_BYTES is not downloaded; it becomes a parked ticket from its envelope.
 * - New messages are downloaded in batches ({@link downloadBatches}: one FETCH for up to 50 messages or 16 MB) and
 *   marked in one STORE per batch, so a busy mailbox costs two IMAP round trips per batch rather than per message.
 * - A message is marked \Seen (and moved to IMAP_PROCESSED_MAILBOX when set) and lastUid advanced only after its
 *   ticket and job are safely in Redis. When Redis fails the sync stops there: nothing further is marked, lastUid
 *   stays, and the next trigger (IDLE, the safety poll, Redis becoming ready again) retries, so nothing is lost and
 *   the dedupe above keeps it from being answered twice.
 * - A message that fails to ingest for another reason (Redis answering with an error, a bug) is retried on the next
 *   syncs and parked from its envelope after a few failures, so one bad message neither blocks the mailbox nor is lost.
 * - A refused IMAP command (e.g. the mailbox was deleted and recreated under the session) ends the session; the new
 *   session re-selects the mailbox and sees the new UIDVALIDITY.
 *
 * Syncs are serialised and coalesced: a trigger during a sync causes exactly one more sync after it.
 *
 * Key layout (P = QUEUE_PREFIX; no queue is named `imap`):
 *
 * | key                              | type | fields                                                            |
 * |----------------------------------|------|-------------------------------------------------------------------|
 * | `P:imap:<user>@<host>/<mailbox>` | hash | `uidValidity`, `lastUid`, `lastSuccessfulPollAt` (epoch ms),       |
 * |                                  |      | `lastFailure` (one line), `lastFailureAt` (epoch ms)               |
 *
 * Both times are Redis's clock (`TIME`), not the poller's: the dashboard that judges them may run on a machine whose
 * clock differs (see `readPollerStatus`).
 *
 * `lastFailure` is what the poller last logged as failing (no login, a refused STARTTLS, a lost connection, a failed
 * sync), so `/readyz` can say why the mailbox is not being read without anyone opening the poller's log.
 */
import { createHash } from 'node:crypto';
import { ImapFlow, type FetchMessageObject } from 'imapflow';
import type { Redis } from 'ioredis';
import { requireVariables, type Config, type VariableName } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import {
  checkEvictionPolicy,
  connectProducer,
  describeConnection,
  describeRedis,
  describeRedisFailure,
  isConnectionError,
  produce,
  reconnectDelay,
  RedisUnavailableError,
} from '../queues/connection.js';
import type { JobTuning } from '../queues/job-options.js';
import { closeAll, createQueues, type Queues } from '../queues/registry.js';
import { describeReplacedDeskSettings, recordDeskSettings } from './desk-settings.js';
import type { RoleHandle } from './lifecycle.js';
import { TicketStore } from '../tickets/ticket-store.js';
import {
  HELD_AT_FIRST_START,
  ingestMessage,
  parkFromEnvelope,
  parkOversizeMessage,
  syntheticMessageId,
  type EnvelopeInfo,
  type IngestDeps,
  type IngestResult,
} from '../mail/ingest.js';
import type { RawMailBudgetVariable } from '../mail/ingest.js';
import { deskTimeZone, localTime } from '../tickets/local-day.js';
import { imapTransportSecurity, isStartTlsRefusal, STARTTLS_REFUSAL_HINT } from '../mail/imap-security.js';
import { mailServerProblem } from '../mail/connection-problem.js';
import { imapLoginSetting, mailTokenSource, OAuth2TokenError, usesOAuth2, type MailOAuth2Config, type OAuth2TokenSource } from '../mail/oauth2.js';
import { checkClockSkewOnce, clockOffsetMs, failureLine, onLocalClock, redisTimeMs } from './role-status.js';

/**
 * Variables the poller cannot run without; pass to `requireVariables`. With MAIL_AUTH=oauth2 the configuration check
 * asks for the token settings in place of IMAP_PASSWORD.
 */
export const POLLER_VARIABLES: VariableName[] = ['IMAP_HOST', 'IMAP_USER', 'IMAP_PASSWORD'];

/** The configuration the supervisor reads. */
export type PollerConfig = Pick<
  Config,
  | 'IMAP_HOST'
  | 'SPAM_HEADER'
  | 'SPAM_HEADER_VALUE'
  | 'MAIL_FROM'
  | 'SUPPORT_ADDRESSES'
  | 'SUPPORT_GROUP_ADDRESSES'
  | 'AUTHSERV_ID'
  | 'IMAP_PORT'
  | 'IMAP_SECURE'
  | 'IMAP_ALLOW_PLAIN_LOGIN'
  | 'IMAP_USER'
  | 'IMAP_PASSWORD'
  | 'IMAP_MAILBOX'
  | 'IMAP_POLL_INTERVAL_MS'
  | 'IMAP_PROCESSED_MAILBOX'
  | 'MAX_EMAIL_BYTES'
  | 'FIRST_START_ANSWER_HOURS'
  | 'AGENT_ATTEMPTS'
  | 'QUEUE_PREFIX'
  | RawMailBudgetVariable
> &
  Partial<MailOAuth2Config>;

/** Reconnection backoff of the IMAP connection. */
export interface ReconnectPolicy {
  /** Delay after the first failure; doubles per further failure. */
  initialDelayMs: number;
  /** Cap of the delay. */
  maxDelayMs: number;
  /** A connection that stayed up this long counts as good: the next failure starts again at the initial delay. */
  stableAfterMs: number;
}

/** Production backoff: 1 s doubling to 60 s, reset after a minute of good connection. */
export const DEFAULT_RECONNECT: ReconnectPolicy = { initialDelayMs: 1_000, maxDelayMs: 60_000, stableAfterMs: 60_000 };

/**
 * Idle time before imapflow starts IDLE after our last command. Short, because new mail is only pushed while IDLE
 * runs: with 1 s, a mail arriving just after a sync waited a second for its notice (the benchmark's lone mails, each
 * sent when the previous reply arrived, measured 970 ms of their 1,015). A sync's commands follow each other within
 * milliseconds; a pause longer than this between two of them costs one IDLE/DONE round trip, nothing more.
 */
const AUTO_IDLE_DELAY_MS = 50;
/** A message that fails to ingest for a reason other than Redis being down is parked after this many tries. */
const MAX_INGEST_FAILURES = 3;

/** Options of {@link MailboxSupervisor}. */
export interface MailboxSupervisorOptions {
  config: PollerConfig;
  /** Producer connection (fail-fast), shared with the queue and the store. */
  redis: Redis;
  store: TicketStore;
  ticketsQueue: Queues['tickets'];
  logger?: Logger;
  reconnect?: Partial<ReconnectPolicy>;
  /** Job backoff tuning, for tests. */
  tuning?: JobTuning;
}

/** What one sync did. */
export interface SyncReport {
  /** When the sync started: the moment the poller noticed the mail it fetches (ISO 8601, on each ticket). */
  startedAt: string;
  /** `incremental` from lastUid, `resync` over UNSEEN mail, `skipped` when not connected or stopping. */
  mode: 'incremental' | 'resync' | 'skipped';
  /** Messages considered. */
  considered: number;
  queued: number;
  parked: number;
  /**
   * Unseen mail the first start held for a person ({@link firstStartHoldReason}), counted in `queued`: the agent worker
   * parks it unless its checks ignore it. Not mail parked for its size or as unreadable, which would have been parked
   * whenever it came.
   */
  held: number;
  duplicates: number;
  /** Messages that disappeared (expunged elsewhere) between listing and download. */
  gone: number;
  /** Why the sync stopped early; absent when it completed. */
  error?: string;
}

/** Identifies the watched mailbox. */
export interface MailboxIdentity {
  user: string;
  host: string;
  mailbox: string;
}

/** The Redis hash holding the sync state of one mailbox (see the key layout above). */
export function mailboxStateKey(prefix: string, id: MailboxIdentity): string {
  return `${prefix}:imap:${id.user}@${id.host}/${id.mailbox}`;
}

/** Stored sync state of a mailbox. */
export interface MailboxState {
  uidValidity?: string;
  lastUid?: number;
  lastSuccessfulPollAt?: Date;
  /** What last failed (a connection or a sync), and when; kept after later successes, compare the times. */
  lastFailure?: PollFailure;
}

/** A failure of the poller as it logged it. */
export interface PollFailure {
  at: Date;
  /** The one-line description the poller logged, e.g. "IMAP login as … failed (wrong IMAP_USER or IMAP_PASSWORD?)". */
  message: string;
}

/** Reads the stored sync state of a mailbox (empty object when the poller never ran against it). */
export async function readMailboxState(redis: Redis, key: string): Promise<MailboxState> {
  const hash = await redis.hgetall(key);
  const state: MailboxState = {};
  if (hash.uidValidity) state.uidValidity = hash.uidValidity;
  if (hash.lastUid !== undefined && /^\d+$/.test(hash.lastUid)) state.lastUid = Number(hash.lastUid);
  if (hash.lastSuccessfulPollAt !== undefined && /^\d+$/.test(hash.lastSuccessfulPollAt)) {
    state.lastSuccessfulPollAt = new Date(Number(hash.lastSuccessfulPollAt));
  }
  if (hash.lastFailure && hash.lastFailureAt !== undefined && /^\d+$/.test(hash.lastFailureAt)) {
    state.lastFailure = { at: new Date(Number(hash.lastFailureAt)), message: hash.lastFailure };
  }
  return state;
}

/** What the poller last recorded about the configured mailbox, for `/readyz`. */
export type PollerStatus = Pick<MailboxState, 'lastSuccessfulPollAt' | 'lastFailure'>;

/**
 * When the poller last completed a sync of the configured mailbox and what last failed, from Redis; empty when the
 * poller never ran against it. For health checks (`/readyz`) on any process sharing the Redis. The poller stamps
 * both with Redis's clock; they are returned on this process's clock, so ages computed here hold even when this
 * machine's clock or the poller's is off.
 */
export async function readPollerStatus(
  redis: Redis,
  config: Pick<Config, 'QUEUE_PREFIX' | 'IMAP_USER' | 'IMAP_HOST' | 'IMAP_MAILBOX'>,
): Promise<PollerStatus> {
  if (!config.IMAP_USER || !config.IMAP_HOST) return {};
  const key = mailboxStateKey(config.QUEUE_PREFIX, { user: config.IMAP_USER, host: config.IMAP_HOST, mailbox: config.IMAP_MAILBOX });
  const [offset, { lastSuccessfulPollAt, lastFailure }] = await Promise.all([clockOffsetMs(redis), readMailboxState(redis, key)]);
  return {
    ...(lastSuccessfulPollAt ? { lastSuccessfulPollAt: onLocalClock(lastSuccessfulPollAt.getTime(), offset) } : {}),
    ...(lastFailure ? { lastFailure: { ...lastFailure, at: onLocalClock(lastFailure.at.getTime(), offset) } } : {}),
  };
}

/** Thrown inside a sync when the IMAP connection cannot carry on (closed, mailbox deselected, a command refused). */
class ImapStepError extends Error {
  override readonly name = 'ImapStepError';
}

/** A sync stopped because Redis could not be written; nothing after it was marked. */
class RedisStepError extends Error {
  override readonly name = 'RedisStepError';
}

const METADATA = { uid: true, size: true, envelope: true } as const;
/** A resync also reads when the server received each message: the first start holds old mail by it. */
const RESYNC_METADATA = { ...METADATA, internalDate: true } as const;

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** `1 minute`, `24 hours`, `3 days`, `4 months`, `2 years`: how long before the first start a mail arrived. */
function ageInWords(ms: number): string {
  const unit = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (ms < HOUR_MS) return unit(Math.max(1, Math.floor(ms / 60_000)), 'minute');
  if (ms < 2 * DAY_MS) return unit(Math.floor(ms / HOUR_MS), 'hour');
  if (ms < 60 * DAY_MS) return unit(Math.floor(ms / DAY_MS), 'day');
  if (ms < 730 * DAY_MS) return unit(Math.round(ms / (30.44 * DAY_MS)), 'month');
  return unit(Math.floor(ms / (365.25 * DAY_MS)), 'year');
}


/**
 * Why the poller's first start holds an unseen mail for a person instead of answering it, or undefined to answer it:
 * the mail server received it (its IMAP INTERNALDATE, `receivedAt`) more than `answerHours` (FIRST_START_ANSWER_HOURS)
 * before `firstStartAt`. A reply months late does the customer no good and may do harm; a person decides. A mail
 * whose arrival the server does not say is held too: its age is unknown. A "first start" is any sync without sync
 * state for the mailbox, so also one after Redis lost it (a flush, a new QUEUE_PREFIX), when old unseen mail may be
 * an outage's: the reason ({@link HELD_AT_FIRST_START}) says either may be the case. The arrival is written in
 * `timeZone` (the poller passes the desk's, `TZ`, the zone the dashboard shows the ticket's own times in).
 */
export function firstStartHoldReason(receivedAt: Date | string | undefined, firstStartAt: Date, answerHours: number, timeZone = 'UTC'): string | undefined {
  const decides = 'a person decides whether it still needs an answer';
  const at = receivedAt === undefined ? undefined : new Date(receivedAt);
  if (!at || Number.isNaN(at.getTime())) return `${HELD_AT_FIRST_START}the server gave no arrival time for it, so it may be months old: ${decides}`;
  const age = firstStartAt.getTime() - at.getTime();
  if (age <= answerHours * HOUR_MS && answerHours > 0) return undefined;
  return `${HELD_AT_FIRST_START}it arrived ${ageInWords(age)} earlier, on ${localTime(at, timeZone)} (FIRST_START_ANSWER_HOURS=${answerHours}): ${decides}`;
}

/** Most messages downloaded by one FETCH. */
export const DOWNLOAD_BATCH_MESSAGES = 50;
/** Most bytes (by the sizes the server reported) downloaded by one FETCH; a larger single message goes alone. */
export const DOWNLOAD_BATCH_BYTES = 16 * 1024 * 1024;

/**
 * Splits messages (in uid order) into the batches the poller downloads with one FETCH and marks with one STORE:
 * two IMAP round trips per batch instead of per message, with the mail held in memory bounded by
 * {@link DOWNLOAD_BATCH_BYTES} (or one message of at most MAX_EMAIL_BYTES). Messages over `maxEmailBytes` are not
 * downloaded and count nothing.
 */
export function downloadBatches<M extends { size?: number }>(messages: readonly M[], maxEmailBytes: number): M[][] {
  const batches: M[][] = [];
  let current: M[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = (message.size ?? 0) <= maxEmailBytes ? (message.size ?? 0) : 0;
    if (current.length > 0 && (current.length >= DOWNLOAD_BATCH_MESSAGES || bytes + size > DOWNLOAD_BATCH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** How far a connection attempt got: decides what its failure is called in the log. */
/** How far an IMAP session got: connecting and logging in, opening the mailbox, or watching it. */
export type ConnectPhase = 'connect' | 'open' | 'selected';

/**
 * One line saying what failed where in an IMAP session, without a stack trace: the operator's cue to check the
 * server or the configuration (the poller's log and `/readyz`, and `npm run check`). A certificate this machine does
 * not trust, or TLS from the start on a port that does not speak it, is said as `npm run check` says it
 * ({@link mailServerProblem}); IMAP_SECURE absent is its default, TLS from the start.
 */
export function describeImapFailure(
  config: Pick<Config, 'IMAP_HOST' | 'IMAP_PORT' | 'IMAP_USER' | 'IMAP_MAILBOX'> & Partial<Pick<Config, 'MAIL_AUTH' | 'IMAP_SECURE'>>,
  phase: ConnectPhase,
  err: Error | undefined,
  byeReason?: string,
): string {
  const where = `${config.IMAP_HOST}:${config.IMAP_PORT}`;
  const e = err as (Error & { code?: string; authenticationFailed?: boolean; responseText?: string }) | undefined;
  // The token endpoint's own message names it and what it said.
  if (e instanceof OAuth2TokenError) return `IMAP login as ${config.IMAP_USER} to ${where} not tried: ${e.message}`;
  if (e?.authenticationFailed && usesOAuth2(config)) {
    return `IMAP login as ${config.IMAP_USER} to ${where} with an OAuth2 token refused (${oneLineText(e.responseText ?? e.message)}): is IMAP_USER the mailbox, and may the application open it? The next login fetches a new token`;
  }
  if (e?.authenticationFailed) return `IMAP login as ${config.IMAP_USER} to ${where} failed (wrong IMAP_USER or IMAP_PASSWORD?)`;
  if (usesOAuth2(config) && e?.message === 'Unsupported authentication mechanism') {
    return `IMAP server ${where} offers no OAuth2 login (AUTH=XOAUTH2 or AUTH=OAUTHBEARER); use MAIL_AUTH=password with it`;
  }
  // Before the STARTTLS refusal: imapflow marks a certificate that failed in the upgrade `tlsFailed` too.
  const known = mailServerProblem(e, {
    protocol: 'IMAP',
    host: config.IMAP_HOST ?? '',
    port: config.IMAP_PORT,
    secure: config.IMAP_SECURE ?? true,
    user: config.IMAP_USER,
    oauth2: usesOAuth2(config),
  });
  if (known) return known;
  if (isStartTlsRefusal(e)) return `IMAP server ${where} ${STARTTLS_REFUSAL_HINT}`;
  if (e?.code === 'STARTTLS_INJECTION') {
    return `IMAP server ${where}: data came before the TLS handshake of STARTTLS (STARTTLS_INJECTION), as when someone between us and the server tampers with the connection; nothing was sent in clear: check the network path, or use TLS from the start (IMAP_SECURE=true, usually IMAP_PORT=993)`;
  }
  // OpenSSL's messages span lines ("…wrong version number:\n…"); a log line and /readyz want one.
  const text = (e ? (e.responseText ?? e.message) : byeReason ? `server said BYE: ${byeReason}` : 'connection closed').replace(/\s+/g, ' ').trim();
  const why = e?.code && !text.includes(e.code) ? `${e.code}: ${text}` : text;
  if (phase === 'connect') return `IMAP server ${where} unreachable (${why})`;
  if (phase === 'open') return `IMAP mailbox ${config.IMAP_MAILBOX} on ${where} cannot be opened (${why})`;
  return `IMAP connection to ${where} lost (${why})`;
}

function oneLineText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The one owner of the IMAP connection to the support mailbox; see the module comment. */
export class MailboxSupervisor {
  private readonly config: PollerConfig;
  private readonly log: Logger;
  private readonly deps: IngestDeps;
  private readonly policy: ReconnectPolicy;
  private readonly where: string;
  private readonly stateKey: string;
  private readonly redis: Redis;
  /** With MAIL_AUTH=oauth2: where each login's token comes from. */
  private readonly tokens: OAuth2TokenSource | undefined;

  private client: ImapFlow | undefined;
  private selected = false;
  private running: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private wakeSleeper: (() => void) | undefined;
  private syncLoop: Promise<SyncReport> | undefined;
  private syncPending = false;
  private redisDown = false;
  private readonly ingestFailures = new Map<string, number>();
  private readonly onRedisReady = (): void => {
    void this.trigger('redis-ready');
  };

  constructor(options: MailboxSupervisorOptions) {
    const { config } = options;
    const login = imapLoginSetting(config);
    if (!login.complete || !config.IMAP_HOST || !config.IMAP_USER) throw new TypeError(`MailboxSupervisor: ${login.needed('and')} are required`);
    this.config = config;
    this.tokens = mailTokenSource(config);
    this.redis = options.redis;
    this.where = `${config.IMAP_HOST}:${config.IMAP_PORT}`;
    this.log = (options.logger ?? createLogger('imap')).child({ imap: this.where, mailbox: config.IMAP_MAILBOX });
    this.policy = { ...DEFAULT_RECONNECT, ...options.reconnect };
    this.stateKey = mailboxStateKey(config.QUEUE_PREFIX, { user: config.IMAP_USER, host: config.IMAP_HOST, mailbox: config.IMAP_MAILBOX });
    this.deps = {
      redis: options.redis,
      store: options.store,
      ticketsQueue: options.ticketsQueue,
      prefix: config.QUEUE_PREFIX,
      config,
      logger: this.log,
      ...(options.tuning ? { tuning: options.tuning } : {}),
    };
  }

  /** True while a client is logged in with the mailbox selected. */
  get connected(): boolean {
    return this.selected && this.client?.usable === true;
  }

  /** The Redis hash of this mailbox's sync state. */
  get stateRedisKey(): string {
    return this.stateKey;
  }

  /** Starts connecting (in the background, retrying forever) and the safety poll. Idempotent. */
  start(): void {
    if (this.running || this.stopping) return;
    this.running = this.connectionLoop();
    this.pollTimer = setInterval(() => void this.trigger('poll'), this.config.IMAP_POLL_INTERVAL_MS);
    this.redis.on('ready', this.onRedisReady);
  }

  /**
   * Runs a sync now (or, when one is running, exactly one more after it) and resolves with the report of the last
   * sync. Never rejects: problems are in `report.error`.
   */
  syncNow(): Promise<SyncReport> {
    return this.trigger('manual');
  }

  /** Stops polling, lets a running sync finish its current message, leaves IDLE and logs out. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.pollTimer) clearInterval(this.pollTimer);
      this.redis.off('ready', this.onRedisReady);
      this.wakeSleeper?.();
      await this.syncLoop?.catch(() => undefined);
      const client = this.client;
      if (client && client.usable) {
        // LOGOUT ends IDLE first (imapflow sends DONE); close() covers a server that does not answer.
        await client.logout().catch(() => client.close());
      } else {
        client?.close();
      }
      await this.running;
      this.log.info('IMAP poller stopped');
    })();
    return this.stopping;
  }

  private trigger(reason: string): Promise<SyncReport> {
    if (this.syncLoop) {
      this.syncPending = true;
      return this.syncLoop;
    }
    const loop = (async (): Promise<SyncReport> => {
      let report: SyncReport;
      do {
        this.syncPending = false;
        report = await this.syncOnce(reason);
      } while (this.syncPending && !this.stopping);
      return report;
    })();
    this.syncLoop = loop;
    // No await between the loop's last check of syncPending and this reset, so no trigger can fall in between.
    void loop.finally(() => {
      if (this.syncLoop === loop) this.syncLoop = undefined;
    });
    return loop;
  }

  /** `accessToken`: the login's OAuth2 token (MAIL_AUTH=oauth2), fetched just before, so every reconnect has a good one. */
  private createClient(accessToken: string | undefined): ImapFlow {
    const c = this.config;
    const user = c.IMAP_USER as string;
    return new ImapFlow({
      host: c.IMAP_HOST as string,
      port: c.IMAP_PORT,
      // The same TLS rule for a token as for a password: it is a credential too.
      ...imapTransportSecurity(c),
      auth: accessToken === undefined ? { user, pass: c.IMAP_PASSWORD as string } : { user, accessToken },
      // Our own log lines name the server once per event; imapflow's per-command logging would drown them.
      logger: false,
      autoIdleDelay: AUTO_IDLE_DELAY_MS,
      connectionTimeout: 30_000,
      greetingTimeout: 16_000,
    });
  }

  private async connectionLoop(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      let accessToken: string | undefined;
      let tokenError: Error | undefined;
      try {
        // A stop does not wait for a slow token endpoint: the request may take its whole timeout.
        accessToken = this.tokens ? await this.untilStopped(this.tokens.getToken()) : undefined;
      } catch (err) {
        tokenError = err instanceof Error ? err : new Error(String(err));
      }
      if (this.stopping) break;
      if (tokenError) {
        // No session to open without a token: wait as after a failed login, then ask the endpoint again.
        failures += 1;
        const delay = Math.min(this.policy.initialDelayMs * 2 ** (failures - 1), this.policy.maxDelayMs);
        const failure = describeImapFailure(this.config, 'connect', tokenError);
        this.log.warn({ attempt: failures, delayMs: delay }, `${failure}; retrying in ${formatDelay(delay)}`);
        await this.recordFailure(failure);
        await this.sleep(delay);
        continue;
      }
      const client = this.createClient(accessToken);
      this.client = client;
      let lastError: Error | undefined;
      const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      // Without a listener an 'error' event would crash the process; the close that follows is what we act on.
      client.on('error', (err: Error) => {
        lastError = err;
      });
      client.on('exists', (event: { count: number; prevCount: number }) => {
        if (event.count > event.prevCount) void this.trigger('idle');
      });
      let connectedAt: number | undefined;
      let phase: ConnectPhase = 'connect';
      try {
        await client.connect();
        phase = 'open';
        const processed = this.config.IMAP_PROCESSED_MAILBOX;
        if (processed) await client.mailboxCreate(processed);
        await client.mailboxOpen(this.config.IMAP_MAILBOX);
        phase = 'selected';
        connectedAt = Date.now();
        this.selected = true;
        this.log.info(`IMAP connected to ${this.where}, watching ${this.config.IMAP_MAILBOX}`);
        void this.trigger('connect');
        await closed;
      } catch (err) {
        lastError = err instanceof Error ? err : new Error(String(err));
        client.close();
        // A refused token (revoked, or expired early) must not be presented again until it expires.
        if (accessToken !== undefined && (lastError as { authenticationFailed?: boolean }).authenticationFailed) this.tokens?.invalidate(accessToken);
      } finally {
        this.selected = false;
      }
      if (this.stopping) break;

      if (connectedAt !== undefined && Date.now() - connectedAt >= this.policy.stableAfterMs) failures = 0;
      failures += 1;
      const delay = Math.min(this.policy.initialDelayMs * 2 ** (failures - 1), this.policy.maxDelayMs);
      const failure = this.describeFailure(phase, lastError, client);
      this.log.warn({ attempt: failures, delayMs: delay }, `${failure}; retrying in ${formatDelay(delay)}`);
      await this.recordFailure(failure);
      await this.sleep(delay);
    }
    this.client = undefined;
  }

  /**
   * Keeps `failure` in the mailbox's state for `/readyz`. Best effort: with Redis down it is lost, and the log line
   * already said it.
   */
  private async recordFailure(failure: string): Promise<void> {
    try {
      // Redis's clock, as the poll's: /readyz compares the two, and compares them with its own clock.
      await produce(this.redis, async () => this.redis.hset(this.stateKey, 'lastFailure', failureLine(failure), 'lastFailureAt', String(await redisTimeMs(this.redis))));
    } catch (err) {
      this.log.debug({ err }, 'Could not record the failure in Redis');
    }
  }

  /** One line saying what failed where, without a stack trace: the operator's cue to check the server or the config. */
  private describeFailure(phase: ConnectPhase, err: Error | undefined, client: ImapFlow): string {
    return describeImapFailure(this.config, phase, err, client.byeReason);
  }

  /** `work`'s result, or undefined as soon as {@link stop} wakes the loop (`work` goes on, unobserved). */
  private async untilStopped<T>(work: Promise<T>): Promise<T | undefined> {
    const stopped = new Promise<undefined>((resolve) => {
      this.wakeSleeper = () => {
        this.wakeSleeper = undefined;
        resolve(undefined);
      };
    });
    try {
      return await Promise.race([work, stopped]);
    } finally {
      this.wakeSleeper = undefined;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done(): void {
        clearTimeout(timer);
        self.wakeSleeper = undefined;
        resolve();
      }
      this.wakeSleeper = done;
    });
  }

  private selectedClient(): ImapFlow {
    const client = this.client;
    if (!client || !this.selected || !client.usable || !client.mailbox || client.mailbox.path !== this.config.IMAP_MAILBOX) {
      throw new ImapStepError('IMAP connection is not ready');
    }
    return client;
  }

  private async syncOnce(reason: string): Promise<SyncReport> {
    const report: SyncReport = { startedAt: new Date().toISOString(), mode: 'skipped', considered: 0, queued: 0, parked: 0, held: 0, duplicates: 0, gone: 0 };
    if (this.stopping || !this.connected) return report;
    try {
      await this.sync(report);
      // Redis's clock, not this machine's: a dashboard elsewhere decides from it whether the mailbox is being read.
      await produce(this.redis, async () => this.redis.hset(this.stateKey, 'lastSuccessfulPollAt', String(await redisTimeMs(this.redis))));
      if (this.redisDown) this.log.info(`Redis reachable again at ${describeConnection(this.redis)}; mail is being queued`);
      this.redisDown = false;
      const busy = report.considered > 0;
      this.log[busy ? 'info' : 'debug']({ reason, ...report }, busy ? 'Mailbox synced' : 'Mailbox checked; no new mail');
    } catch (err) {
      report.error = err instanceof Error ? err.message : String(err);
      if (err instanceof RedisStepError || isConnectionError(err)) {
        // One warning per outage; the retries until Redis is back stay at debug.
        this.log[this.redisDown ? 'debug' : 'warn'](
          { reason },
          `Redis unavailable at ${describeConnection(this.redis)}; new mail stays unseen in ${this.config.IMAP_MAILBOX} and is retried when Redis is back`,
        );
        this.redisDown = true;
      } else if (err instanceof ImapStepError || !this.connected) {
        // A refused command can leave the session in an unknown state (e.g. the mailbox was deleted under it); a
        // fresh session re-selects the mailbox and re-reads UIDVALIDITY.
        const client = this.client;
        if (client?.usable) {
          this.log.warn({ reason }, `IMAP command failed on ${this.where} (${report.error}); opening a new session`);
          await this.recordFailure(`IMAP command failed on ${this.where} (${report.error})`);
          client.close();
        } else {
          this.log.debug({ reason, err: report.error }, 'Sync interrupted by the IMAP connection; it resumes after reconnecting');
        }
      } else {
        this.log.error({ reason, err }, 'Sync failed; it is retried on the next trigger');
        await this.recordFailure(`Sync failed: ${report.error}`);
      }
    }
    return report;
  }

  private async sync(report: SyncReport): Promise<void> {
    const client = this.selectedClient();
    // The message count and UIDVALIDITY imapflow holds are only as fresh as the last server response; a NOOP
    // collects what the server has to report (new mail delivered while no command ran) before we rely on them.
    await imap(() => client.noop());
    const box = this.selectedClient().mailbox;
    if (!box) throw new ImapStepError('no mailbox selected');
    const uidValidity = String(box.uidValidity);
    const state = await produce(this.redis, () => readMailboxState(this.redis, this.stateKey));
    const resync = state.uidValidity !== uidValidity || state.lastUid === undefined;

    if (!resync) {
      report.mode = 'incremental';
      const lastUid = state.lastUid ?? 0;
      // The count is fresh after the NOOP; an empty mailbox is not asked for `n:*`, which some servers refuse.
      const messages = box.exists > 0 ? await imap(() => client.fetchAll(`${lastUid + 1}:*`, METADATA, { uid: true })) : [];
      this.selectedClient();
      const fresh = messages.filter((m) => m.uid > lastUid).sort((a, b) => a.uid - b.uid);
      report.considered = fresh.length;
      for (const batch of downloadBatches(fresh, this.config.MAX_EMAIL_BYTES)) {
        if (this.stopping) return;
        const last = await this.processBatch(batch, uidValidity, report);
        if (last !== undefined) {
          await produce(this.redis, () => this.redis.hset(this.stateKey, 'uidValidity', uidValidity, 'lastUid', String(last)));
        }
        if (last !== batch.at(-1)?.uid) return;
      }
      return;
    }

    report.mode = 'resync';
    this.log.info(
      { storedUidValidity: state.uidValidity ?? null, uidValidity },
      state.uidValidity === undefined
        ? `No sync state for this mailbox yet: taking its UNSEEN mail, mail received more than ${this.config.FIRST_START_ANSWER_HOURS} h earlier (FIRST_START_ANSWER_HOURS) is held for a person`
        : 'UIDVALIDITY changed: resynchronising over UNSEEN mail (tickets dedupe what was already queued)',
    );
    const last = await imap(() => client.fetchOne('*', { uid: true }));
    const ceiling = last ? last.uid : 0;
    let unseen: number[] = [];
    if (ceiling > 0) {
      const found = await imap(() => client.search({ seen: false }, { uid: true }));
      if (!Array.isArray(found)) throw new ImapStepError('SEARCH UNSEEN failed');
      unseen = found.filter((uid) => uid <= ceiling);
    }
    const messages = unseen.length > 0 ? await imap(() => client.fetchAll(unseen, RESYNC_METADATA, { uid: true })) : [];
    this.selectedClient();
    const wanted = messages.filter((m) => m.uid <= ceiling).sort((a, b) => a.uid - b.uid);
    report.considered = wanted.length;
    const firstStart = state.uidValidity === undefined;
    const holds = firstStart ? this.firstStartHolds(wanted, new Date(report.startedAt)) : new Map<number, string>();
    for (const batch of downloadBatches(wanted, this.config.MAX_EMAIL_BYTES)) {
      if (this.stopping) return;
      if ((await this.processBatch(batch, uidValidity, report, holds)) !== batch.at(-1)?.uid) return;
    }
    await produce(this.redis, () => this.redis.hset(this.stateKey, 'uidValidity', uidValidity, 'lastUid', String(ceiling)));
    if (firstStart) {
      const hours = this.config.FIRST_START_ANSWER_HOURS;
      this.log.info(
        { held: report.held, considered: report.considered, firstStartAnswerHours: hours },
        `First start on ${this.config.IMAP_MAILBOX}: held ${report.held} of ${report.considered} unseen mails for a person (${hours > 0 ? `received more than ${hours} h before the start` : 'FIRST_START_ANSWER_HOURS=0'}) unless the checks ignore them: old automatic replies, bounces and list mail end ignored as on any day, the rest is parked, not answered; see the review page or npm run review -- list`,
      );
    }
  }

  /**
   * Where a person finds a message in the mailbox once it is processed, for a ticket whose raw copy was not kept:
   * `INBOX/4711`, or the processed mailbox it is moved to (where it gets a new UID).
   */
  private placeOf(uid: number): string {
    const { IMAP_MAILBOX: mailbox, IMAP_PROCESSED_MAILBOX: processed } = this.config;
    return processed ? `${processed} (moved there from ${mailbox}, where its UID was ${uid})` : `${mailbox}/${uid}`;
  }

  /** The first start's hold reason of each unseen message received too long ago, by uid. */
  private firstStartHolds(messages: readonly FetchMessageObject[], firstStartAt: Date): Map<number, string> {
    const holds = new Map<number, string>();
    for (const message of messages) {
      const reason = firstStartHoldReason(message.internalDate, firstStartAt, this.config.FIRST_START_ANSWER_HOURS, deskTimeZone());
      if (reason !== undefined) holds.set(message.uid, reason);
    }
    return holds;
  }

  /**
   * Downloads the sources of a batch in one FETCH, ingests (or parks) its messages in uid order, and marks the
   * handled ones done in one STORE (and one MOVE). Returns the uid up to which every message of the batch was
   * handled (undefined for none): less than the batch's last uid when the poller is stopping. An error stops the
   * batch; the messages handled before it are still marked done (a failure to mark them only means they are
   * ingested again later, which dedupes) and the error is rethrown.
   */
  private async processBatch(
    batch: FetchMessageObject[],
    uidValidity: string,
    report: SyncReport,
    holds: ReadonlyMap<number, string> = new Map(),
  ): Promise<number | undefined> {
    const sources = await this.downloadSources(batch);
    const done: number[] = [];
    let handledUpTo: number | undefined;
    try {
      for (const message of batch) {
        if (this.stopping) break;
        if (await this.processMessage(message, sources.get(message.uid), uidValidity, report, holds.get(message.uid))) done.push(message.uid);
        handledUpTo = message.uid;
      }
    } catch (err) {
      await this.markProcessed(done).catch((markErr: unknown) =>
        this.log.debug({ err: markErr, uids: done.length }, 'Could not mark the messages ingested before the failure; they are ingested again (deduplicated) later'),
      );
      throw err;
    }
    await this.markProcessed(done);
    return handledUpTo;
  }

  /** Sources of the batch's messages that are not too large to download, by uid; an expunged message is missing. */
  private async downloadSources(batch: FetchMessageObject[]): Promise<Map<number, Buffer>> {
    const wanted = batch.filter((m) => (m.size ?? 0) <= this.config.MAX_EMAIL_BYTES).map((m) => m.uid);
    if (wanted.length === 0) return new Map();
    const client = this.selectedClient();
    const fetched = await imap(() => client.fetchAll(wanted, { uid: true, source: true }, { uid: true }));
    // imapflow answers "nothing" both for an expunged message and for a lost connection; only the first is final.
    this.selectedClient();
    return new Map(fetched.filter((m) => m.source).map((m) => [m.uid, m.source!]));
  }

  /**
   * Ingests (or parks) one message; returns true when it is to be marked done, false when it vanished before it
   * was downloaded. Throws to stop the sync with the message left unmarked. `hold`: why a person decides whether it
   * gets an answer (the first start found it long unread); recorded on its ticket, which the agent worker parks unless
   * its checks ignore the mail.
   */
  private async processMessage(
    message: FetchMessageObject,
    source: Buffer | undefined,
    uidValidity: string,
    report: SyncReport,
    hold?: string,
  ): Promise<boolean> {
    const size = message.size ?? 0;
    const envelope = message.envelope ?? {};
    let result: IngestResult;
    // Whether its ticket records the hold: only a downloaded mail is held; one parked for its size (or from its envelope
    // after failed ingests, or as unreadable) would have been parked whenever it came.
    let held = false;
    if (size > this.config.MAX_EMAIL_BYTES) {
      result = await this.redisStep(() => parkOversizeMessage(envelope, size, this.deps));
    } else if (!source) {
      report.gone += 1;
      this.log.info({ uid: message.uid }, 'Message disappeared from the mailbox before it was downloaded; skipped');
      return false;
    } else {
      result = await this.ingestWithRetries(message, size, uidValidity, async () => {
        // The envelope names the sender and subject of a mail whose header section the parser cannot read.
        const ingested = await ingestMessage(source, this.deps, { noticedAt: report.startedAt, place: this.placeOf(message.uid), envelope, ...(hold !== undefined ? { hold } : {}) });
        held = ingested.held === true;
        return ingested;
      });
    }
    if (result.outcome === 'queued') report.queued += 1;
    else if (result.outcome === 'parked') report.parked += 1;
    else report.duplicates += 1;
    if (held) report.held += 1;
    return true;
  }

  /**
   * Runs an ingest; Redis outages stop the sync. Any other error (a bug, a mail that breaks a library) is retried on
   * later syncs and, after {@link MAX_INGEST_FAILURES}, the message is parked from its envelope (or, should that fail
   * too, by its place in the mailbox) so it neither blocks the mailbox forever nor disappears.
   */
  private async ingestWithRetries(
    message: FetchMessageObject,
    size: number,
    uidValidity: string,
    ingest: () => Promise<IngestResult>,
  ): Promise<IngestResult> {
    const key = `${uidValidity}:${message.uid}`;
    try {
      const result = await ingest();
      this.ingestFailures.delete(key);
      return result;
    } catch (err) {
      if (isConnectionError(err)) throw new RedisStepError(err instanceof Error ? err.message : String(err), { cause: err });
      const failures = (this.ingestFailures.get(key) ?? 0) + 1;
      this.ingestFailures.set(key, failures);
      const detail = err instanceof Error ? err.message : String(err);
      if (failures < MAX_INGEST_FAILURES) {
        this.log.error({ uid: message.uid, failures, err }, 'Could not ingest a message; it is retried on the next sync');
        throw err;
      }
      this.ingestFailures.delete(key);
      this.log.error({ uid: message.uid, failures, err }, 'Message failed to ingest repeatedly; parking it for a person');
      const reason = `could not be queued after ${failures} attempts: ${detail}`;
      try {
        return await this.redisStep(() => parkFromEnvelope(message.envelope ?? {}, size, reason, this.deps, { parkReceived: true }));
      } catch (parkErr) {
        if (parkErr instanceof RedisStepError) throw parkErr;
        // The envelope itself trips the fault (a sender, a subject): park the mail by its place in the mailbox alone,
        // or the sync would stop at it for good and take no later mail.
        const where = `${this.config.IMAP_MAILBOX} UID ${message.uid} (UIDVALIDITY ${uidValidity})`;
        const last = `${reason}; its envelope could not be stored either (${parkErr instanceof Error ? parkErr.message : String(parkErr)}): stored by its place in the mailbox, ${where}; read it there`;
        this.log.error({ uid: message.uid, err: parkErr }, 'Could not park the message from its envelope; parking it by its place in the mailbox');
        const key = createHash('sha256').update(JSON.stringify(['imap', this.config.IMAP_USER ?? '', this.config.IMAP_MAILBOX, uidValidity, message.uid])).digest('hex');
        const byPlace: EnvelopeInfo = { messageId: syntheticMessageId(key), subject: typeof message.envelope?.subject === 'string' ? message.envelope.subject.slice(0, 200) : '' };
        return this.redisStep(() => parkFromEnvelope(byPlace, size, last, this.deps, { parkReceived: true }));
      }
    }
  }

  private async redisStep<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (isConnectionError(err)) throw new RedisStepError(err instanceof Error ? err.message : String(err), { cause: err });
      throw err;
    }
  }

  /** Marks messages done: \\Seen, and moved to IMAP_PROCESSED_MAILBOX when set; one command each for all of them. */
  private async markProcessed(uids: number[]): Promise<void> {
    if (uids.length === 0) return;
    const client = this.selectedClient();
    const set = uids.join(',');
    if (!(await imap(() => client.messageFlagsAdd(set, ['\\Seen'], { uid: true })))) {
      throw new ImapStepError(`could not flag UID ${set} \\Seen`);
    }
    const processed = this.config.IMAP_PROCESSED_MAILBOX;
    if (processed && !(await imap(() => client.messageMove(set, processed, { uid: true })))) {
      throw new ImapStepError(`could not move UID ${set} to ${processed}`);
    }
  }
}

/** Runs an IMAP command, turning its failure into an {@link ImapStepError} (the session is then replaced). */
async function imap<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (err) {
    throw new ImapStepError(err instanceof Error ? err.message : String(err), { cause: err });
  }
}

function formatDelay(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/** Options of {@link startPollerRole}. */
export interface PollerRoleOptions {
  logger?: Logger;
  reconnect?: Partial<ReconnectPolicy>;
  tuning?: JobTuning;
  /** Called once the supervisor runs (Redis reached); for tests and for `npm start` to log readiness. */
  onStarted?: (supervisor: MailboxSupervisor) => void;
  /** The machine's name in the recorded decision settings (default the host name): tests run several in one process. */
  host?: string;
  /** How often the poller writes its decision settings again if Redis lost them (default {@link DESK_SETTINGS_CHECK_MS}). */
  deskSettingsCheckMs?: number;
}

/**
 * How often the poller looks whether its recorded decision settings are still in Redis (one TIME and one SET NX): a
 * Redis restarted without persistence is also caught at once by its reconnect, a FLUSHDB only by this.
 */
export const DESK_SETTINGS_CHECK_MS = 60_000;

/**
 * The poller as a role for `runRoles`: returns at once; in the background it connects to Redis (one clear warning
 * naming the masked URL while it is unreachable, then retrying with backoff instead of crashing), warns about an
 * unsafe eviction policy, records this machine's decision settings as the desk's (`desk-settings.ts`: there is one
 * poller per desk, and agent workers whose own differ take no tickets; written again whenever Redis lost them), and
 * starts a {@link MailboxSupervisor}.
 * `stop()` ends whichever stage it is in.
 *
 * @throws `ConfigError` when IMAP_HOST, IMAP_USER or IMAP_PASSWORD (with MAIL_AUTH=oauth2: the token settings) is
 *   missing.
 */
export async function startPollerRole(config: Config, options: PollerRoleOptions = {}): Promise<RoleHandle> {
  requireVariables(config, POLLER_VARIABLES, 'IMAP poller');
  const log = options.logger ?? createLogger('imap-poller');
  const where = describeRedis(config.REDIS_URL);
  let stopped = false;
  let wake: (() => void) | undefined;
  let redis: Redis | undefined;
  let queues: Queues | undefined;
  let supervisor: MailboxSupervisor | undefined;
  let deskTimer: NodeJS.Timeout | undefined;
  let deskRecording: Promise<void> | undefined;
  // After the first record succeeded, later ones only restore a lost record (SET NX): they never replace another's.
  let deskRecorded = false;
  let deskFailureLogged = false;

  /** Records this machine's decision settings: in full until that once succeeded, then only when the record is gone. */
  const recordDesk = (): Promise<void> =>
    (deskRecording ??= (async () => {
      if (!redis || stopped) return;
      try {
        const { written, replaced, record } = await recordDeskSettings(redis, config.QUEUE_PREFIX, config, options.host, { onlyIfMissing: deskRecorded });
        if (!deskRecorded) {
          log.info({ reviewMode: config.REVIEW_MODE }, "recorded this machine's decision settings for the agent workers (REVIEW_MODE, limits, trusted domains…)");
          const replacement = describeReplacedDeskSettings(replaced, record);
          if (replacement) log.warn(replacement);
        } else if (written) {
          log.warn("the decision settings recorded for the agent workers were gone from Redis (restarted without persistence, or the key deleted); recorded this machine's again");
        }
        deskRecorded = true;
        deskFailureLogged = false;
      } catch (err) {
        // One warning until a record succeeds; a Redis outage is reported by the supervisor already.
        log[deskFailureLogged ? 'debug' : 'warn'](
          { err: (err as Error).message },
          "could not record this machine's decision settings; agent workers compare theirs with the last ones recorded, and it is retried",
        );
        deskFailureLogged = true;
      }
    })().finally(() => {
      deskRecording = undefined;
    }));
  const onRedisReady = (): void => void recordDesk();

  const boot = (async () => {
    for (let attempt = 1; !stopped; attempt += 1) {
      try {
        redis = await connectProducer(config.REDIS_URL, { name: `${config.QUEUE_PREFIX}:imap-poller`, timeoutMs: 5_000 });
        break;
      } catch (err) {
        const delay = reconnectDelay(attempt);
        const cause = err instanceof RedisUnavailableError && err.cause instanceof Error ? err.cause : err;
        const detail = cause instanceof Error ? describeRedisFailure(cause) : String(cause);
        // One warning; the retries until Redis answers stay at debug so a long outage does not flood the log.
        if (attempt === 1) log.warn(`Redis unreachable at ${where} (${detail}); the IMAP poller keeps retrying until it answers`);
        else log.debug({ attempt, delayMs: delay }, `Redis still unreachable at ${where} (${detail})`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
    if (stopped || !redis) return;
    log.info(`Redis connected at ${where}`);
    // First, so that agent workers started with it (`npm start`) read this start's settings, not the last one's.
    await recordDesk();
    // A Redis restarted without persistence comes back empty (caught on its reconnect); a FLUSHDB or a deleted key
    // only by the timer. Without the record every agent worker takes tickets whatever its settings.
    redis.on('ready', onRedisReady);
    deskTimer = setInterval(() => void recordDesk(), options.deskSettingsCheckMs ?? DESK_SETTINGS_CHECK_MS).unref();
    await checkEvictionPolicy(redis, log);
    await checkClockSkewOnce(redis, log);
    queues = createQueues(redis, config.QUEUE_PREFIX);
    for (const queue of [queues.tickets, queues.outbound, queues.maintenance, queues.sentcopy]) {
      // BullMQ re-emits connection errors on each queue and prints them with a stack trace when nobody listens;
      // the supervisor already reports an outage once.
      queue.on('error', (err: Error) => log.debug({ err: err.message }, 'Queue connection error'));
    }
    supervisor = new MailboxSupervisor({
      config,
      redis,
      store: new TicketStore(redis, { prefix: config.QUEUE_PREFIX }),
      ticketsQueue: queues.tickets,
      logger: log,
      ...(options.reconnect ? { reconnect: options.reconnect } : {}),
      ...(options.tuning ? { tuning: options.tuning } : {}),
    });
    supervisor.start();
    options.onStarted?.(supervisor);
  })().catch((err: unknown) => log.error({ err }, 'IMAP poller failed to start'));

  let stopping: Promise<void> | undefined;
  return {
    name: 'imap-poller',
    stop(): Promise<void> {
      stopping ??= (async () => {
        stopped = true;
        wake?.();
        await boot;
        clearInterval(deskTimer);
        redis?.off('ready', onRedisReady);
        await deskRecording;
        await supervisor?.stop();
        const open = [queues, redis].filter((x): x is NonNullable<typeof x> => x !== undefined);
        await closeAll(...open);
      })();
      return stopping;
    },
  };
}
