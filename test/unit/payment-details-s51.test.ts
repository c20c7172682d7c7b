/**
 * Session 51, the payment-details check's left-overs from session 50 (tmp/s51/pay.md):
 * - refund replies it parked: a payment told as made to the reader's account ("A transfer of 20 EUR was made to your
 *   account DE89 …"), and a fee the reader's own bank may charge ("Your bank may charge a fee for incoming
 *   transfers."). Each relaxation has the asks beside it that must still park: money asked back, a payment request,
 *   a fee of ours after the bank's, a fee paid to us;
 * - asks it sent: an amount in words ("Kindly put five euros in this account", "We made a deposit of five euros to the
 *   account we refunded"), account digits written as the forms of ten to twenty (⑽⑾⑿⒀, ⒇⒆⒅⒄) and a run in groups
 *   ending in a circled digit (765-432①).
 */
import { describe, expect, it } from 'vitest';
import { foreignFindings, type AllowedLinks } from '../../src/tickets/foreign-links.js';

const IBAN = 'DE89 3704 0044 0532 0130 00';
const own: AllowedLinks = { knowledge: ['Refunds are issued by bank transfer within 5 business days.'], trustedDomains: [], addresses: [], customerMail: [`Please refund me to my account ${IBAN}.`] };
const found = (draft: string, allowed: AllowedLinks) => foreignFindings(draft, allowed).map((f) => `${f.kind}:${f.written}`);
const REFUND = `We have refunded 20 EUR to your account ${IBAN}.`;
const TRANSFER_MADE = `A transfer of 20 EUR was made to your account ${IBAN}.`;

describe('a payment told as made to the reader\'s own account, and their bank\'s fee: vouched for', () => {
  it.each([
    ['en: a transfer of 20 EUR was made to your account', TRANSFER_MADE],
    ['en: a payment of €20 has been made to your account', `A payment of €20 has been made to your account ${IBAN}.`],
    ['en: the refund processed, then the transfer told', `We have processed your return. A transfer of 20 EUR was made to your account ${IBAN}.`],
    ['en: your bank may charge a fee for incoming transfers', `${REFUND} Your bank may charge a fee for incoming transfers.`],
    ['en: your bank may charge you a small fee', `${REFUND} Please note that your bank may charge you a small fee.`],
    ['en: fees charged by your bank may apply', `${REFUND} Fees charged by your bank may apply.`],
    ['en: a transfer told, and the bank\'s fee', `${TRANSFER_MADE} Your bank may charge a fee for international transfers.`],
    // Bug review R2 of session 51, finding 4: what the reader's bank charges for, when it is our transfer to them.
    ['en: your bank fee for incoming transfers from abroad', `${REFUND} Your bank may charge a fee for incoming transfers from abroad.`],
    ['en: your bank fee for this refund', `${REFUND} Your bank may charge a small fee for this refund.`],
    ['en: your bank fee for receiving the transfer', `${REFUND} Your bank may charge a fee for receiving the transfer.`],
  ])('%s', (_name, draft) => {
    expect(found(draft, own)).toEqual([]);
  });

  // Beside each relaxation: what asks for money still parks.
  it.each([
    ['transfer told by mistake, send it back', `A transfer of 20 EUR was made to your account ${IBAN} by mistake. Please send it back.`],
    ['transfer told, pay it back', `${TRANSFER_MADE} Please pay it back today.`],
    ['transfer told, return the money', `${TRANSFER_MADE} Kindly return the money to us.`],
    ['transfer told, transfer 5 EUR back', `${TRANSFER_MADE} Transfer 5 EUR back to us.`],
    ['transfer told, wire the amount back', `${TRANSFER_MADE} Kindly wire back the amount within 3 days.`],
    ['a transfer that should be made to your account', `A transfer of 20 EUR should be made to your account ${IBAN}.`],
    ['a payment request was sent to your account', `A payment request of 5 EUR was sent to your account ${IBAN}.`],
    ['complete the transfer of 5 EUR', `Complete the transfer of 5 EUR to your account ${IBAN}.`],
    ['the transfer of 5 EUR is needed', `${REFUND} The transfer of 5 EUR is needed first.`],
    ['transfer told, refund us', `${TRANSFER_MADE} Please refund us by Friday.`],
    ['bank fee of 5 EUR you pay to us', `${REFUND} Your bank may charge a fee of 5 EUR which you pay to us.`],
    ['bank fee, plus our fee', `${REFUND} Your bank may charge a fee, plus our 5 EUR release fee.`],
    ['bank fee for transfers to us', `${REFUND} Your bank may charge a fee for transfers to us, payable today.`],
    ['bank fee, then our fee due', `${REFUND} Your bank may charge a handling fee, and our handling fee of 5 EUR is due.`],
    ['bank fee, then the same IBAN', `${REFUND} Your bank may charge a fee; the release fee goes to the same IBAN.`],
    ['our bank fee', `${REFUND} Our bank may charge a fee for the release.`],
    // Bug review R2 of session 51, finding 1: the transfer told, then money asked back in other words.
    ['transfer told, which you must now return', `A transfer of 20 EUR was made to your account ${IBAN}, which you must now return.`],
    ['transfer told in error, reverse the transfer', `A transfer of 20 EUR was made to your account ${IBAN} in error. Please reverse the transfer.`],
    ['transfer told, less our fee you settle', `A transfer of 20 EUR was made to your account ${IBAN}, less our processing fee, which you settle by transfer.`],
    ['transfer told by mistake, nothing asked', `A transfer of 20 EUR was made to your account ${IBAN} by mistake.`],
    // Finding 4: a fee "your bank" charges on a payment of the reader's, not on our transfer to them.
    ['bank fee for the payment', `${REFUND} Your bank may charge a fee for the payment.`],
    ['bank fee for the release payment', `${REFUND} Your bank will charge you a processing fee for the release payment.`],
  ])('still parks: %s', (_name, draft) => {
    expect(found(draft, own).some((f) => f.includes('DE89'))).toBe(true);
  });
});

