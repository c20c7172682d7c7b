import { describe, expect, it } from 'vitest';
import { decodeBytes } from '../../src/mail/charsets.js';
import { replySubject } from '../../src/mail/compose-reply.js';
import { removeInvisible } from '../../src/mail/invisible.js';
import { parseInboundMail } from '../../src/mail/parse.js';

// Mail audit round 6: 421 (a JIS X 0212 kanji in an ISO-2022-JP display name), 412 (a full-width `Ｒｅ：` subject)
// and 427 (a UTF-8 byte-order mark at the start of the body taken for hidden text).

const ESC = '\x1b';
const jis = (latin1: string) => Buffer.from(latin1, 'latin1');
const JIS_X_0208 = `${ESC}$B`;
const JIS_X_0212 = `${ESC}$(D`;
const ASCII = `${ESC}(B`;

describe('decodeBytes: ISO-2022-JP header bytes', () => {
  it.each([
    // 421's From: 森 (0208) + space + 鷗 (0212 0x6C3F) + 一 (0208).
    ['a JIS X 0212 kanji between JIS X 0208 ones', `${JIS_X_0208}?9${ASCII} ${JIS_X_0212}l?${JIS_X_0208}0l${ASCII}`, '森 鷗一'],
    ['a JIS X 0212 run back to ASCII', `${JIS_X_0212}l?${ASCII}Mori`, '鷗Mori'],
    ['a JIS X 0212 run at the end, not shifted back', `Mori ${JIS_X_0212}l?`, 'Mori 鷗'],
    // An unassigned JIS X 0212 code and a lone byte stay visible as undecodable, as the platform's decoder marks them.
    ['an unassigned JIS X 0212 code', `${JIS_X_0212}!!${ASCII}`, '\ufffd'],
    ['a JIS X 0212 run of an odd length', `${JIS_X_0212}l?l${ASCII}`, '鷗\ufffd'],
    // CP932 extensions that ISO-2022-JP-MS writes as JIS X 0208 codes: NEC row 13 and the NEC-selected IBM rows.
    ['① ㈱ ≒ √ (NEC row 13)', `${JIS_X_0208}-!-j-p-u${ASCII}`, '①㈱≒√'],
    ['髙 﨑 (IBM extensions)', `${JIS_X_0208}|byu${ASCII}`, '髙﨑'],
    ['half-width katakana', `${ESC}(I12${ASCII}`, 'ｱｲ'],
  ])('%s', (_what, bytes, expected) => {
    expect(decodeBytes(jis(bytes), 'ISO-2022-JP')).toBe(expected);
  });

  it('marks 8-bit bytes, which no ISO-2022-JP text has, as undecodable', () => {
    expect(decodeBytes(jis(`caf\xe9 ${JIS_X_0212}l?`), 'iso-2022-jp')).toContain('\ufffd');
  });

  it('gives the display name of audit sample 421 its 鷗', async () => {
    const raw = Buffer.from(
      [
        'From: =?ISO-2022-JP?B?GyRCPzkbKEIgGyQoRGw/GyRCMGwbKEI=?= <mori@bunko-mori.jp>',
        'To: support@helpdesk.example.jp',
        'Subject: =?ISO-2022-JP?B?GyRCMnEwd0w+JE5KODt6Mj0kMRsoQg==?=',
        'Message-ID: <421@bunko-mori.jp>',
        'Content-Type: text/plain; charset=utf-8',
        '',
        '会員名の「鷗」が「?」になります。',
        '',
      ].join('\r\n'),
    );
    const parsed = await parseInboundMail(raw);
    expect(parsed.from).toEqual({ address: 'mori@bunko-mori.jp', name: '森 鷗一' });
    expect(parsed.subject).toBe('会員名の文字化け');
  });
});

describe('replySubject: full-width reply prefixes', () => {
  it.each([
    ['Ｒｅ：お問い合わせ', 'Re: お問い合わせ'],
    ['ＲＥ：CSV出力について', 'Re: CSV出力について'],
    ['ｒｅ: CSV出力について', 'Re: CSV出力について'],
    ['Ｒｅ［２］：お問い合わせ', 'Re: お問い合わせ'],
    ['Ｒｅ：Ｒｅ：お問い合わせ', 'Re: お問い合わせ'],
    ['Re: Ｒｅ：お問い合わせ', 'Re: お問い合わせ'],
    ['Ｒｅ（３）：お問い合わせ', 'Re: お問い合わせ'],
    // Rows the function already handled, kept as they were.
    ['返信: お問い合わせ', 'Re: お問い合わせ'],
    ['RE: Re[2]: AW: SV: 回复: 答复: 质询', 'Re: 质询'],
    // A full-width word that only starts like a prefix is the subject itself, and the rest is not rewritten.
    ['Ｒｅｇａｒｄｉｎｇ：更新', 'Re: Ｒｅｇａｒｄｉｎｇ：更新'],
    ['Ｒｅ：ＣＳＶ（全角）出力', 'Re: ＣＳＶ（全角）出力'],
  ])('%s', (subject, expected) => {
    expect(replySubject(subject)).toBe(expected);
  });
});

describe('removeInvisible: a byte-order mark', () => {
  it.each([
    ['at the start of the text', '\ufeffバックアップについて', 'バックアップについて', 0],
    ['at the start of a later part', 'text\n\ufeffsecond part', 'text\nsecond part', 0],
    // U+FEFF is also the zero-width no-break space: inside or after words it hides something.
    ['inside a word', 'pass\ufeffword', 'password', 1],
    ['after the first word', 'hello \ufeffthere', 'hello there', 1],
    ['a run at the start of the text', '\ufeff\ufeffhidden', 'hidden', 1],
    ['a run of zero-width characters at the start', '\ufeff\u200bhidden', 'hidden', 1],
  ])('%s', (_what, text, cleaned, removed) => {
    expect(removeInvisible(text)).toEqual({ text: cleaned, removed });
  });

  it('raises no hidden-text warning for audit sample 427', async () => {
    const raw = Buffer.concat([
      Buffer.from(
        [
          'From: backup@kanda-clinic.jp',
          'To: support@helpdesk.example.jp',
          'Subject: backup',
          'Message-ID: <427@kanda-clinic.jp>',
          'Content-Type: text/plain; charset=utf-8',
          'Content-Transfer-Encoding: 8bit',
          '',
          '',
        ].join('\r\n'),
      ),
      Buffer.from('\ufeffデータのバックアップは取れますか？\r\n'),
    ]);
    const parsed = await parseInboundMail(raw);
    expect(parsed.text.startsWith('データ')).toBe(true);
    expect(parsed.parseWarnings.join('\n')).not.toMatch(/invisible/);
  });
});
