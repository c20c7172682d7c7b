/**
 * A command a test runs to its end in a child process, as an operator runs it (`npm run reindex`, `npm run check`, a
 * Compose service's script): its exit code, signal and output, to assert on.
 *
 * The child gets a process group of its own, so that what it starts (tsx's node, the script's curl) goes with it: the
 * whole group is SIGKILLed when it outlives its time or the test that started it, so that a hung command does not keep
 * a test file's servers or directories in use after the test has failed.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished, TestRunner } from 'vitest';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
// Resolved here, so that a command run in another directory still finds it.
const TSX = fileURLToPath(import.meta.resolve('tsx'));

/**
 * How long a command may run unless its caller says otherwise: far longer than these commands take. A test whose own
 * timeout is shorter ends first, and its end kills the command.
 */
const DEFAULT_TIMEOUT_MS = 60_000;

/** How a command run by {@link runCommand} ended, and what it printed. */
export interface CommandRun {
  /** Its exit code; null when a signal ended it. */
  code: number | null;
  /** The signal that ended it (SIGKILL once {@link RunCommandOptions.timeoutMs} passed); null when it exited. */
  signal: NodeJS.Signals | null;
  stdout: string;
  /** Its stderr, and after a timeout a last line saying it was killed. */
  stderr: string;
}

/** Where and with what a command runs. */
export interface RunCommandOptions {
  /** Its whole environment: nothing of the test's own is passed on unless spread in here. */
  env: NodeJS.ProcessEnv;
  /** Its working directory; the repository unless given. */
  cwd?: string;
  /** After this long its process group is SIGKILLed; 60 s unless given. */
  timeoutMs?: number;
}

/**
 * Runs `command args` with no stdin and resolves once it has ended and closed its output. Its process group is
 * SIGKILLed after {@link RunCommandOptions.timeoutMs}, when the test that called this finishes first (passed, failed or
 * timed out), and when the test process exits; called from a hook (`beforeAll`), only the timeout and the exit apply.
 * Rejects only when the command cannot be started.
 */
export function runCommand(command: string, args: readonly string[], { env, cwd = REPO_ROOT, timeoutMs = DEFAULT_TIMEOUT_MS }: RunCommandOptions): Promise<CommandRun> {
  return new Promise<CommandRun>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let closed = false;
    // Only while it runs: once it has closed, its pid (and so the group's id) may belong to another process.
    const killGroup = (): void => {
      if (closed || child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    process.once('exit', killGroup);
    if (TestRunner.getCurrentTest()) onTestFinished(killGroup);

    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const settle = (): void => {
      closed = true;
      clearTimeout(timer);
      process.off('exit', killGroup);
    };
    child.once('error', (err) => {
      settle();
      reject(err);
    });
    child.once('close', (code, signal) => {
      settle();
      // An assertion on the code prints stderr: say there why the command ended.
      if (timedOut) stderr += `${stderr.endsWith('\n') || stderr === '' ? '' : '\n'}run-command: killed its process group after ${timeoutMs} ms\n`;
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Runs a TypeScript file of the repository under tsx as its npm script does (`node --import tsx file args`), in the
 * repository unless `cwd` says otherwise.
 */
export function runTsx(file: string, args: readonly string[], options: RunCommandOptions): Promise<CommandRun> {
  return runCommand(process.execPath, ['--import', TSX, path.join(REPO_ROOT, file), ...args], options);
}
