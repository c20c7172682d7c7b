/**
 * A learned-answer candidate whose answer holds a placeholder of the personal-data scrub, on the Knowledge page
 * (first-ten-minutes finding 2): the page showed "[氏名]様、…" in the answer's box with nothing to say that a reply
 * copying it carries the placeholder to the customer. It is flagged with the placeholders named; one in the question
 * only (searched, never sent) and an ordinary bracketed label are not. Real HTTP against the dashboard app and a real
 * redis-server.
 */
import { describe, expect, it } from 'vitest';
import { LearnedAnswerStore, type LearnedCandidate } from '../../src/knowledge/learned-answers.js';
import { basicAuth, useDashboardHarness } from '../support/dashboard.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();

const candidate = (question: string, answer: string): Omit<LearnedCandidate, 'id' | 'ticketId' | 'proposedAt'> => ({
  question,
  answer,
  origin: 'rules',
  scrub: { replaced: 1, modelPass: 'off' },
});

describe("a placeholder in a learned-answer candidate's answer", () => {
  it('is flagged with the placeholders named; in the question only, or an ordinary label, is not', async () => {
    const d = await harness.start();
    const learned = new LearnedAnswerStore(harness.redis(), { prefix: d.prefix });
    const [walk] = await learned.propose('a'.repeat(64), [candidate('集合場所はどこですか', '[氏名]様、集合場所は東京駅丸の内北口です。[電話番号]にもご連絡します。')]);
    const [question] = await learned.propose('b'.repeat(64), [candidate('[氏名]です。集合時刻は？', '集合時刻は9時です。')]);
    const [label] = await learned.propose('c'.repeat(64), [candidate('雨天の場合は？', '[重要] 雨天でも開催します。')]);

    const page = await (await fetch(`${d.url}/knowledge`, { headers: { authorization: AUTH } })).text();
    const article = (id: number) => page.slice(page.indexOf(`id="candidate-${id}"`), page.indexOf('</article>', page.indexOf(`id="candidate-${id}"`)));
    expect(article(walk!.id)).toContain('<p class="flash bad small" role="alert">The answer holds the placeholders <bdi>[氏名], [電話番号]</bdi>: a reply that copies the answer would carry them to the customer as written.');
    expect(article(question!.id)).not.toContain('The answer holds the placeholder');
    expect(article(label!.id)).not.toContain('The answer holds the placeholder');
  });
});
