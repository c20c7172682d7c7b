import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { signatureNames } from '../../src/knowledge/learned-candidates.js';
import { scrubPersonalData, type PersonalDataKind } from '../../src/knowledge/personal-data.js';
import { parseQaCsv } from '../../src/knowledge/qa-loader.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { MAIL_CORPUS_DIR } from '../support/mail-corpus.js';

// Personal data the scrub let through on real text (quoted replies, the mikel/mail corpus in ../shared/corpora) and
// product knowledge it removed there (four-part versions, the default knowledge base's own contact details).

// [case, input, expected output, kinds replaced in order]
type Case = [string, string, string, PersonalDataKind[]];

// The line a mail client writes above the quoted original: the name in it is the customer's.
const ATTRIBUTION_LINES: Case[] = [
  ['Gmail', 'Thanks!\n\nOn Mon, 3 Nov 2026 at 10:02, Taro Yamada <taro@example.com> wrote:\n> Hello', 'Thanks!\n\nOn Mon, 3 Nov 2026 at 10:02, [name] <[email]> wrote:\n> Hello', ['name', 'email']],
  ['Gmail, US date and time without a comma before the name', 'On Mon, Nov 3, 2026 at 10:02 AM Taro Yamada <taro@example.com> wrote:', 'On Mon, Nov 3, 2026 at 10:02 AM [name] <[email]> wrote:', ['name', 'email']],
  ['Apple Mail', 'On Nov 3, 2026, at 10:02, Taro Yamada <taro@example.com> wrote:', 'On Nov 3, 2026, at 10:02, [name] <[email]> wrote:', ['name', 'email']],
  ['Thunderbird, without an address', 'On 03/11/2026 10:02, Taro Yamada wrote:\n> Hello', 'On 03/11/2026 10:02, [name] wrote:\n> Hello', ['name']],
  ['without a date', 'Taro Yamada <taro@example.com> wrote:\n> Hello', '[name] <[email]> wrote:\n> Hello', ['name', 'email']],
  ['without a date or an address', 'Taro Yamada wrote:\n> Hello', '[name] wrote:\n> Hello', ['name']],
  ['inside a quote', '> > On Mon, 3 Nov 2026 at 10:02, Taro Yamada <taro@example.com> wrote:', '> > On Mon, 3 Nov 2026 at 10:02, [name] <[email]> wrote:', ['name', 'email']],
  ['wrapped inside the address', 'On Mon, 3 Nov 2026 at 10:02, Taro Yamada <\ntaro@example.com> wrote:', 'On Mon, 3 Nov 2026 at 10:02, [name] <\n[email]> wrote:', ['name', 'email']],
  ['wrapped before "wrote"', 'On Mon, 3 Nov 2026 at 10:02, Taro Yamada <taro@example.com>\nwrote:', 'On Mon, 3 Nov 2026 at 10:02, [name] <[email]>\nwrote:', ['name', 'email']],
  ['a quoted display name with a comma', 'On Mon, 3 Nov 2026 at 10:02, "Yamada, Taro" <taro@example.com> wrote:', 'On Mon, 3 Nov 2026 at 10:02, "[name]" <[email]> wrote:', ['name', 'email']],
  ['a name with an accent and an apostrophe', 'On 3 Nov 2026, at 10:02, Zoë O\'Brien wrote:', 'On 3 Nov 2026, at 10:02, [name] wrote:', ['name']],
  ['French', 'Le lun. 3 nov. 2026 à 10:02, Taro Yamada <taro@example.com> a écrit :', 'Le lun. 3 nov. 2026 à 10:02, [name] <[email]> a écrit :', ['name', 'email']],
  ['German', 'Am 03.11.2026 um 10:02 schrieb Taro Yamada <taro@example.com>:', 'Am 03.11.2026 um 10:02 schrieb [name] <[email]>:', ['name', 'email']],
  ['Spanish', 'El lun, 3 nov 2026 a las 10:02, Taro Yamada (<taro@example.com>) escribió:', 'El lun, 3 nov 2026 a las 10:02, [name] (<[email]>) escribió:', ['name', 'email']],
  ['Gmail in Japanese', 'ありがとうございます。\n\n2026年11月3日(月) 10:02 山田太郎 <taro@example.com>:\n> こんにちは', 'ありがとうございます。\n\n2026年11月3日(月) 10:02 [氏名] <[メールアドレス]>:\n> こんにちは', ['name', 'email']],
  ['Gmail in Japanese, a name with a space', '2026年11月3日(月) 10:02 山田 太郎 <taro@example.com>:\n> ログインできません。', '2026年11月3日(月) 10:02 [氏名] <[メールアドレス]>:\n> ログインできません。', ['name', 'email']],
  ['Gmail in Japanese, a Latin name', '2026年11月3日(月) 10:02 Taro Yamada <taro@example.com>:\n> ログインできません。設定を確認しました。', '2026年11月3日(月) 10:02 [氏名] <[メールアドレス]>:\n> ログインできません。設定を確認しました。', ['name', 'email']],
  ['Apple Mail in Japanese', '2026/11/03 10:02、山田太郎 <taro@example.com>のメール:\n> ログインできません。', '2026/11/03 10:02、[氏名] <[メールアドレス]>のメール:\n> ログインできません。', ['name', 'email']],
  ['our own Japanese attribution without a date', '山田太郎 <taro@example.com>のメール:\n> ログインできません。', '[氏名] <[メールアドレス]>のメール:\n> ログインできません。', ['name', 'email']],
  ['からのメッセージ', 'Taro Yamada <taro@example.com> からのメッセージ:\n> ログインできません。パスワードを変更しました。', '[氏名] <[メールアドレス]> からのメッセージ:\n> ログインできません。パスワードを変更しました。', ['name', 'email']],
];

