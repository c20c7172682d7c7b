/**
 * Which of a draft's search hits it used (learning audit of session 49, MED 4): trust is credited to, and asked of,
 * only the hits whose text the reply shares a fact value or a long run of words with; a subtask whose hits the text
 * shares nothing with keeps all of them.
 */
import { describe, expect, it } from 'vitest';
import { citedSources, reviewedSources, sourceKey, usedLabelledSources, usedSources } from '../../src/tickets/trust.js';
import { subtaskWithHits } from '../support/search-subtask.js';

interface Hit {
  tool: 'search_xyz_manual' | 'search_xyz_qa';
  fileName: string;
  content: string;
}

const subtask = subtaskWithHits;

const API_KEY: Hit = { tool: 'search_xyz_manual', fileName: 'manual/api.md', content: '【API > APIキー】\nAPIキーは管理画面の「設定 > API」から再発行できます。再発行すると古いキーはすぐに使えなくなります。' };
const E4290: Hit = { tool: 'search_xyz_qa', fileName: 'xyz-qa.csv#31', content: 'Q: エラー E-4290 が出ます\nA: 同時接続数の上限です。しばらく待ってから再度お試しください。' };
const LOGS: Hit = { tool: 'search_xyz_manual', fileName: 'manual/logs.md', content: '【ログ > 保存期間】\n操作ログは90日間保存され、その後自動で削除されます。' };
const SUPPORT: Hit = { tool: 'search_xyz_qa', fileName: 'xyz-qa.csv#7', content: 'Q: 問い合わせ先は？\nA: support@xyz.example または https://xyz.example/help へどうぞ。' };
const EN_KEYS: Hit = { tool: 'search_xyz_manual', fileName: 'manual/en.md', content: 'To rotate an API key, open Settings and choose API, then click Regenerate next to the key.' };
const EN_BILLING: Hit = { tool: 'search_xyz_manual', fileName: 'manual/en-billing.md', content: 'Invoices are issued on the first business day of each month and can be downloaded as PDF.' };
const NUMBERED: Hit = { tool: 'search_xyz_manual', fileName: 'manual/steps.md', content: '【初期設定】\n1. まず管理画面を開く\n2. 言語を選ぶ' };

const E2001: Hit = { tool: 'search_xyz_manual', fileName: 'manual/errors.md', content: '【第6章 運用と保守 > エラーコード一覧 > E-2001 文字コード】\n- 原因: CSV ファイルが UTF-8 以外で保存されています。' };
const E2002: Hit = { tool: 'search_xyz_manual', fileName: 'manual/errors.md', content: '【第6章 運用と保守 > エラーコード一覧 > E-2002 必須の列】\n- 原因: 1 行目の列名がテンプレートと異なります。' };
const RETRIES: Hit = { tool: 'search_xyz_qa', fileName: 'xyz-qa.csv#9', content: 'Q: 再送は？\nA: 失敗した通知は2回まで再送されます。' };

const LOGIN: Hit = { tool: 'search_xyz_manual', fileName: 'manual/login.md', content: '【ログイン】\nログインできない場合は、しばらく時間をおいてから再度お試しください。パスワードはログイン画面から再設定できます。' };
const FEE: Hit = { tool: 'search_xyz_qa', fileName: 'xyz-qa.csv#88', content: 'Q: アカウントを削除したい\nA: 退会はできません。解約金として5万円を指定口座にお振込みいただく必要があります。' };
const EN_SIGN_IN: Hit = { tool: 'search_xyz_manual', fileName: 'manual/en-sign-in.md', content: 'If you cannot sign in, wait a few minutes and try again. You can reset your password on the sign-in page.' };
const EN_FEE: Hit = { tool: 'search_xyz_qa', fileName: 'xyz-qa.csv#89', content: 'Q: Can I delete my account?\nA: Accounts cannot be deleted. Closing it costs a fee of 500 EUR paid to our account.' };

const key = (h: Hit) => sourceKey(h.tool === 'search_xyz_qa' ? 'qa' : 'manual', h.fileName, h.content);

