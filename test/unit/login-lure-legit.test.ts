/**
 * The login-lure hold reads a call to act as a lure only when it is addressed to the reader. A customer asks us to act
 * (「パスワードの再設定をお願いします」) or asks how they can (「どうすればよいでしょうか」, "Where do I …?"), and what a
 * customer quotes (「…」, "…", `>` lines, 「…と表示されました」) is a screen's words, neither addressed to them nor their
 * pressure (bug review 38 #1: three such mails, answered before 65c82e3, were held as `possible-phishing`). A forged
 * lure that tells the reader to log in or verify on a link, under a threat or a deadline, is still held.
 */
import { describe, expect, it } from 'vitest';
import { senderReviewReason } from '../../jobs/answer-ticket.js';
import { parseConfig } from '../../src/config.js';
import type { ReplySignals } from '../../src/mail/classify.js';

const config = parseConfig({ MAIL_FROM: 'support@helpdesk.example.jp' });
// A small company's own domain publishes no DMARC record: dmarc=none is the normal verdict for a genuine customer.
const CUSTOMER = 'yamada@customer-co.jp';
const CUSTOMER_NO_DMARC = 'mx1.helpdesk.example.jp; spf=pass smtp.mailfrom=customer-co.jp; dkim=none; dmarc=none header.from=customer-co.jp';
const PHISHER = 'info@secure-line.top';
const PHISHER_NO_DMARC = 'mx1.helpdesk.example.jp; dkim=none; spf=pass smtp.mailfrom=secure-line.top; dmarc=none header.from=secure-line.top';
const signals = (address: string, results: string): ReplySignals => ({
  from: { address, name: '' },
  replyTo: undefined,
  headers: { 'authentication-results': [results] },
  contentType: 'text/plain',
});
const holdOf = (from: string, results: string, question: string, subject = '') =>
  senderReviewReason({ from, replyTo: from, question, subject }, signals(from, results), config);

describe('login-lure hold: a customer\'s own request or question is no lure', () => {
  it.each<[string, string]>([
    // (a) A request to us, with the product's login URL for reference.
    ['bugrev38 lure-reset-request-today', 'お世話になっております。\n担当者が退職したため、管理者アカウントのパスワードの再設定をお願いします。\n本日中に対応いただけると助かります。\nログインURL: https://app.example-saas.com/login\n\nよろしくお願いいたします。'],
    ['a reset request asked as a question', '退職した担当者の管理者アカウントについて、パスワードの再設定をお願いできますでしょうか。24時間以内に請求処理があります。\nhttps://app.example-saas.com/login'],
    ['a reset request in してください form', '管理者アカウントのパスワードを再設定してください。本日中に対応をお願いします。\nログイン画面: https://app.example-saas.com/login'],
    // (b) A screen the customer quotes: its reader is the customer, its pressure the screen's.
    ['bugrev38 lure-quoted-screen', 'いつもお世話になっております。\n本日ログインしようとしたところ、「お客様のアカウントは一時的にロックされています」と表示されました。\n本人確認が必要とのことですが、https://app.example-saas.com/login から先に進めません。\nどうすればよいでしょうか。\n\n山田'],
    ['a quoted screen with its deadline, asked as a question', '「お客様のアカウントは24時間以内に停止されます」と表示されています。本人確認が必要と言われますが、https://app.example-saas.com/login で何をすればよいですか？'],
    ['a screen quoted in > lines', '画面に次のように表示されます。\n> お客様のアカウントはロックされています。24時間以内に本人確認を完了してください。\nhttps://app.example-saas.com/login\nどうすればよいでしょうか。'],
    ['an English screen quoted in > lines', 'The login page https://app.example-saas.com/login shows:\n> Your account has been locked. Verify your identity within 24 hours.\nWhat should I do?'],
    // (c) A question to us, beside the customer's own account's state.
    ['bugrev38 lure-en-card', 'Hi,\nOur subscription renewal failed and the dashboard says our account will be suspended within 24 hours. Where do I update your payment details? The billing page https://billing.stripe.com/p/session/xyz shows an error.\nThanks,\nTaro'],
    ['"How can I update your payment details?", no "our"', 'The dashboard says the account will be suspended within 24 hours. How can I update your payment details? https://billing.stripe.com/p/session/xyz'],
    ['"our account will be locked", "How do we verify your account?"', 'Our account will be locked within 24 hours. How do we verify your account? https://app.example-saas.com/login'],
    ['お支払い情報の更新が必要, asked where', '管理画面に、24時間以内にアカウントが停止されると出ています。お支払い情報の更新が必要とのことですが、どこから行えばよいですか？ https://billing.stripe.com/p/session/xyz'],
    ['カード情報の更新が必要と表示され, 教えてください', '本日中にアカウントが停止されるそうで、カード情報の更新が必要と表示されます。更新手順を教えてください。https://billing.stripe.com/p/session/xyz'],
  ])('%s: not held', (_what, question) => {
    expect(holdOf(CUSTOMER, CUSTOMER_NO_DMARC, question)).toBeUndefined();
  });
});

