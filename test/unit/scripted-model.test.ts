import { describe, expect, it } from 'vitest';
import { planFromQuestion } from '../../src/dev/scripted-model.js';

// The scripted stand-in for the model (`npm run demo`, `npm run sandbox`, the tests) plans one subtask from a question
// without numbered topics. A Japanese mail opens with an addressee, a greeting and who writes; planned from that
// opening, the subtask searched for the greeting and the mail was parked as unanswered.
describe('planFromQuestion', () => {
  it.each<[name: string, question: string, plan: string[]]>([
    ['a question alone', '二段階認証の設定方法を教えてください。', ['二段階認証の設定方法を教えてください。']],
    ['an English question', 'How do I reset my password?\nThanks, Taro', ['How do I reset my password?']],
    ['after お世話になっております', 'お世話になっております。\n二段階認証の設定方法を教えてください。', ['二段階認証の設定方法を教えてください。']],
    ['after いつもお世話になっております and blank lines', '\nいつもお世話になっております。\n\nパスワードを忘れました。\n', ['パスワードを忘れました。']],
    ['after いつも大変お世話になっております', 'いつも大変お世話になっております。\n通知が届きません。', ['通知が届きません。']],
    ['after an addressee with ご担当者様', 'XYZ サポートご担当者様\n\nお世話になります。\n請求書の再発行はできますか？', ['請求書の再発行はできますか？']],
    ['after an addressee with 担当者様', 'サポート担当者様\nログインできません。', ['ログインできません。']],
    ['after an addressee with 御中', '株式会社XYZ 御中\nログインできません。', ['ログインできません。']],
    ["after a person's name with 様", '山田様\nログインできません。', ['ログインできません。']],
    ['after a self-introduction', '株式会社サンプルの山田です。\nバックアップの取り方を教えてください。', ['バックアップの取り方を教えてください。']],
    ['after a self-introduction with と申します', 'いつもお世話になっております。\n営業部の佐藤と申します。\n通知の設定を変えたいです。', ['通知の設定を変えたいです。']],
    ['after はじめまして', 'はじめまして。\nアプリが起動しません。', ['アプリが起動しません。']],
    ['the question on the line of the greeting', 'お世話になっております。株式会社サンプルの山田です。二段階認証の設定方法を教えてください。', ['二段階認証の設定方法を教えてください。']],
    ['a whole opening on one line, the question below', 'お世話になっております。株式会社サンプルの山田です。\n請求書はどこで見られますか？', ['請求書はどこで見られますか？']],
    // A problem stated as "X の Y です" is no introduction: only a name (no particle in it) before です is.
    ['a problem that reads like an introduction', '設定画面の表示が英語です。\n日本語にできますか？', ['設定画面の表示が英語です。']],
    ['a question that starts with いつも', 'いつもログイン画面で止まります。', ['いつもログイン画面で止まります。']],
    ['a line of punctuation only', '？？？\n何も表示されません', ['？？？']],
    // Nothing but an opening: the first line, as before (the agent then has little to go on, which is the truth).
    ['nothing but an opening', 'お世話になっております。\n株式会社サンプルの山田です。', ['お世話になっております。']],
    ['numbered topics after a greeting', 'お世話になっております。\n1. 二段階認証について\n2. 通知について', ['二段階認証について調べる', '通知について調べる']],
  ])('%s', (_name, question, plan) => {
    expect(planFromQuestion(question)).toEqual(plan);
  });
});
