/**
 * Earned autonomy (`REVIEW_MODE=learn`): a draft goes out unreviewed only when every source it cited has a track
 * record of drafts that people approved as they were.
 *
 * A source is one search result the agent used: a manual section, a Q&A pair, a learned pair — identified by where it
 * came from and a hash of its text ({@link citedSources}), so a reindex that changes a section's text gives it a new
 * identity with an empty record, and the old record no longer applies.
 *
 * The record is derived from outcomes, never counted separately: when a reviewed draft ends (approved and sent, or
 * rejected; see {@link isReview}), the ticket store pushes that outcome onto the list of every source the draft cited, in the same atomic
 * write that records the outcome (src/tickets/ticket-store.ts). Trust is then read from the latest
 * `TRUST_WINDOW` entries ({@link judgeTrust}). Keys (P = QUEUE_PREFIX):
 *
 * | key                    | type       | content                                                                   |
 * |------------------------|------------|---------------------------------------------------------------------------|
 * | `P:trust:src:<source>` | list       | newest first: `<outcome> <edit ratio> <ticket id>`, at most {@link TRUST_HISTORY_CAP} |
 * | `P:trust:sources`      | sorted set | every source with a record, score = time of its latest review (ms)        |
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { TOOL_SOURCE_KIND } from '../agent/tools.js';
import type { AgentResult } from '../agent/types.js';
import type { Config } from '../config.js';
import { HEADING_SEPARATOR } from '../knowledge/sections.js';
import { LuaScript } from './lua.js';
import type { OutcomeKind, TicketOutcome } from './outcome.js';

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

// Every search result of the subtasks that completed, one per source key, first occurrence kept.
function citedHits(agent: Pick<AgentResult, 'subtasks'>): CitedHit[] {
  const seen = new Map<string, CitedHit>();
  for (const subtask of agent.subtasks) {
    if (!subtask.isCompleted) continue;
    for (const attempt of subtask.toolResults) {
      for (const call of attempt) {
        const kind = TOOL_SOURCE_KIND[call.toolName] ?? call.toolName;
        for (const r of call.results) {
          const hash = createHash('sha256').update(r.content.replace(/\r\n?/g, '\n').trim()).digest('hex').slice(0, HASH_CHARS);
          const key = `${kind}:${r.fileName}#${hash}`;
          if (!seen.has(key)) seen.set(key, { key, kind, fileName: r.fileName, content: r.content });
        }
      }
    }
  }
  return [...seen.values()];
}

/**
 * The distinct sources behind a draft: every search result of the subtasks that completed (a subtask that ran out of
 * tries answered "not found" and relied on nothing), as `sourcesOf` in src/agent/agent.ts counts them, but one per
 * section or pair text rather than per file.
 */
export function citedSources(agent: Pick<AgentResult, 'subtasks'>): CitedSource[] {
  return citedHits(agent).map(({ key, kind, fileName }) => ({ key, kind, fileName }));
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
  return { sources: `${prefix}:trust:sources`, listPrefix, source: (key: string) => `${listPrefix}${key}` } as const;
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
}

/**
 * Trust from a source's reviews (newest first): of the latest TRUST_WINDOW, the newest of each sender count; it is
 * trusted with at least TRUST_MIN_REVIEWS of them and at least TRUST_MIN_AS_IS of them approved as is. An approval
 * edited by more than TRUST_MAX_EDIT_RATIO, one that corrected a fact, or one whose ratio is unknown, counts as not as
 * is, like a rejection.
 */
export function judgeTrust(sourceId: string, reviews: readonly Review[], settings: TrustSettings): TrustRecord {
  const window = onePerSender(reviews.slice(0, settings.TRUST_WINDOW));
  const asIs = window.filter((r) => isAsIs(r, settings)).length;
  const record: TrustRecord = { sourceId, reviews: window.length, approvedAsIs: asIs, trusted: false };
  if (window.length < settings.TRUST_MIN_REVIEWS) {
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

/** The records of `sourceIds`, in their order, from one pipelined read. */
export async function readTrust(redis: Redis, prefix: string, sourceIds: readonly string[], settings: TrustSettings): Promise<TrustRecord[]> {
  const reviews = await readReviews(redis, prefix, sourceIds, settings);
  return sourceIds.map((id, i) => judgeTrust(id, reviews[i] ?? [], settings));
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
  const lists = await readReviews(redis, prefix, sourceIds, settings);
  return sourceIds.map((id, i) => {
    const recorded = lists[i] ?? [];
    const reviews = pending && !recorded.some((r) => r.ticketId === pending.ticketId) ? [pending, ...recorded] : recorded;
    return { record: judgeTrust(id, reviews, settings), toGo: approvalsUntilTrusted(reviews, settings) };
  });
}

/**
 * A source's standing in words: `3 of 5 approved unchanged — 2 more unchanged approvals until replies citing it go
 * out on their own`, `5 of its last 6 reviews approved unchanged — …` once a review in the window was not as is, or
 * `trusted: …`.
 */
export function describeStanding(standing: TrustStanding): string {
  const { record, toGo } = standing;
  const ofLast = `${record.approvedAsIs} of its last ${record.reviews} reviews approved unchanged`;
  if (record.trusted) return `trusted: ${ofLast}`;
  const sofar = record.approvedAsIs === record.reviews ? `${record.approvedAsIs} of ${record.approvedAsIs + toGo} approved unchanged` : ofLast;
  return `${sofar} — ${toGo} more unchanged ${toGo === 1 ? 'approval' : 'approvals'} until replies citing it go out on their own`;
}

/** Every source with a record, most recently reviewed first (at most `limit`). */
export async function listTrust(redis: Redis, prefix: string, settings: TrustSettings, limit = 10_000): Promise<TrustRecord[]> {
  const ids = await redis.zrevrange(trustKeys(prefix).sources, 0, limit - 1);
  return readTrust(redis, prefix, ids, settings);
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
 * every completed subtask cites one (see {@link unsourcedSubtasks}) and every cited source is trusted; otherwise the
 * reason names what is missing ("not yet trusted: manual:guide/login.md#… has 3 of 5 reviews", "not yet trusted:
 * subtask 「…」 cites no source").
 */
export async function learnVerdict(redis: Redis, prefix: string, agent: Pick<AgentResult, 'subtasks'>, settings: TrustSettings): Promise<LearnVerdict> {
  const cited = citedSources(agent);
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
