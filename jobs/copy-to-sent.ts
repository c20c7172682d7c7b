/**
 * `copy-to-sent` (queue `sentcopy`): files the reply a ticket's `send-reply` sent in the mailbox's Sent folder,
 * byte for byte as it went out, flagged `\Seen`; see src/mail/sent-copy.ts for how it stays at most one copy.
 *
 * The reply has left already, so nothing here may send it again or change the ticket's state: IMAP trouble throws a
 * plain error (BullMQ retries it SENT_COPY_ATTEMPTS times with backoff, each failure logged at warn); what no retry
 * can fix (no `\Sent` mailbox, the bytes expired) fails the job for good. The ticket records the copy
 * (`outbound.sentCopy`) after the APPEND.
 */
import { UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { createLogger, type Logger } from '../src/logger.js';
import {
  SENT_RAW_TTL_S,
  SentMailboxNotFoundError,
  deleteSentRaw,
  fileInSent,
  loadSentRaw,
  sentCopySetting,
  type SentCopyConfig,
  type SentFolderConnection,
} from '../src/mail/sent-copy.js';
import { produce } from '../src/queues/connection.js';
import type { CopyToSentData } from '../src/queues/payloads.js';
import type { Config } from '../src/config.js';
import type { TicketStore } from '../src/tickets/ticket-store.js';

export type { CopyToSentData };

/** What the handler runs against. */
export interface CopyToSentDeps {
  config: SentCopyConfig & Pick<Config, 'QUEUE_PREFIX'>;
  store: TicketStore;
  /** Producer connection of the store (fail-fast). */
  redis: Redis;
  /** The sender's IMAP connection for copies (one login for a burst of replies); absent when copies are off. */
  imap: SentFolderConnection | undefined;
  logger?: Logger;
}

/** What one run did, returned as the job's result. */
export type CopyToSentOutcome =
  | { outcome: 'copied'; ticketId: string; mailbox: string }
  | { outcome: 'found'; ticketId: string; mailbox: string }
  | { outcome: 'skipped'; ticketId: string; why: string };

/** Runs the `copy-to-sent` job for `data.ticketId`; see the module comment. */
export async function copyToSent(data: CopyToSentData, deps: CopyToSentDeps, attempt: { jobId?: string; attemptsMade: number }): Promise<CopyToSentOutcome> {
  const { store, redis, config } = deps;
  const log = (deps.logger ?? createLogger('copy-to-sent')).child({ ticketId: data.ticketId, jobId: attempt.jobId, attempt: attempt.attemptsMade + 1 });
  const setting = sentCopySetting(config);
  if (setting.mode === 'off') return { outcome: 'skipped', ticketId: data.ticketId, why: setting.why };

  const ticket = await produce(redis, () => store.get(data.ticketId, { agentResult: false }));
  if (!ticket) throw new UnrecoverableError(`ticket ${data.ticketId} does not exist`);
  const outbound = ticket.outbound;
  if (!outbound?.sentAt) throw new UnrecoverableError(`ticket ${data.ticketId} has no sent reply to copy`);
  const sentAt = new Date(outbound.sentAt);
  if (outbound.sentCopy) {
    await produce(redis, () => deleteSentRaw(redis, config.QUEUE_PREFIX, ticket.id));
    log.info({ mailbox: outbound.sentCopy.mailbox }, 'Reply is already in the Sent folder');
    return { outcome: 'skipped', ticketId: ticket.id, why: `already copied to ${outbound.sentCopy.mailbox}` };
  }
  const raw = await produce(redis, () => loadSentRaw(redis, config.QUEUE_PREFIX, ticket.id));
  if (!raw) throw new UnrecoverableError(`the sent reply of ticket ${ticket.id} is no longer stored (kept ${SENT_RAW_TTL_S / 3600} hours); it was not copied to the Sent folder`);

  if (!deps.imap) throw new UnrecoverableError('no IMAP connection for Sent-folder copies was set up');
  let filed;
  try {
    filed = await deps.imap.use((client, mailbox) => fileInSent(client, mailbox, raw, outbound.messageId, sentAt));
  } catch (err) {
    if (err instanceof SentMailboxNotFoundError) throw new UnrecoverableError(err.message);
    throw err;
  }

  // Recorded after the APPEND: a crash in between leaves the copy unrecorded, and the next attempt's search finds it.
  await produce(redis, () =>
    store.update(ticket.id, { outbound: { ...outbound, sentCopy: { mailbox: filed.mailbox, at: new Date().toISOString() } } }, { current: ticket }),
  );
  await produce(redis, () => deleteSentRaw(redis, config.QUEUE_PREFIX, ticket.id));
  log.info({ mailbox: filed.mailbox, appended: filed.appended, messageId: outbound.messageId }, filed.appended ? 'Reply copied to the Sent folder' : 'Reply was already in the Sent folder');
  return { outcome: filed.appended ? 'copied' : 'found', ticketId: ticket.id, mailbox: filed.mailbox };
}
