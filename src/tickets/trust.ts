/**
 * Earned autonomy (`REVIEW_MODE=learn`): a draft goes out unreviewed only when every source it used has a track
 * record of drafts that people approved as they were.
 *
 * A source is one search result the agent used: a manual section, a Q&A pair, a learned pair — identified by where it
 * came from and a hash of its text ({@link citedSources}), so a reindex that changes a section's text gives it a new
 * identity with an empty record, and the old record no longer applies.
 *
 * The record is derived from outcomes, never counted separately: when a reviewed draft ends (approved and sent, or
 * rejected; see {@link isReview}), the ticket store pushes that outcome onto the list of every source the reply sent
 * (or the draft rejected) used ({@link usedSources}), in the same atomic write that records the outcome
 * (src/tickets/ticket-store.ts). Trust is then read from the latest `TRUST_WINDOW` entries ({@link judgeTrust}). Keys
 * (P = QUEUE_PREFIX):
 *
 * | key                    | type       | content                                                                   |
 * |------------------------|------------|---------------------------------------------------------------------------|
 * | `P:trust:src:<source>` | list       | newest first: `<outcome> <edit ratio> <ticket id>`, at most {@link TRUST_HISTORY_CAP} |
 * | `P:trust:sources`      | sorted set | every source with a record, score = time of its latest review (ms)        |
 * | `P:trust:fix:<source>` | list       | newest first: `<ticket id> <correction JSON>`, at most {@link CORRECTIONS_CAP} ({@link recordCorrections}) |
 * | `P:trust:corrected`    | sorted set | every source with a correction, score = time of its latest (ms)            |
 * | `P:trust:superseded`   | hash       | a corrected source → the newer text of its section or row an answer cited instead ({@link supersedeCorrected}) |
 *
 * A correction is an approval whose reviewer changed a fact of the draft ({@link TicketOutcome.factsChanged}): it is
 * recorded on the cited sources whose text held a value the reviewer took out, and such a source is not trusted
 * while its text is the same (its key); see {@link judgeTrust}.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { QA_TOOL_NAME, TOOL_SOURCE_KIND, servedLearnedContent, shownContent } from '../agent/tools.js';
import type { AgentResult } from '../agent/types.js';
import type { Config } from '../config.js';
import type { AcceptOutcome, LearnedAnswerStore } from '../knowledge/learned-answers.js';
import { HEADING_SEPARATOR } from '../knowledge/sections.js';
import { createLogger } from '../logger.js';
import { LEARNED_ID_PREFIX, formatQaPair } from '../search/types.js';
import { erasedTicketsKey } from './erased.js';
import { LuaScript } from './lua.js';
import { replyContent, withoutThousandsSeparators, type OutcomeKind, type TicketOutcome } from './outcome.js';

/** Reviews kept per source, whatever TRUST_WINDOW is now: it can be raised later without losing history. */
export const TRUST_HISTORY_CAP = 100;

/** The settings trust is judged with (the `TRUST_*` variables). */
export type TrustSettings = Pick<Config, 'TRUST_MIN_REVIEWS' | 'TRUST_MIN_AS_IS' | 'TRUST_WINDOW' | 'TRUST_MAX_EDIT_RATIO'>;

/** One source a draft cited. */
export interface CitedSource {
  /** `<kind>:<file>#<text hash>`, e.g. `manual:guide/login.md#3f1c9a0b2d4e`: the record's identity. */
  key: string;
  /** `manual`, `qa`, or the tool's name for other searches (learned answers). */
  kind: string;
  /** Where it came from: the manual file, or `file.csv#row` for a Q&A pair. */
  fileName: string;
}

/** Length of the text hash in a source key: enough to tell a file's sections apart. */
const HASH_CHARS = 12;

/** A cited search hit: its source and the text the agent got. */
interface CitedHit extends CitedSource {
  content: string;
}

/**
 * The trust key of a search hit: `<kind>:<file>#<hash of the text the agent got>` ({@link CitedSource.key}), so a
 * text that changed is another source.
 */
export function sourceKey(kind: string, fileName: string, content: string): string {
  const hash = createHash('sha256').update(content.replace(/\r\n?/g, '\n').trim()).digest('hex').slice(0, HASH_CHARS);
  return `${kind}:${fileName}#${hash}`;
}

// The search results of each subtask that completed, one per source key within it, first occurrence kept.
function hitsBySubtask(agent: Pick<AgentResult, 'subtasks'>): CitedHit[][] {
  return agent.subtasks
    .filter((subtask) => subtask.isCompleted)
    .map((subtask) => {
      const seen = new Map<string, CitedHit>();
      for (const attempt of subtask.toolResults) {
        for (const call of attempt) {
          const kind = TOOL_SOURCE_KIND[call.toolName] ?? call.toolName;
          for (const r of call.results) {
            const key = sourceKey(kind, r.fileName, r.content);
            if (!seen.has(key)) seen.set(key, { key, kind, fileName: r.fileName, content: r.content });
          }
        }
      }
      return [...seen.values()];
    });
}

// The hits of `groups`, one per source key, first occurrence kept.
function distinct(groups: readonly CitedHit[][]): CitedHit[] {
  const seen = new Map<string, CitedHit>();
  for (const hit of groups.flat()) if (!seen.has(hit.key)) seen.set(hit.key, hit);
  return [...seen.values()];
}

// Every search result of the subtasks that completed, one per source key, first occurrence kept.
function citedHits(agent: Pick<AgentResult, 'subtasks'>): CitedHit[] {
  return distinct(hitsBySubtask(agent));
}

/**
 * The distinct sources behind a draft: every search result of the subtasks that completed (a subtask that ran out of
 * tries answered "not found" and relied on nothing), as `sourcesOf` in src/agent/agent.ts counts them, but one per
 * section or pair text rather than per file. What a correction is looked for in and a gap closes on; trust asks and
 * credits only the ones a reply used ({@link usedSources}).
 */
export function citedSources(agent: Pick<AgentResult, 'subtasks'>): CitedSource[] {
  return citedHits(agent).map(({ key, kind, fileName }) => ({ key, kind, fileName }));
}

// A common run of text that marks a hit used has a weight of at least RUN_WEIGHT, a CJK character weighing
// CJK_WEIGHT and a word of other scripts WORD_WEIGHT: 12 kana or kanji, or 5 words, or a mix. Shorter runs are the
// words of the topic any answer on it repeats (管理画面の設定, "rotate an API key"); 12 characters are a clause, and
// 5 words a phrase, that a reply takes from its source (measured on JSQuAD and the scripted drafts: tmp/s50-l1).
const RUN_WEIGHT = 60;
const CJK_WEIGHT = 5;
const WORD_WEIGHT = 12;

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3005\u30fc]/u;
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

/** One unit of text for the common runs: a CJK character or a word, with its weight. */
interface TextUnit {
  text: string;
  weight: number;
}

// `text` after NFKC and lower-casing as a sequence of units. White space and punctuation only separate them, so a
// line break or a bracket the reply changed does not cut a copied run.
function textUnits(text: string): TextUnit[] {
  const units: TextUnit[] = [];
  let word = '';
  const endWord = () => {
    if (word) units.push({ text: word, weight: WORD_WEIGHT });
    word = '';
  };
  for (const c of text.normalize('NFKC').toLowerCase()) {
    if (CJK_CHAR.test(c)) {
      endWord();
      units.push({ text: c, weight: CJK_WEIGHT });
    } else if (WORD_CHAR.test(c)) word += c;
    else endWord();
  }
  endWord();
  return units;
}

// `text`'s units joined: two texts that differ only in case, width, white space and punctuation give the same key.
function unitsKey(text: string): string {
  return textUnits(text).map((u) => u.text).join('\u0001');
}

