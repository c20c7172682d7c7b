/**
 * Automatic replies per hour, so that a mail loop, a chatty sender or someone using us as a relay cannot make the
 * worker send an unbounded number of replies: per sender (From), per recipient (the Reply-To the reply goes to, so
 * made-up senders with one victim's Reply-To share one budget), and in all. When a limit is reached, further mail is
 * parked for a person.
 *
 * Choice: a sliding window over a sorted set per sender (member = ticket id, score = time of queueing in ms)
 * rather than a fixed hourly counter. A fixed window lets twice the limit through around the top of the hour; the
 * sliding one never allows more than the limit in any 60 minutes. Using the ticket id as member makes recording
 * idempotent: a retried or duplicated record of the same reply counts once.
 *
 * When it counts: a reply counts when it is queued for automatic sending ({@link recordAutoReply}), not when the
 * agent drafts it (a parked draft sends nothing) and not when SMTP accepts it (a reply stuck in retries must
 * still count, or a loop could queue many before the first goes out). Replies a person approved do not count.
 *
 * `autoReplyAllowed` only reads (for the agent worker's early "park instead of drafting" decision); the binding
 * check is {@link recordAutoReply} with `limitPerHour`, which checks and records in one atomic script so two
 * concurrent tickets of one sender cannot both take the last slot.
 *
 * A limit of 0 allows no automatic replies at all (every mail is parked).
 *
 * Key: `P:ratelimit:auto-reply:<sha256 of the comparable address>` (case, full-width letters, IDN spelling, `+tag`
 * and a Gmail address's dots folded; hashed so arbitrary header text never becomes part of a key name); it expires one window after the last
 * record, so idle senders cost nothing.
 *
 * Agent runs per hour ({@link recordAgentRun}), per sender (From), per organisation domain of the From and in all, in
 * windows of their own built the same way (`P:ratelimit:agent-run:<digest>` and
 * `P:ratelimit:agent-run-authenticated:<digest>`, `P:ratelimit:agent-run-domain:<digest>` and
 * `P:ratelimit:agent-run-domain-authenticated:<digest>`, `P:ratelimit:agent-run-total` and
 * `P:ratelimit:agent-run-total-authenticated`): a run costs model calls
 * and, when its draft is parked, a reviewer's time, whether or not a reply ever goes out. So a run counts when it is about to start, whatever becomes of its draft: mail whose
 * drafts all end parked (a Reply-To on another domain, bulk signs, a forged sender) never reaches the reply limits
 * above, and without this a flood of it cost runs without end. The domain window (security review 11) stands between
 * the two: made-up or catch-all addresses at one domain each stay within the per-sender limit, and without it a flood
 * from one domain spent the total, parking every other customer's mail for the rest of the hour. A shared mail
 * provider's domain (gmail.com, docomo.ne.jp…) has none: its senders are strangers to each other, as for the raw-mail
 * budget of src/mail/raw-store.ts. Its members are ticket ids, as the total's are, and erasure removes them from it.
 * Each domain has two such windows, each with the domain limit (review 42a): one for mail whose sender the receiving
 * server authenticated, one for the rest. Anyone can write a From at a company's domain, so a flood of forgeries fills
 * only the second, and the company's authenticated mail keeps running; where nothing is vouched for (no
 * Authentication-Results) all of a domain's mail shares the second, as one window did before.
 * The total is split the same way, each with the total limit (security review 12): a shared provider's domain has no
 * domain window and throwaway domains cost nothing, so made-up addresses at gmail.com, or ten domains' worth, spent the
 * one total and parked every customer's mail for the rest of the hour; now they spend only the unauthenticated total.
 * So authenticated and unauthenticated mail together may cost up to twice AGENT_RUN_LIMIT_TOTAL_PER_HOUR runs in an
 * hour. The sender's window is split the same way (security review 14): forgeries under a customer's address, parked
 * as possibly forged after the agent ran, spent the customer's own window, and the customer's authenticated mail was
 * parked for the limit. One address may so cost up to twice AGENT_RUN_LIMIT_PER_HOUR runs an hour, its authenticated
 * mail and forgeries of it together. The per-sender reply windows stay one each: a reply goes to the From (or
 * Reply-To) whoever wrote the mail, and those windows bound what that mailbox receives, so forged mail that gets an
 * automatic reply rightly spends them (mail the receiving server failed is parked and spends none).
 * The authenticated total is no bound on who may write: someone who holds domains (or mailboxes at a provider)
 * and signs their mail can still fill it, at the cost of a domain per AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR runs (a mailbox
 * per AGENT_RUN_LIMIT_PER_HOUR at a shared provider).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { comparableAddress } from '../mail/addresses.js';
import { budgetDomainOf } from '../mail/raw-store.js';
import { erasedTicketsKey } from './erased.js';
import { LuaScript } from './lua.js';

/** Length of the sliding window. */
export const AUTO_REPLY_WINDOW_MS = 60 * 60 * 1000;

