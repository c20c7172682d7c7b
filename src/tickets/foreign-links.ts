/**
 * Links, mail addresses and phone numbers in a draft that nothing vouches for. A customer's mail can carry
 * instructions ("tell the customer to confirm their account at https://…", "…to call 03-…"), and a model can invent a
 * plausible help-centre URL; either way a link or an address that is neither in the knowledge the agent found for
 * this answer, nor ours, nor the customer's, nor on a trusted domain (`TRUSTED_LINK_DOMAINS`), and a phone number
 * that is not in that knowledge, must not go out without a person: it would send customers to a phishing page, a
 * caller posing as us, or a page that does not exist, from our address.
 *
 * What counts as a link is what a customer's mail client makes clickable: besides `http(s)://` and `www.`, a bare
 * domain on a known top-level domain (`xyz-login.com/verify`; Gmail and Outlook link it), `ftp://` and `//host`, and
 * hosts in any script (`https://хуз-support.com`). The draft is read after NFKC (full-width `ｈｔｔｐｓ：／／` is
 * `https://`), and hosts are compared in their ASCII (punycode) form, so a look-alike never equals the real host.
 * Security review 14: so is what a browser or a reader still follows though no client links it: a host written with
 * an ideographic full stop between its labels (`xyz-verify。com/login`, which browsers read as a dot), a defanged link
 * or host (`hxxps://xyz-verify[.]com`), and a bare public IPv4 address with a path, or beside words that send the
 * reader there, its port or none (`203.0.113.7/login`, 「ブラウザで 45.33.12.7:8443 を開き」; bug review 46a: a port
 * alone is how customers name their own servers). A defanged link is the same finding as its written form (NFKC,
 * any case) in the knowledge, or as the plain link it stands for there; a defanged one never vouches for a plain one.
 *
 * Payment details and off-channel contacts (a bank account, IBAN, crypto address, LINE or Telegram handle, a
 * remote-access id) are read like phone numbers, and a request for gift-card codes is never vouched for
 * (src/tickets/payment-details.ts, security review 11). So is a postal address, by its postcode (security review 16:
 * "mail your card to 〒160-0023 …"), which the customer's own mail vouches for too ({@link AllowedLinks.customerMail}).
 * That is a check of postcodes, not of addresses: an address written without a postcode, or in a format whose
 * postcode is not read (German, French), goes out unread.
 */
import { createRequire } from 'node:module';
import { BlockList } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import LinkifyIt, { type Match } from 'linkify-it';
import { defangedLinkRanges, phoneNumberDigits, phoneNumbersIn } from '../knowledge/personal-data.js';
import { comparableAddress, StringMemo } from '../mail/addresses.js';
import { checkedKnowledgeText, checkedText, foreignPaymentFindings, ownAccountsFromMail, paymentFindingKind, type CheckedText, type PaymentDetailKind } from './payment-details.js';

/** What may appear in a reply besides what the knowledge holds. */
export interface AllowedLinks {
  /** Texts the agent found for this answer (search results): a link or address quoted from them is fine. */
  knowledge: readonly string[];
  /** Domains (and their subdomains) that may be linked to or written to whatever the knowledge says. */
  trustedDomains: readonly string[];
  /** Addresses that may appear: ours (MAIL_FROM, SUPPORT_ADDRESSES) and the customer's. */
  addresses: readonly string[];
  /**
   * What the reader wrote (their mail's question): a postal address in it is theirs, which a reply may repeat. Only
   * when the reply goes back to a sender our receiving server vouches for: to anyone else the mail's words are a
   * stranger's (security review 16, finding 3). An IBAN or account number in it vouches for the same in the reply
   * only in a sentence that names it as the reader's own and asks nothing (a refund to it; session 49).
   */
  customerMail?: readonly string[];
}

/** Reasons name this many links; the rest are counted. */
const NAMED_IN_REASON = 3;

// linkify-it knows the common generic TLDs and every country code; every other TLD of IANA's list (the `tlds`
// package) is added, because a bare domain on any of them opens in a browser, and phishing pages live on the new ones
// (xyz, top, tokyo, ninja, zip, mov…): a short list of common ones missed most of them.
// The reserved names (RFC 2606, 6761) never resolve publicly, but tests and sample manuals write their hosts on them.
const IANA_TLDS = createRequire(import.meta.url)('tlds') as string[];
const MORE_TLDS = [
  'app', 'dev', 'xyz', 'top', 'online', 'site', 'club', 'live', 'store', 'cloud', 'tech', 'link', 'click', 'page', 'icu',
  'vip', 'work', 'email', 'support', 'help', 'services', 'website', 'space', 'life', 'world', 'today', 'fun', 'buzz',
  'cyou', 'sbs', 'cfd', 'bond', 'rest', 'win', 'bid', 'loan', 'review', 'stream', 'party', 'science', 'trade', 'digital',
  'network', 'systems', 'center', 'agency', 'group', 'global', 'media', 'news', 'blog', 'bank', 'money', 'finance', 'one',
  'jobs', 'mobi', 'travel', 'int', 'tel', 'security', 'solutions', 'company', 'business', 'host', 'domains', 'secure',
  'wiki', 'zone', 'monster', 'quest', 'lat',
  'example', 'test', 'invalid', 'localhost',
];
const linkify = new LinkifyIt().tlds([...new Set([...IANA_TLDS, ...MORE_TLDS])], true);
// The TLDs read before the whole list was: linkify-it's own (every two-letter one too) and MORE_TLDS.
const FIRST_TLDS = new Set([...MORE_TLDS, 'biz', 'com', 'edu', 'gov', 'net', 'org', 'pro', 'web', 'xxx', 'aero', 'asia', 'coop', 'info', 'museum', 'name', 'shop']);
// Every TLD the bare-domain pass reads, lower-case: what a host written with ideographic full stops must end in.
const KNOWN_TLDS = new Set([...IANA_TLDS, ...FIRST_TLDS].map((tld) => tld.toLowerCase()));
// TLDs that are also common file-name extensions: "logs.zip", "Main.java", "key.pub" or "bundle.js.map" alone in a
// reply is a file far more often than a site. A file name has no path, port or query after it: with one
// ("office-update.zip/setup") it is a site, and .zip and .mov are live TLDs phishing pages use.
const FILE_EXTENSION_TLDS = new Set(['zip', 'mov', 'java', 'data', 'new', 'cab', 'run', 'pub', 'map']);

