/**
 * `npm run sandbox` (infra/sandbox.ts) as a user runs it, for tests of how it starts and stops: a child process in a
 * home directory of the test's, its stdout and stderr collected together.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = fileURLToPath(import.meta.resolve('tsx'));
const READY_WITHIN_MS = 60_000;
/** How long a sandbox told to stop (SIGTERM) gets to stop its servers and give the `.env` back. */
const STOP_GRACE_MS = 30_000;
/** How long a sandbox that ignored SIGTERM gets to end after SIGKILL. */
const KILL_WAIT_MS = 5_000;

/** A sandbox a test started. */
export interface RunningSandbox {
  /** stdout and stderr so far, in the order they arrived. */
  output(): string;
  /**
   * The exit code once the process ended and its pipes closed: 'close', not 'exit', since the last lines the sandbox
   * writes may reach the pipe after the process has exited.
   */
  closed: Promise<number | null>;
  /** Sends `signal` to the sandbox process (not its servers: it stops those itself). */
  kill(signal: NodeJS.Signals): void;
}

/** Where and how {@link startSandbox} runs the sandbox. */
export interface SandboxStart {
  /** Its working directory, where it writes (and gives back) the `.env`. */
  home: string;
  /** Its arguments, as after `npm run sandbox --`. */
  args?: readonly string[];
  /** Variables over the test's environment. */
  env?: Record<string, string>;
  /** What its output shows once it is up; `sandbox running` unless given. */
  readyWhen?: string;
}

/**
 * Starts the sandbox and resolves once its output shows {@link SandboxStart.readyWhen}; rejects with the output when it
 * exits first or is not up within 60 s, once it has stopped. Call it inside a test: a sandbox still running when the
 * test finishes (a failed expect before the test's own kill, a timeout) is stopped then, SIGTERM and then SIGKILL, so
 * that it and its servers do not outlive the test and its home, which the test file removes.
 */
export async function startSandbox({ home, args = [], env, readyWhen = 'sandbox running' }: SandboxStart): Promise<RunningSandbox> {
  // Registered before the spawn: outside a test it throws here, with nothing started that no one would stop.
  let stop = (): Promise<void> => Promise.resolve();
  onTestFinished(() => stop(), STOP_GRACE_MS + KILL_WAIT_MS + 5_000);
  const child = spawn(process.execPath, ['--import', TSX, path.join(REPO_ROOT, 'infra/sandbox.ts'), ...args], {
    cwd: home,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  // A process ended by a signal has signalCode set and exitCode null.
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  let stopping: Promise<void> | undefined;
  stop = () =>
    (stopping ??= (async () => {
      // The sandbox stops its servers on SIGTERM as on Ctrl-C; SIGKILL leaves them to their parent-death signal
      // (src/dev/ports.ts) and their data directories behind, so it is the last resort.
      if (!ended()) child.kill('SIGTERM');
      if (await settlesWithin(closed, STOP_GRACE_MS)) return;
      child.kill('SIGKILL');
      if (!(await settlesWithin(closed, KILL_WAIT_MS))) throw new Error(`the sandbox (pid ${child.pid}) did not end after SIGKILL:\n${out}`);
    })());
  for (let waited = 0; !out.includes(readyWhen); waited += 100) {
    if (waited > READY_WITHIN_MS || ended()) {
      const unstopped = await stop().then(
        () => undefined,
        (err: unknown) => err,
      );
      throw new Error(`the sandbox did not start:\n${out}`, unstopped === undefined ? {} : { cause: unstopped });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { output: () => out, closed, kill: (signal) => void child.kill(signal) };
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
