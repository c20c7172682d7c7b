/**
 * The third mail audit's mismatches (tmp/mailaudit3/REPORT.md): a customer's mail through a group on our own domain
 * that SUPPORT_GROUP_ADDRESSES does not list (122), thank-you replies in common wordings (105, 136, 137), sales,
 * recruiting, seminar and vendor mail (126, 127, 144, 125b), an empty Contact Form 7 mail whose sender line is filled
 * (111c), and a do-not-reply line of a form or CRM service sending for a person in Reply-To (109, 132). Each rule's
 * rows include what it must leave alone.
 */
import { describe, expect, it } from 'vitest';
import { asksOnlyInSubject, bulkMailDetail, decideReply, hasQuestion, ownMailboxesOf, parkBeforeAgentReason, replySignalsOf, type ParkConfig } from '../../src/mail/classify.js';
import { massMailingEvidence } from '../../src/mail/mass-mailing.js';
import type { InboundMail } from '../../src/mail/parse.js';
import { inboundMail } from '../support/inbound-mail.js';

const config: ParkConfig = {
  MAIL_FROM: 'XYZ Support <support@support.example>',
  SUPPORT_ADDRESSES: [],
  SUPPORT_GROUP_ADDRESSES: [],
  AUTHSERV_ID: [],
};
const mailboxes = ownMailboxesOf(config);
const person = (address: string, name = '') => ({ address, name });
const words = (question: string): Partial<InboundMail> => ({ question, text: question });
const reply: Partial<InboundMail> = { subject: 'Re: CSVの文字化け', inReplyTo: '<r1@support.example>', references: ['<r1@support.example>'] };

// Sample 122: a Google Group on our own domain, not configured, rewrote the customer's From to itself.
const GOOGLE_GROUP_HEADERS = {
  'list-id': ['<info.support.example>'],
  'mailing-list': ['list info@support.example; contact info+owners@support.example'],
  'list-post': ['<https://groups.google.com/a/support.example/group/info/post>, <mailto:info@support.example>'],
  precedence: ['list'],
};

describe('a list on our own domain is never ignored as list traffic (sample 122)', () => {
  it.each<[string, Partial<InboundMail>, 'answer' | 'list']>([
    [
      "a customer's mail through our own group that SUPPORT_GROUP_ADDRESSES does not list",
      { from: person('info@support.example', "'山田 太郎' via XYZお問い合わせ"), replyTo: person('taro.yamada@customer.example', '山田 太郎'), headers: GOOGLE_GROUP_HEADERS },
      'answer',
    ],
    ['a subdomain list of ours (lists.support.example)', { headers: { 'list-id': ['<news.lists.support.example>'] } }, 'answer'],
    ['a foreign list still is ignored', { headers: { 'list-id': ['<users.lists.other.example>'], 'list-post': ['<mailto:users@lists.other.example>'] } }, 'list'],
    ['a look-alike domain is foreign', { headers: { 'list-id': ['<info.evilsupport.example>'] } }, 'list'],
  ])('%s → %s', (_name, overrides, expected) => {
    const decision = decideReply(inboundMail(overrides), mailboxes);
    if (expected === 'answer') expect(decision).toEqual({ answer: true });
    else expect(decision).toMatchObject({ answer: false, reason: 'list' });
  });

  it.each<[string, Partial<InboundMail>, RegExp | undefined]>([
    [
      'names the group and the missing setting',
      { from: person('info@support.example'), replyTo: person('taro.yamada@customer.example'), headers: GOOGLE_GROUP_HEADERS },
      /^mail through a group on our own domain \(info@support\.example\) that SUPPORT_GROUP_ADDRESSES does not list: .*add it there/,
    ],
    ['a foreign list member who copies us is not this park', { headers: { 'list-id': ['<users.lists.other.example>'] } }, undefined],
  ])('parkBeforeAgentReason: %s', (_name, overrides, expected) => {
    const reason = parkBeforeAgentReason(inboundMail(overrides), config);
    if (expected) expect(reason).toMatch(expected);
    else expect(reason).toBeUndefined();
  });

  it('a configured group is not parked here (its own rules hold the draft)', () => {
    const configured = { ...config, SUPPORT_GROUP_ADDRESSES: ['info@support.example'] };
    const mail = inboundMail({ from: person('info@support.example'), replyTo: person('taro.yamada@customer.example'), headers: GOOGLE_GROUP_HEADERS });
    expect(decideReply(mail, ownMailboxesOf(configured))).toEqual({ answer: true });
    expect(parkBeforeAgentReason(mail, configured)).toBeUndefined();
  });
});

