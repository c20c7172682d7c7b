/**
 * Turns one inbound mail into a stored ticket and, when it can be answered, an `answer-ticket` job: the poller's
 * half of "nothing lost, nothing answered twice".
 *
 * Order of writes, each of which is idempotent so that a crash or a Redis outage at any point is repaired by simply
 * ingesting the same mail again (the poller does that, since it marks a mail `\Seen` only after this returns):
 *
 * 1. the raw bytes ({@link keepRaw}), so no ticket or job ever names a mail whose bytes are missing; unless a budget
 *    of raw mail in Redis is spent (the sender's, its domain's, Redis's memory): then the ticket is stored without
 *    them and held for a person ({@link Ticket.heldReason}), decided from the reply signals it records;
 * 2. the ticket (`TicketStore.createIfAbsent`), keyed by the mail's Message-ID, so a second copy finds the first
 *    (another mail under a Message-ID already taken, told apart by its sender, date or content, is keyed apart);
 * 3. the job, whose id is derived from the ticket id and generation, so BullMQ ignores a second add.
 *
 * Whether a mail deserves an answer (auto-replies, lists, our own mail) is not decided here: the agent worker does
 * that with the configuration it owns, and every mail, answered or not, gets a ticket as its record. The ticket
 * carries what that decision reads (`replySignals`), so the agent worker need not parse the mail again.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { VARIABLES, type Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import { answerTicketJob, type JobTuning } from '../queues/job-options.js';
import { produce } from '../queues/connection.js';
import type { Queues } from '../queues/registry.js';
import { jobGeneration, newTicket, threadRefs, ticketIdFor, type NewTicketInput, type Ticket, type TicketState } from '../tickets/ticket.js';
import type { TicketStore } from '../tickets/ticket-store.js';
import { legacyRawKey, messageKey, normaliseMessageId } from './message-id.js';
import { customerBehindOwnGroup, ourAddressesOf, ownMailboxesOf, replySignalHeaders, replySignalsOf, type MailboxConfig, type OwnMailboxes } from './classify.js';
import { isUsableAddress, type MailAddress } from './addresses.js';
import { capSubject, MailParseError, parseInboundMail, questionWithSubject, type InboundMail, type ParseOptions } from './parse.js';
import { visibleHeaderText } from './invisible.js';
import { deleteRaw, keepRaw, loadRaw, rawRefFor, type RawMailBudgets, type RawMailRefusal } from './raw-store.js';

/** Actor of the history entries the poller writes. */
export const POLLER_ACTOR = 'poller';

/**
 * How the reason of a mail the poller's first start held for a person begins (see `firstStartHoldReason` in
 * src/runtime/poller.ts): the mail was found long unread in a mailbox the poller has no sync state for, so a reply may
 * come too late. That is a first start, or Redis lost the state (flushed, a new QUEUE_PREFIX): the words fit both.
 */
export const HELD_AT_FIRST_START = 'held: no sync state for this mailbox yet (a first start, or Redis lost it); ';

/**
 * Domain of the Message-IDs made up for mail that has none. `.invalid` (RFC 2606) can never be a real domain, so
 * such an id is recognisable ({@link isSyntheticMessageId}) and never collides with a customer's.
 */
export const SYNTHETIC_MESSAGE_ID_DOMAIN = 'no-message-id.invalid';

/** What {@link ingestMessage} and the park functions need. */
export interface IngestDeps {
  /** A producer connection (`connectProducer`): fails fast while Redis is down instead of queueing in memory. */
  redis: Redis;
  /** The ticket store on the same Redis and prefix. */
  store: TicketStore;
  /** The `tickets` queue (from `createQueues`) that `answer-ticket` jobs go to. */
  ticketsQueue: Queues['tickets'];
  /** QUEUE_PREFIX; the raw mail is stored under it. */
  prefix: string;
  config: Pick<Config, 'AGENT_ATTEMPTS' | 'MAX_EMAIL_BYTES' | 'SPAM_HEADER'> & MailboxConfig & Partial<Pick<Config, RawMailBudgetVariable>>;
  /** Job backoff tuning; tests shorten it. */
  tuning?: JobTuning;
  logger?: Logger;
  /** Clock of the raw-mail budgets' hour; tests pass a fixed one. */
  now?: () => Date;
}

/** The settings that bound the raw mail kept in Redis (see {@link keepRaw}). */
export type RawMailBudgetVariable = 'RAW_MAIL_BYTES_PER_SENDER_PER_HOUR' | 'RAW_MAIL_BYTES_PER_DOMAIN_PER_HOUR' | 'RAW_MAIL_REDIS_MEMORY_PERCENT';

/**
 * The raw-mail budgets of a configuration; a setting it lacks (a caller's narrower config type) has its default, so
 * no caller stores raw mail unbounded.
 */
