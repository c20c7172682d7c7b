/**
 * The settings an agent worker decides send or park with are the desk's, not each machine's: a second agent-worker
 * machine started with only REDIS_URL and the model settings in its `.env` ran `REVIEW_MODE=learn` (the default)
 * beside a main machine on `auto`, so the same question was sent or parked depending on which worker took it, and a
 * worker left on the default beside `always` sent replies nobody reviewed. Nothing warned.
 *
 * The poller (one per desk) records at start the decision settings of its machine ({@link recordDeskSettings}), and
 * again whenever Redis lost the record (checked every minute and on reconnecting); an
 * agent worker compares its own with them ({@link DeskSettingsMonitor}) when it starts, every few seconds after and
 * before each ticket, as it does its indexes (`src/search/index-freshness.ts`). While any differs it takes no tickets
 * (the mail waits in the queue), says once in its log and in its report for `/readyz` which variables differ and
 * what to do, and takes tickets again once they agree, whichever side was changed. With no record (no poller has
 * started yet, or one from before the record) it takes tickets as before.
 *
 * A sensitive variable (config.ts's VARIABLES table) is recorded as a digest, never its value; none of the decision
 * settings is sensitive today, the digest keeps a future one from landing in Redis and `/readyz` as plain text.
 *
 * | key (P = QUEUE_PREFIX) | type   | value                                                                            |
 * |------------------------|--------|----------------------------------------------------------------------------------|
 * | `P:desk:settings`      | string | `{host, pid, at, settings: {NAME: recorded form}}` (JSON; `at` Redis's clock, ms) |
 *
 * (No queue is named `desk`.) The key is desk-wide and holds nothing of a customer, so erasure does not touch it.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { VARIABLES, type Config, type VariableName } from '../config.js';
import type { Logger } from '../logger.js';
import { normaliseAddress, parseAddressList } from '../mail/addresses.js';
import { produce } from '../queues/connection.js';
import { PeriodicCheck } from './periodic-check.js';
import { redisTimeMs } from './role-status.js';

/**
 * The variables `answer-ticket` decides send, park or ignore with (its `config` Pick and the checks it calls:
 * `classify.ts`, `trust.ts`, the reply and run limits, foreign links, repeated questions). Not the model, search or
 * timing settings: those change how a draft reads or how fast it comes, not whether a person sees it first.
 */
export const DESK_SETTING_NAMES = [
  'REVIEW_MODE',
  'TRUST_MIN_REVIEWS',
  'TRUST_MIN_AS_IS',
  'TRUST_WINDOW',
  'TRUST_MAX_EDIT_RATIO',
  'REPEATED_QUESTION_HOURS',
  'AUTO_REPLY_LIMIT_PER_HOUR',
  'AUTO_REPLY_LIMIT_TOTAL_PER_HOUR',
  'AGENT_RUN_LIMIT_PER_HOUR',
  'AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR',
  'AGENT_RUN_LIMIT_TOTAL_PER_HOUR',
  'TRUSTED_REPLY_TO_DOMAINS',
  'TRUSTED_LINK_DOMAINS',
  'SPAM_ACTION',
  'SPAM_HEADER',
  'SPAM_HEADER_VALUE',
  'MAIL_FROM',
  'SUPPORT_ADDRESSES',
  'SUPPORT_GROUP_ADDRESSES',
  'AUTHSERV_ID',
  'PRODUCT_NAME',
] as const satisfies readonly VariableName[];

/** One of {@link DESK_SETTING_NAMES}. */
export type DeskSettingName = (typeof DESK_SETTING_NAMES)[number];

/** The configuration the decision settings are read from. */
export type DeskSettingsConfig = Pick<Config, DeskSettingName>;

/** Each decision setting in its recorded form: its value as JSON, or `sha256:<hex>` for a sensitive one. */
export type DeskSettings = Record<string, string>;

/** What the poller recorded. */
export interface RecordedDeskSettings {
  /** The poller's machine. */
  host: string;
  pid: number;
  /** When it recorded them (Redis's clock, epoch ms). */
  at: number;
  settings: DeskSettings;
}

/** One variable that differs: its values here and on the poller's machine, as set in a `.env` (absent when sensitive). */
export interface DifferingSetting {
  name: string;
  here?: string;
  there?: string;
}

