import { describe, expect, it } from 'vitest';
import { manualContentHash, qaContentHash, shortHash, type IndexBuild } from '../../src/search/index-builds.js';
import { anyBlocks, blocksTickets, describeIndexProblem, describeIndexProblems, failsReadiness, judgeIndex, noIndexYet, type IndexVerdict, type IndexVerdicts } from '../../src/search/index-freshness.js';
import type { ManualChunk, QaPair } from '../../src/search/types.js';
import { indexLogLines, type IndexLogLine } from '../../src/runtime/agent-worker.js';

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

/** What to do about an index that is not the last build: the one-machine fix first, then the one for several. */
const REMEDY = (where: string) =>
  `run \`npm run reindex\` on ${where} with Redis reachable; with several machines, copy the knowledge folders to ${where} first, or use Meilisearch and Qdrant`;

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
    ['no index, no build anywhere yet: blocks only with no other index (noIndexYet), readiness fails', ['embedded', { present: false }, undefined], 'missing', false, true],
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
      `agent worker hostB#7 takes no tickets: its manual index cccccccccccc is not the last build bbbbbbbbbbbb (hostA#41, 2 min ago); ${REMEDY('that machine')}`,
    );
    expect(describeIndexProblem('qa', judgeIndex('embedded', { present: false }, BUILD), { who: 'this agent worker', when, where: 'this machine' })).toBe(
      `this agent worker takes no tickets: it has no Q&A index (the last build is bbbbbbbbbbbb, hostA#41, 2 min ago); ${REMEDY('this machine')}`,
    );
    expect(describeIndexProblem('manual', judgeIndex('embedded', { present: false, error: 'truncated index file' }, undefined), { who: 'agent worker hostC#9', when, where: 'that machine' })).toBe(
      'agent worker hostC#9 has no manual index (truncated index file), and no build is recorded yet: its manual searches find nothing until one is built (the scheduler builds a missing or empty index when it starts; or run `npm run reindex` on that machine)',
    );
    expect(describeIndexProblem('manual', judgeIndex('embedded', { present: true, hash: BUILD.hash }, BUILD), { who: 'x', when, where: 'that machine' })).toBeUndefined();
  });
});

describe('describeIndexProblems', () => {
  const words = { who: 'agent worker hostC#9', when: () => '8 s ago', where: 'that machine' };
  it("reads one worker's two indexes as one problem, with what to do once", () => {
    const none = judgeIndex('embedded', { present: false }, undefined);
    expect(describeIndexProblems({ manual: none, qa: none }, words)).toEqual([
      'agent worker hostC#9 takes no tickets: no knowledge index yet: run `npm run reindex` (or start the scheduler) on that machine; the mail waits in the queue',
    ]);
    const unreadable = judgeIndex('embedded', { present: false, error: 'truncated index file' }, undefined);
    expect(describeIndexProblems({ manual: unreadable, qa: none }, words)).toEqual([
      'agent worker hostC#9 takes no tickets: no knowledge index yet (truncated index file): run `npm run reindex` (or start the scheduler) on that machine; the mail waits in the queue',
    ]);
    // One index built, the other never (no Q&A folder): answers from the one it has, as before.
    expect(describeIndexProblems({ manual: judgeIndex('embedded', { present: true, hash: BUILD.hash }, BUILD), qa: none }, words)).toEqual([
      'agent worker hostC#9 has no Q&A index, and no build is recorded yet: its Q&A searches find nothing until one is built (the scheduler builds a missing or empty index when it starts; or run `npm run reindex` on that machine)',
    ]);
    const qaBuild = { ...BUILD, hash: 'd'.repeat(64) };
    expect(describeIndexProblems({ manual: judgeIndex('embedded', { present: false }, BUILD), qa: judgeIndex('embedded', { present: true, hash: 'c'.repeat(64) }, qaBuild) }, words)).toEqual([
      `agent worker hostC#9 takes no tickets: it has no manual index (the last build is bbbbbbbbbbbb, hostA#41, 8 s ago); its Q&A index cccccccccccc is not the last build dddddddddddd (hostA#41, 8 s ago); ${REMEDY('that machine')}`,
    ]);
    expect(describeIndexProblems({ manual: judgeIndex('embedded', { present: true, hash: BUILD.hash }, BUILD), qa: judgeIndex('qdrant', undefined, undefined) }, words)).toEqual([]);
  });
});

