/**
 * A throwaway `redis-server` on a free loopback port, with its data in a
 * fresh temp dir, for integration tests of the BullMQ queues.
 *
 * AOF is on so that {@link RedisServer.restart} and {@link RedisServer.kill}
 * followed by {@link RedisServer.start} bring the same data back, which is
 * what crash-recovery tests of the queue need.
 */
import { LOOPBACK, createTempDir, freePort, pollUntil, probeTcp, spawnServer, type ServerProcess } from './ports.js';

/** Options for {@link startRedis}. */
export interface RedisServerOptions {
  /**
   * `maxmemory-policy`; BullMQ requires `noeviction` (the default) and warns
   * otherwise, so tests of that warning pass e.g. `allkeys-lru`.
   */
  maxmemoryPolicy?: string;
  /** `maxmemory`, e.g. `'64mb'`; unlimited when omitted. */
  maxmemory?: string;
  /**
   * AOF fsync mode. `no` (the default) still writes every command to the AOF
   * before replying, so a SIGKILL loses nothing (the page cache survives the
   * process); it only skips fsync, which tests don't need and which would
   * make `kill()` tests depend on disk latency.
   */
  appendfsync?: 'always' | 'everysec' | 'no';
  /**
   * `appendonly`; on (the default) for the restart and crash tests above. Off only for tests of what is said about a
   * Redis that keeps no append-only file: such a server loses its data on {@link RedisServer.restart}.
   */
  appendonly?: boolean;
  /** Extra `--name value` arguments appended to the command line. */
  extraArgs?: readonly string[];
  /** Budget for each start, including AOF loading; default 15 s. */
  startTimeoutMs?: number;
  /** Binary to run; default `redis-server` from PATH. */
  command?: string;
}

/** Handle to a running (or stopped) test Redis. */
export interface RedisServer {
  readonly host: typeof LOOPBACK;
  /** Fixed for the lifetime of the handle, across restarts. */
  readonly port: number;
  /** `redis://127.0.0.1:PORT`, ready for `new Redis(url)` or BullMQ `connection`. */
  readonly url: string;
  /** Temp dir holding the AOF; removed by {@link RedisServer.stop}. */
  readonly dir: string;
  /** Whether the server process is currently alive. */
  readonly running: boolean;
  /** (Re)starts on the same port and data dir; a no-op while running. */
  start(): Promise<void>;
  /** Graceful shutdown (SIGTERM, AOF flushed) followed by {@link RedisServer.start}. */
  restart(): Promise<void>;
  /** SIGKILL, as in a crash; the data dir is kept so {@link RedisServer.start} can recover. */
  kill(): Promise<void>;
  /** Final teardown: stops the server and deletes the data dir. Idempotent; the handle is unusable afterwards. */
  stop(): Promise<void>;
}

const DEFAULT_START_TIMEOUT_MS = 15_000;
const BIND_ATTEMPTS = 5;

/**
 * Starts a private `redis-server` bound to 127.0.0.1 and resolves once it
 * answers PING (i.e. after any AOF has been loaded).
 *
 * @example
 * ```ts
 * const redis = await startRedis();
 * afterAll(() => redis.stop());
 * const client = new Redis(redis.url, { maxRetriesPerRequest: null });
 * ```
 */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const tmp = await createTempDir('helpdesk-redis');
  const command = options.command ?? 'redis-server';
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  let proc: ServerProcess | undefined;
  let stopped = false;

  const args = (port: number): string[] => [
    '--port', String(port),
    '--bind', LOOPBACK,
    '--dir', tmp.path,
    '--appendonly', options.appendonly === false ? 'no' : 'yes',
    '--appendfsync', options.appendfsync ?? 'no',
    '--save', '',
    '--maxmemory-policy', options.maxmemoryPolicy ?? 'noeviction',
    ...(options.maxmemory === undefined ? [] : ['--maxmemory', options.maxmemory]),
    '--daemonize', 'no',
    // Log to stdout so start-up failures end up in the error message.
    '--logfile', '',
    ...(options.extraArgs ?? []),
  ];

  const launch = async (port: number): Promise<ServerProcess> => {
    const child = spawnServer(command, args(port), { cwd: tmp.path });
    try {
      await pollUntil(
        () =>
          probeTcp({
            port,
            // INFO proves the answer comes from our process, not a stranger
            // that won the port; PING fails with -LOADING until the AOF is in.
            send: 'INFO server\r\nPING\r\n',
            evaluate: (received) => {
              if (/\r\n\+PONG\r\n$/.test(received)) {
                return received.includes(`process_id:${child.pid}\r\n`) ? 'ready' : 'not-ready';
              }
              return /(^|\r\n)-[^\r\n]*\r\n$/.test(received) ? 'not-ready' : 'incomplete';
            },
          }),
        {
          timeoutMs: startTimeoutMs,
          what: `redis-server on ${LOOPBACK}:${port}`,
          abortIf: () => {
            const exit = child.exitStatus();
            return exit && new Error(`redis-server exited during start-up (code ${exit.code}, signal ${exit.signal}):\n${child.output()}`);
          },
        },
      );
      return child;
    } catch (err) {
      await child.terminate('SIGKILL');
      throw err;
    }
  };

  let port = 0;
  try {
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      try {
        proc = await launch(port);
        break;
      } catch (err) {
        // freePort() can race with another worker; only then is a new port worth a try.
        if (attempt >= BIND_ATTEMPTS || !String(err).includes('Address already in use')) throw err;
      }
    }
  } catch (err) {
    await tmp.remove();
    throw err;
  }

  const assertUsable = (): void => {
    if (stopped) throw new Error('this Redis test server has been stopped for good; start a new one');
  };

  const server: RedisServer = {
    host: LOOPBACK,
    port,
    url: `redis://${LOOPBACK}:${port}`,
    dir: tmp.path,
    get running(): boolean {
      return proc !== undefined && proc.exitStatus() === undefined;
    },
    async start(): Promise<void> {
      assertUsable();
      if (server.running) return;
      proc = await launch(port);
    },
    async restart(): Promise<void> {
      assertUsable();
      await proc?.terminate('SIGTERM');
      proc = await launch(port);
    },
    async kill(): Promise<void> {
      assertUsable();
      await proc?.terminate('SIGKILL');
    },
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      try {
        // Nothing of value is left to flush, so don't wait for a graceful exit.
        await proc?.terminate('SIGKILL');
      } finally {
        await tmp.remove();
      }
    },
  };
  return server;
}
