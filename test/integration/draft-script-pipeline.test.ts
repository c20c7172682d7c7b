/**
 * A draft written in a language or script nobody brought into the conversation, or spelling a word with look-alike
 * letters of another script, waits for a person with REVIEW_MODE=auto (security review 16, finding 1): through the
 * real pipeline (Redis, the agent worker with the scripted model, the sender and the SMTP receiver), the model's
 * final answer replaced by what a prompt injection would make it write. Replies in the customer's language that quote
 * a screen label of the manual, or name English screens in Japanese, still go out. The rows ask for no secret, so the
 * word lists of the other checks (src/tickets/secret-request.ts) cannot be what parks them.
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
const PT_MAIL = 'Olá, como eu configuro a autenticação de dois fatores na minha conta? Obrigado.';

/** The ticket once the pipeline settled it, the model's final answer being `draft` (searches find the manual's 2FA and password chunks). */
async function settled(question: string, draft: string) {
  const base = scriptedModel({ keywords: () => 'パスワード 二段階認証' });
  suite.servers.llm.setHandler((req) => (isFinalAnswer(req) ? textResponse(draft) : base(req)));
  const running = await suite.run({ REVIEW_MODE: 'auto', REPEATED_QUESTION_HOURS: '0' });
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('draft-script'), from: 'Taro <taro@customer.example>', subject: 'Password', body: question }));
  return waitForState(running.store, ticketId, ['sent', 'parked'], 60_000);
}

describe('a draft in a script or language nobody wrote', () => {
  it.each([
    ['Portuguese notice under an English lead', EN_MAIL, `${LEAD_EN}Importante: a partir deste mês, o atendimento será feito apenas pelo nosso novo canal, e não por este e-mail.`, 'prose in Portuguese'],
    ['Vietnamese notice under a Japanese lead', JA_MAIL, `${LEAD_JA}Quan trọng: từ tháng này, vui lòng chỉ liên hệ với chúng tôi qua kênh hỗ trợ mới của bạn.`, 'prose in Vietnamese'],
    ['Russian notice', EN_MAIL, `${LEAD_EN}Важно: с этого месяца поддержка работает только через наш новый канал связи.`, 'prose in Cyrillic script'],
    ['Spanish notice', EN_MAIL, `${LEAD_EN}Importante: a partir de este mes, el soporte se hará solo por nuestro nuevo canal y no por este correo.`, 'prose in Spanish'],
    ['Korean notice under a Japanese lead', JA_MAIL, `${LEAD_JA}중요: 이번 달부터 고객 지원은 새 창구에서만 진행됩니다. 담당자의 안내를 기다려 주십시오.`, 'prose in Korean script'],
    ['Cyrillic look-alikes in an English word', EN_MAIL, `${LEAD_EN}Your account will be сlosed today unless you open our new support раge.`, 'look-alike letters of another script'],
    ['Swedish notice under a Japanese lead (no function-word list)', JA_MAIL, `${LEAD_JA}Viktigt: från och med denna månad sker all support endast via vår nya kanal och inte via detta mejl.`, 'prose in a Latin-script language'],
    ['an Armenian look-alike in an English word', EN_MAIL, `${LEAD_EN}Your account will be closed today unless you open our new support pօge.`, 'look-alike letters of another script'],
  ])('%s: parked, nothing sent', async (_name, question, draft, reason) => {
    const done = await settled(question, draft);
    expect(done.state, done.reason).toBe('parked');
    expect(done.reason).toContain(reason);
    expect(suite.servers.smtp.attempts).toHaveLength(0);
  });

  it.each([
    ['English reply quoting the manual\'s Japanese screen labels', EN_MAIL, `${LEAD_EN}To turn on two-factor authentication, open 「設定」→「セキュリティ」→「二段階認証」 and choose 「認証アプリ」 as the method. Then scan the QR code with the app and enter the 6-digit code.`],
    ['Japanese reply naming English screens and products', JA_MAIL, `${LEAD_JA}二段階認証は「Settings」→「Security」→「Two-factor authentication」を開き、Google Authenticator や Microsoft Authenticator などの認証アプリで QR コードを読み取って設定してください。`],
    ['Portuguese reply to a Portuguese mail', PT_MAIL, 'Obrigado pelo contato.\n\nPara configurar a autenticação de dois fatores, abra as configurações da sua conta e siga as instruções do aplicativo autenticador.'],
    ['German reply to a German mail of a few words', 'Zwei-Faktor-Authentifizierung einrichten?', 'Guten Tag, Sie können die Zwei-Faktor-Authentifizierung in den Kontoeinstellungen unter „Sicherheit“ mit einer Authenticator-App einrichten.'],
  ])('%s: sent', async (_name, question, draft) => {
    const done = await settled(question, draft);
    expect(done.state, done.reason).toBe('sent');
    const replies = await suite.servers.smtp.waitFor(1);
    expect(replies[0]!.text).toContain(draft.slice(draft.lastIndexOf('\n') + 1));
  });
});
