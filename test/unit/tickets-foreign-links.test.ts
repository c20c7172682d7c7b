import { describe, expect, it } from 'vitest';
import { foreignFindings, foreignLinks, foreignLinksReason } from '../../src/tickets/foreign-links.js';

const knowledge = [
  'ヘルプセンター（`https://help.xyz-system.example.jp`）では、次のサービスを提供しています。',
  'ログイン画面 https://app.xyz-system.example.jp/login を開きます。お問い合わせは support@xyz-system.example.jp まで。',
  'サポートデスク: ０１２０－１２３－４５６（平日9時〜18時）',
  '旧ヘルプ https://ヘルプ.example.jp/faq は閉鎖しました。',
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

  // Mail clients (Gmail, Outlook) make a link of a bare domain, and a browser opens a host in any script: whatever a
  // customer can click counts, and it is named as the draft writes it.
  it.each<[string, string, string[]]>([
    ['a bare domain', 'アカウント確認のため xyz-login.com にログインしてください。', ['xyz-login.com']],
    ['a bare domain with a path', 'こちらで再設定してください: xyz-support.example.net/reset', ['xyz-support.example.net/reset']],
    ['a bare domain written right against Japanese', '本人確認のためxyz-support-login.com/verifyでログインしてください。', ['xyz-support-login.com/verify']],
    ['a bare domain in Japanese brackets', '「xyz-login.com」を開いてください。', ['xyz-login.com']],
    ['a bare domain under a country code', 'Please log in at xyz-system.co.jp.evil.com.au first.', ['xyz-system.co.jp.evil.com.au']],
    ['a host with Cyrillic letters', 'こちらで再設定してください: https://хуз-support.com/reset', ['https://хуз-support.com/reset']],
    ['a look-alike of a known host (Cyrillic ѕ)', 'https://app.xyz-ѕystem.example.jp/login', ['https://app.xyz-ѕystem.example.jp/login']],
    ['a look-alike host in punycode', 'https://app.xn--xyz-ystem-o9h.example.jp/login', ['https://app.xn--xyz-ystem-o9h.example.jp/login']],
    ['a bare Japanese host', '詳しくは サポート.jp をご覧ください。', ['サポート.jp']],
    ['a full-width URL', 'こちらで再設定してください: ｈｔｔｐｓ：／／ｘｙｚ－ｌｏｇｉｎ．ｃｏｍ', ['ｈｔｔｐｓ：／／ｘｙｚ－ｌｏｇｉｎ．ｃｏｍ']],
    ['a full-width www host', 'www.ｘｙｚ-login.com で確認してください', ['www.ｘｙｚ-login.com']],
    ['an ftp link', 'ftp://files.evil.example.net/tool.exe からダウンロードしてください。', ['ftp://files.evil.example.net/tool.exe']],
    ['a protocol-relative link', '//evil.example.net/verify を開いてください。', ['//evil.example.net/verify']],
    ['a look-alike address (Cyrillic ѕ)', '返金は support@xyz-ѕystem.example.jp までご連絡ください。', ['support@xyz-ѕystem.example.jp']],
    ['an address at a Japanese domain', '返金は support@サポート.jp までご連絡ください。', ['support@サポート.jp']],
    ['an address with a Japanese local part nobody gave', 'サポート@evil.example まで', ['サポート@evil.example']],
    ['a full-width address nobody gave', 'ｓｅｃｕｒｉｔｙ＠ｅｖｉｌ．ｅｘａｍｐｌｅ まで', ['ｓｅｃｕｒｉｔｙ＠ｅｖｉｌ．ｅｘａｍｐｌｅ']],
    ['an address cut short of the known one', 'support@xyz-system.example までご連絡ください。', ['support@xyz-system.example']],
    // Phishing pages live on every new generic TLD, not only the ones a list of common ones names.
    ['a bare domain on a city TLD', '継続するには xyz-account-verify.tokyo/login でログインしてください。', ['xyz-account-verify.tokyo/login']],
    ['bare domains on other new TLDs', 'xyz-login.ninja と xyz-pay.osaka、xyz-id.guru', ['xyz-login.ninja', 'xyz-pay.osaka', 'xyz-id.guru']],
    // Browsers and DNS ignore case: a host written in Title Case is the same host, and a forged mail can ask for it so.
    ['a Title-case host on a new TLD with a path', 'Please verify your account at Secure-Login.Tokyo/verify today.', ['Secure-Login.Tokyo/verify']],
    ['a Title-case host with a path written against Japanese', 'ログインはXyz-Account-Verify.Tokyo/loginから確認してください。', ['Xyz-Account-Verify.Tokyo/login']],
    ['a Title-case TLD with a path', 'お問い合わせはxyz-support.Ninja/formまで', ['xyz-support.Ninja/form']],
    ['a bare Title-case host of more than one word', 'Sign in at Secure-Login.Tokyo to keep your account.', ['Secure-Login.Tokyo']],
    // TLDs that are also file extensions (zip, mov, run…) are live ones: with a path, port or query it is a site.
    ['a host on .zip with a path', 'Download the fix from office-update.zip/setup now.', ['office-update.zip/setup']],
    ['a host on .mov with a query', 'Watch the guide at xyz-help.mov/watch?id=1', ['xyz-help.mov/watch?id=1']],
    ['a host on .run with a path', 'Open support-portal.run/login to continue.', ['support-portal.run/login']],
    ['a host on .zip with a port', 'Download the fix from office-update.zip:8443 now.', ['office-update.zip:8443']],
    // Only a host's last dot written as ． between Japanese words is a full stop: not one in its path or subdomain.
    ['a full-width full stop between Japanese in a path or a subdomain', 'evil.com/確認です．ポイント と 確認です．ポイント.com/verify', ['evil.com/確認です．ポイント', '確認です．ポイント.com/verify']],
    ['a phone number in kanji numerals nobody gave', 'お問い合わせは 〇三－一二三四－五六七八 まで', ['〇三－一二三四－五六七八']],
    ['an address inside the known one', 'port@xyz-system.example.jp までご連絡ください。', ['port@xyz-system.example.jp']],
    // Markdown and config-style text around a link: a mail client links it all the same.
    ['a link in a code span', '`https://evil.example/verify` を開いてください。', ['https://evil.example/verify']],
    ['a link after an equals sign', 'URL=https://evil.example/verify', ['https://evil.example/verify']],
    ['a link glued to a word', 'ログインはLoginhttps://evil.example/verify', ['https://evil.example/verify']],
    ['a markdown link', '[ヘルプセンター](https://evil.example/help)', ['https://evil.example/help']],
    ['a link in underscores', '_https://evil.example/verify_', ['https://evil.example/verify']],
    ['bare domains in emphasis', '**xyz-login.com** または _xyz-login.net_ へ', ['xyz-login.com', 'xyz-login.net']],
    ['a bare domain after a colon', 'ログインURL:xyz-login.com/verify', ['xyz-login.com/verify']],
    ['a bare domain in a table', '| ログイン先 |xyz-login.com|', ['xyz-login.com']],
    // Addresses are read in the runs between spaces and control characters that hold an `@`: whatever separates them.
    ['addresses between ideographic and no-break spaces', '宛先\u3000a@evil.example\u00a0b@evil.example\tc@evil.example', ['a@evil.example', 'b@evil.example', 'c@evil.example']],
    ['an address after an invisible character, which is no separator', '\ufeffsecurity@evil.example まで', ['security@evil.example']],
    ['two addresses in one run and a bare domain after them', 'a@evil.example,b@evil.example xyz-login.com', ['a@evil.example', 'b@evil.example', 'xyz-login.com']],
    ['an address after a comma', 'support@helpdesk.test,security@evil.example', ['security@evil.example']],
    ['the domain of an address written with (at)', 'billing (at) evil-billing.net までメールください', ['evil-billing.net']],
    ['a link with a user name before a known host', 'https://evil.example@app.xyz-system.example.jp/login', ['https://evil.example@app.xyz-system.example.jp/login']],
    // The knowledge's own words stay fine when a draft writes them otherwise.
    ['a link of the knowledge in full-width letters', 'ｈｔｔｐｓ：／／ｈｅｌｐ．ｘｙｚ－ｓｙｓｔｅｍ．ｅｘａｍｐｌｅ．ｊｐ をご覧ください。', []],
    ['an IDN link of the knowledge in punycode', 'https://xn--udkb1d.example.jp/faq', []],
    ['an address of the knowledge in full-width capitals', 'ＳＵＰＰＯＲＴ＠ｘｙｚ－ｓｙｓｔｅｍ．ｅｘａｍｐｌｅ．ｊｐ まで', []],
    ['a mailto link of the knowledge', '<mailto:support@xyz-system.example.jp>', []],
    ['a link of the knowledge in a code span', '`https://app.xyz-system.example.jp/login`', []],
    // A bare domain that is a host we already vouch for is that host's front page.
    ['a bare host of a knowledge link', '詳しくは help.xyz-system.example.jp をご覧ください。', []],
    ['the front page of a knowledge host', 'https://app.xyz-system.example.jp/ と ＨＴＴＰＳ://help.xyz-system.example.jp', []],
    ['a bare host after an arrow', '→help.xyz-system.example.jp', []],
    ['a bare host of a knowledge link, written against Japanese', 'ログインはapp.xyz-system.example.jpから', []],
    ['the domain of an address of the knowledge', 'xyz-system.example.jp からのメールをご確認ください。', []],
    ['the domain of our address and the customer’s', 'helpdesk.test からのメールが customer.example に届かない場合', []],
    ['a bare host on a trusted domain', '障害情報は status.example.com と eu.status.example.com/incidents で', []],
    ['a www link of a knowledge host is another host', 'www.help.xyz-system.example.jp', ['www.help.xyz-system.example.jp']],
    ['a bare known host with another path is another page', 'help.xyz-system.example.jp/reset', ['help.xyz-system.example.jp/reset']],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, allowed)).toEqual(expected);
  });

  // What only looks like a domain: file names, versions, product names and abbreviations are no links.
  it.each<[string, string]>([
    ['file names', 'manual.pdf と config.yaml、data.csv、export.xlsx、report.docx、screenshot.png を添付してください。'],
    ['versions', 'v2.3.1 と Ver.3.0.2、バージョン 10.4 で修正しました。'],
    ['product names with dots', 'Node.js 20、Vue.js、ASP.NET、VB.NET と ADO.NET に対応しています。'],
    ['abbreviations', 'e.g. the settings page, i.e. the first tab; etc. No.5, vol.2, a.m. and p.m.'],
    ['Japanese with full stops', '設定を保存しました。次に「セキュリティ」を開きます。ありがとうございました。'],
    ['numbered steps', '1.設定を開く 2.保存する 3.再起動する'],
    ['an IP-like version', 'ファームウェア 1.2.3.4 に更新してください。'],
    ['a version before a country code', 'XYZシステム v3.2.JP版 と Ver.2.3.jp'],
    ['Japanese company names', '株式会社XYZ Co.,Ltd. サポート部、U.S. and U.K. customers'],
    // TLDs that are also common file extensions: "logs.zip" in a reply is a file far more often than a site.
    ['sentences run on after a full stop', 'Your transfer is subject to delays.You will be notified.Best regards'],
    ['file names whose extension is also a TLD', 'logs.zip、demo.mov、Main.java、setup.run、config.new、backup.data を送ってください。'],
    ['a public key and a source map', 'Upload the key.pub file to the server. The stack trace points into bundle.js.map.'],
    ['a company suffix in capitals', 'ABC CO.LTD と XYZ CORP.INC、Example Co.LLC'],
    // Japanese written with ，． (technical and official style): NFKC makes ． a dot before a word that is an IDN TLD.
    ['a full-width full stop before ポイント', '設定完了です．ポイント：再起動が必要です'],
    ['a full-width full stop before ポイント and a number', '設定完了です．ポイント：3つあります'],
    ['a full-width full stop before セール', 'ご注文を承りました．セール\n期間は来週までです'],
    ['a full-width full stop before クラウド', '以上です．クラウド\n版の場合は管理画面から設定します'],
    ['a full-width full stop before ストア', '新商品です．ストア\nで販売します'],
    ['a full-width full stop before コム', 'お得です．コム、ご確認ください'],
    ['a full-width full stop before 家電', '新しいモデルです．家電\n売場でどうぞ'],
    ['a full-width full stop before 通販', '詳しくは公式です．通販。'],
  ])('%s', (_what, draft) => {
    expect(foreignLinks(draft, allowed)).toEqual([]);
  });

  // A fully qualified host ends in the root's dot (`forms.gle.`): browsers open the same host, so the link is that host's
  // page, path and all, not its front page (which any link of the knowledge on the host vouches for).
  it.each<[string, string, string[]]>([
    ['a scheme link with a path', 'アカウント確認のため https://forms.gle./PhishForm123 にご入力ください。', ['https://forms.gle./PhishForm123']],
    ['a bare host with a path', 'アカウント確認のため forms.gle./PhishForm123 にご入力ください。', ['forms.gle./PhishForm123']],
    ['a scheme link with a query', 'Open https://help.example.com./logout?next=//evil.example now', ['https://help.example.com./logout?next=//evil.example']],
    ['a scheme link with a port and a path', 'Open https://help.example.com.:443/attacker-path now', ['https://help.example.com.:443/attacker-path']],
    ['a bare host on a new TLD with a path', 'xyz-account-verify.tokyo./login でログイン', ['xyz-account-verify.tokyo./login']],
    ['the page of the knowledge', 'アンケート https://forms.gle./Q8sSurvey2024 と forms.gle./Q8sSurvey2024', []],
    ['the front page of a knowledge host', 'https://help.example.com./ と help.example.com. をご覧ください。', []],
  ])('a host with a trailing dot: %s', (_what, draft, expected) => {
    const survey = { knowledge: ['アンケートはこちら: https://forms.gle/Q8sSurvey2024 から回答できます。公式サイト https://help.example.com'], trustedDomains: [], addresses: [] };
    expect(foreignLinks(draft, survey)).toEqual(expected);
  });

  // The draft is read after NFKC with spaces put in, and what is found is named as the draft writes it: characters of
  // two code units, and characters NFKC writes as several, are cut out whole.
  it.each<[string, string, string[]]>([
    ['a link after an emoji', '😀https://evil.example/x', ['https://evil.example/x']],
    ['a host in mathematical bold letters', 'https://𝐞𝐯𝐢𝐥.example/verify', ['https://𝐞𝐯𝐢𝐥.example/verify']],
    ['a bare domain after a character NFKC writes as four', '㍿xyz-login.com にログイン', ['xyz-login.com']],
    ['ligatures inside a host and an address', 'https://oﬃce-login.example/ と ﬁle@evil.example', ['https://oﬃce-login.example/', 'ﬁle@evil.example']],
    ['a link between characters of two code units', '𠮷野家https://evil.example/𠮷', ['https://evil.example/']],
    ['a full-width link of the knowledge beside one that is not', '① ｈｔｔｐｓ：／／ｈｅｌｐ．ｘｙｚ－ｓｙｓｔｅｍ．ｅｘａｍｐｌｅ．ｊｐ ② ｈｔｔｐｓ：／／ｅｖｉｌ．ｅｘａｍｐｌｅ', ['ｈｔｔｐｓ：／／ｅｖｉｌ．ｅｘａｍｐｌｅ']],
    ['a bare domain after half-width katakana', 'ﾛｸﾞｲﾝはxyz-login.comで', ['xyz-login.com']],
    ['an address with a combining accent', 'e\u0301vil@evil.example', ['e\u0301vil@evil.example']],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, allowed)).toEqual(expected);
  });

  // What the knowledge holds around a draft's hosts is kept from one draft to the next: it vouches for the hosts it
  // was read for, and a draft naming another host has the knowledge read for that one.
  it('vouches with the knowledge as read for each draft’s own hosts', () => {
    // Far enough apart that the text around one host does not reach the other.
    const page = `ログイン https://app.xyz-system.example.jp/login ${'設定 '.repeat(500)}お知らせ https://news.xyz-system.example.jp/2026`;
    const site = { knowledge: [page], trustedDomains: [], addresses: [] };
    for (let round = 0; round < 2; round++) {
      expect(foreignLinks('https://app.xyz-system.example.jp/login', site)).toEqual([]);
      expect(foreignLinks('https://news.xyz-system.example.jp/2026', site)).toEqual([]);
      expect(foreignLinks('https://news.xyz-system.example.jp/2027', site)).toEqual(['https://news.xyz-system.example.jp/2027']);
      expect(foreignLinks('https://app.xyz-system.example.jp/login と https://evil.example/login', site)).toEqual(['https://evil.example/login']);
    }
  });

  it('compares phone numbers in kanji numerals by their digits: another number in the knowledge vouches for none', () => {
    const desk = { knowledge: ['サポートデスク 〇一二〇－一二三－四五六（平日）'], trustedDomains: [], addresses: [] };
    expect(foreignLinks('サポートデスク（0120-123-456）まで', desk)).toEqual([]);
    expect(foreignLinks('本人確認は 〇三－一二三四－五六七八 まで', desk)).toEqual(['〇三－一二三四－五六七八']);
  });

  it('compares whole addresses: a shortened one is not vouched for by the knowledge', () => {
    const shop = { knowledge: ['お問い合わせはサポート窓口 support@xyz-system.co.jp までご連絡ください。', '請求については billing@xyz.com.au へ。'], trustedDomains: [], addresses: [] };
    expect(foreignLinks('返金手続きは support@xyz-system.co までお送りください。', shop)).toEqual(['support@xyz-system.co']);
    expect(foreignLinks('Please send your card details to billing@xyz.com for the refund.', shop)).toEqual(['billing@xyz.com']);
    expect(foreignLinks('控え: support@xyz-system.co.jp、billing@XYZ.com.au', shop)).toEqual([]);
  });

  it('compares trusted domains in their ASCII form', () => {
    const idn = { knowledge: [], trustedDomains: ['ＸＹＺ.Example', 'サポート.example'], addresses: [] };
    expect(foreignLinks('https://help.xyz.example/ と https://xn--vckvb6c8f.example/faq と https://サポート.example/', idn)).toEqual([]);
    expect(foreignLinks('https://help.xyz.example.evil.example/ と https://xyz-ѕupport.example/', idn)).toEqual(['https://help.xyz.example.evil.example/', 'https://xyz-ѕupport.example/']);
  });

  it('names the first few in its reason', () => {
    expect(foreignLinksReason(['https://a.example/x', 'b@c.example', 'https://d.example', 'https://e.example'])).toBe(
      'the answer contains links, addresses or phone numbers that are neither in the knowledge it found nor trusted (TRUSTED_LINK_DOMAINS): https://a.example/x, b@c.example, https://d.example and 1 more',
    );
  });
});

