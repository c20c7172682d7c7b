/**
 * MeilisearchManualSearch against a recording HTTP server that plays a small Meilisearch (test/support/fake-meilisearch.ts):
 * the real `meilisearch` client talks real HTTP, and the tests assert on the requests it made as well as on the results.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualContentHash } from '../../src/search/index-builds.js';
import { MeilisearchManualSearch, toMeiliDocumentId } from '../../src/search/meilisearch-manual.js';
import type { ManualChunk } from '../../src/search/types.js';
import { FakeMeilisearch } from '../support/fake-meilisearch.js';
import { startRecordingServer, type RecordingHttpServer, type RouteResponse } from '../support/recording-http-server.js';

const API_KEY = 'meili-test-key';
const INDEX = 'xyz_manual';

type Doc = Record<string, unknown>;

const CHUNKS: ManualChunk[] = [
  {
    id: 'xyz-guide.pdf#0',
    fileName: 'xyz-guide.pdf',
    heading: 'セキュリティ > 二段階認証',
    content: '二段階認証を有効にするには、設定画面の「セキュリティ」から認証アプリを登録します。',
  },
  {
    id: 'xyz-guide.pdf#1',
    fileName: 'xyz-guide.pdf',
    heading: 'トラブルシューティング > エラーコード',
    content: 'E-1001 はライセンスの有効期限切れを示します。',
  },
  { id: '操作ガイド.pdf#0', fileName: '操作ガイド.pdf', heading: '', content: '請求書はクレジットカードまたは銀行振込でお支払いいただけます。' },
];

describe('MeilisearchManualSearch over HTTP', () => {
  let server: RecordingHttpServer;
  let meili: FakeMeilisearch;
  let manual: MeilisearchManualSearch;

  beforeEach(async () => {
    server = await startRecordingServer();
    meili = new FakeMeilisearch({ keys: [{ key: API_KEY, actions: ['*'], indexes: ['*'] }] });
    meili.install(server);
    manual = new MeilisearchManualSearch({ host: server.url, apiKey: API_KEY, index: INDEX, batchSize: 2, taskPollIntervalMs: 1 });
  });

  afterEach(async () => {
    await server.close();
  });

  it('builds a Japanese-configured index beside the live one, swaps it in and deletes the old one', async () => {
    const progress: { stage: string; done: number; total: number }[] = [];
    await manual.replaceAll(CHUNKS, (p) => {
      progress.push(p);
    });

    const creations = server.find('POST', '/indexes').map((req) => req.body as { uid: string; primaryKey: string });
    const build = creations[0]!.uid;
    expect(build).toMatch(new RegExp(`^${INDEX}_build_\\d+$`));
    expect(creations).toEqual([
      { uid: build, primaryKey: 'id' },
      // The live index did not exist yet, and a swap needs both.
      { uid: INDEX, primaryKey: 'id' },
    ]);

    const settings = server.find('PATCH', `/indexes/${build}/settings`);
    expect(settings).toHaveLength(1);
    expect(settings[0]!.body).toEqual({
      searchableAttributes: ['heading', 'content', 'fileName'],
      displayedAttributes: ['id', 'chunkId', 'fileName', 'heading', 'content'],
      localizedAttributes: [{ attributePatterns: ['heading', 'content', 'fileName'], locales: ['jpn'] }],
    });

    const additions = server.find('POST', `/indexes/${build}/documents`);
    expect(additions.map((req) => (req.body as Doc[]).length)).toEqual([2, 1]);
    const docs = additions.flatMap((req) => req.body as Doc[]);
    expect(docs).toEqual(
      CHUNKS.map((chunk) => ({
        id: toMeiliDocumentId(chunk.id),
        chunkId: chunk.id,
        fileName: chunk.fileName,
        heading: chunk.heading,
        content: chunk.content,
      })),
    );
    for (const doc of docs) expect(doc.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(additions[0]!.query.primaryKey).toBe('id');

    const swaps = server.find('POST', '/swap-indexes');
    expect(swaps).toHaveLength(1);
    expect(swaps[0]!.body).toEqual([{ indexes: [INDEX, build] }]);

    const deletions = server.find('DELETE', /^\/indexes\//);
    expect(deletions.map((req) => req.path)).toEqual([`/indexes/${build}`]);
    expect(server.requests.indexOf(deletions[0]!)).toBeGreaterThan(server.requests.indexOf(swaps[0]!));

    // Every task was awaited, and polled more than once (the fake answers "processing" first).
    for (const task of meili.tasks.values()) expect(task.polls).toBeGreaterThanOrEqual(2);

    expect(meili.chunkIds(INDEX)).toEqual(CHUNKS.map((chunk) => chunk.id).sort());
    expect(meili.indexes.has(build)).toBe(false);
    expect(meili.indexes.get(INDEX)!.settings.localizedAttributes).toEqual([{ attributePatterns: ['heading', 'content', 'fileName'], locales: ['jpn'] }]);
    expect(progress).toEqual([
      { stage: 'index', done: 0, total: 3 },
      { stage: 'index', done: 2, total: 3 },
      { stage: 'index', done: 3, total: 3 },
    ]);
    expect(await manual.count()).toBe(3);
  });

  it('sends the API key as a bearer token on every request', async () => {
    await manual.replaceAll(CHUNKS);
    await manual.search('二段階認証');
    await manual.count();
    await manual.ping();

    expect(server.requests.length).toBeGreaterThan(10);
    for (const req of server.requests) expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(server.unmatched()).toEqual([]);
  });

  it('searches the live index with Japanese locale and maps hits', async () => {
    await manual.replaceAll(CHUNKS);
    server.clear();

    const hits = await manual.search('二段階認証');
    const [request] = server.find('POST', `/indexes/${INDEX}/search`);
    expect(request!.body).toEqual({
      q: '二段階認証',
      limit: 3,
      matchingStrategy: 'frequency',
      showRankingScore: true,
      attributesToRetrieve: ['chunkId', 'fileName', 'heading', 'content'],
      locales: ['jpn'],
    });
    expect(hits).toHaveLength(1);
    expect(hits[0]).toEqual({
      id: 'xyz-guide.pdf#0',
      fileName: 'xyz-guide.pdf',
      heading: 'セキュリティ > 二段階認証',
      content: `【セキュリティ > 二段階認証】\n${CHUNKS[0]!.content}`,
      score: expect.any(Number),
    });
    expect(hits[0]!.score).toBeGreaterThan(0);

    expect((await manual.search('E-1001'))[0]!.id).toBe('xyz-guide.pdf#1');

    // A chunk without heading gets its content unprefixed and no heading field.
    const [billing] = await manual.search('銀行振込', 1);
    expect(billing).toEqual({ id: '操作ガイド.pdf#0', fileName: '操作ガイド.pdf', content: CHUNKS[2]!.content, score: expect.any(Number) });
    expect(server.find('POST', `/indexes/${INDEX}/search`).at(-1)!.body).toMatchObject({ limit: 1 });
  });

  it('reindexing twice gives the same live index, tolerating the existing live index', async () => {
    await manual.replaceAll(CHUNKS);
    const first = [...meili.indexes.get(INDEX)!.docs.entries()];
    server.clear();

    await manual.replaceAll(CHUNKS);
    expect([...meili.indexes.get(INDEX)!.docs.entries()]).toEqual(first);
    expect([...meili.indexes.keys()]).toEqual([INDEX]);
    // The live index existed, so no creation of it was tried: no failed task in the task list on every reindex.
    expect(server.find('POST', '/indexes').map((req) => (req.body as { uid: string }).uid)).toEqual([expect.stringMatching(/_build_\d+$/)]);
    expect([...meili.tasks.values()].filter((task) => task.status === 'failed')).toEqual([]);
    expect(await manual.count()).toBe(3);
  });

  it('answers searches from the old index while a new one is being built', async () => {
    await manual.replaceAll(CHUNKS.slice(0, 1));
    const during: string[][] = [];
    const changed: ManualChunk[] = [
      { id: 'new.pdf#0', fileName: 'new.pdf', heading: '新機能', content: '二段階認証はSMSにも対応しました。' },
      { id: 'new.pdf#1', fileName: 'new.pdf', heading: '', content: 'その他の変更点。' },
      { id: 'new.pdf#2', fileName: 'new.pdf', heading: '', content: 'さらに別の変更点。' },
    ];

    await manual.replaceAll(changed, async ({ done }) => {
      if (done > 0) during.push((await manual.search('二段階認証')).map((hit) => hit.id));
    });

    expect(during).toEqual([['xyz-guide.pdf#0'], ['xyz-guide.pdf#0']]);
    expect((await manual.search('二段階認証')).map((hit) => hit.id)).toEqual(['new.pdf#0']);
  });

  it('fails loudly when a task fails, leaving the live index untouched and dropping the build', async () => {
    await manual.replaceAll(CHUNKS);
    // What the build record names (src/search/index-builds.ts): the chunks of the last build that went live.
    expect(manual.builtHash()).toBe(manualContentHash(CHUNKS));
    server.clear();
    meili.failTask = (type) => (type === 'documentAdditionOrUpdate' ? { message: 'The disk is full.', code: 'no_space_left_on_device' } : undefined);

    const failure = manual.replaceAll([{ id: 'a#0', fileName: 'a', heading: '', content: 'x' }]);
    await expect(failure).rejects.toThrow(`Meilisearch at ${server.url}`);
    await expect(failure).rejects.toThrow(/add documents 1-1 to "xyz_manual_build_\d+" failed in task \d+: The disk is full\. \(no_space_left_on_device\)/);

    expect(server.find('POST', '/swap-indexes')).toEqual([]);
    const build = (server.find('POST', '/indexes')[0]!.body as { uid: string }).uid;
    expect(server.find('DELETE', `/indexes/${build}`)).toHaveLength(1);
    expect([...meili.indexes.keys()]).toEqual([INDEX]);
    expect(meili.chunkIds(INDEX)).toEqual(CHUNKS.map((chunk) => chunk.id).sort());
    expect(manual.builtHash()).toBe(manualContentHash(CHUNKS));
  });

  it('treats a missing index as empty and rejects duplicate chunk ids', async () => {
    expect(await manual.count()).toBe(0);
    expect(await manual.search('認証')).toEqual([]);
    expect(await manual.search('   ')).toEqual([]);
    await expect(manual.replaceAll([CHUNKS[0]!, CHUNKS[0]!])).rejects.toThrow('duplicate manual chunk id "xyz-guide.pdf#0"');
    expect(server.find('POST', '/indexes')).toEqual([]);
  });

  it('names the host when the server refuses or cannot be reached', async () => {
    server.on('GET', '/indexes/:uid/stats', () => ({
      status: 403,
      body: { message: 'The provided API key is invalid.', code: 'invalid_api_key', type: 'auth', link: '' },
    }));
    await expect(manual.count()).rejects.toThrow(
      `Meilisearch at ${server.url}: read stats of index "${INDEX}" was refused with HTTP 403: The provided API key is invalid. (invalid_api_key) — check MEILI_API_KEY`,
    );

    await manual.ping();
    const url = server.url;
    await server.close();
    await expect(manual.ping()).rejects.toThrow(`Meilisearch at ${url} is unreachable (read index "${INDEX}")`);
    server = await startRecordingServer();
  });

  it('fails ping with a wrong key, which GET /health would not notice', async () => {
    await manual.ping();
    const wrong = new MeilisearchManualSearch({ host: server.url, apiKey: 'not-the-key', index: INDEX });
    await expect(wrong.ping()).rejects.toThrow(
      `Meilisearch at ${server.url}: read index "${INDEX}" was refused with HTTP 403: The provided API key is invalid. (invalid_api_key) — check MEILI_API_KEY`,
    );
  });

  it('sends a long sentence as its content words, since Meilisearch reads only the first ten', async () => {
    await manual.replaceAll(CHUNKS);
    server.clear();
    const sentence = '先月から何度もログインしようとしているのですが、うまくいかないので、銀行振込について教えてください';

    const hits = await manual.search(sentence);
    expect(hits[0]?.id).toBe('操作ガイド.pdf#0');
    const { q } = server.find('POST', `/indexes/${INDEX}/search`)[0]!.body as { q: string };
    expect(q).toBe('先月 度 ログイン 銀行 振込');

    // Keywords within the limit go as they are.
    await manual.search('二段階認証 エラー');
    expect((server.find('POST', `/indexes/${INDEX}/search`)[1]!.body as { q: string }).q).toBe('二段階認証 エラー');
  });

  it('asks for the frequency matching strategy, so a word no chunk holds does not empty the results', async () => {
    await manual.replaceAll(CHUNKS);
    server.clear();
    // Meilisearch's default (`last`) never stops requiring the first word: 返金 is in no chunk, so nothing would come back.
    const hits = await manual.search('返金 銀行振込');
    expect(hits.map((hit) => hit.id)).toEqual(['操作ガイド.pdf#0']);
    expect(server.find('POST', `/indexes/${INDEX}/search`)[0]!.body).toMatchObject({ matchingStrategy: 'frequency' });
  });

  it('removes build indexes left over by a crashed reindex, sparing recent ones', async () => {
    await manual.replaceAll(CHUNKS);
    const old = Date.now() - 2 * 60 * 60_000;
    const leftover = `${INDEX}_build_${old}`;
    const recent = `${INDEX}_build_${Date.now() - 60_000}`;
    const foreign = `other_build_${old}`;
    for (const uid of [leftover, recent, foreign]) meili.indexes.set(uid, { uid, primaryKey: 'id', settings: {}, docs: new Map() });

    await manual.replaceAll(CHUNKS);
    expect(new Set(meili.indexes.keys())).toEqual(new Set([INDEX, recent, foreign]));
    expect(meili.chunkIds(INDEX)).toEqual(CHUNKS.map((chunk) => chunk.id).sort());
  });

  it('reports time-outs and error pages from a proxy as such', async () => {
    await manual.replaceAll(CHUNKS);
    server.on('POST', '/indexes/:uid/documents', () => ({
      status: 413,
      body: '<html><head><title>413 Request Entity Too Large</title></head><body><center><h1>413 Request Entity Too Large</h1></center></body></html>',
      headers: { 'content-type': 'text/html' },
    }));
    await expect(manual.replaceAll(CHUNKS)).rejects.toThrow(
      new RegExp(`^Meilisearch at ${server.url}: add documents 1-2 to "${INDEX}_build_\\d+" got a response that is not Meilisearch's JSON`),
    );

    const impatient = new MeilisearchManualSearch({ host: server.url, apiKey: API_KEY, index: INDEX, requestTimeoutMs: 200 });
    server.on('POST', '/indexes/:uid/search', () => new Promise<RouteResponse>(() => undefined));
    await expect(impatient.search('二段階認証')).rejects.toThrow(`Meilisearch at ${server.url}: search in index "${INDEX}" timed out after 200 ms`);
  });
});
