/**
 * How an approval treated the agent's draft, as a candidate keeps it when approvals of the same pair are folded into
 * it, and when a pair's text counts as a reviewer's correction (audit H4, HIGH 2).
 */
import { describe, expect, it } from 'vitest';
import { candidateApprovalOf, foldedInto, pairCorrected, type CandidateApproval, type LearnedCandidate } from '../../src/knowledge/learned-answers.js';

const candidate = (approval?: CandidateApproval): LearnedCandidate => ({
  id: 1,
  ticketId: 'a'.repeat(64),
  question: '解約後のデータは何日間保持されますか？',
  answer: '90日間保持されます。',
  origin: 'rules',
  scrub: { replaced: 0, modelPass: 'off' },
  proposedAt: '2026-05-01T00:00:00.000Z',
  ...(approval ? { approval } : {}),
});

describe('a folded candidate’s approval', () => {
  it.each<[string, CandidateApproval | undefined, CandidateApproval | undefined, CandidateApproval | undefined]>([
    ['as is + as is stays as is', { edited: false }, { edited: false }, { edited: false }],
    ['as is + a correction becomes the correction', { edited: false }, { edited: true, factsChanged: ['date'] }, { edited: true, factsChanged: ['date'] }],
    ['a correction + as is stays the correction', { edited: true, factsChanged: ['number'] }, { edited: false }, { edited: true, factsChanged: ['number'] }],
    ['two corrections join their facts', { edited: true, factsChanged: ['number'] }, { edited: true, factsChanged: ['date', 'number'] }, { edited: true, factsChanged: ['number', 'date'] }],
    ['not recorded + as is stays not recorded', undefined, { edited: false }, undefined],
    ['not recorded + a correction becomes the correction', undefined, { edited: true }, { edited: true }],
    ['as is + not recorded stays as is', { edited: false }, undefined, { edited: false }],
    // Walkthrough W1: a reply the reviewer wrote where the agent had no answer is labelled so, unless a correction joins it.
    ['as is + written by the reviewer becomes written by the reviewer', { edited: false }, { edited: true, agentHadNoAnswer: true }, { edited: true, agentHadNoAnswer: true }],
    ['written + written stays written by the reviewer', { edited: true, agentHadNoAnswer: true }, { edited: true, agentHadNoAnswer: true }, { edited: true, agentHadNoAnswer: true }],
    ['written + a correction becomes the correction', { edited: true, agentHadNoAnswer: true }, { edited: true, factsChanged: ['number'] }, { edited: true, factsChanged: ['number'] }],
    ['a correction + written stays the correction', { edited: true, factsChanged: ['date'] }, { edited: true, agentHadNoAnswer: true }, { edited: true, factsChanged: ['date'] }],
  ])('%s', (_name, own, other, expected) => {
    expect(foldedInto(candidate(own), 'b'.repeat(64), other).approval).toEqual(expected);
  });

  it('changes nothing when the ticket is counted already', () => {
    const own = candidate({ edited: false });
    expect(foldedInto(own, own.ticketId, { edited: true })).toBe(own);
  });
});

describe('what counts as a correction', () => {
  it('reads an approval record without its edit ratio, and no empty fact list', () => {
    expect(candidateApprovalOf({ edited: true, factsChanged: [] })).toEqual({ edited: true });
    expect(candidateApprovalOf({ edited: false })).toEqual({ edited: false });
  });

  it.each([
    [{ id: 1, approval: { edited: true } }, true],
    [{ id: 1, approval: { edited: false } }, false],
    [{ id: 1, approval: { edited: false }, answerEdited: true }, true],
    [{ id: 1 }, false],
  ])('%j → %s', (pair, corrected) => {
    expect(pairCorrected(pair)).toBe(corrected);
  });
});
