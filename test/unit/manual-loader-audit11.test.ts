/**
 * Retrieval audit 11 (the Misskey Hub user docs, Nuxt Content Markdown): a component tag whose attributes run over
 * several lines (`<MkSchemaViewerItemObject :schema="{ … }"/>`) stayed in the text line by line, a raw HTML table lost
 * its cell boundaries (「パブリックホームフォロワー…」), and an image whose alt text holds brackets (`![… [msg]?"](…)`)
 * escaped the image pattern. The inputs are our own words in the markup of those pages.
 */
import { describe, expect, it } from 'vitest';
import { cleanMarkdown } from '../../src/knowledge/manual-loader.js';

const schema = ['<MkSchemaViewerItemObject :schema="{', "\ttype: 'object',", '\tproperties: {', "\t\tuser: { $ref: 'misskey://User', description: 'フォローしたユーザー' },", '\t}', '}"/>'];

describe('cleanMarkdown: a component tag over several lines', () => {
  it.each([
    { name: 'self-closing, alone between paragraphs', md: ['自分がフォローされた際に発生します。', '', ...schema, '', '送信に失敗すると再送されます。'], text: '自分がフォローされた際に発生します。\n\n\n送信に失敗すると再送されます。' },
    { name: 'an opening tag whose attributes run over lines: its inner text stays', md: ['<MyCallout', '  type="warning"', '  :closable="true">', '設定は保存されません。', '</MyCallout>'], text: '設定は保存されません。\n' },
    { name: 'a `>` inside a quoted value does not end the tag', md: ['<el-table-column', '  :formatter="(row) => row.a > 1"', '/>', '本文です。'], text: '本文です。' },
    { name: 'text after the tag on its last line stays', md: ['<MkSample :x="{', '  a: 1 }"/>その後の文。'], text: 'その後の文。' },
  ])('$name', ({ md, text }) => {
    expect(cleanMarkdown(md.join('\n'))).toBe(text);
  });

  it.each([
    { name: 'a placeholder in prose that never closes as a tag', md: ['<Name を入力します。', '次に OK を押します。'] },
    { name: 'prose at the start of a line with a comparison later', md: ['<Ctrl + 1 は 2 より', '小さい値 > 0 です。'] },
    { name: 'a tag inside a code fence', md: ['```vue', '<MkSample :x="{', '  a: 1 }"/>', '```'] },
  ])('leaves alone $name', ({ md }) => {
    const text = cleanMarkdown(md.join('\n'));
    for (const line of md.filter((l) => !l.startsWith('```'))) expect(text).toContain(line);
  });

  it('leaves a tag longer than its bound alone rather than scanning on (its lines stay as text)', () => {
    const long = ['<MkSample :x="{', ...Array.from({ length: 300 }, (_, i) => `  key${i}: 'value${i}',`), '}"/>', '本文です。'];
    const text = cleanMarkdown(long.join('\n'));
    expect(text).toContain("key150: 'value150'");
    expect(text).toContain('本文です。');
  });
});

describe('cleanMarkdown: a raw HTML table keeps its cell boundaries', () => {
  it('reads a table of rows on single lines cell by cell, a row per line', () => {
    const md = ['### 公開範囲の比較', '<table>', '\t<tr><th></th><th>パブリック</th><th>ホーム</th><th>フォロワー</th></tr>', '\t<tr><th>フォロワーのLTL</th><td>✔</td><td>✔</td><td>✔</td></tr>', '</table>', '', '## ピン留め'].join('\n');
    const text = cleanMarkdown(md);
    expect(text).not.toContain('パブリックホーム');
    const lines = text.split('\n');
    const header = lines.find((l) => l.includes('パブリック'))!;
    expect(header.split(/\s+/).filter(Boolean)).toEqual(['パブリック', 'ホーム', 'フォロワー']);
    expect(lines.find((l) => l.includes('フォロワーのLTL'))!.split(/\s+/).filter(Boolean)).toEqual(['フォロワーのLTL', '✔', '✔', '✔']);
    expect(text).toContain('### 公開範囲の比較');
    expect(text).toContain('## ピン留め');
  });

  it('reads a table written a cell per line without the lines that held only tags', () => {
    const md = ['<table>', '\t<tr>', '\t\t<th>色</th>', '\t\t<th>状態</th>', '\t</tr>', '\t<tr>', '\t\t<td>🟢緑</td>', '\t\t<td>オンライン</td>', '\t</tr>', '</table>', '表の後の文。'].join('\n');
    const lines = cleanMarkdown(md).split('\n').filter((l) => l.trim() !== '');
    expect(lines.map((l) => l.split(/\s+/).filter(Boolean))).toEqual([['色', '状態'], ['🟢緑', 'オンライン'], ['表の後の文。']]);
  });

  it('leaves a table that never closes to the line-by-line cleaning', () => {
    expect(cleanMarkdown(['<table>', '<tr><td>A</td><td>B</td></tr>', '本文。'].join('\n'))).toContain('本文。');
  });
});

