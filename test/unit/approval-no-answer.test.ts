/**
 * An approval of a reply the reviewer wrote because the agent had none — an empty draft, or the "not found" fallback
 * of every subtask — corrected nothing of the agent's (walkthrough W1: the Knowledge page and `knowledge show` called
 * it "corrected by the reviewer (number changed)"). It records no changed facts, so neither trust nor the corrections
 * of src/tickets/trust.ts count it as a correction, and its candidate says the reviewer wrote it.
 */
import { describe, expect, it } from 'vitest';
import type { AgentResult, Subtask } from '../../src/agent/types.js';
import { fallbackSubtaskAnswer } from '../../src/agent/agent.js';
import { candidateApprovalOf, describeApproval } from '../../src/knowledge/learned-answers.js';
import { agentHadNoAnswer, approvalRecord, outcomeOnEntering } from '../../src/tickets/outcome.js';
import { readReviewEntry, reviewEntry } from '../../src/tickets/trust.js';

const WRITTEN = '社員旅行の集合場所は本社ビル1階ロビーです。集合時刻は午前8時です。';
const USAGE = { calls: 1, promptTokens: 1, completionTokens: 1, totalTokens: 2 };

function subtask(taskName: string, usedFallback: boolean): Subtask {
  return {
    taskName,
    toolResults: [],
    reflectionResults: [],
    isCompleted: !usedFallback,
    subtaskAnswer: usedFallback ? fallbackSubtaskAnswer(taskName) : `${taskName}: 本社ビル2階ロビーです。`,
    challengeCount: usedFallback ? 3 : 1,
    usedFallback,
    usage: USAGE,
  };
}

function agent(answer: string, subtasks: Subtask[]): Pick<AgentResult, 'answer' | 'subtasks'> {
  return { answer, subtasks };
}

const PLACE = '社員旅行の集合場所を教えてください。';
const TIME = '集合時刻を教えてください。';
const FALLBACK_DRAFT = `お問い合わせいただきありがとうございます。\n\n■ ${PLACE}\n${fallbackSubtaskAnswer(PLACE)}\n\n以上、よろしくお願いいたします。`;

describe('an approval whose agent had no answer', () => {
  it.each([
    ['no agent run', undefined],
    ['an empty answer', agent('', [])],
    ['an answer of white space', agent('  \n ', [subtask(PLACE, false)])],
    ['the fallback of its only subtask', agent(FALLBACK_DRAFT, [subtask(PLACE, true)])],
    ['the fallback of every subtask', agent(`${FALLBACK_DRAFT}\n${fallbackSubtaskAnswer(TIME)}`, [subtask(PLACE, true), subtask(TIME, true)])],
  ] as const)('%s: records no changed facts and says the reviewer wrote it', (_name, result) => {
    expect(agentHadNoAnswer(result)).toBe(true);
    const record = approvalRecord(result, WRITTEN);
    expect(record).toMatchObject({ edited: true, agentHadNoAnswer: true });
    expect(record.factsChanged).toBeUndefined();
    const at = '2026-11-28T10:00:00.000Z';
    const outcome = outcomeOnEntering({ outbound: { messageId: '<m@x>', autoSubmitted: false }, approval: record, history: [] }, 'sent', at);
    expect(outcome?.kind).toBe('approved_edited');
    expect(outcome?.factsChanged).toBeUndefined();
    // What trust reads back: no correction flag on the review.
    expect(readReviewEntry(reviewEntry(outcome!, 't1'))?.factsChanged).toBeUndefined();
    expect(describeApproval(candidateApprovalOf(record))).toBe('written by the reviewer (the agent had no answer)');
    expect(describeApproval(candidateApprovalOf(record), true)).toBe('written by the reviewer (the agent had no answer); answer rewritten when accepted');
  });

  it('an empty draft given as text alone is no answer either', () => {
    expect(approvalRecord('', WRITTEN)).toMatchObject({ edited: true, editRatio: 1, agentHadNoAnswer: true });
    expect(approvalRecord(undefined, WRITTEN).factsChanged).toBeUndefined();
  });
});

describe('an approval whose agent answered', () => {
  it('is a correction when a number of an answered subtask changed, though another subtask fell back', () => {
    const draft = `■ ${PLACE}\n本社ビル2階ロビーです。\n\n■ ${TIME}\n${fallbackSubtaskAnswer(TIME)}`;
    const result = agent(draft, [subtask(PLACE, false), subtask(TIME, true)]);
    expect(agentHadNoAnswer(result)).toBe(false);
    const record = approvalRecord(result, draft.replace('2階', '1階'));
    expect(record.factsChanged).toEqual(['number']);
    expect(record.agentHadNoAnswer).toBeUndefined();
    expect(describeApproval(candidateApprovalOf(record))).toBe('corrected by the reviewer (number changed)');
  });

  it('approved unchanged is approved as the agent wrote it, even when the draft is the fallback', () => {
    const record = approvalRecord(agent(FALLBACK_DRAFT, [subtask(PLACE, true)]), FALLBACK_DRAFT);
    expect(record).toEqual({ edited: false, editRatio: 0 });
    expect(describeApproval(candidateApprovalOf(record))).toBe('approved as the agent wrote it');
  });
});
