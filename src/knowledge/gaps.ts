/**
 * Knowledge gaps: the questions the knowledge base could not answer, grouped by topic, so the team sees what to write
 * into the manual next (largest gap first), and sees a gap close once the product answers it.
 *
 * - A ticket the agent parks (or, in review mode `never`, sends) with subtasks that ended without an answer (the
 *   "not found" fallback, or not completed) adds each such subtask's question to the closest open gap, or opens one.
 * - A rejected draft adds the ticket's unanswered subtask questions, or when every subtask was answered (the answer
 *   itself was wrong) the customer's question.
 * - A ticket answered without a person (queued for sending from `drafted`) or approved by one closes every open gap
 *   one of its answered subtask questions — or, when all were answered, its customer question — is close to: the
 *   knowledge base has the answer now (from a learned pair or a reindexed manual). A gap's own tickets never close
 *   it: a parked draft an operator completes by hand is not an answer the product found.
 *
 * Closeness is {@link questionSimilarity} (src/knowledge/gap-similarity.ts) against each of the gap's example
 * - An approval whose reviewer corrected a fact of the draft opens a gap of its own naming the sources that said the
 *   value taken out ({@link learnFromCorrection}, src/tickets/trust.ts): the manual section or Q&A row to fix. Such a
 *   gap takes no questions, and closes only on an answer to its topic that cites none of those sources (their text,
 *   fixed and reindexed, is another source).
 *
 * Closeness is {@link questionSimilarity} (src/knowledge/gap-similarity.ts) against each of the gap's example
 * questions, at {@link GAP_SIMILARITY_THRESHOLD}. A gap counts tickets, not questions: two unanswered subtasks of one
 * ticket in one gap, or a ticket parked and then rejected, count once (as far as the gap's last
 * {@link MAX_GAP_TICKETS} tickets tell). Example questions are cut to {@link MAX_EXAMPLE_CHARS} and pass the personal-data
 * rules (src/knowledge/personal-data.ts) before they are stored: a rejected customer's question is mail text. The
 * rules cannot know every name, so erasing a customer (`review forget`) also removes their tickets and examples
 * ({@link GapStore.forgetTickets}).
 *
 * Keys (P = QUEUE_PREFIX; no queue is named `gaps`):
 *
 * | key            | type       | content                                                         |
 * |----------------|------------|-----------------------------------------------------------------|
 * | `P:gaps:doc`   | hash       | gap id → the gap as JSON                                         |
 * | `P:gaps:open`  | sorted set | open gap ids, score = ticket count (largest first)               |
 * | `P:gaps:closed`| sorted set | closed gap ids, score = when closed (ms)                         |
 * | `P:gaps:version` | string   | write counter: every change is a compare-and-set on it           |
 *
 * Bounded: at most {@link MAX_OPEN_GAPS} open gaps (a new one pushes out the smallest, oldest first) and
 * {@link MAX_CLOSED_GAPS} closed ones (the longest closed go); nothing uses KEYS or SCAN. Choosing a gap reads the open
 * gaps and decides in this process, so the write checks that no other writer changed any gap meanwhile (a Lua
 * compare-and-set on `P:gaps:version`) and decides again if one did: two agent workers never count into a gap that
 * one of them just closed or split.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AgentResult } from '../agent/types.js';
import { createLogger, type Logger } from '../logger.js';
import { localDay } from '../tickets/local-day.js';
import { LuaScript } from '../tickets/lua.js';
import { citedSources, dropReview, readCorrections, recordCorrections, supersedeCorrected, type DroppedReview, type RecordedCorrection, type TrustSettings } from '../tickets/trust.js';
import type { Ticket } from '../tickets/ticket.js';
import type { TicketStore } from '../tickets/ticket-store.js';
import { GAP_SIMILARITY_THRESHOLD, closestGroup, cosine, questionTerms } from './gap-similarity.js';
import { learnedKeys } from './learned-answers.js';
import { PLACEHOLDERS, scrubPersonalData } from './personal-data.js';

export { GAP_SIMILARITY_THRESHOLD, questionSimilarity } from './gap-similarity.js';

/** Open gaps kept; matching reads all of them, so this bounds the work per recorded question. */
export const MAX_OPEN_GAPS = 300;
/** Closed gaps kept for `gaps --all` and the Knowledge page. */
export const MAX_CLOSED_GAPS = 200;
/** Example questions shown per gap. */
export const MAX_GAP_EXAMPLES = 3;
/** Ticket ids kept per gap, newest first (the count goes on beyond it). */
export const MAX_GAP_TICKETS = 20;
/** Longest example question stored (code points); a rejected mail's whole text is cut to this. */
export const MAX_EXAMPLE_CHARS = 300;

