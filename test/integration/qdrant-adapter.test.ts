/**
 * QdrantQaSearch against a recording HTTP server that plays a small Qdrant (test/support/fake-qdrant.ts): the real
 * `@qdrant/js-client-rest` client talks real HTTP, and the tests assert on the requests it made as well as on the results.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CachedEmbedder } from '../../src/search/embeddings.js';
import { qaContentHash } from '../../src/search/index-builds.js';
import { QdrantQaSearch, toQdrantPointId } from '../../src/search/qdrant-qa.js';
import { formatQaPair, type Embedder, type QaPair } from '../../src/search/types.js';
import { FakeQdrant, qdrantError, type FakeQdrantAliasAction as AliasAction, type FakeQdrantPoint as Point } from '../support/fake-qdrant.js';
import { startRecordingServer, type RecordingHttpServer, type RouteResponse } from '../support/recording-http-server.js';

const API_KEY = 'qdrant-test-key';
const ALIAS = 'xyz_qa';

/** Fixed 4-dimensional vectors: one axis per topic keyword, plus a constant so no vector is zero. */
class KeywordEmbedder implements Embedder {
  readonly id = 'test-keywords-4';
  readonly calls: string[][] = [];
  static readonly AXES = ['二段階認証', 'パスワード', '請求', 'E-1001'];

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls.push(texts);
    return texts.map((text) => Float32Array.from(KeywordEmbedder.AXES.map((axis) => (text.includes(axis) ? 1 : 0.1))));
  }
}

