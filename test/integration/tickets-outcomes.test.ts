/**
 * Outcomes recorded against a real redis-server and a real SMTP receiver: a reply the sender mails without review is
 * `auto_sent`; one approved through the review actions is `approved_as_is` or `approved_edited` with its edit ratio;
 * rejections and ignored mail keep their reason. Each ending is counted once (totals, edit-ratio histogram, per-day
 * hash) in the same write as the state change, however often the step is retried or raced.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../src/agent/prices.js';
import { latencyBucket, readInsights, replySeconds } from '../../src/tickets/insights.js';
import { OUTCOME_DAY_TTL_S, editRatio, outcomeKeys, senderDigest } from '../../src/tickets/outcome.js';
import { approveTicket, rejectTicket } from '../../src/tickets/review.js';
import { IllegalTransitionError, newTicket, type Ticket, type TicketState } from '../../src/tickets/ticket.js';
import { TicketConflictError } from '../../src/tickets/ticket-store.js';
import { draftAgentResult, useSenderHarness, type SenderFixture } from '../support/sender-harness.js';

const DAY = '2025-04-02';

const harness = useSenderHarness();

/** A store and queues under a fresh prefix, with a clock from `start` (on {@link DAY}); keys removed after the test. */
const fixture = (start = `${DAY}T09:00:00Z`): SenderFixture => harness.fixture('outc', start);

const AGENT_ANSWER = '山田様\n\nいつもお世話になっております。\n\n設定画面の「セキュリティ」から二段階認証を有効にできます。\n認証アプリでQRコードを読み取ってください。\n\nよろしくお願いいたします。';

async function received(f: SenderFixture, extra: Partial<Parameters<typeof newTicket>[0]> = {}): Promise<Ticket> {
  const ticket = newTicket({
    messageId: `<q-${randomUUID()}@customer.example>`,
    from: 'yamada@customer.example',
    fromName: '山田 太郎',
    subject: '二段階認証',
    question: '二段階認証の設定方法を教えてください。',
    actor: 'poller',
    ...extra,
  }, new Date(`${DAY}T08:00:00Z`));
  return (await f.store.createIfAbsent(ticket)).ticket;
}

/** A ticket the agent worker parked with its draft. */
async function parked(f: SenderFixture): Promise<Ticket> {
  const t = await received(f);
  await f.store.transition(t.id, { to: 'processing', actor: 'agent-worker' });
  return f.store.transition(t.id, { to: 'parked', actor: 'agent-worker', patch: { agent: draftAgentResult(AGENT_ANSWER), draft: AGENT_ANSWER, reason: 'review mode always' } });
}

const send = (f: SenderFixture, ticketId: string) => harness.send(f, ticketId);
const review = (f: SenderFixture) => harness.review(f);

async function counts(f: SenderFixture) {
  const k = outcomeKeys(f.prefix);
  const [totals, histogram, day] = await Promise.all([harness.redis.hgetall(k.totals), harness.redis.hgetall(k.editRatio), harness.redis.hgetall(k.day(DAY))]);
  return { totals, histogram, day };
}

