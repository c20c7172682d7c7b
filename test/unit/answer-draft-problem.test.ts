/** draftProblem: which final answers no review mode sends without a person, and which go out as they are. */
import { describe, expect, it } from 'vitest';
import { MAX_AUTO_REPLY_CHARS, draftProblem } from '../../jobs/answer-ticket.js';

const JA_Q = '二段階認証を認証アプリで設定する手順を教えてください。';
const JA_A = '山田様\n\nお問い合わせありがとうございます。\n二段階認証は「設定」→「セキュリティ」から設定できます。\n\nよろしくお願いいたします。';

describe('draftProblem', () => {
  it.each([
    ['a Japanese answer to a Japanese question', JA_Q, JA_A],
    ['an English answer to an English question', 'How do I turn on two-factor authentication?', 'Hello,\n\nOpen Settings > Security and choose "Authenticator app".\n\nBest regards'],
    ['an English answer quoting a Japanese menu name', 'Where is the 設定 menu?', 'Hello,\n\nThe 設定 (Settings) menu is at the top right.\n\nBest regards'],
    ['a Chinese answer to a Chinese question', '如何设置双重认证？', '您好，请在“设置”中打开“安全”，选择认证应用。'],
    ['a Korean answer to a Korean question', '2단계 인증은 어떻게 설정하나요?', '안녕하세요. 설정 > 보안에서 인증 앱을 선택하세요.'],
  ])('sends %s', (_name, question, answer) => {
    expect(draftProblem(question, answer, {})).toBeUndefined();
  });

  it.each([
    ['cut off', JA_Q, JA_A, { answerFinishReason: 'length' }, /cut off/],
    ['stopped by a content filter', JA_Q, JA_A, { answerFinishReason: 'content_filter' }, /content_filter/],
    ['reasoning in the answer', JA_Q, `<think>考え中</think>\n${JA_A}`, {}, /reasoning/],
    ['greeting and closing only', JA_Q, 'お世話になっております。\n\nよろしくお願いいたします。', {}, /no answer/],
    ['an English refusal to a Japanese question', JA_Q, "I'm sorry, but I can't assist with that request.", {}, /language/],
    ['a Japanese answer to an English question', 'How do I turn on two-factor authentication?', JA_A, {}, /language/],
    ['too long', JA_Q, `${JA_A}${'。'.repeat(MAX_AUTO_REPLY_CHARS)}`, {}, /longer than/],
  ])('parks an answer %s', (_name, question, answer, result, reason) => {
    expect(draftProblem(question, answer, result)).toMatch(reason);
  });
});