// Compare-and-set attempts before a write gives up (each lost race means another gap write landed first).
const MAX_CAS_RETRIES = 16;

/** One knowledge gap. */
export interface KnowledgeGap {
  /** Sortable by creation (base-36 time, then random). */
  id: string;
  /** Tickets that ran into it. */
  count: number;
  /** Up to {@link MAX_GAP_EXAMPLES} distinct questions, the first one first; personal data replaced. */
  examples: string[];
  /** The ticket each example came from (same order), so erasing a customer removes the customer's own words. */
  exampleTickets: string[];
  /** When the first and the latest ticket ran into it (ISO 8601). */
  firstSeen: string;
  lastSeen: string;
  /** Ids of its latest {@link MAX_GAP_TICKETS} tickets, newest first. */
  tickets: string[];
  /** When a later ticket on it was answered (ISO 8601); absent while open. */
  closedAt?: string;
  /** The ticket whose answer closed it. */
  closedBy?: string;
  /** The question of that ticket that matched (personal data replaced). */
  closedByQuestion?: string;
  /**
   * For a reviewer's correction ({@link learnFromCorrection}): the trust keys of the sources that said what was
   * corrected (src/tickets/trust.ts). Its example names them; it takes no questions.
   */
  correctionOf?: string[];
  /**
   * False for a correction no source said (the sources are to check, none is blocked): it closes on a later answer of
   * its topic like any gap, since every such answer cites the same correct sources. Absent (blocking) on the gaps of
   * corrections a source said, and on those stored before this was recorded.
   */
  blocking?: boolean;
}

/** What {@link GapStore.list} returns. */
export interface GapList {
  /** Open gaps, largest first (ties: the newest gap first). */
  open: KnowledgeGap[];
  /** Closed gaps, most recently closed first; empty unless asked for. */
  closed: KnowledgeGap[];
  /** How many are open and closed in all (the lists may be cut to a limit). */
  openTotal: number;
  closedTotal: number;
}

/** Options of {@link GapStore}. */
export interface GapStoreOptions {
  /** Key prefix, normally QUEUE_PREFIX. */
  prefix: string;
  /** Clock for timestamps; tests pass a fixed one. */
  now?: () => Date;
}

// KEYS: version, doc, open, closed, erased tickets. ARGV: expected version, gap id, gap JSON, 'open', 'closed' or
// 'delete', score, max open, max closed, the ticket whose question this write adds ('' for none). Writes the gap, files
// it under open (score = count) or closed (score = closedAt), and drops the lowest-scored gaps beyond the bounds (never
// the one just written); or deletes it. Returns 1, 0 when the version moved on, or -1 when the ticket was erased on
// request: checked in the write, so a job that read the ticket before its erasure adds nothing after it.
const APPLY = new LuaScript(
  `
if ARGV[8] ~= '' and redis.call('SISMEMBER', KEYS[5], ARGV[8]) == 1 then return -1 end
local v = redis.call('GET', KEYS[1]) or '0'
if v ~= ARGV[1] then return 0 end
if ARGV[4] == 'delete' then
  redis.call('HDEL', KEYS[2], ARGV[2])
  redis.call('ZREM', KEYS[3], ARGV[2])
  redis.call('ZREM', KEYS[4], ARGV[2])
  redis.call('INCR', KEYS[1])
  return 1
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
local set, bound
if ARGV[4] == 'open' then
  set, bound = KEYS[3], tonumber(ARGV[6])
else
  redis.call('ZREM', KEYS[3], ARGV[2])
  set, bound = KEYS[4], tonumber(ARGV[7])
end
redis.call('ZADD', set, ARGV[5], ARGV[2])
local over = redis.call('ZCARD', set) - bound
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', set, 0, over)) do
    if over > 0 and id ~= ARGV[2] then
      redis.call('ZREM', set, id)
      redis.call('HDEL', KEYS[2], id)
      over = over - 1
    end
  end
end
redis.call('INCR', KEYS[1])
return 1
`,
  5,
);

/** The knowledge gaps in Redis; see the module comment. */
export class GapStore {
  readonly prefix: string;
  private readonly now: () => Date;

