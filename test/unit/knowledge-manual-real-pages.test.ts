// Shapes of real Japanese documentation sites whose markup reached the index, or whose text the loader lost
// (retrieval audit 9): a docsify page with an error code in a heading, kramdown and Pandoc heading attributes, Adobe
// Experience League's UI markers, a Sphinx page of a theme without <main>/<nav>/<aside>, docutils' HTML5 asides,
// Docusaurus' navigation aside, and a Sphinx checkout's .rst sources. The inputs are reproductions in our own words.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanMarkdown, htmlSections, loadManualChunks } from '../../src/knowledge/manual-loader.js';

describe('cleanMarkdown: markup of documentation sites', () => {
  it.each([
    {
      name: 'an error code in brackets is no reference link when the page defines no such label (docsify)',
      md: '### 「SQLSTATE[HY000][2002] Connection refused」と表示される',
      text: '### 「SQLSTATE[HY000][2002] Connection refused」と表示される',
    },
    {
      name: 'array indexes glued to a name stay',
      md: '設定値は options[0][1] に入ります。',
      text: '設定値は options[0][1] に入ります。',
    },
    {
      name: 'a reference link whose label the page defines loses its brackets, full and collapsed',
      md: '詳しくは[料金表][price]と[お問い合わせ][]を見てください。\n\n[price]: https://example.com/price\n[お問い合わせ]: ./contact.md',
      text: '詳しくは料金表とお問い合わせを見てください。\n',
    },
    {
      name: 'labels match as CommonMark matches them: case and runs of spaces do not count',
      md: 'See [the guide][User  Guide].\n\n[user guide]: ./guide.md',
      text: 'See the guide.\n',
    },
    {
      name: 'a cross-reference without a definition in the page (MkDocs autorefs) keeps its text, not its id',
      md: '手順は[バックアップの取り方][backup-howto]にあります。',
      text: '手順はバックアップの取り方にあります。',
    },
    {
      name: 'a kramdown attribute list after a heading goes (docsify translations)',
      md: '## キーボードの動作を確かめるには？ {: id=checking }',
      text: '## キーボードの動作を確かめるには？',
    },
    {
      name: 'Pandoc heading attributes go: unnumbered, unlisted, id with classes',
      md: '## 付録 {-}\n## 索引 {- .unlisted}\n## 目次外 {.unlisted}\n## 設定 {#settings .tabbed lang=ja}',
      text: '## 付録\n## 索引\n## 目次外\n## 設定',
    },
    {
      name: 'braces that are no attributes stay in a heading',
      md: '## 変数 {name} の書き方\n## 範囲 {-1}\n## JSON の {}',
      text: '## 変数 {name} の書き方\n## 範囲 {-1}\n## JSON の {}',
    },
    {
      name: 'Adobe Experience League UI and product markers keep their label only',
      md: '画面上部の*[!UICONTROL ファイル]／[!UICONTROL 保存]*を選びます。[!DNL Report Builder] で開きます。[[!UICONTROL 設定]](settings.md)',
      text: '画面上部の*ファイル／保存*を選びます。Report Builder で開きます。設定',
    },
  ])('$name', ({ md, text }) => {
    expect(cleanMarkdown(md)).toBe(text);
  });
});

