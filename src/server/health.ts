/**
 * Liveness and readiness. `/healthz` says only that the process answers (a restart is the cure when it does not);
 * `/readyz` says whether the deployment can do its work: Redis reachable, the IMAP poller polling, the agent workers
 * able to use the model server and serving the last build of each search index, the sender able to use the SMTP
 * server, the search backends answering. Each check has a deadline, so a hung dependency makes the answer "not
 * ready", never a hang.
 */
import type { Redis } from 'ioredis';
import type { SkippedManualFile } from '../knowledge/manual-loader.js';
import { removeControls, removeInvisible } from '../mail/invisible.js';
import { describeConnection } from '../queues/connection.js';
import type { Queues } from '../queues/registry.js';
import type { ReindexKind, ReindexOutcome } from '../runtime/reindex-outcome.js';
import { describeDeskSettingsMismatch } from '../runtime/desk-settings.js';
import type { PollerStatus } from '../runtime/poller.js';
import { CLOCK_SKEW_WARN_MS, type RoleStatus } from '../runtime/role-status.js';
import { INDEX_NAMES as SEARCH_INDEXES, shortHash, type IndexBuild } from '../search/index-builds.js';
import { describeIndexProblems, INDEX_LABELS, type IndexVerdict } from '../search/index-freshness.js';
import type { ManualSearch, QaSearch } from '../search/types.js';
import { html, type SafeHtml } from './html.js';

/** Outcome of one check. `skipped` checks do not affect readiness. */
export type CheckStatus = 'ok' | 'fail' | 'skipped';

/** One readiness check as reported. */
export interface CheckResult {
  status: CheckStatus;
  /** What was found, for the operator reading the JSON. */
  detail: string;
  durationMs: number;
}

/** The `/readyz` answer. */
export interface Readiness {
  ready: boolean;
  checks: Record<'redis' | 'imapPoller' | 'agent' | 'sender' | 'manualSearch' | 'qaSearch', CheckResult>;
}

/** What the readiness checks look at. */
export interface ReadinessDeps {
  redis: Redis;
  /**
   * When the IMAP poller last completed a poll and what last failed (from Redis); `undefined` skips the check, for a
   * dashboard that does not know the mailbox (IMAP_HOST / IMAP_USER unset in its environment).
   */
  pollerStatus?: (() => Promise<PollerStatus>) | undefined;
  /**
   * What the running agent workers last reported about the model server and the indexes they serve (from Redis);
   * `undefined` skips the check.
   */
  agentStatus?: (() => Promise<RoleStatus[]>) | undefined;
  /** What the running senders last reported about the SMTP server (from Redis); `undefined` skips the check. */
  senderStatus?: (() => Promise<RoleStatus[]>) | undefined;
  /** Oldest acceptable last poll, in ms (normally 3 × IMAP_POLL_INTERVAL_MS). */
  pollMaxAgeMs: number;
  /** The search backends to ping; `undefined` skips those checks. */
  search?: { manual: Pick<ManualSearch, 'ping' | 'kind'>; qa: Pick<QaSearch, 'ping' | 'kind'> } | undefined;
  /** Deadline of each check. */
  timeoutMs?: number;
  now?: () => Date;
}

/** Default deadline of one check: well below the usual 5–10 s probe timeouts of orchestrators. */
export const CHECK_TIMEOUT_MS = 2_000;

class CheckTimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'CheckTimeoutError';
  }
}

