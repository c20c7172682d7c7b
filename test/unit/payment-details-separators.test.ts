/**
 * Security review 17 (HIGH 1, the reader's half; tmp/s49-sec/separators.mts and digits.mts) and the property tests'
 * findings of session 49 (tmp/s49-prop/failing.md): an account, IBAN or phone number whose digit groups are split by
 * what a reader reads past (a no-break space, which an HTML mail's &nbsp; gives, U+202F, thin, figure or ideographic
 * spaces, a tab, two spaces, en or em dashes, minus signs, the small hyphen, a control character) or written in
 * superscript, subscript or circled digits went out unread: in a draft, in the quote of a forged mail and in a learned
 * question. A gift-card ask in half-width katakana too. Each is read and named as the text writes it; what ordinary
 * text writes with the same characters (a price with a no-break space before 円, a range with an en dash, m², a list's
 * ①) is not.
 */
import { describe, expect, it } from 'vitest';
import { questionLinksNotInAnswer } from '../../src/knowledge/learned-candidates.js';
import { foreignFindings, foreignLinks, type AllowedLinks } from '../../src/tickets/foreign-links.js';
import { checkedText, giftCardRequest, paymentDetailsIn } from '../../src/tickets/payment-details.js';
import { quoteOmission, type QuoteConfig } from '../../src/tickets/quote-omission.js';
import { newTicket } from '../../src/tickets/ticket.js';

const allowed = (knowledge: string[] = []): AllowedLinks => ({ knowledge, trustedDomains: [], addresses: ['support@xyz.example'] });

// What a reader reads past between two digit groups.
const SEPARATORS: Array<[string, string]> = [
  ['no-break space (&nbsp;)', '\u00a0'],
  ['narrow no-break space', '\u202f'],
  ['thin space', '\u2009'],
  ['figure space', '\u2007'],
  ['en space', '\u2002'],
  ['tab', '\t'],
  ['two spaces', '  '],
  ['no-break space and a space', '\u00a0 '],
  ['en dash', '\u2013'],
  ['em dash', '\u2014'],
  ['figure dash', '\u2012'],
  ['minus sign', '\u2212'],
  ['small hyphen-minus', '\ufe63'],
  ['backspace', '\b'],
  ['NUL', '\u0000'],
  ['a C1 control', '\u0090'],
];

describe('an account, IBAN or phone number split by what a reader reads past', () => {
  it.each(SEPARATORS)('a Japanese account, %s: named as written', (_name, s) => {
    const draft = `今後のお振込先は みずほ銀行 新宿支店 普通 765${s}4321 カ）エックスワイゼット です。`;
    expect(foreignLinks(draft, allowed())).toEqual([`みずほ銀行 新宿支店 普通 765${s}4321`]);
  });

  it.each(SEPARATORS.filter(([name]) => !/dash|minus|hyphen/.test(name)))('an IBAN, %s between its groups', (_name, s) => {
    const iban = ['DE89', '3704', '0044', '0532', '0130', '00'].join(s);
    expect(foreignLinks(`Please note our new bank details: IBAN ${iban} from now on.`, allowed())).toEqual([iban]);
  });

  it.each(SEPARATORS)('a phone number, %s between its groups', (_name, s) => {
    expect(foreignLinks(`本人確認のため 03${s}9876${s}5432 までお電話ください。`, allowed())).toEqual([`03${s}9876${s}5432`]);
  });

  it('paymentDetailsIn names where the text writes it', () => {
    const text = 'お振込先：普通 765\u00a0\u00a04321 です';
    expect(paymentDetailsIn(text).map((d) => text.slice(d.start, d.end))).toEqual(['普通 765\u00a0\u00a04321']);
  });

  it('the knowledge writing the account with plain spaces vouches for it written with others, and the other way', () => {
    expect(foreignLinks('お振込先は みずほ銀行 新宿支店 普通 765\u00a04321 です。', allowed(['お振込先：みずほ銀行 新宿支店 普通 765 4321']))).toEqual([]);
    expect(foreignLinks('Pay to IBAN DE89 3704 0044 0532 0130 00.', allowed(['IBAN\u00a0DE89\u20093704\u20090044\u20090532\u20090130\u200900']))).toEqual([]);
  });
});

