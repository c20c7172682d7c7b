/**
 * Mail the parser reads only in part, or not at all, because of its own limits (hostile-MIME stress review):
 * - text past a cut (the 500-part cut, the 2,000,000-character HTML cut, the raw-bytes cut, the cut of text read again
 *   in its real charset, HTML that could not be converted) is named as unreadable, so the mail is parked before the
 *   agent instead of being answered from its subject alone (F1);
 * - a header section over mailparser's limit is worded for an operator, once, and its ticket takes From, Reply-To and
 *   Subject from the IMAP envelope (F2);
 * - two From fields, or a From of several addresses (whatever a Sender field says), hold the draft: the sender cannot be
 *   told (F3).
 */
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { senderReviewReason } from '../../jobs/answer-ticket.js';
import { parseConfig } from '../../src/config.js';
import { replySignalsOf } from '../../src/mail/classify.js';
import { ticketInputForMail } from '../../src/mail/ingest.js';
import { MailParseError, parseInboundMail, questionWithSubject, TEXT_NOT_READ_WHOLE } from '../../src/mail/parse.js';

const CRLF = '\r\n';
const Q = 'パスワードをリセットする方法を教えてください。マニュアルのリセットリンクが動きません。';
const SUBJECT = 'パスワードのリセット方法を教えてください';
const SUBJECT_WORD = `=?utf-8?B?${Buffer.from(SUBJECT).toString('base64')}?=`;

function head(extra: string[] = [], opts: { from?: string; subject?: string } = {}): string {
  return [
    `From: ${opts.from ?? 'Customer <c@customer.example>'}`,
    'To: XYZ Support <support@helpdesk.test>',
    `Subject: ${opts.subject ?? SUBJECT_WORD}`,
    'Date: Tue, 3 Mar 2026 09:00:00 +0900',
    'Message-ID: <mime-limits@customer.example>',
    'MIME-Version: 1.0',
    ...extra,
  ].join(CRLF);
}
const mail = (h: string, body: string): Buffer => Buffer.from(`${h}${CRLF}${CRLF}${body}${CRLF}`, 'utf8');
const textPart = (s = Q) => `Content-Type: text/plain; charset=utf-8${CRLF}${CRLF}${s}${CRLF}`;

function nested(depth: number, text = Q): string {
  let inner = textPart(text);
  for (let i = depth; i >= 1; i--) inner = `Content-Type: multipart/mixed; boundary="b${i}"${CRLF}${CRLF}--b${i}${CRLF}${inner}--b${i}--${CRLF}`;
  return inner;
}

const STYLE_5MB = `<style>${'.a{color:red}'.repeat(400_000)}</style>`;

