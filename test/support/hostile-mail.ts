/**
 * Hostile raw mail for the property tests of the inbound mail path (test/unit/mail-properties.test.ts): fast-check
 * arbitraries that build structurally broken MIME from parts (deep or odd multiparts, broken transfer encodings, real
 * and bogus charsets, broken encoded words, forged and repeated headers, stray control bytes), byte-level mutations of
 * real mails, and {@link pipelineViolations}, which runs a mail through what production runs on it (parse, the ticket
 * the poller stores, the agent worker's reply decision, the sender's reply) and names every broken promise.
 */
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { MailParseError, parseInboundMail, capSubject } from '../../src/mail/parse.js';
import { decideReply, ownMailboxesOf, parkBeforeAgentReason, ourAddressesOf, replySignalHeaders, type MailboxConfig } from '../../src/mail/classify.js';
import { ticketInputForMail } from '../../src/mail/ingest.js';
import { composeReply } from '../../src/mail/compose-reply.js';
import { buildReplyMessage, replyRecipientProblem } from '../../src/mail/smtp-transport.js';
import { isUsableAddress } from '../../src/mail/addresses.js';
import { newTicket } from '../../src/tickets/ticket.js';
import { originalOf } from '../../jobs/send-reply.js';

/** The mailboxes of the desk the properties run as. */
export const DESK: MailboxConfig & { SPAM_HEADER: string } = {
  MAIL_FROM: 'Helpdesk <support@desk.example>',
  SUPPORT_ADDRESSES: ['help@desk.example'],
  SUPPORT_GROUP_ADDRESSES: ['team@groups.desk.example'],
  AUTHSERV_ID: ['mx.desk.example'],
  SPAM_HEADER: 'X-Filter-Verdict',
};

const CHARSETS = [
  'utf-8',
  'UTF-8',
  'us-ascii',
  'iso-2022-jp',
  'ISO-2022-JP',
  'shift_jis',
  'Shift-JIS',
  'cp932',
  'euc-jp',
  'utf-7',
  'gb18030',
  'gb2312',
  'big5',
  'ks_c_5601-1987',
  'windows-1252',
  'iso-8859-1',
  'utf-16',
  'utf-16le',
  'utf-16be',
  'utf-32',
  'x-unknown',
  'garbage\u00ff',
  '',
  '"',
  'utf-8"; x=',
  'iso-2022-jp-2',
  'x-sjis',
  'unicode-1-1-utf-7',
  'binary',
] as const;

const WORDS = ['ログインできません。', 'パスワードを忘れました', 'How do I reset my password?', 'ありがとうございました。', 'Thanks!', '請問如何', '비밀번호', 'unsubscribe', 'Out of office', '不在にしております', '> quoted line', '-- ', '-----Original Message-----', 'From: a@b.example', '😀', '\u202e', '\u200b', '\udc00', '\ud800', 'x'];

/** Bytes of `text` in `charset` when iconv knows it, else UTF-8. */
function encode(text: string, charset: string): Buffer {
  try {
    if (charset && iconv.encodingExists(charset)) return iconv.encode(text, charset);
  } catch {
    // iconv refuses some texts in some charsets: UTF-8 then, which is what a mislabelled part holds anyway.
  }
  return Buffer.from(text, 'utf8');
}

const textArb = fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 })), { maxLength: 12 }).map((parts) => parts.join(' '));

/** Raw body bytes: text in some charset, or bytes no decoder likes (invalid UTF-8, CESU surrogates, NUL, ESC, bare CR). */
const rawBytesArb: fc.Arbitrary<Buffer> = fc.oneof(
  fc.tuple(textArb, fc.constantFrom(...CHARSETS)).map(([t, c]) => encode(t, c)),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
  fc
    .array(fc.constantFrom('\xed\xa0\x80', '\xed\xb0\x80', '\xc3', '\xff\xfe', '\x00', '\x1b$B', '\x1b(B', '\x1b$B%"', '\r', '\n', '\r\n', '=', '=\r\n', '+AGEA-', '+2D3eAA-', '\x1b]0;x\x07', 'abc', '日本'), { maxLength: 30 })
    .map((parts) => Buffer.from(parts.join(''), 'latin1')),
  fc.integer({ min: 1, max: 120_000 }).map((n) => Buffer.alloc(n, 'a')),
  fc.integer({ min: 1, max: 5_000 }).map((n) => Buffer.from('あ'.repeat(n))),
);

