/**
 * `REVIEW_MODE=learn` on real suite.servers (redis-server, the SMTP receiver, the scripted OpenAI-compatible model, the real
 * agent worker and sender): once a topic's sources are trusted, a mail that asks that topic and a second one whose
 * subtask the model answered without any search result is parked naming that subtask, not sent on the strength of
 * the first topic's sources.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { jsonResponse, textResponse } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { approveTicket } from '../../src/tickets/review.js';
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

const SOURCED = '二段階認証を認証アプリで設定する手順を教えてください。';
const UNSOURCED = '解約した場合、残りの期間の料金は返金されますか？';
const PROMISE = 'はい、解約日以降の残り期間の料金は日割りで全額返金いたします。';

async function ask(running: RunningRoles, n: number, body: string): Promise<Ticket> {
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: `c${n}@customer${n}.example`, subject: `質問 ${n}`, body }));
  return waitForState(running.store, ticketId, ['parked', 'sent', 'failed']);
}

describe('REVIEW_MODE=learn and a subtask without sources', () => {
  it('parks a draft whose second subtask cites nothing, naming it, though every cited source is trusted', async () => {
    const unsourced = (subtask?: string) => subtask?.includes('解約') ?? false;
    suite.servers.llm.setHandler(
      scriptedModel({
        plan: (q) => (q.includes('解約') ? [SOURCED, UNSOURCED] : [SOURCED]),
        noToolCall: (c) => unsourced(c.subtask),
        override: (c) => {
          if (!unsourced(c.subtask)) return undefined;
          // The model answers from its own "knowledge" and its self-check accepts that.
          if (c.kind === 'subtask_answer') return textResponse(PROMISE);
          if (c.kind === 'reflection') return jsonResponse({ advice: '回答できています。', isCompleted: true });
          return undefined;
        },
      }),
    );
    const config = parseConfig(pipelineEnv(suite.servers, { REVIEW_MODE: 'learn', TRUST_MIN_REVIEWS: '5', TRUST_WINDOW: '20', TRUST_MIN_AS_IS: '0.9' }));
    const running = await startRoles(config);
    cleanups.push(async () => {
      await running.stop();
      await removePrefix(suite.servers.redis.url, config.QUEUE_PREFIX);
    });
    const deps = { store: running.store, outbound: (await running.services.queues()).outbound, redis: await running.services.producer(), config };
    for (let i = 0; i < 5; i++) {
      const parked = await ask(running, i, SOURCED);
      expect(parked.state, parked.reason).toBe('parked');
      await approveTicket(deps, { ticketId: parked.id, operator: 'anna' });
      await waitForState(running.store, parked.id, ['sent']);
    }
    // The sourced topic alone now goes out unreviewed: trust itself works.
    const alone = await ask(running, 5, SOURCED);
    expect(alone.state, alone.reason).toBe('sent');
    await suite.servers.smtp.waitFor(6);

    const mixed = await ask(running, 9, `1. ${SOURCED}\n2. ${UNSOURCED}`);
    expect(mixed.agent!.subtasks.map((s) => s.isCompleted)).toEqual([true, true]);
    expect(mixed.state).toBe('parked');
    expect(mixed.reason).toBe(`not yet trusted: subtask 「${UNSOURCED}」 cites no source`);
    expect(suite.servers.smtp.messages.some((m) => m.text?.includes('日割りで全額返金'))).toBe(false);
  });
});
