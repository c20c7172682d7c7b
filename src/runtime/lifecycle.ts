/**
 * Process lifecycle shared by every role: start the roles, and on SIGTERM/SIGINT stop them all at once (each stop
 * lets its active jobs finish), what they share last, and exit 0 within the shutdown deadline. Entry files in
 * `workers/` are only this wiring.
 */
import type { Logger } from '../logger.js';

/** A running role (poller, agent worker, sender, dashboard…). */
export interface RoleHandle {
  readonly name: string;
  /** Stops taking new work, waits for work in progress, closes connections. Must be idempotent. */
  stop(): Promise<void>;
  /** Stopped only once every other role has stopped: it closes what they share (the process's connections). */
  readonly closesLast?: boolean;
}

/** Options of {@link runRoles}. */
export interface RunRolesOptions {
  logger: Logger;
  /** Docker stops a container 10 s after SIGTERM by default and Kubernetes 30 s; stay under the latter. */
  shutdownTimeoutMs?: number;
  /** Injected for tests; defaults to `process.exit`. */
  exit?: (code: number) => void;
  signals?: NodeJS.Signals[];
  /**
   * Signals closer together than this count as one (a terminal's Ctrl-C reaches node from the terminal and again from
   * npm; systemd signals the whole group). Default 1 s.
   */
  repeatWindowMs?: number;
}

/**
 * Starts each role in order; if one fails to start, the ones already running are stopped and the error is rethrown.
 * Returns a `shutdown` function that the installed signal handlers also call.
 */
export async function runRoles(
  starters: Array<() => Promise<RoleHandle>>,
  options: RunRolesOptions,
): Promise<{ roles: RoleHandle[]; shutdown: (reason: string) => Promise<void> }> {
  const { logger, shutdownTimeoutMs = 25_000, exit = (code) => process.exit(code), signals = ['SIGTERM', 'SIGINT'] } = options;
  const roles: RoleHandle[] = [];
  let stopping: Promise<void> | undefined;

  const stopOne = async (role: RoleHandle): Promise<void> => {
    try {
      await role.stop();
      logger.info({ role: role.name }, 'stopped');
    } catch (err) {
      logger.error({ role: role.name, err }, 'error while stopping');
    }
  };
  // Every role is asked at once (in reverse start order) to stop taking work, then each finishes what it has: one
  // role's long work (a reindex) must not keep the others taking jobs until the deadline cuts a reply off mid-send.
  // What the roles share closes after all of them.
  const stopAll = async (): Promise<void> => {
    const reversed = [...roles].reverse();
    await Promise.all(reversed.filter((r) => !r.closesLast).map(stopOne));
    for (const role of reversed.filter((r) => r.closesLast)) await stopOne(role);
  };

  const shutdown = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ reason }, 'shutting down: finishing work in progress');
      const deadline = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), shutdownTimeoutMs).unref());
      const outcome = await Promise.race([stopAll().then(() => 'done' as const), deadline]);
      if (outcome === 'timeout') {
        // Unfinished jobs are not lost: BullMQ hands a job whose lock lapses to another worker.
        logger.warn({ shutdownTimeoutMs }, 'shutdown deadline passed; exiting with work still in progress');
        exit(1);
      } else {
        exit(0);
      }
    })();
    return stopping;
  };

  // Every signal is handled (never `once`): with no handler left, the next SIGINT would kill the process mid-shutdown
  // (exit 130, roles not stopped). A second separate signal is noted; a third forces the exit.
  const repeatWindowMs = options.repeatWindowMs ?? 1_000;
  let presses = 0;
  let lastPress = -Infinity;
  const onSignal = (signal: NodeJS.Signals): void => {
    const now = performance.now();
    if (now - lastPress < repeatWindowMs) return;
    lastPress = now;
    presses += 1;
    if (presses === 1) void shutdown(signal);
    else if (presses === 2) logger.warn({ signal }, 'already shutting down, finishing work in progress; send the signal once more to exit at once');
    else {
      logger.warn({ signal }, 'forced exit: work in progress is left to BullMQ to hand to another worker');
      exit(130);
    }
  };
  for (const signal of signals) process.on(signal, onSignal);

  for (const start of starters) {
    try {
      const role = await start();
      roles.push(role);
      logger.info({ role: role.name }, 'started');
    } catch (err) {
      await stopAll();
      throw err;
    }
  }
  return { roles, shutdown };
}

/**
 * A role that may refuse to start without stopping the process, for `npm start` where several roles share one
 * process: when `start` fails with an error `isRefusal` accepts (e.g. the dashboard's missing password), the refusal
 * is logged as one error line and the other roles keep working; any other error still fails the start.
 */
export function optionalRole(
  name: string,
  start: () => Promise<RoleHandle>,
  options: { logger: Logger; isRefusal: (err: unknown) => boolean },
): () => Promise<RoleHandle> {
  return async () => {
    try {
      return await start();
    } catch (err) {
      if (!options.isRefusal(err)) throw err;
      options.logger.error({ role: name }, `${name} not started: ${err instanceof Error ? err.message : String(err)}`);
      return { name: `${name} (not started)`, stop: async () => {} };
    }
  };
}
