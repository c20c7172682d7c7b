import { describe, expect, it } from 'vitest';
import { attributionLine, composeReply, newMessageId, quoteOriginal, replyLanguage, replyReferences, replySubject } from '../../src/mail/compose-reply.js';
import { extractQuestion } from '../../src/mail/parse.js';
import { replyBody } from '../../src/tickets/outcome.js';
import { originalOf } from '../../jobs/send-reply.js';
import { buildReplyMessage, replyRecipientProblem } from '../../src/mail/smtp-transport.js';
import { newTicket, type NewTicketInput } from '../../src/tickets/ticket.js';

describe('replySubject', () => {
  it.each([
    ['二段階認証について', 'Re: 二段階認証について'],
    ['Re: 二段階認証について', 'Re: 二段階認証について'],
    ['RE: Re: re:Backup', 'Re: Backup'],
    ['Re[2]: Backup', 'Re: Backup'],
    ['AW: Frage', 'Re: Frage'],
    ['返信: 質問', 'Re: 質問'],
    // What Outlook writes in zh-TW and Korean (mail audit 4, finding 7).
    ['回覆: CSV匯出亂碼', 'Re: CSV匯出亂碼'],
    ['회신: 주문 문의', 'Re: 주문 문의'],
    ['RE: 회신: 주문 문의', 'Re: 주문 문의'],
    // Not collapsed: prefixes Gmail may not strip stack rather than split a Gmail thread (thread review 38, defect 3).
    ['답장: 주문 문의', 'Re: 답장: 주문 문의'],
    ['RES: Pedido', 'Re: RES: Pedido'],
    ['轉寄: 錯誤通知', 'Re: 轉寄: 錯誤通知'],
    ['Re：全角コロン', 'Re: 全角コロン'],
    ['Fwd: forwarded stays', 'Re: Fwd: forwarded stays'],
    ['Regarding renewal', 'Re: Regarding renewal'],
    ['', 'Re: (no subject)'],
    ['Re:', 'Re: (no subject)'],
  ])('%j → %j', (subject, expected) => {
    expect(replySubject(subject)).toBe(expected);
  });
});

