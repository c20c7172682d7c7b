/**
 * Property-based checks of the knowledge and query path on hostile input: a manual page or Q&A file an admin drops in
 * becomes indexed text or a file skipped with a reason, never a failed reindex; a customer's question of any shape
 * gives a search query and a list of hits, never a throw. Generators cover lone surrogates, NULs, U+FFFD, emoji ZWJ
 * sequences, combining marks, full-width forms, deep nesting, unclosed fences and tags, odd entities and spans, CSV
 * quotes, BOMs, mixed line ends and wide rows. Fixed seeds and run counts keep the file quick and repeatable; the rows
 * above the properties are what the fuzzing found.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { convert } from 'html-to-text';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeError } from '../../src/knowledge/errors.js';
import { chunkSections, cleanMarkdown, createManualSplitter, htmlSections, loadManualChunks, markdownSections } from '../../src/knowledge/manual-loader.js';
import { scrubPersonalData } from '../../src/knowledge/personal-data.js';
import { loadQaPairs, parseQaCsv, qaFieldText } from '../../src/knowledge/qa-loader.js';
import { EmbeddedManualSearch } from '../../src/search/embedded-manual.js';
import { EmbeddedQaSearch } from '../../src/search/embedded-qa.js';
import { HashedNgramEmbedder } from '../../src/search/embeddings.js';
import { questionOfQuery } from '../../src/search/query-text.js';
import { askingSentenceCoverage, contentWords, fitQueryWords, keywordCoverage, splitQuestionWords } from '../../src/search/query-words.js';
import { weightedTerms } from '../../src/search/tokenize.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
async function tempDir(prefix: string): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

const FRAGMENTS = [
  '\0', '\uD800', '\uDC00', '\uDBFF\uDFFF', '\uFFFD', '\uFEFF', '👩‍👩‍👧‍👦', '🏳️‍🌈', 'e\u0301\u0301\u0301', '\u0301', 'ＡＢＣ１２３', 'Ｅ－１００１',
  'ログイン', 'パスワード', '二段階認証', 'ですか？', '教えてください。', '、', '。', '？', '!', '\r', '\n', '\r\n', '\u2028', '\u3000', ' ', '\t',
  '&#0;', '&#xD800;', '&#x110000;', '&amp;', '<', '>', '`', '```', '~~~', '#', '|', '-', '*', '[', ']', '(', ')', '{{', '}}', ':::',
  'E-1001', 'v2.3', 'taro@example.com', '03-1234-5678', '〒150-0001', 'TEL:', 'https://x.jp/a/b?c=1', '山田様', 'ｰ', 'サーバー',
  '\u202E', '\u200B', '\u0001', '\u0002', '\uE000', '\uE010', '\uE011', '"', "'", ',',
];

const piece = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...FRAGMENTS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 10 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
);

/** Hostile text: pieces joined, or a few of them repeated up to `maxRepeat` times. */
function hostileText(maxPieces = 30, maxRepeat = 500): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(piece, { maxLength: maxPieces }).map((ps) => ps.join('')) },
    { weight: 1, arbitrary: fc.tuple(fc.array(piece, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: maxRepeat })).map(([ps, n]) => ps.join('').repeat(n)) },
  );
}

const word = fc.oneof(fc.constantFrom('ログイン', 'パスワード', '設定', 'E-1001', 'backup'), hostileText(4, 5));

