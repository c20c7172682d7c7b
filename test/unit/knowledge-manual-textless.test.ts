// A manual file that yields no text (a scanned PDF, an empty or whitespace-only page, a page of markup alone) was
// counted among the files read and named nowhere: the admin believed it searchable (walkthrough 45, L1). It is now a
// skipped file with a reason, as an unreadable one is; a Q&A file that yields no pair and no skipped row is passed
// over with its reason.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Document, Packer, Paragraph } from 'docx';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reindexManual } from '../../jobs/reindex-manual.js';
import { reindexQa } from '../../jobs/reindex-qa.js';
import { formatReindexSummary } from '../../src/cli/format.js';
import { parseConfig } from '../../src/config.js';
import { EmptySourceError } from '../../src/knowledge/errors.js';
import { loadManualChunks, textlessReason } from '../../src/knowledge/manual-loader.js';
import { loadQaPairs } from '../../src/knowledge/qa-loader.js';
import { createSearchBackends } from '../../src/search/factory.js';
import { imageOnlyPdf } from '../support/image-only-pdf.js';

const SCAN = 'no text: a scanned PDF needs OCR first (run OCR on it, or export it again with its text)';
const EMPTY = 'empty file';
const MARKUP = 'no text after markup was removed';
const WORD = "no text in the document's body (headers, footers and pictures are not read; a scanned page needs OCR first)";

describe('textlessReason', () => {
  it.each<[what: string, ext: string, content: string | Buffer, reason: string]>([
    ['a scanned PDF', '.pdf', Buffer.from('%PDF-1.3 …'), SCAN],
    ['an empty .md', '.md', '', EMPTY],
    ['a whitespace-only .md (ideographic spaces, a BOM)', '.md', '\uFEFF  \n\n\u3000\t\n', EMPTY],
    ['an .md of markup alone', '.md', '<img src="a.png">\n<!-- note -->\n', MARKUP],
    ['an .md of front matter alone', '.markdown', '---\ntitle: ログイン\n---\n', MARKUP],
    ['an empty .mdx', '.mdx', '\n', EMPTY],
    ['an .html of tags alone', '.html', '<html><body><img src="x.png"></body></html>', MARKUP],
    ['an empty .htm', '.htm', '', EMPTY],
    ['a whitespace-only .txt', '.txt', ' \r\n \r\n', EMPTY],
    ['a .docx without text', '.docx', Buffer.from('PK…'), WORD],
  ])('%s', (_what, ext, content, reason) => {
    expect(textlessReason(ext, typeof content === 'string' ? Buffer.from(content) : content)).toBe(reason);
  });
});

