/**
 * The fifth mail audit's mismatches that the parser owns:
 * - #3 (354/355): a confidentiality notice under a heading of another shape (【機密保持に関するお知らせ】, 【ご注意】,
 *   ＜機密情報＞) stayed in the question with the signature above it, and a reply of thanks was answered;
 * - #7 (336): Gmail's `[image: name]` and Outlook's `[cid:…]` placeholders of inline images became the question;
 * - #8 (328): an encoded-word subject in UTF-8 labelled ISO-8859-1 went out as mojibake in the reply's subject.
 * Each rule's rows include the text it must leave as it is.
 */
import { describe, expect, it } from 'vitest';
import { extractQuestion, parseInboundMail } from '../../src/mail/parse.js';
import { encodedWord } from '../support/inbound-mail.js';
import { mailOutcome, OUR_REPLY_ID } from '../support/mail-outcome.js';


/** A UTF-8 mail to our support address; `headers` replace the defaults of the same name. */
function rawMail(body: string, headers: Record<string, string> = {}): Buffer {
  const all: Record<string, string> = {
    From: `${encodedWord('山田 太郎')} <taro.yamada@customer.co.jp>`,
    To: 'support@helpdesk.example.jp',
    Subject: encodedWord('RE: CSVエクスポートの文字化け'),
    'Message-ID': '<audit5-parse@customer.co.jp>',
    Date: 'Tue, 24 Nov 2026 09:30:00 +0900',
    'MIME-Version': '1.0',
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Transfer-Encoding': '8bit',
    ...headers,
  };
  return Buffer.from(`${Object.entries(all).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body.replace(/\n/g, '\r\n')}\r\n`);
}

// Sample 354's signature and notice (a Japanese notice, then its English version, framed by ━━ lines).
const RULE = '━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━';
const SIGNATURE = [
  RULE,
  '株式会社カスタマー',
  '営業本部 営業企画部 第二グループ',
  '山田 太郎 (Taro Yamada)',
  '〒100-0005 東京都千代田区丸の内1-2-3 丸の内センタービル15F',
  'TEL: 03-1234-5678 (内線 1234) / FAX: 03-1234-5679',
  'Mobile: 090-1234-5678',
  'E-mail: taro.yamada@customer.co.jp',
  'URL: https://www.customer.co.jp/',
  RULE,
].join('\n');
const NOTICE_JA = [
  'この電子メールおよび添付ファイルには、機密情報が含まれている場合があります。',
  '本メールの宛先に記載されている方以外の方が受信された場合は、',
  '誠に恐れ入りますが、直ちに送信者にご連絡いただくとともに、',
  '本メールを削除していただきますようお願い申し上げます。',
  '本メールの内容の全部または一部の無断での複製、転載、開示は固く禁止されています。',
].join('\n');
const NOTICE_EN = [
  'This e-mail and any attachments are confidential and may be privileged.',
  'If you are not the intended recipient, please notify the sender immediately',
  'by return e-mail, delete this e-mail and destroy any copies.',
].join('\n');
const THANKS = 'XYZサポート ご担当者様\n\nお世話になっております。山田です。\n\n解決しました。ありがとうございました。';
const QUESTION = 'XYZサポート ご担当者様\n\n帳票をPDFで出力すると、2ページ目以降のヘッダーが表示されません。\n設定で表示させることはできますか？\n\n以上、よろしくお願いいたします。';