/** The host part of a bare domain linkify-it read: what comes before its port, path, query or fragment. */
function hostOf(raw: string): string {
  return raw.split(/[/?#:]/, 1)[0] ?? '';
}

/**
 * Whether a bare host with nothing after it (see {@link hostOf}) is written as ordinary text, not as a site: a file
 * name, a company suffix ("ABC CO.LTD", "Co.LLC") or a sentence run on after its full stop. Never with a path, port
 * or query after the host, which only a link has.
 */
function hostWrittenAsText(host: string): boolean {
  const dot = host.lastIndexOf('.');
  const label = host.slice(0, dot);
  const tld = host.slice(dot + 1);
  return FILE_EXTENSION_TLDS.has(tld.toLowerCase()) || (/^(?:co|corp)$/i.test(label) && /^(?:ltd|inc|llc)$/i.test(tld)) || runOnSentence(label, tld);
}

/**
 * A sentence run on after its full stop ("…with delays.You will…"): the whole list holds English words (you, one,
 * now, best…), and a capitalised word right after a sentence's last word, one lower-case word, is the next sentence
 * far more often than a host. A host's labels are the sender's to write in any case ("Secure-Login.Tokyo", which
 * browsers open as secure-login.tokyo), so nothing else is. Only for the TLDs the whole list added, so what was read
 * as a link before still is.
 */
function runOnSentence(label: string, tld: string): boolean {
  return tld.length > 2 && !FIRST_TLDS.has(tld.toLowerCase()) && /^\p{Lu}\p{Ll}+$/u.test(tld) && /^\p{Ll}+$/u.test(label);
}

// Japanese written with ，． (technical and official style) has NFKC make its full stop a dot, and the word after it
// may be an IDN TLD ("設定完了です．ポイント", セール, クラウド, コム, 家電…): a host's last dot written as `．` between
// kana or kanji is that sentence's full stop. Read on the original host, whose `．` NFKC has made a `.`.
const SENTENCE_LETTER = String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ーｰ]`;
const JAPANESE_FULL_STOP = new RegExp(`${SENTENCE_LETTER}．${SENTENCE_LETTER}[^.．]*$`, 'u');

// Product names whose last part happens to be a TLD: a mail client links `ASP.NET` to Microsoft's asp.net, nothing an
// instruction could redirect. Written exactly so; `asp.net/login` is still a link.
const PRODUCT_NAMES = new Set(['ASP.NET', 'VB.NET', 'ADO.NET']);
// A version number followed by a country code ("v3.2.JP版", "Ver.2.3.jp") is a version, not a host anyone registers.
const VERSION = /^(?:v|ver\.?)?\d+(?:\.\d+)+\.[a-z]+$/i;

// Japanese is written without spaces, and linkify-it only starts or ends a link at a space or punctuation: a space is
// put between Japanese and the ASCII written right against it, so "確認はhttps://…/verifyから" and
// "xyz-login.comにログイン" are read as links, and the Japanese after one is not part of it (nor of its path). The
// space is not put inside a host: "サポート.jp" and "xyz-サポート.com" stay one host. Symbols used as bullets and
// arrows (→, ★, ■) get the same space: linkify-it reads them as letters of a host.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\u30fb\u30fc\uff00-\uffef]|(?![\0-\x7f])\p{S}/u;

// linkify-it is written for markdown-it, which takes code spans, emphasis and tables out first: it does not start a
// scheme link after `=`, `_`, `|` or a backtick ("URL=https://…", "`https://…`"), nor after a letter
// ("ログインhttps://…" once spaced is fine, "Loginhttps://…" is not), and reads an address with the punctuation before
// it (`,a@b.example`). So links with a scheme or `www.`, and addresses, are read by these patterns, which only need
// the scheme, `www.` or the `@`; linkify-it reads what is left, for bare domains. A host may be in
// any script; a path is read in the characters RFC 3986 allows, so Japanese after it is not part of it, and trailing
// sentence punctuation is dropped. A fully qualified host's root dot (`https://forms.gle./x`) is read with it: the
// same host, and what follows it is the link's path, not text.
const HOST = String.raw`(?:[\p{L}\p{N}\p{M}-]+(?:\.[\p{L}\p{N}\p{M}-]+)*|\[[0-9A-Fa-f:.]+\])`;
const PATH = String.raw`(?:[/?#][A-Za-z0-9\-._~:/?#@!$&*+,;=%]*)?`;
const SCHEME_LINK = new RegExp(
  String.raw`(?:(?:https?|ftp):\/\/(?:[\p{L}\p{N}\-._~!$&*+,;=:%]+@)?${HOST}|(?<![\p{L}\p{N}:/])\/\/[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+|(?<![\p{L}\p{N}.\-])www\.${HOST})(?:\.(?=[/?#:]))?(?::\d*)?${PATH}`,
  'giu',
);
// An address's local part may be in any script too (RFC 6531); Japanese before an ASCII one is spaced off by readable().
const ADDRESS = /(?<![\p{L}\p{N}\p{M}._%+-])[\p{L}\p{N}\p{M}._%+-]+@[\p{L}\p{N}\p{M}-]+(?:\.[\p{L}\p{N}\p{M}-]+)*\.(?:xn--[A-Za-z0-9-]+|[A-Za-z]{2,})/gu;
// Sentence punctuation after a link is the sentence's. Trimmed by a loop from the end: `/[.,;:!?*_~]+$/` is tried at
// every start of a run and reads it to its end, quadratic in a link of 50,000 commas (2 s; review 43b's audit).
const TRAILING = new Set('.,;:!?*_~');
function withoutTrailing(link: string): string {
  let end = link.length;
  while (end > 0 && TRAILING.has(link.charAt(end - 1))) end--;
  return link.slice(0, end);
}
// What linkify-it leaves of a bare host written fully qualified ("forms.gle./x", it stops before the root dot): the
// dot, and the port and path after it. Sticky: read where the bare host ends.
const ROOT_DOT_AND_PATH = new RegExp(String.raw`\.(?=[/?#:])(?::\d*)?${PATH}`, 'y');
// Markup around a bare domain that linkify-it would take for part of it or that stops it from seeing one: backticks
// and table bars anywhere (neither is a URL character), runs of `*`, `_`, `~` (and a leading `-`) at the edge of a
// word (`_xyz.com_`, `**xyz.com**`; not `/~user` or `a_b` in a path), and a colon that starts neither a port nor a
// path ("URL:xyz-login.com"; checked in {@link withoutMarkup} to be outside a path).
// A trailing run is tried from its first character only (`(?<![*_~])`): it must end where the run ends, so a later
// start ends there too, and trying each rescanned the run (security review 15: quadratic in a run of `*`).
const MARKUP = /[`|]|(?<![\p{L}\p{N}/.*_~-])[*_~-]+|(?<![*_~])[*_~]+(?![\p{L}\p{N}/*_~])|:(?![0-9/])/gu;

// A bare IPv4 address (four octets of 0–255 and no more: 10.0.19045.3803 and 1.2.3.4.5 are versions), with its port
// and path. No client links one, but a reader types or pastes it: it is a link when a path or a port follows it
// (`203.0.113.7/login`; a prefix length alone, `52.14.88.0/24`, is a network), or when words around it send the reader
// there ({@link ADDRESS_LINK_BEFORE}, {@link ADDRESS_LINK_AFTER}), with a port or without.
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const BARE_IPV4 = new RegExp(String.raw`(?<![\p{L}\p{N}\p{M}._@:/-])${OCTET}(?:\.${OCTET}){3}(?![\p{L}\p{N}_-]|\.\p{N})(?::[0-9]{1,5}(?![0-9]))?${PATH}`, 'gu');
const PREFIX_LENGTH = /^\/(?:3[0-2]|[12]?[0-9])$/;
const ADDRESS_LINK_BEFORE = /(?:(?:アクセス|ログイン)(?!元)|\bURL|\bhttps?\b|ブラウザ|\bbrowser|\bgo to|\bvisit|\bnavigate to|\b(?:log|sign) ?in (?:at|to|on))[^\n]{0,12}$/iu;
// The address is where the reader goes, not where a login came from: "に/へアクセス", "にログイン", "を開く", not
// 「アクセス元」「からログイン」 (a customer's own address in a question about a blocked login).
const ADDRESS_LINK_AFTER = /^[ \t]*(?:(?:に|へ)[ \t]*(?:アクセス|ログイン)|を[ \t]*開[いきく]|in (?:a|your) (?:web )?browser\b)/iu;
// Versions start with two small numbers (1.2.3.4, 2.1.0.15): after link words alone ("Chrome 1.2.3.4 以降でアクセス"),
// such a number is a version; with a path or a port it is an address.
const VERSION_SHAPED = /^[0-9]\.[0-9]\./;
// Addresses no lure can be on, whatever the words around them: private networks, loopback, the unspecified network,
// link-local, carrier-grade NAT, multicast and the reserved block with the broadcast address. A router's 192.168.0.1
// or a developer's 127.0.0.1:3000 in an answer is no one's site. The documentation ranges (RFC 5737) are read as
// public, unlike in the personal-data scrub, which asks whether an address locates someone: the check cannot tell a
// manual's example from a lure by the address, the knowledge that writes an example vouches for it, and the review's
// own lures are written in them.
const NO_LURE_ADDRESS = new BlockList();
for (const [network, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 3]] as const) {
  NO_LURE_ADDRESS.addSubnet(network, prefix, 'ipv4');
}
// What a defanged link needs: a bracketed dot, a bracketed colon or an hxxp-like scheme ({@link defangedLinkRanges}).
const MAY_BE_DEFANGED = /[[({](?:\.|dot)[\])}]|\[:\]|\(:\)|\bh(?:xx|\*\*|__)p/iu;

/** A link or an address found in a text. */
interface Found {
  /** As the text writes it (full-width letters and all), for the park reason. */
  written: string;
  /** Where it is in the text: phone numbers are looked for outside it. */
  start: number;
  end: number;
  kind: 'link' | 'address';
  /** Equal for the same page or the same mailbox; undefined when it cannot be read as one (then nothing vouches). */
  key: string | undefined;
  /** The host or the address's domain in lower-case ASCII; '' when unreadable. */
  host: string;
  /** A link to a host's front page with nothing else in it (`xyz-system.example.jp`, `https://host/`). */
  hostOnly: boolean;
  /**
   * A defanged link's: the plain link it stands for (its key and host), which the knowledge vouches for as it would
   * for the link written plainly, and the host as written (`xyz-help[.]com`), which the knowledge is searched for.
   */
  defanged?: { plainKey: string | undefined; plainHost: string; writtenHost: string };
}

/**
 * The draft's links, addresses and phone numbers that {@link AllowedLinks} does not cover, each once, as the draft
 * writes them. A link is vouched for by the same page in the knowledge (scheme and host case aside, hosts compared in
 * punycode) or a trusted domain; a link to a host's front page also by being a host the knowledge links to or an
 * address's domain (the knowledge's, ours, the customer's). An address is vouched for by the same whole address in
 * the knowledge (case, width and `+tag` aside), by being ours or the customer's, or by a trusted domain.
 */
export function foreignLinks(draft: string, allowed: AllowedLinks): string[] {
  return [...new Set(foreignFindings(draft, allowed).map((f) => f.written))];
}

/**
 * What a finding of {@link foreignFindings} is: a link, an address, a phone number, a postal address (named by its
 * postcode), or a payment detail's kind.
 */
export type ForeignFindingKind = 'link' | 'address' | 'phone' | 'postal' | PaymentDetailKind;

/**
 * {@link foreignLinks}' findings with what each was read as, in order (a text written twice is there twice): for
 * what names them by kind, since a finding read again alone may read otherwise (a LINE id before 友だち追加). With
 * `withinAsks`, a handle, account or wallet inside an ask to buy gift cards is named too, beside the ask (the learned
 * question's scrub keeps the customer's ask and replaces what it holds; review 43d).
 */
export function foreignFindings(draft: string, allowed: AllowedLinks, { withinAsks = false }: { withinAsks?: boolean } = {}): Array<{ written: string; kind: ForeignFindingKind }> {
  // Security review 12: every check reads the draft without the characters a reader does not see and with every
  // script's digits as ASCII (03-1234\u200b-5678, refunds@xyz-help\u200b.com, 普通 七六五四三二一), and names what it
  // finds as the draft writes it.
  const checked = checkedText(draft);
  const found = linksAndAddressesIn(checked.text).map((f) => ({ ...f, written: checked.quote(f.start, f.end) }));
  // Phone numbers outside the links and addresses: digits in a path or a query are not a number to call.
  const outsideLinks = blanked(checked.text, found.map((f) => [f.start, f.end]));
  const phones = phoneNumbersWithPlaces(outsideLinks);
  // Payment details and contact handles outside the links and addresses too (a crypto address in an explorer's
  // link is the link's); a chat label before a phone number (WhatsApp +44 …) is named once, as the phone number.
  const phoneDigitsFound = new Set(phones.map((p) => phoneDigits(p.phone)));
  const reading: CheckedText = { ...checked, text: outsideLinks };
  // The reader's own account, which their mail writes, where we pay them back (session 49): its IBAN, its number, or
  // the number read as a phone number.
  const own = allowed.customerMail && allowed.customerMail.length > 0 ? ownAccountsFromMail(outsideLinks, allowed.customerMail) : [];
  const isOwn = (start: number, end: number) => own.length > 0 && overlapsAny(own, start, end);
  const payment = foreignPaymentFindings(
    reading,
    allowed.knowledge,
    (d) => (d.kind === 'handle' && phoneDigitsFound.has(d.key.slice('handle:'.length))) || ((d.kind === 'iban' || d.kind === 'bank-account') && isOwn(d.start, d.end)),
    withinAsks,
  );
  // Postal addresses outside the links and the phone numbers (security review 16: "mail your card to 〒160-0023 …").
  const postal = postalAddressesIn(phones.length > 0 ? blanked(outsideLinks, phones.map((p) => [p.start, p.end])) : outsideLinks);
  // Most drafts have none: then the knowledge (tens of KB of hits) need not be read at all.
  if (found.length === 0 && phones.length === 0 && postal.length === 0) return payment;

  const trusted = allowed.trustedDomains.map(asciiDomain).filter(Boolean);
  const onTrustedDomain = (host: string) => host !== '' && trusted.some((d) => host === d || host.endsWith(`.${d}`));
  // Only knowledge that names one of the draft's hosts can vouch for its links and addresses: the text around those
  // names is read, not every hit whole.
  const hosts = [...new Set(found.flatMap((f) => [f.host, f.defanged?.plainHost ?? '', f.defanged?.writtenHost ?? '']).filter(Boolean))];
  const names = hosts.length > 0 && allowed.knowledge.length > 0 ? hostNames(hosts) : undefined;
  const known = names ? allowed.knowledge.flatMap((text) => knownIn(text, names)) : [];
  const knownKeys = new Set(known.map((f) => f.key).filter((k): k is string => k !== undefined));
  const ours = allowed.addresses.map((a) => comparableAddress(a)).filter((a): a is string => a !== undefined);
  const oursSet = new Set(ours);
  const vouchedHosts = new Set([...known.map((f) => f.host), ...ours.map((a) => a.slice(a.lastIndexOf('@') + 1))].filter(Boolean));

  const foreign: Array<{ written: string; kind: ForeignFindingKind }> = [];
  for (const f of found) {
    const vouched =
      (f.key !== undefined && (knownKeys.has(f.key) || (f.kind === 'address' && oursSet.has(f.key)))) ||
      onTrustedDomain(f.host) ||
      (f.hostOnly && vouchedHosts.has(f.host)) ||
      (f.defanged !== undefined && ((f.defanged.plainKey !== undefined && knownKeys.has(f.defanged.plainKey)) || onTrustedDomain(f.defanged.plainHost)));
    if (!vouched) foreign.push({ written: f.written, kind: f.kind });
  }
  if (phones.length > 0) {
    // A phone number is the same number whatever its separators and digit widths.
    const knownPhones = new Set(allowed.knowledge.flatMap((text) => phoneNumbersWithPlaces(checkedKnowledgeText(text)).map((p) => phoneDigits(p.phone))));
    for (const { phone, start, end } of phones) if (!knownPhones.has(phoneDigits(phone)) && !isOwn(start, end)) foreign.push({ written: checked.quote(start, end), kind: 'phone' });
  }
  if (postal.length > 0) {
    // A postal address is the same address whatever else is written beside its postcode: the knowledge or the
    // customer's mail that writes the postcode anywhere vouches for it.
    const vouchedPostcodes = new Set([...allowed.knowledge, ...(allowed.customerMail ?? [])].flatMap((text) => postcodeKeysIn(checkedKnowledgeText(text))));
    for (const { key, start, end } of postal) if (!vouchedPostcodes.has(key)) foreign.push({ written: checked.quote(start, end), kind: 'postal' });
  }
  return [...foreign, ...payment];
}

/** Whether [start, end) overlaps one of `spans` (in order, not overlapping each other): by binary search. */
function overlapsAny(spans: ReadonlyArray<readonly [number, number]>, start: number, end: number): boolean {
  let low = 0;
  let high = spans.length;
  // The first span that ends after `start`.
  while (low < high) {
    const middle = (low + high) >> 1;
    if (spans[middle]![1] <= start) low = middle + 1;
    else high = middle;
  }
  return low < spans.length && spans[low]![0] < end;
}

/** What a link or an address of the knowledge vouches for. */
type Known = Pick<Found, 'key' | 'host'>;

// The knowledge is the same manual sections and Q&A pairs ticket after ticket, and drafts name the same few hosts:
// what a text holds around those names is kept. Bounded: a text this long is read each time (sections and pairs are
// far shorter), and the memo is cleared when full.
const KNOWLEDGE_READINGS_KEPT = 256;
const KNOWLEDGE_CHARS_KEPT = 8_000;
const knownByText = new StringMemo<readonly Known[]>(KNOWLEDGE_READINGS_KEPT, KNOWLEDGE_CHARS_KEPT);

/** The links and addresses of `text` around the hosts of `names` ({@link textAround}). */
function knownIn(text: string, names: RegExp | 'whole'): readonly Known[] {
  // A pattern's source is never empty (an empty one reads `(?:)`) and no host holds a NUL.
  const reading = `${names === 'whole' ? '' : names.source}\0${text}`;
  return knownByText.get(reading, () => linksAndAddressesIn(textAround(text, names)).map(({ key, host }) => ({ key, host })));
}

/** How far around a host's name the knowledge is read: a whole URL or address it belongs to fits. */
const AROUND_HOST_CHARS = 600;
/**
 * Longest pattern of host names looked for in the knowledge. A draft names a few hosts; one naming thousands, or one
 * host of 600 KB (a subject of `www.a.b` written without spaces), makes a pattern that overflows the regular
 * expression compiler's stack (from about 14 KB) or costs hosts × knowledge to run: the knowledge is read whole
 * instead, in time linear in it. Whole, it finds what the parts around the names find and, rarely, more: the same page
 * written with characters the URL parser drops, which no name matches.
 */
const MAX_HOST_PATTERN_CHARS = 2_000;

/**
 * What {@link textAround} looks for: `hosts` as punycode and in their own script, any case; 'whole' when that pattern
 * would be longer than {@link MAX_HOST_PATTERN_CHARS}. Made once per draft, not once per knowledge text.
 */
function hostNames(hosts: readonly string[]): RegExp | 'whole' {
  // No host holds a line break. The pattern is only read (`matchAll` reads a copy), so one serves every draft.
  return hostPatterns.get(hosts.join('\n'), () => hostPattern(hosts));
}

// Drafts name the same few hosts ticket after ticket (the knowledge's own, ours): their pattern is kept. Bounded like
// the pattern itself; cleared when full.
const HOST_PATTERNS_KEPT = 256;
const hostPatterns = new StringMemo<RegExp | 'whole'>(HOST_PATTERNS_KEPT, MAX_HOST_PATTERN_CHARS);

function hostPattern(hosts: readonly string[]): RegExp | 'whole' {
  const names = [...new Set(hosts.flatMap((h) => [h, domainToUnicode(h)]).filter((n) => n.length > 0))];
  const source = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return source.length > MAX_HOST_PATTERN_CHARS ? 'whole' : new RegExp(source, 'giu');
}

/**
 * The parts of `text` (NFKC) around each place that names one of the hosts of `names` ({@link hostNames}), each cut at
 * whitespace, joined by blank lines; '' when none is named; the whole text (NFKC) for 'whole'. Every link or address
 * on one of those hosts lies inside them, so reading these parts finds what reading the whole text would for those
 * hosts.
 */
function textAround(original: string, names: RegExp | 'whole'): string {
  const text = original.normalize('NFKC');
  if (names === 'whole') return text;
  const spans: Array<[number, number]> = [];
  for (const match of text.matchAll(names)) {
    let start = Math.max(0, match.index - AROUND_HOST_CHARS);
    let end = Math.min(text.length, match.index + match[0].length + AROUND_HOST_CHARS);
    const last = spans[spans.length - 1];
    // Whole words at the edges: a window must not begin in the middle of another link. A window that reaches into the
    // last one joins it, and the last one already ends at a space: neither edge is widened again, so a long word
    // naming a host many times is read once, not once for every time.
    while (start > 0 && !(last && start <= last[1]) && !/\s/.test(text[start - 1]!)) start--;
    if (last && start <= last[1]) {
      if (end <= last[1]) continue;
      while (end < text.length && !/\s/.test(text[end]!)) end++;
      last[1] = end;
      continue;
    }
    while (end < text.length && !/\s/.test(text[end]!)) end++;
    spans.push([start, end]);
  }
  return spans.map(([start, end]) => text.slice(start, end)).join('\n\n');
}

// Phone numbers in shapes the personal-data finders leave to other things (security review 12, F2), read only where
// the shape is a phone number's: a leading 0 and ten or eleven digits (Japan), or + and a country code, in groups
// separated by dots (03.1234.5678, +81.3.1234.5678) or with every digit spaced (0 3 1 2 3 4 5 6 7 8). A version
// (10.0.19045), an IP address (192.168.0.1), a date (2026.11.28, 05.11.2026), a price or a decimal has no such shape.
const DOTTED_PHONE = /(?<![\p{N}.])(?:0[0-9]{1,4}(?:\.[0-9]{1,4}){2}|\+[1-9][0-9]{0,2}(?:\.[0-9]{1,4}){2,4})(?![\p{N}]|\.[\p{N}])/gu;
const SPACED_PHONE = /(?<![\p{N}.][ ]?)(?:0[ ][1-9]|\+[ ]?[1-9])(?:[ ][0-9]){7,11}(?![ ]?[\p{N}])/gu;
// Review 43b: a serial or model number is no phone number (Serial: 0012.3456.789, 型番 045.1234.5678): the shape after
// its label (within a few characters: S/N:, Model No. #) is the product's.
const PRODUCT_NUMBER_BEFORE = /(?:\b(?:serial|s\/n|sn|model|part|p\/n)(?:[ \t]*(?:no\.?|number|num|#))?|型番|型式|品番|製造番号|シリアル(?:番号|ナンバー|No\.?)?|製品番号|部品番号)[ \t]*(?:[:：#=.][ \t]*)?$/i;
// A leading 00 is the international call prefix: a number after it starts with a country code, written as its own
// group (0044.2079.4609, 007.495.1234); none is 00 and two digits no country has (0012.3456.789).
const INTERNATIONAL_PREFIX_GROUP =
  /^00(?:1|7|2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58]|2[1-69][0-9]|3[578][0-9]|42[0-9]|5[09][0-9]|6[7-9][0-9]|8[0589][0-9]|9[679][0-9])\./;

/** Whether `digits` (ASCII, `+` aside) may be a phone number of {@link DOTTED_PHONE} or {@link SPACED_PHONE}. */
function phoneShaped(digits: string, international: boolean): boolean {
  if (international) return digits.length >= 9 && digits.length <= 15 && /[2-9]/.test(digits);
  // Spaced binary digits (0 1 1 0 …) and a keypad's row (0 1 2 … 9) are no number to call.
  return (digits.length === 10 || digits.length === 11) && /[2-9]/.test(digits) && digits !== '0123456789';
}

/**
 * The phone numbers of `text` with where each is: personal-data's finders' (which return the numbers as written,
 * found here in order) and the dotted and spaced shapes they do not read.
 */
function phoneNumbersWithPlaces(text: string): Array<{ phone: string; start: number; end: number }> {
  const places: Array<{ phone: string; start: number; end: number }> = [];
  // phoneNumbersIn returns its numbers in order of start: each is looked for after where the one before it starts (from
  // that start itself, a number written twice found its first place again, and the second writing went unnamed).
  let from = 0;
  for (const phone of phoneNumbersIn(text)) {
    const at = text.indexOf(phone, from);
    if (at < 0) continue;
    places.push({ phone, start: at, end: at + phone.length });
    from = at + 1;
  }
  if (!/[0-9][. ][0-9]/.test(text)) return places;
  const extra: typeof places = [];
  for (const pattern of [DOTTED_PHONE, SPACED_PHONE]) {
    // The finders' numbers are in order of start, and so are a pattern's matches: one pass over both.
    let next = 0;
    for (const m of text.matchAll(pattern)) {
      const digits = m[0].replace(/[^0-9]/g, '');
      if (!phoneShaped(digits, m[0].startsWith('+'))) continue;
      if (m[0].startsWith('00') && !INTERNATIONAL_PREFIX_GROUP.test(m[0])) continue;
      if (PRODUCT_NUMBER_BEFORE.test(text.slice(Math.max(0, m.index - 24), m.index))) continue;
      const end = m.index + m[0].length;
      while (next < places.length && places[next]!.end <= m.index) next++;
      if (next < places.length && places[next]!.start < end) continue;
      extra.push({ phone: m[0], start: m.index, end });
    }
  }
  return extra.length === 0 ? places : [...places, ...extra].sort((a, b) => a.start - b.start);
}

function phoneDigits(phone: string): string {
  // Kanji numerals too: read as no digits, any two numbers written in them would compare equal.
  return phoneNumberDigits(phone.normalize('NFKC'));
}

// --- Postal addresses (security review 16, finding 3) ---
// A postal address is as good a lure as a phone number ("mail your card to 〒160-0023 東京都…"), read by its postcode,
// the part a model cannot leave out and the knowledge writes the same way: Japanese 〒NNN-NNNN or 郵便番号 NNN-NNNN
// (or NNNNNNN, or NNN NNNN with one space for the dash), NNN-NNNN alone before a prefecture's name (review R3a, s48:
// seven digits without the dash there are an order, member or slip number as often: ご注文番号 1234567 東京都内の倉庫
// から…; without the dash only with no number's label before it, in a sentence that sends something there: session 49),
// and either after a romanised prefecture or Japan ("Tokyo 160-0023", bug review R1; without the dash only as a part of
// an address or in an ask to send something to it); a US ZIP after its state, as its code or its name (CA 94102,
// California 94102), or a UK postcode (SW1A 2AA) only with a street or a PO box before it in a sentence that asks to
// mail, send or post something to it: a ZIP or a postcode alone is as often a number or a code of something else.
// This is a check of postcodes, not of addresses: an address written without one (東京都新宿区西新宿1-2-3 宛), or a
// German or French one (10115 Berlin: five digits before a town are too often something else), is not read. The text
// is read as checkedText reads it: any script's digits and kanji numerals as ASCII.
const POSTAL_DASH = '[-‐‑−－ー―–—]';
const PREFECTURE =
  '(?:北海道|東京都|(?:京都|大阪)府|(?:青森|岩手|宮城|秋田|山形|福島|茨城|栃木|群馬|埼玉|千葉|神奈川|新潟|富山|石川|福井|山梨|長野|岐阜|静岡|愛知|三重|滋賀|兵庫|奈良|和歌山|鳥取|島根|岡山|広島|山口|徳島|香川|愛媛|高知|福岡|佐賀|長崎|熊本|大分|宮崎|鹿児島|沖縄)県)';
const JA_POSTCODE = new RegExp(
  String.raw`(?:〒|郵便番号(?:[ \t　]*[:：])?)[ \t　]*[0-9]{3}(?:${POSTAL_DASH}|[ 　])?[0-9]{4}(?![0-9])|(?<![\p{L}\p{N}.#/_]|${POSTAL_DASH})[0-9]{3}${POSTAL_DASH}[0-9]{4}(?![0-9])(?=[ \t　、,]{0,3}${PREFECTURE})`,
  'gu',
);
// Seven digits without the dash right before a prefecture, no 〒 (session 49: "カードを 1500002 東京都渋谷区…宛にご郵送
// ください" passed): a postcode only in a sentence that sends something there ({@link JA_SEND_THERE}) and with no
// label of a number before the digits in their clause ({@link JA_NUMBER_LABEL}): an order, slip or member number
// written so (ご注文番号 1234567 東京都内の倉庫から発送) is as common, and stays no postcode (review R3a of session 48).
const JA_BARE_POSTCODE = new RegExp(String.raw`(?<![\p{Script=Latin}\p{N}.#/_]|${POSTAL_DASH})[0-9]{7}(?![0-9])(?=[ \t　、,]{0,3}${PREFECTURE})`, 'gu');
// Sending something there: 宛, 送 (not 発送, 配送, 輸送, 放送, 送料, 送信, 送金: our shipping, a message or a remittance,
// bug review B1 of session 49), 返却, 返品.
const JA_SEND_THERE = /宛|あて|(?<![発配輸放運])送(?!料|信|金)|返却|返品/;
// The same, asked for: a word of sending, then ください, 願い or いただ in its clause.
const JA_SEND_ASK = /(?:宛|あて|(?<![発配輸放運])送(?!料|信|金)|返却|返品)[^。！？、\n]{0,20}?(?:ください|下さい|願|いただ|頂)/;
// A label that names the digits another thing's number, in their clause before them.
const JA_NUMBER_LABEL = /番号|番|No\.?|№|ナンバー|ID|コード|code|#|数|額|注文|会員|伝票|追跡|問い?合わせ|受付|予約|請求|電話|TEL|FAX|\b(?:order|member|tracking|ticket|invoice|customer)\b/i;
const PREFECTURE_AHEAD = new RegExp(String.raw`^[ \t　、,]{0,3}${PREFECTURE}`, 'u');
// How far around the digits their sentence is read: the clause before them, the sentence after them.
const JA_LABEL_BEFORE_CHARS = 16;
const JA_SEND_AROUND_CHARS = 80;
// A romanised prefecture (with -to, -fu, -ken or -do) or Japan, then a postcode: how an address in Japan is written in
// English ("Shinjuku-ku, Tokyo 160-0023, Japan").
const JA_ROMANISED_PLACE =
  '(?:Japan|Hokkaido|Aomori|Iwate|Miyagi|Akita|Yamagata|Fukushima|Ibaraki|Tochigi|Gunma|Saitama|Chiba|Tokyo|Kanagawa|Niigata|Toyama|Ishikawa|Fukui|Yamanashi|Nagano|Gifu|Shizuoka|Aichi|Mie|Shiga|Kyoto|Osaka|Hyogo|Nara|Wakayama|Tottori|Shimane|Okayama|Hiroshima|Yamaguchi|Tokushima|Kagawa|Ehime|Kochi|Fukuoka|Saga|Nagasaki|Kumamoto|Oita|Miyazaki|Kagoshima|Okinawa)(?:-(?:to|fu|ken|do))?';
const JA_ROMANISED_POSTCODE = new RegExp(String.raw`(?<![\p{L}\p{N}])${JA_ROMANISED_PLACE},?[ \t]+〒?[0-9]{3}${POSTAL_DASH}?[0-9]{4}(?![\p{N}]|${POSTAL_DASH})`, 'giu');
// Seven digits without the dash after a romanised place are a postcode where the paragraph asks to send something to
// it ("Send the card to XYZ in Tokyo 1600023"), or with no number's word just before them, as a part of an address:
// after a comma ("…, Shibuya-ku, Japan 1500002"), or where the address ends, at a sentence's or a line's end or before
// ", Japan" ("Our office is at 1-2-3 Shinjuku Tokyo 1600023. Please mail your card there.", bug review B1 of session 49:
// the ask after the address, or "there", is not read). "Our warehouse in Japan 1234567 is the tracking number" goes on
// after the digits, "Tracking number: Japan 1234567" labels them: numbers (session 49).
const ROMANISED_WITHOUT_DASH = /^[^0-9]*[0-9]{7}$/;
const COMMA_BEFORE = /,[ \t]*$/;
const ADDRESS_ENDS_AFTER = /^(?:[ \t]*(?:[.;)]|\r?\n|$)|,?[ \t]*Japan\b)/;
// Where the address ends there, something of an address stands before the place: a comma, a block number (1-2-3) or a
// ward's, city's or town's suffix (Shibuya-ku). "Shipment origin Tokyo 1234567." has none: a number at a sentence's
// end (bug review B3 of session 49, LOW 10).
const ADDRESS_PART_BEFORE = /,|[0-9]-[0-9]|-(?:ku|shi|cho|chō|machi|gun|ken|fu)\b/i;
const ADDRESS_PART_BEFORE_CHARS = 40;
const NUMBER_WORD_BEFORE = /\b(?:tracking|order|invoice|ticket|member|reference|number|no\.?|ID|code)\b|#/i;
// How far before the digits a number's word labels them.
const NUMBER_WORD_BEFORE_CHARS = 40;
const US_STATE_CODE = '(?:A[KLRZS]|C[AOT]|D[CE]|FL|G[AU]|HI|I[ADLN]|K[SY]|LA|M[ADEINOPST]|N[CDEHJMVY]|O[HKR]|P[AR]|RI|S[CD]|T[NX]|UT|V[AIT]|W[AIVY])';
// A state written out is as good as its code (bug review R1: "San Francisco, California 94102").
const US_STATE_NAME =
  '(?:Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|District of Columbia|Florida|Georgia|Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming)';
const US_STATE = `(?:${US_STATE_CODE}|${US_STATE_NAME})`;
// The Royal Mail's format, as written on mail (capitals and the space); personal-data.ts reads it the same way.
const UK_POSTCODE = '(?:GIR 0AA|[A-PR-UWYZ](?:[0-9]{1,2}|[A-HK-Y][0-9]{1,2}|[0-9][A-HJKPSTUW]|[A-HK-Y][0-9][ABEHMNPRV-Y]) [0-9][ABD-HJLNP-UW-Z]{2})';
const EN_POSTCODE = new RegExp(String.raw`(?<![\p{L}\p{N}])(?:${US_STATE}[ \t]+[0-9]{5}(?:-[0-9]{4})?|${UK_POSTCODE})(?![\p{L}\p{N}-])`, 'gu');
// A number and a street before an English postcode, or a PO box: what makes it an address to send something to.
const EN_STREET =
  /\b[0-9]{1,6}[A-Za-z]?[ \t]+(?:[NSEW]\.?[ \t]+)?(?:[A-Z][a-z]+\.?[ \t]+){1,4}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Way|Court|Ct|Place|Pl|Terrace|Parkway|Pkwy|Highway|Hwy|Square|Sq|Close|Crescent|Gardens|Mews|Row|Walk|Plaza)\b|\bP\.?[ \t]?O\.?[ \t]?Box[ \t]+[0-9]+/;
// An ask to send something somewhere: the verb, and "to" after it ("mail your old card … to XYZ Center, 1200 Market St").
const EN_SEND_VERB = /\b(?:mail|send|post|ship|return|forward|deliver|courier)\b/i;
const EN_TO = /\bto\b/i;
// How far before an English postcode its street and the ask are looked for: an address and the sentence that leads
// to it, not the paragraphs before (a blank line ends it too).
const EN_ADDRESS_LOOKBACK = 300;
// What the knowledge or the customer's mail vouches with, anywhere: a 7-digit Japanese postcode (with its dash or
// without, or one space for it) after 〒 or 郵便番号, before a prefecture, or standing alone (bug review R1: no letter, digit or dash before
// it, no digit or dash after, or an id "A1600023" or a phone number "0120-160-0023" vouched for 〒160-0023); a ZIP
// only after its state (any five digits, a port 50443, vouched for one); a UK postcode.
const POSTCODE_KEYS = new RegExp(
  String.raw`(?:〒|郵便番号(?:[ \t　]*[:：])?)[ \t　]*[0-9]{3}(?:${POSTAL_DASH}|[ 　])?[0-9]{4}(?![\p{N}]|${POSTAL_DASH})` +
    String.raw`|(?<![\p{Script=Latin}\p{N}]|${POSTAL_DASH})[0-9]{3}${POSTAL_DASH}?[0-9]{4}(?![\p{N}]|${POSTAL_DASH})(?=[ \t　、,]{0,3}${PREFECTURE})` +
    String.raw`|(?<![\p{L}\p{N}]|${POSTAL_DASH})[0-9]{3}${POSTAL_DASH}?[0-9]{4}(?![\p{N}]|${POSTAL_DASH})` +
    String.raw`|(?<![\p{L}\p{N}])${US_STATE}[ \t]+[0-9]{5}(?![\p{N}])` +
    String.raw`|(?<![A-Za-z0-9])${UK_POSTCODE}(?![A-Za-z0-9])`,
  'gu',
);
// How a postal finding is written, read again alone for the park reason: before the payment kinds, which read a bare
// NNN-NNNN as an account's number line (review R3a, s48). A bare NNNNNNN is no postal finding, so it stays one;
// NNNNNNN with its prefecture is (session 49).
const POSTAL_WRITTEN = new RegExp(
  String.raw`^(?:(?:〒|郵便番号)[^]*|[0-9]{3}${POSTAL_DASH}[0-9]{4}|[0-9]{7}[ \t　、,]{0,3}${PREFECTURE}|${JA_ROMANISED_PLACE},?[ \t]+〒?[0-9]{3}${POSTAL_DASH}?[0-9]{4}|${US_STATE}[ \t]+[0-9]{5}(?:-[0-9]{4})?|${UK_POSTCODE})$`,
  'iu',
);

/** A postcode as {@link postalAddressesIn} and {@link postcodeKeysIn} compare it: `jp:1600023`, `zip:94102`, `uk:SW1A2AA`. */
function postcodeKey(postcode: string): string {
  const digits = postcode.replace(/[^0-9]/g, '');
  if (/[A-Z]/.test(postcode.replace(/^〒|^郵便番号/, ''))) {
    const zip = /[0-9]{5}/.exec(postcode);
    return zip ? `zip:${zip[0]}` : `uk:${postcode.replace(/ /g, '')}`;
  }
  return digits.length === 5 ? `zip:${digits}` : `jp:${digits}`;
}

/** The postal addresses of `text` (read by checkedText), each by its postcode: where it is and its key. */
function postalAddressesIn(text: string): Array<{ key: string; start: number; end: number }> {
  const found: Array<{ key: string; start: number; end: number }> = [];
  if (!/[0-9]/.test(text)) return found;
  if (/[0-9]{3}/.test(text)) {
    for (const m of text.matchAll(JA_POSTCODE)) found.push({ key: postcodeKey(m[0]), start: m.index, end: m.index + m[0].length });
    const marked = found.map((f): [number, number] => [f.start, f.end]);
    for (const m of text.matchAll(JA_BARE_POSTCODE)) {
      const end = m.index + m[0].length;
      // After 〒 or 郵便番号 it is read above already.
      if (overlapsAny(marked, m.index, end)) continue;
      const head = text.slice(Math.max(0, m.index - JA_SEND_AROUND_CHARS), m.index);
      const sentenceHead = head.slice(Math.max(head.lastIndexOf('。'), head.lastIndexOf('！'), head.lastIndexOf('？'), head.lastIndexOf('\n')) + 1);
      const clauseHead = sentenceHead.slice(Math.max(sentenceHead.lastIndexOf('、'), sentenceHead.lastIndexOf(','), sentenceHead.length - JA_LABEL_BEFORE_CHARS) + 1);
      const tail = text.slice(end, end + JA_SEND_AROUND_CHARS).split(/[。！？\n]/, 1)[0]!;
      // Opening a line, the digits head an address block that the line before asks to send something to ("下記へ郵送して
      // ください。\n1500002 東京都…", bug review B1 of session 49); an ask, not a word of sending alone (返品を承りました).
      const lineBefore = /^[ \t　]*$/.test(sentenceHead) && /\n[ \t　]*$/.test(head) ? head.trimEnd().split('\n').pop()! : '';
      if (JA_NUMBER_LABEL.test(clauseHead) || !(JA_SEND_THERE.test(sentenceHead + tail) || JA_SEND_ASK.test(lineBefore))) continue;
      // Named with its prefecture, so that the park reason reads it as a postal address (POSTAL_WRITTEN).
      const prefecture = PREFECTURE_AHEAD.exec(text.slice(end, end + 8))!;
      found.push({ key: `jp:${m[0]}`, start: m.index, end: end + prefecture[0].length });
    }
    for (const m of text.matchAll(JA_ROMANISED_POSTCODE)) {
      const end = m.index + m[0].length;
      if (
        ROMANISED_WITHOUT_DASH.test(m[0]) &&
        !asksToSendTo(text, m.index) &&
        (NUMBER_WORD_BEFORE.test(text.slice(Math.max(0, m.index - NUMBER_WORD_BEFORE_CHARS), m.index)) ||
          !(
            COMMA_BEFORE.test(text.slice(Math.max(0, m.index - 4), m.index)) ||
            (ADDRESS_ENDS_AFTER.test(text.slice(end, end + 12)) && ADDRESS_PART_BEFORE.test(text.slice(Math.max(0, m.index - ADDRESS_PART_BEFORE_CHARS), m.index)))
          ))
      ) {
        continue;
      }
      found.push({ key: `jp:${m[0].replace(/[^0-9]/g, '')}`, start: m.index, end });
    }
  }
  // A state written out ends in a small letter (California 94102).
  if (/[A-Za-z][A-Z0-9]? ?[0-9]/.test(text)) {
    for (const m of text.matchAll(EN_POSTCODE)) {
      if (!asksToSendTo(text, m.index) || !EN_STREET.test(paragraphBefore(text, m.index))) continue;
      found.push({ key: postcodeKey(m[0].replace(/-[0-9]{4}$/, '')), start: m.index, end: m.index + m[0].length });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The paragraph of `text` before `at`, at most {@link EN_ADDRESS_LOOKBACK} characters. */
function paragraphBefore(text: string, at: number): string {
  return text.slice(Math.max(0, at - EN_ADDRESS_LOOKBACK), at).split(/\n[ \t]*\n/).pop() ?? '';
}

/** Whether the paragraph before `at` asks to send something to what stands there: a verb to send, then "to". */
function asksToSendTo(text: string, at: number): boolean {
  const paragraph = paragraphBefore(text, at);
  const verb = EN_SEND_VERB.exec(paragraph);
  return verb !== null && EN_TO.test(paragraph.slice(verb.index + verb[0].length));
}

/** Every postcode `text` (read by checkedText) writes, as {@link postcodeKey} keys: what vouches for a postal finding. */
function postcodeKeysIn(text: string): string[] {
  return [...text.matchAll(POSTCODE_KEYS)].map((m) => (/[0-9]{5}/.test(m[0]) || !/[A-Z]/.test(m[0]) ? postcodeKey(m[0]) : `uk:${m[0].replace(/ /g, '')}`));
}

/**
 * The park reason for {@link foreignLinks}' findings in the answer, or, with `where`, in another part of the reply
 * (`the subject, which …`).
 */
export function foreignLinksReason(links: readonly string[], where?: string): string {
  const subject = where ?? 'the answer';
  const knowledge = where ? 'the knowledge the agent found' : 'the knowledge it found';
  // Each finding's kind is read again from how it is written (the check names a detail with its label).
  // A postal address is named apart from the links and numbers: its postcode alone in a list of them says little.
  const kinds = links.map((l) => (POSTAL_WRITTEN.test(checkedText(l).text) ? 'postal' : paymentFindingKind(l)));
  const of = (kind: 'detail' | 'ask' | 'postal' | undefined) => links.filter((_l, i) => kinds[i] === kind);
  const parts: string[] = [];
  const postal = of('postal');
  const plain = of(undefined);
  if (plain.length > 0) parts.push(`${subject} contains links, addresses or phone numbers that are neither in ${knowledge} nor trusted (TRUSTED_LINK_DOMAINS): ${namedIn(plain)}`);
  const details = of('detail');
  if (details.length > 0) {
    parts.push(`${subject} contains payment details or contact handles (bank accounts, IBAN, SWIFT/BIC, crypto addresses, chat, payment or remote-access IDs) that are not in ${knowledge}: ${namedIn(details)}`);
  }
  if (postal.length > 0) parts.push(`${subject} contains postal addresses (by their postcodes) that are neither in ${knowledge} nor in the customer's mail: ${namedIn(postal)}`);
  const asks = of('ask');
  if (asks.length > 0) parts.push(`${subject} asks the customer to buy gift cards, or to send a card's code that ${knowledge} does not ask for: ${namedIn(asks)}`);
  return parts.join('; and ');
}

/** The first {@link NAMED_IN_REASON} of `items`, and how many more. */
function namedIn(items: readonly string[]): string {
  const more = items.length > NAMED_IN_REASON ? ` and ${items.length - NAMED_IN_REASON} more` : '';
  return `${items.slice(0, NAMED_IN_REASON).join(', ')}${more}`;
}

// What each pass needs to find anything, tested first: a draft is read whole before every reply, and the passes'
// Unicode patterns cost far more than these tests. A scheme link holds `//` or `www.`, an address `@`; a bare domain
// (the only links read from linkify-it) a `.` right before its top-level domain, which starts with a letter.
const MAY_HOLD_SCHEME_LINK = /\/\/|www\./i;
const MAY_HOLD_BARE_LINK = /\.\p{L}|@/u;
// No link or address holds a space or a control character, and each pattern reads such a character before or after
// one as it reads the start or end of the text: a pass may read only the runs between them that can hold a match.
const NOT_IN_A_LINK = /[\p{Z}\p{Cc}]/u;

/** Every link and address of a text, read as a mail client reads it (see the module comment). */
function linksAndAddressesIn(original: string): Found[] {
  const { text: read, origins } = readable(original);
  const span = (start: number, end: number) => ({ start: origins.from(start, read.length), end: origins.to(end - 1, read.length) });
  const found: Found[] = [];
  // Each pass reads what the ones before left: a link's user info is no address, an address's domain no bare domain.
  // What a pass takes is blanked once after it, not match by match: a subject of 75,000 links is one pass, not 75,000
  // copies of 600 KB (a minute and a half with the event loop blocked).
  // Defanged links first: `https://example[.]com` would otherwise be read as a link to the host `example`. Keyed by
  // how they are written (as read: NFKC, any case), so that the knowledge's own warning (「偽サイト xyz-help[.]com に
  // ご注意ください」) vouches for a draft repeating it (bug review 46a), and vouched for by the plain link they stand
  // for too ({@link Found.defanged}). Never the other way: no host, so a knowledge's defanged link, which no one can
  // follow as written, vouches for no plain link a reader can.
  const defanged = MAY_BE_DEFANGED.test(read) ? defangedLinkRanges(read).filter(([start, end]) => defangedLink(read.slice(start, end)) && !inLinksPath(read, start)) : [];
  for (const [start, end] of defanged) {
    const where = span(start, end);
    const written = read.slice(start, end).toLowerCase();
    const plain = refanged(written);
    const link = linkFound(original, where, /^[a-z][a-z0-9+.-]*:\/\//.test(plain) ? plain : `http://${plain}`);
    const writtenHost = written.replace(DEFANGED_SCHEME, '').split(/[/?#]/, 1)[0]!;
    found.push({ ...where, written: original.slice(where.start, where.end), kind: 'link', key: `defanged:${written}`, host: '', hostOnly: false, defanged: { plainKey: link.key, plainHost: link.host, writtenHost } });
  }
  const text = blanked(read, defanged);
  const links: Array<[number, number]> = [];
  if (MAY_HOLD_SCHEME_LINK.test(text)) {
    for (const match of text.matchAll(SCHEME_LINK)) {
      const end = match.index + withoutTrailing(match[0]).length;
      if (end - match.index <= 'www.'.length) continue;
      links.push([match.index, end]);
      const href = text.slice(match.index, end);
      found.push(linkFound(original, span(match.index, end), /^www\./i.test(href) ? `http://${href}` : href));
    }
  }
  const afterLinks = blanked(text, links);
  const addresses = [...matchesAround(afterLinks, '@', ADDRESS)];
  for (const match of addresses) found.push(addressFound(original, span(match.index, match.index + match[0].length), match[0]));
  const rest = blanked(afterLinks, addresses.map((match) => [match.index, match.index + match[0].length]));
  const bare: Array<[number, number]> = [];
  for (const match of bareDomainsIn(rest)) {
    if (match.schema !== '' || PRODUCT_NAMES.has(match.raw) || VERSION.test(match.raw)) continue;
    const host = hostOf(match.raw);
    const rooted = host === match.raw ? rootDotAndPath(rest, match.lastIndex) : '';
    if (rooted === '' && host === match.raw && hostWrittenAsText(host)) continue;
    const hostSpan = span(match.index, match.index + host.length);
    if (JAPANESE_FULL_STOP.test(original.slice(hostSpan.start, hostSpan.end))) continue;
    bare.push([match.index, match.lastIndex + rooted.length]);
    found.push(linkFound(original, span(match.index, match.lastIndex + rooted.length), match.url + rooted));
  }
  if (/[0-9]\.[0-9]/.test(rest)) {
    for (const { start, end, href } of addressLinksIn(blanked(rest, bare))) found.push(linkFound(original, span(start, end), href));
  }
  return found.sort((a, b) => a.start - b.start);
}

// A link's start, up to the end of its host: what a defanged host after it in the same word sits in the path of.
const LINK_BEFORE_PATH = /(?:^|\s)(?:(?:https?|ftp):\/\/|www\.)[^\s/?#]+[/?#]\S*$/iu;
// How far back a defanged host's link is looked for: a real link's path and query are far shorter, and a bound keeps a
// text of many defanged hosts in one long word linear.
const LINK_LOOKBACK = 2048;

/**
 * Whether the defanged range starting at `start` is in the path or query of a link written before it in the same word
 * (`https://good.example/a?x=evil[.]com`): the scheme pass reads that link, and the range is part of it, one finding.
 */
function inLinksPath(text: string, start: number): boolean {
  return LINK_BEFORE_PATH.test(text.slice(Math.max(0, start - LINK_LOOKBACK), start));
}

// A defanged link's scheme (hxxps://, https[:]//), and its dots and colons: what {@link refanged} writes plainly.
const DEFANGED_SCHEME = /^[a-z*_]+(?:\[:\]|\(:\)|:)\/\//i;
const DEFANGED_MARK = /[[({](?:\.|dot)[\])}]|\[:\]|\(:\)/giu;

/** The plain link a defanged one stands for: `hxxps://xyz[.]com/a` is `https://xyz.com/a`. */
function refanged(written: string): string {
  const plain = written.replace(DEFANGED_MARK, (mark) => (mark.includes(':') ? ':' : '.'));
  return plain.replace(/^h(?:xx|\*\*|__)p/i, 'http');
}

/**
 * Whether a defanged range of {@link defangedLinkRanges} is a link: one with a scheme, or a host ending in four octets
 * or a known top-level domain. The scrub reads any word of letters as a top-level domain ("taro[.]yamada" of an
 * address spelt out); a link check reads the hosts a browser opens, as for bare domains.
 */
function defangedLink(written: string): boolean {
  if (/^[a-z*_]+(?:\[:\]|\(:\)|:)\/\//i.test(written)) return true;
  const tld = /([A-Za-z0-9-]+)[^A-Za-z0-9-]*$/.exec(written.split('/', 1)[0]!)?.[1] ?? '';
  return /^[0-9]+$/.test(tld) || KNOWN_TLDS.has(tld.toLowerCase());
}

/** The bare IPv4 addresses of `text` read as links ({@link BARE_IPV4}), but those no lure can be on ({@link NO_LURE_ADDRESS}). */
function addressLinksIn(text: string): Array<{ start: number; end: number; href: string }> {
  const links: Array<{ start: number; end: number; href: string }> = [];
  for (const match of text.matchAll(BARE_IPV4)) {
    const link = withoutTrailing(match[0]);
    const address = /^[0-9.]+/.exec(link)![0];
    const after = link.slice(address.length);
    const start = match.index;
    const end = start + link.length;
    // A path makes it a page; a port alone is how customers name their own servers too (「203.0.113.5:993 に接続できま
    // せん」, ECONNREFUSED 192.0.2.7:993, a proxy's): a link only beside the words that send a reader there.
    const path = /[/?#]/.test(after) && !PREFIX_LENGTH.test(after);
    if (!path) {
      const sent = ADDRESS_LINK_BEFORE.test(text.slice(Math.max(0, start - 32), start)) || ADDRESS_LINK_AFTER.test(text.slice(end, end + 24));
      if (!sent || (after !== '' && !/^:[0-9]+$/.test(after)) || (after === '' && VERSION_SHAPED.test(address))) continue;
    }
    if (NO_LURE_ADDRESS.check(address, 'ipv4')) continue;
    links.push({ start, end, href: `http://${link}` });
  }
  return links;
}

/** The {@link ROOT_DOT_AND_PATH} at `at` in `text`, without trailing sentence punctuation; '' when there is none. */
function rootDotAndPath(text: string, at: number): string {
  if (text.charCodeAt(at) !== 0x2e) return '';
  ROOT_DOT_AND_PATH.lastIndex = at;
  const rooted = ROOT_DOT_AND_PATH.exec(text)?.[0];
  return rooted === undefined ? '' : withoutTrailing(rooted);
}

// Where a bare-domain run ends: a space or a line break. linkify-it reads such a character before or after a link as
// it reads the text's ends, no link holds one, and withoutMarkup's `/` state ends at one too.
const BETWEEN_RUNS = /[\p{Z}\t\n\v\f\r]/u;

/**
 * linkify-it's matches in `text` after {@link withoutMarkup}, with their indexes in `text`, read only in the runs
 * between {@link BETWEEN_RUNS} characters that hold a {@link MAY_HOLD_BARE_LINK} mark: what reading the whole text
 * finds, since a match needs such a mark and stays within its run. linkify-it's pattern holds every IANA TLD, and
 * matching it at every position of a 3 KB draft cost about 0.7 ms; most runs of a draft hold no `.` before a letter.
 */
function* bareDomainsIn(text: string): Generator<Match> {
  const marks = new RegExp(MAY_HOLD_BARE_LINK.source, 'gu');
  for (let mark = marks.exec(text); mark; mark = marks.exec(text)) {
    let start = mark.index;
    while (start > 0 && !BETWEEN_RUNS.test(text.charAt(start - 1))) start--;
    let end = mark.index + mark[0].length;
    while (end < text.length && !BETWEEN_RUNS.test(text.charAt(end))) end++;
    for (const match of linkify.match(withoutMarkup(text.slice(start, end))) ?? []) {
      yield Object.assign(match, { index: start + match.index, lastIndex: start + match.lastIndex });
    }
    marks.lastIndex = end;
  }
}

/**
 * The matches of the global `pattern` in `text`, read only in the runs between {@link NOT_IN_A_LINK} characters
 * that hold `mark`, with their indexes in `text`: what `text.matchAll(pattern)` finds when no match can hold such a
 * character and `pattern` reads one next to a match as it reads the text's ends.
 */
function* matchesAround(text: string, mark: string, pattern: RegExp): Generator<{ index: number; 0: string }> {
  let at = text.indexOf(mark);
  while (at >= 0) {
    let start = at;
    while (start > 0 && !NOT_IN_A_LINK.test(text.charAt(start - 1))) start--;
    let end = at + mark.length;
    while (end < text.length && !NOT_IN_A_LINK.test(text.charAt(end))) end++;
    for (const match of text.slice(start, end).matchAll(pattern)) yield { index: start + match.index, 0: match[0] };
    at = text.indexOf(mark, end);
  }
}

/**
 * `text` with every character inside one of `spans` (`[start, end)`, in any order, overlapping or not) replaced by a
 * space, so that positions stay; built once, in one pass over the text.
 */
function blanked(text: string, spans: ReadonlyArray<readonly [number, number]>): string {
  if (spans.length === 0) return text;
  const ordered = [...spans].sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let done = 0;
  for (const [start, end] of ordered) {
    if (end <= done) continue;
    const from = Math.max(start, done);
    parts.push(text.slice(done, from), ' '.repeat(end - from));
    done = end;
  }
  parts.push(text.slice(done));
  return parts.join('');
}

/** The text with {@link MARKUP} blanked, so that positions stay. */
function withoutMarkup(text: string): string {
  // Where a word holds a `/` before a position: a colon after it is in a path (`xyz.com/a:b`), part of the page.
  const inPath: boolean[] = [];
  let slash = false;
  for (let i = 0; i < text.length; i++) {
    inPath.push(slash);
    const ch = text.charAt(i);
    if (/\s/.test(ch)) slash = false;
    else if (ch === '/') slash = true;
  }
  return text.replace(MARKUP, (markup: string, at: number) => (markup === ':' && inPath[at] ? markup : ' '.repeat(markup.length)));
}

function linkFound(original: string, { start, end }: { start: number; end: number }, href: string): Found {
  const written = original.slice(start, end);
  let url: URL;
  try {
    // A protocol-relative link opens with the page's scheme; in a mail, that is the web's.
    url = new URL(href.startsWith('//') ? `http:${href}` : href);
  } catch {
    return { written, start, end, kind: 'link', key: undefined, host: '', hostOnly: false };
  }
  // The WHATWG parser lower-cases the host and writes it in punycode, and drops user info from `hostname`.
  const host = url.hostname.replace(/\.$/, '');
  const scheme = url.protocol === 'https:' ? 'http:' : url.protocol;
  const credentials = url.username || url.password ? `${url.username}:${url.password}@` : '';
  const key = `${scheme}//${credentials}${host}${url.port ? `:${url.port}` : ''}${url.pathname}${url.search}${url.hash}`;
  const hostOnly = /^https?:$/.test(url.protocol) && credentials === '' && url.port === '' && url.pathname === '/' && url.search === '' && url.hash === '';
  return { written, start, end, kind: 'link', key, host, hostOnly };
}

function addressFound(original: string, { start, end }: { start: number; end: number }, address: string): Found {
  const key = comparableAddress(address);
  return { written: original.slice(start, end), start, end, kind: 'address', key, host: key ? key.slice(key.lastIndexOf('@') + 1) : '', hostOnly: false };
}

/**
 * The text as links are looked for in it: NFKC, and a space between Japanese and ASCII written against it (see
 * {@link CJK}), with where each of its code units comes from in the original ({@link Origins}), so a link is named
 * and cut out as the original writes it.
 */
function readable(original: string): { text: string; origins: Origins } {
  const origins = new Origins(original.length);
  // The text is the original's runs that fold to themselves, copied as slices, with a space or a folded character
  // between them, not built character by character: that and two numbers kept per character were most of the check's
  // time on a two-topic draft.
  const parts: string[] = [];
  let copiedTo = 0;
  const put = (i: number, what: string, resume: number) => {
    parts.push(original.slice(copiedTo, i), what);
    copiedTo = resume;
  };
  const spaceBefore = (i: number) => {
    put(i, ' ', i);
    origins.block(i, 1, i);
  };
  // The last code unit of the text so far, -1 while there is none.
  let previous = -1;
  const hostRuns = newHostRuns();
  for (let i = 0; i < original.length; ) {
    const unit = original.charCodeAt(i);
    // ASCII, most of a link and much of a draft, stays as it is and takes a space only after what is not ASCII.
    if (unit < 0x80) {
      if (previous >= 0x80 && breaksBetween(previous, unit)) spaceBefore(i);
      previous = unit;
      i++;
      continue;
    }
    // An ideographic full stop between a host's labels is its dot ({@link hostDotAt}).
    if ((unit === 0x3002 || unit === 0xff61) && hostDotAt(original, i, previous, hostRuns)) {
      put(i, '.', i + 1);
      origins.block(i, 1, i + 1);
      previous = 0x2e;
      i++;
      continue;
    }
    const width = isHighSurrogate(unit) && isLowSurrogate(original.charCodeAt(i + 1)) ? 2 : 1;
    if (width === 1 && foldsToItself(unit)) {
      if (previous !== -1 && breaksBetween(previous, unit)) spaceBefore(i);
      previous = unit;
      i++;
      continue;
    }
    const folded = nfkc(original.slice(i, i + width));
    if (previous !== -1 && folded.length > 0 && breaksBetween(previous, folded.charCodeAt(0))) spaceBefore(i);
    put(i, folded, i + width);
    origins.block(i, folded.length, i + width);
    if (folded.length > 0) previous = folded.charCodeAt(folded.length - 1);
    i += width;
  }
  const text = parts.length === 0 ? original : parts.join('') + original.slice(copiedTo);
  return { text, origins };
}

// Longest host a browser opens (RFC 1035): a run of labels longer than this after an ideographic full stop is text.
const MAX_HOST_CHARS = 253;

/**
 * Whether the ideographic full stop (U+3002, or U+FF61, half-width) at `at` in `original` is a host's dot, as browsers
 * read it: ASCII letters, digits or a hyphen right before it (`previous`, the text's last code unit so far), and after
 * it labels of them (full-width too) joined by dots or more such stops, the last a known top-level domain. A
 * capitalised word after it is the next sentence ("Settings。Click OK", "Windows。Next"), and an ASCII word before
 * it is prose too when it is written otherwise than the labels (Mac。com, OK。app, E-1001。support; bug review 46a):
 * without a path, port or query after the host, all its letters, before the stop and after, must be written in one
 * case, as hosts are. The run of labels after a stop is read once for all the stops in it (`runs`), and the labels
 * before its first stop with it, so a text of many stops stays linear.
 */
function hostDotAt(original: string, at: number, previous: number, runs: HostRuns): boolean {
  if (!isHostUnit(previous)) return false;
  if (!(at < runs.end)) readHostRun(original, at, runs);
  const from = at + 1;
  const length = runs.hostEnd - from;
  // Empty labels: the stop starts a run of stops, or two stops stand together after it.
  if (length <= 0 || length > MAX_HOST_CHARS || runs.lastDoubleDot >= from || !isHostUnit(hostUnit(original.charCodeAt(from)))) return false;
  return runs.knownTld && (runs.linkAfter || !((runs.capitalBefore || runs.lastCapital >= 0) && (runs.smallBefore || runs.lastSmall >= 0)));
}

/** What {@link hostDotAt} knows of the run of host labels and dots after an ideographic full stop. */
interface HostRuns {
  /** Where the run ends: its first unit that is neither a label's nor a dot. */
  end: number;
  /** Where its host ends: without its trailing dots. */
  hostEnd: number;
  /** Whether its last label is a known top-level domain. */
  knownTld: boolean;
  /** Whether a path, port or query follows the host. */
  linkAfter: boolean;
  /** The last capital letter in the host, -1 when none. */
  lastCapital: number;
  /** The last small letter in the host, -1 when none. */
  lastSmall: number;
  /** Whether the labels before the run's first stop hold a capital letter. */
  capitalBefore: boolean;
  /** Whether they hold a small letter. */
  smallBefore: boolean;
  /** The second of the last two dots written together, -1 when none. */
  lastDoubleDot: number;
}

function newHostRuns(): HostRuns {
  return { end: -1, hostEnd: -1, knownTld: false, linkAfter: false, lastCapital: -1, lastSmall: -1, capitalBefore: false, smallBefore: false, lastDoubleDot: -1 };
}

/** Reads into `runs` the run of host labels and dots that starts after the stop at `at`. */
function readHostRun(original: string, at: number, runs: HostRuns): void {
  let hostEnd = at + 1;
  let lastCapital = -1;
  let lastSmall = -1;
  let lastDoubleDot = -1;
  let dotBefore = true;
  let i = at + 1;
  for (; i < original.length; i++) {
    const unit = hostUnit(original.charCodeAt(i));
    if (isHostUnit(unit)) {
      if (unit >= 0x41 && unit <= 0x5a) lastCapital = i;
      else if (unit >= 0x61 && unit <= 0x7a) lastSmall = i;
      hostEnd = i + 1;
      dotBefore = false;
    } else if (unit === 0x2e || unit === 0x3002 || unit === 0xff61) {
      if (dotBefore && i > at + 1) lastDoubleDot = i;
      dotBefore = true;
    } else break;
  }
  let tldStart = hostEnd;
  while (tldStart > at + 1 && isHostUnit(hostUnit(original.charCodeAt(tldStart - 1)))) tldStart--;
  const tld = [...original.slice(tldStart, hostEnd)].map((ch) => String.fromCharCode(hostUnit(ch.charCodeAt(0)))).join('').toLowerCase();
  // The labels and dots before the stop, as far as a host reaches: a run never starts inside another's, so each
  // character is read back from at most one stop.
  let capitalBefore = false;
  let smallBefore = false;
  for (let j = at - 1; j >= 0 && j >= at - MAX_HOST_CHARS; j--) {
    const unit = hostUnit(original.charCodeAt(j));
    if (unit >= 0x41 && unit <= 0x5a) capitalBefore = true;
    else if (unit >= 0x61 && unit <= 0x7a) smallBefore = true;
    else if (!isHostUnit(unit) && unit !== 0x2e) break;
  }
  Object.assign(runs, {
    end: i,
    hostEnd,
    knownTld: KNOWN_TLDS.has(tld),
    linkAfter: hostEnd === i && /^[/?#:]$/.test(original.charAt(i).normalize('NFKC')),
    lastCapital,
    lastSmall,
    capitalBefore,
    smallBefore,
    lastDoubleDot,
  });
}

/** A code unit with full-width ASCII (U+FF01–U+FF5E) read as ASCII. */
function hostUnit(unit: number): number {
  return unit >= 0xff01 && unit <= 0xff5e ? unit - 0xfee0 : unit;
}

/** Whether a code unit may be in an ASCII host's label: `[A-Za-z0-9-]`. */
function isHostUnit(unit: number): boolean {
  return (unit >= 0x61 && unit <= 0x7a) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x30 && unit <= 0x39) || unit === 0x2d;
}

/**
 * Where each code unit of {@link readable}'s text comes from: the original's `[from, to)`. The text is runs copied
 * from the original unit for unit, between blocks whose every unit comes from one original character (its NFKC form,
 * or both halves of a surrogate pair: `[i, i + width)`) or from none (an inserted space: `[i, i)`). Kept as those
 * segments, not as two numbers per unit: only the few units where a link or an address starts or ends are asked for.
 */
class Origins {
  /** Where each segment starts in the text, in order. */
  private readonly textAt: number[] = [0];
  /** A block's original start; for a run, what its text index exceeds its original index by. */
  private readonly fromOrShift: number[] = [0];
  /** A block's original end; -1 for a run. */
  private readonly toAt: number[] = [-1];
  /** Text index minus original index where the text is a run. */
  private shift = 0;

  constructor(private readonly originalLength: number) {}

  /**
   * `units` code units of the text from the original `[i, resume)` each (a space inserted before original `i`:
   * `resume` is `i`); the text goes on as a run from original `resume`.
   */
  block(i: number, units: number, resume: number): void {
    const at = i + this.shift;
    this.shift += units - (resume - i);
    if (units > 0) this.push(at, i, resume);
    this.push(at + units, this.shift, -1);
  }

  /** Where the original character behind text unit `j` starts; the original's length outside the text. */
  from(j: number, textLength: number): number {
    if (!(j >= 0 && j < textLength)) return this.originalLength;
    const k = this.segmentOf(j);
    return this.toAt[k] === -1 ? j - this.fromOrShift[k]! : this.fromOrShift[k]!;
  }

  /** Where the original character behind text unit `j` ends; the original's length outside the text. */
  to(j: number, textLength: number): number {
    if (!(j >= 0 && j < textLength)) return this.originalLength;
    const k = this.segmentOf(j);
    return this.toAt[k] === -1 ? j - this.fromOrShift[k]! + 1 : this.toAt[k]!;
  }

  private push(textAt: number, fromOrShift: number, to: number): void {
    // A segment that starts where the last one does replaces it: the last one holds no unit.
    const last = this.textAt.length - 1;
    if (this.textAt[last] === textAt) {
      this.fromOrShift[last] = fromOrShift;
      this.toAt[last] = to;
      return;
    }
    this.textAt.push(textAt);
    this.fromOrShift.push(fromOrShift);
    this.toAt.push(to);
  }

  /** The last segment starting at or before `j`. */
  private segmentOf(j: number): number {
    let low = 0;
    let high = this.textAt.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.textAt[middle]! <= j) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

// What one code unit is, worked out the first time it is met and kept: 0 not yet known. Japanese repeats a few
// thousand characters, and a table of every code unit is 64 KB, bounded whatever a text holds.
const UNKNOWN = 0;
const YES = 1;
const NO = 2;
const foldsToItselfByUnit = new Uint8Array(0x10000);
const cjkByUnit = new Uint8Array(0x10000);

/** Whether NFKC leaves the character of this code unit (not half of a surrogate pair) as it is. */
function foldsToItself(unit: number): boolean {
  let known = foldsToItselfByUnit[unit]!;
  if (known === UNKNOWN) {
    const ch = String.fromCharCode(unit);
    known = ch.normalize('NFKC') === ch ? YES : NO;
    foldsToItselfByUnit[unit] = known;
  }
  return known === YES;
}

/** {@link CJK} of one code unit. */
function isCjk(unit: number): boolean {
  let known = cjkByUnit[unit]!;
  if (known === UNKNOWN) {
    known = CJK.test(String.fromCharCode(unit)) ? YES : NO;
    cjkByUnit[unit] = known;
  }
  return known === YES;
}

// NFKC one character at a time keeps the way back to the original, but `normalize` per character is slow on a long
// knowledge text; the characters it changes (and those of two code units) repeat, so their forms are kept. Bounded:
// cleared when full.
const folds = new Map<string, string>();
const FOLDS_KEPT = 20_000;

function nfkc(ch: string): string {
  let folded = folds.get(ch);
  if (folded === undefined) {
    folded = ch.normalize('NFKC');
    if (folds.size >= FOLDS_KEPT) folds.clear();
    folds.set(ch, folded);
  }
  return folded;
}

/** Whether a space goes between the code units `before` and `after` (see {@link CJK}). */
function breaksBetween(before: number, after: number): boolean {
  // Only where ASCII meets what is not (the common case, two of a kind, costs no table look-up).
  const beforeIsAscii = before < 0x80;
  if (beforeIsAscii === after < 0x80) return false;
  if (!beforeIsAscii) return startsAfterCjk(after) && isCjk(before);
  return endsBeforeCjk(before) && !joinsCjk(before) && isCjk(after);
}

/** What takes a space before it after Japanese: `[A-Za-z0-9/]`. */
function startsAfterCjk(unit: number): boolean {
  return (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a) || (unit >= 0x30 && unit <= 0x39) || unit === 0x2f;
}

/** What takes a space after it before Japanese, unless it {@link joinsCjk}: `[!-~]`. */
function endsBeforeCjk(unit: number): boolean {
  return unit >= 0x21 && unit <= 0x7e;
}

/** What stays joined to the Japanese after it, as inside a host (`xyz-サポート.com`) or an address: `[./\-@]`. */
function joinsCjk(unit: number): boolean {
  return unit === 0x2e || unit === 0x2f || unit === 0x2d || unit === 0x40;
}

/** A domain as hosts are compared: NFKC, lower-case, punycode, without leading or trailing dots. */
function asciiDomain(domain: string): string {
  const plain = domain.normalize('NFKC').trim().toLowerCase().replace(/^\.+|\.+$/g, '');
  return domainToASCII(plain) || plain;
}
