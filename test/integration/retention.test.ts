/**
 * Retention against a real redis-server and a temporary DATA_DIR: old final tickets leave Redis for the archive with
 * every key they used, the raw mail of final tickets goes after its own period, nothing else is touched, a second
 * run changes nothing, and an append a crash interrupted is completed exactly once.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { closeAll as closeQueues, createQueues } from '../../src/queues/registry.js';
import { startMaintenanceRole } from '../../src/runtime/maintenance.js';
import { createSearchBackends } from '../../src/search/factory.js';
import { createMetricsRegistry } from '../../src/server/metrics.js';
import { loadRaw, rawKey, saveRaw } from '../../src/mail/raw-store.js';
import { GapStore } from '../../src/knowledge/gaps.js';
import { archiveDir, findArchived, listArchiveFiles, readArchive, writeJournal, type ArchiveRecord } from '../../src/tickets/archive.js';
import { ERASED_REASON_FIELD, RetentionBusyError, forgetCustomer, retentionLockKey, runRetention, type RetentionDeps } from '../../src/tickets/retention.js';
import { outcomeKeys } from '../../src/tickets/outcome.js';
import { newTicket, type Ticket, type TicketState } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { REPO_ROOT, waitFor } from '../support/pipeline.js';

let server: RedisServer;
let redis: Redis;
let root: string;
const prefixes: string[] = [];

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  root = await mkdtemp(path.join(tmpdir(), 'retention-'));
});

afterEach(async () => {
  // Test-only cleanup by pattern; the product never scans.
  for (const prefix of prefixes.splice(0)) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const NOW = new Date('2026-06-01T04:15:00Z');
const DAY = 24 * 60 * 60 * 1000;
const POLICY = { rawMailDays: 30, ticketDays: 365 };

/** A store with a fresh prefix and DATA_DIR; tickets are made as of `NOW` (or `now`). */
async function fresh(now = NOW) {
  const prefix = `ret-${randomUUID()}`;
  prefixes.push(prefix);
  let at = now;
  const dataDir = await mkdtemp(path.join(root, 'data-'));
  const store = new TicketStore(redis, { prefix, now: () => at });
  const deps: RetentionDeps = { redis, store, prefix, archiveDir: archiveDir(dataDir), now: () => now };
  /** A ticket created `ageDays` ago, moved through `states` at that time, with a raw mail. */
  const ticket = async (n: string, ageDays: number, states: TicketState[], extra: Partial<Parameters<typeof newTicket>[0]> = {}): Promise<Ticket> => {
    at = new Date(now.getTime() - ageDays * DAY);
    const created = newTicket({ messageId: `<${n}@customer.example>`, from: `${n}@customer.example`, subject: `Q ${n}`, question: `How ${n}?`, actor: 'poller', ...extra }, at);
    await saveRaw(redis, prefix, created.id, Buffer.from(`Message-ID: <${n}@customer.example>\r\n\r\nraw ${n}\r\n`));
    await store.createIfAbsent(created);
    let t = created;
    for (const to of states) t = await store.transition(t.id, { to, actor: 'test', ...(to === 'sending' ? { patch: { draft: `Answer ${n}`, outbound: { messageId: `<reply-${n}@helpdesk.test>`, autoSubmitted: true } } } : {}) });
    if (t.outbound) await store.linkMessageId(t.outbound.messageId, t.id);
    at = now;
    return t;
  };
  return { prefix, store, deps, ticket, dataDir };
}

const SENT: TicketState[] = ['processing', 'drafted', 'sending', 'sent'];
const REJECTED: TicketState[] = ['parked', 'rejected'];

async function archivedRecords(dir: string): Promise<ArchiveRecord[]> {
  const records: ArchiveRecord[] = [];
  for (const file of await listArchiveFiles(dir)) await readArchive(path.join(dir, file), (r) => void records.push(r));
  return records;
}

