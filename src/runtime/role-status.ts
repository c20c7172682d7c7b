/**
 * What the roles that depend on an outside server report about it, for `/readyz` and the review page's banner on any
 * process sharing the Redis: the sender about the SMTP server, the agent worker about the model server and the search
 * indexes it serves. Each process reports for itself: when it last reached the server after a failure (or at its
 * start), the last failure that concerns the server rather than one reply or ticket, and a heartbeat, so that a
 * process that stopped or died drops out instead of being taken for one that cannot work.
 *
 * | key (P = QUEUE_PREFIX)  | type | fields                                                                                        |
 * |-------------------------|------|-----------------------------------------------------------------------------------------------|
 * | `P:<role>:status`       | hash | `<host>#<pid>` → `{reachedAt, failedAt, failure, seenAt, host, indexes?, deskSettings?}` (JSON, epoch ms) |
 *
 * (`<role>` is `sender` or `agent`; no queue has either name.)
 *
 * Every time in a report is Redis's clock (`TIME`), and readers map it onto their own clock: machines whose clocks
 * disagree by minutes (a new VM without NTP) would otherwise hide a live process as gone, or keep a dead one. The
 * same helpers stamp the poller's state (`poller.ts`).
 */
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { createLogger, type Logger } from '../logger.js';
import { produce } from '../queues/connection.js';
import type { IndexVerdicts } from '../search/index-freshness.js';
import type { DeskSettingsMismatch } from './desk-settings.js';

/** The roles that report: the sender (SMTP) and the agent worker (the model server). */
export type ReportingRole = 'sender' | 'agent';

/** What one process last reported about the server its role depends on. */
export interface RoleStatus {
  /** The process: `<host>#<pid>`. */
  process: string;
  /** The machine it runs on. */
  host?: string;
  reachedAt?: Date;
  lastFailure?: { at: Date; message: string };
  /** When the process last reported; one silent for {@link ROLE_STATUS_STALE_MS} is taken for gone. */
  seenAt: Date;
  /** Agent workers: the search indexes they serve, against the last recorded builds (times on the reader's clock). */
  indexes?: IndexVerdicts;
  /** Agent workers: their decision settings differ from the ones the poller recorded, so they take no tickets. */
  deskSettings?: DeskSettingsMismatch;
}

/** How often a running process repeats its report. */
export const ROLE_STATUS_HEARTBEAT_MS = 60_000;
/** A report older than this is from a process that no longer runs. */
export const ROLE_STATUS_STALE_MS = 3 * ROLE_STATUS_HEARTBEAT_MS;
/** A report this old belongs to a process that is gone for good: a running process's own heartbeat removes it. */
export const ROLE_STATUS_FORGET_MS = 24 * 60 * 60 * 1000;

/** Longest failure description stored: a server's words are not ours to bound. */
const MAX_FAILURE_CHARS = 500;

/** A failure as a report stores it: one line (OpenSSL and servers write several), at most 500 characters. */
export function failureLine(message: string): string {
  return message.replace(/\s+/g, ' ').trim().slice(0, MAX_FAILURE_CHARS);
}

/** The Redis hash of `role`'s reports: one field per process, its report as JSON. */
export function roleStatusKey(prefix: string, role: ReportingRole): string {
  if (!prefix) throw new TypeError('roleStatusKey: prefix is required');
  return `${prefix}:${role}:status`;
}

interface StoredRoleStatus {
  reachedAt?: number;
  failedAt?: number;
  failure?: string;
  seenAt: number;
  host?: string;
  indexes?: IndexVerdicts;
  deskSettings?: DeskSettingsMismatch;
}

