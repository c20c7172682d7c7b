import { describe, expect, it } from 'vitest';
import { ANSWERING_STATES, questionFingerprint, repeatedQuestionKey, repeatedQuestionReason } from '../../src/tickets/repeated-question.js';
import { TICKET_STATES, type TicketState } from '../../src/tickets/ticket.js';

describe('the same question', () => {
  const question = '二段階認証を認証アプリで設定する手順を教えてください。';
  it.each([
    ['re-spaced', '  二段階認証を 認証アプリで設定する\n手順を教えてください。 '],
    ['another full stop', '二段階認証を認証アプリで設定する手順を教えてください.'],
    ['no punctuation', '二段階認証を認証アプリで設定する手順を教えてください'],
  ])('%s', (_case, copy) => {
    expect(questionFingerprint(copy)).toBe(questionFingerprint(question));
  });

  it.each([
    ['ＳＳＯ　ｌｏｇｉｎ２', 'sso login 2'],
    ['Hello, World!', 'HELLO WORLD'],
  ])('%j is %j', (a, b) => {
    expect(questionFingerprint(a)).toBe(questionFingerprint(b));
  });

  it('another question, another subject, or the same from another sender, is another key; the address is folded as the rate limits fold it', () => {
    const subject = '二段階認証について';
    const key = repeatedQuestionKey('p', { from: 'taro@customer.example', subject, question });
    expect(repeatedQuestionKey('p', { from: 'Taro+x@Customer.example', subject, question })).toBe(key);
    expect(repeatedQuestionKey('p', { from: 'taro@customer.example', subject: `Fwd: RE: ${subject}`, question })).toBe(key);
    expect(repeatedQuestionKey('p', { from: 'hanako@customer.example', subject, question })).not.toBe(key);
    expect(repeatedQuestionKey('p', { from: 'taro@customer.example', subject, question: 'パスワードの条件を教えてください。' })).not.toBe(key);
    expect(repeatedQuestionKey('p', { from: 'taro@customer.example', subject: 'test 2', question })).not.toBe(key);
    // Neither the address nor the text is part of the key.
    expect(key).toMatch(/^p:repeat:[0-9a-f]{64}$/);
  });

  it.each([
    [0, 'less than a minute'],
    [59_000, 'less than a minute'],
    [60_000, '1 min'],
    [5 * 60_000, '5 min'],
    [119 * 60_000, '119 min'],
    [5 * 3_600_000, '5 h'],
  ])('names the first ticket and how long ago (%d ms)', (ms, ago) => {
    const now = new Date('2026-11-26T12:00:00Z');
    const reason = repeatedQuestionReason({ id: 'abc', state: 'sent', createdAt: new Date(now.getTime() - ms).toISOString() }, now);
    expect(reason).toBe(`repeated question: the same sender asked the same under the same subject ${ago} ago (ticket abc, sent); parked so the customer does not get the same automatic reply twice`);
  });
});

// Which first copies hold the question: every state but an end without an answer. A parked first copy waits for a
// person (learn mode parks nearly every draft), so a later copy must not get a second draft (operator walkthrough 8 #1).
describe('a first copy holds the question unless it ended without an answer', () => {
  const handsOver: readonly TicketState[] = ['rejected', 'failed', 'ignored'];
  it.each(TICKET_STATES.map((state) => [state, !handsOver.includes(state)] as const))('%s holds it: %s', (state, holds) => {
    expect(ANSWERING_STATES.includes(state)).toBe(holds);
  });
});
