/**
 * Retrieval evaluation on anyone's data: a manual directory or a Q&A CSV, with a TSV of labelled queries, measured
 * for the configured backend (embedded, or Meilisearch / Qdrant when MEILI_HOST / QDRANT_URL are set) and for two
 * BM25 baselines built on the same chunks or pairs in the same run: raw character bigrams, and character unigrams +
 * bigrams of the NFKC, lower-cased text (the fair one; see {@link uniBigramTerms}), each with ours' paired
 * better / worse count.
 *
 * The chunks and pairs come from the product's own loaders with the configured CHUNK_SIZE / CHUNK_OVERLAP, so the
 * figures describe what the agent would see. The backend is built in a temporary DATA_DIR (embedded) or under an
 * index / collection name with an `_eval` suffix (servers), never over the live index.
 *
 * Query files are tab-separated with a header row:
 * - manual: `query`, `relevant_file` (a path relative to the manual directory), optionally `paragraph_index` (the
 *   1-based section of that file, counted in file order) or `relevant_section` (text of its heading path). With a
 *   section, a hit counts "by section" when the returned chunk lies in that section, and "by file" when it comes from
 *   that file.
 * - Q&A: `query`, `relevant_rows` (1-based data rows of the CSV, space-separated).
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Config } from '../config.js';
import { loadManualChunks } from '../knowledge/manual-loader.js';
import { loadQaPairs, parseQaCsv } from '../knowledge/qa-loader.js';
import { buildBaseline, formatPaired, pairedCounts, uniBigramTerms, type PairedCounts } from './evaluate.js';
import { createSearchBackends } from './factory.js';
import { formatQaPair, type ManualChunk, type QaPair } from './types.js';

/** hit@k and MRR@10 of one engine on one query set. */
export interface RankMetrics {
  queries: number;
  hitAt1: number;
  hitAt3: number;
  hitAt10: number;
  mrrAt10: number;
}

/** One line of the report: an engine scored one way on one task. */
export interface DatasetResult {
  task: string;
  engine: string;
  metrics: RankMetrics;
  /** On a baseline's line: the configured backend against this baseline, query by query. */
  oursVersus?: PairedCounts;
}

/** Engine names of the two baselines in {@link DatasetResult.engine}. */
export const BIGRAM_BASELINE = 'bigram BM25';
export const UNI_BIGRAM_BASELINE = 'uni+bigram BM25';

type Ranks = (number | undefined)[];

/** The lines of one task: ours, then each baseline with ours' paired counts against it. */
function taskResults(task: string, engine: string, ours: Ranks, bigram: Ranks, uniBigram: Ranks): DatasetResult[] {
  return [
    { task, engine, metrics: rankMetrics(ours) },
    { task, engine: BIGRAM_BASELINE, metrics: rankMetrics(bigram), oursVersus: pairedCounts(ours, bigram) },
    { task, engine: UNI_BIGRAM_BASELINE, metrics: rankMetrics(uniBigram), oursVersus: pairedCounts(ours, uniBigram) },
  ];
}

const CUTOFF = 10;

/** Metrics of 1-based ranks of the first relevant result (undefined = none in the top 10). */
export function rankMetrics(ranks: readonly (number | undefined)[]): RankMetrics {
  const n = ranks.length;
  const share = (k: number) => (n === 0 ? 0 : ranks.filter((r) => r !== undefined && r <= k).length / n);
  const mrr = n === 0 ? 0 : ranks.reduce<number>((s, r) => s + (r === undefined || r > CUTOFF ? 0 : 1 / r), 0) / n;
  return { queries: n, hitAt1: share(1), hitAt3: share(3), hitAt10: share(10), mrrAt10: mrr };
}

/** The 1-based rank of the first item that `isRelevant` accepts within the top 10. */
export function firstRelevantRank<T>(ranked: readonly T[], isRelevant: (x: T) => boolean): number | undefined {
  const i = ranked.slice(0, CUTOFF).findIndex(isRelevant);
  return i < 0 ? undefined : i + 1;
}

