/**
 * The headers and first lines of a reply as the sender builds it from a ticket: whom it greets by name in To, the
 * References chain, the Sent copy's line ends and the quote's attribution line in the customer's language and time.
 */
import { describe, expect, it } from 'vitest';
import { attributionLine, composeReply, replyLanguage, replyReferences, type AttributionLanguage } from '../../src/mail/compose-reply.js';
import { ticketInputForMail } from '../../src/mail/ingest.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { buildReplyMessage } from '../../src/mail/smtp-transport.js';
import { newTicket, type NewTicketInput, type Ticket } from '../../src/tickets/ticket.js';
import { originalOf } from '../../jobs/send-reply.js';

const OURS = 'Support <support@support.example>';

/** The reply the sender would build for a ticket, and what a mail client reads of its To. */
async function replyTo(ticket: Ticket, answer = 'Thank you for your message.') {
  const mail = composeReply({ original: originalOf(ticket), answer, from: OURS, messageId: '<r@support.example>', automatic: true });
  const built = await buildReplyMessage(mail);
  const headerBlock = built.raw.toString('latin1').split('\r\n\r\n')[0]!;
  const read = await parseInboundMail(built.raw);
  return { mail, built, headerBlock, to: read.to };
}

/** A raw customer mail with the given From and Reply-To header lines, and Date (none when `date` is null). */
function rawMail(from: string, replyToHeader?: string, date: string | null = 'Tue, 24 Nov 2026 10:05:00 +0900'): Buffer {
  return Buffer.from(
    [
      `From: ${from}`,
      ...(replyToHeader ? [`Reply-To: ${replyToHeader}`] : []),
      'To: support@support.example',
      'Subject: =?UTF-8?B?44OR44K544Ov44O844OJ44Gr44Gk44GE44Gm?=',
      ...(date !== null ? [`Date: ${date}`] : []),
      'Message-ID: <q1@customer.example>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      'パスワードの条件を教えてください。',
      '',
    ].join('\r\n'),
  );
}

/** The ticket the poller makes of a raw mail, reaching us at `now`. */
async function ticketOf(raw: Buffer, now?: Date): Promise<Ticket> {
  return newTicket(ticketInputForMail(await parseInboundMail(raw), raw, { rawRef: 'raw:test' }), now);
}

// The customer is greeted by the name of the mailbox the reply goes to: the Reply-To's own name when it goes there,
// the From's when it goes to the From.
describe('the name in the To of a reply, from the customer\'s mail', () => {
  it.each([
    ['a From with a Japanese name, no Reply-To', '=?UTF-8?B?5Yqg6JekIOWNmg==?= <hiro.kato@gmail.com>', undefined, { name: '加藤 博', address: 'hiro.kato@gmail.com' }],
    ['a From with a quoted name holding a comma', '"Yamada, Taro" <taro@customer.example>', undefined, { name: 'Yamada, Taro', address: 'taro@customer.example' }],
    ['a From without a name', 'taro@customer.example', undefined, { name: '', address: 'taro@customer.example' }],
    ['a Reply-To with its own name', 'Web Form <form@customer.example>', 'Hanako Sato <hanako@customer.example>', { name: 'Hanako Sato', address: 'hanako@customer.example' }],
    ['a Reply-To without a name: not the From\'s name', 'Web Form <form@customer.example>', 'hanako@customer.example', { name: '', address: 'hanako@customer.example' }],
    ['a Reply-To that is the From, without a name', 'Taro Yamada <taro@customer.example>', 'taro@customer.example', { name: 'Taro Yamada', address: 'taro@customer.example' }],
    ['a Reply-To that is the From, with a name of its own', 'Taro Yamada <taro@customer.example>', '"Yamada Taro (home)" <taro@customer.example>', { name: 'Yamada Taro (home)', address: 'taro@customer.example' }],
  ])('%s', async (_case, from, replyToHeader, expected) => {
    const { mail, to } = await replyTo(await ticketOf(rawMail(from, replyToHeader)));
    expect(mail.to).toBe(expected.address);
    expect(mail.toName ?? '').toBe(expected.name);
    expect(to).toEqual([expected]);
  });

  it('writes a Japanese name as an encoded word beside the address', async () => {
    const { headerBlock } = await replyTo(await ticketOf(rawMail('=?UTF-8?B?5Yqg6JekIOWNmg==?= <hiro.kato@gmail.com>')));
    expect(headerBlock).toMatch(/\r\nTo: =\?UTF-8\?B\?5Yqg6JekIOWNmg==\?= <hiro\.kato@gmail\.com>\r\n/);
  });
});

