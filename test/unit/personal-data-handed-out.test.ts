import { describe, expect, it } from 'vitest';
import { phoneNumberDigits, phoneNumbersIn, scrubPersonalData, type PersonalDataKind } from '../../src/knowledge/personal-data.js';

// What a reply hands one customer and a learned answer would hand the next (tmp/sec3/: learned-password.test.ts,
// scrub-passwords.mts, scrub-residue.mts): a temporary password before any verb (仮パスワード Xk9#mP2q を発行しました,
// パスワードを P@ssw0rd2024 にリセットしました), backup and recovery codes, the account holder written after a bank
// account, and a phone number written in kanji numerals. Beside them, what an answer says about passwords and codes
// without giving one must stay.

// [case, input, expected output, kinds replaced in order]
type Case = [string, string, string, PersonalDataKind[]];

const PASSWORDS: Case[] = [
  ['a temporary password before を発行', '仮パスワード Xk9#mP2q を発行しました。', '仮パスワード [番号] を発行しました。', ['reference-number']],
  ['a password before にリセット', '管理者パスワードを P@ssw0rd2024 にリセットしました。', '管理者パスワードを [番号] にリセットしました。', ['reference-number']],
  ['an initial password before をお送り', '初期パスワード Tr0ub4dor&3 をお送りします。', '初期パスワード [番号] をお送りします。', ['reference-number']],
  ['a password after として', 'パスワードとして Kx7-pQ2m-Zr9 を設定しました。', 'パスワードとして [番号] を設定しました。', ['reference-number']],
  ['a PIN of six digits before で登録', '暗証番号 482913 で登録しました。', '暗証番号 [番号] で登録しました。', ['reference-number']],
  ['a password of letters whose case changes at random', 'パスワードは XkPqMzRt で発行済みです。', 'パスワードは [番号] で発行済みです。', ['reference-number']],
  ['a passcode before a verb', 'パスコード a8Kd2m を再発行しました', 'パスコード [番号] を再発行しました', ['reference-number']],
  ['a password ending in ! inside brackets', '一時パスワードは「Sakura2024!」です。', '一時パスワードは「[番号]」です。', ['reference-number']],
  ['English: reset … to', 'We reset your password to Xk9#mP2q this morning.', 'We reset your password to [number] this morning.', ['reference-number']],
  ['English: the password right after the word', 'Use the temporary password Xk9#mP2q to sign in.', 'Use the temporary password [number] to sign in.', ['reference-number']],
  ['English: a quoted password ending in !', 'Your password is "Sakura2024!".', 'Your password is "[number]".', ['reference-number']],
];

const CODES: Case[] = [
  ['backup codes after a space', 'バックアップコード 12345678 87654321 11223344', 'バックアップコード [番号] [番号] [番号]', ['reference-number', 'reference-number', 'reference-number']],
  ['recovery codes after a colon, with 、', 'リカバリーコード：a1b2c-3d4e5、f6g7h-8i9j0', 'リカバリーコード：[番号]、[番号]', ['reference-number', 'reference-number']],
  ['two confirmation codes', '確認コード 483920、551203 のどちらかを入力してください。', '確認コード [番号]、[番号] のどちらかを入力してください。', ['reference-number', 'reference-number']],
  ['backup codes one a line after ・', 'バックアップコード：\n・12345678\n・87654321\n\n今後は', 'バックアップコード：\n・[番号]\n・[番号]\n\n今後は', ['reference-number', 'reference-number']],
  ['English backup codes in pairs of four', 'Backup codes: 1234 5678, 8765 4321', 'Backup codes: [number] [number], [number] [number]', ['reference-number', 'reference-number', 'reference-number', 'reference-number']],
  [
    'English recovery codes as a list',
    'Your recovery codes are:\n- 4f9a-2c1b\n- 7d3e-9b0a\nKeep them safe.',
    'Your recovery codes are:\n- [number]\n- [number]\nKeep them safe.',
    ['reference-number', 'reference-number'],
  ],
];

