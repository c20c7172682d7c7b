/**
 * A draft that asks the customer to send an identity document or a national id by mail (a passport, a driver's
 * licence, マイナンバー, a Social Security number, the date of birth…) is parked unless the knowledge the agent found
 * asks for the same: a desk may really check an age or sign a contract, but a model steered by a mail may ask for
 * what a fraudster wants (security review 16, finding 1).
 */
import { describe, expect, it } from 'vitest';
import { IDENTITY_REQUEST_REASON, SECRET_REQUEST_REASON, secretRequest, secretRequestReason } from '../../src/tickets/secret-request.js';

const ASKS: ReadonlyArray<[string, string]> = [
  ['ja: licence and My Number card photos attached', '運転免許証とマイナンバーカードの写真を添付して返信してください。'],
  ['ja: My Number', 'マイナンバー(個人番号)を本メールにてお知らせください。'],
  ['ja: 個人番号', '個人番号をご返信ください。'],
  ['ja: passport number', 'パスポート番号をお知らせください。'],
  ['ja: passport copy', 'パスポートのコピーをお送りいただけますでしょうか。'],
  ['ja: insurance card image', '保険証の画像を添付のうえ、ご返信ください。'],
  ['ja: residence card', '在留カードの写真をメールに添付してお送りください。'],
  ['ja: passport number, kana verb', 'パスポート番号をおしらせください。'],
  ['ja: licence, after a list', 'お名前、ご住所、運転免許証の画像を送付してください。'],
  ['en: passport, DOB, SSN', 'Please send us a photo of your passport, your date of birth and your Social Security number.'],
  ['en: driver\'s license', "Please attach a scan of your driver's license to your reply."],
  ['en: driving licence', 'Reply with a copy of your driving licence.'],
  ['en: SSN', 'Could you provide your SSN?'],
  ['en: photo of your ID', 'Please email us a photo of your ID.'],
  ['en: we need, by e-mail', 'We will need a copy of your passport by e-mail to continue.'],
  ['en: we need, sent', 'We will need your passport number: please send it in your reply.'],
  ['ko: resident registration number', '주민등록번호를 알려 주세요.'],
  ['zh: ID card number', '请提供您的身份证号码。'],
  ['zh: ID card photo attached', '请回复并附上身份证照片。'],
  // Spellings bug review R1 of session 48 found passing for secrets, which the document asks share.
  ['ja: 送って without ください', '運転免許証の写真を送って。'],
  ['ja: 返信ください without ご', 'パスポートの写真を返信ください。'],
  ['ja: spaced out', 'マ イ ナ ン バ ー をご返信ください。'],
  ['ja: 書き添えて', '本メールへの返信にマイナンバーを書き添えてください。'],
  ['en: type it in your reply', 'Type your Social Security number in your reply.'],
  ['en: small capitals', 'Please send us a photo of your ᴘᴀꜱꜱᴘᴏʀᴛ.'],
];

const DOES_NOT_ASK: ReadonlyArray<[string, string]> = [
  ['ja: do not send the passport', 'パスポートの写真はお送りいただく必要はありません。'],
  ['ja: never send', 'マイナンバーは決してメールでお送りにならないでください。'],
  ['ja: enter on the form', '生年月日をフォームに入力してください。'],
  ['ja: write it on the form', '生年月日を申込書にご記入ください。'],
  ['ja: show at the counter', '窓口で運転免許証をご提示ください。'],
  ['ja: bring it', '当日は保険証をお持ちください。'],
  ['ja: the customer\'s own date of birth, repeated', 'ご登録の生年月日は1980年1月1日と伺っております。'],
  ['ja: a passport holder', 'パスポートケースの在庫をお知らせいたします。'],
  ['ja: a phish described', '「マイナンバーカードの写真を送ってください」というメールにはご注意ください。'],
  ['en: a student ID card', 'Please send us your student ID card number.'],
  ['en: do not send', 'Please do not send your passport by email.'],
  ['en: never', 'We will never ask you to send your Social Security number.'],
  ['en: enter on the form', 'Enter your date of birth on the form.'],
  ['en: the customer\'s own', 'Thank you, your date of birth is on file.'],
  ['en: the DOB field', 'Please tell us whether the date of birth field shows an error.'],
  ['ko: never', '주민등록번호를 보내지 마세요.'],
  ['zh: do not', '请勿发送身份证照片。'],
  ['ja: show it, casual', '運転免許証を窓口で見せて。'],
  ['ja: written on the form', 'パスポートの写真を申込書に書き添えてください。'],
  ['en: type it on the form', 'Type your date of birth in the form and press Next.'],
];

