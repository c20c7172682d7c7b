import { describe, expect, it } from 'vitest';
import { SafeHtml, escapeHtml, html } from '../../src/server/html.js';

describe('escapeHtml', () => {
  it.each([
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['<img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert(1)&gt;'],
    [`" onmouseover="alert(1)`, '&quot; onmouseover=&quot;alert(1)'],
    [`' autofocus onfocus='x`, '&#39; autofocus onfocus=&#39;x'],
    ['Tom & Jerry &amp;', 'Tom &amp; Jerry &amp;amp;'],
    ['パスワード', 'パスワード'],
    ['', ''],
  ])('escapes %j', (input, expected) => {
    expect(escapeHtml(input)).toBe(expected);
  });
});

describe('html``', () => {
  it('escapes every interpolated string and number', () => {
    const subject = '<b>hi</b>';
    expect(html`<p title="${subject}">${subject} ${42}</p>`.toString()).toBe('<p title="&lt;b&gt;hi&lt;/b&gt;">&lt;b&gt;hi&lt;/b&gt; 42</p>');
  });

  it('keeps nested fragments, joins arrays and drops null, undefined and false', () => {
    const items = ['<a>', 'b'].map((x) => html`<li>${x}</li>`);
    const hidden = false as boolean;
    expect(html`<ul>${items}</ul>${null}${undefined}${hidden && html`<p>x</p>`}`.toString()).toBe('<ul><li>&lt;a&gt;</li><li>b</li></ul>');
  });

  it('escapes strings inside arrays too', () => {
    expect(html`${['<x>', html`<y>`]}`.toString()).toBe('&lt;x&gt;<y>');
  });

  it('cannot be given raw markup from outside the module', () => {
    expect(() => new SafeHtml(Symbol('SafeHtml'), '<script>')).toThrow(TypeError);
  });
});
