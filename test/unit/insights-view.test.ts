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

/** The rows of the table in the card `id`, as the texts of their cells. */
function tableRows(page: string, id: string): string[][] {
  const card = page.slice(page.indexOf(`<section class="card" id="${id}">`));
  const table = card.slice(card.indexOf('<tbody>'), card.indexOf('</tbody>'));
  return [...table.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, '')));
}

/** The days from `first` on, `n` of them. */
function daysFrom(first: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => new Date(Date.parse(`${first}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10));
}

describe('weekly table', () => {
  it('lists each week newest first: mail in, mail that needed an answer and still waits, replies, how they went out, answered well and its change, of replies sent, learned answers', () => {
    const fields: Record<string, Record<string, string>> = {
      '2025-04-05': { auto_sent: '1', approved_as_is: '1', approved_edited: '2', rejected: '1', ignored: '2' },
      '2025-04-08': { auto_sent: '3', approved_edited: '1', approved_as_is: '1', rejected: '2', 'rejected:no_draft': '2', 'src:replies': '5', 'src:learned': '2' },
      '2025-04-15': { approved_edited: '3', 'src:replies': '2', 'src:learned': '1' },
    };
    const days = daysFrom('2025-04-05', 11);
    const report = insightsFromDays(
      days.map((day) => ({ day, fields: fields[day] ?? {} })),
      DEFAULT_PRICES,
      'UTC',
      new Map([['2025-03-31', 9], ['2025-04-07', 12], ['2025-04-14', 4]]),
      new Map([['2025-04-07', 3]]),
    );
    const page = renderInsightsPage({ report, user: 'anna' }).toString();
    expect(tableRows(page, 'weeks')).toEqual([
      // week, mail in, needed an answer, still waiting, no reply needed, replies, auto-sent, approved as drafted,
      // approved after an edit, answered well, change, of replies sent, learned
      ['2025-04-14 (2 days)', '4', '3', '0', '0', '3', '0', '0', '3', '0 %', '−50 pts', '0 %', '1 of 2 recorded'],
      ['2025-04-07', '12', '8', '3', '2', '5', '3', '1', '1', '50 %', '+10 pts', '80 %', '2'],
      ['2025-03-31 (2 days)', '9', '5', '0', '0', '4', '1', '1', '2', '40 %', '–', '50 %', '–'],
    ]);
    expect(page).toContain('Answered well');
  });

  it.each<[string, Record<string, string>, string[]]>([
    ['a week of only rejections answered none well and sent no reply', { rejected: '2' }, ['2025-04-07', '–', '2', '0', '0', '0', '0', '0', '0', '0 %', '–', '–', '0']],
    ['a week without mail that needed an answer has no rate', { ignored: '2' }, ['2025-04-07', '–', '0', '0', '0', '0', '0', '0', '0', '–', '–', '–', '0']],
    ['a week of only rejections without a draft needed no answer', { rejected: '2', 'rejected:no_draft': '2' }, ['2025-04-07', '–', '0', '0', '2', '0', '0', '0', '0', '–', '–', '–', '0']],
  ])('%s', (_case, fields, row) => {
    const report = insightsFromDays(daysFrom('2025-04-07', 7).map((day) => ({ day, fields: day === '2025-04-08' ? fields : {} })), DEFAULT_PRICES, 'UTC');
    expect(tableRows(renderInsightsPage({ report, user: 'anna' }).toString(), 'weeks')).toEqual([row]);
  });
});

describe('answered well tile', () => {
  it('gives the share of the mail that needed an answer, and the older share of the replies sent under its own name', () => {
    // The walkthrough's demo: two mails in, one sent automatically, one still parked.
    const report = insightsFromDays([{ day: '2025-04-08', fields: { auto_sent: '1' } }], DEFAULT_PRICES, 'UTC', undefined, new Map([['2025-04-07', 1]]));
    const page = renderInsightsPage({ report, user: 'anna' }).toString();
    const tile = page.slice(page.indexOf('<div class="tile-label">Answered well</div>'));
    expect(tile.slice(0, tile.indexOf('</div></div>'))).toMatch(/tile-value">50 %<\/div>.*of the 2 mails that needed an answer.*100 % of replies sent/);
  });

  it('names the mail a person closed as needing no reply, which is not in the share', () => {
    const report = insightsFromDays([{ day: '2025-04-08', fields: { auto_sent: '1', rejected: '3', 'rejected:no_draft': '2' } }], DEFAULT_PRICES, 'UTC');
    const page = renderInsightsPage({ report, user: 'anna' }).toString();
    const tile = page.slice(page.indexOf('<div class="tile-label">Answered well</div>'));
    expect(tile.slice(0, tile.indexOf('</div></div>'))).toMatch(/tile-value">50 %<\/div>.*of the 2 mails that needed an answer.*2 rejected without a draft needed no reply/);
  });
});

describe('bars per day or per week', () => {
  it.each<[number, string, number]>([
    [31, 'Tickets per day by outcome', 31],
    [32, 'Tickets per week by outcome', 5],
    [365, 'Tickets per week by outcome', 53],
  ])('%d days: %s, %d rows under it', (n, title, rows) => {
    const days = daysFrom('2025-01-06', n);
    const report = insightsFromDays(days.map((day) => ({ day, fields: { auto_sent: '1', approved_edited: '1' } })), DEFAULT_PRICES, 'UTC');
    const page = renderInsightsPage({ report, user: 'anna' }).toString();
    const outcomes = page.slice(page.indexOf('<section class="card" id="outcomes">'));
    const svg = outcomes.slice(0, outcomes.indexOf('</svg>'));
    expect(svg).toContain(`<title id="outcomes-title">${title}</title>`);
    // One stacked bar per day or week: its auto-sent segment.
    expect(svg.match(/class="seg o-auto_sent"/g)).toHaveLength(rows);
    expect(tableRows(page, 'outcomes')).toHaveLength(rows);
    const automation = page.slice(page.indexOf('<section class="card" id="automation">'));
    expect(automation.slice(0, automation.indexOf('</svg>')).match(/class="bar rate"/g)).toHaveLength(rows);
  });
});

describe('knowledge gaps', () => {
  it("shows when a gap was last seen as a time in the desk's zone, the exact value kept", () => {
    const report = { ...insightsFromDays([{ day: '2025-04-11', fields: {} }], DEFAULT_PRICES, 'Asia/Tokyo'), knowledgeGaps: [{ topic: 'invoice <b>', tickets: 2, lastSeenAt: '2025-04-10T23:30:00.000Z' }] };
    const page = renderInsightsPage({ report, user: 'anna' }).toString();
    expect(page).toContain('<time datetime="2025-04-10T23:30:00.000Z" title="2025-04-10T23:30:00.000Z">2025-04-11 08:30 GMT+9</time>');
    expect(page).toContain('invoice &lt;b&gt;');
  });
});