  constructor(
    private readonly redis: Redis,
    options: GapStoreOptions,
  ) {
    if (!options.prefix) throw new TypeError('GapStore: prefix is required');
    this.prefix = options.prefix;
    this.now = options.now ?? (() => new Date());
  }

  /** The Redis keys of the store, for operators and tests. */
  keys() {
    const base = `${this.prefix}:gaps`;
    return { doc: `${base}:doc`, open: `${base}:open`, closed: `${base}:closed`, version: `${base}:version` };
  }

  /**
   * Counts `ticketId` into the open gap closest to `question`, or opens a new gap for it. A ticket already among the
   * gap's tickets is not counted again (its question may still become an example). Returns the gap as written, or
   * undefined for a question with nothing to compare (no topic terms: empty, or only punctuation and particles).
   */
  async record(question: string, ticketId: string): Promise<KnowledgeGap | undefined> {
    const text = exampleText(question);
    if (questionTerms(matchText(text)).size === 0) return undefined;
    const at = this.now().toISOString();
    for (let attempt = 0; attempt < MAX_CAS_RETRIES; attempt++) {
      const { version, gaps: open } = await this.readOpen();
      const gaps = open.filter((g) => !g.correctionOf);
      const match = closestGroup(matchText(text), gaps.map((g) => ({ id: g.id, examples: g.examples.map(matchText) })));
      const found = match && gaps.find((g) => g.id === match.id);
      const gap = found ? addTicket(found, text, ticketId, at) : newGap(this.newId(), text, ticketId, at);
      const written = await this.apply(version, gap, 'open', gap.count, ticketId);
      if (written === 'written') return gap;
      if (written === 'erased') return undefined;
    }
    throw new Error(`knowledge gaps: gave up recording after ${MAX_CAS_RETRIES} concurrent writes`);
  }

  /**
   * Opens the gap of a reviewer's correction on ticket `ticketId` of the sources `sourceIds` (`text` names them and
   * what was corrected; `question`, the question they were cited for, is its second example, which later answers of
   * the topic are compared with), or counts the ticket into the open one of the same sources. Returns the gap as
   * written, or undefined when the ticket was erased meanwhile.
   */
  async recordCorrection(text: string, ticketId: string, sourceIds: readonly string[], question = '', blocking = true): Promise<KnowledgeGap | undefined> {
    const example = exampleText(text);
    const asked = exampleText(question);
    const of = [...new Set(sourceIds)].sort();
    const at = this.now().toISOString();
    for (let attempt = 0; attempt < MAX_CAS_RETRIES; attempt++) {
      const { version, gaps } = await this.readOpen();
      const found = gaps.find((g) => g.correctionOf !== undefined && sameIds([...g.correctionOf].sort(), of));
      let gap: KnowledgeGap = found ? addTicket(found, example, ticketId, at) : { ...newGap(this.newId(), example, ticketId, at), correctionOf: of, ...(blocking ? {} : { blocking }) };
      // A correction a source said, counted into the gap of one none said: the gap now asks to fix it.
      if (blocking && gap.blocking === false) gap = { ...gap, blocking: true };
      if (questionTerms(matchText(asked)).size > 0) gap = addTicket(gap, asked, ticketId, at);
      const written = await this.apply(version, gap, 'open', gap.count, ticketId);
      if (written === 'written') return gap;
      if (written === 'erased') return undefined;
    }
    throw new Error(`knowledge gaps: gave up recording a correction after ${MAX_CAS_RETRIES} concurrent writes`);
  }

  /**
   * Closes every open gap that one of `questions` (those `ticketId` was answered on) is close to, except gaps the
   * ticket itself is counted in. A correction's gap closes only when `cited` (the answer's sources) is given and holds
   * none of its sources. Returns the gaps closed.
   */
  async close(questions: readonly string[], ticketId: string, cited?: ReadonlySet<string>): Promise<KnowledgeGap[]> {
    // Every drafted reply comes here: the questions are prepared (personal data replaced, the costly part) only when
    // there are open gaps to compare them with.
    let answered: string[] | undefined;
    const closed: KnowledgeGap[] = [];
    let retries = 0;
    for (;;) {
      const { version, gaps } = await this.readOpen();
      if (gaps.length === 0) return closed;
      answered ??= questions.map((q) => exampleText(q)).filter((q) => questionTerms(matchText(q)).size > 0);
      if (answered.length === 0) return closed;
      const hit = firstClosable(gaps, answered, ticketId, cited);
      if (!hit) return closed;
      const at = this.now();
      const gap: KnowledgeGap = { ...hit.gap, closedAt: at.toISOString(), closedBy: ticketId, closedByQuestion: hit.question };
      const written = await this.apply(version, gap, 'closed', at.getTime(), ticketId);
      if (written === 'erased') return closed;
      if (written === 'written') closed.push(gap);
      else if (++retries >= MAX_CAS_RETRIES) throw new Error(`knowledge gaps: gave up closing after ${MAX_CAS_RETRIES} concurrent writes`);
    }
  }