// Tickets stored before the Reply-To's name was kept: their `replyTo` is the From's address when the mail had none.
describe('the name in the To of a reply to a ticket stored before Reply-To names were kept', () => {
  const stored = (extra: Partial<Ticket>): Ticket => ({
    ...newTicket({ messageId: '<q2@customer.example>', from: 'taro@customer.example', fromName: 'Taro Yamada', subject: 'q', question: 'How do I reset?', actor: 'test' }),
    ...extra,
  });
  it.each([
    ['replyTo filled with the From', stored({ replyTo: 'taro@customer.example' }), 'Taro Yamada'],
    ['a real Reply-To, its name unknown', stored({ replyTo: 'desk@customer.example' }), ''],
    ['no name at all', stored({ replyTo: 'taro@customer.example', fromName: undefined }), ''],
  ])('%s', async (_case, ticket, name) => {
    const { mail, to } = await replyTo(ticket);
    expect(mail.toName ?? '').toBe(name);
    expect(to).toEqual([{ name, address: ticket.replyTo }]);
  });
});

// A display name is text a stranger wrote: whatever it spells, the reply has one recipient and no header of its making.
describe('a hostile display name in the To of a reply', () => {
  const HOSTILE = [
    ['a comma and an address', 'v1@victim.example, x'],
    ['quotes and an address', 'Yamada "Taro" <x@evil.example>'],
    ['angle brackets', '<x@evil.example>'],
    ['CR LF and a Bcc header', 'Taro\r\nBcc: x@evil.example'],
    ['a bare LF and a header', 'Taro\nX-Injected: yes'],
    ['an encoded word spelling an address list', '=?UTF-8?Q?x=40evil.example=2C_y=40evil.example?='],
    ['an encoded word spelling a line break', '=?UTF-8?Q?Taro=0D=0ABcc=3A_x=40evil.example?='],
    ['a group', 'g: v1@victim.example, v2@victim2.example;'],
    ['a backslash before a quote', 'a\\" <x@evil.example>, "'],
  ] as const;
  const cases = HOSTILE.flatMap(([what, name]) => [
    [`the From's name with ${what}`, { fromName: name } as Partial<NewTicketInput>, 'taro@customer.example'],
    [`the Reply-To's name with ${what}`, { replyTo: 'hanako@customer.example', replyToName: name } as Partial<NewTicketInput>, 'hanako@customer.example'],
  ] as const);

  it.each(cases)('%s', async (_case, extra, address) => {
    const ticket = newTicket({ messageId: '<q3@customer.example>', from: 'taro@customer.example', subject: 'q', question: 'How do I reset?', actor: 'test', ...extra });
    const { built, headerBlock, to } = await replyTo(ticket);
    expect(built.envelope.to).toEqual([address]);
    expect(to.map((t) => t.address)).toEqual([address]);
    // One To line (its folds aside), no Cc or Bcc, no header a name made, no line break but CRLF.
    const lines = headerBlock.split('\r\n');
    expect(lines.filter((l) => /^(?:to|cc|bcc):/i.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /^(?:cc|bcc|x-injected):/i.test(l))).toEqual([]);
    expect(headerBlock).not.toMatch(/\r(?!\n)|(?<!\r)\n/);
    expect(lines.every((l) => l.length <= 998)).toBe(true);
  });

  it('puts a name with only spaces to spare on one line', async () => {
    const ticket = newTicket({ messageId: '<q4@customer.example>', from: 'taro@customer.example', fromName: '  Taro    Yamada ', subject: 'q', question: 'q', actor: 'test' });
    expect((await replyTo(ticket)).mail.toName).toBe('Taro Yamada');
  });
});

