/**
 * Retrieval audit 12 (a vendor's Japanese help centre written as Hugo Markdown): a shortcode that stands for a
 * product name inside a sentence (`{{%service%}}にログインできません。`, `{{%store%}}の管理者`) was removed with every
 * other `{{ }}`, so the sentence lost its subject («にログインしたままの状態で») and the name never became a search
 * word, while the front matter title that heads the page kept the raw markup (`{{%store%}}にログインできません。`).
 * The inputs are our own words in the markup of those pages.
 */
import { describe, expect, it } from 'vitest';
import { cleanMarkdown } from '../../src/knowledge/manual-loader.js';

describe('cleanMarkdown: Hugo shortcodes', () => {
  it.each([
    { name: 'a name shortcode inside a sentence keeps its name', md: '{{%service%}}にログインしたままの状態で閉じます。', text: 'serviceにログインしたままの状態で閉じます。' },
    { name: 'with spaces and angle delimiters', md: '新しい{{< store >}}管理者を追加します。', text: '新しいstore管理者を追加します。' },
    { name: 'words of a snake_case name are split', md: 'https://（サブドメイン名）.{{%cybozu_com%}}/ にアクセスします。', text: 'https://（サブドメイン名）.cybozu com/ にアクセスします。' },
    { name: 'a heading keeps the name', md: '## 方法3 {{%CorpName%}}に問い合わせ {#contact}', text: '## 方法3 CorpNameに問い合わせ' },
  ])('$name', ({ md, text }) => {
    expect(cleanMarkdown(md)).toBe(text);
  });

  it.each([
    { name: 'a block shortcode the page closes', md: ['{{% warning %}}', '注意してください。', '{{% /warning %}}'], text: '\n注意してください。\n' },
    { name: 'a paired shortcode used inline', md: ['{{% note %}}メモです。{{% /note %}}'], text: 'メモです。' },
    { name: 'a shortcode with arguments', md: ['画面です。{{< screen src="/img/a.png"  alt="ログイン画面">}}', '{{% enabled JP %}}', '本文。', '{{% /enabled %}}'], text: '画面です。\n\n本文。\n' },
    { name: 'a shortcode alone on its line (a table of contents)', md: ['{{< toc >}}', '本文。'], text: '\n本文。' },
  ])('drops $name', ({ md, text }) => {
    expect(cleanMarkdown(md.join('\n'))).toBe(text);
  });

  it('keeps a bare placeholder of a template as before', () => {
    expect(cleanMarkdown('SELECT * FROM t WHERE id = {{SiteId}}')).toBe('SELECT * FROM t WHERE id = {{SiteId}}');
  });
});

describe('cleanMarkdown: the front matter title is cleaned like the page', () => {
  it.each([
    { name: 'a Hugo shortcode', md: ['---', 'title: "{{%store%}}にログインできません。"', '---', '本文。'], text: '# storeにログインできません。\n\n本文。' },
    { name: 'a link and an entity', md: ['---', 'title: "[設定](a.md)の&amp;一覧"', '---', '本文。'], text: '# 設定の&一覧\n\n本文。' },
  ])('$name', ({ md, text }) => {
    expect(cleanMarkdown(md.join('\n'))).toBe(text);
  });
});

// Left-overs of audit 11's loader fixes, found by reading what they do with inputs of the same kind.
describe('cleanMarkdown: an unclosed HTML table and a `</table>` in an indented code sample', () => {
  it('keeps the prose between them, as a fenced sample does', () => {
    const md = ['<table>', '<tr><td>A</td><td>B</td></tr>', '', '表を閉じるには次のように書きます。', '', '    </table>', '', '後の文。'];
    const text = cleanMarkdown(md.join('\n'));
    expect(text).toContain('表を閉じるには次のように書きます。');
    expect(text).toContain('後の文。');
  });
});

