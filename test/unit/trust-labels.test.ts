/**
 * What the review page and the insights say about the sources of a draft parked for trust (REVIEW_MODE=learn): a
 * readable name for each source (the manual file and section heading, the Q&A pair's question), how far each stands
 * from trusted, and which parking reasons are a wait for trust alone.
 */
import { describe, expect, it } from 'vitest';
import type { Subtask } from '../../src/agent/types.js';
import {
  approvalsUntilTrusted,
  citedSources,
  describeStanding,
  judgeTrust,
  labelledSources,
  parkedForTrust,
  sourceLabel,
  sourceLabelOfId,
  type Review,
  type TrustSettings,
} from '../../src/tickets/trust.js';

const SETTINGS: TrustSettings = { TRUST_MIN_REVIEWS: 5, TRUST_MIN_AS_IS: 0.9, TRUST_WINDOW: 20, TRUST_MAX_EDIT_RATIO: 0.2 };

describe('sourceLabel', () => {
  const longQuestion = 'パスワードを忘れてしまい、ログインできなくなりました。再設定の手順と、メールが届かない場合の対処を教えてください。';
  it.each([
    ['a manual section: file and innermost heading', { kind: 'manual', fileName: 'xyz-manual.md' }, '【アカウント > パスワード】\n8文字以上で設定します。', 'xyz-manual.md › パスワード'],
    ['a manual section without a heading line: the file', { kind: 'manual', fileName: 'xyz-manual.md' }, '8文字以上で設定します。', 'xyz-manual.md'],
    ['a Q&A pair: file, row and question', { kind: 'qa', fileName: 'xyz-qa.csv#7' }, 'Q: バックアップ失敗の通知が届きません。\nA: SMTP リレーの設定を確認してください。', 'xyz-qa.csv#7 › バックアップ失敗の通知が届きません。'],
    ['a long question is cut short', { kind: 'qa', fileName: 'xyz-qa.csv#3' }, `Q: ${longQuestion}\nA: 画面の案内に従ってください。`, `xyz-qa.csv#3 › ${Array.from(longQuestion).slice(0, 40).join('')}…`],
    ['a question over several lines reads as one', { kind: 'qa', fileName: 'learned#4' }, 'Q: APIキーの\n  発行方法は？\nA: 管理画面から。', 'learned#4 › APIキーの 発行方法は？'],
    ['a pair text without its question mark: the file', { kind: 'qa', fileName: 'xyz-qa.csv#9' }, 'バックアップは毎晩。', 'xyz-qa.csv#9'],
    ['an empty heading line: the file', { kind: 'manual', fileName: 'a.md' }, '【】\n本文', 'a.md'],
  ])('%s', (_name, source, content, expected) => {
    expect(sourceLabel(source, content)).toBe(expected);
  });
});

describe('sourceLabelOfId', () => {
  it.each([
    ['manual:xyz-manual.md#56f291ea4a12', 'xyz-manual.md'],
    ['manual:guide/login.md#3f1c9a0b2d4e', 'guide/login.md'],
    ['qa:xyz-qa.csv#7#7e00ac17284d', 'xyz-qa.csv#7'],
    ['qa:learned#12#0123456789ab', 'learned#12'],
    ['something-else', 'something-else'],
    ['qa:faq.csv#12', 'qa:faq.csv#12'],
  ])('%s → %s', (id, expected) => {
    expect(sourceLabelOfId(id)).toBe(expected);
  });
});

