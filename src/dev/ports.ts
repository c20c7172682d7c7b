/**
 * Plumbing shared by the real-server test fixtures (redis-server.ts,
 * dovecot.ts, smtp-receiver.ts): free loopback ports, readiness polling,
 * supervised server processes and private temp dirs.
 *
 * Integration test files run in parallel vitest workers, so nothing here may
 * assume a fixed port or a shared directory: ports come from the kernel,
 * directories from mkdtemp, and every readiness check is a short poll rather
 * than a fixed sleep.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { chmod, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Loopback address every fixture binds to; never a wildcard, so tests cannot leak onto the network. */
export const LOOPBACK = '127.0.0.1';

/**
 * Returns a TCP port that was free on 127.0.0.1 at the time of the call.
 *
 * The port is released before returning, so another process can in principle
 * grab it before the caller binds it; the server fixtures therefore retry
 * with a fresh port when their first bind fails.
 */
export async function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host: LOOPBACK, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error(`unexpected listen address: ${String(address)}`));
        return;
      }
      const { port } = address;
      server.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}

/** Verdict of a {@link TcpProbe} on the bytes received so far. */
export type ProbeVerdict = 'ready' | 'not-ready' | 'incomplete';

/** What a single TCP probe should send and how to judge the answer. */
export interface TcpProbe {
  /** Port on 127.0.0.1 to connect to. */
  port: number;
  /** Bytes written right after connecting (e.g. a Redis command); nothing when omitted. */
  send?: string;
  /**
   * Judges everything received so far. `incomplete` keeps reading; the other
   * two end the attempt at once, so a definite "no" does not cost a timeout.
   */
  evaluate: (received: string) => ProbeVerdict;
  /** Per-attempt budget in milliseconds; a stuck server must not stall the poll loop. */
  attemptTimeoutMs?: number;
}

/**
 * Connects once and resolves `true` as soon as `evaluate` says `ready`;
 * `false` on refusal, close, timeout, or a `not-ready` verdict. Never
 * rejects, so callers can poll it in a loop.
 */
export async function probeTcp(probe: TcpProbe): Promise<boolean> {
  const { port, send, evaluate, attemptTimeoutMs = 1_000 } = probe;
  return new Promise<boolean>((resolve) => {
    let received = '';
    let settled = false;
    const socket = connect({ port, host: LOOPBACK });
    const finish = (ok: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), attemptTimeoutMs);
    socket.setEncoding('utf8');
    socket.once('connect', () => {
      if (send !== undefined) socket.write(send);
    });
    socket.on('data', (chunk: string) => {
      received += chunk;
      const verdict = evaluate(received);
      if (verdict !== 'incomplete') finish(verdict === 'ready');
    });
    socket.once('error', () => finish(false));
    socket.once('close', () => finish(false));
  });
}

/** Options for {@link pollUntil}. */
export interface PollOptions {
  /** Overall budget in milliseconds. */
  timeoutMs: number;
  /** Pause between attempts; small because start-up latency is what the tests pay for. */
  intervalMs?: number;
  /** Checked before every attempt; a returned error aborts the wait (e.g. the server process died). */
  abortIf?: () => Error | undefined;
  /** Describes what is awaited, for the timeout message. */
  what: string;
}

/**
 * Repeats `attempt` until it resolves `true`, the budget runs out, or
 * `abortIf` reports a reason to give up.
 */