// A mail's subject is read by foreignLinks before a reply to another mailbox goes out (jobs/answer-ticket.ts), and
// its length is the sender's to choose: `www.a.b ` × 75,000 (600 KB) took 80 s, each link found copying the whole
// text, and blocked the agent worker's event loop until BullMQ took its jobs away. The whole check reads a text in
// time linear in it: the findings stay the same, and each of these completes far inside a bound the old code missed
// by minutes (it is not a speed target; the machine may be busy).
describe('foreignLinks on a text of hundreds of thousands of characters', () => {
  const SIZE = 600_000;
  // The old code took 50–70 s on these (9 s on the phone numbers, which are read at 1.5 MB for that reason), the
  // linear one 0.3–1.4 s on a quiet machine: a bound far from both, so a busy machine does not fail it.
  const BOUND_MS = 20_000;
  const filled = (unit: (i: number) => string, size = SIZE) => {
    const parts: string[] = [];
    let length = 0;
    for (let i = 0; length < size; i++) {
      const part = unit(i);
      parts.push(part);
      length += part.length;
    }
    return parts.join('');
  };
  const timed = <T>(run: () => T): { value: T; ms: number } => {
    const started = performance.now();
    const value = run();
    return { value, ms: performance.now() - started };
  };

  it.each<[string, string, string[]]>([
    ['www links', 'www.a.b ', ['www.a.b']],
    ['www links between commas', 'www.a.b,', ['www.a.b']],
    ['addresses', 'a@b.io ', ['a@b.io']],
    ['bare domains', 'x.io ', ['x.io']],
    ['scheme links between Japanese', 'https://a.b/cあ', ['https://a.b/c']],
    ['phone numbers', '0312345678 ', ['0312345678']],
  ])('%s', (what, unit, expected) => {
    const draft = filled(() => unit, what === 'phone numbers' ? 1_500_000 : SIZE);
    const { value, ms } = timed(() => foreignLinks(draft, allowed));
    expect(value).toEqual(expected);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('finds every one of many hosts, and those the knowledge names are still vouched for', () => {
    const draft = filled((i) => `h${i}.io `);
    const { value, ms } = timed(() => foreignLinks(draft, { ...allowed, knowledge: [...knowledge, '旧サイト h5.io は閉鎖しました。'] }));
    expect(value).toHaveLength(draft.trim().split(' ').length - 1);
    expect(value).toContain('h4.io');
    expect(value).not.toContain('h5.io');
    expect(ms).toBeLessThan(BOUND_MS);
  });

  // Review 43b: the chat-handle patterns of review 12 put two or three optional runs of spaces side by side, which
  // backtrack quadratically or cubically on one long run: 'abc', 4,000 spaces and 'x 友だち追加' took 34 s (a 3 KB
  // question 14 s in quoteOmission), 'LINE' and 100,000 spaces 7.8 s. Each run of spaces now follows one token.
  it.each<[string, string]>([
    ['spaces between an id and 友だち追加', `abc${' '.repeat(16_000)}x 友だち追加`],
    ['spaces after LINE', `LINE${' '.repeat(SIZE)}`],
    ['spaces and a comma after LINE', `LINE${' '.repeat(SIZE / 2)},${' '.repeat(SIZE / 2)}x`],
    ['spaces after Telegram', `Telegram${' '.repeat(SIZE)}x`],
    ['spaces after ライン', `ライン${' '.repeat(SIZE)}x`],
    ['tabs between an id and its particle before 友だち追加', `ラインで abc${'\t'.repeat(SIZE)}を ID${'\t'.repeat(SIZE)}x`],
  ])('%s', (_what, draft) => {
    const { value, ms } = timed(() => foreignLinks(draft, allowed));
    expect(value).toEqual([]);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  // Review 43b's audit: the sentence punctuation after a link was cut with /[.,;:!?*_~]+$/, tried at each comma of a
  // run and read to its end: a link of 50,000 commas took 2 s.
  it('reads a link of 600 KB of commas', () => {
    const link = `https://a.b/${','.repeat(SIZE)}x`;
    const { value, ms } = timed(() => foreignLinks(`${link},,, `, allowed));
    expect(value).toEqual([link]);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  // Review 43d: the layout reading of 3dc199b is back (one blank line above a number, 普通/当座/支店 and "bank" as a
  // bank's words), read line by line from the number up: its pattern looked ahead to the end of the block from every
  // line break. A bold label's marks are left out in the same pass as invisible characters.
  it.each<[string, string, string[]]>([
    ['number lines under a bank, a blank line between', filled(() => 'みずほ銀行\n\n1234567\n'), ['1234567']],
    ['blank lines between a bank and a number', `銀行\n${'\n'.repeat(SIZE)}1234567`, []],
    ['number lines after blank lines', filled(() => '1234567\n\n'), []],
    ['bank words over a number', `${filled(() => '銀行 普通 当座 支店 bank ')}\n1234567`, ['1234567']],
    ['account labels between blank lines', `${filled(() => '口座番号\n\n')}1234567`, ['1234567']],
    ['labels in bold', filled(() => '**口座番号**: 1234567\n'), ['**口座番号**: 1234567']],
    ['bold marks', filled(() => '**a '), []],
    ['ゆうちょ in the paragraph', filled(() => 'ゆうちょ 記号 12340 番号 12345671\n'), ['記号 12340 番号 12345671']],
    // The line of each English label was read back from the label: one line of labels, 400 KB, took 10 s (22 s with
    // the label's line read for a bank's word).
    ['English account labels on one line', filled(() => 'account 12345678 '), []],
  ])('%s', (_what, draft, expected) => {
    const { value, ms } = timed(() => foreignLinks(draft, allowed));
    expect(value).toEqual(expected);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('reads one host of 600 KB (a link written without spaces)', () => {
    // The knowledge was searched for the draft's host names with one pattern made of them: a host of 14 KB
    // overflowed the pattern compiler's stack, and the check threw on every try of the job.
    const draft = filled(() => 'www.a.b');
    const { value, ms } = timed(() => foreignLinks(draft, allowed));
    expect(value).toEqual([draft]);
    expect(ms).toBeLessThan(BOUND_MS);
  });
});

// Security review 12 (F2): phone numbers and addresses with an invisible character inside, or written with dots or
// with every digit spaced, went out. Dotted and spaced numbers count only in a phone number's shape (a leading 0 and
// 10–11 digits, or + and a country code): versions, IP addresses, dates, prices and decimals stay what they are.
describe('security review 12: phone numbers and addresses written otherwise', () => {
  it.each<[string, string, string[]]>([
    ['a zero-width space inside a phone number', 'お急ぎの場合は 03-1234\u200b-5678 までお電話ください。', ['03-1234\u200b-5678']],
    ['a zero-width space after its first digit', 'お急ぎの場合は 0\u200b3-1234-5678 までお電話ください。', ['0\u200b3-1234-5678']],
    ['a phone number with dots', 'お急ぎの場合は 03.1234.5678 までお電話ください。', ['03.1234.5678']],
    ['a mobile number with dots', '担当携帯 090.1234.5678 まで', ['090.1234.5678']],
    ['an international number with dots', 'Call +81.3.1234.5678 now.', ['+81.3.1234.5678']],
    ['an international number after 00 with dots', 'Call 007.495.1234 now.', ['007.495.1234']],
    ['a phone number with every digit spaced', 'Call us at 0 3 1 2 3 4 5 6 7 8 now.', ['0 3 1 2 3 4 5 6 7 8']],
    // Review 43e: marks around a number are left out of its reading (an account in bold is read), not of a phone's.
    ['a phone number in bold', 'お急ぎの場合は **03-1234-5678** までお電話ください。', ['03-1234-5678']],
    ['a phone number in full width in bold', 'お急ぎの場合は **０３-１２３４-５６７８** まで', ['０３-１２３４-５６７８']],
    ['a phone number in a code span', 'Call `03-1234-5678` now.', ['03-1234-5678']],
    ['a zero-width space in an address', 'Please write to refunds@xyz-help\u200b.com today.', ['refunds@xyz-help\u200b.com']],
    ['a zero-width space in a link, named once', 'Please confirm at https://xyz-log\u200bin.com/verify', ['https://xyz-log\u200bin.com/verify']],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, allowed)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['versions', 'バージョン 10.0.19045 と v0.12.3456、1.2.3.4 に対応しています。'],
    ['IP addresses', 'ルーターの 192.168.0.1 と 010.001.002.003、10.0.0.254 を確認してください。'],
    ['dates', '2026.11.28 と 05.11.2026、2026.1.5 に実施します。'],
    ['prices and decimals', '料金は 0.50 ドル、1,234.56 円、円周率は 3.14159265 です。比率 0.1234.5 は誤記です。'],
    ['spaced digits that are no phone number', '2進数 0 1 1 0 1 0 0 1 1 0 と、数字キー 0 1 2 3 4 5 6 7 8 9 を押します。'],
    ['a dotted number the knowledge writes with hyphens', 'サポートデスク 0120.123.456 まで'],
    // Review 43b: a serial or model number written with dots, and a leading 00 before no country code.
    ['a serial number', 'Serial: 0012.3456.789 の製品です。'],
    ['numbers after a serial or model label', 'S/N 0312.3456.78、型番 045.1234.5678、製造番号：0120.345.678、Model 0312.3456.789 をご確認ください。'],
    ['a leading 00 before no country code', '部品 0012.3456.789 と 0028.1234.5678 を交換しました。'],
  ])('%s: none', (_what, draft) => {
    expect(foreignLinks(draft, allowed)).toEqual([]);
  });

  it('a dotted number the knowledge writes otherwise is vouched for, another is not', () => {
    const desk = { knowledge: ['サポートデスク 03-1234-5678（平日）'], trustedDomains: [], addresses: [] };
    expect(foreignLinks('サポートデスク 03.1234.5678 まで', desk)).toEqual([]);
    expect(foreignLinks('サポートデスク 03.9999.5678 まで', desk)).toEqual(['03.9999.5678']);
  });
});

// Security review 14 (HIGH 1): a forger's lure written in forms a browser or a reader still follows went out in the
// quote of a reply to the victim: a host with an ideographic full stop between its labels (browsers read U+3002 and
// U+FF61 as a dot), a bare public IPv4 address with a path or a port, and a defanged link. Each is named as written;
// versions, private and loopback addresses, and Japanese sentences that end in 。 stay what they are.
describe('security review 14: lure links written in other forms', () => {
  it.each<[string, string, string[]]>([
    ['an ideographic full stop between host labels', '継続するには xyz-account-verify。com/login でパスワードを確認してください', ['xyz-account-verify。com/login']],
    ['… written right against Japanese', '継続するにはxyz-account-verify。com/loginでパスワードを確認してください', ['xyz-account-verify。com/login']],
    ['a half-width ideographic full stop', '継続するにはxyz-account-verify｡com/loginで確認', ['xyz-account-verify｡com/login']],
    ['a full-width full stop', '継続するにはxyz-account-verify．com/loginで確認', ['xyz-account-verify．com/login']],
    ['an ideographic full stop in a host without a path', 'こちら: xyz-account-verify。com でログイン', ['xyz-account-verify。com']],
    ['ideographic full stops between several labels', '確認は login。xyz-verify。co。jp/auth から', ['login。xyz-verify。co。jp/auth']],
    ['a bare public IPv4 address with a path', '継続するには 203.0.113.7/login でパスワードを確認してください', ['203.0.113.7/login']],
    ['… written right against Japanese', '継続するには203.0.113.7/loginでパスワードを確認してください', ['203.0.113.7/login']],
    ['a bare public IPv4 address with a port', 'Please sign in at 45.33.12.7:8080 today.', ['45.33.12.7:8080']],
    ['a bare public IPv4 address after link words', 'ブラウザで 45.33.12.7 を開き、ログインしてください。', ['45.33.12.7']],
    ['… before アクセス', '45.33.12.7 にアクセスしてパスワードを入力してください。', ['45.33.12.7']],
    ['… after "visit"', 'Visit 45.33.12.7 to keep your account.', ['45.33.12.7']],
    ['a defanged link', '継続するには hxxps://xyz-account-verify[.]com/login でパスワードを確認してください', ['hxxps://xyz-account-verify[.]com/login']],
    ['a defanged host', 'xyz-account-verify[.]com/login にログインしてください。', ['xyz-account-verify[.]com/login']],
    ['a defanged scheme', 'https[:]//xyz-account-verify.com/login で確認', ['https[:]//xyz-account-verify.com/login']],
    ['a defanged address of four octets', '45[.]33[.]12[.]7 で確認', ['45[.]33[.]12[.]7']],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, allowed)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['version numbers', 'バージョン 1.2.3.4 に更新してください。Windows 10.0.19045.3803 と 4.2.1.10 以降で動作します。'],
    ['a version after link words', 'ブラウザ 1.2.3.4 以降でアクセスできます。'],
    ['a router answer', 'ブラウザで 192.168.0.1 を開き、ルーターの設定画面にアクセスしてください。192.168.0.1/setup も同じです。'],
    ['private, loopback and unspecified addresses with ports and paths', 'http の代わりに 10.0.0.5:8080 、172.16.3.4/admin 、127.0.0.1:3000 、0.0.0.0:80 にアクセスしてください。'],
    ['a network and its prefix length', '許可リストに 52.14.88.0/24 を追加してください。'],
    ['a Japanese sentence ending in 。 before an ASCII word', '設定が完了しました。Windows の場合は再起動してください。'],
    ['an ASCII word, 。 and a capitalised word', '「Settings」を開きます: Settings。Click OK を押してください。'],
    ['an ASCII word, 。 and a word that is no top-level domain', 'ファイルはdata。backupに保存されます。値はfoo。csvです。'],
    ['an ASCII word, 。 and Japanese', 'Excelを開いてください。Excel。次に保存します。'],
    ['a switch written in capitals', '設定をON。OFFにすると止まります。'],
    ['an ASCII word, 。 and a capitalised top-level domain', 'Windows。Next を押します。'],
    ['a file name written defanged in a note on patterns', 'name[.]js のように書いてください。'],
  ])('%s: none', (_what, draft) => {
    expect(foreignLinks(draft, allowed)).toEqual([]);
  });

  it('vouches with the knowledge for an address link it writes the same way', () => {
    const desk = { knowledge: ['管理画面は https://45.33.12.7:8443/admin です。'], trustedDomains: [], addresses: [] };
    expect(foreignLinks('管理画面 45.33.12.7:8443/admin を開いてください。', desk)).toEqual([]);
    expect(foreignLinks('管理画面 45.33.12.8:8443/admin を開いてください。', desk)).toEqual(['45.33.12.8:8443/admin']);
  });

  it('reads 100 KB of letters between ideographic full stops: nothing', () => {
    const text = 'a。'.repeat(50_000);
    expect(foreignLinks(text, allowed)).toEqual([]);
  });
});

// Bug review 46a (fix 46f): a customer's own server written as an address and a port, and an ASCII word, 。 and a
// lower-case top-level-domain word in prose, are no links; a defanged link the knowledge writes the same way is
// vouched for by it.
describe('bug review 46a: addresses with ports, hosts with 。, defanged links in the knowledge', () => {
  it.each<[string, string]>([
    ['an address and a port in a connection error', '203.0.113.5:993 に接続できません。'],
    ['… in a Node error', 'connect ECONNREFUSED 192.0.2.7:993 というエラーが出ます。'],
    ['a proxy\'s address and port', 'プロキシ 203.0.113.10:8080 経由です。'],
    ['an ssh server\'s', 'サーバー 203.0.113.5:22 に ssh できない'],
    ['an ASCII word, 。 and a lower-case top-level domain', 'Mac。com を開いてください'],
    ['… a capitalised one', 'OK。app が起動しません'],
    ['an error code, 。 and a lower-case top-level domain', 'エラーコード E-1001。support に問い合わせました'],
  ])('%s: none', (_what, draft) => {
    expect(foreignLinks(draft, allowed)).toEqual([]);
  });

  it.each<[string, string, string[]]>([
    ['an address and a port beside link words', 'ブラウザで 203.0.113.5:8443 を開いてください。', ['203.0.113.5:8443']],
    ['an address, a port and a path', '203.0.113.5:8443/admin に接続できません。', ['203.0.113.5:8443/admin']],
    ['a host with 。 written in capitals', 'こちら: XYZ-VERIFY。COM でログイン', ['XYZ-VERIFY。COM']],
    ['a mixed-case host with 。 and a path', 'Mac。com/login を開いてください', ['Mac。com/login']],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, allowed)).toEqual(expected);
  });

  it('vouches with the knowledge for a defanged link it writes the same way, not for the plain link', () => {
    const faq = { knowledge: ['【注意】偽サイト xyz-help[.]com にご注意ください。当社の正しいサイトではありません。'], trustedDomains: [], addresses: [] };
    expect(foreignLinks('偽サイト xyz-help[.]com にはアクセスしないでください。', faq)).toEqual([]);
    expect(foreignLinks('偽サイト XYZ-HELP[.]COM にはアクセスしないでください。', faq)).toEqual([]);
    expect(foreignLinks('偽サイト xyz-help[.]com/login にはアクセスしないでください。', faq)).toEqual(['xyz-help[.]com/login']);
    // The plain link is followable as written; the knowledge's warning writes none.
    expect(foreignLinks('サイト xyz-help.com/login をご覧ください。', faq)).toEqual(['xyz-help.com/login']);
    expect(foreignLinks('サイト https://xyz-help.com/ をご覧ください。', faq)).toEqual(['https://xyz-help.com/']);
  });

  it('vouches with a plain link of the knowledge for the same link written defanged', () => {
    const desk = { knowledge: ['ログインは https://app.example-saas.com/login から。'], trustedDomains: [], addresses: [] };
    expect(foreignLinks('hxxps://app.example-saas[.]com/login から。', desk)).toEqual([]);
    expect(foreignLinks('hxxps://app.example-saas[.]com/other から。', desk)).toEqual(['hxxps://app.example-saas[.]com/other']);
  });
});

// Not a speed target (security review 15): the markup pattern rescanned a run of `*` in a word with a domain from each
// one when a `/` followed it (`a.com/**…*/` of 100,000 stars in a draft: seconds, growing with the square). The bound
// is far from both a linear read and the blow-up, so a busy machine does not fail it.
describe('foreignLinks: a long run of markup after a domain', () => {
  it('reads it in time', { timeout: 120_000 }, () => {
    const allowed = { knowledge: [], trustedDomains: [], addresses: [] };
    const started = performance.now();
    const stars = '*'.repeat(100_000);
    expect(foreignLinks(`a.com/*${stars}/`, allowed)).toEqual([`a.com/*${stars}/`]);
    expect(foreignLinks(`see xyz.com*${stars}/`, allowed)).toEqual(['xyz.com']);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

// Security review 16 (finding 3): 「クレジットカード本体を 〒160-0023 東京都新宿区… 宛にご郵送ください」 went out: a postal
// address is as good a lure as a phone number. Read by its postcode: the knowledge or the customer's mail that writes
// the postcode anywhere vouches for it; an English one only with a street and an ask to send something to it.
describe('security review 16: a postal address as the lure', () => {
  const desk = {
    knowledge: ['返品は 〒100-0005 東京都千代田区丸の内1-1-1 XYZ返品センター までお送りください。', 'Returns: XYZ Inc., 500 Howard Street, San Francisco, CA 94105.'],
    trustedDomains: [],
    addresses: ['taro@customer.example'],
    customerMail: ['お世話になっております。\n〒530-0001 大阪府大阪市北区梅田1-2-3 山田商店 山田太郎'],
  };
  it.each<[string, string, string[]]>([
    ['the review\'s lure', '本人確認のため、ご利用中のクレジットカード本体を 〒160-0023 東京都新宿区西新宿1-2-3 XYZビル5F 本人確認センター 宛にご郵送ください。', ['〒160-0023']],
    ['in full width', 'カードを 〒１６０－００２３ 東京都新宿区西新宿 宛にお送りください。', ['〒１６０－００２３']],
    ['in kanji numerals', 'カードを 〒一六〇－〇〇二三 東京都新宿区西新宿 宛にお送りください。', ['〒一六〇－〇〇二三']],
    ['without its dash', 'カードを〒1600023 東京都新宿区 宛にご郵送ください。', ['〒1600023']],
    ['after 郵便番号', '送付先 郵便番号：160-0023 東京都新宿区西新宿1-2-3', ['郵便番号：160-0023']],
    ['without 〒 before a prefecture', '送付先: 160-0023 東京都新宿区西新宿1-2-3 XYZ本人確認センター', ['160-0023']],
    ['the knowledge\'s address, written otherwise', '返品は 〒１００－０００５ 東京都千代田区丸の内1-1-1 までお送りください。', []],
    ['the knowledge\'s postcode without 〒', '返品先は 100-0005 東京都千代田区丸の内 です。', []],
    ['the customer\'s own address', 'ご登録の住所（〒530-0001 大阪府大阪市北区梅田1-2-3）に交換品をお送りします。', []],
    ['an English address with a ZIP to mail something to', 'Please mail your old card and a signed copy of your ID to XYZ Verification Center, 1200 Market St Suite 400, San Francisco, CA 94102.', ['CA 94102']],
    ['a UK address to post something to', 'Please post the device to XYZ Repairs, 10 Downing Street, London SW1A 2AA.', ['SW1A 2AA']],
    ['the knowledge\'s English address', 'Please ship the unit to XYZ Inc., 500 Howard Street, San Francisco, CA 94105.', []],
    // Not addresses, or no ask to send anything to them.
    ['a part number before no prefecture', '型番 123-4567 の交換部品は在庫があります。', []],
    ['a ZIP with no street or ask', 'Our data center is in Virginia, VA 20147 region.', []],
    ['a street and ZIP with no ask to send', 'Our office is at 1200 Market St, San Francisco, CA 94102.', []],
    ['a ticket number after a state code', 'Ticket CA 94102 was closed.', []],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, desk)).toEqual(expected);
  });

  // Bug review R1 (MED 6): small rewordings of the lure, and what is left alone (the check reads postcodes, not
  // addresses: one without a postcode, or a German or French one, is not read).
  it.each<[string, string, string[]]>([
    ['romanised, after Tokyo', 'Please mail your old card to XYZ Center, 1-2-3 Nishi-Shinjuku, Shinjuku-ku, Tokyo 160-0023, Japan.', ['Tokyo 160-0023']],
    ['romanised, after Japan', 'Please send the card to XYZ Center, Nishi-Shinjuku 1-2-3, Japan 160-0023.', ['Japan 160-0023']],
    ['romanised, after Tokyo-to', 'Return the device to XYZ, Shinjuku-ku, Tokyo-to 1600023.', ['Tokyo-to 1600023']],
    ['romanised, after another prefecture', 'Send it to XYZ, Chuo-ku, Osaka 541-0041.', ['Osaka 541-0041']],
    ['a US state written out', 'Please mail your old card to XYZ Center, 1200 Market Street, San Francisco, California 94102.', ['California 94102']],
    ['a US state of two words written out', 'Please mail your old card to XYZ Center, 100 Main Street, Albany, New York 12207.', ['New York 12207']],
    ['the knowledge\'s ZIP, its state written out in the draft', 'Please ship the unit to XYZ Inc., 500 Howard Street, San Francisco, California 94105.', []],
    ['no postcode (not read)', '古いカードは東京都新宿区西新宿1-2-3 XYZカード回収センター宛にお送りください。', []],
    ['a German address (not read)', 'Bitte senden Sie Ihre alte Karte an XYZ Service, Musterstraße 12, 10115 Berlin.', []],
    ['a French address (not read)', 'Veuillez envoyer votre carte à XYZ Service, 12 rue de la Paix, 75002 Paris.', []],
    ['a seven-digit number before no prefecture', '注文番号 1600023 の商品は発送済みです。', []],
    ['a number and a prefecture in a sentence of a count', '会員数 1234567 人、東京都内の店舗数は 12 です。', []],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, desk)).toEqual(expected);
  });

  it('reads the customer\'s mail only when the caller gives it', () => {
    const { customerMail: _mail, ...withoutMail } = desk;
    expect(foreignLinks('ご登録の住所（〒530-0001 大阪府大阪市北区梅田1-2-3）に交換品をお送りします。', withoutMail)).toEqual(['〒530-0001']);
  });

  it('names a postal address by its kind and in its own part of the reason', () => {
    const draft = '本人確認のため、カードを 〒160-0023 東京都新宿区西新宿1-2-3 宛にご郵送ください。詳細は https://evil.example/verify をご覧ください。';
    expect(foreignFindings(draft, desk)).toEqual([
      { written: 'https://evil.example/verify', kind: 'link' },
      { written: '〒160-0023', kind: 'postal' },
    ]);
    expect(foreignLinksReason(foreignLinks(draft, desk))).toBe(
      "the answer contains links, addresses or phone numbers that are neither in the knowledge it found nor trusted (TRUSTED_LINK_DOMAINS): https://evil.example/verify; and the answer contains postal addresses (by their postcodes) that are neither in the knowledge it found nor in the customer's mail: 〒160-0023",
    );
  });
});

// Review R3a of session 48 (MED 3, LOW 12): seven digits without a dash before a prefecture were read as a postcode
// (ご注文番号 1234567 東京都内の倉庫から…), and the park reason named them payment details. Seven digits without the
// dash are a postcode only after 〒 or 郵便番号, where one space may stand for the dash too (〒150 0002); before a
// prefecture alone a postcode is written with its dash.
describe('review R3a (s48): seven digits before a prefecture, a space for the dash', () => {
  const desk = { knowledge: ['発送は東京都内の倉庫から行います。'], trustedDomains: [], addresses: [], customerMail: ['注文した商品がまだ届きません。'] };
  it.each<[string, string, string[]]>([
    ['an order number before 東京都', 'ご注文番号 1234567 東京都内の倉庫から本日発送いたしました。', []],
    ['an inquiry number before 北海道', 'お問い合わせ番号：4567890、北海道への配送は3日ほどかかります。', []],
    ['a member number before 大阪府', '会員番号 0012345 大阪府にお住まいの方は対象です。', []],
    ['a slip number before 東京都江東区', '伝票番号 1234567, 東京都江東区の営業所に到着しています。', []],
    // Still read.
    ['seven digits after 〒', 'カードを〒1600023 東京都新宿区 宛にご郵送ください。', ['〒1600023']],
    // Session 49 (H3): seven digits without the dash before a prefecture, no 〒, in a sentence that sends something there.
    ['seven digits without the dash before a prefecture, no 〒', '古いカードは 1600023 東京都新宿区西新宿1-2-3 宛にお送りください。', ['1600023 東京都']],
    ['seven digits after 〒 and a space', 'カードを 〒 1600023 東京都新宿区 宛にご郵送ください。', ['〒 1600023']],
    ['seven digits after 郵便番号', '送付先 郵便番号 1600023 東京都新宿区西新宿1-2-3', ['郵便番号 1600023']],
    ['with its dash before a prefecture', '送付先: 160-0023 東京都新宿区西新宿1-2-3', ['160-0023']],
    ['a space for the dash after 〒', 'カードを 〒150 0002 東京都渋谷区渋谷9-9-9 宛にご郵送ください。', ['〒150 0002']],
    ['a space for the dash after 郵便番号', '送付先 郵便番号：150 0002 東京都渋谷区渋谷9-9-9', ['郵便番号：150 0002']],
    // A space for the dash is not read without 〒 or 郵便番号: three and four digits apart are as often two numbers.
    ['a space for the dash without 〒', 'カードを 150 0002 東京都渋谷区渋谷9-9-9 宛にご郵送ください。', []],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, desk)).toEqual(expected);
  });

  it('the knowledge writing the postcode with a space vouches for it', () => {
    expect(foreignLinks('カードを 〒150 0002 東京都渋谷区 宛にお送りください。', { ...desk, knowledge: ['返品先 〒150 0002 東京都渋谷区渋谷9-9-9'] })).toEqual([]);
  });

  it('names a postal finding as a postal address in the reason, not a payment detail', () => {
    for (const draft of ['送付先: 160-0023 東京都新宿区西新宿1-2-3', 'カードを〒1600023 東京都新宿区 宛にご郵送ください。', 'カードを 〒150 0002 東京都渋谷区 宛にご郵送ください。']) {
      const reason = foreignLinksReason(foreignLinks(draft, desk));
      expect(reason, draft).toMatch(/^the answer contains postal addresses \(by their postcodes\)/);
      expect(reason, draft).not.toMatch(/payment details/);
    }
  });
});

// Bug review R1 (MED 7): what vouches for a postcode was too broad. An id or a phone number of the knowledge that
// holds its seven digits vouched for 〒160-0023, and any five digits (a port) for a ZIP. A postcode vouches only with
// its own boundaries (no letter, digit or dash before it, no digit or dash after), and a ZIP only after its state.
describe('bug review R1: what vouches for a postcode', () => {
  const LURE = '古いカードは〒160-0023 東京都新宿区西新宿1-2-3 宛にお送りください。';
  const US_LURE = 'Please mail your old card to XYZ Center, 1200 Market Street, San Francisco, CA 50443.';
  it.each<[string, string, string[], string[]]>([
    ['an order id holding its digits', LURE, ['ご注文番号 A1600023 の状況は…'], ['〒160-0023']],
    ['a phone number holding its digits', LURE, ['サポート 0120-160-0023（平日 9:00〜18:00）'], ['〒160-0023']],
    ['a longer number holding its digits', LURE, ['お客様番号 16000231 をご用意ください。'], ['〒160-0023']],
    ['a number after it with a dash', LURE, ['部品 160-0023-01 の在庫'], ['〒160-0023']],
    ['a port of the same five digits', US_LURE, ['Allow TCP port 50443 on the proxy.'], ['CA 50443']],
    ['five digits after no state', US_LURE, ['Error 50443: the upload failed.'], ['CA 50443']],
    // What still vouches.
    ['the postcode after 〒', LURE, ['本社 〒160-0023 東京都新宿区'], []],
    ['the postcode after 郵便番号 with no space', LURE, ['郵便番号160-0023 東京都新宿区'], []],
    ['the postcode alone in a line', LURE, ['返送先\n160-0023\n東京都新宿区西新宿1-2-3'], []],
    ['the postcode without its dash', LURE, ['〒1600023'], []],
    ['the postcode written straight after a word, before its prefecture', LURE, ['返送先は160-0023東京都新宿区西新宿です。'], []],
    ['the ZIP after its state code', US_LURE, ['XYZ Center, 1200 Market Street, San Francisco, CA 50443'], []],
    ['the ZIP after its state written out', US_LURE, ['XYZ Center, San Francisco, California 50443-1234'], []],
  ])('%s', (_what, draft, knowledge, expected) => {
    expect(foreignLinks(draft, { knowledge, trustedDomains: [], addresses: [] })).toEqual(expected);
  });
});

// Session 49 (H3; review R3a of session 48, MED 4 and LOW 11/12 left): a refund to the customer's own account or IBAN,
// which they wrote in their mail, parked (the vi one as a phone number); seven digits without the dash before a
// prefecture in a sentence that sends something there passed; "Japan 1234567" in a sentence was read as a postcode.
describe('session 49: the customer\'s own account from their mail, seven digits before a prefecture, a romanised place', () => {
  const refundMail = {
    de: 'Guten Tag, ich warte noch auf die Erstattung. Bitte überweisen Sie den Betrag auf mein Konto: IBAN DE89 3704 0044 0532 0130 00. Mit freundlichen Grüßen, Klaus Becker',
    es: 'Buenas, pedí el reembolso hace una semana y no lo he recibido. Mi cuenta es ES91 2100 0418 4502 0005 1332.',
    vi: 'Tôi muốn hoàn tiền. Tài khoản Vietcombank của tôi: 0123456789.',
    en: 'Hi, I returned the item. Please refund me to my IBAN GB33BUKB20201555555555. Thanks, Jo',
    fr: 'Bonjour, voici mon IBAN pour le remboursement : FR76 3000 6000 0112 3456 7890 189. Cordialement',
    pt: 'Olá, aguardo o reembolso. O meu IBAN é PT50 0002 0123 1234 5678 9015 4.',
  };
  const desk = (mail: string) => ({ knowledge: ['Refunds are issued by bank transfer within 5 business days.'], trustedDomains: [], addresses: [], customerMail: [mail] });
  it.each<[string, string, string, string[]]>([
    // A refund to the account the customer wrote: nothing to vouch for beyond their own mail.
    ['de: auf Ihr Konto mit der IBAN', refundMail.de, 'Wir haben den Betrag von 49,90 € auf Ihr Konto mit der IBAN DE89 3704 0044 0532 0130 00 überwiesen. Die Gutschrift sollte in fünf Werktagen erfolgen.', []],
    ['es: a su cuenta', refundMail.es, 'Hemos realizado la transferencia del reembolso a su cuenta ES91 2100 0418 4502 0005 1332. Debería recibirla en un plazo de 10 días.', []],
    ['vi: tài khoản … của quý khách (read as a phone number too)', refundMail.vi, 'Chúng tôi đã hoàn tiền vào tài khoản Vietcombank 0123456789 của quý khách. Quý khách vui lòng kiểm tra trong vòng 5 ngày làm việc.', []],
    ['en: to your IBAN, written without spaces in the mail', refundMail.en, 'We have refunded £49.90 to your IBAN GB33 BUKB 2020 1555 5555 55 today.', []],
    ['fr: sur votre compte', refundMail.fr, 'Nous avons remboursé 30 € sur votre compte FR76 3000 6000 0112 3456 7890 189.', []],
    ['pt: na sua conta', refundMail.pt, 'Reembolsámos o valor na sua conta PT50 0002 0123 1234 5678 9015 4.', []],
    // Still parked: an account the customer did not write, an ask or a notice in the sentence, or no own-account word.
    ['es: su cuenta, another IBAN', refundMail.es, 'Hemos realizado la transferencia del reembolso a su cuenta ES79 2100 0813 6101 2345 6789.', ['ES79 2100 0813 6101 2345 6789']],
    ['de: bitte überweisen, their own IBAN', refundMail.de, 'Bitte überweisen Sie die Gebühr auf Ihr Konto DE89 3704 0044 0532 0130 00.', ['DE89 3704 0044 0532 0130 00']],
    ['de: the IBAN in the mail, no own-account word', refundMail.de, 'Die Gebühr ist auf das Konto DE89 3704 0044 0532 0130 00 zu überweisen.', ['DE89 3704 0044 0532 0130 00']],
    ['es: su nueva cuenta (a notice)', refundMail.es, 'Le informamos de su nueva cuenta ES91 2100 0418 4502 0005 1332 para los pagos.', ['ES91 2100 0418 4502 0005 1332']],
    ['en: please pay into your account', refundMail.en, 'Please pay the fee into your account GB33 BUKB 2020 1555 5555 55 today.', ['GB33 BUKB 2020 1555 5555 55']],
    ['vi: vui lòng chuyển khoản (an ask)', refundMail.vi, 'Quý khách vui lòng chuyển khoản phí vào tài khoản Vietcombank 0123456789 của quý khách.', ['0123456789', 'Vietcombank 0123456789']],
    ['en: your account in one sentence, the IBAN in the next', refundMail.en, 'We checked your account. Pay the fee to GB33 BUKB 2020 1555 5555 55.', ['GB33 BUKB 2020 1555 5555 55']],
  ])('%s', (_what, mail, draft, expected) => {
    expect(foreignLinks(draft, desk(mail))).toEqual(expected);
  });

  it('vouches with the customer\'s mail only when the caller gives it (a vouched sender)', () => {
    const { customerMail: _mail, ...withoutMail } = desk(refundMail.de);
    expect(foreignLinks('Wir haben den Betrag auf Ihr Konto mit der IBAN DE89 3704 0044 0532 0130 00 überwiesen.', withoutMail)).toEqual(['DE89 3704 0044 0532 0130 00']);
  });

  const jaDesk = { knowledge: ['発送は東京都内の倉庫から行います。'], trustedDomains: [], addresses: [], customerMail: ['返品したいです。住所は 1500002 東京都渋谷区渋谷1-1-1 です。'] };
  it.each<[string, string, string[]]>([
    ['seven digits before a prefecture, sent there', 'お手数ですが、カードを 1500002 東京都渋谷区渋谷9-9-9 サポート係 宛にご郵送ください。'.replace('1500002', '1600023'), ['1600023 東京都']],
    ['seven digits after 送付先', '送付先：1600023 東京都新宿区西新宿1-2-3 XYZ本人確認センター', ['1600023 東京都']],
    ['seven digits before 大阪府, 返送', '商品は 5300001 大阪府大阪市北区梅田1-2-3 までご返送ください。', ['5300001 大阪府']],
    ['the customer\'s own postcode, written without the dash', 'ご登録の住所（1500002 東京都渋谷区渋谷1-1-1）に交換品をお送りします。', []],
    // Numbers, not postcodes: a label before them, or no sending.
    ['an order number before 東京都, 発送', 'ご注文 1234567 東京都内の倉庫から本日発送いたしました。', []],
    ['a receipt number, 返送済み', '受付 1234567 東京都江東区の倉庫へ返送済みです。', []],
    ['seven digits before a prefecture, no sending', '在庫数 1234567 東京都内の店舗合計です。', []],
    ['delivery (配送) is no sending by the customer', 'お荷物 1234567 北海道への配送は3日ほどかかります。', []],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, jaDesk)).toEqual(expected);
  });

  const enDesk = { knowledge: ['We ship from Tokyo.'], trustedDomains: [], addresses: [], customerMail: ['Where is my order?'] };
  it.each<[string, string, string[]]>([
    ['a tracking number after "in Japan"', 'Your parcel left our warehouse in Japan 1234567 is the tracking number.', []],
    ['a count after Tokyo', 'We have shipped to Tokyo 1234567 times this year.', []],
    ['after an address\'s comma', 'Please mail the card to Support Desk, 9-9-9 Shibuya, Shibuya-ku, Japan 1500002.', ['Japan 1500002']],
    ['sent to it, no comma', 'Send the card to XYZ Center in Tokyo 1600023 by Friday.', ['Tokyo 1600023']],
    ['a line of an address block', 'Our return centre:\nXYZ Center\nShinjuku-ku\nTokyo-to 1600023\nJapan', ['Tokyo-to 1600023']],
    ['with the dash, as before', 'Our parcel left Japan 150-0002 on Monday.', ['Japan 150-0002']],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, enDesk)).toEqual(expected);
  });

  it('names seven digits before a prefecture as a postal address in the reason', () => {
    const reason = foreignLinksReason(foreignLinks('古いカードは 1600023 東京都新宿区西新宿1-2-3 宛にお送りください。', jaDesk));
    expect(reason).toMatch(/^the answer contains postal addresses \(by their postcodes\)[^;]*: 1600023 東京都$/);
  });
});

