/**
 * Bug review R1 of session 51's personal-data scrub: findings 1, 2 and 7. Korean names written with the standard space
 * before 씨 or 님 stayed; the link rule took knowledge-link slugs (/account/2fa-setup) and a guest log-in for a
 * customer's ids; a product or a country opening an answer lost its word as if it were a name, as did a team after a
 * greeting and a carrier's service name; and a greeting written with a comma (Hi, Priya.) kept the name.
 */
import { describe, expect, it } from 'vitest';
import { scrubPersonalData } from '../../src/knowledge/personal-data.js';

/** [what, input, expected scrub]: the customer's name or id goes, the rest stays. */
const REMOVED: [string, string, string][] = [
  ['Korean name, a space, then 씨 and a comma', '김민수 씨, 확인했습니다.', '[name] 씨, 확인했습니다.'],
  ['Korean name, a space, then 씨의', '이지은 씨의 주문이 발송되었습니다.', '[name] 씨의 주문이 발송되었습니다.'],
  ['Korean name, a space, then 님', '김민수 님, 안녕하세요', '[name] 님, 안녕하세요'],
  ['Korean given name, a space, then 씨', '민수 씨, 확인했습니다.', '[name] 씨, 확인했습니다.'],
  ['Korean name before 씨 and a space', '김민수 씨 확인했습니다.', '[name] 씨 확인했습니다.'],
  ['an order number in a link path', 'https://shop.example.com/orders/4711998123', 'https://shop.example.com/orders/[number]'],
  ['an order number in a link query', 'https://shop.example.com/track?order=4711998123', 'https://shop.example.com/track?order=[number]'],
  ['a tracking number in a link query', 'https://shop.example.com/track?tracknum=1Z999AA10123456784', 'https://shop.example.com/track?tracknum=[number]'],
  ['a log-in with digits in a link query', 'https://shop.example.com/login?user=htanaka92', 'https://shop.example.com/login?user=[number]'],
  ['a log-in with a dot in a link query', 'https://shop.example.com/login?user=h.tanaka', 'https://shop.example.com/login?user=[number]'],
  ['a dated invoice named after the customer', 'https://billing.example/inv/hanako-tanaka-2026-11.pdf', 'https://billing.example/inv/[number].pdf'],
  ['a name opening the reply before "your"', 'Priya, your order ships today.', '[name], your order ships today.'],
  ['a name opening the reply before "we"', 'Priya, we have sent the replacement.', '[name], we have sent the replacement.'],
  ['a name opening a French reply', 'Marie, votre commande est partie.', '[name], votre commande est partie.'],
  ['a name opening a Spanish reply', 'María, su pedido ha sido enviado.', '[name], su pedido ha sido enviado.'],
  ['a name before "the" ending the sentence', 'Priya, the replacement ships today.', '[name], the replacement ships today.'],
  ['"Hi", a comma, a name', 'Hi, Priya. Done.', 'Hi, [name]. Done.'],
  ['"Hello", a comma, a name', 'Hello, Priya! Done.', 'Hello, [name]! Done.'],
  ['"Hallo", a comma, a name', 'Hallo, Jürgen! Ihre Bestellung ist unterwegs.', 'Hallo, [name]! Ihre Bestellung ist unterwegs.'],
  ['"Hola", a comma, a name', 'Hola, María: su pedido ha sido enviado.', 'Hola, [name]: su pedido ha sido enviado.'],
  ['"Bonjour", a comma, a name, a full stop', 'Bonjour, Jean-Pierre. Votre commande est partie.', 'Bonjour, [name]. Votre commande est partie.'],
  ['"Dear" and two names', 'Dear Priya and Arjun, done.', 'Dear [name] and [name], done.'],
  ['a carrier number of the carrier', 'Sent by DHL 00340434161234567890.', 'Sent by DHL [number].'],
];

/** Answer text that names no customer: it must stay exactly as written. */
const KEPT: string[] = [
  '고객 님, 확인했습니다.',
  '회원 님께 안내드립니다.',
  '사용자 님 계정은 잠겨 있습니다.',
  '수박 씨앗은 제거하세요.',
  '오늘 님이 오신다는 소식은 없습니다.',
  '2단계 인증은 설정 메뉴에서 켤 수 있습니다.',
  '2段階認証は https://help.example.com/account/2fa-setup を参照してください。',
  'See https://example.com/returns/2024-policy for the policy.',
  'Download https://example.com/invoice/sample-invoice-2024.pdf as a template.',
  'Open https://example.com/login?user=guest to try the demo.',
  'Open https://example.com/login?user=admin or ?user=demo.',
  'See https://help.example.com/orders/track-2024 for the steps.',
  'Slack, email and phone are our channels.',
  'Zoom, not Teams, is used.',
  'Japan, the US and the EU ship free.',
  'Premium, the paid plan, includes phone support.',
  'Bitte, senden Sie uns das Formular.',
  'Hallo Support-Team, bitte prüfen.',
  'Hallo Kundenservice, bitte prüfen.',
  'Ship with DHL EXPRESS-12 service.',
  'Hi, the replacement ships today.',
  'Hola, gracias por escribir.',
];

describe('bug review R1: a customer\'s name or id goes', () => {
  it.each(REMOVED)('%s', (_what, input, expected) => {
    expect(scrubPersonalData(input).text).toBe(expected);
  });
});

describe('bug review R1: ordinary answer text stays', () => {
  it.each(KEPT)('%s', (input) => {
    expect(scrubPersonalData(input).text).toBe(input);
  });
});
