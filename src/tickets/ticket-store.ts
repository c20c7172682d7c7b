/**
 * Tickets in Redis, with the indexes the pipeline and the dashboard need and nothing that scans.
 *
 * Storage choice: one hash per ticket holding the ticket as one JSON value (`doc`) next to two small fields the Lua
 * scripts compare without parsing JSON (`state`, `v`). JSON keeps nested data (history, agent result) intact;
 * Redis' cjson would turn empty arrays into objects and round numbers, so the scripts never decode it.
 * The agent result (plan, subtasks with every search hit, LLM calls: tens of kilobytes, four fifths of a ticket)
 * is written once and read only by people, so it lives in its own field (`agent`): state changes read and rewrite
 * only `doc`. {@link TicketStore.get} puts the two together again. A ticket written before the split keeps its
 * result inside `doc` until its next write moves it out.
 *
 * Concurrency: every write is a compare-and-set on `v` done by a Lua script that also moves the ticket between the
 * per-state sorted sets, so the document and its indexes change together or not at all. A transition that loses a
 * race to another transition fails with {@link TicketConflictError} instead of overwriting; a race with a mere
 * field update (which cannot change the state) is retried on the fresh document.
 *
 * Key layout (P = the prefix given to the store, normally QUEUE_PREFIX; BullMQ's keys are `P:<queue>:…` and no
 * queue is named `store`, so the two cannot collide):
 *
 * | key                         | type       | content                                                        |
 * |-----------------------------|------------|----------------------------------------------------------------|
 * | `P:store:ticket:<id>`       | hash       | `doc` (ticket JSON), `agent` (result JSON), `state`, `v`       |
 * | `P:store:all`               | sorted set | every ticket id, score = createdAt (ms)                        |
 * | `P:store:state:<state>`     | sorted set | ids of tickets in that state, score = createdAt (ms)           |
 * | `P:store:msgid`             | hash       | normalised Message-ID → ticket id (inbound and our replies)    |
 * | `P:store:conv:<rootId>`     | sorted set | ids of the tickets of one conversation, score = createdAt (ms) |
 * | `P:store:bounced`           | sorted set | unacknowledged bounced replies, score = when (ms), 30 days     |
 * | `P:store:reused:<digest>`   | sorted set | tickets keyed apart from the Message-ID of that digest (its ticket id), score = createdAt (ms) |
 *
 * {@link TicketStore.remove} takes a ticket out of all of them at once (retention, erasure on request).
 * A write that ends a ticket (enters `sent`, `rejected`, `ignored` or `failed`) also counts its outcome in the keys
 * of `outcomeKeys` (src/tickets/outcome.ts), in the same script, so the counts never disagree with the tickets; that
 * write, and one that stores an agent result, also add the day's insight fields (src/tickets/insights.ts); a write
 * that ends it as a reply (auto-sent or approved) gives them the sources of the draft it sent, so the insights count
 * the replies citing a learned answer (`src:replies`, `src:learned`). A write
 * that reopens an ended ticket (a person takes an ignored or failed ticket back) counts that in the day hash of the
 * ending it takes back (`reopened:<outcome>`; the day stored with the outcome, `TicketOutcome.day`, so a reopening in
 * another zone finds it), so the insights count the ticket's ending once. A write
 * that records a review (approved and sent, or rejected; not the closing of an undeliverable reply) also pushes it onto
 * the trust list of every source the draft cited (src/tickets/trust.ts), in the same script. Those two endings, and
 * only they, read the stored agent result (once, for both) before their write.
 *
 * Costs: get/create/transition/update are O(1) keys plus O(log N) sorted-set updates; `list` and `newestIds` are
 * O(log N + offset + limit); nothing uses KEYS or a SCAN of the keyspace. Only `findByIdPrefix`, for operators who
 * type the short id the review CLI prints, walks the ticket ids (ZSCAN of `P:store:all`, O(tickets)).

 *
 * Cluster: the scripts touch several keys, so on Redis Cluster the prefix must be a hash tag (`{helpdesk}`),
 * as BullMQ also requires for its queues.
 */
import type { Redis } from 'ioredis';
import type { AgentResult, AnswerSource } from '../agent/types.js';
import { execAll } from '../queues/connection.js';
import { insightFieldsOnWrite, replyKindOf } from './insights.js';
import { LuaScript } from './lua.js';
import { TRUST_HISTORY_CAP, isReview, reviewEntry, reviewedSources, trustKeys } from './trust.js';
import {
  EDIT_RATIO_SUM_SCALE,
  OUTCOME_DAY_TTL_S,
  countedDay,
  countedOutcome,
  editRatioBucketField,
  outcomeDay,
  outcomeKeys,
  outcomeOnEntering,
  type TicketOutcome,
} from './outcome.js';
import {
  INITIAL_STATES,
  IllegalTransitionError,
  PATCHABLE_FIELDS,
  TICKET_ID_PATTERN,
  TICKET_STATES,
  canTransition,
  isTicketState,
  normalizeMessageId,
  ticketIdFor,
  type Acknowledgement,
  type HistoryEntry,
  type ReplyBounce,
  type Ticket,
  type TicketPatch,
  type TicketState,
} from './ticket.js';

/** Fewest leading characters of a ticket id that {@link TicketStore.findByIdPrefix} accepts. */
export const MIN_ID_PREFIX = 8;

/** True for a possible start of a ticket id: {@link MIN_ID_PREFIX} to 64 lowercase hex characters. */
export function isIdPrefix(value: string): boolean {
  return value.length >= MIN_ID_PREFIX && value.length <= 64 && /^[0-9a-f]+$/.test(value);
}

/**
 * Thrown by {@link TicketStore.findByMessageId} when the mails of several tickets have the Message-ID: a person must
 * pick one by its id.
 */
export class AmbiguousMessageIdError extends Error {
  constructor(
    readonly messageId: string,
    readonly ticketIds: readonly string[],
    more = false,
  ) {
    super(`${messageId} is the Message-ID of more than one ticket's mail (${ticketIds.join(', ')}${more ? ', and more' : ''}); give the ticket id`);
    this.name = 'AmbiguousMessageIdError';
  }
}

/** Thrown when a ticket does not exist. */
export class TicketNotFoundError extends Error {
  constructor(readonly ticketId: string) {
    super(`Ticket ${ticketId} not found`);
    this.name = 'TicketNotFoundError';
  }
}

