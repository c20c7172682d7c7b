/**
 * The question in a search query. A weak model often passes the customer's mail nearly verbatim as the tool's query,
 * greeting, closing and signature included. The engines weigh every term, and a signature's phone and postcode
 * numbers become digit terms that match years and figures all over a manual, its address and company name kanji that
 * match anywhere: wrapped in a signature, a query lost 17–18 points of recall@5 on both engines. What is not the
 * question is dropped here, with the mail reader's own signature rules ({@link stripSignatureBlock},
 * {@link stripDelimitedSignature}) and greeting list ({@link onlyGreetings}).
 */
import { SEPARATOR_LINE, stripDelimitedSignature, stripSignatureBlock } from '../mail/parse.js';
import { onlyGreetings } from '../mail/unreadable.js';

const DIGIT = '[0-9０-９]';
const DASH = '[-‐‑–−－]';

/**
 * Digits grouped as a phone number may be (`03-1234-5678`, `0120-123-456`, `+81-3-1234-5678`, `(03)1234-5678`), but
 * as well an order, product or serial number (`123-4567-8901`): {@link isPhone} decides.
 */
const PHONE = new RegExp(
  `(?<![0-9０-９A-Za-z\\-])(?:(?:\\+${DIGIT}{1,3}${DASH}?|[0０]${DIGIT}{0,4}${DASH}?)?(?:${DIGIT}{1,4}${DASH}${DIGIT}{1,4}${DASH}${DIGIT}{3,4})|[(（][0０]${DIGIT}{1,4}[)）]\\s?${DIGIT}{1,4}${DASH}${DIGIT}{4})(?![0-9０-９A-Za-z\\-])`,
  'gu',
);
/** A postcode: only after 〒, since a bare `100-0005` may as well be a product's code. */
const POSTCODE = new RegExp(`〒\\s?(?:${DIGIT}{3}${DASH}?${DIGIT}{4})?`, 'gu');
// Bounded and anchored at the start of a run, as outcome.ts's 'email' fact: unbounded, it was tried from every position
// of a long run without '@' (a pasted base64 blob), quadratic in the run (100 KB: 26 s).
const MAIL_ADDRESS = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}/gu;
const URL = /(?:https?:\/\/|www\.)[A-Za-z0-9\-._~:/?#[\]@!$&'*+,;=%]+/giu;
/** The labels of contact details; a token right after one of them is a contact detail whatever its shape. */
const CONTACT_LABEL = String.raw`(?:TEL|FAX|Phone|Mobile|電話(?:番号)?|携帯(?:電話)?|直通|代表|☎|℡|E-?mail|Mail|メール(?:アドレス)?|URL|HP|Web|ホームページ|住所|所在地)`;
// The blanks after the colon belong to it: with `\s*[:：]?\s*` a run of blanks without a colon split both ways, quadratic
// (a 100 KB run: 12 s), where today's one caller reads only the 16 characters before a token.
const AFTER_CONTACT_LABEL = new RegExp(`${CONTACT_LABEL}\\s*(?:[:：]\\s*)?$`, 'iu');
const CONTACT_LABEL_LINE = new RegExp(`^\\s*${CONTACT_LABEL}\\s*[:：]`, 'iu');

/**
 * A line opening as contact details do: a label (TEL, FAX, 電話, 住所, Mail, URL…) followed by a colon or by the detail
 * itself, or 〒. `メール通知が届きません` and `電話サポートの受付時間` are questions, not labels; a line opening with a
 * web address is not one either (「www.xyz-cloud.jp/admin/sso が開けません」): only its address is cut. See
 * {@link isContactLine} for the lines that open so and go on with a question.
 */
const CONTACT_LINE = new RegExp(
  [
    String.raw`^\s*〒`,
    String.raw`^\s*(?:TEL|FAX|Phone|Mobile|電話(?:番号)?|携帯(?:電話)?|直通|代表|☎|℡)\s*(?:[:：]|(?=[+(（0-9０-９]))`,
    String.raw`^\s*(?:E-?mail|Mail|メール(?:アドレス)?)\s*(?:[:：]|(?=[A-Za-z0-9._%+-]+@))`,
    String.raw`^\s*(?:URL|HP|Web|ホームページ)\s*(?:[:：]|(?=https?:|www\.))`,
    String.raw`^\s*(?:住所|所在地)\s*(?:[:：]|(?=〒|[0-9０-９]))`,
  ].join('|'),
  'iu',
);
/** A contact line whose detail is a token (a number, an address, a URL), not free text as a postal address is. */
const TOKEN_CONTACT_LINE = /^\s*(?:TEL|FAX|Phone|Mobile|電話(?:番号)?|携帯(?:電話)?|直通|代表|☎|℡|E-?mail|Mail|メール(?:アドレス)?|URL|HP|Web|ホームページ)/iu;
/**
 * What a sentence has and a contact detail's note (（代表）, (weekdays 9-18)) has not: kana endings and particles, or
 * a closing full stop or question mark.
 */
const SENTENCE_AFTER_DETAIL = /\p{Script=Hiragana}|[。．.！!？?]$/u;
/** A bracketed note on a contact detail: （平日9時から18時まで）. */
const BRACKETED_NOTE = /[(（][^()（）]*[)）]/gu;

/**
 * A closing with the courtesy phrases before it (お忙しいところ恐縮ですが、ご確認のほど…よろしくお願いいたします), which
 * {@link onlyGreetings} leaves to the sender; only those phrases, so 「～を教えていただけますよう、よろしく…」 is kept.
 */
const COURTESY_CLOSING =
  /^(?:以上、?)?(?:(?:(?:お忙しい|ご多忙の)(?:ところ|中)(?:大変)?(?:恐縮|恐れ入り)(?:です|ます)が|お手数(?:を)?(?:おかけ(?:いた|致)?しますが|ですが)|ご(?:確認|回答|返答|返信|対応|教示|検討)(?:の)?ほど|引き続き|今後とも)、?)+(?:どうぞ|何卒|なにとぞ)?(?:よろしく|宜しく)お願い(?:します|いたします|致します|申し上げます)$/u;
/** A self-introduction: 「株式会社ABCの田中です」, 「ABCの鈴木と申します」. */
const SELF_INTRODUCTION = [
  /^(?:[^、。？?]{1,40}の)?[^、。？?の\s]{1,10}(?:\s[^、。？?の\s]{1,10})?と申します$/u,
  /^[^、。？?]{0,30}(?:株式会社|有限会社|合同会社|\b(?:Inc|Ltd|LLC|Corp)\b\.?)[^、。？?]{0,30}の[^、。？?の]{1,12}(?:です|でございます)$/u,
];
/** The addressee on a mail's first line (田中様, サポート御中); never a word of the domain ending in 様 (仕様, 同様). */
const ADDRESSEE = /^[^\s、。？?]{1,30}\s?(?:様|さま|殿|御中|各位)$/u;
const NOT_ADDRESSEE = /(?:仕|同|模|多|異|一|態|有)様$/u;

// A signature block holds a few short lines (name, department, contact details), none of them a sentence.
const MAX_SIGNATURE_LINES = 8;
const MAX_SIGNATURE_LINE_CHARS = 40;
const SENTENCE_END = /(?:[。．.！!？?]|です|ます|ません|ください|下さい|たい|か)$/u;
/**
 * A `label: value` line (製品: XYZ Pro 3.2, OS: Windows 11, シリアル番号: …): what the customer runs or asks about,
 * unless the label is a contact one ({@link CONTACT_LINE}) or names the sender ({@link SENDER_LABEL}).
 */
const LABELLED_LINE = /^[^:：\s]{1,20}\s*[:：]\s*\S/u;
const SENDER_LABEL = /^(?:会社名?|企業名|社名|氏名|お?名前|担当(?:者)?|部署(?:名)?|所属|役職|Name|Company|Dept|Department|Title)\s*[:：]/iu;

/**
 * The question of a search query: `query` without a mail's greeting, self-introduction, closing, signature block,
 * contact lines, and phone, postcode (〒), mail-address and URL tokens. A query with none of these is returned as
 * it is, so codes, model numbers and dates in a question stay (「エラーコード 1234」, 「2024年版」); a query that is
 * nothing but these is returned as it is too, so a search never goes out empty.
 */
export function questionOfQuery(query: string): string {
  const lines = query.replace(/\r\n?/g, '\n').split('\n');
  const unsigned = stripSignatureBlock(stripDelimitedSignature(lines));
  const urlsOfQuestion = new Set(unsigned.flatMap((_line, i) => (isUrlOfQuestion(unsigned, i) ? [i] : [])));
  const kept = withoutTrailingContactBlock(unsigned, urlsOfQuestion)
    .map((line, i) => (urlsOfQuestion.has(i) ? pathWordsOfUrlLine(line) : line))
    .filter((line) => !isContactLine(line));
  const firstContent = kept.findIndex((line) => line.trim() !== '');
  const cleaned = kept.map((line, i) => {
    if (i === firstContent && isAddressee(line) && kept.slice(i + 1).some((l) => l.trim() !== '')) return '';
    return withoutContactTokens(withoutCourtesySentences(line));
  });
  const question = cleaned
    .filter((line, i) => line.trim() !== '' || (kept[i] ?? '').trim() === '')
    .join('\n')
    .replace(/\n{2,}/g, '\n\n')
    .trim();
  if (!/[\p{L}\p{N}]/u.test(question)) return query;
  return question === query.trim() ? query : question;
}

/**
 * Whether `line` is contact details ({@link CONTACT_LINE}). A phone, mail or URL label followed by its detail and
 * then a sentence (「URL: https://…/admin/sso を開くと403になります。」, 「電話番号 090-… を変更したい」) is a question
 * about that detail, and so is a label with no detail at all (「メール：通知が届きません」).
 */
function isContactLine(line: string): boolean {
  const opening = CONTACT_LINE.exec(line);
  if (!opening) return false;
  if (!TOKEN_CONTACT_LINE.test(line)) return true;
  const rest = line.slice(opening[0].length);
  const words = rest.replace(PHONE, CUT).replace(MAIL_ADDRESS, CUT).replace(URL, CUT);
  if (!words.includes(CUT) && !/[0-9０-９]/u.test(words)) return false;
  return !asksAbout(words.replaceAll(CUT, ' '));
}

function isAddressee(line: string): boolean {
  const text = line.trim();
  return ADDRESSEE.test(text) && !NOT_ADDRESSEE.test(text);
}

/** `line` without its greeting, closing and self-introduction sentences; unchanged when it has none. */
function withoutCourtesySentences(line: string): string {
  const sentences = line.split(/(?<=[。．！!？?])/u);
  const kept = sentences.filter((sentence) => !isCourtesy(sentence));
  return kept.length === sentences.length ? line : kept.join('').trim();
}

/**
 * Longer than any greeting, closing or self-introduction (the longest patterns above take under 100 characters). A
 * longer sentence is not read for them: the mail reader's {@link onlyGreetings} trims a sentence with a pattern that is
 * quadratic in a run of 「、」 (100 KB: 27 s), and a sentence is not split at 「、」.
 */
const MAX_COURTESY_CHARS = 160;

function isCourtesy(sentence: string): boolean {
  const bare = withoutTrailingPunctuation(sentence.replace(/\s+/gu, ' '));
  if (bare === '' || bare.length > MAX_COURTESY_CHARS || /[？?]$/u.test(bare)) return false;
  return onlyGreetings(bare) || COURTESY_CLOSING.test(bare) || SELF_INTRODUCTION.some((pattern) => pattern.test(bare));
}

const TRAILING_PUNCTUATION = new Set([...' 。．.！!、，,']);

/**
 * `text` without the spaces and punctuation that end it. A loop from the end: the pattern `[…]+$` was tried from
 * every position of a run that does not end the text (「、」×100,000 + 'a'), quadratic in the run (27 s).
 */
function withoutTrailingPunctuation(text: string): string {
  let end = text.length;
  while (end > 0 && TRAILING_PUNCTUATION.has(text[end - 1]!)) end--;
  return text.slice(0, end).trim();
}

/** `line` without phone, postcode, mail-address and URL tokens, spaces squeezed; unchanged when it has none. */
function withoutContactTokens(line: string): string {
  const labelled = (offset: number, text: string): boolean => AFTER_CONTACT_LABEL.test(text.slice(Math.max(0, offset - 16), offset));
  const identified = (offset: number, text: string): boolean => AFTER_IDENTIFIER_LABEL.test(text.slice(Math.max(0, offset - 24), offset));
  const phoneless = line.replace(PHONE, (phone, offset: number, text: string) =>
    !identified(offset, text) && isPhone(phone, labelled(offset, text)) ? CUT : phone,
  );
  const marked = phoneless
    .replace(POSTCODE, CUT)
    .replace(MAIL_ADDRESS, CUT)
    .replace(URL, (url, offset: number, text: string) => (labelled(offset, text) && !asksAbout(text.slice(offset + url.length)) ? CUT : `${CUT}${pathWords(url)}${CUT}`));
  if (marked === line) return line;
  return marked
    .replace(LABEL_OF_CUT, (cut, label: string, _blanks: string, offset: number, text: string) => (TOPIC_AFTER_CUT.test(text.slice(offset + cut.length)) ? `${label} ` : ' '))
    .replaceAll(CUT, ' ')
    .replace(/[ \t\u3000]{2,}/gu, ' ')
    .trim();
}

/** Whether the text after a contact detail is a sentence about it (「を開くと403になります。」), not a note on it (（代表）). */
function asksAbout(rest: string): boolean {
  const words = rest.replace(BRACKETED_NOTE, ' ').replace(new RegExp(CONTACT_LABEL, 'giu'), ' ').trim();
  return /\p{L}/u.test(words) && SENTENCE_AFTER_DETAIL.test(words);
}

// Where a token was cut, so that its label (`TEL:`, `Mail`) goes with it; a private-use code point, never in a query.
const CUT = '\uE000';
// The blanks after the label are taken whole (`(?=(\s*))\2`, as a possessive `\s*+`): the same matches, where two
// `\s*` split a run in every way before failing (security review 15: quadratic in the run).
const LABEL_OF_CUT = new RegExp(`(${CONTACT_LABEL})(?=(\\s*))\\2[:：]?\\s*\\uE000`, 'giu');
/**
 * A particle after a cut detail that makes its label the sentence's topic (「電話番号 090-… を変更したい」,
 * 「メールアドレス x@y が届かない」): the label stays. Before まで, へ, に or another label it is a number to call.
 */
const TOPIC_AFTER_CUT = /^\s*(?:を|が|は|の|も|について|に(?:ついて|関して|関する))/u;
/**
 * The label of an identifier the customer asks about (注文番号, 伝票番号, 型番, 品番, order number, model, SKU, No., #): a
 * number after it is that identifier, never a phone number, whatever its shape (注文番号 012-3456-7890, 型番
 * 0120-456-789). `Phone No.` stays a phone label.
 */
const AFTER_IDENTIFIER_LABEL = new RegExp(
  String.raw`(?:(?:ご?注文|伝票|受付|お?問い?合わ?せ|会員|契約|顧客|お客様|管理|製品|商品|チケット|請求書?|案件|予約|申込)番号|シリアル(?:番号|ナンバー|No\.?)?|型番|品番|モデル(?:番号|名|No\.?)?|\b(?:order|ticket|invoice|serial|case|reference|booking|model|part|product|item)(?:\s*(?:number|no\.?|id))?|\bSKU|\bP\/N|(?<!(?:TEL|FAX|Phone|Mobile|電話|携帯)\s*)(?<![A-Za-z])No\.?|#|＃|№)\s*[:：]?\s*$`,
  'iu',
);

/**
 * Whether dash-grouped digits are a phone number: 10 or 11 digits (a date such as 01-02-2024 has fewer), after a
 * contact label (TEL, 電話, ☎) or shaped as a Japanese number is, opening with 0 or an area code in brackets
 * (03-1234-5678, 090-1234-5678, 0120-123-456); with a country code, 9 digits or more. Without either, an order,
 * product or serial number (123-4567-8901, 2024-1234-5678) is what the customer asks about.
 */
function isPhone(token: string, labelled: boolean): boolean {
  const bare = token.normalize('NFKC').trim();
  const digits = bare.replace(/\D/g, '').length;
  if (bare.startsWith('+')) return digits >= 9;
  return digits >= 10 && digits <= 11 && (labelled || /^[0(]/.test(bare));
}

/**
 * The words of a URL's path (`https://app.xyz.jp/settings/export-csv` → `settings export-csv`): the screen or
 * function the customer asks about; the host and the query string name nothing in a manual.
 */
function pathWords(url: string): string {
  const path = url.replace(/^(?:https?:\/\/)?[^/?#]*/iu, '').replace(/[?#].*$/u, '');
  return path
    .split('/')
    .map((segment) => segment.replace(/\.[A-Za-z0-9]{1,5}$/u, ''))
    .filter((segment) => /[A-Za-z]/.test(segment))
    .join(' ');
}

/**
 * Lines without a separator above them that end a query as a signature does: a run of at most
 * {@link MAX_SIGNATURE_LINES} short lines that are not sentences, one of them contact details, after other text. The
 * lines `urlsOfQuestion` names ({@link isUrlOfQuestion}) belong to the question, and so do the items of a list its
 * last sentence announces ({@link listItemsAtStart}).
 */
function withoutTrailingContactBlock(lines: string[], urlsOfQuestion: ReadonlySet<number>): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  let start = end;
  while (start > 0 && !urlsOfQuestion.has(start - 1) && isSignatureLine(lines[start - 1]!)) start--;
  const block = lines.slice(start, end);
  if (block.length === 0 || block.length > MAX_SIGNATURE_LINES) return lines;
  if (!block.some(isContactDetail)) return lines;
  const before = lines.slice(0, start).filter((line) => line.trim() !== '' && !SEPARATOR_LINE.test(line));
  if (before.length === 0) return lines;
  return lines.slice(0, start + listItemsAtStart(block, before.at(-1)!));
}

function isSignatureLine(line: string): boolean {
  const text = line.trim();
  if (text === '') return false;
  if (isContactLine(text) || SEPARATOR_LINE.test(text)) return true;
  if (LABELLED_LINE.test(text) && !SENDER_LABEL.test(text) && !CONTACT_LABEL_LINE.test(text)) return false;
  if (LIST_ITEM.test(text) || isListIntroduction(text)) return false;
  // Judged without its phone numbers and addresses: a sentence that names one is still a sentence.
  const words = withoutContactTokens(text);
  const sentence = SENTENCE_END.test(words) && !COMPANY_NAME_END.test(words);
  return words.length <= MAX_SIGNATURE_LINE_CHARS && !sentence && !isCourtesy(words);
}

// A company's name ends in a full stop as no sentence does: ABC Inc., XYZ Co., Ltd.
const COMPANY_NAME_END = /\b(?:Inc|Ltd|Co|Corp|LLC|GmbH|K\.K|S\.A|B\.V)\.$/u;
// A line a list's item opens with: ・, •, 1., 1), ①, (1). A signature's lines open with none of these.
const LIST_ITEM = /^(?:[・•]|[0-9０-９]{1,2}[.)．）]|[①-⑳]|[(（][0-9０-９]{1,2}[)）])\s*\S/u;
// A sentence that announces a list under it (次の2点を教えてください。, 以下について…：, "the following two things?").
const LIST_INTRODUCTION = /(?:次の|以下の?|下記の?)|\b(?:the following|as follows)\b|[:：]$/iu;
// How many items it announces: 次の2点, 3つ, 二点, "the following two".
const LIST_COUNT = /([0-9０-９]{1,2}|[一二三四五六七八九])\s*(?:点|つ|項目|件)|\bfollowing (\d{1,2}|two|three|four|five|six)\b/iu;
const COUNT_WORDS: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, two: 2, three: 3, four: 4, five: 5, six: 6 };
// Where a signature begins under an uncounted list: a company or department, or a name alone on its line (山田太郎,
// 山田 太郎, Taro Yamada).
const SIGNATURE_OPENING = /株式会社|有限会社|合同会社|\b(?:Inc|Ltd|LLC|Corp|GmbH)\b|(?:部|課|室|グループ|\bDepartment|\bDept\.?)$|^[\p{Script=Han}]{1,4}[ \u3000]?[\p{Script=Han}]{1,4}$|^[\p{Script=Katakana}ー]{2,8}[ \u3000・][\p{Script=Katakana}ー]{2,8}$|^[A-Z][a-z]+(?: [A-Z][a-z]+){1,2}$/u;

/** Whether `line` is a sentence that ends in a colon and so announces what follows (「以下について教えてください：」). */
function isListIntroduction(line: string): boolean {
  if (!/[:：]$/u.test(line)) return false;
  const words = line.slice(0, -1).trim();
  return SENTENCE_END.test(words) || LIST_INTRODUCTION.test(words);
}

/**
 * How many of a signature-like block's first lines are the items of a list that `introduction` (the last line above
 * the block) announces: as many as it counts (次の2点), else those above the signature's first line (a contact line,
 * a company, a name alone); none when it announces no list.
 */
function listItemsAtStart(block: readonly string[], introduction: string): number {
  if (!LIST_INTRODUCTION.test(introduction.trim())) return 0;
  const counted = LIST_COUNT.exec(introduction.normalize('NFKC'));
  const announced = counted ? (COUNT_WORDS[(counted[1] ?? counted[2] ?? '').toLowerCase()] ?? Number(counted[1] ?? counted[2])) : undefined;
  let items = 0;
  while (items < block.length && (announced === undefined || items < announced)) {
    const line = block[items]!.trim();
    if (isContactLine(line) || SEPARATOR_LINE.test(line)) break;
    if (announced === undefined && SIGNATURE_OPENING.test(line)) break;
    items++;
  }
  return items;
}

// A `URL:` line of a bare address: the label and the link, nothing after them.
const URL_LINE = /^\s*URL\s*[:：]\s*((?:https?:\/\/|www\.)\S+)\s*$/iu;

/**
 * Whether `lines[i]` is a `URL:` line right under a sentence of the question, no blank line between
 * (「管理画面でエラーになります。」 over 「URL: https://app.example.jp/admin/sso」): it shows where the problem is, as
 * the same URL with a sentence after it on its line does. A signature's URL comes under a name, a company or a
 * closing, and a bare host has no path words anyway.
 */
function isUrlOfQuestion(lines: readonly string[], i: number): boolean {
  const url = URL_LINE.exec(lines[i] ?? '')?.[1];
  if (url === undefined || pathWords(url) === '') return false;
  const above = (lines[i - 1] ?? '').trim();
  if (above === '' || isContactLine(above)) return false;
  return SENTENCE_END.test(withoutContactTokens(above)) && !isCourtesy(above);
}

/** A `URL:` line of the question as its path words (`admin sso`). */
function pathWordsOfUrlLine(line: string): string {
  return pathWords(URL_LINE.exec(line)?.[1] ?? '');
}

function isContactDetail(line: string): boolean {
  return isContactLine(line) || withoutContactTokens(line) !== line;
}
