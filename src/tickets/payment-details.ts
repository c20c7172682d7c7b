/**
 * Payment details and off-channel contacts in a draft that the knowledge does not hold (security review 11). A forged
 * mail can tell the model to add "our new bank account" or "contact our agent on LINE", and the reply goes out from
 * our address to the customer the forger impersonated: the customer pays the forger or talks to them off our channel.
 * Like a phone number ({@link foreignLinks}), each must be in the knowledge the agent found for this answer, compared
 * without width, spaces, hyphens or case; nothing else vouches (not ours, not the customer's, not a trusted domain).
 *
 * What counts:
 * - a Japanese bank account: 普通/当座/貯蓄 (預金)(口座) and seven or eight digits, or 口座番号 and as many (the bank
 *   and branch before it are named with it, the number is compared); an IBAN that passes its mod-97 check; a SWIFT/BIC
 *   code only after its label (eight letters alone are a word);
 * - a crypto address: bech32 (bc1…, tb1…, ltc1…), base58 (1…, 3…, and TRON's T…) that passes its checksum, 0x and
 *   40 hex digits;
 * - a chat or payment handle with its label (LINE, Telegram, WhatsApp, Signal, Skype, WeChat/微信, KakaoTalk, Viber,
 *   PayPay, Venmo, Cash App, Zelle, Alipay/支付宝): an @handle, a Skype live: id or a $cashtag near the label, or a
 *   plain id or number after the label and a colon (LINE ID: xyz-help2). The label alone ("LINEアプリ", "Skype for
 *   Business", "Signal strength") and LINE in lower case are words;
 * - a remote-access tool (AnyDesk, TeamViewer, RustDesk, Quick Assist…) with an ID of nine or more digits, and a
 *   sentence asking the customer to install or open one or send its ID or password: vouched when the knowledge names
 *   the same tool (the company's own remote-support procedure);
 * - a sentence asking the customer to buy or send gift cards or their codes ({@link giftCardRequest}): no support
 *   reply does, so nothing vouches for it, whatever the knowledge says about gift cards.
 *
 * personal-data.ts finds bank accounts, IBANs and LINE ids to remove them from the knowledge base, and keeps an
 * official LINE account (@id) as published; here an official-looking account is exactly what a forger writes, so that
 * exception does not apply.
 */
import { createHash } from 'node:crypto';
import { bankAccountNumberRanges, ibanRanges, lineIdRanges } from '../knowledge/personal-data.js';

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

// --- Bank accounts ---
// 口座番号 without the account's type before it (新しい口座番号：8765432); with one, personal-data's pattern finds it.
// Each run of spaces has one place to go: two optional runs side by side backtrack quadratically on a long one.
const ACCOUNT_NUMBER_LABEL = /口座番号[ \t]*(?:(?:[:：]|は)[ \t]*)?([0-9０-９]{7,8})(?![0-9０-９])/dg;
// Where the named account starts: its type (普通, 当座預金口座, 口座番号), and the bank and branch right before it.
const ACCOUNT_TYPE_BEFORE = /(?:普通|当座|貯蓄|口座番号)[^\n]{0,12}$/u;
const BANK_BEFORE = new RegExp(
  String.raw`(?:[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ーA-Za-z&・]{1,12}(?:銀行|信用金庫|信金|信用組合|労働金庫|ろうきん|バンク|Bank|BANK)[ \t]*)?` +
    String.raw`(?:[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ーA-Za-z0-9]{1,12}(?:支店|営業部|出張所)[ \t]*)?$`,
  'u',
);

function bankAccounts(text: string): PaymentDetail[] {
  const numbers = [...bankAccountNumberRanges(text), ...[...text.matchAll(ACCOUNT_NUMBER_LABEL)].map((m) => m.indices![1]!)];
  return numbers.map(([start, end]) => {
    const before = text.slice(Math.max(0, start - 16), start);
    const type = ACCOUNT_TYPE_BEFORE.exec(before);
    let from = type ? start - before.length + type.index : start;
    const bank = BANK_BEFORE.exec(text.slice(Math.max(0, from - 30), from));
    if (bank && bank[0] !== '') from -= bank[0].length;
    return { kind: 'bank-account' as const, start: from, end, key: `account:${compact(text.slice(start, end))}` };
  });
}

