/**
 * Who may use the dashboard: HTTP Basic authentication against DASHBOARD_USER / DASHBOARD_PASSWORD, throttled per
 * client address and per known browser ({@link LoginThrottle}, {@link KnownDevices}), and CSRF tokens for the review
 * page's forms.
 *
 * Why CSRF tokens although every request is authenticated: browsers attach cached Basic credentials to any request
 * to the dashboard's origin, including a form another site submits. The JSON API is not exposed to that, because its
 * state-changing calls need `Content-Type: application/json` or an `X-Requested-With` header even without a body,
 * which a cross-site form cannot send and a cross-site `fetch` can only send after a CORS preflight that the dashboard
 * never answers positively, and it refuses `Origin: null` (see `apiRequestGuard` in security.ts).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { ConfigError, type Config } from '../config.js';
import type { Logger } from '../logger.js';
import { weakDashboardPassword } from './password-strength.js';

/** How the dashboard authenticates, resolved from the configuration by {@link resolveAuth}. */
export type DashboardAuth =
  | { mode: 'basic'; user: string; password: string }
  /** No authentication; the server then listens on loopback only. */
  | { mode: 'off' };

/**
 * The authentication settings, or a {@link ConfigError} naming the variables when a password is missing while
 * authentication is on: a dashboard that can approve replies must never run open by accident. Also when the password
 * is weak and DASHBOARD_HOST is not loopback ({@link weakDashboardPassword}): the new-browser throttle still lets the
 * whole network try some 10 000 passwords a day against user `admin`.
 */
export function resolveAuth(config: Pick<Config, 'DASHBOARD_AUTH' | 'DASHBOARD_USER' | 'DASHBOARD_PASSWORD' | 'DASHBOARD_HOST'>): DashboardAuth {
  if (config.DASHBOARD_AUTH === 'off') return { mode: 'off' };
  if (!config.DASHBOARD_PASSWORD) {
    throw new ConfigError([
      'DASHBOARD_PASSWORD is required by the dashboard (HTTP Basic password for DASHBOARD_USER); ' +
        'set it, or set DASHBOARD_AUTH=off to run without authentication on 127.0.0.1 only',
    ]);
  }
  const weak = weakDashboardPassword(config);
  if (weak?.refuse) throw new ConfigError([weak.message]);
  return { mode: 'basic', user: config.DASHBOARD_USER, password: config.DASHBOARD_PASSWORD };
}

/** The realm browsers show in their login prompt. */
export const AUTH_REALM = 'helpdesk-worker dashboard';

