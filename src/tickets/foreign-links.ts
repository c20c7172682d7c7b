/**
 * Links, mail addresses and phone numbers in a draft that nothing vouches for. A customer's mail can carry
 * instructions ("tell the customer to confirm their account at https://…", "…to call 03-…"), and a model can invent a
 * plausible help-centre URL; either way a link or an address that is neither in the knowledge the agent found for
 * this answer, nor ours, nor the customer's, nor on a trusted domain (`TRUSTED_LINK_DOMAINS`), and a phone number
 * that is not in that knowledge, must not go out without a person: it would send customers to a phishing page, a
 * caller posing as us, or a page that does not exist, from our address.
 */
import { phoneNumbersIn } from '../knowledge/personal-data.js';
import { comparableAddress } from '../mail/addresses.js';

/** What may appear in a reply besides what the knowledge holds. */
export interface AllowedLinks {
  /** Texts the agent found for this answer (search results): a link or address quoted from them is fine. */
  knowledge: readonly string[];
  /** Domains (and their subdomains) that may be linked to or written to whatever the knowledge says. */
  trustedDomains: readonly string[];
  /** Addresses that may appear: ours (MAIL_FROM, SUPPORT_ADDRESSES) and the customer's. */
  addresses: readonly string[];
}

// A URL, or a bare `www.` host, in the characters RFC 3986 allows (brackets and quotes aside): Japanese text written
// right after a link ("…/loginをご覧ください") is not part of it. Trailing sentence punctuation is dropped.
const URL = /(?:\bhttps?:\/\/|\bwww\.)[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+/gi;
const TRAILING = /[.,;:!?*_~]+$/;
// ASCII addresses, for the same reason; an internationalised address is written in its ASCII form in replies.
const ADDRESS = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** Reasons name this many links; the rest are counted. */
const NAMED_IN_REASON = 3;

/** The draft's links, addresses and phone numbers that {@link AllowedLinks} does not cover, each once. */
export function foreignLinks(draft: string, allowed: AllowedLinks): string[] {
  const trusted = allowed.trustedDomains.map((d) => d.trim().toLowerCase().replace(/^\.+/, '')).filter(Boolean);
  const onTrustedDomain = (host: string) => trusted.some((d) => host === d || host.endsWith(`.${d}`));
  const knownUrls = new Set(allowed.knowledge.flatMap((text) => urlsOf(text).map(normalUrl)));
  const knowledgeText = allowed.knowledge.join('\n').toLowerCase();
  const ours = new Set(allowed.addresses.map((a) => comparableAddress(a)).filter((a): a is string => a !== undefined));

  const foreign: string[] = [];
  const urls = urlsOf(draft);
  for (const url of urls) {
    if (knownUrls.has(normalUrl(url)) || onTrustedDomain(hostOf(url))) continue;
    foreign.push(url);
  }
  // Addresses outside the URLs: `https://user@host/` is a link, not an address.
  const rest = urls.reduce((text, url) => text.split(url).join(' '), draft);
  for (const address of rest.match(ADDRESS) ?? []) {
    const lower = address.toLowerCase();
    const comparable = comparableAddress(address);
    if (knowledgeText.includes(lower) || (comparable !== undefined && ours.has(comparable)) || onTrustedDomain(lower.slice(lower.lastIndexOf('@') + 1))) continue;
    foreign.push(address);
  }
  // A phone number is the same number whatever its separators and digit widths.
  const knownPhones = new Set(allowed.knowledge.flatMap((text) => phoneNumbersIn(text).map(phoneDigits)));
  for (const phone of phoneNumbersIn(rest)) if (!knownPhones.has(phoneDigits(phone))) foreign.push(phone);
  return [...new Set(foreign)];
}

function phoneDigits(phone: string): string {
  return phone.normalize('NFKC').replace(/\D/g, '');
}

/** The park reason for {@link foreignLinks}' findings. */
export function foreignLinksReason(links: readonly string[]): string {
  const named = links.slice(0, NAMED_IN_REASON).join(', ');
  const more = links.length > NAMED_IN_REASON ? ` and ${links.length - NAMED_IN_REASON} more` : '';
  return `the answer contains links, addresses or phone numbers that are neither in the knowledge it found nor trusted (TRUSTED_LINK_DOMAINS): ${named}${more}`;
}

function urlsOf(text: string): string[] {
  return (text.match(URL) ?? []).map((u) => u.replace(TRAILING, '')).filter((u) => u.length > 'www.'.length);
}

/** The host of a URL or a bare `www.` host, lower-case, without user info and port. */
function hostOf(url: string): string {
  const withoutScheme = url.replace(/^https?:\/\//i, '');
  const authority = withoutScheme.split(/[/?#]/, 1)[0] ?? '';
  return authority.slice(authority.lastIndexOf('@') + 1).replace(/:\d+$/, '').toLowerCase();
}

/** A URL compared as a browser would open it: scheme and host in lower case, a bare host with `/`. */
function normalUrl(url: string): string {
  const scheme = /^https?:\/\//i.exec(url)?.[0]?.toLowerCase() ?? 'http://';
  const withoutScheme = url.replace(/^https?:\/\//i, '');
  const cut = withoutScheme.search(/[/?#]/);
  const authority = (cut < 0 ? withoutScheme : withoutScheme.slice(0, cut)).toLowerCase();
  const rest = cut < 0 ? '/' : withoutScheme.slice(cut);
  return `${scheme.replace('https://', 'http://')}${authority}${rest}`;
}
