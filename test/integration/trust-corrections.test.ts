/**
 * A reviewer's correction against a real redis-server and a real SMTP receiver (learning audit of session 49, HIGH 1
 * and MED 3, 4): an approval that changes a fact of the draft (30 days → 90 days) marks the cited Q&A row whose text
 * said 30 days — `knowledge trust` and the Knowledge page's {@link listCorrectedSources} show "corrected on ticket …",
 * a gap names the row — and that row earns no trust back from later approvals as is of drafts that still say 30 days,
 * while the manual section beside it, which said 90, is untouched. A mistaken review can be withdrawn
 * (`knowledge trust --drop-review`), and a pair accepted from approvals as is starts with their reviews.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MANUAL_TOOL_NAME, QA_TOOL_NAME } from '../../src/agent/tools.js';
import type { AgentResult, ToolResult } from '../../src/agent/types.js';
import { formatTrust } from '../../src/cli/knowledge-trust.js';
import { GapStore } from '../../src/knowledge/gaps.js';
import { LearnedAnswerStore, acceptLearned } from '../../src/knowledge/learned-answers.js';
import { formatQaPair } from '../../src/search/types.js';
import { CsrfTokens } from '../../src/server/auth.js';
import { knowledgePageHandlers } from '../../src/server/knowledge-page.js';
import { approveTicket } from '../../src/tickets/review.js';
import { newTicket, type Ticket } from '../../src/tickets/ticket.js';
import * as trust from '../../src/tickets/trust.js';
import { citedSources, learnVerdict, listTrust, readStanding, readTrust, type TrustSettings } from '../../src/tickets/trust.js';
import { runNpm } from '../support/pipeline.js';
import { ONE_CALL_USAGE, draftAgentResult, useSenderHarness, type SenderFixture } from '../support/sender-harness.js';

const SETTINGS: TrustSettings = { TRUST_MIN_REVIEWS: 3, TRUST_MIN_AS_IS: 0.9, TRUST_WINDOW: 20, TRUST_MAX_EDIT_RATIO: 0.2 };

const harness = useSenderHarness();
/** A store and queues under a fresh prefix, on the real clock; keys removed after the test. */
const fixture = (): SenderFixture => harness.fixture('trfx');

const QUESTION = 'ログは何日間保存されますか？';
/** The stale FAQ row: 30 days, where the manual says 90. */
const STALE_ROW = { fileName: 'xyz-qa.csv#51', content: 'Q: ログの保存期間は？\nA: ログは30日間保存されます。' };
const MANUAL = { fileName: 'manual/logs.md', content: '【ログ > 保存期間】\nログは90日間保存され、その後自動で削除されます。' };
/** Another section that says 30日 of something else: the correction is not its. */
const NOTICE = { fileName: 'manual/contract.md', content: '【契約 > 解約】\n解約は30日前までにご連絡ください。' };
// The draft pastes both: the row's 30 days and the manual's 90; the reviewer changes the 30 to a second 90.
const STALE_DRAFT =
  '山田様\n\nいつもお世話になっております。\n\nログは30日間保存されます。\nマニュアル: ログは90日間保存され、その後自動で削除されます。\n解約は30日前までにご連絡ください。\n\nよろしくお願いいたします。';
const CORRECTED = STALE_DRAFT.replace('30日間', '90日間');

/** The agent's result for `answer`: one subtask, the question, whose tools found `hits` (the sources it cites). */
function agentResult(answer: string, hits: Array<{ toolName: string; fileName: string; content: string }>): AgentResult {
  const calls: ToolResult[] = hits.map((h) => ({ toolName: h.toolName, args: '{}', results: [{ fileName: h.fileName, content: h.content }] }));
  const subtask = { taskName: QUESTION, toolResults: [calls], reflectionResults: [], isCompleted: true, subtaskAnswer: 'ok', challengeCount: 1, usedFallback: false, usage: ONE_CALL_USAGE };
  return draftAgentResult(answer, { question: QUESTION, plan: { subtasks: [QUESTION] }, subtasks: [subtask] });
}

const STALE_HITS = [
  { toolName: QA_TOOL_NAME, ...STALE_ROW },
  { toolName: MANUAL_TOOL_NAME, ...MANUAL },
  { toolName: MANUAL_TOOL_NAME, ...NOTICE },
];

