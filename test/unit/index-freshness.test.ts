import { describe, expect, it } from 'vitest';
import { manualContentHash, qaContentHash, shortHash, type IndexBuild } from '../../src/search/index-builds.js';
import { blocksTickets, describeIndexProblem, describeIndexProblems, failsReadiness, judgeIndex, type IndexVerdict } from '../../src/search/index-freshness.js';
import type { ManualChunk, QaPair } from '../../src/search/types.js';

const chunk = (n: number, content = `本文 ${n}`): ManualChunk => ({ id: `guide.md#${n}`, fileName: 'guide.md', heading: `見出し ${n}`, content });
const pair = (id: string, question: string, answer = '回答'): QaPair => ({ id, fileName: id.split('#')[0]!, row: Number(id.split('#')[1]), question, answer });

describe('content hashes of a build', () => {
  it('depend on what was indexed, not on the order the files were read in', () => {
    const chunks = [chunk(1), chunk(2), chunk(3)];
    expect(manualContentHash(chunks)).toMatch(/^[0-9a-f]{64}$/);
    expect(manualContentHash([...chunks].reverse())).toBe(manualContentHash(chunks));
    expect(manualContentHash([chunk(1), chunk(2), chunk(3, '本文 3 改訂')])).not.toBe(manualContentHash(chunks));
    expect(manualContentHash([chunk(1), chunk(2)])).not.toBe(manualContentHash(chunks));
    // Fields are kept apart: moving text from the heading into the content is a different index.
    expect(manualContentHash([{ ...chunk(1), heading: 'a', content: 'bc' }])).not.toBe(manualContentHash([{ ...chunk(1), heading: 'ab', content: 'c' }]));
  });

  it('leave the learned pairs out (they reach every machine through Redis, not through a build)', () => {
    const csv = [pair('qa.csv#1', '請求書の宛名を変更したい'), pair('qa.csv#2', '領収書がほしい')];
    const learned = { ...pair('learned#7', '返品の方法', '30日以内'), fileName: 'learned', ticketId: 'a'.repeat(64) };
    expect(qaContentHash([...csv, learned])).toBe(qaContentHash(csv));
    expect(qaContentHash([csv[0]!])).not.toBe(qaContentHash(csv));
    expect(qaContentHash([csv[0]!, { ...csv[1]!, answer: '別の回答' }])).not.toBe(qaContentHash(csv));
    // The manual and the Q&A never share a hash for the same text.
    expect(qaContentHash([])).not.toBe(manualContentHash([]));
  });

  it('are shown short', () => {
    expect(shortHash('0123456789abcdef'.repeat(4))).toBe('0123456789ab');
    expect(shortHash(undefined)).toBe('of unknown content');
  });
});

const BUILD: IndexBuild = { hash: 'b'.repeat(64), at: Date.parse('2026-11-26T10:00:00Z'), host: 'hostA', pid: 41, backend: 'embedded' };

describe('judgeIndex', () => {
  it.each<[string, Parameters<typeof judgeIndex>, IndexVerdict['state'], boolean, boolean]>([
    ['a server backend is shared by every machine', ['meilisearch', undefined, BUILD], 'shared', false, false],
    ['no build recorded yet: as before', ['embedded', { present: true, hash: 'c'.repeat(64) }, undefined], 'unrecorded', false, false],
    ['no build recorded, a file from before build hashes', ['embedded', { present: true, hash: undefined }, undefined], 'unrecorded', false, false],
    ['the last build', ['embedded', { present: true, hash: BUILD.hash }, BUILD], 'current', false, false],
    ['another build', ['embedded', { present: true, hash: 'c'.repeat(64) }, BUILD], 'stale', true, true],
    ['a file from before build hashes, after a recorded build', ['embedded', { present: true, hash: undefined }, BUILD], 'stale', true, true],
    ['no index, a build recorded elsewhere', ['embedded', { present: false }, BUILD], 'missing', true, true],
    ['no index, no build anywhere yet (a fresh install): answers as before, readiness fails', ['embedded', { present: false }, undefined], 'missing', false, true],
  ])('%s', (_what, args, state, blocks, fails) => {
    const verdict = judgeIndex(...args);
    expect(verdict.state).toBe(state);
    expect(blocksTickets(verdict)).toBe(blocks);
    expect(failsReadiness(verdict)).toBe(fails);
  });

  it('keeps what it compared, for the report', () => {
    expect(judgeIndex('embedded', { present: true, hash: 'c'.repeat(64) }, BUILD)).toEqual({ state: 'stale', backend: 'embedded', hash: 'c'.repeat(64), lastBuild: BUILD });
    expect(judgeIndex('embedded', { present: false, error: 'not a helpdesk index file' }, undefined)).toEqual({ state: 'missing', backend: 'embedded', error: 'not a helpdesk index file' });
  });
});