// A display name goes into the To only when it is plainly a person's or a team's name: anything else is a stranger's
// words in our reply's header, mailed from our address to the mailbox it names (security review 7, finding 1).
describe('a display name that is no plain name', () => {
  const b64 = (s: string) => `=?utf-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`;
  const HOSTILE: readonly (readonly [string, string])[] = [
    ['a link and a phone number', '【重要】XYZサポート https://xyz-verify.example/login 03-1234-5678 へ至急'],
    ['an address', 'ceo@customer.example'],
    ['angle brackets', 'Taro <boss>'],
    ['a link without a scheme', 'Visit www.xyz-verify.example now'],
    ['a host name', 'XYZ Support xyz-verify.example'],
    ['a host name with an ideographic full stop', 'XYZ サポート xyz-verify。example'],
    ['a scheme', 'hxxp://evil'],
    ['an encoded word inside the name', b64(`=?utf-8?B?${Buffer.from('<evil@attacker.example>\r\nBcc: e@x', 'utf8').toString('base64')}?=`)],
    ['a literal encoded word', '=?utf-8?Q?Taro?='],
    ['a run of digits', 'Call 0120123456'],
    ['a phone number with hyphens', 'サポート窓口 03-1234-5678'],
    ['a phone number with spaces and a plus', 'Support +81 3 1234 5678'],
    ['a phone number in full-width digits', 'サポート ０３－１２３４－５６７８'],
    ['a full-width at sign', 'ceo＠customer'],
    ['a right-to-left override', 'Taro \u202eelgoog'],
    ['a zero-width space', 'Ta\u200bro'],
    ['a control character', 'Taro\u0007Yamada'],
    ['a line break', 'Taro\r\nYamada'],
    ['more than 80 characters', 'Taro Yamada '.repeat(8)],
    ['a host in capitals', 'Free-Quilting.COM'],
    ['a host of three labels', 'Support Xyz.Verify.Example'],
    ['a link without a scheme in capitals', 'Visit WWW.XYZ now'],
    // Phone numbers in shapes the draft check's finder does not read, and hosts it lets pass as text in a draft (bug
    // review 39, finding 2).
    ['a run of ten digits', 'Call now 5551234567'],
    ['a run of eleven digits', 'Refund desk 18005551234'],
    ['a local number with one hyphen', 'Line 212-5550100'],
    ['an international number in spaced groups', 'Support 44 20 7946 0958'],
    ['a mobile number in spaced groups', 'WhatsApp 49 151 12345678'],
    ['a number in two spaced groups', 'Tel 030 123456'],
    ['a number in dotted groups', 'Hotline 0301.234567'],
    ['a number with its area code in brackets', 'Tel. (030) 12 34 56'],
    ['a number in Arabic-Indic digits', 'اتصل ٠٥٥٥١٢٣٤٥٦٧'],
    ['a Japanese host with an ideographic full stop', 'サポート。jp'],
    ['a host with an ideographic full stop before a Japanese top-level domain', 'paypal。ストア'],
    ['a Cyrillic host with an ideographic full stop', 'пример。рф'],
    ['a host with a half-width ideographic full stop', 'サポート｡com'],
    ['a host on a top-level domain that is also a file extension', 'office-update.zip'],
    ['another host on a file-extension top-level domain', 'setup.mov'],
  ];
  const cases = HOSTILE.flatMap(([what, name]) => [
    [`the From's name with ${what}`, { fromName: name } as Partial<NewTicketInput>, 'taro@customer.example'],
    [`the Reply-To's name with ${what}`, { replyTo: 'ceo@customer.example', replyToName: name } as Partial<NewTicketInput>, 'ceo@customer.example'],
  ] as const);

  it.each(cases)('%s: the bare address', async (_case, extra, address) => {
    const ticket = newTicket({ messageId: '<q5@customer.example>', from: 'taro@customer.example', subject: 'q', question: 'How do I reset?', actor: 'test', ...extra });
    const { mail, to } = await replyTo(ticket);
    expect(mail.toName).toBeUndefined();
    expect(to).toEqual([{ name: '', address }]);
  });

  it.each([
    ['Japanese', '山田 太郎'],
    ['Japanese with an honorific and a company', '株式会社ABC 山田様'],
    ['English', 'Anne Miller'],
    ['Korean', '김민수'],
    ['Chinese', '王伟'],
    ['a comma', 'Yamada, Taro'],
    ['an apostrophe', "Sean O'Brien"],
    ['a title with a dot and an umlaut', 'Dr. Anna Müller'],
    ['initials', 'J. R. R. Tolkien'],
    ['a team and a number', 'Support Team 2'],
    ['a hyphen', 'Anne-Marie Dupont'],
    // Dotted names that end in no domain, and what a name may join invisibly (bug review 38d, finding 4).
    ['an initial and a dot', 'J.Smith'],
    ['a title and a dot', 'Mr.Smith'],
    ['St.John', 'St.John Rivers'],
    ['an emoji with its variation selector', 'Anna ❤️'],
    ['an emoji family joined by ZWJ', '👨‍👩‍👧 Family'],
    ['a Persian name with a zero-width non-joiner', 'می‌خواهم'],
    // Numbers a name carries that are no phone number: fewer than seven digits however they are grouped.
    ['a team number', 'Team 2'],
    ['a company, a comma and a numbered department', 'ABC Co., Ltd. 第2営業部'],
    ['a department in brackets', 'Taro Yamada (Sales)'],
    ['a year', 'Acme 2024'],
    ['an employee number', '山田 太郎 (社員番号 123456)'],
    ['a staff number after a hash', 'Anne Miller #40213'],
    ['a floor and a room', 'Acme 3F Room 305'],
  ])('keeps a name in %s', async (_case, name) => {
    const ticket = newTicket({ messageId: '<q6@customer.example>', from: 'taro@customer.example', replyTo: 'hanako@customer.example', replyToName: name, subject: 'q', question: 'q', actor: 'test' });
    const { mail, to } = await replyTo(ticket);
    expect(mail.toName).toBe(name);
    expect(to).toEqual([{ name, address: 'hanako@customer.example' }]);
  });

  it('sends a Reply-To whose name is a nested encoded word to the bare address, from the raw mail', async () => {
    const inner = `=?utf-8?B?${Buffer.from('<evil@attacker.example>\r\nBcc: e@x', 'utf8').toString('base64')}?=`;
    const { mail, to, headerBlock } = await replyTo(await ticketOf(rawMail('mallory@customer.example', `${b64(inner)} <ceo@customer.example>`)));
    expect(mail.toName).toBeUndefined();
    expect(to).toEqual([{ name: '', address: 'ceo@customer.example' }]);
    expect(headerBlock).toMatch(/\r\nTo: ceo@customer\.example\r\n/);
  });
});

