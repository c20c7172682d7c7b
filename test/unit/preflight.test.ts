import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript (it must run before `npm ci`), no type declarations
import { installCommand, SYSTEM_PACKAGES, systemServicesNote } from '../../infra/preflight.mjs';

const script = path.resolve(import.meta.dirname, '../../infra/preflight.mjs');
// A PATH holding node and nothing else: redis-server, chromium's siblings and docker-compose look missing.
const bare = mkdtempSync(path.join(tmpdir(), 'preflight-'));
symlinkSync(process.execPath, path.join(bare, 'node'));
afterAll(() => rmSync(bare, { recursive: true, force: true }));

function run(...args: string[]) {
  return spawnSync(path.join(bare, 'node'), [script, ...args], { encoding: 'utf8', env: { PATH: bare } });
}

describe('preflight', () => {
  it('names each missing package and prints the one command that installs them', () => {
    const result = run('tests');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('npm test needs Debian packages that are missing');
    expect(result.stderr).toMatch(/redis-server: the Redis server/);
    const command = result.stderr.trim().split('\n').at(-1)!.trim();
    expect(command).toMatch(/apt-get install -y --no-install-recommends .*redis-server/);
    expect(command).toContain('docker-compose');
    // Installing them starts Debian's own Redis and Dovecot, which nothing here uses: the admin is told how to stop them.
    expect(result.stderr).toMatch(/^ {2}(sudo )?systemctl disable --now redis-server dovecot$/m);
  });

  it('lists the missing names for .ci/run', () => {
    const names = run('missing', 'tests').stdout.trim().split('\n');
    expect(names).toContain('redis-server');
    expect(names).toContain('docker-compose');
  });

  it('refuses unknown commands with usage and exit 2', () => {
    const result = run('--help');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('usage:');
  });

  it.each([
    [true, 'apt-get update && apt-get install -y --no-install-recommends redis-server'],
    [false, "sudo sh -c 'apt-get update && apt-get install -y --no-install-recommends redis-server'"],
  ])('install command as root=%s', (asRoot, expected) => {
    expect(installCommand([SYSTEM_PACKAGES[0]], asRoot)).toBe(expected);
  });

  const named = (...names: string[]) => SYSTEM_PACKAGES.filter((p: { name: string }) => names.includes(p.name));
  it.each([
    [['redis-server', 'dovecot-imapd', 'dovecot-core'], true, 'systemctl disable --now redis-server dovecot'],
    [['dovecot-imapd', 'dovecot-core'], false, 'sudo systemctl disable --now dovecot'],
    [['redis-server'], true, 'systemctl disable --now redis-server'],
  ])('tells how to stop the system services that installing %j starts (root=%s)', (names, asRoot, command) => {
    const note = systemServicesNote(named(...names), asRoot);
    expect(note).toMatch(/^note: Debian starts the system services /);
    expect(note.split('\n').at(-1)).toBe(`  ${command}`);
  });

  it('has no note for packages that bring no service', () => {
    expect(systemServicesNote(named('chromium', 'fonts-noto-cjk', 'docker-compose'), true)).toBeUndefined();
  });
});
