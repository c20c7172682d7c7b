/**
 * A draft that asks the customer to send a secret by mail (password, PIN, a one-time code, the card number, CVV, a
 * recovery code) is parked whatever the review mode: no genuine support reply asks for one, so such a draft is a
 * model that obeyed an instruction slipped into a mail, or a confused one (security review 6, finding 1).
 */
import { describe, expect, it } from 'vitest';
import { SECRET_REQUEST_REASON, secretRequest, secretRequestReason } from '../../src/tickets/secret-request.js';

// Asking for the secret itself, to be written back to us.
const ASKS: ReadonlyArray<[string, string]> = [
  ['ja: password by reply', 'パスワードを返信でお知らせください。'],
  ['ja: code written into this mail', '認証コードを本メールにご記入のうえご返信ください。'],
  ['ja: card number and security code', 'カード番号とセキュリティコードをお送りください。'],
  ['ja: PIN, polite question', '恐れ入りますが、暗証番号をお知らせいただけますでしょうか。'],
  ['ja: apology first, then the ask', '申し訳ございませんが、本人確認のため現在のパスワードを教えてください。'],
  ['ja: one-time password by mail', '届いたワンタイムパスワードをメールにてお送りいただけますか。'],
  ['ja: bank PIN for a refund', '返金先の口座番号と暗証番号をこのメールに返信してください。'],
  ['ja: recovery code', 'お手元のリカバリーコードをご返信ください。'],
  ['ja: confirmation code in the body', '確認コードを本文に記載して送ってください。'],
  ['ja: passcode to us', 'パスコードをご連絡ください。'],
  ['ja: listed with other data', 'ご登録のメールアドレス、パスワードを、こちらまでお知らせください。'],
  ['ja: CVV', 'カード裏面のCVVをご返信いただけますと幸いです。'],
  ['ja: topic particle', 'パスワードはメールにてお知らせください。'],
  ['ja: polite, asking first', 'お手数ですが、暗証番号を教えていただけますか。'],
  ['ja: fraud named as the excuse', '不正利用・詐欺防止のため、暗証番号をお知らせください。'],
  ['en: password by reply', 'Please reply with your password.'],
  ['en: fraud named as the excuse', 'To prevent fraud, please send us your PIN.'],
  ['en: the code we sent', 'Please reply to this email with the code we sent you.'],
  ['en: the 6-digit code', 'Send us the 6-digit code you received.'],
  ['en: share the PIN', 'Could you share your PIN?'],
  ['en: tell us', 'To verify your identity, please tell us your current password.'],
  ['en: card number and CVV', 'Kindly provide your full card number and CVV so we can process the refund.'],
  ['en: verification code', 'Could you please send the verification code to this address?'],
  ['en: recovery codes', 'Please email us your recovery codes.'],
  ['en: include in the reply', 'Please include your passcode in your reply.'],
  ['en: we need it', 'We will need your online banking PIN to continue.'],
  ['en: reply to this email with', 'Reply to this email with the one-time code from the SMS.'],
  ['en: let us know', 'Let us know your password and we will check the account.'],
  ['en: security code', 'Can you give us the security code on the back of your card?'],
  ['ko: password', '비밀번호를 회신으로 알려 주세요.'],
  ['ko: verification code', '인증번호를 보내 주세요.'],
  ['zh: password', '请回复您的密码。'],
  ['zh: verification code', '请把验证码发送给我们。'],
  // A payment card's number and a code that logs in stay secrets beside the identifiers below that share their words.
  ['ja: credit card number', 'クレジットカード番号をお知らせください。'],
  ['ja: confirmation code from the SMS', 'SMSで届いた確認コードをお知らせください。'],
  ['ja: SMS code, even at booking', 'ご予約時にSMSで届いた確認コードをご返信ください。'],
  ['ja: login confirmation code', 'ログイン確認コードをお知らせください。'],
  ['ja: two-step confirmation code', '2段階認証の確認コードをお送りください。'],
  ['en: credit card number', 'Please send us your credit card number.'],
  ['en: SMS confirmation code', 'Please reply with the SMS confirmation code.'],
  ['en: PIN code', 'Please send us your PIN code.'],
  ['en: the 6-digit code from the text', 'Send us the 6-digit code from the text message.'],
  ['zh: bank card number', '请提供您的银行卡号。'],
  ['ko: credit card number', '신용카드 번호를 알려 주세요.'],
  ['ko: login confirmation code', '로그인 확인 코드를 보내 주세요.'],
  // What got past it (security review 7, finding 4): an invisible character inside a word, a line break between the
  // secret and the verb, a 不 elsewhere in a Chinese sentence, common synonyms, Korean 부탁드립니다/바랍니다, 麻煩.
  ['ja: zero-width space inside the secret', 'ご本人確認のため、パス\u200Bワードをお知らせください。'],
  ['ja: zero-width space inside the verb', 'ご本人確認のため、パスワードをお\u200B知らせください。'],
  ['ja: soft hyphen inside the secret', '暗証\u00AD番号をお知らせください。'],
  ['ja: word joiner inside the secret', 'パス\u2060ワードをお知らせください。'],
  ['en: zero-width space inside the secret', 'Please reply with your pass\u200Bword.'],
  ['en: zero-width joiner inside the secret', 'Please reply with your pass\u200Dword.'],
  ['ja: line break between secret and verb', 'ご本人確認のため、パスワードを\nお知らせください。'],
  ['ja: CRLF between secret and verb', 'ご本人確認のため、パスワードを\r\nお知らせください。'],
  ['en: line break between verb and secret', 'Please reply with\nyour password.'],
  ['ja: 認証番号', 'SMSで届いた認証番号をこのメールにご返信ください。'],
  ['ja: ログイン情報', 'ログイン情報を本メールにご返信ください。'],
  ['ja: ログインID and password', 'ログインIDとパスワードをお知らせください。'],
  ['ja: PW', 'PWをメールでお知らせください。'],
  ['en: login credentials', 'Please reply with your login credentials so we can check your account.'],
  ['en: credentials', 'Please send us your credentials.'],
  ['en: login details', 'Could you share your login details with us?'],
  ['en: account password', 'Please tell us your account password.'],
  ['ko: 회신 부탁드립니다', '비밀번호를 기재하여 회신 부탁드립니다.'],
  ['ko: 회신 바랍니다', '인증번호를 회신 바랍니다.'],
  ['ko: 보내 주시기 바랍니다', '비밀번호를 회신으로 보내 주시기 바랍니다.'],
  ['zh: 不 in another clause', '为了不影响使用，请告知您的密码。'],
  ['zh: 不 earlier in the same sentence', '如果不方便登录，请把验证码发给我们。'],
  ['zh: 麻烦 without 请', '麻烦把密码发过来。'],
  ['zh: traditional 麻煩', '麻煩提供您的密碼。'],
  ['zh: we need you to provide', '我们需要您提供账户密码以便核实。'],
  ['de: send us your password', 'Bitte senden Sie uns Ihr Passwort per E-Mail.'],
  ['de: tell us your PIN', 'Teilen Sie uns Ihre PIN mit.'],
  ['fr: send us your password', 'Veuillez nous envoyer votre mot de passe par e-mail.'],
  ['fr: the verification code', 'Merci de nous communiquer le code de vérification reçu par SMS.'],
  ['es: send us your password', 'Por favor, envíenos su contraseña por correo.'],
  ['es: the verification code', 'Indíquenos el código de verificación que recibió.'],
  // A secret that a verb follows is still asked for when the sentence asks what it is, and, in German, French and
  // Spanish, unless it opens the next item after a comma or "puis" (bug review 39, finding 3).
  ['en: what the PIN is set to', 'Please tell us what your PIN is set to.'],
  ['en: what the password was changed to', 'Please let us know what your password was changed to.'],
  ['en: what the password was set to', 'Please tell us what your password was set to when you created the account.'],
  ['en: which passcode was used', 'Could you tell us which passcode was used?'],
  // After another item and "and", the what/which before the secret still wins over its verb (bug review 39b, finding 6).
  ['en: an item, and what the password is set to', 'Please tell us your account ID and what your password is set to.'],
  ['en: a longer item, and what the password is', 'Please tell us your full account ID and what your password is.'],
  ['en: an item, and which PIN was used', 'Please let us know your card number and which PIN was used.'],
  ['en: an item, comma and what the passcode is', 'Could you tell us your username, and what your passcode was changed to?'],
  ['en: we need an item and what the PIN is set to', 'We will need your customer number and what your PIN is set to.'],
  ['es: qué contraseña está usando', 'Por favor, indíquenos qué contraseña está usando.'],
  ['fr: quel mot de passe est utilisé', 'Veuillez nous indiquer quel mot de passe est utilisé.'],
  ['es: the code, then se', 'Por favor, envíenos el código de verificación se lo enviamos por SMS.'],
  ['de: mit, welches Passwort', 'Bitte teilen Sie uns mit, welches Passwort Sie verwenden.'],
  // What got past it (security review 16, finding 1): Latin inside Japanese (full width folds to it), the verb in
  // kana, "reply with" in the short lists, Portuguese.
  ['ja: full-width Latin Password', 'Ｐａｓｓｗｏｒｄを返信でお知らせください。'],
  ['ja: Latin password', 'ご本人確認のため、passwordをご返信ください。'],
  ['ja: Latin passcode', 'Passcodeを本メールにてお送りください。'],
  ['ja: full-width OTP', 'ＯＴＰを返信でお知らせください。'],
  ['ja: the verb in kana, おしらせ', 'パスワードを返信でおしらせください。'],
  ['ja: the verb in kana, おおしえ', '暗証番号をおおしえください。'],
  ['ja: the verb in kana, おおくり', '認証コードをおおくりください。'],
  ['ja: the verb in kana, ごれんらく', 'パスコードをごれんらくください。'],
  ['ja: the verb in kana, ごへんしん', 'パスワードをごへんしんください。'],
  ['ja: the verb in kana, おしえて', 'パスワードをおしえてください。'],
  ['ja: the verb in kana, おくって', 'パスワードをおくってください。'],
  ['es: respóndanos con', 'Por favor, respóndanos con su contraseña actual.'],
  ['es: responda a este correo con', 'Responda a este correo con su contraseña.'],
  ['de: antworten Sie mit', 'Bitte antworten Sie auf diese E-Mail mit Ihrem Passwort.'],
  ['de: antworten Sie uns mit', 'Antworten Sie uns mit Ihrem aktuellen Passwort.'],
  ['fr: répondez avec', 'Répondez à ce message avec votre mot de passe.'],
  ['fr: répondez-nous en indiquant', 'Répondez-nous en indiquant votre mot de passe.'],
  ['pt: responda com a sua senha', 'Responda a este e-mail com a sua senha atual.'],
  ['pt: envie-nos', 'Por favor, envie-nos a sua senha.'],
  ['pt: informe o código', 'Informe-nos o código de verificação que recebeu.'],
  ['pt: br, mande', 'Por favor, mande sua senha para nós.'],
];

