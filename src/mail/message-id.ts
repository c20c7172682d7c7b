/**
 * Message-ID handling: one canonical `<left@right>` spelling so that threading and de-duplication compare equal
 * values, and {@link messageKey}, the idempotency key of an inbound mail.
 */
import { createHash } from 'node:crypto';
import { stripComments } from './addresses.js';

/** The part of an inbound mail {@link messageKey} needs (structurally satisfied by `InboundMail`). */
export interface HasMessageId {
  /** Normalised Message-ID (`<...>`), or undefined when the mail has none. */
  messageId?: string | undefined;
}

/**
 * The canonical `<id>` form of a Message-ID-like header value, or undefined when nothing id-like is in it.
 *
 * Lenient on purpose, because it also keys de-duplication: takes the first `<...>` token (or, for clients that omit
 * the brackets, the first bare token), drops comments and the folding whitespace the obsolete syntax allows
 * (`<1234 @ local(blah) .machine .example>` → `<1234@local.machine.example>`), keeps case (the left part is
 * case-sensitive). Use {@link isValidMessageId} where only well-formed ids are wanted.
 */
export function normaliseMessageId(value: string | undefined | null): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = stripComments(value.replace(/\r?\n/g, ' '));
  const bracketed = /<([^<>]*)>/.exec(text);
  const inner = bracketed ? bracketed[1] ?? '' : (text.trim().split(/\s+/)[0] ?? '');
  // Stray brackets of a broken header (`>`, `<<`, `<abc@host`) are no part of the id; brackets alone are no id.
  const compact = inner.replace(/[\s<>]+/g, '');
  return compact ? `<${compact}>` : undefined;
}

// atext of RFC 5322 plus dots; non-ASCII allowed because RFC 6532 permits UTF-8 in ids.
const ID_LEFT = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~.\u0080-\uFFFF]+$/;
const ID_RIGHT = /^(?:[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~.\u0080-\uFFFF]+|\[[^[\]\\\s]*\])$/;

/** True for a normalised id of the form `<left@right>` with exactly one `@` and only characters RFC 5322 allows. */
export function isValidMessageId(id: string): boolean {
  const m = /^<([^<>@]+)@([^<>@]+)>$/.exec(id);
  if (!m) return false;
  const [, left = '', right = ''] = m;
  return ID_LEFT.test(left) && ID_RIGHT.test(right) && !left.startsWith('.') && !left.endsWith('.');
}

/**
 * Every well-formed msg-id in a References / In-Reply-To style value, normalised, first occurrence kept, in order.
 * Tokens that are not `<left@right>` (no `@`, two `@`, illegal characters, empty) are dropped.
 */
export function parseMessageIdList(value: string | undefined | null): string[] {
  if (typeof value !== 'string') return [];
  const text = stripComments(value.replace(/\r?\n/g, ' '));
  const seen = new Set<string>();
  for (const match of text.matchAll(/<([^<>]*)>/g)) {
    const id = normaliseMessageId(`<${match[1] ?? ''}>`);
    if (id && isValidMessageId(id)) seen.add(id);
  }
  return [...seen];
}

/**
 * The idempotency key of an inbound mail: sha256 (hex) of its normalised Message-ID or, when it has none, of what its
 * sender wrote ({@link authoredPart}: the author's header fields and the body, without the trace fields each hop and
 * each delivery adds). The same mail fetched twice (IMAP re-sync, a second delivery to another of our addresses)
 * therefore gets the same key; two different mails without a Message-ID only collide when their author's fields and
 * bodies are identical.
 */
export function messageKey(mail: HasMessageId, raw: Buffer): string {
  const hash = createHash('sha256');
  if (mail.messageId) hash.update(mail.messageId, 'utf8');
  else hash.update(authoredPart(raw));
  return hash.digest('hex');
}

/** The key {@link messageKey} gave mail without a Message-ID before it left out trace fields: the raw bytes' hash. */
export function legacyRawKey(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex');
}

// Header fields the author writes. Everything else (Received, Return-Path, Delivered-To, X-Original-To, spam and
// virus verdicts, Authentication-Results, ARC, a provider's X- fields) is added on the way and differs by delivery.
const AUTHORED_FIELDS = new Set(['from', 'sender', 'reply-to', 'to', 'cc', 'date', 'subject', 'in-reply-to', 'references', 'mime-version', 'content-type', 'content-transfer-encoding']);

/** The author's header fields (unfolded, in their order) and the body, as bytes. */
function authoredPart(raw: Buffer): Buffer {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  const ends = [crlf >= 0 ? [crlf, crlf + 4] : undefined, lf >= 0 ? [lf, lf + 2] : undefined].filter((e): e is number[] => e !== undefined);
  const [headEnd, bodyStart] = ends.sort((a, b) => a[0]! - b[0]!)[0] ?? [raw.length, raw.length];
  const fields = raw
    .subarray(0, headEnd)
    .toString('latin1')
    .replace(/\r?\n[ \t]+/g, ' ')
    .split(/\r?\n/)
    .filter((line) => AUTHORED_FIELDS.has(line.slice(0, Math.max(0, line.indexOf(':'))).trim().toLowerCase()));
  // Not a mail as written by a person (no author's field at all): only its bytes tell it from another.
  if (fields.length === 0) return raw;
  return Buffer.concat([Buffer.from(fields.join('\n'), 'latin1'), Buffer.from('\n\n'), raw.subarray(bodyStart)]);
}
