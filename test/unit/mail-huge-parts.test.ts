import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { decodeBytes, relabelTextParts, textPartBytesToDecode, textPartCharset } from '../../src/mail/charsets.js';
import { MAX_RELABELLED_HTML_BYTES, MAX_RELABELLED_TEXT_BYTES, parseInboundMail } from '../../src/mail/parse.js';
import { encodeIso2022Jp } from '../support/iso-2022-jp.js';

// A mail's text parts are read again in their own charset only as far as the product can use them: the ticket keeps
// 20,000 characters of plain text, and converts 2,000,000 characters of HTML. Read whole, an 8 MB part of high bytes
// held the IMAP poller for ten seconds.
const MAX = MAX_RELABELLED_TEXT_BYTES;
const MAX_HTML = MAX_RELABELLED_HTML_BYTES;
const BUDGET = { plain: MAX, html: MAX_HTML };
const JA = 'パスワードを忘れました。再設定の方法を教えてください。';
const FR = 'Bonjour, je ne peux pas me connecter à mon compte. Où est le réglage ?';
const sjis = (text: string) => iconv.encode(text, 'shift_jis');
/** `line` repeated (CRLF after each) until the bytes exceed `size`. */
const lines = (line: Buffer, size: number) => Buffer.concat(Array.from({ length: Math.ceil(size / (line.length + 2)) }, () => Buffer.concat([line, Buffer.from('\r\n')])));

describe('textPartBytesToDecode', () => {
  it.each<[string, Buffer, string | undefined, string]>([
    ['Shift_JIS lines', lines(sjis(JA), 3 * MAX), undefined, 'shift_jis'],
    ['EUC-JP lines under us-ascii', lines(iconv.encode(JA, 'euc-jp'), 3 * MAX), 'us-ascii', 'euc-jp'],
    // Cut inside a line, the kanji shift would be left open, or its escape sequence split.
    ['ISO-2022-JP lines', lines(encodeIso2022Jp(JA), 3 * MAX), undefined, 'iso-2022-jp'],
    ['Latin-1 lines', lines(iconv.encode(FR, 'latin1'), 3 * MAX), undefined, 'windows-1252'],
    // One line of minified HTML: cut after a space, never inside a character.
    ['UTF-8 on one line', Buffer.from(`<p>${JA} ${FR}</p> `.repeat(Math.ceil((3 * MAX) / 160))), 'iso-8859-1', 'utf-8'],
    ['UTF-16LE lines', Buffer.from(`${JA}\r\n`.repeat(Math.ceil((3 * MAX) / 58)), 'utf16le'), 'utf-16le', 'utf-16le'],
    ['UTF-16BE lines', iconv.encode(`${JA}\r\n`.repeat(Math.ceil((3 * MAX) / 58)), 'utf-16be'), 'utf-16be', 'utf-16be'],
  ])('%s: cut at a line or word end within the bound, read as the whole part reads', (_what, bytes, label, charset) => {
    const kept = textPartBytesToDecode(bytes, MAX, label);
    expect(kept.length).toBeLessThanOrEqual(MAX);
    expect(kept.length).toBeGreaterThan(MAX / 2);
    expect(bytes.subarray(0, kept.length).equals(kept)).toBe(true);
    const text = decodeBytes(kept, charset)!;
    expect(text).not.toContain('\ufffd');
    expect(decodeBytes(bytes, charset)!.startsWith(text)).toBe(true);
    expect(textPartCharset(kept, label)).toBe(textPartCharset(bytes, label));
  });

  it('cuts a part without a line or word end at the bound', () => {
    expect(textPartBytesToDecode(Buffer.alloc(8_000_000, 0x82), MAX, undefined).length).toBeLessThanOrEqual(MAX);
  });

  it('keeps a part within the bound whole', () => {
    const bytes = lines(sjis(JA), MAX / 4);
    expect(textPartBytesToDecode(bytes, MAX, undefined)).toBe(bytes);
  });
});

const HEAD = ['From: Taro <taro@customer.example>', 'To: support@support.example', 'Subject: help', 'Message-ID: <huge-1@customer.example>', 'MIME-Version: 1.0'].join('\r\n');
const mail = (contentType: string, body: Buffer) => Buffer.concat([Buffer.from(`${HEAD}\r\nContent-Type: ${contentType}\r\n\r\n`), body]);
const multipart = (parts: Buffer[]) =>
  mail(
    'multipart/mixed; boundary="b"',
    Buffer.concat([...parts.flatMap((part) => [Buffer.from('--b\r\nContent-Type: text/plain\r\n\r\n'), part, Buffer.from('\r\n')]), Buffer.from('--b--\r\n')]),
  );

