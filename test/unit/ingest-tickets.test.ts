import { describe, expect, it } from 'vitest';
import {
  POLLER_ACTOR,
  formatBytes,
  isSyntheticMessageId,
  oversizeReason,
  syntheticMessageId,
  ticketInputForEnvelope,
  ticketInputForMail,
  ticketMessageId,
} from '../../src/mail/ingest.js';
import { messageKey } from '../../src/mail/message-id.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { rawKey, rawRefFor } from '../../src/mail/raw-store.js';
import { newTicket, ticketIdFor } from '../../src/tickets/ticket.js';

const MAIL = Buffer.from(
  [
    'From: "Hanako Sato" <Hanako@Customer.Example>',
    'Reply-To: desk@customer.example',
    'To: support@support.example',
    'Subject: Cannot log in',
    'Message-ID: <q-1@customer.example>',
    'In-Reply-To: <a-0@support.example>',
    'References: <q-0@customer.example> <a-0@support.example>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain; charset=UTF-8',
    '',
    'My password reset mail never arrives.',
    '--b',
    'Content-Type: application/pdf; name="screen.pdf"',
    'Content-Disposition: attachment; filename="screen.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('%PDF-1.4 test').toString('base64'),
    '--b--',
    '',
  ].join('\r\n'),
);

describe('formatBytes / oversizeReason', () => {
  it.each([
    [0, '0 bytes'],
    [1023, '1023 bytes'],
    [1024, '1 KB'],
    [1536, '1.5 KB'],
    [10 * 1024 * 1024, '10 MB'],
    [12_900_000, '12.3 MB'],
    [3 * 1024 ** 3, '3 GB'],
  ])('%i bytes → %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it('names both sizes and says the mail was not downloaded', () => {
    expect(oversizeReason(12_900_000, 10 * 1024 * 1024)).toBe('message is 12.3 MB, over MAX_EMAIL_BYTES (10 MB); not downloaded');
  });
});

describe('synthetic Message-IDs', () => {
  it('are recognisable and never a real domain', () => {
    const id = syntheticMessageId('abc');
    expect(id).toBe('<abc@no-message-id.invalid>');
    expect(isSyntheticMessageId(id)).toBe(true);
    expect(isSyntheticMessageId('abc@no-message-id.invalid')).toBe(true);
    expect(isSyntheticMessageId('<q-1@customer.example>')).toBe(false);
  });

  it('key mail without a Message-ID by its bytes: same bytes, same ticket; other bytes, other ticket', () => {
    const raw = Buffer.from('From: a@b.example\r\nSubject: hi\r\n\r\nbody\r\n');
    const id = ticketMessageId({ messageId: undefined }, raw);
    expect(id).toBe(syntheticMessageId(messageKey({ messageId: undefined }, raw)));
    expect(ticketMessageId({ messageId: undefined }, Buffer.from(raw))).toBe(id);
    expect(ticketMessageId({ messageId: undefined }, Buffer.concat([raw, Buffer.from('x')]))).not.toBe(id);
    expect(ticketMessageId({ messageId: '<m@x.example>' }, raw)).toBe('<m@x.example>');
  });
});

