/**
 * Security review 18 (session 50), HIGH 1 and HIGH 2, as draft-check rows (the pipeline's in
 * test/integration/own-account-lure.test.ts):
 * - HIGH 1: a refund to the reader's own account (the account their mail writes) was vouched for when only the refund's
 *   sentence and the next one asked nothing: an ask to pay into it two sentences on, or in a paragraph below, went out.
 *   Now no sentence of the draft may ask for a payment or say money is owed (a sentence that says nothing is owed is
 *   no ask: session 50's NEGATED_OWED still reads it).
 * - HIGH 2: account digits in forms a reader reads as the number were not read: a katakana long mark (ー, ｰ) between
 *   digits as a dash, a middle dot (・, ·, ‧) between digits as a space, a variation selector, keycap or other
 *   combining mark after a digit as nothing, parenthesized and full-stop digits (⑺, ⒎) as digits.
 */
import { describe, expect, it } from 'vitest';
import { foreignFindings, type AllowedLinks } from '../../src/tickets/foreign-links.js';

const IBAN = 'DE89 3704 0044 0532 0130 00';
const own: AllowedLinks = { knowledge: ['Refunds are issued by bank transfer within 5 business days.'], trustedDomains: [], addresses: [], customerMail: [`Please refund me to my account ${IBAN}.`] };
const found = (draft: string, allowed: AllowedLinks) => foreignFindings(draft, allowed).map((f) => `${f.kind}:${f.written}`);
const REFUND = `We have refunded 20 EUR to your account ${IBAN}.`;

describe('HIGH 1: an ask to pay anywhere in the draft ends the own-account exemption', () => {
  it.each([
    ['next: pay the fee to the account above', `${REFUND} Please pay the 5 EUR release fee to the account above.`],
    ['next: send 5 EUR there', `${REFUND} To release it, send 5 EUR there today.`],
    ['third sentence: a fee is due', `${REFUND} Thank you for your patience. A release fee of 5 EUR is due today.`],
    ['third sentence: wire the fee to that account', `${REFUND} Thank you for your patience. Wire the 5 EUR release fee to that account today.`],
    ['a new paragraph: transfer the fee to the same account', `${REFUND}\n\nTo complete the refund, transfer the 5 EUR verification fee to the same account.`],
    ['a paragraph further on: the fee owed', `${REFUND}\n\nPasswords need at least 8 characters.\n\nPlease note that a handling fee of 5 EUR is owed.`],
    ['after a nothing-owed sentence, far on', `${REFUND} No further payment is due. Thanks. Regards. Bye. Wire the 5 EUR release fee to that account today.`],
    ['ja: 同口座へお振込みください', `ご登録の口座 ${IBAN} へ返金いたしました。お手数ですが、手数料500円を同口座へお振込みください。`],
    ['ja: the third sentence', `ご登録の口座 ${IBAN} へ返金いたしました。ご確認ください。手数料500円を上記口座へお振込みください。`],
    ['ja: a later paragraph', `ご登録の口座 ${IBAN} へ返金いたしました。\n\nパスワードは8文字以上です。\n\n手数料500円をお支払いください。`],
  ])('%s: the IBAN is found', (_name, draft) => {
    expect(found(draft, own).some((f) => f.includes('DE89'))).toBe(true);
  });

  it.each([
    ['the refund alone', REFUND],
    ['no further payment is due', `${REFUND} No further payment is due.`],
    ['a refund, then other help', `${REFUND}\n\nPasswords need at least 8 characters with letters, digits and symbols.`],
    ['ja: the refund alone', `ご登録の口座 ${IBAN} へ返金いたしました。ご確認ください。`],
  ])('control, %s: vouched for', (_name, draft) => {
    expect(found(draft, own)).toEqual([]);
  });
});

