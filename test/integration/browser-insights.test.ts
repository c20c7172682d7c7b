/**
 * The insights page in a real browser (Debian's chromium through playwright-core) against the dashboard role and a
 * real redis-server: a month of tickets seeded through the store's transitions, then the page must draw its charts
 * under the review CSP (a blocked inline style or a fetch would show as a console error), show the numbers as
 * tables, and recolour its charts in the dark palette. Takes a screenshot: into a temporary folder, or over
 * `docs/screenshots/insights.png` (the README's) with UPDATE_SCREENSHOTS=1, so `npm test` never rewrites a tracked
 * file.
 *
 * Skipped (with the reason printed) only when /usr/bin/chromium is absent; CI installs it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentResult, LlmCallRecord } from '../../src/agent/types.js';
import { parseConfig } from '../../src/config.js';
import { freePort } from '../../src/dev/ports.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { startDashboardRole } from '../../src/runtime/dashboard.js';
import { Services } from '../../src/runtime/services.js';
import { approveTicket, rejectTicket } from '../../src/tickets/review.js';
import { newTicket } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { FAST_TUNING, REPO_ROOT, removePrefix } from '../support/pipeline.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  process.stdout.write(`browser-insights: skipped because ${CHROMIUM} is absent (install Debian's chromium to run it)\n`);
}

const USER = 'admin';
const PASSWORD = 'browser-insights-password';
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(REPO_ROOT, 'docs/screenshots/insights.png')
    : path.join(tmpdir(), 'helpdesk-screenshots', 'insights.png');
const DAY_MS = 86_400_000;
// Evaluated in the page (as a string: the test's TypeScript has no DOM types).
const FILL_OF_AUTO_SENT = "getComputedStyle(document.querySelector('#outcomes rect.seg.o-auto_sent')).fill";
/** The section ids of the scroll boxes whose content is wider than the box (a sideways scroll hides part of it). */
const CLIPPED_SIDEWAYS =
  "[...document.querySelectorAll('.scroll')].filter((box) => box.scrollWidth > box.clientWidth + 1).map((box) => box.closest('section')?.id ?? '?')";
const DRAFT = 'お世話になっております。\n\n設定画面の「セキュリティ」から二段階認証を有効にできます。\n\nよろしくお願いいたします。';

let redisServer: RedisServer;
let browser: Browser;
let dataDir: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  [redisServer, dataDir] = await Promise.all([startRedis(), mkdtemp(path.join(tmpdir(), 'browser-insights-'))]);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await browser?.close();
  await Promise.allSettled([redisServer?.stop(), dataDir ? rm(dataDir, { recursive: true, force: true }) : undefined]);
});