export function rawMailBudgetsOf(config: Partial<Pick<Config, RawMailBudgetVariable>>): RawMailBudgets {
  const setting = (name: RawMailBudgetVariable): number => config[name] ?? Number(VARIABLES[name].default);
  return {
    perSender: setting('RAW_MAIL_BYTES_PER_SENDER_PER_HOUR'),
    perDomain: setting('RAW_MAIL_BYTES_PER_DOMAIN_PER_HOUR'),
    memoryPercent: setting('RAW_MAIL_REDIS_MEMORY_PERCENT'),
  };
}

/**
 * What happened to one mail:
 * - `queued`: a new ticket in `received` and its `answer-ticket` job (held mail too: {@link Ticket.heldReason});
 * - `parked`: a new ticket in `parked` (unreadable or oversize mail, or one the checks cannot judge: no raw copy and
 *   no reply signals) for a person, no job;
 * - `duplicate`: the mail already had a ticket; nothing new was created (its job is re-added only while the ticket
 *   is still `received`, which BullMQ ignores when the job exists, so a crash between ticket and job heals).
 */
export type IngestOutcome = 'queued' | 'parked' | 'duplicate';

/** Result of {@link ingestMessage} and the park functions. */
export interface IngestResult {
  ticketId: string;
  outcome: IngestOutcome;
  /** State of the ticket after the call (the existing ticket's state for a duplicate). */
  state: TicketState;
  /**
   * True when the new ticket records the caller's hold ({@link IngestOptions.hold}): the agent worker parks it for a
   * person unless its checks ignore the mail.
   */
  held?: boolean;
}

/**
 * The IMAP envelope fields a parked ticket is built from when the mail itself is not downloaded. Structurally
 * satisfied by imapflow's `MessageEnvelopeObject`.
 */
export interface EnvelopeInfo {
  messageId?: string | undefined;
  subject?: string | undefined;
  inReplyTo?: string | undefined;
  date?: Date | string | undefined;
  from?: Array<{ name?: string | undefined; address?: string | undefined }> | undefined;
  replyTo?: Array<{ name?: string | undefined; address?: string | undefined }> | undefined;
}

/**
 * The note a ticket gets when its mail named a known thread but the address a reply would go to took no part in it:
 * the mail is treated as new, and an operator can see why it was not threaded.
 */
export function refusedThreadNote(rootTicketId: string): string {
  return `not joined to the conversation of ticket ${rootTicketId}: the address a reply would go to took no part in it, so that exchange is not shown to the agent`;
}

/** A made-up `<key@no-message-id.invalid>` Message-ID for mail without one. */
export function syntheticMessageId(key: string): string {
  return `<${key}@${SYNTHETIC_MESSAGE_ID_DOMAIN}>`;
}

/**
 * True for an id made by {@link syntheticMessageId}. A reply to such a ticket must not name it in In-Reply-To or
 * References: no mail out there carries it.
 */
export function isSyntheticMessageId(messageId: string): boolean {
  return messageId.trim().replace(/>+$/, '').toLowerCase().endsWith(`@${SYNTHETIC_MESSAGE_ID_DOMAIN}`);
}

/**
 * The Message-ID a ticket is keyed by: the mail's own, or, for mail without one, a synthetic id from
 * {@link messageKey} (the sha256 of what its author wrote; of the raw bytes for input that is no readable mail), so
 * the same mail fetched twice, or delivered twice with other trace fields, still makes one ticket.
 */
export function ticketMessageId(mail: Pick<InboundMail, 'messageId'> | undefined, raw: Buffer): string {
  if (mail?.messageId) return mail.messageId;
  // Input that is no readable mail is known by its bytes only.
  return syntheticMessageId(mail ? messageKey({ messageId: undefined }, raw) : legacyRawKey(raw));
}

/** `1536` → `1.5 KB`, `12_900_000` → `12.3 MB`: sizes for reasons a person reads. */
export function formatBytes(bytes: number): string {
  const units: [number, string][] = [
    [1024 ** 3, 'GB'],
    [1024 ** 2, 'MB'],
    [1024, 'KB'],
  ];
  for (const [unit, name] of units) {
    if (bytes >= unit) return `${(bytes / unit).toFixed(1).replace(/\.0$/, '')} ${name}`;
  }
  return `${bytes} bytes`;
}

/** The reason of a parked oversize ticket, e.g. `message is 12.3 MB, over MAX_EMAIL_BYTES (10 MB); not downloaded`. */
export function oversizeReason(size: number, maxBytes: number): string {
  return `message is ${formatBytes(size)}, over MAX_EMAIL_BYTES (${formatBytes(maxBytes)}); not downloaded`;
}

/**
 * The new-ticket input for a parsed mail (state `received`), or for raw bytes that did not parse as a mail
 * (`parseError` given: state `parked` with the reason, so a person sees it instead of it vanishing). Such a ticket
 * takes its From, Reply-To and Subject from the IMAP `envelope` when there is one (the server read the headers the
 * parser could not), so its sender is known: to the raw-mail budget, the review page, and `forget`.
 */