// Already handled before this audit; kept here so the attribution rules cannot undo them.
const ATTRIBUTIONS_ALREADY_HANDLED: Case[] = [
  ['Outlook in Japanese, 様からのメール', '山田太郎様からのメール:\n> ログインできません。', '[氏名]様からのメール:\n> ログインできません。', ['name']],
  ['Thunderbird in Japanese', '2026/11/03 10:02 に 山田 太郎 さんは書きました:', '2026/11/03 10:02 に [氏名] さんは書きました:', ['name']],
  [
    "Outlook's English block",
    'From: Taro Yamada <taro@example.com>\nSent: Monday, November 3, 2026 10:02 AM\nTo: Hanako Sato\nSubject: RE: Login',
    'From: [name] <[email]>\nSent: Monday, November 3, 2026 10:02 AM\nTo: [name]\nSubject: RE: Login',
    ['name', 'email', 'name'],
  ],
  [
    "Outlook's Japanese block with 件名",
    '差出人: 山田 太郎 <taro@example.jp>\n送信日時: 2026年11月3日 10:02\n宛先: 鈴木 一郎\nCC: 田中 次郎\n件名: RE: ログインできません',
    '差出人: [氏名] <[メールアドレス]>\n送信日時: 2026年11月3日 10:02\n宛先: [氏名]\nCC: [氏名]\n件名: RE: ログインできません',
    ['name', 'email', 'name', 'name'],
  ],
];

const KEYS_AND_IDS: Case[] = [
  ['a key of four three-letter groups', 'My key ABC-DEF-GHI-JKL stopped working.', 'My key [number] stopped working.', ['reference-number']],
  ['a key of three-character groups of letters and digits', 'Enter 7K2-9QX-M4P-Z8R on the activation page.', 'Enter [number] on the activation page.', ['reference-number']],
  ['a key of three-character groups in small letters', 'the code k7q-2mx-p9z-4rt was refused', 'the code [number] was refused', ['reference-number']],
  ['a key of five three-character groups in Japanese', 'シリアル A1B-C2D-E3F-G4H-J5K を入力しました。', 'シリアル [番号] を入力しました。', ['reference-number']],
  ['a tenant id (UUID)', 'Our tenant 3f2504e0-4f89-11d3-9a0c-0305e82c3301 cannot sign in.', 'Our tenant [number] cannot sign in.', ['reference-number']],
  ['a UUID in capitals in Japanese', 'テナント 3F2504E0-4F89-11D3-9A0C-0305E82C3301 でログインできません。', 'テナント [番号] でログインできません。', ['reference-number']],
  ['a UUID after a colon', 'Workspace:550e8400-e29b-41d4-a716-446655440000', 'Workspace:[number]', ['reference-number']],
];

