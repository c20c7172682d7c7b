/**
 * What an approval must not teach, whichever path split the reply: an answer that still holds the agent's "not found"
 * fallback (as is, or under an operator's P.S.), a question that is only a pointer at an attachment or a greeting, and
 * the support team's own signature line under an answer.
 */
import { describe, expect, it } from 'vitest';
import { fallbackSubtaskAnswer } from '../../src/agent/agent.js';
import { learnableDrafts, teamNamesOf, withoutTeamSignature, type CandidateSource, type DraftPair } from '../../src/knowledge/learned-candidates.js';

const TRIP = '来月の社員旅行の集合場所はどこですか？';
const TRIP_FALLBACK = fallbackSubtaskAnswer(TRIP);
const HELLO_FALLBACK = fallbackSubtaskAnswer('Hello,');
const source = (question: string, subtasks: CandidateSource['subtasks'] = []): CandidateSource => ({ question, reply: '(the reply)', subtasks });
const fellBack = (taskName: string, subtaskAnswer = fallbackSubtaskAnswer(taskName)) => ({ taskName, usedFallback: true, subtaskAnswer });
const answered = (taskName: string) => ({ taskName, usedFallback: false, subtaskAnswer: `${taskName}の答えです。` });

// [case, source, drafts, pairs kept]
const CASES: [string, CandidateSource, DraftPair[], DraftPair[]][] = [
  [
    'a one-section reply approved as is, still the fallback: nothing',
    source(TRIP, [fellBack(TRIP)]),
    [{ question: TRIP, answer: `■ ${TRIP}\n${TRIP_FALLBACK}` }],
    [],
  ],
  [
    'the fallback with an operator\'s P.S. below it: nothing (the fallback sentence is still in the answer)',
    source('We never receive the backup failure notification e-mails.', [fellBack('Hi,')]),
    [{ question: 'We never receive the backup failure notification e-mails.', answer: `■ Hi,\n${fallbackSubtaskAnswer('Hi,')}\n\nP.S. Please check the spam folder.` }],
    [],
  ],
  [
    'the fallback as the model copied it, line breaks and width changed: nothing',
    source('How do I set up two-factor authentication?', [fellBack('Hello,')]),
    [{ question: 'How do I set up two-factor authentication?', answer: `■ Hello,\n${HELLO_FALLBACK.replace('の回答', '\nの 回答').replace('。', '．')}` }],
    [],
  ],
  [
    'the operator wrote a real answer over the fallback: kept, that is what to learn',
    source(TRIP, [fellBack(TRIP)]),
    [{ question: TRIP, answer: '集合場所は東京駅丸の内北口です。' }],
    [{ question: TRIP, answer: '集合場所は東京駅丸の内北口です。' }],
  ],
  [
    'two topics split by the model, one still the fallback: the other kept',
    source('1. 二段階認証\n2. 通知', [answered('二段階認証について調べる'), fellBack('通知について調べる')]),
    [
      { question: '二段階認証の設定方法', answer: '「設定」→「セキュリティ」で設定します。' },
      { question: '通知が届かない', answer: fallbackSubtaskAnswer('通知について調べる') },
    ],
    [{ question: '二段階認証の設定方法', answer: '「設定」→「セキュリティ」で設定します。' }],
  ],
  [
    'a fallback subtask whose answer is empty drops nothing else',
    source(TRIP, [fellBack(TRIP, '  ')]),
    [{ question: TRIP, answer: '集合場所は東京駅です。' }],
    [{ question: TRIP, answer: '集合場所は東京駅です。' }],
  ],
  [
    'a question that only points at the attachment: nothing',
    source('詳細は添付ファイルをご確認ください。'),
    [{ question: '詳細は添付ファイルをご確認ください。', answer: '添付のエラー画面を拝見しました。キャッシュを削除してから再度お試しください。' }],
    [],
  ],
  [
    'greetings and a pointer: nothing',
    source('お世話になっております。\n添付の通りです。\nよろしくお願いいたします。'),
    [{ question: 'お世話になっております。\n添付の通りです。\nよろしくお願いいたします。', answer: 'ご連絡ありがとうございます。' }],
    [],
  ],
  [
    'an English pointer: nothing',
    source('Please see the attached file.'),
    [{ question: 'Please see the attached file.', answer: 'Thanks, we looked at the screenshot.' }],
    [],
  ],
  [
    'a pointer beside a question of the customer\'s own: kept',
    source('ログインできません。詳細は添付ファイルをご確認ください。'),
    [{ question: 'ログインできません。詳細は添付ファイルをご確認ください。', answer: 'パスワードを再設定してください。' }],
    [{ question: 'ログインできません。詳細は添付ファイルをご確認ください。', answer: 'パスワードを再設定してください。' }],
  ],
  [
    'greetings alone: nothing',
    source('いつもお世話になっております。\nよろしくお願いいたします。'),
    [{ question: 'いつもお世話になっております。\nよろしくお願いいたします。', answer: 'ご連絡ありがとうございます。' }],
    [],
  ],
  [
    'the team signature under the answer is cut',
    source('忘年会の会場はどこになりますか？'),
    [{ question: '忘年会の会場はどこになりますか？', answer: '忘年会の会場は本社3階の大会議室です。\n\nXYZサポート' }],
    [{ question: '忘年会の会場はどこになりますか？', answer: '忘年会の会場は本社3階の大会議室です。' }],
  ],
  [
    'an answer that is only the signature: nothing',
    source('忘年会の会場はどこになりますか？'),
    [{ question: '忘年会の会場はどこになりますか？', answer: 'XYZサポート' }],
    [],
  ],
];

