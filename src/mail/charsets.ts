/**
 * What charset text is in when its label is missing or wrong: raw 8-bit header bytes (RFC 6532 allows UTF-8, old
 * clients send their own charset), and text parts whose bytes are not in the charset they declare — a web form that
 * sends UTF-8 labelled ISO-8859-1, a Japanese mailer that sends Shift_JIS or ISO-2022-JP without a label. Decisions
 * are made on the bytes: well-formed UTF-8 is UTF-8 whatever the label says (legacy CJK and Latin text practically
 * never is), other bytes are read in the charset they are valid in.
 */
import { Joiner, Rewriter, Splitter, type MimeNode } from '@zone-eu/mailsplit';
import { isAscii, isUtf8 } from 'node:buffer';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import iconv from 'iconv-lite';

/** True for the labels of ISO-2022-JP (which iconv-lite does not know; mailparser decodes it apart). */
export function isJisLabel(label: string): boolean {
  return /^(?:jis|iso-?2022-?jp|csiso2022jp)/i.test(label);
}

/** True when mailparser (iconv-lite, or its ISO-2022-JP special case) can decode `label`. */
export function isSupportedCharset(label: string): boolean {
  return isJisLabel(label) || iconv.encodingExists(label);
}

/** Decodes bytes in `label`, or undefined when neither iconv-lite nor the platform knows the charset. */
export function decodeBytes(bytes: Buffer, label: string): string | undefined {
  const charset = label.trim();
  if (isJisLabel(charset)) return decodeIso2022Jp(bytes);
  if (iconv.encodingExists(charset)) return iconv.decode(bytes, charset);
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return undefined;
  }
}