const VERSIONS_AND_ADDRESSES: Case[] = [
  ['an address after "update the allowlist to"', 'Please update the allowlist to 81.2.69.142 today.', 'Please update the allowlist to [number] today.', ['reference-number']],
  ['a version-shaped address with a port', 'Connect to 3.8.1.2:443 from the office.', 'Connect to [number]:443 from the office.', ['reference-number']],
  ['a version-shaped network in CIDR', 'Please allow 3.8.1.0/24 for us.', 'Please allow [number]/24 for us.', ['reference-number']],
  ['an address after IP before a version word after', 'Our IP changed to 12.0.6.1 or later today.', 'Our IP changed to [number] or later today.', ['reference-number']],
  ['an address after 接続元 and before に更新', '接続元 IP を 12.0.6.1 に更新しました。', '接続元 IP を [番号] に更新しました。', ['reference-number']],
  ['addresses a server migrates between', 'We are migrating from 81.2.69.142 to 81.2.69.143.', 'We are migrating from [number] to [number].', ['reference-number', 'reference-number']],
];

// Found by running the scrub over the corpus and over variants of what survived there.
const CORPUS_MISSES: Case[] = [
  ['a street with a directional in initials', '6765 S.W. Preslynn Drive\nPortland, Oregon 97225-2668', '[address]\nPortland, Oregon [postal code]', ['address', 'postal-code']],
  ['a street with a directional after its type', 'Send it to 1600 Pennsylvania Ave NW, Washington, DC 20500.', 'Send it to [address], Washington, DC [postal code].', ['address', 'postal-code']],
  ['a street with a one-letter directional', 'We moved to 123 N Main St, Springfield.', 'We moved to [address], Springfield.', ['address']],
  ['a title written against the name', 'Regards.\nMrs.Cecil Edward', 'Regards.\nMrs.[name]', ['name']],
  ['a title after a name label', 'Name: Rev.John Ntepe\nMobile: +229 97292685', 'Name: Rev.[name]\nMobile: [phone]', ['name', 'phone']],
  ['a Norwegian number in a signature', 'Thanks.\n\n-- \nJørn Støylen -- http://www.prikkprikkprikk.no\n924 38 051 -- jorn@prikkprikkprikk.no', 'Thanks.\n\n-- \nJørn Støylen -- http://www.prikkprikkprikk.no\n[phone] -- [email]', ['phone', 'email']],
  ['numbers in pairs in a signature', 'Best regards,\nOle\n--\nOle Hansen\n22 33 44 55\n+47 924 38 051', 'Best regards,\n[name]\n--\nOle Hansen\n[phone]\n[phone]', ['name', 'phone', 'phone']],
  ['a dotted number in a signature', 'Cheers\n___________\nACME GmbH\n030.1234.5678', 'Cheers\n___________\nACME GmbH\n[phone]', ['phone']],
  ['a North American number with its trunk prefix', 'Call me at 1-503-203-1539 tomorrow.', 'Call me at [phone] tomorrow.', ['phone']],
  ['an account number after acct #:', 'acct #: 000123456789', 'acct #: [number]', ['reference-number']],
  ['an order number after #:', 'Order #: 12345678 never arrived.', 'Order #: [number] never arrived.', ['reference-number']],
  ['a Japanese self-introduction with 名前は', '私の名前は山田太郎です。ログインできません。', '私の名前は[氏名]です。ログインできません。', ['name']],
  ['a Korean self-introduction', '제 이름은 Jamis입니다.', '제 이름은 [name]입니다.', ['name']],
];

