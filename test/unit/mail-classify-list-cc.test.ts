/**
 * A list mail that copies our address: a customer's own team list (To: the list) with support in Cc, a real question
 * among colleagues. Ignored as `list`, no person ever saw it; answered automatically, the reply might go into a list
 * discussion that did not want one. The agent worker parks it for a person instead. What tells it from a newsletter
 * (List-Id, List-Unsubscribe, Precedence: bulk, To: us) is the other recipient that is the list's own address; a
 * foreign list we are subscribed to names the list alone. Our own group (SUPPORT_GROUP_ADDRESSES) keeps its own rules.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  decideReply,
  listCopyReviewReason,
  ownGroupReviewDetail,
  REPLY_SIGNAL_HEADERS,
  replySignalsOf,
  type IgnoreReason,
  type OwnMailboxes,
  type ReplySignals,
} from '../../src/mail/classify.js';
import type { MailAddress } from '../../src/mail/addresses.js';
import { parseInboundMail, type InboundMail } from '../../src/mail/parse.js';
import { inboundMail } from '../support/inbound-mail.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/mail');

/** MAIL_FROM and SUPPORT_ADDRESSES only. */
const ours: OwnMailboxes = { ourAddresses: ['Helpdesk <support@support.example>', 'help@support.example'] };
/** support@ is our Google Group (SUPPORT_GROUP_ADDRESSES), authenticated by our receiving server. */
const ourGroup: OwnMailboxes = {
  ourAddresses: ['Helpdesk <support@support.example>', 'help@support.example', 'support@support.example'],
  groupAddresses: ['support@support.example'],
  authservIds: ['mx.support.example'],
};
/** help@ is ours; team@groups.support.example is our group, and no list copy to it is parked here. */
const groupBeside: OwnMailboxes = {
  ourAddresses: ['help@support.example', 'team@groups.support.example'],
  groupAddresses: ['team@groups.support.example'],
  authservIds: ['mx.support.example'],
};

const PARKED = /^list mail that copies our address: /;

function mailWith(overrides: Partial<InboundMail> = {}): InboundMail {
  const question = 'バックアップの保存期間は何日でしょうか。';
  return inboundMail({ subject: 'バックアップの保存期間', text: question, question, ...overrides });
}

const rcpt = (...addresses: string[]): MailAddress[] => addresses.map((address) => ({ address, name: '' }));
/** A Mailman-style team list at the customer's: its List-Id, List-Post and envelope. */
const teamList = {
  'list-id': ['<it-team.customer.example>'],
  'list-post': ['<mailto:it-team@customer.example>'],
  'list-unsubscribe': ['<mailto:it-team-leave@customer.example>'],
  precedence: ['list'],
};
/** A newsletter: List-Id and List-Unsubscribe on the sender's mail service, Precedence: bulk. */
const newsletter = {
  'list-id': ['<news.vendor.example>'],
  'list-unsubscribe': ['<mailto:unsubscribe-4711@em.vendor.example>, <https://vendor.example/unsubscribe?u=4711>'],
  precedence: ['bulk'],
};

async function parsedFixture(name: string): Promise<InboundMail> {
  return parseInboundMail(readFileSync(path.join(fixtures, name)), { extraHeaders: REPLY_SIGNAL_HEADERS });
}

/** What the agent worker decides on: the ticket's recorded signals, once stored as JSON, with its subject and thread. */
function stored(mail: InboundMail): ReplySignals & Pick<InboundMail, 'subject' | 'inReplyTo' | 'references'> {
  const signals = JSON.parse(JSON.stringify(replySignalsOf(mail))) as ReplySignals;
  return { ...signals, subject: mail.subject, inReplyTo: mail.inReplyTo, references: mail.references };
}

type Outcome = IgnoreReason | 'answer' | 'park';

/** What becomes of the mail before the agent: ignored with a reason, parked as a list copy, or answered. */
function outcomeOf(mail: Parameters<typeof decideReply>[0], mailboxes: OwnMailboxes): Outcome {
  const decision = decideReply(mail, mailboxes);
  if (!decision.answer) return decision.reason;
  return listCopyReviewReason(mail, mailboxes) ? 'park' : 'answer';
}

