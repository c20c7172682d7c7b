/** foreignReplyToReason: which Reply-To addresses an automatic reply may go to, and which need a person. */
import { describe, expect, it } from 'vitest';
import { foreignReplyToReason } from '../../jobs/answer-ticket.js';

const TRUSTED = ['partner.example'];
const WEB_FORM_NOTE = "a web form's Reply-To is typed by the visitor: check the address before approving";

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
    expect(reason).toBe(`From ${from} is a no-reply address and Reply-To names another, ${replyTo}: a system notification on someone else's behalf, or a web form's mail (${WEB_FORM_NOTE})`);
  });

  // Legit-4 samples 056-060: a web form's mail is held by design, whatever TRUSTED_REPLY_TO_DOMAINS lists (it matches
  // the Reply-To's domain, each visitor's own); the reason tells the reviewer what to check.
  it.each([
    ['our own contact form (056)', 'no-reply@helpdesk.example.jp', 'k.sato@sato-shoten.co.jp'],
    ['a form service (059)', 'noreply@form.run.example', 'taro@customer.example'],
    ['WordPress on our site domain (058)', 'wordpress@www.example.jp', 'fukuda@fukuda-ya.jp'],
  ])('parks %s naming the visitor-typed Reply-To', (_name, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toContain(WEB_FORM_NOTE);
  });

  it('lets a no-reply From through when its Reply-To is on a trusted domain, or is the From itself', () => {
    expect(foreignReplyToReason({ from: 'noreply@forms.example', replyTo: 'desk@partner.example' }, TRUSTED)).toBeUndefined();
    expect(foreignReplyToReason({ from: 'noreply@forms.example', replyTo: 'noreply@forms.example' }, TRUSTED)).toBeUndefined();
  });
});

// A domain under a public suffix belongs to whoever registered it: From notice@co.jp (which nobody can authenticate,
// so no check says fail) with Reply-To keiri@bigcorp.co.jp would aim our reply at bigcorp (security review 4, #1).
describe('foreignReplyToReason: one organisation, not one public suffix', () => {
  it.each([
    ['From on co.jp, Reply-To a company under it', 'notice@co.jp', 'keiri@bigcorp.co.jp', 'co.jp'],
    ['From on com.au, Reply-To a company under it', 'notice@com.au', 'accounts@bigbank.com.au', 'com.au'],
    ['From on the bare TLD jp', 'notice@jp', 'keiri@bigcorp.co.jp', 'jp'],
    ['From on a bare generic TLD', 'notice@com', 'billing@bigcorp.com', 'com'],
    ['From on ne.jp, Reply-To an ISP customer under it', 'info@ne.jp', 'taro@mail.example.ne.jp', 'ne.jp'],
    ['Reply-To on the public suffix above From', 'keiri@bigcorp.co.jp', 'notice@co.jp', 'co.jp'],
  ])('parks %s', (_name, from, replyTo, suffix) => {
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toBe(
      `Reply-To domain ${replyTo.split('@')[1]} differs from the sender's domain ${from.split('@')[1]}: ${suffix} is a public suffix, under which anyone registers a domain (not in TRUSTED_REPLY_TO_DOMAINS)`,
    );
  });

  it.each([
    ['Reply-To on a subdomain of From', 'carol@mysurvey.example', 'carol@reply.mysurvey.example'],
    ['From on a subdomain of Reply-To', 'carol@reply.mysurvey.example', 'desk@mysurvey.example'],
    ['From on a subdomain of a co.jp company', 'news@mail.shop.co.jp', 'desk@shop.co.jp'],
    ['Reply-To on a subdomain of a co.jp company', 'desk@shop.co.jp', 'desk@support.shop.co.jp'],
    ['From on a subdomain of a com.au company', 'news@mail.shop.com.au', 'desk@shop.com.au'],
  ])('lets the reply go: %s', (_name, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toBeUndefined();
  });

  it('lets a Reply-To on a trusted domain through whatever the From', () => {
    expect(foreignReplyToReason({ from: 'notice@co.jp', replyTo: 'desk@partner.co.jp' }, ['partner.co.jp'])).toBeUndefined();
    expect(foreignReplyToReason({ from: 'notice@jp', replyTo: 'desk@mail.partner.co.jp' }, ['partner.co.jp'])).toBeUndefined();
  });
});

