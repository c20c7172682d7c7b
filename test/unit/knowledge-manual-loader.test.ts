import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chunkSections,
  cleanMarkdown,
  createManualSplitter,
  htmlSections,
  loadManualChunks,
  markdownSections,
} from '../../src/knowledge/manual-loader.js';
import type { Logger } from '../../src/logger.js';

describe('cleanMarkdown', () => {
  it.each([
    {
      name: 'front matter goes; its title heads a page without # heading',
      md: '---\ntitle: "ログイン"\ndescription: 説明文\nsidebar_position: 2\n---\n## 手順\n本文。',
      text: '# ログイン\n\n## 手順\n本文。',
    },
    { name: 'front matter title does not replace a # heading', md: '---\ntitle: x\n---\n# 本当の見出し\n本文。', text: '# 本当の見出し\n本文。' },
    { name: 'container fences go, a custom title stays', md: '::: tip\n注意して。\n:::\n:::warning 重要\n消えます。\n:::', text: '注意して。\n重要\n消えます。' },
    { name: 'html comments, also over lines', md: '前<!-- 非表示 -->後\n<!--\n長い\nコメント\n-->\n本文。', text: '前後\n本文。' },
    { name: 'images go', md: '画面 ![スクリーンショット](./img/login.png) と <img src="a.png" alt="x"> です。', text: '画面  と  です。' },
    { name: 'link texts stay, targets go', md: '[設定画面](/guide/settings.md#top) と [参照][ref] を見る。\n[ref]: https://example.com/x', text: '設定画面 と 参照 を見る。' },
    { name: 'html tags go, placeholders stay', md: '<div class="x"><b>太字</b><br/>コマンド show <id></div>', text: '太字コマンド show <id>' },
    { name: 'code is kept as it is', md: '`[a](b)` と\n```\n<!-- keep -->\n::: tip\n```', text: '`[a](b)` と\n```\n<!-- keep -->\n::: tip\n```' },
    {
      name: '<script> and <style> blocks go, over lines or on one',
      md: '<script setup>\nimport { ref } from \'vue\'\nconst count = ref(0)\n</script>\n本文。\n<style scoped>\n.tip { color: red }\n</STYLE>\n<script>track("x")</script>\n続き。',
      text: '本文。\n続き。',
    },
    {
      name: 'MDX import and export lines go, a sentence about importing stays',
      md: "import Tabs from '@theme/Tabs';\nimport '@site/custom.css';\nexport const meta = { id: 1 };\nimport コマンドで CSV を取り込みます。",
      text: 'import コマンドで CSV を取り込みます。',
    },
    {
      name: 'component tags go, their text stays; placeholders stay',
      md: '<Tabs>\n<TabItem value="mac" label="macOS">\nmacOS の手順 <Badge type="tip" text="v2" /><el-tag size="small">新機能</el-tag>\n</TabItem>\n</Tabs>\nshow <user-id> と <ID> を指定',
      text: '\n\nmacOS の手順 新機能\n\n\nshow <user-id> と <ID> を指定',
    },
    {
      name: 'interpolations, toc markers and heading anchors go',
      md: '[[toc]]\n## 設定 {#settings}\n{{ $frontmatter.title }}の説明。\n[toc]',
      text: '## 設定\nの説明。',
    },
    {
      name: 'MkDocs admonition and GitHub alert markers go, a quoted title and the text stay',
      md: '!!! note "ご注意"\n    保存してください。\n??? tip\n    ヒント本文。\n> [!WARNING]\n> 元に戻せません。',
      text: 'ご注意\n    保存してください。\n    ヒント本文。\n> \n> 元に戻せません。',
    },
    {
      name: 'HTML entities are decoded in prose, not in code; a bare & stays',
      md: 'ユーザー名&nbsp;欄 &lt;必須&gt; R&D &#12354; `&lt;tag&gt;`',
      text: 'ユーザー名\u00a0欄 <必須> R&D あ `&lt;tag&gt;`',
    },
  ])('$name', ({ md, text }) => {
    expect(cleanMarkdown(md)).toBe(text);
  });

  // Not a speed target: these lines took seconds to minutes each while a pattern rescanned the rest of the line from
  // every unclosed `<a`, `[` or `![` (quadratic), or tried every split of a run of spaces (`import` + spaces). Linear
  // patterns clean them in milliseconds, so the generous timeout only catches that kind of blow-up.
  it('a page of long lines full of unclosed markup is cleaned without blowing up', { timeout: 10_000 }, () => {
    const n = 100_000;
    const lines = [
      '<A '.repeat(n),
      '<a-b '.repeat(n),
      `import ${' '.repeat(3 * n)}x`,
      `## x ${'{#'.repeat(n)}`,
      '['.repeat(3 * n),
      '!['.repeat(n),
      '[a]('.repeat(n),
      '<img '.repeat(n),
      '{{ '.repeat(n),
      ' ++a+b'.repeat(n),
      ':material-a '.repeat(n),
      `${'| a '.repeat(n)}\n${'|---'.repeat(n)}`,
      `\`\`\`${' '.repeat(3 * n)}x\n\`\`\``,
      // A footnote label that took `[` rescanned the rest of the line from every `[^` (bug review 45b: 160 kB, 15 s).
      '[^'.repeat(n),
      '[^a'.repeat(n),
    ];
    const text = cleanMarkdown(lines.join('\n'));
    expect(markdownSections(text).length).toBeGreaterThan(0);
  });

  it('a section of documentation-site Markdown indexes no markup words', () => {
    const sections = markdownSections(cleanMarkdown('---\ntitle: 二段階認証\n---\n::: tip\n[認証アプリ](https://x.example/app)を使う。![図](a.png)\n:::'));
    expect(sections).toEqual([{ heading: '二段階認証', text: '認証アプリを使う。' }]);
  });
});

