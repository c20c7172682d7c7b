/**
 * The Knowledge page in a real browser (Debian's chromium through playwright-core) against the dashboard role and a
 * real redis-server: an operator sees candidates with the ticket they came from and the pair one would update, edits
 * and accepts one, discards one, removes a pair; hostile text stays text and a form without the CSRF token is
 * refused. The review page names a learned pair among a ticket's sources and the ticket that taught it. Takes a
 * screenshot: into a temporary folder, or over `docs/screenshots/knowledge.png` (the README's) with
 * UPDATE_SCREENSHOTS=1.
 *
 * Skipped (with the reason printed) only when /usr/bin/chromium is absent; CI installs it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agent/types.js';
import { parseConfig, type Config } from '../../src/config.js';
import { freePort } from '../../src/dev/ports.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { LearnedAnswerStore, type LearnedCandidate } from '../../src/knowledge/learned-answers.js';
import { startDashboardRole, type DashboardRole } from '../../src/runtime/dashboard.js';
import { Services } from '../../src/runtime/services.js';
import { newTicket, type Ticket } from '../../src/tickets/ticket.js';
import type { TicketStore } from '../../src/tickets/ticket-store.js';
import { FAST_TUNING, REPO_ROOT, removePrefix } from '../support/pipeline.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  process.stdout.write(`browser-knowledge: skipped because ${CHROMIUM} is absent (install Debian's chromium to run it)\n`);
}

const USER = 'admin';
const PASSWORD = 'browser-test-password';
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(REPO_ROOT, 'docs/screenshots/knowledge.png')
    : path.join(tmpdir(), 'helpdesk-screenshots', 'knowledge.png');

let redisServer: RedisServer;
let browser: Browser;
let dataDir: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  [redisServer, dataDir] = await Promise.all([startRedis(), mkdtemp(path.join(tmpdir(), 'browser-knowledge-'))]);
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

interface Deployment {
  config: Config;
  store: TicketStore;
  learned: LearnedAnswerStore;
  dashboard: DashboardRole;
}

async function deploy(): Promise<Deployment> {
  const prefix = `bk${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const config = parseConfig({
    REDIS_URL: redisServer.url,
    QUEUE_PREFIX: prefix,
    DATA_DIR: dataDir,
    DASHBOARD_PORT: String(await freePort()),
    DASHBOARD_USER: USER,
    DASHBOARD_PASSWORD: PASSWORD,
    EMBEDDINGS_PROVIDER: 'local',
  });
  const services = new Services(config, { tuning: FAST_TUNING, processName: 'browser-test' });
  const dashboard = await startDashboardRole(config, { services });
  cleanups.push(async () => {
    await dashboard.stop();
    await services.close();
    await removePrefix(redisServer.url, prefix);
  });
  const redis = await services.producer();
  return { config, store: await services.store(), learned: new LearnedAnswerStore(redis, { prefix }), dashboard };
}

async function newPage(d: Deployment): Promise<{ page: Page; dialogs: string[]; errors: string[] }> {
  const context = await browser.newContext({
    httpCredentials: { username: USER, password: PASSWORD },
    baseURL: `http://127.0.0.1:${d.dashboard.address.port}`,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
  });
  cleanups.push(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { page, dialogs, errors };
}

/** A ticket the learned answers point at (sent after an approval, as the loop leaves it). */
async function sentTicket(d: Deployment, subject: string, sources: AgentResult['sources'] = []): Promise<Ticket> {
  const messageId = `<${randomUUID()}@customer.example>`;
  const ticket = newTicket({ messageId, from: 'customer@customer.example', subject, question: subject, actor: 'poller' });
  await d.store.createIfAbsent(ticket);
  const usage = { calls: 1, promptTokens: 1, completionTokens: 1, totalTokens: 2 };
  const agent: AgentResult = { question: subject, plan: { subtasks: [] }, subtasks: [], answer: '', sources, usage, llmCalls: [], truncated: false, droppedSubtasks: [], durationMs: 10 };
  await d.store.transition(ticket.id, { to: 'processing', actor: 'agent-worker' });
  return d.store.transition(ticket.id, { to: 'parked', actor: 'agent-worker', note: 'review', patch: { reason: 'review', agent, draft: 'draft' } });
}

const draft = (question: string, answer: string, replaced = 2): Omit<LearnedCandidate, 'id' | 'ticketId' | 'proposedAt'> => ({
  question,
  answer,
  origin: 'model',
  scrub: { replaced, modelPass: 'done' },
});

