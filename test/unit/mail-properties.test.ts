/**
 * Property tests of the inbound mail path: hostile MIME built from parts, and real mails (the shared mikel-mail corpus
 * and our fixtures) mutated byte by byte, go through what production runs on a mail (parse, the ticket the poller
 * stores, the reply decision, the reply the sender composes and builds). The bar: bad input gets a clear error, an
 * ignored or a parked ticket with a reason; never a crash or a broken reply ({@link pipelineViolations} says what
 * each promise is). Fixed seeds and run counts keep the file deterministic; a stall shows as the test's timeout.
 * The rows after the properties are the inputs the properties found, each as its own plain case. Those rows, not the
 * seeded properties, guard the fixes they name: seeds 4810 and 4811 pass against the code before them too.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_HEADER_SECTION_BYTES, parseInboundMail, TEXT_NOT_READ_WHOLE } from '../../src/mail/parse.js';
import { decideReply, ownMailboxesOf, ourAddressesOf, parkBeforeAgentReason, replySignalHeaders } from '../../src/mail/classify.js';
import { ticketInputForMail } from '../../src/mail/ingest.js';
import { newTicket } from '../../src/tickets/ticket.js';
import { visibleHeaderText } from '../../src/mail/invisible.js';
import { attachmentDisposition, attachmentFileName } from '../../src/server/attachments.js';
import { DESK, hostileMailArb, mutate, mutationArb, pipelineViolations } from '../support/hostile-mail.js';
import { MAIL_CORPUS_DIR, mailCorpusFiles } from '../support/mail-corpus.js';

const FIXTURES_DIR = path.resolve(import.meta.dirname, '../fixtures/mail');

// Sorted by path (mailCorpusFiles sorts its own): readdirSync's order differs between filesystems, and a fixed seed
// picks mails by index.
const realMails: Buffer[] = [
  ...mailCorpusFiles().map((file) => readFileSync(path.join(MAIL_CORPUS_DIR, file))),
  ...readdirSync(FIXTURES_DIR, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort()
    .map((file) => readFileSync(file)),
];

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The boundaries `raw` declares anywhere (top level and nested parts), as they are written. */
function declaredBoundaries(raw: Buffer): Set<string> {
  const found = raw.toString('latin1').matchAll(/\bboundary\s*=\s*(?:"([^"\r\n]+)"|([^\s;"]+))/gi);
  return new Set([...found].map((m) => (m[1] ?? m[2])!));
}

/**
 * {@link pipelineViolations}, and one promise more: a mail the desk would answer (not parked at ingest as unreadable,
 * answered by the reply decision and let through by the park check) has no raw MIME in its question: a line of one of
 * the mail's declared boundaries followed by a part's Content-Type. A boundary the mail does not declare (a mutation
 * cut its declaration) leaves such lines in the text a mail client shows too.
 */
async function violations(raw: Buffer): Promise<string[]> {
  const problems = await pipelineViolations(raw);
  let mail;
  try {
    mail = await parseInboundMail(raw, { extraHeaders: replySignalHeaders(DESK), ownAddresses: ourAddressesOf(DESK) });
  } catch {
    return problems; // pipelineViolations judged the error already.
  }
  const input = ticketInputForMail(mail, raw, { rawRef: 'raw:test', mailboxes: ownMailboxesOf(DESK) });
  if (!input.replySignals || input.unreadable !== undefined) return problems;
  const ticket = newTicket(input, new Date('2026-01-01T00:00:00Z'));
  const lines = ticket.question.split(/\r?\n/);
  const boundaries = declaredBoundaries(raw);
  const rawMime = lines.some((line, i) => line.startsWith('--') && boundaries.has(line.slice(2).trimEnd()) && /^\s*content-type:/i.test(lines[i + 1] ?? ''));
  if (!rawMime) return problems;
  const signals = { ...input.replySignals, subject: ticket.subject, inReplyTo: ticket.inReplyTo, references: ticket.references };
  const decision = decideReply(signals, { ...ownMailboxesOf(DESK), spamHeader: { name: DESK.SPAM_HEADER } });
  if (decision.answer && parkBeforeAgentReason({ ...signals, question: ticket.question }, DESK) === undefined) {
    problems.push(`raw MIME in the question of a mail that is answered: ${JSON.stringify(ticket.question.slice(0, 200))}`);
  }
  return problems;
}

describe('the inbound mail path on hostile input', () => {
  it('keeps its promises for MIME built from hostile parts', async () => {
    await fc.assert(
      fc.asyncProperty(hostileMailArb, async (raw) => {
        expect(await violations(raw)).toEqual([]);
      }),
      { seed: 4810, numRuns: 150 },
    );
  });

  it('keeps its promises for real mails cut, spliced, flipped and with headers repeated', async () => {
    expect(realMails.length).toBeGreaterThan(100);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: realMails.length - 1 }), fc.array(mutationArb, { minLength: 1, maxLength: 4 }), async (index, mutations) => {
        expect(await violations(mutate(realMails[index]!, mutations))).toEqual([]);
      }),
      { seed: 4811, numRuns: 250 },
    );
  });
});

/** A multipart mail of `parts` (header lines and a body each) under the usual top-level fields. */
function multipartMail(parts: string[], headers: string[] = []): Buffer {
  return Buffer.from(
    [
      'From: Taro Yamada <taro@customer.example>',
      'To: support@desk.example',
      'Subject: 請求書について',
      'Message-ID: <props-1@customer.example>',
      ...headers,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      ...parts.flatMap((part) => ['--b1', part]),
      '--b1--',
      '',
    ].join('\r\n'),
  );
}