  /**
   * Closes the open gaps of corrections (`correctionOf`) that ask to fix nothing any more, after ticket `ticketId`'s
   * review was withdrawn ({@link withdrawReview}): those none of whose sources holds a correction that blocks it
   * (src/tickets/trust.ts, `held`), when the gap counts that ticket or its sources hold no correction at all. No answer
   * would close them: a correct source is cited by every answer of its topic. Returns the gaps closed.
   */
  async closeWithdrawnCorrections(ticketId: string): Promise<KnowledgeGap[]> {
    const closed: KnowledgeGap[] = [];
    for (let retries = 0; ; ) {
      const { version, gaps } = await this.readOpen();
      const corrected = gaps.filter((g) => g.correctionOf !== undefined && g.correctionOf.length > 0);
      let settled: KnowledgeGap | undefined;
      for (const gap of corrected) {
        const lists = await readCorrections(this.redis, this.prefix, gap.correctionOf!);
        const blocking = lists.some((list) => list.some((c) => c.held));
        if (!blocking && (gap.tickets.includes(ticketId) || lists.every((list) => list.length === 0))) {
          settled = gap;
          break;
        }
      }
      if (!settled) return closed;
      const at = this.now();
      const written = await this.apply(version, { ...settled, closedAt: at.toISOString() }, 'closed', at.getTime());
      if (written === 'written') closed.push({ ...settled, closedAt: at.toISOString() });
      else if (++retries >= MAX_CAS_RETRIES) throw new Error(`knowledge gaps: gave up closing after ${MAX_CAS_RETRIES} concurrent writes`);
    }
  }

  /**
   * The gaps that hold a trace of `ticketIds` (count, example or closing question): what {@link forgetTickets} would
   * change, for an erasure's report and its dry run.
   */
  async gapsOfTickets(ticketIds: Iterable<string>): Promise<KnowledgeGap[]> {
    const ids = new Set(ticketIds);
    if (ids.size === 0) return [];
    return (await this.allGaps()).filter((g) => mentionsTickets(g, ids));
  }

  // All gaps, open and closed: both sets are bounded, and only an erasure reads them all.
  private async allGaps(): Promise<KnowledgeGap[]> {
    const k = this.keys();
    return this.docs([...(await this.redis.zrange(k.open, 0, -1)), ...(await this.redis.zrange(k.closed, 0, -1))]);
  }

  /**
   * Removes every trace of `ticketIds` (a customer being erased): the tickets from the gaps' lists, the examples they
   * gave and the question that closed a gap; a gap left without an example is deleted, since nothing of it can be
   * shown or matched any more. Counts and dates stay: they say how often, not who. Returns how many gaps changed.
   */
  async forgetTickets(ticketIds: Iterable<string>): Promise<number> {
    const ids = new Set(ticketIds);
    if (ids.size === 0) return 0;
    const k = this.keys();
    let changed = 0;
    for (let retries = 0; ; ) {
      const version = (await this.redis.get(k.version)) ?? '0';
      const gap = (await this.allGaps()).find((g) => mentionsTickets(g, ids));
      if (!gap) return changed;
      // An example of unknown source (a gap stored before the sources were) may be the customer's when the gap
      // counts one of their tickets: it goes.
      const touched = gap.tickets.some((t) => ids.has(t));
      const kept = gap.examples.map((e, i) => [e, gap.exampleTickets[i] ?? ''] as const).filter(([, t]) => (t ? !ids.has(t) : !touched));
      const next: KnowledgeGap = { ...gap, tickets: gap.tickets.filter((t) => !ids.has(t)), examples: kept.map(([e]) => e), exampleTickets: kept.map(([, t]) => t) };
      if (next.closedBy !== undefined && ids.has(next.closedBy)) {
        delete next.closedBy;
        delete next.closedByQuestion;
      }
      const mode = next.examples.length === 0 ? 'delete' : next.closedAt ? 'closed' : 'open';
      const score = next.closedAt ? Date.parse(next.closedAt) : next.count;
      if ((await this.apply(version, next, mode, score)) === 'written') changed++;
      else if (++retries >= MAX_CAS_RETRIES) throw new Error(`knowledge gaps: gave up forgetting tickets after ${MAX_CAS_RETRIES} concurrent writes`);
    }
  }

