/**
 * Rechecks every regex of src/, jobs/ and workers/ with recheck (a ReDoS checker): the literals, and the patterns a
 * `new RegExp(…)` builds from variables when the modules are imported (`runtimeRegexInventory`), which count exactly
 * like literals, at the line of their `new RegExp(` call. It rewrites the reviewed record
 * `test/fixtures/regex-safety.json` that `test/unit/regex-safety.test.ts` reads: `safe`, the keys of the patterns
 * recheck finds safe, and `accepted`, the flagged patterns a person judged bounded, taken from verdict tables.
 *
 *   npm run regex-safety -- [VERDICTS.tsv ...] [--allow-pending] [--timeout MS] [--concurrency N]
 *
 * A verdict table has one tab-separated row per flagged regex (a header row starting `file` is skipped):
 * file, line (of the literal or the `new RegExp(` call), source (its first 80 characters; a built pattern's as built), verdict (`bounded` or `fixed`), why (what bounds the input, measured),
 * ms at the largest input before, ms after. A flagged regex is matched to a row by file and source, the nearest line
 * first (lines move), then the row of the table given later (list newer tables last). `bounded` accepts it with its why; `fixed` says it should no longer be flagged. A flagged regex
 * without a row, with a `fixed` row, or with another verdict is printed with recheck's complexity and attack, and the
 * exit code is 1. `--allow-pending` also writes those into the record's `pending` list, which the test leaves alone,
 * for a tree whose verdicts are still being written: regenerate without it once they are in.
 *
 * It takes about six minutes on two idle cores, twenty on a loaded machine (a new pattern in the test takes well under
 * a second).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { check } from 'recheck';
import {
  REGEX_SAFETY_RECORD,
  REPO_ROOT,
  describeFinding,
  fullRegexInventory,
  recheckSites,
  regexKey,
  type AcceptedRegex,
  type CheckedSite,
  type RegexSafetyRecord,
} from '../test/support/regex-inventory.js';

// The prebuilt binary only; see the test.
process.env.RECHECK_BACKEND ??= 'native';

const { values, positionals } = parseArgs({
  options: {
    'allow-pending': { type: 'boolean', default: false },
    timeout: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '2' },
  },
  allowPositionals: true,
});

/** One row of a verdict table. */
interface VerdictRow {
  table: string;
  file: string;
  line: number;
  source: string;
  verdict: string;
  why: string;
  msBefore: string;
  msAfter: string;
}

function readVerdicts(table: string): VerdictRow[] {
  return readFileSync(table, 'utf8')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '' && !/^file\t/i.test(line))
    .map((line) => {
      const [file = '', lineNo = '', source = '', verdict = '', why = '', msBefore = '', msAfter = ''] = line.split('\t');
      return { table, file: file.trim(), line: Number(lineNo), source, verdict: verdict.trim().toLowerCase(), why: why.trim(), msBefore: msBefore.trim(), msAfter: msAfter.trim() };
    });
}

/** Whether a row's source column names this pattern: its first 80 characters, written raw or JSON-escaped. */
function sourceMatches(column: string, source: string): boolean {
  const written = column.trim();
  if (written === '') return false;
  return [source, JSON.stringify(source).slice(1, -1)].some(
    (form) => form.slice(0, 80).trim() === written || (written.length >= 20 && form.startsWith(written.replace(/…$/, ''))),
  );
}

const rows = positionals.flatMap(readVerdicts);
const started = Date.now();
const { sites: inventory, runtime } = await fullRegexInventory();
if (runtime.failed.length > 0) {
  // A module that cannot be imported hides what it builds: the record would pass it unchecked.
  console.error(`could not import, so their built patterns are unknown:\n${runtime.failed.map(({ file, error }) => `  ${file}: ${error}`).join('\n')}`);
  process.exit(1);
}
const checked = await recheckSites(check, inventory, {
  timeoutMs: Number(values.timeout),
  concurrency: Number(values.concurrency),
  onOutcome: (done, total) => {
    if (done % 100 === 0 || done === total) process.stderr.write(`\rrecheck: ${done}/${total} patterns`);
  },
});
process.stderr.write(`\n`);

