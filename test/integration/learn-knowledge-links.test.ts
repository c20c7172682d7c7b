/**
 * The customer's links, addresses and phone numbers in a learned-answer candidate's question, on the Knowledge page:
 * a candidate they were replaced in says so, and one whose question still holds some the answer does not (proposed
 * before candidates were cleaned, or edited) is flagged with them named, as a candidate that hid characters is. Real
 * HTTP against the dashboard app and a real redis-server.
 */
import { describe, expect, it } from 'vitest';
import { LearnedAnswerStore, type LearnedCandidate } from '../../src/knowledge/learned-answers.js';
import { basicAuth, useDashboardHarness } from '../support/dashboard.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();
const EVIL = 'https://xyz-support-center.example/reset';
const PHONE = '0120-444-555';

const draft = (question: string, answer: string, linksReplaced?: number): Omit<LearnedCandidate, 'id' | 'ticketId' | 'proposedAt'> => ({
  question,
  answer,
  origin: 'rules',
  scrub: { replaced: 0, modelPass: 'off', ...(linksReplaced ? { linksReplaced } : {}) },
});

describe('links in a learned-answer candidate\'s question', () => {
  it('says how many were replaced, and flags those a question still holds that the answer does not', async () => {
    const d = await harness.start();
    const learned = new LearnedAnswerStore(harness.redis(), { prefix: d.prefix });
    const [replaced] = await learned.propose('a'.repeat(64), [draft('公式の案内 [URL] と [電話番号] では駄目でした。', '「請求」→「領収書」で変更できます。', 2)]);
    const [old] = await learned.propose('b'.repeat(64), [draft(`公式の案内 ${EVIL} と ${PHONE} では駄目でした。`, '「請求」→「領収書」で変更できます。')]);
    const [ours] = await learned.propose('c'.repeat(64), [draft('https://help.helpdesk.test/receipt を読みました。', '手順は https://help.helpdesk.test/receipt のとおりです。')]);

    const page = await (await fetch(`${d.url}/knowledge`, { headers: { authorization: AUTH } })).text();
    const article = (id: number) => page.slice(page.indexOf(`id="candidate-${id}"`), page.indexOf('</article>', page.indexOf(`id="candidate-${id}"`)));
    expect(article(replaced!.id)).toContain('2 of the customer’s links, addresses or phone numbers replaced in the question');
    expect(article(replaced!.id)).not.toContain('role="alert"');
    const flagged = article(old!.id);
    expect(flagged).toContain(`<p class="flash bad small" role="alert">The question holds links, addresses or phone numbers the answer does not: <bdi>${EVIL}, ${PHONE}</bdi>.`);
    expect(article(ours!.id)).not.toContain('role="alert"');
    expect(article(ours!.id)).not.toContain('replaced in the question');
  });
});
