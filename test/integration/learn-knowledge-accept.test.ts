/**
 * Accepting a candidate on the Knowledge page does what the page offered when it was rendered: a plain "Accept"
 * stores a new pair, "Accept as update of learned#N" updates pair N — whatever the operator made of the question in
 * the text area — and an update whose pair changed or disappeared since the page was rendered is refused (409) and
 * changes nothing. Real HTTP against the dashboard app and a real redis-server.
 */
import { describe, expect, it } from 'vitest';
import { LearnedAnswerStore, type LearnedCandidate } from '../../src/knowledge/learned-answers.js';
import { basicAuth, useDashboardHarness, type TestDashboard as Dashboard } from '../support/dashboard.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();

const T = (c: string) => c.repeat(64);
const draft = (question: string, answer: string): Omit<LearnedCandidate, 'id' | 'ticketId' | 'proposedAt'> => ({ question, answer, origin: 'rules', scrub: { replaced: 0, modelPass: 'off' } });

/** A candidate's accept form as the page renders it: its hidden fields, its button, and its question and answer. */
interface ShownForm {
  hidden: Record<string, string>;
  button: string;
  question: string;
  answer: string;
}

async function showForm(d: Dashboard, candidateId: number): Promise<ShownForm> {
  const page = await (await fetch(`${d.url}/knowledge`, { headers: { authorization: AUTH } })).text();
  const start = page.indexOf(`action="/knowledge/candidates/${candidateId}/accept"`);
  expect(start, `the page shows candidate ${candidateId}`).toBeGreaterThan(0);
  const form = page.slice(start, page.indexOf('</form>', start));
  const hidden = Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
  // As a browser reads it: the line feed right after <textarea> is the parser's, not the text's.
  const textarea = (name: string) => (/<textarea[^>]*>([^<]*)<\/textarea>/.exec(form.slice(form.indexOf(`name="${name}"`) - 40))?.[1] ?? '').replace(/^\n/, '');
  return { hidden, button: /<button type="submit" class="primary">([^<]+)<\/button>/.exec(form)?.[1] ?? '', question: textarea('question'), answer: textarea('answer') };
}

/** Submits a shown form as a browser would, with the operator's edits. */
async function submit(d: Dashboard, candidateId: number, shown: ShownForm, edits: { question?: string; asNew?: boolean } = {}): Promise<{ status: number; location: string | null; text: string }> {
  const form: Record<string, string> = { ...shown.hidden, question: edits.question ?? shown.question, answer: shown.answer, ...(edits.asNew ? { asNew: '1' } : {}) };
  const res = await fetch(`${d.url}/knowledge/candidates/${candidateId}/accept`, {
    method: 'POST',
    redirect: 'manual',
    headers: { authorization: AUTH, 'content-type': 'application/x-www-form-urlencoded', origin: d.url },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

async function setUp(): Promise<{ d: Dashboard; learned: LearnedAnswerStore; returnsPair: number }> {
  const d = await harness.start();
  const learned = new LearnedAnswerStore(harness.redis(), { prefix: d.prefix });
  const [c1] = await learned.propose(T('1'), [draft('返品の方法を教えてください。', 'マイページの「注文履歴」→「返品申請」から申請してください。')]);
  await learned.accept(c1!.id, { by: 'kato' });
  return { d, learned, returnsPair: c1!.id };
}

describe('accepting a candidate on the Knowledge page', () => {
  it('stores a candidate offered as new as a new pair, though the operator made its question close to an accepted one', async () => {
    const { d, learned, returnsPair } = await setUp();
    const before = await learned.pair(returnsPair);
    const [c2] = await learned.propose(T('2'), [draft('先週注文した靴を返品したいのですが、その場合の送料はどうなりますか？', '返品の送料は、初期不良の場合は当社負担、それ以外はお客様のご負担です。')]);
    const shown = await showForm(d, c2!.id);
    expect(shown.button).toBe('Accept');
    const res = await submit(d, c2!.id, shown, { question: '返品の方法を教えて下さい。' });
    expect(res).toMatchObject({ status: 303, location: `/knowledge?done=accepted&id=${c2!.id}` });
    expect(await learned.pair(returnsPair)).toEqual(before);
    expect((await learned.pairs()).map((p) => p.id)).toEqual([returnsPair, c2!.id]);
  });

  it('updates the pair the page offered, though the operator edited the question away from it', async () => {
    const { d, learned, returnsPair } = await setUp();
    const [c3] = await learned.propose(T('3'), [draft('返品の方法を教えて下さい', '2025年4月から、返品は「注文履歴」→「返品申請」で受け付けます。')]);
    const shown = await showForm(d, c3!.id);
    expect(shown.button).toBe(`Accept as update of learned#${returnsPair}`);
    const res = await submit(d, c3!.id, shown, { question: '返品を申し込むにはどこから操作しますか？' });
    expect(res).toMatchObject({ status: 303, location: `/knowledge?done=updated&id=${returnsPair}` });
    expect((await learned.pairs()).map((p) => [p.id, p.question])).toEqual([[returnsPair, '返品を申し込むにはどこから操作しますか？']]);
  });

  it('stores a new pair when the operator ticks "store as a new pair instead"', async () => {
    const { d, learned, returnsPair } = await setUp();
    const [c3] = await learned.propose(T('3'), [draft('返品の方法を教えて下さい', 'b')]);
    const res = await submit(d, c3!.id, await showForm(d, c3!.id), { asNew: true });
    expect(res).toMatchObject({ status: 303, location: `/knowledge?done=accepted&id=${c3!.id}` });
    expect((await learned.pairs()).map((p) => p.id)).toEqual([returnsPair, c3!.id]);
  });

  it.each([
    ['updated by another operator', 'changed'],
    ['removed by another operator', 'removed'],
  ] as const)('refuses an update whose pair was %s after the page was rendered, and changes nothing', async (_name, what) => {
    const { d, learned, returnsPair } = await setUp();
    const [mine] = await learned.propose(T('3'), [draft('返品の方法を教えて下さい', 'mine')]);
    const shown = await showForm(d, mine!.id);
    expect(shown.button).toBe(`Accept as update of learned#${returnsPair}`);
    if (what === 'changed') {
      const [theirs] = await learned.propose(T('4'), [draft('返品の方法を教えてください！', 'theirs')]);
      await learned.accept(theirs!.id, { by: 'sato' });
    } else {
      await learned.remove(returnsPair);
    }
    const pairsBefore = await learned.pairs();
    const res = await submit(d, mine!.id, shown);
    expect(res.status).toBe(409);
    expect(res.text).toContain(`learned#${returnsPair} ${what} since this page was shown`);
    expect(await learned.pairs()).toEqual(pairsBefore);
    expect((await learned.candidate(mine!.id))?.answer).toBe('mine');
  });

  it('refuses a form that does not say what the page offered', async () => {
    const { d, learned } = await setUp();
    const [c3] = await learned.propose(T('3'), [draft('返品の方法を教えて下さい', 'b')]);
    const shown = await showForm(d, c3!.id);
    const { target: _target, ...withoutTarget } = shown.hidden;
    const res = await submit(d, c3!.id, { ...shown, hidden: withoutTarget });
    expect(res.status).toBe(400);
    expect(await learned.candidate(c3!.id)).toBeDefined();
  });
});
