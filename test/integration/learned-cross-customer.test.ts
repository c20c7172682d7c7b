/**
 * Security review 19 (cross-customer leakage through learned answers), on real Redis and SMTP with the scripted model,
 * as test/integration/learned-answers-loop.test.ts runs the loop: customer A writes in Korean, an operator approves a
 * reply that greets A by name and names A's order number, the proposal's scrub leaves both in the candidate, the
 * operator accepts it, and customer B's agent run reads them as a Q&A hit and drafts from it.
 *
 * What holds now: the Knowledge page names A's order number for the reviewer (oneCustomerDetails), and B's agent reads
 * the pair with a note that it was written to one customer (LEARNED_HIT_NOTE). That the scrub removes A's name and
 * number itself needs Korean rules in src/knowledge/personal-data.ts (고객님 after a name, 주문번호 before a number),
 * which it does not have yet: that expectation is its own `it`, named for them, and fails until they land.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../src/config.js';
import { LEARNED_HIT_NOTE } from '../../src/agent/tools.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { acceptLearned, LearnedAnswerStore, type LearnedCandidate } from '../../src/knowledge/learned-answers.js';
import { oneCustomerDetails } from '../../src/knowledge/learned-candidates.js';
import { approveTicket } from '../../src/tickets/review.js';
import { buildMail, customerMessageId, FAST_TUNING, ingest, pipelineEnv, removePrefix, startPipelineServers, startRoles, waitFor, waitForState, type PipelineServers, type RunningRoles } from '../support/pipeline.js';

let servers: PipelineServers;
let running: RunningRoles;
let env: Record<string, string>;
let config: Config;

beforeAll(async () => {
  servers = await startPipelineServers();
  servers.llm.setHandler(scriptedModel({ tools: 'both', judgeRelevance: true }));
  env = pipelineEnv(servers, { REVIEW_MODE: 'auto' });
  config = parseConfig(env);
  running = await startRoles(config);
}, 120_000);
afterAll(async () => {
  await running?.stop();
  if (servers) await removePrefix(servers.redis.url, env.QUEUE_PREFIX!);
  await servers?.stop();
});

const QUESTION = '영수증 받는 사람 이름을 변경할 수 있나요?';
const A_NAME = '김민수';
const A_ORDER = '202611030042';

/** What the Korean loop left: the candidate from A's approval, and what B's agent run read and drafted. */
interface KoreanLoop {
  candidate: LearnedCandidate;
  /** The text of every search hit B's agent run read. */
  read: string;
  /** The notes on B's learned hits. */
  learnedNotes: (string | undefined)[];
  draft: string;
}
let koreanLoop: Promise<KoreanLoop> | undefined;

/** Runs the Korean loop once; both of its `it`s read what it left. */
function runKoreanLoop(): Promise<KoreanLoop> {
  koreanLoop ??= (async () => {
    const redis = await running.services.producer();
    const learned = new LearnedAnswerStore(redis, { prefix: config.QUEUE_PREFIX });
    const first = await ingest(running, buildMail({ messageId: customerMessageId('ko-a'), from: 'minsu@customer-a.example', subject: '영수증 문의', body: `${QUESTION}\n\n감사합니다.\n${A_NAME} 드림` }));
    const parked = await waitForState(running.store, first.ticketId, ['parked', 'sent'], 60_000);
    expect(parked.state).toBe('parked');

    // What an operator writes in the customer's language: the name before 고객님, the order number after 주문번호.
    const reply = [`${A_NAME} 고객님, 안녕하세요.`, '', `주문번호 ${A_ORDER}의 영수증도 받는 사람 이름을 변경할 수 있습니다. 「請求」→「領収書」→「宛名を編集」에서 새 이름을 입력하세요.`, '', '감사합니다.'].join('\n');
    const queues = await running.services.queues();
    const approval = await approveTicket({ store: running.store, outbound: queues.outbound, learning: queues.tickets, redis, config, tuning: FAST_TUNING }, { ticketId: first.ticketId, operator: 'sato', reply });
    expect(approval.outcome).toBe('approved');
    const candidate = await waitFor(async () => (await learned.candidates()).find((c) => c.ticketId === first.ticketId), 'a learned-answer candidate', 30_000);

    // An operator who accepts it (the page shows "personal data removed" counts; nothing flags what the rules missed).
    const accepted = await acceptLearned({ store: learned, qa: running.services.search().qa }, candidate.id, { by: 'sato' });
    expect(accepted.outcome).toBe('accepted');
    const second = await ingest(running, buildMail({ messageId: customerMessageId('ko-b'), from: 'jiyoung@customer-b.example', subject: '영수증', body: `${QUESTION}\n\n감사합니다.\n박지영 드림` }));
    const answered = await waitForState(running.store, second.ticketId, ['sent', 'parked'], 60_000);
    const results = answered.agent!.subtasks.flatMap((s) => s.toolResults.flat()).flatMap((t) => t.results as { fileName: string; content: string; note?: string }[]);
    const read = results.map((r) => r.content).join('\n');
    const learnedNotes = results.filter((r) => r.fileName.startsWith('learned#')).map((r) => r.note);
    return { candidate, read, learnedNotes, draft: answered.draft ?? '' };
  })();
  return koreanLoop;
}

