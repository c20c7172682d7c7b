/**
 * Whether an agent worker may answer from the indexes it serves: the embedded engines' files are each machine's own,
 * so after a reindex on another machine (or with no index here at all) this machine would answer customers from
 * knowledge that is out of date, or from nothing, while everything else looks well. {@link judgeIndex} compares what
 * this process serves with the last build recorded in Redis (`index-builds.ts`); {@link IndexFreshnessMonitor} does
 * so when the worker starts and every few seconds after, and tells the worker (which stops taking tickets while an
 * index is not current, and reports the verdicts for `/readyz`).
 *
 * Rules, per index:
 * - a server backend (Meilisearch, Qdrant) is one index every machine shares: always fine (`shared`);
 * - no build recorded yet (a fresh install, or builds from before they were recorded): the worker answers as it
 *   always did (`unrecorded`); a missing index still fails readiness (`missing`), so a fresh install that never built
 *   shows. A worker with one index and not the other (no Q&A folder) takes tickets as before; one with neither
 *   ({@link noIndexYet}) takes none: it would answer every mail from nothing, park it as not fully answered and
 *   record a knowledge gap that is none, so the mail waits in the queue for the first build instead;
 * - a build recorded: the index must carry that build's hash (`current`); another hash, a file older than build hashes
 *   (`stale`) or no index (`missing`) keeps the worker from taking tickets until it does.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { PeriodicCheck } from '../runtime/periodic-check.js';
import { INDEX_NAMES, readIndexBuilds, shortHash, type IndexBuild, type IndexName } from './index-builds.js';
import type { ManualSearch, QaSearch, ServedIndex } from './types.js';

/** How the index a process serves relates to the last recorded build; see the module comment. */
export type IndexState = 'shared' | 'current' | 'unrecorded' | 'stale' | 'missing';

/** One index as an agent worker reports it (stored with its status, so it stays plain JSON). */
export interface IndexVerdict {
  state: IndexState;
  /** The engine: `embedded`, `meilisearch`, `qdrant`. */
  backend: string;
  /** The content hash of the index served here; absent when there is none, or it is older than build hashes. */
  hash?: string;
  /** Why there is no index, when its file could not be read. */
  error?: string;
  /** The last recorded build it was compared with. */
  lastBuild?: IndexBuild;
}

/** Both indexes of one process. */
export type IndexVerdicts = Record<IndexName, IndexVerdict>;

/**
 * Compares what an engine serves (`served`; undefined for a server backend) with the last recorded build of its
 * index (undefined when none is recorded).
 */
export function judgeIndex(backend: string, served: ServedIndex | undefined, lastBuild: IndexBuild | undefined): IndexVerdict {
  const base = { backend, ...(lastBuild ? { lastBuild } : {}) };
  if (served === undefined) return { state: 'shared', ...base };
  if (!served.present) return { state: 'missing', ...base, ...(served.error ? { error: served.error } : {}) };
  const hash = served.hash === undefined ? {} : { hash: served.hash };
  if (!lastBuild) return { state: 'unrecorded', ...base, ...hash };
  return { state: served.hash === lastBuild.hash ? 'current' : 'stale', ...base, ...hash };
}

/**
 * True when the worker must not answer from this index: it is not the last recorded build, or there is none although
 * a build is recorded. (Without any index at all the worker takes no tickets either: see {@link noIndexYet}.)
 */
export function blocksTickets(verdict: IndexVerdict): boolean {
  return verdict.state === 'stale' || (verdict.state === 'missing' && verdict.lastBuild !== undefined);
}

/** True when `/readyz` must fail for this index: it blocks tickets, or there is none (even before any build). */
export function failsReadiness(verdict: IndexVerdict): boolean {
  return verdict.state === 'stale' || verdict.state === 'missing';
}

/** How logs and `/readyz` name the indexes. */
export const INDEX_LABELS: Record<IndexName, string> = { manual: 'manual', qa: 'Q&A' };

