/**
 * Whether the receiving server's Authentication-Results say the From domain is authentic (senderVouchedFor): DMARC
 * passed, or DKIM or SPF passed for a domain aligned with From. Only the receiving server's own field counts: the
 * topmost, and with AUTHSERV_ID one written by it. A pass the sender could have written vouches for nothing.
 */
import { describe, expect, it } from 'vitest';
import { replySignalsOf, senderVouchedFor, type OwnMailboxes } from '../../src/mail/classify.js';

const FROM = 'taro@shop.example';
const OURS = 'mx.helpdesk.test';

/** The mail as the reply decision reads it: a From and its Authentication-Results fields, topmost first. */
function mail(fields: readonly string[], from = FROM, more: Record<string, string[]> = {}) {
  const headers: Record<string, string[]> = { ...more, ...(fields.length > 0 ? { 'authentication-results': [...fields] } : {}) };
  return { from: { address: from, name: 'Taro' }, replyTo: undefined, contentType: 'text/plain', headers };
}

/** Our mailboxes with AUTHSERV_ID `authservIds` and no group. */
const mailboxes = (authservIds: readonly string[]): OwnMailboxes => ({ ourAddresses: ['support@helpdesk.test'], authservIds });

describe('senderVouchedFor', () => {
  it.each<[string, readonly string[], readonly string[], boolean, string?]>([
    ['dmarc=pass', [`${OURS}; spf=softfail smtp.mailfrom=other.example; dkim=none; dmarc=pass header.from=shop.example`], [], true],
    ['dmarc=pass without header.from', [`${OURS}; dmarc=pass`], [], true],
    ['dmarc=pass for another From domain', [`${OURS}; dmarc=pass header.from=bank.example`], [], false],
    ['dkim=pass by the From domain', [`${OURS}; dkim=pass header.d=shop.example; dmarc=none`], [], true],
    ['dkim=pass by a subdomain of the From domain', [`${OURS}; dkim=pass header.d=mail.shop.example`], [], true],
    ['dkim=pass by the parent of a From subdomain', [`${OURS}; dkim=pass header.i=@shop.example`], [], true, 'taro@support.shop.example'],
    ['dkim=pass by a third party (a mail service signing for itself)', [`${OURS}; dkim=pass header.d=esp-mailer.example; spf=none; dmarc=none`], [], false],
    ['dkim=pass by a look-alike domain', [`${OURS}; dkim=pass header.d=evilshop.example`], [], false],
    ['a failed signature of the From domain beside a third party\'s pass', [`${OURS}; dkim=fail header.d=shop.example; dkim=pass header.d=esp-mailer.example`], [], false],
    ['spf=pass for an aligned envelope sender', [`${OURS}; spf=pass smtp.mailfrom=bounces@shop.example; dmarc=none`], [], true],
    ['spf=pass for an aligned envelope domain', [`${OURS}; spf=pass smtp.mailfrom=bounce.shop.example`], [], true],
    ['spf=pass for an unaligned envelope sender', [`${OURS}; spf=pass smtp.mailfrom=attacker.example; dmarc=none header.from=shop.example`], [], false],
    ['spf=softfail, dmarc=none', [`${OURS}; spf=softfail smtp.mailfrom=shop.example; dkim=none; dmarc=none header.from=shop.example`], [], false],
    ['spf=neutral', [`${OURS}; spf=neutral smtp.mailfrom=shop.example`], [], false],
    ['everything none', [`${OURS}; spf=none; dkim=none; dmarc=none`], [], false],
    ['a pass only in a comment', [`${OURS}; spf=none (earlier hop said dmarc=pass) smtp.mailfrom=shop.example`], [], false],
    // A reason="…" may hold any text, semicolons included: a sender-chosen value is no result of its own.
    ['a pass only inside a quoted reason', [`${OURS}; spf=none reason="x; dmarc=pass"; dmarc=none header.from=shop.example`], [], false],
    ['a quoted reason with an escaped quote before a pass', [`${OURS}; spf=none reason="a \\"b\\"; dmarc=pass"; dmarc=none`], [], false],
    ['a real pass after a quoted reason', [`${OURS}; spf=none reason="no; record"; dmarc=pass header.from=shop.example`], [], true],
    ['no Authentication-Results', [], [], false],
    ['AUTHSERV_ID matching the topmost field', [`${OURS}; dmarc=pass header.from=shop.example`], [OURS], true],
    ['AUTHSERV_ID matching in another case', [`MX.Helpdesk.Test 1; dmarc=pass header.from=shop.example`], [OURS], true],
    ['AUTHSERV_ID not matching the only field (the sender wrote it)', ['mx.evil.example; dmarc=pass header.from=shop.example'], [OURS], false],
    ['AUTHSERV_ID set, a field without an authserv-id (Exchange Online)', ['spf=pass smtp.mailfrom=shop.example; dmarc=pass header.from=shop.example'], [OURS], false],
    ['a forged pass below the server\'s own field', [`${OURS}; spf=softfail smtp.mailfrom=shop.example; dmarc=none`, 'mx.evil.example; dmarc=pass header.from=shop.example'], [], false],
    ['a forged pass below the server\'s own field, AUTHSERV_ID set', [`${OURS}; spf=none; dmarc=none`, `${OURS}; dmarc=pass header.from=shop.example`], [OURS], false],
    // The envelope sender, chosen by the sender and echoed unescaped by our server into its own field, writes a
    // dmarc=pass of its own and swallows the real dmarc=fail with an unclosed quote (security review 10).
    ['an envelope sender that writes a dmarc=pass into our field', [`${OURS}; dkim=none; spf=softfail (${OURS}: domain of transitioning "a);dmarc=pass header.from=shop.example;x"@evil.example does not designate 203.0.113.5 as permitted sender) smtp.mailfrom="a);dmarc=pass header.from=shop.example;x"@evil.example; dmarc=fail (p=REJECT sp=REJECT dis=REJECT) header.from=shop.example`], [OURS], false],
    ['a balanced envelope sender that writes a dkim=pass between two comments', [`${OURS}; dkim=none; spf=pass (${OURS}: domain of "a);dkim=pass header.d=shop.example;(b"@evil.example designates 203.0.113.5 as permitted sender) smtp.mailfrom="a);dkim=pass header.d=shop.example;(b"@evil.example; dmarc=none header.from=shop.example`], [OURS], false],
    ['spf=pass for a quoted local part that reads like the From domain', [`${OURS}; spf=pass smtp.mailfrom="shop.example x"@evil.example; dmarc=none header.from=shop.example`], [OURS], false],
    ['spf=pass for a quoted local part on the From domain', [`${OURS}; spf=pass smtp.mailfrom="taro"@shop.example; dmarc=none header.from=shop.example`], [OURS], false],
    ['two dmarc results, one a pass', [`${OURS}; dmarc=pass header.from=shop.example; dmarc=fail header.from=shop.example`], [OURS], false],
  ])('%s', (_case, fields, authservIds, vouched, from) => {
    expect(senderVouchedFor(mail(fields, from), mailboxes(authservIds))).toBe(vouched);
  });

  it('is false for a mail without a From', () => {
    expect(senderVouchedFor({ ...mail([`${OURS}; dmarc=pass`]), from: undefined }, mailboxes([]))).toBe(false);
  });

  // The agent worker decides from the signals the poller recorded, not from the mail: they must carry the verdict.
  it('decides the same from the reply signals recorded at ingest', () => {
    const received = mail([`${OURS}; spf=softfail smtp.mailfrom=shop.example; dmarc=none`, 'mx.evil.example; dmarc=pass header.from=shop.example']);
    const signals = replySignalsOf({ ...received, deliveryStatusPart: undefined, senderIsRecipient: undefined, massMailing: undefined })!;
    expect(senderVouchedFor(signals, mailboxes([]))).toBe(false);
    const passed = replySignalsOf({ ...mail([`${OURS}; dkim=pass header.d=shop.example`]), deliveryStatusPart: undefined, senderIsRecipient: undefined, massMailing: undefined })!;
    expect(senderVouchedFor(passed, mailboxes([OURS]))).toBe(true);
  });

  // Our own group (a Google Group as the support address) relays a customer whose domain only monitors DMARC
  // (p=none): the group's footer breaks the customer's signature, so our server says dmarc=fail, and the ARC seal it
  // verified says DMARC passed when the mail reached the group. forgedSenderDetail accepts that for the group's mail
  // alone; what it accepts vouches for the sender too, and on nothing else (any list can seal a chain).
  describe('an ARC-sealed DMARC pass', () => {
    const group: OwnMailboxes = { ourAddresses: ['support@helpdesk.test'], groupAddresses: ['help@helpdesk.test'], authservIds: [OURS] };
    const listHeaders = { 'list-id': ['<help.helpdesk.test>'], 'list-post': ['<mailto:help@helpdesk.test>'] };
    const sealed = (fromdomain: string, arc = 'pass') =>
      `${OURS}; dkim=pass header.i=@helpdesk.test header.s=google; arc=${arc} (i=1 spf=pass spfdomain=shop.example dkim=pass dkdomain=shop.example dmarc=pass fromdomain=${fromdomain}); spf=pass smtp.mailfrom=help+bnc1@helpdesk.test; dmarc=fail (p=NONE sp=NONE dis=NONE arc=pass) header.from=shop.example`;
    it.each<[string, Record<string, string[]>, string, OwnMailboxes, boolean]>([
      ['relayed by our group: vouched', listHeaders, sealed('shop.example'), group, true],
      ['the same mail with no group configured', listHeaders, sealed('shop.example'), { ...group, groupAddresses: [] }, false],
      ['without AUTHSERV_ID', listHeaders, sealed('shop.example'), { ...group, authservIds: [] }, false],
      ['a mail naming no list of ours', {}, sealed('shop.example'), group, false],
      ['the seal names another From domain', listHeaders, sealed('attacker.example'), group, false],
      ['the seal failed', listHeaders, sealed('shop.example', 'fail'), group, false],
    ])('%s', (_case, more, field, boxes, vouched) => {
      expect(senderVouchedFor(mail([field], FROM, more), boxes)).toBe(vouched);
    });
  });
});
