/**
 * Personal data written so that a pattern for its plain shape misses it (security review 12): e-mail addresses with
 * the @ and dots spelt out or bracketed (taro (at) example (dot) com, taro＠example．com, taro アットマーク example ドット
 * com, taro@example[.]com), IPv4 addresses in full-width digits, passwords after a label spelt letter by letter
 * (p-a-s-s-w-o-r-d, パ ス ワ ー ド), phone numbers spelt in words (zero nine zero …, ゼロキューゼロ…), and, in a
 * learned candidate's question, links and host names defanged (xyz[.]com, example(.)co(.)jp, hxxps://…). Beside them,
 * ordinary text with the same words and marks that must stay as it is: "at" and "dot" in sentences, version numbers and
 * dates (full width too), `[.]` in code, product names, counting words.
 */
import { describe, expect, it } from 'vitest';
import { scrubCandidate } from '../../src/knowledge/learned-candidates.js';
import { scrubPersonalData, type PersonalDataKind } from '../../src/knowledge/personal-data.js';

// [case, input, expected output, kinds replaced in order]
type Case = [string, string, string, PersonalDataKind[]];

const EMAILS: Case[] = [
  ['(at) and (dot) with spaces', 'Please write to taro.yamada (at) example (dot) com for the invoice.', 'Please write to [email] for the invoice.', ['email']],
  ['[at] and [dot]', 'Contact: taro[at]example[dot]com', 'Contact: [email]', ['email']],
  ['{at} and {dot}', 'Email: taro {at} example {dot} com', 'Email: [email]', ['email']],
  ['(at) with plain dots', 'Reply to taro(at)example.co.jp please.', 'Reply to [email] please.', ['email']],
  ['full-width ＠ and ．', 'メールは taro＠example．com までお願いします。', 'メールは [メールアドレス] までお願いします。', ['email']],
  ['full-width letters throughout', '連絡先は ｔａｒｏ＠ｅｘａｍｐｌｅ．ｃｏｍ です。', '連絡先は [メールアドレス] です。', ['email']],
  ['アットマーク and ドット', 'メールは taro アットマーク example ドット com です。', 'メールは [メールアドレス] です。', ['email']],
  ['アット and ドット without spaces, a co.jp domain', 'taroアットexampleドットcoドットjp に送ってください。', '[メールアドレス] に送ってください。', ['email']],
  ['@ with a bracketed dot', 'my address is taro@example[.]com', 'my address is [email]', ['email']],
  ['@ with (.) dots', 'my address is taro@example(.)co(.)jp', 'my address is [email]', ['email']],
  ['at and dot as words', 'You can reach me at taro at example dot com anytime.', 'You can reach me at [email] anytime.', ['email']],
  ['dot as a word in the local part too', 'Mail taro dot yamada at example dot co dot jp today.', 'Mail [email] today.', ['email']],
  ['[at] with a dotted local part in brackets', 'taro[.]yamada[at]example[.]com', '[email]', ['email']],
  ['upper-case AT and DOT', 'TARO (AT) EXAMPLE (DOT) COM', '[email]', ['email']],
];

const IP_ADDRESSES: Case[] = [
  ['a public IPv4 address in full-width digits and dots', '接続元は ５２．１４．８８．２０１ です。', '接続元は [番号] です。', ['reference-number']],
  ['a public IPv4 address in full-width digits with ASCII dots', 'アクセス元 ５２.１４.８８.２０１ からのログインです。', 'アクセス元 [番号] からのログインです。', ['reference-number']],
  ['a public IPv4 address', 'The login came from 52.14.88.201 last night.', 'The login came from [number] last night.', ['reference-number']],
  ['a public IPv6 address', 'The login came from 2400:4050:a2c1:1100::45 last night.', 'The login came from [number] last night.', ['reference-number']],
];

const PASSWORDS: Case[] = [
  ['p-a-s-s-w-o-r-d:', 'p-a-s-s-w-o-r-d: hunter2', 'p-a-s-s-w-o-r-d: [number]', ['reference-number']],
  ['p a s s w o r d:', 'My p a s s w o r d: hunter2', 'My p a s s w o r d: [number]', ['reference-number']],
  ['P.A.S.S.W.O.R.D is', 'The P.A.S.S.W.O.R.D is Xk9#mP2q now.', 'The P.A.S.S.W.O.R.D is [number] now.', ['reference-number']],
  ['パ ス ワ ー ド：', 'パ ス ワ ー ド：hunter2', 'パ ス ワ ー ド：[番号]', ['reference-number']],
  ['パ・ス・ワ・ー・ド は', 'パ・ス・ワ・ー・ド は hunter2 です。', 'パ・ス・ワ・ー・ド は [番号] です。', ['reference-number']],
  // Full-width letters and digits (a Japanese input method) and half-width katakana (review 44b).
  ['a full-width value after パスワード：', 'パスワード：Ｘｙ７ｋＰ２ｑＺ', 'パスワード：[番号]', ['reference-number']],
  ['a full-width value after password:', 'password: Ｘｙ７ｋＰ２ｑＺ', 'password: [番号]', ['reference-number']],
  ['a full-width label and value', 'ｐａｓｓｗｏｒｄ：Ｘｙ７ｋＰ２ｑＺ', 'ｐａｓｓｗｏｒｄ：[番号]', ['reference-number']],
  ['a half-width katakana label', '仮ﾊﾟｽﾜｰﾄﾞは Xy7-kP2q です', '仮ﾊﾟｽﾜｰﾄﾞは [番号] です', ['reference-number']],
];

