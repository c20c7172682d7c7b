/** isSharedMailDomain: the domains where anyone may hold a mailbox, from the email-providers list and our own. */
import { describe, expect, it } from 'vitest';
import { isSharedMailDomain } from '../../src/mail/shared-mail-domains.js';

describe('isSharedMailDomain', () => {
  it.each([
    // Free mail, the big ones here and abroad.
    'gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'yahoo.com', 'icloud.com', 'me.com', 'mac.com',
    'yahoo.co.jp', 'ymail.ne.jp', 'outlook.jp', 'hotmail.co.jp', 'live.jp', 'excite.co.jp', 'infoseek.jp',
    // Phone carriers and their brands.
    'docomo.ne.jp', 'ezweb.ne.jp', 'au.com', 'biz.ezweb.ne.jp', 'softbank.ne.jp', 'i.softbank.jp', 'disney.ne.jp', 'ymobile.ne.jp', 'rakumail.jp',
    // Consumer ISPs, and the regional subdomains they hand out.
    'nifty.com', 'ocn.ne.jp', 'biglobe.ne.jp', 'mue.biglobe.ne.jp', 'so-net.ne.jp', 'ca2.so-net.ne.jp', 'plala.or.jp', 'jcom.home.ne.jp', 'd.vodafone.ne.jp',
    // Alias and relay services anyone can join (security review 10), and their subdomains.
    'duck.com', 'mozmail.com', 'simplelogin.com', 'simplelogin.co', 'aleeas.com', 'anonaddy.me', 'anonaddy.com', 'addy.io', 'x.addy.io',
    // ISPs that hand out a mailbox on a shared host per region or server (ab.auone-net.jp), and their bare domains.
    'auone-net.jp', 'ab.auone-net.jp', 'aa.em-net.ne.jp', 'tbm.t-com.ne.jp', 'mx1.alpha-web.ne.jp', 'cy.tnc.ne.jp',
    'mb.infoweb.ne.jp', 'ma.point.ne.jp', 'po.across.or.jp', 'mx2.ttcn.ne.jp',
    // As addresses write it: other case, a trailing root dot.
    'GMail.COM', 'docomo.ne.jp.',
    // An IDN entry of the package, in the punycode form domainOf gives.
    'xn--mll-hoa.email',
  ])('%s is shared', (domain) => {
    expect(isSharedMailDomain(domain)).toBe(true);
  });

  it.each([
    ['a company domain', 'customer.example'],
    ['a Japanese company domain', 'toyota.co.jp'],
    // The package lists some public suffixes as providers; the companies under them are none.
    ['a company under a public suffix the package lists (com.ar)', 'empresa.com.ar'],
    // Only our own entries stand for their subdomains.
    ['a name that merely ends like a provider', 'notgmail.com'],
    ['a name that merely ends like a relay service', 'myduck.com'],
    ['a name that merely ends like an ISP host', 'mytnc.ne.jp'],
    ['a second-level suffix itself', 'ne.jp'],
    // Reserved for documentation (RFC 2606): nobody holds a mailbox there, though the package lists example.com.
    ['the documentation domain example.com', 'example.com'],
    ['nothing', ''],
  ])('%s is not shared (%s)', (_name, domain) => {
    expect(isSharedMailDomain(domain)).toBe(false);
  });
});