/** A ticket from customer `n`, parked by the agent with `draft` citing `hits`. */
async function parked(f: SenderFixture, n: number, draft = STALE_DRAFT, hits = STALE_HITS): Promise<Ticket> {
  const ticket = newTicket({ messageId: `<q-${randomUUID()}@customer.example>`, from: `customer${n}@customer.example`, subject: 'ログ', question: QUESTION, actor: 'poller' });
  const { ticket: created } = await f.store.createIfAbsent(ticket);
  await f.store.transition(created.id, { to: 'processing', actor: 'agent-worker' });
  return f.store.transition(created.id, { to: 'parked', actor: 'agent-worker', patch: { agent: agentResult(draft, hits), draft, reason: 'not yet trusted' } });
}

/** Approves (with `reply` when given) and sends, as the review page and the sender do. */
async function approveAndSend(f: SenderFixture, t: Ticket, reply?: string): Promise<Ticket> {
  expect((await approveTicket(harness.review(f), { ticketId: t.id, operator: 'anna', ...(reply ? { reply } : {}) })).outcome).toBe('approved');
  expect((await harness.send(f, t.id)).outcome).toBe('sent');
  return f.store.require(t.id);
}

describe('a reviewer’s correction', () => {
  it('stops the source that said the corrected value from earning trust back, shows it and opens a gap for it', async () => {
    const f = fixture();
    const first = await parked(f, 0);
    const [rowKey, manualKey, noticeKey] = citedSources(first.agent!).map((s) => s.key) as [string, string, string];
    const sent = await approveAndSend(f, first, CORRECTED);
    expect(sent.outcome?.factsChanged).toEqual(['number']);

    // Ten customers' drafts still say 30 days (they cite the same row) and are approved as they are, by mistake.
    for (let n = 1; n <= 10; n++) expect((await approveAndSend(f, await parked(f, n))).outcome?.kind).toBe('approved_as_is');

    // 10 of 11 approved as is is over 90 %: without the correction's mark, the row would be trusted and the next
    // draft saying 30 days would go out unreviewed.
    const next = await parked(f, 11);
    const verdict = await learnVerdict(harness.redis, f.prefix, next.agent!, SETTINGS);
    expect(verdict.send).toBe(false);
    expect(verdict.reason).toContain(`${rowKey} has a correction on ticket ${first.id} not fixed in its text (30日)`);
    const [row, manual, notice] = await readTrust(harness.redis, f.prefix, [rowKey, manualKey, noticeKey], SETTINGS);
    expect(row).toMatchObject({ trusted: false, reviews: 11, approvedAsIs: 10 });
    expect(row!.corrections).toEqual([{ ticketId: first.id, at: expect.any(String), held: true, values: ['30日'], label: 'xyz-qa.csv#51 › ログの保存期間は？' }]);
    // The manual said 90 days: the correction is not its, and its record goes on as before.
    expect(manual).toMatchObject({ trusted: true, reviews: 11, approvedAsIs: 10 });
    expect(manual!.corrections).toBeUndefined();
    // Nor is it the other section's, which says 30日 of another thing (the draft's words before the value tell).
    expect(notice).toMatchObject({ trusted: true, reviews: 11, approvedAsIs: 10 });
    expect(notice!.corrections).toBeUndefined();

    // What the review page says of the row, and what the Knowledge page is given.
    const [standing] = await readStanding(harness.redis, f.prefix, [rowKey], SETTINGS);
    expect(trust.describeStanding(standing!)).toMatch(/^not trusted: a correction on ticket .* fix the source, or withdraw that review \(knowledge trust --drop-review\)$/);
    expect(await trust.listCorrectedSources(harness.redis, f.prefix)).toEqual([{ sourceId: rowKey, label: 'xyz-qa.csv#51 › ログの保存期間は？', corrections: row!.corrections, blocking: true }]);
    const knowledgePage = async () => {
      const shown = await knowledgePageHandlers({ learned: new LearnedAnswerStore(harness.redis, { prefix: f.prefix }), csrf: new CsrfTokens() }).page({ params: {}, query: {}, body: undefined, user: 'anna' });
      return 'html' in shown ? shown.html.toString() : '';
    };
    const listed = await knowledgePage();
    expect(listed).toContain('Corrected by reviewers');
    expect(listed).toContain('<bdi>xyz-qa.csv#51 › ログの保存期間は？</bdi>');
    expect(listed).toContain(`href="/tickets/${first.id}"`);
    expect(listed).toContain('fix and reindex');

    // A gap names the row to fix; the later approvals, which cite it still, do not close it.
    const gaps = await new GapStore(harness.redis, { prefix: f.prefix }).list();
    const gap = gaps.open.find((g) => g.correctionOf);
    expect(gap?.correctionOf).toEqual([rowKey]);
    expect(gap?.examples[0]).toContain('xyz-qa.csv#51');
    expect(gap?.examples[0]).toContain('30日');

    // Fixed and reindexed, the row is another text, another key: its record starts clean, the gap closes on the first
    // answer of the topic that cites it instead of the old text.
    const fixedRow = { toolName: QA_TOOL_NAME, fileName: STALE_ROW.fileName, content: 'Q: ログの保存期間は？\nA: ログは90日間保存されます。' };
    const fixed = await approveAndSend(f, await parked(f, 12, CORRECTED, [fixedRow, ...STALE_HITS.slice(1)]));
    expect(fixed.outcome?.kind).toBe('approved_as_is');
    expect((await new GapStore(harness.redis, { prefix: f.prefix }).list()).open.some((g) => g.correctionOf)).toBe(false);
    // The old text is no longer a source to fix (bug review B2, MED 3): listed as replaced by the fixed text, not as
    // blocking, and `knowledge trust` no longer says to fix it. Its record stays blocked should that text come back.
    const fixedKey = citedSources(fixed.agent!)[0]!.key;
    expect((await trust.listCorrectedSources(harness.redis, f.prefix)).map((c) => [c.sourceId, c.blocking, c.supersededBy])).toEqual([[rowKey, false, fixedKey]]);
    const table = formatTrust(await listTrust(harness.redis, f.prefix, SETTINGS), SETTINGS);
    expect(table).not.toContain('fix it and reindex');
    expect(table).toContain(`replaced by ${fixedKey}`);
    expect((await readTrust(harness.redis, f.prefix, [rowKey], SETTINGS))[0]!.trusted).toBe(false);
    expect(await knowledgePage()).toContain('replaced by a newer text');
    expect(await knowledgePage()).not.toContain('fix and reindex');
  });

  it('is recorded on every cited source, blocking none, when no source said the value taken out', async () => {
    const f = fixture();
    const invented = STALE_DRAFT.replace('30日間', '45日間');
    const t = await parked(f, 0, invented);
    await approveAndSend(f, t, CORRECTED);
    const corrected = await trust.listCorrectedSources(harness.redis, f.prefix);
    expect(corrected.map((c) => [c.blocking, c.corrections.map((x) => [x.ticketId, x.held, x.values])])).toEqual([
      [false, [[t.id, false, []]]],
      [false, [[t.id, false, []]]],
      [false, [[t.id, false, []]]],
    ]);
    expect((await listTrust(harness.redis, f.prefix, SETTINGS)).every((r) => r.missing === '1 of 3 reviews')).toBe(true);
  });


  it('records nothing for a rewrite that took the value out and put none of its kind in', async () => {
    const f = fixture();
    const sent = await approveAndSend(f, await parked(f, 0), '山田様\n\nこの件はお電話でご案内いたします。\n\nよろしくお願いいたします。');
    expect(sent.outcome?.factsChanged).toEqual(['number']);
    expect(await trust.listCorrectedSources(harness.redis, f.prefix)).toEqual([]);
    expect((await new GapStore(harness.redis, { prefix: f.prefix }).list()).open.some((g) => g.correctionOf)).toBe(false);
  });

  // Walkthrough W1: a reply the reviewer wrote over the agent's "not found" fallback adds numbers to no answer of the
  // agent's; it was recorded as a number correction on the sources the failed subtask had searched.
  it('records nothing for a reply written over the agent’s not-found fallback', async () => {
    const f = fixture();
    const fallback = '山田様\n\nログは何日間保存されますか？の回答が見つかりませんでした。\n\nよろしくお願いいたします。';
    const ticket = await parked(f, 0, fallback);
    const agent = ticket.agent!;
    const notFound = { ...agent, subtasks: agent.subtasks.map((s) => ({ ...s, isCompleted: false, usedFallback: true, subtaskAnswer: fallback })) };
    await f.store.update(ticket.id, { agent: notFound });
    const sent = await approveAndSend(f, ticket, CORRECTED);
    expect(sent.outcome?.kind).toBe('approved_edited');
    expect(sent.outcome?.factsChanged).toBeUndefined();
    expect(sent.approval?.agentHadNoAnswer).toBe(true);
    expect(await trust.listCorrectedSources(harness.redis, f.prefix)).toEqual([]);
    expect(await harness.redis.keys(`${f.prefix}:trust:fix:*`)).toEqual([]);
    expect((await new GapStore(harness.redis, { prefix: f.prefix }).list()).open.some((g) => g.correctionOf)).toBe(false);
  });
});