describe('secretRequest: identity documents and national ids', () => {
  it.each(ASKS)('finds the ask in %s', (_name, text) => {
    expect(secretRequest(text)).toBeDefined();
    expect(secretRequestReason(text)).toBe(IDENTITY_REQUEST_REASON);
  });
  it.each(DOES_NOT_ASK)('finds nothing in %s', (_name, text) => {
    expect(secretRequest(text)).toBeUndefined();
  });
});

// As an ask for a gift card's codes: the knowledge asking for the same document vouches for the draft's ask.
describe('secretRequest: an identity ask the knowledge makes too', () => {
  const manual = '年齢確認のため、運転免許証またはパスポートの写真を添付してご返信ください。';
  it.each<[string, string, readonly string[], boolean]>([
    ['the same document', '恐れ入りますが、運転免許証の写真を添付してご返信ください。', [manual], false],
    ['the same document, in English', "Please attach a photo of your driver's license.", [manual], false],
    ['another document', 'マイナンバーカードの写真を添付してご返信ください。', [manual], true],
    ['one listed beside it that the knowledge lacks', '運転免許証とマイナンバーカードの写真を添付してご返信ください。', [manual], true],
    ['no knowledge', '運転免許証の写真を添付してご返信ください。', [], true],
    // Bug review R3a: a manual describes the steps rather than asking, so naming the kind vouches for it.
    ['knowledge that only names it', '運転免許証の写真を添付してご返信ください。', ['運転免許証は窓口でご提示ください。'], false],
  ])('%s', (_name, draft, knowledge, parked) => {
    expect(secretRequest(draft, knowledge) !== undefined).toBe(parked);
  });
  it('never lets a password ask through', () => {
    const knowledge = ['パスワードを返信でお知らせください。'];
    expect(secretRequestReason('パスワードを返信でお知らせください。', knowledge)).toBe(SECRET_REQUEST_REASON);
  });
});

