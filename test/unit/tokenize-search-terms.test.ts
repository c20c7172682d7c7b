/**
 * The BM25 indexes' analysis (weightedTerms, TokenizeOptions.searchIndex): names, codes and numbers weigh like
 * Japanese words of the same length, a number glued to Japanese meets its neighbours, and number spellings fold.
 * The plain tokenize() the hashed embedder and the knowledge gaps use is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { chunkTerms, DEFAULT_MANUAL_RANKING, manualQueryTerms } from '../../src/search/embedded-manual.js';
import { Bm25Builder } from '../../src/search/bm25.js';
import { tokenize, UNIGRAM_PREFIX, WORD_BIGRAM_PREFIX, weightedTerms } from '../../src/search/tokenize.js';

const U = UNIGRAM_PREFIX;
// Spelled out rather than imported alone, so that a missing export cannot make an expectation vacuous.
const W = '\u0002';

function termsOf(text: string): string[] {
  return [...weightedTerms(text, { weight: 1, unigramWeight: 1 }).keys()];
}

describe('BM25 terms of names, codes and numbers', () => {
  it('word bigrams have a namespace of their own', () => {
    expect(WORD_BIGRAM_PREFIX).toBe(W);
  });

  it.each([
    // Joining a number with its neighbours (第22, 22回) was tried and dropped: it lost on JSQuAD's held-out half.
    { name: 'a number glued to Japanese stays a term of its own', text: '第22回大会', has: ['22'], lacks: ['第22', '22回'] },
    { name: 'a year gives its bigrams', text: '1885年に創業', has: ['1885', `${W}18`, `${W}88`, `${W}85`], lacks: ['1885年'] },
    { name: 'a product name of 3+ characters also gives its bigrams', text: 'iPhone15を買った', has: ['iphone15', `${W}ip`, `${W}ph`, `${W}15`], lacks: ['iphone15を'] },
    { name: 'a code keeps its whole term and parts; its bigrams skip the connector', text: 'E-1001', has: ['e-1001', 'e', '1001', `${W}e1`, `${W}10`, `${W}01`], lacks: [`${W}e-`] },
    { name: 'a code glued to Japanese is not joined (only a bare number is)', text: 'E-1001エラー', has: ['e-1001'], lacks: ['e-1001エ', '1001エ'] },
    { name: 'words of two characters give no bigrams', text: 'v2 ok', has: ['v2', 'ok'], lacks: [`${W}v2`, `${W}ok`] },
    { name: 'a thousands separator folds', text: '料金は2,000円です', has: ['2000'], lacks: ['000', '2'] },
    { name: 'several separators fold', text: '1,234,567件', has: ['1234567'], lacks: ['567', '234'] },
    { name: 'a list of codes is not one number', text: 'ISO 639-1,639-2', has: ['639-1', '639-2'], lacks: ['639-1639-2', '1639'] },
    { name: 'a lone kanji is its unigram only', text: '第22回', has: [`${U}第`, `${U}回`], lacks: ['第', '回'] },
    { name: 'a lone kana says nothing', text: 'Wi-Fi を。', has: ['wi-fi'], lacks: ['を'] },
  ])('$name: $text', ({ text, has, lacks }) => {
    const terms = termsOf(text);
    for (const t of has) expect(terms, JSON.stringify(t)).toContain(t);
    for (const t of lacks) expect(terms, JSON.stringify(t)).not.toContain(t);
  });

  it('a lone kanji keeps its plain term when no unigrams are made, so it still matches', () => {
    expect([...weightedTerms('第22回', { weight: 1 }).keys()]).toContain('第');
  });

  it('the plain tokenize() of the embedder and the knowledge gaps is unchanged', () => {
    expect(tokenize('第22回 iPhone15 2,000円')).toEqual(['第', '22', '回', 'iphone15', '2', '000', '円']);
  });
});

describe('manual ranking with names, codes and numbers', () => {
  const rank = (chunks: { heading: string; content: string }[], query: string) => {
    const builder = new Bm25Builder(DEFAULT_MANUAL_RANKING.bm25);
    for (const c of chunks) builder.add(chunkTerms(c, DEFAULT_MANUAL_RANKING));
    return builder
      .build()
      .search(manualQueryTerms(query, DEFAULT_MANUAL_RANKING), 5)
      .map((r) => chunks[r.doc]!.heading);
  };

  it('an error code typed without its hyphen finds its own section, not a similar code', () => {
    const chunks = [
      { heading: 'エラー > E-1001', content: 'E-1001はログインの失敗です。パスワードを確認してください。' },
      { heading: 'エラー > E-1010', content: 'E-1010は同期の失敗です。ネットワーク接続を確認してから再度ログインしてください。' },
    ];
    expect(rank(chunks, 'ログインでE1010が出る')[0]).toBe('エラー > E-1010');
  });
});
