/**
 * The reply names the customer's mail in In-Reply-To and References whatever its Message-ID looks like, as long as
 * the id can go into a header as it is; a mail whose Message-ID another ticket already holds is still threaded to
 * its own id; an empty subject gets a placeholder; and a customer's address that only SMTPUTF8 can carry parks the
 * reply with that reason when the server refuses it.
 */
import { describe, expect, it } from 'vitest';
import { originalOf, smtpUtf8Refusal } from '../../jobs/send-reply.js';
import { composeReply, replyReferences, replySubject } from '../../src/mail/compose-reply.js';
import { syntheticMessageId } from '../../src/mail/ingest.js';
import { SmtpSendError, buildReplyMessage } from '../../src/mail/smtp-transport.js';
import { newTicket, type NewTicketInput } from '../../src/tickets/ticket.js';

const ORIGINAL = '<orig@x.example>';

function reply(original: { messageId?: string; subject?: string; from?: string }, answer = 'Here is how.') {
  return composeReply({
    original: { subject: 'q', references: [], from: 'a@x.example', text: 't', ...original },
    answer,
    from: 'Support <support@s.example>',
    messageId: '<r@s.example>',
    automatic: true,
  });
}

describe('ids a reply may name', () => {
  // From the mikel-mail corpus: a client's numeric id (content_transfer_encoding_empty) and one with three `@`
  // (raw_email_double_at_in_header). Mail clients thread by the id as written, so the reply must name it.
  it.each([
    ['no @ at all', '<11107978796724623>'],
    ['several @', '<d3b8cf8e49f0448085@0c28713a1@f473e@37signals.com>'],
    ['a domain literal', '<1234@[192.0.2.1]>'],
    ['RFC 5322 specials', '<a"b(c)d,e;f:g\\h@[x]>'],
  ])('threads to an id with %s', (_case, id) => {
    const mail = reply({ messageId: id });
    expect(mail.inReplyTo).toBe(id);
    expect(mail.references).toEqual([id]);
    expect(replyReferences(['<root@x.example>', id], ORIGINAL)).toEqual(['<root@x.example>', id, ORIGINAL]);
  });

  // What could add a header line or needs SMTPUTF8 stays out, in In-Reply-To and References alike.
  it.each([
    ['CR LF (a header injection)', '<a@b>\r\nBcc: x@y'],
    ['a bare LF', '<a@b>\nBcc: x@y'],
    ['a space', '<a b@c>'],
    ['a tab', '<a\tb@c>'],
    ['a NUL', '<a\u0000b@c>'],
    ['an escape', '<a\u001bb@c>'],
    ['DEL', '<a\u007fb@c>'],
    ['a C1 control', '<a\u0085b@c>'],
    ['non-ASCII (would need SMTPUTF8)', '<問い合わせ-1@例え.jp>'],
    ['nothing inside', '<>'],
    ['a bracket inside', '<a<b@c>'],
    ['a closing bracket inside', '<a>b@c>'],
    ['no brackets', 'a@b'],
    ['over 250 characters', `<${'a'.repeat(300)}>`],
  ])('leaves out an id with %s', (_case, id) => {
    const mail = reply({ messageId: id });
    expect(mail.inReplyTo).toBeUndefined();
    expect(mail.references).toBeUndefined();
    expect(replyReferences(['<root@x.example>', id], ORIGINAL)).toEqual(['<root@x.example>', ORIGINAL]);
  });

  it('puts an id without @ into the headers nodemailer writes, unchanged', async () => {
    const { raw } = await buildReplyMessage(reply({ messageId: '<11107978796724623>' }));
    const head = raw.toString('latin1').split('\r\n\r\n')[0]!;
    expect(head).toMatch(/^In-Reply-To: <11107978796724623>$/m);
    expect(head).toMatch(/^References: <11107978796724623>$/m);
  });
});

