/**
 * Characters a reader does not see but a model reads: Unicode tag characters (U+E0000–E007F), which spell out ASCII
 * that no screen shows, so an instruction can ride in a question the operator reviews as harmless; bidirectional
 * controls, which make the text an operator sees differ from the text the model reads; and the other
 * Default_Ignorable_Code_Points (zero-width spaces, word joiners, soft hyphens, BOMs).
 *
 * Kept: the zero-width joiner and non-joiner and the variation selectors (U+200C, U+200D, U+FE00–FE0F and the
 * ideographic variation selectors U+E0100–E01EF). Emoji sequences, scripts that need ZWNJ and kanji variants use
 * them, they hide no text, and counting them would put a note on every mail with a ❤️.
 */
const INVISIBLE = /(?![\u200C\u200D\uFE00-\uFE0F\u{E0100}-\u{E01EF}])[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]/gu;

const BOM = '\uFEFF';

/**
 * True for a byte-order mark at the start of the text or of a line (a text part joined after another): what an
 * editor or a mail system writes before UTF-8 text, not text hidden from the reader. U+FEFF is also the zero-width
 * no-break space, so one inside a line, or a second one, still counts.
 */
function isLeadingBom(char: string, at: number, text: string): boolean {
  return char === BOM && (at === 0 || text[at - 1] === '\n');
}

/**
 * `text` without the characters a reader does not see (see the module comment), and how many were removed; a
 * byte-order mark at the start of the text or of a line is removed without being counted ({@link isLeadingBom}),
 * so it raises no hidden-text warning.
 */
export function removeInvisible(text: string): { text: string; removed: number } {
  let removed = 0;
  const cleaned = text.replace(INVISIBLE, (char: string, at: number) => {
    if (!isLeadingBom(char, at, text)) removed++;
    return '';
  });
  return { text: cleaned, removed };
}

// C0 controls but tab, newline and carriage return; DEL; C1 controls but NEL (U+0085), which is a line break.
const CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f]/g;
// Line breaks of other kinds than LF: vertical tab, form feed, NEL.
const OTHER_LINE_BREAKS = /[\u000b\u000c\u0085]/g;
// Every line break, runs of them as one: in text of one line they become a space.
const ANY_LINE_BREAKS = /[\n\r\u000b\u000c\u0085]+/g;

/**
 * `text` without control characters, and how many were removed. A mail client shows them as nothing, but printed to a
 * terminal (`review show`, `knowledge export -`, `search`) an escape sequence retitles it, clears it, writes the
 * clipboard (OSC 52) or shows a hyperlink whose target its text hides (OSC 8); NUL and DEL have no place in text
 * either. Tab stays. Line breaks stay as line breaks: CR and LF as they are (CRLF matters to a CSV), vertical tab, form
 * feed and NEL (U+0085) as LF, so the lines they separate do not run together. With `singleLine` (subjects, display
 * names, file names) every run of line breaks becomes one space: a name must not print as a line of its own under
 * `From:`. Line breaks are not counted as removed.
 */
export function removeControls(text: string, options: { singleLine?: boolean } = {}): { text: string; removed: number } {
  let removed = 0;
  const cleaned = text.replace(CONTROLS, () => {
    removed++;
    return '';
  });
  return { text: options.singleLine ? cleaned.replace(ANY_LINE_BREAKS, ' ') : cleaned.replace(OTHER_LINE_BREAKS, '\n'), removed };
}

/**
 * `value` (a subject, a display name, an attachment's file name, a header value quoted in a reason) without the characters a reader does not see
 * (`removeInvisible`) and control characters (`removeControls`; line breaks become spaces), trimmed, with how many of
 * each were removed, and well-formed (half a surrogate pair as U+FFFD, uncounted). Also for the subject and name of a
 * mail known only by its IMAP envelope.
 */
export function visibleHeaderText(value: string): { text: string; invisibleRemoved: number; controlsRemoved: number } {
  // Half a surrogate pair as U+FFFD, as undecodable bytes read: an encoded word in UTF-16 or UTF-7 decodes to whatever
  // code units its bytes spell, and encodeURIComponent (a download's file name) throws on half a pair.
  const visible = removeInvisible(wellFormed(value));
  const plain = removeControls(visible.text, { singleLine: true });
  return { text: plain.text.trim(), invisibleRemoved: visible.removed, controlsRemoved: plain.removed };
}

/** `text` with every half of a surrogate pair standing alone as U+FFFD (`String.prototype.toWellFormed`, ES2024). */
function wellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed();
}