async function withDeadline<T>(work: () => Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError(ms)), ms);
  });
  try {
    return await Promise.race([work(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function runCheck(work: () => Promise<{ status: CheckStatus; detail: string }>, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  try {
    const outcome = await withDeadline(work, timeoutMs);
    return { ...outcome, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    return { status: 'fail', detail: err instanceof Error ? err.message : String(err), durationMs: Math.round(performance.now() - started) };
  }
}

/** "42 s", "5 min", "2 h 10 min": an age or duration for people. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}

/**
 * The poller check: failed when the last successful poll is missing or older than `maxAgeMs`. A failure recorded
 * after the last successful poll is added to the detail either way: it is why the mailbox is not being read (a wrong
 * password, a refused STARTTLS), or an early sign while the last poll is still recent.
 */
export function pollerCheck(status: PollerStatus, now: Date, maxAgeMs: number): { status: CheckStatus; detail: string } {
  const { lastSuccessfulPollAt: at, lastFailure } = status;
  const why = failingSince(lastFailure, at) ? `; last failure ${formatDuration(now.getTime() - lastFailure!.at.getTime())} ago: ${lastFailure!.message}` : '';
  if (!at) return { status: 'fail', detail: `the IMAP poller has not completed a poll yet${why}` };
  const age = now.getTime() - at.getTime();
  const ago = `last successful poll ${formatDuration(age)} ago (${at.toISOString()})`;
  return age <= maxAgeMs
    ? { status: 'ok', detail: `${ago}${why}` }
    : { status: 'fail', detail: `${ago}, longer than the allowed ${formatDuration(maxAgeMs)}${why}` };
}

/** True when `failure` is the latest news: no success since (or none at all). */
export function failingSince(failure: { at: Date } | undefined, success: Date | undefined): boolean {
  return failure !== undefined && (success === undefined || failure.at.getTime() > success.getTime());
}

/** How {@link dependencyCheck} names a role, its server and what waits while it fails. */
export interface DependencyWords {
  /** The role, as in "the sender". */
  role: string;
  /** The server, as in "the SMTP server". */
  server: string;
  /** When the role first tries the server, as in "once it has tried the SMTP server". */
  firstTry: string;
  /** What happens meanwhile, as in "replies wait in the outbound queue". */
  meanwhile: string;
}

/** Words of the sender check. */
export const SENDER_WORDS: DependencyWords = {
  role: 'sender',
  server: 'the SMTP server',
  firstTry: 'once it has tried the SMTP server',
  meanwhile: 'replies wait in the outbound queue',
};

/** Words of the agent check. */
export const AGENT_WORDS: DependencyWords = {
  role: 'agent worker',
  server: 'the model server',
  firstTry: 'when it starts and the model server lists its models, else after its first ticket',
  meanwhile: 'tickets are retried, then parked for a person',
};

/**
 * The check of a role that depends on an outside server (the sender on SMTP, the agent worker on the model server):
 * failed when a running process's last report is a failure concerning the server (it could not connect or log in),
 * skipped when no running process has reported.
 */
export function dependencyCheck(reports: readonly RoleStatus[], now: Date, words: DependencyWords): { status: CheckStatus; detail: string } {
  const ago = (at: Date) => `${formatDuration(now.getTime() - at.getTime())} ago`;
  const failing = reports.filter((r) => failingSince(r.lastFailure, r.reachedAt));
  const named = (r: RoleStatus) => (reports.length > 1 ? `${words.role} ${r.process}` : `the ${words.role}`);
  if (failing.length > 0) {
    const why = failing.map((r) => `${named(r)} cannot use ${words.server} (${ago(r.lastFailure!.at)}: ${r.lastFailure!.message})`).join('; ');
    return { status: 'fail', detail: `${why}; ${words.meanwhile}` };
  }
  const reached = reports.filter((r) => r.reachedAt);
  if (reached.length === 0) return { status: 'skipped', detail: `no running ${words.role} has reported yet (it reports ${words.firstTry})` };
  return { status: 'ok', detail: reached.map((r) => `${named(r)} reached ${words.server} ${ago(r.reachedAt!)}, with no failure since`).join('; ') };
}

/** How the readiness detail lists one index a worker serves: its short hash, and what is wrong with it. */
function servedIndexLabel(verdict: IndexVerdict): string {
  switch (verdict.state) {
    case 'shared':
      return `${verdict.backend} (shared)`;
    case 'missing':
      return 'none';
    case 'stale':
      return `${shortHash(verdict.hash)} (not the last build)`;
    case 'unrecorded':
      return `${shortHash(verdict.hash)} (no build recorded)`;
    case 'current':
      return shortHash(verdict.hash);
  }
}

/**
 * The agent check: the model server ({@link dependencyCheck}) and the search indexes each agent worker serves. It
 * fails, naming the machine (`host#pid`) and the index, while a worker takes no tickets because its index is not
 * the last recorded build or it has none, and while a worker has no index at all (before any build too: its searches
 * would find nothing). The detail ends with every worker's host and the short hashes of what it serves, so an
 * operator sees who serves what. Workers that report no indexes (older versions) leave the model server check as it was.
 * It fails too while a worker takes no tickets because its decision settings differ from the ones the poller recorded
 * (`src/runtime/desk-settings.ts`), naming the variables and what to do.
 */
export function agentCheck(reports: readonly RoleStatus[], now: Date): { status: CheckStatus; detail: string } {
  const model = dependencyCheck(reports, now, AGENT_WORDS);
  const serving = reports.filter((r) => r.indexes);
  const settingsProblems = reports.flatMap((r) => (r.deskSettings ? [describeDeskSettingsMismatch(r.deskSettings, { who: `agent worker ${r.process}`, where: 'that machine' })] : []));
  if (serving.length === 0 && settingsProblems.length === 0) return model;
  const when = (at: number) => `${formatDuration(now.getTime() - at)} ago`;
  const problems = [...settingsProblems, ...serving.flatMap((r) => describeIndexProblems(r.indexes!, { who: `agent worker ${r.process}`, where: 'that machine', when }))];
  const listing =
    serving.length === 0
      ? []
      : [
          `indexes served: ${serving
            .map((r) => `${r.process} ${SEARCH_INDEXES.map((index) => `${INDEX_LABELS[index]} ${servedIndexLabel(r.indexes![index])}`).join(', ')}`)
            .join('; ')}`,
        ];
  // "No agent worker has reported yet" says nothing next to a worker that has just reported its indexes.
  const modelWords = model.status === 'skipped' && problems.length > 0 ? [] : [model.detail];
  const status: CheckStatus = problems.length > 0 ? 'fail' : model.status;
  return { status, detail: [...problems, ...modelWords, ...listing].join('; ') };
}

/** Runs every check in parallel; ready when none failed. */
export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const timeoutMs = deps.timeoutMs ?? CHECK_TIMEOUT_MS;
  const now = deps.now ?? (() => new Date());
  const where = describeConnection(deps.redis);

  const redis = runCheck(async () => {
    try {
      await deps.redis.ping();
    } catch (err) {
      throw new Error(`Redis unreachable at ${where}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { status: 'ok', detail: `Redis at ${where} answers` };
  }, timeoutMs);

  const pollerStatus = deps.pollerStatus;
  const imapPoller = pollerStatus
    ? runCheck(async () => pollerCheck(await pollerStatus(), now(), deps.pollMaxAgeMs), timeoutMs)
    : Promise.resolve<CheckResult>({
        status: 'skipped',
        detail: 'IMAP_HOST or IMAP_USER is not set for the dashboard, so it cannot find the poller’s state',
        durationMs: 0,
      });

  const ping = (backend: { ping(): Promise<void>; kind: string } | undefined, what: string): Promise<CheckResult> =>
    backend
      ? runCheck(async () => {
          await backend.ping();
          return { status: 'ok', detail: `${what} (${backend.kind}) answers` };
        }, timeoutMs)
      : Promise.resolve<CheckResult>({ status: 'skipped', detail: `no ${what} backend configured for the dashboard`, durationMs: 0 });

  const dependency = (
    read: (() => Promise<RoleStatus[]>) | undefined,
    words: DependencyWords,
    check: (reports: RoleStatus[], now: Date) => { status: CheckStatus; detail: string } = (reports, at) => dependencyCheck(reports, at, words),
  ): Promise<CheckResult> =>
    read
      ? runCheck(async () => check(await read(), now()), timeoutMs)
      : Promise.resolve<CheckResult>({ status: 'skipped', detail: `the dashboard was not given the ${words.role}’s state`, durationMs: 0 });

  const [r, p, a, s, m, q] = await Promise.all([
    redis,
    imapPoller,
    dependency(deps.agentStatus, AGENT_WORDS, agentCheck),
    dependency(deps.senderStatus, SENDER_WORDS),
    ping(deps.search?.manual, 'manual search'),
    ping(deps.search?.qa, 'Q&A search'),
  ]);
  const checks = { redis: r, imapPoller: p, agent: a, sender: s, manualSearch: m, qaSearch: q };
  return { ready: Object.values(checks).every((c) => c.status !== 'fail'), checks };
}

/** How the review page names each index. */
const INDEX_NAMES: Record<ReindexKind, string> = { manual: 'the manual', qa: 'the past Q&A' };

/**
 * One sentence per index whose last queued reindex failed, for the review page's banner (not a `/readyz` check: the
 * old index still serves, the deployment works, only its knowledge is not current).
 */
export function reindexProblems(outcomes: Partial<Record<ReindexKind, ReindexOutcome>>, now: Date): string[] {
  return (['manual', 'qa'] as const).flatMap((kind) => {
    const outcome = outcomes[kind];
    if (!outcome || outcome.ok) return [];
    const ago = formatDuration(now.getTime() - outcome.at.getTime());
    return [`the last reindex of ${INDEX_NAMES[kind]} failed ${ago} ago (${outcome.error ?? 'no reason given'}); the agent answers from the index built before it`];
  });
}

/** The last manual reindex the maintenance worker completed: when, and the files its job returned as skipped. */
export interface CompletedManualReindex {
  /** When the job finished, by the maintenance machine's clock (epoch ms). */
  finishedOn: number;
  /** The first skipped files, as the job's result names them. */
  skipped: SkippedManualFile[];
  /** How many it skipped in all. */
  skippedCount: number;
}

/**
 * Skipped manual files named, on the start page and in `npm run reindex`'s summary alike; the rest are counted (the
 * log names every one). Ten, grouped by reason, show which kinds of file fail and where to start, while the banner
 * stays a few lines above the tickets it sits on and the summary within one screen of a terminal; twenty, each with
 * its reason, filled the start page (walkthrough 40).
 */
export const MAX_SKIPPED_FILES_NAMED = 10;

/** Skipped manual files of one reason: how many of the job's result have it, and the ones named. */
export interface SkippedFilesOfReason {
  reason: string;
  /** Files of the result with this reason, the named ones included. */
  count: number;
  /** The first of them among the {@link MAX_SKIPPED_FILES_NAMED} files named. */
  fileNames: string[];
}

/**
 * The first {@link MAX_SKIPPED_FILES_NAMED} skipped files grouped by reason, in the order the reasons first appear,
 * each group counting every file of the result with its reason; `unnamed`: the skipped files of no group shown (of
 * other reasons, or beyond what the result names, whose reasons only the log holds). `skippedCount` below the
 * result's length (a result recorded before the count existed) counts the result.
 */
export function skippedFilesByReason(skipped: readonly SkippedManualFile[], skippedCount: number): { groups: SkippedFilesOfReason[]; unnamed: number } {
  const groups = new Map<string, SkippedFilesOfReason>();
  for (const { fileName, reason } of skipped.slice(0, MAX_SKIPPED_FILES_NAMED)) {
    const group = groups.get(reason) ?? { reason, count: 0, fileNames: [] };
    group.fileNames.push(fileName);
    groups.set(reason, group);
  }
  for (const { reason } of skipped) {
    const group = groups.get(reason);
    if (group) group.count += 1;
  }
  const shown = [...groups.values()];
  const grouped = shown.reduce((sum, g) => sum + g.count, 0);
  return { groups: shown, unnamed: Math.max(skippedCount, skipped.length) - grouped };
}

// The newest completed maintenance jobs searched for the last manual reindex: a day's schedule runs three (manual,
// Q&A, retention), so a handful of "Reindex now" presses still leave it among them.
const RECENT_MAINTENANCE_JOBS = 30;

/**
 * The last completed `reindex-manual` job of the maintenance queue, read from its return value as BullMQ stores it,
 * or undefined when none is among the newest completed jobs.
 */
export async function readLastManualReindex(queue: Pick<Queues['maintenance'], 'getJobs'>): Promise<CompletedManualReindex | undefined> {
  const jobs = await queue.getJobs(['completed'], 0, RECENT_MAINTENANCE_JOBS - 1);
  const job = jobs.find((j) => j?.name === 'reindex-manual');
  if (!job?.finishedOn) return undefined;
  const result = job.returnvalue as { skipped?: unknown; skippedCount?: unknown } | null | undefined;
  const returned = result?.skipped;
  const skipped = Array.isArray(returned)
    ? returned.filter((s): s is SkippedManualFile => typeof s?.fileName === 'string' && typeof s?.reason === 'string')
    : [];
  // A result recorded before the count existed names every file it skipped.
  const counted = result?.skippedCount;
  const skippedCount = Number.isSafeInteger(counted) ? Math.max(counted as number, skipped.length) : skipped.length;
  return { finishedOn: job.finishedOn, skipped, skippedCount };
}

/**
 * The start page's warning that the manual files the last completed reindex skipped are not searchable: what to do,
 * then the files by reason ({@link skippedFilesByReason}, as `npm run reindex` prints them), naming
 * {@link MAX_SKIPPED_FILES_NAMED} at most (a warning, not a `/readyz` failure: the desk works, part of the manual is
 * missing). Nothing when it skipped none, or when a build recorded later than the job finished (an in-process
 * `npm run reindex`, which prints its own skips) replaced it; the clock skew allowed between machines keeps the job's
 * own record, stamped by Redis's clock, from counting as later.
 */
export function manualSkipsWarning(last: CompletedManualReindex | undefined, build: IndexBuild | undefined): SafeHtml | undefined {
  if (!last || last.skippedCount === 0) return undefined;
  if (build && build.at > last.finishedOn + CLOCK_SKEW_WARN_MS) return undefined;
  const count = last.skippedCount;
  const { groups, unnamed } = skippedFilesByReason(last.skipped, count);
  // Shown as `npm run reindex` prints them, so the operator finds the file by the name shown: without control
  // characters (boxes on the page) or text-direction ones (an override shows `…fdp.txt` for `…txt.pdf`); each still
  // isolated, a reason quoting what a reader said of the file.
  const plain = (text: string) => removeControls(removeInvisible(text).text, { singleLine: true }).text;
  const items = groups.map((g) => {
    const names = g.fileNames.map((name, i) => html`${i > 0 ? ', ' : ''}<bdi>${plain(name)}</bdi>`);
    const more = g.count > g.fileNames.length ? ` and ${g.count - g.fileNames.length} more` : '';
    return html`<li>${filesCount(g.count)}: <bdi>${plain(g.reason)}</bdi>: ${names}${more}</li>`;
  });
  const rest = unnamed > 0 ? html`<li>${unnamed} more ${unnamed === 1 ? 'file' : 'files'} (named in the maintenance worker’s log)</li>` : null;
  const fix = count === 1 ? 'fix or remove it; its content is not searchable' : 'fix or remove them; their content is not searchable';
  return html`the last manual reindex skipped ${filesCount(count)}: ${fix}<ul>${items}${rest}</ul>`;
}

function filesCount(n: number): string {
  return n === 1 ? '1 file' : `${n} files`;
}
