import { APIConnectionError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { describeError, plural } from '../../src/cli/common.js';
import { batchQueries, formatHits, formatReindexSummary, terminalSafe, toJsonHit, type ReindexSummary } from '../../src/cli/format.js';
import { KnowledgeError } from '../../src/knowledge/errors.js';

describe('formatReindexSummary', () => {
  it.each([
    {
      summary: { manual: { files: 1, chunks: 142, seconds: 1 }, qa: { files: 1, pairs: 48, skipped: 0, seconds: 1 }, seconds: 2.34 },
      line: 'reindexed: 1 manual file, 142 chunks, 48 Q&A pairs in 2.3 s',
    },
    { summary: { manual: { files: 2, chunks: 1, seconds: 0.1 }, seconds: 0.06 }, line: 'reindexed: 2 manual files, 1 chunk in 0.1 s' },
    {
      summary: { qa: { files: 3, pairs: 1, skipped: 2, seconds: 5 }, seconds: 5 },
      line: 'reindexed: 1 Q&A pair, 2 rows skipped in 5.0 s',
    },
    {
      summary: { manual: { files: 2, chunks: 4, folders: { '.': 2 }, emptyFolders: [], seconds: 1 }, seconds: 1 },
      line: 'reindexed: 2 manual files, 4 chunks in 1.0 s',
    },
    {
      summary: {
        manual: { files: 3, chunks: 9, folders: { '.': 1, guide: 2 }, emptyFolders: ['drafts'], seconds: 1 },
        seconds: 1,
      },
      line: 'reindexed: 3 manual files, 9 chunks in 1.0 s\n  manual files per folder: (top) 1, guide/ 2\n  warning: no readable manual file in drafts/',
    },
    {
      summary: { manual: { files: 0, chunks: 0, folders: {}, emptyFolders: ['.'], seconds: 1 }, seconds: 1 },
      line: 'reindexed: 0 manual files, 0 chunks in 1.0 s\n  warning: no readable manual file in the manual directory',
    },
  ])('$line', ({ summary, line }) => {
    expect(formatReindexSummary(summary as ReindexSummary)).toBe(line);
  });

  it('plural', () => {
    expect([plural(0, 'chunk'), plural(1, 'chunk'), plural(2, 'chunk')]).toEqual(['0 chunks', '1 chunk', '2 chunks']);
  });
});

describe('search output', () => {
  const hit = { id: 'm.md#3', fileName: 'm.md', heading: '章 > 節', content: '一行目\n二行目', score: 1.23456 };

  it('JSON hits carry exactly fileName, content and score', () => {
    expect(JSON.stringify(toJsonHit(hit))).toBe('{"fileName":"m.md","content":"一行目\\n二行目","score":1.23456}');
  });

  it('readable hits', () => {
    expect(formatHits([hit])).toBe('1. m.md#3  (score 1.235)\n   [章 > 節]\n   一行目\n   二行目');
    expect(formatHits([{ ...hit, content: '【章 > 節】\n本文' }])).toBe('1. m.md#3  (score 1.235)\n   【章 > 節】\n   本文');
    expect(formatHits([])).toBe('(no results)');
    // Fused Q&A scores are small: they must still tell the hits apart.
    expect(formatHits([{ ...hit, score: 0.016393 }, { ...hit, score: 0.016129 }]).match(/score [\d.]+/g)).toEqual(['score 0.01639', 'score 0.01613']);
  });

  it.each([
    { text: 'a\nb\n', queries: ['a', 'b'] },
    { text: 'a\r\n\r\nb', queries: ['a', '', 'b'] },
    { text: '', queries: [] },
    { text: '\n', queries: [''] },
  ])('batch queries of $text', ({ text, queries }) => {
    expect(batchQueries(text)).toEqual(queries);
  });
});

describe('describeError', () => {
  const config = { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' };

  it('names the LLM server on connection errors, also when wrapped', () => {
    const connection = new APIConnectionError({ message: 'Connection error.', cause: new Error('connect ECONNREFUSED 127.0.0.1:11434') });
    expect(describeError(connection, config)).toBe(
      'cannot reach the LLM server at http://127.0.0.1:11434/v1: Connection error. (connect ECONNREFUSED 127.0.0.1:11434); check OPENAI_BASE_URL / that the server is running',
    );
    expect(describeError(new Error('graph failed', { cause: connection }), config)).toMatch(/^cannot reach the LLM server at http:\/\/127\.0\.0\.1:11434\/v1: /);
    expect(describeError(connection, { OPENAI_BASE_URL: undefined })).toMatch(/^cannot reach the LLM server at https:\/\/api\.openai\.com\/v1: /);
    // OpenAI unreachable: what else works is named.
    expect(describeError(connection, { OPENAI_BASE_URL: undefined })).toMatch(/set OPENAI_BASE_URL to a server you run \(Ollama, vLLM\), or EMBEDDINGS_PROVIDER=local/);
  });

  it('names the LLM server on HTTP errors', () => {
    const error = APIError.generate(404, { error: { message: 'model "x" not found' } }, undefined, new Headers());
    expect(describeError(error, config)).toBe('the LLM server at http://127.0.0.1:11434/v1 answered 404: 404 model "x" not found');
    // The server's own words about the key do not name the variable to fix.
    const refused = APIError.generate(401, { error: { message: 'Incorrect API key provided' } }, undefined, new Headers());
    expect(describeError(refused, config)).toBe('the LLM server at http://127.0.0.1:11434/v1 answered 401: 401 Incorrect API key provided — check OPENAI_API_KEY');
  });

  it('keeps our own messages and the first line of others', () => {
    expect(describeError(new KnowledgeError('/x/qa.csv:3: malformed CSV: Quote Not Closed', '/x/qa.csv', 3))).toBe(
      '/x/qa.csv:3: malformed CSV: Quote Not Closed',
    );
    expect(describeError(new Error('first\nsecond'))).toBe('first');
    expect(describeError('plain')).toBe('plain');
  });
});

describe('terminalSafe', () => {
  it.each([
    ['OSC title', 'a\u001b]0;pwned\u0007b', 'a]0;pwnedb'],
    ['clear screen', '\u001b[2Jtext', '[2Jtext'],
    ['C1 CSI', 'x\u009b31my', 'x31my'],
    ['DEL and NUL', 'a\u007fb\u0000c', 'abc'],
    ['keeps newline, tab and Japanese', '件名\t本文\n二行目', '件名\t本文\n二行目'],
    ['carriage return (overwrites a line)', 'safe\rEVIL', 'safeEVIL'],
    // A terminal that lays out bidirectional text would show `Support Team security@xyz-legal.com <m@evil.example>`
    // reversed after an unclosed right-to-left override.
    ['right-to-left override and pop', 'Support Team \u202emoc.lagel-zyx@ytiruces\u202c <m@evil.example>', 'Support Team moc.lagel-zyx@ytiruces <m@evil.example>'],
    ['isolates and marks', 'a\u2066b\u2069c\u200ed\u200fe\u061cf', 'abcdef'],
  ])('%s', (_name, input, expected) => {
    expect(terminalSafe(input)).toBe(expected);
  });
});
