/**
 * ISO-2022-JP codes that mailparser's decoder (encoding-japanese) turns into a plain `?` with no sign of a loss, found
 * by real-world mail round 9 (review 45b): NEC row 13's ≒ ≡ ∫ √ ⊥ ∠ ∵ ∩ ∪ (0x2D70–0x2D7C) and the user-defined rows
 * (lead byte 0x75 on, where the phone carriers put their emoji) in 7-bit bodies and encoded-word subjects; and a name or
 * subject split over two ISO-2022-JP encoded-words, whose joined shifts the platform's decoder read as U+FFFD
 * (「山田�太郎」). Every mail is built here; none is copied from a fixture.
 */
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import * as charsets from '../../src/mail/charsets.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { encodeIso2022Jp } from '../support/iso-2022-jp.js';
import { mailOutcome } from '../support/mail-outcome.js';

const ESC_JIS = Buffer.from('\x1b$B', 'latin1');
const ESC_ASCII = Buffer.from('\x1b(B', 'latin1');

/** JIS X 0208 codes (two 7-bit bytes each) as a shifted run of their own. */
function codes(...jis: number[]): Buffer {
  return Buffer.concat([ESC_JIS, Buffer.from(jis.flatMap((code) => [code >> 8, code & 0xff])), ESC_ASCII]);
}

/** ISO-2022-JP bytes of text and raw code runs, in order. */
function jis(...pieces: (string | Buffer)[]): Buffer {
  return Buffer.concat(pieces.map((piece) => (typeof piece === 'string' ? encodeIso2022Jp(piece) : piece)));
}

/** An encoded-word of ISO-2022-JP bytes. */
function word(bytes: Buffer): string {
  return `=?ISO-2022-JP?B?${bytes.toString('base64')}?=`;
}

// NEC row 13's codes that mailparser loses, and the characters they are (CP932's reading).
const NEC_ROW_13 = [0x2d70, 0x2d71, 0x2d72, 0x2d75, 0x2d76, 0x2d77, 0x2d7a, 0x2d7b, 0x2d7c];
const NEC_ROW_13_TEXT = '≒≡∫√⊥∠∵∩∪';
// ①② (NEC row 13 too), which mailparser reads right.
const CIRCLED = [0x2d21, 0x2d22];
// A user-defined code (row 85): a phone carrier's emoji, in no charset the platform knows.
const USER_DEFINED = 0x7521;

const QUESTION = 'ログインできません。どうすればよいですか';