describe('a list mail that copies our address', () => {
  it.each<[name: string, expected: Outcome, fixture: string, mailboxes: OwnMailboxes]>([
    ["the customer's team list, To: the list, Cc: support", 'park', 'list-cc-customer-team-ja.eml', ours],
    ["the customer's team list, with a group of ours configured beside", 'park', 'list-cc-customer-team-ja.eml', { ...groupBeside, ourAddresses: ['support@support.example', ...groupBeside.ourAddresses] }],
    ["the customer's team list, when the support address it copies is our group", 'list', 'list-cc-customer-team-ja.eml', ourGroup],
    ['a newsletter To: us alone (List-Unsubscribe, Precedence: bulk)', 'list', 'list-newsletter-to-us.eml', ours],
    ['a foreign list we are subscribed to, To: the list alone', 'list', 'list-foreign-to-list-only.eml', ours],
    ['a copy through our own Google Group, configured and authenticated', 'answer', 'list-google-group-copy.eml', ourGroup],
    ['a copy through our own Google Group, not configured as one', 'answer', 'list-google-group-copy.eml', ours],
  ])('%s → %s (%s), parsed and from the stored signals', async (_name, expected, fixture, mailboxes) => {
    const mail = await parsedFixture(fixture);
    expect(outcomeOf(mail, mailboxes)).toBe(expected);
    expect(outcomeOf(stored(mail), mailboxes)).toBe(expected);
  });

  it('names the list, the address it went to and ours, and says a person decides', async () => {
    const mail = await parsedFixture('list-cc-customer-team-ja.eml');
    expect(decideReply(mail, ours)).toEqual({ answer: true });
    expect(listCopyReviewReason(mail, ours)).toBe(
      'list mail that copies our address: a member of list <it-team.customer.example> wrote to it-team@customer.example and asked support@support.example directly; a person decides whether and whom to answer',
    );
    expect(listCopyReviewReason(stored(mail), ours)).toBe(listCopyReviewReason(mail, ours));
  });

  it("leaves our own group's rules as they were: answered when authenticated, its draft parked for them when not", async () => {
    const mail = await parsedFixture('list-google-group-copy.eml');
    expect(ownGroupReviewDetail(mail, ourGroup)).toBeUndefined();
    expect(ownGroupReviewDetail(mail, ours)).toMatch(/^the list headers name our address support@support\.example; support@support\.example is not in SUPPORT_GROUP_ADDRESSES/);
    expect(listCopyReviewReason(mail, ourGroup)).toBeUndefined();
    expect(listCopyReviewReason(mail, ours)).toBeUndefined();
  });

  it.each<[name: string, expected: Outcome, overrides: Partial<InboundMail>, mailboxes: OwnMailboxes]>([
    // The list's own address beside ours, however the headers name it.
    ['To: the list (List-Post), Cc: us', 'park', { headers: teamList, to: rcpt('it-team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['To: us, Cc: the list', 'park', { headers: teamList, to: rcpt('support@support.example'), cc: rcpt('It-Team@Customer.example') }, ours],
    ['To: the list and us', 'park', { headers: teamList, to: rcpt('it-team@customer.example', 'support@support.example') }, ours],
    ['the list named by its List-Id alone', 'park', { headers: { 'list-id': ['IT <it-team.customer.example>'] }, to: rcpt('it-team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['an address on the list’s domain (its List-Unsubscribe mailto)', 'park', { headers: { 'list-unsubscribe': ['<mailto:leave-it@customer.example>'] }, to: rcpt('team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['an address on the List-Id’s domain', 'park', { headers: { 'list-id': ['<it-team.customer.example>'] }, to: rcpt('team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['Mailing-List: list … (ezmlm)', 'park', { headers: { 'mailing-list': ['list it-team@customer.example; contact it-team-help@customer.example'] }, to: rcpt('it-team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['X-Mailing-List (SmartList)', 'park', { headers: { 'x-mailing-list': ['<it-team@customer.example> archive/latest/12'] }, to: rcpt('it-team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['an old-style list: Sender the list’s owner, no List-* field', 'park', { headers: { sender: ['owner-it-team@customer.example'] }, to: rcpt('it-team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['an old-style list: Sender is the list, also a Cc address, To: us', 'park', { headers: { sender: ['users@lists.example'] }, cc: rcpt('Users@Lists.example') }, ours],
    ['an old-style list: Sender is the list, also the To address (LISTSERV)', 'park', { headers: { sender: ['IT-TEAM@LISTS.CUSTOMER.example'] }, to: rcpt('IT-TEAM@LISTS.CUSTOMER.example'), cc: rcpt('support@support.example') }, ours],
    ['our other address (SUPPORT_ADDRESSES) with a +tag in Cc', 'park', { headers: teamList, to: rcpt('it-team@customer.example'), cc: rcpt('Help+jp@Support.example') }, ours],
    ['Precedence: bulk, but the list’s own address beside ours', 'park', { headers: { ...teamList, precedence: ['bulk'] }, to: rcpt('it-team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['our address beside the list, our group beside both', 'park', { headers: teamList, to: rcpt('it-team@customer.example'), cc: rcpt('help@support.example', 'team@groups.support.example') }, groupBeside],
    // Newsletters and bulk mail to us, and lists that do not name us: ignored as before.
    ['a newsletter To: us alone', 'list', { headers: newsletter }, ours],
    ['a newsletter To: us and a colleague of ours', 'list', { headers: newsletter, cc: rcpt('sales@support.example') }, ours],
    ['a newsletter To: us, Cc: someone on another domain', 'list', { headers: newsletter, cc: rcpt('taro@customer.example') }, ours],
    ['Precedence: bulk alone, To: us and someone else', 'list', { headers: { precedence: ['bulk'] }, cc: rcpt('taro@customer.example') }, ours],
    ['a foreign list, To: the list alone', 'list', { headers: teamList, to: rcpt('it-team@customer.example') }, ours],
    ['a foreign list, To: the list, Cc: someone else', 'list', { headers: teamList, to: rcpt('it-team@customer.example'), cc: rcpt('hanako@member.example') }, ours],
    ['a list on a free-mail domain and a recipient there who is no list', 'list', { headers: { 'list-unsubscribe': ['<mailto:myteam+unsubscribe@gmail.com>'] }, to: rcpt('support@support.example'), cc: rcpt('friend@gmail.com') }, ours],
    ['only our group (SUPPORT_GROUP_ADDRESSES) beside a foreign list', 'list', { headers: teamList, to: rcpt('it-team@customer.example'), cc: rcpt('team@groups.support.example') }, groupBeside],
    // What decides before the list still does.
    ['a list copy flagged as spam', 'spam', { headers: { ...teamList, 'x-spam-flag': ['YES'] }, to: rcpt('it-team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['a list copy that is an automatic reply', 'auto-reply', { headers: { ...teamList, 'auto-submitted': ['auto-replied'] }, to: rcpt('it-team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['a list copy that is a bounce', 'bounce', { headers: { ...teamList, 'return-path': ['<>'] }, subject: 'Undelivered Mail Returned to Sender', to: rcpt('it-team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['a list copy from a no-reply sender', 'no-reply-sender', { ...{ from: { address: 'noreply@customer.example', name: '' } }, headers: teamList, to: rcpt('it-team@customer.example'), cc: rcpt('support@support.example') }, ours],
    ['a list copy that only thanks, in a reply', 'acknowledgement', { headers: teamList, to: rcpt('it-team@customer.example'), cc: rcpt('support@support.example'), inReplyTo: '<a@support.example>', question: 'ありがとうございました。', text: 'ありがとうございました。' }, ours],
  ])('%s → %s', (_name, expected, overrides, mailboxes) => {
    const mail = mailWith(overrides);
    expect(outcomeOf(mail, mailboxes)).toBe(expected);
    expect(outcomeOf(stored(mail), mailboxes)).toBe(expected);
    if (expected === 'park') expect(listCopyReviewReason(mail, mailboxes)).toMatch(PARKED);
  });

  it('records nothing more for list mail that names no recipient beside the list, or no list', () => {
    const toUs = mailWith({ headers: newsletter });
    expect(replySignalsOf(toUs)).toEqual({ from: toUs.from, replyTo: undefined, headers: toUs.headers, contentType: 'text/plain' });
    const plain = mailWith({ cc: rcpt('it-team@customer.example') });
    expect(replySignalsOf(plain)).toEqual({ from: plain.from, replyTo: undefined, headers: {}, contentType: 'text/plain' });
  });
});
