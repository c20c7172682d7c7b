import { describe, expect, it } from 'vitest';
import { parseInboundMail } from '../../src/mail/parse.js';

// Mail audit round 6, items 7 and 10 (tmp/mailaudit6/REPORT.md): a customer's words written below our own
// unprefixed quoted reply (405, 406) and `| ` quote marks of older Japanese mailers (413), as bug review 41b narrowed
// them: below our reply only after the quote of the customer's mail that ends it, and only what asks; `|` runs never
// in forwards, never table rows, never under words that point at them. Item 11's unframed 〒/TEL/FAX block (444) stays
// for the model: cutting it lost addresses, phone numbers and order data customers asked us to use (bug review 41b).

const SUPPORT = 'support@helpdesk.example.jp';

interface RawMail {
  subject?: string;
  /** In-Reply-To of a reply to one of our answers. */
  inReplyTo?: string;
  html?: boolean;
  body: string;
  /** The customer's address (default the one our quoted reply went to). */
  from?: string;
}

/** A raw mail from a customer to the support address, UTF-8, as a client writes it. */
function raw({ subject = 'CSV出力について', inReplyTo, html = false, body, from = 'taro.yamada@yamada-kogyo.co.jp' }: RawMail): Buffer {
  return Buffer.from(
    [
      `From: =?UTF-8?B?5bGx55SwIOWkqumDjg==?= <${from}>`,
      `To: XYZ Support <${SUPPORT}>`,
      `Subject: =?UTF-8?B?${Buffer.from(subject).toString('base64')}?=`,
      'Date: Wed, 25 Nov 2026 14:06:11 +0900',
      'Message-ID: <m1@yamada-kogyo.co.jp>',
      ...(inReplyTo ? [`In-Reply-To: ${inReplyTo}`, `References: ${inReplyTo}`] : []),
      'MIME-Version: 1.0',
      `Content-Type: text/${html ? 'html' : 'plain'}; charset=UTF-8`,
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from(body.replace(/\n/g, '\r\n')).toString('base64'),
      '',
    ].join('\r\n'),
  );
}

const OUR_ID = '<3f2b9c1e@helpdesk.example.jp>';

// Our reply as Outlook quotes it without `>` marks, under its 差出人 block.
const OUR_BLOCK = ['差出人: XYZサポート <support@helpdesk.example.jp>', '送信日時: 2026年11月24日 15:02', '宛先: 山田 太郎 <taro.yamada@yamada-kogyo.co.jp>', '件名: Re: CSV出力について', ''];
const OUR_ANSWER = ['山田様', '', 'XYZサポートでございます。', '', 'CSVの文字コードは「設定 > エクスポート」で変更できます。', 'なお、区切り文字はカンマ固定となっております。', '', '何卒よろしくお願いいたします。'];
const OUR_SIGNATURE = ['', '--', 'XYZサポート', SUPPORT];
// Our reply as compose-reply writes it: the customer's mail quoted below our answer under an attribution line.
const OUR_QUOTE_OF_THEM = ['', '2026年11月24日(火) 10:00 山田 太郎 <taro.yamada@yamada-kogyo.co.jp>:', '> CSVの文字コードを変更できますか？', '> 山田'];
const lines = (...parts: string[][]) => ['', '', ...parts.flat()].join('\n');

const OUR_WORDS = /カンマ固定|XYZサポートでございます|文字コードを変更できますか/;

describe('a note written below our own quoted reply, after the quote of their mail that ends it (audit 405, 406)', () => {
  it.each([
    ['below the quote of their own mail that closes our reply', lines(OUR_BLOCK, OUR_ANSWER, OUR_QUOTE_OF_THEM, ['', 'ありがとうございます。タブ区切りにはできますか？', '', '山田']), /タブ区切りにはできますか/],
    ['under a ---- line below that quote', lines(OUR_BLOCK, OUR_ANSWER, OUR_SIGNATURE, OUR_QUOTE_OF_THEM, ['', '----', '上記の件、承知しました。', 'もう1点、区切り文字をタブに変更することはできますか？']), /タブに変更することはできますか/],
    // Bug review 41d: written from another of their addresses than the one our reply went to (an alias, a +tag): the
    // quoted block's To line names the one the attribution does.
    ['from an alias of the address our reply went to', lines(OUR_BLOCK, OUR_ANSWER, OUR_QUOTE_OF_THEM, ['', 'ありがとうございます。タブ区切りにはできますか？']), /タブ区切りにはできますか/, 't.yamada@yamada-kogyo.co.jp'],
    ['from a +tag of it', lines(OUR_BLOCK, OUR_ANSWER, OUR_QUOTE_OF_THEM, ['', 'ありがとうございます。タブ区切りにはできますか？']), /タブ区切りにはできますか/, 'taro.yamada+help@yamada-kogyo.co.jp'],
    // Bug review 41b a1-06: a quote the customer cites in their own note does not move the end past their question.
    ['a quote the customer cites below their question', lines(OUR_BLOCK, OUR_ANSWER, OUR_QUOTE_OF_THEM, ['', 'タブ区切りにはできますか？', '', '営業の方のメール:', '> タブ区切りに対応予定です'])],
  ].map(([what, body, asked = /タブ区切りにはできますか/, from]) => [what, body, asked, from] as const))('%s', async (_what, body, asked, from) => {
    const mail = await parseInboundMail(raw({ subject: 'RE: CSV出力について', inReplyTo: OUR_ID, body: body as string, ...(from ? { from: from as string } : {}) }));
    expect(mail.question).toMatch(asked as RegExp);
    expect(mail.question).not.toMatch(OUR_WORDS);
  });
});