describe('outcomes', () => {
  it('records auto_sent when the sender mails a drafted reply, counted once', async () => {
    const f = fixture();
    const t = await received(f);
    await f.store.transition(t.id, { to: 'processing', actor: 'agent-worker' });
    await f.store.transition(t.id, { to: 'drafted', actor: 'agent-worker', patch: { agent: draftAgentResult(AGENT_ANSWER), draft: AGENT_ANSWER } });
    expect((await send(f, t.id)).outcome).toBe('sent');
    // A duplicate job finds the ticket sent and changes nothing.
    expect((await send(f, t.id)).outcome).toBe('skipped');

    const sent = await f.store.require(t.id);
    expect(sent.outcome).toEqual({ kind: 'auto_sent', at: sent.updatedAt, day: DAY });
    expect(harness.smtpServer.messages).toHaveLength(1);
    const c = await counts(f);
    expect(c.totals).toEqual({ auto_sent: '1' });
    // The day also holds the insights: the agent run, the reply's receipt→reply time bucket, and that its sources
    // were recorded (they cite no learned answer).
    expect(c.day).toEqual({ auto_sent: '1', agent_runs: '1', [`lat:auto:${latencyBucket(replySeconds(t, sent.outcome!))}`]: '1', 'src:replies': '1' });
    // Only approvals are edit-ratio observations.
    expect(c.histogram).toEqual({});
    // Insights read at most a year back: a day's hash expires after OUTCOME_DAY_TTL_S instead of staying for ever.
    const ttl = await harness.redis.ttl(outcomeKeys(f.prefix).day(DAY));
    expect(ttl).toBeGreaterThan(OUTCOME_DAY_TTL_S - 60);
    expect(ttl).toBeLessThanOrEqual(OUTCOME_DAY_TTL_S);
  });

  it('records approved_as_is with ratio 0 for a draft approved unchanged', async () => {
    const f = fixture();
    const t = await parked(f);
    const approved = await approveTicket(review(f), { ticketId: t.id, operator: 'anna' });
    expect(approved.outcome).toBe('approved');
    expect((await f.store.require(t.id)).outcome).toBeUndefined();
    await send(f, t.id);

    const sent = await f.store.require(t.id);
    expect(sent.state).toBe('sent');
    // A review names its customer by a digest (trust counts one review per sender).
    expect(sent.outcome).toEqual({ kind: 'approved_as_is', at: sent.updatedAt, editRatio: 0, sender: senderDigest(sent.from), day: DAY });
    const c = await counts(f);
    expect(c.totals).toEqual({ approved_as_is: '1' });
    expect(c.histogram).toEqual({ count: '1', sum_e6: '0', 'le:0': '1' });
    expect(c.day).toEqual({
      approved_as_is: '1',
      edit_ratio_count: '1',
      edit_ratio_sum_e6: '0',
      'er:le:0': '1',
      agent_runs: '1',
      [`lat:reviewed:${latencyBucket(replySeconds(t, sent.outcome!))}`]: '1',
      'src:replies': '1',
    });
  });

  it('records approved_edited with the edit ratio of the reply bodies, greeting and closing aside', async () => {
    const f = fixture();
    const t = await parked(f);
    const reply = '山田 太郎 様\n\n設定画面の「セキュリティ」から二段階認証を有効にできます。\n認証アプリ（Google Authenticator など）でQRコードを読み取ってください。\n\n以上、よろしくお願い申し上げます。\nサポート 佐藤';
    await approveTicket(review(f), { ticketId: t.id, operator: 'anna', reply });
    await send(f, t.id);

    const sent = await f.store.require(t.id);
    const ratio = editRatio(AGENT_ANSWER, reply);
    // Only the inserted words count: a small change, well below a rewrite.
    expect(ratio).toBeGreaterThan(0.2);
    expect(ratio).toBeLessThan(0.4);
    expect(sent.approval).toEqual({ edited: true, editRatio: ratio });
    expect(sent.outcome).toEqual({ kind: 'approved_edited', at: sent.updatedAt, editRatio: ratio, sender: senderDigest(sent.from), day: DAY });
    const c = await counts(f);
    expect(c.totals).toEqual({ approved_edited: '1' });
    expect(c.histogram).toEqual({ count: '1', sum_e6: String(Math.round(ratio * 1e6)), 'le:0.4': '1' });
    expect(c.day).toMatchObject({ approved_edited: '1', edit_ratio_count: '1' });
  });

  it('measures a re-approval against the agent’s answer, not the draft an earlier round left', async () => {
    const f = fixture();
    const t = await parked(f);
    const edited = '全く別の内容の返信です。';
    await approveTicket(review(f), { ticketId: t.id, operator: 'anna', reply: edited });
    // The send failed for good before the claim; a person approves the stored (edited) draft again.
    await f.store.transition(t.id, { from: ['approved'], to: 'parked', actor: 'sender', patch: { reason: 'send job failed' } });
    await approveTicket(review(f), { ticketId: t.id, operator: 'ben' });
    await send(f, t.id);
    const sent = await f.store.require(t.id);
    expect(sent.outcome?.kind).toBe('approved_edited');
    expect(sent.outcome?.editRatio).toBe(editRatio(AGENT_ANSWER, edited));
    expect((await counts(f)).totals).toEqual({ approved_edited: '1' });
  });

  it('records rejected with its reason once, however many operators reject at the same moment', async () => {
    const f = fixture();
    const t = await parked(f);
    const results = await Promise.all(
      ['anna', 'ben', 'carl', 'dora'].map((operator) => rejectTicket({ store: f.store }, { ticketId: t.id, operator, reason: `answered by phone (${operator})` })),
    );
    const winners = results.filter((r) => r.outcome === 'rejected');
    expect(winners).toHaveLength(1);
    const rejected = await f.store.require(t.id);
    expect(rejected.outcome).toEqual({ kind: 'rejected', at: rejected.updatedAt, reason: rejected.reason, sender: senderDigest(rejected.from), day: DAY });
    expect(rejected.reason).toMatch(/^answered by phone/);
    expect((await counts(f)).totals).toEqual({ rejected: '1' });
  });

  it('records ignored with its reason, on creation and on transition; a reopened ticket loses it until it ends again', async () => {
    const f = fixture();
    const atIngest = await received(f, { state: 'ignored', reason: 'auto-reply: Auto-Submitted: auto-replied' });
    expect(atIngest.outcome).toEqual({ kind: 'ignored', at: atIngest.createdAt, reason: 'auto-reply: Auto-Submitted: auto-replied', day: DAY });
    expect((await f.store.require(atIngest.id)).outcome).toEqual(atIngest.outcome);

    const later = await received(f);
    const ignored = await f.store.transition(later.id, { to: 'ignored', actor: 'agent-worker', patch: { reason: 'list: List-Id' } });
    expect(ignored.outcome).toEqual({ kind: 'ignored', at: ignored.updatedAt, reason: 'list: List-Id', day: DAY });

    // A person reopens it: no longer ended, so no outcome; rejecting it then records (and counts) that.
    const reopened = await f.store.transition(later.id, { from: ['ignored'], to: 'parked', actor: 'operator:anna', patch: { reason: 'reopened' } });
    expect(reopened.outcome).toBeUndefined();
    expect((await f.store.require(later.id)).outcome).toBeUndefined();
    await rejectTicket({ store: f.store }, { ticketId: later.id, operator: 'anna', reason: 'spam after all' });
    expect((await f.store.require(later.id)).outcome).toMatchObject({ kind: 'rejected', reason: 'spam after all' });

    // The totals (a Prometheus counter) keep both endings; the day hash takes the reopened one back for the insights.
    const c = await counts(f);
    expect(c.totals).toEqual({ ignored: '2', rejected: '1' });
    // Ignored by the checks, reopened and rejected: the mail needed no reply (insights' answered well leaves it out).
    expect(c.day).toEqual({ ignored: '2', rejected: '1', 'rejected:no_draft': '1', 'rej:spam after all': '1', 'reopened:ignored': '1' });
  });

  it('records failed, and a refused or lost write counts nothing', async () => {
    const f = fixture();
    const t = await received(f);
    const failed = await f.store.transition(t.id, { to: 'failed', actor: 'agent-worker', patch: { reason: 'raw mail missing' } });
    expect(failed.outcome).toMatchObject({ kind: 'failed', reason: 'raw mail missing' });
    // Forbidden transitions and stale expectations leave ticket and counters as they were.
    await expect(f.store.transition(t.id, { to: 'sent', actor: 'test' })).rejects.toBeInstanceOf(IllegalTransitionError);
    await expect(f.store.transition(t.id, { from: ['parked'], to: 'rejected', actor: 'test' })).rejects.toBeInstanceOf(TicketConflictError);
    // A field update keeps the outcome.
    const updated = await f.store.update(t.id, { reason: 'raw mail missing (checked)' });
    expect(updated.outcome).toEqual(failed.outcome);
    expect((await counts(f)).totals).toEqual({ failed: '1' });
  });
});