/** Another vector space: constant vectors of a chosen size under another id. */
class OtherEmbedder implements Embedder {
  readonly id: string;
  constructor(readonly dims: number) {
    this.id = `other-${dims}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => Float32Array.from({ length: this.dims }, (_, i) => (text.length % (i + 2)) + 1));
  }
}

/** Vectors the size of text-embedding-3-large's, whose numbers take about 20 bytes each as JSON, as real ones do. */
class LargeEmbedder implements Embedder {
  readonly id = 'test-large-3072';
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => Float32Array.from({ length: 3072 }, (_, i) => Math.sin(text.length + i * 0.7) / 7));
  }
}

const PAIRS: QaPair[] = [
  { id: 'qa.csv#1', fileName: 'qa.csv', row: 1, question: 'パスワードを忘れました', answer: 'ログイン画面の「パスワードを忘れた」から再設定できます。' },
  { id: 'qa.csv#2', fileName: 'qa.csv', row: 2, question: '二段階認証を設定したい', answer: '設定 > セキュリティ > 二段階認証 から認証アプリを登録してください。' },
  { id: 'qa.csv#3', fileName: 'qa.csv', row: 3, question: '請求書の送付先を変えたい', answer: '管理画面の請求情報から変更できます。' },
];

describe('QdrantQaSearch over HTTP', () => {
  let server: RecordingHttpServer;
  let qdrant: FakeQdrant;
  let embedder: KeywordEmbedder;
  let qa: QdrantQaSearch;

  let consoleWarn: ReturnType<typeof vi.spyOn>;

  beforeEach(async () => {
    // The client's own plain-http key warning would land on the console of every process; the adapter logs it once.
    consoleWarn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    server = await startRecordingServer();
    qdrant = new FakeQdrant({ apiKey: API_KEY });
    qdrant.install(server);
    embedder = new KeywordEmbedder();
    qa = new QdrantQaSearch({ url: server.url, apiKey: API_KEY, collection: ALIAS, embedder, embedBatchSize: 2, upsertBatchSize: 2 });
  });

  afterEach(async () => {
    await server.close();
    expect(consoleWarn).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it('embeds, fills a new Cosine collection, points the alias at it', async () => {
    const progress: { stage: string; done: number; total: number }[] = [];
    expect(qa.builtHash()).toBeUndefined();
    await qa.replaceAll(PAIRS, (p) => {
      progress.push(p);
    });
    // What the build record names (src/search/index-builds.ts): the pairs indexed.
    expect(qa.builtHash()).toBe(qaContentHash(PAIRS));

    expect(embedder.calls).toEqual([[formatQaPair(PAIRS[0]!), formatQaPair(PAIRS[1]!)], [formatQaPair(PAIRS[2]!)]]);

    const creations = server.find('PUT', /^\/collections\/[^/]+$/);
    expect(creations).toHaveLength(1);
    const build = creations[0]!.path.slice('/collections/'.length);
    expect(build).toMatch(new RegExp(`^${ALIAS}_\\d+$`));
    expect(creations[0]!.body).toEqual({ vectors: { size: 4, distance: 'Cosine' } });
    // The collection records which embedder built it.
    expect(server.find('PATCH', `/collections/${build}`).map((req) => req.body)).toEqual([{ metadata: { embedder: 'test-keywords-4', dims: 4 } }]);

    const upserts = server.find('PUT', `/collections/${build}/points`);
    expect(upserts).toHaveLength(2);
    for (const upsert of upserts) expect(upsert.query.wait).toBe('true');
    const points = upserts.flatMap((upsert) => (upsert.body as { points: Point[] }).points);
    expect(points.map((point) => point.id)).toEqual(PAIRS.map((pair) => toQdrantPointId(pair.id)));
    for (const point of points) expect(point.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(points[1]).toEqual({
      id: toQdrantPointId('qa.csv#2'),
      vector: [1, 0.1, 0.1, 0.1].map((value) => Math.fround(value)),
      payload: { pairId: 'qa.csv#2', question: PAIRS[1]!.question, answer: PAIRS[1]!.answer, fileName: 'qa.csv', row: 2 },
    });

    const aliasChanges = server.find('POST', '/collections/aliases');
    expect(aliasChanges).toHaveLength(1);
    // First reindex: nothing to delete.
    expect(aliasChanges[0]!.body).toEqual({ actions: [{ create_alias: { collection_name: build, alias_name: ALIAS } }] });
    expect(server.find('DELETE', /^\/collections\//)).toEqual([]);

    expect(qdrant.aliases.get(ALIAS)).toBe(build);
    expect(progress).toEqual([
      { stage: 'embed', done: 0, total: 3 },
      { stage: 'embed', done: 2, total: 3 },
      { stage: 'embed', done: 3, total: 3 },
      { stage: 'upload', done: 0, total: 3 },
      { stage: 'upload', done: 2, total: 3 },
      { stage: 'upload', done: 3, total: 3 },
    ]);
    expect(await qa.count()).toBe(3);
    expect(server.find('POST', `/collections/${ALIAS}/points/count`)[0]!.body).toEqual({ exact: true });
  });

  it('switches the alias in one request (delete + create) and deletes the previous collection', async () => {
    await qa.replaceAll(PAIRS);
    const first = qdrant.aliases.get(ALIAS)!;
    const firstPoints = [...qdrant.collections.get(first)!.points.entries()];
    server.clear();

    await qa.replaceAll(PAIRS);
    const second = qdrant.aliases.get(ALIAS)!;
    expect(second).not.toBe(first);

    const aliasChanges = server.find('POST', '/collections/aliases');
    expect(aliasChanges).toHaveLength(1);
    expect(aliasChanges[0]!.body).toEqual({
      actions: [{ delete_alias: { alias_name: ALIAS } }, { create_alias: { collection_name: second, alias_name: ALIAS } }],
    });
    const deletions = server.find('DELETE', /^\/collections\//);
    expect(deletions.map((req) => req.path)).toEqual([`/collections/${first}`]);
    expect(server.requests.indexOf(deletions[0]!)).toBeGreaterThan(server.requests.indexOf(aliasChanges[0]!));

    // Same input, same points: the rebuild is idempotent.
    expect([...qdrant.collections.get(second)!.points.entries()]).toEqual(firstPoints);
    expect([...qdrant.collections.keys()]).toEqual([second]);
  });

  it('sends the API key header on every request', async () => {
    await qa.replaceAll(PAIRS);
    await qa.search('二段階認証');
    await qa.count();
    await qa.ping();

    expect(server.requests.length).toBeGreaterThan(5);
    for (const req of server.requests) expect(req.headers['api-key']).toBe(API_KEY);
    expect(server.unmatched()).toEqual([]);
  });

  it('queries the alias with the embedded query and maps the hits', async () => {
    await qa.replaceAll(PAIRS);
    server.clear();
    embedder.calls.length = 0;

    const hits = await qa.search('二段階認証のやり方を教えて');
    expect(embedder.calls).toEqual([['二段階認証のやり方を教えて']]);
    const [request] = server.find('POST', `/collections/${ALIAS}/points/query`);
    expect(request!.body).toEqual({ query: [1, 0.1, 0.1, 0.1].map((value) => Math.fround(value)), limit: 3, with_payload: true });

    expect(hits).toHaveLength(3);
    expect(hits[0]).toEqual({ id: 'qa.csv#2', fileName: 'qa.csv#2', content: formatQaPair(PAIRS[1]!), score: expect.any(Number) });
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);

    const [billing] = await qa.search('請求について', 1);
    expect(billing!.id).toBe('qa.csv#3');
    expect(server.find('POST', `/collections/${ALIAS}/points/query`).at(-1)!.body).toMatchObject({ limit: 1 });
  });

  it('keeps a query out of the embedding cache file: customers\' questions are one-off texts and must not pile up on disk', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'qdrant-cache-'));
    try {
      const cached = new CachedEmbedder({ inner: embedder, dir });
      const search = new QdrantQaSearch({ url: server.url, apiKey: API_KEY, collection: ALIAS, embedder: cached });
      await search.replaceAll(PAIRS);
      const built = (await stat(cached.cacheFile)).size;
      expect(cached.stats().entries).toBe(PAIRS.length);
      const [hit] = await search.search('二段階認証のやり方を教えて', 1);
      expect(hit!.id).toBe('qa.csv#2');
      expect(cached.stats().entries).toBe(PAIRS.length);
      expect((await stat(cached.cacheFile)).size).toBe(built);
      // Asked again at once, it is answered from memory.
      embedder.calls.length = 0;
      await search.search('二段階認証のやり方を教えて', 1);
      expect(embedder.calls).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers searches from the old collection while a new one is being built', async () => {
    await qa.replaceAll(PAIRS.slice(0, 2));
    const during: string[][] = [];
    const changed: QaPair[] = [
      { id: 'new.csv#1', fileName: 'new.csv', row: 1, question: '二段階認証が使えない', answer: 'SMS 認証もお試しください。' },
      { id: 'new.csv#2', fileName: 'new.csv', row: 2, question: 'パスワードの条件', answer: '12 文字以上です。' },
      { id: 'new.csv#3', fileName: 'new.csv', row: 3, question: '請求の締め日', answer: '月末です。' },
    ];

    await qa.replaceAll(changed, async ({ stage, done }) => {
      if (stage === 'upload' && done > 0) during.push((await qa.search('二段階認証', 1)).map((hit) => hit.id));
    });

    expect(during).toEqual([['qa.csv#2'], ['qa.csv#2']]);
    expect((await qa.search('二段階認証', 1)).map((hit) => hit.id)).toEqual(['new.csv#1']);
  });

  it('treats a missing alias as an empty index', async () => {
    expect(await qa.count()).toBe(0);
    expect(await qa.search('二段階認証')).toEqual([]);
  });

  it('refuses, before embedding anything, when a real collection carries the alias name', async () => {
    qdrant.collections.set(ALIAS, { config: { vectors: { size: 4, distance: 'Cosine' } }, metadata: {}, points: new Map() });
    await expect(qa.replaceAll(PAIRS)).rejects.toThrow(`Qdrant at ${server.url}: "${ALIAS}" is a collection`);
    expect(embedder.calls).toEqual([]);
  });

  it('drops the half-built collection and keeps the alias when an upsert fails', async () => {
    await qa.replaceAll(PAIRS);
    const live = qdrant.aliases.get(ALIAS)!;
    server.on('PUT', /^\/collections\/[^/]+\/points$/, () => qdrantError(400, 'Wrong input: Vector dimension error: expected dim: 4, got 3'));
    server.clear();

    const failure = qa.replaceAll(PAIRS);
    await expect(failure).rejects.toThrow(
      new RegExp(`^Qdrant at ${server.url}: upsert points 1-2 into "${ALIAS}_\\d+" was refused with HTTP 400: Wrong input: Vector dimension error`),
    );
    const build = server.find('PUT', /^\/collections\/[^/]+$/)[0]!.path.slice('/collections/'.length);
    expect(server.find('DELETE', `/collections/${build}`)).toHaveLength(1);
    expect(server.find('POST', '/collections/aliases')).toEqual([]);
    expect(qdrant.aliases.get(ALIAS)).toBe(live);
    expect([...qdrant.collections.keys()]).toEqual([live]);
  });

  it('creates an empty collection of the right size for no pairs', async () => {
    await qa.replaceAll([]);
    const [creation] = server.find('PUT', /^\/collections\/[^/]+$/);
    expect(creation!.body).toEqual({ vectors: { size: 4, distance: 'Cosine' } });
    expect(await qa.count()).toBe(0);
  });

  it('names the URL when the server cannot be reached', async () => {
    await qa.ping();
    const url = server.url;
    await server.close();
    await expect(qa.ping()).rejects.toThrow(`Qdrant at ${url} is unreachable (list collections)`);
    server = await startRecordingServer();
  });

  it('keeps the new collection when the alias switch reports an error after the server applied it', async () => {
    await qa.replaceAll(PAIRS);
    const first = qdrant.aliases.get(ALIAS)!;
    // The switch happens, but the answer is lost: a proxy time-out, a dropped connection.
    server.on('POST', '/collections/aliases', (req) => {
      qdrant.applyAliasActions(req.body as { actions: AliasAction[] });
      return { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'content-type': 'text/html' } };
    });
    server.clear();

    await qa.replaceAll(PAIRS);
    const second = qdrant.aliases.get(ALIAS)!;
    expect(second).not.toBe(first);
    expect([...qdrant.collections.keys()]).toEqual([second]);
    expect((await qa.search('二段階認証', 1)).map((hit) => hit.id)).toEqual(['qa.csv#2']);
  });

  it('drops the new collection and keeps the alias when the alias switch was not applied', async () => {
    await qa.replaceAll(PAIRS);
    const first = qdrant.aliases.get(ALIAS)!;
    server.on('POST', '/collections/aliases', () => qdrantError(500, 'Service internal error: switch failed'));
    server.clear();

    await expect(qa.replaceAll(PAIRS)).rejects.toThrow(`point alias "${ALIAS}" at`);
    expect(qdrant.aliases.get(ALIAS)).toBe(first);
    expect([...qdrant.collections.keys()]).toEqual([first]);
    expect((await qa.search('二段階認証', 1)).map((hit) => hit.id)).toEqual(['qa.csv#2']);
  });

  it('points the alias back at the previous collection when the switch fails after deleting the alias', async () => {
    await qa.replaceAll(PAIRS);
    const first = qdrant.aliases.get(ALIAS)!;
    // The new collection is gone by the time of the switch (another process's cleanup took it for a leftover):
    // Qdrant applies delete_alias, refuses create_alias, and keeps the deletion.
    server.on('POST', '/collections/aliases', (req) => {
      const body = req.body as { actions: AliasAction[] };
      const target = body.actions.find((action) => action.create_alias)?.create_alias?.collection_name;
      if (target && target !== first) qdrant.collections.delete(target);
      return qdrant.applyAliasActions(body);
    });
    server.clear();

    await expect(qa.replaceAll(PAIRS)).rejects.toThrow(
      new RegExp(`^Qdrant at ${server.url}: point alias "${ALIAS}" at "${ALIAS}_\\d+" was refused with HTTP 404: Not found: Collection`),
    );
    expect(qdrant.aliases.get(ALIAS)).toBe(first);
    expect([...qdrant.collections.keys()]).toEqual([first]);
    const switches = server.find('POST', '/collections/aliases').map((req) => req.body);
    expect(switches).toHaveLength(2);
    expect(switches[1]).toEqual({ actions: [{ create_alias: { collection_name: first, alias_name: ALIAS } }] });
    expect((await qa.search('二段階認証', 1)).map((hit) => hit.id)).toEqual(['qa.csv#2']);
  });

  it("keeps each upsert request under Qdrant's 32 MiB body limit, with long answers and 3072-dimensional vectors", async () => {
    // About 61 kB of vector and 75 kB of answer per point: 256 points (one default batch) are over 32 MiB.
    const answer = 'ご不便をおかけして申し訳ございません。'.repeat(1_300);
    const pairs: QaPair[] = Array.from({ length: 256 }, (_, i) => ({ id: `long.csv#${i + 1}`, fileName: 'long.csv', row: i + 1, question: `長い回答 ${i + 1}`, answer }));
    const large = new QdrantQaSearch({ url: server.url, apiKey: API_KEY, collection: ALIAS, embedder: new LargeEmbedder() });

    await large.replaceAll(pairs);
    const upserts = server.find('PUT', /^\/collections\/[^/]+\/points$/);
    const sizes = upserts.map((req) => Number(req.headers['content-length']));
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThan(32 * 1024 * 1024);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(upserts.flatMap((req) => (req.body as { points: Point[] }).points.map((point) => point.id))).toEqual(pairs.map((pair) => toQdrantPointId(pair.id)));
    expect(await large.count()).toBe(pairs.length);
  });

  it('fails ping with a wrong key, which the key-free routes would not notice', async () => {
    await qa.ping();
    const wrong = new QdrantQaSearch({ url: server.url, apiKey: 'not-the-key', collection: ALIAS, embedder });
    await expect(wrong.ping()).rejects.toThrow(
      `Qdrant at ${server.url}: list collections was refused with HTTP 401: Invalid API key or JWT — check QDRANT_API_KEY`,
    );
  });

  it('reaches a Qdrant served under a path, as behind a reverse proxy', async () => {
    const proxied = new FakeQdrant({ apiKey: API_KEY });
    proxied.install(server, '/qdrant');
    const behindProxy = new QdrantQaSearch({ url: `${server.url}/qdrant/`, apiKey: API_KEY, collection: ALIAS, embedder });
    await behindProxy.replaceAll(PAIRS);
    expect((await behindProxy.search('請求', 1)).map((hit) => hit.id)).toEqual(['qa.csv#3']);
    await behindProxy.ping();
    expect(server.unmatched()).toEqual([]);
    expect(server.requests.every((req) => req.path.startsWith('/qdrant/'))).toBe(true);
    expect(qdrant.collections.size).toBe(0);
  });

  it('refuses searches when the collection was built by another embedder', async () => {
    await qa.replaceAll(PAIRS);
    const sameSize = new QdrantQaSearch({ url: server.url, apiKey: API_KEY, collection: ALIAS, embedder: new OtherEmbedder(4) });
    await expect(sameSize.search('二段階認証')).rejects.toThrow(
      `Q&A collection "${ALIAS}" was built with embedder test-keywords-4 (4 dimensions), but this process embeds with other-4 (4); run a reindex`,
    );
    const otherSize = new QdrantQaSearch({ url: server.url, apiKey: API_KEY, collection: ALIAS, embedder: new OtherEmbedder(6) });
    await expect(otherSize.search('二段階認証')).rejects.toThrow('embedder test-keywords-4 (4 dimensions), but this process embeds with other-6 (6)');

    // A collection from before the record: the vector size still decides.
    delete qdrant.collections.get(qdrant.aliases.get(ALIAS)!)!.metadata.embedder;
    const unrecorded = new QdrantQaSearch({ url: server.url, apiKey: API_KEY, collection: ALIAS, embedder: new OtherEmbedder(6) });
    await expect(unrecorded.search('二段階認証')).rejects.toThrow(`Q&A collection "${ALIAS}" holds 4-dimensional vectors, but embedder other-6 gives 6`);
    expect((await qa.search('二段階認証', 1)).map((hit) => hit.id)).toEqual(['qa.csv#2']);

    // A reindex with the new embedder makes it usable.
    await otherSize.replaceAll(PAIRS);
    expect(await otherSize.search('二段階認証')).toHaveLength(3);
  });

  it("treats only Qdrant's own \"Not found: Collection\" as an empty index", async () => {
    expect(await qa.count()).toBe(0);
    server.on('POST', /\/points\/count$/, () => ({ status: 404, body: '<html><body>404 Not Found</body></html>', headers: { 'content-type': 'text/html' } }));
    server.on('GET', /^\/collections\/[^/]+$/, () => ({ status: 404, body: '<html><body>404 Not Found</body></html>', headers: { 'content-type': 'text/html' } }));
    await expect(qa.count()).rejects.toThrow(`Qdrant at ${server.url}: count points in "${ALIAS}" got HTTP 404 with a response that is not Qdrant's (text/html): 404 Not Found`);
    await expect(qa.search('二段階認証')).rejects.toThrow(`query "${ALIAS}" got HTTP 404`);
  });

  it('reports rate limits and time-outs as such', async () => {
    await qa.replaceAll(PAIRS);
    server.on('POST', /\/points\/count$/, () => ({ ...qdrantError(429, 'Rate limiting exceeded: Read rate limit exceeded'), headers: { 'retry-after': '7' } }));
    await expect(qa.count()).rejects.toThrow(`Qdrant at ${server.url}: count points in "${ALIAS}" was rate-limited (HTTP 429); retry after 7 s`);
    server.on('POST', /\/points\/count$/, () => qdrantError(429, 'Rate limiting exceeded: Read rate limit exceeded'));
    await expect(qa.count()).rejects.toThrow('was rate-limited (HTTP 429): Rate limiting exceeded: Read rate limit exceeded');

    const impatient = new QdrantQaSearch({ url: server.url, apiKey: API_KEY, collection: ALIAS, embedder, requestTimeoutMs: 200 });
    server.on('POST', /\/points\/count$/, () => new Promise<RouteResponse>(() => undefined));
    await expect(impatient.count()).rejects.toThrow(`Qdrant at ${server.url}: count points in "${ALIAS}" timed out`);
  });

  it('removes build collections left over by a crashed reindex, sparing recent and aliased ones', async () => {
    await qa.replaceAll(PAIRS);
    const live = qdrant.aliases.get(ALIAS)!;
    const old = Date.now() - 2 * 60 * 60_000;
    const leftover = `${ALIAS}_${old}`;
    const aliased = `${ALIAS}_${old + 1}`;
    const recent = `${ALIAS}_${Date.now() - 60_000}`;
    const foreign = `other_${old}`;
    for (const name of [leftover, aliased, recent, foreign]) {
      qdrant.collections.set(name, { config: { vectors: { size: 4, distance: 'Cosine' } }, metadata: {}, points: new Map() });
    }
    qdrant.aliases.set('someone_elses_alias', aliased);

    await qa.replaceAll(PAIRS);
    const now = qdrant.aliases.get(ALIAS)!;
    expect(new Set(qdrant.collections.keys())).toEqual(new Set([now, aliased, recent, foreign]));
    expect(server.find('DELETE', `/collections/${live}`)).toHaveLength(1);
  });

  it('takes a learned pair at once as a point of the live collection, searchable with its ticket, and removes it', async () => {
    await qa.replaceAll(PAIRS);
    const build = qdrant.aliases.get(ALIAS)!;
    const ticketId = 'a'.repeat(64);
    const learned: QaPair = { id: 'learned#7', fileName: 'learned', row: 7, question: '請求書の宛名を変えたい', answer: '請求情報の「宛名」から変更できます。', ticketId };

    await qa.upsertPairs([learned]);
    // Through the alias, into the collection it points at: no new collection, no alias change.
    expect(server.find('PUT', `/collections/${ALIAS}/points`).map((req) => (req.body as { points: Point[] }).points.map((p) => p.id))).toEqual([[toQdrantPointId('learned#7')]]);
    expect(server.find('PUT', /^\/collections\/[^/]+$/)).toHaveLength(1);
    expect(qdrant.collections.get(build)!.points.get(toQdrantPointId('learned#7'))!.payload).toEqual({
      pairId: 'learned#7',
      question: learned.question,
      answer: learned.answer,
      fileName: 'learned',
      row: 7,
      ticketId,
    });
    const hits = await qa.search('請求書の宛名', 4);
    expect(hits.find((hit) => hit.id === 'learned#7')).toMatchObject({ fileName: 'learned#7', learnedFrom: ticketId, content: formatQaPair(learned) });

    // An edited pair replaces its point (same id); removing it deletes the point.
    await qa.upsertPairs([{ ...learned, answer: '新しい回答' }]);
    expect(qdrant.collections.get(build)!.points.size).toBe(PAIRS.length + 1);
    await qa.removePairs(['learned#7']);
    expect(qdrant.collections.get(build)!.points.has(toQdrantPointId('learned#7'))).toBe(false);
    expect(await qa.count()).toBe(PAIRS.length);
  });

  it('refuses a learned pair before the first reindex, and removing from no collection is no error', async () => {
    const learned: QaPair = { id: 'learned#1', fileName: 'learned', row: 1, question: 'q', answer: 'a' };
    await expect(qa.upsertPairs([learned])).rejects.toThrow(/does not exist yet; run a reindex first/);
    await expect(qa.removePairs(['learned#1'])).resolves.toBeUndefined();
  });
});
