/**
 * Security review 14 (LOW 3): the read receipt's subject line was looked for with `^\s*` under /m, which reads every
 * blank line after each line start it tries: a mail of 100 KB of newlines kept the poller's classifier busy for 10 s.
 * The patterns now read only blanks within the line; the verdicts stay.
 */
import { describe, expect, it } from 'vitest';
import { asksBesideReceipt } from '../../src/mail/relay-notices.js';

describe('asksBesideReceipt', () => {
  it.each<[string, string, boolean]>([
    ['100 KB of newlines', '\n'.repeat(100_000), false],
    ['100 KB of blank CRLF lines, then a question', `${'\r\n'.repeat(50_000)}How do I export?`, true],
    ['100 KB of newlines, then an indented subject line that asks', `${'\n'.repeat(100_000)}  Asunto: Re: ¿Cómo exporto?`, false],
    ['a subject line after blanks on its own line', 'Su mensaje\n \t Asunto: ¿Cómo exporto?\nfue leído el 1/2/2026', false],
    ['a question on the line after a blank line', 'Your message\n\nSubject: Export\n\nCan you call me?', true],
  ])('%s', (_what, text, asks) => {
    expect(asksBesideReceipt(text)).toBe(asks);
  });
});