describe('htmlSections: site furniture of themes without <main>/<nav>', () => {
  // A Sphinx page built with a Bootstrap theme: a navbar with a language menu, sidebars marked only by their role.
  const bootstrapSphinxPage = `<html lang="ja"><body>
    <div class="navbar navbar-default"><div class="lang"><select><option>EN</option><option>JA</option><option>言語を選ぶ</option></select></div>
      <ul class="nav-list"><li><a href="/ja/start.html">はじめに</a></li><li><a href="/ja/howto.html">使い方</a></li></ul></div>
    <div class="container"><div class="col-md-3"><div class="sidenav" role="complementary"><h4>目次</h4>
      <ul><li><a href="backup.html">バックアップ</a></li><li><a href="#">復元</a></li></ul><p>Version: 3.1.4</p></div></div>
    <div class="col-md-7 content"><div class="section" id="restore">
      <h1>復元<a class="headerlink" href="#restore" title="この見出しへのリンク">¶</a></h1>
      <p>バックアップから設定を戻します。</p>
      <h2>復元の前に<a class="headerlink" href="#before">¶</a></h2><p>サービスを止めます。</p></div></div>
    <div class="col-md-2"><div class="sidenav secondary" role="complementary"><div class="edit"><a href="x">このページを編集する</a></div>
      <ul><li><a href="#">復元</a></li></ul></div></div></div>
    <div role="contentinfo">© Example</div><form role="search"><input name="q"><button>検索</button></form></body></html>`;

  it('keeps the content and its headings without the permalink marks, the menus and the sidebars', () => {
    expect(htmlSections(bootstrapSphinxPage)).toEqual([
      { heading: '復元', text: 'バックアップから設定を戻します。' },
      { heading: '復元 > 復元の前に', text: 'サービスを止めます。' },
    ]);
  });

  it('permalink anchors of VitePress, Docusaurus, MkDocs and Jupyter leave no mark in a heading', () => {
    const html =
      '<main><h2 id="a">設定 <a class="header-anchor" href="#a">#</a></h2><p>x。</p><h2 id="b">手順<a class="hash-link" href="#b">\u200b</a></h2><p>y。</p>' +
      '<h2 id="c">注意<a class="headerlink" href="#c">¶</a></h2><p>z。</p><h2 id="d">例<a class="anchor-link" href="#d">¶</a></h2><p>w。</p></main>';
    expect(htmlSections(html).map((s) => s.heading)).toEqual(['設定', '手順', '注意', '例']);
  });
});

describe('htmlSections: asides', () => {
  // docutils' HTML5 writer (Sphinx 5+): footnotes, `.. sidebar::` and `.. topic::` are <aside> elements in the content.
  const docutilsBody = `<section id="restore"><h1>復元</h1>
    <p>設定を戻します<a class="footnote-reference brackets" href="#f1" id="r1" role="doc-noteref"><span class="fn-bracket">[</span>1<span class="fn-bracket">]</span></a>。</p>
    <aside class="sidebar"><p class="sidebar-title">所要時間</p><p>復元にはおよそ十分かかります。</p></aside>
    <aside class="topic"><p class="topic-title">対象</p><p>管理者の方だけが行えます。</p></aside>
    <aside class="footnote-list brackets"><aside class="footnote brackets" id="f1" role="doc-footnote"><span class="label"><span class="fn-bracket">[</span><a role="doc-backlink" href="#r1">1</a><span class="fn-bracket">]</span></span>
      <p>バージョン 2 以降のバックアップに限ります。</p></aside></aside>
    </section>`;

  it.each([
    { name: 'in a page without <main> (a Bootstrap theme)', html: `<html><body><div class="content">${docutilsBody}</div></body></html>` },
    { name: 'in Sphinx basic theme content (role=main)', html: `<html><body><div class="body" role="main">${docutilsBody}</div><div class="sphinxsidebar" role="navigation"><a href="/">目次</a></div></body></html>` },
    { name: 'in a docutils standalone page (<main>)', html: `<html><body><main>${docutilsBody}</main></body></html>` },
  ])('footnotes, sidebars and topics of docutils are kept $name', ({ html }) => {
    const text = htmlSections(html).map((s) => s.text).join('\n');
    for (const words of ['およそ十分', '管理者の方だけ', 'バージョン 2 以降のバックアップ']) expect(text).toContain(words);
    expect(text).not.toContain('目次');
  });

  it('a content aside of MyST or a Markdown renderer (an admonition) is kept', () => {
    const html = '<main><h2>注意</h2><aside class="admonition note"><p class="admonition-title">メモ</p><p>保存してから閉じます。</p></aside></main>';
    expect(htmlSections(html).map((s) => s.text).join('\n')).toContain('保存してから閉じます。');
  });

  it("Docusaurus' navigation sidebar and a site's plain aside are still dropped", () => {
    const html = `<html><body><div class="main-wrapper"><div class="docsWrapper"><div class="docRoot">
      <aside class="theme-doc-sidebar-container"><nav class="menu"><a href="/docs/a">導入</a><a href="/docs/b">料金プラン</a></nav><p>サイドバーを閉じる</p></aside>
      <div class="docMainContainer"><div class="theme-doc-markdown markdown"><h1>導入</h1><p>インストールします。</p></div></div></div></div></div>
      <aside class="widget"><p>人気の記事</p></aside></body></html>`;
    expect(htmlSections(html)).toEqual([{ heading: '導入', text: 'インストールします。' }]);
  });

  it('a sidebar aside outside the content (VuePress 1 keeps its navigation in <aside class="sidebar">) is dropped', () => {
    const html = `<html><body><div class="theme-container"><aside class="sidebar"><ul><li><a href="/a">料金プラン</a></li></ul></aside>
      <div class="page"><div class="content"><h1>導入</h1><p>インストールします。</p></div></div></div></body></html>`;
    expect(htmlSections(html)).toEqual([{ heading: '導入', text: 'インストールします。' }]);
  });
});

