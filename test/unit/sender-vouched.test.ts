/**
 * Whether the receiving server's Authentication-Results say the From domain is authentic (senderVouchedFor): DMARC
 * passed, or DKIM or SPF passed for a domain aligned with From. Only the receiving server's own field counts: the
 * topmost, and with AUTHSERV_ID one written by it. A pass the sender could have written vouches for nothing.
 */
import { describe, expect, it } from 'vitest';
import { replySignalsOf, senderVouchedFor } from '../../src/mail/classify.js';

const FROM = 'taro@shop.example';
const OURS = 'mx.helpdesk.test';

/** The mail as the reply decision reads it: a From and its Authentication-Results fields, topmost first. */
function mail(fields: readonly string[], from = FROM) {
  const headers: Record<string, string[]> = fields.length > 0 ? { 'authentication-results': [...fields] } : {};
  return { from: { address: from, name: 'Taro' }, replyTo: undefined, contentType: 'text/plain', headers };
}

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
    ['no Authentication-Results', [], [], false],
    ['AUTHSERV_ID matching the topmost field', [`${OURS}; dmarc=pass header.from=shop.example`], [OURS], true],
    ['AUTHSERV_ID matching in another case', [`MX.Helpdesk.Test 1; dmarc=pass header.from=shop.example`], [OURS], true],
    ['AUTHSERV_ID not matching the only field (the sender wrote it)', ['mx.evil.example; dmarc=pass header.from=shop.example'], [OURS], false],
    ['AUTHSERV_ID set, a field without an authserv-id (Exchange Online)', ['spf=pass smtp.mailfrom=shop.example; dmarc=pass header.from=shop.example'], [OURS], false],
    ['a forged pass below the server\'s own field', [`${OURS}; spf=softfail smtp.mailfrom=shop.example; dmarc=none`, 'mx.evil.example; dmarc=pass header.from=shop.example'], [], false],
    ['a forged pass below the server\'s own field, AUTHSERV_ID set', [`${OURS}; spf=none; dmarc=none`, `${OURS}; dmarc=pass header.from=shop.example`], [OURS], false],
  ])('%s', (_case, fields, authservIds, vouched, from) => {
    expect(senderVouchedFor(mail(fields, from), authservIds)).toBe(vouched);
  });

  it('is false for a mail without a From', () => {
    expect(senderVouchedFor({ ...mail([`${OURS}; dmarc=pass`]), from: undefined }, [])).toBe(false);
  });

  // The agent worker decides from the signals the poller recorded, not from the mail: they must carry the verdict.
  it('decides the same from the reply signals recorded at ingest', () => {
    const received = mail([`${OURS}; spf=softfail smtp.mailfrom=shop.example; dmarc=none`, 'mx.evil.example; dmarc=pass header.from=shop.example']);
    const signals = replySignalsOf({ ...received, deliveryStatusPart: undefined, senderIsRecipient: undefined, massMailing: undefined })!;
    expect(senderVouchedFor(signals, [])).toBe(false);
    const passed = replySignalsOf({ ...mail([`${OURS}; dkim=pass header.d=shop.example`]), deliveryStatusPart: undefined, senderIsRecipient: undefined, massMailing: undefined })!;
    expect(senderVouchedFor(passed, [OURS])).toBe(true);
  });
});