describe('composeReply', () => {
  const original = {
    messageId: '<q1@customer.example>',
    subject: 'Re: 二段階認証',
    references: ['<a@customer.example>', '<b@support.example>'],
    from: 'Taro <taro@customer.example>',
    date: 'Mon, 2 Nov 2026 10:00:00 +0900',
    text: '認証アプリの設定方法を教えてください。\n\nよろしくお願いします。',
  };

  it('threads the reply under the original and quotes it below the answer', () => {
    const mail = composeReply({ original, answer: '設定手順は次のとおりです。', from: 'Support <support@support.example>', messageId: '<r1@support.example>', automatic: true });
    expect(mail.to).toBe('taro@customer.example');
    expect(mail.toName).toBe('Taro');
    expect(mail.subject).toBe('Re: 二段階認証');
    expect(mail.inReplyTo).toBe('<q1@customer.example>');
    expect(mail.references).toEqual(['<a@customer.example>', '<b@support.example>', '<q1@customer.example>']);
    expect(mail.text.startsWith('設定手順は次のとおりです。\n\n')).toBe(true);
    expect(mail.text).toContain('> 認証アプリの設定方法を教えてください。\n>\n> よろしくお願いします。');
    expect(mail.headers['Auto-Submitted']).toBe('auto-replied');
  });

  it('marks every reply with X-Loop naming our address, so our own mail coming back is recognised as a loop', async () => {
    const auto = composeReply({ original, answer: 'x', from: 'Support <Support@Support.example>', messageId: '<r3@support.example>', automatic: true });
    const approved = composeReply({ original, answer: 'x', from: 'support@support.example', messageId: '<r4@support.example>', automatic: false });
    expect(auto.headers['X-Loop']).toBe('support@support.example');
    expect(approved.headers['X-Loop']).toBe('support@support.example');
    const { decideReply } = await import('../../src/mail/classify.js');
    const echoed = decideReply(
      { from: { address: 'robot@elsewhere.example', name: '' }, replyTo: undefined, headers: { 'x-loop': [auto.headers['X-Loop']!] }, contentType: 'text/plain' },
      { ourAddresses: ['Support <support@support.example>'] },
    );
    expect(echoed).toMatchObject({ answer: false, reason: 'loop' });
  });

  it('answers Reply-To when present and omits Auto-Submitted for an approved reply', () => {
    const mail = composeReply({ original: { ...original, replyTo: 'desk@customer.example' }, answer: 'x', from: 'support@support.example', messageId: '<r2@support.example>', automatic: false });
    expect(mail.to).toBe('desk@customer.example');
    expect(mail.headers).not.toHaveProperty('Auto-Submitted');
  });

  // The quote and its attribution line are the From's words and name; to another mailbox they would be a stranger's
  // text delivered from our address (a fake notice, a phishing link under "XYZ Support Security <…>").
  it('leaves the quoted original out when the reply goes to another mailbox than From', () => {
    const mail = composeReply({ original: { ...original, replyTo: 'desk@customer.example' }, answer: '設定手順は次のとおりです。', from: 'support@support.example', messageId: '<r5@support.example>', automatic: true });
    expect(mail.to).toBe('desk@customer.example');
    expect(mail.text).toBe('設定手順は次のとおりです。\n');
    expect(mail.subject).toBe('Re: 二段階認証');
    expect(mail.inReplyTo).toBe('<q1@customer.example>');
  });

  it.each([
    ['no Reply-To', undefined],
    ['a Reply-To that is the From', 'taro@customer.example'],
    ['a Reply-To that is the From in other case', 'Taro@Customer.Example'],
    ['a Reply-To that is the From with a +tag', 'taro+support@customer.example'],
  ])('quotes the original to the sender themselves: %s', (_name, replyTo) => {
    const mail = composeReply({ original: { ...original, ...(replyTo ? { replyTo } : {}) }, answer: '設定手順は次のとおりです。', from: 'support@support.example', messageId: '<r6@support.example>', automatic: true });
    expect(mail.text).toContain('Taro <taro@customer.example>:\n> 認証アプリの設定方法を教えてください。');
  });

  it('copes with an original that had no Message-ID', () => {
    const mail = composeReply({ original: { ...original, messageId: undefined, references: [] }, answer: 'x', from: 'support@support.example', messageId: '<r3@support.example>', automatic: true });
    expect(mail.inReplyTo).toBeUndefined();
    expect(mail.references).toBeUndefined();
  });
});

describe('helpers', () => {
  it('makes Message-IDs in our domain', () => {
    expect(newMessageId('Support <support@support.example>')).toMatch(/^<[0-9a-f-]{36}@support\.example>$/);
    expect(newMessageId('nobody')).toMatch(/@helpdesk-worker\.invalid>$/);
  });

  it('quotes CRLF text line by line', () => {
    expect(quoteOriginal({ from: 'a@b.example', text: 'one\r\ntwo\r\n' })).toBe('a@b.example wrote:\n> one\n> two');
  });
});