  /**
   * Open gaps largest first, and with `includeClosed` the closed ones most recently closed first; each list at most
   * `limit` long (default: all kept).
   */
  async list(options: { includeClosed?: boolean; limit?: number } = {}): Promise<GapList> {
    const k = this.keys();
    const stop = options.limit === undefined ? -1 : Math.max(1, Math.trunc(options.limit)) - 1;
    const read = this.redis.multi().zrevrange(k.open, 0, stop).zcard(k.open).zcard(k.closed);
    if (options.includeClosed) read.zrevrange(k.closed, 0, stop);
    const replies = (await read.exec()) as [Error | null, unknown][] | null;
    if (!replies) throw new Error('knowledge gaps: the read was aborted');
    for (const [err] of replies) if (err) throw err;
    const [openIds, openTotal, closedTotal, closedIds = []] = replies.map(([, value]) => value) as [string[], number, number, string[]?];
    const [open, closed] = await Promise.all([this.docs(openIds), this.docs(closedIds)]);
    return { open: sortOpen(open), closed, openTotal, closedTotal };
  }

  /** The open gaps with the write counter read together with them. */
  private async readOpen(): Promise<{ version: string; gaps: KnowledgeGap[] }> {
    const k = this.keys();
    const replies = (await this.redis.multi().get(k.version).zrange(k.open, 0, -1).exec()) as [Error | null, unknown][] | null;
    if (!replies) throw new Error('knowledge gaps: the read was aborted');
    for (const [err] of replies) if (err) throw err;
    const version = (replies[0]![1] as string | null) ?? '0';
    const ids = replies[1]![1] as string[];
    // Every drafted reply reads the open gaps (up to MAX_OPEN_GAPS documents to fetch and parse) to see what it
    // closes, while they change only when a gap is written, which moves the counter on. The same counter and the same
    // ids (a Redis that lost its data and counted up again holds other ids) are the same documents.
    const cached = openGapsRead.get(this.prefix);
    if (cached && cached.version === version && sameIds(cached.ids, ids)) return { version, gaps: [...cached.gaps] };
    // Read after the counter: a gap changed in between moved the counter on, and the write will decide again.
    const gaps = await this.docs(ids);
    openGapsRead.set(this.prefix, { version, ids, gaps });
    return { version, gaps: [...gaps] };
  }

  private async docs(ids: readonly string[]): Promise<KnowledgeGap[]> {
    if (ids.length === 0) return [];
    const docs = await this.redis.hmget(this.keys().doc, ...ids);
    return docs.filter((d): d is string => typeof d === 'string').map((d) => withExampleTickets(JSON.parse(d) as KnowledgeGap));
  }

  /** Writes `gap` if the counter is still `version`; `ticketId`, the ticket whose question it adds, must not be erased. */
  private async apply(version: string, gap: KnowledgeGap, set: 'open' | 'closed' | 'delete', score: number, ticketId = ''): Promise<'written' | 'moved-on' | 'erased'> {
    const k = this.keys();
    const keys = [k.version, k.doc, k.open, k.closed, learnedKeys(this.prefix).erased];
    const result = await APPLY.run(this.redis, keys, [version, gap.id, JSON.stringify(gap), set, score, MAX_OPEN_GAPS, MAX_CLOSED_GAPS, ticketId]);
    return result === 1 ? 'written' : result === -1 ? 'erased' : 'moved-on';
  }

  private newId(): string {
    return `${this.now().getTime().toString(36).padStart(9, '0')}${randomBytes(3).toString('hex')}`;
  }
}

/**
 * The open gaps last read, per key prefix, with the counter and ids they were read at; see `readOpen`. Never changed
 * in place (gaps are written as new objects), so handing them out again is safe.
 */
const openGapsRead = new Map<string, { version: string; ids: readonly string[]; gaps: readonly KnowledgeGap[] }>();

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

/** A gap as read: one stored before its examples' tickets were recorded has none (an empty list, not undefined). */
function withExampleTickets(gap: KnowledgeGap): KnowledgeGap {
  return Array.isArray(gap.exampleTickets) ? gap : { ...gap, exampleTickets: [] };
}

