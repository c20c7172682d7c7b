/**
 * Newsletters and marketing mail that write no List-* header: what the parser records of their text as a sign of a
 * mass mailing (`massMailing`), and what it must not take for one (a customer asking how to unsubscribe, a customer
 * replying to or forwarding our newsletter). The agent worker parks the draft of such mail; see bulkMailDetail.
 */
import { describe, expect, it } from 'vitest';
import { massMailingEvidence } from '../../src/mail/mass-mailing.js';
import { parseInboundMail } from '../../src/mail/parse.js';

/** A raw mail with a plain text body, an HTML body, or both (multipart/alternative). */
function rawMail(body: { text?: string; html?: string }, subject = 'News'): Buffer {
  const head = ['From: Shop <news@shop.example>', 'To: support@support.example', `Subject: ${subject}`, 'Message-ID: <m1@shop.example>', 'MIME-Version: 1.0'];
  const part = (type: string, content: string) => [`Content-Type: ${type}; charset=utf-8`, 'Content-Transfer-Encoding: base64', '', Buffer.from(content, 'utf8').toString('base64')];
  if (body.text !== undefined && body.html !== undefined) {
    return Buffer.from(
      [...head, 'Content-Type: multipart/alternative; boundary="b1"', '', '--b1', ...part('text/plain', body.text), '--b1', ...part('text/html', body.html), '--b1--', ''].join('\r\n'),
    );
  }
  return Buffer.from([...head, ...part(body.html !== undefined ? 'text/html' : 'text/plain', body.html ?? body.text ?? ''), ''].join('\r\n'));
}

const ARTICLE = 'Our autumn sale starts today: 40% off all quilting patterns and fabric.\nNew this week: the Harvest Star pattern.';
const products = (n: number) => Array.from({ length: n }, (_, i) => `<p><a href="https://shop.example/p/${i}">Product ${i}</a></p>`).join('\n');

