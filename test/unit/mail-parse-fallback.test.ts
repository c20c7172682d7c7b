/**
 * The degraded path of parseInboundMail: when mailparser rejects a mail, headers still drive the reply decision and
 * the body is kept as undecoded text. mailparser is made to fail on demand because no real input reliably does.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const failures = vi.hoisted(() => ({ remaining: 0 }));

vi.mock('mailparser', async (importOriginal) => {
  const actual = await importOriginal<typeof import('mailparser')>();
  return {
    ...actual,
    simpleParser: async (...args: Parameters<typeof actual.simpleParser>) => {
      if (failures.remaining > 0) {
        failures.remaining--;
        throw new Error('simulated MIME failure');
      }
      return actual.simpleParser(...args);
    },
  };
});

const { MailParseError, parseInboundMail } = await import('../../src/mail/parse.js');
const { decideReply } = await import('../../src/mail/classify.js');

const raw = Buffer.from(
  [
    'From: Customer <customer@customer.example>',
    'Subject: Broken',
    'Message-ID: <fallback-1@customer.example>',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="x"',
    '',
    'Is my order shipped?',
    '',
  ].join('\r\n'),
);

describe('parseInboundMail fallback', () => {
  beforeEach(() => {
    failures.remaining = 0;
  });

  it('returns headers and the undecoded body with a warning when the MIME parser fails', async () => {
    failures.remaining = 1;
    const mail = await parseInboundMail(raw);
    expect(mail.messageId).toBe('<fallback-1@customer.example>');
    expect(mail.from).toEqual({ address: 'customer@customer.example', name: 'Customer' });
    expect(mail.contentType).toBe('multipart/report');
    expect(mail.text).toContain('Is my order shipped?');
    expect(mail.parseWarnings).toEqual([
      'MIME parser failed: simulated MIME failure',
      'body parsed as undecoded text after the MIME parser failed',
    ]);
    expect(decideReply(mail, { ourAddresses: ['support@support.example'] })).toMatchObject({ answer: false, reason: 'bounce' });
  });

  it('throws MailParseError when even the headers cannot be read', async () => {
    failures.remaining = 2;
    await expect(parseInboundMail(raw)).rejects.toThrow(MailParseError);
  });
});
