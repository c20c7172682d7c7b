/**
 * Long queries: a weak model passes the customer's whole paragraph, and the sentences around the question (what
 * they were doing, who asked them, when they need it) match other sections. Results are scaled by how much of the
 * asking sentence's content words they hold, so the section the question is about outranks the one a context
 * sentence happens to quote, while a question that leans on its context (「何を見直せばいい？」) is left alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedManualSearch, manualQueryTerms, DEFAULT_MANUAL_RANKING } from '../../src/search/embedded-manual.js';
import { EmbeddedQaSearch } from '../../src/search/embedded-qa.js';
import { HashedNgramEmbedder } from '../../src/search/embeddings.js';
import { askingSentenceCoverage, isAskingSentence, KEYWORD_COVERAGE_FLOOR, querySentences } from '../../src/search/query-words.js';
import type { ManualChunk, QaPair } from '../../src/search/types.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'long-query-'));
  dirs.push(d);
  return d;
}

describe('querySentences / isAskingSentence', () => {
  it.each([
    { text: '先週から担当になりました。バックアップの保存期間は何日ですか？', sentences: ['先週から担当になりました。', 'バックアップの保存期間は何日ですか？'] },
    { text: 'ログインできません\nパスワードを変更したい', sentences: ['ログインできません', 'パスワードを変更したい'] },
    { text: 'バックアップの保存期間', sentences: ['バックアップの保存期間'] },
  ])('$text', ({ text, sentences }) => {
    expect(querySentences(text)).toEqual(sentences);
  });
  it.each([
    { sentence: 'バックアップの保存期間は何日ですか？', asks: true },
    { sentence: '保存期間を教えてください。', asks: true },
    { sentence: 'パスワードを変更したい', asks: true },
    { sentence: '契約の更新はいつ', asks: true }, // a question word, no mark
    { sentence: '先週から担当になりました。', asks: false },
    { sentence: '来週の会議までに整理しておく予定です。', asks: false },
  ])('$sentence asks: $asks', ({ sentence, asks }) => {
    expect(isAskingSentence(sentence)).toBe(asks);
  });
});

describe('askingSentenceCoverage', () => {
  const coverageOf = (text: string) => askingSentenceCoverage(text, manualQueryTerms(text, DEFAULT_MANUAL_RANKING), 1);
  it.each([
    // Context then question: the question's content words, none of the context's.
    { text: '先週から担当になりました。バックアップの保存期間は何日ですか？', has: ['バッ', '保存', '期間'], lacks: ['担当', '先週'] },
    { text: 'バックアップの保存期間を教えてください。上司に聞かれて困っています。', has: ['保存', '期間'], lacks: ['上司'] },
  ])('$text', ({ text, has, lacks }) => {
    const c = coverageOf(text);
    expect(c?.floor).toBe(KEYWORD_COVERAGE_FLOOR);
    for (const t of has) expect(c?.terms.has(t), t).toBe(true);
    for (const t of lacks) expect(c?.terms.has(t), t).toBe(false);
  });
  it.each([
    { text: 'バックアップの保存期間は何日ですか？', why: 'one sentence' },
    { text: 'バックアップは何日残りますか？保存期間は変えられますか？', why: 'every sentence asks' },
    { text: '先週から担当になりました。バックアップの保存期間は30日です。', why: 'no sentence asks' },
    { text: '夜間のバックアップ処理が失敗したのに通知が来なかった。何を見直せばいい？', why: 'the question leans on its context' },
  ])('none: $why', ({ text }) => {
    expect(coverageOf(text)).toBeUndefined();
  });
});

const chunk = (id: string, heading: string, content: string): ManualChunk => ({ id, fileName: `${id}.md`, heading, content });
const pair = (row: number, question: string, answer: string): QaPair => ({ id: `faq.csv#${row}`, fileName: 'faq.csv', row, question, answer });
const fillerChunks = ['ログイン', '通知設定', '支払い方法', '契約内容', '解約手続き', 'データ出力'].map((h, i) => chunk(`f${i}`, h, `${h}の画面で操作します。詳しくは管理者にお問い合わせください。`));

// A context sentence sharing a distractor's words outvoted the question about the target. (Coverage at most halves
// a score: a context that quotes the distractor nearly whole still wins, as it did before.)
// The Q&A pairs are fewer and shorter, so there the context repeats more of the distractor pair's answer.
const QUESTION = 'バックアップの保存期間は何日ですか？';
const longQueries = (context: string) => [
  { name: 'context first', query: context + QUESTION },
  { name: 'question first', query: QUESTION + context },
  { name: 'no question mark', query: context + 'バックアップの保存期間は何日ですか。' },
];

describe('embedded manual: long queries', () => {
  const chunks = [
    chunk('backup', 'バックアップ', 'バックアップの保存期間は30日です。期間を過ぎたバックアップは自動で削除されます。'),
    chunk('room', '会議室の予約', '社内の勉強会で使う会議室は、予約画面から前日までに予約してください。総務の承認は不要です。'),
    chunk('alert', 'バックアップ > 失敗の通知', '夜間のバックアップ処理が失敗すると管理者に通知メールが届きます。通知が来ない場合は通知先の設定を見直してください。'),
    ...fillerChunks,
  ];
  it.each([
    ...longQueries('社内の勉強会で会議室を予約したときに気になりました。').map((q) => ({ ...q, expect: 'backup' })),
    // The topic is in the context and the question is generic: ranked by the whole paragraph as before.
    { name: 'generic question', query: '夜間のバックアップ処理が失敗したのに通知が来なかった。何を見直せばいい？', expect: 'alert' },
  ])('$name → $expect', async ({ query, expect: id }) => {
    const search = new EmbeddedManualSearch({ dir: await tempDir() });
    await search.replaceAll(chunks);
    expect((await search.search(query, 3))[0]?.id).toBe(id);
  });
});

describe('embedded Q&A: long queries', () => {
  const pairs = [
    pair(1, 'バックアップは何日残りますか', 'バックアップの保存期間は30日です。'),
    pair(2, '会議室の予約方法', '社内の勉強会で使う会議室は、予約画面から前日までに予約してください。総務の承認は不要です。'),
    pair(3, 'ログインできません', 'パスワードを再設定してください。'),
    pair(4, '通知を止めたい', '通知設定の画面から止められます。'),
  ];
  it.each(longQueries('社内の勉強会で使う会議室は予約画面から前日までに予約するよう総務から案内がありました。'))('$name → row 1', async ({ query }) => {
    const search = new EmbeddedQaSearch({ dir: await tempDir(), embedder: new HashedNgramEmbedder({ dimensions: 64 }) });
    await search.replaceAll(pairs);
    expect((await search.search(query, 3))[0]?.id).toBe('faq.csv#1');
  });
});
