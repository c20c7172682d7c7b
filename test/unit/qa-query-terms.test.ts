/**
 * Q&A query terms: question words and endings (いつ, 何, どこ, ですか…) say how a question is asked, not what it is
 * about, so they weigh less than the topic and a stored question asked the same way no longer wins.
 */
import { describe, expect, it } from 'vitest';
import { Bm25Builder } from '../../src/search/bm25.js';
import { DEFAULT_QA_RANKING, pairTerms, qaQueryTerms } from '../../src/search/embedded-qa.js';
import { DEFAULT_MANUAL_RANKING, manualQueryTerms } from '../../src/search/embedded-manual.js';
import { splitQuestionWords } from '../../src/search/query-words.js';

describe('splitQuestionWords', () => {
  it.each([
    ['保守作業はいつですか', '保守作業は  ', 'いつ ですか'],
    ['CSVはどこから出力できますか', 'CSVは から出力でき ', 'どこ ますか'],
    ['ログは何年保管されますか', 'ログは 年保管され ', '何 ますか'],
    ['管理者は誰にするか', '管理者は にするか', '誰'],
    ['なんでロックされたのでしょうか', ' でロックされたの ', 'なん でしょうか'],
    ['請求書の宛名を変えたい', '請求書の宛名を変えたい', ''],
    ['なんとなく遅い', 'なんとなく遅い', ''],
  ])('%s', (query, topic, asking) => {
    expect(splitQuestionWords(query)).toEqual({ topic, asking });
  });
});

describe('qaQueryTerms', () => {
  const ranking = DEFAULT_QA_RANKING;

  it('weighs question words below the topic, without dropping them', () => {
    const terms = qaQueryTerms('保守作業はいつですか', ranking);
    expect(terms.get('保守')).toBe(1);
    expect(terms.get('いつ')).toBeGreaterThan(0);
    expect(terms.get('いつ')!).toBeLessThan(terms.get('保守')!);
    expect(terms.get('です')!).toBeLessThan(1);
    // No bigram spans the gap a question word leaves: はい of 「はいつ」 is not a word.
    expect(terms.has('はい')).toBe(false);
  });

  const pairs = [
    { question: '次回の請求はいつですか', answer: '毎月末日に請求します。' },
    { question: '定期保守の日程', answer: '毎月第2日曜日の深夜に保守を行います。' },
    { question: '利用できる端末はどれですか', answer: 'Windows、macOS、iOS、Androidで利用できます。' },
  ];
  const search = (query: string) => {
    const builder = new Bm25Builder(ranking.bm25);
    for (const p of pairs) builder.add(pairTerms(p, ranking));
    return builder
      .build()
      .search(qaQueryTerms(query, ranking), 3)
      .map((r) => pairs[r.doc]!.question);
  };

  it('a pair about the topic outranks one that is only asked the same way', () => {
    expect(search('保守作業はいつですか')[0]).toBe('定期保守の日程');
  });

  it('a query of question words alone still finds what shares them', () => {
    expect(search('いつですか')[0]).toBe('次回の請求はいつですか');
  });

  it('the manual keeps its question words (「だれがいつ設定を書き換えたのか」 needs them to reach the audit log)', () => {
    expect(manualQueryTerms('だれがいつ設定を書き換えたのか', DEFAULT_MANUAL_RANKING).get('いつ')).toBe(1);
  });
});
