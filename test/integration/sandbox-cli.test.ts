/**
 * The sandbox's command line: help and mistakes print the usage and change nothing (no second sandbox, no `.env`
 * rewritten, no mail sent with "--help" as its question).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

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
