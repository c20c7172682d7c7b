/**
 * A Prometheus scrape reads /metrics with a token of its own (METRICS_TOKEN), so its configuration — often in a
 * shared repository or secret store — does not hold the password that approves and sends mail. The token opens
 * /metrics and nothing else. Real HTTP against the dashboard app and a real redis-server.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { basicAuth, useDashboardHarness } from '../support/dashboard.js';

const BASIC = basicAuth();
const TOKEN = 'scrape-3f9a1c7e5b2d4a6f8e0c1b3d';

const harness = useDashboardHarness();
const dashboard = async (env: Record<string, string>) => (await harness.start(env)).url;

const status = async (url: string, authorization?: string) => (await fetch(url, { headers: authorization ? { authorization } : {} })).status;

describe('METRICS_TOKEN', () => {
  it('opens /metrics to a bearer of the token, and nothing else', async () => {
    const base = await dashboard({ METRICS_TOKEN: TOKEN });
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('# TYPE');
    expect(await status(`${base}/metrics`, `Bearer ${TOKEN}x`)).toBe(401);
    expect(await status(`${base}/metrics`)).toBe(401);
    for (const path of ['/', '/api/tickets', '/insights', '/admin/queues']) expect(await status(`${base}${path}`, `Bearer ${TOKEN}`), path).toBe(401);
    // The operator's login still reads it.
    expect(await status(`${base}/metrics`, BASIC)).toBe(200);
  });

  it('is off without the variable: a bearer token reads nothing', async () => {
    const base = await dashboard({});
    expect(await status(`${base}/metrics`, `Bearer ${TOKEN}`)).toBe(401);
  });

  it('refuses a token too short to resist guessing, naming the variable', () => {
    expect(() => parseConfig({ DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: 'x', METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });
});