// What an MkDocs manual (Material theme, pymdownx) leaves in the text, found on a real Japanese manual by retrieval
// audit 8: padded tables, content tabs, keys, icons, footnotes, fence attributes; and the look-alikes that must stay.
describe('cleanMarkdown: MkDocs markup and tables', () => {
  it.each([
    {
      name: 'a table loses its delimiter row and the padding of its cells',
      md: '| 項目名   | 説明       |\n| :------- | :--------: |\n| タイトル | 表の題名   |\n| 区切り   | a \\| b     |\n\n後の段落。',
      text: '| 項目名 | 説明 |\n| タイトル | 表の題名 |\n| 区切り | a \\| b |\n\n後の段落。',
    },
    { name: 'a table without outer pipes', md: '項目  | 説明\n----- | ----\nA     | B', text: '項目 | 説明\nA | B' },
    { name: 'a table ends at a code fence', md: '| a | b |\n|---|---|\n```\nx\n```\nA   |   B', text: '| a | b |\n```\nx\n```\nA   |   B' },
    { name: 'empty cells', md: '| a | b | c |\n|---|---|---|\n| x |   |   |', text: '| a | b | c |\n| x | | |' },
    {
      name: 'an indented table under a content tab, with keys in a cell',
      md: '=== "Windows"\n    | キー       | 動作 |\n    | ---------- | ---- |\n    | ++ctrl+c++ | 複製 |',
      text: 'Windows\n    | キー | 動作 |\n    | Ctrl+C | 複製 |',
    },
    { name: 'content tab markers go, their labels stay', md: '=== "年月日"\n    本文。\n===! "別の組"\n===+ "選択済み"', text: '年月日\n    本文。\n別の組\n選択済み' },
    { name: 'keys read as the reader sees them', md: '++ctrl+alt+del++ または ++enter++ を押す', text: 'Ctrl+Alt+Del または Enter を押す' },
    {
      name: 'icon shortcodes go',
      md: ':material-alpha-o-box: 項目 :fontawesome-solid-gear:設定 :octicons-alert-16: 注意:simple-github:',
      text: ' 項目 設定  注意',
    },
    {
      name: 'footnote references go, the footnote text stays',
      md: '「エディタ」で設定します[^1]。\n\n[^1]: 「テーブルの管理」画面→「エディタ」タブ',
      text: '「エディタ」で設定します。\n\n「テーブルの管理」画面→「エディタ」タブ',
    },
    { name: 'a footnote whose text is on the indented lines below', md: '本文[^note]。\n[^note]:\n    サーバ名を編集してください。', text: '本文。\n    サーバ名を編集してください。' },
    {
      name: "the product's own placeholders stay, in a table and in prose",
      md: '| 名前         | 説明   |\n| ------------ | ------ |\n| {{SiteId}}   | サイトID |\n{{ Id }} と {{Timestamp}} を使う。',
      text: '| 名前 | 説明 |\n| {{SiteId}} | サイトID |\n{{ Id }} と {{Timestamp}} を使う。',
    },
    { name: 'a link whose text is code loses its target', md: '[`Foo`](foo.md) と [the `bar` option](x.md#y) を見る。', text: '`Foo` と the `bar` option を見る。' },
    {
      name: 'code fence attributes go, the language and a title stay',
      md: '```sql linenums="1"\nSELECT 1;\n```\n``` json title="JSON" linenums="1" hl_lines="5"\n{}\n```',
      text: '```sql\nSELECT 1;\n```\n``` json JSON\n{}\n```',
    },
    // What must go on going.
    {
      name: 'Vue interpolations with spaces, $, dots or operators still go',
      md: '{{ $frontmatter.title }}の{{ count + 1 }}件、{{page.title}}。',
      text: 'の件、。',
    },
  ])('$name', ({ md, text }) => {
    expect(cleanMarkdown(md)).toBe(text);
  });

  it.each([
    { name: 'a table in a code fence', md: '```\n| a   | b |\n| --- | - |\n```' },
    { name: 'a pipe in a code block and in inline code', md: '```sh\nls   |   grep x\n```\nコマンド `ls | grep x` を実行。' },
    { name: 'prose with pipes that is not a table', md: 'A | B の形式で書きます。\n次の行 | です。' },
    { name: 'a pipe line followed by a rule without pipes', md: 'A | B\n---' },
    { name: '=== as a setext heading underline', md: 'タイトル\n===\n本文。' },
    { name: '++ in prose', md: 'C++ と C++/CLI、i++ と ++i、g++ -o x' },
    { name: 'colons in prose', md: '時刻は 10:30:00、http://x.example/ と 注意:material です。' },
  ])('leaves alone: $name', ({ md }) => {
    expect(cleanMarkdown(md)).toBe(md);
  });

  it('a link reference definition still goes', () => {
    expect(cleanMarkdown('[参照][ref] を見る。\n[ref]: https://example.com/x')).toBe('参照 を見る。');
  });

  it('a padded 10-row table becomes one chunk, not many of spaces and dashes', async () => {
    const pad = (cell: string, width: number) => cell + ' '.repeat(width - cell.length);
    const row = (a: string, b: string, c: string) => `| ${pad(a, 16)} | ${pad(b, 12)} | ${pad(c, 120)} |`;
    const table = [
      row('項目', '既定値', '説明'),
      `| :${'-'.repeat(15)} | :${'-'.repeat(10)}: | ${'-'.repeat(120)} |`,
      ...Array.from({ length: 10 }, (_, i) => row(`項目${i}`, `${i}`, `項目${i}の説明です。`)),
    ].join('\n');
    const sections = markdownSections(cleanMarkdown(`## パラメータ\n${table}\n`));
    const chunks = await chunkSections('m.md', sections, createManualSplitter());
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.content).not.toMatch(/ {2}|---/);
    for (let i = 0; i < 10; i++) expect(chunks[0]?.content).toContain(`| 項目${i} | ${i} | 項目${i}の説明です。 |`);
  });
});

