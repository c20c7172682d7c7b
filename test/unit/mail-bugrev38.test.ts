/**
 * Bug review 38 (tmp/bugrev38/REPORT.md), the mail reader's findings:
 * - #2: a terse mail whose only line is a contact label and a sentence (「メール：届きません」, "Email: not arriving
 *   since Monday") had that line read as a web form's identity field, so its words were replaced by the subject or the
 *   mail was parked as asking nothing; an empty form of name, address and number fields still asks nothing;
 * - #3: a ticket system's reply marker inside a mail the customer forwards cut the forward with everything below it;
 * - #5: an error message framed by separator lines below 「以下のメッセージが表示されます」 was read as a pasted mail.
 */
import { describe, expect, it } from 'vitest';
import { asksOnlyInSubject, hasQuestion } from '../../src/mail/classify.js';
import { ticketInputForMail } from '../../src/mail/ingest.js';
import { extractQuestion, FORWARDED_DELIMITER, parseInboundMail } from '../../src/mail/parse.js';
import { rawCustomerMail } from '../support/inbound-mail.js';


/** A new plain-text mail from a customer under `subject`. */
const mail = (subject: string, body: string): Buffer => rawCustomerMail({ subject, body, messageId: '<bugrev38@customer.example>' });

/** The question of the ticket the poller makes of `raw`. */
async function ticketQuestion(raw: Buffer): Promise<string> {
  return ticketInputForMail(await parseInboundMail(raw), raw, { rawRef: 'raw:test' }).question;
}

describe('#2: a contact label before a sentence is the customer\'s words, not a web form\'s field', () => {
  // [what, subject, body, words the ticket's question must hold]
  it.each<[string, string, string, string]>([
    ['メール：届きません under 至急 (terse-mail-label)', '至急', 'メール：届きません', 'メール：届きません'],
    ['Email: not arriving since Monday under help (terse-en-label)', 'help', 'Email: not arriving since Monday', 'not arriving since Monday'],
    ['TEL：通話中のまま切れない under 不具合', '不具合', 'TEL：通話中のまま切れない', '通話中のまま切れない'],
    ['FAX：送信できませんでした', '至急', 'FAX：送信できませんでした', '送信できませんでした'],
    ['メールアドレス：変更したい', 'お願い', 'メールアドレス：変更したい', '変更したい'],
    ['a problem named by a noun after a mail label (メール：不達)', '至急', 'メール：不達', 'メール：不達'],
    ['Phone: keeps dropping calls', 'urgent', 'Phone: keeps dropping calls', 'keeps dropping calls'],
    ["E-mail: doesn't sync", 'help', "E-mail: doesn't sync", "doesn't sync"],
    ['Email: bouncing', 'help', 'Email: bouncing', 'Email: bouncing'],
  ])('%s: the ticket asks it', async (_what, subject, body, words) => {
    expect(await ticketQuestion(mail(subject, body))).toContain(words);
  });

  it.each<[string, string, boolean]>([
    ['電話：つながりません (terse-phone-label)', '電話：つながりません', true],
    ['Email: not arriving since Monday', 'Email: not arriving since Monday', true],
    ['TEL：通話中のまま切れない', 'TEL：通話中のまま切れない', true],
    ['Phone: not working', 'Phone: not working', true],
    ['a name field, then a phone field with a sentence', 'お名前：山田 太郎\n電話：昨日からつながりません', true],
    ['Name: cannot log in', 'Name: cannot log in', true],
    // Guards: what the identity-field rule was added for (an empty Contact Form 7 mail, sample 111c).
    ['guard: name, mail and phone fields only', 'お名前: 山田太郎\nメール: taro@yamada.example\n電話: 03-1234-5678', false],
    ['guard: a full-width phone number', 'お名前：山田 太郎\nTEL：０３－１２３４－５６７８', false],
    ['guard: a name written partly in hiragana', 'お名前：佐藤ゆかり\nメールアドレス：yukari@customer.example', false],
    ['guard: a reading in hiragana', 'ふりがな：やまだ たろう\nメール：taro@customer.example', false],
    ['guard: an address in angle brackets', 'Name: Taro Yamada\nEmail: <taro@customer.example>\nPhone: +81 3 1234 5678', false],
    ['guard: a name that is an English word', 'Name: Will Smith\nEmail: will@customer.example', false],
    ['guard: a field the visitor left as なし', 'お名前：山田 太郎\n電話番号：なし\nメールアドレス：taro@customer.example', false],
    ['guard: a field left as N/A', 'Name: Taro Yamada\nPhone: N/A', false],
    ['guard: Contact Form 7 sender line', '差出人: 松本 大輔 <d.matsumoto@matsumoto-tax.jp>\n題名: \n\nメッセージ本文:\n', false],
  ])('hasQuestion: %s → %s', (_what, question, expected) => {
    expect(hasQuestion({ question })).toBe(expected);
  });

  it.each<[string, string, string, boolean]>([
    ['TEL：通話中のまま切れない under 不具合', 'TEL：通話中のまま切れない', '不具合', false],
    ['メール：届きません under 至急', 'メール：届きません', '至急', false],
    ['Email: not arriving since Monday under help', 'Email: not arriving since Monday', 'help', false],
    // Guards: contact fields under the customer's own subject are asked about by that subject.
    ['guard: a phone number under 至急電話ください', '電話：03-1234-5678', '至急電話ください', true],
    ['guard: a mail address under a question', 'Email: taro@customer.example', 'How do I export invoices?', true],
  ])('asksOnlyInSubject: %s → %s', (_what, question, subject, expected) => {
    expect(asksOnlyInSubject(question, subject)).toBe(expected);
  });

  it('guard: a phone number under 至急電話ください is asked about by the subject', async () => {
    expect(await ticketQuestion(mail('至急電話ください', '電話：03-1234-5678'))).toBe('至急電話ください');
  });
});