function agentResult(calls: number, rand: () => number): AgentResult {
  const llmCalls: LlmCallRecord[] = Array.from({ length: calls }, () => ({
    step: 'create_subtask_answer' as const,
    model: 'gpt-4o-mini',
    durationMs: 900,
    promptTokens: 1800 + Math.floor(rand() * 1500),
    completionTokens: 150 + Math.floor(rand() * 250),
    cachedPromptTokens: 1024,
  }));
  const usage = { calls, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  return { question: 'q', plan: { subtasks: [] }, subtasks: [], answer: DRAFT, sources: [], usage, llmCalls, truncated: false, droppedSubtasks: [], durationMs: 9000 };
}

/**
 * A month of mail as a team might see it: volume up on weekdays, more sent automatically as the weeks go by, a
 * few rejections with their reasons. Every ticket goes through the store's transitions with its clock.
 */
async function seedMonth(store: TicketStore, setClock: (ms: number) => void, review: Parameters<typeof approveTicket>[0]): Promise<void> {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const reasons = ['answered by phone', 'customer wrote again with more detail', 'not a support question'];
  for (let back = 29; back >= 0; back--) {
    const dayStart = today - back * DAY_MS;
    const weekday = new Date(dayStart).getUTCDay() % 6 !== 0;
    const count = (weekday ? 4 : 1) + Math.floor(rand() * 3);
    const autoShare = 0.25 + 0.45 * ((29 - back) / 29);
    for (let i = 0; i < count; i++) {
      let t = dayStart + (1 + Math.floor(rand() * 9)) * 3_600_000;
      const at = (ms: number) => setClock((t += ms));
      at(0);
      const r = rand();
      const ticket = newTicket({ messageId: `<m-${randomUUID()}@customer.example>`, from: 'c@customer.example', subject: 's', question: 'q', actor: 'poller', ...(r > 0.95 ? { state: 'ignored' as const, reason: 'auto-reply' } : {}) }, new Date(t));
      await store.createIfAbsent(ticket);
      if (r > 0.95) continue;
      at(20_000);
      await store.transition(ticket.id, { to: 'processing', actor: 'agent-worker' });
      at(8_000 + Math.floor(rand() * 20_000));
      const agent = agentResult(4 + Math.floor(rand() * 6), rand);
      if (rand() < autoShare) {
        await store.transition(ticket.id, { to: 'drafted', actor: 'agent-worker', patch: { agent, draft: DRAFT } });
        at(2_000);
        await store.transition(ticket.id, { to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${randomUUID()}@h.test>`, autoSubmitted: true } } });
        at(1_000);
        await store.transition(ticket.id, { to: 'sent', actor: 'sender' });
        continue;
      }
      await store.transition(ticket.id, { to: 'parked', actor: 'agent-worker', patch: { agent, draft: DRAFT, reason: 'review' } });
      at((10 + Math.floor(rand() * 240)) * 60_000);
      const choice = rand();
      if (choice < 0.12) {
        await rejectTicket({ store }, { ticketId: ticket.id, operator: 'anna', reason: reasons[Math.floor(rand() * reasons.length)]! });
        continue;
      }
      const edit = choice < 0.6 ? undefined : choice < 0.85 ? DRAFT.replace('設定画面', '画面右上の設定') : `${DRAFT}\n\n補足: 認証アプリは Google Authenticator などをご利用ください。`;
      await approveTicket(review, { ticketId: ticket.id, operator: 'anna', ...(edit ? { reply: edit } : {}) });
      at(3_000);
      await store.transition(ticket.id, { to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${randomUUID()}@h.test>`, autoSubmitted: false } } });
      at(1_000);
      await store.transition(ticket.id, { to: 'sent', actor: 'sender' });
    }
  }
}

