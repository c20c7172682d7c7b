/**
 * Knowledge bases of benchmark size, grown from the sample in `data/`: manual files whose sections recombine the
 * sample manual's headings and sentences, and a Q&A CSV whose pairs vary the sample pairs. The text stays real
 * Japanese product-manual language (same vocabulary, same term statistics), only more of it; a fixed seed makes
 * every run index the same corpus.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { markdownSections } from '../../src/knowledge/manual-loader.js';
import { loadQaPairs } from '../../src/knowledge/qa-loader.js';
import type { QaPair } from '../../src/search/types.js';
import { REPO_ROOT } from './proc.js';
import { pick, prng } from './stats.js';

/** The sample knowledge base of the repository. */
export const SAMPLE_MANUALS_DIR = path.join(REPO_ROOT, 'data/manuals');
export const SAMPLE_QA_DIR = path.join(REPO_ROOT, 'data/qa');

/** Sections and sentences of the sample manual. */
export interface ManualMaterial {
  /** Innermost heading of every section, e.g. `二段階認証`. */
  headings: string[];
  /** Chapter headings (outermost heading of every section path). */
  chapters: string[];
  /** Sentences and list lines of the whole manual. */
  sentences: string[];
}

/** Reads the sample manual into recombinable pieces. */
export async function manualMaterial(): Promise<ManualMaterial> {
  const markdown = await readFile(path.join(SAMPLE_MANUALS_DIR, 'xyz-manual.md'), 'utf8');
  const sections = markdownSections(markdown).filter((s) => s.heading !== '');
  const headings = [...new Set(sections.map((s) => s.heading.split(' > ').at(-1)!))];
  const chapters = [...new Set(sections.map((s) => s.heading.split(' > ')[0]!))];
  const sentences = sections
    .flatMap((s) => s.text.split('\n'))
    .flatMap((line) => line.split(/(?<=。)/))
    .map((s) => s.trim())
    .filter((s) => Array.from(s).length >= 8 && !s.startsWith('|') && !s.startsWith('#'));
  return { headings, chapters, sentences };
}

/**
 * Writes manual markdown files under `dir` holding at least `minChars` characters of section text (about
 * `minChars / 280` chunks at the default chunk size). Returns the number of files written.
 */
export async function writeManualCorpus(dir: string, minChars: number, seed = 1): Promise<number> {
  const material = await manualMaterial();
  const rand = prng(seed);
  await mkdir(dir, { recursive: true });
  const perFile = 200_000;
  let written = 0;
  let files = 0;
  while (written < minChars) {
    const parts: string[] = [`# XYZ システム 運用ガイド 第 ${files + 1} 分冊`, ''];
    let chars = 0;
    let chapter = 0;
    while (chars < perFile && written + chars < minChars) {
      chapter += 1;
      parts.push(`# 第${chapter}章 ${pick(rand, material.chapters).replace(/^第\d+章\s*/, '')}`, '');
      const sectionsInChapter = 3 + Math.floor(rand() * 5);
      for (let s = 0; s < sectionsInChapter; s++) {
        parts.push(`## ${pick(rand, material.headings)}（${chapter}.${s + 1}）`, '');
        const paragraphs = 1 + Math.floor(rand() * 4);
        for (let p = 0; p < paragraphs; p++) {
          const sentences = Array.from({ length: 2 + Math.floor(rand() * 4) }, () => pick(rand, material.sentences));
          const text = sentences.join('');
          chars += Array.from(text).length;
          parts.push(text, '');
        }
      }
    }
    files += 1;
    written += chars;
    await writeFile(path.join(dir, `guide-${String(files).padStart(3, '0')}.md`), parts.join('\n'));
  }
  return files;
}

/** The sample Q&A pairs. */
export async function samplePairs(): Promise<QaPair[]> {
  return (await loadQaPairs(SAMPLE_QA_DIR)).pairs;
}

const CONTEXTS = [
  '営業部の端末で',
  '本日朝から',
  'テナント管理者として',
  '新しく入社した社員のアカウントで',
  '在宅勤務中に',
  '月末の締め処理の前に',
  '海外拠点から',
  'スマートフォンのブラウザで',
  '検証環境で',
  '昨日のメンテナンス後に',
];
const DETAILS = ['ブラウザは Chrome です。', 'Edge で試しても同じでした。', '急ぎではありません。', 'ほかの利用者も同じ状況です。', '画面の表示は問題ありません。', '管理者権限はあります。'];

/** Writes one CSV of exactly `count` distinct pairs varied from the sample pairs; returns its path. */
export async function writeQaCorpus(dir: string, count: number, seed = 2): Promise<string> {
  const pairs = await samplePairs();
  const rand = prng(seed);
  await mkdir(dir, { recursive: true });
  const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;
  const rows = ['question,answer'];
  for (let i = 0; i < count; i++) {
    const base = pairs[i % pairs.length]!;
    const other = pick(rand, pairs);
    // The case number keeps every text distinct, as real past tickets are (and keeps the embedding cache honest).
    const question = `${pick(rand, CONTEXTS)}、${base.question} ${pick(rand, DETAILS)}（問い合わせ番号 Q-${String(i + 1).padStart(6, '0')}）`;
    const answer = rand() < 0.5 ? base.answer : `${base.answer}\nなお、${other.answer.split('\n')[0]}`;
    rows.push(`${quote(question)},${quote(answer)}`);
  }
  const file = path.join(dir, 'bench-qa.csv');
  await writeFile(file, `${rows.join('\n')}\n`);
  return file;
}