/** User and password of an `Authorization: Basic …` header, or `undefined` when absent or malformed. */
export function parseBasicAuth(header: string | undefined): { user: string; password: string } | undefined {
  if (!header) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Compares two secrets in constant time. Both sides are hashed first, so the comparison neither fails early on a
 * length mismatch nor reveals the expected length.
 */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** True when an `Authorization: Bearer …` header carries `token` (constant-time compare). */
export function bearerTokenOf(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match !== null && secretsEqual(match[1]!, token);
}

/** True when the credentials match; both fields are always compared, so timing does not tell which one was wrong. */
export function credentialsMatch(given: { user: string; password: string }, expected: { user: string; password: string }): boolean {
  const userOk = secretsEqual(given.user, expected.user);
  const passwordOk = secretsEqual(given.password, expected.password);
  return userOk && passwordOk;
}

/** The user recorded as the actor of operator actions when authentication is off. */
export const ANONYMOUS_OPERATOR = 'local';

/** Distinct wrong passwords a client may try within {@link LOGIN_THROTTLE_WINDOW_MS} before it must wait. */
export const LOGIN_FAILURES_ALLOWED = 10;
/**
 * Distinct wrong passwords all clients of one IPv6 /48 may try together within the window. A /48 is what one site (a
 * subscriber, a hosting customer) is handed: 65 536 /64s, so counted per /64 alone it would give one attacker some
 * 655 000 guesses. Three clients' worth, so colleagues at one site mistyping do not lock each other out, and below
 * {@link LOGIN_FAILURES_ALLOWED_FROM_NEW_BROWSERS}, so one site cannot spend that total alone.
 *
 * IPv4 has no such count per /24: every IPv4 address costs its holder money, and a /24 is as often a carrier's or a
 * cloud's, shared by strangers, so one of them could lock out the others' new browsers for nothing the total below
 * does not already bound.
 */
export const LOGIN_FAILURES_ALLOWED_PER_SITE = 30;
/**
 * Distinct wrong passwords all browsers without a known-device cookie (see {@link KnownDevices}) may try together
 * within the window, from however many addresses: spreading guesses over addresses does not multiply them. Once it is
 * spent, every such browser waits, with the right password too, while browsers that logged in before still get in,
 * so an attacker can lock out only new browsers, never the operators.
 */
export const LOGIN_FAILURES_ALLOWED_FROM_NEW_BROWSERS = 100;
/** The window of the failures allowed ({@link LOGIN_FAILURES_ALLOWED} and the others). */
export const LOGIN_THROTTLE_WINDOW_MS = 15 * 60_000;
/** Addresses and sites tracked at most, and known browsers at most, so a flood of addresses cannot exhaust memory. */
const MAX_TRACKED_CLIENTS = 10_000;

/** Whom a login attempt is counted against: a browser by its known-device id, or else the address it comes from. */
export type LoginClient = { device: string } | { address: string };

/**
 * A count a failed login adds to: a known browser's own; else its address's (an IPv6 client's /64), its IPv6 site's
 * (/48) and the total of all browsers that never logged in.
 */
export type LoginScope = 'browser' | 'address' | 'site' | 'new browsers';

/** One counted failure: when, and an HMAC of the credentials tried (never the password itself). */
interface Failure {
  at: number;
  guess: string;
}

/** The failures counted under one key, and how many within the window the key allows. */
interface Tally {
  allowed: number;
  failures: Failure[];
}

function withinWindow(failures: readonly Failure[], now: number): Failure[] {
  return failures.filter((failure) => failure.at > now - LOGIN_THROTTLE_WINDOW_MS);
}

/** Seconds until a tally allows another try, or undefined when it does now. */
function waitOf(tally: Tally | undefined, now: number): number | undefined {
  const recent = withinWindow(tally?.failures ?? [], now);
  if (!tally || recent.length < tally.allowed) return undefined;
  // Failures are kept up to `allowed`, so the first is the one whose ageing out lets the key try again.
  return Math.max(1, Math.ceil((recent[0]!.at + LOGIN_THROTTLE_WINDOW_MS - now) / 1000));
}

/**
 * Failures per key, at most `capacity` keys, in the order of their latest failure. A full table makes room by
 * forgetting the least recently failed key that is not throttled. It never forgets a throttled key, or that client
 * would start over; while every key is throttled it has no room, and a client it does not know yet must wait.
 */
class FailureTable {
  private readonly tallies = new Map<string, Tally>();

  constructor(private readonly capacity: number) {}

  /** Seconds until `key` may try again, or undefined when it may now. */
  wait(key: string, now: number): number | undefined {
    return waitOf(this.tallies.get(key), now);
  }

  /** True when those of `keys` not in the table yet would fit, forgetting only keys that are not throttled. */
  hasRoomFor(keys: readonly string[], now: number): boolean {
    return this.forgettable(keys, now) !== undefined;
  }

  /** Seconds until some key of the table is no longer throttled: when {@link hasRoomFor} may turn true. */
  secondsUntilRoom(now: number): number {
    let soonest = Math.ceil(LOGIN_THROTTLE_WINDOW_MS / 1000);
    for (const tally of this.tallies.values()) soonest = Math.min(soonest, waitOf(tally, now) ?? soonest);
    return Math.max(1, soonest);
  }

  /**
   * Records a failure under `key` (a guess already counted within the window is not counted again), making room
   * without forgetting `keep` (the client's other keys here). True when this failure used up what the key allows.
   */
  record(key: string, allowed: number, guess: string, now: number, keep: readonly string[]): boolean {
    const recent = withinWindow(this.tallies.get(key)?.failures ?? [], now);
    const before = recent.length;
    if (!recent.some((failure) => failure.guess === guess)) recent.push({ at: now, guess });
    // Without room (only for a client that fails without being asked about first) the failure is kept all the same:
    // forgetting a throttled key is what the bound must never cost.
    for (const forgotten of this.forgettable([key, ...keep], now) ?? []) this.tallies.delete(forgotten);
    this.tallies.delete(key);
    this.tallies.set(key, { allowed, failures: recent.slice(-allowed) });
    return before < allowed && recent.length >= allowed;
  }

  /**
   * The keys to forget so that those of `keys` missing here fit: the least recently failed that are not throttled
   * and not among `keys`; undefined when there are not enough of them.
   */
  private forgettable(keys: readonly string[], now: number): string[] | undefined {
    const needed = this.tallies.size + keys.filter((key) => !this.tallies.has(key)).length - this.capacity;
    const chosen: string[] = [];
    if (needed <= 0) return chosen;
    for (const [key, tally] of this.tallies) {
      if (keys.includes(key) || waitOf(tally, now) !== undefined) continue;
      chosen.push(key);
      if (chosen.length === needed) return chosen;
    }
    return undefined;
  }
}

/** One count a client's failures go to. */
interface Counter {
  scope: LoginScope;
  table: FailureTable;
  key: string;
  allowed: number;
}

/** The limits of a {@link LoginThrottle}; the defaults are the exported constants. */
export interface LoginThrottleOptions {
  /** Per address (an IPv6 client's /64) and per known browser; {@link LOGIN_FAILURES_ALLOWED}. */
  allowed?: number;
  /** Per IPv6 /48; {@link LOGIN_FAILURES_ALLOWED_PER_SITE}. */
  allowedPerSite?: number;
  /** All browsers without a known-device cookie together; {@link LOGIN_FAILURES_ALLOWED_FROM_NEW_BROWSERS}. */
  allowedFromNewBrowsers?: number;
  /** Addresses and sites tracked at most, and known browsers at most (10 000 each). */
  maxTrackedClients?: number;
  /**
   * Whether browsers without a known-device cookie also share the total of {@link LOGIN_FAILURES_ALLOWED_FROM_NEW_BROWSERS}
   * (default true). The metrics token's throttle has none: a scraper never keeps a cookie, so such a total would let
   * strangers' guesses from many addresses deny it the scrape.
   */
  newBrowsersTotal?: boolean;
}

/**
 * Failed dashboard logins in this process, counted per client (see {@link LoginClient}): a browser that logged in
 * before (see {@link KnownDevices}) on its own; any other by its address (see {@link loginClientKey}), its IPv6 site
 * (see {@link loginSiteKey}) and the total of all such browsers. Once a count reaches what it allows within
 * {@link LOGIN_THROTTLE_WINDOW_MS} ({@link LOGIN_FAILURES_ALLOWED}, {@link LOGIN_FAILURES_ALLOWED_PER_SITE},
 * {@link LOGIN_FAILURES_ALLOWED_FROM_NEW_BROWSERS}), the clients it covers wait until its oldest failure leaves the
 * window, so a password cannot be guessed at network speed, nor from many addresses at once.
 *
 * A successful login does not clear a client's failures: behind a reverse proxy or a NAT many people share one
 * address, and an operator's logins would otherwise reset a stranger's count for ever. Failures only age out. So that
 * an operator is not locked out by failures that tell nobody anything new, a wrong password the client already tried
 * within the window is not counted again: a tab or script still sending an old password is one failure, not one per
 * request.
 */
export class LoginThrottle {
  private readonly allowed: number;
  private readonly allowedPerSite: number;
  private readonly allowedFromNewBrowsers: number;
  private readonly newBrowsersTotal: boolean;
  /** IPv4 addresses, IPv6 /64s and /48s. */
  private readonly addresses: FailureTable;
  /** Known browsers apart, so that no flood of addresses can fill their table and lock the operators out. */
  private readonly devices: FailureTable;
  /** The total of browsers without a known-device cookie: one key, never forgotten. */
  private readonly newBrowsers = new FailureTable(1);
  /** Keys the fingerprints of wrong guesses, so the process never holds a password someone mistyped. */
  private readonly guessKey = randomBytes(32);

  constructor(options: LoginThrottleOptions = {}) {
    this.allowed = options.allowed ?? LOGIN_FAILURES_ALLOWED;
    this.allowedPerSite = options.allowedPerSite ?? LOGIN_FAILURES_ALLOWED_PER_SITE;
    this.allowedFromNewBrowsers = options.allowedFromNewBrowsers ?? LOGIN_FAILURES_ALLOWED_FROM_NEW_BROWSERS;
    this.newBrowsersTotal = options.newBrowsersTotal ?? true;
    this.addresses = new FailureTable(options.maxTrackedClients ?? MAX_TRACKED_CLIENTS);
    this.devices = new FailureTable(options.maxTrackedClients ?? MAX_TRACKED_CLIENTS);
  }

  /**
   * Seconds the client must wait, or undefined when it may try: the longest wait of its counts, or, when a table is
   * full of throttled clients and this one is not among them, until one of those is free.
   */
  retryAfterSeconds(client: LoginClient, now = Date.now()): number | undefined {
    const own = this.ownWaitSeconds(client, now);
    if (own !== undefined) return own;
    const counters = this.countersOf(client);
    for (const table of new Set(counters.map((counter) => counter.table))) {
      if (!table.hasRoomFor(keysIn(counters, table), now)) return table.secondsUntilRoom(now);
    }
    return undefined;
  }

  /**
   * Seconds the client must wait for its own failures (the longest wait of its counts), or undefined when none of them
   * is spent: unlike {@link retryAfterSeconds}, a table full of other throttled clients does not count.
   */
  ownWaitSeconds(client: LoginClient, now = Date.now()): number | undefined {
    const waits = this.countersOf(client)
      .map((counter) => counter.table.wait(counter.key, now))
      .filter((wait) => wait !== undefined);
    return waits.length > 0 ? Math.max(...waits) : undefined;
  }

  /**
   * Records a failed login of `client` that tried `guess` (the user and password, e.g. `user\0password`); a guess
   * already counted within the window is not counted again. Returns the counts this failure used up.
   */
  fail(client: LoginClient, guess: string, now = Date.now()): LoginScope[] {
    const fingerprint = createHmac('sha256', this.guessKey).update(guess, 'utf8').digest('base64url');
    const counters = this.countersOf(client);
    return counters
      .filter((counter) => counter.table.record(counter.key, counter.allowed, fingerprint, now, keysIn(counters, counter.table)))
      .map((counter) => counter.scope);
  }

  private countersOf(client: LoginClient): Counter[] {
    if ('device' in client) return [{ scope: 'browser', table: this.devices, key: client.device, allowed: this.allowed }];
    const site = loginSiteKey(client.address);
    return [
      { scope: 'address', table: this.addresses, key: loginClientKey(client.address), allowed: this.allowed },
      ...(site ? [{ scope: 'site' as const, table: this.addresses, key: site, allowed: this.allowedPerSite }] : []),
      ...(this.newBrowsersTotal ? [{ scope: 'new browsers' as const, table: this.newBrowsers, key: 'new browsers', allowed: this.allowedFromNewBrowsers }] : []),
    ];
  }
}

function keysIn(counters: readonly Counter[], table: FailureTable): string[] {
  return counters.filter((counter) => counter.table === table).map((counter) => counter.key);
}

/** The cookie that marks a browser as one that logged in to the dashboard before (see {@link KnownDevices}). */
export const KNOWN_DEVICE_COOKIE = 'helpdesk_device';
/** How long a browser stays known without logging in again. */
export const KNOWN_DEVICE_MAX_AGE_MS = 30 * 24 * 60 * 60_000;
/** A known browser's cookie is issued afresh (same device) once it is this old, so a browser in use stays known. */
const KNOWN_DEVICE_REFRESH_MS = 24 * 60 * 60_000;
/** How far in the future an issue time may lie: replicas sharing the secret may disagree a little on the time. */
const KNOWN_DEVICE_CLOCK_SKEW_MS = 5 * 60_000;
const KNOWN_DEVICE_VALUE = /^([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** A browser that logged in before, read from its {@link KNOWN_DEVICE_COOKIE}. */
export interface KnownDevice {
  /** Random, chosen when the browser first logged in. */
  id: string;
  /** When the cookie was issued (ms since the epoch, whole seconds). */
  issuedAt: number;
}

/**
 * "Known device" cookies: a browser that logged in successfully gets `id.issuedAt.HMAC`, and while the cookie is
 * valid its requests are checked against the password even when its address is throttled, with its own failures
 * counted per device. A stranger who shares the operators' address (the reverse proxy's, Docker's, an office NAT's)
 * can then lock out only browsers that never logged in, and cannot make up a device: only the password gets one.
 *
 * The cookie is no credential: every request still needs the Basic login. The HMAC key is derived from the server's
 * secret and the login, so changing DASHBOARD_USER or DASHBOARD_PASSWORD forgets every device, and a cookie reveals
 * nothing that would help to guess the password offline.
 */
export class KnownDevices {
  private readonly key: Buffer;

  /** `secret`: at least 16 bytes, kept on the server (the dashboard passes its CSRF secret). */
  constructor(secret: Buffer, credentials: { user: string; password: string }) {
    if (secret.length < 16) throw new RangeError('KnownDevices: the secret must have at least 16 bytes');
    this.key = createHmac('sha256', secret).update(`known-device\0${credentials.user}\0${credentials.password}`, 'utf8').digest();
  }

  /** A cookie value for a browser that just logged in: a new device, or `id` again to extend a known one. */
  issue(now = Date.now(), id = randomBytes(16).toString('base64url')): string {
    const payload = `${id}.${Math.floor(now / 1000)}`;
    return `${payload}.${this.tag(payload)}`;
  }

  /** The device of a cookie value this server issued, unless it is altered, foreign, expired or not yet issued. */
  verify(value: string | undefined, now = Date.now()): KnownDevice | undefined {
    const match = KNOWN_DEVICE_VALUE.exec(value ?? '');
    if (!match) return undefined;
    const [, id = '', seconds = '', tag = ''] = match;
    if (!secretsEqual(tag, this.tag(`${id}.${seconds}`))) return undefined;
    const issuedAt = Number(seconds) * 1000;
    if (issuedAt > now + KNOWN_DEVICE_CLOCK_SKEW_MS || now - issuedAt > KNOWN_DEVICE_MAX_AGE_MS) return undefined;
    return { id, issuedAt };
  }

  /**
   * The device named by a request's `Cookie` header. Every cookie of that name is tried: another site on the same
   * host name (cookies ignore ports) could set one of its own beside ours.
   */
  fromCookieHeader(header: string | undefined, now = Date.now()): KnownDevice | undefined {
    if (!header) return undefined;
    for (const pair of header.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0 || pair.slice(0, eq).trim() !== KNOWN_DEVICE_COOKIE) continue;
      const device = this.verify(pair.slice(eq + 1).trim(), now);
      if (device) return device;
    }
    return undefined;
  }

  /** True when the cookie should be issued afresh to keep the browser known. */
  needsRefresh(device: KnownDevice, now = Date.now()): boolean {
    return now - device.issuedAt > KNOWN_DEVICE_REFRESH_MS;
  }

  private tag(payload: string): string {
    return createHmac('sha256', this.key).update(payload, 'utf8').digest('base64url');
  }
}

/**
 * The key failed logins are counted under: the address for IPv4 (also when mapped into IPv6), the /64 network for
 * IPv6, since one subscriber is handed a whole /64 and could otherwise take ten guesses from each of its addresses.
 */
export function loginClientKey(ip: string): string {
  const address = withoutZone(ip);
  const mapped = mappedIPv4(address);
  if (mapped) return mapped;
  const groups = ipv6Groups(address);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : ip;
}

/**
 * The IPv6 site (/48) failed logins are also counted under ({@link LOGIN_FAILURES_ALLOWED_PER_SITE}), or undefined
 * for IPv4 (also when mapped into IPv6) and anything that is no address.
 */
export function loginSiteKey(ip: string): string | undefined {
  const address = withoutZone(ip);
  if (mappedIPv4(address)) return undefined;
  const groups = ipv6Groups(address);
  return groups ? `${groups.slice(0, 3).join(':')}::/48` : undefined;
}

function withoutZone(ip: string): string {
  return ip.replace(/%.*$/, '');
}

function mappedIPv4(address: string): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  return mapped && isIPv4(mapped) ? mapped : undefined;
}

/** The eight groups of an IPv6 address, lower case without leading zeros; undefined for anything else. */
function ipv6Groups(address: string): string[] | undefined {
  if (!isIPv6(address)) return undefined;
  const [head = '', tail] = address.toLowerCase().split('::');
  // An IPv4 tail (64:ff9b::1.2.3.4) fills the last two groups, beyond every prefix counted here: zeros will do.
  const groups = (part: string | undefined) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g.replace(/^0+(?=.)/, '')])) : []);
  const [front, back] = [groups(head), groups(tail)];
  return [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
}

