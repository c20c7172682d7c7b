/**
 * Whether DASHBOARD_PASSWORD is weak: shorter than {@link MIN_PASSWORD_LENGTH}, holding the user name, or guessable
 * by a password-strength estimator (zxcvbn-ts with its common dictionaries). A dashboard that others can reach
 * refuses such a password ({@link resolveAuth} in auth.ts); one on loopback warns (createDashboardApp), and
 * `npm run check` reports both.
 *
 * The estimator's dictionaries cost some 0.2 s and 6 MiB of heap to load, and every role imports the
 * configuration, so they are loaded on the first check only, never at import.
 */
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import type { Config } from '../config.js';

/** Below this many characters DASHBOARD_PASSWORD is weak, whatever the estimator says. */
export const MIN_PASSWORD_LENGTH = 12;
/**
 * The estimator's score (0–4) a password needs: 3 stands for some 10^8 guesses or more, beyond what the login
 * throttle lets new browsers try in years (100 per 15 minutes).
 */
export const MIN_PASSWORD_SCORE = 3;
/** Words of this product that a password made up for it tends to hold, counted as guessable beside the user name. */
const PRODUCT_WORDS = ['helpdesk', 'support', 'xyz'];
/** How to make a password the check accepts, for its messages. */
export const STRONG_PASSWORD_HINT = 'make one with: openssl rand -base64 18';

let estimator: ZxcvbnFactory | undefined;

/** The estimator, built on first use (see the module comment). */
function passwordEstimator(): ZxcvbnFactory {
  if (!estimator) {
    // A synchronous load keeps the callers (resolveAuth, createDashboardApp) synchronous; both packages ship CommonJS.
    const require = createRequire(import.meta.url);
    const { ZxcvbnFactory: Factory } = require('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core');
    const common = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
    estimator = new Factory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs });
  }
  return estimator;
}

/** Why `password` is weak for `user`, or undefined when it is not. */
export function passwordWeakness(user: string, password: string): string | undefined {
  const length = Array.from(password).length;
  if (length < MIN_PASSWORD_LENGTH) return `it has ${length} characters, fewer than ${MIN_PASSWORD_LENGTH}`;
  if (user.length > 0 && password.toLowerCase().includes(user.toLowerCase())) return `it contains the user name (DASHBOARD_USER)`;
  const { score } = passwordEstimator().check(password, [user, ...PRODUCT_WORDS]);
  if (score < MIN_PASSWORD_SCORE) return `it is easy to guess (strength ${score} of 4, ${MIN_PASSWORD_SCORE} needed: common words, names, dates or keyboard patterns)`;
  return undefined;
}

/** True for the addresses and names only this machine reaches: 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) !== 6) return false;
  // The URL parser writes an IPv6 address in its one short form, an IPv4-mapped one in hex (::ffff:7f00:1).
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  return canonical === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
}

/** A weak DASHBOARD_PASSWORD found by {@link weakDashboardPassword}. */
export interface WeakDashboardPassword {
  /** What is wrong and how to fix it, naming DASHBOARD_PASSWORD. */
  message: string;
  /** True when the dashboard is reachable beyond this machine (DASHBOARD_HOST not loopback): it must not start. */
  refuse: boolean;
}

let lastChecked: { user: string; password: string; weakness: string | undefined } | undefined;

/**
 * The weakness of the dashboard's password, or undefined when authentication is off, no password is set (see
 * resolveAuth) or it is strong. The last answer is kept: the role and the app it builds ask about the same one.
 */
export function weakDashboardPassword(
  config: Pick<Config, 'DASHBOARD_AUTH' | 'DASHBOARD_USER' | 'DASHBOARD_PASSWORD' | 'DASHBOARD_HOST'>,
): WeakDashboardPassword | undefined {
  const { DASHBOARD_USER: user, DASHBOARD_PASSWORD: password } = config;
  if (config.DASHBOARD_AUTH === 'off' || !password) return undefined;
  if (lastChecked?.user !== user || lastChecked.password !== password) lastChecked = { user, password, weakness: passwordWeakness(user, password) };
  const weakness = lastChecked.weakness;
  if (weakness === undefined) return undefined;
  const refuse = !isLoopbackHost(config.DASHBOARD_HOST);
  const reach = refuse
    ? `the dashboard listens on ${config.DASHBOARD_HOST}, beyond this machine, so it does not start with it`
    : 'anyone who reaches the dashboard can approve replies';
  return { message: `DASHBOARD_PASSWORD is weak: ${weakness}; ${reach}; ${STRONG_PASSWORD_HINT}`, refuse };
}
