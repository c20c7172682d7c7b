/**
 * How QDRANT_URL becomes the client's connection: the port follows the scheme when the URL names none (the client's
 * own `url` option would pick 6333), and a path is kept as the prefix (the client's would drop it).
 */
import { describe, expect, it } from 'vitest';
import { qdrantConnection } from '../../src/search/qdrant-qa.js';

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
