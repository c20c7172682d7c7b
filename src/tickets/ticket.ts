/**
 * The ticket: one inbound support mail and everything that happened to it, plus the one table of state
 * transitions every component must go through (see {@link TRANSITIONS}).
 *
 * A ticket is keyed by the sha256 of its normalised Message-ID, so the same mail seen twice (an IMAP re-poll, a
 * poller crash between queueing and flagging) always maps to the same ticket and is answered at most once.
 */
import { createHash } from 'node:crypto';
import type { AgentResult } from '../agent/types.js';
import type { ReplySignals } from '../mail/classify.js';
import type { DeliveryReport } from '../mail/delivery-report.js';
import type { ApprovalRecord, TicketOutcome } from './outcome.js';
import { MODEL_SERVER_WAIT_NOTE } from './park-notes.js';

/** Every state a ticket can be in; the order is the natural order of the happy paths. */
export const TICKET_STATES = [
  'received',
  'processing',
  'drafted',
  'sending',
  'sent',
  'parked',
  'approved',
  'rejected',
  'ignored',
  'failed',
] as const;

/** One state of a ticket; see {@link TRANSITIONS} for how states connect. */
export type TicketState = (typeof TICKET_STATES)[number];

/**
 * States a ticket may be created in. Most mail starts as `received`; the poller creates `parked` tickets for mail
 * it cannot hand to the agent (too large, unparseable) and `ignored` ones for mail that must never be answered
 * (auto-replies, our own addresses), so that even those leave a record and the same mail is not re-examined.
 */
export const INITIAL_STATES = ['received', 'parked', 'ignored'] as const satisfies readonly TicketState[];
/** A state a ticket may be created in. */
export type InitialState = (typeof INITIAL_STATES)[number];

/**
 * The allowed transitions, as the single source of truth. Anything not listed is an
 * {@link IllegalTransitionError}. The reason for every edge:
 *
 * - `received`
 *   - → `processing`: an agent worker picked the ticket up.
 *   - → `ignored`: a check before the agent decided no reply is due (auto-submitted mail, mail from our own
 *     addresses, a mail loop).
 *   - → `parked`: a check before the agent decided a person must look (auto-reply limit of the sender reached,
 *     nothing answerable in the mail, a mail the agent cannot read: encrypted, a calendar invitation…).
 *   - → `failed`: the ticket cannot be processed at all (its stored raw mail is gone, the payload is corrupt).
 * - `processing`
 *   - → `drafted`: the agent produced a reply that may go out without review.
 *   - → `parked`: the draft needs a person (review mode, incomplete answer, rate limit, a link nothing vouches
 *     for), or the temporary failures used up AGENT_ATTEMPTS: the mail is handed to a person rather than lost.
 *     Also a person's edge, and only while the ticket waits for the model server ({@link waitsForModelServer}): they
 *     take it over to answer it themselves (src/tickets/review.ts `takeOverTicket`), and the agent no longer answers
 *     it. Written on the version the person read, so a run under way finds the ticket parked when it stores its draft
 *     and leaves it, and a later run skips it. Any other `processing` ticket is the agent's until it parks or drafts it.
 *   - → `failed`: a permanent error (bad data, a bug) that retrying cannot fix.
 *   - → `processing`: re-entry. A worker crashed or stalled mid-run and BullMQ handed the job to another
 *     attempt; the new attempt records itself so the history shows the run happened twice.
 * - `drafted`
 *   - → `sending`: the sender claimed the draft; this claim is what makes a reply go out at most once.
 *   - → `parked`: the draft could not be queued automatically after all (the sender's limit was reached
 *     between drafting and queueing) and waits for a person.
 * - `parked`
 *   - → `approved`: a person accepted (and possibly edited) the draft.
 *   - → `rejected`: a person decided no reply goes out (or answered by hand elsewhere), or closed a ticket whose reply
 *     cannot be delivered (the SMTP server refused it for good, or it bounced).
 *   - → `processing`: a person asked the agent to try again (e.g. after the manuals were updated).
 *   - → `sent`: a person confirmed that a reply parked as "may already have been sent" did arrive (the customer
 *     answered it, the mail server's log shows it): it was sent, by the attempt that lost the server's answer, and
 *     only a person can say so. Nothing is sent again.
 * - `approved`
 *   - → `sending`: the sender claimed the approved reply; same at-most-once claim as from `drafted`.
 *   - → `parked`: the send job of an approved reply failed for good before the claim; a person looks again.
 * - `sending`
 *   - → `sent`: the SMTP server accepted the reply.
 *   - → `drafted` / `approved`: the SMTP server did NOT accept it (4xx, connection refused before DATA), so the
 *     claim is handed back and the retry claims it again; without this the retry could not tell "not sent" from
 *     "crashed after acceptance" and would park a reply that simply has to be sent later.
 *   - → `parked`: a permanent SMTP rejection (5xx), SENDER_ATTEMPTS used up, or a crash after which it is
 *     unknown whether the server accepted the reply: a person confirms instead of risking a second copy.
 * - `failed`
 *   - → `parked`: a failed ticket is handed to a person to answer by hand, so no mail is silently dropped.
 *   - → `processing`: a person retries after the cause was fixed (e.g. a deploy fixing a parser bug).
 * - `ignored`
 *   - → `parked`: a person reopens mail the automatic checks ignored by mistake.
 * - `sent`, `rejected`: final. A follow-up mail is a new ticket in the same conversation.
 */