/**
 * Every shortest run of `text`'s units from each start that reaches {@link RUN_WEIGHT}. Two texts share a run of that
 * weight exactly when they share one of these: from the run's start both extend it by the same units.
 */
function longRuns(text: string): Set<string> {
  const units = textUnits(text);
  const runs = new Set<string>();
  for (let start = 0; start < units.length; start++) {
    let weight = 0;
    for (let end = start; end < units.length; end++) {
      weight += units[end]!.weight;
      if (weight >= RUN_WEIGHT) {
        runs.add(units.slice(start, end + 1).map((u) => u.text).join('\u0001'));
        break;
      }
    }
  }
  return runs;
}

// A value of one digit (a list's 1., 2回, 第2水曜, 1年) or a bare number of two (a count, a day) is in many texts on
// any topic: sharing one shows no hit was used. Codes, addresses and numbers of more digits (E-2001, 90日, 600) do.
function isTellingValue(value: string): boolean {
  const chars = [...value];
  const isDigit = (c: string) => c >= '0' && c <= '9';
  const digits = chars.filter(isDigit).length;
  const numberEnd = chars.findIndex((c) => !isDigit(c) && c !== ',' && c !== '.');
  if (numberEnd === -1) return digits >= 3;
  const withUnit = numberEnd > 0 && !chars.slice(numberEnd).some(isDigit);
  return !withUnit || digits >= 2;
}

/** A reply's text as measured for the hits it used ({@link usedSources}). */
interface MeasuredText {
  values: Set<string>;
  runs: Set<string>;
}

function measured(text: string): MeasuredText {
  return { values: new Set([...factValues(text)].filter(isTellingValue)), runs: longRuns(text) };
}

/** A hit's text as measured against a reply: its telling fact values and long runs. */
interface MeasuredHit {
  hit: CitedHit;
  values: Set<string>;
  runs: Set<string>;
  /** Its heading line's words as {@link unitsKey} joins them: a reply's line that is only this repeats it. */
  heading: string;
}

// Not counting the heading line the manual search puts first: sibling sections share most of it (【第6章 運用と保守 >
// エラーコード一覧 > …】), so a reply quoting one section's would mark them all used.
function measuredHit(hit: CitedHit): MeasuredHit {
  const content = hit.content.replace(/\r\n?/g, '\n');
  const body = content.replace(HEADING_LINE, '');
  return { hit, values: factValues(body), runs: longRuns(body), heading: unitsKey(HEADING_LINE.exec(content)?.[0] ?? '') };
}

// Whether a hit shares with the text a fact value or a long common run.
function isUsed(hit: MeasuredHit, text: MeasuredText): boolean {
  for (const value of hit.values) if (text.values.has(value)) return true;
  for (const run of hit.runs) if (text.runs.has(run)) return true;
  return false;
}

