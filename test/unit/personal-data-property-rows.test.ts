/**
 * The personal-data scrub's leaks the property tests of test/unit/draft-check-properties.test.ts found (session 49,
 * H6), as plain rows: a phone or card number split by no-break or thin spaces (an HTML mail's &nbsp;), a link that
 * ran on over 、 into the number after it, a number left inside a link though the same number went elsewhere, an
 * international number in full-width brackets or right before another number, dashes the scrub did not know, a
 * password that ran on over `：` into an address, and pieces glued without a separator that a second scrub took.
 */
import { describe, expect, it } from 'vitest';
import { scrubPersonalData } from '../../src/knowledge/personal-data.js';

// Text, and what must not be left in its scrub.
const LEAKS: ReadonlyArray<[string, string]> = [
  ['カード番号は\u00a04111\u00a01111\u00a01111\u00a01111\u00a0です。', '1111\u00a01111\u00a01111'],
  ['電話 090\u00a01234\u00a05678 まで', '090\u00a01234\u00a05678'],
  ['電話 090\u202f1234\u202f5678 まで', '1234\u202f5678'],
  ['Call 03\u20091234\u20095678 today', '1234\u20095678'],
  ['IBAN DE89\u20093704\u20090044\u20090532\u20090130\u200900', '3704\u20090044'],
  ['IBAN DE89\u00a03704\u00a00044\u00a00532\u00a00130\u00a000', '3704\u00a00044'],
  ['予約はhttps://shop.example/reserve、またはお電話090-1234-5678でどうぞ', '090-1234-5678'],
  ['https://shop.example/order、4111 1111 1111 1111', '4111 1111 1111 1111'],
  ['詳細はhttps://shop.example/faq。電話は03-1234-5678です', '03-1234-5678'],
  ['090-1234-5678 https://example.com/u/090-1234-5678', '090-1234-5678'],
  ['お電話は +81 （3） 1234-5678 まで', '1234-5678'],
  ['+81 90 1234 5678 03-1234-5678', '+81 90 1234 5678'],
  ['+81 90 1234 5678 03-1234-5678', '03-1234-5678'],
  ['パスワード: Xy7kQ2pL：taro@example.com', 'Xy7kQ2pL'],
  ['password: Xy7kQ2pL,taro@example.com', 'Xy7kQ2pL'],
  ['パスワード: Xy7kQ2pL、taro@example.com', 'Xy7kQ2pL'],
  ['本人確認のため 03﹣1234﹣5678 まで', '1234﹣5678'],
  ['本人確認のため 03‒1234‒5678 まで', '1234‒5678'],
  ['abc(03) 1234 5678', '(03) 1234 5678'],
  ['taro.yamada@example.com(03) 1234 5678', '1234 5678'],
  ['taro.yamada@example.com+81 90 1234 5678', '1234 5678'],
  ['東京都新宿区西新宿1-2-3order #A1234567', 'A1234567'],
  ['taro.yamada@example.comhanako+shop@mail.example.jp', 'mail.example.jp'],
  // Bug review B3 (MED 6): a comma inside the password is part of it; it ends the value only before an address or a
  // placeholder.
  ['password: Xy7k,Q2pL9 ok', 'Q2pL9'],
  ['password: Ab3x:Yz9Q,Lm2 thanks', 'Lm2'],
];

// Text that is scrubbed to a fixed point in one go: scrubbing the output again changes nothing.
const IDEMPOTENT = [
  'taro.yamada@example.com(03) 1234 5678',
  'taro.yamada@example.com+81 90 1234 5678',
  '+81 90 1234 5678taro.yamada@example.com',
  'IBAN DE89 3704 0044 0532 0130 00taro.yamada@example.com',
  '東京都新宿区西新宿1-2-3order #A1234567',
  'taro.yamada@example.comhanako+shop@mail.example.jp',
  '+81 90 1234 5678 090-1234-5678 ',
  'パスワード: Xy7kQ2pL：taro.yamada@example.com ',
  '電話 090\u00a01234\u00a05678 まで',
];

// What must stay as written: a link's own path, a price beside a no-break space, a date, a version.
const KEPT = [
  'お支払いは\u00a012,800\u00a0円です。',
  '詳しくは https://example.com/help/faq、またはサポートまで。',
  'バージョン 11.2.0.4 に更新してください（2024年10月1日）。',
  'See https://example.com/docs/setup.html#step-2 for details.',
  'Open https://example.com/a(b)c and https://example.com/x?page=2.',
  '価格は 1\u00a0234 円、数量は 2 個です。',
];

// Bug review B3 (MED 5): a removed number's copies are whole tokens only; inside a longer token (a model number, a part
// number) the same digits are no copy of it.
const COPIES_IN_TOKENS: ReadonlyArray<[string, string]> = [
  ['お客様の電話番号 090-1234-5678 を登録しました。型番 X090-1234-5678A は別物です。', 'お客様の電話番号 [電話番号] を登録しました。型番 X090-1234-5678A は別物です。'],
  ['Call 03-1234-5678. Part number 803-1234-56789 ships soon.', 'Call [phone]. Part number 803-1234-56789 ships soon.'],
];

describe('the scrub, on what the property tests found', () => {
  it.each(LEAKS)('leaves no personal data in %j', (text, left) => {
    expect(scrubPersonalData(text).text).not.toContain(left);
  });

  it.each(IDEMPOTENT)('is idempotent on %j', (text) => {
    const once = scrubPersonalData(text).text;
    expect(scrubPersonalData(once).text).toBe(once);
  });

  it.each(KEPT)('leaves %j as written', (text) => {
    expect(scrubPersonalData(text).text).toBe(text);
  });

  it.each(COPIES_IN_TOKENS)('removes copies of a number only as whole tokens: %j', (text, scrubbed) => {
    expect(scrubPersonalData(text).text).toBe(scrubbed);
  });

  // Not a speed target (bug review B3 of session 49, LOW 7): the copies of removed numbers were found with an indexOf
  // over the whole text for each distinct number, quadratic in a text with a different phone number every 14
  // characters (1,200,000 characters: 71 s before, 1.4 s after). The generous bound only catches that kind of blow-up.
  it('finds the copies of many distinct numbers without blowing up', { timeout: 120_000 }, () => {
    let phones = '';
    for (let i = 0; phones.length < 1_200_000; i++) phones += `090-${1000 + (i % 9000)}-${String(i % 10_000).padStart(4, '0')} `;
    scrubPersonalData(phones.slice(0, 20_000));
    const started = performance.now();
    const { text } = scrubPersonalData(phones);
    expect(performance.now() - started).toBeLessThan(14_000);
    expect(text).not.toMatch(/[0-9]/);
  });

  it('keeps a phone number inside a link when it is written nowhere else, and the link around a removed one', () => {
    expect(scrubPersonalData('https://example.com/u/090-1234-5678').text).toBe('https://example.com/u/090-1234-5678');
    expect(scrubPersonalData('090-1234-5678 https://example.com/u/090-1234-5678').text).toBe('[phone] https://example.com/u/[phone]');
  });

  it('names each removed piece as written, at its place in the input', () => {
    const text = '電話 090\u00a01234\u00a05678、メール taro@example.com';
    const { replacements } = scrubPersonalData(text);
    for (const r of replacements) expect(text.slice(r.index, r.index + r.original.length)).toBe(r.original);
    expect(replacements.map((r) => r.original)).toEqual(['090\u00a01234\u00a05678', 'taro@example.com']);
  });
});
