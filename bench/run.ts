/**
 * `npm run bench`: the performance benchmark (not a test; not part of `npm test`). See bench/README.md.
 *
 *   npm run bench                      every phase at full size, judged against the targets
 *   npm run bench -- --quick           every phase at tiny sizes, nothing judged (CI proves the harness works)
 *   npm run bench -- --json FILE       also write the figures as JSON
 *   npm run bench -- --phases 6,7,8    only some phases (1-5 are one end-to-end phase: `e2e`)
 *   npm run bench -- --prices FILE     price table (USD per million tokens) for the cost figure
 *   npm run bench -- --cpu-prof DIR    run the worker processes under `node --cpu-prof`, profiles into DIR
 *   npm run bench -- --keep            keep the scratch directory
 *   npm run bench -- --phases e2e --cpu-only   only the first two-topic CPU batch between two baseline measurements
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { baselinesPhase } from './phases/baselines.js';
import { e2ePhase } from './phases/e2e.js';
import { insightsPhase } from './phases/insights.js';
import { llmCostPhase } from './phases/llm-cost.js';
import { reindexPhase } from './phases/reindex.js';
import { searchPhase } from './phases/search.js';
import { FULL_SIZES, QUICK_SIZES, type BenchContext, type ModelPrice } from './lib/context.js';
import { FigureSink, renderTable, type BenchReport } from './lib/report.js';
import { REPO_ROOT } from './lib/proc.js';
import { configureLogging } from '../src/logger.js';

/** Phases in run order (an array: a record would put the numeric keys first): self-contained ones, then end to end. */
const PHASES: Array<{ key: string; title: string; run: (ctx: BenchContext) => Promise<void> }> = [
  { key: '7', title: 'reindex throughput', run: reindexPhase },
  { key: '6', title: 'embedded search', run: searchPhase },
  { key: '8', title: 'LLM calls, tokens and cost', run: llmCostPhase },
  { key: '4', title: 'bare BullMQ and LangGraph baselines', run: baselinesPhase },
  { key: '9', title: 'insights API with 100,000 tickets stored', run: insightsPhase },
  { key: 'e2e', title: 'end to end (1, 2, 3, 4, 5, 7: throughput, latency, efficiency, CPU, growth, RSS)', run: e2ePhase },
];
const PHASE_KEYS = PHASES.map((p) => p.key);

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
    phases: { type: 'string' },
    prices: { type: 'string' },
    'cpu-prof': { type: 'string' },
    keep: { type: 'boolean', default: false },
    'cpu-only': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});

if (values.help) {
  process.stdout.write((await readFile(path.join(REPO_ROOT, 'bench/README.md'), 'utf8')) + '\n');
  process.exit(0);
}

const selected = values.phases ? values.phases.split(',').map((p) => p.trim()).filter(Boolean) : PHASE_KEYS;
const unknown = selected.filter((p) => !PHASE_KEYS.includes(p));
if (unknown.length > 0) {
  process.stderr.write(`unknown phase(s) ${unknown.join(', ')}; phases are ${PHASE_KEYS.join(', ')}\n`);
  process.exit(2);
}

// The product code run in this process (reindex jobs, the agent of phase 8) logs only what needs attention.
configureLogging('warn', { stream: 'stderr' });

const quick = values.quick ?? false;
const prices = JSON.parse(await readFile(values.prices ?? path.join(REPO_ROOT, 'bench/prices.json'), 'utf8')) as Record<string, ModelPrice>;
const tmp = await mkdtemp(path.join(os.tmpdir(), 'helpdesk-bench-'));
const started = Date.now();
const stamp = () => `${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s`;
const ctx: BenchContext = {
  quick,
  sizes: quick ? QUICK_SIZES : FULL_SIZES,
  tmp,
  figures: new FigureSink(!quick),
  prices,
  cpuProfDir: values['cpu-prof'] ? path.resolve(values['cpu-prof']) : undefined,
  cpuOnly: values['cpu-only'] ?? false,
  log: (message) => process.stderr.write(`[bench ${stamp()}] ${message}\n`),
  memo: new Map(),
};
const loadAvgAtStart = os.loadavg();
ctx.log(`${quick ? 'quick' : 'full'} run of phases ${selected.join(', ')} on ${os.cpus().length} CPUs, load average ${loadAvgAtStart.map((l) => l.toFixed(2)).join(' ')}; scratch ${tmp}`);

let failedPhase: unknown;
try {
  for (const phase of PHASES.filter((p) => selected.includes(p.key))) {
    ctx.log(`phase ${phase.key}: ${phase.title}`);
    await phase.run(ctx);
  }
} catch (err) {
  failedPhase = err;
} finally {
  if (!values.keep) await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
}

const figures = ctx.figures.figures;
const report: BenchReport = {
  startedAt: new Date(started).toISOString(),
  quick,
  phases: selected,
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    totalMemMb: Math.round(os.totalmem() / 2 ** 20),
    node: process.version,
    loadAvgAtStart,
    loadAvgAtEnd: os.loadavg(),
  },
  durationSeconds: Math.round((Date.now() - started) / 100) / 10,
  figures,
  failed: figures.filter((f) => f.pass === false).map((f) => f.id),
};
process.stdout.write(`\n${renderTable(figures)}\n\n`);
process.stdout.write(
  `${report.durationSeconds} s on ${report.machine.cpus} × ${report.machine.cpuModel}; load average ${loadAvgAtStart.map((l) => l.toFixed(2)).join(' ')} at start, ${report.machine.loadAvgAtEnd.map((l) => l.toFixed(2)).join(' ')} at end.\n`,
);
if (quick) process.stdout.write('Quick run: tiny sizes, nothing judged.\n');
else process.stdout.write(report.failed.length === 0 ? 'All targets met.\n' : `Targets missed: ${report.failed.join(', ')}\n`);
if (values.json) await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`);
if (failedPhase) {
  process.stderr.write(`benchmark aborted: ${failedPhase instanceof Error ? (failedPhase.stack ?? failedPhase.message) : String(failedPhase)}\n`);
  process.exit(1);
}
process.exit(report.failed.length === 0 ? 0 : 1);
