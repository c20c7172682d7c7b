/**
 * The review page in a real browser (Debian's chromium through playwright-core) against the dashboard role, a real
 * redis-server, the real sender role and the SMTP receiver: an operator logs in, edits a parked draft and approves
 * it, and the edited text is what arrives by SMTP. Hostile mail is shown as text and runs nothing. Also takes a
 * screenshot of the page: into a temporary folder, or over `docs/screenshots/review-detail.png` (the README's) with
 * UPDATE_SCREENSHOTS=1, so `npm test` never rewrites a tracked file.
 *
 * Skipped (with the reason printed) only when /usr/bin/chromium is absent; CI installs it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentResult, Subtask } from '../../src/agent/types.js';
import { parseConfig, type Config } from '../../src/config.js';
import { rawRefFor, saveRaw } from '../../src/mail/raw-store.js';
import { sendJobId } from '../../src/queues/job-options.js';
import type { RoleHandle } from '../../src/runtime/lifecycle.js';
import { startSender } from '../../src/runtime/sender.js';
import { Services } from '../../src/runtime/services.js';
import { startDashboardRole, type DashboardRole } from '../../src/runtime/dashboard.js';
import { newTicket, ticketIdFor, type Ticket } from '../../src/tickets/ticket.js';
import type { TicketStore } from '../../src/tickets/ticket-store.js';
import { FAST_TIMINGS, FAST_TUNING, MAIL_FROM, REPO_ROOT, buildMail, removePrefix, waitForState } from '../support/pipeline.js';
import { freePort } from '../../src/dev/ports.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../src/dev/smtp-receiver.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  process.stdout.write(`browser-review: skipped because ${CHROMIUM} is absent (install Debian's chromium to run it)\n`);
}

const USER = 'admin';
const PASSWORD = 'browser-test-password';
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(REPO_ROOT, 'docs/screenshots/review-detail.png')
    : path.join(tmpdir(), 'helpdesk-screenshots', 'review-detail.png');

let redisServer: RedisServer;
let smtp: SmtpReceiver;
let browser: Browser;
let dataDir: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  [redisServer, smtp, dataDir] = await Promise.all([startRedis(), startSmtpReceiver(), mkdtemp(path.join(tmpdir(), 'browser-review-'))]);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  smtp?.clear();
});
afterAll(async () => {
  await browser?.close();
  await Promise.allSettled([smtp?.stop(), redisServer?.stop(), dataDir ? rm(dataDir, { recursive: true, force: true }) : undefined]);
});

interface Deployment {
  config: Config;
  store: TicketStore;
  services: Services;
  dashboard: DashboardRole;
}

/** The dashboard and the sender in this process, sharing services as `npm start` does, under a fresh prefix. */
async function deploy(): Promise<Deployment> {
  const prefix = `br${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const config = parseConfig({
    REDIS_URL: redisServer.url,
    QUEUE_PREFIX: prefix,
    DATA_DIR: dataDir,
    DASHBOARD_PORT: String(await freePort()),
    DASHBOARD_USER: USER,
    DASHBOARD_PASSWORD: PASSWORD,
    SMTP_HOST: smtp.host,
    SMTP_PORT: String(smtp.port),
    SMTP_SECURE: 'false',
    MAIL_FROM,
    SENDER_ATTEMPTS: '3',
  });
  const services = new Services(config, { tuning: FAST_TUNING, processName: 'browser-test' });
  const roles: RoleHandle[] = [];
  cleanups.push(async () => {
    for (const role of roles.reverse()) await role.stop();
    await services.close();
    await removePrefix(redisServer.url, prefix);
  });
  roles.push(await startSender(services, { timings: FAST_TIMINGS, readinessRetryMs: 200 }));
  const dashboard = await startDashboardRole(config, { services });
  roles.push(dashboard);
  return { config, store: await services.store(), services, dashboard };
}

async function newPage(d: Deployment): Promise<{ page: Page; context: BrowserContext; dialogs: string[]; consoleLines: string[] }> {
  const context = await browser.newContext({
    httpCredentials: { username: USER, password: PASSWORD },
    baseURL: `http://127.0.0.1:${d.dashboard.address.port}`,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
  });
  cleanups.push(() => context.close());
  const page = await context.newPage();
  // Fail a stuck step with Playwright's message (which names the locator) well before the test's own timeout.
  page.setDefaultTimeout(10_000);
  const dialogs: string[] = [];
  const consoleLines: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (err) => consoleLines.push(`pageerror: ${err.message}`));
  return { page, context, dialogs, consoleLines };
}

