/**
 * Which index an agent worker answers from when the embedded search engines run on more than one machine. Every
 * build is recorded in Redis with a content hash; each agent worker compares the index it serves with the last
 * recorded build, takes no tickets while they differ or while it has no index, says so once in its log and on
 * /readyz (naming itself), and takes tickets again once its own index matches. On one machine the scheduler's
 * rebuilds never stop the agent worker reading the same files.
 *
 * A "machine" is a directory with its own DATA_DIR, MANUALS_DIR and QA_DIR; its roles are real workers in this
 * process (with the host name injected) against a real redis-server, and `npm run reindex` is the real command in a
 * child process.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reindexManual } from '../../jobs/reindex-manual.js';
import { reindexQa } from '../../jobs/reindex-qa.js';
import { parseConfig, type Config } from '../../src/config.js';
import { startOpenAIServer, type OpenAIServer } from '../../src/dev/openai-server.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { GapStore } from '../../src/knowledge/gaps.js';
import { LearnedAnswerStore } from '../../src/knowledge/learned-answers.js';
import { ingestMessage } from '../../src/mail/ingest.js';
import { connectProducer, createWorkerConnection } from '../../src/queues/connection.js';
import { reindexJob } from '../../src/queues/job-options.js';
import { QUEUE_NAMES } from '../../src/queues/names.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { startAgentWorker, type AgentWorkerRole } from '../../src/runtime/agent-worker.js';
import { startMaintenanceRole, type MaintenanceRole } from '../../src/runtime/maintenance.js';
import { readRoleStatus } from '../../src/runtime/role-status.js';
import { Services } from '../../src/runtime/services.js';
import { checkReadiness } from '../../src/server/health.js';
import { EmbeddedManualSearch, MANUAL_INDEX_FILE } from '../../src/search/embedded-manual.js';
import { createSearchBackends } from '../../src/search/factory.js';
import { readIndexBuilds, recordBuild, shortHash } from '../../src/search/index-builds.js';
import { anyBlocks, IndexFreshnessMonitor, type IndexVerdicts } from '../../src/search/index-freshness.js';
import { decodeContainer, encodeContainer } from '../../src/search/vector-store.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { FAST_TIMINGS, FAST_TUNING, MAIL_FROM, buildMail, customerMessageId, removePrefix, waitFor, waitForState } from '../support/pipeline.js';
import { runTsx, type CommandRun } from '../support/run-command.js';

const MANUAL_V1 = `# XYZ 設定ガイド

## 無操作タイムアウト

無操作タイムアウトの既定値は 60 分です。「管理」→「セキュリティ」→「セッション」で変更できます。
`;
const MANUAL_V2 = `# XYZ 設定ガイド

## 無操作タイムアウト

無操作タイムアウトの既定値は 30 分です（バージョン 6.0 で 60 分から変更）。「管理」→「セキュリティ」→「セッション」で変更できます。
`;
const QA = `question,answer
請求書の宛名を変更したい,「管理」→「契約」→「請求先」で宛名を変更できます。
`;
const QUESTION = '1. 無操作タイムアウトについて教えてください。';
const REMEDY = 'run `npm run reindex` on this machine with Redis reachable; with several machines, copy the knowledge folders to this machine first, or use Meilisearch and Qdrant';

let redisServer: RedisServer;
let llm: OpenAIServer;
let redis: Redis;
let root: string;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  [redisServer, llm] = await Promise.all([startRedis(), startOpenAIServer({ handler: scriptedModel() })]);
  redis = await connectProducer(redisServer.url);
  root = await mkdtemp(path.join(tmpdir(), 'index-freshness-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  redis?.disconnect();
  await Promise.allSettled([redisServer?.stop(), llm?.close()]);
  if (root) await rm(root, { recursive: true, force: true });
});

/** One machine: its folders and the environment its roles and commands run with. */
interface Machine {
  name: string;
  dir: string;
  env: Record<string, string>;
  config: Config;
}

