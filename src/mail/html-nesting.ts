/**
 * Bounding the nesting of HTML before html-to-text reads it: its DOM walk recurses per level, so thousands of nested
 * elements (hostile mail, a broken export) overflow the stack or run for tens of seconds on one thread.
 */

// Real mail and real pages nest a few dozen elements deep. Tags deeper than this are dropped.
export const MAX_HTML_DEPTH = 200;
// Elements without a closing tag: they never deepen the tree.
const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr', 'param', 'keygen']);

/**
 * HTML with every tag below `maxDepth` levels of nesting removed (the text between them stays), in one linear pass
 * over the tags. Unbalanced markup only shifts where the cut happens; the text is never lost.
 */
export function limitHtmlNesting(html: string, maxDepth: number): { html: string; dropped: number } {
  let depth = 0;
  let dropped = 0;
  // A tag ends at its `>` and never runs past the next `<`: with `[^>]*` every unclosed `<a` was scanned to the end
  // of the text, quadratic in the number of them (2 MB of `<a<a<a…` took 12 minutes).
  const out = html.replace(/<(\/?)([a-zA-Z][\w:-]*)\b[^<>]*?(\/?)>/g, (tag, closing: string, name: string, selfClosing: string) => {
    const lower = name.toLowerCase();
    if (VOID_ELEMENTS.has(lower) || selfClosing) return depth >= maxDepth ? ((dropped += 1), ' ') : tag;
    if (closing) {
      const keep = depth <= maxDepth;
      depth = Math.max(0, depth - 1);
      if (keep) return tag;
      dropped += 1;
      return ' ';
    }
    depth += 1;
    if (depth <= maxDepth) return tag;
    dropped += 1;
    return ' ';
  });
  return { html: out, dropped };
}
