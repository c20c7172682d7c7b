import { describe, expect, it } from 'vitest';
import { AGENT_WORDS, SENDER_WORDS, agentCheck, dependencyCheck, pollerCheck, reindexProblems } from '../../src/server/health.js';
import type { IndexBuild } from '../../src/search/index-builds.js';
import type { IndexVerdict, IndexVerdicts } from '../../src/search/index-freshness.js';
import type { PollerStatus } from '../../src/runtime/poller.js';
import type { RoleStatus } from '../../src/runtime/role-status.js';

const NOW = new Date('2026-11-26T10:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);
const LOGIN = 'IMAP login as support@example.test to imap.example.test:993 failed (wrong IMAP_USER or IMAP_PASSWORD?)';
const MAX_AGE_MS = 3 * 60_000;

describe('pollerCheck', () => {
  it.each<[string, PollerStatus, 'ok' | 'fail', string]>([
    ['never polled, nothing failed', {}, 'fail', 'the IMAP poller has not completed a poll yet'],
    ['never polled, the login refused', { lastFailure: { at: ago(5), message: LOGIN } }, 'fail', `the IMAP poller has not completed a poll yet; last failure 5 s ago: ${LOGIN}`],
    ['polled recently', { lastSuccessfulPollAt: ago(30) }, 'ok', 'last successful poll 30 s ago (2026-11-26T09:59:30.000Z)'],
    ['polled recently, an older failure is history', { lastSuccessfulPollAt: ago(30), lastFailure: { at: ago(600), message: LOGIN } }, 'ok', 'last successful poll 30 s ago (2026-11-26T09:59:30.000Z)'],
    ['polled recently, failing since', { lastSuccessfulPollAt: ago(30), lastFailure: { at: ago(10), message: 'IMAP connection to imap.example.test:993 lost (ECONNRESET)' } }, 'ok', 'last successful poll 30 s ago (2026-11-26T09:59:30.000Z); last failure 10 s ago: IMAP connection to imap.example.test:993 lost (ECONNRESET)'],
    ['stale, failing since', { lastSuccessfulPollAt: ago(600), lastFailure: { at: ago(20), message: LOGIN } }, 'fail', `last successful poll 10 min ago (2026-11-26T09:50:00.000Z), longer than the allowed 3 min; last failure 20 s ago: ${LOGIN}`],
    ['stale, no failure recorded', { lastSuccessfulPollAt: ago(600) }, 'fail', 'last successful poll 10 min ago (2026-11-26T09:50:00.000Z), longer than the allowed 3 min'],
  ])('%s', (_what, status, expected, detail) => {
    expect(pollerCheck(status, NOW, MAX_AGE_MS)).toEqual({ status: expected, detail });
  });
});

describe('dependencyCheck', () => {
  const AUTH = 'SMTP failure: Invalid login: 535 5.7.8 Authentication failed';
  const report = (process: string, fields: Omit<RoleStatus, 'process' | 'seenAt'>): RoleStatus => ({ process, seenAt: ago(1), ...fields });
  const failing = (at: number) => `cannot use the SMTP server (${at} s ago: ${AUTH})`;
  it.each<[string, RoleStatus[], 'ok' | 'fail' | 'skipped', string]>([
    ['no running sender has reported', [], 'skipped', 'no running sender has reported yet (it reports once it has tried the SMTP server)'],
    ['a sender still trying for the first time', [report('a#1', {})], 'skipped', 'no running sender has reported yet (it reports once it has tried the SMTP server)'],
    ['reached it', [report('a#1', { reachedAt: ago(7_200) })], 'ok', 'the sender reached the SMTP server 2 h ago, with no failure since'],
    ['never reached it', [report('a#1', { lastFailure: { at: ago(5), message: AUTH } })], 'fail', `the sender ${failing(5)}; replies wait in the outbound queue`],
    ['failing since it reached it', [report('a#1', { reachedAt: ago(600), lastFailure: { at: ago(30), message: AUTH } })], 'fail', `the sender ${failing(30)}; replies wait in the outbound queue`],
    ['reached it again after a failure', [report('a#1', { reachedAt: ago(10), lastFailure: { at: ago(30), message: AUTH } })], 'ok', 'the sender reached the SMTP server 10 s ago, with no failure since'],
    [
      'one of two senders failing',
      [report('a#1', { reachedAt: ago(60) }), report('b#2', { reachedAt: ago(600), lastFailure: { at: ago(20), message: AUTH } })],
      'fail',
      `sender b#2 ${failing(20)}; replies wait in the outbound queue`,
    ],
    [
      'two senders reached it',
      [report('a#1', { reachedAt: ago(60) }), report('b#2', { reachedAt: ago(120) })],
      'ok',
      'sender a#1 reached the SMTP server 1 min ago, with no failure since; sender b#2 reached the SMTP server 2 min ago, with no failure since',
    ],
  ])('sender: %s', (_what, reports, expected, detail) => {
    expect(dependencyCheck(reports, NOW, SENDER_WORDS)).toEqual({ status: expected, detail });
  });

  it('names the agent worker, the model server and what happens to tickets meanwhile', () => {
    const message = 'http://127.0.0.1:11434/v1 answered 401: Incorrect API key provided';
    expect(dependencyCheck([report('w#9', { lastFailure: { at: ago(8), message } })], NOW, AGENT_WORDS)).toEqual({
      status: 'fail',
      detail: `the agent worker cannot use the model server (8 s ago: ${message}); tickets are retried, then parked for a person`,
    });
    expect(dependencyCheck([], NOW, AGENT_WORDS).detail).toBe('no running agent worker has reported yet (it reports when it starts and the model server lists its models, else after its first ticket)');
  });
});

describe('reindexProblems', () => {
  it('names each index whose last queued reindex failed, and no other', () => {
    expect(reindexProblems({}, NOW)).toEqual([]);
    expect(reindexProblems({ manual: { at: ago(60), ok: true }, qa: { at: ago(60), ok: true } }, NOW)).toEqual([]);
    expect(
      reindexProblems({ manual: { at: ago(3 * 3600), ok: false, error: 'Meilisearch at http://meili:7700 unreachable' }, qa: { at: ago(60), ok: false } }, NOW),
    ).toEqual([
      'the last reindex of the manual failed 3 h ago (Meilisearch at http://meili:7700 unreachable); the agent answers from the index built before it',
      'the last reindex of the past Q&A failed 1 min ago (no reason given); the agent answers from the index built before it',
    ]);
  });
});

describe('agentCheck: the model server and the indexes each agent worker serves', () => {
  const build: IndexBuild = { hash: 'b'.repeat(64), at: ago(120).getTime(), host: 'hostA', pid: 41, backend: 'embedded' };
  const qaBuild: IndexBuild = { ...build, hash: 'd'.repeat(64) };
  const current: IndexVerdicts = {
    manual: { state: 'current', backend: 'embedded', hash: build.hash, lastBuild: build },
    qa: { state: 'current', backend: 'embedded', hash: qaBuild.hash, lastBuild: qaBuild },
  };
  const worker = (process: string, indexes: IndexVerdicts | undefined, fields: Omit<RoleStatus, 'process' | 'seenAt'> = { reachedAt: ago(60) }): RoleStatus => ({
    process,
    seenAt: ago(1),
    ...fields,
    ...(indexes ? { indexes } : {}),
  });
  const REMEDY = 'run `npm run reindex` on that machine with Redis reachable; with several machines, copy the knowledge folders to that machine first, or use Meilisearch and Qdrant';

  it("lists each worker's machine and the short hashes of what it serves", () => {
    const shared: IndexVerdicts = { manual: { state: 'shared', backend: 'meilisearch' }, qa: { state: 'unrecorded', backend: 'embedded' } };
    expect(agentCheck([worker('hostA#41', current), worker('hostB#7', shared)], NOW)).toEqual({
      status: 'ok',
      detail:
        'agent worker hostA#41 reached the model server 1 min ago, with no failure since; agent worker hostB#7 reached the model server 1 min ago, with no failure since; ' +
        'indexes served: hostA#41 manual bbbbbbbbbbbb, Q&A dddddddddddd; hostB#7 manual meilisearch (shared), Q&A of unknown content (no build recorded)',
    });
  });

  it('fails naming the machine and the index of a worker that takes no tickets, and what to do', () => {
    const stale: IndexVerdicts = { ...current, manual: { state: 'stale', backend: 'embedded', hash: 'c'.repeat(64), lastBuild: build } };
    expect(agentCheck([worker('hostA#41', current), worker('hostB#7', stale)], NOW)).toEqual({
      status: 'fail',
      detail:
        `agent worker hostB#7 takes no tickets: its manual index cccccccccccc is not the last build bbbbbbbbbbbb (hostA#41, 2 min ago); ${REMEDY}; ` +
        'agent worker hostA#41 reached the model server 1 min ago, with no failure since; agent worker hostB#7 reached the model server 1 min ago, with no failure since; ' +
        'indexes served: hostA#41 manual bbbbbbbbbbbb, Q&A dddddddddddd; hostB#7 manual cccccccccccc (not the last build), Q&A dddddddddddd',
    });
  });

  it('fails while a worker has no index, also before any build (and before it reached the model server)', () => {
    const none: IndexVerdict = { state: 'missing', backend: 'embedded' };
    const result = agentCheck([worker('hostC#9', { manual: none, qa: current.qa }, {})], NOW);
    expect(result.status).toBe('fail');
    expect(result.detail).toBe(
      'agent worker hostC#9 has no manual index, and no build is recorded yet: its manual searches find nothing until one is built (the scheduler builds a missing or empty index when it starts; or run `npm run reindex` on that machine); ' +
        'indexes served: hostC#9 manual none, Q&A dddddddddddd',
    );
  });

  it('is the model server check alone for workers that report no indexes', () => {
    for (const reports of [[], [worker('w#1', undefined)], [worker('w#1', undefined, { lastFailure: { at: ago(8), message: 'refused' } })]]) {
      expect(agentCheck(reports, NOW)).toEqual(dependencyCheck(reports, NOW, AGENT_WORDS));
    }
  });
});