function qpEncode(bytes: Buffer, broken: boolean): Buffer {
  let out = '';
  let line = 0;
  for (const b of bytes) {
    const piece = b === 0x0d || b === 0x0a || b === 0x3d || b < 0x20 || b > 0x7e ? `=${b.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(b);
    if (line + piece.length > 75) {
      out += '=\r\n';
      line = 0;
    }
    out += piece;
    line += piece.length;
  }
  // A broken encoder: a lone `=` at the end, an escape of non-hex digits, a soft break with trailing whitespace.
  if (broken) out += '=\r\n \r\n=ZZ=4=';
  return Buffer.from(out, 'latin1');
}

type Cte = '7bit' | '8bit' | 'binary' | 'base64' | 'base64-broken' | 'quoted-printable' | 'quoted-printable-broken' | 'x-uuencode' | 'bogus' | '';

function encodeBody(bytes: Buffer, cte: Cte): { header: string | undefined; body: Buffer } {
  switch (cte) {
    case 'base64': {
      const b = bytes.toString('base64').replace(/.{76}/g, '$&\r\n');
      return { header: 'base64', body: Buffer.from(b, 'latin1') };
    }
    case 'base64-broken': {
      const b = bytes.toString('base64').replace(/=+$/, '').replace(/.{60}/g, '$&\r\n') + '=!*\r\n==A';
      return { header: 'base64', body: Buffer.from(b, 'latin1') };
    }
    case 'quoted-printable':
      return { header: 'quoted-printable', body: qpEncode(bytes, false) };
    case 'quoted-printable-broken':
      return { header: 'Quoted-Printable', body: qpEncode(bytes, true) };
    case '':
      return { header: undefined, body: bytes };
    default:
      return { header: cte, body: bytes };
  }
}

const cteArb = fc.constantFrom<Cte>('7bit', '8bit', 'binary', 'base64', 'base64-broken', 'quoted-printable', 'quoted-printable-broken', 'x-uuencode', 'bogus', '');

/** An RFC 2047 encoded word, well-formed or broken (no end, a bad encoding letter, nested, huge). */
const encodedWordArb: fc.Arbitrary<string> = fc
  .tuple(textArb, fc.constantFrom(...CHARSETS), fc.constantFrom('B', 'Q', 'b', 'q', 'X'), fc.constantFrom('ok', 'open', 'nested', 'huge', 'split', 'bad-b64', 'lang'))
  .map(([text, charset, enc, shape]) => {
    const bytes = encode(text, charset);
    const payload = enc.toUpperCase() === 'B' ? bytes.toString('base64') : bytes.toString('latin1').replace(/[^A-Za-z0-9]/g, (c) => `=${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
    const word = `=?${charset}?${enc}?${payload}?=`;
    switch (shape) {
      case 'open':
        return word.slice(0, -2);
      case 'nested':
        return `=?utf-8?B?${Buffer.from(word).toString('base64')}?=`;
      case 'huge':
        return Array.from({ length: 200 }, () => word).join(' ');
      case 'split':
        return `${word.slice(0, word.length >> 1)}?= =?${charset}?${enc}?${word.slice(word.length >> 1)}`;
      case 'bad-b64':
        return `=?${charset}?B?${payload.slice(1)}!!?=`;
      default:
        return `=?${charset}*ja?${enc}?${payload}?=`;
    }
  });

const addressArb = fc.oneof(
  fc.constantFrom('customer@example.com', 'yamada@example.co.jp', 'support@desk.example', 'help@desk.example', 'noreply@service.example', 'MAILER-DAEMON@mx.example', 'team@groups.desk.example', 'colleague@desk.example'),
  fc.constantFrom('"a@b.example,c"@evil.example', 'user@[192.0.2.1]', '@route.example:user@example.com', 'a%b@c.example', 'user@', '@example.com', '<>', '""@x.example', 'a\r\nBcc: x@evil.example', 'ü@münchen.example', 'x@-bad-.example'),
  fc.tuple(fc.stringMatching(/^[a-z0-9._+-]{1,20}$/), fc.stringMatching(/^[a-z0-9-]{1,10}\.[a-z]{2,4}$/)).map(([l, d]) => `${l}@${d}`),
);

const mailboxArb = fc.oneof(
  addressArb,
  fc.tuple(fc.oneof(textArb, encodedWordArb), addressArb).map(([name, a]) => `${name} <${a}>`),
  fc.tuple(fc.string({ maxLength: 20 }), addressArb).map(([name, a]) => `"${name.replace(/"/g, '\\"')}" <${a}>`),
  fc.tuple(addressArb, addressArb).map(([a, b]) => `${a}, ${b}`),
  fc.tuple(fc.string({ maxLength: 10 }), addressArb).map(([g, a]) => `${g}: ${a};`),
  fc.constant('undisclosed-recipients:;'),
);

const msgIdArb = fc.oneof(
  fc.stringMatching(/^[a-z0-9.$]{1,30}@[a-z0-9.]{1,20}$/).map((s) => `<${s}>`),
  fc.constantFrom('<>', 'no-brackets@example.com', '<a@b', '<a b@c>', '<a@b>\r\n <c@d>', '<\u00e9@x>', '<a@b>>', '<<a@b>'),
  fc.string({ maxLength: 40 }),
);

const HEADER_NAMES = [
  'From',
  'Reply-To',
  'To',
  'Cc',
  'Sender',
  'Subject',
  'Message-ID',
  'In-Reply-To',
  'References',
  'Date',
  'Auto-Submitted',
  'Authentication-Results',
  'X-Spam-Status',
  'X-Spam-Flag',
  'X-Filter-Verdict',
  'Precedence',
  'List-Id',
  'List-Unsubscribe',
  'Return-Path',
  'X-Loop',
  'X-Autoreply',
  'Errors-To',
  'X-Original-From',
  'DKIM-Signature',
  'Content-Type',
  'Content-Transfer-Encoding',
  'MIME-Version',
] as const;

/** One header line (without its line end), its value folded or raw, sometimes with bytes no header may hold. */
const headerArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...HEADER_NAMES),
    fc.oneof(mailboxArb, msgIdArb, encodedWordArb, textArb, fc.constantFrom('auto-replied', 'auto-generated', 'no', 'bulk', 'junk', 'Yes, score=9', 'mx.desk.example; dkim=pass header.d=groups.desk.example; dmarc=pass header.from=desk.example', 'mx.desk.example; spf=fail', 'Mon, 1 Jan 2024 10:00:00 +0900', 'Thu, 31 Feb 99999 25:61:61 +9999', 'text/plain; charset="iso-2022-jp"', 'multipart/mixed')),
    fc.constantFrom('plain', 'folded', 'raw8bit', 'empty', 'nocolonspace', 'lower'),
  )
  .map(([name, value, shape]) => {
    switch (shape) {
      case 'folded':
        return `${name}: ${value.replace(/ /g, '\r\n\t')}`;
      case 'raw8bit':
        return `${name}: ${encode(value, 'shift_jis').toString('latin1')}`;
      case 'empty':
        return `${name}:`;
      case 'nocolonspace':
        return `${name}:${value}`;
      case 'lower':
        return `${name.toLowerCase()}: ${value}`;
      default:
        return `${name}: ${value}`;
    }
  });