describe('the quote\'s attribution line', () => {
  // 2026-11-24T01:05Z is Tuesday 10:05 in Tokyo and still Monday 20:05 in New York. An instant says nothing of the
  // writer's zone: the time is shown in the server's, named (test/unit/reply-headers.test.ts has the writer's own).
  const sent = '2026-11-24T01:05:00.000Z';
  const taro = '山田太郎 <taro@customer.example>';
  it.each([
    ['Japanese, Tokyo', taro, sent, 'ja', 'Asia/Tokyo', '2026年11月24日(火) 10:05 UTC+9 山田太郎 <taro@customer.example>:'],
    ['Japanese, UTC', taro, sent, 'ja', 'UTC', '2026年11月24日(火) 01:05 UTC 山田太郎 <taro@customer.example>:'],
    ['English, New York (the day before)', 'Ann <ann@customer.example>', sent, 'en', 'America/New_York', 'On Mon, 23 Nov 2026 at 20:05 UTC-5, Ann <ann@customer.example> wrote:'],
    ['English, Tokyo', 'ann@customer.example', sent, 'en', 'Asia/Tokyo', 'On Tue, 24 Nov 2026 at 10:05 UTC+9, ann@customer.example wrote:'],
    ['Japanese, no date', taro, undefined, 'ja', 'UTC', '山田太郎 <taro@customer.example>のメール:'],
    ['English, no date', 'ann@customer.example', undefined, 'en', 'UTC', 'ann@customer.example wrote:'],
    ['a date that is not one', 'ann@customer.example', 'yesterday-ish', 'en', 'UTC', 'ann@customer.example wrote:'],
    ['an unknown time zone: no date rather than a failed reply', 'ann@customer.example', sent, 'en', 'Mars/Olympus', 'ann@customer.example wrote:'],
    ['a display name with line breaks stays on one line', 'Evil\r\n> forged quote <e@x.example>', undefined, 'en', 'UTC', 'Evil > forged quote <e@x.example> wrote:'],
  ] as const)('%s', (_case, from, date, language, timeZone, expected) => {
    expect(attributionLine(from, date, { language, timeZone })).toBe(expected);
  });

  it('cuts a huge display name, so the line stays one the quote strippers recognise', () => {
    const line = attributionLine(`${'x'.repeat(5_000)} <x@customer.example>`, sent, { timeZone: 'UTC' });
    expect(line.length).toBeLessThan(260);
    expect(line).toMatch(/^On Tue, 24 Nov 2026 at 01:05 UTC, x+… wrote:$/);
  });

  it.each([
    ['設定手順は次のとおりです。', 'ja'],
    ['カタカナだけ', 'ja'],
    ['You can change it under Settings.', 'en'],
    ['您可以在设置中更改。', 'zh'],
    ['', 'en'],
  ] as const)('a reply %j gets the %s line', (answer, language) => {
    expect(replyLanguage(answer)).toBe(language);
  });

  it.each([
    ['Japanese', '設定手順は次のとおりです。', '2026年11月24日(火) 10:05 UTC+9 山田太郎 <taro@customer.example>:'],
    ['English', 'Here is how to set it up.', 'On Tue, 24 Nov 2026 at 10:05 UTC+9, 山田太郎 <taro@customer.example> wrote:'],
  ])('a %s reply quotes the original under a line in its language', (_language, answer, line) => {
    const mail = composeReply({
      original: { subject: 'q', references: [], from: taro, date: sent, text: '二段階認証の設定方法を教えてください。' },
      answer,
      from: 'support@support.example',
      messageId: '<r5@support.example>',
      automatic: true,
      timeZone: 'Asia/Tokyo',
    });
    expect(mail.text).toBe(`${answer}\n\n${line}\n> 二段階認証の設定方法を教えてください。\n`);
  });

  // The customer answers our reply, quoting it: the question extraction and the edit ratio must both see the quote.
  it.each([
    ['ja', 'ありがとうございます。もう一つ質問があります。'],
    ['en', 'Thanks. One more question about invoices.'],
  ] as const)('a %s line is recognised as a quote when it comes back', (language, newText) => {
    for (const date of [sent, undefined]) {
      const quoted = quoteOriginal({ from: `${'長い名前'.repeat(80)} <taro@customer.example>`, date, text: 'Our earlier answer.\nSecond line.' }, { language, timeZone: 'Asia/Tokyo' });
      expect(extractQuestion(`${newText}\n\n${quoted}`)).toBe(newText);
      expect(replyBody(`${newText}\n\n${quoted}`)).toBe(newText);
    }
  });
});

// A customer's Chinese or Korean client quotes our reply under its own separator: the mail parser and the edit ratio
// (replyBody) cut at the same lines (mail audit 4, finding 3).
describe('a Chinese or Korean client\'s separator above the quote', () => {
  it.each([
    ['QQ Mail', '------------------&nbsp;原始邮件&nbsp;------------------'],
    ['QQ Mail through HTML-to-text', '------------------\u00a0原始邮件\u00a0------------------'],
    ['Outlook zh-CN', '-----原始邮件-----'],
    ['Outlook zh-TW', '-----原始郵件-----'],
    ['Outlook ko', '-----원본 메시지-----'],
  ])('%s', (_client, separator) => {
    const text = `请问可以按日期导出吗？\n\n${separator}\n发件人: support@support.example\n\n您可以在设置中更改字符编码。`;
    expect(extractQuestion(text)).toBe('请问可以按日期导出吗？');
    expect(replyBody(text)).toBe('请问可以按日期导出吗？');
  });
});