/** Markdown with deep lists and quotes, fences and comments never closed, wide tables and runs of link openers. */
const markdown = fc
  .array(
    fc.oneof(
      word,
      fc.tuple(fc.integer({ min: 1, max: 7 }), word).map(([n, w]) => `${'#'.repeat(n)} ${w}`),
      fc.tuple(fc.integer({ min: 0, max: 200 }), word).map(([n, w]) => `${'  '.repeat(n)}- ${w}`),
      fc.tuple(fc.integer({ min: 0, max: 200 }), word).map(([n, w]) => `${'> '.repeat(n)}${w}`),
      fc.constantFrom('```', '````js', '~~~', '---', '<!--', '-->', '<script>', ':::tip', ':::', '[[toc]]', '!!! note "t"', '=== "x"', '[^1]: note', '[ref]: http://x'),
      fc.tuple(fc.integer({ min: 1, max: 200 }), word).map(([n, w]) => `|${` ${w} |`.repeat(n)}\n|${' --- |'.repeat(n)}`),
      fc.tuple(fc.integer({ min: 1, max: 300 }), fc.constantFrom('[', '![', '<a', '<Tabs ', '{{', '`', '[x](', '&#', '<!--')).map(([n, s]) => s.repeat(n)),
    ),
    { maxLength: 30 },
  )
  .map((lines) => lines.join('\n'));

const tagName = fc.constantFrom('div', 'p', 'h1', 'h2', 'h3', 'main', 'article', 'nav', 'table', 'tbody', 'tr', 'td', 'th', 'ul', 'li', 'a', 'script', 'pre', 'aside', 'x-y');
const attribute = fc.oneof(
  fc.constant(''),
  fc.tuple(fc.constantFrom('class', 'role', 'href', 'title'), fc.oneof(fc.constantFrom('navbar', 'main', 'headerlink'), hostileText(3, 5))).map(([k, v]) => ` ${k}="${v}"`),
  // Spans as a broken export or a hostile page writes them: zero, negative, huge, not a number.
  fc.tuple(fc.constantFrom('colspan', 'rowspan'), fc.constantFrom('0', '-5', '1e309', 'x', '12000', '100000')).map(([k, v]) => ` ${k}="${v}"`),
);