export const TRANSITIONS = {
  received: ['processing', 'ignored', 'parked', 'failed'],
  processing: ['drafted', 'parked', 'failed', 'processing'],
  drafted: ['sending', 'parked'],
  parked: ['approved', 'rejected', 'processing', 'sent'],
  approved: ['sending', 'parked'],
  sending: ['sent', 'parked', 'drafted', 'approved'],
  sent: [],
  rejected: [],
  ignored: ['parked'],
  failed: ['parked', 'processing'],
} as const satisfies Record<TicketState, readonly TicketState[]>;

/**
 * True while the agent worker waits for the model server to answer again (AGENT_MODEL_OUTAGE_MINUTES): the ticket is
 * `processing` and its reason is the wait's ({@link MODEL_SERVER_WAIT_NOTE}). Only then may a person take it from the
 * agent (`processing → parked`, see {@link TRANSITIONS}); otherwise the agent is answering it right now.
 */
export function waitsForModelServer(ticket: Pick<Ticket, 'state' | 'reason'>): boolean {
  return ticket.state === 'processing' && (ticket.reason?.startsWith(MODEL_SERVER_WAIT_NOTE) ?? false);
}

/** States no transition leaves. */
export const FINAL_STATES: readonly TicketState[] = TICKET_STATES.filter((s) => TRANSITIONS[s].length === 0);

/** True when the table allows `from → to`. */
export function canTransition(from: TicketState, to: TicketState): boolean {
  return (TRANSITIONS[from] as readonly TicketState[]).includes(to);
}

/** True for a string naming a {@link TicketState}. */
export function isTicketState(value: unknown): value is TicketState {
  return typeof value === 'string' && (TICKET_STATES as readonly string[]).includes(value);
}

/** Thrown when a transition is not in {@link TRANSITIONS}; the ticket is left unchanged. */
export class IllegalTransitionError extends Error {
  constructor(
    readonly ticketId: string,
    readonly from: TicketState,
    readonly to: TicketState,
  ) {
    super(`Illegal ticket transition ${from} → ${to} for ticket ${ticketId} (allowed from ${from}: ${TRANSITIONS[from].join(', ') || 'none'})`);
    this.name = 'IllegalTransitionError';
  }
}

/** A short summary of one attachment; the content stays in the raw message. */
export interface AttachmentSummary {
  /** File name as given by the sender, if any. */
  filename?: string;
  /** MIME type, e.g. `application/pdf`. */
  contentType: string;
  /** Size in bytes. */
  size: number;
}

/** What happened to the reply on its way out. */
export interface OutboundInfo {
  /**
   * Message-ID of our reply, assigned before the first SMTP attempt so every retry reuses it and the thread index
   * can find follow-ups that reply to it.
   */
  messageId: string;
  /**
   * When the SMTP server accepted the reply (ISO 8601); absent until then. For a reply a person confirmed arrived
   * ({@link deliveryCheck}), when the first attempt that may have delivered it claimed the reply: no server said when.
   */
  sentAt?: string;
  /** The SMTP server's response line to the accepted (or last rejected) attempt, for audits. */
  smtpResponse?: string;
  /** The person who approved the reply; absent for automatic replies. */
  approvedBy?: string;
  /** True when the reply went out without a person (sent with `Auto-Submitted: auto-replied`). */
  autoSubmitted: boolean;
  /**
   * Where and when the copy of the sent reply was filed in the mailbox's Sent folder (IMAP_SENT_MAILBOX); absent
   * while none was filed. Written after the APPEND, so a copy job that runs again does nothing.
   */
  sentCopy?: { mailbox: string; at: string };
  /**
   * A person's word on the reply's delivery where no SMTP answer settled it: that a reply parked as "may already have
   * been sent" arrived, or that one the SMTP server refused for good (or that bounced) is closed without a reply.
   * Absent for replies whose fate the SMTP server told.
   */
  deliveryCheck?: DeliveryCheck;
}