// Everything else a reply says about passwords and codes.
const DOES_NOT_ASK: ReadonlyArray<[string, string]> = [
  ['ja: enter on the screen', 'パスワードを入力してください。'],
  ['ja: enter the code on the screen', 'アプリに表示された 6 桁のコードを入力して「確認」を押します。'],
  ['ja: we send a temporary password', '仮パスワードをお送りします。'],
  ['ja: we send it, then reply', '仮パスワードをお送りしますので、ログインできたかご返信ください。'],
  ['ja: no need to send it', 'パスワードをメールでお送りいただく必要はありません。'],
  ['ja: never tell it', 'パスワードや認証コードは、当社の担当者にも決してお知らせにならないでください。'],
  ['ja: we never ask', '当社からパスワードをお伺いすることはございません。'],
  ['ja: do not reply with it', '暗証番号をメールでご返信なさらないようご注意ください。'],
  ['ja: reset', 'パスワードを忘れた場合は、ログイン画面の「パスワードをお忘れの方」から再設定してください。'],
  ['ja: change', 'パスワードを変更するには「設定」→「セキュリティ」を開きます。'],
  ['ja: forgot it, contact us', 'パスワードがわからない場合は、本メールにご返信ください。'],
  ['ja: forgot it, contact us (を)', 'パスワードを忘れてしまった場合はご連絡ください。'],
  ['ja: code arrives by SMS', '確認コードが SMS で届かない場合は、迷惑 SMS フィルターの設定をご確認ください。'],
  ['ja: store the backup codes', '最後に表示されるバックアップコードを安全な場所に保管して「完了」を押します。'],
  ['ja: last four digits', 'ご本人確認のため、カード番号の下4桁をお知らせください。'],
  ['ja: reset link sent', 'パスワード再設定用のリンクをお送りしましたので、ご確認ください。'],
  ['ja: ask for the result', 'パスワードを再設定したあと、ログインできたかどうかをお知らせください。'],
  ['ja: policy', 'パスワードは 8 文字以上で、英字と数字を含めてください。'],
  ['ja: did the code arrive', '認証コードは届いているかご返信ください。'],
  ['ja: those without a password', 'パスワードをお持ちでない方はご連絡ください。'],
  ['ja: once set, tell us', '新しいパスワードを設定したらご返信ください。'],
  ['ja: the phish quoted', '「パスワードを返信してください」というメールは詐欺です。'],
  ['en: enter the code', 'Enter the code on the sign-in page.'],
  ['en: the phish quoted', 'Emails saying "reply with your password" are phishing.'],
  ['en: code did not arrive', 'If the verification code does not arrive, reply to this email.'],
  ['en: feedback on the rules', 'Please share your feedback on the new password rules.'],
  ['en: we have sent one', 'We have sent you a temporary password.'],
  ['en: we will send a code', 'We will send you a one-time code by SMS.'],
  ['en: never ask', 'We will never ask for your password.'],
  ['en: do not share', 'Do not share your PIN with anyone, including our staff.'],
  ['en: please never send', 'Please never send your password by email.'],
  ['en: no need', 'There is no need to send us your card number.'],
  ['en: reset', 'Reset your password from the "Forgot password?" link on the sign-in page.'],
  ['en: change', 'To change your PIN, open Settings > Security.'],
  ['en: reset link', 'Please send us a screenshot of the password reset page.'],
  ['en: error code', 'Please send us the error code shown on the screen.'],
  ['en: forgot it', "If you can't remember your password, reply to this email and we will help."],
  ['en: last four digits', 'Please tell us the last four digits of your card number.'],
  ['en: booking confirmation code', 'Please send us your booking confirmation code.'],
  ['en: type the code', 'Type the verification code from the app and click Verify.'],
  ['ko: do not tell', '비밀번호는 누구에게도 알려 주지 마세요.'],
  ['zh: do not send', '请勿将密码发送给任何人。'],
  // Identifiers a desk asks for to find a customer, a booking or a device: no secret (bug review 38b, finding 5).
  ['ja: point card number', 'ポイントカード番号をお知らせください。'],
  ['ja: member card number', '会員カード番号をお知らせいただけますでしょうか。'],
  ['ja: members card number with the name', 'メンバーズカード番号とお名前をお送りください。'],
  ['ja: T-point card number', 'お手数ですが、Tポイントカード番号をご連絡ください。'],
  ['ja: booking confirmation code', 'ご予約の確認コードをお知らせください。'],
  ['ja: reservation confirmation code', '予約確認コードをご返信ください。'],
  ['ja: confirmation code of the order mail', 'ご注文確認メールに記載の確認コードをお知らせください。'],
  ['ja: booking number and its code', '予約番号と確認コードをお知らせください。'],
  ['ja: code shown on the TV', 'テレビ画面に表示されている6桁のコードをお知らせください。'],
  ['en: membership card number', 'Please send us your membership card number so we can look up your points.'],
  ['en: loyalty card number', 'Could you tell us your loyalty card number?'],
  ['en: rewards card number', 'Please provide your rewards card number and the store name.'],
  ['en: library card number', 'We will need your library card number to renew the loan.'],
  ['en: student ID card number', 'Please send us your student ID card number.'],
  ['en: booking confirmation code by reply', 'Please reply with the booking confirmation code.'],
  ['en: order confirmation code', 'Please share your order confirmation code and the email address you booked with.'],
  ['en: booking reference', 'Please send us your booking reference.'],
  ['en: pairing code on the device', 'Please send us the 6-digit code shown on the device screen so we can register it.'],
  ['en: code on the printer', 'Please tell us the 8-digit code displayed on the printer.'],
  ['en: PIN code as a postal code', 'Please tell us the PIN code area you live in.'],
  ['en: PIN code of the delivery address', 'Please send us the PIN code of your delivery address.'],
  ['zh: member card number', '请提供您的会员卡号，以便我们查询积分。'],
  ['zh: order and member card numbers', '请告诉我们您的订单号和会员卡号。'],
  ['zh: points card number', '请发送您的积分卡号。'],
  ['zh: traditional member card number', '請提供您的會員卡號。'],
  ['zh: booking confirmation code', '请告知您的预订确认码。'],
  ['ko: membership card number', '멤버십 카드 번호를 알려 주세요.'],
  ['ko: point card number', '포인트 카드 번호를 보내 주세요.'],
  ['ko: member card number', '회원 카드번호를 알려 주시겠어요?'],
  ['ko: booking confirmation code', '예약 확인 코드를 알려 주세요.'],
  // The new synonyms and the Chinese negation near the verb (security review 7, finding 4).
  ['ja: how to change the login details', 'ログイン情報の変更方法はこちらです。'],
  ['ja: PW reset', 'PWの再設定はこちらから。'],
  ['ja: login details resent', 'ログイン情報を再送いたしましたので、ご確認ください。'],
  // パスポート番号 is an identity document's (test/unit/draft-asks-for-identity.test.ts), not a secret's.
  ['ja: passport case', 'パスポートケースの色をお知らせください。'],
  ['ja: free pass', 'フリーパスをお送りします。'],
  ['en: login details on the welcome page', 'Your login details are on the welcome page.'],
  ['en: forgot the login details', 'If you forgot your login details, reply to this email and we will reset them.'],
  ['en: do not send credentials', 'Please do not send us your login credentials.'],
  ['en: credentials page', 'Please send us a screenshot of the login details page.'],
  ['ko: reply after resetting', '비밀번호를 재설정하신 후 회신 부탁드립니다.'],
  ['ko: never share', '비밀번호는 누구에게도 알려 주지 마시기 바랍니다.'],
  ['zh: please do not', '请不要把密码发给任何人。'],
  ['zh: we never ask', '我们不会要求您提供密码。'],
  ['zh: no need to provide', '我们不需要您提供密码。'],
  ['zh: never tell', '切勿告诉他人您的验证码。'],
  ['zh: traditional please do not', '請勿將密碼提供給任何人。'],
  ['zh: reply after the reset', '密码重置后，请告诉我们能否登录。'],
  ['de: never send', 'Senden Sie uns niemals Ihr Passwort.'],
  ['de: enter it on the page', 'Bitte geben Sie Ihr Passwort auf der Anmeldeseite ein.'],
  ['de: screenshot of the password page', 'Bitte senden Sie uns einen Screenshot der Passwort-Seite.'],
  ['fr: never send', 'Ne nous envoyez jamais votre mot de passe.'],
  ['fr: type it', 'Veuillez saisir votre mot de passe sur la page de connexion.'],
  ['fr: tell us whether the reset worked', 'Indiquez-nous si vous avez pu réinitialiser votre mot de passe.'],
  ['es: we never ask', 'Nunca le pediremos su contraseña.'],
  ['es: reset it', 'Por favor, restablezca su contraseña desde el enlace.'],
  ['es: tell us after the reset', 'Indíquenos cuando haya cambiado su contraseña.'],
  ['fr: elided negation', "N'envoyez-nous jamais votre code de vérification, même à notre équipe."],
  ['fr: elided negation only', "Veuillez n'envoyer votre mot de passe à personne."],
  ['es: tan is no TAN', 'Díganos tan pronto como pueda qué día le viene bien.'],
  // Beside the rows of security review 16, finding 1.
  ['ja: Latin password to enter', 'Passwordを入力してください。'],
  ['ja: kana verb, a new password sent', '新しいパスワードをおしらせします。'],
  ['ja: kana verb, never', 'パスワードは決しておしえないでください。'],
  ['ja: Latin word in a product name', 'Password Managerの設定をお知らせください。'],
  ['es: respóndanos con the order', 'Respóndanos con su número de pedido y restableceremos su contraseña.'],
  ['de: antworten mit never', 'Antworten Sie niemals mit Ihrem Passwort.'],
  ['pt: enter it', 'Digite a sua senha na página de login.'],
  ['pt: never', 'Nunca envie a sua senha a ninguém.'],
  ['pt: reset', 'Por favor, redefina a sua senha pelo link.'],
];

