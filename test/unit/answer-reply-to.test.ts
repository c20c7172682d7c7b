/** foreignReplyToReason: which Reply-To addresses an automatic reply may go to, and which need a person. */
import { describe, expect, it } from 'vitest';
import { foreignReplyToReason } from '../../jobs/answer-ticket.js';

const TRUSTED = ['partner.example'];

describe('foreignReplyToReason', () => {
  it.each([
    ['no Reply-To of its own', 'taro@customer.example', 'taro@customer.example'],
    ['another mailbox of the sender domain', 'taro@customer.example', 'desk@customer.example'],
    ['a trusted domain', 'form@web.example', 'taro@partner.example'],
    ['a subdomain of a trusted domain', 'form@web.example', 'taro@mail.partner.example'],
  ])('lets the reply go to %s', (_name, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toBeUndefined();
  });

  it.each([
    ['another domain', 'taro@customer.example', 'victim@elsewhere.example'],
    // Only a whole label matches: a domain that merely ends in the trusted name belongs to someone else.
    ['a domain ending in a trusted name', 'form@web.example', 'victim@evilpartner.example'],
    ['the trusted name under another domain', 'form@web.example', 'victim@partner.example.attacker.example'],
  ])('parks a reply to %s', (_name, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toMatch(/^Reply-To domain .* differs/);
  });
});

// A reply domain under the sender's own (reply.mysurvey.example) or the other way round is one sender, not a relay.
describe('foreignReplyToReason: subdomains and no-reply senders', () => {
  it.each([
    ['Reply-To on a subdomain of From', 'carol@mysurvey.example', 'carol@reply.mysurvey.example'],
    ['From on a subdomain of Reply-To', 'news@mail.shop.example', 'desk@shop.example'],
    ['IDN domains, one under the other', 'info@bücher.example', 'desk@support.xn--bcher-kva.example'],
  ])('lets the reply go: %s', (_name, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toBeUndefined();
  });

  it.each([
    // Only whole labels: "evilshop.example" is no subdomain of "shop.example".
    ['a domain that merely ends like From', 'desk@shop.example', 'victim@evilshop.example', /^Reply-To domain evilshop\.example differs/],
    ['From on a sibling subdomain', 'a@eu.shop.example', 'b@us.shop.example', /^Reply-To domain us\.shop\.example differs/],
  ])('parks %s', (_name, from, replyTo, reason) => {
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toMatch(reason);
  });

  it.each([
    ['another domain', 'gmail-noreply@google.example', 'x.y@gmail.example'],
    ['the same domain', 'noreply@shop.example', 'sales.rep@shop.example'],
    ['a subdomain', 'no-reply@notify.shop.example', 'taro@shop.example'],
  ])('parks a no-reply From that names another Reply-To (%s), saying so', (_name, from, replyTo) => {
    const reason = foreignReplyToReason({ from, replyTo }, TRUSTED);
    expect(reason).toBe(`From ${from} is a no-reply address and Reply-To names another, ${replyTo}: a system notification on someone else's behalf`);
  });

  it('lets a no-reply From through when its Reply-To is on a trusted domain, or is the From itself', () => {
    expect(foreignReplyToReason({ from: 'noreply@forms.example', replyTo: 'desk@partner.example' }, TRUSTED)).toBeUndefined();
    expect(foreignReplyToReason({ from: 'noreply@forms.example', replyTo: 'noreply@forms.example' }, TRUSTED)).toBeUndefined();
  });
});
