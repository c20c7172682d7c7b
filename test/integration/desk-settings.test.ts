/**
 * Every agent worker decides send or park with the desk's settings: the poller records its machine's at start, and an
 * agent worker whose own differ (a second machine left on REVIEW_MODE's default) takes no tickets, says which
 * variables differ in its log and on /readyz, and takes tickets again once they agree.
 *
 * A real redis-server, the real poller role (its mailbox unreachable: only its start's record matters here), real
 * agent workers with their host names injected, and the scripted model.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reindexManual } from '../../jobs/reindex-manual.js';
import { reindexQa } from '../../jobs/reindex-qa.js';
import { parseConfig, type Config } from '../../src/config.js';
import { startOpenAIServer, type OpenAIServer } from '../../src/dev/openai-server.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { ingestMessage } from '../../src/mail/ingest.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues } from '../../src/queues/registry.js';
import { startAgentWorker } from '../../src/runtime/agent-worker.js';
import { deskSettingsKey, readDeskSettings } from '../../src/runtime/desk-settings.js';
import { startPollerRole } from '../../src/runtime/poller.js';
import { readRoleStatus } from '../../src/runtime/role-status.js';
import { Services } from '../../src/runtime/services.js';
import { checkReadiness } from '../../src/server/health.js';
import { createSearchBackends } from '../../src/search/factory.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { FAST_TIMINGS, FAST_TUNING, MAIL_FROM, buildMail, customerMessageId, removePrefix, waitFor, waitForState } from '../support/pipeline.js';

const MANUAL = `# XYZ 設定ガイド

## 無操作タイムアウト

無操作タイムアウトの既定値は 60 分です。「管理」→「セキュリティ」→「セッション」で変更できます。
`;
const QA = `question,answer
請求書の宛名を変更したい,「管理」→「契約」→「請求先」で宛名を変更できます。
`;

let redisServer: RedisServer;
let llm: OpenAIServer;
let redis: Redis;
let root: string;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  [redisServer, llm] = await Promise.all([startRedis(), startOpenAIServer({ handler: scriptedModel() })]);
  redis = await connectProducer(redisServer.url);
  root = await mkdtemp(path.join(tmpdir(), 'desk-settings-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  redis?.disconnect();
  await Promise.allSettled([redisServer?.stop(), llm?.close()]);
  if (root) await rm(root, { recursive: true, force: true });
});

/** One desk: a fresh prefix and the knowledge folders (built once; no build recorded, so every index is fine). */
async function desk(): Promise<{ prefix: string; env: Record<string, string> }> {
  const prefix = `desk${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  cleanups.push(() => removePrefix(redisServer.url, prefix));
  const dir = path.join(root, prefix);
  await mkdir(path.join(dir, 'manuals'), { recursive: true });
  await mkdir(path.join(dir, 'qa'), { recursive: true });
  await writeFile(path.join(dir, 'manuals', 'guide.md'), MANUAL);
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
    AGENT_CONCURRENCY: '1',
    // Nothing answers on port 1: the poller records its settings, then retries its mailbox in the background.
    IMAP_HOST: '127.0.0.1',
    IMAP_PORT: '1',
    IMAP_USER: 'support@example.com',
    IMAP_PASSWORD: 'not-used',
  };
  const config = parseConfig(env);
  const backends = createSearchBackends(config);
  await reindexManual({}, { config, manual: backends.manual });
  await reindexQa({}, { config, qa: backends.qa });
  return { prefix, env };
}

/** The poller role on the main machine with `env`; resolves once its settings are recorded. */
async function poller(env: Record<string, string>, deskSettingsCheckMs?: number): Promise<{ stop(): Promise<void> }> {
  const before = (await readDeskSettings(redis, env.QUEUE_PREFIX!))?.at ?? -1;
  const role = await startPollerRole(parseConfig(env), {
    host: 'main-host',
    logger: pino({ level: 'silent' }),
    ...(deskSettingsCheckMs ? { deskSettingsCheckMs } : {}),
    reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000, stableAfterMs: 60_000 },
  });
  cleanups.push(() => role.stop());
  await waitFor(async () => ((await readDeskSettings(redis, env.QUEUE_PREFIX!))?.at ?? -1) > before || undefined, 'the poller to record its settings');
  return role;
}

/** An agent worker on machine `host` with `env`, logging into `lines`, checking every 100 ms. */
async function agentWorker(config: Config, host: string): Promise<{ lines: string[]; stop(): Promise<void> }> {
  const lines: string[] = [];
  const services = new Services(config, { tuning: FAST_TUNING, processName: host, logger: pino({ level: 'silent' }) });
  const role = await startAgentWorker(services, {
    host,
    timings: FAST_TIMINGS,
    indexCheckMs: 100,
    logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
  });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await role.stop();
      await services.close();
    })());
  cleanups.push(stop);
  return { lines, stop };
}

/** Hands in a customer's question as the poller would. */
async function ask(prefix: string, config: Config): Promise<{ store: TicketStore; ticketId: string }> {
  const store = new TicketStore(redis, { prefix });
  const queues = createQueues(redis, prefix);
  cleanups.push(() => closeAll(queues));
  const raw = buildMail({ messageId: customerMessageId(), from: 'customer@customer.example', subject: 'タイムアウト', body: '無操作タイムアウトについて教えてください。' });
  const { ticketId } = await ingestMessage(raw, { redis, store, ticketsQueue: queues.tickets, prefix, config, tuning: FAST_TUNING });
  return { store, ticketId };
}

async function agentReadiness(prefix: string) {
  const { checks } = await checkReadiness({ redis, agentStatus: () => readRoleStatus(redis, prefix, 'agent'), pollMaxAgeMs: 60_000 });
  return checks.agent;
}

const errorLines = (lines: string[]) => lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FIX = 'make them the same — on this machine, or on main-host and restart its poller';

describe('agent workers and the decision settings the poller recorded', () => {
  it('a worker with the same settings takes a ticket; one left on the default REVIEW_MODE takes none and says so; fixed on the poller, it resumes', { timeout: 120_000 }, async () => {
    const { prefix, env } = await desk();
    // The main machine: every draft waits for a person.
    const main = { ...env, REVIEW_MODE: 'always' };
    const pollerRole = await poller(main);
    const recorded = await readDeskSettings(redis, prefix);
    expect(recorded).toMatchObject({ host: 'main-host', pid: process.pid });
    expect(recorded!.settings.REVIEW_MODE).toBe('"always"');

    // An agent worker with the main machine's .env takes the ticket.
    const same = await agentWorker(parseConfig(main), 'main-host');
    const first = await ask(prefix, parseConfig(main));
    const answered = await waitForState(first.store, first.ticketId, ['parked', 'drafted', 'sent'], 30_000);
    expect(answered.state).toBe('parked');
    expect((await agentReadiness(prefix)).detail).not.toContain('decision settings');
    await same.stop();

    // The second machine's .env has REDIS_URL and the model settings only: REVIEW_MODE is the default, learn.
    const second = await agentWorker(parseConfig(env), 'worker-b');
    const waiting = await ask(prefix, parseConfig(env));
    const blocked = await waitFor(async () => {
      const check = await agentReadiness(prefix);
      return check.status === 'fail' ? check : undefined;
    }, '/readyz to name worker-b');
    expect(blocked.detail).toContain(`agent worker worker-b#${process.pid} takes no tickets: its decision settings differ from those of main-host (the poller's machine): REVIEW_MODE is "learn" here and "always" there`);
    expect(blocked.detail).toContain(FIX.replace('this machine', 'that machine'));
    await sleep(1_500);
    expect((await waiting.store.get(waiting.ticketId))?.state).toBe('received');
    const errors = errorLines(second.lines).filter((l) => l.msg.includes('decision settings'));
    expect(errors.map((l) => l.msg), JSON.stringify(errorLines(second.lines))).toEqual([
      `this agent worker takes no tickets: its decision settings differ from those of main-host (the poller's machine): REVIEW_MODE is "learn" here and "always" there; ${FIX}; the mail waits in the queue`,
    ]);

    // The operator chose the other fix: the desk runs learn, set on the main machine and its poller restarted.
    await pollerRole.stop();
    await poller({ ...env, REVIEW_MODE: 'learn' });
    const resumed = await waitForState(waiting.store, waiting.ticketId, ['parked', 'drafted', 'sent'], 30_000);
    // learn with no reviews yet: nothing is trusted, so the draft waits for a person.
    expect(resumed.state).toBe('parked');
    await waitFor(async () => (!(await agentReadiness(prefix)).detail.includes('decision settings') ? true : undefined), '/readyz to clear worker-b');
    expect(second.lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain("the decision settings match those of main-host (the poller's machine) again; taking tickets");
    expect(errorLines(second.lines).filter((l) => l.msg.includes('decision settings'))).toHaveLength(1);
  });

  it('a record Redis lost (FLUSHDB, a restart without persistence) is written again by the running poller within its period', { timeout: 60_000 }, async () => {
    const { prefix, env } = await desk();
    await poller({ ...env, REVIEW_MODE: 'always' }, 200);
    const first = await readDeskSettings(redis, prefix);
    expect(first!.settings.REVIEW_MODE).toBe('"always"');
    await redis.del(deskSettingsKey(prefix));
    expect(await readDeskSettings(redis, prefix)).toBeUndefined();
    const again = await waitFor(async () => await readDeskSettings(redis, prefix), 'the poller to record its settings again');
    expect(again).toMatchObject({ host: 'main-host', pid: process.pid, settings: first!.settings });
    expect(again.at).toBeGreaterThanOrEqual(first!.at);
  });

  it('with no recorded settings (no poller started yet) a worker takes tickets as before', { timeout: 60_000 }, async () => {
    const { prefix, env } = await desk();
    await agentWorker(parseConfig(env), 'worker-b');
    const { store, ticketId } = await ask(prefix, parseConfig(env));
    expect((await waitForState(store, ticketId, ['parked', 'drafted', 'sent'], 30_000)).state).toBe('parked');
    expect(await readDeskSettings(redis, prefix)).toBeUndefined();
  });
});