export async function pollUntil(attempt: () => Promise<boolean>, options: PollOptions): Promise<void> {
  const { timeoutMs, intervalMs = 15, abortIf, what } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const abort = abortIf?.();
    if (abort) throw abort;
    if (await attempt()) return;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** How a supervised server process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A server child process that cannot outlive the test worker that spawned it. */
export interface ServerProcess {
  readonly pid: number;
  /** Exit status once the process has ended, `undefined` while it runs. */
  exitStatus(): ProcessExit | undefined;
  /** Resolves when the process has ended (immediately if it already has). */
  exited(): Promise<ProcessExit>;
  /** Last few KiB of stderr and stdout, for error messages when start-up fails. */
  output(): string;
  /**
   * Sends `signal` to the server's whole process group, escalates to SIGKILL
   * after `graceMs`, and resolves once the main process and every helper it
   * forked are gone.
   */
  terminate(signal?: NodeJS.Signals, graceMs?: number): Promise<ProcessExit>;
}

const OUTPUT_TAIL_BYTES = 8_192;
const SETPRIV = '/usr/bin/setpriv';

/**
 * Spawns a long-running server in the foreground.
 *
 * When util-linux `setpriv` is available the server gets `PR_SET_PDEATHSIG`,
 * so a crashed or force-killed vitest worker does not leave Redis or Dovecot
 * bound to a port; an `exit` hook covers orderly worker exits on other hosts.
 */
export function spawnServer(command: string, args: readonly string[], options: { cwd: string }): ServerProcess {
  const usePdeathsig = process.platform === 'linux' && existsSync(SETPRIV);
  // detached: its own process group, so signals reach the helper processes a
  // server forks (Dovecot's log/auth/imap) without waiting for the master to relay them.
  const spawnOptions: SpawnOptions = { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true };
  const child: ChildProcess = usePdeathsig
    ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', command, ...args], spawnOptions)
    : spawn(command, args, spawnOptions);
  const signalGroup = (signal: NodeJS.Signals): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // ESRCH: the whole group is already gone.
    }
  };

  let tail = '';
  const collect = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_BYTES);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  let status: ProcessExit | undefined;
  let resolveExited: (exit: ProcessExit) => void = () => undefined;
  const exitedPromise = new Promise<ProcessExit>((resolve) => {
    resolveExited = resolve;
  });
  const onWorkerExit = (): void => {
    if (status === undefined) signalGroup('SIGKILL');
  };
  const settle = (exit: ProcessExit): void => {
    if (status !== undefined) return;
    status = exit;
    process.off('exit', onWorkerExit);
    resolveExited(exit);
  };
  process.on('exit', onWorkerExit);
  child.once('error', (err) => {
    // ENOENT and friends: the binary never ran, which callers should see as an exit.
    tail += `\n${err.message}`;
    if (child.pid === undefined) settle({ code: null, signal: null });
  });
  // 'exit', not 'close': Dovecot's helper processes inherit the pipes and may
  // hold them open for a moment after the master is gone.
  child.once('exit', (code, signal) => {
    settle({ code, signal });
    setImmediate(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    });
  });

  return {
    pid: child.pid ?? -1,
    exitStatus: () => status,
    exited: () => exitedPromise,
    output: () => tail,
    async terminate(signal: NodeJS.Signals = 'SIGTERM', graceMs = 5_000): Promise<ProcessExit> {
      const pgid = child.pid;
      if (pgid === undefined) return exitedPromise;
      if (status === undefined) {
        signalGroup(signal);
        const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
        try {
          await exitedPromise;
        } finally {
          clearTimeout(timer);
        }
      }
      // Helpers can outlive the main process for a moment while still holding
      // its inherited listening socket, which would make an immediate restart
      // on the same port fail with EADDRINUSE.
      if (!(await groupGone(pgid, graceMs))) {
        signalGroup('SIGKILL');
        await groupGone(pgid, 1_000);
      }
      return exitedPromise;
    },
  };
}

/**
 * Waits until no live (non-zombie) process is left in process group `pgid`.
 * Zombies are ignored because in containers without a reaping init they can
 * linger forever, yet hold no sockets. Returns `false` on timeout; `true` at
 * once where /proc is unavailable.
 */
async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = await liveGroupMembers(pgid);
    if (live === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function liveGroupMembers(pgid: number): Promise<number> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return 0;
  }
  const states = await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (pid) => {
        try {
          const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
          // "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses.
          const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          return Number(pgrp) === pgid && state !== 'Z' && state !== 'X';
        } catch {
          return false;
        }
      }),
  );
  return states.filter(Boolean).length;
}

/** A private scratch directory, removed by {@link TempDir.remove} or, failing that, when the worker exits. */
export interface TempDir {
  readonly path: string;
  remove(): Promise<void>;
}

/**
 * Creates a fresh directory under the OS temp dir. Its mode is 0711 so that
 * servers which drop privileges (Dovecot's `dovecot`/`dovenull` users) can
 * traverse into the subdirectories they own without being able to list it.
 */
export async function createTempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `${prefix}-`));
  await chmod(path, 0o711);
  let removed = false;
  const onWorkerExit = (): void => {
    if (!removed) rmSync(path, { recursive: true, force: true });
  };
  process.on('exit', onWorkerExit);
  return {
    path,
    async remove(): Promise<void> {
      if (removed) return;
      removed = true;
      process.off('exit', onWorkerExit);
      await rm(path, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