// Bug review R3a of session 48: ordinary eKYC and lookup replies that parked, and identity words that passed.
describe('secretRequest: identity asks bug review R3a found', () => {
  it.each<[string, string, readonly string[]]>([
    ['ja: submit in マイページ', 'マイページの「本人確認」から、運転免許証またはマイナンバーカードの画像をご提出ください。', []],
    ['ja: photograph and send in the app', 'アプリを開き、運転免許証の表面と裏面を撮影して送信してください。', []],
    ['ja: upload on the site', 'サイトの本人確認フォームからパスポートの画像をアップロードしてください。', []],
    ['ko: attach in the app', '앱의 인증 메뉴에서 신분증 사진을 첨부해 주세요.', []],
    ['en: through the secure upload', "Open the app, go to Settings > Verification and send us a photo of your driver's license through the secure upload there.", []],
    ['en: on the website', 'Please send us a scan of your passport through the website.', []],
    ['en: need it at check-in', 'At check-in, we will need your passport and your booking reference.', []],
    ['ja: name and date of birth for a lookup', 'ご本人様確認のため、ご登録のお名前と生年月日をお知らせください。', []],
    ['ja: date of birth in a list', 'お調べいたしますので、ご予約時のお名前、お電話番号、生年月日をご返信ください。', []],
    ['ja: date of birth alone', 'ご本人確認のため、生年月日をお知らせください。', []],
    ['en: date of birth alone', 'Please tell us your date of birth.', []],
    ['ja: knowledge names the kind in its steps', '運転免許証の写真を添付してご返信ください。', ['本人確認は、アプリから運転免許証などの画像を送信して行います。']],
    ['ja: knowledge names the general word', '運転免許証の画像を添付してご返信ください。', ['本人確認は、マイページから本人確認書類の画像を提出して行います。']],
    ['en: knowledge names a photo ID', "Please attach a photo of your driver's license to your reply.", ['Verification: upload a photo ID in the app.']],
  ])('lets through %s', (_name, draft, knowledge) => {
    expect(secretRequest(draft, knowledge)).toBeUndefined();
  });
  it.each<[string, string, readonly string[]]>([
    ['ja: by mail, not the app', 'アプリではなく、運転免許証の写真を本メールに添付してご返信ください。', []],
    ['en: reply, not the portal', 'Instead of the portal, please reply to this email with a photo of your passport.', []],
    ['ja: date of birth with a document', 'お名前、生年月日、運転免許証の写真をご返信ください。', ['運転免許証は窓口でご提示ください。']],
    ['en: date of birth with a photo', 'Please reply with a photo showing your date of birth.', []],
    ['ja: knowledge names another kind', 'マイナンバーカードの写真を添付してご返信ください。', ['運転免許証の画像を送信して行います。']],
    ['ja: 健康保険の記号・番号', 'ご本人確認のため、健康保険の記号・番号をご返信ください。', []],
    ['en: Social Insurance Number', 'To verify the account holder, please reply with your Social Insurance Number.', []],
    ['en: government ID', 'Please attach a scan of your government ID to your reply.', []],
  ])('parks %s', (_name, draft, knowledge) => {
    expect(secretRequestReason(draft, knowledge)).toBe(IDENTITY_REQUEST_REASON);
  });
});

// Session 49 (H3; review R3a of session 48, LOW 11 left): a passport or ID ask in Portuguese, Spanish, French or German
// passed (no identity words nor asks in those languages), and "birthday" was no date of birth.
describe('secretRequest: identity asks in the European languages, and "birthday"', () => {
  it.each<[string, string, readonly string[]]>([
    ['pt: a photo of the passport by e-mail', 'Para verificar a sua identidade, envie uma foto do seu passaporte por e-mail.', []],
    ['pt-BR: nos envie the identity card', 'Por favor, nos envie uma cópia da sua carteira de identidade.', []],
    ['pt: anexe the driving licence to the reply', 'Anexe a sua carta de condução à resposta a este e-mail.', []],
    ['es: envíenos the passport or identity document', 'Para continuar, envíenos una foto de su pasaporte o de su documento de identidad.', []],
    ['es: adjunte the driving licence', 'Adjunte una copia de su licencia de conducir a su respuesta.', []],
    ['fr: the identity card by e-mail', "Merci de nous envoyer une copie de votre carte d'identité par e-mail.", []],
    ['fr: joignez the passport', 'Veuillez joindre une photo de votre passeport à votre réponse.', []],
    ['de: the identity card', 'Bitte senden Sie uns eine Kopie Ihres Personalausweises.', []],
    ['de: the passport by e-mail', 'Schicken Sie uns bitte ein Foto Ihres Reisepasses per E-Mail.', []],
    ['en: a scan showing the birthday', 'Please send us a scan showing your birthday.', []],
    ['en: birthday beside a document', 'Please reply with your birthday and a photo of your ID card.', ['Bring your passport to the counter.']],
    ['pt: the knowledge names another kind', 'Envie uma foto do seu passaporte por e-mail.', ['Para verificar, apresente a carteira de motorista no balcão.']],
  ])('parks %s', (_name, draft, knowledge) => {
    expect(secretRequestReason(draft, knowledge)).toBe(IDENTITY_REQUEST_REASON);
  });
  it.each<[string, string, readonly string[]]>([
    ['pt: through the app', 'Envie uma foto do seu passaporte pelo aplicativo.', []],
    ['pt: shown at check-in', 'No check-in, apresente o seu passaporte no balcão.', []],
    ['es: a warning', 'Nunca le pediremos que nos envíe su pasaporte por correo.', []],
    ['es: on the website', 'Suba una foto de su documento de identidad en nuestro sitio web.', []],
    ['fr: shown at the counter', "Présentez votre carte d'identité au guichet lors du retrait.", []],
    ['de: shown at the counter', 'Bitte bringen Sie Ihren Personalausweis zur Abholung mit.', []],
    ['pt: the knowledge asks the same', 'Envie uma foto do seu passaporte por e-mail.', ['Para verificar a identidade, envie uma foto do passaporte.']],
    ['es: the knowledge in English names the kind', 'Envíenos una foto de su pasaporte.', ['Identity checks: a photo of the passport is required.']],
    ['en: birthday alone, as a date of birth', 'To confirm your identity, please reply with your full name and birthday.', []],
    ['en: a birthday coupon', 'Please reply with a photo of your birthday coupon so we can apply it.', []],
    ['en: happy birthday', 'Happy birthday! Please send us your feedback on the new app.', []],
    ['pt: a photo of the product', 'Por favor, envie uma foto do produto danificado por e-mail.', []],
  ])('lets through %s', (_name, draft, knowledge) => {
    expect(secretRequest(draft, knowledge)).toBeUndefined();
  });
});