export function ticketInputForMail(
  mail: InboundMail | undefined,
  raw: Buffer,
  extra: { rawRef: string; conversationId?: string | undefined; parseError?: string | undefined; mailboxes?: OwnMailboxes | undefined; envelope?: EnvelopeInfo | undefined },
): NewTicketInput {
  // A From our own group rewrote to itself names the group; the customer is in Reply-To (see customerBehindOwnGroup).
  const customer = mail && extra.mailboxes ? customerBehindOwnGroup(mail, extra.mailboxes) : undefined;
  const sender = customer ?? mail?.from;
  const input: NewTicketInput = {
    messageId: ticketMessageId(mail, raw),
    from: sender?.address ?? '',
    subject: mail?.subject ?? '',
    references: mail?.references ?? [],
    // The subject where the words lean on it; what decides an acknowledgement or a notice (replySignals, below) reads
    // the mail's own words.
    question: mail ? questionWithSubject(mail) : '',
    ...(mail ? { mailText: mail.text } : {}),
    attachments: (mail?.attachments ?? []).map((a) => ({
      ...(a.filename ? { filename: a.filename } : {}),
      contentType: a.contentType,
      size: a.size,
    })),
    rawRef: extra.rawRef,
    actor: POLLER_ACTOR,
  };
  // Only where they are not the whole question: when the mail forwards one with words (see Ticket.customerWords).
  if (mail?.customerWords !== undefined && mail.customerWords !== mail.question) input.customerWords = mail.customerWords;
  if (sender?.name) input.fromName = sender.name;
  if (mail?.replyTo?.address) {
    input.replyTo = mail.replyTo.address;
    // Kept for the reply's To: the customer is greeted by the name they gave the mailbox the reply goes to.
    if (mail.replyTo.name) input.replyToName = mail.replyTo.name;
  }
  const replySignals = mail && extra.parseError === undefined ? replySignalsOf(mail) : undefined;
  if (replySignals) input.replySignals = replySignals;
  if (mail?.inReplyTo) input.inReplyTo = mail.inReplyTo;
  const mailDate = mail && mailDateOf(mail);
  if (mailDate) input.mailDate = mailDate;
  // The customer's own zone, which the instant loses: the quote dates their mail as their client showed it.
  if (mailDate && mail?.dateOffsetMinutes !== undefined) input.mailDateOffsetMinutes = mail.dateOffsetMinutes;
  if (mail?.deliveryReport && extra.parseError === undefined) input.deliveryReport = mail.deliveryReport;
  if (mail?.unreadable && extra.parseError === undefined) input.unreadable = mail.unreadable;
  if (extra.conversationId) input.conversationId = extra.conversationId;
  if (extra.parseError !== undefined) {
    input.state = 'parked';
    input.reason = `unreadable mail: ${extra.parseError}`;
    input.note = input.reason;
    if (!mail && extra.envelope) Object.assign(input, envelopeSenderFields(extra.envelope));
  } else if (mail && (mail.parseWarnings.length > 0 || mail.charsetProblems)) {
    // The agent still gets the mail; the warnings tell a person later why the text may look odd.
    input.note = [...mail.parseWarnings, ...(mail.charsetProblems ?? [])].join('; ');
  }
  return input;
}

/**
 * The From and Reply-To of an IMAP envelope as parsing reads a downloaded mail's: the first mailbox of each whose
 * address a reply may go to ({@link isUsableAddress}), else none. imapflow hands the addresses on as the header wrote
 * them, so a quoted local part with a comma (`"victim1@bank.example,victim2"@customer.example`, decoded without its
 * quotes), a domain literal or a percent-hack route would otherwise become the ticket's recipient, and nodemailer
 * would read the first as two addresses when an operator approved a reply.
 */
function envelopeAddresses(envelope: EnvelopeInfo): { from: MailAddress | undefined; replyTo: MailAddress | undefined } {
  const usable = (list: EnvelopeInfo['from']): MailAddress | undefined => {
    const found = list?.find((a) => a.address !== undefined && isUsableAddress(a.address.trim()));
    return found ? { address: found.address!.trim(), name: found.name ?? '' } : undefined;
  };
  return { from: usable(envelope.from), replyTo: usable(envelope.replyTo) };
}

/**
 * From, its name, Reply-To, its name and Subject of a ticket read from an IMAP envelope: only usable addresses
 * ({@link envelopeAddresses}), the names and subject cleaned as parsing cleans a downloaded mail's headers.
 */
