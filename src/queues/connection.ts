/**
 * Redis connections as BullMQ's production guide asks for them.
 *
 * Workers must ride out Redis restarts: `maxRetriesPerRequest: null` keeps their (blocking) commands waiting for
 * the reconnect instead of failing, and the retry strategy reconnects forever with a capped backoff.
 *
 * Producers (the poller, the dashboard, the CLI) must not hang while Redis is down: with the offline queue off
 * and one retry per request, `queue.add` fails fast and the caller decides (the poller leaves the mail unseen and
 * tries again on the next poll, so nothing is lost).
 */
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../logger.js';

/** Longest pause between reconnection attempts. */
export const MAX_RECONNECT_DELAY_MS = 20_000;

/** Connection options shared by both kinds. */
export interface ConnectionOptions {
  /** Logs reconnection attempts; silent when absent. */
  logger?: Logger;
  /** CLIENT SETNAME, visible in `CLIENT LIST` (e.g. `helpdesk:agent-worker`). */
  name?: string;
}

/**
 * Delay before reconnection attempt `times` (1-based): 500 ms doubling up to {@link MAX_RECONNECT_DELAY_MS}.
 * Never gives up: a worker without Redis has nothing else to do, and giving up would need a restart to recover.
 */
export function reconnectDelay(times: number): number {
  return Math.min(500 * 2 ** Math.max(0, times - 1), MAX_RECONNECT_DELAY_MS);
}

/**
 * The URL for log lines with the password (and a username that might be a token) masked:
 * `redis://:secret@host:6379/0` → `redis://***@host:6379/0`.
 */
export function describeRedis(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(invalid Redis URL)';
  }
  let auth = '';
  if (parsed.password) auth = parsed.username ? `${decodeURIComponent(parsed.username)}:***@` : '***@';
  else if (parsed.username) auth = '***@';
  const port = parsed.port ? `:${parsed.port}` : '';
  const db = parsed.pathname && parsed.pathname !== '/' ? parsed.pathname : '';
  return `${parsed.protocol}//${auth}${parsed.hostname}${port}${db}`;
}

/** What the retry warnings of one connection know: the error that ended its last attempt. */
interface ConnectionState {
  lastError?: Error;
}

/** Errors of a password Redis refused (wrong, or none given to a server that wants one). */
export function isAuthError(err: unknown): boolean {
  return err instanceof Error && /^(?:Ready check failed: )?(?:WRONGPASS|NOAUTH)\b|invalid (?:username-)?password/i.test(err.message);
}

/** Codes of a server that is not there: not started, wrong host or port, no route. */
const UNREACHABLE_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT'];

/**
 * Why a connection attempt failed, in one line with what to do: `WRONGPASS … — check the password in REDIS_URL`,
 * `connect ECONNREFUSED 127.0.0.1:6379 — start Redis or check REDIS_URL`. Only the error's message is used: the
 * error object itself carries the AUTH command's arguments, the password among them.
 */
export function describeRedisFailure(err: Error): string {
  const message = err.message.split('\n')[0] ?? err.message;
  if (isAuthError(err)) return `${message} — check the password in REDIS_URL`;
  const code = (err as NodeJS.ErrnoException).code;
  if ((code && UNREACHABLE_CODES.includes(code)) || UNREACHABLE_CODES.some((c) => message.includes(c))) {
    return `${message} — start Redis or check REDIS_URL`;
  }
  return message;
}

function baseOptions(url: string, options: ConnectionOptions, state: ConnectionState): RedisOptions {
  const where = describeRedis(url);
  const logger = options.logger;
  return {
    ...(options.name ? { connectionName: options.name } : {}),
    retryStrategy(times: number) {
      const delay = reconnectDelay(times);
      // ioredis emits the attempt's error before it asks for the delay, so the warning can say why; an admin
      // with a wrong password would otherwise see only "unreachable".
      const reason = state.lastError ? `: ${describeRedisFailure(state.lastError)}` : '';
      logger?.warn(
        { redis: where, attempt: times, delayMs: delay, ...(state.lastError ? { reason: state.lastError.message } : {}) },
        `Redis unreachable at ${where}, retrying in ${delay} ms${reason}`,
      );
      return delay;
    },
    // A failover turns the old primary into a read-only replica; reconnecting reaches the new primary.
    reconnectOnError: (err) => err.message.startsWith('READONLY'),
  };
}