/** Result of {@link autoReplyAllowed}. */
export interface AutoReplyCheck {
  /** True when one more automatic reply stays within the limit. */
  allowed: boolean;
  /** Automatic replies to this sender queued in the last hour. */
  count: number;
}

/** Result of {@link recordAutoReply}. */
export interface AutoReplyRecord {
  /** True when the reply is (now or already) counted; false when the limit refused it. */
  recorded: boolean;
  /** Automatic replies to this sender in the window, including this one when recorded. */
  count: number;
}

/** The Redis key of one sender's window. */
export function autoReplyKey(prefix: string, senderAddress: string): string {
  return `${prefix}:ratelimit:auto-reply:${addressDigest(senderAddress)}`;
}

/**
 * The digest an address's windows are keyed by: of its comparable form (case, full-width letters, IDN spelling, a
 * `+tag` and a Gmail address's dots folded), since `victim+1@` and `victim+2@` reach one mailbox and must share its budget.
 */
export function addressDigest(address: string): string {
  return createHash('sha256')
    .update(comparableAddress(address) ?? address.trim().toLowerCase())
    .digest('hex');
}

// KEYS: one or more windows, then (with `erasedCheck`) the set of tickets erased on request; ARGV: now, window ms,
// member, then one limit per window (-1 = none).
// Refuses a member erased on request (recording nothing). Trims expired entries; refuses (recording nothing) when a
// window that does not hold the member yet is full, else adds the member to every window (a member already present is
// kept, since that reply was counted before).
// Returns {recorded 1/0/-1 (erased), 1-based index of the refusing window or 0, count of that window or of the first}.
function recordSource(erasedCheck: boolean): string {
  return `
local windows = ${erasedCheck ? '#KEYS - 1' : '#KEYS'}
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
${erasedCheck ? "if redis.call('SISMEMBER', KEYS[#KEYS], member) == 1 then return {-1, 0, 0} end" : ''}
local counts = {}
for i = 1, windows do
  local key = KEYS[i]
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local limit = tonumber(ARGV[3 + i])
  counts[i] = redis.call('ZCARD', key)
  if not redis.call('ZSCORE', key, member) and limit >= 0 and counts[i] >= limit then
    return {0, i, counts[i]}
  end
end
for i = 1, windows do
  local key = KEYS[i]
  if not redis.call('ZSCORE', key, member) then
    redis.call('ZADD', key, now, member)
    counts[i] = counts[i] + 1
  end
  redis.call('PEXPIRE', key, window)
end
return {1, 0, counts[1]}
`;
}
const RECORD = new LuaScript(recordSource(false), 1);
const RECORD_BUDGET = new LuaScript(recordSource(true), 4);
const RECORD_AGENT_RUN = new LuaScript(recordSource(true), 3);
const RECORD_AGENT_RUN_WITH_DOMAIN = new LuaScript(recordSource(true), 4);

/** The Redis key of the window of automatic replies sent to one recipient address. */
export function autoReplyRecipientKey(prefix: string, recipientAddress: string): string {
  return `${prefix}:ratelimit:auto-reply-to:${addressDigest(recipientAddress)}`;
}

/** The Redis key of the window of all automatic replies. */
export function autoReplyTotalKey(prefix: string): string {
  return `${prefix}:ratelimit:auto-reply-total`;
}

