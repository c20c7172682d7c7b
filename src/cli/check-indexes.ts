/**
 * `npm run check`'s lines about the search indexes: how many entries each holds and, with the embedded engines,
 * whether the index this machine serves is the last build recorded in Redis, judged as the agent worker judges it
 * (`src/search/index-freshness.ts`). An index that is not would keep this machine's agent worker from taking tickets
 * (after a reindex that could not record its build, or a build on another machine), so check fails it with the fix;
 * so it does when there is no index here at all, which keeps the worker from taking tickets too, and when MANUALS_DIR
 * or QA_DIR names no folder the reindex can read ({@link knowledgeFolderProblem}) for an embedded index (for one on
 * Meilisearch or Qdrant, which another machine may build, that is a warning: {@link withSourceFolder}).
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { maskedServerUrl, withoutSecrets } from '../agent/model-errors.js';
import type { Config } from '../config.js';
import { connectProducer } from '../queues/connection.js';
import { createSearchBackends } from '../search/factory.js';
import { readIndexBuilds, type IndexBuild, type IndexName } from '../search/index-builds.js';
import { blocksTickets, describeIndexProblem, describeIndexProblems, judgeIndex, noIndexYet } from '../search/index-freshness.js';
import type { ManualSearch, QaSearch } from '../search/types.js';
import type { CheckOutcome } from './check.js';
import { oneLine, withTimeout } from './check-diagnosis.js';
import { closeAll, noIndexMessage } from './common.js';

const LABEL = { manual: 'manual', qa: 'Q&A' } as const satisfies Record<IndexName, string>;

/** The last recorded build of each index. */
type RecordedBuilds = Partial<Record<IndexName, IndexBuild>>;

/** The words of the index problem as this machine's agent worker would have it, for the admin at this machine. */
const HERE = { who: 'an agent worker here', where: 'this machine', when: (at: number) => `built ${new Date(at).toISOString()}` };

/**
 * The last recorded builds, or why they could not be read. Only for the embedded engines: a server backend's index
 * is shared, and no worker compares it.
 */