const SPELT_NUMBERS: Case[] = [
  ['a mobile number in English words', 'My number is zero nine zero one two three four five six seven eight.', 'My number is [phone].', ['phone']],
  ['a number in English words with hyphens and commas', 'Call zero-nine-zero, one-two-three-four, five-six-seven-eight please.', 'Call [phone] please.', ['phone']],
  ['a number in katakana digits', '電話はゼロキューゼロイチニーサンヨンゴーロクナナハチです。', '電話は[電話番号]です。', ['phone']],
  ['a number in katakana digits with separators', '携帯：ゼロ・キュウ・ゼロ、イチ・ニ・サン・ヨン、ゴ・ロク・ナナ・ハチ', '携帯：[電話番号]', ['phone']],
  ['the digits in order but one', 'It is zero one two three four five six seven eight eight.', 'It is [phone].', ['phone']],
];

// What must stay as written: the words and marks of the rules above in ordinary text.
const ORDINARY: string[] = [
  'Sign in at app.example.com with your account.',
  'Sign in at mail dot example dot com to read it.',
  'Look at the dot in the corner of the screen.',
  'Click the red dot at the top right, then look at the status bar.',
  'We were a dot com at heart.',
  'Meet us at booth 12 at the expo.',
  'Update to 2.0.1.3 or later.',
  'Version 2.0.1.3 fixes the crash.',
  'バージョン ２．０．１．３ に更新してください。',
  'ファームウェア １２．１．０．３ を適用しました。',
  'The release of 2024.10.12 fixed it.',
  'リリース日は ２０２４．１０．１２ です。',
  'Sections 3.2.1.4 and 4.2.1 explain it.',
  'The documentation range 203.0.113.45 is used in the examples.',
  'Use the regex `^[a-z]+[.][a-z]+$` to match a dotted name.',
  'const version = name.split(/[.]/);',
  'Escape the dot as [.] or \\. in the pattern.',
  'Node.js, ASP.NET and AT&T are supported; so is the ThinkPad X1 Carbon.',
  'Windows 11 Pro 23H2 on the Surface Pro 9.',
  'パスワードは8文字以上にしてください。',
  'Enter the password at the prompt.',
  'Type p-a-s-s-w-o-r-d exactly as shown.',
  'Press one, two or three on the keypad.',
  'Steps one two three four five are in the manual.',
  'イチ、ニ、サンで押してください。',
  'アットホームな雰囲気のサポートです。',
  'ドットインパクトプリンターにも対応しています。',
  '@ マークは半角で入力してください（例：name＠domain ではなく name@domain）。',
  'Reply at your convenience (at least one day ahead).',
  'support (at) example (dot) com answers within a day.',
  // A stop-word or a verb before "at", a stop-word after it (review 44b).
  'Prices started at the dot com peak.',
  'Founded at the dot com boom, the firm grew fast.',
  'We stay at Hilton (dot) com every year.',
  // Number words listed in their order are no number (review 44b).
  'Say the digits zero, one, two, three, four, five, six, seven, eight, nine to the IVR.',
  'ゼロ、イチ、ニ、サン、ヨン、ゴ、ロク、ナナ、ハチ、キュウの10個の読み方',
];