const safe = [...new Set(checked.filter(({ outcome }) => outcome.status === 'safe').map(({ site }) => regexKey(site.source, site.flags)))].sort();
const flagged = checked.filter(({ outcome }) => outcome.status !== 'safe');

const accepted = new Map<string, AcceptedRegex>();
const pending = new Map<string, AcceptedRegex>();
const problems: string[] = [];
const usedRows = new Set<VerdictRow>();
const entryKey = (entry: { file: string; flags: string; source: string }) => `${entry.file}\0${entry.flags}\0${entry.source}`;
const addTo = (into: Map<string, AcceptedRegex>, { site }: CheckedSite, why: string) => {
  const key = entryKey(site);
  const earlier = into.get(key);
  if (!earlier) into.set(key, { source: site.source, flags: site.flags, file: site.file, why });
  else if (!earlier.why.includes(why)) earlier.why = `${earlier.why} | ${why}`;
};

for (const finding of flagged) {
  const { site } = finding;
  const row = rows
    .filter((candidate) => candidate.file === site.file && sourceMatches(candidate.source, site.source))
    // The nearest line first (lines move); between rows as near, the one of the table given later, a newer verdict.
    .sort((a, b) => Math.abs(a.line - site.line) - Math.abs(b.line - site.line) || rows.indexOf(b) - rows.indexOf(a))[0];
  if (row) usedRows.add(row);
  if (row?.verdict === 'bounded') {
    const measured = row.msBefore && !row.why.includes(`${row.msBefore} ms`) ? ` (${row.msBefore} ms at the largest input)` : '';
    addTo(accepted, finding, `${row.why}${measured}`);
    continue;
  }
  const problem = !row
    ? 'needs a verdict'
    : row.verdict === 'fixed'
      ? `verdict "fixed" (${path.basename(row.table)}, its row for line ${row.line}) but recheck still flags it: a bounded row must say what bounds it now`
      : `verdict "${row.verdict}" (${path.basename(row.table)}) is neither bounded nor fixed`;
  problems.push(`${describeFinding(finding)}\n    → ${problem}`);
  if (values['allow-pending']) addTo(pending, finding, `no reviewed verdict yet: ${problem}`);
}

const byPlace = (a: AcceptedRegex, b: AcceptedRegex) => a.file.localeCompare(b.file) || a.source.localeCompare(b.source) || a.flags.localeCompare(b.flags);
const record: RegexSafetyRecord = { accepted: [...accepted.values()].sort(byPlace), safe };
if (pending.size > 0) record.pending = [...pending.values()].sort(byPlace);
writeFileSync(path.join(REPO_ROOT, REGEX_SAFETY_RECORD), `${JSON.stringify(record, null, 2)}\n`);

const distinct = new Set(inventory.map((site) => regexKey(site.source, site.flags))).size;
console.log(
  `${inventory.length} regexes (${runtime.sites.length} built at import; ${distinct} distinct patterns) in ${((Date.now() - started) / 1000).toFixed(0)} s: ` +
    `${safe.length} safe, ${flagged.length} flagged sites (${accepted.size} accepted, ${problems.length} without a usable verdict); wrote ${REGEX_SAFETY_RECORD}`,
);
const unused = rows.filter((row) => !usedRows.has(row) && row.verdict === 'bounded');
if (unused.length > 0) {
  console.log(`\n${unused.length} bounded verdict rows match no flagged regex (changed since, or no longer flagged):`);
  for (const row of unused) console.log(`  ${row.file}:${row.line} ${row.source}`);
}
if (problems.length > 0) {
  console.log(`\n${problems.length} flagged regexes without a bounded verdict${values['allow-pending'] ? ' (written as pending)' : ''}:`);
  for (const problem of problems) console.log(`  ${problem}`);
  process.exitCode = 1;
}
