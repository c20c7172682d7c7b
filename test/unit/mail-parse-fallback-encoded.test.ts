/**
 * The degraded path of parseInboundMail for bodies that are not text as they stand: after mailparser rejects a mail,
 * the body is read undecoded, and a multipart, an enclosed message or a base64 or quoted-printable body read so is
 * MIME, not the customer's words, so the mail is parked as not read whole. A 7-bit or 8-bit text body stays the
 * question. mailparser fails on demand here, as in mail-parse-fallback.test.ts: a real failure of a single-part mail
 * whose headers still read is not known (the multipart one is a row in mail-properties.test.ts).
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
        throw Object.assign(new Error('simulated MIME failure'), { code: 'ESIMULATED' });
      }
      return actual.simpleParser(...args);
    },
  };
});

const { parseInboundMail, TEXT_NOT_READ_WHOLE } = await import('../../src/mail/parse.js');

function mail(contentType: string, encoding: string | undefined, body: string): Buffer {
  return Buffer.from(
    [
      'From: Customer <customer@customer.example>',
      'To: support@desk.example',
      'Subject: Invoice',
      'Message-ID: <fallback-encoded@customer.example>',
      'MIME-Version: 1.0',
      `Content-Type: ${contentType}`,
      ...(encoding ? [`Content-Transfer-Encoding: ${encoding}`] : []),
      '',
      body,
      '',
    ].join('\r\n'),
  );
}

describe('parseInboundMail fallback on a body that is not text as it stands', () => {
  beforeEach(() => {
    failures.remaining = 1;
  });

  it.each([
    ['a multipart', mail('multipart/mixed; boundary="b1"', undefined, '--b1\r\nContent-Type: text/plain\r\n\r\nWhere is my invoice?\r\n--b1--')],
    ['an enclosed message', mail('message/rfc822', undefined, 'From: a@b.example\r\nSubject: x\r\n\r\nWhere is my invoice?')],
    ['a base64 text', mail('text/plain; charset=utf-8', 'base64', Buffer.from('請求書が届きません。').toString('base64'))],
    ['a quoted-printable text', mail('text/plain; charset=utf-8', 'Quoted-Printable', '=E8=AB=8B=E6=B1=82=E6=9B=B8')],
    ['a base64 HTML', mail('text/html; charset=utf-8', 'base64', Buffer.from('<p>請求書が届きません。</p>').toString('base64'))],
  ])('parks %s read undecoded as not read whole, naming the parser error', async (_, raw) => {
    const parsed = await parseInboundMail(raw);
    expect(parsed.unreadable).toMatch(new RegExp(`^${TEXT_NOT_READ_WHOLE} \\(the MIME parser could not read it \\(simulated MIME failure\\), and its body was read undecoded\\)`));
  });

  it.each([
    ['7bit', mail('text/plain; charset=us-ascii', '7bit', 'Where is my invoice?')],
    ['8bit', mail('text/plain; charset=utf-8', '8bit', '請求書が届きません。')],
    ['no', mail('text/plain; charset=utf-8', undefined, '請求書が届きません。')],
  ])('keeps a text body with %s transfer encoding as the question', async (_, raw) => {
    const parsed = await parseInboundMail(raw);
    expect(parsed.unreadable).toBeUndefined();
    expect(parsed.question).toMatch(/Where is my invoice\?|請求書が届きません。/);
  });
});