function subtask(taskName: string, answer: string, opts: { fallback?: boolean; tries?: Subtask['toolResults']; advice?: string[] } = {}): Subtask {
  const usage = { calls: 3, promptTokens: 2100, completionTokens: 260, totalTokens: 2360 };
  return {
    taskName,
    toolResults: opts.tries ?? [],
    reflectionResults: (opts.advice ?? []).map((advice, i, all) => ({ advice, isCompleted: !opts.fallback && i === all.length - 1 })),
    isCompleted: !opts.fallback,
    subtaskAnswer: answer,
    challengeCount: Math.max(1, opts.advice?.length ?? 1),
    usedFallback: opts.fallback ?? false,
    usage,
  };
}

/** A parked ticket as the pipeline leaves it: raw mail stored, agent result and draft on the ticket. */
async function parkedTicket(
  d: Deployment,
  spec: { fromName: string; from: string; subject: string; body: string; draft: string; reason: string; agent: AgentResult },
): Promise<Ticket> {
  const messageId = `<${randomUUID()}@mail.example.co.jp>`;
  const id = ticketIdFor(messageId);
  const redis = await d.services.producer();
  await saveRaw(redis, d.config.QUEUE_PREFIX, id, buildMail({ messageId, from: `${spec.fromName} <${spec.from}>`, subject: spec.subject, body: spec.body }));
  const question = spec.body.split('\n\n>')[0] ?? spec.body;
  await d.store.createIfAbsent(
    newTicket({ messageId, from: spec.from, fromName: spec.fromName, subject: spec.subject, question, actor: 'poller', rawRef: rawRefFor(d.config.QUEUE_PREFIX, id) }),
  );
  await d.store.transition(id, { to: 'processing', actor: 'agent-worker', note: 'attempt 1' });
  return d.store.transition(id, { to: 'parked', actor: 'agent-worker', note: spec.reason, patch: { reason: spec.reason, draft: spec.draft, agent: spec.agent } });
}