function attachListeners(redis: Redis, url: string, options: ConnectionOptions, state: ConnectionState): Redis {
  const where = describeRedis(url);
  // Without a listener ioredis prints every connection error to stderr; the retry strategy already logs those.
  redis.on('error', (err: Error) => {
    state.lastError = err;
    options.logger?.debug({ redis: where, err: err.message }, 'Redis connection error');
  });
  redis.on('ready', () => {
    // A later outage that ends without an error must not be blamed on this one.
    delete state.lastError;
    options.logger?.debug({ redis: where }, 'Redis connection ready');
  });
  return redis;
}

/** A connection for BullMQ workers (and queue events): waits through outages instead of failing commands. */
export function createWorkerConnection(url: string, options: ConnectionOptions = {}): Redis {
  const state: ConnectionState = {};
  const redis = new Redis(url, {
    ...baseOptions(url, options, state),
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
  });
  return attachListeners(redis, url, options, state);
}

/**
 * A connection for producers and the ticket store: commands fail fast while Redis is unreachable instead of
 * queueing in memory (where they would be lost with the process).
 */
export function createProducerConnection(url: string, options: ConnectionOptions = {}): Redis {
  const state: ConnectionState = {};
  const redis = new Redis(url, {
    ...baseOptions(url, options, state),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    enableReadyCheck: true,
    connectTimeout: 5_000,
  });
  return attachListeners(redis, url, options, state);
}

/**
 * The Redis settings on which nothing of the queue and tickets is lost (README, Running without Docker; what
 * docker-compose.yml runs Redis with), each undefined when it could not be read.
 */
export interface RedisSafetySettings {
  /** `noeviction`, or Redis may delete queued jobs and tickets to make room. */
  maxmemoryPolicy?: string;
  /** `yes`, or a restart or crash of Redis loses what was written since its last snapshot. */
  appendonly?: string;
  /** `always`, or a crash of the host loses the last writes, and mail whose reply had just gone out is answered twice. */
  appendfsync?: string;
}

/** What a managed Redis's admin changes instead of redis.conf. */
const MANAGED = 'on a managed Redis, its persistence settings';

/**
 * What is wrong with Redis's persistence for the queue and tickets, with the fix, in the words both the roles' start-up
 * warning and `npm run check` use; undefined for `appendonly yes` with `appendfsync always`. With `everysec`, fault
 * soak 42 answered 19 mails twice in 30 crashes of the host: the sender's record of a reply was lost, not the reply.
 * A setting that could not be read (CONFIG refused, as on most managed Redis; INFO tells only whether the append-only
 * file is on) is said as such, with what to make sure of, not as a setting found wrong.
 */
export function durabilityProblem(settings: Pick<RedisSafetySettings, 'appendonly' | 'appendfsync'>): string | undefined {
  const { appendonly, appendfsync } = settings;
  if (appendonly === undefined) {
    return `appendonly and appendfsync could not be read (CONFIG and INFO refused): make sure appendonly is yes and appendfsync always, or a crash of the host can lose mail or answer it twice (${MANAGED})`;
  }
  if (appendonly !== 'yes') {
    return `appendonly is ${appendonly}: Redis keeps no append-only file, so a restart or crash loses the queued mail and tickets written since its last snapshot (or all of them); set appendonly yes and appendfsync always (redis.conf, or CONFIG SET appendonly yes, CONFIG SET appendfsync always and CONFIG REWRITE; ${MANAGED})`;
  }
  if (appendfsync === undefined) {
    return `appendfsync could not be read (CONFIG refused): make sure it is always, or a crash of the host can answer a mail twice (${MANAGED})`;
  }
  if (appendfsync === 'always') return undefined;
  // `no` leaves the flush to the kernel, which writes dirty pages within about 30 s on Linux.
  const lost = appendfsync === 'everysec' ? 'up to the last second' : 'up to about 30 s';
  return `appendfsync is ${appendfsync}: a crash of the host loses the writes not yet on disk (${lost}), and a mail whose reply had just gone out is taken again and answered twice; set appendfsync always (redis.conf, or CONFIG SET appendfsync always and CONFIG REWRITE; ${MANAGED})`;
}

