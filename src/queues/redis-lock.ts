/**
 * A lock in Redis shared by every process of a deployment: `SET key token NX PX ttl`, renewed while held, released
 * only by its holder (compare-and-delete). A holder that dies lets it lapse after `ttlMs`. The retention job and
 * erasures hold one; so do reindexes of the server backends (the maintenance role's jobs and `npm run reindex`), so a
 * CLI rebuild and a scheduled one never race over the same aliases and build indexes.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LuaScript } from '../tickets/lua.js';

const RENEW = new LuaScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`, 1);
const RELEASE = new LuaScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`, 1);

/** Thrown when another holder keeps the lock longer than the caller wanted to wait, or when a holder lost it. */
export class LockBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LockBusyError';
  }
}

/** A held lock. */
export interface RedisLock {
  /** Extends the lock by its time to live; throws {@link LockBusyError} when it was lost meanwhile. */
  renew(): Promise<void>;
  /** Releases it if still ours (idempotent). Stops the automatic renewal. */
  release(): Promise<void>;
}

/** Options of {@link acquireRedisLock}. */
export interface AcquireOptions {
  ttlMs: number;
  /** How long to wait for a busy lock before giving up (0: not at all). */
  waitMs?: number;
  /** Renew in the background every this many ms, for work that cannot renew between steps (e.g. a reindex). */
  autoRenewMs?: number;
  /** The message of the {@link LockBusyError} when the lock stays busy. */
  busyMessage: string;
}

/** Takes the lock `key`, waiting up to `waitMs` for another holder. */
export async function acquireRedisLock(redis: Redis, key: string, options: AcquireOptions): Promise<RedisLock> {
  const token = randomBytes(12).toString('hex');
  const deadline = Date.now() + (options.waitMs ?? 0);
  while ((await redis.set(key, token, 'PX', options.ttlMs, 'NX')) !== 'OK') {
    if (Date.now() >= deadline) throw new LockBusyError(options.busyMessage);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const renew = async (): Promise<void> => {
    // Lost means another holder may be working now; stopping is the only safe move.
    if ((await RENEW.run(redis, [key], [token, options.ttlMs])) !== 1) throw new LockBusyError(`lost the lock ${key}`);
  };
  // A failed background renewal is not thrown anywhere: the lock then lapses after its time to live, as a dead
  // holder's would, and the holder's next explicit renew() (if any) says so.
  const timer = options.autoRenewMs ? setInterval(() => void renew().catch(() => undefined), options.autoRenewMs) : undefined;
  timer?.unref();
  let released = false;
  return {
    renew,
    async release() {
      if (released) return;
      released = true;
      if (timer) clearInterval(timer);
      await RELEASE.run(redis, [key], [token]);
    },
  };
}

/** Runs `work` holding the lock `key`; the lock is released whatever `work` does. */
export async function withRedisLock<T>(redis: Redis, key: string, options: AcquireOptions, work: (lock: RedisLock) => Promise<T>): Promise<T> {
  const lock = await acquireRedisLock(redis, key, options);
  try {
    return await work(lock);
  } finally {
    await lock.release();
  }
}

/** Which index a reindex rebuilds. */
export type ReindexKind = 'manual' | 'qa';

/** The lock of one index's rebuild, shared by the maintenance role and `npm run reindex`. */
export function reindexLockKey(prefix: string, kind: ReindexKind): string {
  return `${prefix}:reindex:lock:${kind}`;
}

/** Time to live of a reindex lock: renewed every third of it, so only a dead holder lets it lapse. */
export const REINDEX_LOCK_TTL_MS = 60_000;

/** Runs a rebuild of `kind` holding its lock; {@link LockBusyError} at once when another rebuild holds it. */
export function withReindexLock<T>(redis: Redis, prefix: string, kind: ReindexKind, work: () => Promise<T>): Promise<T> {
  const what = kind === 'manual' ? 'the manual' : 'the Q&A';
  return withRedisLock(
    redis,
    reindexLockKey(prefix, kind),
    {
      ttlMs: REINDEX_LOCK_TTL_MS,
      autoRenewMs: REINDEX_LOCK_TTL_MS / 3,
      busyMessage: `a reindex of ${what} is already running (the scheduler's or another npm run reindex); try again when it has finished`,
    },
    work,
  );
}