describe('learnableDrafts', () => {
  it.each(CASES)('%s', (_name, from, drafts, kept) => {
    expect(learnableDrafts(drafts, from).pairs).toEqual(kept);
  });

  it('says why each dropped pair was dropped', () => {
    const { dropped } = learnableDrafts(
      [
        { question: TRIP, answer: TRIP_FALLBACK },
        { question: '詳細は添付ファイルをご確認ください。', answer: '拝見しました。' },
      ],
      source(TRIP, [fellBack(TRIP)]),
    );
    expect(dropped).toEqual([expect.stringMatching(/not found/), expect.stringMatching(/no question/)]);
  });

  it('keeps the invisible-character count of a pair it keeps', () => {
    expect(learnableDrafts([{ question: TRIP, answer: '東京駅です。\n\nXYZサポート', invisibleRemoved: 2 }], source(TRIP)).pairs).toEqual([{ question: TRIP, answer: '東京駅です。', invisibleRemoved: 2 }]);
  });
});

describe('withoutTeamSignature', () => {
  const ACME = teamNamesOf('"ACME Japan" <support@acme.example>');
  it.each([
    // [answer, team names, expected]
    ['宛名は「請求」から変更できます。\n\nXYZサポート', [], '宛名は「請求」から変更できます。'],
    ['宛名は「請求」から変更できます。\nXYZ サポートセンター', [], '宛名は「請求」から変更できます。'],
    ['宛名は「請求」から変更できます。\n\nXYZサポート 田中', [], '宛名は「請求」から変更できます。'],
    ['宛名は「請求」から変更できます。\n\nカスタマーサポート\n', [], '宛名は「請求」から変更できます。'],
    ['You can change it under Billing.\n\nXYZ Support Team', [], 'You can change it under Billing.'],
    ['You can change it under Billing.\n\nThe XYZ Support Team', [], 'You can change it under Billing.'],
    // MAIL_FROM's display name, which says no support word.
    ['You can change it under Billing.\n\nACME Japan', ACME, 'You can change it under Billing.'],
    ['You can change it under Billing.\n\nacme  japan', ACME, 'You can change it under Billing.'],
    // Sentences and menu paths that end in a support word are the answer.
    ['詳しくはXYZサポートまでお問い合わせください。', [], '詳しくはXYZサポートまでお問い合わせください。'],
    ['Please contact Support', [], 'Please contact Support'],
    ['Open Settings > Support', [], 'Open Settings > Support'],
    ['You can change it under Billing.\n\nACME Japan', [], 'You can change it under Billing.\n\nACME Japan'],
    ['ACME Japan offers a free trial.', ACME, 'ACME Japan offers a free trial.'],
  ])('%j with %j: %j', (answer, names, expected) => {
    expect(withoutTeamSignature(answer, names)).toBe(expected);
  });

  it('reads the display name of MAIL_FROM, and none without one', () => {
    expect(teamNamesOf('XYZ Support <support@example.com>')).toEqual(['xyz support']);
    expect(teamNamesOf('support@example.com')).toEqual([]);
    expect(teamNamesOf(undefined)).toEqual([]);
  });
});
