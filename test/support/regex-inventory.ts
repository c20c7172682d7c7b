/**
 * The regular expressions the product ships, and what recheck (a ReDoS checker) says of them: shared by
 * `test/unit/regex-safety.test.ts`, which rechecks only what is new, and `infra/regex-safety.ts`, which rechecks
 * everything and rewrites the reviewed record `test/fixtures/regex-safety.json`.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';

/** The repository root (this file lives in `test/support/`). */
export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Where the product's code lives: every regex there can meet what a stranger wrote. */
export const REGEX_SOURCE_DIRS = ['src', 'jobs', 'workers'] as const;

/** The reviewed record, relative to the repository root. */
export const REGEX_SAFETY_RECORD = 'test/fixtures/regex-safety.json';

/**
 * One regex of the code: a literal, `new RegExp(<string literal>)`, or a pattern a `new RegExp(…)` builds from
 * variables when its module is imported (see `runtimeRegexInventory`).
 */
export interface RegexSite {
  /** Path relative to the repository root, with `/` separators. */
  file: string;
  /** 1-based line of the literal or of the `new RegExp(` expression. */
  line: number;
  /** The pattern as `RegExp.prototype.source` would hold it (a string argument's value, escapes resolved). */
  source: string;
  /** The flags as written (`''` when a `new RegExp` has none or they are not a string literal). */
  flags: string;
}

/** The TypeScript files under `dir`, sorted (absolute when `dir` is). */
export function typeScriptFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return typeScriptFiles(full);
      return entry.name.endsWith('.ts') ? [full] : [];
    })
    .sort();
}