describe('#3: a confidentiality notice under a heading line is cut, and the signature above it', () => {
  const withNotice = (heading: string, words = THANKS, signature = SIGNATURE) =>
    [words, '', signature, heading, NOTICE_JA, '', 'CONFIDENTIALITY NOTICE:', NOTICE_EN, RULE].join('\n');
  it.each<[string, string, string]>([
    ['354: 【機密保持に関するお知らせ】', withNotice('【機密保持に関するお知らせ】'), THANKS],
    ['【機密保持について】', withNotice('【機密保持について】'), THANKS],
    ['【ご注意】', withNotice('【ご注意】'), THANKS],
    ['＜機密情報＞', withNotice('＜機密情報＞'), THANKS],
    ['■機密情報の取り扱いについて', withNotice('■機密情報の取り扱いについて'), THANKS],
    ['[Confidentiality Notice]', withNotice('[Confidentiality Notice]'), THANKS],
    ['Disclaimer:', withNotice('Disclaimer:'), THANKS],
    ['CONFIDENTIALITY NOTICE: alone, the English notice first', [THANKS, '', SIGNATURE, 'CONFIDENTIALITY NOTICE:', NOTICE_EN, RULE].join('\n'), THANKS],
    ['354d: 【機密保持に関するお知らせ】 with no signature', [THANKS, '', '【機密保持に関するお知らせ】', NOTICE_JA].join('\n'), THANKS],
    ['355: a question above the same footer', withNotice('【機密保持に関するお知らせ】', QUESTION), QUESTION],
  ])('%s', (_what, text, expected) => {
    expect(extractQuestion(text, 'RE: CSVエクスポートの文字化け')).toBe(expected);
  });

  it.each<[string, string, string]>([
    // The customer's own text under such a heading asks something: it is the question, not a template.
    ['a customer asking under 【ご注意】', `${THANKS}\n\n【ご注意】\n機密情報を含むファイルを誤って送信してしまいました。削除していただけますか？`, '削除していただけますか？'],
    ['a customer writing under ＜お知らせ＞', `お世話になっております。\n\n＜お知らせ＞\n弊社の機密保持契約の更新について、御社のご担当者様を教えていただけますでしょうか。`, '機密保持契約の更新'],
    ['a heading word inside a sentence is no heading', `お世話になっております。\n\n機密保持についてのお知らせメールが届きません。\n本メールの宛先以外の方が受信された場合の設定はどこですか？`, '届きません'],
  ])('%s stays', (_what, text, kept) => {
    expect(extractQuestion(text)).toContain(kept);
  });

  it('354 (thanks above a signature and a notice) is ignored as an acknowledgement, not answered', async () => {
    const raw = rawMail(withNotice('【機密保持に関するお知らせ】'), { 'In-Reply-To': OUR_REPLY_ID, References: OUR_REPLY_ID });
    expect(await mailOutcome(raw)).toMatch(/^ignore acknowledgement/);
  });

  it("355's question holds neither the signature nor the notice's heading", async () => {
    const mail = await parseInboundMail(rawMail(withNotice('【機密保持に関するお知らせ】', QUESTION), { Subject: encodedWord('帳票のPDF出力') }));
    expect(mail.question).toBe(QUESTION);
  });
});

/** Gmail's HTML mail with inline images: its text/plain alternative writes `[image: name]` for each. */
function gmailWithImages(plain: string): Buffer {
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
  const body = [
    '--rel',
    'Content-Type: multipart/alternative; boundary="alt"',
    '',
    '--alt',
    'Content-Type: text/plain; charset="UTF-8"',
    'Content-Transfer-Encoding: 8bit',
    '',
    plain,
    '',
    '--alt',
    'Content-Type: text/html; charset="UTF-8"',
    '',
    '<div dir="ltr"><img src="cid:ii_1" alt="image.png"><br><img src="cid:ii_2" alt="image.png"></div>',
    '--alt--',
    ...['ii_1', 'ii_2'].flatMap((cid) => ['--rel', 'Content-Type: image/png; name="image.png"', 'Content-Disposition: inline; filename="image.png"', 'Content-Transfer-Encoding: base64', `Content-ID: <${cid}>`, '', png]),
    '--rel--',
  ].join('\n');
  return rawMail(body, {
    From: `${encodedWord('小川 香織')} <kaori.ogawa@gmail.com>`,
    Subject: encodedWord('エラー画面'),
    'Content-Type': 'multipart/related; boundary="rel"',
    'Content-Transfer-Encoding': '7bit',
  });
}