/** Why an agent worker takes no tickets: its decision settings differ from the ones the poller recorded. */
export interface DeskSettingsMismatch {
  /** The poller's machine, where the recorded settings came from. */
  pollerHost: string;
  differing: DifferingSetting[];
}

const DIGEST_PREFIX = 'sha256:';
/** Longest value shown in a log line or `/readyz`: a long list is named, not spelled out. */
const MAX_SHOWN_CHARS = 120;

/** The Redis key of the recorded settings. */
export function deskSettingsKey(prefix: string): string {
  if (!prefix) throw new TypeError('deskSettingsKey: prefix is required');
  return `${prefix}:desk:settings`;
}

/** Lists of domains: matched without case (`Docs.Example.com` trusts `docs.example.com`). */
const DOMAIN_LISTS: ReadonlySet<string> = new Set<DeskSettingName>(['TRUSTED_REPLY_TO_DOMAINS', 'TRUSTED_LINK_DOMAINS']);
/** Lists of our addresses (bare or `Name <addr>`): matched by address only, without case (`ownAddressMatcher`). */
const ADDRESS_LISTS: ReadonlySet<string> = new Set<DeskSettingName>(['SUPPORT_ADDRESSES', 'SUPPORT_GROUP_ADDRESSES']);

/**
 * MAIL_FROM as it decides: its display name as written (it is the reply's From line, and the name an imitator is
 * judged by) and its address without case; how the name is quoted does not count. As written when it holds no address.
 */
function mailFromForm(value: string): string {
  const [first] = parseAddressList(value);
  if (!first) return value;
  const address = first.address.toLowerCase();
  return first.name ? `${first.name} <${address}>` : address;
}

/**
 * A value in a form two machines agree on when they mean the same: a list's order and repeats do not count (every
 * decision list is a set of domains, addresses or ids), an empty string is the same as unset, and spellings the
 * checks read alike (a domain's or an address's case, MAIL_FROM's quoting) are one.
 */
function normalised(name: DeskSettingName, value: unknown): unknown {
  if (value === undefined || value === '') return null;
  if (name === 'MAIL_FROM' && typeof value === 'string') return mailFromForm(value);
  if (Array.isArray(value)) {
    const items = value.map((item) => {
      const text = String(item);
      if (DOMAIN_LISTS.has(name)) return text.toLowerCase();
      if (ADDRESS_LISTS.has(name)) return normaliseAddress(text) ?? text.toLowerCase();
      return text;
    });
    return [...new Set(items)].sort();
  }
  return value;
}

/** Whether config.ts declares `name` sensitive (an unknown name counts as sensitive: nothing is shown that may be). */
function isSensitive(name: string): boolean {
  const spec = (VARIABLES as Record<string, { sensitive: boolean } | undefined>)[name];
  return spec?.sensitive !== false;
}

/** The decision settings of `config` in their recorded form. Pure. */
export function deskSettingsOf(config: DeskSettingsConfig): DeskSettings {
  const settings: DeskSettings = {};
  for (const name of DESK_SETTING_NAMES) {
    const json = JSON.stringify(normalised(name, config[name]));
    settings[name] = isSensitive(name) ? `${DIGEST_PREFIX}${createHash('sha256').update(`${name}\0${json}`).digest('hex').slice(0, 32)}` : json;
  }
  return settings;
}

/**
 * The variables whose recorded forms differ, in {@link DESK_SETTING_NAMES} order. Only variables both sides know
 * count: a poller of another version records more or fewer, and a variable one side does not have decides nothing
 * there. Empty when nothing is recorded. Pure.
 */
export function differingSettings(own: DeskSettings, recorded: DeskSettings | undefined): string[] {
  if (!recorded) return [];
  return Object.keys(own).filter((name) => Object.hasOwn(recorded, name) && recorded[name] !== own[name]);
}

