/**
 * `REVIEW_MODE=learn` on real suite.servers (redis-server, the SMTP receiver, the scripted model, the real agent worker and
 * sender): five approvals of one customer's question — also written from `+tag` and upper-case variants of the
 * address — are one review of its sources, so the next customer's draft on that topic is still parked.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { senderDigest } from '../../src/tickets/outcome.js';
import { forgetCustomer } from '../../src/tickets/retention.js';
import { approveTicket } from '../../src/tickets/review.js';
import { trustKeys } from '../../src/tickets/trust.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import { buildMail, customerMessageId, ingest, pipelineEnv, removePrefix, startRoles, waitForState, type RunningRoles } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();
const { cleanups } = suite;

const QUESTION = '二段階認証を認証アプリで設定する手順を教えてください。';

async function ask(running: RunningRoles, from: string, n: number): Promise<Ticket> {
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from, subject: `二段階認証 ${n}`, body: QUESTION }));
  return waitForState(running.store, ticketId, ['parked', 'sent', 'failed']);
}

describe('REVIEW_MODE=learn and one sender', () => {
  it('counts five approvals of one sender as one review', async () => {
    const config = parseConfig(pipelineEnv(suite.servers, { REVIEW_MODE: 'learn', TRUST_MIN_REVIEWS: '5', TRUST_WINDOW: '20', TRUST_MIN_AS_IS: '0.9' }));
    const running = await startRoles(config);
    cleanups.push(async () => {
      await running.stop();
      await removePrefix(suite.servers.redis.url, config.QUEUE_PREFIX);
    });
    const deps = { store: running.store, outbound: (await running.services.queues()).outbound, redis: await running.services.producer(), config };
    const variants = ['mallory@attacker.example', 'Mallory@attacker.example', 'mallory+2@attacker.example', 'MALLORY+x@Attacker.example', 'mallory@attacker.example'];
    for (const [i, from] of variants.entries()) {
      const parked = await ask(running, from, i);
      expect(parked.state, parked.reason).toBe('parked');
      await approveTicket(deps, { ticketId: parked.id, operator: 'anna' });
      expect((await waitForState(running.store, parked.id, ['sent'])).outcome?.kind).toBe('approved_as_is');
    }
    const next = await ask(running, 'bob@customer.example', 9);
    expect(next.state).toBe('parked');
    expect(next.reason).toMatch(/^not yet trusted: \S+ has 1 of 5 reviews/);

    // The sender field is a digest of the customer's address: erasing the customer takes it out of every trust
    // record, and the reviews themselves stay (they are the operators' judgement of the sources).
    const digest = senderDigest('mallory@attacker.example');
    const trustLists = async () => {
      const k = trustKeys(config.QUEUE_PREFIX);
      const sources = await deps.redis.zrange(k.sources, 0, -1);
      return (await Promise.all(sources.map((s) => deps.redis.lrange(k.source(s), 0, -1)))).flat();
    };
    const before = await trustLists();
    expect(before.filter((e) => e.includes(`sender=${digest}`)).length).toBeGreaterThanOrEqual(5);
    const archiveDir = await mkdtemp(path.join(tmpdir(), 'trust-forget-'));
    cleanups.push(() => rm(archiveDir, { recursive: true, force: true }));
    const report = await forgetCustomer({ redis: deps.redis, store: running.store, prefix: config.QUEUE_PREFIX, archiveDir }, 'mallory@attacker.example', { confirm: true });
    expect(report.trustReviews).toBe(before.filter((e) => e.includes(`sender=${digest}`)).length);
    const after = await trustLists();
    expect(after.join('\n')).not.toContain(digest);
    expect(after).toHaveLength(before.length);
  });
});
