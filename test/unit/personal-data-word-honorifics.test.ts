/**
 * 殿, 様, さん and くん are also parts of words, and the scrub read them as honorifics (review s48-r3b): 御殿場 and 宮殿
 * lost a "name", 変わる様に lost its verb, a kana reading （かくさんえんき） lost かく, 担当の不足 lost 不足, and 株式会社XYZ様
 * lost the company. In a Q&A pair one false name made the pair "of a person" and wiped the company's address and
 * phone with it. Each row is text that names no one: nothing may be replaced as a name.
 */
import { describe, expect, it } from 'vitest';
import { scrubPersonalData } from '../../src/knowledge/personal-data.js';

/** Text in which no person is named, with what must survive the scrub. */
const NO_NAME: [string, string][] = [
  ['御殿場店：静岡県御殿場市の店舗です。', '御殿場'],
  ['女王は自らの居所である宮殿の忠実な再現を許可した。', '宮殿'],
  ['ハウステンボス宮殿を見学できます。', 'ハウステンボス宮殿'],
  ['野球殿堂入りを果たした。', '野球殿堂'],
  ['曜日のスポンサーが変わる様になっている。', '変わる様に'],
  ['保存すると画面が切り替わる様になっています。', '切り替わる様に'],
  ['前回と同じ様に設定してください。', '同じ様に'],
  ['核酸塩基（かくさんえんき）は窒素含有生体分子である。', 'かくさんえんき'],
  ['同君連合（どうくんれんごう）は体制のことである。', 'どうくんれんごう'],
  ['スタジオ業務担当の不足が恒常化した。', '不足'],
  ['請求書の宛名は「株式会社XYZ様」としてください。', 'XYZ'],
  ['株式会社ABC様との提携により配送します。', 'ABC'],
  ['宛名は有限会社山田商事様としてください。', '山田商事'],
  ['（株）ABC様宛にお送りください。', 'ABC'],
];

/** Text that does name someone, which must still be scrubbed. */
const NAMED: [string, string][] = [
  ['山田殿宛にお送りしました。', '山田'],
  ['山田太郎様にお送りしました。', '山田太郎'],
  ['鈴木様のようにご登録ください。', '鈴木'],
  ['担当の佐藤よりご連絡いたします。', '佐藤'],
  ['お子様（はなこちゃん）のお名前です。', 'はなこ'],
  ['Smith様、お問い合わせありがとうございます。', 'Smith'],
  ['XYZ株式会社 営業部 田中様', '田中'],
];

describe('honorific characters that are part of a word name no one', () => {
  it.each(NO_NAME)('%s keeps %s', (text, kept) => {
    const { text: out, replacements } = scrubPersonalData(text);
    expect(replacements.filter((r) => r.kind === 'name')).toEqual([]);
    expect(out).toContain(kept);
  });

  it.each(NAMED)('%s still loses %s', (text, name) => {
    expect(scrubPersonalData(text).text).not.toContain(name);
  });
});
