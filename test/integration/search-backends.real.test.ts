/**
 * The server search backends against real servers: runs when MEILI_HOST / QDRANT_URL are set (with MEILI_API_KEY /
 * QDRANT_API_KEY when the servers need them), and is skipped with a note otherwise. Each run uses its own index and
 * alias names and removes them afterwards, so it can point at a shared development server.
 */
import { createHash } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import { Meilisearch } from 'meilisearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MeilisearchManualSearch } from '../../src/search/meilisearch-manual.js';
import { QdrantQaSearch } from '../../src/search/qdrant-qa.js';
import type { Embedder, ManualChunk, QaPair } from '../../src/search/types.js';

const MEILI_HOST = process.env.MEILI_HOST || undefined;
const MEILI_API_KEY = process.env.MEILI_API_KEY || undefined;
const QDRANT_URL = process.env.QDRANT_URL || undefined;
const QDRANT_API_KEY = process.env.QDRANT_API_KEY || undefined;

if (!MEILI_HOST) console.info('skipped: set MEILI_HOST to run against a real Meilisearch');
if (!QDRANT_URL) console.info('skipped: set QDRANT_URL to run against a real Qdrant');

const RUN = `helpdesk_test_${Date.now()}_${process.pid}`;
/** Real servers index asynchronously; a reindex of a few documents still takes a moment. */
const SLOW = 120_000;

const CHUNKS: ManualChunk[] = [
  {
    id: 'xyz-guide.pdf#0',
    fileName: 'xyz-guide.pdf',
    heading: 'セキュリティ > 二段階認証',
    content: '二段階認証を有効にするには、設定画面の「セキュリティ」から認証アプリを登録します。ログインのたびに確認コードの入力が必要になります。',
  },
  {
    id: 'xyz-guide.pdf#1',
    fileName: 'xyz-guide.pdf',
    heading: 'トラブルシューティング > エラーコード',
    content: 'エラーコード E-1001 はライセンスの有効期限切れを示します。管理者に更新を依頼してください。',
  },
  {
    id: 'xyz-guide.pdf#2',
    fileName: 'xyz-guide.pdf',
    heading: '請求 > 支払い方法',
    content: 'お支払いはクレジットカードまたは銀行振込に対応しています。請求書は毎月末に発行されます。',
  },
  { id: '操作ガイド.pdf#0', fileName: '操作ガイド.pdf', heading: '', content: 'データのエクスポートは「管理」メニューの「バックアップ」から CSV 形式で行えます。' },
];

const PAIRS: QaPair[] = [
  { id: 'qa.csv#1', fileName: 'qa.csv', row: 1, question: 'パスワードを忘れてしまいました', answer: 'ログイン画面の「パスワードを忘れた方」から再設定メールを送信できます。' },
  { id: 'qa.csv#2', fileName: 'qa.csv', row: 2, question: '二段階認証を設定するにはどうすればいいですか', answer: '設定画面のセキュリティから認証アプリを登録してください。' },
  { id: 'qa.csv#3', fileName: 'qa.csv', row: 3, question: 'E-1001 というエラーが表示されます', answer: 'ライセンスの有効期限切れです。管理者に更新を依頼してください。' },
  { id: 'qa.csv#4', fileName: 'qa.csv', row: 4, question: '請求書の宛名を変更したい', answer: '管理画面の請求情報から宛名を変更できます。' },
];

/**
 * Hashed character bigrams: crude, but texts sharing Japanese words share bigrams, which is all these searches
 * need, and it keeps the test free of any model or network.
 */
class BigramEmbedder implements Embedder {
  readonly id = 'test-bigram-256';
  readonly #dims = 256;

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      const vector = new Float32Array(this.#dims);
      const chars = [...text.replace(/\s+/g, '')];
      for (let i = 0; i + 1 < chars.length; i += 1) {
        const bucket = createHash('sha1').update(chars[i]! + chars[i + 1]!).digest().readUInt32BE(0) % this.#dims;
        vector[bucket]! += 1;
      }
      vector[0]! += 0.01;
      return vector;
    });
  }
}