const referencesArb = fc.integer({ min: 1, max: 5000 }).map((n) => `References: ${Array.from({ length: n }, (_, i) => `<id${i}@thread.example>`).join('\r\n ')}`);

/** A MIME entity: its header lines and body bytes. */
interface Entity {
  headers: string[];
  body: Buffer;
}

const LEAF_TYPES = ['text/plain', 'text/html', 'text/enriched', 'application/octet-stream', 'application/pdf', 'image/png', 'message/rfc822', 'message/delivery-status', 'text/rfc822-headers', 'application/pkcs7-mime', 'text/calendar', 'application/ms-tnef', '', 'text', 'bogus/'] as const;

const htmlArb = fc
  .tuple(fc.integer({ min: 0, max: 3000 }), fc.constantFrom('div', 'table', 'b', 'span style="display:none"', 'blockquote', 'font'), textArb, fc.boolean())
  .map(([depth, tag, text, close]) => {
    const name = tag.split(' ')[0]!;
    return `<html><body>${`<${tag}>`.repeat(depth)}${text}<p>unclosed <a href="http://x.example/?u=1">unsubscribe</a><img src=x>${close ? `</${name}>`.repeat(depth) : ''}`;
  });

const filenameParamArb = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 20 }).map((s) => `; filename="${s}"`),
  encodedWordArb.map((w) => `; filename="${w}"`),
  fc.tuple(fc.constantFrom(...CHARSETS), textArb).map(([c, t]) => `; filename*=${c}''${[...encode(t, c).subarray(0, 100)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`),
  fc.constant("; filename*0*=utf-8''%E3%81%82; filename*1*=%ZZ; filename*3=\"x\""),
  fc.constant('; filename*=garbage'),
);

