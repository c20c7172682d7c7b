/**
 * Retrieval evaluation of the embedded engines against a deliberately plain baseline, over the same chunks and pairs.
 *
 * - Baseline: BM25 over raw character bigrams of the text (no NFKC, no case folding, no word tokens, no heading
 *   weighting), queried with the OR of the query's bigrams — what a naive CJK index does.
 * - Fair baseline: BM25 over character unigrams and bigrams of the NFKC, lower-cased text ({@link uniBigramTerms}).
 *   The raw-bigram baseline is easy to beat; on JSQuAD this one tied or beat the product before the tokenizer
 *   weighed numbers and Latin words like Japanese words, so ours is also compared with it query by query
 *   ({@link PairedCounts}).
 * - Ours: {@link EmbeddedManualSearch} and {@link EmbeddedQaSearch} exactly as the product runs them (temp dirs),
 *   the Q&A side with the given embedder (the local {@link HashedNgramEmbedder} unless told otherwise).
 *
 * Metrics: hit@3 (a relevant result among the first three, which is what the agent sees) and MRR@10.
 * The chunks come from a local Markdown split (not the product's loader) so this module depends only on search/.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';
import { Bm25Builder, type Bm25Index } from './bm25.js';
import { EmbeddedManualSearch } from './embedded-manual.js';
import { EmbeddedQaSearch } from './embedded-qa.js';
import { HashedNgramEmbedder } from './embeddings.js';
import { formatQaPair, type Embedder, type ManualChunk, type QaPair } from './types.js';

/** One manual query of the eval set: relevant hits have `expectHeading` in their heading path. */
export interface ManualEvalCase {
  query: string;
  kind: 'keyword' | 'natural';
  expectHeading: string;
}

/** One Q&A query of the eval set: the relevant pair is data row `expectRow` (1-based, header excluded). */
export interface QaEvalCase {
  query: string;
  expectRow: number;
}

/** Scores of one engine on one query set. */
export interface Metrics {
  queries: number;
  /** Share of queries with a relevant result in the top 3. */
  hitAt3: number;
  /** Mean reciprocal rank of the first relevant result within the top 10 (0 when none). */
  mrrAt10: number;
}

/**
 * Ours against one baseline query by query: on how many queries ours ranks the first relevant result higher
 * (better) or lower (worse) than the baseline (reciprocal rank within the top 10), and the exact two-sided sign
 * test of those counts (ties left out). A difference of a few tenths of a percent is noise unless p is small.
 */
export interface PairedCounts {
  better: number;
  worse: number;
  /** Two-sided p-value of the sign test; 1 when no query differs. */
  signP: number;
}

/** Baselines and ours on one query set, plus the queries ours missed in the top 3 (for tuning). */
export interface Comparison {
  /** The raw-bigram baseline. */
  baseline: Metrics;
  /** The unigram + bigram baseline ({@link uniBigramTerms}). */
  uniBigram: Metrics;
  ours: Metrics;
  /** Ours against {@link uniBigram}, query by query. */
  versusUniBigram: PairedCounts;
  oursMissedAt3: string[];
}

/** The whole evaluation. */
export interface EvaluationReport {
  manual: { keyword: Comparison; natural: Comparison; all: Comparison; chunks: number };
  qa: (Comparison & { pairs: number; embedder: string }) | undefined;
}

/** Inputs of {@link runEvaluation}. */
export interface EvaluationInput {
  manualMarkdown: string;
  manualFileName: string;
  manualCases: ManualEvalCase[];
  qaCsv?: string;
  qaFileName?: string;
  qaCases?: QaEvalCase[];
  /** Embedder of the Q&A engine; default the local hashed embedder with 1536 dimensions. */
  embedder?: Embedder;
  /** Characters per manual chunk of the local split (the product default CHUNK_SIZE). */
  chunkSize?: number;
}

const CUTOFF = 10;

