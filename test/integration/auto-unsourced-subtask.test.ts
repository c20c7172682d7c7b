/**
 * `REVIEW_MODE=auto` on real servers (redis-server, the SMTP receiver, the scripted OpenAI-compatible model, the real
 * agent worker and sender): a subtask the model answered without any search result, then passed in its own
 * self-check, is parked naming that subtask, and nothing reaches the customer (security review 16: such a draft was
 * sent with 0 search results). A subtask whose first try searched nothing but whose retry found the manual is sent.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { jsonResponse, textResponse } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import { buildMail, customerMessageId, ingest, pipelineEnv, removePrefix, startRoles, waitForState, type RunningRoles } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();
const { cleanups } = suite;

const SOURCED = '二段階認証を認証アプリで設定する手順を教えてください。';
const UNSOURCED = '解約した場合、残りの期間の料金は返金されますか？';
// What the model "knows" and no manual says.
const PROMISE = 'はい、解約日以降の残り期間の料金は日割りで全額返金いたします。';

async function ask(running: RunningRoles, n: number, body: string): Promise<Ticket> {
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: `c${n}@customer${n}.example`, subject: `質問 ${n}`, body }));
  return waitForState(running.store, ticketId, ['parked', 'sent', 'failed']);
}

async function start(): Promise<RunningRoles> {
  const config = parseConfig(pipelineEnv(suite.servers, { REVIEW_MODE: 'auto' }));
  const running = await startRoles(config);
  cleanups.push(async () => {
    await running.stop();
    await removePrefix(suite.servers.redis.url, config.QUEUE_PREFIX);
  });
  return running;
}

describe('REVIEW_MODE=auto and a subtask without sources', () => {
  it('parks a draft built on no search at all, naming the subtask, and sends nothing', async () => {
    suite.servers.llm.setHandler(
      scriptedModel({
        plan: (q) => (q.includes('解約') ? [SOURCED, UNSOURCED] : [SOURCED]),
        noToolCall: (c) => c.subtask === UNSOURCED,
        override: (c) => {
          if (c.subtask !== UNSOURCED) return undefined;
          // The model answers from its own "knowledge" and its self-check accepts that.
          if (c.kind === 'subtask_answer') return textResponse(PROMISE);
          if (c.kind === 'reflection') return jsonResponse({ advice: '回答できています。', isCompleted: true });
          return undefined;
        },
      }),
    );
    const running = await start();
    const mixed = await ask(running, 1, `1. ${SOURCED}\n2. ${UNSOURCED}`);
    expect(mixed.agent!.subtasks.map((s) => s.isCompleted)).toEqual([true, true]);
    expect(mixed.state, mixed.reason).toBe('parked');
    expect(mixed.reason).toBe(`not fully answered: 「${UNSOURCED}」 rests on no search result: the agent searched nothing for it, yet its self-check passed the answer`);
    expect(mixed.draft).toContain('日割りで全額返金');

    // The same desk still sends a sourced answer on its own.
    const alone = await ask(running, 2, SOURCED);
    expect(alone.state, alone.reason).toBe('sent');
    await suite.servers.smtp.waitFor(1);
    expect(suite.servers.smtp.messages.some((m) => m.text?.includes('日割りで全額返金'))).toBe(false);
  });

  it('sends a subtask whose first try searched nothing but whose retry found the manual', async () => {
    suite.servers.llm.setHandler(scriptedModel({ plan: () => [SOURCED], noToolCall: (c) => c.attempt === 1 }));
    const running = await start();
    const ticket = await ask(running, 3, SOURCED);
    expect(ticket.agent!.subtasks[0]!.challengeCount).toBe(2);
    expect(ticket.state, ticket.reason).toBe('sent');
  });
});
