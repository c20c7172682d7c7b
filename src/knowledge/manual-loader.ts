/**
 * Loads the product manual: every Markdown, text, HTML, PDF and Word (.docx) file of a directory becomes sections
 * with a heading path (`章 > 節 > 項`), and each section is cut into overlapping chunks small enough for a search hit
 * to be read by the agent in full. Order and ids are deterministic, so reindexing unchanged files gives an identical
 * index.
 */
import { readFile } from 'node:fs/promises';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { decodeHTMLStrict } from 'entities';
import { compile, type DomNode, type FormatCallback, type HtmlToTextOptions } from 'html-to-text';
import { Parser } from 'htmlparser2';
import mammoth from 'mammoth';
import type { Logger } from '../logger.js';
import { limitHtmlNesting, MAX_HTML_DEPTH } from '../mail/html-nesting.js';
import type { ManualChunk, ProgressFn } from '../search/types.js';
import { errorMessage, KnowledgeError } from './errors.js';
import { PdfTooLargeError } from './pdf-budget.js';
import { pdfSections, ReaderVerdictError, readerCall } from './pdf-layout.js';
import { MAX_UNPACKED_TEXT_BYTES, OfficeArchiveTooLargeError, checkOfficeArchive } from './office-archive.js';
import { SectionCollector, type ManualSection } from './sections.js';
import { decodeText, listSources, normalizeNewlines, type SourceFile } from './files.js';

/** File types the manual loader reads; anything else in the directory is skipped. */
export const MANUAL_EXTENSIONS = ['.md', '.markdown', '.mdx', '.txt', '.html', '.htm', '.pdf', '.docx'] as const;

const RST_EXTENSION = '.rst';

/**
 * Documents an operator may put beside the manual in a format it is not read from, each with the fix. They are named
 * in a warning; other files not read (a docs repository's `Makefile`, `LICENSE`) are not, or every nightly reindex
 * of such a checkout would warn about them.
 */
const UNSUPPORTED_DOCUMENTS: ReadonlyMap<string, string> = new Map([
  // A Sphinx project's sources: the HTML it builds is read, with its headings, without the directives' markup. Named
  // only when the manual folder holds no page built from them (see `builtSources`).
  [RST_EXTENSION, 'build the HTML (Sphinx: make html) and put _build/html in the manual folder'],
  ...['.doc', '.docm', '.dot', '.dotx', '.dotm', '.rtf', '.odt', '.pages', '.wpd', '.jtd', '.jtdc'].map((ext) => [ext, 'save it as .docx or PDF'] as const),
  ...['.xls', '.xlsx', '.xlsm', '.xlsb', '.ods', '.numbers'].map((ext) => [ext, 'save it as PDF (questions and answers belong in QA_DIR as .xlsx or .csv)'] as const),
  ...['.ppt', '.pptx', '.pptm', '.pps', '.ppsx', '.odp'].map((ext) => [ext, 'save it as PDF'] as const),
]);

/** A manual file left out of the index, named by its path in the manual tree, with why and what to do. */
export interface SkippedManualFile {
  fileName: string;
  /** Why, then what to do, e.g. `.doc is not read; save it as .docx or PDF`. */
  reason: string;
}

/**
 * What a manual folder may hold that is not the manual: the packages of a documentation repository (thousands of
 * README files of libraries), the navigation files of docsify and GitBook, lists of links to every page that would
 * match every question by its page titles. What a Sphinx build holds beside its pages is {@link SPHINX_BUILD_NAMES}.
 */
export const MANUAL_SKIPPED_NAMES: ReadonlyMap<string, string> = new Map([
  ['node_modules', 'installed packages, not the manual'],
  ['_sidebar.md', 'site navigation (docsify)'],
  ['_navbar.md', 'site navigation (docsify)'],
  ['_coverpage.md', 'site cover (docsify)'],
  ['summary.md', 'table of contents (GitBook)'],
]);

/**
 * What a Sphinx build (`_build/html`) holds beside its pages: a copy of every reST source as `.rst.txt`, which would
 * be read as text beside its page, markup and all, and the general and module indexes, lists of every term and page.
 * Skipped only in a folder that holds the build's search index or inventory ({@link SPHINX_BUILD_MARKERS}): an
 * admin's own `_sources/` folder of PDFs is the manual.
 */
export const SPHINX_BUILD_NAMES: ReadonlyMap<string, string> = new Map([
  ['_sources', 'reST sources copied by Sphinx (the pages built from them are read)'],
  ['genindex.html', 'index of terms (Sphinx)'],
  ['py-modindex.html', 'index of modules (Sphinx)'],
]);

/** Files every Sphinx HTML build writes at its top, beside `_sources/` and `genindex.html`. */
export const SPHINX_BUILD_MARKERS = ['searchindex.js', 'objects.inv'] as const;

/** Default chunking, as in the design (CHUNK_SIZE / CHUNK_OVERLAP). */
export const DEFAULT_CHUNK_SIZE = 300;
export const DEFAULT_CHUNK_OVERLAP = 20;

/**
 * Split points from coarse to fine. Japanese has no spaces between words, so sentence (`。`) and clause (`、`)
 * marks come before the space; the empty string is the last resort for one enormous unbroken run.
 */
export const JAPANESE_SEPARATORS = ['\n\n', '\n', '。', '、', ' ', ''] as const;

export { HEADING_SEPARATOR, type ManualSection } from './sections.js';

/** Chunking parameters. */
export interface ChunkOptions {
  chunkSize?: number;
  chunkOverlap?: number;
}

/** What {@link loadManualChunks} read. */
export interface ManualLoadResult {
  /** Paths (relative to the manual directory, `/`-separated) of the files that were read, in index order. */
  files: string[];
  chunks: ManualChunk[];
  /** Files read per folder (`.` for the top). */
  perFolder: Record<string, number>;
  /** Folders (`.` for the top) whose whole subtree holds no readable manual file. */
  emptyFolders: string[];
  /**
   * Files left out (unreadable, over a budget, a document type not read, or without text), in path order; each was
   * warned about.
   */
  skipped: SkippedManualFile[];
}

/**
 * The error of a reindex that found no readable manual file: the directory, the types read, and the files skipped
 * with their reasons, so an operator with a folder of `.doc` files learns which to convert.
 */
export function noReadableManualMessage(dir: string, skipped: readonly SkippedManualFile[]): string {
  const message = `no readable manual file found in ${dir} or its subfolders (${MANUAL_EXTENSIONS.join(', ')})`;
  return skipped.length === 0 ? message : `${message}; skipped: ${skipped.map((s) => `${s.fileName} (${s.reason})`).join(', ')}`;
}

// A system call's errno code (EIO, EACCES, ENOENT, EMFILE), not zlib's Z_DATA_ERROR nor Node's ERR_* codes.
const ERRNO_CODE = /^E[A-Z0-9]+$/;

/**
 * True when `err` (or what it wraps) says nothing about the file's content: the disk or the permissions failed, the
 * file was replaced mid-run (ENOENT), the process ran out of descriptors (an errno `code` anywhere in the chain), or
 * our own code has a bug (a TypeError, RangeError or ReferenceError not wrapped by a reader library's call). Such a
 * file is not skipped: the reindex fails and the live index keeps serving it, where a skip would drop its content
 * from search as a successful rebuild. What pdf.js or mammoth threw, wrapped as a {@link ReaderVerdictError}, is a
 * verdict on the file whatever it is: mammoth throws a plain TypeError on a malformed part (bug review 39e, finding
 * 1). A plain {@link KnowledgeError} also wraps our own checks (the budgets), so it vouches for nothing it wraps
 * (bug review 39f, finding 4).
 */
export function isNotAboutTheFile(err: unknown): boolean {
  let inReader = false;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && ERRNO_CODE.test(code)) return true;
    // TextDecoder's verdict on the bytes is a TypeError too (under our "not UTF-8 or Shift_JIS" refusal).
    if (code === 'ERR_ENCODING_INVALID_ENCODED_DATA') return false;
    if (e instanceof ReaderVerdictError) inReader = true;
    else if (!inReader && (e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError)) return true;
  }
  return false;
}

/** Why a file could not be read (without its path) and what to do about it. */
function skipReason(err: unknown, file: SourceFile): string {
  const full = errorMessage(err);
  const message = full.startsWith(`${file.path}: `) ? full.slice(file.path.length + 2) : full;
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause instanceof PdfTooLargeError || cause instanceof OfficeArchiveTooLargeError) return `${message}; split it into smaller files, or remove it`;
  // pdf.js says only "No password given".
  if (cause instanceof Error && cause.name === 'PasswordException') return 'cannot read PDF: it is password-protected; save a copy without a password, or remove it';
  // A library's own message ends a sentence ("Invalid PDF structure."); the fix follows it after a semicolon.
  if (/^cannot read (?:PDF|Word document): /.test(message) && !message.includes('; ')) return `${message.replace(/\.$/, '')}; re-export it as PDF or .docx, or remove it`;
  // Our own refusals (too many pages, not UTF-8 text) already say what to do; anything else gets the generic fix.
  return err instanceof KnowledgeError ? message : `${message}; fix it or remove it`;
}

/**
 * A recursive splitter that keeps each separator at the end of the piece before it. LangChain's own splitter keeps
 * it at the start of the next piece, which would open chunks with a stray `。` or `、`. The final character-level
 * split goes by code point so a surrogate pair (e.g. an emoji) is never cut in half.
 */
class TrailingSeparatorSplitter extends RecursiveCharacterTextSplitter {
  protected override splitOnSeparator(text: string, separator: string): string[] {
    if (separator === '') return Array.from(text);
    const escaped = separator.replace(/[/\-\\^$*+?.()|[\]{}]/g, '\\$&');
    return text.split(new RegExp(`(?<=${escaped})`)).filter((s) => s !== '');
  }
}