/** A mail to our support address with an ISO-2022-JP text body in `transfer` encoding. */
function jisMail(opts: { body: Buffer; subject?: string; from?: string; transfer?: '7bit' | 'base64' | 'quoted-printable' }): Buffer {
  const transfer = opts.transfer ?? '7bit';
  const body = Buffer.concat([opts.body, Buffer.from('\r\n')]);
  const encoded =
    transfer === 'base64'
      ? (body.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n')
      : transfer === 'quoted-printable'
        ? // ISO-2022-JP is 7-bit: only `=` and the escape byte need quoting.
          body.toString('latin1').replace(/[=\x1b]/g, (c) => `=${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
        : body.toString('latin1');
  return Buffer.from(
    [
      `From: ${opts.from ?? `${word(encodeIso2022Jp('山田太郎'))} <taro.yamada@yamada-kogyo.co.jp>`}`,
      'To: support@helpdesk.example.jp',
      `Subject: ${opts.subject ?? word(encodeIso2022Jp('ログインについて'))}`,
      'Message-ID: <fix45a@yamada-kogyo.co.jp>',
      'Date: Sat, 28 Nov 2026 09:30:00 +0900',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=ISO-2022-JP',
      `Content-Transfer-Encoding: ${transfer}`,
      '',
      encoded,
    ].join('\r\n'),
    'latin1',
  );
}

describe('ISO-2022-JP bodies: no code read as a silent `?`', () => {
  const rows: { name: string; mail: Buffer; text: string; problem?: RegExp }[] = [
    {
      name: "NEC row 13's ≒ ≡ ∫ √ ⊥ ∠ ∵ ∩ ∪ (7-bit)",
      mail: jisMail({ body: jis('記号', codes(...NEC_ROW_13), 'が化けます。', QUESTION) }),
      text: `記号${NEC_ROW_13_TEXT}が化けます。`,
    },
    ...NEC_ROW_13.map((code, i) => ({
      name: `NEC row 13 code 0x${code.toString(16)} alone (${NEC_ROW_13_TEXT[i]})`,
      mail: jisMail({ body: jis('式', codes(code), '1', QUESTION) }),
      text: `式${NEC_ROW_13_TEXT[i]}1`,
    })),
    { name: '①② (read right before: must stay right)', mail: jisMail({ body: jis('手順', codes(...CIRCLED), 'の後', QUESTION) }), text: '手順①②の後' },
    {
      name: 'a user-defined code: a visible mark and a charset problem',
      mail: jisMail({ body: jis('絵文字', codes(USER_DEFINED), 'です。', QUESTION) }),
      text: '絵文字\ufffdです。',
      problem: /body text contains replacement characters/,
    },
    {
      name: 'a real `?` beside a NEC row 13 code stays `?`',
      mail: jisMail({ body: jis('A', codes(0x2d70), 'B? ', QUESTION, '?') }),
      text: `A≒B? ${QUESTION}?`,
    },
    { name: 'a real `?` in an ordinary mail stays `?`', mail: jisMail({ body: jis(`${QUESTION}? (ver 2.1?)`) }), text: `${QUESTION}? (ver 2.1?)` },
    {
      name: 'quoted-printable with NEC row 13 and ①',
      mail: jisMail({ body: jis('記号', codes(0x2d70, 0x2d7a, 0x2d21), QUESTION), transfer: 'quoted-printable' }),
      text: `記号≒∵①${QUESTION}`,
    },
    {
      name: 'base64 with NEC row 13 and ①',
      mail: jisMail({ body: jis('記号', codes(0x2d70, 0x2d7a, 0x2d21), QUESTION), transfer: 'base64' }),
      text: `記号≒∵①${QUESTION}`,
    },
    {
      name: 'a JIS X 0208-1978 run (ESC $ @) with a NEC row 13 code',
      mail: jisMail({ body: jis('式', Buffer.from('\x1b$@\x2d\x70\x1b(B', 'latin1'), QUESTION) }),
      text: `式≒${QUESTION}`,
    },
    {
      name: 'a JIS X 0213 run (ESC $ ( Q): its JIS X 0208 codes read, a row-89 code marked',
      mail: jisMail({ body: jis('式', Buffer.from('\x1b$(Q\x30\x21\x79\x21\x1b(B', 'latin1'), QUESTION) }),
      text: `式亜\ufffd${QUESTION}`,
      problem: /body text contains replacement characters/,
    },
    { name: 'base64 ordinary text', mail: jisMail({ body: jis(`お世話になっております。${QUESTION}`), transfer: 'base64' }), text: `お世話になっております。${QUESTION}` },
  ];

  it.each(rows)('$name', async ({ mail, text, problem }) => {
    const parsed = await parseInboundMail(mail);
    expect(parsed.text).toContain(text);
    if (problem) expect(parsed.charsetProblems ?? []).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
    else expect(parsed.charsetProblems).toBeUndefined();
    expect(await mailOutcome(mail)).toBe('answer');
  });

  it('an ordinary JIS mail reads exactly as mailparser reads it, and is not read twice', async () => {
    const body = jis(`山田です。\r\nお世話になっております。\r\n${QUESTION}?\r\nよろしくお願いいたします。`);
    const mail = jisMail({ body });
    const parsed = await parseInboundMail(mail);
    expect(parsed.text).toBe((await simpleParser(mail)).text);
    expect(parsed.charsetProblems).toBeUndefined();
    // What sends a 7-bit JIS mail to the second reading.
    const mailparserLoses = (charsets as Record<string, unknown>)['hasJisCodesMailparserLoses'] as ((bytes: Buffer) => boolean) | undefined;
    expect(mailparserLoses?.(mail)).toBe(false);
    expect(mailparserLoses?.(jisMail({ body: jis('x', codes(0x2d70)) }))).toBe(true);
    // A line break inside a run does not shift the pairs: 亜 CRLF ≒ is found, 亜 CRLF 亜 is not.
    expect(mailparserLoses?.(Buffer.from('\x1b$B\x30\x21\r\n\x2d\x70\x1b(B', 'latin1'))).toBe(true);
    expect(mailparserLoses?.(Buffer.from('\x1b$B\x30\x21\r\n\x30\x21\x1b(B', 'latin1'))).toBe(false);
    expect(await mailOutcome(mail)).toBe('answer');
  });
});

describe('ISO-2022-JP headers: no silent `?`, no U+FFFD at a split', () => {
  const yamada = encodeIso2022Jp('山田');
  const taro = encodeIso2022Jp('太郎');
  const body = jis(QUESTION);
  const rows: { name: string; mail: Buffer; subject?: string; name_?: string; problem?: RegExp }[] = [
    { name: 'a subject with NEC row 13 codes', mail: jisMail({ body, subject: word(jis('題名', codes(0x2d70, 0x2d7a), '①')) }), subject: '題名≒∵①' },
    {
      name: 'a subject with a user-defined code',
      mail: jisMail({ body, subject: word(jis('題名', codes(USER_DEFINED))) }),
      subject: '題名\ufffd',
      problem: /subject contains replacement characters/,
    },
    { name: 'a subject split over two encoded-words', mail: jisMail({ body, subject: `${word(yamada)}\r\n ${word(taro)}` }), subject: '山田太郎' },
    { name: 'a From name split over two encoded-words', mail: jisMail({ body, from: `${word(yamada)} ${word(taro)} <taro@example.jp>` }), name_: '山田太郎' },
    { name: 'an ordinary subject', mail: jisMail({ body, subject: word(encodeIso2022Jp('ログインについて?')) }), subject: 'ログインについて?' },
  ];

  it.each(rows)('$name', async ({ mail, subject, name_, problem }) => {
    const parsed = await parseInboundMail(mail);
    if (subject !== undefined) expect(parsed.subject).toBe(subject);
    if (name_ !== undefined) expect(parsed.from?.name).toBe(name_);
    if (problem) expect(parsed.charsetProblems ?? []).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
    else expect(parsed.charsetProblems).toBeUndefined();
    expect(await mailOutcome(mail)).toBe('answer');
  });
});

// Review 45a of the decoder above: mail it read worse than mailparser had, or read with a mark the customer sees.
describe('ISO-2022-JP read again: never worse than mailparser', () => {
  /** The codes of `text` in a JIS X 0208 run, without the run's shifts. */
  const bare = (text: string) => encodeIso2022Jp(text).subarray(3, -3);
  const latin1 = (text: string) => Buffer.from(text, 'latin1');
  const rows: { name: string; mail: Buffer; text: string; not?: string; problem?: RegExp }[] = [
    {
      // Real mailers write a line break inside a run, no shift back to ASCII before it; the platform's decoder
      // reads ASCII after it (`%m%0%$%s…`).
      name: 'a line break inside a JIS X 0208 run',
      mail: jisMail({ body: Buffer.concat([ESC_JIS, bare('ログイン'), latin1('\x2d\x70\r\n'), bare(QUESTION), ESC_ASCII]) }),
      text: `ログイン≒\n${QUESTION}`,
    },
    {
      name: 'a line break (LF alone) inside a JIS X 0213 run: the codes after it are still paired',
      mail: jisMail({ body: jis('式', latin1('\x1b$(Q\x30\x21\n\x30\x21\x2d\x70\x1b(B'), QUESTION) }),
      text: `式亜\n亜≒${QUESTION}`,
    },
    {
      name: 'a line break inside a JIS X 0212 run',
      mail: jisMail({ body: jis('森', latin1('\x1b$(D\x30\x21\r\n\x30\x21\x1b$B\x2d\x70\x1b(B'), QUESTION) }),
      text: `森丂\n丂≒${QUESTION}`,
    },
    {
      // A signature pasted as UTF-8 under the JIS label: mailparser read it right; our decoder would not.
      name: 'a JIS label over 8-bit bytes (a UTF-8 signature) and ≒: mailparser\'s reading is kept',
      mail: jisMail({ body: Buffer.concat([jis('ログイン', codes(0x2d70)), Buffer.from('\r\n署名 — 山田\r\n'), jis(QUESTION)]) }),
      text: '署名 — 山田',
    },
    {
      // mailparser drops an ESC that starts no shift it knows; the platform's decoder made each a U+FFFD.
      name: 'a megabyte of stray ESC bytes, then ≒',
      mail: jisMail({ body: Buffer.concat([jis(QUESTION), latin1('\r\n'), Buffer.alloc(1_000_000, 0x1b), latin1('\r\n'), codes(0x2d70)]) }),
      text: `${QUESTION}\n\n≒`,
      not: '\ufffd',
    },
    {
      // ISO-2022-JP-2's GB2312 (ESC $ A): its `0!` is no JIS kanji, and the shift back to ASCII before it stays.
      name: 'a shift back to ASCII before an ESC $ A',
      mail: jisMail({ body: jis('中国語', codes(0x2d70), latin1('\x1b$A0!\x1b(B\r\n'), QUESTION) }),
      text: '中国語≒0!',
      not: '亜',
    },
    {
      // CP50222 writes half-width kana between SO and SI.
      name: 'SO/SI half-width kana beside ≒',
      mail: jisMail({ body: jis(latin1('a\x0e123\x0fb '), codes(0x2d70), '\r\n', QUESTION) }),
      text: 'aｱｲｳb ≒',
    },
  ];

  it.each(rows)('$name', async ({ mail, text, not, problem }) => {
    const parsed = await parseInboundMail(mail);
    expect(parsed.text).toContain(text);
    if (not) expect(parsed.text).not.toContain(not);
    if (problem) expect(parsed.charsetProblems ?? []).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
    else expect(parsed.charsetProblems).toBeUndefined();
    expect(parsed.unreadable).toBeUndefined();
    expect(await mailOutcome(mail)).toBe('answer');
  });

  it('a JIS text over the budget read again (1 MB) with one ≒ is read whole, by mailparser', async () => {
    const line = jis('あいうえおかきくけこさしすせそ', ' log line 12345\r\n');
    const lines = Buffer.concat(Array<Buffer>(Math.ceil(2_000_000 / line.length)).fill(line));
    const mail = jisMail({ body: Buffer.concat([jis(QUESTION), codes(0x2d70), latin1('\r\n'), lines, jis('最後の行')]) });
    const parsed = await parseInboundMail(mail);
    expect(parsed.text).toContain(QUESTION);
    expect(parsed.text).toContain('最後の行');
    expect(parsed.unreadable).toBeUndefined();
    expect(await mailOutcome(mail)).toBe('answer');
  });

  it("a subject's folded tab reads as one space, as mailparser reads it", async () => {
    const mail = jisMail({ body: jis(QUESTION), subject: `Re: ${word(jis('題名', codes(0x2d70)))}\r\n\tabc  def` });
    expect((await parseInboundMail(mail)).subject).toBe('Re: 題名≒ abc  def');
  });

  it("a 7-bit attachment's bytes never change when the text beside it is read again", async () => {
    const binary = Buffer.concat([latin1('\x1b$B\x2d\x70\x75\x21\x1b(B\r\n\x1b\x1b$A0!'), Buffer.from([0x00, 0x0e, 0x0f, 0x7f]), latin1('\r\n')]);
    const textFile = jis('ログ', codes(0x2d70), '\r\nline2\r\n');
    const mail = Buffer.concat([
      latin1(
        [
          `From: ${word(encodeIso2022Jp('山田太郎'))} <taro.yamada@yamada-kogyo.co.jp>`,
          'To: support@helpdesk.example.jp',
          `Subject: ${word(encodeIso2022Jp('ログインについて'))}`,
          'Message-ID: <fix45c-att@yamada-kogyo.co.jp>',
          'MIME-Version: 1.0',
          'Content-Type: multipart/mixed; boundary="b"',
          '',
          '--b',
          'Content-Type: text/plain; charset=ISO-2022-JP',
          'Content-Transfer-Encoding: 7bit',
          '',
          '',
        ].join('\r\n'),
      ),
      jis('記号', codes(0x2d70), QUESTION),
      latin1('\r\n--b\r\nContent-Type: application/octet-stream; name="x.bin"\r\nContent-Disposition: attachment; filename="x.bin"\r\nContent-Transfer-Encoding: 7bit\r\n\r\n'),
      binary,
      latin1('\r\n--b\r\nContent-Type: text/plain; charset=ISO-2022-JP; name="log.txt"\r\nContent-Disposition: attachment; filename="log.txt"\r\nContent-Transfer-Encoding: 7bit\r\n\r\n'),
      textFile,
      latin1('\r\n--b--\r\n'),
    ]);
    const relabelled = await charsets.relabelTextParts(mail, { plain: 1024 * 1024, html: 2_000_000 });
    expect(relabelled).toBeDefined();
    const [before, after] = [await simpleParser(mail), await simpleParser(relabelled!.raw)];
    expect(after.text).toContain('記号≒');
    expect(after.attachments.map((a) => a.content.toString('latin1'))).toEqual(before.attachments.map((a) => a.content.toString('latin1')));
    expect(after.attachments).toHaveLength(2);
  });
});

// Review 45c of the reading above: malformed and ISO-2022-JP-2 input it read worse than before it (a name is always
// read here; a body or subject only with a code mailparser loses, hence the ≒ in each).
describe('ISO-2022-JP malformed or ISO-2022-JP-2: read as before or better', () => {
  const bare = (text: string) => encodeIso2022Jp(text).subarray(3, -3);
  const latin1 = (text: string) => Buffer.from(text, 'latin1');
  /** A run of JIS X 0208 codes and other bytes in order, opened by ESC $ B and closed by ESC ( B. */
  const run = (...pieces: (string | Buffer)[]) => Buffer.concat([ESC_JIS, ...pieces.map((p) => (typeof p === 'string' ? latin1(p) : p)), ESC_ASCII]);
  const rows: { name: string; mail: Buffer; text?: string; subject?: string; name_?: string; problem?: RegExp }[] = [
    // 1. A stray SO (no SI): one U+FFFD, not half-width kana over the rest of the part.
    {
      name: 'a stray SO in a body, lines of ASCII after it',
      mail: jisMail({ body: jis('記号', codes(0x2d70), latin1('a\x0eb\r\nThanks, Taro\r\nTel 03-1234-5678\r\n'), QUESTION) }),
      text: `記号≒a\ufffdb\nThanks, Taro\nTel 03-1234-5678\n${QUESTION}`,
      problem: /body text contains replacement characters/,
    },
    { name: 'a stray SO in a From name', mail: jisMail({ body: jis(QUESTION), from: `${word(latin1('Taro\x0eYamada'))} <taro@example.jp>` }), name_: 'Taro\ufffdYamada' },
    { name: 'a stray SO in a subject', mail: jisMail({ body: jis(QUESTION), subject: word(jis('題名', codes(0x2d70), latin1('a\x0eb c'))) }), subject: '題名≒a\ufffdb c', problem: /subject contains replacement characters/ },
    // 2. A stray ESC: only the ESC goes; the run it was in, and the bytes after it, stay.
    { name: 'a stray ESC inside a kana run of a From name', mail: jisMail({ body: jis(QUESTION), from: `${word(run(bare('ヤマダ'), '\x1b', bare('タロウ')))} <taro@example.jp>` }), name_: 'ヤマダタロウ' },
    { name: 'a stray ESC before a space in a subject', mail: jisMail({ body: jis(QUESTION), subject: word(jis('題名', codes(0x2d70), latin1(' Hello \x1b World'))) }), subject: '題名≒ Hello  World' },
    { name: 'a stray ESC before `(1` in a subject', mail: jisMail({ body: jis(QUESTION), subject: word(jis('題名', codes(0x2d70), latin1(' price \x1b(100 yen)'))) }), subject: '題名≒ price (100 yen)' },
    { name: 'a stray ESC inside a kana run of a body', mail: jisMail({ body: jis('記号', codes(0x2d70), latin1('\r\n'), run(bare('ヤマダ'), '\x1b', bare('タロウ')), latin1('\r\n'), QUESTION) }), text: `記号≒\nヤマダタロウ\n${QUESTION}` },
    // 3. ISO-2022-JP-2: a G2 designation changes no G0 shift; ESC N reads one Latin-1 or Greek character.
    { name: 'ISO-2022-JP-2 Latin-1 (ESC . A, ESC N) inside a kanji run of a From name', mail: jisMail({ body: jis(QUESTION), from: `${word(run(bare('山田'), '\x1b.A\x1bNi', bare('太郎')))} <taro@example.jp>` }), name_: '山田é太郎' },
    { name: 'ISO-2022-JP-2 Latin-1 in ASCII of a From name', mail: jisMail({ body: jis(QUESTION), from: `${word(latin1('Jos\x1b.A\x1bNi'))} <jose@example.jp>` }), name_: 'José' },
    { name: 'ISO-2022-JP-2 Greek (ESC . F, ESC N) in a subject', mail: jisMail({ body: jis(QUESTION), subject: word(jis('題名', codes(0x2d70), latin1(' \x1b.F\x1bNa end'))) }), subject: '題名≒ α end' },
    {
      name: 'ESC N with no G2 set designated: a U+FFFD',
      mail: jisMail({ body: jis(QUESTION), subject: word(jis('題名', codes(0x2d70), latin1(' x\x1bNiy'))) }),
      subject: '題名≒ x\ufffdy',
      problem: /subject contains replacement characters/,
    },
    { name: 'ISO-2022-JP-2 Latin-1 in a body, in ASCII and inside a kanji run', mail: jisMail({ body: jis('記号', codes(0x2d70), latin1(' caf\x1b.A\x1bNi '), run(bare('山田'), '\x1b.A\x1bNi', bare('太郎')), latin1('\r\n'), QUESTION) }), text: `記号≒ café 山田é太郎\n${QUESTION}` },
    // 4. A header's line break inside a run ends it (the mailer relies on it, as the platform's decoder reads it); a
    //    body's reopens it (review 45a's row above).
    { name: 'a line break inside a kanji run of a From name, ASCII after it', mail: jisMail({ body: jis(QUESTION), from: `${word(run(bare('山田'), '\r\nTaro'))} <taro@example.jp>` }), name_: '山田 Taro' },
    { name: 'a line break inside a kanji run of a subject, ASCII after it', mail: jisMail({ body: jis(QUESTION), subject: word(Buffer.concat([ESC_JIS, bare('ログイン'), latin1('\x2d\x70\r\nID: abc123')])) }), subject: 'ログイン≒ ID: abc123' },
    // 5. After SI, the shift before SO again.
    { name: 'SO/SI kana inside a kanji run of a body', mail: jisMail({ body: jis('記号', codes(0x2d70), latin1('\r\n'), run(bare('日本'), '\x0e123\x0f', bare('日本')), latin1('\r\n'), QUESTION) }), text: `記号≒\n日本ｱｲｳ日本\n${QUESTION}` },
    { name: 'SO/SI kana inside a kanji run of a From name', mail: jisMail({ body: jis(QUESTION), from: `${word(run(bare('日本'), '\x0e123\x0f', bare('太郎')))} <taro@example.jp>` }), name_: '日本ｱｲｳ太郎' },
    // Review 45d: a body's run left open at a line end before English lines (the mailer relies on the break's reset):
    // the lines holding a space end the run, so they read as English, not as U+FFFD that parked the mail.
    {
      name: 'a kanji run left open before English lines of a body',
      mail: jisMail({ body: Buffer.concat([jis(QUESTION, '記号', codes(0x2d70)), ESC_JIS, bare('山田'), latin1('\r\nThank you for your help with this.\r\nBest regards, Taro\r\n')]) }),
      text: `${QUESTION}記号≒山田\nThank you for your help with this.\nBest regards, Taro`,
    },
    // Review 45f: a space or tab inside a run's codes on the next line keeps the run (one U+FFFD for the space, as
    // before), so the kanji do not read as ASCII.
    {
      name: 'a space inside a kanji run continued on the next line of a body',
      mail: jisMail({ body: Buffer.concat([jis(QUESTION, '記号', codes(0x2d70)), ESC_JIS, bare('お世話になって'), latin1('\r\n'), bare('山田'), latin1(' '), bare('太郎'), ESC_ASCII]) }),
      text: `${QUESTION}記号≒お世話になって\n山田\ufffd太郎`,
      problem: /body text contains replacement characters/,
    },
    {
      name: 'a tab opening a kanji run continued on the next line of a body',
      mail: jisMail({ body: Buffer.concat([jis(QUESTION, '記号', codes(0x2d70)), ESC_JIS, bare('手順'), latin1('\r\n\t'), bare('再起動'), ESC_ASCII]) }),
      text: `${QUESTION}記号≒手順\n\ufffd再起動`,
      problem: /body text contains replacement characters/,
    },
    // Review 45d: a stray ESC before kanji codes that look like a G1 designation (`-k`) takes none of them.
    { name: 'a stray ESC before `-k` inside a kanji run of a From name', mail: jisMail({ body: jis(QUESTION), from: `${word(run(bare('山'), '\x1b', bare('㈲田')))} <taro@example.jp>` }), name_: '山㈲田' },
  ];

  it.each(rows)('$name', async ({ mail, text, subject, name_, problem }) => {
    const parsed = await parseInboundMail(mail);
    if (text !== undefined) expect(parsed.text).toContain(text);
    if (subject !== undefined) expect(parsed.subject).toBe(subject);
    if (name_ !== undefined) expect(parsed.from?.name).toBe(name_);
    if (problem) expect(parsed.charsetProblems ?? []).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
    else expect(parsed.charsetProblems).toBeUndefined();
    expect(parsed.unreadable).toBeUndefined();
    expect(await mailOutcome(mail)).toBe('answer');
  });
});