describe("#7: inline images' placeholders are no words of the sender's", () => {
  it.each<[string, string, string]>([
    ['Gmail: placeholders alone', '[image: image.png]\n[image: image.png]', ''],
    ['Gmail: a placeholder above a question (336b)', '[image: image.png]\nこれは何ですか？', 'これは何ですか？'],
    ['Gmail: a placeholder in the line', 'この画面で止まります。[image: スクリーンショット 2026-11-24 9.30.00.png] どうすればよいですか？', 'この画面で止まります。 どうすればよいですか？'],
    ['Outlook: a cid placeholder in the signature', 'ログインできません。どうすればよいですか？\n\n[cid:image001.png@01DB3F2A.5C1E7E80]\n山田', 'ログインできません。どうすればよいですか？\n\n山田'],
    ['a bracketed word of the customer stays', '設定画面の [image] ボタンは何ですか？', '設定画面の [image] ボタンは何ですか？'],
    ['an "image:" label without brackets stays', 'image: のフィールドには何を入れますか？', 'image: のフィールドには何を入れますか？'],
    // The text limit (16,000 characters) cuts a line of more before a placeholder it would split: it left "[image" as
    // the question (bug review 39b, finding 7, probe 059).
    ['one line of placeholders beyond the text limit', '[image: a] '.repeat(10_000), ''],
    ['Outlook: placeholders beyond the text limit', '[cid:image001.png@01DB3F2A.5C1E7E80] '.repeat(1_000), ''],
    ['words up to a placeholder the text limit splits', `${'あ'.repeat(15_995)}[image: a] ${'い'.repeat(100)}`, 'あ'.repeat(15_995)],
    ['a placeholder whose name holds a bracket, split by the text limit', `${'あ'.repeat(15_990)}[image: [1].png] ${'い'.repeat(100)}`, 'あ'.repeat(15_990)],
  ])('%s', (_what, text, expected) => {
    expect(extractQuestion(text)).toBe(expected);
  });

  it('336: a Gmail mail of only inline images is parked as text only in its attachments, not answered', async () => {
    expect(await mailOutcome(gmailWithImages('[image: image.png]\n[image: image.png]'))).toMatch(/^park the mail's text is only in its attachments image\.png/);
  });

  it('336b: a question beside the placeholder keeps only its words', async () => {
    const mail = await parseInboundMail(gmailWithImages('[image: image.png]\nこれは何ですか？'));
    expect(mail.question).toBe('これは何ですか？');
    expect(mail.unreadable).toBeUndefined();
  });
});

// 「お問い合わせ」 in UTF-8, as encoded-words labelled ISO-8859-1 (a PHP system's mail, sample 328).
const MISLABELLED_Q = '=?iso-8859-1?Q?Re:_=E3=81=8A=E5=95=8F=E3=81=84=E5=90=88=E3=82=8F=E3=81=9B?=';
const MISLABELLED_B = `=?ISO-8859-1?B?${Buffer.from('松田工具 注文係').toString('base64')}?=`;

describe('#8: encoded-words in UTF-8 labelled as a single-byte Latin charset', () => {
  it.each<[string, Record<string, string>, { subject?: string; name?: string; repaired: boolean }]>([
    ['328: the subject, Q-encoded, labelled iso-8859-1', { Subject: MISLABELLED_Q }, { subject: 'Re: お問い合わせ', repaired: true }],
    ['the subject, B-encoded, labelled windows-1252', { Subject: `=?windows-1252?B?${Buffer.from('請求書の再発行').toString('base64')}?=` }, { subject: '請求書の再発行', repaired: true }],
    ["the sender's display name", { From: `${MISLABELLED_B} <order@matsuda-tools.jp>` }, { name: '松田工具 注文係', repaired: true }],
    ['Latin-1 text stays Latin-1', { Subject: '=?iso-8859-1?Q?Caf=E9_cr=E8me_br=FBl=E9e?=' }, { subject: 'Café crème brûlée', repaired: false }],
    ['windows-1252 text stays windows-1252', { Subject: '=?windows-1252?Q?=93Gr=FC=DFe=94_=80?=' }, { subject: '“Grüße” €', repaired: false }],
    ['a Shift_JIS label is not second-guessed', { Subject: `=?shift_jis?B?${Buffer.from('é').toString('base64')}?=` }, { subject: 'ﾃｩ', repaired: false }],
    ['UTF-8 labelled UTF-8', { Subject: encodedWord('お問い合わせ') }, { subject: 'お問い合わせ', repaired: false }],
  ])('%s', async (_what, headers, expected) => {
    const mail = await parseInboundMail(rawMail('アカウントの削除方法を教えてください。', headers));
    if (expected.subject !== undefined) expect(mail.subject).toBe(expected.subject);
    if (expected.name !== undefined) expect(mail.from?.name).toBe(expected.name);
    const noted = (mail.charsetProblems ?? []).some((problem) => /encoded-word .*read as utf-8/i.test(problem));
    expect(noted).toBe(expected.repaired);
  });
});
