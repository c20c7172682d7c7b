/**
 * Japanese auto-replies and read receipts that write none of the auto-reply headers: known by a bracketed notice name
 * anywhere in the subject (「Re: ログインできません【自動返信】」, a new 「【自動返信】お問い合わせありがとうございます」),
 * by a read receipt's prefix on a reply (「開封済み: Re: …」), or, only in a reply to one of our own Message-IDs, by
 * own words that begin by saying the mail was sent automatically (web-form notifications say the same, and are
 * questions).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decideReply, ignoreReasonText, REPLY_SIGNAL_HEADERS, replySignalsOf, type IgnoreReason } from '../../src/mail/classify.js';
import { parseInboundMail, type InboundMail } from '../../src/mail/parse.js';
import { inboundMail } from '../support/inbound-mail.js';

const ctx = { ourAddresses: ['Helpdesk <support@support.example>', 'help@support.example'], loopMarker: 'helpdesk-worker' };
const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/mail');


const toUs = { inReplyTo: '<our-reply-1@support.example>', references: ['<our-reply-1@support.example>'] };
const toSomeoneElse = { inReplyTo: '<q-1@customer.example>', references: ['<q-1@customer.example>'] };
const words = (question: string): Partial<InboundMail> => ({ question, text: question });
// Sample 11e's text: a shop's automatic acknowledgement of an inquiry.
const AUTO_ACK = '※本メールは送信専用アドレスから自動送信しております。\n\nこの度はお問い合わせいただき、誠にありがとうございます。\n以下の内容でお問い合わせを受け付けました。\n担当者より3営業日以内にご連絡いたします。';

const outcome = (mail: InboundMail): IgnoreReason | 'answer' => {
  const decision = decideReply(mail, ctx);
  return decision.answer ? 'answer' : decision.reason;
};

describe('a bracketed notice name anywhere in the subject', () => {
  it.each<[string, Partial<InboundMail>, IgnoreReason | 'answer']>([
    ['at the end of a reply\'s subject (sample 11c)', { subject: 'Re: ログインできません【自動返信】', ...toUs }, 'auto-reply'],
    ['at the start of a new mail (sample 11e)', { subject: '【自動返信】お問い合わせありがとうございます' }, 'auto-reply'],
    ['【自動応答】 in a new mail', { subject: '【自動応答】受付のお知らせ' }, 'auto-reply'],
    ['[不在通知] at the end', { subject: 'Re: 請求書について [不在通知]', ...toUs }, 'auto-reply'],
    ['［自動返信メール］ in full-width brackets', { subject: '［自動返信メール］お問い合わせを受け付けました' }, 'auto-reply'],
    ['〔自動返信〕 in tortoise-shell brackets', { subject: 'Re: 請求書について〔自動返信〕', ...toUs }, 'auto-reply'],
    ['in the middle of a subject', { subject: 'ご注文確認【自動返信】No.12345' }, 'auto-reply'],
    // A person replying to or forwarding someone's auto-reply writes its subject behind their own prefix.
    ['a reply to an auto-reply, its tag after "Re:"', { subject: 'Re: 【自動返信】お問い合わせありがとうございます', ...toUs }, 'answer'],
    ['a forwarded auto-reply', { subject: 'Fwd: 【自動返信】お問い合わせありがとうございます' }, 'answer'],
    ['a forwarded auto-reply behind several prefixes', { subject: 'RE: FW: 【自動返信】お問い合わせありがとうございます' }, 'answer'],
    ['a reply to an auto-reply with a counted prefix', { subject: 'Re[2]: 【自動返信】お問い合わせありがとうございます', ...toUs }, 'answer'],
    // The words in a customer's sentence about the feature, not a tag.
    ['a tag followed by a particle: the customer writes about the feature', { subject: '【自動返信】が届きません' }, 'answer'],
    ['【自動返信】の設定方法', { subject: '【自動返信】の設定方法について' }, 'answer'],
    ['the words without brackets in a new mail', { subject: '自動返信の設定について' }, 'answer'],
    ['a web form notification: 【自動送信】 is no auto-reply', { subject: '【自動送信】お問い合わせがありました' }, 'answer'],
    // A new mail's tag decides only beside a notice's own wording, a subject it answers, or a notice opening the text:
    // a customer may name the feature in brackets and ask about it below.
    ['a new mail naming the feature in brackets, a noun after the tag', { subject: '【自動返信】機能が動作しない', ...words('自動返信機能が動作しません。対処法を教えてください。') }, 'answer'],
    ['a new mail naming the feature in brackets, a space after the tag', { subject: '【自動返信】 メールの設定方法', ...words('お世話になっております。自動返信メールの設定方法を教えてください。') }, 'answer'],
    ['a new mail, the tag after a customer\'s words', { subject: '請求書の送付について【自動返信】', ...words('【自動返信】で届いた請求書の宛名が違います。再発行をお願いします。') }, 'answer'],
    ['the tag alone on a new mail', { subject: '【自動返信】' }, 'auto-reply'],
    ['a new mail answering a subject behind the tag, no thread headers', { subject: '【自動返信】Re: ログインできません' }, 'auto-reply'],
    ['a new mail answering a subject before the tag, no thread headers', { subject: 'Re: ログインできません【不在通知】' }, 'auto-reply'],
    ['an absence notice\'s wording after the tag', { subject: '【自動返信】不在のお知らせ' }, 'auto-reply'],
    ['a thanks for an inquiry after the tag', { subject: '【自動応答】お問い合わせいただきありがとうございます' }, 'auto-reply'],
    ['a new mail whose text opens with a notice (sample 11e\'s text)', { subject: '【自動返信】株式会社パートナーショップ', ...words(AUTO_ACK) }, 'auto-reply'],
    // On a reply to one of our Message-IDs the tag decides as before.
    ['a reply to our mail, a noun after the tag', { subject: '【自動返信】機能が動作しない', ...toUs }, 'auto-reply'],
  ])('%s → %s', (_name, overrides, expected) => {
    expect(outcome(inboundMail(overrides))).toBe(expected);
    if (expected !== 'answer') expect(decideReply(inboundMail(overrides), ctx)).toMatchObject({ detail: `Subject: ${overrides.subject}` });
  });
});

// The subject and the text are a stranger's: the tag and the notice are found in one pass whatever they hold.
it.each<[string, Partial<InboundMail>, IgnoreReason | 'answer']>([
  ['a run of opening brackets', { subject: '【'.repeat(300_000) }, 'answer'],
  ['reply prefixes, then a tag', { subject: `${'re: '.repeat(100_000)}【自動返信】` }, 'answer'],
  ['a prefix, spaces, a word, then a tag', { subject: `re:${' '.repeat(300_000)}x【自動返信】` }, 'auto-reply'],
  ['a tag, then a number label and spaces', { subject: `【自動返信】No${' '.repeat(300_000)}x` }, 'answer'],
  ['a tag, then a notice\'s wording and spaces', { subject: `【自動返信】受付${' '.repeat(300_000)}のお知らせ` }, 'answer'],
  ['a notice, then a long run of dotted letters', { subject: 'Re: s', question: `※このメールは自動送信されています。${'a.'.repeat(150_000)}`, ...toUs }, 'auto-reply'],
  ['a pasted notice, then a long run of spaces', { subject: 'Re: s', question: `※このメールは自動送信されています。${' '.repeat(300_000)}`, ...toUs }, 'auto-reply'],
  ['the start of a notice, then spaces', { subject: 'Re: s', question: `このメールは${' '.repeat(300_000)}`, ...toUs }, 'answer'],
])('a hostile mail (%s) is decided in one pass', { timeout: 20_000 }, (_what, overrides, expected) => {
  expect(outcome(inboundMail(overrides))).toBe(expected);
});

describe('a plain-text read receipt on a reply', () => {
  it.each<[string, Partial<InboundMail>, IgnoreReason | 'answer']>([
    ['開封済み: (sample 13b)', { subject: '開封済み: Re: ログインできません', ...toUs }, 'auto-reply'],
    ['既読：with a full-width colon', { subject: '既読：Re: ログインできません', ...toUs }, 'auto-reply'],
    ['Read: (Outlook in English)', { subject: 'Read: Re: Cannot log in', ...toUs }, 'auto-reply'],
    ['開封済み on a new mail is a question', { subject: '開封済み: の表示を消したい' }, 'answer'],
    ['a reply that writes about read receipts', { subject: '開封済みの通知について', ...toUs }, 'answer'],
    ['a reply whose subject starts with the word Read', { subject: 'Reading the invoice', ...toUs }, 'answer'],
  ])('%s → %s', (_name, overrides, expected) => {
    expect(outcome(inboundMail(overrides))).toBe(expected);
  });

  it('says it is a read receipt', () => {
    const decision = decideReply(inboundMail({ subject: '開封済み: Re: ログインできません', ...toUs }), ctx);
    expect(decision.answer === false && ignoreReasonText(decision)).toBe('read receipt: Subject: 開封済み: Re: ログインできません');
  });
});

describe('own words that begin by saying the mail was sent automatically', () => {
  const notice = '※このメールは自動送信されています。\n山田は11月25日まで出張のため不在にしております。\nご返信が遅れますことをご了承ください。';
  const webForm = '※このメールは自動送信されています。\n\nお名前：鈴木 花子\nお問い合わせ内容：ログインできません。対処方法を教えてください。';
  const HELPDESK_ACK = 'お問い合わせありがとうございます。\n本メールは受付確認のため自動でお送りしております。\n内容を確認のうえ、担当者より2営業日以内にご連絡いたします。\n\nカスタマー社 ヘルプデスク';
  const PASTED_NOTICE = '※このメールは自動送信されています。\nお支払いの確認ができませんでした。\n\n↑このようなメールが届きましたが、支払い済みです。どういうことでしょうか？';
  it.each<[string, Partial<InboundMail>, IgnoreReason | 'answer']>([
    ['in a reply to our reply, the subject echoed (sample 11d)', { subject: 'Re: ログインできません', question: notice, text: notice, ...toUs }, 'auto-reply'],
    ['本メールは自動返信です in a reply known by References only', { subject: 'Re: ログインできません', question: `本メールは自動返信です。\n${notice}`, references: ['<our-reply-1@support.example>'] }, 'auto-reply'],
    // A web form's notification carries the same sentence, and is a question: never decided on the sentence alone.
    ['a web-form notification (a new mail)', { subject: 'お問い合わせがありました', question: webForm, text: webForm }, 'answer'],
    ['in a reply to someone else\'s mail', { subject: 'Re: ログインできません', question: notice, text: notice, ...toSomeoneElse }, 'answer'],
    ['the sentence further down a reply to us', { subject: 'Re: ログインできません', question: `ログインできません。\n${notice}`, ...toUs }, 'answer'],
    // A customer pasting a notice they got above their own words about it.
    ['a pasted notice, then a question about it', { subject: 'Re: 請求について', ...words(PASTED_NOTICE), ...toUs }, 'answer'],
    ['a pasted notice, then a full-width question mark at its end', { subject: 'Re: 請求について', ...words('※このメールは自動送信されています。お支払いの確認ができませんでした。これは何でしょうか？'), ...toUs }, 'answer'],
    ['a pasted notice, then the customer\'s words pointing at it', { subject: 'Re: 請求について', ...words('※このメールは自動送信されています。\nお支払いの確認ができませんでした。\n\n↑このようなメールが届きましたが、支払い済みです。確認をお願いします。'), ...toUs }, 'answer'],
    ['a pasted notice, then the customer\'s request in its paragraph', { subject: 'Re: 請求について', ...words('※このメールは自動送信されています。\nお支払いの確認ができませんでした。\nどういう意味か教えてください。'), ...toUs }, 'answer'],
    // An autoresponder's own paragraphs after the notice's are no customer's words.
    ['a notice, a blank line, an absence and a return date', { subject: 'Re: ログインできません', ...words('※このメールは自動送信されています。\n\n山田は11月25日まで出張のため不在にしております。\nお急ぎの場合は 03-1234-5678 までご連絡ください。'), ...toUs }, 'auto-reply'],
    ['sample 11e\'s text in a reply to us', { subject: 'Re: ログインできません', ...words(AUTO_ACK), ...toUs }, 'auto-reply'],
    ['a notice whose link has a query', { subject: 'Re: ログインできません', ...words('※このメールは自動送信されています。\n山田は11月25日まで不在にしております。\nよくあるご質問: https://www.customer.example/faq?id=12'), ...toUs }, 'auto-reply'],
    // A helpdesk's acknowledgement thanks first and says it is automatic on its second or third line (sample 82).
    ['a helpdesk acknowledgement, 自動でお送り on its second line (sample 82)', { subject: 'Re: CSVエクスポートの文字化け', ...words(HELPDESK_ACK), ...toUs }, 'auto-reply'],
    ['自動的に配信 on the third line', { subject: 'Re: ログインできません', ...words('いつもお世話になっております。\nお問い合わせを受け付けました。\n※本メールはシステムより自動的に配信されています。\n担当者よりご連絡いたします。'), ...toUs }, 'auto-reply'],
    ['自動で送付 on the second line', { subject: 'Re: ログインできません', ...words('お問い合わせありがとうございます。\nこのメールは受付確認のため自動で送付しています。'), ...toUs }, 'auto-reply'],
    ['the sentence on the fourth line is no opening', { subject: 'Re: ログインできません', ...words('ログインできません。\n昨日から続いています。\n再起動もしました。\n本メールは自動でお送りしております。'), ...toUs }, 'answer'],
    ['a notice on the second line, then the customer\'s question about it', { subject: 'Re: 請求について', ...words('いつもお世話になっております。\n本メールは自動でお送りしております。\nというメールが届きましたが、どういう意味でしょうか？'), ...toUs }, 'answer'],
    ['the customer\'s words above a notice pasted on the second line', { subject: 'Re: 請求について', ...words('下記のようなメールが届きました。支払い済みです。\n※このメールは自動送信されています。\nお支払いが確認できませんでした。'), ...toUs }, 'answer'],
    ['a web-form notification with the sentence on its second line (a new mail)', { subject: 'お問い合わせがありました', ...words('お問い合わせがありました。\n※本メールは自動でお送りしております。\nお問い合わせ内容：ログインできません。') }, 'answer'],
  ])('%s → %s', (_name, overrides, expected) => {
    expect(outcome(inboundMail(overrides))).toBe(expected);
  });

  it('quotes the opening up to the notice in the reason (sample 82)', () => {
    const decision = decideReply(inboundMail({ subject: 'Re: CSVエクスポートの文字化け', ...words(HELPDESK_ACK), ...toUs }), ctx);
    expect(decision.answer === false && ignoreReasonText(decision)).toBe(
      'auto-reply: the text begins “お問い合わせありがとうございます。 本メールは受付確認のため自動でお送りしております。” in a reply to our mail <our-reply-1@support.example>',
    );
  });

  it('decides alike from the signals a ticket records', async () => {
    const mail = await parseInboundMail(readFileSync(path.join(fixtures, 'reply-auto-sent-notice-ja.eml')), { extraHeaders: REPLY_SIGNAL_HEADERS });
    expect(decideReply(mail, ctx)).toMatchObject({ answer: false, reason: 'auto-reply' });
    const stored = JSON.parse(JSON.stringify(replySignalsOf(mail))) as NonNullable<ReturnType<typeof replySignalsOf>>;
    expect(decideReply({ ...stored, subject: mail.subject, inReplyTo: mail.inReplyTo, references: mail.references }, ctx)).toEqual(decideReply(mail, ctx));
  });
});

// The review's reproductions, whole mails decided from the signals a ticket records, as the agent worker decides.
describe('real questions beside a notice name, decided from the recorded signals', () => {
  function raw(subject: string, body: string, reply: boolean): Buffer {
    return Buffer.from(
      [
        'From: 山田 太郎 <taro@customer.example>',
        'To: support@support.example',
        `Subject: ${subject}`,
        'Message-ID: <m@customer.example>',
        ...(reply ? ['In-Reply-To: <our-1@support.example>', 'References: <our-1@support.example>'] : []),
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: 8bit',
        '',
        body,
        '',
      ].join('\r\n'),
      'utf8',
    );
  }
  it.each<[string, IgnoreReason | 'answer', Buffer]>([
    ['a new mail about the auto-reply feature, tag then a noun', 'answer', raw('【自動返信】機能が動作しない', '自動返信機能が動作しません。対処法を教えてください。', false)],
    ['a new mail, tag then a noun after a space', 'answer', raw('【自動返信】 メールの設定方法', 'お世話になっております。自動返信メールの設定方法を教えてください。', false)],
    ['a reply that pastes a notice it got, then asks about it', 'answer', raw('Re: 請求について', '※このメールは自動送信されています。\nお支払いの確認ができませんでした。\n\n↑このようなメールが届きましたが、支払い済みです。どういうことでしょうか？', true)],
    ['a new automatic acknowledgement (sample 11e)', 'auto-reply', raw('【自動返信】お問い合わせありがとうございます', '※本メールは送信専用アドレスから自動送信しております。\n\nこの度はお問い合わせいただき、誠にありがとうございます。', false)],
    ['an absence notice in a reply to us (sample 11d)', 'auto-reply', raw('Re: ログインできません', '※このメールは自動送信されています。\n山田は11月25日まで出張のため不在にしております。', true)],
  ])('%s → %s', async (_name, expected, mail) => {
    const parsed = await parseInboundMail(mail, { extraHeaders: [...REPLY_SIGNAL_HEADERS] });
    const stored = JSON.parse(JSON.stringify(replySignalsOf(parsed))) as NonNullable<ReturnType<typeof replySignalsOf>>;
    const decision = decideReply({ ...stored, subject: parsed.subject, inReplyTo: parsed.inReplyTo, references: parsed.references }, ctx);
    expect(decision.answer ? 'answer' : decision.reason).toBe(expected);
  });
});
