/**
 * Challenge-response mail: a customer's spam guard (SpamArrest, Boxbe, BoxTrapper, Bluebottle, TMDA, Mailinblack, a
 * Japanese 「送信者確認」 service) holds our reply and asks us to confirm that we are a sender. It is no question for
 * the agent, and no notice to drop: the agent worker parks it so a person may confirm, and our reply reaches the
 * customer. Known by a header only those systems write, by a subject that is one of their templates whole, or, in a
 * reply to one of our own Message-IDs, by own words that open by asking for verification and saying a mail is held.
 * A customer asking how to verify an address is a question, and stays one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  decideReply,
  outrankedBySenderVerification,
  REPLY_SIGNAL_HEADERS,
  replySignalsOf,
  senderVerificationOf,
  type ReplyDecision,
} from '../../src/mail/classify.js';
import { parseInboundMail, type InboundMail } from '../../src/mail/parse.js';
import { inboundMail } from '../support/inbound-mail.js';

const ctx = { ourAddresses: ['Helpdesk <support@support.example>', 'help@support.example'] };
const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/mail');


const OUR_REPLY = '<our-reply-1@support.example>';
const toUs = { inReplyTo: OUR_REPLY, references: ['<q-1@customer.example>', OUR_REPLY] };
const toSomeoneElse = { inReplyTo: '<q-1@customer.example>', references: ['<q-1@customer.example>'] };
const words = (question: string): Partial<InboundMail> => ({ question, text: question });

const held = (overrides: Partial<InboundMail>): boolean => senderVerificationOf(inboundMail(overrides), ctx) !== undefined;

// What the guards write, from their templates (TMDA's confirm_request.txt, BoxTrapper's verify form, Boxbe's and
// Bluebottle's notices, SpamArrest's request) and the audit's Japanese sample.
const JA_GUARD = 'あなたが taro@customer.example 宛に送信したメールは保留されています。\n迷惑メール対策のため、送信者の確認を行っております。\n以下のURLをクリックしてください。';
const JA_GUARD_NO_HOLD = '迷惑メール対策のため、送信者の確認を行っております。\n以下のURLをクリックしてください。';
const BOXBE = 'Hello John Smith,\n\nYour message about "Cannot log in" has been waitlisted.\n\nPlease add yourself to my Boxbe Guest List so your messages will go to my Inbox.\n\nhttps://www.boxbe.example/crs?tc=1234';
const BOXTRAPPER = 'The message you sent requires that you verify that you are a real live human being and not a spam source.\n\nhttps://mail.customer.example/cgi-sys/bxd.cgi?id=abc';
const TMDA = 'Your e-mail message with the subject of "Re: Cannot log in"\nwas not delivered because your address was not recognized.\n\nTo release your message for delivery, please send an empty message\nto the following address, or use your mailer\'s "Reply" feature.';
const BLUEBOTTLE = 'This account is protected by Bluebottle.  Please click on the\nfollowing link to have your address added to the recipient\'s allowed\nlist and to ensure delivery of your email.';
const SPAMARREST = 'I apologize for this automatic reply to your email.\n\nTo control spam, I now allow incoming messages only from senders I have approved beforehand.\n\nIf you would like to be added to my list of approved senders, please fill out the short request form.';

describe('a spam guard asking us to confirm that we are a sender', () => {
  it.each<[string, Partial<InboundMail>]>([
    // Subjects that are a guard's template whole: its request, then the subject of the held reply (ours: "Re: …").
    ['25b: "Please verify your email: Re: …", no In-Reply-To', { subject: 'Please verify your email: Re: Cannot log in' }],
    ['"Please verify your email address - Re: …"', { subject: 'Please verify your email address - Re: Cannot log in' }],
    ['「送信者確認のお願い：Re: …」', { subject: '送信者確認のお願い：Re: ログインできません' }],
    ['「差出人の確認のお願い」 quoting our subject in 「」', { subject: '差出人の確認のお願い「Re: ログインできません」' }],
    ['25: a 【送信者確認】 tag opening the subject', { subject: '【送信者確認】メールアドレスの確認をお願いします' }],
    ['a ［差出人確認］ tag in full-width brackets', { subject: '［差出人確認］お送りいただいたメールについて' }],
    ['cPanel BoxTrapper\'s subject', { subject: 'Your email requires verification verify#rytsCpsStxBOz1ckg2wcT-1755808398' }],
    ['BoxTrapper\'s subject behind a filter\'s tag', { subject: '[SPAM] Your email requires verification verify#abc123' }],
    ['"Unverified email to …"', { subject: 'Unverified email to hanako@customer.example' }],
    ['"Your mail to … requires confirmation"', { subject: 'Your mail to hanako@customer.example requires confirmation' }],
    // Headers only those systems write.
    ['SpamArrest\'s X-Spamarrest-noauth', { subject: 'Re: Cannot log in', headers: { 'x-spamarrest-noauth': ['1'] }, ...words(SPAMARREST) }],
    ['BoxTrapper\'s X-Boxtrapper beside X-Autorespond', { subject: 'Re: Cannot log in', headers: { 'x-boxtrapper': ['k2pG7w'], 'x-autorespond': ['k2pG7w'] } }],
    ['Bluebottle\'s X-Bluebottle-Request (its subject is the held mail\'s own)', { subject: 'RE: Cannot log in', headers: { 'x-bluebottle-request': ['<1234>'] }, ...words(BLUEBOTTLE) }],
    ['ChoiceMail\'s X-Choicemail-Registration-Request', { headers: { 'x-choicemail-registration-request': ['yes'] } }],
    ['TMDA\'s confirmation request: its X-Delivery-Agent on an auto-reply', { subject: 'Please confirm your message', headers: { 'x-delivery-agent': ['TMDA/1.1.12 (Macallan)'], 'auto-submitted': ['auto-replied'], precedence: ['bulk'] } }],
    ['Mailinblack\'s MIME boundary', { contentType: 'multipart/alternative', headers: { 'content-type': ['multipart/alternative; boundary="----=_mUlTiPaRtBoUnDaRy_MailInBlack_1a2b"'] } }],
    // In a reply to our reply: the opening asks for verification and says a mail is held.
    ['25\'s text in a reply to our reply', { subject: 'ご確認ください', ...toUs, ...words(JA_GUARD) }],
    ['Boxbe\'s notice in a reply to our reply', { subject: 'Re: Cannot log in', ...toUs, ...words(BOXBE) }],
    ['BoxTrapper\'s text in a reply to our reply', { subject: 'Re: Cannot log in', ...toUs, ...words(BOXTRAPPER) }],
    ['TMDA\'s text in a reply to our reply', { subject: 'Re: Cannot log in', ...toUs, ...words(TMDA) }],
    ['Bluebottle\'s text in a reply to our reply', { subject: 'RE: Cannot log in', ...toUs, ...words(BLUEBOTTLE) }],
    ['SpamArrest\'s text in a reply known by References only', { subject: 'Re: Cannot log in', references: [OUR_REPLY], ...words(SPAMARREST) }],
    ['25b\'s text in a reply to our reply', { subject: 'Re: Cannot log in', ...toUs, ...words('Hello,\n\nJane Doe is using a service to block unwanted email. To deliver your message, please verify your email address by clicking the link below.') }],
    // In a reply to our reply, a subject naming the request is enough (its text may be a link only).
    ['「送信者確認のお願い」 alone in a reply to our reply', { subject: '送信者確認のお願い', ...toUs, ...words(JA_GUARD_NO_HOLD) }],
    ['"Please verify your email address" alone in a reply to our reply', { subject: 'Please verify your email address', ...toUs, ...words('https://guard.example/v/123') }],
  ])('%s is held for a person', (_name, overrides) => {
    expect(senderVerificationOf(inboundMail(overrides), ctx)).toBeDefined();
  });

  it.each<[string, Partial<InboundMail>]>([
    // Customers asking about verification: questions, new or in a reply.
    ['「メールアドレスの確認メールが届きません」', { subject: 'メールアドレスの確認メールが届きません', ...words('登録したのにメールアドレスの確認メールが届きません。どうすればよいですか。') }],
    ['"How do I verify my email address?"', { subject: 'How do I verify my email address?', ...words('How do I verify my email address? The link in the app does nothing.') }],
    ['an app\'s bare "Please verify your email address" pasted as a new mail\'s subject', { subject: 'Please verify your email address', ...words('The app keeps showing this although I clicked the link yesterday.') }],
    ['the same with a question mark', { subject: 'Please verify your email address?', ...toUs, ...words('The app says this. What should I do?') }],
    ['a reply asking again about verifying', { subject: 'Re: How do I verify my email address?', ...toUs, ...words('I still cannot verify my email address. The verification link does nothing.') }],
    ['a reply quoting the app\'s words', { subject: 'Re: Cannot log in', ...toUs, ...words('The app says "Please verify your email address" but I already did. What now?') }],
    ['a reply asking where sender verification is set', { subject: 'Re: 設定について', ...toUs, ...words('送信者確認の設定はどこでできますか？') }],
    ['a reply saying the verification mail does not arrive', { subject: 'Re: 設定について', ...toUs, ...words('送信者の確認メールが届きません。') }],
    // Both a verification and a held mail in a customer's question: a question mark says it is one.
    ['a reply asking what to do about a held order and a missing verification mail', { subject: 'Re: 注文について', ...toUs, ...words('ご回答ありがとうございます。送信者の確認メールが届かず、注文が保留のままです。どうすればよいですか？') }],
    ['the same in English', { subject: 'Re: Your order', ...toUs, ...words('Thanks for your answer. The sender verification mail never arrived, so your message is still pending in my inbox. What should I do?') }],
    ['「【送信者確認】について」: a particle after the tag', { subject: '【送信者確認】について', ...words('この表示は何ですか。') }],
    ['「送信元確認のお願い」: a customer asking whether a mail was ours', { subject: '送信元確認のお願い：御社を名乗るメールについて', ...words('御社を名乗るメールが届きました。本物でしょうか。') }],
    ['a subject naming the request in a new mail without our subject behind it', { subject: '送信者確認のお願い', ...words(JA_GUARD_NO_HOLD) }],
    // A guard's mail the customer forwards or replies to, to ask about it: behind their own prefix.
    ['a forwarded challenge', { subject: 'Fwd: Please verify your email: Re: Cannot log in', ...words(`What is this?\n\n---------- Forwarded message ----------\n${BOXBE}`) }],
    ['a reply to a challenge', { subject: 'Re: 【送信者確認】メールアドレスの確認をお願いします', ...toSomeoneElse }],
    // A guard's words without the mail answering ours: a customer pasting one into a question.
    ['the guard\'s text in a new mail', { subject: 'これは何ですか', ...words(JA_GUARD) }],
    ['the guard\'s text in a reply to someone else\'s mail', { subject: 'Re: Cannot log in', ...toSomeoneElse, ...words(BOXBE) }],
    ['the guard\'s text further down a reply to us', { subject: 'Re: Cannot log in', ...toUs, ...words(`Thanks, but the login still fails with error E-1024 after the update, on both my laptop and my phone, and resetting the password did not help either. Our IT department checked the proxy settings and the firewall as well, and they see nothing blocked on their side. It also fails in a private browser window and with another browser. Could you look at my account again please, and tell me what else I can try?\n\n${BOXBE}`) }],
    // Headers that also come on other mail.
    ['a TMDA user\'s own mail (X-Delivery-Agent, no Auto-Submitted)', { headers: { 'x-delivery-agent': ['TMDA/1.0.3 (Seattle Slew)'] } }],
    ['X-Boxtrapper alone: BoxTrapper forwarding a delivered mail', { headers: { 'x-boxtrapper': ['k2pG7w'] } }],
    ['an ordinary multipart boundary', { contentType: 'multipart/alternative', headers: { 'content-type': ['multipart/alternative; boundary="000000000000abcdef"'] } }],
  ])('%s is not', (_name, overrides) => {
    expect(held(overrides)).toBe(false);
  });

  it('names what decided and the Message-IDs of ours it answers, In-Reply-To first', () => {
    expect(senderVerificationOf(inboundMail({ subject: '【送信者確認】メールアドレスの確認をお願いします', ...toUs, references: [OUR_REPLY, '<older@support.example>'] }), ctx)).toEqual({
      detail: 'Subject: 【送信者確認】メールアドレスの確認をお願いします',
      ourMessageIds: [OUR_REPLY, '<older@support.example>'],
    });
    expect(senderVerificationOf(inboundMail({ subject: 'x', headers: { 'x-spamarrest-noauth': ['1'] } }), ctx)).toEqual({ detail: 'X-Spamarrest-noauth: 1', ourMessageIds: [] });
    expect(senderVerificationOf(inboundMail({ subject: 'Re: Cannot log in', ...toUs, ...words(BOXBE) }), ctx)?.detail).toBe('the text begins “Hello John Smith, Your message about "Cannot log in" has been waitlisted. Please…”');
  });

  // The opening's words alone may be a customer's (their question without a question mark): they park the request, but
  // only a header or a template subject is evidence enough to mark our reply as not arrived.
  it.each<[string, true | undefined, Partial<InboundMail>]>([
    ['a header', undefined, { subject: 'Re: Cannot log in', headers: { 'x-spamarrest-noauth': ['1'] }, ...words(SPAMARREST) }],
    ['a template subject', undefined, { subject: '【送信者確認】メールアドレスの確認をお願いします', ...toUs, ...words(JA_GUARD) }],
    ['a subject that is the request alone, in a reply to ours', undefined, { subject: '送信者確認のお願い', ...toUs, ...words(JA_GUARD_NO_HOLD) }],
    ["the text's opening alone", true, { subject: 'ご確認ください', ...toUs, ...words(JA_GUARD) }],
    ["Boxbe's text, its link's query aside", true, { subject: 'Re: Cannot log in', ...toUs, ...words(BOXBE) }],
  ])('held by %s: wordsOnly is %s', (_name, wordsOnly, overrides) => {
    expect(senderVerificationOf(inboundMail(overrides), ctx)).toMatchObject({ ourMessageIds: expect.any(Array) });
    expect(senderVerificationOf(inboundMail(overrides), ctx)?.wordsOnly).toBe(wordsOnly);
  });

  it.each<[string, Partial<InboundMail>]>([
    ['a run of opening brackets', { subject: '【'.repeat(300_000) }],
    ['a long request without the held subject', { subject: `Please verify your email${' '.repeat(300_000)}x` }],
    ['a guard\'s words repeated in a reply to us', { subject: 'Re: x', ...toUs, ...words('your message '.repeat(100_000)) }],
    ['spaces in a reply to us', { subject: 'Re: x', ...toUs, ...words(`送信者${' '.repeat(300_000)}`) }],
  ])('a hostile mail (%s) is decided in one pass', { timeout: 20_000 }, (_what, overrides) => {
    expect(held(overrides)).toBe(false);
  });
});

describe('what a sender verification outranks', () => {
  it.each<[ReplyDecision, boolean]>([
    [{ answer: true }, true],
    // Guards mark their request as an automatic reply (TMDA, BoxTrapper) or send it from a no-reply address: parked
    // all the same, for a person may confirm.
    [{ answer: false, reason: 'auto-reply', detail: 'Auto-Submitted: auto-replied' }, true],
    [{ answer: false, reason: 'no-reply-sender', detail: 'From: noreply@guard.example' }, true],
    [{ answer: false, reason: 'no-sender', detail: 'no address in From or Reply-To' }, true],
    [{ answer: false, reason: 'acknowledgement', detail: 'thanks' }, true],
    // Stronger evidence stands: a bounce marks our reply itself; a list, spam, a loop or our own mail is never held.
    [{ answer: false, reason: 'bounce', detail: 'Content-Type: multipart/report' }, false],
    [{ answer: false, reason: 'list', detail: 'List-Id: <x>' }, false],
    [{ answer: false, reason: 'spam', detail: 'X-Spam-Flag: YES' }, false],
    [{ answer: false, reason: 'loop', detail: 'X-Loop: support@support.example' }, false],
    [{ answer: false, reason: 'own-address', detail: 'From: support@support.example' }, false],
  ])('%o → %s', (decision, outranked) => {
    expect(outrankedBySenderVerification(decision)).toBe(outranked);
  });
});

describe('the samples, and the signals a ticket records', () => {
  it.each<[file: string, detail: string, ours: string[], decided: ReturnType<typeof decideReply>['answer'] | 'auto-reply']>([
    ['challenge-spamguard-ja.eml', 'Subject: 【送信者確認】メールアドレスの確認をお願いします', [OUR_REPLY], true],
    ['challenge-boxbe-en.eml', 'Subject: Please verify your email: Re: Cannot log in', [], true],
    ['challenge-boxtrapper.eml', 'X-Boxtrapper: k2pG7wXZewdqT_cpWr7qQmZd3i90dZGv', ['<our-reply-2@support.example>'], 'auto-reply'],
  ])('%s is held, by its %s', async (file, detail, ours, decided) => {
    const mail = await parseInboundMail(readFileSync(path.join(fixtures, file)), { extraHeaders: REPLY_SIGNAL_HEADERS });
    const decision = decideReply(mail, ctx);
    expect(decision.answer ? true : decision.reason).toBe(decided);
    expect(senderVerificationOf(mail, ctx)).toEqual({ detail, ourMessageIds: ours });
    // The agent worker decides from the ticket: its signals as stored, its subject, thread and question.
    const stored = JSON.parse(JSON.stringify(replySignalsOf(mail))) as NonNullable<ReturnType<typeof replySignalsOf>>;
    const fromTicket = { ...stored, subject: mail.subject, inReplyTo: mail.inReplyTo, references: mail.references, question: mail.question };
    expect(senderVerificationOf(fromTicket, ctx)).toEqual(senderVerificationOf(mail, ctx));
  });
});
