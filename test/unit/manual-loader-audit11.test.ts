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
