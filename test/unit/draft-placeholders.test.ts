/**
 * A draft holding a placeholder of the personal-data scrub (first-ten-minutes finding 2): an accepted learned pair
 * "[氏名]様、集合場所は…" was copied by the model into the next customer's reply and sent with REVIEW_MODE=auto. The
 * placeholders are found in the brackets and spellings a model copies them in; ordinary brackets and Markdown links
 * are not, nor a placeholder the customer wrote themselves. Every placeholder the scrub writes is in the list.
 */
import { describe, expect, it } from 'vitest';
import { PLACEHOLDERS, scrubPersonalData } from '../../src/knowledge/personal-data.js';
import { QA_TOOL_NAME } from '../../src/agent/tools.js';
import type { AgentResult } from '../../src/agent/types.js';
import { draftPlaceholderReason, draftPlaceholders, placeholderKnowledge, SCRUB_PLACEHOLDERS } from '../../src/tickets/draft-placeholders.js';

const PARKED: ReadonlyArray<[string, string, string[]]> = [
  ['the walk: a name placeholder before 様', '[氏名]様、集合場所は東京駅丸の内北口です。', ['[氏名]']],
  ['full-width brackets', '［氏名］様、集合場所は東京駅丸の内北口です。', ['［氏名］']],
  ['lenticular brackets', '【氏名】様、集合場所は東京駅丸の内北口です。', ['【氏名】']],
  ['tortoise-shell brackets', '〔氏名〕様、お問い合わせありがとうございます。', ['〔氏名〕']],
  ['upper case English', 'Dear [NAME], the meeting point is the north exit.', ['[NAME]']],
  ['English as the scrub writes it', 'Hello [name], we will call you at [phone].', ['[name]', '[phone]']],
  ['spaced, with an underscore', 'We sent the label to [ postal_code ] and [Card Number].', ['[ postal_code ]', '[Card Number]']],
  ['full-width letters', 'Dear ［ＮＡＭＥ］, thank you.', ['［ＮＡＭＥ］']],
  ['every Japanese placeholder', '[メールアドレス] [電話番号] [郵便番号] [住所] [番号] [カード番号] [認証情報]', ['[メールアドレス]', '[電話番号]', '[郵便番号]', '[住所]', '[番号]', '[カード番号]', '[認証情報]']],
  ['the link placeholder', '詳しくは[URL]をご覧ください。', ['[URL]']],
  ['the same placeholder twice: named once', '[氏名]様、[氏名]様のご予約は確定しています。', ['[氏名]']],
  // Bug review R1 finding 6: the forms a model rewrites a placeholder in, and template fields it writes itself.
  ['round brackets before 様', '(氏名)様、集合場所は東京駅丸の内北口です。', ['(氏名)']],
  ['full-width round brackets before 様', '（氏名）様、集合場所は東京駅丸の内北口です。', ['（氏名）']],
  ['angle brackets', '<name>様、集合場所は東京駅です。', ['<name>']],
  ['curly brackets', '{name}様、集合場所は東京駅です。', ['{name}']],
  ['an unfilled Mustache field outside code', 'Dear {{name}}, the venue opens at 9.', ['{name}']],
  ['angle brackets after a salutation', 'Dear <Customer Name>, the venue opens at 9.', ['<Customer Name>']],
  ['a template field name', '[お名前]様、お問い合わせありがとうございます。', ['[お名前]']],
  ['an English template field', '[Customer Name], the venue opens at 9.', ['[Customer Name]']],
  ['an order number field', '[注文番号]の商品は明日発送いたします。', ['[注文番号]']],
  ['the honorific in brackets after the field', '[氏名](様)、集合場所は東京駅です。', ['[氏名]']],
  ['round brackets glued to a name before 様', '田中(氏名)様、ありがとうございます。', ['(氏名)']],
  ['round brackets after punctuation', 'こんにちは、(お名前)さん。', ['(お名前)']],
  ['fields in several brackets, in order', '{first name} {last name}様、[order number] / (ご住所)', ['{first name}', '{last name}', '[order number]', '(ご住所)']],
];