/**
 * Thrown when a ticket is not in the state the caller expected: another worker or a person moved it first (the
 * reply was already claimed, the draft was already approved). The ticket is unchanged by the failed call.
 */
export class TicketConflictError extends Error {
  constructor(
    readonly ticketId: string,
    readonly expected: readonly TicketState[],
    readonly actual: TicketState | undefined,
    readonly concurrent: boolean,
  ) {
    super(
      `Ticket ${ticketId} is in state ${actual ?? '(deleted)'}, expected ${expected.join(' or ')}` +
        (concurrent ? ' (changed concurrently by another writer; nothing was overwritten)' : ''),
    );
    this.name = 'TicketConflictError';
  }
}

/** A request to change a ticket's state. */
export interface TransitionRequest {
  /** States the caller expects the ticket to be in; anything else is a {@link TicketConflictError}. */
  from?: readonly TicketState[];
  /** The new state; must be allowed by the transition table from the current state. */
  to: TicketState;
  /** Who makes the change, recorded in the history. */
  actor: string;
  /** Why, recorded in the history. */
  note?: string;
  /** Field changes stored in the same atomic write as the state change. */
  patch?: TicketPatch;
  /**
   * The ticket as the caller last read or wrote it. The first try writes on it without reading the ticket again
   * (one Redis round trip less per step of the pipeline); the version check makes that safe, and a copy that turns
   * out stale only costs the read it meant to save. Every check is made again on the stored ticket before an error.
   */
  current?: Ticket;
  /**
   * Refuse the transition ({@link TicketConflictError}) unless the ticket's history has this many entries, checked
   * on the version written: a person's decision on the draft they read must not land on a draft a rerun parked in
   * between, which `from` alone misses (parked → processing → parked ends where it began).
   */
  ifHistoryLength?: number;
}

/** Options of {@link TicketStore.update}. */
export interface UpdateOptions {
  /**
   * Refuse the update unless the ticket is in one of these states, checked in the same atomic write: e.g. a
   * person's edit of a draft must not land after the sender claimed the old one.
   */
  ifState?: readonly TicketState[];
  /** The ticket as the caller last read or wrote it; see {@link TransitionRequest.current}. */
  current?: Ticket;
}

/** Options of {@link TicketStore.list}. */
export interface ListOptions {
  /** Only tickets in this state; all tickets when absent. */
  state?: TicketState;
  /** Page size (1–500). */
  limit: number;
  /** Tickets to skip, newest first. */
  offset?: number;
}

/** A page of tickets, newest first. */
export interface TicketPage {
  /** Number of tickets matching the filter (for paging). */
  total: number;
  /** The page, newest first. */
  tickets: Ticket[];
}

/** Tickets of a conversation whose senders {@link TicketStore.joinConversation} compares (the oldest first). */
const CONVERSATION_PARTICIPANT_SCAN = 200;

/** One earlier mail of a conversation, as context for the agent. */
export interface ConversationEntry {
  /** The earlier ticket. */
  ticketId: string;
  /** When it was received (ISO 8601). */
  createdAt: string;
  /** Its sender address. */
  from: string;
  /** Its subject. */
  subject: string;
  /** What the customer asked. */
  question: string;
  /** Its current state. */
  state: TicketState;
  /** The reply we sent; absent when none was sent. */
  reply?: string;
  /** When the reply was accepted by the SMTP server. */
  repliedAt?: string;
}

/** Options of {@link TicketStore}. */
export interface TicketStoreOptions {
  /** Key prefix, normally QUEUE_PREFIX; see the key layout above. */
  prefix: string;
  /** Clock for timestamps; tests pass a fixed one. */
  now?: () => Date;
}

// How often a write that raced only with field updates is retried before giving up.
const MAX_CAS_RETRIES = 16;
const MAX_PAGE = 500;
/** How long a bounced reply stays in {@link TicketStore.bouncedReplies}: long enough for a person to have seen it. */
export const BOUNCED_LIST_MS = 30 * 24 * 3600 * 1000;

/**
 * Lua that counts an outcome (see src/tickets/outcome.ts, `outcomeKeys`) in the same script as the write that records
 * it, so a ticket that ends is counted exactly once: keys totals, edit-ratio histogram and day hash from `k`; args
 * outcome kind ('' for none), edit-ratio bucket field ('' for none) and ratio × 10⁶ from `a`, then the day hash's
 * insight fields as field, amount pairs up to the last argument (`insightFieldsOnWrite`, src/tickets/insights.ts).
 */
function countOutcomeLua(k: number, a: number, pairsFrom = a + 3): string {
  return `
if ARGV[${a}] ~= '' then
  redis.call('HINCRBY', KEYS[${k}], ARGV[${a}], 1)
  redis.call('HINCRBY', KEYS[${k + 2}], ARGV[${a}], 1)
  if ARGV[${a + 1}] ~= '' then
    redis.call('HINCRBY', KEYS[${k + 1}], 'count', 1)
    redis.call('HINCRBY', KEYS[${k + 1}], 'sum_e6', ARGV[${a + 2}])
    redis.call('HINCRBY', KEYS[${k + 1}], ARGV[${a + 1}], 1)
    redis.call('HINCRBY', KEYS[${k + 2}], 'edit_ratio_count', 1)
    redis.call('HINCRBY', KEYS[${k + 2}], 'edit_ratio_sum_e6', ARGV[${a + 2}])
  end
end
for i = ${pairsFrom}, #ARGV, 2 do redis.call('HINCRBY', KEYS[${k + 2}], ARGV[i], ARGV[i + 1]) end
if ARGV[${a}] ~= '' or #ARGV >= ${pairsFrom} then redis.call('EXPIRE', KEYS[${k + 2}], ${OUTCOME_DAY_TTL_S}) end
`;
}

// Creates the ticket unless it exists; KEYS[6..8] / ARGV[9..] count the outcome of a ticket created ended. A ticket
// keyed apart from its mail's Message-ID (ARGV[8] 'reused') goes on that id's list KEYS[9], in the same script, so the
// list never misses a ticket that exists.
const CREATE = new LuaScript(
  `
local existing = redis.call('HGET', KEYS[1], 'doc')
if existing then return {0, existing, redis.call('HGET', KEYS[1], 'agent')} end
redis.call('HSET', KEYS[1], 'doc', ARGV[1], 'state', ARGV[2], 'v', ARGV[3])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'agent', ARGV[7]) end
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[5])
redis.call('HSETNX', KEYS[4], ARGV[6], ARGV[5])
if ARGV[8] == 'reused' then redis.call('ZADD', KEYS[9], ARGV[4], ARGV[5]) end
${countOutcomeLua(6, 9)}
return {1}
`,
  9,
);

