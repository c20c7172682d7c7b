/**
 * Text the command-line tools print as results (and read as batch input), kept apart from the entry files so it can be tested without
 * running a command.
 */
import type { ReindexManualResult } from '../../jobs/reindex-manual.js';
import type { ReindexQaResult } from '../../jobs/reindex-qa.js';
import type { SearchHit } from '../search/types.js';
import type { Ticket } from '../tickets/ticket.js';
import { plural } from './common.js';

/** What one `reindex` run did; the part not asked for is absent. */
export interface ReindexSummary {
  manual?: ReindexManualResult;
  qa?: ReindexQaResult;
  seconds: number;
}

/**
 * The summary, e.g. `reindexed: 12 manual files, 142 chunks, 48 Q&A pairs in 2.3 s`, then, when the manual has
 * subfolders, one line of files per folder, and a warning line per folder without any readable file.
 */
export function formatReindexSummary(summary: ReindexSummary): string {
  const parts: string[] = [];
  if (summary.manual) parts.push(plural(summary.manual.files, 'manual file'), plural(summary.manual.chunks, 'chunk'));
  if (summary.qa) {
    parts.push(plural(summary.qa.pairs, 'Q&A pair'));
    if (summary.qa.skipped > 0) parts.push(`${plural(summary.qa.skipped, 'row')} skipped`);
  }
  const lines = [`reindexed: ${parts.join(', ')} in ${summary.seconds.toFixed(1)} s`];
  const folders = Object.entries(summary.manual?.folders ?? {});
  if (folders.length > 1 || (folders.length === 1 && folders[0]?.[0] !== '.')) {
    lines.push(`  manual files per folder: ${folders.map(([folder, n]) => `${folder === '.' ? '(top)' : `${folder}/`} ${n}`).join(', ')}`);
  }
  for (const folder of summary.manual?.emptyFolders ?? []) {
    lines.push(`  warning: no readable manual file in ${folder === '.' ? 'the manual directory' : `${folder}/`}`);
  }
  return lines.join('\n');
}

/** A search hit as `search --json` prints it. */
export interface JsonHit {
  fileName: string;
  content: string;
  score: number;
}

/** The fields of a hit that `search --json` promises, in a fixed order. */
export function toJsonHit(hit: SearchHit): JsonHit {
  return { fileName: hit.fileName, content: hit.content, score: hit.score };
}

/**
 * Human-readable hits: rank, id and score on one line, then the content indented. The heading path is shown only
 * when the content does not already carry it (the embedded engine stores it as the chunk's first line).
 */
export function formatHits(hits: readonly SearchHit[]): string {
  if (hits.length === 0) return '(no results)';
  return hits
    .map((hit, i) => {
      const heading = hit.heading && !hit.content.includes(hit.heading) ? `\n   [${hit.heading}]` : '';
      const body = hit.content.replace(/\n/g, '\n   ');
      return `${i + 1}. ${hit.id}  (score ${hit.score.toFixed(3)})${heading}\n   ${body}`;
    })
    .join('\n\n');
}

/**
 * Queries of a batch file: one per line. The final line break does not add a query; other blank lines stay as
 * queries with no results, so output line i always belongs to input line i.
 */
export function batchQueries(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

// C0 controls except tab and newline, DEL, and C1 controls (0x80–0x9f; 0x9b is a one-byte CSI on many terminals).
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text for a terminal from text strangers wrote (subjects, names, drafts): control characters other than newline
 * and tab are removed, so an escape sequence in a mail cannot retitle the terminal, clear it, move the cursor or
 * write the clipboard (OSC 52) when an operator lists tickets. What remains of a sequence is plain text.
 */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_CONTROLS, '');
}

/**
 * Code points a terminal draws two columns wide: Unicode's East Asian Wide and Fullwidth blocks (kana, kanji,
 * hangul, fullwidth forms, CJK punctuation) and the emoji drawn as pictures. Sorted, inclusive, for a binary search.
 * Why our own table: the maintained `string-width` is only in node_modules as an old dependency of cli-progress.
 */
