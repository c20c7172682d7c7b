/**
 * Retrieval audit 11 (the Misskey Hub user docs): a "how" noun (方法, やり方, 仕方, 手順 before a particle) in an asking
 * sentence names no topic, so it must not count toward the content words that make the asking-sentence coverage
 * apply: 「間違えてRenoteしてしまいました。取り消す方法を教えてください。」 asks about Renote, named in the sentence before.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedManualSearch } from '../../src/search/embedded-manual.js';
import { askingSentenceCoverage, splitQuestionWords } from '../../src/search/query-words.js';
import { weightedTerms } from '../../src/search/tokenize.js';

const coverageTerms = (text: string): string[] | undefined => {
  const coverage = askingSentenceCoverage(text, weightedTerms(text, { weight: 1 }), 0);
  return coverage ? [...coverage.terms] : undefined;
};

describe('asking-sentence coverage: a "how" noun is no content word', () => {
  it.each([
    '間違えてRenoteしてしまいました。取り消す方法を教えてください。',
    '間違えてRenoteしてしまいました。取り消すやり方は？',
    '間違えてRenoteしてしまいました。取り消す仕方が知りたいです。',
    '先週アカウントを作りました。削除する手順について知りたいです。',
    '先週アカウントを作りました。削除する方法って何ですか？',
  ])('%s: one content word left in the question, so the context counts (no coverage)', (text) => {
    expect(coverageTerms(text)).toBeUndefined();
  });

  it.each([
    // Two content words beside the "how" noun: the coverage still applies, without the noun.
    ['先週から使っています。ノートを取り消す方法を教えてください。', ['ノー', '消す'], ['方法']],
    // Not before a particle: a compound (方法論, 手順書) names a thing.
    ['先週から使っています。手順書の更新はどこにありますか？', ['手順', '更新'], []],
  ])('%s: coverage over the topic words', (text, holds, lacks) => {
    const terms = coverageTerms(text);
    expect(terms).toBeDefined();
    // The terms are the index's bigrams (ノー, ート), as the search matches them.
    for (const t of holds) expect(terms).toContain(t);
    for (const t of lacks) expect(terms).not.toContain(t);
  });

  it('leaves the Q&A question-word split as it was (the nouns are topic words there)', () => {
    expect(splitQuestionWords('取り消す方法を教えてください').asking).toBe('');
    expect(splitQuestionWords('取り消す方法を教えてください').topic).toContain('方法');
  });
});

describe('the manual search of a question that names its topic in the sentence before', () => {
  // The audit's reproducer: before, the coverage of 取り消す+方法 halved the Renote section to third, under the pages
  // that hold 取り消す and 方法.
  it('ranks the section about the topic first', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'audit11-'));
    try {
      const search = new EmbeddedManualSearch({ dir });
      await search.replaceAll([
        { id: 'signup', fileName: 'signup.md', heading: '登録', content: '登録の方法はサーバーによって異なります。詳しくは管理者にお問い合わせください。' },
        { id: 'renote', fileName: 'note.md', heading: 'Renote', content: 'Renoteを削除するには、メニューから「Renote解除」を選択します。' },
        { id: 'poll', fileName: 'poll.md', heading: '期限', content: '一度設定した期限を取り消すには「無期限」を選びます。' },
        ...['自分のノートがRenoteされた際に発生します。', 'フォロワー限定のノートはRenoteできません。', 'フォントの大きさを変えます。', '色の設定を変えます。', 'タイムラインの種類です。'].map((content, i) => ({
          id: `other${i}`,
          fileName: `other${i}.md`,
          heading: `その他${i}`,
          content,
        })),
      ]);
      const hits = await search.search('間違えてRenoteしてしまいました。取り消す方法を教えてください。', 3);
      expect(hits[0]?.id).toBe('renote');
      await search.close?.();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// Review (bug review B2): only a "how" noun after a verb or の is the question's shape; the head of a compound
// (支払い方法, ログイン方法, 配送方法) is its topic.
describe('asking-sentence coverage: the head noun of a compound stays', () => {
  it.each([
    ['先月からクレジットカードを使っています。支払い方法を変更するにはどうすればいいですか？', ['方法', '変更']],
    ['管理者から招待されました。ログイン方法を教えてください。', ['方法']],
    ['昨日から配信が止まっています。配送方法はどうなりますか？', ['方法']],
    ['先週から使っています。二段階認証の設定手順を教えてください。', ['手順', '設定']],
  ])('%s', (text, holds) => {
    const terms = coverageTerms(text);
    expect(terms).toBeDefined();
    for (const t of holds) expect(terms).toContain(t);
  });

  it.each([
    ['先週から使っています。通知の設定の方法を教えてください。', ['通知', '設定'], ['方法']],
    ['先週から使っています。ノートを書く手順を教えてください。', ['ノー', '書く'], ['手順']],
  ])('%s: after の or a verb it still goes', (text, holds, lacks) => {
    const terms = coverageTerms(text);
    expect(terms).toBeDefined();
    for (const t of holds) expect(terms).toContain(t);
    for (const t of lacks) expect(terms).not.toContain(t);
  });
});
