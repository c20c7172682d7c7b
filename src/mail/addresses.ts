/**
 * Mail address helpers: pulling the addr-spec out of header values and comparing addresses the way the reply
 * decision needs (case-insensitive, display names ignored, `+tag` ignored only when matching our own addresses, and
 * a dot before the `@` or a run of dots only when telling whether an address is ours).
 */
import { domainToASCII } from 'node:url';
import addressparser from 'nodemailer/lib/addressparser';

/**
 * Answers of a function of one string, kept for the strings asked again: at most `entries` of them (all forgotten
 * when it is full), and none longer than `maxKeyChars`, so that what strangers write (a flood of made-up addresses,
 * a header of a megabyte) cannot grow the memory it holds.
 */
export class StringMemo<V> {
  private readonly kept = new Map<string, V>();

  constructor(
    private readonly entries: number,
    private readonly maxKeyChars: number,
  ) {}

  /** How many answers are kept. */
  get size(): number {
    return this.kept.size;
  }

  /** The answer for `key`: the one kept, or `answer()`'s, kept when `key` is short enough. */
  get(key: string, answer: () => V): V {
    const known = this.kept.get(key);
    if (known !== undefined || this.kept.has(key)) return known as V;
    const value = answer();
    if (key.length <= this.maxKeyChars) {
      if (this.kept.size >= this.entries) this.kept.clear();
      this.kept.set(key, value);
    }
    return value;
  }
}

// One ticket's few addresses are read again and again (the reply decision, the rate limits' keys, the budgets, the
// check of every reply's recipient and of each address in a draft), each time through the address parser. A header
// value is short: one longer than a line of mail (998 characters) is read each time it comes.
const ADDRESSES_KEPT = 2_000;
const ADDRESS_CHARS_KEPT = 998;
const normalisedAddresses = new StringMemo<string | undefined>(ADDRESSES_KEPT, ADDRESS_CHARS_KEPT);
const comparableAddresses = new StringMemo<string | undefined>(ADDRESSES_KEPT, ADDRESS_CHARS_KEPT);

/** One mailbox of an address header. */
export interface MailAddress {
  /** The addr-spec as written by the sender (`local@domain`), trimmed, case kept. */
  address: string;
  /** The display name, '' when there is none. Encoded-words are left to the caller. */
  name: string;
}

/**
 * A header value without its RFC 5322 comments (nested, with `\)` escapes), e.g. `auto-generated (failure)` →
 * `auto-generated `. Quoted strings are respected, so `"a (b)" <x@y>` keeps its display name.
 */
export function stripComments(value: string): string {
  let out = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] ?? '';
    if (ch === '\\') {
      if (depth === 0) out += ch + (value[i + 1] ?? '');
      i++;
    } else if (depth === 0 && ch === '"') {
      quoted = !quoted;
      out += ch;
    } else if (!quoted && ch === '(') {
      depth++;
    } else if (!quoted && ch === ')' && depth > 0) {
      depth--;
    } else if (depth === 0) {
      out += ch;
    }
  }
  return out;
}

// Characters that cannot appear unquoted in an addr-spec; a parser result containing one is debris of broken syntax.
const LOCAL_PART = /^[^\s@<>()[\]\\,;:"]+$/;
// No domain literals (`support@[127.0.0.1]`): a reply to one bypasses DNS and any check made on domain names.
const DOMAIN = /^[^\s@<>()[\]\\,;:".]+(?:\.[^\s@<>()[\]\\,;:".]+)*\.?$/;
// Source routes inside the local part (`support%ours.example@relay`, `host!user`): a relay would forward to the
// embedded address, so a reply could reach an address no check saw.
const ROUTED_LOCAL_PART = /[%!]/;
// A local part quoted as a whole, with nothing inside that would need an escape.
const QUOTED_LOCAL_PART = /^"([^"\\]*)"$/;

/**
 * The address with a quoted local part written without its quotes when what they hold is a plain (dotted) local
 * part: `"hanako."@ezweb.ne.jp` → `hanako.@ezweb.ne.jp`, the address the carrier issued. RFC 5322 wants a dot before
 * the `@` or two dots in a row quoted; senders write such addresses either way, and nodemailer quotes them again when
 * it sends. A quoted local part holding anything else (a space, an `@`, a comma) is returned as it is.
 */
