/**
 * Security review 19, finding 1: one customer's name and numbers stayed in a learned answer that the agent then read
 * for every later customer. The scrub's rules (all that runs when the model pass fails or adds nothing) left Korean and
 * Chinese names and labelled numbers, greetings in six European languages, a name opening an English reply or
 * before a dash, ids inside links, carrier, booking and return numbers and a log-in after "user"; and session 51 left a
 * name glued before a job word (田中配達員さん). Both directions are pinned: what names a customer goes, and the
 * ordinary openers, product names, knowledge links, versions, dates and prices stay as written.
 */
import { describe, expect, it } from 'vitest';
import { scrubCandidate } from '../../src/knowledge/learned-candidates.js';
import { scrubPersonalData } from '../../src/knowledge/personal-data.js';

/** [what, the answer as approved, the customer's detail that must not survive]: the review's rows. */
const REVIEW_ROWS: [string, string, string][] = [
  ['Korean name before 고객님', '김민수 고객님, 교환품을 오늘 발송했습니다.', '김민수'],
  ['Korean name before 님 after a greeting', '안녕하세요 김민수님, 교환품을 발송했습니다.', '김민수'],
  ['Korean order number after 주문번호', '주문번호 202611030042 상품이 발송되었습니다.', '202611030042'],
  ['Chinese name before 女士', '李娜女士您好，换货已发出。', '李娜'],
  ['Chinese order number after 订单号', '您的订单号 202611030042 已发货。', '202611030042'],
  ['Spanish greeting', 'Hola María José, el reemplazo sale hoy.', 'María José'],
  ['French greeting', "Bonjour Jean-Pierre, le remplacement part aujourd'hui.", 'Jean-Pierre'],
  ['German greeting', 'Hallo Jürgen, der Ersatz geht heute raus.', 'Jürgen'],
  ['German customer number', 'Ihre Kundennummer 4471123 wurde gesperrt.', '4471123'],
  ['French customer number', 'Votre numéro de client 4471123 est bloqué.', '4471123'],
  ['English greeting with a dash', 'Hello Priya — your replacement ships today.', 'Priya'],
  ['English name opening the reply', 'Priya, the replacement ships today.', 'Priya'],
  ['order number in a link path', 'See https://shop.example/account/orders/4711998123 for the status.', '4711998123'],
  ['order number in a link query', 'Track it: https://shop.example/track?order=4711998123', '4711998123'],
  ['carrier tracking number in a link', 'Track: https://www.ups.com/track?tracknum=1Z999AA10123456784', '1Z999AA10123456784'],
  ['carrier tracking number after the carrier', 'It shipped with UPS 1Z999AA10123456784 yesterday.', '1Z999AA10123456784'],
  ['booking reference after PNR', 'Your reservation PNR QX7ZP2 is confirmed.', 'QX7ZP2'],
  ['return authorisation after RMA', 'RMA 88-2231 was approved; the label is attached.', '88-2231'],
  ['login name after "user"', 'I have reset the password for user htanaka92.', 'htanaka92'],
  ['name slug in an invoice link', 'Your invoice: https://billing.example/inv/hanako-tanaka-2026-11.pdf', 'hanako-tanaka'],
];

/** [what, input, expected scrub]: more of the same kinds, with what stays around them (Han text takes the Japanese placeholders). */
const REMOVED: [string, string, string][] = [
  ['Korean name before 씨', '박지영씨, 환불이 완료되었습니다.', '[name]씨, 환불이 완료되었습니다.'],
  ['Korean member number', '회원번호: A1234567 로 확인했습니다.', '회원번호: [number] 로 확인했습니다.'],
  ['Chinese name after 尊敬的', '尊敬的王芳小姐，退款已完成。', '尊敬的[氏名]小姐，退款已完成。'],
  ['Chinese member number', '会员号 88012345 已更新。', '会员号 [番号] 已更新。'],
  ['Italian greeting', 'Ciao Marco, il pacco è partito.', 'Ciao [name], il pacco è partito.'],
  ['Portuguese greeting', 'Olá Ana Paula, o reembolso foi feito.', 'Olá [name], o reembolso foi feito.'],
  ['Dutch greeting', 'Hoi Sanne, je pakket is onderweg.', 'Hoi [name], je pakket is onderweg.'],
  ['Spanish customer number', 'Su número de cliente 4471123 está activo.', 'Su número de cliente [number] está activo.'],
  ['Italian customer number', 'Il numero cliente 4471123 è attivo.', 'Il numero cliente [number] è attivo.'],
  ['Dutch customer number', 'Uw klantnummer 4471123 is actief.', 'Uw klantnummer [number] is actief.'],
  ['users path in a link', 'Profile: https://app.example/users/48213/settings', 'Profile: https://app.example/users/[number]/settings'],
  ['customer id in a query', 'Open https://crm.example/view?customer_id=C-99812&tab=notes', 'Open https://crm.example/view?customer_id=[number]&tab=notes'],
  ['UPS number by its shape', 'Tracking: 1Z999AA10123456784', 'Tracking: [number]'],
  ['DHL number after the carrier', 'Sent by DHL 00340434161234567890.', 'Sent by DHL [number].'],
  ['RMA number after a label', 'Your RMA number: R-55120.', 'Your RMA number: [number].'],
  ['login after ユーザー名', 'ユーザー名 htanaka92 のパスワードを再設定しました。', 'ユーザー名 [番号] のパスワードを再設定しました。'],
  ['name glued before a job word', '田中配達員さんが伺います。', '[氏名]配達員さんが伺います。'],
  ['name glued before ドライバー', '佐藤ドライバー様にお渡しください。', '[氏名]ドライバー様にお渡しください。'],
  ['name glued before 担当者', '山田担当者様よりご連絡します。', '[氏名]担当者様よりご連絡します。'],
];

