/**
 * `npm run reindex`'s summary names manual files, folders and Q&A sheets as they are named on disk or inside a
 * workbook: whoever wrote the file chose those names. Escape sequences in them must not reach the admin's terminal
 * (security review 9, finding 1), and a summary of a job that stored only the first skipped files still counts all.
 */
import { describe, expect, it } from 'vitest';
import { formatReindexSummary, type ReindexSummary } from '../../src/cli/format.js';

// A retitle (OSC 0), a screen clear, a one-byte CSI and a right-to-left override.
const HOSTILE = 'a\u001b]0;PWNED\u0007\u001b[2J\u009b31m\u202Ered';
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Bidi_Control}]/u;
const manual = (extra: Record<string, unknown>) => ({ files: 1, chunks: 1, seconds: 1, ...extra });
const qa = (extra: Record<string, unknown>) => ({ files: 1, pairs: 1, learned: 0, skipped: 0, passedOver: [], seconds: 1, ...extra });

describe('formatReindexSummary prints no terminal control characters from names it did not choose', () => {
  it.each<{ what: string; summary: ReindexSummary; shows: string }>([
    {
      what: 'a skipped manual file',
      summary: { manual: manual({ skipped: [{ fileName: `${HOSTILE}.doc`, reason: '.doc is not read; save it as .docx or PDF' }] }), seconds: 1 },
      shows: '  warning: skipped 1 file: .doc is not read; save it as .docx or PDF: a]0;PWNED[2J31mred.doc',
    },
    {
      what: 'the reason of a skip (a reader quoting the file)',
      summary: { manual: manual({ skipped: [{ fileName: 'b.pdf', reason: `cannot read PDF: ${HOSTILE}` }] }), seconds: 1 },
      shows: '  warning: skipped 1 file: cannot read PDF: a]0;PWNED[2J31mred: b.pdf',
    },
    {
      what: 'a passed-over Q&A sheet and its header cells',
      summary: { qa: qa({ passedOver: [{ table: `faq.xlsx:${HOSTILE}`, reason: `no question column among ${HOSTILE}` }] }), seconds: 1 },
      shows: '  warning: passed over faq.xlsx:a]0;PWNED[2J31mred: no question column among a]0;PWNED[2J31mred',
    },
    {
      what: 'a manual folder with files and one without',
      summary: { manual: manual({ folders: { '.': 1, [HOSTILE]: 2 }, emptyFolders: [`${HOSTILE}2`] }), seconds: 1 },
      shows: '  manual files per folder: (top) 1, a]0;PWNED[2J31mred/ 2\n  warning: no readable manual file in a]0;PWNED[2J31mred2/',
    },
  ])('$what', ({ summary, shows }) => {
    const text = formatReindexSummary(summary);
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain(shows);
  });
});

describe('formatReindexSummary groups skipped files by reason and counts every one when the job result names only the first', () => {
  const named = (n: number) => Array.from({ length: n }, (_, i) => ({ fileName: `old/m${i}.doc`, reason: '.doc is not read; save it as .docx or PDF' }));
  const pdf = (i: number) => ({ fileName: `bad${i}.pdf`, reason: 'cannot read PDF: Invalid PDF structure; re-export it as PDF or .docx, or remove it' });
  const docs = (n: number) => Array.from({ length: n }, (_, i) => `old/m${i}.doc`).join(', ');
  it.each([
    {
      what: '100 named of 20000',
      skipped: named(100),
      skippedCount: 20_000,
      lines: [`  warning: skipped 100 files: .doc is not read; save it as .docx or PDF: ${docs(10)} and 90 more`, '  warning: 19900 more files skipped (named in the log)'],
    },
    { what: 'one more than it names', skipped: named(11), skippedCount: 11, lines: [`  warning: skipped 11 files: .doc is not read; save it as .docx or PDF: ${docs(10)} and 1 more`] },
    // A result recorded before the count existed: its list is all there is.
    { what: 'a result without its count', skipped: named(12), skippedCount: undefined, lines: [`  warning: skipped 12 files: .doc is not read; save it as .docx or PDF: ${docs(10)} and 2 more`] },
    {
      what: 'two reasons, interleaved',
      skipped: [...named(2), pdf(0), pdf(1)],
      skippedCount: 4,
      lines: [
        '  warning: skipped 2 files: .doc is not read; save it as .docx or PDF: old/m0.doc, old/m1.doc',
        '  warning: skipped 2 files: cannot read PDF: Invalid PDF structure; re-export it as PDF or .docx, or remove it: bad0.pdf, bad1.pdf',
      ],
    },
  ])('$what', ({ skipped, skippedCount, lines }) => {
    const text = formatReindexSummary({ manual: manual({ skipped, ...(skippedCount === undefined ? {} : { skippedCount }) }), seconds: 1 });
    expect(text.split('\n').slice(1)).toEqual(lines);
  });
});
