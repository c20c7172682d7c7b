/** The two search tools: names, schemas as the model sees them, and what they return. */
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { describe, expect, it } from 'vitest';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { MANUAL_TOOL_NAME, MAX_HIT_CHARS, MAX_QUERY_CHARS, QA_TOOL_NAME, createSearchTools, directSearchOf } from '../../src/agent/tools.js';
import { MAX_SEARCH_RESULTS, type ManualSearch, type QaSearch, type SearchHit } from '../../src/search/types.js';

const hits = (n: number, prefix: string): SearchHit[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}#${i}`, fileName: `${prefix}.md`, heading: '見出し', content: `内容${i}`, score: n - i }));

function fakes(n = 5) {
  const calls: { kind: string; text: string; k: number | undefined }[] = [];
  const manual: ManualSearch = {
    kind: 'fake',
    search: async (text, k) => (calls.push({ kind: 'manual', text, k }), hits(n, 'manual')),
    replaceAll: async () => {},
    count: async () => n,
    ping: async () => {},
  };
  const qa: QaSearch = {
    kind: 'fake',
    search: async (text, k) => (calls.push({ kind: 'qa', text, k }), hits(n, 'qa')),
    replaceAll: async () => {},
    count: async () => n,
    ping: async () => {},
  };
  return { manual, qa, calls };
}

describe('search tools', () => {
  it('keeps the design’s names whatever the product is called, and describes their use', () => {
    const [manual, qa] = createSearchTools(fakes(), 'Acme');
    expect(manual!.name).toBe(MANUAL_TOOL_NAME);
    expect(manual!.name).toBe('search_xyz_manual');
    expect(qa!.name).toBe(QA_TOOL_NAME);
    expect(qa!.name).toBe('search_xyz_qa');
    expect(manual!.description).toContain('Acme');
    expect(manual!.description).toMatch(/エラーコード/);
    expect(manual!.description).toMatch(/固有名詞/);
    expect(qa!.description).toMatch(/過去/);
  });

  it('offers the model the schemas {keywords} and {query}', () => {
    const [manual, qa] = createSearchTools(fakes()).map((t) => convertToOpenAITool(t));
    expect(manual!.function.parameters).toMatchObject({ type: 'object', properties: { keywords: { type: 'string' } }, required: ['keywords'] });
    expect(qa!.function.parameters).toMatchObject({ type: 'object', properties: { query: { type: 'string' } }, required: ['query'] });
  });

  it('returns at most MAX_SEARCH_RESULTS {fileName, content} and passes the text through', async () => {
    const search = fakes(5);
    const [manual, qa] = createSearchTools(search);
    const m = (await manual!.invoke({ keywords: '二段階認証 設定' })) as unknown[];
    const q = (await qa!.invoke({ query: 'ログインできない' })) as unknown[];
    expect(m).toHaveLength(MAX_SEARCH_RESULTS);
    expect(m[0]).toEqual({ fileName: 'manual.md', content: '内容0' });
    expect(q).toHaveLength(MAX_SEARCH_RESULTS);
    expect(q[2]).toEqual({ fileName: 'qa.md', content: '内容2' });
    expect(search.calls).toEqual([
      { kind: 'manual', text: '二段階認証 設定', k: MAX_SEARCH_RESULTS },
      { kind: 'qa', text: 'ログインできない', k: MAX_SEARCH_RESULTS },
    ]);
  });

  it('cuts a hit longer than MAX_HIT_CHARS (a Q&A export with a whole document in one cell) and says so', async () => {
    const huge: SearchHit = { id: 'qa.csv#1', fileName: 'qa.csv#1', content: `先頭。${'あ'.repeat(200_000)}😀末尾`, score: 1 };
    const search = fakes(1);
    search.qa.search = async () => [huge, ...hits(1, 'qa')];
    const [, qa] = createSearchTools(search);
    const [cut, whole] = (await qa!.invoke({ query: '長い' })) as { content: string }[];
    expect(Array.from(cut!.content.split('\n')[0]!)).toHaveLength(MAX_HIT_CHARS);
    expect(cut!.content.startsWith('先頭。')).toBe(true);
    expect(cut!.content).toMatch(/\n\[… 196,\d{3} more characters not shown\]$/);
    expect(whole).toEqual({ fileName: 'qa.md', content: '内容0' });
  });

  it.each([
    ['a pasted log', `CSVの取り込みでエラーになります\n${'ERROR 0x80070005 at Import.run()\n'.repeat(2_000)}`],
    ['a base64 blob', `添付が開けません ${'QUJD'.repeat(50_000)}`],
    ['astral characters', `${'𠮷'.repeat(3_000)}`],
  ])('searches with at most MAX_QUERY_CHARS characters of %s', async (_, text) => {
    const { manual, qa, calls } = fakes();
    const [manualTool, qaTool] = createSearchTools({ manual, qa });
    await directSearchOf(manualTool!)!.run({ keywords: text });
    await directSearchOf(qaTool!)!.run({ query: text });
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(Array.from(call.text).length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
      expect(call.text.slice(0, 6)).toBe(text.slice(0, 6));
    }
  });

  it('returns an empty list when nothing matches', async () => {
    const [manual] = createSearchTools(fakes(0));
    expect(await manual!.invoke({ keywords: 'なし' })).toEqual([]);
  });

  it('has a direct form that validates like invoke and returns the same', async () => {
    const search = fakes(5);
    const [manual, qa] = createSearchTools(search);
    const direct = directSearchOf(manual!)!;
    // Unknown keys are dropped, as the tool's schema does.
    expect(await direct.run({ keywords: '二段階認証', extra: 1 })).toEqual(await manual!.invoke({ keywords: '二段階認証' }));
    expect(direct.run({ wrong: 1 })).toBeUndefined();
    expect(direct.run({ keywords: 42 })).toBeUndefined();
    expect(directSearchOf(qa!)!.run({ keywords: 'x' })).toBeUndefined();
    expect(await directSearchOf(qa!)!.run({ query: 'ログインできない' })).toHaveLength(MAX_SEARCH_RESULTS);
  });

  it('has no direct form for a tool built elsewhere', () => {
    const other = tool(async () => [], { name: 'other', description: 'd', schema: z.object({ q: z.string() }) });
    expect(directSearchOf(other)).toBeUndefined();
  });
});
