/**
 * The start page lists the parked tickets oldest first, so the customer who has waited longest is at the top of
 * page 1; a link turns the order around. After a decision the operator lands on the next waiting ticket. Real HTTP
 * against the dashboard app and a real redis-server.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newTicket, ticketIdFor } from '../../src/tickets/ticket.js';
import { basicAuth, useDashboardHarness, type TestDashboard } from '../support/dashboard.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();

async function parkedAt(d: TestDashboard, subject: string, createdAt: Date): Promise<string> {
  const messageId = `<order-${randomUUID()}@customer.example>`;
  const id = ticketIdFor(messageId);
  await d.store.createIfAbsent(newTicket({ messageId, from: 'c@customer.example', subject, question: 'q?', actor: 'poller' }, createdAt));
  await d.store.transition(id, { to: 'processing', actor: 'agent-worker' });
  await d.store.transition(id, { to: 'parked', actor: 'agent-worker', patch: { reason: 'review mode always', draft: 'Answer.' } });
  return id;
}

const page = async (d: TestDashboard, path: string) => (await fetch(`${d.url}${path}`, { headers: { authorization: AUTH } })).text();
const subjectsIn = (html: string) => [...html.matchAll(/<td class="subject"><bdi><a href="\/tickets\/[0-9a-f]+">([^<]+)<\/a><\/bdi>/g)].map((m) => m[1]);

describe('the list of parked tickets', () => {
  it('shows the longest-waiting customer first, and newest first on request', async () => {
    const d = await harness.start();
    const now = Date.now();
    await parkedAt(d, 'middle', new Date(now - 2 * 3_600_000));
    await parkedAt(d, 'newest', new Date(now - 60_000));
    await parkedAt(d, 'oldest', new Date(now - 3 * 86_400_000));

    const start = await page(d, '/');
    expect(subjectsIn(start)).toEqual(['oldest', 'middle', 'newest']);
    expect(start).toContain('href="/?order=newest"');
    const newest = await page(d, '/?order=newest');
    expect(subjectsIn(newest)).toEqual(['newest', 'middle', 'oldest']);
    expect(newest).toContain('href="/?order=oldest"');
  });

  it('puts the cursor in the draft, and after a decision opens the next waiting ticket', async () => {
    const d = await harness.start();
    const now = Date.now();
    const first = await parkedAt(d, 'first', new Date(now - 3 * 3_600_000));
    const second = await parkedAt(d, 'second', new Date(now - 2 * 3_600_000));
    const detail = await page(d, `/tickets/${first}`);
    expect(detail).toMatch(/<textarea id="reply"[^>]*\bautofocus\b/);

    const form = (html: string) => Object.fromEntries([...html.slice(html.indexOf('/approve"')).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].slice(0, 2).map((m) => [m[1]!, m[2]!]));
    const post = (path: string, fields: Record<string, string>) =>
      fetch(`${d.url}${path}`, { method: 'POST', headers: { authorization: AUTH, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), redirect: 'manual' });
    const approved = await post(`/tickets/${first}/approve`, { ...form(detail), reply: 'Answer.' });
    expect(approved.status).toBe(303);
    expect(approved.headers.get('location')).toBe(`/tickets/${second}?done=approved&ticket=${first}`);
    const next = await page(d, approved.headers.get('location')!);
    expect(next).toContain('Approved “first”');

    // The last one: back to the list.
    const last = await page(d, `/tickets/${second}`);
    const rejected = await post(`/tickets/${second}/reject`, { ...form(last), reason: 'answered by phone' });
    expect(rejected.headers.get('location')).toBe(`/?done=rejected&ticket=${second}`);
  });
});
