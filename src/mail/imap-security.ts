/**
 * How the IMAP connections (the poller's, the Sent-folder copies') protect the mailbox password: TLS from the start
 * (IMAP_SECURE=true), or STARTTLS on a plain connection. STARTTLS is required before the login: a server that does
 * not offer it (or someone on the path who strips the offer) would otherwise read the password, as the SMTP side
 * refuses too (SMTP_ALLOW_PLAIN_AUTH). IMAP_ALLOW_PLAIN_LOGIN=true lifts that for a trusted local server, and
 * STARTTLS is still used when offered.
 */
import type { Config } from '../config.js';

/** The settings {@link imapTransportSecurity} reads. */
export type ImapSecurityConfig = Pick<Config, 'IMAP_SECURE' | 'IMAP_ALLOW_PLAIN_LOGIN'>;

/** imapflow's `secure` and `doSTARTTLS` options for the configuration (`doSTARTTLS: true` makes STARTTLS a must). */
export function imapTransportSecurity(config: ImapSecurityConfig): { secure: boolean; doSTARTTLS?: true } {
  if (config.IMAP_SECURE) return { secure: true };
  return config.IMAP_ALLOW_PLAIN_LOGIN ? { secure: false } : { secure: false, doSTARTTLS: true };
}

/** True for imapflow's error when a required STARTTLS could not be started (the login was not sent). */
export function isStartTlsRefusal(err: unknown): boolean {
  // imapflow marks every failed upgrade `tlsFailed`; only its refusal ("Server does not support STARTTLS") has no
  // code. A certificate error or injected plaintext (STARTTLS_INJECTION) is no refusal: advising a plain login
  // there would send the password past whoever tampered with the connection.
  if (typeof err !== 'object' || err === null) return false;
  const { tlsFailed, code } = err as { tlsFailed?: unknown; code?: unknown };
  return tlsFailed === true && code === undefined;
}

/** What an operator reads when {@link isStartTlsRefusal}: why, and the two ways out. */
export const STARTTLS_REFUSAL_HINT =
  'did not start TLS (STARTTLS), so the login was not sent in clear; use TLS from the start (IMAP_SECURE=true, usually IMAP_PORT=993), or IMAP_ALLOW_PLAIN_LOGIN=true for a trusted local server';