const STARTED_ZONE = process.env.TZ;

/** Runs this process in `zone` (as `TZ` does for every role) until the test's cleanup. */
function useZone(zone: string): void {
  process.env.TZ = zone;
  harness.cleanups.push(async () => {
    if (STARTED_ZONE === undefined) delete process.env.TZ;
    else process.env.TZ = STARTED_ZONE;
  });
}

/** The non-empty day hashes around 26–27 November 2026, by day. */
async function dayHashes(f: SenderFixture): Promise<Record<string, Record<string, string>>> {
  const days = ['2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28'];
  const hashes = await Promise.all(days.map((d) => harness.redis.hgetall(outcomeKeys(f.prefix).day(d))));
  return Object.fromEntries(days.flatMap((d, i) => (Object.keys(hashes[i]!).length > 0 ? [[d, hashes[i]!]] : [])));
}

/** Leaves the stored outcome as every version before stored days wrote it: without `day` (counted on its UTC day). */
async function storedWithoutDay(f: SenderFixture, id: string): Promise<void> {
  const key = f.store.keys().ticket(id);
  const doc = JSON.parse((await harness.redis.hget(key, 'doc'))!) as Ticket;
  delete (doc.outcome as { day?: string }).day;
  await harness.redis.hset(key, 'doc', JSON.stringify(doc));
}