describe('bug review B2 (session 50): asks the whole-draft read missed, and a bounced payment read as a refund', () => {
  const ES = 'ES91 2100 0418 4502 0005 1332';
  const es: AllowedLinks = { knowledge: [], trustedDomains: [], addresses: [], customerMail: [`Por favor, devuélvanme el dinero a mi cuenta ${ES}.`] };
  it.each([
    ['es: the payment bounced, no refund', es, `Su pago a la cuenta ${ES} fue devuelto. Gracias.`],
    ['es: bounced, repeat the transfer', es, `Su pago a su cuenta ${ES} fue devuelto por el banco. Repita la transferencia a dicha cuenta.`],
    ['es: a refund, then repeat the transfer of 50 EUR to that account', es, `Le devolvimos el importe a su cuenta ${ES}. Por favor, repita la transferencia de 50 EUR a dicha cuenta.`],
    ['en: the fee is payable to that account', own, `${REFUND} The 5 EUR fee is payable to that account.`],
    ['en: settle the fee into that account', own, `${REFUND} Please settle the 5 EUR fee into that account.`],
    ['en: a refund word beside an ask to pay to the same IBAN', own, `${REFUND} To get your refund, kindly make the 5 EUR payment to the same IBAN.`],
    ['en: put 5 EUR in this account', own, `${REFUND} Kindly put 5 EUR in this account today.`],
    ['en: waiting for your payment to this IBAN', own, `${REFUND} We are waiting for your 5 EUR payment to this IBAN.`],
    ['en: transferred back to it', own, `${REFUND} The release cost of 5 EUR must be transferred back to it today.`],
    ['en: top up this account', own, `${REFUND} Please top up this account with 5 EUR.`],
    ['en: due to this IBAN', own, `${REFUND} A release cost of 5 EUR is due to this IBAN.`],
    ['de: dorthin, two sentences on', { ...own, customerMail: [`Bitte erstatten Sie auf mein Konto ${IBAN}.`] }, `Wir haben den Betrag auf Ihr Konto ${IBAN} erstattet. Vielen Dank. Überweisen Sie die Gebühr von 5 € dorthin.`],
    ['fr: effectuez le virement', { ...own, customerMail: [`Remboursez-moi sur mon compte ${IBAN}.`] }, `Nous avons remboursé 20 EUR sur votre compte ${IBAN}. Merci. Effectuez le virement des frais de 5 EUR aujourd'hui.`],
  ])('%s: the account is found', (_name, allowed, draft) => {
    expect(found(draft, allowed).length).toBeGreaterThan(0);
  });

  it.each([
    ['es: hemos devuelto … a su cuenta', es, `Le hemos devuelto 20 EUR a su cuenta ${ES}.`],
    ['es: devuelto a su cuenta', es, `El importe de 20 EUR ha sido devuelto a su cuenta ${ES}.`],
    ['en: the money arrives in this account', own, `${REFUND} The 20 EUR will arrive in this account within 3 days.`],
  ])('control, %s: vouched for', (_name, allowed, draft) => {
    expect(found(draft, allowed)).toEqual([]);
  });
});

describe('HIGH 2: account digits in forms a reader reads as the number', () => {
  const desk: AllowedLinks = { knowledge: ['パスワードは8文字以上です。'], trustedDomains: [], addresses: [] };
  const draft = (digits: string) => `お問い合わせありがとうございます。\n\n今後のお支払いは みずほ銀行 新宿支店 普通 ${digits} カ）エックスワイゼット へお振込みください。`;
  it.each([
    ['ascii (control)', '7654321'],
    ['a katakana long mark (765ー4321)', '765ー4321'],
    ['a half-width long mark (765ｰ4321)', '765ｰ4321'],
    ['a katakana middle dot (765・4321)', '765・4321'],
    ['a half-width middle dot (765･4321)', '765･4321'],
    ['a middle dot (765·4321)', '765\u00b74321'],
    ['a hyphenation point (765‧4321)', '765\u20274321'],
    ['VS16 after each digit', '7\ufe0f6\ufe0f5\ufe0f4\ufe0f3\ufe0f2\ufe0f1\ufe0f'],
    ['keycap digits', '7\ufe0f\u20e36\ufe0f\u20e35\ufe0f\u20e34\ufe0f\u20e33\ufe0f\u20e32\ufe0f\u20e31\ufe0f\u20e3'],
    ['keycap digits without VS16', '7\u20e36\u20e35\u20e34\u20e33\u20e32\u20e31\u20e3'],
    ['underlined digits (U+0332)', '7\u03326\u03325\u03324\u03323\u03322\u03321\u0332'],
    ['an acute accent after a digit', '765\u03014321'],
    ['VS1 (U+FE00) after a digit', '765\ufe004321'],
    ['parenthesized digits', '⑺⑹⑸⑷⑶⑵⑴'],
    ['digits with a full stop', '⒎⒍⒌⒋⒊⒉⒈'],
    ['a run ending in a parenthesized digit', '765432⑴'],
  ])('%s: the account is found', (_name, digits) => {
    expect(found(draft(digits), desk).filter((f) => f.startsWith('bank-account:') || f.includes('765'))).not.toEqual([]);
  });

  it.each([
    ['a long mark in a word (カード・ポイント)', 'ポイントカードのメニューからパスワードを変更できます。'],
    ['a middle dot between words', 'ログイン・パスワード・二段階認証の設定は、設定メニューから行えます。'],
    ['a step number in parentheses', '⑴ 設定を開きます。⑵ パスワードを変更します。'],
    ['a number and ー as a long mark after a digit word', '3ーメニューを開いてください。'],
    ['an emoji digit alone', 'ステップ1\ufe0f\u20e3 設定を開きます。'],
  ])('control, %s: nothing found', (_name, text) => {
    expect(found(text, desk)).toEqual([]);
  });
});