describe('replyReferences', () => {
  const id = (n: number) => `<id${n}.${'x'.repeat(20)}@mail.customer.example>`;

  it('keeps a normal chain whole, with the original last', () => {
    expect(replyReferences([id(1), id(2)], id(3))).toEqual([id(1), id(2), id(3)]);
  });

  // Clients write ids without `@` or with several, and thread by them as written (test/unit/reply-threading.test.ts).
  it('drops what is no <…> id or could break the header, and keeps ids that are not <local@domain>', () => {
    expect(replyReferences(['<ok@x.example>', 'garbage', '<no-at-sign>', '<a@b>\r\nBcc: x@y', '<a b@c>', '<a@b@c>'], '<orig@x.example>')).toEqual([
      '<ok@x.example>',
      '<no-at-sign>',
      '<a@b@c>',
      '<orig@x.example>',
    ]);
  });

  // A header with raw UTF-8 needs SMTPUTF8, which we do not ask for: a server without it refuses the reply (5xx) and
  // the customer gets none. Such an id (RFC 6532 allows it in the customer's mail) is left out of the threading.
  it('leaves out an id with non-ASCII characters, in References and In-Reply-To alike', () => {
    const utf8 = '<問い合わせ-1@例え.jp>';
    expect(replyReferences([id(1), utf8], '<orig@x.example>')).toEqual([id(1), '<orig@x.example>']);
    expect(replyReferences([id(1)], utf8)).toEqual([id(1)]);
  });

  it('a huge chain keeps the first and the last ids, under about 2 KB', () => {
    const many = Array.from({ length: 20_000 }, (_, i) => id(i));
    const refs = replyReferences(many, id(99_999));
    expect(refs[0]).toBe(id(0));
    expect(refs.at(-1)).toBe(id(99_999));
    expect(refs.at(-2)).toBe(id(19_999));
    expect(refs.join(' ').length).toBeLessThanOrEqual(2048);
    expect(refs.length).toBeGreaterThan(5);
  });

  it('leaves out an id too long for a header line (a hostile mail), in References and In-Reply-To alike', () => {
    const huge = `<${'a'.repeat(5_000)}@x.example>`;
    expect(replyReferences([id(1), huge], huge)).toEqual([id(1)]);
    const reply = composeReply({
      from: 'support@s.example',
      messageId: '<r@s.example>',
      answer: 'a',
      original: { from: 'a@x.example', subject: 's', text: 't', messageId: huge, references: [] },
      automatic: true,
    });
    expect(reply.inReplyTo).toBeUndefined();
    expect(reply.references).toBeUndefined();
  });

  it('composeReply uses it', () => {
    const original = { from: 'a@x.example', subject: 's', text: 't', messageId: id(2), references: Array.from({ length: 5000 }, (_, i) => id(i)) };
    const reply = composeReply({ from: 'support@s.example', messageId: '<r@s.example>', answer: 'a', original, automatic: true });
    expect(reply.references!.join(' ').length).toBeLessThanOrEqual(2048);
  });
});