describe('#3: a reply marker inside a forwarded mail leaves the forward whole', () => {
  // [what, subject, text, words of the forward the question must hold]
  it.each<[string, string, string, string]>([
    [
      'a Zendesk mail forwarded under a note (zendesk-marker-in-forward)',
      'Fwd: 【ABC社】お問い合わせ #1234',
      '他社ツールとの連携について、下記の回答で問題ないか確認したいです。\nCSV連携の設定はどの画面で行いますか？\n\n---------- Forwarded message ---------\nFrom: ABC サポート <support@abc.zendesk.com>\nDate: 2026年11月24日(火) 10:00\nSubject: 【ABC社】お問い合わせ #1234\nTo: <yamada@customer-co.jp>\n\n##- ここより上に返信を入力してください -##\n\nABCサポートです。\nXYZ社のCSV連携は文字コードをShift_JISにすれば取り込めます。\n',
      'XYZ社のCSV連携は文字コードをShift_JISにすれば取り込めます。',
    ],
    [
      'an English Zendesk mail forwarded under a note',
      'Fwd: [ABC] Request #1234',
      'Is this answer right for your product too?\n\n---------- Forwarded message ---------\nFrom: ABC Support <support@abc.zendesk.com>\nDate: Tue, Nov 24, 2026 at 10:00 AM\nSubject: [ABC] Request #1234\nTo: <taro@customer.example>\n\n##- Please type your reply above this line -##\n\nYou can import the CSV once it is saved as Shift_JIS.\n',
      'You can import the CSV once it is saved as Shift_JIS.',
    ],
    [
      'an Outlook forward (差出人: block) of a Zendesk mail',
      'FW: 【ABC社】お問い合わせ #1234',
      'この回答の内容で合っていますか？\n\n-----Original Message-----\n差出人: ABC サポート <support@abc.zendesk.com>\n送信日時: 2026年11月24日 10:00\n宛先: yamada@customer-co.jp\n件名: 【ABC社】お問い合わせ #1234\n\n##- ここより上に返信を入力してください -##\n\nCSVは文字コードをShift_JISにすれば取り込めます。\n',
      'CSVは文字コードをShift_JISにすれば取り込めます。',
    ],
  ])('%s', (_what, subject, text, forwarded) => {
    const question = extractQuestion(text, subject);
    expect(question).toContain(FORWARDED_DELIMITER);
    expect(question).toContain(forwarded);
  });

  // Guards: a marker above the history still cuts what the ticket system quoted below it.
  it.each<[string, string, string]>([
    [
      'words typed above the marker, the system\'s mail below',
      'Is there an update on this?\n\n##- Please type your reply above this line -##\n\nYour request (48213) has been updated.\nSupport Team\n\nThis email is a service from Sample Helpdesk. [7KQ1XY-Z8P2]',
      'Is there an update on this?',
    ],
    [
      'words above the marker, then a quoted history below it',
      '進捗を教えてください。\n\n##- ここより上に返信を入力してください -##\n\nお問い合わせ #48213 を受け付けました。\n\n2026年11月24日(火) 10:00 ABC サポート <support@abc.zendesk.com>:\n> お問い合わせありがとうございます。',
      '進捗を教えてください。',
    ],
    [
      'the marker on top, the words below',
      '##- ここより上に返信を入力してください -##\n\n新しい証明書の登録はどの画面から行えばよいでしょうか。',
      '新しい証明書の登録はどの画面から行えばよいでしょうか。',
    ],
  ])('guard: %s', (_what, text, question) => {
    expect(extractQuestion(text, 'Question')).toBe(question);
  });
});

