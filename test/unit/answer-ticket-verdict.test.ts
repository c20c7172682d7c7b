import { describe, expect, it } from 'vitest';
import { MAX_CONVERSATION_CHARS, MAX_CONVERSATION_SUBJECT_CHARS, formatConversation, reviewVerdict } from '../../jobs/answer-ticket.js';
import type { AgentResult, Subtask } from '../../src/agent/types.js';
import type { ConversationEntry } from '../../src/tickets/ticket-store.js';

const usage = { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
// A search hit behind the answer: a completed subtask without one is an answer from nothing (see the rows below).
const FOUND = [[{ toolName: 'search_xyz_manual', args: '{"keywords":"二段階認証"}', results: [{ fileName: 'guide/login.md', content: '二段階認証は設定画面から。' }] }]];
const subtask = (taskName: string, over: Partial<Subtask> = {}): Subtask => ({
  taskName,
  toolResults: FOUND,
  reflectionResults: [],
  isCompleted: true,
  subtaskAnswer: '…',
  challengeCount: 1,
  usedFallback: false,
  usage,
  ...over,
});
type VerdictInput = Pick<AgentResult, 'subtasks' | 'truncated' | 'droppedSubtasks'>;
const result = (over: Partial<VerdictInput> = {}): VerdictInput => ({ subtasks: [subtask('二段階認証の設定')], truncated: false, droppedSubtasks: [], ...over });

// A reply that skipped part of the question must not go out as "all subtasks answered": the customer's other
// questions (a data deletion request, a cancellation) would get no answer and no person would see it.
describe('reviewVerdict', () => {
  it.each<[string, 'auto' | 'learn' | 'never' | 'always', VerdictInput, boolean, RegExp]>([
    ['everything answered', 'auto', result(), true, /^all subtasks answered$/],
    ['an unanswered subtask', 'auto', result({ subtasks: [subtask('A', { isCompleted: false })] }), false, /^not fully answered: no full answer found in the manual or the past answers for 「A」$/],
    ['the question cut at MAX_QUESTION_CHARS', 'auto', result({ truncated: true }), false, /longer than MAX_QUESTION_CHARS: its end was not read/],
    ['topics over MAX_SUBTASKS', 'auto', result({ droppedSubtasks: ['個人情報の削除依頼', 'API の料金'] }), false, /more topics than MAX_SUBTASKS; not researched: 「個人情報の削除依頼」, 「API の料金」/],
    ['the same in learn mode', 'learn', result({ truncated: true }), false, /MAX_QUESTION_CHARS/],
    // `never` sends what it has, and says what it skipped.
    ['never mode sends, naming what was skipped', 'never', result({ droppedSubtasks: ['X'] }), true, /not researched: 「X」 \(review mode never\)/],
    ['always mode', 'always', result(), false, /^review mode always$/],
    // Security review 16: a model that calls no tool and passes its own self-check wrote the answer from nothing; the
    // design has a subtask answer put into words what the searches returned, and a subtask that found nothing fail.
    ['a completed subtask that searched nothing', 'auto', result({ subtasks: [subtask('A'), subtask('B', { toolResults: [[]] })] }), false, /^not fully answered: 「B」 rests on no search result: the agent searched nothing for it, yet its self-check passed the answer$/],
    ['a completed subtask whose searches found nothing', 'auto', result({ subtasks: [subtask('A', { toolResults: [[{ toolName: 'search_xyz_manual', args: '{}', results: [] }]] })] }), false, /^not fully answered: 「A」 rests on no search result: its searches found nothing, yet its self-check passed the answer$/],
    ['a subtask that searched on a later try is sourced', 'auto', result({ subtasks: [subtask('A', { toolResults: [[], ...FOUND] })] }), true, /^all subtasks answered$/],
    // learn names it in its own words (src/tickets/trust.ts learnVerdict); never sends what it has.
    ['never mode sends an unsourced answer', 'never', result({ subtasks: [subtask('A', { toolResults: [] })] }), true, /^all subtasks answered$/],
  ])('%s', (_what, mode, input, send, reason) => {
    const verdict = reviewVerdict(mode, input);
    expect(verdict.send).toBe(send);
    expect(verdict.reason).toMatch(reason);
  });
});

// Every later mail of a long thread carried the whole earlier exchange: ten mails of 16,000 characters made a
// 160,000-character prompt that a 128k-context model refuses, so the thread's next mail failed for good.
describe('formatConversation', () => {
  const entry = (i: number, question: string, reply?: string): ConversationEntry => ({
    ticketId: `t${i}`,
    createdAt: `2026-11-2${i}T00:00:00Z`,
    from: 'c@customer.example',
    subject: `Q${i}`,
    question,
    state: reply ? 'sent' : 'parked',
    ...(reply ? { reply } : {}),
  });

  it('keeps a short thread whole, oldest first', () => {
    const text = formatConversation([entry(1, 'first question', 'first reply'), entry(2, 'second question')]);
    expect(text.indexOf('first question')).toBeLessThan(text.indexOf('second question'));
    expect(text).toContain('first reply');
  });

  it('bounds each entry and the whole, keeping the newest', () => {
    const long = (tag: string) => `${tag} ${'長い質問です。'.repeat(3_000)}`;
    const entries = Array.from({ length: 10 }, (_, i) => entry(i, long(`question-${i}`), long(`reply-${i}`)));
    const text = formatConversation(entries);
    expect(text.length).toBeLessThanOrEqual(MAX_CONVERSATION_CHARS);
    expect(text).toContain('question-9');
    expect(text).not.toContain('question-0');
    expect(text).toContain('…');
  });

  // A mail's subject is the sender's to write at any length: one of 196 KB went whole into every model call of the
  // thread's next mail, the newest earlier mail being kept whatever its size.
  it('cuts a subject, and the whole, however long the newest mail is', () => {
    const text = formatConversation([{ ...entry(1, 'first question', 'first reply'), subject: 'x'.repeat(200_000) }]);
    expect(text.length).toBeLessThanOrEqual(MAX_CONVERSATION_CHARS);
    expect(text).toContain(`Subject: ${'x'.repeat(MAX_CONVERSATION_SUBJECT_CHARS)}…\nfirst question`);
    expect(text).toContain('first reply');
  });

  it('is never longer than MAX_CONVERSATION_CHARS, whatever is long in the newest mail', () => {
    const surrogates = '😀'.repeat(5_000);
    const newest = { ...entry(2, surrogates, surrogates), from: `${'a'.repeat(20_000)}@customer.example`, subject: surrogates };
    for (const entries of [[newest], [entry(1, 'first question', 'first reply'), newest]]) {
      const text = formatConversation(entries);
      expect(text.length).toBeLessThanOrEqual(MAX_CONVERSATION_CHARS);
      expect(text.endsWith('…')).toBe(true);
      // Cut between characters, never inside one: a lone half of a surrogate pair is not text a model reads.
      expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });

  it('counts the separators between mails in the whole', () => {
    // Four mails of 1,998 characters each (a 67-character header, then the question): they fit only without what
    // joins them, so the oldest is left out.
    const text = formatConversation(Array.from({ length: 4 }, (_, i) => entry(i, `q${i} ${'あ'.repeat(1_928)}`)));
    expect(text.length).toBeLessThanOrEqual(MAX_CONVERSATION_CHARS);
    expect(text).toContain('q3 ');
    expect(text).not.toContain('q0 ');
  });
});
