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

/** `text` without the characters a reader does not see (see the module comment), and how many were removed. */
export function removeInvisible(text: string): { text: string; removed: number } {
  let removed = 0;
  const cleaned = text.replace(INVISIBLE, () => {
    removed++;
    return '';
  });
  return { text: cleaned, removed };
}