describe.skipIf(!HAVE_CHROMIUM)('insights page in a browser', () => {
  it('draws a month of outcomes under the CSP, with tables, in light and dark', async () => {
    const prefix = `bi${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const config = parseConfig({
      REDIS_URL: redisServer.url,
      QUEUE_PREFIX: prefix,
      DATA_DIR: dataDir,
      DASHBOARD_PORT: String(await freePort()),
      DASHBOARD_USER: USER,
      DASHBOARD_PASSWORD: PASSWORD,
    });
    const services = new Services(config, { tuning: FAST_TUNING, processName: 'browser-insights' });
    const dashboard = await startDashboardRole(config, { services });
    cleanups.push(async () => {
      await dashboard.stop();
      await services.close();
      await removePrefix(redisServer.url, prefix);
    });
    const redis = await services.producer();
    let clock = Date.now();
    const store = new TicketStore(redis, { prefix, now: () => new Date(clock) });
    const queues = await services.queues();
    await seedMonth(store, (ms) => (clock = ms), { store, outbound: queues.outbound, redis, config: { SENDER_ATTEMPTS: 3 } });

    const context = await browser.newContext({
      httpCredentials: { username: USER, password: PASSWORD },
      baseURL: `http://127.0.0.1:${dashboard.address.port}`,
      viewport: { width: 1280, height: 900 },
      deviceScaleFactor: 1,
    });
    cleanups.push(() => context.close());
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const consoleLines: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (err) => consoleLines.push(`pageerror: ${err.message}`));
    page.on('request', (request) => requests.push(request.url()));

    await page.goto('/');
    await page.getByRole('link', { name: 'Insights' }).click();
    await page.waitForURL('**/insights');
    await expect(page.getByRole('heading', { name: /Insights/ }).isVisible()).resolves.toBe(true);
    // Each chart is an image with a name, and its numbers follow as a table.
    const outcomes = page.getByRole('img', { name: 'Tickets per day by outcome' });
    await expect(outcomes.isVisible()).resolves.toBe(true);
    expect(await outcomes.locator('rect.seg').count()).toBeGreaterThan(30);
    await expect(page.getByRole('img', { name: /Automation rate per day/ }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('img', { name: /time from receipt to reply/i }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('img', { name: 'Edit ratio of approved drafts' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('img', { name: 'Rejections per reason' }).isVisible()).resolves.toBe(true);
    const dayRows = page.locator('#outcomes table.numbers tbody tr');
    expect(await dayRows.count()).toBe(30);
    // The lead's week-by-week view: answered well per week, as a chart and a table.
    await expect(page.getByRole('img', { name: /Answered well per week/ }).isVisible()).resolves.toBe(true);
    expect(await page.locator('#weeks table.numbers tbody tr').count()).toBeGreaterThanOrEqual(5);
    // Read every morning: today's row on top of the scroll box, not below 29 older ones.
    const listedDays = await dayRows.locator('td:first-child').allInnerTexts();
    expect(listedDays).toEqual([...listedDays].sort().reverse());
    const newest = [...listedDays].sort().at(-1)!;
    const box = await page.locator('#outcomes .scroll').boundingBox();
    const newestRow = await dayRows.filter({ hasText: newest }).boundingBox();
    expect(newestRow!.y + newestRow!.height, 'the newest day shows without scrolling the table').toBeLessThanOrEqual(box!.y + box!.height);
    await expect(page.locator('#llm').getByText('gpt-4o-mini').isVisible()).resolves.toBe(true);
    // On a laptop's width every table fits its card: no column or line of an explanation hides behind a sideways
    // scroll (the week table's 13 columns once pushed its explanation and its last columns out of sight).
    const clipped = await page.evaluate(CLIPPED_SIDEWAYS);
    expect(clipped, 'tables wider than their scroll box').toEqual([]);
    // A bar is drawn in the stylesheet's colour: the CSP let the stylesheet apply and the chart is not a black blob.
    const lightFill = await page.evaluate(FILL_OF_AUTO_SENT);
    expect(lightFill).toBe('rgb(31, 138, 85)');

    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    await page.emulateMedia({ colorScheme: 'dark' });
    const darkFill = await page.evaluate(FILL_OF_AUTO_SENT);
    expect(darkFill).toBe('rgb(63, 191, 127)');
    const background = await page.evaluate('getComputedStyle(document.documentElement).backgroundColor');
    expect(background).toBe('rgb(18, 22, 28)');
    await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-dark.png'), fullPage: false });

    // Another period through the chips; nothing left the dashboard's origin and the CSP refused nothing.
    await page.getByRole('link', { name: '7 days' }).click();
    await page.waitForURL('**/insights?days=7');
    expect(await page.locator('#outcomes table.numbers tbody tr').count()).toBe(7);

    // A year: a bar and a row per week (a Monday-started week, the first and last cut to the period), the newest on
    // top; the week-by-week answered-well table lists the same weeks.
    await page.getByRole('link', { name: '365 days' }).click();
    await page.waitForURL('**/insights?days=365');
    const weekly = page.getByRole('img', { name: 'Tickets per week by outcome' });
    await expect(weekly.isVisible()).resolves.toBe(true);
    const weekRows = page.locator('#outcomes table.numbers tbody tr');
    const weekCount = await weekRows.count();
    expect([53, 54]).toContain(weekCount);
    expect(await page.locator('#weeks table.numbers tbody tr').count()).toBe(weekCount);
    expect(await page.locator('#automation rect.bar.rate').count()).toBeLessThanOrEqual(weekCount);
    const listedWeeks = (await weekRows.locator('td:first-child').allInnerTexts()).map((w) => w.slice(0, 10));
    expect(listedWeeks).toEqual([...listedWeeks].sort().reverse());
    for (const week of listedWeeks) expect(new Date(`${week}T12:00:00Z`).getUTCDay(), week).toBe(1);
    // The seeded month shows in the newest weeks: mail that needed an answer, replies sent, and a share answered well
    // of that mail beside the one of the replies sent.
    const weeksHead = await page.locator('#weeks table.numbers thead th').allInnerTexts();
    const column = (name: string) => weeksHead.findIndex((h) => h.toLowerCase() === name);
    const newestWeek = await page.locator('#weeks table.numbers tbody tr').first().locator('td').allInnerTexts();
    expect(Number(newestWeek[column('needed an answer')])).toBeGreaterThanOrEqual(Number(newestWeek[column('replies')]));
    expect(Number(newestWeek[column('replies')])).toBeGreaterThan(0);
    expect(newestWeek[column('answered well')]).toMatch(/^\d+ %$/);
    expect(newestWeek[column('of replies sent')]).toMatch(/^\d+ %$/);
    await page.screenshot({ path: path.join(tmpdir(), 'helpdesk-screenshots', 'insights-365.png'), fullPage: true });
    const origin = `http://127.0.0.1:${dashboard.address.port}/`;
    expect(requests.filter((u) => !u.startsWith(origin))).toEqual([]);
    expect(consoleLines.filter((l) => l.startsWith('error') || l.startsWith('pageerror'))).toEqual([]);
  });
});