// RFC 5322 §3.6.4: References is the parent's References followed by the parent's Message-ID; an id named twice is
// named once, the parent last.
describe('ids the customer\'s References already holds', () => {
  const own = '<cust-1@customer.example>';
  it.each<[string, string[], string[]]>([
    ['their own Message-ID in their References', ['<r1@x.example>', own], ['<r1@x.example>', own]],
    ['their own Message-ID first in their References', [own, '<r1@x.example>'], ['<r1@x.example>', own]],
    ['an id twice in their References', ['<r1@x.example>', '<r2@x.example>', '<r1@x.example>'], ['<r1@x.example>', '<r2@x.example>', own]],
    ['a chain without repeats', ['<r1@x.example>', '<r2@x.example>'], ['<r1@x.example>', '<r2@x.example>', own]],
  ])('%s', (_case, references, expected) => {
    expect(replyReferences(references, own)).toEqual(expected);
    const mail = composeReply({ original: { subject: 's', from: 'a@customer.example', text: 't', messageId: own, references }, answer: 'a', from: OURS, messageId: '<r@support.example>', automatic: true });
    expect(mail.references).toEqual(expected);
    expect(mail.inReplyTo).toBe(own);
  });
});

// MailComposer writes an ASCII text 7bit, its line ends as given; SMTP's DATA stream turns bare LF into CRLF, so the
// Sent copy (the bytes built here) must already have CRLF to be what the server received.
describe('the line ends of a built reply', () => {
  it.each([
    ['an English reply (7bit)', 'Thank you.\n\nPlease open Settings.\nBest regards,'],
    ['a Japanese reply (base64)', 'お問い合わせありがとうございます。\n設定画面を開いてください。'],
    ['an answer with CRLF already', 'Thank you.\r\n\r\nBest regards,'],
  ])('%s has CRLF only', async (_case, answer) => {
    const ticket = newTicket({ messageId: '<q5@customer.example>', from: 'taro@customer.example', fromName: 'Taro', subject: 'q', question: 'How do I reset\nmy password?', actor: 'test' });
    const { built } = await replyTo(ticket, answer);
    const raw = built.raw.toString('latin1');
    expect(raw).not.toMatch(/(?<!\r)\n/);
    expect(raw).not.toMatch(/\r(?!\n)/);
    expect(raw).not.toMatch(/\r\n\r\n\r\n\r\n\r\n/);
  });
});