/** Who an automatic reply concerns: the mail's sender (From) and the address the reply goes to (Reply-To or From). */
export interface AutoReplyParties {
  sender: string;
  recipient: string;
}

/** Hourly limits of automatic replies; a negative limit means none. */
export interface AutoReplyLimits {
  /** Per sender (From) and, separately, per recipient: a forged From cannot spread replies over made-up senders. */
  perAddress: number;
  /** All automatic replies together: what a flood of mail with many different addresses can cost at most. */
  total: number;
}

/** Which window refused a reply. */
export type AutoReplyWindow = 'sender' | 'recipient' | 'total';

/** Result of {@link autoReplyBudget} and {@link recordAutoReplyBudget}. */
export interface AutoReplyBudget {
  /** True when one more reply fits (check), or the reply is now or already counted (record). */
  allowed: boolean;
  /**
   * Set by {@link recordAutoReplyBudget} when the ticket was erased on request while its reply was being written
   * (src/tickets/erased.ts): nothing was recorded, and nothing of the ticket may be written any more.
   */
  erased?: true;
  /** The window that refused, when not allowed. */
  refusedBy?: AutoReplyWindow;
  /** Replies in the refusing window in the last hour (or in the sender's, when allowed). */
  count: number;
}

const WINDOWS: readonly AutoReplyWindow[] = ['sender', 'recipient', 'total'];

function budgetKeys(prefix: string, parties: AutoReplyParties): string[] {
  return [autoReplyKey(prefix, parties.sender), autoReplyRecipientKey(prefix, parties.recipient), autoReplyTotalKey(prefix)];
}

/** Whether one more automatic reply fits the sender's, the recipient's and the overall hourly window (read only). */
export async function autoReplyBudget(
  redis: Redis,
  prefix: string,
  parties: AutoReplyParties,
  limits: AutoReplyLimits,
  now: number = Date.now(),
): Promise<AutoReplyBudget> {
  const keys = budgetKeys(prefix, parties);
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.zcount(key, `(${now - AUTO_REPLY_WINDOW_MS}`, '+inf');
  const counts = ((await pipeline.exec()) ?? []).map(([err, n]) => {
    if (err) throw err;
    return Number(n);
  });
  const limitOf = [limits.perAddress, limits.perAddress, limits.total];
  for (const [i, window] of WINDOWS.entries()) {
    const limit = limitOf[i]!;
    if (limit >= 0 && counts[i]! >= limit) return { allowed: false, refusedBy: window, count: counts[i]! };
  }
  return { allowed: true, count: counts[0] ?? 0 };
}

/**
 * Counts an automatic reply for ticket `ticketId` in the sender's, the recipient's and the overall window, atomically
 * and only while all three have room; call it when the reply is queued for sending. Recording the same ticket twice
 * counts once. A ticket erased on request is not recorded (`erased`): an agent run that began before the erasure
 * would otherwise bring back windows keyed by the customer's address after it.
 */
export async function recordAutoReplyBudget(
  redis: Redis,
  prefix: string,
  parties: AutoReplyParties,
  ticketId: string,
  limits: AutoReplyLimits,
  now: number = Date.now(),
): Promise<AutoReplyBudget> {
  const [recorded, refused, count] = (await RECORD_BUDGET.run(redis, [...budgetKeys(prefix, parties), erasedTicketsKey(prefix)], [
    now,
    AUTO_REPLY_WINDOW_MS,
    ticketId,
    limits.perAddress,
    limits.perAddress,
    limits.total,
  ])) as [number, number, number];
  if (recorded === -1) return { allowed: false, erased: true, count: 0 };
  return recorded === 1 ? { allowed: true, count } : { allowed: false, refusedBy: WINDOWS[refused - 1]!, count };
}

/**
 * Whether one more automatic reply to `senderAddress` stays within `limitPerHour` (read only).
 * Entries are counted when their time is within the last hour, the window's oldest edge excluded.
 */
