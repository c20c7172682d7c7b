/**
 * The start page's banner of manual files the last reindex skipped (security review 9, finding 3): it is read from
 * the completed job's result, which names only the first skipped files and counts all; the banner names at most 20
 * and counts the rest from that count, and isolates each reason as it does each file name, so a text-direction
 * override in a reason cannot reorder the banner.
 */
import { describe, expect, it } from 'vitest';
import { manualSkipsWarning, readLastManualReindex, type CompletedManualReindex } from '../../src/server/health.js';

const doc = (i: number) => ({ fileName: `old/m${i}.doc`, reason: '.doc is not read; save it as .docx or PDF' });
const named = (n: number) => Array.from({ length: n }, (_, i) => doc(i));

/** The maintenance queue's newest completed jobs as BullMQ hands them out: only `name`, `finishedOn`, `returnvalue` are read. */
const queueOf = (returnvalue: unknown) => ({
  getJobs: async () => [{ name: 'retention', finishedOn: 2, returnvalue: {} }, { name: 'reindex-manual', finishedOn: 1, returnvalue }] as never,
});

describe('readLastManualReindex', () => {
  it.each([
    { what: 'a result with its count', returned: { skipped: named(100), skippedCount: 20_000 }, count: 20_000, listed: 100 },
    { what: 'a result recorded before the count existed', returned: { skipped: named(3) }, count: 3, listed: 3 },
    { what: 'a count below the names it lists', returned: { skipped: named(5), skippedCount: 2 }, count: 5, listed: 5 },
    { what: 'a count that is no count', returned: { skipped: named(2), skippedCount: '9' }, count: 2, listed: 2 },
    { what: 'a fractional count', returned: { skipped: named(2), skippedCount: 7.5 }, count: 2, listed: 2 },
    { what: 'no skipped files', returned: { skipped: [], skippedCount: 0 }, count: 0, listed: 0 },
  ])('$what: $count skipped, $listed named', async ({ returned, count, listed }) => {
    const last = await readLastManualReindex(queueOf(returned));
    expect(last).toMatchObject({ finishedOn: 1, skippedCount: count });
    expect(last?.skipped).toHaveLength(listed);
  });
});

describe('manualSkipsWarning', () => {
  const at = (skipped: CompletedManualReindex['skipped'], skippedCount = skipped.length): CompletedManualReindex => ({ finishedOn: 1, skipped, skippedCount });

  it.each([
    { skipped: named(100), skippedCount: 20_000, says: 'the last manual reindex skipped 20000 files: ', rest: ', and 19980 more (named in the maintenance worker’s log): ' },
    { skipped: named(21), skippedCount: 21, says: 'the last manual reindex skipped 21 files: ', rest: ', and 1 more (named in the maintenance worker’s log): ' },
    { skipped: named(20), skippedCount: 20, says: 'the last manual reindex skipped 20 files: ', rest: undefined },
  ])('$skippedCount skipped, $skipped.length in the result: names 20 at most and counts the rest', ({ skipped, skippedCount, says, rest }) => {
    const banner = manualSkipsWarning(at(skipped, skippedCount), undefined)!.toString();
    expect(banner.startsWith(says)).toBe(true);
    expect(banner.match(/<bdi>old\//g)).toHaveLength(Math.min(20, skipped.length));
    if (rest) expect(banner).toContain(rest);
    else expect(banner).not.toContain('more');
  });

  it('isolates each reason as it does each file name', () => {
    const banner = manualSkipsWarning(at([{ fileName: 'exe.pdf', reason: 'rtl override reason' }, doc(1)]), undefined)!.toString();
    expect(banner).toContain('<bdi>exe.pdf</bdi> (<bdi>rtl override reason</bdi>), <bdi>old/m1.doc</bdi> (<bdi>.doc is not read; save it as .docx or PDF</bdi>)');
  });

  // The operator looks for the file by the name shown: an override would show `esc…fdp.txt` for `esc…txt.pdf`, and the
  // escape bytes of a name as boxes. Shown as `npm run reindex` prints it.
  it('shows a name and a reason without control or text-direction characters', () => {
    const banner = manualSkipsWarning(at([{ fileName: 'esc\x1b[31mred\x1b[0m\u202Etxt.pdf', reason: 'rtl \u202Eoverride\u202C and \u0007bell' }]), undefined)!.toString();
    expect(banner).toContain('<bdi>esc[31mred[0mtxt.pdf</bdi> (<bdi>rtl override and bell</bdi>)');
    expect(banner).not.toMatch(/[\p{Bidi_Control}\p{Cc}]/u);
  });
});
