/**
 * HTML output with escaping by default. Everything on the review page that came from a mail (subject, sender, body,
 * the draft, the agent's plan and sources) is attacker-controlled, so the only way to build markup is the {@link html}
 * tagged template: every interpolated value is escaped unless it is itself a {@link SafeHtml} produced by `html`.
 * There is deliberately no "raw" escape hatch; markup is written only in template literals of this codebase.
 *
 * Values are only ever interpolated into element content and double-quoted attribute values, where escaping
 * `& < > " '` is sufficient. Never interpolate into `<script>`, `<style>`, event-handler attributes or unquoted
 * attributes (the page has no script and its CSP forbids it anyway).
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

// Not exported: only this module can vouch that a string is safe markup.
const MINT = Symbol('SafeHtml');

/** Markup that is already safe to emit: only {@link html} creates it. */
export class SafeHtml {
  private readonly markup: string;

  /** Not callable from outside this module (the token is private); use {@link html}. */
  constructor(token: symbol, markup: string) {
    if (token !== MINT) throw new TypeError('SafeHtml is created only by the html`` template');
    this.markup = markup;
  }

  /** The markup as a string, for the HTTP response. */
  toString(): string {
    return this.markup;
  }
}

/**
 * What may be interpolated: text (escaped), numbers, {@link SafeHtml} (kept), arrays of these (concatenated), and
 * `null`/`undefined`/`false` (nothing, for conditional fragments).
 */
export type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map((v: HtmlValue) => render(v)).join('');
  return escapeHtml(String(value));
}

/** Tagged template that escapes every interpolation; see the module comment. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(MINT, out);
}