function envelopeSenderFields(envelope: EnvelopeInfo): Pick<NewTicketInput, 'from' | 'fromName' | 'replyTo' | 'replyToName' | 'subject'> {
  const { from: sender, replyTo } = envelopeAddresses(envelope);
  // The envelope is the mail's own headers, as imapflow decoded them: cleaned as parsing cleans a downloaded mail's.
  const fields: Pick<NewTicketInput, 'from' | 'fromName' | 'replyTo' | 'replyToName' | 'subject'> = {
    from: sender?.address ?? '',
    subject: capSubject(visibleHeaderText(envelope.subject ?? '').text).subject,
  };
  const visibleName = sender?.name ? visibleHeaderText(sender.name).text : '';
  if (visibleName) fields.fromName = visibleName;
  if (replyTo) {
    fields.replyTo = replyTo.address;
    const visibleReplyToName = replyTo.name ? visibleHeaderText(replyTo.name).text : '';
    if (visibleReplyToName) fields.replyToName = visibleReplyToName;
  }
  return fields;
}

/**
 * The new-ticket input for a mail known only by its IMAP envelope (not downloaded), parked with `reason`. Mail
 * without a Message-ID gets a synthetic one from the envelope and size, which stay the same when the mail is seen
 * again. Only usable addresses are kept ({@link envelopeAddresses}): with none in From or Reply-To the ticket has
 * no sender, and a reply to it is refused by the sender.
 */
export function ticketInputForEnvelope(
  envelope: EnvelopeInfo,
  size: number,
  reason: string,
  conversationId?: string,
): NewTicketInput {
  const date = envelope.date instanceof Date ? envelope.date.toISOString() : (envelope.date ?? '');
  // Keyed by the first From as written, checked or not: the id a mail seen before the check got stays its id.
  const writtenFrom = envelope.from?.find((a) => a.address)?.address ?? '';
  const messageId =
    normaliseMessageId(envelope.messageId) ??
    syntheticMessageId(
      createHash('sha256')
        .update(JSON.stringify(['envelope', writtenFrom, envelope.subject ?? '', date, size]))
        .digest('hex'),
    );
  const inReplyTo = normaliseMessageId(envelope.inReplyTo);
  const input: NewTicketInput = {
    messageId,
    ...envelopeSenderFields(envelope),
    question: '',
    state: 'parked',
    reason,
    note: reason,
    actor: POLLER_ACTOR,
  };
  if (inReplyTo) input.inReplyTo = inReplyTo;
  if (conversationId) input.conversationId = conversationId;
  return input;
}

/** Options of {@link ingestMessage}. */
export interface IngestOptions {
  /** When the poller noticed the mail ({@link Ticket.noticedAt}). */
  noticedAt?: string;
  /**
   * Why a person, not the agent, decides whether this mail gets an answer (the poller's first start found it long
   * unread): recorded as the ticket's {@link Ticket.heldReason}. The ticket and its job are made as for any mail, so
   * the checks before the agent ignore an automatic reply, a bounce or list mail as on any day and give their own park
   * reasons; what they would hand to the agent is parked with this reason instead, so no agent run and no reply. An
   * unreadable mail is parked with its own reason.
   */
  hold?: string;
  /**
   * Where the mail stays in the mailbox, as a person finds it there (the poller: `<mailbox>/<uid>`): named by the
   * reason of a mail whose raw copy was not kept ({@link rawNotKeptReason}).
   */
  place?: string;
  /**
   * The mail's IMAP envelope (the poller has it from its fetch): a mail whose headers the parser cannot read (a header
   * section over its limit) takes its From, Reply-To and Subject from it, instead of being parked with no sender.
   */
  envelope?: EnvelopeInfo;
}

/** How the reason of a ticket whose raw mail was not kept starts ({@link rawNotKeptReason}). */
export const RAW_NOT_KEPT = 'raw mail not kept:';

/**
 * The reason of a ticket whose raw mail {@link keepRaw} refused, e.g. `raw mail not kept: 63 MB from this sender in
 * the last hour, and this mail is 9 MB (RAW_MAIL_BYTES_PER_SENDER_PER_HOUR is 64 MB); the mail is still in the
 * mailbox, INBOX/4711`. `whereabouts` says where the mail is.
 */
export function rawNotKeptReason(refusal: RawMailRefusal, whereabouts: string): string {
  const size = formatBytes(refusal.size);
  let why: string;
  if (refusal.by === 'memory') {
    const of = refusal.source === 'maxmemory' ? `its maxmemory (${formatBytes(refusal.max)})` : `the machine's memory (${formatBytes(refusal.max)}; Redis has no maxmemory)`;
    why = `Redis uses ${formatBytes(refusal.used)}, and this ${size} mail would take it past ${formatBytes(refusal.limit)}, RAW_MAIL_REDIS_MEMORY_PERCENT (${refusal.percent}%) of ${of}: give Redis more memory (README, Redis memory)`;
  } else {
    const from = refusal.by === 'domain' ? `senders at ${refusal.domain}` : refusal.sender ? 'this sender' : 'mail without a sender address';
    const setting = refusal.by === 'domain' ? 'RAW_MAIL_BYTES_PER_DOMAIN_PER_HOUR' : 'RAW_MAIL_BYTES_PER_SENDER_PER_HOUR';
    why = `${formatBytes(refusal.held)} from ${from} in the last hour, and this mail is ${size} (${setting} is ${formatBytes(refusal.limit)})`;
  }
  return `${RAW_NOT_KEPT} ${why}; ${whereabouts}`;
}