// Found by bug review 45b on the MkDocs markup above: text a reader sees was lost, or took a heading's place.
describe('cleanMarkdown: what the MkDocs rules must not take', () => {
  it.each([
    { name: 'a regex class in prose is no footnote reference', md: '数字以外は [^0-9] で、英小文字以外は [^a-z] と書きます。' },
    { name: 'a regex class in English prose', md: 'The pattern [^\\s]+ matches words; [^"] too.' },
    { name: 'a code span inside an interpolation', md: '変数は {{ `SiteId` }} のように書く。' },
    { name: 'a code span inside what looks like a tag', md: 'List<Item `x`> と <Foo `bar`> と <b `x`> を返す。' },
    { name: 'a one-line code span of three backticks, and the prose after it', md: '``` x=1 y=2 ```\n本文。' },
    { name: 'key markup inside a word', md: '値++1++の説明と x++y++z' },
  ])('leaves alone: $name', ({ md }) => {
    expect(cleanMarkdown(md)).toBe(md);
  });

  it.each([
    {
      name: 'a defined footnote reference goes, an undefined one beside it stays',
      md: '本文[^1] と [^a-z] と [^2]。\n\n[^1]: 注記',
      text: '本文 と [^a-z] と [^2]。\n\n注記',
    },
    { name: 'a table row of dashes after the delimiter row stays', md: '| 値 |\n|---|\n| - |\n| -- |\n| 10 |', text: '| 値 |\n| - |\n| -- |\n| 10 |' },
    {
      name: 'a table body row of dashes stays',
      md: '| 機能 | 無料 |\n|---|---|\n| API | - |\n| - | - |\n| CSV | ○ |',
      text: '| 機能 | 無料 |\n| API | - |\n| - | - |\n| CSV | ○ |',
    },
    { name: 'prose after a one-line three-backtick code span is still cleaned', md: '``` a ```\n[リンク](x.md) を見る。', text: '``` a ```\nリンク を見る。' },
    {
      name: 'a link whose title holds code still loses its target (CommonMark reads the target as it is)',
      md: '* is-relative | [homepage](https://x.example/r "Returns `true` if relative.")',
      text: '* is-relative | homepage',
    },
    { name: 'key markup after Japanese punctuation still reads as keys', md: '押す、++alt++ と：++ctrl+c++', text: '押す、Alt と：Ctrl+C' },
  ])('$name', ({ md, text }) => {
    expect(cleanMarkdown(md)).toBe(text);
  });

  it.each([
    { name: 'a footnote text starting with #', md: '---\ntitle: 題\n---\n本文[^1]。\n\n[^1]: # 注記' },
    { name: 'a content tab label starting with #', md: '---\ntitle: 題\n---\n本文。\n=== "# Windows"\n    手順。' },
  ])('never makes a heading: $name', ({ md }) => {
    const sections = markdownSections(cleanMarkdown(md));
    expect(sections.map((s) => s.heading)).toEqual(['題']);
    expect(sections[0]?.text).toMatch(/本文。[\s\S]*(注記|Windows)/);
  });

  it('headings after a one-line three-backtick code span are headings', () => {
    expect(markdownSections(cleanMarkdown('``` x=1 ```\n# 章\n本文。')).map((s) => [s.heading, s.text])).toEqual([
      ['', '``` x=1 ```'],
      ['章', '本文。'],
    ]);
  });
});

