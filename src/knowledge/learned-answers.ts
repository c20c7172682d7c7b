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
 * | `P:learned:proposed` | hash   | ticket id → candidate ids proposed for it (or folded into), so a retried job proposes once |
 * | `P:learned:cand-gen` | string | incremented whenever a proposal adds candidates: a proposal that read the candidates before refuses to add its own |
 * | `P:learned:version`  | string | incremented on every change of the pairs; searches merge again when it moves |
 * | `P:learned:erased`   | set    | ids of tickets erased on request (`forget`, src/tickets/erased.ts): proposals and gap writes refuse them |
 *
 * A candidate keeps its id when accepted as a new pair, so `learned#<id>` names the pair in search results and
 * sources. A candidate whose question is close to an accepted pair's ({@link SIMILAR_QUESTION_THRESHOLD}) is
 * offered as an update of that pair: accepting it replaces the pair's text under the pair's id, and the text it
 * replaces goes to the pair's {@link LearnedPair.previous} answers (the last {@link MAX_PREVIOUS_ANSWERS}), from which
 * the operator restores it ({@link LearnedAnswerStore.restore}). An unchanged approval of a stale draft proposes the
 * stale text again, as an update of the pair a reviewer's correction taught: one accept must not lose the correction.
 * Each candidate records how its approval treated the agent's draft ({@link CandidateApproval}), and each pair how the
 * approval behind its current text did, so the Knowledge page warns before an unchanged approval replaces a correction
 * ({@link pairCorrected}). Pairs and candidates stored before these fields existed load as they are (all optional).
 *
 * A proposal whose question is the same as a pending candidate's by that measure, with the same answer
 * ({@link comparableAnswer}), is folded into it ({@link foldTargetOf}): the candidate counts one more approval and keeps
 * the ticket id, and no second row appears. One whose answer differs stays a row of its own, and the Knowledge page
 * names the two on each other ({@link otherAnswersOf}, {@link otherAnswersOfEach}): the reviewer must see the disagreement.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ApprovalRecord } from '../tickets/outcome.js';
import { execAll } from '../queues/connection.js';
import { LEARNED_ID_PREFIX, type LearnedPairSource } from '../search/embedded-qa.js';
import type { QaPair, QaSearch } from '../search/types.js';
import { erasedTicketsKey } from '../tickets/erased.js';
import { LuaScript } from '../tickets/lua.js';
import { creditTaughtReviews } from '../tickets/trust.js';
import { comparableAnswer, MAX_CANDIDATE_ANSWER_CHARS, MAX_CANDIDATE_QUESTION_CHARS, removeControls, removeInvisible, type ScrubSummary } from './learned-candidates.js';
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
  /**
   * The answer as proposed, kept by the first edit that changed it ({@link LearnedAnswerStore.edit}): the text the
   * approvals vouched for, which accepting compares with to set {@link LearnedPair.answerEdited}. Absent while the
   * answer is the proposed one, and on candidates edited before it was kept.
   */
  proposedAnswer?: string;
  /**
   * How many approvals proposed this pair, its own ticket's included ({@link foldedInto}); absent means 1. It goes on
   * counting past {@link MAX_FOLDED_TICKET_IDS}.
   */
  approvals?: number;
  /**
   * The other tickets whose approval proposed the same pair, newest first, at most {@link MAX_FOLDED_TICKET_IDS}: ticket
   * ids only, nothing of the customers (their words are in `ticketId`'s text alone). An erasure takes its ticket's out.
   */
  alsoProposedBy?: string[];
  /**
   * How the approval that proposed it treated the agent's draft; a correction when any approval folded into it was
   * one (the text is then a reviewer's, whoever approved it unchanged after). Absent on candidates proposed before it
   * was recorded.
   */
  approval?: CandidateApproval;
}

/**
 * How an approval treated the agent's draft, as the candidate it proposed keeps it: `edited: false` is an approval
 * as it was (the draft's text, stale facts included, is what the candidate teaches); an edit, and which kinds of fact
 * it changed ({@link ApprovalRecord.factsChanged}), is a reviewer's correction.
 */
export type CandidateApproval = Pick<ApprovalRecord, 'edited' | 'factsChanged' | 'agentHadNoAnswer'>;

/** The {@link CandidateApproval} of a ticket's approval record. */
export function candidateApprovalOf(record: Pick<ApprovalRecord, 'edited' | 'factsChanged' | 'agentHadNoAnswer'>): CandidateApproval {
  return {
    edited: record.edited,
    ...(record.factsChanged && record.factsChanged.length > 0 ? { factsChanged: [...record.factsChanged] } : {}),
    ...(record.edited && record.agentHadNoAnswer ? { agentHadNoAnswer: true as const } : {}),
  };
}

