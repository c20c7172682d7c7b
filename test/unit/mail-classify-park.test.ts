/**
 * Mail the reply decision lets through but no automatic answer should go to, parked for a person before the agent
 * runs (parkBeforeAgentReason): a person's From with a no-reply Reply-To, a null envelope sender with nothing else
 * of a bounce, a circular (many recipients, or a notice's subject beside 各位), a colleague on our own domain, and a
 * stranger whose display name is ours. The rows come from the second mail audit's samples (52, 64b, 71, 72, 73) and
 * from what each rule must leave alone.
 */
import { describe, expect, it } from 'vitest';
import { decideReply, ownMailboxesOf, parkBeforeAgentReason, REPLY_SIGNAL_HEADERS, replySignalsOf, type ParkConfig } from '../../src/mail/classify.js';
import { parseInboundMail, type InboundMail } from '../../src/mail/parse.js';
import { inboundMail } from '../support/inbound-mail.js';

const config: ParkConfig = {
  MAIL_FROM: 'XYZ Support <support@support.example>',
  SUPPORT_ADDRESSES: ['help@support.example'],
  SUPPORT_GROUP_ADDRESSES: [],
  AUTHSERV_ID: [],
  PRODUCT_NAME: 'XYZ',
};

const person = (address: string, name = '') => ({ address, name });
const cc = (count: number) => Array.from({ length: count }, (_, i) => person(`partner${i}@vendor${i}.example`));
const FORWARD_BY_SALES =
  'サポートチーム各位\n\n営業の鈴木です。担当顧客から下記の問い合わせがありました。\n先方へは直接ご返信いただいて構いません。\n\n---------- Forwarded message ----------\nFrom: 松本 由美 <y.matsumoto@matsumoto-kogyo.co.jp>\nSubject: 解約時のデータ保持期間について\n\n解約後、データは何日間保持されますか。';
const HOLIDAY_NOTICE = 'お取引先各位\n\n平素より格別のご高配を賜り、厚く御礼申し上げます。\n誠に勝手ながら、弊社では下記の期間を年末年始休業とさせていただきます。';
const words = (question: string): Partial<InboundMail> => ({ question, text: question });

