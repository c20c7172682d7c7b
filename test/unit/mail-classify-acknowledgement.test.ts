/**
 * A reply whose own words only thank or acknowledge (「ありがとうございました。」, "Thanks, that fixed it!",
 * 「承知しました。試してみます。」) closes a conversation: it is ignored as `acknowledgement`, with no agent run and no
 * reply. Only a closed list of such sentences counts; anything more, a question mark, a new mail (whose subject may be
 * the question) or an attachment is answered as before.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decideReply, ignoreReasonText, REPLY_SIGNAL_HEADERS, replySignalsOf } from '../../src/mail/classify.js';
import { parseInboundMail, type InboundMail } from '../../src/mail/parse.js';

const ctx = { ourAddresses: ['Helpdesk <support@support.example>'], loopMarker: 'helpdesk-worker' };
const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/mail');

/** A customer's reply to our reply, whose own words (the question) a row sets. */
function replyWith(question: string, overrides: Partial<InboundMail> = {}): InboundMail {
  return {
    messageId: '<m2@customer.example>',
    from: { address: 'taro.yamada@customer.example', name: '山田 太郎' },
    replyTo: undefined,
    to: [{ address: 'support@support.example', name: '' }],
    cc: [],
    subject: 'Re: ログインできません',
    date: undefined,
    inReplyTo: '<our-reply-1@support.example>',
    references: ['<q-1@customer.example>', '<our-reply-1@support.example>'],
    headers: {},
    contentType: 'text/plain',
    text: question,
    question,
    attachments: [],
    parseWarnings: [],
    ...overrides,
  };
}

describe('a reply that only thanks or acknowledges', () => {
  it.each<[string, string, Partial<InboundMail>?]>([
    ['thanks alone (sample 17)', 'ありがとうございました。'],
    ['thanks in English (sample 17b)', 'Thanks, that fixed it!'],
    ['Outlook 365, several short sentences (sample 06b)', '確認しました。解決しました！ありがとうございました。'],
    ['an acknowledgement and the sender\'s name under it (sample 34)', '承知しました。試してみます。\n\n山田'],
    ['solved (sample 35)', '解決しました。'],
    ['greeting, self-introduction, thanks and closing', 'お世話になっております。山田です。\n早速のご回答ありがとうございます。無事に解決しました。\n今後ともよろしくお願いいたします。'],
    ['addressed to us, thanks, full name', 'サポートご担当者様\n\nご丁寧なご回答をいただき、誠にありがとうございました。\n\n山田 太郎'],
    ['full-width exclamation marks and a space between sentences', '了解しました！ 助かりました！'],
    ['English with a greeting and a sign-off', 'Hi team,\n\nThank you so much for your help, it works now.\n\nBest regards,\nTaro', { from: { address: 'taro@customer.example', name: 'Taro Yamada' } }],
    ['English short acknowledgement', 'Got it, thanks!'],
    ['a greeting of thanks beside an acknowledgement', 'いつもありがとうございます。承知しました。'],
    // Mail audit 6, sample 433: 「清水運輸 清水」 under the thanks, a company's name before the sender's.
    ['a company line under the thanks', 'ありがとうございました。\n\n株式会社カスタマー 山田'],
  ])('%s is ignored as an acknowledgement', (_name, question, overrides) => {
    const decision = decideReply(replyWith(question, overrides), ctx);
    expect(decision).toMatchObject({ answer: false, reason: 'acknowledgement' });
    if (!decision.answer) expect(ignoreReasonText(decision)).toMatch(/^acknowledgement: /);
  });

  it.each<[string, string, Partial<InboundMail>?]>([
    ['thanks, but the error is still there', 'ありがとうございます。ただ、まだエラーが出ます'],
    ['thanks and a follow-up question', 'ありがとうございました。もう一点、CSVの出力方法を教えてください。'],
    ['a question mark, even after thanks', 'ありがとうございます。これで大丈夫でしょうか？'],
    ['a question mark in English', 'Thanks! Does this also work on mobile?'],
    ['thanks, but in English it still fails', 'Thanks, but it still fails.'],
    ['a request without a question mark', '承知しました。見積書を送ってください。'],
    ['"I tried it" says nothing of the outcome', '試してみました。'],
    ['a closing alone is no acknowledgement', 'よろしくお願いいたします。'],
    ['a greeting alone is no acknowledgement', 'お世話になっております。'],
    ['a name that is not the sender\'s', '承知しました。\n\n鈴木'],
    // A company's name before the sender's is a signature line (mail audit 6, sample 433), a sentence there is not.
    ['a company line with a fault under the thanks', 'ありがとうございました。\n\nまだエラーが出ます 山田'],
    ['a word that merely ends like a form of address', 'ありがとうございます。状況は前回と同様。'],
    ['thanks in a new mail (its subject may be the question)', 'ありがとうございました。', { inReplyTo: undefined, references: [], subject: 'パスワードの再設定' }],
    ['thanks with a screenshot attached', 'ありがとうございます。', { attachments: [{ filename: 'error.png', contentType: 'image/png', size: 20_000 }] }],
    ['an empty question', ''],
    ['a long run of thanks is no short acknowledgement', 'ありがとうございます。'.repeat(40)],
    // 「いつもありがとうございます」 opens a letter as 「いつもお世話になっております」 does: a greeting, no thanks for an answer.
    ['a greeting of thanks and a closing, the request in a changed subject', 'いつもありがとうございます。\nよろしくお願いいたします。\n山田', { subject: '請求書の再発行をお願いしたい' }],
    ['a greeting of thanks alone', 'いつも大変ありがとうございます。'],
  ])('%s is answered', (_name, question, overrides) => {
    expect(decideReply(replyWith(question, overrides), ctx)).toEqual({ answer: true });
  });

  it('keeps the more specific reasons first: an auto-reply that thanks is an auto-reply', () => {
    const decision = decideReply(replyWith('ありがとうございました。', { headers: { 'auto-submitted': ['auto-replied'] } }), ctx);
    expect(decision).toMatchObject({ answer: false, reason: 'auto-reply' });
  });

  it('reads a thank-you mail end to end, and decides alike from the signals the ticket records', async () => {
    const mail = await parseInboundMail(readFileSync(path.join(fixtures, 'reply-thanks-ja.eml')), { extraHeaders: REPLY_SIGNAL_HEADERS });
    expect(decideReply(mail, ctx)).toMatchObject({ answer: false, reason: 'acknowledgement' });
    const stored = JSON.parse(JSON.stringify(replySignalsOf(mail))) as NonNullable<ReturnType<typeof replySignalsOf>>;
    // The agent worker decides on the recorded signals and the ticket's subject and thread, without the text.
    const decision = decideReply({ ...stored, subject: mail.subject, inReplyTo: mail.inReplyTo, references: mail.references }, ctx);
    expect(decision).toEqual(decideReply(mail, ctx));
    if (!decision.answer) expect(ignoreReasonText(decision)).toContain('ありがとうございました');
  });

  it('answers a thank-you mail that goes on to report the error is still there', async () => {
    const mail = await parseInboundMail(readFileSync(path.join(fixtures, 'reply-thanks-but-ja.eml')), { extraHeaders: REPLY_SIGNAL_HEADERS });
    expect(decideReply(mail, ctx)).toEqual({ answer: true });
    expect(replySignalsOf(mail)).not.toHaveProperty('acknowledgement');
  });
});
