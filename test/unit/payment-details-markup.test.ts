/**
 * Security review 12's left-overs (fix 44k): an account written with HTML-like inline tags (765<b>4321</b>,
 * <b>口座番号</b>：7654321, 7654<!-- -->321), strikethrough or highlight marks (~~7654321~~, ==7654321==) or nested
 * marks (**_7654321_**, **`7654321`**) was read as no number. The draft check's reading drops inline formatting tags
 * and empty comments everywhere, and peels nested marks around a number or a label, so every rule sees through them;
 * what a manual writes in HTML or markdown stays none.
 */
import { describe, expect, it } from 'vitest';
import { foreignFindings, foreignLinks, type AllowedLinks } from '../../src/tickets/foreign-links.js';
import { checkedText, paymentDetailsIn } from '../../src/tickets/payment-details.js';

const NONE: AllowedLinks = { knowledge: [], trustedDomains: [], addresses: [] };
const accountsIn = (draft: string) =>
  foreignFindings(draft, NONE)
    .filter((f) => f.kind === 'bank-account')
    .map((f) => f.written.replace(/<[^>]*>|[*_`~=]/g, ''))
    .join('\n');

// Each is a draft a forger's mail may make the model write: the reader sees an account.
const ATTACKS: string[] = [
  '口座番号: 765<b>4321</b>',
  '<strong>普通</strong> 7654321',
  'みずほ銀行 新宿支店 普通 765<span>4</span>321',
  '<b>口座番号</b>：7654321',
  '口座番号: 7654<!-- -->321',
  '口座番号: 7654<!---->321',
  '口座番号: <B>7654321</B>',
  '口座番号: <span style="font-weight:bold" class=\'x\'>7654321</span>',
  '<STRONG class="label">口座番号</STRONG>: <code>7654321</code>',
  '口座番号: 765<wbr>4321',
  'みずほ銀行\n<b>7654321</b>',
  '口座番号: ~~7654321~~',
  '口座番号: __7654321__',
  '口座番号: _7654321_',
  '口座番号: ==7654321==',
  '口座番号: **_7654321_**',
  '口座番号: _**7654321**_',
  '口座番号: ***7654321***',
  '口座番号: **`7654321`**',
  'みずほ銀行\n~~7654321~~',
  'みずほ銀行\n**_7654321_**',
  '~~口座番号~~: 7654321',
  '==口座番号==: 7654321',
  '**_口座番号_**: 7654321',
  '**<b>口座番号</b>**: 7654321',
  '口座番号: **<b>7654321</b>**',
  'Bank: Mizuho\nAccount: <b>7654321</b>',
];

// What a manual, an answer or a price list writes with HTML or marks: no account.
const ORDINARY: string[] = [
  '<b>注意</b>：設定を変更する前にバックアップを取ってください。',
  '条件は a <= b のときに成り立ちます。',
  'x < 10 and y > 5 の場合はエラーになります。',
  '**注意**: パスワードは定期的に変更してください。',
  'セール価格 ~~1,200円~~ 980円',
  '~~旧価格 1200円~~ 新価格 980円',
  // A snake_case identifier is no emphasis in markdown (CommonMark: _ inside a word): it stays a word.
  'ログの order_id_7654321 を確認してください。',
  'APIは order_id_7654321_status を返します。',
  '<span class="note">ヒント</span>：F5 キーで再読み込みできます。',
  '== 設定手順 ==\n1. ログインします。',
  '<!-- 管理用メモ -->\nお問い合わせありがとうございます。',
  'バージョン <code>2.3.1</code> で修正されました。',
];

describe('fix 44k: an account written with inline tags or strikethrough, highlight or nested marks', () => {
  it.each(ATTACKS)('a bank account: %j', (draft) => {
    expect(accountsIn(draft), JSON.stringify(foreignFindings(draft, NONE))).toMatch(/7654321/);
  });

  it.each(ORDINARY)('none: %j', (draft) => {
    expect(foreignFindings(draft, NONE)).toEqual([]);
  });

  it('names the account as written, from its label; the knowledge writing it plainly vouches for it', () => {
    expect(foreignLinks('<b>口座番号</b>：7654321', NONE)).toEqual(['口座番号</b>：7654321']);
    expect(foreignLinks('口座番号: 765<span>4</span>321', NONE)).toEqual(['口座番号: 765<span>4</span>321']);
    expect(foreignLinks('口座番号: 765<b>4321</b>', { ...NONE, knowledge: ['みずほ銀行 普通 7654321'] })).toEqual([]);
    expect(foreignLinks('口座番号: **_7654321_**', { ...NONE, knowledge: ['口座番号 <b>765-4321</b>'] })).toEqual([]);
  });

  it('drops only the tags: the text between them is read, a link tag and a comment with words are kept', () => {
    expect(checkedText('<b>注意</b> と <I>重要</I>').text).toBe('注意 と 重要');
    expect(checkedText('<a href="https://x.example">x</a>').text).toBe('<a href="https://x.example">x</a>');
    expect(checkedText('7654<!-- 321 -->').text).toContain('321');
    expect(checkedText('<b>7654321').text).toBe('7654321');
  });

  it('names where the text writes it', () => {
    const text = '口座番号: <b>7654321</b> まで';
    const [d] = paymentDetailsIn(text);
    expect(text.slice(d!.start, d!.end)).toBe('口座番号: <b>7654321');
  });
});

// "Transfer before the deadline" with the bank named only in the sentence before (review 12's left-overs): an ask to
// transfer or pay in the account's own sentence, the bank's word in the one right before it, in the same paragraph.
const DEADLINE_ASKS: string[] = [
  'Our bank details have changed. Please transfer the full amount before the deadline to account 55779911.',
  'Our bank details have changed. Transfer before the deadline: account number 55779911.',
  'Our new bank is Mizuho Bank. Please complete the transfer before the deadline using account number 55779911.',
];
const DEADLINE_ORDINARY: string[] = [
  'Your bank transfer was received. Please pay the remaining balance for account 12345678 by Friday.',
  'We accept bank transfers. Please pay the invoice before the deadline; your account number 12345678 is on it.',
  'Our bank details are unchanged. Account 12345678 was created on 1 May.',
  'Our bank details have changed.\n\nPlease pay the invoice of account 12345678 before the deadline.',
  'Bank holidays may delay delivery.\n\nPlease transfer the licence before the deadline; account 12345678 keeps it.',
];
describe('fix 44k: an ask to transfer before the deadline, the bank in the sentence before', () => {
  it.each(DEADLINE_ASKS)('a bank account: %j', (draft) => {
    expect(accountsIn(draft), JSON.stringify(foreignFindings(draft, NONE))).toMatch(/55779911/);
  });

  it.each(DEADLINE_ORDINARY)('none: %j', (draft) => {
    expect(foreignFindings(draft, NONE)).toEqual([]);
  });
});

// Review 44f: what fix 44k's reading still missed, each a draft whose reader sees the account.
const HIDDEN_IN_MARKS: string[] = [
  // An invisible character right inside the marks: the first pass only removed it, and the marks were left standing.
  'みずほ銀行 普通 **\u200b7654321\u200b**',
  'みずほ銀行 普通 _\u200b7654321\u200b_',
  'みずほ銀行 普通 **_\u200b7654321_**',
  'みずほ銀行 普通 ~~7654321\u2060~~',
  '**\u200b口座番号**: 7654321',
  // Strikethrough and highlight one inside the other.
  'みずほ銀行 普通 ~~==7654321==~~',
  'みずほ銀行 普通 ==~~7654321~~==',
  // Four layers of marks.
  'みずほ銀行 普通 ~~**_`7654321`_**~~',
  'みずほ銀行 普通 ==**_`7654321`_**==',
  // A tag's attributes longer than 200 characters.
  `みずほ銀行 普通 765<b title="${'x'.repeat(250)}">4321</b>`,
];
// An English account label in marks with no colon after it, the number right after.
const LABEL_IN_MARKS: string[] = [
  'Mizuho Bank: **account number** 55779911',
  'Mizuho Bank. Please transfer to _account_ 55779911.',
];
// Ordinary replies the ask-after-a-bank-sentence rule must not hold: the bank before is the reader's own or bank
// transfers in general, or the account is the customer's at the company.
const ASK_AFTER_BANK_ORDINARY: string[] = [
  'Your bank may take 2 days. Please pay from account 12345678 in the portal.',
  'Your bank may take 2 days. Please pay the invoice using customer account 12345678.',
  'Bank transfers can take 2 business days. Please pay by the 25th; account number 12345678 is on your invoice.',
  'Check with your bank. Please transfer the seat from account 12345678 to account 87654321.',
  'Your bank may take 2 days. Please pay using account 12345678.',
  'Our bank holidays are listed below. Please pay attention: account 12345678 is in the portal.',
];
// Review 44h: the exemptions of review 44f (a customer's/member's account, "from account", the reader's own bank)
// must not excuse the forger's own notice of bank details in the sentence before.
const ASK_AFTER_BANK_NOTICE: string[] = [
  'Our bank details have changed. Please transfer to our customer account 55779911.',
  'Our bank details have changed. Please deposit into member account 55779911.',
  'Our bank details have changed. Please pay from account 55779911 onwards.',
  'Your bank details have changed. Please transfer using account 55779911.',
  'Your bank details on file are outdated, we use a new bank. Please transfer using account 55779911.',
  'Bank transfers only. Please transfer using account 55779911.',
];
describe('review 44h: a notice of bank details before the ask', () => {
  it.each(ASK_AFTER_BANK_NOTICE)('a bank account: %j', (draft) => {
    expect(accountsIn(draft), JSON.stringify(foreignFindings(draft, NONE))).toMatch(/55779911/);
  });
});

describe('review 44f: invisible characters inside marks, nested ~~ and ==, four layers, long attributes', () => {
  it.each(HIDDEN_IN_MARKS)('a bank account: %j', (draft) => {
    expect(accountsIn(draft).replace(/[\u200b\u2060]/g, ''), JSON.stringify(foreignFindings(draft, NONE))).toMatch(/7654321/);
  });

  it.each(LABEL_IN_MARKS)('a bank account: %j', (draft) => {
    expect(accountsIn(draft), JSON.stringify(foreignFindings(draft, NONE))).toMatch(/55779911/);
  });

  it.each(ASK_AFTER_BANK_ORDINARY)('none: %j', (draft) => {
    expect(foreignFindings(draft, NONE)).toEqual([]);
  });
});