describe('F1: text past a parser limit makes the mail unreadable for the agent', () => {
  const cut = (detail: string) => `${TEXT_NOT_READ_WHOLE} (${detail})`;
  it.each([
    {
      name: 'multipart nested 5,000 deep, the question innermost, past the 500-part cut',
      raw: () => Buffer.from(head() + CRLF + nested(5000, '請求書の宛名を変更できますか？')),
      reason: cut('only its first 500 MIME parts were read'),
    },
    {
      name: '10,000 sibling parts, the question first',
      raw: () => mail(head(['Content-Type: multipart/mixed; boundary="p"']), [textPart(), ...Array.from({ length: 9_999 }, (_, i) => `Content-Type: text/plain${CRLF}${CRLF}part ${i}${CRLF}`)].map((p) => `--p${CRLF}${p}`).join('') + '--p--'),
      reason: cut('only its first 500 MIME parts were read'),
    },
    {
      name: 'an HTML body with a 5 MB <style> block before the question',
      raw: () => mail(head(['Content-Type: text/html; charset=utf-8']), `<html><head>${STYLE_5MB}</head><body><p>請求書の宛名を変更できますか？</p></body></html>`),
      reason: cut('only the first 2,000,000 characters of its HTML were read'),
    },
    {
      name: 'a text part in an unknown charset, read again in the one its bytes are in, over that reading’s limit',
      raw: () => mail(head(['Content-Type: text/plain; charset=x-unknown']), `${`${'x'.repeat(80)}${CRLF}`.repeat(14_000)}${Q}`),
      reason: /^the mail's text was not read whole \(the last 99,\d{3} bytes of its text were not read: text read again in the charset its bytes are in stops at 1,048,576 bytes of plain text and 2,000,000 of HTML\)$/,
    },
  ])('$name', async ({ raw, reason }) => {
    const parsed = await parseInboundMail(raw());
    if (typeof reason === 'string') expect(parsed.unreadable).toBe(reason);
    else expect(parsed.unreadable).toMatch(reason);
  });

  it('the raw-bytes cut (maxBytes)', async () => {
    const raw = mail(head(['Content-Type: text/plain; charset=utf-8']), `${'x'.repeat(200_000)}${CRLF}${Q}`);
    const parsed = await parseInboundMail(raw, { maxBytes: 100_000 });
    expect(parsed.unreadable).toBe(`${TEXT_NOT_READ_WHOLE} (only its first 100,000 of ${raw.length.toLocaleString('en')} bytes were read)`);
  });

  it('the probe: the subject alone would have been the question (nested 5,000, 5 MB <style>)', async () => {
    const nestedRaw = Buffer.from(head() + CRLF + nested(5000, '請求書の宛名を変更できますか？'));
    const htmlRaw = mail(head(['Content-Type: text/html; charset=utf-8']), `<html><head>${STYLE_5MB}</head><body><p>請求書の宛名を変更できますか？ 至急ご連絡ください。</p></body></html>`);
    for (const raw of [nestedRaw, htmlRaw]) {
      const parsed = await parseInboundMail(raw);
      expect(questionWithSubject(parsed)).toBe(SUBJECT);
      expect(parsed.unreadable).toMatch(/^the mail's text was not read whole \(/);
    }
  });

  it('a cut beside another reason the agent cannot read the mail names both', async () => {
    const raw = mail(
      head(['Content-Type: multipart/mixed; boundary="t"']),
      `--t${CRLF}Content-Type: text/html; charset=utf-8${CRLF}${CRLF}<html><head>${STYLE_5MB}</head><body><p>x</p></body></html>${CRLF}--t${CRLF}Content-Type: application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m${CRLF}${CRLF}QUJD${CRLF}--t--`,
    );
    const parsed = await parseInboundMail(raw);
    expect(parsed.unreadable).toMatch(/^the mail's text was not read whole \(only the first 2,000,000 characters of its HTML were read\); /);
  });

  it.each([
    { name: 'multipart nested 500 deep (within the part limit)', raw: () => Buffer.from(head() + CRLF + nested(500)) },
    {
      name: 'HTML nested 50,000 deep: deeper tags are dropped, the text stays',
      raw: () => mail(head(['Content-Type: text/html; charset=utf-8']), `${'<div>'.repeat(50_000)}<p>${Q}</p>${'</div>'.repeat(50_000)}`),
    },
    {
      name: 'a 5 MB HTML alternative beside the plain text, which is what is read',
      raw: () =>
        mail(
          head(['Content-Type: multipart/alternative; boundary="a"']),
          `--a${CRLF}${textPart()}--a${CRLF}Content-Type: text/html; charset=utf-8${CRLF}${CRLF}<html><head>${STYLE_5MB}</head><body><p>${Q}</p></body></html>${CRLF}--a--`,
        ),
    },
    { name: 'a long plain text within every limit', raw: () => mail(head(['Content-Type: text/plain; charset=utf-8']), `${Q}${CRLF}${'log line of the import\r\n'.repeat(40_000)}`) },
  ])('nothing is cut: $name', async ({ raw }) => {
    const parsed = await parseInboundMail(raw());
    expect(parsed.unreadable).toBeUndefined();
    expect(parsed.question).toContain('パスワード');
  });

  it('the ticket records the cut as unreadable, which the agent worker parks before the agent', async () => {
    const raw = Buffer.from(head() + CRLF + nested(5000));
    const parsed = await parseInboundMail(raw);
    const input = ticketInputForMail(parsed, raw, { rawRef: 'redis:x' });
    expect(input.unreadable).toBe(`${TEXT_NOT_READ_WHOLE} (only its first 500 MIME parts were read)`);
    expect(input.note).toMatch(/more MIME parts than can be read/);
  });
});

describe('F2: a header section over the parser limit', () => {
  const cases = [
    { name: '100,000 header fields', raw: () => mail(head([...Array.from({ length: 100_000 }, (_, i) => `X-H${i}: v${i}`), 'Content-Type: text/plain; charset=utf-8']), Q) },
    { name: 'a 1 MB Subject folded 50,000 times', raw: () => mail(head(['Content-Type: text/plain; charset=utf-8'], { subject: 'word '.repeat(210_000).replace(/(.{21})/g, `$1${CRLF} `) }), Q) },
    {
      name: 'one 1 MB encoded-word in Subject and the From name',
      raw: () => {
        const word = `=?utf-8?B?${Buffer.from('パスワード'.repeat(60_000)).toString('base64')}?=`;
        return mail(head(['Content-Type: text/plain; charset=utf-8'], { subject: word, from: `${word} <c@customer.example>` }), Q);
      },
    },
  ];

  it.each(cases)('$name: the error says what is over which limit, without a prefix', async ({ raw }) => {
    const error = await parseInboundMail(raw()).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(MailParseError);
    expect((error as Error).message).toBe("its header section is over the parser's limit of 1 MB per MIME part (Max header size for a MIME node exceeded)");
  });

  it('the parked ticket says "unreadable mail" once and takes From, Reply-To and Subject from the IMAP envelope', async () => {
    const raw = cases[0]!.raw();
    const error = (await parseInboundMail(raw).catch((err: unknown) => err)) as Error;
    const envelope = {
      messageId: '<mime-limits@customer.example>',
      subject: SUBJECT,
      from: [{ name: 'Customer', address: 'c@customer.example' }],
      replyTo: [{ name: 'Desk', address: 'desk@customer.example' }],
    };
    const input = ticketInputForMail(undefined, raw, { rawRef: 'redis:x', parseError: error.message, envelope });
    expect(input).toMatchObject({
      state: 'parked',
      from: 'c@customer.example',
      fromName: 'Customer',
      replyTo: 'desk@customer.example',
      replyToName: 'Desk',
      subject: SUBJECT,
      reason: "unreadable mail: its header section is over the parser's limit of 1 MB per MIME part (Max header size for a MIME node exceeded)",
    });
    // Without an envelope (a caller that has none) the ticket stays without a sender, as before.
    expect(ticketInputForMail(undefined, raw, { rawRef: 'redis:x', parseError: error.message })).toMatchObject({ from: '', subject: '' });
  });

  it('an envelope address a reply may not go to is not taken', () => {
    const input = ticketInputForMail(undefined, Buffer.from('x'), {
      rawRef: 'redis:x',
      parseError: 'x',
      envelope: { subject: 's', from: [{ address: '"victim@bank.example,x"@customer.example' }] },
    });
    expect(input.from).toBe('');
  });
});

describe('F3: the sender cannot be told', () => {
  const config = parseConfig({ MAIL_FROM: 'Support <support@helpdesk.test>' });
  const holdOf = async (raw: Buffer) => {
    const parsed = await parseInboundMail(raw);
    const signals = replySignalsOf(parsed)!;
    return { parsed, hold: senderReviewReason({ from: parsed.from?.address ?? '', replyTo: parsed.replyTo?.address ?? parsed.from?.address ?? '' }, signals, config) };
  };
  const plain = ['Content-Type: text/plain; charset=utf-8'];

  it.each([
    {
      name: 'two From fields',
      raw: () => mail(head([...plain, 'From: Other <other@evil.example>']), Q),
      reason: 'the sender cannot be told: 2 From fields (c@customer.example, other@evil.example); RFC 5322 allows one, and a reply would go to the first',
    },
    {
      name: 'two From fields, the second the attacker',
      raw: () => mail(head([...plain, 'From: Attacker <x@attacker.example>'], { from: 'Bank <notice@bank.example>' }), Q),
      reason: 'the sender cannot be told: 2 From fields (notice@bank.example, x@attacker.example); RFC 5322 allows one, and a reply would go to the first',
    },
    {
      name: 'a From of 1,000 addresses and no Sender',
      raw: () => mail(head(plain, { from: Array.from({ length: 1000 }, (_, i) => `u${i} <u${i}@customer.example>`).join(`,${CRLF} `) }), Q),
      reason: 'the sender cannot be told: a From of 1,000 addresses (u0@customer.example, u1@customer.example, …); a reply would go to the first, and a Sender field does not choose it',
    },
    {
      name: 'a group in From with two addresses and no Sender',
      raw: () => mail(head(plain, { from: 'Undisclosed: a@customer.example, b@x.example;' }), Q),
      reason: 'the sender cannot be told: a From of 2 addresses (a@customer.example, b@x.example); a reply would go to the first, and a Sender field does not choose it',
    },
    {
      name: 'several From addresses beside a Sender naming one of them (RFC 5322 allows it; the reply still goes to the first)',
      raw: () => mail(head([...plain, 'Sender: b@customer.example'], { from: 'a@customer.example, b@customer.example' }), Q),
      reason: 'the sender cannot be told: a From of 2 addresses (a@customer.example, b@customer.example); a reply would go to the first, and a Sender field does not choose it',
    },
  ])('held: $name', async ({ raw, reason }) => {
    const { parsed, hold } = await holdOf(raw());
    expect(parsed.senderUnclear).toBe(reason);
    expect(hold).toEqual({ kind: 'unclear-sender', reason });
  });

  it.each([
    { name: 'one From, one address', raw: () => mail(head(plain), Q) },
    { name: 'a display name with a comma', raw: () => mail(head(plain, { from: '"Doe, John" <john@customer.example>' }), Q) },
    { name: 'a group of one address', raw: () => mail(head(plain, { from: 'Team: a@customer.example;' }), Q) },
    { name: 'a group of one address and an empty one', raw: () => mail(head(plain, { from: 'Team: a@customer.example;, undisclosed-recipients:;' }), Q) },
    { name: 'the same address written twice', raw: () => mail(head(plain, { from: 'A <a@customer.example>, a@Customer.example' }), Q) },
  ])('not held: $name', async ({ raw }) => {
    const { parsed, hold } = await holdOf(raw());
    expect(parsed.senderUnclear).toBeUndefined();
    expect(hold).toBeUndefined();
  });
});

/**
 * Bug review 42b: ordinary mail the limits above parked or let through.
 * - F2: an HTML-only mail with a pasted screenshot (a `data:` image, ~2 MB of base64) after the customer's words was
 *   parked as not read whole; an inline image is no text, so its payload is dropped before the HTML cut, and what a cut
 *   leaves out counts only when it holds visible text.
 * - F3: the cut of text read again in its real charset counted the bytes of an HTML alternative that is never read.
 * - F6: any Sender field, even an empty one, let a From of several addresses through, and `taro+shop@x` beside `taro@x`
 *   was two senders.
 */
describe('review 42b F2, F3: a pasted image is no unread text', () => {
  const sjis = (s: string) => iconv.encode(s, 'shift_jis');
  // A pasted screenshot as webmail editors, web forms and CRMs write it: ~2.16 MB of base64, all markup.
  const DATA_IMG = `<img src="data:image/png;base64,${'iVBORw0KGgoAAAANSUhEUgAA'.repeat(90_000)}" alt="screenshot">`;
  const HTML = `<html><body><p>${Q}</p>${DATA_IMG}<p>よろしくお願いします。</p></body></html>`;
  const alternative = (plain: Buffer, html: Buffer, charset: string) =>
    Buffer.concat([
      Buffer.from(`${head(['Content-Type: multipart/alternative; boundary="alt"'])}${CRLF}${CRLF}--alt${CRLF}Content-Type: text/plain; charset=${charset}${CRLF}Content-Transfer-Encoding: 8bit${CRLF}${CRLF}`),
      plain,
      Buffer.from(`${CRLF}--alt${CRLF}Content-Type: text/html; charset=${charset}${CRLF}Content-Transfer-Encoding: 8bit${CRLF}${CRLF}`),
      html,
      Buffer.from(`${CRLF}--alt--${CRLF}`),
    ]);

  it.each([
    { name: 'HTML-only mail: the words before (and a closing line after) a 2.16 MB data: image', raw: () => mail(head(['Content-Type: text/html; charset=utf-8']), HTML) },
    {
      name: 'HTML-only mail, the image in a CSS url() and a srcset beside it',
      raw: () => mail(head(['Content-Type: text/html; charset=utf-8']), HTML.replace('<img src=', `<div style="background:url('data:image/png;base64,${'AAAA'.repeat(300_000)}')"></div><img srcset="data:image/png;base64,${'BBBB'.repeat(300_000)} 2x" src=`)),
    },
    {
      name: 'HTML-only mail, the question and then 2.4 MB of empty markup (a cut that leaves out no visible text)',
      raw: () => mail(head(['Content-Type: text/html; charset=utf-8']), `<html><body><p>${Q}</p>${'<div class="spacer" style="height:1px">&nbsp;</div>\n'.repeat(40_000)}<!-- end --></body></html>`),
    },
    {
      name: 'HTML-only mail in an unknown charset, read again in the one its bytes are in: the image is no byte of text left out',
      raw: () => mail(head(['Content-Type: text/html; charset=x-unknown', 'Content-Transfer-Encoding: 8bit']), HTML),
    },
    { name: 'multipart/alternative in Shift_JIS labelled ISO-2022-JP: plain text whole, HTML with the image', raw: () => alternative(sjis(`${Q}${CRLF}よろしくお願いします。${CRLF}`), sjis(HTML), 'iso-2022-jp') },
    {
      name: 'multipart/alternative in an unknown charset: plain text whole and read, HTML with the image',
      raw: () => alternative(Buffer.from(`The login page shows error E-401 after the update. How can I fix it? ${Q}`), Buffer.from(HTML), 'x-unknown'),
    },
  ])('not parked: $name', async ({ raw }) => {
    const bytes = raw();
    expect(bytes.length).toBeGreaterThan(2_000_000);
    const parsed = await parseInboundMail(bytes);
    expect(parsed.question).toContain('パスワードをリセットする方法');
    expect(parsed.unreadable).toBeUndefined();
  });

  it.each([
    {
      name: 'HTML-only mail: a data: image, then 2.4 MB of visible log lines, then the question',
      raw: () => mail(head(['Content-Type: text/html; charset=utf-8']), `<html><body>${DATA_IMG}${'<p>import log line 0001 ok</p>\n'.repeat(80_000)}<p>${Q}</p></body></html>`),
      reason: `${TEXT_NOT_READ_WHOLE} (only the first 2,000,000 characters of its HTML were read)`,
    },
    {
      name: 'HTML-only mail: the question, 2.4 MB of empty markup, then a sentence',
      raw: () => mail(head(['Content-Type: text/html; charset=utf-8']), `<html><body><p>${Q}</p>${'<div class="spacer"></div>\n'.repeat(90_000)}<p>追伸：請求書の宛名も変えてください。</p></body></html>`),
      reason: `${TEXT_NOT_READ_WHOLE} (only the first 2,000,000 characters of its HTML were read)`,
    },
    {
      name: 'multipart/alternative in an unknown charset: the plain text read is over the limit of text read again',
      raw: () => alternative(Buffer.from(`${`${'x'.repeat(80)}${CRLF}`.repeat(14_000)}${Q}`), Buffer.from(`<p>${Q}</p>`), 'x-unknown'),
      reason: /^the mail's text was not read whole \(the last 99,\d{3} bytes of its text were not read: /,
    },
  ])('still parked: $name', async ({ raw, reason }) => {
    const parsed = await parseInboundMail(raw());
    if (typeof reason === 'string') expect(parsed.unreadable).toBe(reason);
    else expect(parsed.unreadable).toMatch(reason);
  });
});

describe('review 42b F6: several From addresses are held whatever the Sender says', () => {
  const rawOf = (hdr: string[]) => Buffer.from([...hdr, 'To: support@helpdesk.test', 'Subject: refund', 'Message-ID: <s42b@x.example>', 'Content-Type: text/plain; charset=utf-8', '', 'Please refund my order.', ''].join(CRLF));
  const several = 'the sender cannot be told: a From of 2 addresses (ceo@bank.example, me@evil.example); a reply would go to the first, and a Sender field does not choose it';
  it.each([
    { name: 'an empty Sender field', hdr: ['From: Bank <ceo@bank.example>, me@evil.example', 'Sender:'] },
    { name: 'a Sender naming none of the From addresses', hdr: ['From: Bank <ceo@bank.example>, me@evil.example', 'Sender: x@evil.example'] },
    { name: 'a Sender naming the second From address', hdr: ['From: Bank <ceo@bank.example>, me@evil.example', 'Sender: me@evil.example'] },
    { name: 'a Sender naming the first From address', hdr: ['From: Bank <ceo@bank.example>, me@evil.example', 'Sender: ceo@bank.example'] },
  ])('held: $name', async ({ hdr }) => {
    expect((await parseInboundMail(rawOf(hdr))).senderUnclear).toBe(several);
  });
  it.each([
    { name: 'one customer written twice with a +tag', hdr: ['From: taro+shop@customer.example, Taro <taro@customer.example>'] },
    { name: 'one customer in full-width letters and ASCII', hdr: ['From: ｔａｒｏ@customer.example, taro@Customer.example', 'Sender: taro@customer.example'] },
  ])('one sender: $name', async ({ hdr }) => {
    expect((await parseInboundMail(rawOf(hdr))).senderUnclear).toBeUndefined();
  });
});

/**
 * Bug review 42c: the HTML cut and the data: payloads of 8a8bade.
 * - F5: what the cut at 2,000,000 characters leaves out was judged "no visible text" after an empty comment (`<!-->`,
 *   `<!--->`) or an end tag with attributes (`</style x>`, `</script foo>`, `</title a>`), which html-to-text shows as
 *   text: the customer's last line was dropped with only a warning instead of the mail being parked.
 * - F6: a `data:` URI's payload was dropped from the text itself (`key=data:,お振込先は…`), not only from attributes and
 *   `<style>`: customer-visible words vanished.
 */
describe('review 42c F5, F6: visible text after the HTML cut, data: in text', () => {
  const htmlMail = (html: string, charset = 'utf-8') => mail(head([`Content-Type: text/html; charset=${charset}`]), html);
  const PAD = '<div class="spacer"></div>\n'.repeat(90_000); // ~2.4 MB of markup
  const TAIL = '追伸：請求書の宛名も山田商事に変えてください。';
  const cutReason = `${TEXT_NOT_READ_WHOLE} (only the first 2,000,000 characters of its HTML were read)`;

  it.each([
    { name: 'an abrupt empty comment <!--> before the tail, a comment after it', html: `<!--><p>${TAIL}</p><!-- end -->` },
    { name: 'an empty comment <!---> before the tail', html: `<!---><p>${TAIL}</p><!-- end -->` },
    { name: '</style x>: an end tag with an attribute', html: `<style>p{}</style x><p>${TAIL}</p><style></style>` },
    { name: '</script foo>', html: `<script>x</script foo><p>${TAIL}</p><script></script>` },
    { name: '</title a>', html: `<title>x</title a><p>${TAIL}</p><title></title>` },
    { name: '</style\\n> and </style/>', html: `<style>p{}</style\n><p>${TAIL}</p><style></style/><p>${TAIL}</p><style></style>` },
  ])('parked: the question, 2.4 MB of empty markup, then $name', async ({ html }) => {
    const parsed = await parseInboundMail(htmlMail(`<p>${Q}</p>${PAD}${html}`));
    expect(parsed.unreadable).toBe(cutReason);
  });

  it('not parked: hidden parts after the cut stay hidden (a comment, <style>, <script>, <title>)', async () => {
    const html = `<p>${Q}</p>${PAD}<!-- ${TAIL} --><style>p{}/* ${TAIL} */</style ><script>"${TAIL}"</script><title>${TAIL}</title>`;
    const parsed = await parseInboundMail(htmlMail(html));
    expect(parsed.unreadable).toBeUndefined();
  });

  it.each([
    { name: 'key=data:, in a paragraph', html: '<p>設定値は key=data:,お振込先は三井住友銀行の普通口座に変更になりました。至急ご確認ください</p>', words: 'お振込先は三井住友銀行' },
    { name: 'url(data:,…) in a paragraph', html: '<p>CSS: background: url(data:,この文は読まれない) です</p>', words: 'この文は読まれない' },
    { name: 'after a tag with a quote in an unquoted value', html: '<p>Q?</p><a b=x"y>設定 key=data:,振込先口座を変更</a>', words: '振込先口座を変更' },
    { name: 'after a quoted attribute holding ">"', html: '<img alt="a>b" src="data:image/png;base64,AAAA">value=data:,口座番号は1234567です', words: '口座番号は1234567' },
    { name: 'after a comment holding an unclosed quote', html: '<!-- <a title=" --><p>key=data:,振込先口座を変更</p>', words: '振込先口座を変更' },
  ])('text kept: $name', async ({ html, words }) => {
    const parsed = await parseInboundMail(htmlMail(html));
    expect(parsed.text).toContain(words);
  });

  it('not parked: data: payloads in attributes, CSS url() and <style> are still dropped before the cut', async () => {
    const img = `<img src="data:image/png;base64,${'AAAA'.repeat(200_000)}" alt="">`;
    const style = `<style>div{background:url(data:image/png;base64,${'BBBB'.repeat(200_000)})}</style>`;
    const div = `<div style='background:url("data:image/png;base64,${'CCCC'.repeat(200_000)}")'></div>`;
    const parsed = await parseInboundMail(htmlMail(`<p>${Q}</p>${img}${style}${div}<p>${TAIL}</p>`));
    expect(parsed.unreadable).toBeUndefined();
    expect(parsed.text).toContain(TAIL);
  });

  it('parked: text after data:, over the budget of HTML read again in its real charset is text left out', async () => {
    const parsed = await parseInboundMail(htmlMail(`<p>${Q}</p><p>key=data:,${'あ'.repeat(700_000)}</p>`, 'x-unknown'));
    expect(parsed.unreadable).toMatch(/^the mail's text was not read whole/);
  });
});