// Bug review B1 of session 49 (HIGH 1, HIGH 2, LOWs): a Japan postcode without its dash, in an address the ask points at
// ("there", "the address above") or follows, passed where 225bedb parked it; 送金 (a remittance) read as sending
// something there; a 7-digit postcode opening the line after the ask (an address block) was not read. The customer's
// own account from their mail was vouched for in any sentence that called it theirs, also where a forwarded phishing
// mail's account is where the draft sends the customer's money.
describe('bug review B1 of session 49: postcodes without the dash, and the own account only where we pay back', () => {
  const enDesk = { knowledge: ['We ship from Tokyo.'], trustedDomains: [], addresses: [], customerMail: ['Where is my order?'] };
  it.each<[string, string, string[]]>([
    ['an address, then "mail your card there"', 'Our office is at 1-2-3 Shinjuku Tokyo 1600023. Please mail your card there.', ['Tokyo 1600023']],
    ['an address line, then "the address above"', 'Address: 1-2-3 Shibuya-ku Tokyo 1500002\nPlease mail your card to the address above.', ['Tokyo 1500002']],
    ['the ask first, the address after it', 'Please post the card. Address: XYZ Ltd, Shinjuku Tokyo 1600023', ['Tokyo 1600023']],
    ['the address ends the sentence', 'Our return centre is in Shinjuku, Tokyo 1600023.', ['Tokyo 1600023']],
    ['before ", Japan"', 'Return it to our desk: 1-2-3 Shinjuku Tokyo 1600023, Japan.', ['Tokyo 1600023']],
    // Numbers, not postcodes: the sentence goes on after them, or a number's word stands before them.
    ['a tracking number after "Japan", the sentence goes on', 'Japan 1234567 is the tracking number.', []],
    ['labelled a tracking number', 'Tracking number: Japan 1234567', []],
    ['an order number', 'Your order no. Tokyo 1234567.', []],
    ['a count after Tokyo', 'We have shipped to Tokyo 1234567 times this year.', []],
    ['a count before a comma', 'Our members in Tokyo 1234567, as of this year.', []],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, enDesk)).toEqual(expected);
  });

  const jaDesk = { knowledge: ['発送は東京都内の倉庫から行います。'], trustedDomains: [], addresses: [], customerMail: ['返品したいです。'] };
  it.each<[string, string, string[]]>([
    ['a remittance (送金) is no sending there', '合計 ¥1234567 東京都の口座に送金済みです。', []],
    ['the postcode opens the line after the ask', 'カードは下記へ郵送してください。\n1500002 東京都渋谷区1-2-3 XYZセンター', ['1500002 東京都']],
    ['the postcode after a blank line after the ask', '下記住所までお送りください。\n\n1500002 東京都渋谷区1-2-3', ['1500002 東京都']],
    ['a line of numbers after a line without an ask', '本日出荷しました。\n1234567 東京都内の倉庫より', []],
    ['a line of numbers after a word of sending that asks nothing', '返品を承りました。\n1234567 東京都の倉庫', []],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, jaDesk)).toEqual(expected);
  });

  const phishDe = {
    knowledge: ['Rechnungen sind innerhalb von 14 Tagen zu begleichen.'],
    trustedDomains: [],
    addresses: [],
    customerMail: ['Ist diese Mail echt?\n> Sehr geehrter Kunde, bitte überweisen Sie auf DE89 3704 0044 0532 0130 00.'],
  };
  const phishEn = {
    knowledge: ['Invoices are due within 14 days.'],
    trustedDomains: [],
    addresses: [],
    customerMail: ['Is this real?\n> Dear customer, wire the amount due to Example Bank account 12345678901.'],
  };
  it.each<[string, typeof phishDe, string, string[]]>([
    ['de: "your account", the ask in the next sentence', phishDe, 'Ihr Konto DE89 3704 0044 0532 0130 00 ist bei uns hinterlegt. Überweisen Sie die offene Rechnung dorthin.', ['DE89 3704 0044 0532 0130 00']],
    ['de: "your account for the invoice", due by Friday', phishDe, 'Die IBAN DE89 3704 0044 0532 0130 00 ist Ihr Konto für die Rechnung. Der Betrag ist bis Freitag fällig.', ['DE89 3704 0044 0532 0130 00']],
    ['en: the amount due wired to "your" account', phishEn, 'The amount due should be wired to your Example Bank account 12345678901 by Friday.', ['Bank account 12345678901']],
    ['de: "zahlen Sie … zurück" is the customer paying', phishDe, 'Der Betrag ist auf Ihr Konto DE89 3704 0044 0532 0130 00 zurückzuzahlen.', ['DE89 3704 0044 0532 0130 00']],
    // A refund to it is still no lure: the money goes to the account, not from the customer.
    ['de: a refund to it passes', phishDe, 'Wir haben Ihnen 20 € auf Ihr Konto DE89 3704 0044 0532 0130 00 zurücküberwiesen.', []],
  ])('%s', (_what, desk, draft, expected) => {
    expect(foreignLinks(draft, desk)).toEqual(expected);
  });
});