/** A recorded form as it is written in a `.env` (`auto`, `a.example,b.example`, empty), or undefined for a digest. */
function shown(form: string | undefined): string | undefined {
  if (form === undefined || form.startsWith(DIGEST_PREFIX)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(form);
  } catch {
    return undefined;
  }
  const text = value === null ? '' : Array.isArray(value) ? value.join(',') : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS)}…` : text;
}

/** What keeps an agent worker with `own` settings from taking tickets, or undefined when nothing does. Pure. */
export function deskSettingsMismatch(own: DeskSettings, recorded: RecordedDeskSettings | undefined): DeskSettingsMismatch | undefined {
  const names = differingSettings(own, recorded?.settings);
  if (!recorded || names.length === 0) return undefined;
  const differing = names.map((name): DifferingSetting => {
    const [here, there] = [shown(own[name]), shown(recorded.settings[name])];
    return { name, ...(here !== undefined ? { here } : {}), ...(there !== undefined ? { there } : {}) };
  });
  return { pollerHost: recorded.host, differing };
}

/** Words of {@link describeDeskSettingsMismatch}: who it is about and where the fix is made. */
export interface DeskSettingsWords {
  /** e.g. `this agent worker`, `agent worker hostB#4242`. */
  who: string;
  /** e.g. `this machine`, `that machine`. */
  where: string;
}

/** A shown value as a sentence quotes it: `"auto"`, or `empty`. */
function quoted(value: string): string {
  return value === '' ? 'empty' : JSON.stringify(value);
}

/**
 * One sentence: who takes no tickets, which variables differ (with both values when they may be shown), and the two
 * fixes, named alike: neither side is presumed right (a poller alone with its IMAP settings records the defaults, and
 * then it is the poller's machine that is wrong). For the worker's log and `/readyz` alike.
 */
export function describeDeskSettingsMismatch(mismatch: DeskSettingsMismatch, words: DeskSettingsWords): string {
  const { pollerHost, differing } = mismatch;
  const listed = differing
    .map((d) => (d.here !== undefined && d.there !== undefined ? `${d.name} is ${quoted(d.here)} here and ${quoted(d.there)} there` : `${d.name} (not shown: sensitive) differs`))
    .join(', ');
  return (
    `${words.who} takes no tickets: its decision settings differ from those of ${pollerHost} (the poller's machine): ${listed}; ` +
    `make them the same — on ${words.where}, or on ${pollerHost} and restart its poller; the mail waits in the queue`
  );
}

/**
 * The poller's warning when the settings it records differ from the record they replace (undefined: none replaced,
 * or nothing differs): each changed variable with its new and old values, as the scheduler warns of a replaced
 * schedule. Worded for the case this catches: a poller on a machine whose `.env` lacks the settings records the
 * defaults and stops every agent worker set otherwise. Pure.
 */
export function describeReplacedDeskSettings(replaced: RecordedDeskSettings | undefined, record: RecordedDeskSettings): string | undefined {
  const names = differingSettings(record.settings, replaced?.settings);
  if (!replaced || names.length === 0) return undefined;
  const changes = names.map((name) => {
    const [now, was] = [shown(record.settings[name]), shown(replaced.settings[name])];
    return now !== undefined && was !== undefined ? `${name} ${quoted(now)} (was ${quoted(was)})` : `${name} (not shown: sensitive)`;
  });
  return (
    `this poller's decision settings replace those ${replaced.host} recorded: ${changes.join(', ')}. ` +
    "Expected once after they changed in this machine's .env; agent workers whose own differ take no tickets until they agree. " +
    "If this machine's .env lacks them (a poller with only its IMAP settings records the defaults), set them here as on the agent workers' machines and restart this poller."
  );
}

/** What {@link recordDeskSettings} did. */
export interface DeskSettingsRecording {
  /** The record written (or, when `onlyIfMissing` found one, the one that would have been). */
  record: RecordedDeskSettings;
  /** False when `onlyIfMissing` found a record and left it. */
  written: boolean;
  /** The record this one replaced (undefined: none, an unreadable one, or `onlyIfMissing`). */
  replaced?: RecordedDeskSettings;
}

/**
 * Records `config`'s decision settings as the desk's: the poller calls it when it starts (after Redis answers), and
 * with `onlyIfMissing` every minute and when Redis reconnects, so a record Redis lost (restarted without persistence,
 * FLUSHDB) is written again: without one every agent worker takes tickets whatever its settings. Otherwise it
 * overwrites the record of an earlier start and returns it as `replaced` (read first: one poller per desk, so nothing
 * writes in between that matters).
 */