describe('the reply\'s language', () => {
  it.each([
    ['設定手順は次のとおりです。', 'ja'],
    ['You can change it under Settings.', 'en'],
    ['您可以在设置中更改。', 'zh'],
    ['您可以在設定中更改。', 'zh'],
    ['설정에서 변경할 수 있습니다.', 'ko'],
    ['설정(設定)에서 변경할 수 있습니다.', 'ko'],
    // An English reply naming a Chinese person, screen or address stays English.
    ['Hello 王伟, the 设置 screen is under 系统管理 > 账户设置 > 安全中心. Go there.', 'en'],
    ['Thanks! Your address: 北京市朝阳区建国路88号华贸中心写字楼1座.', 'en'],
    ['Dear 欧阳娜娜, your refund has been issued.', 'en'],
    ['Hello 김민수, your account is ready.', 'en'],
    ['The message 密码错误，请重新输入。 means the password is wrong; please reset it on the login page.', 'en'],
    // A Chinese or Korean reply naming an English product or screen stays Chinese or Korean.
    ['您可以在 Microsoft Outlook 的设置中更改。', 'zh'],
    ['请在 Settings > Account 页面中点击 Reset Password 按钮。', 'zh'],
    ['請在 Settings 頁面中更改密碼。', 'zh'],
    ['可以。', 'zh'],
    ['请在 Settings 页面中更改密码', 'zh'],
    ['비밀번호는 Microsoft Outlook 설정에서 변경할 수 있습니다.', 'ko'],
    ['Google Workspace 관리 콘솔에서 변경하세요.', 'ko'],
  ] as const)('%j → %s', (answer, language) => {
    expect(replyLanguage(answer)).toBe(language);
  });
});