describe('runRetention', () => {
  it('archives final tickets past TICKET_RETENTION_DAYS and removes every key they used; drops raw mail past RAW_MAIL_RETENTION_DAYS', async () => {
    const { prefix, store, deps, ticket } = await fresh();
    const oldSent = await ticket('old-sent', 400, SENT);
    const oldRejected = await ticket('old-rejected', 366, REJECTED);
    // A follow-up in the same conversation, itself recent: it stays, and so does its conversation.
    const followUp = await ticket('follow-up', 2, SENT, { conversationId: oldSent.id, references: [oldSent.messageId] });
    const monthOld = await ticket('month-old', 45, SENT);
    const recent = await ticket('recent', 5, SENT);
    const oldParked = await ticket('old-parked', 400, ['parked']);
    const oldFailed = await ticket('old-failed', 400, ['failed']);

    const result = await runRetention(deps, POLICY);
    expect(result).toMatchObject({ ticketsArchived: 2, rawMailsDropped: 1, recovered: 0 });
    expect(result.archiveFiles).toEqual([`${oldSent.createdAt.slice(0, 7)}.jsonl.gz`, `${oldRejected.createdAt.slice(0, 7)}.jsonl.gz`].sort());

    // Gone from Redis: the ticket, its indexes, its Message-ID links (inbound and our reply) and its raw mail.
    const k = store.keys();
    for (const t of [oldSent, oldRejected]) {
      expect(await redis.exists(k.ticket(t.id), rawKey(prefix, t.id))).toBe(0);
      expect(await redis.zscore(k.all, t.id)).toBeNull();
      expect(await redis.zscore(k.state(t.state), t.id)).toBeNull();
    }
    expect(await redis.hmget(k.msgid, oldSent.messageId, '<reply-old-sent@helpdesk.test>', oldRejected.messageId)).toEqual([null, null, null]);
    expect(await redis.zrange(k.conversation(oldSent.id), 0, -1)).toEqual([followUp.id]);
    expect(await store.countByState()).toMatchObject({ sent: 3, rejected: 0, parked: 1, failed: 1 });

    // In the archive, whole (agent result, draft, history), under the month of creation.
    const archived = await findArchived(deps.archiveDir, oldSent.id);
    expect(archived?.ticket).toEqual(oldSent);
    expect(archived?.archivedAt).toBe(NOW.toISOString());
    expect((await findArchived(deps.archiveDir, oldRejected.id))?.ticket.state).toBe('rejected');

    // Raw mail: gone from the month-old final ticket only; kept on recent and non-final ones.
    expect(await loadRaw(redis, prefix, monthOld.id)).toBeUndefined();
    expect((await store.require(monthOld.id)).draft).toBe('Answer month-old');
    for (const t of [recent, followUp, oldParked, oldFailed]) expect(await loadRaw(redis, prefix, t.id)).toBeDefined();

    // A second run finds nothing to do and writes nothing twice.
    const again = await runRetention(deps, POLICY);
    expect(again).toMatchObject({ ticketsArchived: 0, rawMailsDropped: 0, recovered: 0, archiveFiles: [] });
    expect((await archivedRecords(deps.archiveDir)).map((r) => r.ticket.id).sort()).toEqual([oldSent.id, oldRejected.id].sort());
  }, 30_000);

  it('counts age from the last change: a ticket answered yesterday after a long wait keeps its raw mail and stays in Redis', async () => {
    const { prefix, store, deps, ticket } = await fresh();
    const waited = await ticket('waited', 400, ['parked']);
    // Answered now (the store's clock is back at NOW).
    await store.transition(waited.id, { to: 'rejected', actor: 'test' });
    const result = await runRetention(deps, POLICY);
    expect(result).toMatchObject({ ticketsArchived: 0, rawMailsDropped: 0 });
    expect(await loadRaw(redis, prefix, waited.id)).toBeDefined();
  }, 30_000);

  it('completes an append a crash cut short: one copy in the archive, the tickets gone from Redis', async () => {
    const { prefix, store, deps, ticket } = await fresh();
    const a = await ticket('crash-a', 400, SENT);
    const b = await ticket('crash-b', 400, REJECTED);
    // The first run's state at the crash: the journal is on disk, half of the gzip member reached the archive, and
    // the tickets are still in Redis.
    const file = `${a.createdAt.slice(0, 7)}.jsonl.gz`;
    const records = [a, b].map((t) => ({ archivedAt: NOW.toISOString(), ticket: t }));
    const journal = await writeJournal(deps.archiveDir, file, records);
    await appendFile(path.join(deps.archiveDir, file), journal.member.subarray(0, Math.floor(journal.member.length / 2)));

    const result = await runRetention(deps, POLICY);
    expect(result.recovered).toBe(2);
    expect((await archivedRecords(deps.archiveDir)).map((r) => r.ticket.id).sort()).toEqual([a.id, b.id].sort());
    expect(await store.get(a.id)).toBeUndefined();
    expect(await store.get(b.id)).toBeUndefined();
    expect(await redis.exists(rawKey(prefix, a.id))).toBe(0);
    // Nothing left for the next run; the archive is whole (a torn member would have made it unreadable).
    expect(await runRetention(deps, POLICY)).toMatchObject({ ticketsArchived: 0, recovered: 0 });
    expect((await stat(path.join(deps.archiveDir, file))).size).toBe(journal.member.length);
  }, 30_000);

  it('leaves no archive copy of a ticket a person reopened while it was being archived, and does not count it', async () => {
    const { prefix, deps, ticket } = await fresh();
    const ignored = await ticket('reopened', 400, ['ignored']);
    const kept = await ticket('archived', 400, SENT);
    // An operator reopens the ignored mail just before the job removes it from Redis.
    class ReopenedOnRemove extends TicketStore {
      override async remove(t: Parameters<TicketStore['remove']>[0], raw: string) {
        if (t.id === ignored.id && t.state === 'ignored') await this.transition(t.id, { from: ['ignored'], to: 'parked', actor: 'operator:kato', note: 'reopened' });
        return super.remove(t, raw);
      }
    }
    const store = new ReopenedOnRemove(redis, { prefix, now: () => NOW });
    const result = await runRetention({ ...deps, store }, POLICY);
    expect(result.ticketsArchived).toBe(1);
    expect((await store.require(ignored.id)).state).toBe('parked');
    expect((await archivedRecords(deps.archiveDir)).map((r) => r.ticket.id)).toEqual([kept.id]);
  }, 30_000);

  // The journal of a failed append (disk full, a crash) names the tickets; by the next run an operator may have
  // reopened and decided one (reject with a reason, or answer and send it). That ticket is not the archived copy:
  // deleting it would lose the decision and keep only the stale copy.
  it('finishing an interrupted append keeps a ticket that changed since, and drops its stale archived copy', async () => {
    const { store, deps, ticket } = await fresh();
    const ignored = await ticket('changed', 400, ['ignored']);
    const untouched = await ticket('untouched', 400, SENT);
    const file = `${ignored.createdAt.slice(0, 7)}.jsonl.gz`;
    await writeJournal(deps.archiveDir, file, [ignored, untouched].map((t) => ({ archivedAt: NOW.toISOString(), ticket: t })));
    // Meanwhile: reopened, and rejected with a reason; then it settled again (and is still old enough to archive).
    await store.transition(ignored.id, { from: ['ignored'], to: 'parked', actor: 'operator:kato', note: 'reopened' });
    await store.transition(ignored.id, { from: ['parked'], to: 'rejected', actor: 'operator:kato', note: 'answered by phone', patch: { reason: 'answered by phone' } });

    const result = await runRetention(deps, POLICY);
    expect(result.recovered).toBe(1);
    const kept = await store.require(ignored.id);
    expect(kept).toMatchObject({ state: 'rejected', reason: 'answered by phone' });
    const archived = await archivedRecords(deps.archiveDir);
    expect(archived.map((r) => r.ticket.id)).toEqual([untouched.id]);
  }, 30_000);

  it('a ticket changed between its archiving and its removal (a bounce marked it) stays in Redis, not archived stale', async () => {
    const { prefix, deps, ticket } = await fresh();
    const sent = await ticket('bounced-late', 400, SENT);
    class BouncedOnRemove extends TicketStore {
      override async remove(t: Parameters<TicketStore['remove']>[0], raw: string, options?: Parameters<TicketStore['remove']>[2]) {
        if (t.id === sent.id) await this.recordReplyBounce('<reply-bounced-late@helpdesk.test>', { at: NOW.toISOString(), reportTicketId: 'f'.repeat(64), status: '5.1.1' });
        return super.remove(t, raw, options);
      }
    }
    const store = new BouncedOnRemove(redis, { prefix, now: () => NOW });
    const result = await runRetention({ ...deps, store }, POLICY);
    expect(result.ticketsArchived).toBe(0);
    expect((await store.require(sent.id)).replyBounce?.status).toBe('5.1.1');
    expect(await archivedRecords(deps.archiveDir)).toEqual([]);
  }, 30_000);

  // A knowledge gap quotes the questions of the tickets it counts: a ticket archived after TICKET_RETENTION_DAYS left
  // its customer's words in Redis for good.
  it("takes the archived tickets' questions out of the knowledge gaps; a recent ticket's example stays", async () => {
    const { prefix, deps, ticket } = await fresh();
    const old = await ticket('gap-old', 400, ['parked', 'rejected']);
    const recent = await ticket('gap-recent', 3, ['parked', 'rejected']);
    const gaps = new GapStore(redis, { prefix });
    await gaps.record('請求書の宛名を変更したい（山田商事）', old.id);
    await gaps.record('請求書の宛名を変更したい', recent.id);
    const before = JSON.stringify(await gaps.list({ includeClosed: true }));
    expect(before).toContain('山田商事');

    const result = await runRetention(deps, POLICY);
    expect(result.ticketsArchived).toBe(1);
    const after = JSON.stringify(await gaps.list({ includeClosed: true }));
    expect(after).not.toContain('山田商事');
    expect(after).not.toContain(old.id);
    expect(after).toContain(recent.id);
  }, 30_000);

  it('removes the temporary files a crash left in the archive directory (they hold whole tickets)', async () => {
    const { deps, ticket } = await fresh();
    await ticket('kept-sent', 10, SENT);
    await mkdir(deps.archiveDir, { recursive: true });
    const leftovers = ['.2025-01.jsonl.gz.0a1b2c3d4e5f.tmp', '.pending.json.0a1b2c3d4e5f.tmp'];
    for (const name of leftovers) await writeFile(path.join(deps.archiveDir, name), '{"ticket":{"from":"alice@customer.example"}}');
    await writeFile(path.join(deps.archiveDir, 'notes.txt'), 'an admin\'s own file');
    await runRetention(deps, POLICY);
    expect((await readdir(deps.archiveDir)).sort()).toEqual(['notes.txt']);
  }, 30_000);

  it('does not run while the lock is held (an erasure in progress)', async () => {
    const { prefix, deps, ticket } = await fresh();
    const old = await ticket('locked', 400, SENT);
    await redis.set(retentionLockKey(prefix), 'someone-else', 'PX', 60_000);
    await expect(runRetention(deps, POLICY)).rejects.toBeInstanceOf(RetentionBusyError);
    expect(await deps.store.get(old.id)).toBeDefined();
  }, 30_000);
});

