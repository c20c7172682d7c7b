/**
 * Knowledge gaps against real servers: redis-server, the SMTP receiver and the scripted OpenAI-compatible model
 * driving the real agent worker and sender. Two differently worded questions the knowledge base cannot answer land in
 * one gap, a third topic opens a second, a rejected draft counts, an operator's approval of a parked draft does not
 * close its own gap, and a later ticket the agent answers on the first topic closes it. The gaps are then read the
 * three ways an operator reads them: `knowledge gaps` (a child process), the JSON API, and the Knowledge page's section.
 *
 * The store alone: concurrent writers count into one gap without losing a ticket, and the open gaps stay bounded.
 */
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { pino } from 'pino';
import { GapStore, MAX_OPEN_GAPS, learnGapsFrom, type GapList } from '../../src/knowledge/gaps.js';
import { LearnedAnswerStore } from '../../src/knowledge/learned-answers.js';
import { connectProducer } from '../../src/queues/connection.js';
import { topGapsOf } from '../../src/runtime/dashboard.js';
import { createDashboardApp } from '../../src/server/app.js';
import { renderGapsSection } from '../../src/server/views.js';
import { forgetCustomer } from '../../src/tickets/retention.js';
import { approveTicket, rejectTicket } from '../../src/tickets/review.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  startPipelineServers,
  startRoles,
  waitFor,
  waitForState,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';
import { runTsx, type CommandRun } from '../support/run-command.js';

let servers: PipelineServers;
let running: RunningRoles;
let env: Record<string, string>;
let redis: Redis;
/** Subtasks matching this end with the "not found" fallback: what the knowledge base does not cover (yet). */
let notInKnowledgeBase = /宛名|ダークモード/;

beforeAll(async () => {
  servers = await startPipelineServers();
  servers.llm.setHandler(scriptedModel({ forceIncomplete: (call) => notInKnowledgeBase.test(call.subtask ?? '') }));
  env = pipelineEnv(servers, { REVIEW_MODE: 'auto' });
  running = await startRoles(parseConfig(env));
  redis = await connectProducer(servers.redis.url);
}, 120_000);
afterAll(async () => {
  await running?.stop();
  redis?.disconnect();
  if (servers) await removePrefix(servers.redis.url, env.QUEUE_PREFIX!);
  await servers?.stop();
});

/**
 * Waits until no answer-ticket job is waiting or running: the gaps are updated by the job after the ticket's state
 * change, so a ticket's new state alone does not say its gaps are written yet.
 */
async function pipelineIdle(): Promise<void> {
  const { tickets } = await running.services.queues();
  await waitFor(async () => Object.values(await tickets.getJobCounts('active', 'waiting', 'delayed', 'prioritized')).every((n) => n === 0), 'the answer-ticket jobs to finish');
}

/** Mails `question` as a new customer and waits until the pipeline is done with it. */
async function ask(question: string, headers: Record<string, string> = {}) {
  const { ticketId } = await ingest(
    running,
    buildMail({ messageId: customerMessageId('gap'), from: `c-${randomUUID().slice(0, 8)}@customer.example`, subject: 'お問い合わせ', body: question, headers }),
  );
  const ticket = await waitForState(running.store, ticketId, ['parked', 'sent', 'failed'], 30_000);
  await pipelineIdle();
  return ticket;
}

function gaps(): GapStore {
  return new GapStore(redis, { prefix: env.QUEUE_PREFIX! });
}

/** `knowledge gaps …` as a child process, as `npm run knowledge -- gaps` runs it. */
function gapsCommand(args: string[]): Promise<CommandRun> {
  return runTsx('test/support/knowledge-gaps-cli.ts', ['gaps', ...args], { env: { ...process.env, ...env, HELPDESK_ENV_FILE: 'none' } });
}

