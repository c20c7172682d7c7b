/**
 * No new regex that a hostile mail, file or request can stall: every regex literal and `new RegExp("…")` of src/,
 * jobs/ and workers/, and every pattern a `new RegExp(…)` there builds from variables when its module is imported
 * (captured once per run by a child process that imports them all: about 10 s), is either in the reviewed record
 * (`test/fixtures/regex-safety.json`: found safe by recheck, or flagged and judged bounded by a person) or is checked
 * here with recheck, a ReDoS checker (automaton theory where it applies, fuzzing otherwise). Only what is new or
 * changed is checked, so this takes seconds; `npm run regex-safety` rechecks everything and rewrites the record.
 */
import { check } from 'recheck';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  RUN_AT_IMPORT,
  builtPatternCalls,
  builtPatternCallsOfText,
  constructionAt,
  findings,
  fullRegexInventory,
  readRegexSafetyRecord,
  recheckInput,
  recheckSites,
  regexKey,
  regexSitesOfText,
  staleEntries,
  unrecordedSites,
  type RecheckFunction,
  type RegexSafetyRecord,
  type RegexSite,
  type RuntimeRegexCapture,
} from '../support/regex-inventory.js';

// The prebuilt binary (recheck-linux-x64 and its siblings, optional dependencies) and nothing else: `auto` would fall
// back to a JVM or to recheck's pure-JavaScript build, many times slower, without a word.
process.env.RECHECK_BACKEND ??= 'native';

/** The same per-pattern limit as `npm run regex-safety`, so a pattern times out here exactly when it did there. */
const PER_PATTERN_TIMEOUT_MS = 10_000;

const noRecord: RegexSafetyRecord = { accepted: [], safe: [] };
const site = (source: string, flags = '', file = 'src/mail/new.ts', line = 7): RegexSite => ({ file, line, source, flags });

describe('regex safety of the shipped code', () => {
  let inventory: RegexSite[] = [];
  let runtime: RuntimeRegexCapture;
  const record = readRegexSafetyRecord();

  // The import of every module in a child process, once for the whole file (a guard against a hang, not a target).
  beforeAll(async () => {
    ({ sites: inventory, runtime } = await fullRegexInventory());
  }, 240_000);

  it('every module was imported, so every pattern built at import is in the inventory', () => {
    expect(runtime.failed).toEqual([]);
    // The relay notices' words of other languages, spliced into one pattern per kind.
    expect(runtime.sites.filter((built) => built.file === 'src/mail/relay-notices.ts').length).toBeGreaterThan(3);
  });

  it('an entry file left out of the import builds no pattern of its own', () => {
    expect(builtPatternCalls().filter((call) => RUN_AT_IMPORT.has(call.file))).toEqual([]);
  });

  // A guard against a hung checker, not a speed target: with nothing new this takes a few seconds.
  it('every regex is recorded safe, reviewed, or found safe by recheck now', { timeout: 300_000 }, async () => {
    expect(inventory.length).toBeGreaterThan(1000);
    const fresh = unrecordedSites(inventory, record);
    const checked = await recheckSites(check, fresh, { timeoutMs: PER_PATTERN_TIMEOUT_MS });
    expect(
      findings(checked),
      'recheck flags these new or changed regexes: make them linear, or judge where they run and what bounds their input ' +
        '(measure recheck\'s attack at the largest size that can reach it), give them a verdict row and run ' +
        '`npm run regex-safety -- VERDICTS.tsv` (DEVELOPERS.md)',
    ).toEqual([]);
  });

  it('every accepted pattern is still in its file', () => {
    const stale = staleEntries(inventory, record).map((entry) => `${entry.file} /${entry.source}/${entry.flags}`);
    expect(stale, 'the code changed under these reviewed patterns: run `npm run regex-safety` to rewrite the record').toEqual([]);
  });

  it('the record is what the generator writes: safe keys sorted and distinct, every acceptance says why', () => {
    expect(record.safe).toEqual([...new Set(record.safe)].sort());
    expect(record.safe.every((key) => /^[0-9a-f]{16}$/.test(key))).toBe(true);
    expect(record.accepted.filter((entry) => entry.why.trim().length < 10)).toEqual([]);
  });
});