/** Runs baseline and ours over the eval sets and returns the metrics. Uses (and removes) temp directories. */
export async function runEvaluation(input: EvaluationInput): Promise<EvaluationReport> {
  const chunks = splitMarkdownChunks(input.manualMarkdown, input.manualFileName, input.chunkSize ?? 300);
  const work = await mkdtemp(path.join(tmpdir(), 'helpdesk-eval-'));
  try {
    const manual = new EmbeddedManualSearch({ dir: path.join(work, 'manual') });
    await manual.replaceAll(chunks);
    const manualTexts = chunks.map((c) => `${c.heading}\n${c.content}`);
    const baseline = buildBaseline(manualTexts);
    const uniBigram = buildBaseline(manualTexts, uniBigramTerms);
    const relevantManual = (heading: string | undefined, c: ManualEvalCase) => (heading ?? '').includes(c.expectHeading);
    const compareManual = async (cases: ManualEvalCase[]): Promise<Comparison> => {
      const base: (number | undefined)[] = [];
      const uni: (number | undefined)[] = [];
      const ours: (number | undefined)[] = [];
      const missed: string[] = [];
      for (const c of cases) {
        base.push(firstRelevant(baseline.search(c.query, CUTOFF).map((d) => chunks[d]!.heading), (h) => relevantManual(h, c)));
        uni.push(firstRelevant(uniBigram.search(c.query, CUTOFF).map((d) => chunks[d]!.heading), (h) => relevantManual(h, c)));
        const rank = firstRelevant((await manual.search(c.query, CUTOFF)).map((h) => h.heading), (h) => relevantManual(h, c));
        ours.push(rank);
        if (rank === undefined || rank > 3) missed.push(`${c.query} → ${c.expectHeading} (rank ${rank ?? '-'})`);
      }
      return comparison(base, uni, ours, missed);
    };
    const keyword = await compareManual(input.manualCases.filter((c) => c.kind === 'keyword'));
    const natural = await compareManual(input.manualCases.filter((c) => c.kind === 'natural'));
    const all = await compareManual(input.manualCases);

    let qa: EvaluationReport['qa'];
    if (input.qaCsv !== undefined && input.qaCases) {
      const pairs = parseQaPairs(input.qaCsv, input.qaFileName ?? 'qa.csv');
      const embedder = input.embedder ?? new HashedNgramEmbedder({ dimensions: 1536 });
      const engine = new EmbeddedQaSearch({ dir: path.join(work, 'qa'), embedder });
      await engine.replaceAll(pairs);
      const qaTexts = pairs.map((p) => formatQaPair(p));
      const qaBaseline = buildBaseline(qaTexts);
      const qaUniBigram = buildBaseline(qaTexts, uniBigramTerms);
      const rowById = new Map(pairs.map((p) => [p.id, p.row]));
      const base: (number | undefined)[] = [];
      const uni: (number | undefined)[] = [];
      const ours: (number | undefined)[] = [];
      const missed: string[] = [];
      for (const c of input.qaCases) {
        base.push(firstRelevant(qaBaseline.search(c.query, CUTOFF).map((d) => pairs[d]!.row), (row) => row === c.expectRow));
        uni.push(firstRelevant(qaUniBigram.search(c.query, CUTOFF).map((d) => pairs[d]!.row), (row) => row === c.expectRow));
        const rank = firstRelevant((await engine.search(c.query, CUTOFF)).map((h) => rowById.get(h.id)), (row) => row === c.expectRow);
        ours.push(rank);
        if (rank === undefined || rank > 3) missed.push(`${c.query} → row ${c.expectRow} (rank ${rank ?? '-'})`);
      }
      qa = { ...comparison(base, uni, ours, missed), pairs: pairs.length, embedder: embedder.id };
    }
    return { manual: { keyword, natural, all, chunks: chunks.length }, qa };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function comparison(base: (number | undefined)[], uni: (number | undefined)[], ours: (number | undefined)[], missed: string[]): Comparison {
  return { baseline: metrics(base), uniBigram: metrics(uni), ours: metrics(ours), versusUniBigram: pairedCounts(ours, uni), oursMissedAt3: missed };
}

function firstRelevant<T>(ranked: T[], isRelevant: (x: T) => boolean): number | undefined {
  const i = ranked.slice(0, CUTOFF).findIndex(isRelevant);
  return i < 0 ? undefined : i + 1;
}

function metrics(ranks: (number | undefined)[]): Metrics {
  const n = ranks.length;
  if (n === 0) return { queries: 0, hitAt3: 0, mrrAt10: 0 };
  const hits = ranks.filter((r) => r !== undefined && r <= 3).length;
  const rr = ranks.reduce<number>((s, r) => s + (r === undefined ? 0 : 1 / r), 0);
  return { queries: n, hitAt3: hits / n, mrrAt10: rr / n };
}

/** Raw character bigrams of each whitespace-separated segment (a one-character segment stays a unigram). */
export function baselineTerms(text: string): string[] {
  const out: string[] = [];
  for (const segment of text.split(/\s+/)) {
    const chars = Array.from(segment);
    if (chars.length === 1) out.push(chars[0]!);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  }
  return out;
}

/** Prefix of the unigram terms of {@link uniBigramTerms}, so the unigram `a` and a bigram never share a term. */
const UNI_PREFIX = '\u0001';

/**
 * Terms of the fair baseline: the text in NFKC and lower case with whitespace removed, each character as a
 * (prefixed) unigram and each pair of neighbours as a bigram, punctuation included. No dictionary, no weights.
 */
export function uniBigramTerms(text: string): string[] {
  const chars = Array.from(text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ''));
  const out = chars.map((c) => UNI_PREFIX + c);
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  return out;
}

/** A baseline engine: BM25 (k1 1.2, b 0.75) over `terms` (default {@link baselineTerms}), OR query. */
export function buildBaseline(docs: string[], terms: (text: string) => string[] = baselineTerms): { index: Bm25Index; search(query: string, k: number): number[] } {
  const builder = new Bm25Builder();
  for (const d of docs) {
    const tf = new Map<string, number>();
    for (const t of terms(d)) tf.set(t, (tf.get(t) ?? 0) + 1);
    builder.add(tf);
  }
  const index = builder.build();
  return { index, search: (query, k) => index.search(terms(query), k).map((r) => r.doc) };
}

/** Ours against a baseline query by query (1-based ranks of the first relevant result; undefined = not in the top 10). */
export function pairedCounts(ours: readonly (number | undefined)[], baseline: readonly (number | undefined)[]): PairedCounts {
  const rr = (r: number | undefined) => (r === undefined || r > CUTOFF ? 0 : 1 / r);
  let better = 0;
  let worse = 0;
  ours.forEach((r, i) => {
    const diff = rr(r) - rr(baseline[i]);
    if (diff > 0) better++;
    else if (diff < 0) worse++;
  });
  return { better, worse, signP: signTestP(better, worse) };
}

/** Exact two-sided sign test: P(a split at least this uneven) of `a + b` fair coin flips. Summed in log space. */
export function signTestP(a: number, b: number): number {
  const n = a + b;
  if (n === 0) return 1;
  const k = Math.min(a, b);
  let logTerm = -n * Math.LN2; // log of C(n, 0) / 2^n
  let tail = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logTerm);
  }
  return Math.min(1, 2 * tail);
}