describe('an amount in words beside a pointer at the account, or asked to be paid', () => {
  it.each([
    ['en: kindly put five euros in this account', `${REFUND} Kindly put five euros in this account today.`],
    ['en: waiting for your five euro payment to this IBAN', `${REFUND} We are waiting for your five euro payment to this IBAN.`],
    ['en: send five euros to the account we refunded', `${REFUND} Please send five euros to the account we refunded.`],
    ['en: you need to pay five euros first', `${REFUND} You need to pay five euros first.`],
    ['en: send five euros to us', `${REFUND} Send five euros to us today.`],
    ['en: a deposit of five euros to the account we refunded', `${REFUND} We made a deposit of five euros to the account we refunded.`],
    ['en: twenty dollars into the account we credited', `${REFUND} Kindly top up the account we credited with twenty dollars.`],
    ['en: a hundred euros to this IBAN', `${REFUND} A deposit of a hundred euros to this IBAN is expected from you.`],
    ['de: senden Sie fünf Euro', `Wir haben 20 € auf Ihr Konto ${IBAN} erstattet. Senden Sie fünf Euro an uns.`],
    ['es: envíe cinco euros', `Hemos devuelto 20 € a su cuenta ${IBAN}. Envíe cinco euros hoy.`],
    ['fr: envoyez cinq euros', `Nous avons remboursé 20 € sur votre compte ${IBAN}. Envoyez cinq euros aujourd'hui.`],
    // Bug review R2 of session 51, finding 5: the teens and tens the list lacked.
    ['en: fourteen euros in this account', `${REFUND} Kindly put fourteen euros in this account.`],
    ['en: sixty euros in this account', `${REFUND} Kindly put sixty euros in this account.`],
    ['es: envíe quince euros', `Hemos devuelto 20 € a su cuenta ${IBAN}. Envíe quince euros hoy.`],
    ['de: senden Sie dreizehn Euro', `Wir haben 20 € auf Ihr Konto ${IBAN} erstattet. Senden Sie dreizehn Euro an uns.`],
    ['de: senden Sie sechzig Euro', `Wir haben 20 € auf Ihr Konto ${IBAN} erstattet. Senden Sie sechzig Euro an uns.`],
  ])('%s: the IBAN is found', (_name, draft) => {
    expect(found(draft, own).some((f) => f.includes('DE89'))).toBe(true);
  });

  it.each([
    ['en: five euros refunded to your account', `We have refunded five euros to your account ${IBAN}.`],
    ['en: the five euros will arrive in this account', `${REFUND} The five euros will arrive in this account within 3 days.`],
    ['en: five days, no currency', `${REFUND} Please allow five days for the transfer.`],
    ['en: one real problem', `${REFUND} Thank you for pointing out one real problem with this account.`],
    // Bug review R2 of session 51, finding 5: Portuguese "dos" is "of the", no number.
    ['pt: o extrato dos euros recebidos', `Reembolsamos 20 € na sua conta ${IBAN}. Se necessário, envie-nos o extrato dos euros recebidos.`],
  ])('control, %s: vouched for', (_name, draft) => {
    expect(found(draft, own)).toEqual([]);
  });
});

describe('account digits as the forms of ten to twenty, and a run in groups ending in a circled digit', () => {
  const desk: AllowedLinks = { knowledge: ['パスワードは8文字以上です。'], trustedDomains: [], addresses: [] };
  const draft = (digits: string) => `お問い合わせありがとうございます。\n\n今後のお支払いは みずほ銀行 新宿支店 普通 ${digits} カ）エックスワイゼット へお振込みください。`;
  it.each([
    ['parenthesized 10–13', '⑽⑾⑿⒀'],
    ['parenthesized 20–17', '⒇⒆⒅⒄'],
    ['circled 10–13', '⑩⑪⑫⑬'],
    ['full stop 10–13', '⒑⒒⒓⒔'],
    ['negative circled 11–14', '⓫⓬⓭⓮'],
    ['a parenthesized 20 between digits', '765⒇43'],
    ['765-432①', '765-432①'],
    ['765 432①', '765 432①'],
    ['765-432⑴', '765-432⑴'],
    ['765.432①', '765.432①'],
  ])('%s: the account is found as written', (_name, digits) => {
    expect(found(draft(digits), desk)).toContain(`bank-account:みずほ銀行 新宿支店 普通 ${digits}`);
  });

  it.each([
    ['steps numbered ⑽ and ⑾', '⑽ 設定を開きます。⑾ パスワードを変更します。'],
    ['a step ⑿ after a count', '手順は全部で12あります。⑿ 保存します。'],
    ['a circled step after eight digits in groups', '会員番号 1234-5678① を入力します。'],
  ])('control, %s: nothing found', (_name, text) => {
    expect(found(text, desk)).toEqual([]);
  });

  // Bug review R2 of session 51, finding 7: a postcode after 〒 is no account's run, and the step number after it no
  // digit of it: the postcode is found as written, as before session 51.
  it('a postcode, then a circled step: the postcode as written', () => {
    expect(found('〒123-4567① 口座名義を入力してください。', desk)).toEqual(['postal:〒123-4567']);
  });
});