describe('knowledge gaps through the pipeline', () => {
  it('groups unanswered questions and rejected drafts by topic, and closes a gap once a later ticket is answered', { timeout: 240_000 }, async () => {
    // Two wordings of one question the knowledge base does not cover: one gap, counted twice.
    const first = await ask('請求書の宛名を変更したい');
    const second = await ask('請求書の宛名を変更する方法を教えてください');
    expect([first.state, second.state]).toEqual(['parked', 'parked']);
    let list = await gaps().list();
    expect(list.open).toHaveLength(1);
    expect(list.open[0]).toMatchObject({ count: 2, examples: ['請求書の宛名を変更したい', '請求書の宛名を変更する方法を教えてください'], tickets: [second.id, first.id] });

    // Another topic: a gap of its own.
    const third = await ask('ダークモードはありますか');
    expect(third.state).toBe('parked');
    list = await gaps().list();
    expect(list.open.map((g) => [g.count, g.examples[0]])).toEqual([
      [2, '請求書の宛名を変更したい'],
      [1, 'ダークモードはありますか'],
    ]);

    // Fully answered, but parked (Reply-To on another domain): no gap yet. Its draft rejected: the question is one.
    const fourth = await ask('二段階認証を設定する手順を教えてください。', { 'Reply-To': 'someone@elsewhere.example' });
    expect(fourth.state).toBe('parked');
    expect((await gaps().list()).openTotal).toBe(2);
    const review = { store: running.store, redis, outbound: (await running.services.queues()).outbound, config: { SENDER_ATTEMPTS: 3 } };
    expect((await rejectTicket(review, { ticketId: fourth.id, operator: 'anna', reason: 'the answer is out of date' })).outcome).toBe('rejected');
    // A parked ticket rejected afterwards is counted once, in the gap its unanswered question opened.
    expect((await rejectTicket(review, { ticketId: third.id, operator: 'anna', reason: 'no such feature' })).outcome).toBe('rejected');
    list = await gaps().list();
    expect(list.open.map((g) => [g.count, g.examples[0], g.tickets])).toEqual([
      [2, '請求書の宛名を変更したい', [second.id, first.id]],
      // Equal counts: the newer gap first.
      [1, '二段階認証を設定する手順を教えてください。', [fourth.id]],
      [1, 'ダークモードはありますか', [third.id]],
    ]);

    // The operator answers the first ticket by hand: the product still could not, so the gap stays open.
    const approved = await approveTicket(review, { ticketId: first.id, operator: 'anna', reply: '請求書の宛名は「管理」→「契約」から変更できます。' });
    expect(approved.outcome).toBe('approved');
    await waitForState(running.store, first.id, ['sent']);
    expect((await gaps().list()).open[0]).toMatchObject({ count: 2, tickets: [second.id, first.id] });
    expect((await gaps().list()).closedTotal).toBe(0);

    // The manual now covers it: a later ticket on the topic, worded differently again, is answered and sent, and
    // closes the gap; the other gaps stay open.
    notInKnowledgeBase = /ダークモード/;
    const fifth = await ask('請求書の宛名の変更について');
    expect(fifth.state).toBe('sent');
    list = await gaps().list({ includeClosed: true });
    expect(list.open.map((g) => g.examples[0])).toEqual(['二段階認証を設定する手順を教えてください。', 'ダークモードはありますか']);
    expect(list.closed).toHaveLength(1);
    expect(list.closed[0]).toMatchObject({ count: 2, examples: ['請求書の宛名を変更したい', '請求書の宛名を変更する方法を教えてください'], closedBy: fifth.id });
    expect(Date.parse(list.closed[0]!.closedAt!)).toBeGreaterThanOrEqual(Date.parse(list.closed[0]!.lastSeen));
    expect([list.openTotal, list.closedTotal]).toEqual([2, 1]);

    // The same question again, unanswerable after all: a new gap opens; the closed one stays closed.
    notInKnowledgeBase = /宛名|ダークモード/;
    const sixth = await ask('請求書の宛名を変更したいです');
    expect(sixth.state).toBe('parked');
    list = await gaps().list({ includeClosed: true });
    expect([list.openTotal, list.closedTotal]).toEqual([3, 1]);
    expect(list.open.find((g) => g.tickets.includes(sixth.id))).toMatchObject({ count: 1 });

    // The command line.
    const json = await gapsCommand(['--json', '--all']);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(list);
    const human = await gapsCommand([]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('3 open knowledge gaps, largest first:');
    expect(human.stdout).toContain('「ダークモードはありますか」');
    expect(human.stdout).toContain(`tickets: ${fourth.id.slice(0, 12)}`);
    expect(human.stdout).toContain('1 closed gap not shown (--all shows them)');
    expect(human.stdout).not.toContain('「請求書の宛名を変更する方法を教えてください」');
    const all = await gapsCommand(['--all']);
    expect(all.stdout).toContain(`closed `);
    expect(all.stdout).toContain(`by ticket ${fifth.id.slice(0, 12)}: 「`);
    const bad = await gapsCommand(['--limit', '0']);
    expect([bad.code, bad.stderr.trim()]).toEqual([2, 'knowledge: --limit must be a whole number from 1 to 1000']);

    // The JSON API and the page section.
    const app = createDashboardApp({ config: parseConfig(env), redis, store: running.store, queues: await running.services.queues() });
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const open = await fetch(`${base}/api/knowledge/gaps`);
      expect(open.status).toBe(200);
      expect(open.headers.get('x-total-count')).toBe('3');
      expect((await open.json()) as GapList).toEqual({ ...list, closed: [] });
      const withClosed = await fetch(`${base}/api/knowledge/gaps?all=1&limit=1`);
      const limited = (await withClosed.json()) as GapList;
      expect(limited.open.map((g) => g.id)).toEqual([list.open[0]!.id]);
      expect(limited.closed.map((g) => g.id)).toEqual([list.closed[0]!.id]);
      expect((await fetch(`${base}/api/knowledge/gaps?limit=zero`)).status).toBe(400);
      expect((await fetch(`${base}/api/knowledge/gaps?everything=1`)).status).toBe(400);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const section = renderGapsSection(list).toString();
    expect(section).toContain('Knowledge gaps <span class="muted">(3 open)</span>');
    expect(section).toContain('<li>ダークモードはありますか</li>');
    expect(section).toContain(`<a href="/tickets/${fifth.id}">`);
  });
});

describe('the gap store', () => {
  /** A store under a fresh prefix whose clock moves a second per reading, so gap ids follow the order of writes. */
  function store(): GapStore {
    const prefix = `gaps${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    afterAllPrefixes.push(prefix);
    let t = Date.parse('2026-01-05T09:00:00Z');
    return new GapStore(redis, { prefix, now: () => new Date((t += 1000)) });
  }
  const afterAllPrefixes: string[] = [];
  afterAll(async () => {
    for (const prefix of afterAllPrefixes) await removePrefix(servers.redis.url, prefix);
  });

  it('counts every ticket of concurrent writers into one gap', async () => {
    const s = store();
    const wordings = ['請求書の宛名を変更したい', '請求書の宛名変更について調べる', '請求書の宛名を変更する方法を教えてください'];
    const tickets = Array.from({ length: 12 }, (_, i) => `${String(i).padStart(2, '0')}${'a'.repeat(62)}`);
    await Promise.all(tickets.map((t, i) => s.record(wordings[i % wordings.length]!, t)));
    const list = await s.list();
    expect(list.openTotal).toBe(1);
    expect(list.open[0]!.count).toBe(12);
    expect([...list.open[0]!.tickets].sort()).toEqual(tickets);
    expect(list.open[0]!.examples).toHaveLength(3);
  });

  it('takes no question from a ticket erased on request, whenever the write comes (a job that read it before the erasure)', async () => {
    const prefix = `gaps${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    afterAllPrefixes.push(prefix);
    const s = new GapStore(redis, { prefix });
    const erased = 'e'.repeat(64);
    const other = 'f'.repeat(64);
    await s.record('二段階認証のバックアップコードを再発行する方法', other);
    // `forget` marks the tickets erased before it reads what derives from them.
    await new LearnedAnswerStore(redis, { prefix }).candidatesOfTickets(new Set([erased]), { remove: true });
    expect(await s.record('請求書の宛名を変更する方法を教えてください', erased)).toBeUndefined();
    expect(await s.close(['二段階認証のバックアップコードを再発行したい'], erased)).toEqual([]);
    const list = await s.list({ includeClosed: true });
    expect(list.open.map((g) => g.tickets)).toEqual([[other]]);
    expect(list.closedTotal).toBe(0);
  });

  it('keeps personal data out of the stored questions and ignores questions with nothing to compare', async () => {
    const s = store();
    const gap = await s.record('ご注文番号：A-20240115-001 の返品方法を教えてください。yamada@example.jp', 'b'.repeat(64));
    expect(gap?.examples).toEqual(['ご注文番号：[番号] の返品方法を教えてください。[メールアドレス]']);
    expect(await s.record('教えてください。', 'c'.repeat(64))).toBeUndefined();
    expect((await s.list()).openTotal).toBe(1);
  });

  it(`keeps at most ${MAX_OPEN_GAPS} open gaps, dropping the smallest and oldest`, { timeout: 120_000 }, async () => {
    const s = store();
    // Distinct one-word questions share no term, so each opens a gap of its own.
    const first = await s.record('zq0 topic', 'd'.repeat(64));
    await s.record('zq0 topic', 'e'.repeat(64));
    for (let i = 1; i <= MAX_OPEN_GAPS + 1; i++) await s.record(`zq${i}`, `${i.toString(16).padStart(4, '0')}${'f'.repeat(60)}`);
    const list = await s.list();
    expect(list.openTotal).toBe(MAX_OPEN_GAPS);
    expect(list.open[0]).toMatchObject({ id: first!.id, count: 2 });
    // The two oldest single-ticket gaps made room.
    const questions = new Set(list.open.flatMap((g) => g.examples));
    expect(questions.has('zq1')).toBe(false);
    expect(questions.has('zq2')).toBe(false);
    expect(questions.has('zq3')).toBe(true);
    expect(questions.has(`zq${MAX_OPEN_GAPS + 1}`)).toBe(true);
    expect(await redis.hlen(s.keys().doc)).toBe(MAX_OPEN_GAPS);
  });

  it('never fails the caller: a gap store that cannot be written is logged at warn and the ticket stands', async () => {
    notInKnowledgeBase = /宛名|ダークモード/;
    const parked = await ask('ダークモードの設定を変えたい');
    expect(parked.state).toBe('parked');
    const dead = await connectProducer(servers.redis.url);
    dead.disconnect();
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const result = await learnGapsFrom({ store: running.store, redis: dead, logger }, parked);
    expect(result).toEqual({ recorded: [], closed: [] });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, ticketId: parked.id, msg: expect.stringContaining('Could not update the knowledge gaps') });
    expect((await running.store.require(parked.id)).state).toBe('parked');
  });

  it("forgets a customer's questions when the customer is erased, and the gaps they alone made", async () => {
    notInKnowledgeBase = /エクスポート|ウォッチ/;
    // The rules cannot know every name: this one has no honorific and is not the sender's display name.
    const from = `erase-${randomUUID().slice(0, 8)}@customer.example`;
    const mail = (question: string, sender: string) =>
      ingest(running, buildMail({ messageId: customerMessageId('erase'), from: sender, subject: 'お問い合わせ', body: question }));
    const { ticketId: own } = await mail('Fujimoto Logistics のデータを CSV でエクスポートしたい', from);
    const { ticketId: shared } = await mail('スマートウォッチと連携したい', from);
    const { ticketId: other } = await mail('スマートウォッチと連携できますか', `someone-else-${randomUUID().slice(0, 8)}@customer.example`);
    for (const id of [own, shared, other]) expect((await waitForState(running.store, id, ['parked'])).state).toBe('parked');
    await pipelineIdle();
    const before = await gaps().list();
    expect(before.open.flatMap((g) => g.examples)).toContain('Fujimoto Logistics のデータを CSV でエクスポートしたい');

    const deps = { redis, store: running.store, prefix: env.QUEUE_PREFIX!, archiveDir: path.join(servers.kb.dataDir, 'archive') };
    // The dry run names the gaps the erasure will change, and changes none of them.
    const touched = before.open.filter((g) => g.tickets.includes(own) || g.tickets.includes(shared)).map((g) => g.id);
    expect(touched.length).toBeGreaterThanOrEqual(2);
    const preview = await forgetCustomer(deps, from, { confirm: false });
    expect([...preview.knowledgeGaps].sort()).toEqual([...touched].sort());
    expect(await gaps().list()).toEqual(before);

    const done = await forgetCustomer(deps, from, { confirm: true });
    expect([...done.knowledgeGaps].sort()).toEqual([...touched].sort());
    const after = await gaps().list({ includeClosed: true });
    const everything = JSON.stringify(after);
    expect(everything).not.toContain('Fujimoto');
    expect(everything).not.toContain('スマートウォッチと連携したい');
    for (const id of [own, shared]) expect(everything).not.toContain(id);
    // The gap another customer shares stays, with that customer's question and the count of what happened.
    const watch = after.open.find((g) => g.tickets.includes(other));
    expect(watch).toMatchObject({ count: 2, examples: ['スマートウォッチと連携できますか'], exampleTickets: [other], tickets: [other] });
    expect(before.open.find((g) => g.tickets.includes(other))?.examples).toEqual(['スマートウォッチと連携したい', 'スマートウォッチと連携できますか']);
  });
});

