/**
 * Learned answers: Q&A pairs the product proposes from approved replies (candidates) and the ones an operator
 * accepted (pairs), stored in Redis beside the tickets. Accepted pairs are the second Q&A source beside QA_DIR:
 * the embedded Q&A index merges them in as they change ({@link learnedPairSource}), Qdrant takes them as points
 * ({@link QaSearch.upsertPairs}), and a Q&A reindex includes them ({@link LearnedAnswerStore.qaPairs}).
 *
 * Keys (P = QUEUE_PREFIX; no queue is named `learned`, so BullMQ's `P:<queue>:…` keys cannot collide):
 *
 * | key                  | type   | what                                                                        |
 * |----------------------|--------|-----------------------------------------------------------------------------|
 * | `P:learned:seq`      | string | last id given; candidates and pairs share the sequence                      |
 * | `P:learned:cand`     | hash   | candidate id → {@link LearnedCandidate} JSON                                |
 * | `P:learned:pairs`    | hash   | pair id → {@link LearnedPair} JSON                                          |
 * | `P:learned:proposed` | hash   | ticket id → candidate ids proposed for it, so a retried job proposes once   |
 * | `P:learned:version`  | string | incremented on every change of the pairs; searches merge again when it moves |
 * | `P:learned:erased`   | set    | ids of tickets erased on request (`forget`, src/tickets/erased.ts): proposals and gap writes refuse them |
 *
 * A candidate keeps its id when accepted as a new pair, so `learned#<id>` names the pair in search results and
 * sources. A candidate whose question is close to an accepted pair's ({@link SIMILAR_QUESTION_THRESHOLD}) is
 * offered as an update of that pair: accepting it replaces the pair's text under the pair's id.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { execAll } from '../queues/connection.js';
import { LEARNED_ID_PREFIX, type LearnedPairSource } from '../search/embedded-qa.js';
import type { QaPair, QaSearch } from '../search/types.js';
import { erasedTicketsKey } from '../tickets/erased.js';
import { LuaScript } from '../tickets/lua.js';
import { MAX_CANDIDATE_ANSWER_CHARS, MAX_CANDIDATE_QUESTION_CHARS, removeControls, removeInvisible, type ScrubSummary } from './learned-candidates.js';
import { questionTerms } from './gap-similarity.js';
import { FORMULA_START } from './qa-loader.js';

export { LEARNED_ID_PREFIX };

/** The `fileName` of learned pairs in the Q&A index: hits read `learned#<id>`. */
export const LEARNED_FILE_NAME = 'learned';

/**
 * Similarity of two questions' topic terms ({@link questionSimilarity}) from which a candidate counts as an update of
 * an accepted pair rather than a new one. Accepting an update replaces a pair's text, so when in doubt a candidate is
 * offered as new. Measured on the table of test/unit/knowledge-learned-candidates.test.ts: the same question reworded
 * ("返品の方法を教えてください" / "返品の方法を教えて下さい。", "返品の送料を教えて下さい" / "返品するときにかかる送料
 * はいくらですか？") scores 1; different questions score 0.67 at most, the highest being two tasks on one product
 * area ("パスワードを変更したい" / "パスワードを忘れた": a katakana word is several bigram terms), then one of two topics
 * shared ("返品の送料を教えてください" / "返品の方法を教えてください", 0.5).
 */
export const SIMILAR_QUESTION_THRESHOLD = 0.7;

/** A proposed pair waiting for an operator. */
export interface LearnedCandidate {
  id: number;
  /** The ticket whose approved reply it came from. */
  ticketId: string;
  question: string;
  answer: string;
  /** Who split the reply: the model's structured call, or the rules (no model, or the model failed). */
  origin: 'model' | 'rules';
  /** Why the model's split was not used, when it was asked and failed. */
  distilError?: string;
  scrub: ScrubSummary;
  proposedAt: string;
  /** Set when an operator edited the candidate before accepting. */
  editedBy?: string;
}

/** An accepted pair: part of the knowledge base. */
export interface LearnedPair {
  id: number;
  question: string;
  answer: string;
  /** The ticket that taught the current text (the latest accepted candidate's). */
  ticketId: string;
  /** Every ticket whose candidate was accepted into this pair, oldest first. */
  ticketIds: string[];
  acceptedBy: string;
  acceptedAt: string;
  /** When the pair was first accepted (differs from `acceptedAt` once an update was accepted). */
  createdAt: string;
}