// RFC 5322 §3.6.4: a reply's References is the parent's References, else the parent's In-Reply-To when that holds a
// single id, then the parent's Message-ID. Feature phones and some webmails write In-Reply-To without References
// (audit samples 29, 35): without the fallback our reply names only their mail, and the thread above it is lost.
describe('the References of a reply by the shape of the original\'s threading headers', () => {
  const own = '<s29@customer.example>';
  const ours = '<our-reply-1@support.example>';
  it.each<[string, { references: string[]; inReplyTo?: string[] }, string[]]>([
    ['References present: they stand, In-Reply-To adds nothing', { references: ['<root@customer.example>', ours], inReplyTo: [ours] }, ['<root@customer.example>', ours, own]],
    ['References present beside another In-Reply-To', { references: ['<root@customer.example>'], inReplyTo: [ours] }, ['<root@customer.example>', own]],
    ['only In-Reply-To with one id', { references: [], inReplyTo: [ours] }, [ours, own]],
    ['only In-Reply-To with one id, spaced', { references: [], inReplyTo: [` ${ours} `] }, [ours, own]],
    ['only In-Reply-To, naming the mail itself', { references: [], inReplyTo: [own] }, [own]],
    ['only In-Reply-To, given several ids (a ticket gives only the first): which parent is unclear', { references: [], inReplyTo: [ours, '<other@support.example>'] }, [own]],
    ['only In-Reply-To with junk (old "your message of" text)', { references: [], inReplyTo: ['<Your>'] }, [own]],
    ['only In-Reply-To with an id that could break the header', { references: [], inReplyTo: ['<a@b>\r\nBcc: x@y'] }, [own]],
    ['only In-Reply-To with a non-ASCII id', { references: [], inReplyTo: ['<問い合わせ-1@例え.jp>'] }, [own]],
    ['only In-Reply-To, empty', { references: [], inReplyTo: [] }, [own]],
    ['References of junk only, In-Reply-To with one id', { references: ['garbage'], inReplyTo: [ours] }, [ours, own]],
    ['neither', { references: [] }, [own]],
  ])('%s', (_case, headers, expected) => {
    expect(replyReferences(headers.references, own, headers.inReplyTo)).toEqual(expected);
    const mail = composeReply({ original: { subject: 's', from: 'a@customer.example', text: 't', messageId: own, ...headers }, answer: 'a', from: 'support@support.example', messageId: '<r@support.example>', automatic: true });
    expect(mail.references).toEqual(expected);
    expect(mail.inReplyTo).toBe(own);
  });

  it('names the parent alone for an original without a Message-ID of its own', () => {
    expect(replyReferences([], undefined, [ours])).toEqual([ours]);
  });

  // The ticket holds the mail's In-Reply-To as its first well-formed id (src/mail/parse.ts) and its References.
  it.each<[string, Partial<NewTicketInput>, string[]]>([
    ['a ticket with References', { references: ['<root@customer.example>', ours], inReplyTo: ours }, ['<root@customer.example>', ours, own]],
    ['a ticket with only In-Reply-To', { inReplyTo: ours }, [ours, own]],
    ['a ticket with neither', {}, [own]],
  ])('the sender threads %s', (_case, headers, expected) => {
    const ticket = newTicket({ messageId: own, from: 'a@customer.example', subject: 'Re: ログインできません', question: 'エラーコードはE-1024です。', actor: 'test', ...headers });
    const mail = composeReply({ original: originalOf(ticket), answer: 'a', from: 'support@support.example', messageId: '<r@support.example>', automatic: true });
    expect(mail.references).toEqual(expected);
  });
});

