/**
 * The ASCII `filename=` of a download is what clients that ignore `filename*` (old ones, some download managers,
 * `curl -J`) save under: folding a name that passed the checks as Unicode to ASCII must not make it one they refuse
 * (a Windows device name) or give it an extension the real name lacks.
 */
import { describe, expect, it } from 'vitest';
import { attachmentDisposition, attachmentFileName } from '../../src/server/attachments.js';

/** The `filename="…"` parameter of a Content-Disposition. */
const asciiName = (header: string): string => /; filename="([^"]*)"/.exec(header)![1]!;

describe('the ASCII file name of a download keeps the rules the name was checked by', () => {
  it.each([
    // Full-width letters fold to a device name.
    ['ｃｏｎ.txt', 'ｃｏｎ.txt', 'attachment-4.txt'],
    ['ＬＰＴ１', 'ＬＰＴ１', 'attachment-4'],
    // A dot leader or a full-width full stop folds to a dot: an extension the name does not have.
    ['invoice\u2024pdf', 'invoice\u2024pdf', 'attachment-4'],
    ['ｒｅｐｏｒｔ．ｅｘｅ', 'ｒｅｐｏｒｔ．ｅｘｅ', 'attachment-4'],
    ['manual\u2024exe.txt', 'manual\u2024exe.txt', 'attachment-4.txt'],
    ['notes\u2025txt', 'notes\u2025txt', 'attachment-4'],
    // A full-width solidus folds to a path separator, a full-width colon to one Windows refuses.
    ['a／b.txt', 'a／b.txt', 'attachment-4.txt'],
    ['c：x.txt', 'c：x.txt', 'attachment-4.txt'],
    // A full-width dot before the extension folds to what older Windows drops, reaching a device name.
    ['con\uff0e.txt', 'con\uff0e.txt', 'attachment-4.txt'],
    // An ideographic space is a space already in the Unicode name.
    ['con\u3000.txt', '_con .txt', '_con .txt'],
    // Names that fold to no rule's concern keep their folded form.
    ['résumé.pdf', 'résumé.pdf', 'resume.pdf'],
    ['エラー画面.png', 'エラー画面.png', '_.png'],
    ['report.pdf', 'report.pdf', 'report.pdf'],
  ])('%j is named %j, offered as filename="%s"', (sent, safe, ascii) => {
    const name = attachmentFileName(sent, 4);
    expect(name).toBe(safe);
    const header = attachmentDisposition(name, 4);
    expect(asciiName(header)).toBe(ascii);
    // The ASCII name is itself one the rules leave as it is.
    expect(attachmentFileName(asciiName(header), 4)).toBe(asciiName(header));
  });
});

describe('a name that older Windows opens as a device, with a space or dot before its extension', () => {
  it.each([
    ['con .txt', '_con .txt'],
    ['CON  .log', '_CON .log'],
    ['nul..txt', '_nul..txt'],
    ['aux . .txt', '_aux . .txt'],
    ['com1 .txt', '_com1 .txt'],
    ['console .txt', 'console .txt'],
    ['con x.txt', 'con x.txt'],
  ])('%j → %j', (sent, safe) => {
    expect(attachmentFileName(sent, 4)).toBe(safe);
    expect(asciiName(attachmentDisposition(attachmentFileName(sent, 4), 4))).toBe(safe);
  });
});