describe('markdownSections', () => {
  it.each([
    {
      name: 'heading paths from #, ## and ###',
      md: '# 第1章 はじめに\n概要。\n## 1.1 ログイン\nログイン手順。\n### 二段階認証\n認証アプリ。\n## 1.2 ログアウト\nログアウト手順。\n# 第2章 管理\n管理の説明。',
      sections: [
        ['第1章 はじめに', '概要。'],
        ['第1章 はじめに > 1.1 ログイン', 'ログイン手順。'],
        ['第1章 はじめに > 1.1 ログイン > 二段階認証', '認証アプリ。'],
        ['第1章 はじめに > 1.2 ログアウト', 'ログアウト手順。'],
        ['第2章 管理', '管理の説明。'],
      ],
    },
    { name: 'text before the first heading', md: '前書き。\n\n# 章\n本文。', sections: [['', '前書き。'], ['章', '本文。']] },
    { name: 'empty sections are dropped', md: '# 章\n\n## 節\n本文。', sections: [['章 > 節', '本文。']] },
    { name: 'closing hashes are not part of the heading', md: '## 節 ##\n本文。', sections: [['節', '本文。']] },
    { name: 'a skipped level', md: '# 章\n### 項\n本文。\n## 節\n別。', sections: [['章 > 項', '本文。'], ['章 > 節', '別。']] },
    {
      name: '#### to ###### are headings, nested under ###',
      md: '# 章\n## 節\n### 項\n#### 注意\n本文。\n##### 詳細\n細部。\n###### 例\n例文。\n#### 補足\n補足。\n## 次節\n別。',
      sections: [
        ['章 > 節 > 項 > 注意', '本文。'],
        ['章 > 節 > 項 > 注意 > 詳細', '細部。'],
        ['章 > 節 > 項 > 注意 > 詳細 > 例', '例文。'],
        ['章 > 節 > 項 > 補足', '補足。'],
        ['章 > 次節', '別。'],
      ],
    },
    { name: '#### right under #', md: '# 章\n#### 注意\n本文。', sections: [['章 > 注意', '本文。']] },
    { name: 'seven #s are not a heading', md: '# 章\n####### 七\n本文。', sections: [['章', '####### 七\n本文。']] },
    {
      name: 'fenced code under a ##### heading keeps it in its path',
      md: '### 監査ロール\n手順。\n##### CLIで付与するコマンド\n```sh\n# 管理者で実行\nxyz role grant audit\n```',
      sections: [
        ['監査ロール', '手順。'],
        ['監査ロール > CLIで付与するコマンド', '```sh\n# 管理者で実行\nxyz role grant audit\n```'],
      ],
    },
    { name: 'no space after # is not a heading', md: '#タグ\n本文。', sections: [['', '#タグ\n本文。']] },
    {
      name: 'fenced code is never a heading',
      md: '# 章\n```sh\n# コメント\n```\n本文。',
      sections: [['章', '```sh\n# コメント\n```\n本文。']],
    },
    { name: 'CRLF', md: '# 章\r\n本文。\r\n', sections: [['章', '本文。']] },
  ])('$name', ({ md, sections }) => {
    expect(markdownSections(md).map((s) => [s.heading, s.text])).toEqual(sections);
  });
});

