/**
 * Shared setup of the pipeline tests: the real servers (redis-server, the SMTP receiver, Dovecot when asked for)
 * plus the scripted OpenAI-compatible server, the sample knowledge base indexed into a temp DATA_DIR with the local
 * embedder, a Config per test with a fresh QUEUE_PREFIX, the roles run in-process or as child processes, and mail
 * builders (including ISO-2022-JP).
 *
 * Also a child-process entry: `tsx test/support/pipeline.ts <role> '<json options>'` runs one role exactly as its
 * `workers/` entry would, but with the worker timings and job backoff lowered through the role options — the
 * product reads such settings only from code, never from the environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { parseConfig, type Config } from '../../src/config.js';
import { startPollerRole } from '../../src/runtime/poller.js';
import { ingestMessage, type IngestResult } from '../../src/mail/ingest.js';
import type { JobTuning } from '../../src/queues/job-options.js';
import { startAgentWorker, type AgentWorkerOptions } from '../../src/runtime/agent-worker.js';
import type { RoleHandle } from '../../src/runtime/lifecycle.js';
import { startSender, type SenderOptions } from '../../src/runtime/sender.js';
import { Services } from '../../src/runtime/services.js';
import type { WorkerTimings } from '../../src/runtime/worker-timings.js';
import type { Ticket, TicketState } from '../../src/tickets/ticket.js';
import type { TicketStore } from '../../src/tickets/ticket-store.js';
import { encodeIso2022Jp } from './iso-2022-jp.js';
import { startDovecot, type DovecotServer } from '../../src/dev/dovecot.js';
import { buildMail as buildDevMail, MAIL_FROM, SUPPORT_ADDRESS, type LegacyCharset, type MailSpec as DevMailSpec } from '../../src/dev/mail-builder.js';
import { startOpenAIServer, type ChatRequest, type OpenAIServer } from '../../src/dev/openai-server.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../src/dev/smtp-receiver.js';
import { startOAuth2Provider, type OAuth2Provider } from './oauth2-provider.js';
import { indexKnowledge } from '../../src/dev/knowledge-index.js';

/** Repository root (tests run from it; child processes are started in it). */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export { MAIL_FROM, SUPPORT_ADDRESS } from '../../src/dev/mail-builder.js';
/** An alias of the mailbox (SUPPORT_ADDRESSES). */
export const SUPPORT_ALIAS = 'help@helpdesk.test';
/** Vector size of the local embedder in the tests (small: fast to index, same for indexer and workers). */
const EMBEDDING_DIMENSIONS = '256';

/** Job backoff for tests: retries within a fraction of a second. */
export const FAST_TUNING: JobTuning = { answerBackoffMs: 100, sendBackoffMs: 100, reindexBackoffMs: 100, jitter: 0, sentCopyBackoffMs: 100 };
/** Worker timings for tests: a dead worker's job is picked up again within about two seconds. */
export const FAST_TIMINGS: WorkerTimings = { lockDurationMs: 1_500, stalledIntervalMs: 500, maxStalledCount: 2 };

/** The sample manual and Q&A indexed into a temp DATA_DIR. */
export interface KnowledgeBase {
  dataDir: string;
  remove(): Promise<void>;
}

/** Indexes `data/manuals` and `data/qa` into a fresh DATA_DIR with the local embedder. */
export async function prepareKnowledgeBase(): Promise<KnowledgeBase> {
  const root = await mkdtemp(path.join(tmpdir(), 'helpdesk-kb-'));
  const dataDir = path.join(root, 'data');
  await indexKnowledge(parseConfig({ ...knowledgeEnv(dataDir), LOG_LEVEL: 'silent' }));
  return { dataDir, remove: () => rm(root, { recursive: true, force: true }) };
}

function knowledgeEnv(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    MANUALS_DIR: path.join(REPO_ROOT, 'data/manuals'),
    QA_DIR: path.join(REPO_ROOT, 'data/qa'),
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDING_DIMENSIONS,
  };
}