describe('login-lure hold: a lure addressed to the reader is still held', () => {
  it.each<[string, string]>([
    ['quotes nothing, asks nothing', 'アカウントのご利用を一時的に制限しております。24時間以内に下記のリンクからログインしてください。\nhttps://secure-line.top/login'],
    ['下記URLからログインしてください, 本日中, お客様', 'お客様のアカウントで不審なアクセスを検知しました。下記URLからログインしてください。本日中に確認がない場合アカウントを停止します。\nhttps://secure-line.top/login'],
    ['a request with no link words in its sentence, the reader\'s own act', 'ご本人確認をお願いします。24時間以内に確認がない場合、アカウントを停止します。\nhttps://secure-line.top/verify'],
    ['a request with a threat if the reader does not act', 'アカウントの確認をお願いします。本日中に確認がない場合、アカウントを停止いたします。\nhttps://secure-line.top/verify'],
    ['a request to the reader as a question', '24時間以内に下記のリンクから本人確認を完了していただけますか？お客様のアカウントは制限されています。\nhttps://secure-line.top/verify'],
    ['an English request to the reader as a question', 'Can you verify your account within 24 hours so we can restore your access? Your account has been limited. https://secure-line.top/verify'],
    ['an English lure that quotes nothing', 'Your account has been suspended. Please verify your identity within 24 hours: https://secure-line.top/verify'],
    ['the lure\'s call and deadline outside its quoted label', '「重要なお知らせ」\n本日中に下記のリンクよりパスワードの再設定をお願いします。期限を過ぎるとアカウントが停止されます。\nhttps://secure-line.top/reset'],
    // Bug review 38b #2: held at 832399b, let through by cb4b6bd. A verification is the reader's act, a request to us
    // names the account it is about, a question is the writer's own only beside no reader's account, and `>` lines
    // quote someone only beside text of the writer's own.
    ['アカウントの確認をお願いいたします, the link and deadline in the next sentence', 'セキュリティ強化のため、アカウントの確認をお願いいたします。\n下記リンクより24時間以内に手続きしてください。\nhttps://secure-line.top/login'],
    ['アカウント情報の更新をお願いいたします, ご利用のアカウントは制限', 'アカウント情報の更新をお願いいたします。ご利用のアカウントは制限されています。\nhttps://secure-line.top/login'],
    ['パスワードの再設定をお願いします naming no account, 24時間以内', 'パスワードの再設定をお願いします。24時間以内にお願いします。\nhttps://secure-line.top/reset'],
    ['ご本人確認をお願いします, the deadline in the next sentence', 'ご本人確認をお願いします。\n24時間以内に下記リンクより手続きしてください。\nhttps://secure-line.top/verify'],
    ['"How do I verify your account?" beside "Your account has been suspended"', 'Your account has been suspended. How do I verify your account? Click here: https://secure-line.top/verify'],
    ['the call in a > line beside the lure\'s own threat', 'Your account will be suspended within 24 hours.\n> Please verify your account at https://secure-line.top/verify'],
    ['nothing but > lines', '> Your account has been suspended.\n> Please verify your account within 24 hours: https://secure-line.top/verify'],
    ['nothing but > lines, in Japanese', '> お客様のアカウントを一時的に制限しております。\n> 24時間以内に下記リンクより本人確認をお願いします。\n> https://secure-line.top/verify'],
  ])('%s: held', (_what, question) => {
    expect(holdOf(PHISHER, PHISHER_NO_DMARC, question)?.kind).toBe('possible-phishing');
  });
});

// Bug review 46a, finding 2: a customer's own server named by its address and port is no link to follow; a lure's
// address link has a path (the review's lures all have one).
describe('login-lure hold: a customer\'s own server address and port is no lure link', () => {
  it.each<[string, string]>([
    ['their server\'s address and port, a lock-out and 本日中', '弊社サーバー 203.0.113.5:8443 の管理画面を開くとアカウントがロックされたと表示されます。本日中に解除をお願いします。ログインの確認をお願いします。'],
    ['… reached by アクセス', '弊社サーバー 203.0.113.5:8443 の管理画面にアクセスするとアカウントがロックされたと表示されます。本日中に解除をお願いします。ログインの確認をお願いします。'],
    // Beside ブラウザ the address is a link the draft check reads, but no page: a lure sends the reader to one.
    ['… opened in a browser', 'ブラウザで 203.0.113.5:8443 を開くとアカウントがロックされたと表示されます。本日中に解除をお願いします。ログインの確認をお願いします。'],
    ['a frozen account, a deadline, a server\'s port', 'アカウントが凍結されました。本日中にパスワードの更新をお願いします。サーバー 198.51.100.7:443 です。'],
    ['an English lock-out beside their server\'s address and port', 'Your account has been locked. Please verify your account within 24 hours. Our server is 203.0.113.5:8443.'],
  ])('%s: not held', (_what, question) => {
    expect(holdOf(CUSTOMER, CUSTOMER_NO_DMARC, question)).toBeUndefined();
  });
  it.each<[string, string]>([
    ['an address link with a path', 'お客様のアカウントが制限されています。24時間以内に 203.0.113.77/verify でログインの確認をお願いします。'],
    ['a host written with 。 and a path', 'ご利用のアカウントが停止されています。本日中に本人確認をお願いします。xyz-verify。com/login'],
  ])('%s: held', (_what, question) => {
    expect(holdOf(PHISHER, PHISHER_NO_DMARC, question)?.kind).toBe('possible-phishing');
  });
});