/** The warning when a failure uses up a count: whom it locks out, for the admin reading the log. */
const THROTTLED_BECAUSE: Record<LoginScope, string> = {
  browser: 'dashboard logins throttled: too many failed logins from this browser',
  address: 'dashboard logins throttled: too many failed logins from this address',
  site: 'dashboard logins throttled: too many failed logins from this IPv6 site (/48)',
  'new browsers':
    'dashboard logins throttled for every browser that has not logged in before: too many failed logins from many addresses (browsers that logged in before are not affected)',
};

/** What {@link checkLogin} found for one request. */
type LoginCheck =
  | { kind: 'ok'; user: string; device?: KnownDevice }
  | { kind: 'none' }
  | { kind: 'wrong' }
  | { kind: 'throttled'; retryAfterSeconds: number };

/**
 * How the dashboard checks logins: one throttle for every route of the process that reads the login (the metrics
 * token has its own, see {@link metricsTokenAuth}), and where failures are logged.
 */
export interface LoginOptions {
  logger?: Logger;
  throttle?: LoginThrottle;
  /** Browsers that logged in before; without it every request is counted by its address alone. */
  devices?: KnownDevices;
}

/**
 * Checks a request's Basic credentials against {@link DashboardAuth} through the throttle: a throttled client's
 * credentials are not even compared, and a wrong password counts as a failure and is logged at warn with the user
 * name, client address and path, never the password. The client is the browser when it brings a valid known-device
 * cookie, else its address ({@link loginClientOf}). Every route that looks at credentials goes through here or, for
 * the metrics token, {@link metricsTokenAuth}, so no route answers "right" or "wrong" to a client that is past its
 * failures.
 */