/** A fresh prefix shared by the machines of one test (one Redis, one deployment). */
function deployment(): string {
  const prefix = `fresh${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  cleanups.push(() => removePrefix(redisServer.url, prefix));
  return prefix;
}

async function machine(name: string, prefix: string, manual: string): Promise<Machine> {
  const dir = path.join(root, `${prefix}-${name}`);
  await mkdir(path.join(dir, 'manuals'), { recursive: true });
  await mkdir(path.join(dir, 'qa'), { recursive: true });
  await writeFile(path.join(dir, 'manuals', 'guide.md'), manual);
  await writeFile(path.join(dir, 'qa', 'qa.csv'), QA);
  const env: Record<string, string> = {
    HELPDESK_ENV_FILE: 'none',
    LOG_LEVEL: 'silent',
    REDIS_URL: redisServer.url,
    QUEUE_PREFIX: prefix,
    DATA_DIR: path.join(dir, 'data'),
    MANUALS_DIR: path.join(dir, 'manuals'),
    QA_DIR: path.join(dir, 'qa'),
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDING_DIMENSIONS: '256',
    MEILI_HOST: '',
    QDRANT_URL: '',
    OPENAI_BASE_URL: llm.url,
    OPENAI_API_KEY: 'test-key',
    OPENAI_MODEL: 'scripted-model',
    LLM_MAX_RETRIES: '0',
    MAIL_FROM,
    // Every ticket is parked with its draft: the draft shows which index answered, and no sender is needed.
    REVIEW_MODE: 'always',
    AGENT_CONCURRENCY: '1',
    REINDEX_MANUAL_CRON: '',
    REINDEX_QA_CRON: '',
    RETENTION_CRON: '',
  };
  return { name, dir, env, config: parseConfig(env) };
}

/** The index files as an earlier `npm run reindex` left them on the machine, without telling Redis. */
async function buildUnrecorded(m: Machine): Promise<void> {
  const backends = createSearchBackends(m.config);
  await reindexManual({}, { config: m.config, manual: backends.manual });
  await reindexQa({}, { config: m.config, qa: backends.qa });
}

/** `npm run reindex` on the machine, as the operator runs it there (the real command, in its own process). */
function reindexCommand(m: Machine, args: string[] = [], env: Record<string, string> = {}): Promise<CommandRun> {
  return runTsx('src/cli/reindex.ts', args, { env: { PATH: process.env.PATH ?? '', HOME: m.dir, ...m.env, LOG_LEVEL: 'warn', ...env } });
}

/** The scheduler role of a machine (no first builds: each test says which builds happen). */
async function scheduler(m: Machine, host: string): Promise<MaintenanceRole> {
  const role = await startMaintenanceRole(m.config, { host, tuning: FAST_TUNING, buildEmptyIndexes: false, logger: pino({ level: 'silent' }) });
  cleanups.push(() => role.stop());
  return role;
}

/** Queues reindex jobs for the scheduler (as "Reindex now" does) and waits for each to finish. */
async function reindexQueued(m: Machine, names: ('reindex-manual' | 'reindex-qa')[] = ['reindex-manual', 'reindex-qa']): Promise<void> {
  const connection = createWorkerConnection(redisServer.url);
  const events = new QueueEvents(QUEUE_NAMES.maintenance, { connection, prefix: m.config.QUEUE_PREFIX });
  const queues = createQueues(redis, m.config.QUEUE_PREFIX);
  try {
    await events.waitUntilReady();
    for (const name of names) {
      const spec = reindexJob(name, { trigger: 'cli' }, FAST_TUNING);
      const job = await queues.maintenance.add(spec.name, spec.data, spec.opts);
      await job.waitUntilFinished(events, 60_000);
    }
  } finally {
    await closeAll(events, queues, connection);
  }
}

/** An agent worker of a machine, logging into `lines`, checking its indexes every 100 ms (unless `indexCheckMs`). */
async function agentWorker(m: Machine, host: string, indexCheckMs = 100): Promise<{ role: AgentWorkerRole; lines: string[]; services: Services }> {
  const lines: string[] = [];
  const services = new Services(m.config, { tuning: FAST_TUNING, processName: host, logger: pino({ level: 'silent' }) });
  const role = await startAgentWorker(services, {
    host,
    timings: FAST_TIMINGS,
    indexCheckMs,
    logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
  });
  cleanups.push(async () => {
    await role.stop();
    await services.close();
  });
  return { role, lines, services };
}

/** The producer handles a test uses to hand in mail, as the poller would. */
function mailbox(prefix: string, config: Config): { store: TicketStore; queues: Queues; ask(): Promise<string> } {
  const store = new TicketStore(redis, { prefix });
  const queues = createQueues(redis, prefix);
  cleanups.push(() => closeAll(queues));
  return {
    store,
    queues,
    ask: async () => {
      const raw = buildMail({ messageId: customerMessageId(), from: 'customer@customer.example', subject: 'タイムアウト', body: QUESTION });
      return (await ingestMessage(raw, { redis, store, ticketsQueue: queues.tickets, prefix, config, tuning: FAST_TUNING })).ticketId;
    },
  };
}

async function agentCheck(prefix: string) {
  const { checks } = await checkReadiness({ redis, agentStatus: () => readRoleStatus(redis, prefix, 'agent'), pollMaxAgeMs: 60_000 });
  return checks.agent;
}

const errorLines = (lines: string[]) => lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);
const warnLines = (lines: string[]) => lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('agent workers on several machines with the embedded engines', () => {
  it("stop taking tickets while their index is not the last build, say so, and answer from the new index once it is rebuilt there", { timeout: 120_000 }, async () => {
    const prefix = deployment();
    const A = await machine('hostA', prefix, MANUAL_V1);
    const B = await machine('hostB', prefix, MANUAL_V1);
    await buildUnrecorded(B);
    // The admin edits the manual where the scheduler reads it (host A) and rebuilds at once.
    await writeFile(path.join(A.dir, 'manuals', 'guide.md'), MANUAL_V2);
    await scheduler(A, 'hostA');
    await reindexQueued(A);
    const builds = await readIndexBuilds(redis, prefix);
    expect(builds.manual).toMatchObject({ host: 'hostA', pid: process.pid, backend: 'embedded' });
    expect(builds.qa).toMatchObject({ host: 'hostA', pid: process.pid, backend: 'embedded' });

    // Host B's agent worker still has the old manual (its Q&A is the same as A's).
    const b = await agentWorker(B, 'hostB');
    const { store, ask } = mailbox(prefix, B.config);
    const ticketId = await ask();
    const stale = await waitFor(async () => {
      const check = await agentCheck(prefix);
      return check.status === 'fail' ? check : undefined;
    }, '/readyz to name host B');
    expect(stale.detail).toContain(`agent worker hostB#${process.pid} takes no tickets: its manual index`);
    expect(stale.detail).toContain(`is not the last build ${shortHash(builds.manual!.hash)} (hostA#${process.pid}`);
    expect(stale.detail).not.toMatch(/its Q&A index/);
    await sleep(1_500);
    expect((await store.get(ticketId))?.state).toBe('received');
    // One error naming the remedy, however many checks ran meanwhile (a loaded machine may add others, e.g. a status
    // write that timed out; those are not what this test is about).
    const errors = errorLines(b.lines).filter((l) => l.msg.includes(REMEDY));
    expect(errors, JSON.stringify(errorLines(b.lines))).toHaveLength(1);
    expect(errors[0]!.msg).toContain('manual index');
    expect(errors[0]!.msg).toContain(REMEDY);

    // What the message says: copy the knowledge folders and reindex on this machine.
    await writeFile(path.join(B.dir, 'manuals', 'guide.md'), MANUAL_V2);
    const reindexed = await reindexCommand(B);
    expect(reindexed.code, reindexed.stderr).toBe(0);
    const ticket = await waitForState(store, ticketId, ['parked', 'drafted', 'sent'], 30_000);
    expect(ticket.draft).toContain('既定値は 30 分');
    expect(ticket.draft).not.toContain('既定値は 60 分');
    const ok = await agentCheck(prefix);
    expect(ok.status).not.toBe('fail');
    expect(ok.detail).toContain(`hostB#${process.pid} manual ${shortHash(builds.manual!.hash)}`);
    expect(errorLines(b.lines).filter((l) => l.msg.includes(REMEDY)), JSON.stringify(errorLines(b.lines))).toHaveLength(1);
  });

  it('a ticket that arrives right after a rebuild elsewhere is not answered from the old index, before the next periodic check', { timeout: 120_000 }, async () => {
    const prefix = deployment();
    const A = await machine('hostA', prefix, MANUAL_V1);
    const B = await machine('hostB', prefix, MANUAL_V1);
    await scheduler(A, 'hostA');
    await reindexQueued(A);
    await buildUnrecorded(B);
    // Host B serves the last build; its periodic check is a minute away.
    const b = await agentWorker(B, 'hostB', 60_000);
    await waitFor(async () => ((await agentCheck(prefix)).detail.includes(`hostB#${process.pid} manual`) ? true : undefined), 'host B to report');
    expect((await agentCheck(prefix)).status).not.toBe('fail');

    await writeFile(path.join(A.dir, 'manuals', 'guide.md'), MANUAL_V2);
    await reindexQueued(A, ['reindex-manual']);
    const { store, ask } = mailbox(prefix, B.config);
    const ticketId = await ask();
    await waitFor(async () => ((await agentCheck(prefix)).status === 'fail' ? true : undefined), '/readyz to name host B');
    await sleep(1_000);
    const ticket = await store.get(ticketId);
    expect(ticket?.state).toBe('received');
    // One error naming the remedy; a loaded machine may add others (a status write that timed out), which are not
    // what this test is about, and are printed if the count is wrong.
    const errors = errorLines(b.lines).filter((l) => l.msg.includes(REMEDY));
    expect(errors, JSON.stringify(errorLines(b.lines))).toHaveLength(1);
    expect(errors[0]!.msg).toContain('manual index');
  });

  it('with no index at all and no build anywhere it takes no tickets; the mail waits, no gap is recorded, and a reindex here answers it', { timeout: 120_000 }, async () => {
    const prefix = deployment();
    const C = await machine('hostC', prefix, MANUAL_V1);
    const c = await agentWorker(C, 'hostC');
    const { store, ask } = mailbox(prefix, C.config);

    // A fresh install, no scheduler running: no index on this machine, no build recorded anywhere.
    const first = await ask();
    const blocked = await waitFor(async () => {
      const check = await agentCheck(prefix);
      return check.detail.includes('takes no tickets') ? check : undefined;
    }, '/readyz to name host C');
    expect(blocked.status).toBe('fail');
    expect(blocked.detail).toContain(`agent worker hostC#${process.pid} takes no tickets: no knowledge index yet: run \`npm run reindex\` (or start the scheduler) on that machine`);
    await sleep(1_500);
    expect((await store.get(first))?.state).toBe('received');
    expect((await new GapStore(redis, { prefix }).list()).openTotal).toBe(0);
    const errors = errorLines(c.lines).filter((l) => l.msg.includes('no knowledge index yet'));
    expect(errors.map((e) => e.msg), JSON.stringify(c.lines)).toEqual([
      'this agent worker takes no tickets: no knowledge index yet: run `npm run reindex` (or start the scheduler) on this machine; the mail waits in the queue',
    ]);

    // What the message says: the waiting mail is answered from the new index, and no gap was ever opened.
    const reindexed = await reindexCommand(C);
    expect(reindexed.code, reindexed.stderr).toBe(0);
    const ticket = await waitForState(store, first, ['parked', 'drafted', 'sent'], 30_000);
    expect(ticket.draft).toContain('既定値は 60 分');
    expect((await new GapStore(redis, { prefix }).list()).openTotal).toBe(0);
    // The report follows the ticket: the index verdicts are written when the worker resumes, and a model probe that
    // a loaded machine let time out at start is cleared once the run completes, just after the draft is stored.
    await waitFor(async () => ((await agentCheck(prefix)).status !== 'fail' ? true : undefined), `/readyz to clear host C (${(await agentCheck(prefix)).detail})`);
  });

  it('with a manual and no Q&A folder (never built) it answers as before, and /readyz names the missing Q&A index', { timeout: 120_000 }, async () => {
    const prefix = deployment();
    const C = await machine('hostC', prefix, MANUAL_V1);
    await rm(path.join(C.dir, 'qa'), { recursive: true });
    const built = await reindexCommand(C, ['--manual-only']);
    expect(built.code, built.stderr).toBe(0);
    const c = await agentWorker(C, 'hostC');
    const { store, ask } = mailbox(prefix, C.config);
    const ticket = await waitForState(store, await ask(), ['parked', 'drafted', 'sent'], 30_000);
    expect(ticket.draft).toContain('既定値は 60 分');
    const check = await agentCheck(prefix);
    expect(check.status).toBe('fail');
    expect(check.detail).toContain(`agent worker hostC#${process.pid} has no Q&A index, and no build is recorded yet`);
    expect(check.detail).not.toContain('takes no tickets');
    expect(warnLines(c.lines).filter((l) => /index/.test(l.msg)).map((w) => w.msg)).toEqual([expect.stringContaining('no Q&A index')]);
  });

  it('without an index once a build is recorded elsewhere it takes no tickets, naming each index and what to do', { timeout: 120_000 }, async () => {
    const prefix = deployment();
    const A = await machine('hostA', prefix, MANUAL_V1);
    const C = await machine('hostC', prefix, MANUAL_V1);
    const c = await agentWorker(C, 'hostC');
    const { store, ask } = mailbox(prefix, C.config);
    await waitFor(async () => ((await agentCheck(prefix)).detail.includes('no knowledge index yet') ? true : undefined), 'host C to report');

    // Host A's scheduler builds and records its index: host C, still without one, goes on taking no tickets.
    await scheduler(A, 'hostA');
    await reindexQueued(A);
    await waitFor(async () => ((await agentCheck(prefix)).detail.includes('it has no manual index') ? true : undefined), 'host C to name the build');
    const second = await ask();
    await sleep(1_500);
    expect((await store.get(second))?.state).toBe('received');
    const errors = errorLines(c.lines).filter((l) => l.msg.includes(REMEDY));
    expect(errors.map((e) => e.msg), JSON.stringify(errorLines(c.lines))).toEqual([expect.stringContaining('no manual index'), expect.stringContaining('no Q&A index')]);
    const detail = (await agentCheck(prefix)).detail;
    expect(detail).toContain(`agent worker hostC#${process.pid} takes no tickets: it has no manual index`);
    expect(detail).toContain('; it has no Q&A index (the last build is ');
    expect(detail.split('copy the knowledge folders')).toHaveLength(2);
  });
});

