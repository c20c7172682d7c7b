import { describe, expect, it } from 'vitest';
import { charNgrams, normalizeText, tokenize, UNIGRAM_PREFIX } from '../../src/search/tokenize.js';

describe('normalizeText', () => {
  it.each([
    ['full-width ASCII folds (NFKC) and lower-cases', 'Ｅ－１００１', 'e-1001'],
    ['half-width katakana folds to full width', 'ﾛｸﾞｲﾝ', 'ログイン'],
    ['dash variants after kana become ー', 'コンピュ−タ', 'コンピュータ'],
    ['a trailing ー of a longer katakana word is optional', 'サーバー', 'サーバ'],
    ['half-width long vowel and trailing ー together', 'ｻｰﾊﾞｰ', 'サーバ'],
    ['short words keep their ー', 'キー', 'キー'],
    ['three-character words keep their ー', 'コピー', 'コピー'],
    ['an ASCII hyphen before CJK stays a separator', 'ログイン-設定', 'ログイン-設定'],
    ['codes are untouched apart from case', 'API_Key v2.3', 'api_key v2.3'],
    // PDF and Word text writes codes with typographic dashes, and a Japanese IME slips in ー: all are one code.
    ['a hyphen (U+2010) in a code', 'E‐1001', 'e-1001'],
    ['a minus sign (U+2212) in a code', 'E−1001', 'e-1001'],
    ['an en dash in a code', 'E–1001', 'e-1001'],
    ['a long-vowel mark between ASCII', 'Eー1001', 'e-1001'],
    ['a half-width long-vowel mark between ASCII', 'Eｰ1001', 'e-1001'],
    ['a dash after kana is still a long vowel', 'ログイン–設定', 'ログイン設定'],
    ['a range of numbers', '1–3', '1-3'],
  ])('%s', (_name, input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });
});

describe('tokenize', () => {
  it.each([
    ['kanji run → overlapping bigrams', '二段階認証', ['二段', '段階', '階認', '認証']],
    ['two-character term → one bigram', '認証', ['認証']],
    ['isolated character → unigram', '認 の', ['認', 'の']],
    ['error code → whole and parts', 'E-1001', ['e-1001', 'e', '1001']],
    ['full-width error code → same tokens', 'Ｅ－１００１', ['e-1001', 'e', '1001']],
    ['version → whole and parts', 'v2.3', ['v2.3', 'v2', '3']],
    ['snake case → whole and parts', 'api_key', ['api_key', 'api', 'key']],
    ['plain words', 'Hello World 42', ['hello', 'world', '42']],
    ['trailing punctuation is not part of a code', 'E-1001.', ['e-1001', 'e', '1001']],
    ['code glued to Japanese', 'E-1001エラー', ['e-1001', 'e', '1001', 'エラ', 'ラー']],
    ['dangling connector before Japanese', 'e-エラー', ['e', 'エラ', 'ラー']],
    ['punctuation separates runs', '設定、通知。', ['設定', '通知']],
    ['the katakana middle dot separates words', '機種変更・紛失', ['機種', '種変', '変更', '紛失']],
    ['katakana spelling variants meet', 'サーバー', ['サー', 'ーバ']],
    ['spaces and symbols only', ' 　→！ ', []],
    ['empty', '', []],
  ])('%s', (_name, input, expected) => {
    expect(tokenize(input)).toEqual(expected);
  });

  it('a two-character term matches inside a longer compound', () => {
    expect(tokenize('二段階認証を設定する')).toContain(tokenize('認証')[0]);
    expect(tokenize('プッシュ通知の設定')).toContain(tokenize('通知')[0]);
  });

  it('an error code matches whatever width and case it was written in', () => {
    const expected = tokenize('E-1001');
    for (const v of ['e-1001', 'Ｅ－１００１', 'ｅ-1001']) expect(tokenize(v)).toEqual(expected);
  });

  it('kanji unigrams are opt-in, prefixed, and only for kanji', () => {
    expect(tokenize('認証コード')).not.toContain(`${UNIGRAM_PREFIX}認`);
    const withUnigrams = tokenize('認証コード', { kanjiUnigrams: true });
    expect(withUnigrams).toEqual(['認証', '証コ', 'コー', 'ード', `${UNIGRAM_PREFIX}認`, `${UNIGRAM_PREFIX}証`]);
  });

  it('an isolated kanji also gives its prefixed unigram, so it meets kanji inside longer runs', () => {
    expect(tokenize('鍵 を', { kanjiUnigrams: true })).toEqual(['鍵', `${UNIGRAM_PREFIX}鍵`, 'を']);
    expect(tokenize('合鍵です', { kanjiUnigrams: true })).toContain(`${UNIGRAM_PREFIX}鍵`);
  });

  it('astral ideographs are sliced whole', () => {
    expect(tokenize('𠮷野家')).toEqual(['𠮷野', '野家']);
  });

  it('is deterministic and pure', () => {
    const text = 'XYZ の二段階認証で E-1003 が出ます';
    expect(tokenize(text)).toEqual(tokenize(text));
  });
});

describe('charNgrams', () => {
  it.each([
    ['trigrams inside segments', '二段階認証', ['二段階', '段階認', '階認証']],
    ['short segments stay whole', 'ab 認証', ['ab', '認証']],
    ['punctuation splits segments', 'abcd、efg', ['abc', 'bcd', 'efg']],
  ])('%s', (_name, input, expected) => {
    expect(charNgrams(input)).toEqual(expected);
  });
});
