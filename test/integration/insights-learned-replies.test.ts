/**
 * The insights' learned-answer column against a real redis-server and a real SMTP receiver: the write that ends a
 * ticket as a reply (the sender's `sent`, automatic or approved) gives the draft's sources to the day hash, so every
 * reply counts in `src:replies` and one citing a learned pair (`learned#<n>`) in `src:learned` too, and the week's
 * column shows a count instead of –. A ticket ends as a reply once (`sent` is final): one that failed or was ignored,
 * was reopened and then answered counts its reply once, with the sources of the draft that went out, while the page
 * subtracts the ending the reopening took back. Only reply and review endings read the stored agent result.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../src/agent/prices.js';
import type { AgentResult, AnswerSource } from '../../src/agent/types.js';
import { renderInsightsPage } from '../../src/server/insights-view.js';
import { LEARNED_REPLY_FIELD, REPLY_SOURCES_FIELD, readInsights, type Insights } from '../../src/tickets/insights.js';
import { outcomeKeys } from '../../src/tickets/outcome.js';
import { approveTicket, rejectTicket } from '../../src/tickets/review.js';
import { newTicket, type Ticket, type TicketState } from '../../src/tickets/ticket.js';
import { draftAgentResult, useSenderHarness, type SenderFixture } from '../support/sender-harness.js';

/** A Wednesday: its week starts on Monday 2025-03-31. */
const DAY = '2025-04-02';
const WEEK = '2025-03-31';

const harness = useSenderHarness();

/** A store and queues under a fresh prefix, its clock on {@link DAY}; keys removed after the test. */
const fixture = (): SenderFixture => harness.fixture('lrnd', `${DAY}T09:00:00Z`);

const ANSWER = '山田様\n\nいつもお世話になっております。\n\n返品は商品到着後 14 日以内に承ります。\n\nよろしくお願いいたします。';
const MANUAL: AnswerSource = { kind: 'manual', fileName: 'returns.md' };
const FAQ_PAIR: AnswerSource = { kind: 'qa', fileName: 'faq.csv#4' };
const learned = (n: number): AnswerSource => ({ kind: 'qa', fileName: `learned#${n}` });

const agentResult = (sources: AnswerSource[]): AgentResult => draftAgentResult(ANSWER, { sources });

async function received(f: SenderFixture): Promise<Ticket> {
  const ticket = newTicket(
    { messageId: `<q-${randomUUID()}@customer.example>`, from: 'yamada@customer.example', subject: '返品', question: '返品の期限を教えてください。', actor: 'poller' },
    new Date(`${DAY}T08:00:00Z`),
  );
  return (await f.store.createIfAbsent(ticket)).ticket;
}

/** The agent worker's run: `processing` (unless the ticket is there already), then `to` with a draft citing `sources`. */
async function drafted(f: SenderFixture, id: string, to: 'drafted' | 'parked', sources: AnswerSource[]): Promise<Ticket> {
  if ((await f.store.require(id, { agentResult: false })).state !== 'processing') await f.store.transition(id, { to: 'processing', actor: 'agent-worker' });
  return f.store.transition(id, { to, actor: 'agent-worker', patch: { agent: agentResult(sources), draft: ANSWER, ...(to === 'parked' ? { reason: 'review mode always' } : {}) } });
}

async function send(f: SenderFixture, ticketId: string) {
  const result = await harness.send(f, ticketId);
  expect(result.outcome).toBe('sent');
}

async function approveAndSend(f: SenderFixture, id: string, reply?: string): Promise<void> {
  expect((await approveTicket(harness.review(f), { ticketId: id, operator: 'anna', ...(reply === undefined ? {} : { reply }) })).outcome).toBe('approved');
  await send(f, id);
}

/** The day hash's reply-source fields only. */
async function sourceFields(f: SenderFixture): Promise<Record<string, string>> {
  const day = await harness.redis.hgetall(outcomeKeys(f.prefix).day(DAY));
  return Object.fromEntries(Object.entries(day).filter(([field]) => field === REPLY_SOURCES_FIELD || field === LEARNED_REPLY_FIELD));
}