/** HTML with deep nesting, unclosed tags, odd entities and table spans. */
const html = fc
  .array(
    fc.oneof(
      hostileText(4, 5),
      fc.tuple(tagName, attribute).map(([t, a]) => `<${t}${a}>`),
      tagName.map((t) => `</${t}>`),
      fc.tuple(tagName, fc.integer({ min: 1, max: 2000 })).map(([t, n]) => `<${t}>`.repeat(n)),
      fc.constantFrom('&#0;', '&#xD800;', '&#x110000;', '&nbsp;', '&', '<!--', '<![CDATA[', '<br/>', '<img src=x>'),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

const csvField = fc.oneof(
  hostileText(5, 20),
  fc.constantFrom('質問', '回答', 'question', 'answer', 'Q', 'A', 'id', 'email', '氏名', '1', 'T-201', '2026/7/1', '=1+1', "'=1", '<p>x</p>', '&amp;', ''),
  hostileText(3, 3).map((s) => `"${s.replaceAll('"', '""')}"`),
);

/** CSV text: quoted fields with line breaks, BOMs, mixed line ends, short and long rows, empty files. */
const csv = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('', '\uFEFF', '\n\n', '質問,回答', '"', '"a\n', ',,,\n,,,') },
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.boolean(), fc.array(fc.tuple(fc.array(csvField, { maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r')), { maxLength: 10 }))
      .map(([bom, rows]) => (bom ? '\uFEFF' : '') + rows.map(([fields, eol]) => fields.join(',') + eol).join('')),
  },
);

const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** The properties every manual reader's sections and their chunks keep. */
async function expectReadableSections(source: string, sections: { heading: string; text: string }[]): Promise<void> {
  for (const section of sections) {
    expect(section.text.trim()).not.toBe('');
    expect(section.text).toBe(section.text.trim());
  }
  for (const chunk of await chunkSections('page', sections, createManualSplitter())) {
    expect(chunk.content.trim()).not.toBe('');
    // The splitter cuts by code point: a surrogate pair of the page is never split into two halves.
    if (isWellFormed(source)) expect(isWellFormed(chunk.content)).toBe(true);
  }
}

describe('table spans a page may carry', () => {
  // html-to-text lays a table out with one recursive step per row or column a cell spans, and a grid quadratic in the
  // table's size: rowspan="10000" overflowed the stack (a RangeError, which fails the whole reindex), colspan="100000"
  // ran for minutes, and a negative span recursed without end.
  it.each([
    ['colspan', '12000'],
    ['rowspan', '12000'],
    ['colspan', '100000'],
    ['rowspan', '100000'],
    ['colspan', '-5'],
    ['rowspan', '-5'],
    ['rowspan', '0'],
  ])('%s="%s" keeps the words of the table', (attribute, value) => {
    const page = `<h2>エラー表</h2><table><tr><td ${attribute}="${value}">E-1001</td><td>認証エラー</td></tr><tr><td>E-1002</td></tr></table>`;
    const [section] = htmlSections(page);
    expect(section?.heading).toBe('エラー表');
    for (const text of ['E-1001', '認証エラー', 'E-1002']) expect(section?.text).toContain(text);
  });

  it('a table of thousands of rows or of cells in a row keeps every cell', () => {
    const rows = Array.from({ length: 1_200 }, (_, i) => `<tr><td>E-${i}</td><td>意味${i}</td></tr>`).join('');
    const cells = Array.from({ length: 1_200 }, (_, i) => `<td>列${i}</td>`).join('');
    const [long] = htmlSections(`<table>${rows}</table>`);
    const [wide] = htmlSections(`<table><tr>${cells}</tr></table>`);
    for (const i of [0, 499, 500, 1_199]) {
      expect(long?.text).toMatch(new RegExp(`E-${i}\\s+意味${i}(?!\\d)`));
      expect(wide?.text).toContain(`列${i}`);
    }
  });

  it('a small table is laid out in columns as before', () => {
    const [section] = htmlSections('<table><tr><th>項目</th><th>値</th></tr><tr><td>上限</td><td>100</td></tr></table>');
    expect(section?.text).toBe('項目   値\n上限   100');
  });

  it('a long table with merged cells is laid out in columns as html-to-text lays it out', () => {
    // Review s48-r2: every row-spanning cell's columns were added up over the whole group, so 400 rows of a 4-column
    // table with three cells rowspan="2" every other row counted as 600 columns and came out a cell per line.
    const body = Array.from({ length: 400 }, (_, i) =>
      i % 2 === 0 ? `<tr><td rowspan="2">分類${i}</td><td rowspan="2">型番${i}</td><td rowspan="2">AC${i}</td><td>注記${i}</td></tr>` : `<tr><td>注記${i}</td></tr>`,
    ).join('');
    const table = `<table><tr><th>分類</th><th>型番</th><th>電源</th><th>備考</th></tr>${body}</table>`;
    const [section] = htmlSections(table);
    expect(section?.text).toBe(convert(table, { wordwrap: false, selectors: [{ selector: 'table', format: 'dataTable' }] }));
    expect(section?.text).toMatch(/^分類398 +型番398 +AC398 +注記398$/m);
  });

  it('a row wider than the bound with the columns still open from the row above is read a cell per line', () => {
    // 400 columns held open by a cell of the first row, and 200 cells of its own: 600 columns in the second row.
    const cells = Array.from({ length: 200 }, (_, i) => `<td>列${i}</td>`).join('');
    const [section] = htmlSections(`<table><tr><td rowspan="2" colspan="400">見出し</td></tr><tr>${cells}</tr></table>`);
    expect(section?.text).toBe(['見出し', ...Array.from({ length: 200 }, (_, i) => `列${i}`)].join('\n'));
  });

  it('a page with such a table is read by the reindex, not failing it', async () => {
    const dir = await tempDir('knowledge-properties-');
    await writeFile(path.join(dir, 'errors.html'), '<table><tr><td rowspan="12000">E-1001</td><td>認証エラー</td></tr></table>');
    await writeFile(path.join(dir, 'intro.md'), '# はじめに\n本製品について');
    const result = await loadManualChunks(dir);
    expect(result.files).toEqual(['errors.html', 'intro.md']);
    expect(result.chunks.map((c) => c.content).join('\n')).toContain('認証エラー');
  });
});

describe('manual pages of any shape', () => {
  it('Markdown gives trimmed, non-empty sections and chunks without split surrogate pairs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(markdown, hostileText()), async (page) => {
        await expectReadableSections(page, markdownSections(cleanMarkdown(page)));
      }),
      { seed: 4801, numRuns: 200 },
    );
  });

  it('HTML gives trimmed, non-empty sections and chunks', async () => {
    await fc.assert(
      fc.asyncProperty(html, async (page) => {
        await expectReadableSections(page, htmlSections(page));
      }),
      { seed: 4802, numRuns: 100 },
    );
  });

  it('a folder of such files is read: every file indexed or skipped with a reason, never a thrown reindex', async () => {
    const files = fc.array(
      fc.tuple(fc.constantFrom('.md', '.txt', '.html', '.mdx'), fc.oneof(markdown, html, hostileText()), fc.constantFrom<BufferEncoding>('utf8', 'latin1', 'utf16le')),
      { minLength: 1, maxLength: 3 },
    );
    await fc.assert(
      fc.asyncProperty(files, async (pages) => {
        const dir = await tempDir('knowledge-properties-');
        for (const [i, [ext, text, encoding]] of pages.entries()) await writeFile(path.join(dir, `page${i}${ext}`), Buffer.from(text, encoding));
        const result = await loadManualChunks(dir);
        expect(new Set([...result.files, ...result.skipped.map((s) => s.fileName)]).size).toBe(pages.length);
        for (const skip of result.skipped) expect(skip.reason).not.toBe('');
        for (const chunk of result.chunks) expect(chunk.content.trim()).not.toBe('');
      }),
      { seed: 4803, numRuns: 40 },
    );
  });
});

