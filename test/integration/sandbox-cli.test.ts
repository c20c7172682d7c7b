/**
 * The sandbox's command line: help and mistakes print the usage and change nothing (no second sandbox, no `.env`
 * rewritten, no mail sent with "--help" as its question).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox } from '../support/sandbox.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = fileURLToPath(import.meta.resolve('tsx'));
const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sandbox(...args: string[]) {
  return spawnSync(process.execPath, ['--import', TSX, path.join(REPO_ROOT, 'infra/sandbox.ts'), ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
}

describe('npm run sandbox arguments', () => {
  it('--help prints the usage and starts nothing', () => {
    const result = sandbox('--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('usage:');
    expect(existsSync(path.join(dir, '.env'))).toBe(false);
  });

  it.each([[['bogus']], [['--bogus']], [['--llm', '--verbose']], [['send', '--help']], [['send', '--from']], [['send']]])('%j: usage on stderr, exit 2, nothing changed', (args) => {
    const result = sandbox(...args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('usage:');
    expect(result.stdout).not.toContain('delivered');
    expect(existsSync(path.join(dir, '.env'))).toBe(false);
    expect(existsSync(path.join(dir, '.data'))).toBe(false);
  });
});

describe('npm run sandbox, failing to start', () => {
  // A server that fails after Redis started (here Dovecot: its sockets' paths under a very long TMPDIR exceed the
  // limit of a unix socket path) must not leave Redis running: it kept the sandbox, and the terminal, waiting for ever.
  it('a server that cannot start: exit 1 with the reason, and the servers started before it stopped', async () => {
    // Unique per run: two suites at once (CI beside a developer) must not share, remove or pgrep each other's.
    const longTmp = path.join(tmpdir(), `sandbox-fail-${process.pid}-${randomBytes(4).toString('hex')}-${'x'.repeat(100)}`);
    mkdirSync(longTmp, { recursive: true });
    const home = mkdtempSync(path.join(dir, 'fail-'));
    onTestFinished(() => rmSync(longTmp, { recursive: true, force: true }));
    const result = spawnSync(process.execPath, ['--import', TSX, path.join(REPO_ROOT, 'infra/sandbox.ts')], {
      cwd: home,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, TMPDIR: longTmp },
    });
    expect(result.signal, result.stderr).toBeNull();
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/dovecot|Dovecot/);
    // No server of it is left: their data directories live under that TMPDIR.
    expect(spawnSync('pgrep', ['-f', longTmp]).status).toBe(1);
    expect(existsSync(path.join(home, '.env'))).toBe(false);
  });
});

describe('npm run sandbox, stopped', () => {
  it('by a closed terminal (SIGHUP): servers stopped, the .env given back, one written meanwhile kept beside it', async () => {
    const home = mkdtempSync(path.join(dir, 'hup-'));
    const own = 'LOG_LEVEL=debug\n';
    writeFileSync(path.join(home, '.env'), own);
    const running = await startSandbox({ home, args: ['--llm'] });
    // The user fills their .env from the Compose sample while the sandbox runs.
    const edited = 'IMAP_HOST=mail\nMEILI_MASTER_KEY=generated-once\n';
    writeFileSync(path.join(home, '.env'), edited);
    running.kill('SIGHUP');
    expect(await running.closed, running.output()).toBe(0);
    expect(readFileSync(path.join(home, '.env'), 'utf8')).toBe(own);
    expect(readFileSync(path.join(home, '.env.edited-meanwhile'), 'utf8')).toBe(edited);
    expect(existsSync(path.join(home, '.env.before-sandbox'))).toBe(false);
    expect(running.output()).toContain('kept as .env.edited-meanwhile');
    // Walkthrough W1: the stop ended at "stopping…", as if it hung; it ends with what happened to the .env, as the demo's.
    expect(running.output()).toContain('stopped; your .env is back.');
  }, 90_000);

  it('by Ctrl-C (SIGINT) without a .env of the user’s: says so at start, and that the sandbox’s is removed', async () => {
    const home = mkdtempSync(path.join(dir, 'int-'));
    // The dashboard's port taken by another program (newcomer's walk, 3): the sandbox lends a free one instead.
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    onTestFinished(() => void holder.close());
    const taken = (holder.address() as AddressInfo).port;
    const running = await startSandbox({ home, args: ['--llm'], env: { DASHBOARD_PORT: String(taken) } });
    // No ".env.before-sandbox" to look for: there was nothing of the user's to keep.
    expect(running.output()).toContain('you had no .env; it is removed when the sandbox stops');
    expect(running.output()).not.toContain('your own is in .env.before-sandbox');
    const lent = readFileSync(path.join(home, '.env'), 'utf8');
    expect(lent).not.toContain('.env.before-sandbox');
    const port = /^DASHBOARD_PORT=(\d+)$/m.exec(lent)?.[1];
    expect(port, lent).toBeDefined();
    expect(Number(port)).not.toBe(taken);
    expect(running.output()).toContain(`dashboard, once npm start runs: http://127.0.0.1:${port} (port ${taken} is in use)`);
    running.kill('SIGINT');
    expect(await running.closed, running.output()).toBe(0);
    expect(existsSync(path.join(home, '.env'))).toBe(false);
    expect(existsSync(path.join(home, '.env.before-sandbox'))).toBe(false);
    expect(running.output()).toContain("stopped; the sandbox's .env is removed.");
  }, 90_000);
});

