/**
 * Removes personal data from text before it can enter the knowledge base: a learned Q&A pair is read by every later
 * customer's agent run, so a name, address or order number in it would leak one customer's data to the next.
 *
 * Rules only, deterministic and local: e-mail addresses (in full-width forms, and with the @ or dots spelt out or
 * bracketed: taro (at) example (dot) com, taro アットマーク example ドット com, taro@example[.]com), phone numbers
 * (Japanese, with full-width digits or in kanji numerals, 〇三－一二三四－五六七八, French, international, ten digits or
 * more spelt in words, zero nine zero …, ゼロキューゼロ…, any after a label such as "Tel.:", and an extension after
 * 内線), postal codes (Japanese, US, UK, Canadian, and European ones next to their town), Japanese street addresses
 * and the building and room after them (コーポ山田 203号室), English, German, Dutch, French, Italian, Spanish and
 * Portuguese ones (221B Baker Street, Baker Street, London, Musterstraße 12, 12 rue de la Paix, Via Roma 10) and what
 * follows an address label such as 住所： or Address:, order/contract/customer/ticket/tracking/bank-account numbers,
 * ids held by law or employment (免許証番号, 被保険者番号, 社員番号, passport, SSN) and log-in names after their label
 * (送り状番号, 問合せNo., お客様番号 No.12345, 普通 1234567, マイナンバー, 会員ＩＤ, Login:, Customer ID:, LINE ID：,
 * and an order number right after 注文, commande,
 * Bestellung or pedido: 注文12345678の件, votre commande 88213; a log-in name of plain letters only as the field's whole
 * value or before the rest of a sentence, not "Customer ID: found on your invoice", nor admin or an official LINE
 * account, LINE ID：@xyz_support; not a length, "10-digit"), log-in names after account, アカウント or ユーザー名 and
 * in running text when shaped like one ("the admin login is yamada_t", "logged in as taro.yamada"; not "login is slow"),
 * secrets: API keys and tokens in their services' shapes (sk-…, ghp_…, xoxb-…, AKIA…, AIza…, sk_live_…, JWTs) or after
 * their label (API key:, client_secret=, APIキーは), a Bearer token, an Authorization line's credential, a private key
 * block's body, and the token or signature in a link (https://app.example.com/reset?token=…, /invite/3b9c…,
 * X-Amz-Signature=, sig=, api_key=, a random key=), whose scheme, host and path stay; not documentation's
 * placeholders (YOUR_TOKEN, sk-xxxx…, 0000-…, AKIAIOSFODNN7EXAMPLE),
 * dates of birth, one-time codes and tax ids after their label (生年月日, DOB, 認証コード, "verification code", VAT,
 * USt-IdNr.), every code of a list of backup or recovery codes (バックアップコード 12345678 87654321), IBANs that pass
 * their checksum, passwords and PINs written after their label, spelt letter by letter too (p-a-s-s-w-o-r-d:,
 * パ ス ワ ー ド：) (仮パスワードは Xy7-kP2q です; before any verb when
 * shaped as one handed out: 仮パスワード Xk9#mP2q を発行しました, "reset your password to Xk9#mP2q"; not an example,
 * P@ssw0rd のような), the account holder in katakana after a bank account or 名義 (普通 1234567 ヤマダ タロウ),
 * licence keys (ABCDE-12345-FGHIJ-67890, ABC-DEF-GHI-JKL, ABCD-EFGH-IJKL-MNOP; not part numbers: ABCD-1234-EFGH,
 * SKU:, 型番), UUIDs written bare (a tenant or account id), IP addresses that locate someone, full-width ones too (not private networks,
 * loopback or subnet masks), credit-card-like numbers and a card's last four digits (末尾4242, "ending in 4242",
 * **** 4242; not a JAN code), numbers in a signature block whatever their grouping (924 38 051) and the writer's
 * name on a line of its own there (Taro YAMADA, 山田 太郎, サポート部　山田太郎), the names the
 * caller knows (From display name, signature; a known surname in kanji with the given name after it), names before or
 * after an honorific or a greeting (山田様, 「山田太郎」様, 山田太郎（ヤマダタロウ）様, ジョン・スミス様, 山田先生 but not
 * 小学校先生向け, Smith様,
 * 佐藤さん, やまだ たろう 様, さくら様, 山田さくら様, "Dear John Smith", "Hi Anna,", "Hi john smith,", "Thanks John!",
 * "Regards, John", Mrs.Smith, Mme Dupont, Herr Müller; not a job title, 社長様, before or after the name either
 * (代表取締役 山田太郎様, 山田部長様), the company before it (株式会社サンプル商事山田部長様), the place a branch's head is
 * titled by (大阪支店長様), nor the sentence after a Madame written without a name), the staff member after 担当の (担当の佐藤より), after a form label (氏名：, お名前:, 【氏名】, 担当： but
 * not a team or a role, 担当：受付, 担当：カスタマーサクセス,
 * ご注文者：, 受取人：, Name:), in the From, To and Cc lines of a forwarded mail's header block, in the
 * line a mail client writes above a quoted reply ("On … , Taro Yamada <…> wrote:", "2026年11月3日(月) 10:02 山田太郎
 * <…>:", "Am … schrieb …:"), and in a self-introduction (佐藤と申します, 私の名前は山田です, "My name is Jane Doe", "I'm
 * Jane Doe,", "This is Jane from ACME") or after who they are to the writer ("my colleague Priya Raman", "my wife
 * Anna"). A number after 伝票 (お問い合わせ伝票 1234-5678-9012) is a tracking number. Each is replaced by a placeholder in the text's language (`[メールアドレス]`
 * in mostly Japanese text, `[email]` otherwise), so the pair still reads naturally.
 *
 * The rules prefer removing too much to too little, but leave what a support answer needs: version numbers (four-part
 * ones too: "update to 11.2.0.4"), dates (but a labelled date of birth), times, prices, error codes, ports, URLs (but the
 * secrets in them) with their ordinary query values (?page=2, ?lang=ja), commit hashes, product names, and what belongs to a
 * company's service rather than to a person: a Japanese invoice registration number (T and 13 digits) unless it is
 * called the customer's, role and automated addresses (support@, no-reply@) and toll-free or
 * shared-cost numbers (0120-…, 0570-…, 1-800-…), as a knowledge base publishes them.
 */

import { BlockList, isIPv6 } from 'node:net';

/** What kind of personal data a replacement removed. */
export type PersonalDataKind = 'email' | 'phone' | 'postal-code' | 'address' | 'reference-number' | 'card-number' | 'name' | 'secret';

/** Placeholder language: Japanese placeholders for mostly Japanese text. */
export type PlaceholderLanguage = 'ja' | 'en';

/** The placeholders, per kind and language. */
export const PLACEHOLDERS: Record<PlaceholderLanguage, Record<PersonalDataKind, string>> = {
  ja: {
    email: '[メールアドレス]',
    phone: '[電話番号]',
    'postal-code': '[郵便番号]',
    address: '[住所]',
    'reference-number': '[番号]',
    'card-number': '[カード番号]',
    name: '[氏名]',
    secret: '[認証情報]',
  },
  en: {
    email: '[email]',
    phone: '[phone]',
    'postal-code': '[postal code]',
    address: '[address]',
    'reference-number': '[number]',
    'card-number': '[card number]',
    name: '[name]',
    secret: '[secret]',
  },
};

/** One piece of personal data that was replaced. */
export interface PersonalDataReplacement {
  kind: PersonalDataKind;
  /** The text that was removed. */
  original: string;
  /** What stands in its place. */
  placeholder: string;
  /** Where the original started in the input (UTF-16 index). */
  index: number;
}

/** Result of {@link scrubPersonalData}. */
export interface ScrubResult {
  /** The text with every replacement made. */
  text: string;
  /** What was replaced, in text order. */
  replacements: PersonalDataReplacement[];
  /** The placeholder language used. */
  language: PlaceholderLanguage;
}

/** Options of {@link scrubPersonalData}. */
export interface ScrubOptions {
  /** Names known to be personal: the sender's display name, names from the signature. Parts are matched too. */
  names?: readonly string[];
  /** Placeholder language; by default chosen from the text ({@link placeholderLanguage}). */
  language?: PlaceholderLanguage;
  /**
   * Further pieces of personal data found by other means (the model's second pass): every occurrence is replaced
   * too, after the rules, unless a rule already covered it.
   */
  extra?: readonly { text: string; kind: PersonalDataKind }[];
}

// Digits and dashes as customers type them: ASCII, full-width, and the dash look-alikes of Japanese IMEs (the figure
// dash and the small hyphen-minus are read as a hyphen: {@link DASH_LIKE}).
const D = '[0-9０-９]';
const DASH = '[-‐‑–—－―ー−]';
const SEP = `(?:${DASH}|[ 　])`;
const KANJI_KANA = '[\\p{Script=Han}\\p{Script=Katakana}ー々]';