describe('reST sources in the manual folder', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'manual-rst-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('are named as skipped with what to do when no HTML was built from them', async () => {
    await mkdir(path.join(dir, 'install'));
    await writeFile(path.join(dir, 'install', 'platform.rst'), '対応環境\n========\n\nLinux と Windows で動きます。\n');
    await writeFile(path.join(dir, 'index.md'), '# 目次\n本文。\n');
    const result = await loadManualChunks(dir);
    expect(result.files).toEqual(['index.md']);
    expect(result.skipped).toEqual([
      { fileName: 'install/platform.rst', reason: '.rst is not read; build the HTML (Sphinx: make html) and put _build/html in the manual folder' },
    ]);
  });

  it('are not named when the folder holds the pages built from them (a Sphinx checkout with _build/html), whose copies of the sources and index are not read', async () => {
    await mkdir(path.join(dir, 'install'));
    await mkdir(path.join(dir, '_build', 'html', 'install'), { recursive: true });
    await mkdir(path.join(dir, '_build', 'dirhtml', 'usage'), { recursive: true });
    await writeFile(path.join(dir, 'install', 'platform.rst'), '対応環境\n========\n\nLinux と Windows で動きます。\n');
    await writeFile(path.join(dir, 'usage.rst'), '使い方\n======\n\n起動します。\n');
    await writeFile(path.join(dir, 'changes.rst'), '変更履歴\n========\n\n初版。\n');
    await writeFile(path.join(dir, '_build', 'html', 'install', 'platform.html'), '<main><h1>対応環境</h1><p>Linux と Windows で動きます。</p></main>');
    await writeFile(path.join(dir, '_build', 'dirhtml', 'usage', 'index.html'), '<main><h1>使い方</h1><p>起動します。</p></main>');
    // What the build holds beside its pages: its search index, a copy of each source, and the index of terms.
    await writeFile(path.join(dir, '_build', 'html', 'searchindex.js'), 'Search.setIndex({})');
    await mkdir(path.join(dir, '_build', 'html', '_sources', 'install'), { recursive: true });
    await writeFile(path.join(dir, '_build', 'html', '_sources', 'install', 'platform.rst.txt'), '対応環境\n========\n\n.. note::\n   Linux と Windows で動きます。\n');
    await writeFile(path.join(dir, '_build', 'html', 'genindex.html'), '<div role="main"><h1>索引</h1><ul><li><a href="install/platform.html">対応環境</a></li></ul></div>');
    const result = await loadManualChunks(dir);
    expect(result.files).toEqual(['_build/dirhtml/usage/index.html', '_build/html/install/platform.html']);
    // changes.rst has no page of its own: Sphinx builds every source outside exclude_patterns (one left out of the
    // toctree too, with a warning), so beside a build it is an include or an excluded file, and naming it on every
    // reindex is noise (bug review 46d). Without a build in the tree, each source is named unless its page is there.
    expect(result.skipped).toEqual([]);
  });
});