/** Words of {@link describeIndexProblem}: who it is about and where the fix is run. */
export interface ProblemWords {
  /** e.g. `agent worker hostB#4242`, or `this agent worker`. */
  who: string;
  /** e.g. `that machine` (the dashboard), `this machine` (the worker's own log). */
  where: string;
  /** How a build's time is said: `2 min ago` on the dashboard, an ISO time in a log. */
  when: (at: number) => string;
}

/**
 * What to do about an index that is not the last build, run on `where`: on one machine it is a reindex whose build
 * could not be recorded (Redis was down), so the fix for one machine comes first.
 */
function remedy(where: string): string {
  return `run \`npm run reindex\` on ${where} with Redis reachable; with several machines, copy the knowledge folders to ${where} first, or use Meilisearch and Qdrant`;
}

/**
 * True when the worker has no index at all and no build of either is recorded: never built on this machine nor
 * anywhere. It then takes no tickets, as for an index that is not the last build. One index without the other (an
 * empty Q&A folder is an empty index, a missing one none) answers as before.
 */
export function noIndexYet(verdicts: IndexVerdicts): boolean {
  return INDEX_NAMES.every((index) => verdicts[index].state === 'missing' && verdicts[index].lastBuild === undefined);
}

/** The sentence for {@link noIndexYet}: who takes no tickets, and the fix. */
function noIndexYetSentence(verdicts: IndexVerdicts, words: ProblemWords): string {
  const errors = INDEX_NAMES.flatMap((index) => (verdicts[index].error ? [verdicts[index].error] : []));
  const why = errors.length > 0 ? ` (${errors.join('; ')})` : '';
  return `${words.who} takes no tickets: no knowledge index yet${why}: run \`npm run reindex\` (or start the scheduler) on ${words.where}; the mail waits in the queue`;
}

/** Why one index keeps its worker from taking tickets, e.g. `its manual index … is not the last build …`. */
function blockingReason(index: IndexName, verdict: IndexVerdict, when: ProblemWords['when']): string {
  const label = INDEX_LABELS[index];
  const build = verdict.lastBuild!;
  const by = `${build.host}#${build.pid}, ${when(build.at)}`;
  if (verdict.state === 'missing') {
    return `it has no ${label} index${verdict.error ? ` (${verdict.error})` : ''} (the last build is ${shortHash(build.hash)}, ${by})`;
  }
  return `its ${label} index ${shortHash(verdict.hash)} is not the last build ${shortHash(build.hash)} (${by})`;
}

/** The sentence about indexes missing before any build: searches find nothing, tickets are still taken. */
function missingBeforeAnyBuild(indexes: readonly [IndexName, IndexVerdict][], words: ProblemWords): string {
  const names = indexes.map(([index]) => INDEX_LABELS[index]).join(' or ');
  const errors = indexes.flatMap(([, v]) => (v.error ? [v.error] : []));
  const why = errors.length > 0 ? ` (${errors.join('; ')})` : '';
  return `${words.who} has no ${names} index${why}, and no build is recorded yet: its ${names} searches find nothing until one is built (the scheduler builds a missing or empty index when it starts; or run \`npm run reindex\` on ${words.where})`;
}

/**
 * One sentence about an index that fails readiness — who takes no tickets and why, and what to do — or undefined
 * when the index is fine. For logs, where each index's problem is logged once; the case of no index at all is said
 * of both together ({@link describeIndexProblems}).
 */
export function describeIndexProblem(index: IndexName, verdict: IndexVerdict, words: ProblemWords): string | undefined {
  if (!failsReadiness(verdict)) return undefined;
  if (!blocksTickets(verdict)) return missingBeforeAnyBuild([[index, verdict]], words);
  return `${words.who} takes no tickets: ${blockingReason(index, verdict, words.when)}; ${remedy(words.where)}`;
}

/**
 * The sentences about one worker's indexes that fail readiness, both indexes together: at most one about what keeps
 * it from taking tickets (with what to do, once) and one about an index missing before any build (one sentence when
 * there is none at all, {@link noIndexYet}). Empty when all is
 * well. For `/readyz` and the review page's banner, where one worker's two indexes read as one problem.
 */
