import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddedQaSearch, fusionWeightsFor, QA_INDEX_FILE } from '../../src/search/embedded-qa.js';
import { CachedEmbedder, HashedNgramEmbedder } from '../../src/search/embeddings.js';
import { formatQaPair, type Embedder, type QaPair } from '../../src/search/types.js';
import { decodeContainer, encodeContainer } from '../../src/search/vector-store.js';

const pair = (row: number, question: string, answer: string, fileName = 'xyz-qa.csv'): QaPair => ({
  id: `${fileName}#${row}`,
  fileName,
  row,
  question,
  answer,
});

const PAIRS: QaPair[] = [
  pair(1, '二段階認証のコードが SMS で届きません', '迷惑 SMS フィルターを確認し、届かない場合は認証アプリ方式に切り替えてください。'),
  pair(2, 'パスワードを忘れました', 'ログイン画面の「パスワードをお忘れの方」から再設定メールを送信してください。'),
  pair(3, 'アカウントがロックされました', '5 回連続で間違えると 30 分ロックされます。管理者は「ロック解除」で即時に解除できます。'),
  pair(4, 'E-4010 が表示されます', 'API キーが無効です。「個人設定」→「API キー」で状態を確認し、必要なら再発行してください。'),
  pair(5, 'バックアップ失敗の通知が来ません', '通知レベル、連続失敗のしきい値、ジョブごとの「このジョブを監視する」を確認してください。'),
  pair(6, 'プッシュ通知を止めたい', '「個人設定」→「通知」で種類ごとにオフにできます。'),
  pair(7, '請求書はどこからダウンロードできますか', '「管理」→「契約」→「請求書」から PDF でダウンロードできます。'),
  pair(8, '機種変更したら認証アプリが使えません', 'バックアップコードでログインし、「認証方法をリセット」から新しい端末を登録してください。'),
];

/** Our own Embedder interface wrapped to count calls (not a library mock). */
class Counting implements Embedder {
  texts = 0;
  constructor(private readonly inner: Embedder) {}
  get id(): string {
    return this.inner.id;
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.texts += texts.length;
    return this.inner.embed(texts);
  }
}

let dir: string;
const embedder = new HashedNgramEmbedder({ dimensions: 512 });
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'qa-it-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Both rankings fused with equal weights, so these tests exercise the vector side as a semantic embedder would. */
const BOTH = { lexical: 1, vector: 1 };

async function built(pairs = PAIRS, e: Embedder = embedder, fusion = BOTH): Promise<EmbeddedQaSearch> {
  const s = new EmbeddedQaSearch({ dir: path.join(dir, 'qa'), embedder: e, fusion });
  await s.replaceAll(pairs);
  return s;
}