const WIDE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f], // Hangul Jamo initial consonants
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x23f0, 0x23f0],
  [0x23f3, 0x23f3],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x267f, 0x267f],
  [0x2693, 0x2693],
  [0x26a1, 0x26a1],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26ce, 0x26ce],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f2, 0x26f3],
  [0x26f5, 0x26f5],
  [0x26fa, 0x26fa],
  [0x26fd, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x274e, 0x274e],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic punctuation (、。「」)
  [0x3041, 0x33ff], // hiragana, katakana, bopomofo, hangul compatibility jamo, enclosed CJK, CJK compatibility
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth ASCII and punctuation (halfwidth katakana from U+FF61 stay narrow)
  [0xffe0, 0xffe6], // fullwidth signs
  [0x16fe0, 0x16fe4],
  [0x17000, 0x18cff], // Tangut, Khitan
  [0x1b000, 0x1b2ff], // kana supplement and extensions
  [0x1f004, 0x1f004],
  [0x1f0cf, 0x1f0cf],
  [0x1f18e, 0x1f18e],
  [0x1f191, 0x1f19a],
  [0x1f1e6, 0x1f1ff], // regional indicators: a pair is one flag
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement (🈁)
  [0x1f300, 0x1f64f], // pictographs, emoticons
  [0x1f680, 0x1f6ff], // transport and map symbols
  [0x1f900, 0x1f9ff], // supplemental symbols and pictographs
  [0x1fa70, 0x1faff],
  [0x20000, 0x2fffd], // CJK extensions B–F, compatibility supplement
  [0x30000, 0x3fffd], // CJK extensions G, H
];

// Drawn on top of the previous character or not at all: combining marks, format characters (ZWJ, ZWSP, BOM),
// variation selectors, Hangul medial vowels and finals, and control characters (terminalSafe removes them).
const ZERO_WIDTH = /^(?:\p{Mn}|\p{Me}|\p{Cf}|\p{Cc}|[\u1160-\u11ff])$/u;

/** Columns one code point takes in a terminal: 0, 1 or 2 (see {@link WIDE_RANGES}). */
export function codePointWidth(codePoint: number): 0 | 1 | 2 {
  if (ZERO_WIDTH.test(String.fromCodePoint(codePoint))) return 0;
  let lo = 0;
  let hi = WIDE_RANGES.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [from, to] = WIDE_RANGES[mid]!;
    if (codePoint < from) hi = mid - 1;
    else if (codePoint > to) lo = mid + 1;
    else return 2;
  }
  return 1;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Columns of one user-perceived character (a base with its marks, a ZWJ emoji sequence, a flag): its widest part. */
function graphemeWidth(grapheme: string): number {
  let width = 0;
  for (const char of grapheme) width = Math.max(width, codePointWidth(char.codePointAt(0)!));
  return width;
}

/** Columns `text` takes in a terminal (one line; East Asian wide characters count two). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of graphemes.segment(text)) width += graphemeWidth(segment);
  return width;
}

/** `text` cut to at most `width` columns, ending in `…` when something was cut; never splits a character. */
export function fitWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = graphemeWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** `text` padded with spaces to `width` columns (unchanged when it is wider already). */
export function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/** One line of `text` (runs of whitespace made one space) fitted to `width` columns. */
export function cut(text: string, width: number): string {
  return fitWidth(text.replace(/\s+/g, ' ').trim(), width);
}

/**
 * The human `list` output: one line per ticket with a short id. Columns are measured in terminal columns, so a
 * Japanese subject (two columns per character) lines up with an English one; widths are taken after
 * {@link terminalSafe}, which the caller applies to the whole table, drops control characters.
 */
export function formatTable(tickets: readonly Ticket[], total: number): string {
  if (tickets.length === 0) return 'No tickets.';
  const rows = tickets.map((t) => [t.id.slice(0, 12), t.state, t.createdAt.replace('T', ' ').slice(0, 19), cut(t.from, 28), cut(t.subject, 36), cut(t.reason ?? '', 60)]);
  const header = ['ID', 'STATE', 'CREATED', 'FROM', 'SUBJECT', 'REASON'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => padToWidth(c, widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const more = total > tickets.length ? `\n(${tickets.length} of ${total}; use --limit to see more)` : '';
  return [line(header), ...rows.map(line)].join('\n') + more;
}
