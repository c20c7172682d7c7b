/**
 * `npm run review -- approve <id>` without a reply file says which draft it approves (security review 9, finding 2),
 * as the API and the review page must: `show` prints the ticket's history length, `approve --seen N` approves the
 * draft shown then and is refused once a rerun parked another, and an approval that names no draft at all is refused.
 * The command runs as a child process against a real redis-server.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { connectProducer } from '../../src/queues/connection.js';
import { closeAll, createQueues } from '../../src/queues/registry.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { newTicket, ticketIdFor, type Ticket } from '../../src/tickets/ticket.js';
import { removePrefix, runNpm } from '../support/pipeline.js';

const DRAFT = 'Open Settings, then Password.';
const NEW_DRAFT = 'A new draft the operator never saw.';

let redisServer: RedisServer;
let redis: Redis;
let dir: string;
const prefixes: string[] = [];

beforeAll(async () => {
  redisServer = await startRedis();
  redis = await connectProducer(redisServer.url);
  dir = await mkdtemp(path.join(tmpdir(), 'review-cli-seen-'));
});
afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await removePrefix(redisServer.url, prefix);
});
afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Desk {
  store: TicketStore;
  review(...args: string[]): ReturnType<typeof runNpm>;
  sendJobs(): Promise<number>;
}

function desk(): Desk {
  const prefix = `seen${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  prefixes.push(prefix);
  const env = { HELPDESK_ENV_FILE: 'none', LOG_LEVEL: 'silent', REDIS_URL: redisServer.url, QUEUE_PREFIX: prefix };
  return {
    store: new TicketStore(redis, { prefix }),
    review: (...args) => runNpm(['run', 'review', '--', ...args], env, 60_000),
    async sendJobs() {
      const queues = createQueues(redis, prefix);
      try {
        return (await queues.outbound.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).length;
      } finally {
        await closeAll(queues);
      }
    },
  };
}

async function parkedTicket(store: TicketStore): Promise<Ticket> {
  const messageId = `<cli-seen-${randomUUID()}@customer.example>`;
  const id = ticketIdFor(messageId);
  await store.createIfAbsent(newTicket({ messageId, from: 'hanako@customer.example', subject: 'Password', question: 'How do I reset my password?', actor: 'poller' }));
  await store.transition(id, { to: 'processing', actor: 'agent-worker' });
  return store.transition(id, { to: 'parked', actor: 'agent-worker', patch: { reason: 'review mode always', draft: DRAFT } });
}

/** What a rerun does after the operator read the ticket: the agent parks another draft. */
async function rerunParksNewDraft(store: TicketStore, ticketId: string): Promise<void> {
  await store.transition(ticketId, { from: ['parked'], to: 'processing', actor: 'operator:admin' });
  await store.transition(ticketId, { from: ['processing'], to: 'parked', actor: 'agent-worker', patch: { draft: NEW_DRAFT } });
}

describe('npm run review -- approve says which draft it approves', () => {
  it('show prints the --seen that approves the draft it shows, and approve --seen N approves it', async () => {
    const d = desk();
    const t = await parkedTicket(d.store);
    const show = await d.review('show', t.id);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`To send this draft as it is: npm run review -- approve ${t.id} --seen ${t.history.length}`);

    const approve = await d.review('approve', t.id, '--seen', String(t.history.length), '--by', 'suzuki');
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toContain(`approved ${t.id}`);
    expect(await d.store.require(t.id)).toMatchObject({ state: 'approved', draft: DRAFT });
    expect(await d.sendJobs()).toBe(1);
  }, 90_000);

  it('refuses an approval that names no draft, and one of a draft a rerun replaced', async () => {
    const d = desk();
    const t = await parkedTicket(d.store);
    const seen = String(t.history.length);
    await rerunParksNewDraft(d.store, t.id);

    const blind = await d.review('approve', t.id);
    // Neither --seen nor --reply-file: a usage error, as README's Commands section has it.
    expect(blind.code).toBe(2);
    expect(blind.stderr.trim()).toBe(
      `review: cannot approve ticket ${t.id}: say which draft you approve: read it with \`npm run review -- show ${t.id}\` and pass the --seen N it prints, or send your own text with --reply-file F`,
    );
    const stale = await d.review('approve', t.id, '--seen', seen);
    expect(stale.code).toBe(1);
    // A terminal's words: what changed since `show` printed the --seen, and the command to read it again; no page.
    expect(stale.stderr).toContain(`review: cannot approve ticket ${t.id}: the ticket changed since \`show\` printed --seen ${seen}: sent back to the agent for a new draft by admin at `);
    expect(stale.stderr.trimEnd()).toMatch(new RegExp(`it is parked again \\(review mode always\\)\\. Run \`npm run review -- show ${t.id}\` and use the --seen it prints\\.$`));
    expect(stale.stderr).not.toMatch(/opened it|reload|Approve and send|decide again/i);
    expect(await d.store.require(t.id)).toMatchObject({ state: 'parked', draft: NEW_DRAFT });
    expect(await d.sendJobs()).toBe(0);
  }, 90_000);

  it.each(['99', '0', '1'])('refuses --seen %s, which names no draft of the ticket, as invalid rather than changed', async (seen) => {
    const d = desk();
    const t = await parkedTicket(d.store);
    const run = await d.review('approve', t.id, '--seen', seen);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `review: cannot approve ticket ${t.id}: --seen ${seen} names no draft of this ticket: run \`npm run review -- show ${t.id}\` and use the --seen it prints`,
    );
    expect((await d.store.require(t.id)).state).toBe('parked');
    expect(await d.sendJobs()).toBe(0);
  }, 60_000);

  it.each(['', 'abc', '-1', '1.5', '0x3', '3e0'])('refuses --seen %j as no history length', async (seen) => {
    const d = desk();
    const t = await parkedTicket(d.store);
    const run = await d.review('approve', t.id, '--seen', seen);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--seen');
    expect((await d.store.require(t.id)).state).toBe('parked');
  }, 60_000);

  it('approves a reply file without --seen: the text sent is the operator\'s own', async () => {
    const d = desk();
    const t = await parkedTicket(d.store);
    await rerunParksNewDraft(d.store, t.id);
    const file = path.join(dir, `${t.id}.txt`);
    await writeFile(file, 'Open Settings, then Security, then Password.', 'utf8');
    const run = await d.review('approve', t.id, '--reply-file', file);
    expect(run.code, run.stderr).toBe(0);
    expect((await d.store.require(t.id)).state).toBe('approved');
  }, 60_000);
});
