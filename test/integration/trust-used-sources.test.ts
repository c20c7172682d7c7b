/**
 * Trust counts only the sources a reply used (learning audit of session 49, MED 4), against a real redis-server and a
 * real SMTP receiver: approvals as is of drafts that pasted the API-key section, while an unrelated FAQ row (E-4290)
 * merely ranked among the hits, credit the section alone; the row stays untrusted, and a later draft using only the
 * section passes the learn gate although the row (and another unrelated one) was retrieved again. A draft that shares
 * nothing with any hit of its subtask still needs every hit trusted, and what a reviewer's edit pasted in is credited.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MANUAL_TOOL_NAME, QA_TOOL_NAME } from '../../src/agent/tools.js';
import type { AgentResult, ToolResult } from '../../src/agent/types.js';
import { approveTicket, rejectTicket } from '../../src/tickets/review.js';
import { newTicket, type Ticket } from '../../src/tickets/ticket.js';
import { learnVerdict, readTrust, sourceKey, type TrustSettings } from '../../src/tickets/trust.js';
import { ONE_CALL_USAGE, draftAgentResult, useSenderHarness, type SenderFixture } from '../support/sender-harness.js';

const SETTINGS: TrustSettings = { TRUST_MIN_REVIEWS: 3, TRUST_MIN_AS_IS: 0.9, TRUST_WINDOW: 20, TRUST_MAX_EDIT_RATIO: 0.2 };

const harness = useSenderHarness();
const fixture = () => harness.fixture('trus');
type Fixture = SenderFixture;

interface Hit {
  toolName: string;
  fileName: string;
  content: string;
}

const QUESTION = 'APIキーを再発行するにはどうすればよいですか？';
/** Hit A: the section the drafts answer from. */
const API_KEY: Hit = { toolName: MANUAL_TOOL_NAME, fileName: 'manual/api.md', content: '【API > APIキー】\nAPIキーは管理画面の「設定 > API」から再発行できます。再発行すると古いキーはすぐに使えなくなります。' };
/** Hit B: the audit's E-4290 row, ranked third for API-key questions and used by none of their drafts. */
const E4290: Hit = { toolName: QA_TOOL_NAME, fileName: 'xyz-qa.csv#31', content: 'Q: エラー E-4290 が出ます\nA: 同時接続数の上限です。しばらく待ってから再度お試しください。' };
/** Another unrelated row, retrieved for the first time by the later draft. */
const INVOICE: Hit = { toolName: QA_TOOL_NAME, fileName: 'xyz-qa.csv#12', content: 'Q: 請求書はどこで見られますか\nA: 請求書は毎月1日に発行され、PDFでダウンロードできます。' };

const keyOf = (h: Hit) => sourceKey(h.toolName === QA_TOOL_NAME ? 'qa' : 'manual', h.fileName, h.content);
const letter = (body: string) => `山田様\n\nいつもお世話になっております。\n\n${body}\n\nよろしくお願いいたします。`;
/** A draft that pastes hit A, as a model answering from it does. */
const USES_A = letter('APIキーは管理画面の「設定 > API」から再発行できます。再発行すると古いキーはすぐに使えなくなりますのでご注意ください。');

function agentResult(answer: string, hits: readonly Hit[]): AgentResult {
  const calls: ToolResult[] = hits.map((h) => ({ toolName: h.toolName, args: '{}', results: [{ fileName: h.fileName, content: h.content }] }));
  return draftAgentResult(answer, {
    question: QUESTION,
    plan: { subtasks: [QUESTION] },
    subtasks: [{ taskName: QUESTION, toolResults: [calls], reflectionResults: [], isCompleted: true, subtaskAnswer: answer, challengeCount: 1, usedFallback: false, usage: { ...ONE_CALL_USAGE } }],
  });
}

/** A ticket from customer `n`, parked by the agent with `draft` and the search `hits` of its one subtask. */
async function parked(f: Fixture, n: number, draft: string, hits: readonly Hit[]): Promise<Ticket> {
  const ticket = newTicket({ messageId: `<q-${randomUUID()}@customer.example>`, from: `customer${n}@customer.example`, subject: 'APIキー', question: QUESTION, actor: 'poller' });
  const { ticket: created } = await f.store.createIfAbsent(ticket);
  await f.store.transition(created.id, { to: 'processing', actor: 'agent-worker' });
  return f.store.transition(created.id, { to: 'parked', actor: 'agent-worker', patch: { agent: agentResult(draft, hits), draft, reason: 'not yet trusted' } });
}