/** One setting read with CONFIG GET, else from an INFO section, with the failure when neither told it. */
async function readSetting(
  redis: Redis,
  name: string,
  fromInfo?: { section: string; read: (info: string) => string | undefined },
): Promise<{ value?: string; failure?: unknown }> {
  let failure: unknown;
  try {
    const reply = (await redis.call('CONFIG', 'GET', name)) as string[];
    if (reply[1] !== undefined) return { value: reply[1] };
  } catch (err) {
    failure = err;
  }
  if (!fromInfo) return { failure };
  try {
    const value = fromInfo.read(await redis.info(fromInfo.section));
    return value === undefined ? { failure } : { value };
  } catch (err) {
    return { failure: err };
  }
}

/**
 * Reads `maxmemory-policy`, `appendonly` and `appendfsync` and warns, once per problem, unless they are `noeviction`,
 * `yes` and `always`: the settings under which Redis neither deletes nor loses queue and ticket keys. Falls back to
 * INFO when CONFIG is disabled (common on managed Redis), which tells the policy and whether the append-only file is
 * on, but not appendfsync; what neither tells is warned of as unknown ({@link durabilityProblem}). When Redis refused
 * the password or could not be reached, it returns `undefined` without those warnings and checks again once the
 * connection is ready: the connection's retry warnings already say what is wrong, and "make sure it is noeviction"
 * would send the admin after the wrong problem.
 */
export async function checkRedisSettings(redis: Redis, logger: Logger): Promise<RedisSafetySettings | undefined> {
  const [policy, appendonly, appendfsync] = await Promise.all([
    readSetting(redis, 'maxmemory-policy', { section: 'memory', read: (info) => /^maxmemory_policy:(\S+)/m.exec(info)?.[1] }),
    readSetting(redis, 'appendonly', {
      section: 'persistence',
      read: (info) => {
        const enabled = /^aof_enabled:(\d)/m.exec(info)?.[1];
        return enabled === undefined ? undefined : enabled === '1' ? 'yes' : 'no';
      },
    }),
    readSetting(redis, 'appendfsync'),
  ]);
  const unusable = [policy, appendonly, appendfsync].find((r) => r.value === undefined && (isAuthError(r.failure) || isConnectionError(r.failure)))?.failure;
  if (unusable !== undefined) {
    logger.debug({ err: unusable instanceof Error ? unusable.message : String(unusable) }, 'Redis settings not read yet: no usable connection');
    redis.once('ready', () => void checkRedisSettings(redis, logger).catch(() => undefined));
    return undefined;
  }
  const settings: RedisSafetySettings = { maxmemoryPolicy: policy.value, appendonly: appendonly.value, appendfsync: appendfsync.value };
  if (settings.maxmemoryPolicy === undefined) {
    logger.warn('Could not read the Redis maxmemory-policy; make sure it is noeviction, or queued jobs and tickets may be evicted');
  } else if (settings.maxmemoryPolicy !== 'noeviction') {
    logger.warn(
      { maxmemoryPolicy: settings.maxmemoryPolicy },
      `Redis maxmemory-policy is ${settings.maxmemoryPolicy}; it must be noeviction, or Redis may evict queued jobs and tickets under memory pressure`,
    );
  }
  const durability = durabilityProblem(settings);
  if (durability) logger.warn({ appendonly: settings.appendonly, appendfsync: settings.appendfsync }, `Redis ${durability}`);
  return settings;
}

/**
 * What every role runs at start on its Redis ({@link checkRedisSettings}: the eviction policy and persistence, each
 * warned of), returning the `maxmemory-policy`, or undefined when it was not read.
 */
export async function checkEvictionPolicy(redis: Redis, logger: Logger): Promise<string | undefined> {
  return (await checkRedisSettings(redis, logger))?.maxmemoryPolicy;
}

/**
 * Thrown by producers when Redis cannot be reached, naming the (masked) server, for the caller's log line and
 * HTTP 503. The original error is the `cause`.
 */