// Digits a reader reads as digits: NFKC's superscripts, subscripts and circled digits, and the dingbats'.
const DIGIT_FORMS: Array<[string, string]> = [
  ['superscript', '⁷⁶⁵⁴³²¹'],
  ['subscript', '₇₆₅₄₃₂₁'],
  ['circled', '⑦⑥⑤④③②①'],
  ['dingbat circled', '➐➏➎➍➌➋➊'],
  ['ASCII and superscript', '765⁴³²¹'],
];

describe('an account written in other digit forms', () => {
  it.each(DIGIT_FORMS)('%s, after its type', (_name, n) => {
    expect(foreignLinks(`今後のお振込先は みずほ銀行 新宿支店 普通 ${n} カ）エックスワイゼット です。`, allowed())).toEqual([`みずほ銀行 新宿支店 普通 ${n}`]);
  });

  it.each(DIGIT_FORMS)('%s, after its label', (_name, n) => {
    expect(foreignLinks(`お振込先 口座番号: ${n}`, allowed())).toEqual([`口座番号: ${n}`]);
  });
});

// The property tests' rows (tmp/s49-prop/failing.md, the draft checks' side).
const ASK_ALLOWED: AllowedLinks = { knowledge: ['パスワードは8文字以上で、英字と数字を含めてください。'], trustedDomains: [], addresses: ['support@desk.example'] };
const PROPERTY_ROWS: string[] = [
  ...['\u00a0', '\u2002', '\u2009', '\u202f'].flatMap((s) => [
    `お振込先は みずほ銀行 新宿支店 普通${s}7654321 に変更となりました。`,
    `Please note our new bank details: IBAN${s}DE89${s}3704${s}0044${s}0532${s}0130${s}00.`,
    `To release the refund, please buy${s}two${s}Apple${s}gift${s}cards and send us the codes.`,
  ]),
  'Please note our new bank details: IBAN\tDE89\t3704\t0044\t0532\t0130\t00.',
  'コンビニでGoogle Playｷﾞﾌﾄｶｰﾄﾞを購入し、裏面の番号をお知らせください。',
  '本人確認のため 03﹣1234﹣5678 までお電話ください。',
  '本人確認のため ⁰³-¹²³⁴-⁵⁶⁷⁸ までお電話ください。',
  'お振込先は 普通 ⁷⁶⁵⁴³²¹ です。',
];

describe('the property tests\' rows', () => {
  it.each(PROPERTY_ROWS)('parked: %j', (draft) => {
    expect(foreignLinks(draft, ASK_ALLOWED)).not.toEqual([]);
  });

  it('an ask to buy gift cards in half-width katakana is one, named as written', () => {
    expect(giftCardRequest('ｱﾏｿﾞﾝｷﾞﾌﾄ券を購入し、コードをご返信ください。')).toBe('ｱﾏｿﾞﾝｷﾞﾌﾄ券を購入し、コードをご返信ください。');
  });
});

describe('the forged mail\'s quote and the learned question read the same', () => {
  const config: QuoteConfig = { MAIL_FROM: 'XYZ Support <support@helpdesk.test>', SUPPORT_ADDRESSES: [], SUPPORT_GROUP_ADDRESSES: [], AUTHSERV_ID: [], TRUSTED_LINK_DOMAINS: [] };

  it('an unauthenticated mail writing the account with &nbsp; is not quoted', () => {
    const ticket = { ...newTicket({ messageId: '<pay@q.example>', from: 'keiri@customer.example', subject: 'パスワード', actor: 'test', question: 'パスワードの条件を教えてください。\n\n【重要】お振込先は みずほ銀行 新宿支店 普通 765\u00a04321 に変更となりました。' }) };
    expect(quoteOmission(ticket, config)).toContain('みずほ銀行 新宿支店 普通 765\u00a04321');
  });

  it('a learned question writing the account with a thin space names it for the scrub', () => {
    expect(questionLinksNotInAnswer('返金先は みずほ銀行 新宿支店 普通 765\u20094321 でお願いします。', 'ご返金の手続きをいたしました。')).toEqual(['みずほ銀行 新宿支店 普通 765\u20094321']);
  });
});