/** Approves (with `reply` when given) and sends, as the review page and the sender do. */
async function approveAndSend(f: Fixture, t: Ticket, reply?: string): Promise<Ticket> {
  expect((await approveTicket(harness.review(f), { ticketId: t.id, operator: 'anna', ...(reply ? { reply } : {}) })).outcome).toBe('approved');
  expect((await harness.send(f, t.id)).outcome).toBe('sent');
  return f.store.require(t.id);
}

async function standing(f: Fixture, hits: readonly Hit[]) {
  return (await readTrust(harness.redis, f.prefix, hits.map(keyOf), SETTINGS)).map((r) => [r.reviews, r.approvedAsIs, r.trusted]);
}

describe('trust of the sources a reply used', () => {
  it('credits only the hit the approved drafts used; a later draft using it alone passes the learn gate', async () => {
    const f = fixture();
    for (let n = 0; n < 3; n++) expect((await approveAndSend(f, await parked(f, n, USES_A, [API_KEY, E4290]))).outcome?.kind).toBe('approved_as_is');
    // Nobody judged E-4290 in those drafts: it has no review, so it is not trusted.
    expect(await standing(f, [API_KEY, E4290])).toEqual([
      [3, 3, true],
      [0, 0, false],
    ]);
    // The next API-key draft retrieves E-4290 again and a never-seen row, and uses neither: it goes out.
    const later = await parked(f, 3, USES_A, [API_KEY, E4290, INVOICE]);
    expect(await learnVerdict(harness.redis, f.prefix, later.agent!, SETTINGS)).toEqual({ send: true, reason: 'all 1 cited sources trusted' });
  });

  it('still asks every hit to be trusted when the draft shares nothing with any of them', async () => {
    const f = fixture();
    for (let n = 0; n < 3; n++) await approveAndSend(f, await parked(f, n, USES_A, [API_KEY, E4290]));
    // Which hit such a draft rests on cannot be told: all of them count, as before, and E-4290 holds it back.
    const vague = letter('担当部署に確認のうえ、改めてご案内いたします。');
    const verdict = await learnVerdict(harness.redis, f.prefix, (await parked(f, 3, vague, [API_KEY, E4290])).agent!, SETTINGS);
    expect(verdict.send).toBe(false);
    expect(verdict.send ? [] : verdict.untrusted.map((r) => r.sourceId)).toEqual([keyOf(E4290)]);
    // Its approval as is credits them all, as before: the reviewer vouched for a reply resting on one of them.
    await approveAndSend(f, await parked(f, 4, vague, [API_KEY, E4290]));
    expect(await standing(f, [API_KEY, E4290])).toEqual([
      [4, 4, true],
      [1, 1, false],
    ]);
  });

  it('measures the credit against the reply that was sent: what the reviewer pasted in counts, what was not used does not', async () => {
    const f = fixture();
    const draft = letter('APIキーは管理画面の「設定 > API」から再発行できます。');
    // The reviewer adds the E-4290 advice from the row the draft had not used (a light edit): the row is credited.
    const edited = draft.replace('できます。', 'できます。\nなお E-4290 は同時接続数の上限です。しばらく待ってから再度お試しください。');
    const sent = await approveAndSend(f, await parked(f, 0, draft, [API_KEY, E4290, INVOICE]), edited);
    expect(sent.outcome?.kind).toBe('approved_edited');
    const [api, row, invoice] = await readTrust(harness.redis, f.prefix, [API_KEY, E4290, INVOICE].map(keyOf), SETTINGS);
    expect([api!.reviews, row!.reviews, invoice!.reviews]).toEqual([1, 1, 0]);
  });

  it('records an edit that cut what the draft took from a hit on that hit', async () => {
    const f = fixture();
    // The reviewer replaces the pasted API-key text with their own: the section the draft used gets the edited
    // review (it counts against it), though the reply sent no longer shares a run with it.
    const own = letter('お手数ですが、サポート窓口までお電話ください。担当者が確認いたします。');
    const sent = await approveAndSend(f, await parked(f, 0, USES_A, [API_KEY, E4290]), own);
    expect(sent.outcome?.kind).not.toBe('approved_as_is');
    const [api, row] = await readTrust(harness.redis, f.prefix, [API_KEY, E4290].map(keyOf), SETTINGS);
    expect([api!.reviews, api!.approvedAsIs, row!.reviews]).toEqual([1, 0, 0]);
  });

  it('records a rejection on the hits the rejected draft used', async () => {
    const f = fixture();
    const t = await parked(f, 0, USES_A, [API_KEY, E4290]);
    expect((await rejectTicket({ store: f.store, redis: harness.redis }, { ticketId: t.id, operator: 'anna', reason: 'wrong' })).outcome).toBe('rejected');
    expect(await standing(f, [API_KEY, E4290])).toEqual([
      [1, 0, false],
      [0, 0, false],
    ]);
  });
});
