// Bug review 46b of retrieval audit 9's loader changes: text the base read that the new skips lost (a heading whose
// whole text is its permalink anchor, landmark roles, a navbar and a form's options inside a page's content), Sphinx
// build names skipped wherever they were, the .rst "built" verdict for the whole tree, and the wording for a .docx
// whose text is only in its header. The inputs are reproductions in our own words of the generators' markup.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { htmlSections, loadManualChunks, textlessReason } from '../../src/knowledge/manual-loader.js';

describe('htmlSections: a permalink anchor is dropped only when its text is a permalink mark', () => {
  it.each([
    {
      name: 'VuePress 2 (the heading text inside the anchor, in a span)',
      html: '<main><h1 id="a" tabindex="-1"><a class="header-anchor" href="#a"><span>概要</span></a></h1><p>本文A。</p><h2 id="b" tabindex="-1"><a class="header-anchor" href="#b"><span>パスワードの再設定</span></a></h2><p>本文B。</p></main>',
      headings: ['概要', '概要 > パスワードの再設定'],
    },
    {
      name: "markdown-it-anchor's headerLink (Eleventy)",
      html: '<main><h2 id="a"><a class="header-anchor" href="#a">請求書の発行</a></h2><p>本文A。</p></main>',
      headings: ['請求書の発行'],
    },
    {
      name: "Sphinx's ¶ headerlink after the text",
      html: '<main><h1 id="a">復元<a class="headerlink" href="#a" title="この見出しへのリンク">¶</a></h1><p>本文A。</p></main>',
      headings: ['復元'],
    },
    {
      name: "Docusaurus' hash-link (a zero-width space) and VitePress' # header-anchor",
      html: '<main><h2 id="a">手順<a class="hash-link" href="#a" title="Direct link to 手順">&#8203;</a></h2><p>本文A。</p><h2 id="b">設定 <a class="header-anchor" href="#b">#</a></h2><p>本文B。</p></main>',
      headings: ['手順', '設定'],
    },
    {
      name: 'MkDocs with toc anchorlink, a headerlink or an anchor-link wrapping the text',
      html: '<main><h1 id="x"><a class="headerlink" href="#x">設定ガイド</a></h1><p>本文X</p><h2 id="y"><a class="anchor-link" href="#y">ネットワーク設定</a></h2><p>本文Y</p><h2 id="z"><a class="toclink" href="#z">プロキシ</a></h2><p>本文Z</p></main>',
      headings: ['設定ガイド', '設定ガイド > ネットワーク設定', '設定ガイド > プロキシ'],
    },
    {
      name: 'other marks (§, 🔗, an empty anchor of an icon) are dropped',
      html: '<main><h2 id="a">料金<a class="headerlink" href="#a">§</a></h2><p>本文A。</p><h2 id="b">解約<a class="anchor-link" href="#b">🔗</a></h2><p>本文B。</p><h2 id="c">返金<a class="hash-link" href="#c"><svg></svg></a></h2><p>本文C。</p></main>',
      headings: ['料金', '解約', '返金'],
    },
  ])('$name', ({ html, headings }) => {
    expect(htmlSections(html).map((s) => s.heading)).toEqual(headings);
  });
});