/** Redis's clock, epoch ms: the one clock every machine sharing the Redis reads alike. */
export async function redisTimeMs(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Below this, a difference between this process's clock and Redis's is the round trip's, not a wrong clock. */
const SAME_CLOCK_MS = 1_000;

/**
 * This process's clock minus Redis's, in ms, measured at the middle of the round trip; 0 when they agree within a
 * second, so that times read back are exactly the times written whenever the clocks agree.
 */
export async function clockOffsetMs(redis: Redis): Promise<number> {
  const before = Date.now();
  const server = await redisTimeMs(redis);
  const offset = Math.round((before + Date.now()) / 2) - server;
  return Math.abs(offset) < SAME_CLOCK_MS ? 0 : offset;
}

/** A time stamped with Redis's clock, on this process's clock (`offsetMs` from {@link clockOffsetMs}). */
export function onLocalClock(redisMs: number, offsetMs: number): Date {
  return new Date(redisMs + offsetMs);
}

/** A difference between this machine's clock and Redis's beyond which the start warns. */
export const CLOCK_SKEW_WARN_MS = 30_000;

/**
 * The warning for a clock `offsetMs` off Redis's (see {@link clockOffsetMs}), or undefined within
 * {@link CLOCK_SKEW_WARN_MS}: reports and polls are stamped with Redis's clock, but tickets, rate limits, schedules
 * and logs still use this machine's.
 */
export function clockSkewWarning(offsetMs: number): string | undefined {
  if (Math.abs(offsetMs) <= CLOCK_SKEW_WARN_MS) return undefined;
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  const size = minutes >= 1 ? `${minutes} min` : `${Math.round(Math.abs(offsetMs) / 1000)} s`;
  return `this machine's clock is ${size} ${offsetMs < 0 ? 'behind' : 'ahead of'} Redis's`;
}

/** Compares this machine's clock with Redis's once and warns, naming both times, when they differ by more than 30 s. */
export async function checkClockSkew(redis: Redis, logger: Logger): Promise<void> {
  try {
    const local = Date.now();
    const offset = await clockOffsetMs(redis);
    const warning = clockSkewWarning(offset);
    if (!warning) return;
    const localTime = new Date(local).toISOString();
    const redisTime = new Date(local - offset).toISOString();
    logger.warn(
      { localTime, redisTime },
      `${warning} (here ${localTime}, Redis ${redisTime}): ticket times, rate limits, schedules and log times on this machine are off by as much; set its clock right (NTP)`,
    );
  } catch (err) {
    logger.debug({ err: (err as Error).message }, 'could not compare the clock with Redis');
  }
}

let clockChecked: Promise<void> | undefined;

/** {@link checkClockSkew} once per process, however many roles it runs (`npm start`). */
export function checkClockSkewOnce(redis: Redis, logger: Logger): Promise<void> {
  clockChecked ??= checkClockSkew(redis, logger);
  return clockChecked;
}

/**
 * The reports of `role`'s processes that run (reported within {@link ROLE_STATUS_STALE_MS} of `now`), by process
 * name; empty when none has (none started yet, or only processes from before the report). Their times are mapped
 * from Redis's clock onto this process's, so `now` and the ages computed from them hold whatever this clock says.
 */
export async function readRoleStatus(redis: Redis, prefix: string, role: ReportingRole, now: Date = new Date()): Promise<RoleStatus[]> {
  const [offset, fields] = await Promise.all([clockOffsetMs(redis), redis.hgetall(roleStatusKey(prefix, role))]);
  const local = (ms: number) => onLocalClock(ms, offset);
  const reports: RoleStatus[] = [];
  for (const [process, json] of Object.entries(fields)) {
    let stored: StoredRoleStatus;
    try {
      stored = JSON.parse(json) as StoredRoleStatus;
    } catch {
      continue;
    }
    if (typeof stored.seenAt !== 'number' || now.getTime() - local(stored.seenAt).getTime() > ROLE_STATUS_STALE_MS) continue;
    reports.push({
      process,
      seenAt: local(stored.seenAt),
      ...(typeof stored.host === 'string' ? { host: stored.host } : {}),
      ...(typeof stored.reachedAt === 'number' ? { reachedAt: local(stored.reachedAt) } : {}),
      ...(typeof stored.failedAt === 'number' && stored.failure ? { lastFailure: { at: local(stored.failedAt), message: stored.failure } } : {}),
      ...(stored.indexes ? { indexes: indexesOnLocalClock(stored.indexes, offset) } : {}),
      ...(stored.deskSettings ? { deskSettings: stored.deskSettings } : {}),
    });
  }
  return reports.sort((a, b) => a.process.localeCompare(b.process));
}

function indexesOnLocalClock(indexes: IndexVerdicts, offsetMs: number): IndexVerdicts {
  const shift = (v: IndexVerdicts[keyof IndexVerdicts]) => (v?.lastBuild ? { ...v, lastBuild: { ...v.lastBuild, at: v.lastBuild.at + offsetMs } } : v);
  return { manual: shift(indexes.manual), qa: shift(indexes.qa) };
}

/** Options of {@link RoleStatusReporter}. */
export interface RoleStatusReporterOptions {
  /** The machine's name in reports (default the host name): tests run several "machines" in one process. */
  host?: string;
  /** Where the start's clock warning goes (see {@link checkClockSkewOnce}; default a `clock` logger). */
  logger?: Logger;
}

/**
 * This process's report, kept in memory and written when it changes (the server reached after a failure, a failure)
 * and every {@link ROLE_STATUS_HEARTBEAT_MS}; removed by {@link close}. Best effort: a write that fails (Redis down)
 * is dropped, the log already has the failure. Work that succeeds costs no Redis write.
 */
export class RoleStatusReporter {
  private readonly state: StoredRoleStatus;
  private readonly heartbeat: NodeJS.Timeout;
  /** This process in reports: `<host>#<pid>`. */
  readonly process: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly role: ReportingRole,
    options: RoleStatusReporterOptions = {},
  ) {
    const host = options.host ?? hostname();
    this.process = `${host}#${process.pid}`;
    this.state = { seenAt: 0, host };
    this.heartbeat = setInterval(() => void this.write(), ROLE_STATUS_HEARTBEAT_MS).unref();
    // Every process that reports (the sender, the agent worker) says at start when its clock is off.
    void checkClockSkewOnce(redis, options.logger ?? createLogger('clock'));
  }

  /** The server did its part (a check passed, a reply was accepted, a run finished). */
  async reached(): Promise<void> {
    if (this.state.reachedAt !== undefined && (this.state.failedAt ?? 0) <= this.state.reachedAt) return;
    this.state.reachedAt = await this.now();
    await this.write();
  }

  /** The server could not be used at all, in the words of `message`. */
  async failed(message: string): Promise<void> {
    this.state.failedAt = await this.now();
    this.state.failure = failureLine(message);
    await this.write();
  }

  /** The search indexes this process serves (agent workers); written when they changed. */
  async indexes(verdicts: IndexVerdicts): Promise<void> {
    if (JSON.stringify(verdicts) === JSON.stringify(this.state.indexes)) return;
    this.state.indexes = verdicts;
    await this.write();
  }

  /** Agent workers: why their decision settings keep them from taking tickets (undefined: nothing); written when it changed. */
  async deskSettings(mismatch: DeskSettingsMismatch | undefined): Promise<void> {
    if (JSON.stringify(mismatch) === JSON.stringify(this.state.deskSettings)) return;
    if (mismatch) this.state.deskSettings = mismatch;
    else delete this.state.deskSettings;
    await this.write();
  }

  /** Stops the heartbeat and removes the report: a process that stopped is not one that cannot work. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await produce(this.redis, () => this.redis.hdel(roleStatusKey(this.prefix, this.role), this.process)).catch(() => undefined);
  }

  /**
   * Redis's clock: readers on any machine compare with it. Should Redis not answer, the write that follows fails as
   * well; the local clock then stands in.
   */
  private async now(): Promise<number> {
    return redisTimeMs(this.redis).catch(() => Date.now());
  }

  private async write(): Promise<void> {
    this.state.seenAt = await this.now();
    const key = roleStatusKey(this.prefix, this.role);
    await produce(this.redis, () => this.redis.hset(key, this.process, JSON.stringify(this.state))).catch(() => undefined);
    await this.forgetDeadProcesses(key).catch(() => undefined);
  }

  /**
   * Removes the reports of processes that stopped without removing their own (killed, a machine gone): readers skip
   * them after {@link ROLE_STATUS_STALE_MS}, but each such process left a field behind for good.
   */
  private async forgetDeadProcesses(key: string): Promise<void> {
    const fields = await this.redis.hgetall(key);
    const dead = Object.entries(fields)
      .filter(([, json]) => {
        try {
          const seenAt = (JSON.parse(json) as StoredRoleStatus).seenAt;
          return typeof seenAt !== 'number' || this.state.seenAt - seenAt > ROLE_STATUS_FORGET_MS;
        } catch {
          return true;
        }
      })
      .map(([field]) => field);
    if (dead.length > 0) await this.redis.hdel(key, ...dead);
  }
}