export class RedisUnavailableError extends Error {
  constructor(
    readonly where: string,
    cause: unknown,
  ) {
    super(`Redis unavailable at ${where}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'RedisUnavailableError';
  }
}

/** {@link describeRedis} of a client, from its options (password masked). */
export function describeConnection(redis: Redis): string {
  const o = redis.options;
  const auth = o.password ? (o.username ? `${o.username}:***@` : '***@') : '';
  const scheme = o.tls ? 'rediss' : 'redis';
  return `${scheme}://${auth}${o.host ?? '127.0.0.1'}:${o.port ?? 6379}${o.db ? `/${o.db}` : ''}`;
}

/**
 * Resolves once the client is ready, or rejects with {@link RedisUnavailableError} after `timeoutMs`.
 *
 * Producers must be ready before BullMQ queues are created on them: with the offline queue off, a Queue created
 * on a connection that is still connecting fails its initial commands and stays broken, while one created on a
 * ready connection fails fast during an outage and recovers on reconnect.
 */
export async function waitForReady(redis: Redis, timeoutMs = 5_000, options: { giveUpOnError?: boolean } = {}): Promise<Redis> {
  if (redis.status === 'ready') return redis;
  if (redis.status === 'wait') void redis.connect().catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    let lastError: unknown;
    const cleanup = (): void => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
      redis.off('end', onEnd);
    };
    const onReady = (): void => {
      cleanup();
      resolve();
    };
    const onError = (err: unknown): void => {
      lastError = err;
      if (!options.giveUpOnError) return;
      cleanup();
      reject(new RedisUnavailableError(describeConnection(redis), err));
    };
    const onEnd = (): void => {
      cleanup();
      reject(new RedisUnavailableError(describeConnection(redis), lastError ?? new Error('connection closed')));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new RedisUnavailableError(describeConnection(redis), lastError ?? new Error(`not ready within ${timeoutMs} ms`)));
    }, timeoutMs);
    redis.on('ready', onReady);
    redis.on('error', onError);
    redis.on('end', onEnd);
  });
  return redis;
}

/**
 * A ready producer connection ({@link createProducerConnection} + {@link waitForReady}); when Redis is not
 * reachable within `timeoutMs` the client is closed and {@link RedisUnavailableError} thrown, so a CLI or the
 * dashboard reports the outage at once. With `giveUpOnError` the first connection error (refused, unknown host,
 * wrong password) ends the wait: for command-line tools, whose user is waiting and can run them again.
 */
export async function connectProducer(url: string, options: ConnectionOptions & { timeoutMs?: number; giveUpOnError?: boolean } = {}): Promise<Redis> {
  const redis = createProducerConnection(url, options);
  try {
    return await waitForReady(redis, options.timeoutMs, { giveUpOnError: options.giveUpOnError ?? false });
  } catch (err) {
    redis.disconnect();
    throw err;
  }
}

/** True when an error comes from the connection (down, closed, offline queue off) rather than from a command. */
export function isConnectionError(err: unknown): boolean {
  if (err instanceof RedisUnavailableError) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (code && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code)) return true;
  return /enableOfflineQueue|Connection is closed|Stream isn't writeable|Reached the max retries per request/i.test(err.message);
}

/**
 * Runs a producer command on `redis` (e.g. `queue.add`), turning connection failures into
 * {@link RedisUnavailableError}; other errors pass through unchanged.
 */
export async function produce<T>(redis: Redis, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (err) {
    if (err instanceof RedisUnavailableError) throw err;
    if (isConnectionError(err)) throw new RedisUnavailableError(describeConnection(redis), err);
    throw err;
  }
}

/**
 * Runs a MULTI (or pipeline) and throws the first command's error: ioredis resolves `exec()` with per-command errors
 * instead of rejecting. A transaction EXEC aborted by a WATCH resolves null, which is not an error here.
 */
export async function execAll(multi: ReturnType<Redis['multi']>): Promise<void> {
  const results = await multi.exec();
  const failed = results?.find(([err]) => err);
  if (failed?.[0]) throw failed[0];
}