/** The accepted pair a candidate would update, and how close the questions are. */
export interface UpdateTarget {
  pair: LearnedPair;
  similarity: number;
}

/** An expected refusal; callers word it their own way (HTTP status, exit code). */
export type LearnedRefusal = { outcome: 'not-found'; message: string } | { outcome: 'invalid'; message: string };

/**
 * What the operator was shown for a candidate: accepting it stores a new pair, or updates pair `pairId` as it was
 * then (`stamp`, {@link pairStamp}).
 */
export type ShownTarget = { kind: 'new' } | { kind: 'update'; pairId: number; stamp: string };

/** An update refused because its pair `changed` or was `removed` after it was shown; nothing was written. */
export interface AcceptConflict {
  outcome: 'conflict';
  pairId: number;
  change: 'changed' | 'removed';
  message: string;
}

/** Result of {@link LearnedAnswerStore.accept}. */
export type AcceptOutcome = { outcome: 'accepted'; pair: LearnedPair; updated: boolean } | LearnedRefusal | AcceptConflict;

/**
 * A short fingerprint of a pair's stored text and provenance: it changes with every accepted update of the pair, so a
 * page can say which version of the pair it offered to update.
 */
export function pairStamp(pair: Pick<LearnedPair, 'id' | 'question' | 'answer' | 'ticketId' | 'acceptedBy' | 'acceptedAt'>): string {
  const fields = [pair.id, pair.question, pair.answer, pair.ticketId, pair.acceptedBy, pair.acceptedAt];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex').slice(0, 16);
}

/** The Redis keys of the learned answers. */
export function learnedKeys(prefix: string) {
  if (!prefix) throw new TypeError('learnedKeys: prefix is required');
  return {
    seq: `${prefix}:learned:seq`,
    candidates: `${prefix}:learned:cand`,
    pairs: `${prefix}:learned:pairs`,
    proposed: `${prefix}:learned:proposed`,
    version: `${prefix}:learned:version`,
    erased: erasedTicketsKey(prefix),
  } as const;
}