function passwordTicket(d: Deployment): Promise<Ticket> {
  const body = [
    'XYZ サポートご担当者様',
    '',
    'いつもお世話になっております。株式会社サンプルの山田です。',
    '新しく社員のアカウントを作成したいのですが、パスワードに使える文字数や文字の種類の条件を教えてください。',
    'また、二段階認証を一時的に無効にする方法があれば併せて教えていただけますか。',
    '',
    'よろしくお願いいたします。',
    '',
    '--',
    '株式会社サンプル 情報システム部',
    '山田 花子',
  ].join('\n');
  const usage = { calls: 9, promptTokens: 7300, completionTokens: 880, totalTokens: 8180 };
  const agent: AgentResult = {
    question: body,
    plan: { subtasks: ['パスワードの文字数と文字種の条件を調べる', '二段階認証を一時的に無効にする方法を調べる'] },
    subtasks: [
      subtask('パスワードの文字数と文字種の条件を調べる', 'パスワードは8文字以上64文字以下で、英大文字・英小文字・数字をそれぞれ1文字以上含める必要があります。記号も使用できます。', {
        tries: [[{ toolName: 'search_xyz_manual', args: '{"keywords":"パスワード 文字数 条件"}', results: [{ fileName: 'xyz-manual.md', content: '' }] }]],
        advice: ['マニュアルの「アカウント設定」節に条件が明記されており、十分に回答できている。'],
      }),
      subtask('二段階認証を一時的に無効にする方法を調べる', '申し訳ございませんが、二段階認証を一時的に無効にする方法は見つかりませんでした。', {
        fallback: true,
        tries: [
          [{ toolName: 'search_xyz_qa', args: '{"query":"二段階認証 無効"}', results: [] }],
          [{ toolName: 'search_xyz_manual', args: '{"keywords":"二段階認証 解除"}', results: [{ fileName: 'xyz-manual.md', content: '' }] }],
          [{ toolName: 'search_xyz_manual', args: '{"keywords":"2FA 一時停止 管理者"}', results: [] }],
        ],
        advice: [
          'Q&A に該当がない。マニュアルを「二段階認証 解除」で検索すること。',
          '有効化の手順しか見つからない。管理者による一時停止の記述を探すこと。',
          '3回試しても記述が見つからなかった。',
        ],
      }),
    ],
    answer: '',
    sources: [
      { kind: 'manual', fileName: 'xyz-manual.md' },
      { kind: 'qa', fileName: 'xyz-qa.csv#17' },
    ],
    usage,
    llmCalls: [],
    truncated: false,
    droppedSubtasks: [],
    durationMs: 14_800,
  };
  const draft = [
    '山田 花子 様',
    '',
    'XYZ サポートです。お問い合わせいただきありがとうございます。',
    '',
    'パスワードは8文字以上64文字以下で、英大文字・英小文字・数字をそれぞれ1文字以上含める必要があります。記号も使用できます。',
    '',
    '二段階認証を一時的に無効にする方法については、現在確認中です。',
    '',
    '今後ともよろしくお願いいたします。',
    'XYZ サポート',
  ].join('\n');
  return parkedTicket(d, {
    fromName: '山田 花子',
    from: 'hanako.yamada@sample.example.co.jp',
    subject: 'パスワードの条件と二段階認証について',
    body,
    draft,
    reason: 'not fully answered: unanswered subtasks 「二段階認証を一時的に無効にする方法を調べる」',
    agent,
  });
}