// Compare-and-set on the version; moves the id between state sets when the state changes. ARGV[7] says what
// happens to the agent result: 'keep' it, 'set' it to ARGV[8], or 'del' it. KEYS[4..6] / ARGV[9..11] count the
// outcome the write records, if any. A reviewed outcome is also pushed (ARGV[12], '' for none) onto the trust list
// of every source the draft cited (KEYS[8..], src/tickets/trust.ts), each kept to ARGV[13] entries and listed in
// the sources set KEYS[7] with score ARGV[14] under its key without the first ARGV[15] characters. The insight
// fields follow from ARGV[16].
// Returns 1 on success, 0 when the version moved on, -1 when the ticket is gone.
const CAS = new LuaScript(
  `
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'doc', ARGV[2], 'state', ARGV[3], 'v', ARGV[4])
if ARGV[7] == 'set' then redis.call('HSET', KEYS[1], 'agent', ARGV[8])
elseif ARGV[7] == 'del' then redis.call('HDEL', KEYS[1], 'agent') end
if KEYS[2] ~= KEYS[3] then
  redis.call('ZREM', KEYS[2], ARGV[5])
  redis.call('ZADD', KEYS[3], ARGV[6], ARGV[5])
end
${countOutcomeLua(4, 9, 16)}
if ARGV[12] ~= '' then
  for i = 8, #KEYS do
    redis.call('LPUSH', KEYS[i], ARGV[12])
    redis.call('LTRIM', KEYS[i], 0, tonumber(ARGV[13]) - 1)
    redis.call('ZADD', KEYS[7], ARGV[14], string.sub(KEYS[i], tonumber(ARGV[15]) + 1))
  end
end
return 1
`,
  7,
  true,
);

// Deletes a ticket and its index entries if it is still in state ARGV[2] and, when ARGV[3] is not empty, still at
// version ARGV[3]; also deletes KEYS[6] (its raw mail) and takes it off KEYS[8] (the tickets keyed apart from its
// mail's Message-ID, `reused`; for a ticket that was not, a list it is not on). Message-ID links (ARGV[4..]) are
// removed only where they still point at this ticket.
// Returns 1 when deleted, 0 when the ticket moved on, -1 when the ticket was already gone (indexes cleaned anyway).
const REMOVE = new LuaScript(
  `
local state = redis.call('HGET', KEYS[1], 'state')
if state and state ~= ARGV[2] then return 0 end
if state and ARGV[3] ~= '' and redis.call('HGET', KEYS[1], 'v') ~= ARGV[3] then return 0 end
redis.call('DEL', KEYS[1], KEYS[6])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[7], ARGV[1])
redis.call('ZREM', KEYS[8], ARGV[1])
for i = 4, #ARGV do
  if redis.call('HGET', KEYS[5], ARGV[i]) == ARGV[1] then redis.call('HDEL', KEYS[5], ARGV[i]) end
end
if state then return 1 end
return -1
`,
  8,
);

// Links Message-ID ARGV[1] to ticket ARGV[2] unless it is linked to another ticket, and only while the ticket exists.
// Returns 1 when it is (now or already) linked to the ticket, 0 otherwise.
const LINK = new LuaScript(
  `
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then return 1 end
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return 1 end
return 0
`,
  2,
);

/** Tickets in Redis; see the module comment for the key layout and the concurrency rules. */
export class TicketStore {
  readonly prefix: string;
  private readonly now: () => Date;

  constructor(
    private readonly redis: Redis,
    options: TicketStoreOptions,
  ) {
    if (!options.prefix) throw new TypeError('TicketStore: prefix is required');
    this.prefix = options.prefix;
    this.now = options.now ?? (() => new Date());
  }

  /** The Redis keys of this store, for operators and tests. */
  keys() {
    const base = `${this.prefix}:store`;
    return {
      ticket: (id: string) => `${base}:ticket:${id}`,
      all: `${base}:all`,
      state: (state: TicketState) => `${base}:state:${state}`,
      msgid: `${base}:msgid`,
      conversation: (rootId: string) => `${base}:conv:${rootId}`,
      /** Tickets whose reply bounced, scored by when the bounce was read (epoch ms). */
      bounced: `${base}:bounced`,
      /**
       * Tickets keyed apart because another ticket's mail already had their mail's Message-ID `messageId` (any
       * spelling; {@link Ticket.mailMessageId}), by when they were created: what {@link TicketStore.findAllByMessageId}
       * reads instead of scanning.
       */
      reused: (messageId: string) => `${base}:reused:${ticketIdFor(messageId)}`,
    };
  }

  /**
   * Stores the ticket unless one with the same id exists. The same mail seen twice yields one ticket: the second
   * call returns the stored ticket with `created: false` and changes nothing. Also links the mail's Message-ID in
   * the thread index and adds the ticket to its conversation, and a ticket keyed apart from its mail's Message-ID
   * ({@link Ticket.mailMessageId}) to the tickets reusing that id (`reused`).
   */
  async createIfAbsent(ticket: Ticket): Promise<{ created: boolean; ticket: Ticket }> {
    validateNewTicket(ticket);
    const k = this.keys();
    // A ticket created in an end state (mail ignored at ingest) has ended already: its outcome is recorded now.
    const ending = outcomeOnEntering(ticket, ticket.state, ticket.createdAt);
    const outcome = ending && countedOutcome(ending);
    if (outcome) ticket = { ...ticket, outcome };
    const { doc, agent } = splitTicket(ticket);
    const counted = outcomeCounting(this.prefix, outcome, writeDay(outcome, ticket.createdAt), insightFieldsOnWrite(ticket, outcome, ticket.agent));
    const result = (await CREATE.run(
      this.redis,
      [k.ticket(ticket.id), k.all, k.state(ticket.state), k.msgid, k.conversation(ticket.conversationId), ...counted.keys, k.reused(ticket.mailMessageId ?? ticket.messageId)],
      [doc, ticket.state, String(ticket.version), scoreOf(ticket), ticket.id, ticket.messageId, agent ?? '', ticket.mailMessageId ? 'reused' : '', ...counted.args],
    )) as [1] | [0, string, string | null];
    // Created: what is stored is the caller's ticket, so it is not sent back and parsed again.
    if (result[0] === 1) return { created: true, ticket };
    return { created: false, ticket: joinTicket(result[1], result[2] || null) };
  }

