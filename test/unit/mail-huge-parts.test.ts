import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { MAX_RELABELLED_TEXT_BYTES, decodeBytes, relabelTextParts, textPartBytesToDecode, textPartCharset } from '../../src/mail/charsets.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { encodeIso2022Jp } from '../support/iso-2022-jp.js';

// A mail's text parts are read again in their own charset only as far as the product can use them: the ticket keeps
// 20,000 characters. Read whole, an 8 MB part of high bytes held the IMAP poller for ten seconds.
const MAX = MAX_RELABELLED_TEXT_BYTES;
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

describe('relabelTextParts: at most MAX_RELABELLED_TEXT_BYTES of text read again', () => {
  it.each<[string, Buffer, number]>([
    ['an 8 MB part of high bytes without a charset', mail('text/plain', Buffer.alloc(8_000_000, 0x82)), 8_000_000],
    ['three parts of 600 KB of Shift_JIS without a charset', multipart([0, 1, 2].map(() => lines(sjis(JA), 600_000))), 3 * lines(sjis(JA), 600_000).length],
  ])('%s', async (_what, raw, textBytes) => {
    const relabelled = await relabelTextParts(raw);
    expect(relabelled).toBeDefined();
    expect(relabelled!.bytesLeftOut).toBeGreaterThanOrEqual(textBytes - MAX);
    expect(relabelled!.bytesLeftOut).toBeLessThan(textBytes - MAX / 2);
    // In base64 (four characters for three bytes, a line break every 76): quoted-printable took up to 3.75 for one.
    expect(relabelled!.raw.length).toBeLessThan(1.4 * MAX + 4_096);
  });

  it('leaves out nothing of a mail within the bound', async () => {
    const relabelled = await relabelTextParts(mail('text/plain', lines(sjis(JA), MAX / 2)));
    expect(relabelled!.bytesLeftOut).toBe(0);
  });
});

describe('parseInboundMail: a text part larger than what is read again', () => {
  it.each<[string, Buffer, string, string]>([
    ['3 MB of Shift_JIS without a charset', mail('text/plain', lines(sjis(JA), 3 * MAX)), JA, 'text without a charset was read as shift_jis'],
    ['3 MB of ISO-2022-JP without a charset', mail('text/plain', lines(encodeIso2022Jp(JA), 3 * MAX)), JA, 'text without a charset was read as iso-2022-jp'],
    ['3 MB of Shift_JIS HTML without a charset', mail('text/html', lines(Buffer.concat([Buffer.from('<p>'), sjis(JA), Buffer.from('</p>')]), 3 * MAX)), JA, 'text without a charset was read as shift_jis'],
    ['three parts of 600 KB of Shift_JIS', multipart([0, 1, 2].map(() => lines(sjis(JA), 600_000))), JA, 'text without a charset was read as shift_jis'],
  ])('%s: a ticket that starts with the text, and says the rest was left out', async (_what, raw, first, note) => {
    const parsed = await parseInboundMail(raw);
    expect(parsed.text.startsWith(`${first}\n`)).toBe(true);
    expect(parsed.text).not.toContain('\ufffd');
    expect(parsed.text.length).toBeLessThanOrEqual(MAX);
    expect(parsed.question.startsWith(first)).toBe(true);
    expect(parsed.charsetProblems).toEqual([expect.stringContaining(note)]);
    expect(parsed.parseWarnings).toEqual([expect.stringMatching(/cut to at most 1,048,576 bytes/)]);
  });

  it('reads an 8 MB part of high bytes without a charset as far as the bound, and still makes a ticket of it', async () => {
    const parsed = await parseInboundMail(mail('text/plain', Buffer.alloc(8_000_000, 0x82)), { maxBytes: 10 * 1024 * 1024 });
    expect(parsed.text.length).toBeLessThanOrEqual(MAX);
    expect(parsed.parseWarnings).toEqual([expect.stringMatching(/cut to at most 1,048,576 bytes/)]);
  });
});