/** A person's word on a reply's delivery ({@link OutboundInfo.deliveryCheck}), with who and when. */
export interface DeliveryCheck {
  /**
   * `arrived`: the reply reached the customer (the ticket went `parked → sent` without an SMTP response);
   * `undeliverable`: it cannot be delivered to this address, and the ticket was closed without a reply
   * (`parked → rejected`, not a judgement of the draft).
   */
  verdict: 'arrived' | 'undeliverable';
  /** The operator's name (the history entry's actor is `operator:<by>`). */
  by: string;
  /** When they said so (ISO 8601). */
  at: string;
  /** What they noted, e.g. how they know. */
  note?: string;
}

/** A person's acknowledgement of something that needs no state change: who, when, and what they noted. */
export interface Acknowledgement {
  /** The operator's name. */
  by: string;
  /** When (ISO 8601). */
  at: string;
  note?: string;
}

/** What a bounce said, in one line: its status and the receiving server's words, then the recipient. */
export function describeBounce(bounce: Pick<ReplyBounce, 'status' | 'diagnostic' | 'recipient'>): string {
  const said = [bounce.status, bounce.diagnostic].filter(Boolean).join(' ') || 'no reason given';
  return bounce.recipient ? `${said} (to ${bounce.recipient})` : said;
}

/** A bounce of our reply, as recorded on the replied ticket ({@link Ticket.replyBounce}). */
export interface ReplyBounce {
  /** When the bounce was read (ISO 8601). */
  at: string;
  /** The ticket of the bounce itself (ignored as `bounce`), which holds the whole report. */
  reportTicketId: string;
  /** The recipient the report names, its status code and the receiving server's words, when it gave them. */
  recipient?: string;
  status?: string;
  diagnostic?: string;
  /**
   * A person took care of the bounce (reached the customer another way, or nothing more can be done): the ticket
   * keeps its state and outcome and leaves the start page's list of replies that did not arrive. Set only by
   * `TicketStore.acknowledgeReplyBounce`.
   */
  acknowledged?: Acknowledgement;
}

/** One entry of a ticket's append-only history: a state change, who made it, and why. */
export interface HistoryEntry {
  /** When the change was stored (ISO 8601). */
  at: string;
  /** The previous state; `null` for the entry that created the ticket. */
  from: TicketState | null;
  /** The new state. */
  to: TicketState;
  /** Who made the change: a component (`poller`, `agent-worker`, `sender`) or `operator:<name>`. */
  actor: string;
  /** Free text: the reason, the error, the attempt number. */
  note?: string;
}