const ACCOUNT_HOLDERS: Case[] = [
  ['katakana after a bank account', '返金先: 三菱UFJ銀行 渋谷支店 普通 1234567 ヤマダ タロウ', '返金先: 三菱UFJ銀行 渋谷支店 普通 [番号] [氏名]', ['reference-number', 'name']],
  ['half-width katakana after a bank account', '当座 7654321 ﾔﾏﾀﾞ ﾀﾛｳ 宛にお振込みください', '当座 [番号] [氏名] 宛にお振込みください', ['reference-number', 'name']],
  ['口座名義 without a colon after the account', '普通預金 1234567 口座名義 ヤマダ タロウ', '普通預金 [番号] 口座名義 [氏名]', ['reference-number', 'name']],
  ['口座名義 alone without a colon', '口座名義 ヤマダ タロウ', '口座名義 [氏名]', ['name']],
  ['名義は … です', '名義はヤマダタロウです。', '名義は[氏名]です。', ['name']],
  ['a card holder after カード名義', 'カード名義 ヤマダ タロウ', 'カード名義 [氏名]', ['name']],
  ['no name after a bank account, only words', '普通 1234567 からお振込みください。', '普通 [番号] からお振込みください。', ['reference-number']],
];

const KEPT: [string, string][] = [
  ['password rules and examples', 'パスワードは 12345678 のような連番にしないでください。パスワードを P@ssw0rd のような推測されやすいものにしないでください。パスワードは abc123 にしないでください。'],
  ['how passwords are stored and entered', 'パスワードはArgon2idでハッシュ化し、Wi-Fi のパスワードは WPA2-PSK で保護します。パスワードを入力してください。'],
  ['password placeholders', 'パスワード：******** を入力。Password: <password>. パスワード xxxx の欄。パスワードを Abcdefgh にしないでください。'],
  ['product names after パスワード', 'パスワードはMyPageで変更し、パスワードをiCloudに保存し、パスワードはMacBookProでも同じです。パスワードはWindows11の設定から変更します。'],
  ['English words after password', 'Change your password to something stronger. The password SHA-256 hash is stored. Reset the password v2.0 flow.'],
  ['what codes are, not a code', 'バックアップコードは10個発行されます。バックアップコードは 8 桁です。リカバリーコードを 2024年に再発行しました。バックアップコードを印刷してください。'],
  ['English words about codes', 'Backup codes: see Settings > Security. Recovery codes can be used once. Each verification code expires in 10 minutes.'],
  ['名義 words', '口座名義はカタカナで入力してください。名義変更の手続きは窓口で。カード名義：カナ'],
];

const KANJI_PHONES: [string, string, string[], string][] = [
  ['kanji numerals with full-width dashes', '電話 〇三－一二三四－五六七八 までご連絡ください', ['〇三－一二三四－五六七八'], '電話 [電話番号] までご連絡ください'],
  ['kanji numerals with long-vowel dashes', '携帯は〇九〇ー一二三四ー五六七八です', ['〇九〇ー一二三四ー五六七八'], '携帯は[電話番号]です'],
  ['kanji numerals with spaces', '〇三 一二三四 五六七八 へ', ['〇三 一二三四 五六七八'], '[電話番号] へ'],
  ['an area code in brackets', 'TEL 〇三(一二三四)五六七八', ['〇三(一二三四)五六七八'], 'TEL [電話番号]'],
  ['ten kanji numerals in a row', '電話は〇三一二三四五六七八です', ['〇三一二三四五六七八'], '電話は[電話番号]です'],
  ['full-width digits and dashes', '電話 ０３－１２３４－５６７８ まで', ['０３－１２３４－５６７８'], '電話 [電話番号] まで'],
  // A toll-free number is found as a number but stays in the scrub, as 0120-… does.
  ['a toll-free number in kanji numerals', 'フリーダイヤル 〇一二〇－一二三－四五六', ['〇一二〇－一二三－四五六'], 'フリーダイヤル 〇一二〇－一二三－四五六'],
];

