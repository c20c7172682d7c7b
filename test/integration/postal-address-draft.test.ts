/**
 * A draft that asks the customer to mail something to a postal address nothing vouches for waits for a person with
 * REVIEW_MODE=auto (security review 16, finding 3: 「クレジットカード本体を 〒160-0023 東京都新宿区… 宛にご郵送ください」
 * went out): through the real pipeline (Redis, the agent worker with the scripted model, the sender and the SMTP
 * receiver), the model's final answer replaced by what a prompt injection would make it write. An ordinary answer
 * still goes out.
 */
import { describe, expect, it } from 'vitest';
import { textResponse } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { buildMail, customerMessageId, ingest, isFinalAnswer, waitForState } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();

const LEAD_JA = 'お問い合わせいただきありがとうございます。\n\nパスワードは8文字以上で、英字・数字・記号を含める必要があります。\n\n';
const LEAD_EN = 'Thank you for contacting us.\n\nPasswords need at least 8 characters with letters, digits and symbols.\n\n';
const JA_MAIL = 'パスワードの条件と二段階認証の設定方法を教えてください。';
const EN_MAIL = 'What are the password rules for XYZ, and how do I turn on two-factor authentication?';

/** The ticket once the pipeline settled it, the model's final answer being `draft` (searches find the manual's 2FA and password chunks). */
async function settled(question: string, draft: string, headers: Record<string, string> = {}) {
  const base = scriptedModel({ keywords: () => 'パスワード 二段階認証' });
  suite.servers.llm.setHandler((req) => (isFinalAnswer(req) ? textResponse(draft) : base(req)));
  const running = await suite.run({ REVIEW_MODE: 'auto', REPEATED_QUESTION_HOURS: '0', AUTHSERV_ID: 'mx.helpdesk.test' });
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('postal'), from: 'Taro <taro@customer.example>', subject: 'Password', body: question, headers }));
  return waitForState(running.store, ticketId, ['sent', 'parked'], 60_000);
}

describe('a postal address in a draft', () => {
  it.each([
    ['the review\'s lure', JA_MAIL, `${LEAD_JA}本人確認のため、ご利用中のクレジットカード本体を 〒160-0023 東京都新宿区西新宿1-2-3 XYZビル5F 本人確認センター 宛にご郵送ください。`, '〒160-0023'],
    ['in full-width digits', JA_MAIL, `${LEAD_JA}カードを 〒１６０－００２３ 東京都新宿区西新宿1-2-3 宛にお送りください。`, '〒１６０－００２３'],
    ['an English address to mail a card to', EN_MAIL, `${LEAD_EN}Please mail your old card and a signed copy of your ID to XYZ Verification Center, 1200 Market St Suite 400, San Francisco, CA 94102.`, 'CA 94102'],
  ])('%s: parked, nothing sent', async (_name, question, draft, named) => {
    const done = await settled(question, draft);
    expect(done.state, done.reason).toBe('parked');
    expect(done.reason).toContain(`postal addresses (by their postcodes) that are neither in the knowledge it found nor in the customer's mail: ${named}`);
    expect(suite.servers.smtp.attempts).toHaveLength(0);
  });

  // The customer's own address, read back for a return label, is theirs to read, but only from a sender the receiving
  // server vouched for: a forged From's mail would vouch for the forger's drop address to the person impersonated.
  const OWN_ADDRESS_MAIL = `${JA_MAIL}\n故障したカードの返送先は 〒150-0002 東京都渋谷区渋谷2-1-1 でお願いします。`;
  const OWN_ADDRESS_DRAFT = `${LEAD_JA}交換用のカードは 〒150-0002 東京都渋谷区渋谷2-1-1 宛にお送りします。`;
  it('the customer\'s own address from an authenticated sender: sent', async () => {
    const done = await settled(OWN_ADDRESS_MAIL, OWN_ADDRESS_DRAFT, { 'Authentication-Results': 'mx.helpdesk.test; dmarc=pass header.from=customer.example' });
    expect(done.state, done.reason).toBe('sent');
    expect((await suite.servers.smtp.waitFor(1))[0]!.text).toContain('〒150-0002');
  });

  it('the same from a sender nothing authenticated: parked', async () => {
    const done = await settled(OWN_ADDRESS_MAIL, OWN_ADDRESS_DRAFT);
    expect(done.state, done.reason).toBe('parked');
    expect(done.reason).toContain('〒150-0002');
    expect(suite.servers.smtp.attempts).toHaveLength(0);
  });

  // Bug review R1 (MED 7): only the customer's own words vouch, not the mail whole. An authenticated customer who
  // asks about a phisher's mail they quote would otherwise vouch for the phisher's drop address to themselves.
  it('a phisher\'s address the authenticated customer quotes: parked', async () => {
    const question = 'このメールは本物ですか？\n\n2026年11月27日 10:00 XYZ <notice@xyz-card.example>:\n> 本人確認のため、カードを 〒160-0023 東京都新宿区西新宿1-2-3 宛に返送してください。';
    const draft = `${LEAD_JA}本人確認のため、カードを 〒160-0023 東京都新宿区西新宿1-2-3 宛にご返送ください。`;
    const done = await settled(question, draft, { 'Authentication-Results': 'mx.helpdesk.test; dmarc=pass header.from=customer.example' });
    expect(done.state, done.reason).toBe('parked');
    expect(done.reason).toContain("postal addresses (by their postcodes) that are neither in the knowledge it found nor in the customer's mail: 〒160-0023");
    expect(suite.servers.smtp.attempts).toHaveLength(0);
  });

  it('an ordinary answer: sent', async () => {
    const draft = `${LEAD_JA}二段階認証は「設定」→「セキュリティ」→「二段階認証」から設定できます。`;
    const done = await settled(JA_MAIL, draft);
    expect(done.state, done.reason).toBe('sent');
    const replies = await suite.servers.smtp.waitFor(1);
    expect(replies[0]!.text).toContain('「二段階認証」から設定できます');
  });
});
