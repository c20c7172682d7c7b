import { describe, expect, it } from 'vitest';
import { replySubject } from '../../src/mail/compose-reply.js';
import { subjectAsQuestion } from '../../src/mail/parse.js';
import { repeatedQuestionKey } from '../../src/tickets/repeated-question.js';

// The reply and forward prefixes are stripped by patterns run on every subject a stranger writes. These pin down
// what they strip, and that a hostile subject (a prefix word, then a long run of spaces, then no colon) costs a
// single pass: with two whitespace runs around the optional `[2]` it cost one pass per split of the run (40,000
// spaces: ~9 s; 150,000: about a minute), blocking the event loop.

const HOSTILE = `Re${' '.repeat(150_000)}x`;
// Far above what the linear patterns take (milliseconds), far below what the quadratic ones took.
const HOSTILE_TIMEOUT_MS = 20_000;

describe('subjectAsQuestion', () => {
  it.each([
    ['二段階認証について', '二段階認証について'],
    ['Re: 二段階認証について', '二段階認証について'],
    ['RE: Fwd: re:Backup', 'Backup'],
    ['Re[2]: Backup', 'Backup'],
    ['Re [2] : Backup', 'Backup'],
    ['Re(3): Backup', 'Backup'],
    ['AW: WG: Frage', 'Frage'],
    ['返信: 転送：質問', '質問'],
    ['  Re :  spaced', 'spaced'],
    ['Regarding renewal', 'Regarding renewal'],
    ['Re[x]: not a count', 'Re[x]: not a count'],
    ['Re', 'Re'],
    ['', ''],
    // Our own placeholder for a reply to a mail without a subject is no question of the customer's.
    ['Re: (no subject)', ''],
    ['RE: Re: (件名なし)', ''],
    ['(no subject) please', '(no subject) please'],
  ])('%j → %j', (subject, expected) => {
    expect(subjectAsQuestion(subject)).toBe(expected);
  });

  it('takes one pass over a prefix word followed by a long run of spaces', { timeout: HOSTILE_TIMEOUT_MS }, () => {
    expect(subjectAsQuestion(HOSTILE)).toBe(HOSTILE.trim());
    expect(subjectAsQuestion(`Re${' '.repeat(100_000)}[2]${' '.repeat(100_000)}x`)).toMatch(/^Re\s+\[2\]\s+x$/);
  });
});

describe('replySubject', () => {
  it.each([
    ['Re [2] : Backup', 'Re: Backup'],
    ['Re(3): AW: Backup', 'Re: Backup'],
    ['Fwd: Re: kept after a forward prefix', 'Re: Fwd: Re: kept after a forward prefix'],
    ['Re[x]: not a count', 'Re: Re[x]: not a count'],
  ])('%j → %j', (subject, expected) => {
    expect(replySubject(subject)).toBe(expected);
  });

  it('takes one pass over a prefix word followed by a long run of spaces', { timeout: HOSTILE_TIMEOUT_MS }, () => {
    expect(replySubject(HOSTILE)).toBe(`Re: ${HOSTILE}`);
  });
});

describe('repeatedQuestionKey', () => {
  it('takes one pass over a subject of a prefix word followed by a long run of spaces', { timeout: HOSTILE_TIMEOUT_MS }, () => {
    const key = repeatedQuestionKey('P', { from: 'taro@customer.example', subject: HOSTILE, question: 'q' });
    expect(key).toBe(repeatedQuestionKey('P', { from: 'taro@customer.example', subject: 'Re x', question: 'q' }));
  });
});