describe('thank-you replies in common wordings (samples 105, 136, 137)', () => {
  it.each<[string, string, boolean]>([
    ['105: a purpose before 解決しました', 'XYZサポート様\nお世話になっております。\nご案内の方法で解決しました。\nありがとうございました。\n山田', true],
    ['手順で and おかげで before 解決しました', 'ご教示いただいた手順で解決できました。ありがとうございます。', true],
    ['ご案内どおりに設定できました', 'ご案内どおりに設定できました。助かりました。', true],
    ['137: will get back to you', 'ご回答ありがとうございます。\n社内で確認のうえ、改めてご連絡いたします。\n山田', true],
    ['検討して後ほどご連絡します', 'ありがとうございます。検討して後ほどご連絡します。', true],
    ["136: that's all we needed", "Many thanks for the quick answer, that's all we needed.\n\nBest regards,\n山田", true],
    ["that's all I needed, with thanks", "Thanks, that's all I needed.", true],
    ['that answers my question', 'Thank you, that answers my question.', true],
    ['we will get back to you', 'Thanks for the answer. We will check internally and get back to you.', true],
    // Must stay answered.
    ['106: solved plus a new question', 'XYZサポート様\n解決しました。ありがとうございます。\nついでにもう一点、CSVの列の並び順は変更できますか？\n山田', false],
    ['138: not solved yet, no question mark', 'ご回答ありがとうございます。\nShift_JISに変更しましたが、まだ文字化けが解消しません。\n山田', false],
    ['解決しませんでした', 'ご案内の方法で試しましたが解決しませんでした。', false],
    ['まだ解決していません', 'ありがとうございます。まだ解決していません。', false],
    ['ご案内の方法で解決しませんでした', 'ご案内の方法で解決しませんでした。', false],
    ["that's not all we needed", "Thanks, but that's not all we needed: the export still fails.", false],
    ['will get back to you after a question', '確認のうえ改めてご連絡いたします。ところで請求書の宛名は変更できますか', false],
  ])('%s → ignored: %s', (_name, question, ignored) => {
    const decision = decideReply(inboundMail({ ...reply, ...words(question), from: person('taro@customer.example', '山田 太郎') }), mailboxes);
    if (ignored) expect(decision).toMatchObject({ answer: false, reason: 'acknowledgement' });
    else expect(decision).toEqual({ answer: true });
  });
});