/**
 * The level and title of an ATX heading line of levels 1–3 (`## Title ##`), or undefined: what
 * `/^\s{0,3}(#{1,3})[ \t]+(.*?)[ \t]*#*[ \t]*$/` reads, the title trimmed. The prefix is still that pattern's; the
 * closing `#`s and blanks are cut off the end in code, as the lazy title with three optional parts after it tried every
 * split of a run of tabs (security review 15: a heading of 2 x 1,000 tabs took over a second, growing with the fourth
 * power).
 */
function markdownHeading(line: string): { level: number; title: string } | undefined {
  const open = /^\s{0,3}(#{1,3})[ \t]+/.exec(line);
  // `.` stops at a line terminator and `$` is the end: the old pattern matched no line holding one after the marks.
  if (!open?.[1] || /[\n\r\u2028\u2029]/.test(line.slice(open[0].length))) return undefined;
  let end = line.length;
  const back = (chars: string) => {
    while (end > open[0].length && chars.includes(line.charAt(end - 1))) end--;
  };
  back(' \t');
  back('#');
  back(' \t');
  return { level: open[1].length, title: line.slice(open[0].length, end).trim() };
}

/**
 * Splits Markdown by its `#`–`###` headings into sections (heading path joined by ` > `, as the product's loader
 * does) and each section into chunks of about `size` characters at line boundaries (a longer line is cut).
 */
export function splitMarkdownChunks(markdown: string, fileName: string, size = 300): ManualChunk[] {
  const chunks: ManualChunk[] = [];
  const headingPath: string[] = [];
  let lines: string[] = [];
  const flush = () => {
    const heading = headingPath.filter(Boolean).join(' > ');
    let current = '';
    const push = () => {
      const content = current.trim();
      if (content) chunks.push({ id: `${fileName}#${chunks.length + 1}`, fileName, heading, content });
      current = '';
    };
    for (const line of lines) {
      let rest = line;
      while (rest.length > size) {
        push();
        current = rest.slice(0, size);
        push();
        rest = rest.slice(size);
      }
      if (current.length + rest.length + 1 > size) push();
      current += (current ? '\n' : '') + rest;
    }
    push();
    lines = [];
  };
  let inFence = false;
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s{0,3}(```|~~~)/.test(line)) inFence = !inFence;
    const heading = inFence ? undefined : markdownHeading(line);
    if (heading) {
      flush();
      headingPath.length = heading.level - 1;
      headingPath[heading.level - 1] = heading.title;
      continue;
    }
    lines.push(line);
  }
  flush();
  return chunks;
}

/** Q&A pairs of a CSV text (header row; question, answer), rows numbered as the product's loader does. */
export function parseQaPairs(csv: string, fileName: string): QaPair[] {
  const records = parse(csv, { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
  const pairs: QaPair[] = [];
  records.slice(1).forEach((record, index) => {
    const question = (record[0] ?? '').trim();
    const answer = (record[1] ?? '').trim();
    if (question && answer) pairs.push({ id: `${fileName}#${index + 1}`, fileName, row: index + 1, question, answer });
  });
  return pairs;
}

