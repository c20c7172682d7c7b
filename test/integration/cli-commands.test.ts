/**
 * The three command-line tools as an operator runs them: separate processes, configuration from the environment,
 * the embedded search engines under a temporary DATA_DIR and the scripted OpenAI-compatible server as the LLM.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agent/types.js';
import { startOpenAIServer, type OpenAIServer } from '../../src/dev/openai-server.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { TWO_TOPIC_QUESTION, scriptedModel } from '../../src/dev/scripted-model.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

let server: OpenAIServer;
let redis: RedisServer;
let root: string;
let baseEnv: Record<string, string>;

/** Runs `src/cli/<name>.ts` like `npm run <name> -- args` does (tsx), with the test environment. */
function run(name: string, args: string[], env: Record<string, string> = {}, input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('src/cli', `${name}.ts`), ...args], {
      cwd: ROOT,
      env: { ...baseEnv, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const stderrLines = (r: RunResult) => r.stderr.split('\n').filter(Boolean);

// Every run starts a Node process that compiles TypeScript on the fly; several runs per test need more than the
// default 30 s on a busy two-core CI machine.
const SLOW = { timeout: 180_000 };

beforeAll(async () => {
  [server, redis] = await Promise.all([startOpenAIServer({ handler: scriptedModel({ tools: 'both' }) }), startRedis()]);
  root = await mkdtemp(path.join(tmpdir(), 'cli-commands-'));
  baseEnv = {
    PATH: process.env.PATH ?? '',
    HOME: root,
    DATA_DIR: path.join(root, 'data'),
    MANUALS_DIR: path.join(ROOT, 'data/manuals'),
    QA_DIR: path.join(ROOT, 'data/qa'),
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDING_DIMENSIONS: '256',
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: 'test',
    OPENAI_MODEL: 'scripted-model',
    LLM_MAX_RETRIES: '0',
    LOG_LEVEL: 'warn',
    // Never the checkout's .env nor the Redis on the default port: README's own redis-server listens there, and a
    // reindex run by this test would record its build as the one a developer's running agent workers must serve.
    // A Redis of its own instead, where reindex records its builds (without one it warns that it could not).
    HELPDESK_ENV_FILE: 'none',
    REDIS_URL: redis.url,
    // Empty counts as unset and wins over a developer's .env: the embedded engines, the built-in prompts.
    MEILI_HOST: '',
    QDRANT_URL: '',
    PROMPTS_FILE: '',
  };
});

afterAll(async () => {
  await Promise.allSettled([server?.close(), redis?.stop()]);
  if (root) await rm(root, { recursive: true, force: true });
});

describe('before any reindex', SLOW, () => {
  it('search and ask say how to build the index', async () => {
    const [search, ask] = await Promise.all([run('search', ['manual', '二段階認証']), run('ask', ['--json', '二段階認証の設定方法は？'])]);
    expect(search.code).toBe(1);
    expect(search.stdout).toBe('');
    expect(stderrLines(search)).toEqual(['search: no manual index yet: run npm run reindex']);

    expect(ask.code).toBe(1);
    expect(ask.stdout).toBe('');
    expect(stderrLines(ask)).toEqual(['ask: no manual index yet: run npm run reindex']);
    expect(server.chatRequests()).toHaveLength(0);
  });

  it("README's \"ask the agent directly\" line runs without Redis: reindex warns that its build is not recorded, ask answers", async () => {
    // As README has it, through npm and sh: `npm run reindex && npm run -s ask -- --json "…"`, on a fresh DATA_DIR.
    const port = await closedPort();
    const demo = await new Promise<RunResult>((resolve, reject) => {
      const child = spawn('sh', ['-c', 'npm run reindex && npm run -s ask -- --json "$QUESTION"'], {
        cwd: ROOT,
        env: { ...baseEnv, DATA_DIR: path.join(root, 'readme-demo'), REDIS_URL: `redis://127.0.0.1:${port}`, QUESTION: TWO_TOPIC_QUESTION },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stderr).toContain(`not recorded: Redis is unreachable at redis://127.0.0.1:${port}`);
    const answer = JSON.parse(demo.stdout.slice(demo.stdout.indexOf('\n{') + 1)) as AgentResult;
    expect(answer.answer).toMatch(/認証アプリ/);
  });

  it('env:example --help prints the usage and rewrites nothing; an unknown option exits 2', async () => {
    const files = ['.env.example', 'README.md'].map((f) => path.join(ROOT, f));
    const before = await Promise.all(files.map(async (f) => (await stat(f)).mtimeMs));
    const help = await run('env-example', ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run env:example\n/);
    const bogus = await run('env-example', ['--bogus']);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain("Unknown option '--bogus'");
    expect(await Promise.all(files.map(async (f) => (await stat(f)).mtimeMs))).toEqual(before);
  });

  it('invalid configuration exits 2 naming the variable', async () => {
    const result = await run('reindex', [], { CHUNK_SIZE: 'big' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/CHUNK_SIZE="big"/);
  });
});

describe('reindex, search, ask', SLOW, () => {
  it('reindex prints one summary line on stdout and progress lines on stderr', async () => {
    const result = await run('reindex', [], { LOG_LEVEL: 'info' });
    expect(result.stderr).not.toMatch(/^reindex: /m);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^reindexed: 1 manual file, \d+ chunks, \d+ Q&A pairs in \d+\.\d s\n$/);
    const progress = stderrLines(result)
      .map((l) => JSON.parse(l) as { msg: string; stage?: string })
      .filter((l) => l.stage !== undefined)
      .map((l) => l.msg);
    expect(progress).toContain('manual read 1/1');
    expect(progress).toContain('Q&A read 1/1');
    expect(progress.some((m) => /^Q&A embed (\d+)\/\1$/.test(m))).toBe(true);
  });

  it('reindex --manual-only / --qa-only, and --json', async () => {
    const [manual, qa, both] = await Promise.all([
      run('reindex', ['--manual-only']),
      run('reindex', ['--qa-only', '--json']),
      run('reindex', ['--manual-only', '--qa-only']),
    ]);
    expect(manual.code).toBe(0);
    expect(manual.stdout).toMatch(/^reindexed: 1 manual file, \d+ chunks in \d+\.\d s\n$/);

    expect(qa.code).toBe(0);
    const summary = JSON.parse(qa.stdout) as { manual?: unknown; qa: { files: number; pairs: number } };
    expect(summary.manual).toBeUndefined();
    expect(summary.qa.files).toBe(1);
    expect(summary.qa.pairs).toBeGreaterThan(5);

    expect(both.code).not.toBe(0);
    expect(both.stdout).toBe('');
  });

  it('reindex from an empty directory refuses to wipe the index', async () => {
    const empty = path.join(root, 'empty-manuals');
    await mkdir(empty, { recursive: true });
    const result = await run('reindex', ['--manual-only'], { MANUALS_DIR: empty });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(stderrLines(result)).toEqual([
      expect.stringMatching(/"level":40,.*no readable manual file .* in .*empty-manuals"/),
      expect.stringMatching(/^reindex: no manual chunks found in .*empty-manuals \(0 readable files\); refusing to replace the live manual index of \d+ chunks$/),
    ]);
    const search = await run('search', ['manual', '二段階認証', '--json']);
    expect(JSON.parse(search.stdout)).toHaveLength(3);
  });

  it('search --json prints one array of {fileName, content, score}', async () => {
    const manual = await run('search', ['manual', '二段階認証', '認証アプリ', '--json']);
    expect(manual.code).toBe(0);
    const hits = JSON.parse(manual.stdout) as Record<string, unknown>[];
    expect(hits).toHaveLength(3);
    for (const hit of hits) {
      expect(Object.keys(hit)).toEqual(['fileName', 'content', 'score']);
      expect(hit.fileName).toBe('xyz-manual.md');
      expect(typeof hit.score).toBe('number');
    }
    expect(hits.some((h) => String(h.content).includes('認証アプリ'))).toBe(true);

    const qa = await run('search', ['qa', 'バックアップに失敗しても通知が届かない', '--json', '--k', '1']);
    expect(qa.code).toBe(0);
    const qaHits = JSON.parse(qa.stdout) as { fileName: string; content: string }[];
    expect(qaHits).toHaveLength(1);
    expect(qaHits[0]?.fileName).toMatch(/^xyz-qa\.csv#\d+$/);
    expect(qaHits[0]?.content).toMatch(/^Q: /);
  });

  it('search without --json prints readable hits', async () => {
    const result = await run('search', ['manual', 'バックアップ', '通知', '--k', '2']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^1\. xyz-manual\.md/);
    expect(result.stdout).toMatch(/\n2\. xyz-manual\.md/);
  });

  it('search --batch prints one JSON array per query line, in order', async () => {
    const file = path.join(root, 'queries.txt');
    await writeFile(file, '二段階認証\n\nバックアップ 通知\nパスワード\n');
    const result = await run('search', ['manual', '--batch', file, '--json', '--k', '2']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    const arrays = lines.map((l) => JSON.parse(l) as { content: string }[]);
    expect(arrays.map((a) => a.length)).toEqual([2, 0, 2, 2]);
    const single = await run('search', ['manual', 'バックアップ 通知', '--json', '--k', '2']);
    expect(arrays[2]).toEqual(JSON.parse(single.stdout));

    const fromStdin = await run('search', ['qa', '--batch', '-', '--json'], {}, '二段階認証\nバックアップ\n');
    expect(fromStdin.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('search rejects bad usage with a message on stderr', async () => {
    const [neither, badIndex, badK, missingBatch] = await Promise.all([
      run('search', ['manual']),
      run('search', ['faq', 'x']),
      run('search', ['manual', 'x', '--k', '0']),
      run('search', ['manual', '--batch', path.join(root, 'nope.txt')]),
    ]);
    expect(neither.code).toBe(2);
    expect(stderrLines(neither)).toEqual(['search: missing query (or --batch FILE)']);
    expect(badIndex.code).not.toBe(0);
    expect(badIndex.stderr).toMatch(/faq/);
    expect(badK.code).not.toBe(0);
    expect(badK.stderr).toMatch(/positive integer/);
    expect(stderrLines(missingBatch)).toEqual([`search: cannot read batch file ${path.join(root, 'nope.txt')}: ENOENT`]);
  });

  it('ask --json prints the whole result of the two-topic question as one JSON object', async () => {
    server.reset();
    const result = await run('ask', ['--json', TWO_TOPIC_QUESTION], { LOG_LEVEL: 'debug' });
    expect(result.stderr).not.toMatch(/^ask: /m);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as AgentResult;
    expect(result.stdout.trim().startsWith('{')).toBe(true);
    expect(parsed.question).toBe(TWO_TOPIC_QUESTION);
    expect(parsed.plan.subtasks.length).toBeGreaterThanOrEqual(2);
    expect(parsed.plan.subtasks.join('\n')).toMatch(/二段階認証/);
    expect(parsed.plan.subtasks.join('\n')).toMatch(/バックアップ/);
    expect(parsed.subtasks).toHaveLength(parsed.plan.subtasks.length);
    expect(parsed.answer).toMatch(/認証アプリ/);
    expect(parsed.answer).toMatch(/通知/);
    expect(parsed.sources).toContainEqual({ kind: 'manual', fileName: 'xyz-manual.md' });
    expect(parsed.usage.calls).toBeGreaterThan(0);
    expect(server.chatRequests().length).toBe(parsed.usage.calls);
  });

  it('ask prints only the answer, and reads the question from stdin when none is given', async () => {
    const [fromArgs, fromStdin, empty] = await Promise.all([run('ask', [TWO_TOPIC_QUESTION]), run('ask', [], {}, TWO_TOPIC_QUESTION), run('ask', [])]);
    expect(fromArgs.code).toBe(0);
    expect(fromArgs.stdout).toMatch(/認証アプリ/);
    expect(() => JSON.parse(fromArgs.stdout) as unknown).toThrow();

    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toBe(fromArgs.stdout);

    expect(empty.code).toBe(2);
    expect(stderrLines(empty)).toEqual(['ask: missing question: npm run ask -- "<question>"']);
  });

  it('ask and search print no info log lines at LOG_LEVEL=info unless --verbose; a bad variable they do not use does not stop them', async () => {
    const env = { LOG_LEVEL: 'info', IMAP_PORT: 'abc', DASHBOARD_PORT: 'x' };
    const [ask, askVerbose, search, searchVerbose] = await Promise.all([
      run('ask', [TWO_TOPIC_QUESTION], env),
      run('ask', ['--verbose', TWO_TOPIC_QUESTION], env),
      run('search', ['manual', '二段階認証'], env),
      run('search', ['--verbose', 'manual', '二段階認証'], env),
    ]);
    for (const quiet of [ask, search]) {
      expect(quiet.code).toBe(0);
      expect(quiet.stderr).toBe('');
    }
    for (const verbose of [askVerbose, searchVerbose]) {
      expect(verbose.code).toBe(0);
      expect(verbose.stderr).toMatch(/"level":30/);
    }
    expect(search.stdout).toBe(searchVerbose.stdout);
    // reindex uses neither IMAP nor the dashboard either; the pipeline roles still refuse such values.
    expect((await run('reindex', ['--manual-only'], env)).code).toBe(0);
  });

  // A learned pair accepted before control characters were removed held a customer's escape sequences, and search
  // and ask printed them to the operator's terminal (retitle, clear screen, a hyperlink whose text hides its target).
  it('search and ask print no control or text-direction characters that a Q&A pair holds', async () => {
    const dir = path.join(root, 'controls');
    await mkdir(path.join(dir, 'qa'), { recursive: true });
    const ESC = '\u001b';
    await writeFile(
      path.join(dir, 'qa', 'learned.csv'),
      `question,answer\n"領収書の宛名変更はできますか？${ESC}]0;x\u0007","宛名は「請求」→「領収書」→「宛名を編集」${ESC}]8;;https://evil.example/${ESC}\\で${ESC}]8;;${ESC}\\変更できます。${ESC}[2J\u009b31m\u202e"\n`,
    );
    const env = { DATA_DIR: path.join(dir, 'data'), QA_DIR: path.join(dir, 'qa') };
    const reindex = await run('reindex', [], env);
    expect(reindex.code, reindex.stderr).toBe(0);
    const [search, ask] = await Promise.all([run('search', ['qa', '領収書の宛名変更'], env), run('ask', ['領収書の宛名変更はできますか？'], env)]);
    expect(search.code, search.stderr).toBe(0);
    expect(ask.code, ask.stderr).toBe(0);
    expect(search.stdout).toContain('宛名は「請求」→「領収書」→「宛名を編集」]8;;https://evil.example/\\で]8;;\\変更できます。[2J31m');
    expect(ask.stdout).toContain('「宛名を編集」');
    for (const out of [search.stdout, ask.stdout]) expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Bidi_Control}]/u);
  });

  it('ask names the LLM server when it cannot be reached', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const result = await run('ask', ['--json', TWO_TOPIC_QUESTION], { OPENAI_BASE_URL: url });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = stderrLines(result);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^ask: cannot reach the LLM server at ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `));
  });
});