/** Where a mail whose raw copy is not kept can still be found: its place in the mailbox, else its Message-ID. */
function whereaboutsOf(place: string | undefined, mail: InboundMail | undefined): string {
  if (place) return `the mail is still in the mailbox, ${place}`;
  return mail?.messageId ? `the mail is still in the mailbox (Message-ID ${mail.messageId})` : 'the mail is still in the mailbox';
}

/**
 * `input` without a raw copy, `reason` saying why: nobody may count on bytes Redis does not hold, and a sender who
 * filled their budget is not answered automatically, so the ticket is held for a person with `reason` (a hold already
 * recorded stays its reason) and still goes through the checks before the agent, which read its recorded reply
 * signals. Without signals those checks would need the raw mail: such a ticket is parked here, as is one parked
 * anyway (unreadable), whose note says why the raw copy is missing.
 */
function heldWithoutRaw(input: NewTicketInput, reason: string): NewTicketInput {
  const { rawRef: _dropped, heldReason, ...rest } = input;
  if (input.state === 'parked') return { ...rest, note: [input.note, reason].filter(Boolean).join('; ') };
  if (!input.replySignals) {
    const unjudged = `${reason}; its headers were too large to record, so the checks before the agent cannot judge it without the raw mail: a person decides`;
    const note = heldReason ? [input.note, unjudged] : [unjudged, input.note];
    return { ...rest, state: 'parked', reason: [heldReason, unjudged].filter(Boolean).join('; '), note: note.filter(Boolean).join('; ') };
  }
  const note = heldReason ? [input.note, reason] : [reason, input.note];
  return { ...rest, heldReason: heldReason ?? reason, note: note.filter(Boolean).join('; ') };
}

/**
 * Ingests one downloaded mail: parse, store the raw bytes, create the ticket, add its `answer-ticket` job.
 *
 * Unreadable input (a `MailParseError`) still becomes a ticket, parked with the reason. A mail the caller holds
 * ({@link IngestOptions.hold}) or whose raw copy a budget refused is queued with the hold recorded
 * ({@link Ticket.heldReason}). A mail whose ticket exists creates nothing new. Throws (typically
 * `RedisUnavailableError`) when Redis fails; everything written so far is idempotent, so the caller leaves the mail
 * unseen and simply calls again later.
 */