function checkLogin(req: Request, auth: DashboardAuth, options: LoginOptions & { throttle: LoginThrottle }): LoginCheck {
  if (auth.mode === 'off') return { kind: 'ok', user: ANONYMOUS_OPERATOR };
  const { throttle } = options;
  const login = loginClientOf(req, options);
  const wait = throttle.retryAfterSeconds(login.client);
  if (wait !== undefined) return { kind: 'throttled', retryAfterSeconds: wait };
  const given = parseBasicAuth(req.headers.authorization);
  // A request without credentials is a browser asking for the login dialog (or a probe), not a failed attempt.
  if (!given) return { kind: 'none' };
  // A success clears nothing (see LoginThrottle): the failures of a shared address may be someone else's.
  if (credentialsMatch(given, auth)) return { kind: 'ok', user: given.user, ...(login.device ? { device: login.device } : {}) };
  recordFailure(req, login, `${given.user}\0${given.password}`, { user: given.user.slice(0, 100) }, options);
  return { kind: 'wrong' };
}

/** Whom a request's login is counted against (see {@link LoginClient}), and what the log says of it. */
interface RequestClient {
  client: LoginClient;
  address: string;
  device?: KnownDevice;
}

/**
 * The client of a request: the browser when it brings a valid known-device cookie, else its address (`req.ip`,
 * which names the client a trusted proxy forwarded for, see DASHBOARD_TRUST_PROXY).
 */