describe('what the parser records as a sign of a mass mailing', () => {
  it.each<[string, { text?: string; html?: string }, string]>([
    [
      'an HTML newsletter: "Unsubscribe" is a link in its footer',
      {
        html: `<html><body><h1>Autumn sale</h1><p>${ARTICLE}</p><hr><p>Shop Inc., 1 Main St.</p><p><a href="https://shop.example/unsubscribe?u=1">Unsubscribe</a> | <a href="https://shop.example/prefs?u=1">Update preferences</a></p></body></html>`,
      },
      'an unsubscribe link in the footer (“Unsubscribe” https://shop.example/unsubscribe?u=1)',
    ],
    ['a plain text newsletter: an unsubscribe label and its URL', { text: `${ARTICLE}\n\n--\nUnsubscribe: https://shop.example/u/abc123` }, 'an unsubscribe link in the footer (“Unsubscribe” https://shop.example/u/abc123)'],
    ['"Click here to unsubscribe" with the link on "here"', { html: `<p>${ARTICLE}</p><p>Click <a href="https://shop.example/u/1">here</a> to unsubscribe.</p>` }, 'an unsubscribe link in the footer (“Click here to unsubscribe” https://shop.example/u/1)'],
    ['"To unsubscribe, …": a mass-mail footer line', { text: `${ARTICLE}\n\nTo unsubscribe, send a blank mail to leave@shop.example.` }, 'a mass-mail footer line (“To unsubscribe, send a blank mail to leave@shop.example.”)'],
    [
      '"You are receiving this email because …"',
      { text: `${ARTICLE}\n\nYou are receiving this email because you signed up at shop.example.` },
      'a mass-mail footer line (“You are receiving this email because you signed up at shop.example.”)',
    ],
    [
      'the survey invitation of the corpus (MySurvey): "You received this email because …"',
      {
        text: 'You have a survey waiting!\n\n\nTo take the survey:\n\n\n==========\nPlease do not reply to this email.\n==========\nYou received this email because you (or someone in your household) registered to be a MySurvey.example member. If you wish to be removed from the panel, please click here to http://www.mysurvey.example/index.cfm?myContent=unsubscribes.\n==========\n',
        html: '<center>hello world</center><IMG SRC="http://mailcenter.mysurvey.example/open.cfm?id=99" border="0" width="1" height="1">',
      },
      'a mass-mail footer line (“You received this email because you (or someone in your household) registered to be a MySurvey.examp…”)',
    ],
    ['"View this email in your browser" above the newsletter', { html: `<p><a href="https://shop.example/web/1">View this email in your browser</a></p><h1>Autumn sale</h1><p>${ARTICLE}</p>` }, 'a mass-mail line (“View this email in your browser”)'],
    [
      'a catalogue with an unsubscribe URL in its fine print and many links (the corpus\'s Provantage mailing)',
      { html: `${products(12)}<p>The Original Advantage promotional email is delivered only to customers. Any customer may leave at any time by going to http://www.shop.example/unsubscribe.htm.</p>` },
      'an unsubscribe link (http://www.shop.example/unsubscribe.htm) among 12 links',
    ],
    [
      'an unsubscribe URL in the footer and a tracking pixel',
      { html: `<p>${ARTICLE}</p><p>Not interested any more? Leave here: <a href="https://shop.example/optout?id=5">https://shop.example/optout?id=5</a></p><img src="https://t.shop.example/o.gif?id=5" width="1" height="1" alt="">` },
      'an unsubscribe link (https://shop.example/optout?id=5) and a tracking pixel (a 1×1 image)',
    ],
    ['メルマガ: 配信停止はこちら and its URL on the next line', { text: `いつもご利用ありがとうございます。\n秋の新作のご案内です。\n\n――――――――――\n■配信停止はこちら\nhttps://mag.shop.example.jp/stop?id=123\n――――――――――` }, 'an unsubscribe link in the footer (“配信停止はこちら” https://mag.shop.example.jp/stop?id=123)'],
    [
      'メルマガ: 配信停止をご希望の方は下記URLより (a 配信しています line above it)',
      { text: `秋の新作のご案内です。\n\n※このメールは、メールマガジンにご登録いただいた方にお送りしています。\n※配信停止をご希望の方は下記URLよりお手続きください。\nhttps://mag.shop.example.jp/stop?id=123` },
      'an unsubscribe link in the footer (“配信停止をご希望の方は下記URLよりお手続きください” https://mag.shop.example.jp/stop?id=123)',
    ],
    ['"This email was sent to <address>"', { text: `${ARTICLE}\n\nThis email was sent to taro@customer.example by Shop Inc.` }, 'a mass-mail footer line (“This email was sent to taro@customer.example by Shop Inc.”)'],
    ['"Having trouble viewing this email?" above the newsletter', { text: `Having trouble viewing this email?\n\n${ARTICLE}` }, 'a mass-mail line (“Having trouble viewing this email?”)'],
    ['an unsubscribe URL whose path has an "i" or "me" in it', { text: `${ARTICLE}\n\nUnsubscribe: https://shop.example/i/u?me=1` }, 'an unsubscribe link in the footer (“Unsubscribe” https://shop.example/i/u?me=1)'],
    ['メルマガ: ▼配信停止・アドレス変更はこちら▼', { text: `秋の新作のご案内です。\n\n▼配信停止・アドレス変更はこちら▼\nhttps://mag.shop.example.jp/conf?id=1` }, 'an unsubscribe link in the footer (“配信停止・アドレス変更はこちら” https://mag.shop.example.jp/conf?id=1)'],
    ['メルマガ: an HTML 配信解除 link', { html: `<p>秋の新作のご案内です。</p><p>株式会社ショップ</p><p><a href="https://mag.shop.example.jp/kaijo?id=9">メルマガの配信解除</a></p>` }, 'an unsubscribe link in the footer (“メルマガの配信解除” https://mag.shop.example.jp/kaijo?id=9)'],
    ['メルマガ: このメールは…ご登録いただいた皆様に配信しています (no link)', { text: '秋の新作のご案内です。\n\nこのメールは、メルマガ「週刊ショップ」にご登録いただいた皆様に配信しています。' }, 'a mass-mail footer line (“このメールは、メルマガ「週刊ショップ」にご登録いただいた皆様に配信しています。”)'],
    ['メルマガ: 今後メールの配信を希望されない場合は', { text: '秋の新作のご案内です。\n\n今後このようなメールの配信を希望されない場合は、お手数ですがご連絡ください。' }, 'a mass-mail footer line (“今後このようなメールの配信を希望されない場合は、お手数ですがご連絡ください。”)'],
    [
      'メルマガ: メールアドレスの変更・解除はマイページから, its URL on the next line (sample 26b)',
      { text: '新商品「ふわふわブランケット」が登場しました。\n詳しくはこちら https://shop-news.example.co.jp/item/123\n\n------------------------------------\n配信元：株式会社ショップニュース\nメールアドレスの変更・解除はマイページから\nhttps://shop-news.example.co.jp/mypage\n------------------------------------' },
      'an unsubscribe link in the footer (“メールアドレスの変更・解除はマイページから” https://shop-news.example.co.jp/mypage)',
    ],
    ['メルマガ: ■配信停止・登録変更は会員ページより', { text: '秋の新作のご案内です。\n\n■配信停止・登録変更は会員ページより\nhttps://mag.shop.example.jp/member' }, 'an unsubscribe link in the footer (“配信停止・登録変更は会員ページより” https://mag.shop.example.jp/member)'],
    ['メルマガ: 配信解除・変更はマイページから, its URL on the same line', { text: '秋の新作のご案内です。\n\n配信解除・変更はマイページから https://mag.shop.example.jp/mypage' }, 'an unsubscribe link in the footer (“配信解除・変更はマイページから” https://mag.shop.example.jp/mypage)'],
    // Machine mail that says no one reads replies (sample 61), or a ticket system's reply marker (sample 57).
    [
      'a payment notice in HTML: 「このメールには返信しないでください。」 (sample 61)',
      { html: '<html><body><div>株式会社カスタマー様から ¥5,500 JPY のお支払いを受け取りました。</div>\n<div>取引ID: 7AB12345CD678901E</div>\n<div><a href="https://www.paypal.example/myaccount/transactions">取引を確認する</a></div>\n<div>このメールには返信しないでください。</div></body></html>' },
      'a do-not-reply line (“このメールには返信しないでください。”)',
    ],
    ['"Please do not reply to this email." under a notice', { text: 'You received a payment of $55.00 USD from Customer Inc.\nTransaction ID: 7AB12345CD678901E\n\nPlease do not reply to this email. This mailbox is not monitored.' }, 'a do-not-reply line (“Please do not reply to this email.”)'],
    ['"This mailbox is not monitored."', { text: 'Your invoice INV-2291 is ready.\n\nThis mailbox is not monitored, and replies will not be read.' }, 'a do-not-reply line (“This mailbox is not monitored, and replies will not be read.”)'],
    // A CRM sending for a person (audit 3, sample 132): a do-not-reply line, which bulkMailDetail weighs against Reply-To.
    [
      '※このメールは送信専用アドレスから送信されています (sample 132)',
      { text: 'いつもお世話になっております。\nライセンスを増やしたいのですが、日割りで請求されますか？\n\n※このメールは送信専用アドレスから送信されています。ご返信は r.nakamura@nakamura-co.example までお願いいたします。' },
      'a do-not-reply line (“このメールは送信専用アドレスから送信されています。”)',
    ],
    ['a mailing to subscribers from a send-only address stays a footer line', { text: '11月のお知らせです。\n\n※本メールは送信専用アドレスよりご登録の皆様にお送りしています。' }, 'a mass-mail footer line (“本メールは送信専用アドレスよりご登録の皆様にお送りしています。”)'],
    ['※本メールは送信専用のため、ご返信いただいてもお答えできません', { text: 'ご注文ありがとうございます。\n注文番号：12345\n\n※本メールは送信専用のため、ご返信いただいてもお答えできません。' }, 'a do-not-reply line (“本メールは送信専用のため、ご返信いただいてもお答えできません。”)'],
    [
      "a vendor's Zendesk acknowledgement: its reply marker first (sample 57)",
      { text: '##- このラインより上にご返信ください -##\n\nお問い合わせ番号 #48213 を受け付けました。\n\n担当者より2営業日以内にご連絡いたします。\n追加の情報がございましたら、このメールにご返信ください。\n\nパートナー決済サポートチーム' },
      "a ticket system's reply marker (“##- このラインより上にご返信ください -##”)",
    ],
    ["the marker in English", { text: '##- Please type your reply above this line -##\n\nYour request (48213) has been received and is being reviewed by our support staff.' }, "a ticket system's reply marker (“##- Please type your reply above this line -##”)"],
  ])('%s', async (_what, body, expected) => {
    const mail = await parseInboundMail(rawMail(body));
    expect(mail.massMailing).toBe(expected);
  });

  it.each<[string, { text?: string; html?: string }, string?]>([
    ['a customer asking how to unsubscribe', { text: 'Hello,\n\nHow do I unsubscribe from your newsletter?\n\nTaro' }],
    ['a customer asking to be unsubscribed', { text: 'Hello,\nplease unsubscribe me, I get too many mails.\nThanks, Taro' }],
    ['a customer asking how to unsubscribe, in Japanese', { text: 'お世話になっております。\nメルマガの配信停止方法を教えてください。\n山田' }],
    ['a customer asking for the メルマガ to stop', { text: 'お世話になっております。\nメルマガの配信停止をお願いします。\n今後の配信は希望しません。\n山田' }],
    ['a customer naming the unsubscribe link that fails', { text: 'Hello,\nI clicked the unsubscribe link https://shop.example/unsubscribe?u=1 but I still get your mails.\nTaro' }],
    [
      'a customer naming the unsubscribe link that fails, in Japanese, in HTML (the URL a link)',
      { html: '<p>お世話になっております。</p><p>メルマガの配信停止リンク（<a href="https://shop.example/unsubscribe?u=1">https://shop.example/unsubscribe?u=1</a>）を押してもエラーになります。</p><p>よろしくお願いします。<br>山田</p>' },
    ],
    ['a one-word mail "Unsubscribe"', { text: 'Unsubscribe' }],
    ['a customer who sends from a phone', { text: 'お世話になっております。\nパスワードの変更方法を教えてください。\n\nこのメールはスマートフォンから送信しています。' }],
    [
      'a customer replying to our newsletter: the footer is in the quoted mail',
      {
        text: `Does the Harvest Star pattern come in a PDF?\n\nOn Mon, 7 Sep 2026 at 10:00, Shop <news@shop.example> wrote:\n> ${ARTICLE.replace('\n', '\n> ')}\n>\n> You are receiving this email because you signed up at shop.example.\n> Unsubscribe: https://shop.example/u/abc123\n`,
      },
    ],
    [
      'a customer forwarding our newsletter with a question above it',
      {
        text: `Is this sale also valid in your Osaka store?\n\n---------- Forwarded message ---------\nFrom: Shop <news@shop.example>\nDate: Mon, 7 Sep 2026 at 10:00\nSubject: Autumn sale\nTo: <taro@customer.example>\n\n${ARTICLE}\n\nYou are receiving this email because you signed up at shop.example.\nUnsubscribe: https://shop.example/u/abc123\n`,
        html: `<div>Is this sale also valid in your Osaka store?</div><div class="gmail_quote">---------- Forwarded message ---------<br>${products(12)}<p><a href="https://shop.example/u/abc123">Unsubscribe</a></p><img src="https://t.shop.example/o.gif" width="1" height="1"></div>`,
      },
    ],
    [
      'a customer whose signature has a few links and whose mail app adds a tracking pixel',
      {
        html: '<p>Hello, how do I export my invoices as CSV?</p><p>Taro Yamada<br><a href="https://customer.example">customer.example</a> | <a href="https://x.example/taro">X</a> | <a href="https://linkedin.example/in/taro">LinkedIn</a></p><img src="https://track.mailapp.example/p.gif" width="1" height="1">',
      },
    ],
    ['a customer\'s one-line request to be taken off the list', { text: 'To unsubscribe from your newsletter, please remove taro@customer.example.' }],
    ['a company\'s confidentiality notice under a question', { text: 'Hello,\nhow do I export my invoices?\n\nThis email and any attachments are confidential. If you have received this email in error, please notify the sender and delete it.' }],
    ['a company\'s notice in a signature', { text: 'Hello,\nhow do I reset 2FA?\n\n--\nTaro Yamada | ACME\nThis message was sent to you by ACME. If you are not the intended recipient, delete it.' }],
    ['a company\'s confidentiality notice in Japanese', { text: 'お世話になっております。\n請求書の出力方法を教えてください。\n\n本メールは宛先に記載された方のみに送信しております。誤って受信された場合は破棄してください。' }],
    ['a customer asking where to change or cancel on the My Page', { text: 'お世話になっております。\nメールアドレスの変更・解除はマイページからできますか\nhttps://shop.example/mypage\n山田' }],
    ['a customer saying the My Page does not let them cancel', { text: 'お世話になっております。\n変更・解除はマイページからと書かれていますが、ボタンがありません。\nhttps://shop.example/mypage' }],
    ['a customer\'s note on changing their address, no unsubscribing', { text: 'お世話になっております。\nメールアドレスの変更はマイページから行いました。\nhttps://shop.example/mypage' }],
    ['a customer asking whether they may reply', { text: 'お世話になっております。\nこのメールに返信しても大丈夫ですか？\n山田' }],
    ['a customer asking not to be replied to by mail, in the first person', { text: 'Hello,\nmy export fails with error 500.\nPlease do not reply to this email, I will call you tomorrow.\nTaro' }],
    ["a customer writing about a vendor's reply marker", { text: 'お世話になっております。\n「##- このラインより上にご返信ください -##」という行が届いたメールの先頭にあります。これは何ですか。\n山田' }],
    [
      'a customer replying to a no-reply notice: the line is in the quoted mail',
      { text: 'この請求は何でしょうか？\n\n2026年11月20日 14:45 PayPal <service@paypal.example>:\n> お支払いを受け取りました。\n> このメールには返信しないでください。\n' },
    ],
    ['a customer quoting a footer sentence inside their own', { text: 'Hello,\nyour mail says "you are receiving this email because you signed up", but I never signed up. Where did you get my address?\nTaro' }],
  ])('not for %s', async (_what, body) => {
    const mail = await parseInboundMail(rawMail(body, 'Question'));
    expect(mail.massMailing).toBeUndefined();
  });

  // The text and the HTML are a stranger's: whatever they hold, they are read in one pass over a bounded part.
  it('reads hostile text and HTML in one pass', { timeout: 20_000 }, async () => {
    const started = performance.now();
    const bodies = [
      { text: `${'unsubscribe '.repeat(50_000)}\n${'To unsubscribe '.repeat(20_000)}` },
      { text: `このメールは${'あ'.repeat(100_000)}\n${'配信停止'.repeat(30_000)}` },
      { html: `${'<a '.repeat(100_000)}x` },
      { html: `${'<a href="https://x.example/unsubscribe">'.repeat(5)}${'<a>'.repeat(100_000)}` },
      { html: `${'<img width=1 '.repeat(50_000)}>` },
      { html: `<p>${'x'.repeat(10)}</p>${'<a href="https://shop.example/unsubscribe">'.repeat(20_000)}` },
      { text: `hello\n${'https://shop.example/unsubscribe '.repeat(30_000)}` },
    ];
    for (const body of bodies) await parseInboundMail(rawMail(body));
    // Generous: one pass over these takes well under a second; a quadratic scan takes minutes.
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});

// Bug review 38 #4: an opt-out footer's subject is the mailing itself (ご案内, メルマガ, 配信, "these emails"), and it is a
// footer line, not a sentence of a customer's own paragraph or one that reports what the customer was told.
describe('an opt-out footer against a customer writing about what they no longer need sent', () => {
  it.each<[string, string, RegExp | undefined]>([
    ['a paper invoice they no longer need, asked about on the next line', 'お世話になっております。\n紙の請求書の送付が不要な場合は、管理画面で切り替えられると伺いました。\n切り替え方法を教えてください。\n\n山田', undefined],
    ['a paper invoice, what they were told and that they need none', 'お世話になっております。\n今後、紙の請求書の送付が不要な場合は、その旨ご連絡くださいとのご案内をいただきました。\n弊社は不要ですので、電子のみでお願いします。\n\n山田', undefined],
    ['a statement they no longer need posted, no reported speech', 'お世話になっております。\n利用明細の送付が不要な場合は、管理画面から停止できます。\n\n山田', undefined],
    ['a mailing\'s opt-out they quote, in a paragraph that asks', 'お世話になっております。\n今後のご案内が不要な場合は解約手続きが必要とのことです。\n解約の方法を教えてください。\n\n山田', undefined],
    ['a mailing\'s opt-out they report being told', 'お世話になっております。\n\n「今後のご案内が不要な方はご連絡ください」とのご案内をいただきました。\n弊社は不要です。\n\n山田', undefined],
    ['English: paper invoices they were told how to stop', 'Hello,\nTo stop receiving paper invoices by post, you can switch to e-invoices in the admin console, we were told.\nWhere is that setting?\n\nTaro', undefined],
    ['English: a mailing\'s opt-out they were told about', 'Hello,\n\nIf you no longer wish to receive these emails, reply STOP, we were informed.\nWe would like to keep them.\n\nTaro', undefined],
    // What the opt-out footer rule was added for (audit 3, sample 144; review 9) still holds.
    ['a pitch\'s footer: 今後のご案内が不要な方は…その旨ご返信ください', 'XYZ株式会社 ご担当者様\n\n無料ウェビナーを開催いたします。\n\n※本メールは名刺交換をさせていただいた方にお送りしております。\n今後のご案内が不要な方はお手数ですがその旨ご返信ください。', /ご案内が不要な方は/],
    ['a pitch\'s signature: 今後このようなご案内が不要な方は', 'ご担当者様\n\n6月20日に業務効率化セミナーを開催いたします。\nぜひご参加いただけませんでしょうか？\n\n株式会社セールス 鈴木一郎\n今後このようなご案内が不要な方は、お手数ですがその旨ご返信ください。', /ご案内が不要な方は/],
    ['今後メールの配信が不要な場合は、こちらから', 'セミナーのお知らせです。\n\n今後メールの配信が不要な場合は、こちらからお手続きください。', /配信が不要な場合は/],
    ['メルマガが不要な方は', '新製品のお知らせです。\n\nメルマガが不要な方は、下記までご連絡ください。', /メルマガが不要な方は/],
    ['今後、配信が不要な場合は', '秋のキャンペーンのお知らせです。\n\n今後、配信が不要な場合は下記URLより停止できます。', /配信が不要な場合は/],
    ['最新情報が不要な方は', '展示会のご案内です。\n\n最新情報が不要な方は、お手数ですがご返信ください。', /最新情報が不要な方は/],
    ['an opt-out line in the paragraph of a pitch that only invites', 'ご担当者様\n\n交流会を開催します。\nご出席いただけますか？\n今後のご案内が不要な方はお手数ですがご返信ください。', /ご案内が不要な方は/],
    ['English: "To stop receiving these emails"', 'Our autumn sale starts today.\n\nTo stop receiving these emails, reply with STOP.', /To stop receiving these emails/],
    ['English: "…because you told us…" is the mailing\'s own footer', 'Our autumn sale starts today.\n\nYou are receiving this email because you told us you wanted our offers.', /You are receiving this email/],
  ])('%s', (_name, text, expected) => {
    const evidence = massMailingEvidence({ text, quoted: false });
    if (expected) expect(evidence).toMatch(expected);
    else expect(evidence).toBeUndefined();
  });
});