const NOT_KANJI_PHONES: [string, string][] = [
  ['kanji numbers', '二十三日、一二三、第一二三四五号、二〇二四年一月一二日'],
  ['a phone placeholder in kanji zeros', '〇〇〇－〇〇〇〇－〇〇〇〇 の形式で入力してください'],
  ['too few kanji digits', '〇一二三－四五'],
  ['kanji digits inside a longer kanji number', '一〇三－一二三四－五六七八'],
];

function check(input: string, output: string, kinds: PersonalDataKind[]): void {
  const result = scrubPersonalData(input);
  expect(result.text).toBe(output);
  expect(result.replacements.map((r) => r.kind)).toEqual(kinds);
  for (const r of result.replacements) expect(input.slice(r.index, r.index + r.original.length)).toBe(r.original);
}

describe('scrubPersonalData: what a reply hands out', () => {
  it.each(PASSWORDS)('password: %s', (_name, input, output, kinds) => check(input, output, kinds));
  it.each(CODES)('backup or recovery codes: %s', (_name, input, output, kinds) => check(input, output, kinds));
  it.each(ACCOUNT_HOLDERS)('account holder: %s', (_name, input, output, kinds) => check(input, output, kinds));

  it.each(KEPT)('keeps %s', (_name, input) => {
    const result = scrubPersonalData(input);
    expect(result.replacements).toEqual([]);
    expect(result.text).toBe(input);
  });
});

describe('phoneNumbersIn and scrubPersonalData: phone numbers in kanji numerals', () => {
  it.each(KANJI_PHONES)('%s', (_name, input, numbers, output) => {
    expect(phoneNumbersIn(input)).toEqual(numbers);
    expect(scrubPersonalData(input).text).toBe(output);
  });

  // For the foreign-link check, which compares numbers by their digits: NFKC leaves kanji numerals as they are.
  it.each([
    ['〇三－一二三四－五六七八', '0312345678'],
    ['０３－１２３４－５６７８', '0312345678'],
    ['〇三(1234)五六七八', '0312345678'],
    ['+81 3-1234-5678', '81312345678'],
  ])('phoneNumberDigits(%s) is %s', (phone, digits) => {
    expect(phoneNumberDigits(phone)).toBe(digits);
  });

  it.each(NOT_KANJI_PHONES)('not a phone: %s', (_name, input) => {
    expect(phoneNumbersIn(input)).toEqual([]);
    expect(scrubPersonalData(input).replacements.filter((r) => r.kind === 'phone')).toEqual([]);
  });
});

// 100 KB built to make a careless pattern backtrack: the scrub runs on every approved reply's proposal. The bound is
// generous: the machine running tests is shared.
describe('scrubPersonalData: the rules above on 100,000-character adversarial input', () => {
  it.each([
    ['パスワード repeated', 'パスワード '.repeat(16_000)],
    ['a password label before a long run of token characters', `パスワード ${'A1#'.repeat(33_000)} を発行`],
    ['password to repeated', 'password to '.repeat(8_000)],
    ['a password label before a long run of spaces', `パスワード${' '.repeat(100_000)}を`],
    ['password before a long run of spaces', `password${' '.repeat(100_000)}to`],
    ['backup code labels repeated', 'バックアップコード '.repeat(10_000)],
    ['a backup code label before a long list', `バックアップコード ${'1234 '.repeat(20_000)}`],
    ['a recovery code label before spaces', `recovery codes:${' '.repeat(100_000)}x`],
    ['a recovery code label before blank lines', `recovery codes:${'\n- '.repeat(33_000)}`],
    ['a bank account before a run of katakana', `普通 1234567 ${'ア '.repeat(50_000)}`],
    ['名義 repeated', '名義 '.repeat(33_000)],
    ['kanji zeros', '〇'.repeat(100_000)],
    ['kanji digits', '一二三四五六七八九〇'.repeat(10_000)],
    ['kanji digits and dashes', '〇三－'.repeat(33_000)],
    ['kanji digit groups and dashes', '〇一二三－'.repeat(20_000)],
  ])('%s', (_name, input) => {
    const started = performance.now();
    scrubPersonalData(input);
    phoneNumbersIn(input);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