// Text the knowledge base and support answers need: must come out unchanged.
const KEPT: [string, string][] = [
  ['a four-part version after "update to"', 'Update to 12.0.6.1 and restart. Update to 10.0.19045.3803 first.'],
  ['a four-part version before 以降', 'Oracle 11.2.0.4 以降が必要です。'],
  ['a four-part version before "or later"', 'Upgrade the database to 11.2.0.4 or later.'],
  ['a four-part version after firmware', 'ファームウェア 12.1.0.3 に更新してください。Firmware 12.1.0.3 fixes it.'],
  ['a four-part version after another version in a list', 'See sections 4.2.1 and 12.3.4.5 of the manual; 10.0.1 or 11.2.0.4 works.'],
  ['an upgrade from and to four-part versions', 'Upgrade from 11.2.0.4 to 12.2.0.1 in one step.'],
  ['key formats and words in groups of three', 'JAN-FEB-MAR-APR and MON-TUE-WED-THU-FRI; the format is XXX-XXX-XXX-XXX; ABCD-EFGH-IJKL is a sample; one-two-six-ten.'],
  ['cipher suites', 'Enable ECDHE-RSA-AES256-GCM-SHA384, ECDHE-ECDSA-CHACHA20-POLY1305 and TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256.'],
  ['GUIDs in braces, the nil UUID and a UUID pattern', 'The class {4D36E972-E325-11CE-BFC1-08002BE10318}; 00000000-0000-0000-0000-000000000000 means none; xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.'],
  ['a UUID in a documentation link', 'See https://learn.example.com/articles/3f2504e0-4f89-11d3-9a0c-0305e82c3301 for details.'],
  ['error codes, menu paths and sections', 'Error 0x80070005, E-3004 and ERR-2001-X: 設定 > セキュリティ > 二段階認証、第3章 3.2.1 を参照。Settings > Security > IP allowlist > 203.0.113.0/24.'],
  ["the knowledge base's automated and support addresses", '送信元 `no-reply@xyz-system.example.jp` と alert@notify.xyz-system.example.jp を許可し、support@xyz-system.example.jp までご連絡ください。'],
  ['toll-free and shared-cost numbers', '電話: 0120-000-123（平日 10:00〜17:00）、ナビダイヤル 0570-000-123。Toll Free: 1-800-336-1166 or (888) 555-0100.'],
  ['greetings to a role', 'Dear Homeowner,\nDear Beneficiary,\nDear Member,'],
  ['teams in a header block', 'From: XYZ Helpdesk <helpdesk@xyz.example>\nTo: XYZ Support <support@xyz.example>\nSubject: Login'],
  ['prose that ends like an attribution', 'The customer wrote:\n> x\nHe wrote:\nOn success the tool writes:\nSupport wrote:\n2026年11月3日(月) の変更点:\nエラーのメール:'],
  ['a product that "wrote" on a date', 'On 3 Nov 2026, XYZ Cloud wrote:\n> backup done'],
  ['counts in a table under a rule', '---\n| 件数 | 上限 |\n| 1 000 000 | 2 000 000 |\n| 12 345 678 | 9 999 999 |'],
  ['dates and prices in a signature', 'Regards,\n--\nACME GmbH\nClosed 24.12.2026 - 02.01.2027\nv2.3.1, $1,299.00, 10:00-18:00'],
];

function check(input: string, output: string, kinds: PersonalDataKind[]): void {
  const result = scrubPersonalData(input);
  expect(result.text).toBe(output);
  expect(result.replacements.map((r) => r.kind)).toEqual(kinds);
  for (const r of result.replacements) expect(input.slice(r.index, r.index + r.original.length)).toBe(r.original);
}

describe('scrubPersonalData: misses on real text', () => {
  it.each(ATTRIBUTION_LINES)('attribution line: %s', (_name, input, output, kinds) => check(input, output, kinds));
  it.each(ATTRIBUTIONS_ALREADY_HANDLED)('attribution already handled: %s', (_name, input, output, kinds) => check(input, output, kinds));
  it.each(KEYS_AND_IDS)('key or id: %s', (_name, input, output, kinds) => check(input, output, kinds));
  it.each(VERSIONS_AND_ADDRESSES)('address among versions: %s', (_name, input, output, kinds) => check(input, output, kinds));
  it.each(CORPUS_MISSES)('corpus: %s', (_name, input, output, kinds) => check(input, output, kinds));

  it.each(KEPT)('keeps %s', (_name, input) => {
    const result = scrubPersonalData(input);
    expect(result.replacements).toEqual([]);
    expect(result.text).toBe(input);
  });

  it('still removes personal addresses and numbers beside the kept role addresses and toll-free numbers', () => {
    const result = scrubPersonalData('support@xyz.example または taro.yamada@xyz.example、support.tanaka@xyz.example、0120-000-123 または 090-1234-5678 まで。');
    expect(result.text).toBe('support@xyz.example または [メールアドレス]、[メールアドレス]、0120-000-123 または [電話番号] まで。');
  });

  it('takes a role word or a domain in a given name as no part of a name, and keeps the person in it', () => {
    const names = ['Mail Delivery Subsystem', 'MySurvey.com & Carol Adams', 'Taro Yamada (ACME Support)'];
    const result = scrubPersonalData('Unknown E-Mail Address; a MySurvey.com member; Carol wrote to Support; Yamada agreed.', { names });
    expect(result.text).toBe('Unknown E-Mail Address; a MySurvey.com member; [name] wrote to Support; [name] agreed.');
  });
});

