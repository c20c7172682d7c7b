/**
 * Payment details and off-channel contacts in a draft that the knowledge does not hold (security review 11). A forged
 * mail can tell the model to add "our new bank account" or "contact our agent on LINE", and the reply goes out from
 * our address to the customer the forger impersonated: the customer pays the forger or talks to them off our channel.
 * Like a phone number ({@link foreignLinks}), each must be in the knowledge the agent found for this answer, compared
 * without width, spaces, hyphens or case; nothing else vouches (not ours, not the customer's, not a trusted domain).
 *
 * What counts:
 * - a Japanese bank account: 普通/当座/貯蓄 (預金)(口座), (普)/(当), 口座(番号) or a branch (新宿支店 No.) and seven or
 *   eight digits, whole or in two groups (765-4321; after a branch only after No. or #: 札幌支店 060-0001 is a
 *   postcode; a group of four first after the type only with 口座 or 番号: 当座 2024-0115 is a date), not an amount
 *   (普通 1000-1500円), and not the customer's own account where we pay them back (ご登録の口座 1234567 への返金) unless
 *   the sentence asks to pay into it or names it as where to pay (ご指定の口座 … へお振込みください, お振込先：ご登録の口座 …);
 *   ゆうちょ's 記号 and 番号 where the sentence names ゆうちょ, a post office or a transfer (an insurance card has them
 *   too; the bank and branch before it are named with it, the number is compared); an account number after its
 *   English label where its sentence names a bank (bank, IBAN, sort code, routing, SWIFT/BIC, beneficiary, wire, 銀行)
 *   and it is not "your (registered) account", or where it is asked to be paid into (pay/transfer/wire … to account,
 *   payments should be made to account): a user's account id in our system is no bank account ("Your new account
 *   number is 12345678", "Your payment to account 88776655 was received"); an IBAN that passes its mod-97 check, in
 *   any case (lower case with eight digits at least, so words do not pass as one); a SWIFT/BIC code only after its
 *   label (eight letters alone are a word; a value in small letters needs a digit, or the label in capitals, a colon
 *   and a country where a BIC has one: "Swift: disabled" is none);
 * - an account in the other languages a reply goes out in (security review 16: ko, vi, es, pt, de, fr, it, ru, th, id,
 *   zh): seven to thirty-four digits, grouped as the country writes them, in the clause of an account or bank word
 *   near it (계좌, rekening, Kontonummer, BLZ, RIB, р/с, 银行卡, a bank's name); cuenta, Konto, compte, conto, conta,
 *   tài khoản, счёт, 账号 and บัญชี are a user's account too, so they count only where the sentence, the one before or
 *   the block above names a bank or a transfer. Not a number another label names nearer (número de cliente 1234567,
 *   주문번호, a phone), an amount, a date, nor the customer's own account where we pay them back (su cuenta bancaria
 *   registrada, Ihr Konto) unless the sentence announces a change or asks to pay;
 * - a crypto address: bech32 (bc1…, tb1…, ltc1…), base58 (1…, 3…, and TRON's T…) that passes its checksum, 0x and
 *   40 hex digits;
 * - a chat or payment handle with its label (LINE, Telegram, WhatsApp, Signal, Skype, WeChat/微信, KakaoTalk, Viber,
 *   PayPay, Venmo, Cash App, Zelle, Alipay/支付宝): an @handle, a Skype live: id or a $cashtag near the label (LINE＠xyz
 *   too), or a plain id or number after the label and a colon (LINE ID: xyz-help2, line id: xyz-help2, LINE (ID:
 *   xyz-help2)), after at/via or "to ID" (Telegram at xyz.refunds, PayPay to ID xyzshop01), an international number
 *   without a colon (WhatsApp +81 90 1234 5678), or between the label and a particle (LINEで xyz-help2 まで,
 *   ID：xyz-help2 までLINEで, LINEの友だち追加は xyz_help2 で検索). A plain id must look like one (a digit, or . _ -
 *   inside), and a word of the sentence (LINE ID: optional, Skype: sign-in), a version (PayPay: v2.3) or a channel
 *   (Signal at ch-36) is none. The label alone ("LINEアプリ", "Skype for
 *   Business", "Signal strength") and "line" in small letters without ID are words;
 * - a remote-access tool (AnyDesk, TeamViewer, RustDesk, Quick Assist…) with an ID of nine or more digits, and a
 *   sentence asking the customer to install or open one or send its ID or password: vouched when the knowledge names
 *   the same tool (the company's own remote-support procedure);
 * - a sentence asking the customer to buy gift cards or to send a card's code, number or a photo of it
 *   ({@link giftCardRequest}). An ask to buy is the scam (buy Apple gift cards and send us the codes) and nothing
 *   vouches for it. An ask only to send is what a seller or issuer of cards asks ("the number on the back of the
 *   card"): the knowledge vouches for it when it asks the same of the same card (its own procedure), and the codes
 *   come back to our own address (a contact the draft names beside it is a detail of its own). "Buy cards only from
 *   official stores" is the advice against the scam, no ask, unless the text asks for codes too.
 *
 * personal-data.ts finds bank accounts, IBANs and LINE ids to remove them from the knowledge base, and keeps an
 * official LINE account (@id) as published; here an official-looking account is exactly what a forger writes, so that
 * exception does not apply.
 */
import { createHash } from 'node:crypto';
import { ibanRanges, lineIdRanges } from '../knowledge/personal-data.js';
import { removeInvisible } from '../mail/invisible.js';

/** What a {@link PaymentDetail} is. */
export type PaymentDetailKind = 'bank-account' | 'iban' | 'swift' | 'crypto' | 'handle' | 'remote-access' | 'remote-access-request' | 'gift-card-request';

/** A payment detail or contact handle found in a text. */
export interface PaymentDetail {
  kind: PaymentDetailKind;
  /** Where it is in the text: what is named, the label with the value where the label makes it one. */
  start: number;
  end: number;
  /** Equal for the same account, address, handle or tool however written; what the knowledge must hold. */
  key: string;
}

/**
 * The text with full-width ASCII as ASCII and the ideographic space as a space: one code unit for one, so a position
 * in it is the same position in the original.
 */
function folded(text: string): string {
  return text.replace(/[\uff01-\uff5e\u3000]/g, (c) => (c === '\u3000' ? ' ' : String.fromCharCode(c.charCodeAt(0) - 0xfee0)));
}

/** A value as values are compared: NFKC, lower case, without whitespace and hyphens. */
function compact(value: string): string {
  return value.normalize('NFKC').toLowerCase().replace(/[\s\-‐‑‒–—―−－]/gu, '');
}

// --- The text as the checks read it ---
/**
 * A text as the draft checks read it ({@link checkedText}), and where each of its code units comes from in the
 * original, so that a finding is named as the original writes it.
 */
export interface CheckedText {
  text: string;
  /** Where the original character behind code unit `i` of `text` starts. */
  from(i: number): number;
  /** Where the original character behind code unit `i` of `text` ends. */
  to(i: number): number;
  /** The original `[from(start), to(end - 1))`: what the text `[start, end)` is read from, as written. */
  quote(start: number, end: number): string;
}

// What may change: a character a reader does not see (removeInvisible's), a digit of another script than ASCII, a run
// of kanji numerals with the digits and single separators between them, markdown marks around a label or a number
// (review 43e: a single * too, and _, ` or a full-width mark before a digit; fix 44k: any _ for a label in italics, ~~,
// and = before a digit). Security review 12: 765\u200b4321, 七六五四三二一 and 𝟕𝟔𝟓 were read as no number.
const MAY_CHANGE = /[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]|(?![0-9])\p{Nd}|[〇一二三四五六七八九]|\*|_|~~|[`＊＿｀=](?=[\p{Nd}〇一二三四五六七八九])/u;
// A number's run: digits of any script and kanji numerals, with a separator and invisible characters between them
// (七\u200b六\u200b五… is one run of seven, not seven of one), or markdown marks right between two digits (review 43f:
// CommonMark renders * within a word, 765**4321**, **7**6**5**…, and a code span, 765`4321`, as 7654321: the marks
// are left out, so 2*1234567*3 reads as nine digits). A mark inside a run always follows a digit, which no opening mark
// of MARKED_NUMBER does: a run is read from one opening at most.
const NUMBER_RUN = String.raw`[〇一二三四五六七八九\p{Nd}](?:(?:[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]*(?:[\-‐‑−－ー・. ][\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]*)?|\*{1,3}|＊{1,3}|\u0060{1,3}|｀{1,3})[〇一二三四五六七八九\p{Nd}])*`;
// The marks a number's run may hold, and the unpaired ones right outside a run that holds some (765**4321**).
const RUN_MARK = /[*＊\u0060｀]/;
const CHANGES = new RegExp(String.raw`[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]|${NUMBER_RUN}`, 'gu');
const KANJI_DIGITS = '〇一二三四五六七八九';
// A label in markdown bold (**口座番号**: 1234567, **Bank:** Mizuho Bank, __口座番号__：…), italics or both
// (*口座番号*:, ***口座番号***:; review 43e): what the reader sees is the label, so the marks are left out and the label
// read as written plainly (review 43d). Only around a short run that starts with a letter (no digit, kanji numeral or
// invisible character, which CHANGES reads) and that a label's colon or table bar follows or ends, and not inside a
// word or a link's path (/__init__:).
// Fix 44k: strikethrough (~~口座番号~~:) and a single underscore's italics too, and one kind of mark inside another
// (**_口座番号_**:, read off one layer a pass by {@link checkedText}): another kind of mark may stand before the opening
// and after the closing.
const BOLD_LABEL = /(?<![\p{L}\p{N}/.:=?&#%-])((?<!\*)\*{1,3}|(?<!_)__?|(?<!~)~~)((?![\p{Default_Ignorable_Code_Point}〇一二三四五六七八九])\p{L}[^*_~\n/]{0,39}?)\1/gu;
// Review 44f: an English label in marks with no colon, the number right after it (Mizuho Bank: **account number**
// 55779911), is read plainly too: the account rules read "account number 55779911" as written.
const AFTER_BOLD_LABEL = /^[*_~]{0,6}(?:[ \t]*(?:[:：|]|\r?\n|$)|[ \t]+(?=[\p{Nd}〇一二三四五六七八九]))/u;
// A number in markdown bold, italics or a code span (みずほ銀行\n**7654321**, 口座番号: `7654321`, _七六五四三二一_;
// review 43e): the reader sees the number, so the marks around it are left out, in full width too (＊＊７６５４３２１＊＊,
// which folds to ASCII only after this reading). The same marks on both sides of a number's run as CHANGES reads it,
// and no digit, kanji numeral or further mark outside them (2*1234567*3 is no number of seven digits); an underscore
// not inside a word either (foo_1234567_bar), as markdown reads it. Each mark is one code unit, and an opening mark
// follows no digit (a backtick's neither), where every mark inside a run does: each run is read from one opening at
// most, so the reading is linear. Fix 44k: strikethrough and highlight (~~7654321~~, ==7654321==) too; a number in
// marks of two kinds (**_7654321_**) is read off one layer a pass ({@link checkedText}).
const MARKED_NUMBER = new RegExp(
  String.raw`(?<![\p{N}〇一二三四五六七八九*＊\\])(\*{1,3}|＊{1,3})(${NUMBER_RUN})\1(?![\p{N}〇一二三四五六七八九*＊])|` +
    String.raw`(?<![\p{L}\p{N}_＿\\])(_{1,2}|＿{1,2})(${NUMBER_RUN})\3(?![\p{L}\p{N}_＿])|` +
    String.raw`(?<![\u0060｀\\\p{N}〇一二三四五六七八九])(\u0060|｀)(${NUMBER_RUN})\5(?![\u0060｀\p{N}〇一二三四五六七八九])|` +
    // (Review 44f: each mark shuts out only itself around it, so one may stand inside the other: ~~==7654321==~~.)
    String.raw`(?<![\\\p{N}〇一二三四五六七八九])(?:(?<!~)(~~)(${NUMBER_RUN})~~(?!~)|(?<!=)(==)(${NUMBER_RUN})==(?!=))(?![\p{N}〇一二三四五六七八九])`,
  'gu',
);
// Kanji numerals are words too (一覧, 一度, 七五三, 〇〇様): a run is a number's only with three of them at least, or
// beside a digit, and never when all are 〇 (a template's blank: 普通 〇〇〇〇〇〇〇).
const KANJI_NUMBER_MIN = 3;

// The ASCII digit of each other script's digit, worked out once: Unicode encodes every script's decimal digits as a
// contiguous run from 0 to 9 (a stability policy), so a digit's value is its distance from the run's start, mod 10.
const digitValues = new Map<number, string>();
const ND = /\p{Nd}/u;
function asciiDigit(cp: number): string {
  let value = digitValues.get(cp);
  if (value === undefined) {
    let start = cp;
    while (start > 0 && ND.test(String.fromCodePoint(start - 1))) start--;
    value = String((cp - start) % 10);
    if (digitValues.size < 4096) digitValues.set(cp, value);
  }
  return value;
}
const invisibleByChar = new Map<string, boolean>();
function isInvisible(ch: string): boolean {
  let known = invisibleByChar.get(ch);
  if (known === undefined) {
    known = removeInvisible(ch).text === '';
    if (invisibleByChar.size < 4096) invisibleByChar.set(ch, known);
  }
  return known;
}

/**
 * `text` as the payment and link checks read it: without the characters a reader does not see (removeInvisible's:
 * zero-width spaces, word joiners, soft hyphens, text-direction controls; the joiners and variation selectors stay),
 * with every script's digits as ASCII (full-width, Arabic-Indic, mathematical bold…), and kanji numerals in a number
 * (七六五四三二一, 〇三‐一二三四‐五六七八) as ASCII digits, and without the marks of a label in markdown bold
 * (`**口座番号**:`). A detail split by an invisible character or written in other digits is the same detail to the
 * customer who reads it. Inline formatting tags and empty comments are left out first (765<b>4321</b>, <b>口座番号</b>,
 * 7654<!-- -->321), and marks nested around a number or a label are read off one layer a pass (**_7654321_**,
 * _**7654321**_, **`7654321`**; fix 44k): every rule after reads the text as it renders. Security review 17: a run of
 * spaces of any kind or tabs is read as one space (765&nbsp;4321 in an HTML mail), a dash or minus sign beside a digit
 * as a hyphen, superscript, subscript and circled digits beside another digit as ASCII, controls as nothing and
 * half-width katakana as full width ({@link READ_PAST}); security review 18: a long mark between digits as a hyphen,
 * a middle dot between digits as a space, a variation selector or combining mark after a digit as nothing, and
 * parenthesized and full-stop digits as the circled ones.
 */
export function checkedText(original: string): CheckedText {
  let reading = withoutInlineTags(original);
  reading = readAlso(original, reading, separatorsRead(reading.text));
  const separated = reading.text;
  for (let pass = 0; pass < MARK_PASSES; pass++) {
    const next = marksAndDigitsRead(reading.text);
    if (next.text === reading.text) break;
    reading = readAlso(original, reading, next);
    // A pass that left no mark standing leaves nothing for the next: most texts are read once. One that changed the
    // text but left out no mark may still have opened some: removing an invisible character right inside the marks
    // (**\u200b7654321\u200b**, **\u200b口座番号**:) makes them the marks of a number or a label (review 44f), so the
    // next pass reads them; a pass that changes nothing ends the reading.
    if (markCount(next.text) === 0) break;
  }
  // An invisible character or a mark left out between two spaces leaves them side by side (765 \u200b 4321): read
  // as one again.
  return reading.text === separated ? reading : readAlso(original, reading, separatorsRead(reading.text));
}

/** `next`, a reading of `reading`'s text, as a reading of `original` (which `reading` reads), or `reading` unchanged. */
function readAlso(original: string, reading: CheckedText, next: CheckedText): CheckedText {
  if (next.text === reading.text) return reading;
  return reading.text === original ? next : composed(original, reading, next);
}

// Security review 17 (HIGH 1): what a reader reads past between a detail's digits, or reads as digits, and the checks
// did not. A run of spaces of any width and tabs (an HTML mail's &nbsp; gives U+00A0; U+202F, thin, figure and
// ideographic spaces, the braille blank, two spaces) reads as one space; a dash or minus sign beside a digit (765–4321,
// 03﹣1234﹣5678, with spaces between too) as a hyphen; superscript, subscript and circled digits beside another such
// digit or between two digits (⁷⁶⁵⁴³²¹, 765⁴³²¹ read as 765 then ⁴³²¹, ⑦⑥⑤④③②①) as ASCII, as NFKC reads them, but
// not one alone beside a number: a step's ① or a footnote's ² touching a phone (①090-1234-5678へ, 03-1234-5678²) would
// make it another number (bug review B3 of session 49, HIGH 1). But a circled digit ending a run of six or seven
// digits is read as the run's last (765432① is the account 7654321 to a reader; session 50): a phone's last group has
// four digits at most and a phone written as one run ten or more, so a ① after a phone still leaves the phone as
// written; after eight digits it would make a Japanese account of nine digits, which is none (口座番号 12345678①
// is read as 12345678 then ①); a superscript stays a power or a footnote (10², 1500³); C0 and C1 controls (but tab, line breaks and NEL) as
// nothing; half-width katakana as full width (Google Playｷﾞﾌﾄｶｰﾄﾞを購入し…), a sound mark with its kana as one letter.
// A dash elsewhere stays (a clause's "— just buy…" is read by its dash), and so does a lone superscript (m², a
// footnote's ¹). Every alternative reads one character or one run of spaces, and each lookaround a run of spaces
// beside one dash or one character, or the few digits before a circled one (read after it, so that only a circled
// digit starts the lookbehind: before it, recheck found the pattern polynomial): linear.
// Security review 18 (session 50, HIGH 2): more forms a reader reads as the number. A katakana long mark (ー, ｰ)
// between two digits is read as a dash (765ー4321: a Japanese IME writes it for the hyphen), a middle dot (・, ･, ·,
// ‧) between two digits as a space (765・4321); a variation selector or a combining mark right after a digit (a
// keycap 7️⃣, an underline 7̲, an accent) as nothing, up to four of them, since the digit is what shows; the
// parenthesized and full-stop digits of one figure (⑺, ⒎) as the circled ones. Only between or after digits: ー in
// a word (カード), a dot between words or a mark on a letter stay as written. Each of these reads one character, or a
// run of at most four marks, beside one digit: linear.
const SPACE_LIKE = '\t \u00a0\u1680\u2000-\u200a\u202f\u205f\u2800\u3000';
// (The full-width hyphen-minus is read already: {@link folded}, and the phone and number readings, take it.)
const DASH = '\u2010-\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63';
const LONG_MARK = '\u30fc\uff70';
const MIDDLE_DOT = '\u00b7\u0387\u2027\u30fb\uff65';
const MARK_AFTER_DIGIT = '\u0300-\u036f\u20d0-\u20ff\ufe00-\ufe0f';
// Circled, parenthesized (⑴…⑼) and full-stop (⒈…⒐) digits: the forms of one figure.
const CIRCLED_DIGIT = '\u2460-\u2468\u2474-\u247c\u2488-\u2490\u24ea\u2776-\u277e\u2780-\u2788\u278a-\u2792';
// Session 51: the forms of ten to twenty (⑩…⑳, ⑽…⒇, ⒑…⒛, ⓫…⓴, ⓾, ❿, ➉, ➓) are read as their two digits where a
// digit form is (⑽⑾⑿⒀ is 10111213 to a reader): one character read as two code units, each mapped to the character
// ({@link readingWith}). Not at the end of a run of six or seven digits, as a lone circled digit is: two more digits
// make a number of eight or nine, read as the run and a step number.
const TWO_DIGIT_FORM = '\u2469-\u2473\u247d-\u2487\u2491-\u249b\u24eb-\u24f4\u24fe\u277f\u2789\u2793';
const DIGIT_FORM = `\u00b2\u00b3\u00b9\u2070\u2074-\u2079\u2080-\u2089${CIRCLED_DIGIT}${TWO_DIGIT_FORM}`;
// Session 51: a circled digit ends a run of six or seven digits written in groups too (765-432①, 765 432①, 76.54.32①):
// one separator between two digits, as an account's digits are grouped ({@link ACCOUNT_DIGITS}), and no digit, or digit
// and separator, before the run.
const RUN_SEPARATOR = ` .\\-${DASH}`;
// Bug review R2 of session 51 (finding 7): not after a postal mark (〒123-4567① is a postcode and a step number).
const POSTAL_MARK = '\u3012\u3020\u3036';
// (The long marks, dots and marks are named groups: the half-width ｰ and ･ elsewhere are read as NFKC reads them.)
const READ_PAST = new RegExp(
  `[${SPACE_LIKE}]{2,}|[${SPACE_LIKE.replace(' ', '')}]|` +
    `(?<=[\\p{N}][${SPACE_LIKE}]*)[${DASH}]|[${DASH}](?=[${SPACE_LIKE}]*[\\p{N}])|` +
    `(?<=\\p{N})[${DIGIT_FORM}](?=\\p{N})|(?<=[${DIGIT_FORM}])[${DIGIT_FORM}]|[${DIGIT_FORM}](?=[${DIGIT_FORM}])|` +
    `[${CIRCLED_DIGIT}](?<=(?<!\\p{Nd}|\\p{Nd}[${RUN_SEPARATOR}]|[${POSTAL_MARK}][ \u3000]?)\\p{Nd}(?:[${RUN_SEPARATOR}]?\\p{Nd}){5,6}[${CIRCLED_DIGIT}])|` +
    `(?<=\\p{N})(?<longMark>[${LONG_MARK}])(?=\\p{N})|(?<=\\p{N})(?<dot>[${MIDDLE_DOT}])(?=\\p{N})|(?<=\\p{Nd})(?<mark>[${MARK_AFTER_DIGIT}]{1,4})|` +
    '[\\u0000-\\u0008\\u000e-\\u001f\\u007f-\\u0084\\u0086-\\u009f]|[\\uff66-\\uff9d][\\uff9e\\uff9f]|[\\uff61-\\uff9f]',
  'gu',
);
const MAY_READ_PAST = new RegExp(
  `[${SPACE_LIKE}]{2}|[${SPACE_LIKE.replace(' ', '')}${DASH}${DIGIT_FORM}\\u0000-\\u0008\\u000e-\\u001f\\u007f-\\u0084\\u0086-\\u009f\\uff61-\\uff9f]|` +
    `\\p{N}[${LONG_MARK}${MIDDLE_DOT}${MARK_AFTER_DIGIT}]`,
  'u',
);
// The dingbats' circled digits have no NFKC reading, and NFKC reads the parenthesized and full-stop ones as "(7)" and
// "7.": each block runs from 1 to 9.
const DINGBAT_DIGITS: ReadonlyArray<readonly [number, number]> = [[0x2776, 0x277e], [0x2780, 0x2788], [0x278a, 0x2792], [0x2474, 0x247c], [0x2488, 0x2490]];
// The forms of ten to twenty ({@link TWO_DIGIT_FORM}): [first, last, the number of the first]. NFKC reads some as
// "(10)" or "10." and the negative circled and dingbat ones not at all.
const TWO_DIGIT_FORMS: ReadonlyArray<readonly [number, number, number]> = [
  [0x2469, 0x2473, 10], [0x247d, 0x2487, 10], [0x2491, 0x249b, 10], [0x24eb, 0x24f4, 11], [0x24fe, 0x24fe, 10], [0x277f, 0x277f, 10], [0x2789, 0x2789, 10], [0x2793, 0x2793, 10],
];

const ONE_SPACE_LIKE = new RegExp(`^[${SPACE_LIKE}]+$`);
const ONE_DASH = new RegExp(`^[${DASH}]$`);
const CONTROL = /^[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f]$/;

/** What one match of {@link READ_PAST} is read as (a half-width kana and its sound mark: what NFKC makes of them). */
function readPast(match: string): string {
  const first = match.codePointAt(0)!;
  if (ONE_SPACE_LIKE.test(match)) return ' ';
  if (ONE_DASH.test(match)) return '-';
  if (CONTROL.test(match)) return '';
  for (const [from, to] of DINGBAT_DIGITS) if (first >= from && first <= to) return String(first - from + 1);
  for (const [from, to, number] of TWO_DIGIT_FORMS) if (first >= from && first <= to) return String(first - from + number);
  // A lone sound mark is read as the spacing one (NFKC makes it a combining mark, which would join the letter before).
  if (match === '\uff9e') return '\u309b';
  if (match === '\uff9f') return '\u309c';
  return match.normalize('NFKC');
}
// Nested marks are read off one layer a pass, innermost first (the outer marks' content starts with a mark, which no
// pattern reads): five passes, for four layers (~~**_`…`_**~~; review 44f) and the pass that removes invisible
// characters inside them.
const MARK_PASSES = 5;
const MARKS = /[*_`~=＊＿｀]/g;
function markCount(text: string): number {
  return text.match(MARKS)?.length ?? 0;
}