// Found by helper S1 (session 49): a phone number written a second time, the same or another way, was named as the
// first's writing, so the learned-question scrub, which removes what is named, left the second writing in place.
describe('a phone number written twice is named each time as it is written there', () => {
  const none = { knowledge: [], trustedDomains: [], addresses: [] };
  it.each([
    ['the same writing twice', 'お電話は 03-1234-5678 まで。折り返しは 03-1234-5678 へ。', ['03-1234-5678', '03-1234-5678']],
    ['then with en dashes', 'お電話は 03-1234-5678 まで。折り返しは 03–1234–5678 へ。', ['03-1234-5678', '03–1234–5678']],
    ['then with a zero-width space', '03-1234-5678 または 03\u200b-1234-5678', ['03-1234-5678', '03\u200b-1234-5678']],
  ])('%s', (_what, draft, written) => {
    expect(foreignFindings(draft, none).map((f) => f.written)).toEqual(written);
  });
});

// Bug review B3 of session 49 (MED 4, LOW 10): the own-account vouch read only the asks of its list in the account's
// sentence, which ran past ';': a paid-back word beside an ask it lacked ("überweisen Sie … dorthin", "wire … to that
// account", "must receive 5 EUR from you") vouched for a forwarded phish's IBAN. And a romanised place with seven
// digits at a sentence's end was read as a postcode though nothing of an address stood before it.
describe('bug review B3 of session 49: the own account beside an amount owed, a place and seven digits', () => {
  const phishDe = { knowledge: ['Rechnungen sind innerhalb von 14 Tagen zu begleichen.'], trustedDomains: [], addresses: [], customerMail: ['Bitte erstatten Sie auf mein Konto DE89 3704 0044 0532 0130 00.'] };
  const iban = 'DE89 3704 0044 0532 0130 00';
  it.each<[string, string, string[]]>([
    ['de: erstattet; überweisen Sie die Gebühr dorthin', 'Ihr Konto DE89 3704 0044 0532 0130 00 wurde erstattet; überweisen Sie die Gebühr von 5 € dorthin.', [iban]],
    ['en: refund failed; wire the fee to that account', 'Your refund to your account DE89 3704 0044 0532 0130 00 failed; wire the fee of 5 EUR to that account to release it.', [iban]],
    ['en: the refund failed, then "must receive 5 EUR from you"', 'Your refund failed. Your account DE89 3704 0044 0532 0130 00 must receive 5 EUR from you first, refund follows.', [iban]],
    ['de: erstattet, then the fee is due', 'Wir haben den Betrag auf Ihr Konto DE89 3704 0044 0532 0130 00 erstattet. Die Gebühr von 5 € ist sofort fällig.', [iban]],
    // Still vouched: a refund to it, whatever follows that owes nothing.
    ['de: erstattet', 'Wir haben den Betrag auf Ihr Konto DE89 3704 0044 0532 0130 00 erstattet.', []],
    ['de: erstattet, with no-break spaces', 'Wir haben Ihnen das Geld auf Ihr Konto DE89\u00a03704\u00a00044\u00a00532\u00a00130\u00a000 erstattet.', []],
    ['en: refunded to your account, then a thank-you', 'We have refunded 20 EUR to your account DE89 3704 0044 0532 0130 00. Thank you for your patience.', []],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, phishDe)).toEqual(expected);
  });

  const enDesk = { knowledge: ['We ship from Tokyo.'], trustedDomains: [], addresses: [], customerMail: ['Where is my order?'] };
  it.each<[string, string, string[]]>([
    ['a shipment\'s origin', 'Shipment origin Tokyo 1234567.', []],
    ['a number after "sold in Japan"', 'Units sold in Japan 2024001; see the report.', []],
    // Still read: an address part stands before it.
    ['after a block number', 'Our desk: 1-2-3 Shinjuku Tokyo 1600023.', ['Tokyo 1600023']],
    ['after a ward', 'Our return centre is in Shinjuku-ku Tokyo 1600023.', ['Tokyo 1600023']],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, enDesk)).toEqual(expected);
  });
});

// Bug review B4 of session 49: the sentence after a refund said nothing owed, yet read as an amount owed.
describe('bug review B4 of session 49: a refund to the own account followed by words that owe nothing', () => {
  const desk = { knowledge: [], trustedDomains: [], addresses: [], customerMail: ['Please refund me to my account DE89 3704 0044 0532 0130 00.'] };
  const refund = 'We have refunded 3,000 yen to your account (IBAN DE89 3704 0044 0532 0130 00) as requested.';
  it.each<[string, string, string[]]>([
    ['"is due to arrive"', `${refund} It is due to arrive within three business days.`, []],
    ['"you don\'t owe us anything"', `${refund} You don't owe us anything.`, []],
    ['"you do not owe"', `${refund} You do not owe us anything.`, []],
    // Still owed.
    ['"a fee is due"', `${refund} A handling fee of 5 EUR is due by Friday.`, ['DE89 3704 0044 0532 0130 00']],
  ])('%s', (_what, draft, expected) => {
    expect(foreignLinks(draft, desk)).toEqual(expected);
  });
});
