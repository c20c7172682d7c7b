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

const ctx = { ourAddresses: ['Helpdesk <support@support.example>', 'help@support.example'], loopMarker: 'helpdesk-worker' };
const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/mail');

function mailWith(overrides: Partial<InboundMail> = {}): InboundMail {
  return {
    messageId: '<m1@customer.example>',
    from: { address: 'taro@customer.example', name: 'Taro' },
    replyTo: undefined,
    to: [{ address: 'support@support.example', name: '' }],
    cc: [],
    subject: 'Question',
    date: undefined,
    inReplyTo: undefined,
    references: [],
    headers: {},
    contentType: 'text/plain',
    text: 'ログインできません。どうすればよいですか。',
    question: 'ログインできません。どうすればよいですか。',
    attachments: [],
    parseWarnings: [],
    ...overrides,
  };
}

const toUs = { inReplyTo: '<our-reply-1@support.example>', references: ['<our-reply-1@support.example>'] };
const toSomeoneElse = { inReplyTo: '<q-1@customer.example>', references: ['<q-1@customer.example>'] };

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
  ])('%s → %s', (_name, overrides, expected) => {
    expect(outcome(mailWith(overrides))).toBe(expected);
    if (expected !== 'answer') expect(decideReply(mailWith(overrides), ctx)).toMatchObject({ detail: `Subject: ${overrides.subject}` });
  });
});

// The subject and the text are a stranger's: the tag and the notice are found in one pass whatever they hold.
it.each<[string, Partial<InboundMail>, IgnoreReason | 'answer']>([
  ['a run of opening brackets', { subject: '【'.repeat(300_000) }, 'answer'],
  ['reply prefixes, then a tag', { subject: `${'re: '.repeat(100_000)}【自動返信】` }, 'answer'],
  ['a prefix, spaces, a word, then a tag', { subject: `re:${' '.repeat(300_000)}x【自動返信】` }, 'auto-reply'],
  ['the start of a notice, then spaces', { subject: 'Re: s', question: `このメールは${' '.repeat(300_000)}`, ...toUs }, 'answer'],
])('a hostile mail (%s) is decided in one pass', { timeout: 20_000 }, (_what, overrides, expected) => {
  expect(outcome(mailWith(overrides))).toBe(expected);
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
    expect(outcome(mailWith(overrides))).toBe(expected);
  });

  it('says it is a read receipt', () => {
    const decision = decideReply(mailWith({ subject: '開封済み: Re: ログインできません', ...toUs }), ctx);
    expect(decision.answer === false && ignoreReasonText(decision)).toBe('read receipt: Subject: 開封済み: Re: ログインできません');
  });
});

describe('own words that begin by saying the mail was sent automatically', () => {
  const notice = '※このメールは自動送信されています。\n山田は11月25日まで出張のため不在にしております。\nご返信が遅れますことをご了承ください。';
  const webForm = '※このメールは自動送信されています。\n\nお名前：鈴木 花子\nお問い合わせ内容：ログインできません。対処方法を教えてください。';
  it.each<[string, Partial<InboundMail>, IgnoreReason | 'answer']>([
    ['in a reply to our reply, the subject echoed (sample 11d)', { subject: 'Re: ログインできません', question: notice, text: notice, ...toUs }, 'auto-reply'],
    ['本メールは自動返信です in a reply known by References only', { subject: 'Re: ログインできません', question: `本メールは自動返信です。\n${notice}`, references: ['<our-reply-1@support.example>'] }, 'auto-reply'],
    // A web form's notification carries the same sentence, and is a question: never decided on the sentence alone.
    ['a web-form notification (a new mail)', { subject: 'お問い合わせがありました', question: webForm, text: webForm }, 'answer'],
    ['in a reply to someone else\'s mail', { subject: 'Re: ログインできません', question: notice, text: notice, ...toSomeoneElse }, 'answer'],
    ['the sentence further down a reply to us', { subject: 'Re: ログインできません', question: `ログインできません。\n${notice}`, ...toUs }, 'answer'],
  ])('%s → %s', (_name, overrides, expected) => {
    expect(outcome(mailWith(overrides))).toBe(expected);
  });

  it('decides alike from the signals a ticket records', async () => {
    const mail = await parseInboundMail(readFileSync(path.join(fixtures, 'reply-auto-sent-notice-ja.eml')), { extraHeaders: REPLY_SIGNAL_HEADERS });
    expect(decideReply(mail, ctx)).toMatchObject({ answer: false, reason: 'auto-reply' });
    const stored = JSON.parse(JSON.stringify(replySignalsOf(mail))) as NonNullable<ReturnType<typeof replySignalsOf>>;
    expect(decideReply({ ...stored, subject: mail.subject, inReplyTo: mail.inReplyTo, references: mail.references }, ctx)).toEqual(decideReply(mail, ctx));
  });
});