async function insights(f: SenderFixture): Promise<Insights> {
  return readInsights(harness.redis, f.prefix, { days: 7, now: new Date(`${DAY}T12:00:00Z`), prices: DEFAULT_PRICES, timeZone: 'UTC' });
}

/** The weeks table's learned-answer cell (the last one) of the week starting `week`, as the page shows it. */
function learnedCell(report: Insights, week: string): string | undefined {
  const page = renderInsightsPage({ report, user: 'anna' }).toString();
  const card = page.slice(page.indexOf('<section class="card" id="weeks">'));
  const table = card.slice(card.indexOf('<tbody>'), card.indexOf('</tbody>'));
  const rows = [...table.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, '')));
  return rows.find((cells) => cells[0]?.startsWith(week))?.at(-1);
}

type Reply = 'auto-sent' | 'approved as drafted' | 'approved after an edit' | 'written by a person';

/** A ticket answered as `how`, its draft (if the agent wrote one) citing `sources`. */
async function answered(f: SenderFixture, how: Reply, sources: AnswerSource[]): Promise<Ticket> {
  const t = await received(f);
  if (how === 'auto-sent') {
    await drafted(f, t.id, 'drafted', sources);
    await send(f, t.id);
  } else if (how === 'written by a person') {
    // The agent wrote nothing (its answer parked before a draft): the operator writes the whole reply.
    await f.store.transition(t.id, { to: 'parked', actor: 'agent-worker', patch: { reason: 'no draft' } });
    await approveAndSend(f, t.id, '山田様\n\n返品は 14 日以内です。\n\nサポート 佐藤');
  } else {
    await drafted(f, t.id, 'parked', sources);
    await approveAndSend(f, t.id, how === 'approved after an edit' ? `${ANSWER}\n\nP.S. 送料は当社負担です。` : undefined);
  }
  return f.store.require(t.id);
}

describe('replies citing a learned answer, per day and per week', () => {
  it.each<[Reply, AnswerSource[], Record<string, string>]>([
    ['auto-sent', [MANUAL, learned(12)], { [REPLY_SOURCES_FIELD]: '1', [LEARNED_REPLY_FIELD]: '1' }],
    ['auto-sent', [MANUAL], { [REPLY_SOURCES_FIELD]: '1' }],
    // A pair from QA_DIR is no learned answer.
    ['auto-sent', [FAQ_PAIR, MANUAL], { [REPLY_SOURCES_FIELD]: '1' }],
    ['auto-sent', [], { [REPLY_SOURCES_FIELD]: '1' }],
    ['approved as drafted', [learned(3)], { [REPLY_SOURCES_FIELD]: '1', [LEARNED_REPLY_FIELD]: '1' }],
    ['approved after an edit', [learned(3), FAQ_PAIR], { [REPLY_SOURCES_FIELD]: '1', [LEARNED_REPLY_FIELD]: '1' }],
    ['approved after an edit', [MANUAL], { [REPLY_SOURCES_FIELD]: '1' }],
    ['written by a person', [], { [REPLY_SOURCES_FIELD]: '1' }],
  ])('%s, citing %j: %j', async (how, sources, fields) => {
    const f = fixture();
    const t = await answered(f, how, sources);
    expect(t.state).toBe('sent');
    expect(await sourceFields(f)).toEqual(fields);
    const report = await insights(f);
    const week = report.weekly.find((w) => w.week === WEEK)!;
    const learnedReplies = fields[LEARNED_REPLY_FIELD] === undefined ? 0 : 1;
    expect(week).toMatchObject({ answered: 1, sourcesRecorded: 1, learnedReplies });
    // Every reply of the week had its sources recorded: the page shows the count, not – or "n of m recorded".
    expect(learnedCell(report, WEEK)).toBe(String(learnedReplies));
  });

  it('adds up a week of replies: those citing a learned answer among all replies sent', async () => {
    const f = fixture();
    await answered(f, 'auto-sent', [MANUAL, learned(1)]);
    await answered(f, 'auto-sent', [MANUAL]);
    await answered(f, 'approved as drafted', [learned(2)]);
    await answered(f, 'approved after an edit', [FAQ_PAIR]);
    // Endings that send nothing record no sources.
    const rejected = await drafted(f, (await received(f)).id, 'parked', [learned(4)]);
    await rejectTicket({ store: f.store }, { ticketId: rejected.id, operator: 'anna', reason: 'wrong product' });
    await f.store.transition((await received(f)).id, { to: 'ignored', actor: 'agent-worker', patch: { reason: 'list: List-Id' } });

    expect(await sourceFields(f)).toEqual({ [REPLY_SOURCES_FIELD]: '4', [LEARNED_REPLY_FIELD]: '2' });
    const report = await insights(f);
    expect(report.weekly.find((w) => w.week === WEEK)).toMatchObject({ answered: 4, sourcesRecorded: 4, learnedReplies: 2 });
    expect(report.daily.find((d) => d.day === DAY)).toMatchObject({ answered: 4, sourcesRecorded: 4, learnedReplies: 2 });
    expect(learnedCell(report, WEEK)).toBe('2');
  });
});

