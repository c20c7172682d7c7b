/**
 * A learned pair's first trust record (`creditTaughtReviews`, src/tickets/trust.ts) against an erasure and against an
 * answer the operator rewrote, on real servers (redis-server, the SMTP receiver, the scripted model): security review
 * 18, LOW 4 and LOW 5.
 *
 * LOW 4: the credit reads the taught tickets' review entries (sender digest included), then writes copies into the new
 * pair's list. A `forget` of the customer between the read and the write strips the digest from every list, and the
 * write must not bring it back: the interleaving is run step by step with the real functions, the erasure slipped in
 * before the write's one Redis call.
 *
 * LOW 5: only approvals as is vouch for a text. An answer the operator rewrote when accepting, or with `knowledge edit`
 * before, is not the text the approvals saw: the pair earns its own reviews, and says it was rewritten.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { LearnedAnswerStore, pairCorrected } from '../../src/knowledge/learned-answers.js';
import { senderDigest } from '../../src/tickets/outcome.js';
import { forgetCustomer } from '../../src/tickets/retention.js';
import { approveTicket } from '../../src/tickets/review.js';
import { creditTaughtReviews, learnedPairSourceKey, readReviewEntry, trustKeys } from '../../src/tickets/trust.js';
import { buildMail, customerMessageId, FAST_TUNING, ingest, waitFor, waitForState } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();
const CUSTOMER = 'erase-me@customer.example';
const REWRITTEN = 'パスワードは4文字以上で、数字だけでも構いません。';

/** A candidate proposed from one customer's ticket, approved as the agent drafted it and sent. */
async function taughtCandidate() {
  suite.servers.llm.setHandler(scriptedModel({ keywords: () => 'パスワード' }));
  const running = await suite.run({ REVIEW_MODE: 'always', REPEATED_QUESTION_HOURS: '0' });
  const config = running.services.config;
  const redis = await running.services.producer();
  const queues = await running.services.queues();
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('erase'), from: `Erase Me <${CUSTOMER}>`, subject: 'パスワード', body: 'パスワードの条件を教えてください。' }));
  const waiting = await waitForState(running.store, ticketId, ['parked', 'drafted'], 60_000);
  const approval = await approveTicket({ store: running.store, outbound: queues.outbound, learning: queues.tickets, redis, config, tuning: FAST_TUNING }, { ticketId, operator: 'sato', reply: waiting.draft! });
  expect(approval.outcome).toBe('approved');
  await waitForState(running.store, ticketId, ['sent'], 30_000);
  const learned = new LearnedAnswerStore(redis, { prefix: config.QUEUE_PREFIX });
  const candidate = await waitFor(async () => (await learned.candidates()).find((c) => c.ticketId === ticketId), 'a candidate', 30_000);
  const archiveDir = await mkdtemp(path.join(tmpdir(), 's50-forget-'));
  suite.cleanups.push(() => rm(archiveDir, { recursive: true, force: true }));
  const forget = () => forgetCustomer({ redis, store: running.store, prefix: config.QUEUE_PREFIX, archiveDir, queues }, CUSTOMER, { confirm: true });
  const k = trustKeys(config.QUEUE_PREFIX);
  // Every trust list entry naming the customer's digest (as stored: its first characters, senderDigest).
  const digestEntries = async () => {
    const found: string[] = [];
    for (const source of await redis.zrange(k.sources, 0, -1)) for (const e of await redis.lrange(k.source(source), 0, -1)) if (e.includes(senderDigest(CUSTOMER))) found.push(`${source}: ${e}`);
    return found;
  };
  const pairReviews = async (pair: Parameters<typeof learnedPairSourceKey>[0]) => (await redis.lrange(k.source(learnedPairSourceKey(pair)), 0, -1)).map(readReviewEntry);
  return { ticketId, learned, candidate, forget, digestEntries, pairReviews };
}

