import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { looksMisdecoded, textPartCharset } from '../../src/mail/charsets.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { encodeIso2022Jp } from '../support/iso-2022-jp.js';

const JA = 'パスワードを忘れました。再設定の方法を教えてください。';
const FR = 'Bonjour, je ne peux pas me connecter à mon compte. Où est le réglage ?';
const sjis = (text: string) => iconv.encode(text, 'shift_jis');

describe('textPartCharset', () => {
  it.each<[string, Buffer, string | undefined, string | undefined]>([
    ['UTF-8 under its label', Buffer.from(JA), 'utf-8', undefined],
    ['ASCII under any label', Buffer.from('How do I export?'), 'iso-8859-1', undefined],
    ['Shift_JIS under its label', sjis(JA), 'shift_jis', undefined],
    ['Latin-1 under its label', iconv.encode(FR, 'latin1'), 'iso-8859-1', undefined],
    // Old Japanese mailers send 7-bit ISO-2022-JP without a label; its escapes show up as text.
    ['ISO-2022-JP without a label', encodeIso2022Jp(JA), undefined, 'iso-2022-jp'],
    ['ISO-2022-JP under us-ascii', encodeIso2022Jp(JA), 'us-ascii', 'iso-2022-jp'],
    ['ISO-2022-JP under its label', encodeIso2022Jp(JA), 'ISO-2022-JP', undefined],
    // Microsoft's names of ISO-2022-JP, which neither iconv-lite nor mailparser knows.
    ['ISO-2022-JP under cp50220', encodeIso2022Jp(JA), 'cp50220', 'iso-2022-jp'],
    // Well-formed UTF-8 is UTF-8 whatever the label says: web forms label it ISO-8859-1, some mailers Shift_JIS.
    ['UTF-8 labelled ISO-8859-1', Buffer.from(JA), 'iso-8859-1', 'utf-8'],
    ['UTF-8 labelled Shift_JIS', Buffer.from(JA), 'shift_jis', 'utf-8'],
    ['UTF-8 under an unknown label', Buffer.from(JA), 'unknown-8bit', 'utf-8'],
    ['Shift_JIS without a label', sjis(JA), undefined, 'shift_jis'],
    ['Shift_JIS labelled UTF-8', sjis(JA), 'utf-8', 'shift_jis'],
    ['EUC-JP labelled us-ascii', iconv.encode(JA, 'euc-jp'), 'us-ascii', 'euc-jp'],
    ['EUC-JP labelled Shift_JIS (not valid in it)', iconv.encode(JA, 'euc-jp'), 'shift_jis', 'euc-jp'],
    ['Latin-1 without a label', iconv.encode(FR, 'latin1'), undefined, 'windows-1252'],
    ['Latin-1 under unknown-8bit', iconv.encode(FR, 'latin1'), 'unknown-8bit', 'windows-1252'],
    // A UTF-8 text with one stray Latin-1 byte (a gateway's footer) stays UTF-8: reading it all as Latin-1 garbles it.
    ['UTF-8 with a stray byte', Buffer.concat([Buffer.from('Réglage du compte, page 2. '), Buffer.from([0xe9]), Buffer.from(' fin')]), 'utf-8', undefined],
    // Noise stays noise, for the unreadable-mail check to park.
    ['binary noise', Buffer.from(Array.from({ length: 400 }, (_, i) => (i * 7919 + 13) % 256)), 'utf-8', undefined],
    ['UTF-16 is never relabelled', Buffer.from(JA, 'utf16le'), 'utf-16le', undefined],
    // ISO-2022-JP with a stray 8-bit byte or two stays ISO-2022-JP (review 43b): read in another charset, all of its
    // Japanese became `$B$*@$…`.
    ['ISO-2022-JP with a raw no-break space', Buffer.concat([encodeIso2022Jp(JA), Buffer.from('Tel:\xa003-1234-5678', 'latin1')]), 'iso-2022-jp', undefined],
    ['ISO-2022-JP with a UTF-8 character', Buffer.concat([encodeIso2022Jp(JA), Buffer.from('\u2460 café')]), 'ISO-2022-JP', undefined],
    ['ISO-2022-JP with a Shift_JIS signature', Buffer.concat([encodeIso2022Jp(JA), sjis('山田')]), 'iso-2022-jp', undefined],
    // Without its shifts it is no ISO-2022-JP at all: the bytes' own charset.
    ['Shift_JIS labelled ISO-2022-JP', sjis(JA), 'iso-2022-jp', 'shift_jis'],
  ])('%s', (_what, bytes, label, expected) => {
    expect(textPartCharset(bytes, label)).toBe(expected);
  });
});

