/**
 * A draft that copies a placeholder of the personal-data scrub from a learned answer ("[氏名]様、…") waits for a person
 * with REVIEW_MODE=auto (first-ten-minutes finding 2: it was sent to the next customer as written): through the real
 * pipeline (Redis, the agent worker with the scripted model, the sender and the SMTP receiver), the model's final
 * answer being what a model copying the scrubbed pair writes. The same reply with an ordinary bracketed label goes out.
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

const ANSWER = 'お問い合わせいただきありがとうございます。\n\nパスワードは8文字以上で、英字・数字・記号を含める必要があります。';
const JA_MAIL = 'パスワードの条件を教えてください。';

/** The ticket once the pipeline settled it, the model's final answer being `draft` (searches find the password chunk). */
async function settled(draft: string, env: Record<string, string> = {}, keywords = 'パスワード', question = JA_MAIL) {
  const base = scriptedModel({ keywords: () => keywords });
  suite.servers.llm.setHandler((req) => (isFinalAnswer(req) ? textResponse(draft) : base(req)));
  const running = await suite.run({ REVIEW_MODE: 'auto', REPEATED_QUESTION_HOURS: '0', ...env });
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('placeholder'), from: 'Taro <taro@customer.example>', subject: 'Password', body: question }));
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

// Bug review R1 finding 3: a manual page that writes a form's labels in brackets. The draft quoting it goes out; the
// same draft is parked above when no page the agent found writes them (the first row's [氏名]).
describe('form labels a manual page writes', () => {
  const LABELS = '返品の際は用紙に【氏名】【住所】【電話番号】をご記入のうえ、商品に同封してください。';
  let root: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'helpdesk-form-kb-'));
    const manuals = path.join(root, 'manuals');
    await mkdir(manuals);
    await copyFile(path.join(REPO_ROOT, 'data/manuals/xyz-manual.md'), path.join(manuals, 'xyz-manual.md'));
    await writeFile(path.join(manuals, 'returns.md'), `# 返品\n\n## 返品の手続き\n\n商品到着後14日以内であれば返品できます。${LABELS}\n`);
    env = { DATA_DIR: path.join(root, 'data'), MANUALS_DIR: manuals, QA_DIR: path.join(REPO_ROOT, 'data/qa'), EMBEDDINGS_PROVIDER: 'local', EMBEDDING_DIMENSIONS: '256' };
    await indexKnowledge(parseConfig({ ...env, LOG_LEVEL: 'silent' }));
  }, 120_000);
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('a draft quoting them: sent', async () => {
    const draft = `お問い合わせいただきありがとうございます。\n\n商品到着後14日以内であれば返品できます。${LABELS}`;
    const done = await settled(draft, env, '返品 用紙', '商品を返品したいのですが、手続きを教えてください。');
    expect(done.state, done.reason).toBe('sent');
    const [reply] = await suite.servers.smtp.waitFor(1);
    expect(reply!.text).toContain(LABELS);
  });
});