/** `outer`, a reading of `inner`'s text, as a reading of `original`, which `inner` reads. */
function composed(original: string, inner: CheckedText, outer: CheckedText): CheckedText {
  const length = outer.text.length;
  const end = original.length;
  const from = (i: number) => (i >= length ? end : inner.from(outer.from(i)));
  const to = (i: number) => (i >= length ? end : inner.to(outer.to(i) - 1));
  return { text: outer.text, from, to, quote: (start, stop) => (stop <= start ? '' : original.slice(from(start), to(stop - 1))) };
}

// HTML-like inline formatting tags (security review 12's left-overs, fix 44k): an HTML reading of the reply shows
// 765<b>4321</b> as 7654321, and a plain one shows the digits with the tags between, which a customer reads past.
// Only tags that format text within a line, in any case and with attributes, and a comment holding nothing but
// spaces: a link's tag keeps its address for the link check, a line break separates, and the text between tags, or a
// comment's words, are read as written (7654<!-- 9 -->321 is shown whole in a plain reading). Each tag is bounded and
// starts at a < and stops at the next < or >, so the reading is linear (review 44f: attributes up to 4000 characters,
// as a title or style of 250 hid 765<b title="…">4321</b>).
const INLINE_TAG =
  /<\/?(?:b|strong|i|em|u|s|strike|del|ins|mark|small|big|sub|sup|span|font|code|kbd|samp|tt|var|abbr|cite|dfn|bdi|bdo|wbr|nobr)(?:[ \t\r\n/][^<>]{0,4000})?>|<!--[ \t\r\n]{0,40}-->/gi;

/** `original` without its inline formatting tags and empty comments ({@link INLINE_TAG}). */
function withoutInlineTags(original: string): CheckedText {
  if (!original.includes('<')) return unchanged(original);
  const edits: Array<[number, string, number]> = [];
  for (const m of original.matchAll(INLINE_TAG)) edits.push([m.index, '', m[0].length]);
  return edits.length === 0 ? unchanged(original) : readingWith(original, edits);
}

/** `original` with the separators, dashes, digit forms, controls and half-width kana a reader reads past read ({@link READ_PAST}). */
function separatorsRead(original: string): CheckedText {
  if (!MAY_READ_PAST.test(original)) return unchanged(original);
  const edits: Array<[number, string, number]> = [];
  for (const m of original.matchAll(READ_PAST)) {
    const { longMark, dot, mark } = m.groups!;
    const read = longMark ? '-' : dot ? ' ' : mark ? '' : readPast(m[0]);
    // A kana and a sound mark that make no one letter (ｱﾞ) are read one by one; a form of ten to twenty is read as its
    // two digits, one block.
    if (read.length > 1 && m[0].length > 1) edits.push([m.index, readPast(m[0][0]!), 1], [m.index + 1, readPast(m[0][1]!), 1]);
    else if (read !== m[0]) edits.push([m.index, read, m[0].length]);
  }
  return edits.length === 0 ? unchanged(original) : readingWith(original, edits);
}