describe('the subject of a reply to a mail without one', () => {
  it.each([
    ['', 'en', 'Re: (no subject)'],
    ['   ', 'en', 'Re: (no subject)'],
    ['Re:', 'en', 'Re: (no subject)'],
    ['', 'ja', 'Re: (件名なし)'],
    ['RE: 返信:', 'ja', 'Re: (件名なし)'],
    ['Backup', 'ja', 'Re: Backup'],
  ] as const)('%j in %s → %j', (subject, language, expected) => {
    expect(replySubject(subject, language)).toBe(expected);
  });

  it('is in English without a language', () => {
    expect(replySubject('')).toBe('Re: (no subject)');
  });

  it("takes the reply's language, which is the customer's", () => {
    expect(reply({ subject: '' }, '設定手順は次のとおりです。').subject).toBe('Re: (件名なし)');
    expect(reply({ subject: '' }, 'You can change it under Settings.').subject).toBe('Re: (no subject)');
  });
});

describe('the customer mail a reply names (originalOf)', () => {
  const base: NewTicketInput = { messageId: '<own@customer.example>', from: 'ann@customer.example', subject: 's', question: 'q', actor: 'poller' };

  it("names a ticket's own Message-ID", () => {
    expect(originalOf(newTicket(base)).messageId).toBe('<own@customer.example>');
  });

  it('names the mail\'s own Message-ID of a ticket keyed by another id (a Message-ID another mail already holds)', () => {
    const ticket = newTicket({ ...base, messageId: syntheticMessageId('f'.repeat(64)), mailMessageId: '<1234@local.machine.example>' });
    expect(ticket.messageId).toMatch(/@no-message-id\.invalid>$/);
    expect(originalOf(ticket).messageId).toBe('<1234@local.machine.example>');
  });

  // Stored before the mail's own id was kept: nothing to name, and the reply still goes out.
  it('names nothing for a ticket keyed by a made-up id without the mail\'s own', () => {
    const legacy = newTicket({ ...base, messageId: syntheticMessageId('e'.repeat(64)) });
    expect(legacy).not.toHaveProperty('mailMessageId');
    expect(originalOf(legacy)).not.toHaveProperty('messageId');
  });
});

describe('a customer address that needs SMTPUTF8', () => {
  const refused = (code: number, words: string, kind: 'permanent' | 'temporary' = code >= 500 ? 'permanent' : 'temporary') =>
    new SmtpSendError(`SMTP server answered ${code} ${words}`, kind, code, `${code} ${words}`);

  it.each([
    ["Postfix's answer", 553, '5.6.7 Must declare SMTPUTF8 to send unicode address'],
    ['a syntax error in the address', 501, '5.1.3 Bad recipient address syntax'],
    ['mailbox name not allowed', 553, '5.1.7 Invalid address'],
  ])('parks with that reason on %s', (_case, code, words) => {
    const reason = smtpUtf8Refusal('jdöe@mächine.example', refused(code, words));
    expect(reason).toBe(`the customer's address needs SMTPUTF8, which the SMTP server does not offer (SMTP server answered ${code} ${words})`);
  });

  it.each([
    ['an ASCII local part (the domain goes as punycode)', 'jdoe@mächine.example', refused(553, '5.6.7 Must declare SMTPUTF8')],
    ['a refusal for another reason', 'jdöe@mächine.example', refused(550, '5.1.1 Mailbox does not exist')],
    ['a temporary failure', 'jdöe@mächine.example', refused(451, '4.3.0 Try again later')],
    ['a failure without an answer', 'jdöe@mächine.example', new SmtpSendError('SMTP failure: ECONNREFUSED', 'temporary', undefined, undefined)],
  ])('leaves %s to the usual handling', (_case, address, failure) => {
    expect(smtpUtf8Refusal(address, failure)).toBeUndefined();
  });

  it('sends a Unicode domain as punycode, in the envelope and the To header, when the local part is ASCII', async () => {
    const built = await buildReplyMessage(reply({ from: 'John <jdoe@mächine.example>' }));
    expect(built.envelope.to).toEqual(['jdoe@xn--mchine-bua.example']);
    expect(built.raw.toString('latin1')).toMatch(/^To: John <jdoe@xn--mchine-bua\.example>$/m);
  });
});
