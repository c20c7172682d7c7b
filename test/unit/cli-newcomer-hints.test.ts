/**
 * What a newcomer reads first: the review mode a fresh install starts in, and the one-line hints of the command-line
 * tools when a server is missing, a stand-in's `.env` was left behind, or an approval could teach the desk. The same
 * hints as the commands print them: test/integration/cli-newcomer-hints.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { APIConnectionError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { approvalMessage, describeError, lentEnvNote } from '../../src/cli/common.js';
import { OWN_SERVER_HINT } from '../../src/openai.js';
import { RedisUnavailableError } from '../../src/queues/connection.js';
import { learnVerdict } from '../../src/tickets/trust.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

describe('the review mode a fresh install starts in', () => {
  it('is learn: nothing goes out unreviewed until its sources earned trust', () => {
    expect(parseConfig({}).REVIEW_MODE).toBe('learn');
  });

  // A draft the model wrote from its own knowledge has no source to earn trust: even a fully answered one waits.
  it('parks, with no reviews yet, a fully answered draft that cites nothing', async () => {
    const subtasks = [{ taskName: '二段階認証', isCompleted: true, toolResults: [] }] as unknown as Parameters<typeof learnVerdict>[2]['subtasks'];
    const settings = { TRUST_MIN_REVIEWS: 5, TRUST_MIN_AS_IS: 0.9, TRUST_WINDOW: 20, TRUST_MAX_EDIT_RATIO: 0.2 };
    // Nothing cited, nothing to read: the verdict is reached before Redis is asked.
    const verdict = await learnVerdict(undefined as never, 'unused', { subtasks }, settings);
    expect(verdict).toMatchObject({ send: false, reason: 'not yet trusted: the draft cites no source' });
  });

  it.each([['.env.example'], ['infra/compose.env.example']])('%s sets REVIEW_MODE=learn, with a comment above it', (file) => {
    const lines = readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n');
    const at = lines.indexOf('REVIEW_MODE=learn');
    expect(at, file).toBeGreaterThan(0);
    expect(lines[at - 1]).toMatch(/^#/);
    expect(lines.filter((l) => /^REVIEW_MODE=/.test(l))).toEqual(['REVIEW_MODE=learn']);
  });
});

const unreachable = () => new APIConnectionError({ message: 'Connection error.', cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });

describe('describeError, the model server out of reach', () => {
  it.each([
    {
      name: 'own server set: the URL tried and what to check',
      config: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'not-needed' },
      has: ['http://127.0.0.1:9/v1', 'check OPENAI_BASE_URL / that the server is running'],
      lacks: ['EMBEDDINGS_PROVIDER=local'],
    },
    {
      name: 'OpenAI with the placeholder key: the key, as check says it',
      config: { OPENAI_BASE_URL: undefined, OPENAI_API_KEY: 'not-needed' },
      has: ['https://api.openai.com/v1', 'OPENAI_API_KEY is not set (or is the placeholder not-needed'],
      lacks: ['EMBEDDINGS_PROVIDER=local'],
    },
    {
      name: 'OpenAI with a real key: what else works',
      config: { OPENAI_BASE_URL: undefined, OPENAI_API_KEY: 'sk-real' },
      has: ['https://api.openai.com/v1', OWN_SERVER_HINT],
      lacks: ['placeholder'],
    },
  ])('$name', ({ config, has, lacks }) => {
    const line = describeError(unreachable(), config);
    for (const text of has) expect(line).toContain(text);
    for (const text of lacks) expect(line).not.toContain(text);
  });
});

describe('describeError never shows a secret of OPENAI_BASE_URL or the key', () => {
  // Node's fetch refuses a URL with credentials and repeats the whole URL in its error.
  const refusedUrl = (url: string) => new APIConnectionError({ cause: new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url}/chat/completions`) });
  const answered = (status: number, message: string) => APIError.generate(status, undefined, message, new Headers());
  it.each<[string, unknown, { OPENAI_BASE_URL: string | undefined; OPENAI_API_KEY?: string }, string, string]>([
    ['a password the server could not be reached with', refusedUrl('http://apikey:verysecretpassword@127.0.0.1:1/v1'), { OPENAI_BASE_URL: 'http://apikey:verysecretpassword@127.0.0.1:1/v1', OPENAI_API_KEY: 'sk-x' }, 'verysecretpassword', 'at http://***@127.0.0.1:1/v1:'],
    ['a short password', refusedUrl('http://bob:pw12@127.0.0.1:1/v1'), { OPENAI_BASE_URL: 'http://bob:pw12@127.0.0.1:1/v1' }, 'pw12', 'http://***@127.0.0.1:1/v1'],
    ['a query token the server answered about', answered(401, 'no route /v1?api-key=Ab%2Bcd%2FEFGH'), { OPENAI_BASE_URL: 'https://gw.example.com/v1?api-key=Ab%2Bcd%2FEFGH' }, 'Ab%2Bcd', 'at https://gw.example.com/v1?api-key=*** answered 401'],
    ['the key echoed URL-encoded', answered(401, 'Incorrect API key provided: sk-ab%2Fcd%2Bef%3Dgh12'), { OPENAI_BASE_URL: undefined, OPENAI_API_KEY: 'sk-ab/cd+ef=gh12' }, 'sk-ab', 'https://api.openai.com/v1 answered 401'],
  ])('%s', (_what, err, config, secret, shown) => {
    const line = describeError(err, config);
    expect(line).not.toContain(secret);
    expect(line).toContain(shown);
  });
});

describe('describeError, Redis out of reach', () => {
  it('asks whether Redis runs and names REDIS_URL', () => {
    expect(describeError(new RedisUnavailableError('redis://127.0.0.1:1', new Error('connect ECONNREFUSED')))).toMatch(
      /^Redis unavailable at redis:\/\/127\.0\.0\.1:1: connect ECONNREFUSED: is Redis running\? Set REDIS_URL/,
    );
  });

  // Each row a checkout as the stand-ins leave it: the backup of the user's .env, and the state file a running one
  // keeps (removed when it stops; left with a dead pid when it was killed).
  const dead = spawnSync(process.execPath, ['-e', '']).pid;
  it.each<{ name: string; backup?: string; state?: [string, number]; has: string[]; lacks: string[] }>([
    { name: 'nothing lent', has: [], lacks: ['.env.before'] },
    { name: 'a sandbox killed before it recorded itself', backup: '.env.before-sandbox', has: ['a sandbox that is no longer running', 'your own is .env.before-sandbox', 'npm run sandbox'], lacks: ['.env.before-demo', 'pid'] },
    { name: 'a killed sandbox', backup: '.env.before-sandbox', state: ['.data/sandbox/sandbox.json', dead], has: ['a sandbox that is no longer running', 'your own is .env.before-sandbox'], lacks: ['still running'] },
    { name: 'a sandbox still running', backup: '.env.before-sandbox', state: ['.data/sandbox/sandbox.json', process.pid], has: [`the sandbox still running as pid ${process.pid}`, 'your own .env waits in .env.before-sandbox'], lacks: ['no longer running', 'restores it'] },
    { name: 'a killed demo', backup: '.env.before-demo', state: ['.data/demo/demo.json', dead], has: ['a demo that is no longer running', 'your own is .env.before-demo', 'npm run demo'], lacks: ['.env.before-sandbox'] },
    { name: 'a demo still running', backup: '.env.before-demo', state: ['.data/demo/demo.json', process.pid], has: [`the demo still running as pid ${process.pid}`, '.env.before-demo'], lacks: ['no longer running'] },
    // Review 44b: kill(0, 0) and kill(-1, 0) ask about the process group and every process, and succeed; no pid of a
    // stand-in is either, nor a fraction or text.
    ...[0, -1, 1.5, '42'].map((pid) => ({ name: `a sandbox state with pid ${JSON.stringify(pid)}`, backup: '.env.before-sandbox', state: ['.data/sandbox/sandbox.json', pid] as [string, number], has: ['a sandbox that is no longer running'], lacks: ['still running'] })),
    // A process of another user answers kill(pid, 0) with EPERM: alive (pid 1 is init, root's; alive as root too).
    { name: 'a sandbox whose pid belongs to another user', backup: '.env.before-sandbox', state: ['.data/sandbox/sandbox.json', 1], has: ['the sandbox still running as pid 1'], lacks: ['no longer running'] },
  ])('$name', ({ backup, state, has, lacks }) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lent-env-'));
    try {
      if (backup) writeFileSync(path.join(dir, backup), 'OPENAI_API_KEY=mine\n');
      if (state) {
        mkdirSync(path.dirname(path.join(dir, state[0])), { recursive: true });
        writeFileSync(path.join(dir, state[0]), JSON.stringify({ pid: state[1], imap: { host: '127.0.0.1', port: 1, user: 'u', password: 'p' } }));
      }
      const note = lentEnvNote(dir);
      if (has.length === 0) expect(note).toBe('');
      for (const text of has) expect(note).toContain(text);
      for (const text of lacks) expect(note).not.toContain(text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('review approve', () => {
  it('points at the learned-answer candidates the approval may propose', () => {
    const text = approvalMessage('t-1', 'ana');
    expect(text.split('\n')[0]).toBe('approved t-1 (by ana); the reply is queued for sending');
    expect(text).toContain('npm run knowledge -- list');
    expect(text).toContain('/knowledge');
    expect(text.split('\n')).toHaveLength(2);
  });
});