// パス is short for パスワード only after the account it opens (ログインパス) or on its own, at the head of a clause; in
// software support it is far more often a file or folder path (bug review 38c, finding 3).
const PASS_AS_PASSWORD: ReadonlyArray<[string, string]> = [
  ['ja: bare パス at the head of the sentence', 'パスをお知らせください。'],
  ['ja: ログインパス', 'ログインパスをお知らせください。'],
  ['ja: アカウントパス', 'ご本人確認のため、アカウントパスをご返信ください。'],
  ['ja: ログインIDとパス', 'ログインIDとパスをお知らせください。'],
];
const PASS_AS_PATH: ReadonlyArray<[string, string]> = [
  ['ja: path of the save folder', '保存先フォルダのパスをお知らせください。'],
  ['ja: path of the exported file', 'エクスポートしたファイルのパスを教えてください。'],
  ['ja: install path written into the reply', 'インストール先のパスを記載してご返信ください。'],
  ['ja: file path by mail', 'ファイルのパスはメールにてお知らせください。'],
  ['ja: save-to path', 'ログファイルの保存先パスをお知らせください。'],
  ['ja: absolute path', '絶対パスをお知らせください。'],
  ['ja: relative path', '相対パスを教えてください。'],
  ['ja: URL or path', '共有フォルダーのURLまたはパスをお知らせください。'],
  ['ja: network drive path', 'ネットワークドライブのパスをご返信ください。'],
  ['ja: directory path', 'インストールディレクトリのパスをお送りください。'],
  ['en: the file path', 'Please send us the file path shown in the error dialog.'],
  ['en: the install path', 'Please send us the full path to the installation folder.'],
];