describe('one machine', () => {
  it("the scheduler's rebuilds never stop the agent worker reading the same files; learned pairs are searched at once and leave the build hash alone", { timeout: 120_000 }, async () => {
    const prefix = deployment();
    const M = await machine('hostM', prefix, MANUAL_V1);
    const maintenance = await startMaintenanceRole(M.config, { host: 'hostM', tuning: FAST_TUNING, logger: pino({ level: 'silent' }) });
    cleanups.push(() => maintenance.stop());
    // A fresh install: the scheduler builds the empty indexes at its start.
    await waitFor(async () => {
      const builds = await readIndexBuilds(redis, prefix);
      return builds.manual && builds.qa ? builds : undefined;
    }, 'the first builds', 60_000);
    const m = await agentWorker(M, 'hostM');
    let pauses = 0;
    m.role.worker.on('paused', () => (pauses += 1));
    await waitFor(async () => ((await agentCheck(prefix)).detail.includes(`hostM#${process.pid} manual`) ? true : undefined), 'the worker to report its indexes');

    for (const manual of [MANUAL_V2, MANUAL_V1, MANUAL_V2]) {
      await writeFile(path.join(M.dir, 'manuals', 'guide.md'), manual);
      await reindexQueued(M, ['reindex-manual']);
      await sleep(300);
    }
    expect(pauses).toBe(0);
    const { store, ask } = mailbox(prefix, M.config);
    const ticket = await waitForState(store, await ask(), ['parked', 'drafted', 'sent'], 30_000);
    expect(ticket.draft).toContain('既定値は 30 分');

    // A learned pair is found at once, and a Q&A rebuild that includes it records the same hash as before.
    const qaBefore = (await readIndexBuilds(redis, prefix)).qa!.hash;
    const learned = new LearnedAnswerStore(redis, { prefix });
    const [candidate] = await learned.propose('7'.repeat(64), [{ question: '領収書を再発行したい', answer: '「管理」→「契約」→「領収書」から再発行できます。', origin: 'rules', scrub: { replaced: 0, modelPass: 'off' } }]);
    expect((await learned.accept(candidate!.id, { by: 'sato' })).outcome).toBe('accepted');
    const hits = await m.services.search().qa.search('領収書を再発行したい');
    expect(hits[0]?.id).toBe(`learned#${candidate!.id}`);
    await reindexQueued(M, ['reindex-qa']);
    expect((await readIndexBuilds(redis, prefix)).qa!.hash).toBe(qaBefore);
    await sleep(300);
    expect(pauses).toBe(0);
    expect((await agentCheck(prefix)).status).not.toBe('fail');
  });
});

