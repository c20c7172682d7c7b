/**
 * Folding a new learned-answer candidate into a pending one that teaches the same pair (operator8 finding 7): the
 * decision, the fold itself, the cross-reference of candidates that answer one question differently, and how the
 * Knowledge page shows both.
 */
import { describe, expect, it } from 'vitest';
import { foldedInto, foldTargetOf, MAX_FOLDED_TICKET_IDS, otherAnswersOfEach, questionSimilarity, SIMILAR_QUESTION_THRESHOLD, type LearnedCandidate } from '../../src/knowledge/learned-answers.js';
import { comparableAnswer } from '../../src/knowledge/learned-candidates.js';
import { renderKnowledgePage } from '../../src/server/knowledge-page.js';

const T = (n: number) => String(n).repeat(64).slice(0, 64);
const RESET = 'ログイン画面の「パスワードを忘れた」から再設定用のメールを送れます。';

function pending(id: number, question: string, answer: string, more: Partial<LearnedCandidate> = {}): LearnedCandidate {
  return { id, ticketId: T(id), question, answer, origin: 'rules', scrub: { replaced: 0, modelPass: 'off' }, proposedAt: '2026-03-01T10:00:00.000Z', ...more };
}

// [case, new pair's question, new pair's answer, pending candidates, id folded into (undefined: a row of its own)]
const FOLDS: [string, string, string, LearnedCandidate[], number | undefined][] = [
  ['the same question and answer', 'パスワードを忘れてしまいました。', RESET, [pending(1, 'パスワードを忘れてしまいました。', RESET)], 1],
  ['the question reworded (same topic terms)', 'パスワードを忘れました', RESET, [pending(1, 'パスワードを忘れてしまいました。', RESET)], 1],
  ['the answer differs only in white space and line breaks', 'パスワードを忘れました', `ログイン画面の「パスワードを忘れた」から\n再設定用の メールを送れます。 `, [pending(1, 'パスワードを忘れました', RESET)], 1],
  ['full-width digits against ASCII (NFKC)', '返品の期限を教えてください', '購入から３０日以内です。', [pending(1, '返品の期限を教えてください', '購入から30日以内です。')], 1],
  ['the same placeholder in either language', 'Where is my order?', 'Order [番号] ships today.', [pending(1, 'Where is my order?', 'Order [number] ships today.')], 1],
  ['placeholders of different kinds', 'Where is my order?', 'Call [phone] today.', [pending(1, 'Where is my order?', 'Call [email] today.')], undefined],
  ['a different answer stays apart (the reviewer must see the disagreement)', 'パスワードを忘れました', '管理者にリセットを依頼してください。', [pending(1, 'パスワードを忘れました', RESET)], undefined],
  ['the same answer to a different question', '返品の送料を教えてください', '着払いでお送りください。', [pending(1, '返品の方法を教えてください', '着払いでお送りください。')], undefined],
  ['a question only close, below the update threshold', 'パスワードを変更したい', RESET, [pending(1, 'パスワードを忘れた', RESET)], undefined],
  [
    'the closest question of two that match',
    'パスワードを忘れました',
    RESET,
    // 0.83 and 1: both at or above the threshold.
    [pending(1, 'パスワードを忘れました。至急', RESET), pending(2, 'パスワードを忘れました。', RESET)],
    2,
  ],
  ['the oldest of two equally close', 'パスワードを忘れました', RESET, [pending(5, 'パスワードを忘れました', RESET), pending(3, 'パスワードを忘れました。', RESET)], 3],
  ['nothing pending', 'パスワードを忘れました', RESET, [], undefined],
];

describe('foldTargetOf', () => {
  it.each(FOLDS)('%s', (_case, question, answer, candidates, expected) => {
    expect(foldTargetOf({ question, answer }, candidates)?.id).toBe(expected);
  });
});

describe('foldedInto', () => {
  // [case, candidate before, folding ticket, approvals after, other tickets after]
  const ROWS: [string, LearnedCandidate, string, number, string[]][] = [
    ['the first fold', pending(1, 'q', 'a'), T(2), 2, [T(2)]],
    ['newest first', pending(1, 'q', 'a', { approvals: 2, alsoProposedBy: [T(2)] }), T(3), 3, [T(3), T(2)]],
    ['a ticket already counted counts once', pending(1, 'q', 'a', { approvals: 2, alsoProposedBy: [T(2)] }), T(2), 2, [T(2)]],
    ['the candidate’s own ticket counts once', pending(1, 'q', 'a'), T(1), 1, []],
    [
      'capped: the oldest ids go, the count goes on',
      pending(1, 'q', 'a', { approvals: MAX_FOLDED_TICKET_IDS + 1, alsoProposedBy: Array.from({ length: MAX_FOLDED_TICKET_IDS }, (_, i) => `t${MAX_FOLDED_TICKET_IDS - i}`) }),
      'tnew',
      MAX_FOLDED_TICKET_IDS + 2,
      ['tnew', ...Array.from({ length: MAX_FOLDED_TICKET_IDS - 1 }, (_, i) => `t${MAX_FOLDED_TICKET_IDS - i}`)],
    ],
  ];
  it.each(ROWS)('%s', (_case, before, ticketId, approvals, others) => {
    const after = foldedInto(before, ticketId);
    expect(after.approvals ?? 1).toBe(approvals);
    expect(after.alsoProposedBy ?? []).toEqual(others);
    // Only ticket ids: the text and the first ticket stay as they were.
    expect({ ...after, approvals: undefined, alsoProposedBy: undefined }).toEqual({ ...before, approvals: undefined, alsoProposedBy: undefined });
  });
});