export async function ingestMessage(raw: Buffer, deps: IngestDeps, options: IngestOptions = {}): Promise<IngestResult> {
  const log = deps.logger ?? createLogger('ingest');
  let mail: InboundMail | undefined;
  let parseError: string | undefined;
  try {
    mail = await parseInboundMail(raw, parseOptions(deps));
  } catch (err) {
    if (!(err instanceof MailParseError)) throw err;
    parseError = err.message;
  }

  let messageId = ticketMessageId(mail, raw);
  let ticketId = ticketIdFor(messageId);
  let existing = await produce(deps.redis, () => deps.store.get(ticketId, { agentResult: false }));
  const reusedNotes: string[] = [];
  let possibleCopyOf: string | undefined;
  const mailboxes = ownMailboxesOf(deps.config);
  if (existing && mail && !sameMail(existing, mail, mailboxes)) {
    // Another mail under a Message-ID already taken (a web form that writes one fixed id, a broken client): it gets an
    // id of its own, the same each time it is seen, instead of being dropped as a duplicate of a stranger's ticket.
    reusedNotes.push(`Message-ID ${messageId} is already the id of ticket ${existing.id}, another mail (other sender or date); this mail was given its own id`);
    messageId = reusedMessageId(messageId, mailSender(mail));
    ticketId = ticketIdFor(messageId);
    existing = await produce(deps.redis, () => deps.store.get(ticketId, { agentResult: false }));
  }
  if (existing && mail?.messageId && !(await sameContent(existing, mail, raw, deps))) {
    // Same sender and date, other text or attachments: a script that writes one Message-ID into every mail, a client
    // re-sending an edited message under its first id. Another mail, keyed apart by its content, so that each is found
    // again when it is seen again, and the operator is told why one Message-ID has two tickets.
    const earlier = existing.id;
    reusedNotes.push(
      `a mail with Message-ID ${mail.messageId} is already stored as ticket ${earlier}, from the same sender with the same date but other content (text or attachments); this mail was given its own id`,
    );
    messageId = reusedMessageId(mail.messageId, mailSender(mail), mailContentKey(mail));
    possibleCopyOf = earlier;
    ticketId = ticketIdFor(messageId);
    existing = await produce(deps.redis, () => deps.store.get(ticketId, { agentResult: false }));
    if (!existing) log.warn({ ticketId, earlierTicketId: earlier, messageId: mail.messageId }, 'Mail reuses the Message-ID of a stored mail but says something else; it gets a ticket of its own');
  }
  if (!existing && mail && !mail.messageId) {
    // Stored before mail without a Message-ID was keyed by its author's part: the same mail fetched again is that ticket.
    existing = await produce(deps.redis, () => deps.store.get(ticketIdFor(syntheticMessageId(legacyRawKey(raw))), { agentResult: false }));
  }
  if (existing) return duplicate(existing, deps, log);

  const thread = mail
    ? await produce(deps.redis, () => deps.store.joinConversation(threadRefs(mail), (mail.replyTo ?? mail.from)?.address))
    : {};
  const input = ticketInputForMail(mail, raw, { rawRef: rawRefFor(deps.prefix, ticketId), conversationId: thread.conversationId, parseError, mailboxes, envelope: options.envelope });
  input.messageId = messageId;
  // Keyed apart, but the reply still names the mail's own id, or it would not thread in the customer's client.
  if (reusedNotes.length > 0 && mail?.messageId) input.mailMessageId = mail.messageId;
  if (possibleCopyOf) input.possibleCopyOf = possibleCopyOf;
  if (thread.refusedRoot) input.note = [refusedThreadNote(thread.refusedRoot), input.note].filter(Boolean).join('; ');
  if (reusedNotes.length > 0) input.note = [...reusedNotes, input.note].filter(Boolean).join('; ');
  if (options.noticedAt) input.noticedAt = options.noticedAt;
  const holding = options.hold !== undefined && input.state !== 'parked';
  if (holding) {
    input.heldReason = options.hold;
    input.note = [options.hold, input.note].filter(Boolean).join('; ');
  }
  // Before the ticket, so no ticket names a raw mail that is missing; bounded by sender, domain and Redis's memory.
  const kept = await produce(deps.redis, () => keepRaw(deps.redis, deps.prefix, ticketId, raw, input.from, rawMailBudgetsOf(deps.config), deps.now?.()));
  const wroteRaw = kept.kept && kept.wrote;
  const ticket = newTicket(kept.kept ? input : heldWithoutRaw(input, rawNotKeptReason(kept.refusal, whereaboutsOf(options.place, mail))));
  if (!kept.kept) log.warn({ ticketId, bound: kept.refusal.by, state: ticket.state }, 'Raw mail not kept in Redis (a budget is spent); the ticket keeps the mail text only and is held for a person');
  const created = await produce(deps.redis, () => deps.store.createIfAbsent(ticket));
  if (!created.created) {
    // Another ingest of the same mail won between our check and our create; its ticket keeps its own raw copy.
    if (wroteRaw) await produce(deps.redis, () => deleteRaw(deps.redis, deps.prefix, ticketId));
    return duplicate(created.ticket, deps, log);
  }
  const held = holding ? { held: true } : {};
  if (ticket.state === 'parked') {
    if (parseError === undefined) log.debug({ ticketId, reason: ticket.reason }, 'Mail held for a person; not answered automatically');
    else log.warn({ ticketId, reason: ticket.reason }, 'Unreadable mail parked for a person');
    return { ticketId, outcome: 'parked', state: 'parked', ...held };
  }
  await addAnswerJob(ticket, deps);
  // Debug for held mail: the poller's first start may hold hundreds and says how many in one line.
  if (holding) log.debug({ ticketId, reason: ticket.heldReason }, 'Mail queued for the checks, held for a person unless they ignore it');
  else log.info({ ticketId, messageId: ticket.messageId }, 'Mail queued for an answer');
  return { ticketId, outcome: 'queued', state: ticket.state, ...held };
}

/**
 * Records a mail that is not downloaded because it is larger than MAX_EMAIL_BYTES: a ticket created directly in
 * `parked`, built from the IMAP envelope, with a reason naming both sizes. No raw copy, no job.
 */
export async function parkOversizeMessage(envelope: EnvelopeInfo, size: number, deps: IngestDeps): Promise<IngestResult> {
  return parkFromEnvelope(envelope, size, oversizeReason(size, deps.config.MAX_EMAIL_BYTES), deps);
}

/** Options of {@link parkFromEnvelope}. */
export interface ParkOptions {
  /**
   * Also park an existing ticket that is still `received`. For mail that failed to ingest repeatedly: its ticket may
   * exist without a job (the failure came after the ticket was stored), and must not stay `received` forever once
   * the mail is marked done.
   */
  parkReceived?: boolean;
}

/**
 * Records a mail known only by its envelope as a parked ticket with `reason` (oversize mail; mail that repeatedly
 * failed to ingest). A mail that already has a ticket is left as it is, unless {@link ParkOptions.parkReceived}.
 */
