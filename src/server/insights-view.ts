/**
 * The insights page: charts drawn here as inline SVG (no script, no images, nothing fetched: the review page's CSP
 * holds), coloured by classes of the stylesheet so they follow its light and dark palettes, each followed by a table
 * of the same numbers for screen readers and for copying. Bars are per day up to {@link DAILY_BARS_MAX_DAYS} days and
 * per week beyond: a year of daily bars is a smear, and its table a scroll box of 365 rows.
 */
import { OUTCOMES, type OutcomeKind } from '../tickets/outcome.js';
import type { InsightWeek, ReplyTimeStats } from '../tickets/insights.js';
import { sourceLabelOfId } from '../tickets/trust.js';
import { formatDuration } from './health.js';
import { html, type SafeHtml } from './html.js';
import type { InsightsReport } from './insights.js';
import { layout, timeTag } from './views.js';

/** Periods offered above the charts, in days. */
export const PERIOD_CHOICES = [7, 30, 90, 365] as const;

/** Longest period drawn with a bar per day; longer ones get a bar per week. */
export const DAILY_BARS_MAX_DAYS = 31;

/** What people call each outcome on the page. */
export const OUTCOME_LABELS: Record<OutcomeKind, string> = {
  auto_sent: 'sent automatically',
  approved_as_is: 'approved as is',
  approved_edited: 'approved after edits',
  rejected: 'rejected',
  ignored: 'ignored',
  failed: 'failed',
};

// Charts in SVG user units close to the CSS pixels of their card (full width, or half in a two-column row), so their
// text is drawn at about the page's text size; the SVG still scales with the card.
const WIDE = 1040;
const HALF = 480;
const HEIGHT = 200;
const LEFT = 44;
const BOTTOM = 22;
const TOP = 8;
const PLOT_H = HEIGHT - TOP - BOTTOM;
const plotWidth = (width: number) => width - LEFT - 8;
const MAX_RATE_BAR = 48;

const round1 = (n: number) => Math.round(n * 10) / 10;

/** A percentage for people: `73 %`, or a dash when there is nothing to divide. */
export function percent(rate: number | null): string {
  return rate === null ? '–' : `${Math.round(rate * 100)} %`;
}

/** US dollars with enough decimals to tell small amounts apart. */
export function dollars(usd: number | null): string {
  if (usd === null) return '–';
  if (usd === 0) return '$0';
  return usd >= 10 ? `$${usd.toFixed(2)}` : `$${usd.toPrecision(3)}`;
}

function seconds(s: number | null): string {
  return s === null ? '–' : formatDuration(s * 1000);
}