describe('htmlSections: landmark roles, a navbar and a form inside a page with <main>/<article> are content', () => {
  const page = `<!DOCTYPE html><html><body><div class="navbar">サイトのメニュー</div><main>
    <h1>ARIA ロールの説明</h1><p>本文 1。</p>
    <div role="complementary"><p>補足: この設定は全ユーザーに影響します。</p></div>
    <div role="banner"><p>重要なお知らせ: メンテナンスは毎週日曜です。</p></div>
    <div role="contentinfo"><p>この手順書の版: 3.2。</p></div>
    <div role="search"><p>検索機能: 画面上部の検索ボックスに語を入力します。</p></div>
    <h2>フォーム</h2><p>次の項目を選びます:</p><select name="plan"><option>ベーシック（月額1,000円）</option><option>プロ（月額3,000円）</option></select>
    <h2>ナビバー</h2><div class="navbar">ナビバーの説明本文: 画面上部のバーです。</div>
    </main></body></html>`;

  it.each([
    ['role=complementary', '補足: この設定は全ユーザーに影響します。'],
    ['role=banner', '重要なお知らせ: メンテナンスは毎週日曜です。'],
    ['role=contentinfo', 'この手順書の版: 3.2。'],
    ['role=search', '検索機能: 画面上部の検索ボックスに語を入力します。'],
    ['select', 'ベーシック（月額1,000円）'],
    ['.navbar', 'ナビバーの説明本文'],
  ])('%s keeps its text', (_what, words) => {
    expect(htmlSections(page).map((s) => s.text).join('\n')).toContain(words);
  });

  it('in an <article> (pydata-sphinx-theme) as in <main>', () => {
    const html = `<html><body><nav class="navbar">Top nav</nav><div class="bd-main"><article class="bd-article"><h1>API</h1>
      <div role="search"><p>検索APIの使い方: GET /search?q=語</p></div><div role="banner" class="alert"><p>お知らせ: v2 は廃止されます。</p></div></article></div></body></html>`;
    const text = htmlSections(html).map((s) => s.text).join('\n');
    expect(text).toContain('検索APIの使い方');
    expect(text).toContain('v2 は廃止されます');
    expect(text).not.toContain('Top nav');
  });

  it('a page without <main>/<article> still loses them (a Sphinx Bootstrap theme)', () => {
    const html = `<html><body><div class="navbar"><select><option>EN</option><option>言語を選ぶ</option></select><a href="/">はじめに</a></div>
      <div class="sidenav" role="complementary"><a href="x">目次リンク</a></div><div class="content"><h1>復元</h1><p>バックアップから戻します。</p></div>
      <div role="contentinfo">© Example</div><form role="search"><button>検索</button></form></body></html>`;
    expect(htmlSections(html)).toEqual([{ heading: '復元', text: 'バックアップから戻します。' }]);
  });

  // Bug review 46d: a hand-written or Word-exported page has neither content element nor a theme's navbar.
  it('a plain page without <main>/<article> and without a navbar keeps them', () => {
    const html = `<html><body><h1>申込</h1><p>プランを選びます。</p><select><option>ベーシック（月額1,000円）</option><option>プロ（月額3,000円）</option></select>
      <div role="complementary">補足: この設定は全ユーザーに影響します</div><div role="contentinfo">お問い合わせ: 平日9時から</div></body></html>`;
    const text = htmlSections(html).map((s) => s.text).join('\n');
    for (const kept of ['ベーシック（月額1,000円）', '補足: この設定は全ユーザーに影響します', 'お問い合わせ: 平日9時から']) expect(text).toContain(kept);
  });
});