describe('htmlSections', () => {
  it('reads a page of thousands of nested elements (no stack overflow, the text kept)', () => {
    const depth = 20_000;
    const sections = htmlSections(`<main><h1>深い</h1>${'<div>'.repeat(depth)}本文。${'</div>'.repeat(depth)}</main>`);
    expect(sections).toEqual([{ heading: '深い', text: '本文。' }]);
  });

  it('reads a saved documentation page as its content: no menus, sidebars, outline or footer', () => {
    const page = `<!doctype html><html><head><title>ログイン | XYZ ドキュメント</title></head><body>
      <header><a href="/">XYZ ドキュメント</a><nav><a href="/a">はじめに</a><a href="/b">料金プラン</a></nav></header>
      <aside class="sidebar"><ul><li>はじめに</li><li>料金プラン</li></ul></aside>
      <main><article><h1>ログイン</h1><p>メールアドレスでログインします。</p><h2>SSO</h2><p>SSO の設定方法。</p></article>
      <aside class="outline"><a href="#sso">このページの内容</a></aside></main>
      <footer>© 2026 XYZ Inc. プライバシーポリシー</footer></body></html>`;
    expect(htmlSections(page)).toEqual([
      { heading: 'ログイン', text: 'メールアドレスでログインします。' },
      { heading: 'ログイン > SSO', text: 'SSO の設定方法。' },
    ]);
  });

  it('a page without main or article is read whole, still without navigation and footer', () => {
    const page = '<html><body><div role="navigation">メニュー</div><nav>目次</nav><h2>節</h2><p>本文。</p><footer>フッター</footer></body></html>';
    expect(htmlSections(page)).toEqual([{ heading: '節', text: '本文。' }]);
  });

  it('splits by h1–h3 and keeps only body text', () => {
    const html = `<!doctype html><html><head><title>タイトル</title><style>p { color: red }</style></head>
      <body>
        <p>前書き</p>
        <h1>第1章 <em>セキュリティ</em></h1>
        <p>概要。<a href="https://example.com/x">詳細</a></p>
        <h2>二段階認証</h2>
        <ul><li>認証アプリ</li><li>SMS</li></ul>
        <h3>バックアップコード</h3>
        <table><tr><th>項目</th><th>値</th></tr><tr><td>桁数</td><td>8</td></tr></table>
        <h4>補足</h4><p>補足の本文</p>
        <script>alert(1)</script>
      </body></html>`;
    const sections = htmlSections(html);
    expect(sections.map((s) => s.heading)).toEqual([
      '',
      '第1章 セキュリティ',
      '第1章 セキュリティ > 二段階認証',
      '第1章 セキュリティ > 二段階認証 > バックアップコード',
    ]);
    expect(sections[0]?.text).toBe('前書き');
    expect(sections[1]?.text).toBe('概要。詳細');
    expect(sections[2]?.text).toBe('・認証アプリ\n・SMS');
    const last = sections[3]?.text ?? '';
    expect(last).toMatch(/項目\s+値\n桁数\s+8/);
    expect(last).toContain('補足の本文');
    expect(sections.map((s) => s.text).join('\n')).not.toMatch(/タイトル|color|alert|https:/);
  });
});

// Retrieval audit 10 (the Tera Term help, HTML 4.01): a settings page is a definition list, term then description.
describe('htmlSections: definition lists and minor headings', () => {
  it('reads each term of a definition list on a line of its own, its description after it, also minified', () => {
    const html = '<h1>ログ</h1><dl><dt>Local echo</dt><dd>入力した文字を表示します。</dd><dt>Answerback</dt><dd>ENQ に応答します。<dl><dt>Size</dt><dd>バイト数です。</dd></dl></dd></dl><p>以上です。</p>';
    const [section] = htmlSections(html);
    expect(section?.text.split('\n').filter((line) => line.trim() !== '')).toEqual([
      'Local echo 入力した文字を表示します。',
      'Answerback ENQ に応答します。',
      'Size バイト数です。',
      '以上です。',
    ]);
  });

  it('reads terms without a description, and several descriptions of one term, on the term line', () => {
    const html = '<h2>設定</h2>\n<dl>\n  <dt>\n    Local echo\n  </dt>\n  <dd>\n    入力した文字を表示します。\n  </dd>\n  <dt>A</dt>\n  <dt>B</dt>\n  <dd>一つ目。</dd>\n  <dd>二つ目。</dd>\n</dl>';
    expect(htmlSections(html)).toEqual([{ heading: '設定', text: 'Local echo 入力した文字を表示します。\nA\nB 一つ目。 二つ目。' }]);
  });

  it('keeps the words of an h4–h6 heading as written, not upper-cased', () => {
    const html = '<h1>ログ</h1><h2>設定</h2><h3>保存</h3><h4>Auto start logging</h4><p>接続時に自動的にログ採取を開始します。</p><h5>Log Rotate</h5><p>大きさで分けます。</p><h6>Binary mode</h6><p>そのまま保存します。</p>';
    const all = htmlSections(html).map((s) => `${s.heading}\n${s.text}`).join('\n');
    for (const words of ['Auto start logging', 'Log Rotate', 'Binary mode']) expect(all).toContain(words);
    expect(all).not.toMatch(/AUTO|ROTATE|BINARY/);
  });
});

