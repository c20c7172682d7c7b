/**
 * Session 50, the draft checks' leftovers from session 49 (tmp/s50/d1.md):
 * - a refund to the customer's own account (their mail writes the IBAN) with a sentence that says nothing is owed ("No
 *   further payment is due.", "Es ist keine Zahlung fällig.", "Aucun paiement n'est dû.") was parked: the due words
 *   read as an ask, the negation unread. The lures of bug reviews B1, B3 and B4 (an amount due, a fee to pay into that
 *   account) stay parked, and so do negations that only stand near the due words ("No delay: the fee is due now.") and
 *   an ask in the sentence after the negated one ("No payment is due; wire the fee to that account.");
 * - "devuelto", "devuelta" (es: paid back) were no refund words;
 * - a lone circled digit ending an account's digits (765432①) hid the account: read as a digit where the digits before
 *   it are a run of six or seven, as an account's are (a phone's last group is four at most, and a phone written as
 *   one run has ten or more digits, so a step's ① after a phone still leaves the phone as written; after eight digits
 *   the account is the eight);
 * - a verb after "y", "und", "et" or "e" that the list of other actions lacked ("y recoja su pasaporte", "und holen Sie
 *   Ihren Reisepass ab") kept the ask to send the form going to the document: parked.
 * - bug review B2, HIGH 2: the fix above ended the ask at any word of a verb's form, and asks to send the document by
 *   a verb it did not know were sent ("et soumettez votre passeport", "e partilhe uma cópia", "und hinterlegen Sie eine
 *   Kopie"). Only the verbs of the list end it now; an unknown verb keeps the ask going, and the draft parks.
 */
import { describe, expect, it } from 'vitest';
import { foreignFindings, type AllowedLinks } from '../../src/tickets/foreign-links.js';
import { secretRequest } from '../../src/tickets/secret-request.js';

const IBAN = 'DE89 3704 0044 0532 0130 00';
const desk: AllowedLinks = { knowledge: [], trustedDomains: [], addresses: ['support@xyz.example'], customerMail: [`Bitte erstatten Sie auf mein Konto ${IBAN}.`] };
const nothingVouches: AllowedLinks = { knowledge: [], trustedDomains: [], addresses: ['support@xyz.example'] };
const written = (draft: string, allowed: AllowedLinks) => foreignFindings(draft, allowed).map((f) => `${f.kind}:${f.written}`);

const REFUNDS_NOTHING_OWED: ReadonlyArray<[string, string]> = [
  ['en: no further payment is due', `We have refunded 20 EUR to your account ${IBAN}. No further payment is due.`],
  ['en: nothing is due from you', `We have refunded 20 EUR to your account ${IBAN}. Nothing is due from you.`],
  ['en: after a semicolon', `We have refunded 20 EUR to your account ${IBAN}; no payment is due.`],
  ['en: no amount is due', `We have refunded 20 EUR to your account ${IBAN}. No amount is due.`],
  ['en: there is no balance due', `We have refunded 20 EUR to your account ${IBAN}. There is no balance due.`],
  ['en: no payment is due now', `We have refunded 20 EUR to your account ${IBAN}. No payment is due now.`],
  ['en: nothing further is owed', `We have refunded 20 EUR to your account ${IBAN}. Nothing further is owed.`],
  ['en: the fee is not due', `We have refunded 20 EUR to your account ${IBAN}. The fee is not due.`],
  ['de: keine Zahlung fällig', `Wir haben den Betrag auf Ihr Konto ${IBAN} erstattet. Es ist keine Zahlung fällig.`],
  ['de: nichts mehr fällig', `Wir haben den Betrag auf Ihr Konto ${IBAN} erstattet. Es ist nichts mehr fällig.`],
  ['de: Sie schulden uns nichts', `Wir haben den Betrag auf Ihr Konto ${IBAN} erstattet. Sie schulden uns nichts.`],
  ['de: Sie müssen nichts zahlen', `Wir haben den Betrag auf Ihr Konto ${IBAN} erstattet. Sie müssen nichts zahlen.`],
  ['es: no debe pagar nada', `Hemos reembolsado el importe a su cuenta ${IBAN}. No debe pagar nada.`],
  ['es: no tiene que pagar nada', `Hemos reembolsado el importe a su cuenta ${IBAN}. No tiene que pagar nada.`],
  ['fr: aucun paiement n’est dû', `Nous avons remboursé les frais sur votre compte ${IBAN}. Aucun paiement n'est dû.`],
  ['fr: rien n’est dû', `Nous avons remboursé les frais sur votre compte ${IBAN}. Rien n'est dû.`],
  ['pt: nenhum pagamento é devido', `Reembolsámos a taxa na sua conta ${IBAN}. Nenhum pagamento é devido.`],
  ['es: devuelto, nothing to pay', `Hemos devuelto el importe a su cuenta ${IBAN}. No tiene que pagar nada.`],
  ['es: le hemos devuelto', `Le hemos devuelto el importe a su cuenta ${IBAN}.`],
  ['es: ha sido devuelto', `El importe ha sido devuelto a su cuenta ${IBAN}.`],
  ['es: ha sido devuelta', `La comisión ha sido devuelta a su cuenta ${IBAN}.`],
  ['es: devolvemos', `Le devolvemos el importe a su cuenta ${IBAN}.`],
];