// The whole default knowledge base (data/) goes through unchanged: an approved reply that quotes it keeps it.
describe('scrubPersonalData: the default knowledge base', () => {
  const root = path.resolve(import.meta.dirname, '../..');

  it('keeps every paragraph of the default manual', () => {
    const manual = readFileSync(path.join(root, 'data/manuals/xyz-manual.md'), 'utf8');
    const changed = manual.split(/\n\s*\n/).flatMap((paragraph) => scrubPersonalData(paragraph).replacements.map((r) => r.original));
    expect(changed).toEqual([]);
  });

  it('keeps every question and answer of the default Q&A', () => {
    const { pairs } = parseQaCsv(readFileSync(path.join(root, 'data/qa/xyz-qa.csv'), 'utf8'), 'xyz-qa.csv');
    expect(pairs.length).toBeGreaterThan(50);
    const changed = pairs.flatMap((pair) => [pair.question, pair.answer]).flatMap((text) => scrubPersonalData(text).replacements.map((r) => r.original));
    expect(changed).toEqual([]);
  });
});

// The corpus mails where personal data survived, parsed by the product's parser and scrubbed with the names the
// learned-answer job passes (the sender's display name and the names under the sign-off).
describe('scrubPersonalData: the mikel/mail corpus', () => {
  it.each([
    ['error_emails/content_transfer_encoding_x_uuencode.eml', ['Preslynn', '6765', '503-203', 'Lon L. Peters', 'lpeters@']],
    ['error_emails/header_fields_with_empty_values.eml', ['924 38 051', 'jorn@', 'Jørn Støylen']],
    ['error_emails/empty_group_lists.eml', ['Ntepe', 'Cecil', 'Edward', '97292685']],
    ['plain_emails/raw_email_string_in_date_field.eml', ['Jamis']],
  ])('%s', async (file, personal) => {
    const mail = await parseInboundMail(readFileSync(path.join(MAIL_CORPUS_DIR, file)));
    const names = [mail.from?.name, ...signatureNames(mail.text)].filter((n): n is string => Boolean(n?.trim()));
    const { text } = scrubPersonalData(mail.text, { names });
    for (const piece of personal) expect(text).not.toContain(piece);
  });

  it('keeps the delivery report codes and the words of a bounce signed by its system', async () => {
    const mail = await parseInboundMail(readFileSync(path.join(MAIL_CORPUS_DIR, 'multipart_report_emails/report_530.eml')));
    const { text } = scrubPersonalData(mail.text, { names: [mail.from!.name!] });
    expect(text).toContain('Unknown E-Mail Address');
    expect(text).toContain('553 5.3.0');
    expect(text).not.toContain('edwin@');
  });
});

// Every rule added here reads a line, a signature block or a bounded window: none may stall on a long run of what it
// looks for. The bound is generous: the machine running tests is shared.
describe('scrubPersonalData: the new rules on 20,000-character adversarial input', () => {
  it.each([
    ['an attribution with a long name', `On 3 Nov 2026 at 10:02, ${'Taro '.repeat(4_000)}wrote:`],
    ['attribution lines', 'On 3 Nov 2026, X wrote:\n'.repeat(800)],
    ['a long line ending in a colon after a Japanese date', `2026年11月3日(月) 10:02 ${'山'.repeat(20_000)} <a@b.example>:`],
    ['a long line of angle brackets before wrote', `${'<'.repeat(20_000)} wrote:`],
    ['groups of three without an end', 'AB1-'.repeat(5_000)],
    ['hex groups like a UUID without an end', 'abcdef01-'.repeat(2_300)],
    ['a signature of digit groups', `--\n${'12 '.repeat(7_000)}`],
    ['a signature of digits and dots', `--\n${'1.'.repeat(10_000)}`],
    ['a list of dotted numbers', '1.2.3 and '.repeat(2_000)],
    ['dotted octets after version words', 'update to 1.2.3.4 '.repeat(1_100)],
    ['acct # and a long run of spaces', `acct #${' '.repeat(20_000)}x`],
    ['a title against a long run of capitalised words', `Mrs.${'Anna'.repeat(5_000)}`],
    ['directionals before a street', `1 ${'N '.repeat(10_000)}Main St`],
    ['名前は and a long run of kanji', `私の名前は${'山'.repeat(20_000)}`],
    ['a long run of spaces (signature and attribution lines)', ' '.repeat(20_000)],
    ['a long run of ideographic spaces', '　'.repeat(20_000)],
    ['lines of spaces ending in a colon', `${' '.repeat(398)}:\n`.repeat(50)],
    ['sign-off lines', 'Regards,\n'.repeat(2_000)],
    ['a Japanese date before a long line ending in a colon', `2026年1月1日${' '.repeat(380)}:\n`.repeat(50)],
  ])('%s', (_name, input) => {
    const started = performance.now();
    scrubPersonalData(input);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
