/**
 * `npm run review -- forget` and `archive show`, spawned as an operator runs them, against a real redis-server and a
 * temporary DATA_DIR: the customer's tickets (as sender or Reply-To, any spelling of the address), raw mail,
 * conversation entries, thread links, archive lines and rate-limit windows go; nobody else's data does; without
 * `--yes` nothing changes.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { GapStore } from '../../src/knowledge/gaps.js';
import { LearnedAnswerStore } from '../../src/knowledge/learned-answers.js';
import { saveSentRaw, sentRawKey } from '../../src/mail/sent-copy.js';
import { createWorkerConnection } from '../../src/queues/connection.js';
import { answerJobId, sendJobId } from '../../src/queues/job-options.js';
import { closeAll, createQueues } from '../../src/queues/registry.js';
import { outcomeDay, outcomeKeys } from '../../src/tickets/outcome.js';
import { rawKey, saveRaw } from '../../src/mail/raw-store.js';
import { archiveDir, findArchived } from '../../src/tickets/archive.js';
import { agentRunDomainKey, agentRunKey, agentRunTotalKey, autoReplyKey, autoReplyRecipientKey, autoReplyTotalKey, recordAgentRun, recordAutoReplyBudget } from '../../src/tickets/rate-limit.js';
import { runRetention } from '../../src/tickets/retention.js';
import { newTicket, type Ticket, type TicketState } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { runNpm } from '../support/pipeline.js';

let server: RedisServer;
let redis: Redis;
let root: string;
let env: Record<string, string>;
let prefix: string;
let store: TicketStore;
let dir: string;

const DAY = 24 * 60 * 60 * 1000;
let clock = new Date();

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  root = await mkdtemp(path.join(tmpdir(), 'review-forget-'));
  prefix = `forget-${randomUUID()}`;
  env = { REDIS_URL: server.url, QUEUE_PREFIX: prefix, DATA_DIR: root, LOG_LEVEL: 'silent' };
  store = new TicketStore(redis, { prefix, now: () => clock });
  dir = archiveDir(root);
});

afterAll(async () => {
  if (redis) {
    // Test-only cleanup by pattern; the product never scans.
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const review = (...args: string[]) => runNpm(['run', 'review', '--', ...args], env, 60_000);

/** A stored ticket created `ageDays` ago and moved through `states`, with a raw mail. */
async function ticket(tag: string, from: string, states: TicketState[], options: { ageDays?: number; replyTo?: string; conversationId?: string } = {}): Promise<Ticket> {
  clock = new Date(Date.now() - (options.ageDays ?? 1) * DAY);
  const messageId = `<${tag}-${randomUUID()}@customer.example>`;
  const created = newTicket(
    {
      messageId,
      from,
      ...(options.replyTo ? { replyTo: options.replyTo } : {}),
      ...(options.conversationId ? { conversationId: options.conversationId } : {}),
      subject: `Question ${tag}`,
      question: `How does ${tag} work?`,
      actor: 'poller',
    },
    clock,
  );
  await saveRaw(redis, prefix, created.id, Buffer.from(`Message-ID: ${messageId}\r\n\r\n${tag}\r\n`));
  await store.createIfAbsent(created);
  let t = created;
  for (const to of states) {
    const patch = to === 'sending' ? { draft: `Answer ${tag}`, outbound: { messageId: `<reply-${tag}@helpdesk.test>`, autoSubmitted: true } } : undefined;
    t = await store.transition(t.id, { to, actor: 'test', ...(patch ? { patch } : {}) });
  }
  if (t.outbound) await store.linkMessageId(t.outbound.messageId, t.id);
  clock = new Date();
  return t;
}

const SENT: TicketState[] = ['processing', 'drafted', 'sending', 'sent'];