/** Largest first; among equal counts the newest first (the order of `P:gaps:open` read backwards). */
function sortOpen(gaps: KnowledgeGap[]): KnowledgeGap[] {
  return gaps.sort((a, b) => b.count - a.count || b.id.localeCompare(a.id));
}

function newGap(id: string, question: string, ticketId: string, at: string): KnowledgeGap {
  return { id, count: 1, examples: [question], exampleTickets: [ticketId], firstSeen: at, lastSeen: at, tickets: [ticketId] };
}

/** The gap with one more ticket (or the same ticket seen again) and, if it is new enough, one more example. */
function addTicket(gap: KnowledgeGap, question: string, ticketId: string, at: string): KnowledgeGap {
  const known = gap.tickets.includes(ticketId);
  const newExample = gap.examples.length < MAX_GAP_EXAMPLES && !gap.examples.some((e) => sameWording(e, question));
  return {
    ...gap,
    count: known ? gap.count : gap.count + 1,
    examples: newExample ? [...gap.examples, question] : gap.examples,
    exampleTickets: newExample ? [...gap.exampleTickets, ticketId] : gap.exampleTickets,
    lastSeen: at,
    tickets: known ? gap.tickets : [ticketId, ...gap.tickets].slice(0, MAX_GAP_TICKETS),
  };
}

/** Two examples that differ only in spelling (width, case, punctuation, spaces) show nothing new. */
function sameWording(a: string, b: string): boolean {
  const plain = (s: string) => s.normalize('NFKC').toLowerCase().replace(/[\s\p{P}\p{S}]+/gu, '');
  return plain(a) === plain(b);
}

/** The first open gap (largest first) that one of `questions` answers, with that question. */
function firstClosable(gaps: KnowledgeGap[], questions: readonly string[], ticketId: string, cited?: ReadonlySet<string>): { gap: KnowledgeGap; question: string } | undefined {
  const asked = questions.map((q) => ({ question: q, terms: questionTerms(matchText(q)) }));
  for (const gap of sortOpen(gaps)) {
    if (gap.tickets.includes(ticketId)) continue;
    // An answer still citing a corrected text (or one whose sources are not known) does not show it fixed; the gap of a
    // correction that blocks nothing has nothing to fix.
    if (gap.correctionOf && gap.blocking !== false && (!cited || gap.correctionOf.some((id) => cited.has(id)))) continue;
    const examples = gap.examples.map(exampleTerms);
    const hit = asked.find((a) => examples.some((e) => cosine(a.terms, e) >= GAP_SIMILARITY_THRESHOLD));
    if (hit) return { gap, question: hit.question };
  }
  return undefined;
}

// The terms of the open gaps' examples, which every drafted reply is compared with: the examples change only when a
// gap does, so their terms are kept rather than worked out again for each reply. Bounded: cleared when full.
const termsOfExamples = new Map<string, ReadonlyMap<string, number>>();
const EXAMPLE_TERMS_KEPT = 10_000;

function exampleTerms(example: string): ReadonlyMap<string, number> {
  let terms = termsOfExamples.get(example);
  if (terms === undefined) {
    terms = questionTerms(matchText(example));
    if (termsOfExamples.size >= EXAMPLE_TERMS_KEPT) termsOfExamples.clear();
    termsOfExamples.set(example, terms);
  }
  return terms;
}

/** A question as stored: outer space trimmed, cut to {@link MAX_EXAMPLE_CHARS}, personal data replaced. */
export function exampleText(question: string): string {
  const chars = Array.from(question.replace(/\s+/g, ' ').trim());
  const cut = chars.length > MAX_EXAMPLE_CHARS ? `${chars.slice(0, MAX_EXAMPLE_CHARS).join('')}…` : chars.join('');
  return scrubPersonalData(cut).text;
}

const PLACEHOLDER_TEXTS = [...Object.values(PLACEHOLDERS.ja), ...Object.values(PLACEHOLDERS.en)];

/** A stored question as compared: without the placeholders, which say nothing about the topic. */
function matchText(example: string): string {
  let text = example;
  for (const placeholder of PLACEHOLDER_TEXTS) text = text.replaceAll(placeholder, ' ');
  return text;
}

// ------------------------------------------------------------------------------------------------------------------
// What a ticket teaches the gaps.