describe('EmbeddedQaSearch: queries', () => {
  it.each([
    ['two-character term inside a compound', '認証', [1, 8]],
    ['two-character term 通知', '通知', [5, 6]],
    ['natural sentence without spaces', 'パスワードがわからなくなってしまいました', [2]],
    ['natural sentence', 'バックアップが失敗しても通知メールが届かない', [5]],
    ['error code, other case', 'e-4010', [4]],
    ['error code, full width', 'Ｅ－４０１０', [4]],
  ])('%s: %s', async (_name, query, rows) => {
    const hits = await (await built()).search(query);
    expect(hits.length).toBeGreaterThan(0);
    expect(rows).toContain(Number(hits[0]!.fileName.split('#')[1]));
  });

  it('returns SearchHit with the pair id, file#row and the formatted pair', async () => {
    const [hit] = await (await built()).search('請求書をダウンロードしたい');
    expect(hit).toMatchObject({ id: 'xyz-qa.csv#7', fileName: 'xyz-qa.csv#7', content: formatQaPair(PAIRS[6]!) });
    expect(hit!.score).toBeGreaterThan(0);
  });

  it('defaults k to MAX_SEARCH_RESULTS; blank queries give nothing', async () => {
    const s = await built();
    expect(await s.search('設定')).toHaveLength(3);
    expect(await s.search('設定', 5)).toHaveLength(5);
    expect(await s.search(' ')).toEqual([]);
  });

  it('falls back to BM25 when the index was built by another embedder', async () => {
    await built();
    const other = new EmbeddedQaSearch({ dir: path.join(dir, 'qa'), embedder: new HashedNgramEmbedder({ dimensions: 64 }) });
    const [hit] = await other.search('E-4010');
    expect(hit!.id).toBe('xyz-qa.csv#4');
  });

  it('answers from BM25 alone when the embedder fails at query time', async () => {
    let fail = false;
    const flaky: Embedder = {
      id: embedder.id,
      embed: async (texts) => {
        if (fail) throw new Error('embeddings server unreachable');
        return embedder.embed(texts);
      },
    };
    const s = await built(PAIRS, flaky);
    fail = true;
    const [hit] = await s.search('E-4010');
    expect(hit!.id).toBe('xyz-qa.csv#4');
  });

  it('query embeddings do not grow the persistent cache; reindexing pays only for new pairs', async () => {
    const counting = new Counting(embedder);
    const cached = new CachedEmbedder({ inner: counting, dir: path.join(dir, 'cache') });
    const s = await built(PAIRS, cached);
    expect(counting.texts).toBe(PAIRS.length);
    const size = (await stat(cached.cacheFile)).size;
    await s.search('一度きりの問い合わせ文');
    expect((await stat(cached.cacheFile)).size).toBe(size);
    await s.replaceAll([...PAIRS, pair(9, '新しい質問', '新しい回答')]);
    expect(counting.texts).toBe(PAIRS.length + 1 + 1);
  });
});

describe('EmbeddedQaSearch: fusion weights', () => {
  it('defaults: BM25 alone with the local hashed embedder, vectors leading with a semantic model', () => {
    expect(fusionWeightsFor(embedder.id)).toEqual({ lexical: 1, vector: 0 });
    expect(fusionWeightsFor('openai:text-embedding-3-small:1536')).toEqual({ lexical: 0.25, vector: 1 });
  });

  it('a zero vector weight spends no query embedding and ranks by BM25 alone', async () => {
    const counting = new Counting(embedder);
    await built(PAIRS, counting);
    const before = counting.texts;
    const lexicalOnly = new EmbeddedQaSearch({ dir: path.join(dir, 'qa'), embedder: counting, fusion: { lexical: 1, vector: 0 } });
    const hits = await lexicalOnly.search('設定', 10);
    expect(counting.texts).toBe(before);
    expect(hits).toHaveLength(3);
  });

  it('a zero lexical weight ranks by the vectors alone', async () => {
    await built();
    const vectorOnly = new EmbeddedQaSearch({ dir: path.join(dir, 'qa'), embedder, fusion: { lexical: 0, vector: 1 } });
    expect(await vectorOnly.search('設定', 5)).toHaveLength(5);
  });
});