describe('parkBeforeAgentReason', () => {
  it.each<[string, Partial<InboundMail>, RegExp | undefined, Partial<ParkConfig>?]>([
    ["a customer's question", {}, undefined],
    // 0. A sender's address no reply may go to (a route, a domain literal, a quoted local part): a person decides, first.
    ['a Reply-To routed through our own domain', { replyTo: person('k.suzuki%support.example@relay.example') }, /^the sender's address "k\.suzuki%support\.example@relay\.example" \(Reply-To\) is not one a reply may go to \(a route through another host\): a person decides$/],
    ['a Reply-To of a domain literal', { replyTo: person('admin@[10.0.0.1]') }, /^the sender's address "admin@\[10\.0\.0\.1\]" \(Reply-To\) is not one a reply may go to \(a domain literal\): a person decides$/],
    ['a From of a quoted local part the parser left out', { from: undefined, headers: { from: ['"yamada taro"@customer.example'] } }, /^the sender's address "\\"yamada taro\\"@customer\.example" \(From\) is not one a reply may go to \(a quoted local part\): a person decides$/],
    ['an unusable From named as our support: the address is named first', { from: undefined, headers: { from: ['XYZ サポートセンター <support@[192.0.2.1]>'] } }, /^the sender's address "support@\[192\.0\.2\.1\]" \(From\)/],
    ['a usable Reply-To beside an unusable From: the reply goes to Reply-To', { from: undefined, headers: { from: ['taro@[192.0.2.1]'] }, replyTo: person('taro@customer.example') }, undefined],
    ['a From of only a name', { from: undefined, headers: { from: ['Taro Yamada'] } }, undefined],
    // 1. A workflow tool sending for a person (sample 72): the answer would go nowhere, the question is a person's.
    ["a person's From, a no-reply Reply-To (sample 72)", { replyTo: person('noreply@customer.example') }, /^Reply-To noreply@customer\.example is a no-reply address; the From taro@customer\.example is a person: /],
    ['a no-reply From with a person in Reply-To (a web form): held after the draft, not here', { from: person('noreply@forms.example'), replyTo: person('taro@customer.example') }, undefined],
    ['a Reply-To of the same person', { replyTo: person('Taro@customer.example') }, undefined],
    // 2. A null envelope sender is how bounces travel, and how some form relays send (sample 73).
    ['Return-Path: <> on a question, nothing else of a bounce (sample 73)', { headers: { 'return-path': ['<>'] } }, /^null envelope sender \(Return-Path: <>\) but nothing else of a bounce: /],
    ['Return-Path: <MAILER-DAEMON> on a question', { headers: { 'return-path': ['<MAILER-DAEMON>'] } }, /^null envelope sender \(Return-Path: <MAILER-DAEMON>\)/],
    ["a person's Return-Path", { headers: { 'return-path': ['<taro@customer.example>'] } }, undefined],
    // 5. Circulars: a new mail to many, or a notice's subject beside a 各位 salutation (sample 71).
    ['a new mail to 21 recipients besides us', { cc: cc(21) }, /^a circular: a new mail to 22 recipients \(To and Cc\)/],
    ['a new mail to 20 recipients', { cc: cc(19) }, undefined],
    ['a reply to many recipients (a customer answering a thread)', { cc: cc(30), inReplyTo: '<our-1@support.example>' }, undefined],
    ['年末年始休業のお知らせ to お取引先各位 (sample 71, without its Cc)', { subject: '年末年始休業のお知らせ', ...words(HOLIDAY_NOTICE) }, /^a circular: the subject 「年末年始休業のお知らせ」 is a notice's, addressed to 「お取引先各位」/],
    ['【重要】…のご案内 to 関係者各位', { subject: '【重要】システムメンテナンスのご案内（12/5）', ...words('関係者各位\n\n平素より大変お世話になっております。\nメンテナンスを実施いたします。') }, /^a circular: the subject 「【重要】システムメンテナンスのご案内（12\/5）」 is a notice's, addressed to 「関係者各位」/],
    ['各位 alone: a customer opening サポートご担当者各位', { subject: 'CSVの文字化けについて', ...words('サポートご担当者各位\n\nCSVをExcelで開くと文字化けします。どうすればよいですか。') }, undefined],
    ['a notice subject without 各位', { subject: 'お支払い方法変更のお知らせ', ...words('ご担当者様\n\nお支払い方法変更のお知らせが届きましたが、何を変更すればよいですか。') }, undefined],
    ['a subject that only mentions お知らせ, beside 各位', { subject: 'お知らせメールが届きません', ...words('サポートご担当者各位\n\nお知らせメールが届きません。') }, undefined],
    // 6. A colleague's forward (sample 52): the reply would go to the colleague, not to the customer.
    ['a colleague on our domain forwards a customer question (sample 52)', { from: person('k.suzuki@support.example', '鈴木 健一'), subject: 'Fw: 解約時のデータ保持期間について', ...words(FORWARD_BY_SALES) }, /^internal mail from k\.suzuki@support\.example on our own domain support\.example \(a colleague, or a system of ours\): an answer would go to them; the forwarded sender is y\.matsumoto@matsumoto-kogyo\.co\.jp/],
    ['a colleague on a subdomain of ours, no forward', { from: person('sato@sales.support.example') }, /^internal mail from sato@sales\.support\.example on our own domain support\.example \(a colleague, or a system of ours\): an answer would go to them; a person answers$/],
    ['a customer naming a colleague in Reply-To', { replyTo: person('k.suzuki@support.example') }, /^internal mail from k\.suzuki@support\.example on our own domain/],
    ["our website's form mailer with the customer in Reply-To (round-1 sample 16)", { from: person('wordpress@www.support.example'), replyTo: person('suzuki@example-mail.example') }, undefined],
    ["a customer's colleague forwarding (sample 52b)", { from: person('m.sasaki@customer.example'), ...words(FORWARD_BY_SALES) }, undefined],
    ['a look-alike domain is no colleague', { from: person('sales@evilsupport.example') }, undefined],
    ['MAIL_FROM on gmail.com: another gmail.com user is no colleague', { from: person('someone@gmail.com') }, undefined, { MAIL_FROM: 'Support <xyz.support@gmail.com>', SUPPORT_ADDRESSES: [] }],
    // 7. A stranger presenting themselves as us (sample 64b).
    ['「XYZ サポートセンター」 on a foreign domain (sample 64b)', { from: person('support@xyz-helpdesk-jp.com', 'XYZ サポートセンター') }, /^the sender's name 「XYZ サポートセンター」 presents it as our own support \(the product name XYZ\), from xyz-helpdesk-jp\.com, not our domain: /],
    ['the product name in full-width letters', { from: person('info@xyz-help.example', 'ＸＹＺカスタマーサポート') }, /the product name XYZ/],
    ["MAIL_FROM's display name whole, another product name configured", { from: person('desk@acme-help.example', 'ACME Helpdesk') }, /^the sender's name 「ACME Helpdesk」 presents it as our own support \(MAIL_FROM's name ACME Helpdesk\)/, { MAIL_FROM: 'ACME Helpdesk <support@support.example>', PRODUCT_NAME: 'Widget' }],
    ["MAIL_FROM's Japanese name, a space put in after the Latin letters", { from: person('support@xyz-helpdesk-jp.com', 'XYZ サポートセンター') }, /\(MAIL_FROM's name XYZサポート\)/, { MAIL_FROM: 'XYZサポート <support@support.example>', PRODUCT_NAME: 'Widget' }],
    ['the product name inside a longer word', { from: person('desk@xyzzy.example', 'XYZZY Support') }, undefined],
    ['the product name without a support word (a customer in charge of it)', { from: person('taro@customer.example', '山田 太郎 (XYZ導入担当)') }, undefined],
    ["a company name holding MAIL_FROM's name when that is only a common word", { from: person('desk@partners.example', 'Support Partners Inc.') }, undefined, { MAIL_FROM: 'Support <support@support.example>' }],
    ["a customer's helpdesk named like a generic MAIL_FROM name", { from: person('helpdesk@customer.example', 'Support') }, undefined, { MAIL_FROM: 'Support <support@support.example>' }],
    // A name is ours only when nothing is left of it but our name and support or team words (review 5, finding 1).
    ['「XYZ Support Security」 on a foreign domain', { from: person('alert@xyz-secure.example', 'XYZ Support Security') }, /^the sender's name 「XYZ Support Security」 presents it as our own support/],
    ['「XYZ Support Team」 on a foreign domain', { from: person('team@xyz-help.example', 'XYZ Support Team') }, /^the sender's name 「XYZ Support Team」 presents it as our own support/],
    ['「XYZ カスタマーサポート」 on a foreign domain', { from: person('cs@xyz-help.example', 'XYZ カスタマーサポート') }, /\(the product name XYZ\)/],
    ['「【XYZ】サポート窓口」 on a foreign domain', { from: person('desk@xyz-help.example', '【XYZ】サポート窓口') }, /\(the product name XYZ\)/],
    ["MAIL_FROM's name with team words on a foreign domain", { from: person('desk@acme-help.example', 'ACME Helpdesk Team') }, /\(MAIL_FROM's name ACME Helpdesk\)/, { MAIL_FROM: 'ACME Helpdesk <support@support.example>', PRODUCT_NAME: 'Widget' }],
    // Company forms and notice words say nothing of who sends: a name of only those beside ours is ours (review 6, F1).
    ['「XYZ Inc. Support」 on a foreign domain', { from: person('help@xyz-inc.example', 'XYZ Inc. Support') }, /\(the product name XYZ\)/],
    ['「XYZ Support Japan」 on a foreign domain', { from: person('help@xyz-jp.example', 'XYZ Support Japan') }, /\(the product name XYZ\)/],
    ['「XYZ Support Notification」 on a foreign domain', { from: person('notify@xyz-mail.example', 'XYZ Support Notification') }, /\(the product name XYZ\)/],
    ['「XYZ サポート事務局からのお知らせ」 on a foreign domain', { from: person('info@xyz-info.example', 'XYZ サポート事務局からのお知らせ') }, /\(the product name XYZ\)/],
    ["MAIL_FROM's name and the product name together on a foreign domain", { from: person('help@acme-xyz.example', 'Acme XYZ Support') }, /presents it as our own support/, { MAIL_FROM: 'Acme Support <support@support.example>' }],
    ["a customer's security officer naming the product", { from: person('sato@abc.example', '佐藤 (XYZ セキュリティ担当)') }, undefined],
    ["a customer's project office for the product", { from: person('sato@abc.example', 'XYZ導入事務局 佐藤') }, undefined],
    ["a reseller's support desk for the product", { from: person('support@reseller.example', 'XYZ販売店 サポート窓口') }, undefined],
    ['a company named after the product and a support word', { from: person('tanaka@xyzss.example', '株式会社XYZサポートシステムズ 田中') }, undefined],
    ["a customer naming a MAIL_FROM that is only the brand", { from: person('bob@abc.example', 'Bob (XYZ admin)') }, undefined, { MAIL_FROM: 'XYZ <support@support.example>' }],
    ["a partner's person whose company holds MAIL_FROM's name", { from: person('yamada@acme-partner.example', 'Acme Japan 山田') }, undefined, { MAIL_FROM: 'Acme <help@acme.example>', PRODUCT_NAME: 'Widget' }],
    // A group host or shared provider holds everyone's mailboxes: our group there makes no one on it a colleague (finding 9).
    ['SUPPORT_GROUP_ADDRESSES on googlegroups.com: another googlegroups.com sender is no colleague', { from: person('other-list@googlegroups.com') }, undefined, { SUPPORT_GROUP_ADDRESSES: ['xyz-support@googlegroups.com'] }],
    ['SUPPORT_GROUP_ADDRESSES on groups.io: a sender on another group there is no colleague', { from: person('owner@other.groups.io') }, undefined, { SUPPORT_GROUP_ADDRESSES: ['support@xyz.groups.io'] }],
    ['MAIL_FROM on groups.io: another groups.io sender is no colleague', { from: person('someone@groups.io') }, undefined, { MAIL_FROM: 'XYZ Support <xyz@groups.io>', SUPPORT_ADDRESSES: [] }],
    ['SUPPORT_GROUP_ADDRESSES on a shared provider (outlook.jp): another user there is no colleague', { from: person('taro@outlook.jp') }, undefined, { SUPPORT_GROUP_ADDRESSES: ['xyz-support@outlook.jp'] }],
    ['SUPPORT_GROUP_ADDRESSES on our own domain still makes a colleague', { from: person('k.suzuki@corp.example') }, /^internal mail from k\.suzuki@corp\.example on our own domain corp\.example/, { SUPPORT_GROUP_ADDRESSES: ['support-team@corp.example'] }],
    // A reply is never a circular, however many are copied or whatever its subject (a customer answering our mail).
    ['a reply (References only) to 200 recipients', { cc: cc(200), references: ['<our-1@support.example>'] }, undefined],
    ['a reply under a notice subject beside 各位', { inReplyTo: '<our-1@support.example>', subject: 'Re: 年末年始休業のお知らせ', ...words(HOLIDAY_NOTICE) }, undefined],
  ])('%s', (_name, overrides, expected, changes) => {
    const reason = parkBeforeAgentReason(inboundMail(overrides), { ...config, ...changes });
    if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toMatch(expected);
  });

  // The subject, the question and the display name are a stranger's: each is read in one pass whatever it holds.
  it.each<[string, Partial<InboundMail>]>([
    ['bracketed tags, then no notice', { subject: '【a】'.repeat(100_000) }],
    ['a notice, spaces, a word', { subject: `お知らせ${' '.repeat(300_000)}x`, ...words('お取引先各位') }],
    ['a salutation line of spaces and a forward header of quote marks', { ...words(`${' '.repeat(300_000)}\n${'>'.repeat(300_000)}`) }],
    ['a display name of the product name run together', { from: person('a@b.example', 'XYZ'.repeat(100_000)) }],
    ['a null envelope sender and a long subject of spaces', { headers: { 'return-path': ['<>'] }, subject: `undeliverable${' '.repeat(300_000)}x` }],
  ])('a hostile mail (%s) is decided in one pass', { timeout: 20_000 }, (_what, overrides) => {
    const started = performance.now();
    parkBeforeAgentReason(inboundMail(overrides), config);
    decideReply(inboundMail(overrides), ownMailboxesOf(config));
    // Generous: one pass takes milliseconds; a quadratic scan takes minutes.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("decides a person's From with a no-reply Reply-To as answered, so that it is parked rather than ignored", () => {
    const mail = inboundMail({ replyTo: person('noreply@customer.example') });
    expect(decideReply(mail, ownMailboxesOf(config))).toEqual({ answer: true });
    expect(parkBeforeAgentReason(mail, config)).toBeDefined();
  });

  // The agent worker decides from the signals a ticket records and its subject, thread and question.
  function raw(headers: string[], body: string): Buffer {
    return Buffer.from(
      [...headers, 'Message-ID: <m@customer.example>', 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', body, ''].join('\r\n'),
      'utf8',
    );
  }
  it('reads a reply to 200 recipients from the recorded signals as no circular', async () => {
    const reply = raw(['From: kobai@customer.example', 'To: support@support.example', `Cc: ${cc(200).map((p) => p.address).join(', ')}`, 'Subject: Re: 出荷停止について', 'In-Reply-To: <our-1@support.example>'], '再開日を教えてください。');
    const parsed = await parseInboundMail(reply, { extraHeaders: [...REPLY_SIGNAL_HEADERS] });
    const stored = JSON.parse(JSON.stringify(replySignalsOf(parsed))) as NonNullable<ReturnType<typeof replySignalsOf>>;
    expect(stored.recipientCount).toBe(201);
    expect(parkBeforeAgentReason(parsed, config)).toBeUndefined();
    expect(parkBeforeAgentReason({ ...stored, subject: parsed.subject, inReplyTo: parsed.inReplyTo, references: parsed.references, question: parsed.question }, config)).toBeUndefined();
  });

  it.each<[string, Buffer]>([
    ['a circular to 200 recipients in Cc (sample 71)', raw(['From: 購買部 <kobai@customer.example>', 'To: お取引先各位 <kobai@customer.example>', `Cc: ${cc(200).map((p) => p.address).join(', ')}`, 'Subject: 在庫棚卸のため出荷停止について'], '出荷を停止します。')],
    ['a notice subject beside お取引先各位', raw(['From: kobai@customer.example', 'To: support@support.example', 'Subject: 年末年始休業のお知らせ'], HOLIDAY_NOTICE)],
    ['a null envelope sender (sample 73)', raw(['Return-Path: <>', 'From: saki@maeda-office.example', 'To: support@support.example', 'Subject: 認証コードが届きません'], '認証コードが届きません。どうすればよいですか。')],
    ['a no-reply Reply-To (sample 72)', raw(['From: taro@customer.example', 'Reply-To: noreply@customer.example', 'To: support@support.example', 'Subject: 契約更新'], '自動更新されますか。')],
    ['a colleague (sample 52)', raw(['From: k.suzuki@support.example', 'To: support@support.example', 'Subject: Fw: 解約'], FORWARD_BY_SALES)],
  ])('decides alike from the recorded signals: %s', async (_name, mail) => {
    const parsed = await parseInboundMail(mail, { extraHeaders: [...REPLY_SIGNAL_HEADERS] });
    const reason = parkBeforeAgentReason(parsed, config);
    expect(reason).toBeDefined();
    const stored = JSON.parse(JSON.stringify(replySignalsOf(parsed))) as NonNullable<ReturnType<typeof replySignalsOf>>;
    const ticket = { subject: parsed.subject, inReplyTo: parsed.inReplyTo, references: parsed.references, question: parsed.question };
    expect(parkBeforeAgentReason({ ...stored, ...ticket }, config)).toBe(reason);
  });
});