describe('npm run review -- forget', () => {
  it('lists without --yes, erases every trace of the address with it, and leaves other customers alone', async () => {
    // Alice: an answered mail and a follow-up in its conversation, one written from a +tag address in capitals,
    // one sent by a colleague with Reply-To her, and one old enough to be archived.
    const answered = await ticket('alice-1', 'alice@customer.example', SENT);
    const followUp = await ticket('alice-2', 'Alice+Billing@CUSTOMER.example', ['parked'], { conversationId: answered.id });
    const viaColleague = await ticket('alice-3', 'carol@customer.example', ['parked'], { replyTo: 'alice@customer.example' });
    const archivedAlice = await ticket('alice-old', 'alice@customer.example', SENT, { ageDays: 400 });
    // Bob: one in Redis and one archived in the same month file as Alice's.
    const bob = await ticket('bob-1', 'bob@customer.example', SENT);
    const archivedBob = await ticket('bob-old', 'bob@customer.example', ['parked', 'rejected'], { ageDays: 400 });
    expect(await runRetention({ redis, store, prefix, archiveDir: dir }, { rawMailDays: 30, ticketDays: 365 })).toMatchObject({ ticketsArchived: 2 });
    await store.linkMessageId('<forwarded-copy@customer.example>', answered.id);
    for (const [t, sender] of [[answered, 'alice@customer.example'], [bob, 'bob@customer.example']] as const) {
      await recordAutoReplyBudget(redis, prefix, { sender, recipient: sender }, t.id, { perAddress: 10, total: 100 });
    }
    // Agent runs count per From: the +tag spelling's run lands in the same window as the plain address's.
    // The domain's runs count in two windows, by whether the receiving server authenticated the sender: she has one in each.
    for (const [t, authenticated] of [[answered, true], [followUp, false], [bob, true]] as const) {
      await recordAgentRun(redis, prefix, { address: t.from, authenticated }, t.id, { perSender: 10, perDomain: 100, total: 100 });
    }
    expect(await redis.zscore(agentRunDomainKey(prefix, 'customer.example', 'authenticated'), answered.id)).not.toBeNull();
    expect(await redis.zscore(agentRunDomainKey(prefix, 'customer.example', 'unauthenticated'), followUp.id)).not.toBeNull();
    // So do the sender's (security review 14).
    const aliceRunWindows = [agentRunKey(prefix, 'alice@customer.example', 'authenticated'), agentRunKey(prefix, 'alice@customer.example', 'unauthenticated')];
    expect(await redis.exists(...aliceRunWindows)).toBe(2);
    // So do all runs (security review 12, F3).
    expect(await redis.zscore(agentRunTotalKey(prefix, 'authenticated'), answered.id)).not.toBeNull();
    expect(await redis.zscore(agentRunTotalKey(prefix, 'unauthenticated'), followUp.id)).not.toBeNull();
    const aliceTickets = [answered, followUp, viaColleague];

    const dry = await review('forget', 'Alice <ALICE@customer.example>');
    expect(dry.code, dry.stderr).toBe(3);
    expect(dry.stderr).toContain('nothing was removed: run again with --yes');
    expect(dry.stdout).toContain('would remove 3 tickets from Redis');
    expect(dry.stdout).toContain("would remove these tickets' questions from 0 knowledge gaps");
    for (const t of aliceTickets) expect(dry.stdout).toContain(t.id);
    expect(dry.stdout).toContain(archivedAlice.id);
    expect(dry.stdout).not.toContain(bob.id);
    for (const t of aliceTickets) expect(await store.get(t.id)).toBeDefined();
    expect(await findArchived(dir, archivedAlice.id)).toBeDefined();

    const run = await review('forget', 'alice@customer.example', '--yes', '--json');
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { removed: boolean; tickets: { id: string }[]; archiveLines: { tickets: string[] }[]; threadLinks: number };
    expect(report.removed).toBe(true);
    expect(report.tickets.map((t) => t.id).sort()).toEqual(aliceTickets.map((t) => t.id).sort());
    expect(report.archiveLines.flatMap((l) => l.tickets)).toEqual([archivedAlice.id]);
    expect(report.threadLinks).toBe(1);

    const k = store.keys();
    for (const t of aliceTickets) {
      expect(await redis.exists(k.ticket(t.id), rawKey(prefix, t.id))).toBe(0);
      expect(await redis.zscore(k.all, t.id)).toBeNull();
      expect(await redis.zscore(k.state(t.state), t.id)).toBeNull();
    }
    expect(await redis.exists(k.conversation(answered.id))).toBe(0);
    const links = await redis.hgetall(k.msgid);
    expect(Object.values(links).filter((id) => aliceTickets.some((t) => t.id === id))).toEqual([]);
    expect(await redis.exists(autoReplyKey(prefix, 'alice@customer.example'), autoReplyRecipientKey(prefix, 'alice@customer.example'))).toBe(0);
    expect(await redis.zscore(autoReplyTotalKey(prefix), answered.id)).toBeNull();
    expect(await redis.exists(...aliceRunWindows)).toBe(0);
    // The domain's windows and the totals are others' too: only her tickets' ids leave them.
    for (const window of ['authenticated', 'unauthenticated'] as const) {
      for (const t of [answered, followUp]) expect(await redis.zscore(agentRunTotalKey(prefix, window), t.id)).toBeNull();
      for (const t of [answered, followUp]) expect(await redis.zscore(agentRunDomainKey(prefix, 'customer.example', window), t.id)).toBeNull();
    }
    expect(await findArchived(dir, archivedAlice.id)).toBeUndefined();

    // Bob keeps everything: his ticket, raw mail, links, rate-limit window and archive line.
    expect((await store.require(bob.id)).state).toBe('sent');
    expect(await redis.exists(rawKey(prefix, bob.id))).toBe(1);
    expect(links[bob.messageId]).toBe(bob.id);
    expect(await redis.exists(autoReplyKey(prefix, 'bob@customer.example'))).toBe(1);
    expect(await redis.zscore(autoReplyTotalKey(prefix), bob.id)).not.toBeNull();
    expect(await redis.exists(agentRunKey(prefix, 'bob@customer.example', 'authenticated'))).toBe(1);
    expect(await redis.zscore(agentRunTotalKey(prefix, 'authenticated'), bob.id)).not.toBeNull();
    expect(await redis.zscore(agentRunDomainKey(prefix, 'customer.example', 'authenticated'), bob.id)).not.toBeNull();
    const shown = await review('archive', 'show', archivedBob.id);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`Ticket ${archivedBob.id}`);
    expect(shown.stdout).toContain('State:      rejected');
    // In the desk's zone, named, as `list` shows a ticket's time (walkthrough 45: `show` printed UTC ISO strings).
    expect(shown.stdout).toMatch(/^Archived \d{4}-\d{2}-\d{2} \d{2}:\d{2} \S+ in \d{4}-\d{2}\.jsonl\.gz$/m);

    // Nothing is left to find: a second listing exits 0.
    const after = await review('forget', 'alice@customer.example');
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain('would remove 0 tickets from Redis');
    const gone = await review('archive', 'show', archivedAlice.id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`no archived ticket ${archivedAlice.id}`);
  }, 180_000);

  it("erases the learned-answer candidates proposed from the customer's tickets; other candidates and accepted pairs stay", async () => {
    const learned = new LearnedAnswerStore(redis, { prefix });
    const scrub = { replaced: 0, modelPass: 'off' as const };
    const dave = await ticket('dave-1', 'dave@customer.example', SENT);
    const erin = await ticket('erin-1', 'erin@customer.example', SENT);
    const [daveCandidate] = await learned.propose(dave.id, [{ question: 'Dave の請求書の宛名を変えたい', answer: '「管理」→「契約」から変更できます。', origin: 'rules', scrub }]);
    const [erinCandidate, erinAccepted] = await learned.propose(erin.id, [
      { question: 'パスワードの条件は？', answer: '8 文字以上です。', origin: 'rules', scrub },
      { question: '二段階認証は使えますか', answer: 'はい。', origin: 'rules', scrub },
    ]);
    expect(await learned.accept(erinAccepted!.id, { by: 'operator' })).toMatchObject({ outcome: 'accepted' });

    const dry = await review('forget', 'dave@customer.example');
    expect(dry.code, dry.stderr).toBe(3);
    expect(dry.stdout).toContain('would remove 1 learned-answer candidates');
    expect(await learned.candidate(daveCandidate!.id)).toBeDefined();

    const run = await review('forget', 'dave@customer.example', '--yes');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('removed 1 learned-answer candidates');
    expect(await learned.candidate(daveCandidate!.id)).toBeUndefined();
    expect(await redis.hexists(`${prefix}:learned:proposed`, dave.id)).toBe(0);
    expect(await learned.candidate(erinCandidate!.id)).toBeDefined();
    expect(await learned.pair(erinAccepted!.id)).toBeDefined();

    // An accepted pair stays (an operator read and accepted its text), but the operator learns which, and how to
    // take it out: once the tickets are gone, nothing else leads from the customer to it.
    const erinRun = await review('forget', 'erin@customer.example', '--yes');
    expect(erinRun.code, erinRun.stderr).toBe(0);
    expect(erinRun.stdout).toContain(`kept 1 accepted learned pairs built from these tickets, with their previous answers (learned#${erinAccepted!.id}): npm run knowledge -- remove learned#${erinAccepted!.id}`);
    expect(await learned.pair(erinAccepted!.id)).toBeDefined();
  }, 120_000);

  it('also erases the sent reply awaiting its Sent copy, the rejection reason in the insights and the jobs of the customer\'s tickets; a gap stored before example tickets were recorded does not stop it', async () => {
    const gaps = new GapStore(redis, { prefix });
    const frank = await ticket('frank-1', 'frank@customer.example', SENT);
    const grace = await ticket('grace-1', 'grace@customer.example', ['parked']);
    const rejected = await store.transition(grace.id, { to: 'rejected', actor: 'operator:ops', patch: { reason: 'Phoned Grace Hopper at 090-1234-5678 instead' } });
    const day = outcomeKeys(prefix).day(outcomeDay(rejected.outcome!.at));
    const reasonField = 'rej:Phoned Grace Hopper at 090-1234-5678 instead';
    expect(await redis.hget(day, reasonField)).toBe('1');
    await saveSentRaw(redis, prefix, frank.id, Buffer.from('To: frank@customer.example\r\n\r\nDear Frank'));
    const queues = createQueues(redis, prefix);
    try {
      await queues.tickets.add('answer-ticket', { ticketId: frank.id }, { jobId: answerJobId(frank.id, 1) });
      await queues.outbound.add('send-reply', { ticketId: frank.id }, { jobId: sendJobId(frank.id, 3) });
      // A job run to the end by a real worker: BullMQ's event stream keeps its return value, which may name him.
      const connection = createWorkerConnection(server.url);
      const worker = new Worker('tickets', async () => ({ outcome: 'parked', reason: 'auto-reply limit reached: 1 automatic replies to frank@customer.example' }), {
        connection,
        prefix,
      });
      let completed = 0;
      const finished = new Promise<void>((resolve) => worker.on('completed', () => ++completed === 2 && resolve()));
      await queues.tickets.add('answer-ticket', { ticketId: frank.id }, { jobId: answerJobId(frank.id, 2) });
      await finished;
      await worker.close();
      connection.disconnect();
      const events = async () => JSON.stringify(await redis.xrange(`${prefix}:tickets:events`, '-', '+'));
      expect(await events()).toContain('frank@customer.example');
      // A gap as an older release stored it: examples, but no record of which ticket gave which.
      const gap = await gaps.record('Frank の請求書の宛名を変えたい', frank.id);
      const old: Record<string, unknown> = { ...gap! };
      delete old.exampleTickets;
      await redis.hset(`${prefix}:gaps:doc`, gap!.id, JSON.stringify(old));

      for (const address of ['frank@customer.example', 'grace@customer.example']) {
        const run = await review('forget', address, '--yes');
        expect(run.code, run.stderr).toBe(0);
      }
      expect(await redis.exists(sentRawKey(prefix, frank.id))).toBe(0);
      expect(await redis.hget(day, reasonField)).toBeNull();
      // The rejection still counts, without its words.
      expect(await redis.hget(day, 'rej:(erased on request)')).toBe('1');
      expect(await queues.tickets.getJob(answerJobId(frank.id, 1))).toBeUndefined();
      expect(await queues.outbound.getJob(sendJobId(frank.id, 3))).toBeUndefined();
      expect(await events()).not.toContain('frank@customer.example');
      expect(await events()).not.toContain(frank.id);
      expect(JSON.stringify((await gaps.list({ includeClosed: true })).open)).not.toContain('Frank');
    } finally {
      await closeAll(queues);
    }
  }, 180_000);

  it('an erasure that failed half way is completed by running it again', async () => {
    const learned = new LearnedAnswerStore(redis, { prefix });
    const gaps = new GapStore(redis, { prefix });
    const heidi = await ticket('heidi-1', 'heidi@customer.example', SENT);
    const scrub = { replaced: 0, modelPass: 'off' as const };
    const [candidate] = await learned.propose(heidi.id, [{ question: 'Heidi の契約を解約したい', answer: '「契約」から解約できます。', origin: 'rules', scrub }]);
    await gaps.record('Heidi の契約を解約したい', heidi.id);
    // Redis refuses the gap step (a key of the wrong type): the erasure stops there.
    const version = `${prefix}:gaps:version`;
    const saved = await redis.get(version);
    await redis.del(version);
    await redis.hset(version, 'x', '1');
    const failed = await review('forget', 'heidi@customer.example', '--yes');
    expect(failed.code).not.toBe(0);
    await redis.del(version);
    if (saved !== null) await redis.set(version, saved);

    const again = await review('forget', 'heidi@customer.example', '--yes');
    expect(again.code, again.stderr).toBe(0);
    expect(await store.get(heidi.id)).toBeUndefined();
    expect(await learned.candidate(candidate!.id)).toBeUndefined();
    expect(JSON.stringify((await gaps.list({ includeClosed: true })).open)).not.toContain('Heidi');
  }, 180_000);

  it('refuses something that is not an address', async () => {
    const bad = await review('forget', 'not an address', '--yes');
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('review: not a mail address: "not an address"');
  }, 60_000);
});