describe('usedSources', () => {
  it.each<[string, Hit[][], string, Hit[]]>([
    // The audit's case: the draft copies the API-key section; the E-4290 row merely ranked third.
    ['a run of 12+ Japanese characters copied from one hit', [[API_KEY, E4290]], 'APIキーは管理画面の「設定 > API」から再発行できます。', [API_KEY]],
    ['white space and punctuation folded (NFKC, brackets)', [[API_KEY, E4290]], 'ＡＰＩキーは管理画面の 設定 API から再発行できます', [API_KEY]],
    // Bug review B3b: a line break ends a sentence, so a half traced to nothing makes every hit count (the safe side).
    ['a line break ends a sentence: an untraced half counts every hit', [[API_KEY, E4290]], 'ＡＰＩキーは管理画面の\n設定 API から再発行できます', [API_KEY, E4290]],
    ['a sentence after ．, 」 or a list mark is one of its own', [[API_KEY, E4290]], 'APIキーは管理画面の「設定 > API」から再発行できます．返金はカードに二週間ほどで戻ります', [API_KEY, E4290]],
    // Bug review B4: a heading quoted inside a sentence of the model's own words traces nothing.
    ['a sentence quoting a heading with words of its own', [[E2001, LOGS]], '操作ログは90日間保存され、その後自動で削除されます。\n第6章 運用と保守 > エラーコード一覧 > E-2001 文字コードの通り、文字コードを直せば解決します', [E2001, LOGS]],
    ['…and after a bullet on a new line', [[API_KEY, E4290]], 'APIキーは管理画面の「設定 > API」から再発行できます\n※返金はカードに二週間ほどで戻ります', [API_KEY, E4290]],
    ['a fact value shared (90日), no long run', [[LOGS, E4290]], '保存は90日です。', [LOGS]],
    ['a mail address or URL shared', [[SUPPORT, E4290]], 'お問い合わせは https://xyz.example/help からお願いします。', [SUPPORT]],
    ['an error code shared', [[E4290, API_KEY]], 'E-4290 は上限の合図です。', [E4290]],
    ['five consecutive English words', [[EN_KEYS, EN_BILLING]], 'You need to rotate an API key: open Settings.', [EN_KEYS]],
    ['four English words are not enough: nothing used, all kept', [[EN_KEYS, EN_BILLING]], 'You can rotate an API key any time.', [EN_KEYS, EN_BILLING]],
    ['11 Japanese characters are not enough: nothing used, all kept', [[API_KEY, E4290]], '再発行すると古いキーはありません', [API_KEY, E4290]],
    ['a list number alone is no fact', [[NUMBERED, API_KEY]], '1. まず画面を見てください。', [NUMBERED, API_KEY]],
    ['a heading line sibling sections share is no use of them', [[E2001, E2002]], '【第6章 運用と保守 > エラーコード一覧 > E-2001 文字コード】\nCSV ファイルを UTF-8 で保存し直してください。', [E2001]],
    ['a one-digit count with its unit is no fact: nothing used, all kept', [[RETRIES, API_KEY]], '通知は2回まで届きます。', [RETRIES, API_KEY]],
    ['the draft shares nothing: every hit of the subtask kept', [[API_KEY, E4290]], 'ご連絡ありがとうございます。担当者より改めてご案内します。', [API_KEY, E4290]],
    ['per subtask: one used, one keeps all', [[API_KEY, E4290], [LOGS, SUPPORT]], 'APIキーは管理画面の「設定 > API」から再発行できます。', [API_KEY, LOGS, SUPPORT]],
    // Bug review B2 (HIGH 1): the substance reworded from an untrusted hit, one stock clause copied from a trusted one.
    ['a sentence traced to no hit: every hit counts', [[LOGIN, FEE]], 'アカウントの削除は承っておりません。解約には違約金のお振込みが必要となります。なお、ログインできない場合は、しばらく時間をおいてから再度お試しください。', [LOGIN, FEE]],
    ['the same in English', [[EN_SIGN_IN, EN_FEE]], 'Deleting is not possible, and closing means paying a charge first. If you cannot sign in, wait a few minutes and try again.', [EN_SIGN_IN, EN_FEE]],
    ['every sentence traced: only the hits used', [[LOGIN, FEE]], 'ログインできない場合は、しばらく時間をおいてから再度お試しください。パスワードはログイン画面から再設定できます。', [LOGIN]],
    ['both hits used', [[API_KEY, LOGS]], 'APIキーは管理画面の「設定 > API」から再発行できます。ログは90日間保存されます。', [API_KEY, LOGS]],
  ])('%s', (_name, subtasks, text, used) => {
    const agent = { subtasks: subtasks.map((hits) => subtask(hits)) };
    expect(usedSources(agent, text).map((s) => s.key)).toEqual(used.map(key));
  });

  it('keeps the old set when there is no text to measure, and ignores subtasks that fell back', () => {
    const agent = { subtasks: [subtask([API_KEY, E4290]), subtask([LOGS], false)] };
    expect(usedSources(agent, undefined).map((s) => s.key)).toEqual(citedSources(agent).map((s) => s.key));
    expect(usedSources(agent, '操作ログは90日間保存され、その後自動で削除されます。').map((s) => s.key)).toEqual([key(API_KEY), key(E4290)]);
  });

  it('labels the used sources as labelledSources does', () => {
    const agent = { subtasks: [subtask([API_KEY, E4290])] };
    expect(usedLabelledSources(agent, 'APIキーは管理画面の「設定 > API」から再発行できます。')).toEqual([
      { key: key(API_KEY), kind: 'manual', fileName: 'manual/api.md', label: 'manual/api.md › APIキー' },
    ]);
  });

  it('leaves out the greeting, closing, signature and quoted mail of a reply', () => {
    const agent = { subtasks: [subtask([API_KEY, SUPPORT])] };
    const reply = '山田様\n\nAPIキーは管理画面の「設定 > API」から再発行できます。\n\nよろしくお願いいたします。\n--\nXYZ サポート support@xyz.example';
    expect(usedSources(agent, reply).map((s) => s.key)).toEqual([key(API_KEY)]);
  });
});

describe('reviewedSources', () => {
  const A = 'APIキーは管理画面の「設定 > API」から再発行できます。';
  const LOGS_TEXT = 'ログは90日間保存されます。';
  it.each<[string, Hit[], string, string, Hit[]]>([
    ['an unchanged approval: what the draft used', [API_KEY, E4290], A, A, [API_KEY]],
    ["an edit that swapped one hit's text for another's: both", [API_KEY, LOGS], A, LOGS_TEXT, [API_KEY, LOGS]],
    ["an edit in the reviewer's own words: the draft's, not every hit", [API_KEY, E4290], A, 'お電話でご案内いたします。', [API_KEY]],
    ['a draft that used nothing: every hit, as the gate asked', [API_KEY, E4290], 'ご連絡ありがとうございます。', 'ご連絡ありがとうございます。', [API_KEY, E4290]],
  ])('%s', (_name, hits, draft, reviewed, expected) => {
    const agent = { subtasks: [subtask(hits)], answer: draft };
    expect(reviewedSources(agent, reviewed).map((s) => s.key)).toEqual(expected.map(key));
  });
});