// On a shared mail provider anyone can open a mailbox: From mallory@gmail.com with Reply-To victim@gmail.com is two
// strangers, and our reply would carry whatever mallory wrote to the victim from our address.
describe('foreignReplyToReason: shared mail providers', () => {
  it.each([
    ['gmail.com', 'mallory@gmail.com', 'victim.hanako@gmail.com'],
    ['outlook.com', 'mallory@outlook.com', 'victim@outlook.com'],
    ['icloud.com', 'mallory@icloud.com', 'victim@icloud.com'],
    ['me.com', 'mallory@me.com', 'victim@me.com'],
    ['yahoo.co.jp', 'mallory@yahoo.co.jp', 'victim@yahoo.co.jp'],
    ['ymail.ne.jp', 'mallory@ymail.ne.jp', 'victim@ymail.ne.jp'],
    ['outlook.jp', 'mallory@outlook.jp', 'victim@outlook.jp'],
    ['hotmail.co.jp', 'mallory@hotmail.co.jp', 'victim@hotmail.co.jp'],
    ['docomo.ne.jp', 'mallory@docomo.ne.jp', 'victim@docomo.ne.jp'],
    ['ezweb.ne.jp', 'mallory@ezweb.ne.jp', 'victim@ezweb.ne.jp'],
    ['au.com', 'mallory@au.com', 'victim@au.com'],
    ['softbank.ne.jp', 'mallory@softbank.ne.jp', 'victim@softbank.ne.jp'],
    ['i.softbank.jp', 'mallory@i.softbank.jp', 'victim@i.softbank.jp'],
    ['nifty.com', 'mallory@nifty.com', 'victim@nifty.com'],
    ['ocn.ne.jp', 'mallory@ocn.ne.jp', 'victim@ocn.ne.jp'],
    // An ISP's regional subdomain (So-net's ca2.so-net.ne.jp) is that ISP's shared domain too.
    ['ca2.so-net.ne.jp', 'mallory@ca2.so-net.ne.jp', 'victim@ca2.so-net.ne.jp'],
    ['GMAIL.COM written in capitals', 'Mallory@GMAIL.COM', 'victim@gmail.com'],
  ])('parks a Reply-To of another mailbox on %s', (_name, from, replyTo) => {
    const domain = replyTo.slice(replyTo.indexOf('@') + 1);
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toBe(
      `Reply-To ${replyTo} is another mailbox than From ${from} on ${domain}, a shared mail provider: the same domain says nothing about who owns it (not in TRUSTED_REPLY_TO_DOMAINS)`,
    );
  });

  it.each([
    ['From on a subdomain of a shared domain', 'mallory@email.plala.or.jp', 'victim@plala.or.jp'],
    ['Reply-To on a subdomain of a shared domain', 'mallory@vodafone.ne.jp', 'victim@d.vodafone.ne.jp'],
  ])('parks %s', (_name, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toMatch(/^Reply-To .* is another mailbox than From .*, a shared mail provider: /);
  });

  it.each([
    ['the From itself, spelt in other case', 'Mallory@Gmail.com', 'mallory@gmail.com'],
    ['the From with a +tag', 'mallory@gmail.com', 'mallory+support@gmail.com'],
    // Gmail ignores the dots of a consumer address: one mailbox (a customer's phone and laptop spell it apart).
    ['the From without its dots', 'alice.smith@gmail.com', 'alicesmith@gmail.com'],
    ['the From on googlemail.com', 'alice.smith@gmail.com', 'alice.smith@googlemail.com'],
  ])('lets the reply go to %s', (_name, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toBeUndefined();
  });

  it('lets a shared domain the admin trusts (TRUSTED_REPLY_TO_DOMAINS) through', () => {
    expect(foreignReplyToReason({ from: 'a@docomo.ne.jp', replyTo: 'b@docomo.ne.jp' }, ['docomo.ne.jp'])).toBeUndefined();
    expect(foreignReplyToReason({ from: 'form@web.example', replyTo: 'b@gmail.com' }, ['gmail.com'])).toBeUndefined();
  });

  it('a no-reply From on a shared domain keeps its own reason', () => {
    expect(foreignReplyToReason({ from: 'noreply@gmail.com', replyTo: 'victim@gmail.com' }, TRUSTED)).toMatch(/^From noreply@gmail\.com is a no-reply address/);
  });
});

// The rule as a whole, one row per kind of sender: what goes out on its own and what waits for a person.
describe('foreignReplyToReason: the rule in one table', () => {
  it.each([
    ['free mail, same domain', 'mallory@gmail.com', 'victim@gmail.com', [], /a shared mail provider/],
    ['corporate, same domain', 'taro@customer.example', 'desk@customer.example', [], undefined],
    ['corporate, a subdomain', 'taro@customer.example', 'desk@support.customer.example', [], undefined],
    ['another domain', 'taro@customer.example', 'victim@elsewhere.example', [], /^Reply-To domain elsewhere\.example differs/],
    ['another domain the admin trusts', 'form@web.example', 'desk@partner.example', ['partner.example'], undefined],
    ['free mail the admin trusts', 'mallory@gmail.com', 'victim@gmail.com', ['gmail.com'], undefined],
    ['no-reply From, same domain', 'noreply@shop.example', 'sales@shop.example', [], /is a no-reply address/],
  ] as const)('%s', (_name, from, replyTo, trusted, expected) => {
    const reason = foreignReplyToReason({ from, replyTo }, trusted);
    if (expected) expect(reason).toMatch(expected);
    else expect(reason).toBeUndefined();
  });
});