  /**
   * The ticket, or `undefined`. `agentResult: false` leaves out the agent result (the largest part, which the
   * pipeline's own steps never read).
   */
  async get(id: string, options: ReadOptions = {}): Promise<Ticket | undefined> {
    const key = this.keys().ticket(id);
    if (options.agentResult === false) {
      const doc = await this.redis.hget(key, 'doc');
      return doc === null ? undefined : readDoc(doc);
    }
    const [doc, agent] = await this.redis.hmget(key, 'doc', 'agent');
    return doc == null ? undefined : joinTicket(doc, agent ?? null);
  }

  /** The ticket, or {@link TicketNotFoundError}. */
  async require(id: string, options: ReadOptions = {}): Promise<Ticket> {
    const ticket = await this.get(id, options);
    if (!ticket) throw new TicketNotFoundError(id);
    return ticket;
  }

  /**
   * Ids of the tickets whose id starts with `prefix` (lowercase hex; at least {@link MIN_ID_PREFIX} characters),
   * at most `limit` of them, in no particular order. A ZSCAN with MATCH over the all-tickets set: it visits every
   * ticket id but no other key, so it is for people (the review CLI), not for the pipeline.
   */
  async findByIdPrefix(prefix: string, limit = 10): Promise<string[]> {
    if (!isIdPrefix(prefix)) throw new TypeError(`Not a ticket id prefix (${MIN_ID_PREFIX}–64 lowercase hex characters): ${prefix}`);
    const found = new Set<string>();
    let cursor = '0';
    do {
      const [next, entries] = await this.redis.zscan(this.keys().all, cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      // ZSCAN answers member, score, member, score…
      for (let i = 0; i < entries.length && found.size < limit; i += 2) found.add(entries[i]!);
      cursor = next;
    } while (cursor !== '0' && found.size < limit);
    return [...found];
  }

  /**
   * The ticket of the inbound mail whose Message-ID is `messageId` (with or without angle brackets), or `undefined`.
   *
   * @throws {@link AmbiguousMessageIdError} when the mails of several tickets have it (see {@link findAllByMessageId}):
   * naming the first of them would put one customer's ticket in front of a person looking for another's.
   */
  async findByMessageId(messageId: string): Promise<Ticket | undefined> {
    const found = await this.findAllByMessageId(messageId);
    const [only] = found.tickets;
    if (found.tickets.length > 1 || found.more) throw new AmbiguousMessageIdError(normalizeMessageId(messageId), found.tickets.map((t) => t.id), found.more);
    return only ? this.get(only.id) : undefined;
  }

  /**
   * Every ticket whose inbound mail has the Message-ID `messageId` (with or without angle brackets), oldest first, at
   * most `limit` of them, without their agent results; `more` when others have it too. Usually one: the ticket keyed
   * by it. A mail that reuses a Message-ID another ticket's mail already holds (a web form or script that writes one
   * fixed id) is keyed apart by src/mail/ingest.ts under a made-up `…@no-message-id.invalid` id, keeping its own in
   * {@link Ticket.mailMessageId}; the store lists it under that id (`reused`, sorted by creation) when it creates it.
   * So the lookup reads the ticket keyed by the id, the first `limit` + 1 of that list and their documents: O(limit),
   * however many tickets strangers made under made-up ids (a search with an `@`, a customer's address, is looked up
   * here too). A ticket keyed apart before that list existed is not in it: it is found by its own id.
   */
  async findAllByMessageId(messageId: string, limit = 10): Promise<{ tickets: Ticket[]; more: boolean }> {
    const normalized = normalizeMessageId(messageId);
    if (!normalized) return { tickets: [], more: false };
    const k = this.keys();
    const [apart, count] = await Promise.all([this.redis.zrange(k.reused(normalized), 0, limit), this.redis.zcard(k.reused(normalized))]);
    // The first mail with the id is keyed by it; it may be gone (archived, erased) while later ones are kept.
    const tickets = (await this.getMany([ticketIdFor(normalized), ...apart], WITHOUT_AGENT)).filter(
      (t) => t.messageId === normalized || t.mailMessageId === normalized,
    );
    tickets.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    // Counted from the list, not from the tickets read: `more` needs no read past `limit`. `remove` takes a ticket off
    // the list in the script that deletes it, so the count holds no ticket that is gone.
    const total = count + (tickets.some((t) => t.messageId === normalized) ? 1 : 0);
    return { tickets: tickets.slice(0, limit), more: total > limit };
  }

  /**
   * Changes the state atomically and appends a history entry, together with `patch`.
   *
   * @throws {@link TicketNotFoundError} when the ticket does not exist.
   * @throws {@link TicketConflictError} when it is not in one of `from`, or another transition won a race.
   * @throws {@link IllegalTransitionError} when the table forbids the change.
   * In every error case the ticket is unchanged.
   * @returns the ticket as written; it carries the agent result only when `patch` set it (see {@link get}).
   */
  async transition(id: string, request: TransitionRequest): Promise<Ticket> {
    if (!isTicketState(request.to)) throw new TypeError(`Unknown ticket state: ${String(request.to)}`);
    if (!request.actor) throw new TypeError('transition: actor is required');
    checkPatch(request.patch);
    for (let attempt = 0; attempt < MAX_CAS_RETRIES; attempt++) {
      const assumed = attempt === 0 ? assumedCurrent(id, request.current) : undefined;
      const current = assumed ?? (await this.require(id, WITHOUT_AGENT));
      if (request.from && !request.from.includes(current.state)) {
        if (assumed) continue;
        throw new TicketConflictError(id, request.from, current.state, false);
      }
      if (!canTransition(current.state, request.to)) {
        if (assumed) continue;
        throw new IllegalTransitionError(id, current.state, request.to);
      }
      if (request.ifHistoryLength !== undefined && current.history.length !== request.ifHistoryLength) {
        if (assumed) continue;
        throw new TicketConflictError(id, request.from ?? [current.state], current.state, true);
      }
      const at = this.now().toISOString();
      const entry: HistoryEntry = { at, from: current.state, to: request.to, actor: request.actor };
      if (request.note) entry.note = request.note;
      const next = applyPatch(current, request.patch);
      next.state = request.to;
      next.updatedAt = at;
      next.history = [...current.history, entry];
      next.version = current.version + 1;
      // Entering an end state records how the ticket ended; leaving one (a person reopens it) removes that record.
      const ending = outcomeOnEntering(next, request.to, at);
      const ended = ending && countedOutcome(ending);
      if (ended) next.outcome = ended;
      else delete next.outcome;
      const written = await this.compareAndSet(current, next, request.patch?.agent, ended, await this.draftSources(current, request.patch?.agent, ended));
      if (written === 'ok') return next;
      if (written === 'missing') throw new TicketNotFoundError(id);
      // The caller's copy was stale: decide again on what is stored.
      if (assumed) continue;
      const latest = await this.get(id, WITHOUT_AGENT);
      if (!latest) throw new TicketNotFoundError(id);
      // Only a field update (same state, same history) may be retried: a transition in between means the caller
      // decided on a state that no longer holds.
      if (latest.state !== current.state || latest.history.length !== current.history.length) {
        throw new TicketConflictError(id, request.from ?? [current.state], latest.state, true);
      }
    }
    throw new TicketConflictError(id, request.from ?? [], undefined, true);
  }

  /**
   * Changes non-state fields (draft, agent result, outbound record, reason). The state and the history cannot be
   * changed here. Concurrent updates of other fields are merged, not lost: the patch is re-applied on the latest
   * version when the write races. Returns the ticket as written, with the agent result only when `patch` set it.
   */
  async update(id: string, patch: TicketPatch, options: UpdateOptions = {}): Promise<Ticket> {
    checkPatch(patch);
    for (let attempt = 0; attempt < MAX_CAS_RETRIES; attempt++) {
      const assumed = attempt === 0 ? assumedCurrent(id, options.current) : undefined;
      const current = assumed ?? (await this.require(id, WITHOUT_AGENT));
      if (options.ifState && !options.ifState.includes(current.state)) {
        if (assumed) continue;
        throw new TicketConflictError(id, options.ifState, current.state, attempt > 0);
      }
      const next = applyPatch(current, patch);
      next.updatedAt = this.now().toISOString();
      next.version = current.version + 1;
      const outcome = await this.compareAndSet(current, next, patch.agent);
      if (outcome === 'ok') return next;
      if (outcome === 'missing') throw new TicketNotFoundError(id);
    }
    throw new TicketConflictError(id, options.ifState ?? [], undefined, true);
  }

  /**
   * Marks the reply whose Message-ID is `replyMessageId` as bounced ({@link Ticket.replyBounce}) and lists its ticket
   * among {@link bouncedReplies}. Returns that ticket, or undefined when the id is not one of our replies. Idempotent:
   * a reply already marked keeps its first bounce, so a report read twice (a retried job) or a second report for the
   * same reply changes nothing.
   */
  async recordReplyBounce(replyMessageId: string, bounce: ReplyBounce): Promise<Ticket | undefined> {
    const normalized = normalizeMessageId(replyMessageId);
    if (!normalized) return undefined;
    const k = this.keys();
    const ticketId = await this.redis.hget(k.msgid, normalized);
    if (!ticketId) return undefined;
    for (let attempt = 0; attempt < MAX_CAS_RETRIES; attempt++) {
      const current = await this.get(ticketId, WITHOUT_AGENT);
      // The index also links the customers' own mail: only a ticket whose reply has this id is ours to mark.
      const outbound = current?.outbound;
      if (!current || !outbound || normalizeMessageId(outbound.messageId) !== normalized) return undefined;
      let marked = current;
      if (!current.replyBounce) {
        // The write that sets the bounce also counts it in the insights' day hash (compareAndSet), so it counts once.
        const next: Ticket = { ...current, replyBounce: bounce };
        next.updatedAt = this.now().toISOString();
        next.version = current.version + 1;
        const written = await this.compareAndSet(current, next, undefined);
        if (written === 'missing') return undefined;
        if (written === 'conflict') continue;
        marked = next;
      }
      // Listed after the write: a crash in between is mended by the retried job, which finds the reply marked. A
      // bounce a person acknowledged stays off the list, whatever report comes again.
      const at = Date.parse(marked.replyBounce!.at);
      if (!marked.replyBounce!.acknowledged) {
        await execAll(this.redis.multi().zadd(k.bounced, 'NX', at, ticketId).zremrangebyscore(k.bounced, '-inf', at - BOUNCED_LIST_MS));
      }
      return marked;
    }
    throw new TicketConflictError(ticketId, [], undefined, true);
  }

  /**
   * Records that a person took care of the bounce of the ticket's reply ({@link ReplyBounce.acknowledged}) and takes
   * the ticket off {@link bouncedReplies}; its state, history and outcome stay as they are. Returns the ticket as
   * written, or as stored with `changed: false` when the bounce was acknowledged already (the first acknowledgement
   * stands) or there is none to acknowledge.
   *
   * @throws {@link TicketNotFoundError} when the ticket does not exist.
   */
  async acknowledgeReplyBounce(id: string, acknowledgement: Acknowledgement): Promise<{ ticket: Ticket; changed: boolean }> {
    const k = this.keys();
    for (let attempt = 0; attempt < MAX_CAS_RETRIES; attempt++) {
      const current = await this.require(id, WITHOUT_AGENT);
      if (!current.replyBounce || current.replyBounce.acknowledged) {
        if (current.replyBounce) await this.redis.zrem(k.bounced, id);
        return { ticket: current, changed: false };
      }
      const next: Ticket = { ...current, replyBounce: { ...current.replyBounce, acknowledged: acknowledgement } };
      next.updatedAt = this.now().toISOString();
      next.version = current.version + 1;
      const written = await this.compareAndSet(current, next, undefined);
      if (written === 'missing') throw new TicketNotFoundError(id);
      if (written === 'conflict') continue;
      // Off the list after the write: a crash in between leaves it listed until the list is read (see bouncedReplies).
      await this.redis.zrem(k.bounced, id);
      return { ticket: next, changed: true };
    }
    throw new TicketConflictError(id, [], undefined, true);
  }

  /**
   * The tickets whose reply bounced in the last `withinMs` (default {@link BOUNCED_LIST_MS}), newest bounce first, at
   * most `limit`, that nobody acknowledged yet; tickets removed since (retention, erasure) or acknowledged are left out
   * and dropped from the list.
   */
  async bouncedReplies(limit: number, withinMs = BOUNCED_LIST_MS): Promise<{ tickets: Ticket[]; total: number }> {
    const k = this.keys();
    const since = this.now().getTime() - withinMs;
    const [ids, total] = await Promise.all([
      this.redis.zrevrangebyscore(k.bounced, '+inf', since, 'LIMIT', 0, limit),
      this.redis.zcount(k.bounced, since, '+inf'),
    ]);
    const tickets = (await this.getMany(ids, WITHOUT_AGENT)).filter((t) => !t.replyBounce?.acknowledged);
    const gone = ids.filter((id) => !tickets.some((t) => t.id === id));
    if (gone.length > 0) await this.redis.zrem(k.bounced, ...gone);
    return { tickets, total: total - gone.length };
  }

  /** A page of tickets, newest (by creation) first, from the all-tickets or a per-state sorted set. */
  async list(options: ListOptions): Promise<TicketPage> {
    const { ids, total } = await this.newestIds(options);
    return { total, tickets: await this.getMany(ids) };
  }

  /**
   * The ids of a page of {@link list} (newest first, in `state` or all) and the number of tickets in that index, in
   * one transaction: for callers that read the tickets their own way (a search reads them without the agent result).
   */
  async newestIds(options: ListOptions): Promise<{ ids: string[]; total: number }> {
    const limit = Math.trunc(options.limit);
    const offset = Math.trunc(options.offset ?? 0);
    if (!(limit >= 1 && limit <= MAX_PAGE)) throw new RangeError(`list: limit must be 1–${MAX_PAGE}`);
    if (!(offset >= 0)) throw new RangeError('list: offset must be ≥ 0');
    if (options.state !== undefined && !isTicketState(options.state)) throw new TypeError(`Unknown ticket state: ${String(options.state)}`);
    const k = this.keys();
    const key = options.state ? k.state(options.state) : k.all;
    const [[cardErr, total], [rangeErr, ids]] = (await this.redis
      .multi()
      .zcard(key)
      .zrevrange(key, offset, offset + limit - 1)
      .exec()) as [[Error | null, number], [Error | null, string[]]];
    if (cardErr) throw cardErr;
    if (rangeErr) throw rangeErr;
    return { ids, total };
  }

  /** Number of tickets per state. */
  async countByState(): Promise<Record<TicketState, number>> {
    const k = this.keys();
    const pipeline = this.redis.pipeline();
    for (const state of TICKET_STATES) pipeline.zcard(k.state(state));
    const results = (await pipeline.exec()) ?? [];
    const counts = {} as Record<TicketState, number>;
    TICKET_STATES.forEach((state, i) => {
      const [err, n] = results[i] ?? [new Error('missing pipeline result'), 0];
      if (err) throw err;
      counts[state] = Number(n);
    });
    return counts;
  }

  /**
   * Records that `messageId` belongs to `ticketId` in the thread index: inbound mail is linked on creation, and
   * the sender links our reply's Message-ID so a follow-up naming only our reply still finds the conversation.
   * A Message-ID stays with the first ticket it was linked to; returns `false` when it belongs to another ticket, or
   * when the ticket is gone (erased or archived since its job read it: a link to it would outlive it).
   */
  async linkMessageId(messageId: string, ticketId: string): Promise<boolean> {
    const normalized = normalizeMessageId(messageId);
    if (!normalized) throw new TypeError('linkMessageId: messageId is empty');
    const k = this.keys();
    return (await LINK.run(this.redis, [k.msgid, k.ticket(ticketId)], [normalized, ticketId])) === 1;
  }

  /**
   * The conversation (root ticket id) a mail belongs to, from the Message-IDs it names as parents. Pass them most
   * specific first (see `threadRefs`); the first one found in the thread index decides.
   */
  async findConversation(refs: readonly string[]): Promise<string | undefined> {
    const normalized = [...new Set(refs.map(normalizeMessageId).filter(Boolean))];
    if (normalized.length === 0) return undefined;
    const hits = await this.redis.hmget(this.keys().msgid, ...normalized);
    const ticketId = hits.find((h): h is string => typeof h === 'string');
    if (!ticketId) return undefined;
    const ticket = await this.get(ticketId, WITHOUT_AGENT);
    return ticket?.conversationId ?? ticketId;
  }

  /**
   * The conversation a new mail may join, with its history: the one its parent Message-IDs name (see
   * {@link findConversation}), but only when `recipient` (the address our reply to the mail would go to: its Reply-To,
   * else its From) is where our reply to a ticket already in it goes (that ticket's Reply-To, else its From).
   * Otherwise anyone who learned a Message-ID (a forwarded mail, a quoted header) could join another customer's
   * thread, and a forged From of the customer with the attacker's Reply-To would have the customer's exchange put
   * into the agent's context and mailed to the attacker. A ticket's From alone proves nothing when its Reply-To
   * differs: an outsider's mail with the customer as Reply-To joins (its reply goes to the customer), and must not
   * make the outsider a participant for the next mail.
   *
   * @returns `conversationId` to join, or `refusedRoot` naming the conversation that was not joined, or neither.
   */
  async joinConversation(refs: readonly string[], recipient: string | undefined): Promise<{ conversationId?: string; refusedRoot?: string }> {
    const root = await this.findConversation(refs);
    if (!root) return {};
    const wanted = recipient?.trim().toLowerCase();
    if (wanted) {
      const ids = await this.redis.zrange(this.keys().conversation(root), 0, CONVERSATION_PARTICIPANT_SCAN - 1);
      for (const t of await this.getMany(ids.length > 0 ? ids : [root], WITHOUT_AGENT)) {
        if ((t.replyTo || t.from).toLowerCase() === wanted) return { conversationId: root };
      }
    }
    return { refusedRoot: root };
  }

  /**
   * The earlier tickets of the ticket's conversation, oldest first, each with the question and the reply we sent
   * (if any): context for the agent. At most `limit` of the most recent ones. `conversationId` reads another
   * conversation up to the ticket's creation — a ticket created before its thread was known is not in that set.
   */
  async conversationHistory(ticketId: string, options: { limit?: number; conversationId?: string } = {}): Promise<ConversationEntry[]> {
    const limit = Math.max(1, Math.trunc(options.limit ?? 20));
    const ticket = await this.require(ticketId, WITHOUT_AGENT);
    const score = scoreOf(ticket);
    const conversation = options.conversationId ?? ticket.conversationId;
    // One extra in case the ticket itself is in the range (equal scores).
    const ids = (await this.redis.zrevrangebyscore(this.keys().conversation(conversation), score, '-inf', 'LIMIT', 0, limit + 1)).filter(
      (id) => id !== ticketId,
    );
    const earlier = (await this.getMany(ids.slice(0, limit), WITHOUT_AGENT)).reverse();
    return earlier.map((t) => {
      const entry: ConversationEntry = {
        ticketId: t.id,
        createdAt: t.createdAt,
        from: t.from,
        subject: t.subject,
        question: t.question,
        state: t.state,
      };
      if (t.state === 'sent' && t.draft !== undefined) {
        entry.reply = t.draft;
        if (t.outbound?.sentAt) entry.repliedAt = t.outbound.sentAt;
      }
      return entry;
    });
  }

  /**
   * Deletes the ticket as read in `ticket` from every key of the store, together with `rawKey` (its raw mail), in one
   * atomic script, but only while it is still in `ticket.state`: a ticket that moved on meanwhile is left alone
   * (`'moved'`) so the caller can decide again on what is stored. With `options.version`, also only while it is still
   * at that version: the archive holds that copy, and any later change (a bounce marked the reply, a person decided
   * it again) would be lost with it. The thread index keeps Message-IDs that another ticket owns. Idempotent: a
   * ticket already gone is `'missing'`.
   */
  async remove(
    ticket: Pick<Ticket, 'id' | 'state' | 'conversationId' | 'messageId' | 'outbound'> & Partial<Pick<Ticket, 'mailMessageId'>>,
    rawKey: string,
    options: { version?: number | undefined } = {},
  ): Promise<'removed' | 'moved' | 'missing'> {
    const k = this.keys();
    const messageIds = [ticket.messageId, ticket.outbound?.messageId].map((m) => (m ? normalizeMessageId(m) : '')).filter(Boolean);
    const result = await REMOVE.run(
      this.redis,
      [k.ticket(ticket.id), k.all, k.state(ticket.state), k.conversation(ticket.conversationId), k.msgid, rawKey, k.bounced, k.reused(ticket.mailMessageId ?? ticket.messageId)],
      [ticket.id, ticket.state, options.version === undefined ? '' : String(options.version), ...messageIds],
    );
    return result === 1 ? 'removed' : result === 0 ? 'moved' : 'missing';
  }

  /**
   * Ids of the tickets in `state` created at or before `createdBefore` (epoch ms), oldest first, a page of at most
   * `limit` from `offset`: one ZRANGEBYSCORE on the state's index.
   */
  async idsCreatedBefore(state: TicketState, createdBefore: number, limit: number, offset = 0): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys().state(state), '-inf', createdBefore, 'LIMIT', offset, limit);
  }

  /** Ids of every ticket, oldest first, a page of at most `limit` from `offset` (an O(N) walk is the caller's choice). */
  async allIds(limit: number, offset = 0): Promise<string[]> {
    return this.redis.zrange(this.keys().all, offset, offset + limit - 1);
  }

  /** The tickets of `ids` that exist, in the order of `ids`, in one round trip. */
  async getMany(ids: readonly string[], options: ReadOptions = {}): Promise<Ticket[]> {
    if (ids.length === 0) return [];
    const k = this.keys();
    const pipeline = this.redis.pipeline();
    const withAgent = options.agentResult !== false;
    for (const id of ids) {
      if (withAgent) pipeline.hmget(k.ticket(id), 'doc', 'agent');
      else pipeline.hget(k.ticket(id), 'doc');
    }
    const results = (await pipeline.exec()) ?? [];
    const tickets: Ticket[] = [];
    for (const [err, value] of results) {
      if (err) throw err;
      const [doc, agent] = withAgent ? (value as [string | null, string | null]) : [value as string | null, null];
      if (typeof doc === 'string') tickets.push(withAgent ? joinTicket(doc, agent) : readDoc(doc));
    }
    return tickets;
  }

  /**
   * What the write recording `ending` needs of the draft it ends the ticket with: a review's (approved or rejected)
   * cited sources for trust, a reply's (auto-sent or approved) sources for the insights. Taken from the agent result
   * the write stores, else read: one HGET of the result on those endings (a reply at the sender's pace, a review at
   * an operator's), none on any other write. The version check makes the read safe, since an agent result changes
   * only with the version. A ticket stored before the split keeps its result in the document, which `current` holds.
   */
  private async draftSources(current: Ticket, agentPatch: TicketPatch['agent'], ending: TicketOutcome | undefined): Promise<DraftSources> {
    const review = ending !== undefined && isReview(ending);
    const reply = ending !== undefined && replyKindOf(ending.kind) !== undefined;
    if (!review && !reply) return NO_DRAFT_SOURCES;
    let agent: AgentResult | undefined = agentPatch ?? undefined;
    if (agentPatch === undefined) {
      const stored = await this.redis.hget(this.keys().ticket(current.id), 'agent');
      agent = stored ? (JSON.parse(stored) as AgentResult) : current.agent;
    }
    return {
      // The sources the agent's draft used and those the reviewed text used: the reply approved (maybe edited; the
      // approval stored it as the draft, and the ending write that sends it patches no draft) or the draft rejected. An
      // unchanged approval thus credits what the learn gate asked of the agent's answer, an edit that cut a source's
      // text still counts against it, and a hit that merely ranked among the results gets nothing.
      cited: review && agent ? reviewedSources(agent, current.draft ?? agent.answer).map((s) => s.key) : [],
      // A reply the agent drafted nothing for (a person wrote it) cites nothing: recorded as such, not left out.
      ...(reply ? { reply: agent?.sources ?? [] } : {}),
    };
  }

  /**
   * Writes `next` if the ticket is still at `current`'s version. `current` was read without the agent result, so
   * `next` holds one only when the patch set it (or the ticket predates the split): then it is written too.
   */
  private async compareAndSet(
    current: Ticket,
    next: Ticket,
    agentPatch: TicketPatch['agent'],
    outcome?: TicketOutcome,
    draft: DraftSources = NO_DRAFT_SOURCES,
  ): Promise<'ok' | 'conflict' | 'missing'> {
    const k = this.keys();
    const trust = trustKeys(this.prefix);
    const cited = draft.cited;
    const review = outcome && cited.length > 0 ? reviewEntry(outcome, current.id) : '';
    const { doc, agent } = splitTicket(next);
    const agentMode = agentPatch === null ? 'del' : agent !== undefined ? 'set' : 'keep';
    // An agent result is counted (runs, calls, tokens) by the write that stores it, i.e. once per agent run; not by
    // one that merely moves an older ticket's result out of its document.
    // A write that removes the outcome reopens the ticket (a transition out of an end state): that ending is taken
    // back in the hash of the day it was counted on, where the insights subtract it.
    const reopened = current.outcome !== undefined && next.outcome === undefined ? current.outcome : undefined;
    const insights = insightFieldsOnWrite(next, outcome, agentPatch ? next.agent : undefined, {
      replyBounced: !current.replyBounce && next.replyBounce !== undefined,
      reopened: reopened?.kind,
      replySources: draft.reply,
    });
    const counted = outcomeCounting(this.prefix, outcome, writeDay(outcome ?? reopened, next.updatedAt), insights);
    const [kind, bucket, ratio, ...pairs] = counted.args;
    const result = await CAS.run(
      this.redis,
      [k.ticket(current.id), k.state(current.state), k.state(next.state), ...counted.keys, trust.sources, ...(review ? cited.map(trust.source) : [])],
      [
        String(current.version),
        doc,
        next.state,
        String(next.version),
        current.id,
        scoreOf(current),
        agentMode,
        agent ?? '',
        kind!,
        bucket!,
        ratio!,
        review,
        String(TRUST_HISTORY_CAP),
        String(Date.parse(next.updatedAt)),
        String(trust.listPrefix.length),
        ...pairs,
      ],
    );
    return result === 1 ? 'ok' : result === 0 ? 'conflict' : 'missing';
  }
}

