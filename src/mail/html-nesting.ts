/**
 * Bounding the nesting of HTML before html-to-text reads it: its DOM walk recurses per level, so thousands of nested
 * elements (hostile mail, a broken export) overflow the stack or run for tens of seconds on one thread.
 */
import { Parser, Tokenizer } from 'htmlparser2';

// Real mail and real pages nest a few dozen elements deep. Tags deeper than this are dropped.
export const MAX_HTML_DEPTH = 200;
// Elements whose content the parser reads as text, not tags. Their tags stay even below the limit: without its
// `<textarea>` the text inside would be parsed as tags, and they hold no elements, so they deepen by one at most.
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'title', 'textarea', 'xmp']);
// htmlparser2 keeps its open elements in an array it grows at the front, so each level costs as much as the levels
// above it: 200,000 nested elements took 8 s. Past this many times the limit, measuring stops and the tags go.
const MEASURED_DEPTH_FACTOR = 5;

type TagRange = [start: number, end: number];

/**
 * HTML with every tag below `maxDepth` levels of nesting removed (the text between them stays), in linear passes.
 *
 * The depth is measured by htmlparser2, the parser html-to-text builds its tree with, in a streaming pass that keeps
 * no tree: a pattern over the tags saw a different tree (a `<` in a quoted attribute value or an attribute name hid a
 * tag from it, `/>` on a `<div>` opens an element in HTML, a close tag of nothing closes nothing), and each of those
 * let hostile mail nest without limit. Past {@link MEASURED_DEPTH_FACTOR} times the limit the rest loses all its
 * tags. Removing a tag can change how the parser reads the rest (after an `<svg>` it honours `/>`, even past the
 * svg's end), so the result is measured again, and markup still too deep then loses all its tags.
 */
export function limitHtmlNesting(html: string, maxDepth: number): { html: string; dropped: number } {
  const deep = deepTags(html, maxDepth);
  if (deep.ranges.length === 0 && deep.stoppedAt === undefined) return { html, dropped: 0 };
  const stop = deep.stoppedAt ?? html.length;
  const rest = tagRanges(html.slice(stop)).map(([start, end]): TagRange => [start + stop, end + stop]);
  const bounded = withoutTags(html, [...deep.ranges, ...rest]);
  const again = deepTags(bounded, maxDepth);
  if (again.ranges.length === 0 && again.stoppedAt === undefined) return { html: bounded, dropped: deep.ranges.length + rest.length };
  const every = tagRanges(html);
  return { html: withoutTags(html, every), dropped: every.length };
}

/** `html` with each range replaced by a space, so the words on either side stay apart. */
function withoutTags(html: string, ranges: readonly TagRange[]): string {
  let out = '';
  let from = 0;
  for (const [start, end] of ranges) {
    out += `${html.slice(from, start)} `;
    from = end + 1;
  }
  return out + html.slice(from);
}

/** What {@link deepTags} found: the tags to drop, and where it stopped measuring, if it did. */
interface DeepTags {
  ranges: TagRange[];
  /** Where the markup nested past {@link MEASURED_DEPTH_FACTOR} times the limit; the ranges cover what came before. */
  stoppedAt?: number;
}

/**
 * The source ranges (first and last index) of the tags written below `maxDepth`, in order. Implied opens and closes
 * have no source; dropping a deep element changes only what it would have closed implicitly, which is deeper still.
 */
function deepTags(html: string, maxDepth: number): DeepTags {
  const found: DeepTags = { ranges: [] };
  const measured = MEASURED_DEPTH_FACTOR * maxDepth;
  let depth = 0;
  const drop = (name: string, implied: boolean): void => {
    if (depth <= maxDepth || implied || RAW_TEXT_ELEMENTS.has(name)) return;
    const last = found.ranges.at(-1);
    // A source tag may report twice (a `</p>` of nothing opens and closes a p); it is dropped once.
    if (last === undefined || parser.startIndex > last[1]) found.ranges.push([parser.startIndex, parser.endIndex]);
  };
  const parser = new Parser(
    {
      onopentag(name, _attributes, implied) {
        depth += 1;
        drop(name, implied);
        if (depth > measured && found.stoppedAt === undefined) {
          found.stoppedAt = parser.endIndex + 1;
          parser.pause();
        }
      },
      onclosetag(name, implied) {
        drop(name, implied);
        depth -= 1;
      },
    },
    // As html-to-text parses (its `decodeEntities` default).
    { decodeEntities: true },
  );
  parser.end(html);
  return found;
}

/**
 * The source ranges of every tag but those of {@link RAW_TEXT_ELEMENTS}, read by htmlparser2's tokenizer alone (no
 * stack of open elements): without them no element nests in the markup.
 */
function tagRanges(html: string): TagRange[] {
  const ranges: TagRange[] = [];
  let open: { start: number; name: string } | undefined;
  const end = (endIndex: number): void => {
    if (open && !RAW_TEXT_ELEMENTS.has(open.name)) ranges.push([open.start, endIndex]);
    open = undefined;
  };
  const ignore = (): void => undefined;
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname: (start, endIndex) => (open = { start: start - 1, name: html.slice(start, endIndex).toLowerCase() }),
      onopentagend: end,
      onselfclosingtag: end,
      onclosetag: (start, endIndex) => {
        const name = html.slice(start, endIndex).toLowerCase();
        // The `>` may follow after junk (`</div x>`): the range runs to it.
        const close = html.indexOf('>', endIndex);
        if (!RAW_TEXT_ELEMENTS.has(name)) ranges.push([html.lastIndexOf('<', start), close < 0 ? html.length - 1 : close]);
      },
      onattribdata: ignore,
      onattribentity: ignore,
      onattribend: ignore,
      onattribname: ignore,
      oncdata: ignore,
      oncomment: ignore,
      ondeclaration: ignore,
      onend: ignore,
      onprocessinginstruction: ignore,
      ontext: ignore,
      ontextentity: ignore,
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return ranges;
}