describe('ticketInputForMail', () => {
  it('carries what the agent and the sender need, and the raw reference', async () => {
    const mail = await parseInboundMail(MAIL);
    const rawRef = rawRefFor('helpdesk', ticketIdFor('q-1@customer.example'));
    const ticket = newTicket(ticketInputForMail(mail, MAIL, { rawRef }));
    expect(ticket).toMatchObject({
      id: ticketIdFor('q-1@customer.example'),
      messageId: '<q-1@customer.example>',
      from: 'hanako@customer.example',
      fromName: 'Hanako Sato',
      replyTo: 'desk@customer.example',
      subject: 'Cannot log in',
      inReplyTo: '<a-0@support.example>',
      references: ['<q-0@customer.example>', '<a-0@support.example>'],
      question: 'My password reset mail never arrives.',
      state: 'received',
      rawRef: `redis:${rawKey('helpdesk', ticketIdFor('q-1@customer.example'))}`,
      attachments: [{ filename: 'screen.pdf', contentType: 'application/pdf', size: 13 }],
    });
    expect(ticket.history).toEqual([expect.objectContaining({ from: null, to: 'received', actor: POLLER_ACTOR })]);
  });

  it('parks bytes that are not a mail, with the parser’s reason', () => {
    const raw = Buffer.from('   \r\n');
    const ticket = newTicket(ticketInputForMail(undefined, raw, { rawRef: 'redis:x', parseError: 'empty input' }));
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toBe('unreadable mail: empty input');
    expect(ticket.messageId).toMatch(/^<[0-9a-f]{64}@no-message-id\.invalid>$/);
    expect(ticket.from).toBe('');
  });

  it('keeps the thread root it is given', async () => {
    const mail = await parseInboundMail(MAIL);
    const root = ticketIdFor('q-0@customer.example');
    const ticket = newTicket(ticketInputForMail(mail, MAIL, { rawRef: 'redis:x', conversationId: root }));
    expect(ticket.conversationId).toBe(root);
  });
});

describe('ticketInputForEnvelope', () => {
  const envelope = {
    messageId: '<big@customer.example>',
    subject: '見積書の件',
    date: new Date('2026-01-02T03:04:05Z'),
    inReplyTo: '<a-9@support.example>',
    from: [{ name: '山田太郎', address: 'Taro@Customer.Example' }],
  };

  it('builds a parked ticket from the envelope alone', () => {
    const ticket = newTicket(ticketInputForEnvelope(envelope, 12_900_000, oversizeReason(12_900_000, 10 * 1024 * 1024)));
    expect(ticket).toMatchObject({
      id: ticketIdFor('big@customer.example'),
      state: 'parked',
      reason: 'message is 12.3 MB, over MAX_EMAIL_BYTES (10 MB); not downloaded',
      from: 'taro@customer.example',
      fromName: '山田太郎',
      subject: '見積書の件',
      inReplyTo: '<a-9@support.example>',
      question: '',
    });
    expect(ticket.rawRef).toBeUndefined();
  });

  it('gives an envelope without Message-ID a stable synthetic id', () => {
    const { messageId: _drop, ...rest } = envelope;
    const a = ticketInputForEnvelope(rest, 5000, 'r');
    const b = ticketInputForEnvelope({ ...rest, date: new Date(rest.date) }, 5000, 'r');
    const c = ticketInputForEnvelope(rest, 5001, 'r');
    expect(isSyntheticMessageId(a.messageId)).toBe(true);
    expect(b.messageId).toBe(a.messageId);
    expect(c.messageId).not.toBe(a.messageId);
  });

  // A mail too large to download is known by its IMAP envelope only, which parse.ts never reads: its subject and
  // name get the same cleaning (control and invisible characters, the subject's length) as a parsed mail's.
  it('cleans the subject and the name as parsing does', () => {
    const input = ticketInputForEnvelope(
      { ...envelope, subject: `見積書の件\u001b]0;x\u0007\u202e${'あ'.repeat(2_000)}`, from: [{ name: 'Support Team \u202emoc.lagel-zyx@ytiruces\u001b[2J\r\nX', address: 'Taro@Customer.Example' }] },
      12_900_000,
      'too big',
    );
    expect(input.fromName).toBe('Support Team moc.lagel-zyx@ytiruces[2J X');
    expect(input.subject).toBe(`見積書の件]0;x${'あ'.repeat(998 - 1 - '見積書の件]0;x'.length)}…`);
    // The synthetic id of a mail without Message-ID still comes from the envelope as it was.
    const { messageId: _drop, ...rest } = envelope;
    expect(ticketInputForEnvelope({ ...rest, subject: 'a\u0007' }, 5000, 'r').messageId).not.toBe(ticketInputForEnvelope({ ...rest, subject: 'a' }, 5000, 'r').messageId);
  });
});