/** Rows of a TSV with a header row, as objects keyed by column name; `limit` keeps the first rows. */
export function parseTsv(text: string, required: readonly string[], limit?: number): Record<string, string>[] {
  const lines = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n').filter((l) => l.trim() !== '');
  const header = (lines.shift() ?? '').split('\t').map((h) => h.trim());
  const missing = required.filter((c) => !header.includes(c));
  if (missing.length > 0) throw new Error(`query file lacks the column(s) ${missing.join(', ')} (has: ${header.join(', ')})`);
  const rows = lines.map((line) => {
    const cells = line.split('\t');
    return Object.fromEntries(header.map((h, i) => [h, (cells[i] ?? '').trim()]));
  });
  return limit === undefined ? rows : rows.slice(0, limit);
}

/** Which section of its file each chunk lies in: the 1-based order of distinct heading paths in the file. */
export function sectionNumbers(chunks: readonly ManualChunk[]): number[] {
  const seen = new Map<string, Map<string, number>>();
  return chunks.map((c) => {
    let headings = seen.get(c.fileName);
    if (!headings) seen.set(c.fileName, (headings = new Map()));
    let n = headings.get(c.heading);
    if (n === undefined) headings.set(c.heading, (n = headings.size + 1));
    return n;
  });
}

/** Settings the evaluation takes from configuration, with the live index names replaced. */
function evalConfig(config: Config, dataDir: string): Config {
  return {
    ...config,
    DATA_DIR: dataDir,
    MEILI_INDEX: `${config.MEILI_INDEX}_eval`,
    QDRANT_COLLECTION: `${config.QDRANT_COLLECTION}_eval`,
  };
}

/** Inputs of {@link evaluateManualDataset}. */
export interface ManualDatasetInput {
  dir: string;
  queriesTsv: string;
  limit?: number;
}

/** Scores the configured manual backend and the two baselines on a manual directory, by section and by file. */
export async function evaluateManualDataset(config: Config, input: ManualDatasetInput): Promise<DatasetResult[]> {
  const rows = parseTsv(input.queriesTsv, ['query', 'relevant_file'], input.limit);
  const { chunks } = await loadManualChunks(input.dir, { chunkSize: config.CHUNK_SIZE, chunkOverlap: config.CHUNK_OVERLAP });
  const section = sectionNumbers(chunks);
  const byId = new Map(chunks.map((c, i) => [c.id, i]));
  const work = await mkdtemp(path.join(tmpdir(), 'helpdesk-eval-'));
  const backends = createSearchBackends(evalConfig(config, work));
  try {
    await backends.manual.replaceAll(chunks);
    const texts = chunks.map((c) => `${c.heading}\n${c.content}`);
    const baseline = buildBaseline(texts);
    const uniBigram = buildBaseline(texts, uniBigramTerms);
    const ranks = { oursFile: [] as Ranks, oursSection: [] as Ranks, baseFile: [] as Ranks, baseSection: [] as Ranks, uniFile: [] as Ranks, uniSection: [] as Ranks };
    let withSection = 0;
    for (const row of rows) {
      const file = row.relevant_file!;
      const paragraph = row.paragraph_index ? Number(row.paragraph_index) : undefined;
      const heading = row.relevant_section || undefined;
      const hasSection = paragraph !== undefined || heading !== undefined;
      if (hasSection) withSection++;
      const inSection = (i: number) =>
        chunks[i]!.fileName === file && (paragraph === undefined || section[i] === paragraph) && (heading === undefined || chunks[i]!.heading.includes(heading));
      const inFile = (i: number) => chunks[i]!.fileName === file;
      const ours = (await backends.manual.search(row.query!, CUTOFF)).map((h) => byId.get(h.id) ?? -1);
      const base = baseline.search(row.query!, CUTOFF);
      const uni = uniBigram.search(row.query!, CUTOFF);
      const valid = (f: (i: number) => boolean) => (i: number) => i >= 0 && f(i);
      ranks.oursFile.push(firstRelevantRank(ours, valid(inFile)));
      ranks.baseFile.push(firstRelevantRank(base, inFile));
      ranks.uniFile.push(firstRelevantRank(uni, inFile));
      if (hasSection) {
        ranks.oursSection.push(firstRelevantRank(ours, valid(inSection)));
        ranks.baseSection.push(firstRelevantRank(base, inSection));
        ranks.uniSection.push(firstRelevantRank(uni, inSection));
      }
    }
    const engine = backends.manual.kind;
    return [
      ...(withSection > 0 ? taskResults('manual by section', engine, ranks.oursSection, ranks.baseSection, ranks.uniSection) : []),
      ...taskResults('manual by file', engine, ranks.oursFile, ranks.baseFile, ranks.uniFile),
    ];
  } finally {
    await backends.manual.close?.();
    await rm(work, { recursive: true, force: true });
  }
}