describe('the retention job of the maintenance role', () => {
  it('is scheduled from RETENTION_CRON, runs on the maintenance queue and shows in /metrics', async () => {
    const { prefix, store, deps, ticket, dataDir } = await fresh(new Date());
    const old = await ticket('role-old', 400, SENT);
    const monthOld = await ticket('role-month', 40, SENT);
    const config = parseConfig({
      REDIS_URL: server.url,
      QUEUE_PREFIX: prefix,
      DATA_DIR: dataDir,
      MANUALS_DIR: path.join(REPO_ROOT, 'data/manuals'),
      QA_DIR: path.join(REPO_ROOT, 'data/qa'),
      EMBEDDINGS_PROVIDER: 'local',
      EMBEDDING_DIMENSIONS: '256',
      LOG_LEVEL: 'silent',
      REINDEX_MANUAL_CRON: '',
      REINDEX_QA_CRON: '',
      RETENTION_CRON: '15 4 * * *',
    });
    const search = createSearchBackends(config);
    const role = await startMaintenanceRole(config, { search, buildEmptyIndexes: false });
    const queues = createQueues(redis, prefix);
    try {
      expect(role.retentionSchedule?.pattern).toBe('15 4 * * *');
      expect((await queues.maintenance.getJobScheduler('retention'))?.pattern).toBe('15 4 * * *');

      const job = await queues.maintenance.add('retention', { trigger: 'schedule' });
      const state = await waitFor(async () => {
        const s = await queues.maintenance.getJobState(job.id!);
        return s === 'completed' || s === 'failed' ? s : undefined;
      }, 'the retention job', 30_000);
      const done = await queues.maintenance.getJob(job.id!);
      expect(state, done?.failedReason).toBe('completed');
      expect(done?.returnvalue).toMatchObject({ ticketsArchived: 1, rawMailsDropped: 1 });
      expect(await store.get(old.id)).toBeUndefined();
      expect((await findArchived(deps.archiveDir, old.id))?.ticket.id).toBe(old.id);
      expect(await loadRaw(redis, prefix, monthOld.id)).toBeUndefined();

      const metrics = await createMetricsRegistry({ store, queues, redis, prefix }).metrics();
      expect(metrics).toMatch(/^helpdesk_tickets_archived_total 1$/m);
      expect(metrics).toMatch(/^helpdesk_raw_mails_dropped_total 1$/m);
      expect(metrics).toMatch(/^helpdesk_tickets_stored 1$/m);
      expect(Number(/^helpdesk_redis_used_memory_bytes (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    } finally {
      await role.stop();
      await queues.maintenance.obliterate({ force: true });
      await closeQueues(queues);
      await Promise.all([search.manual.close?.(), search.qa.close?.()]);
    }
  }, 60_000);
});

describe('erasure of a rejection reason counted in another zone', () => {
  // 20:00 UTC on 26 November: still the 26th in UTC and New York, already the 27th (05:00) in Tokyo.
  const REJECTED_AT = Date.parse('2026-11-26T20:00:00Z');
  const REASON = 'Phoned Ada Lovelace at 090-1234-5678 instead';
  const STARTED_ZONE = process.env.TZ;
  afterEach(() => {
    if (STARTED_ZONE === undefined) delete process.env.TZ;
    else process.env.TZ = STARTED_ZONE;
  });

  /** The non-empty day hashes around 26–27 November 2026, by day. */
  async function dayHashes(prefix: string): Promise<Record<string, Record<string, string>>> {
    const days = ['2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28'];
    const hashes = await Promise.all(days.map((d) => redis.hgetall(outcomeKeys(prefix).day(d))));
    return Object.fromEntries(days.flatMap((d, i) => (Object.keys(hashes[i]!).length > 0 ? [[d, hashes[i]!]] : [])));
  }

  it.each([
    // [case, zone the rejection was counted in, zone of the erasure, archived first, stored as before days were, day counted on]
    ['counted under UTC (before the upgrade), erased under Asia/Tokyo', 'UTC', 'Asia/Tokyo', false, false, '2026-11-26'],
    ['counted under Asia/Tokyo, erased under UTC', 'Asia/Tokyo', 'UTC', false, false, '2026-11-27'],
    ['counted under America/New_York, erased under Asia/Tokyo', 'America/New_York', 'Asia/Tokyo', false, false, '2026-11-26'],
    ['counted under Asia/Tokyo and archived since, erased under America/New_York', 'Asia/Tokyo', 'America/New_York', true, false, '2026-11-27'],
    ['stored without its day by an older version (counted on its UTC day), erased under Asia/Tokyo', 'UTC', 'Asia/Tokyo', false, true, '2026-11-26'],
  ])('%s: the words leave the day they were counted on', async (_case, countedIn, erasedIn, archived, withoutDay, day) => {
    const ageDays = archived ? 370 : 0;
    process.env.TZ = countedIn;
    const { prefix, deps, ticket } = await fresh(new Date(REJECTED_AT + ageDays * DAY));
    const rejected = await ticket('ada', ageDays, REJECTED, { reason: REASON });
    expect(rejected.outcome).toMatchObject({ kind: 'rejected', reason: REASON });
    expect(await dayHashes(prefix)).toEqual({ [day]: { rejected: '1', [`rej:${REASON}`]: '1' } });
    if (withoutDay) {
      // As every version before stored days wrote it.
      const key = deps.store.keys().ticket(rejected.id);
      const doc = JSON.parse((await redis.hget(key, 'doc'))!) as Ticket;
      delete (doc.outcome as { day?: string }).day;
      await redis.hset(key, 'doc', JSON.stringify(doc));
    }
    if (archived) expect((await runRetention(deps, POLICY)).ticketsArchived).toBe(1);

    process.env.TZ = erasedIn;
    await forgetCustomer(deps, 'ada@customer.example', { confirm: true });
    // The rejection still counts on its day, without the operator's words; no other day is touched.
    expect(await dayHashes(prefix)).toEqual({ [day]: { rejected: '1', [ERASED_REASON_FIELD]: '1' } });
  }, 30_000);
});