export async function parkFromEnvelope(
  envelope: EnvelopeInfo,
  size: number,
  reason: string,
  deps: IngestDeps,
  options: ParkOptions = {},
): Promise<IngestResult> {
  const log = deps.logger ?? createLogger('ingest');
  const refs = threadRefs({ ...(envelope.inReplyTo ? { inReplyTo: envelope.inReplyTo } : {}) });
  const addresses = envelopeAddresses(envelope);
  const recipient = (addresses.replyTo ?? addresses.from)?.address;
  const thread = refs.length > 0 ? await produce(deps.redis, () => deps.store.joinConversation(refs, recipient)) : {};
  const input = ticketInputForEnvelope(envelope, size, reason, thread.conversationId);
  if (thread.refusedRoot) input.note = [refusedThreadNote(thread.refusedRoot), input.note].filter(Boolean).join('; ');
  // As in ingestMessage: a ticket under the Message-ID that another sender's mail made is not this mail's.
  const holder = await produce(deps.redis, () => deps.store.get(ticketIdFor(input.messageId), { agentResult: false }));
  if (holder && !sameEnvelopeSender(holder, envelope)) {
    input.note = [`Message-ID ${input.messageId} is already the id of ticket ${holder.id}, another mail (other sender or date); this mail was given its own id`, input.note].join('; ');
    // A made-up id (the poller names mail it cannot fetch by its place) is no mail's own.
    if (!isSyntheticMessageId(input.messageId)) input.mailMessageId = input.messageId;
    input.messageId = reusedMessageId(input.messageId, envelopeSender(envelope));
  }
  const ticket = newTicket(input);
  const created = await produce(deps.redis, () => deps.store.createIfAbsent(ticket));
  if (!created.created) {
    if (options.parkReceived && created.ticket.state === 'received') {
      const parked = await produce(deps.redis, () =>
        deps.store.transition(ticket.id, { from: ['received'], to: 'parked', actor: POLLER_ACTOR, note: reason, patch: { reason } }),
      );
      log.warn({ ticketId: ticket.id, reason }, 'Mail parked for a person');
      return { ticketId: ticket.id, outcome: 'parked', state: parked.state };
    }
    return { ticketId: ticket.id, outcome: 'duplicate', state: created.ticket.state };
  }
  log.warn({ ticketId: ticket.id, reason }, 'Mail parked for a person without downloading it');
  return { ticketId: ticket.id, outcome: 'parked', state: 'parked' };
}

/**
 * Whether `mail` can be the mail `ticket` was made from, delivered again (an IMAP re-sync, a copy in a second folder, a
 * gateway that tagged the subject): same sender, same Reply-To, and the same Date when both have one. What the mail
 * says is compared next, by {@link sameContent}. The sender is the one the ticket was made with: the customer behind
 * our own group's rewritten From ({@link ticketInputForMail}), or that copy would be taken for another mail.
 */
function sameMail(ticket: Pick<Ticket, 'from' | 'replyTo' | 'mailDate'>, mail: InboundMail, mailboxes: OwnMailboxes): boolean {
  const from = ((customerBehindOwnGroup(mail, mailboxes) ?? mail.from)?.address ?? '').trim().toLowerCase();
  const replyTo = (mail.replyTo?.address ?? from).trim().toLowerCase();
  const date = mailDateOf(mail);
  return ticket.from === from && ticket.replyTo.toLowerCase() === replyTo && (!ticket.mailDate || !date || ticket.mailDate === date);
}

/**
 * Whether `mail` says what the stored mail of `ticket` says ({@link mailContentKey}), so that a copy is one ticket
 * however it travelled, and an edited or different mail under the same Message-ID, sender and date is not lost as a
 * copy. Identical bytes (a re-read after a crash, a resync) need no parsing. A ticket with no stored mail (made from
 * an IMAP envelope: oversize, or parked after failing to ingest; or its raw copy already deleted) cannot be
 * compared and is taken for this mail, as a second answer is worse than a missed edit.
 */
async function sameContent(ticket: Ticket, mail: InboundMail, raw: Buffer, deps: IngestDeps): Promise<boolean> {
  if (!ticket.rawRef) return true;
  const stored = await produce(deps.redis, () => loadRaw(deps.redis, deps.prefix, ticket.id));
  if (!stored || stored.equals(raw)) return true;
  let storedMail: InboundMail;
  try {
    storedMail = await parseInboundMail(stored, parseOptions(deps));
  } catch (err) {
    if (!(err instanceof MailParseError)) throw err;
    // The stored bytes are no mail, these are: not the same mail.
    return false;
  }
  return mailContentKey(storedMail) === mailContentKey(mail);
}

