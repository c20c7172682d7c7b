import { once } from 'node:events';
import { appendFile, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { CachedEmbedder, createEmbedder, HashedNgramEmbedder, OpenAIEmbedder } from '../../src/search/embeddings.js';
import type { Embedder } from '../../src/search/types.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/** Our own Embedder interface, implemented in-process to count what reaches the inner embedder. */
class CountingEmbedder implements Embedder {
  readonly id: string;
  readonly calls: string[][] = [];
  constructor(id = 'counting:4') {
    this.id = id;
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls.push(texts);
    return texts.map((t) => Float32Array.from([t.length, t.charCodeAt(0) || 0, 1, this.calls.length]));
  }
  get embedded(): number {
    return this.calls.reduce((n, c) => n + c.length, 0);
  }
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'emb-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('HashedNgramEmbedder', () => {
  const e = new HashedNgramEmbedder({ dimensions: 256 });

  it('names its vector space and dimensions', () => {
    expect(e.id).toBe('hashed-ngram:256');
    expect(() => new HashedNgramEmbedder({ dimensions: 0 })).toThrow();
  });

  it('is deterministic and L2-normalised', async () => {
    const [a, b] = await e.embed(['二段階認証の設定', '二段階認証の設定']);
    expect(a).toHaveLength(256);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    expect(dot(a!, a!)).toBeCloseTo(1, 5);
    const [empty] = await e.embed(['']);
    expect(dot(empty!, empty!)).toBe(0);
  });

  it('puts texts sharing wording closer than unrelated texts', async () => {
    const [q, near, far] = await e.embed(['二段階認証のコードが届かない', '二段階認証の確認コードが届きません', '請求書を PDF でダウンロードする']);
    expect(dot(q!, near!)).toBeGreaterThan(dot(q!, far!) + 0.2);
  });

  it('sees width and case variants as the same text', async () => {
    const [a, b] = await e.embed(['E-1001 エラー', 'Ｅ－１００１ エラー']);
    expect(dot(a!, b!)).toBeCloseTo(1, 5);
  });
});

describe('CachedEmbedder', () => {
  it('sends only misses to the inner embedder, deduplicated, and keeps input order', async () => {
    const inner = new CountingEmbedder();
    const cached = new CachedEmbedder({ inner, dir });
    const first = await cached.embed(['a', 'bb', 'a', 'ccc']);
    expect(inner.calls).toEqual([['a', 'bb', 'ccc']]);
    expect(first.map((v) => v[0])).toEqual([1, 2, 1, 3]);
    const second = await cached.embed(['ccc', 'dddd', 'a']);
    expect(inner.calls[1]).toEqual(['dddd']);
    expect(second.map((v) => v[0])).toEqual([3, 4, 1]);
    expect(cached.stats()).toMatchObject({ hits: 3, misses: 4, entries: 4 });
    expect(cached.id).toBe(inner.id);
  });

  it('persists across instances so a reindex does not pay again', async () => {
    const inner = new CountingEmbedder();
    await new CachedEmbedder({ inner, dir }).embed(['x', 'y']);
    const again = new CountingEmbedder();
    const vectors = await new CachedEmbedder({ inner: again, dir }).embed(['y', 'x', 'z']);
    expect(again.calls).toEqual([['z']]);
    // Vectors come back exactly as stored (the inner's 4th component recorded the call number 1).
    expect(Array.from(vectors[0]!)).toEqual([1, 'y'.charCodeAt(0), 1, 1]);
  });

  it('keys by embedder id: another model never gets these vectors', async () => {
    await new CachedEmbedder({ inner: new CountingEmbedder('model-a'), dir }).embed(['x']);
    const other = new CountingEmbedder('model-b');
    await new CachedEmbedder({ inner: other, dir }).embed(['x']);
    expect(other.embedded).toBe(1);
    expect(await readdir(dir)).toHaveLength(2);
  });

  it('skips a torn tail record and keeps the rest', async () => {
    const cached = new CachedEmbedder({ inner: new CountingEmbedder(), dir });
    await cached.embed(['one', 'two']);
    await appendFile(cached.cacheFile, Buffer.from([0x45, 0x4d, 0x42, 0x31, 4, 0, 0, 0, 1, 2]));
    const inner = new CountingEmbedder();
    const reloaded = new CachedEmbedder({ inner, dir });
    await reloaded.embed(['one', 'two', 'three']);
    expect(inner.calls).toEqual([['three']]);
    // Records appended after the garbage are found again by the next instance.
    const third = new CountingEmbedder();
    await new CachedEmbedder({ inner: third, dir }).embed(['one', 'three']);
    expect(third.embedded).toBe(0);
  });

  it('embedTransient serves cached vectors but does not persist query misses', async () => {
    const inner = new CountingEmbedder();
    const cached = new CachedEmbedder({ inner, dir });
    await cached.embed(['pair text']);
    const size = (await stat(cached.cacheFile)).size;
    await cached.embedTransient(['pair text', 'a one-off query']);
    await cached.embedTransient(['a one-off query']);
    expect(inner.calls).toEqual([['pair text'], ['a one-off query']]);
    expect((await stat(cached.cacheFile)).size).toBe(size);
  });

  it('loads a large cache quickly', async () => {
    const big = new HashedNgramEmbedder({ dimensions: 1536 });
    const texts = Array.from({ length: 3000 }, (_, i) => `質問 ${i} の回答テキスト`);
    await new CachedEmbedder({ inner: big, dir }).embed(texts);
    const counting = new CountingEmbedder(big.id);
    const started = performance.now();
    await new CachedEmbedder({ inner: counting, dir }).embed(texts.slice(0, 10));
    const ms = performance.now() - started;
    expect(counting.embedded).toBe(0);
    // 3,000 × 1,536 floats is 18 MB; one read and a linear scan.
    expect(ms).toBeLessThan(2000);
  });
});