const RETURNS_8 = { toolName: MANUAL_TOOL_NAME, fileName: 'manual/returns.md', content: '【返品 > 期限】\n返品は商品到着後、8日以内にご連絡ください。' };
const PRICE = { toolName: QA_TOOL_NAME, fileName: 'xyz-qa.csv#7', content: 'Q: 月額料金は？\nA: 月額1,000円（税込）です。' };
const RETURNS_30 = { toolName: MANUAL_TOOL_NAME, fileName: 'manual/returns.md', content: '【返品】\n返品は商品到着後30日以内です。30日を過ぎた場合は返品できません。' };
const letter = (body: string) => `山田様\n\n${body}\n\nよろしくお願いいたします。`;

// Bug review B2 (HIGH 1): edits that change a number of the draft without correcting what the cited source says.
describe('an ordinary edit of a correct source’s value', () => {
  it.each([
    // S1: the customer's delivery date 8日 → 9日; the manual's 8日以内 is right and stays in the reply.
    ['S1 the customer’s own date', letter('8日にお届けした商品の返品は、商品到着後、8日以内にご連絡ください。'), (d: string) => d.replace('8日にお届け', '9日にお届け'), RETURNS_8],
    // S2: the same amount written without the thousands separator.
    ['S2 1,000円 → 1000円', letter('月額1,000円（税込）です。'), (d: string) => d.replace('1,000円', '1000円'), PRICE],
    // S3: the repeated 30日 sentence replaced by another fact of the same shape.
    ['S3 a reworded sentence', letter('返品は商品到着後30日以内です。30日を過ぎた場合は返品できません。'), (d: string) => d.replace('30日を過ぎた場合は返品できません。', '初期不良の交換は7日以内にお申し出ください。'), RETURNS_30],
  ])('%s records no correction that blocks the source or asks to fix it', async (_name, draft, edit, hit) => {
    const f = fixture();
    const first = await parked(f, 0, draft, [hit]);
    const [key] = citedSources(first.agent!).map((s) => s.key) as [string];
    await approveAndSend(f, first, edit(draft));
    for (let n = 1; n <= 3; n++) expect((await approveAndSend(f, await parked(f, n, draft, [hit]))).outcome?.kind).toBe('approved_as_is');
    expect((await trust.listCorrectedSources(harness.redis, f.prefix)).filter((c) => c.blocking)).toEqual([]);
    const [record] = await readTrust(harness.redis, f.prefix, [key], SETTINGS);
    expect(record!.corrections?.some((c) => c.held) ?? false).toBe(false);
    // 3 of 4 as is, under 90 %: what blocks is the record, not a correction.
    expect(record!.missing ?? '').not.toContain('a correction on ticket');
    // Nothing to fix: a gap asking to check the sources closes on the next answer of the topic, as other gaps do.
    expect((await new GapStore(harness.redis, { prefix: f.prefix }).list()).open.filter((g) => g.correctionOf)).toEqual([]);
  });
});