describe('#5: a message on screen framed by separator lines is no pasted mail', () => {
  it.each<[string, string, string, string[]]>([
    [
      'an error message below 以下のメッセージが表示されます (pasted-error-message)',
      'エクスポートでエラー',
      'お世話になっております。\nCSVをエクスポートしようとすると以下のメッセージが表示されます。\n----------\nエラーが発生しました。時間をおいて再度お試しください。(E-5021)\n----------\n回避方法を教えてください。\n\n山田',
      ['以下のメッセージが表示されます。', '(E-5021)', '回避方法を教えてください。'],
    ],
    [
      'an error with a link below 下記のメッセージ',
      '画面が開きません',
      '管理画面を開くと下記のメッセージが出ます。\n-----\n接続がタイムアウトしました。https://app.example-saas.com/status をご確認ください。\n-----\nどうすればよいでしょうか。',
      ['下記のメッセージが出ます。', 'https://app.example-saas.com/status', 'どうすればよいでしょうか。'],
    ],
    [
      'the following message, in English',
      'Export error',
      'When I export I get the following message:\n-----\nAn error occurred. Please try again later. (E-5021)\n-----\nHow can I get around it?',
      ['the following message:', '(E-5021)', 'How can I get around it?'],
    ],
  ])('%s: read in order, no forward', (_what, subject, text, inOrder) => {
    const question = extractQuestion(text, subject);
    expect(question).not.toContain(FORWARDED_DELIMITER);
    const at = inOrder.map((words) => question.indexOf(words));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  // Guards: a message that is a mail (its header lines pasted) and a pasted mail are still read as forwards.
  it.each<[string, string, string, string]>([
    [
      '以下のメッセージが届きました with 件名 and 差出人 lines',
      '不審なメッセージ',
      '以下のメッセージが届きました。貴社からのものでしょうか？\n-----\n差出人: XYZ <info@xyz-secure-login.top>\n件名: 【重要】アカウント停止のお知らせ\nお客様のアカウントは利用制限されています。http://xyz-secure-login.top/verify\n-----\n',
      'http://xyz-secure-login.top/verify',
    ],
    [
      'the following message with From and Subject lines',
      'Is this from you?',
      'I received the following message. Is it from you?\n----\nFrom: XYZ Billing <billing@xyz-pay.top>\nSubject: Payment failed\nUpdate your card at http://xyz-pay.top/card within 24 hours.\n----\n',
      'http://xyz-pay.top/card',
    ],
    [
      '以下のメール without header lines (legit-4 074 shape)',
      '不審なメール',
      '以下のメールが届きました。貴社からのものでしょうか？\n-----\n【重要】アカウント確認のお願い\nお客様のアカウントが停止されました。24時間以内に下記URLよりログインして本人確認を完了してください。\nhttps://evil.example.net/login\n-----\n',
      'https://evil.example.net/login',
    ],
  ])('guard: %s → a forward', (_what, subject, text, link) => {
    const question = extractQuestion(text, subject);
    expect(question).toContain(FORWARDED_DELIMITER);
    expect(question.indexOf(link)).toBeGreaterThan(question.indexOf(FORWARDED_DELIMITER));
  });
});

// Read as the customer's words again (#5), a framed block with a link in it was cut with everything after it as a
// signature, the question below it too. A signature block never asks.
describe('#5: a question below a framed block with a link is no signature', () => {
  it.each<[string, string, string]>([
    ['a framed status URL, then a question', 'エラーになります。\n-----\nhttps://app.example-saas.com/status\n-----\nどうすればよいでしょうか。', 'どうすればよいでしょうか。'],
    ['in English', 'The export fails.\n-----\nhttps://app.example-saas.com/status\n-----\nHow can I fix this?', 'How can I fix this?'],
  ])('%s: the question stays', (_what, text, words) => {
    expect(extractQuestion(text, 'Question')).toContain(words);
  });

  it.each<[string, string, string]>([
    ['a framed signature', 'CSVの出力方法を教えてください。\n\n-----\n山田 太郎\n株式会社サンプル\nTEL: 03-1234-5678\nhttps://www.sample.example\n-----', 'CSVの出力方法を教えてください。'],
    ['a signature under one separator', 'How do I export?\n\n-----\nTaro Yamada\nSample Inc.\nTel +81 3 1234 5678', 'How do I export?'],
  ])('guard: %s is cut', (_what, text, question) => {
    expect(extractQuestion(text, 'Question')).toBe(question);
  });
});