describe('cleanMarkdown: an image whose alt text holds one level of brackets', () => {
  it.each([
    ['![画面 [例] の説明](/img/a.png)本文', '本文'],
    ['![Screenshot that says "as in #barcamp [msg]?"](/img/docs/1.ja.png)', ''],
    ['前![登録ボタン](/img/b.png)後', '前後'],
    ['![画面 [例] の説明][ref]本文\n\n[ref]: /img/a.png', '本文\n'],
  ])('%s', (md, text) => {
    expect(cleanMarkdown(md)).toBe(text);
  });
});

// Review of the loader's audit-11 changes (bug review B2): text the table and tag paths lost or took for a table.
describe('cleanMarkdown: what lies around a raw HTML table stays', () => {
  it.each([
    {
      name: 'text after `</table>` on the line the table opens',
      md: ['<table><tr><td>A</td></tr></table> Trailing words after the table stay.', 'Next line.'],
      holds: ['A', 'Trailing words after the table stay.', 'Next line.'],
    },
    {
      name: 'a second table on the same line',
      md: ['<table><tr><td>Plan A</td></tr></table><table><tr><td>Plan B</td></tr></table>', '本文。'],
      holds: ['Plan A', 'Plan B', '本文。'],
    },
    {
      name: 'text after `</table>` on a later line',
      md: ['<table>', '<tr><td>A</td></tr>', '</table> 表の後の文。'],
      holds: ['A', '表の後の文。'],
    },
  ])('$name', ({ md, holds }) => {
    const text = cleanMarkdown(md.join('\n'));
    for (const words of holds) expect(text).toContain(words);
  });

  it('an unclosed table whose `</table>` is only in a later code sample keeps the prose between and the fence', () => {
    const md = ['# Tables', '', '<table>', '<tr><td>Plan A</td><td>Free</td></tr>', '', 'To end a table, write:', '', '```html', '</table>', '```', '', '## Billing', '', 'Invoices are issued monthly.'].join('\n');
    const text = cleanMarkdown(md);
    expect(text).toContain('To end a table, write:');
    expect(text).toContain('```html\n</table>\n```');
    expect(text).toContain('## Billing\n\nInvoices are issued monthly.');
  });
});

describe('cleanMarkdown: a table or component tag in an indented code block is code', () => {
  it.each([
    { name: 'a table under a blank line, four spaces in', md: ['# HTML', '', 'Example:', '', '    <table>', '      <tr><td>x</td></tr>', '    </table>', '', 'Done.'] },
    { name: 'a table indented by a tab', md: ['Example:', '', '\t<table><tr><td>A</td><td>B</td></tr></table>', '', 'Done.'] },
    { name: 'a component tag over several lines', md: ['Example:', '', '    <MkSample :x="{', '      a: 1 }"/>', '', 'Done.'] },
  ])('$name: not read as a table or a tag (a line stays a line, its indent with it)', ({ md }) => {
    const text = cleanMarkdown(md.join('\n'));
    const indents = (lines: readonly string[]) => lines.map((l) => /^\s*/.exec(l)![0]);
    expect(indents(text.split('\n'))).toEqual(indents(md));
    expect(text).toContain('Done.');
    if (md.some((l) => l.includes('MkSample'))) expect(text).toContain('a: 1 }"/>');
  });

  it.each([
    { name: 'a list item (its content indented four spaces, as MkDocs writes it)', md: ['1. Step one', '', '    <table><tr><td>A</td><td>B</td></tr></table>', '', 'Done.'] },
    { name: 'a list item’s second paragraph', md: ['- Item', '', '  More about it.', '', '    <table><tr><td>A</td><td>B</td></tr></table>'] },
    { name: 'a paragraph’s indented next line', md: ['Text of a paragraph', '    <table><tr><td>A</td><td>B</td></tr></table>'] },
  ])('$name: still a table', ({ md }) => {
    const row = cleanMarkdown(md.join('\n'))
      .split('\n')
      .find((l) => l.includes('A'));
    expect(row?.split(/\s+/).filter(Boolean)).toEqual(['A', 'B']);
  });
});

describe('cleanMarkdown: Markdown inside a raw HTML table’s cells', () => {
  it('a link keeps its text and drops its target, an image goes, a code span stays', () => {
    const md = ['<table>', '<tr>', '<td>', '', '**Pro** plan: see [the pricing page](https://example.com/pricing) and `npm i foo` ![logo](/img/logo.png)', '', '</td>', '</tr>', '</table>', '', 'After.'].join('\n');
    const text = cleanMarkdown(md);
    expect(text.replace(/\s+/g, ' ')).toContain('see the pricing page and `npm i foo`');
    expect(text).not.toContain('example.com');
    expect(text).not.toContain('logo');
    expect(text).toContain('After.');
  });

  it('escaped markup in a cell stays the text the reader sees', () => {
    const text = cleanMarkdown(['<table>', '<tr><td>&lt;Foo bar="x"&gt;</td><td>[x](y) in `code`</td></tr>', '</table>'].join('\n'));
    expect(text).toContain('<Foo bar="x">');
  });
});