describe('a ticket reopened and answered again', () => {
  it.each<[string, 'failed' | 'ignored', TicketState]>([
    ['failed, retried by a person (failed → processing), then sent automatically', 'failed', 'processing'],
    ['failed, handed to a person (failed → parked), answered again by the agent and approved', 'failed', 'parked'],
    ['ignored, reopened by a person (ignored → parked), answered again by the agent and approved', 'ignored', 'parked'],
  ])('%s: one reply, counted once, beside the ending the page takes back', async (_case, ending, reopenedTo) => {
    const f = fixture();
    const t = await received(f);
    await f.store.transition(t.id, { to: ending, actor: 'agent-worker', patch: { reason: ending === 'failed' ? 'model unreachable' : 'bulk' } });
    await f.store.transition(t.id, { from: [ending], to: reopenedTo, actor: 'operator:kato' });
    if (reopenedTo === 'processing') {
      await drafted(f, t.id, 'drafted', [learned(5), MANUAL]);
      await send(f, t.id);
    } else {
      await f.store.transition(t.id, { from: ['parked'], to: 'processing', actor: 'operator:kato' });
      await drafted(f, t.id, 'parked', [learned(5), MANUAL]);
      await approveAndSend(f, t.id);
    }

    const day = await harness.redis.hgetall(outcomeKeys(f.prefix).day(DAY));
    // The first ending stays counted and is taken back; the reply is counted, with its sources, once.
    expect(day).toMatchObject({ [ending]: '1', [`reopened:${ending}`]: '1', [REPLY_SOURCES_FIELD]: '1', [LEARNED_REPLY_FIELD]: '1' });
    const report = await insights(f);
    expect(report.totals.outcomes[ending]).toBe(0);
    expect(report.totals.ended).toBe(1);
    expect(report.weekly.find((w) => w.week === WEEK)).toMatchObject({ answered: 1, sourcesRecorded: 1, learnedReplies: 1 });
    expect(learnedCell(report, WEEK)).toBe('1');
  });

  it('counts the sources of the draft that went out, not those of an earlier run', async () => {
    const f = fixture();
    const t = await drafted(f, (await received(f)).id, 'parked', [learned(8)]);
    // A person has the agent answer again; its new draft cites only the manual.
    await f.store.transition(t.id, { from: ['parked'], to: 'processing', actor: 'operator:kato' });
    await drafted(f, t.id, 'parked', [MANUAL]);
    await approveAndSend(f, t.id);
    expect(await sourceFields(f)).toEqual({ [REPLY_SOURCES_FIELD]: '1' });
  });
});

describe('a ticket stored before the agent result had its own field', () => {
  it('counts the sources of the result its document holds', async () => {
    const f = fixture();
    const t = await drafted(f, (await received(f)).id, 'drafted', [learned(9)]);
    const claimed = await f.store.transition(t.id, { from: ['drafted'], to: 'sending', actor: 'sender', patch: { outbound: { messageId: `<r-${randomUUID()}@helpdesk.test>`, autoSubmitted: true } } });
    // The earlier layout: the whole ticket, agent result included, in `doc`.
    const key = f.store.keys().ticket(t.id);
    const agent = JSON.parse((await harness.redis.hget(key, 'agent'))!) as AgentResult;
    await harness.redis.multi().hset(key, 'doc', JSON.stringify({ ...claimed, agent })).hdel(key, 'agent').exec();
    await f.store.transition(t.id, { from: ['sending'], to: 'sent', actor: 'sender' });
    expect(await sourceFields(f)).toEqual({ [REPLY_SOURCES_FIELD]: '1', [LEARNED_REPLY_FIELD]: '1' });
  });
});