/** One reading of the marks, digits and invisible characters of `original` ({@link checkedText}). */
function marksAndDigitsRead(original: string): CheckedText {
  if (!MAY_CHANGE.test(original)) return unchanged(original);
  // Every change [original index, what it is read as, its width in the original], in order: a bold label's marks, a
  // marked number's marks and the runs of CHANGES (which hold no mark and no letter a bold label starts with, so none
  // of them overlap). A label's opening marks are read with its first letter, so that a finding starting at the label
  // is named with them.
  const edits: Array<[number, string, number]> = [];
  // Where a label's marks are, in order: a number's marks never take one of them (they cannot meet, but the map must
  // not read a code unit twice).
  const marked: Array<[number, number]> = [];
  if (/[*_~]/.test(original)) {
    for (const m of original.matchAll(BOLD_LABEL)) {
      const marks = m[1]!.length;
      const close = m.index + marks + m[2]!.length;
      const end = close + marks;
      if (!/[:：]$/.test(m[2]!) && !AFTER_BOLD_LABEL.test(original.slice(end, end + 80))) continue;
      const first = String.fromCodePoint(m[2]!.codePointAt(0)!);
      // (A letter outside the BMP is two code units: the position map reads a block as one.)
      if (first.length > 1) continue;
      edits.push([m.index, first, marks + first.length], [close, '', marks]);
      marked.push([m.index, m.index + marks + first.length], [close, end]);
    }
  }
  // A number's marks are left out alone: its first digit may be one CHANGES reads, so it is no block with them, and a
  // finding starting at the number is named without them.
  if (/[*_`＊＿｀~=]/.test(original)) {
    let next = 0;
    for (const m of original.matchAll(MARKED_NUMBER)) {
      const marks = (m[1] ?? m[3] ?? m[5] ?? m[7] ?? m[9])!.length;
      const close = m.index + marks + (m[2] ?? m[4] ?? m[6] ?? m[8] ?? m[10])!.length;
      // (Only the label marks from here on can meet the number's: a number's run holds no mark, so no more than the
      // two of a label before it and the two of one after it.)
      while (next < marked.length && marked[next]![1] <= m.index) next++;
      const taken = marked.slice(next, next + 4).some(([from, to]) => (from < m.index + marks && m.index < to) || (from < close + marks && close < to));
      if (!taken) edits.push([m.index, '', marks], [close, '', marks]);
    }
  }
  // What a label's or a number's marks already leave out: a run's unpaired marks never take them twice.
  const markEdits = new Set<number>();
  for (const [at, , width] of edits) for (let i = at; i < at + width; i++) markEdits.add(i);
  /** The unpaired marks of a run with marks inside, from `at` one way (`step`): one to three of one mark, no more. */
  const partnerMarks = (at: number, step: 1 | -1): [number, number] | undefined => {
    const mark = original[at];
    if (mark === undefined || !RUN_MARK.test(mark)) return undefined;
    let count = 0;
    while (original[at + step * count] === mark) count++;
    const beyond = original[at + step * count];
    if (count > 3 || (beyond !== undefined && (RUN_MARK.test(beyond) || beyond === '\\'))) return undefined;
    const from = step === 1 ? at : at - count + 1;
    for (let i = from; i < from + count; i++) if (markEdits.has(i)) return undefined;
    return [from, count];
  };
  for (const m of original.matchAll(CHANGES)) {
    const run = m[0];
    // Marks inside the number (765**4321**, **765**4321): those right outside it pair with them, whichever way.
    if (RUN_MARK.test(run)) {
      for (const partner of [partnerMarks(m.index - 1, -1), partnerMarks(m.index + run.length, 1)]) {
        if (partner) edits.push([partner[0], '', partner[1]]);
      }
    }
    const kanji = run.match(/[〇一二三四五六七八九]/g)?.length ?? 0;
    const otherDigits = kanji === 0 ? 0 : run.match(/\p{Nd}/gu)?.length ?? 0;
    const foldKanji = kanji > 0 && /[一二三四五六七八九]/.test(run) && (kanji >= KANJI_NUMBER_MIN || otherDigits > 0);
    for (let i = 0; i < run.length; ) {
      const cp = run.codePointAt(i)!;
      const width = cp > 0xffff ? 2 : 1;
      const ch = run.slice(i, i + width);
      let to: string = ch;
      if (cp >= 0x30 && cp <= 0x39) to = ch;
      else if (KANJI_DIGITS.includes(ch)) to = foldKanji ? String(KANJI_DIGITS.indexOf(ch)) : ch;
      else if (ND.test(ch)) to = asciiDigit(cp);
      else if (isInvisible(ch) || RUN_MARK.test(ch)) to = '';
      if (to !== ch) edits.push([m.index + i, to, width]);
      i += width;
    }
  }
  return readingWith(original, edits);
}
/**
 * `original` read with `edits` applied: each [original index, what it is read as, its width in the original], in
 * order and apart; a replacement is read as one block of the original (every code unit of it).
 */
function readingWith(original: string, edits: Array<[number, string, number]>): CheckedText {
  // Segments of the text: [text index, original index, original width of a one-unit block or 0 for a run].
  const textAt: number[] = [0];
  const originalAt: number[] = [0];
  const blockWidth: number[] = [0];
  const parts: string[] = [];
  let copied = 0;
  let length = 0;
  const segment = (at: number, from: number, width: number) => {
    const last = textAt.length - 1;
    if (textAt[last] === at) {
      originalAt[last] = from;
      blockWidth[last] = width;
    } else {
      textAt.push(at);
      originalAt.push(from);
      blockWidth.push(width);
    }
  };
  edits.sort((a, b) => a[0] - b[0]);
  for (const [at, to, width] of edits) {
    parts.push(original.slice(copied, at), to);
    length += at - copied;
    if (to === '') segment(length, at + width, 0);
    else {
      // (A replacement of two code units, a form of ten to twenty's digits, is two units of the one block.)
      segment(length, at, width);
      segment(length + to.length, at + width, 0);
    }
    length += to.length;
    copied = at + width;
  }
  if (parts.length === 0) return unchanged(original);
  const text = parts.join('') + original.slice(copied);
  const segmentOf = (i: number) => {
    let low = 0;
    let high = textAt.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (textAt[middle]! <= i) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const from = (i: number) => {
    if (i >= text.length) return original.length;
    const k = segmentOf(i);
    return blockWidth[k] ? originalAt[k]! : originalAt[k]! + (i - textAt[k]!);
  };
  const to = (i: number) => {
    if (i >= text.length) return original.length;
    const k = segmentOf(i);
    return blockWidth[k] ? originalAt[k]! + blockWidth[k]! : originalAt[k]! + (i - textAt[k]!) + 1;
  };
  return { text, from, to, quote: (start, end) => (end <= start ? '' : original.slice(from(start), to(end - 1))) };
}
// The knowledge's readings, kept between calls: the same manual sections come back with every ticket that finds
// them, and reading 16 KB of Japanese costs about 0.3 ms (most kanji text holds 一 or 三, so it is never skipped).
const KNOWLEDGE_READINGS_KEPT = 256;
const knowledgeReadings = new Map<string, string>();

/** {@link checkedText}'s text of a knowledge text, remembered for the next ticket (at most 256 texts, oldest out). */
export function checkedKnowledgeText(knowledge: string): string {
  let text = knowledgeReadings.get(knowledge);
  if (text === undefined) {
    text = checkedText(knowledge).text;
    if (knowledgeReadings.size >= KNOWLEDGE_READINGS_KEPT) knowledgeReadings.delete(knowledgeReadings.keys().next().value!);
    knowledgeReadings.set(knowledge, text);
  }
  return text;
}

function unchanged(original: string): CheckedText {
  return { text: original, from: (i) => i, to: (i) => i + 1, quote: (start, end) => original.slice(start, end) };
}

// --- Bank accounts ---
// Seven or eight digits, whole or in two groups (765 4321, 765-4321, 7654-3210); the text is folded, so ASCII only.
// A hyphen and a digit after it make a longer number (0120-123-456 after a branch's name).
// Review 12: any grouping with one space, dot or hyphen between digits (765 43 21, 765.4321, 76-54321), seven or eight
// digits in all; a digit or a separator and a digit after them make a longer number.
const ACCOUNT_DIGITS = String.raw`[0-9](?:[ .\-‐‑−]?[0-9]){6,7}(?![0-9]|[ .\-‐‑−][0-9])`;
// What real layouts put between an account's type or label and its number (review 12): spaces, a colon, brackets, a
// bullet, a slash, a table's bar, No. or #, 番号; and one line break, with a bullet and 番号/口座番号 on the next line
// (・種別：普通 / ・番号：7654321, a table's | 種別 | 普通 | / | 口座番号 | 7654321 |, 口座番号 / 7654321). Each run of spaces
// follows one token, so no two optional runs stand side by side.
const GAP_TOKEN = String.raw`(?:[:=|/・･#()\[\]【】「」]|No\.?|№|番号|口座番号)`;
const ACCOUNT_GAP = String.raw`[ \t]*(?:${GAP_TOKEN}[ \t]*){0,4}(?:\n[ \t]*(?:(?:${GAP_TOKEN}|[\-*•])[ \t]*){0,4})?`;
// Each run of spaces has one place to go: two optional runs side by side backtrack quadratically on a long one.
// What makes the digits an amount, a count or a range (普通 1000-1500円): no account. まで is not one of them (口座番号
// 8765432 までお振込みください); a date after the type alone (当座 2024-0115 まで) is its group of four first.
// 名 is one unless it is 名義 (the holder: 名義, 名義人 follow an account's number, review 42c).
const NOT_AN_ACCOUNT_AFTER = String.raw`(?![ \t]*(?:円|年|月|日|件|個|名(?!義)|人|時|分|秒|%|〜|~|以上|以下|未満|程度|前後|ほど|くらい|ぐらい))`;
// After the account's type (普通 1234567, 当座預金口座 765-4321, (普) 7654321), as personal-data's scrub reads it, with
// groups too; a group of four first (1000-1500, 2024-0115) only after 口座 or 番号 ({@link bankAccounts}).
const ACCOUNT_AFTER_TYPE = new RegExp(
  String.raw`(?:\(?(?:普通|当座|貯蓄)(?:預金)?|\((?:普|当|貯)\))(?:口座)?(?:番号)?${ACCOUNT_GAP}(${ACCOUNT_DIGITS})${NOT_AN_ACCOUNT_AFTER}`,
  'dg',
);
// After 口座 or 口座番号 without the type (新しい口座番号：8765432, 口座 7654321).
const ACCOUNT_AFTER_LABEL = new RegExp(String.raw`口座(?:番号)?(?:[ \t]*は)?${ACCOUNT_GAP}(${ACCOUNT_DIGITS})${NOT_AN_ACCOUNT_AFTER}`, 'dg');
// A date is no account, whatever its label (口座 2024.01.15).
const DATE_SHAPED = /^(?:19|20)[0-9]{2}[ .\-‐‑−](?:0?[1-9]|1[0-2])[ .\-‐‑−](?:0?[1-9]|[12][0-9]|3[01])$/;
// A date of eight digits without separators (20261231) is an account's shape, and counts as one: a date's word beside
// it is the forger's to write (review 43f: 口座番号: 20261231 (お支払期日までに)); a person reads a holiday's date.
// Right after a branch (新宿支店 No. 7654321, 新宿支店 7654321): the match starts at the branch's name. Seven or eight
// digits whole, or in groups after No. or #, or in groups where the sentence pays into an account: 札幌支店 060-0001
// 札幌市… is the branch's postcode.
const ACCOUNT_AFTER_BRANCH = new RegExp(
  String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ーA-Za-z0-9]{1,12}(?:支店|営業部|出張所)[ \t]*(?:(?:(?:No\.?|№|#)[ \t]*)?(?:[:：][ \t]*)?([0-9]{7,8}(?![0-9]|[\-‐‑−][0-9]))|(?:No\.?|№|#)[ \t]*(?:[:：][ \t]*)?(${ACCOUNT_DIGITS})|(?:[:：][ \t]*)?(${ACCOUNT_DIGITS}))${NOT_AN_ACCOUNT_AFTER}`,
  'dgu',
);
// A branch's postcode is followed by its town: 060-0001 札幌市, 810-0001 福岡市中央区.
const POSTCODE_BEFORE_TOWN = /^[ \t]*[\p{Script=Han}]{1,4}(?:市|区|町|村|都|道|府|県|郡)/u;
// What makes digits in groups after a branch an account: the sentence pays into one.
const PAYS_INTO_JA = /振込|振り込|振替|送金|入金|支払|払込|払い込|口座/;
// The customer's own account, named where we pay them back (ご登録の口座 1234567 への返金, お客様名義の口座（普通 1234567）):
// right before the account's label or type.
const OWN_ACCOUNT_BEFORE = /(?:ご登録|ご指定|お客様|ご本人|ご自身)(?:いただいた|いただいている|済み|様|名義|の)*(?:銀行)?(?:口座)?[ \t(「]*$/;
// What asks the reader to pay into an account, or names one as where to pay: then a customer's own account is none.
const JA_PAY_ASK =
  /(?:お?振込|お?振り込|送金|入金|お?支払|払い?込)(?:み|い)?先|(?:振込|振り込|支払|払い込|払込|送金|入金|振替|納め|納付)[^。！？\n]{0,12}?(?:ください|下さい|お願い|願います|いただけ|頂け)/;
// A pay-in ask elsewhere in the paragraph that points back at the account (「…口座をご確認ください。確認後、手数料を上記
// 口座へお振込みください。」, review 42c); an ask about something else (次回のお支払いは…お願いします) does not (review 42d).
const JA_POINTED_PAY_ASK = /(?:上記|前記|その|同|当該|こちらの|この)(?:の)?口座[^。！？\n]{0,20}?(?:振込|振り込|送金|入金|振替|納め|納付|支払|払い?込)/;
// The text a pointed pay-in ask is looked for around a customer's own account: the paragraph.
const PAY_ASK_BEFORE_CHARS = 120;
const PAY_ASK_AFTER_CHARS = 200;
/** The text around a find up to a blank line, at most `before` and `after` characters on each side. */
function paragraphAround(text: string, start: number, end: number, before: number, after: number): string {
  const head = text.slice(Math.max(0, start - before), start);
  const tail = text.slice(end, Math.min(text.length, end + after));
  const cut = head.lastIndexOf('\n\n');
  const stop = tail.indexOf('\n\n');
  return head.slice(cut + 1) + text.slice(start, end) + (stop >= 0 ? tail.slice(0, stop) : tail);
}
// ゆうちょ銀行: 記号 (five digits) and 番号 (up to eight), 記号12340-番号12345671 or 記号番号 12340-12345671.
const YUCHO_WORD = /ゆうちょ|郵便局|郵便貯金|振替|振込|振り込|送金|入金|JP ?BANK/i;
const YUCHO_ACCOUNT = /記号(?:番号)?[ \t]*(?:[:：][ \t]*)?([0-9]{5})[ \t]*(?:[-‐‑−・/][ \t]*)?(?:番号[ \t]*(?:[:：][ \t]*)?)?([0-9]{6,8})(?![0-9])/dg;
// An account number after its English label (account number: 55779911, account 123456789012), counted only where the
// sentence around it pays into an account: a customer's own account number at the company ("your account number
// 12345678 is active", "your payment for account number …") is no place to pay.
// Review 42b: a user's account id in our system ("Your new account number is 12345678", "Payments made in March for
// account 12345678", "visit your nearest branch with your account number") is no bank account either: a bank's word in
// the same sentence, or an ask to pay into it right before its label, makes it one.
// Review 12: acc, acc. and beneficiary labels (Acc No 55779911, acc. no. 12345678), dots between groups (5577.9911),
// and the number on the line under its label (Account number:\n12345678).
const EN_ACCOUNT =
  /(?<![A-Za-z])(?:bank[ \t]+)?(?:account|acct|acc\.?|a\/c|beneficiary)(?![A-Za-z])(?:[ \t]*(?:number|no\.?|num|#))?[ \t]*(?:(?:[:#=]|is)[ \t]*)?(?:\n[ \t]*)?([0-9](?:[ .-]?[0-9]){5,16})(?![0-9])/dgi;
// A decimal amount after the label (account 1234567.50) is no number of an account.
const DECIMAL_AMOUNT = /\.[0-9]{2}$/;
// A line of the number alone, or after an account's label (番号：7654321, Account: 7654321, | 口座番号 | 7654321 |),
// under a line naming a bank in the same short block: a layout of fields, one to a line (review 12).
// (Review 43b: the table's closing bar takes the spaces after it: two runs side by side were quadratic.)
const NUMBER_LINE =
  /^[ \t]*(?:[・･\-*•|][ \t]*)?(?:((?:口座)?番号|口座|account(?:[ \t]+(?:number|no\.?))?|acc(?:ount)?\.?[ \t]*no\.?|a\/c(?:[ \t]*no\.?)?)[ \t]*(?:[:=|][ \t]*)?)?([0-9](?:[ .\-‐‑−]?[0-9]){6,7})[ \t]*(?:\|[ \t]*)?$/dgim;
// A line naming a bank, a branch or an account's type in the block above a number line. Review 43d: 普通, 当座 and 支店
// stay words of a bank's layout whatever else the line says (下記口座へお振込みください。/新宿支店/1234567 is how a
// forger writes it), and so does "bank" in any sentence (Mizuho Bank Ltd, MUFG Bank, Ltd., "Please update your records
// with our new bank details."): a good draft flagged waits for a person, a forger's account let through is paid into.
// "routing" only as the number's label (review 43e: "Routing of your ticket:" heads a case number).
const BANK_LINE = /銀行|信用金庫|信金|信用組合|労働金庫|ゆうちょ|支店|普通|当座|\b(?:bank|beneficiary|IBAN|SWIFT|BIC|sort[ \t-]?code|routing[ \t]+(?:number|no\b\.?|num\b))\b/i;
// An account's own label alone on its line (口座番号, 新しい口座：), the number under it across a blank line
// (今後は下記の新しい口座へ…\n\n口座番号\n\n1234567; review 43d): 口座番号\n1234567 is one already.
const ACCOUNT_LABEL_LINE = /^[ \t]*(?:[・･\-*•|][ \t]*)?(?:新しい|新)?(?:振込|お振込み?|お振り込み)?口座(?:番号)?[ \t]*(?:[:：|][ \t]*)?$/;
// What makes the line above a bare number another thing's label: it ends in a label's mark or word, or names an order,
// a member, a phone, a postcode, an enquiry (ご注文番号：/ 1234567, お問い合わせ番号 / 1234567).
const OTHER_LABEL_ABOVE = /(?:番号|No\.?|number|ID|コード|code|#|[:：])[ \t]*$|注文|会員|電話|TEL|FAX|郵便|〒|問い?合わせ|受付|伝票|追跡|予約|請求|\b(?:order|tracking|phone|invoice|ticket|case|zip|post(?:al|code)?|reference|customer|member)\b/i;
// How far above a number line the block is read for a bank's line.
const BLOCK_ABOVE_CHARS = 300;
const BLOCK_ABOVE_LINES = 5;
/**
 * The lines of the block above the line starting at `lineStart`, nearest last, at most {@link BLOCK_ABOVE_LINES} lines
 * within {@link BLOCK_ABOVE_CHARS} characters: up to a blank line, but one blank line right above the line is part of
 * the block (kept as an empty line): a bank's name, a blank line, the number is how a block is spaced (review 43d;
 * 3dc199b's reading). Read line by line from the end: the pattern it replaced looked ahead to the end of the head
 * from every line break, quadratic in it.
 */
function linesAbove(text: string, lineStart: number): string[] {
  // The head ends with the line break before the line: its last piece is empty, the ones before it the lines above.
  const lines = text.slice(Math.max(0, lineStart - BLOCK_ABOVE_CHARS), lineStart).split('\n').slice(0, -1);
  const block: string[] = [];
  for (let i = lines.length - 1; i >= 0 && block.length < BLOCK_ABOVE_LINES; i--) {
    if (/^[ \t]*$/.test(lines[i]!)) {
      if (i < lines.length - 1) break;
      block.unshift('');
      continue;
    }
    block.unshift(lines[i]!);
  }
  return block;
}
const BANK_WORD = /\b(?:bank(?:ing)?|IBAN|sort[ \t-]?codes?|routing|SWIFT|BIC|ABA|beneficiary|wire)\b|銀行/i;
// Pay, transfer, wire… to/into (our/the/this…) account, asked of the reader: please, kindly, or opening its clause,
// or what a payment must be (Payments should be made to account …).
const PAY_INTO_BEFORE =
  /(?:(?:^|[.!?;:,(]\s*|\b(?:please|kindly|you (?:need|must|have|should) to|you should|then|and)\s+)(?:pay|transfer|wire|remit|deposit|send)\b(?:[ \t]+(?![Tt]o\b|[Ii]nto\b)[\w$¥€£.,'’-]+){0,4}?|\b(?:should|must|need to|has to|have to)[ \t]+be[ \t]+(?:made|sent|paid|transferred|wired|remitted|deposited))[ \t]+(?:to|into)[ \t]+(?:(?:our|the|this|that|a|an|new|bank|following|your|registered|existing|usual)[ \t]+){0,3}$/i;
// An ask in the paragraph to pay into the account it points back at: then "your account" is where the reader is told
// to pay (review 42c: "Your registered account 55779911 (Mizuho Bank). Please pay the fee to it today."); "Please send
// us the form" is no such ask (review 42d).
const EN_PAY_ASK = /\b(?:please|kindly)[ \t]+(?:pay|transfer|wire|remit|deposit)\b[^.!?\n]{0,40}?\b(?:to|into)[ \t]+(?:it|that account|this account|the (?:same|above) account)\b/i;
// An ask to use an account for payments: "Please use the new account 55779911 for all payments" (the payee-change
// attack's own words, with no bank word and no "pay to").
const PAYMENT_USE_ASK = /\b(?:please|kindly|from now on,?)[ \t]+(?:use|send|direct)\b[^.!?。\n]{0,80}\b(?:payments?|transfers?|remittances?|deposits?)\b/i;
// The customer's own account: "your (registered) (bank) account 12345678 (on file)".
const YOUR_ACCOUNT_BEFORE = /\byour[ \t]+(?:(?:registered|own|usual|existing|linked|nominated)[ \t]+)?$/i;
// An ask to transfer or pay in the account's sentence ("Please complete the transfer before the deadline using account
// number …", "Transfer before the deadline: account number …"): with a bank named in the sentence right before it
// (fix 44k: "Our bank details have changed." then the ask), the account is where the reader is told to pay.
// (Review 44f: "Please pay attention to …" asks no payment.)
const EN_TRANSFER_ASK = /\b(?:please|kindly)\b[^.!?\n]{0,40}?\b(?:pay(?![ \t]+attention\b)|transfer|wire|remit|deposit)|^\s*(?:pay(?![ \t]+attention\b)|transfer|wire|remit|deposit)\b/i;
// A label that names what the account is of or for ("the balance for account …", "the invoice of account …"), or
// where a thing moves from ("transfer the seat from account …"), or whose it is ("using customer account …", "your
// account"; review 44f): a user's account at the company, whatever the sentence asks.
const ACCOUNT_OF_BEFORE = /(?:\b(?:for|of|on|under|with|in|from)[ \t]+(?:(?:the|this|that|an?)[ \t]+)?|\b(?:customer|user|member|your)[ \t]+)$/i;
// The reader's own bank and bank transfers in general, in the sentence before such an ask ("Your bank may take 2 days.",
// "Check with your bank.", "Bank transfers can take 2 business days."; review 44f): they name no bank to pay into.
const READERS_BANK = /\byour[ \t]+bank\b|\bbank[ \t]+transfers\b/gi;
// A sentence before the ask that announces bank details ("Our bank details have changed.", "Your bank details have
// changed.", "Bank transfers only."): the forger's own notice, so the exemptions above do not apply (review 44h).
const BANK_NOTICE = /\b(?:our|we|new|changed?|updated?|moved|switched|only)\b/i;
/**
 * Whether an ask to transfer or pay, whose account label is preceded by `before`, follows a sentence that names a bank
 * to pay into: a bank's word beyond {@link READERS_BANK} and an account not the reader's ({@link ACCOUNT_OF_BEFORE}),
 * unless that sentence announces bank details ({@link BANK_NOTICE}), where neither exemption holds.
 */
function bankInSentenceBefore(text: string, at: number, before: string): boolean {
  const previous = sentenceBefore(text, at);
  if (!BANK_WORD.test(previous)) return false;
  if (BANK_NOTICE.test(previous)) return true;
  return !ACCOUNT_OF_BEFORE.test(before) && BANK_WORD.test(previous.replace(READERS_BANK, ' '));
}
/** Where the last sentence of `head` starts, as {@link sentenceAround} cuts it. */
function sentenceStartIn(head: string): number {
  return Math.max(head.lastIndexOf('。'), head.lastIndexOf('！'), head.lastIndexOf('？'), head.lastIndexOf('\n'), head.search(/[.!?]\s[^.!?]*$/)) + 1;
}
/** The sentence before the one holding `at`, in the same paragraph (within 240 characters before `at`), or ''. */
function sentenceBefore(text: string, at: number): string {
  const head = text.slice(Math.max(0, at - 240), at);
  const start = sentenceStartIn(head);
  if (start === 0) return '';
  const previous = head.slice(0, start - 1);
  if (head[start - 1] === '\n' && /\n[ \t]*$/.test(previous)) return '';
  return previous.slice(sentenceStartIn(previous));
}
// The sentence around a find, at most `before` and `after` characters on each side: linear for many finds.
function sentenceAround(text: string, start: number, end: number, before: number, after: number): string {
  const head = text.slice(Math.max(0, start - before), start);
  const tail = text.slice(end, Math.min(text.length, end + after));
  const cut = sentenceStartIn(head) - 1;
  const stop = tail.search(/[。！？\n]|[.!?](?=\s|$)/);
  return head.slice(cut + 1) + text.slice(start, end) + (stop >= 0 ? tail.slice(0, stop) : tail);
}
// What may open a line before an account's label: spaces and a bullet or a table's bar. Sticky: read at the line's start.
const LINE_OPENING = /[ \t]*(?:[・･\-*•|][ \t]*)?/y;
// Where the named account starts: the bank and branch right before its label.
const BANK_BEFORE = new RegExp(
  String.raw`(?:[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ーA-Za-z&・]{1,12}(?:銀行|信用金庫|信金|信用組合|労働金庫|ろうきん|バンク|Bank|BANK)[ \t]*)?` +
    String.raw`(?:[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ーA-Za-z0-9]{1,12}(?:支店|営業部|出張所)[ \t]*)?$`,
  'u',
);

// --- Accounts in the other languages a reply goes out in (security review 16) ---
// A payee change in Korean, Vietnamese, Spanish or German went out: their account words were read by no pattern. An
// account there is a run of seven to thirty-four digits (an IBAN's longest), in groups as each country writes them
// (123456-01-234567, 0049 1500 05 1234567892, 123-4-56789-0, 30004 00550 00012345678 67), not inside a longer number,
// a Latin word or an id (ORD-2024-88812), and right outside no decimal, thousands or list separator. The whole run is
// read and its digits counted after ({@link accountRun}): a bounded count with a lookahead after it was quadratic on a
// long run of digits (recheck).
const OTHER_ACCOUNT_DIGITS = /(?<![A-Za-z0-9_\-‐‑−./,]|[0-9][ \-‐‑−])[0-9](?:[ .\-‐‑−]?[0-9])*/g;
const OTHER_ACCOUNT_MIN_DIGITS = 7;
const OTHER_ACCOUNT_MAX_DIGITS = 34;
/** Whether a run of {@link OTHER_ACCOUNT_DIGITS} at `start` in `text` is an account's shape: its length, and no word or list after it. */
function accountRun(text: string, start: number, run: string): boolean {
  const digits = run.replace(/[^0-9]/g, '').length;
  const after = text.slice(start + run.length, start + run.length + 2);
  return digits >= OTHER_ACCOUNT_MIN_DIGITS && digits <= OTHER_ACCOUNT_MAX_DIGITS && !/^(?:[A-Za-z_]|,[0-9])/.test(after);
}
// The words that name a bank account by themselves: 계좌 and 통장 (a user's account is 계정), rekening (akun is the
// user's), Kontonummer, BLZ, CLABE, a current or bank account (cuenta corriente, conta corrente, compte bancaire, conto
// corrente, c/c), RIB, Russian р/с, корр. счёт, БИК, 银行卡, 银行账号, Korean 예금주 (the account's holder; review R3a,
// s48). Latin and Cyrillic words whole; Hangul, Han and Thai ones as written (no spaces between words).
const STRONG_ACCOUNT_WORD =
  String.raw`(?<![\p{L}\p{N}])(?:kontonummer|kto\.?[ \t]*(?:-[ \t]*)?nr\.?|bankkonto|girokonto|bankleitzahl|blz|clabe|ccc|cuenta[ \t]+(?:corriente|bancaria)|conta[ \t-]+(?:corrente|banc[aá]ria|poupan[cç]a)|rib|compte[ \t]+(?:bancaire|courant)|conto[ \t]+(?:corrente|bancario)|c\/c|rekening|no\.?[ \t]*rek\.?|р\/сч?|к\/с|расч[её]тн[а-яё]{0,3}[ \t]+сч[её]т[а-яё]{0,3}|корр?\.?[ \t]*сч[её]т[а-яё]{0,3}|бик)(?![\p{L}])|` +
  String.raw`계좌(?:번호)?|통장|예금주|银行(?:卡|账[号户]|帐[号户])号?|บัญชีธนาคาร`;
// The words that name an account, a bank's or a user's: cuenta (su cuenta de usuario), conta, Konto, compte, conto,
// tài khoản, счёт (an invoice too), 账号 (a login), บัญชี. They count only beside a bank's word ({@link namesBank}).
const WEAK_ACCOUNT_WORD =
  String.raw`(?<![\p{L}\p{N}])(?:cuentas?|contas?|kontos?|comptes?|cont[oi]|t[àa]i[ \t]+kho[ảa]n|stk|сч[её]т[а-яё]{0,3}|сч[её]та)(?![\p{L}])|账[号户]|帐[号户]|卡号|(?:เลขที่|เลข)?บัญชี`;
// A bank named right before or after the number (국민은행 123456-01-234567, Banco Santander 0049…, Vietcombank số …):
// a bank's name in the language (English "bank" names the reader's bank as often, and is read by the English rules).
// Review R1 (s48): Korean banks' short names (국민, 신한, 하나, 농협, 기업) are words as well ("nation", "one",
// "company"), so alone they name a bank only right before a number (the end of the text read before it) or in brackets
// after one (123456-01-234567 (국민));
// 우리 ("we, our") only right before 은행 or 계좌.
// Review R3a (s48): Korean internet banks named without 은행 (카카오뱅크, 토스뱅크, 케이뱅크: a word of its own, which
// recheck finds linear where a name read from any syllable on was not), and Latin American banks
// whose name starts with banc (Bancolombia, Bancomer, Banchile: bounded, for recheck, which flagged banc[a-z]+); not the words bancario, bancaria, bancaire, bancos
// nor bancarrota, which name no bank and stay words of the context only ({@link OTHER_BANK_CONTEXT}) as before.
const BANK_NAME_WORD =
  String.raw`(?<![\p{L}\p{N}])(?:banco|banca|banque|banc(?!(?:ari[aoie]?s?|aires?|os|as|arrotas?)(?![\p{L}]))[a-z]{2,12}|банк[а-яё]{0,3}|sparkasse|ng[âa]n[ \t]+h[àa]ng|[A-Z][A-Za-z]*bank)(?![\p{L}])|은행|(?<![가-힣])[가-힣]{2,6}뱅크|银行|ธนาคาร|` +
  String.raw`(?<![\p{L}\p{N}])(?:국민|신한|하나|농협|기업)(?:은행|(?=[ \t]*(?:[0-9]|$)|\)))|우리(?=[ \t]*(?:은행|계좌))`;
// (Group 1: a word that names a bank's account by itself.)
const OTHER_ACCOUNT_LABEL = new RegExp(`(${STRONG_ACCOUNT_WORD}|${BANK_NAME_WORD})|${WEAK_ACCOUNT_WORD}`, 'giu');
// What makes an account word a bank's: a bank, a transfer, a deposit, its holder, a bank's code, in the sentence, the one
// before or the block above. Spanish "pagos a la cuenta" (pay into the account) too: an ask to pay into it.
// Review R1 (s48): the usual verbs to pay as well (es/pt/it pagar, ingresar, abonar; de begleichen, bezahlen; ru
// оплатите; fr payer, réglez; zh 付款, 支付; vi thanh toán, nạp tiền; th ชำระ), but not Italian pagina (a page), French
// abonnement (a subscription), ingresar a/en (to log in, in Latin America: ingrese a su cuenta), the Russian noun (счёт
// на оплату is an invoice) nor 支付宝 (Alipay, a handle of its own). Review R3a (s48): Colombian consignar (consigne el
// valor a la cuenta: pay into it).
const TRANSFER_WORD =
  String.raw`(?<![\p{L}\p{N}])(?:pag(?!in)[a-z]*|ingres[a-z]*(?![ \t]+(?:a|al|en)(?![\p{L}]))|abon(?!n)[a-z]*|begleich[a-zäöü]*|bezahl[a-zäöü]*|оплатите|оплатить|оплачивайте|payer|payez|r[ée]glez|r[ée]gler|thanh[ \t]+to[áa]n|n[ạa]p[ \t]+ti[ềe]n|consign[a-záéíóú]*|transferencia|transferir|transfiera[n]?|dep[oó]sito|depositar|deposite[n]?|transfer[eê]ncia|transfira|[üu]berweis[a-zäöü]*|einzahl[a-zäöü]*|virement|virer|virez|bonifico|versamento|versare|versate|chuy[ểe]n[ \t]+kho[ảa]n|перев[оеё]д[а-яё]*|переведите|перечисл[а-яё]*|transfer|pagos?[ \t]+(?:a|en)[ \t]+(?:la|esta|nuestra)[ \t]+(?:nueva[ \t]+)?cuenta|pagamentos?[ \t]+(?:para|na)[ \t]+(?:a[ \t]+)?(?:nova[ \t]+)?conta|zahl[a-zäöü]*[ \t]+(?:sie[ \t]+)?(?:an|auf)[ \t]+(?:das[ \t]+)?(?:neue[ \t]+)?konto)(?![\p{L}])|` +
  String.raw`입금|송금|이체|汇款|转账|打款|付款|支付(?!宝)|โอน|ชำระ`;
// (Three patterns: one of them all was more than recheck could decide in its time.)
const OTHER_BANK_CONTEXT = [
  new RegExp(`${STRONG_ACCOUNT_WORD}|${BANK_NAME_WORD}`, 'iu'),
  new RegExp(TRANSFER_WORD, 'iu'),
  new RegExp(
    String.raw`(?<![\p{L}\p{N}])(?:bank|iban|bic|swift|bancari[ao]s?|banc[aá]ri[ao]s?|bancaire|titular|sucursal|ag[eê]ncia|favorecido|pix|nib|bankverbindung|kontoinhaber[a-zäöü]*|zahlungsempf[äa]nger[a-zäöü]*|titulaire|guichet|intestat[a-z]*|ch[ủu][ \t]+t[àa]i[ \t]+kho[ảa]n|получател[а-яё]*|atas[ \t]+nama|a\.n\.)(?![\p{L}])|예금주|开户|户名|收款|พร้อมเพย์`,
    'iu',
  ),
];
const namesBank = (text: string) => OTHER_BANK_CONTEXT.some((pattern) => pattern.test(text));
// What makes the number another thing's: an order, a customer or member number, a user, a login, a phone or a call, a
// postcode, an invoice or a tracking number, named between the account word and the number or right before it.
const OTHER_THING_LABEL = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:clientes?|client|kunden[a-zäöü]*|bestell[a-zäöü]*|auftrag[a-zäöü]*|rechnung[a-zäöü]*|pedidos?|orden|encomenda|commande|ordine|factura|fatura|facture|fattura|invoice|order|ticket|caso|usuarios?|usu[aá]rios?|utilisateur|utente|benutzer[a-zäöü]*|user|login|sesi[oó]n|tel[eé]fonos?|telefone|telefon|t[eé]l[eé]phone|telefono|tel\.?|phone|fax|hotline|whatsapp|llam[a-z]*|anruf[a-zäöü]*|rufen|appel[a-z]*|chiam[a-z]*|ligue|ligar|call|c[oó]digo[ \t]+postal|cep|plz|postleitzahl|code[ \t]+postal|kh[áa]ch[ \t]+h[àa]ng|đ[ơo]n[ \t]+h[àa]ng|đi[ệe]n[ \t]+tho[ạa]i|g[ọo]i|ng[ưu][ờo]i[ \t]+d[ùu]ng|заказ[а-яё]*|клиент[а-яё]*|пользовател[а-яё]*|телефон[а-яё]*|звон[а-яё]*|договор[а-яё]*|pesanan|pelanggan|pengguna|telepon|hubungi|member|membre|socio|mitglied[a-zäöü]*|referencia|refer[êe]ncia|r[ée]f[ée]rence|riferimento|referenz|tracking|seguimiento|rastreio|suivi|spedizione|sendung[a-zäöü]*)(?![\p{L}])|` +
    '주문|회원|전화|고객번호|사용자|우편|订单|会员|用户|电话|手机|邮编|คำสั่งซื้อ|สมาชิก|ผู้ใช้|โทร|รหัสไปรษณีย์',
  'iu',
);
// The customer's own account, where we pay them back (su cuenta bancaria registrada, Ihr Konto, 고객님의 계좌, tài khoản
// của quý khách, 您的账户), as ご登録の口座 and "your account" are: none, unless its sentence announces a change or asks
// to pay into it ({@link OTHER_NOTICE_OR_ASK}).
const OTHER_OWN_ACCOUNT = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:su|sus|tu|tus|sua|suas|seu|seus|ihr|ihre|ihrem|ihren|ihres|dein[a-z]{0,2}|votre|vos|ton|suo|tuo|tua|vostro|vostra|ваш[а-яё]{0,3}|тво[а-яё]{1,3}|anda|kamu|c[ủu]a[ \t]+(?:b[ạa]n|qu[ýy][ \t]+kh[áa]ch|qu[ýy][ \t]+v[ịi]|anh|ch[ịi]))(?![\p{L}])|고객님|귀하|회원님|등록하신|您的|你的|ของคุณ|ของท่าน`,
  'iu',
);
// The customer's own account named right after the number, as Vietnamese and Thai write the owner after the noun (tài
// khoản 0123 4567 8901 của quý khách, บัญชี 123-4-56789-0 ของคุณ; review R1, s48). Only right after it: a "su" or "của
// bạn" further on is someone's name, order or reference, not the account's owner.
const OTHER_OWN_ACCOUNT_AFTER = /^[ \t]*(?:c[ủu]a[ \t]+(?:b[ạa]n|qu[ýy][ \t]+kh[áa]ch|qu[ýy][ \t]+v[ịi]|anh|ch[ịi])(?![\p{L}])|ของคุณ|ของท่าน)/iu;
const OWN_ACCOUNT_AFTER_CHARS = 24;
// A sentence that announces new bank details or asks to pay: the forger's, so the customer's own account is no excuse.
const OTHER_NOTICE_OR_ASK = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:nuev[oa]s?|cambi[a-z]*|neue?[nmrs]?|ge[äa]ndert|[äa]nder[a-zäöü]*|nouve(?:au|aux|lle|lles)|chang[a-zé]*|modifi[a-zé]*|nuov[oaie]|nov[oa]s?|mudou|mudan[cç]a|alterad[oa]s?|нов[а-яё]*|измен[а-яё]*|m[ớo]i|thay[ \t]+đ[ổo]i|baru|berubah|diganti|ab[ \t]+sofort|a[ \t]+partir|[àa][ \t]+partir|por[ \t]+favor|bitte|veuillez|merci[ \t]+de|per[ \t]+favore|si[ \t]+prega|vui[ \t]+l[òo]ng|пожалуйста|просим|mohon|silakan|harap|transfiera[n]?|deposite[n]?|transfira|virez|versate|переведите)(?![\p{L}])|` +
    '변경|새로운|신규|주십시오|주세요|바랍니다|新|变更|更改|更换|请|ใหม่|เปลี่ยน|กรุณา|โปรด',
  'iu',
);
// An amount (1.234.567, 1 234 567 EUR, € 1234567), a date written day first (15.01.2026) or year first: no account.
const THOUSANDS = /^[0-9]{1,3}(?:[.,][0-9]{3})+$/;
const DAY_FIRST_DATE = /^(?:0?[1-9]|[12][0-9]|3[01])[ .\-‐‑−](?:0?[1-9]|1[0-2])[ .\-‐‑−](?:19|20)[0-9]{2}$/;
const CURRENCY_AFTER = /^[ \t]*(?:€|\$|£|¥|₩|₫|₽|฿|%|EUR|USD|GBP|VND|KRW|RUB|THB|IDR|CNY|RMB|BRL|MXN|euros?|d[oó]lar|pesos|reais|đồng|руб|บาท|원|円|元|圆|块)/i;
const CURRENCY_BEFORE = /(?:€|\$|£|¥|₩|₫|₽|฿|Rp\.?|R\$|EUR|USD|VND|KRW|RUB|IDR|CNY|RMB)[ \t]*$/;
// Where a clause ends for this reading: a sentence's end, a semicolon, a line break; a full stop only before a capital
// (n. 1000…, Kto.-Nr. 1234…, a.n. PT… are abbreviations), or before Hangul, Han or Thai, which have no capitals (review
// R1, s48: 계좌 … 환불되었습니다. 확인해 주세요. is two sentences, and the ask of the second is not the first's).
const OTHER_CLAUSE_END = /[。！？!?;\n]|\.(?=[ \t]+[\p{Lu}\p{Script=Hangul}\p{Script=Han}\p{Script=Thai}])/gu;
// How far an account word is read from the number: before it (cuenta Banco Santander número …) and after it
// (123456-01-234567 계좌로, as Korean, Thai and Chinese may write it).
const OTHER_WORD_BEFORE_CHARS = 48;
const OTHER_WORD_AFTER_CHARS = 16;
// How far around the number the sentence, and the one before it, is read for a bank's word.
const OTHER_CONTEXT_CHARS = 160;

/** Where the clause holding `at` starts in `text`, read at most `within` characters back ({@link OTHER_CLAUSE_END}). */
function otherClauseStart(text: string, at: number, within: number): number {
  const from = Math.max(0, at - within);
  let start = from;
  for (const m of text.slice(from, at).matchAll(OTHER_CLAUSE_END)) start = from + m.index + 1;
  return start;
}
/** Where the clause holding `at` ends in `text`, read at most `within` characters on. */
function otherClauseEnd(text: string, at: number, within: number): number {
  const tail = text.slice(at, at + within);
  OTHER_CLAUSE_END.lastIndex = 0;
  const m = OTHER_CLAUSE_END.exec(tail);
  OTHER_CLAUSE_END.lastIndex = 0;
  return m ? at + m.index : at + tail.length;
}

/** Where `text`'s line breaks are, in order. */
function lineBreaks(text: string): number[] {
  const breaks: number[] = [];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) breaks.push(i);
  return breaks;
}
/** The last of `breaks` (in order) at or before `at`, or -1: what `text.lastIndexOf('\n', at)` is, by binary search. */
function lastBreakAtOrBefore(breaks: readonly number[], at: number): number {
  let low = 0;
  let high = breaks.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (breaks[middle]! <= at) low = middle + 1;
    else high = middle;
  }
  return low === 0 ? -1 : breaks[low - 1]!;
}

/**
 * The accounts of `text` (folded) written in the other languages a reply goes out in: [where its word or the number
 * starts, where the number starts and ends, where its word or the number ends]. A run of {@link OTHER_ACCOUNT_DIGITS}
 * (7 to 34 digits) in the same clause as an account or bank word, near it; a word that is a user's account as well
 * (cuenta, Konto, tài khoản…) only where the sentence, the one before it or the block above names a bank or a transfer
 * ({@link namesBank}). Not a number some other label names nearer (a customer, an order, a phone), an amount, a date,
 * nor the customer's own account where we pay them back.
 */
function otherLanguageAccounts(text: string): Array<[number, number, number, number]> {
  const found: Array<[number, number, number, number]> = [];
  // The text's line breaks, found once when a number's line is first asked for (review R1, s48: text.lastIndexOf('\n')
  // from each number read back to the text's start on a text without line breaks, quadratic in it).
  let breaks: number[] | undefined;
  for (const m of text.matchAll(OTHER_ACCOUNT_DIGITS)) {
    const start = m.index;
    const end = start + m[0].length;
    const digits = m[0];
    if (!accountRun(text, start, digits)) continue;
    if (THOUSANDS.test(digits) || DAY_FIRST_DATE.test(digits) || DATE_SHAPED.test(digits)) continue;
    if (CURRENCY_AFTER.test(text.slice(end, end + 8)) || CURRENCY_BEFORE.test(text.slice(Math.max(0, start - 6), start))) continue;
    // The nearest account word before the number in its clause, else the nearest after it.
    const headStart = otherClauseStart(text, start, OTHER_WORD_BEFORE_CHARS);
    const head = text.slice(headStart, start);
    let word: { at: number; end: number; bank: boolean } | undefined;
    for (const w of head.matchAll(OTHER_ACCOUNT_LABEL)) word = { at: headStart + w.index, end: headStart + w.index + w[0].length, bank: w[1] !== undefined };
    const tail = text.slice(end, otherClauseEnd(text, end, OTHER_WORD_AFTER_CHARS));
    if (!word) {
      OTHER_ACCOUNT_LABEL.lastIndex = 0;
      const w = OTHER_ACCOUNT_LABEL.exec(tail);
      OTHER_ACCOUNT_LABEL.lastIndex = 0;
      if (w) word = { at: end + w.index, end: end + w.index + w[0].length, bank: w[1] !== undefined };
    }
    if (!word) continue;
    // Another thing's label between the word and the number, or right before the number (número de cliente 1234567).
    const between = word.at < start ? text.slice(word.end, start) : text.slice(end, word.at);
    if (OTHER_THING_LABEL.test(between) || OTHER_THING_LABEL.test(text.slice(Math.max(headStart, start - 24), start))) continue;
    // The sentence around the number and its word, the one before it and the block above: read for a bank's word.
    // A Korean bank's word is named with the bank's name it ends (국민은행, not 은행): Korean writes spaces between words.
    let named = word.at;
    while (named > 0 && word.at - named < 12 && /\p{Script=Hangul}/u.test(text[named - 1]!)) named--;
    const from = Math.min(named, start);
    const sentenceStart = otherClauseStart(text, from, OTHER_CONTEXT_CHARS);
    const sentence = text.slice(sentenceStart, otherClauseEnd(text, Math.max(word.end, end), OTHER_CONTEXT_CHARS / 2));
    if (!word.bank) {
      const before = sentenceStart > 0 && !/\n[ \t]*\n[ \t]*$/.test(text.slice(Math.max(0, sentenceStart - 8), sentenceStart))
        ? text.slice(otherClauseStart(text, sentenceStart - 1, OTHER_CONTEXT_CHARS), sentenceStart)
        : '';
      breaks ??= lineBreaks(text);
      const lineStart = lastBreakAtOrBefore(breaks, from) + 1;
      if (!namesBank(sentence) && !namesBank(before) && !linesAbove(text, lineStart).some(namesBank)) continue;
    }
    // The customer's own account (su cuenta, Ihr Konto, 고객님의 계좌) beside its word, where we pay them back.
    const aroundWord = text.slice(Math.max(sentenceStart, word.at - 16), Math.min(word.end + 20, word.at < start ? start : word.end + 20));
    const ownAfter = OTHER_OWN_ACCOUNT_AFTER.test(text.slice(end, end + OWN_ACCOUNT_AFTER_CHARS));
    if ((OTHER_OWN_ACCOUNT.test(aroundWord) || ownAfter) && !OTHER_NOTICE_OR_ASK.test(sentence)) continue;
    found.push([from, start, end, Math.max(word.end, end)]);
  }
  return found;
}

/**
 * Whether a finding as written is one {@link otherLanguageAccounts} names (its word read without the sentence that made
 * it a bank's): an account or bank word, then a run of its digits ending it, or the run, then the word ending it.
 */
function otherLanguageAccountWritten(text: string): boolean {
  const words = [...text.matchAll(OTHER_ACCOUNT_LABEL)];
  const runs = [...text.matchAll(OTHER_ACCOUNT_DIGITS)].filter((m) => accountRun(text, m.index, m[0]));
  const [firstWord, lastWord, firstRun, lastRun] = [words[0], words.at(-1), runs[0], runs.at(-1)];
  return (
    (firstWord?.index === 0 && lastRun !== undefined && lastRun.index + lastRun[0].length === text.length) ||
    (firstRun?.index === 0 && lastWord !== undefined && lastWord.index + lastWord[0].length === text.length)
  );
}

// --- The customer's own account, from their own mail (session 49; review R3a of session 48, MED 4) ---
// A refund to the account the customer wrote in their mail ("…auf Ihr Konto mit der IBAN DE89 3704 … überwiesen", "…a
// su cuenta ES91 2100 …", "tài khoản Vietcombank 0123456789 của quý khách") is what they asked for, and parked: an
// IBAN has no own-account exemption, and the Vietnamese number reads as a phone number. The mail vouches for it only in
// a sentence that names the account as the reader's (Ihr, su, votre, seu, your, của quý khách, お客様…) and neither
// announces new details nor asks to pay ({@link OWN_ACCOUNT_ASK}): no broader, since the question may hold a
// forwarded mail's words (a forger's account among them; bug review R1 of session 48, finding 7), and that says we pay
// them back ({@link OWN_ACCOUNT_PAID_BACK}).
// (Two patterns: recheck's fuzzing flagged them as one, though each is a list of words.)
const OWN_ACCOUNT_WORDS = [OTHER_OWN_ACCOUNT, /(?<![\p{L}\p{N}])your(?![\p{L}])|お客様|ご登録|ご指定|ご本人|ご自身/iu];
// An account named in the sentence: a digit run is the customer's account only beside one (an IBAN names itself):
// the other languages' words ({@link OTHER_ACCOUNT_LABEL}, read with search, which leaves its lastIndex alone), or these.
const ACCOUNT_NAMED = /(?<![A-Za-z])(?:account|acct|a\/c|IBAN)(?![A-Za-z])|口座/i;
// What makes the sentence a notice or an ask to pay, where the reader's own account is no excuse.
// Bug review R2 of session 51 (finding 1): a payment told as made "in error" or "by mistake" is the overpayment lure's
// pretext to ask it back, never a refund of ours.
const OWN_ACCOUNT_ASK = [
  OTHER_NOTICE_OR_ASK,
  EN_TRANSFER_ASK,
  PAYMENT_USE_ASK,
  JA_PAY_ASK,
  /\b(?:please|kindly|new|changed|updated|from now on|instead|in[ \t]{1,3}error|by[ \t]{1,3}mistake|mistakenly|erroneously|accidentally)\b/i,
];
// How far around the number its sentence is read.
const OWN_SENTENCE_CHARS = 200;
// What says that we pay the customer back, in the sentence that names their account: without it, "your account" may be
// where a forwarded phishing mail (in the question) sends the customer's money ("Ihr Konto DE89 … ist bei uns
// hinterlegt. Überweisen Sie die offene Rechnung dorthin.", "The amount due should be wired to your … account …":
// bug review B1 of session 49). Not zurück alone: "Zahlen Sie … auf Ihr Konto … zurück" is the customer paying. An ask
// in a neighbouring sentence is not read: "vui lòng kiểm tra" after a refund asks the customer to check it. The
// participle devuelto/devuelta too, only as ours (hemos devuelto) or into their account (devuelto a su cuenta): "Su
// pago … fue devuelto" is a bounced payment, a lure's pretext to pay again (bug review B2); devolv and devolu take
// devolvemos, devolución; not devuelva, which asks the reader to pay back.
// Session 51: a transfer or payment of an amount told as made to the reader's account ("A transfer of 20 EUR was made
// to your account DE89 …") is ours paid to them, as überwiesen is: only a past passive into "your", after the noun and
// its amount (not "should be wired to your account", bug review B1's lure, nor "A payment request of 5 EUR was sent to
// your account"). Each gap is a few spaces or one of two short words: linear.
const OWN_ACCOUNT_PAID_BACK =
  /\b(?:transfer|payment|deposit|remittance)[ \t]{1,3}of[ \t]{1,3}(?:[^\s!?;]{1,12}[ \t]{1,3}){1,2}?(?:was|were|has[ \t]{1,3}been|have[ \t]{1,3}been)[ \t]{1,3}(?:made|sent|transferred|wired|paid|deposited|issued|credited)[ \t]{1,3}(?:to|into)[ \t]{1,3}your\b|erstatt|zurück(?:überwiesen|gebucht|gezahlt)|gutgeschrieben|überwiesen|refund|reimburs|credited|paid\s+back|reembols|devolv|devolu|(?:hemos|han|ha)\s+devuelt|devuelt[oa]s?\s+(?:a|en)\s+su\s+cuenta|rembours|restitu|estorn|hoàn|返金|返還|払い?戻|振り?込みました|お振込みしました|환불|退款|คืนเงิน/i;

// What says the customer owes an amount, in the account's sentence or the next one: a refund word beside it is a lure
// ("Ihr Konto … wurde erstattet; überweisen Sie die Gebühr von 5 € dorthin.", "Your refund to your account … failed;
// wire the fee of 5 EUR to that account", "Your account … must receive 5 EUR from you first": bug review B3 of session
// 49, MED 4). An amount due or owed; what the account must receive, or receive from the reader; an imperative to pay,
// or to send money to the place named before. Not a fee or a pending amount alone: a refund of the shipping fee, a
// refund still pending, is ours to pay; nor "you do not owe". The next sentence too, since ';' and '.' end the first.
// (Three patterns: the English words, its one gap, the other languages' words.)
const OWN_ACCOUNT_OWED = [
  // Not "you don't owe us anything" nor "it is due to arrive" (bug review B4).
  /\b(?:(?<!(?:\bnot|\bnever|\bnothing|n't|\bno)\s)owe[sd]?|owing|(?:is|are|be|now|amount|balance|payment)\s+due(?!\s+to\b)|due\s+(?:by|on|before|now|immediately|today|within)|must\s+receive)\b/i,
  /\b(?:receive|need|require)\b[^.!?;\n]{0,30}\bfrom\s+you\b/i,
  /(?<![\p{L}])(?:f[äa]llig|schulde[nt]?|(?:[üu]berweisen|zahlen|begleichen)\s+sie|dorthin|adeud[a-z]*|debe\s+(?:pagar|abonar|transferir)|dû|devez\s+(?:payer|verser|virer)|devid[oa]|deve\s+(?:pagar|transferir))(?![\p{L}])/iu,
];
// An English imperative to move money, then "to that/this/the same/it" a few words on ("wire the fee of 5 EUR to that
// account"): the words after each verb are read anchored, since one pattern with the gap between was polynomial.
const OWN_ACCOUNT_PAY_VERB = /\b(?:wire|transfer|pay|remit|send|deposit)\b/gi;
const TO_THAT_AFTER = /^[^.!?;\n]{0,40}?\b(?:to|into)\s+(?:that|this|the\s+same|it)\b/i;
const TO_THAT_AFTER_CHARS = 64;

// What says that nothing is owed, read out before the words above (session 50): "No further payment is due.", "Es ist
// keine Zahlung fällig.", "No debe pagar nada.", "Aucun paiement n'est dû." end a refund, and parked it. Only the
// negation of the due words themselves (no, nothing, kein, nichts, no debe, n'est, nenhum… right before them), and
// only where the clause ends after them: "No delay: the fee is due now." and "Not the fee: 5 EUR is due" negate
// something else, "No payment is due until you wire 5 EUR to that account", "…is due but 5 EUR", "…n'est dû sauf 5 €"
// and "no debe pagar en efectivo, debe pagar…" go on to ask. (One pattern a language; each a row of optional words,
// each opening with a word of its own, so that no text is matched two ways, and a few spaces between; the English one
// starts at a word boundary, no(?:thing)?: with a lookbehind and no|nothing, recheck's fuzzing found it polynomial on
// some runs, though 600K characters of its attack took 7 ms.)
const CLAUSE_ENDS_AFTER = '(?=[ \\t]{0,3}(?:[.!?;\\n]|$))';
const NEGATED_OWED = [
  new RegExp(
    '\\b(?:no(?:thing)?(?:\\s{1,3}(?:further|more|else|other|additional|extra|outstanding))?(?:\\s{1,3}(?:payment|amount|balance|money|fee|charge|sum))?' +
      '(?:\\s{1,3}(?:is|was|remains|will\\s{1,3}be))?|(?:is|are)\\s{1,3}not)(?:\\s{1,3}now)?\\s{1,3}(?:due|owed|owing|payable)(?:\\s{1,3}(?:from|by)\\s{1,3}you)?(?:\\s{1,3}now)?' +
      CLAUSE_ENDS_AFTER,
    'giu',
  ),
  new RegExp(
    '(?<![\\p{L}])(?:(?:kein(?:e|en)?(?:\\s{1,3}(?:weitere|weiteren|zusätzliche|zusätzlichen))?(?:\\s{1,3}(?:Zahlung|Zahlungen|Betrag|Beträge|Gebühr|Gebühren|Kosten))?|nichts?)' +
      '(?:\\s{1,3}(?:ist|sind|wird|werden))?(?:\\s{1,3}mehr)?\\s{1,3}fällig|schulden\\s{1,3}(?:uns|mir)\\s{1,3}nichts)(?:\\s{1,3}mehr)?' +
      CLAUSE_ENDS_AFTER,
    'giu',
  ),
  new RegExp(
    '(?<![\\p{L}])(?:no\\s{1,3}(?:debe|tiene\\s{1,3}que|necesita|hay\\s{1,3}que)\\s{1,3}(?:pagar|abonar|transferir)(?:\\s{1,3}nada)?|no\\s{1,3}(?:hay\\s{1,3})?(?:nada|ningún\\s{1,3}(?:pago|importe|cargo))\\s{1,3}adeudad[oa])' +
      '(?:\\s{1,3}m[aá]s)?' +
      CLAUSE_ENDS_AFTER,
    'giu',
  ),
  new RegExp(`(?<![\\p{L}])n['’](?:est|sont)(?:\\s{1,3}(?:pas|plus))?\\s{1,3}d[uû]e?s?(?![\\p{L}])${CLAUSE_ENDS_AFTER}`, 'giu'),
  new RegExp(
    '(?<![\\p{L}])(?:(?:(?:nenhum|nenhuma)(?:\\s{1,3}(?:pagamento|valor|quantia|taxa|montante))?(?:\\s{1,3}adicional)?(?:\\s{1,3}(?:é|está|fica))?|nada(?:\\s{1,3}(?:é|está|fica))?|não\\s{1,3}(?:é|está))' +
      '(?:\\s{1,3}mais)?\\s{1,3}devid[oa]s?|não\\s{1,3}(?:deve|tem\\s{1,3}de|tem\\s{1,3}que|precisa)\\s{1,3}(?:pagar|transferir)(?:\\s{1,3}nada)?)' +
      CLAUSE_ENDS_AFTER,
    'giu',
  ),
];

/** Whether `text` (a sentence) says the reader owes an amount or asks them to send money back to the place named. */
function owesAmount(sentence: string): boolean {
  const text = NEGATED_OWED.reduce((read, negated) => read.replace(negated, ' '), sentence);
  if (OWN_ACCOUNT_OWED.some((owed) => owed.test(text))) return true;
  for (const m of text.matchAll(OWN_ACCOUNT_PAY_VERB)) {
    const after = m.index + m[0].length;
    if (TO_THAT_AFTER.test(text.slice(after, after + TO_THAT_AFTER_CHARS))) return true;
  }
  return false;
}

// Security review 18 (session 50, HIGH 1): the lure asked for the fee where the refund's sentence and the next one did
// not ("…your account DE89 …. Thank you for your patience. Wire the 5 EUR release fee to that account today.", "Please
// pay the 5 EUR release fee to the account above", a paragraph below, 手数料500円を同口座へお振込みください): so every
// sentence of the draft is read, and one that asks for a payment or says money is owed ends the exemption for the whole
// draft ({@link owesAmount}, with its reading of "nothing is owed"; the Japanese pay-in asks; an ask to use an account
// for payments or to pay into the account named; an imperative to pay, or a pay verb before an amount that we do not
// say we pay). A refund of ours that only tells what we did and what nothing is owed is read as before; a reply that
// asks for money anywhere waits for a person, since the reader cannot tell which account the ask means.
// Bug review B2 (session 50): a sentence that points back at the account ("is payable to that account", "settle the
// fee into that account", "repita la transferencia a dicha cuenta", "dorthin", 同口座) has no business in a refund's
// confirmation but to send money there; and the asks to pay of the other languages the refund words cover, an
// imperative with a payment noun a few words on (repita la transferencia, effectuez le virement, faça o pagamento).
// Bug review B3a (session 50, MED 4): not "in/on this account" ("The money will arrive in this account within 3 days"),
// and "ce compte" only as where money goes (sur, à, vers ce compte): "Ce compte recevra le virement" tells, asks nothing.
const POINTS_BACK_TO_ACCOUNT =
  /\b(?:to|into)[ \t]+(?:that|this|the[ \t]+(?:same|above|said))[ \t]+(?:bank[ \t]+)?account\b|\b(?:dicha|esa|esta|la[ \t]+misma|essa|mesma|nessa|nesta)[ \t]+(?:cuenta|conta)\b|\b(?:dieses|diesem|dasselbe|demselben)[ \t]+Konto\b|\bdorthin\b|(?:^|[ \t])(?:sur|à|vers)[ \t]+(?:ce|le[ \t]+même)[ \t]+compte\b|同口座|上記(?:の)?口座|当該口座|その口座/iu;
// Session 51: an amount in words ("Kindly put five euros in this account", "Envíe cinco euros a dicha cuenta", "pay
// fünf Euro"): a number word (one to twenty and the round tens of English, German, Spanish, French, Portuguese and
// Italian, hundred, thousand) right before a currency's word or code. Read wherever an amount in digits is. Each gap
// is a few spaces between two words: linear. Bug review R2 of session 51 (finding 5): the teens and tens of English,
// German, Spanish and French too; not "dos", Portuguese "of the" before a plural ("o extrato dos euros recebidos")
// as much as Spanish two. (un, une, uno, one: "one" or "a", which before a currency is its amount.)
const NUMBER_WORD =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|' +
  'twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|a[ \\t]{1,3}(?:hundred|thousand)|' +
  'eins?|eine[nm]?|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf|dreizehn|vierzehn|fünfzehn|sechzehn|siebzehn|achtzehn|neunzehn|' +
  'zwanzig|dreißig|vierzig|fünfzig|sechzig|siebzig|achtzig|neunzig|hundert|tausend|' +
  'un|une|uno|una|um|uma|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince|veinte|treinta|cuarenta|cincuenta|' +
  'sesenta|setenta|ochenta|noventa|cien|mil|' +
  'deux|trois|quatre|cinq|sept|huit|neuf|dix|onze|douze|treize|quatorze|quinze|seize|vingt|trente|quarante|cinquante|soixante|cent|mille|' +
  'dois|duas|quatro|sete|oito|nove|dez|vinte|trinta|quarenta|cinquenta|cem|' +
  'tre|quattro|sei|sette|otto|dieci|venti|trenta|quaranta|cinquanta|cento';
const AMOUNT_IN_WORDS =
  `(?<![\\p{L}])(?:${NUMBER_WORD})(?:[ \\t-]{1,3}(?:hundred|thousand|hundert|tausend|cientos|mil|cents|mille|cento))?[ \\t-]{1,3}` +
  '(?:euros?|dollars?|pounds?|yen|francs?|franken|reais|d[oó]lar(?:es)?|libras?|EUR|USD|GBP|CHF|JPY)(?![\\p{L}])';
// Bug review B3a (session 50, MED 3): an amount in place of the payment noun ("transfiera 5 € a la cuenta indicada",
// "Envoyez 5 € sur le compte ci-dessus"), and the verbs of sending money (envíe, mande, envoyez, virez, versez, senden
// or schicken Sie, envie).
const OTHER_PAY_IMPERATIVE =
  new RegExp(String.raw`(?:^|[ \t"'(¡,])(?:repita|repitan|realice|realicen|efectúe|efectúen|haga|hagan|abone|abonen|transfiera|pague|paguen|ingrese|envíe|envíen|mande|manden|effectuez|réglez|renouvelez|envoyez|virez|versez|faça|façam|realize|efetue|transfira|deposite|envie|enviem|überweisen[ \t]+Sie|zahlen[ \t]+Sie|begleichen[ \t]+Sie|tätigen[ \t]+Sie|senden[ \t]+Sie|schicken[ \t]+Sie)\b[^.!?。\n]{0,30}?(?:\b(?:transferencia|transferência|pago|pagamento|ingreso|abono|dep[óo]sito|virement|paiement|versement|règlement|Überweisung|Zahlung|Betrag|Gebühr|importe|cuota|taxa|frais)\b|[$€£¥][ \t]?[0-9]|[0-9][ \t]?(?:€|\$|£|¥|EUR\b|USD\b|GBP\b|CHF\b|euros?\b)|${AMOUNT_IN_WORDS})`, 'iu');
// Bug review B3a (session 50, MED 3): in a sentence without a refund word, a fee word ("send the release fee", "Envíe
// la comisión", "5 € de taxa") or a pointer back at the account given before ("the account mentioned above", "the IBAN
// given above", "the same IBAN", "la cuenta indicada", "le compte ci-dessus", "das oben genannte Konto", "a conta
// acima") has no business in a refund's confirmation but to send money there. A fee word alone ends the exemption too
// ("you can pay 5 EUR for express shipping fees on your next order" parks): the safe side, a person reads it. Not "no
// fee", "free of charge" (read out first), nor a sentence that says nothing is owed ("The fee is not due.").
const FEE_WORD = /(?<![\p{L}])(?:fees?|charges?|Gebühr(?:en)?|comisi[óo]n(?:es)?|frais|taxas?|手数料)(?![\p{L}])/iu;
const NO_FEE = /\b(?:free[ \t]{1,3}of[ \t]{1,3}charge|no[ \t]{1,3}(?:(?:extra|additional|further)[ \t]{1,3})?(?:fee|charge)s?|without[ \t]{1,3}(?:any[ \t]{1,3})?(?:(?:extra|additional)[ \t]{1,3})?(?:fee|charge)s?)\b/gi;
// Session 51: a fee the reader's own bank may charge ("Your bank may charge a fee for incoming transfers.", "Fees charged
// by your bank may apply."): theirs to their bank, no fee to pay us, read out as "no fee" is. Only the phrase, and only
// where its clause ends after it or after what the fee is for ("… for international transfers."): "Your bank may charge
// a fee of 5 EUR which you pay to us", "…, plus our 5 EUR release fee" keep their fee word. Bug review R2 of session
// 51 (finding 4): what the fee is for is only a payment the reader receives (incoming, international… transfers, this
// refund or transfer, receiving it): "a fee for the payment", "a processing fee for the release payment" may be ours. Each run of spaces is
// between two words and the gap before the clause's end is bounded: linear.
const READERS_BANK_FEE = new RegExp(
  String.raw`(?:\byour[ \t]{1,3}(?:own[ \t]{1,3})?bank(?:['’]s)?[ \t]{1,3}(?:(?:may|might|could|can|will|would|sometimes|usually|also|possibly)[ \t]{1,3}){0,2}` +
    String.raw`(?:charges?|applies|apply|deducts?|takes?|levy|levies)[ \t]{1,3}(?:(?:you|a|an|its|their|any|some|small|own|transfer|processing|handling|incoming|receiving|currency|conversion|exchange|service)[ \t]{1,3}){0,4}(?:fees?|charges?)` +
    String.raw`|\b(?:any[ \t]{1,3})?(?:fees?|charges?)[ \t]{1,3}(?:charged|applied|levied|taken)[ \t]{1,3}by[ \t]{1,3}your[ \t]{1,3}(?:own[ \t]{1,3})?bank(?:[ \t]{1,3}(?:may|might|can|could|will)[ \t]{1,3}apply)?)` +
    String.raw`(?=[ \t]{0,3}(?:[.!?;,]|$)|[ \t]{1,3}(?:for|on)[ \t]{1,3}(?:(?:the|this|these|any|all|such|some)[ \t]{1,3})?` +
    String.raw`(?:(?:incoming|inbound|international|foreign|overseas|cross-border|receiving|received)[ \t]{1,3}(?:(?:bank|wire|money|SEPA)[ \t]{1,3})?(?:transfers?|payments?|deposits?|transactions?|conversions?)(?:[ \t]{1,3}from[ \t]{1,3}abroad)?` +
    String.raw`|(?:refunds?|transfers?|deposits?|currency[ \t]{1,3}conversions?)(?:[ \t]{1,3}to[ \t]{1,3}you)?|receiving[ \t]{1,3}(?:it|them|the[ \t]{1,3}(?:money|refund|transfer|deposit|payment|amount)))[ \t]{0,3}(?:[.!?;]|$))`,
  'gi',
);
const ACCOUNT_GIVEN_BEFORE =
  /(?<![\p{L}])(?:(?:account|IBAN)[ \t]{1,3}(?:(?:mentioned|indicated|given|shown|stated|listed|named|provided)(?:[ \t]{1,3}(?:above|before|earlier))?|above)|the[ \t]{1,3}(?:same|above|said)[ \t]{1,3}IBAN|cuenta[ \t]{1,3}(?:indicada|mencionada|señalada|arriba)|compte[ \t]{1,3}(?:indiqué|mentionné|ci-dessus)|(?:genannte|genannten|angegebene|angegebenen|obige|obigen)[ \t]{1,3}Konto|conta[ \t]{1,3}(?:acima|indicada|mencionada))(?![\p{L}])/iu;
const AMOUNT_IN_SENTENCE = new RegExp(String.raw`[$€£¥][ \t]?[0-9]|[0-9][ \t]?(?:€|\$|£|¥|円|(?:EUR|USD|GBP|JPY|CHF|yen|euros?|dollars?|pounds?)\b)|${AMOUNT_IN_WORDS}`, 'iu');
const MONEY_ARRIVES = /\b(?:arrive[sd]?|arriving|reach(?:es|ed)?|appear(?:s|ed)?|show[ \t]+up|ankommen|eingehen|gutgeschrieben|llegar[áa]n?|aparecer[áa]|arrivera|appara[iî]tra|chegar[áa]|aparecer[áa])\b/i;
// Session 51: "the account we refunded", "the account we credited": the account pointed at by what we did to it, whose
// refund word is the pointer's and no refund of the sentence ("We made a deposit of five euros to the account we
// refunded"): read out before the sentence's refund words are read ({@link draftAsksToPay}). Each run of spaces is
// between two words: linear.
const ACCOUNT_WE_PAID =
  /\bthe[ \t]{1,3}(?:same[ \t]{1,3})?(?:bank[ \t]{1,3})?account[ \t]{1,3}(?:(?:that|which)[ \t]{1,3})?we[ \t]{1,3}(?:(?:have|had|just|already|recently)[ \t]{1,3}){0,2}(?:refunded|credited|reimbursed|paid|used)\b/gi;
const POINTER_AT_ACCOUNT =
  /\b(?:this|that|the[ \t]+same|the[ \t]+above|said)[ \t]+(?:bank[ \t]+)?(?:account|IBAN)\b|\bthe[ \t]{1,3}(?:same[ \t]{1,3})?(?:bank[ \t]{1,3})?account[ \t]{1,3}(?:(?:that|which)[ \t]{1,3})?we\b|\b(?:to|into|in|on)[ \t]+it\b|\b(?:esta|esa|dicha)[ \t]+cuenta\b|\bdiese[sm]?[ \t]+Konto\b|\bce[ \t]+compte\b|\b(?:esta|essa|nesta|nessa)[ \t]+conta\b/i;
// Session 51: an ask to send money back ("pay it back", "send it back", "return the money", "wire the amount back",
// "refund us"): the overpayment lure's ask once a payment to the reader is told ("A transfer of 20 EUR was made to your
// account … by mistake. Please send it back."). "Send it back" may mean a parcel: a refund to the reader's own account
// beside it waits for a person, the safe side. Bug review R2 of session 51 (finding 1): "reverse the transfer", and
// the reader told to return, reverse, settle or repay ("…, which you must now return.", "…, less our processing fee,
// which you settle by transfer."); "you must return the parcel" parks too, the same safe side.
const MONEY_BACK_ASK =
  /\b(?:send|pay|wire|transfer|give|remit|return)[ \t]{1,3}(?:it|them|(?:the|this|that|these|those)[ \t]{1,3}(?:money|amount|sum|funds|deposit|payment|transfer|difference|overpayment|excess))[ \t]{1,3}back\b|\b(?:send|pay|wire|transfer|give|remit)[ \t]{1,3}back[ \t]{1,3}(?:the|this|that)[ \t]{1,3}(?:money|amount|sum|funds|deposit|payment|transfer|difference|overpayment|excess)\b|\b(?:return|reverse)[ \t]{1,3}(?:the|this|that)[ \t]{1,3}(?:money|amount|sum|funds|deposit|payment|transfer|transaction|difference|overpayment|excess)\b|\b(?:refund|reimburse)[ \t]{1,3}us\b|\b(?:which|that)[ \t]{1,3}you[ \t]{1,3}(?:(?:must|should|will|need[ \t]{1,3}to|have[ \t]{1,3}to|are[ \t]{1,3}(?:asked|required)[ \t]{1,3}to)[ \t]{1,3})?(?:now[ \t]{1,3})?(?:return|reverse|settle|repay)\b|\byou[ \t]{1,3}(?:must|should|will|need[ \t]{1,3}to|have[ \t]{1,3}to|are[ \t]{1,3}(?:asked|required)[ \t]{1,3}to)[ \t]{1,3}(?:now[ \t]{1,3})?(?:return|reverse|settle|repay)\b/i;
const DRAFT_PAY_ASK = [JA_PAY_ASK, JA_POINTED_PAY_ASK, PAYMENT_USE_ASK, EN_PAY_ASK, POINTS_BACK_TO_ACCOUNT, OTHER_PAY_IMPERATIVE, MONEY_BACK_ASK];
// An imperative to pay at a sentence's start, after please or kindly, or after a leading "To …," clause ("To release
// it, send 5 EUR there"); "Please pay attention" asks nothing. Only a verb with its object after it (the, a, your, an
// amount…): "Transfer times vary", "Wire transfers can take 5 days", "Pay no attention" are nouns or ask nothing (bug
// review B3a, MED 4). Anchored, each gap bounded: linear.
const PAY_IMPERATIVE =
  new RegExp(String.raw`^[ \t"'(]{0,3}(?:(?:to\s[^,\n]{1,40},|then|now|first|and|also)\s{1,3})?(?:(?:please|kindly)\s{1,3})?(?:(?:pay|wire|transfer|remit|deposit)(?=\s{1,3}(?:(?:the|a|an|your|us|it|now|this|that|these|those|there|our|me|them|any|all|some|one|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|hundred|EUR|USD|GBP|CHF|JPY)\b|[$€£¥0-9]))|send\s{1,3}(?:us\s{1,3})?(?:[$€£¥]|[0-9]|${AMOUNT_IN_WORDS}))`, 'iu');
// A pay verb before an amount of money a few words on, unless we are the ones paying ("We will transfer 20 EUR to
// you", "to be sent 20 EUR"): "complete the transfer of 5 EUR", "you need to pay 500 yen". The verbs are
// OWN_ACCOUNT_PAY_VERB's, and the words before and after each are read anchored on a few characters: one pattern with
// the lookbehind and the gap was polynomial to recheck.
const WE_PAY_BEFORE = /\b(?:we|I|will|'ll|’ll|shall|be|has|have|had|been|was|were|is|are)[ \t]$/i;
const AMOUNT_AFTER = new RegExp(
  String.raw`^[^.!?;\n]{0,40}?(?:[$€£¥][ \t]?[0-9]|[0-9][ \t]?(?:€|\$|£|¥|円|EUR\b|USD\b|GBP\b|JPY\b|CHF\b|yen\b|euros?\b|dollars?\b|pounds?\b)|${AMOUNT_IN_WORDS})`,
  'iu',
);
const WE_PAY_BEFORE_CHARS = 8;
// Session 51: the verb is the noun of a payment told as made to the reader ("A transfer of 20 EUR was made to your
// account"): an article before it, and the same past passive into "your" as {@link OWN_ACCOUNT_PAID_BACK}'s after its
// amount. "Complete the transfer of 5 EUR" and "The transfer of 5 EUR is needed" still ask.
const PAY_NOUN_BEFORE = /\b(?:a|an|the|our|this|that|one)[ \t]$/i;
const PAID_TO_YOU_AFTER =
  /^[ \t]{1,3}of[ \t]{1,3}(?:[^\s!?;]{1,12}[ \t]{1,3}){1,2}?(?:was|were|has[ \t]{1,3}been|have[ \t]{1,3}been)[ \t]{1,3}(?:made|sent|transferred|wired|paid|deposited|issued|credited)[ \t]{1,3}(?:to|into)[ \t]{1,3}your\b/i;

/** Whether `sentence` has a pay verb before an amount that it does not say we pay ({@link AMOUNT_AFTER}). */
function paysAmount(sentence: string): boolean {
  for (const m of sentence.matchAll(OWN_ACCOUNT_PAY_VERB)) {
    const after = m.index + m[0].length;
    const before = sentence.slice(Math.max(0, m.index - WE_PAY_BEFORE_CHARS), m.index);
    if (WE_PAY_BEFORE.test(before)) continue;
    if (PAY_NOUN_BEFORE.test(before) && PAID_TO_YOU_AFTER.test(sentence.slice(after, after + TO_THAT_AFTER_CHARS))) continue;
    if (AMOUNT_AFTER.test(sentence.slice(after, after + TO_THAT_AFTER_CHARS))) return true;
  }
  return false;
}

/** One sentence of a draft as {@link DRAFT_PAY_CONDITIONS} read it. */
interface PaySentence {
  /** The sentence as written. */
  sentence: string;
  /** The sentence with what says nothing is owed read out ({@link NEGATED_OWED}). */
  read: string;
  /** Whether the sentence says we pay the reader back ({@link OWN_ACCOUNT_PAID_BACK}). */
  refunds: boolean;
}
/** A way a sentence asks the reader for a payment or says they owe money: what ends the own-account exemption. */
interface PayCondition {
  name: string;
  asks: (reading: PaySentence) => boolean;
  why: string;
}
// Each row is one way a sentence asks for money; any row that holds for any sentence ends the exemption for the draft
// ({@link draftAsksToPay}). A row that excuses a refund's own sentence says so in its test and its why.
const DRAFT_PAY_CONDITIONS: readonly PayCondition[] = [
  {
    name: 'owes an amount',
    asks: ({ sentence }) => owesAmount(sentence),
    why: 'an amount due or owed, what the account must receive from the reader, or an ask to send money back to the place named (bug review B3 of session 49)',
  },
  {
    name: 'asks to pay',
    asks: ({ read }) => DRAFT_PAY_ASK.some((ask) => ask.test(read)) || PAY_IMPERATIVE.test(read) || paysAmount(read),
    why: 'an ask to pay in any language the refund words cover, an imperative to pay, or a pay verb before an amount we do not say we pay (security review 18, HIGH 1)',
  },
  {
    name: 'an amount beside a pointer at the account',
    // Not one that says the money reaches the account ("The 20 EUR will arrive in this account within 3 days").
    asks: ({ read, refunds }) => !refunds && AMOUNT_IN_SENTENCE.test(read) && POINTER_AT_ACCOUNT.test(read) && !MONEY_ARRIVES.test(read),
    why: '"Kindly put 5 EUR in this account", "A cost of 5 EUR is due to this IBAN": in a sentence that pays nothing back, an amount and the account pointed at ask for money (bug review B4)',
  },
  {
    name: 'points at the account given before',
    // A refund word does not excuse a sentence that points back at the account without writing it ("To get your
    // refund, kindly make the 5 EUR payment to the same IBAN").
    asks: ({ sentence, read, refunds }) => ACCOUNT_GIVEN_BEFORE.test(read) && (!refunds || !/[0-9]{4}/.test(sentence)),
    why: 'the account mentioned above, the same IBAN, la cuenta indicada: a pointer back at the account has no business in a refund but to send money there, unless the refund\'s own sentence writes the account (bug review B3a)',
  },
  {
    name: 'names a fee',
    // read === sentence: no "nothing is owed" was read out of it ({@link FEE_WORD}).
    asks: ({ sentence, read, refunds }) => !refunds && read === sentence && FEE_WORD.test(read.replace(NO_FEE, ' ').replace(READERS_BANK_FEE, ' ')),
    why: 'a fee in a sentence that pays nothing back is a fee to pay; the refund\'s own sentence may name the fee it pays back, and the reader\'s own bank may charge one (bug review B3a, the safe side; session 51)',
  },
];

/** Whether a sentence of `text` asks the reader for a payment or says they owe money ({@link DRAFT_PAY_CONDITIONS}). */
function draftAsksToPay(text: string): boolean {
  for (let from = 0; from < text.length; ) {
    const end = otherClauseEnd(text, from, OWN_SENTENCE_CHARS);
    const sentence = text.slice(from, end);
    from = Math.max(end + 1, from + 1);
    if (!/\S/.test(sentence)) continue;
    const read = NEGATED_OWED.reduce((kept, negated) => kept.replace(negated, ' '), sentence);
    // "The account we refunded" names the account, not a refund of this sentence ({@link ACCOUNT_WE_PAID}).
    const reading: PaySentence = { sentence, read, refunds: OWN_ACCOUNT_PAID_BACK.test(sentence.replace(ACCOUNT_WE_PAID, ' ')) };
    if (DRAFT_PAY_CONDITIONS.some((condition) => condition.asks(reading))) return true;
  }
  return false;
}

/** The IBANs (as keys) and digit runs of at least seven digits (the digits alone) that `text` (folded) writes. */
function accountKeysIn(text: string): Array<{ start: number; end: number; key: string }> {
  const found: Array<{ start: number; end: number; key: string }> = ibans(text).map(({ start, end, key }) => ({ start, end, key }));
  for (const m of text.matchAll(OTHER_ACCOUNT_DIGITS)) {
    if (accountRun(text, m.index, m[0])) found.push({ start: m.index, end: m.index + m[0].length, key: `digits:${m[0].replace(/[^0-9]/g, '')}` });
  }
  return found.sort((a, b) => a.start - b.start);
}

/**
 * Where `text` (read by {@link checkedText}) writes the reader's own account that their own mail (`customerMail`) writes
 * too, the same IBAN or the same digits, in a sentence that names it as the reader's and asks nothing: [start, end],
 * in order and apart. The caller gives the mail only for a reply to a sender our receiving server vouches for.
 */
export function ownAccountsFromMail(text: string, customerMail: readonly string[]): Array<[number, number]> {
  if (customerMail.length === 0 || !/[0-9]/.test(text)) return [];
  const mailKeys = new Set(customerMail.flatMap((mail) => accountKeysIn(folded(checkedKnowledgeText(mail))).map((k) => k.key)));
  if (mailKeys.size === 0) return [];
  const own: Array<[number, number]> = [];
  let asksToPay: boolean | undefined;
  for (const { start, end, key } of accountKeysIn(folded(text))) {
    if (!mailKeys.has(key)) continue;
    const sentence = text.slice(otherClauseStart(text, start, OWN_SENTENCE_CHARS), otherClauseEnd(text, end, OWN_SENTENCE_CHARS));
    if (!OWN_ACCOUNT_WORDS.some((words) => words.test(sentence)) || (!key.startsWith('iban:') && !ACCOUNT_NAMED.test(sentence) && sentence.search(OTHER_ACCOUNT_LABEL) < 0)) continue;
    if (OWN_ACCOUNT_ASK.some((ask) => ask.test(sentence)) || !OWN_ACCOUNT_PAID_BACK.test(sentence)) continue;
    // Read once, and only for a draft that names such an account: every sentence ({@link draftAsksToPay}).
    asksToPay ??= draftAsksToPay(text);
    if (asksToPay) return [];
    // An IBAN and a run of its digits overlap: merged, so that the spans stay apart and in order.
    const last = own[own.length - 1];
    if (last && start < last[1]) last[1] = Math.max(last[1], end);
    else own.push([start, end]);
  }
  return own;
}

// Each Japanese account pattern with the fixed word it cannot match without.
const ACCOUNT_PATTERNS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [ACCOUNT_AFTER_TYPE, /普通|当座|貯蓄|\((?:普|当|貯)\)/],
  [ACCOUNT_AFTER_LABEL, /口座/],
  [ACCOUNT_AFTER_BRANCH, /支店|営業部|出張所/],
];

function bankAccounts(text: string): PaymentDetail[] {
  // [where its label starts, the digits compared]
  const found = new Map<number, { from: number; end: number; digits: string }>();
  const add = (from: number, numberStart: number, end: number, digits: string) => {
    const known = found.get(numberStart);
    if (!known || from < known.from) found.set(numberStart, { from, end, digits });
  };
  for (const [pattern, trigger] of ACCOUNT_PATTERNS) {
    // Every draft is read: a pattern runs only where its fixed word is (the branch's, tried at every position, cost
    // a 3 KB draft about 0.2 ms).
    if (!trigger.test(text)) continue;
    for (const m of text.matchAll(pattern)) {
      const group = m.indices!.findIndex((range, i) => i > 0 && range !== undefined);
      const [start, end] = m.indices![group]!;
      const digits = text.slice(start, end);
      // Digits in groups after a branch: its postcode before its town (札幌支店 060-0001 札幌市…) is none; otherwise an
      // account where the paragraph pays into one (the pay line may stand above: お支払いは下記の口座へ。\n…).
      // A postcode-shaped number under a payee's label in its sentence (お振込み先: 福岡支店 123-4567 福岡市…) is one.
      if (pattern === ACCOUNT_AFTER_BRANCH && group === 3) {
        const postcode = POSTCODE_BEFORE_TOWN.test(text.slice(end, end + 16)) && !JA_PAY_ASK.test(sentenceAround(text, m.index, end, 80, 60));
        if (postcode || !PAYS_INTO_JA.test(paragraphAround(text, m.index, end, PAY_ASK_BEFORE_CHARS, 60))) continue;
      }
      // A group of four first after the type alone reads as a range or a date (普通 1000-1500, 当座 2024-0115).
      if (pattern === ACCOUNT_AFTER_TYPE && /^[0-9]{4}[^0-9]/.test(digits) && !/口座|番号/.test(m[0])) continue;
      if (DATE_SHAPED.test(digits)) continue;
      // The customer's own account where we pay them back, unless the sentence asks to pay into it or names it as
      // where to pay (review 42b: ご登録の口座 1234567 への返金 is the refund's, ご指定の口座 … へお振込みください an ask).
      if (
        pattern !== ACCOUNT_AFTER_BRANCH &&
        OWN_ACCOUNT_BEFORE.test(text.slice(Math.max(0, m.index - 24), m.index)) &&
        !JA_PAY_ASK.test(sentenceAround(text, m.index, end, 80, 60)) &&
        !JA_POINTED_PAY_ASK.test(paragraphAround(text, m.index, end, PAY_ASK_BEFORE_CHARS, PAY_ASK_AFTER_CHARS))
      ) {
        continue;
      }
      add(m.index, start, end, digits);
    }
  }
  for (const m of text.includes('記号') ? text.matchAll(YUCHO_ACCOUNT) : []) {
    // 記号 and 番号 are an insurance card's or a member card's too: ゆうちょ's only where the paragraph says so (review
    // 43d: the bank is named on the line above, ゆうちょ銀行へのお振込み先\n記号 12340 番号 12345671).
    if (!YUCHO_WORD.test(paragraphAround(text, m.index, m.index + m[0].length, PAY_ASK_BEFORE_CHARS, 40))) continue;
    add(m.index, m.indices![1]![0], m.index + m[0].length, `${m[1]}${m[2]}`);
  }
  // Where the line of the label starts and where the bullet and spaces opening it end, carried from one label to the
  // next (the labels come in order): read back from each label, a line of 400 KB of labels took 22 s (review 43d).
  let lineStart = 0;
  let nextBreak = text.indexOf('\n');
  let openingEnd = -1;
  for (const m of text.matchAll(EN_ACCOUNT)) {
    const [start, end] = m.indices![1]!;
    while (nextBreak !== -1 && nextBreak < m.index) {
      lineStart = nextBreak + 1;
      openingEnd = -1;
      nextBreak = text.indexOf('\n', lineStart);
    }
    // Only the words around it are read, so many labels in a long text stay linear.
    const before = (m.index > 80 ? '\u0000' : '') + text.slice(Math.max(0, m.index - 80), m.index);
    const asked = PAY_INTO_BEFORE.test(before);
    const around = sentenceAround(text, m.index, end, 80, 60);
    const yours = YOUR_ACCOUNT_BEFORE.test(before) && !EN_PAY_ASK.test(paragraphAround(text, m.index, end, PAY_ASK_BEFORE_CHARS, PAY_ASK_AFTER_CHARS));
    if (DECIMAL_AMOUNT.test(text.slice(start, end))) continue;
    // A label opening its line under a bank's line of the same block (Bank: Mizuho Bank / Account: 7654321), whatever
    // else the block says (review 43d: "To keep your account active, the fee goes to:" above it is a forger's too).
    if (openingEnd < 0) {
      LINE_OPENING.lastIndex = lineStart;
      openingEnd = lineStart + LINE_OPENING.exec(text)![0].length;
    }
    const opensLine = m.index === openingEnd;
    const fieldUnderBank = opensLine && linesAbove(text, lineStart).some((line) => BANK_WORD.test(line));
    // The number on the line under its label, whose line names a bank ("Our bank account has changed. New account
    // number:\n12345678", review 43d): the label's line heads the number as a bank's line heads a field.
    const underBankLabel = m[0].includes('\n') && BANK_WORD.test(text.slice(lineStart, m.index));
    const askedUnderBank = EN_TRANSFER_ASK.test(around) && bankInSentenceBefore(text, m.index, before);
    if (!asked && !fieldUnderBank && !underBankLabel && (!(BANK_WORD.test(around) || PAYMENT_USE_ASK.test(around) || askedUnderBank) || yours)) continue;
    add(m.index, start, end, text.slice(start, end));
  }
  for (const m of /[0-9]/.test(text) && text.includes('\n') ? text.matchAll(NUMBER_LINE) : []) {
    const above = linesAbove(text, m.index);
    const nearest = above.findLast((line) => line !== '') ?? '';
    const underAccountLabel = m[1] === undefined && ACCOUNT_LABEL_LINE.test(nearest);
    if (!underAccountLabel && !above.some((line) => BANK_LINE.test(line))) continue;
    // A bare number under another thing's label is that thing's (the line right above: after a blank line, none is).
    if (m[1] === undefined && !underAccountLabel && OTHER_LABEL_ABOVE.test(above[above.length - 1] ?? '')) continue;
    const [start, end] = m.indices![2]!;
    const digits = text.slice(start, end);
    // Review 43d: what stays excluded is what no account can be written as: a date's shape here; a time range with
    // colons (9:00-15:00) and a postcode after 〒 (〒530-0001) are no number line at all. Hours without colons
    // (1000-1500) and a postcode without 〒 (530-0001) are seven or eight digits an account can be.
    if (DATE_SHAPED.test(digits)) continue;
    add(m.indices![1]?.[0] ?? start, start, end, digits);
  }
  // Security review 16: the other languages' accounts, compared by their digits alone (dots between groups too).
  if (/[0-9]{2}/.test(text)) {
    for (const [from, start, end, last] of otherLanguageAccounts(text)) {
      if (!found.has(start)) add(from, start, last, text.slice(start, end).replace(/[^0-9]/g, ''));
    }
  }
  return [...found.values()].map(({ from, end, digits }) => {
    const bank = BANK_BEFORE.exec(text.slice(Math.max(0, from - 30), from));
    const start = bank && bank[0] !== '' ? from - bank[0].length : from;
    return { kind: 'bank-account' as const, start, end, key: `account:${compact(digits)}` };
  });
}

// --- SWIFT/BIC, after its label only ---
// The value in any case; one written in small letters is checked again ({@link swiftCodes}). "bic" in small letters
// only before a colon (a Bic is a pen).
const SWIFT =
  /(?<![A-Za-z])(?:[Ss][Ww][Ii][Ff][Tt](?:[ \t]*\/[ \t]*(?:BIC|[Bb]ic))?|BIC|[Bb]ic(?=[ \t]*[:：]))[ \t]*(?:(?:[Cc]ode|CODE|コード)[ \t]*)?((?:[:：=]|は)[ \t]*)?([A-Za-z]{6}[A-Za-z0-9]{2}(?:[A-Za-z0-9]{3})?)(?![A-Za-z0-9])/dg;
// Where a BIC's fifth and sixth letters are a country: ISO 3166-1 alpha-2, and XK (Kosovo).
const COUNTRIES = new Set(
  ('AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ ' +
    'DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT ' +
    'JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI ' +
    'NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK ' +
    'TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW').split(' '),
);
// Words of eight or eleven letters with a country in that place, which an answer writes after "SWIFT code:".
const SWIFT_WORDS = new Set([
  'required', 'provided', 'attached', 'supplied', 'accepted', 'verified', 'detailed', 'obtained', 'assigned', 'location', 'relevant', 'domestic', 'overseas',
  'business', 'customer', 'optional', 'included', 'received', 'complete', 'separate', 'approved', 'reserved', 'selected', 'standard', 'internal', 'transfer',
  'payments', 'personal', 'accounts', 'invoices', 'checking', 'mandatory', 'unavailable', 'recommended', 'unspecified', 'unnecessary', 'appropriate',
  'information', 'transaction', 'unsupported', 'necessary', 'displayed', 'different', 'requested', 'confirmed', 'submitted', 'specified', 'mentioned',
  'disabled', 'inactive', 'disallowed', 'unchanged',
]);

function swiftCodes(text: string): PaymentDetail[] {
  const found: PaymentDetail[] = [];
  for (const m of text.matchAll(SWIFT)) {
    const value = m[2]!;
    // In capitals, as a bank writes it; in small letters only with a digit (nwbkgb2l), or after a colon with a country
    // in its place and no word of the answer (SWIFT code: required).
    const upper = value.toUpperCase();
    // The label in capitals too (SWIFT code: deutdeff): "Swift: disabled" is a setting of a Swift toolchain.
    const capitalLabel = /^(?:SWIFT|BIC)/.test(m[0]);
    if (value !== upper && !/[0-9]/.test(value) && !(capitalLabel && m[1] !== undefined && COUNTRIES.has(upper.slice(4, 6)) && !SWIFT_WORDS.has(value.toLowerCase()))) continue;
    found.push({ kind: 'swift', start: m.index, end: m.index + m[0].length, key: `swift:${compact(value)}` });
  }
  return found;
}

// --- IBANs, in any case ---
/** The IBANs of `text` (folded): personal-data's, read in capitals; one written otherwise needs eight digits after its
 * check digits, so that words of four letters after "at12" are no IBAN (the mod-97 check would pass one in 97). */
function ibans(text: string): PaymentDetail[] {
  const upper = text.replace(/[a-z]+/g, (w) => w.toUpperCase());
  const found: PaymentDetail[] = [];
  for (const [start, end] of ibanRanges(upper)) {
    const written = text.slice(start, end);
    if (written !== upper.slice(start, end) && (written.slice(4).match(/[0-9]/g)?.length ?? 0) < 8) continue;
    found.push({ kind: 'iban', start, end, key: `iban:${compact(written)}` });
  }
  return found;
}

// --- Crypto addresses ---
const BECH32 = /(?<![A-Za-z0-9])(?:bc1|tb1|ltc1)[02-9ac-hj-np-z]{11,87}(?![A-Za-z0-9])/gi;
const BASE58 = /(?<![A-Za-z0-9])(?:[13][1-9A-HJ-NP-Za-km-z]{25,34}|T[1-9A-HJ-NP-Za-km-z]{33})(?![A-Za-z0-9])/g;
const ETHEREUM = /(?<![A-Za-z0-9])0x[0-9a-fA-F]{40}(?![0-9A-Za-z])/g;
const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Whether a base58 string decodes to a payload whose last four bytes are its double SHA-256 checksum. */
function base58CheckValid(value: string): boolean {
  let n = 0n;
  for (const c of value) n = n * 58n + BigInt(BASE58_ALPHABET.indexOf(c));
  const bytes: number[] = [];
  for (; n > 0n; n >>= 8n) bytes.unshift(Number(n & 0xffn));
  for (const c of value) {
    if (c !== '1') break;
    bytes.unshift(0);
  }
  if (bytes.length < 5) return false;
  const payload = Buffer.from(bytes.slice(0, -4));
  const sum = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest();
  return sum.subarray(0, 4).equals(Buffer.from(bytes.slice(-4)));
}

function cryptoAddresses(text: string): PaymentDetail[] {
  const found: PaymentDetail[] = [];
  for (const pattern of [BECH32, ETHEREUM, BASE58]) {
    for (const m of text.matchAll(pattern)) {
      if (pattern === BASE58 && !base58CheckValid(m[0])) continue;
      found.push({ kind: 'crypto', start: m.index, end: m.index + m[0].length, key: `crypto:${m[0].toLowerCase()}` });
    }
  }
  return found;
}

// --- Chat and payment handles ---
// LINE in capitals; "line" or "Line" only right before ID (line id: xyz-help2; full-width Ｌｉｎｅ ＩＤ folds to it):
// "line" is an English word. ライン only before ID or 公式 (オンライン).
// Review 12: LINE spelt out with spaces (L I N E) too.
const CASED_CHAT_LABEL = String.raw`(?<![A-Za-z])(?:LINE|L[ \t]I[ \t]N[ \t]E|[Ll]ine(?=[ \t]*[Ii][Dd](?![A-Za-z])))(?![A-Za-z])|ライン(?=[ \t]*(?:ID|公式))`;
// ライン or ﾗｲﾝ as a word of its own (ラインで xyz_help2 まで), not inside one (オンライン, ガイドライン, 生産ライン,
// ラインナップ): read only in the forms with a particle or 友だち追加 around the id ({@link plainIdsAround}).
const KANA_LINE = String.raw`(?<![\p{Script=Han}\p{Script=Katakana}ーｰ\uFF66-\uFF9F])(?:ライン|ﾗｲﾝ)(?![\p{Script=Katakana}ーｰ\uFF66-\uFF9F])`;
const CHAT_LABEL =
  String.raw`(?<![A-Za-z])(?:telegram|whats[ \t]?app|signal|skype|we[ \t]?chat|kakao(?:[ \t]?talk)?|viber|pay[ \t]?pay|venmo|cash[ \t]?app|zelle|ali[ \t]?pay)(?![A-Za-z])|` +
  'テレグラム|ワッツアップ|スカイプ|ウィーチャット|カカオトーク|ペイペイ|微信|支付宝|アリペイ';
// What may stand between a label and its value: an account word, the particle or colon, an opening bracket.
// Up to three words (公式アカウント ID), each after its own spaces: a run of spaces is never shared by two of them.
const ACCOUNT_WORD = String.raw`(?:[ \t]*(?:公式|アカウント|account|ID|id|Id|ユーザー名|ユーザーネーム|user[ \t]?name|username|handle|番号|number|号|账号|帳號|账户)){1,3}`;
const COLON = String.raw`[ \t]*(?:[:：=]|は|が)[ \t]*(?:[「『(（【\[<"“'‘][ \t]*)?`;
const BRACKET = String.raw`[ \t]*[「『(（【\[<"“'‘][ \t]*`;
// A value that is a handle by its shape: an @handle, a Skype live: id, a $cashtag.
const STRONG_VALUE = String.raw`@[A-Za-z0-9][A-Za-z0-9._-]{1,63}|live:[A-Za-z0-9._:-]{2,64}|\$[A-Za-z][A-Za-z0-9_-]{0,20}`;
// A plain id (not ending in a dot or hyphen: the sentence's full stop is none of it) or a number.
const PLAIN_ID = String.raw`[A-Za-z][A-Za-z0-9._-]{2,63}(?<![.\-])`;
const PLAIN_VALUE = String.raw`${PLAIN_ID}|\+?[0-9](?:[ -]?[0-9]){6,14}`;
const VALUE_END = String.raw`(?![A-Za-z0-9_@-]|\.[A-Za-z0-9])`;
// The bracket that closes one opened before the value is named with it (LINE ID「@xyz-support」).
const CLOSING = String.raw`(?:[」』)）】\]>"”'’])?`;
// `touching`: the @handle may follow the label without a space (LINE＠xyz-help2). Only for LINE, whose @ is its
// official accounts' mark: "zelle@bank.example" is an address, which the address check reads.
const labelled = (label: string, flags: string, touching: boolean) =>
  new RegExp(
    `(?:${label})(?:(?:${ACCOUNT_WORD})?(?:${COLON}|${BRACKET}|[ \\t]+|(?:[ \\t]*(?:で|の|に|へ|on|at|via)[ \\t]*)${touching ? '|(?=@)' : ''})(${STRONG_VALUE})|(?:[ \\t]*[(【\\[]${ACCOUNT_WORD}|${ACCOUNT_WORD})?${COLON}(${PLAIN_VALUE})|${ACCOUNT_WORD}${BRACKET}(${PLAIN_VALUE}))${VALUE_END}${CLOSING}`,
    `${flags}dg`,
  );
const LABELLED_HANDLES = [labelled(CASED_CHAT_LABEL, 'u', true), labelled(CHAT_LABEL, 'iu', false)];
// An @handle before its label ("@xyz_refunds on Telegram", "@xyz（LINE）").
const handleBefore = (label: string, flags: string) =>
  new RegExp(`(?<![A-Za-z0-9._%+-])(${STRONG_VALUE})${VALUE_END}[ \\t]*(?:on|via|at|in|で|の|[(（【\\[])[ \\t]*(?:${label})`, `${flags}dg`);
const HANDLES_BEFORE = [handleBefore(CASED_CHAT_LABEL, 'u'), handleBefore(CHAT_LABEL, 'iu')];
// A plain id written around its label without a colon, each form's group 1 the id ({@link plainId} decides):
const plainIdsAround = (label: string, flags: string) => [
  // after at or via (Telegram at xyz.refunds; "on" is where the app runs: WhatsApp on Android-14), or "to" and an id
  // label (Pay with PayPay to ID xyzshop01);
  new RegExp(`(?:${label})[ \\t]+(?:at|via|to[ \\t]+(?:ID|id|Id|account|handle|user[ \\t]?name|username))[ \\t]+(${PLAIN_ID})${VALUE_END}`, `${flags}dg`),
  // an international number after the label without a colon (WhatsApp +81 90 1234 5678);
  new RegExp(`(?:${label})(?:${ACCOUNT_WORD})?[ \\t]+(\\+[0-9](?:[ -]?[0-9]){8,14})(?![0-9])`, `${flags}dg`),
  // between the label (and its particle) and the particle after it (LINEで xyz-help2 まで);
  new RegExp(`(?:${label})(?:[ \\t]*(?:で|の|に|へ))?[ \\t]*(${PLAIN_ID})(?=[ \\t]*(?:まで|に|へ|宛|を|で|から))`, `${flags}dg`),
  // after an id label and before the label (ID：xyz-help2 までLINEで, ID: xyz-help2 on Telegram);
  new RegExp(
    `(?<![A-Za-z0-9_])(?:ID|Id|id|アカウント|ユーザー名|account|handle|username)[ \\t]*(?:[:：]|は)[ \\t]*@?(${PLAIN_ID})[ \\t]*(?:まで|に|へ|宛て?|で|on|via|at|in)[ \\t]*(?:の[ \\t]*)?(?:${label})`,
    `${flags}dg`,
  ),
  // where the sentence says to search for it (LINEの友だち追加は xyz_help2 で検索).
  new RegExp(`(?:${label})[^。！？\\n]{0,16}?(?:は|で|[:：]|[ \\t])[ \\t]*(${PLAIN_ID})(?=[ \\t]*(?:で|を)[ \\t]*(?:ID)?(?:検索|友だち追加|友達追加|追加))`, `${flags}dg`),
  // Review 12: an id label in brackets without a colon (L I N E (ID xyz_help2)), a username after the messenger's name
  // (Telegram, username xyz_refunds).
  new RegExp(`(?:${label})[ \\t]*[(【\\[][ \\t]*(?:ID|id|Id|アカウント|account|username|user[ \\t]?name|handle)[ \\t]+@?(${PLAIN_ID})${VALUE_END}`, `${flags}dg`),
  // (Review 43b: the comma takes the spaces after it, so that two runs of spaces never stand side by side: they
  // backtracked quadratically on one long run, 'LINE' and 100,000 spaces 7.8 s.)
  new RegExp(`(?:${label})[ \\t]*(?:[,、][ \\t]*)?(?:username|user[ \\t]?name|handle|ID|id|Id)(?:[ \\t]+is)?[ \\t]+@?(${PLAIN_ID})${VALUE_END}`, `${flags}dg`),
];
// Review 12: an id right before 友だち追加 is a LINE id whatever labels it (ラインでxyz_help2を友だち追加): the words are
// LINE's own. Read with ライン's forms of a particle after the label (ﾗｲﾝで xyz_help2 まで).
// Review 43b: each run of spaces follows one token (the id, the particle, ID, 検索して): three optional runs side by
// side backtracked cubically, 'abc', 4,000 spaces and 'x 友だち追加' 34 s.
const FRIEND_ADD = new RegExp(
  `(?<![A-Za-z0-9_.@-])@?(${PLAIN_ID})[ \\t]*(?:(?:を|で)[ \\t]*)?(?:ID[ \\t]*)?(?:検索し(?:て|、)?[ \\t]*)?(?:友だち追加|友達追加)`,
  'dgu',
);
const PLAIN_IDS_AROUND = [
  ...plainIdsAround(CASED_CHAT_LABEL, 'u'),
  ...plainIdsAround(CHAT_LABEL, 'iu'),
  new RegExp(`(?:${KANA_LINE})(?:[ \\t]*(?:で|の|に|へ))?[ \\t]*(${PLAIN_ID})(?=[ \\t]*(?:まで|に|へ|宛|を|で|から))`, 'dgu'),
  FRIEND_ADD,
];
// What a plain value after a label is when it is a word of the sentence, not an id.
const NOT_AN_ID =
  /^(?:your|our|the|this|that|here|there|see|below|above|required|needed|optional|mandatory|unknown|none|not|n\/a|na|blank|empty|missing|pending|available|unavailable|supported|unsupported|enabled|disabled|registered|unregistered|linked|unlinked|set|unset|shown|displayed|only|and|or|app|official|account|business|id|number|name|username|email|e-mail|phone|yes|no|ok)$/i;
// A version (PayPay: v2.3以降, Telegram at v2.1) is no id.
const VERSION = /^v(?:er(?:sion)?)?[ .]?[0-9]+(?:\.[0-9]+)*[a-z]?$/i;
// Nor a channel, band or port (Signal at ch-36), or a word written with a hyphen (Skype: sign-in fails).
const NOT_AN_ID_SHAPE =
  /^(?:(?:ch|chan|channel|band|port|slot|pin|rev|page|pg|no|step|level|lv|tv|fm|am|ap|cam|node)[-. ]?[0-9]+|sign-in|sign-up|sign-out|log-in|log-out|opt-in|opt-out|add-on|add-ons|plug-in|plug-ins|built-in|check-in|pop-up|pop-ups|set-up|follow-up|read-only|wi-fi|e-mail|up-to-date|two-factor|end-to-end)$/i;
// A plain value is an id when shaped like one: a digit, or a dot, underscore or hyphen inside.
const ID_SHAPED = /[0-9]|[A-Za-z0-9][._-][A-Za-z0-9]/;

/** Whether a plain value after or before a label is an id: a number, or shaped like an id and no word or version. */
function plainId(value: string): boolean {
  return /^\+?[0-9]/.test(value) || (!NOT_AN_ID.test(value) && !VERSION.test(value) && !NOT_AN_ID_SHAPE.test(value) && ID_SHAPED.test(value));
}

// Any label's word, in any case: without one the text holds no handle, and the labelled patterns (each tried at every
// position, with Unicode case folding) need not run.
const ANY_CHAT_LABEL = /(?<![A-Za-z])line|l[ \t]i[ \t]n[ \t]e|ライン|ﾗｲﾝ|友だち追加|友達追加|telegram|whats[ \t]?app|signal|skype|we[ \t]?chat|kakao|viber|pay[ \t]?pay|venmo|cash[ \t]?app|zelle|ali[ \t]?pay|テレグラム|ワッツアップ|スカイプ|ウィーチャット|カカオトーク|ペイペイ|微信|支付宝|アリペイ/iu;

function handles(text: string): PaymentDetail[] {
  if (!ANY_CHAT_LABEL.test(text)) return [];
  const found: PaymentDetail[] = [];
  for (const pattern of LABELLED_HANDLES) {
    for (const m of text.matchAll(pattern)) {
      const group = m.indices!.findIndex((range, i) => i > 0 && range !== undefined);
      const [vs, ve] = m.indices![group]!;
      const value = text.slice(vs, ve);
      if (group > 1 && !plainId(value)) continue;
      // "Line ID: 1234567" is an invoice's line; a LINE id in small letters is one only when it starts with a letter.
      if (group > 1 && /^[Ll]ine/.test(m[0]) && !m[0].startsWith('LINE') && /^\+?[0-9]/.test(value)) continue;
      // A closing bracket is the value's only when the match opened one (not the one after "（LINE ID：@x）").
      const closes = /[」』)）】\]>"”'’]$/u.test(m[0]) && !/[「『(（【\[<"“'‘]/u.test(m[0].slice(0, -1));
      found.push({ kind: 'handle', start: m.index, end: m.index + m[0].length - (closes ? 1 : 0), key: handleKey(value) });
    }
  }
  for (const pattern of HANDLES_BEFORE) {
    for (const m of text.matchAll(pattern)) {
      const [vs, ve] = m.indices![1]!;
      found.push({ kind: 'handle', start: m.index, end: m.index + m[0].length, key: handleKey(text.slice(vs, ve)) });
    }
  }
  for (const pattern of PLAIN_IDS_AROUND) {
    for (const m of text.matchAll(pattern)) {
      const [vs, ve] = m.indices![1]!;
      const value = text.slice(vs, ve);
      if (!plainId(value)) continue;
      // Named from the label to the id, or from the id's label to the chat's; before 友だち追加, the id alone (a label
      // before it names it wider).
      found.push({ kind: 'handle', start: m.index, end: pattern === FRIEND_ADD ? ve : Math.max(ve, m.index + m[0].length), key: handleKey(value) });
    }
  }
  // personal-data's LINE ids, named with their label (LINE ID：taro_y): what the patterns above did not take. Its
  // pattern has not the scrub's exceptions, so a word of the sentence (LINE ID: optional) is left out here.
  for (const [start, end] of lineIdRanges(text)) {
    const value = text.slice(start, end);
    if (NOT_AN_ID.test(value) || VERSION.test(value)) continue;
    const label = text.lastIndexOf('LINE', start);
    found.push({ kind: 'handle', start: label >= 0 && start - label <= 24 ? label : start, end, key: handleKey(value) });
  }
  return found;
}

function handleKey(value: string): string {
  const plain = compact(value).replace(/^[@$]/, '');
  return `handle:${/^\+?[0-9]/.test(value) ? plain.replace(/^\+/, '') : plain}`;
}

// --- Remote access ---
const REMOTE_TOOL =
  String.raw`(?<![A-Za-z])(?:any[ \t]?desk|team[ \t]?viewer|rust[ \t]?desk|quick[ \t]?assist|ultra[ \t]?viewer|supremo|splashtop|screen[ \t]?connect|logmein|chrome[ \t]?remote[ \t]?desktop|zoho[ \t]?assist)(?![A-Za-z])|` +
  'エニーデスク|チームビューワー?|クイックアシスト|Chrome ?リモート ?デスクトップ';
const REMOTE_ID = new RegExp(`(${REMOTE_TOOL})[^\\n0-9]{0,24}?([0-9](?:[ -]?[0-9]){8,11})(?![0-9])`, 'dgiu');
const REMOTE_TOOL_ANY = new RegExp(REMOTE_TOOL, 'giu');
// What the sentence asks the customer to do with the tool: install, start or open it, or tell us its ID or password.
const REMOTE_DO = /インストール|ダウンロード|起動|実行|開い|立ち上げ|\b(?:install|download|run|open|launch|start)\b/i;
const REMOTE_TELL = /(?:ID|番号|パスワード|コード|アドレス)|\b(?:ID|code|number|password|address)\b/i;

function remoteAccess(text: string): PaymentDetail[] {
  const found: PaymentDetail[] = [];
  // Without a tool's name there is neither an id nor a request: most drafts are not read sentence by sentence.
  const anyTool = REMOTE_TOOL_ANY.test(text);
  REMOTE_TOOL_ANY.lastIndex = 0;
  if (!anyTool) return found;
  for (const m of text.matchAll(REMOTE_ID)) {
    const [vs, ve] = m.indices![2]!;
    found.push({ kind: 'remote-access', start: m.index, end: ve, key: `remote:${compact(text.slice(vs, ve))}` });
  }
  for (const [start, end, sentence] of sentences(text)) {
    const tool = REMOTE_TOOL_ANY.exec(sentence);
    REMOTE_TOOL_ANY.lastIndex = 0;
    if (!tool || !(REMOTE_DO.test(sentence) || REMOTE_TELL.test(sentence)) || !asksTheReader(sentence) || negated(sentence)) continue;
    found.push({ kind: 'remote-access-request', start, end, key: `tool:${toolKey(tool[0])}` });
  }
  return found;
}

function toolKey(tool: string): string {
  const t = compact(tool);
  if (t === 'エニーデスク') return 'anydesk';
  if (t.startsWith('チームビューワ')) return 'teamviewer';
  if (t === 'クイックアシスト') return 'quickassist';
  return t.replace(/リモートデスクトップ$/, 'remotedesktop');
}

// --- Asks ---
// Sentences end at 。！？!?, a line break, or an English full stop before a space (as secret-request.ts reads them).
const SENTENCE_END = /[。！？!?]|\n|\.(?=\s)/g;

/** The text's sentences, trimmed, with where each is in the text. */
function sentences(text: string): Array<[number, number, string]> {
  const found: Array<[number, number, string]> = [];
  let from = 0;
  const push = (to: number) => {
    const raw = text.slice(from, to);
    const lead = raw.length - raw.trimStart().length;
    const s = raw.trim();
    if (s) found.push([from + lead, from + lead + s.length, s]);
  };
  for (const m of text.matchAll(SENTENCE_END)) {
    const to = m[0] === '\n' ? m.index : m.index + 1;
    push(to);
    from = m.index + 1;
  }
  push(text.length);
  return found;
}

// An ask of the reader: a Japanese request form, or an English imperative or polite request.
const JA_ASK =
  /(?:ください|下さい|くださ[いる]|いただけ|いただき|頂け|頂き|願います|お願い|のうえ|の上|ほしい|欲しい|もらえ)/;
const EN_ASK = /(?:^|[,:;]\s*|\b(?:please|kindly|you (?:need|must|have|will need) to|you should|could you|can you|we need you to|make sure to|and)\s+)(?:\w+\s+){0,2}?(?:buy|purchase|get|send|e-?mail|text|reply|respond|provide|share|give|tell|install|download|run|open|launch|start|scratch|read)\b/i;

function asksTheReader(sentence: string): boolean {
  return JA_ASK.test(sentence) || EN_ASK.test(sentence);
}

// A warning, not an ask: ありません, 決して, never, do not.
const NEGATION = /決して|絶対に|ません|ないで|ない(?:よう|場合)|できません|しない|\b(?:never|not|don't|do not|won't|no one|nobody)\b|n't\b/i;

function negated(sentence: string): boolean {
  return NEGATION.test(sentence);
}

// --- Gift cards ---
const CARD_BRAND_JA = String.raw`iTunes|Apple|Google ?Play|グーグルプレイ|Amazon|アマゾン|Steam(?:[ \t]?ウォレット)?|スチーム|楽天|nanaco|WebMoney|ウェブマネー|BitCash|ビットキャッシュ|Vプリカ|Razer ?Gold`;
const CARD_JA = String.raw`ギフト(?:カード|券|コード)|プリペイド(?:カード)?|電子マネー(?:カード|ギフト)?|(?:${CARD_BRAND_JA})[ \t]*(?:ギフト)?(?:カード|券|コード)`;
const CARD_BRAND_EN = String.raw`iTunes|Google[ \t]?Play|Steam(?:[ \t-]wallet)?|Apple|Amazon|Razer[ \t]?Gold|Vanilla(?:[ \t]Visa)?|eBay|Walmart|Target|Visa|Sephora|Best[ \t]Buy`;
// Without "gift", only the cards sold for codes (a Target code, a Visa card are other things; Apple and Amazon as before).
const CARD_EN =
  String.raw`\b(?:(?:${CARD_BRAND_EN})[ \t-])?(?:e-?)?gift[ \t-]?(?:cards?|codes?|vouchers?)\b|\bprepaid[ \t-](?:cards?|vouchers?)\b|` +
  String.raw`\b(?:iTunes|Google[ \t]?Play|Steam(?:[ \t-]wallet)?|Razer[ \t]?Gold|Vanilla(?:[ \t]Visa)?)[ \t-](?:cards?|codes?|pins?)\b|\b(?:Apple|Amazon)[ \t-]cards?\b`;
const GIFT_CARD = new RegExp(`${CARD_JA}|${CARD_EN}`, 'i');
const GIFT_CARDS = new RegExp(`${CARD_JA}|${CARD_EN}`, 'gi');
// Which card: an ask for one card's codes is vouched for only by a procedure for the same card.
const CARD_BRANDS: Array<[RegExp, string]> = [
  [/itunes|apple/, 'apple'], [/googleplay|グーグルプレイ/, 'googleplay'], [/amazon|アマゾン/, 'amazon'], [/steam|スチーム/, 'steam'], [/楽天/, 'rakuten'],
  [/nanaco/, 'nanaco'], [/webmoney|ウェブマネー/, 'webmoney'], [/bitcash|ビットキャッシュ/, 'bitcash'], [/vプリカ/, 'vpreca'], [/razer/, 'razer'],
  [/vanilla/, 'vanilla'], [/ebay/, 'ebay'], [/walmart/, 'walmart'], [/target/, 'target'], [/visa/, 'visa'], [/sephora/, 'sephora'], [/bestbuy/, 'bestbuy'],
];

function cardBrand(card: string): string {
  const c = compact(card);
  return CARD_BRANDS.find(([pattern]) => pattern.test(c))?.[1] ?? 'gift';
}

// An ask to buy the card itself. English: the verb, then at most four words and the card (buy two Apple gift cards
// of $200, purchase $500 in iTunes gift cards, pick up Steam wallet cards), no preposition but "in" between (purchase
// the upgrade from the App Store; buy it with a gift card) and no word after the card that makes it another thing's
// (get your gift card balance).
const BUY_STOP = 'with|using|from|on|at|for|by|via|through|to|into|onto|and|or|then|if|when|that|which|so|because';
const EN_BUY = new RegExp(
  String.raw`\b(?:buy|purchase|get|pick[ \t]+up|grab|obtain|acquire)[ \t]+(?:(?!(?:${BUY_STOP})\b)[\w$.'’-]+[ \t]+){0,4}?(?:${CARD_EN})(?![ \t]+(?:balances?|numbers?|details|settings|pages?|history|terms|polic(?:y|ies)|status|activation|registration|accounts?)\b)`,
  'gi',
);
// Japanese: the card, then its object particle or a few characters without one of another role (で, に, は: pay with a
// card, a topic), then the verb in a form that goes on to a request (購入し、 購入して 購入のうえ 買って お買い求めください),
// not one that tells what happened (購入した, ご購入いただいた) or what is possible (購入できます, 購入してから).
const JA_BUY = new RegExp(
  String.raw`(?:${CARD_JA})(?:[^。！？\n、,でにはがもて]{0,10}?|[^。！？\n、,でにはがもて]{0,12}?を[^。！？\n、,て]{0,8}?)(?:ご)?` +
    String.raw`(?:購入(?:し(?![たなまょ]|てから|ても|ている|ていた|ておりま)|のうえ|の上|ください|下さい|いただけ|頂け|いただきます(?:よう|様)|を(?:お)?願)|お買い求め(?:ください|下さい|いただけ|の上|のうえ)|買(?:って(?!から|も|いる|いた|おりま)|い[、,，]))`,
  'gi',
);
// An ask to hand over the card's code, number or PIN, or a photo of it: Japanese by the words around the verb (not an
// order's or a phone's number), English by the verb and its object.
const NOT_A_CARD_NUMBER = '(?<!注文|追跡|問い合わせ|問合せ|会員|電話|口座|受付|伝票|お客様|郵便|予約|登録)';
const JA_SEND = new RegExp(
  String.raw`(?:コード|${NOT_A_CARD_NUMBER}番号|PIN|写真|画像)[^。！？\n]{0,20}?(?:送|返信|お知らせ|教え|伝え|連絡|ご記入|記載|提供|共有)|(?:送|返信|お知らせ|教え|伝え|連絡|提供|共有)[^。！？\n]{0,10}?(?:コード|${NOT_A_CARD_NUMBER}番号|PIN)`,
  'i',
);
const EN_SEND =
  /\b(?:send|e-?mail|text|reply|respond|provide|share|give|tell|read|forward|submit|upload|attach|message)\b[^.!?;\n]{0,40}?\b(?:codes?|pins?|photos?|pictures?|images?|scans?|screenshots?|cards?|(?<!(?:order|tracking|case|ticket|reference|phone|account|invoice|receipt|serial|member|customer|confirmation|transaction)[ \t])numbers?)\b/gi;

// An English verb is asked of the reader when it opens its clause (after please, just, then…), or follows please, a
// "you need to" or a "can you" with at most two words between, or follows "and"/"then" in a sentence that opens with
// an imperative (Go to a store and buy…). "You can buy…", "Customers can…" are statements.
const EN_CLAUSE_OPENS = /(?:^|[,;:(—–]\s*)(?:(?:please|kindly|just|simply|then|also|now|first|quickly|immediately|next|so|and|go ahead and)\s+){0,3}$/i;
const EN_ASKED =
  /\b(?:please|kindly|you (?:need|must|have|will need|'ll need|’ll need|are required|are asked) to|you should|you'll have to|could you|can you|would you|will you|(?:we|i) (?:need|want|ask|require) you to|we ask that you|make sure (?:to|you)|be sure to|remember to)\s+(?:[\w'’]+\s+){0,2}$/i;
const EN_AND_THEN = /\b(?:and|then)\s+(?:(?:then|also|just|please)\s+)?$/i;
const EN_IMPERATIVE_START =
  /^\s*(?:please\b|kindly\b|(?!(?:you|we|i|they|he|she|it|this|that|these|those|there|here|the|a|an|our|your|my|their|its|customers?|users?|anyone|everyone|someone|people|if|when|once|after|before|as|since|because|while|although|can|could|will|would|should|may|might|must|do|does|did|is|are|was|were)\b)[a-z]+\b)/i;

function askedInEnglish(sentence: string, at: number): boolean {
  // Only the words right before the verb are read, so a long sentence with many verbs stays linear.
  const before = (at > 80 ? '\u0000' : '') + sentence.slice(Math.max(0, at - 80), at);
  return EN_CLAUSE_OPENS.test(before) || EN_ASKED.test(before) || (EN_AND_THEN.test(before) && EN_IMPERATIVE_START.test(sentence));
}

// Where a clause ends, for reading a negation with the ask to buy it belongs to ("Don't worry, just buy…" asks).
const CLAUSE_BREAK = /[,;:、，；：]|\b(?:and|but|so|because|since|although|though|or|while)\b/gi;
// A condition before the ask (カードが利用できない場合は、…; If the card does not work, …): its negation is not the ask's.
const CONDITION_FIRST = /^[^。！？\n]*?(?:場合|とき|時|なら|たら|ければ)(?:に|には|は|でも|も)?[、,，]|^\s*(?:if|when|whenever|in case|should|once|unless)\b[^,;]*[,;]/i;

// Where to buy a card safely: only from official or authorised stores, 公式ストアでのみ.
const ONLY_OFFICIAL =
  /\bonly\s+(?:from|at|in|through|via|on)\s+(?:the\s+|our\s+)?(?:official|authori[sz]ed|our|genuine|trusted)\b|\b(?:from|at)\s+(?:the\s+|our\s+)?(?:official|authori[sz]ed)\s+(?:[\w-]+\s+)?(?:stores?|shops?|retailers?|sellers?|sites?|websites?)\s+only\b|(?:公式|正規)[^。！？\n]{0,12}?(?:のみ|だけ)/i;

/** A gift-card ask: its sentence, and whether it asks to buy cards (never vouched) or only for their codes. */
interface GiftCardAsk {
  start: number;
  end: number;
  buy: boolean;
  /** The cards asked about, for comparing an ask for codes with the knowledge's. */
  cards: string;
}

/**
 * The sentences of `text` (folded) that ask the reader to buy gift cards or to send a card's code, number or photo.
 * A draft's ask is none when any word of its sentence negates (a warning: "we will never ask you to…", 決して…ありません;
 * "if the code does not work, reply with…"), except the ask to buy, read in its own clause. The knowledge's procedure
 * (`knowledge`) is read past a condition before it (カードが利用できない場合は、…番号をお送りください).
 */
function giftCardAsks(text: string, knowledge = false): GiftCardAsk[] {
  if (!GIFT_CARD.test(text)) return [];
  const found: GiftCardAsk[] = [];
  const all = sentences(text);
  // Whether any sentence of the text asks to send a code, a number or a photo (read once, when needed).
  let sends: boolean | undefined;
  const asksToSend = () => (sends ??= all.some(([, , s]) => (JA_ASK.test(s) && JA_SEND.test(s)) || [...s.matchAll(EN_SEND)].some((m) => askedInEnglish(s, m.index))));
  for (const [start, end, sentence] of all) {
    const cards = [...sentence.matchAll(GIFT_CARDS)];
    if (cards.length === 0) continue;
    const ja = JA_ASK.test(sentence);
    // Review 42b: "buy cards only from official stores" is the advice against the scam, unless the text also asks for
    // the codes (in this sentence or another: "…only from official stores. Then send us the codes.").
    const buy = !knowledge && buysCards(sentence, ja) && !(ONLY_OFFICIAL.test(sentence) && !asksToSend());
    const body = knowledge ? sentence.replace(CONDITION_FIRST, '') : sentence;
    const send = !buy && !negated(body) && (ja && JA_SEND.test(sentence) || [...sentence.matchAll(EN_SEND)].some((m) => askedInEnglish(sentence, m.index)));
    if (buy || send) found.push({ start, end, buy, cards: [...new Set(cards.map((c) => cardBrand(c[0])))].sort().join('+') });
  }
  return found;
}

/** Whether `sentence` asks to buy a gift card, in a clause that does not negate it. */
function buysCards(sentence: string, ja: boolean): boolean {
  const buys = [...sentence.matchAll(EN_BUY)].filter((m) => askedInEnglish(sentence, m.index));
  if (ja) buys.push(...sentence.matchAll(JA_BUY));
  if (buys.length === 0) return false;
  const breaks = [0, ...[...sentence.matchAll(CLAUSE_BREAK)].map((m) => m.index), sentence.length];
  const clauseNegated = new Map<number, boolean>();
  return buys.some((m) => {
    // The clause the ask starts in, and the one it ends in (購入を…お願いすることはありません).
    const clauses = [clauseAt(breaks, m.index), clauseAt(breaks, m.index + m[0].length - 1)];
    return !clauses.some((i) => {
      if (!clauseNegated.has(i)) clauseNegated.set(i, negated(sentence.slice(breaks[i]!, breaks[i + 1]!)));
      return clauseNegated.get(i)!;
    });
  });
}

/** The index of the clause holding `at`, `breaks` the clauses' starts in order (binary search). */
function clauseAt(breaks: number[], at: number): number {
  let lo = 0;
  let hi = breaks.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (breaks[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The first sentence of `text` that asks the reader to buy gift cards (Amazon, iTunes, Apple, Google Play, Steam…,
 * ギフト券, プリペイドカード) or to send their codes, numbers or a photo of them, or undefined. A warning about the scam
 * (決してありません, "we will never ask") and a statement ("You can buy gift cards on our store") are no asks.
 */
export function giftCardRequest(text: string): string | undefined {
  const checked = checkedText(text);
  for (const { start, end } of giftCardAsks(folded(checked.text))) return checked.quote(start, end);
  return undefined;
}

/**
 * The payment details, contact handles, remote-access ids and requests, and gift-card requests of `text`, in order of
 * start, one for each place: where two finds overlap, the wider stands. An ask for a card's codes alone stands beside
 * what it holds: the knowledge may vouch for the ask (the company's own procedure), never for a contact written in it.
 */
export function paymentDetailsIn(text: string): PaymentDetail[] {
  // Read as the draft check reads it ({@link checkedText}), named where `text` writes it.
  const checked = checkedText(text);
  return detailsIn(checked.text, false).map((d) => ({ ...d, start: checked.from(d.start), end: checked.to(d.end - 1) }));
}

/** {@link paymentDetailsIn} of a text {@link checkedText} has read; `knowledge`: read as the knowledge is ({@link giftCardAsks}). */
function detailsIn(text: string, knowledge: boolean, withinAsks = false): PaymentDetail[] {
  const t = folded(text);
  const giftAsks = giftCardAsks(t, knowledge).map(({ start, end, buy, cards }) => ({ kind: 'gift-card-request' as const, start, end, key: buy ? '' : `gift-card:${cards}` }));
  const all: PaymentDetail[] = [...bankAccounts(t), ...ibans(t), ...swiftCodes(t), ...cryptoAddresses(t), ...handles(t), ...remoteAccess(t)];
  // An ask to buy gift cards is named whole, whatever it holds: nothing vouches for it. A remote-access request is
  // named whole only when it holds nothing more precise: a remote-access id in it is what the knowledge must hold.
  const asks = giftAsks.filter((d) => d.key === '');
  const codeAsks = giftAsks.filter((d) => d.key !== '');
  const inAsk = (d: PaymentDetail) => asks.some((a) => d.start < a.end && a.start < d.end);
  const rest = all.filter((d) => !inAsk(d));
  const requests = rest.filter((d) => d.kind === 'remote-access-request' && !rest.some((o) => o.kind !== 'remote-access-request' && o.start < d.end && d.start < o.end));
  const specific = rest.filter((d) => d.kind !== 'remote-access-request');
  const kept = widest([...asks, ...requests, ...specific]);
  // What an ask to buy holds, for a reader that names the ask otherwise (review 43d: the learned question's scrub keeps
  // the customer's ask and must still replace the handle or wallet inside it).
  const inside = withinAsks ? widest(all.filter((d) => inAsk(d) && d.kind !== 'remote-access-request')) : [];
  return [...kept, ...inside, ...codeAsks].sort((a, b) => a.start - b.start || b.end - a.end);
}

/** `details` in order of start, one for each place: where two overlap (a LINE id two patterns read), the wider. */
function widest(details: readonly PaymentDetail[]): PaymentDetail[] {
  const kept: PaymentDetail[] = [];
  for (const d of [...details].sort((a, b) => a.start - b.start || b.end - a.end)) {
    const last = kept[kept.length - 1];
    if (last && d.start < last.end) {
      if (d.end > last.end) kept[kept.length - 1] = d;
      continue;
    }
    kept.push(d);
  }
  return kept;
}

/**
 * The details of {@link paymentDetailsIn} in `text` that `knowledge` does not vouch for, as the text writes them, with
 * what each was read as in its context (a LINE id named alone before 友だち追加 reads as nothing alone; review 43b).
 * A detail is vouched for by the same detail in the knowledge (same key), or by its value standing in the knowledge
 * as a whole word once width, spaces, hyphens and case are left out (a handle the manual names without a label); a
 * remote-access request by the knowledge naming the same tool; an ask for a gift card's codes only by the knowledge
 * asking for the same card's (key alone). An ask to buy gift cards never is. `text` is read as {@link checkedText}
 * reads it; a caller that has read it so already (foreignLinks) passes its reading. With `withinAsks`, the details
 * inside an ask to buy are named too, each beside the ask (for a reader that leaves the ask and replaces the details).
 */
export function foreignPaymentFindings(
  text: string | CheckedText,
  knowledge: readonly string[],
  skip: (d: PaymentDetail) => boolean = () => false,
  withinAsks = false,
): Array<{ written: string; kind: PaymentDetailKind }> {
  const checked = typeof text === 'string' ? checkedText(text) : text;
  const details = detailsIn(checked.text, false, withinAsks).filter((d) => !skip(d));
  if (details.length === 0) return [];
  // The knowledge is read as the draft is: an account it writes in kanji numerals vouches for the same digits.
  const knownTexts = knowledge.map(checkedKnowledgeText);
  const knownKeys = new Set(knownTexts.flatMap((k) => detailsIn(k, true).map((d) => d.key)));
  const knownText = knownTexts.map(compact).join('\n');
  const foreign: Array<{ written: string; kind: PaymentDetailKind }> = [];
  for (const d of details) {
    const vouched = d.kind === 'gift-card-request' ? d.key !== '' && knownKeys.has(d.key) : knownKeys.has(d.key) || inWords(knownText, d);
    if (!vouched) foreign.push({ written: checked.quote(d.start, d.end), kind: d.kind });
  }
  return foreign;
}

/** Whether the compacted knowledge holds the detail's value (or, for a remote-access request, its tool) as a word. */
function inWords(knownText: string, d: PaymentDetail): boolean {
  const value = d.key.slice(d.key.indexOf(':') + 1);
  if (value === '') return false;
  const edge = /[a-z0-9_]/;
  for (let at = knownText.indexOf(value); at >= 0; at = knownText.indexOf(value, at + 1)) {
    const before = knownText.charAt(at - 1);
    const after = knownText.charAt(at + value.length);
    // A tool's name runs on into its edition (teamviewerquicksupport): only its start must be a word's.
    if (d.kind === 'remote-access-request' ? !edge.test(before) : !(edge.test(before) && edge.test(value[0]!)) && !(edge.test(after) && edge.test(value[value.length - 1]!))) return true;
  }
  return false;
}

/** What a finding of the draft check is, read from how it is written: for the park reason's words. */
export function paymentFindingKind(written: string): 'detail' | 'ask' | undefined {
  const whole = paymentDetailsIn(written).find((d) => d.start === 0 && d.end === written.length);
  if (!whole) {
    // An account named without the words around it that made it one (Acc No 55779911 beside "Beneficiary", a number
    // under a bank's line) is still an account's label and number.
    const text = folded(checkedText(written).text);
    const wholeMatch = (pattern: RegExp) => [...text.matchAll(pattern)].some((m) => m.index === 0 && m[0].length === text.length);
    return wholeMatch(EN_ACCOUNT) || wholeMatch(NUMBER_LINE) || otherLanguageAccountWritten(text) ? 'detail' : undefined;
  }
  return whole.kind === 'gift-card-request' ? 'ask' : 'detail';
}
