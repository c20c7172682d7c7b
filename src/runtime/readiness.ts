/**
 * Waiting for a server the role cannot work without (SMTP for the sender), the way an operator wants to see it: one
 * warning line per failed try naming which server and where (passwords masked by the caller's description) and
 * why, growing pauses, no stack traces, no exit-and-restart loop; and a way out when the process shuts down.
 */
import type { Logger } from '../logger.js';

/** Options of {@link retryUntilReady}. */
export interface RetryUntilReadyOptions {
  /** What is awaited, e.g. `SMTP server smtp://mail.example.com:587`. */
  what: string;
  logger: Logger;
  /** Ends the wait (resolving `false`) when aborted. */
  signal?: AbortSignal;
  /** First pause; doubles per failure up to {@link RetryUntilReadyOptions.maxDelayMs}. Default 1 s. */
  firstDelayMs?: number;
  /** Longest pause. Default 60 s. */
  maxDelayMs?: number;
  /** Called after each failed try with its reason (after the warning is logged); its own errors are ignored. */
  onFailure?: (reason: string) => Promise<void> | void;
}

/**
 * Calls `check` until it resolves. Resolves `true` once it did, `false` when `signal` was aborted first.
 */
export async function retryUntilReady(check: () => Promise<unknown>, options: RetryUntilReadyOptions): Promise<boolean> {
  const { what, logger, signal } = options;
  const maxDelay = options.maxDelayMs ?? 60_000;
  let delay = options.firstDelayMs ?? 1_000;
  for (let attempt = 1; !signal?.aborted; attempt++) {
    try {
      await check();
      if (attempt > 1) logger.info(`${what} is reachable again`);
      return true;
    } catch (err) {
      if (signal?.aborted) return false;
      const reason = err instanceof Error ? err.message : String(err);
      logger.warn({ attempt, retryInMs: delay }, `${what} unreachable: ${reason}; retrying in ${Math.round(delay / 1000)} s`);
      await Promise.resolve(options.onFailure?.(reason)).catch(() => undefined);
    }
    await sleep(delay, signal);
    delay = Math.min(delay * 2, maxDelay);
  }
  return false;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