describe('cleanMarkdown: a component tag over several lines that opens mid-line', () => {
  it.each([
    {
      name: 'after prose: the prose stays, the attributes go',
      md: ['イベントの内容: <MkSchemaViewerItemObject :schema="{', "  type: 'object',", '}"/>', '後の文。'],
      text: 'イベントの内容: \n後の文。',
    },
    { name: 'an opening tag: its inner text stays', md: ['補足 <MyCallout', '  type="warning">', '注意です。', '</MyCallout>'], text: '補足 \n注意です。\n' },
  ])('$name', ({ md, text }) => {
    expect(cleanMarkdown(md.join('\n'))).toBe(text);
  });

  it.each([
    { name: 'a placeholder in prose that never closes as a tag', md: ['入力欄に <Name を入れ、', '次に OK を押します。'] },
    { name: 'a tag inside a code span', md: ['例: `<MkSample :x="{`', '  a: 1 }"/> と書きます。'] },
  ])('leaves alone $name', ({ md }) => {
    const text = cleanMarkdown(md.join('\n'));
    for (const line of md) expect(text).toContain(line);
  });
});

// Bug review R3 (finding 5): a `<` in prose read as a tag opening mid-line took the text up to a later `>`, across a
// blank line (a quoted note) or onto a menu path. Only an opening with attribute syntax runs on, never past a blank line.
describe('cleanMarkdown: a `<` in prose is no tag opening mid-line (bug review R3)', () => {
  it.each([
    { name: 'a quote after a blank line', md: ['Use the value <Max or less', '', '> Note: this is important.'] },
    { name: 'a menu path on the next line', md: ['Enter a number <Limit or less', 'then open Settings > Users.'] },
    { name: 'a bare name then a quote on the next line', md: ['Enter the value <Max', '> Note: keep it short.'] },
    { name: 'attributes cut by a blank line', md: ['See <MyCallout type="warning"', '', 'Open Settings > Users.'] },
    { name: 'a word after the name, not an attribute', md: ['Values <Limit are rejected', 'in Settings > Users.'] },
  ])('keeps $name', ({ md }) => {
    const text = cleanMarkdown(md.join('\n'));
    for (const line of md) expect(text).toContain(line.replace(/^> /, ''));
  });

  it.each([
    { name: 'a Vue binding', md: ['内容: <MkSchemaViewerItemObject :schema="{', "  a: 1 }\"/>", '後の文。'], text: '内容: \n後の文。' },
    { name: 'an event handler', md: ['押す: <MyButton @click="go"', '  size="s"/>', '後の文。'], text: '押す: \n後の文。' },
    { name: 'a v- directive', md: ['表示: <MyPanel v-if', '  title="a"/>', '後の文。'], text: '表示: \n後の文。' },
    { name: 'a boolean attribute, the line ending inside a value', md: ['例: <MyTabs sync title="a', 'b"/>', '後の文。'], text: '例: \n後の文。' },
  ])('still drops a tag with $name', ({ md, text }) => {
    expect(cleanMarkdown(md.join('\n'))).toBe(text);
  });
});

// Bug review R3 (finding 6): an argument-less shortcode's name, kept as a word, was glued to the words around it, and
// a formatting shortcode (a line break, a table of contents) became a word of its own.
describe('cleanMarkdown: formatting shortcodes and a kept name between words (bug review R3)', () => {
  it.each([
    { name: 'a line break in a table cell', md: '| a | line one{{< br >}}line two |', text: '| a | line one line two |' },
    { name: 'a table of contents as a list item', md: '- {{< toc >}}', text: '-' },
    { name: 'a rule in a quote', md: '> {{% hr %}}', text: '>' },
    { name: 'a kept name between Latin words', md: 'Sign in to{{%service%}}now.', text: 'Sign in to service now.' },
    { name: 'a name alone in a list item', md: '1. {{< children >}}', text: '1.' },
    { name: 'a kept name next to kana, as Japanese writes it', md: 'Sign in to {{%service%}}にログイン。', text: 'Sign in to serviceにログイン。' },
    { name: 'a line break between kana', md: '| a | 一行目{{< br >}}二行目 |', text: '| a | 一行目二行目 |' },
  ])('$name', ({ md, text }) => {
    expect(cleanMarkdown(md).trim()).toBe(text);
  });
});