describe.runIf(MEILI_HOST)('MeilisearchManualSearch on a real Meilisearch', () => {
  const index = `${RUN}_manual`;
  // Built in beforeAll: a describe body runs even when skipped, and an empty host would not parse.
  let manual: MeilisearchManualSearch;
  beforeAll(() => {
    manual = new MeilisearchManualSearch({ host: MEILI_HOST ?? '', apiKey: MEILI_API_KEY, index });
  });

  afterAll(async () => {
    const client = new Meilisearch({ host: MEILI_HOST ?? '', apiKey: MEILI_API_KEY });
    const { results } = await client.getRawIndexes({ limit: 1000 });
    for (const { uid } of results.filter((entry) => entry.uid.startsWith(index))) {
      await client.deleteIndex(uid).waitTask({ timeout: 30_000 });
    }
  });

  it('answers ping and counts 0 before the first reindex', async () => {
    await manual.ping();
    expect(await manual.count()).toBe(0);
    expect(await manual.search('二段階認証')).toEqual([]);
  });

  it(
    'finds the right chunk for Japanese keywords and error codes',
    async () => {
      await manual.replaceAll(CHUNKS);
      expect(await manual.count()).toBe(CHUNKS.length);

      const twoFactor = await manual.search('二段階認証');
      expect(twoFactor[0]?.id).toBe('xyz-guide.pdf#0');
      expect(twoFactor[0]?.content.startsWith('【セキュリティ > 二段階認証】\n')).toBe(true);
      expect(twoFactor[0]?.score).toBeGreaterThan(0);
      expect((await manual.search('認証'))[0]?.id).toBe('xyz-guide.pdf#0');
      expect((await manual.search('E-1001'))[0]?.id).toBe('xyz-guide.pdf#1');
      expect((await manual.search('銀行振込'))[0]?.id).toBe('xyz-guide.pdf#2');
      expect((await manual.search('バックアップ'))[0]).toMatchObject({ id: '操作ガイド.pdf#0', fileName: '操作ガイド.pdf' });
      expect((await manual.search('認証 請求 エラー', 2)).length).toBeLessThanOrEqual(2);
    },
    SLOW,
  );

  it(
    'gives the same index when reindexed twice, and answers from the old one meanwhile',
    async () => {
      const before = await manual.search('二段階認証');
      const during: string[] = [];
      await manual.replaceAll(CHUNKS, async ({ done }) => {
        if (done > 0) during.push(...(await manual.search('二段階認証')).map((hit) => hit.id));
      });
      expect(during[0]).toBe('xyz-guide.pdf#0');
      expect(await manual.count()).toBe(CHUNKS.length);
      expect((await manual.search('二段階認証')).map((hit) => hit.id)).toEqual(before.map((hit) => hit.id));

      const client = new Meilisearch({ host: MEILI_HOST ?? '', apiKey: MEILI_API_KEY });
      const { results } = await client.getRawIndexes({ limit: 1000 });
      // Build indexes are gone after each swap.
      expect(results.map((entry) => entry.uid).filter((uid) => uid.startsWith(index))).toEqual([index]);
      const settings = await client.index(index).getSettings();
      expect(settings.localizedAttributes).toEqual([{ attributePatterns: ['heading', 'content', 'fileName'], locales: ['jpn'] }]);
    },
    SLOW,
  );

  it.runIf(MEILI_API_KEY)('fails ping with a wrong key', async () => {
    const wrong = new MeilisearchManualSearch({ host: MEILI_HOST ?? '', apiKey: 'not-the-key-0123456789', index });
    await expect(wrong.ping()).rejects.toThrow(/refused with HTTP 40[13].*check MEILI_API_KEY/);
  });

  it(
    'finds a chunk when the first word of the query is in none',
    async () => {
      const hits = await manual.search('返金 銀行振込');
      expect(hits[0]?.id).toBe('xyz-guide.pdf#2');
    },
    SLOW,
  );

  it(
    'finds a term at the end of a sentence longer than ten words',
    async () => {
      const hits = await manual.search('先月から何度もログインしようとしているのですが、うまくいかないので、銀行振込について教えてください');
      expect(hits[0]?.id).toBe('xyz-guide.pdf#2');
    },
    SLOW,
  );

  it(
    'removes stale builds and leaves no failed index creation behind a reindex',
    async () => {
      const client = new Meilisearch({ host: MEILI_HOST ?? '', apiKey: MEILI_API_KEY });
      const stale = `${index}_build_${Date.now() - 2 * 60 * 60_000}`;
      await client.createIndex(stale).waitTask({ timeout: 30_000 });
      const before = await client.tasks.getTasks({ types: ['indexCreation'], statuses: ['failed'], indexUids: [index] });
      await manual.replaceAll(CHUNKS);
      const after = await client.tasks.getTasks({ types: ['indexCreation'], statuses: ['failed'], indexUids: [index] });
      expect(after.results.length).toBe(before.results.length);
      const { results } = await client.getRawIndexes({ limit: 1000 });
      expect(results.map((entry) => entry.uid).filter((uid) => uid.startsWith(index))).toEqual([index]);
    },
    SLOW,
  );
});

