/**
 * Reading bounces: real-world delivery reports (the shared mikel/mail corpus, written by nobody on this team), prose
 * bounces of older MTAs, delay notices, and hostile reports.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_DIAGNOSTIC_CHARS, MAX_REPORTED_IDS, deliveryReportOf } from '../../src/mail/delivery-report.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { MAIL_CORPUS_DIR } from '../support/mail-corpus.js';

describe('delivery reports of real bounces', () => {
  it.each([
    ['multipart_report_emails/report_530.eml', true, '5.3.0', '<200712232303.lBNN3jDq002941@mail12.rrrr.com.au>', 'edwin@zzzzzzz.com'],
    ['multipart_report_emails/multi_address_bounce1.eml', true, '5.1.1', '<118707422.15521266992174819.JavaMail.root@lvmail01>', 'bbbbvhvbbvkjbhfbvbvjhb@gmail.com'],
    ['multipart_report_emails/multipart_report_multiple_status.eml', true, '5.3.0', '<4c2a146147ac8_61ff157c4ec1652df@s.h.c.mail>', 'u@ci.com'],
    // "THIS IS A WARNING MESSAGE ONLY": Action: delayed, the mail is still on its way.
    ['multipart_report_emails/report_422.eml', false, '4.2.2', '<15655788.13.1200472642578.JavaMail.Administrator@mail.ttttt.com.au>', 'fraser@oooooooo.com.au'],
    ['mime_emails/raw_email_with_mimepart_without_content_type.eml', false, '4.5.0', '<89d7557c0610181510r6fa5ebd8n66a7deec71ade118@mail.gmail.com>', 'larose.julie@courrier.uqam.ca'],
  ])('%s: failed %s, status %s', async (file, failed, status, messageId, recipient) => {
    const mail = await parseInboundMail(readFileSync(path.join(MAIL_CORPUS_DIR, file)));
    expect(mail.deliveryReport).toMatchObject({ failed, status, messageIds: [messageId], recipient });
    expect((mail.deliveryReport?.diagnostic ?? '').length).toBeLessThanOrEqual(MAX_DIAGNOSTIC_CHARS + 1);
  });

  it('keeps the receiving server words of a failed report on one line', async () => {
    const mail = await parseInboundMail(readFileSync(path.join(MAIL_CORPUS_DIR, 'multipart_report_emails/report_530.eml')));
    expect(mail.deliveryReport?.diagnostic).toBe('553 5.3.0 <edwin@zzzzzzz.com>... Unknown E-Mail Address');
  });
});

describe('deliveryReportOf', () => {
  const qmail = [
    'Hi. This is the qmail-send program at mx.customer.example.',
    "I'm afraid I wasn't able to deliver your message to the following addresses.",
    'This is a permanent error; I\'ve given up. Sorry it didn\'t work out.',
    '',
    '<gone@customer.example>:',
    'Remote host said: 550 5.1.1 <gone@customer.example>: Recipient address rejected: User unknown',
    '',
    '--- Below this line is a copy of the message.',
    '',
    'Return-Path: <support@support.example>',
    'Message-ID: <reply-1@support.example>',
    'Subject: Re: パスワードについて',
  ].join('\n');

  it.each([
    ['a prose bounce with the original pasted below', qmail, { failed: true, status: '5.1.1', messageIds: ['<reply-1@support.example>'] }],
    [
      'a prose delay notice',
      'This is a warning message only. Delivery to the following recipient has been delayed; the server will keep trying.\n\nMessage-ID: <reply-2@support.example>',
      { failed: false, messageIds: ['<reply-2@support.example>'] },
    ],
    ['a Japanese delay notice', '配信が遅れています。再送を続けます。\n\nMessage-ID: <reply-3@support.example>', { failed: false }],
    [
      'a delivery-status text with folded fields',
      'Reporting-MTA: dns; mx.example\n\nFinal-Recipient: rfc822;\n  someone@customer.example\nAction: failed\nStatus: 5.2.2\nDiagnostic-Code: smtp; 552 5.2.2 Mailbox full,\n  try later\n\nMessage-ID: <reply-4@support.example>',
      { failed: true, status: '5.2.2', recipient: 'someone@customer.example', diagnostic: '552 5.2.2 Mailbox full, try later' },
    ],
  ])('%s', (_case, text, expected) => {
    expect(deliveryReportOf(text, [])).toMatchObject(expected);
  });

  it("reads the original's Message-ID from an attached message/rfc822 or text/rfc822-headers part first", () => {
    const original = Buffer.from('From: support@support.example\r\nMessage-ID:\r\n <reply-5@support.example>\r\nSubject: x\r\n\r\nMessage-ID: <in-the-body@elsewhere.example>\r\n');
    for (const contentType of ['message/rfc822', 'text/rfc822-headers']) {
      const report = deliveryReportOf('Action: failed\nStatus: 5.0.0\n\nMessage-ID: <quoted@elsewhere.example>', [{ contentType, content: original }]);
      expect(report?.messageIds).toEqual(['<reply-5@support.example>', '<quoted@elsewhere.example>']);
    }
  });

  it('names nothing when the report quotes no Message-ID', () => {
    expect(deliveryReportOf('Action: failed\nStatus: 5.1.1', [])).toBeUndefined();
    expect(deliveryReportOf('Message-ID: not-an-id', [])).toBeUndefined();
  });

  it('a hostile report naming thousands of ids keeps the first few', () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `Message-ID: <id${i}@x.example>`).join('\n');
    const report = deliveryReportOf(text, [{ contentType: 'message/rfc822', content: Buffer.from(`Message-ID: <first@x.example>\n${'X: y\n'.repeat(100_000)}`) }]);
    expect(report?.messageIds).toHaveLength(MAX_REPORTED_IDS);
    expect(report?.messageIds[0]).toBe('<first@x.example>');
    expect(report?.diagnostic).toBeUndefined();
  });

  it('cuts a long diagnostic to one line of bounded length', () => {
    const report = deliveryReportOf(`Action: failed\nDiagnostic-Code: smtp; 550 ${'x'.repeat(5_000)}\n\nMessage-ID: <r@x.example>`, []);
    expect(report?.diagnostic?.length).toBe(MAX_DIAGNOSTIC_CHARS + 1);
  });
});

describe('which mail carries a delivery report', () => {
  const forwarded = [
    'From: Taro <taro@customer.example>',
    'To: support@support.example',
    'Subject: Fwd: this mail',
    'Message-ID: <fwd@customer.example>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary=b',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'What does this mail mean?',
    '--b',
    'Content-Type: message/rfc822',
    '',
    'From: someone@elsewhere.example',
    'Message-ID: <original@elsewhere.example>',
    'Subject: hello',
    '',
    'hi',
    '--b--',
    '',
  ].join('\r\n');

  it('a customer forwarding a mail is no bounce, whatever it attaches', async () => {
    const mail = await parseInboundMail(Buffer.from(forwarded));
    expect(mail.deliveryReport).toBeUndefined();
  });

  it('the same from MAILER-DAEMON is one', async () => {
    const mail = await parseInboundMail(Buffer.from(forwarded.replace('From: Taro <taro@customer.example>', 'From: MAILER-DAEMON@mx.customer.example')));
    expect(mail.deliveryReport).toMatchObject({ failed: true, messageIds: ['<original@elsewhere.example>'] });
  });

  // A DSN some MTAs send as multipart/mixed from an address of their own, with no null Return-Path: the status part
  // makes it a bounce, and the report of our reply must be read from it as from a multipart/report.
  const mixedBounce = (statusType: string, fields: string[]) =>
    [
      'From: Mail Delivery System <mta@mx.customer.example>',
      'To: support@support.example',
      'Message-ID: <dsn1@mx.customer.example>',
      'Subject: Undelivered Mail Returned to Sender',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary=b',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'Your message could not be delivered.',
      '--b',
      `Content-Type: ${statusType}`,
      '',
      'Reporting-MTA: dns; mx.customer.example',
      '',
      ...fields,
      '',
      '--b',
      'Content-Type: text/rfc822-headers',
      '',
      'From: Support <support@support.example>',
      'Message-ID: <r0@support.example>',
      '--b--',
      '',
    ].join('\r\n');
  const failed = ['Final-Recipient: rfc822; gone@customer.example', 'Action: failed', 'Status: 5.1.1', 'Diagnostic-Code: smtp; 550 5.1.1 User unknown'];
  const delayed = ['Final-Recipient: rfc822; slow@customer.example', 'Action: delayed', 'Status: 4.4.1'];

  it.each<[string, string, string[], object]>([
    ['message/delivery-status, failed', 'message/delivery-status', failed, { failed: true, status: '5.1.1', recipient: 'gone@customer.example', diagnostic: '550 5.1.1 User unknown' }],
    ['message/delivery-status, delayed', 'message/delivery-status', delayed, { failed: false, status: '4.4.1', recipient: 'slow@customer.example' }],
    ['message/global-delivery-status, failed', 'message/global-delivery-status', failed, { failed: true, status: '5.1.1', recipient: 'gone@customer.example' }],
  ])('a multipart/mixed bounce with %s names our reply', async (_what, statusType, fields, expected) => {
    const mail = await parseInboundMail(Buffer.from(mixedBounce(statusType, fields)));
    expect(mail.deliveryReport).toMatchObject({ messageIds: ['<r0@support.example>'], ...expected });
  });

  // A read receipt (RFC 8098 MDN) as Thunderbird and Outlook send it: a multipart/report that quotes our reply's
  // headers, like a bounce, but says the customer opened the reply. Reading it as a failure marked the reply as
  // "did not arrive" and invited the operator to send it again.
  const readReceipt = (reportType: string, notificationType: string) =>
    [
      'From: Taro Yamada <taro@customer.example>',
      'To: support@support.example',
      'Subject: Return Receipt (displayed) - Re: How do I reset my password?',
      'Message-ID: <mdn@customer.example>',
      'MIME-Version: 1.0',
      `Content-Type: multipart/report; report-type=${reportType}; boundary="b1"`,
      '',
      '--b1',
      'Content-Type: text/plain; charset=UTF-8',
      '',
      'This is a Return Receipt for the mail that you sent to taro@customer.example.',
      '--b1',
      `Content-Type: ${notificationType}`,
      '',
      'Reporting-UA: customer.example; Thunderbird 128.0',
      'Final-Recipient: rfc822;taro@customer.example',
      'Original-Message-ID: <reply1@support.example>',
      'Disposition: manual-action/MDN-sent-manually; displayed',
      '--b1',
      'Content-Type: text/rfc822-headers',
      '',
      'From: Support <support@support.example>',
      'To: taro@customer.example',
      'Subject: Re: How do I reset my password?',
      'Message-ID: <reply1@support.example>',
      '--b1--',
      '',
    ].join('\r\n');

  it.each([
    ['a read receipt', 'disposition-notification', 'message/disposition-notification'],
    ['a read receipt without its report-type', '""', 'message/disposition-notification'],
    ["a mailbox provider's spam complaint (ARF)", 'feedback-report', 'message/feedback-report'],
  ])('%s is no report on delivery, though it quotes our reply', async (_what, reportType, notificationType) => {
    const mail = await parseInboundMail(Buffer.from(readReceipt(reportType, notificationType)));
    expect(mail.deliveryReport).toBeUndefined();
  });
});