/** True when `approval` corrected the agent's draft (an edit). */
export function isCorrection(approval: CandidateApproval | undefined): boolean {
  return approval?.edited === true;
}

/**
 * How an approval treated the agent's draft, in a few words for the Knowledge page and the CLI; `answerEdited`: the
 * accepting operator rewrote the answer too.
 */
export function describeApproval(approval: CandidateApproval | undefined, answerEdited?: boolean): string {
  const accept = answerEdited ? '; answer rewritten when accepted' : '';
  if (!approval) return `approval not recorded${accept}`;
  if (!isCorrection(approval)) return `approved as the agent wrote it${accept}`;
  // Nothing of the agent's to correct: every fact of the reply is the reviewer's own.
  if (approval.agentHadNoAnswer && !approval.factsChanged?.length) return `written by the reviewer (the agent had no answer)${accept}`;
  return `corrected by the reviewer${approval.factsChanged?.length ? ` (${approval.factsChanged.join(', ')} changed)` : ''}${accept}`;
}

/**
 * The approval a candidate keeps when `other` is folded into it: a correction wins, its facts joined; written by the
 * reviewer only when both were (an edit of a real draft is a correction of the agent).
 */
function mergedApproval(own: CandidateApproval | undefined, other: CandidateApproval | undefined): CandidateApproval | undefined {
  if (!other || !isCorrection(other)) return own;
  if (!own || !isCorrection(own)) return other;
  const facts = [...new Set([...(own.factsChanged ?? []), ...(other.factsChanged ?? [])])];
  const written = own.agentHadNoAnswer && other.agentHadNoAnswer;
  return { edited: true, ...(facts.length > 0 ? { factsChanged: facts } : {}), ...(written ? { agentHadNoAnswer: true as const } : {}) };
}

/** Most ticket ids a folded candidate keeps besides its own; the page links each, the count says how many more. */
export const MAX_FOLDED_TICKET_IDS = 20;

/** Most previous answers a pair keeps ({@link LearnedPair.previous}); the oldest goes first. */
export const MAX_PREVIOUS_ANSWERS = 5;

/** A text a pair held before an accepted update (or a restore) replaced it, with who taught and who replaced it. */
export interface PreviousAnswer {
  question: string;
  answer: string;
  /** The ticket that taught this text. */
  ticketId: string;
  acceptedBy: string;
  acceptedAt: string;
  /** How that ticket's approval treated the draft (absent when not recorded). */
  approval?: CandidateApproval;
  /** True when the accepting operator rewrote the candidate's answer. */
  answerEdited?: boolean;
  /** Who accepted the text that replaced this one, and when. */
  replacedBy: string;
  replacedAt: string;
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
  /** How the approval that taught the current text treated the agent's draft (absent when not recorded). */
  approval?: CandidateApproval;
  /** True when the operator who accepted the current text rewrote the candidate's answer: a correction too. */
  answerEdited?: boolean;
  /**
   * The texts this pair held before, newest first, at most {@link MAX_PREVIOUS_ANSWERS}: an accepted update keeps what
   * it replaced, so a correction overwritten by a stale candidate can be restored. Absent on pairs never updated.
   */
  previous?: PreviousAnswer[];
}

/**
 * True when the pair's current text is a reviewer's correction: its approval edited the agent's draft, or the
 * accepting operator rewrote the answer. An unchanged approval's candidate replacing it may bring a fixed fact back.
 */
export function pairCorrected(pair: Pick<LearnedPair, 'id' | 'approval' | 'answerEdited'>): boolean {
  return isCorrection(pair.approval) || pair.answerEdited === true;
}

/** `pair`'s current text as a previous answer, replaced by `by` at `at`. */
function previousAnswerOf(pair: LearnedPair, by: string, at: string): PreviousAnswer {
  return {
    question: pair.question,
    answer: pair.answer,
    ticketId: pair.ticketId,
    acceptedBy: pair.acceptedBy,
    acceptedAt: pair.acceptedAt,
    ...(pair.approval ? { approval: pair.approval } : {}),
    ...(pair.answerEdited ? { answerEdited: true } : {}),
    replacedBy: by,
    replacedAt: at,
  };
}

/**
 * `pair` about to take an accepted candidate's text, keeping its current text as the newest previous answer; its
 * provenance fields go (the new text's are set by the caller).
 */