/**
 * The day hash a write adds to: that of the outcome it counts or takes back, the day stored with it (a reopening may
 * run in another zone than the ending it takes back was counted in); else the day of the write itself, `at`.
 */
function writeDay(outcome: TicketOutcome | undefined, at: string): string {
  return outcome ? countedDay(outcome) : outcomeDay(at);
}

/**
 * The keys and arguments of `countOutcomeLua`: every write passes them, empty arguments when it records no outcome,
 * followed by the day hash's insight fields (field, amount pairs), all counted on `day` ({@link writeDay}).
 */
function outcomeCounting(prefix: string, outcome: TicketOutcome | undefined, day: string, insights: Map<string, number>): { keys: string[]; args: string[] } {
  const k = outcomeKeys(prefix);
  const keys = [k.totals, k.editRatio, k.day(day)];
  const extra = [...insights].flatMap(([field, n]) => [field, String(n)]);
  if (!outcome) return { keys, args: ['', '', '0', ...extra] };
  const ratio = outcome.editRatio;
  if (ratio === undefined) return { keys, args: [outcome.kind, '', '0', ...extra] };
  return { keys, args: [outcome.kind, editRatioBucketField(ratio), String(Math.round(ratio * EDIT_RATIO_SUM_SCALE)), ...extra] };
}