describe("customer A's name and order number, learned from an approved Korean reply", () => {
  it("are named for the reviewer, and customer B's agent reads the pair as written to one customer", async () => {
    const { candidate, learnedNotes } = await runKoreanLoop();
    // The scrub removes the labelled number now (below); one it does not read is still named for the reviewer.
    expect(oneCustomerDetails(candidate.question, `${candidate.answer}\n${A_ORDER}`)).toContainEqual({ kind: 'reference', text: A_ORDER });
    expect(learnedNotes.length).toBeGreaterThan(0);
    for (const note of learnedNotes) expect(note).toBe(LEARNED_HIT_NOTE);
    expect(LEARNED_HIT_NOTE).toContain('今回のお客様が自分で書いたもの以外は決して繰り返さない');
  }, 180_000);

  it("do not reach the candidate, customer B's agent run or B's draft", async () => {
    const { candidate, read, draft } = await runKoreanLoop();
    const candidateText = `${candidate.question}\n${candidate.answer}`;
    const leftInCandidate = [A_NAME, A_ORDER].filter((d) => candidateText.includes(d));
    const leftInBRun = [A_NAME, A_ORDER].filter((d) => read.includes(d));
    const leftInBDraft = [A_NAME, A_ORDER].filter((d) => draft.includes(d));
    expect({ leftInCandidate, leftInBRun, leftInBDraft }).toEqual({ leftInCandidate: [], leftInBRun: [], leftInBDraft: [] });
  }, 180_000);
});

describe("the name a customer gave their Reply-To (a web form's mail: the form's From, the customer's Reply-To)", () => {
  it('is scrubbed from the candidate as the From name would be', async () => {
    const redis = await running.services.producer();
    const learned = new LearnedAnswerStore(redis, { prefix: config.QUEUE_PREFIX });
    const mail = buildMail({
      messageId: customerMessageId('form'),
      from: 'Contact form <form@forms.shop.example>',
      headers: { 'Reply-To': 'Priya Raman <priya.raman@customer-c.example>' },
      subject: '領収書について',
      body: '領収書の宛名変更はできますか？',
    });
    const first = await ingest(running, mail);
    const ticket = await waitForState(running.store, first.ticketId, ['parked', 'sent'], 60_000);
    expect(ticket.replyToName).toBe('Priya Raman');
    const reply = 'Hello Priya — yes: open Billing, then Receipts, then Edit addressee. The receipt is reissued for Priya Raman at once.';
    const queues = await running.services.queues();
    const approval = await approveTicket({ store: running.store, outbound: queues.outbound, learning: queues.tickets, redis, config, tuning: FAST_TUNING }, { ticketId: first.ticketId, operator: 'sato', reply });
    expect(approval.outcome).toBe('approved');
    const candidate = await waitFor(async () => (await learned.candidates()).find((c) => c.ticketId === first.ticketId), 'a learned-answer candidate', 30_000);
    expect(candidate.answer).not.toContain('Priya');
  }, 120_000);

  it('is scrubbed by its address when the Reply-To has no display name', async () => {
    const redis = await running.services.producer();
    const learned = new LearnedAnswerStore(redis, { prefix: config.QUEUE_PREFIX });
    const mail = buildMail({
      messageId: customerMessageId('form-address'),
      from: 'Contact form <form@forms.shop.example>',
      headers: { 'Reply-To': 'kenji.watanabe@customer-d.example' },
      subject: '領収書について',
      body: '領収書の宛名は後から変えられますか？',
    });
    const first = await ingest(running, mail);
    await waitForState(running.store, first.ticketId, ['parked', 'sent'], 60_000);
    const reply = 'Hello Kenji — yes: open Billing, then Receipts, then Edit addressee. The receipt is reissued for Kenji Watanabe at once.';
    const queues = await running.services.queues();
    const approval = await approveTicket({ store: running.store, outbound: queues.outbound, learning: queues.tickets, redis, config, tuning: FAST_TUNING }, { ticketId: first.ticketId, operator: 'sato', reply });
    expect(approval.outcome).toBe('approved');
    const candidate = await waitFor(async () => (await learned.candidates()).find((c) => c.ticketId === first.ticketId), 'a learned-answer candidate', 30_000);
    expect(candidate.answer).not.toContain('Kenji');
    expect(candidate.answer).not.toContain('Watanabe');
    expect(candidate.answer).toContain('open Billing, then Receipts, then Edit addressee');
  }, 120_000);
});