// Bug review B1 of session 49 (MED 1–3, LOW): the European gap ran past "and" into the next clause (send the form and
// bring the passport to the counter parked); a customer area or portal written in those languages was no site; DNI,
// NIE, RG and CNH were no documents; "birthday" before another noun (an outfit, a girl) was read as a date of birth.
// "Birthday" is now a date of birth only as the thing itself, not as a word that describes another.
describe('secretRequest: bug review B1 of session 49', () => {
  it.each<[string, string]>([
    ['es: DNI by e-mail', 'Envíe una copia de su DNI por correo electrónico.'],
    ['es: NIE', 'Por favor, envíenos una foto de su NIE.'],
    ['pt-BR: RG or CNH', 'Mande-nos uma foto do seu RG ou CNH.'],
    ['es: the name, then a photo of the passport', 'Envíe su nombre y una foto de su pasaporte.'],
    ['de: passport after "und Ihren"', 'Bitte senden Sie uns das Formular und Ihren Reisepass per E-Mail.'],
    ['en: your birthday, in a scan', 'Please send us a scan of your ID card showing your birthday.'],
    ['es: the form, and then a copy of the passport', 'Envíe el formulario y luego una copia de su pasaporte.'],
    ['es: NIE after su', 'Envíenos una copia de su NIE.'],
  ])('parks %s', (_name, draft) => {
    expect(secretRequestReason(draft, [])).toBe(IDENTITY_REQUEST_REASON);
  });
  it.each<[string, string]>([
    ['es: send the form and bring the passport', 'Envíe el formulario y lleve su pasaporte al mostrador.'],
    ['es: attach the invoice and show the ID card in the shop', 'Adjunte la factura y muestre su documento de identidad en la tienda.'],
    ['pt: send the form and bring the passport', 'Envie o formulário e traga o seu passaporte ao balcão.'],
    ['fr: send the form and present the passport', 'Envoyez le formulaire et présentez votre passeport au guichet.'],
    ['de: send the form, then bring the passport', 'Senden Sie uns das Formular und bringen Sie Ihren Reisepass zum Schalter mit.'],
    ['es: through our web page', 'Envíe una foto de su pasaporte a través de nuestra página web.'],
    ['es: through our web', 'Envíe una foto de su pasaporte a través de nuestra web.'],
    ['pt: through the customer area', 'Envie uma foto do seu passaporte pela área do cliente.'],
    ['fr: through the customer space', 'Envoyez une photo de votre passeport via votre espace client.'],
    ['de: through the customer portal', 'Senden Sie uns ein Foto Ihres Reisepasses über das Kundenportal.'],
    ['en: a birthday outfit', 'Please send us a picture of your birthday outfit for the contest.'],
    ['en: the birthday girl', 'Send a photo of the birthday girl with the cake to our contest page.'],
    ['de: NIE stresses "never" in a warning', 'Senden Sie uns NIE Ihr Passwort oder Ihren Reisepass per E-Mail.'],
  ])('lets through %s', (_name, draft) => {
    expect(secretRequest(draft, [])).toBeUndefined();
  });
});

