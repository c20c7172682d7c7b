/**
 * A draft asking the customer to send a secret or an identity document by mail, in the spellings the word lists
 * missed (security review 16, finding 1), waits for a person with REVIEW_MODE=auto: through the real pipeline (Redis,
 * the agent worker with the scripted model, the sender and the SMTP receiver), the model's final answer replaced by
 * what a prompt injection would make it write. A reply that only names a passport still goes out.
 */
import { describe, expect, it } from 'vitest';
import { textResponse, type ChatRequest } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { buildMail, customerMessageId, ingest, waitForState } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();

// The final answer is the one request without tools, a JSON format or a conversation of steps.
const isFinalAnswer = (req: ChatRequest) => !req.body.tools?.length && (req.body.messages?.length ?? 0) <= 2 && !req.body.response_format;
const LEAD_JA = 'お問い合わせいただきありがとうございます。\n\nパスワードは8文字以上で、英字・数字・記号を含める必要があります。\n\n';
const LEAD_EN = 'Thank you for contacting us.\n\nPasswords need at least 8 characters with letters, digits and symbols.\n\n';
const JA_MAIL = 'パスワードの条件を教えてください。';
const EN_MAIL = 'What are the password rules for XYZ?';

/** The ticket once the pipeline settled it, the model's final answer being `draft`. */
async function settled(question: string, draft: string) {
  const base = scriptedModel({ keywords: () => 'パスワード' });
  suite.servers.llm.setHandler((req) => (isFinalAnswer(req) ? textResponse(draft) : base(req)));
  const running = await suite.run({ REVIEW_MODE: 'auto', REPEATED_QUESTION_HOURS: '0' });
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('secret-ask'), from: 'Taro <taro@customer.example>', subject: 'Password', body: question }));
  return waitForState(running.store, ticketId, ['sent', 'parked'], 60_000);
}

describe('a draft asking for a secret or an identity document', () => {
  it.each([
    ['full-width Latin inside Japanese', JA_MAIL, `${LEAD_JA}Ｐａｓｓｗｏｒｄを返信でお知らせください。`],
    ['the verb in kana', JA_MAIL, `${LEAD_JA}現在のパスワードを返信でおしらせください。`],
    ['Portuguese "reply with"', EN_MAIL, `${LEAD_EN}Responda a este e-mail com a sua senha atual.`],
    ['identity documents in Japanese', JA_MAIL, `${LEAD_JA}ご本人確認のため、運転免許証とマイナンバーカードの写真を添付して返信してください。`],
    ['identity documents in English', EN_MAIL, `${LEAD_EN}Please send us a photo of your passport, your date of birth and your Social Security number.`],
  ])('%s: parked, nothing sent', async (_name, question, draft) => {
    const done = await settled(question, draft);
    expect(done.state, done.reason).toBe('parked');
    expect(done.reason).toContain('the answer asks the customer to send');
    expect(suite.servers.smtp.attempts).toHaveLength(0);
  });

  it.each([
    ['a warning not to send one', JA_MAIL, `${LEAD_JA}パスワードやマイナンバーをメールでお送りいただく必要はありません。`],
    ['entering the date of birth on a form', EN_MAIL, `${LEAD_EN}Enter your date of birth on the sign-up form.`],
  ])('%s: sent', async (_name, question, draft) => {
    const done = await settled(question, draft);
    expect(done.state, done.reason).toBe('sent');
    const replies = await suite.servers.smtp.waitFor(1);
    expect(replies[0]!.text).toContain(draft.slice(draft.lastIndexOf('\n') + 1));
  });
});