/** One support mail and what happened to it. */
export interface Ticket {
  /** The message key: sha256 (hex) of the normalised Message-ID; see {@link ticketIdFor}. */
  id: string;
  /**
   * The Message-ID the ticket is keyed by, normalised to `<left@right>` (see {@link normalizeMessageId}): the mail's
   * own, or a made-up `…@no-message-id.invalid` one for mail without one and for a mail whose Message-ID another
   * ticket's mail already holds (then the mail's own is {@link mailMessageId}).
   */
  messageId: string;
  /**
   * The mail's own Message-ID (normalised) when the ticket is keyed by another ({@link messageId}): the reply names
   * it in In-Reply-To and References, so it threads in the customer's mail client. It is not in the thread index,
   * which keeps it for the ticket that had it first. Absent when the key is the mail's own id, and on tickets stored
   * before it existed.
   */
  mailMessageId?: string;
  /**
   * The ticket whose mail has this mail's Message-ID, sender and date but says something else (src/mail/ingest.ts
   * keys this one apart). It is kept, since it may be an edited mail sent again; but it may also be a copy changed
   * on the way (a gateway's banner on one route), so its draft waits for a person: the customer is never answered
   * twice on a guess.
   */
  possibleCopyOf?: string;
  /** Sender address (From), lower-cased; the auto-reply limit counts per this address. */
  from: string;
  /** Display name of the sender, if the From header had one. */
  fromName?: string;
  /** Address replies go to: Reply-To when present, otherwise From. */
  replyTo: string;
  /**
   * Display name of the Reply-To, when the mail had a Reply-To with one: the reply greets that mailbox by it. Absent
   * otherwise, and on tickets stored before it was kept (their reply to another mailbox than the From goes unnamed).
   */
  replyToName?: string;
  /** Subject of the inbound mail as received. */
  subject: string;
  /** The References header of the inbound mail (normalised Message-IDs, oldest first). */
  references: string[];
  /** The In-Reply-To header of the inbound mail (normalised), if any. */
  inReplyTo?: string;
  /** The question given to the agent: the new text of the mail without quoted history or signature. */
  question: string;
  /**
   * The customer's own words in {@link question} as the parser found them, kept when the mail forwards a mail with
   * words: their note above it, '' when they only forward (the question is then the forwarded mail's text alone). Absent
   * when the mail forwards none, the question being all theirs (not stored twice), and on tickets stored before it was
   * kept; the draft checks then guess the note from the question (jobs/answer-ticket.ts, `customerOwnWords`).
   */
  customerWords?: string;
  /**
   * The mail's whole text (HTML turned into text, quotes kept), made once at ingest for the review page, so a page
   * view never parses the raw mail again; at most {@link MAX_MAIL_TEXT_CHARS}. Absent on tickets stored before it.
   */
  mailText?: string;
  /** Id of the first ticket of the mail thread; equal to {@link Ticket.id} for a new conversation. */
  conversationId: string;
  /** Current state; changed only through `TicketStore.transition`. */
  state: TicketState;
  /** Why the ticket was parked, ignored, rejected or failed; cleared by patching `null`. */
  reason?: string;
  /** When the ticket was created (ISO 8601). */
  createdAt: string;
  /**
   * When the poller noticed the mail (the start of the mailbox sync that fetched it: an IDLE notice, a poll), ISO
   * 8601; absent for tickets made otherwise. With `createdAt` and the history it splits the time to a reply.
   */
  noticedAt?: string;
  /**
   * The mail's Date header (ISO 8601), when it had a valid one: with From and Reply-To it tells a second delivery of
   * the same mail from another mail that reuses its Message-ID.
   */
  mailDate?: string;
  /**
   * The offset from UTC, in minutes, the mail's Date header was written in (`+0900` → 540): the customer's own zone,
   * which {@link mailDate} (an instant, kept in that format for duplicate detection) loses. The reply's quote dates
   * the mail in it, as the customer's client showed it. Absent when the header named no zone, and on tickets stored
   * before it was kept.
   */
  mailDateOffsetMinutes?: number;
  /** When the ticket last changed (ISO 8601). */
  updatedAt: string;
  /** Attachments of the inbound mail (names, types, sizes only). */
  attachments: AttachmentSummary[];
  /** Where the raw message is stored (e.g. a path under DATA_DIR); absent when it was not downloaded. */
  rawRef?: string;
  /**
   * The headers and addresses the reply decision reads, recorded at ingest; absent for tickets made from an
   * envelope, for very large ones, and for tickets stored before this field existed (the agent then parses the
   * raw mail).
   */
  replySignals?: ReplySignals;
  /**
   * For a bounce that names the mail it returns (src/mail/delivery-report.ts), recorded at ingest: the agent worker
   * marks our reply it names as bounced when it ignores this mail.
   */
  deliveryReport?: DeliveryReport;
  /**
   * Why the agent cannot answer the mail from its text (encrypted, only in winmail.dat, a calendar invitation),
   * recorded at ingest (src/mail/unreadable.ts): the agent worker parks the ticket with it instead of answering.
   */
  unreadable?: string;
  /**
   * Why a person, not the agent, decides whether this mail gets an answer, recorded at ingest: the poller's first start
   * found it long unread (`held: …`), or a raw-mail budget kept no raw copy of it (`raw mail not kept: …`). The ticket
   * starts `received` all the same, so the checks before the agent still ignore what they ignore on any day; where the
   * limits and the agent would run, the agent worker parks it with this reason instead. Absent on other tickets, and
   * on tickets stored before it existed (those were created `parked`).
   */
  heldReason?: string;
  /** The agent's full result (plan, subtasks, sources, usage); absent until the agent ran. */
  agent?: AgentResult;
  /** The reply text to send: the agent's answer, or a person's edit of it. */
  draft?: string;
  /** Our reply's Message-ID and delivery record; absent until a reply is prepared for sending. */
  outbound?: OutboundInfo;
  /**
   * The reply did not arrive: a bounce naming its Message-ID came back after the SMTP server accepted it. Set once,
   * by the first such report (later ones change nothing), and only by `TicketStore.recordReplyBounce`. A field of its
   * own, not part of {@link outbound}: the writes that update `outbound` (the Sent-folder copy) start from a copy read
   * earlier and would drop it.
   */
  replyBounce?: ReplyBounce;
  /** What the latest approval changed of the agent's draft; set by the approval, read when the reply is sent. */
  approval?: ApprovalRecord;
  /**
   * How the ticket ended; set by the store when the ticket enters `sent`, `rejected`, `ignored` or `failed` (see
   * src/tickets/outcome.ts), removed when a person reopens it.
   */
  outcome?: TicketOutcome;
  /** Every state change, oldest first; entries are only ever appended. */
  history: HistoryEntry[];
  /** Optimistic-concurrency counter, incremented by every stored change; managed by the store. */
  version: number;
}