/** Servers of a pipeline test file. */
export interface PipelineServers {
  redis: RedisServer;
  smtp: SmtpReceiver;
  llm: OpenAIServer;
  /** Present when started with `imap: true`. */
  imap?: DovecotServer;
  /**
   * Present when started with `oauth2`: the stand-in identity provider, whose tokens are then the only login Dovecot and
   * the SMTP receiver accept, and which {@link pipelineEnv} configures (MAIL_AUTH=oauth2, client_credentials).
   */
  oauth2?: OAuth2Provider;
  kb: KnowledgeBase;
  /** Stops everything (idempotent). */
  stop(): Promise<void>;
}

/** The client of the stand-in identity provider in pipeline tests with `oauth2`. */
export const OAUTH2_CLIENT = { clientId: 'helpdesk-test-client', clientSecret: 'helpdesk-test-client-secret' };

/**
 * Starts the servers; the LLM answers with the default {@link scriptedModel} until a test sets another handler.
 * `oauth2`: mail logins by token only (see {@link PipelineServers.oauth2}); `mechanisms` as Dovecot's option.
 */
export async function startPipelineServers(options: { imap?: boolean; oauth2?: boolean | { mechanisms?: ReadonlyArray<'xoauth2' | 'oauthbearer'> } } = {}): Promise<PipelineServers> {
  const oauth2 = options.oauth2 ? await startOAuth2Provider({ username: SUPPORT_ADDRESS, ...OAUTH2_CLIENT }) : undefined;
  const mechanisms = typeof options.oauth2 === 'object' ? options.oauth2.mechanisms : undefined;
  const [redis, smtp, llm, kb, imap] = await Promise.all([
    startRedis(),
    startSmtpReceiver(oauth2 ? { oauth2: { accepts: (user, token) => oauth2.accepts(user, token) } } : {}),
    startOpenAIServer({ handler: scriptedModel() }),
    prepareKnowledgeBase(),
    options.imap
      ? startDovecot({ user: SUPPORT_ADDRESS, ...(oauth2 ? { oauth2: { introspectionUrl: oauth2.introspectionUrl, ...(mechanisms ? { mechanisms } : {}) } } : {}) })
      : Promise.resolve(undefined),
  ]);
  let stopped = false;
  return {
    redis,
    smtp,
    llm,
    kb,
    ...(imap ? { imap } : {}),
    ...(oauth2 ? { oauth2 } : {}),
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.allSettled([smtp.stop(), llm.close(), imap?.stop(), redis.stop(), kb.remove(), oauth2?.stop()]);
    },
  };
}

