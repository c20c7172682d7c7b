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
 * The idempotency key of an inbound mail: sha256 (hex) of its normalised Message-ID, or of the raw bytes when it has
 * none. The same mail fetched twice (IMAP re-sync, a second delivery) therefore gets the same key; two different
 * mails without a Message-ID only collide when they are byte-identical.
 */
export function messageKey(mail: HasMessageId, raw: Buffer): string {
  const hash = createHash('sha256');
  if (mail.messageId) hash.update(mail.messageId, 'utf8');
  else hash.update(raw);
  return hash.digest('hex');
}
