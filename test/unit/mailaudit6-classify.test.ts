/**
 * The sixth mail audit's mismatches that the reply decision and the parks before the agent own, read through the real
 * parser ({@link mailOutcome}):
 * - #1 (442, 443, 466): the customer answers inline inside our unprefixed quoted reply, the parser keeps only the note
 *   above it (「インラインにて失礼いたします。 山田」), and the agent answered a blank;
 * - #3 (430): a web form's mail with no Reply-To was answered to the form service, the customer only in its text;
 * - #5 (434): a holiday auto-reply whose 「※本メールは自動返信です。」 is its last line was answered;
 * - #5 (437): an e-mail address change notice in reply to us was answered;
 * - #6 (459, 433): acknowledgements (「問題なく動作しております」, 「メール拝受いたしました」, 「内容確認のうえ、改めて
 *   ご連絡いたします」, a company name before the sender's) were answered.
 * Each rule's rows include the customer's mail it must leave as it was.
 */
import { describe, expect, it } from 'vitest';
import { encodedWord } from '../support/inbound-mail.js';
import { mailOutcome, OUR_REPLY_ID } from '../support/mail-outcome.js';

/** A UTF-8 mail to our support address: plain text, or HTML when `html`; a reply to ours when `reply`. */
function rawMail(opts: { body: string; from?: string; replyTo?: string; subject?: string; reply?: boolean; html?: boolean }): Buffer {
  return Buffer.from(
    [
      `From: ${opts.from ?? `${encodedWord('山田 太郎')} <taro.yamada@yamada-kogyo.co.jp>`}`,
      'To: support@helpdesk.example.jp',
      ...(opts.replyTo ? [`Reply-To: ${opts.replyTo}`] : []),
      `Subject: ${encodedWord(opts.subject ?? (opts.reply ? 'Re: CSV出力について' : 'CSV出力について'))}`,
      'Message-ID: <audit6@yamada-kogyo.co.jp>',
      'Date: Wed, 25 Nov 2026 09:30:00 +0900',
      ...(opts.reply ? [`In-Reply-To: ${OUR_REPLY_ID}`, `References: ${OUR_REPLY_ID}`] : []),
      'MIME-Version: 1.0',
      `Content-Type: text/${opts.html ? 'html' : 'plain'}; charset=utf-8`,
      'Content-Transfer-Encoding: base64',
      '',
      ...(Buffer.from(opts.body.replace(/\n/g, '\r\n')).toString('base64').match(/.{1,76}/g) ?? []),
      '',
    ].join('\r\n'),
  );
}

// Our reply as Outlook quotes it below a customer's note: a header block, then our text without `>` marks.
const OUTLOOK_JA_BLOCK = '差出人: XYZサポート <support@helpdesk.example.jp>\n送信日時: 2026年11月24日 15:02\n宛先: 山田 太郎 <taro.yamada@yamada-kogyo.co.jp>\n件名: Re: CSV出力について\n\n山田様\n\nお問い合わせいただきありがとうございます。\n\nCSVの文字コードは「設定 > エクスポート」で変更できます。';
const OUTLOOK_EN_BLOCK = 'From: XYZ Support <support@helpdesk.example.jp>\nSent: Tuesday, November 24, 2026 3:02 PM\nTo: John Smith <j.smith@fabrikam.example.com>\nSubject: Re: CSV export\n\nDear John,\n\nYou can export the CSV from Settings > Export.';
// Sample 442: Outlook HTML, 【山田】 comments in red inside our quoted reply.
const SAMPLE_442_HTML =
  "<html><body lang=JA><div class=WordSection1><p class=MsoNormal>XYZサポート様</p><p class=MsoNormal>インラインにて失礼いたします。</p><p class=MsoNormal>山田</p><p class=MsoNormal>&nbsp;</p><div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0mm 0mm 0mm'><div id=\"divRplyFwdMsg\"><p class=MsoNormal><b>差出人:</b> XYZサポート &lt;support@helpdesk.example.jp&gt;<br><b>送信日時:</b> 2026年11月24日 15:02<br><b>宛先:</b> 山田 太郎<br><b>件名:</b> Re: CSV出力について</p></div></div><p class=MsoNormal>山田様</p><p class=MsoNormal>CSVの文字コードは「設定 &gt; エクスポート」で変更できます。</p><p class=MsoNormal><span style='color:red'>【山田】承知しました。</span></p><p class=MsoNormal>なお、区切り文字はカンマ固定となっております。</p><p class=MsoNormal><span style='color:red'>【山田】区切り文字をタブにする予定はありますでしょうか？</span></p><p class=MsoNormal>何卒よろしくお願いいたします。</p></div></body></html>";