// The reply goes to one address, whatever the sender's display name says. A name written unquoted before the address
// (`v1@victim.example, x <a@cust.example>`) reads as two recipients to whoever parses the header again.
describe('the recipient of a reply', () => {
  const ticket = (fromName: string, extra: Partial<NewTicketInput> = {}) =>
    newTicket({ messageId: '<q9@cust.example>', from: 'a@cust.example', fromName, subject: 'q', question: 'How do I reset?', actor: 'test', ...extra });
  const NAMES = [
    ['an address and a comma', 'v1@victim.example, x'],
    ['two addresses', 'v1@victim.example, v2@victim2.example'],
    ['an angle-bracketed address', 'Support <v1@victim.example>'],
    ['a group', 'g: v1@victim.example, v2@victim2.example;'],
    ['a semicolon and quotes', 'Yamada "Taro"; v1@victim.example'],
  ] as const;

  /** The To, Cc and Bcc lines of a built reply, and its SMTP recipients. */
  async function recipients(mail: ReturnType<typeof composeReply>) {
    const built = await buildReplyMessage(mail);
    return { envelope: built.envelope.to, lines: built.raw.toString('latin1').split('\r\n').filter((line) => /^(?:To|Cc|Bcc):/i.test(line)) };
  }

  // No plain name holds an address: the reply goes to the one recipient, unnamed (security review 7, finding 1).
  it.each(NAMES)('a display name with %s is left out: the one recipient, unnamed', async (_case, fromName) => {
    // Composed as the sender composes it: the ticket's replyTo is the From's address when the mail had no Reply-To.
    const mail = composeReply({ original: originalOf(ticket(fromName)), answer: 'x', from: 'Support <support@support.example>', messageId: '<r9@support.example>', automatic: true });
    expect(mail.to).toBe('a@cust.example');
    expect(mail.toName).toBeUndefined();
    const { envelope, lines } = await recipients(mail);
    expect(envelope).toEqual(['a@cust.example']);
    expect(lines).toEqual(['To: a@cust.example']);
  });

  it('a plain display name with a comma and quotes is the name of the one recipient', async () => {
    const mail = composeReply({ original: originalOf(ticket('Yamada, "Taro"')), answer: 'x', from: 'Support <support@support.example>', messageId: '<r9@support.example>', automatic: true });
    expect(mail.toName).toBe('Yamada, "Taro"');
    const { envelope, lines } = await recipients(mail);
    expect(envelope).toEqual(['a@cust.example']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^To: "[^\r\n]*" <a@cust\.example>$/);
  });

  // A caller that still writes `Name <addr>` into `from`: the address is what the brackets at the end hold.
  it.each(NAMES)('a From written as "name <addr>" with %s in the name goes to that address alone', async (_case, fromName) => {
    const mail = composeReply({ original: { subject: 'q', references: [], from: `${fromName} <a@cust.example>`, text: 't' }, answer: 'x', from: 'support@support.example', messageId: '<r15@support.example>', automatic: true });
    expect(mail.to).toBe('a@cust.example');
    expect((await recipients(mail)).envelope).toEqual(['a@cust.example']);
  });

  it('still names the sender in the quote\'s attribution line', () => {
    const mail = composeReply({ original: originalOf(ticket('Taro')), answer: 'x', from: 'support@support.example', messageId: '<r10@support.example>', automatic: true });
    expect(mail.text).toContain('Taro <a@cust.example> wrote:\n> How do I reset?');
  });

  // Defence in depth: whatever put it on the ticket (a ticket stored before addresses were checked), a reply whose
  // SMTP envelope would hold anything but its one recipient is refused before a byte goes out.
  it.each([
    ['two addresses', 'v1@victim.example, a@cust.example'],
    ['a quoted local part with a comma', '"victim1@bank.example,victim2"@customer.example'],
    ['a quoted local part, unquoted', 'victim1@bank.example,victim2@customer.example'],
    ['a domain literal', 'victim@[127.0.0.1]'],
    ['a percent hack', 'victim%bank.example@customer.example'],
    ['a name and an address in one', 'Taro <a@cust.example>, v1@victim.example'],
    ['no address', ''],
    // What the reply decision parks for a person (src/mail/classify.ts, unusableSenderOf) stays unsendable after they approve.
    ['a quoted local part that needs its quotes', '"john smith"@example.com'],
    ['a local part starting with a dot', '.taro@customer.example'],
    ['a bang route', 'relay!taro@customer.example'],
  ])('refuses to build a reply to %s', async (_case, to) => {
    const mail = { ...composeReply({ original: originalOf(ticket('Taro')), answer: 'x', from: 'support@support.example', messageId: '<r11@support.example>', automatic: true }), to };
    expect(replyRecipientProblem(mail)).toMatch(/^the reply would not go to exactly one address a reply may go to/);
    await expect(buildReplyMessage(mail)).rejects.toThrow(/would not go to exactly one address/);
  });

  // A person approving the draft of a parked ticket whose sender's address no reply may go to: the sender parks it again.
  it.each<[string, Partial<NewTicketInput>]>([
    ['a Reply-To of a domain literal', { replyTo: 'admin@[10.0.0.1]' }],
    ['a Reply-To routed through another host', { replyTo: 'support%support.example@relay.example' }],
    ['a Reply-To of a quoted local part', { replyTo: '"john smith"@example.com' }],
    ['a From the parser left out (the ticket holds none)', { from: '' }],
  ])('refuses an approved reply to a ticket with %s', (_case, extra) => {
    const mail = composeReply({ original: originalOf(ticket('Taro', extra)), answer: 'x', from: 'support@support.example', messageId: '<r16@support.example>', automatic: false });
    expect(replyRecipientProblem(mail)).toMatch(/^the reply would not go to exactly one address a reply may go to/);
  });

  it.each([
    ['a plain address', 'a@cust.example', ['a@cust.example']],
    ['an address in capitals (nodemailer writes the domain in lower case)', 'A@Cust.Example', ['A@cust.example']],
    ['a Unicode domain (sent as punycode)', 'jdoe@mächine.example', ['jdoe@xn--mchine-bua.example']],
  ])('builds a reply to %s', async (_case, to, envelope) => {
    const mail = { ...composeReply({ original: originalOf(ticket('Taro')), answer: 'x', from: 'support@support.example', messageId: '<r12@support.example>', automatic: true }), to };
    expect(replyRecipientProblem(mail)).toBeUndefined();
    expect((await buildReplyMessage(mail)).envelope.to).toEqual(envelope);
  });
});