// The customer sees the time they wrote at: the offset of their own Date header. Without it (a ticket keeps the
// instant only), the server's zone, named, so the time is never read in the wrong one.
describe('the quote\'s attribution line in Korean and Chinese, and its time', () => {
  const tokyo10 = 'Tue, 24 Nov 2026 10:05:00 +0900';
  const instant = '2026-11-24T01:05:00.000Z';
  const kim = '김민수 <minsu@customer.example>';
  const wang = '王伟 <wei@customer.example>';
  const taro = '山田太郎 <taro@customer.example>';
  it.each<[string, string, string | undefined, AttributionLanguage, string | undefined, string]>([
    ['Korean, the Date\'s offset', kim, tokyo10, 'ko', 'UTC', '2026년 11월 24일 (화) 10:05, 김민수 <minsu@customer.example>님이 작성:'],
    ['Korean, no date', kim, undefined, 'ko', 'UTC', '김민수 <minsu@customer.example>님이 작성:'],
    ['Chinese, the Date\'s offset', wang, 'Tue, 24 Nov 2026 09:05:00 +0800', 'zh', 'UTC', '2026年11月24日(周二) 09:05 王伟 <wei@customer.example> 写道：'],
    ['Chinese, no date', wang, undefined, 'zh', 'UTC', '王伟 <wei@customer.example> 写道：'],
    ['Japanese, the Date\'s offset, server in UTC', taro, tokyo10, 'ja', 'UTC', '2026年11月24日(火) 10:05 山田太郎 <taro@customer.example>:'],
    ['Japanese, an ISO date with its offset', taro, '2026-11-24T10:05:00+09:00', 'ja', 'UTC', '2026年11月24日(火) 10:05 山田太郎 <taro@customer.example>:'],
    ['English, the Date\'s offset, the day before in UTC', 'Ann <ann@customer.example>', 'Mon, 23 Nov 2026 20:05:00 -0500', 'en', 'Asia/Tokyo', 'On Mon, 23 Nov 2026 at 20:05, Ann <ann@customer.example> wrote:'],
    ['English, the Date says +0000', 'ann@customer.example', 'Tue, 24 Nov 2026 01:05:00 +0000', 'en', 'Asia/Tokyo', 'On Tue, 24 Nov 2026 at 01:05, ann@customer.example wrote:'],
    ['Japanese, an instant only, server in UTC: the zone named', taro, instant, 'ja', 'UTC', '2026年11月24日(火) 01:05 UTC 山田太郎 <taro@customer.example>:'],
    ['Japanese, an instant only, server in Tokyo: the zone named', taro, instant, 'ja', 'Asia/Tokyo', '2026年11月24日(火) 10:05 UTC+9 山田太郎 <taro@customer.example>:'],
    ['English, an instant only, server in New York', 'ann@customer.example', instant, 'en', 'America/New_York', 'On Mon, 23 Nov 2026 at 20:05 UTC-5, ann@customer.example wrote:'],
    ['English, an instant only, server in India', 'ann@customer.example', instant, 'en', 'Asia/Kolkata', 'On Tue, 24 Nov 2026 at 06:35 UTC+5:30, ann@customer.example wrote:'],
    ['Korean, an instant only, server in UTC', kim, instant, 'ko', 'UTC', '2026년 11월 24일 (화) 01:05 UTC, 김민수 <minsu@customer.example>님이 작성:'],
  ])('%s', (_case, from, date, language, timeZone, expected) => {
    expect(attributionLine(from, date, { language, ...(timeZone ? { timeZone } : {}) })).toBe(expected);
  });

  it.each([
    ['Korean', '비밀번호는 설정 화면에서 변경할 수 있습니다.', '2026년 11월 24일 (화) 01:05 UTC, 김민수 <minsu@customer.example>님이 작성:'],
    ['Chinese', '您可以在设置页面更改密码。', '2026年11月24日(周二) 01:05 UTC 김민수 <minsu@customer.example> 写道：'],
  ])('a %s reply quotes the original under a line in its language', (_language, answer, line) => {
    const mail = composeReply({
      original: { subject: 'q', references: [], from: 'minsu@customer.example', fromName: '김민수', date: instant, text: '비밀번호를 바꾸고 싶습니다.' },
      answer,
      from: OURS,
      messageId: '<r@support.example>',
      automatic: true,
      timeZone: 'UTC',
    });
    expect(mail.text).toBe(`${answer}\n\n${line}\n> 비밀번호를 바꾸고 싶습니다.\n`);
  });

  it.each([
    ['Korean', '비밀번호는 설정 화면에서 변경할 수 있습니다.', 'Re: (제목 없음)'],
    ['Chinese', '您可以在设置页面更改密码。', 'Re: (无主题)'],
  ])('a %s reply to a mail without a subject says so in its language', (_language, answer, subject) => {
    const mail = composeReply({ original: { subject: '', references: [], from: 'a@customer.example', text: 't' }, answer, from: OURS, messageId: '<r@support.example>', automatic: true });
    expect(mail.subject).toBe(subject);
  });
});