function updatedPair(pair: LearnedPair, text: { question: string; answer: string }, by: string, at: string): LearnedPair {
  const { approval: _approval, answerEdited: _edited, previous, ...rest } = pair;
  // An update with the very text the pair holds (another approval of the same answer) keeps no copy of it.
  const same = text.question === pair.question && text.answer === pair.answer;
  const kept = same ? previous : withPrevious(previousAnswerOf(pair, by, at), previous);
  return { ...rest, ...(kept ? { previous: kept } : {}) };
}

/** `previous` with `entry` first, bounded. */
function withPrevious(entry: PreviousAnswer, previous: readonly PreviousAnswer[] | undefined): PreviousAnswer[] {
  return [entry, ...(previous ?? [])].slice(0, MAX_PREVIOUS_ANSWERS);
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
    candidateGeneration: `${prefix}:learned:cand-gen`,
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

/**
 * The pending candidate a new pair teaches the same as, if any: a question as similar as an update's
 * ({@link SIMILAR_QUESTION_THRESHOLD}) and the same answer after {@link comparableAnswer}; the most similar question,
 * then the oldest. The question may be reworded (it is the first customer's words that stay) but not the answer: two
 * answers to one question are a disagreement the reviewer must see, not a count.
 */
export function foldTargetOf(pair: Pick<LearnedCandidate, 'question' | 'answer'>, pending: readonly LearnedCandidate[]): LearnedCandidate | undefined {
  const answer = comparableAnswer(pair.answer);
  let best: { candidate: LearnedCandidate; similarity: number } | undefined;
  for (const candidate of pending) {
    if (comparableAnswer(candidate.answer) !== answer) continue;
    const similarity = questionSimilarity(pair.question, candidate.question);
    if (similarity < SIMILAR_QUESTION_THRESHOLD) continue;
    if (!best || similarity > best.similarity || (similarity === best.similarity && candidate.id < best.candidate.id)) best = { candidate, similarity };
  }
  return best?.candidate;
}

/**
 * `candidate` having been proposed once more, by `ticketId`'s approval (`approval`, when recorded); as it was when that
 * ticket is counted already.
 */
export function foldedInto(candidate: LearnedCandidate, ticketId: string, approval?: CandidateApproval): LearnedCandidate {
  if (ticketId === candidate.ticketId || candidate.alsoProposedBy?.includes(ticketId)) return candidate;
  const alsoProposedBy = [ticketId, ...(candidate.alsoProposedBy ?? [])].slice(0, MAX_FOLDED_TICKET_IDS);
  const merged = mergedApproval(candidate.approval, approval);
  return { ...candidate, approvals: approvalsOf(candidate) + 1, alsoProposedBy, ...(merged ? { approval: merged } : {}) };
}

/** `candidate` without the erased tickets' ids, and their approvals no longer counted. */
function unfolded(candidate: LearnedCandidate, erased: ReadonlySet<string>): LearnedCandidate {
  const kept = (candidate.alsoProposedBy ?? []).filter((id) => !erased.has(id));
  const removed = (candidate.alsoProposedBy?.length ?? 0) - kept.length;
  const { approvals: _approvals, alsoProposedBy: _ids, ...rest } = candidate;
  const approvals = Math.max(1, approvalsOf(candidate) - removed);
  return approvals > 1 || kept.length > 0 ? { ...rest, approvals, alsoProposedBy: kept } : rest;
}

/** How many approvals proposed `candidate` ({@link LearnedCandidate.approvals}). */
export function approvalsOf(candidate: Pick<LearnedCandidate, 'approvals'>): number {
  return candidate.approvals ?? 1;
}

/** Every ticket id `candidate` names: its own first, then the folded ones, newest first. */
export function ticketsOf(candidate: Pick<LearnedCandidate, 'ticketId' | 'alsoProposedBy'>): string[] {
  return [candidate.ticketId, ...(candidate.alsoProposedBy ?? [])];
}

/** What {@link otherAnswersOfEach} counts, for a test to see how much it compared. */
export interface ComparisonCount {
  comparisons: number;
}

/** A pending candidate as {@link otherAnswersOfEach} compares it: its question's terms and its answer read once. */
interface ComparedCandidate {
  candidate: LearnedCandidate;
  terms: ReadonlySet<string>;
  answer: string;
}

/**
 * For each candidate of `pending`, by id, the other pending candidates that answer its question (as similar as
 * {@link foldTargetOf} asks) with another answer, oldest first: the Knowledge page names them on each other, so the
 * reviewer decides between them knowingly. Comparing every candidate with every other, each time reading both questions' terms anew, took seconds of
 * the dashboard's one thread for a thousand candidates. Each question's terms are read once, and two candidates are
 * compared only when they share a term among the rarest of either's terms: a Jaccard similarity of at least
 * {@link SIMILAR_QUESTION_THRESHOLD} needs that many terms in common that the rarest ones must meet (prefix filtering),
 * so nothing the pairwise compare would find is missed. Questions without topic terms meet only their equals
 * ({@link questionKey}), as in {@link questionSimilarity}. `count`, when given, counts the questions compared.
 */
export function otherAnswersOfEach(pending: readonly LearnedCandidate[], count?: ComparisonCount): Map<number, LearnedCandidate[]> {
  const compared: ComparedCandidate[] = pending.map((candidate) => ({ candidate, terms: new Set(questionTerms(candidate.question).keys()), answer: comparableAnswer(candidate.answer) }));
  const others = new Map<number, LearnedCandidate[]>(pending.map((c) => [c.id, []]));
  const link = (a: ComparedCandidate, b: ComparedCandidate) => {
    if (a.candidate.id === b.candidate.id || a.answer === b.answer) return;
    if (count) count.comparisons++;
    if (termSimilarity(a.terms, b.terms) < SIMILAR_QUESTION_THRESHOLD) return;
    others.get(a.candidate.id)!.push(b.candidate);
    others.get(b.candidate.id)!.push(a.candidate);
  };
  const rarity = termRarity(compared);
  // Candidates seen so far, by a term of their prefix, and by question key for those without terms.
  const byTerm = new Map<string, ComparedCandidate[]>();
  const byKey = new Map<string, ComparedCandidate[]>();
  for (const current of compared) {
    if (current.terms.size === 0) {
      const key = questionKey(current.candidate.question);
      const bucket = byKey.get(key);
      for (const earlier of bucket ?? []) link(current, earlier);
      if (bucket) bucket.push(current);
      else byKey.set(key, [current]);
      continue;
    }
    const prefix = [...current.terms].sort(rarity).slice(0, prefixLength(current.terms.size));
    const met = new Set<ComparedCandidate>();
    for (const term of prefix) for (const earlier of byTerm.get(term) ?? []) met.add(earlier);
    for (const earlier of met) link(current, earlier);
    for (const term of prefix) {
      const bucket = byTerm.get(term);
      if (bucket) bucket.push(current);
      else byTerm.set(term, [current]);
    }
  }
  for (const list of others.values()) sortById(list);
  return others;
}

/** Jaccard similarity of two non-empty term sets, computed as {@link questionSimilarity} does. */
function termSimilarity(x: ReadonlySet<string>, y: ReadonlySet<string>): number {
  let shared = 0;
  for (const term of x) if (y.has(term)) shared++;
  return shared / (x.size + y.size - shared);
}

/** An order of terms, rarest among `compared` first (then by the term): the order prefixes are taken in. */
function termRarity(compared: readonly ComparedCandidate[]): (a: string, b: string) => number {
  const frequency = new Map<string, number>();
  for (const { terms } of compared) for (const term of terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  return (a, b) => frequency.get(a)! - frequency.get(b)! || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * How many of its rarest terms a question of `size` terms is indexed by: a question as similar as
 * {@link SIMILAR_QUESTION_THRESHOLD} shares at least ⌈threshold × size⌉ of them, so one of these. The small margin
 * keeps a product such as 0.7 × 10 from rounding up past a whole number and so taking one term too few.
 */
function prefixLength(size: number): number {
  const shared = Math.max(1, Math.ceil(SIMILAR_QUESTION_THRESHOLD * size - 1e-9));
  return size - shared + 1;
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

// Writes a ticket's proposal and marks the ticket proposed, unless it already is (0) or the ticket was erased (-1):
// checked in the write itself, so a proposal that read the ticket before an erasure cannot store after it. ARGV: the
// ticket, the candidates' generation as read, the numbers of new rows and of folds, then per new row its id and JSON,
// per fold the candidate's id, its JSON as read and its JSON folded. The fold decision was made on what was read (the
// similarity is not Lua's), so the write refuses (2, read again) when a new row appeared since (the generation moved)
// or a fold's candidate changed: two proposals of one pair at once give one row, and no fold overwrites another's.
const PROPOSE = new LuaScript(
  `if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then return -1 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
local fresh = tonumber(ARGV[3])
local folds = tonumber(ARGV[4])
if fresh > 0 and (redis.call('GET', KEYS[4]) or '0') ~= ARGV[2] then return 2 end
local first = 5 + 2 * fresh
for i = first, first + 3 * (folds - 1), 3 do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then return 2 end
end
local ids = {}
for i = 5, first - 1, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  table.insert(ids, ARGV[i])
end
for i = first, first + 3 * (folds - 1), 3 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
  table.insert(ids, ARGV[i])
end
if fresh > 0 then redis.call('INCR', KEYS[4]) end
redis.call('HSET', KEYS[2], ARGV[1], table.concat(ids, ','))
return 1`,
  4,
);

/** Times a proposal reads the candidates again because others changed them under it, before it fails (and is retried). */
const MAX_PROPOSE_ATTEMPTS = 10;

// Sets a candidate's JSON only while it is still the JSON read (ARGV[2]): an edit or an erasure's unfold rebuilt from
// what it read loses no fold written in between.
const REPLACE_CANDIDATE = new LuaScript(
  `if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1`,
  1,
);

/**
 * What {@link LearnedAnswerStore.proposeOnce} did: stored the candidates (none when there were no drafts), or stored
 * nothing because the ticket was proposed before or was erased on request.
 */
export type ProposalOutcome = { outcome: 'stored'; candidates: LearnedCandidate[]; folded?: LearnedCandidate[] } | { outcome: 'proposed-before' } | { outcome: 'erased' };

// Accepts a candidate: removes it and writes the pair. Only while the candidate is as read (ARGV[6]; -3: read again),
// so that an approval folded into it meanwhile is among the pair's tickets. 'update' only when the pair still exists
// and is still the JSON read (ARGV[5]; -4: read again), so that no other change, and no previous answer it kept, is
// written over; 'exact' only when it is still the version shown (-2: a conflict).
const ACCEPT = new LuaScript(
  `local candidate = redis.call('HGET', KEYS[1], ARGV[1])
if not candidate then return 0 end
if candidate ~= ARGV[6] then return -3 end
if ARGV[4] ~= 'new' then
  local stored = redis.call('HGET', KEYS[2], ARGV[2])
  if not stored then return -1 end
  if stored ~= ARGV[5] then
    if ARGV[4] == 'exact' then return -2 end
    return -4
  end
end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('INCR', KEYS[3])
return 1`,
  3,
);

// Replaces a pair's JSON only while it is still the JSON read (ARGV[2]): 0 when it is gone, -2 when it changed.
const REPLACE_PAIR = new LuaScript(
  `local stored = redis.call('HGET', KEYS[1], ARGV[1])
if not stored then return 0 end
if stored ~= ARGV[2] then return -2 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('INCR', KEYS[2])
return 1`,
  2,
);

/** Result of {@link LearnedAnswerStore.restore}. */
export type RestoreOutcome = { outcome: 'restored'; pair: LearnedPair } | LearnedRefusal | AcceptConflict;

/** What a ticket's approval taught: the pending candidates and the accepted pairs that name it. */
export interface TaughtByTicket {
  candidates: LearnedCandidate[];
  pairs: LearnedPair[];
}

/** Candidates and accepted pairs in Redis; see the module comment for the keys. */
export class LearnedAnswerStore {
  private readonly keys: ReturnType<typeof learnedKeys>;
  /** The key prefix (QUEUE_PREFIX) it stores under: the trust records of an accepted pair live under it too. */
  readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    options: { prefix: string },
  ) {
    this.keys = learnedKeys(options.prefix);
    this.prefix = options.prefix;
  }

  /**
   * Its Redis connection, for the writes that go with accepting a pair outside this store (the pair's first trust
   * record, src/tickets/trust.ts `creditTaughtReviews`), which must land on the same server.
   */
  get connection(): Redis {
    return this.redis;
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
    for (let attempt = 0; attempt < MAX_PROPOSE_ATTEMPTS; attempt++) {
      if (await this.redis.hexists(this.keys.proposed, ticketId)) return { outcome: 'proposed-before' };
      const { generation, pending } = await this.pendingSnapshot();
      const plan = planProposal(ticketId, drafts, pending);
      // Ids taken but not used (the ticket was proposed or erased in between, or the write read again) leave a
      // harmless gap.
      const last = plan.fresh.length > 0 ? await this.redis.incrby(this.keys.seq, plan.fresh.length) : 0;
      const candidates = plan.fresh.map((d, i) => ({ ...d, id: last - plan.fresh.length + 1 + i, ticketId, proposedAt: now.toISOString() }));
      const args = [
        ticketId,
        generation,
        String(candidates.length),
        String(plan.folds.length),
        ...candidates.flatMap((c) => [String(c.id), JSON.stringify(c)]),
        ...plan.folds.flatMap((f) => [String(f.folded.id), f.stored, JSON.stringify(f.folded)]),
      ];
      const stored = await PROPOSE.run(this.redis, [this.keys.candidates, this.keys.proposed, this.keys.erased, this.keys.candidateGeneration], args);
      if (stored === -1) return { outcome: 'erased' };
      if (stored === 0) return { outcome: 'proposed-before' };
      if (stored === 1) return { outcome: 'stored', candidates, ...(plan.folds.length > 0 ? { folded: plan.folds.map((f) => f.folded) } : {}) };
    }
    // Thrown for the queue to retry the job later: the store is busy with this very question.
    throw new Error(`the learned-answer candidates changed under ${MAX_PROPOSE_ATTEMPTS} attempts to propose ticket ${ticketId}'s`);
  }

  /** The pending candidates with their stored JSON, and the generation they are of, read at one moment. */
  private async pendingSnapshot(): Promise<{ generation: string; pending: { candidate: LearnedCandidate; stored: string }[] }> {
    const results = await this.redis.multi().get(this.keys.candidateGeneration).hgetall(this.keys.candidates).exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed?.[0]) throw failed?.[0] ?? new Error('the read of the learned-answer candidates was aborted');
    const all = (results[1]![1] ?? {}) as Record<string, string>;
    return {
      generation: (results[0]![1] as string | null) ?? '0',
      pending: Object.values(all).map((stored) => ({ candidate: JSON.parse(stored) as LearnedCandidate, stored })),
    };
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
    for (let attempt = 0; attempt < MAX_PROPOSE_ATTEMPTS; attempt++) {
      const stored = await this.redis.hget(this.keys.candidates, String(id));
      if (!stored) return notFound('candidate', id);
      const candidate = JSON.parse(stored) as LearnedCandidate;
      // The approvals vouched for the proposed text, not for an edit of it: accepting compares with that text
      // (security review 18, LOW 5: an edited answer read "approved as the agent wrote it" and took its approvals).
      const proposedAnswer = candidate.proposedAnswer ?? (checked.answer !== undefined && checked.answer !== candidate.answer ? candidate.answer : undefined);
      const edited: LearnedCandidate = { ...candidate, ...checked, editedBy: change.by, ...(proposedAnswer !== undefined ? { proposedAnswer } : {}) };
      // Only over the candidate as read: an accept or discard in between wins, an approval folded in is kept.
      if ((await REPLACE_CANDIDATE.run(this.redis, [this.keys.candidates], [String(id), stored, JSON.stringify(edited)])) === 1) return { outcome: 'edited', candidate: edited };
    }
    throw new Error(`learned candidate ${id} changed under ${MAX_PROPOSE_ATTEMPTS} attempts to edit it`);
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
    for (let attempt = 0, reads = 0; attempt < 2 && reads < MAX_PROPOSE_ATTEMPTS; reads++) {
      const read = await this.redis.hget(this.keys.candidates, String(id));
      if (!read) return notFound('candidate', id);
      const candidate = JSON.parse(read) as LearnedCandidate;
      // A candidate's own text is checked as an operator's would be: one proposed before candidates lost control
      // characters when built may still hold them.
      const text = checkText({ question: checked.question ?? candidate.question, answer: checked.answer ?? candidate.answer });
      if ('outcome' in text) return text;
      const { question = candidate.question, answer = candidate.answer } = text;
      const planned = await this.acceptTarget(candidate, request.asNew ? { kind: 'new' } : request.shown, attempt);
      if ('outcome' in planned) return planned;
      const { target, exact, stored } = planned;
      const at = now.toISOString();
      // Every approval folded into the candidate taught the pair too; oldest first, as a pair lists them (the text is
      // its own ticket's, the first).
      const taught = [candidate.ticketId, ...[...(candidate.alsoProposedBy ?? [])].reverse()];
      // How the new text came about, so that the page can warn before a later unchanged approval replaces it: rewritten
      // when it is not the answer as proposed, whether now or by an edit before.
      const provenance = {
        ...(candidate.approval ? { approval: candidate.approval } : {}),
        ...(comparableAnswer(answer) !== comparableAnswer(candidate.proposedAnswer ?? candidate.answer) ? { answerEdited: true } : {}),
      };
      const pair: LearnedPair = target
        ? { ...updatedPair(target.pair, { question, answer }, request.by, at), question, answer, ticketId: candidate.ticketId, ticketIds: [...new Set([...target.pair.ticketIds, ...taught])], acceptedBy: request.by, acceptedAt: at, ...provenance }
        : { id: candidate.id, question, answer, ticketId: candidate.ticketId, ticketIds: taught, acceptedBy: request.by, acceptedAt: at, createdAt: at, ...provenance };
      const result = await ACCEPT.run(this.redis, [this.keys.candidates, this.keys.pairs, this.keys.version], [
        String(candidate.id),
        String(pair.id),
        JSON.stringify(pair),
        target ? (exact ? 'exact' : 'update') : 'new',
        stored ?? '',
        read,
      ]);
      if (result === 0) return notFound('candidate', id);
      // An approval was folded into the candidate (or it was edited), or the pair to update changed, since they were
      // read: read them again.
      if (result === -3 || result === -4) continue;
      if (target && exact && (result === -1 || result === -2)) return conflict(target.pair.id, result === -1 ? 'removed' : 'changed');
      // The pair to update was removed meanwhile: accept as a new pair instead.
      if (result === -1) {
        attempt++;
        continue;
      }
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
    if (!shown) {
      const closest = await this.updateTargetOf(candidate);
      if (!closest) return { target: undefined, exact: false };
      // The stored JSON, which the write compares: an update built on it keeps every previous answer.
      const read = await this.redis.hget(this.keys.pairs, String(closest.pair.id));
      if (!read) return { target: closest, exact: false, stored: '' };
      return { target: { pair: JSON.parse(read) as LearnedPair, similarity: closest.similarity }, exact: false, stored: read };
    }
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
    const candidates = await this.candidates();
    const ids = candidates.filter((c) => ticketIds.has(c.ticketId)).map((c) => c.id);
    // A candidate another customer's ticket proposed, into which one of these approvals was folded: its text is not
    // theirs, only the ticket id in its list.
    const folded = candidates.filter((c) => !ticketIds.has(c.ticketId) && c.alsoProposedBy?.some((id) => ticketIds.has(id))).map((c) => c.id);
    if (options.remove) {
      const tx = this.redis.multi();
      if (ids.length > 0) tx.hdel(this.keys.candidates, ...ids.map(String));
      tx.hdel(this.keys.proposed, ...ticketIds);
      await execAll(tx);
      for (const id of folded) await this.unfold(id, ticketIds);
    }
    return sortNumbers([...ids, ...folded]);
  }

  /**
   * Takes `ticketIds` out of candidate `id`'s folded tickets, over whatever folds came meanwhile. None of them can
   * come back: the tickets are marked erased, and a fold of theirs is refused in its write.
   */
  private async unfold(id: number, ticketIds: ReadonlySet<string>): Promise<void> {
    for (let attempt = 0; attempt < MAX_PROPOSE_ATTEMPTS; attempt++) {
      const stored = await this.redis.hget(this.keys.candidates, String(id));
      if (!stored) return;
      const candidate = JSON.parse(stored) as LearnedCandidate;
      if (!candidate.alsoProposedBy?.some((t) => ticketIds.has(t))) return;
      if ((await REPLACE_CANDIDATE.run(this.redis, [this.keys.candidates], [String(id), stored, JSON.stringify(unfolded(candidate, ticketIds))])) === 1) return;
    }
    throw new Error(`learned candidate ${id} changed under ${MAX_PROPOSE_ATTEMPTS} attempts to take erased tickets out of it`);
  }

  /**
   * Puts back the text pair `id` held before: `version` 1 is the latest of its {@link LearnedPair.previous} answers.
   * The current text becomes the newest previous answer (a restore is undone the same way), the restored one becomes
   * current, accepted by `by` now, with the ticket and approval that taught it. With `stamp` ({@link pairStamp}), only
   * while the pair is the version the operator was shown; in any case only over the pair as read.
   */
  async restore(id: number, request: { by: string; version: number; stamp?: string }, now = new Date()): Promise<RestoreOutcome> {
    if (!request.by.trim()) return { outcome: 'invalid', message: 'Who restores the answer is required' };
    for (let attempt = 0; attempt < MAX_PROPOSE_ATTEMPTS; attempt++) {
      const stored = await this.redis.hget(this.keys.pairs, String(id));
      if (!stored) return notFound('pair', id);
      const pair = JSON.parse(stored) as LearnedPair;
      if (request.stamp !== undefined && pairStamp(pair) !== request.stamp) return conflict(id, 'changed');
      const chosen = Number.isSafeInteger(request.version) && request.version >= 1 ? pair.previous?.[request.version - 1] : undefined;
      if (!chosen) return { outcome: 'not-found', message: `learned#${id} has no previous answer ${request.version}` };
      const at = now.toISOString();
      const rest = (pair.previous ?? []).filter((_, i) => i !== request.version - 1);
      const { approval: _approval, answerEdited: _edited, previous: _previous, ...kept } = pair;
      const restored: LearnedPair = {
        ...kept,
        question: chosen.question,
        answer: chosen.answer,
        ticketId: chosen.ticketId,
        acceptedBy: request.by,
        acceptedAt: at,
        ...(chosen.approval ? { approval: chosen.approval } : {}),
        ...(chosen.answerEdited ? { answerEdited: true } : {}),
        previous: withPrevious(previousAnswerOf(pair, request.by, at), rest),
      };
      const result = await REPLACE_PAIR.run(this.redis, [this.keys.pairs, this.keys.version], [String(id), stored, JSON.stringify(restored)]);
      if (result === 0) return notFound('pair', id);
      if (result === 1) return { outcome: 'restored', pair: restored };
      // Changed between the read and the write: refused when the operator chose from a version they were shown.
      if (request.stamp !== undefined) return conflict(id, 'changed');
    }
    throw new Error(`learned#${id} changed under ${MAX_PROPOSE_ATTEMPTS} attempts to restore a previous answer`);
  }

  /**
   * The pending candidates and accepted pairs `ticketId`'s approval taught: a candidate it proposed or was folded
   * into, a pair whose {@link LearnedPair.ticketIds} hold it (its text may be another ticket's since).
   */
  async taughtBy(ticketId: string): Promise<TaughtByTicket> {
    const [candidates, pairs] = await Promise.all([this.candidates(), this.pairs()]);
    return { candidates: candidates.filter((c) => ticketsOf(c).includes(ticketId)), pairs: pairs.filter((p) => p.ticketIds.includes(ticketId)) };
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
  // The taught tickets' approvals as is vouch for the new text: it does not start trust from nothing (never throws).
  await creditTaughtReviews(deps.store, result);
  if (result.outcome !== 'accepted' || !deps.qa?.upsertPairs) return result;
  try {
    await deps.qa.upsertPairs([toQaPair(result.pair)]);
    return result;
  } catch (err) {
    return { ...result, indexError: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Restores a previous answer of a pair ({@link LearnedAnswerStore.restore}) and hands the pair to a backend that
 * stores learned pairs itself; restored even when the backend fails (`indexError`, the next Q&A reindex applies it).
 */
export async function restoreLearned(
  deps: { store: LearnedAnswerStore; qa?: QaSearch | undefined },
  id: number,
  request: Parameters<LearnedAnswerStore['restore']>[1],
): Promise<IndexedOutcome<RestoreOutcome>> {
  const result = await deps.store.restore(id, request);
  if (result.outcome !== 'restored' || !deps.qa?.upsertPairs) return result;
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

function sortNumbers(items: number[]): number[] {
  return items.sort((a, b) => a - b);
}

/** What one proposal writes: new rows, and folds of pending candidates (each with its JSON as read). */
interface ProposalPlan {
  fresh: Omit<LearnedCandidate, 'id' | 'ticketId' | 'proposedAt'>[];
  folds: { folded: LearnedCandidate; stored: string }[];
}

/**
 * How `ticketId`'s `drafts` go into the `pending` candidates: each folds into the candidate {@link foldTargetOf} finds,
 * else becomes a row of its own. A second draft of the ticket on a candidate it already folded into adds nothing.
 */
function planProposal(ticketId: string, drafts: readonly ProposalPlan['fresh'][number][], pending: readonly { candidate: LearnedCandidate; stored: string }[]): ProposalPlan {
  const stored = new Map(pending.map((p) => [p.candidate.id, p.stored]));
  const current = new Map(pending.map((p) => [p.candidate.id, p.candidate]));
  const fresh: ProposalPlan['fresh'] = [];
  for (const draft of drafts) {
    const target = foldTargetOf(draft, [...current.values()]);
    if (target) current.set(target.id, foldedInto(target, ticketId, draft.approval));
    else fresh.push(draft);
  }
  const folds = [...current.values()]
    .filter((c) => c !== pending.find((p) => p.candidate.id === c.id)?.candidate)
    .map((folded) => ({ folded, stored: stored.get(folded.id)! }));
  return { fresh, folds };
}

function sortById<T extends { id: number }>(items: T[]): T[] {
  return items.sort((a, b) => a.id - b.id);
}

/** `text` with a leading `'` when a spreadsheet would read it as a formula; see {@link learnedPairsCsv}. */
function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