/**
 * What the author of a mail wrote, as one key (sha256, hex): its text (HTML as text) with every run of white space as
 * one space, and its attachments' names, types and decoded sizes; the subject only when the mail has neither, since
 * it then is the question. Read from the decoded mail, not its bytes, so what relays do on the way does not count:
 * trace fields (Received, Delivered-To, Return-Path, spam verdicts, ARC), a transfer encoding changed (8bit to base64
 * or quoted-printable, lines re-wrapped), a subject a gateway tagged. A list footer or a gateway's banner added to
 * the text does count: such a copy is taken for another mail.
 */
export function mailContentKey(mail: Pick<InboundMail, 'text' | 'attachments' | 'subject'>): string {
  const squeeze = (text: string): string => text.normalize('NFC').replace(/\s+/gu, ' ').trim();
  const text = squeeze(mail.text);
  const attachments = mail.attachments.map((a) => [a.filename ?? '', a.contentType, a.size]);
  const subject = text || attachments.length > 0 ? '' : squeeze(mail.subject);
  return createHash('sha256').update(JSON.stringify(['content', text, attachments, subject])).digest('hex');
}

/** How every mail is parsed here, the stored one a new mail is compared with too. */
function parseOptions(deps: Pick<IngestDeps, 'config'>): ParseOptions {
  // With the headers the checks after the draft read (Authentication-Results, Errors-To), so the ticket records them.
  return { maxBytes: deps.config.MAX_EMAIL_BYTES, extraHeaders: replySignalHeaders(deps.config), ownAddresses: ourAddressesOf(deps.config) };
}

/** The mail's Date header as ISO 8601, when it had a valid one ({@link Ticket.mailDate}). */
function mailDateOf(mail: Pick<InboundMail, 'date'>): string | undefined {
  return mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString() : undefined;
}

/** A mail's From, Reply-To and Date as the reused-id derivation reads them. */
interface MailSender {
  from: string;
  replyTo: string;
  date: string;
}

function mailSender(mail: InboundMail): MailSender {
  return { from: mail.from?.address ?? '', replyTo: mail.replyTo?.address ?? '', date: mailDateOf(mail) ?? '' };
}

/**
 * The same from an IMAP envelope (mail known only by it: oversize, or failing to ingest), so both derive one id: its
 * usable addresses, as parsing keeps a downloaded mail's and as the ticket was made with ({@link envelopeAddresses}).
 */
function envelopeSender(envelope: EnvelopeInfo): MailSender {
  const date = envelope.date instanceof Date ? envelope.date : envelope.date ? new Date(envelope.date) : undefined;
  const { from, replyTo } = envelopeAddresses(envelope);
  return {
    from: from?.address ?? '',
    replyTo: replyTo?.address ?? '',
    date: date && !Number.isNaN(date.getTime()) ? date.toISOString() : '',
  };
}

/**
 * {@link sameMail} for a mail known by its envelope, which has no list headers: the address a reply goes to must be
 * the ticket's sender or Reply-To, and the dates must agree when both have one.
 */
function sameEnvelopeSender(ticket: Pick<Ticket, 'from' | 'replyTo' | 'mailDate'>, envelope: EnvelopeInfo): boolean {
  const sender = envelopeSender(envelope);
  const replyAddress = (sender.replyTo || sender.from).trim().toLowerCase();
  const known = [ticket.from, ticket.replyTo].map((a) => a.trim().toLowerCase());
  return known.includes(replyAddress) && (!ticket.mailDate || !sender.date || ticket.mailDate === sender.date);
}

/**
 * The id of a mail that reuses `messageId`: derived from the id, its sender and its date, and, for a mail told apart
 * only by what it says, its {@link mailContentKey}, so it is stable. Without `contentKey` the derivation is the one
 * tickets keyed apart by sender were stored under, so those are found again.
 */
function reusedMessageId(messageId: string, sender: MailSender, contentKey?: string): string {
  const parts = ['reused', messageId, sender.from, sender.replyTo, sender.date, ...(contentKey ? [contentKey] : [])];
  return syntheticMessageId(createHash('sha256').update(JSON.stringify(parts)).digest('hex'));
}

async function duplicate(ticket: Ticket, deps: IngestDeps, log: Logger): Promise<IngestResult> {
  // Still `received`: the earlier ingest may have stopped before its job was added. Same id, so BullMQ keeps one job.
  if (ticket.state === 'received') await addAnswerJob(ticket, deps);
  log.info({ ticketId: ticket.id, state: ticket.state }, 'Mail already has a ticket; nothing new created');
  return { ticketId: ticket.id, outcome: 'duplicate', state: ticket.state };
}

async function addAnswerJob(ticket: Ticket, deps: IngestDeps): Promise<void> {
  const job = answerTicketJob(deps.config, ticket.id, jobGeneration(ticket), deps.tuning);
  await produce(deps.redis, () => deps.ticketsQueue.add(job.name, job.data, job.opts));
}
