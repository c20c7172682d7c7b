/**
 * A draft holding a placeholder of the personal-data scrub (first-ten-minutes finding 2): an accepted learned pair
 * "[氏名]様、集合場所は…" was copied by the model into the next customer's reply and sent with REVIEW_MODE=auto. The
 * placeholders are found in the brackets and spellings a model copies them in; ordinary brackets and Markdown links
 * are not, nor a placeholder the customer wrote themselves. Every placeholder the scrub writes is in the list.
 */
import { describe, expect, it } from 'vitest';
import { PLACEHOLDERS, scrubPersonalData } from '../../src/knowledge/personal-data.js';
import { draftPlaceholderReason, draftPlaceholders, SCRUB_PLACEHOLDERS } from '../../src/tickets/draft-placeholders.js';

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
