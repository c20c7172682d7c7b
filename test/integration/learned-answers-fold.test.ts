/**
 * Approvals that teach the same pair fold into one learned-answer candidate (operator8 finding 7), on a real
 * redis-server: one row with a count and the tickets, a different answer kept apart and cross-referenced, two
 * proposals at once neither doubling the row nor losing a count, and a customer's erasure taking their ticket id out
 * of the folded list.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { LearnedAnswerStore, otherAnswersOfEach, type LearnedCandidate } from '../../src/knowledge/learned-answers.js';
import { connectProducer } from '../../src/queues/connection.js';
import { forgetCustomer } from '../../src/tickets/retention.js';
import { newTicket } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { removePrefix } from '../support/pipeline.js';

let server: RedisServer;
let redis: Redis;
let other: Redis;
let root: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  server = await startRedis();
  [redis, other] = await Promise.all([connectProducer(server.url), connectProducer(server.url)]);
  root = await mkdtemp(path.join(tmpdir(), 'learned-fold-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  redis?.disconnect();
  other?.disconnect();
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

function fresh(): { prefix: string; learned: LearnedAnswerStore; tickets: TicketStore } {
  const prefix = `learnfold${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  cleanups.push(() => removePrefix(server.url, prefix));
  return { prefix, learned: new LearnedAnswerStore(redis, { prefix }), tickets: new TicketStore(redis, { prefix }) };
}

const RESET = 'ログイン画面の「パスワードを忘れた」から再設定用のメールを送れます。';
const draft = (question: string, answer = RESET): Omit<LearnedCandidate, 'id' | 'ticketId' | 'proposedAt'> => ({
  question,
  answer,
  origin: 'rules',
  scrub: { replaced: 0, modelPass: 'off' },
});
const T = (n: number) => String(n).repeat(64).slice(0, 64);

describe('folding candidates that teach the same pair', () => {
  it('three approvals of the same pair give one candidate proposed by 3, newest ticket first', async () => {
    const { learned } = fresh();
    const first = await learned.propose(T(1), [draft('パスワードを忘れてしまいました。')]);
    await learned.propose(T(2), [draft('パスワードを忘れました', `ログイン画面の「パスワードを忘れた」から\n再設定用のメールを送れます。`)]);
    await learned.propose(T(3), [draft('パスワードを忘れました。')]);
    const candidates = await learned.candidates();
    expect(candidates).toHaveLength(1);
    expect(candidates[0]).toMatchObject({ id: first[0]!.id, ticketId: T(1), question: 'パスワードを忘れてしまいました。', answer: RESET, approvals: 3, alsoProposedBy: [T(3), T(2)] });
    // A retried job of a folded ticket adds nothing.
    expect(await learned.proposeOnce(T(2), [draft('パスワードを忘れました')])).toEqual({ outcome: 'proposed-before' });
    expect((await learned.candidates())[0]!.approvals).toBe(3);
    // Accepting it records every ticket that taught it.
    const accepted = await learned.accept(first[0]!.id, { by: 'sato' });
    expect(accepted).toMatchObject({ outcome: 'accepted', pair: { ticketIds: [T(1), T(2), T(3)] } });
  });

  it('a different answer to the same question stays a candidate of its own, and each names the other', async () => {
    const { learned } = fresh();
    await learned.propose(T(1), [draft('パスワードを忘れてしまいました。')]);
    await learned.propose(T(2), [draft('パスワードを忘れました', '管理者にリセットを依頼してください。')]);
    const candidates = await learned.candidates();
    expect(candidates).toHaveLength(2);
    const [a, b] = candidates as [LearnedCandidate, LearnedCandidate];
    const others = otherAnswersOfEach(candidates);
    expect((others.get(a.id) ?? []).map((c) => c.id)).toEqual([b.id]);
    expect((others.get(b.id) ?? []).map((c) => c.id)).toEqual([a.id]);
  });

  it.each([
    ['two new proposals at once give one candidate proposed by 2', 0],
    ['two folds at once into a pending candidate lose no count', 1],
  ])('%s', async (_case, before) => {
    // Repeated: each round interleaves the two proposals' reads and writes differently.
    for (let round = 0; round < 10; round++) {
      const { prefix, learned } = fresh();
      if (before) await learned.propose(T(9), [draft('パスワードを忘れました')]);
      const twin = new LearnedAnswerStore(other, { prefix });
      await Promise.all([learned.propose(T(1), [draft('パスワードを忘れてしまいました。')]), twin.propose(T(2), [draft('パスワードを忘れました。')])]);
      const candidates = await learned.candidates();
      expect(candidates).toHaveLength(1);
      expect(candidates[0]!.approvals).toBe(2 + before);
      expect([candidates[0]!.ticketId, ...(candidates[0]!.alsoProposedBy ?? [])].sort()).toEqual([...(before ? [T(9)] : []), T(1), T(2)].sort());
    }
  });

  it("forgetting a customer takes their ticket id out of a folded candidate, and removes one proposed from theirs", async () => {
    const { prefix, learned, tickets } = fresh();
    const ticketOf = async (from: string) => {
      const ticket = newTicket({ messageId: `<${randomUUID()}@customer.example>`, from, subject: 'パスワード', question: 'パスワードを忘れました。', actor: 'poller' });
      await tickets.createIfAbsent(ticket);
      return ticket.id;
    };
    const [ann, bob, cai] = [await ticketOf('ann@customer.example'), await ticketOf('bob@customer.example'), await ticketOf('cai@customer.example')];
    const [folded] = await learned.propose(ann, [draft('パスワードを忘れました')]);
    await learned.propose(bob, [draft('パスワードを忘れました。')]);
    await learned.propose(cai, [draft('パスワードを忘れてしまいました。')]);
    const deps = { redis, store: tickets, prefix, archiveDir: path.join(root, prefix) };

    const bobs = await forgetCustomer(deps, 'bob@customer.example', { confirm: true });
    expect(bobs.learnedCandidates).toEqual([folded!.id]);
    const after = (await learned.candidates())[0]!;
    expect(after).toMatchObject({ id: folded!.id, ticketId: ann, approvals: 2, alsoProposedBy: [cai] });
    expect(JSON.stringify(await redis.hgetall(`${prefix}:learned:cand`))).not.toContain(bob);
    expect(JSON.stringify(await redis.hgetall(`${prefix}:learned:proposed`))).not.toContain(bob);

    // The candidate's text came from ann's ticket: it goes with her, as before folding.
    const anns = await forgetCustomer(deps, 'ann@customer.example', { confirm: true });
    expect(anns.learnedCandidates).toEqual([folded!.id]);
    expect(await learned.candidates()).toEqual([]);
  });
});