/** The splitter used for manual sections (exported so tests and tools chunk exactly as reindexing does). */
export function createManualSplitter(options: ChunkOptions = {}): RecursiveCharacterTextSplitter {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunkOverlap = options.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunk size must be a positive integer, got ${chunkSize}`);
  if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
    throw new RangeError(`chunk overlap must be an integer from 0 to chunk size - 1 (${chunkSize - 1}), got ${chunkOverlap}`);
  }
  return new TrailingSeparatorSplitter({ chunkSize, chunkOverlap, separators: [...JAPANESE_SEPARATORS], keepSeparator: true });
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/**
 * The marker (```` ``` ````, `~~~~`) when the line opens or closes a code fence. A backtick fence's info string cannot
 * hold a backtick (CommonMark), so ```` ``` x=1 ``` ```` on one line is a code span in prose, not a fence that would
 * take the rest of the page for code (no headings, no cleaning).
 */
function fenceMarker(line: string): string | undefined {
  const match = FENCE.exec(line);
  if (!match?.[1]) return undefined;
  return match[1][0] === '`' && line.includes('`', match[0].length) ? undefined : match[1];
}

// Tags of HTML written inside documentation-site Markdown; a placeholder such as `<id>` in running text is kept.
// Every pattern below stops scanning at the character that could start its next match (`[^<>]`, `[^[\]]`,
// `[^()]`), so a long line full of unclosed `<a`, `[` or `![` costs linear time, not quadratic.
// Tags and interpolations never reach across a masked code span (`[^…\uE010]`, see CODE_SPAN_MASK): ``{{ `SiteId` }}``
// or ``List<Item `x`>`` is no interpolation or tag, and removing it lost the code with it. (A backtick in a quoted
// attribute value, ``<span title="`x`">``, would make a real tag; it now stays as text: noise, where the other way
// lost text.)
const HTML_TAG =
  /<\/?(?:a|abbr|b|br|center|code|details|div|em|figcaption|figure|font|h[1-6]|hr|i|iframe|img|kbd|li|mark|ol|p|picture|pre|s|small|source|span|strong|sub|summary|sup|table|tbody|td|tfoot|th|thead|tr|u|ul|video|Badge)\b[^<>\uE010]*>/gi;

