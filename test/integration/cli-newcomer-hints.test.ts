/**
 * The newcomer hints as the commands print them (their wording: test/unit/cli-newcomer-hints.test.ts): `npm run check`
 * with Redis out of reach names REDIS_URL, and `npm run sandbox` without a model suggests only next steps that work.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../support/sandbox.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = fileURLToPath(import.meta.resolve('tsx'));
const scratch = mkdtempSync(path.join(tmpdir(), 'newcomer-hints-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm run check with Redis out of reach', () => {
  it('names REDIS_URL on the Redis line', { timeout: 60_000 }, () => {
    const result = spawnSync(process.execPath, ['--import', TSX, path.join(REPO_ROOT, 'src/cli/check.ts')], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, HELPDESK_ENV_FILE: 'none', LOG_LEVEL: 'silent', REDIS_URL: 'redis://127.0.0.1:1', EMBEDDINGS_PROVIDER: 'local' },
    });
    expect(result.stdout, result.stderr).toMatch(/^✗ Redis: .*Set REDIS_URL/m);
  });
});

describe('npm run sandbox without a model', () => {
  it('suggests next steps that work without one', { timeout: 90_000 }, async () => {
    const home = mkdtempSync(path.join(scratch, 'sandbox-'));
    // Stopped by startSandbox's own hook should the wait fail or time out.
    const running = await startSandbox({ home, env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: '' }, readyWhen: 'then:' });
    running.kill('SIGINT');
    await running.closed;
    const out = running.output();
    expect(out).not.toContain('in another terminal:  npm run reindex && npm start');
    expect(out).toContain('npm run sandbox -- --llm');
    expect(out).toContain('EMBEDDINGS_PROVIDER=local npm run reindex');
  });
});
