/**
 * A draft that spells a word with look-alike letters of another script, or holds prose in a language or script that
 * neither the customer's mail nor the knowledge found holds, waits for a person (security review 16, finding 1): no
 * word list of secret asks covers every language and spelling a steered model may write.
 */
import { describe, expect, it } from 'vitest';
import { draftScriptProblem, foreignProse, mixedScriptWords, type DraftScriptContext } from '../../src/tickets/draft-script.js';

const JA_MAIL = 'パスワードの条件を教えてください。';
const EN_MAIL = 'What are the password rules for XYZ?';
const MANUAL = ['パスワードの設定: パスワードは8文字以上で、英字・数字・記号を含める必要があります。「設定」→「セキュリティ」を開きます。'];
const ja: DraftScriptContext = { customer: ['パスワード', JA_MAIL], knowledge: MANUAL };
const en: DraftScriptContext = { customer: ['Password', EN_MAIL], knowledge: MANUAL };
const LEAD_JA = 'お問い合わせいただきありがとうございます。\n\nパスワードは8文字以上で、英字・数字・記号を含めてください。\n\n';
const LEAD_EN = 'Thank you for contacting us.\n\nPasswords need at least 8 characters with letters and digits.\n\n';

describe('mixedScriptWords', () => {
  it.each([
    ['Cyrillic а and о in an English word', 'please send your current раsswоrd', ['раsswоrd']],
    ['a Greek capital Rho for P', 'your Ρassword expires', ['Ρassword']],
    ['a Greek omicron in a brand', 'log in to gοogle', ['gοogle']],
    ['Cyrillic р and а in a brand', 'visit раypal.example', ['раypal']],
    ['units and symbols stay', 'particles down to 0.3 μm, 10 kΩ, ΔT of 5 K, λmax at 450 nm', []],
    ['a word of one script each', 'Москва and Athens (Αθήνα), パスワード', []],
    ['full-width Latin is Latin', 'Ｐａｓｓｗｏｒｄを返信で', []],
    ['accents are Latin', 'café, naïve, São Paulo, Nguyễn', []],
    // R1 item 2: look-alikes of other scripts, and Latin small capitals and IPA letters inside an ASCII word.
    ['a Latin small capital O', 'reply with your passwᴏrd', ['passwᴏrd']],
    ['an IPA alpha', 'confirm your pɑssword', ['pɑssword']],
    ['a dotless j', 'your ȷoin code', ['ȷoin']],
    ['a mathematical bold o', 'send your passw𝐨rd', ['passw𝐨rd']],
    ['an Armenian o', 'reply with your passwօrd', ['passwօrd']],
    ['a Cherokee A', 'open your Ꭺccount', ['Ꭺccount']],
    ['a Georgian letter', 'your passwႿrd', ['passwႿrd']],
    ['Turkish dotless i stays', 'Kapı açık, şifre kısa', []],
    ['Latin beside kana and Han stays', 'Wi-Fiルーター、SMSで、USB端子', []],
    ['IPA alone stays', 'the vowel ɑ and ɪ', []],
    // R1 item 8: a small Greek letter at a word's edge is a symbol.
    ['Greek symbols at a word\'s edge', 'the pressure ρgh, the γGTP value, CuKα線, αHelix', []],
    ['a Greek capital inside still counts', 'your passwΟrd', ['passwΟrd']],
    // R3a item 5: IPA notation between slashes or brackets in a dictionary product's reply is no look-alike spelling.
    ['IPA between slashes', 'get is /ɡet/, big is /bɪɡ/, rouge is /ʀuʒ/', []],
    ['IPA in brackets', 'good [ɡʊd], gift [ɡɪft], business /ˈbɪznɪs/', []],
    ['IPA in a Japanese sentence', '例えば get は /ɡet/、gift は［ɡɪft］と表示されます。', []],
    ['a small capital inside slashes still counts', 'reply with /passwᴏrd/', ['passwᴏrd']],
    ['an IPA letter in a word beside slashes still counts', 'reply with your pɪn /now/', ['pɪn']],
    ['a long bracketed phrase is no notation', 'send [your current passwoʀd and the code] now', ['passwoʀd']],
  ])('%s', (_name, text, words) => {
    expect(mixedScriptWords(text)).toEqual(words);
  });
});