describe('Q&A files of any shape', () => {
  it('a CSV gives trimmed, non-empty pairs and skips with reasons, or a KnowledgeError naming the file', () => {
    fc.assert(
      fc.property(csv, (text) => {
        let result;
        try {
          result = parseQaCsv(text, 'qa.csv');
        } catch (err) {
          expect(err).toBeInstanceOf(KnowledgeError);
          expect((err as KnowledgeError).message).toMatch(/^qa\.csv\b/);
          return;
        }
        for (const pair of result.pairs) {
          expect(pair.question).not.toBe('');
          expect(pair.answer).not.toBe('');
          expect(pair.question).toBe(pair.question.trim());
          expect(pair.answer).toBe(pair.answer.trim());
        }
        for (const skip of result.skipped) expect(skip.reason).not.toBe('');
      }),
      { seed: 4804, numRuns: 150 },
    );
  });

  it('a field of HTML or hostile text reads as a string', () => {
    fc.assert(
      fc.property(fc.oneof(html, hostileText()), (field) => {
        expect(typeof qaFieldText(field)).toBe('string');
      }),
      { seed: 4805, numRuns: 200 },
    );
  });

  it('a folder of CSV files in any encoding loads, or fails with a KnowledgeError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(csv, fc.constantFrom<BufferEncoding>('utf8', 'latin1', 'utf16le')), { minLength: 1, maxLength: 3 }), async (files) => {
        const dir = await tempDir('knowledge-properties-qa-');
        for (const [i, [text, encoding]] of files.entries()) await writeFile(path.join(dir, `qa${i}.csv`), Buffer.from(text, encoding));
        try {
          await loadQaPairs(dir);
        } catch (err) {
          expect(err).toBeInstanceOf(KnowledgeError);
        }
      }),
      { seed: 4806, numRuns: 40 },
    );
  });
});