describe('relabelTextParts: at most MAX_RELABELLED_TEXT_BYTES of plain text read again', () => {
  it.each<[string, Buffer, number]>([
    ['an 8 MB part of high bytes without a charset', mail('text/plain', Buffer.alloc(8_000_000, 0x82)), 8_000_000],
    ['three parts of 600 KB of Shift_JIS without a charset', multipart([0, 1, 2].map(() => lines(sjis(JA), 600_000))), 3 * lines(sjis(JA), 600_000).length],
  ])('%s', async (_what, raw, textBytes) => {
    const relabelled = await relabelTextParts(raw, BUDGET);
    expect(relabelled).toBeDefined();
    expect(relabelled!.bytesLeftOut).toBeGreaterThanOrEqual(textBytes - MAX);
    expect(relabelled!.bytesLeftOut).toBeLessThan(textBytes - MAX / 2);
    // In base64 (four characters for three bytes, a line break every 76): quoted-printable took up to 3.75 for one.
    expect(relabelled!.raw.length).toBeLessThan(1.4 * MAX + 4_096);
  });

  it('leaves out nothing of a mail within the bound', async () => {
    const relabelled = await relabelTextParts(mail('text/plain', lines(sjis(JA), MAX / 2)), BUDGET);
    expect(relabelled!.bytesLeftOut).toBe(0);
  });

  it('reads an HTML part again as far as MAX_RELABELLED_HTML_BYTES, apart from the plain text', async () => {
    const html = lines(Buffer.concat([Buffer.from('<p>'), sjis(JA), Buffer.from('</p>')]), 0.9 * MAX_HTML);
    const plain = lines(sjis(JA), 3 * MAX);
    const raw = mail(
      'multipart/alternative; boundary="b"',
      Buffer.concat([Buffer.from('--b\r\nContent-Type: text/plain\r\n\r\n'), plain, Buffer.from('\r\n--b\r\nContent-Type: text/html\r\n\r\n'), html, Buffer.from('\r\n--b--\r\n')]),
    );
    const relabelled = await relabelTextParts(raw, BUDGET);
    expect(relabelled!.repairs).toEqual([
      { declared: undefined, charset: 'shift_jis' },
      { declared: undefined, charset: 'shift_jis' },
    ]);
    expect(relabelled!.bytesLeftOut).toBeGreaterThanOrEqual(plain.length - MAX);
    expect(relabelled!.bytesLeftOut).toBeLessThan(plain.length - MAX / 2);
  });
});

describe('parseInboundMail: a text part larger than what is read again', () => {
  const cut = expect.stringMatching(/cut to at most 1,048,576 bytes of plain text and 2,000,000 bytes of HTML in all; the [\d,]+ bytes after the cut were not read/);
  const sjisHtml = lines(Buffer.concat([Buffer.from('<p>'), sjis(JA), Buffer.from('</p>')]), MAX_HTML + MAX);
  it.each<[string, Buffer, string, number, unknown[]]>([
    ['3 MB of Shift_JIS without a charset', mail('text/plain', lines(sjis(JA), 3 * MAX)), 'shift_jis', MAX, [cut]],
    ['3 MB of ISO-2022-JP without a charset', mail('text/plain', lines(encodeIso2022Jp(JA), 3 * MAX)), 'iso-2022-jp', MAX, [cut]],
    // Read again as far as the 2,000,000 characters of HTML that are converted to text take in ASCII, and no further.
    ['3 MB of Shift_JIS HTML without a charset', mail('text/html', sjisHtml), 'shift_jis', MAX_HTML, [cut]],
    ['three parts of 600 KB of Shift_JIS', multipart([0, 1, 2].map(() => lines(sjis(JA), 600_000))), 'shift_jis', MAX, [cut]],
  ])('%s: a ticket that starts with the text, and says the rest was left out', async (_what, raw, charset, bound, warnings) => {
    const parsed = await parseInboundMail(raw);
    expect(parsed.text.startsWith(`${JA}\n`)).toBe(true);
    expect(parsed.text).not.toContain('\ufffd');
    expect(parsed.text.length).toBeLessThanOrEqual(bound);
    expect(parsed.question.startsWith(JA)).toBe(true);
    expect(parsed.charsetProblems).toEqual([expect.stringContaining(`text without a charset was read as ${charset}`)]);
    expect(parsed.parseWarnings).toEqual(warnings);
  });

  it('reads an 8 MB part of high bytes without a charset as far as the bound, and still makes a ticket of it', async () => {
    const parsed = await parseInboundMail(mail('text/plain', Buffer.alloc(8_000_000, 0x82)), { maxBytes: 10 * 1024 * 1024 });
    expect(parsed.text.length).toBeLessThanOrEqual(MAX);
    expect(parsed.parseWarnings).toEqual([expect.stringMatching(/cut to at most 1,048,576 bytes of plain text/)]);
  });
});