function loginClientOf(req: Request, options: LoginOptions): RequestClient {
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  // A browser that logged in before is counted on its own: strangers' failures at its address do not lock it out,
  // and its own mistypes do not lock out the others there.
  const device = options.devices?.fromCookieHeader(req.headers.cookie);
  return device ? { client: { device: device.id }, address, device } : { client: { address }, address };
}

/** What the log says of a failure, and of each count it uses up. */
interface FailureWords {
  failed: string;
  throttled: Record<LoginScope, string>;
}

const LOGIN_FAILURE_WORDS: FailureWords = { failed: 'dashboard login failed', throttled: THROTTLED_BECAUSE };

/** Counts a failed login of `guess` (only its HMAC is kept, see {@link LoginThrottle.fail}) and logs it at warn. */
function recordFailure(
  req: Request,
  login: RequestClient,
  guess: string,
  logged: Record<string, string>,
  options: { logger?: Logger; throttle: LoginThrottle },
  words: FailureWords = LOGIN_FAILURE_WORDS,
): void {
  const { throttle, logger } = options;
  const spent = throttle.fail(login.client, guess);
  const who = { client: login.address, ...(login.device ? { device: login.device.id.slice(0, 8) } : {}) };
  logger?.warn({ ...who, ...logged, path: req.path }, words.failed);
  for (const scope of spent) logger?.warn({ ...who, retryAfterSeconds: throttle.retryAfterSeconds(login.client) }, words.throttled[scope]);
}

