/**
 * How QDRANT_URL becomes the client's connection: the port follows the scheme when the URL names none (the client's
 * own `url` option would pick 6333), and a path is kept as the prefix (the client's would drop it); and an error page
 * from a proxy in front of Qdrant, read in time whatever it holds.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { QdrantQaSearch, qdrantConnection } from '../../src/search/qdrant-qa.js';

describe('qdrantConnection', () => {
  it.each([
    ['http://localhost:6333', { host: 'localhost', port: 6333, https: false, prefix: '' }],
    ['https://qdrant.example.com', { host: 'qdrant.example.com', port: 443, https: true, prefix: '' }],
    ['http://qdrant.internal', { host: 'qdrant.internal', port: 80, https: false, prefix: '' }],
    ['https://proxy.example.com/qdrant', { host: 'proxy.example.com', port: 443, https: true, prefix: '/qdrant' }],
    ['https://proxy.example.com:8443/tools/qdrant/', { host: 'proxy.example.com', port: 8443, https: true, prefix: '/tools/qdrant' }],
    ['http://[::1]:6333/', { host: '[::1]', port: 6333, https: false, prefix: '' }],
  ])('%s', (url, expected) => {
    expect(qdrantConnection(url)).toEqual(expected);
  });

  it('refuses what is not an http(s) URL', () => {
    expect(() => qdrantConnection('qdrant:6333')).toThrow('QDRANT_URL "qdrant:6333" must start with http:// or https://');
    expect(() => qdrantConnection('localhost')).toThrow('QDRANT_URL "localhost" is not a URL');
  });
});

// Not a speed target (security review 15): the markup pattern of an error body's log snippet read the rest of the
// body again from every `<` without a `>` after it (a proxy's 100,000-character page of `<`: seconds, growing with the
// square). The bound is far from both a linear read and the blow-up, so a busy machine does not fail it.
describe('QdrantQaSearch: a proxy error page of unclosed markup', () => {
  it('describes it in time', { timeout: 60_000 }, async () => {
    let page = '<p>warming up</p>';
    const proxy = createServer((_request, response) => response.writeHead(502, { 'content-type': 'text/html' }).end(page));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const qa = new QdrantQaSearch({ url, collection: 'qa', embedder: { id: 'unused', embed: async () => [] } });
      // The first request sets up the client and its connection: only the page is timed.
      await expect(qa.count()).rejects.toThrow('warming up');
      page = `<html><body><h1>502 Bad Gateway</h1>${'<'.repeat(100_000)}`;
      const started = performance.now();
      const error: unknown = await qa.count().catch((failure: unknown) => failure);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(String((error as Error).message)).toContain("got HTTP 502 with a response that is not Qdrant's (text/html): 502 Bad Gateway");
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