const SENT: ReadonlyArray<[string, string]> = [
  ['a label', '[重要] 集合時刻は9時です。'],
  ['a footnote number', '料金は税込みです[1]。'],
  ['a note mark', '[注] 雨天の場合は中止です。'],
  ['a screen name in brackets', '【設定】→【アカウント】から変更できます。'],
  ['a Markdown link labelled like a placeholder', 'Write to [email](mailto:support@xyz.example) or see [URL](https://xyz.example/help).'],
  ['a reference link', 'See [name][1] for details.'],
  ['a longer word holding the placeholder word', '[お客様氏名]欄にご記入ください。'],
  ['a name, not a placeholder', '田中様、集合場所は東京駅丸の内北口です。'],
  ['an unclosed bracket', '[氏名 を入力してください。'],
  // Ordinary parentheses in prose, glosses, links and code samples (bug review R1 finding 6).
  ['tax included', '料金は3,000円(税込)です。'],
  ['a note and a number in round brackets', '(注) 雨天の場合は中止です。(1) 受付 (2) 出発'],
  ['an example in round brackets', 'お名前をご記入ください(例: 山田)。'],
  ['a gloss after a Japanese word', 'ご登録のお名前（氏名）とホームページ(URL)をご確認ください。'],
  ['a gloss after an English word', 'Sign in with your login ID (email) and password.'],
  ['a function call in prose', 'The template calls greet(name) for each guest.'],
  ['an HTML line break', '受付時間は9時から<br>17時までです。'],
  ['an HTML tag in a code block', 'Add this to the page:\n```html\n<address>{{name}}</address>\n```\nThen reload.'],
  ['a template field in a code span', 'Write `{name}` or `<name>` in the template; it is filled when the mail is sent.'],
  ['a generic type glued to a word', 'The API returns Array<Name> objects.'],
  ['a Markdown link to a relative page', 'See [name](./help/name.md) for details.'],
];

describe('draftPlaceholders', () => {
  it.each(PARKED)('%s: parked, naming the placeholder', (_name, draft, expected) => {
    expect(draftPlaceholders(draft)).toEqual(expected);
    const reason = draftPlaceholderReason(draft);
    expect(reason).toContain(`the draft holds the placeholder${expected.length > 1 ? 's' : ''} ${expected.join(', ')} from a scrubbed learned answer`);
  });

  it.each(SENT)('%s: no placeholder', (_name, draft) => {
    expect(draftPlaceholders(draft)).toEqual([]);
    expect(draftPlaceholderReason(draft)).toBeUndefined();
  });

  it.each([
    ['the question', ['Form', '申込フォームに[氏名]と表示されたままです。'], '[氏名]と表示される場合は再読み込みしてください。', []],
    ['the subject, in another bracket', ['【氏名】が表示されない', '直りません。'], '［氏名］の欄は再読み込みで直ります。', []],
    ['only one of two', ['Form', 'The form shows [name].'], 'The form shows [name] until you reload; we will write to [email].', ['[email]']],
  ])("a placeholder the customer's mail holds (%s) is theirs", (_name, customer, draft, expected) => {
    expect(draftPlaceholders(draft, customer)).toEqual(expected);
  });

  // Bug review R1 finding 3: a manual page or Q&A row that writes form labels in brackets.
  it.each([
    ['a manual page with form labels', ['返品の際は用紙に【氏名】【住所】【電話番号】をご記入のうえ、商品に同封してください。'], '返品の際は用紙に【氏名】【住所】【電話番号】をご記入のうえ、商品に同封してください。', []],
    ['a Q&A answer with English form fields', ['Fill in the form fields [email] and [phone], then press Send.'], 'Fill in the form fields [email] and [phone], then press Send.', []],
    ['in another bracket than the knowledge wrote', ['用紙に【氏名】をご記入ください。'], '用紙の[氏名]欄にご記入ください。', []],
    ['one the knowledge does not write', ['用紙に【氏名】をご記入ください。'], '【氏名】をご記入のうえ、[カード番号]をお知らせください。', ['[カード番号]']],
  ])('a placeholder the knowledge found writes (%s) is a form label', (_name, knowledge, draft, expected) => {
    expect(draftPlaceholders(draft, [], knowledge)).toEqual(expected);
    expect(draftPlaceholderReason(draft, [], knowledge) === undefined).toBe(expected.length === 0);
  });
});

