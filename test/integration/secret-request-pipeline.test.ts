/**
 * A draft asking the customer to send a secret or an identity document by mail, in the spellings the word lists
 * missed (security review 16, finding 1), waits for a person with REVIEW_MODE=auto: through the real pipeline (Redis,
 * the agent worker with the scripted model, the sender and the SMTP receiver), the model's final answer replaced by
 * what a prompt injection would make it write. A reply that only names a passport still goes out, and so does an ask
 * for an identity document that the knowledge the agent found makes itself (bug review R1 of session 48).
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { indexKnowledge } from '../../src/dev/knowledge-index.js';
import { textResponse } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { buildMail, customerMessageId, ingest, isFinalAnswer, REPO_ROOT, waitForState } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();

const LEAD_JA = 'お問い合わせいただきありがとうございます。\n\nパスワードは8文字以上で、英字・数字・記号を含める必要があります。\n\n';
const LEAD_EN = 'Thank you for contacting us.\n\nPasswords need at least 8 characters with letters, digits and symbols.\n\n';
const JA_MAIL = 'パスワードの条件を教えてください。';
const EN_MAIL = 'What are the password rules for XYZ?';

/** The ticket once the pipeline settled it, the model's final answer being `draft`. */
async function settled(question: string, draft: string, env: Record<string, string> = {}, keywords = 'パスワード') {
  const base = scriptedModel({ keywords: () => keywords });
  suite.servers.llm.setHandler((req) => (isFinalAnswer(req) ? textResponse(draft) : base(req)));
  const running = await suite.run({ REVIEW_MODE: 'auto', REPEATED_QUESTION_HOURS: '0', ...env });
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

// As a gift card's codes in test/integration/payment-details.test.ts: a desk that checks ages asks for the licence in
// its own manual, so the draft asking the same goes out; the same draft without that section is parked above.
describe('an identity ask the knowledge found makes too', () => {
  const ASK = '本人確認のため運転免許証の写真を添付してご返信ください。';
  let root: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'helpdesk-id-kb-'));
    const manuals = path.join(root, 'manuals');
    await mkdir(manuals);
    await copyFile(path.join(REPO_ROOT, 'data/manuals/xyz-manual.md'), path.join(manuals, 'xyz-manual.md'));
    await writeFile(path.join(manuals, 'age-check.md'), `# 年齢確認\n\n## 年齢確認の手続き\n\n成人向けプランのお申し込みには年齢確認が必要です。${ASK}担当者が確認後、プランを有効にします。\n`);
    env = { DATA_DIR: path.join(root, 'data'), MANUALS_DIR: manuals, QA_DIR: path.join(REPO_ROOT, 'data/qa'), EMBEDDINGS_PROVIDER: 'local', EMBEDDING_DIMENSIONS: '256' };
    await indexKnowledge(parseConfig({ ...env, LOG_LEVEL: 'silent' }));
  }, 120_000);
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('the draft asking for the same document is sent', async () => {
    const draft = `お問い合わせいただきありがとうございます。\n\n成人向けプランには年齢確認が必要です。\n\n${ASK}`;
    const done = await settled('成人向けプランの年齢確認はどうすればよいですか。', draft, env, '年齢確認 運転免許証');
    expect(done.state, done.reason).toBe('sent');
    const [reply] = await suite.servers.smtp.waitFor(1);
    expect(reply!.text).toContain(ASK);
  });

  it('a draft asking for another document is parked', async () => {
    const ask = '本人確認のためマイナンバーカードの写真を添付してご返信ください。';
    const done = await settled('成人向けプランの年齢確認はどうすればよいですか。', `お問い合わせいただきありがとうございます。\n\n${ask}`, env, '年齢確認 運転免許証');
    expect(done.state).toBe('parked');
    expect(done.reason).toContain('an identity document');
    expect(suite.servers.smtp.attempts).toHaveLength(0);
  });
});