// The secret must stand in the clause that asks: "send us your customer number, then we reset your password" asks for
// the number only (bug review 38c, findings 4 and 10). (The Spanish rows asked for a DNI, which is an identity document
// since bug review B1 of session 49, asked for in its own right: an order number in its place.)
const ASKS_IN_ANOTHER_CLAUSE: ReadonlyArray<[string, string]> = [
  ['de: comma, dann', 'Bitte senden Sie uns Ihre Kundennummer, dann setzen wir Ihr Passwort zurück.'],
  ['de: comma, wir', 'Bitte schicken Sie uns Ihre Bestellnummer, wir setzen Ihr Passwort dann zurück.'],
  ['de: comma, damit', 'Bitte senden Sie uns Ihre Kundennummer, damit wir Ihr Passwort ändern.'],
  ['fr: comma, puis', 'Envoyez-nous votre nom, puis changez votre mot de passe.'],
  ['fr: comma, nous', 'Envoyez-nous votre nom, nous changeons votre mot de passe.'],
  ['fr: semicolon', 'Veuillez nous indiquer votre nom; nous changeons le mot de passe.'],
  ['es: comma, luego', 'Envíenos su número de pedido, luego cambiamos su contraseña.'],
  ['es: y luego', 'Envíenos su número de pedido y luego cambiamos su contraseña.'],
  ['es: comma, next verb', 'Envíenos su número de pedido, cambiaremos su contraseña.'],
  ['en: comma, we', "Send us your email, we'll reset your password."],
  ['en: comma, then', 'Please send us your order number, then your password will be reset.'],
  ['en: so', 'Please provide your order number so your password can be reset.'],
  ['zh: ，我们将', '请提供您的订单号，我们将为您重置密码。'],
  ['zh: ，我们会发送', '请告诉我们您的用户名，我们会发送重置密码的链接。'],
  ['zh: ，稍后', '请回复您的注册邮箱，稍后我们会通过邮件发送新的临时密码给您。'],
  ['zh: ，然后', '请告诉我们订单号，然后我们会重置密码。'],
  ['zh: ，之后', '请提供订单号，之后密码会重置。'],
  ['zh: 以便', '请提供订单号以便我们重置密码。'],
  ['zh: 请放心，we send it', '请放心，我们会把验证码发给您。'],
  ['ko: comma after the secret', '새 비밀번호는 메일로 발송되었으니, 주문번호를 알려 주세요.'],
  ['ko: comma, another object', '비밀번호 문제는 해결해 드릴게요, 주문번호만 알려 주세요.'],
  ['ko: 으니 ends the clause', '비밀번호를 초기화해 드리겠으니 주문번호를 알려 주세요.'],
  ['ja: 前に、another object', 'パスワードをお送りする前に、ご注文番号をお知らせください。'],
  // "then" and a comma before a noun phrase go on with the ask, but not when that noun phrase has a verb of its own
  // (bug review 38d, finding 2).
  ['en: comma, then it', 'Please send us your order number, then it will reset your password.'],
  ['en: the secret has its own verb', 'Please let us know your password has been reset.'],
  ['fr: puis, the secret has its own verb', 'Envoyez-nous votre nom, puis votre mot de passe sera réinitialisé.'],
  ['de: dann, the secret has its own verb', 'Bitte senden Sie uns Ihre Kundennummer, dann wird Ihr Passwort zurückgesetzt.'],
  ['zh: ，the secret has its own verb', '请提供订单号，密码重置链接将发送给您。'],
  ['zh: ，new password sent later', '请提供您的订单号，新密码会在重置后发给您。'],
  ['zh: ，a clause about the secret, then ，', '请告诉我们您的邮箱，密码重置后，我们会通知您。'],
  ['zh: ，a verb before the secret', '请提供您的订单号，重置密码，然后登录。'],
  // A bare secret after a comma or "danach" is the next item only if the item ends there; a verb of its own after it
  // opens the next clause (bug review 39, finding 4).
  ['de: comma, Passwort ändern Sie', 'Bitte senden Sie uns Ihre Kundennummer, Passwort ändern Sie bitte selbst im Portal.'],
  ['fr: comma, mot de passe oublié ?', 'Envoyez-nous votre numéro client, mot de passe oublié ? Cliquez sur le lien.'],
  ['de: danach Passwort zurücksetzen', 'Bitte nennen Sie uns Ihre Kundennummer, danach Passwort zurücksetzen im Portal.'],
  ['es: comma, contraseña cambiada', 'Envíenos su número de pedido, contraseña cambiada en el portal.'],
  // What the asks above must not take in: what names another thing, a comma before the secret and its verb.
  ['en: what time the password was reset', 'Please let us know what time your password was reset.'],
  ['en: which day the PIN was changed', 'Please tell us which day your PIN was changed.'],
  ['en: an item, and what time the password was reset', 'Please tell us your account ID and what time your password was reset.'],
  ['en: an item, and the password has its own verb', 'Please tell us your account ID and your password will be reset.'],
  ['fr: comma, the secret has its own verb', 'Envoyez-nous votre nom, votre mot de passe sera réinitialisé.'],
  ['es: comma, the secret has its own verb', 'Envíenos su número de pedido, su contraseña será cambiada.'],
  ['fr: et, the secret has its own verb', 'Envoyez-nous votre nom et votre mot de passe sera réinitialisé.'],
];