// The customer sees the time they wrote at as their own client showed it: the offset their Date header was written in,
// kept on the ticket beside the instant (whose format duplicate detection compares and hashes). Without one (no Date,
// one naming no zone, a ticket stored before the offset was kept) the time is the desk's zone, named.
describe('the attribution time of a reply, from the customer\'s Date header through the ticket', () => {
  const TARO = `=?UTF-8?B?${Buffer.from('山田太郎').toString('base64')}?= <taro@customer.example>`;
  const WHO = '山田太郎 <taro@customer.example>';
  const ANSWER = 'パスワードは12文字以上です。';
  // Reached us at 03:00 UTC; the desk runs in New York, far from every writer here, so a time shown in the desk's
  // zone instead of the writer's cannot pass for it.
  const RECEIVED = new Date('2026-11-24T03:00:00.000Z');
  const DESK = 'America/New_York';

  /** The attribution line of the Japanese reply the sender builds for a ticket. */
  function attributionOf(ticket: Ticket): string {
    const mail = composeReply({ original: originalOf(ticket), answer: ANSWER, from: OURS, messageId: '<r@support.example>', automatic: true, timeZone: DESK });
    return mail.text.split('\n').find((l) => l.includes(WHO))!;
  }

  it.each<[string, string | null, string | undefined, number | undefined, string]>([
    ['+0900 (Tokyo)', 'Tue, 24 Nov 2026 10:05:00 +0900', '2026-11-24T01:05:00.000Z', 540, `2026年11月24日(火) 10:05 ${WHO}:`],
    ['+0900 with its zone\'s name in a comment', 'Tue, 24 Nov 2026 10:05:00 +0900 (JST)', '2026-11-24T01:05:00.000Z', 540, `2026年11月24日(火) 10:05 ${WHO}:`],
    ['-0500 (the day before in UTC)', 'Mon, 23 Nov 2026 20:05:00 -0500', '2026-11-24T01:05:00.000Z', -300, `2026年11月23日(月) 20:05 ${WHO}:`],
    ['+0530 (India)', 'Tue, 24 Nov 2026 06:35:00 +0530', '2026-11-24T01:05:00.000Z', 330, `2026年11月24日(火) 06:35 ${WHO}:`],
    ['+0000', 'Tue, 24 Nov 2026 01:05:00 +0000', '2026-11-24T01:05:00.000Z', 0, `2026年11月24日(火) 01:05 ${WHO}:`],
    ['GMT (RFC 5322 obsolete zone)', 'Tue, 24 Nov 2026 01:05:00 GMT', '2026-11-24T01:05:00.000Z', 0, `2026年11月24日(火) 01:05 ${WHO}:`],
    ['EST (RFC 5322 obsolete zone)', 'Mon, 23 Nov 2026 20:05:00 EST', '2026-11-24T01:05:00.000Z', -300, `2026年11月23日(月) 20:05 ${WHO}:`],
    // RFC 5322 §3.3: -0000 says the writer's zone is unknown.
    ['-0000: the writer\'s zone unknown', 'Tue, 24 Nov 2026 01:05:00 -0000', '2026-11-24T01:05:00.000Z', undefined, `2026年11月23日(月) 20:05 UTC-5 ${WHO}:`],
    ['a military zone letter (ambiguous, RFC 5322 §4.3)', 'Tue, 24 Nov 2026 01:05:00 Z', '2026-11-24T01:05:00.000Z', undefined, `2026年11月23日(月) 20:05 UTC-5 ${WHO}:`],
    ['no Date header: when it reached us', null, undefined, undefined, `2026年11月23日(月) 22:00 UTC-5 ${WHO}:`],
    ['an unreadable Date header: when it reached us', 'soon', undefined, undefined, `2026年11月23日(月) 22:00 UTC-5 ${WHO}:`],
  ])('%s', async (_case, date, mailDate, offset, line) => {
    const raw = rawMail(TARO, undefined, date);
    expect((await parseInboundMail(raw)).dateOffsetMinutes).toBe(offset);
    const ticket = await ticketOf(raw, RECEIVED);
    // The instant as before: duplicate detection compares it and hashes it into reused ids.
    expect(ticket.mailDate).toBe(mailDate);
    expect(ticket.mailDateOffsetMinutes).toBe(offset);
    expect(attributionOf(ticket)).toBe(line);
  });

  it('a ticket stored before the offset was kept shows the desk\'s zone, named', async () => {
    const { mailDateOffsetMinutes: _unknown, ...stored } = await ticketOf(rawMail(TARO), RECEIVED);
    expect(attributionOf(stored)).toBe(`2026年11月23日(月) 20:05 UTC-5 ${WHO}:`);
  });

  it.each<[string, number, string]>([
    ['beyond any zone (+15:00)', 900, `On Mon, 23 Nov 2026 at 20:05 UTC-5, ${WHO} wrote:`],
    ['not whole minutes', 540.5, `On Mon, 23 Nov 2026 at 20:05 UTC-5, ${WHO} wrote:`],
    ['not a number', Number.NaN, `On Mon, 23 Nov 2026 at 20:05 UTC-5, ${WHO} wrote:`],
    ['+09:00', 540, `On Tue, 24 Nov 2026 at 10:05, ${WHO} wrote:`],
  ])('an offset handed to the composer %s', (_case, dateOffsetMinutes, line) => {
    const mail = composeReply({
      original: { subject: 'q', references: [], from: 'taro@customer.example', fromName: '山田太郎', date: '2026-11-24T01:05:00.000Z', dateOffsetMinutes, text: 'q' },
      answer: 'Thank you.',
      from: OURS,
      messageId: '<r@support.example>',
      automatic: true,
      timeZone: DESK,
    });
    expect(mail.text.split('\n')).toContain(line);
  });
});