/** What a write takes from the draft it ends a ticket with ({@link TicketStore} `draftSources`). */
interface DraftSources {
  /** Trust keys of the sources a reviewed draft cited (src/tickets/trust.ts); empty for any other write. */
  cited: readonly string[];
  /** The agent result's sources of a draft sent as a reply (empty when it cited none or the agent wrote none). */
  reply?: readonly AnswerSource[];
}

const NO_DRAFT_SOURCES: DraftSources = { cited: [] };

/** Options of the reads of {@link TicketStore}. */
export interface ReadOptions {
  /** Include the agent result (default true). */
  agentResult?: boolean;
}

const WITHOUT_AGENT: ReadOptions = { agentResult: false };

/**
 * The caller's copy of ticket `id`, if a write may start from it. Not one holding an agent result: that may come from
 * the result's own field (which the write must not copy) or from a ticket stored before the split (whose result the
 * write must move), and only a read tells which.
 */
function assumedCurrent(id: string, copy: Ticket | undefined): Ticket | undefined {
  return copy && copy.id === id && copy.agent === undefined ? copy : undefined;
}

/** The stored form of a ticket: `doc` without the agent result, which goes to its own field. */
function splitTicket(ticket: Ticket): { doc: string; agent: string | undefined } {
  const { agent, ...rest } = ticket;
  return { doc: JSON.stringify(rest), agent: agent === undefined ? undefined : JSON.stringify(agent) };
}