/** Every other candidate compared with `candidate` one by one: the definition the page's bucketed search must meet. */
function otherAnswersPairwise(candidate: LearnedCandidate, pending: readonly LearnedCandidate[]): LearnedCandidate[] {
  const answer = comparableAnswer(candidate.answer);
  return pending
    .filter((other) => other.id !== candidate.id && comparableAnswer(other.answer) !== answer && questionSimilarity(candidate.question, other.question) >= SIMILAR_QUESTION_THRESHOLD)
    .sort((x, y) => x.id - y.id);
}

describe('other answers to the same question', () => {
  const a = pending(1, 'パスワードを忘れました', RESET);
  const b = pending(2, 'パスワードを忘れてしまいました。', '管理者にリセットを依頼してください。');
  const c = pending(3, '返品の方法を教えてください', RESET);
  const d = pending(4, 'パスワードを忘れました。', RESET);
  it.each([
    ['names the candidate answering the same question differently', a, [b]],
    ['on both sides', b, [a, d]],
    ['not one on another question', c, []],
  ] as const)('%s', (_case, candidate, expected) => {
    expect((otherAnswersOfEach([a, b, c, d]).get(candidate.id) ?? []).map((o) => o.id)).toEqual(expected.map((o) => o.id));
  });
});

// The page names other answers on every pending candidate at once (bugrev38b finding 7): the same result as asking
// for each alone, without comparing every candidate with every other.
describe('otherAnswersOfEach', () => {
  // A small vocabulary, so that many questions are close and many answers the same.
  const TOPICS = ['パスワード', '請求書', '領収書', 'ログイン', '解約', 'invoice', 'refund', 'export'];
  const WORDS = ['設定', '画面', 'エラー', '変更', '表示', 'settings', 'error', 'page', 'account', '急ぎ'];
  const ANSWERS = [RESET, '管理者に依頼してください。', '設定画面から変更できます。', 'Open Settings > Billing.'];

  function randomPending(seed: number, count: number): LearnedCandidate[] {
    let state = seed;
    const next = (n: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % n;
    };
    return Array.from({ length: count }, (_, i) => {
      const words = Array.from({ length: next(4) }, () => WORDS[next(WORDS.length)]!);
      const question = [TOPICS[next(TOPICS.length)]!, ...words].join(next(2) === 0 ? 'の' : ' ') + (next(2) === 0 ? 'について教えてください。' : '');
      return pending(i + 1, next(10) === 0 ? '教えてください' : question, ANSWERS[next(ANSWERS.length)]!);
    });
  }

  it.each([1, 2, 3, 4, 5])('matches the pairwise comparison on random candidates (seed %i)', (seed) => {
    const candidates = randomPending(seed, 120);
    const each = otherAnswersOfEach(candidates);
    for (const c of candidates) expect((each.get(c.id) ?? []).map((o) => o.id)).toEqual(otherAnswersPairwise(c, candidates).map((o) => o.id));
  });

  it('compares only candidates that could be alike: 2,000 questions on their own topics', () => {
    const word = (n: number) => Array.from({ length: 4 }, (_, i) => String.fromCharCode(97 + (Math.floor(n / 26 ** i) % 26))).join('');
    const candidates = Array.from({ length: 2000 }, (_, i) => pending(i + 1, `How do I export the ${word(i)} ${word(i + 5000)} report?`, `Open ${word(i)} and export it.`));
    // Two that do disagree, so the count is not zero for want of work.
    candidates.push(pending(2001, `How do I export the ${word(7)} ${word(5007)} report?`, 'Ask your administrator.'));
    const count = { comparisons: 0 };
    const each = otherAnswersOfEach(candidates, count);
    expect(each.get(2001)?.map((o) => o.id)).toEqual([8]);
    expect(each.get(8)?.map((o) => o.id)).toEqual([2001]);
    // Every pair would be 2,001,000 comparisons.
    expect(count.comparisons).toBeLessThan(10 * candidates.length);
  });
});

describe('the Knowledge page', () => {
  const folded = pending(7, 'パスワードを忘れました', RESET, { approvals: 3, alsoProposedBy: [T(9), T(8)] });
  const rival = pending(10, 'パスワードを忘れました。', '管理者にリセットを依頼してください。');
  const page = String(
    renderKnowledgePage({
      candidates: [
        { candidate: folded, target: undefined, otherAnswers: [rival] },
        { candidate: rival, target: undefined, otherAnswers: [folded] },
      ],
      pairs: [],
      gaps: null,
      csrfToken: 't',
      user: 'op',
    }),
  );
  const article = (id: number) => page.slice(page.indexOf(`id="candidate-${id}"`), page.indexOf('</article>', page.indexOf(`id="candidate-${id}"`)));

  it('says how many approvals proposed a folded candidate and links each ticket', () => {
    expect(article(7)).toContain('proposed by 3 approvals');
    for (const id of [T(7), T(8), T(9)]) expect(article(7)).toContain(`href="/tickets/${id}"`);
  });

  it('says on both candidates that the other answers the same question differently', () => {
    expect(article(7)).toContain('href="#candidate-10"');
    expect(article(10)).toContain('href="#candidate-7"');
    expect(article(10)).not.toContain('proposed by');
  });
});