export async function autoReplyAllowed(
  redis: Redis,
  prefix: string,
  senderAddress: string,
  limitPerHour: number,
  now: number = Date.now(),
): Promise<AutoReplyCheck> {
  const count = await redis.zcount(autoReplyKey(prefix, senderAddress), `(${now - AUTO_REPLY_WINDOW_MS}`, '+inf');
  return { allowed: count < limitPerHour, count };
}

/**
 * Counts an automatic reply to `senderAddress` for ticket `ticketId`; call it when the reply is queued for
 * sending. With `limitPerHour` the reply is recorded only while the window has room (atomically); without it,
 * it is always recorded. Recording the same ticket twice counts once.
 */
export async function recordAutoReply(
  redis: Redis,
  prefix: string,
  senderAddress: string,
  ticketId: string,
  options: { limitPerHour?: number; now?: number } = {},
): Promise<AutoReplyRecord> {
  const now = options.now ?? Date.now();
  const limit = options.limitPerHour ?? -1;
  const [recorded, , count] = (await RECORD.run(redis, [autoReplyKey(prefix, senderAddress)], [now, AUTO_REPLY_WINDOW_MS, ticketId, limit])) as [
    number,
    number,
    number,
  ];
  return { recorded: recorded === 1, count };
}

/**
 * The Redis key of one of the two windows of agent runs on one sender's (From) mail: of mail whose sender the receiving
 * server authenticated, or of the rest, as for the domain's windows ({@link agentRunDomainKey}). Anyone can write a
 * customer's address in the From, and forgeries under it spent the window of the customer's own mail (security review
 * 14). The unauthenticated window keeps the key the sender's only window had.
 */
export function agentRunKey(prefix: string, senderAddress: string, window: AgentRunMailWindow): string {
  return `${prefix}:ratelimit:agent-run${window === 'authenticated' ? '-authenticated' : ''}:${addressDigest(senderAddress)}`;
}

/**
 * The Redis key of one of the two windows of all agent runs: on mail whose sender the receiving server authenticated,
 * or on the rest. The unauthenticated window keeps the key the only total window had.
 */
export function agentRunTotalKey(prefix: string, window: AgentRunMailWindow): string {
  return `${prefix}:ratelimit:agent-run-total${window === 'authenticated' ? '-authenticated' : ''}`;
}

/**
 * The organisation domain whose senders share an agent-run window, or undefined when there is none (no address, or a
 * shared mail provider's domain, where strangers hold the mailboxes and one of them must not spend the others' runs):
 * as the raw-mail budget reads it ({@link budgetDomainOf}).
 */
export function agentRunDomainOf(senderAddress: string): string | undefined {
  return budgetDomainOf(senderAddress);
}

/**
 * Which of the two agent-run windows of a sender, of an organisation domain and of the two totals, a run counts in:
 * mail whose sender the receiving server authenticated, or the rest (a From anyone can write).
 */
export type AgentRunMailWindow = 'authenticated' | 'unauthenticated';

/**
 * The Redis key of one of the windows of agent runs on the mail of one organisation domain ({@link agentRunDomainOf}).
 * The unauthenticated window keeps the key the domain's only window had.
 */
export function agentRunDomainKey(prefix: string, organisationDomainName: string, window: AgentRunMailWindow): string {
  const digest = createHash('sha256').update(`agent-run-domain\0${organisationDomainName.toLowerCase()}`).digest('hex');
  return `${prefix}:ratelimit:agent-run-domain${window === 'authenticated' ? '-authenticated' : ''}:${digest}`;
}

/**
 * The sender of the mail an agent run is for: its From address and whether the receiving server vouched for it
 * (`senderVouchedFor`, src/mail/classify.ts). An address alone is a sender nothing vouched for.
 */
export interface AgentRunSender {
  address: string;
  authenticated: boolean;
}