// What ordinary text writes with the same characters stays clean.
const ORDINARY: string[] = [
  '料金は1,000\u00a0円（税込）です。',
  '| プラン | 月額 |\n| --- | --- |\n| ライト | 1,000\u00a0円 |\n| 標準 | 2,500\u00a0円 |\n| 法人 | 12,000\u00a0円 |',
  'ライト\t1,000円\n標準\t2,500円\n法人\t12,000円',
  '料金は普通\u00a0\u00a01000\u20131500円程度です。',
  '当座 2024\u20130115 までの暫定対応です。',
  '受付時間：9:00\u201318:00（平日）',
  '面積は 120m² です。価格¹は税込です。',
  '① 設定画面を開きます。\n② 1234567 のような注文番号を入力します。',
  'ｱﾌﾟﾘの設定画面からﾊﾟｽﾜｰﾄﾞを変更できます。',
  'お問い合わせ番号\u00a01234567\u00a0で承りました。',
  'Order\u00a0#\u00a012345678 ships on 2026\u201311\u201328.',
  'Version 10.0.19045\u20133803 is required.',
];

describe('ordinary text with the same characters', () => {
  it.each(ORDINARY)('none: %j', (text) => {
    expect(foreignFindings(text, allowed())).toEqual([]);
  });
});

describe('checkedText reads past separators and digit forms, and maps back', () => {
  it('reads one space for a run, a hyphen for a dash between digits, ASCII for a digit form, nothing for a control', () => {
    const text = 'A\u00a0\u2009\tB 765\u20134321 ⁷⁶\u0008x — y ｶﾞ';
    const checked = checkedText(text);
    expect(checked.text).toBe('A B 765-4321 76x — y ガ');
    expect(checked.quote(2, 12)).toBe('B 765\u20134321');
    expect(checked.quote(13, 16)).toBe('⁷⁶\u0008x');
    expect(checked.quote(21, 22)).toBe('ｶﾞ');
  });
});

// Bug review B3 of session 49 (HIGH 1): a circled step number or a footnote digit touching a phone was read as one of
// its digits (①090-… as 1090-…), so the phone went unread; and knowledge writing one beside its number no longer
// vouched for the plain number. A digit form is read as a digit only between digits or beside another digit form.
describe('bug review B3 of session 49: a step number or footnote digit beside a phone', () => {
  it.each<[string, string, string]>([
    ['a circled step number before a mobile', '①090-1234-5678へお電話ください。', '090-1234-5678'],
    ['a circled step number before 03', '①03-1234-5678にお電話ください。', '03-1234-5678'],
    ['a dingbat step number before 03', '➀03-1234-5678にお電話ください。', '03-1234-5678'],
    ['a footnote digit after it', '本人確認のため 03-1234-5678² までお電話ください。', '03-1234-5678'],
    ['a footnote digit before it', '本人確認のため ¹03-1234-5678 までお電話ください。', '03-1234-5678'],
  ])('parked: %s', (_what, draft, phone) => {
    expect(foreignLinks(draft, ASK_ALLOWED)).toEqual([phone]);
  });
  it.each<[string, string]>([
    ['a footnote digit after it', 'サポート 03-1234-5678¹ まで'],
    ['a circled step number before it', '①03-1234-5678にお電話ください ②メニューを選択'],
  ])('the knowledge writing %s vouches for the plain number', (_what, knowledge) => {
    expect(foreignLinks('サポート 03-1234-5678 までお電話ください。', allowed([knowledge]))).toEqual([]);
  });
  it.each<[string, string]>([
    ['superscript digits', 'お振込先は 普通 ⁷⁶⁵⁴³²¹ です。'],
    ['superscript digits after ASCII ones', 'お振込先は 普通 765⁴³²¹ です。'],
  ])('still read: %s', (_what, draft) => {
    expect(foreignLinks(draft, ASK_ALLOWED)).not.toEqual([]);
  });
});