describe('parseInboundMail: ISO-2022-JP with a stray 8-bit byte', () => {
  const mail = (body: Buffer) =>
    Buffer.concat([
      Buffer.from(['From: Taro <taro@customer.example>', 'To: support@support.example', 'Subject: test', 'Message-ID: <jis-stray@customer.example>', 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=ISO-2022-JP', '', ''].join('\r\n')),
      body,
    ]);
  it.each<[string, Buffer]>([
    ['a raw no-break space', Buffer.from('\r\nTel:\xa003-1234-5678\r\n', 'latin1')],
    ['a UTF-8 character', Buffer.from('\r\n\u2460 café\r\n')],
    ['a Shift_JIS signature', Buffer.concat([Buffer.from('\r\n'), sjis('山田'), Buffer.from('\r\n')])],
  ])('reads its Japanese with %s after it', async (_what, tail) => {
    const parsed = await parseInboundMail(mail(Buffer.concat([encodeIso2022Jp(JA), tail])));
    expect(parsed.text).toContain(JA);
    expect(parsed.charsetProblems ?? []).toEqual([]);
  });
});

describe('looksMisdecoded', () => {
  it.each<[string, string, boolean]>([
    ['clean Japanese', JA, false],
    ['clean French', FR, false],
    ['undecodable bytes', 'Caf\ufffd', true],
    ['ISO-2022-JP escapes left in the text', '\u001b$B%Q%9%o!<%I\u001b(B', true],
    ['UTF-8 read as Latin-1', 'rÃ©glage', true],
    ['UTF-8 read as Windows-1252', 'donâ€™t', true],
  ])('%s', (_what, text, expected) => {
    expect(looksMisdecoded(text)).toBe(expected);
  });
});

// The whole path: mailparser reads the mail, the text looks wrong, the text parts are relabelled and read again.
describe('parseInboundMail: text in another charset than its label', () => {
  const mail = (contentType: string, body: Buffer, transfer = '8bit') =>
    Buffer.concat([
      Buffer.from(
        ['From: Taro <taro@customer.example>', 'To: support@support.example', 'Subject: =?UTF-8?B?44OR44K544Ov44O844OJ?=', 'Message-ID: <charset-1@customer.example>', 'MIME-Version: 1.0', `Content-Type: ${contentType}`, `Content-Transfer-Encoding: ${transfer}`, '', ''].join('\r\n'),
      ),
      body,
    ]);

  it.each<[string, Buffer, string, string]>([
    ['Shift_JIS without a label', mail('text/plain', sjis(JA)), JA, 'text without a charset was read as shift_jis'],
    ['ISO-2022-JP without a label', mail('text/plain', encodeIso2022Jp(JA), '7bit'), JA, 'text without a charset was read as iso-2022-jp'],
    ['UTF-8 labelled ISO-8859-1', mail('text/plain; charset=iso-8859-1', Buffer.from(JA)), JA, 'text declared as iso-8859-1 was read as utf-8'],
    ['Latin-1 under unknown-8bit', mail('text/plain; charset=unknown-8bit', iconv.encode(FR, 'latin1')), FR, 'text declared as unknown-8bit was read as windows-1252'],
    ['Shift_JIS labelled UTF-8, base64', mail('text/plain; charset=utf-8', Buffer.from(sjis(JA).toString('base64')), 'base64'), JA, 'text declared as utf-8 was read as shift_jis'],
    // mailparser's ISO-2022-JP decoder reads these bytes as plausible kanji and kana, with no replacement character.
    ['HTML-only Shift_JIS labelled ISO-2022-JP', mail('text/html; charset=ISO-2022-JP', sjis(`<html><body><p>${JA}</p></body></html>`)), JA, 'text declared as iso-2022-jp was read as shift_jis'],
    ['Shift_JIS labelled ISO-2022-JP', mail('text/plain; charset=iso-2022-jp', sjis(`お世話になっております。${JA}`)), `お世話になっております。${JA}`, 'text declared as iso-2022-jp was read as shift_jis'],
    ['Shift_JIS labelled ISO-2022-JP, base64', mail('text/html; charset="ISO-2022-JP"', Buffer.from(sjis(`<p>${JA}</p>`).toString('base64')), 'base64'), JA, 'text declared as iso-2022-jp was read as shift_jis'],
    ['EUC-JP labelled ISO-2022-JP', mail('text/plain; charset=ISO-2022-JP', iconv.encode(JA, 'euc-jp')), JA, 'text declared as iso-2022-jp was read as euc-jp'],
    [
      'in an HTML part of a multipart mail, the attachment untouched',
      mail(
        'multipart/mixed; boundary="b"',
        Buffer.concat([
          Buffer.from('--b\r\nContent-Type: text/html\r\n\r\n<p>'),
          sjis(JA),
          Buffer.from('</p>\r\n--b\r\nContent-Type: application/octet-stream; name="a.bin"\r\nContent-Disposition: attachment; filename="a.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\nAAECAwQ=\r\n--b--\r\n'),
        ]),
      ),
      JA,
      'text without a charset was read as shift_jis',
    ],
  ])('%s', async (_what, raw, text, note) => {
    const parsed = await parseInboundMail(raw);
    expect(parsed.text.trim()).toBe(text);
    expect(parsed.unreadable).toBeUndefined();
    expect(parsed.charsetProblems).toEqual([expect.stringContaining(note)]);
    expect(parsed.subject).toBe('パスワード');
  });

  it('keeps the attachment of a relabelled mail as it was', async () => {
    const raw = mail(
      'multipart/mixed; boundary="b"',
      Buffer.concat([
        Buffer.from('--b\r\nContent-Type: text/plain\r\n\r\n'),
        sjis(JA),
        Buffer.from('\r\n--b\r\nContent-Type: application/octet-stream; name="a.bin"\r\nContent-Disposition: attachment; filename="a.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\nAAECAwQ=\r\n--b--\r\n'),
      ]),
    );
    const parsed = await parseInboundMail(raw);
    expect(parsed.attachments).toEqual([{ filename: 'a.bin', contentType: 'application/octet-stream', size: 5 }]);
  });

  it('leaves noise undecodable, and the unreadable-mail check parks it', async () => {
    const noise = Buffer.from(Array.from({ length: 400 }, (_, i) => (i * 7919 + 13) % 256));
    const parsed = await parseInboundMail(mail('text/plain; charset=utf-8', noise));
    expect(parsed.unreadable).toMatch(/could not be decoded/);
  });
});

// A display name of kanji only is valid Shift_JIS and valid GB18030 alike; without a kana to tell, the header alone
// reads as Chinese. The rest of the mail tells: its other raw headers, or the Japanese charset it declares.
describe('parseInboundMail: raw 8-bit display names of kanji only', () => {
  const raw = (from: Buffer, subject: Buffer, contentType: string, body: Buffer) =>
    Buffer.concat([
      Buffer.from('From: '),
      from,
      Buffer.from(' <taro@customer.example>\r\nTo: support@support.example\r\nSubject: '),
      subject,
      Buffer.from(`\r\nMessage-ID: <name-1@customer.example>\r\nMIME-Version: 1.0\r\nContent-Type: ${contentType}\r\n\r\n`),
      body,
      Buffer.from('\r\n'),
    ]);
  const enc = (text: string, charset: string) => iconv.encode(text, charset);

  it.each<[string, Buffer, string, string]>([
    // The audit's sample: an ASCII subject, the body in ISO-2022-JP (7-bit, so no help for 8-bit bytes itself).
    ['Shift_JIS, the body declared ISO-2022-JP', raw(sjis('髙橋太郎'), Buffer.from('test'), 'text/plain; charset=ISO-2022-JP', encodeIso2022Jp('パスワードを忘れました。')), '髙橋太郎', 'test'],
    ['Shift_JIS, a Shift_JIS subject with kana, a UTF-8 body', raw(sjis('山田太郎'), sjis('ログインできません'), 'text/plain; charset=utf-8', Buffer.from('本文です。')), '山田太郎', 'ログインできません'],
    ['EUC-JP, an EUC-JP subject with kana, an ASCII body', raw(enc('山田太郎', 'euc-jp'), enc('ログインできません', 'euc-jp'), 'text/plain; charset=us-ascii', Buffer.from('hello')), '山田太郎', 'ログインできません'],
    // Genuinely Chinese headers stay Chinese.
    ['GB2312, a GB2312 subject, an ASCII body', raw(enc('王小明', 'gb2312'), enc('无法登录系统', 'gb2312'), 'text/plain; charset=us-ascii', Buffer.from('hello')), '王小明', '无法登录系统'],
    ['GB2312, an ASCII subject, a GB2312 body', raw(enc('王小明', 'gb2312'), Buffer.from('test'), 'text/plain; charset=gb2312', enc('请帮忙。', 'gb2312')), '王小明', 'test'],
    ['Big5, a Big5 subject, a Big5 body', raw(enc('陳大文', 'big5'), enc('帳號無法登入', 'big5'), 'text/plain; charset=big5', enc('請協助。', 'big5')), '陳大文', '帳號無法登入'],
  ])('%s', async (_what, mail, name, subject) => {
    const parsed = await parseInboundMail(mail);
    expect(parsed.from).toEqual({ address: 'taro@customer.example', name });
    expect(parsed.subject).toBe(subject);
  });
});