describe('chunking', () => {
  const sentence = (i: number) => `これは${i}番目の文で、手順の説明が続きます。`;
  const longText = Array.from({ length: 40 }, (_, i) => sentence(i)).join('');

  it('keeps chunks within the size, ends them at sentence marks and overlaps neighbours', async () => {
    const chunks = await chunkSections('m.md', [{ heading: 'h', text: longText }], createManualSplitter({ chunkSize: 100, chunkOverlap: 30 }));
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.content.length).toBeLessThanOrEqual(100);
      expect(c.content.startsWith('。') || c.content.startsWith('、')).toBe(false);
    }
    for (const [i, c] of chunks.slice(0, -1).entries()) {
      expect(c.content.endsWith('。') || c.content.endsWith('、')).toBe(true);
      const next = chunks[i + 1]?.content ?? '';
      // The next chunk starts with the tail of this one (at most chunkOverlap characters of it).
      const shared = [...Array(31).keys()].reverse().find((n) => n > 0 && c.content.endsWith(next.slice(0, n)));
      expect(shared, `chunk ${i + 1} and ${i + 2} share no overlap`).toBeGreaterThan(0);
    }
    // Nothing lost: every sentence is somewhere.
    for (let i = 0; i < 40; i++) expect(chunks.some((c) => c.content.includes(sentence(i)))).toBe(true);
  });

  it('without overlap the chunks concatenate back to the text', async () => {
    const chunks = await chunkSections('m.md', [{ heading: '', text: longText }], createManualSplitter({ chunkSize: 80, chunkOverlap: 0 }));
    expect(chunks.map((c) => c.content).join('')).toBe(longText);
  });

  it('numbers chunks per file from 1 across sections, deterministically', async () => {
    const sections = [
      { heading: 'A', text: longText },
      { heading: 'B', text: '短い本文。' },
    ];
    const splitter = createManualSplitter({ chunkSize: 120, chunkOverlap: 10 });
    const first = await chunkSections('m.md', sections, splitter);
    const second = await chunkSections('m.md', sections, createManualSplitter({ chunkSize: 120, chunkOverlap: 10 }));
    expect(second).toEqual(first);
    expect(first.map((c) => c.id)).toEqual(first.map((_, i) => `m.md#${i + 1}`));
    expect(first.at(-1)).toEqual({ id: `m.md#${first.length}`, fileName: 'm.md', heading: 'B', content: '短い本文。' });
  });

  it('cuts an unbroken run by code point, never inside a surrogate pair', async () => {
    const text = '🙂'.repeat(30);
    const chunks = await chunkSections('e.txt', [{ heading: '', text }], createManualSplitter({ chunkSize: 20, chunkOverlap: 0 }));
    expect(chunks.map((c) => c.content).join('')).toBe(text);
    for (const c of chunks) expect(c.content).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('rejects an overlap not smaller than the size', () => {
    expect(() => createManualSplitter({ chunkSize: 50, chunkOverlap: 50 })).toThrow(/chunk overlap/);
  });
});