/** Reads the eval inputs from files (paths relative to `cwd`); the Q&A side is skipped when its files are absent. */
export async function loadEvaluationInput(
  paths: { manual: string; manualEval: string; qa: string; qaEval: string },
  cwd = process.cwd(),
): Promise<EvaluationInput> {
  const read = (p: string) => readFile(path.resolve(cwd, p), 'utf8');
  const optional = (p: string) => read(p).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)));
  const [manualMarkdown, manualEval, qaCsv, qaEval] = await Promise.all([read(paths.manual), read(paths.manualEval), optional(paths.qa), optional(paths.qaEval)]);
  return {
    manualMarkdown,
    manualFileName: path.basename(paths.manual),
    manualCases: JSON.parse(manualEval) as ManualEvalCase[],
    qaCsv,
    qaFileName: path.basename(paths.qa),
    qaCases: qaEval === undefined ? undefined : (JSON.parse(qaEval) as QaEvalCase[]),
  };
}

/** `better 12 / worse 3 (p 0.035)`: a {@link PairedCounts} in one cell. */
export function formatPaired(p: PairedCounts): string {
  return `better ${p.better} / worse ${p.worse} (p ${p.signP < 0.001 ? '<0.001' : p.signP.toFixed(3)})`;
}

/** The report as a fixed-width table: hit@3 and MRR@10 of the bigram baseline, the uni+bigram baseline and ours. */
export function formatReport(report: EvaluationReport): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);
  const num = (x: number) => x.toFixed(3).padStart(7);
  const row = (name: string, c: Comparison) =>
    `${name.padEnd(16)} ${String(c.ours.queries).padStart(4)}  ${pct(c.baseline.hitAt3)} ${pct(c.uniBigram.hitAt3)} ${pct(c.ours.hitAt3)}  ${num(c.baseline.mrrAt10)} ${num(c.uniBigram.mrrAt10)} ${num(c.ours.mrrAt10)}  ${formatPaired(c.versusUniBigram)}`;
  const engines = `${'bigram'.padStart(7)} ${'uni+bi'.padStart(7)} ${'ours'.padStart(7)}`;
  const lines = [
    `${''.padEnd(21)}  ${'hit@3'.padEnd(23)}  ${'MRR@10'.padEnd(23)}`,
    `${'set'.padEnd(16)} ${'n'.padStart(4)}  ${engines}  ${engines}  ours vs uni+bigram, query by query`,
    row('manual keyword', report.manual.keyword),
    row('manual natural', report.manual.natural),
    row('manual all', report.manual.all),
  ];
  if (report.qa) lines.push(row('qa', report.qa));
  lines.push(`manual chunks: ${report.manual.chunks}${report.qa ? `; qa pairs: ${report.qa.pairs}; embedder: ${report.qa.embedder}` : ''}`);
  return lines.join('\n');
}