describe('sales, recruiting, seminar and vendor mail: the draft is held (samples 126, 127, 144, 125b)', () => {
  const PDF = { filename: 'mitsumori.pdf', contentType: 'application/pdf', size: 1000 } as InboundMail['attachments'][number];
  const XLSX = { filename: 'error-log.xlsx', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', size: 1000 } as InboundMail['attachments'][number];
  it.each<[string, Partial<InboundMail>, RegExp | undefined]>([
    ['126: 突然のご連絡失礼いたします in a new mail', words('XYZ株式会社\nカスタマーサポートご担当者様\n\n突然のご連絡失礼いたします。\n株式会社グロースパートナーズの西田と申します。\n15分ほどお時間をいただけないでしょうか？'), /「突然のご連絡失礼いたします」/],
    ['127: the opener and a name on one line', words('採用ご担当者様\n突然のご連絡失礼いたします。キャリアエージェントの鈴木です。\n一度お打ち合わせの機会をいただけませんか？'), /「突然のご連絡失礼いたします」/],
    ['突然のメール失礼します', words('突然のメール失礼します。\n貴社サービスについてご提案があります。'), /「突然のメール失礼します」/],
    ['English cold outreach', words('Hi there,\n\nI hope this email finds you well. I am reaching out because we help SaaS teams cut support costs.\nWould you have 15 minutes next week?'), /I hope this email finds you well/],
    ['125b: ご査収 beside an attached PDF', { ...words('お世話になっております。小川印刷の小川でございます。\nお見積書をお送りいたします。\nご査収のほど、よろしくお願い申し上げます。'), attachments: [PDF] }, /ご査収.*mitsumori\.pdf/],
    // Left alone.
    ['突然のご連絡 in a reply to us', { ...reply, ...words('突然のご連絡失礼いたします。先日の件、その後いかがでしょうか？') }, undefined],
    ['a customer who writes 突然 elsewhere', words('突然ログインできなくなりました。どうすればよいですか？'), undefined],
    ['ご査収 without an attachment', words('ご査収ください、とはどういう意味ですか？'), undefined],
    ['a PDF without ご査収', { ...words('添付の請求書の宛名を変更できますか？'), attachments: [PDF] }, undefined],
    ['I hope this email finds you well, then a question', words('I hope this email finds you well. How do I export invoices as CSV?'), undefined],
    // Review 7 (#4, #5): a first-time customer's question, and a customer's own document, are no pitch.
    ['126 whole: an offer and a meeting asked for', words('XYZ株式会社\nカスタマーサポートご担当者様\n\n突然のご連絡失礼いたします。\n株式会社グロースパートナーズの西田と申します。\n弊社ではAIチャットボットによる問い合わせ対応の自動化を支援しており、\n同業のSaaS企業様で対応工数を平均50%削減した実績がございます。\nつきましては、15分ほどオンラインで情報交換のお時間をいただけないでしょうか？\n下記より日程をご選択いただけますと幸いです。'), /「突然のご連絡失礼いたします」/],
    ['127 whole: asks after our needs and for a meeting', words('採用ご担当者様\n突然のご連絡失礼いたします。キャリアエージェントの鈴木です。\nITエンジニアの採用でお困りではございませんか？\n成功報酬型でご紹介可能です。一度お打ち合わせの機会をいただけませんか？'), /「突然のご連絡失礼いたします」/],
    ['English pitch asking for a call', words("Hi,\nI hope this email finds you well. I'm reaching out because our platform helps support teams answer faster.\nCan we schedule a quick call next week?"), /I hope this email finds you well/],
    ['a01: 突然のご連絡 from a new customer asking about CSV', words('突然のご連絡失礼いたします。\n株式会社サンプルの山田と申します。\n先月よりXYZクラウドを導入しております。\nCSV出力で日本語が文字化けするのですが、対処法を教えていただけますでしょうか。\n\nよろしくお願いいたします。'), undefined],
    ['a19: 突然のメール before a price enquiry', words('突然のメールにて失礼いたします。\n御社のXYZを検討しております。50ユーザーの場合の費用を教えてください。'), undefined],
    ['a20: finds you well … reaching out about an API error', words("Hi team,\nI hope this email finds you well. I'm reaching out because our integration hits HTTP 429 on the export API after 100 calls. What is the documented rate limit?\nThanks,\nJohn"), undefined],
    ['突然のご連絡 before a problem, nothing offered', words('突然のご連絡失礼いたします。\n昨日からログインできなくなりました。'), undefined],
    ['a03: a new purchase order with ご査収 that asks when it ships', { ...words('いつもお世話になっております。\n追加ライセンス5本の注文書を添付いたしますので、ご査収のほどよろしくお願いいたします。\n納品はいつ頃になりますでしょうか。'), attachments: [PDF] }, undefined],
    ['a02: a reply sending the requested log in Excel with ご査収', { ...reply, ...words('お世話になっております。\nご指示いただいたエラーログとスクリーンショットをExcelにまとめて添付いたしましたので、ご査収ください。\n引き続き原因の調査をお願いいたします。'), attachments: [XLSX] }, undefined],
    ['b06: a reply with an application form, ご査収 and a question', { ...reply, ...words('お世話になっております。\n社内稟議用に必要事項を記入した申込書をお送りしますので、ご査収ください。\n支払いは請求書払いに対応していますか？'), attachments: [PDF] }, undefined],
  ])('%s', async (_name, overrides, expected) => {
    const mail = inboundMail(overrides);
    expect(decideReply(mail, mailboxes)).toEqual({ answer: true });
    const signals = replySignalsOf(mail)!;
    const detail = bulkMailDetail(signals, mailboxes);
    if (expected) expect(detail).toMatch(expected);
    else expect(detail).toBeUndefined();
  });

  it.each<[string, string, RegExp | undefined]>([
    ['144: 今後のご案内が不要な方は', 'XYZ株式会社 ご担当者様\n\n無料ウェビナーを開催いたします。\n\n※本メールは名刺交換をさせていただいた方にお送りしております。\n今後のご案内が不要な方はお手数ですがその旨ご返信ください。', /ご案内が不要な方は/],
    ['配信が不要な場合は', 'セミナーのお知らせです。\n\n今後メールの配信が不要な場合は、こちらからお手続きください。', /不要な場合は/],
    ['メールが不要な方は', 'キャンペーンのお知らせ\n\nメールが不要な方は配信停止のご連絡をお願いします。', /メールが不要な方は/],
    ['a customer asking', 'ご案内のメールが不要なのですが、止めるにはどうすればよいですか？', undefined],
    // Review 7 (#3): a customer's question without a question mark is theirs, never a footer.
    ['a04: asks where to stop them, ending in か。', 'お世話になっております。\nXYZから届く更新情報のメールについてです。\n今後のご案内が不要な場合は、どこで配信を止められますか。\n\n山田', undefined],
    ['a05: asks, ending in でしょうか。', 'お世話になっております。\nユーザーへの通知メールを止めたいです。\n\n通知メールが不要な方は個別にオフにできるのでしょうか。教えてください。\n\n山田', undefined],
    ['asks, ending in か without 。', 'お世話になっております。\n\n今後のご案内が不要な場合は、どこで止められますか', undefined],
    ['asks with 教えて', 'お世話になっております。\n\nメールが不要な場合は、止める方法を教えてください。', undefined],
    ['a footer that directs, held', 'セミナーのお知らせです。\n\n今後のご案内が不要な場合は、下記までご連絡ください。', /ご案内が不要な場合は/],
    // Legit-4 sample 077: an opt-out by reply, without a link, under a mail that asks its own question is a personal
    // signature's line; it holds only beside a second sign of a mailing.
    ['077: a question, 配信停止…ご返信ください in the signature', 'XYZ株式会社\nご担当者様\n\n突然のご連絡失礼いたします。株式会社マーケティングパートナーズの石田と申します。\n現在御社のサービスを利用中で、APIで顧客データを連携したいと考えております。\nAPIのドキュメントはどこで確認できますでしょうか。\n\n石田\n配信停止をご希望の方はお手数ですがご返信ください。', undefined],
    ['a question, 今後のご案内が不要な方は…ご連絡ください in the signature', 'お世話になっております。\n請求書の宛名は変更できますか？\n\n山田\n今後のご案内が不要な方はお手数ですがご連絡ください。', undefined],
    ['144 whole: an invitation that asks, its audience line and an opt-out by reply', 'XYZ株式会社 ご担当者様\n\nこの度、カスタマーサクセスをテーマにした無料ウェビナーを開催いたします。\nご参加いただけますでしょうか？\n\n■日時 2026年12月10日(木) 15:00-16:00\n■お申込み https://saas-summit.jp/webinar/1210\n\n※本メールは名刺交換をさせていただいた方にお送りしております。\n今後のご案内が不要な方はお手数ですがその旨ご返信ください。', /ご案内が不要な方は/],
    ['a question and two opt-out lines', 'ご参加いただけますでしょうか？\n\n今後のご案内が不要な方はご返信ください。\n配信停止をご希望の方はその旨ご連絡ください。', /が不要な方は|配信停止をご希望/],
    ['a question and an opt-out that names its link', 'ご参加いただけますでしょうか？\n\n配信停止をご希望の方は https://seminar.example.jp/stop よりお手続きください。', /配信停止をご希望/],
    // Review 9 #5: an invitation's question (ご参加いただけ…, ご検討…, would you like to join) is the mailing's, not a
    // customer's own: the opt-out by reply holds beside it on its own.
    ['c1: a seminar invitation asking ご参加いただけませんでしょうか？, an opt-out by reply', 'ご担当者様\n\n突然のご連絡失礼いたします。株式会社セールスの鈴木です。\n6月20日に業務効率化セミナーを開催いたします。\nぜひご参加いただけませんでしょうか？\n\n株式会社セールス 鈴木一郎\n今後このようなご案内が不要な方は、お手数ですがその旨ご返信ください。', /ご案内が不要な方は/],
    ['ご検討いただけますでしょうか？ and an opt-out by reply', 'ご担当者様\n\n新サービスのご紹介です。\nぜひ導入をご検討いただけますでしょうか？\n\n佐藤\n今後のご案内が不要な方はお手数ですがご返信ください。', /ご案内が不要な方は/],
    ['ご出席いただけますか？ and an opt-out by reply', 'ご担当者様\n\n交流会を開催します。ご出席いただけますか？\n\n佐藤\n今後のご案内が不要な方はお手数ですがご返信ください。', /ご案内が不要な方は/],
    ['お申し込みいただけますか？ and an opt-out by reply', 'ご担当者様\n\n無料体験のご案内です。お申し込みいただけますか？\n\n佐藤\n今後のご案内が不要な方はお手数ですがご返信ください。', /ご案内が不要な方は/],
    ['a customer asking how to apply, with an opt-out line in the signature', 'お世話になっております。\n有料プランへの申し込み方法を教えていただけますか？\n\n山田\n今後のご案内が不要な方はお手数ですがご連絡ください。', undefined],
  ])('mass-mail footer: %s', (_name, text, expected) => {
    const evidence = massMailingEvidence({ text, quoted: false });
    if (expected) expect(evidence).toMatch(expected);
    else expect(evidence).toBeUndefined();
  });
});

describe('an empty Contact Form 7 mail: identity fields are no question (sample 111c)', () => {
  it.each<[string, string, boolean]>([
    ['111c: only the sender line filled', '差出人: 松本 大輔 <d.matsumoto@matsumoto-tax.jp>\n題名: \n\nメッセージ本文:\n', false],
    ['name, company, email, phone only', 'お名前：山田 太郎\n会社名：山田商事\nメールアドレス：taro@yamada.example\n電話番号：03-1234-5678\nお問い合わせ内容：', false],
    ['English identity fields only', 'Name: Taro Yamada\nEmail: taro@customer.example\nPhone: +81 3 1234 5678\nMessage:', false],
    ['111: a filled body', '差出人: 松本 大輔 <d.matsumoto@matsumoto-tax.jp>\n題名: 請求書の発行タイミング\n\nメッセージ本文:\n請求書は毎月何日に発行されますか？', true],
    ['a filled subject field', '差出人: 松本 大輔 <d.matsumoto@matsumoto-tax.jp>\n題名: 請求書の発行日について\nメッセージ本文:', true],
    ['a value on the line after an identity label, then the question', 'Name:\nTaro\nQuestion:\nHow do I export invoices?', true],
    ['a sentence that begins with Name:', 'Name: the field shows an error when I save', true],
  ])('%s → %s', (_name, question, expected) => {
    expect(hasQuestion({ question })).toBe(expected);
  });

  // Review 7 (#9): a mail whose body names its sender and whose question is the subject is asked about by its subject,
  // as one of greetings only is; a form's own title (111c's 「XYZ "(件名なし)"」) asks nothing.
  it.each<[string, string, string, boolean]>([
    ['b01: contact fields, the request in the subject', '会社名：株式会社サンプル\n氏名：山田 太郎\n電話：03-1234-5678', '請求書の再発行をお願いします', true],
    ['English contact fields, the question in the subject', 'Name: Taro Yamada\nPhone: +81 3 1234 5678', 'How do I export invoices?', true],
    ['111c: an empty form under its title with an empty subject field', '差出人: 松本 大輔 <d.matsumoto@matsumoto-tax.jp>\n題名: \n\nメッセージ本文:\n', 'XYZ "(件名なし)"', false],
    ["a form's bare title", 'お名前：山田 太郎\nメールアドレス：taro@yamada.example\nお問い合わせ内容：', 'お問い合わせ', false],
    ["a form's title with the site's name", 'Name: Taro Yamada\nEmail: taro@customer.example\nMessage:', 'XYZ Soft - Contact form', false],
    ['a body with a question of its own', '氏名：山田 太郎\nCSVが文字化けします。対処法を教えてください。', '請求書の再発行をお願いします', false],
    ['no subject', '氏名：山田 太郎', '', false],
  ])('asksOnlyInSubject: %s → %s', (_name, question, subject, expected) => {
    expect(asksOnlyInSubject(question, subject)).toBe(expected);
  });
});

describe("a do-not-reply line of a service sending for a person in Reply-To is no bulk sign (samples 109, 132)", () => {
  const doNotReply = (line: string) => `a do-not-reply line (“${line}”)`;
  it.each<[string, Partial<InboundMail>, boolean]>([
    ['109: formrun, Reply-To the customer', { from: person('noreply@form.run', 'formrun'), replyTo: person('makoto.k@kobayashi-design.example'), massMailing: doNotReply('※このメールは送信専用です。') }, false],
    ['132: a CRM, the line names the Reply-To', { from: person('notify@mail.crm.example'), replyTo: person('r.nakamura@nakamura-co.example'), massMailing: doNotReply('※このメールは送信専用アドレスから送信されています。ご返信は r.nakamura@nakamura-co.example までお願いいたします。') }, false],
    // Held as before.
    ['123: no Reply-To', { from: person('order-system@customer.example'), massMailing: doNotReply('※このメールは送信専用です。') }, true],
    ['a no-reply Reply-To', { from: person('notify@mail.crm.example'), replyTo: person('noreply@crm.example'), massMailing: doNotReply('このメールは送信専用です。') }, true],
    ["a Reply-To on the From's own organisation (a payment service's helpdesk)", { from: person('notice@pay.example'), replyTo: person('support@pay.example'), massMailing: doNotReply('Please do not reply to this email.') }, true],
    ['an unsubscribe footer stays a sign whatever Reply-To says', { from: person('noreply@form.run'), replyTo: person('makoto.k@kobayashi-design.example'), massMailing: 'an unsubscribe link in the footer (“配信停止はこちら” https://x.example/u)' }, true],
  ])('%s → held: %s', (_name, overrides, held) => {
    const detail = bulkMailDetail(inboundMail(overrides), mailboxes);
    if (held) expect(detail).toBeDefined();
    else expect(detail).toBeUndefined();
  });
});