/** The log's words for wrong metrics tokens: they lock out the scrapes of an address or /48, never a login. */
const METRICS_TOKEN_FAILURE_WORDS: FailureWords = {
  failed: 'metrics token refused',
  throttled: {
    browser: 'metrics token throttled: too many wrong tokens from this client',
    address: 'metrics token throttled: too many wrong tokens from this address (its scrapes wait; dashboard logins are not affected)',
    site: 'metrics token throttled: too many wrong tokens from this IPv6 site (/48) (its scrapes wait; dashboard logins are not affected)',
    'new browsers': 'metrics token throttled: too many wrong tokens',
  },
};

function sendThrottled(res: Response, retryAfterSeconds: number, words = 'Too many failed logins'): void {
  res.status(429).set('Retry-After', String(retryAfterSeconds)).type('text/plain; charset=utf-8').send(`${words}; try again later\n`);
}

function sendLoginRequired(res: Response): void {
  res
    .status(401)
    .set('WWW-Authenticate', `Basic realm="${AUTH_REALM}", charset="UTF-8"`)
    .type('text/plain; charset=utf-8')
    .send('Authentication required\n');
}

/**
 * Express middleware enforcing {@link DashboardAuth}: 401 with a `WWW-Authenticate` challenge unless the request
 * carries the right credentials, 429 with `Retry-After` while the client is throttled for failed logins
 * ({@link LoginThrottle}). Each failure is logged at warn with the user name and client address, never the password.
 * Sets `res.locals.user` (the Basic user, or {@link ANONYMOUS_OPERATOR} when off), and gives a browser that logged
 * in the known-device cookie of `options.devices` (HttpOnly, SameSite=Strict, Secure over HTTPS).
 */
