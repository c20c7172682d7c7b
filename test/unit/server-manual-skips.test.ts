/**
 * The start page's banner of manual files the last reindex skipped (security review 9, finding 3): it is read from
 * the completed job's result, which names only the first skipped files and counts all; the banner groups them by
 * reason, names at most as many as `npm run reindex` prints (one limit) and counts the rest, and isolates each reason as it does each file name, so a text-direction
 * override in a reason cannot reorder the banner.
 */
import { describe, expect, it } from 'vitest';
import { formatReindexSummary } from '../../src/cli/format.js';
import { MAX_SKIPPED_FILES_NAMED, manualSkipsWarning, readLastManualReindex, type CompletedManualReindex } from '../../src/server/health.js';

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
  const pdf = (i: number) => ({ fileName: `bad${i}.pdf`, reason: 'cannot read PDF: Invalid PDF structure; re-export it as PDF or .docx, or remove it' });
  const DOC_REASON = '<bdi>.doc is not read; save it as .docx or PDF</bdi>';
  const docs = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `<bdi>old/m${from + i}.doc</bdi>`).join(', ');
  const FIX = 'fix or remove them; their content is not searchable';

  it.each([
    {
      what: 'a result that names 100 of 20000, all of one reason',
      skipped: named(100),
      skippedCount: 20_000,
      says: `the last manual reindex skipped 20000 files: ${FIX}<ul><li>100 files: ${DOC_REASON}: ${docs(0, MAX_SKIPPED_FILES_NAMED)} and 90 more</li><li>19900 more files (named in the maintenance worker’s log)</li></ul>`,
    },
    {
      what: 'one more than it names',
      skipped: named(MAX_SKIPPED_FILES_NAMED + 1),
      skippedCount: MAX_SKIPPED_FILES_NAMED + 1,
      says: `the last manual reindex skipped 11 files: ${FIX}<ul><li>11 files: ${DOC_REASON}: ${docs(0, MAX_SKIPPED_FILES_NAMED)} and 1 more</li></ul>`,
    },
    {
      what: 'two reasons, interleaved',
      skipped: [doc(0), pdf(0), doc(1), pdf(1), doc(2)],
      skippedCount: 5,
      says: `the last manual reindex skipped 5 files: ${FIX}<ul><li>3 files: ${DOC_REASON}: ${docs(0, 3)}</li><li>2 files: <bdi>cannot read PDF: Invalid PDF structure; re-export it as PDF or .docx, or remove it</bdi>: <bdi>bad0.pdf</bdi>, <bdi>bad1.pdf</bdi></li></ul>`,
    },
    {
      what: 'one file',
      skipped: [pdf(7)],
      skippedCount: 1,
      says: 'the last manual reindex skipped 1 file: fix or remove it; its content is not searchable<ul><li>1 file: <bdi>cannot read PDF: Invalid PDF structure; re-export it as PDF or .docx, or remove it</bdi>: <bdi>bad7.pdf</bdi></li></ul>',
    },
  ])('$what: grouped by reason, names at most MAX_SKIPPED_FILES_NAMED and counts the rest', ({ skipped, skippedCount, says }) => {
    const banner = manualSkipsWarning(at(skipped, skippedCount), undefined)!.toString();
    expect(banner).toBe(says);
  });

  it('names no more files than the reindex summary prints: one limit, and a justified one', () => {
    expect(MAX_SKIPPED_FILES_NAMED).toBe(10);
    const skipped = [...named(8), ...Array.from({ length: 8 }, (_, i) => ({ fileName: `x${i}.pages`, reason: '.pages is not read; save it as .docx or PDF' }))];
    const banner = manualSkipsWarning(at(skipped), undefined)!.toString();
    const summary = formatReindexSummary({ manual: { files: 1, chunks: 1, seconds: 1, skipped, skippedCount: skipped.length }, seconds: 1 });
    const bannerNames = [...banner.matchAll(/<bdi>([^<]+\.(?:doc|pages))<\/bdi>/g)].map((m) => m[1]);
    expect(bannerNames).toHaveLength(MAX_SKIPPED_FILES_NAMED);
    for (const name of bannerNames) expect(summary).toContain(name!);
    expect(summary).not.toContain('x2.pages');
  });

  it('isolates each reason as it does each file name', () => {
    const banner = manualSkipsWarning(at([{ fileName: 'exe.pdf', reason: 'rtl override reason' }, doc(1)]), undefined)!.toString();
    expect(banner).toContain('<li>1 file: <bdi>rtl override reason</bdi>: <bdi>exe.pdf</bdi></li><li>1 file: <bdi>.doc is not read; save it as .docx or PDF</bdi>: <bdi>old/m1.doc</bdi></li>');
  });

  // The operator looks for the file by the name shown: an override would show `esc…fdp.txt` for `esc…txt.pdf`, and the
  // escape bytes of a name as boxes. Shown as `npm run reindex` prints it.
  it('shows a name and a reason without control or text-direction characters', () => {
    const banner = manualSkipsWarning(at([{ fileName: 'esc\x1b[31mred\x1b[0m\u202Etxt.pdf', reason: 'rtl \u202Eoverride\u202C and \u0007bell' }]), undefined)!.toString();
    expect(banner).toContain('<bdi>rtl override and bell</bdi>: <bdi>esc[31mred[0mtxt.pdf</bdi>');
    expect(banner).not.toMatch(/[\p{Bidi_Control}\p{Cc}]/u);
  });
});
