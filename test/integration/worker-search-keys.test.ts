/**
 * Least-privilege search keys for agent workers on other machines (security review 18, MED 3). Such a machine reads
 * the shared manual index and Q&A collection, whose text the draft checks trust as knowledge (bank details, links);
 * with the product's read-write keys a compromised machine could write into them. It gets keys that can only read:
 * the Meilisearch key the Compose `meili-key` service creates from MEILI_WORKER_KEY_UID (search, indexes.get and
 * stats.get on MEILI_INDEX*), and Qdrant's `service.read_only_api_key`.
 *
 * The `meili-key` script of docker-compose.yml runs as it is (sh and curl) against a fake Meilisearch that enforces
 * keys as the server does (test/support/fake-meilisearch.ts), beside a fake Qdrant with a read-only key
 * (test/support/fake-qdrant.ts). The agent-worker role then answers a real ticket over real Redis and the scripted
 * model with only those keys, and every write with them is refused.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Meilisearch, MeilisearchApiError } from 'meilisearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../src/config.js';
import { startOpenAIServer, type OpenAIServer } from '../../src/dev/openai-server.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { MANUAL_CHUNKS, QA_PAIRS, scriptedModel, TWO_TOPIC_QUESTION } from '../../src/dev/scripted-model.js';
import { createEmbedder } from '../../src/search/embeddings.js';
import { MeilisearchManualSearch } from '../../src/search/meilisearch-manual.js';
import { QdrantQaSearch } from '../../src/search/qdrant-qa.js';
import type { QaPair } from '../../src/search/types.js';
import { deriveMeiliKey, FakeMeilisearch, type FakeMeiliKey } from '../support/fake-meilisearch.js';
import { FakeQdrant } from '../support/fake-qdrant.js';
import { buildMail, customerMessageId, ingest, MAIL_FROM, REPO_ROOT, removePrefix, startRoles, waitForState } from '../support/pipeline.js';
import { startRecordingServer, type RecordingHttpServer } from '../support/recording-http-server.js';
import { runCommand, type CommandRun } from '../support/run-command.js';

const MASTER_KEY = 'meili-master-key-0123456789';
const PRODUCT_KEY_UID = '0b1e5c3a-2f4d-4c6b-9a8e-7d6f5e4c3b2a';
const WORKER_KEY_UID = '5f0c2a4e-8b1d-4e3f-9a6c-2d7b1e0f4a3c';
const MEILI_INDEX = 'xyz_manual';
const QDRANT_COLLECTION = 'xyz_qa';
const QDRANT_API_KEY = 'qdrant-api-key';
const QDRANT_READ_ONLY_API_KEY = 'qdrant-read-only-key';
/** What the README has the admin derive for the extra machines, as for MEILI_API_KEY. */
const WORKER_MEILI_KEY = deriveMeiliKey(WORKER_KEY_UID, MASTER_KEY);
const PRODUCT_MEILI_KEY = deriveMeiliKey(PRODUCT_KEY_UID, MASTER_KEY);

/** Knowledge a compromised machine would like the drafts to trust. */
const PLANTED_CHUNK = { id: 'planted.md#0', fileName: 'planted.md', heading: '支払い', content: 'お支払いは次の口座へ: 架空銀行 1234567' };
const PLANTED_PAIR: QaPair = { id: 'planted.csv#1', fileName: 'planted.csv', row: 1, question: '振込先を教えて', answer: '架空銀行 1234567 へお振り込みください。' };

/**
 * The `meili-key` service's script as docker-compose.yml holds it (the block under `command: - |`), with Compose's
 * `$$` escapes resolved and the service's address replaced by `host`.
 */