export function basicAuthMiddleware(auth: DashboardAuth, options: LoginOptions = {}) {
  const gate = { ...options, throttle: options.throttle ?? new LoginThrottle() };
  return (req: Request, res: Response, next: NextFunction): void => {
    const login = checkLogin(req, auth, gate);
    if (login.kind === 'ok') {
      res.locals.user = login.user;
      if (gate.devices && (!login.device || gate.devices.needsRefresh(login.device))) {
        // Scripts cannot read it (HttpOnly), and no other site's page makes the browser send it (Strict).
        res.cookie(KNOWN_DEVICE_COOKIE, gate.devices.issue(Date.now(), login.device?.id), {
          httpOnly: true,
          sameSite: 'strict',
          secure: req.secure,
          path: '/',
          maxAge: KNOWN_DEVICE_MAX_AGE_MS,
        });
      }
      next();
      return;
    }
    if (login.kind === 'throttled') {
      sendThrottled(res, login.retryAfterSeconds);
      return;
    }
    sendLoginRequired(res);
  };
}

/** How {@link metricsTokenAuth} counts wrong tokens, and where it logs them. */
export interface MetricsTokenOptions {
  logger?: Logger;
  /**
   * The token's own throttle, never the logins' (default: a new one without the new-browsers total). Apart, so that
   * wrong passwords never make a scrape wait and wrong tokens never make an operator wait.
   */
  throttle?: LoginThrottle;
}

/**
 * The gate of a scrape's own token (METRICS_TOKEN) in front of one route (`/metrics`): a request with
 * `Authorization: Bearer <token>` goes on to the route's handler; one with another bearer token is answered 401 and
 * counted (only its HMAC is kept) in a throttle of the token's own, per client address (an IPv6 client's /64) and
 * IPv6 /48 alone: a scraper keeps no known-device cookie, so it shares no total with other new browsers, and no
 * login's failure counts here nor a token's in the logins. A throttled client is answered 429 with `Retry-After`
 * before its token is compared, the right one too, as a throttled Basic login is; one that waits only because the
 * throttle's table is full of other throttled clients is let through with the right token. A request without a
 * bearer token skips the route's other handlers (`next('route')`) to the Basic login. With authentication off the token adds
 * nothing: any request goes on to the login, which lets it in.
 */
