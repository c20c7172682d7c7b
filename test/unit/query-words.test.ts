/**
 * Query reduction for Meilisearch's ten-word limit: keyword queries pass unchanged, long Japanese sentences keep
 * their content words (particles, endings and request phrasing dropped), product codes stay whole.
 */
import { describe, expect, it } from 'vitest';
import { askingSentenceCoverage, contentWords, fitQueryWords, keywordCoverage, MEILI_QUERY_WORD_BUDGET, MEILI_QUERY_WORD_LIMIT, queryWords } from '../../src/search/query-words.js';
import { weightedTerms } from '../../src/search/tokenize.js';

describe('query words', () => {
  it('counts words as a word-segmenting engine does, keeping codes whole', () => {
    expect(queryWords('E-1001 エラーが表示されます')).toEqual(['E-1001', 'エラー', 'が', '表示', 'さ', 'れ', 'ます']);
    expect(queryWords('v2.3 で api_key を設定')).toEqual(['v2.3', 'で', 'api_key', 'を', '設定']);
  });

  it.each([
    ['二段階認証 エラー', '二段階認証 エラー'],
    ['E-1001 エラーが表示されます', 'E-1001 エラーが表示されます'],
    ['先月から何度もログインしようとしているのですが、うまくいかないので、銀行振込について教えてください', '先月 度 ログイン 銀行 振込'],
    ['請求書の宛名を変更したいのですがどうすればいいですか。至急お願いします。', '請求 書 宛名 変更 至急'],
    ['ＡＰＩキーを再発行したあとで E-2040 が出るようになったのですが、どうすればいいでしょうか', 'API キー 再 発行 E-2040 出る'],
    // Ten words for ICU, more for Meilisearch's IPADIC-like segmentation (13 and 11 for kuromoji): rewritten too.
    ['アメリカで油田開発がスタートしたのはいつ？', 'アメリカ 油田 開発 スタート'],
    ['許可番号の頭の2桁の意味は？', '許可 番号 頭 2 桁 意味'],
    ['請求書の宛名を変更できますか', '請求 書 宛名 変更'],
    // Words without Japanese count one for one: ten go whole.
    ['VPN Windows Outlook Teams Excel Word PowerPoint OneDrive SharePoint', 'VPN Windows Outlook Teams Excel Word PowerPoint OneDrive SharePoint'],
    ['VPN Windows Outlook Teams Excel Word PowerPoint OneDrive SharePoint Exchange Intune', 'VPN Windows Outlook Teams Excel Word PowerPoint OneDrive SharePoint Exchange'],
  ])('%s → %s', (query, sent) => {
    expect(fitQueryWords(query)).toBe(sent);
  });

  it('keeps at most the budget of content words, first ones first, each once', () => {
    const sentence = 'ログインとログアウトとパスワードとメールと通知と請求と支払いと認証とバックアップと復元とエクスポートとインポートについて';
    expect(contentWords(sentence)).toHaveLength(13);
    expect(fitQueryWords(sentence).split(' ')).toEqual(contentWords(sentence).slice(0, MEILI_QUERY_WORD_BUDGET));
    expect(MEILI_QUERY_WORD_BUDGET).toBeLessThan(MEILI_QUERY_WORD_LIMIT);
    expect(contentWords('認証と認証の認証')).toEqual(['認証']);
  });

  it('sends a sentence of function words only as it is', () => {
    const sentence = 'これはどうなのでしょうかそれともあれなのでしょうか';
    expect(fitQueryWords(sentence)).toBe(sentence);
  });
});

// The segmenter is fed long text in pieces (each segment it yields keeps a copy of its input): the words must be the
// same as if it read the text at once, with no word or surrogate pair cut at a piece's end.
describe('queryWords on text longer than one piece', () => {
  it.each([
    ['words between spaces', '設定 画面 '.repeat(400), Array.from({ length: 400 }, () => ['設定', '画面']).flat()],
    ['sentences', 'パスワードを変更したい。'.repeat(150), undefined],
    ['one run of kanji with a surrogate pair where a piece would end', `${'設'.repeat(999)}𠮷${'定'.repeat(50)}`, undefined],
    ['English words', 'export the invoice as csv '.repeat(120), undefined],
  ])('%s', (_case, text, expected) => {
    const words = queryWords(text);
    const whole = [...new Intl.Segmenter('ja', { granularity: 'word' }).segment(text.normalize('NFKC'))].filter((s) => s.isWordLike).map((s) => s.segment);
    if (expected) expect(words).toEqual(expected);
    // A run with no space or mark in it is cut where the piece ends; elsewhere the words are exactly the whole text's.
    if (/[\s。]/u.test(text)) expect(words).toEqual(whole);
    expect(words.join('')).toBe(whole.join(''));
    expect(words.some((w) => /^[\uDC00-\uDFFF]/.test(w) || /[\uD800-\uDBFF]$/.test(w))).toBe(false);
  });
});

// Names listed as alternatives (XMODEM/ZMODEM/B-Plus/Quick-VAN, Windows/Mac: parts of three or more characters), of
// which a page that answers holds one, are no keywords a result must hold all of; a code joined by a slash (TCP/IP,
// ISO/TS, R/P, a date: shorter parts) keeps its parts, as E-1001 does. Retrieval audit 10: the Tera Term tips page
// of one protocol was cut to three quarters of its score beside the menu page that names them all.
describe('coverage of words joined by a slash', () => {
  it.each([
    { text: 'XMODEM/ZMODEM/B-Plus/Quick-VAN によるファイル転送がうまくいかない。', holds: ['xmodem/zmodem/b-plus/quick-van', 'ファ', 'イル', '転送'], lacks: ['xmodem', 'zmodem', 'b', 'plus', 'quick', 'van'] },
    { text: 'Windows/Mac 印刷', holds: ['windows/mac', '印刷'], lacks: ['windows', 'mac'] },
    { text: 'TCP/UDP ポート', holds: ['tcp/udp'], lacks: ['tcp', 'udp'] },
    { text: 'TCP/IP 接続', holds: ['tcp/ip', 'tcp', 'ip', '接続'], lacks: [] },
    { text: 'ISO/TS 16949 認証', holds: ['iso/ts', 'iso', 'ts', '16949'], lacks: [] },
    { text: 'Ｒ／Ｐ 指標', holds: ['r/p', 'r', 'p'], lacks: [] },
    { text: '2024/04/01 請求', holds: ['2024/04/01', '2024', '04'], lacks: [] },
    { text: 'E-1001 エラー', holds: ['e-1001', 'e', '1001'], lacks: [] },
  ])('$text', ({ text, holds, lacks }) => {
    const terms = [...(keywordCoverage(text, weightedTerms(text, { weight: 1 }), 0)?.terms ?? [])];
    for (const t of holds) expect(terms, t).toContain(t);
    for (const t of lacks) expect(terms, t).not.toContain(t);
  });

  it('in the asking sentence of a long query too', () => {
    const text = '先週から接続先を変えました。XMODEM/ZMODEM でのファイル転送ができないのはなぜですか？';
    const terms = [...(askingSentenceCoverage(text, weightedTerms(text, { weight: 1 }), 0)?.terms ?? [])];
    expect(terms).toContain('転送');
    expect(terms).toContain('xmodem/zmodem');
    expect(terms).not.toContain('xmodem');
    expect(terms).not.toContain('zmodem');
  });
});