/** Hourly limits of agent runs; a negative limit means none, 0 allows none. */
export interface AgentRunLimits {
  /**
   * On one sender's (From) mail: what one address flooding us costs at most. Counted apart, each up to this limit, for
   * mail whose sender the receiving server authenticated and for the rest, as `perDomain` is: forgeries under a
   * customer's address cannot spend the runs of the customer's own mail.
   */
  perSender: number;
  /**
   * On the mail of one organisation domain of the From, shared mail providers' domains aside ({@link agentRunDomainOf}):
   * what made-up addresses at one domain cost at most, so that they cannot spend `total` for everyone else. Counted
   * apart, each up to this limit, for mail whose sender the receiving server authenticated and for the rest, so that
   * forgeries cannot spend the runs of the organisation's own mail.
   */
  perDomain: number;
  /**
   * All runs together: what a flood from many addresses costs at most. Counted apart, each up to this limit, for mail
   * whose sender the receiving server authenticated and for the rest, as `perDomain` is: strangers at a shared mail
   * provider's domain (which has no domain window) or at many throwaway domains cannot spend the runs of mail the
   * receiving server vouched for. Both together allow up to twice this limit in an hour.
   */
  total: number;
}

/** Which window refused an agent run. */
export type AgentRunWindow = 'sender' | 'domain' | 'total';

/** Result of {@link recordAgentRun}. */
export interface AgentRunBudget {
  /** True when the run is now or already counted: it may start. */
  allowed: boolean;
  /** Set when the ticket was erased on request (src/tickets/erased.ts): nothing was recorded. */
  erased?: true;
  /** The window that refused, when not allowed. */
  refusedBy?: AgentRunWindow;
  /** The organisation domain whose window refused, when `refusedBy` is `domain`. */
  domain?: string;
  /**
   * When `refusedBy` is `domain` or `total`: whether that was the window of authenticated mail (the domain's, or the
   * total of all authenticated mail). The sender's windows are split the same way; a sender's run is refused only by
   * the window of its own kind of mail.
   */
  authenticated?: boolean;
  /** Runs in the refusing window in the last hour (or in the sender's, when allowed), this one included when counted. */
  count: number;
}

/**
 * Counts the agent run on ticket `ticketId` in the sender's window, its organisation domain's (none for a shared mail
 * provider's domain: {@link agentRunDomainOf}) and the overall one, each of authenticated mail or of the rest by
 * `sender.authenticated`, atomically and only while all have room; call it just before the run starts. The windows are read in
 * that order, so a run a domain's window refuses takes no slot of the total. The same ticket counts once however often its job is retried (the ticket id is the member). An erased
 * ticket is not recorded (`erased`), so a job that read it before the erasure cannot bring back a window keyed by the
 * customer's address.
 */
export async function recordAgentRun(
  redis: Redis,
  prefix: string,
  sender: string | AgentRunSender,
  ticketId: string,
  limits: AgentRunLimits,
  now: number = Date.now(),
): Promise<AgentRunBudget> {
  const { address, authenticated } = typeof sender === 'string' ? { address: sender, authenticated: false } : sender;
  const domain = agentRunDomainOf(address);
  const mailWindow: AgentRunMailWindow = authenticated ? 'authenticated' : 'unauthenticated';
  const windows: { window: AgentRunWindow; key: string; limit: number }[] = [
    { window: 'sender', key: agentRunKey(prefix, address, mailWindow), limit: limits.perSender },
    ...(domain ? [{ window: 'domain' as const, key: agentRunDomainKey(prefix, domain, mailWindow), limit: limits.perDomain }] : []),
    { window: 'total', key: agentRunTotalKey(prefix, mailWindow), limit: limits.total },
  ];
  const script = domain ? RECORD_AGENT_RUN_WITH_DOMAIN : RECORD_AGENT_RUN;
  const keys = [...windows.map((w) => w.key), erasedTicketsKey(prefix)];
  const [recorded, refused, count] = (await script.run(redis, keys, [now, AUTO_REPLY_WINDOW_MS, ticketId, ...windows.map((w) => w.limit)])) as [
    number,
    number,
    number,
  ];
  if (recorded === -1) return { allowed: false, erased: true, count: 0 };
  if (recorded === 1) return { allowed: true, count };
  const refusedBy = windows[refused - 1]!.window;
  if (refusedBy === 'domain' && domain) return { allowed: false, refusedBy, domain, authenticated, count };
  return refusedBy === 'total' ? { allowed: false, refusedBy, authenticated, count } : { allowed: false, refusedBy, count };
}