async function recordedBuilds(config: Config): Promise<RecordedBuilds | Error> {
  try {
    const redis = await connectProducer(config.REDIS_URL, { name: `${config.QUEUE_PREFIX}:cli-check`, giveUpOnError: true, timeoutMs: 3_000 });
    try {
      return await withTimeout(readIndexBuilds(redis, config.QUEUE_PREFIX), 'Redis');
    } finally {
      redis.disconnect();
    }
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/**
 * The line of one index: its entries, then what its agent worker would make of it. An index that would keep the
 * worker from taking tickets fails, with the fix; one that could not be compared because Redis could not be read is a
 * warning (the Redis line says why it failed).
 */
async function checkIndex(
  index: IndexName,
  what: string,
  where: string,
  search: ManualSearch | QaSearch,
  builds: () => Promise<RecordedBuilds | Error>,
): Promise<CheckOutcome> {
  let entries: number;
  try {
    entries = await withTimeout(search.count(), where);
  } catch (err) {
    return { what, where, status: 'failed', detail: oneLine(err) };
  }
  const served = search.served ? await search.served() : undefined;
  const recorded = served ? await builds() : undefined;
  if (recorded instanceof Error) {
    const detail = entries > 0 ? `${entries} entries` : noIndexMessage(LABEL[index]);
    return { what, where, status: 'warning', detail: `${detail}; not compared with the last recorded build (Redis unavailable: ${oneLine(recorded)})` };
  }
  const verdict = judgeIndex(search.kind, served, recorded?.[index]);
  if (blocksTickets(verdict)) {
    return { what, where, status: 'failed', detail: `${entries} entries; ${describeIndexProblem(index, verdict, HERE)}` };
  }
  if (entries === 0) return { what, where, status: 'warning', detail: noIndexMessage(LABEL[index]) };
  return { what, where, status: 'ok', detail: verdict.state === 'current' ? `${entries} entries, the last recorded build` : `${entries} entries` };
}

/**
 * The sentence `/readyz` gives when this machine has neither index and no build of either is recorded
 * ({@link noIndexYet}): its agent worker then takes no tickets. Judged as the worker judges it, also when the recorded
 * builds cannot be read (it compares with none then); undefined otherwise.
 */
async function noIndexHere(search: { manual: ManualSearch; qa: QaSearch }, builds: () => Promise<RecordedBuilds | Error>): Promise<string | undefined> {
  if (!search.manual.served || !search.qa.served) return undefined;
  const [manual, qa] = await Promise.all([search.manual.served(), search.qa.served()]);
  if (manual.present || qa.present) return undefined;
  const read = await builds();
  const recorded = read instanceof Error ? {} : read;
  const verdicts = { manual: judgeIndex(search.manual.kind, manual, recorded.manual), qa: judgeIndex(search.qa.kind, qa, recorded.qa) };
  return noIndexYet(verdicts) ? describeIndexProblems(verdicts, HERE)[0] : undefined;
}

/**
 * `text` without the secrets of the search servers' URLs (user, password, query values): an adapter's error repeats
 * the URL it was given whole ("Meilisearch at https://user:pass@host is unreachable"). The model server's masking
 * rules are those of any URL, so each search server's URL takes the place of OPENAI_BASE_URL there.
 */
function withoutSearchSecrets(text: string, config: Pick<Config, 'MEILI_HOST' | 'QDRANT_URL'>): string {
  return [config.MEILI_HOST, config.QDRANT_URL].reduce<string>((masked, url) => withoutSecrets(masked, { OPENAI_BASE_URL: url }), text);
}

/** The folder each index is rebuilt from. */
const FOLDER_OF = { manual: 'MANUALS_DIR', qa: 'QA_DIR' } as const satisfies Record<IndexName, keyof Config>;

/** Of each folder: the schedule that rebuilds its index, and what it should hold. */
const FOLDERS = {
  MANUALS_DIR: { cron: 'REINDEX_MANUAL_CRON', files: 'the manual files' },
  QA_DIR: { cron: 'REINDEX_QA_CRON', files: 'the Q&A files' },
} as const satisfies Record<(typeof FOLDER_OF)[IndexName], { cron: keyof Config; files: string }>;

/**
 * Why the reindex cannot read the folder `dir` (MANUALS_DIR or QA_DIR, resolved from the working directory as the
 * reindex resolves it), with the fix; undefined when it is a folder that can be listed. `npm run reindex` exits 1 on
 * such a folder and the scheduled reindex fails (src/knowledge/files.ts refuses it: a missing folder must never look
 * like an empty knowledge base), while the index built before keeps answering, so nothing else shows it. `cron` is the
 * index's schedule, empty when none.
 */
export async function knowledgeFolderProblem(variable: keyof typeof FOLDERS, dir: string, cron: string): Promise<string | undefined> {
  const abs = path.resolve(dir);
  let reason: string | undefined;
  try {
    const info = await stat(abs);
    if (info.isDirectory()) await readdir(abs);
    else reason = 'is not a directory';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    reason = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? oneLine(err)})`;
  }
  if (reason === undefined) return undefined;
  const folder = FOLDERS[variable];
  const scheduled = cron ? `, and so does the scheduled reindex (${folder.cron} ${cron})` : '';
  return `${variable} ${abs} ${reason}: npm run reindex fails${scheduled}; set ${variable} to the folder of ${folder.files}`;
}

/** The setting that puts each index on a search server rather than the embedded engine under DATA_DIR. */
const SERVER_OF = { manual: 'MEILI_HOST', qa: 'QDRANT_URL' } as const satisfies Record<IndexName, keyof Config>;

/**
 * `outcome`, an index's line, with the folder it is rebuilt from when that folder cannot be read. With the embedded
 * engine the line fails, not warns: this machine's own reindex keeps its index current, and the command and the
 * scheduled job fail (exit 1), though the index here may still answer; what the line said of the index follows. With
 * a search server (MEILI_HOST, QDRANT_URL) the index is shared and may be built on another machine: an agent-only
 * machine never reindexes and has no such folder, so the folder is a warning for the case that this machine runs the
 * reindex, after what the line said (bug review 45e #6).
 */
export async function withSourceFolder(
  index: IndexName,
  outcome: CheckOutcome,
  config: Pick<Config, (typeof FOLDER_OF)[IndexName] | (typeof FOLDERS)[keyof typeof FOLDERS]['cron'] | (typeof SERVER_OF)[IndexName]>,
): Promise<CheckOutcome> {
  const variable = FOLDER_OF[index];
  const problem = await knowledgeFolderProblem(variable, config[variable], config[FOLDERS[variable].cron]);
  if (problem === undefined) return outcome;
  if (!config[SERVER_OF[index]]) return { ...outcome, status: 'failed', detail: outcome.detail ? `${problem}; the index here: ${outcome.detail}` : problem };
  const elsewhere = `if this machine runs the reindex: ${problem}`;
  const status = outcome.status === 'failed' ? 'failed' : 'warning';
  return { ...outcome, status, detail: outcome.detail ? `${outcome.detail}; ${elsewhere}` : elsewhere };
}

/** One line per index, manual first, with no secret of the search servers' URLs in it. */
export async function checkIndexes(config: Config): Promise<CheckOutcome[]> {
  const [manual, qa] = await checkEachIndex(config);
  const outcomes = await Promise.all([withSourceFolder('manual', manual, config), withSourceFolder('qa', qa, config)]);
  return outcomes.map((o) => (o.detail === undefined ? o : { ...o, detail: withoutSearchSecrets(o.detail, config) }));
}

async function checkEachIndex(config: Config): Promise<[manual: CheckOutcome, qa: CheckOutcome]> {
  const backends = createSearchBackends(config);
  // Read once for both indexes, and only when an embedded engine asks for it.
  let read: Promise<RecordedBuilds | Error> | undefined;
  const builds = () => (read ??= recordedBuilds(config));
  // Masked as the model server's URL is (config has checked that both are URLs).
  const manualWhere = config.MEILI_HOST ? `Meilisearch ${maskedServerUrl(config.MEILI_HOST)} ${config.MEILI_INDEX}` : `embedded, ${config.DATA_DIR}`;
  const qaWhere = config.QDRANT_URL ? `Qdrant ${maskedServerUrl(config.QDRANT_URL)} ${config.QDRANT_COLLECTION}` : `embedded, ${config.DATA_DIR}`;
  try {
    // Both lines fail alike: either index built would let the worker answer.
    const none = await noIndexHere(backends, builds);
    if (none !== undefined) {
      return [
        { what: 'Manual search', where: manualWhere, status: 'failed', detail: none },
        { what: 'Q&A search', where: qaWhere, status: 'failed', detail: none },
      ];
    }
    return await Promise.all([checkIndex('manual', 'Manual search', manualWhere, backends.manual, builds), checkIndex('qa', 'Q&A search', qaWhere, backends.qa, builds)]);
  } finally {
    await closeAll(backends.manual, backends.qa);
  }
}