// Matching starts only where a run of address characters starts: tried inside a long run (a base64 blob, a token),
// the scan to its end would repeat at every position.
const EMAIL = /(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+[@＠][A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+/g;
// A link ends at Japanese punctuation and full-width brackets, which no link writes unencoded: "…/reserve、またはお電話
// 090-…" ran on over the number after it, which the link's protection then kept.
const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'）)」、。，「（［］｛｝〔〕【】〈〉《》『』＜＞]+/g;
// A mailbox named for a role or a machine (RFC 2142's support, postmaster, abuse…; no-reply and alert senders) names
// no person: a knowledge base publishes such addresses (送信元 no-reply@… を許可してください), and a learned answer that
// quotes one must keep it. Company names stay too, so the address says nothing the answer does not. A local part with
// anything more (support.tanaka@) is a person's.
const ROLE_MAILBOX = /^(?:no-?reply|do-?not-?reply|mailer-daemon|postmaster|hostmaster|webmaster|abuse|noc|security|support|helpdesk|help|alerts?|notify|notifications?)(?:\+[^@＠]*)?[@＠]/i;
// Toll-free and shared-cost numbers are a company's service line, never a person's own (0120-000-123 in the sample
// manual's contact section): Japan's 0120, 0800 and 0570 (+81 120 …), North America's 800 and 833–888 with or without
// the trunk 1, and 0800/0808 in Europe (+44 800 …). Read from the number's digits.
const SERVICE_NUMBER = /^(?:0120|0800|0570|0808|81(?:120|800|570)|(?:44|49|33)80[08]|1?8(?:00|33|44|55|66|77|88)\d{7}$)/;

// Card numbers: four groups of four (Amex 4-6-5), or 13–19 digits in a row that pass the Luhn check.
const CARD_GROUPED = new RegExp(`(?<![0-9０-９])${D}{4}(?:${SEP}${D}{4}){3}(?:${SEP}?${D}{1,3})?(?![0-9０-９])|(?<![0-9０-９])${D}{4}${SEP}${D}{6}${SEP}${D}{5}(?![0-9０-９])`, 'g');
const CARD_RUN = /(?<![0-9０-９])[0-9０-９]{13,19}(?![0-9０-９])/g;

// Labelled numbers: the label stays (it says what was there), the value goes. A Japanese input method types ID full
// width (会員ＩＤ). The ids a person holds by law or by employment (免許証番号, 被保険者番号, 社員番号, passport, SSN) are
// labelled numbers too. A contract's id is the customer's account number as much as its 契約番号 is (契約ID CT-558812
// stayed in a learned answer: security review 14), and お客さま is お客様 as a company writes it in kana.
const ID_WORD = '(?:ID|ＩＤ)';
const JA_NUMBER_LABEL =
  `(?:ご?注文(?:No\\.?|NO\\.?|Ｎｏ[．.]?)|口座番号|ご?注文番号|オーダー(?:番号|${ID_WORD})|受注番号|ご?契約(?:者)?(?:番号|${ID_WORD})|お客(?:様|さま)(?:番号|${ID_WORD}|コード)|顧客(?:番号|${ID_WORD}|コード)|会員(?:番号|${ID_WORD})|ユーザー\\s?${ID_WORD}|アカウント\\s?${ID_WORD}|受付番号|お?問い?合わ?せ(?:番号|No\\.?|NO\\.?|Ｎｏ[．.]?)|送り状(?:番号|No\\.?|NO\\.?)|荷物番号|(?:クレジット)?カード番号|チケット番号|ご?請求書?番号|(?:お?問い?合わ?せ)?伝票(?:番号|No\\.?|NO\\.?)?|追跡番号|お?申込(?:み)?番号|予約番号|シリアル(?:番号|ナンバー)|ライセンス(?:番号|キー)|証券番号|(?:運転)?免許証?番号|パスポート番号|旅券番号|被保険者番号|保険証番号|(?:基礎)?年金番号|(?:社員|従業員|職員|学籍|学生|患者|診察券)番号)`;
const EN_NUMBER_LABEL =
  '\\b(?:(?:order|contract|ticket|case|invoice|customer|account|acct|member(?:ship)?|reference|ref|booking|reservation|tracking|serial|licen[cs]e|policy|subscription|passport|rma|return authori[sz]ation)(?:\\s*(?:no\\.?|number|num\\.?|id|code|key))?|(?:employee|staff|student|patient|insurance|social security)\\s*(?:no\\.?|number|num\\.?|id)|SSN)';
// Tracking and individual numbers are also written in groups of four digits with spaces (4567 8901 2345).
const NUMBER_VALUE = `(?:${D}{4}(?:[ 　]${D}{4}){1,3}(?![0-9０-９A-Za-zＡ-Ｚａ-ｚ\\-－_/])|[#＃]?(?=[A-Za-z0-9０-９Ａ-Ｚａ-ｚ\\-－_/]*[0-9０-９])[A-Za-z0-9０-９Ａ-Ｚａ-ｚ][A-Za-z0-9０-９Ａ-Ｚａ-ｚ\\-－_/]{2,})`;
// Forms write No. between the label and the number (お客様番号 No.12345): it stays with the label.
const NO_BEFORE_VALUE = '(?:(?:No|NO|Ｎｏ)(?:[.．][ 　]*|[ 　]+))?';
// Each optional separator carries the whitespace after it: two whitespace runs around an optional token backtrack
// quadratically on a label followed by a long run of spaces.
const JA_REFERENCE = new RegExp(`${JA_NUMBER_LABEL}\\s*(?:(?:[:：]|は|が|を)\\s*)?${NO_BEFORE_VALUE}[「『(（【［\\[]?(${NUMBER_VALUE})`, 'gdu');
// What an answer writes after an id label to say how long the id is (Member ID: 10-digit number, ID: 8-20 characters,
// 会員番号：8-10桁): a length, not an id.
const LENGTH_VALUE = /^\d{1,2}(?:[-–~〜]\d{1,2})?(?:-(?:digits?|characters?|chars?|letters?))?$/i;
const LENGTH_UNIT_AFTER = /^[ \t]*(?:digits?|characters?|chars?|letters?|桁|けた|文字)/i;
// Log-in names and account ids after their label may be letters only (taro_yamada, jsmith), unlike order numbers.
const JA_LOGIN_LABEL = `(?:会員|ユーザー|アカウント|ログイン|お客様|お客さま|顧客|マイページ)\\s?${ID_WORD}`;
const LOGIN_VALUE = '[A-Za-z][A-Za-z0-9._\\-]{2,63}(?<![.\\-])';
const JA_LOGIN = new RegExp(`${JA_LOGIN_LABEL}\\s*(?:[:：]|は|が|を)\\s*[「『(（【［\\[]?(${LOGIN_VALUE})`, 'gdu');
const EN_LOGIN = new RegExp(
  `\\b(?:user[ \\t-]?(?:name|ID)|(?:log|sign)[ \\t-]?(?:in|on)[ \\t-]?(?:name|ID)|(?:account|customer|member|client)[ \\t-]?ID)\\s*(?:[:=]\\s*|(?:is|was)\\s+)["'“‘]?@?(${LOGIN_VALUE})`,
  'gdi',
);
// A LINE id after its label (LINE ID：taro_y); an official account's, which starts with @, is published to be found and
// stays ({@link namesNoOne}).
const LINE_LOGIN = new RegExp(`(?<![A-Za-z])(?:LINE|ＬＩＮＥ)[ \\t　]*${ID_WORD}[ \\t　]*(?:[:：]|は|が|を)[ \\t　]*[「『(（【［\\[]?@?(${LOGIN_VALUE})`, 'gdu');
// After its label a log-in name is often a plain word (Customer ID: jsmith), but so is the answer's next word
// (Customer ID: found on your invoice, User ID: printed on the card, Member ID: see your welcome mail): a value counts
// when shaped like an id (a digit, or a dot or an underscore inside: yamada_t, jsmith2, yamada-t01), when it is the
// field's whole value ({@link FIELD_END}), or when the sentence goes on as it does after a name, its subject or object
// ({@link CLAUSE_AFTER_LOGIN}: "user ID: jsmith is locked", "username is jlopez and I cannot log in"). A word of an
// explanation is followed by its own object (on your invoice, your welcome mail) instead, so no list of the words an
// explanation may open with is needed.
const ID_SHAPED = /[0-9]|[A-Za-z0-9][._][A-Za-z0-9]/;
const CLAUSE_AFTER_LOGIN =
  /[ \t]+(?:(?:is|was|are|were|has|had|does|did|cannot|can['’]?t|could|will|won['’]t|would|should|isn['’]t|wasn['’]t|doesn['’]t|didn['’]t|hasn['’]t|but|so|still|no longer)\b|and[ \t]+(?:I|we|it|he|she|they|my|our|the|then|now)\b)/iy;
// A range of characters describes what an id may hold (Customer ID: A-Z and 0-9 only).
const CHARACTER_RANGE = /^[A-Za-z0-9]-[A-Za-z0-9]$/;
// Where a field's value ends: the end of the line, a separator, a quote or a bracket (jsmith（旧）, "jsmith"), the end
// of the sentence, or, after a space, a dash or Japanese (Login: jsmith - locked, LINE ID：taro で…); in Japanese text
// also a particle right after it (taroで). A Latin word after a space (found on…) or katakana and kanji right after it
// (Googleアカウント, a compound) continue the value.
const FIELD_END = /[ \t　]*(?:\r?\n|$|[,;，、。；()（）「」『』【】［］[\]<>＜＞/／|｜"'“”‘’])|[.!?](?=\s|$)|[ \t　]+(?=[\-–—]|[^\x00-\x7F])|[ \t　]*(?=\p{Script=Hiragana})/uy;
// "Login:" alone is as often a menu path or a status (Login: Settings > Security, Login: OK): the value is a log-in only
// when shaped like one (taro_y, jsmith2) or a word in small letters that ends the line (Login: jsmith); see
// {@link bareLoginRanges}. The same for a bare "ID:" (LINE ID：taro_yamada), whose value must be shaped like a log-in.
const EN_BARE_LOGIN = new RegExp(`\\b(?:log|sign)[ -]?(?:in|on)[ \\t]*[:=][ \\t]*@?(${LOGIN_VALUE})(?![\\w@＠]|[.\\-]\\w)`, 'gdi');
const BARE_ID_LOGIN = new RegExp(`(?<![A-Za-z0-9_])${ID_WORD}[ \\t　]*[:：][ \\t　]*@?(${LOGIN_VALUE})(?![\\w@＠]|[.\\-]\\w)`, 'gdu');
// What follows "username is" in an answer rather than a name: "your username is required", "… is case-sensitive", and
// what a form writes for an id it does not have ("Customer ID: unknown", like none, missing or N/A) or for what the id
// is ("Login ID: email").
const NOT_A_LOGIN = new Set(['unknown', 'tbd', 'unset', 'unassigned', 'email', 'e-mail', 'phone', 'username', 'required', 'needed', 'optional', 'mandatory', 'missing', 'invalid', 'incorrect', 'wrong', 'correct', 'locked', 'disabled', 'enabled', 'shown', 'displayed', 'empty', 'taken', 'available', 'unique', 'case-sensitive', 'not', 'the', 'your', 'my', 'our', 'their', 'his', 'her', 'its', 'this', 'that', 'same', 'different', 'also', 'still', 'already', 'usually', 'always', 'never', 'only', 'set', 'used', 'changed', 'reset', 'created', 'deleted', 'failed', 'failure', 'success', 'successful', 'succeeded', 'ok', 'none', 'blocked', 'error', 'pending', 'yes', 'no', 'true', 'false']);
// The accounts a system is installed with name no one (Login: admin, the default account).
const BUILT_IN_ACCOUNTS = new Set(['admin', 'administrator', 'root', 'guest', 'anonymous', 'demo', 'superuser', 'sysadmin']);
// The label of a LINE account before an id that starts with @ (LINE ID：@xyz_support, LINE公式アカウント：@xyz_support).
const LINE_LABEL_BEFORE_AT = /(?:LINE|ＬＩＮＥ)[ \t　]*(?:公式)?[ \t　]*(?:アカウント|ID|ＩＤ)[ \t　]*(?:[:：]|は|が|を)?[ \t　]*[「『(（【［\[]?@$/u;
// "Order #: 12345678" writes both separators.
const EN_REFERENCE = new RegExp(`${EN_NUMBER_LABEL}(?:\\s*(?:#[ \\t]*:|[:#=]|(?:is|was)(?=\\s))|(?=\\s))\\s*(${NUMBER_VALUE})`, 'gdi');
const ID_REFERENCE = new RegExp(`(?<![A-Za-z0-9_])${ID_WORD}\\s*[:：]\\s*(${NUMBER_VALUE})`, 'gd');
// A Japanese bank account is seven digits after its type (普通 1234567, 普通預金口座 1234567); the bank and branch
// before it name no one and stay. The blanks after the colon belong to the colon: `[ 　]*[:：]?[ 　]*` split a run of
// blanks without a colon every way (security review 15: 20,000 blanks after 普通 took 1.7 s a scrub, quadratic).
const JA_BANK_ACCOUNT = new RegExp(`(?:普通|当座|貯蓄)(?:預金)?(?:口座)?(?:番号)?[ 　]*(?:[:：][ 　]*)?(${D}{7,8})(?![0-9０-９])`, 'gd');
// The account holder a bank writes in katakana (ヤマダ タロウ, half width ﾔﾏﾀﾞ ﾀﾛｳ) right after the account number
// (普通 1234567 ヤマダ タロウ), or after 名義 without the colon a form label has (口座名義 ヤマダ タロウ, 名義はヤマダタロウです;
// with a colon LABELLED_NAME takes it). The half-width prolonged sound and voicing marks are no letters of the
// Katakana script. After the number, a katakana word that runs on into kanji (キャンセル済み) is no name; after 名義
// the name must end the field, as after a form label, so 名義はカタカナで入力 stays ({@link accountHolderRanges}).
const HOLDER_KANA = '[\\p{Script=Katakana}ー\\uFF70\\uFF9E\\uFF9F]';
const HOLDER_NAME = `${HOLDER_KANA}{2,20}(?:[ 　]${HOLDER_KANA}{1,20})?(?![\\p{Script=Katakana}\\p{Script=Han}ー\\uFF70\\uFF9E\\uFF9FA-Za-z0-9０-９）)])`;
const HOLDER_LABEL = '(?:口座)?名義人?[ \\t　]*(?:(?:[:：]|は|が)[ \\t　]*)?';
const HOLDER_AFTER_ACCOUNT = new RegExp(
  `(?:普通|当座|貯蓄)(?:預金)?(?:口座)?(?:番号)?[ 　]*(?:[:：][ 　]*)?${D}{7,8}(?![0-9０-９])[ 　]*(?:[、,，/／][ 　]*)?(?:${HOLDER_LABEL})?(${HOLDER_NAME})`,
  'gdu',
);
const HOLDER_AFTER_LABEL = new RegExp(
  `${HOLDER_LABEL}(${HOLDER_NAME})(?=[ \\t　]*(?:$|[\\r\\n、。,，;；/／|｜（(「<【［\\[]|様|さま|さん|殿|です|宛))`,
  'gdu',
);
// The individual number (マイナンバー) is twelve digits, written whole or in three groups of four. The blanks after the
// particle belong to it, as in JA_BANK_ACCOUNT (a long run of blanks was split every way).
const MY_NUMBER = new RegExp(`(?:マイナンバー|個人番号)[ 　]*(?:(?:[:：]|は|が|を)[ 　]*)?(${D}{4}${SEP}?${D}{4}${SEP}?${D}{4})(?![0-9０-９])`, 'gd');
// IBANs: country, check digits, then up to 30 letters and digits, whole or in groups of four; only those that pass
// the mod-97 check count (see {@link ibanRanges}), so a part number of the same shape stays.
const IBAN = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])/g;
// A password or PIN written into a reply (仮パスワードは Xy7-kP2q です, 仮パスワード Xk9#mP2q を発行しました,
// "Temporary password: Xy7-kP2q", "we reset your password to Xk9#mP2q"). The value is one run of ASCII after the label;
// whether it is a secret or a word of the answer is decided after matching ({@link passwordRanges}):
// "パスワードは8文字以上", "password is case-sensitive" and "SHA-256で" stay. In English the value may follow the word
// right away or after "to" (group `loose`), where a word of the sentence stands as often ("change your password to
// something stronger"): only a value shaped as one handed out counts there ({@link looksHandedOut}). The separator
// carries the whitespace after it: two runs of whitespace around an optional one backtrack quadratically on a label
// before a long run of spaces.
// The label may be spelt letter by letter, as written to get past a pattern for the word (security review 12):
// p-a-s-s-w-o-r-d, p a s s w o r d, パ ス ワ ー ド, パ・ス・ワ・ー・ド; in half-width katakana too (ﾊﾟｽﾜｰﾄﾞ, its voiced
// marks a character of their own, so the label's length differs and it is matched as written rather than folded).
// Full-width letters (ｐａｓｓｗｏｒｄ：Ｘｙ７ｋ…) are read through the folded text ({@link passwordRanges}).
const SPELT_PASSWORD_EN = [...'password'].join('[-._* \\t]?');
const SPELT_PASSWORD_JA = [['パ', 'ﾊﾟ'], ['ス', 'ｽ'], ['ワ', 'ﾜ'], ['ー', 'ｰ'], ['ド', 'ﾄﾞ']].map((forms) => `(?:${forms.join('|')})`).join('[ \\t　・･\\-－]?');
const JA_PASSWORD = new RegExp(
  `(?:${SPELT_PASSWORD_JA}|暗証番号|パスコード|PIN(?:コード)?)[ \\t　]*(?:(?:[:：]|は|が|を|も|として|には|に)[ \\t　]*)?(?<quote>[「『【［\\["“(（]?)(?<value>[A-Za-z0-9][!-~]{3,63})(?![!-~])`,
  'dg',
);
const EN_PASSWORD = new RegExp(
  `\\b(?:${SPELT_PASSWORD_EN}|passcode|passphrase|PIN)(?:[ \\t]*[:=][ \\t]*|[ \\t]+(?:is|was|is now|will be|has been (?:set|changed|reset) to|(?:set|changed|reset) to)[ \\t]+|(?<loose>[ \\t]+(?:to[ \\t]+)?))(?<quote>["'“‘]?)(?<value>[A-Za-z0-9][!-~]{3,63})(?![!-~])`,
  'dgi',
);
// What may follow a password in Japanese text: the end of the sentence or line, a closing bracket, です, or a
// verb of using it. Anything else (で暗号化, のような, 以上) makes the run a word of the answer, unless the run is
// shaped as a password handed out ({@link looksHandedOut}): then any verb may follow (を発行しました, にリセットしました).
const JA_AFTER_PASSWORD = /^[ \t　]*(?:$|[\r\n、。，,.．!！?？）)」』】］\]]|です|でした|でございます|となります|になります|に変更|へ変更|を入力|でログイン|でサインイン)/;
// What follows an example of a password, not one handed out: "P@ssw0rd のような推測されやすいもの", "abc123 など".
const EXAMPLE_AFTER_PASSWORD = /^[ \t　]*(?:のよう|のやう|など|等の|みたい|といった|とかの)/;
// Words with digits or symbols that say how a password is kept or sent, not what it is: hashes and ciphers, Wi-Fi
// security, encodings, a length ("8-digit"), and the systems a password is changed on (パスワードはWindows11の設定から).
const NOT_A_PASSWORD_WORD =
  /^(?:(?:windows|win|ios|ipados|macos|android|office|microsoft|m)\d{1,3}|argon2(?:id|i|d)?|pbkdf2(?:[-_]?(?:sha|hmac)[-_]?\d*)*|bcrypt|scrypt|(?:hmac-?)?sha-?\d+(?:-\d+)?|md5|aes-?\d+(?:-\w+)?|wpa\d?(?:-\w+)?|wep|utf-?\d+|ucs-?\d|x86(?:[-_]64)?|base64|\d{1,3}-(?:digits?|characters?|chars?|letters?|bits?|bytes?|桁)|\d{1,3}(?:bit|byte)s?)$/i;
// The closing quote or bracket of each opening one a password may stand in.
const CLOSING_QUOTE: Record<string, string> = { '「': '」', '『': '』', '【': '】', '［': '］', '[': ']', '"': '"', '“': '”', "'": "'", '‘': '’', '(': ')', '（': '）' };
// Units after a value in English: "password is 8-64 characters long", "PIN is 1234 digits" is a rule, not a PIN.
const EN_AFTER_PASSWORD_RULE = /^[ \t]+(?:characters?|chars?|digits?|letters?|symbols?|long|or more|or longer)\b/i;

// 注文 alone, without 番号 or No., is followed by a count or an amount as often as by a number (注文100個以上,
// 注文20000円以上で送料無料, 注文2024年分): the value has five characters or more and no unit after it.
const UNIT_AFTER = '[個件点円枚台本回日月年時分秒週人名行桁%％万千億倍割ヶヵケカ箱袋冊通]|以[上下内]|未満|超';
const BARE_ORDER_VALUE = `(?=[A-Za-z0-9０-９Ａ-Ｚａ-ｚ\\-－_/]*[0-9０-９])[A-Za-z0-9０-９Ａ-Ｚａ-ｚ][A-Za-z0-9０-９Ａ-Ｚａ-ｚ\\-－_/]{4,}(?<![\\-－_/])(?![A-Za-z0-9０-９Ａ-Ｚａ-ｚ\\-－_/]|[,，.．][0-9０-９]|${UNIT_AFTER})`;
const JA_BARE_ORDER = new RegExp(`ご?注文[ 　]*(?:[:：#＃][ 　]*)?(${BARE_ORDER_VALUE})`, 'gdu');

// The same after the French, German, Spanish, Portuguese, Italian and Dutch words for an order (votre commande 88213,
// Ihre Bestellung 4711, Bestellnummer: A-12345, pedido n.º 12345): four characters or more with a digit, bounded, and
// no amount or count after (commande 3 articles, Bestellung über 40 €). A bare year (Bestellung 2024) is left.
const EU_ORDER_VALUE = `(?=[A-Za-z0-9\\-/]{0,40}[0-9])[A-Za-z0-9][A-Za-z0-9\\-/]{3,40}(?<![\\-/])(?![A-Za-z0-9\\-/]|[,.][0-9]|[ \\t]?(?:€|%|EUR\\b|[Ee]uros?\\b|Stück|Artikel|articles?\\b|produits?\\b|unidades\\b|pezzi\\b))`;
const EU_ORDER = new RegExp(
  `(?<!\\p{L})(?:[Cc]ommande|[Bb]estellung|[Bb]estellnummer|[Aa]uftrag(?:snummer)?|[Pp]edido|[Ee]ncomenda|[Oo]rdine|[Bb]estelling|[Bb]estelnummer)(?:[ \\t]+(?:n[°º]|n\\.º|[Nn]r\\.?|[Nn]o\\.?|núm\\.?|número|numéro|numero))?[ \\t]*(?:[:#][ \\t]*)?(${EU_ORDER_VALUE})`,
  'gdu',
);
// A customer's number after the same languages' words for it (Ihre Kundennummer 4471123, numéro de client, número de
// cliente, numero cliente, klantnummer): it names the customer across every ticket (security review 19).
const EU_CUSTOMER_NUMBER = new RegExp(
  `(?<!\\p{L})(?:[Kk]unden(?:nummer|-?[Nn]r\\.?)|[Mm]itgliedsnummer|[Nn]uméro[ \\t]+(?:de[ \\t]+|du[ \\t]+)?client|[Nn]°[ \\t]*(?:de[ \\t]+)?client|[Nn]úmero[ \\t]+de[ \\t]+(?:cliente|socio)|[Nn]umero[ \\t]+(?:(?:di|del)[ \\t]+)?cliente|[Nn]úmero[ \\t]+(?:de[ \\t]+|do[ \\t]+)?cliente|[Kk]lant(?:nummer|nr\\.?))[ \\t]*(?:[:#][ \\t]*)?(${EU_ORDER_VALUE})`,
  'gdu',
);
// The Korean and Chinese labels of an order, a member, a customer, a waybill or an account number (주문번호
// 202611030042, 您的订单号 202611030042, 会员号, 客户编号, 运单号): the label stays, the number goes (security review 19).
const CJK_NUMBER_LABEL =
  '(?:(?:주문|회원|고객|운송장|송장|예약|계좌)[ \\t]?번호|订单(?:号|编号|號|編號)|訂單(?:號|編號|号)|会员(?:号|编号|卡号)|會員(?:號|編號)|客户(?:号|编号)|客戶(?:號|編號)|(?:运单|快递单|物流单|運單)(?:号|號)|预订号|预约号|账号|帳號)';
const CJK_REFERENCE = new RegExp(`${CJK_NUMBER_LABEL}[ \\t　]*(?:(?:[:：]|은|는|이|가|为|為|是)[ \\t　]*)?[「『(（【［\\[]?(${NUMBER_VALUE})`, 'gdu');
// A carrier's tracking number after the carrier's name (UPS 1Z999AA10123456784, DHL 00340434161234567890), and a UPS
// number by its shape alone (1Z and sixteen letters or digits): it finds the customer's parcel. Eight characters or
// more with six digits or more, since a carrier's service has a number too (DHL EXPRESS-12: bug review R1).
const CARRIER_NUMBER =
  /(?<![\p{L}\p{N}])(?:UPS|FedEx|DHL|USPS|GLS|DPD|Hermes|TNT|Royal[ \t]Mail|Canada[ \t]Post|PostNL|Colissimo|Chronopost|Correos|Yamato|Sagawa|ヤマト(?:運輸)?|佐川(?:急便)?|日本郵便|ゆうパック)[ \t　]{0,3}(?:(?:tracking|shipment|waybill|AWB)[ \t]{0,3})?(?:(?:no\.?|number|nr\.?|#|番号)[ \t　]{0,3})?(?:[:：#][ \t　]{0,3})?((?=(?:[A-Z-]{0,39}[0-9]){6})[A-Z0-9][A-Z0-9-]{7,39})(?![A-Za-z0-9-])/dgu;
const UPS_TRACKING = /(?<![A-Za-z0-9])1Z[0-9A-Z]{16}(?![A-Za-z0-9])/g;
// An airline's booking reference (PNR QX7ZP2, record locator QX7ZP2): six letters or digits, often no digit at all,
// so only after its own label.
const BOOKING_CODE =
  /(?<![A-Za-z0-9])(?:PNR|[Rr]ecord[ \t]locator|[Bb]ooking[ \t](?:code|reference|ref\.?))[ \t]{0,3}(?:(?:code|no\.?|number|is|was|[:#])[ \t]{0,3})?([A-Z0-9]{6})(?![A-Za-z0-9])/dg;
const NOT_A_BOOKING_CODE = new Set(['NUMBER', 'RECORD', 'LOOKUP', 'STATUS', 'SEARCH']);
// A log-in name after "user" (reset the password for user htanaka92) or ユーザー名: only one shaped like an id (a digit,
// or a dot or an underscore inside), since "user" is as often followed by a word.
const USER_LOGIN = new RegExp(
  `(?:\\b[Uu]ser(?:name)?(?=[ \\t:=])|ユーザー名)[ \\t　]{0,3}(?:(?:[:：=]|は|が|を)[ \\t　]{0,3})?[「『(（【［\\[]?@?(${LOGIN_VALUE})(?![\\w@＠]|[.\\-]\\w)`,
  'gdu',
);

// A date of birth after its label (生年月日：1985年3月14日, 誕生日は 3/14/1985, "date of birth 1985-03-14", DOB:, "born on
// 14 March 1985", Geburtsdatum, date de naissance): a date names no one by itself, so only the label makes it personal;
// release dates and 2026年11月3日のメンテナンス stay. The date shapes are fixed-length, so the pattern is linear.
const MONTH_NAME = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]{0,6}\\.?';
const DATE_VALUE = `(?:${D}{4}[-/.年]${D}{1,2}[-/.月]${D}{1,2}日?|${D}{1,2}[-/.]${D}{1,2}[-/.]${D}{2,4}|(?:明治|大正|昭和|平成|令和|[MTSHR])[ 　]?(?:${D}{1,2}|元)[年.][ 　]?${D}{1,2}[月.][ 　]?${D}{1,2}日?|${MONTH_NAME}[ \\t]+\\d{1,2}(?:st|nd|rd|th)?,?[ \\t]+\\d{4}|\\d{1,2}(?:st|nd|rd|th)?\\.?[ \\t]+${MONTH_NAME},?[ \\t]+\\d{4})`;
const BIRTH_DATE = new RegExp(
  `(?:生年月日|誕生日|\\b[Dd]ate [Oo]f [Bb]irth|\\bDATE OF BIRTH|\\bD\\.?O\\.?B\\b\\.?|\\b[Bb]irth ?[Dd]ate|\\b[Bb]irthday|\\b[Bb]orn(?:[ \\t]+on)?|\\bGeburtsdatum|\\bgeboren am|\\b[Dd]ate de naissance|\\bné(?:e)? le|\\b[Ff]echa de nacimiento)[ \\t　]*(?:(?:[:：=]|は|が|を|is|was)[ \\t　]*)?[(（「]?(${DATE_VALUE})(?![0-9０-９])`,
  'gdu',
);

// A one-time code written into a reply (認証コードは 483920 です, "the one-time code 483920 expires", "OTP: 4839"). The
// manual describes codes without a value (6 桁の確認コード, 確認コードは送信から 5 分間有効), so only a concrete value of
// four to ten letters and digits with a digit in it goes, and not one followed by a unit (5 分, 6 桁, "6 digits").
const OTP_VALUE = `(?=[A-Za-z0-9０-９]{0,9}[0-9０-９])[A-Za-z0-9０-９]{4,10}(?![A-Za-z0-9０-９])`;
const JA_OTP = new RegExp(
  `(?:(?:認証|確認|承認|検証|セキュリティ|ワンタイム|ログイン)コード|ワンタイムパスワード|\\bOTP)[ \\t　]*(?:(?:[:：]|は|が|を)[ \\t　]*)?[「『【［\\[(（]?(${OTP_VALUE})(?!${UNIT_AFTER}|文字|[.,．，][0-9０-９])`,
  'gdu',
);
const EN_OTP = new RegExp(
  `\\b(?:(?:[Vv]erification|[Cc]onfirmation|[Ss]ecurity|[Oo]ne[- ]time|[Ll]ogin|[Ss]ign[- ]in|[Aa]uthentication|[Aa]uth|2FA|MFA|[Aa]ccess)[ \\t]+(?:code|passcode|password|PIN)|OTP(?:[ \\t]+code)?)(?:[ \\t]*(?:[:=#]|is|was)(?![A-Za-z]))?[ \\t]*(${OTP_VALUE})(?![ \\t]*(?:digits?|characters?|chars?|minutes?|mins?|seconds?|secs?|hours?|times?|attempts?|tries)\\b|[.,][0-9])`,
  'gd',
);

// Backup and recovery codes are handed out as a list (バックアップコード 12345678 87654321 …, "Your recovery codes are:"
// and one a line): every code after the label goes, not only the first as with a one-time code. A code has four
// letters and digits or more with a digit among them, in dash-joined groups or not; the list goes on over commas, 、,
// spaces and lines (a bullet may open each); a code followed by a unit is a count (10個, 8 桁, 2024年) and stays
// ({@link listedCodeRanges}). Each separator alternative starts where the one before failed, so a run of spaces is read
// a bounded number of times.
const CODE_LIST_LABEL = '(?:(?:バックアップ|リカバリー?|復旧|回復|認証|確認)コード|\\b(?:[Bb]ackup|[Rr]ecovery|[Vv]erification)[ \\t]+codes?)';
const LISTED_CODE = '(?=[A-Za-z0-9-]{0,44}[0-9])[A-Za-z0-9]{4,10}(?:-[A-Za-z0-9]{3,10}){0,3}(?![A-Za-z0-9-])';
const LIST_LINE = '\\r?\\n[ \\t　]*(?:[-*・•●][ \\t　]*)?';
const CODE_SEPARATOR = `(?:[ \\t　]*[,，、/][ \\t　]*|[ \\t　]*${LIST_LINE}|[ \\t　]+)`;
const CODE_LIST = new RegExp(
  `${CODE_LIST_LABEL}[ \\t　]*(?:(?:[:：=]|は|が|を|(?:are|is|were|was)\\b[ \\t]*:?)[ \\t　]*)?(?:${LIST_LINE})?[「『【［\\[(（]?(${LISTED_CODE}(?:${CODE_SEPARATOR}${LISTED_CODE}){0,29})`,
  'gdu',
);
const LISTED_CODE_EACH = new RegExp(LISTED_CODE, 'g');
const UNIT_AFTER_CODE = new RegExp(`^[ \\t　]*(?:${UNIT_AFTER}|文字|桁|けた|(?:digits?|characters?|chars?|minutes?|mins?|hours?|days?|times?|codes?)\\b)`, 'u');

// A tax or VAT id after its label (VAT DE123456789, USt-IdNr.: DE 123 456 789, TVA FR12345678901, P.IVA 12345678901,
// EIN 12-3456789): a sole trader's id names them, and a company's names the customer. Checked after matching for
// seven digits or more, so "VAT 20%" and "VAT included" stay.
const TAX_LABEL =
  '(?:\\bVAT(?:[ \\t]+(?:ID|No\\.?|no\\.?|[Nn]umber|[Rr]eg(?:istration)?\\.?(?:[ \\t]+(?:[Nn]o\\.?|[Nn]umber))?))?|\\bUSt-?Id(?:Nr)?\\.?|\\bUID(?:-Nr\\.?)?|\\bSteuer-?(?:nummer|[Nn]r\\.?)|\\bTVA(?:[ \\t]+intracommunautaire)?|\\bP\\.?[ \\t]?IVA|\\bPartita IVA|\\bNIF|\\bCIF|\\bBTW(?:-?nummer)?|\\b[Tt]ax[ \\t]+(?:ID|[Nn]umber|[Rr]egistration(?:[ \\t]+[Nn]umber)?)|\\bTIN|\\bEIN|\\bGSTIN|\\bABN)';
const TAX_ID = new RegExp(`${TAX_LABEL}[ \\t]*(?:(?:[:：#=]|is|was)[ \\t]*)?((?:[A-Z]{2,3}[ \\t]?)?[0-9](?:[ .\\-]?[0-9A-Z]){6,14})(?![0-9A-Za-z])`, 'gd');
// A Japanese qualified-invoice registration number (T and 13 digits) is a company's, published by the tax agency for
// anyone to check an invoice against, and the sample manual's invoices carry the vendor's own: it stays, and the card
// rule leaves its 13 digits alone. Only when the text says it is the customer's (お客様の登録番号, 貴社の登録番号) does it go.
const CUSTOMER_INVOICE_NUMBER = new RegExp(
  `(?:お客様|お客さま|ご契約者様?|契約者|貴社|御社)(?:の)?(?:適格請求書発行事業者の?)?登録番号[ \\t　]*(?:(?:[:：]|は|が|を)[ \\t　]*)?(T[ \\t　-]?${D}{13})(?![0-9０-９])`,
  'gdu',
);
const INVOICE_REGISTRATION_NUMBER = /(?<=T)[0-9]{13}$/;

// A log-in name after "account" or its Japanese labels (account taro.yamada, アカウント：taro_y, ユーザー名は jsmith).
// With a separator (：, は, が, を) any log-in-shaped value goes; right after the word, as "account" and アカウント are
// followed by ordinary words as often ("account settings"), only a value shaped like a log-in (a dot, an underscore
// or a digit inside) does; in English always, since "Account: Settings" is a menu path. Group 1 is the separator
// (empty in English), group 2 the value.
const EN_ACCOUNT_LOGIN = new RegExp(`\\b[Aa]ccount(?:[ \\t]*[:=])?[ \\t]+()@?(${LOGIN_VALUE})(?![\\w@＠]|[.\\-]\\w)`, 'gd');
const JA_ACCOUNT_LOGIN = new RegExp(
  `(?:アカウント名?|ユーザー?名|ログイン名)[ \\t　]*((?:[:：]|は|が|を)[ \\t　]*[「『(（【［\\[]?)?@?(${LOGIN_VALUE})(?![\\w@＠]|[.\\-]\\w)`,
  'gdu',
);
const LOGIN_SHAPED = /^[A-Za-z][A-Za-z0-9]*(?:[._][A-Za-z0-9]+|\d)/;
const NOT_A_LOGIN_ABBREVIATION = /^(?:e\.g|i\.e|etc|vs)$/i;

// The last four digits of a card identify it as well as the card number does on a receipt or in a dispute: 末尾4242,
// 下4桁は4242, "ending in 4242", "last 4 digits are 4242". 下 alone is too common a word (以下1234件), so it needs 4桁.
const FOUR_DIGITS_WORD = '(?:[4４]|四)(?:桁|けた|ケタ)';
const JA_CARD_TAIL = new RegExp(
  `(?:末尾(?:[ 　]?${FOUR_DIGITS_WORD})?|下[ 　]?${FOUR_DIGITS_WORD})[ 　]*(?:(?:[:：]|は|が|の)[ 　]*)?(${D}{4})(?![0-9０-９A-Za-zＡ-Ｚａ-ｚ]|${UNIT_AFTER}|文字)`,
  'gdu',
);
const EN_CARD_TAIL =
  /\b(?:(?:ending|ends)(?:[ \t]+(?:in|with))?|last[ \t]+(?:4|four)(?:[ \t]+digits)?(?:[ \t]+of[ \t]+(?:the|my|your|his|her|their|our)(?:[ \t]+(?:credit|debit))?[ \t]+card)?)[ \t]*(?:(?:[:=#]|are|is|were|was)[ \t]*)?(\d{4})(?![\w-]|[.,]\d)/dgi;
// A year after "ending in" (the fiscal year ending in 2024) is a card's digits only when a card is named before it.
const YEAR = /^(?:19|20)\d\d$/;
const CARD_WORD = /card|visa|master|amex|american express|jcb|discover|diners|debit|credit|カード/i;
// A card number masked by a shop or a bank but for its last four digits: **** **** **** 4242, XXXX-XXXX-XXXX-4242.
const MASKED_CARD = /(?<![\w*＊•●])[*＊•●xX]{4,16}(?:[ \t-][*＊•●xX]{4,6}){0,3}[ \t-]?[0-9０-９]{4}(?![0-9０-９])/g;

// IP addresses: a customer's public address locates them and their network. Four dotted octets of 0–255 and no more
// (10.0.19045.3803 and 1.2.3.4.5 are versions); which ones are versions or name nobody is decided after matching
// ({@link ipRanges}).
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`(?<![\\w.])${OCTET}(?:\\.${OCTET}){3}(?!\\w|\\.\\d)`, 'g');
// IPv6 candidates, checked by node:net afterwards; starting only where a run of hex digits and colons starts keeps a
// long run of them linear, and each group opening with its colon leaves one way to read the run.
const IPV6 = /(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:(?:\.\d{1,3}){3})?(?![\w:]|\.\d)/g;
// A version or a section written around four dotted numbers (Version 4.2.1.10, バージョン 5.1.2.3, Firmware 12.1.0.3,
// 8.2.4.1項, section 3.2.1.4, ?version=11.2.0.4 in a link) makes them a version or a section number.
const VERSION_BEFORE =
  /(?:\bv|\bver\.?|\bversion|\bbuild|\brelease|\bsections?|\bclauses?|\bchapters?|\bsteps?|\bfirmware|\bdrivers?|\bpatch|§|バージョン|ビルド|リリース|ファームウェア|ファーム|ドライバー?|パッチ|第|手順)[ \t:：=]*$/i;
const SECTION_AFTER = /^[ \t]*(?:項|節|章|条|編|部)/;
// What follows a version and never an address: "11.2.0.4 or later", "11.2.0.4 以降", "12.1.0.3 に更新".
const VERSION_AFTER =
  /^[ \t]*(?:or (?:later|newer|higher|above|greater|earlier|older|lower)\b|and (?:later|newer|higher|above|up|earlier|older)\b|以降|以前|以上|未満|より(?:前|後|新しい|古い)|(?:に|へ)(?:更新|アップデート|アップグレード|バージョンアップ)|(?:を|が)(?:適用|インストール|リリース))/i;
// A verb of changing software before the number: "update to 12.0.6.1", "upgrade the database to 11.2.0.4", "upgrade
// from 11.2.0.4 to 12.2.0.1", "roll back to …". Up to three words may stand between the verb and "to" (or "from" after
// upgrade and downgrade); when one of them names a network setting ("update the allowlist to …", "update the DNS
// record to …") the number is an address after all. Servers move and migrate between addresses, so those verbs are
// not among them.
const VERSION_VERB_BEFORE =
  /\b(?:(?:(?:updat|upgrad|downgrad)(?:e|es|ed|ing)|(?:patch|install)(?:es|ed|ing|s)?|roll(?:s|ed|ing)?[ \t]+back)((?:[ \t]+\S+){0,3}?)[ \t]+to|(?:upgrad|downgrad)(?:e|es|ed|ing)((?:[ \t]+\S+){0,3}?)[ \t]+from)[ \t]*$/i;
const NETWORK_WORD = /\b(?:IP(?:v4)?|address(?:es)?|allow-?list|white-?list|block-?list|black-?list|firewall|DNS|record|gateway|proxy|route|host)\b|アドレス|許可リスト/i;
// The next item of a list that starts with a version or a section: "sections 4.2.1 and 12.3.4.5", "10.0.1 or 11.2.0.4".
// The item before must be a dotted number that is no address itself.
const VERSION_LIST_BEFORE = /(?<![\d.])(\d+(?:\.\d+)+)[ \t]*(?:,|、|，|and|or|to|と|や|から|~|〜|–|-)[ \t]*$/i;
const WHOLE_IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
// A port or a prefix length after the number makes it an address whatever its shape: 3.8.1.2:443, 3.8.1.0/24.
const ADDRESS_AFTER = /^(?::\d{1,5}(?!\d)|\/(?:3[0-2]|[12]?\d)(?!\d))/;
// Versions and clause numbers start with two small numbers (Java 1.8.0.251, ファームウェア 2.1.0.15, 8.2.4.1); so do a
// few public networks, so such a match is an address only when the words before it say so.
const VERSION_SHAPED = /^\d\.\d\./;
// "from" is not among the words: "upgrade from 2.1.0.15" is a version.
const ADDRESS_BEFORE = /(?:\bIP(?:v4)?|\baddress|\bhost|\bserver|\bgateway|アドレス|ホスト|サーバ|接続元|アクセス元|送信元|ゲートウェイ)[^\n]{0,16}$/i;
// Addresses that locate no one: private networks, loopback, link-local, carrier-grade NAT, multicast, the broadcast
// address and subnet masks, the public DNS resolvers answers tell people to use, and the documentation ranges
// (RFC 5737, RFC 3849), which are never assigned to anyone: manuals write their examples in them (the sample
// manual's `203.0.113.0/24`), and a learned answer quoting one must keep it.
const NOT_ANYONES_ADDRESS = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 3],
  ['192.0.2.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24],
] as const) {
  NOT_ANYONES_ADDRESS.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32]] as const) NOT_ANYONES_ADDRESS.addSubnet(network, prefix, 'ipv6');
for (const resolver of ['8.8.8.8', '8.8.4.4', '1.1.1.1', '1.0.0.1', '9.9.9.9', '149.112.112.112', '208.67.222.222', '208.67.220.220']) NOT_ANYONES_ADDRESS.addAddress(resolver, 'ipv4');

// Licence and product keys: three or more groups of four to six letters and digits joined by dashes
// (ABCDE-12345-FGHIJ-67890, 7GH2-K9P4-XQ3M-88ZT). Which ones are keys rather than file names or placeholders is decided
// after matching ({@link looksLikeKey}); groups of digits only are phone, tracking or card numbers and left to their rules.
const LICENCE_KEY = /(?<![\w-])[A-Za-z0-9]{4,6}(?:-[A-Za-z0-9]{4,6}){2,}(?![\w-])/g;
const ALGORITHM_WORD = /^(?:HMAC|SHA\d{0,3}|MD5|AES\d{0,3}|RSA|ECDSA|ED25519|GCM|CBC|AWS4)$/i;
// A part, model or catalogue number names a product, not a customer: after its label (Part No., Model, SKU, 型番, 品番)
// a key-shaped code stays. So do three groups of four that are each letters only or digits only (ABCD-1234-EFGH), the
// shape of a part number, where generated keys mix letters and digits within a group or run to more groups.
const PRODUCT_CODE_LABEL =
  /(?:\b(?:part|model|item|catalog(?:ue)?|article|product)(?:[ \t]+(?:no\.?|number|code|#))?|\bSKU|\bMPN|\bP\/N|型番|品番|部品番号|モデル番号|型式|商品コード|商品番号|製品コード)[ \t　]*[:：#]?[ \t　]*$/i;
// A barcode number names a product: a JAN or EAN code (4901234567894) may pass the Luhn check a card number carries.
const BARCODE_LABEL = /(?:\b(?:JAN|EAN|GTIN|UPC|ISBN)(?:[ \t-]*(?:13|code|コード|番号))?|バーコード)[ \t　]*[:：#]?[ \t　]*$/i;
// Keys in groups of three (ABC-DEF-GHI-JKL, 7K2-9QX-M4P-Z8R): four groups or more, all of three characters, as
// generated keys are uniform; three groups of three are as often a part or model number (ABC-123-XYZ) and stay. Which
// ones are keys is decided after matching ({@link looksLikeShortKey}).
const SHORT_KEY = /(?<![\w-])[A-Za-z0-9]{3}(?:-[A-Za-z0-9]{3}){3,}(?![\w-])/g;
// Groups of three that are words of a schedule, not a key: JAN-FEB-MAR-APR, MON-TUE-WED-THU-FRI.
const CALENDAR_WORDS = new Set(['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN']);
// A UUID written bare is someone's tenant, account or object id (3f2504e0-4f89-11d3-9a0c-0305e82c3301). In braces it
// names a piece of software (a COM class, a device class, an MSI product code: {4D36E972-E325-11CE-BFC1-08002BE10318})
// and stays, as do the nil and the max UUID; so does one in a link (a documentation page's address).
const UUID = /(?<![\w{-])[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}(?![\w}-])/g;
// Keys of four groups or more of four capitals (ABCD-EFGH-IJKL-MNOP), which LICENCE_KEY leaves for want of a digit:
// as uniform as a generated key; three groups (ABCD-EFGH-IJKL, a sample), a format (XXXX-XXXX-XXXX-XXXX) and one
// group repeated stay. Which ones are keys is decided after matching ({@link looksLikeLetterKey}).
const LETTER_KEY = /(?<![\w-])[A-Z]{4}(?:-[A-Z]{4}){3,7}(?![\w-])/g;

// Secrets: whoever reads a learned answer could use a token, a key or a signed link in it, so they go wherever they
// stand, in links too. Keys and tokens in the shapes their services issue (OpenAI and Anthropic sk-…, GitHub ghp_… and
// github_pat_…, Slack xox?-…, AWS key ids, Google AIza…, Stripe sk_live_…/pk_live_…/rk_live_…, JWTs): each run starts
// where a run of token characters starts, so a long run is read once; whether it is a real key (it holds a digit: not
// a placeholder such as sk-xxxxxxxxxxxxxxxxxxxx) is decided after matching.
const KEY_SHAPED = new RegExp(
  `(?<![A-Za-z0-9_-])(?:${[
    'sk-[A-Za-z0-9_-]{20,}',
    'gh[pousr]_[A-Za-z0-9]{30,}',
    'github_pat_[A-Za-z0-9_]{30,}',
    'xox[abposr]-[A-Za-z0-9-]{10,}',
    'xapp-[A-Za-z0-9-]{10,}',
    '(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}(?![A-Za-z0-9])',
    'AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])',
    '(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}',
    'whsec_[A-Za-z0-9]{20,}',
    'eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*(?:\\.[A-Za-z0-9_-]+){0,2}',
  ].join('|')})`,
  'g',
);
// The prefixes of the keys above, and the words documentation writes in a key's place (YOUR-TOKEN-HERE,
// replace-with-your-token): see {@link isPlaceholderSecret}.
const KEY_PREFIX = /^(?:sk-(?:proj-|ant-(?:api\d\d-)?)?|gh[pousr]_|github_pat_|xox[abposr]-|xapp-|(?:sk|pk|rk)_(?:live|test)_|whsec_)/;
const AWS_EXAMPLE_KEY = /EXAMPLE(?:KEY)?$/;
const SHORT_RUN = /(?:^|[^A-Za-z])[A-Za-z]{1,2}[0-9]|(?:^|[^0-9])[0-9]{1,2}[A-Za-z]|[0-9][A-Za-z]{1,2}(?![A-Za-z])|[A-Za-z][0-9]{1,2}(?![0-9])/;
const PLACEHOLDER_MARKERS = new Set(['your', 'here', 'replace', 'example', 'sample', 'dummy', 'fake', 'placeholder', 'redacted', 'insert', 'paste', 'changeme']);
const PLACEHOLDER_WORDS = new Set([
  ...PLACEHOLDER_MARKERS, 'my', 'our', 'the', 'a', 'an', 'api', 'access', 'secret', 'client', 'private', 'personal', 'auth', 'bearer', 'key', 'token', 'id',
  'goes', 'with', 'me', 'this', 'value',
]);
// A secret after its label (API key: …, client_secret = "…", aws_secret_access_key = …, APIキーは …, アクセストークン：…);
// the label stays. Whether the value is a secret or a word of the answer ("API key: required", "token: <your token>")
// is decided after matching ({@link looksLikeSecretValue}).
const SECRET_VALUE = '[A-Za-z0-9_\\-.~+/=]+';
const EN_SECRET_LABEL = new RegExp(
  `(?<![A-Za-z0-9])(?:(?:x-)?api[ _-]?(?:key|token|secret)|(?:aws[ _-])?(?:secret[ _-])?access[ _-]?(?:key(?:[ _-]?id)?|token)|(?:client|app|consumer|webhook|signing)[ _-]?secret|secret(?:[ _-]?key)?|private[ _-]?token|(?:auth|bearer|refresh|session|id|personal[ _-]access)[ _-]?token|token)["']?[ \\t]*(?:[:=]|(?:is|was)\\b)[ \\t]*["'“]?(${SECRET_VALUE})`,
  'dgi',
);
// The blanks after the particle belong to it, as in JA_BANK_ACCOUNT (20,000 tabs after 秘密鍵: 0.9 s a scrub).
const JA_SECRET_LABEL = new RegExp(
  `(?:API[ 　]?(?:キー|トークン)|アクセスキー(?:ID)?|シークレット(?:アクセス)?キー|クライアントシークレット|(?:アクセス|リフレッシュ|API)?トークン|秘密鍵)[ \\t　]*(?:(?:[:：=]|は|が|を)[ \\t　]*)?[「『【［\\["“(（]?(${SECRET_VALUE})`,
  'dgu',
);
// A token pasted with its scheme (Bearer 8f3a…) and a pasted Authorization header, whose credential is the rest of its
// line: the scheme stays, so the answer still says how the request authenticates.
const BEARER = /\b[Bb]earer[ \t]+([A-Za-z0-9_\-.~+/]+=*)/dg;
const AUTHORIZATION_HEADER =
  /\b(?:Proxy-)?Authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:Bearer|Basic|Token|Digest|Bot|Negotiate|NTLM|OAuth|AWS4-HMAC-SHA256|HMAC-SHA256)[ \t]+)?([^\r\n"'`]+)/dgi;
// A private key block: the markers stay (they say what was pasted), the body goes. The body is read line by line
// after the BEGIN marker (armour headers, then base64), not searched for its END marker, so a text of BEGIN markers
// without an end is read once; a key cut off before its end goes too. Certificates and public keys are public and stay.
const PRIVATE_KEY_BEGIN = /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_SAME_LINE = /[ \t]*([A-Za-z0-9+/=]+(?:[ \t]+[A-Za-z0-9+/=]+)*)[ \t]*(?=-----END |\r?\n|$)/dy;
const PEM_HEADER_LINE = /\r?\n[ \t]*(?:>[ \t]*)*[A-Za-z][A-Za-z-]*:[^\r\n]*/y;
const PEM_BLANK_LINE = /\r?\n[ \t]*(?:>[ \t]*)*(?=\r?\n)/y;
const PEM_BODY_LINE = /\r?\n[ \t]*(?:>[ \t]*)*([A-Za-z0-9+/=]{4,})[ \t]*(?=\r?\n|$)/dy;
// A word after the marker ("-----BEGIN PRIVATE KEY----- and then the key", a line "then") is prose: a body holds a run
// of base64 longer than a word (lines of 64 characters, but the last).
const PEM_RUN = /[A-Za-z0-9+/=]{24,}/;

// Secrets in a link: the value of a query or fragment parameter named for one (token=, access_token=, signature=,
// X-Amz-Signature=, sig=, api_key=, pwd=), and, when it looks random, of one whose name may mean other things (key=,
// code=, hash=, t=); and a random path segment after a word of a reset, sign-in or invitation link (/reset/…,
// /invite/…, /login/magic/…). The scheme, host and path before it stay: the reset page exists for everyone. Other
// random segments and parameters stay, as a documentation page's id looks the same (/kb/8f3a9b2c…, ?id=…).
const LINK_PARAMETER = /[?&#]([^=&#?\s]{1,64})=([^&#\s]*)/dg;
const SECRET_PARAMETER = /(?:token|signature|secret|password|passwd|passcode|pwd|apikey|accesskey|secretkey|privatekey|credentials?|sig|otp|jwt|session|sessionid|authkey)$|^(?:auth|pin|pass)$/;
const RANDOM_PARAMETER = /(?:key|code|hash|hmac|ticket|nonce|invite|invitation|verifier)$|^[tksch]$/;
const SECRET_PATH_WORDS = new Set([
  'reset', 'verify', 'verification', 'confirm', 'confirmation', 'activate', 'activation', 'invite', 'invites', 'invitation', 'invitations', 'magic',
  'magiclink', 'login', 'signin', 'logon', 'auth', 'token', 'tokens', 'unsubscribe', 'passwordreset', 'resetpassword', 'otp',
]);
// An e-mail address percent-encoded in a link (?email=taro%40example.com) is as much the customer's as one written out.
const ENCODED_EMAIL = /(?<![A-Za-z0-9._+%\-])[A-Za-z0-9._+\-]+(?:%2[Bb][A-Za-z0-9._\-]+)*%40[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+/g;

// Text that writes ASCII in full-width forms (ｔａｒｏ＠ｅｘａｍｐｌｅ．ｃｏｍ, ５２．１４．８８．２０１) is read through a copy with
// those forms folded to ASCII ({@link foldFullWidth}): one UTF-16 unit for one, so a match's indices are the original's.
const FULL_WIDTH_ASCII = /[\uFF01-\uFF5E]/g;
// An e-mail address written so that the plain pattern misses it (security review 12): the @ and the dots spelt out or
// in brackets, taro.yamada (at) example (dot) com, taro[at]example[dot]com, taro アットマーク example ドット com,
// taro@example[.]com. Read on the folded text, so taro＠example．com is the plain pattern's. Every separator's spaces
// are bounded and no two separators begin alike, so a run of near-matches is read in linear time; a local part or
// label holds no dot, the dot being a separator of its own, for one way to read `a.b.c`. A match does not start right
// after a dot written as a word or in brackets, spaces between or not (taro dot yamada at …: at taro, not yamada; `a (dot) `
// repeated was read from every `a` to the end, quadratic: review 44b), for the same reason. Which
// matches are addresses rather than prose ("look at the dot in …") is decided after matching
// ({@link obfuscatedEmailRanges}).
const OBFUSCATION_SPACE = '[ \\t\\u3000]{0,3}';
const BRACKETED_AT = `[\\[({<]${OBFUSCATION_SPACE}(?:at|@|アット(?:マーク)?)${OBFUSCATION_SPACE}[\\])}>]`;
const BRACKETED_DOT = `[\\[({<]${OBFUSCATION_SPACE}(?:dot|\\.)${OBFUSCATION_SPACE}[\\])}>]`;
const OBFUSCATED_AT = `(?:${OBFUSCATION_SPACE}(?:${BRACKETED_AT}|アット(?:マーク)?|あっと(?:まーく)?|@)${OBFUSCATION_SPACE}|(?<wordAt>[ \\t]{1,3}at[ \\t]{1,3}))`;
const OBFUSCATED_DOT = `(?:${OBFUSCATION_SPACE}(?:${BRACKETED_DOT}|ドット|どっと)${OBFUSCATION_SPACE}|[ \\t]{1,3}dot[ \\t]{1,3}|\\.)`;
const OBFUSCATED_EMAIL = new RegExp(
  `(?<![A-Za-z0-9._%+\\-\\])}>@]|(?:dot|ドット|どっと|${BRACKETED_DOT})${OBFUSCATION_SPACE})(?<local>[A-Za-z0-9_%+\\-]+(?:${OBFUSCATED_DOT}[A-Za-z0-9_%+\\-]+)*)${OBFUSCATED_AT}(?<domain>[A-Za-z0-9\\-]+(?:${OBFUSCATED_DOT}[A-Za-z0-9\\-]+)*)${OBFUSCATED_DOT}(?<tld>[A-Za-z]{2,24})(?![A-Za-z0-9\\-])`,
  'dgi',
);
const SPELT_SEPARATOR = /\[|\(|\{|ドット|どっと|アット|あっと|\bdot\b|\bat\b/i;
// The top-level domains an address spelt with words (at, dot, アット, ドット) must end in: a sentence's last word after
// "dot" is an ordinary one as often ("look at the dot in the corner"). Not "in", "it", "is", "to" or "so".
const SPELT_ADDRESS_TLDS = new Set([
  'com', 'net', 'org', 'edu', 'gov', 'info', 'biz', 'io', 'co', 'jp', 'me', 'us', 'uk', 'de', 'fr', 'es', 'nl', 'cn', 'kr', 'tw', 'hk', 'sg', 'au', 'nz', 'ca',
  'ch', 'se', 'ru', 'br', 'app', 'dev', 'ai', 'cloud', 'xyz', 'online', 'site', 'shop', 'tech', 'mobi', 'name', 'pro', 'email', 'mail',
]);
// What stands before "at" in running text as often as a local part: "sign in at mail dot example dot com" names a host.
const NOT_A_SPELT_LOCAL_PART = new Set([
  'in', 'on', 'up', 'out', 'back', 'me', 'us', 'him', 'her', 'them', 'it', 'you', 'here', 'there', 'online', 'signed', 'logged', 'log', 'login',
  'sign', 'look', 'looking', 'available', 'found', 'find', 'reach', 'visit', 'go', 'page', 'site', 'website', 'portal', 'is', 'are', 'was', 'be', 'and', 'or',
  // Verbs of where and when (review 44b: "We stay at Hilton (dot) com", "Prices started at the dot com peak").
  'stay', 'stays', 'stayed', 'staying', 'start', 'starts', 'started', 'starting', 'founded', 'launched', 'began', 'begin', 'begins', 'ended', 'peaked',
  'arrive', 'arrived', 'arrives', 'meet', 'met', 'meeting', 'work', 'works', 'worked', 'working', 'live', 'lives', 'lived', 'living', 'shop', 'shopped',
  'shopping', 'buy', 'bought', 'book', 'booked', 'sold', 'sell', 'selling', 'priced', 'valued', 'born', 'based', 'located', 'held', 'hosted', 'listed',
  'joined', 'studied', 'study', 'eat', 'ate', 'slept', 'sleep', 'check', 'checked', 'stop', 'stopped', 'landed', 'not', 'only', 'even', 'least', 'most',
]);
// What follows "at" in running text ("at the dot com boom"): no domain's first label.
const NOT_A_SPELT_DOMAIN = new Set(['the', 'a', 'an', 'this', 'that', 'these', 'those', 'our', 'your', 'my', 'their', 'his', 'her', 'its']);
// A phone or account number spelt in words, ten digits or more (zero nine zero one two three four five six seven
// eight; ゼロキューゼロイチニーサン…): ordinary text never runs ten number words in a row, so no label is needed.
// Separators are bounded and a match does not start right after a number word, so a long run is read once.
const EN_DIGIT_WORD = '(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)';
const EN_DIGIT_SEPARATOR = '(?:[ \\t]{0,2}[,\\-–][ \\t]{0,2}|[ \\t]{1,3})';
const EN_SPELT_NUMBER = new RegExp(
  `(?<![A-Za-z]|${EN_DIGIT_WORD}${EN_DIGIT_SEPARATOR})${EN_DIGIT_WORD}(?:${EN_DIGIT_SEPARATOR}${EN_DIGIT_WORD}){9,}(?![A-Za-z])`,
  'gi',
);
const KANA_DIGIT_WORD = '(?:ゼロ|レイ|マル|イチ|ニー|ニ|サン|ヨン|シチ|シ|ゴー|ゴ|ロク|ナナ|ハチ|キュウ|キュー|ク)';
const KANA_DIGIT_SEPARATOR = '[ \\t\\u3000・･、，,\\-－‐]{0,2}';
const KANA_SPELT_NUMBER = new RegExp(
  `(?<![\\p{Script=Katakana}ー]|${KANA_DIGIT_WORD}${KANA_DIGIT_SEPARATOR})${KANA_DIGIT_WORD}(?:${KANA_DIGIT_SEPARATOR}${KANA_DIGIT_WORD}){9,}(?![\\p{Script=Katakana}ー])`,
  'gu',
);
// Each number word's digit, to tell the words listed in their order (zero, one, two, … nine; ゼロ、イチ、ニ…キュウ in a
// manual on how to read them: review 44b) from a number.
const DIGIT_OF_WORD = new Map<string, string>([
  ...['zero|oh', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'].flatMap((words, digit) => words.split('|').map((w): [string, string] => [w, String(digit)])),
  ...['ゼロ|レイ|マル', 'イチ', 'ニー|ニ', 'サン', 'ヨン|シ', 'ゴー|ゴ', 'ロク', 'ナナ|シチ', 'ハチ', 'キュウ|キュー|ク'].flatMap((words, digit) => words.split('|').map((w): [string, string] => [w, String(digit)])),
]);
const SPELT_DIGIT_WORD = new RegExp(`${EN_DIGIT_WORD}|${KANA_DIGIT_WORD}`, 'gi');
const DIGITS_IN_ORDER = new Set(['0123456789', '1234567890']);
// A link or host name defanged, as one is written to get past a link check (security review 12): hxxps://…,
// https[:]//…, xyz[.]com, example(.)co(.)jp. Not personal data, and no placeholder of the scrub's: a learned
// candidate's question replaces them as it replaces the customer's other links ({@link defangedLinkRanges}).
const DEFANGED_DOT = '(?:\\[\\.\\]|\\(\\.\\)|\\{\\.\\}|\\[dot\\]|\\(dot\\)|\\{dot\\})';
const LINK_CHARACTER = `(?:${DEFANGED_DOT}|[^\\s<>"'）)」])`;
const DEFANGED_LINK = new RegExp(`\\b(?:h(?:xx|\\*\\*|__)ps?(?:\\[:\\]|\\(:\\)|:)|https?(?:\\[:\\]|\\(:\\)))//${LINK_CHARACTER}+`, 'gi');
const DEFANGED_HOST = new RegExp(
  `(?<![A-Za-z0-9.\\-\\])}@])(?<host>[A-Za-z0-9\\-]+(?:\\.[A-Za-z0-9\\-]+)*(?:${DEFANGED_DOT}[A-Za-z0-9\\-]+(?:\\.[A-Za-z0-9\\-]+)*)+)(?:/${LINK_CHARACTER}*)?`,
  'dgi',
);
const DEFANGED_HOST_SCHEME = /\b(?:https?|h(?:xx|\*\*|__)ps?|ftp)(?:\[:\]|\(:\)|:)\/\/$/i;
// File names are written with [.] in code and prose about patterns (name[.]js); their extensions are no domains.
const FILE_EXTENSIONS = new Set([
  'js', 'ts', 'py', 'rb', 'go', 'md', 'sh', 'cs', 'pl', 'rs', 'txt', 'json', 'yml', 'yaml', 'csv', 'log', 'html', 'css', 'exe', 'pdf', 'doc', 'png', 'jpg', 'gif', 'zip', 'xml', 'cfg', 'ini', 'conf',
  // Review 44b: code, documents and archives named in questions about uploads and builds.
  'php', 'java', 'vue', 'sql', 'tsx', 'jsx', 'mjs', 'cjs', 'cpp', 'hpp', 'kt', 'swift', 'scss', 'htm', 'toml', 'env', 'bat', 'cmd', 'docx', 'xlsx', 'xls', 'pptx', 'ppt',
  'odt', 'ods', 'rtf', 'jpeg', 'svg', 'webp', 'heic', 'tif', 'tiff', 'bmp', 'ico', 'mp3', 'mp4', 'wav', 'tar', 'gz', 'tgz', 'rar', 'dmg', 'msi', 'apk', 'dll', 'bak', 'tmp', 'lock',
]);

// A log-in name in running text ("the admin login is yamada_t", "I logged in as taro.yamada", 管理者のログインは
// yamada_t です). After "login is" an ordinary word follows as often ("login is slow", "login is required", "log in as
// admin", "The login is OAuth2-based"), so only a value shaped like a log-in counts: small letters with a dot or an
// underscore inside, or small letters then digits; not a host name (login is sso.example.com).
const RUNNING_LOGIN_VALUE = '[a-z][a-z0-9]*(?:[._][a-z0-9]+)+|[a-z]+[0-9]+';
const EN_RUNNING_LOGIN = new RegExp(
  `\\b(?:[Ll]og|[Ss]ign)(?:s|ged|ed|ing)?[ -]?(?:in|on)[ \\t]+(?:is|was|as)[ \\t]+@?(${RUNNING_LOGIN_VALUE})(?![\\w@＠]|[.\\-]\\w)`,
  'dg',
);
const JA_RUNNING_LOGIN = new RegExp(`ログイン[ \\t　]*(?:は|が)[ \\t　]*(${RUNNING_LOGIN_VALUE})(?![\\w@＠]|[.\\-]\\w)`, 'dgu');
const HOST_NAME = /\.(?:com|net|org|io|jp|co|dev|app|ai|info|biz|uk|de|fr|us|eu|cloud|local|example|test|internal)$/;

// A name in quotes before an honorific: 「山田太郎」様, 『佐藤 花子』さん, 「John Smith」様. The quotes and the honorific stay.
const QUOTED_HONORIFIC = /[「『“"]([\p{L}\p{M}ー々・'’. 　-]{1,30})[」』”"][ 　]?(?:様(?![式子々相態])|さま|さん|殿(?!下)|氏(?![名族]))/dgu;

// The header block of a forwarded or quoted mail (Gmail, Outlook with its bold `*From:*`, Apple Mail, Thunderbird;
// the languages src/mail/parse.ts reads such blocks in): the people in its From, To and Cc lines are other people's
// names. A line counts when it carries an address, or when it stands among the block's other lines (a date or subject
// line, or a forward marker above), so "To: の欄には…" in an answer stays.
const QUOTE_PREFIX = '^[ \\t]*(?:[>＞][ \\t]*)*(?:\\*[ \\t]*)?';
const HEADER_END = '[ \\t]*(?:\\*[ \\t]*)?[:：](?:[ \\t]*\\*)?[ \\t]*';
const PEOPLE_HEADER = new RegExp(`${QUOTE_PREFIX}(?:from|to|cc|bcc|reply-to|差出人|送信者|送信元|宛先|受信者|返信先|von|an|de|à)${HEADER_END}`, 'i');
const BLOCK_HEADER = new RegExp(`${QUOTE_PREFIX}(?:date|sent|subject|送信日時|送信日|日時|日付|件名|gesendet|datum|betreff|envoyé|objet)${HEADER_END}`, 'i');
const FORWARD_MARKER = new RegExp(
  `${QUOTE_PREFIX}(?:[-－―‐_=＝]{2,}[ \\t]*(?:forwarded message|original message|元のメッセージ|オリジナル[ \\t　]*メッセージ|転送(?:された)?メッセージ|message d'origine|ursprüngliche nachricht)|begin forwarded message[ \\t]*:|転送されたメッセージ[ \\t]*[:：])`,
  'i',
);

// The line a mail client writes above a quoted reply, in the shapes src/mail/parse.ts strips and
// src/mail/compose-reply.ts writes: the name in it is the sender's. A longer line is not one a client wrote.
const ATTRIBUTION_MAX_CHARS = 400;
const LINE_QUOTE_PREFIX = /^[ \t]*(?:[>＞][ \t]*)*/;
// The marker at the end: "… wrote:", "… a écrit :", "… escribió:", "… ha scritto:", 「…さんは書きました:」,
// 「… <…>のメール:」, 「… からのメッセージ:」.
const ATTRIBUTION_END =
  /(?:[ \t]+(?:wrote|writes|a écrit|escribió|ha scritto|skrev|schreef|schrieb)|[ \t　]*(?:(?:さん|様)?(?:は|が))?書きました|[ \t　]*(?:から|より)?の(?:メール|メッセージ))[ \t]*[:：][ \t]*$/iu;
// The Japanese markers say "mail" as often in prose (エラーのメール:), so they count only with an address.
const JA_MAIL_MARKER = /の(?:メール|メッセージ)[ \t]*[:：][ \t]*$/u;
// The marker is read in the line's last characters only, so a line of spaces costs no more than its length.
const ATTRIBUTION_END_CHARS = 48;
// German puts the verb before the name, after the date: "Am 03.11.2026 um 10:02 schrieb Taro Yamada <…>:".
const VERB_BEFORE_NAME = /[ \t]schrieb[ \t]+/i;
// Gmail in Japanese ends with the address and a colon alone: "2026年11月3日(月) 10:02 山田太郎 <taro@…>:".
const GMAIL_JA_ATTRIBUTION = /^\d{4}年[ \t]*\d{1,2}月[ \t]*\d{1,2}日[^\n]*[:：][ \t]*$/u;
const TRAILING_COLON = /[ \t]*[:：][ \t]*$/;
// A line that starts with a date, in the words clients open it with: the name follows the date.
const DATED_ATTRIBUTION = /^(?:(?:On|Le|El|Il|Op|Am|Den)[ \t]|\d{1,4}[年/.-])/iu;
// Where the date ends: after its time (10:02, 10:02 AM, 10:02:33 +0900) or, without one, its year.
const TIME_TOKEN = /\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]*[AaPp]\.?[Mm]\.?(?!\p{L}))?(?:[ \t]*(?:[+-]\d{4}|GMT|UTC|JST|CES?T|[ECMP][SD]T)\b)?/gu;
const YEAR_TOKEN = /(?<!\d)(?:19|20)\d{2}(?!\d)(?:年(?:[ \t]*\d{1,2}月[ \t]*\d{1,2}日)?(?:[(（][^)）\n]{1,4}[)）])?)?/gu;
// What joins the date to the name: ", ", "、", " に " (Thunderbird in Japanese), " a las " is before the time.
const AFTER_DATE = /^[ \t　]*(?:[,，、][ \t　]*)?(?:に[ \t　]+)?/u;
// Where the address part of a display starts: <taro@…>, (<taro@…>), [mailto:…], or a bare address.
const ADDRESS_PART = /(?:[(（][ \t]*)?(?:[<＜]|\[mailto:)|[^\s<>()"]{1,64}[@＠]/u;
// The name written the way a client shows it without an address: capitalised words, or a name in kanji or katakana.
// Each Latin word is an initial or has a small letter after its capital (Zoë, O'Brien, L.), so "XYZ Cloud" is no name.
const WRITER_WORD = "\\p{Lu}(?:\\.|['’]?\\p{Ll}[\\p{L}\\p{M}'’-]*|['’]\\p{Lu}\\p{Ll}[\\p{L}\\p{M}'’-]*)?";
const WRITER_NAME_LATIN = new RegExp(`^${WRITER_WORD}(?:[ \\t]+${WRITER_WORD}){0,3}$`, 'u');
const WRITER_NAME_JA = /^[\p{Script=Han}\p{Script=Katakana}ー々・]{1,10}(?:[ 　][\p{Script=Han}\p{Script=Katakana}ー々・]{1,10})?$/u;

// A signature block: after the sig dash (`-- `), a rule of dashes, underscores or box lines, or a sign-off line of its
// own ("Best regards,", "よろしくお願いいたします。"), up to SIGNATURE_LINES lines and no further than quoted text. Only
// the sig dash opens one for sure; after a rule or a sign-off (a Markdown table follows `---` as well), the block must
// hold a sign of contact details (CONTACT_MARKER).
const SIG_DASH = /^[ \t]*--[ \t]*$/;
// The Japanese sign-off's blanks are one run wherever they stand (after 以上, after 今後とも, before よろしく): `[ \\t　]*`
// on both sides of an optional part split a long run every way (security review 15: a 16,000-character line took
// seconds). Round 1 skipped lines over 200 characters instead, which dropped the signature block after a rule of 250
// dashes or a sign-off padded with blanks (round 2); the pattern is linear now and reads every line.
const PLEASE_SIGN_OFF = '(?:よろしく|宜しく)お願い(?:いた|致|申し上げ)?(?:し)?ます[。.！!]?';
const SIGN_OFF_ADVERB = '(?:今後とも|引き続き|何卒|なにとぞ|どうぞ)';
const SIGNATURE_START = new RegExp(
  `^(?:[ \\t]*(?:--|[-_=*＊━─―－~〜]{3,}|(?:(?:best|kind|warm)[ \\t]+)?regards[,.!]?|best[,!]?|thanks[,.!]?|thank you[,.!]?|sincerely[,.]?|cheers[,.!]?|以上[、,]?[ \\t　]*(?:${SIGN_OFF_ADVERB}[ \\t　]*)?${PLEASE_SIGN_OFF}|${SIGN_OFF_ADVERB}[ \\t　]*${PLEASE_SIGN_OFF})|[ \\t　]*${PLEASE_SIGN_OFF})[ \\t]*$`,
  'i',
);
const SIGNATURE_LINES = 10;
// A number in a signature, however its digits are grouped: 924 38 051, 22 33 44 55, 030.1234.5678, (0)30 1234-56.
// Under a name and beside an address, such a run of digits is a phone or fax number whatever the country writes.
// A number that runs on into a time (3/9/2006 3:50) or a host name (60-0-0-146.static.example) is not taken.
const SIGNATURE_NUMBER = /(?<![\w.+/-])\+?(?:\(\d{1,5}\)[ .-]?)?\d{1,5}(?:[ ./-]\d{1,5}){1,5}(?![\w/-]|[.,:]\d|\.\p{L})/gu;
const DATE_SHAPED = /^(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}[./-]\d{1,2}[./-]\d{1,2})$/;
// A count with thousands separators (1 000 000, 1.000.000) starts with no 0, as a national number does.
const THOUSANDS_SHAPED = /^[1-9]\d{0,2}([ .,])\d{3}(?:\1\d{3})*$/;
// A romaji name on a signature line of its own, one word capitalised and one in capitals (Taro YAMADA, YAMADA Taro).
// Each word must read as Japanese syllables ({@link ROMAJI_WORD}), so acronyms and product words (ACME, XYZ Cloud,
// SONY Support) are not taken; a few romaji-shaped words of company lines are listed.
const SIGNATURE_ROMAJI_NAME = /^[ \t]*([A-Z][a-z]+[ \t]+[A-Z]{2,}|[A-Z]{2,}[ \t]+[A-Z][a-z]+)[ \t]*$/d;
// Each syllable is taken whole, as first found (lookahead and back-reference, an atomic group): left free to split
// differently, `h` and `y` ending one syllable or starting the next made the pattern exponential (security review 15:
// a 56-letter word of a signature line took 500 s). Taking a syllable's `h` never stops the rest from reading.
const ROMAJI_WORD = /^(?:(?=((?:[kstnhmrgzdbpfj]|([kstpcg])\2|ts|sh|ch|w|y)?y?[aiueo]h?|n))\1)+$/i;
// A surname or a given name in kanji written apart (山田 太郎), or a whole name after a department (山田太郎).
const KANJI_NAME_PART = /^[\p{Script=Han}々]{1,4}$/u;
const KANJI_FULL_NAME = /^[\p{Script=Han}々]{2,5}$/u;
const NOT_A_ROMAJI_NAME = new Set(['japan', 'nippon', 'tokyo', 'osaka', 'kyoto', 'nagoya', 'yokohama', 'fukuoka', 'sapporo', 'kobe', 'home', 'page', 'data', 'mobile']);
const CONTACT_MARKER = /[@＠]|https?:\/\/|www\.|\b(?:tel|fax|phone|mobile|mob|cell|e-?mail)\b|電話|携帯|〒|株式会社|有限会社|合同会社|\b(?:inc|ltd|llc|gmbh|corp)\b/i;

// Japanese addresses: prefecture (or a city/ward when the prefecture is left out), district, then the block number.
const PREFECTURE =
  '(?:北海道|東京都|大阪府|京都府|(?:青森|岩手|宮城|秋田|山形|福島|茨城|栃木|群馬|埼玉|千葉|神奈川|新潟|富山|石川|福井|山梨|長野|岐阜|静岡|愛知|三重|滋賀|兵庫|奈良|和歌山|鳥取|島根|岡山|広島|山口|徳島|香川|愛媛|高知|福岡|佐賀|長崎|熊本|大分|宮崎|鹿児島|沖縄)県)';
const BLOCK = `(?:${D}+|[一二三四五六七八九十]+)(?:丁目|番地?|号|${DASH}(?=${D}))(?:(?:${D}+|[一二三四五六七八九十]+)(?:丁目|番地?|号|${DASH}(?=${D}))?)*`;
const BUILDING = `(?:[ 　]?[\\p{L}ー・]{1,20}?[ 　]?${D}{1,4}(?:号室|階|[FＦ])?)?`;
const TOWN = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}ー々ヶ]';
const JA_ADDRESS = new RegExp(`${PREFECTURE}[ 　]?(?:${TOWN}{1,10}?[市区町村郡]){1,3}${TOWN}{0,12}?${BLOCK}${BUILDING}`, 'gu');
const WHOLE_PREFECTURE = new RegExp(`^${PREFECTURE}$`, 'u');
// A building and its room on their own (コーポ山田 203号室, グランドメゾン渋谷 1203号室) or on the line under the street
// (サンハイツ 203): a residential building word, then a room (号室, 号) after more of its name, or a room number of three
// or four digits (a floor and a room) that ends the line right after the word (コーポレート 10 and レジデンスプラン 2 are
// other words, マンション 2 a count or a plan); a block (3号棟) may stand before the room; or any name before a number
// of 号室. Building words that name things too (タワー, コート, テラス) are left out.
const BUILDING_NAME_CHAR = '[\\p{Script=Han}\\p{Script=Katakana}ー・々A-Za-zＡ-Ｚａ-ｚ]';
const RESIDENCE = '(?:マンション|ハイツ|コーポ|アパート|レジデンス|メゾン|ハイム|荘|団地)';
const BUILDING_ROOM = new RegExp(
  `(?<!${BUILDING_NAME_CHAR}|[0-9０-９])(?:${BUILDING_NAME_CHAR}{0,16}?${RESIDENCE}(?:${BUILDING_NAME_CHAR}{0,16}?[ 　]?(?:${D}{1,3}号?棟[ 　]?)?${D}{1,4}(?:号室|号(?![機車線館棟]))|[ 　]?(?:${D}{1,3}号?棟[ 　]?)?${D}{3,4}(?![0-9０-９])(?=[ \\t　]*(?:[\\r\\n、。,，)）]|$)))|${BUILDING_NAME_CHAR}{1,16}?[ 　]?${D}{1,4}号室)`,
  'gu',
);
// A room of a venue (会議室 301号室, 研修センター 201号室) is where a company meets, not where someone lives.
const VENUE_ROOM = /(?:室|ルーム|ホール|会場|センター)[ 　]?[0-9０-９]{1,4}号室$/u;
// Without the prefecture a city or ward must be followed by a town name of two or more characters, so that words
// ending in 区 or 市 (料金区分2-1) are not taken for addresses.
const JA_ADDRESS_CITY = new RegExp(`(?:\\p{Script=Han}{1,6}?[市区]){1,2}${TOWN}{2,12}?${BLOCK}${BUILDING}`, 'gu');
// After an address label, the rest of the line is the address, block number or not (住所：神奈川県横浜市中区山下町).
const LABELLED_ADDRESS = /(?:ご?住所|ご?自宅|送付先|配送先|お届け先|発送先)[ \t　]*[:：][ \t　]*((?![のはがをにへともや])[^\n。]{4,80}?)[ \t　]*(?=\n|。|$)/dgu;
const PLACE = /[\p{Script=Han}](?:都|道|府|県|市|区|町|村|郡)|[市区町村]/u;
// English and US streets, number first: 221B Baker Street, Flat 3, 12 High Road, 500 Market Street, Apt 4.
// A compass direction may stand before the name or after the type (6765 S.W. Preslynn Drive, 123 N Main St, 1600
// Pennsylvania Ave NW).
const EN_STREET =
  /\b(?:(?:Flat|Apartment|Apt\.?|Unit|Suite)\s+[A-Za-z0-9-]+,?\s+)?\d{1,6}[A-Za-z]?\s+(?:(?:[NS]\.?[EW]\.?|[NSEW]\.?)\s+)?(?:[A-Z][a-z]+\.?\s+){1,4}(?:Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Boulevard|Blvd\.?|Lane|Ln\.?|Drive|Dr\.?|Way|Court|Ct\.?|Place|Pl\.?|Terrace|Parkway|Pkwy\.?|Crescent|Grove|Gardens|Mews|Square)(?![A-Za-z])(?:[ \t]+(?:[NS][EW]|[NSEW])(?![\w.]))?(?:,?\s+(?:Apt\.?|Suite|Unit|Flat|#)\s*[A-Za-z0-9-]+)?/g;
// After an English address label the rest of the line is the address (Address: Flat 3, Baker Street, London NW1 6XE),
// when it opens with a capital or a digit and reads as one ({@link EN_ADDRESS_SHAPE}): "Address: enter your billing
// address" stays. The label does not follow another word (IP address:, Email address:) unless it is one of the kinds
// of postal address.
const EN_LABELLED_ADDRESS =
  /(?<![\p{L}\p{N}][ \t]?)(?:(?:[Ss]hipping|[Bb]illing|[Mm]ailing|[Hh]ome|[Pp]ostal|[Dd]elivery|[Ss]treet|[Rr]esidential)[ \t]+)?(?:[Aa]ddress|ADDRESS)[ \t]*:[ \t]*([\p{Lu}\p{N}#][^\r\n]{3,119}?)[ \t]*(?=\r?\n|$)/dgu;
const EN_ADDRESS_SHAPE =
  /\b(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Way|Boulevard|Blvd|Court|Ct|Place|Pl|Terrace|Crescent|Close|Square|Flat|Apt|Apartment|Suite|Unit|P\.?O\.? Box)\b|\d+[A-Za-z]?,?[ \t]+\p{Lu}\p{Ll}/u;
// A street without a house number before its town, "Baker Street, London": one to three capitalised words and a street
// type that is no word of product text; a leading word of the sentence (On Main Street, …) is not part of it
// ({@link unnumberedStreetRanges}).
const EN_STREET_NO_NUMBER = /(?<![\w-]|\d[ \t])(?:[A-Z][a-z]+[ \t]+){1,3}(?:Street|Road|Avenue|Boulevard|Terrace|Crescent|Mews)(?=,[ \t]*[A-Z][a-z])/g;
const NOT_A_STREET_NAME_START = new Set(['the', 'on', 'at', 'in', 'from', 'to', 'via', 'near', 'off', 'by', 'my', 'our', 'your', 'his', 'her', 'their', 'this', 'that', 'take', 'turn', 'along', 'and', 'or', 'of']);
// Words of product text that make a street-shaped match something else: "2 Google Drive", "Map 2 Network Drive"
// (a count before a product), "Step 4 Select Main Way" (a step), "Via Port 8080", "Via Windows 11" (a means).
const NOT_A_STREET_WORD = new Set([
  'google', 'network', 'shared', 'hard', 'flash', 'usb', 'external', 'local', 'team', 'cloud', 'backup', 'system', 'data', 'virtual', 'removable',
  'mapped', 'select', 'click', 'choose', 'open', 'press', 'tap', 'go', 'sign', 'log', 'add', 'remove', 'delete', 'enable', 'disable', 'save',
  'port', 'windows', 'android', 'version', 'release', 'update', 'step', 'page', 'chapter', 'section', 'option', 'level', 'plan', 'server', 'settings',
]);
// French streets, number first: 12 rue de la Paix, 8 avenue des Champs-Élysées, 3 place de la Concorde. Place,
// route, cours and square are English words too, so they need an article before the name.
const FR_ARTICLE = "(?:de la|de l['’]|du|des|de|d['’]|la|le|les|l['’])";
const FR_NAME = `\\p{Lu}[\\p{L}'’-]*(?:[ \\t]+(?:${FR_ARTICLE}[ \\t]*)?\\p{Lu}[\\p{L}'’-]*){0,4}`;
const FR_STREET = new RegExp(
  `(?<![\\p{L}\\p{N}.,])\\d{1,4}(?:[ \\t]?(?:bis|ter|[A-Za-z])(?!\\p{L}))?,?[ \\t]+(?:(?:[Rr]ue|[Aa]venue|[Aa]v\\.|[Bb]oulevard|[Bb]d|[Aa]llée|[Ii]mpasse|[Cc]hemin|[Qq]uai)[ \\t]+(?:${FR_ARTICLE}[ \\t]*)?|(?:[Pp]lace|[Rr]oute|[Cc]ours|[Ss]quare|[Pp]assage)[ \\t]+${FR_ARTICLE}[ \\t]*)${FR_NAME}`,
  'gu',
);
// Name first, number after: Musterstraße 12, Hauptstr. 5, Karl-Marx-Allee 90, Berliner Straße 7a, Kalverstraat 92,
// Drottninggatan 3. The name before the suffix has three letters or more, so that Spring 2024 or String 3 stay, and
// at most 48: unbounded, every word of a long run of words joined by dashes (ABCDE-ABCDE-…) read to the run's end.
const STREET_SUFFIX = '(?:straße|strasse|str\\.|weg|gasse|platz|allee|damm|ufer|chaussee|straat|laan|gracht|plein|singel|gatan|vägen|vej)';
const STREET_WORD = '(?:Straße|Strasse|Str\\.|Weg|Gasse|Platz|Allee|Ring|Damm|Ufer|Chaussee)';
const HOUSE_NUMBER = '[ \\t]?\\d{1,4}(?![\\p{N}]|[.,]\\d)(?:[ \\t]?[a-z](?!\\p{L}))?(?:[ \\t]?[-–/][ \\t]?\\d{1,4}(?!\\p{N}))?';
const NAME_FIRST_STREET = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:\\p{Lu}[\\p{L}-]{2,48}?(?:${STREET_SUFFIX}|-${STREET_WORD})|\\p{Lu}\\p{Ll}{2,}er[ -]${STREET_WORD})${HOUSE_NUMBER}`,
  'gu',
);
// Street type first (Italian, Spanish, Portuguese, Catalan): Via Roma 10, Calle Mayor 5, Avenida da Liberdade 110,
// C/ de Balmes 12. Type words are capitalised, as in an address, so "via" in English text stays; name words have a
// lower-case second letter, so "Via SSH 22" does too.
const ROMANCE_ARTICLE = "(?:de la|de las|de los|del|della|delle|dello|dei|degli|di|de|da|do|das|dos|d['’])";
const ROMANCE_STREET = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:Via|Viale|Piazza|Piazzale|Corso|Largo|Vicolo|Calle|C/|Avenida|Avda\\.|Plaza|Paseo|Carrer|Camino|Ronda|Rua|Rúa|Travessa|Praça)[ \\t]+(?:${ROMANCE_ARTICLE}[ \\t]*)?\\p{Lu}\\p{Ll}[\\p{L}'’.-]*(?:[ \\t]+(?:${ROMANCE_ARTICLE}[ \\t]*)?\\p{Lu}\\p{Ll}[\\p{L}'’.-]*){0,3},?[ \\t]+(?:n(?:º|°|\\.º|o\\.)[ \\t]*)?${HOUSE_NUMBER}`,
  'gu',
);

// A Japanese address written in Latin letters, block number first as foreigners and forms write it: "1-2-3 Shibuya,
// Shibuya-ku, Tokyo 150-0002", "4-5-6 Jingumae, Shibuya-ku". The ward or city with its suffix (-ku, -shi, -cho,
// -machi, -mura, -gun) marks it; the prefecture and the postcode after it are taken along.
const ROMAJI_ADDRESS =
  /(?<![\p{L}\p{N}-])\d{1,4}(?:-\d{1,4}){1,3}(?:,?[ \t]+\p{Lu}\p{Ll}+(?:-(?:cho|machi|chome))?){0,2},?[ \t]+\p{Lu}\p{Ll}+-(?:ku|shi|cho|machi|mura|gun)\b(?:,?[ \t]+\p{Lu}\p{Ll}+(?:-(?:to|fu|ken|do))?)?(?:,?[ \t]+\d{3}-\d{4}(?![\p{L}\p{N}-]))?/gu;

const POSTAL_MARK = new RegExp(`〒[ 　]?${D}{3}${DASH}?${D}{4}(?![0-9０-９])`, 'g');
// UK postcodes by the Royal Mail's format (SW1A 1AA, M1 1AE, EC1A 1BB), capitals and the space as written on mail.
const UK_POSTCODE_CORE = '(?:GIR 0AA|[A-PR-UWYZ](?:\\d{1,2}|[A-HK-Y]\\d{1,2}|\\d[A-HJKPSTUW]|[A-HK-Y]\\d[ABEHMNPRV-Y]) \\d[ABD-HJLNP-UW-Z]{2})';
const UK_POSTCODE = new RegExp(`(?<![\\w-])${UK_POSTCODE_CORE}(?![\\w-])`, 'g');
// The same in small letters, as people type them in mail (sw1a 1aa); an inward code that reads as an ordinal ("a4
// 2nd") is not taken.
const UK_POSTCODE_SMALL = new RegExp(`(?<![\\w-])${UK_POSTCODE_CORE.toLowerCase()}(?![\\w-])`, 'g');
const ORDINAL_INWARD = / \d(?:st|nd|rd|th)$/;
// "M2 8GB" is a chip and its memory: an inward code that reads as a size is not taken without a label.
const SIZE_INWARD = / \d[GTP]B$/;
// Canadian postal codes (K1A 0B1): letters D, F, I, O, Q, U never occur.
const CA_POSTCODE_CORE = '[ABCEGHJ-NPRSTVXY]\\d[ABCEGHJ-NPRSTV-Z] \\d[ABCEGHJ-NPRSTV-Z]\\d';
const CA_POSTCODE = new RegExp(`(?<![\\w-])${CA_POSTCODE_CORE}(?![\\w-])`, 'g');
// Labels match with a capital or small first letter and in capitals, not case-insensitively: after "PLZ: 1010 in"
// the small letters of "in" must not be read as the letters of a Dutch postcode.
const POSTAL_LABEL_WORDS = ['postal code', 'postcode', 'post code', 'zip code', 'zip', 'PLZ', 'Postleitzahl', 'code postal', 'código postal'];
const POSTAL_LABEL = new RegExp(
  `(?<![A-Za-z])(?:郵便番号|${POSTAL_LABEL_WORDS.map(anyCapitalisation).join('|')})\\s*[:：]?\\s*(${D}{3}${DASH}?${D}{4}|\\d{5}(?:-\\d{4})?|${UK_POSTCODE_CORE}|${CA_POSTCODE_CORE}|[1-9]\\d{3}(?: ?[A-Z]{2})?)(?![0-9０-９A-Za-z])`,
  'gd',
);
// A continental postcode before its town (a capitalised word): 10115 Berlin, 75002 Paris, D-10115 Berlin, 1012 AB Amsterdam. Five digits
// before a capitalised word are as often a count ("10000 Users", "12345 Zeilen" on a line of their own), so the caller
// keeps only those that follow a street address or carry a country prefix (postalCodeBeforeTown).
const POSTAL_TOWN = /(?<![\p{L}\p{N}.,:/-])((?:(?:D|DE|F|FR|I|IT|E|ES|A|AT|CH|B|BE|NL|L|LU|P|PT)-(?=\d))?(?:\d{5}|[1-9]\d{3} ?[A-Z]{2}|(?<=-)\d{4}))[ \t]+\p{Lu}\p{Ll}/dgu;
// What follows four digits in product text (1024 MB, 1080 HD, 2024 EU), and the letters Dutch postcodes never use.
const NOT_A_DUTCH_POSTCODE = new Set([
  'KB', 'MB', 'GB', 'TB', 'PB', 'HD', 'PX', 'PT', 'MS', 'HZ', 'AD', 'BC', 'CE', 'AM', 'PM', 'EU', 'US', 'UK', 'KW', 'CW', 'IT', 'PC', 'OS', 'UI', 'AI',
  'DB', 'VM', 'IP', 'ID', 'QA', 'HR', 'NR', 'SA', 'SD', 'SS',
]);
// A bare 123-4567 is a postal code only in Japanese text: elsewhere it is as likely a part number.
const POSTAL_BARE_JA = new RegExp(`(?<![\\w.#/０-９Ａ-Ｚａ-ｚ]|${DASH})${D}{3}${DASH}${D}{4}(?![\\w.０-９Ａ-Ｚａ-ｚ]|${DASH})`, 'g');
const ZIP_PLUS_FOUR = /(?<![\w-])\d{5}-\d{4}(?![\w-])/g;
const US_STATE_ZIP = /(?<=,\s?)[A-Z]{2}\s+(\d{5})(?![\w-])/dg;

// Phones. Japanese numbers start with 0 and have 10 or 11 digits (checked after matching); +81 and other country
// codes are international; (555) 123-4567 is North American.
const JA_PHONE = new RegExp(`(?<![\\w.\\-－/＃#０-９])(?:[(（][0０]${D}{1,4}[)）]${SEP}?${D}{1,4}${SEP}?${D}{3,4}(?![\\w.\\-－]*${D})|[0０]${D}{0,4}(?:${SEP}?[(（]${D}{1,4}[)）]${SEP}?|${SEP}?${D}{1,4}${SEP}?)${D}{3,4}(?![\\w.\\-－]*${D}))`, 'g');
// The area code may stand in full-width brackets (+81 （3） 1234-5678). A match longer than a number can be (15 digits)
// runs on into the next number and is cut ({@link intlPhoneRanges}).
// An area code in brackets right after a letter (abc(03) 1234 5678), which JA_PHONE's lookbehind leaves: the bracket
// marks where the number starts. Ten or eleven digits, checked after matching.
const BRACKETED_AFTER_LETTER = new RegExp(`(?<=\\p{L})[(（][0０]${D}{1,4}[)）]${SEP}?${D}{1,4}${SEP}?${D}{3,4}(?![0-9０-９])`, 'gu');
const INTL_PHONE = new RegExp(`(?<![\\w+])[+＋]${D}{1,3}(?:${SEP}?[(（]?${D}{1,4}[)）]?){2,5}(?![0-9０-９])`, 'g');
// The trunk prefix is written too: 1-503-203-1539, 1 (503) 203-1539.
const NA_PHONE = /(?<![\w.-])(?:1[-. ])?(?:\(\d{3}\)\s?|\d{3}[-.\s])\d{3}[-.\s]\d{4}(?![\w-])/g;
// French numbers are written in five pairs (01 23 45 67 89, 06.12.34.56.78); the same separator throughout, and no
// more pairs on either side (a hex dump, "<Buffer 02 00 00 00 00 05>", is a longer run of them).
const FR_PHONE = /(?<![\w.+-]|\d[ .-])0[1-9]([ .-])\d{2}(?:\1\d{2}){3}(?![\w-]|[ .-]\d)/g;
// After a label any national number counts (Tel.: 030 123456, Mobil: 0171 1234567, Telefon 030/123456); its length
// is checked after matching. No dots: "Mobile 10.0.19045" is a version; brackets only round digits, so that the
// office hours in "030 123456 (10:00–18:00)" stay.
const LABELLED_PHONE = /\b(?:Tel|Tél|Phone|Telephone|Téléphone|Telefon|Telefono|Teléfono|Mobile|Mobil|Handy|Cell|Portable|Fax)\.?(?:[ \t]*(?:no\.?|number|nr\.?))?[ \t]*[:.]?[ \t]*(\+?(?:\(\d{1,5}\)[ \t]?)?\d(?:[\d ]|(?<=\d)[-/](?=\d)|[ \t]?\(\d{1,5}\)[ \t]?){4,18}\d)(?![\w-]|\.\d)/dgi;

// Phone numbers in kanji numerals, as an input method may convert them (〇三－一二三四－五六七八, 〇九〇一二三四五六七八),
// mixed with other digits or not: a leading 〇 or 0, then groups with dashes, spaces or an area code in brackets
// between (〇三(一二三四)五六七八), or ten or eleven
// digits in a row (checked after matching, {@link kanjiPhoneRanges}). Not inside a kanji number: 二十三 and 一二三
// have no leading zero, and a zero after another numeral (一〇三) is that number's.
const KANJI_DIGITS = '〇一二三四五六七八九';
const PHONE_DIGIT = `[0-9０-９${KANJI_DIGITS}]`;
const KANJI_PHONE = new RegExp(
  `(?<![0-9０-９${KANJI_DIGITS}十百千万億])(?:[(（][0０〇]${PHONE_DIGIT}{1,4}[)）]${SEP}?${PHONE_DIGIT}{1,4}${SEP}?${PHONE_DIGIT}{3,4}|[0０〇](?:${PHONE_DIGIT}{0,4}[(（]${PHONE_DIGIT}{1,4}[)）]${SEP}?${PHONE_DIGIT}{3,4}|${PHONE_DIGIT}{1,4}${SEP}${PHONE_DIGIT}{1,4}${SEP}${PHONE_DIGIT}{3,4}|${PHONE_DIGIT}{9,10}))(?![0-9０-９${KANJI_DIGITS}十百千万億])`,
  'gu',
);

// An extension after 内線 (TEL 03-1234-5678 内線1234, 内線：4567) is the rest of someone's number: with the main number
// it reaches one person's desk. Two digits or more, and no unit after (内線 3 番 is a menu choice).
const JA_EXTENSION = new RegExp(`内線(?:[ 　]*番号)?[ 　]*(?:[:：は][ 　]*)?(${D}{2,6})(?![0-9０-９]|${UNIT_AFTER}|番)`, 'gdu');

// Honorifics: the name before 様/さん/殿, after Dear/Hi/Mr., or before -san.
// 様式・様子・様々 and 氏名 are words, not honorifics.
// A katakana name is written with ・ or ＝ between its parts (ジョン・スミス様, ジャン＝ポール様), and a reading in brackets
// may stand between the name and the honorific (山田太郎（ヤマダタロウ）様): both go with the name. 先生 follows the name
// of a teacher or a doctor as 様 does (山田先生); a job title before the honorific is not part of the name
// ({@link honorificNameRange}).
const KATAKANA_JOINED = '(?:[・＝][\\p{Script=Katakana}ー]{1,8}){1,2}';
const NAME_READING = '(?:[ \\t　]*[（(][\\p{Script=Katakana}\\p{Script=Hiragana}ー・ 　]{1,30}[）)])?';
const JA_HONORIFIC = new RegExp(
  `(${KANJI_KANA}{1,8}(?:[ 　]${KANJI_KANA}{1,8}|${KATAKANA_JOINED})?${NAME_READING})[ 　]?(?:様(?![式子々相態])|さま|さん|殿(?!下)|氏(?![名族])|先生)`,
  'gdu',
);
// 先生 is also the word for teachers and doctors, written after what they teach or where (塾先生, 英会話スクール先生)
// and before a word for them as a group or an audience (小学校先生向けプラン, 先生方, 先生用アカウント): the word before it
// then names no one ({@link isTeachersAsWord}).
const TEACHERS_AFTER = /^[ 　]?先生(?:向け|方|用|専用|全員|同士|たち|達|各位)/u;
const INSTITUTION_BEFORE_TEACHER = /(?:学校|校|塾|園|大学|教室|スクール|クリニック|病院|医院|機関|協会)$/u;
// Titles written between a name and its honorific (山田部長様) or alone before one (社長様, 院長先生): the title stays.
// Longest first, so that 代表取締役 is taken whole.
const JOB_TITLES = [
  '代表取締役', '取締役', '副社長', '社長', '会長', '専務', '常務', '部長', '次長', '課長', '係長', '主任', '店長', '支店長', '所長', '室長', '局長',
  '工場長', '院長', '校長', '園長', '学長', '教頭', '理事長', '議長', '委員長', '班長', '担任', '主治医', '医師', '先生', '准教授', '教授', '講師',
  '弁護士', '税理士', '司法書士', '代表', '支社長', '本部長',
  // Titles of boards, associations and their stand-ins (代表理事, 常務執行役員, 代表幹事, 会長代行), and 夫人 as a title's
  // wife is addressed (会長夫人様): alone or after another title they name no one (review s50 B1).
  '理事', '執行役員', '幹事', '代行', '夫人', '副会長', '監事', '顧問', '相談役', '監査役', '頭取', '支配人',
].sort((a, b) => b.length - a.length);
// Common surnames that end in the first letter of a longer title whose rest is a title too (山本 before 部長 reads
// 山本部長, not 山 and 本部長: review s50). Only 本 (本部長 → 部長) has such surnames; 副, 支 and 准 (副社長, 支店長, 准教授)
// end none. After another kanji the two letters may end a place (関西本部長 is the Kansai head office): see {@link lastTitle}.
const SURNAMES_BEFORE_SHORTER_TITLE = new Set([
  '山本', '松本', '橋本', '岡本', '坂本', '宮本', '森本', '杉本', '藤本', '野本', '河本', '川本', '塚本', '榎本', '秋本', '吉本', '福本', '石本',
  '竹本', '中本', '岸本', '根本', '柴本', '金本', '平本', '沖本', '浜本', '濱本', '国本', '國本', '谷本', '寺本', '島本', '堀本', '辻本', '滝本',
  '梅本', '倉本', '奥本', '湯本', '菅本', '木本', '植本', '栗本', '市本', '水本', '今本', '岩本', '菊本', '荒本', '道本', '西本',
]);
// Services done on someone's behalf (運転代行, 家事代行, 決済代行): before 代行 they name a service, not the person a
// stand-in acts for (部長代行, 山田代行), and the word before 様 is a business (運転代行様: review s50).
const SERVICES_BEFORE_STAND_IN = [
  '運転', '家事', '決済', '販売', '購入', '申請', '手続', '登録', '輸入', '輸出', '運営', '配送', '発送', '収納', '事務', '業務', '送迎', '清掃', '予約',
  '記帳', '振込', '回収', '請求', '通関', '集金', '買物', '出品', '入札', '営業', '採用', '経理', '開発', '広告', '保管', '管理', '代筆', '投函',
];
// Jobs and trades addressed with an honorific (配達員さん, 運転手様, 配送業者様, ドライバーさん): the word before it is
// no one's name. 員 ends no surname (警備員, 係員, 添乗員); 手 does (井手), so only the words for a driver are listed.
const WORKER_ENDINGS = ['員', '業者', '運転手', '運転士', 'ドライバー', '配達', ...SERVICES_BEFORE_STAND_IN.map((service) => `${service}代行`)];
// Whole words for a job, read like a title after a name (田中配達員さん, 佐藤ドライバー様, 山田担当者様): the job alone
// stays, a name glued before it goes ({@link nameBeforeJob}); a trade or a service before it (郵便配達員さん, 営業担当者様)
// is no name. Longest first.
const JOB_WORDS = [
  '配達員', '配送員', '運転手', '運転士', 'ドライバー', '担当者', '警備員', '作業員', '係員', '添乗員', '整備士', '技術者', '技術員', '販売員', '店員', '乗務員',
  '配達', '担当',
].sort((a, b) => b.length - a.length);
// Words of work or trade before a job word (郵便配達員, 現場担当者, 宅配ドライバー): no one's name.
const WORK_BEFORE_JOB = new Set([
  '郵便', '宅配', '新聞', '牛乳', '配送', '運送', '宅急便', '引越', '引越し', '引っ越し', 'タクシー', 'トラック', 'バス', '電車', '代行', '警備', '清掃', '工事',
  '修理', '点検', '検査', '受付', '現場', '施工', '設置', '出荷', '在庫', '発注', '納品', '契約', '請求', '採用', '窓口', '専任', '専属', '当日', '本日', '地域',
  '地区', '担当', '新任', '前任', '後任', '新人', '交代', '夜間', '日勤', '夜勤', '臨時', '派遣', '委託', '外部', '社内', '店舗', '売場', '売り場', '案件', '顧客',
  '法人', '個人', '取引', '各', '全', '新', '旧', '元', '現', '女性', '男性', '若手', '熟練', '製品', '商品', '弊社', '当社', '御社', '貴社', '当店', '弊店',
  '本件', '各店', '各社', '会計', '運行', '配車', '集荷', '返品', '交換', '返金', '決済', '支払', '支払い',
]);
// The head of a branch, an office or a plant, titled by its place (大阪支店長, 東京支社長, 名古屋工場長): the letters
// before the title name the branch when they are a place ({@link PLACE_OF_BRANCH}), a person otherwise (山田支店長).
const BRANCH_HEAD_TITLES = new Set(['支店長', '支社長', '営業所長', '事業所長', '工場長', '本部長']);
// Places that name a branch: a prefecture, a large city or a region, with its ending and a part of it (東京中央, 大阪北)
// or not. Some are surnames too (福島, 山口, 千葉): before a branch head's title they are read as the place.
const PLACE_OF_BRANCH = new RegExp(
  '^(?:青森|岩手|宮城|秋田|山形|福島|茨城|栃木|群馬|埼玉|千葉|神奈川|新潟|富山|石川|福井|山梨|長野|岐阜|静岡|愛知|三重|滋賀|兵庫|奈良|和歌山|鳥取|島根|' +
    '岡山|広島|山口|徳島|香川|愛媛|高知|福岡|佐賀|長崎|熊本|大分|宮崎|鹿児島|沖縄|北海道|東京|大阪|京都|札幌|仙台|さいたま|横浜|川崎|相模原|名古屋|浜松|堺|神戸|北九州|' +
    '新宿|渋谷|池袋|品川|銀座|丸の内|梅田|難波|天神|博多|関東|関西|東北|北陸|中部|東海|近畿|中国|四国|九州|首都圏|東日本|西日本)' +
    '(?:[都道府県市区])?(?:[東西南北]|中央|駅前)?$',
  'u',
);
// The places of PLACE_OF_BRANCH that are no surnames: one opening the letters between a company and a title names the
// branch, and the person follows it (株式会社サンプル商事東京山田部長様: 山田). A place that is also a surname (山口, 石川,
// 福島) may be the person's (山口太郎部長), and stays with the name.
const PLACE_BEFORE_NAME =
  /^(?:北海道|東京|大阪|京都|神奈川|埼玉|茨城|群馬|栃木|岐阜|愛知|和歌山|愛媛|鹿児島|沖縄|札幌|相模原|名古屋|北九州|新宿|池袋|銀座|丸の内|関東|関西|東北|北陸|近畿|四国|九州|首都圏|東日本|西日本)/u;
// The last word of a company's name that can stand before a person's in the same run of letters
// (サンプル商事山田部長様, 旭化成山田部長様, 東京海上日動火災保険山田部長様), and the legal forms: see {@link companyNameEnd}.
// No word of them begins or ends a common surname, so one inside a run is no part of the name after it.
// A run that ends in one names a company before 様 (みずほ銀行様, 三井物産様, 城南信金様: review s50), and a word written
// apart that ends in one is the company before the person's name (第一生命 佐藤様).
const COMPANY_WORDS = [
  '商事', '商会', '商店', '物産', '産業', '工業', '興業', '建設', '電機', '電気', '製作所', '工務店', '不動産', '技研', '製薬', '化学', '化成', '銀行',
  '証券', '證券', '信金', '信用金庫', '信用組合', '保険', '生命', '信託', '運輸', '運送', '鉄道', '電鉄', '航空', '海運', '郵船', '汽船', '商船', '倉庫',
  '自動車', '電力', 'ガス', '石油', '通信', '電工', '電子', '重工', '製鉄', '製紙', '紡績', '金属', '印刷', '食品', '精機', '通商', 'ホールディングス',
];
const COMPANY_NAME_END = new RegExp(`${COMPANY_WORDS.join('|')}|株式会社|有限会社|合同会社|合資会社|合名会社|[㈱㈲]`, 'gu');
// Titles that open a run of letters before a name (代表取締役山田太郎様): the name is what follows them.
// 専務執行役員山田太郎様 is read title by title, or the name after the titles would exceed what a name may hold.
const LEADING_TITLES = ['代表取締役', '取締役', '副社長', '社長', '副会長', '会長', '専務', '常務', '代表', '執行役員', '理事長', '理事', '代行', '頭取', '顧問', '相談役', '監査役', '幹事', '監事', '支配人'];
// A department or a team, not a person: 営業部, サポート部, 第二課, 総務課, カスタマーセンター. Surnames end in 部 too (阿部,
// 服部), so 部 counts only after a word of business.
const DEPARTMENT_WORK =
  '(?:営業|総務|経理|人事|開発|技術|販売|業務|企画|広報|管理|製造|品質|システム|サポート|事業|カスタマー|サービス|法務|財務|購買|物流|設計|保守|第[一二三四五六七八九十\\d]+)';
// A department that belongs to the title after it (営業部長, 総務課長, 開発本部長): 田中営業部長 names 田中.
const DEPARTMENT_BEFORE_TITLE = new RegExp(`${DEPARTMENT_WORK}(?:本?部|課|室|係)?$`, 'u');
// A title that a department opens (営業部長): like a branch head's, a place before it names the office (大阪営業部長).
const DEPARTMENT_OPENING_TITLE = new RegExp(`^${DEPARTMENT_WORK}`, 'u');
const DEPARTMENT = new RegExp(
  `${DEPARTMENT_WORK}(?:本?部|課|室|係|グループ|チーム|センター)?$|(?:課|係|班|局|センター|窓口|チーム|グループ|デスク|事務局|本部|部門|支店|支社|本社|営業所|事業所)$`,
  'u',
);
// A department or a branch inside a run of letters, with the title of its head (営業部, 総務課, カスタマーセンター,
// 大阪支店, 営業部長): letters right after it name a person (株式会社サンプル商事営業部山田様), see
// {@link personAfterDepartment}. 部 and センター alone are no department here, as company names hold them (サンプル部品,
// サンプルセンター); 担当者 is no name.
const DEPARTMENT_IN_WORD = new RegExp(
  `(?:${DEPARTMENT_WORK}(?:本?部|課|室|係|グループ|チーム|センター|担当(?!者))|支店|支社|営業所|事業所|事務局|窓口)長?`,
  'gu',
);
// Words that end in 様/さん without naming anyone: 仕様, 同様, 模様, お客様, 皆さん, ご担当者様…
// A Latin name before 様/さん, as foreign customers are addressed in Japanese mail (Smith様, John Smithさん).
// Tried only from the start of a run of name letters, its lower-case head skipped: a name reaches the run's end, so
// where the run's first capital starts none, no later one does, and trying each rescanned the run (security review 15:
// 16,000 capitals in a mail, seconds).
const LATIN_HONORIFIC = /(?<![A-Za-z'’-])[a-z'’-]*([A-Z][A-Za-z'’-]+(?:[ 　][A-Z][A-Za-z'’-]+)?)[ 　]?(?:様(?![式子々相態])|さま|さん|殿(?!下))/dgu;
// The member of staff a reply names without an honorific, as one's own staff is named: 担当の佐藤よりご連絡いたします,
// サポート担当の山田です. One to four kanji, then a particle or です; 担当の者, 担当の部署 and 担当の方 are no names
// ({@link STAFF_WORDS}).
const STAFF_MENTION = /担当者?の[ 　]?([\p{Script=Han}々]{1,4})(?=より|から|が|は|です|でございます|と申します|にて|まで)/dgu;
// Nouns of the work itself after 担当の, not a person (業務担当の不足が恒常化し: review s48-r3b).
const STAFF_WORDS = new Set([
  '者', '方', '人', '部署', '部門', '営業', '技術', '技術者', '社員', '職員', '係員', '係', '業者', '会社', '店舗', '者様',
  '不足', '不在', '交代', '変更', '増員', '減員', '人員', '人数', '負担', '業務', '仕事', '範囲', '分野', '領域', '責任', '割当', '判断', '確認', '有無',
]);
// A self-introduction: 佐藤花子と申します, 山田と言います.
const SELF_INTRODUCTION = new RegExp(`(${KANJI_KANA}{1,8}(?:[ 　]${KANJI_KANA}{1,8})?)[ 　]?と(?:申し|言い|いい)ます`, 'gdu');
// 私の名前は山田太郎です: the first person makes the words after 名前は a name, not a rule of a field (名前は必須です).
const JA_MY_NAME = new RegExp(
  `(?:私|わたし|わたくし|僕|ぼく)の(?:名前|氏名)は[ 　]*(${KANJI_KANA}{1,8}(?:[ 　]${KANJI_KANA}{1,8})?|[A-Z][a-zA-Z'’-]+(?:[ 　][A-Z][a-zA-Z'’-]+){0,2})[ 　]*(?:です|と申します|といいます|と言います)`,
  'gdu',
);
// The same in Korean, as one mail of the corpus writes it: 제 이름은 Jamis입니다.
const KO_MY_NAME = /제[ \t]*이름은[ \t]*(\p{L}[\p{L}\p{M}'’.-]{0,19}?(?:[ \t]\p{L}[\p{L}\p{M}'’.-]{0,19}?)?)[ \t]*(?:입니다|이에요|예요|이라고 합니다|라고 합니다)/dgu;
const NOT_A_NAME = new Set([
  '多', '一', '王', '殿', '文', '有', '左', '両', '貴', 'お客', '皆', '各位', '担当', '担当者', 'ご担当', 'ご担当者',
  '利用者', 'ご利用者', '会員', 'ユーザー', '購入者', '契約者', '管理者', '関係者', '奥', '神', '父', '母', '兄', '姉', '弟', '妹', '息子', '娘', '先方',
  '相手', '当', '各', '企業', '法人', '取引先', '店', '店舗', '御社', '貴社', 'お子', '子', '患者', '社員', '同社', 'メンバー', 'ゲスト', 'オーナー',
  'スタッフ', 'サポート', 'サポート担当', 'カスタマーサポート', '窓口', '何', 'センター', '事務局', 'チーム', '諸',
  '保護者', '申込者', '申請者', '注文者', '依頼者', '受取人', '代表者', '責任者', '入居者', '加入者', '被保険者',
  // Who handles a request when it is not a person: a desk, a role, a party (担当：受付, 担当：代理店, 担当：弊社).
  '受付', '事務', '庶務', '秘書', '労務', '管理人', '代理店', '販売店', '当社', '弊社', '現地', '自動応答',
]);
// Endings of a word before 様 that make a word with it, not a name: 仕様 (新仕様), お客様, 同様 (以下同様, 管理者同様,
// PC版同様), 模様, 異様, 多種多様. Not 多 or 一 alone: 本多様 and 健一様 are people.
const NOT_A_NAME_ENDINGS = ['仕', '客', '同', '模', '異', '多種多'];
// What follows a name in kanji without being part of it: honorifics, 宛, 名義, roles, and words that open a
// compound (佐藤商事). A given name is taken only up to one of these.
const AFTER_A_NAME = [
  '様', '殿', '氏', '宛', '君', '家', '側', '名', '本人', '個人', '自身', '部長', '課長', '係長', '社長', '主任', '先生', '夫妻', '契約', '請求', '口座', '会員',
  '対応', '確認', '担当', '経由', '作成', '送信', '返信', '連絡', '所属', '以外', '他', '用', '向', '専用', '各位', '一同', '代理', '商事', '株式',
];

// The words of a name stay on one line: the next line's first word ("Mobile:") is not the surname.
const EN_NAME = "[A-Z][a-zA-Z'’\\-]+(?:[ \\t]+[A-Z][a-zA-Z'’\\-]+){0,2}";
// A dash may stand after the name as a comma does (Hello Priya — your replacement…: security review 19). A comma may
// stand after the greeting (Hi, Priya.), and two people may be greeted (Dear Priya and Arjun,): group 2 is the second
// name (bug review R1).
const EN_GREETING = new RegExp(`\\b(?:Dear|Hi|Hello|Hey|Good (?:morning|afternoon|evening))(?:\\s+|[ \\t]{0,3},[ \\t]{1,3})(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof)\\.?\\s+)?(${EN_NAME})(?:[ \\t]{1,3}and[ \\t]{1,3}(${EN_NAME}))?(?=\\s*[,!.:\\n—–]|\\s*$|[ \\t]{1,3}-[ \\t])`, 'gd');
// The dot may stand against the name (Mrs.Smith, Rev.John).
const EN_TITLE = new RegExp(`\\b(?:Mr|Mrs|Ms|Miss|Dr|Prof|Rev)(?:\\.[ \\t]*|\\s+)(${EN_NAME})`, 'gd');
const SAN_SUFFIX = /\b([A-Z][a-z]+)-(?:san|sama|sensei)\b/dg;
// A thanks or a sign-off before a name: "Thanks John!", "Thank you, Jane Doe.", "Regards, John", and "Regards," with
// the name alone on the next line. The name must end the clause, and is no name when it is a word of the phrase
// ("Thanks Again!", "Thank you All"), a team or a role ({@link isPersonName}).
const EN_THANKS = new RegExp(
  `\\b(?:Thanks|Thank you|Many thanks|Cheers|(?:(?:Best|Kind|Warm)[ \\t]+)?[Rr]egards)(?:[ \\t]*,[ \\t]*|[ \\t]+)(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof)\\.?[ \\t]+)?(${EN_NAME})(?=[ \\t]*(?:[,!.:;\\r\\n]|$))|\\b(?:Thanks|Thank you|Many thanks|Cheers|(?:(?:Best|Kind|Warm)[ \\t]+)?[Rr]egards)[ \\t]*[,.!]?[ \\t]*\\r?\\n[ \\t]*(${EN_NAME})(?=[ \\t]*(?:\\r?\\n|$))`,
  'gd',
);
// The same greetings and thanks with a name in small letters, as people type in a hurry: "Hi john smith,", "thanks
// anna!". Small words after a greeting are as often words of the text ("Thanks for your help", "Hi there!", "thanks a
// lot!"), so the greeting opens a line or a sentence, the name is one or two words right before a comma or "!", and
// neither word is in {@link NOT_A_SMALL_NAME}.
const EN_GREETING_SMALL = /(?<![\p{L}\p{N},;:'’-][ \t]{0,4})(?:[Dd]ear|[Hh]i|[Hh]ello|[Hh]ey|[Tt]hanks|[Tt]hank you)[ \t]+(\p{Ll}[\p{Ll}'’-]+(?:[ \t]+\p{Ll}[\p{Ll}'’-]+)?)(?=[ \t]*[,!])/dgu;
const NOT_A_SMALL_NAME = new Set([
  'for', 'again', 'so', 'much', 'very', 'a', 'all', 'both', 'guys', 'folks', 'everyone', 'everybody', 'there', 'in', 'advance', 'to', 'you', 'anyway',
  'heaps', 'mate', 'buddy', 'man', 'bro', 'dude', 'kindly', 'lot', 'ton', 'tons', 'though', 'sir', 'madam', 'ma’am', "ma'am", 'people', 'and', 'but',
  'or', 'as', 'always', 'back', 'from', 'once', 'anyways', 'y’all', "y'all", 'ya', 'yall', 'loads', 'alot', 'indeed', 'too', 'also',
  'everything', 'anything', 'nothing', 'that', 'this', 'it', 'how', 'what', 'there’s', "there's", 'well', 'now', 'then', 'no', 'yes', 'ok', 'okay',
]);
// A French, German, Spanish, Italian or Dutch title before a surname (Mme Dupont, M. Martin, Herr Müller, Frau Dr.
// Schmidt, Sra. García): a capitalised word, and a second one only where it ends the clause, since German capitalises
// its nouns ("Herr Müller Ihre Bestellung" keeps "Ihre"). M. is also an initial or a list item ("Step 2. M. Click
// Save"), so after it one word that ends the clause counts (Merci M. Martin.). Group 1 or 2 is the name.
const EU_TITLE = /(?<![\p{L}\p{N}])(?:(?:Mme|Mlle|Madame|Mademoiselle|Monsieur|Herrn?|Frau|Señora|Señor|Sra\.|Sr\.|Signora|Signor|Sig\.ra|Sig\.|Dhr\.|Mevr\.)[ \t]+(?:(?:Dr|Prof)\.[ \t]*)?(\p{Lu}[\p{L}'’-]+(?:[ \t]+\p{Lu}[\p{L}'’-]+(?=[ \t]*(?:[,.!:;]|\r?\n|$)))?)|M\.[ \t]+(\p{Lu}[\p{L}'’-]+)(?=[ \t]*(?:[,.!:;]|\r?\n|$)))/dgu;
// A title without the name after it (Frau Dr. [name], as a scrub leaves it) is no surname either.
const NOT_A_SURNAME = new Set(['monsieur', 'madame', 'mademoiselle', 'messieurs', 'mesdames', 'herr', 'frau', 'damen', 'herren', 'le', 'la', 'les', 'der', 'die', 'das', 'dr', 'prof']);
// A Spanish, French, German, Italian, Portuguese or Dutch greeting before a given name (Hola María José, Bonjour
// Jean-Pierre, Hallo Jürgen, Ciao Marco, and with a comma: Hallo, Jürgen!): one to three capitalised words right before
// a comma, "!", ":", a full stop, a dash or the line's end. A title after the greeting is EU_TITLE's (Bonjour Madame Dupont), and the words of
// {@link NOT_A_GREETED_NAME} (Hallo Team, Liebe Grüße) are no one's name (security review 19).
const EU_GREETING = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:Hola|Buenos[ \\t]días|Buenas(?:[ \\t](?:tardes|noches))?|Estimad[oa]|Querid[oa]|Bonjour|Bonsoir|Salut|Coucou|Cher|Chère|Hallo|Guten[ \\t](?:Tag|Morgen|Abend)|Liebe[rs]?|Moin|Servus|Ciao|Salve|Buongiorno|Buonasera|Gentile|Car[oa]|Olá|Oi|Prezad[oa]|Bom[ \\t]dia|Boa[ \\t]tarde|Hoi|Beste|Goedemorgen|Goedemiddag)(?:[ \\t]{1,3}|[ \\t]{0,3},[ \\t]{1,3})(\\p{Lu}[\\p{L}\\p{M}'’-]{1,30}(?:[ \\t]\\p{Lu}[\\p{L}\\p{M}'’-]{1,30}){0,2})(?=[ \\t]{0,3}(?:[,!:;]|\\.(?![\\p{L}\\p{N}])|[—–](?!\\p{L})|\\r?\\n|$))`,
  'gdu',
);
const NOT_A_GREETED_NAME = new Set([
  'madame', 'monsieur', 'mademoiselle', 'messieurs', 'mesdames', 'mme', 'mlle', 'dhr', 'mevr', 'herr', 'herrn', 'frau', 'señor', 'señora', 'señorita', 'signore', 'signor', 'signora',
  'signorina', 'senhor', 'senhora', 'meneer', 'mevrouw', 'heer', 'damen', 'herren', 'team', 'kunde', 'kundin', 'kunden', 'client', 'cliente', 'clienta',
  'clientes', 'clients', 'klant', 'support', 'equipo', 'équipe', 'tutti', 'todos', 'todas', 'tous', 'alle', 'zusammen', 'allerseits', 'leute', 'amigo',
  'amiga', 'ami', 'amie', 'freund', 'collega', 'collègue', 'kollege', 'kollegin', 'doctor', 'doctora', 'docteur', 'dottore', 'dottoressa', 'profesor',
  'professeur', 'professore', 'dr', 'prof', 'sr', 'sra', 'grüße', 'grüsse', 'gruß', 'gruss', 'moin', 'welt', 'monde', 'mundo', 'mondo', 'iedereen',
  'service', 'kundenservice', 'kundendienst', 'helpdesk', 'servicedesk', 'vertrieb', 'verkauf', 'buchhaltung', 'abteilung', 'gracias', 'merci', 'danke',
  'grazie', 'obrigado', 'obrigada', 'bedankt',
]);
// The endings of a team's or a department's word written as one (Supportteam, Serviceabteilung): no one's name.
const TEAM_WORD_ENDING = /(?:team|service|support|abteilung|dienst)$/;
// A reply that opens with the customer's first name and a comma (Priya, your replacement ships today): one capitalised
// word at the very start of the text, before the line's end or a word that turns to the reader (you, we, thanks,
// please, votre, su, danke: {@link OPENING_ADDRESS_WORD}). A product, a country or a plan opens an answer the same way
// before any other word (Slack, email and phone…; Zoom, not Teams…: bug review R1). "the" counts only where its clause
// ends with no comma or "and"/"or" in it (Priya, the replacement ships today), since a list or an apposition follows a
// thing (Japan, the US and the EU…; Premium, the paid plan, includes…). The words a sentence opens with (Yes, Thanks,
// Unfortunately, Hi) are in {@link NOT_AN_OPENING_NAME} or end like an adverb ({@link ADVERB_ENDING}).
const OPENING_ADDRESS_WORD =
  "(?:(?:you(?:r|rs)?|we|I)(?:['’](?:re|ll|ve|d|m))?|us|our|ours|thanks?|please|sorry|here|just|unfortunately|good|glad|apologies|let|vous|votre|vos|nous|merci|je|j['’]ai|désolée?|malheureusement|voici|su|sus|usted|gracias|hemos|lamentablemente|aquí|du|dein|deine|danke|wir|ich|leider|hier|bitte|grazie|obrigad[oa])(?![\\p{L}'’])";
const NAME_OPENING_REPLY = new RegExp(
  `^[ \\t]{0,8}(\\p{Lu}\\p{Ll}{1,20})(?=,(?:[ \\t]{1,3}(?:${OPENING_ADDRESS_WORD}|the[ \\t](?![^.!?\\n]{0,200}(?:,|[ \\t](?:and|or)[ \\t])))|[ \\t]{0,3}\\r?\\n))`,
  'dgu',
);
const ADVERB_ENDING = /(?:ally|ently|antly|ately|ously|ively|fully|ingly|edly|ibly|ably)$/;
const NOT_AN_OPENING_NAME = new Set([
  'yes', 'yeah', 'yep', 'no', 'nope', 'ok', 'okay', 'sure', 'well', 'thanks', 'thank', 'hi', 'hello', 'hey', 'dear', 'sorry', 'apologies', 'please',
  'however', 'also', 'first', 'second', 'third', 'then', 'next', 'now', 'so', 'again', 'meanwhile', 'otherwise', 'today', 'yesterday', 'tomorrow',
  'tonight', 'certainly', 'absolutely', 'indeed', 'understood', 'noted', 'done', 'fixed', 'good', 'great', 'perfect', 'right', 'alright', 'oh', 'ah',
  'hmm', 'welcome', 'greetings', 'regards', 'cheers', 'congratulations', 'note', 'important', 'update', 'sadly', 'luckily', 'finally', 'frankly',
  'honestly', 'instead', 'therefore', 'thus', 'hence', 'besides', 'moreover', 'furthermore', 'likewise', 'later', 'overall', 'anyway', 'still', 'plus',
  'nevertheless', 'nonetheless', 'afterwards', 'unfortunately', 'fortunately', 'once', 'here', 'there', 'again', 'all', 'everyone', 'team', 'folks',
  'friends', 'customer', 'sir', 'madam', 'morning', 'afternoon', 'evening', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday',
  'sunday', 'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'hola', 'gracias',
  'bonjour', 'merci', 'oui', 'non', 'hallo', 'danke', 'ja', 'nein', 'ciao', 'grazie', 'si', 'sí', 'olá', 'obrigado', 'obrigada', 'bedankt', 'nee', 'dag',
  'buongiorno', 'bonsoir', 'salut', 'servus', 'moin', 'hoi', 'voilà', 'bien', 'bueno', 'claro', 'genau', 'gut', 'certo', 'perfetto', 'parfait',
  'windows', 'android', 'linux', 'chrome', 'firefox', 'safari', 'outlook', 'gmail', 'excel', 'iphone', 'ipad', 'mac', 'macos', 'ios', 'wifi',
]);
// A Korean name before 고객님, 회원님, 님 or 씨 (김민수 고객님, 안녕하세요 김민수님): two to four syllables opening a word,
// and the standard spelling puts a space before 씨 and 님 (김민수 씨, 이지은 씨의: bug review R1). Spaced, 씨 or 님 is a
// word of its own, so only a particle may follow it (씨앗, 님이 오신다 are other words). The words of
// {@link NOT_A_KOREAN_NAME} take 님 themselves (고객님, 선생님, 부모님), and a word ending like a verb (고맙다, 감사해요) is
// no name either.
const KO_HONORIFIC =
  /(?<!\p{Script=Hangul})(\p{Script=Hangul}{2,4})(?:[ \t]?(?:고객|회원)님|님|씨|[ \t][님씨](?:의|께서?|에게|은|는|을|를|도|한테)?(?!\p{Script=Hangul}))/dgu;
const KOREAN_VERB_ENDING = /[다요까죠네]$/u;
const NOT_A_KOREAN_NAME = new Set([
  '고객', '회원', '선생', '사장', '부장', '과장', '차장', '팀장', '실장', '대리', '원장', '국장', '이사', '대표', '회장', '주인', '하느', '하나', '부모',
  '어머', '아버', '선배', '교수', '기사', '작가', '관리자', '담당자', '상담사', '매니저', '판매자', '구매자', '사용자', '이용자', '셀러', '사모', '장모',
  '할머', '할아버', '아드', '아저', '아가', '마음', '아줌', '의뢰인', '신청자', '주문자', '수령인', '보호자', '멤버', '게스트', '작성자', '여러분', '회원분',
  '고객분', '선생', '형', '누', '손', '스',
]);
// A Chinese name before 女士 or 小姐 (李娜女士您好, 尊敬的李娜女士): one to four Han letters, without the words before the
// name that a greeting writes against it (尊敬的, 这位, 您好): see {@link chineseTitledNameRanges}.
const ZH_TITLE = /(\p{Script=Han}{1,4})(?:女士|小姐)/dgu;
const ZH_BEFORE_NAME = /^.{0,3}[的位好是给向请谢致您你]/u;
const NOT_A_CHINESE_NAME = new Set(['这', '那', '各', '该', '此', '每', '某', '诸', '老', '美', '女', '男', '大', '小']);
// The first words of a sentence that follows a title written as a salutation without a name, its comma left out
// (Bonjour Madame Votre colis est arrivé, Estimado Señor Su pedido…, Sehr geehrte Frau Ihre Bestellung…): pronouns,
// articles, prepositions and the words a letter opens with. A few are surnames too (Su), so such a word is no name
// only where the sentence runs on after it ({@link isTitledName}).
const SENTENCE_OPENERS = new Set([
  'votre', 'vos', 'vous', 'nous', 'notre', 'nos', 'je', 'merci', 'bonjour', 'bonsoir', 'suite', 'pour', 'par', 'avec', 'sans', 'comme', 'afin',
  'concernant', 'en', 'dans', 'un', 'une', 'des', 'il', 'elle', 'ils', 'elles', 'on', 'ce', 'cet', 'cette', 'ces', 'cordialement', 'veuillez',
  'pourriez', 'pouvez', 'sachez', 'oui', 'non', 'mon', 'ma', 'mes', 'bien', 'après', 'avant', 'depuis', 'malheureusement', 'toutefois', 'cependant',
  'ainsi', 'actuellement', 'voici', 'su', 'sus', 'usted', 'ustedes', 'gracias', 'hola', 'hemos', 'el', 'los', 'las', 'por', 'para', 'con', 'muchas',
  'lamentamos', 'grazie', 'il', 'lo', 'gli', 'ci', 'per', 'in', 'abbiamo', 'vorremmo', 'siamo', 'ihre', 'ihr', 'ihren', 'ihrem', 'ihrer', 'sie', 'wir',
  'ich', 'vielen', 'danke', 'bitte', 'leider', 'anbei', 'gerne', 'mit', 'zu', 'unser', 'unsere', 'es', 'den', 'dem', 'ein', 'eine', 'hiermit', 'wie',
  'uw', 'u', 'wij', 'we',
]);
// A name in hiragana before 様/さん, as a form or a child's name is sometimes typed (やまだ たろう 様, はなこさん). Hiragana
// is the script of grammar, so a run of it before さん is as often a word (みなさん, ごくろうさま, おきゃくさま): only two
// shapes count. Two groups of two to five hiragana with a space between, as a surname and a given name are written,
// and the run starts after something other than hiragana; or one run of one to three hiragana ending in こ, ろう or すけ,
// the commonest endings of given names (はなこ, たろう, しゅんすけ), not opening with the honorific お or ご and not
// one of the common words of that shape ({@link NOT_A_HIRAGANA_NAME}). Katakana names are taken by JA_HONORIFIC.
const HIRAGANA_HONORIFIC = /(?<![\p{Script=Hiragana}ー])(\p{Script=Hiragana}{2,5}[ 　]\p{Script=Hiragana}{2,5}|(?![おご])\p{Script=Hiragana}{1,3}(?:こ|ろう|すけ))[ 　]?(?:様(?![式子々相態])|さま|さん|くん|ちゃん)/dgu;
// Two groups of hiragana that are a phrase of the letter, not a name: ありがとう ございます 様, よろしく おねがい さん.
const HIRAGANA_PHRASE = /ます|です|ました|でした|ません|ください|ござい|ありがとう|よろしく|おねがい|すみません|こんにちは|おつかれ|ごくろう/u;
const NOT_A_HIRAGANA_NAME = new Set([
  'ここ', 'そこ', 'あそこ', 'どこ', 'ねこ', 'いとこ', 'むこ', 'はこ', 'たこ', 'かしこ', 'よこ', 'とこ', 'みこ', 'おやこ', 'いろう', 'くろう', 'ふろう',
  // Words of the other shapes ({@link HIRAGANA_GIVEN_NAME}): pronouns, family words, animals and shops of children's
  // speech, and the adverbs before ちゃん(と).
  'これ', 'それ', 'あれ', 'どれ', 'この', 'その', 'あの', 'どの', 'だれ', 'どなた', 'あなた', 'こなた', 'そなた', 'どちら', 'こちら', 'そちら', 'あちら',
  'こんな', 'そんな', 'あんな', 'どんな', 'ひと', 'よそ', 'なに', 'いろいろ', 'まだ', 'もっと', 'みな', 'みんな', 'たく', 'だんな', 'よめ', 'むすこ',
  'むすめ', 'こども', 'まご', 'いしゃ', 'はいしゃ', 'くま', 'うさぎ', 'いぬ', 'ぞう', 'ぶた', 'とり', 'かめ', 'ほんや', 'はなや', 'やおや', 'とこや',
  'さかなや', 'くすりや', 'ぱんや', 'でんきや', 'さかや', 'こめや',
]);
// Given names in hiragana of any shape (さくら様, ひろし様, ゆうきさん, あやかちゃん) and surnames (すずき様), alone or after a
// surname in kanji (山田さくら様, 山田 さくら 様): two to four hiragana, the whole run before the honorific. Hiragana is
// the script of grammar, so the run does not open with the honorific お or ご, nor (after kanji) with a particle
// (問題がたくさん, 弊社のみなさま), does not end with one, and is no word of {@link NOT_A_HIRAGANA_NAME} or
// {@link HIRAGANA_HONORIFIC_WORDS}; after the honorific, さま does not open さまざま and ちゃん not ちゃんと.
// 様 after the end of a verb or an adjective and before に, な, で or だ is よう (変わる様に, 切り替わる様になっています,
// 同じ様に: review s48-r3b), not an honorific.
const HONORIFIC_AFTER_KANA = '(?:様(?![式子々相態]|(?<=[るうくすつぬむぶぐたいじ]様)[になでだ])|さま(?![ざすよたじ])|さん|くん|ちゃん(?![とぽこねばぷ]))';
const HIRAGANA_GIVEN_NAME = new RegExp(`(?<![\\p{Script=Hiragana}ー])()((?![おご])\\p{Script=Hiragana}{2,4})[ 　]?(${HONORIFIC_AFTER_KANA})`, 'dgu');
const KANJI_HIRAGANA_NAME = new RegExp(
  `(?<![\\p{Script=Han}々])([\\p{Script=Han}々]{1,3}[ 　]?)((?![をがへでにのおご]|[はともや][おご])\\p{Script=Hiragana}{2,4})[ 　]?(${HONORIFIC_AFTER_KANA})`,
  'dgu',
);
// Hiragana words that end like a name before an honorific: たくさん, みなさま, あかちゃん, さかさま, ねえさん.
const HIRAGANA_HONORIFIC_WORDS = [
  'たくさん', 'みなさん', 'みなさま', 'さかさま', 'あからさま', 'ありさま', 'いかさま', 'かみさま', 'ほとけさま', 'とのさま', 'ひめさま', 'おかげさま',
  'つかれさま', 'くろうさま', 'ちそうさま', 'たがいさま', 'そまつさま', 'せわさま', 'あかちゃん', 'わんちゃん', 'ねこちゃん', 'にゃんちゃん', 'ぼっちゃん',
  'じいちゃん', 'ばあちゃん', 'にいちゃん', 'ねえちゃん', 'かあちゃん', 'とうちゃん', 'にいさん', 'ねえさん', 'じいさん', 'ばあさん', 'かあさん', 'とうさん', 'ぎょうさん',
];
// The particles that end no name: 質問は, 問題が, これを.
const PARTICLE_END = /[をがはでへ]$/u;
// A name written the way people write their own: capitalised words with a small second letter (Jane, O'Brien, Li),
// so acronyms and product names in capitals (XYZ Cloud) are not taken for one.
const OWN_NAME_WORD = "[A-Z](?:[a-z]|['’][A-Z])[a-zA-Z'’-]*";
const OWN_NAME = `${OWN_NAME_WORD}(?:[ \\t]+${OWN_NAME_WORD}){0,2}`;
// English self-introductions. "My name is" is followed by the name; after "I'm" and "This is" a capitalised word is
// as often a product or a state ("This is Windows 11 behaviour"), so the name must end the clause or be followed by
// the words that go with an introduction ("This is Jane Doe from ACME", "I'm Jane, the account holder").
const EN_MY_NAME = new RegExp(`\\b[Mm]y name(?: is|['’]s)[ \\t]+(${OWN_NAME})(?![\\p{L}\\p{N}])`, 'gdu');
const EN_SELF_INTRODUCTION = new RegExp(
  `(?<![\\p{L}'’])(?:I['’]m|I am|[Tt]his is)[ \\t]+(${OWN_NAME})(?=[ \\t]*(?:[,.!;)\\r\\n]|$)|[ \\t]+(?:from|at|of|with|here|speaking|calling|writing|and)\\b)`,
  'gdu',
);
// A person named after who they are to the writer ("my colleague Priya Raman", "my wife Anna"): no honorific, no
// label, yet as much another customer's data as one. Capitalised words that are a product stay ({@link isOwnName}).
const EN_RELATIVE = new RegExp(
  `(?<![\\p{L}'’])(?:[Mm]y|[Oo]ur)[ \\t]+(?:colleague|co-?worker|wife|husband|son|daughter|mother|father|mom|mum|dad|brother|sister|friend|boss|manager|supervisor|partner|teammate|neighbou?r)[ \\t]+(${OWN_NAME})(?![\\p{L}\\p{N}'’])`,
  'gdu',
);
// Capitalised words after "I'm" / "This is" that are not a name.
const NOT_AN_OWN_NAME = new Set([
  'sorry', 'back', 'done', 'ok', 'okay', 'fine', 'here', 'new', 'not', 'also', 'still', 'just', 'urgent', 'important', 'correct', 'wrong',
  'english', 'japanese', 'german', 'french', 'spanish', 'italian', 'chinese', 'korean', 'american', 'british', 'canadian', 'australian',
  'windows', 'mac', 'macos', 'linux', 'android', 'iphone', 'ipad', 'microsoft', 'google', 'apple', 'amazon', 'outlook', 'office', 'excel',
  'word', 'teams', 'zoom', 'slack', 'chrome', 'safari', 'firefox', 'edge', 'admin', 'administrator', 'premium', 'pro', 'enterprise',
  'default', 'unknown', 'test', 'none', 'sample', 'example', 'untitled', 'anonymous', 'guest',
]);
// A name after a form label: 氏名：山田太郎, お名前: 山田 太郎, 口座名義：ﾔﾏﾀﾞ ﾀﾛｳ, Name: Jane Doe. The value must end the
// line or the field (a bracket, a comma, 様, です), so that a label followed by a sentence about the field
// (氏名：漢字で入力してください, Name: Enter a name for the project) stays. 名前 must not end a longer word (ファイル名前);
// English labels must not follow another word (File name:, Product name:), except the ones listed.
// An order form names the other people of an order by their role alone (ご注文者：, 受取人：, 契約者：, 宛名：) and writes
// labels in lenticular brackets (【氏名】山田太郎), and a signature names its writer after 担当：; a department after such
// a label is no name ({@link isLabelledName}). Square brackets in ASCII are left out: [氏名] is the scrub's own
// placeholder, and a scrubbed text scrubbed again must come out the same.
const JA_NAME_LABEL =
  '(?:氏名|お名前|(?<![\\p{Script=Han}\\p{Script=Katakana}ー])名前|フルネーム|(?:契約者|購入者|申込者|担当者|送り主|依頼主|受取人|届け先)(?:氏名|名)|ご?(?:担当者?|契約者|購入者|注文者|申込者|依頼主|依頼者)|申請者|送り主|受取人|代表者名?|宛名|作成者|記入者|口座名義人?|名義人|フリガナ|カナ氏名)(?:[（(](?:フリガナ|ふりがな|カナ|漢字|ローマ字)[）)])?';
const EN_NAME_LABEL = `(?<![\\p{L}\\p{N}][ \\t]?)(?:${['name', 'full name', 'first name', 'last name', 'given name', 'family name', 'surname', 'customer name', 'contact name', 'account holder', 'account holder name', 'cardholder', 'cardholder name', 'your name'].map(anyCapitalisation).join('|')})`;
// The second word is not an honorific written apart (佐藤花子 様).
const JA_NAME_VALUE = '[\\p{Script=Han}\\p{Script=Katakana}ー々・\\uFF9E\\uFF9F]{1,10}(?:[ 　](?![様殿氏])[\\p{Script=Han}\\p{Script=Katakana}ー々・\\uFF9E\\uFF9F]{1,10})?';
// A reading in brackets after the name (山田 太郎（ヤマダ タロウ）) spells the same name and goes with it.
// A title before the name stays with the label: Name: Rev.[name], Name: Mrs [name].
const TITLE_BEFORE_NAME = '(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof|Rev)(?:\\.[ \\t]*|[ \\t]+))?';
const LABELLED_NAME = new RegExp(
  `(?:(?:${JA_NAME_LABEL}|${EN_NAME_LABEL})[ \\t　]*[:：][ \\t　]*|[【［](?:${JA_NAME_LABEL})[】］][ \\t　]*(?:[:：][ \\t　]*)?)${TITLE_BEFORE_NAME}((?:${JA_NAME_VALUE}|${OWN_NAME})${NAME_READING})(?=[ \\t　]*(?:$|[\\r\\n、。,，;；/／|｜（(「<【［\\[]|様|さま|さん|殿|です))`,
  'gdu',
);
// The label of who handles a request (担当：, 担当者：, ご担当：, 【担当】), right before its value; and one word in katakana.
const STAFF_LABEL_BEFORE = /(?:ご?担当者?[ \t　]*[:：]|[【［]ご?担当者?[】］][ \t　]*(?:[:：])?)[ \t　]*$/u;
const KATAKANA_WORD = /^[\p{Script=Katakana}ー]+$/u;
// What a form says in a name field rather than a name: 氏名：必須, お名前：全角, Name: Required.
const NOT_A_LABELLED_NAME = new Set([
  '必須', '任意', '未入力', '空欄', '不明', '未定', '未設定', '未登録', '漢字', '全角', '半角', 'カナ', 'カタカナ', '英字', 'ローマ字', '本名', '旧姓',
  '同上', '省略', '例', 'フルネーム', '不在', '全員', '各自', '複数', '自動', '本人', 'ご本人', '会社名', '氏名', '個人名', '法人名', '部署名', '自宅', '会社', '登録名', '表示名', 'ニックネーム', 'テスト', 'サンプル', '〇〇', '××',
]);
const NOT_AN_EN_NAME = new Set([
  'customer', 'customers', 'valued customer', 'sir', 'madam', 'sir or madam', 'all', 'everyone', 'team', 'there', 'support', 'support team', 'user', 'users',
  'friend', 'friends', 'colleague', 'colleagues', 'world', 'homeowner', 'beneficiary', 'member', 'members', 'valued member', 'subscriber', 'client', 'applicant',
]);
// Words that make a display name a team, a service or a company rather than a person (XYZ Support, Mail Delivery
// Subsystem, The Gmail Team, Discover Card); a part in brackets (Taro Yamada (ACME Support)) does not count.
const ORGANISATION_WORDS = new Set([
  'team', 'support', 'helpdesk', 'desk', 'service', 'services', 'center', 'centre', 'department', 'dept', 'office', 'inc', 'ltd', 'llc', 'corp', 'gmbh',
  'group', 'sales', 'billing', 'notification', 'notifications', 'alerts', 'mail', 'e-mail', 'email', 'delivery', 'subsystem', 'system', 'daemon',
  'administrator', 'admin', 'no-reply', 'noreply', 'newsletter', 'card',
]);
// Words before "wrote:" that are not a name: "He wrote:", "Someone wrote:".
const NOT_A_WRITER = new Set(['he', 'she', 'they', 'it', 'you', 'we', 'i', 'someone', 'somebody', 'everyone', 'everybody', 'nobody', 'one', 'who']);

interface Span {
  start: number;
  end: number;
  kind: PersonalDataKind;
}

/**
 * The phone numbers written in `text`, as written, by the same patterns the scrub removes them with (Japanese,
 * international, North American, French); for checks that compare numbers rather than remove them.
 */
export function phoneNumbersIn(text: string): string[] {
  // Patterns overlap (`+1 (555) 010-4477` holds a North American number): the widest match stands for the number.
  // In order of start (the wider first at a tie), every range kept so far starts at or before this one: it lies inside
  // one of them exactly when it ends no later than the furthest end kept, so one comparison each, not one per kept
  // range (20,000 numbers in a text took seconds).
  const ranges = phoneRanges(text).sort(([a, b], [c, d]) => a - c || d - b);
  const kept: [number, number][] = [];
  let furthestEnd = -1;
  for (const range of ranges) {
    if (range[1] <= furthestEnd) continue;
    kept.push(range);
    furthestEnd = range[1];
  }
  return kept.map(([s, e]) => text.slice(s, e));
}

/**
 * The digits of a phone number as {@link phoneNumbersIn} returns it, in ASCII: full-width digits and kanji numerals
 * (〇三－一二三四－五六七八 → 0312345678) too, so that one number written two ways compares equal, and two numbers in
 * kanji numerals do not both compare as no digits at all.
 */
export function phoneNumberDigits(phone: string): string {
  return toAsciiDigits(phone);
}

/**
 * Where the numbers of Japanese bank accounts are in `text`: seven or eight digits after the account's type (普通
 * 1234567, 当座預金口座 ７６５４３２１), by the pattern the scrub removes them with ({@link JA_BANK_ACCOUNT}); the bank,
 * branch and type before the number are not in the range. For checks that compare accounts rather than remove them.
 */
export function bankAccountNumberRanges(text: string): [number, number][] {
  return groupsOf(text, JA_BANK_ACCOUNT);
}

/**
 * Where LINE ids stand after their label (LINE ID：taro_y, LINE ID は @xyz_support), the id without its @, by the
 * scrub's pattern ({@link LINE_LOGIN}) but without its exceptions: an official account's @id, which the scrub keeps as
 * published, is an id all the same to a check that asks whether the knowledge vouches for it.
 */
export function lineIdRanges(text: string): [number, number][] {
  return groupsOf(text, LINE_LOGIN);
}

/** Where {@link phoneNumbersIn}'s numbers are: written without a label (a labelled one is found by its label). */
function phoneRanges(text: string): [number, number][] {
  const digitsWithin = (min: number, max: number) => ([s, e]: [number, number]) => {
    const n = digitCount(text.slice(s, e));
    return n >= min && n <= max;
  };
  const national = [
    ...[...matchesOf(text, JA_PHONE), ...matchesOf(text, BRACKETED_AFTER_LETTER)].filter(digitsWithin(10, 11)),
    ...kanjiPhoneRanges(text),
    ...matchesOf(text, NA_PHONE),
    ...matchesOf(text, FR_PHONE),
  ];
  return [...intlPhoneRanges(text, national).filter(digitsWithin(8, 15)), ...national];
}

/**
 * The international numbers ({@link INTL_PHONE}). A match of more than 15 digits, more than a number has, ran on into
 * the next number (+81 90 1234 5678 03-1234-5678) and was dropped whole: it is cut where a national number that
 * runs past its end starts, or else after the last group that keeps it within 15 digits.
 */
function intlPhoneRanges(text: string, national: readonly [number, number][]): [number, number][] {
  const byStart = [...national].sort(([a], [b]) => a - b);
  return matchesOf(text, INTL_PHONE).map(([start, end]): [number, number] => {
    if (digitCount(text.slice(start, end)) <= 15) return [start, end];
    // The national numbers that start inside the match: from the first starting after its start (a binary search), as
    // far as its end, a few characters.
    let low = 0;
    let high = byStart.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (byStart[middle]![0] > start) high = middle;
      else low = middle + 1;
    }
    let next: [number, number] | undefined;
    for (let i = low; i < byStart.length && byStart[i]![0] < end && !next; i++) if (byStart[i]![1] > end) next = byStart[i];
    if (next) {
      // Without the separators and the bracket before the next number.
      let cut = next[0];
      while (cut > start && !/[0-9０-９]/.test(text.charAt(cut - 1))) cut--;
      return [start, cut];
    }
    let digits = 0;
    let cut = start;
    for (let at = start; at < end && digits <= 15; at++) {
      if (/[0-9０-９]/.test(text.charAt(at))) digits++;
      if (digits <= 15 && /[0-9０-９]/.test(text.charAt(at)) && !/[0-9０-９]/.test(text.charAt(at + 1))) cut = at + 1;
    }
    return [start, cut];
  });
}

/**
 * The phone numbers in kanji numerals ({@link KANJI_PHONE}): ten or eleven digits with a kanji numeral among them (the
 * rest is JA_PHONE's), not one digit written throughout, as a form's model of a number is (〇〇〇－〇〇〇〇－〇〇〇〇).
 */
function kanjiPhoneRanges(text: string): [number, number][] {
  return matchesOf(text, KANJI_PHONE).filter(([s, e]) => {
    const written = text.slice(s, e);
    const digits = toAsciiDigits(written);
    return digits.length >= 10 && digits.length <= 11 && /[一二三四五六七八九〇]/.test(written) && !/^(.)\1*$/.test(digits);
  });
}

/**
 * The placeholder language of a text: Japanese when Japanese characters (kana, kanji, and the full-width letters and
 * digits only a Japanese input method types) are at least half as many as Latin letters outside e-mail addresses and
 * URLs, since one Japanese character carries about as much as two letters.
 */
export function placeholderLanguage(text: string): PlaceholderLanguage {
  const plain = text.replace(EMAIL, ' ').replace(URL_PATTERN, ' ');
  const japanese = (plain.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\uFF01-\uFF5E]/gu) ?? []).length;
  const latin = (plain.match(/[A-Za-z]/g) ?? []).length;
  return japanese > 0 && japanese * 2 >= latin ? 'ja' : 'en';
}

/**
 * Replaces the personal data in `text` by placeholders; see the module comment for what counts. Where two rules find
 * overlapping text, the earlier rule in this order wins: e-mail addresses, secrets, IBANs, card numbers and their last
 * digits, IP addresses, labelled numbers (passwords and log-in names among them), licence keys and UUIDs, addresses, phone numbers,
 * postal codes, numbers in a signature block, the given names, names found by honorific, label, header block,
 * attribution line or self-introduction, then {@link ScrubOptions.extra}; only a name found around a given name
 * (鈴木一郎様 around 鈴木) replaces it, whole. URLs are left as they are (apart from e-mail addresses, written out or
 * percent-encoded, IP addresses and secrets in them), so digits in a link are never taken for a phone number, but a
 * phone or card number removed elsewhere in the text is removed inside a link too; so are role addresses and toll-free
 * numbers, whole. No-break and thin spaces are read as spaces, the figure dash and ﹣ as a hyphen; the output is scrubbed
 * again while that finds more between the placeholders, so that a second scrub changes nothing.
 */
export function scrubPersonalData(text: string, options: ScrubOptions = {}): ScrubResult {
  const language = options.language ?? placeholderLanguage(text);
  const placeholders = PLACEHOLDERS[language];
  let spans = personalDataSpans(text, options, language);
  // The rules read the text around a find (a word boundary, a lookbehind, the address an e-mail rule ran on into), and
  // a placeholder is other text than what it replaced: [email](03) 1234 5678 holds a number that
  // taro.yamada@example.com(03) 1234 5678 hid, and the scrub was not idempotent (a learned pair scrubbed again when
  // stored or loaded lost more). So the output is scrubbed again while that finds something, keeping only finds in
  // the text between placeholders, mapped back to the input. Text with nothing to replace, the most, is read once.
  for (let pass = 1; pass < MAX_SCRUB_PASSES && spans.length > 0; pass++) {
    const { out, copied } = withPlaceholders(text, spans, placeholders);
    const found = withinCopied(personalDataSpans(out, options, language), copied);
    if (found.length === 0) break;
    spans = [...spans, ...found].sort((a, b) => a.start - b.start);
  }
  const { out } = withPlaceholders(text, spans, placeholders);
  const replacements = spans.map((span) => ({ kind: span.kind, original: text.slice(span.start, span.end), placeholder: placeholders[span.kind], index: span.start }));
  return { text: out, replacements, language };
}

/** At most how many times {@link scrubPersonalData} reads a text: the input, then its output while that changes. */
const MAX_SCRUB_PASSES = 3;

// Space-like characters the rules read as a space: the no-break space (an HTML mail's &nbsp;, 090&nbsp;1234&nbsp;5678),
// the typographic spaces (thin, figure, en…) and the narrow no-break and medium mathematical spaces. One code unit
// each, so positions stay.
const SPACE_LIKE = /[\u00a0\u2000-\u200a\u202f\u205f]/g;
// Dashes the rules read as a hyphen: the figure dash and the small hyphen-minus (03﹣1234﹣5678; NFKC reads it as one).
const DASH_LIKE = /[\u2012\ufe63]/g;

/**
 * `text` with each span replaced by its placeholder, and where the text between placeholders (`copied`) stands in
 * the output and in `text`: disjoint and in order.
 */
function withPlaceholders(text: string, spans: readonly Span[], placeholders: Record<PersonalDataKind, string>): { out: string; copied: { outStart: number; outEnd: number; start: number }[] } {
  const copied: { outStart: number; outEnd: number; start: number }[] = [];
  let out = '';
  let at = 0;
  for (const span of [...spans, { start: text.length, end: text.length, kind: 'name' as const }]) {
    copied.push({ outStart: out.length, outEnd: out.length + span.start - at, start: at });
    out += text.slice(at, span.start);
    if (span.start < text.length) out += placeholders[span.kind];
    at = span.end;
  }
  return { out, copied };
}

/** The spans found in a scrub's output that lie inside its copied text, as ranges of the input. */
function withinCopied(found: readonly Span[], copied: readonly { outStart: number; outEnd: number; start: number }[]): Span[] {
  const kept: Span[] = [];
  let i = 0;
  for (const span of found) {
    while (i < copied.length && copied[i]!.outEnd < span.end) i++;
    const segment = copied[i];
    if (!segment || span.start < segment.outStart) continue;
    const offset = segment.start - segment.outStart;
    kept.push({ start: span.start + offset, end: span.end + offset, kind: span.kind });
  }
  return kept;
}

/** The personal data in `written`, in disjoint spans in order of start: the rules of {@link scrubPersonalData}, once. */
function personalDataSpans(written: string, options: ScrubOptions, language: PlaceholderLanguage): Span[] {
  // Read with space-like characters as spaces and dash-like ones as a hyphen: the rules' separators.
  const text = written.replace(SPACE_LIKE, ' ').replace(DASH_LIKE, '-');
  const spans: Span[] = [];
  // A number-shaped match counts as a phone number only with a plausible number of digits.
  const digitsWithin = (min: number, max: number) => ([s, e]: [number, number]) => {
    const n = digitCount(text.slice(s, e));
    return n >= min && n <= max;
  };
  // Full-width ASCII read as ASCII (ｔａｒｏ＠ｅｘａｍｐｌｅ．ｃｏｍ, ５２．１４．８８．２０１): same length, same indices.
  const folded = foldFullWidth(text);
  const emails = matchesOf(folded, EMAIL);
  const isRoleAddress = ([s, e]: [number, number]) => ROLE_MAILBOX.test(folded.slice(s, e));
  const phones = [...phoneRanges(text), ...groupsOf(text, LABELLED_PHONE).filter(digitsWithin(6, 15))];
  const isServiceNumber = ([s, e]: [number, number]) => SERVICE_NUMBER.test(toAsciiDigits(text.slice(s, e)));
  // Role addresses and service numbers are kept whole: no other rule may take a part of them (555-0100 of a toll-free
  // number is not a postal code).
  const isProtected = overlapTest([...linkRanges(text), ...emails.filter(isRoleAddress), ...phones.filter(isServiceNumber)]);
  // An address in a link is as much the customer's as one in the text: e-mail addresses and IP hosts are taken from
  // inside URLs too (https://203.0.113.7:8443/), nothing else is. The spans kept are disjoint and in order of start
  // (so of end too): the ones a range overlaps are found by a binary search, as a text with thousands of finds (a
  // list of addresses, a log) made a scan of all of them for each find quadratic.
  const add = (kind: PersonalDataKind, found: readonly [number, number][], inLinks = kind === 'email') => {
    for (const [start, end] of found) {
      if (end <= start) continue;
      if (!inLinks && isProtected(start, end)) continue;
      const from = firstEndingAfter(spans, start);
      let to = from;
      while (to < spans.length && spans[to]!.start < end) to++;
      if (to === from) {
        spans.splice(from, 0, { start, end, kind });
        continue;
      }
      const overlapping = spans.slice(from, to);
      // A known part of a name (鈴木) inside a wider name another rule found (鈴木一郎様) takes the whole name.
      if (kind !== 'name' || overlapping.some((o) => o.kind !== 'name')) continue;
      spans.splice(from, to - from, { start: Math.min(start, overlapping[0]!.start), end: Math.max(end, overlapping[overlapping.length - 1]!.end), kind });
    }
  };

  add('email', [
    ...emails.filter((range) => !isRoleAddress(range)),
    ...matchesOf(text, ENCODED_EMAIL).filter(([s, e]) => !ROLE_MAILBOX.test(text.slice(s, e).replace(/%40/i, '@'))),
    ...obfuscatedEmailRanges(folded),
  ]);
  // Before every rule but e-mail addresses: a key's digits are no card, phone or order number, and a secret in a link
  // goes although the link stays.
  add('secret', secretRanges(text), true);
  // Before card numbers: an IBAN's digits in groups of four (DE89 3704 0044 0532 0130 00) look like a card number.
  add('reference-number', ibanRanges(text));
  add('card-number', [
    ...matchesOf(text, CARD_GROUPED),
    // T and 13 digits is a company's invoice registration number (see CUSTOMER_INVOICE_NUMBER), not a card.
    ...matchesOf(text, CARD_RUN).filter(
      ([s, e]) => luhnValid(text.slice(s, e)) && !INVOICE_REGISTRATION_NUMBER.test(text.slice(Math.max(0, s - 1), e)) && !BARCODE_LABEL.test(text.slice(Math.max(0, s - 16), s)),
    ),
    ...matchesOf(text, MASKED_CARD),
    ...groupsOf(text, JA_CARD_TAIL),
    ...groupsOf(text, EN_CARD_TAIL).filter(([s, e]) => !YEAR.test(text.slice(s, e)) || CARD_WORD.test(text.slice(Math.max(0, s - 40), s))),
  ]);
  // Before labelled numbers: after "ID: " a labelled number would take only the first octet of an address.
  add('reference-number', ipRanges(folded), true);
  add('reference-number', [
    ...groupsOf(text, JA_REFERENCE).filter(([s, e]) => !isLength(text, s, e)),
    ...groupsOf(text, JA_BARE_ORDER),
    ...groupsOf(text, EU_ORDER).filter(([s, e]) => !YEAR.test(text.slice(s, e))),
    ...groupsOf(text, BIRTH_DATE),
    ...groupsOf(text, JA_OTP),
    ...groupsOf(text, EN_OTP),
    ...groupsOf(text, EU_CUSTOMER_NUMBER).filter(([s, e]) => !YEAR.test(text.slice(s, e))),
    ...groupsOf(text, CJK_REFERENCE).filter(([s, e]) => !isLength(text, s, e)),
    ...groupsOf(text, CARRIER_NUMBER),
    ...matchesOf(text, UPS_TRACKING),
    ...groupsOf(text, BOOKING_CODE).filter(([s, e]) => !NOT_A_BOOKING_CODE.has(text.slice(s, e))),
    ...groupsOf(text, USER_LOGIN).filter(([s, e]) => ID_SHAPED.test(text.slice(s, e)) && !NOT_A_LOGIN.has(text.slice(s, e).toLowerCase())),
    ...listedCodeRanges(text),
    ...groupsOf(text, TAX_ID).filter(([s, e]) => digitCount(text.slice(s, e)) >= 7),
    ...groupsOf(text, CUSTOMER_INVOICE_NUMBER),
    ...accountLoginRanges(text),
    ...[...groupsOf(text, EN_REFERENCE), ...groupsOf(text, ID_REFERENCE)].filter(([s, e]) => !isLength(text, s, e)),
    ...labelledLoginRanges(text),
    ...bareLoginRanges(text),
    ...runningLoginRanges(text),
    ...groupsOf(text, JA_BANK_ACCOUNT),
    ...groupsOf(text, MY_NUMBER),
    // Read folded: a password typed in full-width letters (Ｘｙ７ｋ…) or after ｐａｓｓｗｏｒｄ： (review 44b).
    ...passwordRanges(folded, text),
    ...[
      ...matchesOf(text, LICENCE_KEY).filter(([s, e]) => looksLikeKey(text.slice(s, e))),
      ...matchesOf(text, SHORT_KEY).filter(([s, e]) => looksLikeShortKey(text.slice(s, e))),
      ...matchesOf(text, LETTER_KEY).filter(([s, e]) => looksLikeLetterKey(text.slice(s, e))),
    ].filter(([s]) => !PRODUCT_CODE_LABEL.test(text.slice(Math.max(0, s - 24), s))),
    ...matchesOf(text, UUID).filter(([s, e]) => !/^[0-]+$|^[fF-]+$/.test(text.slice(s, e))),
  ]);
  // A customer's order, parcel, invoice or log-in in a link (security review 19): the link stays, the id goes.
  add('reference-number', linkIdRanges(text), true);
  const addresses: [number, number][] = [
    ...matchesOf(text, JA_ADDRESS),
    ...matchesOf(text, JA_ADDRESS_CITY),
    ...matchesOf(text, ROMAJI_ADDRESS),
    ...matchesOf(text, BUILDING_ROOM).filter(([s, e]) => !VENUE_ROOM.test(text.slice(s, e))),
    ...groupsOf(text, EN_LABELLED_ADDRESS).filter(([s, e]) => EN_ADDRESS_SHAPE.test(text.slice(s, e))),
    ...[...matchesOf(text, EN_STREET), ...matchesOf(text, FR_STREET), ...matchesOf(text, NAME_FIRST_STREET), ...matchesOf(text, ROMANCE_STREET)].filter(
      ([s, e]) => !text.slice(s, e).split(/[\s.,]+/).some((word) => NOT_A_STREET_WORD.has(word.toLowerCase())),
    ),
    ...unnumberedStreetRanges(text),
    ...groupsOf(text, LABELLED_ADDRESS).filter(([s, e]) => PLACE.test(text.slice(s, e))),
  ];
  add('address', addresses);
  const addressEnds = new Set(addresses.map(([, end]) => end));
  add('phone', phones);
  add('phone', groupsOf(text, JA_EXTENSION));
  add('phone', [...matchesOf(text, EN_SPELT_NUMBER), ...matchesOf(text, KANA_SPELT_NUMBER)].filter(([s, e]) => !isDigitsInOrder(text.slice(s, e))));
  add('postal-code', [
    ...matchesOf(text, POSTAL_MARK),
    ...groupsOf(text, POSTAL_LABEL),
    ...matchesOf(text, ZIP_PLUS_FOUR),
    ...groupsOf(text, US_STATE_ZIP),
    ...matchesOf(text, UK_POSTCODE).filter(([s, e]) => !SIZE_INWARD.test(text.slice(s, e))),
    ...matchesOf(text, UK_POSTCODE_SMALL).filter(([s, e]) => !SIZE_INWARD.test(text.slice(s, e).toUpperCase()) && !ORDINAL_INWARD.test(text.slice(s, e))),
    ...matchesOf(text, CA_POSTCODE),
    ...[...text.matchAll(POSTAL_TOWN)].filter((m) => postalCodeBeforeTown(text, m, addressEnds)).map((m) => m.indices![1]!),
    ...(language === 'ja' ? matchesOf(text, POSTAL_BARE_JA) : []),
  ]);
  // After postal codes and addresses: a ZIP+4 in a signature is a postal code, not a number to call.
  add('phone', signatureNumberRanges(text));
  add('name', knownNameMatches(text, options.names ?? []));
  add('name', [
    ...groupsOf(text, JA_HONORIFIC)
      .filter(([s, e]) => !isTeachersAsWord(text, s, e) && !isDonoInWord(text, e) && !isKanaReading(text, s, e))
      // A company's name keeps the whole run but the person a title or a company word marks in it (株式会社サンプル商事山田部長様).
      .flatMap(([s, e]) => (isCompanyName(text, s, e) ? personInCompanyName(text, s, e) : honorificNameRange(text, s, e))),
    ...hiraganaNameRanges(text).filter(([s, e]) => !isKanaReading(text, s, e)),
    ...groupsOf(text, STAFF_MENTION).filter(([s, e]) => isStaffName(text.slice(s, e))),
    ...signatureNameRanges(text),
    ...groupsOf(text, QUOTED_HONORIFIC).filter(([s, e]) => isPersonName(text.slice(s, e)) && !isCompanyName(text, s, e)),
    ...headerNameRanges(text),
    ...attributionNameRanges(text),
    ...groupsOf(text, SELF_INTRODUCTION).filter(([s, e]) => !isCommonNoun(text.slice(s, e))),
    ...groupsOf(text, LATIN_HONORIFIC).filter(([s, e]) => !NOT_AN_EN_NAME.has(text.slice(s, e).toLowerCase()) && !isCompanyName(text, s, e)),
    ...[...groupsOf(text, EN_GREETING), ...[...text.matchAll(EN_GREETING)].flatMap((m) => (m.indices?.[2] ? [m.indices[2]] : [])), ...groupsOf(text, EN_TITLE)].filter(
      ([s, e]) => !NOT_AN_EN_NAME.has(text.slice(s, e).toLowerCase()),
    ),
    ...groupsOf(text, SAN_SUFFIX),
    ...[...text.matchAll(EN_THANKS)]
      .map((m) => m.indices![1] ?? m.indices![2]!)
      // "Thanks, Tanaka-san!": the honorific is not part of the name (SAN_SUFFIX takes the name before it).
      .map(([s, e]): [number, number] => [s, e - (/-(?:san|sama|sensei|kun|chan)$/.exec(text.slice(s, e))?.[0].length ?? 0)])
      .filter(([s, e]) => isThankedName(text.slice(s, e))),
    ...groupsOf(text, EN_GREETING_SMALL).filter(
      ([s, e]) => !text.slice(s, e).split(/[ \t]+/).some((word) => [NOT_A_SMALL_NAME, NOT_AN_EN_NAME, NOT_AN_OWN_NAME, ORGANISATION_WORDS].some((words) => words.has(word))),
    ),
    ...[...text.matchAll(EU_TITLE)].map((m) => m.indices![1] ?? m.indices![2]!).filter(([s, e]) => isTitledName(text, s, e)),
    ...groupsOf(text, HIRAGANA_HONORIFIC).filter(
      ([s, e]) =>
        !NOT_A_HIRAGANA_NAME.has(text.slice(s, e)) && !HIRAGANA_PHRASE.test(text.slice(s, e)) && !isCommonNoun(text.slice(s, e)) && !isKanaReading(text, s, e),
    ),
    ...groupsOf(text, LABELLED_NAME).filter(([s, e]) => isLabelledName(text.slice(s, e)) && !isStaffTeam(text, s, e)),
    ...accountHolderRanges(text),
    ...groupsOf(text, EN_MY_NAME).filter(([s, e]) => isOwnName(text.slice(s, e))),
    ...groupsOf(text, EN_SELF_INTRODUCTION).filter(([s, e]) => isOwnName(text.slice(s, e))),
    ...groupsOf(text, EN_RELATIVE).filter(([s, e]) => isOwnName(text.slice(s, e))),
    ...groupsOf(text, JA_MY_NAME).filter(([s, e]) => isLabelledName(text.slice(s, e))),
    ...groupsOf(text, KO_MY_NAME),
    ...koreanNameRanges(text),
    ...chineseTitledNameRanges(text),
    ...greetedNameRanges(text),
    ...openingNameRanges(text),
  ]);
  // A phone or card number removed in one place is removed wherever else it is written, in a link too
  // (https://example.com/u/090-1234-5678 beside the same number in the text): the link's protection keeps what might
  // be the link's own digits, and a number the text shows to be a customer's is not. Eight digits or more, so that a
  // card's last four (末尾4242) does not take every 4242. A copy is a whole token: inside a longer one (型番
  // X090-1234-5678A, part number 803-1234-56789) the same digits are no copy of it (bug review B3 of session 49).
  const written8 = spans.filter((span) => (span.kind === 'phone' || span.kind === 'card-number') && digitCount(text.slice(span.start, span.end)) >= 8);
  for (const kind of ['phone', 'card-number'] as const) {
    add(kind, wholeTokenCopies(text, written8.filter((span) => span.kind === kind).map((span) => text.slice(span.start, span.end))), true);
  }
  for (const item of options.extra ?? []) add(item.kind, occurrencesOf(written, item.text));
  return spans;
}

/** Whether number words spelt out are the ten digits in their order, a list of them rather than a number. */
function isDigitsInOrder(spelt: string): boolean {
  const digits = [...spelt.matchAll(SPELT_DIGIT_WORD)].map((m) => DIGIT_OF_WORD.get(m[0].toLowerCase()) ?? '?').join('');
  return DIGITS_IN_ORDER.has(digits);
}

/** `text` with full-width ASCII (U+FF01–U+FF5E) as ASCII, one UTF-16 unit for one, so indices carry over. */
function foldFullWidth(text: string): string {
  return text.replace(FULL_WIDTH_ASCII, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
}

/**
 * The e-mail addresses in `folded` written with the @ or a dot spelt out or bracketed ({@link OBFUSCATED_EMAIL}); the
 * plain ones are {@link EMAIL}'s. An address spelt with words (at, dot, アット, ドット) must end in a common top-level
 * domain ({@link SPELT_ADDRESS_TLDS}); one with "at" as a word must have a dot spelt or bracketed after it ("log in at
 * app.example.com" is a host) and no word before it that stands before "at" in running text ("sign in at …"). A role
 * address stays, as written out.
 */
function obfuscatedEmailRanges(folded: string): [number, number][] {
  return obfuscatedEmails(folded, false).map(({ start, end }) => [start, end]);
}

/** An e-mail address found in a text: where it is written, and the plain address it stands for, in small letters. */
export interface WrittenAddress {
  start: number;
  end: number;
  address: string;
}

/**
 * The e-mail addresses written obfuscated in `text` (taro (at) example (dot) com, support@evil[.]com, full-width forms
 * too), role addresses (support@…) included, which the scrub keeps for answers: in a learned candidate's question one
 * is where the customer was told to write (review 44b).
 */
export function obfuscatedAddresses(text: string): WrittenAddress[] {
  return obfuscatedEmails(foldFullWidth(text), true);
}

/** The plain forms, in small letters, of every e-mail address `text` writes: plainly, in full width or obfuscated. */
export function addressesWrittenIn(text: string): Set<string> {
  const folded = foldFullWidth(text);
  return new Set([...matchesOf(folded, EMAIL).map(([s, e]) => folded.slice(s, e).toLowerCase()), ...obfuscatedEmails(folded, true).map((a) => a.address)]);
}

function obfuscatedEmails(folded: string, withRoles: boolean): WrittenAddress[] {
  const found: WrittenAddress[] = [];
  const dot = new RegExp(OBFUSCATED_DOT, 'gi');
  for (const m of folded.matchAll(OBFUSCATED_EMAIL)) {
    const written = m[0];
    const { local, tld, wordAt } = m.groups!;
    if (!SPELT_SEPARATOR.test(written)) continue;
    const domain = folded.slice(m.indices!.groups!.domain![0], m.index + written.length);
    const inWords = wordAt !== undefined || /ドット|どっと|アット|あっと|[ \t]dot[ \t]/i.test(written);
    if (inWords && !SPELT_ADDRESS_TLDS.has(tld!.toLowerCase())) continue;
    if (wordAt !== undefined && (NOT_A_SPELT_LOCAL_PART.has(local!.toLowerCase()) || !/[[({]|dot|ドット|どっと/i.test(domain))) continue;
    if (wordAt !== undefined && NOT_A_SPELT_DOMAIN.has(m.groups!.domain!.split(/[^A-Za-z0-9-]/)[0]!.toLowerCase())) continue;
    const address = `${local!.replace(dot, '.')}@${domain.replace(dot, '.')}`.toLowerCase();
    if (!withRoles && ROLE_MAILBOX.test(address)) continue;
    found.push({ start: m.index, end: m.index + written.length, address });
  }
  return found;
}

/**
 * Where links and host names are written defanged in `text` ({@link DEFANGED_LINK}, {@link DEFANGED_HOST}: hxxps://…,
 * https[:]//…, xyz[.]com, example(.)co(.)jp), full-width forms too, without the sentence's punctuation after them. A
 * host must end in letters that are no file's extension (name[.]js in a note on patterns stays), or be four octets
 * (52[.]14[.]88[.]201); a plain scheme before one goes with it (https://example[.]com/…). The scrub leaves
 * links to whoever reads the text; a learned candidate's question replaces these as it does the customer's other links.
 */
export function defangedLinkRanges(text: string): [number, number][] {
  const folded = foldFullWidth(text);
  const dots = new RegExp(`\\.|${DEFANGED_DOT}`, 'i');
  const ranges = matchesOf(folded, DEFANGED_LINK);
  for (const m of folded.matchAll(DEFANGED_HOST)) {
    const labels = m.groups!.host!.split(dots);
    const tld = labels[labels.length - 1]!.toLowerCase();
    if (!(/^[a-z]{2,24}$/.test(tld) && !FILE_EXTENSIONS.has(tld)) && !WHOLE_IPV4.test(labels.join('.'))) continue;
    // A regular expression's pattern for a host (^www[.]example[.]com$), anchored: a filter, not a link (review 44b).
    if (folded.charAt(m.index - 1) === '^' && folded.charAt(m.index + m[0].length) === '$') continue;
    // With the scheme before it (https://example[.]com/…), which the link check would otherwise take alone.
    const scheme = DEFANGED_HOST_SCHEME.exec(folded.slice(Math.max(0, m.index - 16), m.index));
    ranges.push([m.index - (scheme?.[0].length ?? 0), m.index + m[0].length]);
  }
  const merged: [number, number][] = [];
  for (const [start, rawEnd] of ranges.sort(([a], [b]) => a - b)) {
    const end = start + withoutClosingAfter(folded.slice(start, rawEnd)).length;
    const last = merged[merged.length - 1];
    if (last && start < last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

// An honorific in the letters a link ends with: they are the sentence's, glued to the link (…/guide山田様へ).
const HONORIFIC_IN_TAIL = /様(?![式子々相態])|さま|さん|殿(?!下)/u;

/**
 * The links of `text` ({@link URL_PATTERN}) that no other rule may take a part of, each without the run of letters
 * beyond ASCII it ends with when an honorific stands in that run: a link glued to a name (https://example.com/a山田様)
 * kept the name. A path in Japanese without one stays whole (https://ja.wikipedia.org/wiki/東京都).
 */
function linkRanges(text: string): [number, number][] {
  return matchesOf(text, URL_PATTERN).map(([start, end]): [number, number] => {
    // Walked back a character at a time: linear, however long the link.
    let tail = end;
    while (tail > start && text.charCodeAt(tail - 1) > 0x7f) tail--;
    return tail < end && HONORIFIC_IN_TAIL.test(text.slice(tail, end)) ? [start, tail] : [start, end];
  });
}

/**
 * A defanged link without the sentence's punctuation after it, nor the closing brackets around it: `[hxxp://evil[.]com]`
 * keeps its `]` (review 44b: the link took it, and the question read `[[URL]`); one its own brackets open stays.
 */
function withoutClosingAfter(link: string): string {
  // Counted once and walked back from the end: a link of a million `]` is read in one pass.
  const count = (c: string) => link.split(c).length - 1;
  const open = { ']': count('['), '}': count('{') };
  const closed = { ']': count(']'), '}': count('}') };
  let end = link.length;
  for (;;) {
    while (end > 0 && '.,;:!?'.includes(link.charAt(end - 1))) end--;
    const last = link.charAt(end - 1);
    if ((last !== ']' && last !== '}') || open[last] >= closed[last]) return link.slice(0, end);
    closed[last]--;
    end--;
  }
}

/** The index of the first of `spans` (disjoint, in order) that ends after `at`; `spans.length` when none does. */
function firstEndingAfter(spans: readonly Span[], at: number): number {
  let low = 0;
  let high = spans.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (spans[middle]!.end > at) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * A test of whether a range overlaps any of `ranges` (which may overlap each other), by a binary search over them in
 * order of start with the furthest end reached so far.
 */
function overlapTest(ranges: [number, number][]): (start: number, end: number) => boolean {
  const sorted = [...ranges].sort(([a], [b]) => a - b);
  const furthestEnd: number[] = [];
  for (const [, e] of sorted) furthestEnd.push(Math.max(e, furthestEnd[furthestEnd.length - 1] ?? -1));
  return (start, end) => {
    // The last range that starts before `end`: it or one before it overlaps exactly when the furthest end passes `start`.
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[middle]![0] < end) low = middle + 1;
      else high = middle;
    }
    return low > 0 && furthestEnd[low - 1]! > start;
  };
}

/**
 * The IP addresses in `text` that can locate someone: {@link IPV6} candidates node:net accepts, with a digit in them
 * (`a::b` in code is not an address), and {@link IPV4} matches that are not a version or a section number, leaving out
 * {@link NOT_ANYONES_ADDRESS}. An IPv4 address inside an IPv6 one (::ffff:203.0.113.7) goes with it. A version word
 * right before decides for a version; then a port or prefix length after, or an address word before, for an address;
 * then the shape of a version (1.8.0.251), the words of one after (or later, 以降) or a verb of updating before.
 */
function ipRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const [start, end] of matchesOf(text, IPV6)) {
    const candidate = text.slice(start, end);
    if (/\d/.test(candidate) && isIPv6(candidate) && !NOT_ANYONES_ADDRESS.check(candidate, 'ipv6')) found.push([start, end]);
  }
  for (const [start, end] of matchesOf(text, IPV4)) {
    if (found.some(([s, e]) => start >= s && end <= e)) continue;
    const after = text.slice(end, end + 24);
    if (VERSION_BEFORE.test(text.slice(Math.max(0, start - 12), start)) || SECTION_AFTER.test(after)) continue;
    const address = ADDRESS_AFTER.test(after) || ADDRESS_BEFORE.test(text.slice(Math.max(0, start - 32), start));
    if (!address && (VERSION_SHAPED.test(text.slice(start, end)) || VERSION_AFTER.test(after) || versionWordsBefore(text, start))) continue;
    if (!NOT_ANYONES_ADDRESS.check(text.slice(start, end), 'ipv4')) found.push([start, end]);
  }
  return found;
}

/**
 * Whether the words right before four dotted numbers at `start` make them a version: a verb of changing software
 * ({@link VERSION_VERB_BEFORE}) with no network setting between, or a list whose item before is a version or a section
 * ({@link VERSION_LIST_BEFORE}). Reads at most 48 characters before, so a long text stays linear.
 */
function versionWordsBefore(text: string, start: number): boolean {
  const from = Math.max(0, start - 48);
  const before = text.slice(from, start);
  const verb = VERSION_VERB_BEFORE.exec(before);
  if (verb && !NETWORK_WORD.test(verb[1] ?? verb[2] ?? '')) return true;
  const list = VERSION_LIST_BEFORE.exec(before);
  // An item cut by the window's start may be the tail of an address.
  return list !== null && (list.index > 0 || from === 0) && !WHOLE_IPV4.test(list[1]!);
}

/**
 * Whether dash-joined groups ({@link LICENCE_KEY}) are a key: letters and digits both, not one repeated character per
 * group (a format, AAAA-1111-BBBB), not three groups of four capitals or four digits (a part number), and, when written in small letters, at least two groups that mix them, as
 * generated keys do; a file name or a phrase in small letters (backup-2024-0115, plug-and-play-2024) has whole words
 * and numbers for groups.
 */
function looksLikeKey(candidate: string): boolean {
  if (!/[0-9]/.test(candidate) || !/[A-Za-z]/.test(candidate)) return false;
  const groups = candidate.split('-');
  // ABCD-1234-EFGH is a part or model number (see PRODUCT_CODE_LABEL).
  if (groups.length === 3 && groups.every((group) => /^(?:[A-Z]{4}|\d{4})$/.test(group))) return false;
  // AAAA-1111-BBBB describes the format of a key, as XXXX-XXXX-XXXX-XXXX does.
  if (groups.every((group) => /^(.)\1*$/.test(group))) return false;
  // AWS4-HMAC-SHA256 names how a request is signed, which an answer about signed requests must keep.
  if (groups.some((group) => ALGORITHM_WORD.test(group))) return false;
  if (!/[a-z]/.test(candidate)) return true;
  return groups.filter((group) => /[0-9]/.test(group) && /[A-Za-z]/.test(group)).length >= 2;
}

/**
 * Whether four-letter groups ({@link LETTER_KEY}) are a key: not a format (each group one letter repeated, XXXX-…) and
 * not one group written again and again (ABCD-ABCD-ABCD-ABCD, a sample).
 */
function looksLikeLetterKey(candidate: string): boolean {
  const groups = candidate.split('-');
  return !groups.every((group) => /^(.)\1*$/.test(group)) && new Set(groups).size > 1;
}

/**
 * The log-in names after "account", アカウント, ユーザー名 or ログイン名 ({@link EN_ACCOUNT_LOGIN}, {@link JA_ACCOUNT_LOGIN}):
 * after a separator any value but a word of the answer ({@link NOT_A_LOGIN}); right after the word only one shaped
 * like a log-in ({@link LOGIN_SHAPED}: taro.yamada, taro_y, jsmith2), as "account settings" is text.
 */
function accountLoginRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const pattern of [EN_ACCOUNT_LOGIN, JA_ACCOUNT_LOGIN]) {
    for (const m of text.matchAll(pattern)) {
      const value = m[2]!;
      if (namesNoOne(text, value, m.indices![2]![0])) continue;
      if (!m[1] && !LOGIN_SHAPED.test(value)) continue;
      found.push(m.indices![2]!);
    }
  }
  return found;
}

/**
 * Streets written without a house number before their town ({@link EN_STREET_NO_NUMBER}), without the sentence's
 * words before the street name, and none with a word of product text ({@link NOT_A_STREET_WORD}).
 */
function unnumberedStreetRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const m of text.matchAll(EN_STREET_NO_NUMBER)) {
    const words = m[0].split(/([ \t]+)/);
    let start = m.index;
    while (words.length > 3 && NOT_A_STREET_NAME_START.has(words[0]!.toLowerCase())) start += words.shift()!.length + words.shift()!.length;
    if (words.some((word) => NOT_A_STREET_WORD.has(word.toLowerCase()) || NOT_A_STREET_NAME_START.has(word.toLowerCase()))) continue;
    found.push([start, m.index + m[0].length]);
  }
  return found;
}

/**
 * The log-in names after their label: Customer ID:, User name:, ログインID：, お客様ID：, LINE ID：
 * ({@link EN_LOGIN}, {@link JA_LOGIN}, {@link LINE_LOGIN}): a value shaped like an id ({@link ID_SHAPED}), one that is
 * the field's whole value ({@link FIELD_END}) or one the sentence goes on after as after a name
 * ({@link CLAUSE_AFTER_LOGIN}), and not one that names no one ({@link namesNoOne}).
 */
function labelledLoginRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const [start, end] of [...groupsOf(text, EN_LOGIN), ...groupsOf(text, JA_LOGIN), ...groupsOf(text, LINE_LOGIN)]) {
    const value = text.slice(start, end);
    if (namesNoOne(text, value, start)) continue;
    FIELD_END.lastIndex = end;
    CLAUSE_AFTER_LOGIN.lastIndex = end;
    if (ID_SHAPED.test(value) || FIELD_END.test(text) || CLAUSE_AFTER_LOGIN.test(text)) found.push([start, end]);
  }
  return found;
}

/**
 * Whether a log-in-shaped value at `start` names no one: a word of the answer ({@link NOT_A_LOGIN}), an abbreviation
 * (e.g.), a range of characters (A-Z), an account the system is installed with ({@link BUILT_IN_ACCOUNTS}), or an
 * official LINE account (an id after @ and a LINE label), which a company publishes for its customers to find.
 */
function namesNoOne(text: string, value: string, start: number): boolean {
  const lower = value.toLowerCase();
  if (NOT_A_LOGIN.has(lower) || BUILT_IN_ACCOUNTS.has(lower) || NOT_A_LOGIN_ABBREVIATION.test(value) || CHARACTER_RANGE.test(value)) return true;
  return text[start - 1] === '@' && LINE_LABEL_BEFORE_AT.test(text.slice(Math.max(0, start - 24), start));
}

/**
 * Whether a labelled number at [start, end) is the length of the id rather than one (10-digit, 8-20 characters, 8-10桁):
 * see {@link LENGTH_VALUE}.
 */
function isLength(text: string, start: number, end: number): boolean {
  const value = text.slice(start, end);
  return LENGTH_VALUE.test(value) && (/[A-Za-z]/.test(value) || LENGTH_UNIT_AFTER.test(text.slice(end, end + 12)));
}

/**
 * The log-in names after a bare "Login:" or "ID:" ({@link EN_BARE_LOGIN}, {@link BARE_ID_LOGIN}): a value shaped like a
 * log-in ({@link LOGIN_SHAPED}), or after "Login:" a word in small letters that ends the line; never a word of the
 * answer ({@link NOT_A_LOGIN}) or an abbreviation (e.g.).
 */
function bareLoginRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const pattern of [EN_BARE_LOGIN, BARE_ID_LOGIN]) {
    for (const m of text.matchAll(pattern)) {
      const value = m[1]!;
      const [start, end] = m.indices![1]!;
      if (namesNoOne(text, value, start)) continue;
      const endsLine = /^[ \t]*(?:\r?\n|$)/.test(text.slice(end, end + 8));
      if (LOGIN_SHAPED.test(value) || (pattern === EN_BARE_LOGIN && /^[a-z]+$/.test(value) && endsLine)) found.push([start, end]);
    }
  }
  return found;
}

/**
 * Whether the words after a French, German, Spanish or Italian title ({@link EU_TITLE}) at [start, end) are a surname:
 * not another title or an article ({@link NOT_A_SURNAME}), and not the first word of a sentence run on after a title
 * used as a salutation ({@link SENTENCE_OPENERS}, or an elided J'ai, N'hésitez, C'est, Qu'il).
 */
function isTitledName(text: string, start: number, end: number): boolean {
  const value = text.slice(start, end);
  const words = value.split(/[ \t]+/);
  const first = words[0]!.toLowerCase();
  if (NOT_A_SURNAME.has(first) || !isPersonName(value)) return false;
  const opener = SENTENCE_OPENERS.has(first) || /^(?:j|n|c|qu|s)['’]/.test(first);
  return !(opener && (words.length > 1 || /^[ \t]+\p{L}/u.test(text.slice(end, end + 2))));
}

/**
 * Whether the words before 先生 at [start, end) in a match of {@link JA_HONORIFIC} are no name because 先生 is the
 * common noun there: a group or an audience follows it, or a school or a clinic stands before it ({@link TEACHERS_AFTER},
 * {@link INSTITUTION_BEFORE_TEACHER}). Other honorifics are left to {@link honorificNameRange}.
 */
function isTeachersAsWord(text: string, start: number, end: number): boolean {
  const after = text.slice(end, end + 6);
  if (!/^[ 　]?先生/u.test(after)) return false;
  return TEACHERS_AFTER.test(after) || INSTITUTION_BEFORE_TEACHER.test(text.slice(start, end));
}

// 殿 as part of a word or a place: 御殿場, 宮殿, 神殿, 沈殿 (by the character before it) and 殿堂, 殿場 (a kanji after it, but
// 宛: 山田殿宛). 貴殿 is "you": 貴 is in {@link NOT_A_NAME}.
const DONO_WORD_BEFORE = /[御宮神沈拝本社宝仏寝湯]$/u;
const DONO_WORD_AFTER = /^[ 　]?殿(?!宛)[\p{Script=Han}々]/u;

/**
 * Whether the honorific after a match of {@link JA_HONORIFIC} ending at `end` is 殿 inside a word (御殿場, 宮殿, 殿堂):
 * then the kanji before it name a place or a building, not a person (review s48-r3b: 御殿場店 lost 御).
 */
function isDonoInWord(text: string, end: number): boolean {
  const after = text.slice(end, end + 3);
  if (!/^[ 　]?殿/u.test(after)) return false;
  return DONO_WORD_AFTER.test(after) || (after.startsWith('殿') && DONO_WORD_BEFORE.test(text.slice(end - 1, end)));
}

// A kana reading in brackets after a word in kanji: 核酸塩基（かくさんえんき）, 同君連合（どうくんれんごう）.
const KANA_READING_OPEN = /[\p{Script=Han}々][ 　]?[（(][\p{Script=Hiragana}\p{Script=Katakana}ー・ 　]{0,30}$/u;
const KANA_READING_CLOSE = /^[\p{Script=Hiragana}\p{Script=Katakana}ー・ 　]{0,30}[）)]/u;

/**
 * Whether [start, end) lies inside a kana reading of a word in kanji (核酸塩基（かくさんえんき）): the さん or くん there is
 * part of the word's sound (review s48-r3b), not an honorific. A name in brackets after 様 (お子様（はなこちゃん）) stays one.
 */
function isKanaReading(text: string, start: number, end: number): boolean {
  const open = KANA_READING_OPEN.exec(text.slice(Math.max(0, start - 40), start));
  return open !== null && !/^[様殿氏君]/u.test(open[0]) && KANA_READING_CLOSE.test(text.slice(end, end + 40));
}

// A company's legal form: what it stands beside before 様 or 御中 is a company, not a person (株式会社XYZ様, （株）ABC様,
// 有限会社山田商事様, XYZ Inc.様).
const COMPANY_FORM_BEFORE = /(?:株式会社|有限会社|合同会社|合資会社|合名会社|[（(][株有][）)]|[㈱㈲])[ 　]?$/u;
const COMPANY_FORM_WITHIN = /株式会社|有限会社|合同会社|合資会社|合名会社|[㈱㈲]/u;
/** A legal form alone, written apart from the company's name (株式会社 サンプル商事様). */
const COMPANY_FORM_ONLY = /^(?:株式会社|有限会社|合同会社|合資会社|合名会社|[㈱㈲])$/u;
// A Latin company's legal form or group word as its last word (ABC Corporation様, XYZ GmbH様, Sample Trading Ltd様);
// LATIN_HONORIFIC takes no dot, so `Inc.様` never reaches it.
const LATIN_COMPANY_FORM = /(?:^|[ 　])(?:Inc|Corp|Corporation|Co|Company|Ltd|Limited|LLC|LLP|PLC|GmbH|AG|SA|SAS|SARL|BV|NV|KK|Pty|Holdings|Group)$/u;
// Co and SA are also names (Jose Co, a Filipino surname; KIM SA, a Korean given name): they are a legal form only after
// two capitalised words or more (ABC Trading Co) or after & (Smith & Co), see {@link isAfterCompanyWords}.
const LATIN_SHORT_FORM = /(?:^|[ 　])(?:Co|SA)$/u;
// Words that stand before a name, not in a company's name (Dear KIM SA様).
const BEFORE_A_NAME = /^(?:dear|hi|hello|mr|mrs|ms|miss|dr|attn|to)\.?:?$/iu;
/**
 * How far back the start of a company's name is looked for before a match of {@link JA_HONORIFIC}, which takes at
 * most eight letters of a word: a longer name (株式会社サンプルトレーディング様) is matched from its middle. Bounded, so
 * that each match looks back a fixed length however long the run of letters (a text of 100,000 kanji).
 */
const COMPANY_NAME_REACH = 32;
const NAME_LETTER = new RegExp(`^${KANJI_KANA}$`, 'u');

/**
 * Where the word holding `start` begins: the letters of a name (kanji, katakana) right before it, up to
 * {@link COMPANY_NAME_REACH} code units of them. Read a letter at a time: a pattern anchored at the end was polynomial
 * (recheck).
 */
function wordStart(text: string, start: number): number {
  let from = start;
  while (from > 0 && start - from < COMPANY_NAME_REACH) {
    // A kanji beyond the BMP (𠮷) is two code units.
    const low = text.charCodeAt(from - 1);
    const high = from > 1 ? text.charCodeAt(from - 2) : 0;
    const width = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? 2 : 1;
    if (!NAME_LETTER.test(text.slice(from - width, from))) break;
    from -= width;
  }
  return from;
}

/**
 * Whether the word at [start, end), taken from the beginning of its run of letters ({@link wordStart}), is a company's:
 * after its legal form or with one.
 */
function isCompanyWord(text: string, start: number, end: number): boolean {
  if (personAfterDepartment(text, start, end) !== undefined) return false;
  const from = wordStart(text, start);
  return COMPANY_FORM_BEFORE.test(text.slice(Math.max(0, from - 8), from)) || COMPANY_FORM_WITHIN.test(text.slice(from, end));
}

/**
 * Where a person's name begins after a department or a branch written in the same run of letters as the words before
 * it ({@link DEPARTMENT_IN_WORD}): 株式会社サンプル商事営業部山田様 names 山田, and the company before the department
 * stays (audit s49 B1 HIGH 3: the legal form kept the whole run, 山田 with it). The run is read from its start
 * ({@link wordStart}), as the match of {@link JA_HONORIFIC} may begin inside the department (カスタマーセンター) or
 * after it; none when no letter follows the last department (株式会社サンプル商事営業部様, 営業部長様) or a legal form
 * does (サービスセンター株式会社様: the department's words are the company's name).
 */
function personAfterDepartment(text: string, start: number, end: number): number | undefined {
  const from = wordStart(text, start);
  let after: number | undefined;
  for (const m of text.slice(from, end).matchAll(DEPARTMENT_IN_WORD)) after = from + m.index + m[0].length;
  // The name may be written apart from the department (営業部 山田様): the space stays.
  while (after !== undefined && after < end && (text[after] === ' ' || text[after] === '　')) after++;
  if (after === undefined || after >= end || COMPANY_FORM_WITHIN.test(text.slice(after, end))) return undefined;
  return after;
}

/**
 * Whether the name an honorific follows at [start, end) is a company's (after or with its legal form), not a person's.
 * Two words are a company and a person (XYZ株式会社 営業部 田中様 names 田中): only a single word counts, read from the
 * start of its run of letters, as the match may begin inside a long name (株式会社サンプル商事様 was matched from 会社…
 * and became 株式[氏名]様: audit s49 H4, MED 6); a Latin name counts by its last word (ABC Corporation様). Two
 * words in Japanese are {@link honorificNameRange}'s.
 */
function isCompanyName(text: string, start: number, end: number): boolean {
  const name = text.slice(start, end).trim();
  if (LATIN_COMPANY_FORM.test(name)) return !LATIN_SHORT_FORM.test(name) || isAfterCompanyWords(text, start, name);
  if (/[ 　]/u.test(name)) return false;
  return isCompanyWord(text, start, end);
}

/**
 * The person in a match of {@link JA_HONORIFIC} at [start, end) that {@link isCompanyName} reads as a company's: the
 * name between the company and a title ({@link personAfterCompanyOrTitle}); none otherwise (株式会社サンプル商事様).
 */
function personInCompanyName(text: string, start: number, end: number): [number, number][] {
  if (/[ 　]/u.test(text.slice(start, end))) return [];
  const title = titleAtEnd(text.slice(start, end));
  return personAfterCompanyOrTitle(text, start, title === undefined ? end : end - title.length, title) ?? [];
}

/**
 * Whether the Co or SA that ends `name`, matched at `start`, follows a company's name ({@link LATIN_SHORT_FORM}): two
 * capitalised words or more, or &, before it, read on the name and the 40 code units before it (bounded, and split
 * rather than matched from the end, so that a long text stays linear).
 */
function isAfterCompanyWords(text: string, start: number, name: string): boolean {
  const before = `${text.slice(Math.max(0, start - 40), start)}${name.slice(0, -2)}`.split(/[ 　]+/u).filter((word) => word !== '');
  const [previous, last] = before.slice(-2);
  if (last === '&') return true;
  const capitalised = (word: string | undefined) => word !== undefined && /^[A-Z0-9]/.test(word) && !BEFORE_A_NAME.test(word);
  return before.length >= 2 && capitalised(previous) && capitalised(last);
}

/**
 * The name in a match of {@link JA_HONORIFIC} at [start, end): none when it is a role or a group ({@link isCommonNoun})
 * or a job title alone (社長様, 院長先生); without the title when one stands between the name and the honorific
 * (山田部長様: 山田), unless what stands before the title is a department (営業部長様); without a role written apart
 * before it (担当 田中様: 田中).
 */
function honorificNameRange(text: string, start: number, end: number): [number, number][] {
  // A role before the name, written apart (担当 田中様, 窓口 佐藤様): the name is the second word.
  const role = /^([^ 　]+)[ 　]+(?=[^ 　])/u.exec(text.slice(start, end));
  if (role) {
    const first = role[1]!;
    // A legal form written apart from the company's name (株式会社 サンプル商事様) names no one.
    if (COMPANY_FORM_ONLY.test(text.slice(wordStart(text, start), start + first.length))) return [];
    // A company before the name (株式会社サンプル商事 山田様), read from the start of its word, or a title (代表取締役
    // 山田太郎様, 部長 山田様), which stays as one after the name does (山田部長様): the name is the second word.
    if (isCommonNoun(first) || isTitleWord(first) || endsWithCompanyWord(first) || isCompanyWord(text, start, start + first.length)) {
      return honorificNameRange(text, start + role[0].length, end);
    }
  }
  // A department before the name in the same word (営業部山田様): the name is what follows it.
  let nameStart = personAfterDepartment(text, start, end) ?? start;
  // Only titles after the branch or the department (山田支店長代行様): they are its head's, and the name, if any,
  // stands before them (山田; 大阪 of 大阪支店長代行様 is the place).
  if (nameStart > start && titleAtEnd(text.slice(nameStart, end)) === text.slice(nameStart, end)) nameStart = start;
  const value = text.slice(nameStart, end);
  // A name glued before a job word (田中配達員さん): the name goes, the job stays.
  const beforeJob = nameBeforeJob(value);
  if (beforeJob !== undefined) return [[nameStart, nameStart + beforeJob]];
  // A job or a service (配達員さん, 運転代行様) names no one, a title after it or not.
  if (isCommonNoun(value)) return [];
  const title = titleAtEnd(value);
  const nameEnd = title === undefined ? end : nameStart + value.slice(0, value.length - title.length).replace(/[ 　]+$/u, '').length;
  // A company or a title before the name in the same run (サンプル商事山田部長様, 代表取締役山田太郎様).
  const afterCompany = personAfterCompanyOrTitle(text, nameStart, nameEnd, title);
  if (afterCompany !== undefined) return afterCompany;
  // A company before the honorific (みずほ銀行様, 三井物産様) names no one either.
  if (title === undefined) return endsWithCompanyWord(value) ? [] : [[nameStart, end]];
  // A long title leaves the match too few letters for the whole name (佐藤代表取締役社長様 is matched from 藤): the
  // kanji before the match in the same run are the name's, up to what a name holds; not after a department, whose
  // run is the branch's (大阪支店長代行様).
  const from = nameStart === start && nameEnd > nameStart ? wordStart(text, nameStart) : nameStart;
  if (from < nameStart && nameEnd - from <= 6 && /^[\p{Script=Han}々]+$/u.test(text.slice(from, nameEnd))) {
    return isNameBeforeTitle(text.slice(from, nameEnd), title) ? [[from, nameEnd]] : [];
  }
  return isNameBeforeTitle(text.slice(nameStart, nameEnd), title) ? [[nameStart, nameEnd]] : [];
}

/**
 * How many letters of a name stand before the job word that ends `value` (田中配達員: 2), or undefined when no job word
 * ends it or what is before it names no one: nothing, a trade (郵便), a department (営業), a company (ヤマト運輸) or
 * anything but two to four kanji.
 */
function nameBeforeJob(value: string): number | undefined {
  const job = JOB_WORDS.find((word) => value.endsWith(word));
  if (job === undefined) return undefined;
  const name = value.slice(0, value.length - job.length).replace(/[ 　]+$/u, '');
  if (!/^[\p{Script=Han}々]{2,4}$/u.test(name)) return undefined;
  if (WORK_BEFORE_JOB.has(name) || SERVICES_BEFORE_STAND_IN.includes(name) || isCommonNoun(name) || DEPARTMENT.test(name) || isTitleWord(name)) return undefined;
  if (endsWithCompanyWord(name) || PLACE_BEFORE_NAME.test(name) || JOB_WORDS.some((word) => name.endsWith(word))) return undefined;
  return name.length;
}

/** Whether `word` is a job title, or titles and a department alone (代表取締役社長, 営業部長): no one's name. */
function isTitleWord(word: string): boolean {
  let rest = word;
  // At most three titles in a row (代表取締役副社長): bounded, whatever the word.
  for (let i = 0; i < 3; i++) {
    const title = JOB_TITLES.find((t) => rest.endsWith(t));
    if (title === undefined) break;
    rest = rest.slice(0, rest.length - title.length);
    if (rest === '' || DEPARTMENT.test(rest)) return true;
  }
  return false;
}

/**
 * Whether the letters before a job title (山田 of 山田部長様) name a person: not a role, a department or another title
 * (営業部長様, 代表取締役社長様), nor the place a branch is named by before the title of its head (大阪支店長様).
 */
function isNameBeforeTitle(name: string, title: string): boolean {
  if (name === '' || isCommonNoun(name) || DEPARTMENT.test(name) || isTitleWord(name)) return false;
  // The title may go on after the head's (支店長代行) or open with a department (大阪営業部長): the place still names it.
  const headOfPlace = [...BRANCH_HEAD_TITLES].some((head) => title.startsWith(head)) || DEPARTMENT_OPENING_TITLE.test(title);
  return !(headOfPlace && PLACE_OF_BRANCH.test(name));
}

/**
 * The job title that ends `word` (山田部長: 部長), of one word or several: the titles before its last and a department
 * before them belong to it (山田顧問弁護士: 顧問弁護士, 佐藤代表取締役社長: 代表取締役社長, 田中営業部長: 営業部長,
 * 山田部長代行: 部長代行), so that the name is what stands before them all (review s50: 山田顧問 was read as the name).
 * Undefined when no title ends the word.
 */
function titleAtEnd(word: string): string | undefined {
  let rest = word;
  // At most three titles in a row (代表取締役副社長): bounded, whatever the word.
  for (let i = 0; i < 3; i++) {
    const title = lastTitle(rest);
    if (title === undefined) break;
    rest = rest.slice(0, rest.length - title.length);
  }
  if (rest.length === word.length) return undefined;
  const department = DEPARTMENT_BEFORE_TITLE.exec(rest);
  if (department) rest = rest.slice(0, department.index);
  return word.slice(rest.length);
}

/**
 * The one job title that ends `word`, the longest ({@link JOB_TITLES}), unless a common surname takes its first letter
 * and leaves a shorter title ({@link SURNAMES_BEFORE_SHORTER_TITLE}: 山本部長 is 山本 and 部長). The surname must open the
 * word or follow a space, kana, a Latin letter or a company (日本生命山本部長); after another kanji the two letters may
 * end a place (関西本部長), and the longer title stays.
 */
function lastTitle(word: string): string | undefined {
  const title = JOB_TITLES.find((t) => word.endsWith(t));
  if (title === undefined) return undefined;
  const shorter = title.slice(1);
  if (!JOB_TITLES.includes(shorter)) return title;
  const before = word.slice(0, word.length - shorter.length);
  if (!SURNAMES_BEFORE_SHORTER_TITLE.has(before.slice(-2))) return title;
  const ahead = before.slice(0, -2);
  return ahead === '' || !/[\p{Script=Han}々]$/u.test(ahead) || endsWithCompanyWord(ahead) ? shorter : title;
}

/** Whether `word` ends in a word of a company's name ({@link COMPANY_WORDS}: みずほ銀行, 第一生命, 三井物産). */
function endsWithCompanyWord(word: string): boolean {
  return COMPANY_WORDS.some((company) => word.endsWith(company));
}

/**
 * Where a company's name ends inside the run of letters that holds [start, end) (株式会社サンプル商事山田, サンプル商事山田):
 * after its last company word ({@link COMPANY_NAME_END}) with a letter before it (or with a name in kana or Latin letters
 * before the run: みずほ銀行山田), or, after a legal form, where its
 * katakana end and kanji begin (株式会社サンプル山田). None when nothing marks the end (株式会社山田: the company may be
 * 山田's).
 */
function companyNameEnd(text: string, start: number, end: number): number | undefined {
  const from = wordStart(text, start);
  const run = text.slice(from, end);
  let boundary: number | undefined;
  // A company word opening the run names no company, but it ends a name written in kana or Latin letters before the
  // run (みずほ銀行渋谷支店長様, りそな銀行山田部長様; review s50 B1).
  const named = from > 0 && /[\p{Script=Hiragana}\p{Script=Katakana}ー\p{Script=Latin}]/u.test(text.charAt(from - 1));
  for (const m of run.matchAll(COMPANY_NAME_END)) if (m.index > 0 || named) boundary = m.index + m[0].length;
  if (COMPANY_FORM_WITHIN.test(run) || COMPANY_FORM_BEFORE.test(text.slice(Math.max(0, from - 8), from))) {
    // The kanji at the end of the run, a character beyond the BMP (𠮷) counted as one.
    let kanji = run.length;
    while (kanji > 0 && /[\p{Script=Han}々\uD800-\uDFFF]/u.test(run.charAt(kanji - 1))) kanji--;
    if (kanji > 0 && /[\p{Script=Katakana}ー\p{Script=Latin}]/u.test(run.charAt(kanji - 1)) && (boundary === undefined || kanji > boundary)) boundary = kanji;
  }
  return boundary === undefined ? undefined : from + boundary;
}

/**
 * The person in a run of letters that names a company or a title before them: after the company's name
 * ({@link companyNameEnd}) when a job title follows the name (株式会社サンプル商事山田部長様: 山田), after the titles that
 * open the run or follow the company (代表取締役山田太郎様, サンプル商事代表取締役山田太郎様: 山田太郎). `nameEnd` is where the
 * title after the name begins, or the match's end when `title` is undefined. Undefined when neither stands before the
 * name; none when what is left is no name (株式会社サンプル商事営業部長様, 株式会社サンプル商事大阪支店長様).
 */
function personAfterCompanyOrTitle(text: string, start: number, nameEnd: number, title: string | undefined): [number, number][] | undefined {
  const boundary = companyNameEnd(text, start, nameEnd);
  let nameStart = boundary ?? wordStart(text, start);
  // A space between the company and the name (東京ガス 佐藤課長様): the name starts after it (bug review B3b).
  while (boundary !== undefined && nameStart < nameEnd && /\s/u.test(text.charAt(nameStart))) nameStart++;
  let leading = false;
  // At most three titles in a row (代表取締役副社長): bounded, whatever the run.
  for (let i = 0; i < 3; i++) {
    const lead = LEADING_TITLES.find((t) => text.startsWith(t, nameStart) && nameStart + t.length <= nameEnd);
    if (lead === undefined) break;
    nameStart += lead.length;
    leading = true;
  }
  // Without a title either side, the letters after a company word are still the company's (サンプル商事販売様).
  if (!leading && (boundary === undefined || title === undefined)) return undefined;
  const name = text.slice(nameStart, nameEnd);
  if (!/^[\p{Script=Han}々\uD800-\uDFFF]{1,6}$/u.test(name) || (leading && name.length < 2)) return [];
  if (title === undefined ? isCommonNoun(name) || DEPARTMENT.test(name) || isTitleWord(name) : !isNameBeforeTitle(name, title)) return [];
  // A place between the company and the name names a branch (株式会社サンプル商事東京山田部長様): it stays.
  const place = boundary === undefined ? undefined : PLACE_BEFORE_NAME.exec(name)?.[0];
  if (place !== undefined && place.length < name.length) nameStart += place.length;
  return [[nameStart, nameEnd]];
}

/**
 * The names in hiragana before an honorific ({@link HIRAGANA_GIVEN_NAME}, {@link KANJI_HIRAGANA_NAME}), with the
 * surname in kanji before them: not a word of the letter ({@link NOT_A_HIRAGANA_NAME}, {@link HIRAGANA_PHRASE},
 * {@link HIRAGANA_HONORIFIC_WORDS}) and not ending in a particle.
 */
function hiraganaNameRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const pattern of [HIRAGANA_GIVEN_NAME, KANJI_HIRAGANA_NAME]) {
    for (const m of text.matchAll(pattern)) {
      const kana = m[2]!;
      const withHonorific = kana + m[3]!;
      if (NOT_A_HIRAGANA_NAME.has(kana) || HIRAGANA_PHRASE.test(kana) || PARTICLE_END.test(kana)) continue;
      if (HIRAGANA_HONORIFIC_WORDS.some((word) => withHonorific.endsWith(word))) continue;
      if (m[1] && isCommonNoun(m[1])) continue;
      found.push([m.indices![1]![0], m.indices![2]![1]]);
    }
  }
  return found;
}

/** Whether the kanji after 担当の ({@link STAFF_MENTION}) are a person's name rather than a word for staff or a team. */
function isStaffName(value: string): boolean {
  return !STAFF_WORDS.has(value) && !isCommonNoun(value) && !DEPARTMENT.test(value) && !JOB_TITLES.includes(value);
}

/** Whether capitalised words after a thanks or a sign-off ({@link EN_THANKS}) are a name, not a word of the phrase. */
function isThankedName(value: string): boolean {
  const words = value.toLowerCase().split(/[ \t]+/);
  return !words.some((word) => NOT_A_SMALL_NAME.has(word)) && isOwnName(value) && isPersonName(value);
}

/**
 * Whether groups of three ({@link SHORT_KEY}) are a key: not digits only (a phone or tracking number), not a format
 * (XXX-XXX-XXX-XXX), in small letters only as {@link looksLikeKey} takes them, and in capitals letters only unless
 * every group is a month or a weekday (JAN-FEB-MAR-APR).
 */
function looksLikeShortKey(candidate: string): boolean {
  const groups = candidate.split('-');
  if (groups.every((group) => /^\d+$/.test(group)) || groups.every((group) => /^(.)\1*$/.test(group))) return false;
  if (/[a-z]/.test(candidate)) return looksLikeKey(candidate);
  return /\d/.test(candidate) || !groups.every((group) => CALENDAR_WORDS.has(group));
}

/**
 * Whether words in quotes before an honorific, or a display name, are a person's name: not a role or a group (ご担当者,
 * 皆), not a team, a service or a company ({@link ORGANISATION_WORDS}: XYZ Support), judged outside brackets.
 */
function isPersonName(value: string): boolean {
  const trimmed = value.replace(/^[ 　]+|[ 　]+$/g, '');
  if (trimmed === '' || isCommonNoun(trimmed) || NOT_AN_EN_NAME.has(trimmed.toLowerCase())) return false;
  const outsideBrackets = trimmed.replace(/[(（[][^()（）[\]]*[)）\]]/g, ' ');
  return !outsideBrackets.split(/[\s,]+/).some((word) => ORGANISATION_WORDS.has(word.toLowerCase().replace(/^\W+|\W+$/g, '')));
}

/**
 * The names in the From, To and Cc lines of a forwarded or quoted header block ({@link PEOPLE_HEADER}): in a line
 * that carries an address, or one that stands in a run of header lines with a date or subject line, or under a
 * forward marker. Each person's display name is taken, quoted ("Yamada, Taro") or before `<address>`, `[mailto:…]`
 * or `(…)`; addresses are left to the e-mail rule. Read line by line, so a long text stays linear.
 */
function headerNameRanges(text: string): [number, number][] {
  const lines = linesOf(text);
  const isHeader = (i: number) => i >= 0 && i < lines.length && (PEOPLE_HEADER.test(lines[i]!.line) || BLOCK_HEADER.test(lines[i]!.line));
  const inBlock: boolean[] = new Array<boolean>(lines.length).fill(false);
  for (let i = 0; i < lines.length; ) {
    if (!isHeader(i)) {
      i++;
      continue;
    }
    let j = i;
    while (isHeader(j)) j++;
    const block = (i > 0 && FORWARD_MARKER.test(lines[i - 1]!.line)) || lines.slice(i, j).some(({ line }) => BLOCK_HEADER.test(line));
    for (let k = i; k < j; k++) inBlock[k] = block;
    i = j;
  }
  const found: [number, number][] = [];
  lines.forEach(({ start, line }, i) => {
    const label = PEOPLE_HEADER.exec(line);
    if (!label) return;
    const value = line.slice(label[0].length);
    if (!inBlock[i] && !/[@＠]|<[^<>]*>/.test(value)) return;
    for (const [s, e] of displayNames(value)) {
      if (isPersonName(value.slice(s, e))) found.push([start + label[0].length + s, start + label[0].length + e]);
    }
  });
  return found;
}

/** The lines of `text`, each without its line end, with the index where it starts. */
function linesOf(text: string): { start: number; line: string }[] {
  const lines: { start: number; line: string }[] = [];
  for (let start = 0; start <= text.length; ) {
    const next = text.indexOf('\n', start);
    const end = next < 0 ? text.length : next;
    lines.push({ start, line: text.slice(start, end).replace(/\r$/, '') });
    if (next < 0) break;
    start = next + 1;
  }
  return lines;
}

/**
 * The names in the lines a mail client writes above a quoted reply: "On …, Taro Yamada <taro@…> wrote:", "2026年11月3日(月)
 * 10:02 山田太郎 <taro@…>:", "Am … schrieb Taro Yamada <…>:", "山田太郎 <taro@…>のメール:", also when the client wrapped
 * the line before its end. Each line is read once, and only when it is at most ATTRIBUTION_MAX_CHARS long.
 */
function attributionNameRanges(text: string): [number, number][] {
  const lines = linesOf(text);
  const unquoted = (i: number) => {
    const { start, line } = lines[i]!;
    const prefix = LINE_QUOTE_PREFIX.exec(line)![0].length;
    return { start: start + prefix, text: line.slice(prefix) };
  };
  const found: [number, number][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.line.length > ATTRIBUTION_MAX_CHARS) continue;
    const own = unquoted(i);
    const alone = attributionWriter(own.text);
    if (alone) {
      found.push([own.start + alone[0], own.start + alone[1]]);
      continue;
    }
    // Clients wrap a long attribution ("On …, Taro Yamada <" / "taro@…> wrote:"): the name is on the first line.
    if (i + 1 >= lines.length || lines[i + 1]!.line.length > ATTRIBUTION_MAX_CHARS || !DATED_ATTRIBUTION.test(own.text)) continue;
    const joined = attributionWriter(`${own.text} ${unquoted(i + 1).text}`);
    if (joined && joined[0] < own.text.length) found.push([own.start + joined[0], own.start + Math.min(joined[1], own.text.length)]);
  }
  return found;
}

/**
 * Where the writer's name is in one attribution line (its quote marks removed), or undefined when the line is none.
 * A name followed by an address is taken as the client wrote it; one without must look like a name (capitalised
 * words, kanji or katakana), so that "The customer wrote:" or "On success the tool writes:" stay; the Japanese "…のメール:"
 * and Gmail's Japanese line count only with an address, as "エラーのメール:" is prose.
 */
function attributionWriter(line: string): [number, number] | undefined {
  const parts = attributionParts(line);
  if (!parts) return undefined;
  const who = line.slice(parts.whoStart, parts.whoEnd);
  const name = writerName(who);
  if (!name) return undefined;
  const value = who.slice(name.start, name.end);
  if (!name.withAddress && (parts.needsAddress || !looksLikeWriter(value))) return undefined;
  if (value.length > 60 || value.split(/[ \t　]+/).length > 5 || !/\p{L}/u.test(value) || !isPersonName(value)) return undefined;
  return [parts.whoStart + name.start, parts.whoStart + name.end];
}

/** Where the sender part of an attribution line starts and ends (name and address), after its date and before its marker. */
function attributionParts(line: string): { whoStart: number; whoEnd: number; needsAddress: boolean } | undefined {
  const colon = TRAILING_COLON.exec(line);
  const verb = colon ? VERB_BEFORE_NAME.exec(line) : null;
  if (colon && verb && /\d/.test(line.slice(0, verb.index))) return { whoStart: verb.index + verb[0].length, whoEnd: colon.index, needsAddress: false };
  const tailStart = Math.max(0, line.length - ATTRIBUTION_END_CHARS);
  const end = ATTRIBUTION_END.exec(line.slice(tailStart));
  let headEnd: number;
  let needsAddress: boolean;
  if (end) {
    headEnd = tailStart + end.index;
    needsAddress = JA_MAIL_MARKER.test(end[0]);
  } else if (colon && GMAIL_JA_ATTRIBUTION.test(line)) {
    headEnd = colon.index;
    needsAddress = true;
  } else {
    return undefined;
  }
  const head = line.slice(0, headEnd);
  if (!DATED_ATTRIBUTION.test(head)) return { whoStart: 0, whoEnd: headEnd, needsAddress };
  const dateEnd = dateEndIn(head);
  if (dateEnd === undefined) return undefined;
  return { whoStart: dateEnd + AFTER_DATE.exec(head.slice(dateEnd))![0].length, whoEnd: headEnd, needsAddress };
}

/** Where the date of an attribution line ends: after its last time, or its last year when it gives no time. */
function dateEndIn(head: string): number | undefined {
  let end: number | undefined;
  for (const m of head.matchAll(TIME_TOKEN)) end = m.index + m[0].length;
  if (end !== undefined) return end;
  for (const m of head.matchAll(YEAR_TOKEN)) end = m.index + m[0].length;
  return end;
}

/**
 * The display name in the sender part of an attribution line: before the address (`Name <a@b>`, `Name (<a@b>)`,
 * `Name [mailto:a@b]`), inside its quotes, without a trailing honorific; in brackets after a bare address (`a@b (Name)`).
 */
function writerName(who: string): { start: number; end: number; withAddress: boolean } | undefined {
  const address = ADDRESS_PART.exec(who);
  let start = 0;
  let end = address ? address.index : who.length;
  if (address && /^[\s(（<＜[]*$/.test(who.slice(0, address.index))) {
    const bracket = /^[^\s()（）]+[ \t]*[(（]([^()（）\n]{1,60})[)）]/d.exec(who.slice(address.index));
    if (!bracket) return undefined;
    [start, end] = bracket.indices![1]!.map((i) => address.index + i) as [number, number];
  }
  while (start < end && /[\s"'“”]/u.test(who[start]!)) start++;
  while (end > start && /[\s"'“”]/u.test(who[end - 1]!)) end--;
  const honorific = /[ 　]*(?:様|さん|殿)$/u.exec(who.slice(start, end));
  if (honorific) end -= honorific[0].length;
  return end > start ? { start, end, withAddress: address !== null } : undefined;
}

/** Whether words before "wrote:" without an address look like a name: capitalised words, or kanji and katakana. */
function looksLikeWriter(value: string): boolean {
  if (WRITER_NAME_JA.test(value)) return !isCommonNoun(value);
  return WRITER_NAME_LATIN.test(value) && !NOT_A_WRITER.has(value.split(/[ \t]/)[0]!.toLowerCase()) && isOwnName(value);
}

/**
 * The lines of each signature block ({@link SIGNATURE_START}) that is one for sure (after the sig dash) or holds a sign
 * of contact details ({@link CONTACT_MARKER}), each line without its quote marks. A block ends after SIGNATURE_LINES
 * lines or where the quote depth changes (the quoted mail below a reply's signature).
 */
function signatureLines(text: string): { start: number; text: string }[][] {
  const blocks: { sure: boolean; lines: { start: number; text: string }[] }[] = [];
  let block: (typeof blocks)[number] | undefined;
  let depth = 0;
  for (const { start, line } of linesOf(text)) {
    const prefix = LINE_QUOTE_PREFIX.exec(line)![0];
    const lineDepth = (prefix.match(/[>＞]/g) ?? []).length;
    const unquoted = line.slice(prefix.length);
    if (SIGNATURE_START.test(unquoted)) {
      block = { sure: SIG_DASH.test(unquoted), lines: [] };
      blocks.push(block);
      depth = lineDepth;
    } else if (block && lineDepth === depth && block.lines.length < SIGNATURE_LINES) {
      block.lines.push({ start: start + prefix.length, text: unquoted });
    } else {
      block = undefined;
    }
  }
  return blocks.filter(({ sure, lines }) => sure || lines.some((line) => CONTACT_MARKER.test(line.text))).map(({ lines }) => lines);
}

/**
 * The numbers in a signature block ({@link signatureLines}) with 7 to 15 digits, however they are grouped; dates,
 * counts with thousands separators, dotted quads (left to the IP rule) and numbers after a version word are not taken.
 */
function signatureNumberRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const lines of signatureLines(text)) {
    for (const line of lines) {
      for (const m of line.text.matchAll(SIGNATURE_NUMBER)) {
        const digits = digitCount(m[0]);
        if (digits < 7 || digits > 15 || DATE_SHAPED.test(m[0]) || THOUSANDS_SHAPED.test(m[0]) || WHOLE_IPV4.test(m[0])) continue;
        if (VERSION_BEFORE.test(line.text.slice(Math.max(0, m.index - 12), m.index))) continue;
        found.push([line.start + m.index, line.start + m.index + m[0].length]);
      }
    }
  }
  return found;
}

/**
 * The writer's name on a line of its own in a signature block ({@link signatureLines}): romaji with the surname in
 * capitals, as Japanese business cards write it (Taro YAMADA, YAMADA Taro), or kanji in two groups (山田 太郎), or kanji
 * after a department or a job title (サポート部　山田太郎, 営業部 部長 山田 太郎). Company, product and department lines
 * (ACME Japan, XYZ Cloud, 営業部 第二課) are no names.
 */
function signatureNameRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const lines of signatureLines(text)) {
    for (const line of lines) {
      const name = signatureName(line.text);
      if (name) found.push([line.start + name[0], line.start + name[1]]);
    }
  }
  return found;
}

/** Where the writer's name is in one signature line ({@link signatureNameRanges}), or undefined when it holds none. */
function signatureName(line: string): [number, number] | undefined {
  if (line.length > 60) return undefined;
  const romaji = SIGNATURE_ROMAJI_NAME.exec(line);
  if (romaji) {
    const words = romaji[1]!.split(/[ \t]+/);
    if (words.every((word) => ROMAJI_WORD.test(word) && !NOT_A_ROMAJI_NAME.has(word.toLowerCase()))) return romaji.indices![1];
    return undefined;
  }
  const tokens = [...line.matchAll(/[^ \t　]+/gu)];
  let first = 0;
  while (first < tokens.length && isDepartmentOrTitle(tokens[first]![0])) first++;
  const rest = tokens.slice(first);
  const kanji = (token: RegExpExecArray, pattern: RegExp) => pattern.test(token[0]) && !isPlaceOrGroup(token[0]);
  const named =
    (rest.length === 2 && kanji(rest[0]!, KANJI_NAME_PART) && kanji(rest[1]!, KANJI_NAME_PART)) || (rest.length === 1 && first > 0 && kanji(rest[0]!, KANJI_FULL_NAME));
  if (!named) return undefined;
  const start = rest[0]!.index;
  const last = rest[rest.length - 1]!;
  return [start, last.index + last[0].length];
}

/** Whether a token of a signature line names a department (サポート部, IT部, 第二課) or a job title (部長). */
function isDepartmentOrTitle(token: string): boolean {
  return DEPARTMENT.test(token) || JOB_TITLES.includes(token) || /[^\p{Script=Han}々]部$/u.test(token);
}

/** Whether a kanji token of a signature line is a prefecture, a ward, a role or a company word rather than a name. */
function isPlaceOrGroup(token: string): boolean {
  return WHOLE_PREFECTURE.test(token) || /[区]$|株式|会社|法人/u.test(token) || isCommonNoun(token) || DEPARTMENT.test(token) || JOB_TITLES.includes(token);
}

/**
 * The display names in a header's list of people (`"Yamada, Taro" <taro@…>, Hanako Sato; 山田 太郎 [mailto:…]`), as
 * ranges of `value`: entries split at commas and semicolons outside quotes and brackets; in each, the quoted name,
 * the name in brackets after an address, or the text before the address part, unless that text is an address itself.
 */
function displayNames(value: string): [number, number][] {
  const found: [number, number][] = [];
  const closing: Record<string, string> = { '"': '"', "'": "'", '“': '”', '<': '>', '[': ']', '(': ')', '（': '）' };
  // A closing character not found once is not found later either: remembering that keeps a line of unclosed
  // brackets linear.
  const unclosed = new Set<string>();
  let entryStart = 0;
  let entryHasText = false;
  let nameEnd = -1;
  let quoted: [number, number] | undefined;
  const trimmed = (s: number, e: number): [number, number] => {
    while (s < e && /\s/.test(value[s]!)) s++;
    while (e > s && /\s/.test(value[e - 1]!)) e--;
    return [s, e];
  };
  const finish = (end: number) => {
    const [s, e] = quoted ?? trimmed(entryStart, nameEnd >= 0 ? nameEnd : end);
    if (e > s && !/[@＠]/.test(value.slice(s, e))) found.push([s, e]);
    quoted = undefined;
    nameEnd = -1;
    entryHasText = false;
  };
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    const close = closing[c];
    // An apostrophe inside a name (O'Brien) opens nothing: quotes count only where an entry starts.
    const isQuote = c === '"' || c === "'" || c === '“';
    if (close !== undefined && !(isQuote && entryHasText) && !unclosed.has(close)) {
      const end = value.indexOf(close, i + 1);
      if (end < 0) {
        unclosed.add(close);
      } else {
        if (isQuote) quoted = trimmed(i + 1, end);
        // The old form puts the name in brackets after the address: taro@example.jp (Taro Yamada).
        else if ((c === '(' || c === '（') && /[@＠]/.test(value.slice(entryStart, i))) quoted = trimmed(i + 1, end);
        else if (nameEnd < 0) nameEnd = i;
        entryHasText = true;
        i = end;
        continue;
      }
    }
    if (',;、，；'.includes(c)) {
      finish(i);
      entryStart = i + 1;
    } else if (!/\s/.test(c)) entryHasText = true;
  }
  finish(value.length);
  return found;
}

/**
 * Whether a match of POSTAL_TOWN is a postcode: it carries a country prefix (D-10115) or follows a street address with
 * only a comma or a line break between; a Dutch one (1012 AB), whose letters make it rarer in other text, may also
 * follow any comma or start a line, unless its letters are a unit or a common abbreviation (1024 MB).
 */
function postalCodeBeforeTown(text: string, match: RegExpExecArray, addressEnds: ReadonlySet<number>): boolean {
  const [start] = match.indices![1]!;
  const code = match[1]!;
  if (/^[A-Z]{1,2}-/.test(code)) return true;
  // Only the few characters before the code are read, so a long text with many codes stays linear.
  const before = text.slice(Math.max(0, start - 12), start);
  for (let gap = 0; gap <= before.length; gap++) {
    if (addressEnds.has(start - gap) && /^,?[ \t]*(?:\r?\n[ \t]*)?$/.test(before.slice(before.length - gap))) return true;
  }
  const dutch = /[A-Z]{2}$/.exec(code);
  return dutch !== null && !NOT_A_DUTCH_POSTCODE.has(dutch[0]) && (start === 0 || /(?:^|[\n,])[ \t]*$/.test(before));
}

/**
 * The IBANs in `text`: {@link IBAN}'s matches that pass the mod-97 check, without a trailing group that is not part
 * of one (a year after it).
 */
export function ibanRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const [start, end] of matchesOf(text, IBAN)) {
    // The pattern is greedy: "BE68 5390 0754 7034 2024" takes the year as a fifth group, so shorter readings are tried.
    for (let stop = end; stop > start; stop = text.lastIndexOf(' ', stop - 1)) {
      if (ibanValid(text.slice(start, stop))) {
        found.push([start, stop]);
        break;
      }
    }
  }
  return found;
}

/** ISO 13616: 15 to 34 characters, and the number read with its first four characters moved to the end is 1 mod 97. */
function ibanValid(candidate: string): boolean {
  const compact = candidate.replace(/ /g, '');
  if (compact.length < 15 || compact.length > 34) return false;
  let remainder = 0;
  for (const c of compact.slice(4) + compact.slice(0, 4)) {
    const value = c >= 'A' ? c.charCodeAt(0) - 55 : Number(c);
    remainder = (remainder * (value >= 10 ? 100 : 10) + value) % 97;
  }
  return remainder === 1;
}

/**
 * The account holders written in katakana after a bank account number or after 名義 ({@link HOLDER_AFTER_ACCOUNT},
 * {@link HOLDER_AFTER_LABEL}), but what a form says in the field (カナ, カタカナ) or a word for a role.
 */
function accountHolderRanges(text: string): [number, number][] {
  return [...groupsOf(text, HOLDER_AFTER_ACCOUNT), ...groupsOf(text, HOLDER_AFTER_LABEL)].filter(([s, e]) => isLabelledName(text.slice(s, e)));
}

/**
 * The backup and recovery codes listed after their label ({@link CODE_LIST}), each code on its own, but one followed by
 * a unit ({@link UNIT_AFTER_CODE}).
 */
function listedCodeRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const [listStart, listEnd] of groupsOf(text, CODE_LIST)) {
    for (const m of text.slice(listStart, listEnd).matchAll(LISTED_CODE_EACH)) {
      const [start, end] = [listStart + m.index, listStart + m.index + m[0].length];
      if (!UNIT_AFTER_CODE.test(text.slice(end, end + 12))) found.push([start, end]);
    }
  }
  return found;
}

/**
 * The passwords and PINs written after their label ({@link JA_PASSWORD}, {@link EN_PASSWORD}), without the trailing
 * punctuation of the sentence (but what stands inside the quotes or brackets around it: 「Sakura2024!」). A value counts
 * when it looks like a secret, not like a word of the answer: it has a digit or a symbol, is not a lower-case word
 * ("case-sensitive"), a capitalised one ("Wi-Fi"), an algorithm ("SHA-256", "AES256"), a version or a range of lengths
 * ("8-64"). In Japanese text it must also end the sentence or be followed by です or a verb of using it, unless it is
 * shaped as one handed out ({@link looksHandedOut}) and not written as an example (のような); in English not be followed
 * by a unit ("characters"), and right after the word or after "to" be shaped as one handed out.
 */
function passwordRanges(text: string, written: string): [number, number][] {
  const found: [number, number][] = [];
  for (const [pattern, japanese] of [[JA_PASSWORD, true], [EN_PASSWORD, false]] as const) {
    for (const m of text.matchAll(pattern)) {
      const { quote, value: raw, loose } = m.groups!;
      const [start, rawEnd] = m.indices!.groups!.value!;
      // A full-width colon or a comma ends the value (Xy7kQ2pL：taro@example.com): the address after it is no part of
      // the password, and taken with it, it overlapped the address and went nowhere. The colon is read as written: the
      // folded text holds it as an ASCII one, which a password may hold.
      const stop = FIELD_STOP.exec(written.slice(start, rawEnd));
      const value = passwordValue(stop ? raw!.slice(0, stop.index) : raw!, quote!, stop ? stop[0] : text.charAt(rawEnd));
      const end = start + value.length;
      if (!(looksLikeSecret(value) || casedAtRandom(value)) || NOT_A_PASSWORD_WORD.test(value)) continue;
      const after = text.slice(end, end + 16);
      const handedOut = looksHandedOut(value);
      if (japanese && !quote && !JA_AFTER_PASSWORD.test(after) && !(handedOut && !EXAMPLE_AFTER_PASSWORD.test(after))) continue;
      if (!japanese && EN_AFTER_PASSWORD_RULE.test(text.slice(rawEnd, rawEnd + 16))) continue;
      if (!japanese && loose !== undefined && !handedOut) continue;
      found.push([start, end]);
    }
  }
  return found;
}

// A full-width colon ends a password; a comma only before an address or a placeholder ("Xy7k,Q2pL9" is one password,
// bug review B3 of session 49: its end leaked). The look-ahead reads to the next comma only, so each stretch between
// commas is read once.
const FIELD_STOP = /：|,(?=[^,]*[@＠]|\[)/;

/**
 * The password in a matched run: up to the closing quote or bracket when it was opened by one (a password may end in
 * "!" or "."), else the run without the sentence's punctuation after it.
 */
function passwordValue(raw: string, quote: string, next: string): string {
  const closing = CLOSING_QUOTE[quote];
  if (closing !== undefined) {
    if (next === closing) return raw;
    const at = raw.lastIndexOf(closing);
    if (at > 0) return raw.slice(0, at);
  }
  return raw.replace(/[.,;:!?)\]}>"'”’]+$/, '');
}

/**
 * Whether a value after a password's label is shaped as a password handed out rather than a word of the answer, so
 * that whatever follows it, it goes: letters and digits mixed, or a symbol among them (Xk9#mP2q, Sakura2024!); six
 * digits or more (482913); or six letters or more whose case changes as no word's does (XkPqMzRt, not MyPage or
 * MacBookPro: at most two letters stand alone in their case). Not documentation's example of one (abc123, 12345678,
 * xxxx: see {@link isPlaceholderSecret}).
 */
function looksHandedOut(value: string): boolean {
  if (isPlaceholderSecret(value)) return false;
  if (/[0-9]/.test(value) ? /[A-Za-z]/.test(value) || /^[0-9]{6,}$/.test(value) : false) return true;
  if (/[^A-Za-z0-9]/.test(value)) return /[A-Za-z0-9]/.test(value);
  return casedAtRandom(value);
}

/** Six letters or more whose case changes as no word's does: three letters or more stand alone in their case. */
function casedAtRandom(value: string): boolean {
  return value.length >= 6 && /^[A-Za-z]+$/.test(value) && (value.match(/(?<=[a-z])[A-Z](?=[a-z])|(?<=[A-Z])[a-z](?=[A-Z])/g) ?? []).length >= 3;
}

/**
 * The secrets in `text`: a pasted Authorization header's credential, a private key block's body, the secrets in links
 * ({@link linkSecretRanges}), keys and tokens of a known shape ({@link KEY_SHAPED}), a Bearer token, and a secret after
 * its label. The wider finds first, so they win: the whole credential of an Authorization line, the whole value of a
 * link's parameter (X-Amz-Credential=AKIA…%2F20260301%2F…).
 */
function secretRanges(text: string): [number, number][] {
  // The sentence's full stop after a value is no part of it.
  const valueOf = (pattern: RegExp) =>
    groupsOf(text, pattern)
      .map(([s, e]): [number, number] => [s, s + text.slice(s, e).replace(/\.+$/, '').length])
      .filter(([s, e]) => looksLikeSecretValue(text.slice(s, e)));
  return [
    ...groupsOf(text, AUTHORIZATION_HEADER).flatMap(([s, e]) => credentialRange(text, s, e)),
    ...privateKeyRanges(text),
    ...linkSecretRanges(text),
    ...matchesOf(text, KEY_SHAPED).filter(([s, e]) => /[0-9]/.test(text.slice(s, e)) && !isPlaceholderSecret(text.slice(s, e))),
    ...valueOf(BEARER),
    ...valueOf(EN_SECRET_LABEL),
    ...valueOf(JA_SECRET_LABEL),
  ];
}

/**
 * Whether a value given as a secret (after its label, a secret's parameter name or Bearer) is one rather than a word
 * of the answer or a placeholder: eight characters or more with letters and digits, six digits or more (a one-time
 * code), or sixteen characters or more; and not a placeholder (xxxxxxxxxxxxxxxx, YOUR_API_KEY, sk-xxxx…: see
 * {@link isPlaceholderSecret}).
 */
function looksLikeSecretValue(value: string): boolean {
  if (!/^[A-Za-z0-9_\-.~+/=%]+$/.test(value)) return false;
  if (/^(.)\1*$/.test(value) || /^[A-Z][A-Z_]*$/.test(value) || /^(?:your|my)[_-]/i.test(value)) return false;
  const letters = /[A-Za-z]/.test(value);
  const digits = /[0-9]/.test(value);
  const shaped = (value.length >= 8 && letters && digits) || (!letters && /^[0-9]{6,}$/.test(value)) || value.length >= 16;
  return shaped && !isPlaceholderSecret(value);
}

/**
 * Whether a key or token is documentation's stand-in for one: after a service's prefix (sk-, ghp_, sk_live_…), each
 * part between separators is made of runs of three or more letters or digits that are one character repeated or count
 * up (sk-xxxxxxxx…, 00000000-0000-…, xxxx-xxxx, 1234567890abcdef), or is a word of a placeholder, one of them a word
 * only placeholders use (YOUR-TOKEN-HERE, replace-with-your-token, EXAMPLE_TOKEN_123; not secret-123, which someone
 * may have chosen). A generated key has random runs, and runs of one or two characters (a1b2c3…) prove nothing. AWS
 * writes its documentation's keys with EXAMPLE at the end (AKIAIOSFODNN7EXAMPLE).
 */
function isPlaceholderSecret(value: string): boolean {
  if (AWS_EXAMPLE_KEY.test(value)) return true;
  const rest = value.replace(KEY_PREFIX, '');
  // Most values tried are generated keys: a run of one or two letters or digits against the other kind (a1b2…) is
  // neither a word nor filler, and finding one first spares splitting thousands of keys in a long text.
  if (SHORT_RUN.test(rest)) return false;
  let parts = 0;
  let words = 0;
  let marked = false;
  // Part by part, so that the first part of neither kind ends the reading of a long value.
  for (const [part] of rest.matchAll(/[^-_.~+/=%]+/g)) {
    parts++;
    const word = part.toLowerCase();
    if (PLACEHOLDER_WORDS.has(word)) {
      words++;
      marked ||= PLACEHOLDER_MARKERS.has(word);
    } else if (!(part.match(/[A-Za-z]+|[0-9]+/g) ?? []).every((run) => run.length >= 3 && (/^(.)\1*$/.test(run) || countsUp(run)))) {
      return false;
    }
  }
  return parts > 0 && (words === 0 || marked);
}

/** Whether each character of a run is the one after the character before it (abcdef, 1234567890, 9 before 0). */
function countsUp(run: string): boolean {
  for (let i = 1; i < run.length; i++) {
    const before = run.charCodeAt(i - 1);
    const code = run.charCodeAt(i);
    if (code !== before + 1 && !(run[i - 1] === '9' && run[i] === '0')) return false;
  }
  return true;
}

/**
 * Whether a value whose name or place does not say it is a secret (key=, code=, a path segment after /reset/) looks
 * generated: ten characters or more, letters and digits mixed at least three times (8f3a9c…, Q2x1ZTk4…), as a word,
 * a slug or a date is not (oauth2-callback, windows-11-24h2, 2026-03-01); or six to ten digits, a one-time code.
 */
function looksRandom(value: string): boolean {
  if (/^[0-9]{6,10}$/.test(value)) return true;
  if (value.length < 10 || !/^[A-Za-z0-9_\-.~+/=%]+$/.test(value)) return false;
  return (value.match(/[A-Za-z](?=[0-9])|[0-9](?=[A-Za-z])/g) ?? []).length >= 3;
}

/**
 * The credential of an Authorization header at [start, end): the rest of its line without trailing spaces and
 * punctuation, when it holds a token (a run of eight token characters with letters and digits, or sixteen); not a
 * placeholder such as `<your token>`.
 */
function credentialRange(text: string, start: number, end: number): [number, number][] {
  const value = text.slice(start, end).replace(/[ \t,;\\]+$/, '');
  const token = value.match(/[A-Za-z0-9_\-.~+/=]{8,}/g)?.some((run) => looksLikeSecretValue(run));
  return token ? [[start, start + value.length]] : [];
}

/**
 * The bodies of private key blocks ({@link PRIVATE_KEY_BEGIN}): on the marker's line (a key pasted as one line), or the
 * lines after it (quoted or not), armour headers and the blank line after them included, up to the first line that is
 * not base64.
 */
function privateKeyRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const m of text.matchAll(PRIVATE_KEY_BEGIN)) {
    const after = m.index + m[0].length;
    PEM_SAME_LINE.lastIndex = after;
    const sameLine = PEM_SAME_LINE.exec(text);
    if (sameLine && PEM_RUN.test(sameLine[1]!)) {
      found.push(sameLine.indices![1]!);
      continue;
    }
    let at = after;
    let headers = false;
    for (PEM_HEADER_LINE.lastIndex = at; PEM_HEADER_LINE.test(text); PEM_HEADER_LINE.lastIndex = at) {
      at = PEM_HEADER_LINE.lastIndex;
      headers = true;
    }
    PEM_BLANK_LINE.lastIndex = at;
    if (headers && PEM_BLANK_LINE.test(text)) at = PEM_BLANK_LINE.lastIndex;
    let bodyStart = -1;
    let bodyEnd = -1;
    let encoded = false;
    for (PEM_BODY_LINE.lastIndex = at; ; ) {
      const line = PEM_BODY_LINE.exec(text);
      if (!line) break;
      if (bodyStart < 0) bodyStart = headers ? text.indexOf('\n', after) + 1 : line.indices![1]![0];
      bodyEnd = line.indices![1]![1];
      encoded ||= PEM_RUN.test(line[1]!);
    }
    if (encoded) found.push([bodyStart, bodyEnd]);
  }
  return found;
}

/**
 * The secrets in the links of `text` ({@link URL_PATTERN}): the values of secret parameters ({@link SECRET_PARAMETER};
 * {@link RANDOM_PARAMETER} when {@link looksRandom}) in the query and the fragment, and random path segments after a
 * word of a reset, sign-in or invitation link ({@link SECRET_PATH_WORDS}). Only the value goes.
 */
function linkSecretRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const [start, end] of matchesOf(text, URL_PATTERN)) {
    const link = text.slice(start, end);
    const queryAt = link.search(/[?#]/);
    const pathEnd = queryAt < 0 ? link.length : queryAt;
    const pathStart = link.indexOf('/', link.indexOf('//') + 2);
    if (pathStart >= 0 && pathStart < pathEnd) {
      let afterWord = false;
      let at = pathStart + 1;
      for (const segment of link.slice(pathStart + 1, pathEnd).split('/')) {
        const value = tokenPrefix(segment);
        if (afterWord && looksRandom(value)) found.push([start + at, start + at + value.length]);
        const words = segment.toLowerCase().split(/[-_.]+/);
        if (words.some((word) => SECRET_PATH_WORDS.has(word)) || SECRET_PATH_WORDS.has(words.join(''))) afterWord = true;
        at += segment.length + 1;
      }
    }
    if (queryAt < 0) continue;
    for (const m of link.slice(queryAt).matchAll(LINK_PARAMETER)) {
      const name = m[1]!.toLowerCase().replace(/[-_.[\]]/g, '');
      const value = tokenPrefix(m[2]!);
      const secret = SECRET_PARAMETER.test(name) ? looksLikeSecretValue(value) : RANDOM_PARAMETER.test(name) && looksRandom(value);
      if (secret) found.push([start + queryAt + m.indices![2]![0], start + queryAt + m.indices![2]![0] + value.length]);
    }
  }
  return found;
}

/** The token characters a link's value or segment starts with, without the sentence's full stop after them. */
function tokenPrefix(value: string): string {
  return (/^[A-Za-z0-9_\-.~+/=%]*/.exec(value)![0]).replace(/\.+$/, '');
}

// Query keys (lower case, without - _ . [ ]) whose value is one customer's order, parcel, invoice, account or log-in
// (?order=4711998123, ?tracknum=1Z…, ?customer_id=…): see {@link linkIdRanges}.
const ID_PARAMETER =
  /^(?:orders?(?:id|no|num|number)?|ordno|tracking(?:id|no|num|number)?|track(?:id|no|num|number)|trknbr|awb|shipment(?:id|no|number)?|invoices?(?:id|no|num|number)?|inv(?:id|no)?|customer(?:id|no|num|number)?|custid|user(?:id|name)?|uid|login|account(?:id|no|number)?|acct(?:id|no)?|member(?:id|no|number)?|booking(?:id|ref|reference|code)?|pnr|reservation(?:id|code)?|rma(?:id|no|number)?|return(?:id|no)|parcel(?:id|no)?|package(?:id)?)$/;
// Query keys of ID_PARAMETER whose value is a log-in, which may hold fewer digits (?user=htanaka9, ?user=h.tanaka); one
// of letters alone is as often a demo account (?user=guest, admin, demo) and stays (bug review R1).
const LOGIN_PARAMETER = /^(?:user(?:id|name)?|uid|login|customer(?:id)?|account(?:id)?|member(?:id)?)$/;
// Path segments (lower case) after which the next one is a customer's record (/orders/4711998123, /inv/…-2026-11.pdf,
// /users/48213): not a help-centre article (/articles/360001234567) or a page of the site, which a knowledge link needs.
const ID_PATH_WORDS = new Set([
  'order', 'orders', 'invoice', 'invoices', 'inv', 'user', 'users', 'account', 'accounts', 'customer', 'customers', 'member', 'members', 'tracking', 'track',
  'shipment', 'shipments', 'return', 'returns', 'rma', 'booking', 'bookings', 'reservation', 'reservations', 'receipt', 'receipts', 'parcel', 'parcels',
  'package', 'packages', 'profile', 'profiles', 'bestellung', 'bestellungen', 'commande', 'commandes', 'pedido', 'pedidos', 'ordine', 'ordini',
]);

/**
 * A customer's ids inside links (security review 19): the value of a query key naming an order, a parcel, an invoice,
 * a customer or a log-in ({@link ID_PARAMETER}: ?order=4711998123), and the path segment after a word for such a record
 * ({@link ID_PATH_WORDS}: /orders/4711998123) when it is shaped like an id ({@link isLinkId}; not a slug such as
 * /account/2fa-setup), its file extension kept. Nothing else of a link: an
 * article's id and the rest of its path stay, so that a knowledge link still leads where it did.
 */
function linkIdRanges(text: string): [number, number][] {
  const found: [number, number][] = [];
  for (const [start, end] of matchesOf(text, URL_PATTERN)) {
    const link = text.slice(start, end);
    const queryAt = link.search(/[?#]/);
    const pathEnd = queryAt < 0 ? link.length : queryAt;
    const pathStart = link.indexOf('/', link.indexOf('//') + 2);
    if (pathStart >= 0 && pathStart < pathEnd) {
      let afterWord = false;
      let at = pathStart + 1;
      for (const segment of link.slice(pathStart + 1, pathEnd).split('/')) {
        const value = tokenPrefix(segment).replace(/\.[A-Za-z0-9]{1,5}$/, '');
        if (afterWord && isLinkId(value)) found.push([start + at, start + at + value.length]);
        afterWord = ID_PATH_WORDS.has(segment.toLowerCase());
        at += segment.length + 1;
      }
    }
    if (queryAt < 0) continue;
    for (const m of link.slice(queryAt).matchAll(LINK_PARAMETER)) {
      const name = m[1]!.toLowerCase().replace(/[-_.[\]]/g, '');
      const value = tokenPrefix(m[2]!);
      if (!ID_PARAMETER.test(name)) continue;
      if (isLinkId(value) || (LOGIN_PARAMETER.test(name) && value.length >= 3 && /[0-9._]/.test(value))) {
        found.push([start + queryAt + m.indices![2]![0], start + queryAt + m.indices![2]![0] + value.length]);
      }
    }
  }
  return found;
}

/**
 * Whether a link's path segment or query value is shaped like a record's id (bug review R1): digits only, four or more
 * (4711998123), or letters and digits with four digits or more (1Z999AA10123456784, C-99812) that are not a page's
 * slug, whose words of four letters or more are joined by hyphens (2fa-setup, 2024-policy, sample-invoice-2024). A slug
 * with six digits or more is a dated file of one customer (hanako-tanaka-2026-11), not a knowledge page.
 */
function isLinkId(value: string): boolean {
  const digits = digitCount(value);
  if (digits < 4) return false;
  if (/^[0-9]+$/.test(value)) return true;
  return digits >= 6 || !value.split(/[-_.]/).some((word) => /^[A-Za-z]{4,}$/.test(word));
}

/** Korean names before 님, 씨 or 고객님 ({@link KO_HONORIFIC}): not a word that takes 님 itself, nor a verb. */
function koreanNameRanges(text: string): [number, number][] {
  // A word that ends in one of them is a job or a group too (배송기사님, 우수고객님).
  const isWord = (value: string) => [...NOT_A_KOREAN_NAME].some((word) => word.length >= 2 && value.endsWith(word));
  return groupsOf(text, KO_HONORIFIC).filter(([s, e]) => !NOT_A_KOREAN_NAME.has(text.slice(s, e)) && !isWord(text.slice(s, e)) && !KOREAN_VERB_ENDING.test(text.slice(s, e)));
}

/** Chinese names before 女士 or 小姐 ({@link ZH_TITLE}), without the greeting's words written before them (尊敬的). */
function chineseTitledNameRanges(text: string): [number, number][] {
  return groupsOf(text, ZH_TITLE).flatMap(([s, e]): [number, number][] => {
    const before = ZH_BEFORE_NAME.exec(text.slice(s, e))?.[0].length ?? 0;
    const name = text.slice(s + before, e);
    return name === '' || NOT_A_CHINESE_NAME.has(name) ? [] : [[s + before, e]];
  });
}

/** Names after a Spanish, French, German, Italian, Portuguese or Dutch greeting ({@link EU_GREETING}). */
function greetedNameRanges(text: string): [number, number][] {
  // A hyphen joins a team's words too (Hallo Support-Team: bug review R1), so each part is looked up.
  return groupsOf(text, EU_GREETING).filter(
    ([s, e]) => !text.slice(s, e).split(/[ \t-]+/).some((word) => NOT_A_GREETED_NAME.has(word.toLowerCase()) || TEAM_WORD_ENDING.test(word.toLowerCase())),
  );
}

/** The first name a reply opens with ({@link NAME_OPENING_REPLY}): not a word a sentence opens with. */
function openingNameRanges(text: string): [number, number][] {
  return groupsOf(text, NAME_OPENING_REPLY).filter(([s, e]) => {
    const word = text.slice(s, e).toLowerCase();
    return !NOT_AN_OPENING_NAME.has(word) && !NOT_AN_EN_NAME.has(word) && !NOT_A_GREETED_NAME.has(word) && !(word.length >= 7 && ADVERB_ENDING.test(word));
  });
}

/**
 * The log-in names in running text ({@link EN_RUNNING_LOGIN}, {@link JA_RUNNING_LOGIN}): not a host name
 * ({@link HOST_NAME}) nor an abbreviation (e.g.).
 */
function runningLoginRanges(text: string): [number, number][] {
  return [...groupsOf(text, EN_RUNNING_LOGIN), ...groupsOf(text, JA_RUNNING_LOGIN)].filter(([s, e]) => {
    const value = text.slice(s, e);
    return !HOST_NAME.test(value) && !NOT_A_LOGIN_ABBREVIATION.test(value);
  });
}

function looksLikeSecret(value: string): boolean {
  if (value.length < 4 || NOT_A_LOGIN.has(value.toLowerCase())) return false;
  if (!/[0-9]|[^A-Za-z0-9]/.test(value)) return false;
  return !(
    /^[a-z]+(?:-[a-z]+)*$/.test(value) ||
    /^[A-Z][a-z]*(?:-[A-Z]?[a-z]*)+$/.test(value) ||
    /^[A-Z]{2,6}[-v]?\d{1,4}(?:\.\d{1,3})*$/.test(value) ||
    /^v?\d+(?:\.\d+)+$/.test(value) ||
    /^\d{1,3}[-–~]\d{1,3}$/.test(value)
  );
}

/**
 * Whether the value at [start, end) after 担当：(担当者：, ご担当：, 【担当】) is one word in katakana: who handles a
 * request is written so when it is a team, a role or a tool (カスタマーサクセス, フロント, オペレーター, チャットボット),
 * while staff are named in kanji, or in katakana in two parts (ジョン・スミス). A name label proper (氏名：, 担当者名：)
 * is not one of these labels, so a name in katakana after it still goes.
 */
function isStaffTeam(text: string, start: number, end: number): boolean {
  return KATAKANA_WORD.test(text.slice(start, end)) && STAFF_LABEL_BEFORE.test(text.slice(Math.max(0, start - 8), start));
}

/** Whether the value after a name label is a name: not what a form says of the field (必須, Required), not a role or a department. */
function isLabelledName(value: string): boolean {
  const compact = value.replace(/[ 　]/g, '');
  return !NOT_A_LABELLED_NAME.has(compact) && !isCommonNoun(value) && !DEPARTMENT.test(compact) && isOwnName(value);
}

/** Whether capitalised words after a self-introduction or a label are a name rather than a word of the text. */
function isOwnName(value: string): boolean {
  const lower = value.toLowerCase();
  const first = lower.split(/[ \t]/)[0]!;
  return !NOT_AN_EN_NAME.has(lower) && ![NOT_AN_OWN_NAME, NOT_A_LOGIN, NOT_AN_EN_NAME].some((words) => words.has(first));
}

/** A label as a pattern that matches it with each word capitalised or not, and in capitals (Post code, POST CODE). */
function anyCapitalisation(label: string): string {
  const words = label.split(' ').map((word) => `[${word[0]!.toUpperCase()}${word[0]!.toLowerCase()}]${word.slice(1)}`);
  return `${words.join(' ')}|${label.toUpperCase()}`;
}

// A character that continues a token: a copy of a removed number has none right before or after it.
const TOKEN_CHAR = /[0-9０-９A-Za-z]/;
// Every removed number is at least this long (eight digits), so its first characters are a key to look it up by.
const COPY_KEY_LENGTH = 8;

/**
 * Where `text` writes one of `numbers` (each at least {@link COPY_KEY_LENGTH} characters) as a whole token, with no
 * {@link TOKEN_CHAR} right before or after it. One pass: the numbers are looked up by their first characters at each
 * token start, and only the lengths written with that start are tried there. An indexOf over the whole text for each
 * distinct number was quadratic in a text with a different phone number every few characters (bug review B3 of
 * session 49: 400,000 characters, 7 s).
 */
function wholeTokenCopies(text: string, numbers: readonly string[]): [number, number][] {
  const found: [number, number][] = [];
  const wanted = new Set(numbers);
  const lengthsByKey = new Map<string, Set<number>>();
  for (const number of wanted) {
    const key = number.slice(0, COPY_KEY_LENGTH);
    const lengths = lengthsByKey.get(key) ?? new Set<number>();
    lengths.add(number.length);
    lengthsByKey.set(key, lengths);
  }
  if (lengthsByKey.size === 0) return found;
  const firsts = new Set([...lengthsByKey.keys()].map((key) => key.charAt(0)));
  for (let at = 0; at + COPY_KEY_LENGTH <= text.length; at++) {
    if (!firsts.has(text.charAt(at)) || (at > 0 && TOKEN_CHAR.test(text.charAt(at - 1)))) continue;
    const lengths = lengthsByKey.get(text.slice(at, at + COPY_KEY_LENGTH));
    if (!lengths) continue;
    for (const length of lengths) {
      if (wanted.has(text.slice(at, at + length)) && !TOKEN_CHAR.test(text.charAt(at + length))) found.push([at, at + length]);
    }
  }
  return found;
}

function occurrencesOf(text: string, needle: string): [number, number][] {
  const found: [number, number][] = [];
  if (!needle.trim()) return found;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) found.push([at, at + needle.length]);
  return found;
}

function matchesOf(text: string, pattern: RegExp): [number, number][] {
  return [...text.matchAll(pattern)].map((m) => [m.index, m.index + m[0].length]);
}

/** The ranges of capture group 1 (patterns with the `d` flag). */
function groupsOf(text: string, pattern: RegExp): [number, number][] {
  return [...text.matchAll(pattern)].flatMap((m) => (m.indices?.[1] ? [m.indices[1]] : []));
}

function digitCount(text: string): number {
  return (text.match(/[0-9０-９]/g) ?? []).length;
}

function toAsciiDigits(text: string): string {
  return text
    .replace(/[０-９]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0))
    .replace(/[〇一二三四五六七八九]/g, (c) => String(KANJI_DIGITS.indexOf(c)))
    .replace(/[^0-9]/g, '');
}

/** The Luhn checksum card numbers carry; keeps long order or tracking numbers from being called card numbers. */
function luhnValid(text: string): boolean {
  const digits = toAsciiDigits(text);
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length >= 13 && sum % 10 === 0;
}

/** A word before 様/さん that addresses a role or a group (お客様, ご担当者様, 皆さん), not a person. */
function isCommonNoun(word: string): boolean {
  const compact = word.replace(/[ 　]/g, '');
  if (NOT_A_NAME.has(compact)) return true;
  // A job or a trade (配達員, 運転代行), unless its ending is a title's (執行役員: 山田執行役員 is a person).
  const titleHoldingEnding = (ending: string) => JOB_TITLES.some((title) => title.length > ending.length && title.endsWith(ending) && compact.endsWith(title));
  if (WORKER_ENDINGS.some((ending) => compact.endsWith(ending) && !titleHoldingEnding(ending))) return true;
  // 「新仕様」「販売店ご担当者様」「以下同様」: a specification, a role or a word at the end is still not a person.
  return NOT_A_NAME_ENDINGS.some((ending) => compact.endsWith(ending)) || [...NOT_A_NAME].some((role) => role.length >= 2 && compact.endsWith(role));
}

/**
 * Where the given names occur: each whole name, written with or without the space between its parts, then each part
 * of two or more characters. Latin names match whole words and keep their case (a surname such as "Rose" or "Long" is
 * also an ordinary word, which lower case rarely is); Japanese names match anywhere, and a surname in kanji takes the
 * given name written right after it (signed 佐藤: 佐藤花子), see {@link givenNameEnd}.
 */
function knownNameMatches(text: string, names: readonly string[]): [number, number][] {
  const variants = new Set<string>();
  // A name in kanji is written surname first: a lone name (signed 佐藤) or the first part of a full one (山田 of 山田
  // 太郎) may have a given name after it that the caller does not know; the whole name and the given name do not.
  const surnames = new Set<string>();
  for (const name of names) {
    const trimmed = name.replace(/["'<>]/g, '').trim();
    if (!trimmed || trimmed.includes('@')) continue;
    const parts = trimmed.split(/[\s　,，、]+/).filter(Boolean);
    variants.add(parts.join(' '));
    if (parts.length > 1) variants.add(parts.join(''));
    surnames.add(parts[0]!);
    for (const part of parts.map(withoutBrackets)) if ([...part].length >= 2 && isNamePart(part)) variants.add(part);
  }
  const found: [number, number][] = [];
  for (const variant of [...variants].sort((a, b) => b.length - a.length)) {
    const latin = /^[\p{Script=Latin}\s'’.-]+$/u.test(variant);
    // A Japanese input method types Latin letters full width (Ｙａｍａｄａ): each letter matches either form.
    const escaped = Array.from(variant, (c) =>
      /[A-Za-z0-9]/.test(c) ? `[${c}${String.fromCharCode(c.charCodeAt(0) + 0xfee0)}]` : c === ' ' ? '[ 　]+' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    ).join('');
    const katakana = /^[\p{Script=Katakana}ー・\s]+$/u.test(variant);
    // A katakana name inside a longer katakana word (アン in アンインストール) is that word, not the name.
    const pattern = latin
      ? new RegExp(`(?<![\\p{Script=Latin}\\p{N}])${escaped}(?![\\p{Script=Latin}\\p{N}])`, 'gu')
      : katakana
        ? new RegExp(`(?<![\\p{Script=Katakana}ー])${escaped}(?![\\p{Script=Katakana}ー])`, 'gu')
        : new RegExp(escaped, 'gu');
    const matches = matchesOf(text, pattern);
    const kanjiName = surnames.has(variant) && /^[\p{Script=Han}々]{2,}$/u.test(variant);
    found.push(...(kanjiName ? matches.map(([start, end]): [number, number] => [start, givenNameEnd(text, end)]) : matches));
  }
  return found;
}

/** A part of a given name without the brackets or quotes around it: `(ACME` → `ACME`. */
function withoutBrackets(part: string): string {
  return part.replace(/^[(（[{“‘]+|[)）\]}”’]+$/gu, '');
}

/**
 * Whether a part of a given name is matched on its own: not a word of a team or a service (Mail Delivery Subsystem,
 * XYZ サポート: "Mail" and "サポート" are words of every answer), not a domain (MySurvey.com), not a sign (&).
 */
function isNamePart(part: string): boolean {
  return /\p{L}/u.test(part) && !ORGANISATION_WORDS.has(part.toLowerCase()) && !NOT_A_NAME.has(part) && !/\.\p{L}{2,}$/u.test(part);
}

/**
 * Where a given name in kanji right after a known surname ends: one to three kanji up to a word in AFTER_A_NAME; a
 * longer run of kanji is a compound word (佐藤商事株式会社), not a given name, and is left alone.
 */
function givenNameEnd(text: string, surnameEnd: number): number {
  let end = surnameEnd;
  while (end < text.length && end - surnameEnd <= 3 && /[\p{Script=Han}々]/u.test(text[end]!)) {
    if (AFTER_A_NAME.some((word) => text.startsWith(word, end))) break;
    end++;
  }
  if (end - surnameEnd > 3) return surnameEnd;
  return end;
}