function integer(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** A round upper end for a y axis that holds `max`. */
function axisMax(max: number): number {
  if (max <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  const step = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((m) => m * magnitude >= max) ?? 10;
  return step * magnitude;
}

/** A day or a week of the period, as a bar of the charts and a row of the table under them. */
interface Span {
  /** Under the bar: `MM-DD` of the day, or of the week's Monday. */
  axis: string;
  /** In the bar's hover text and the table: the day, or `week of` its Monday. */
  name: string;
  /** The table's first cell. */
  row: string;
  outcomes: Record<OutcomeKind, number>;
  answered: number;
  automationRate: number | null;
}

/** What the period's bars are: days, or weeks for a period longer than {@link DAILY_BARS_MAX_DAYS}. */
function spansOf(r: InsightsReport): { unit: 'day' | 'week'; spans: Span[] } {
  if (r.days <= DAILY_BARS_MAX_DAYS) return { unit: 'day', spans: r.daily.map((d) => ({ ...d, axis: d.day.slice(5), name: d.day, row: d.day })) };
  return { unit: 'week', spans: r.weekly.map((w) => ({ ...w, axis: w.week.slice(5), name: `week of ${w.week}`, row: weekLabel(w) })) };
}

/** The week's Monday, with how many of its days the period holds when not all seven. */
function weekLabel(w: Pick<InsightWeek, 'week' | 'days'>): string {
  return w.days < 7 ? `${w.week} (${w.days} day${w.days === 1 ? '' : 's'})` : w.week;
}

/** Labels under at most ~15 of the bars, so they never overlap. */
function spanLabels(spans: ReadonlyArray<Pick<Span, 'axis'>>, slot: number): SafeHtml[] {
  const every = Math.max(1, Math.ceil(spans.length / 15));
  return spans.flatMap((s, i) =>
    i % every === 0 ? [html`<text class="axis" x="${round1(LEFT + slot * i + slot / 2)}" y="${HEIGHT - 6}" text-anchor="middle">${s.axis}</text>`] : [],
  );
}

/**
 * The gridlines of a y axis up to `max`: 0, the middle and `max`. On an axis of counts (`whole`) the middle is left out
 * when it falls between two whole numbers (1.5 of 3, 0.5 of 1): labelled as a whole number it would name the wrong
 * line, or repeat the label above it.
 */
export function axisTicks(max: number, whole: boolean): number[] {
  const middle = max / 2;
  return whole && !Number.isInteger(middle) ? [0, max] : [0, middle, max];
}

function yAxis(max: number, format: (v: number) => string, width: number, whole: boolean): SafeHtml {
  const ticks = axisTicks(max, whole).map((v) => {
    const y = round1(TOP + PLOT_H - (v / max) * PLOT_H);
    return html`<line class="grid" x1="${LEFT}" x2="${width - 8}" y1="${y}" y2="${y}"></line><text class="axis" x="${LEFT - 6}" y="${y + 4}" text-anchor="end">${format(v)}</text>`;
  });
  return html`${ticks}`;
}

function chart(id: string, title: string, body: SafeHtml, width: number, height = HEIGHT): SafeHtml {
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title" preserveAspectRatio="xMidYMid meet"><title id="${id}-title">${title}</title>${body}</svg>`;
}

function outcomesChart(spans: readonly Span[], unit: 'day' | 'week'): SafeHtml {
  const max = axisMax(Math.max(0, ...spans.map((d) => OUTCOMES.reduce((n, o) => n + d.outcomes[o], 0))));
  const slot = plotWidth(WIDE) / spans.length;
  const bar = Math.max(1, slot * 0.72);
  const bars = spans.map((d, i) => {
    let y = TOP + PLOT_H;
    const x = round1(LEFT + slot * i + (slot - bar) / 2);
    return OUTCOMES.filter((o) => d.outcomes[o] > 0).map((o) => {
      const h = (d.outcomes[o] / max) * PLOT_H;
      y -= h;
      return html`<rect class="seg o-${o}" x="${x}" y="${round1(y)}" width="${round1(bar)}" height="${round1(h)}"><title>${d.name}: ${d.outcomes[o]} ${OUTCOME_LABELS[o]}</title></rect>`;
    });
  });
  return chart('outcomes', `Tickets per ${unit} by outcome`, html`${yAxis(max, integer, WIDE, true)}${bars}${spanLabels(spans, slot)}`, WIDE);
}

/** Bars of a share (0 to 1) per day or week; a span without a share (nothing to divide) has no bar. */
function rateChart(id: string, title: string, bars: ReadonlyArray<{ axis: string; rate: number | null; tip: string }>): SafeHtml {
  const slot = plotWidth(WIDE) / bars.length;
  // A share reads from the bar's height: a period of two weeks gets two slim bars, not two blocks.
  const width = Math.min(MAX_RATE_BAR, Math.max(1, slot * 0.72));
  const body = bars.flatMap((b, i) => {
    if (b.rate === null) return [];
    const h = b.rate * PLOT_H;
    return [html`<rect class="bar rate" x="${round1(LEFT + slot * i + (slot - width) / 2)}" y="${round1(TOP + PLOT_H - h)}" width="${round1(width)}" height="${round1(h)}"><title>${b.tip}</title></rect>`];
  });
  return chart(id, title, html`${yAxis(1, (v) => `${Math.round(v * 100)}%`, WIDE, false)}${body}${spanLabels(bars, slot)}`, WIDE);
}

function automationChart(spans: readonly Span[], unit: 'day' | 'week'): SafeHtml {
  const bars = spans.map((d) => ({ axis: d.axis, rate: d.automationRate, tip: `${d.name}: ${percent(d.automationRate)} of ${d.answered} replies sent automatically` }));
  return rateChart('automation', `Automation rate per ${unit} (sent automatically / replies sent)`, bars);
}

function answeredWellChart(weeks: readonly InsightWeek[]): SafeHtml {
  const bars = weeks.map((w) => ({ axis: w.week.slice(5), rate: w.answeredWell, tip: `week of ${w.week}: ${percent(w.answeredWell)} of ${w.needingAnswer} mails that needed an answer answered well` }));
  return rateChart('answered-well', 'Answered well per week (sent automatically or approved as drafted / mail that needed an answer)', bars);
}

/** A change of a share in percentage points: `+3 pts`, `−2.5 pts`, `±0 pts`, or a dash when there is none. */
export function points(change: number | null): string {
  if (change === null) return '–';
  if (change === 0) return '±0 pts';
  const size = Number.isInteger(change) ? String(Math.abs(change)) : Math.abs(change).toFixed(1);
  return `${change > 0 ? '+' : '−'}${size} pts`;
}

/**
 * The week's replies citing a learned answer: a dash when none of its replies had their sources recorded, and how many
 * were when only some were (the others may have cited one too).
 */
function learnedCell(w: InsightWeek): string {
  if (w.answered > 0 && w.sourcesRecorded === 0) return '–';
  return w.sourcesRecorded < w.answered ? `${w.learnedReplies} of ${w.sourcesRecorded} recorded` : String(w.learnedReplies);
}

function weeksSection(r: InsightsReport): SafeHtml {
  const newestFirst = [...r.weekly].reverse();
  return html`<section class="card" id="weeks">
  <h2>Answered well, week by week</h2>
  <p class="small muted">Answered well: of the mail that needed an answer, the share that got a reply sent automatically or approved as the agent drafted it. Mail that needed an answer is every mail but what the checks ignored (automatic replies, bulk mail, spam) and what a person rejected as no reply needed (mail without a draft that the checks parked before the agent ran for what it is, such as a forward, a recall, an invitation or a bounce; not mail the agent failed on, or that a limit or its size parked): the replies sent, the rejected drafts, the failed mail, and the mail still waiting for a reply. Ended mail counts in the week it ended, mail still waiting in the week it came in; so a reply edited before sending, a rejected draft, a failure and mail still waiting all lower the share, closing mail that needs no reply does not. Weeks recorded before this version count every rejection against it. Weeks start on Monday; the first and last week of the period hold only its days.</p>
  ${answeredWellChart(r.weekly)}
  <p class="small muted" id="weeks-columns">Mail in: tickets created that week that are still stored. Needed an answer: mail that ended that week not ignored, and mail that came in that week still waiting (of which: still waiting). No reply needed: mail the checks parked for what it is, rejected without a draft, not in the share. Auto-sent: replies sent without a person; as drafted: approved without an edit; edited: approved after an edit. Change: from the week before, in percentage points. Of replies sent: the older figure, answered well of the replies sent only. Learned: replies whose sources cite a learned answer (learned#…); – where the sources of the week's replies were not recorded.</p>
  <div class="scroll"><table class="numbers" aria-describedby="weeks-columns">
    <caption>Per week, newest first</caption>
    <thead><tr><th>Week of</th><th class="num">mail in</th><th class="num">needed an answer</th><th class="num">still waiting</th><th class="num">no reply needed</th><th class="num">replies</th><th class="num">auto-sent</th><th class="num">as drafted</th><th class="num">edited</th><th class="num">answered well</th><th class="num">change</th><th class="num">of replies sent</th><th class="num">learned</th></tr></thead>
    <tbody>${newestFirst.map(
      (w) =>
        html`<tr><td class="nowrap">${weekLabel(w)}</td><td class="num">${w.mailIn === null ? '–' : integer(w.mailIn)}</td><td class="num">${integer(w.needingAnswer)}</td><td class="num">${integer(w.waiting)}</td><td class="num">${integer(w.noReplyNeeded)}</td><td class="num">${integer(w.answered)}</td><td class="num">${integer(w.outcomes.auto_sent)}</td><td class="num">${integer(w.outcomes.approved_as_is)}</td><td class="num">${integer(w.outcomes.approved_edited)}</td><td class="num">${percent(w.answeredWell)}</td><td class="num nowrap">${points(w.answeredWellChange)}</td><td class="num">${percent(w.answeredWellOfReplies)}</td><td class="num">${learnedCell(w)}</td></tr>`,
    )}</tbody>
  </table></div>
</section>`;
}

/** Horizontal bars: one row per item, the label left of the bar and the value right of it. */
function horizontalBars(id: string, title: string, rows: ReadonlyArray<{ label: string; value: number; shown: string; cls: string }>, width: number): SafeHtml {
  const rowH = 26;
  const labelW = width >= WIDE ? 300 : 180;
  const valueW = 90;
  const height = rows.length * rowH + 8;
  const max = Math.max(0, ...rows.map((r) => r.value)) || 1;
  const span = width - labelW - valueW;
  // Roughly what fits left of the bars at 13 px (wide CJK characters count double).
  const room = Math.floor((labelW - 12) / 7.5);
  const body = rows.map((r, i) => {
    const y = 4 + i * rowH;
    const w = (r.value / max) * span;
    const label = fitLabel(r.label, room);
    return html`<text class="label" x="${labelW - 8}" y="${y + 17}" text-anchor="end">${label}</text><rect class="bar ${r.cls}" x="${labelW}" y="${y + 4}" width="${round1(Math.max(w, r.value > 0 ? 1 : 0))}" height="${rowH - 8}"><title>${r.label}: ${r.shown}</title></rect><text class="value" x="${round1(labelW + w + 6)}" y="${y + 17}">${r.shown}</text>`;
  });
  return chart(id, title, html`${body}`, width, height);
}

/** `label` cut with an ellipsis to about `room` narrow characters, counting East Asian wide ones as two. */
function fitLabel(label: string, room: number): string {
  let used = 0;
  let out = '';
  for (const ch of label) {
    const w = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch) ? 2 : 1;
    if (used + w > room - 1) return `${out}…`;
    out += ch;
    used += w;
  }
  return out;
}

function replyTimeRows(kind: string, stats: ReplyTimeStats, cls: string) {
  return [
    { label: `${kind}, median`, value: stats.medianSeconds ?? 0, shown: seconds(stats.medianSeconds), cls },
    { label: `${kind}, p90`, value: stats.p90Seconds ?? 0, shown: seconds(stats.p90Seconds), cls },
  ];
}

function editRatioChart(buckets: ReadonlyArray<{ le: number; count: number }>): SafeHtml {
  const max = axisMax(Math.max(0, ...buckets.map((b) => b.count)));
  const slot = plotWidth(HALF) / buckets.length;
  const bar = slot * 0.7;
  const body = buckets.map((b, i) => {
    const h = (b.count / max) * PLOT_H;
    const x = LEFT + slot * i;
    return html`<rect class="bar edit" x="${round1(x + (slot - bar) / 2)}" y="${round1(TOP + PLOT_H - h)}" width="${round1(bar)}" height="${round1(h)}"><title>${bucketLabel(buckets, i)}: ${b.count}</title></rect><text class="axis" x="${round1(x + slot / 2)}" y="${HEIGHT - 6}" text-anchor="middle">${bucketLabel(buckets, i)}</text>`;
  });
  return chart('edit-ratio', 'Edit ratio of approved drafts', html`${yAxis(max, integer, HALF, true)}${body}`, HALF);
}

function bucketLabel(buckets: ReadonlyArray<{ le: number }>, i: number): string {
  const b = buckets[i]!;
  if (b.le === 0) return 'unchanged';
  return `${buckets[i - 1]?.le ?? 0}–${b.le}`;
}

function periodNav(days: number): SafeHtml {
  const choices = PERIOD_CHOICES.map((n) =>
    n === days ? html`<span class="chip current"><b>${n} days</b></span>` : html`<a class="chip" href="/insights?days=${n}">${n} days</a>`,
  );
  return html`<div class="chips" aria-label="Period">${choices}</div>`;
}

function tile(label: string, value: string, note?: string): SafeHtml {
  return html`<div class="tile"><div class="tile-label">${label}</div><div class="tile-value">${value}</div>${note ? html`<div class="small muted">${note}</div>` : null}</div>`;
}

function legend(): SafeHtml {
  return html`<ul class="legend">${OUTCOMES.map((o) => html`<li><span class="swatch o-${o}"></span>${OUTCOME_LABELS[o]}</li>`)}</ul>`;
}

/** Data of the insights page. */
export interface InsightsView {
  report: InsightsReport;
  user: string | undefined;
}

/** The insights page. */
export function renderInsightsPage(view: InsightsView): SafeHtml {
  const r = view.report;
  const { unit, spans } = spansOf(r);
  // The charts read left to right, oldest to newest; the table is read from the top, where today's row belongs
  // rather than under a month of older ones in its scroll box.
  const newestFirst = [...spans].reverse();
  // Runs that all failed (the model server down midway) still cost money: their calls show without any run.
  const anyLlmUse = r.llm.agentRuns > 0 || r.llm.calls > 0;
  const perRun = (n: number | null, format: (n: number) => string) => (n === null ? '–' : format(n));
  const body = html`
<div class="toolbar">
  <h1>Insights <span class="muted small">${r.from} – ${r.to} (${r.timeZone})</span></h1>
  ${periodNav(r.days)}
</div>
<div class="tiles">
  ${tile('Tickets ended', integer(r.totals.ended))}
  ${tile('Replies sent', integer(r.totals.answered))}
  ${tile('Answered well', percent(r.totals.answeredWell), `sent automatically or approved as drafted, of the ${integer(r.totals.needingAnswer)} mails that needed an answer (${integer(r.totals.waiting)} still waiting); ${percent(r.totals.answeredWellOfReplies)} of replies sent${r.totals.noReplyNeeded > 0 ? `; ${integer(r.totals.noReplyNeeded)} rejected without a draft needed no reply (parked by the checks for what the mail is)` : ''}`)}
  ${tile('Automation rate', percent(r.totals.automationRate), 'sent automatically / replies sent')}
  ${tile('Replies bounced', integer(r.totals.bounced), 'reported undelivered after sending')}
  ${tile('LLM cost', dollars(r.llm.costUsd), r.llm.costPerRun !== null ? `${dollars(r.llm.costPerRun)} per ticket run` : undefined)}
</div>

${weeksSection(r)}

<section class="card" id="outcomes">
  <h2>Tickets per ${unit} by outcome</h2>
  ${outcomesChart(spans, unit)}
  ${legend()}
  <div class="scroll"><table class="numbers">
    <caption>Tickets that ended each ${unit}, by outcome, newest first</caption>
    <thead><tr><th>${unit === 'day' ? 'Day' : 'Week of'}</th>${OUTCOMES.map((o) => html`<th class="num">${OUTCOME_LABELS[o]}</th>`)}<th class="num">automation rate</th></tr></thead>
    <tbody>${newestFirst.map((d) => html`<tr><td class="nowrap">${d.row}</td>${OUTCOMES.map((o) => html`<td class="num">${d.outcomes[o]}</td>`)}<td class="num">${percent(d.automationRate)}</td></tr>`)}</tbody>
  </table></div>
</section>

<section class="card" id="automation">
  <h2>Automation rate per ${unit}</h2>
  <p class="small muted">Share of the replies sent each ${unit} that went out without a person. A ${unit} without replies has no bar; the numbers are in the table above.</p>
  ${automationChart(spans, unit)}
</section>

<div class="columns">
  <section class="card" id="reply-time">
    <h2>Time from receipt to reply</h2>
    ${horizontalBars('reply-time-chart', 'Median and 90th percentile time from receipt to reply', [
      ...replyTimeRows('auto-sent', r.replyTime.auto, 'auto'),
      ...replyTimeRows('reviewed', r.replyTime.reviewed, 'reviewed'),
    ], HALF)}
    <table class="numbers">
      <caption>Time from receipt to reply (bucketed: at most 10 % above the exact value)</caption>
      <thead><tr><th>Replies</th><th class="num">count</th><th class="num">median</th><th class="num">90th percentile</th></tr></thead>
      <tbody>
        <tr><td>sent automatically</td><td class="num">${r.replyTime.auto.count}</td><td class="num">${seconds(r.replyTime.auto.medianSeconds)}</td><td class="num">${seconds(r.replyTime.auto.p90Seconds)}</td></tr>
        <tr><td>reviewed</td><td class="num">${r.replyTime.reviewed.count}</td><td class="num">${seconds(r.replyTime.reviewed.medianSeconds)}</td><td class="num">${seconds(r.replyTime.reviewed.p90Seconds)}</td></tr>
      </tbody>
    </table>
  </section>
  <section class="card" id="edit-ratio">
    <h2>How much operators edit drafts</h2>
    ${editRatioChart(r.editRatio.buckets)}
    <table class="numbers">
      <caption>Approved drafts by edit ratio (0 unchanged, 1 rewritten); mean ${r.editRatio.mean === null ? '–' : r.editRatio.mean.toFixed(3)}</caption>
      <thead><tr><th>Edit ratio</th><th class="num">approvals</th></tr></thead>
      <tbody>${r.editRatio.buckets.map((b, i) => html`<tr><td>${bucketLabel(r.editRatio.buckets, i)}</td><td class="num">${b.count}</td></tr>`)}</tbody>
    </table>
  </section>
</div>

<section class="card" id="rejections">
  <h2>Rejection reasons</h2>
  ${
    r.rejectionReasons.length > 0
      ? html`${horizontalBars(
          'rejections-chart',
          'Rejections per reason',
          r.rejectionReasons.slice(0, 10).map((x) => ({ label: x.reason, value: x.count, shown: String(x.count), cls: 'rejected' })),
          WIDE,
        )}
  <table class="numbers">
    <caption>Rejections per reason</caption>
    <thead><tr><th>Reason</th><th class="num">rejections</th></tr></thead>
    <tbody>${r.rejectionReasons.map((x) => html`<tr><td>${x.reason}</td><td class="num">${x.count}</td></tr>`)}</tbody>
  </table>`
      : html`<p class="muted">No draft was rejected in this period.</p>`
  }
</section>

<section class="card" id="llm">
  <h2>LLM calls, tokens and cost</h2>
  ${
    anyLlmUse
      ? html`<div class="tiles">
    ${tile('Agent runs', integer(r.llm.agentRuns))}
    ${tile('Calls per ticket run', perRun(r.llm.callsPerRun, (n) => n.toFixed(1)))}
    ${tile('Tokens per ticket run', perRun(r.llm.tokensPerRun, integer))}
    ${tile('Cost per ticket run', dollars(r.llm.costPerRun))}
  </div>
  <table class="numbers">
    <caption>Tokens and cost per model${r.llm.unpricedModels.length > 0 ? ` (no price for ${r.llm.unpricedModels.join(', ')}: set LLM_PRICES)` : ''}</caption>
    <thead><tr><th>Model</th><th class="num">calls</th><th class="num">prompt tokens</th><th class="num">of which cached</th><th class="num">completion tokens</th><th class="num">cost</th></tr></thead>
    <tbody>${r.llm.models.map((m) => html`<tr><td><code>${m.model}</code></td><td class="num">${integer(m.calls)}</td><td class="num">${integer(m.promptTokens)}</td><td class="num">${integer(m.cachedPromptTokens)}</td><td class="num">${integer(m.completionTokens)}</td><td class="num">${dollars(m.costUsd)}</td></tr>`)}</tbody>
  </table>`
      : html`<p class="muted">The agent did not run in this period.</p>`
  }
</section>

${
  r.knowledgeGaps
    ? html`<section class="card" id="gaps">
  <h2>Top knowledge gaps</h2>
  ${horizontalBars(
    'gaps-chart',
    'Tickets per knowledge gap',
    r.knowledgeGaps.map((g) => ({ label: g.topic, value: g.tickets, shown: String(g.tickets), cls: 'gap' })),
    WIDE,
  )}
  <table class="numbers">
    <caption>Topics the knowledge base did not answer</caption>
    <thead><tr><th>Topic</th><th class="num">tickets</th><th>example</th><th>last seen</th></tr></thead>
    <tbody>${r.knowledgeGaps.map((g) => html`<tr><td>${g.topic}</td><td class="num">${g.tickets}</td><td>${g.example ?? ''}</td><td class="nowrap small">${g.lastSeenAt ? timeTag(g.lastSeenAt, r.timeZone) : ''}</td></tr>`)}</tbody>
  </table>
</section>`
    : null
}

${
  r.sourceTrust
    ? html`<section class="card" id="trust">
  <h2>Trusted and not-yet-trusted sources</h2>
  ${horizontalBars('trust-chart', 'Sources by trust', [
    { label: 'trusted', value: r.sourceTrust.trusted, shown: String(r.sourceTrust.trusted), cls: 'auto' },
    { label: 'not yet trusted', value: r.sourceTrust.notYetTrusted, shown: String(r.sourceTrust.notYetTrusted), cls: 'reviewed' },
  ], WIDE)}
  <table class="numbers">
    <caption>Track record of each source in review</caption>
    <thead><tr><th>Source</th><th class="num">reviews</th><th class="num">approved as is</th><th>status</th></tr></thead>
    <tbody>${r.sourceTrust.sources.map((s) => html`<tr><td><bdi>${sourceLabelOfId(s.sourceId)}</bdi><br><code class="small muted">${s.sourceId}</code></td><td class="num">${s.reviews}</td><td class="num">${s.approvedAsIs}</td><td>${s.trusted ? 'trusted' : `not yet trusted${s.missing ? `: ${s.missing}` : ''}`}</td></tr>`)}</tbody>
  </table>
</section>`
    : null
}`;
  return layout({ title: 'Insights', user: view.user, section: 'insights', body });
}
