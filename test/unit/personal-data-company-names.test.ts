/**
 * A company named with an honorific was cut in half (audit s49 H4, MED 6): the name before 様 is read as at most eight
 * letters, so 株式会社サンプル商事様 was matched from 会社…, which holds no whole legal form, and became 株式[氏名]様 —
 * the rest of the name left in the learned answer and hidden from its reviewer. A company stays whole (the scrub
 * removes people; the Knowledge page names the companies, amounts and dates of a candidate for the reviewer), and a
 * person named after it still goes.
 */
import { describe, expect, it } from 'vitest';
import { scrubCandidate } from '../../src/knowledge/learned-candidates.js';
import { scrubPersonalData } from '../../src/knowledge/personal-data.js';

/** A company before an honorific, kept whole: nothing is replaced. */
const COMPANY: string[] = [
  '株式会社サンプル商事様の10月分の領収書です。',
  '株式会社サンプルトレーディング様にお送りしました。',
  '株式会社エービーシーホールディングス様との契約です。',
  '株式会社 サンプル商事様宛にお送りください。',
  '㈱サンプルトレーディング様宛です。',
  'ABC Corporation様からのご注文です。',
  'XYZ GmbH様の請求書です。',
  'Acme Inc様のアカウントです。',
  'Sample Trading Ltd様のご契約です。',
  // A department with no one after it, or its head by title only, names no one.
  '株式会社サンプル商事営業部様宛にお送りください。',
  '株式会社サンプル商事営業部長様にご確認いただきました。',
  'サンプル商事株式会社カスタマーセンター様',
  // 部 and センター inside a company's own name are no department.
  '株式会社サンプル部品様の請求書です。',
  '株式会社サンプルセンター様',
  // Co and SA are a legal form after a name of two words or more, or after &.
  'ABC Trading Co様のご注文です。',
  'Sample Trading SA様のご契約です。',
  'Smith & Co様',
];

/** A company and a person after it: the company stays whole, the person goes. */
const COMPANY_AND_PERSON: [string, string][] = [
  ['株式会社サンプル商事 山田様にお送りしました。', '株式会社サンプル商事 [氏名]様にお送りしました。'],
  ['サンプル商事株式会社 山田様にお送りしました。', 'サンプル商事株式会社 [氏名]様にお送りしました。'],
  ['株式会社サンプルトレーディング 佐藤様', '株式会社サンプルトレーディング [氏名]様'],
  // A person written right after the company's department, with no space (audit s49 B1 HIGH 3): the name goes.
  ['株式会社サンプル商事営業部山田様', '株式会社サンプル商事営業部[氏名]様'],
  ['株式会社サンプル商事総務課山田花子様', '株式会社サンプル商事総務課[氏名]様'],
  ['㈱サンプル営業部田中様', '㈱サンプル営業部[氏名]様'],
  ['(株)サンプル営業部田中様', '(株)サンプル営業部[氏名]様'],
  ['（株）サンプル営業部田中様', '（株）サンプル営業部[氏名]様'],
  ['サンプル商事株式会社営業部山田様', 'サンプル商事株式会社営業部[氏名]様'],
  ['株式会社サンプル商事カスタマーセンター山田様', '株式会社サンプル商事カスタマーセンター[氏名]様'],
  ['株式会社サンプル大阪支店山田様', '株式会社サンプル大阪支店[氏名]様'],
  ['㈱サンプル営業部長田中様', '㈱サンプル営業部長[氏名]様'],
  ['株式会社サンプル営業部阿部様', '株式会社サンプル営業部[氏名]様'],
  ['株式会社サンプル商事 営業部山田様', '株式会社サンプル商事 営業部[氏名]様'],
];

/** A one-word name before Co or SA is a person's (Jose Co, KIM SA): audit s49 B1 LOW. */
const LATIN_PERSON: [string, string][] = [
  ['Jose Co様のご注文です。', '[氏名]様のご注文です。'],
  ['KIM SA様', '[name]様'],
];

describe('a company named with an honorific stays whole', () => {
  it.each(COMPANY)('%s', (text) => {
    expect(scrubPersonalData(text)).toMatchObject({ text, replacements: [] });
  });

  it.each(COMPANY_AND_PERSON)('%s names a person after the company', (text, scrubbed) => {
    expect(scrubPersonalData(text).text).toBe(scrubbed);
  });

  it.each(LATIN_PERSON)('%s is a person, not a company', (text, scrubbed) => {
    expect(scrubPersonalData(text).text).toBe(scrubbed);
  });

  it('a learned candidate keeps the customer company whole on both sides, for the reviewer to see (scrub.mts)', async () => {
    const r = await scrubCandidate(
      {
        question: '株式会社サンプル商事の山田です。領収書の宛名を会社名に変更することはできますか？',
        answer: '株式会社サンプル商事様の10月分（ご返金 12,800円）の領収書も宛名を変更できます。ABC商事株式会社 経理部の山田様にもお送りしました。',
      },
      ['山田 太郎'],
    );
    expect(r.question).toBe('株式会社サンプル商事の[氏名]です。領収書の宛名を会社名に変更することはできますか？');
    expect(r.answer).toBe('株式会社サンプル商事様の10月分（ご返金 12,800円）の領収書も宛名を変更できます。ABC商事株式会社 経理部の[氏名]様にもお送りしました。');
  });
});