const MANUAL_HIT = { fileName: 'returns.md', content: '返品の際は用紙に【氏名】【住所】をご記入ください。' };
const QA_HIT = { fileName: 'xyz-qa.csv#12', content: 'Q: [氏名]様の登録を変えたい\nA: フォームの[電話番号]欄を書き換えてください。' };
const LEARNED_HIT = { fileName: 'learned#7', content: 'Q: 集合場所は？\nA: [氏名]様、集合場所は東京駅です。' };

describe('placeholderKnowledge', () => {
  it.each([
    ['a manual hit counts whole', [{ toolName: 'search_xyz_manual', args: '{}', results: [MANUAL_HIT] }], [MANUAL_HIT.content]],
    ['a Q&A hit counts by its answer: the question is a customer\'s', [{ toolName: QA_TOOL_NAME, args: '{}', results: [QA_HIT] }], ['フォームの[電話番号]欄を書き換えてください。']],
    ['a learned hit never counts', [{ toolName: QA_TOOL_NAME, args: '{}', results: [LEARNED_HIT, QA_HIT] }], ['フォームの[電話番号]欄を書き換えてください。']],
  ])('%s', (_name, calls, expected) => {
    const result = { subtasks: [{ toolResults: [calls] }] } as unknown as AgentResult;
    expect(placeholderKnowledge(result)).toEqual(expected);
  });

  it("a learned pair's placeholder stays parked though its hit was found", () => {
    const result = { subtasks: [{ toolResults: [[{ toolName: QA_TOOL_NAME, args: '{}', results: [LEARNED_HIT] }]] }] } as unknown as AgentResult;
    expect(draftPlaceholders('[氏名]様、集合場所は東京駅です。', [], placeholderKnowledge(result))).toEqual(['[氏名]']);
  });
});

// Inputs that make the scrub write each kind in each language; the list must hold whatever it writes.
const SCRUBBED: ReadonlyArray<[string, string, readonly string[]]> = [
  ['ja name', '田中様、集合場所は東京駅です。', ['田中']],
  ['ja email and phone', 'taro@example.com または 090-1234-5678 までご連絡ください。', []],
  ['ja postal code and address', '〒100-0005 東京都千代田区丸の内1-9-1 にお送りします。', []],
  ['ja order number and card', 'ご注文番号: AB-123456 のカード 4111 1111 1111 1111 について', []],
  ['ja access token', 'お客様のアクセストークンは ghp_4fG7hJ2kL9mN3pQ8rS5tV1wX6yZ0aB1cD2e です。設定画面の「開発者」から再発行してください。', []],
  ['en name, email and phone', 'Dear Anna Smith, write to anna.smith@example.com or call +1 415 555 0134.', ['Anna Smith']],
  ['en order and card', 'Your order number: AB-123456, card 4111 1111 1111 1111.', []],
  ['en address and postal code', 'Ship to 1600 Pennsylvania Avenue NW, Washington, DC 20500.', []],
  ['en API key', 'Your API key: sk-proj-4fG7hJ2kL9mN3pQ8rS5tV1wX6yZ0aB', []],
];

describe('SCRUB_PLACEHOLDERS', () => {
  it('holds every placeholder of personal-data.ts in both languages', () => {
    for (const language of ['ja', 'en'] as const) {
      for (const placeholder of Object.values(PLACEHOLDERS[language])) expect(SCRUB_PLACEHOLDERS).toContain(placeholder);
    }
  });

  it('every placeholder the scrub writes on the table is listed and found in a draft; the table writes them all', () => {
    const written = new Set<string>();
    for (const [name, text, names] of SCRUBBED) {
      const { text: scrubbed, replacements } = scrubPersonalData(text, { names });
      expect(replacements.length, name).toBeGreaterThan(0);
      for (const { placeholder } of replacements) {
        written.add(placeholder);
        expect(SCRUB_PLACEHOLDERS, name).toContain(placeholder);
        expect(draftPlaceholders(scrubbed), name).toContain(placeholder);
      }
    }
    expect([...written].sort()).toEqual([...Object.values(PLACEHOLDERS.ja), ...Object.values(PLACEHOLDERS.en)].sort());
  });
});