describe.skipIf(!HAVE_CHROMIUM)('Knowledge page in a browser', () => {
  it('lists candidates with their ticket, accepts an edited one, discards, removes; the review page names a learned source', async () => {
    const d = await deploy();
    const receipts = await sentTicket(d, '領収書の宛名について');
    const returns = await sentTicket(d, '返品について');
    const invoice = await sentTicket(d, '請求書の送付先');
    const [old] = await d.learned.propose(returns.id, [draft('返品の方法を教えてください', '購入から30日以内に「注文」→「返品」から申請できます。', 0)]);
    await d.learned.accept(old!.id, { by: 'kato' });
    const [receipt] = await d.learned.propose(receipts.id, [
      draft('領収書の宛名変更はできますか？', 'ご注文番号 [番号] の領収書も、「請求」→「領収書」→「宛名を編集」で新しい宛名を入力し、再発行された領収書をダウンロードしてください。'),
    ]);
    const [update] = await d.learned.propose(invoice.id, [draft('返品の方法を教えて下さい。', '購入から30日以内なら「注文」→「返品」で申請できます。送料は無料です。', 1)]);
    const { page, dialogs, errors } = await newPage(d);

    await page.goto('/');
    await page.getByRole('link', { name: 'Knowledge' }).click();
    await page.waitForURL('**/knowledge');
    await expect(page.getByRole('heading', { name: /Candidates/ }).isVisible()).resolves.toBe(true);
    // Where each candidate came from, and the one that would update an accepted pair.
    await expect(page.locator(`#candidate-${receipt!.id} a[href="/tickets/${receipts.id}"]`).isVisible()).resolves.toBe(true);
    await expect(page.locator(`#candidate-${update!.id} .badge.update`).innerText()).resolves.toBe(`update of learned#${old!.id}`);
    await expect(page.locator(`#pair-${old!.id}`).getByText('kato').isVisible()).resolves.toBe(true);

    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // Hostile text is text: no script, no image, the textarea holds it verbatim.
    const [spam] = await d.learned.propose('e'.repeat(64), [draft('請求書の送付先を変えたい <script>alert(1)</script>', '</textarea><img src=x onerror=alert(2)>', 0)]);
    await page.reload();
    expect(await page.locator(`#candidate-${spam!.id} textarea[name=answer]`).inputValue()).toBe('</textarea><img src=x onerror=alert(2)>');
    expect(await page.locator(`#candidate-${spam!.id} textarea[name=question]`).inputValue()).toBe('請求書の送付先を変えたい <script>alert(1)</script>');
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);

    // Edit the answer and accept: stored exactly as edited, by the logged-in operator.
    const answer = page.locator(`#candidate-${receipt!.id} textarea[name=answer]`);
    const edited = `${await answer.inputValue()}\n宛名は何度でも変更できます。`;
    await answer.fill(edited);
    await page.locator(`#candidate-${receipt!.id}`).getByRole('button', { name: 'Accept' }).click();
    await page.waitForURL(/\/knowledge\?done=accepted&id=/);
    await expect(page.getByText(`Accepted as learned#${receipt!.id}: the agent finds it from now on.`).isVisible()).resolves.toBe(true);
    expect(await d.learned.pair(receipt!.id)).toMatchObject({ answer: edited, acceptedBy: USER, ticketId: receipts.id });

    await page.locator(`#candidate-${update!.id}`).getByRole('button', { name: `Accept as update of learned#${old!.id}` }).click();
    await page.waitForURL(/\/knowledge\?done=updated/);
    expect(await d.learned.pair(old!.id)).toMatchObject({ question: '返品の方法を教えて下さい。', ticketIds: [returns.id, invoice.id], acceptedBy: USER });

    await page.locator(`#candidate-${spam!.id}`).getByRole('button', { name: 'Discard' }).click();
    await page.waitForURL(/\/knowledge\?done=discarded/);
    expect(await d.learned.candidates()).toEqual([]);

    await page.locator(`#pair-${old!.id}`).getByRole('button', { name: 'Remove' }).click();
    await page.waitForURL(/\/knowledge\?done=removed/);
    expect((await d.learned.pairs()).map((p) => p.id)).toEqual([receipt!.id]);

    // A form post without the page's CSRF token changes nothing.
    const [another] = await d.learned.propose('f'.repeat(64), [draft('q', 'a', 0)]);
    const forged = await page.request.post(`/knowledge/candidates/${another!.id}/discard`, { form: { _csrf: 'forged' } });
    expect(forged.status()).toBe(403);
    expect(await d.learned.candidate(another!.id)).toBeDefined();

    // The review page of a ticket answered from the pair names it as learned, and the ticket that taught it.
    const answered = await sentTicket(d, '領収書の宛名変更', [{ kind: 'qa', fileName: `learned#${receipt!.id}` }]);
    await page.goto(`/tickets/${answered.id}`);
    const source = page.locator('ul.sources li', { hasText: `learned#${receipt!.id}` });
    await expect(source.getByText('learned pair').isVisible()).resolves.toBe(true);
    await expect(source.locator(`a[href="/tickets/${receipts.id}"]`).isVisible()).resolves.toBe(true);

    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
