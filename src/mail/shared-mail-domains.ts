/**
 * Mail domains shared by strangers: free mail (gmail.com, outlook.jp, yahoo.co.jp), the phone carriers' mail
 * (docomo.ne.jp, ezweb.ne.jp, i.softbank.jp), the consumer ISPs' (ocn.ne.jp, nifty.com) and the alias and relay
 * services' (duck.com, mozmail.com). Anyone can have a mailbox
 * there, so two addresses on one such domain say nothing about each other: a Reply-To beside a From on the same
 * domain is the same sender on a company's domain, a stranger on gmail.com.
 *
 * The list is the `email-providers` package's (about 8,700 domains of free mail providers, kept current from goware's
 * emailproviders list; no dependencies, no install script), plus {@link OWN_SHARED_DOMAINS}: the big Japanese carriers,
 * ISPs and portals it lacks, and the alias services.
 */
import { createRequire } from 'node:module';
import { domainOf } from './addresses.js';

/**
 * Shared mail domains `email-providers` does not list (checked against 2.26.0), mostly Japanese: carriers and their
 * MVNOs, the ISPs whose subscribers get an address on the ISP's domain, portals; a few free services abroad; and the
 * alias and relay services.
 * Unlike the package's entries these also stand for their subdomains, which these providers hand out by region or
 * plan (`ca2.so-net.ne.jp`, `d.vodafone.ne.jp`, `mue.biglobe.ne.jp`). Remove an entry once the package has it.
 */
const OWN_SHARED_DOMAINS: readonly string[] = [
  // Carriers and MVNOs (au's new au.com and its business plan's, SoftBank's older brands, Y!mobile, Willcom,
  // Rakuten Mobile, UQ, mineo, docomo's mopera).
  'au.com',
  'auone.jp',
  'biz.au.com',
  'biz.ezweb.ne.jp',
  'disney.ne.jp',
  'vodafone.ne.jp',
  'pdx.ne.jp',
  'willcom.com',
  'wcm.ne.jp',
  'ymobile.ne.jp',
  'ymobile1.ne.jp',
  'y-mobile.ne.jp',
  'emobile.ne.jp',
  'rakumail.jp',
  'rakuten.jp',
  'uqmobile.jp',
  'mineo.jp',
  'mopera.net',
  // Portals' free mail.
  'ymail.ne.jp',
  'yahoo.ne.jp',
  'goo.jp',
  'goo.ne.jp',
  'livedoor.com',
  // Consumer ISPs.
  'nifty.com',
  'nifty.ne.jp',
  'ocn.ne.jp',
  'biglobe.ne.jp',
  'so-net.ne.jp',
  'plala.or.jp',
  'dion.ne.jp',
  'odn.ne.jp',
  'asahi-net.or.jp',
  'dti.ne.jp',
  'hi-ho.ne.jp',
  'eonet.ne.jp',
  'commufa.jp',
  'bbiq.jp',
  'pikara.ne.jp',
  'megaegg.ne.jp',
  'zaq.ne.jp',
  'iij4u.or.jp',
  'tiki.ne.jp',
  'kcn.ne.jp',
  // ISPs whose subscribers share a host per region or server (`ab.auone-net.jp`, `mb.infoweb.ne.jp`): the entry
  // stands for all of them.
  'auone-net.jp',
  'em-net.ne.jp',
  't-com.ne.jp',
  'alpha-web.ne.jp',
  'tnc.ne.jp',
  'infoweb.ne.jp',
  'point.ne.jp',
  'across.or.jp',
  'ttcn.ne.jp',
  // Alias and relay services anyone can join: an alias there is any stranger's (DuckDuckGo Email Protection,
  // Firefox Relay, SimpleLogin, addy.io formerly AnonAddy, Proton Pass).
  'duck.com',
  'mozmail.com',
  'simplelogin.com',
  'simplelogin.co',
  'slmail.me',
  'aleeas.com',
  'anonaddy.me',
  'anonaddy.com',
  'addy.io',
  'passmail.net',
  // Free mail abroad.
  'tutanota.com',
  'tuta.io',
  'fastmail.com',
  'hinet.net',
  'kakao.com',
  '139.com',
  'sohu.com',
];


/** A domain as `domainOf` writes it (lower case, no trailing dot, IDN as punycode), so lookups compare like with like. */
const comparable = (domain: string): string => domainOf(`@${domain}`);

// Domains reserved for documentation (RFC 2606) that the package lists all the same: nobody holds a mailbox there,
// and the README's and the demo's sample mails use them.
const RESERVED_DOMAINS: ReadonlySet<string> = new Set(['example.com', 'example.net', 'example.org']);

// Read once per process: a Set of about 8,700 short strings, a few hundred kilobytes.
const PACKAGE_DOMAINS: ReadonlySet<string> = new Set(
  (createRequire(import.meta.url)('email-providers/all.json') as unknown[])
    .filter((d): d is string => typeof d === 'string')
    .map(comparable)
    .filter((d) => !RESERVED_DOMAINS.has(d)),
);
const OWN_DOMAINS: ReadonlySet<string> = new Set(OWN_SHARED_DOMAINS.map(comparable));

/**
 * Whether `domain` is a shared mail provider's, where anyone may hold a mailbox. An entry of `email-providers`
 * counts as written, not for its subdomains: the package lists some public suffixes as providers (`com.ar`,
 * `co.cc`), and every company under them is no provider. An entry of {@link OWN_SHARED_DOMAINS} counts with its
 * subdomains.
 */
export function isSharedMailDomain(domain: string): boolean {
  const name = comparable(domain);
  if (!name) return false;
  if (PACKAGE_DOMAINS.has(name)) return true;
  for (let parent = name; parent.includes('.'); parent = parent.slice(parent.indexOf('.') + 1)) {
    if (OWN_DOMAINS.has(parent)) return true;
  }
  return false;
}
