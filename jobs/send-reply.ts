/**
 * `send-reply` (queue `outbound`): mails a ticket's drafted or approved reply, exactly once.
 *
 * How "exactly once" is kept:
 * 1. Our Message-ID is generated, stored on the ticket (`outbound.messageId`) in the same atomic write as the claim
 *    below, and linked in the thread index before anything is sent, so every retry sends the same Message-ID and a
 *    follow-up naming our reply finds its conversation even if the process dies right after the server accepted it.
 * 2. The ticket moves to `sending` (a compare-and-set claim) before the SMTP transaction. A job that finds its ticket
 *    already `sending` cannot know whether the server accepted the mail before the process died, so it parks the
 *    ticket for a person to confirm instead of risking a second copy.
 * 3. When the server did not accept the mail (SMTP 4xx, connection failure) the ticket goes back to where it was
 *    (`drafted` or `approved`) and the job throws, so BullMQ retries with backoff up to SENDER_ATTEMPTS. When the
 *    server refused it for good (5xx) the ticket is parked with the server's words and the job fails without retry.
 *    When the connection failed after the whole message was sent and before the server answered, the server may
 *    have it: the ticket is parked as "may already have been sent", as in 2.
 * 4. On acceptance, when replies are copied to the Sent folder, the bytes that went out are kept for the copy first;
 *    then the ticket becomes `sent` with the server's response.
 * 5. Then the copy is queued as a job of its own (`copy-to-sent`). A failure there is logged and nothing more: the
 *    reply is out, and this job must not send it again. A process that dies between 4 and 5 leaves the bytes
 *    behind: the job's re-run (BullMQ hands a stalled job on) finds the ticket `sent`, no copy recorded and the bytes
 *    still kept, and queues the copy, sending nothing (see {@link SentCopySteps}).
 */
import { UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../src/config.js';
import { isSyntheticMessageId } from '../src/mail/ingest.js';
import { createLogger, type Logger } from '../src/logger.js';
import { extractAddress, localPart } from '../src/mail/addresses.js';
import { composeReply, newMessageId, type OriginalMail } from '../src/mail/compose-reply.js';
import { SmtpSendError, classifySmtpError, replyRecipientProblem, type SmtpTransport } from '../src/mail/smtp-transport.js';
import { produce } from '../src/queues/connection.js';
import type { SendReplyData } from '../src/queues/payloads.js';
import { quoteOmission, type QuoteConfig } from '../src/tickets/quote-omission.js';
import { normalizeMessageId, type OutboundInfo, type Ticket } from '../src/tickets/ticket.js';
import { TicketConflictError, type TicketStore } from '../src/tickets/ticket-store.js';
import { MAYBE_SENT_REASON, SMTPUTF8_REASON, SMTP_REFUSED_REASON, approverOf } from '../src/tickets/review.js';

export type { SendReplyData };

/** Actor name of the history entries this job writes. */
export const SENDER_ACTOR = 'sender';


/** The configuration the sender reads: MAIL_FROM, and what decides whether a reply quotes the customer's mail. */
export type SenderConfig = Pick<Config, 'MAIL_FROM'> & QuoteConfig;

/** What the handler runs against. */
export interface SendReplyDeps {
  config: SenderConfig;
  store: TicketStore;
  /** Producer connection of the store, so Redis outages surface as `RedisUnavailableError`. */
  redis: Redis;
  smtp: Pick<SmtpTransport, 'send'>;
  /** The steps of the Sent-folder copy of a reply that went out; absent when copies are off. */
  sentCopy?: SentCopySteps;
  logger?: Logger;
}

/**
 * The Sent-folder copy's steps, split around the `sent` transition so that no crash can lose the copy unseen: the bytes
 * are kept before the ticket says `sent`, so whoever finds it `sent` later can still queue the copy.
 */
export interface SentCopySteps {
  /**
   * Keeps the bytes of a reply the SMTP server accepted, before the ticket is `sent`. False when nothing was kept:
   * the ticket was erased on request, and no copy is to be made of it.
   */
  keep(ticketId: string, raw: Buffer): Promise<boolean>;
  /** Queues the `copy-to-sent` job of the ticket as `sent`; its id is fixed per sent ticket, so queueing it again adds nothing. */
  queue(sent: Ticket): Promise<void>;
  /** Whether the bytes of the ticket's sent reply are still kept: its copy is not filed yet (nor were they erased or expired). */
  pending(ticketId: string): Promise<boolean>;
}

/** The attempt being run, from the BullMQ job. */
export interface SendAttemptInfo {
  attemptsMade: number;
  attempts: number;
  /** BullMQ job id, carried on every log line with the ticket id. */
  jobId?: string;
}

/** What one run did, returned as the job's result. */
export type SendOutcome =
  | { outcome: 'sent'; ticketId: string; messageId: string; response: string }
  | { outcome: 'parked'; ticketId: string; reason: string }
  | { outcome: 'skipped'; ticketId: string; state: Ticket['state'] };

/** Runs the `send-reply` job for `data.ticketId`; see the module comment. */
export async function sendReply(data: SendReplyData, deps: SendReplyDeps, attempt: SendAttemptInfo): Promise<SendOutcome> {
  const { store } = deps;
  const log = (deps.logger ?? createLogger('send-reply')).child({ ticketId: data.ticketId, jobId: attempt.jobId, attempt: attempt.attemptsMade + 1 });
  if (!deps.config.MAIL_FROM) throw new UnrecoverableError('MAIL_FROM is not set; the sender cannot send replies');
  const ticket = await produce(deps.redis, () => store.get(data.ticketId, { agentResult: false }));
  if (!ticket) throw new UnrecoverableError(`ticket ${data.ticketId} does not exist`);

  if (ticket.state === 'sending') {
    await park(store, ticket.id, 'sending', MAYBE_SENT_REASON, log);
    return { outcome: 'parked', ticketId: ticket.id, reason: MAYBE_SENT_REASON };
  }
  if (ticket.state === 'sent' && deps.sentCopy && !ticket.outbound?.sentCopy && (await deps.sentCopy.pending(ticket.id))) {
    // A run that sent this reply may have died before queueing its copy (step 5), and nothing else would queue it.
    // Queueing it again is harmless: the job id is the same, and the copy searches Sent before appending.
    await deps.sentCopy.queue(ticket);
    log.info({ messageId: ticket.outbound?.messageId }, 'Reply already sent, its Sent-folder copy not filed yet: copy job queued unless it already was; nothing sent');
    return { outcome: 'skipped', ticketId: ticket.id, state: ticket.state };
  }
  if (ticket.state !== 'drafted' && ticket.state !== 'approved') {
    // Sent already, or a person took the ticket over: this job (a duplicate or an old round) has nothing to do.
    log.info({ state: ticket.state }, 'Ticket is not waiting to be sent; nothing to do');
    return { outcome: 'skipped', ticketId: ticket.id, state: ticket.state };
  }
  const from = ticket.state;
  if (!ticket.draft?.trim()) {
    const reason = 'nothing to send: the ticket has no draft';
    await park(store, ticket.id, from, reason, log);
    throw new UnrecoverableError(reason);
  }

  // 1. Our Message-ID, stored with the claim and linked before the mail can leave.
  const automatic = from === 'drafted';
  const outbound: OutboundInfo = {
    ...ticket.outbound,
    messageId: ticket.outbound?.messageId ?? newMessageId(deps.config.MAIL_FROM),
    autoSubmitted: automatic,
  };
  const approvedBy = automatic ? undefined : approverOf(ticket);
  if (approvedBy) outbound.approvedBy = approvedBy;
  else delete outbound.approvedBy;
  // Checked before the claim, so a reply whose SMTP envelope would hold anything but the ticket's one recipient is
  // parked before anything is claimed or sent: a ticket stored before its addresses were checked, an address that
  // reads as two. The addresses are no field a write can change, so the claimed ticket has the same recipient.
  const unsendable = replyRecipientProblem(composeReply({ original: originalOf(ticket), answer: ticket.draft, from: deps.config.MAIL_FROM, messageId: outbound.messageId, automatic }));
  if (unsendable) {
    await park(store, ticket.id, from, unsendable, log);
    throw new UnrecoverableError(unsendable);
  }
  // Whether the quote goes is decided here, for every reply (automatic, approved, written by a person on a ticket the
  // agent never drafted), from the ticket itself. Only the knowledge the agent found can vouch for more than the
  // ticket's own fields, and its result is the ticket's largest part: it is read only when the quote would be left
  // out without it, and before the claim, so that no read can fail between the claim and the send. Nothing but the
  // agent worker's transitions writes it, so the claimed version has the same.
  const agent = quoteOmission(ticket, deps.config) ? (await produce(deps.redis, () => store.get(ticket.id)))?.agent : undefined;
  // 2. The claim, in the same atomic write.
  let claimed: Ticket;
  try {
    claimed = await store.transition(ticket.id, {
      from: [from],
      to: 'sending',
      actor: SENDER_ACTOR,
      note: `attempt ${attempt.attemptsMade + 1}`,
      patch: { outbound },
      current: ticket,
    });
  } catch (err) {
    if (err instanceof TicketConflictError) {
      log.info({ state: err.actual }, 'Ticket changed concurrently; leaving it to the other writer');
      return { outcome: 'skipped', ticketId: ticket.id, state: err.actual ?? from };
    }
    throw err;
  }
  await store.linkMessageId(outbound.messageId, ticket.id);

  // Composed from the ticket as claimed: a claim retried on a newer version (a field written since the read above)
  // sends that version's draft, never the copy read before it.
  const quoteOmitted = quoteOmission(agent ? { ...claimed, agent } : claimed, deps.config);
  const mail = composeReply({
    original: originalOf(claimed, quoteOmitted),
    answer: claimed.draft ?? '',
    from: deps.config.MAIL_FROM,
    messageId: outbound.messageId,
    automatic,
  });

  let response: string;
  let raw: Buffer;
  try {
    ({ response, raw } = await deps.smtp.send(mail));
  } catch (err) {
    const failure = err instanceof SmtpSendError ? err : classifySmtpError(err);
    return handleSmtpFailure(failure, mail.to, claimed, from, outbound, deps, attempt, log);
  }

  // 4. Accepted. The bytes first: after the `sent` write below, a re-run would send nothing and could only queue a
  // copy of bytes kept already. Dying in between leaves the ticket `sending` (parked by the re-run) and the bytes to
  // expire unused.
  const kept = deps.sentCopy ? await keepSentBytes(deps.sentCopy, ticket.id, raw, log) : false;
  // If this write fails the next attempt finds `sending` and parks: never a second mail.
  const sent = await store.transition(ticket.id, {
    current: claimed,
    from: ['sending'],
    to: 'sent',
    actor: SENDER_ACTOR,
    note: response,
    patch: { outbound: { ...outbound, sentAt: new Date().toISOString(), smtpResponse: response }, reason: null },
  });
  log.info({ messageId: outbound.messageId, response, automatic, quoteOmitted: quoteOmitted !== undefined }, 'Reply sent');
  if (deps.sentCopy && kept) {
    try {
      await deps.sentCopy.queue(sent);
    } catch (err) {
      log.warn({ err }, 'Reply sent, but its copy for the Sent folder could not be queued; it will not be copied');
    }
  }
  return { outcome: 'sent', ticketId: ticket.id, messageId: outbound.messageId, response };
}

/**
 * Keeps the sent bytes for the copy; false when they were not kept. A failure is logged and nothing more: the reply is
 * out, and the `sent` write still has to happen so that no run sends it again.
 */
async function keepSentBytes(steps: SentCopySteps, ticketId: string, raw: Buffer, log: Logger): Promise<boolean> {
  try {
    return await steps.keep(ticketId, raw);
  } catch (err) {
    log.warn({ err }, 'Reply sent, but its bytes for the Sent-folder copy could not be kept; it will not be copied');
    return false;
  }
}

async function handleSmtpFailure(
  failure: SmtpSendError,
  recipient: string,
  ticket: Ticket,
  from: 'drafted' | 'approved',
  outbound: OutboundInfo,
  deps: SendReplyDeps,
  attempt: SendAttemptInfo,
  log: Logger,
): Promise<never> {
  const { store } = deps;
  if (failure.kind === 'unknown') {
    // The server may have the mail: like a ticket found in `sending`, a person checks before anything is resent.
    const reason = `${MAYBE_SENT_REASON} (${failure.message})`;
    await store.transition(ticket.id, { from: ['sending'], to: 'parked', actor: SENDER_ACTOR, note: reason, patch: { reason, outbound } });
    log.warn({ reason }, 'Reply may have been delivered; parked for a person instead of sending it again');
    const unknown = new UnrecoverableError(reason);
    unknown.cause = failure;
    throw unknown;
  }
  const lastAttempt = attempt.attemptsMade + 1 >= attempt.attempts;
  const withResponse: OutboundInfo = { ...outbound, ...(failure.response ? { smtpResponse: failure.response } : {}) };
  if (failure.kind === 'permanent' || lastAttempt) {
    const reason =
      smtpUtf8Refusal(recipient, failure) ??
      (failure.kind === 'permanent'
        ? `${SMTP_REFUSED_REASON}: ${failure.message}`
        : `reply not accepted after ${attempt.attempts} attempt(s); last error: ${failure.message}`);
    await store.transition(ticket.id, { from: ['sending'], to: 'parked', actor: SENDER_ACTOR, note: reason, patch: { reason, outbound: withResponse } });
    log.warn({ reason }, 'Reply parked for a person');
    if (failure.kind === 'permanent') {
      const permanent = new UnrecoverableError(reason);
      permanent.cause = failure;
      throw permanent;
    }
    throw failure;
  }
  // 3. Not accepted: back to the state it came from, so the next attempt can claim it again.
  await store.transition(ticket.id, {
    from: ['sending'],
    to: from,
    actor: SENDER_ACTOR,
    note: `not accepted, will retry: ${failure.message}`,
    patch: { outbound: withResponse },
  });
  log.warn({ err: failure.message }, 'Reply not accepted; BullMQ retries it with backoff');
  throw failure;
}

/**
 * Parks a ticket the sender gave up on, if it is still the sender's (drafted, approved or sending): used by the
 * handler and by the worker's `failed` listener for failures the handler never saw (a job that stalled too often).
 */
export async function parkUnsent(store: TicketStore, ticketId: string, reason: string, log: Logger): Promise<void> {
  try {
    const ticket = await store.get(ticketId, { agentResult: false });
    if (!ticket || !['drafted', 'approved', 'sending'].includes(ticket.state)) return;
    // A ticket left in `sending` may have gone out; say so rather than the generic reason.
    const why = ticket.state === 'sending' ? `${MAYBE_SENT_REASON} (${reason})` : reason;
    await park(store, ticketId, ticket.state, why, log);
  } catch (err) {
    log.error({ err, reason }, 'Could not park the ticket after the sender failed; it stays where it is');
  }
}

async function park(store: TicketStore, ticketId: string, from: Ticket['state'], reason: string, log: Logger): Promise<void> {
  await store.transition(ticketId, { from: [from], to: 'parked', actor: SENDER_ACTOR, note: reason, patch: { reason } });
  log.warn({ reason }, 'Reply parked for a person');
}

/**
 * What {@link composeReply} needs of the customer's mail, from the ticket, and why its quote is left out when the
 * sender decided so ({@link quoteOmission}). The Message-ID is the mail's own: the ticket's key, or, for a ticket
 * keyed apart because another mail already held that id, `mailMessageId`; none for mail that had none (and for
 * tickets keyed apart before `mailMessageId` was stored).
 */
export function originalOf(ticket: Ticket, quoteOmitted?: string): OriginalMail {
  const messageId = ownMessageId(ticket);
  return {
    ...(messageId ? { messageId } : {}),
    subject: ticket.subject,
    references: ticket.references.map(normalizeMessageId).filter(Boolean),
    // For a mail without References (feature phones, some webmails), so the reply still names the thread above it.
    // The ticket keeps only the first id of the header, so one with several ids reaches here as that one.
    ...(ticket.inReplyTo ? { inReplyTo: [ticket.inReplyTo] } : {}),
    // The address alone, the name apart: a name written before it unquoted could read as another recipient.
    from: ticket.from,
    ...(ticket.fromName ? { fromName: ticket.fromName } : {}),
    replyTo: ticket.replyTo,
    // The name the customer gave the Reply-To, so the reply greets them by it (the From's name when it goes there).
    ...(ticket.replyToName ? { replyToName: ticket.replyToName } : {}),
    // The mail's Date header, or when it reached us for one without; with the offset it was written in, when known.
    date: ticket.mailDate ?? ticket.createdAt,
    ...(ticket.mailDate && ticket.mailDateOffsetMinutes !== undefined ? { dateOffsetMinutes: ticket.mailDateOffsetMinutes } : {}),
    text: ticket.question,
    ...(quoteOmitted ? { quoteOmitted } : {}),
  };
}

/** The customer's own Message-ID of the ticket's mail, normalised; undefined when there is none to name. */
function ownMessageId(ticket: Pick<Ticket, 'messageId' | 'mailMessageId'>): string | undefined {
  const id = ticket.mailMessageId ?? ticket.messageId;
  // A made-up Message-ID names no real mail, so it must not appear in our threading headers.
  return isSyntheticMessageId(id) ? undefined : normalizeMessageId(id) || undefined;
}

/** The reason of a reply parked because the server refused an address only SMTPUTF8 (RFC 6531) can carry (in src/tickets/review.ts, which reads it back). */
export { SMTPUTF8_REASON };

// How servers refuse an address they cannot take: RFC 5321's syntax error (501), "mailbox name not allowed" (553)
// and "parameters not recognised" (555), or RFC 6531's own words (enhanced codes 5.6.7–5.6.9, or naming SMTPUTF8).
const ADDRESS_REFUSED_CODES = new Set([501, 553, 555]);
const SMTPUTF8_WORDS = /\b5\.6\.[7-9]\b|SMTPUTF8/i;

/**
 * The reason to park a reply with when the SMTP server refused it for good because the recipient's address needs
 * SMTPUTF8: its local part is outside ASCII (a Unicode domain alone goes as punycode, which nodemailer writes), and
 * the server answered with an address refusal or RFC 6531's words. Undefined for any other failure, which keeps its
 * usual handling. nodemailer sends such an address without the SMTPUTF8 keyword to a server that does not offer it;
 * a strict server refuses it (Postfix: `553 5.6.7 Must declare SMTPUTF8 to send unicode address`), and no retry can
 * change that, so the person who reads the parked ticket learns why at once.
 */
export function smtpUtf8Refusal(recipient: string, failure: SmtpSendError): string | undefined {
  if (failure.kind !== 'permanent' || failure.responseCode === undefined) return undefined;
  if (!/[^\x00-\x7f]/.test(localPart(extractAddress(recipient) ?? recipient))) return undefined;
  const refusedAddress = ADDRESS_REFUSED_CODES.has(failure.responseCode) || SMTPUTF8_WORDS.test(failure.response ?? '');
  return refusedAddress ? `${SMTPUTF8_REASON} (${failure.message})` : undefined;
}