describe('deciding which regexes fail', () => {
  it('reports an exponential pattern new in a synthetic inventory, with file:line, complexity and attack', async () => {
    const checked = await recheckSites(check, unrecordedSites([site('^(a+)+$')], noRecord), { timeoutMs: PER_PATTERN_TIMEOUT_MS });
    const reported = findings(checked);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/^src\/mail\/new\.ts:7 \/\^\(a\+\)\+\$\/: exponential; attack '.*a.*'/);
  });

  it('reports a quadratic pattern and passes a linear one', async () => {
    const checked = await recheckSites(check, [site('\\s*x\\s*$', '', 'src/a.ts', 3), site('^[a-z]+$', 'i', 'src/b.ts', 4)], {
      timeoutMs: PER_PATTERN_TIMEOUT_MS,
    });
    const reported = findings(checked);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/^src\/a\.ts:3 .*2nd degree polynomial; attack /);
  });

  it('does not recheck a pattern recorded safe, nor one accepted in the same file', () => {
    const safe = site('^[a-z]+$', 'g');
    const accepted = site('(a+)+$', '', 'src/mail/header.ts');
    const record: RegexSafetyRecord = {
      safe: [regexKey('^[a-z]+$', 'g')],
      accepted: [{ source: '(a+)+$', flags: '', file: 'src/mail/header.ts', why: 'one header line, capped at 998 bytes: 2 ms' }],
    };
    expect(unrecordedSites([safe, accepted], record)).toEqual([]);
    // Another flag is another pattern; the accepted one in another file meets other input.
    const elsewhere = site('(a+)+$', '', 'src/mail/body.ts');
    expect(unrecordedSites([site('^[a-z]+$', 'gi'), elsewhere], record)).toEqual([site('^[a-z]+$', 'gi'), elsewhere]);
  });

  it('names an accepted pattern that left its file as stale', () => {
    const record: RegexSafetyRecord = {
      safe: [],
      accepted: [{ source: '(a+)+$', flags: '', file: 'src/mail/header.ts', why: 'one header line: 2 ms' }],
      pending: [{ source: '(b+)+$', flags: '', file: 'src/mail/header.ts', why: 'no verdict yet' }],
    };
    expect(staleEntries([site('(a+)+$', '', 'src/mail/header.ts')], record).map((entry) => entry.source)).toEqual(['(b+)+$']);
    expect(staleEntries([site('(a+)+$', 'i', 'src/mail/header.ts')], record)).toHaveLength(2);
  });

  it('checks flags recheck does not know in a form it reads: d, g, y dropped; v read as u when the pattern means the same', async () => {
    expect(recheckInput('a+', 'dgy')).toEqual({ source: 'a+', flags: '' });
    expect(recheckInput('\\p{L}+', 'v')).toEqual({ source: '\\p{L}+', flags: 'u' });
    const [indices, unicodeSets] = await recheckSites(check, [site('^(a+)+$', 'd'), site('^(\\p{L}+)+$', 'v')], {
      timeoutMs: PER_PATTERN_TIMEOUT_MS,
    });
    expect(indices?.outcome.status).toBe('vulnerable');
    expect(unicodeSets?.outcome.status).toBe('vulnerable');
  });

  it('leaves what recheck cannot decide to a person: v-flag set syntax, a timeout', async () => {
    const [setSyntax] = await recheckSites(check, [site('[\\p{L}--[a-z]]+', 'v')], { timeoutMs: PER_PATTERN_TIMEOUT_MS });
    expect(findings([setSyntax!])).toEqual([expect.stringMatching(/recheck could not decide \(uses v-flag class syntax/)]);
    // recheck's own answer when its time runs out, as it gives it for a pattern too large to analyse in time.
    // A timeout is asked again alone with the longer limit (a busy machine slows recheck down) before it counts.
    const limits: number[] = [];
    const timedOut: RecheckFunction = async (_source, _flags, { timeout }) => {
      limits.push(timeout);
      return { status: 'unknown', error: { kind: 'timeout' } };
    };
    const checked = await recheckSites(timedOut, [site('x', '', 'src/c.ts', 9)], { timeoutMs: 5, retryTimeoutMs: 20 });
    expect(limits).toEqual([5, 20]);
    expect(findings(checked)).toEqual(['src/c.ts:9 /x/: recheck could not decide (recheck timed out after 20 ms)']);
  });

  it('names the call a built pattern comes from: the line tsx maps a frame to is the call\'s or one above it', () => {
    const made = [{ line: 3, literal: false }, { line: 8, literal: true }, { line: 12, literal: false }];
    expect(constructionAt(made, 3)?.line).toBe(3);
    expect(constructionAt(made, 11)?.line).toBe(12);
    expect(constructionAt(made, 7)).toEqual({ line: 8, literal: true });
    expect(constructionAt(made, 20)?.line).toBe(12);
    expect(builtPatternCallsOfText('src/t.ts', "const a = 'x';\nconst b = new RegExp(`${a}+`, 'g');\nconst c = new RegExp('y');")).toEqual([
      { file: 'src/t.ts', line: 2, argument: '`${a}+`' },
    ]);
  });

  it('lists regex literals and new RegExp("…") with file, line and flags, but not a pattern built from variables', () => {
    const text = [
      "const a = /x+y/giu; // a '/' in a comment",
      "const b = new RegExp('^\\\\d{3}$', 'm');",
      'const c = new RegExp(`${a.source}|z`);',
      "const d = 'not/a/regex/';",
    ].join('\n');
    expect(regexSitesOfText('src/t.ts', text)).toEqual([
      { file: 'src/t.ts', line: 1, source: 'x+y', flags: 'giu' },
      { file: 'src/t.ts', line: 2, source: '^\\d{3}$', flags: 'm' },
    ]);
  });
});
