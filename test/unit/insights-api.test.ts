/**
 * The insights page names the time zone its days are counted in: the desk's, not always UTC.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../src/agent/prices.js';
import { renderInsightsPage } from '../../src/server/insights-view.js';
import { insightsFromDays } from '../../src/tickets/insights.js';

describe('insights page', () => {
  it.each(['Asia/Tokyo', 'America/New_York', 'UTC'])('labels the period with its zone, %s', (zone) => {
    const report = insightsFromDays([{ day: '2025-04-10', fields: { auto_sent: '2' } }, { day: '2025-04-11', fields: {} }], DEFAULT_PRICES, zone);
    const page = renderInsightsPage({ report, user: 'anna' }).toString();
    expect(page).toContain(`2025-04-10 – 2025-04-11 (${zone})`);
    if (zone !== 'UTC') expect(page).not.toContain('(UTC)');
  });
});
