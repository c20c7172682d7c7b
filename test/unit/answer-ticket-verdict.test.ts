import { describe, expect, it } from 'vitest';
import { reviewVerdict } from '../../jobs/answer-ticket.js';
import type { AgentResult, Subtask } from '../../src/agent/types.js';

const usage = { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
const subtask = (taskName: string, over: Partial<Subtask> = {}): Subtask => ({
  taskName,
  toolResults: [],
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
    ['an unanswered subtask', 'auto', result({ subtasks: [subtask('A', { isCompleted: false })] }), false, /unanswered subtasks 「A」/],
    ['the question cut at MAX_QUESTION_CHARS', 'auto', result({ truncated: true }), false, /longer than MAX_QUESTION_CHARS: its end was not read/],
    ['topics over MAX_SUBTASKS', 'auto', result({ droppedSubtasks: ['個人情報の削除依頼', 'API の料金'] }), false, /more topics than MAX_SUBTASKS; not researched: 「個人情報の削除依頼」, 「API の料金」/],
    ['the same in learn mode', 'learn', result({ truncated: true }), false, /MAX_QUESTION_CHARS/],
    // `never` sends what it has, and says what it skipped.
    ['never mode sends, naming what was skipped', 'never', result({ droppedSubtasks: ['X'] }), true, /not researched: 「X」 \(review mode never\)/],
    ['always mode', 'always', result(), false, /^review mode always$/],
  ])('%s', (_what, mode, input, send, reason) => {
    const verdict = reviewVerdict(mode, input);
    expect(verdict.send).toBe(send);
    expect(verdict.reason).toMatch(reason);
  });
});