// A shift into JIS X 0212 (ISO-2022-JP-1's supplementary kanji: 鷗, 﨑's rarer cousins) and its two-byte codes, up to
// the next shift.
const JIS_X_0212_RUN = /\x1b\$\(D([^\x1b]*)/g;
const EUC_SS3 = 0x8f;
// The shifts read here: into ASCII, JIS Roman and half-width kana (ESC ( B J I), JIS X 0208 (ESC $ @ B), JIS X 0212
// (ESC $ ( D) and JIS X 0213 planes 1 and 2 (ESC $ ( O Q, P).
const KNOWN_SHIFT_AFTER_ESC = String.raw`(?:\([BJI]|\$[@B]|\$\([DOPQ])`;
const KNOWN_SHIFT = `\x1b${KNOWN_SHIFT_AFTER_ESC}`;
const SHIFT_TO_ASCII = '\x1b(B';
// Every ESC, and the sequence it starts (review 45c):
// 1. a shift read here;
// 2. a designation of another G0 set (ISO-2022-JP-2's GB2312 ESC $ A and KS X 1001 ESC $ ( C, ESC ( F of a 94-set):
//    a shift to ASCII, as in mailparser, so its codes never read as plausible kanji (`0!` as 亜);
// 3. ISO-2022-JP-2's designations into G2 (ESC . A Latin-1, ESC . F Greek) or ESC & @ (the JIS X 0208-1990
//    announcer): dropped, the G0 shift and the text after it stay (a shift to ASCII read the kanji after it as
//    `NiB@O:`). Only the sequences ISO-2022-JP and -2 use are read as sequences: a stray ESC before kanji codes that
//    happen to look like another designation (`ESC -k`) took them with it (review 45d);
// 4. ESC N and a byte: ISO-2022-JP-2's single shift of one G2 character (see {@link singleShifted});
// 5. anything else, a stray ESC: only the ESC is dropped, as mailparser does, so a run goes on and no byte after it
//    is lost (「ヤマダ ESC タロウ」 read 「ヤマダ%m%&」, `Hello ESC  World` read `Helloorld`). The platform's decoder
//    makes each a U+FFFD: a megabyte of them parked a text as 100 % undecodable (review 45a). Dropped rather than
//    marked: a stray control byte is no character of the text.
// Alternatives of bounded length, tried at each ESC: linear. No capture groups: a replacer called with them was ten
// times slower (a megabyte of stray ESC bytes took 0.6 s).
const ESCAPE = /\x1b(?:\([\x40-\x7e]|\$[@AB]|\$\([@ABCDOPQ]|\.[AF]|&@|N[\x20-\x7f])?/g;
const KNOWN_SHIFTS = new Set(['\x1b(B', '\x1b(J', '\x1b(I', '\x1b$@', '\x1b$B', '\x1b$(D', '\x1b$(O', '\x1b$(P', '\x1b$(Q']);
// What {@link normaliseIso2022Jp} writes for ESC N x: the G2 set's final byte (A, F, or ? for one not read) and x.
// No ESC it leaves otherwise is followed by N.
const SINGLE_SHIFT = /\x1bN([AF?])([\x20-\x7f])/g;
const JIS_X_0212_RUN_OR_SINGLE_SHIFT = new RegExp(`${JIS_X_0212_RUN.source}|${SINGLE_SHIFT.source}`, 'g');
// A shift right before another shift holds no text and changes nothing: the platform's decoder reads it as U+FFFD
// (WHATWG's guard: an encoder never writes one), and each encoded-word of a name or subject split over several ends
// in a shift back to ASCII (「山田」「太郎」 joined read 「山田�太郎」). Dropped, it hides no character. Only one before a
// known shift: one before another charset's sequence is what leaves the codes after it out of the run before.
const EMPTY_SHIFT = new RegExp(`${KNOWN_SHIFT}(?=${KNOWN_SHIFT})`, 'g');
// A run of a multi-byte or kana set with a line break inside it, before more codes. Real mailers write such runs in
// bodies (against RFC 1468, which ends each line in ASCII), and the platform's decoder reads ASCII after a line
// break: 「ログインできません」 on the next line read `%m%0%$%s…` (review 45a). The classes are disjoint: linear. No
// repeated group: V8 keeps a frame per repetition, and 4 million lines in one run threw a RangeError.
const RUN_WITH_LINE_BREAK = /(\x1b(?:\$[@B]|\$\([DOPQ]|\(I))([^\x1b\r\n]*[\r\n][^\x1b]*)/g;
// A shift into JIS X 0213 (plane 1: 2000's O, 2004's Q; plane 2: P) and its codes, up to the next shift.
const JIS_X_0213_RUN = /\x1b\$\(([OPQ])([^\x1b]*)/g;
// CP50222 (Windows' ISO-2022-JP with half-width kana) writes kana between SO and SI; the platform's decoder reads
// neither. Only a pair on one line, of kana codes: a stray SO without its SI stays one U+FFFD, not kana to the end
// of the text (review 45c: a part parked 40 % undecodable). The shifts are matched to know the one SI returns to.
const SHIFT_OUT_KANA_OR_SHIFT = new RegExp(String.raw`${KNOWN_SHIFT}|\x0e[\x21-\x5f]*\x0f`, 'g');

/**
 * JIS X 0213 codes as the JIS X 0208 codes the platform reads: plane 1's are the same but for rows 89–92, where JIS
 * X 0213 has kanji of its own and the platform would read IBM's; those, and every plane 2 code, become a user-defined
 * code, which it reads as U+FFFD. Line breaks stay, and the codes are paired between them.
 */
function jisX0213AsX0208(codes: string, plane2: boolean): string {
  return codes.replace(/[^\r\n]{1,2}/g, (pair) => {
    const lead = pair.charCodeAt(0);
    return pair.length === 2 && (plane2 || (lead >= 0x79 && lead <= 0x7c)) ? `\x75${pair[1]}` : pair;
  });
}

/**
 * ISO-2022-JP text (latin1, one char a byte) as the platform's decoder reads it right: escapes as {@link ESCAPE}
 * says, SO/SI kana as ESC ( I runs, no empty shifts, JIS X 0213 as JIS X 0208; in a body (`body`), each line of a
 * run opening with the run's shift. A header's line break ends a run, as the platform's decoder reads it: a mailer
 * that relies on it wrote ASCII after it (review 45c), and review 45a's broken runs were body text. Linear: every
 * pattern is.
 */
function normaliseIso2022Jp(input: string, body: boolean): string {
  let text = input;
  if (text.includes('\x1b')) text = text.replace(ESCAPE, escapeReader());
  if (text.includes('\x0e')) {
    let shift = SHIFT_TO_ASCII;
    text = text.replace(SHIFT_OUT_KANA_OR_SHIFT, (match) => {
      if (match.startsWith('\x0e')) return `\x1b(I${match.slice(1, -1)}${shift}`;
      shift = match;
      return match;
    });
  }
  if (!text.includes('\x1b')) return text;
  // A line that cannot be codes of the run is what a mailer relying on the break's reset to ASCII wrote
  // (`ESC $ B 亜 CRLF Thank you`): the run ends at that break, or its English read as U+FFFD and parked the mail
  // (review 45d). A space or tab inside the run's codes is kept as the mailer's (review 45f: 山田 SP 太郎).
  if (body) {
    text = text.replace(RUN_WITH_LINE_BREAK, (_run, shift: string, codes: string) => {
      let open = true;
      return shift + codes.replace(/([\r\n]+)([^\r\n]+)/g, (_line, lineBreak: string, line: string) => {
        if (!open) return lineBreak + line;
        open = mayContinueRun(line);
        return open ? lineBreak + shift + line : SHIFT_TO_ASCII + lineBreak + line;
      });
    });
  }
  return text.replace(EMPTY_SHIFT, '').replace(JIS_X_0213_RUN, (_run, plane: string, codes: string) => `\x1b$B${jisX0213AsX0208(codes, plane === 'P')}`);
}

/**
 * Whether a line after a break inside a two-byte run may still be codes of that run: no space or tab, or each piece
 * between them of even length with every code's first byte 0x21–0x4F (symbols, kana, the common kanji). English has
 * lower-case letters (0x61 and up) in those places, so `Thank you` or `Best regards` ends the run.
 */
function mayContinueRun(line: string): boolean {
  if (!/[ \t]/.test(line)) return true;
  return line.split(/[ \t]+/).every((piece) => {
    if (piece.length % 2 !== 0) return false;
    for (let i = 0; i < piece.length; i += 2) {
      const lead = piece.charCodeAt(i);
      if (lead < 0x21 || lead > 0x4f) return false;
    }
    return true;
  });
}

/** A replacer of {@link ESCAPE} for one text: it follows the G0 shift and the G2 set as it reads. */
function escapeReader(): (sequence: string) => string {
  let g0 = SHIFT_TO_ASCII;
  let g2: string | undefined;
  return (sequence) => {
    if (sequence.length === 1) return '';
    if (KNOWN_SHIFTS.has(sequence)) {
      g0 = sequence;
      return sequence;
    }
    // The G0 shift again after it: the text after it is cut there to be read.
    if (sequence[1] === 'N') return `\x1bN${g2 === 'A' || g2 === 'F' ? g2 : '?'}${sequence[2]}${g0 === SHIFT_TO_ASCII ? '' : g0}`;
    // Another G0 set: ESC ( F, ESC $ A, ESC $ ( F.
    if (sequence[1] === '(' || sequence === '\x1b$A' || sequence.startsWith('\x1b$(')) {
      g0 = SHIFT_TO_ASCII;
      return SHIFT_TO_ASCII;
    }
    // A 96-set into G2 (ESC . F) is what ESC N reads; ESC & @ announces nothing read here.
    if (sequence[1] === '.') g2 = sequence[2];
    return '';
  };
}

/**
 * The character of an ISO-2022-JP-2 single shift (ESC N x): x in the G2 set, ISO-8859-1's upper half after ESC . A,
 * ISO-8859-7's after ESC . F; U+FFFD after none, or a set not read here.
 */
function singleShifted(set: string, code: string): string {
  const byte = code.charCodeAt(0) | 0x80;
  if (set === 'A') return String.fromCharCode(byte);
  if (set === 'F') return new TextDecoder('iso-8859-7').decode(Uint8Array.of(byte));
  return '\ufffd';
}

/**
 * ISO-2022-JP bytes (a header's encoded-word), including ISO-2022-JP-1's JIS X 0212 kanji, which the platform's
 * WHATWG decoder does not know (it read 「森 鷗一」 as 「森 �l?一」). JIS X 0212 runs are read as the EUC-JP they
 * map to (SS3 + the code with its high bits set), whose WHATWG decoder has the JIS X 0212 table; the rest by the
 * ISO-2022-JP decoder, which reads the CP932 extensions ISO-2022-JP-MS writes (①, ㈱, 髙) and marks undecodable
 * bytes as U+FFFD. encoding-japanese (mailparser's decoder of such bodies) is not used: package.json does not name it,
 * and it turns undecodable codes, and NEC row 13's ≒ ≡ ∫ √ ⊥ ∠ ∵ ∩ ∪, into a plain `?`. JIS X 0213 plane 1 runs
 * (ISO-2022-JP-3/2004) are read as JIS X 0208, which they extend at the same codes; its rows the platform would read
 * as IBM's kanji or user-defined characters, and plane 2, are U+FFFD. ISO-2022-JP-2's single shifts are read by
 * {@link singleShifted}. `body`: the bytes are a body part's, whose line breaks do not end a run. See
 * {@link normaliseIso2022Jp} for the rest.
 */
function decodeIso2022Jp(input: Buffer, body = false): string {
  const original = input.toString('latin1');
  const text = normaliseIso2022Jp(original, body);
  const bytes = text === original ? input : Buffer.from(text, 'latin1');
  // 8-bit bytes are no ISO-2022-JP, and without a JIS X 0212 shift or a single shift the platform's decoder reads it all.
  const jisX0212 = isAscii(bytes) && text.includes('\x1b$(D');
  if (!jisX0212 && !text.includes('\x1bN')) return new TextDecoder('iso-2022-jp').decode(bytes);
  // One decoder for every piece: each decode() without `stream` starts afresh, in ASCII.
  const decoder = new TextDecoder('iso-2022-jp');
  let out = '';
  let at = 0;
  for (const run of text.matchAll(jisX0212 ? JIS_X_0212_RUN_OR_SINGLE_SHIFT : SINGLE_SHIFT)) {
    out += decoder.decode(bytes.subarray(at, run.index));
    out += run[0].startsWith('\x1bN') ? singleShifted(run[run.length - 2]!, run[run.length - 1]!) : decodeJisX0212(Buffer.from(run[1]!, 'latin1'));
    at = run.index + run[0].length;
  }
  return out + decoder.decode(bytes.subarray(at));
}

/**
 * JIS X 0212 codes (two 7-bit bytes each) read as the EUC-JP they map to; a byte out of range, or an odd last one, is
 * U+FFFD, as in the platform's decoders.
 */
function decodeJisX0212(codes: Buffer): string {
  const inRange = (b: number | undefined) => b !== undefined && b >= 0x21 && b <= 0x7e;
  const decoder = new TextDecoder('euc-jp');
  let out = '';
  for (let i = 0; i < codes.length; i += 2) {
    // A line break is kept and the codes after it are paired again: the run goes on after it, in a body (where
    // {@link normaliseIso2022Jp} opened the next line with the shift again) and in a header, which was read so before
    // a header's line break ended a JIS X 0208 run (review 45c: 「丂 LF 丂」 would read 「丂 LF 0!」).
    while (codes[i] === 0x0d || codes[i] === 0x0a) out += String.fromCharCode(codes[i++]!);
    if (i >= codes.length) break;
    const [lead, trail] = [codes[i], codes[i + 1]];
    out += inRange(lead) && inRange(trail) ? decoder.decode(Buffer.from([EUC_SS3, lead! | 0x80, trail! | 0x80])) : '\ufffd';
  }
  return out;
}

/** True when the bytes are well-formed UTF-8 (checked without decoding them: a part may be megabytes). */
export function isValidUtf8(bytes: Buffer): boolean {
  return isUtf8(bytes);
}


// Charsets of raw 8-bit header bytes after the mail's declared one, Japanese first (this is a Japanese help desk).
const JAPANESE_CHARSETS = ['shift_jis', 'euc-jp'] as const;
const CHINESE_CHARSETS = ['gb18030', 'big5'] as const;
const KANA = /[\u3041-\u3096\u30a1-\u30fa]/u;

/**
 * True for Latin text with a few accented letters (`Forma\xe7\xe3o`): every run of 8-bit bytes is at most two long
 * and sits between ASCII letters. CJK text has longer runs, or runs next to spaces and punctuation.
 */
export function looksLikeAccentedLatin(bytes: Buffer): boolean {
  const isLetter = (b: number | undefined) => b !== undefined && ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a));
  for (let i = 0; i < bytes.length; ) {
    if (bytes[i]! < 0x80) {
      i++;
      continue;
    }
    let j = i;
    while (j < bytes.length && bytes[j]! >= 0x80) j++;
    if (j - i > 2 || !isLetter(bytes[i - 1]) || !(j === bytes.length || isLetter(bytes[j]))) return false;
    i = j;
  }
  return true;
}

/** Bytes decoded strictly in `charset`, or undefined when they are not valid in it. */
function strictDecode(bytes: Buffer, charset: string): string | undefined {
  try {
    return new TextDecoder(charset, { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** What else is known about the charset of a mail's raw 8-bit headers, besides the charset it declares. */
export interface LegacyCharsetHints {
  /** The charset the mail's raw 8-bit headers read in together ({@link rawHeaderCharset}); tried first when valid. */
  preferred?: string;
  /** The mail declares a Japanese charset: a Japanese reading without kana still wins over a Chinese one. */
  japanese?: boolean;
}

/**
 * Raw 8-bit header bytes that are not UTF-8, decoded by what they are valid in: the charset the message declares
 * (unless it is a 7-bit one such as ISO-2022-JP, in which 8-bit bytes cannot be), then the charset `hints` prefer,
 * then Shift_JIS and EUC-JP, then GB18030 and Big5. GB2312 text is mostly valid EUC-JP too, so a Japanese reading
 * without a single kana gives way to a valid Chinese one, unless the mail declares a Japanese charset. Windows-1252
 * (which never fails) is the last resort.
 */
export function guessLegacyCharset(bytes: Buffer, declared: string | undefined, hints: LegacyCharsetHints = {}): { text: string; charset: string } {
  const sevenBit = !declared || isJisLabel(declared) || /^(?:us-)?ascii$/i.test(declared.trim());
  if (!sevenBit) {
    const text = strictDecode(bytes, declared!.trim());
    if (text !== undefined) return { text, charset: declared!.trim() };
  }
  if (looksLikeAccentedLatin(bytes)) return { text: iconv.decode(bytes, 'windows-1252'), charset: 'windows-1252' };
  if (hints.preferred) {
    const text = strictDecode(bytes, hints.preferred);
    if (text !== undefined) return { text, charset: hints.preferred };
  }
  const japanese = JAPANESE_CHARSETS.map((charset) => ({ charset, text: strictDecode(bytes, charset) })).filter(
    (c): c is { charset: (typeof JAPANESE_CHARSETS)[number]; text: string } => c.text !== undefined,
  );
  const withKana = japanese.find((c) => KANA.test(c.text));
  if (withKana) return withKana;
  if (hints.japanese && japanese[0]) return japanese[0];
  for (const charset of CHINESE_CHARSETS) {
    const text = strictDecode(bytes, charset);
    if (text !== undefined) return { text, charset };
  }
  if (japanese[0]) return japanese[0];
  return { text: iconv.decode(bytes, 'windows-1252'), charset: 'windows-1252' };
}


// Labels of the Japanese charsets (ISO-2022-JP's are matched by isJisLabel).
const JAPANESE_LABEL = /^(?:shift[_-]?jis|sjis|x-sjis|ms_kanji|csshiftjis|windows-31j|cp932|ms932|euc-?jp|x-euc-jp|cseucpkdfmtjapanese|cp5022[0-2])$/i;

/** True for the label of a Japanese charset: ISO-2022-JP, Shift_JIS (and Microsoft's CP932) or EUC-JP. */
function isJapaneseLabel(label: string): boolean {
  return isJisLabel(label.trim()) || JAPANESE_LABEL.test(label.trim());
}

/**
 * The charset a mail's raw 8-bit header values are in, judged on all of them together: a display name of kanji only
 * reads as Shift_JIS and as GB18030 alike, while the subject beside it has kana, which only the Japanese reading
 * gives. `declared` is the charset the mail declares for them (as for {@link guessLegacyCharset}); `declaredLabels`
 * every charset label in the mail, a Japanese one of which tips a reading without kana to Japanese. Undefined when no
 * value has 8-bit bytes outside UTF-8, or they read as Latin text.
 */
export function rawHeaderCharset(values: readonly Buffer[], declared: string | undefined, declaredLabels: readonly string[]): string | undefined {
  const legacy = values.filter((bytes) => !bytes.includes(0x1b) && bytes.some((b) => b >= 0x80) && !isValidUtf8(bytes));
  if (legacy.length === 0) return undefined;
  // Joined by a space, which no multi-byte character of these charsets contains, so none spans two values.
  const joined = Buffer.concat(legacy.flatMap((bytes) => [bytes, Buffer.from(' ')]));
  const { charset } = guessLegacyCharset(joined, declared, { japanese: declaredLabels.some(isJapaneseLabel) });
  return charset === 'windows-1252' ? undefined : charset;
}

// ---------------------------------------------------------------------------------------------------------------
// Text parts whose label does not fit their bytes.

// ISO-2022-JP's shifts into JIS X 0208 (1978 and 1983), JIS X 0212 and JIS-Roman.
const JIS_ESCAPE = /\x1b(?:\$[@B]|\$\(D|\(J)/;
const UTF8_LABEL = /^utf-?8$/i;
const ASCII_LABEL = /^(?:us-?ascii|ascii|ansi_x3\.4-1968)$/i;
const WIDE_LABEL = /^(?:utf-?16|utf-?32|ucs-?2|ucs-?4)/i;
// A UTF-8 reading with a stray byte or two (a gateway's Latin-1 footer under a UTF-8 text) stays UTF-8: reading it
// all in a legacy charset would garble every other non-ASCII letter.
const MAX_STRAY_BYTES = 2;

/**
 * The charset a text part's bytes are in, when it is not the one its label names (or it names none); undefined
 * when the label fits, or when nothing fits better (noise stays noise, for the unreadable-mail check).
 *
 * - 7-bit bytes with ISO-2022-JP escapes are ISO-2022-JP;
 * - well-formed UTF-8 with 8-bit bytes is UTF-8;
 * - bytes valid in their legacy label keep it;
 * - single 8-bit bytes among ASCII are Latin text: Windows-1252 (a superset of ISO-8859-1's letters);
 * - a UTF-8 text with a stray byte or two stays UTF-8;
 * - otherwise the reading of {@link guessLegacyCharset}, except its last resort: Windows-1252 only for text that
 *   looks like accented Latin.
 */
export function textPartCharset(bytes: Buffer, label: string | undefined): string | undefined {
  const declared = label?.trim().toLowerCase() || undefined;
  if (declared && WIDE_LABEL.test(declared)) return undefined;
  if (isAscii(bytes)) {
    return JIS_ESCAPE.test(bytes.toString('latin1')) && !(declared && isJisLabel(declared)) ? 'iso-2022-jp' : undefined;
  }
  // ISO-2022-JP with its shifts and a stray 8-bit byte or two (a raw no-break space, 8-bit half-width kana, a signature
  // pasted in another charset) is ISO-2022-JP: read in any other charset, all of its Japanese became `$B$*@$…`.
  if (declared && isJisLabel(declared) && JIS_ESCAPE.test(bytes.toString('latin1'))) return undefined;
  if (isValidUtf8(bytes)) return declared && UTF8_LABEL.test(declared) ? undefined : 'utf-8';
  const legacy = declared && !UTF8_LABEL.test(declared) && !ASCII_LABEL.test(declared) && !isJisLabel(declared) && isSupportedCharset(declared);
  if (legacy && validIn(bytes, declared)) return undefined;
  if (isSingleByteLatin(bytes)) return declared === 'windows-1252' ? undefined : 'windows-1252';
  if ((!declared || UTF8_LABEL.test(declared) || ASCII_LABEL.test(declared)) && !hasMoreStrayUtf8Bytes(bytes, MAX_STRAY_BYTES)) return undefined;
  const guess = guessLegacyCharset(bytes, undefined);
  if (guess.charset === 'windows-1252' && !looksLikeAccentedLatin(bytes)) return undefined;
  return guess.charset === declared ? undefined : guess.charset;
}

// The labels of single-byte Latin charsets (and ASCII): what a web system writes on UTF-8 it never converted. Not the
// Cyrillic, Greek, Hebrew or Arabic ones, nor a multi-byte label, whose text is not second-guessed in a header.
const SINGLE_BYTE_LATIN_LABEL = /^(?:iso[-_ ]?8859-(?:1|2|3|4|9|10|13|14|15|16)|latin-?(?:[1-9]|10)|l[1-9]|windows-125[02478]|cp125[02478]|us-?ascii|ascii)$/i;

/**
 * The charset to read an RFC 2047 encoded-word's bytes in instead of its label: 'utf-8' when the label is a single-byte
 * Latin one ({@link SINGLE_BYTE_LATIN_LABEL}) and {@link textPartCharset} reads the bytes as UTF-8, as it does a text
 * part's (a PHP system's `=?iso-8859-1?Q?=E3=81=8A…?=`); undefined when the label stands.
 */
export function encodedWordCharset(bytes: Buffer, label: string): string | undefined {
  if (!SINGLE_BYTE_LATIN_LABEL.test(label.trim())) return undefined;
  return textPartCharset(bytes, label) === 'utf-8' ? 'utf-8' : undefined;
}

// Accented letters are a small share of a Latin text (French about 4 %, Portuguese or Czech more).
const MAX_LATIN_ACCENT_SHARE = 0.15;

/**
 * True for a text in a Latin-1-like charset: every 8-bit byte stands alone (one accented letter or sign: `à`, `ç`,
 * `€`) and they are a small share. UTF-8's accented letters are two bytes, and CJK text has runs of them.
 */
function isSingleByteLatin(bytes: Buffer): boolean {
  let high = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i]! < 0x80) continue;
    if (i + 1 < bytes.length && bytes[i + 1]! >= 0x80) return false;
    high++;
  }
  return high > 0 && high / bytes.length <= MAX_LATIN_ACCENT_SHARE;
}

/** True when the bytes decode in `label` without a replacement character. */
function validIn(bytes: Buffer, label: string): boolean {
  const strict = strictDecode(bytes, label);
  if (strict !== undefined) return true;
  // Labels the platform's decoder does not know (iconv-lite's own aliases) are checked by iconv-lite's reading.
  try {
    new TextDecoder(label);
    return false;
  } catch {
    return !iconv.decode(bytes, label).includes('\ufffd');
  }
}

// Noise has a stray byte at its start: reading on in windows of this size stops there, not after megabytes.
const STRAY_WINDOW_BYTES = 64 * 1024;

/** True when a UTF-8 reading of the bytes has more than `max` replacement characters. */
function hasMoreStrayUtf8Bytes(bytes: Buffer, max: number): boolean {
  const decoder = new TextDecoder('utf-8');
  let stray = 0;
  for (let at = 0; at <= bytes.length; at += STRAY_WINDOW_BYTES) {
    const last = at + STRAY_WINDOW_BYTES > bytes.length;
    const text = decoder.decode(bytes.subarray(at, at + STRAY_WINDOW_BYTES), { stream: !last });
    for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) if (++stray > max) return true;
  }
  return false;
}

// UTF-8 read as Latin-1 or Windows-1252: a lead byte's letter (Â–ô) followed by a continuation byte's character.
const UTF8_READ_AS_LATIN = /[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]/u;

/**
 * True when a text as first decoded shows signs of the wrong charset: undecodable bytes, ISO-2022-JP escapes left
 * as they are, or UTF-8 read as Latin-1. Cheap, so only such mail pays for {@link relabelTextParts}.
 */
export function looksMisdecoded(text: string): boolean {
  return text.includes('\ufffd') || text.includes('\u001b') || UTF8_READ_AS_LATIN.test(text);
}

/** One text part read in another charset than its label: the label (undefined for none) and the charset used. */
export interface CharsetRepair {
  declared: string | undefined;
  charset: string;
  /**
   * True when the label was right and only mailparser's reading of it was not ({@link hasJisCodesMailparserLoses}):
   * no charset problem to name. What the better reading could not decode shows as U+FFFD, which is named.
   */
  redecoded?: boolean;
}

// ISO-2022-JP's two-byte runs, up to the next shift: JIS X 0208 (ESC $ @, ESC $ B), and JIS X 0212 and JIS X 0213
// (ESC $ ( D, O, P, Q), which mailparser does not know at all.
const JIS_TWO_BYTE_RUN = /\x1b\$(?:[@B]|(\([DOPQ]))([^\x1b]*)/g;
// JIS X 0208 codes (lead byte << 8 | trail byte) that mailparser reads as `?`: flagged once, from the platform's table.
let codesMailparserLoses: Uint8Array | undefined;

/** The codes mailparser loses: those the platform's decoder does not know, and NEC row 13's ≒ ≡ ∫ √ ⊥ ∠ ∵ ∩ ∪. */
function jisCodesMailparserLoses(): Uint8Array {
  if (codesMailparserLoses) return codesMailparserLoses;
  const lost = new Uint8Array(0x10000);
  const all: number[] = [];
  for (let lead = 0x21; lead <= 0x7e; lead++) for (let trail = 0x21; trail <= 0x7e; trail++) all.push(lead, trail);
  const read = new TextDecoder('iso-2022-jp').decode(Buffer.concat([Buffer.from('\x1b$B', 'latin1'), Buffer.from(all)]));
  for (let i = 0; i < all.length; i += 2) if (read[i / 2] === '\ufffd') lost[(all[i]! << 8) | all[i + 1]!] = 1;
  for (let code = 0x2d70; code <= 0x2d7c; code++) lost[code] = 1;
  codesMailparserLoses = lost;
  return lost;
}

/**
 * True when ISO-2022-JP `bytes` (a text part, an encoded-word, or a whole 7-bit mail) hold what mailparser's decoder
 * (encoding-japanese) turns into a plain `?` with no sign of a loss: NEC row 13's ≒ ≡ ∫ √ ⊥ ∠ ∵ ∩ ∪ (its ①…⑳ it
 * reads), codes no table holds (the user-defined rows from 85 on, where the phone carriers put their emoji), or a
 * JIS X 0212 or JIS X 0213 run. {@link decodeIso2022Jp} reads the first, and marks the others as U+FFFD.
 */
export function hasJisCodesMailparserLoses(bytes: Buffer): boolean {
  const text = bytes.toString('latin1');
  if (!text.includes('\x1b$')) return false;
  const lost = jisCodesMailparserLoses();
  for (const [, otherSet = '', codes = ''] of text.matchAll(JIS_TWO_BYTE_RUN)) {
    if (otherSet && codes) return true;
    for (let i = 0; i < codes.length; i += 2) {
      // A line break inside a run (against RFC 1468, but written) is no half of a code.
      while (codes[i] === '\r' || codes[i] === '\n') i++;
      if (i < codes.length && lost[(codes.charCodeAt(i) << 8) | codes.charCodeAt(i + 1)]) return true;
    }
  }
  return false;
}

const TEXT_TYPES = new Set(['text/plain', 'text/html']);

/**
 * Most bytes of a mail's inline text parts that {@link relabelTextParts} reads again, all the parts of a type
 * together: what the reader of the mail uses of them, not all of an 8 MB part.
 */
export interface RelabelledTextBudget {
  /** Bytes of the text/plain parts (and parts without a type). */
  plain: number;
  /** Bytes of the text/html parts. */
  html: number;
}

/**
 * Most bytes of one text part its charset is judged on: more than any text a customer writes, so the judgement is the
 * part's own (a megabyte of ASCII, a pasted image's data: URI, may come before the first 8-bit byte), yet bounded
 * for a mail of tens of megabytes. Judging reads each byte a few times (about 80 ms for 8 MB of 8-bit noise).
 */
export const MAX_JUDGED_TEXT_BYTES = 16 * 1024 * 1024;

// A part cut shorter than this adds nothing a ticket uses, and so short a cut may find no line end to fall on.
const MIN_CUT_BYTES = 64 * 1024;

// Bytes that no multi-byte character or escape sequence of an ASCII-based charset (UTF-8, Shift_JIS, EUC-JP,
// ISO-2022-JP, GB18030, Big5, the Latin ones) contains: a cut after one never splits a character or a shift.
const isLineEnd = (b: number) => b === 0x0a;
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0d;
// `>` is no byte of a multi-byte character either, outside ISO-2022-JP's two-byte mode (whose text has ESC bytes).
const isTagEnd = (b: number) => b === 0x3e;

/**
 * The start of a text part's bytes that is read again in its charset: the part itself when it has at most `max`
 * bytes; nothing when `max` is too short a cut to matter ({@link MIN_CUT_BYTES}); else cut after the last line break
 * in the second half of `max` bytes, or after the last space or tag end when a line runs longer (minified HTML), so
 * no character or ISO-2022-JP shift is split and the charset is judged on whole characters. A UTF-16 or UTF-32 part
 * (`label`) is cut after a whole line-break unit. Without any of them (noise) the cut is at `max`, moved back off a
 * split UTF-8 character.
 */
export function textPartBytesToDecode(bytes: Buffer, max: number, label: string | undefined): Buffer {
  if (bytes.length <= max) return bytes;
  if (max < MIN_CUT_BYTES) return bytes.subarray(0, 0);
  const window = bytes.subarray(0, max);
  const unit = wideUnitOf(label);
  if (unit > 1) return bytes.subarray(0, wideLineEnd(window, unit));
  const end =
    lastAfter(window, isLineEnd) ??
    lastAfter(window, isSpace) ??
    (window.includes(0x1b) ? undefined : lastAfter(window, isTagEnd)) ??
    utf8CharEnd(window);
  return bytes.subarray(0, end);
}

/** Bytes per code unit of a UTF-16 or UTF-32 label; 1 for every other. */
function wideUnitOf(label: string | undefined): number {
  if (!label || !WIDE_LABEL.test(label.trim())) return 1;
  return /^(?:utf-?32|ucs-?4)/i.test(label.trim()) ? 4 : 2;
}

/** The end of the last byte that `is` in the second half of `window`, or undefined. */
function lastAfter(window: Buffer, is: (b: number) => boolean): number | undefined {
  for (let i = window.length - 1; i >= window.length / 2; i--) if (is(window[i]!)) return i + 1;
  return undefined;
}

/** `window`'s length, less the start of a UTF-8 character split at its end. */
function utf8CharEnd(window: Buffer): number {
  let end = window.length;
  for (let back = 0; back < 3 && end > 0 && (window[end - 1]! & 0xc0) === 0x80; back++) end--;
  return end > 0 && window[end - 1]! >= 0xc0 ? end - 1 : window.length;
}

/**
 * The end of the last line-break unit (LF, little- or big-endian) in the second half of `window`, else of its last
 * whole unit.
 */
function wideLineEnd(window: Buffer, unit: number): number {
  const whole = window.length - (window.length % unit);
  for (let at = whole - unit; at >= whole / 2; at -= unit) {
    const code = window.subarray(at, at + unit);
    const le = code[0] === 0x0a && code.subarray(1).every((b) => b === 0);
    const be = code[unit - 1] === 0x0a && code.subarray(0, unit - 1).every((b) => b === 0);
    if (le || be) return at + unit;
  }
  return whole;
}

/**
 * The payload of a `data:` URI in an HTML attribute value or a CSS `url()`: an inline image (a pasted screenshot is
 * megabytes of base64, review 42b), a font, a background. Never text: html-to-text skips images, objects, frames and
 * SVG and ignores link targets, so dropping it changes no word of the text, and a cut of the HTML no longer falls
 * inside a picture after the customer's words. `$1$2` keep the attribute's start and the URI's type (bounded:
 * unbounded, its parameters overflowed the stack on 10 MB of `;a=b`). Linear: a match starts at `=` or `url(` and its
 * payload stops at a quote, bracket, angle bracket or space, so it never runs into the next attribute. Applied only
 * inside tags and `<style>` ({@link withoutDataUriPayloads}): in the text itself (`key=data:,お振込先は…`) it would
 * drop the customer's words (review 42c F6).
 */
export const DATA_URI_PAYLOAD = /(=\s*["']?|url\(\s*["']?)(data:[\w.+/-]{0,100}(?:;[\w.+-]{1,100}(?:=[\w.+-]{0,100})?){0,10}),[^"'()<>\s]*/gi;

// Elements whose content is raw text up to their end tag (`<` in it starts no tag), as html-nesting.ts reads them.
const RAW_TEXT_END: Readonly<Record<string, RegExp>> = Object.fromEntries(
  ['style', 'script', 'title', 'textarea', 'xmp'].map((name) => [name, new RegExp(`</${name}`, 'gi')]),
);
const TAG_NAME = /[^\s/>]*/y;
// HTML's white space: tab, LF, FF, CR, space.
const SPACE = new Set([0x09, 0x0a, 0x0c, 0x0d, 0x20]);

/**
 * HTML without the payloads of the `data:` URIs ({@link DATA_URI_PAYLOAD}) in its start tags (`src=`, `href=`,
 * `style="…url(…)"`) and in its `<style>` elements; its text, comments, end tags and other raw-text elements are left
 * as they are. A tag runs to the first `>` outside a quoted attribute value (a quote right after `=`, as HTML reads
 * it); a comment to `-->` (`<!-->` and `<!--->` are empty ones). Where unsure it leaves the HTML alone: a payload kept
 * is at worst text counted as not read, a payload dropped from text is the customer's words lost. Linear: each search
 * goes on from where the last one ended. Works on a latin1 reading of ASCII-based bytes as well: every character it
 * looks for is ASCII.
 */
export function withoutDataUriPayloads(html: string): string {
  const out: string[] = [];
  let copied = 0;
  // Where the next `data:` is at or after `from` (a tag or style without one is left as it is, unsliced).
  const DATA = /data:/gi;
  let nextData = -1;
  const dataAfter = (from: number) => {
    if (nextData !== Infinity && nextData < from) {
      DATA.lastIndex = from;
      nextData = DATA.exec(html)?.index ?? Infinity;
    }
    return nextData;
  };
  const dropIn = (from: number, to: number) => {
    if (to <= from || dataAfter(from) >= to) return;
    out.push(html.slice(copied, from), html.slice(from, to).replace(DATA_URI_PAYLOAD, '$1$2,'));
    copied = to;
  };
  const n = html.length;
  // Raw-text elements with no end tag after some point have none after any later one (kept linear on `<style>` × 1M).
  const unclosed = new Set<string>();
  let pos = 0;
  while (pos < n) {
    const lt = html.indexOf('<', pos);
    if (lt < 0 || lt + 1 >= n) break;
    const next = html[lt + 1]!;
    if (next === '<') {
      pos = lt + 1;
    } else if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 2);
      if (end < 0) break;
      pos = end + 3;
    } else if (next === '!' || next === '?' || next === '/') {
      // An end tag, a doctype, a bogus comment: no payload of an image in it.
      const end = html.indexOf('>', lt + 2);
      if (end < 0) break;
      pos = end + 1;
    } else if (/[A-Za-z]/.test(next)) {
      // A start tag (as HTML reads it: `<` and a letter).
      TAG_NAME.lastIndex = lt + 1;
      const name = TAG_NAME.exec(html)![0].toLowerCase();
      let at = lt + 1 + name.length;
      while (at < n) {
        const c = html.charCodeAt(at);
        if (c === 0x3e /* > */) break;
        at++;
        if (c !== 0x3d /* = */) continue;
        while (at < n && SPACE.has(html.charCodeAt(at))) at++;
        const quote = html[at];
        if (quote === '"' || quote === "'") {
          const close = html.indexOf(quote, at + 1);
          at = close < 0 ? n : close + 1;
        }
      }
      dropIn(lt, at);
      pos = at + 1;
      const rawEnd = RAW_TEXT_END[name];
      if (rawEnd && pos < n) {
        rawEnd.lastIndex = pos;
        const end = unclosed.has(name) ? null : rawEnd.exec(html);
        if (!end) unclosed.add(name);
        if (name === 'style') {
          // Unclosed, a <style> runs to the end.
          dropIn(pos, end ? end.index : n);
          if (!end) break;
        }
        // Unclosed, the rest of a <script>, <title>… is read as HTML: its images' payloads go.
        if (end) pos = end.index;
      }
    } else {
      pos = lt + 1;
    }
  }
  out.push(html.slice(copied));
  return out.join('');
}

/**
 * HTML bytes in an ASCII-based charset ({@link isAsciiBased}) without their data: URIs' payloads
 * ({@link withoutDataUriPayloads}): what is dropped starts after the URI's `,` and ends before an ASCII quote, bracket
 * or space, and the tags and quotes it goes by are ASCII, none of which is a byte of a multi-byte character there, so
 * no character is split.
 */
function withoutDataUriPayloadBytes(html: Buffer): Buffer {
  return Buffer.from(withoutDataUriPayloads(html.toString('latin1')), 'latin1');
}

/**
 * True for a charset whose ASCII bytes always stand for ASCII characters (UTF-8, Shift_JIS, EUC-JP, GB18030, Big5,
 * the Latin ones); not UTF-16 or UTF-32, nor the escape-shifted ISO-2022 family, UTF-7 and HZ, whose text is ASCII
 * bytes.
 */
function isAsciiBased(label: string | undefined): boolean {
  const name = label?.trim().toLowerCase() ?? '';
  return !WIDE_LABEL.test(name) && !/^(?:cs)?iso-?2022|^utf-?7|^hz/.test(name);
}

/**
 * True for an inline text part, which mailsplit's rewriter then writes back in base64. Left to itself, it re-encodes
 * a part as quoted-printable (unless it was base64), whose encoder spends up to 2 µs on an 8-bit byte (bytes of
 * 0x80–0xBF get a line of their own every four); base64 is Buffer's own, and the bytes mailparser reads are the same.
 */
function rewrittenInBase64(node: MimeNode): boolean {
  if (!TEXT_TYPES.has((node.contentType || 'text/plain').toLowerCase()) || node.disposition === 'attachment') return false;
  const getEncoder = node.getEncoder.bind(node);
  node.getEncoder = () => getEncoder('base64');
  return true;
}

/**
 * A part's bytes as mailparser read them again before the rewriter wrote base64: it ends each part with a line break
 * of its own, which in the quoted-printable it wrote every part in that was not base64 became the text's last line end.
 */
function withRewriterLineEnd(bytes: Buffer, encoding: MimeNode['encoding']): Buffer {
  return encoding === 'base64' || bytes[bytes.length - 1] === 0x0a ? bytes : Buffer.concat([bytes, Buffer.from('\n')]);
}

/**
 * The raw mail with the charset label of each inline text part whose bytes are in another charset replaced by
 * theirs ({@link textPartCharset}, judged on the part's first {@link MAX_JUDGED_TEXT_BYTES}), for mailparser to read
 * again; undefined when no label changes or the mail cannot be split. The structure, the other parts and every other
 * header stay as they were; the text parts are re-encoded in base64 ({@link rewrittenInBase64}), so 8-bit bytes
 * survive. They keep only as many bytes as `budget` gives their type ({@link textPartBytesToDecode});
 * `bytesLeftOut` counts the rest, and `bytesLeftOutByType` the rest of each type: a cut of an HTML alternative loses
 * no text when the plain text is what is read (review 42b: a 2 MB pasted image parked a mail read whole).
 */
export async function relabelTextParts(
  raw: Buffer,
  budget: RelabelledTextBudget,
): Promise<{ raw: Buffer; repairs: CharsetRepair[]; bytesLeftOut: number; bytesLeftOutByType: { plain: number; html: number } } | undefined> {
  const repairs: CharsetRepair[] = [];
  const left = { ...budget };
  const bytesLeftOutByType = { plain: 0, html: 0 };
  const splitter = new Splitter();
  const rewriter = new Rewriter(rewrittenInBase64);
  const joiner = new Joiner();
  rewriter.on('node', ({ node, decoder, encoder }: { node: MimeNode; decoder: NodeJS.ReadableStream; encoder: NodeJS.WritableStream }) => {
    const type = (node.contentType || '').toLowerCase() === 'text/html' ? 'html' : 'plain';
    // Only what is judged is held in memory; the rest is counted.
    const chunks: Buffer[] = [];
    let held = 0;
    let size = 0;
    decoder.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (held > MAX_JUDGED_TEXT_BYTES) return;
      chunks.push(chunk);
      held += chunk.length;
    });
    decoder.on('end', () => {
      const declared = node.charset ? node.charset.toLowerCase() : undefined;
      const judged = textPartBytesToDecode(Buffer.concat(chunks), MAX_JUDGED_TEXT_BYTES, declared);
      const charset = textPartCharset(judged, declared);
      // An HTML part over its budget loses its data: URIs' payloads first (a pasted image, never text: see
      // withoutDataUriPayloads), as parse.ts's own HTML cut does; what they held is no byte of text left out.
      const shown = type === 'html' && judged.length > left[type] && isAsciiBased(charset ?? declared) ? withoutDataUriPayloadBytes(judged) : judged;
      const kept = textPartBytesToDecode(shown, left[type], declared);
      left[type] -= kept.length;
      bytesLeftOutByType[type] += size - (judged.length - shown.length) - kept.length;
      if (charset) {
        node.setCharset(charset);
        repairs.push({ declared, charset });
      } else if (declared && isJisLabel(declared) && kept.length === size && isAscii(kept) && hasJisCodesMailparserLoses(kept)) {
        // The label is right, mailparser's reading of it is not: it gets the text read here, as UTF-8. Only a 7-bit
        // part read whole: 8-bit bytes under the label (a UTF-8 signature) mailparser reads and ours would not, and a
        // part cut to the budget would lose its end for one character (review 45a); both keep mailparser's reading.
        node.setCharset('utf-8');
        repairs.push({ declared, charset: 'utf-8', redecoded: true });
        encoder.end(withRewriterLineEnd(Buffer.from(decodeIso2022Jp(kept, true), 'utf8'), node.encoding));
        return;
      }
      encoder.end(withRewriterLineEnd(kept, node.encoding));
    });
  });
  const out: Buffer[] = [];
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.push(chunk);
      done();
    },
  });
  try {
    await pipeline(Readable.from([raw]), splitter, rewriter, joiner, collect);
  } catch {
    return undefined;
  }
  const bytesLeftOut = bytesLeftOutByType.plain + bytesLeftOutByType.html;
  return repairs.length > 0 ? { raw: Buffer.concat(out), repairs, bytesLeftOut, bytesLeftOutByType } : undefined;
}