export function describeIndexProblems(verdicts: IndexVerdicts, words: ProblemWords): string[] {
  if (noIndexYet(verdicts)) return [noIndexYetSentence(verdicts, words)];
  const entries = INDEX_NAMES.map((index) => [index, verdicts[index]] as [IndexName, IndexVerdict]);
  const blocking = entries.filter(([, v]) => blocksTickets(v));
  const missing = entries.filter(([, v]) => failsReadiness(v) && !blocksTickets(v));
  return [
    ...(blocking.length > 0 ? [`${words.who} takes no tickets: ${blocking.map(([i, v]) => blockingReason(i, v, words.when)).join('; ')}; ${remedy(words.where)}`] : []),
    ...(missing.length > 0 ? [missingBeforeAnyBuild(missing, words)] : []),
  ];
}

/** Options of {@link IndexFreshnessMonitor}. */
export interface IndexFreshnessOptions {
  /** Reads the recorded builds (the producer connection). */
  redis: Redis;
  prefix: string;
  /** The searches the agent answers with. */
  search: { manual: Pick<ManualSearch, 'kind' | 'served'>; qa: Pick<QaSearch, 'kind' | 'served'> };
  /** Time between two checks. */
  intervalMs: number;
  /**
   * How long a check that would newly stop the worker waits to look again. A build on this machine renames its file
   * into place a moment before it records the build in Redis: seen in between, the new file looks like another
   * build's, and the second look finds the record.
   */
  settleMs: number;
  /** Called after the first check and whenever a verdict changed; the monitor waits for it. Its errors are logged. */
  onChange: (verdicts: IndexVerdicts, previous: IndexVerdicts | undefined) => void | Promise<void>;
  log: Logger;
}

/** A check that changes nothing when compared: the same states, hashes and builds. */
function sameVerdicts(a: IndexVerdicts | undefined, b: IndexVerdicts | undefined): boolean {
  return a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

/** True when any index keeps the worker from taking tickets, or it has none at all ({@link noIndexYet}). */
export function anyBlocks(verdicts: IndexVerdicts | undefined): boolean {
  return verdicts !== undefined && (INDEX_NAMES.some((index) => blocksTickets(verdicts[index])) || noIndexYet(verdicts));
}

/**
 * Checks the served indexes against the recorded builds when started, every {@link IndexFreshnessOptions.intervalMs}
 * after, and whenever asked ({@link check}: the agent worker asks before each ticket). A check is one `stat` per
 * index, which reloads a newer file as a search would, and one Redis read. While Redis cannot be read the last
 * builds seen stand (before any, none: as without builds). {@link check} returns the verdicts of a check that starts
 * after the call: one already running may have read Redis before a build was recorded.
 */
export class IndexFreshnessMonitor extends PeriodicCheck<IndexVerdicts> {
  private latest: IndexVerdicts | undefined;
  private builds: Partial<Record<IndexName, IndexBuild>> = {};

  constructor(private readonly options: IndexFreshnessOptions) {
    super({ intervalMs: options.intervalMs, log: options.log, failure: 'index check failed' });
  }

  protected async checkNow(): Promise<IndexVerdicts> {
    let next = await this.assess();
    if (anyBlocks(next) && !anyBlocks(this.latest) && !this.stopped) {
      await new Promise((resolve) => setTimeout(resolve, this.options.settleMs));
      next = await this.assess();
    }
    if (!sameVerdicts(next, this.latest)) {
      const previous = this.latest;
      this.latest = next;
      try {
        await this.options.onChange(next, previous);
      } catch (err) {
        this.options.log.error({ err }, 'index check listener failed');
      }
    }
    return next;
  }

  private async assess(): Promise<IndexVerdicts> {
    const { manual, qa } = this.options.search;
    const [servedManual, servedQa] = await Promise.all([manual.served?.(), qa.served?.()]);
    try {
      this.builds = await readIndexBuilds(this.options.redis, this.options.prefix);
    } catch (err) {
      this.options.log.debug({ err: (err as Error).message }, 'could not read the recorded index builds; comparing with the last ones read');
    }
    return {
      manual: judgeIndex(manual.kind, servedManual, this.builds.manual),
      qa: judgeIndex(qa.kind, servedQa, this.builds.qa),
    };
  }
}