// Lists stay one clause: the secret among other items is still asked for.
const ASKS_IN_A_LIST: ReadonlyArray<[string, string]> = [
  ['es: comma list', 'Envíenos su nombre, su correo y su contraseña.'],
  ['de: und', 'Bitte senden Sie uns Ihren Benutzernamen und Ihr Passwort.'],
  ['de: comma list', 'Bitte senden Sie uns Ihren Namen, Ihre Adresse und Ihr Passwort.'],
  ['fr: comma list', 'Veuillez nous envoyer votre identifiant, votre mot de passe et votre adresse.'],
  ['en: comma list', 'Please send us your name, email address, and password.'],
  ['zh: 、 list', '请提供您的用户名、邮箱和密码。'],
  ['zh: colon opens the list', '请提供以下信息：用户名和密码。'],
  ['ja: 、 list then を、', 'アカウント名、パスワードを、こちらまでお知らせください。'],
  ['ko: list', '아이디와 비밀번호를 알려 주세요.'],
  ['ko: comma list after the secret', '비밀번호, 아이디를 알려 주세요.'],
  ['fr: comma around s’il vous plaît', "Envoyez-nous, s'il vous plaît, votre mot de passe."],
  ['fr: comma list with l’', "Veuillez nous envoyer votre nom, l'identifiant et le mot de passe."],
  ['es: comma around por favor', 'Envíenos, por favor, su contraseña.'],
  ['zh: 我们 inside the object', '请提供您在我们网站注册时设置的密码。'],
  ['en: we inside the object', 'Please send us the password we set up for you last week.'],
  // Bare nouns after a comma, "then" before a noun phrase and a Chinese ， between items go on with the list too
  // (bug review 38d, finding 2).
  ['de: bare noun list', 'Bitte nennen Sie uns Benutzername, Passwort und Kundennummer.'],
  ['de: possessive, then bare nouns', 'Bitte senden Sie uns Ihren Benutzernamen, Passwort und die Kundennummer.'],
  ['de: bare nouns, secret last', 'Bitte senden Sie uns Name, Adresse und Passwort.'],
  ['de: bare nouns, commas only', 'Bitte senden Sie uns Name, Adresse, Passwort.'],
  ['de: dann before a noun phrase', 'Bitte senden Sie uns Ihren Benutzernamen, dann Ihr Passwort.'],
  ['es: bare noun list', 'Por favor envíe usuario, contraseña y correo.'],
  ['es: bare nouns, commas only', 'Envíenos nombre, correo, contraseña.'],
  ['es: luego before a noun phrase', 'Envíenos su usuario, luego su contraseña.'],
  ['fr: bare noun list', 'Envoyez-nous identifiant, mot de passe et adresse.'],
  ['fr: bare nouns, commas only', 'Veuillez nous envoyer identifiant, adresse, mot de passe.'],
  ['fr: puis before a noun phrase', 'Envoyez-nous votre identifiant, puis votre mot de passe.'],
  ['en: then your password', 'Please send us your username, then your password.'],
  ['en: then the password', 'Please send us your username, then the password.'],
  ['en: we also need', 'Please reply with your login ID, we also need your password.'],
  ['zh: ， between two items', '请提供您的用户名，密码。'],
  ['zh: ，以及', '请提供您的用户名，以及密码。'],
  ['zh: ， between three items', '请提供您的姓名，邮箱，密码。'],
  ['zh: ，还有您的', '请提供您的用户名，还有您的密码。'],
  ['ko: comma list of three', '아이디, 이메일, 비밀번호를 알려 주세요.'],
  ['ja: 、 list of three', 'ログインID、メールアドレス、パスワードをお知らせください。'],
  // A bare secret ends its item at a comma, "und", sentence end, or the way to us (bug review 39, finding 4).
  ['de: bare secret last, no full stop', 'Bitte senden Sie uns Name, Passwort'],
  ['de: bare secret, then by mail', 'Bitte senden Sie uns Name, Passwort per E-Mail.'],
  ['de: bare secret, then bitte by mail', 'Bitte senden Sie uns Name, Passwort bitte per Mail.'],
  ['fr: bare secret, then by mail', 'Envoyez-nous identifiant, mot de passe par e-mail.'],
  ['es: bare secret, then by mail', 'Envíenos nombre, contraseña por correo.'],
  ['de: dann, bare secret last', 'Bitte senden Sie uns Ihre Kundennummer, dann Passwort.'],
  ['fr: bare secret, ou', 'Envoyez-nous identifiant, mot de passe ou code PIN.'],
];

