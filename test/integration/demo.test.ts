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

describe('npm run demo', () => {
  let dir: string | undefined;
  let pid: number | undefined;
  afterAll(async () => {
    // A failing run must not leave the demo and its servers behind.
    if (pid) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers one mail, parks the other, and Ctrl-C stops everything and gives .env back', { timeout: 180_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'helpdesk-demo-'));
    // As `cp .env.example .env` leaves it: the placeholder key names no model, so the scripted one answers.
    const ownEnv = '# my own settings\nLOG_LEVEL=debug\nSMTP_HOST=mail.example.com\nOPENAI_API_KEY=not-needed\n';
    await writeFile(path.join(dir, '.env'), ownEnv);
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir };
    const child = spawn(process.execPath, ['--import', TSX, path.join(REPO_ROOT, 'src/cli/demo.ts')], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    pid = child.pid;
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    await new Promise<void>((resolve, reject) => {
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
    expect(out).toContain('answered automatically');
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
    process.kill(-pid!, 'SIGINT');
    process.kill(-pid!, 'SIGINT');
    expect(await exited).toBe(0);
    pid = undefined;
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(out).toContain('your .env is back');
    expect(await readFile(path.join(dir, '.env'), 'utf8')).toBe(ownEnv);
    expect(existsSync(path.join(dir, '.env.before-demo'))).toBe(false);
    expect(await listening(lent.REDIS_URL!)).toBe(false);
    expect(await listening(`imap://${lent.IMAP_HOST}:${lent.IMAP_PORT}`)).toBe(false);
    expect(await listening(`smtp://${lent.SMTP_HOST}:${lent.SMTP_PORT}`)).toBe(false);
  });
});