describe('a pair accepted while its teaching customer is erased (LOW 4)', () => {
  it("forget between the credit's read and its write: the erased customer's digest does not come back; the review stays", async () => {
    const { ticketId, learned, candidate, forget, digestEntries, pairReviews } = await taughtCandidate();
    expect((await digestEntries()).length).toBeGreaterThan(0);
    const accepted = await learned.accept(candidate.id, { by: 'sato' });
    expect(accepted.outcome).toBe('accepted');
    // creditTaughtReviews has read the lists (its pipeline) when the erasure runs, before its write (the credit
    // script, run with evalsha on store.connection): the real connection, with the forget slipped in before that call.
    const real = learned.connection;
    let erased = false;
    const racing = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'evalsha' && !erased) {
          return async (...args: unknown[]) => {
            erased = true;
            await forget();
            expect(await digestEntries()).toEqual([]);
            return (target.evalsha as (...a: unknown[]) => Promise<unknown>)(...args);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const store = Object.create(learned, { connection: { get: () => racing } }) as LearnedAnswerStore;
    expect(await creditTaughtReviews(store, accepted)).toBe(1);
    expect(erased).toBe(true);
    expect(await digestEntries()).toEqual([]);
    // As the erasure leaves the reviews of the other sources: the operator's judgement, without the customer.
    if (accepted.outcome !== 'accepted') throw new Error('not accepted');
    expect(await pairReviews(accepted.pair)).toEqual([{ kind: 'approved_as_is', editRatio: 0, ticketId }]);
  }, 120_000);

  it('control: credit before forget, then forget: the copy carried the digest, and the erasure takes it out', async () => {
    const { learned, candidate, forget, digestEntries, pairReviews } = await taughtCandidate();
    const accepted = await learned.accept(candidate.id, { by: 'sato' });
    expect(await creditTaughtReviews(learned, accepted)).toBe(1);
    if (accepted.outcome !== 'accepted') throw new Error('not accepted');
    expect((await pairReviews(accepted.pair))[0]?.sender).toBe(senderDigest(CUSTOMER));
    await forget();
    expect(await digestEntries()).toEqual([]);
  }, 120_000);
});

describe('a pair whose answer the operator rewrote (LOW 5)', () => {
  it('rewritten at accept: no approval is credited to a text no approval saw', async () => {
    const { learned, candidate, pairReviews } = await taughtCandidate();
    const accepted = await learned.accept(candidate.id, { by: 'sato', answer: REWRITTEN });
    expect(accepted).toMatchObject({ outcome: 'accepted', pair: { answer: REWRITTEN, answerEdited: true } });
    expect(await creditTaughtReviews(learned, accepted)).toBe(0);
    if (accepted.outcome !== 'accepted') throw new Error('not accepted');
    expect(await pairReviews(accepted.pair)).toEqual([]);
  }, 120_000);

  it('rewritten with `knowledge edit` before accepting: not credited, and the pair says it was rewritten', async () => {
    const { learned, candidate } = await taughtCandidate();
    expect((await learned.edit(candidate.id, { answer: REWRITTEN, by: 'sato' })).outcome).toBe('edited');
    // A second edit (the question only) keeps the text the approvals saw.
    expect((await learned.edit(candidate.id, { question: `${candidate.question}（条件）`, by: 'suzuki' })).outcome).toBe('edited');
    // The Knowledge page's form posts the candidate's text as it now stands.
    const accepted = await learned.accept(candidate.id, { by: 'sato', answer: REWRITTEN });
    expect(accepted).toMatchObject({ outcome: 'accepted', pair: { answer: REWRITTEN, answerEdited: true } });
    if (accepted.outcome !== 'accepted') throw new Error('not accepted');
    expect(pairCorrected(accepted.pair)).toBe(true);
    expect(await creditTaughtReviews(learned, accepted)).toBe(0);
  }, 120_000);

  it('control: edited, then edited back to the text the approvals saw, and a question-only edit: credited', async () => {
    const { learned, candidate } = await taughtCandidate();
    expect((await learned.edit(candidate.id, { answer: REWRITTEN, by: 'sato' })).outcome).toBe('edited');
    expect((await learned.edit(candidate.id, { answer: candidate.answer, question: `${candidate.question}（条件）`, by: 'sato' })).outcome).toBe('edited');
    const accepted = await learned.accept(candidate.id, { by: 'sato' });
    expect(accepted.outcome).toBe('accepted');
    if (accepted.outcome !== 'accepted') throw new Error('not accepted');
    expect(accepted.pair.answerEdited).toBeUndefined();
    expect(await creditTaughtReviews(learned, accepted)).toBe(1);
  }, 120_000);
});