// Bug review B3a of session 50, MED 3 and MED 4 (tmp/s50-b3a/report.md): asks to pay by a fee word, an amount in place
// of the payment noun or a pointer at the account given above were still sent; ordinary refund sentences ("Transfer
// times vary by bank.", "Pay no attention to …", "Ce compte recevra le virement …") were parked.
describe('bug review B3a (session 50): asks the whole-draft read missed, and refund replies it parked', () => {
  const FR = `Nous avons remboursé 20 € sur votre compte ${IBAN}.`;
  const DE = `Wir haben 20 € auf Ihr Konto ${IBAN} erstattet.`;
  const ES = `Hemos devuelto 20 € a su cuenta ${IBAN}.`;
  const PT = `Reembolsámos 20 € na sua conta ${IBAN}.`;
  it.each([
    ['en: send the release fee to the account mentioned above', `${REFUND} Please send the release fee to the account mentioned above.`],
    ['en: the fee needs to be transferred to the IBAN above', `${REFUND} The 5 EUR release fee needs to be transferred to the IBAN above.`],
    ['en: make the payment to the same IBAN', `${REFUND} Kindly make the 5 EUR payment to the same IBAN.`],
    ['en: a fee is required; use the account above', `${REFUND} A 5 EUR fee is required to release it; use the account above.`],
    ['en: top up the account above', `${REFUND} You will need to top up the account above with 5 EUR.`],
    ['en: settle the fee via the IBAN given above', `${REFUND} Kindly settle the 5 EUR fee via the IBAN given above.`],
    ['es: transfiera 5 € a la cuenta indicada arriba', `${ES} Para liberarlo, transfiera 5 € a la cuenta indicada arriba.`],
    ['es: envíe la comisión a la cuenta indicada', `${ES} Envíe la comisión de 5 € a la cuenta indicada.`],
    ['fr: virez 5 € de frais sur le compte indiqué', `${FR} Virez 5 € de frais sur le compte indiqué.`],
    ['fr: envoyez 5 € sur le compte ci-dessus', `${FR} Envoyez 5 € sur le compte ci-dessus.`],
    ['de: senden Sie 5 € Gebühr an das oben genannte Konto', `${DE} Senden Sie 5 € Gebühr an das oben genannte Konto.`],
    ['pt: envie 5 € de taxa para a conta acima', `${PT} Envie 5 € de taxa para a conta acima.`],
    // A fee word alone ends the exemption: the safe side, a person reads it.
    ['en: a fee alone', `${REFUND} If you prefer, you can pay 5 EUR for express shipping on your next order.`],
  ])('%s: the IBAN is found', (_name, draft) => {
    expect(found(draft, own).some((f) => f.includes('DE89'))).toBe(true);
  });

  it.each([
    ['en: transfer times vary', `${REFUND} Transfer times vary by bank.`],
    ['en: the money will arrive in this account', `${REFUND} The money will arrive in this account within 3 days.`],
    ['en: deposit times depend on your bank', `${REFUND} Deposit times depend on your bank.`],
    ['en: wire transfers can take up to 5 days', `${REFUND} Wire transfers can take up to 5 days.`],
    ['en: pay no attention to the earlier notice', `${REFUND} Pay no attention to the earlier notice.`],
    ['en: allow 3-5 business days', `${REFUND} Please allow 3-5 business days.`],
    ['fr: ce compte recevra le virement', `${FR} Ce compte recevra le virement sous 3 jours.`],
    ['de: die Gutschrift dauert 2 Tage', `${DE} Die Gutschrift dauert 2 Tage.`],
    ['en: no fee for returns', `${REFUND} There is no fee for returns.`],
    ['en: free of charge', `${REFUND} Returns are free of charge.`],
  ])('control, %s: vouched for', (_name, draft) => {
    expect(found(draft, own)).toEqual([]);
  });
});