describe('withdrawing a review', () => {
  it('takes one ticket’s review and correction out of every source’s record, in the CLI too', async () => {
    const f = fixture();
    const correction = await parked(f, 0);
    await approveAndSend(f, correction, CORRECTED);
    const mistaken = await approveAndSend(f, await parked(f, 1));
    expect((await new GapStore(harness.redis, { prefix: f.prefix }).list()).open.filter((g) => g.correctionOf)).toHaveLength(1);
    const keys = citedSources(correction.agent!).map((s) => s.key);
    expect((await readTrust(harness.redis, f.prefix, keys, SETTINGS)).map((r) => r.reviews)).toEqual([2, 2, 2]);

    const changes = await trust.dropReview(harness.redis, f.prefix, mistaken.id, SETTINGS);
    expect(changes.map((c) => [c.sourceId, c.reviews, c.corrections, c.before.reviews, c.after.reviews]).sort()).toEqual(keys.map((k) => [k, 1, 0, 2, 1]).sort());
    expect(await trust.dropReview(harness.redis, f.prefix, mistaken.id, SETTINGS)).toEqual([]);

    // Through the command line: the correction withdrawn, the row no longer blocked and left without a review at all.
    const env = { REDIS_URL: harness.redisUrl, QUEUE_PREFIX: f.prefix, HELPDESK_ENV_FILE: 'none', LOG_LEVEL: 'warn' };
    const run = await runNpm(['run', 'knowledge', '--', 'trust', '--drop-review', correction.id], env, 60_000);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Withdrew ticket ${correction.id}'s review from 3 sources:`);
    expect(run.stdout).toContain(`${keys[0]}: 1 review and 1 correction removed; not yet 0/1 → not yet 0/0`);
    expect(await listTrust(harness.redis, f.prefix, SETTINGS)).toEqual([]);
    expect(await trust.listCorrectedSources(harness.redis, f.prefix)).toEqual([]);
    // The gap that asked to fix the row closes with it (bug review B2, MED 2): no answer citing the row would.
    expect((await new GapStore(harness.redis, { prefix: f.prefix }).list()).open.some((g) => g.correctionOf)).toBe(false);
    expect(run.stdout).toContain('Closed 1 gap');

    const usage = await runNpm(['run', 'knowledge', '--', 'trust', '--drop-review', 'abc'], env, 60_000);
    expect(usage.code).toBe(2);
  }, 120_000);
});