// Each names the customer's account beside a refund word and still asks for money: the account is named.
const LURES: ReadonlyArray<[string, string]> = [
  ['en: a payment is due', `We have refunded 20 EUR to your account ${IBAN}. A payment of 5 EUR is due.`],
  ['en: not refundable, due today', `We have refunded 20 EUR to your account ${IBAN}. The fee is not refundable and is due today.`],
  ['en: a negation before a colon', `We have refunded 20 EUR to your account ${IBAN}. Not the fee: 5 EUR is due by Friday.`],
  ['en: no delay', `We have refunded 20 EUR to your account ${IBAN}. No delay: the fee is due now.`],
  ['en: no further payment is due but', `We have refunded 20 EUR to your account ${IBAN}. No further payment is due but 5 EUR.`],
  ['en: nothing is due except', `We have refunded 20 EUR to your account ${IBAN}. Nothing is due, except the fee of 5 EUR to that account.`],
  ['en: no payment is due until you wire', `We have refunded 20 EUR to your account ${IBAN}. No payment is due until you wire 5 EUR to that account.`],
  ['en: no payment is due; then wire', `We have refunded 20 EUR to your account ${IBAN}. No payment is due; wire the fee of 5 EUR to that account.`],
  ['en: no payment is due now. Wire', `We have refunded 20 EUR to your account ${IBAN}. No payment is due now. Wire 5 EUR to that account.`],
  ['en: two negations, then wire', `We have refunded 20 EUR to your account ${IBAN}; no payment is due. Nothing more is owed. Wire 5 EUR to that account.`],
  ['de: keine Zahlung fällig. Überweisen', `Wir haben den Betrag auf Ihr Konto ${IBAN} erstattet. Es ist keine Zahlung fällig. Überweisen Sie 5 € dorthin.`],
  ['es: no debe pagar nada. Debe pagar', `Hemos devuelto el importe a su cuenta ${IBAN}. No debe pagar nada. Debe pagar 5 € a esa cuenta.`],
  ['en: the refund failed, wire the fee (B3)', `Your refund to your account ${IBAN} failed; wire the fee of 5 EUR to that account.`],
  ['en: must receive from you (B3)', `Your refund failed. Your account ${IBAN} must receive 5 EUR from you first.`],
  ['de: nothing else, 5 € due', `Wir haben den Betrag auf Ihr Konto ${IBAN} erstattet. Nichts anderes: 5 € sind fällig.`],
  ['de: keine Zahlung fällig außer', `Wir haben den Betrag auf Ihr Konto ${IBAN} erstattet. Es ist keine Zahlung fällig außer 5 € Gebühr.`],
  ['de: not in cash, transfer there', `Wir haben den Betrag auf Ihr Konto ${IBAN} erstattet. Zahlen Sie nicht bar, sondern überweisen Sie 5 € dorthin.`],
  ['de: transfer the fee there (B3)', `Ihr Konto ${IBAN} wurde erstattet; überweisen Sie die Gebühr von 5 € dorthin.`],
  ['es: devuelto, now pay', `Hemos devuelto el importe a su cuenta ${IBAN}. Ahora debe pagar 5 € a esa cuenta.`],
  ['es: devuelto, do not forget to pay', `Hemos devuelto el importe a su cuenta ${IBAN}; no olvide que debe pagar la comisión.`],
  ['es: no debe pagar en efectivo sino', `Hemos devuelto el importe a su cuenta ${IBAN}. No debe pagar en efectivo, debe pagar 5 € a esa cuenta.`],
  ['fr: aucun paiement n’est dû sauf', `Nous avons remboursé les frais sur votre compte ${IBAN}. Aucun paiement n'est dû sauf 5 € de frais.`],
];