describe('the day of an ending a person takes back', () => {
  // 20:00 UTC on 26 November: still the 26th in UTC and New York, already the 27th (05:00) in Tokyo.
  const ENDED_AT = '2026-11-26T20:00:00Z';

  /** A ticket ended `how` at {@link ENDED_AT}, in the process's zone of the moment. */
  async function ended(f: SenderFixture, how: 'ignored at ingest' | 'ignored' | 'failed'): Promise<Ticket> {
    if (how === 'ignored at ingest') {
      const ticket = newTicket({ messageId: `<i-${randomUUID()}@list.example>`, from: 'news@list.example', subject: 'Newsletter', question: 'q', actor: 'poller', state: 'ignored', reason: 'list: List-Id' }, new Date(ENDED_AT));
      return (await f.store.createIfAbsent(ticket)).ticket;
    }
    const t = await received(f);
    return f.store.transition(t.id, { to: how, actor: 'agent-worker', patch: { reason: how === 'failed' ? 'model unreachable' : 'bulk' } });
  }

  it.each<[string, string, string, 'ignored at ingest' | 'ignored' | 'failed', TicketState, string]>([
    // [case, zone it was counted in, zone it is reopened in, how it ended, reopened to, the day it was counted on]
    ['ignored under UTC (before the upgrade), reopened under Asia/Tokyo', 'UTC', 'Asia/Tokyo', 'ignored', 'parked', '2026-11-26'],
    ['ignored at ingest under UTC, reopened under Asia/Tokyo', 'UTC', 'Asia/Tokyo', 'ignored at ingest', 'parked', '2026-11-26'],
    ['ignored under Asia/Tokyo, reopened under UTC', 'Asia/Tokyo', 'UTC', 'ignored', 'parked', '2026-11-27'],
    ['failed under America/New_York, answered again under Asia/Tokyo', 'America/New_York', 'Asia/Tokyo', 'failed', 'processing', '2026-11-26'],
    ['failed under Asia/Tokyo, reopened under America/New_York', 'Asia/Tokyo', 'America/New_York', 'failed', 'parked', '2026-11-27'],
  ])('%s: taken back on the day it was counted on', async (_case, countedIn, reopenedIn, how, to, day) => {
    const f = fixture(ENDED_AT);
    useZone(countedIn);
    const ending = await ended(f, how);
    const kind = ending.outcome!.kind;

    useZone(reopenedIn);
    await f.store.transition(ending.id, { from: [ending.state], to, actor: 'operator:kato' });
    expect(await dayHashes(f)).toEqual({ [day]: { [kind]: '1', [`reopened:${kind}`]: '1' } });
    const insights = await readInsights(harness.redis, f.prefix, { days: 3, now: new Date('2026-11-27T12:00:00Z'), prices: DEFAULT_PRICES, timeZone: reopenedIn });
    expect(insights.totals.outcomes[kind]).toBe(0);
    // The outcome names the day it was counted on, as stored.
    expect(ending.outcome?.day).toBe(day);
  });

  it('takes back an ending stored without its day (an older version counted it on its UTC day) on that UTC day', async () => {
    const f = fixture(ENDED_AT);
    useZone('UTC');
    const ending = await ended(f, 'ignored');
    await storedWithoutDay(f, ending.id);
    expect((await f.store.require(ending.id)).outcome).not.toHaveProperty('day');

    useZone('Asia/Tokyo');
    await f.store.transition(ending.id, { from: ['ignored'], to: 'parked', actor: 'operator:kato' });
    expect(await dayHashes(f)).toEqual({ '2026-11-26': { ignored: '1', 'reopened:ignored': '1' } });
  });

  it('counts the ticket\'s next ending on its own day, in the zone of the moment', async () => {
    const f = fixture(ENDED_AT);
    useZone('UTC');
    const ending = await ended(f, 'ignored');
    useZone('Asia/Tokyo');
    await f.store.transition(ending.id, { from: ['ignored'], to: 'parked', actor: 'operator:kato' });
    const rejected = await f.store.transition(ending.id, { from: ['parked'], to: 'rejected', actor: 'operator:kato', patch: { reason: 'spam after all' } });
    expect(await dayHashes(f)).toEqual({
      '2026-11-26': { ignored: '1', 'reopened:ignored': '1' },
      '2026-11-27': { rejected: '1', 'rejected:no_draft': '1', 'rej:spam after all': '1' },
    });
    expect(rejected.outcome?.day).toBe('2026-11-27');
  });
});