describe('EmbeddedQaSearch: storage', () => {
  it('without an index: count 0, ping fine, searches empty', async () => {
    const s = new EmbeddedQaSearch({ dir, embedder });
    expect(await s.count()).toBe(0);
    await s.ping();
    expect(await s.search('認証')).toEqual([]);
  });

  it('ping throws when the index file is unreadable', async () => {
    await writeFile(path.join(dir, QA_INDEX_FILE), Buffer.alloc(64, 7));
    await expect(new EmbeddedQaSearch({ dir, embedder }).ping()).rejects.toThrow();
  });

  it('writes format version 2 (Float32 rows, BM25, int8 rows, row scales); a version 1 file still loads and ranks the same', async () => {
    const s = await built();
    const file = path.join(dir, 'qa', QA_INDEX_FILE);
    const { meta, sections } = decodeContainer<{ version: number; dims: number }>(await readFile(file));
    expect(meta.version).toBe(2);
    expect(sections.map((x) => x.byteLength)).toEqual([PAIRS.length * 512 * 4, sections[1]!.byteLength, PAIRS.length * 512, PAIRS.length * 4]);
    const queries = ['認証', 'パスワードがわからなくなってしまいました', 'e-4010', '請求書をダウンロードしたい'];
    const v2 = await Promise.all(queries.map((q) => s.search(q, 5)));

    const v1Dir = path.join(dir, 'v1');
    await mkdir(v1Dir);
    await writeFile(path.join(v1Dir, QA_INDEX_FILE), encodeContainer({ ...meta, version: 1 }, sections.slice(0, 2)));
    const old = new EmbeddedQaSearch({ dir: v1Dir, embedder, fusion: BOTH });
    await old.ping();
    expect(await old.count()).toBe(PAIRS.length);
    expect(await Promise.all(queries.map((q) => old.search(q, 5)))).toEqual(v2);
  });

  it('ping names a format version this build cannot read and asks for a reindex', async () => {
    await built();
    const file = path.join(dir, 'qa', QA_INDEX_FILE);
    const { meta, sections } = decodeContainer<{ version: number }>(await readFile(file));
    await writeFile(file, encodeContainer({ ...meta, version: 3 }, sections));
    await expect(new EmbeddedQaSearch({ dir: path.join(dir, 'qa'), embedder }).ping()).rejects.toThrow(/version 3 .*reindex/);
  });

  it('replaceAll twice with the same input writes byte-identical files', async () => {
    const s = await built();
    const file = path.join(dir, 'qa', QA_INDEX_FILE);
    const first = await readFile(file);
    await s.replaceAll(PAIRS);
    expect((await readFile(file)).equals(first)).toBe(true);
    expect(await readdir(path.join(dir, 'qa'))).toEqual([QA_INDEX_FILE]);
    expect(await s.count()).toBe(PAIRS.length);
  });

  it('reports embedding progress', async () => {
    const stages: string[] = [];
    await new EmbeddedQaSearch({ dir, embedder }).replaceAll(bigSet(600, 'p.csv'), ({ stage, done, total }) => void stages.push(`${stage}:${done}/${total}`));
    expect(stages).toContain('embed:600/600');
    expect(stages.filter((s) => s.startsWith('embed')).length).toBeGreaterThan(1);
  });
});

function bigSet(n: number, fileName: string): QaPair[] {
  return Array.from({ length: n }, (_, i) =>
    pair(i + 1, `二段階認証のコードについての質問 ${i}`, `確認コードは SMS または認証アプリで受け取ります。ケース ${i} の回答です。`, fileName),
  );
}

describe('EmbeddedQaSearch: atomic reindex', () => {
  it('searches during a large rebuild answer from the old or the new index, never empty or failing', async () => {
    const writer = await built();
    const reader = new EmbeddedQaSearch({ dir: path.join(dir, 'qa'), embedder });
    const rebuild = writer.replaceAll(bigSet(3000, 'new.csv'));
    let done = false;
    void rebuild.finally(() => (done = true));
    let old = 0;
    while (!done) {
      for (const s of [writer, reader]) {
        const hits = await s.search('二段階認証のコード');
        expect(hits.length).toBeGreaterThan(0);
        const files = new Set(hits.map((h) => h.fileName.split('#')[0]));
        expect(files.size).toBe(1);
        if (files.has('xyz-qa.csv')) old++;
        else expect(files.has('new.csv')).toBe(true);
      }
    }
    await rebuild;
    expect(old).toBeGreaterThan(0);
    for (const s of [writer, reader, new EmbeddedQaSearch({ dir: path.join(dir, 'qa'), embedder })]) {
      expect((await s.search('二段階認証のコード'))[0]!.fileName).toMatch(/^new\.csv#/);
      expect(await s.count()).toBe(3000);
    }
  });
});