/** Fields a caller may change without a state change (and alongside one). `null` removes the field. */
export const PATCHABLE_FIELDS = ['reason', 'draft', 'agent', 'outbound', 'rawRef', 'attachments', 'approval'] as const;
/** A field of {@link PATCHABLE_FIELDS}. */
export type PatchableField = (typeof PATCHABLE_FIELDS)[number];
/** A change of non-state fields; a `null` value removes an optional field. */
export type TicketPatch = { [K in PatchableField]?: Ticket[K] | null };

/**
 * A Message-ID as stored and indexed: the canonical `<left@right>` spelling of src/mail/message-id.ts, so `<a@b>`
 * from one header and a bare `a@b` from another (or from a client that drops the brackets) name the same mail.
 * Returns '' for an empty id.
 */
export function normalizeMessageId(messageId: string): string {
  const bracketed = messageId.trim().replace(/^<+/, '');
  // The closing brackets are counted off the end, not matched by `/>+$/`: that rescans a run of `>` inside the id from
  // each one (security review 15: quadratic, and a header may be 1 MB).
  let end = bracketed.length;
  while (end > 0 && bracketed.charAt(end - 1) === '>') end--;
  const inner = bracketed.slice(0, end).trim();
  return inner ? `<${inner}>` : '';
}

/**
 * The ticket id of a mail: sha256 (hex) of its normalised Message-ID. For mail with a Message-ID this equals the
 * mail module's `messageKey`, so the same mail has one key everywhere.
 */
export function ticketIdFor(messageId: string): string {
  return createHash('sha256').update(normalizeMessageId(messageId)).digest('hex');
}

/** Matches a ticket id (lower-case sha256 hex). */
export const TICKET_ID_PATTERN = /^[0-9a-f]{64}$/;

/** What the poller knows about a mail when it creates the ticket. */
export interface NewTicketInput {
  /** The mail's Message-ID (any spelling; normalised), or a synthetic one for mail without. */
  messageId: string;
  /** The mail's own Message-ID when {@link messageId} is another ({@link Ticket.mailMessageId}). */
  mailMessageId?: string;
  /** {@link Ticket.possibleCopyOf}. */
  possibleCopyOf?: string;
  /** Sender address (lower-cased on the ticket). */
  from: string;
  /** Sender display name. */
  fromName?: string;
  /** Reply-To address; defaults to `from`. */
  replyTo?: string;
  /** The Reply-To's display name ({@link Ticket.replyToName}); kept only beside a {@link replyTo}. */
  replyToName?: string;
  /** Subject as received. */
  subject: string;
  /** References header, oldest first. */
  references?: string[];
  /** In-Reply-To header. */
  inReplyTo?: string;
  /** The customer's question (new text of the mail). */
  question: string;
  /** {@link Ticket.customerWords}. */
  customerWords?: string;
  /** The mail's whole text for the review page; cut to {@link MAX_MAIL_TEXT_CHARS}. */
  mailText?: string;
  /** Root ticket of the thread, from `TicketStore.findConversation`; defaults to the new ticket itself. */
  conversationId?: string;
  /** Defaults to `received`. */
  state?: InitialState;
  /** Why the ticket starts parked or ignored. */
  reason?: string;
  /** Attachment summaries. */
  attachments?: AttachmentSummary[];
  /** Where the raw message is stored. */
  rawRef?: string;
  /** What the reply decision reads of the mail ({@link Ticket.replySignals}). */
  replySignals?: ReplySignals;
  /** Who creates the ticket, for the first history entry. */
  actor: string;
  /** Note of the first history entry. */
  note?: string;
  /** When the poller noticed the mail ({@link Ticket.noticedAt}). */
  noticedAt?: string;
  /** The mail's Date header ({@link Ticket.mailDate}). */
  mailDate?: string;
  /** The offset that header was written in ({@link Ticket.mailDateOffsetMinutes}); kept only beside a {@link mailDate}. */
  mailDateOffsetMinutes?: number;
  /** What a bounce reports ({@link Ticket.deliveryReport}). */
  deliveryReport?: DeliveryReport;
  /** Why the agent cannot read the mail ({@link Ticket.unreadable}). */
  unreadable?: string;
  /** Why a person decides whether the mail is answered ({@link Ticket.heldReason}). */
  heldReason?: string;
}

