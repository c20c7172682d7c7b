/**
 * What `npm run check` tells the admin to change when a server or a setting is not as the roles need it. The lines
 * for a mail server that could not be used live beside the mail code (src/mail/connection-problem.ts), where the
 * poller and the sender say them too; the check adds what only it can find out: a TLS handshake on the side
 * ({@link speaksTlsAtOnce}), the mailboxes the server lists, the missing login settings, Redis's eviction policy and
 * persistence.
 */
import { isIP } from 'node:net';
import tls from 'node:tls';
import type { CheckOutcome } from './check.js';
import { failureLine } from '../runtime/role-status.js';
import { terminalSafe } from './format.js';

export { appPasswordHint, gotNoGreeting, mailConnectionProblem, type MailServerSetting } from '../mail/connection-problem.js';
/** Redis's persistence as the roles judge it at start, in the same words (src/queues/connection.ts). */
export { durabilityProblem } from '../queues/connection.js';

/** How long one server may take to answer before its check fails. */
export const CHECK_TIMEOUT_MS = 15_000;

/** The check's own timeout: the server said nothing the check could judge within {@link CHECK_TIMEOUT_MS}. */
export class NoAnswerInTime extends Error {}

/** `work`, or {@link NoAnswerInTime} naming `what` once {@link CHECK_TIMEOUT_MS} have passed. */
export function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswerInTime(`no answer within ${CHECK_TIMEOUT_MS / 1000} s from ${what}`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** An error's message as one line of a check ({@link failureLine}). */
export const oneLine = (err: unknown): string => failureLine(err instanceof Error ? err.message : String(err));

const CHECK_MARKS: Record<CheckOutcome['status'], string> = { ok: '✓', failed: '✗', warning: '!', skipped: '-' };

/** `text` on one line for a terminal: servers end their messages with a newline or spread them over several. */
function shownOnOneLine(text: string): string {
  return terminalSafe(text).replace(/\s+/g, ' ').trim();
}

/**
 * One check as `npm run check` prints it: mark, what, where, and what is wrong, on one line whatever a server's
 * message holds (a 401's trailing newline split the model server's line in two), with no control character of it.
 */
export function checkLine(outcome: CheckOutcome): string {
  const detail = outcome.detail ? shownOnOneLine(outcome.detail) : '';
  return `${CHECK_MARKS[outcome.status]} ${outcome.what}: ${shownOnOneLine(outcome.where)}${detail ? ` — ${detail}` : ''}`;
}

/** Most mailbox names listed beside a missing one. */
const LISTED_MAILBOXES = 10;

/**
 * When IMAP_MAILBOX names no mailbox of `existing` (the server's LIST), the line naming those that exist, at most
 * {@link LISTED_MAILBOXES}; undefined when it names one (it failed to open for another reason). INBOX is INBOX in any
 * case (RFC 3501); any other name only as spelt.
 */
export function missingMailboxProblem(mailbox: string, existing: readonly string[]): string | undefined {
  const same = (name: string) => name === mailbox || (name.toUpperCase() === 'INBOX' && mailbox.toUpperCase() === 'INBOX');
  if (existing.some(same)) return undefined;
  // The names come from the server: a name with escape sequences must not steer the admin's terminal.
  const shown = existing.slice(0, LISTED_MAILBOXES).map(terminalSafe).join(', ');
  const more = existing.length > LISTED_MAILBOXES ? ` and ${existing.length - LISTED_MAILBOXES} more` : '';
  const has = existing.length > 0 ? `it has ${shown}${more}: set IMAP_MAILBOX to one of them` : 'it lists none';
  return `there is no mailbox ${terminalSafe(mailbox)} on the server; ${has}`;
}

/** The poller's missing login settings, named alone (`imapLoginSetting(config).missing`). */
export function missingLoginSettings(missing: readonly string[]): string {
  const names = missing.length > 1 ? `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}` : (missing[0] ?? '');
  return `${names} ${missing.length > 1 ? 'are' : 'is'} required by the poller`;
}

/**
 * What is wrong with Redis's `maxmemory-policy` as the roles read it at start (`checkRedisSettings`: undefined when
 * neither CONFIG nor INFO tells it), with the fix; undefined for `noeviction`, the one policy under which Redis never
 * deletes queued mail or tickets to make room.
 */
export function evictionPolicyProblem(policy: string | undefined): string | undefined {
  if (policy === 'noeviction') return undefined;
  if (policy === undefined) {
    return 'maxmemory-policy could not be read (CONFIG and INFO refused): make sure it is noeviction, or Redis may delete queued mail and tickets when memory runs short';
  }
  return `maxmemory-policy is ${policy}: when memory runs short Redis deletes keys, queued mail and tickets among them (the roles warn of it at start); set maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction; on a managed Redis, its parameter settings)`;
}

/**
 * Whether `host:port` completes a TLS handshake at once, before any greeting: what a server waiting for TLS from the
 * start (ports 465, 993) does. False on a plain-text answer, an error or after `timeoutMs`. Nothing is sent after the
 * handshake, and the certificate is not judged: whether this machine trusts it is the real connection's question.
 */
export function speaksTlsAtOnce(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    // Verification off: the question is only whether TLS is spoken; no credential goes over this connection.
    const socket = tls.connect({ host, port, rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) });
    const timer = setTimeout(() => settle(false), timeoutMs);
    const settle = (speaks: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(speaks);
    };
    socket.once('secureConnect', () => settle(true));
    socket.once('error', () => settle(false));
  });
}