describe('secretRequest: パス and the clause that asks', () => {
  it.each([...PASS_AS_PASSWORD, ...ASKS_IN_A_LIST])('finds the ask in %s', (_name, text) => {
    expect(secretRequest(text)).toBeDefined();
  });

  it.each([...PASS_AS_PATH, ...ASKS_IN_ANOTHER_CLAUSE])('finds nothing in %s', (_name, text) => {
    expect(secretRequest(text)).toBeUndefined();
  });
});

// Items that may stand after the secret in a list before its particle: none holds a mark that joins items, を, が, は
// or で. A list of more than ten slipped past the check while the pattern read at most ten (security review 15's cap).
const LIST_ITEMS = [
  '有効期限', '名義人', '生年月日', '郵便番号', 'ご住所', '電話番号', 'ご氏名', '口座番号', '支店名', '会員番号', '契約番号',
  '利用明細', 'お届け先', '勤務先', '年収', '家族構成', '携帯番号', 'メールアドレス', '職業', '性別', '国籍', '学歴',
  '旧姓', '血液型', '身長', '体重', '趣味', '本籍', '続柄', '印鑑',
];
const LONG_LISTS: ReadonlyArray<[string, string]> = [
  ['ja: the card number and 11 items, 、', `カード番号、${LIST_ITEMS.slice(0, 11).join('、')}をメールでお送りください。`],
  ['ja: the card number and 30 items, 、', `カード番号、${LIST_ITEMS.join('、')}をメールでお送りください。`],
  ['ja: the password and 11 items, と', `パスワードと${LIST_ITEMS.slice(0, 11).join('と')}をお知らせください。`],
  ['ja: the PIN and 30 items, ・, then も', `暗証番号・${LIST_ITEMS.join('・')}もご返信ください。`],
];