/** The environment of one test: every server wired in, a fresh QUEUE_PREFIX, `overrides` on top. */
export function pipelineEnv(servers: PipelineServers, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...knowledgeEnv(servers.kb.dataDir),
    LOG_LEVEL: 'silent',
    REDIS_URL: servers.redis.url,
    QUEUE_PREFIX: `t${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    OPENAI_BASE_URL: servers.llm.url,
    OPENAI_API_KEY: 'test-key',
    OPENAI_MODEL: 'scripted-model',
    LLM_MAX_RETRIES: '0',
    LLM_TIMEOUT_MS: '20000',
    SMTP_HOST: servers.smtp.host,
    SMTP_PORT: String(servers.smtp.port),
    SMTP_SECURE: 'false',
    MAIL_FROM,
    SUPPORT_ADDRESSES: SUPPORT_ALIAS,
    REVIEW_MODE: 'auto',
    AGENT_ATTEMPTS: '3',
    // No wait for a model server out of use unless a test asks for one: tests of the attempts and the park expect them.
    AGENT_MODEL_OUTAGE_MINUTES: '0',
    SENDER_ATTEMPTS: '3',
    AGENT_CONCURRENCY: '2',
    // The scheduled reindex must not fire during a test.
    REINDEX_MANUAL_CRON: '',
    // `npm start` includes the dashboard: loopback without a password, on a port the OS picks.
    DASHBOARD_AUTH: 'off',
    DASHBOARD_PORT: '0',
    REINDEX_QA_CRON: '',
    RETENTION_CRON: '',
    ...(servers.imap
      ? {
          IMAP_HOST: servers.imap.host,
          IMAP_PORT: String(servers.imap.port),
          IMAP_SECURE: 'false',
          IMAP_ALLOW_PLAIN_LOGIN: 'true',
          IMAP_USER: servers.imap.user,
          IMAP_PASSWORD: servers.imap.password,
          IMAP_POLL_INTERVAL_MS: '1000',
        }
      : {}),
    ...(servers.oauth2
      ? {
          MAIL_AUTH: 'oauth2',
          MAIL_OAUTH2_TOKEN_URL: servers.oauth2.tokenUrl,
          MAIL_OAUTH2_CLIENT_ID: OAUTH2_CLIENT.clientId,
          MAIL_OAUTH2_CLIENT_SECRET: OAUTH2_CLIENT.clientSecret,
          MAIL_OAUTH2_SCOPE: 'https://outlook.office365.com/.default',
          // The login: no password to fall back on.
          IMAP_PASSWORD: '',
          SMTP_USER: SUPPORT_ADDRESS,
          // The receiver offers no STARTTLS; a token, like a password, is otherwise not sent in clear.
          SMTP_ALLOW_PLAIN_AUTH: 'true',
        }
      : {}),
    ...overrides,
  };
}

/** Which roles {@link startRoles} runs. */
export interface RolesOptions {
  agent?: AgentWorkerOptions | false;
  sender?: SenderOptions | false;
  /** The IMAP poller (needs the servers started with `imap: true`). */
  poller?: boolean;
}

/** Roles running in this process, with the services they share. */
export interface RunningRoles {
  services: Services;
  store: TicketStore;
  /** Stops the roles (poller first) and closes the services. */
  stop(): Promise<void>;
}

/** Starts roles in-process, as `npm start` would, with {@link FAST_TUNING} and {@link FAST_TIMINGS}. */
export async function startRoles(config: Config, options: RolesOptions = {}): Promise<RunningRoles> {
  const services = new Services(config, { tuning: FAST_TUNING, processName: 'test' });
  const roles: RoleHandle[] = [];
  try {
    if (options.sender !== false) roles.push(await startSender(services, { timings: FAST_TIMINGS, readinessRetryMs: 200, ...options.sender }));
    if (options.agent !== false) roles.push(await startAgentWorker(services, { timings: FAST_TIMINGS, ...options.agent }));
    if (options.poller) roles.push(await startPollerRole(config, { tuning: FAST_TUNING, reconnect: { initialDelayMs: 200, maxDelayMs: 1_000 } }));
  } catch (err) {
    await stopAll(roles, services);
    throw err;
  }
  const store = await services.store();
  let stopping: Promise<void> | undefined;
  return { services, store, stop: () => (stopping ??= stopAll(roles, services)) };
}

async function stopAll(roles: RoleHandle[], services: Services): Promise<void> {
  for (const role of [...roles].reverse()) await role.stop();
  await services.close();
}

/** Ingests a raw mail as the poller would (raw copy, ticket, `answer-ticket` job), without IMAP. */
export async function ingest(running: RunningRoles, raw: Buffer): Promise<IngestResult> {
  const { services } = running;
  return ingestMessage(raw, {
    redis: await services.producer(),
    store: running.store,
    ticketsQueue: (await services.queues()).tickets,
    prefix: services.config.QUEUE_PREFIX,
    config: services.config,
    tuning: FAST_TUNING,
  });
}

/**
 * Polls `check` until it returns a value other than undefined/false. A check that throws (Redis restarting) counts
 * as "not yet"; its last error is named if the time runs out.
 */
export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the ticket is in one of `states`, and returns it. */
export async function waitForState(store: TicketStore, ticketId: string, states: readonly TicketState[], timeoutMs = 15_000): Promise<Ticket> {
  let last: Ticket | undefined;
  try {
    return await waitFor(
      async () => {
        last = await store.get(ticketId);
        return last && states.includes(last.state) ? last : undefined;
      },
      `ticket ${ticketId.slice(0, 12)} to reach ${states.join('/')}`,
      timeoutMs,
    );
  } catch (err) {
    const history = last?.history.map((h) => `${h.from}→${h.to}${h.note ? ` (${h.note})` : ''}`).join(', ') ?? 'no ticket';
    throw new Error(`${(err as Error).message}; state ${last?.state ?? 'none'}, reason ${last?.reason ?? '-'}, history: ${history}`);
  }
}

/** Deletes every key of a test's prefix (test-only cleanup by pattern). */
export async function removePrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    const keys = await redis.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  } finally {
    redis.disconnect();
  }
}

// ------------------------------------------------------------------------------------------------------------------
// Mail builders.

/** A test mail: {@link DevMailSpec} with the charset named (the builder lives in src/dev for the soak too). */
export type MailSpec = Omit<DevMailSpec, 'charset'> & { charset?: 'utf-8' | 'iso-2022-jp' };

const ISO_2022_JP: LegacyCharset = { name: 'iso-2022-jp', encode: encodeIso2022Jp };

/** Builds a raw RFC 5322 mail with CRLF line endings. */
export function buildMail(spec: MailSpec): Buffer {
  const { charset, ...rest } = spec;
  return buildDevMail(charset === 'iso-2022-jp' ? { ...rest, charset: ISO_2022_JP } : rest);
}

/** A fresh Message-ID in the customer's domain. */
export function customerMessageId(tag = 'q'): string {
  return `<${tag}-${randomUUID()}@customer.example>`;
}

// ------------------------------------------------------------------------------------------------------------------
// Child processes.

/** A product process started by a test. */
export interface ChildRole {
  readonly pid: number;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves once a line matching `pattern` was printed. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
  /** SIGKILLs the child and everything it started (its own process group: `npm start`'s node outlives npm). */
  killAll(): void;
}

/** Starts `command args` in the repository with `env` over the current environment. */
export function spawnChild(command: string, args: readonly string[], env: Record<string, string>): ChildRole {
  // Its own process group, so a failing test can kill what it started down to the grandchildren.
  const child: ChildProcess = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const killAll = (): void => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer): void => {
    output += chunk.toString('utf8');
    for (const l of [...listeners]) l();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  // A test that fails half-way must not leave a worker running against the next test's servers.
  const onExit = (): void => killAll();
  process.once('exit', onExit);
  void exited.then(() => process.off('exit', onExit));
  return {
    pid: child.pid ?? -1,
    output: () => output,
    exited,
    kill: (signal) => void child.kill(signal),
    killAll,
    waitForOutput(pattern, timeoutMs = 60_000) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!pattern.test(output)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no output matching ${pattern} within ${timeoutMs} ms; output:\n${output.slice(-4000)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
  };
}

/** Runs a TypeScript file of the repository under tsx, as the npm scripts do. */
export function spawnTsx(file: string, args: readonly string[], env: Record<string, string>): ChildRole {
  return spawnChild(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, file), ...args], env);
}

/** Runs `npm <args>` in the repository (e.g. `['run', 'review', '--', 'list']`); resolves with its output. */
export async function runNpm(args: readonly string[], env: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('npm', ['--silent', ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Options a child role started through this file's entry accepts (JSON in argv). */
export interface ChildRoleOptions {
  timings?: Partial<WorkerTimings>;
  concurrency?: number;
}

// The child entry: `tsx test/support/pipeline.ts agent-worker|sender '<ChildRoleOptions JSON>'`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { runProcess } = await import('../../src/runtime/main.js');
  const role = process.argv[2];
  const opts = JSON.parse(process.argv[3] ?? '{}') as ChildRoleOptions;
  if (role === 'agent-worker') {
    await runProcess('agent-worker', (services) => [() => startAgentWorker(services, opts)], { tuning: FAST_TUNING });
  } else if (role === 'sender') {
    await runProcess('sender', (services) => [() => startSender(services, { readinessRetryMs: 200, ...opts })], { tuning: FAST_TUNING });
  } else {
    process.stderr.write(`unknown role ${String(role)} (agent-worker or sender)\n`);
    process.exit(2);
  }
}

/**
 * Whether a request to the scripted model asks for the agent's final answer: the one without tools, a JSON format or a
 * conversation of steps. The draft-check pipeline tests answer it with a hostile draft, as a steered model would write.
 */
export const isFinalAnswer = (req: ChatRequest): boolean => !req.body.tools?.length && (req.body.messages?.length ?? 0) <= 2 && !req.body.response_format;
