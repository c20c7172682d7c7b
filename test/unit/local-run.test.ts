import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lendEnvFile, nextFileNumber, readLiveRunState } from '../../src/dev/local-run.js';

const HEADER = '# written by a stand-in';

describe('lendEnvFile', () => {
  let dir: string;
  let env: string;
  let backup: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'lend-env-'));
    env = path.join(dir, '.env');
    backup = path.join(dir, '.env.before');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the user lines it does not override and gives the file back byte for byte', () => {
    const own = '# mine\nLOG_LEVEL=debug\nREDIS_URL=redis://prod:6379\n';
    writeFileSync(env, own);
    const lent = lendEnvFile(env, backup, { REDIS_URL: 'redis://127.0.0.1:1234' }, HEADER);
    expect(readFileSync(env, 'utf8')).toBe(`# mine\nLOG_LEVEL=debug\n${HEADER}\nREDIS_URL=redis://127.0.0.1:1234\n`);
    lent.restore();
    lent.restore();
    expect(readFileSync(env, 'utf8')).toBe(own);
    expect(existsSync(backup)).toBe(false);
  });

  // Security review 17: the user's .env holds the model key and the mailbox and dashboard passwords; a 0600 file came
  // back 0644 (its copy was created with the default mode and renamed over it).
  it('keeps a private .env private: the copy, the lent file and the restored file are 0600', () => {
    writeFileSync(env, 'OPENAI_API_KEY=sk-secret\n', { mode: 0o600 });
    const lent = lendEnvFile(env, backup, { REDIS_URL: 'redis://127.0.0.1:1234' }, HEADER);
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(statSync(env).mode & 0o777).toBe(0o600);
    lent.restore();
    expect(statSync(env).mode & 0o777).toBe(0o600);
  });

  it('after a run that died without restoring, a second start keeps the first backup and adds the header once', () => {
    const own = 'LOG_LEVEL=debug\n';
    writeFileSync(env, own);
    lendEnvFile(env, backup, { REDIS_URL: 'redis://127.0.0.1:1' }, HEADER); // killed: never restored
    const second = lendEnvFile(env, backup, { REDIS_URL: 'redis://127.0.0.1:2' }, HEADER);
    expect(readFileSync(backup, 'utf8')).toBe(own);
    const lines = readFileSync(env, 'utf8').split('\n');
    expect(lines.filter((l) => l === HEADER)).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('REDIS_URL='))).toEqual(['REDIS_URL=redis://127.0.0.1:2']);
    second.restore();
    expect(readFileSync(env, 'utf8')).toBe(own);
  });

  it('keeps a .env the user wrote meanwhile beside the restored one, and says where', () => {
    const own = 'LOG_LEVEL=debug\n';
    writeFileSync(env, own);
    const lent = lendEnvFile(env, backup, { REDIS_URL: 'redis://127.0.0.1:1' }, HEADER);
    const edited = 'IMAP_HOST=mail.example\nMEILI_MASTER_KEY=generated-and-not-written-down\n';
    writeFileSync(env, edited);
    const kept = lent.restore();
    expect(readFileSync(env, 'utf8')).toBe(own);
    expect(kept).toBe(`${env}.edited-meanwhile`);
    expect(readFileSync(kept!, 'utf8')).toBe(edited);
    expect(lent.restore()).toBeUndefined();
  });

  it('removes its .env when the user had none', () => {
    const lent = lendEnvFile(env, backup, { A: '1' }, HEADER);
    expect(readFileSync(env, 'utf8')).toContain('A=1');
    lent.restore();
    expect(existsSync(env)).toBe(false);
    expect(existsSync(backup)).toBe(false);
  });
});

describe('readLiveRunState', () => {
  it('ignores a state file whose process is gone', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'run-state-'));
    const file = path.join(dir, 'state.json');
    const imap = { host: '127.0.0.1', port: 1, user: 'u', password: 'p' };
    writeFileSync(file, JSON.stringify({ pid: process.pid, imap }));
    expect(readLiveRunState(file)?.pid).toBe(process.pid);
    writeFileSync(file, JSON.stringify({ pid: 2 ** 22 + 12345, imap }));
    expect(readLiveRunState(file)).toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('nextFileNumber', () => {
  it.each([
    [[], 1],
    [['0001.eml', '0002.eml', 'notes.txt'], 3],
    [['0009.eml', '0003.eml'], 10],
  ])('%j → %i', (names, expected) => expect(nextFileNumber(names)).toBe(expected));
});