describe('describeIndexProblem', () => {
  const when = () => '2 min ago';
  it('says who takes no tickets, why, and what to do', () => {
    expect(describeIndexProblem('manual', judgeIndex('embedded', { present: true, hash: 'c'.repeat(64) }, BUILD), { who: 'agent worker hostB#7', when, where: 'that machine' })).toBe(
      'agent worker hostB#7 takes no tickets: its manual index cccccccccccc is not the last build bbbbbbbbbbbb (hostA#41, 2 min ago); copy the knowledge folders and run `npm run reindex` on that machine, or use Meilisearch and Qdrant',
    );
    expect(describeIndexProblem('qa', judgeIndex('embedded', { present: false }, BUILD), { who: 'this agent worker', when, where: 'this machine' })).toBe(
      'this agent worker takes no tickets: it has no Q&A index (the last build is bbbbbbbbbbbb, hostA#41, 2 min ago); copy the knowledge folders and run `npm run reindex` on this machine, or use Meilisearch and Qdrant',
    );
    expect(describeIndexProblem('manual', judgeIndex('embedded', { present: false, error: 'truncated index file' }, undefined), { who: 'agent worker hostC#9', when, where: 'that machine' })).toBe(
      'agent worker hostC#9 has no manual index (truncated index file), and no build is recorded yet: its searches find nothing until one is built (the scheduler builds empty indexes when it starts; or run `npm run reindex` on that machine)',
    );
    expect(describeIndexProblem('manual', judgeIndex('embedded', { present: true, hash: BUILD.hash }, BUILD), { who: 'x', when, where: 'that machine' })).toBeUndefined();
  });
});

describe('describeIndexProblems', () => {
  const words = { who: 'agent worker hostC#9', when: () => '8 s ago', where: 'that machine' };
  it("reads one worker's two indexes as one problem, with what to do once", () => {
    const none = judgeIndex('embedded', { present: false }, undefined);
    expect(describeIndexProblems({ manual: none, qa: none }, words)).toEqual([
      'agent worker hostC#9 has no manual or Q&A index, and no build is recorded yet: its searches find nothing until one is built (the scheduler builds empty indexes when it starts; or run `npm run reindex` on that machine)',
    ]);
    const qaBuild = { ...BUILD, hash: 'd'.repeat(64) };
    expect(describeIndexProblems({ manual: judgeIndex('embedded', { present: false }, BUILD), qa: judgeIndex('embedded', { present: true, hash: 'c'.repeat(64) }, qaBuild) }, words)).toEqual([
      'agent worker hostC#9 takes no tickets: it has no manual index (the last build is bbbbbbbbbbbb, hostA#41, 8 s ago); its Q&A index cccccccccccc is not the last build dddddddddddd (hostA#41, 8 s ago); copy the knowledge folders and run `npm run reindex` on that machine, or use Meilisearch and Qdrant',
    ]);
    expect(describeIndexProblems({ manual: judgeIndex('embedded', { present: true, hash: BUILD.hash }, BUILD), qa: judgeIndex('qdrant', undefined, undefined) }, words)).toEqual([]);
  });
});