/** Text that names no customer: it must stay exactly as written. */
const KEPT: string[] = [
  // Ordinary openers of a reply.
  'Yes, the replacement ships today.',
  'Thanks, the replacement ships today.',
  'Hi, the replacement ships today.',
  'Unfortunately, the item is out of stock.',
  'Additionally, you can track it online.',
  'Sorry, we cannot change the address now.',
  'Hello team — the outage is over.',
  'Hola, el reemplazo sale hoy.',
  'Hallo zusammen, der Ersatz geht heute raus.',
  'Liebe Grüße, Ihr Support-Team',
  'Bonjour Madame, votre colis est parti.',
  'Hallo Team, bitte prüfen.',
  // Korean and Chinese words that take 님 or 女士 themselves.
  '고객님, 교환품을 오늘 발송했습니다.',
  '안녕하세요 고객님, 감사합니다.',
  '선생님께 전달했습니다.',
  '尊敬的女士，您好。',
  '各位女士，欢迎光临。',
  // Product names, versions, dates and prices.
  'Windows 11 and macOS 14.2 are supported.',
  'Version 3.4.1 was released on 2026-11-03 and costs 49.99 EUR.',
  '主要版本 2.1 已于 2026年11月3日 发布，价格 199 元。',
  // Knowledge links keep their path and ids.
  'See https://help.example.com/hc/en-us/articles/360001234567 for the steps.',
  'Docs: https://docs.example.com/guides/orders/setup?page=2',
  'Open https://shop.example/account/orders to see every order.',
  'The carrier UPS delivers on weekdays.',
  'Ask for an RMA before you send it back.',
  'The user account page lists your devices.',
  // Jobs alone, and a trade before one.
  '配達員さんが伺います。',
  '郵便配達員さんにお渡しください。',
  '営業担当者様よりご連絡します。',
  'ご担当者様',
  '製品担当者様へお問い合わせください。',
  '배송기사님이 오늘 방문합니다.',
  '우수고객님께 쿠폰을 드립니다.',
  'Create users123 in the admin console.',
  'Springfield, IL is our warehouse.',
];

describe('security review 19: the learned-answer scrub, rules only, on one customer\'s details', () => {
  it.each(REVIEW_ROWS)('%s', async (_what, answer, detail) => {
    const scrubbed = await scrubCandidate({ question: 'Where is my replacement?', answer }, []);
    expect(scrubbed.answer).not.toContain(detail);
  });
});

describe('scrubPersonalData: more names and numbers of the same kinds', () => {
  it.each(REMOVED)('%s', (_what, input, expected) => {
    expect(scrubPersonalData(input).text).toBe(expected);
  });
});

// 100 KB built to make one of the new rules backtrack; the bound is generous, as the machine running tests is shared.
const ADVERSARIAL: [string, string][] = [
  ['greetings without a name', 'Hola '.repeat(20_000)],
  ['greetings before capitalised words and no comma', 'Bonjour Jean Pierre Marie Paul '.repeat(3_500)],
  ['a carrier before a long run of digits and dashes', `UPS ${'1234567-'.repeat(12_000)}`],
  ['user repeated', 'user '.repeat(20_000)],
  ['Hangul without an honorific', '김'.repeat(100_000)],
  ['Han before 女士 repeated', '李娜女士'.repeat(25_000)],
  ['a link of order segments', `https://shop.example/orders/${'1/orders/'.repeat(10_000)}`],
  ['a link of order parameters', `https://shop.example/t?${'order=1&'.repeat(12_000)}`],
  ['PNR repeated', 'PNR '.repeat(25_000)],
  ['a name before a job word repeated', '田中配達員さん'.repeat(12_000)],
];

describe('scrubPersonalData: the new rules on 100,000-character adversarial input', () => {
  it.each(ADVERSARIAL)('%s', (_what, input) => {
    const started = performance.now();
    scrubPersonalData(input);
    expect(performance.now() - started).toBeLessThan(4_000);
  });
});

describe('scrubPersonalData: text that names no customer stays', () => {
  it.each(KEPT)('%s', (input) => {
    expect(scrubPersonalData(input).text).toBe(input);
  });
});