const INLINE_PARK = /^park the customer answers inline in the quoted text/;
const JOHN = 'John Smith <j.smith@fabrikam.example.com>';

describe('#1: inline answers inside an unprefixed quote of ours are parked, not answered blank', () => {
  it.each<[string, Buffer, RegExp]>([
    ['442: Outlook HTML, 【山田】 markers', rawMail({ body: SAMPLE_442_HTML, html: true, reply: true }), INLINE_PARK],
    [
      '443: 下記、インラインにて, → lines in our text',
      rawMail({ body: `XYZサポート様\n\n下記、インラインにてご回答・ご質問させていただきます。\n\n山田\n\n${OUTLOOK_JA_BLOCK}\n→承知しました。\n\nなお、区切り文字はカンマ固定となっております。\n→セミコロン区切りには対応予定がありますか？`, reply: true }),
      INLINE_PARK,
    ],
    [
      '以下、【山田】にてコメントします',
      rawMail({ body: `XYZサポート様\n\n以下、【山田】にてコメントします。\n\n山田\n\n${OUTLOOK_JA_BLOCK}\n【山田】タブ区切りにできますか？`, reply: true }),
      INLINE_PARK,
    ],
    ['赤字にて回答いたします', rawMail({ body: `XYZサポート様\n\n赤字にて回答いたします。\n\n山田\n\n${OUTLOOK_JA_BLOCK}\n→Windows 11です。`, reply: true }), INLINE_PARK],
    ['466: "see my comments inline marked [JS]"', rawMail({ from: JOHN, body: `Hi, see my comments inline marked [JS].\n\nJohn\n\n${OUTLOOK_EN_BLOCK}\n[JS] Can semicolons be supported later?`, reply: true }), INLINE_PARK],
    ['"see my answers inline"', rawMail({ from: JOHN, body: `Hi,\n\nsee my answers inline.\n\nJohn\n\n${OUTLOOK_EN_BLOCK}\n>> Windows 11, version 23H2.`, reply: true }), INLINE_PARK],
    ['"answers below in red"', rawMail({ from: JOHN, body: `Hi team,\nAnswers below in red.\nJohn\n\n${OUTLOOK_EN_BLOCK}\nWe use version 4.2.`, reply: true }), INLINE_PARK],
    // The parser keeps inline answers between `>` lines: nothing was cut, so the agent reads them.
    [
      '408: Gmail, インラインで失礼します above `>` quotes with answers between them',
      rawMail({ body: '山田です。インラインで失礼します。\n\n2026年11月24日(火) 15:02 XYZサポート <support@helpdesk.example.jp>:\n> CSVの文字コードは「設定 > エクスポート」で変更できます。\n\n承知しました。\n\n> なお、区切り文字はカンマ固定となっております。\n\nセミコロンにしたい場合はどうすればよいでしょうか？\n\n> 何卒よろしくお願いいたします。\n', reply: true }),
      /^answer$/,
    ],
    // "See below" about a log pasted in the note, or a thank-you, announces no inline answers.
    [
      'a log "below" in the note, above our quoted reply',
      rawMail({ from: JOHN, body: `Hi,\n\nThe export still fails, see the log below.\n\nERROR 2026-11-25 09:12 export failed: delimiter\n\nJohn\n\n${OUTLOOK_EN_BLOCK}`, reply: true }),
      /^answer$/,
    ],
    // Bug review 40c: 下記/以下/below announce answers in the quote when the note holds nothing else but greetings and
    // the name (bug review 40b had these answered on the blank note).
    [
      '下記にて回答いたします, the quote unmarked, the note only the addressee and the name',
      rawMail({ body: `XYZサポート様\n\nご質問の件、下記にて回答いたします。\n\n山田\n\n${OUTLOOK_JA_BLOCK}\n→Windows 11です。`, reply: true }),
      INLINE_PARK,
    ],
    ['i01: 下記の通り回答いたします, only a greeting and the name', rawMail({ body: `お世話になっております。\n下記の通り回答いたします。\n\n山田\n\n${OUTLOOK_JA_BLOCK}\n→Windows 11です。あわせて、タブ区切りは可能でしょうか？`, reply: true }), INLINE_PARK],
    ['i02: 以下に回答いたします, only a greeting and the name', rawMail({ body: `お世話になっております。\n以下に回答いたします。\n\n山田\n\n${OUTLOOK_JA_BLOCK}\n→Windows 11です。`, reply: true }), INLINE_PARK],
    ['i03: 下記に回答を記入しました', rawMail({ body: `お世話になっております。\n下記に回答を記入しました。\n\n山田\n\n${OUTLOOK_JA_BLOCK}\n→Windows 11です。`, reply: true }), INLINE_PARK],
    ['i04: "My answers are below." above `>>` answers in the quote', rawMail({ from: JOHN, body: `Hi,\n\nMy answers are below.\n\nJohn\n\n${OUTLOOK_EN_BLOCK}\n>> Windows 11. Can we pay yearly?`, reply: true }), INLINE_PARK],
    // Bug review 40b: the same words above answers in the customer's own words, which the agent reads.
    [
      '下記の通り回答いたします, the answers and a question in the note',
      rawMail({ body: `お世話になっております。\nご質問について、下記の通り回答いたします。\n1. 契約番号はABC-123です。\n2. 利用人数は5名です。\n\nその上で、CSV出力の方法を教えてください。\n\n山田\n\n${OUTLOOK_JA_BLOCK}`, reply: true }),
      /^answer$/,
    ],
    [
      '以下に回答いたします, the answers in the note',
      rawMail({ body: `お世話になっております。\n以下に回答いたします。\n・契約番号：ABC-123\n・人数：5名\n\n山田\n\n${OUTLOOK_JA_BLOCK}`, reply: true }),
      /^answer$/,
    ],
    ['"My answers are below:" above the answers', rawMail({ from: JOHN, body: `Hi,\n\nMy answers are below:\n1) Version 4.2\n2) Windows 11\n\nAlso, how do I export the CSV?\n\nJohn\n\n${OUTLOOK_EN_BLOCK}`, reply: true }), /^answer$/],
    [
      '"see my notes below …; can you correct line 3?"',
      rawMail({ from: JOHN, body: `Hi team,\n\nPlease see my notes below on the invoice; can you correct line 3?\n\nLine 3 should be 5 seats, not 6.\n\nJohn\n\n${OUTLOOK_EN_BLOCK}`, reply: true }),
      /^answer$/,
    ],
    ['a thank-you above our quoted reply', rawMail({ body: `XYZサポート様\n\nご回答ありがとうございました。\n\n山田\n\n${OUTLOOK_JA_BLOCK}`, reply: true }), /^ignore acknowledgement/],
    [
      'inline answers announced in a new mail with nothing quoted',
      rawMail({ body: 'XYZサポート様\n\nご質問に下記にて回答いたします。\n1. Windows 11です。\n2. バージョンは4.2です。\nタブ区切りにできますか？\n\n山田' }),
      /^answer$/,
    ],
  ])('%s', async (_what, raw, outcome) => {
    expect(await mailOutcome(raw)).toMatch(outcome);
  });
});

