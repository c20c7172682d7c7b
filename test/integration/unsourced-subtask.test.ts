/**
 * A subtask the model answered without any search result, then passed in its own self-check, on real servers
 * (redis-server, the SMTP receiver, the scripted OpenAI-compatible model, the real agent worker and sender).
 * `REVIEW_MODE=auto` parks it naming that subtask and sends nothing (security review 16: such a draft was sent with 0
 * search results), while a subtask whose first try searched nothing but whose retry found the manual is sent.
 * `REVIEW_MODE=learn` parks it too once a topic's sources are trusted, not sending it on the strength of the first
 * topic's sources.
 */
import { describe, expect, it } from 'vitest';
import { jsonResponse, textResponse } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import { approveTicket } from '../../src/tickets/review.js';
import { buildMail, customerMessageId, ingest, waitForState, type RunningRoles } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();

const SOURCED = '二段階認証を認証アプリで設定する手順を教えてください。';
const UNSOURCED = '解約した場合、残りの期間の料金は返金されますか？';
// What the model "knows" and no manual says.
const PROMISE = 'はい、解約日以降の残り期間の料金は日割りで全額返金いたします。';

async function ask(running: RunningRoles, n: number, body: string): Promise<Ticket> {
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: `c${n}@customer${n}.example`, subject: `質問 ${n}`, body }));
  return waitForState(running.store, ticketId, ['parked', 'sent', 'failed']);
}

/** The model plans both questions, searches nothing for the refund one and answers it from its own "knowledge". */
function modelAnsweringUnsourced(): void {
  suite.servers.llm.setHandler(
    scriptedModel({
      plan: (q) => (q.includes('解約') ? [SOURCED, UNSOURCED] : [SOURCED]),
      noToolCall: (c) => c.subtask === UNSOURCED,
      override: (c) => {
        if (c.subtask !== UNSOURCED) return undefined;
        if (c.kind === 'subtask_answer') return textResponse(PROMISE);
        if (c.kind === 'reflection') return jsonResponse({ advice: '回答できています。', isCompleted: true });
        return undefined;
      },
    }),
  );
}

function promiseWasSent(): boolean {
  return suite.servers.smtp.messages.some((m) => m.text?.includes('日割りで全額返金'));
}

describe('REVIEW_MODE=auto and a subtask without sources', () => {
  it('parks a draft built on no search at all, naming the subtask, and sends nothing', async () => {
    modelAnsweringUnsourced();
    const running = await suite.run({ REVIEW_MODE: 'auto' });
    const mixed = await ask(running, 1, `1. ${SOURCED}\n2. ${UNSOURCED}`);
    expect(mixed.agent!.subtasks.map((s) => s.isCompleted)).toEqual([true, true]);
    expect(mixed.state, mixed.reason).toBe('parked');
    expect(mixed.reason).toBe(`not fully answered: 「${UNSOURCED}」 rests on no search result: the agent searched nothing for it, yet its self-check passed the answer`);
    expect(mixed.draft).toContain('日割りで全額返金');

    // The same desk still sends a sourced answer on its own.
    const alone = await ask(running, 2, SOURCED);
    expect(alone.state, alone.reason).toBe('sent');
    await suite.servers.smtp.waitFor(1);
    expect(promiseWasSent()).toBe(false);
  });

  it('sends a subtask whose first try searched nothing but whose retry found the manual', async () => {
    suite.servers.llm.setHandler(scriptedModel({ plan: () => [SOURCED], noToolCall: (c) => c.attempt === 1 }));
    const running = await suite.run({ REVIEW_MODE: 'auto' });
    const ticket = await ask(running, 3, SOURCED);
    expect(ticket.agent!.subtasks[0]!.challengeCount).toBe(2);
    expect(ticket.state, ticket.reason).toBe('sent');
  });
});

describe('REVIEW_MODE=learn and a subtask without sources', () => {
  it('parks a draft whose second subtask cites nothing, naming it, though every cited source is trusted', async () => {
    modelAnsweringUnsourced();
    const running = await suite.run({ REVIEW_MODE: 'learn', TRUST_MIN_REVIEWS: '5', TRUST_WINDOW: '20', TRUST_MIN_AS_IS: '0.9' });
    const deps = { store: running.store, outbound: (await running.services.queues()).outbound, redis: await running.services.producer(), config: running.services.config };
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
    expect(promiseWasSent()).toBe(false);
  });
});