/** The question as compared for similarity: NFKC, lower case, letters and digits only. */
export function questionKey(question: string): string {
  return question.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * Jaccard similarity (0–1) of the sets of two questions' topic terms, as the knowledge gaps count them
 * ({@link questionTerms}: request phrasing such as 「…を教えてください」, "how do I" left out). Comparing characters
 * instead let a shared request phrasing outweigh the topic: 「返品の送料を教えてください」 was an update of 「返品の方法を
 * 教えてください」. Questions with no topic term at all are alike only when their {@link questionKey}s are equal.
 */
export function questionSimilarity(a: string, b: string): number {
  const x = new Set(questionTerms(a).keys());
  const y = new Set(questionTerms(b).keys());
  if (x.size === 0 || y.size === 0) return x.size === y.size && questionKey(a) === questionKey(b) ? 1 : 0;
  let shared = 0;
  for (const term of x) if (y.has(term)) shared++;
  return shared / (x.size + y.size - shared);
}

/** The accepted pair most similar to `question` at or above {@link SIMILAR_QUESTION_THRESHOLD}, if any. */
export function closestPair(question: string, pairs: readonly LearnedPair[]): UpdateTarget | undefined {
  let best: UpdateTarget | undefined;
  for (const pair of pairs) {
    const similarity = questionSimilarity(question, pair.question);
    if (similarity >= SIMILAR_QUESTION_THRESHOLD && (!best || similarity > best.similarity)) best = { pair, similarity };
  }
  return best;
}

/** A learned pair as the Q&A index holds it. */
export function toQaPair(pair: Pick<LearnedPair, 'id' | 'question' | 'answer' | 'ticketId'>): QaPair {
  return { id: `${LEARNED_ID_PREFIX}${pair.id}`, fileName: LEARNED_FILE_NAME, row: pair.id, question: pair.question, answer: pair.answer, ticketId: pair.ticketId };
}

/** The learned pair id of a Q&A source or hit name (`learned#12` → 12), or undefined for other sources. */
export function learnedPairIdOf(name: string): number | undefined {
  const m = /^learned#(\d+)$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

// Writes every candidate of a ticket and marks the ticket proposed, unless it already is (0) or the ticket was erased
// (-1): checked in the write itself, so a proposal that read the ticket before an erasure cannot store after it.
const PROPOSE = new LuaScript(
  `if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then return -1 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
local ids = {}
for i = 2, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  table.insert(ids, ARGV[i])
end
redis.call('HSET', KEYS[2], ARGV[1], table.concat(ids, ','))
return 1`,
  3,
);

/**
 * What {@link LearnedAnswerStore.proposeOnce} did: stored the candidates (none when there were no drafts), or stored
 * nothing because the ticket was proposed before or was erased on request.
 */
export type ProposalOutcome = { outcome: 'stored'; candidates: LearnedCandidate[] } | { outcome: 'proposed-before' } | { outcome: 'erased' };

// Accepts a candidate: removes it and writes the pair. 'update' only when the pair still exists; 'exact' only when it
// is still the version shown (ARGV[5], its stored JSON).
const ACCEPT = new LuaScript(
  `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
if ARGV[4] ~= 'new' then
  local stored = redis.call('HGET', KEYS[2], ARGV[2])
  if not stored then return -1 end
  if ARGV[4] == 'exact' and stored ~= ARGV[5] then return -2 end
end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('INCR', KEYS[3])
return 1`,
  3,
);

/** Candidates and accepted pairs in Redis; see the module comment for the keys. */
export class LearnedAnswerStore {
  private readonly keys: ReturnType<typeof learnedKeys>;

  constructor(
    private readonly redis: Redis,
    options: { prefix: string },
  ) {
    this.keys = learnedKeys(options.prefix);
  }

  /**
   * Stores the candidates of one approved ticket, once: a ticket already proposed (a retried job, a second approval
   * after the reply bounced back to review) gets none again. Returns the stored candidates, empty when none were.
   */
  async propose(ticketId: string, drafts: readonly Omit<LearnedCandidate, 'id' | 'ticketId' | 'proposedAt'>[], now = new Date()): Promise<LearnedCandidate[]> {
    const result = await this.proposeOnce(ticketId, drafts, now);
    return result.outcome === 'stored' ? result.candidates : [];
  }

  /**
   * {@link propose}, saying why nothing was stored. A ticket erased on request ({@link candidatesOfTickets} with
   * `remove`) gets nothing, whenever the proposal read it: the check is part of the write.
   */
  async proposeOnce(ticketId: string, drafts: readonly Omit<LearnedCandidate, 'id' | 'ticketId' | 'proposedAt'>[], now = new Date()): Promise<ProposalOutcome> {
    if (drafts.length === 0) return { outcome: 'stored', candidates: [] };
    if (await this.redis.hexists(this.keys.proposed, ticketId)) return { outcome: 'proposed-before' };
    // Ids taken but not used (the ticket was proposed or erased in between) leave a harmless gap.
    const last = await this.redis.incrby(this.keys.seq, drafts.length);
    const candidates = drafts.map((d, i) => ({ ...d, id: last - drafts.length + 1 + i, ticketId, proposedAt: now.toISOString() }));
    const args = [ticketId, ...candidates.flatMap((c) => [String(c.id), JSON.stringify(c)])];
    const stored = await PROPOSE.run(this.redis, [this.keys.candidates, this.keys.proposed, this.keys.erased], args);
    if (stored === -1) return { outcome: 'erased' };
    return stored === 1 ? { outcome: 'stored', candidates } : { outcome: 'proposed-before' };
  }

  /** Candidates waiting for an operator, oldest first. */
  async candidates(): Promise<LearnedCandidate[]> {
    return sortById(Object.values(await this.redis.hgetall(this.keys.candidates)).map((v) => JSON.parse(v) as LearnedCandidate));
  }

  async candidate(id: number): Promise<LearnedCandidate | undefined> {
    const raw = await this.redis.hget(this.keys.candidates, String(id));
    return raw ? (JSON.parse(raw) as LearnedCandidate) : undefined;
  }

  /** Accepted pairs, oldest first. */
  async pairs(): Promise<LearnedPair[]> {
    return sortById(Object.values(await this.redis.hgetall(this.keys.pairs)).map((v) => JSON.parse(v) as LearnedPair));
  }

  async pair(id: number): Promise<LearnedPair | undefined> {
    const raw = await this.redis.hget(this.keys.pairs, String(id));
    return raw ? (JSON.parse(raw) as LearnedPair) : undefined;
  }

  /** The accepted pairs as Q&A index rows (for a reindex and the embedded index's merge). */
  async qaPairs(): Promise<QaPair[]> {
    return (await this.pairs()).map(toQaPair);
  }

  /** Changes whenever the accepted pairs change. */
  async version(): Promise<string> {
    return (await this.redis.get(this.keys.version)) ?? '0';
  }

  /** The accepted pair `candidate` would update, judged against the pairs as they are now. */
  async updateTargetOf(candidate: Pick<LearnedCandidate, 'question'>, pairs?: readonly LearnedPair[]): Promise<UpdateTarget | undefined> {
    return closestPair(candidate.question, pairs ?? (await this.pairs()));
  }

  /** Changes a candidate's question and/or answer before it is accepted. */
  async edit(id: number, change: { question?: string | undefined; answer?: string | undefined; by: string }): Promise<{ outcome: 'edited'; candidate: LearnedCandidate } | LearnedRefusal> {
    const checked = checkText(change);
    if ('outcome' in checked) return checked;
    const candidate = await this.candidate(id);
    if (!candidate) return notFound('candidate', id);
    const edited: LearnedCandidate = { ...candidate, ...checked, editedBy: change.by };
    // HSET only if the candidate is still there: an accept or discard in between wins.
    const stored = await this.redis.eval(
      `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return 1`,
      1,
      this.keys.candidates,
      String(id),
      JSON.stringify(edited),
    );
    return stored === 1 ? { outcome: 'edited', candidate: edited } : notFound('candidate', id);
  }

  /**
   * Accepts a candidate, optionally with an edited question/answer: it becomes a pair accepted by `by` now. With
   * `shown`, it does what the operator was shown: a new pair, or an update of that pair — refused as a conflict when
   * the pair changed or was removed since. Without it (the CLI), a candidate whose stored question is close to an
   * accepted pair's — what `knowledge list` offers — updates that pair, or is stored as new should it be removed
   * meanwhile. `asNew` stores a new pair in any case. An update keeps the pair's id.
   */
  async accept(
    id: number,
    request: { by: string; question?: string | undefined; answer?: string | undefined; asNew?: boolean; shown?: ShownTarget },
    now = new Date(),
  ): Promise<AcceptOutcome> {
    const checked = checkText(request);
    if ('outcome' in checked) return checked;
    if (!request.by.trim()) return { outcome: 'invalid', message: 'Who accepts the pair is required' };
    for (let attempt = 0; attempt < 2; attempt++) {
      const candidate = await this.candidate(id);
      if (!candidate) return notFound('candidate', id);
      // A candidate's own text is checked as an operator's would be: one proposed before candidates lost control
      // characters when built may still hold them.
      const text = checkText({ question: checked.question ?? candidate.question, answer: checked.answer ?? candidate.answer });
      if ('outcome' in text) return text;
      const { question = candidate.question, answer = candidate.answer } = text;
      const planned = await this.acceptTarget(candidate, request.asNew ? { kind: 'new' } : request.shown, attempt);
      if ('outcome' in planned) return planned;
      const { target, exact, stored } = planned;
      const at = now.toISOString();
      const pair: LearnedPair = target
        ? { ...target.pair, question, answer, ticketId: candidate.ticketId, ticketIds: [...target.pair.ticketIds, candidate.ticketId], acceptedBy: request.by, acceptedAt: at }
        : { id: candidate.id, question, answer, ticketId: candidate.ticketId, ticketIds: [candidate.ticketId], acceptedBy: request.by, acceptedAt: at, createdAt: at };
      const result = await ACCEPT.run(this.redis, [this.keys.candidates, this.keys.pairs, this.keys.version], [
        String(candidate.id),
        String(pair.id),
        JSON.stringify(pair),
        target ? (exact ? 'exact' : 'update') : 'new',
        stored ?? '',
      ]);
      if (result === 0) return notFound('candidate', id);
      if (target && exact && (result === -1 || result === -2)) return conflict(target.pair.id, result === -1 ? 'removed' : 'changed');
      // The pair to update was removed meanwhile: accept as a new pair instead.
      if (result === -1) continue;
      return { outcome: 'accepted', pair, updated: Boolean(target) };
    }
    return notFound('candidate', id);
  }

  /**
   * The pair accepting `candidate` updates, if any: the one `shown` (`exact`: still the version shown, checked again
   * in the write), else the one its stored question is close to; a conflict when the shown pair moved on.
   */
  private async acceptTarget(
    candidate: LearnedCandidate,
    shown: ShownTarget | undefined,
    attempt: number,
  ): Promise<{ target: UpdateTarget | undefined; exact: boolean; stored?: string } | AcceptConflict> {
    if (shown?.kind === 'new' || (!shown && attempt > 0)) return { target: undefined, exact: false };
    if (!shown) return { target: await this.updateTargetOf(candidate), exact: false };
    // The stored JSON as read: the write compares it byte for byte, so nothing can change the pair in between.
    const stored = await this.redis.hget(this.keys.pairs, String(shown.pairId));
    if (!stored) return conflict(shown.pairId, 'removed');
    const pair = JSON.parse(stored) as LearnedPair;
    if (pairStamp(pair) !== shown.stamp) return conflict(shown.pairId, 'changed');
    return { target: { pair, similarity: questionSimilarity(candidate.question, pair.question) }, exact: true, stored };
  }

  /** Drops a candidate without learning it. */
  async discard(id: number): Promise<{ outcome: 'discarded'; candidate: LearnedCandidate } | LearnedRefusal> {
    const candidate = await this.candidate(id);
    if (!candidate || (await this.redis.hdel(this.keys.candidates, String(id))) === 0) return notFound('candidate', id);
    return { outcome: 'discarded', candidate };
  }

  /**
   * The ids of the candidates still waiting that were proposed from `ticketIds`; with `remove`, deletes them and the
   * tickets' proposal marks, and marks the tickets erased so that no proposal stores anything for them afterwards. A
   * customer's erasure uses it: a candidate is scrubbed of personal data by rules, which cannot be sure to catch all,
   * and nobody has looked at it yet. Accepted pairs stay — an operator read and accepted that text as the product's
   * knowledge (remove one by hand with `knowledge remove`).
   *
   * A proposal job may have read one of the tickets before the erasure and store its candidates at any moment. The
   * erased mark is set before the candidates are read, and the proposal's write checks it atomically (one Lua script):
   * a write before the mark is seen by the read below and its candidates go; a write after it stores nothing. The mark
   * stays (ticket ids only, erasures are rare): a job can pause between its read and its write for as long as it likes.
   */
  async candidatesOfTickets(ticketIds: ReadonlySet<string>, options: { remove: boolean }): Promise<number[]> {
    if (ticketIds.size === 0) return [];
    if (options.remove) await this.redis.sadd(this.keys.erased, ...ticketIds);
    const ids = (await this.candidates()).filter((c) => ticketIds.has(c.ticketId)).map((c) => c.id);
    if (options.remove) {
      const tx = this.redis.multi();
      if (ids.length > 0) tx.hdel(this.keys.candidates, ...ids.map(String));
      tx.hdel(this.keys.proposed, ...ticketIds);
      await execAll(tx);
    }
    return ids;
  }

  /** Removes an accepted pair from the knowledge base. */
  async remove(id: number): Promise<{ outcome: 'removed'; pair: LearnedPair } | LearnedRefusal> {
    const pair = await this.pair(id);
    if (!pair) return notFound('pair', id);
    const results = await this.redis.multi().hdel(this.keys.pairs, String(id)).incr(this.keys.version).exec();
    const removed = results?.[0]?.[1];
    return removed === 0 ? notFound('pair', id) : { outcome: 'removed', pair };
  }
}

/** The accepted pairs of `store` as the embedded Q&A index's {@link LearnedPairSource}. */
export function learnedPairSource(store: Pick<LearnedAnswerStore, 'version' | 'qaPairs'>): LearnedPairSource {
  return { version: () => store.version(), pairs: () => store.qaPairs() };
}

/** Result of {@link acceptLearned} and {@link removeLearned}: the store's, plus the index's error if it failed. */
export type IndexedOutcome<T> = T & { indexError?: string };

/**
 * Accepts a candidate and hands the pair to a backend that stores learned pairs itself (Qdrant). The pair is
 * accepted even when the backend fails: `indexError` says so, and the next Q&A reindex adds it.
 */
export async function acceptLearned(
  deps: { store: LearnedAnswerStore; qa?: QaSearch | undefined },
  id: number,
  request: Parameters<LearnedAnswerStore['accept']>[1],
): Promise<IndexedOutcome<AcceptOutcome>> {
  const result = await deps.store.accept(id, request);
  if (result.outcome !== 'accepted' || !deps.qa?.upsertPairs) return result;
  try {
    await deps.qa.upsertPairs([toQaPair(result.pair)]);
    return result;
  } catch (err) {
    return { ...result, indexError: err instanceof Error ? err.message : String(err) };
  }
}

/** Removes an accepted pair, and its point from a backend that stores learned pairs itself. */
export async function removeLearned(
  deps: { store: LearnedAnswerStore; qa?: QaSearch | undefined },
  id: number,
): Promise<IndexedOutcome<Awaited<ReturnType<LearnedAnswerStore['remove']>>>> {
  const result = await deps.store.remove(id);
  if (result.outcome !== 'removed' || !deps.qa?.removePairs) return result;
  try {
    await deps.qa.removePairs([toQaPair(result.pair).id]);
    return result;
  } catch (err) {
    return { ...result, indexError: err instanceof Error ? err.message : String(err) };
  }
}

/** Provenance columns after `question,answer` in {@link learnedPairsCsv}. */
export const CSV_COLUMNS = ['question', 'answer', 'id', 'ticket_id', 'accepted_by', 'accepted_at', 'created_at'] as const;

/**
 * The accepted pairs as CSV (RFC 4180: every field quoted, quotes doubled, CRLF between records), `question,answer`
 * first so the file can go into QA_DIR as it is (the Q&A loader reads those two columns by name). No csv-stringify
 * in the dependencies, and quoting every field leaves nothing to get wrong.
 */
export function learnedPairsCsv(pairs: readonly LearnedPair[]): string {
  // A question comes from a customer's mail, and a spreadsheet runs a cell starting with = + - @ (or a tab or CR
  // before one) as a formula, quoted or not: a leading ' makes it text (OWASP), and the Q&A loader drops it again.
  // A pair learned before control and invisible characters were removed when stored may hold them: the file gets
  // the text as the agent reads it (formatQaPair), and nothing a terminal would run when it is printed.
  const quote = (value: string | number) => `"${neutraliseFormula(removeControls(removeInvisible(String(value)).text).text).replace(/"/g, '""')}"`;
  const rows = pairs.map((p) => [p.question, p.answer, `${LEARNED_ID_PREFIX}${p.id}`, p.ticketId, p.acceptedBy, p.acceptedAt, p.createdAt]);
  return [CSV_COLUMNS, ...rows].map((row) => row.map(quote).join(',')).join('\r\n') + '\r\n';
}

function checkText(change: { question?: string | undefined; answer?: string | undefined }): { question?: string; answer?: string } | LearnedRefusal {
  const out: { question?: string; answer?: string } = {};
  for (const [field, max] of [
    ['question', MAX_CANDIDATE_QUESTION_CHARS],
    ['answer', MAX_CANDIDATE_ANSWER_CHARS],
  ] as const) {
    const value = change[field];
    if (value === undefined) continue;
    // Browser form posts send CRLF; stored text uses LF like the rest of the knowledge base. What a reader cannot see
    // is never stored: the operator accepted the text shown, and hidden text would be read by every agent run; nor
    // are control characters, which a terminal runs when the pair is exported or searched.
    const text = learnedText(value);
    if (text === '') return { outcome: 'invalid', message: `The ${field} is empty` };
    if (text.length > max) return { outcome: 'invalid', message: `The ${field} is longer than ${max} characters` };
    out[field] = text;
  }
  return out;
}

/** `value` as a learned pair stores it: without invisible and control characters, LF line ends, trimmed. */
function learnedText(value: string): string {
  return removeControls(removeInvisible(value).text).text.replace(/\r\n?/g, '\n').trim();
}

function conflict(pairId: number, change: AcceptConflict['change']): AcceptConflict {
  return { outcome: 'conflict', pairId, change, message: `learned#${pairId} ${change} since it was shown; nothing was stored` };
}

function notFound(what: 'candidate' | 'pair', id: number): LearnedRefusal {
  return { outcome: 'not-found', message: `No learned ${what} ${id}` };
}

function sortById<T extends { id: number }>(items: T[]): T[] {
  return items.sort((a, b) => a.id - b.id);
}

/** `text` with a leading `'` when a spreadsheet would read it as a formula; see {@link learnedPairsCsv}. */
function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