const leafArb: fc.Arbitrary<Entity> = fc
  .tuple(fc.constantFrom(...LEAF_TYPES), fc.constantFrom(...CHARSETS), cteArb, fc.oneof(rawBytesArb, htmlArb.map((h) => Buffer.from(h))), fc.constantFrom('', 'inline', 'attachment', 'bogus'), filenameParamArb, fc.boolean())
  .map(([type, charset, cte, bytes, disposition, filename, withCharset]) => {
    const encoded = encodeBody(bytes, cte);
    const headers: string[] = [];
    if (type !== '' || withCharset) headers.push(`Content-Type: ${type || 'text/plain'}${withCharset ? `; charset="${charset}"` : ''}${disposition ? '' : filename.replace('filename', 'name')}`);
    if (encoded.header) headers.push(`Content-Transfer-Encoding: ${encoded.header}`);
    if (disposition) headers.push(`Content-Disposition: ${disposition}${filename}`);
    return { headers, body: encoded.body };
  });

const boundaryArb = fc.oneof(fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,70}$/), fc.constantFrom('', ' ', 'b', 'b"', '=_', '--', 'x'.repeat(200), 'a b', 'ü'));

/** A multipart of `children`, with odd boundaries: missing, empty, repeated in a body, a lost close, preamble. */
function multipart(children: Entity[], subtype: string, boundary: string, shape: string): Entity {
  const parts = children.map((c) => Buffer.concat([Buffer.from(`--${boundary}\r\n${c.headers.join('\r\n')}\r\n\r\n`, 'latin1'), c.body, Buffer.from('\r\n')]));
  const header = shape === 'no-boundary' ? `Content-Type: multipart/${subtype}` : `Content-Type: multipart/${subtype}; boundary="${boundary}"`;
  const preamble = shape === 'preamble' ? `This is a multi-part message in MIME format.\r\n--${boundary}x\r\n` : '';
  const close = shape === 'unclosed' ? '' : `--${boundary}--\r\n`;
  const inBody = shape === 'boundary-in-body' ? `--${boundary}\r\n--${boundary}--\r\n` : '';
  return { headers: [header], body: Buffer.concat([Buffer.from(preamble + inBody, 'latin1'), ...parts, Buffer.from(close + (shape === 'epilogue' ? `--${boundary}\r\ntrailing` : ''), 'latin1')]) };
}

const multipartShapeArb = fc.constantFrom('ok', 'ok', 'no-boundary', 'preamble', 'unclosed', 'boundary-in-body', 'epilogue');
const subtypeArb = fc.constantFrom('mixed', 'alternative', 'related', 'report; report-type=delivery-status', 'signed', 'encrypted', 'digest', 'x-bogus');

const { tree: entityArb } = fc.letrec<{ tree: Entity; node: Entity }>((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leafArb, tie('node')),
  node: fc
    .tuple(fc.array(tie('tree'), { minLength: 0, maxLength: 4 }), subtypeArb, boundaryArb, multipartShapeArb)
    .map(([children, subtype, boundary, shape]) => multipart(children, subtype, boundary, shape)),
}));

