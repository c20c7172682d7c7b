/**
 * The timing an agent worker's gates share (`DeskSettingsMonitor` in `desk-settings.ts`, `IndexFreshnessMonitor` in
 * `src/search/index-freshness.ts`): a check when started, one every interval after, and one whenever asked. Both
 * gates are asked before each ticket, so they held the same machinery twice; it lives here once, and each gate keeps
 * only what it checks.
 */
import type { Logger } from '../logger.js';

/** How a {@link PeriodicCheck} repeats and where it says that one failed. */
export interface PeriodicCheckTiming {
  /** Time between the end of one check and the start of the next. */
  intervalMs: number;
  log: Logger;
  /** The log message when a check on the interval fails (one asked for rejects to its caller instead). */
  failure: string;
}

/**
 * A check run when started, {@link PeriodicCheckTiming.intervalMs} after each one, and whenever asked
 * ({@link check}). A caller gets a check that starts after its call, because one already running may have read the
 * state before the change the caller waits for; callers that arrive while one runs share the next, so a burst of
 * tickets costs two checks, not one each. The timer never keeps the process alive: a check that is not stopped
 * (a test, a shutdown that fails half-way) does not hold the process open.
 */
export abstract class PeriodicCheck<T> {
  private running: Promise<T> | undefined;
  private queued: Promise<T> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  /** Set by {@link stop}; a check in progress reads it to skip a wait nobody needs any more. */
  protected stopped = false;

  protected constructor(private readonly timing: PeriodicCheckTiming) {}

  /** Runs the first check now and the next ones on the interval. */
  start(): void {
    if (this.started) return;
    this.started = true;
    void this.tick();
  }

  /** The result of a check that starts after this call; callers that arrive while one runs share the next. */
  check(): Promise<T> {
    if (!this.running) return this.run();
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.run();
      });
    return this.queued;
  }

  /** Stops the checks; one in progress finishes. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all([this.running?.catch(() => undefined), this.queued?.catch(() => undefined)]);
  }

  /** One check; never two at once (see {@link check}). */
  protected abstract checkNow(): Promise<T>;

  private run(): Promise<T> {
    const run = this.checkNow().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async tick(): Promise<void> {
    await this.check().catch((err: unknown) => this.timing.log.error({ err }, this.timing.failure));
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.timing.intervalMs).unref();
  }
}