function withoutNeedlessQuotes(address: string): string {
  const at = address.lastIndexOf('@');
  const quoted = at > 0 ? QUOTED_LOCAL_PART.exec(address.slice(0, at)) : null;
  return quoted && isPlainLocalPart(quoted[1]!) ? `${quoted[1]}${address.slice(at)}` : address;
}

/**
 * A local part a reply may go to: no character that needs quoting, no route, and not starting with a dot. A dot
 * before the `@` and two dots in a row are allowed: docomo and au issued such addresses until 2009, their owners
 * still write from them, and rejecting them would drop those customers' mail.
 */
function isPlainLocalPart(local: string): boolean {
  return LOCAL_PART.test(local) && !ROUTED_LOCAL_PART.test(local) && !local.startsWith('.');
}

/**
 * True when `address` is a `local@domain` that a reply can be sent to. Dotless domains are accepted (RFC-valid, and
 * rejecting them would silently drop a customer on an internal host), and so are the legacy Japanese carrier local
 * parts with a dot before the `@` or two dots in a row, bare or quoted (`"hanako."@ezweb.ne.jp`); any other quoted
 * local part, a local part starting with a dot, domain literals and percent-hack or bang routes in the local part
 * are not.
 */
export function isUsableAddress(address: string): boolean {
  const plain = withoutNeedlessQuotes(address);
  const at = plain.lastIndexOf('@');
  if (at <= 0 || at === plain.length - 1) return false;
  return isPlainLocalPart(plain.slice(0, at)) && DOMAIN.test(plain.slice(at + 1));
}

/**
 * Every mailbox in an address header value (`To`, `Cc`, `From`…), groups flattened, comments understood, entries
 * without an address (a bare phrase, `undisclosed-recipients:;`) dropped. A quoted local part that holds a plain one
 * is written without its quotes (addressparser drops them only outside angle brackets), so one mailbox reads the same
 * however the header wrote it. Unusable addresses are kept: callers decide with {@link isUsableAddress}.
 */
export function parseAddressList(value: string | undefined | null): MailAddress[] {
  if (typeof value !== 'string' || value.trim() === '') return [];
  let parsed: Array<{ address: string; name: string }>;
  try {
    parsed = addressparser(value.replace(/\r?\n[ \t]*/g, ' '), { flatten: true });
  } catch {
    // addressparser is total in practice; a throw would mean a header we cannot read at all.
    return [];
  }
  return parsed
    .map((a) => ({ address: withoutNeedlessQuotes((a.address ?? '').trim()), name: (a.name ?? '').trim() }))
    .filter((a) => a.address !== '');
}

/**
 * The addr-spec of the first usable mailbox in a header value, as written: `"Support" <Support@Example.com>` →
 * `Support@Example.com`. Undefined when the value holds no usable address.
 */
export function extractAddress(value: string | undefined | null): string | undefined {
  return parseAddressList(value).find((entry) => isUsableAddress(entry.address))?.address;
}

/**
 * The normalised address of a header value or bare address: display name stripped, trimmed, lower-cased
 * (`"Support" <Support@Example.com>` → `support@example.com`); undefined when no usable address is in it.
 * Lower-casing the local part is technically lossy (RFC 5321 lets it be case-sensitive) but no real mailbox relies
 * on that, and comparisons must not depend on how a client chose to spell it.
 */
export function normaliseAddress(value: string | undefined | null): string | undefined {
  if (typeof value !== 'string') return undefined;
  return normalisedAddresses.get(value, () => extractAddress(value)?.toLowerCase());
}

/**
 * The local part (before the last `@`) of an address, lower-cased, without quotes that hold a plain local part
 * (`"hanako."@ezweb.ne.jp` → `hanako.`, as nodemailer's envelope writes what the ticket holds as `hanako.@…`); the
 * whole value when it has no `@`.
 */
export function localPart(address: string): string {
  const plain = withoutNeedlessQuotes(address.trim());
  const at = plain.lastIndexOf('@');
  return (at < 0 ? plain : plain.slice(0, at)).toLowerCase();
}

/** The domain of an address, lower case, without a trailing dot and in its IDN ASCII form ('' when it has none). */
export function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 0) return '';
  const domain = address.slice(at + 1).trim().toLowerCase().replace(/\.$/, '');
  return domainToASCII(domain) || domain;
}

