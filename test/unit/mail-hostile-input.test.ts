/**
 * Hostile input from the 40th audit (tmp/hostile40): mail a stranger shapes so that reading it costs the poller or the
 * agent worker tens of seconds, or loses what the checks before the agent read. Each row runs the real entry point at
 * the product's cap and asserts what the mail is read as; before the fixes the rows of 1 ran past their timeout, those
 * of 2 kept one charset note per encoded-word, and those of 3 dropped the reply signals.
 */
import { describe, expect, it } from 'vitest';
import { decideReply, MAX_REPLY_SIGNALS_CHARS, ownMailboxesOf, parkBeforeAgentReason, REPLY_SIGNAL_HEADERS, replySignalsOf } from '../../src/mail/classify.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { AUDIT_MAILBOX_CONFIG, mailOutcome } from '../support/mail-outcome.js';

/** A UTF-8 mail to our support address, `from` and `subject` as written in the header. */
function rawMail(body: string, { from = 'Taro Yamada <taro@customer.example.co.jp>', subject = 'Question about the invoice' } = {}): Buffer {
  const head = [
    `From: ${from}`,
    'To: XYZ Support <support@helpdesk.example.jp>',
    `Subject: ${subject}`,
    'Message-ID: <hostile40@customer.example.co.jp>',
    'Date: Mon, 15 Jan 2024 10:00:00 +0900',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${body.replace(/\n/g, '\r\n')}`);
}

const QUESTION = '請求書の再発行をお願いできますか。';
// The fixed reader takes a few milliseconds on these mails; the broken one took 20 s and more, which the suite's
// 30-second timeout would not always catch on a fast machine.
const HOSTILE_TIMEOUT_MS = 5_000;

describe('a sender-shaped line under a Chinese separator (finding 1)', () => {
  // The bare sender line's tail was two whitespace runs around an optional `;`: a line of word characters, an address,
  // then spaces and one more character backtracked once per way to split the name from the address and per space
  // (23 s for the first 16,000 characters, which is all the own-words reader scans).
  const spaces = ' '.repeat(15_900);
  it.each([
    { name: 'spaces and a character after the address: no sender line, the separator is the customer’s text', line: `${'a'.repeat(60)}@b.cc${spaces}x`, quoted: false },
    { name: 'spaces only after the address: a sender line, the quote below it is cut', line: `XYZ Support <support@helpdesk.example.jp>${spaces}`, quoted: true },
  ])('$name', async ({ line, quoted }) => {
    const mail = await parseInboundMail(rawMail(`${QUESTION}\n-----原始邮件-----\n${line}\n以前の回答です。\n`));
    expect(mail.question.startsWith(QUESTION)).toBe(true);
    expect(mail.question.includes('原始邮件')).toBe(!quoted);
  }, HOSTILE_TIMEOUT_MS);
});

describe('encoded-words in unknown charsets, each a different one (finding 2)', () => {
  // Every encoded-word named a charset of its own, and each note was checked against every note before it: 20,000 of
  // them (300 KB) held the poller for over 10 s, 0.8 MB (within mailsplit's 1 MiB header) for a minute. The notes are
  // now a set, and past 20 only counted: what these rows check, on a few hundred words, without timing anything (the
  // list had one note per word). What is left is linear, iconv-lite's lookup of each unknown label (some 40 µs a word).
  const words = (count: number): string => Array.from({ length: count }, (_, i) => `=?x-${i}?Q?a?=`).join(' ');
  const COUNT = 300;

  it('in a From display name: the mail is read, and its charset notes name the first few and count the rest', async () => {
    const mail = await parseInboundMail(rawMail(`${QUESTION}\n`, { from: `${words(COUNT)} <taro@customer.example.co.jp>` }), { extraHeaders: REPLY_SIGNAL_HEADERS });
    expect(mail.question).toBe(QUESTION);
    expect(mail.from?.address).toBe('taro@customer.example.co.jp');
    const problems = mail.charsetProblems ?? [];
    expect(problems.slice(0, 2)).toEqual(['from: unknown charset "x-0" in an encoded-word', 'from: unknown charset "x-1" in an encoded-word']);
    expect(problems).toHaveLength(21);
    // Each label is named twice: in its encoded-word, and among the charsets the mail declares.
    expect(problems.at(-1)).toBe(`…and ${(2 * COUNT - 20).toLocaleString('en')} more charset problems`);
  });

  it('in the Subject: the mail is read', async () => {
    const mail = await parseInboundMail(rawMail(`${QUESTION}\n`, { subject: words(COUNT) }), { extraHeaders: REPLY_SIGNAL_HEADERS });
    expect(mail.question).toBe(QUESTION);
    expect(mail.charsetProblems).toHaveLength(21);
    expect(mail.charsetProblems?.at(-1)).toMatch(/^…and [\d,]+ more charset problems$/);
  });

  it('a few unknown charsets are each named, with no count', async () => {
    const mail = await parseInboundMail(rawMail(`${QUESTION}\n`, { from: `${words(3)} <taro@customer.example.co.jp>` }));
    expect(mail.charsetProblems).toEqual([
      ...[0, 1, 2].map((i) => `from: unknown charset "x-${i}" in an encoded-word`),
      ...[0, 1, 2].map((i) => `unknown charset "x-${i}"; its text was read as UTF-8`),
    ]);
  });
});

describe('a From with a long display name keeps the reply signals on the ticket (finding 3)', () => {
  // The From header is a reply signal (for an address the parser left out); as written, with a display name of 8,000
  // characters or more beside the parsed name, it pushed the signals over the ticket's cap, and they were dropped. The
  // parser keeps no From with an address no reply may go to, so there the header alone counts: a longer name.
  const name = (chars: number): string => '山田'.repeat(chars / 2);
  const mailboxes = ownMailboxesOf(AUDIT_MAILBOX_CONFIG);
  it.each([
    { from: `"${name(12_000)}" <taro@customer.example.co.jp>`, why: 'a usable address' },
    { from: `"${name(18_000)}" <noreply@[192.0.2.1]>`, why: 'a no-reply domain literal (ignored as no-reply)' },
    { from: `"${name(18_000)}" <taro@[192.0.2.1]>`, why: 'a domain literal (parked)' },
    { from: `"${name(18_000)}" <"taro yamada"@customer.example.co.jp>`, why: 'a quoted local part (parked)' },
    { from: `"${name(18_000)}" <taro%customer.example@relay.example>`, why: 'a route (parked)' },
    { from: `"${name(18_000)}"`, why: 'a name only (no sender)' },
  ])('$why: the stored signals decide as the mail does', async ({ from }) => {
    const mail = await parseInboundMail(rawMail(`${QUESTION}\n`, { from }), { extraHeaders: REPLY_SIGNAL_HEADERS });
    const signals = replySignalsOf(mail);
    expect(signals).toBeDefined();
    expect(JSON.stringify(signals).length).toBeLessThanOrEqual(MAX_REPLY_SIGNALS_CHARS);
    const stored = { ...JSON.parse(JSON.stringify(signals)), subject: mail.subject, question: mail.question };
    expect(decideReply(stored, mailboxes)).toEqual(decideReply(mail, mailboxes));
    expect(parkBeforeAgentReason(stored, AUDIT_MAILBOX_CONFIG)).toEqual(parkBeforeAgentReason(mail, AUDIT_MAILBOX_CONFIG));
  });

  it('a From short enough is stored as written', async () => {
    const mail = await parseInboundMail(rawMail(`${QUESTION}\n`, { from: '"山田 太郎" <taro@customer.example.co.jp>' }), { extraHeaders: REPLY_SIGNAL_HEADERS });
    expect(replySignalsOf(mail)?.headers.from).toEqual(mail.headers.from);
  });

  it('mailOutcome reads the mail again when its signals are too large to store, as the agent worker does', async () => {
    // A display name over the cap on its own: the parsed name alone drops the signals.
    const raw = rawMail(`${QUESTION}\n`, { from: `"${name(18_000)}" <taro@customer.example.co.jp>` });
    expect(replySignalsOf(await parseInboundMail(raw, { extraHeaders: REPLY_SIGNAL_HEADERS }))).toBeUndefined();
    await expect(mailOutcome(raw)).resolves.toBe('answer');
  });
});