/** Builds a new ticket (not yet stored) with its first history entry. */
export function newTicket(input: NewTicketInput, now: Date = new Date()): Ticket {
  const messageId = normalizeMessageId(input.messageId);
  if (!messageId) throw new TypeError('newTicket: messageId is empty');
  const id = ticketIdFor(messageId);
  const at = now.toISOString();
  const state = input.state ?? 'received';
  const from = input.from.trim().toLowerCase();
  const ticket: Ticket = {
    id,
    messageId,
    from,
    replyTo: (input.replyTo ?? from).trim(),
    subject: input.subject,
    references: (input.references ?? []).map(normalizeMessageId).filter(Boolean),
    question: input.question,
    conversationId: input.conversationId ?? id,
    state,
    createdAt: at,
    updatedAt: at,
    attachments: input.attachments ?? [],
    history: [{ at, from: null, to: state, actor: input.actor, ...(input.note ? { note: input.note } : {}) }],
    version: 1,
  };
  const mailMessageId = normalizeMessageId(input.mailMessageId ?? '');
  if (mailMessageId && mailMessageId !== messageId) ticket.mailMessageId = mailMessageId;
  if (input.possibleCopyOf) ticket.possibleCopyOf = input.possibleCopyOf;
  if (input.fromName) ticket.fromName = input.fromName;
  if (input.replyTo && input.replyToName) ticket.replyToName = input.replyToName;
  if (input.inReplyTo && normalizeMessageId(input.inReplyTo)) ticket.inReplyTo = normalizeMessageId(input.inReplyTo);
  if (input.reason) ticket.reason = input.reason;
  if (input.customerWords !== undefined) ticket.customerWords = input.customerWords;
  if (input.rawRef) ticket.rawRef = input.rawRef;
  if (input.mailText !== undefined) {
    ticket.mailText =
      input.mailText.length > MAX_MAIL_TEXT_CHARS ? `${input.mailText.slice(0, MAX_MAIL_TEXT_CHARS)}\n[… cut at ${MAX_MAIL_TEXT_CHARS} characters]` : input.mailText;
  }
  if (input.replySignals) ticket.replySignals = input.replySignals;
  if (input.noticedAt) ticket.noticedAt = input.noticedAt;
  if (input.mailDate) ticket.mailDate = input.mailDate;
  if (input.mailDate && input.mailDateOffsetMinutes !== undefined) ticket.mailDateOffsetMinutes = input.mailDateOffsetMinutes;
  if (input.deliveryReport) ticket.deliveryReport = input.deliveryReport;
  if (input.unreadable) ticket.unreadable = input.unreadable;
  if (input.heldReason) ticket.heldReason = input.heldReason;
  return ticket;
}

/** Characters of a mail's text kept on its ticket for the review page (the raw mail stays in Redis and IMAP); small, since every state change rewrites the ticket document. */
export const MAX_MAIL_TEXT_CHARS = 20_000;

/**
 * Message-IDs a mail names as its parents, most specific first: In-Reply-To, then References newest first.
 * This is the order {@link Ticket}-thread lookups should try.
 */
export function threadRefs(mail: { inReplyTo?: string; references?: readonly string[] }): string[] {
  const refs = [mail.inReplyTo, ...[...(mail.references ?? [])].reverse()]
    .filter((r): r is string => typeof r === 'string')
    .map(normalizeMessageId)
    .filter(Boolean);
  return [...new Set(refs)];
}

/**
 * The generation of a ticket for job ids: the number of state changes so far. A job enqueued for one state of the
 * ticket gets the same id however often it is enqueued (BullMQ ignores the duplicates), and a job enqueued after a
 * later change (an operator's retry, a resend after a person confirmed a crashed send) gets a new id, so BullMQ does
 * not mistake it for the finished job of an earlier round.
 */
export function jobGeneration(ticket: Pick<Ticket, 'history'>): number {
  return ticket.history.length;
}