// The insights page's "top knowledge gaps" are those of its period, whose days are the desk's calendar days (TZ) like
// every other figure on the page: a gap last seen at 05:00 on Tuesday in Tokyo is Tuesday's, not Monday's (UTC).
describe('topGapsOf: the period in the desk time zone', () => {
  const startedZone = process.env.TZ;
  afterAll(() => {
    if (startedZone === undefined) delete process.env.TZ;
    else process.env.TZ = startedZone;
  });

  it.each([
    ['Asia/Tokyo', ['early on the 24th in Tokyo']],
    ['UTC', ['early on the 25th in Tokyo']],
  ])('in %s, picks the gaps seen on 2026-11-24 there', async (zone, expected) => {
    process.env.TZ = zone;
    const prefix = `gaps-day-${randomUUID()}`;
    const seen: Array<[string, string]> = [
      ['2026-11-23T14:30:00.000Z', 'late on the 23rd in Tokyo 請求書の宛名を変えたい'], // 23:30 JST on the 23rd, the 24th nowhere
      ['2026-11-23T20:00:00.000Z', 'early on the 24th in Tokyo ダークモードにしたい'], // 05:00 JST on the 24th, 20:00 UTC on the 23rd
      ['2026-11-24T16:00:00.000Z', 'early on the 25th in Tokyo 領収書を再発行したい'], // 01:00 JST on the 25th, 16:00 UTC on the 24th
    ];
    try {
      for (const [at, question] of seen) {
        const store = new GapStore(redis, { prefix, now: () => new Date(at) });
        expect(await store.record(question, `t-${randomUUID()}`)).toBeDefined();
      }
      const store = new GapStore(redis, { prefix });
      const top = await topGapsOf(store, { from: '2026-11-24', to: '2026-11-24', limit: 10 });
      expect(top.map((g) => g.topic.replace(/ [^ ]+$/, '')).sort()).toEqual([...expected].sort());
    } finally {
      await removePrefix(servers.redis.url, prefix);
    }
  });
});
