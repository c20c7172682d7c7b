/**
 * The same question from the same customer (the address the reply goes to), again, within `REPEATED_QUESTION_HOURS`:
 * a customer who sends twice (a double click, a "resend" in Outlook, which makes a new Message-ID, or impatience) must
 * not get the same reply twice.
 * The same means the same subject (reply and forward prefixes aside) and the same question text: both copies of a
 * double send or a resend have them, while a script that numbers its test mails in the subject does not.
 *
 * The first copy answers; a later one is parked for a person, naming the first, without a draft of its own, while the
 * first is being answered, was answered, or is parked: a parked first copy waits for a person (its draft for review, as
 * nearly every draft in `REVIEW_MODE=learn`, or no draft after a failure, which "Get a new draft" gives it), so a later
 * copy with a draft of its own would let a person approving both send the customer two replies. Only a first copy that
 * ended without an answer (rejected, failed, ignored) hands the question over: the later copy is answered and takes
 * its place. A later copy parked while the first was waiting stays parked naming it when the first is rejected; a
 * person reads it there (the reason links the first) and gets it a draft or writes the reply.
 *
 * Key: `P:repeat:<sha256 of the comparable reply address and the fingerprints of the subject and the question>` → the
 * id of the ticket that holds the question; set if absent, expiring after the window, which runs from the first copy's
 * claim: a copy after it is a new question, even when the first is still parked. Hashed, so neither the address nor
 * the text becomes part of a key name. A retried job of the holding ticket finds its own id and goes on.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { comparableAddress } from '../mail/addresses.js';
import { subjectAsQuestion } from '../mail/parse.js';
import { erasedTicketsKey } from './erased.js';
import { LuaScript } from './lua.js';
import { TICKET_STATES, type Ticket, type TicketState } from './ticket.js';

/**
 * States of a first copy that ended without an answer, and so hands the question to a later copy: a person rejected
 * it, it failed for good, or the checks ignored it. Named rather than their complement, so a state added later holds
 * the question: a second draft is worse than a later copy waiting for a person.
 */
export const UNANSWERED_END_STATES: readonly TicketState[] = ['rejected', 'failed', 'ignored'];

/**
 * States of a first copy that is being answered, was, or waits for a person (`parked`): a later copy waits for a person
 * instead of getting a draft of its own.
 */
export const ANSWERING_STATES: readonly TicketState[] = TICKET_STATES.filter((state) => !UNANSWERED_END_STATES.includes(state));

/**
 * The question as compared: its letters and digits only, Unicode NFKC (full-width and half-width forms alike) and in
 * lower case, so a copy re-spaced or re-punctuated (`。` or `.`) is the same question. Quoted history and signatures
 * are already gone from {@link Ticket.question}.
 */
export function questionFingerprint(question: string): string {
  return question.normalize('NFKC').toLowerCase().replace(/[\p{P}\p{S}\p{Z}\s]+/gu, '');
}

/**
 * The Redis key of one customer's question under one subject. The customer is the address the reply goes to, as the
 * sender composes it (`ticket.replyTo || ticket.from`: the Reply-To, which the ticket defaults to the From): what the
 * window keeps from happening is that address getting the same reply twice. Keyed by the From, anyone could forge a
 * customer's From with the same subject and question, a Reply-To of their own, and have their mail parked as the
 * customer's repeat, naming the customer's ticket to the person who reads it (security review 19, finding 4); and a
 * mail whose reply goes to the customer under another From would not count as a repeat. A ticket without `replyTo`
 * (callers that have only the From) is keyed by the From.
 */
export function repeatedQuestionKey(prefix: string, ticket: Pick<Ticket, 'from' | 'subject' | 'question'> & Partial<Pick<Ticket, 'replyTo'>>): string {
  return questionKeyOf(prefix, ticket.replyTo || ticket.from, ticket);
}

/**
 * Every key a ticket's question may be claimed under, for erasure: the reply address's ({@link repeatedQuestionKey})
 * and the From's, since claims made before the key was the reply address were keyed by the From (security review 19)
 * and live for a whole window after an upgrade. One key when both addresses are the same.
 */
export function repeatedQuestionKeys(prefix: string, ticket: Pick<Ticket, 'from' | 'subject' | 'question'> & Partial<Pick<Ticket, 'replyTo'>>): string[] {
  return [...new Set([repeatedQuestionKey(prefix, ticket), questionKeyOf(prefix, ticket.from, ticket)])];
}

function questionKeyOf(prefix: string, address: string, ticket: Pick<Ticket, 'subject' | 'question'>): string {
  const digest = createHash('sha256')
    .update(comparableAddress(address) ?? address.toLowerCase())
    .update('\n')
    .update(questionFingerprint(subjectAsQuestion(ticket.subject)))
    .update('\n')
    .update(questionFingerprint(ticket.question))
    .digest('hex');
  return `${prefix}:repeat:${digest}`;
}

// KEYS: the question's key, the set of tickets erased on request; ARGV: ticket id, window ms, 'claim' or 'take-over'.
// Nothing is stored for an erased ticket (a job that read it before the erasure claims after it: the key names the
// customer's address by its digest). Returns the holder of the question when another ticket holds it, else nil.
const CLAIM = new LuaScript(
  `
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return false end
if ARGV[3] == 'take-over' then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return false
end
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return false end
return redis.call('GET', KEYS[1])
`,
  2,
);

/**
 * Claims the ticket's question for it for `windowMs`. Returns the id of another ticket that holds the same question
 * from the same sender, or undefined when this ticket holds it (now, or since an earlier attempt). A ticket erased on
 * request (src/tickets/erased.ts) claims nothing and gets undefined: its job stores nothing of it afterwards.
 */
export async function claimQuestion(redis: Redis, prefix: string, ticket: Pick<Ticket, 'id' | 'from' | 'replyTo' | 'subject' | 'question'>, windowMs: number): Promise<string | undefined> {
  const holder = await CLAIM.run(redis, [repeatedQuestionKey(prefix, ticket), erasedTicketsKey(prefix)], [ticket.id, windowMs, 'claim']);
  return typeof holder === 'string' && holder !== ticket.id ? holder : undefined;
}

/**
 * Hands the question to `ticket` for a new window: the earlier holder ended without an answer (one of
 * {@link UNANSWERED_END_STATES}). Nothing for an erased ticket.
 */
export async function takeOverQuestion(redis: Redis, prefix: string, ticket: Pick<Ticket, 'id' | 'from' | 'replyTo' | 'subject' | 'question'>, windowMs: number): Promise<void> {
  await CLAIM.run(redis, [repeatedQuestionKey(prefix, ticket), erasedTicketsKey(prefix)], [ticket.id, windowMs, 'take-over']);
}

/** How {@link repeatedQuestionReason} starts. */
const REPEATED_QUESTION_PREFIX = 'repeated question:';

/** Why a later copy is parked, naming the first and how long ago it came. */
export function repeatedQuestionReason(first: Pick<Ticket, 'id' | 'state' | 'createdAt'>, now: Date): string {
  const ms = now.getTime() - Date.parse(first.createdAt);
  const minutes = Math.round(ms / 60_000);
  // A double click or a resend comes seconds after the first copy: "0 min ago" reads as a bug.
  const ago = ms < 60_000 ? 'less than a minute' : minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
  return `${REPEATED_QUESTION_PREFIX} the same sender asked the same under the same subject ${ago} ago (ticket ${first.id}, ${first.state}); parked so the customer does not get the same automatic reply twice`;
}
