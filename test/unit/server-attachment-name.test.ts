/**
 * The names attachments are downloaded and saved under: a sender's file name can climb out of a folder, hide its real
 * extension behind a text-direction override, break a header with CR/LF or be longer than a file system takes; what
 * comes out is a plain last path segment, and the header carries it as RFC 6266 says (`filename*` for non-ASCII).
 */
import { describe, expect, it } from 'vitest';
import { attachmentDisposition, attachmentFileName, MAX_FILE_NAME_BYTES, numberedFileName } from '../../src/server/attachments.js';

describe('attachmentFileName', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['見積書.xlsx', '見積書.xlsx'],
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\Windows\\win.ini', 'win.ini'],
    ['C:\\Users\\yamada\\Desktop\\エラー画面.png', 'エラー画面.png'],
    ['..', 'attachment-3'],
    ['../', 'attachment-3'],
    ['.bashrc', 'bashrc'],
    ['evil\r\nSet-Cookie: a=b.txt', 'evil Set-Cookie_ a=b.txt'],
    ['say "hi".txt', 'say _hi_.txt'],
    ["it's (1).txt", "it's (1).txt"],
    ['a<b>c|d?e*f.txt', 'a_b_c_d_e_f.txt'],
    ['invoice\u202efdp.exe', 'invoicefdp.exe'],
    ['zero\u200bwidth\u2066.txt', 'zerowidth.txt'],
    ['nul\u0000byte\u001b[2J.txt', 'nulbyte[2J.txt'],
    ['name. . ', 'name'],
    ['   ', 'attachment-3'],
    ['CON', '_CON'],
    ['con.txt', '_con.txt'],
    ['LPT1.log', '_LPT1.log'],
    ['CONSOLE.txt', 'CONSOLE.txt'],
    ['e\u0301te\u0301.txt', 'été.txt'],
    [undefined, 'attachment-3'],
  ])('%j → %j', (name, safe) => {
    expect(attachmentFileName(name, 3)).toBe(safe);
  });

  it.each([
    ['ASCII', `${'a'.repeat(400)}.pdf`, '.pdf'],
    ['kanji', `${'報告'.repeat(200)}.xlsx`, '.xlsx'],
    ['emoji', `${'😀'.repeat(200)}.png`, '.png'],
    ['no extension', '😀'.repeat(200), ''],
    ['an extension that is too long to keep', `name.${'x'.repeat(300)}`, ''],
  ])('cuts a long %s name within the limit, keeping the extension and whole characters', (_what, name, ext) => {
    const safe = attachmentFileName(name, 1);
    expect(Buffer.byteLength(safe)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
    expect(Buffer.byteLength(safe)).toBeGreaterThan(MAX_FILE_NAME_BYTES - 8);
    expect(safe.endsWith(ext)).toBe(true);
    expect(safe).not.toMatch(/\p{Surrogate}/u);
  });
});

describe('attachmentDisposition', () => {
  it.each([
    ['report.pdf', 'attachment; filename="report.pdf"'],
    ["it's (1).txt", `attachment; filename="it's (1).txt"`],
    ['エラー画面.png', `attachment; filename="_.png"; filename*=UTF-8''%E3%82%A8%E3%83%A9%E3%83%BC%E7%94%BB%E9%9D%A2.png`],
    ['résumé.pdf', `attachment; filename="resume.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`],
    ['100%.txt', `attachment; filename="100_.txt"; filename*=UTF-8''100%25.txt`],
    ["é'(x)*.txt", `attachment; filename="e'(x)_.txt"; filename*=UTF-8''%C3%A9%27%28x%29_.txt`],
  ])('%j → %s', (name, header) => {
    expect(attachmentDisposition(attachmentFileName(name, 1), 1)).toBe(header);
  });
});

describe('numberedFileName', () => {
  it.each([
    ['report.pdf', 2, 'report (2).pdf'],
    ['passwd', 3, 'passwd (3)'],
    ['archive.tar.gz', 2, 'archive.tar (2).gz'],
  ])('%j, copy %d → %j', (name, copy, numbered) => {
    expect(numberedFileName(name, copy)).toBe(numbered);
  });

  it('stays within the length limit', () => {
    const name = attachmentFileName(`${'報'.repeat(300)}.pdf`, 1);
    const numbered = numberedFileName(name, 12);
    expect(Buffer.byteLength(numbered)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
    expect(numbered.endsWith(' (12).pdf')).toBe(true);
  });
});

// Not a speed target (security review 15): `[\s.]+$` rescanned a run of dots from each one (a sender's file name of
// 100,000 dots before a letter: seconds; a MIME header section may be 1 MB). Far from both a linear read and the
// blow-up, so a busy machine does not fail it.
describe('attachmentFileName: a run of dots inside the name', () => {
  it('reads it in time', { timeout: 120_000 }, () => {
    const started = performance.now();
    expect(attachmentFileName(`a${'.'.repeat(100_000)}x.`, 1)).toBe('a.x');
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