/** Inputs of {@link evaluateQaDataset}. */
export interface QaDatasetInput {
  /** A CSV file, or a directory holding exactly one. */
  csv: string;
  queriesTsv: string;
  limit?: number;
}

async function readQaPairs(csv: string): Promise<QaPair[]> {
  if ((await stat(csv)).isDirectory()) {
    const { pairs, files } = await loadQaPairs(csv);
    if (files.length > 1) throw new Error(`${csv} holds ${files.length} CSV files; relevant_rows would be ambiguous: give --csv FILE`);
    return pairs;
  }
  return parseQaCsv(await readFile(csv, 'utf8'), path.basename(csv), { file: csv }).pairs;
}

/** Scores the configured Q&A backend and the two baselines on a Q&A CSV. */
export async function evaluateQaDataset(config: Config, input: QaDatasetInput): Promise<DatasetResult[]> {
  const rows = parseTsv(input.queriesTsv, ['query', 'relevant_rows'], input.limit);
  const pairs = await readQaPairs(input.csv);
  const rowById = new Map(pairs.map((p) => [p.id, p.row]));
  const work = await mkdtemp(path.join(tmpdir(), 'helpdesk-eval-'));
  const backends = createSearchBackends(evalConfig(config, work));
  try {
    await backends.qa.replaceAll(pairs);
    const texts = pairs.map((p) => formatQaPair(p));
    const baseline = buildBaseline(texts);
    const uniBigram = buildBaseline(texts, uniBigramTerms);
    const ours: Ranks = [];
    const base: Ranks = [];
    const uni: Ranks = [];
    for (const row of rows) {
      const relevant = new Set(row.relevant_rows!.split(/\s+/).filter(Boolean).map(Number));
      const isRelevant = (i: number) => relevant.has(pairs[i]!.row);
      ours.push(firstRelevantRank((await backends.qa.search(row.query!, CUTOFF)).map((h) => rowById.get(h.id)), (r) => r !== undefined && relevant.has(r)));
      base.push(firstRelevantRank(baseline.search(row.query!, CUTOFF), isRelevant));
      uni.push(firstRelevantRank(uniBigram.search(row.query!, CUTOFF), isRelevant));
    }
    const task = `Q&A (${path.basename(path.dirname(path.resolve(input.csv)))}/${path.basename(input.csv)})`;
    return taskResults(task, `${backends.qa.kind} (${backends.embedder.id})`, ours, base, uni);
  } finally {
    await backends.qa.close?.();
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * The results as a fixed-width table, then ours against each baseline query by query (better / worse by reciprocal
 * rank, exact sign test): the averages alone hide whether a difference is more than noise.
 */
export function formatDatasetResults(results: readonly DatasetResult[]): string {
  const num = (x: number) => x.toFixed(3).padStart(7);
  const taskWidth = Math.max(4, ...results.map((r) => r.task.length));
  const engineWidth = Math.max(6, ...results.map((r) => r.engine.length));
  const header = `${'task'.padEnd(taskWidth)}  ${'engine'.padEnd(engineWidth)}  ${'n'.padStart(5)}  ${'hit@1'.padStart(7)}${'hit@3'.padStart(7)}${'hit@10'.padStart(7)}${'MRR@10'.padStart(7)}`;
  const paired = results.flatMap((r) => (r.oursVersus ? [`  ${r.task.padEnd(taskWidth)}  vs ${r.engine.padEnd(engineWidth)}  ${formatPaired(r.oursVersus)}`] : []));
  return [
    header,
    ...results.map(
      (r) =>
        `${r.task.padEnd(taskWidth)}  ${r.engine.padEnd(engineWidth)}  ${String(r.metrics.queries).padStart(5)}  ${num(r.metrics.hitAt1)}${num(r.metrics.hitAt3)}${num(r.metrics.hitAt10)}${num(r.metrics.mrrAt10)}`,
    ),
    ...(paired.length > 0 ? ['', 'ours query by query (reciprocal rank; sign test):', ...paired] : []),
  ].join('\n');
}