describe('accepting a learned pair', () => {
  it('starts the pair with the reviews of the tickets that taught it and were approved as is, and no others', async () => {
    const f = fixture();
    const asIs = await approveAndSend(f, await parked(f, 0, CORRECTED, [{ toolName: MANUAL_TOOL_NAME, ...MANUAL }]));
    const corrected = await approveAndSend(f, await parked(f, 1), CORRECTED);
    const learned = new LearnedAnswerStore(harness.redis, { prefix: f.prefix });
    const draft = { question: 'ログの保存期間は？', answer: 'ログは90日間保存されます。', origin: 'rules' as const, scrub: { replaced: 0, modelPass: 'off' as const } };
    const [fromAsIs] = await learned.propose(asIs.id, [draft]);
    const [fromCorrection] = await learned.propose(corrected.id, [{ ...draft, question: 'ログはいつ消えますか？', answer: 'ログは保存から90日後に削除されます。' }]);

    const a = await acceptLearned({ store: learned }, fromAsIs!.id, { by: 'kato', asNew: true });
    const b = await acceptLearned({ store: learned }, fromCorrection!.id, { by: 'kato', asNew: true });
    if (a.outcome !== 'accepted' || b.outcome !== 'accepted') throw new Error('not accepted');
    // The key the agent's citation of the pair will carry: the Q&A tool's hit of it.
    const cite = (pair: typeof a.pair) => citedSources(agentResult('', [{ toolName: QA_TOOL_NAME, fileName: `learned#${pair.id}`, content: formatQaPair(pair) }]))[0]!.key;
    const [pairA, pairB] = await readTrust(harness.redis, f.prefix, [cite(a.pair), cite(b.pair)], SETTINGS);
    expect(pairA).toMatchObject({ reviews: 1, approvedAsIs: 1, missing: '1 of 3 reviews' });
    // A correction vouches for the reviewer's text, not for a draft: it is not copied.
    expect(pairB).toMatchObject({ reviews: 0 });
    // Accepting it again (an update with the same text) copies nothing twice.
    expect((await harness.redis.lrange(trust.trustKeys(f.prefix).source(cite(a.pair)), 0, -1)).map((e) => e.split(' ')[2])).toEqual([asIs.id]);
  });
});