describe.skipIf(!HAVE_CHROMIUM)('review page in a browser', () => {
  it('lets an operator edit and approve a draft, and the edited reply is what the customer receives', async () => {
    const d = await deploy();
    const ticket = await passwordTicket(d);
    const { page, dialogs, consoleLines } = await newPage(d);

    await page.goto('/');
    await expect(page.getByRole('heading', { name: /Waiting for review/ }).isVisible()).resolves.toBe(true);
    await page.getByRole('link', { name: 'パスワードの条件と二段階認証について' }).click();
    await page.waitForURL(`**/tickets/${ticket.id}`);
    await expect(page.getByText('株式会社サンプル 情報システム部').isVisible()).resolves.toBe(true);
    await expect(page.getByText('有効化の手順しか見つからない。', { exact: false }).isVisible()).resolves.toBe(true);

    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    const edited = (await page.locator('textarea#reply').inputValue()).replace(
      '二段階認証を一時的に無効にする方法については、現在確認中です。',
      '二段階認証は、管理者画面の「セキュリティ」から対象ユーザーごとに一時的に無効にできます。',
    );
    expect(edited).toContain('管理者画面の「セキュリティ」');
    await page.locator('textarea#reply').fill(edited);
    await page.getByRole('button', { name: 'Approve and send' }).click();
    await page.waitForURL(/\/\?done=approved&ticket=/);
    await expect(page.getByText('Approved “パスワードの条件と二段階認証について”: the reply is queued for sending.').isVisible()).resolves.toBe(true);

    const approvedEntry = (await d.store.require(ticket.id)).history.findIndex((h) => h.to === 'approved');
    expect(approvedEntry).toBeGreaterThan(0);
    const sent = await waitForState(d.store, ticket.id, ['sent', 'parked']);
    expect(sent.state, sent.reason).toBe('sent');
    expect(sent.draft).toBe(edited);
    expect(sent.history[approvedEntry]).toMatchObject({ from: 'parked', to: 'approved', actor: `operator:${USER}`, note: 'approved with an edited reply' });
    // The send-reply job of the approval, with its deterministic id (the generation right after the approval).
    const job = await (await d.services.queues()).outbound.getJob(sendJobId(ticket.id, approvedEntry + 1));
    expect(job?.name).toBe('send-reply');
    expect(job?.data).toEqual({ ticketId: ticket.id });

    const [message] = await smtp.waitFor(1);
    expect(message?.envelope.to).toEqual(['hanako.yamada@sample.example.co.jp']);
    expect(message?.text).toContain('管理者画面の「セキュリティ」から対象ユーザーごとに一時的に無効にできます。');
    expect(message?.text).not.toContain('現在確認中です');
    expect(smtp.messages).toHaveLength(1);

    expect(dialogs).toEqual([]);
    expect(consoleLines.filter((l) => l.startsWith('error') || l.startsWith('pageerror'))).toEqual([]);
  });

  it('shows hostile mail as text and runs none of it', async () => {
    const d = await deploy();
    const script = '<script>alert(1)</script>';
    const img = '<img src=x onerror=alert(1)>';
    const marker = '<img src=x onerror="document.body.dataset.pwned=1">';
    const usage = { calls: 1, promptTokens: 1, completionTokens: 1, totalTokens: 2 };
    const hostile = await parkedTicket(d, {
      fromName: `Mallory ${img}`,
      from: 'mallory@evil.example',
      subject: `Invoice ${script}`,
      body: `Please read ${img}\n${marker}\n<iframe src="https://evil.example"></iframe>`,
      draft: `Reply ${script}</textarea><script>alert(2)</script>`,
      reason: `reason ${img}`,
      agent: {
        question: 'q',
        plan: { subtasks: [`plan ${script}`] },
        subtasks: [subtask(`task ${img}`, `answer ${script}`, { advice: [`advice ${marker}`] })],
        answer: '',
        sources: [{ kind: 'manual', fileName: `${img}.md` }],
        usage,
        llmCalls: [],
        truncated: false,
        droppedSubtasks: [],
        durationMs: 10,
      },
    });
    const { page, dialogs, consoleLines } = await newPage(d);

    await page.goto('/');
    await expect(page.getByText(`Invoice ${script}`).isVisible()).resolves.toBe(true);
    await expect(page.getByText(`reason ${img}`).isVisible()).resolves.toBe(true);

    await page.getByRole('link', { name: `Invoice ${script}` }).click();
    await page.waitForURL(`**/tickets/${hostile.id}`);
    await expect(page.getByRole('heading', { name: `Invoice ${script}` }).isVisible()).resolves.toBe(true);
    await expect(page.getByText(marker, { exact: false }).first().isVisible()).resolves.toBe(true);
    await expect(page.getByText(`answer ${script}`).isVisible()).resolves.toBe(true);
    expect(await page.locator('textarea#reply').inputValue()).toBe(`Reply ${script}</textarea><script>alert(2)</script>`);

    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('iframe').count()).toBe(0);
    expect(await page.locator('body').getAttribute('data-pwned')).toBeNull();
    expect(dialogs).toEqual([]);
    expect(consoleLines.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    expect((await d.store.require(hostile.id)).state).toBe('parked');
  });

  it("finds a customer's tickets from the search box by a part of their address, and opens one", async () => {
    const d = await deploy();
    const ticket = await passwordTicket(d);
    const { page, consoleLines } = await newPage(d);

    await page.goto('/');
    await page.getByRole('searchbox', { name: /Search tickets/ }).fill('Hanako.Yamada@SAMPLE');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/\?q=Hanako\.Yamada%40SAMPLE$/);
    await expect(page.getByRole('heading', { name: /Tickets matching “Hanako\.Yamada@SAMPLE”/ }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('Searched the only ticket', { exact: false }).isVisible()).resolves.toBe(true);
    // When it came, in the desk's zone with the zone named; the exact value on hover.
    const received = page.locator('#search time');
    expect(await received.getAttribute('datetime')).toBe(ticket.createdAt);
    expect(await received.textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d \S+$/);
    await page.getByRole('link', { name: 'パスワードの条件と二段階認証について' }).click();
    await page.waitForURL(`**/tickets/${ticket.id}`);

    await page.goto('/?q=taro%40sample');
    await expect(page.getByText('No ticket matches.').isVisible()).resolves.toBe(true);
    expect(consoleLines.filter((l) => l.startsWith('error') || l.startsWith('pageerror'))).toEqual([]);
  });

  it('makes the first Tab on the start page a link to the ticket the review flow opens next', async () => {
    const d = await deploy();
    const oldest = await passwordTicket(d);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await parkedTicket(d, { fromName: 'Ben', from: 'ben@example.com', subject: 'Later question', body: 'Where is my invoice?', draft: 'Under Billing.', reason: 'review mode always', agent: { question: 'q', plan: { subtasks: [] }, subtasks: [], answer: 'Under Billing.', sources: [], usage: { calls: 1, promptTokens: 1, completionTokens: 1, totalTokens: 2 }, llmCalls: [], truncated: false, droppedSubtasks: [], durationMs: 10 } });
    const { page, consoleLines } = await newPage(d);

    await page.goto('/?order=newest');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('Review the oldest waiting ticket');
    await expect(page.getByRole('link', { name: 'Review the oldest waiting ticket' }).isVisible()).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/tickets/${oldest.id}#reply`);
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('reply');
    expect(consoleLines.filter((l) => l.startsWith('error') || l.startsWith('pageerror'))).toEqual([]);
  });

  it('keeps the list and the ticket page within the window with a long sender, subject and link, and puts the cursor in the draft', async () => {
    const d = await deploy();
    const usage = { calls: 1, promptTokens: 1, completionTokens: 1, totalTokens: 2 };
    const long = await parkedTicket(d, {
      fromName: '株式会社とても長い名前のサンプルホールディングス 経理財務本部 経理部 第一課 課長代理 山田 太郎',
      from: `very.long.address.of.a.customer.department.${'x'.repeat(40)}@subdomain.of.a.very.long.customer-domain.example`,
      subject: `Subject${'Without'.repeat(30)}Spaces`,
      body: 'パスワードの条件を教えてください。',
      draft: '下書き',
      reason: `the draft contains a link nothing vouches for: https://example-phish.example/reset/${'a1b2c3'.repeat(40)}`,
      agent: { question: 'q', plan: { subtasks: [] }, subtasks: [], answer: '', sources: [], usage, llmCalls: [], truncated: false, droppedSubtasks: [], durationMs: 10 },
    });
    for (const width of [1280, 390]) {
      const { page } = await newPage(d);
      await page.setViewportSize({ width, height: 900 });
      for (const [name, url] of [['list', '/'], ['search', '/?q=very.long.address'], ['detail', `/tickets/${long.id}`]] as const) {
        await page.goto(url);
        await page.screenshot({ path: path.join(tmpdir(), 'helpdesk-screenshots', `review-${name}-long-${width}.png`), fullPage: true });
        const { scroll, client } = (await page.evaluate('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })')) as { scroll: number; client: number };
        expect(scroll, `${name} at ${width} px`).toBeLessThanOrEqual(client);
      }
      // The ticket page opens with the cursor in the draft: the operator can read and edit without reaching for the mouse.
      expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('reply');
    }
  });
});