/** Questions of the subtasks the agent could not answer (the fallback, or not completed). */
export function unansweredQuestions(agent: Pick<AgentResult, 'subtasks'>): string[] {
  return agent.subtasks.filter((s) => !s.isCompleted || s.usedFallback).map((s) => s.taskName);
}

/**
 * Questions the agent answered from the knowledge base: its completed subtasks, and the customer's question itself
 * when every subtask was answered.
 */
export function answeredQuestions(ticket: Pick<Ticket, 'question'>, agent: Pick<AgentResult, 'subtasks'>): string[] {
  const answered = agent.subtasks.filter((s) => s.isCompleted && !s.usedFallback).map((s) => s.taskName);
  if (answered.length > 0 && answered.length === agent.subtasks.length && ticket.question.trim()) answered.push(ticket.question);
  return answered;
}

/** What {@link learnGapsFrom} needs. */
export interface GapHookDeps {
  /** The ticket store: its prefix names the gap keys, and it supplies the agent result when the ticket lacks it. */
  store: TicketStore;
  /** A producer connection (fail-fast). */
  redis: Redis;
  logger?: Logger;
  /** Clock of the gap store; tests pass a fixed one. */
  now?: () => Date;
}

/** What {@link learnGapsFrom} did. */
export interface GapHookResult {
  recorded: KnowledgeGap[];
  closed: KnowledgeGap[];
}

/**
 * Called after a ticket's state changed (the answer-ticket job, the review actions): records its unanswered
 * questions into gaps or closes the gaps it answers, by the ticket's new state — `parked` and `drafted` record the
 * unanswered subtasks, `rejected` records them or the customer's question, `drafted` and `approved` close. Other
 * states, and tickets the agent never ran on (spam, over the rate limit, no question), teach nothing.
 *
 * Never throws: the ticket's transition is done and must stand whatever happens here; a failure is logged at warn
 * and the gaps simply miss this ticket.
 */
export async function learnGapsFrom(deps: GapHookDeps, ticket: Ticket): Promise<GapHookResult> {
  const result: GapHookResult = { recorded: [], closed: [] };
  if (!['parked', 'drafted', 'approved', 'rejected'].includes(ticket.state)) return result;
  const log = deps.logger ?? createLogger('knowledge-gaps');
  try {
    const agent = ticket.agent ?? (await deps.store.get(ticket.id))?.agent;
    if (!agent) return result;
    const gaps = new GapStore(deps.redis, { prefix: deps.store.prefix, ...(deps.now ? { now: deps.now } : {}) });
    const unanswered = unansweredQuestions(agent);
    const toRecord =
      ticket.state === 'parked' || ticket.state === 'drafted' ? unanswered : ticket.state === 'rejected' ? (unanswered.length > 0 ? unanswered : [ticket.question]) : [];
    for (const question of toRecord) {
      const gap = await gaps.record(question, ticket.id);
      if (gap) result.recorded.push(gap);
    }
    if (ticket.state === 'drafted' || ticket.state === 'approved') {
      result.closed = await gaps.close(answeredQuestions(ticket, agent), ticket.id, new Set(citedSources(agent).map((s) => s.key)));
      // A correction's gap closed on an answer that cites a newer text of the corrected section or row: the old text is
      // fixed, and no longer listed as one to fix.
      const fixed = result.closed.flatMap((g) => g.correctionOf ?? []);
      if (fixed.length > 0) await supersedeCorrected(deps.redis, deps.store.prefix, fixed, agent);
    }
    if (result.recorded.length > 0 || result.closed.length > 0) {
      log.info({ ticketId: ticket.id, recorded: result.recorded.map((g) => g.id), closed: result.closed.map((g) => g.id) }, 'Knowledge gaps updated');
    }
  } catch (err) {
    log.warn({ err, ticketId: ticket.id }, 'Could not update the knowledge gaps for this ticket; the ticket itself is unaffected');
  }
  return result;
}

/**
 * Whether `gap`'s latest ticket came in on one of the days `from`–`to` (`YYYY-MM-DD`, inclusive) in `timeZone`
 * (default: the process's): how the insights page picks the gaps of its period, whose days are the desk's calendar
 * days like the rest of the page, not UTC days. A `lastSeen` that is no date is in no period.
 */
export function seenInPeriod(gap: Pick<KnowledgeGap, 'lastSeen'>, period: { from: string; to: string }, timeZone?: string): boolean {
  const ms = Date.parse(gap.lastSeen);
  if (Number.isNaN(ms)) return false;
  const day = localDay(ms, timeZone);
  return day >= period.from && day <= period.to;
}