/** A chain of single-child multiparts up to 30 deep around an entity (the innermost text). */
const deepArb: fc.Arbitrary<Entity> = fc.tuple(fc.integer({ min: 1, max: 30 }), leafArb, fc.boolean()).map(([depth, leaf, sameBoundary]) => {
  let entity = leaf;
  for (let i = 0; i < depth; i++) entity = multipart([entity], 'mixed', sameBoundary ? 'same' : `b${i}`, 'ok');
  return entity;
});

/** How the lines of a whole mail end: CRLF as sent, LF as stored, CR alone, or a mix. */
const lineEndArb = fc.constantFrom('crlf', 'crlf', 'lf', 'cr', 'mixed');

function withLineEnds(raw: Buffer, ends: string): Buffer {
  if (ends === 'crlf') return raw;
  const text = raw.toString('latin1');
  if (ends === 'lf') return Buffer.from(text.replace(/\r\n/g, '\n'), 'latin1');
  if (ends === 'cr') return Buffer.from(text.replace(/\r\n/g, '\r'), 'latin1');
  let i = 0;
  return Buffer.from(
    text.replace(/\r\n/g, () => ['\r\n', '\n', '\r'][i++ % 3]!),
    'latin1',
  );
}

/** A whole hostile mail built from parts. */
export const hostileMailArb: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.tuple(mailboxArb, fc.oneof(textArb, encodedWordArb), msgIdArb, fc.subarray(['from', 'subject', 'message-id', 'mime'])),
    fc.array(headerArb, { maxLength: 25 }),
    fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: referencesArb }),
    fc.oneof({ weight: 3, arbitrary: entityArb }, { weight: 1, arbitrary: deepArb }),
    lineEndArb,
    fc.boolean(),
  )
  .map(([[from, subject, messageId, usual], headers, references, entity, ends, bodyFirst]) => {
    // Most mails have the usual fields, so the checks past parsing see a sender, a subject and an id.
    const first = [
      ...(usual.includes('from') ? [`From: ${from}`] : []),
      ...(usual.includes('subject') ? [`Subject: ${subject}`] : []),
      ...(usual.includes('message-id') ? [`Message-ID: ${messageId}`] : []),
      ...(usual.includes('mime') ? ['MIME-Version: 1.0'] : []),
    ];
    const lines = [...first, ...headers, ...(references ? [references] : []), ...entity.headers];
    const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
    const raw = bodyFirst && lines.length === 0 ? entity.body : Buffer.concat([head, entity.body]);
    return withLineEnds(raw, ends);
  });

/** One byte-level change to a real mail. */
export type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number; byte: number }
  | { kind: 'splice'; at: number; bytes: Uint8Array }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'duplicate-header'; index: number }
  | { kind: 'duplicate-range'; at: number; length: number }
  | { kind: 'line-ends'; to: string };

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.nat().map((at) => ({ kind: 'truncate' as const, at })),
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => ({ kind: 'flip' as const, at, byte })),
  fc.tuple(fc.nat(), fc.oneof(fc.uint8Array({ maxLength: 40 }), rawBytesArb.map((b) => new Uint8Array(b.subarray(0, 400))), headerArb.map((h) => new Uint8Array(Buffer.from(`\r\n${h}\r\n`, 'latin1'))))).map(([at, bytes]) => ({ kind: 'splice' as const, at, bytes })),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 400 })).map(([at, length]) => ({ kind: 'delete' as const, at, length })),
  fc.nat({ max: 40 }).map((index) => ({ kind: 'duplicate-header' as const, index })),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 2000 })).map(([at, length]) => ({ kind: 'duplicate-range' as const, at, length })),
  fc.constantFrom('lf', 'cr', 'mixed').map((to) => ({ kind: 'line-ends' as const, to })),
);