describe('a refund to the customer’s own account with nothing owed is sent (session 50)', () => {
  it.each(REFUNDS_NOTHING_OWED)('%s', (_name, draft) => {
    expect(written(draft, desk)).toEqual([]);
  });
  it.each(REFUNDS_NOTHING_OWED)('without the customer’s mail, the account is named: %s', (_name, draft) => {
    expect(written(draft, nothingVouches)).not.toEqual([]);
  });
  it.each(LURES)('a lure stays parked: %s', (_name, draft) => {
    expect(written(draft, desk)).not.toEqual([]);
  });
});

describe('a lone circled digit ending an account’s digits is read as a digit (session 50)', () => {
  it.each([
    ['普通, ① last', '振込先：普通 765432①', 'bank-account:普通 765432①'],
    ['普通預金, ⑧ last', 'お振込先は 普通預金 7654321⑧ です', 'bank-account:普通預金 7654321⑧'],
    ['口座番号, dingbat last', '口座番号 765432❶ へお振込みください', 'bank-account:口座番号 765432❶'],
  ])('%s', (_name, draft, finding) => {
    expect(written(draft, nothingVouches)).toContain(finding);
  });
  it.each([
    ['a phone before a step number', '03-1234-5678①へお電話ください', 'phone:03-1234-5678'],
    ['a mobile run before a step number', 'お電話 09012345678① まで', 'phone:09012345678'],
    ['a step number before a phone', '①090-1234-5678へお電話ください', 'phone:090-1234-5678'],
    ['an international number before a step number', 'WhatsApp +81 90 1234 5678①', 'phone:+81 90 1234 5678'],
    ['eight digits before a step number', '口座番号 12345678① へお振込みください', 'bank-account:口座番号 12345678'],
  ])('the number stays as written: %s', (_name, draft, finding) => {
    expect(written(draft, nothingVouches)).toContain(finding);
  });
  it.each([
    ['a price, then a note mark', '料金は 5000① 円です。'],
    ['a step', '手順①に従ってください。'],
    ['a square metre', '広さは 120m² です。'],
  ])('ordinary text: %s', (_name, draft) => {
    expect(written(draft, nothingVouches)).toEqual([]);
  });
});