describe('loadManualChunks', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'manual-loader-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads .md, .txt and .html in name order, skipping other files and dotfiles', async () => {
    await writeFile(path.join(dir, 'b-guide.md'), '# 章\n本文B。');
    await writeFile(path.join(dir, 'a-notes.txt'), '\uFEFFテキストの本文。\r\n二行目。');
    await writeFile(path.join(dir, 'c-page.html'), '<h2>節</h2><p>本文C。</p>');
    await writeFile(path.join(dir, 'image.png'), 'png');
    await writeFile(path.join(dir, '.hidden.md'), '# 隠し\n本文');
    await mkdir(path.join(dir, 'sub.md'));
    const progress: string[] = [];
    const { files, chunks } = await loadManualChunks(dir, { onProgress: (p) => void progress.push(`${p.stage} ${p.done}/${p.total}`) });
    expect(files).toEqual(['a-notes.txt', 'b-guide.md', 'c-page.html']);
    expect(chunks).toEqual([
      { id: 'a-notes.txt#1', fileName: 'a-notes.txt', heading: '', content: 'テキストの本文。\n二行目。' },
      { id: 'b-guide.md#1', fileName: 'b-guide.md', heading: '章', content: '本文B。' },
      { id: 'c-page.html#1', fileName: 'c-page.html', heading: '節', content: '本文C。' },
    ]);
    expect(progress).toEqual(['read 0/3', 'read 1/3', 'read 2/3', 'read 3/3']);
  });

  it("skips what is not the manual: a docs repository's node_modules and the navigation files of docsify and GitBook", async () => {
    await mkdir(path.join(dir, 'node_modules', 'vitepress'), { recursive: true });
    await mkdir(path.join(dir, 'guide'));
    await writeFile(path.join(dir, 'node_modules', 'vitepress', 'README.md'), '# VitePress\nパッケージの説明。');
    await writeFile(path.join(dir, '_sidebar.md'), '- [ログイン](guide/login.md)\n- [料金](guide/price.md)');
    await writeFile(path.join(dir, 'SUMMARY.md'), '# Summary\n* [ログイン](guide/login.md)');
    await writeFile(path.join(dir, 'guide', '_navbar.md'), '- [ホーム](/)');
    await writeFile(path.join(dir, 'guide', 'login.md'), '# ログイン\nメールアドレスでログインします。');
    const { files, perFolder } = await loadManualChunks(dir);
    expect(files).toEqual(['guide/login.md']);
    expect(perFolder).toEqual({ guide: 1 });
  });

  it('reads Docusaurus .mdx pages as the text a reader sees', async () => {
    await writeFile(
      path.join(dir, 'install.mdx'),
      "---\ntitle: インストール\n---\nimport Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n<Tabs>\n<TabItem value=\"mac\" label=\"macOS\">\nアプリをダウンロードして開きます。\n</TabItem>\n</Tabs>\n",
    );
    const { files, chunks } = await loadManualChunks(dir);
    expect(files).toEqual(['install.mdx']);
    expect(chunks).toEqual([{ id: 'install.mdx#1', fileName: 'install.mdx', heading: 'インストール', content: 'アプリをダウンロードして開きます。' }]);
  });

  it('reads a folder tree: relative-path sources, no clash between two index.md, dot-folders skipped, folder links not followed', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'manual-outside-'));
    try {
      await mkdir(path.join(dir, 'guide', 'admin'), { recursive: true });
      await mkdir(path.join(dir, '.vitepress'));
      await mkdir(path.join(dir, 'drafts'));
      await writeFile(path.join(dir, 'index.md'), '# トップ\nトップの本文。');
      await writeFile(path.join(dir, 'guide', 'index.md'), '# ガイド\nガイドの本文。');
      await writeFile(path.join(dir, 'guide', 'admin', 'users.md'), '# 利用者\n利用者の本文。');
      await writeFile(path.join(dir, '.vitepress', 'config.md'), '# 設定\n隠し。');
      // A folder of documents in a format not read (legacy Word) is worth a warning; a folder of a site's pictures,
      // styles and scripts, or an empty one, is not (it would warn at every nightly reindex).
      await writeFile(path.join(dir, 'drafts', 'notes.doc'), 'doc');
      await mkdir(path.join(dir, 'guide', 'images', 'icons'), { recursive: true });
      await writeFile(path.join(dir, 'guide', 'images', 'login.png'), 'png');
      await writeFile(path.join(dir, 'guide', 'images', 'icons', 'gear.SVG'), 'svg');
      await mkdir(path.join(dir, 'assets'));
      await writeFile(path.join(dir, 'assets', 'site.css'), 'css');
      await writeFile(path.join(dir, 'assets', 'site.js'), 'js');
      await writeFile(path.join(dir, 'assets', '_category_.json'), '{}');
      await mkdir(path.join(dir, 'empty'));
      await writeFile(path.join(outside, 'shared.md'), '# 共有\n共有の本文。');
      await symlink(outside, path.join(dir, 'linked'));
      await symlink(outside, path.join(dir, 'linked-again'));
      await symlink(dir, path.join(dir, 'guide', 'loop'));
      await symlink(dir, path.join(outside, 'back'));
      const warnings: string[] = [];
      const logger = { warn: (_: unknown, msg: string) => void warnings.push(msg), debug: () => undefined, info: () => undefined } as unknown as Logger;

      const result = await loadManualChunks(dir, { logger });

      // A folder link out of the tree is refused as a file link is (test/unit/knowledge-files-links.test.ts).
      expect(result.files).toEqual(['guide/admin/users.md', 'guide/index.md', 'index.md']);
      expect(result.chunks.map((c) => c.id)).toEqual(['guide/admin/users.md#1', 'guide/index.md#1', 'index.md#1']);
      expect(result.chunks.find((c) => c.id === 'guide/index.md#1')?.content).toBe('ガイドの本文。');
      expect(result.perFolder).toEqual({ '.': 1, guide: 1, 'guide/admin': 1 });
      expect(result.emptyFolders).toEqual(['drafts']);
      expect(warnings.some((w) => w.includes('drafts/'))).toBe(true);
      expect(warnings.some((w) => w.includes('loop'))).toBe(true);
      expect(warnings.some((w) => w.includes('linked: a link to a folder outside'))).toBe(true);
      expect(warnings.some((w) => w.includes('linked-again: a link to a folder outside'))).toBe(true);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('does not read a linked file whose target lies outside the folders being read (a docs checkout linking a secret)', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'manual-outside-'));
    try {
      await writeFile(path.join(outside, 'secrets.env'), 'OPENAI_API_KEY=sk-secret-123');
      await writeFile(path.join(outside, 'shared.md'), '# 共有\n共有の本文。');
      await mkdir(path.join(outside, 'docs'));
      await writeFile(path.join(outside, 'docs', 'linked.md'), '# リンク先\nリンク先の本文。');
      await writeFile(path.join(dir, 'index.md'), '# トップ\nトップの本文。');
      await symlink(path.join(outside, 'secrets.env'), path.join(dir, 'config.txt'));
      await symlink(path.join(dir, 'index.md'), path.join(dir, 'alias.md'));
      // A file in a subfolder may link within the tree, not out of it.
      await mkdir(path.join(dir, 'shared'));
      await writeFile(path.join(dir, 'shared', 'linked.md'), '# リンク先\nリンク先の本文。');
      await symlink(path.join(dir, 'shared', 'linked.md'), path.join(dir, 'shared', 'again.md'));
      await symlink(path.join(outside, 'secrets.env'), path.join(dir, 'shared', 'env.txt'));
      const warnings: string[] = [];
      const logger = { warn: (_: unknown, msg: string) => void warnings.push(msg), debug: () => undefined, info: () => undefined } as unknown as Logger;

      const result = await loadManualChunks(dir, { logger });

      expect(result.files).toEqual(['alias.md', 'index.md', 'shared/again.md', 'shared/linked.md']);
      expect(result.chunks.map((c) => c.content).join('\n')).not.toContain('sk-secret');
      expect(warnings.filter((w) => w.includes('outside'))).toEqual([
        expect.stringContaining('config.txt'),
        expect.stringContaining('shared/env.txt'),
      ]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('a directory with no readable file is reported as empty', async () => {
    await writeFile(path.join(dir, 'image.png'), 'png');
    const result = await loadManualChunks(dir);
    expect(result.files).toEqual([]);
    expect(result.emptyFolders).toEqual(['.']);
  });

  it('uses the given chunk size and overlap', async () => {
    await writeFile(path.join(dir, 'm.md'), `# 章\n${'あいうえお。'.repeat(100)}`);
    const small = await loadManualChunks(dir, { chunkSize: 60, chunkOverlap: 0 });
    const large = await loadManualChunks(dir, { chunkSize: 300, chunkOverlap: 0 });
    expect(small.chunks).toHaveLength(10);
    expect(large.chunks).toHaveLength(2);
  });

  it('the sample manual gives heading paths and chunks within CHUNK_SIZE', async () => {
    const { files, chunks } = await loadManualChunks(path.resolve('data/manuals'), { chunkSize: 300, chunkOverlap: 20 });
    expect(files).toContain('xyz-manual.md');
    expect(chunks.length).toBeGreaterThan(10);
    for (const c of chunks) expect(c.content.length).toBeLessThanOrEqual(300);
    expect(chunks.some((c) => c.heading.includes(' > ') && c.heading.includes('二段階認証'))).toBe(true);
    expect(chunks.some((c) => c.content.includes('認証アプリ'))).toBe(true);
  });

  it('a missing directory is an error naming it', async () => {
    await expect(loadManualChunks(path.join(dir, 'missing'))).rejects.toThrow(/manuals directory does not exist: .*missing/);
  });

  it('a file given as the directory is an error', async () => {
    await writeFile(path.join(dir, 'file.md'), '# x');
    await expect(loadManualChunks(path.join(dir, 'file.md'))).rejects.toThrow(/not a directory/);
  });
});