/** `raw` with `mutations` applied in order (positions taken modulo the length then). */
export function mutate(raw: Buffer, mutations: readonly Mutation[]): Buffer {
  let out = raw;
  for (const m of mutations) {
    const at = (n: number) => (out.length === 0 ? 0 : n % (out.length + 1));
    switch (m.kind) {
      case 'truncate':
        out = out.subarray(0, at(m.at));
        break;
      case 'flip':
        if (out.length > 0) {
          out = Buffer.from(out);
          out[m.at % out.length] = m.byte;
        }
        break;
      case 'splice':
        out = Buffer.concat([out.subarray(0, at(m.at)), m.bytes, out.subarray(at(m.at))]);
        break;
      case 'delete':
        out = Buffer.concat([out.subarray(0, at(m.at)), out.subarray(at(m.at) + m.length)]);
        break;
      case 'duplicate-range':
        out = Buffer.concat([out.subarray(0, at(m.at) + m.length), out.subarray(at(m.at))]);
        break;
      case 'duplicate-header': {
        const text = out.toString('latin1');
        const end = text.search(/\r?\n\r?\n/);
        const lines = [...(end < 0 ? text : text.slice(0, end)).matchAll(/^[^\s:]+:.*(?:\r?\n[ \t].*)*/gm)];
        const line = lines.length > 0 ? lines[m.index % lines.length] : undefined;
        if (line) out = Buffer.from(text.slice(0, line.index) + `${line[0]}\r\n` + text.slice(line.index), 'latin1');
        break;
      }
      case 'line-ends':
        out = withLineEnds(out, m.to);
        break;
    }
  }
  return out;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LINE_BREAK = /[\r\n]/;
// What a subject or a name on a ticket must not hold: control characters but tab (parsing removes them), line breaks.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;

/**
 * Runs `raw` through what production runs on an inbound mail and returns every broken promise, [] when none:
 * parsing throws nothing but {@link MailParseError} with a reason; the parsed subject and names are one line without
 * control characters or half surrogate pairs; a From is a usable address; the ticket the poller stores builds; the
 * reply decision gives a reason for every mail it does not answer, and the park check a non-empty reason or none; a
 * reply composed for the ticket goes to one address, threads by ids without line breaks, and has a subject without
 * control characters. Throws what the code under test throws, other than MailParseError.
 */
export async function pipelineViolations(raw: Buffer): Promise<string[]> {
  const problems: string[] = [];
  let mail;
  try {
    mail = await parseInboundMail(raw, { extraHeaders: replySignalHeaders(DESK), ownAddresses: ourAddressesOf(DESK) });
  } catch (err) {
    if (err instanceof MailParseError && err.message.trim() !== '') return [];
    throw err;
  }
  const line = (what: string, value: string | undefined) => {
    if (value === undefined) return;
    if (CONTROL.test(value)) problems.push(`${what} holds a control character or line break: ${JSON.stringify(value.slice(0, 200))}`);
    if (LONE_SURROGATE.test(value)) problems.push(`${what} holds half a surrogate pair: ${JSON.stringify(value.slice(0, 200))}`);
  };
  line('subject', mail.subject);
  if (capSubject(mail.subject).cutFrom !== undefined) problems.push('subject is longer than capSubject allows');
  line('From name', mail.from?.name);
  line('Reply-To name', mail.replyTo?.name);
  for (const a of mail.attachments) line('attachment name', a.filename);
  if (mail.from && !isUsableAddress(mail.from.address)) problems.push(`From ${JSON.stringify(mail.from.address)} is not a usable address`);
  if (mail.replyTo && LINE_BREAK.test(mail.replyTo.address)) problems.push(`Reply-To ${JSON.stringify(mail.replyTo.address)} holds a line break`);
  for (const id of [mail.messageId, mail.inReplyTo, ...mail.references]) if (id !== undefined && /[\s<>]/.test(id.slice(1, -1))) problems.push(`message id ${JSON.stringify(id)} holds whitespace or brackets`);
  for (const text of [mail.text, mail.question]) if (LONE_SURROGATE.test(text)) problems.push(`text holds half a surrogate pair`);

  const input = ticketInputForMail(mail, raw, { rawRef: 'raw:test', mailboxes: ownMailboxesOf(DESK) });
  const ticket = newTicket(input, new Date('2026-01-01T00:00:00Z'));
  if (input.replySignals) {
    const signals = { ...input.replySignals, subject: ticket.subject, inReplyTo: ticket.inReplyTo, references: ticket.references };
    const decision = decideReply(signals, { ...ownMailboxesOf(DESK), spamHeader: { name: DESK.SPAM_HEADER } });
    if (!decision.answer && decision.detail.trim() === '') problems.push(`decision ${decision.reason} without a reason`);
    const park = parkBeforeAgentReason({ ...signals, question: ticket.question }, DESK);
    if (park !== undefined && park.trim() === '') problems.push('parked with an empty reason');
  }

  const reply = composeReply({ original: originalOf(ticket), answer: 'ご質問ありがとうございます。', from: DESK.MAIL_FROM ?? '', messageId: '<reply-1@desk.example>', automatic: true });
  if (LINE_BREAK.test(reply.to)) problems.push(`reply To ${JSON.stringify(reply.to)} holds a line break`);
  if (reply.toName !== undefined && CONTROL.test(reply.toName)) problems.push(`reply To name ${JSON.stringify(reply.toName)} holds a control character`);
  if (CONTROL.test(reply.subject)) problems.push(`reply subject ${JSON.stringify(reply.subject)} holds a control character`);
  for (const id of [reply.inReplyTo, ...(reply.references ?? [])]) if (id !== undefined && /[\r\n\s]/.test(id)) problems.push(`reply threading id ${JSON.stringify(id)} holds whitespace`);
  const refused = replyRecipientProblem(reply);
  if (refused === undefined && !isUsableAddress(reply.to)) problems.push(`reply to ${JSON.stringify(reply.to)} passed the sender's check`);
  if (refused === undefined && reply.to !== mail.replyTo?.address && reply.to !== (ticket.from || undefined)) problems.push(`reply goes to ${JSON.stringify(reply.to)}, neither the mail's Reply-To nor its From`);
  if (refused === undefined) {
    // What goes on the wire: one To field, every header line ending in CRLF, no line a name or subject broke off.
    const { raw: built, envelope } = await buildReplyMessage(reply);
    const head = built.toString('latin1').split('\r\n\r\n')[0]!;
    const fields = head.split('\r\n');
    if (/\r(?!\n)|(?<!\r)\n/.test(head)) problems.push('reply header section holds a bare CR or LF');
    if (fields.filter((f) => /^to:/i.test(f)).length !== 1) problems.push('reply has not exactly one To field');
    if (fields.some((f) => /^(?:bcc|cc):/i.test(f))) problems.push('reply has a Cc or Bcc field');
    if (envelope.to.length !== 1) problems.push(`reply envelope names ${envelope.to.length} recipients`);
  }
  return problems;
}

/**
 * A mail of more MIME parts than mailparser reads (over 1,000): flat, nested under one boundary or under one boundary
 * per level, with the text first, last or innermost. Slow to parse (about half a second each): for exploring.
 */
export const manyPartsArb: fc.Arbitrary<Buffer> = fc
  .tuple(fc.integer({ min: 40, max: 1600 }), fc.constantFrom('flat', 'nested-same', 'nested-own', 'mixed'), leafArb, lineEndArb, fc.boolean())
  .map(([count, shape, leaf, ends, textFirst]) => {
    const text: Entity = { headers: ['Content-Type: text/plain; charset=utf-8'], body: Buffer.from('請求書が届きません。') };
    let entity: Entity;
    if (shape === 'flat') {
      const parts = Array.from({ length: count }, () => leaf);
      entity = multipart(textFirst ? [text, ...parts] : [...parts, text], 'mixed', 'flat', 'ok');
    } else {
      entity = text;
      for (let i = 0; i < count; i++) {
        const boundary = shape === 'nested-same' ? 'same' : shape === 'mixed' ? `m${i % 7}` : `n${i}`;
        entity = multipart(textFirst ? [entity, leaf] : [leaf, entity], 'mixed', boundary, 'ok');
      }
    }
    const head = Buffer.from(`From: taro@customer.example\r\nSubject: parts\r\nMessage-ID: <many@customer.example>\r\nMIME-Version: 1.0\r\n${entity.headers.join('\r\n')}\r\n\r\n`, 'latin1');
    return withLineEnds(Buffer.concat([head, entity.body]), ends);
  });