describe('our own quoted reply with no end to tell, or nothing asked below it: still parked, our words never the question (guards)', () => {
  const FOOTER = ['', '━━━━━━━━━━━━━━━━', '※本メールは送信専用ではございません。ご返信にてお問い合わせいただけます。'];
  it.each([
    ['only our reply, nothing below it', lines(OUR_BLOCK, OUR_ANSWER, OUR_SIGNATURE)],
    ['our reply with a separator and more of our sentences, no address line', lines(OUR_BLOCK, OUR_ANSWER, ['', '----', '補足：タブ区切りは来月のリリースで対応予定です。'])],
    ['our address inside a sentence of our reply, more of our reply below', lines(OUR_BLOCK, OUR_ANSWER, ['', `ご不明点は ${SUPPORT} までご連絡ください。`, '', '引き続きよろしくお願いいたします。'])],
    ['our reply ending with the quote of their mail, nothing below', lines(OUR_BLOCK, OUR_ANSWER, OUR_QUOTE_OF_THEM)],
    // Bug review 41b: our address line mid-answer (a1-03), our footer under our signature (a1-04), a gateway's line
    // under our quote (a1-05), a thank-you that asks nothing.
    ['our address line mid-answer, more of our answer below', lines(OUR_BLOCK, ['山田様', '', '下記までお問い合わせください。', 'XYZサポート', SUPPORT, '', 'なお、タブ区切りは来月のリリースで対応予定です。', '何卒よろしくお願いいたします。'])],
    ['our footer under our signature', lines(OUR_BLOCK, OUR_ANSWER, OUR_SIGNATURE, FOOTER)],
    ['a gateway line under the quote that ends our reply', lines(OUR_BLOCK, OUR_ANSWER, OUR_QUOTE_OF_THEM, ['', 'このメールはウイルスチェック済みです。'])],
    ['a thank-you that asks nothing under that quote', lines(OUR_BLOCK, OUR_ANSWER, OUR_QUOTE_OF_THEM, ['', '承知しました。ありがとうございました。'])],
    // Bug review 41c: our answer quotes what someone wrote and goes on asking; only the quote under the customer's own
    // address ends it.
    ['our answer quoting a colleague, then asking', lines(OUR_BLOCK, ['山田様', '', '営業担当の佐藤から次の通り聞いております。', '', '2026年11月20日(金) 9:00 佐藤 <sato@helpdesk.example.jp>:', '> カンマ固定です', '', '来月のリリースでタブ区切りに対応予定ですが、ご利用の環境を教えていただけますか？', '引き続きよろしくお願いいたします。'])],
  ])('%s', async (_what, body) => {
    const mail = await parseInboundMail(raw({ subject: 'RE: CSV出力について', inReplyTo: OUR_ID, body }));
    expect(mail.question).not.toMatch(/カンマ固定|来月のリリース|までご連絡ください|引き続き|送信専用|ウイルスチェック/);
    expect(mail.question).toBe('CSV出力について');
  });

  // Outlook's own bottom post under our reply without the quote of their mail (405, 406 as sent): where our reply ends
  // cannot be told from the text (our address and separators also stand mid-answer and above footers): a person reads it.
  it.each([
    ['Outlook plain text, under a ---- line below our signature (405)', lines(OUR_BLOCK, OUR_ANSWER, OUR_SIGNATURE, ['', '', '----', '上記の件、承知しました。', 'もう1点、CSVの区切り文字をタブに変更することはできますか？', '', '山田']), false],
    [
      'Outlook HTML, a paragraph below our signature (406)',
      `<html><body><div style="border-top:solid #E1E1E1 1.0pt"><p><b>差出人:</b> XYZサポート &lt;${SUPPORT}&gt;<br><b>送信日時:</b> 2026年11月24日 15:02<br><b>宛先:</b> 山田 太郎<br><b>件名:</b> Re: CSV出力について</p></div><p>山田様<br><br>XYZサポートでございます。<br><br>CSVの文字コードは「設定 &gt; エクスポート」で変更できます。<br>なお、区切り文字はカンマ固定となっております。<br><br>--<br>XYZサポート<br>${SUPPORT}</p><p>&nbsp;</p><p>ご回答ありがとうございます。</p><p>タブ区切りで出力する方法はありますか？</p><p>山田</p></body></html>`,
      true,
    ],
  ])('%s', async (_what, body, html) => {
    const mail = await parseInboundMail(raw({ subject: 'RE: CSV出力について', inReplyTo: OUR_ID, html, body }));
    expect(mail.question).toBe('CSV出力について');
  });
});

