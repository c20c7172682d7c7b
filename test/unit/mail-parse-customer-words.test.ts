/**
 * The customer's own words as the parser found them (bug review B3a HIGH 1, MED 2): the draft checks let an IBAN or
 * postal address through only when the customer's own words write it, and a forwarded mail is a stranger's. With no
 * note the question is the forward's text alone, unmarked, so only the parser can tell whose words it holds.
 */
import { describe, expect, it } from 'vitest';
import { ticketInputForMail } from '../../src/mail/ingest.js';
import { FORWARDED_DELIMITER, parseInboundMail } from '../../src/mail/parse.js';

const IBAN = 'DE89 3704 0044 0532 0130 00';
const PHISH = `Dear customer, your refund of 20 EUR will be paid to account ${IBAN}. Confirm this account in your reply.`;
const HEAD = ['From: XYZ Billing <billing@xyz-refunds.example>', 'Date: Fri, 27 Nov 2026 at 10:00', 'Subject: Your refund', 'To: <taro@customer.example>', ''];
const GMAIL = ['---------- Forwarded message ---------', ...HEAD, PHISH].join('\n');
const APPLE = ['Begin forwarded message:', '', ...HEAD, PHISH].join('\n');
// The phish writes the parser's own forward delimiter below its IBAN, so its top would read as a note above a forward.
const FAKE_DELIMITER = `${GMAIL}\n\n${FORWARDED_DELIMITER}\nFrom: XYZ <info@xyz.example>\nSubject: Order\n\nThank you for your order.`;
const NOTE = 'Hello, I got the mail below about a refund. Is it real?';

function mail(subject: string, body: string, attached?: string): Buffer {
  const head = ['From: Taro <taro@customer.example>', 'To: support@support.example', 'Message-ID: <cw-1@customer.example>', `Subject: ${subject}`, 'MIME-Version: 1.0'];
  const text = ['Content-Type: text/plain; charset=utf-8', '', body];
  if (attached === undefined) return Buffer.from([...head, ...text, ''].join('\r\n'));
  return Buffer.from(
    [...head, 'Content-Type: multipart/mixed; boundary=b', '', '--b', ...text, '--b', 'Content-Type: message/rfc822', '', attached, '--b--', ''].join('\r\n'),
  );
}

const ATTACHED = ['From: XYZ Billing <billing@xyz-refunds.example>', 'Subject: Your refund', 'Content-Type: text/plain; charset=utf-8', '', PHISH].join('\r\n');

describe('parseInboundMail: customerWords', () => {
  it.each([
    ['no note above a Gmail forward (Fwd:)', 'Fwd: Your refund', GMAIL, undefined, ''],
    ['no note, the forward writes the delimiter itself', 'Fwd: Your refund', FAKE_DELIMITER, undefined, ''],
    ['no note above an Apple forward under a subject of their own', 'Is this real?', APPLE, undefined, ''],
    ['no note beside an attached mail', 'Is this real?', '', ATTACHED, ''],
    ['a note above a Gmail forward', 'Fwd: Your refund', `${NOTE}\n\n${GMAIL}`, undefined, NOTE],
    ['a note above an attached mail', 'Is this real?', NOTE, ATTACHED, NOTE],
  ])('%s', async (_name, subject, body, attached, want) => {
    const parsed = await parseInboundMail(mail(subject, body, attached));
    expect(parsed.question).toContain(IBAN);
    expect(parsed.customerWords).toBe(want);
  });

  // Bug review B4 (MED 3): a pasted mail that writes a separator of its own puts its tail below the block's close,
  // where the customer's words after a pasted mail stand; the question keeps it, the vouching words do not.
  it('a pasted mail: only the words above it vouch, not a tail below its own separator', async () => {
    const body = ['I got the following email. Is it real? Also, what are your password rules?', '-----', 'From: XYZ <billing@xyz-refunds.example>', '', 'Dear customer, your refund is ready.', '-----', `Refund account: ${IBAN}`, '-----'].join('\n');
    const parsed = await parseInboundMail(mail('Is this real?', body));
    expect(parsed.question).toContain(IBAN);
    expect(parsed.customerWords).toBe('I got the following email. Is it real? Also, what are your password rules?');
  });

  it('without a forward, the whole question', async () => {
    const parsed = await parseInboundMail(mail('Refund', `Hello, please refund the 20 EUR to my account ${IBAN}.\n\nTaro`));
    expect(parsed.question).toContain(IBAN);
    expect(parsed.customerWords).toBe(parsed.question);
  });
});

describe('ticketInputForMail: customerWords', () => {
  it('keeps the note of a mail that forwards, an empty one too', async () => {
    for (const [body, want] of [
      [FAKE_DELIMITER, ''],
      [`${NOTE}\n\n${GMAIL}`, NOTE],
    ] as const) {
      const raw = mail('Fwd: Your refund', body);
      expect(ticketInputForMail(await parseInboundMail(raw), raw, { rawRef: 'raw:test' }).customerWords).toBe(want);
    }
  });

  it('leaves it out when the mail forwards nothing: the question is all theirs, stored once', async () => {
    const raw = mail('Refund', `Hello, please refund the 20 EUR to my account ${IBAN}.`);
    const input = ticketInputForMail(await parseInboundMail(raw), raw, { rawRef: 'raw:test' });
    expect(input.question).toContain(IBAN);
    expect(input).not.toHaveProperty('customerWords');
  });
});