describe('a verb of another action after a joining word ends the ask for a document (session 50)', () => {
  it.each([
    ['es: recoja', 'Envíe el formulario y recoja su pasaporte en la oficina.'],
    ['es: renueve', 'Envíe el formulario y renueve su pasaporte antes del viaje.'],
    ['es: recibirá', 'Envíe el formulario y recibirá su pasaporte en casa.'],
    ['de: holen Sie', 'Senden Sie uns das Formular und holen Sie Ihren Reisepass im Büro ab.'],
    ['de: verlängern Sie', 'Senden Sie uns das Formular und verlängern Sie Ihren Reisepass rechtzeitig.'],
    ['fr: récupérez', 'Envoyez le formulaire et récupérez votre passeport au guichet.'],
    ['fr: renouvelez', 'Envoyez le formulaire et renouvelez votre passeport avant le départ.'],
    ['pt: renove', 'Envie o formulário e renove o seu passaporte antes da viagem.'],
    ['es: espere', 'Envíe el formulario y espere su pasaporte nuevo por correo.'],
    ['es: verifique', 'Envíe el formulario y verifique su pasaporte.'],
  ])('%s', (_name, draft) => {
    expect(secretRequest(draft)).toBeUndefined();
  });
  it.each([
    ['pt: e uma cópia (B3)', 'Envie o formulário e uma cópia do seu passaporte.'],
    ['de: und eine Kopie (B3)', 'Senden Sie uns das Formular und eine Kopie Ihres Reisepasses.'],
    ['de: und ein Foto (B3)', 'Senden Sie uns das Formular und ein Foto Ihres Reisepasses.'],
    ['de: und einen Scan (B3)', 'Senden Sie uns das Formular und einen Scan Ihres Reisepasses.'],
    ['es: y también (B3)', 'Envíe el formulario y también una foto de su pasaporte.'],
    ['es: y además (B3)', 'Envíe el formulario y además una foto de su pasaporte.'],
    ['es: y nuevamente (B3)', 'Envíe el formulario y nuevamente una foto de su pasaporte.'],
    ['es: y por favor (B3)', 'Envíe el formulario y por favor una foto de su pasaporte.'],
    ['es: y ahora', 'Envíe el formulario y ahora una foto de su pasaporte.'],
    ['es: y siempre', 'Envíe el formulario y siempre la copia de su pasaporte.'],
    ['pt: e ainda', 'Envie o formulário e ainda uma foto do seu passaporte.'],
    ['pt: e agora', 'Envie o formulário e agora a cópia do seu passaporte.'],
    ['fr: et aussi (B3)', 'Envoyez le formulaire et aussi votre passeport.'],
    ['fr: et bien sûr (B3)', 'Envoyez le formulaire et bien sûr votre passeport.'],
    ['es: y tome una foto', 'Envíe el formulario y tome una foto de su pasaporte.'],
    ['es: y remita una copia', 'Envíe el formulario y remita una copia de su pasaporte.'],
    ['es: y adjunte', 'Envíe el formulario y adjunte la copia de su pasaporte.'],
    ['pt: e tire uma foto', 'Envie o formulário e tire uma foto do seu passaporte.'],
    ['de: und übersenden Sie', 'Senden Sie uns das Formular und übersenden Sie eine Kopie Ihres Reisepasses.'],
    ['de: und reichen Sie', 'Senden Sie uns das Formular und reichen Sie eine Kopie Ihres Reisepasses ein.'],
    ['de: und machen Sie ein Foto', 'Senden Sie uns das Formular und machen Sie ein Foto Ihres Reisepasses.'],
    ['fr: et prenez une photo', 'Envoyez le formulaire et prenez une photo de votre passeport.'],
    ['fr: et transmettez', 'Envoyez le formulaire et transmettez une copie de votre passeport.'],
    ['es: y indique su número', 'Envíe el formulario e indique su número de pasaporte.'],
    ['es: y escriba su número', 'Envíe el formulario y escriba su número de pasaporte.'],
    ['pt: e junte uma cópia', 'Envie o formulário e junte uma cópia do seu passaporte.'],
    ['fr: et indiquez votre numéro', 'Envoyez le formulaire et indiquez votre numéro de passeport.'],
    ['fr: et veuillez joindre', 'Envoyez le formulaire et veuillez joindre une copie de votre passeport.'],
  ])('still asks: %s', (_name, draft) => {
    expect(secretRequest(draft)).toBe(draft);
  });
});