export function metricsTokenAuth(token: string, auth: DashboardAuth, options: MetricsTokenOptions = {}) {
  const gate = { ...options, throttle: options.throttle ?? new LoginThrottle({ newBrowsersTotal: false }) };
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.headers.authorization ?? '';
    if (auth.mode === 'off' || !/^Bearer(?:[ \t]|$)/i.test(header)) {
      next('route');
      return;
    }
    // By address alone (no known devices): a known-device cookie is the operators' and says nothing of a scraper.
    const login = loginClientOf(req, {});
    const wait = gate.throttle.retryAfterSeconds(login.client);
    // A client throttled for its own wrong tokens waits before its token is compared. One that waits only because the
    // table is full of throttled others (bug review 44e) has its token compared: the right one records nothing, so it
    // needs no room. A wrong one is answered 429 and not counted: counting it would grow the table past its bound, one
    // entry per address an attacker owns. Filling it takes some 10,000 addresses throttled at once, and a random
    // METRICS_TOKEN (openssl rand -hex 16, as its description says) is not guessed by speed even then.
    if (wait !== undefined && gate.throttle.ownWaitSeconds(login.client) !== undefined) {
      sendThrottled(res, wait, 'Too many wrong tokens');
      return;
    }
    if (bearerTokenOf(header, token)) {
      next();
      return;
    }
    if (wait !== undefined) {
      sendThrottled(res, wait, 'Too many wrong tokens');
      return;
    }
    recordFailure(req, login, header.replace(/^Bearer[ \t]*/i, '').trim(), { scheme: 'bearer' }, gate, METRICS_TOKEN_FAILURE_WORDS);
    sendLoginRequired(res);
  };
}

/**
 * Like {@link basicAuthMiddleware} but never refuses: sets `res.locals.user` when the request carries the right
 * credentials (or authentication is off), for open routes that tell a logged-in operator more (`/readyz`). Pass the
 * throttle and devices of {@link basicAuthMiddleware}: a wrong password here is a failed login like anywhere else,
 * and a throttled client is answered as if it sent none, or the open route would let anyone test passwords at
 * network speed. It sets no cookie: probes keep none.
 */
export function optionalBasicAuth(auth: DashboardAuth, options: LoginOptions & { throttle: LoginThrottle }) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const login = checkLogin(req, auth, options);
    if (login.kind === 'ok') res.locals.user = login.user;
    next();
  };
}

/**
 * CSRF tokens for the review forms: HMAC-SHA256 of the authenticated user under a per-process secret. A page served
 * to that user carries the token; another site cannot read the page (same-origin policy), so it cannot forge a
 * form post. Tokens change on restart, which only means a form left open across a restart must be reloaded.
 */
export class CsrfTokens {
  private readonly secret: Buffer;

  /** `secret` defaults to 32 random bytes; pass one to share tokens between dashboard replicas. */
  constructor(secret: Buffer = randomBytes(32)) {
    if (secret.length < 16) throw new RangeError('CsrfTokens: the secret must have at least 16 bytes');
    this.secret = secret;
  }

  /** The token of a user (base64url). */
  tokenFor(user: string): string {
    return createHmac('sha256', this.secret).update(`csrf\0${user}`, 'utf8').digest('base64url');
  }

  /** True when `token` is the user's token; compared in constant time. */
  verify(user: string, token: unknown): boolean {
    if (typeof token !== 'string' || token.length === 0 || token.length > 200) return false;
    return secretsEqual(token, this.tokenFor(user));
  }
}

/** Hosts a dashboard without authentication answers to: loopback names only (see {@link loopbackHostGuard}). */
const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i;

/**
 * With authentication off the server listens on loopback, but a web page could still reach it through DNS
 * rebinding (its own host name resolving to 127.0.0.1, making the dashboard "same-origin" to it). Such requests carry
 * the attacker's host name in `Host`, so anything but a loopback name is refused.
 */
export function loopbackHostGuard(auth: DashboardAuth) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (auth.mode === 'basic' || LOOPBACK_HOST.test(req.headers.host ?? '')) {
      next();
      return;
    }
    res.status(421).type('text/plain; charset=utf-8').send('Without authentication the dashboard answers only to 127.0.0.1 or localhost\n');
  };
}