/** The regexes of one TypeScript text. `file` is only copied into the sites. */
export function regexSitesOfText(file: string, text: string): RegexSite[] {
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sites: RegexSite[] = [];
  const lineOf = (node: ts.Node) => sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText(sourceFile);
      const end = literal.lastIndexOf('/');
      sites.push({ file, line: lineOf(node), source: literal.slice(1, end), flags: literal.slice(end + 1) });
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      node.expression.getText(sourceFile) === 'RegExp' &&
      node.arguments?.length
    ) {
      // A pattern built from variables is not listed here: what it builds is known only when the code runs
      // (`runtimeRegexInventory` records what the modules build when imported).
      const [pattern, flags] = node.arguments;
      if (pattern && (ts.isStringLiteral(pattern) || ts.isNoSubstitutionTemplateLiteral(pattern))) {
        const flagText = flags && (ts.isStringLiteral(flags) || ts.isNoSubstitutionTemplateLiteral(flags)) ? flags.text : '';
        sites.push({ file, line: lineOf(node), source: pattern.text, flags: flagText });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return sites;
}

/**
 * Every regex literal and `new RegExp(<string literal>)` in `src/`, `jobs/` and `workers/`, in file order.
 * Read with the TypeScript parser, so a `/` inside a string or a comment is never taken for a regex.
 */
export function regexInventory(root: string = REPO_ROOT): RegexSite[] {
  return overSourceFiles(root, regexSitesOfText);
}

/** What `read` finds in each TypeScript file of `src/`, `jobs/` and `workers/` (path relative to `root`), in file order. */
function overSourceFiles<T>(root: string, read: (file: string, text: string) => T[]): T[] {
  return REGEX_SOURCE_DIRS.flatMap((dir) =>
    typeScriptFiles(path.join(root, dir)).flatMap((full) => read(path.relative(root, full).split(path.sep).join('/'), readFileSync(full, 'utf8'))),
  );
}

/**
 * The entry files that start their process when imported (a worker connects to Redis, a CLI parses `process.argv` and
 * runs a command, `env-example` rewrites `.env.example` and README.md): the capture leaves them out. They build no
 * pattern of their own (`entryFilesBuildNoPattern` checks it), and what they import is imported on its own.
 */
export const RUN_AT_IMPORT: ReadonlyMap<string, string> = new Map([
  ...['agent-worker', 'all', 'dashboard', 'imap-poller', 'scheduler', 'sender'].map(
    (name) => [`workers/${name}.ts`, 'starts its process role (loads the configuration, connects to Redis)'] as const,
  ),
  ...['ask', 'check', 'knowledge', 'reindex', 'review', 'search'].map(
    (name) => [`src/cli/${name}.ts`, 'parses process.argv and runs the command'] as const,
  ),
  ['src/cli/demo.ts', 'runs the demo: starts its servers and lends the .env'] as const,
  ['src/cli/env-example.ts', 'rewrites .env.example and README.md'] as const,
]);

/** A `new RegExp(…)` or `RegExp(…)` whose pattern is not one string literal: what it builds is known only at run time. */
export interface BuiltPatternCall {
  file: string;
  line: number;
  /** The pattern argument as written. */
  argument: string;
}

/** The calls of one TypeScript text that build a pattern from variables. */
export function builtPatternCallsOfText(file: string, text: string): BuiltPatternCall[] {
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const calls: BuiltPatternCall[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText(sourceFile) === 'RegExp' && node.arguments?.length) {
      const [pattern] = node.arguments;
      if (pattern && !ts.isStringLiteral(pattern) && !ts.isNoSubstitutionTemplateLiteral(pattern)) {
        const line = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
        calls.push({ file, line, argument: pattern.getText(sourceFile) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return calls;
}

/** Every call in `src/`, `jobs/` and `workers/` that builds a pattern from variables. */
export function builtPatternCalls(root: string = REPO_ROOT): BuiltPatternCall[] {
  return overSourceFiles(root, builtPatternCallsOfText);
}

/** What the capture child saw: the patterns built at import, and the modules it could not import. */
export interface RuntimeRegexCapture {
  /** One per call site and pattern, at the line of the `new RegExp(` call, in file and line order. */
  sites: RegexSite[];
  /** Modules whose import threw: their patterns are missing, so the test fails on any. */
  failed: { file: string; error: string }[];
  /** Wall time of the imports in the child, in milliseconds. */
  importMs: number;
}

const CAPTURE_ARGUMENT = '--capture-runtime-regexes';
const runFile = promisify(execFile);

/**
 * The patterns that `new RegExp(…)` builds from variables while the modules of `src/`, `jobs/` and `workers/` are
 * imported (word lists spliced into one pattern, a pattern per language): the static inventory cannot read them.
 * A child process (node with tsx, as the product runs) replaces the global `RegExp` with a trap that records each
 * constructed pattern and the line of its caller, then imports every module but the `RUN_AT_IMPORT` entries. A
 * pattern built per call (from a customer's words, escaped) is not built at import and is not here. Takes a few
 * seconds: ask once per test file.
 */
export async function runtimeRegexInventory(root: string = REPO_ROOT): Promise<RuntimeRegexCapture> {
  const { stdout } = await runFile(process.execPath, ['--import', 'tsx', import.meta.filename, CAPTURE_ARGUMENT, root], {
    cwd: root,
    env: { ...process.env, HELPDESK_ENV_FILE: 'none', LOG_LEVEL: 'warn', NODE_OPTIONS: '' },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 240_000,
  });
  return JSON.parse(stdout) as RuntimeRegexCapture;
}

/** The static inventory and what the modules build at import, a site seen both ways once. */
export async function fullRegexInventory(root: string = REPO_ROOT): Promise<{ sites: RegexSite[]; runtime: RuntimeRegexCapture }> {
  const literal = regexInventory(root);
  const runtime = await runtimeRegexInventory(root);
  const seen = new Set(literal.map((site) => `${site.file}\0${site.line}\0${site.flags}\0${site.source}`));
  const built = runtime.sites.filter((site) => !seen.has(`${site.file}\0${site.line}\0${site.flags}\0${site.source}`));
  return { sites: [...literal, ...built], runtime };
}

/**
 * Where a regex is made in one TypeScript text: each regex literal and `RegExp(` call, by start line. tsx may compile a
 * literal into a `new RegExp` call (a `\\p{…}` with `u`), so the capture sees literals too.
 */
function regexConstructionLines(file: string, text: string): { line: number; literal: boolean }[] {
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { line: number; literal: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    const literal = node.kind === ts.SyntaxKind.RegularExpressionLiteral;
    if (literal || ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText(sourceFile) === 'RegExp')) {
      found.push({ line: sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1, literal });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found.sort((a, b) => a.line - b.line);
}

/**
 * The construction a stack frame's line stands for. The line tsx's source map gives for a `new RegExp(` frame is the
 * call's own or one before it (the end of the statement or comment above), never one after its start: the first
 * construction at or below it, else the last above.
 */
export function constructionAt(
  constructions: readonly { line: number; literal: boolean }[],
  line: number,
): { line: number; literal: boolean } | undefined {
  return constructions.find((made) => made.line >= line) ?? constructions.at(-1);
}

/** The child's side of `runtimeRegexInventory`. */
async function captureRuntimeRegexes(root: string): Promise<void> {
  const inRoot = (file: string) => path.relative(root, file).split(path.sep).join('/');
  const thisFile = import.meta.filename;
  const sites = new Map<string, RegexSite>();
  const files = new Map(
    REGEX_SOURCE_DIRS.flatMap((dir) => typeScriptFiles(path.join(root, dir))).map((full) => [full, inRoot(full)] as const),
  );
  const constructions = new Map<string, { line: number; literal: boolean }[]>();
  // The caller's frame, read from the stack text, which tsx maps to the TypeScript file.
  const record = (made: RegExp): void => {
    const frames = (new Error().stack ?? '').split('\n').slice(1);
    for (const frame of frames) {
      const at = /\(?(?:file:\/\/)?(\/[^()]*?):(\d+):\d+\)?$/.exec(frame.trim());
      if (!at || at[1] === thisFile) continue;
      const full = decodeURIComponent(at[1]!);
      const file = files.get(full);
      if (file) {
        let inFile = constructions.get(file);
        if (!inFile) constructions.set(file, (inFile = regexConstructionLines(file, readFileSync(full, 'utf8'))));
        const construction = constructionAt(inFile, Number(at[2]));
        // A literal is in the static inventory already.
        if (construction && !construction.literal) {
          const site = { file, line: construction.line, source: made.source, flags: made.flags };
          sites.set(`${site.file}\0${site.line}\0${site.flags}\0${site.source}`, site);
        }
      }
      return; // only the direct caller: a library's own patterns are its own
    }
  };
  const Native = globalThis.RegExp;
  globalThis.RegExp = new Proxy(Native, {
    construct(target, args, newTarget) {
      const made = Reflect.construct(target, args, newTarget === globalThis.RegExp ? target : newTarget) as RegExp;
      record(made);
      return made;
    },
    apply(target, self, args) {
      const made = Reflect.apply(target, self, args) as RegExp;
      record(made);
      return made;
    },
  });
  const failed: RuntimeRegexCapture['failed'] = [];
  const started = performance.now();
  for (const dir of REGEX_SOURCE_DIRS) {
    for (const full of typeScriptFiles(path.join(root, dir))) {
      if (RUN_AT_IMPORT.has(inRoot(full))) continue;
      try {
        await import(pathToFileURL(full).href);
      } catch (err) {
        failed.push({ file: inRoot(full), error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  const importMs = Math.round(performance.now() - started);
  const capture: RuntimeRegexCapture = {
    sites: [...sites.values()].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.source.localeCompare(b.source)),
    failed,
    importMs,
  };
  // Some modules keep timers or handles open: exit once the answer is out.
  process.stdout.write(JSON.stringify(capture), () => process.exit(0));
}

if (process.argv[2] === CAPTURE_ARGUMENT && process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  await captureRuntimeRegexes(path.resolve(process.argv[3] ?? REPO_ROOT));
}

/** The record's key of a pattern: sha256 of `flags + "/" + source`, first 16 hex digits. */
export function regexKey(source: string, flags: string): string {
  return createHash('sha256').update(`${flags}/${source}`).digest('hex').slice(0, 16);
}

/** A pattern recheck flags that a person judged bounded where it runs. */
export interface AcceptedRegex {
  source: string;
  flags: string;
  /** The file it is accepted in: the same pattern in another file meets other input and is judged again. */
  file: string;
  /** What bounds its input, and the time measured at the largest input that can reach it. */
  why: string;
}

/** `test/fixtures/regex-safety.json`. */
export interface RegexSafetyRecord {
  /** Flagged patterns judged bounded. */
  accepted: AcceptedRegex[];
  /**
   * Flagged patterns that have no verdict yet, written only by `npm run regex-safety -- --allow-pending`: the test
   * leaves them alone until their verdicts are in and the record is regenerated without that option.
   */
  pending?: AcceptedRegex[];
  /** `regexKey` of every pattern recheck found safe, sorted. */
  safe: string[];
}

/** Reads the reviewed record. */
export function readRegexSafetyRecord(root: string = REPO_ROOT): RegexSafetyRecord {
  return JSON.parse(readFileSync(path.join(root, REGEX_SAFETY_RECORD), 'utf8')) as RegexSafetyRecord;
}

/** What recheck concluded of one pattern, reduced to what a reviewer needs. */
export type RecheckOutcome =
  | { status: 'safe'; complexity: string }
  | { status: 'vulnerable'; complexity: string; attack: string }
  | { status: 'unknown'; reason: string; timedOut?: boolean };

/** The subset of recheck's `check` this module uses, so the decision can be tested with a checker of the test's own. */
export type RecheckFunction = (
  source: string,
  flags: string,
  params: { timeout: number },
) => Promise<{
  status: string;
  complexity?: { summary?: string } | null;
  attack?: { pattern?: string } | null;
  error?: { kind?: string; message?: string } | null;
}>;

/**
 * The pattern and flags recheck 4.5.0 is asked about, or why it cannot be asked. `g`, `y` and `d` change where a
 * match starts or what it reports, not how the engine backtracks, and recheck rejects `d` as an unknown flag. `v`
 * (unicodeSets) is unknown to it too: a pattern that also compiles under `u` means the same there (no class set
 * operations or string literals) and is checked that way; one that does not is left to a person.
 */
export function recheckInput(source: string, flags: string): { source: string; flags: string } | { unreadable: string } {
  const kept = flags.replace(/[gyd]/g, '');
  if (!kept.includes('v')) return { source, flags: kept };
  const asUnicode = kept.replace('v', 'u');
  try {
    new RegExp(source, asUnicode);
    return { source, flags: asUnicode };
  } catch {
    return { unreadable: 'uses v-flag class syntax (set operations, nested classes or \\q{}) that recheck 4.5.0 cannot read' };
  }
}

/** Asks recheck about one pattern (`checker: 'auto'`: automaton theory where it applies, fuzzing otherwise). */
export async function recheckPattern(check: RecheckFunction, source: string, flags: string, timeoutMs: number): Promise<RecheckOutcome> {
  const input = recheckInput(source, flags);
  if ('unreadable' in input) return { status: 'unknown', reason: input.unreadable };
  const diagnostics = await check(input.source, input.flags, { timeout: timeoutMs });
  if (diagnostics.status === 'safe') return { status: 'safe', complexity: diagnostics.complexity?.summary ?? 'safe' };
  if (diagnostics.status === 'vulnerable') {
    return { status: 'vulnerable', complexity: diagnostics.complexity?.summary ?? '?', attack: diagnostics.attack?.pattern ?? '?' };
  }
  const error = diagnostics.error;
  if (error?.kind === 'timeout') return { status: 'unknown', reason: `recheck timed out after ${timeoutMs} ms`, timedOut: true };
  return { status: 'unknown', reason: `${error?.kind ?? 'unknown'}: ${error?.message ?? ''}` };
}

/** Whether a site is covered by the record without asking recheck: a known-safe pattern, or accepted/pending in its file. */
export function isRecorded(site: RegexSite, record: RegexSafetyRecord, safeKeys: ReadonlySet<string> = new Set(record.safe)): boolean {
  if (safeKeys.has(regexKey(site.source, site.flags))) return true;
  const reviewed = [...record.accepted, ...(record.pending ?? [])];
  return reviewed.some((entry) => entry.source === site.source && entry.flags === site.flags && entry.file === site.file);
}

/** The sites neither known safe nor reviewed: the ones recheck must look at. */
export function unrecordedSites(inventory: readonly RegexSite[], record: RegexSafetyRecord): RegexSite[] {
  const safeKeys = new Set(record.safe);
  return inventory.filter((site) => !isRecorded(site, record, safeKeys));
}

/** Accepted or pending entries whose pattern no longer appears in their file: the record must be regenerated. */
export function staleEntries(inventory: readonly RegexSite[], record: RegexSafetyRecord): AcceptedRegex[] {
  const present = new Set(inventory.map((site) => `${site.file}\0${site.flags}\0${site.source}`));
  return [...record.accepted, ...(record.pending ?? [])].filter((entry) => !present.has(`${entry.file}\0${entry.flags}\0${entry.source}`));
}

/** One site and what recheck said of it. */
export interface CheckedSite {
  site: RegexSite;
  outcome: RecheckOutcome;
}

/**
 * Rechecks sites, a few at a time, one outcome per distinct pattern (a pattern repeated in several places is asked
 * about once). recheck's limit is wall time, so on a busy machine a pattern it decides in seconds when idle can run
 * out of it: one that timed out is asked again alone, with `retryTimeoutMs`.
 */
export async function recheckSites(
  check: RecheckFunction,
  sites: readonly RegexSite[],
  {
    timeoutMs,
    retryTimeoutMs = timeoutMs * 6,
    concurrency = 2,
    onOutcome,
  }: { timeoutMs: number; retryTimeoutMs?: number; concurrency?: number; onOutcome?: (done: number, total: number) => void },
): Promise<CheckedSite[]> {
  const patterns = [...new Map(sites.map((site) => [regexKey(site.source, site.flags), site])).entries()];
  const outcomes = new Map<string, RecheckOutcome>();
  let next = 0;
  const worker = async () => {
    while (next < patterns.length) {
      const [key, site] = patterns[next++]!;
      outcomes.set(key, await recheckPattern(check, site.source, site.flags, timeoutMs));
      onOutcome?.(outcomes.size, patterns.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, patterns.length) }, worker));
  for (const [key, site] of patterns) {
    const first = outcomes.get(key);
    if (first?.status === 'unknown' && first.timedOut && retryTimeoutMs > timeoutMs) {
      outcomes.set(key, await recheckPattern(check, site.source, site.flags, retryTimeoutMs));
    }
  }
  return sites.map((site) => ({ site, outcome: outcomes.get(regexKey(site.source, site.flags))! }));
}

/** How a flagged site is named to the person who must look at it. */
export function describeFinding({ site, outcome }: CheckedSite): string {
  const where = `${site.file}:${site.line} /${site.source.length > 120 ? `${site.source.slice(0, 120)}…` : site.source}/${site.flags}`;
  if (outcome.status === 'vulnerable') return `${where}: ${outcome.complexity}; attack ${outcome.attack}`;
  if (outcome.status === 'unknown') return `${where}: recheck could not decide (${outcome.reason})`;
  return `${where}: safe (${outcome.complexity})`;
}

/** The flagged ones among checked sites (vulnerable, or undecided), each described. */
export function findings(checked: readonly CheckedSite[]): string[] {
  return checked.filter(({ outcome }) => outcome.status !== 'safe').map(describeFinding);
}