describe('inputs the properties found', () => {
  // mailparser gives a part whose Content-Type field is empty (or cut off at the end of the mail) the type `false`;
  // parsing threw a TypeError on it, so the poller could store no ticket and fetched the mail again on every poll.
  it.each([
    ['an empty Content-Type on a part beside the text', multipartMail(['Content-Type: text/plain; charset=utf-8\r\n\r\n請求書が届きません。', 'Content-Type:\r\n\r\nhi'])],
    ['an empty Content-Type on the only part', multipartMail(['Content-Type:\r\n\r\n請求書が届きません。'])],
    ['a part cut off after its Content-Type field name', Buffer.from('From: taro@customer.example\r\nSubject: x\r\nContent-Type: multipart/mixed; boundary="A3"\r\n\r\n--A3\r\nContent-Type: ')],
  ])('parses a mail with %s, and the part is a file of unknown type', async (_, raw) => {
    const mail = await parseInboundMail(raw);
    expect(mail.attachments.map((a) => a.contentType)).toEqual(['application/octet-stream']);
    expect(await violations(raw)).toEqual([]);
  });

  // An encoded word in UTF-16 (or UTF-7) decodes to whatever code units its bytes spell, half a surrogate pair too;
  // such a file name made the attachment download's Content-Disposition throw (encodeURIComponent), and a subject or
  // name carried it onto the ticket and into the reply.
  it('reads a subject, a name and a file name holding half a surrogate pair as U+FFFD', async () => {
    // `Hi` + U+DC00, `Ya` + U+DC00, `r` + U+DC00 + `.pdf` in UTF-16LE.
    const raw = multipartMail(
      ['Content-Type: text/plain; charset=utf-8\r\n\r\n請求書が届きません。', 'Content-Type: application/pdf\r\nContent-Disposition: attachment; filename="=?utf-16le?B?cgAA3C4AcABkAGYA?="\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0='],
      ['Reply-To: =?utf-16le?B?WQBhAADc?= <taro@customer.example>', 'Subject: =?utf-16le?B?SABpAADc?='],
    );
    const mail = await parseInboundMail(raw);
    expect(mail.subject).toBe('Hi\uFFFD');
    expect(mail.replyTo?.name).toBe('Ya\uFFFD');
    expect(mail.attachments[0]?.filename).toBe('r\uFFFD.pdf');
    expect(mail.charsetProblems).toContain('subject contains replacement characters (undecodable bytes)');
    expect(await violations(raw)).toEqual([]);
  });

  // Over mailparser's 1,000 parts, a mail is read as its first 500, cut at the boundaries it declares first (at most 50
  // of them). A multipart nested deeper than that, each level with a boundary of its own, has no such cut: it was
  // read as undecoded text, and its raw MIME went to the agent as the question instead of the mail being parked.
  it.each([
    ['CRLF', '\r\n'],
    ['LF', '\n'],
  ])('parks a multipart nested 1,200 deep under boundaries of its own (%s line ends) as not read whole', async (_, newline) => {
    let body = 'Content-Type: text/plain; charset=utf-8\r\n\r\n請求書が届きません。\r\n';
    for (let level = 0; level < 1200; level++) body = `Content-Type: multipart/mixed; boundary="n${level}"\r\n\r\n--n${level}\r\n${body}--n${level}--\r\n`;
    const raw = Buffer.from(`From: taro@customer.example\r\nSubject: 請求書\r\nMessage-ID: <deep@customer.example>\r\nMIME-Version: 1.0\r\n${body}`.replace(/\r\n/g, newline));
    const mail = await parseInboundMail(raw);
    expect(mail.unreadable).toMatch(new RegExp(`^${TEXT_NOT_READ_WHOLE} \\(.*1,000 MIME parts`));
    expect(await violations(raw)).toEqual([]);
  });

  // Any other failure of mailparser than the part limit (here a second part's header section over its 1 MB limit,
  // EMAXLEN) fell back to the undecoded body: boundaries, part headers and base64 became the question, answered.
  it('parks a multipart whose part has a header section over the limit as not read whole, naming the limit', async () => {
    const field = `X-Pad: ${'a'.repeat(70)}\r\n`;
    const pad = field.repeat(Math.ceil(MAX_HEADER_SECTION_BYTES / field.length) + 10);
    const raw = multipartMail([
      `Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from('請求書が届きません。').toString('base64')}`,
      `Content-Type: application/pdf\r\n${pad}\r\nJVBERi0=`,
    ]);
    const mail = await parseInboundMail(raw);
    expect(mail.unreadable).toMatch(new RegExp(`^${TEXT_NOT_READ_WHOLE} \\(.*header section of one of its MIME parts is over the parser's limit of 1 MB.*read undecoded`));
    expect(await violations(raw)).toEqual([]);
  });

  it.each([
    ['a high half alone', 'report\ud800.pdf', 'report\uFFFD.pdf'],
    ['a low half alone', '\udc00report.pdf', '\uFFFDreport.pdf'],
    ['a pair kept', 'report😀.pdf', 'report😀.pdf'],
  ])('a header text with %s is well-formed, and names a download', (_, name, expected) => {
    const visible = visibleHeaderText(name).text;
    expect(visible).toBe(expected);
    expect(LONE_SURROGATE.test(visible)).toBe(false);
    expect(() => attachmentDisposition(attachmentFileName(name, 1), 1)).not.toThrow();
  });
});
