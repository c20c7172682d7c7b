/**
 * Text the command-line tools print as results (and read as batch input), kept apart from the entry files so it can be tested without
 * running a command.
 */
import stringWidth from 'string-width';
import type { ReindexManualResult } from '../../jobs/reindex-manual.js';
import type { ReindexQaResult } from '../../jobs/reindex-qa.js';
import type { SearchHit } from '../search/types.js';
import { skippedFilesByReason } from '../server/health.js';
import { deskTimeZone, localTime } from '../tickets/local-day.js';
import type { Ticket } from '../tickets/ticket.js';

/** What one `reindex` run did; the part not asked for is absent. */
export interface ReindexSummary {
  manual?: ReindexManualResult;
  qa?: ReindexQaResult;
  seconds: number;
}

/**
 * The summary, e.g. `reindexed: 12 manual files, 142 chunks, 48 Q&A pairs in 2.3 s`, then, when the manual has
 * subfolders, one line of files per folder, a warning line per folder without any readable file, one per reason manual
 * files were skipped for, naming the first `MAX_SKIPPED_FILES_NAMED` files as the start page does
 * ({@link skippedFilesByReason}), and one per Q&A file or sheet passed over (the first {@link MAX_SKIPPED_LINES}; the
 * log names every one). Folder, file and sheet names and the reasons quoting them were chosen by whoever wrote the files:
 * the whole text goes through {@link terminalSafe}, so both the local run and `--queue --wait` print them inert.
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
  // The job result names only the first skipped files; a result recorded before the count existed names all.
  const skipped = summary.manual?.skipped ?? [];
  const { groups, unnamed } = skippedFilesByReason(skipped, summary.manual?.skippedCount ?? 0);
  for (const { reason, count, fileNames } of groups) {
    const more = count > fileNames.length ? ` and ${count - fileNames.length} more` : '';
    lines.push(`  warning: skipped ${plural(count, 'file')}: ${reason}: ${fileNames.join(', ')}${more}`);
  }
  if (unnamed > 0) lines.push(`  warning: ${plural(unnamed, 'more file')} skipped (named in the log)`);
  // A result recorded before passedOver existed has none.
  const passedOver = summary.qa?.passedOver ?? [];
  for (const { table, reason } of passedOver.slice(0, MAX_SKIPPED_LINES)) lines.push(`  warning: passed over ${table}: ${reason}`);
  const more = passedOver.length - MAX_SKIPPED_LINES;
  if (more > 0) lines.push(`  warning: ${more} more Q&A ${more === 1 ? 'file or sheet' : 'files or sheets'} passed over (named in the log)`);
  return terminalSafe(lines.join('\n'));
}

/** Passed-over Q&A files and sheets the summary names one per line; hundreds would bury the rest. */
const MAX_SKIPPED_LINES = 10;

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
 * A score with four significant digits: fused Q&A scores are small (0.01639, 0.01613) and three decimals showed
 * them all as 0.016; BM25's are larger (12.35).
 */
function scoreText(score: number): string {
  return Number.isFinite(score) ? String(Number(score.toPrecision(4))) : String(score);
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
      const learned = hit.learnedFrom ? `  learned from ticket ${hit.learnedFrom.slice(0, 12)}` : '';
      return `${i + 1}. ${hit.id}  (score ${scoreText(hit.score)})${learned}${heading}\n   ${body}`;
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

// C0 controls except tab and newline, DEL, and C1 controls (0x80–0x9f; 0x9b is a one-byte CSI on many terminals);
// and the text-direction controls (marks, embeddings, overrides, isolates).
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Bidi_Control}]/gu;

/**
 * Text for a terminal from text strangers wrote (subjects, names, drafts): control characters other than newline
 * and tab are removed, so an escape sequence in a mail cannot retitle the terminal, clear it, move the cursor or
 * write the clipboard (OSC 52) when an operator lists tickets. What remains of a sequence is plain text. Text-direction
 * controls go too: in a terminal that lays out bidirectional text, a right-to-left override in a sender's name would
 * reverse the address printed after it.
 */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_CONTROLS, '');
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Columns `text` takes in a terminal (one line): string-width's count, from Unicode's East Asian Width data — kana,
 * kanji, fullwidth forms and emoji take two, combining and invisible marks none.
 */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** Columns of one user-perceived character (a base with its marks, a ZWJ emoji sequence, a flag). */
function graphemeWidth(grapheme: string): number {
  return stringWidth(grapheme);
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
 * {@link terminalSafe}, which the caller applies to the whole table, drops control characters. A ticket's creation is
 * shown in `timeZone`, the zone named (`2026-03-03 00:04 GMT+9`), as the dashboard shows it: by default the desk's
 * (`TZ`, which the configuration applies to the process), so the operator never converts from UTC in their head;
 * `--json` keeps the stored ISO value.
 */
export function formatTable(tickets: readonly Ticket[], total: number, timeZone: string = deskTimeZone()): string {
  if (tickets.length === 0) return 'No tickets.';
  // A record stored without createdAt (hand-made, or older than the field) shows an empty column, not "undefined".
  const created = (t: Ticket) => localTime(t.createdAt, timeZone) ?? t.createdAt ?? '';
  const rows = tickets.map((t) => [t.id.slice(0, 12), t.state, created(t), cut(t.from, 28), cut(t.subject, 36), cut(t.reason ?? '', 60)]);
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

/**
 * A stored ISO time as the CLI's text output shows it: in `timeZone`, the zone named (`2026-03-03 00:04 GMT+9`), as
 * {@link formatTable} shows a ticket's creation (by default the desk's, `TZ`); the stored value as it is when it is
 * no date, and empty when there is none. `--json` output keeps the stored ISO value instead.
 */
export function shownTime(at: string | undefined, timeZone: string = deskTimeZone()): string {
  return at === undefined ? '' : (localTime(at, timeZone) ?? at);
}

/** `1 file` / `2 files`. */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`;
}
