/**
 * A draft that copies a placeholder of the personal-data scrub from a learned answer ("[氏名]様、…") waits for a person
 * with REVIEW_MODE=auto (first-ten-minutes finding 2: it was sent to the next customer as written): through the real
 * pipeline (Redis, the agent worker with the scripted model, the sender and the SMTP receiver), the model's final
 * answer being what a model copying the scrubbed pair writes. The same reply with an ordinary bracketed label goes out.
 */
import { describe, expect, it } from 'vitest';
import { textResponse } from '../../src/dev/openai-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { buildMail, customerMessageId, ingest, isFinalAnswer, waitForState } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();

const ANSWER = 'お問い合わせいただきありがとうございます。\n\nパスワードは8文字以上で、英字・数字・記号を含める必要があります。';
const JA_MAIL = 'パスワードの条件を教えてください。';

/** The ticket once the pipeline settled it, the model's final answer being `draft` (searches find the password chunk). */
async function settled(draft: string) {
  const base = scriptedModel({ keywords: () => 'パスワード' });
  suite.servers.llm.setHandler((req) => (isFinalAnswer(req) ? textResponse(draft) : base(req)));
  const running = await suite.run({ REVIEW_MODE: 'auto', REPEATED_QUESTION_HOURS: '0' });
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('placeholder'), from: 'Taro <taro@customer.example>', subject: 'Password', body: JA_MAIL }));
  return waitForState(running.store, ticketId, ['sent', 'parked'], 60_000);
}

describe('a draft holding a scrub placeholder', () => {
  it.each([
    ['[氏名] as the scrub wrote it', `[氏名]様\n\n${ANSWER}`, '[氏名]'],
    ['【氏名】 in the brackets the model chose', `【氏名】様\n\n${ANSWER}`, '【氏名】'],
  ])('%s: parked naming it, nothing sent', async (_name, draft, placeholder) => {
    const done = await settled(draft);
    expect(done.state, done.reason).toBe('parked');
    expect(done.reason).toContain(`the draft holds the placeholder ${placeholder} from a scrubbed learned answer`);
    expect(suite.servers.smtp.attempts).toHaveLength(0);
  });

  it('an ordinary bracketed label: sent', async () => {
    const draft = `${ANSWER}\n\n[重要] 記号は !#$% などが使えます。`;
    const done = await settled(draft);
    expect(done.state, done.reason).toBe('sent');
    const replies = await suite.servers.smtp.waitFor(1);
    expect(replies[0]!.text).toContain('[重要] 記号は !#$% などが使えます。');
  });
});