// --- SWIFT/BIC, after its label only ---
const SWIFT = /(?<![A-Za-z])(?:[Ss][Ww][Ii][Ff][Tt](?:[ \t]*\/[ \t]*BIC)?|BIC)[ \t]*(?:(?:[Cc]ode|コード)[ \t]*)?(?:(?:[:：=]|は)[ \t]*)?([A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?)(?![A-Za-z0-9])/dg;

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
// LINE only in capitals: "line" is an English word, "Line ID" an invoice's. ライン only before ID or 公式 (オンライン).
const CASED_CHAT_LABEL = String.raw`(?<![A-Za-z])LINE(?![A-Za-z])|ライン(?=[ \t]*(?:ID|公式))`;
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
// A plain id or number, only after a colon (or an account word and a bracket): shaped like an id or a number.
const PLAIN_VALUE = String.raw`[A-Za-z][A-Za-z0-9._-]{2,63}|\+?[0-9](?:[ -]?[0-9]){6,14}`;
const VALUE_END = String.raw`(?![A-Za-z0-9_@-]|\.[A-Za-z0-9])`;
// The bracket that closes one opened before the value is named with it (LINE ID「@xyz-support」).
const CLOSING = String.raw`(?:[」』)）】\]>"”'’])?`;
const labelled = (label: string, flags: string) =>
  new RegExp(
    `(?:${label})(?:(?:${ACCOUNT_WORD})?(?:${COLON}|${BRACKET}|[ \\t]+|(?:[ \\t]*(?:で|の|に|へ|on|at|via)[ \\t]*))(${STRONG_VALUE})|(?:${ACCOUNT_WORD})?${COLON}(${PLAIN_VALUE})|${ACCOUNT_WORD}${BRACKET}(${PLAIN_VALUE}))${VALUE_END}${CLOSING}`,
    `${flags}dg`,
  );
const LABELLED_HANDLES = [labelled(CASED_CHAT_LABEL, 'u'), labelled(CHAT_LABEL, 'iu')];
// An @handle before its label ("@xyz_refunds on Telegram", "@xyz（LINE）").
const handleBefore = (label: string, flags: string) =>
  new RegExp(`(?<![A-Za-z0-9._%+-])(${STRONG_VALUE})${VALUE_END}[ \\t]*(?:on|via|at|in|で|の|[(（【\\[])[ \\t]*(?:${label})`, `${flags}dg`);
const HANDLES_BEFORE = [handleBefore(CASED_CHAT_LABEL, 'u'), handleBefore(CHAT_LABEL, 'iu')];
// What a plain value after a label is when it is a word of the sentence, not an id.
const NOT_AN_ID = /^(?:your|our|the|required|optional|unknown|none|not|available|supported|only|and|or|app|official|account|business|id|number|name|username)$/i;
// A plain value is an id when shaped like one: a digit, or a dot, underscore or hyphen inside.
const ID_SHAPED = /[0-9]|[A-Za-z0-9][._-][A-Za-z0-9]/;

function handles(text: string): PaymentDetail[] {
  const found: PaymentDetail[] = [];
  for (const pattern of LABELLED_HANDLES) {
    for (const m of text.matchAll(pattern)) {
      const group = m.indices!.findIndex((range, i) => i > 0 && range !== undefined);
      const [vs, ve] = m.indices![group]!;
      const value = text.slice(vs, ve);
      if (group > 1 && !/^\+?[0-9]/.test(value) && (NOT_AN_ID.test(value) || !ID_SHAPED.test(value))) continue;
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
  // personal-data's LINE ids, named with their label (LINE ID：taro_y): what the patterns above did not take.
  for (const [start, end] of lineIdRanges(text)) {
    const label = text.lastIndexOf('LINE', start);
    found.push({ kind: 'handle', start: label >= 0 && start - label <= 24 ? label : start, end, key: handleKey(text.slice(start, end)) });
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
const GIFT_CARD =
  /(?:ギフト(?:カード|券|コード)|プリペイド(?:カード)?|電子マネー(?:カード|ギフト)?|(?:iTunes|Apple|Google ?Play|グーグルプレイ|Amazon|アマゾン|Steam|楽天|nanaco|WebMoney|ウェブマネー|BitCash|ビットキャッシュ|Vプリカ)[ \t]*(?:カード|券|コード)|\bgift[ -]?(?:cards?|codes?|vouchers?)\b|\bprepaid[ -]cards?\b|\b(?:iTunes|Google Play|Steam|Apple|Amazon)[ -]cards?\b)/i;
// What is asked of the card: to buy it, or to hand over its code, number or PIN (or a photo of it).
const GIFT_BUY = /購入|買っ|買い|お買い求め|\b(?:buy|purchase|get)\b/i;
const GIFT_SEND =
  /(?:コード|番号|PIN|写真|画像)[^。！？\n]{0,20}?(?:送|返信|お知らせ|教え|伝え|連絡|ご記入|記載|提供|共有)|(?:送|返信|お知らせ|教え|伝え|連絡|提供|共有)[^。！？\n]{0,10}?(?:コード|番号|PIN)|\b(?:send|e-?mail|text|reply|provide|share|give|tell|read)\b[^.!?\n]{0,40}\b(?:codes?|numbers?|pins?|photos?|pictures?|cards?)\b/i;

/**
 * The first sentence of `text` that asks the reader to buy gift cards (Amazon, iTunes, Apple, Google Play, Steam…,
 * ギフト券, プリペイドカード) or to send their codes, numbers or a photo of them, or undefined. No genuine support reply
 * asks for payment in gift cards; a warning about the scam (決してありません, "we will never ask") is no ask.
 */
export function giftCardRequest(text: string): string | undefined {
  for (const [start, end] of giftCardRequests(folded(text))) return text.slice(start, end);
  return undefined;
}

function giftCardRequests(text: string): Array<[number, number]> {
  if (!GIFT_CARD.test(text)) return [];
  const found: Array<[number, number]> = [];
  for (const [start, end, sentence] of sentences(text)) {
    if (!GIFT_CARD.test(sentence) || negated(sentence) || !asksTheReader(sentence)) continue;
    if (GIFT_BUY.test(sentence) || GIFT_SEND.test(sentence)) found.push([start, end]);
  }
  return found;
}

/**
 * The payment details, contact handles, remote-access ids and requests, and gift-card requests of `text`, in order of
 * start, one for each place: where two finds overlap, the wider stands.
 */
export function paymentDetailsIn(text: string): PaymentDetail[] {
  const t = folded(text);
  const all: PaymentDetail[] = [
    ...bankAccounts(t),
    ...ibanRanges(t).map(([start, end]) => ({ kind: 'iban' as const, start, end, key: `iban:${compact(t.slice(start, end))}` })),
    ...[...t.matchAll(SWIFT)].map((m) => ({ kind: 'swift' as const, start: m.index, end: m.index + m[0].length, key: `swift:${compact(t.slice(...m.indices![1]!))}` })),
    ...cryptoAddresses(t),
    ...handles(t),
    ...remoteAccess(t),
    ...giftCardRequests(t).map(([start, end]) => ({ kind: 'gift-card-request' as const, start, end, key: '' })),
  ];
  // A gift-card ask is named whole, whatever it holds: nothing vouches for it. A remote-access request is named whole
  // only when it holds nothing more precise: a remote-access id in it is what the knowledge must hold.
  const asks = all.filter((d) => d.kind === 'gift-card-request');
  const inAsk = (d: PaymentDetail) => asks.some((a) => a !== d && d.start < a.end && a.start < d.end);
  const rest = all.filter((d) => d.kind !== 'gift-card-request' && !inAsk(d));
  const requests = rest.filter((d) => d.kind === 'remote-access-request' && !rest.some((o) => o.kind !== 'remote-access-request' && o.start < d.end && d.start < o.end));
  const specific = rest.filter((d) => d.kind !== 'remote-access-request');
  const ordered = [...asks, ...requests, ...specific].sort((a, b) => a.start - b.start || b.end - a.end);
  // Where two finds overlap (a LINE id the labelled pattern and personal-data's both read), the wider stands.
  const kept: PaymentDetail[] = [];
  for (const d of ordered) {
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
 * The details of {@link paymentDetailsIn} in `text` that `knowledge` does not vouch for, each once, as the text writes
 * them. A detail is vouched for by the same detail in the knowledge (same key), or by its value standing in the
 * knowledge as a whole word once width, spaces, hyphens and case are left out (a handle the manual names without a
 * label); a remote-access request by the knowledge naming the same tool. A gift-card request never is.
 */
export function foreignPaymentDetails(text: string, knowledge: readonly string[], skip: (d: PaymentDetail) => boolean = () => false): string[] {
  const details = paymentDetailsIn(text).filter((d) => !skip(d));
  if (details.length === 0) return [];
  const knownKeys = new Set(knowledge.flatMap((k) => paymentDetailsIn(k).map((d) => d.key)));
  const knownText = knowledge.map(compact).join('\n');
  const foreign: string[] = [];
  for (const d of details) {
    if (d.kind !== 'gift-card-request' && (knownKeys.has(d.key) || inWords(knownText, d))) continue;
    foreign.push(text.slice(d.start, d.end));
  }
  return [...new Set(foreign)];
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
  if (!whole) return undefined;
  return whole.kind === 'gift-card-request' ? 'ask' : 'detail';
}