// Components of Vue/VitePress and MDX (`<Tabs>`, `<TabItem value="mac">`, `<el-button type="primary">`): PascalCase
// or hyphenated names. Such a tag goes when it cannot be a placeholder in running text: it has attributes, closes
// itself, is a closing tag, or its name is closed somewhere in the page (see `closedComponents`).
const COMPONENT_TAG = /<(\/?)([A-Z][\w.]*|[a-z][a-z0-9]*(?:-[a-z0-9]+)+)(\s[^<>\uE010]*?)?(\/?)>/g;
// Images (`![alt](src)`, `![alt][ref]`): the alt text may hold one level of brackets (`![… #barcamp [msg]?"](…)`,
// retrieval audit 11), which escaped a pattern that took none. It stops at the next `![` (`!(?!\[)`), so a line of
// many `![[x]` is scanned once, not from each of them; every step's first character picks one branch.
const IMAGE_INLINE = /!\[(?:[^[\]!]|!(?!\[)|\[[^[\]]*\])*\]\([^()]*\)/g;
const IMAGE_REFERENCE = /!\[(?:[^[\]!]|!(?!\[)|\[[^[\]]*\])*\]\[[^[\]]*\]/g;
// Vue template interpolation (`{{ $frontmatter.title }}`), never text a reader sees, unless it is a bare name: a
// product's own placeholder (`{{SiteId}}` in an SQL template) is what a customer types and asks about.
const INTERPOLATION = /\{\{[^{}\uE010]*\}\}/g;
const PLACEHOLDER = /^\{\{\s*[\p{L}\p{N}_]+\s*\}\}$/u;
// Hugo shortcodes (`{{% name %}}`, `{{< name >}}`). One without arguments inside a sentence, which the page never
// closes (`{{%service%}}にログインできません。`), stands for a word the site defines, mostly a product's name: its name
// is the only trace of that word left, and dropping it left the sentence without its subject (retrieval audit 12).
// A paired one (`{{% note %}}…{{% /note %}}`), one with arguments and one alone on its line (`{{< toc >}}`) is markup.
const HUGO_NAME_SHORTCODE = /^\{\{(?:%\s*([\p{L}\p{N}_-]+)\s*%|<\s*([\p{L}\p{N}_-]+)\s*>)\}\}$/u;
const HUGO_CLOSING_SHORTCODE = /\{\{[%<]\s*\/\s*([\p{L}\p{N}_-]+)/gu;
// Argument-less shortcodes that lay the page out (a line break in a table cell, a rule, a table of contents, a list of
// child pages) and so are no word: their names became words of the text (`line one{{< br >}}line two` → `line
// onebrline two`, bug review R3). A short list of the common ones; any other name is more likely a site's word.
const HUGO_FORMATTING_SHORTCODES: ReadonlySet<string> = new Set(['br', 'hr', 'clear', 'toc', 'children', 'pagebreak']);
// What may precede a shortcode on a line it is alone on: indentation, quote markers and a list item's marker
// (`- {{< toc >}}`, `> 1. {{% children %}}`). Bounded repeats, tried once at the line's start.
const LINE_MARKERS = /^[ \t]{0,16}(?:>[ \t]{0,4}){0,8}(?:(?:[-*+]|\d{1,9}[.)])[ \t]{1,4})?/;
// A letter or digit of a script that spaces its words, which a word put next to it would be glued to. Not kana or
// kanji: Japanese writes a name against them (`serviceにログイン`), and the search splits there all the same.
const WORD_CHARACTER = /(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])[\p{L}\p{N}]/u;
// MDX module lines (Docusaurus): `import Tabs from '@theme/Tabs';`, `export const x = …`.
// One `\s` after `import`, not `\s+`: two quantifiers that both take spaces made a long line of spaces catastrophic.
const MDX_MODULE_LINE = /^(?:import\s(?:[^'"]*\sfrom\s*)?['"][^'"]+['"];?|export\s+(?:const|let|var|function|default)\b.*)\s*$/;
// Table-of-contents markers of VitePress and Markdown-it (`[[toc]]`, `[toc]`).
const TOC_MARKER = /^\s*\[\[?toc\]\]?\s*$/i;
// MkDocs admonitions (`!!! note "タイトル"`, collapsible `??? tip`): the marker goes, a quoted title stays.
const MKDOCS_ADMONITION = /^(\s*)(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+[\w-]+)*(?:[ \t]+"([^"]*)")?[ \t]*$/;
// GitHub alerts (`> [!NOTE]`): the marker is no text of the page.
const GITHUB_ALERT = /^(\s*(?:>\s*)+)\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*/i;
// A heading's explicit anchor or attributes: `## 設定 {#settings}` (VitePress, Docusaurus), Pandoc's `{#id .class}`,
// `{-}` and `{.unlisted}`, kramdown's attribute list `{: id=testing }` (docsify translations of kramdown sites). A
// placeholder (`{name}`) or `{-1}` is no attribute list. Every branch stops at the next brace, so a line of many `{`
// is scanned once.
const HEADING_ANCHOR = /\{(?:#[^{}]*|\.[\w-][^{}]*|-(?:\s[^{}]*)?|:[^{}]*)\}\s*$/;
// MkDocs content tabs (`=== "Windows"`, `===! "x"` opening a new tab group, `===+ "x"` selected): the marker goes,
// the label stays. A setext underline (`===` alone) has no quoted label.
const MKDOCS_TAB = /^\s*===[!+]{0,2}[ \t]+"([^"]*)"[ \t]*$/;
// MkDocs keys (`++ctrl+c++` shows "Ctrl+C"): a key name right after the opening `++`, so `C++ と C++` and `i++` stay,
// and never right after a letter or digit of any script (`値++1++の` is an increment in prose; `、++alt++` is a key).
const MKDOCS_KEYS = /(?<![\p{L}\p{N}_+])\+\+([A-Za-z0-9][\w-]*(?:\+[\w-]+)*)\+\+/gu;
// Icon shortcodes of MkDocs Material (`:material-alpha-o-box:`); only the icon sets' prefixes, so `10:30:00` stays.
const MKDOCS_ICON = /:(?:material|fontawesome|octicons|simple)-[\w-]+:/g;
// A footnote reference (`[^1]`); its definition's text is kept (see FOOTNOTE_DEFINITION). Only a label the page
// defines makes a reference (GFM shows any other literally): `[^0-9]` or `[^\s]+` in prose is a regex, not markup.
// The label takes no `[`, or a line of `[^[^[^…` was rescanned from every `[^` (quadratic).
const FOOTNOTE_REFERENCE = /\[\^([^\]\s[\uE010]+)\]/g;
// A footnote's definition (`[^1]: text`): the label goes, the text stays, unlike a link reference definition's target.
const FOOTNOTE_DEFINITION = /^\s{0,3}\[\^([^\]\s[]+)\]:[ \t]*/;
// Attributes of a code fence's opening line (`linenums="1"`, `hl_lines="2 3"`, `title="app.py"`).
// The lookbehind starts a match only at a run's first space, or a long run of spaces would be rescanned from each one.
const FENCE_ATTRIBUTE = /(?<![ \t])[ \t]+([\w-]+)=("[^"]*"|'[^']*'|[^\s"']\S*)/g;
// Code spans are masked by `\uE010n\uE011` (their index) while a line's prose is cleaned; private-use code points never
// occur in real manuals, and any in the prose are dropped so they cannot pose as a mask.
const CODE_SPAN_MASK = /\uE010(\d+)\uE011/;

// Blocks whose content is code the page runs or styles it with (`<script setup>`, `<style scoped>`), never text.
const CODE_BLOCK_START = /^\s*<(script|style)\b[^>]*>/i;

// Adobe Experience League's markers of a UI label or a product name (`[!UICONTROL 新規]`, `[!DNL Analytics]`): the
// label is what the page shows. Stops at the next bracket (no rescan) and never reaches into a masked code span.
const EXPERIENCE_LEAGUE_MARKER = /\[!(?:UICONTROL|DNL)\s([^[\]\uE010]*)\]/g;
// A link reference definition (`[ref]: https://…`), read on one line at a time.
const REFERENCE_DEFINITION = /^\s{0,3}\[([^\]]+)\]:\s*\S/;
// A reference link `[text][label]` (or collapsed `[text][]`).
const REFERENCE_LINK = /\[([^[\]]+)\]\[([^[\]]*)\]/g;
// A letter or digit of ASCII glued to a `[`: `SQLSTATE[HY000][2002]`, `options[0][1]` are an error code and an
// index, not a cross-reference. Japanese prose has no spaces, so a kana or kanji before a link does not count.
const GLUED_TO_WORD = /[A-Za-z0-9_]$/;

/** How CommonMark matches a link label: case and runs of white space do not count. */
function linkLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The labels of the link reference definitions the page holds (`[ref]: https://…`). */
function referenceLabels(lines: readonly string[]): Set<string> {
  const labels = new Set<string>();
  for (const line of lines) {
    const definition = REFERENCE_DEFINITION.exec(line);
    if (definition?.[1]) labels.add(linkLabel(definition[1]));
  }
  return labels;
}

/**
 * `[text][label]` as a reader sees it. A label the page defines makes a link (its text stays). Without a definition
 * CommonMark shows the brackets: glued to an ASCII word (`SQLSTATE[HY000][2002]`) it is an error code or an index
 * and stays whole; otherwise it is a cross-reference a site generator resolves (MkDocs autorefs `[設定][settings]`),
 * whose text stays without the id.
 */
function referenceLinkText(link: string, text: string, label: string, before: string, references: ReadonlySet<string>): string {
  if (references.has(linkLabel(label || text))) return text;
  return GLUED_TO_WORD.test(before) ? link : text;
}

/** The labels of the footnotes the page defines (`[^1]: text`), so only their references go. */
function footnoteLabels(markdown: string): Set<string> {
  return new Set(Array.from(markdown.matchAll(new RegExp(FOOTNOTE_DEFINITION.source, 'gm')), (m) => m[1]!));
}

/**
 * Text the page shows as it is, not as a heading: a content tab's label (`=== "# Windows"`), a footnote's text
 * (`[^1]: # 注記`), an admonition's or container's title. Pushed with its `#` marks, it became a heading: the empty
 * section under it was dropped with its text, and it took the front matter title's place.
 */
function plainText(text: string): string {
  return text.replace(/^\s{0,3}#{1,6}[ \t]+/, '');
}

/**
 * Names of the components closed somewhere in the page (`</Tabs>`), so their opening tags go even without attributes,
 * and of the Hugo shortcodes closed there (`{{% /note %}}`, kept as `{{note`), which are markup, not a name's stand-in.
 */
function closedComponents(markdown: string): Set<string> {
  const names = Array.from(markdown.matchAll(COMPONENT_TAG), (m) => (m[1] ? m[2]! : '')).filter(Boolean);
  for (const closing of markdown.matchAll(HUGO_CLOSING_SHORTCODE)) names.push(`{{${closing[1]!}`);
  return new Set(names);
}

/**
 * One line of Markdown prose (not code) without image tags, link targets, HTML and component tags, expression
 * interpolations, footnote references and MkDocs icons and key markup, with HTML entities decoded (`&nbsp;`, `&lt;`);
 * code spans are kept whole. The code spans are masked, not cut out, while the prose is cleaned, so a link whose text
 * is code (``[`Foo`](foo.md)``) still loses its target.
 */
function cleanMarkdownLine(
  line: string,
  closed: ReadonlySet<string>,
  footnotes: ReadonlySet<string>,
  references: ReadonlySet<string>,
  { html = true }: { html?: boolean } = {},
): string {
  const parts = line.split(/(`+[^`]*`+)/);
  const spans = parts.filter((_, i) => i % 2 === 1);
  const masked = parts.map((part, i) => (i % 2 === 1 ? `\uE010${(i - 1) / 2}\uE011` : part.replace(/[\uE010\uE011]/g, ''))).join('');
  const withoutLinks = masked
    // A link's or image's target may hold a masked span: CommonMark reads the target after `](` as it is, so
    // ``[a](u "the `x` flag")`` is a link whose title (not shown) holds backticks.
    .replace(IMAGE_INLINE, '')
    .replace(IMAGE_REFERENCE, '')
    // Before links: `[[!UICONTROL 設定]](settings.md)` is a link whose text is the label.
    .replace(EXPERIENCE_LEAGUE_MARKER, '$1')
    // Before links: `[^1][^2]` would read as a reference link.
    .replace(FOOTNOTE_REFERENCE, (reference, label: string) => (footnotes.has(label) ? '' : reference))
    .replace(/\[([^[\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, '$1')
    .replace(REFERENCE_LINK, (link: string, text: string, label: string, at: number, whole: string) =>
      referenceLinkText(link, text, label, whole.slice(Math.max(0, at - 1), at), references),
    );
  const withoutTags = html
    ? withoutLinks
        .replace(/<img\b[^<>]*>/gi, '')
        .replace(HTML_TAG, '')
        .replace(COMPONENT_TAG, (tag, closing: string, name: string, attributes: string | undefined, selfClosing: string) =>
          closing || selfClosing || attributes?.trim() || closed.has(name) ? '' : tag,
        )
    : withoutLinks;
  // Once per line, not per match: a line of many shortcodes is not trimmed again for each. A list or quote marker
  // before it does not make a shortcode less alone on its line.
  const trimmed = withoutTags.slice(LINE_MARKERS.exec(withoutTags)![0].length).trim();
  const cleaned = withoutTags
    .replace(INTERPOLATION, (interpolation, at: number, whole: string) => {
      if (PLACEHOLDER.test(interpolation)) return interpolation;
      const shortcode = HUGO_NAME_SHORTCODE.exec(interpolation);
      const name = shortcode?.[1] ?? shortcode?.[2];
      if (!name || trimmed === interpolation || closed.has(`{{${name}`)) return '';
      // Spaces keep it apart from the words it stood between (`line one{{< br >}}line two`).
      const before = WORD_CHARACTER.test(whole.charAt(at - 1)) ? ' ' : '';
      const after = WORD_CHARACTER.test(whole.charAt(at + interpolation.length)) ? ' ' : '';
      // A formatting one is no word; a name becomes its words, as a reader would type them (`cybozu_com` → `cybozu com`).
      if (HUGO_FORMATTING_SHORTCODES.has(name.toLowerCase())) return before && after ? ' ' : '';
      return `${before}${name.replace(/[_-]+/g, ' ')}${after}`;
    })
    .replace(MKDOCS_ICON, '')
    .replace(MKDOCS_KEYS, (_, keys: string) => keys.split('+').map((key) => key.charAt(0).toUpperCase() + key.slice(1)).join('+'));
  // Entities are decoded in the prose only, after the masks are found, so a `&#xE010;` cannot pose as one. In HTML
  // (`html: false`) they are left to the HTML reader, which decodes them once, and a code span is escaped for it: its
  // `<div>` is text the reader sees, not a tag.
  return cleaned
    .split(CODE_SPAN_MASK)
    .map((part, i) => (i % 2 === 1 ? (html ? (spans[Number(part)] ?? '') : escapeHtmlText(spans[Number(part)] ?? '')) : html ? decodeHTMLStrict(part) : part))
    .join('');
}

/** Text as HTML that shows it as it is. */
function escapeHtmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** A table row's cells, split at the pipes not escaped (`\|`), the empty ends of `| a | b |` included. */
function tableCells(line: string): string[] {
  return line.trim().split(/(?<!\\)\|/);
}

/** How many cells a table row has, not counting the empty ends of its outer pipes. */
function tableCellCount(line: string): number {
  const cells = tableCells(line);
  return cells.length - (cells[0]?.trim() === '' ? 1 : 0) - (cells.length > 1 && cells.at(-1)?.trim() === '' ? 1 : 0);
}

/** True for a table's delimiter row (`| :--- | :---: |`, `--- | ---`): at least one pipe, every cell dashes. */
function isTableDelimiterRow(line: string): boolean {
  if (!line.includes('|')) return false;
  const cells = tableCells(line).map((cell) => cell.trim());
  const inner = cells.slice(cells[0] === '' ? 1 : 0, cells.length > 1 && cells.at(-1) === '' ? -1 : undefined);
  return inner.length > 0 && inner.every((cell) => /^:?-+:?$/.test(cell));
}

/**
 * A table row without the spaces that line its cells up in the source: `|  a   | b  |` reads `| a | b |`. A wide
 * table's padding otherwise filled the chunk budget, cutting one table into dozens of chunks of mostly spaces.
 */
function compactTableRow(line: string): string {
  const indent = /^\s*/.exec(line)?.[0] ?? '';
  // An empty cell reads `| |`, not `|  |`.
  return indent + tableCells(line).map((cell) => cell.trim()).join(' | ').replace(/(?<=\|) {2}(?=\|)/g, ' ').trim();
}

/** A code fence's opening line without its attributes: the language stays, and a title, which the page shows. */
function fenceOpening(line: string, marker: string): string {
  const at = line.indexOf(marker) + marker.length;
  const info = line.slice(at).replace(FENCE_ATTRIBUTE, (_, name: string, value: string) =>
    name === 'title' ? ` ${value.replace(/^(["'])(.*)\1$/, '$2')}` : '',
  );
  return line.slice(0, at) + info.trimEnd();
}

// A component tag opening a line (`<MkSchemaViewerItemObject :schema="{`), whose attributes may run over several lines
// (Nuxt Content's MDC, Vue and MDX pages): its name as COMPONENT_TAG takes it, then a space or the line's end.
const COMPONENT_TAG_START = /^\s*<(?:[A-Z][\w.]*|[a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?=\s|$)/;
// The same tag opening after prose on its line (`イベントの内容: <MkSchemaViewerItemObject :schema="{`), which stayed as
// text (retrieval audit 12); only the line's last one is tried (see {@link lastComponentTagOpening}).
const COMPONENT_TAG_OPENING = /<(?:[A-Z][\w.]*|[a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?=\s|$)/g;

/**
 * Where the last component tag opening on a line starts and its name ends, outside code spans (an even number of
 * backticks before it), or undefined. Only the last: a tag that runs on to the next line is the line's last one,
 * unless it quotes another, and one try per line keeps the search linear.
 */
function lastComponentTagOpening(line: string): { start: number; column: number } | undefined {
  let found: { start: number; column: number } | undefined;
  for (const opening of line.matchAll(COMPONENT_TAG_OPENING)) found = { start: opening.index, column: opening.index + opening[0].length };
  if (!found) return undefined;
  let ticks = 0;
  for (let c = 0; c < found.start; c++) if (line[c] === '`') ticks++;
  return ticks % 2 === 0 ? found : undefined;
}
// How far a component tag's attributes are read before it is left alone as text: a real one (a schema written inline)
// runs to some dozens of lines; an unclosed `<Foo a="` must not make every later line part of it.
const MAX_COMPONENT_TAG_LINES = 200;
const MAX_COMPONENT_TAG_CHARS = 20_000;
const ATTRIBUTE_NAME_START = /[A-Za-z_:@#.]/;
const ATTRIBUTE_NAME_CHAR = /[\w:.@#-]/;
const UNQUOTED_VALUE_CHAR = /[^\s"'=<>`]/;

/** Where a tag ends ({@link componentTagEnd}): the line of its `>` and the column after it; or the line it failed on. */
type TagEnd = { end: true; line: number; column: number } | { end: false; line: number };

/**
 * Reads a component tag's attributes from `column` of line `start` on, over as many lines as they run (within
 * {@link MAX_COMPONENT_TAG_LINES} and {@link MAX_COMPONENT_TAG_CHARS}), as HTML reads them: names of ASCII letters and
 * Vue's `:`, `@`, `#`, `.`; values quoted (a `>` inside stays inside) or unquoted. Anything else (a word of prose, a
 * `<`, `+`) is no tag: the lines stay text. A character at a time, once each, so it costs what it reads.
 *
 * A tag opening after prose on its line (`midLine`) is held to more (bug review R3): `Use the value <Max or less`,
 * then a blank line and `> Note: …`, read as a tag whose attributes were `or less`, took the note with it. It must
 * show attribute syntax: its first attribute is given a value (`type=`, `:schema=`, `@click=`) or is a Vue directive
 * (`v-if`), or its opening line ends inside a value (after `=` or in quotes). And it never runs past a blank line.
 */
function componentTagEnd(lines: readonly string[], start: number, column: number, { midLine = false } = {}): TagEnd {
  // 0 between attributes, 1 in a name, 2 after a name, 3 before a value, 4 in a quoted value, 5 in an unquoted one,
  // 6 after a `/`.
  let state = 0;
  let quote = '';
  let read = 0;
  // Whether the first attribute shows attribute syntax (undefined until it is known), and whether the opening line
  // ended inside a value; both only matter mid-line.
  let firstAttribute: boolean | undefined;
  let endsInValue = false;
  let names = 0;
  // Mid-line, a tag whose first attribute had no value is prose, unless its opening line ended inside a value.
  const prose = (): boolean => midLine && firstAttribute !== true && !endsInValue;
  for (let l = start; l < lines.length && l - start < MAX_COMPONENT_TAG_LINES; l++) {
    const text = lines[l]!;
    if (midLine && l > start && text.trim() === '') return { end: false, line: l };
    // The line break counts as a space between attributes (and is part of a quoted value).
    for (let c = l === start ? column : 0; c <= text.length; c++) {
      if (++read > MAX_COMPONENT_TAG_CHARS) return { end: false, line: l };
      const ch = c < text.length ? text[c]! : '\n';
      const space = /\s/.test(ch);
      if (midLine && l === start && c === text.length) {
        endsInValue = state === 3 || state === 4;
        // Known to be prose already: the opening line's first attribute had no value and no value is open.
        if (firstAttribute === false && !endsInValue) return { end: false, line: l };
      }
      if (state === 4) {
        if (ch === quote) state = 0;
        continue;
      }
      if (state === 5 && UNQUOTED_VALUE_CHAR.test(ch)) continue;
      if (state === 1 && ATTRIBUTE_NAME_CHAR.test(ch)) continue;
      if (state === 6) {
        if (ch !== '>' || prose()) return { end: false, line: l };
        return { end: true, line: l, column: c + 1 };
      }
      if (state === 3) {
        if (space) continue;
        if (ch === '"' || ch === "'") {
          quote = ch;
          state = 4;
        } else if (UNQUOTED_VALUE_CHAR.test(ch)) state = 5;
        else return { end: false, line: l };
        continue;
      }
      // Between attributes, or after a name or an unquoted value.
      if (space) state = state === 1 ? 2 : state === 5 ? 0 : state;
      else if (ch === '>') return prose() ? { end: false, line: l } : { end: true, line: l, column: c + 1 };
      else if (ch === '/' && state !== 5) state = 6;
      else if (ch === '=' && (state === 1 || state === 2)) {
        firstAttribute ??= true;
        state = 3;
      } else if (ATTRIBUTE_NAME_START.test(ch) && state !== 5) {
        // The first name is a Vue directive or waits for its `=`; a second name means the first had no value.
        if (names++ === 0) firstAttribute = text.startsWith('v-', c) ? true : undefined;
        else firstAttribute ??= false;
        state = 1;
        // Past the opening line, nothing more can make it a tag.
        if (l > start && prose() && firstAttribute === false) return { end: false, line: l };
      } else return { end: false, line: l };
    }
  }
  return { end: false, line: Math.min(lines.length, start + MAX_COMPONENT_TAG_LINES) - 1 };
}

// A raw HTML table in Markdown (`<table>` opening a line, as CommonMark's HTML blocks are written), read as the HTML
// reader reads one; its tags, and how deep tables nest in it, counted to find its `</table>`.
const HTML_TABLE_START = /^\s*<table(?=[\s>])/i;
const HTML_TABLE_TAG = /<(\/?)table(?=[\s>/])/gi;
// How far a table is looked for its end before its lines are left to the line-by-line cleaning.
const MAX_HTML_TABLE_LINES = 2_000;
const MAX_HTML_TABLE_CHARS = 200_000;
const HEADING_MARKS = /\uE000[1-3]\uE001/g;

/**
 * The line and column after the `</table>` closing the table that opens line `start`, within the bounds above; or,
 * without one, the last line read. A code fence or an indented code block ends the search unclosed: a `</table>` in
 * a later code sample (「To end a table, write: ```html </table> ```」) closed a table left open, which took the prose
 * between and the fence's opening line with it (bug review B2). Unclosed, its lines are cleaned one by one.
 */
function htmlTableEnd(lines: readonly string[], start: number, indentedCode: readonly boolean[]): TagEnd {
  let depth = 0;
  let read = 0;
  let l = start;
  for (; l < lines.length && l - start < MAX_HTML_TABLE_LINES; l++) {
    // An indented code sample ends it as a fence does: its `</table>` took the prose before it (retrieval audit 12).
    if (l > start && (fenceMarker(lines[l]!) !== undefined || indentedCode[l])) return { end: false, line: l - 1 };
    read += lines[l]!.length + 1;
    if (read > MAX_HTML_TABLE_CHARS) return { end: false, line: l };
    for (const tag of lines[l]!.matchAll(HTML_TABLE_TAG)) {
      depth += tag[1] ? -1 : 1;
      if (depth === 0) {
        const close = lines[l]!.indexOf('>', tag.index + tag[0].length);
        return close < 0 ? { end: false, line: l } : { end: true, line: l, column: close + 1 };
      }
    }
  }
  return { end: false, line: l - 1 };
}

/**
 * A raw HTML table's text as the HTML reader lays it out (html-to-text's data table, {@link boundedDataTable}): a row
 * per line, its cells apart. With the tags only removed, a row ran together (「パブリックホームフォロワー」, retrieval
 * audit 11) and every tag-only line stayed as an empty one. Markdown in the cells (GitHub renders a cell's text after a
 * blank line as Markdown) is cleaned first, line by line as any other text, its tags and entities left to the HTML
 * reader: a link keeps its text without its target, an image goes (its `https://…` and brackets were search words).
 */
function htmlTableText(html: string, cleanMarkup: (line: string) => string): string[] {
  const markdownCleaned = html.split('\n').map(cleanMarkup).join('\n');
  const text = pageWithContentToText(limitHtmlNesting(markdownCleaned, MAX_HTML_DEPTH).html).replace(HEADING_MARKS, '');
  return normalizeNewlines(text)
    .split('\n')
    .map((line) => plainText(line.trimEnd()))
    .filter((line) => line.trim() !== '');
}

// A list item's marker (`-`, `*`, `+`, `1.`, `1)`), up to three spaces in.
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;

/** How many columns a line's indent spans, a tab to the next multiple of four (CommonMark). */
function indentColumns(line: string): number {
  let columns = 0;
  for (const ch of line) {
    if (ch === ' ') columns++;
    else if (ch === '\t') columns += 4 - (columns % 4);
    else break;
  }
  return columns;
}

/**
 * Which lines belong to an indented code block (CommonMark): four columns in under a blank line, and the lines after
 * it as deep in, blank lines between them; not inside a list, whose content is indented as deep (MkDocs writes a list
 * item's paragraphs four spaces in). A list runs from an item's line until a line back at the margin after a blank
 * line. Fenced code is skipped as the page's loop skips it. The table and component-tag paths of
 * {@link cleanMarkdown} leave these lines to the line-by-line cleaning, as they leave a fence's: a `<table>` in a code
 * sample was laid out as a table (bug review B2).
 */
function indentedCodeLines(lines: readonly string[]): boolean[] {
  const code = lines.map(() => false);
  let fence: string | undefined;
  let previousBlank = true;
  let inCode = false;
  let inList = false;
  for (const [i, line] of lines.entries()) {
    const marker = fenceMarker(line);
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      previousBlank = false;
      continue;
    }
    if (line.trim() === '') {
      previousBlank = true;
      continue;
    }
    const indent = indentColumns(line);
    if (indent >= 4) {
      inCode ||= previousBlank && !inList;
      code[i] = inCode;
    } else {
      inCode = false;
      if (marker !== undefined) fence = marker;
      if (LIST_ITEM.test(line)) inList = true;
      else if (indent === 0 && previousBlank) inList = false;
    }
    previousBlank = false;
  }
  return code;
}

/**
 * Turns documentation-site Markdown (VitePress, VuePress, Docusaurus, MkDocs) into the text a reader sees, so that
 * markup never becomes search words: YAML front matter goes (its `title` heads the page when it has no `#` heading),
 * container fences (`::: tip`, `:::warning`, `:::`) go but a custom container title stays, HTML comments, image
 * tags, link reference definitions and link targets go, link texts and headings stay (`[a][b]` without a definition of
 * `b` is a link only when not glued to a word: `SQLSTATE[HY000][2002]` stays whole). What a site generator adds
 * goes too: `<script>` and `<style>` blocks, MDX `import`/`export` lines, component tags (their inner text stays; a
 * tag whose attributes run over several lines, up to its `>`),
 * `{{ }}` interpolations (a bare name, `{{SiteId}}`, stays: it is a product's placeholder), `[[toc]]` markers,
 * heading anchors and attributes (`{#id}`, `{: id=x }`, `{- .unlisted}`), GitHub alert markers (`> [!NOTE]`), Adobe
 * Experience League's `[!UICONTROL 新規]` and `[!DNL x]` (the label stays), and MkDocs markup: admonition markers
 * (`!!! note`), content tab markers (`=== "Windows"`, the label stays), icon shortcodes (`:material-x:`), key markup
 * (`++ctrl+c++` reads `Ctrl+C`), references to the page's footnotes (`[^1]`, a footnote's text stays) and code fence
 * attributes (`linenums="1"`). A table loses its delimiter row and the spaces that line up its cells; a raw HTML
 * `<table>` is laid out as the HTML reader lays one out, a row per line. HTML entities are
 * decoded. Code blocks are left as they are, since a command or an error message in them is worth finding.
 */
export function cleanMarkdown(markdown: string): string {
  let text = normalizeNewlines(markdown).replace(/^\uFEFF/, '');
  let title: string | undefined;
  const frontMatter = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/.exec(text);
  if (frontMatter) {
    // Greedy and trimmed after: a lazy `(.+?)[ \t]*$` rescans a long run of spaces from every position.
    const titleLine = /^title:[ \t]*(.+)$/m.exec(frontMatter[1] ?? '');
    title = titleLine?.[1]?.trim().replace(/^(['"])(.*)\1$/, '$2').trim() || undefined;
    text = text.slice(frontMatter[0].length);
  }
  const out: string[] = [];
  const closed = closedComponents(text);
  const footnotes = footnoteLabels(text);
  let fence: string | undefined;
  let inComment = false;
  // The closing tag (`</script>`) of the code block being skipped.
  let inCodeBlock: string | undefined;
  let hasH1 = false;
  // Inside a table: from a header row followed by its delimiter row to the first line without a pipe.
  let inTable = false;
  // The line of the table's delimiter row: a body row of dashes (`| - |`, "none") is text.
  let tableDelimiter = -1;
  const lines = text.split('\n');
  const references = referenceLabels(lines);
  // Lines up to this one were read as part of a multi-line component tag or an HTML table.
  let consumedUntil = -1;
  // No multi-line component tag opens on a line up to this one: a tag tried there failed on a later line, so each line
  // is read by at most one failed try.
  let noTagUntil = -1;
  // The same for an HTML table whose `</table>` was not found.
  let noTableUntil = -1;
  const indentedCode = indentedCodeLines(lines);
  for (const [i, raw] of lines.entries()) {
    if (i <= consumedUntil) continue;
    if (inCodeBlock !== undefined) {
      if (raw.toLowerCase().includes(inCodeBlock)) inCodeBlock = undefined;
      continue;
    }
    const marker = inComment ? undefined : fenceMarker(raw);
    if (marker !== undefined) {
      inTable = false;
      if (fence === undefined) {
        fence = marker;
        out.push(fenceOpening(raw, marker));
        continue;
      }
      if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      out.push(raw);
      continue;
    }
    if (fence !== undefined) {
      out.push(raw);
      continue;
    }
    // HTML comments, possibly over several lines.
    let line = '';
    let rest = raw;
    while (rest) {
      if (inComment) {
        const end = rest.indexOf('-->');
        if (end < 0) break;
        inComment = false;
        rest = rest.slice(end + 3);
      } else {
        const start = rest.indexOf('<!--');
        if (start < 0) {
          line += rest;
          break;
        }
        line += rest.slice(0, start);
        inComment = true;
        rest = rest.slice(start + 4);
      }
    }
    if (line.trim() === '' && raw.trim() !== '') continue;
    const codeBlock = CODE_BLOCK_START.exec(line);
    if (codeBlock) {
      const end = `</${codeBlock[1]!.toLowerCase()}>`;
      if (!line.toLowerCase().includes(end, codeBlock[0].length)) inCodeBlock = end;
      continue;
    }
    // A component tag whose attributes run over several lines goes whole, up to its `>`, before the lines are cleaned
    // one by one (COMPONENT_TAG sees one line, so the schema inside it stayed as text, retrieval audit 11). What
    // follows its `>` on its last line stays, read as a line of its own.
    const mayOpenTag = i > noTagUntil && line === raw && !indentedCode[i];
    const lineStart = mayOpenTag ? COMPONENT_TAG_START.exec(line) : null;
    const tagStart = lineStart ? { start: 0, column: lineStart[0].length } : mayOpenTag ? lastComponentTagOpening(line) : undefined;
    if (tagStart) {
      const tag = componentTagEnd(lines, i, tagStart.column, { midLine: tagStart.start > 0 });
      if (!tag.end) noTagUntil = tag.line;
      else if (tag.line > i) {
        // Prose before a tag opening mid-line stays, cleaned as a line of its own.
        if (tagStart.start > 0) out.push(cleanMarkdownLine(line.slice(0, tagStart.start), closed, footnotes, references));
        const rest = lines[tag.line]!.slice(tag.column);
        lines[tag.line] = rest;
        consumedUntil = rest.trim() === '' ? tag.line : tag.line - 1;
        continue;
      }
    }
    if (i > noTableUntil && line === raw && !indentedCode[i] && HTML_TABLE_START.test(line)) {
      const end = htmlTableEnd(lines, i, indentedCode);
      if (!end.end) noTableUntil = end.line;
      else {
        const html = [...lines.slice(i, end.line), lines[end.line]!.slice(0, end.column)].join('\n');
        out.push(...htmlTableText(html, (l) => cleanMarkdownLine(l, closed, footnotes, references, { html: false })));
        const rest = lines[end.line]!.slice(end.column);
        inTable = false;
        if (end.line > i) {
          // Read again as a line of its own, after the table's lines.
          lines[end.line] = rest;
          consumedUntil = rest.trim() === '' ? end.line : end.line - 1;
          continue;
        }
        // Closed on the line it opens: the line's loop has read that line already, so what follows the `</table>` is
        // read on here (it was lost, bug review B2). Only once: a second table on the line is cleaned as text, its
        // words kept, rather than the line read again from each `</table>`.
        if (rest.trim() === '') continue;
        line = rest;
      }
    }
    if (inTable && !line.includes('|')) inTable = false;
    if (!inTable && line.includes('|')) {
      const next = lines[i + 1];
      inTable = next !== undefined && isTableDelimiterRow(next) && tableCellCount(next) === tableCellCount(line);
      if (inTable) tableDelimiter = i + 1;
    }
    if (inTable) {
      if (i === tableDelimiter) continue;
      line = compactTableRow(line);
    }
    if (MDX_MODULE_LINE.test(line) || TOC_MARKER.test(line)) continue;
    const admonition = MKDOCS_ADMONITION.exec(line);
    if (admonition) {
      if (admonition[2]) out.push(plainText(cleanMarkdownLine(admonition[2], closed, footnotes, references)));
      continue;
    }
    const tab = MKDOCS_TAB.exec(line);
    if (tab) {
      if (tab[1]) out.push(plainText(cleanMarkdownLine(tab[1], closed, footnotes, references)));
      continue;
    }
    const footnote = FOOTNOTE_DEFINITION.exec(line);
    if (footnote) {
      // `[^1]:` alone: the text is on the indented lines below.
      const footnoteText = line.slice(footnote[0].length);
      if (footnoteText.trim() !== '') out.push(plainText(cleanMarkdownLine(footnoteText, closed, footnotes, references)));
      continue;
    }
    line = line.replace(GITHUB_ALERT, '$1');
    const container = /^\s{0,3}:{3,}\s*(?:[\w-]+)?\s*(.*)$/.exec(line);
    if (container) {
      if (container[1]) out.push(plainText(cleanMarkdownLine(container[1], closed, footnotes, references)));
      continue;
    }
    if (REFERENCE_DEFINITION.test(line)) continue;
    if (/^\s{0,3}#[ \t]/.test(line)) hasH1 = true;
    if (/^\s{0,3}#{1,6}[ \t]/.test(line)) line = line.replace(HEADING_ANCHOR, '').trimEnd();
    out.push(cleanMarkdownLine(line, closed, footnotes, references));
  }
  const body = out.join('\n');
  // The title is markup like any line of the page: it kept `{{%store%}}` and link targets (retrieval audit 12).
  const heading = title && cleanMarkdownLine(title, closed, footnotes, references).trim();
  return heading && !hasH1 ? `# ${heading}\n\n${body}` : body;
}

/**
 * Splits Markdown into sections by its ATX headings, `#` to `######`: a `####` title is often the most specific one a
 * manual has (a step, a command), so it belongs in the heading path, nested under the `###` above it, where the
 * search weighs it as a title. Lines inside fenced code blocks are never taken for headings. Sections without any
 * text (a chapter heading directly followed by a section heading) are dropped.
 */
export function markdownSections(markdown: string): ManualSection[] {
  const sections = new SectionCollector();
  let fence: string | undefined;
  for (const line of normalizeNewlines(markdown).split('\n')) {
    const marker = fenceMarker(line);
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      sections.add(`${line}\n`);
      continue;
    }
    const heading = fence === undefined ? ATX_HEADING_START.exec(line) : null;
    if (heading?.[1]) sections.heading(heading[1].length, headingText(line.slice(heading[0].length)));
    else sections.add(`${line}\n`);
  }
  return sections.finish();
}

/** Marks heading lines in html-to-text output; private-use code points never occur in real manuals. */
const HEADING_MARK = '\uE000';
const HEADING_LINE = /^\uE000([1-3])\uE001(.*)$/;

function headingFormatter(level: number): FormatCallback {
  return (elem, walk, builder) => {
    builder.openBlock({ leadingLineBreaks: 2 });
    builder.addLiteral(`${HEADING_MARK}${level}\uE001`);
    walk(elem.children, builder);
    builder.closeBlock({ trailingLineBreaks: 2 });
  };
}

/** The text of an element, entities decoded (htmlparser2 decodes them for html-to-text). */
function textOf(node: DomNode): string {
  return node.type === 'text' ? (node.data ?? '') : (node.children ?? []).map(textOf).join('');
}

// What a permalink anchor shows after a heading: Sphinx's, MkDocs' and Jupyter's ¶, VitePress' and pydata's #, a
// section sign, a link emoji (with its variation selector), Docusaurus' zero-width space, or nothing but an icon.
const PERMALINK_MARK = /^[\s\u200B-\u200D\u2060\uFEFF\uFE0E\uFE0F¶#§🔗]*$/u;

/**
 * A heading's permalink anchor: dropped when it shows only a mark ({@link PERMALINK_MARK}), which went into every
 * heading path ("復元¶ > …"); read as the link it is otherwise, since VuePress 2 and markdown-it-anchor's headerLink
 * put the heading's whole text inside it.
 */
const permalinkFormatter: FormatCallback = (elem, walk, builder) => {
  if (!PERMALINK_MARK.test(textOf(elem))) walk(elem.children, builder);
};

/**
 * A definition list's term (`dt`): it starts a line, and its descriptions ({@link definitionDescription}) follow it
 * on that line after a space. html-to-text reads both inline, so a minified settings page ran each term into its
 * description ("AnswerbackENQ", a token no query holds). A line each, as a browser shows them, let the chunker cut
 * between a setting's name and what it does ("Paste delay per line" at a chunk's end, its description in the next:
 * retrieval audit 10's set, file MRR .666 → .650); on one line they stay together as a table row does. Not headings:
 * a term names a setting inside its section, and as headings the audit ranked worse.
 */
const definitionTerm: FormatCallback = (elem, walk, builder) => {
  builder.addLineBreak();
  walk(elem.children, builder);
  builder.addInline(' ');
};

/** A definition list's description (`dd`): on its term's line, after a space ({@link definitionTerm}). */
const definitionDescription: FormatCallback = (elem, walk, builder) => {
  builder.addInline(' ');
  walk(elem.children, builder);
};

/** HTML's own cap on a cell's `colspan`: a browser reads a larger one as 1,000. */
const MAX_COLSPAN = 1_000;
/**
 * Rows, and columns, of a table html-to-text lays out at once. Its layout is quadratic in the larger of the two (a
 * grid transposed in place) and recurses once per row or column a cell spans: a 16,000-row table took 10 s, a
 * `colspan="100000"` minutes, and `rowspan="10000"` overflowed the stack, which failed the whole reindex.
 */
const MAX_LAID_OUT_TABLE_SIDE = 500;

/** The rows of a table element as html-to-text's data table reads them: its `tr`, also inside thead/tbody/tfoot/center. */
function tableRowsOf(elem: DomNode): DomNode[] {
  const rows: DomNode[] = [];
  const walkTable = (node: DomNode): void => {
    if (node.type !== 'tag') return;
    if (node.name === 'tr') rows.push(node);
    else if (node.name === 'thead' || node.name === 'tbody' || node.name === 'tfoot' || node.name === 'center') node.children.forEach(walkTable);
  };
  elem.children.forEach(walkTable);
  return rows;
}

/** A span attribute as a count from 1 to `max` (html-to-text reads `0`, a negative or a huge one as it is). */
function boundedSpan(value: unknown, max: number): number {
  const span = Math.trunc(Number(value));
  return Number.isFinite(span) && span >= 1 ? Math.min(span, max) : 1;
}

/**
 * A data table laid out by html-to-text's own `dataTable` formatter in pieces it lays out quickly: spans held to
 * HTML's cap and to the rows of the piece ({@link boundedSpan}), the rows in groups of
 * {@link MAX_LAID_OUT_TABLE_SIDE}, each group aligned on its own. A group with a row wider than that (thousands of
 * cells, its own and those spanning down into it from rows above) is read a cell per line. The words are the same either way; only their alignment differs.
 */
const boundedDataTable: FormatCallback = (elem, walk, builder, formatOptions) => {
  const dataTable = builder.options.formatters['dataTable']!;
  const rows = tableRowsOf(elem);
  for (let start = 0; start < rows.length || start === 0; start += MAX_LAID_OUT_TABLE_SIDE) {
    const group = rows.slice(start, start + MAX_LAID_OUT_TABLE_SIDE);
    let widest = 0;
    // A row's width is its own cells' columns and those of the cells above still spanning down into it, each up to
    // its last row: the columns still open, and by last row those that close (a sum, so a group of many spanning
    // cells costs a step a cell).
    let open = 0;
    const closing = new Array<number>(group.length).fill(0);
    for (const [i, row] of group.entries()) {
      if (i > 0) open -= closing[i - 1]!;
      let width = open;
      for (const cell of row.children) {
        if (cell.type !== 'tag' || (cell.name !== 'td' && cell.name !== 'th')) continue;
        const attribs = (cell.attribs ?? {}) as Record<string, string>;
        const colspan = boundedSpan(attribs['colspan'], MAX_COLSPAN);
        const rowspan = boundedSpan(attribs['rowspan'], group.length - i);
        cell.attribs = { ...attribs, colspan: String(colspan), rowspan: String(rowspan) };
        width += colspan;
        if (rowspan > 1) {
          open += colspan;
          closing[i + rowspan - 1]! += colspan;
        }
      }
      widest = Math.max(widest, width);
    }
    if (widest <= MAX_LAID_OUT_TABLE_SIDE) {
      const piece: DomNode = rows.length <= MAX_LAID_OUT_TABLE_SIDE ? elem : { ...elem, children: group };
      dataTable(piece, walk, builder, formatOptions);
      continue;
    }
    for (const row of group) {
      for (const cell of row.children) {
        if (cell.type !== 'tag' || (cell.name !== 'td' && cell.name !== 'th')) continue;
        builder.openBlock({ leadingLineBreaks: 1 });
        walk(cell.children, builder);
        builder.closeBlock({ trailingLineBreaks: 1 });
      }
    }
  }
};

/** What html-to-text reads as the page's content when the page has one of them (and {@link hasContentElement}). */
const CONTENT_ELEMENTS = ['main', '[role=main]', 'article'];

/**
 * Whether the page has a `main`, `article` or `[role=main]` element, the content html-to-text then reads alone. A
 * quick test of the text first, then htmlparser2's tokenizer, so a `<main` in a comment or a script counts for nothing.
 */
function hasContentElement(html: string): boolean {
  if (!/<(?:main|article)\b|\brole\s*=\s*["']?main\b/i.test(html)) return false;
  let found = false;
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name === 'main' || name === 'article' || attribs.role === 'main') found = true;
    },
  });
  parser.end(html);
  return found;
}

// A Bootstrap theme's navbar (Sphinx's bootstrap themes, many sites): what marks a page whose furniture is not in
// <nav>/<aside> but in landmark roles and menus around the text.
const NAVBAR_CLASS = /\bclass\s*=\s*["'][^"']*\bnavbar\b/i;

/**
 * Whether the page is a site theme's page without a `main`/`article` content element ({@link hasContentElement}) and
 * with a Bootstrap navbar: only then are its landmark roles and menus furniture. A hand-written or Word-exported page
 * without either keeps them (a note in role=complementary, a form's options, contact details in role=contentinfo:
 * bug review 46d).
 */
function themePageWithoutContent(html: string): boolean {
  return NAVBAR_CLASS.test(html) && !hasContentElement(html);
}

function htmlToTextOptions(withoutContentElement: boolean): HtmlToTextOptions {
  return {
    wordwrap: false,
    // A saved documentation page: its content, not the menus around it. The topmost `main`/`article` elements when
    // the page has them (the whole page otherwise); site navigation, sidebars and footers repeat on every page and
    // would make every page match the words of its menu.
    baseElements: { selectors: CONTENT_ELEMENTS, returnDomByDefault: true },
    formatters: { heading1: headingFormatter(1), heading2: headingFormatter(2), heading3: headingFormatter(3), permalink: permalinkFormatter, boundedDataTable, definitionTerm, definitionDescription },
    selectors: [
      { selector: 'h1', format: 'heading1' },
      { selector: 'h2', format: 'heading2' },
      { selector: 'h3', format: 'heading3' },
      // html-to-text upper-cases the Latin words of the minor headings (AUTO START LOGGING): the agent quotes a
      // setting's name as the page writes it. Kept as text, not as headings like Markdown's ####: as headings they
      // moved retrieval audit 10's set by one query one rank down, and a Word document's 見出し 4–6 would follow.
      ...['h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
      // A definition list: a line per term and its description (definitionTerm).
      { selector: 'dl', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
      { selector: 'dt', format: 'definitionTerm' },
      { selector: 'dd', format: 'definitionDescription' },
      // Link targets and image sources are noise to a keyword search and to the agent reading the chunk.
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      // Without this, table cells run together ("項目値"); dataTable lays them out in columns, in pieces it lays out
      // quickly (boundedDataTable).
      { selector: 'table', format: 'boundedDataTable' },
      { selector: 'ul', options: { itemPrefix: '・' } },
      ...['nav', '[role=navigation]', 'aside', 'footer', 'noscript', 'head'].map((selector) => ({ selector, format: 'skip' })),
      // What a theme without <main>/<article> (a Sphinx Bootstrap theme) puts around the content: Bootstrap's navbar,
      // the landmark roles of sidebars, banners, footers and search boxes, a language menu. Only on such a page
      // ({@link themePageWithoutContent}): in a page's content, or on a plain page, the same roles and a form's
      // options are the manual's text.
      ...(withoutContentElement ? ['.navbar', '[role=banner]', '[role=complementary]', '[role=contentinfo]', '[role=search]', 'select'] : []).map((selector) => ({
        selector,
        format: 'skip',
      })),
      ...['a.headerlink', 'a.header-anchor', 'a.hash-link', 'a.anchor-link'].map((selector) => ({ selector, format: 'permalink' })),
      // Asides of the content, more specific than `aside` above: docutils' HTML5 (Sphinx 5+) footnotes, topics and
      // admonitions (MyST, Markdown renderers) wherever they are, and a `.. sidebar::` as a child of a section or the
      // content (VuePress 1 names its navigation `aside.sidebar` too, outside them). Navigation asides (Docusaurus'
      // `theme-doc-sidebar-container`, Furo's drawers, a site's widgets) are still dropped.
      ...['aside.footnote-list', 'aside.footnote', 'aside.topic', 'aside.admonition', 'aside[role=doc-footnote]', 'aside[role=note]']
        .concat(['section', 'main', 'article', '[role=main]', '.section', '.body'].map((parent) => `${parent} > aside.sidebar`))
        .map((selector) => ({ selector, format: 'block' })),
    ],
  };
}

// Compiled once each: html-to-text builds its selector matcher per options object.
const pageWithContentToText = compile(htmlToTextOptions(false));
const pageWithoutContentToText = compile(htmlToTextOptions(true));

/**
 * Converts HTML to plain text (html-to-text: the page's `main` or `article` content when it has one; navigation,
 * sidebars, footers, heading permalink marks, scripts and styles dropped, and on a page without such content the
 * navbar, landmark roles and language menus around it too; footnotes, topics and sidebars of the content kept,
 * tables, lists and definition lists kept readable, `h4`–`h6` as written, not upper-cased) and splits it into
 * sections by `h1`–`h3`, like {@link markdownSections}.
 */
export function htmlSections(html: string): ManualSection[] {
  const bounded = limitHtmlNesting(html, MAX_HTML_DEPTH).html;
  const text = (themePageWithoutContent(bounded) ? pageWithoutContentToText : pageWithContentToText)(bounded);
  const sections = new SectionCollector();
  for (const line of normalizeNewlines(text).split('\n')) {
    const heading = HEADING_LINE.exec(line);
    if (heading?.[1] && heading[2] !== undefined) sections.heading(Number(heading[1]), heading[2].trim());
    else sections.add(`${line}\n`);
  }
  return sections.finish();
}

/**
 * A Word document as HTML (mammoth): its built-in heading styles (見出し 1–3, `heading 1`–`3` inside the file, in
 * any language of Word) become `h1`–`h3`, so {@link htmlSections} cuts it like a saved web page. Images are not
 * read at all: the text is what is indexed, and inlining them would make the HTML as large as the pictures.
 * A document whose text unpacks to more than `maxUnpackedBytes` (default {@link MAX_UNPACKED_TEXT_BYTES}) is
 * refused before mammoth unpacks anything (see {@link checkOfficeArchive}).
 *
 * @throws KnowledgeError naming `file` when the bytes are not a readable .docx or unpack to too much.
 */
export async function wordHtml(data: Buffer, file: string, options: { maxUnpackedBytes?: number } = {}): Promise<string> {
  // Word saves a password-protected .docx as an OLE compound file (as a Word 97-2003 .doc is), not a zip; the zip
  // reader's "end of central directory record signature not found" would tell an operator nothing.
  if (data.subarray(0, OLE_SIGNATURE.length).equals(OLE_SIGNATURE)) {
    throw new KnowledgeError(
      `${file}: cannot read Word document: it is password-protected, or a Word 97-2003 .doc under a .docx name; save it as .docx without a password, or remove it`,
      file,
    );
  }
  try {
    await checkOfficeArchive(data, options.maxUnpackedBytes ?? MAX_UNPACKED_TEXT_BYTES);
  } catch (err) {
    // Named for the file, but not mammoth's verdict: a TypeError here is a bug of ours and still fails the reindex.
    throw new KnowledgeError(`${file}: cannot read Word document: ${errorMessage(err)}`, file, undefined, { cause: err });
  }
  const result = await readerCall(file, 'Word document', () =>
    mammoth.convertToHtml({ buffer: data }, { convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })) }),
  );
  return result.value;
}

const OLE_SIGNATURE = Buffer.from('d0cf11e0a1b11ae1', 'hex');

/** Reads one manual file into sections according to its extension. */
export async function readManualSections(file: SourceFile, logger?: Logger): Promise<ManualSection[]> {
  return await sectionsOf(file, await readFile(file.path), logger);
}

/** The sections of a manual file's bytes, read according to its extension. */
async function sectionsOf(file: SourceFile, data: Buffer, logger?: Logger): Promise<ManualSection[]> {
  switch (file.ext) {
    case '.pdf':
      return await pdfSections(data, file.path);
    case '.md':
    case '.markdown':
    case '.mdx':
      return markdownSections(cleanMarkdown(decodeText(data, file.path, logger)));
    case '.html':
    case '.htm':
      return htmlSections(decodeText(data, file.path, logger));
    case '.docx':
      return htmlSections(await wordHtml(data, file.path));
    default: {
      const text = decodeText(data, file.path, logger).trim();
      return text ? [{ heading: '', text }] : [];
    }
  }
}

const MARKUP_EXTENSIONS: ReadonlySet<string> = new Set(['.md', '.markdown', '.mdx', '.html', '.htm']);

/**
 * Why a manual file that was read gave no chunk at all, with what to do: a PDF without a text layer (a scan), a Word
 * document of pictures or with words only in its headers and footers, a text file of nothing but white space, a page whose markup (tags, front matter, pictures)
 * was all it held. A file that gave one chunk (a title and one line) is never asked about.
 *
 * @param ext the file's lower-case extension; `data` its bytes.
 */
export function textlessReason(ext: string, data: Uint8Array): string {
  if (ext === '.pdf') return 'no text: a scanned PDF needs OCR first (run OCR on it, or export it again with its text)';
  // mammoth reads the body alone: a document whose words are all in its header or footer is no document of pictures.
  if (ext === '.docx') return "no text in the document's body (headers, footers and pictures are not read; a scanned page needs OCR first)";
  // White space of any script (U+3000 too) and a BOM; bytes that are not UTF-8 are text of some kind.
  const blank = new TextDecoder('utf-8').decode(data).replace(/^\uFEFF/, '').trim() === '';
  if (blank || !MARKUP_EXTENSIONS.has(ext)) return 'empty file';
  return 'no text after markup was removed';
}

/** The reasons of {@link textlessReason}: a file that was read and held no text, not one that could not be read. */
const TEXTLESS_REASONS: ReadonlySet<string> = new Set(['.pdf', '.docx', '.md', '.txt'].flatMap((ext) => [textlessReason(ext, new Uint8Array()), textlessReason(ext, new Uint8Array([0x61]))]));

/**
 * True when `skip` is a file that was read but held no text ({@link textlessReason}): a manual of such files alone is
 * read as before, an index of nothing, where one of files that cannot be read at all is refused.
 */
export function isTextless(skip: SkippedManualFile): boolean {
  return TEXTLESS_REASONS.has(skip.reason);
}

/**
 * Chunks the sections of one file. Ids are `${fileName}#${n}` with n counting the file's chunks from 1, so the
 * same file always yields the same ids.
 */
export async function chunkSections(
  fileName: string,
  sections: readonly ManualSection[],
  splitter: RecursiveCharacterTextSplitter,
): Promise<ManualChunk[]> {
  const chunks: ManualChunk[] = [];
  for (const section of sections) {
    for (const piece of await splitter.splitText(section.text)) {
      const content = piece.trim();
      if (content) chunks.push({ id: `${fileName}#${chunks.length + 1}`, fileName, heading: section.heading, content });
    }
  }
  return chunks;
}

/**
 * Reads and chunks every manual file in `dir` and its subfolders (sorted by relative path; see
 * {@link listSources} for dotfiles and links). A folder of files none of which can be read is reported with a
 * warning (one of a site's pictures, styles and scripts alone is not). A file its reader refuses (corrupt,
 * password-protected, over a size or unpacking budget) or a document of a type not read (`.doc`) is skipped with a
 * warning naming it, the reason and the fix, and listed in `skipped`: one bad file no longer keeps the rest of the
 * manual out of the index. A file that is read but gives no chunk at all (a scanned PDF, an empty page, a page of
 * markup alone: {@link textlessReason}) is skipped likewise, not counted among the files read. A file refused by a
 * budget is never handed to its reader. An error that says nothing about the file's content
 * ({@link isNotAboutTheFile}: I/O, a file replaced mid-run, a bug of ours) is thrown, not skipped.
 *
 * @param onProgress called with stage `read` after each file.
 * @throws KnowledgeError when the directory is missing or not a directory; the file system's error (errno `code`) or
 *   a TypeError, RangeError or ReferenceError when reading a file fails for a reason other than its content.
 */
export async function loadManualChunks(
  dir: string,
  options: ChunkOptions & { logger?: Logger; onProgress?: ProgressFn } = {},
): Promise<ManualLoadResult> {
  const { logger, onProgress } = options;
  const splitter = createManualSplitter(options);
  const listing = await listSources(dir, MANUAL_EXTENSIONS, 'manuals', logger, {
    recursive: true,
    skip: MANUAL_SKIPPED_NAMES,
    skipInBuild: { names: SPHINX_BUILD_NAMES, markers: SPHINX_BUILD_MARKERS },
    oversized: 'skip',
  });
  const files = listing.files;
  const skipped: SkippedManualFile[] = [...listing.refused];
  for (const { fileName, reason } of listing.refused) logger?.warn({ dir, file: fileName }, `skipping ${fileName}: ${reason}`);
  // A Sphinx build in the tree (its search index) holds the pages its sources make, and a source without a page of
  // its own is an include, an excluded or an orphan file whose text is there or not meant to be: naming it on every
  // reindex would be noise (bug review 46d). Without a build, each source is named unless its own page is there.
  const built = listing.buildFolders.length > 0 ? new Set(listing.unsupported) : builtSources(listing.unsupported, files);
  for (const fileName of listing.unsupported) {
    const ext = fileName.slice(fileName.lastIndexOf('.')).toLowerCase();
    const fix = fileName.includes('.') ? UNSUPPORTED_DOCUMENTS.get(ext) : undefined;
    if (fix === undefined || built.has(fileName)) continue;
    skipped.push({ fileName, reason: `${ext} is not read; ${fix}` });
    logger?.warn({ dir, file: fileName }, `skipping ${fileName}: ${ext} is not read (the manual is read from ${MANUAL_EXTENSIONS.join(', ')}); ${fix}`);
  }
  const chunks: ManualChunk[] = [];
  const read: string[] = [];
  await onProgress?.({ stage: 'read', done: 0, total: files.length });
  for (const [i, file] of files.entries()) {
    let sections: ManualSection[] | undefined;
    let data: Buffer | undefined;
    try {
      data = await readFile(file.path);
      sections = await sectionsOf(file, data, logger);
    } catch (err) {
      if (isNotAboutTheFile(err)) throw err;
      const reason = skipReason(err, file);
      skipped.push({ fileName: file.fileName, reason });
      logger?.warn({ dir, file: file.fileName }, `skipping ${file.fileName}: ${reason}`);
    }
    await onProgress?.({ stage: 'read', done: i + 1, total: files.length });
    if (sections === undefined || data === undefined) continue;
    const fileChunks = await chunkSections(file.fileName, sections, splitter);
    // A file that gives nothing to search (a scan, an empty page) is no file read: counted among them, the admin took
    // it for searchable (walkthrough 45, L1).
    if (fileChunks.length === 0) {
      const reason = textlessReason(file.ext, data);
      skipped.push({ fileName: file.fileName, reason });
      logger?.warn({ dir, file: file.fileName }, `skipping ${file.fileName}: ${reason}`);
      continue;
    }
    read.push(file.fileName);
    logger?.debug({ file: file.path, sections: sections.length, chunks: fileChunks.length }, `read ${file.fileName}`);
    // Not push(...): a spread of more than ~125,000 items overflows the call stack (one large manual file).
    for (const chunk of fileChunks) chunks.push(chunk);
  }
  // Files read that held no text first, then the others, each by name: the reindex job's result names only the first
  // of them, and `npm run reindex` tells a manual of scans (exit 0, as when they counted as read) from one it cannot
  // read at all (exit 1) by the first one named (src/cli/reindex.ts).
  skipped.sort((a, b) => Number(isTextless(b)) - Number(isTextless(a)) || (a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0));
  const emptyFolders = foldersWithoutReadFile(listing.emptyFolders, read, files);
  for (const folder of emptyFolders) {
    const where = folder === '.' ? dir : `${folder}/ in ${dir}`;
    const inFolder = skipped.filter((s) => folder === '.' || s.fileName.startsWith(`${folder}/`)).map((s) => s.fileName);
    const named = inFolder.length > 0 ? `; skipped: ${inFolder.join(', ')}` : '';
    logger?.warn({ dir, folder }, `no readable manual file (${MANUAL_EXTENSIONS.join(', ')}) in ${where}${named}`);
  }
  return { files: read, chunks, perFolder: perFolderOf(read), emptyFolders, skipped };
}

/**
 * The `.rst` sources of the manual tree whose own page was built into it, so they are not named as skipped, or every
 * nightly reindex of a Sphinx checkout with its build would list them all: `install/platform.rst` when some page
 * ends in `install/platform.html` (`_build/html/install/platform.html`) or `install/platform/index.html` (Sphinx's
 * dirhtml), the path taken from the folder of the nearest `conf.py` above the source (Sphinx's source folder), else
 * from any folder above it. Decided per source: a source without its own page (left out of the toctree, or the
 * tree's other pages are not built from it) is named.
 */
function builtSources(unsupported: readonly string[], files: readonly SourceFile[]): Set<string> {
  const pages: string[] = [];
  for (const { fileName, ext } of files) {
    if (ext !== '.html' && ext !== '.htm') continue;
    const page = `/${fileName.slice(0, -ext.length).toLowerCase()}`;
    pages.push(page);
    // dirhtml: `platform/index.html` is the page of `platform.rst`.
    if (page.endsWith('/index') && page.length > '/index'.length) pages.push(page.slice(0, -'/index'.length));
  }
  const sourceFolders = new Set(unsupported.filter((f) => /(^|\/)conf\.py$/i.test(f)).map(folderOf));
  const built = new Set<string>();
  for (const fileName of unsupported) {
    if (!fileName.toLowerCase().endsWith(RST_EXTENSION)) continue;
    const parts = fileName.slice(0, -RST_EXTENSION.length).toLowerCase().split('/');
    // The source's folders from its own upwards: the nearest holding conf.py fixes the page's path; without one,
    // the file name alone (its folders as far as the pages have them) must match.
    let root: number | undefined;
    for (let i = parts.length - 1; i >= 0 && root === undefined; i--) {
      if (sourceFolders.has(i === 0 ? '.' : fileName.split('/').slice(0, i).join('/'))) root = i;
    }
    const stems = root !== undefined ? [parts.slice(root).join('/')] : parts.map((_, i) => parts.slice(i).join('/'));
    if (stems.some((stem) => pages.some((page) => page.endsWith(`/${stem}`)))) built.add(fileName);
  }
  return built;
}

/** The folder (`.` for the top) of a path in the manual tree. */
function folderOf(fileName: string): string {
  const slash = fileName.lastIndexOf('/');
  return slash < 0 ? '.' : fileName.slice(0, slash);
}

/** Files read per folder, for the summary. */
function perFolderOf(read: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const fileName of read) counts[folderOf(fileName)] = (counts[folderOf(fileName)] ?? 0) + 1;
  return counts;
}

/**
 * The listing's folders without a readable file, plus those whose every listed file turned out unreadable (a folder
 * of one corrupt PDF holds nothing readable either), sorted, the top first.
 */
function foldersWithoutReadFile(listed: readonly string[], read: readonly string[], files: readonly SourceFile[]): string[] {
  const ancestors = (fileName: string): string[] => {
    const folders: string[] = [];
    for (let folder = folderOf(fileName); folder !== '.'; folder = folderOf(folder)) folders.push(folder);
    return [...folders, '.'];
  };
  const holdingRead = new Set(read.flatMap(ancestors));
  // Every folder on the path of a listed file may hold nothing readable now that some files were skipped.
  const candidates = new Set([...listed, ...files.flatMap((f) => ancestors(f.fileName))]);
  if (read.length === 0) candidates.add('.');
  const empty = [...candidates].filter((folder) => !holdingRead.has(folder));
  return empty.sort((a, b) => (a === '.' ? -1 : b === '.' ? 1 : a < b ? -1 : a > b ? 1 : 0));
}

// An ATX heading's opening `#`s and the space after them; the text is read by headingText. One pattern for the whole
// line (`(.*?)(?:[ \t]+#+)?[ \t]*$`) rescanned a long run of spaces from every position: minutes on one line.
const ATX_HEADING_START = /^\s{0,3}(#{1,6})[ \t]+/;

/** The text of an ATX heading after its opening `#`s: without the optional closing `#`s and the spaces around. */
function headingText(rest: string): string {
  let text = rest.trimEnd();
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end--;
  // Closing `#`s count only after a space or a tab (`# C#` keeps its `#`).
  if (end < text.length && end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t')) text = text.slice(0, end);
  return text.trim();
}

