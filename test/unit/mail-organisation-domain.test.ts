/**
 * organisationDomain: the domain one organisation registered, by the Public Suffix List (its private section
 * included, where hosting services hand each customer a name), as DMARC alignment, the Reply-To relay check and the
 * raw-mail budget per domain need it.
 */
import { describe, expect, it } from 'vitest';
import { foreignReplyToReason } from '../../jobs/answer-ticket.js';
import { organisationDomain } from '../../src/mail/classify.js';

describe('organisationDomain', () => {
  it.each([
    // Country second levels and plain TLDs.
    ['a host under co.jp', 'mail.shop.co.jp', 'shop.co.jp'],
    ['a host under com.au', 'mail.shop.com.au', 'shop.com.au'],
    ['a host under ac.uk', 'www.uni.ac.uk', 'uni.ac.uk'],
    ['a host under .com', 'bounce.esp.com', 'esp.com'],
    ['a deep host under .com', 'a.b.c.example.com', 'example.com'],
    ['a domain under .com', 'example.com', 'example.com'],
    // Japan's geographic names: a city's or a school's own domain under its prefecture.
    ['a city under tokyo.jp', 'city.tokyo.jp', 'city.tokyo.jp'],
    ['a host of a city under tokyo.jp', 'www.city.tokyo.jp', 'city.tokyo.jp'],
    ['a school under tokyo.jp', 'school-a.tokyo.jp', 'school-a.tokyo.jp'],
    ['a host under a city-level suffix', 'mail.city.chiyoda.tokyo.jp', 'city.chiyoda.tokyo.jp'],
    ['a host under ed.jp', 'mail.school.ed.jp', 'school.ed.jp'],
    // Hosting services' tenants: one customer each.
    ['a github.io site', 'alice.github.io', 'alice.github.io'],
    ['a host of a github.io site', 'www.alice.github.io', 'alice.github.io'],
    ['a Microsoft 365 tenant', 'contoso.onmicrosoft.com', 'contoso.onmicrosoft.com'],
    // One tenant, two names: contoso.mail.onmicrosoft.com routes contoso.onmicrosoft.com's mail (review 6, F2).
    ['a Microsoft 365 tenant’s routing domain', 'contoso.mail.onmicrosoft.com', 'contoso.onmicrosoft.com'],
    // Reserved and unknown TLDs, as test mail and the README use them: the last two labels, as before.
    ['a host under .example', 'mail.shop.example', 'shop.example'],
    ['a domain under .example', 'customer.example', 'customer.example'],
    ['a host under .test', 'mx.shop.test', 'shop.test'],
    ['a host under .invalid', 'a.b.invalid', 'b.invalid'],
    // Spelling: case, the root dot, and IDN in domainOf's ASCII form, whichever form it comes in.
    ['upper case', 'MAIL.Shop.CO.JP', 'shop.co.jp'],
    ['a trailing root dot', 'mail.shop.example.', 'shop.example'],
    ['an IDN in Unicode', 'mail.bücher.de', 'xn--bcher-kva.de'],
    ['an IDN in punycode', 'mail.xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['a name under an IDN suffix', 'www.shop.公司.cn', 'shop.xn--55qx5d.cn'],
  ])('finds the organisation of %s', (_name, domain, expected) => {
    expect(organisationDomain(domain)).toBe(expected);
  });

  // Names that are no organisation's: a public suffix names itself (so it differs from every company under it, as
  // foreignReplyToReason's publicSuffixAbove needs), an address literal its own host.
  it.each([
    ['a bare TLD', 'jp', 'jp'],
    ['a country second level', 'co.jp', 'co.jp'],
    ['a prefecture', 'tokyo.jp', 'tokyo.jp'],
    ['a private suffix', 'github.io', 'github.io'],
    ['the Microsoft 365 suffix', 'onmicrosoft.com', 'onmicrosoft.com'],
    ['a public suffix in upper case', 'CO.JP', 'co.jp'],
    ['a reserved TLD alone', 'example', 'example'],
    ['an IPv4 address literal', '[192.0.2.1]', '[192.0.2.1]'],
    ['a bare IPv4 address', '192.0.2.1', '192.0.2.1'],
    ['an IPv6 address literal', '[IPv6:2001:db8::1]', '[ipv6:2001:db8::1]'],
    ['nothing', '', ''],
  ])('names %s by itself', (_name, domain, expected) => {
    expect(organisationDomain(domain)).toBe(expected);
  });

  it.each([
    ['two github.io sites', 'alice.github.io', 'bob.github.io'],
    ['two Microsoft 365 tenants', 'contoso.onmicrosoft.com', 'fabrikam.onmicrosoft.com'],
    ['two schools under tokyo.jp', 'school-a.tokyo.jp', 'school-b.tokyo.jp'],
    ['two companies under co.jp', 'shop.co.jp', 'bigcorp.co.jp'],
    ['two hosts whose addresses end alike', '[192.0.2.1]', '[198.51.2.1]'],
  ])('keeps %s apart', (_name, a, b) => {
    expect(organisationDomain(a)).not.toBe(organisationDomain(b));
  });
});

// The Reply-To relay check compares organisation domains when one domain is under the other: a public suffix above
// a company's name must not pass for the company's own parent domain.
describe('foreignReplyToReason over public suffixes', () => {
  it.each([
    ['github.io', 'news@github.io', 'victim@alice.github.io'],
    ['onmicrosoft.com', 'it@onmicrosoft.com', 'victim@contoso.onmicrosoft.com'],
    ['tokyo.jp', 'info@tokyo.jp', 'victim@school-a.tokyo.jp'],
    ['co.jp', 'info@co.jp', 'victim@bigcorp.co.jp'],
  ])('parks a reply from %s to a name under it', (_suffix, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, [])).toMatch(/is a public suffix/);
  });

  it.each([
    ['a github.io site', 'alice@alice.github.io', 'alice@www.alice.github.io'],
    ['a city under tokyo.jp', 'info@city.tokyo.jp', 'desk@mail.city.tokyo.jp'],
    ['a Microsoft 365 tenant', 'it@contoso.onmicrosoft.com', 'desk@mail.contoso.onmicrosoft.com'],
  ])('lets the reply go within %s', (_name, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, [])).toBeUndefined();
  });
});