describe('OpenAIEmbedder against a real HTTP server', () => {
  let server: Server;
  let baseURL: string;
  const requests: { model: string; input: string[]; encoding_format?: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
          res.writeHead(404).end();
          return;
        }
        const parsed = JSON.parse(body) as { model: string; input: string[]; encoding_format?: string };
        requests.push(parsed);
        // Answer out of order: the client must sort by index.
        const data = parsed.input
          .map((text, index) => ({ object: 'embedding', index, embedding: [text.length, index, 0.5] }))
          .reverse();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data, model: parsed.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });
  beforeEach(() => {
    requests.length = 0;
  });

  it('batches by batchSize, keeps input order, and names its space after the model', async () => {
    const client = new OpenAI({ apiKey: 'test', baseURL, maxRetries: 0 });
    const e = new OpenAIEmbedder({ client, model: 'test-embed', batchSize: 3 });
    expect(e.id).toBe('openai:test-embed');
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee', 'ffffff', 'g'];
    const vectors = await e.embed(texts);
    expect(requests.map((r) => r.input.length)).toEqual([3, 3, 1]);
    expect(requests.flatMap((r) => r.input)).toEqual(texts);
    expect(requests.every((r) => r.model === 'test-embed' && r.encoding_format === 'float')).toBe(true);
    expect(vectors.map((v) => v[0])).toEqual(texts.map((t) => t.length));
    expect(vectors.every((v) => v instanceof Float32Array)).toBe(true);
  });

  it('sends a blank text as a single space instead of failing the batch', async () => {
    const client = new OpenAI({ apiKey: 'test', baseURL, maxRetries: 0 });
    await new OpenAIEmbedder({ client, model: 'm', batchSize: 10 }).embed(['', 'x']);
    expect(requests[0]!.input).toEqual([' ', 'x']);
  });

  it('createEmbedder wires config to the server, behind the cache', async () => {
    const config = parseConfig({ DATA_DIR: dir, OPENAI_BASE_URL: baseURL, EMBEDDING_MODEL: 'cfg-model', EMBEDDING_BATCH_SIZE: '2', LLM_MAX_RETRIES: '0' });
    const e = createEmbedder(config);
    expect(e).toBeInstanceOf(CachedEmbedder);
    expect(e.id).toBe('openai:cfg-model');
    await e.embed(['1', '22', '333']);
    await e.embed(['22', '4444']);
    expect(requests.map((r) => r.input)).toEqual([['1', '22'], ['333'], ['4444']]);
    expect((await readdir(path.join(dir, 'embedding-cache'))).length).toBe(1);
  });
});

describe('createEmbedder', () => {
  it('EMBEDDINGS_PROVIDER=local gives the hashed embedder behind the cache, with no network', async () => {
    const e = createEmbedder(parseConfig({ DATA_DIR: dir, EMBEDDINGS_PROVIDER: 'local', EMBEDDING_DIMENSIONS: '64' }));
    expect(e.id).toBe('hashed-ngram:64');
    expect((e as CachedEmbedder).inner).toBeInstanceOf(HashedNgramEmbedder);
    const [v] = await e.embed(['テスト']);
    expect(v).toHaveLength(64);
    const files = await readdir(path.join(dir, 'embedding-cache'));
    expect((await readFile(path.join(dir, 'embedding-cache', files[0]!))).length).toBeGreaterThan(64 * 4);
  });
});