describe('secretRequest: a list of more than ten items after the secret', () => {
  it.each(LONG_LISTS)('finds the ask in %s', (_name, text) => {
    expect(secretRequest(text)).toBeDefined();
  });
});

describe('secretRequest', () => {
  it.each(ASKS)('finds the ask in %s', (_name, text) => {
    expect(secretRequest(text)).toBeDefined();
  });

  it.each(DOES_NOT_ASK)('finds nothing in %s', (_name, text) => {
    expect(secretRequest(text)).toBeUndefined();
  });

  it('names the sentence that asks, in a whole reply', () => {
    const reply = '山田様\n\nお問い合わせありがとうございます。\n返金のお手続きのため、カード番号とセキュリティコードをお送りください。\n\nよろしくお願いいたします。';
    expect(secretRequest(reply)).toBe('返金のお手続きのため、カード番号とセキュリティコードをお送りください。');
  });
});

describe('secretRequest: whole replies', () => {
  it.each<[string, string, string | undefined]>([
    [
      'a Japanese reply that asks',
      '山田様\n\nお問い合わせありがとうございます。\n本人確認のため、現在のパスワードを返信でお知らせください。\n\nよろしくお願いいたします。',
      '本人確認のため、現在のパスワードを返信でお知らせください。',
    ],
    ['an English reply that asks', 'Hello,\n\nThanks for writing. Please reply with your password and we will change it for you.\n\nBest regards', 'Please reply with your password and we will change it for you.'],
    [
      'the Japanese how-to',
      '山田様\n\nお問い合わせありがとうございます。\n「設定」→「セキュリティ」で現在のパスワードを入力し、新しいパスワードを設定してください。\nパスワードをメールでお送りいただく必要はありません。\n\nよろしくお願いいたします。',
      undefined,
    ],
    ['the English how-to', 'Hello,\n\nOpen Settings > Security, enter your current password and choose a new one. We will never ask for your password.\n\nBest regards', undefined],
    ['a list item that asks', '手順:\n1. 届いた認証コードをご返信ください\n2. こちらで設定を完了します', '届いた認証コードをご返信ください'],
    ['full-width letters', 'ＰＩＮをお知らせください。', 'ＰＩＮをお知らせください。'],
    // A line break inside a paragraph joins; a blank line ends it.
    ['an ask broken over two lines', 'Hello,\n\nPlease reply with\nyour password.\n\nBest regards', 'Please reply with your password.'],
    ['a blank line between the secret and a later ask', 'パスワードを忘れた方へ\n\n本メールにご返信ください。', undefined],
  ])('%s', (_name, draft, expected) => {
    expect(secretRequest(draft)).toBe(expected);
  });

  it('gives the plain reason', () => {
    expect(SECRET_REQUEST_REASON).toBe('the answer asks the customer to send a password, PIN or code by mail: no support reply should');
  });
});