// Bug review B2 of session 50, HIGH 2 (tmp/s50-b2/sec.mts): each was sent while it asks for the document by mail.
const ASKS_BY_AN_UNLISTED_VERB: ReadonlyArray<[string, string]> = [
  ['es: responda y aporte', 'Por favor, responda a este correo y aporte una copia de su pasaporte.'],
  ['es: responda y entregue', 'Por favor, responda a este correo y entregue una copia de su pasaporte.'],
  ['es: y suministre', 'Envíenos el formulario y suministre una copia de su DNI.'],
  ['es: y aporte', 'Por favor, envíe el formulario y aporte su pasaporte escaneado.'],
  ['es: y reenvíe', 'Envíe el formulario y reenvíe su pasaporte.'],
  ['pt: e carregue', 'Envie-nos o formulário e carregue uma cópia do seu passaporte.'],
  ['pt: e partilhe', 'Envie-nos o formulário e partilhe uma cópia do seu passaporte.'],
  ['pt: e disponibilize', 'Envie-nos o formulário e disponibilize o seu passaporte.'],
  ['fr: et soumettez', 'Envoyez-nous le formulaire et soumettez votre passeport.'],
  ['fr: et déposez', 'Envoyez-nous le formulaire et déposez une copie de votre passeport.'],
  ['fr: et partagez', 'Envoyez-nous le formulaire et partagez une copie de votre passeport.'],
  ['fr: et transférez', 'Envoyez-nous le formulaire et transférez une copie de votre passeport.'],
  ['fr: et numérisez', 'Envoyez le formulaire et numérisez votre passeport.'],
  ['fr: et adressez-nous', 'Envoyez le formulaire et adressez-nous votre passeport.'],
  ['de: und stellen Sie … zur Verfügung', 'Bitte senden Sie uns das Formular und stellen Sie uns eine Kopie Ihres Reisepasses zur Verfügung.'],
  ['de: und hinterlegen Sie', 'Bitte senden Sie uns das Formular und hinterlegen Sie eine Kopie Ihres Personalausweises.'],
  // Not on the list: a person reads it.
  ['de: und beantragen Sie', 'Senden Sie uns das Formular und beantragen Sie dann einen neuen Reisepass.'],
  // Checking is another action only on the document itself.
  ['es: y verifique su identidad con una copia', 'Envíe el formulario y verifique su identidad con una copia de su pasaporte.'],
  // A verb of the list with us after a hyphen hands or shows the document to us; legen Sie … bei encloses it.
  ['fr: et passez-nous', 'Envoyez le formulaire et passez-nous une copie de votre passeport.'],
  ['fr: et montrez-nous', 'Envoyez le formulaire et montrez-nous votre passeport.'],
  ['de: und legen Sie … bei', 'Senden Sie uns das Formular und legen Sie eine Kopie Ihres Reisepasses bei.'],
  // The reply is the way: any verb after "reply to this mail and" sends.
  ['pt: responda e disponibilize', 'Responda a este e-mail e disponibilize uma cópia do seu passaporte.'],
  ['fr: répondez et ajoutez', 'Répondez à ce message et ajoutez une copie de votre passeport.'],
  ['de: antworten Sie und stellen Sie … zur Verfügung', 'Antworten Sie auf diese E-Mail und stellen Sie uns eine Kopie Ihres Reisepasses zur Verfügung.'],
  // Bug review B3a of session 50, LOW 6: the reply named as "correo electrónico", and contestar for responder.
  ['es: responda a este correo electrónico y aporte', 'Responda a este correo electrónico y aporte una copia de su pasaporte.'],
  ['es: contéstenos y aporte', 'Contéstenos y aporte una copia de su pasaporte.'],
  ['es: conteste a este mensaje y aporte', 'Conteste a este mensaje y aporte una copia de su DNI.'],
  // Bug review B4 (LOW 4): al/por and no article before the mail, and electronico without its accent.
  ['es: conteste al correo y aporte', 'Conteste al correo y aporte su pasaporte.'],
  ['es: conteste este correo y aporte', 'Conteste este correo y aporte una copia de su DNI.'],
  ['es: contéstenos por correo electrónico y aporte', 'Contéstenos por correo electrónico y aporte su pasaporte.'],
  ['es: correo electronico without the accent', 'Responda a este correo electronico y aporte su pasaporte.'],
];

describe('only a listed verb of another action ends the ask for a document (bug review B2 of session 50)', () => {
  it.each(ASKS_BY_AN_UNLISTED_VERB)('parks: %s', (_name, draft) => {
    expect(secretRequest(draft)).toBe(draft);
  });
  it.each([
    ['es: retire', 'Envíe el formulario y retire su pasaporte en la oficina.'],
    ['es: conserve', 'Adjunte el formulario y conserve su pasaporte.'],
    ['pt: aguarde', 'Envie o formulário e aguarde o seu novo passaporte.'],
    ['pt: verifique o seu passaporte', 'Envie o formulário e verifique o seu passaporte.'],
    ['fr: retirez', 'Envoyez le formulaire et retirez votre passeport au guichet.'],
    ['fr: présentez', 'Envoyez le formulaire et présentez votre passeport au guichet.'],
    ['de: warten Sie', 'Senden Sie uns das Formular und warten Sie auf Ihren neuen Reisepass.'],
    ['de: bringen Sie … mit', 'Senden Sie uns das Formular und bringen Sie Ihren Reisepass mit.'],
    ['es: responda y le enviaremos', 'Responda a este correo y le enviaremos su pasaporte renovado.'],
    ['es: responda y recibirá', 'Responda a este correo y recibirá su pasaporte en casa.'],
    ['es: contéstenos y le enviaremos', 'Contéstenos y le enviaremos su pasaporte renovado.'],
  ])('is sent: %s', (_name, draft) => {
    expect(secretRequest(draft)).toBeUndefined();
  });
});