// A Date header is the sender's text: one at the edge of what a JS Date holds, or that its offset moves past it, must
// never stop the reply (the sender composes before it sends, and a throw there fails every retry alike).
describe('a Date header at the edge of the date range', () => {
  const WHO = '山田太郎 <taro@customer.example>';
  const TARO = `=?UTF-8?B?${Buffer.from('山田太郎').toString('base64')}?= <taro@customer.example>`;
  const RECEIVED = new Date('2026-11-24T03:00:00.000Z');

  /** The English attribution line of the reply the sender builds for a ticket, the desk in Tokyo. */
  function attributionOf(ticket: Ticket): string | undefined {
    const mail = composeReply({ original: originalOf(ticket), answer: 'Thank you.', from: OURS, messageId: '<r@support.example>', automatic: true, timeZone: 'Asia/Tokyo' });
    return mail.text.split('\n').find((l) => l.includes(WHO));
  }

  // No year a client writes: read as no Date (the ticket keeps none), so the line is dated when the mail reached us.
  it.each([
    ['the last instant a Date holds, +0900', 'Sat, 13 Sep 275760 09:00:00 +0900'],
    ['the last instant, +1400 (the largest zone)', 'Sat, 13 Sep 275760 14:00:00 +1400'],
    ['the last instant, +2359 (1439 minutes: no zone)', 'Sat, 13 Sep 275760 23:59:00 +2359'],
    ['the first instant a Date holds, ISO with -09:00', '-271821-04-19T15:00:00-09:00'],
    ['the first instant, ISO in UTC', '-271821-04-20T00:00:00Z'],
    ['year 0, ISO', '0000-01-01T10:00:00+09:00'],
    ['year 10000', 'Mon, 1 Jan 10000 10:00:00 +0900'],
  ])('%s', async (_case, date) => {
    const raw = rawMail(TARO, undefined, date);
    const ticket = await ticketOf(raw, RECEIVED);
    expect(ticket.mailDate).toBeUndefined();
    expect(ticket.mailDateOffsetMinutes).toBeUndefined();
    expect(attributionOf(ticket)).toBe(`On Tue, 24 Nov 2026 at 12:00 UTC+9, ${WHO} wrote:`);
  });

  // A ticket stored before such dates were refused: a date its offset moves out of range goes off the line.
  it.each<[string, string, number, string]>([
    ['the last instant, +0900', '+275760-09-13T00:00:00.000Z', 540, `${WHO} wrote:`],
    ['the last instant, +1400', '+275760-09-13T00:00:00.000Z', 840, `${WHO} wrote:`],
    ['the first instant, -0900', '-271821-04-20T00:00:00.000Z', -540, `${WHO} wrote:`],
    // No zone's offset: the desk's zone, named, which stays in range.
    ['the last instant, +1439 minutes', '+275760-09-13T00:00:00.000Z', 1439, `On Sat, 13 Sep 275760 at 09:00 UTC+9, ${WHO} wrote:`],
    ['not a date', 'soon', 540, `${WHO} wrote:`],
  ])('a stored ticket: %s', async (_case, mailDate, offset, line) => {
    const stored: Ticket = { ...(await ticketOf(rawMail(TARO), RECEIVED)), mailDate, mailDateOffsetMinutes: offset };
    expect(attributionOf(stored)).toBe(line);
  });

  it.each<[string, string, number | undefined, string | undefined]>([
    ['the last instant, +0900', '+275760-09-13T00:00:00.000Z', 540, 'Asia/Tokyo'],
    ['the first instant, -0900', '-271821-04-20T00:00:00.000Z', -540, 'UTC'],
    ['the last instant in the desk\'s zone +14', '+275760-09-13T00:00:00.000Z', undefined, 'Pacific/Kiritimati'],
    ['the first instant in the desk\'s zone -10', '-271821-04-20T00:00:00.000Z', undefined, 'Pacific/Honolulu'],
  ])('the attribution line of %s never throws, dated or not', (_case, date, dateOffsetMinutes, timeZone) => {
    for (const language of ['en', 'ja', 'ko', 'zh'] as const) {
      const line = attributionLine(WHO, date, { language, timeZone, ...(dateOffsetMinutes !== undefined ? { dateOffsetMinutes } : {}) });
      expect(line).toContain(WHO);
    }
  });
});