// Bug review B3 of session 49 (HIGH 2, MED 3, LOW 8/9): the European clause ended at any "and" before an item the list
// of openers lacked (pt um/uma, de ein/eine/einen, an adverb: también, aussi), so the passport asked after it passed;
// "web" was a channel in English too ("your web account"); DNI, RG and CNH were documents in any context (an RG-6
// connector, a CNH tractor); "birthday (MM/DD/YYYY)" was no date of birth. The clause now ends only before the verb of
// another action (lleve, traga, présentez, bringen…).
describe('secretRequest: bug review B3 of session 49', () => {
  it.each<[string, string]>([
    ['pt: the form and a copy of the passport', 'Envie o formulário e uma cópia do seu passaporte.'],
    ['de: the form and a copy of the passport', 'Senden Sie uns das Formular und eine Kopie Ihres Reisepasses.'],
    ['de: the form and a photo of the passport', 'Senden Sie uns das Formular und ein Foto Ihres Reisepasses.'],
    ['de: the form and a scan of the passport', 'Senden Sie uns das Formular und einen Scan Ihres Reisepasses.'],
    ['es: y también', 'Envíe el formulario y también una foto de su pasaporte.'],
    ['es: y además', 'Envíe el formulario y además una foto de su pasaporte.'],
    ['es: y nuevamente', 'Envíe el formulario y nuevamente una foto de su pasaporte.'],
    ['es: y por favor', 'Envíe el formulario y por favor una foto de su pasaporte.'],
    ['fr: et aussi', 'Envoyez le formulaire et aussi votre passeport.'],
    ['fr: et bien sûr', 'Envoyez le formulaire et bien sûr votre passeport.'],
    ['pt: e também', 'Envie o formulário e também uma cópia do seu passaporte.'],
    ['en: to verify your web account', 'Send a photo of your passport to verify your web account.'],
    ['en: to activate your web account', 'Please send us a copy of your passport to activate your web account.'],
    ['en: birthday (MM/DD/YYYY) and passport number', 'Please tell us your birthday (MM/DD/YYYY) and passport number.'],
    ['es: DNI after una foto de su', 'Envíe una foto de su DNI.'],
    ['pt: RG after do seu', 'Envie uma foto do seu RG.'],
  ])('parks %s', (_name, draft) => {
    expect(secretRequestReason(draft, [])).toBe(IDENTITY_REQUEST_REASON);
  });
  it.each<[string, string]>([
    ['en: an RG-6 connector', 'Please send us a photo of the RG-6 connector so we can check it.'],
    ['en: an RG58 cable', 'Please send us the RG58 cable back.'],
    ['en: a CNH tractor manual', 'Please send the CNH tractor manual.'],
    ['es: send the form and bring the passport', 'Envíe el formulario y traiga su pasaporte a la oficina.'],
    ['pt: send the form and present the passport', 'Envie o formulário e apresente o seu passaporte no balcão.'],
    ['de: send the form and show the passport', 'Senden Sie uns das Formular und zeigen Sie Ihren Reisepass am Schalter.'],
    ['es: through nuestra web', 'Envíe una foto de su pasaporte por nuestra web.'],
    ['pt: through a nossa web', 'Envie uma foto do seu passaporte pela nossa web.'],
  ])('lets through %s', (_name, draft) => {
    expect(secretRequest(draft, [])).toBeUndefined();
  });
});
