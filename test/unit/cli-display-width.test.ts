import { describe, expect, it } from 'vitest';
import { displayWidth, fitWidth, formatTable, padToWidth } from '../../src/cli/format.js';
import { newTicket } from '../../src/tickets/ticket.js';

describe('displayWidth', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['パスワード', 10], // katakana
    ['請求書について', 14], // kanji and hiragana
    ['、。「」', 8], // ideographic punctuation
    ['ＡＢＣ１', 8], // fullwidth forms
    ['ｶﾀｶﾅ', 4], // halfwidth katakana stay narrow
    ['한국어', 6], // hangul syllables
    ['Re: 請求書', 10],
    ['e\u0301', 1], // e + combining acute accent
    ['が', 2], // precomposed
    ['か\u3099', 2], // kana + combining voiced mark
    ['a\u200bb', 2], // zero width space
    ['\u{1F600}', 2], // emoji
    ['\u{1F468}\u200d\u{1F469}\u200d\u{1F467}', 2], // ZWJ family: one picture
    ['\u{1F1EF}\u{1F1F5}', 2], // flag (two regional indicators)
    ['\u{20B9F}', 2], // CJK extension B (𠮟)
    ['x\u001b[2Jy', 2], // an escape sequence takes no column (terminalSafe removes it before display anyway)
  ])('%j is %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe('fitWidth and padToWidth', () => {
  it.each([
    ['abcdef', 6, 'abcdef'],
    ['abcdef', 4, 'abc…'],
    ['パスワード', 10, 'パスワード'],
    ['パスワード', 9, 'パスワー…'],
    ['パスワード', 8, 'パスワ…'],
    ['パスワード', 6, 'パス…'],
    ['e\u0301e\u0301e\u0301', 2, 'e\u0301…'],
  ])('fits %j into %i columns as %j', (text, width, fitted) => {
    expect(fitWidth(text, width)).toBe(fitted);
    expect(displayWidth(fitWidth(text, width))).toBeLessThanOrEqual(width);
  });

  it('pads by columns', () => {
    expect(padToWidth('請求', 6)).toBe('請求  ');
    expect(padToWidth('abc', 6)).toBe('abc   ');
    expect(padToWidth('abcdefg', 6)).toBe('abcdefg');
  });
});

describe('formatTable', () => {
  it('lines Japanese and English subjects up by display width', () => {
    const at = new Date('2025-01-02T03:04:05Z');
    const ticket = (tag: string, subject: string, reason: string) => ({
      ...newTicket({ messageId: `<${tag}@customer.example>`, from: `${tag}@customer.example`, subject, question: 'q', actor: 'poller' }, at),
      state: 'parked' as const,
      reason,
    });
    const table = formatTable(
      [ticket('ja', '請求書の再発行について', '要確認'), ticket('en', 'Invoice', 'check'), ticket('mix', 'Re: パスワード reset', 'r')],
      3,
    );
    const lines = table.split('\n');
    const reasonColumn = (line: string) => displayWidth(line.slice(0, line.lastIndexOf('  ') + 2));
    const header = lines[0]!;
    expect(displayWidth(header.slice(0, header.indexOf('REASON')))).toBe(reasonColumn(lines[1]!));
    expect(new Set(lines.slice(1).map(reasonColumn)).size).toBe(1);
    // A subject wider than its 36 columns is cut by columns, not characters.
    const long = formatTable([ticket('long', 'あ'.repeat(30), 'x')], 1).split('\n')[1]!;
    expect(long).toContain(`${'あ'.repeat(17)}…`);
  });
});