describe('what each write reads', () => {
  let monitor: Redis | undefined;
  afterEach(() => {
    monitor?.disconnect();
    monitor = undefined;
  });

  it('reads the stored agent result once for a write that ends the ticket as a reply or a review, never for another', async () => {
    const f = fixture();
    monitor = await new Redis(harness.redisUrl).monitor();
    const seen: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua') seen.push(args);
    });
    /** Reads of ticket `id`'s agent result by the client (not by a script) while `write` runs. */
    const agentReads = async (id: string, write: () => Promise<unknown>): Promise<number> => {
      const key = f.store.keys().ticket(id);
      const marker = `mark-${randomUUID()}`;
      await write();
      await harness.redis.echo(marker);
      await expect.poll(() => seen.some((args) => args[0] === 'echo' && args[1] === marker)).toBe(true);
      const reads = seen.filter((args) => ['hget', 'hmget'].includes(args[0]!.toLowerCase()) && args[1] === key && args.slice(2).includes('agent')).length;
      seen.length = 0;
      return reads;
    };
    const outbound = (auto: boolean) => ({ messageId: `<r-${randomUUID()}@helpdesk.test>`, autoSubmitted: auto });

    const auto = await received(f);
    let current = await f.store.transition(auto.id, { to: 'processing', actor: 'agent-worker', current: auto });
    const steps: Array<[string, string, () => Promise<Ticket>, number]> = [
      ['drafted, storing the agent result', auto.id, () => f.store.transition(auto.id, { to: 'drafted', actor: 'agent-worker', patch: { agent: agentResult([learned(1)]), draft: ANSWER }, current }), 0],
      ['a field update', auto.id, () => f.store.update(auto.id, { reason: 'checked' }), 0],
      ['the sender claims the draft', auto.id, () => f.store.transition(auto.id, { from: ['drafted'], to: 'sending', actor: 'sender', patch: { outbound: outbound(true) } }), 0],
      ['the automatic reply is sent', auto.id, () => f.store.transition(auto.id, { from: ['sending'], to: 'sent', actor: 'sender', current }), 1],
    ];
    const reviewed = await drafted(f, (await received(f)).id, 'parked', [learned(2)]);
    steps.push(
      ['a person approves', reviewed.id, () => f.store.transition(reviewed.id, { from: ['parked'], to: 'approved', actor: 'operator:anna', patch: { approval: { edited: false, editRatio: 0 } } }), 0],
      ['the sender claims the approved reply', reviewed.id, () => f.store.transition(reviewed.id, { from: ['approved'], to: 'sending', actor: 'sender', patch: { outbound: outbound(false) } }), 0],
      // The read that finds the sources to trust gives the insights theirs too.
      ['the approved reply is sent', reviewed.id, () => f.store.transition(reviewed.id, { from: ['sending'], to: 'sent', actor: 'sender', current }), 1],
    );
    const rejected = await drafted(f, (await received(f)).id, 'parked', [learned(3)]);
    steps.push(['a person rejects', rejected.id, () => f.store.transition(rejected.id, { from: ['parked'], to: 'rejected', actor: 'operator:anna' }), 1]);
    const failed = await received(f);
    steps.push(
      ['the agent run fails', failed.id, () => f.store.transition(failed.id, { to: 'failed', actor: 'agent-worker', patch: { reason: 'model unreachable' } }), 0],
      ['a person reopens it', failed.id, () => f.store.transition(failed.id, { from: ['failed'], to: 'parked', actor: 'operator:kato' }), 0],
    );

    const reads: Array<[string, number]> = [];
    for (const [step, id, write] of steps) {
      reads.push([step, await agentReads(id, async () => (current = await write()))]);
    }
    expect(reads).toEqual(steps.map(([step, , , n]) => [step, n]));
    expect(await sourceFields(f)).toEqual({ [REPLY_SOURCES_FIELD]: '2', [LEARNED_REPLY_FIELD]: '2' });
  });
});