describe('questions of any shape', () => {
  it('give a query string and the analysis of it without a throw', () => {
    fc.assert(
      fc.property(hostileText(30, 2_000), (query) => {
        const question = questionOfQuery(query);
        expect(typeof question).toBe('string');
        expect(typeof fitQueryWords(question)).toBe('string');
        expect(Array.isArray(contentWords(question))).toBe(true);
        const terms = weightedTerms(question, { weight: 1, unigramWeight: 1 });
        keywordCoverage(splitQuestionWords(question).topic, terms, 1);
        askingSentenceCoverage(question, terms, 1);
      }),
      { seed: 4807, numRuns: 150 },
    );
  });

  describe('searching the embedded indexes', () => {
    let manual: EmbeddedManualSearch;
    let qa: EmbeddedQaSearch;
    beforeAll(async () => {
      const dir = await tempDir('knowledge-properties-index-');
      manual = new EmbeddedManualSearch({ dir });
      await manual.replaceAll([
        { id: 'a.md#1', fileName: 'a.md', heading: 'ログイン > 二段階認証', content: 'パスワードを忘れた場合は E-1001 を確認してください。' },
        { id: 'a.md#2', fileName: 'a.md', heading: 'Backup', content: 'Backup runs nightly. 👩‍👩‍👧‍👦 ＡＢＣ' },
      ]);
      qa = new EmbeddedQaSearch({ dir, embedder: new HashedNgramEmbedder({ dimensions: 64 }) });
      await qa.replaceAll([
        { id: 'qa.csv#1', fileName: 'qa.csv', row: 1, question: 'ログインできません', answer: 'パスワードを再設定してください。' },
        { id: 'qa.csv#2', fileName: 'qa.csv', row: 2, question: 'E-1001 とは', answer: '認証エラーです' },
      ]);
    });

    it.each([
      ['empty', ''],
      ['blank', '   '],
      ['only punctuation', '。？！'],
      ['NULs', '\0\0'],
      ['lone surrogates', '\uD800\uDC00\uDFFF\uDBFF'],
      ['U+FFFD', '\uFFFD'],
      ['an emoji ZWJ sequence', '👩‍👩‍👧‍👦'],
      ['combining marks', 'e\u0301\u0301'],
      ['full-width forms', 'ＰＡＳＳＷＯＲＤ　Ｅ－１００１'],
      ['20,000 characters', 'ログイン'.repeat(5_000)],
    ])('%s gives a list of hits', async (_, query) => {
      expect(Array.isArray(await manual.search(query))).toBe(true);
      expect(Array.isArray(await qa.search(query))).toBe(true);
    });

    it('any query gives a list of hits from both', async () => {
      await fc.assert(
        fc.asyncProperty(hostileText(30, 500), async (query) => {
          for (const hits of [await manual.search(questionOfQuery(query)), await qa.search(questionOfQuery(query))]) {
            expect(Array.isArray(hits)).toBe(true);
            for (const hit of hits) expect(hit.content).not.toBe('');
          }
        }),
        { seed: 4808, numRuns: 100 },
      );
    });
  });
});

describe('personal data in text bound for the knowledge base', () => {
  it('an e-mail address written in hostile text is never kept', () => {
    const roleMailbox = /^(?:info|sales|billing|contact|support|help|admin|no-?reply|service|team|hello|press|pr|hr|jobs|cs|faq|office|shop|store|legal|care)/;
    fc.assert(
      fc.property(
        hostileText(6, 3),
        hostileText(6, 3),
        fc.stringMatching(/^[a-z][a-z0-9]{2,10}(?:\.[a-z0-9]{2,6})?$/).filter((local) => !roleMailbox.test(local)),
        fc.stringMatching(/^[a-z][a-z0-9-]{1,10}[a-z0-9]\.(?:com|jp|co\.jp|net)$/),
        fc.constantFrom(' ', '\n', '\u3000', '、', '。', '：', ': ', '（', '「'),
        (before, after, local, domain, separator) => {
          const address = `${local}@${domain}`;
          expect(scrubPersonalData(`${before}${separator}${address}${separator}${after}`).text).not.toContain(address);
        },
      ),
      { seed: 4809, numRuns: 300 },
    );
  });
});