// Gmail's consumer domains: one mailbox whatever dots its local part is written with, under either name (Google's
// "dots don't matter"). A Google Workspace domain, and every other provider, keeps its dots.
const GMAIL_DOMAINS: ReadonlySet<string> = new Set(['gmail.com', 'googlemail.com']);

/**
 * The form used to compare an address with our own: NFKC-normalised (full-width letters fold), lower-cased, the
 * domain in its IDN ASCII form, and with a `+tag` sub-address removed, so that `Support+Ticket-42@Example.com` and
 * `ｓｕｐｐｏｒｔ@ｅｘａｍｐｌｅ.com` match `support@example.com`; on gmail.com and googlemail.com also without the
 * local part's dots (`alice.smith@googlemail.com` → `alicesmith@gmail.com`), since Gmail delivers those to one
 * mailbox. Only for that comparison: replies still go to the address exactly as the sender wrote it.
 */
export function comparableAddress(value: string): string | undefined {
  return comparableAddresses.get(value, () => comparableAddressOf(value));
}

function comparableAddressOf(value: string): string | undefined {
  // normaliseAddress's answer, not kept apart: the whole comparable form is.
  const normalised = extractAddress(value.normalize('NFKC'))?.toLowerCase().normalize('NFKC').toLowerCase();
  if (!normalised) return undefined;
  const at = normalised.lastIndexOf('@');
  // IDN domains compare in their ASCII (punycode) form, so bücher.example and xn--bcher-kva.example are one; a
  // trailing root dot changes nothing.
  const rawDomain = normalised.slice(at + 1).replace(/\.$/, '');
  const domain = domainToASCII(rawDomain) || rawDomain;
  const local = normalised.slice(0, at);
  const plus = local.indexOf('+');
  // A local part that *starts* with '+' has no base address to fold into, so it stays as is.
  const mailbox = plus > 0 ? local.slice(0, plus) : local;
  return GMAIL_DOMAINS.has(domain) ? `${mailbox.replaceAll('.', '') || mailbox}@gmail.com` : `${mailbox}@${domain}`;
}

/**
 * Whether two header values or addresses name one mailbox: equal as {@link comparableAddress} compares them (display
 * name, case, width, IDN spelling, `+tag` and a Gmail address's dots aside: a sub-address reaches the same owner).
 * False when either has no usable address.
 */
export function isSameMailbox(a: string, b: string): boolean {
  const first = comparableAddress(a);
  return first !== undefined && first === comparableAddress(b);
}

/**
 * The form used to tell whether an address is one of ours: {@link comparableAddress}'s, with the local part's
 * trailing dots dropped and each run of dots written as one (`support.@…`, `"support."@…`, `support..@…` →
 * `support@…`; `sup..port@…` → `sup.port@…`). Those legacy carrier spellings are usable, so on a shared mail domain
 * anyone may hold `xyz-support.@outlook.jp`, and a mail from it is ours or a spoof of ours, never a customer to
 * answer. Not {@link comparableAddress} itself: a carrier issued `hanako.@` and `hanako@` to two people, whom the
 * limits, the budgets and erasure keep apart.
 */
function ownComparableAddress(value: string): string | undefined {
  const comparable = comparableAddress(value);
  if (comparable === undefined) return undefined;
  const at = comparable.lastIndexOf('@');
  const local = comparable.slice(0, at).replace(/\.{2,}/g, '.').replace(/\.$/, '');
  // A usable local part never starts with a dot, so something is left.
  return `${local}${comparable.slice(at)}`;
}

/**
 * A matcher for "is this one of our addresses?" over MAIL_FROM and SUPPORT_ADDRESSES style values (bare addresses or
 * `Name <addr>`); entries without a usable address are ignored. Compared as {@link ownComparableAddress} does.
 */
export function ownAddressMatcher(ourAddresses: readonly string[]): (address: string | undefined) => boolean {
  const ours = new Set(ourAddresses.map(ownComparableAddress).filter((a): a is string => a !== undefined));
  return (address) => {
    if (!address) return false;
    const comparable = ownComparableAddress(address);
    return comparable !== undefined && ours.has(comparable);
  };
}

/** True when `address` is one of `ourAddresses` (case, display name, `+tag` and a dot before the `@` ignored). */
export function isOwnAddress(address: string | undefined, ourAddresses: readonly string[]): boolean {
  return ownAddressMatcher(ourAddresses)(address);
}
