/**
 * The command-line tools' exit codes, as README's Commands section states them: 0 when the work is done, 1 when it
 * failed, 2 for a usage error (an unknown command or option, a missing or bad argument: the command line is wrong and
 * nothing was tried) or a configuration that does not parse. Walkthrough 43 found the same kind of mistake exiting 1
 * in one command and 2 in another: the ones commander reports (a bad `--k`, an unknown option) exited 1.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'cli-exit-codes-'));
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** Runs `src/cli/<name>.ts` as `npm run <name> -- args` does, on an empty DATA_DIR and no Redis. */
function run(name: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('src/cli', `${name}.ts`), ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: root,
        HELPDESK_ENV_FILE: 'none',
        DATA_DIR: path.join(root, 'data'),
        // Port 1: nothing listens; no row may reach a Redis.
        REDIS_URL: 'redis://127.0.0.1:1',
        EMBEDDINGS_PROVIDER: 'local',
        MEILI_HOST: '',
        QDRANT_URL: '',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('exit codes of the command-line tools', { timeout: 60_000 }, () => {
  it.each<[string, string, string[], number, RegExp]>([
    // Usage errors commander finds: 2, as the ones the commands find themselves.
    ['search: a bad --k', 'search', ['manual', 'x', '--k', '0'], 2, /positive integer/],
    ['search: an index that does not exist', 'search', ['faq', 'x'], 2, /faq/],
    ['search: an unknown option', 'search', ['manual', 'x', '--bogus'], 2, /unknown option '--bogus'/],
    ['search: no query (found by the command)', 'search', ['manual'], 2, /missing query/],
    ['ask: an unknown option', 'ask', ['--bogus'], 2, /unknown option '--bogus'/],
    ['review: no command (the help, on stderr)', 'review', [], 2, /Usage: review/],
    ['review: an unknown command', 'review', ['bogus'], 2, /unknown command 'bogus'/],
    ['review approve: --seen not a number', 'review', ['approve', 'abcdef12', '--seen', 'x'], 2, /whole number/],
    ['review list: --limit out of range (found by the command)', 'review', ['list', '--limit', '0'], 2, /--limit must be/],
    ['knowledge show: no id', 'knowledge', ['show'], 2, /missing required argument 'id'/],
    ['knowledge show: not an id (found by the command)', 'knowledge', ['show', 'abc'], 2, /not a learned-answer id/],
    ['reindex: --wait without --queue', 'reindex', ['--wait'], 2, /--wait needs --queue/],
    ['check: an unknown option', 'check', ['--bogus'], 2, /unknown option '--bogus'/],
    // Help asked for is no error; work that failed is 1.
    ['search --help', 'search', ['--help'], 0, /^$/],
    ['search with no index built: the work failed', 'search', ['manual', 'x'], 1, /no manual index yet/],
  ])('%s: exit %s', async (_case, name, args, code, stderr) => {
    const result = await run(name, args);
    expect(result.stderr).toMatch(stderr);
    expect(result.code, result.stderr).toBe(code);
  });
});