// Where a reply's sentences end: 。．｡！？!? (full- or half-width), a full stop before a space (past a closing quote
// or bracket), a semicolon, and every line break (not a colon: URLs and labels hold them). Splitting too often is the safe side: a piece traced to no hit makes
// every hit count, while a missed end lets a sentence in the model's own words ride on a traced one (bug review B3b).
const SENTENCE_END = /[。．｡！？!?;；\n]|\.(?=["'”’)\]」』]*\s)/;

// Whether every sentence of the reply shares a value or a long run with some hit: only then can the hits it used be
// told from those it did not. A sentence that shares nothing (a paraphrase, the model's own words) may rest on any hit.
// The hits' values and runs are gathered once, so the cost is the reply's length plus the hits', not their product.
function everySentenceTraced(reply: string, hits: readonly MeasuredHit[]): boolean {
  const values = new Set<string>();
  const runs = new Set<string>();
  for (const h of hits) {
    for (const v of h.values) values.add(v);
    for (const r of h.runs) runs.add(r);
  }
  // A piece that is only a hit's heading line, repeated, took nothing else from anywhere: it needs no trace. Only the
  // whole piece: a sentence that quotes a heading and words of its own is measured as any other (bug review B4).
  const headings = new Set(hits.map((h) => h.heading).filter((k) => k !== ''));
  for (const sentence of reply.split(SENTENCE_END)) {
    if (textUnits(sentence).length === 0 || headings.has(unitsKey(sentence))) continue;
    const own = measured(sentence);
    if (![...own.values].some((v) => values.has(v)) && ![...own.runs].some((r) => runs.has(r))) return false;
  }
  return true;
}

// The hits `text` used, subtask by subtask; all of a subtask's hits where it used none of them, and every hit when a
// sentence of `text` shares nothing with any hit — unless `strict`, which keeps only the hits used.
function usedHits(agent: Pick<AgentResult, 'subtasks'>, text: string | undefined, strict = false): CitedHit[] {
  const groups = hitsBySubtask(agent);
  if (text === undefined) return distinct(groups);
  // The reply's own words: not the greeting, closing or signature (the desk's phone and address are in many manual
  // sections), nor the customer's quoted mail (its question is in every Q&A row on the topic).
  const content = replyContent(text);
  const measuredGroups = groups.map((hits) => hits.map(measuredHit));
  // Bug review B2 (HIGH): a reply that rewords an untrusted hit and copies one stock clause of a trusted one used
  // the trusted one only, by the measure, and the gate asked nothing of the hit its substance came from. So the
  // narrowing holds only for a reply whose every sentence is traced to a hit; otherwise every hit counts, as before.
  if (!strict && !everySentenceTraced(content, measuredGroups.flat())) return distinct(groups);
  const reply = measured(content);
  return distinct(
    measuredGroups.map((hits, i) => {
      const used = hits.filter((h) => isUsed(h, reply)).map((h) => h.hit);
      // A subtask whose hits the reply shares no value and no long run with still rests on one of them, and which one
      // cannot be told (a paraphrase, a translation): all of them count, as every hit did before. The learn gate then
      // asks them all to be trusted, and an approval credits them all.
      return used.length > 0 || strict ? used : groups[i]!;
    }),
  );
}

/**
 * The sources of a draft's hits that `text` used ({@link citedSources} narrowed): per completed subtask, each hit whose
 * text (without the manual's heading line) shares with `text` (its {@link replyContent}) a fact value ({@link
 * factValues}; not one of a single digit, nor a bare number of two) or a run of 12 CJK characters or 5 words (after NFKC, case, white space and punctuation folded); every hit
 * of a subtask when it shares that with none of them, and every hit of the draft when one of its sentences shares
 * that with no hit (its substance may come from any of them). Trust asks and credits only these (learning audit MED 4: a row
 * that merely ranked third became trusted from approvals of drafts nobody judged it in): the learn gate ({@link
 * learnVerdict}) measures the agent's answer, a review the reply sent (or the draft rejected), so an approval as is
 * credits the sources the gate asked. Without `text`, every hit.
 */
export function usedSources(agent: Pick<AgentResult, 'subtasks'>, text: string | undefined): CitedSource[] {
  return usedHits(agent, text).map(({ key, kind, fileName }) => ({ key, kind, fileName }));
}

/**
 * The sources a review of a draft counts for: those the agent's draft used (what the learn gate asked of) and those
 * the reviewed text used (the reply approved, maybe edited, or the draft rejected). The draft's side keeps the
 * reviewer's verdict on a source whose text they cut out (an edit that deleted it still counts against it); the
 * reviewed side credits a hit whose text the reviewer wrote in from the results.
 */
export function reviewedSources(agent: Pick<AgentResult, 'subtasks' | 'answer'>, reviewedText: string | undefined): CitedSource[] {
  const byKey = new Map(usedSources(agent, agent.answer).map((s) => [s.key, s]));
  if (reviewedText !== undefined && reviewedText !== agent.answer) {
    // Only what the reviewed text really shares: a reviewer's own words that share nothing with any hit vouch for
    // none of them (the draft's side already holds what the gate asked of).
    for (const { key, kind, fileName } of usedHits(agent, reviewedText, true)) if (!byKey.has(key)) byKey.set(key, { key, kind, fileName });
  }
  return [...byKey.values()];
}

/** A cited source with a name a person recognises ({@link sourceLabel}). */
export interface LabelledSource extends CitedSource {
  label: string;
}

/**
 * The sources behind a draft as {@link citedSources} finds them, each named from the hit the agent got: the trust key
 * alone ends in a hash of the text, which tells an operator nothing.
 */
export function labelledSources(agent: Pick<AgentResult, 'subtasks'>): LabelledSource[] {
  return citedHits(agent).map(({ content, ...source }) => ({ ...source, label: sourceLabel(source, content) }));
}

/** {@link usedSources} named as {@link labelledSources} names them: what the review page shows of a draft's trust. */
export function usedLabelledSources(agent: Pick<AgentResult, 'subtasks'>, text: string | undefined): LabelledSource[] {
  return usedHits(agent, text).map(({ content, ...source }) => ({ ...source, label: sourceLabel(source, content) }));
}

/** Characters of a heading or question a label keeps: enough to recognise it in a table cell. */
const LABEL_TEXT_CHARS = 40;

/** `text` on one line, cut at {@link LABEL_TEXT_CHARS} code points. */
function shortened(text: string): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  return chars.length <= LABEL_TEXT_CHARS ? chars.join('') : `${chars.slice(0, LABEL_TEXT_CHARS).join('')}…`;
}

// The heading line the manual searches put first (`withHeadingLine` in src/search/embedded-manual.ts, and the
// Meilisearch adapter): 【chapter > section】.
const HEADING_LINE = /^【([^\n]*)】/;
// The question of a pair as `formatQaPair` (src/search/types.ts) writes it: `Q: <question>\nA: <answer>`.
const QUESTION = /^Q: ([\s\S]*?)\nA: /;

/**
 * A source's name for people, from the text the search gave the agent: `<manual file> › <innermost section heading>`,
 * `<file.csv#row> › <question>` (cut short), or the file name alone when the text carries neither.
 */
export function sourceLabel(source: Pick<CitedSource, 'kind' | 'fileName'>, content: string): string {
  const text = content.replace(/\r\n?/g, '\n');
  const found = source.kind === 'qa' ? QUESTION.exec(text)?.[1] : HEADING_LINE.exec(text)?.[1]?.split(HEADING_SEPARATOR).at(-1);
  const shown = found ? shortened(found) : '';
  return shown ? `${source.fileName} › ${shown}` : source.fileName;
}

/**
 * A source's name from its trust key alone (`manual:guide/login.md#3f1c9a0b2d4e` → `guide/login.md`), where the
 * text behind it is not at hand: the file, or the Q&A pair's `file.csv#row`.
 */
export function sourceLabelOfId(sourceId: string): string {
  const match = new RegExp(`^[^:]+:(.+)#[0-9a-f]{${HASH_CHARS}}$`).exec(sourceId);
  return match?.[1] ?? sourceId;
}

/**
 * The completed subtasks whose answer rests on no search result: the model answered from its own "knowledge" and its
 * self-check let that pass. The sources the other subtasks cited vouch for nothing in such an answer, so learn mode
 * must not send it on their trust. A subtask that fell back is not one: it answered "not found", and `auto` parks it.
 */
export function unsourcedSubtasks(agent: Pick<AgentResult, 'subtasks'>): string[] {
  return agent.subtasks.filter((s) => s.isCompleted && !s.toolResults.some((attempt) => attempt.some((call) => call.results.length > 0))).map((s) => s.taskName);
}

/** The Redis keys of the trust records. */
export function trustKeys(prefix: string) {
  if (!prefix) throw new TypeError('trustKeys: prefix is required');
  const listPrefix = `${prefix}:trust:src:`;
  return {
    sources: `${prefix}:trust:sources`,
    listPrefix,
    source: (key: string) => `${listPrefix}${key}`,
    corrected: `${prefix}:trust:corrected`,
    corrections: (key: string) => `${prefix}:trust:fix:${key}`,
    superseded: `${prefix}:trust:superseded`,
  } as const;
}

/** The outcomes that are reviews of a draft: a person approved (and it was sent) or rejected it. */
export function isReviewOutcome(kind: OutcomeKind): boolean {
  return kind === 'approved_as_is' || kind === 'approved_edited' || kind === 'rejected';
}

/**
 * Whether an ending is a review the cited sources learn from: an approval that was sent, or a rejection, but not a
 * ticket a person closed because its reply could not be delivered ({@link TicketOutcome.undeliverable}): nobody judged
 * the draft then, and a delivery problem says nothing about the sources.
 */
export function isReview(outcome: Pick<TicketOutcome, 'kind' | 'undeliverable'>): boolean {
  return isReviewOutcome(outcome.kind) && !outcome.undeliverable;
}

/** Marks an entry whose approval corrected a fact ({@link TicketOutcome.factsChanged}). */
const FACTS_FLAG = 'facts';
/** Starts the field naming the review's sender ({@link TicketOutcome.sender}). */
const SENDER_FIELD = 'sender=';

/**
 * The list entry of a reviewed outcome: `<outcome> <edit ratio or -> <ticket id>`, then `facts` when the approval
 * corrected a fact and `sender=<digest>` naming the customer who asked.
 */
export function reviewEntry(outcome: Pick<TicketOutcome, 'kind' | 'editRatio' | 'factsChanged' | 'sender'>, ticketId: string): string {
  const facts = outcome.factsChanged && outcome.factsChanged.length > 0 ? ` ${FACTS_FLAG}` : '';
  const sender = outcome.sender ? ` ${SENDER_FIELD}${outcome.sender}` : '';
  return `${outcome.kind} ${outcome.editRatio === undefined ? '-' : String(outcome.editRatio)} ${ticketId}${facts}${sender}`;
}

/** One review as read back from a source's list. */
export interface Review {
  kind: OutcomeKind;
  editRatio?: number;
  ticketId: string;
  /** The approval corrected a number, date, address or error code: never "as is", whatever its edit ratio. */
  factsChanged?: boolean;
  /** Digest of the customer who asked; absent in entries written before it was recorded. */
  sender?: string;
}

/** A review as {@link reviewEntry} wrote it, or undefined for an entry that is none. */
export function readReviewEntry(entry: string): Review | undefined {
  const [kind, ratio, ticketId, ...flags] = entry.split(' ');
  if (!kind || !ticketId || !isReviewOutcome(kind as OutcomeKind)) return undefined;
  return {
    kind: kind as OutcomeKind,
    ticketId,
    ...(ratio && ratio !== '-' ? { editRatio: Number(ratio) } : {}),
    ...(flags.includes(FACTS_FLAG) ? { factsChanged: true } : {}),
    ...senderOf(flags),
  };
}

function senderOf(flags: readonly string[]): { sender?: string } {
  const field = flags.find((f) => f.startsWith(SENDER_FIELD));
  return field && field.length > SENDER_FIELD.length ? { sender: field.slice(SENDER_FIELD.length) } : {};
}

/**
 * The reviews that count: the newest of each sender's (a customer who asks the same question five times has shown
 * the agent right to one person, once). Reviews without a sender (recorded before senders were) count each.
 */
function onePerSender(reviews: readonly Review[]): Review[] {
  const seen = new Set<string>();
  return reviews.filter((r) => {
    if (!r.sender) return true;
    if (seen.has(r.sender)) return false;
    seen.add(r.sender);
    return true;
  });
}

/** Whether a review counts as approved as is: approved, edited by at most TRUST_MAX_EDIT_RATIO, no fact corrected. */
function isAsIs(review: Review, settings: TrustSettings): boolean {
  return review.kind !== 'rejected' && !review.factsChanged && review.editRatio !== undefined && review.editRatio <= settings.TRUST_MAX_EDIT_RATIO;
}

/** A source's track record, judged with the current settings. */
export interface TrustRecord {
  /** The source's key (see {@link CitedSource.key}). */
  sourceId: string;
  /** Reviews within the window. */
  reviews: number;
  /** Of those, approved with an edit ratio of at most TRUST_MAX_EDIT_RATIO. */
  approvedAsIs: number;
  trusted: boolean;
  /** What is missing when not trusted, e.g. `3 of 5 reviews`. */
  missing?: string;
  /** The reviewers' corrections of the source ({@link recordCorrections}), newest first; absent when none. */
  corrections?: SourceCorrection[];
  /**
   * The newer text of the same section or row that replaced this corrected one ({@link supersedeCorrected}): nothing
   * is left to fix. Set by {@link listTrust} only; the old text stays untrusted should it come back.
   */
  supersededBy?: string;
}

/** How the missing part of a source with a correction not fixed begins. */
const CORRECTED = 'a correction on ticket';

/**
 * Trust from a source's reviews (newest first): of the latest TRUST_WINDOW, the newest of each sender count; it is
 * trusted with at least TRUST_MIN_REVIEWS of them and at least TRUST_MIN_AS_IS of them approved as is. An approval
 * edited by more than TRUST_MAX_EDIT_RATIO, one that corrected a fact, or one whose ratio is unknown, counts as not as
 * is, like a rejection. A source among whose `corrections` one took out a value its text holds ({@link
 * SourceCorrection.held}) is not trusted at all, whatever its reviews: see {@link recordCorrections}.
 */
export function judgeTrust(sourceId: string, reviews: readonly Review[], settings: TrustSettings, corrections: readonly SourceCorrection[] = []): TrustRecord {
  const window = onePerSender(reviews.slice(0, settings.TRUST_WINDOW));
  const asIs = window.filter((r) => isAsIs(r, settings)).length;
  const record: TrustRecord = { sourceId, reviews: window.length, approvedAsIs: asIs, trusted: false, ...(corrections.length > 0 ? { corrections: [...corrections] } : {}) };
  // The text a reviewer corrected is still this source's (a fixed text is another key): every draft citing it may carry
  // the wrong value again, and approvals of such drafts as they were are mistakes, not a record.
  const standing = corrections.find((c) => c.held);
  if (standing) {
    record.missing = `${CORRECTED} ${standing.ticketId} not fixed in its text (${standing.values.join(', ')})`;
  } else if (window.length < settings.TRUST_MIN_REVIEWS) {
    record.missing = `${window.length} of ${settings.TRUST_MIN_REVIEWS} reviews`;
  } else if (asIs < Math.ceil(settings.TRUST_MIN_AS_IS * window.length - 1e-9)) {
    record.missing = `${asIs} of its last ${window.length} reviews approved as is, needs ${Math.round(settings.TRUST_MIN_AS_IS * 100)} %`;
  } else record.trusted = true;
  return record;
}

/** The reviews within the window of each of `sourceIds`, in their order, newest first, from one pipelined read. */
async function readReviews(redis: Redis, prefix: string, sourceIds: readonly string[], settings: TrustSettings): Promise<Review[][]> {
  if (sourceIds.length === 0) return [];
  const k = trustKeys(prefix);
  const pipeline = redis.pipeline();
  for (const id of sourceIds) pipeline.lrange(k.source(id), 0, settings.TRUST_WINDOW - 1);
  const results = (await pipeline.exec()) ?? [];
  return sourceIds.map((_, i) => {
    const [err, entries] = results[i] ?? [new Error('missing pipeline result'), []];
    if (err) throw err;
    return (entries as string[]).flatMap((e) => readReviewEntry(e) ?? []);
  });
}

/** The records of `sourceIds`, in their order, from pipelined reads. */
export async function readTrust(redis: Redis, prefix: string, sourceIds: readonly string[], settings: TrustSettings): Promise<TrustRecord[]> {
  const [reviews, corrections] = await Promise.all([readReviews(redis, prefix, sourceIds, settings), readCorrections(redis, prefix, sourceIds)]);
  return sourceIds.map((id, i) => judgeTrust(id, reviews[i] ?? [], settings, corrections[i] ?? []));
}

/**
 * How many more approvals as is, each for another customer, make a source with these reviews (newest first) trusted
 * under {@link judgeTrust}: 0 when it is. Found by adding them one by one, so the answer follows the rule (the window
 * sliding, one review per customer) rather than restating it; TRUST_WINDOW of them always suffice.
 */
export function approvalsUntilTrusted(reviews: readonly Review[], settings: TrustSettings): number {
  const upcoming: Review[] = [];
  while (!judgeTrust('', [...upcoming, ...reviews], settings).trusted && upcoming.length < settings.TRUST_WINDOW) {
    const n = upcoming.length;
    upcoming.push({ kind: 'approved_as_is', editRatio: 0, ticketId: `upcoming-${n}`, sender: `upcoming-${n}` });
  }
  return upcoming.length;
}

/** Where a source stands: its record now, and how many approvals as is it still needs ({@link approvalsUntilTrusted}). */
export interface TrustStanding {
  record: TrustRecord;
  toGo: number;
}

/**
 * The standing of each of `sourceIds`, read now (a parking reason keeps the numbers of when it was written). With
 * `pending`, a review not recorded yet (an approval whose reply is still to be sent, which records it) counts as the
 * newest, unless the list already holds that ticket's review.
 */
export async function readStanding(redis: Redis, prefix: string, sourceIds: readonly string[], settings: TrustSettings, pending?: Review): Promise<TrustStanding[]> {
  const [lists, corrections] = await Promise.all([readReviews(redis, prefix, sourceIds, settings), readCorrections(redis, prefix, sourceIds)]);
  return sourceIds.map((id, i) => {
    const recorded = lists[i] ?? [];
    const reviews = pending && !recorded.some((r) => r.ticketId === pending.ticketId) ? [pending, ...recorded] : recorded;
    return { record: judgeTrust(id, reviews, settings, corrections[i] ?? []), toGo: approvalsUntilTrusted(reviews, settings) };
  });
}

/**
 * A source's standing in words: `3 of 5 approved unchanged — 2 more unchanged approvals until replies citing it go
 * out on their own`, `5 of its last 6 reviews approved unchanged — …` once a review in the window was not as is, or
 * `trusted: …`; for a source with a correction not fixed, that correction.
 */
export function describeStanding(standing: TrustStanding): string {
  const { record, toGo } = standing;
  const ofLast = `${record.approvedAsIs} of its last ${record.reviews} reviews approved unchanged`;
  if (record.trusted) return `trusted: ${ofLast}`;
  // No number of approvals helps: its text must change (or the correction be withdrawn).
  if (record.missing?.startsWith(CORRECTED)) return `not trusted: ${record.missing} — fix the source, or withdraw that review (knowledge trust --drop-review)`;
  const sofar = record.approvedAsIs === record.reviews ? `${record.approvedAsIs} of ${record.approvedAsIs + toGo} approved unchanged` : ofLast;
  return `${sofar} — ${toGo} more unchanged ${toGo === 1 ? 'approval' : 'approvals'} until replies citing it go out on their own`;
}

/**
 * Every source with a record, most recently reviewed first (at most `limit`), then the corrected ones without a
 * review left (their reviews withdrawn).
 */
export async function listTrust(redis: Redis, prefix: string, settings: TrustSettings, limit = 10_000): Promise<TrustRecord[]> {
  const k = trustKeys(prefix);
  const [reviewed, corrected] = await Promise.all([redis.zrevrange(k.sources, 0, limit - 1), redis.zrevrange(k.corrected, 0, limit - 1)]);
  const ids = [...new Set([...reviewed, ...corrected])].slice(0, limit);
  const [records, superseded] = await Promise.all([readTrust(redis, prefix, ids, settings), readSuperseded(redis, prefix, corrected)]);
  return records.map((r) => {
    const by = superseded.get(r.sourceId);
    return by ? { ...r, supersededBy: by } : r;
  });
}

/** Whether a draft may go out under `REVIEW_MODE=learn`, and why not. */
export type LearnVerdict = { send: true; reason: string } | { send: false; reason: string; untrusted: TrustRecord[] };

/** Sources named in a parking reason; the rest are summarised as "and N more". */
const REASON_SOURCES = 3;

/** How every learn-mode parking reason begins. */
const NOT_YET_TRUSTED = 'not yet trusted: ';
/** How the learn-mode reasons end that name no source: the draft, or a subtask of it, cites none. */
const CITES_NO_SOURCE = 'cites no source';
const CITE_NO_SOURCE = 'cite no source';

/**
 * The learn-mode check of a draft that passed the `auto` conditions: sent only when it cites at least one source,
 * every completed subtask cites one (see {@link unsourcedSubtasks}) and every source the answer used ({@link
 * usedSources}: all of a subtask's hits when it used none recognisably) is trusted; otherwise the
 * reason names what is missing ("not yet trusted: manual:guide/login.md#… has 3 of 5 reviews", "not yet trusted:
 * subtask 「…」 cites no source").
 */
export async function learnVerdict(
  redis: Redis,
  prefix: string,
  agent: Pick<AgentResult, 'subtasks'> & Partial<Pick<AgentResult, 'answer'>>,
  settings: TrustSettings,
): Promise<LearnVerdict> {
  // The sources the answer used, as an approval of it as is credits them ({@link usedSources}).
  const cited = usedSources(agent, agent.answer);
  if (cited.length === 0) return { send: false, reason: `${NOT_YET_TRUSTED}the draft ${CITES_NO_SOURCE}`, untrusted: [] };
  const unsourced = unsourcedSubtasks(agent);
  if (unsourced.length > 0) {
    const names = unsourced.map((name) => `「${name}」`).join(', ');
    return { send: false, reason: `${NOT_YET_TRUSTED}${unsourced.length === 1 ? 'subtask' : 'subtasks'} ${names} ${unsourced.length === 1 ? CITES_NO_SOURCE : CITE_NO_SOURCE}`, untrusted: [] };
  }
  const records = await readTrust(redis, prefix, cited.map((c) => c.key), settings);
  const untrusted = records.filter((r) => !r.trusted);
  if (untrusted.length === 0) return { send: true, reason: `all ${records.length} cited sources trusted` };
  const named = untrusted.slice(0, REASON_SOURCES).map((r) => `${r.sourceId} has ${r.missing}`);
  const more = untrusted.length > REASON_SOURCES ? `; and ${untrusted.length - REASON_SOURCES} more` : '';
  return { send: false, reason: `${NOT_YET_TRUSTED}${named.join('; ')}${more}`, untrusted };
}

/**
 * Whether a parking reason is a wait for trust alone: the draft passed every check `auto` makes and cites sources,
 * some not trusted yet ({@link learnVerdict}). A draft or subtask citing no source is not: approvals teach nothing
 * about it.
 */
export function parkedForTrust(reason: string | undefined): boolean {
  return reason !== undefined && reason.startsWith(NOT_YET_TRUSTED) && !reason.endsWith(CITES_NO_SOURCE) && !reason.endsWith(CITE_NO_SOURCE);
}

// In one source's list, the entries of the given tickets (ARGV) lose their sender field; the review stays. One script,
// so a review pushed meanwhile cannot shift the indexes LSET writes to. Returns how many entries changed.
const FORGET_REVIEW_SENDERS = new LuaScript(
  `
local ids = {}
for i = 1, #ARGV do ids[ARGV[i]] = true end
local changed = 0
for i, entry in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local id = string.match(entry, '^%S+ %S+ (%S+)')
  if id and ids[id] then
    local cleaned = string.gsub(entry, ' ${SENDER_FIELD}%S*', '')
    if cleaned ~= entry then
      redis.call('LSET', KEYS[1], i - 1, cleaned)
      changed = changed + 1
    end
  end
end
return changed
`,
  1,
);

/**
 * Takes the sender digest out of the trust records' reviews of `ticketIds` (an erasure: the digest identifies the
 * customer), keeping the reviews, which are the operators' judgement of the sources. With `dryRun`, only counts them.
 * Returns how many reviews carried it.
 */
export async function forgetReviewSenders(redis: Redis, prefix: string, ticketIds: ReadonlySet<string>, options: { dryRun?: boolean } = {}): Promise<number> {
  if (ticketIds.size === 0) return 0;
  const k = trustKeys(prefix);
  let count = 0;
  for (const source of await redis.zrange(k.sources, 0, -1)) {
    if (options.dryRun) {
      const entries = await redis.lrange(k.source(source), 0, -1);
      count += entries.filter((e) => {
        const review = readReviewEntry(e);
        return review?.sender !== undefined && ticketIds.has(review.ticketId);
      }).length;
    } else {
      count += Number(await FORGET_REVIEW_SENDERS.run(redis, [k.source(source)], [...ticketIds]));
    }
  }
  return count;
}

// ------------------------------------------------------------------------------------------------------------------
// Corrections: an approval whose reviewer changed a fact of the draft.

/** Corrections kept per source, newest first. */
export const CORRECTIONS_CAP = 20;

/** A reviewer's correction of a fact a source's text gave, as recorded on that source. */
export interface SourceCorrection {
  /** The ticket whose approval corrected the draft. */
  ticketId: string;
  /** When it was recorded (ISO 8601). */
  at: string;
  /**
   * True when the source's text holds a value the reviewer took out of the draft ({@link values}): the source says
   * it, and is not trusted while its text is the same. False when no cited source's text held one (the value came
   * from the model or the customer's mail), so the correction is recorded on every cited source for a person to look
   * at, and blocks none.
   */
  held: boolean;
  /** The values taken out that the source's text holds (knowledge text, never the customer's); empty when not held. */
  values: string[];
  /** The source's name for people ({@link sourceLabel}) when it was corrected. */
  label: string;
}

/** A source with its corrections, for `knowledge trust` and the Knowledge page ({@link listCorrectedSources}). */
export interface CorrectedSource {
  sourceId: string;
  /** The latest correction's {@link SourceCorrection.label}. */
  label: string;
  /** Newest first. */
  corrections: SourceCorrection[];
  /**
   * True when one of them was {@link SourceCorrection.held} and no newer text replaced the source ({@link
   * supersededBy}): a section or row to fix. A held correction keeps the old text untrusted either way.
   */
  blocking: boolean;
  /** The newer text of the same section or row that an answer cited instead ({@link supersedeCorrected}). */
  supersededBy?: string;
}

const TOKEN_MARKS = '._%+-@:/?=&#~,';

// After NFKC: ASCII letters and digits, and the marks numbers, URLs, addresses and codes are written with.
function isTokenChar(c: string): boolean {
  const code = c.charCodeAt(0);
  return (code >= 0x30 && code <= 0x39) || isAsciiLetter(code) || (c.length === 1 && TOKEN_MARKS.includes(c));
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

// Kana and CJK ideographs: the unit written after a number in Japanese (日, 円, 件, か月).
function isCjkUnit(c: string): boolean {
  const code = c.codePointAt(0) ?? 0;
  return (code >= 0x3040 && code <= 0x30ff) || (code >= 0x3400 && code <= 0x4dbf) || (code >= 0x4e00 && code <= 0x9fff);
}

function isHiragana(c: string): boolean {
  const code = c.codePointAt(0) ?? 0;
  return code >= 0x3040 && code <= 0x309f;
}

const EDGE_MARKS = '.,:;?/=&#~-';
// A token without the sentence marks around it (`https://example.com/a.` ends at `a`).
function trimMarks(token: string): string {
  let [start, end] = [0, token.length];
  while (start < end && EDGE_MARKS.includes(token[start]!)) start++;
  while (end > start && EDGE_MARKS.includes(token[end - 1]!)) end--;
  return token.slice(start, end);
}

function isFactToken(token: string): boolean {
  return [...token].some((c) => c >= '0' && c <= '9') || token.includes('@') || token.includes('://') || token.toLowerCase().startsWith('www.');
}

/** Longest unit word taken after a number (`days`, `GB`). */
const MAX_UNIT_CHARS = 12;

/**
 * The values of facts in `text` as a reviewer's correction is matched against a source's text: after NFKC, each run of
 * ASCII letters, digits and the marks of numbers, URLs and addresses that holds a digit, an `@` or a URL start, with
 * the unit after a number (`30日`, `30days`), so `30日` and `30分` are different values and `130` is not `30`.
 * Coarser than the fact kinds of src/tickets/outcome.ts, which decide whether a fact changed at all; this only says
 * which source said the value taken out.
 */
export function factValues(text: string): Set<string> {
  return new Set(factCounts(text).keys());
}

/** {@link factValues} with how often each occurs. */
function factCounts(text: string): Map<string, number> {
  const chars = Array.from(text.normalize('NFKC'));
  const counts = new Map<string, number>();
  for (let i = 0; i < chars.length; ) {
    if (!isTokenChar(chars[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j < chars.length && isTokenChar(chars[j]!)) j++;
    const token = trimMarks(chars.slice(i, j).join(''));
    if (isFactToken(token)) {
      // 1,000円 and 1000円 are one value (bug review B2): a reviewer who drops the separator corrected nothing.
      const value = `${withoutThousandsSeparators(token)}${unitAfter(chars, j, token)}`;
      counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    i = j;
  }
  return counts;
}

// The unit following a number (digits, commas and points only; a code such as E-4290 has none) that ends at `at`:
// one kana or kanji right after it, or after one space a kanji or katakana (`30 日`; a hiragana there is a particle)
// or an ASCII word (`30 days`).
function unitAfter(chars: readonly string[], at: number, token: string): string {
  if (![...token].every((c) => (c >= '0' && c <= '9') || c === ',' || c === '.')) return '';
  const k = chars[at] === ' ' ? at + 1 : at;
  const next = chars[k];
  if (next === undefined) return '';
  if (k === at) return isCjkUnit(next) ? next : '';
  if (isCjkUnit(next)) return isHiragana(next) ? '' : next;
  let end = k;
  while (end < chars.length && end - k < MAX_UNIT_CHARS && isAsciiLetter(chars[end]!.charCodeAt(0))) end++;
  return chars.slice(k, end).join('');
}

/**
 * The shape of a fact value, which a correction keeps: `url`, `email`, or the value with each number as `#`
 * (`30日` and `90日` are `#日`, `1,000円` is `#円`, `E-4290` is `E-#`).
 */
export function factShape(value: string): string {
  if (value.includes('://') || value.toLowerCase().startsWith('www.')) return 'url';
  if (value.includes('@')) return 'email';
  let shape = '';
  let inNumber = false;
  for (const c of value) {
    const digit = c >= '0' && c <= '9';
    if (digit || (inNumber && (c === ',' || c === '.'))) {
      if (!inNumber) shape += '#';
      inNumber = true;
    } else {
      shape += c;
      inNumber = false;
    }
  }
  return shape;
}

/** Characters before a value that tie it to the sentence it was written in. */
const CONTEXT_CHARS = 6;
/** Fewer characters before a value tie it to nothing: a value at a line's start was replaced in no sentence. */
const MIN_CONTEXT_CHARS = 2;

/**
 * `text` as compared for a value's context: NFKC, without white space (`30 日間` is `30日間`) and thousands separators
 * (as {@link factValues} has its values). With `lines`, line breaks stay, so a context stops at its line's start: a
 * letter's greeting (山田様) is no word of the sentence under it.
 */
function compact(text: string, lines = false): string {
  const plain = (line: string) => withoutThousandsSeparators(Array.from(line).filter((c) => c.trim() !== '').join(''));
  const normalized = text.normalize('NFKC');
  return lines ? normalized.split(/\r?\n/).map(plain).join('\n') : plain(normalized);
}

/**
 * The places where the reviewer replaced `value` in place: each place it stands in `draft` ({@link compact}ed by lines,
 * as the value is, unit included) with {@link MIN_CONTEXT_CHARS} to {@link CONTEXT_CHARS} characters of its line before
 * it, where `sent` has the same characters followed by one of `added` instead. Returned as those characters with the
 * value (`ログは30日` for ログは30日間 → ログは90日間), which the source that said it holds. A place right after a digit or
 * letter is inside a longer value (130日) and is none; so is a place whose words the reviewer kept with the value, or
 * rewrote (the value taken out of another sentence, or the customer's date at a line's start).
 */
function replacedInPlace(draft: string, sent: string, value: string, added: readonly string[]): string[] {
  const found: string[] = [];
  for (let at = draft.indexOf(value); at >= 0; at = draft.indexOf(value, at + 1)) {
    const before = draft[at - 1] ?? '';
    if (before !== '' && isTokenChar(before) && !TOKEN_MARKS.includes(before)) continue;
    const lineStart = draft.lastIndexOf('\n', at - 1) + 1;
    const context = draft.slice(Math.max(lineStart, at - CONTEXT_CHARS), at);
    if (Array.from(context).length < MIN_CONTEXT_CHARS) continue;
    if (added.some((w) => sent.includes(`${context}${w}`))) found.push(`${context}${value}`);
  }
  return found;
}

/** What {@link recordCorrections} recorded. */
export interface RecordedCorrection {
  /** The values the reviewer took out of the draft. */
  removed: number;
  /** The sources it was recorded on, with the correction. */
  sources: Array<{ sourceId: string; correction: SourceCorrection }>;
}

// KEYS[1] the corrected set, KEYS[2..] the sources' correction lists; ARGV[1] the ticket id, ARGV[2] the score (ms),
// ARGV[3] the cap, then per list its source id and entry. A ticket's earlier entry on a list (an approval made again)
// is replaced, so a source counts a ticket's correction once.
const RECORD_CORRECTIONS = new LuaScript(
  `
for i = 2, #KEYS do
  local list, source, entry = KEYS[i], ARGV[2 + (i - 1) * 2], ARGV[3 + (i - 1) * 2]
  for _, old in ipairs(redis.call('LRANGE', list, 0, -1)) do
    if string.match(old, '^(%S+) ') == ARGV[1] then redis.call('LREM', list, 0, old) end
  end
  redis.call('LPUSH', list, entry)
  redis.call('LTRIM', list, 0, tonumber(ARGV[3]) - 1)
  redis.call('ZADD', KEYS[1], ARGV[2], source)
end
return #KEYS - 1
`,
  1,
  true,
);

/**
 * Records an approval that corrected a fact (`factsChanged`): the values of `draft` (the agent's answer) that `sent`
 * has fewer of, where it has more of another of the same shape ({@link factValues} of their reply content, {@link
 * factShape}), replaced in place — the same words of the line before them in both, a new value after them in `sent`
 * — are looked for, with those words, in the text of every source the draft cited. The sources holding one get a
 * correction naming those values, and are not trusted while their text stays as it is ({@link judgeTrust}): as-is
 * approvals of later drafts that repeat the value are not counted back into trust, and a reindex of the fixed manual
 * section or Q&A row gives it a new key with a clean record. When no cited source holds a value so replaced (the
 * model or the customer's mail gave it, or the reviewer rewrote the sentence), each cited source gets a correction
 * that blocks nothing, so the operator still sees it. An approval that replaced no value (a rewrite, a value only
 * taken out) records nothing: its review already counts as not as is. Returns what was recorded.
 */
export async function recordCorrections(
  redis: Redis,
  prefix: string,
  change: { ticketId: string; agent: Pick<AgentResult, 'subtasks'>; draft: string; sent: string; factsChanged?: readonly string[] | undefined; at?: Date },
): Promise<RecordedCorrection> {
  if (!change.factsChanged || change.factsChanged.length === 0) return { removed: 0, sources: [] };
  const [before, after] = [factCounts(replyContent(change.draft)), factCounts(replyContent(change.sent))];
  // Counted, as changedFacts compares them: 30日 changed to a 90日 the draft also said elsewhere is a correction too.
  // Replaced, not only taken out: a value is corrected when the reviewer wrote more of another of its shape (30日 →
  // 90日). A rewrite that drops the draft's numbers and adds none says nothing about which of them was wrong.
  const added = [...after].filter(([v, n]) => n > (before.get(v) ?? 0)).map(([v]) => v);
  const addedShapes = new Set(added.map(factShape));
  const removed = [...before].filter(([v, n]) => n > (after.get(v) ?? 0) && addedShapes.has(factShape(v))).map(([v]) => v);
  const hits = citedHits(change.agent);
  if (hits.length === 0 || removed.length === 0) return { removed: removed.length, sources: [] };
  const at = change.at ?? new Date();
  // Which source said a value the reviewer corrected: one that holds it with the words the draft put before it (a
  // draft pastes or paraphrases what it cites), where the sent reply has those words before a new value of its shape.
  // A number changed elsewhere (the customer's date, a rewritten sentence) matched a source that also said it, and
  // blocked a correct source for good (bug review B2): such a change blocks nothing.
  const draftText = compact(replyContent(change.draft), true);
  const sentText = compact(replyContent(change.sent), true);
  const contexts = new Map(removed.map((v) => [v, replacedInPlace(draftText, sentText, v, added.filter((w) => factShape(w) === factShape(v)))]));
  const held = hits.flatMap((h) => {
    const text = compact(h.content);
    const values = removed.filter((v) => (contexts.get(v) ?? []).some((c) => text.includes(c)));
    return values.length > 0 ? [{ hit: h, values, held: true }] : [];
  });
  const targets = held.length > 0 ? held : hits.map((hit) => ({ hit, values: [] as string[], held: false }));
  const sources = targets.map(({ hit, values, held: isHeld }) => ({
    sourceId: hit.key,
    correction: { ticketId: change.ticketId, at: at.toISOString(), held: isHeld, values, label: sourceLabel(hit, hit.content) },
  }));
  const k = trustKeys(prefix);
  await RECORD_CORRECTIONS.run(
    redis,
    [k.corrected, ...sources.map((s) => k.corrections(s.sourceId))],
    [change.ticketId, at.getTime(), CORRECTIONS_CAP, ...sources.flatMap((s) => [s.sourceId, `${change.ticketId} ${JSON.stringify(s.correction)}`])],
  );
  return { removed: removed.length, sources };
}

function readCorrectionEntry(entry: string): SourceCorrection | undefined {
  const space = entry.indexOf(' ');
  if (space < 0) return undefined;
  try {
    const parsed = JSON.parse(entry.slice(space + 1)) as Partial<SourceCorrection>;
    if (typeof parsed.ticketId !== 'string' || typeof parsed.at !== 'string') return undefined;
    return { ticketId: parsed.ticketId, at: parsed.at, held: parsed.held === true, values: Array.isArray(parsed.values) ? parsed.values.map(String) : [], label: String(parsed.label ?? '') };
  } catch {
    return undefined;
  }
}

/** The corrections of each of `sourceIds`, in their order, newest first, from one pipelined read. */
export async function readCorrections(redis: Redis, prefix: string, sourceIds: readonly string[]): Promise<SourceCorrection[][]> {
  if (sourceIds.length === 0) return [];
  const k = trustKeys(prefix);
  const pipeline = redis.pipeline();
  for (const id of sourceIds) pipeline.lrange(k.corrections(id), 0, -1);
  const results = (await pipeline.exec()) ?? [];
  return sourceIds.map((_, i) => {
    const [err, entries] = results[i] ?? [new Error('missing pipeline result'), []];
    if (err) throw err;
    return (entries as string[]).flatMap((e) => readCorrectionEntry(e) ?? []);
  });
}

/**
 * The sources reviewers corrected, most recently corrected first (at most `limit`), each with its corrections: what
 * the Knowledge page and `knowledge trust` show as "corrected on ticket …", the blocking ones being the manual
 * sections and Q&A rows to fix.
 */
export async function listCorrectedSources(redis: Redis, prefix: string, limit = 1_000): Promise<CorrectedSource[]> {
  const ids = await redis.zrevrange(trustKeys(prefix).corrected, 0, limit - 1);
  const [lists, superseded] = await Promise.all([readCorrections(redis, prefix, ids), readSuperseded(redis, prefix, ids)]);
  return ids.flatMap((sourceId, i) => {
    const corrections = lists[i] ?? [];
    if (corrections.length === 0) return [];
    const by = superseded.get(sourceId);
    const label = corrections[0]!.label || sourceLabelOfId(sourceId);
    return [{ sourceId, label, corrections, blocking: !by && corrections.some((c) => c.held), ...(by ? { supersededBy: by } : {}) }];
  });
}

/** The newer text recorded for each of `sourceIds` that has one ({@link supersedeCorrected}). */
async function readSuperseded(redis: Redis, prefix: string, sourceIds: readonly string[]): Promise<Map<string, string>> {
  if (sourceIds.length === 0) return new Map();
  const by = await redis.hmget(trustKeys(prefix).superseded, ...sourceIds);
  return new Map(sourceIds.flatMap((id, i) => (by[i] ? [[id, by[i]!] as const] : [])));
}

/** A source key without its text hash: `qa:faq.csv#51` of `qa:faq.csv#51#3f1c9a0b2d4e`. */
function keyWithoutHash(sourceId: string): string {
  return sourceId.slice(0, sourceId.lastIndexOf('#'));
}

/**
 * Records that an answer citing `agent`'s sources replaced corrected sources `correctedIds` with a newer text of the
 * same section or row: a cited source of the same kind and file, another text, with the name the correction recorded
 * ({@link sourceLabel}: the file and heading or question, so another section of the same manual file is none). Such a
 * corrected source is listed as replaced, no longer as one to fix (bug review B2: `knowledge trust` kept saying "fix
 * it and reindex" of a row fixed long ago); its corrections stay, so the old text is not trusted should it come back.
 * Called when a correction's gap closes (`learnGapsFrom`, src/knowledge/gaps.ts). Returns what it recorded.
 */
export async function supersedeCorrected(redis: Redis, prefix: string, correctedIds: readonly string[], agent: Pick<AgentResult, 'subtasks'>): Promise<Array<{ sourceId: string; by: string }>> {
  if (correctedIds.length === 0) return [];
  const cited = labelledSources(agent);
  const lists = await readCorrections(redis, prefix, correctedIds);
  const found = correctedIds.flatMap((sourceId, i) => {
    const labels = new Set((lists[i] ?? []).filter((c) => c.held).map((c) => c.label));
    const newer = cited.find((c) => c.key !== sourceId && `${c.kind}:${c.fileName}` === keyWithoutHash(sourceId) && labels.has(c.label));
    return newer ? [{ sourceId, by: newer.key }] : [];
  });
  if (found.length > 0) await redis.hset(trustKeys(prefix).superseded, ...found.flatMap((f) => [f.sourceId, f.by]));
  return found;
}

// ------------------------------------------------------------------------------------------------------------------
// Withdrawing a review.

// In one source's review list (KEYS[1]) and correction list (KEYS[2]), the entries of ticket ARGV[1] are removed; a
// list left empty takes its source out of the set that lists it (KEYS[3], KEYS[4]: sources, corrected; ARGV[2] the
// source id). One script, like FORGET_REVIEW_SENDERS, so a review pushed meanwhile is neither lost nor half-read.
// Returns { reviews removed, corrections removed }.
const DROP_REVIEW = new LuaScript(
  `
local removed = { 0, 0 }
for n, list in ipairs({ KEYS[1], KEYS[2] }) do
  local pattern = n == 1 and '^%S+ %S+ (%S+)' or '^(%S+) '
  for _, entry in ipairs(redis.call('LRANGE', list, 0, -1)) do
    if string.match(entry, pattern) == ARGV[1] then
      removed[n] = removed[n] + redis.call('LREM', list, 0, entry)
    end
  end
end
if removed[1] > 0 and redis.call('LLEN', KEYS[1]) == 0 then redis.call('ZREM', KEYS[3], ARGV[2]) end
if removed[2] > 0 and redis.call('LLEN', KEYS[2]) == 0 then redis.call('ZREM', KEYS[4], ARGV[2]) end
return removed
`,
  4,
);

/** One source's change by {@link dropReview}. */
export interface DroppedReview {
  sourceId: string;
  /** Review entries of the ticket taken out (normally 1). */
  reviews: number;
  /** Corrections of the ticket taken out. */
  corrections: number;
  before: TrustRecord;
  after: TrustRecord;
}

/**
 * Withdraws `ticketId`'s review (a mistaken approval, or a correction that corrected nothing of the source) from every
 * source's record: its review entries and its corrections, each source in one script. Returns the sources that
 * changed with their records before and after. The ticket's review is recorded when its reply is sent: withdrawing
 * it before then leaves the one the send will write.
 */
export async function dropReview(redis: Redis, prefix: string, ticketId: string, settings: TrustSettings): Promise<DroppedReview[]> {
  const k = trustKeys(prefix);
  const ids = [...new Set([...(await redis.zrange(k.sources, 0, -1)), ...(await redis.zrange(k.corrected, 0, -1))])];
  const before = await readTrust(redis, prefix, ids, settings);
  const changed: Array<Omit<DroppedReview, 'after'>> = [];
  for (const [i, sourceId] of ids.entries()) {
    const [reviews, corrections] = (await DROP_REVIEW.run(redis, [k.source(sourceId), k.corrections(sourceId), k.sources, k.corrected], [ticketId, sourceId])) as [number, number];
    if (reviews > 0 || corrections > 0) changed.push({ sourceId, reviews, corrections, before: before[i]! });
  }
  const after = await readTrust(redis, prefix, changed.map((c) => c.sourceId), settings);
  return changed.map((c, i) => ({ ...c, after: after[i]! }));
}

// ------------------------------------------------------------------------------------------------------------------
// A learned pair's first record.

// KEYS[1] the pair's review list, KEYS[2] the sources set, KEYS[3] the tickets erased on request; ARGV[1] the score
// (ms), ARGV[2] the cap, ARGV[3] the pair's source id, then the entries, oldest first. An entry of a ticket the list
// holds already is skipped. An entry of an erased ticket loses its sender field, as the erasure leaves the review in
// every other list: the entries were read before this write, and an erasure in between has already stripped the
// lists it found, this one not yet written (security review 18, LOW 4). Returns how many were added.
const CREDIT_REVIEWS = new LuaScript(
  `
local held = {}
for _, entry in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local id = string.match(entry, '^%S+ %S+ (%S+)')
  if id then held[id] = true end
end
local added = 0
for i = 4, #ARGV do
  local entry = ARGV[i]
  local id = string.match(entry, '^%S+ %S+ (%S+)')
  if id and not held[id] then
    if redis.call('SISMEMBER', KEYS[3], id) == 1 then entry = string.gsub(entry, ' ${SENDER_FIELD}%S*', '') end
    redis.call('LPUSH', KEYS[1], entry)
    held[id] = true
    added = added + 1
  end
end
if added > 0 then
  redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
  redis.call('ZADD', KEYS[2], ARGV[1], ARGV[3])
end
return added
`,
  3,
);

/**
 * The trust key a learned pair's Q&A hits carry: its text as the Q&A tool hands it to the agent, scrubbed again as
 * the tool serves it (a pair accepted before a scrub rule existed is cited by its served text).
 */
export function learnedPairSourceKey(pair: { id: number; question: string; answer: string }): string {
  return sourceKey(TOOL_SOURCE_KIND[QA_TOOL_NAME] ?? 'qa', `${LEARNED_ID_PREFIX}${pair.id}`, shownContent(servedLearnedContent(formatQaPair(pair))));
}

const creditLog = createLogger('trust');

/**
 * Gives a pair just accepted the reviews of the tickets that taught it, so accepting does not start it from nothing:
 * each taught ticket's approval as is (`approved_as_is`: the reviewer sent the draft the pair's answer was cut from
 * unchanged) is copied, as its review list holds it (sender digest included, so one customer still counts once), into
 * the pair's list, in one write. Taught tickets are all of a new pair's; for an update only the ticket whose reply the
 * new text is (the older ones approved another text). A correction (facts changed), an edited approval or a
 * rejection is never copied: only approvals as is vouch for the text. Nor is anything copied to an answer the operator
 * rewrote, when accepting or with `knowledge edit` before (the pair's `answerEdited`): the approvals saw the
 * text it replaced. An entry of a ticket erased on request meanwhile is copied without its sender. Never throws: the
 * pair is accepted either way, and a failure only leaves it to earn its reviews. Returns how many reviews were copied.
 */
export async function creditTaughtReviews(store: LearnedAnswerStore, accepted: AcceptOutcome, now = new Date()): Promise<number> {
  if (accepted.outcome !== 'accepted' || accepted.pair.answerEdited) return 0;
  try {
    const [redis, prefix] = [store.connection, store.prefix];
    const { pair, updated } = accepted;
    const taught = updated ? [pair.ticketId] : pair.ticketIds;
    const k = trustKeys(prefix);
    const sources = await redis.zrange(k.sources, 0, -1);
    const pipeline = redis.pipeline();
    for (const source of sources) pipeline.lrange(k.source(source), 0, -1);
    const lists = ((await pipeline.exec()) ?? []).map(([err, entries]) => {
      if (err) throw err;
      return entries as string[];
    });
    const found = new Map<string, string>();
    for (const entries of lists) {
      for (const entry of entries) {
        const review = readReviewEntry(entry);
        if (review?.kind === 'approved_as_is' && !review.factsChanged && taught.includes(review.ticketId) && !found.has(review.ticketId)) found.set(review.ticketId, entry);
      }
    }
    const entries = taught.flatMap((id) => found.get(id) ?? []);
    if (entries.length === 0) return 0;
    const key = learnedPairSourceKey(pair);
    return Number(await CREDIT_REVIEWS.run(redis, [k.source(key), k.sources, erasedTicketsKey(prefix)], [now.getTime(), TRUST_HISTORY_CAP, key, ...entries]));
  } catch (err) {
    creditLog.warn({ err, pairId: accepted.pair.id }, 'could not copy the taught tickets’ reviews to the accepted pair; it earns its own');
    return 0;
  }
}