export async function recordDeskSettings(
  redis: Redis,
  prefix: string,
  config: DeskSettingsConfig,
  host: string = hostname(),
  { onlyIfMissing = false }: { onlyIfMissing?: boolean } = {},
): Promise<DeskSettingsRecording> {
  const record: RecordedDeskSettings = { host, pid: process.pid, at: await redisTimeMs(redis), settings: deskSettingsOf(config) };
  const key = deskSettingsKey(prefix);
  if (onlyIfMissing) {
    const written = (await produce(redis, () => redis.set(key, JSON.stringify(record), 'NX'))) === 'OK';
    return { record, written };
  }
  const replaced = parseDeskSettings(await produce(redis, () => redis.get(key)));
  await produce(redis, () => redis.set(key, JSON.stringify(record)));
  return { record, written: true, ...(replaced ? { replaced } : {}) };
}

/** The recorded settings, or undefined when none are (or the record is unreadable: as before any record). */
export async function readDeskSettings(redis: Redis, prefix: string): Promise<RecordedDeskSettings | undefined> {
  return parseDeskSettings(await produce(redis, () => redis.get(deskSettingsKey(prefix))));
}

/** A record as stored, or undefined when there is none or it is unreadable. */
function parseDeskSettings(json: string | null): RecordedDeskSettings | undefined {
  if (!json) return undefined;
  try {
    const record = JSON.parse(json) as Partial<RecordedDeskSettings>;
    if (typeof record.host !== 'string' || typeof record.settings !== 'object' || record.settings === null) return undefined;
    const settings = Object.fromEntries(Object.entries(record.settings).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    return { host: record.host, pid: Number(record.pid) || 0, at: Number(record.at) || 0, settings };
  } catch {
    return undefined;
  }
}

/** Options of {@link DeskSettingsMonitor}. */
export interface DeskSettingsMonitorOptions {
  /** Reads the record (the producer connection). */
  redis: Redis;
  prefix: string;
  /** This worker's decision settings ({@link deskSettingsOf}). */
  own: DeskSettings;
  /** Time between two checks (the index check's). */
  intervalMs: number;
  /**
   * How long a check that would newly stop the worker waits to look again: with `npm start` after a settings change
   * the agent worker may read the previous start's record a moment before this start's poller replaces it.
   */
  settleMs: number;
  /** Called whenever the mismatch changed (undefined: none); the monitor waits for it. Its errors are logged. */
  onChange: (mismatch: DeskSettingsMismatch | undefined, previous: DeskSettingsMismatch | undefined) => void | Promise<void>;
  log: Logger;
}

/**
 * Compares this worker's decision settings with the recorded ones when started, every
 * {@link DeskSettingsMonitorOptions.intervalMs} after, and whenever asked ({@link check}: the mismatch, undefined when
 * none, from a check that starts after the call, so a record written just before is seen). A check is one Redis read;
 * while Redis cannot be read the last record seen stands.
 */
export class DeskSettingsMonitor extends PeriodicCheck<DeskSettingsMismatch | undefined> {
  private latest: DeskSettingsMismatch | undefined;
  private recorded: RecordedDeskSettings | undefined;

  constructor(private readonly options: DeskSettingsMonitorOptions) {
    super({ intervalMs: options.intervalMs, log: options.log, failure: 'desk settings check failed' });
  }

  protected async checkNow(): Promise<DeskSettingsMismatch | undefined> {
    let next = await this.assess();
    if (next && !this.latest && !this.stopped) {
      await new Promise((resolve) => setTimeout(resolve, this.options.settleMs));
      next = await this.assess();
    }
    if (JSON.stringify(next) !== JSON.stringify(this.latest)) {
      const previous = this.latest;
      this.latest = next;
      try {
        await this.options.onChange(next, previous);
      } catch (err) {
        this.options.log.error({ err }, 'desk settings listener failed');
      }
    }
    return next;
  }

  private async assess(): Promise<DeskSettingsMismatch | undefined> {
    try {
      this.recorded = await readDeskSettings(this.options.redis, this.options.prefix);
    } catch (err) {
      this.options.log.debug({ err: (err as Error).message }, 'could not read the desk settings; comparing with the last ones read');
    }
    return deskSettingsMismatch(this.options.own, this.recorded);
  }
}