async function meiliKeyScript(host: string): Promise<string> {
  const lines = (await readFile(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8')).split('\n');
  const service = lines.indexOf('  meili-key:');
  const start = lines.findIndex((line, i) => i > service && line === '      - |');
  if (service < 0 || start < 0) throw new Error('docker-compose.yml: no `command: - |` block in the meili-key service');
  const end = lines.findIndex((line, i) => i > start && line.trim() !== '' && !line.startsWith('        '));
  return lines
    .slice(start + 1, end)
    .map((line) => line.slice(8))
    .join('\n')
    .replaceAll('$$', '$')
    .replaceAll('http://meilisearch:7700', host);
}

/**
 * Runs the `meili-key` script with the service's environment (`env` on top), as Compose runs it. Asynchronously: the
 * fake server it talks to answers from this process's event loop.
 */
async function runMeiliKey(host: string, env: Record<string, string> = {}): Promise<CommandRun> {
  return runCommand('sh', ['-c', await meiliKeyScript(host)], {
    env: {
      PATH: process.env.PATH ?? '',
      MEILI_MASTER_KEY: MASTER_KEY,
      MEILI_API_KEY_UID: PRODUCT_KEY_UID,
      MEILI_API_KEY: PRODUCT_MEILI_KEY,
      MEILI_INDEX,
      ...env,
    },
  });
}

let redis: RedisServer;
let llm: OpenAIServer;
let meiliServer: RecordingHttpServer;
let qdrantServer: RecordingHttpServer;
let meili: FakeMeilisearch;
let qdrant: FakeQdrant;
let root: string;
let keyRun: Awaited<ReturnType<typeof runMeiliKey>>;

/** A machine's configuration: its own DATA_DIR, the shared servers, and the search keys it is given. */
function machineConfig(name: string, keys: { meili: string; qdrant: string }, prefix = 'keys'): Config {
  return parseConfig({
    HELPDESK_ENV_FILE: 'none',
    LOG_LEVEL: 'silent',
    REDIS_URL: redis.url,
    QUEUE_PREFIX: prefix,
    DATA_DIR: path.join(root, name),
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDING_DIMENSIONS: '256',
    MEILI_HOST: meiliServer.url,
    MEILI_API_KEY: keys.meili,
    MEILI_MASTER_KEY: '',
    MEILI_INDEX,
    QDRANT_URL: qdrantServer.url,
    QDRANT_API_KEY: keys.qdrant,
    QDRANT_COLLECTION,
    OPENAI_BASE_URL: llm.url,
    OPENAI_API_KEY: 'test-key',
    OPENAI_MODEL: 'scripted-model',
    LLM_MAX_RETRIES: '0',
    MAIL_FROM,
    // The draft is kept for a person: it shows what the worker found, and no sender is needed.
    REVIEW_MODE: 'always',
    AGENT_CONCURRENCY: '1',
    AGENT_MODEL_OUTAGE_MINUTES: '0',
    REINDEX_MANUAL_CRON: '',
    REINDEX_QA_CRON: '',
    RETENTION_CRON: '',
  });
}

beforeAll(async () => {
  const curl = spawnSync('curl', ['--version'], { stdio: 'ignore' });
  if (curl.status !== 0) throw new Error('this test runs the meili-key script of docker-compose.yml, which needs curl on PATH');
  [redis, llm, meiliServer, qdrantServer] = await Promise.all([
    startRedis(),
    startOpenAIServer({ handler: scriptedModel({ tools: 'both' }) }),
    startRecordingServer(),
    startRecordingServer(),
  ]);
  root = await mkdtemp(path.join(tmpdir(), 'worker-search-keys-'));
  meili = new FakeMeilisearch({ masterKey: MASTER_KEY });
  meili.install(meiliServer);
  qdrant = new FakeQdrant({ apiKey: QDRANT_API_KEY, readOnlyApiKey: QDRANT_READ_ONLY_API_KEY });
  qdrant.install(qdrantServer);

  // The main machine: `docker compose up` runs meili-key, then the scheduler builds both indexes with the product's keys.
  keyRun = await runMeiliKey(meiliServer.url, { MEILI_WORKER_KEY_UID: WORKER_KEY_UID });
  const main = machineConfig('main', { meili: PRODUCT_MEILI_KEY, qdrant: QDRANT_API_KEY });
  await new MeilisearchManualSearch({ host: main.MEILI_HOST!, apiKey: main.MEILI_API_KEY, index: MEILI_INDEX, taskPollIntervalMs: 1 }).replaceAll(MANUAL_CHUNKS);
  await new QdrantQaSearch({ url: main.QDRANT_URL!, apiKey: main.QDRANT_API_KEY, collection: QDRANT_COLLECTION, embedder: createEmbedder(main) }).replaceAll(QA_PAIRS);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([redis?.stop(), llm?.close(), meiliServer?.close(), qdrantServer?.close()]);
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the meili-key service of docker-compose.yml', () => {
  it('creates the product key and, from MEILI_WORKER_KEY_UID, a key that can only search and read MEILI_INDEX*', () => {
    expect(keyRun.code, keyRun.stderr).toBe(0);
    expect(meili.keyByUid(PRODUCT_KEY_UID)?.key).toBe(PRODUCT_MEILI_KEY);
    const worker = meili.keyByUid(WORKER_KEY_UID);
    // Its value is derived from the uid and the master key as MEILI_API_KEY's is, so .env can hold it beforehand.
    expect(worker?.key).toBe(WORKER_MEILI_KEY);
    expect(worker).toMatchObject({ actions: ['search', 'indexes.get', 'stats.get'], indexes: [`${MEILI_INDEX}*`] });
    // The product key built the index the extra machines read.
    expect(meili.chunkIds(MEILI_INDEX)).toEqual(MANUAL_CHUNKS.map((chunk) => chunk.id).sort());
  });

  it('creates only the product key when MEILI_WORKER_KEY_UID is unset or empty: one machine needs nothing new', async () => {
    for (const env of [{}, { MEILI_WORKER_KEY_UID: '' }] as Record<string, string>[]) {
      const server = await startRecordingServer();
      try {
        const alone = new FakeMeilisearch({ masterKey: MASTER_KEY });
        alone.install(server);
        const run = await runMeiliKey(server.url, env);
        expect(run.code, run.stderr).toBe(0);
        expect([...alone.keys.values()].map((key) => key.uid)).toEqual([PRODUCT_KEY_UID]);
      } finally {
        await server.close();
      }
    }
  });

  it('keeps the keys it made on the next `up`, and refuses a worker uid that is the product key', async () => {
    const again = await runMeiliKey(meiliServer.url, { MEILI_WORKER_KEY_UID: WORKER_KEY_UID });
    expect(again.code, again.stderr).toBe(0);
    expect(meili.keys.size).toBe(2);
    // The product key's uid would hand the extra machines every action of the product.
    const same = await runMeiliKey(meiliServer.url, { MEILI_WORKER_KEY_UID: PRODUCT_KEY_UID });
    expect(same.code).not.toBe(0);
    expect(same.stderr).toContain('MEILI_WORKER_KEY_UID');
  });

  /** Runs the script against a fresh fake holding `keys`, and returns the run and the fake. */
  async function runAgainst(keys: FakeMeiliKey[], env: Record<string, string>) {
    const server = await startRecordingServer();
    try {
      const fake = new FakeMeilisearch({ masterKey: MASTER_KEY, keys });
      fake.install(server);
      return { run: await runMeiliKey(server.url, env), fake };
    } finally {
      await server.close();
    }
  }

  // Meilisearch reads a uid as a UUID: each of these is the product key's uid, so POST /keys answered 409 and the script
  // said "the helpdesk-worker-agents key exists" about the product key, whose value the other machines would derive.
  const PRODUCT_KEY_ACTIONS = ['search', 'documents.add', 'indexes.create', 'indexes.get', 'indexes.delete', 'indexes.swap', 'settings.update', 'stats.get', 'tasks.get'];
  it.each([
    ['upper case', PRODUCT_KEY_UID.toUpperCase()],
    ['without hyphens', PRODUCT_KEY_UID.replaceAll('-', '')],
    ['upper case without hyphens', PRODUCT_KEY_UID.replaceAll('-', '').toUpperCase()],
    ['in braces', `{${PRODUCT_KEY_UID}}`],
    ['after urn:uuid:', `urn:uuid:${PRODUCT_KEY_UID}`],
  ])('refuses a worker uid that is the product key written %s', async (_form, workerUid) => {
    const { run, fake } = await runAgainst([{ uid: PRODUCT_KEY_UID, actions: PRODUCT_KEY_ACTIONS, indexes: [`${MEILI_INDEX}*`] }], { MEILI_WORKER_KEY_UID: workerUid });
    expect(run.code, run.stdout).not.toBe(0);
    expect(run.stderr).toContain('MEILI_WORKER_KEY_UID must be a uid of its own');
    expect(run.stdout).not.toContain('helpdesk-worker-agents');
    expect([...fake.keys.values()].map((key) => key.uid)).toEqual([PRODUCT_KEY_UID]);
  });

  // A key's actions are fixed when it is created: a uid reused from an older, wider key kept every action it had.
  it.each([
    ['more actions', { actions: ['search', 'indexes.get', 'stats.get', 'documents.add'], indexes: [`${MEILI_INDEX}*`] }],
    ['every action', { actions: ['*'], indexes: [`${MEILI_INDEX}*`] }],
    ['a group wildcard', { actions: ['search', 'indexes.*', 'stats.get'], indexes: [`${MEILI_INDEX}*`] }],
    ['every index', { actions: ['search', 'indexes.get', 'stats.get'], indexes: ['*'] }],
    ['another index too', { actions: ['search', 'indexes.get', 'stats.get'], indexes: [`${MEILI_INDEX}*`, 'other'] }],
    ['a description that quotes the right actions', { actions: ['*'], indexes: ['*'], description: 'was "actions":["search","indexes.get","stats.get"],"indexes":["xyz_manual*"]' }],
  ])('refuses an existing key at MEILI_WORKER_KEY_UID with %s, naming its uid', async (_what, existing) => {
    const { run, fake } = await runAgainst([{ uid: WORKER_KEY_UID, name: 'old', ...existing }], { MEILI_WORKER_KEY_UID: WORKER_KEY_UID.toUpperCase() });
    expect(run.code, run.stdout).not.toBe(0);
    expect(run.stderr).toContain(`MEILI_WORKER_KEY_UID ${WORKER_KEY_UID.toUpperCase()}`);
    expect(run.stdout).not.toContain('the helpdesk-worker-agents key exists');
    expect(fake.keyByUid(WORKER_KEY_UID)).toMatchObject(existing);
  });

  it('keeps an existing key at MEILI_WORKER_KEY_UID that can only search and read MEILI_INDEX*', async () => {
    const { run } = await runAgainst([{ uid: WORKER_KEY_UID, actions: ['search', 'indexes.get', 'stats.get'], indexes: [`${MEILI_INDEX}*`] }], {
      MEILI_WORKER_KEY_UID: WORKER_KEY_UID.replaceAll('-', ''),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('the helpdesk-worker-agents key exists');
  });
});

describe('an agent worker on another machine with the read-only keys', () => {
  it('answers a ticket from the manual and the Q&A, and asks both servers only to read', { timeout: 60_000 }, async () => {
    const prefix = `wk${Date.now().toString(36)}`;
    const config = machineConfig('worker', { meili: WORKER_MEILI_KEY, qdrant: QDRANT_READ_ONLY_API_KEY }, prefix);
    meiliServer.clear();
    qdrantServer.clear();
    const refusedBefore = { meili: meili.refusals.length, qdrant: qdrant.refusals.length };
    const running = await startRoles(config, { sender: false });
    try {
      const raw = buildMail({ messageId: customerMessageId('keys'), from: 'customer@customer.example', subject: '二段階認証とバックアップ', body: TWO_TOPIC_QUESTION });
      const { ticketId } = await ingest(running, raw);
      const ticket = await waitForState(running.store, ticketId, ['parked', 'drafted', 'sent'], 45_000);
      expect(ticket.draft, `${ticket.state}: ${ticket.reason ?? ''}`).toContain('「認証アプリ」を選びます');
      expect(ticket.draft).toContain('通知先メールアドレス');
    } finally {
      await running.stop();
      await removePrefix(redis.url, prefix);
    }
    expect(meili.refusals.slice(refusedBefore.meili)).toEqual([]);
    expect(qdrant.refusals.slice(refusedBefore.qdrant)).toEqual([]);
    // Every request the role made (start-up, index checks, the agent's searches), and with which key.
    const calls = (server: RecordingHttpServer) => [...new Set(server.requests.map((req) => `${req.method} ${req.path}`))].sort();
    expect(calls(meiliServer)).toEqual([`POST /indexes/${MEILI_INDEX}/search`]);
    expect(calls(qdrantServer)).toEqual([`GET /collections/${QDRANT_COLLECTION}`, `POST /collections/${QDRANT_COLLECTION}/points/query`]);
    expect(new Set(meiliServer.requests.map((req) => req.headers.authorization))).toEqual(new Set([`Bearer ${WORKER_MEILI_KEY}`]));
    expect(new Set(qdrantServer.requests.map((req) => req.headers['api-key']))).toEqual(new Set([QDRANT_READ_ONLY_API_KEY]));
  });

  it('cannot write the manual index: every write is refused with 403 invalid_api_key', async () => {
    const client = new Meilisearch({ host: meiliServer.url, apiKey: WORKER_MEILI_KEY });
    const writes: [string, () => Promise<unknown>][] = [
      ['add documents to the live index', () => client.index(MEILI_INDEX).addDocuments([{ ...PLANTED_CHUNK, id: 'planted', chunkId: PLANTED_CHUNK.id }])],
      ['change its settings', () => client.index(MEILI_INDEX).updateSettings({ searchableAttributes: ['fileName'] })],
      ['delete it', () => client.deleteIndex(MEILI_INDEX)],
      ['create a build index', () => client.createIndex(`${MEILI_INDEX}_build_${Date.now()}`)],
      ['swap another index in', () => client.swapIndexes([{ indexes: [MEILI_INDEX, `${MEILI_INDEX}_build_1`] } as never])],
    ];
    for (const [what, write] of writes) {
      const error = await write().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error, what).toBeInstanceOf(MeilisearchApiError);
      expect({ status: (error as MeilisearchApiError).response.status, code: (error as MeilisearchApiError).cause?.code }, what).toEqual({ status: 403, code: 'invalid_api_key' });
    }
    // What a reindex with this key would do: refused, and the live index is as the product built it.
    const manual = new MeilisearchManualSearch({ host: meiliServer.url, apiKey: WORKER_MEILI_KEY, index: MEILI_INDEX, taskPollIntervalMs: 1 });
    await expect(manual.replaceAll([PLANTED_CHUNK])).rejects.toThrow(/was refused with HTTP 403: The provided API key is invalid\. \(invalid_api_key\) — check MEILI_API_KEY/);
    expect(meili.chunkIds(MEILI_INDEX)).toEqual(MANUAL_CHUNKS.map((chunk) => chunk.id).sort());
    expect([...meili.indexes.keys()]).toEqual([MEILI_INDEX]);
  });

  it('cannot write the Q&A collection: every write is refused with 403 Forbidden', async () => {
    const config = machineConfig('worker-writes', { meili: WORKER_MEILI_KEY, qdrant: QDRANT_READ_ONLY_API_KEY });
    const qa = new QdrantQaSearch({ url: qdrantServer.url, apiKey: QDRANT_READ_ONLY_API_KEY, collection: QDRANT_COLLECTION, embedder: createEmbedder(config) });
    const live = qdrant.aliases.get(QDRANT_COLLECTION)!;
    const pointsBefore = [...qdrant.collections.get(live)!.points.keys()].sort();
    const refused = /was refused with HTTP 403: Forbidden: Global manage access is required — check QDRANT_API_KEY/;
    await expect(qa.upsertPairs([PLANTED_PAIR]), 'upsert a learned pair').rejects.toThrow(refused);
    await expect(qa.removePairs([QA_PAIRS[0]!.id]), 'remove a pair').rejects.toThrow(refused);
    await expect(qa.replaceAll([PLANTED_PAIR]), 'rebuild the collection').rejects.toThrow(refused);
    expect(qdrant.aliases.get(QDRANT_COLLECTION)).toBe(live);
    expect([...qdrant.collections.keys()]).toEqual([live]);
    expect([...qdrant.collections.get(live)!.points.keys()].sort()).toEqual(pointsBefore);
    // Reads with the same key still answer.
    expect(await qa.count()).toBe(QA_PAIRS.length);
  });
});
