/**
 * `npm run sandbox` (infra/sandbox.ts) as a user runs it, for tests of how it starts and stops: a child process in a
 * home directory of the test's, its stdout and stderr collected together.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = fileURLToPath(import.meta.resolve('tsx'));

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
 * exits first or is not up within 60 s.
 */
export async function startSandbox({ home, args = [], env, readyWhen = 'sandbox running' }: SandboxStart): Promise<RunningSandbox> {
  const child = spawn(process.execPath, ['--import', TSX, path.join(REPO_ROOT, 'infra/sandbox.ts'), ...args], {
    cwd: home,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  for (let waited = 0; !out.includes(readyWhen); waited += 100) {
    if (waited > 60_000 || child.exitCode !== null) throw new Error(`the sandbox did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { output: () => out, closed, kill: (signal) => void child.kill(signal) };
}