describe('a manual file without text is skipped with its reason', () => {
  let root: string;
  let dir: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'manual-textless-'));
    dir = path.join(root, 'manuals');
    await mkdir(path.join(dir, 'guide'), { recursive: true });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function textlessFiles(): Promise<void> {
    await writeFile(path.join(dir, 'empty.md'), '');
    await writeFile(path.join(dir, 'blank.txt'), '  \n\u3000\n');
    await writeFile(path.join(dir, 'scan.pdf'), await imageOnlyPdf());
    await writeFile(path.join(dir, 'guide', 'cover.md'), '---\ntitle: 表紙\n---\n\n![表紙](cover.png)\n');
    await writeFile(path.join(dir, 'guide', 'frame.html'), '<html><body><nav>メニュー</nav><main><img src="a.png"></main></body></html>');
    await writeFile(path.join(dir, 'pictures.docx'), await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph('')] }] })));
  }

  it('counts it apart from the files read, indexes the page with text, and names the others by reason', async () => {
    await writeFile(path.join(dir, 'guide', 'login.md'), '# ログイン\n\nセッションのタイムアウトは 60 分です。\n');
    // A title with one line of text is text: only a file that yields no chunk at all is text-less.
    await writeFile(path.join(dir, 'titled.md'), '---\ntitle: 料金\n---\n\n月額 1,000 円です。\n');
    await textlessFiles();
    const result = await loadManualChunks(dir);
    expect(result.files).toEqual(['guide/login.md', 'titled.md']);
    expect(result.perFolder).toEqual({ '.': 1, guide: 1 });
    expect(result.chunks.map((c) => c.fileName)).toEqual(['guide/login.md', 'titled.md']);
    expect(result.skipped).toEqual([
      { fileName: 'blank.txt', reason: EMPTY },
      { fileName: 'empty.md', reason: EMPTY },
      { fileName: 'guide/cover.md', reason: MARKUP },
      { fileName: 'guide/frame.html', reason: MARKUP },
      { fileName: 'pictures.docx', reason: WORD },
      { fileName: 'scan.pdf', reason: SCAN },
    ]);
    expect(result.emptyFolders).toEqual([]);
  });

  it('the reindex summary counts the page read and names the skipped files by reason', async () => {
    await writeFile(path.join(dir, 'good.md'), '# 料金\n\n月額 1,000 円です。\n');
    await writeFile(path.join(dir, 'empty.md'), '');
    await writeFile(path.join(dir, 'scan.pdf'), await imageOnlyPdf());
    const config = parseConfig({ DATA_DIR: path.join(root, 'data'), MANUALS_DIR: dir, EMBEDDINGS_PROVIDER: 'local', EMBEDDING_DIMENSIONS: '64', LOG_LEVEL: 'silent' });
    const backends = createSearchBackends(config);
    try {
      const manual = await reindexManual({}, { config, manual: backends.manual });
      expect(manual).toMatchObject({ files: 1, skippedCount: 2, skipped: [{ fileName: 'empty.md', reason: EMPTY }, { fileName: 'scan.pdf', reason: SCAN }] });
      expect(await backends.manual.count()).toBe(manual.chunks);
      const summary = formatReindexSummary({ manual, seconds: 1 }).split('\n');
      expect(summary[0]).toMatch(/^reindexed: 1 manual file, \d+ chunks? in 1\.0 s$/);
      expect(summary).toContain(`  warning: skipped 1 file: ${EMPTY}: empty.md`);
      expect(summary).toContain(`  warning: skipped 1 file: ${SCAN}: scan.pdf`);
    } finally {
      await backends.manual.close?.();
      await backends.qa.close?.();
    }
  });

  it('when no file has text, the reindex does what it did: an empty index stays empty, a live one is kept', async () => {
    await textlessFiles();
    const config = parseConfig({ DATA_DIR: path.join(root, 'data'), MANUALS_DIR: dir, EMBEDDINGS_PROVIDER: 'local', EMBEDDING_DIMENSIONS: '64', LOG_LEVEL: 'silent' });
    const backends = createSearchBackends(config);
    try {
      const manual = await reindexManual({}, { config, manual: backends.manual });
      expect(manual).toMatchObject({ files: 0, chunks: 0, skippedCount: 6 });
      expect(await backends.manual.count()).toBe(0);
      await writeFile(path.join(root, 'page.md'), '# 料金\n\n月額 1,000 円です。\n');
      await reindexManual({ dir: root }, { config, manual: backends.manual });
      expect(await backends.manual.count()).toBeGreaterThan(0);
      await expect(reindexManual({}, { config, manual: backends.manual })).rejects.toBeInstanceOf(EmptySourceError);
    } finally {
      await backends.manual.close?.();
      await backends.qa.close?.();
    }
  });
});

describe('a Q&A file without a pair or a skipped row is passed over with its reason', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'qa-textless-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('an empty CSV and one of a header alone, beside a file of pairs', async () => {
    await writeFile(path.join(dir, 'empty.csv'), '\uFEFF\r\n');
    await writeFile(path.join(dir, 'faq.csv'), 'question,answer\n料金は？,月額 1,000 円です。\n');
    await writeFile(path.join(dir, 'header.csv'), 'question,answer\n');
    // Its rows are reported one by one already: not passed over as well.
    await writeFile(path.join(dir, 'rows.csv'), 'question,answer\n料金は？,\n');
    const result = await loadQaPairs(dir);
    expect(result.files).toEqual(['faq.csv', 'rows.csv']);
    expect(result.pairs.map((p) => p.id)).toEqual(['faq.csv#1']);
    expect(result.skipped).toMatchObject([{ fileName: 'rows.csv', row: 1, reason: 'empty answer' }]);
    expect(result.passedOver).toEqual([
      { table: 'empty.csv', reason: 'empty file' },
      { table: 'header.csv', reason: 'no rows of questions and answers under the header' },
    ]);
  });

  it('when no file holds a pair, the reindex does what it did: no error, no pairs', async () => {
    await writeFile(path.join(dir, 'empty.csv'), '');
    const result = await loadQaPairs(dir);
    expect(result).toMatchObject({ files: [], pairs: [], passedOver: [{ table: 'empty.csv', reason: 'empty file' }] });
    const config = parseConfig({ DATA_DIR: path.join(dir, 'data'), QA_DIR: dir, EMBEDDINGS_PROVIDER: 'local', EMBEDDING_DIMENSIONS: '64', LOG_LEVEL: 'silent' });
    const backends = createSearchBackends(config);
    try {
      expect(await reindexQa({}, { config, qa: backends.qa })).toMatchObject({ files: 0, pairs: 0, passedOver: [{ table: 'empty.csv', reason: 'empty file' }] });
    } finally {
      await backends.manual.close?.();
      await backends.qa.close?.();
    }
  });
});