// Not a speed target (security review 15): the list of items before the secret's particle was read again from every
// secret it holds, so one long line of 確認コードと… items, which a prompt-injected model can write, grew with the
// square (200,000 characters: about 10 s; 500,000: over a minute). The bound is far from both a linear read and the
// blow-up, so a busy machine does not fail it.
describe('secretRequest: a hostile line of listed secrets', () => {
  it('reads it in time', { timeout: 60_000 }, () => {
    const draft = `山田様\n\n${'段確認コードとみ当提'.repeat(50_000)}\n\nよろしくお願いいたします。`;
    const started = performance.now();
    expect(secretRequest(draft)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

// Not a speed target (security review 15): a list without end before the secret's particle was read again from every
// secret in it, so a line of 「カード番号と」 repeated grew with the square (300,000 characters: 1.5 minutes idle, 4 on
// a loaded machine, with the uncapped pattern); a cap of ten items made it linear but let a longer list slip past. The
// list is read once now, as long as it is. The bound is far from both a linear read and the blow-up, so a busy
// machine does not fail it.
describe('secretRequest: a line of listed secrets without end', () => {
  it('reads it in linear time, and finds the ask after it', { timeout: 120_000 }, () => {
    const listed = 'カード番号と'.repeat(50_000);
    // First, so that the timed call below finds the patterns compiled and the list reader warm.
    expect(secretRequest('カード番号と有効期限をお知らせください。')).toBeDefined();
    expect(secretRequest('カード番号と'.repeat(1_000))).toBeUndefined();
    const started = performance.now();
    expect(secretRequest(`山田様\n\n${listed}\n\nよろしくお願いいたします。`)).toBeUndefined();
    // Not a speed target: 0.1–0.6 s on a loaded machine (stress-ng), the uncapped pattern 1.5–4 min.
    expect(performance.now() - started).toBeLessThan(10_000);
    // However many items stand between the secret and its particle.
    expect(secretRequest(`カード番号${'、有効期限'.repeat(50_000)}をお知らせください。`)).toBeDefined();
  });
});

// What still got past it (bug review R1 of session 48): Brazilian Portuguese with the pronoun before the verb, the
// Japanese verb without ください, 返信 without ご, the secret in hiragana or spaced out letter by letter, 書き添えて,
// "respóndanos indicando", "schreiben Sie uns", "type it in your reply", and Latin small capitals or dotless i standing
// for ASCII letters (passwᴏrd).
const R1_ASKS: ReadonlyArray<[string, string]> = [
  ['pt: br, nos envie', 'Por favor, nos envie sua senha.'],
  ['pt: br, me informe', 'Me informe a senha do aplicativo, por favor.'],
  ['ja: 教えて without ください', '確認のため、パスワードを教えて。'],
  ['ja: 送って without ください', '確認のため、パスワードを送って。'],
  ['ja: 返信ください without ご', 'ログインIDとPWを返信ください。'],
  ['ja: the secret in hiragana', '確認のため、ぱすわーどをご返信ください。'],
  ['ja: spaced out with spaces', '確認のため、パ ス ワ ー ド をご返信ください。'],
  ['ja: spaced out with U+3000', '確認のため、パ　ス　ワ　ー　ドをお知らせください。'],
  ['ja: 書き添えて', '本メールへの返信にパスワードと認証コードを書き添えてください。'],
  ['es: respóndanos indicando', 'Por favor, respóndanos indicando su contraseña.'],
  ['de: schreiben Sie uns', 'Schreiben Sie uns Ihr Passwort in die Antwort.'],
  ['en: type it in your reply', 'Type your password in your reply so we can verify you.'],
  ['en: small capital o', 'Please reply with your passwᴏrd.'],
  ['en: small capitals throughout', 'Please reply with your ᴘᴀꜱꜱᴡᴏʀᴅ.'],
  ['en: Latin alpha', 'Please send us your pɑssword.'],
  ['en: dotless i', 'Please send us your credentıals.'],
  ['ja: small capital o in Latin', 'ご本人確認のため、passwᴏrdをご返信ください。'],
];
const R1_DOES_NOT_ASK: ReadonlyArray<[string, string]> = [
  ['pt: br, never', 'Nunca nos envie sua senha por e-mail.'],
  ['pt: br, tell us whether', 'Me informe se conseguiu redefinir a senha.'],
  ['ja: a question about a non-secret', 'ご利用の機種名を教えてもらえますか。'],
  ['ja: 教えて about the result', 'パスワードを再設定したら、ログインできたか教えて。'],
  ['ja: we send a temporary one', '仮パスワードを送って、ログイン後に変更していただきます。'],
  ['ja: warning, no need to reply', 'パスワードを返信いただく必要はありません。'],
  ['ja: spaced words, no secret', '手 順 は 以 下 の と お り で す。'],
  ['ja: spaced product name', 'ア プ リ を再起動してください。'],
  ['ja: write on the form', 'パスワードを申込書に書き添えてください。'],
  ['es: respóndanos indicando the order', 'Respóndanos indicando su número de pedido.'],
  ['de: schreiben Sie uns whether', 'Schreiben Sie uns, ob Ihr Passwort jetzt funktioniert.'],
  ['de: never', 'Schreiben Sie uns niemals Ihr Passwort.'],
  ['en: type it in the app', 'Type your password in the app and tap Sign in.'],
  ['en: type it in the email field', 'Type your password in the email field only if asked.'],
  ['en: type the code from the app', 'Type the verification code from the app and click Verify.'],
  ['en: small capitals, a warning', 'We will never ask for your ᴘᴀꜱꜱᴡᴏʀᴅ.'],
];

describe('secretRequest: asks bug review R1 found passing', () => {
  it.each(R1_ASKS)('finds the ask in %s', (_name, text) => {
    expect(secretRequest(text)).toBeDefined();
  });
  it.each(R1_DOES_NOT_ASK)('finds nothing in %s', (_name, text) => {
    expect(secretRequest(text)).toBeUndefined();
  });
});

// Bug review R3a of session 48: look-alike Greek letters inside a Latin word, and kana spelt apart with ・.
describe('secretRequest: asks bug review R3a found passing', () => {
  it.each<[string, string]>([
    ['en: Greek small rho', 'To restore access, please reply to this email with your current ρassword and the code we sent you.'],
    ['en: Greek rho and alpha', 'Please reply with your ραssword.'],
    ['en: a Greek capital', 'Please send us your ΡIN.'],
    ['ja: ・ between the kana', '確認のため、パ・ス・ワ・ー・ドをご返信ください。'],
    ['ja: ・ and a space mixed', '確認のため、パ・ス ワ・ー・ドをご返信ください。'],
  ])('finds the ask in %s', (_name, text) => {
    expect(secretRequestReason(text)).toBe(SECRET_REQUEST_REASON);
  });
  it.each<[string, string]>([
    ['el: a Greek sentence', 'Παρακαλούμε επικοινωνήστε μαζί μας για την παραγγελία σας.'],
    ['ja: a list with ・', '氏名・住所・電話番号をご返信ください。'],
  ])('finds nothing in %s', (_name, text) => {
    expect(secretRequest(text)).toBeUndefined();
  });
});
