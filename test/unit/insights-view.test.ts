/**
 * The insights page's charts and tables as HTML: y-axis labels that say what their gridline is, and the daily table
 * in the order a support lead reads it every morning.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../src/agent/prices.js';
import { axisTicks, renderInsightsPage } from '../../src/server/insights-view.js';
import { insightsFromDays } from '../../src/tickets/insights.js';

/** The y-axis labels of the chart in the card `id` (the right-aligned texts left of the plot). */
function yLabels(page: string, id: string): string[] {
  const card = page.slice(page.indexOf(`<section class="card" id="${id}">`));
  const svg = card.slice(0, card.indexOf('</svg>'));
  return [...svg.matchAll(/<text class="axis"[^>]*text-anchor="end">([^<]*)<\/text>/g)].map((m) => m[1]!);
}

function reportWith(fields: Record<string, string>, days = ['2025-04-10', '2025-04-11', '2025-04-12']) {
  return insightsFromDays(days.map((day, i) => ({ day, fields: i === days.length - 1 ? fields : {} })), DEFAULT_PRICES, 'UTC');
}

describe('axisTicks', () => {
  it.each<[number, boolean, number[]]>([
    // Counts: a middle gridline halfway between two whole numbers would be labelled with a rounded, repeated number.
    [1, true, [0, 1]],
    [2, true, [0, 1, 2]],
    [3, true, [0, 3]],
    [10, true, [0, 5, 10]],
    [15, true, [0, 15]],
    [250, true, [0, 125, 250]],
    // Fractions (the automation rate, 0 to 1) keep their middle.
    [1, false, [0, 0.5, 1]],
  ])('max %d, whole numbers %s → %j', (max, whole, ticks) => {
    expect(axisTicks(max, whole)).toEqual(ticks);
  });
});

describe('y-axis labels of the count charts', () => {
  it.each<[string, Record<string, string>, string, string[]]>([
    ['no approvals at all', {}, 'edit-ratio', ['0', '1']],
    ['one approval unchanged', { 'er:le:0': '1' }, 'edit-ratio', ['0', '1']],
    ['three approvals unchanged', { 'er:le:0': '3' }, 'edit-ratio', ['0', '3']],
    ['four approvals unchanged', { 'er:le:0': '4' }, 'edit-ratio', ['0', '2', '4']],
    ['no tickets ended', {}, 'outcomes', ['0', '1']],
    ['fifteen tickets sent automatically', { auto_sent: '15' }, 'outcomes', ['0', '15']],
    ['the automation rate', {}, 'automation', ['0%', '50%', '100%']],
  ])('%s: %j on %s', (_case, fields, chart, labels) => {
    expect(yLabels(renderInsightsPage({ report: reportWith(fields), user: 'anna' }).toString(), chart)).toEqual(labels);
  });

  it('never repeats a label, whatever the largest count', () => {
    for (let n = 0; n <= 120; n++) {
      const labels = yLabels(renderInsightsPage({ report: reportWith({ 'er:le:0': String(n) }), user: 'anna' }).toString(), 'edit-ratio');
      expect(new Set(labels).size, `${n}: ${labels.join(', ')}`).toBe(labels.length);
    }
  });
});

describe('daily table', () => {
  it('lists the newest day first, while the charts run oldest to newest left to right', () => {
    const page = renderInsightsPage({ report: reportWith({ auto_sent: '2' }), user: 'anna' }).toString();
    const outcomes = page.slice(page.indexOf('<section class="card" id="outcomes">'));
    const table = outcomes.slice(outcomes.indexOf('<table'), outcomes.indexOf('</table>'));
    const rows = [...table.matchAll(/<tr><td class="nowrap">([\d-]+)<\/td>/g)].map((m) => m[1]);
    expect(rows).toEqual(['2025-04-12', '2025-04-11', '2025-04-10']);
    expect(table).toContain('newest first');
    const axis = [...outcomes.slice(0, outcomes.indexOf('</svg>')).matchAll(/text-anchor="middle">([\d-]+)<\/text>/g)].map((m) => m[1]);
    expect(axis).toEqual(['04-10', '04-11', '04-12']);
  });
});