describe('manual folders: Sphinx build names and .rst sources', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'manual-46b-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("an admin's own _sources folder, genindex.html and py-modindex.html without a Sphinx build beside them are read", async () => {
    await mkdir(path.join(dir, 'manuals', '_sources'), { recursive: true });
    await writeFile(path.join(dir, 'manuals', '_sources', 'spec.md'), '# 仕様\n\n原稿の仕様です。\n');
    await writeFile(path.join(dir, 'manuals', 'genindex.html'), '<main><h1>総合索引</h1><p>当社の用語集です。</p></main>');
    await writeFile(path.join(dir, 'manuals', 'py-modindex.html'), '<main><h1>モジュール</h1><p>当社のモジュール一覧です。</p></main>');
    const result = await loadManualChunks(dir);
    expect(result.files).toEqual(['manuals/_sources/spec.md', 'manuals/genindex.html', 'manuals/py-modindex.html']);
  });

  it.each(['searchindex.js', 'objects.inv'])('they are not read beside a Sphinx build marker (%s)', async (marker) => {
    await mkdir(path.join(dir, 'html', '_sources'), { recursive: true });
    await writeFile(path.join(dir, 'html', marker), '');
    await writeFile(path.join(dir, 'html', '_sources', 'install.rst.txt'), 'Install\n=======\n\nText.\n');
    await writeFile(path.join(dir, 'html', 'genindex.html'), '<div role="main"><h1>索引</h1><p>A</p></div>');
    await writeFile(path.join(dir, 'html', 'install.html'), '<main><h1>Install</h1><p>Text.</p></main>');
    const result = await loadManualChunks(dir);
    expect(result.files).toEqual(['html/install.html']);
  });

  it('each .rst is named as skipped unless its own page was built (same stem .html or stem/index.html)', async () => {
    await mkdir(path.join(dir, 'docs', 'install'), { recursive: true });
    await mkdir(path.join(dir, '_build', 'html', 'install'), { recursive: true });
    await mkdir(path.join(dir, '_build', 'dirhtml', 'usage'), { recursive: true });
    await writeFile(path.join(dir, 'docs', 'conf.py'), "project = 'x'\n");
    await writeFile(path.join(dir, 'docs', 'install', 'platform.rst'), '対応環境\n========\n');
    await writeFile(path.join(dir, 'docs', 'usage.rst'), '使い方\n======\n');
    await writeFile(path.join(dir, 'docs', 'index.rst'), '目次\n====\n');
    await writeFile(path.join(dir, 'docs', 'faq.rst'), 'FAQ\n===\n');
    await writeFile(path.join(dir, 'docs', 'install', 'faq.rst'), 'FAQ\n===\n');
    await writeFile(path.join(dir, '_build', 'html', 'install', 'platform.html'), '<main><h1>対応環境</h1><p>Linux で動きます。</p></main>');
    await writeFile(path.join(dir, '_build', 'html', 'index.html'), '<main><h1>目次</h1><p>はじめに。</p></main>');
    await writeFile(path.join(dir, '_build', 'html', 'faq.html'), '<main><h1>FAQ</h1><p>よくある質問。</p></main>');
    await writeFile(path.join(dir, '_build', 'dirhtml', 'usage', 'index.html'), '<main><h1>使い方</h1><p>起動します。</p></main>');
    const result = await loadManualChunks(dir);
    // install/faq.rst has no page of its own: faq.html is the page of docs/faq.rst.
    expect(result.skipped).toEqual([
      { fileName: 'docs/install/faq.rst', reason: '.rst is not read; build the HTML (Sphinx: make html) and put _build/html in the manual folder' },
    ]);
  });

  // Bug review 46d: with a Sphinx build in the tree, a source without a page of its own is an include, an excluded or
  // an orphan file; naming it on every reindex would be noise.
  it('no .rst is named where a Sphinx build (its search index) is in the tree', async () => {
    await mkdir(path.join(dir, 'docs', '_build', 'html'), { recursive: true });
    await writeFile(path.join(dir, 'docs', 'conf.py'), "project = 'x'\n");
    await writeFile(path.join(dir, 'docs', 'index.rst'), '目次\n====\n');
    await writeFile(path.join(dir, 'docs', '_snippet.rst'), '共通の注意\n');
    await writeFile(path.join(dir, 'README.rst'), 'README\n======\n');
    await writeFile(path.join(dir, 'docs', '_build', 'html', 'searchindex.js'), '');
    await writeFile(path.join(dir, 'docs', '_build', 'html', 'index.html'), '<main><h1>目次</h1><p>はじめに。</p></main>');
    const result = await loadManualChunks(dir);
    expect(result.skipped).toEqual([]);
    expect(result.files).toEqual(['docs/_build/html/index.html']);
  });

  it('the page of index.rst does not hide the other, unbuilt .rst sources', async () => {
    await mkdir(path.join(dir, 'site'));
    await writeFile(path.join(dir, 'site', 'index.html'), '<main><h1>トップ</h1><p>ようこそ。</p></main>');
    await writeFile(path.join(dir, 'index.rst'), 'トップ\n======\n');
    await writeFile(path.join(dir, 'setup.rst'), '設定\n====\n');
    const result = await loadManualChunks(dir);
    expect(result.skipped.map((s) => s.fileName)).toEqual(['setup.rst']);
  });
});

describe('textlessReason for a .docx', () => {
  it('does not claim pictures: the body held no text (headers, footers and pictures are not read)', () => {
    const reason = textlessReason('.docx', new Uint8Array());
    expect(reason).not.toContain('only pictures');
    expect(reason).toContain("no text in the document's body (headers, footers and pictures are not read");
  });
});