describe('IndexFreshnessMonitor', () => {
  // A rebuild switches its file in, then records the build: an agent worker of the same machine that looks in
  // between sees a build it does not know. The second look (settleMs later) finds the record.
  it.each([
    [600, ['current']],
    [0, ['stale', 'current']],
  ])('a build recorded a moment after its file is switched in, settleMs %i: %j', async (settleMs, states) => {
    const prefix = deployment();
    const M = await machine('hostM', prefix, MANUAL_V1);
    const builder = createSearchBackends(M.config);
    await reindexManual({}, { config: M.config, manual: builder.manual });
    await reindexQa({}, { config: M.config, qa: builder.qa });
    await recordBuild(redis, prefix, 'manual', builder.manual, 'hostM');
    await recordBuild(redis, prefix, 'qa', builder.qa, 'hostM');
    await writeFile(path.join(M.dir, 'manuals', 'guide.md'), MANUAL_V2);
    await reindexManual({}, { config: M.config, manual: builder.manual });

    const seen: IndexVerdicts[] = [];
    const monitor = new IndexFreshnessMonitor({
      redis,
      prefix,
      search: createSearchBackends(M.config),
      intervalMs: 50,
      settleMs,
      log: pino({ level: 'silent' }),
      onChange: (verdicts) => void seen.push(verdicts),
    });
    cleanups.push(() => monitor.stop());
    monitor.start();
    await sleep(300);
    await recordBuild(redis, prefix, 'manual', builder.manual, 'hostM');
    await waitFor(() => seen.at(-1)?.manual.state === 'current', 'the manual index to be current');
    expect(seen.map((v) => v.manual.state)).toEqual(states);

    // A file no one records (another build copied in, an old index restored) does stop it, after the second look.
    await writeFile(path.join(M.dir, 'manuals', 'guide.md'), MANUAL_V1);
    await reindexManual({}, { config: M.config, manual: builder.manual });
    await waitFor(() => anyBlocks(seen.at(-1)), 'the manual index to be taken for stale');
    expect(seen.at(-1)!.manual).toMatchObject({ state: 'stale', hash: builder.manual.builtHash?.() });
  });
});

describe('index files written before build hashes', () => {
  it('still load and answer, and count as of unknown content', async () => {
    const prefix = deployment();
    const M = await machine('hostM', prefix, MANUAL_V1);
    await buildUnrecorded(M);
    const file = path.join(M.config.DATA_DIR, 'manual-index', MANUAL_INDEX_FILE);
    const { meta, sections } = decodeContainer<Record<string, unknown>>(new Uint8Array(await readFile(file)));
    expect(typeof meta.contentHash).toBe('string');
    delete meta.contentHash;
    await writeFile(file, encodeContainer(meta, sections));

    const manual = new EmbeddedManualSearch({ dir: path.dirname(file) });
    expect((await manual.search('無操作タイムアウト'))[0]?.content).toContain('既定値は 60 分');
    expect(await manual.served()).toEqual({ present: true, hash: undefined });
  });
});