/** True when `gap` counts one of `ids`, shows an example from one, or was closed by one. */
function mentionsTickets(gap: KnowledgeGap, ids: ReadonlySet<string>): boolean {
  return gap.tickets.some((t) => ids.has(t)) || gap.exampleTickets.some((t) => ids.has(t)) || (gap.closedBy !== undefined && ids.has(gap.closedBy));
}

/** Values named in a correction's gap; the trust records list them all. */
const CORRECTION_VALUES_SHOWN = 3;

/** What {@link withdrawReview} changed. */
export interface WithdrawnReview {
  /** The sources whose record changed ({@link dropReview}). */
  changes: DroppedReview[];
  /** The correction gaps closed, which asked to fix a source the withdrawn review alone had blocked. */
  closedGaps: KnowledgeGap[];
}

/**
 * Withdraws ticket `ticketId`'s review from every source's record ({@link dropReview}: `knowledge trust
 * --drop-review`), then closes the gaps of corrections that no longer block a source
 * ({@link GapStore.closeWithdrawnCorrections}): a gap asking to fix a correct source stayed open for good (bug review
 * B2).
 */
export async function withdrawReview(deps: { redis: Redis; prefix: string; now?: () => Date }, ticketId: string, settings: TrustSettings): Promise<WithdrawnReview> {
  const changes = await dropReview(deps.redis, deps.prefix, ticketId, settings);
  const gaps = new GapStore(deps.redis, { prefix: deps.prefix, ...(deps.now ? { now: deps.now } : {}) });
  return { changes, closedGaps: await gaps.closeWithdrawnCorrections(ticketId) };
}

/**
 * Called after an approval (the review actions) with the agent's answer and the text approved: when the reviewer
 * corrected a fact ({@link Ticket.approval}'s `factsChanged`), records the correction on the sources that said the
 * value taken out ({@link recordCorrections}: they are not trusted until fixed) and opens a gap naming them, so the
 * team sees which manual section or Q&A row to fix. Never throws, like {@link learnGapsFrom}: the approval stands.
 */
export async function learnFromCorrection(deps: GapHookDeps, ticket: Ticket, sent: string): Promise<{ recorded?: RecordedCorrection; gap?: KnowledgeGap }> {
  const facts = ticket.approval?.factsChanged;
  if (!facts || facts.length === 0) return {};
  const log = deps.logger ?? createLogger('knowledge-gaps');
  try {
    const agent = ticket.agent ?? (await deps.store.get(ticket.id))?.agent;
    if (!agent) return {};
    const now = deps.now?.() ?? new Date();
    const recorded = await recordCorrections(deps.redis, deps.store.prefix, { ticketId: ticket.id, agent, draft: agent.answer, sent, factsChanged: facts, at: now });
    if (recorded.sources.length === 0) return { recorded };
    const held = recorded.sources.filter((s) => s.correction.held);
    const labels = [...new Set(recorded.sources.map((s) => s.correction.label))].join(', ');
    const values = [...new Set(held.flatMap((s) => s.correction.values))].slice(0, CORRECTION_VALUES_SHOWN).join(', ');
    const text =
      held.length > 0
        ? `Fix ${labels}: a reviewer corrected ${values} in a reply citing it`
        : `Check ${labels}: a reviewer corrected the ${facts.join(', ')} of a reply citing them, which none of them says`;
    const gaps = new GapStore(deps.redis, { prefix: deps.store.prefix, ...(deps.now ? { now: deps.now } : {}) });
    // The ticket is the gap's own (its id would read as a number to the personal-data rules the example passes). The
    // question the corrected sources were cited for: what a later answer of the topic is compared with.
    const files = new Set(recorded.sources.map((s) => s.sourceId));
    const cited = agent.subtasks.find((st) => st.isCompleted && citedSources({ subtasks: [st] }).some((c) => files.has(c.key)));
    const gap = await gaps.recordCorrection(text, ticket.id, [...files], cited?.taskName ?? ticket.question, held.length > 0);
    log.info({ ticketId: ticket.id, sources: recorded.sources.map((s) => s.sourceId), gap: gap?.id }, 'Reviewer correction recorded on its sources');
    return { recorded, ...(gap ? { gap } : {}) };
  } catch (err) {
    log.warn({ err, ticketId: ticket.id }, 'Could not record the reviewer’s correction on the sources; the approval itself is unaffected');
    return {};
  }
}
