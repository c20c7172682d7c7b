/**
 * The figures a benchmark run produces, their targets, and the one table (and JSON document) they are reported in.
 */

/** How a figure is judged against its target. */
export interface Target {
  /** `<=` or `>=` the limit, or `==` exactly. */
  op: '<=' | '>=' | '==';
  limit: number;
}

/** One measured figure. */
export interface Figure {
  /** Stable key for the JSON, e.g. `e2e.0ms.c32.throughput`. */
  id: string;
  /** Phase (1–8 of the issue) the figure belongs to. */
  phase: string;
  /** Human name for the table. */
  name: string;
  /** The measured value; null when it could not be measured (see `note`). */
  value: number | null;
  unit: string;
  target?: Target;
  /** Judgement against the target: null for figures without one and for `--quick` runs. */
  pass: boolean | null;
  /** What exactly was measured (sizes, conditions), or why nothing was. */
  note?: string;
}

/** A whole run, as written by `--json`. */
export interface BenchReport {
  startedAt: string;
  quick: boolean;
  phases: string[];
  machine: { cpus: number; cpuModel: string; totalMemMb: number; node: string; loadAvgAtStart: number[]; loadAvgAtEnd: number[] };
  durationSeconds: number;
  figures: Figure[];
  /** Figures with a target that failed (empty in `--quick` runs, which judge nothing). */
  failed: string[];
}

/** Collects figures; judges them unless the run is a `--quick` one. */
export class FigureSink {
  readonly figures: Figure[] = [];

  constructor(private readonly judge: boolean) {}

  add(f: Omit<Figure, 'pass'>): Figure {
    // A figure with a target that could not be measured fails: a broken measurement must not look like a pass.
    const pass = !this.judge || !f.target ? null : f.value !== null && Number.isFinite(f.value) ? meets(f.value, f.target) : false;
    const figure: Figure = { ...f, pass };
    this.figures.push(figure);
    return figure;
  }
}

/** Whether `value` meets `target`. */
export function meets(value: number, target: Target): boolean {
  if (target.op === '<=') return value <= target.limit;
  if (target.op === '>=') return value >= target.limit;
  return value === target.limit;
}

/** A number for the table: integers as they are, others with three significant digits. */
export function formatValue(value: number | null, unit: string): string {
  if (value === null || !Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  const text = Number.isInteger(value) ? String(value) : abs >= 100 ? value.toFixed(0) : abs >= 10 ? value.toFixed(1) : abs >= 1 ? value.toFixed(2) : value.toFixed(3);
  return unit ? `${text} ${unit}` : text;
}

function formatTarget(target: Target | undefined, unit: string): string {
  if (!target) return '';
  return `${target.op} ${formatValue(target.limit, unit)}`;
}

/** The table: figure, value, target, pass/fail, and what was measured. */
export function renderTable(figures: readonly Figure[]): string {
  const rows = figures.map((f) => [
    f.phase,
    f.name,
    formatValue(f.value, f.unit),
    formatTarget(f.target, f.unit),
    f.pass === null ? (f.target ? '—' : '') : f.pass ? 'pass' : 'FAIL',
    f.note ?? '',
  ]);
  const header = ['#', 'figure', 'value', 'target', 'result', 'measured'];
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i]!))));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : pad(c, widths[i]!))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

// East Asian wide characters take two columns in a terminal.
function width(s: string): number {
  let w = 0;
  for (const ch of s) w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch) ? 2 : 1;
  return w;
}

function pad(s: string, w: number): string {
  return s + ' '.repeat(Math.max(0, w - width(s)));
}