describe.runIf(QDRANT_URL)('QdrantQaSearch on a real Qdrant', () => {
  const alias = `${RUN}_qa`;
  let qa: QdrantQaSearch;
  beforeAll(() => {
    qa = new QdrantQaSearch({ url: QDRANT_URL ?? '', apiKey: QDRANT_API_KEY, collection: alias, embedder: new BigramEmbedder() });
  });
  const client = () => new QdrantClient({ url: QDRANT_URL ?? '', apiKey: QDRANT_API_KEY, checkCompatibility: false });

  afterAll(async () => {
    const qdrant = client();
    const { aliases } = await qdrant.getAliases();
    const { collections } = await qdrant.getCollections();
    if (aliases.some((entry) => entry.alias_name === alias)) {
      await qdrant.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: alias } }] });
    }
    for (const { name } of collections.filter((entry) => entry.name.startsWith(`${alias}_`))) await qdrant.deleteCollection(name);
  });

  it('answers ping and counts 0 before the first reindex', async () => {
    await qa.ping();
    expect(await qa.count()).toBe(0);
    expect(await qa.search('二段階認証')).toEqual([]);
  });

  it(
    'finds the right pair for Japanese questions and error codes',
    async () => {
      await qa.replaceAll(PAIRS);
      expect(await qa.count()).toBe(PAIRS.length);

      const twoFactor = await qa.search('二段階認証の設定方法を教えてください');
      expect(twoFactor[0]).toMatchObject({ id: 'qa.csv#2', fileName: 'qa.csv#2' });
      expect(twoFactor[0]?.content).toBe(`Q: ${PAIRS[1]!.question}\nA: ${PAIRS[1]!.answer}`);
      expect((await qa.search('認証アプリの登録'))[0]?.id).toBe('qa.csv#2');
      expect((await qa.search('E-1001 エラー'))[0]?.id).toBe('qa.csv#3');
      expect((await qa.search('パスワードを忘れた', 1)).map((hit) => hit.id)).toEqual(['qa.csv#1']);
    },
    SLOW,
  );

  it(
    'gives the same index when reindexed twice, and answers from the old one meanwhile',
    async () => {
      const before = (await qa.search('二段階認証')).map((hit) => hit.id);
      const during: string[] = [];
      await qa.replaceAll(PAIRS, async ({ stage, done }) => {
        if (stage === 'upload' && done > 0) during.push(...(await qa.search('二段階認証')).map((hit) => hit.id));
      });
      expect(during[0]).toBe('qa.csv#2');
      expect(await qa.count()).toBe(PAIRS.length);
      expect((await qa.search('二段階認証')).map((hit) => hit.id)).toEqual(before);

      // The previous collection was deleted; only the one behind the alias is left.
      const qdrant = client();
      const { collections } = await qdrant.getCollections();
      const { aliases } = await qdrant.getAliases();
      const target = aliases.find((entry) => entry.alias_name === alias)?.collection_name;
      expect(collections.map((entry) => entry.name).filter((name) => name.startsWith(`${alias}_`))).toEqual([target]);
    },
    SLOW,
  );

  it.runIf(QDRANT_API_KEY)('fails ping with a wrong key', async () => {
    const wrong = new QdrantQaSearch({ url: QDRANT_URL ?? '', apiKey: 'not-the-key', collection: alias, embedder: new BigramEmbedder() });
    await expect(wrong.ping()).rejects.toThrow(/refused with HTTP 40[13].*check QDRANT_API_KEY/);
  });

  it('takes a 404 from a wrong path for an error, not for an empty index', async () => {
    const wrongPath = new QdrantQaSearch({ url: `${(QDRANT_URL ?? '').replace(/\/+$/, '')}/no-such-prefix`, apiKey: QDRANT_API_KEY, collection: alias, embedder: new BigramEmbedder() });
    await expect(wrongPath.count()).rejects.toThrow(`count points in "${alias}"`);
  });

  it(
    'records the embedder in the collection and refuses another one',
    async () => {
      const { collections } = await client().getCollections();
      const { aliases } = await client().getAliases();
      const target = aliases.find((entry) => entry.alias_name === alias)!.collection_name;
      expect(collections.some((entry) => entry.name === target)).toBe(true);
      const info = await client().getCollection(alias);
      expect(info.config.metadata).toMatchObject({ embedder: 'test-bigram-256' });
      const other: Embedder = { id: 'other-256', embed: async (texts) => texts.map(() => new Float32Array(256).fill(1)) };
      const mismatched = new QdrantQaSearch({ url: QDRANT_URL ?? '', apiKey: QDRANT_API_KEY, collection: alias, embedder: other });
      await expect(mismatched.search('二段階認証')).rejects.toThrow('was built with embedder test-bigram-256');
    },
    SLOW,
  );

  it(
    'removes stale build collections on the next reindex',
    async () => {
      const stale = `${alias}_${Date.now() - 2 * 60 * 60_000}`;
      await client().createCollection(stale, { vectors: { size: 4, distance: 'Cosine' } });
      await qa.replaceAll(PAIRS);
      const { collections } = await client().getCollections();
      expect(collections.map((entry) => entry.name)).not.toContain(stale);
      expect(collections.filter((entry) => entry.name.startsWith(`${alias}_`))).toHaveLength(1);
    },
    SLOW,
  );
});