// A sender nothing authenticates may not have written the mail: the sender decides when it sends whether a quote
// holding a link is left out (src/tickets/quote-omission.ts) and hands the reason on, for automatic and approved
// replies alike.
describe('a quote the sender leaves out', () => {
  const base = { messageId: '<q8@cust.example>', from: 'victim@bank.example', fromName: 'XYZ Support Security', subject: 'q', question: 'Confirm at https://xyz-account-verify.example/login', actor: 'test' };

  it.each([
    ['an automatic reply', true],
    ['an approved reply', false],
  ])('is left out of %s', (_case, automatic) => {
    const mail = composeReply({ original: originalOf(newTicket(base), 'the sender is not authenticated'), answer: '設定手順は次のとおりです。', from: 'support@support.example', messageId: '<r13@support.example>', automatic });
    expect(mail.text).toBe('設定手順は次のとおりです。\n');
    expect(mail.to).toBe('victim@bank.example');
  });

  it('stays in a reply nothing decided to leave it out of', () => {
    const mail = composeReply({ original: originalOf(newTicket(base), undefined), answer: 'x', from: 'support@support.example', messageId: '<r14@support.example>', automatic: true });
    expect(mail.text).toContain('> Confirm at https://xyz-account-verify.example/login');
  });
});

describe('what the reply sends of a character the customer\'s mail could not decode', () => {
  // A carrier's emoji in an ISO-2022-JP subject or name is U+FFFD in the ticket (named in its charset notes); in
  // Japanese mail such a character is written 〓 (geta), which the customer reads as "a character was here".
  const original = {
    messageId: '<q45@customer.example>',
    subject: '題名\ufffd',
    references: [],
    from: 'taro@customer.example',
    fromName: '山田\ufffd太郎',
    date: 'Mon, 2 Nov 2026 10:00:00 +0900',
    text: 'ログインできません\ufffd\nよろしくお願いします。',
  };

  it('the subject, the quote, the name in To and the greeting carry 〓, never U+FFFD', () => {
    const mail = composeReply({ original, answer: '山田\ufffd太郎様\n\n手順は次のとおりです。', from: 'support@support.example', messageId: '<r45@support.example>', automatic: true });
    expect(mail.subject).toBe('Re: 題名〓');
    expect(mail.toName).toBe('山田〓太郎');
    expect(mail.text).toContain('> ログインできません〓');
    expect(mail.text).toContain('山田〓太郎 <taro@customer.example>');
    expect(mail.text.startsWith('山田〓太郎様')).toBe(true);
    expect(`${mail.subject}${mail.toName}${mail.text}`).not.toContain('\ufffd');
  });

  it('replySubject and quoteOriginal on their own', () => {
    expect(replySubject('Re: 題名\ufffd')).toBe('Re: 題名〓');
    expect(quoteOriginal({ from: 'a@b.example', text: 'x\ufffdy' })).toContain('> x〓y');
  });
});