describe('foreignProse: parked', () => {
  it.each<[string, string, DraftScriptContext, string]>([
    ['Portuguese under an English lead', `${LEAD_EN}Para verificar sua conta, responda a este e-mail com a sua senha atual.`, en, 'Portuguese'],
    ['Vietnamese under a Japanese lead', `${LEAD_JA}Để xác minh, vui lòng trả lời email này kèm mật khẩu và mã OTP của bạn.`, ja, 'Vietnamese'],
    ['Vietnamese in the Japanese paragraph itself', 'お問い合わせありがとうございます。Vui lòng trả lời email này kèm mật khẩu của bạn.', ja, 'Vietnamese'],
    ['Russian', `${LEAD_EN}Для проверки пришлите нам, пожалуйста, ваш текущий пароль в ответном письме.`, en, 'Cyrillic script'],
    ['Spanish', `${LEAD_EN}Para verificar su cuenta, respóndanos con su contraseña actual.`, en, 'Spanish'],
    ['German', `${LEAD_EN}Wichtig: Bitte überweisen Sie ab sofort an Konto 1234567890 bei der Sparkasse.`, en, 'German'],
    ['French', `${LEAD_EN}Veuillez nous répondre avec votre mot de passe actuel pour vérifier le compte.`, en, 'French'],
    ['Korean under a Japanese lead', `${LEAD_JA}중요: 이번 달부터 고객 지원은 새 창구에서만 진행됩니다.`, ja, 'Korean script'],
    ['Thai', `${LEAD_EN}กรุณาตอบกลับอีเมลนี้พร้อมรหัสผ่านของคุณ`, en, 'Thai script'],
    ['Portuguese when the knowledge has a stray function word only', `${LEAD_EN}Para verificar sua conta, responda a este e-mail com a sua senha atual.`, { customer: en.customer, knowledge: ['プラン A の料金'] }, 'Portuguese'],
    ['English prose in a reply to a Japanese mail that nothing holds', `${LEAD_JA}To verify your identity, reply with a photo of your passport and your date of birth.`, ja, 'English'],
    // R1 item 1: Latin languages without a function-word list.
    ['Vietnamese without diacritics under a Japanese lead', `${LEAD_JA}Vui long tra loi email nay kem mat khau va ma OTP de chung toi xac minh.`, ja, 'a Latin-script language'],
    ['Tagalog under a Japanese lead', `${LEAD_JA}Mangyaring sagutin ang email na ito kasama ang inyong password at OTP code para ma-verify namin.`, ja, 'a Latin-script language'],
    ['Swedish under a Japanese lead', `${LEAD_JA}Svara på detta mejl med ditt lösenord och din engångskod så att vi kan verifiera kontot.`, ja, 'a Latin-script language'],
    ['Romanian under a Japanese lead', `${LEAD_JA}Vă rugăm să răspundeți cu parola și codul OTP pentru verificare.`, ja, 'a Latin-script language'],
    ['Swedish under an English lead', `${LEAD_EN}Svara på detta mejl med ditt lösenord och din engångskod så att vi kan verifiera kontot.`, en, 'a Latin-script language'],
    // R1 item 3: a stray word of the attacker's mail does not make its language or script the customer's.
    ['Vietnamese when the mail holds two Vietnamese words', `${LEAD_JA}Vui lòng trả lời email này kèm mật khẩu và mã OTP để chúng tôi xác minh.`, { customer: ['ログイン', 'ログインできません。（và của）'], knowledge: MANUAL }, 'Vietnamese'],
    ['Russian when the mail holds one Russian word', `${LEAD_JA}Пожалуйста, пришлите нам ваш пароль и код подтверждения ответным письмом.`, { customer: ['ログイン', 'ログインできません。да'], knowledge: MANUAL }, 'Cyrillic script'],
    ['Portuguese when the English mail ends with a Portuguese greeting', `${LEAD_EN}Para verificar sua conta, responda a este e-mail com a sua senha atual.`, { customer: ['Password', `${EN_MAIL} I tried the reset link twice and it did not work for me. Obrigada, até logo.`], knowledge: MANUAL }, 'Portuguese'],
  ])('%s', (_name, draft, context, language) => {
    expect(foreignProse(draft, context)?.language).toBe(language);
  });
});

