/**
 * What the roles that depend on an outside server report about it, for `/readyz` and the review page's banner on any
 * process sharing the Redis: the sender about the SMTP server, the agent worker about the model server. Each process
 * reports for itself: when it last reached the server after a failure (or at its start), the last failure that
 * concerns the server rather than one reply or ticket, and a heartbeat, so that a process that stopped or died drops
 * out instead of being taken for one that cannot work.
 *
 * | key (P = QUEUE_PREFIX)  | type | fields                                                                         |
 * |-------------------------|------|--------------------------------------------------------------------------------|
 * | `P:<role>:status`       | hash | `<hostname>#<pid>` → `{reachedAt, failedAt, failure, seenAt}` (JSON, epoch ms) |
 *
 * (`<role>` is `sender` or `agent`; no queue has either name.)
 */
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { produce } from '../queues/connection.js';

/** The roles that report: the sender (SMTP) and the agent worker (the model server). */
export type ReportingRole = 'sender' | 'agent';

/** What one process last reported about the server its role depends on. */
export interface RoleStatus {
  /** The process: `<hostname>#<pid>`. */
  process: string;
  reachedAt?: Date;
  lastFailure?: { at: Date; message: string };
  /** When the process last reported; one silent for {@link ROLE_STATUS_STALE_MS} is taken for gone. */
  seenAt: Date;
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
}

/**
 * The reports of `role`'s processes that run (reported within {@link ROLE_STATUS_STALE_MS} of `now`), by process
 * name; empty when none has (none started yet, or only processes from before the report).
 */
export async function readRoleStatus(redis: Redis, prefix: string, role: ReportingRole, now: Date = new Date()): Promise<RoleStatus[]> {
  const reports: RoleStatus[] = [];
  for (const [process, json] of Object.entries(await redis.hgetall(roleStatusKey(prefix, role)))) {
    let stored: StoredRoleStatus;
    try {
      stored = JSON.parse(json) as StoredRoleStatus;
    } catch {
      continue;
    }
    if (typeof stored.seenAt !== 'number' || now.getTime() - stored.seenAt > ROLE_STATUS_STALE_MS) continue;
    reports.push({
      process,
      seenAt: new Date(stored.seenAt),
      ...(typeof stored.reachedAt === 'number' ? { reachedAt: new Date(stored.reachedAt) } : {}),
      ...(typeof stored.failedAt === 'number' && stored.failure ? { lastFailure: { at: new Date(stored.failedAt), message: stored.failure } } : {}),
    });
  }
  return reports.sort((a, b) => a.process.localeCompare(b.process));
}

/**
 * This process's report, kept in memory and written when it changes (the server reached after a failure, a failure)
 * and every {@link ROLE_STATUS_HEARTBEAT_MS}; removed by {@link close}. Best effort: a write that fails (Redis down)
 * is dropped, the log already has the failure. Work that succeeds costs no Redis write.
 */
export class RoleStatusReporter {
  private readonly state: StoredRoleStatus = { seenAt: Date.now() };
  private readonly heartbeat: NodeJS.Timeout;
  private readonly field = `${hostname()}#${process.pid}`;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly role: ReportingRole,
  ) {
    this.heartbeat = setInterval(() => void this.write(), ROLE_STATUS_HEARTBEAT_MS).unref();
  }

  /** The server did its part (a check passed, a reply was accepted, a run finished). */
  async reached(): Promise<void> {
    if (this.state.reachedAt !== undefined && (this.state.failedAt ?? 0) <= this.state.reachedAt) return;
    this.state.reachedAt = Date.now();
    await this.write();
  }

  /** The server could not be used at all, in the words of `message`. */
  async failed(message: string): Promise<void> {
    this.state.failedAt = Date.now();
    this.state.failure = failureLine(message);
    await this.write();
  }

  /** Stops the heartbeat and removes the report: a process that stopped is not one that cannot work. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await produce(this.redis, () => this.redis.hdel(roleStatusKey(this.prefix, this.role), this.field)).catch(() => undefined);
  }

  private async write(): Promise<void> {
    this.state.seenAt = Date.now();
    const key = roleStatusKey(this.prefix, this.role);
    await produce(this.redis, () => this.redis.hset(key, this.field, JSON.stringify(this.state))).catch(() => undefined);
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
