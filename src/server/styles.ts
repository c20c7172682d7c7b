/**
 * The review page's stylesheet. Served from its own route (`/assets/review.css`) because the page's CSP allows
 * styles from the dashboard's origin only, never inline.
 */

/** Path of the stylesheet. */
export const STYLESHEET_PATH = '/assets/review.css';

/** The stylesheet. System fonts first, with Japanese fallbacks: most mail and drafts are Japanese. */
export const REVIEW_CSS = `
:root {
  --ink: #1d2430; --muted: #5d6878; --line: #dde2ea; --bg: #f5f7fa; --card: #fff;
  --accent: #2457c5; --ok: #1f7a4a; --ok-bg: #e6f4ec; --warn: #8a5a00; --warn-bg: #fff4dc;
  --bad: #b3261e; --bad-bg: #fdecea;
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--ink); }
body {
  margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Hiragino Sans", "Noto Sans CJK JP",
    "IPAPGothic", "Yu Gothic", sans-serif;
}
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
header.top {
  background: #1d2430; color: #fff; padding: 8px 24px; display: flex; flex-wrap: wrap; align-items: center; gap: 6px 24px; min-height: 52px;
}
header.top .brand { font-weight: 600; letter-spacing: .02em; }
header.top nav { display: flex; flex-wrap: wrap; gap: 4px 18px; }
header.top nav a { color: #c9d3e3; }
header.top nav a.current { color: #fff; font-weight: 600; }
/* Metrics and Readiness open what machines read (Prometheus text, JSON): marked so, not styled as pages. */
header.top nav a .raw { font-size: 12px; color: #8d99ab; }
header.top .who { margin-left: auto; color: #9aa6b8; font-size: 13px; }
main { max-width: 1120px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 16px; margin: 0 0 12px; color: var(--ink); }
h3 { font-size: 15px; margin: 0 0 6px; overflow-wrap: anywhere; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 18px 20px; margin-bottom: 18px; }
.muted { color: var(--muted); }
.small { font-size: 13px; }
.flash { border-radius: 8px; padding: 12px 16px; margin-bottom: 18px; border: 1px solid; }
.flash.ok { background: var(--ok-bg); border-color: #b7dfc7; color: var(--ok); }
.flash.bad { background: var(--bad-bg); border-color: #f3c1bc; color: var(--bad); }
.warning { background: var(--warn-bg); border: 1px solid #e8c77a; color: var(--ink); border-radius: 8px; padding: 12px 16px; margin-bottom: 14px; overflow-wrap: anywhere; }
.warning strong { display: block; color: var(--warn); margin-bottom: 4px; }
.warning ul { margin: 6px 0; padding-left: 20px; }
label.check { display: flex; gap: 8px; align-items: flex-start; font-weight: 600; flex-basis: 100%; }
label.check input { margin-top: 5px; }
.toolbar { display: flex; align-items: center; gap: 16px; flex-wrap: wrap; margin-bottom: 18px; }
.chips { display: flex; gap: 8px; flex-wrap: wrap; }
.chip { background: var(--card); border: 1px solid var(--line); border-radius: 999px; padding: 2px 10px; font-size: 13px; color: var(--muted); }
.chip b { color: var(--ink); }
.toolbar form { margin-left: auto; }
/* The search box takes the free space of the toolbar; the reindex button stays after it. */
.toolbar form.search { display: flex; gap: 8px; flex: 1 1 320px; max-width: 520px; }
.toolbar form.search + form { margin-left: 0; }
.toolbar form.search input { flex: 1; min-width: 0; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 9px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600; }
td.subject, td.text, td.from { overflow-wrap: anywhere; }
td.age, td.nowrap { white-space: nowrap; }
/* Fixed layouts: one long sender, subject or link wraps in its own cell instead of widening the whole table. */
table.list, table.history { table-layout: fixed; }
table.list col.age { width: 84px; }
table.list col.from { width: 26%; }
table.list col.subject { width: 30%; }
table.list col.when { width: 11rem; }
table.list col.state { width: 7rem; }
td.from .name, td.from .addr { display: block; }
td.from .addr { color: var(--muted); font-size: 13px; }
table.history td { overflow-wrap: anywhere; }
table.history col.when { width: 13rem; }
table.history col.change { width: 11rem; }
table.history col.by { width: 9rem; }
@media (max-width: 600px) {
  main { padding: 12px; }
  header.top { padding: 8px 12px; }
  .card { padding: 14px 12px; }
  /* Too narrow for four columns: each row becomes a block of its cells. */
  table.list thead, table.history thead, table.list colgroup, table.history colgroup { display: none; }
  table.list tr, table.history tr { display: block; padding: 8px 0; border-bottom: 1px solid var(--line); }
  table.list td, table.history td { display: block; border: 0; padding: 2px 4px; }
  table.list td.age, table.history td:first-child { color: var(--muted); font-size: 13px; }
}
tr:last-child td { border-bottom: 0; }
.empty { padding: 24px; text-align: center; color: var(--muted); }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 12px 0 0; font-size: 14px; }
.meta dt { color: var(--muted); }
.meta dd { margin: 0; overflow-wrap: anywhere; }
.badge { display: inline-block; border-radius: 4px; padding: 0 7px; font-size: 12px; font-weight: 600; line-height: 20px; }
.badge.parked, .badge.partial { background: var(--warn-bg); color: var(--warn); }
.badge.done, .badge.approved, .badge.sent { background: var(--ok-bg); color: var(--ok); }
.badge.rejected, .badge.failed, .badge.fallback { background: var(--bad-bg); color: var(--bad); }
.badge.other { background: #eef1f5; color: var(--muted); }
pre.text {
  white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; font: 14px/1.6 ui-monospace, "SFMono-Regular", Menlo,
    Consolas, "IPAGothic", monospace; background: #fafbfc; border: 1px solid var(--line); border-radius: 6px;
  padding: 12px 14px; max-height: 420px; overflow: auto;
}
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 18px; }
@media (max-width: 900px) { .columns { grid-template-columns: 1fr; } }
textarea, input[type=text], input[type=search] {
  width: 100%; font: inherit; color: inherit; border: 1px solid #c4ccd8; border-radius: 6px; padding: 10px 12px; background: #fff;
}
textarea { resize: vertical; line-height: 1.6; }
textarea:focus, input[type=text]:focus, input[type=search]:focus { outline: 2px solid #9db6ea; border-color: var(--accent); }
.actions { display: flex; gap: 12px; align-items: center; margin-top: 12px; flex-wrap: wrap; }
button {
  font: inherit; font-weight: 600; border-radius: 6px; padding: 8px 16px; cursor: pointer; border: 1px solid transparent;
}
button.primary { background: var(--accent); color: #fff; }
button.primary:hover { background: #1c469f; }
button.danger { background: #fff; color: var(--bad); border-color: #e3a49f; }
button.danger:hover { background: var(--bad-bg); }
button.secondary { background: #fff; color: var(--ink); border-color: #c4ccd8; }
form.reject { display: flex; gap: 10px; align-items: flex-start; margin-top: 14px; padding-top: 14px; border-top: 1px dashed var(--line); }
form.reject input, form.reject span { flex: 1; }
form.reject button { flex-shrink: 0; white-space: nowrap; }
ol.plan { margin: 0; padding-left: 22px; }
ol.plan li { margin: 2px 0; }
.subtask { border: 1px solid var(--line); border-radius: 6px; padding: 12px 14px; margin-top: 12px; }
.subtask header { display: flex; gap: 10px; align-items: baseline; justify-content: space-between; }
.subtask .answer { margin: 8px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.subtask ul { margin: 4px 0 0; padding-left: 20px; font-size: 13px; color: var(--muted); }
.subtask ul li { overflow-wrap: anywhere; }
ul.sources { margin: 0; padding-left: 20px; }
.badge.learned, .badge.update { background: #e8eefb; color: var(--accent); }
.candidate { border: 1px solid var(--line); border-radius: 6px; padding: 12px 14px; margin-top: 12px; }
.candidate header { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; margin-bottom: 8px; }
.candidate label { display: block; margin: 8px 0 2px; }
.candidate .actions label { display: inline; margin: 0; }
form.inline { margin-top: 8px; }
td.qa { overflow-wrap: anywhere; }
td.qa .q { font-weight: 600; white-space: pre-wrap; }
td.qa .a { white-space: pre-wrap; color: var(--muted); margin-top: 4px; }
code { font: 13px ui-monospace, Menlo, Consolas, monospace; background: #eef1f5; border-radius: 3px; padding: 0 4px; overflow-wrap: anywhere; }
h2 .order { font-weight: 400; margin-left: 8px; }
.pager { display: flex; gap: 16px; justify-content: flex-end; margin-top: 12px; font-size: 14px; }
/* Insights: charts take their colours from these variables, so the dark palette below recolours them too. */
:root {
  --o-auto_sent: #1f8a55; --o-approved_as_is: #2f6fd6; --o-approved_edited: #8fb3f0; --o-rejected: #c8453b;
  --o-ignored: #a3adbb; --o-failed: #d98a1c; --gap: #8a5cc7; --grid: #e6eaf0;
}
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 12px; margin-bottom: 18px; }
.tile { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
.tile-label { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.tile-value { font-size: 24px; font-weight: 600; }
.card .tiles .tile { background: var(--bg); }
svg.chart { width: 100%; height: auto; display: block; margin: 4px 0 8px; }
svg.chart text { font: 11px system-ui, sans-serif; fill: var(--muted); }
svg.chart text.label, svg.chart text.value { font-size: 13px; fill: var(--ink); }
svg.chart line.grid { stroke: var(--grid); stroke-width: 1; }
.seg.o-auto_sent, .swatch.o-auto_sent, .bar.auto { fill: var(--o-auto_sent); background: var(--o-auto_sent); }
.seg.o-approved_as_is, .swatch.o-approved_as_is, .bar.reviewed, .bar.edit { fill: var(--o-approved_as_is); background: var(--o-approved_as_is); }
.seg.o-approved_edited, .swatch.o-approved_edited { fill: var(--o-approved_edited); background: var(--o-approved_edited); }
.seg.o-rejected, .swatch.o-rejected, .bar.rejected { fill: var(--o-rejected); background: var(--o-rejected); }
.seg.o-ignored, .swatch.o-ignored { fill: var(--o-ignored); background: var(--o-ignored); }
.seg.o-failed, .swatch.o-failed { fill: var(--o-failed); background: var(--o-failed); }
.bar.rate { fill: var(--o-auto_sent); }
.bar.gap { fill: var(--gap); }
ul.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 0 0 12px; padding: 0; font-size: 13px; color: var(--muted); }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
table.numbers { font-size: 13px; }
table.numbers caption { text-align: left; font-size: 13px; color: var(--muted); padding: 4px 0 6px; caption-side: top; }
table.numbers th, table.numbers td { padding: 4px 6px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
/* A numbers table's long column names wrap, so a dozen columns fit a laptop-wide card. */
table.numbers th.num { white-space: normal; }
.scroll { max-height: 320px; overflow: auto; }
.chip.current { border-color: var(--accent); }
.toolbar h1 { margin: 0; }
@media (prefers-color-scheme: dark) {
  :root {
    --ink: #e3e8ef; --muted: #9ba7b8; --line: #2f3846; --bg: #12161c; --card: #1a2029; --accent: #7ea6f5;
    --ok: #7fd3a2; --ok-bg: #173325; --warn: #f0c46c; --warn-bg: #3a2e12; --bad: #f2a199; --bad-bg: #3d1d1a;
    --o-auto_sent: #3fbf7f; --o-approved_as_is: #5b93f0; --o-approved_edited: #a9c4f5; --o-rejected: #ef6b60;
    --o-ignored: #6d7787; --o-failed: #f0a53c; --gap: #b48ef0; --grid: #2a323e;
  }
  pre.text, textarea, input[type=text], input[type=search], button.danger, button.secondary { background: var(--card); color: var(--ink); }
  button.danger { color: var(--bad); }
  code, .badge.other { background: #263040; }
}
`;