const FORM_BODY = 'お問い合わせがありました。\n\nお名前：岩田 由美\nメールアドレス：iwata.y@gmail.com\nお問い合わせ内容：\n無料トライアルの期間を延長することはできますか？\n\n--\nフォームメーラー https://formmailer-cloud.jp/';
const SHIMIZU_TARO = `${encodedWord('清水 太郎')} <shimizu@shimizu-unyu.co.jp>`;
const FORM_FROM = `${encodedWord('フォームメーラー')} <contact@formmailer-cloud.jp>`;

describe('#3: a web form\'s mail with no Reply-To, the customer only in its text, is parked', () => {
  it.each<[string, Buffer, RegExp]>([
    ['430: メールアドレス and お問い合わせ内容 fields, From the form service', rawMail({ from: FORM_FROM, subject: '[XYZ] お問い合わせがありました', body: FORM_BODY }), /^park a web form's mail from contact@formmailer-cloud\.jp with no Reply-To carries iwata\.y@gmail\.com/],
    [
      'an English form: Email and Message fields',
      rawMail({ from: 'Site Forms <forms@sitebuilder.example.net>', subject: 'New submission', body: 'New submission\n\nName: Lisa Wong\nEmail: lisa.wong@acme-retail.com\nMessage: Do you integrate with Shopify?' }),
      /^park a web form's mail from forms@sitebuilder\.example\.net with no Reply-To/,
    ],
    // With a Reply-To (429, legit4 056–060) the reply goes to the customer: this rule says nothing.
    ['429-like: the customer in Reply-To', rawMail({ from: FORM_FROM, replyTo: 'iwata.y@gmail.com', subject: '[XYZ] お問い合わせがありました', body: FORM_BODY }), /^(?:answer|held )/],
    // The address of the sender's own organisation is no other party's.
    ['the address field on the sender\'s own domain', rawMail({ from: FORM_FROM, subject: 'お問い合わせ', body: FORM_BODY.replace('iwata.y@gmail.com', 'staff@formmailer-cloud.jp') }), /^answer$/],
    // A customer's own mail with their address at the end of a signature, below their question.
    [
      'a customer\'s question, then a signature with a private address',
      rawMail({ subject: 'CSVについて', body: '質問：CSVの区切り文字をタブにできますか？\n\n山田工業 山田\nメール：taro.home@gmail.com' }),
      /^answer$/,
    ],
    // Bug review 40b: a customer's own structured mail from their mailbox, their other address in a field.
    [
      'a person\'s mailbox, a private address in the field',
      rawMail({ from: SHIMIZU_TARO, subject: '資料請求', body: '会社名：清水運輸\n氏名：清水太郎\nメールアドレス：taro.shimizu@gmail.com\nお問い合わせ内容：料金プランの資料を送ってください。' }),
      /^answer$/,
    ],
    [
      'a person\'s mailbox, the company\'s second domain in the field',
      rawMail({ from: SHIMIZU_TARO, subject: '料金について', body: '清水運輸の清水です。\nメール：shimizu@shimizu-unyu.jp\n質問：プランの変更は月途中でもできますか' }),
      /^answer$/,
    ],
    [
      'a free-mail sender, the company address in the field',
      rawMail({ from: 'taro <taro@gmail.com>', subject: '問い合わせ', body: '以下、会社の連絡先です。\nメールアドレス：shimizu@shimizu-unyu.co.jp\n\nご相談内容：導入を検討しています。見積をお願いできますか。' }),
      /^answer$/,
    ],
    [
      'a role mailbox, but only the address and the message',
      rawMail({ from: 'Info <info@shimizu-unyu.co.jp>', subject: '料金について', body: 'メール：shimizu@shimizu-unyu.jp\n質問：プランの変更は月途中でもできますか' }),
      /^answer$/,
    ],
    [
      'a role mailbox whose display name is the sender in the name field',
      rawMail({ from: `${encodedWord('清水 太郎')} <contact@shimizu-unyu.co.jp>`, subject: '資料請求', body: '会社名：清水運輸\n氏名：清水 太郎\nメールアドレス：taro.shimizu@gmail.com\nお問い合わせ内容：料金プランの資料を送ってください。' }),
      /^answer$/,
    ],
    // Bug review 40c: a form's own mailbox (wordpress@, formmailer@, webform@, a form service's domain) is never the
    // customer's, whatever name the form writes in the From, and its address and message fields are enough.
    ['w01: Contact Form 7, the customer\'s name over wordpress@', rawMail({ from: `${encodedWord('岩田 由美')} <wordpress@xyz-site.example.jp>`, subject: '[XYZ] お問い合わせ', body: FORM_BODY }), /^park a web form's mail from wordpress@xyz-site\.example\.jp with no Reply-To carries iwata\.y@gmail\.com/],
    ['w06: "Yumi Iwata <wordpress@…>", English fields', rawMail({ from: 'Yumi Iwata <wordpress@xyz-site.example.com>', subject: 'New contact form submission', body: 'New submission\n\nName: Yumi Iwata\nEmail: yumi@gmail.com\nPhone: 555-0100\nMessage:\nCan I extend the free trial?' }), /^park a web form's mail from wordpress@/],
    ['w07: "WordPress <wordpress@…>"', rawMail({ from: 'WordPress <wordpress@xyz-site.example.jp>', subject: '[XYZ] お問い合わせ', body: FORM_BODY }), /^park a web form's mail from wordpress@/],
    ['w02: formmailer@', rawMail({ from: `${encodedWord('フォーム')} <formmailer@formmailer-cloud.jp>`, subject: '[XYZ] お問い合わせ', body: FORM_BODY }), /^park a web form's mail from formmailer@/],
    ['w03: webform@', rawMail({ from: `${encodedWord('フォーム')} <webform@xyz-site.example.jp>`, subject: '[XYZ] お問い合わせ', body: FORM_BODY }), /^park a web form's mail from webform@/],
    ['w05: a form service\'s mailbox, only the address and the message', rawMail({ from: FORM_FROM, subject: '[XYZ] お問い合わせ', body: 'お問い合わせがありました。\n\nメールアドレス：iwata.y@gmail.com\nお問い合わせ内容：\n無料トライアルの期間を延長することはできますか？' }), /^park a web form's mail from contact@formmailer-cloud\.jp/],
    // A reply to ours is the customer's mail, whatever fields they write.
    ['a reply to ours with form-like fields', rawMail({ from: FORM_FROM, subject: 'Re: CSV出力について', body: FORM_BODY, reply: true }), /^answer$/],
  ])('%s', async (_what, raw, outcome) => {
    expect(await mailOutcome(raw)).toMatch(outcome);
  });
});

const HOLIDAY_NOTICE =
  '誠に勝手ながら、弊社は12月27日（土）から1月4日（日）まで年末年始休業とさせていただきます。\n期間中にいただいたメールへのご返信は、1月5日（月）以降順次対応させていただきます。\nご不便をおかけしますが、何卒ご了承くださいますようお願い申し上げます。\n\n※本メールは自動返信です。\n\n丸井製菓株式会社';
const MARUI = `${encodedWord('丸井製菓株式会社')} <info@marui-seika.co.jp>`;

describe('#5: an auto-reply that says so on its last lines, in reply to ours, is ignored', () => {
  it.each<[string, Buffer, RegExp]>([
    ['434: a holiday notice, 「※本メールは自動返信です。」 above the company name', rawMail({ from: MARUI, body: HOLIDAY_NOTICE, reply: true }), /^ignore auto-reply/],
    ['the notice as the very last line', rawMail({ from: MARUI, body: HOLIDAY_NOTICE.replace('\n\n丸井製菓株式会社', ''), reply: true }), /^ignore auto-reply/],
    // A customer who asks, or who pasted a notice they got, writes words of their own around it.
    ['a question above the line', rawMail({ from: MARUI, body: HOLIDAY_NOTICE.replace('ご不便をおかけしますが', '休業中のサポート窓口はどうすればよいでしょうか。ご不便をおかけしますが'), reply: true }), /^answer$/],
    [
      'a customer who pasted a notice they got',
      rawMail({ body: '下記のメールが届きました。\n\nご注文を受け付けました。発送までお待ちください。\n※本メールは自動返信です。\n\n山田', reply: true }),
      /^answer$/,
    ],
    ['a customer\'s words above the line, no notice\'s', rawMail({ body: 'ログインできません。\n昨日から続いています。\n本メールは自動でお送りしております。', reply: true }), /^answer$/],
    ['a trouble report above the line', rawMail({ body: 'CSVを出力するとエラーになります。\n※本メールは自動送信です。', reply: true }), /^answer$/],
    // A new mail: a web form's notification says the same below a customer's question.
    ['a new mail', rawMail({ from: MARUI, body: HOLIDAY_NOTICE }), /^answer$/],
  ])('%s', async (_what, raw, outcome) => {
    expect(await mailOutcome(raw)).toMatch(outcome);
  });
});

const ADDRESS_CHANGE =
  '【メールアドレス変更のお知らせ】\n\n平素より大変お世話になっております。\n弊社はドメイン変更に伴い、2026年12月1日よりメールアドレスを変更いたしました。\n旧アドレス：ueda@old.ueda-seiki.co.jp\n新アドレス：ueda@ueda-seiki.co.jp\nお手数ですが、アドレス帳の登録変更をお願いいたします。\n\n上田精機株式会社';
const ADDRESS_PARK = /^park an e-mail address change notice/;

describe('#5: an e-mail address change notice is parked for a person to update the customer', () => {
  it.each<[string, Buffer, RegExp]>([
    ['437: 旧アドレス/新アドレス under 【メールアドレス変更のお知らせ】', rawMail({ from: `${encodedWord('上田精機')} <ueda@old.ueda-seiki.co.jp>`, body: ADDRESS_CHANGE, reply: true }), ADDRESS_PARK],
    ['the heading alone', rawMail({ body: 'メールアドレス変更のご案内\n\n4月1日より下記のアドレスに変更となりました。\ntaro@yamada-kogyo.jp\n\n山田', reply: true }), ADDRESS_PARK],
    ['Old/New address in English', rawMail({ from: JOHN, body: 'Hello,\n\nPlease note that my e-mail address has changed.\nOld address: j.smith@fabrikam.example.com\nNew address: john.smith@fabrikam.example.org\n\nJohn', reply: true }), ADDRESS_PARK],
    // A question about changing an address in the product is answered.
    ['how to change the login address', rawMail({ body: 'ログイン用のメールアドレスを変更する方法を教えてください。' }), /^answer$/],
    // Bug review 40b: a customer who asks about changing their address is answered, whatever the subject.
    ['subject メールアドレス変更のお願い, a how-to question', rawMail({ subject: 'メールアドレス変更のお願い', body: '登録しているメールアドレスを変更したいのですが、手順を教えてください。' }), /^answer$/],
    ['subject "Email address change", a how-to question', rawMail({ from: JOHN, subject: 'Email address change', body: 'Hi, how do I change the email address on my account? The settings page does not let me edit it.' }), /^answer$/],
    ['旧/新アドレス lines and どこから変更できますか？', rawMail({ subject: 'ログインIDについて', body: 'ログインIDのメールアドレスを変更したいです。\n旧アドレス：old@yamada-kogyo.co.jp\n新アドレス：new@yamada-kogyo.co.jp\nどこから変更できますか？' }), /^answer$/],
    ['Re: メールアドレス変更のご案内, a question about notifications', rawMail({ subject: 'Re: メールアドレス変更のご案内', body: '変更後に通知メールが届かなくなりました。どうすればよいですか？', reply: true }), /^answer$/],
    ['Re: メールアドレス変更のご案内, a report without a question mark', rawMail({ subject: 'Re: メールアドレス変更のご案内', body: '変更後に通知メールが届かなくなりました。確認してください。', reply: true }), /^answer$/],
    ['a heading 【メールアドレス変更のお願い】 above a request', rawMail({ body: '【メールアドレス変更のお願い】\n登録アドレスをtaro@yamada-kogyo.jpに変更してください。', reply: true }), /^answer$/],
    // Bug review 40c: ご教示願います asks; 送付願います under the notice is a request for the person who updates it.
    ['a04: the notice, then ご教示願います', rawMail({ subject: 'メールアドレス変更のお知らせ', body: 'メールアドレス変更のお知らせ\n\n旧アドレス：taro@old.yamada-kogyo.co.jp\n新アドレス：taro@yamada-kogyo.co.jp\n\nログインIDの変更方法もご教示願います。' }), /^answer$/],
    ['a01: the notice, then 新アドレスへ送付願います', rawMail({ subject: 'メールアドレス変更のお知らせ', body: 'メールアドレス変更のお知らせ\n\n旧アドレス：taro@old.yamada-kogyo.co.jp\n新アドレス：taro@yamada-kogyo.co.jp\n\n今後の請求書は新アドレスへ送付願います。' }), ADDRESS_PARK],
    ['a notification address that does not change', rawMail({ body: '通知メールの送信元アドレスを変更できますか？\n現在のアドレス：notice@yamada-kogyo.co.jp' }), /^answer$/],
  ])('%s', async (_what, raw, outcome) => {
    expect(await mailOutcome(raw)).toMatch(outcome);
  });
});

describe('#6: more acknowledgements are ignored, a thanks beside a request is answered', () => {
  const SHIMIZU = `${encodedWord('清水 正')} <shimizu@shimizu-unyu.co.jp>`;
  it.each<[string, string, string | undefined, RegExp]>([
    ['459: 確認いたしました。問題なく動作しております。', '確認いたしました。問題なく動作しております。\nありがとうございました。', undefined, /^ignore acknowledgement/],
    ['正常に動作しました', '正常に動作しました。ありがとうございます。', undefined, /^ignore acknowledgement/],
    ['433: メール拝受いたしました, 内容確認のうえ改めてご連絡, company and name', 'XYZサポート 御中\n\nメール拝受いたしました。\n内容確認のうえ、改めてご連絡いたします。\n\n清水運輸 清水', SHIMIZU, /^ignore acknowledgement/],
    ['資料を受領しました', '資料を受領しました。\n社内で確認のうえ、改めてご連絡いたします。\n清水', SHIMIZU, /^ignore acknowledgement/],
    // A request or a fault beside the thanks is something to answer.
    ['動作 beside a fault', '問題なく動作しております。ただ、CSVの出力だけできません。', undefined, /^answer$/],
    ['動作していません', '確認しましたが、まだ正常に動作していません。', undefined, /^answer$/],
    ['拝受 beside a request', 'メール拝受いたしました。\n追加で、請求書の宛名変更もお願いします。', undefined, /^answer$/],
    ['拝受 beside a question', 'メール拝受いたしました。CSVは何件まで出力できますか？', undefined, /^answer$/],
    ['a fault on the company line', 'メール拝受いたしました。\n\nまだエラーが出ます 清水', SHIMIZU, /^answer$/],
    // Bug review 40b: only a word with a company's mark or a business's ending is a company's name; a request or a
    // status before the name is something to answer.
    ['株式会社清水運輸 清水', 'ありがとうございます。\n\n株式会社清水運輸 清水', SHIMIZU, /^ignore acknowledgement/],
    ['(株)清水運輸 清水', 'ありがとうございます。\n\n(株)清水運輸 清水', SHIMIZU, /^ignore acknowledgement/],
    ['㈱シミズ 清水', '承知しました。\n\n㈱シミズ 清水', SHIMIZU, /^ignore acknowledgement/],
    ['シミズ運輸 清水', '承知しました\n\nシミズ運輸 清水', SHIMIZU, /^ignore acknowledgement/],
    ['見積書再送希望 清水', 'ありがとうございます。\n見積書再送希望 清水', SHIMIZU, /^answer$/],
    ['明日午前中着希望 清水', '承知しました。\n明日午前中着希望 清水', SHIMIZU, /^answer$/],
    ['請求書郵送希望 清水運輸 清水', '確認しました。\n請求書郵送希望 清水運輸 清水', SHIMIZU, /^answer$/],
    ['至急確認依頼 清水', 'メール拝受いたしました。\n\n至急確認依頼 清水', SHIMIZU, /^answer$/],
    ['再発行手続中 清水', 'ご回答受領しました。\n再発行手続中 清水', SHIMIZU, /^answer$/],
    ['請求書再発行 清水', '了解しました。\n\n請求書再発行 清水', SHIMIZU, /^answer$/],
    ['至急対応 清水', 'ありがとうございます。\n\n至急対応 清水', SHIMIZU, /^answer$/],
    ['a request word inside a word with a business ending', '確認しました。\n\n再送依頼事務所 清水', SHIMIZU, /^answer$/],
    // Bug review 40c: a mark names only its own word and the word after a bare mark; a task's word is no company's.
    ['c01: 株式会社清水運輸 返金 清水', 'ありがとうございます。\n株式会社清水運輸 返金 清水', SHIMIZU, /^answer$/],
    ['c02: ㈱清水運輸 解約 清水', '承知しました。\n㈱清水運輸 解約 清水', SHIMIZU, /^answer$/],
    ['c08: 株式会社清水運輸 至急 清水', '承知しました。\n株式会社清水運輸 至急 清水', SHIMIZU, /^answer$/],
    ['株式会社 シミズ 清水: the word after a bare mark', 'ありがとうございます。\n株式会社 シミズ 清水', SHIMIZU, /^ignore acknowledgement/],
    ['c03: 領収書印刷 清水', '確認しました。\n領収書印刷 清水', SHIMIZU, /^answer$/],
    ['c07: キャンセル受付システム 清水', '承知しました。\nキャンセル受付システム 清水', SHIMIZU, /^answer$/],
    ['返品受付センター 清水', '承知しました。\n返品受付センター 清水', SHIMIZU, /^answer$/],
  ])('%s', async (_what, body, from, outcome) => {
    expect(await mailOutcome(rawMail({ body, reply: true, ...(from ? { from } : {}) }))).toMatch(outcome);
  });
});