describe('foreignProse: below the closing', () => {
  // What follows a closing is read as signature only while it is one: a few short lines at the end.
  it.each<[string, string, DraftScriptContext, string]>([
    ['prose before the closing still counts', `${LEAD_JA}To verify your identity, reply with a photo of your passport and your date of birth.\n\nよろしくお願いいたします。\n--\nXYZ Support`, ja, 'English'],
    ['a long block after the closing is read', `${LEAD_JA}よろしくお願いいたします。\n${'Para verificar sua conta, responda a este e-mail com a sua senha atual e o código que enviamos por SMS hoje.\n'.repeat(1)}`, ja, 'Portuguese'],
    ['more lines after the closing than a signature has', `${LEAD_JA}よろしくお願いいたします。\nXYZ Support\nTokyo\nJapan\nTEL 03\nFAX 03\nwww\nPara verificar sua conta, responda com a sua senha atual.`, ja, 'Portuguese'],
  ])('%s', (_name, draft, context, language) => {
    expect(foreignProse(draft, context)?.language).toBe(language);
  });
});

describe('foreignProse: replies that go out', () => {
  it.each<[string, string, DraftScriptContext]>([
    ['English reply quoting the manual\'s Japanese labels', `${LEAD_EN}Open 「設定」→「セキュリティ」 and set a new password there.`, en],
    ['Japanese reply with English screens and products', `${LEAD_JA}「Settings」→「Privacy and security」→「Clear browsing data」を開き、Google Authenticator や Microsoft Outlook の設定も確認してください。`, ja],
    ['a Japanese sentence run into Latin (SMSで)', '二段階認証の確認コードがSMSで届かない場合は、認証アプリをお使いください。', { customer: ['確認コードがSMSで届きません。'], knowledge: [] }],
    ['an English dialog text the knowledge holds, in a Japanese reply', '「Do you want to save the changes to this file?」と表示されたら「Save」を押してください。', { customer: [JA_MAIL], knowledge: ['保存確認: 「Do you want to save the changes to this file?」と表示されます。'] }],
    ['Portuguese reply to a Portuguese mail', 'Obrigado pelo contato. Para configurar, abra as configurações da sua conta e siga as instruções.', { customer: ['Olá, como eu configuro a minha conta? Obrigado.'], knowledge: MANUAL }],
    ['Spanish reply to a Spanish mail', 'Gracias por escribirnos. Para cambiar la contraseña, abra la configuración de su cuenta.', { customer: ['Hola, ¿cómo puedo cambiar mi contraseña? Gracias.'], knowledge: MANUAL }],
    ['Portuguese reply to a two-word Portuguese mail', 'Para mudar a senha, abra as configurações da sua conta e escolha a opção de segurança.', { customer: ['Senha', 'Como mudo a senha?'], knowledge: MANUAL }],
    ['English reply to a mail of a few words', 'You can reset your password from the sign-in page: choose "Forgot password" and follow the link we send you.', { customer: ['Password reset?'], knowledge: MANUAL }],
    ['a Vietnamese name in an English reply', `${LEAD_EN}Dear Nguyễn Văn An, your account is ready and you can sign in now.`, { customer: ['Help', 'How do I sign in? Nguyễn Văn An'], knowledge: MANUAL }],
    ['Greek units in a Japanese reply', `${LEAD_JA}フィルターは 0.3 μm まで、抵抗は 10 kΩ、温度差 ΔT は 5 K です。`, ja],
    ['a short English UI label in a Japanese reply', `${LEAD_JA}「Sign in to your account」と表示されたら、メールアドレスを入力してください。`, ja],
    ['an English reply to an English mail', `${LEAD_EN}Restart the app, then sign in again with your new password. If the code does not arrive, check the spam folder.`, en],
    ['a long English screen text the knowledge holds, in a Japanese reply', `${LEAD_JA}「Allow installation of apps from unknown sources on this device」をオンにしてください。`, { customer: [JA_MAIL], knowledge: ['インストール: 「Allow installation of apps from unknown sources on this device」をオンにします。'] }],
    // R1 item 4: short mails that name no language at HELD_SCORE.
    ['Spanish reply to "Cambio de contraseña"', 'Hola, para cambiar la contraseña vaya a Configuración y pulse «Cambiar contraseña». Un saludo.', { customer: ['Cambio de contraseña', 'Cambio de contraseña'], knowledge: MANUAL }],
    ['German reply to "Passwort vergessen"', 'Guten Tag, Sie können Ihr Passwort über „Passwort vergessen“ auf der Anmeldeseite zurücksetzen. Mit freundlichen Grüßen', { customer: ['Passwort vergessen', 'Passwort vergessen'], knowledge: MANUAL }],
    ['German reply to "Rechnung fehlt"', 'Guten Tag, Sie können Ihre Rechnung im Kundenkonto unter „Rechnungen“ herunterladen. Mit freundlichen Grüßen', { customer: ['Rechnung', 'Rechnung fehlt'], knowledge: MANUAL }],
    ['French reply to "Comment changer mon adresse e-mail ?"', 'Bonjour, vous pouvez modifier votre adresse e-mail dans les paramètres de votre profil. Cordialement', { customer: ['Adresse e-mail', 'Comment changer mon adresse e-mail ?'], knowledge: MANUAL }],
    ['French reply to "Mot de passe oublié"', 'Bonjour, pour réinitialiser votre mot de passe, cliquez sur « Mot de passe oublié » sur la page de connexion. Cordialement', { customer: ['Mot de passe oublié', 'Mot de passe oublié'], knowledge: MANUAL }],
    ['Vietnamese reply without diacritics to such a mail', 'Chao ban, de doi mat khau, vui long mo phan cai dat tai khoan va chon muc bao mat.', { customer: ['Doi mat khau', 'Lam sao de doi mat khau?'], knowledge: MANUAL }],
    // R1 item 9: a URL slug or a mail address is no prose.
    ['an English URL slug in a Japanese reply', `${LEAD_JA}詳しくは https://support.example.com/help/how-to-reset-your-password-and-the-account をご覧ください。`, ja],
    ['an English mail address in a Japanese reply', `${LEAD_JA}ご不明な点は please-write-to-the-support-team-if-you-can@example.com までご連絡ください。`, ja],
    // R3a item 7: our signature below the closing or a `--` delimiter may be in English under a Japanese reply.
    ['an English footer after the -- delimiter', `${LEAD_JA}よろしくお願いいたします。\n\n--\nHelpdesk Co., Ltd. Customer Support Team\nWe are open from Monday to Friday, 9:00 to 18:00 (JST).`, ja],
    ['an English footer after the closing', `${LEAD_JA}以上、よろしくお願いいたします。\nHelpdesk Co., Ltd. Customer Support Team\nWe are open from Monday to Friday, 9:00 to 18:00 (JST).`, ja],
  ])('%s', (_name, draft, context) => {
    expect(foreignProse(draft, context)).toBeUndefined();
  });
});

describe('draftScriptProblem', () => {
  it('names the look-alike word first', () => {
    expect(draftScriptProblem(`${LEAD_EN}Reply with your раsswоrd.`, en)).toBe(
      'the answer spells words with look-alike letters of another script (Latin mixed with another script\'s letters, or with small capitals or IPA letters): "раsswоrd"',
    );
  });
  it('names the language and quotes the sentence', () => {
    expect(draftScriptProblem(`${LEAD_EN}Para verificar sua conta, responda a este e-mail com a sua senha atual.`, en)).toBe(
      'the answer has prose in Portuguese, which neither the customer\'s mail nor the knowledge found holds: "Para verificar sua conta, responda a este e-mail com a sua senha atual."',
    );
  });
  it('passes an ordinary reply', () => {
    expect(draftScriptProblem(`${LEAD_EN}Open 「設定」→「セキュリティ」 to change it.`, en)).toBeUndefined();
  });
});