/**
 * Command-line entry (`npm run eval`): `--manual`, `--manual-eval`, `--qa`, `--qa-eval` override the default
 * paths; `--verbose` lists the queries ours missed in the top 3. Returns the exit status (0, or 1 when ours is
 * below the baseline anywhere).
 */
export async function main(argv: string[] = process.argv.slice(2), out: (s: string) => void = (s) => process.stdout.write(`${s}\n`)): Promise<number> {
  const arg = (name: string, fallback: string) => {
    const i = argv.indexOf(name);
    return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
  };
  if (argv.includes('--help') || argv.includes('-h')) {
    out(DATASET_USAGE);
    return 0;
  }
  if (argv[0] === 'manual' || argv[0] === 'qa') return datasetMain(argv, out);
  const input = await loadEvaluationInput({
    manual: arg('--manual', 'data/manuals/xyz-manual.md'),
    manualEval: arg('--manual-eval', 'test/fixtures/eval/manual.json'),
    qa: arg('--qa', 'data/qa/xyz-qa.csv'),
    qaEval: arg('--qa-eval', 'test/fixtures/eval/qa.json'),
  });
  const report = await runEvaluation(input);
  out(formatReport(report));
  if (argv.includes('--verbose')) {
    for (const [name, c] of [['manual', report.manual.all], ['qa', report.qa]] as const) {
      if (c && c.oursMissedAt3.length > 0) out(`\n${name}: missed in top 3\n  ${c.oursMissedAt3.join('\n  ')}`);
    }
  }
  const comparisons = [report.manual.keyword, report.manual.natural, ...(report.qa ? [report.qa] : [])];
  const worse = comparisons.some((c) => c.ours.hitAt3 < c.baseline.hitAt3 || c.ours.mrrAt10 < c.baseline.mrrAt10);
  return worse ? 1 : 0;
}

const DATASET_USAGE = `usage:
  npm run eval                                                   the repository's sets (embedded engine vs baseline)
  npm run eval -- manual --dir DIR --queries TSV [--limit N] [--json FILE]
      TSV columns: query, relevant_file (path relative to DIR), optional paragraph_index or relevant_section
  npm run eval -- qa --csv FILE|DIR --queries TSV [--limit N] [--json FILE]
      TSV columns: query, relevant_rows (1-based data rows, space-separated)
The configured backend is measured (Meilisearch / Qdrant when MEILI_HOST / QDRANT_URL are set, under an "_eval"
index name) beside two BM25 baselines on the same chunks or pairs: raw character bigrams, and character unigrams +
bigrams of the NFKC, lower-cased text (with ours' better / worse count against each and a sign test).`;

/** `npm run eval -- manual|qa …`: see {@link DATASET_USAGE}. Exit 0, or 2 on bad arguments. */
async function datasetMain(argv: string[], out: (s: string) => void): Promise<number> {
  const { parseArgs } = await import('node:util');
  const { loadConfig } = await import('../config.js');
  const { evaluateManualDataset, evaluateQaDataset, formatDatasetResults } = await import('./evaluate-dataset.js');
  let values: { dir?: string; csv?: string; queries?: string; limit?: string; json?: string };
  try {
    ({ values } = parseArgs({
      args: argv.slice(1),
      options: { dir: { type: 'string' }, csv: { type: 'string' }, queries: { type: 'string' }, limit: { type: 'string' }, json: { type: 'string' } },
      strict: true,
    }));
  } catch (err) {
    out(`${err instanceof Error ? err.message : String(err)}\n${DATASET_USAGE}`);
    return 2;
  }
  const source = argv[0] === 'manual' ? values.dir : values.csv;
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (!source || !values.queries || (limit !== undefined && !(Number.isInteger(limit) && limit > 0))) {
    out(DATASET_USAGE);
    return 2;
  }
  const config = loadConfig();
  const queriesTsv = await readFile(values.queries, 'utf8');
  const results =
    argv[0] === 'manual'
      ? await evaluateManualDataset(config, { dir: source, queriesTsv, ...(limit ? { limit } : {}) })
      : await evaluateQaDataset(config, { csv: source, queriesTsv, ...(limit ? { limit } : {}) });
  out(formatDatasetResults(results));
  if (values.json) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(values.json, `${JSON.stringify({ source, queries: values.queries, results }, null, 2)}\n`);
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(2);
    },
  );
}
