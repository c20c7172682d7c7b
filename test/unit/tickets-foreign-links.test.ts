import { describe, expect, it } from 'vitest';
import { foreignLinks, foreignLinksReason } from '../../src/tickets/foreign-links.js';

const knowledge = [
  'ヘルプセンター（`https://help.xyz-system.example.jp`）では、次のサービスを提供しています。',
  'ログイン画面 https://app.xyz-system.example.jp/login を開きます。お問い合わせは support@xyz-system.example.jp まで。',
  'サポートデスク: ０１２０－１２３－４５６（平日9時〜18時）',
];
const allowed = { knowledge, trustedDomains: ['status.example.com'], addresses: ['XYZ Support <support@helpdesk.test>', 'taro@customer.example'] };

describe('foreignLinks', () => {
  it.each<[string, string, string[]]>([
    ['no links', '二段階認証は「設定」→「セキュリティ」から設定できます。', []],
    ['a link of the knowledge, with Japanese punctuation after it', '詳しくは https://help.xyz-system.example.jp をご覧ください。', []],
    ['a link of the knowledge in brackets', 'ログイン画面（https://app.xyz-system.example.jp/login）から', []],
    ['a link of the knowledge with another case in its host', 'https://APP.xyz-system.example.jp/login', []],
    ['a deeper path than the knowledge has is another page', 'https://app.xyz-system.example.jp/login/reset-all', ['https://app.xyz-system.example.jp/login/reset-all']],
    ['a link the knowledge does not have', 'こちらで確認してください: https://xyz-login.evil.example/verify?u=1', ['https://xyz-login.evil.example/verify?u=1']],
    ['a look-alike host', 'https://help.xyz-system.example.jp.evil.example/', ['https://help.xyz-system.example.jp.evil.example/']],
    ['a bare www host', '詳細は www.evil.example/login へ', ['www.evil.example/login']],
    ['a trusted domain and its subdomains', 'https://status.example.com/ と https://eu.status.example.com/incidents', []],
    ['an address of the knowledge', 'support@xyz-system.example.jp までご連絡ください。', []],
    ['our own address and the customer', 'support@helpdesk.test から taro@customer.example 宛にお送りします。', []],
    ['an address nobody gave', '認証コードを security@evil.example までご返信ください。', ['security@evil.example']],
    ['a mailto link nobody gave', '<mailto:help@evil.example>', ['help@evil.example']],
    // Japanese is written without spaces: the text right before or after a link or an address is not part of it.
    ['a link of the knowledge followed by Japanese', 'ログインはhttps://app.xyz-system.example.jp/loginをご覧ください。', []],
    ['an address of the knowledge between Japanese words', '窓口support@xyz-system.example.jpまでご連絡ください。', []],
    ['a foreign link followed by Japanese', '確認はhttps://evil.example/verifyから', ['https://evil.example/verify']],
    // "Call our security line to verify your account": a phone number is as good a lure as a link.
    ['a phone number of the knowledge, written otherwise', 'サポートデスク（0120-123-456）までお電話ください。', []],
    ['a phone number nobody gave', '本人確認のため 03-1234-5678 までお電話ください。', ['03-1234-5678']],
    ['an international number nobody gave', 'Please call +1 (555) 010-4477 to verify.', ['+1 (555) 010-4477']],
    ['dates, versions and amounts are no phone numbers', 'バージョン 2.3.1 は 2026-11-24 に公開しました。料金は 12,000 円です。', []],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, allowed)).toEqual(expected);
  });

  it('names the first few in its reason', () => {
    expect(foreignLinksReason(['https://a.example/x', 'b@c.example', 'https://d.example', 'https://e.example'])).toBe(
      'the answer contains links, addresses or phone numbers that are neither in the knowledge it found nor trusted (TRUSTED_LINK_DOMAINS): https://a.example/x, b@c.example, https://d.example and 1 more',
    );
  });
});
