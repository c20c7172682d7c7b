/**
 * `REVIEW_MODE=learn` on real suite.servers (redis-server, the SMTP receiver, the OpenAI-compatible scripted model, the
 * real agent worker and sender, the review actions): the first drafts of a topic are parked as not yet trusted, the
 * operator approves them as is, and the next draft on that topic goes out unreviewed — also after the roles restart,
 * since trust lives in Redis. One heavy edit of a draft citing the same sources parks the following one again. The
 * records are what `knowledge trust` and the insights page list.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../src/config.js';
import { editRatio } from '../../src/tickets/outcome.js';
import { approveTicket, type ReviewDeps } from '../../src/tickets/review.js';
import { citedSources, listTrust, trustKeys } from '../../src/tickets/trust.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  startRoles,
  waitForState,
  type RunningRoles,
} from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();
const { cleanups } = suite;

const QUESTION = '二段階認証を認証アプリで設定する手順を教えてください。';

async function reviewDeps(running: RunningRoles): Promise<ReviewDeps> {
  return { store: running.store, outbound: (await running.services.queues()).outbound, redis: await running.services.producer(), config: running.services.config };
}

/** One customer mail on the topic, from its own sender (the per-sender auto-reply limit stays out of the way). */
async function ask(running: RunningRoles, n: number, headers: Record<string, string> = {}): Promise<Ticket> {
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: `customer${n}@customer.example`, subject: `二段階認証 ${n}`, body: QUESTION, headers }));
  return waitForState(running.store, ticketId, ['parked', 'sent', 'failed']);
}

describe('REVIEW_MODE=learn', () => {
  it('parks a topic until its sources earn trust, then sends unreviewed; one heavy edit parks the next one again', async () => {
    const config: Config = parseConfig(pipelineEnv(suite.servers, { REVIEW_MODE: 'learn', TRUST_MIN_REVIEWS: '5', TRUST_WINDOW: '20', TRUST_MIN_AS_IS: '0.9', TRUST_MAX_EDIT_RATIO: '0.2' }));
    let running = await startRoles(config);
    cleanups.push(async () => {
      await running.stop();
      await removePrefix(suite.servers.redis.url, config.QUEUE_PREFIX);
    });

    // The first five drafts are parked, each saying how far the sources are; the operator approves them unchanged.
    let sources: string[] = [];
    for (let i = 0; i < 5; i++) {
      const parked = await ask(running, i);
      expect(parked.state, parked.reason).toBe('parked');
      if (i === 0) sources = citedSources(parked.agent!).map((s) => s.key);
      expect(citedSources(parked.agent!).map((s) => s.key)).toEqual(sources);
      expect(parked.reason).toMatch(new RegExp(`^not yet trusted: \\S+ has ${i} of 5 reviews`));
      const approved = await approveTicket(await reviewDeps(running), { ticketId: parked.id, operator: 'anna' });
      expect(approved.outcome).toBe('approved');
      const sent = await waitForState(running.store, parked.id, ['sent']);
      expect(sent.outcome?.kind).toBe('approved_as_is');
    }
    expect(sources.length).toBeGreaterThan(0);
    expect(suite.servers.smtp.messages).toHaveLength(5);

    // Trust lives in Redis: a restarted deployment still has it.
    await running.stop();
    running = await startRoles(config);

    const trusted = await ask(running, 5);
    expect(trusted.state, trusted.reason).toBe('sent');
    expect(trusted.outcome?.kind).toBe('auto_sent');
    expect(trusted.history.find((h) => h.to === 'drafted')?.note).toBe(`all ${sources.length} cited sources trusted`);
    await suite.servers.smtp.waitFor(6);

    // A draft on the same topic parked for another reason (a Reply-To on a foreign domain), rewritten by the operator.
    const relayed = await ask(running, 6, { 'Reply-To': 'someone@elsewhere.example' });
    expect(relayed.state).toBe('parked');
    expect(relayed.reason).toMatch(/Reply-To/);
    const rewrite = 'お問い合わせありがとうございます。\n\nこの件はお電話でご案内いたしますので、折り返しお電話番号をお知らせください。';
    expect(editRatio(relayed.draft!, rewrite)).toBeGreaterThan(0.2);
    await approveTicket(await reviewDeps(running), { ticketId: relayed.id, operator: 'anna', reply: rewrite });
    const edited = await waitForState(running.store, relayed.id, ['sent']);
    expect(edited.outcome?.kind).toBe('approved_edited');

    // The heavy edit counts against every source that draft cited: the next one waits for a person again.
    const again = await ask(running, 7);
    expect(again.state).toBe('parked');
    expect(again.reason).toMatch(/^not yet trusted: \S+ has 5 of its last 6 reviews approved as is, needs 90 %/);

    // What `knowledge trust` and the insights page show.
    const records = await listTrust(await running.services.producer(), config.QUEUE_PREFIX, config);
    expect(records.map((r) => r.sourceId).sort()).toEqual([...sources].sort());
    for (const r of records) expect(r).toMatchObject({ reviews: 6, approvedAsIs: 5, trusted: false });
    // Derived from the outcomes: each list holds the six reviews, newest first, naming their tickets.
    const entries = await (await running.services.producer()).lrange(trustKeys(config.QUEUE_PREFIX).source(sources[0]!), 0, -1);
    expect(entries).toHaveLength(6);
    // The rewrite drops the draft's numbers (a corrected fact); each entry names its customer by a digest.
    expect(entries[0]).toMatch(new RegExp(`^approved_edited 0\\.\\d+ ${relayed.id} facts sender=[0-9a-f]{16}$`));
    expect(entries.slice(1).every((e) => /^approved_as_is 0 \S+ sender=[0-9a-f]{16}$/.test(e))).toBe(true);
    expect(new Set(entries.map((e) => e.split('sender=')[1])).size).toBe(6);
  });
});
