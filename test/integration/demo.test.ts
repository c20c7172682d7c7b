/**
 * `npm run demo` as a newcomer runs it: from a directory with their own `.env`, the whole main job in one terminal —
 * one mail answered, one parked with the way to approve it — and Ctrl-C as a terminal sends it (SIGINT to the whole
 * process group, twice: from the terminal and from npm) stops everything, exit 0, the user's `.env` back.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseDotenv } from 'dotenv';
import { afterAll, describe, expect, it } from 'vitest';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = fileURLToPath(import.meta.resolve('tsx'));

function listening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

interface RunningDemo {
  pid: number;
  output(): string;
  exited: Promise<number | null>;
  /** Resolves once the demo printed how to stop it; rejects when it exited before. */
  ready: Promise<void>;
}

/** Starts `npm run demo`'s entry in `dir`, in its own process group (as a terminal runs it). */
function startDemo(dir: string): RunningDemo {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir };
  const child = spawn(process.execPath, ['--import', TSX, path.join(REPO_ROOT, 'src/cli/demo.ts')], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes('Ctrl-C stops everything')) {
        clearInterval(timer);
        resolve();
      }
    }, 200);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`the demo exited (${code}) before it was ready:\n${out}`));
    });
  });
  return { pid: child.pid!, output: () => out, exited, ready };
}

describe('npm run demo', () => {
  const dirs: string[] = [];
  const pids = new Set<number>();
  afterAll(async () => {
    // A failing run must not leave the demo and its servers behind.
    for (const pid of pids) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  async function demoDir(ownEnv: string): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'helpdesk-demo-'));
    dirs.push(dir);
    await writeFile(path.join(dir, '.env'), ownEnv);
    return dir;
  }

  async function stop(demo: RunningDemo): Promise<number | null> {
    process.kill(-demo.pid, 'SIGINT');
    process.kill(-demo.pid, 'SIGINT');
    const code = await demo.exited;
    pids.delete(demo.pid);
    return code;
  }

  it('answers one mail, parks the other, and Ctrl-C stops everything and gives .env back', { timeout: 180_000 }, async () => {
    // As `cp .env.example .env` leaves it: the placeholder key names no model, so the scripted one answers.
    const ownEnv = '# my own settings\nLOG_LEVEL=debug\nSMTP_HOST=mail.example.com\nOPENAI_API_KEY=not-needed\n';
    const dir = await demoDir(ownEnv);
    const demo = startDemo(dir);
    pids.add(demo.pid);
    await demo.ready;
    const out = demo.output();
    expect(out).toContain('answered automatically');
    expect(out).toContain('the scripted stand-in pastes the passages');
    expect(out).toMatch(/── reply to hanako\.sato@example\.com: Re: 二段階認証の設定/);
    expect(out).toContain('parked for a person');
    expect(out).toMatch(/answer: {3}npm run review -- approve [0-9a-f]{12} --reply-file answer\.txt /);
    expect(out).toMatch(/or: {7}npm run review -- reject [0-9a-f]{12} --reason/);
    expect(out).toMatch(/dashboard: http:\/\/127\.0\.0\.1:\d+ {3}user admin, password \S{12,}/);

    // While it runs, .env points at its servers on top of the user's own lines.
    const lent = parseDotenv(await readFile(path.join(dir, '.env')));
    expect(lent.LOG_LEVEL).toBe('warn');
    expect(await listening(lent.REDIS_URL!)).toBe(true);
    expect(await readFile(path.join(dir, '.env.before-demo'), 'utf8')).toBe(ownEnv);

    const started = performance.now();
    expect(await stop(demo)).toBe(0);
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(demo.output()).toContain('stopped; your .env is back.');
    // The learned answer comes of an approval: the demo says so rather than offering one before any was made.
    expect(out).toMatch(/then: {5}once you approved a reply, accept the learned answer it proposes on http:\/\/127\.0\.0\.1:\d+\/knowledge/);
    expect(await readFile(path.join(dir, '.env'), 'utf8')).toBe(ownEnv);
    expect(existsSync(path.join(dir, '.env.before-demo'))).toBe(false);
    expect(await listening(lent.REDIS_URL!)).toBe(false);
    expect(await listening(`imap://${lent.IMAP_HOST}:${lent.IMAP_PORT}`)).toBe(false);
    expect(await listening(`smtp://${lent.SMTP_HOST}:${lent.SMTP_PORT}`)).toBe(false);
  });

  // Walkthrough: "your .env is back" was printed to a user who had none; stopping removes the demo's instead.
  it("says it removes its own .env when there was none before, and does", { timeout: 180_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'helpdesk-demo-'));
    dirs.push(dir);
    const demo = startDemo(dir);
    pids.add(demo.pid);
    await demo.ready;
    expect(demo.output()).toContain("Ctrl-C stops everything and removes the demo's .env.");
    expect(existsSync(path.join(dir, '.env'))).toBe(true);
    expect(await stop(demo)).toBe(0);
    expect(demo.output()).toContain("stopped; the demo's .env is removed.");
    expect(demo.output()).not.toContain('your .env');
    expect(existsSync(path.join(dir, '.env'))).toBe(false);
    expect(existsSync(path.join(dir, '.env.before-demo'))).toBe(false);
  });

  it('runs beside a second demo started at the same moment: each dashboard on a port of its own', { timeout: 180_000 }, async () => {
    const demos = await Promise.all(['a', 'b'].map(async () => startDemo(await demoDir('OPENAI_API_KEY=not-needed\n'))));
    for (const demo of demos) pids.add(demo.pid);
    await Promise.all(demos.map((d) => d.ready));
    const urls = demos.map((d) => /dashboard: (http:\/\/127\.0\.0\.1:\d+)/.exec(d.output())?.[1]);
    expect(new Set(urls).size).toBe(2);
    for (const url of urls) expect(await listening(url!)).toBe(true);
    // README promises 3000: the one that could not have it says so when it starts, naming the port it took instead.
    for (const [i, demo] of demos.entries()) {
      const moved = /port 3000 is taken[^\n]*(http:\/\/127\.0\.0\.1:\d+)/.exec(demo.output());
      if (urls[i] === 'http://127.0.0.1:3000') expect(moved).toBeNull();
      else expect(moved?.[1], demo.output()).toBe(urls[i]);
    }
    expect(await Promise.all(demos.map(stop))).toEqual([0, 0]);
  });
});