describe('a worker with no index at all', () => {
  const none = judgeIndex('embedded', { present: false }, undefined);
  const unreadable = judgeIndex('embedded', { present: false, error: 'truncated index file' }, undefined);
  const built = judgeIndex('embedded', { present: true, hash: BUILD.hash }, BUILD);
  const unrecorded = judgeIndex('embedded', { present: true, hash: 'c'.repeat(64) }, undefined);
  const emptyByDesign = judgeIndex('embedded', { present: true, hash: qaContentHash([]) }, undefined);
  const shared = judgeIndex('qdrant', undefined, undefined);
  const missingBuiltElsewhere = judgeIndex('embedded', { present: false }, BUILD);
  it.each<[string, IndexVerdicts, boolean, boolean]>([
    ['neither index, no build anywhere (never built here): takes no tickets', { manual: none, qa: none }, true, true],
    ['neither index readable, no build anywhere', { manual: unreadable, qa: none }, true, true],
    ['a manual, no Q&A folder (never built): answers as before', { manual: built, qa: none }, false, false],
    ['a manual from before build records, no Q&A', { manual: unrecorded, qa: none }, false, false],
    ['no manual, an empty Q&A index (an empty folder, built)', { manual: none, qa: emptyByDesign }, false, false],
    ['no manual, a shared Q&A server', { manual: none, qa: shared }, false, false],
    ['no index here, a build recorded elsewhere: blocked as before', { manual: missingBuiltElsewhere, qa: none }, false, true],
  ])('%s', (_what, verdicts, nothing, blocks) => {
    expect(noIndexYet(verdicts)).toBe(nothing);
    expect(anyBlocks(verdicts)).toBe(blocks);
  });
});

describe("the agent worker's log lines about its indexes", () => {
  const none = judgeIndex('embedded', { present: false }, undefined);
  const current = judgeIndex('embedded', { present: true, hash: BUILD.hash }, BUILD);
  const missingBuiltElsewhere = judgeIndex('embedded', { present: false }, BUILD);
  const NO_INDEX = 'this agent worker takes no tickets: no knowledge index yet: run `npm run reindex` (or start the scheduler) on this machine; the mail waits in the queue';
  it.each<[string, IndexVerdicts, IndexVerdicts | undefined, IndexLogLine[]]>([
    ['no index at all: one error, naming the fix', { manual: none, qa: none }, undefined, [{ level: 'error', message: NO_INDEX }]],
    ['no index at all, unchanged: nothing', { manual: none, qa: none }, { manual: none, qa: none }, []],
    [
      'built here since: each index is fine again',
      { manual: current, qa: { ...current } },
      { manual: none, qa: none },
      [
        { level: 'info', message: 'the manual index here is bbbbbbbbbbbb now, the last build' },
        { level: 'info', message: 'the Q&A index here is bbbbbbbbbbbb now, the last build' },
      ],
    ],
    [
      'built elsewhere since: each missing index blocks, with what to do',
      { manual: missingBuiltElsewhere, qa: missingBuiltElsewhere },
      { manual: none, qa: none },
      ['manual', 'Q&A'].map((label) => ({
        level: 'error' as const,
        message: `this agent worker takes no tickets: it has no ${label} index (the last build is bbbbbbbbbbbb, hostA#41, built 2026-11-26T10:00:00.000Z); ${REMEDY('this machine')}`,
      })),
    ],
  ])('%s', (_what, verdicts, previous, lines) => {
    expect(indexLogLines(verdicts, previous)).toEqual(lines);
  });
});