describe('obfuscated personal data', () => {
  for (const [group, cases] of [['e-mail addresses', EMAILS], ['IP addresses', IP_ADDRESSES], ['passwords', PASSWORDS], ['numbers spelt in words', SPELT_NUMBERS]] as const) {
    describe(group, () => {
      it.each(cases)('%s', (_name, input, expected, kinds) => {
        const result = scrubPersonalData(input);
        expect(result.text).toBe(expected);
        expect(result.replacements.map((r) => r.kind)).toEqual(kinds);
      });
    });
  }

  // Hostile input: a run of near-matches is read once (review 44b: `a (dot) ` repeated took 1.4 s at 80,000
  // characters, growing with the square). Not a speed target: a bound far from both a linear read (well under a
  // second) and the quadratic one (minutes), so a busy machine does not fail it.
  it.each(['a (dot) ', 'a [.] ', 'a-(dot) ', 'a (dot)  ', 'ｘ　［．］　', 'a ドット ', 'x (at) a (dot) '])('reads 1 MB of %j in one pass', (unit) => {
    const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
    const started = performance.now();
    scrubPersonalData(text);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  describe('ordinary text stays', () => {
    it.each(ORDINARY)('%s', (input) => {
      expect(scrubPersonalData(input).text).toBe(input);
    });
  });
});

describe('defanged links in a candidate question', () => {
  const ANSWER = 'パスワードは「設定 > セキュリティ」から変更できます。';
  // [case, question, the question the candidate keeps]
  const LINKS: [string, string, string][] = [
    ['a host with [.]', 'xyz[.]com のページでパスワードを入力しました。', '[URL] のページでパスワードを入力しました。'],
    ['a host with (.) twice', 'example(.)co(.)jp から届いたメールです。', '[URL] から届いたメールです。'],
    ['an hxxps link', 'hxxps://evil.example.com/login でログインしました。', '[URL] でログインしました。'],
    ['an hxxp link with [.] and a path', 'hxxp://shop-yamada[.]jp/mypage を開けません。', '[URL] を開けません。'],
    ['a link with [:]', 'https[:]//shop-yamada[.]jp/mypage を開けません。', '[URL] を開けません。'],
    ['a plain scheme before a defanged host', 'https://example[.]com/x を開きました。', '[URL] を開きました。'],
    ['a host with www. and [.] before a comma', 'See www.example[.]com, please.', 'See [URL], please.'],
    ['a full-width hxxps link', 'ｈｘｘｐｓ：／／ｅｖｉｌ．ｃｏｍ を開きました。', '[URL] を開きました。'],
    ['a defanged IPv4 address', '52[.]14[.]88[.]201 から届きました。', '[URL] から届きました。'],
    // The brackets around a link are not the link's (review 44b).
    ['an hxxp link in brackets', 'Is [hxxp://evil[.]com] the official site?', 'Is [[URL]] the official site?'],
    // A defanged host inside a link the link check takes goes with the link, once.
    ['a defanged host in a link', 'See https://good.example/a?x=evil[.]com please', 'See [URL] please'],
  ];
  it.each(LINKS)('%s', async (_name, question, expected) => {
    const scrubbed = await scrubCandidate({ question, answer: ANSWER }, []);
    expect(scrubbed.question).toBe(expected);
    expect(scrubbed.scrub.linksReplaced).toBe(1);
  });

  // An obfuscated address in the question goes even when it is a role address (support@…), which the scrub keeps for
  // answers: in a question it is where the customer was told to write (review 44b).
  const ADDRESSES: [string, string, string][] = [
    ['a role address with (at) and (dot)', '返金は support (at) xyz-refunds (dot) com に連絡すればよいですか', '返金は [メールアドレス] に連絡すればよいですか'],
    ['a role address with [.]', '返金は support@evil[.]com に連絡すればよいですか', '返金は [メールアドレス] に連絡すればよいですか'],
    ['a role address in English', 'Should I write to help [at] xyz-refunds [dot] com?', 'Should I write to [email]?'],
  ];
  it.each(ADDRESSES)('%s', async (_name, question, expected) => {
    const scrubbed = await scrubCandidate({ question, answer: '返金は管理画面から申請してください。' }, []);
    expect(scrubbed.question).toBe(expected);
    expect(scrubbed.scrub.linksReplaced).toBe(1);
  });

  it('keeps an obfuscated role address the answer writes too, however it is written there', async () => {
    const question = 'support (at) example (dot) com に返金を依頼すればよいですか';
    for (const answer of ['はい、support (at) example (dot) com までご連絡ください。', 'はい、support@example.com までご連絡ください。']) {
      const scrubbed = await scrubCandidate({ question, answer }, []);
      expect(scrubbed.question).toBe(question);
    }
  });

  // [case, question, answer, the question the candidate keeps]
  const KEPT_OR_NOT: [string, string, string, string][] = [
    ['file names with [.]', 'Why does report[.]docx and index[.]php fail to upload?', 'Only PDF files can be uploaded.', 'Why does report[.]docx and index[.]php fail to upload?'],
    ['more file names with [.]', 'Main[.]java, App[.]vue, data[.]xlsx and dump[.]sql are rejected.', 'Only PDF files can be uploaded.', 'Main[.]java, App[.]vue, data[.]xlsx and dump[.]sql are rejected.'],
    ['a host in a regular expression', 'My filter uses ^www[.]example[.]com$ and fails', 'Escape the dot as \\. in the filter.', 'My filter uses ^www[.]example[.]com$ and fails'],
    ['a host the answer writes only as part of a longer one', 'Is evil[.]co yours?', 'evil[.]com is a phishing site.', 'Is [URL] yours?'],
    ['a host the answer writes as well', 'Is evil[.]com yours?', 'evil[.]com is a phishing site.', 'Is evil[.]com yours?'],
  ];
  it.each(KEPT_OR_NOT)('%s', async (_name, question, answer, expected) => {
    expect((await scrubCandidate({ question, answer }, [])).question).toBe(expected);
  });

  it('keeps [.] in code in the question and anything in the answer', async () => {
    const question = 'The regex `^[a-z]+[.][a-z]+$` rejects my name. Why?';
    const answer = 'Phishing mail comes from evil[.]com; do not open it.';
    const scrubbed = await scrubCandidate({ question, answer }, []);
    expect(scrubbed.question).toBe(question);
    expect(scrubbed.answer).toBe(answer);
  });
});
