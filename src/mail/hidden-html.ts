/**
 * Removing the parts of an HTML mail a person reading it does not see: elements styled out of sight (`display:none`,
 * `visibility:hidden`, `opacity:0`, a font size of zero, far off-screen, collapsed to no height), elements with the
 * `hidden` attribute, and elements whose text is no part of the rendered message (`<noscript>`, a `<title>` in the
 * body, `<template>`, form fields). Mail is read by the model as text; hidden text is where prompt injections and
 * spam filler hide, and the customer never wrote it for us to read.
 *
 * Only inline styles are read: rules in a `<style>` element (`.x{display:none}`) would need a CSS engine.
 */
import { DomUtils, parseDocument } from 'htmlparser2';

// domhandler's node types, as htmlparser2 (the dependency we declare) hands them out.
type ChildNode = ReturnType<typeof parseDocument>['children'][number];
type Element = Extract<ChildNode, { attribs: Record<string, string> }>;
type ParentNode = NonNullable<ChildNode['parent']>;

// Elements whose content is not shown as text of the message.
const UNSHOWN_ELEMENTS = new Set(['noscript', 'title', 'template', 'textarea', 'select', 'datalist', 'option']);
// Subtrees html-to-text leaves out anyway; not walked, so they neither cost time nor count as removed.
const NOT_WALKED = new Set(['head', 'script', 'style']);
// Text this small or this transparent cannot be read.
const MAX_UNREADABLE_FONT_PX = 2;
const MAX_UNREADABLE_OPACITY = 0.05;
// An element pushed this far out of the box is not on the screen (the usual trick is -9999px).
const OFF_SCREEN_PX = 1_000;
// px per unit for lengths in style attributes; relative units taken at a 16 px font.
const PX_PER_UNIT: Record<string, number> = { px: 1, pt: 4 / 3, pc: 16, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, em: 16, rem: 16, ex: 8, ch: 8, '%': 0.16 };

/**
 * `html` without the elements a reader does not see (see the module comment), and how many were removed; the same
 * string when none is. Expects HTML whose nesting is already bounded (`limitHtmlNesting`): the HTML is parsed into a
 * tree and, when something was removed, written out again for html-to-text.
 */
export function withoutHiddenElements(html: string): { html: string; removed: number } {
  const document = parseDocument(html);
  const hidden = new Set<Element>();
  const parents = new Set<ParentNode>();
  const stack: ChildNode[] = document.children.slice();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'tag') continue;
    const name = node.name.toLowerCase();
    if (NOT_WALKED.has(name)) continue;
    if (UNSHOWN_ELEMENTS.has(name) || isHidden(node.attribs)) {
      hidden.add(node);
      if (node.parent) parents.add(node.parent);
      continue;
    }
    for (const child of node.children) stack.push(child);
  }
  if (hidden.size === 0) return { html, removed: 0 };
  // One filter per parent: removing elements one by one (DomUtils.removeElement) searches and splices the parent's
  // children each time, quadratic in a mail of thousands of hidden siblings. Only the serializer reads the tree after.
  for (const parent of parents) parent.children = parent.children.filter((child) => !hidden.has(child as Element));
  // `utf8`: only the characters HTML needs escaped are, so the text html-to-text reads again is the text it was.
  return { html: DomUtils.getOuterHTML(document, { encodeEntities: 'utf8' }), removed: hidden.size };
}

/** True when an element's attributes hide it: the `hidden` attribute, or an inline style that does. */
function isHidden(attribs: Record<string, string>): boolean {
  if (attribs['hidden'] !== undefined) return true;
  const style = attribs['style'];
  return style !== undefined && isHidingStyle(style);
}

/** True when the declarations of an inline `style` attribute put the element out of a reader's sight. */
function isHidingStyle(style: string): boolean {
  const css = declarations(style);
  const value = (name: string) => css.get(name) ?? '';
  if (value('display') === 'none') return true;
  if (value('visibility') === 'hidden' || value('visibility') === 'collapse') return true;
  const opacity = number(value('opacity'));
  if (opacity !== undefined && opacity <= MAX_UNREADABLE_OPACITY) return true;
  const fontSize = px(value('font-size'));
  if (fontSize !== undefined && fontSize <= MAX_UNREADABLE_FONT_PX) return true;
  const clipped = /^(?:hidden|clip)$/.test(value('overflow')) || /^(?:hidden|clip)$/.test(value('overflow-y'));
  if (clipped && ['height', 'max-height'].some((name) => px(value(name)) === 0)) return true;
  if (clipped && ['width', 'max-width'].some((name) => px(value(name)) === 0)) return true;
  const positioned = /^(?:absolute|fixed|relative)$/.test(value('position'));
  const offsets = ['text-indent', 'margin-left', 'margin-top', ...(positioned ? ['left', 'top', 'right', 'bottom'] : [])];
  return offsets.some((name) => (px(value(name)) ?? 0) <= -OFF_SCREEN_PX);
}

/**
 * The declarations of a style attribute by lower-case property name, values lower-case and trimmed, comments and
 * `!important` removed; a later declaration of a property wins, as in CSS.
 */
function declarations(style: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const declaration of withoutComments(style).split(';')) {
    const colon = declaration.indexOf(':');
    if (colon < 0) continue;
    const name = declaration.slice(0, colon).trim().toLowerCase();
    let value = declaration.slice(colon + 1).trim().toLowerCase();
    const bang = value.lastIndexOf('!');
    if (bang >= 0 && value.slice(bang + 1).trim() === 'important') value = value.slice(0, bang).trim();
    out.set(name, value);
  }
  return out;
}

/** CSS text without its comments, in one pass (a lazy pattern rescans to the end for each unclosed `/*`). */
function withoutComments(css: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const open = css.indexOf('/*', at);
    if (open < 0) return out + css.slice(at);
    out += `${css.slice(at, open)} `;
    const close = css.indexOf('*/', open + 2);
    if (close < 0) return out;
    at = close + 2;
  }
}

/** A plain CSS number or percentage as a fraction (`0.5`, `50%`), else undefined. */
function number(value: string): number | undefined {
  const m = /^([-+]?(?:\d+(?:\.\d*)?|\.\d+))(%?)$/.exec(value);
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2] ? n / 100 : n;
}

/** A CSS length in px (`0`, `-9999px`, `1.5em`, `10%`), else undefined (keywords, `calc()`…). */
function px(value: string): number | undefined {
  const m = /^([-+]?(?:\d+(?:\.\d*)?|\.\d+))([a-z%]*)$/.exec(value);
  if (!m) return undefined;
  const n = Number(m[1]);
  if (n === 0) return 0;
  const unit = m[2] || 'px';
  const factor = PX_PER_UNIT[unit];
  return factor === undefined ? undefined : n * factor;
}
