/**
 * Child processes of the benchmark and what the kernel says about them: CPU time (utime + stime of every thread,
 * from /proc/<pid>/stat) and peak resident memory (VmHWM from /proc/<pid>/status). Reading /proc needs nothing from
 * the product: the workers run exactly as `npm start` would run them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** Repository root; children start here, as the npm scripts do. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK)

/** CPU milliseconds (user + system, all threads) the process has used so far. */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces; the fields after it start behind the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Peak resident set size (VmHWM) in MB, and the current one (VmRSS). */
export async function memoryMb(pid: number): Promise<{ peak: number; current: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { peak: kb('VmHWM') / 1024, current: kb('VmRSS') / 1024 };
}

/** A product or helper process started by the benchmark, its stdout and stderr going to a log file. */
export interface Child {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once the log contains a line matching `pattern`; rejects on timeout or early exit. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<void>;
  log(): Promise<string>;
  /** SIGTERM (graceful: running jobs finish, a --cpu-prof profile is written), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Options of {@link startChild}. */
export interface ChildOptions {
  name: string;
  /**
   * Script relative to the repository: TypeScript runs with `node [nodeArgs] --import tsx`, JavaScript (the roles
   * built into `dist/` by {@link buildRoles}) with plain `node [nodeArgs]`, as `npm run <role>` runs it.
   */
  script: string;
  args?: string[];
  env: Record<string, string>;
  logFile: string;
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** An IPC channel to the child (for helpers that report over `process.send`). */
  ipc?: boolean;
}

const running = new Set<ChildProcess>();
// A benchmark that dies half-way must not leave workers behind polling a deleted Redis.
process.once('exit', () => {
  for (const c of running) c.kill('SIGKILL');
});

/** Builds the roles into `dist/` as `npm run build` does (the npm role scripts build before they start). */
export function buildRoles(): void {
  const result = spawnSync(process.execPath, [path.join(REPO_ROOT, 'infra/build.mjs')], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stderr}`);
}

/** Starts an entry of the repository (the pid is node's own, so /proc figures are the worker's); see `script`. */
export function startChild(options: ChildOptions): Child & { process: ChildProcess } {
  const fd = openSync(options.logFile, 'a');
  const loader = options.script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, path.join(REPO_ROOT, options.script), ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: options.ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
  });
  closeSync(fd);
  running.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  let done = false;
  void exited.then(() => (done = true));
  const log = () => readFile(options.logFile, 'utf8').catch(() => '');
  return {
    name: options.name,
    pid: child.pid ?? -1,
    logFile: options.logFile,
    process: child,
    exited,
    log,
    async waitForLog(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = await log();
        if (pattern.test(text)) return;
        if (done) throw new Error(`${options.name} exited before logging ${pattern}; log ${options.logFile}:\n${text.slice(-3000)}`);
        if (Date.now() > deadline) throw new Error(`${options.name} did not log ${pattern} within ${timeoutMs} ms; log ${options.logFile}:\n${text.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop(graceMs = 20_000) {
      if (done) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** CPU milliseconds of several processes together. */
export async function totalCpuMs(pids: readonly number[]): Promise<number[]> {
  return Promise.all(pids.map((pid) => cpuMs(pid)));
}