function readDoc(doc: string): Ticket {
  return JSON.parse(doc) as Ticket;
}

function joinTicket(doc: string, agent: string | null): Ticket {
  const ticket = readDoc(doc);
  if (agent) ticket.agent = JSON.parse(agent) as Ticket['agent'];
  return ticket;
}

function scoreOf(ticket: Pick<Ticket, 'createdAt'>): string {
  const ms = Date.parse(ticket.createdAt);
  if (Number.isNaN(ms)) throw new TypeError(`Ticket createdAt is not a date: ${ticket.createdAt}`);
  return String(ms);
}

function checkPatch(patch: TicketPatch | undefined): void {
  if (!patch) return;
  const bad = Object.keys(patch).filter((key) => !(PATCHABLE_FIELDS as readonly string[]).includes(key));
  if (bad.length > 0) {
    throw new TypeError(`Ticket fields ${bad.join(', ')} cannot be patched (patchable: ${PATCHABLE_FIELDS.join(', ')})`);
  }
}

/**
 * The ticket with the patch applied. A shallow copy is enough: `ticket` was parsed from Redis for this write alone,
 * the history is replaced rather than appended to, and whatever the result shares with the caller's patch is
 * serialised before the caller can change it.
 */
function applyPatch(ticket: Ticket, patch: TicketPatch | undefined): Ticket {
  const next: Ticket = { ...ticket };
  if (!patch) return next;
  const target = next as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) {
      // attachments is not optional; removing it means "none".
      if (key === 'attachments') target[key] = [];
      else delete target[key];
    } else target[key] = value;
  }
  return next;
}

function validateNewTicket(ticket: Ticket): void {
  const problems: string[] = [];
  if (!TICKET_ID_PATTERN.test(ticket.id)) problems.push('id is not a sha256 hex digest');
  if (ticket.id !== ticketIdFor(ticket.messageId)) problems.push('id is not the sha256 of the messageId (use newTicket)');
  if (!TICKET_ID_PATTERN.test(ticket.conversationId)) problems.push('conversationId is not a ticket id');
  if (!(INITIAL_STATES as readonly string[]).includes(ticket.state)) problems.push(`state ${ticket.state} is not an initial state`);
  if (!Array.isArray(ticket.history) || ticket.history.length === 0) problems.push('history is empty');
  if (Number.isNaN(Date.parse(ticket.createdAt))) problems.push('createdAt is not a date');
  if (!Number.isInteger(ticket.version) || ticket.version < 1) problems.push('version must be a positive integer');
  if (problems.length > 0) throw new TypeError(`Invalid new ticket ${ticket.id}: ${problems.join('; ')}`);
}