// Reasoning models served without their parser, and a model echoing its own prompt, write things no customer may
// read; and a language check that any kanji satisfies lets a Chinese or English answer go to a Japanese customer.
describe('draftProblem: reasoning, echoed prompts, the language', () => {
  const ja = '二段階認証の設定方法を教えてください。';
  const jaAnswer = '設定画面の「セキュリティ」から認証アプリを登録してください。';
  it.each<[string, string, string, RegExp | undefined]>([
    ['a good Japanese answer', ja, jaAnswer, undefined],
    ['<think>', ja, `<think>考え中</think>${jaAnswer}`, /reasoning/],
    ['<reasoning>', ja, `<reasoning>plan</reasoning>${jaAnswer}`, /reasoning/],
    ["gpt-oss's analysis channel", ja, `<|channel|>analysis<|message|>We need to answer.<|end|>${jaAnswer}`, /reasoning/],
    ['◁think▷', ja, `◁think▷hmm◁/think▷${jaAnswer}`, /reasoning/],
    ['[THINK]', ja, `[THINK]hmm[/THINK]${jaAnswer}`, /reasoning/],
    ["the agent's own block", ja, `${jaAnswer}\n<subtask_results>\n…\n</subtask_results>`, /agent's own prompt/],
    ['the earlier conversation block', ja, `<earlier_conversation>…</earlier_conversation>${jaAnswer}`, /agent's own prompt/],
    ['Chinese answer to a Japanese question', ja, '请在设置页面的安全选项中注册认证应用程序，然后输入验证码。', /language/],
    ['English answer with one kanji label', ja, 'Open 設定, then Security, and register your authenticator app there. Enter the code it shows.', /language/],
    ['Korean answer to an English question', 'How do I enable two-factor authentication?', '설정 화면에서 보안 메뉴를 열고 인증 앱을 등록하세요.', /language/],
    ['an English answer naming a Japanese screen', 'How do I enable 2FA?', 'Open Settings (設定) and register your authenticator app, then enter the six-digit code.', undefined],
  ])('%s', (_what, question, draft, expected) => {
    const problem = draftProblem(question, draft, {});
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });
});

// Customers at Japanese companies often wrap an English question in Japanese set phrases (audit sample 20-mixed). The
// question is Japanese by the share of Japanese letters in what it asks, greeting and closing aside, not by one kana.
describe('draftProblem: the language of a question in two languages', () => {
  const en = 'Hello,\n\nThe limit is counted per API key: 100 requests a minute. Create a second key for a second system.\n\nBest regards';
  const ja = 'お問い合わせありがとうございます。\n\n上限はAPIキーごとに1分あたり100リクエストです。別のシステムには別のキーを作成してください。\n\nよろしくお願いいたします。';
  const JA_WITH_LOG = 'お世話になっております。\nCSVのインポートで以下のエラーが出ます。\n\nError: Failed to import customers.csv: column "email" is missing in row 12 (expected header: name,email,phone)\n    at ImportService.parse (/app/import.js:120:11)\n    at async ImportController.upload (/app/controller.js:45:5)\n\n対処法を教えてください。\nよろしくお願いいたします。';
  const SAMPLE_20 = 'お世話になっております。\n\nIs the API rate limit per user or per API key? We get HTTP 429 after 100 requests.\n\nよろしくお願いいたします。';
  it.each<[string, string, { en?: RegExp; ja?: RegExp }]>([
    ['pure Japanese', '二段階認証を認証アプリで設定する手順を教えてください。', { en: /Japanese question/ }],
    ['pure English', 'Is the API rate limit per user or per API key?', { ja: /answered in Chinese, Japanese or Korean/ }],
    ['an English question between Japanese greeting and closing (sample 20-mixed)', SAMPLE_20, {}],
    ['an English question under a Japanese greeting and introduction', 'いつもお世話になっております。\n株式会社カスタマーの李です。\n\nWe get HTTP 429 after 100 requests. Is the API rate limit per user or per API key?\n\nよろしくお願いします。', {}],
    // The introduction is no set phrase replyBody knows, and it outweighs a few English words: a person decides.
    ['a short English question under a Japanese introduction', '株式会社カスタマーの李です。\n\nHow do I reset my password?', { en: /Japanese question/ }],
    ['an English question with a Japanese closing and signature', 'Is the API rate limit per user or per API key?\n\nよろしくお願いいたします。\nLee / 株式会社カスタマー', {}],
    ['an English question naming a katakana screen', 'Where can I find the セキュリティ page? I want to turn on two-factor authentication for my whole team.', {}],
    ['a Japanese question between English greeting and closing', 'Hello,\n\n二段階認証を認証アプリで設定する手順を教えてください。\n\nBest regards', { en: /Japanese question/ }],
    ['a Japanese question with English product names', 'Google Workspace と Microsoft 365 の連携で SAML SSO を設定する方法を教えてください。', { en: /Japanese question/ }],
    ['a Japanese question with an English product and URL', 'Slack の Webhook URL を変更したいです。', { en: /Japanese question/ }],
    ['a short mixed question, Japanese in its grammar', 'Error E-1024 が出ます', { en: /Japanese question/ }],
    ['a short mixed question in both languages', 'ログインできない / cannot login', { en: /Japanese question/ }],
    // A pasted log or error message is no English question: the Japanese lines around it ask.
    ['a Japanese question with a pasted English error log', JA_WITH_LOG, { en: /Japanese question/ }],
    ['a Japanese question under a pasted English stack trace', 'Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)\n    at Pool.connect (/app/node_modules/pg-pool/index.js:45:11)\n上のエラーでデータベースに接続できません。原因を教えてください。', { en: /Japanese question/ }],
    ['a Japanese line naming the pasted English log it is about', 'インポート時のエラーです。\n\nError: Failed to import customers.csv: column "email" is missing in row 12 (expected header: name,email,phone)\n    at ImportService.parse (/app/import.js:120:11)', { en: /Japanese question/ }],
    ['an English question under a self-introduction by name', '李と申します。\n\nWe get HTTP 429 after 100 requests. Is the API rate limit per user or per API key? Our integration sends requests from two servers.', {}],
    // The other way round a person decides: a line with kana may be the customer's own sentence.
    ['an English question with a pasted Japanese error line', 'We get the following error when importing the CSV file from our accounting system into the customer list:\n\nインポートに失敗しました\n\nWhat does it mean and how can we fix it? The same file worked last month.', { en: /Japanese question/ }],
  ])('%s', (_case, question, parked) => {
    expect(draftProblem(question, en, {})).toEqual(parked.en ? expect.stringMatching(parked.en) : undefined);
    expect(draftProblem(question, ja, {})).toEqual(parked.ja ? expect.stringMatching(parked.ja) : undefined);
  });
});