describe('labelledSources', () => {
  it('labels each cited source from the search hit the agent got, with the same keys trust is recorded under', () => {
    const subtask: Subtask = {
      taskName: 't',
      toolResults: [
        [
          { toolName: 'search_xyz_manual', args: '{}', results: [{ fileName: 'xyz-manual.md', content: '【ログイン > パスワード】\n再設定はログイン画面から。' }] },
          { toolName: 'search_xyz_qa', args: '{}', results: [{ fileName: 'xyz-qa.csv#7', content: 'Q: パスワードを忘れました\nA: 再設定してください。' }] },
        ],
      ],
      reflectionResults: [],
      isCompleted: true,
      subtaskAnswer: 'a',
      challengeCount: 1,
      usedFallback: false,
      usage: { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    };
    const agent = { subtasks: [subtask, subtask] };
    const labelled = labelledSources(agent);
    expect(labelled.map((s) => s.key)).toEqual(citedSources(agent).map((s) => s.key));
    expect(labelled.map((s) => s.label)).toEqual(['xyz-manual.md › パスワード', 'xyz-qa.csv#7 › パスワードを忘れました']);
  });
});

describe('approvalsUntilTrusted', () => {
  const review = (kind: Review['kind'], i: number, extra: Partial<Review> = {}): Review => ({ kind, editRatio: kind === 'rejected' ? undefined : 0, ticketId: `t${i}`, sender: `s${i}`, ...extra });
  const asIs = (n: number, from = 0) => Array.from({ length: n }, (_, i) => review('approved_as_is', from + i));
  it.each([
    ['no reviews yet', [], 5],
    ['two approved unchanged', asIs(2), 3],
    ['four approved unchanged', asIs(4), 1],
    ['five approved unchanged: trusted', asIs(5), 0],
    ['a rejection after five: four more to reach 9 of 10', [review('rejected', 9), ...asIs(5)], 4],
    ['a heavy edit counts like a rejection', [review('approved_edited', 9, { editRatio: 0.5 }), ...asIs(5)], 4],
    ['the same customer twice counts once', [review('approved_as_is', 1), review('approved_as_is', 2, { sender: 's1' })], 4],
  ])('%s → %i', (_name, reviews, expected) => {
    expect(approvalsUntilTrusted(reviews, SETTINGS)).toBe(expected);
    // What it promises holds under the trust rule itself.
    const more = Array.from({ length: expected }, (_, i) => review('approved_as_is', 100 + i));
    expect(judgeTrust('s', [...more, ...reviews], SETTINGS).trusted).toBe(true);
    if (expected > 0) expect(judgeTrust('s', [...more.slice(1), ...reviews], SETTINGS).trusted).toBe(false);
  });
});

describe('describeStanding', () => {
  const record = (reviews: number, approvedAsIs: number, trusted = false) => ({ sourceId: 's', reviews, approvedAsIs, trusted });
  it.each([
    ['none yet', record(0, 0), 5, '0 of 5 approved unchanged — 5 more unchanged approvals until replies citing it go out on their own'],
    ['three of five', record(3, 3), 2, '3 of 5 approved unchanged — 2 more unchanged approvals until replies citing it go out on their own'],
    ['one to go', record(4, 4), 1, '4 of 5 approved unchanged — 1 more unchanged approval until replies citing it go out on their own'],
    ['trusted', record(5, 5, true), 0, 'trusted: 5 of its last 5 reviews approved unchanged'],
    ['after a rejection', record(6, 5), 4, '5 of its last 6 reviews approved unchanged — 4 more unchanged approvals until replies citing it go out on their own'],
  ])('%s', (_name, rec, toGo, expected) => {
    expect(describeStanding({ record: rec, toGo })).toBe(expected);
  });
});

describe('parkedForTrust', () => {
  it.each([
    ['not yet trusted: manual:xyz-manual.md#56f291ea4a12 has 0 of 5 reviews; qa:xyz-qa.csv#7#7e00ac17284d has 1 of 5 reviews; and 3 more', true],
    ['not yet trusted: manual:a.md#0123456789ab has 5 of its last 6 reviews approved as is, needs 90 %', true],
    ['not yet trusted: the draft cites no source', false],
    ['not yet trusted: subtask 「料金を調べる」 cites no source', false],
    ['not yet trusted: subtasks 「料金を調べる」, 「納期を調べる」 cite no source', false],
    ['not fully answered: unanswered subtasks 「料金を調べる」', false],
    ['review mode always', false],
    [undefined, false],
  ])('%s → %s', (reason, expected) => {
    expect(parkedForTrust(reason)).toBe(expected);
  });
});