/** Quoted-printable with soft line breaks, as a mailer writes it. */
const quotedPrintable = (bytes: Buffer) => {
  const lines: string[] = [];
  let line = '';
  for (const b of bytes) {
    const token = b >= 33 && b <= 126 && b !== 61 ? String.fromCharCode(b) : `=${b.toString(16).toUpperCase().padStart(2, '0')}`;
    if (line.length + token.length > 75) {
      lines.push(`${line}=`);
      line = '';
    }
    line += token;
  }
  return Buffer.from([...lines, line].join('\r\n'));
};

describe('relabelTextParts: the charset is judged on all of a part', () => {
  // The first MiB says nothing of the charset; the words after it do.
  const asciiLines = lines(Buffer.from('Order 12345: shipped on 2024-01-01 from the Osaka warehouse.'), 1.5 * MAX);
  it.each<[string, Buffer, string | undefined, string]>([
    ['UTF-8 after 1.5 MB of ASCII, labelled iso-8859-1', Buffer.from(JA), 'iso-8859-1', 'utf-8'],
    ['Shift_JIS after 1.5 MB of ASCII, without a charset', sjis(JA), undefined, 'shift_jis'],
    ['EUC-JP after 1.5 MB of ASCII, labelled us-ascii', iconv.encode(JA, 'euc-jp'), 'us-ascii', 'euc-jp'],
  ])('%s', async (_what, tail, label, charset) => {
    const raw = mail(`text/plain${label ? `; charset=${label}` : ''}`, Buffer.concat([asciiLines, tail, Buffer.from('\r\n')]));
    const relabelled = await relabelTextParts(raw, BUDGET);
    expect(relabelled?.repairs).toEqual([{ declared: label, charset }]);
  });
});

describe('parseInboundMail: an HTML part is read again as far as its HTML is converted to text', () => {
  // A pasted screenshot is a data: URI of plain ASCII, often over a megabyte, before the customer's words.
  const image = `<p><img src="data:image/png;base64,${'A'.repeat(1_200_000)}"></p>`;
  const htmlMail = (html: string, encoding: '8bit' | 'quoted-printable') =>
    mail(
      `text/html; charset=iso-8859-1\r\nContent-Transfer-Encoding: ${encoding}`,
      encoding === '8bit' ? Buffer.from(html) : quotedPrintable(Buffer.from(html)),
    );
  it.each<[string, string, '8bit' | 'quoted-printable']>([
    ['a 1.2 MB data: image before the question', `<html><body>${image}<p>${JA}</p></body></html>`, '8bit'],
    ['a 1.2 MB data: image before the question, quoted-printable', `<html><body>${image}<p>${JA}</p></body></html>`, 'quoted-printable'],
    ['a greeting, a 1.2 MB data: image, then the question', `<html><body><p>こんにちは</p>${image}<p>${JA}</p></body></html>`, '8bit'],
    ['a greeting, a 1.2 MB data: image, then the question, quoted-printable', `<html><body><p>こんにちは</p>${image}<p>${JA}</p></body></html>`, 'quoted-printable'],
  ])('UTF-8 labelled iso-8859-1, %s: the question is read whole, in UTF-8', async (_what, html, encoding) => {
    const parsed = await parseInboundMail(htmlMail(html, encoding));
    expect(parsed.question).toContain(JA);
    expect(parsed.text).not.toContain('\ufffd');
    expect(parsed.charsetProblems).toEqual([expect.stringContaining('declared as iso-8859-1 was read as utf-8')]);
    expect(parsed.parseWarnings).toEqual([]);
  });
});