const PIPE_QUOTE = ['| 山田様', '|', '| CSVの文字コードは「設定 > エクスポート」で変更できます。', '| なお、区切り文字はカンマ固定となっております。', '|', '| 何卒よろしくお願いいたします。'];

describe('`|` quote marks of older Japanese mailers in a reply (audit 413)', () => {
  it.each([
    ['a note above a run of `| ` lines (413)', { inReplyTo: OUR_ID, subject: 'Re: CSV出力について' }, ['区切り文字の件、将来的に変更できるようになる予定はありますか？', '', ...PIPE_QUOTE].join('\n'), /将来的に変更できるようになる予定はありますか/],
    ['full-width ｜ marks', { inReplyTo: OUR_ID }, ['区切り文字は変更できますか？', '', ...PIPE_QUOTE.map((l) => l.replace('|', '｜'))].join('\n'), /区切り文字は変更できますか/],
    ['a Re: subject only, no reply headers', { subject: 'Re: CSV出力について' }, ['区切り文字は変更できますか？', '', ...PIPE_QUOTE].join('\n'), /区切り文字は変更できますか/],
    ['bottom-posted below an attribution and the run', { inReplyTo: OUR_ID }, ['2026/11/24 15:02、XYZサポート さんは書きました:', ...PIPE_QUOTE, '', '将来的にタブ区切りにできる予定はありますか？'].join('\n'), /タブ区切りにできる予定はありますか/],
  ])('%s', async (_what, headers, body, asked) => {
    const mail = await parseInboundMail(raw({ ...headers, body }));
    expect(mail.question).toMatch(asked);
    expect(mail.question).not.toMatch(/カンマ固定|何卒/);
  });
});

describe('`|` lines that are no quote stay the customer\'s (guards)', () => {
  const TABLE = ['| 項目 | 設定値 |', '| --- | --- |', '| 文字コード | UTF-8 |', '| 区切り文字 | カンマ |'];
  it.each([
    ['a markdown table in a first mail', {}, ['以下の設定で出力しています。', '', ...TABLE, '', 'タブにできますか？'].join('\n'), /区切り文字 \| カンマ/],
    ['a markdown table in a reply, below the note', { inReplyTo: OUR_ID }, ['今の設定は以下です。タブにできますか？', '', ...TABLE].join('\n'), /区切り文字 \| カンマ/],
    ['`| ` lines in a first mail', {}, ['ログに以下が出ます。', '| error 1', '| error 2', '| error 3 CSV出力失敗'].join('\n'), /CSV出力失敗/],
    // Bug review 41b a2-01, a2-02, a2-05, a2-06.
    ['questions as a `| ` list under words that point at it', { inReplyTo: OUR_ID }, ['追加で以下の3点を教えてください。', '| 1. 文字コードはShift_JISにできますか', '| 2. 区切り文字はタブにできますか', '| 3. 改行コードはCRLFにできますか'].join('\n'), /改行コードはCRLFにできますか/],
    ['a table without closing pipes, in a reply', { inReplyTo: OUR_ID }, ['今の設定です。タブにできますか？', '', '| 項目 | 設定値', '| 文字コード | UTF-8', '| 区切り文字 | カンマ'].join('\n'), /区切り文字 \| カンマ/],
    ['table rows ending in a full-width space', { inReplyTo: OUR_ID }, ['今の設定です。タブにできますか？', '', '| 項目 | 設定値 |\u3000', '| 文字コード | UTF-8 |\u3000', '| 区切り文字 | カンマ |\u3000'].join('\n'), /区切り文字 \| カンマ/],
    ['a forwarded alert', { subject: 'Fwd: 監視アラート' }, ['このアラートの意味を教えてください。', '', '| host: web01', '| status: CRITICAL', '| CSV出力ジョブ失敗'].join('\n'), /CSV出力ジョブ失敗/],
  ])('%s', async (_what, headers, body, kept) => {
    const mail = await parseInboundMail(raw({ ...headers, body }));
    expect(mail.question).toMatch(kept);
  });
});

describe('contact lines that are the customer\'s request stay (guards)', () => {
  it.each([
    ['a new address they ask us to register', ['登録住所の変更をお願いします。新しい住所は以下です。', '', '山田工業株式会社', '〒530-0001 大阪府大阪市北区梅田1-1-1', 'TEL：06-1234-5678'], /〒530-0001/],
    ['order data ending with a phone line', ['お届け先を変更したいです。', '', '注文番号：A-12345', 'お届け先：東京都港区芝1-2-3', '電話番号：03-1234-5678'], /電話番号：03-1234-5678/],
    ['a phone number alone below the request', ['折り返しお電話をいただけますか。', '', 'TEL：03-1234-5678'], /TEL：03-1234-5678/],
    ['a question inside the block', ['よろしくお願いいたします。', '', '山田工業株式会社', '〒530-0001 大阪府大阪市北区梅田1-1-1', 'この住所宛に請求書を送っていただけますか？'], /この住所宛に請求書を送っていただけますか？/],
  ])('%s', async (_what, body, kept) => {
    const mail = await parseInboundMail(raw({ subject: '住所変更', body: body.join('\n') }));
    expect(mail.question).toMatch(kept);
  });
});
