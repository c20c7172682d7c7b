import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';
import {
  CsrfTokens,
  KNOWN_DEVICE_COOKIE,
  KNOWN_DEVICE_MAX_AGE_MS,
  KnownDevices,
  LOGIN_FAILURES_ALLOWED,
  LOGIN_FAILURES_ALLOWED_FROM_NEW_BROWSERS,
  LOGIN_FAILURES_ALLOWED_PER_SITE,
  LOGIN_THROTTLE_WINDOW_MS,
  LoginThrottle,
  credentialsMatch,
  loginClientKey,
  loginSiteKey,
  parseBasicAuth,
  resolveAuth,
  secretsEqual,
} from '../../src/server/auth.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe('parseBasicAuth', () => {
  it.each([
    [`Basic ${b64('admin:secret')}`, { user: 'admin', password: 'secret' }],
    [`basic ${b64('admin:pa:ss:word')}`, { user: 'admin', password: 'pa:ss:word' }],
    [`Basic ${b64('運用者:パスワード')}`, { user: '運用者', password: 'パスワード' }],
    [`Basic ${b64(':')}`, { user: '', password: '' }],
  ])('reads %s', (header, expected) => {
    expect(parseBasicAuth(header)).toEqual(expected);
  });

  it.each([undefined, '', 'Basic', `Bearer ${b64('a:b')}`, `Basic ${b64('no-colon')}`, 'Basic a b', 'Basic <>'])('rejects %j', (header) => {
    expect(parseBasicAuth(header)).toBeUndefined();
  });
});

describe('constant-time comparison', () => {
  it.each([
    ['secret', 'secret', true],
    ['secret', 'Secret', false],
    ['secret', 'secret-but-longer', false],
    ['', '', true],
    ['', 'x', false],
  ])('secretsEqual(%j, %j) = %s', (a, b, expected) => {
    expect(secretsEqual(a, b)).toBe(expected);
  });

  it('needs both the user and the password', () => {
    const expected = { user: 'admin', password: 'pw' };
    expect(credentialsMatch({ user: 'admin', password: 'pw' }, expected)).toBe(true);
    expect(credentialsMatch({ user: 'admin', password: 'nope' }, expected)).toBe(false);
    expect(credentialsMatch({ user: 'root', password: 'pw' }, expected)).toBe(false);
  });
});

describe('resolveAuth', () => {
  it('requires a password while authentication is on, naming both variables', () => {
    expect(() => resolveAuth({ DASHBOARD_HOST: '127.0.0.1', DASHBOARD_AUTH: 'on', DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: undefined })).toThrow(ConfigError);
    expect(() => resolveAuth({ DASHBOARD_HOST: '127.0.0.1', DASHBOARD_AUTH: 'on', DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: '' })).toThrow(/DASHBOARD_PASSWORD.*DASHBOARD_AUTH=off/s);
  });

  it('returns the credentials, or off', () => {
    expect(resolveAuth({ DASHBOARD_HOST: '127.0.0.1', DASHBOARD_AUTH: 'on', DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'pw' })).toEqual({ mode: 'basic', user: 'ops', password: 'pw' });
    expect(resolveAuth({ DASHBOARD_HOST: '127.0.0.1', DASHBOARD_AUTH: 'off', DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: undefined })).toEqual({ mode: 'off' });
  });
});

describe('CsrfTokens', () => {
  it('accepts the token of the same user and secret only', () => {
    const tokens = new CsrfTokens(Buffer.alloc(32, 1));
    const token = tokens.tokenFor('admin');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.verify('admin', token)).toBe(true);
    expect(tokens.verify('other', token)).toBe(false);
    expect(new CsrfTokens(Buffer.alloc(32, 2)).verify('admin', token)).toBe(false);
    expect(new CsrfTokens().verify('admin', new CsrfTokens().tokenFor('admin'))).toBe(false);
  });

  it.each([undefined, '', 42, ['x'], 'x'.repeat(500)])('rejects %j', (token) => {
    expect(new CsrfTokens(Buffer.alloc(32, 1)).verify('admin', token)).toBe(false);
  });

  it('refuses a short secret', () => {
    expect(() => new CsrfTokens(Buffer.alloc(8))).toThrow(RangeError);
  });
});

describe('loginClientKey', () => {
  // One IPv6 subscriber holds a whole /64: keyed by address, it would get ten guesses per address, without end.
  it.each([
    ['IPv4', '203.0.113.7', '203.0.113.7'],
    ['IPv4 mapped into IPv6', '::ffff:203.0.113.7', '203.0.113.7'],
    ['IPv6', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['IPv6, same /64, other host', '2001:db8:1:2::99', '2001:db8:1:2::/64'],
    ['IPv6 written short', '2001:db8::1', '2001:db8:0:0::/64'],
    ['IPv6 loopback', '::1', '0:0:0:0::/64'],
    ['IPv6 with a zone', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['IPv6 with an IPv4 tail (NAT64)', '64:ff9b::198.51.100.7', '64:ff9b:0:0::/64'],
    ['IPv6 with an IPv4 tail after five groups', '1:2:3:4:5::198.51.100.7', '1:2:3:4::/64'],
    ['not an address', 'unknown', 'unknown'],
  ])('%s', (_name, ip, key) => {
    expect(loginClientKey(ip)).toBe(key);
  });
});

describe('loginSiteKey', () => {
  // A /48 is what one site is handed (RFC 6177); IPv4 has no such unit: a /24 is as often strangers behind one carrier.
  it.each([
    ['IPv6', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1::/48'],
    ['IPv6, another /64 of the same /48', '2001:db8:1:ffff::1', '2001:db8:1::/48'],
    ['IPv6 written short', '2001:db8::1', '2001:db8:0::/48'],
    ['IPv6 with a zone', 'fe80::1%eth0', 'fe80:0:0::/48'],
    ['IPv6 with an IPv4 tail (NAT64)', '64:ff9b::198.51.100.7', '64:ff9b:0::/48'],
    ['IPv4', '203.0.113.7', undefined],
    ['IPv4 mapped into IPv6', '::ffff:203.0.113.7', undefined],
    ['not an address', 'unknown', undefined],
  ])('%s', (_name, ip, key) => {
    expect(loginSiteKey(ip)).toBe(key);
  });
});

describe('LoginThrottle', () => {
  const t0 = Date.UTC(2026, 0, 1);
  const address = (ip: string) => ({ address: ip });

  it('lets a client wait once it failed the allowed number of times in the window, until the oldest failure ages out', () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) {
      expect(throttle.retryAfterSeconds(address('198.51.100.7'), t0 + i * 1000)).toBeUndefined();
      throttle.fail(address('198.51.100.7'), `guess-${i}`, t0 + i * 1000);
    }
    expect(throttle.retryAfterSeconds(address('198.51.100.7'), t0 + 10_000)).toBe(LOGIN_THROTTLE_WINDOW_MS / 1000 - 10);
    expect(throttle.retryAfterSeconds(address('198.51.100.8'), t0 + 10_000)).toBeUndefined();
    expect(throttle.retryAfterSeconds(address('198.51.100.7'), t0 + LOGIN_THROTTLE_WINDOW_MS + 1)).toBeUndefined();
  });

  it('counts a wrong password repeated within the window once: repeating a guess tells nothing new', () => {
    const throttle = new LoginThrottle({ allowed: 3 });
    for (let i = 0; i < 10; i++) throttle.fail(address('c'), 'admin\0old password', t0 + i);
    throttle.fail(address('c'), 'admin\0second', t0 + 20);
    expect(throttle.retryAfterSeconds(address('c'), t0 + 30)).toBeUndefined();
    throttle.fail(address('c'), 'admin\0third', t0 + 40);
    expect(throttle.retryAfterSeconds(address('c'), t0 + 50)).toBeDefined();
    // Once it has aged out, the same password counts again.
    const later = new LoginThrottle({ allowed: 2 });
    later.fail(address('c'), 'x', t0);
    later.fail(address('c'), 'x', t0 + LOGIN_THROTTLE_WINDOW_MS + 1);
    later.fail(address('c'), 'y', t0 + LOGIN_THROTTLE_WINDOW_MS + 2);
    expect(later.retryAfterSeconds(address('c'), t0 + LOGIN_THROTTLE_WINDOW_MS + 3)).toBeDefined();
  });

  // Each failure one second after the last, each from `client(n)`; then who waits, and for how long.
  it.each([
    {
      name: 'the /64s of one /48 share the per-site count',
      failures: LOGIN_FAILURES_ALLOWED_PER_SITE,
      client: (n: number) => address(`2001:db8:5:${Math.floor(n / LOGIN_FAILURES_ALLOWED)}::1`),
      waits: [address('2001:db8:5:ffff::1')],
      free: [address('2001:db8:6::1'), address('198.51.100.7')],
      scope: 'site',
    },
    {
      name: 'browsers that never logged in share one total, across networks',
      failures: LOGIN_FAILURES_ALLOWED_FROM_NEW_BROWSERS,
      client: (n: number) => address(`203.0.${Math.floor(n / LOGIN_FAILURES_ALLOWED)}.1`),
      waits: [address('198.51.100.7'), address('2001:db8:6::1'), address('unknown')],
      free: [{ device: 'operator-browser' }],
      scope: 'new browsers',
    },
  ])('$name', ({ failures, client, waits, free, scope }) => {
    const throttle = new LoginThrottle();
    const exhausted: string[][] = [];
    for (let n = 0; n < failures; n++) {
      expect(throttle.retryAfterSeconds(client(n), t0 + n * 1000), `failure ${n}`).toBeUndefined();
      exhausted.push(throttle.fail(client(n), `guess-${n}`, t0 + n * 1000));
    }
    expect(exhausted.at(-1), 'the last failure reports the count it spent').toContain(scope);
    expect(exhausted.slice(0, -1).flat(), 'no earlier failure reports it').not.toContain(scope);
    const now = t0 + failures * 1000;
    // Until the first failure ages out: it was made `failures` seconds before now.
    for (const c of waits) expect(throttle.retryAfterSeconds(c, now), JSON.stringify(c)).toBe(LOGIN_THROTTLE_WINDOW_MS / 1000 - failures);
    for (const c of free) expect(throttle.retryAfterSeconds(c, now), JSON.stringify(c)).toBeUndefined();
    for (const c of waits) expect(throttle.retryAfterSeconds(c, t0 + LOGIN_THROTTLE_WINDOW_MS + 1), `${JSON.stringify(c)} later`).toBeUndefined();
  });

  it('counts a known browser\'s failures against it alone, not against the total of new browsers', () => {
    const throttle = new LoginThrottle({ allowedFromNewBrowsers: 3 });
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) throttle.fail({ device: 'a' }, `mistype-${i}`, t0 + i);
    expect(throttle.retryAfterSeconds({ device: 'a' }, t0 + 100)).toBeDefined();
    expect(throttle.retryAfterSeconds({ device: 'b' }, t0 + 100)).toBeUndefined();
    expect(throttle.retryAfterSeconds(address('198.51.100.7'), t0 + 100)).toBeUndefined();
  });

  it('makes room in a full table by forgetting the oldest client that is not throttled', () => {
    const throttle = new LoginThrottle({ maxTrackedClients: 3, allowed: 2 });
    for (const guess of ['x', 'y']) throttle.fail(address('203.0.113.1'), guess, t0);
    throttle.fail(address('203.0.113.2'), 'x', t0 + 1);
    throttle.fail(address('203.0.113.3'), 'x', t0 + 2);
    throttle.fail(address('203.0.113.4'), 'x', t0 + 3);
    throttle.fail(address('203.0.113.4'), 'y', t0 + 4);
    // .2 was forgotten (its one failure no longer counts), the throttled .1 and .4 were not.
    throttle.fail(address('203.0.113.2'), 'y', t0 + 5);
    expect(throttle.retryAfterSeconds(address('203.0.113.2'), t0 + 6)).toBeUndefined();
    expect(throttle.retryAfterSeconds(address('203.0.113.1'), t0 + 6)).toBeDefined();
    expect(throttle.retryAfterSeconds(address('203.0.113.4'), t0 + 6)).toBeDefined();
  });

  it('refuses a new client while every client in a full table is throttled, until one of them is free', () => {
    const throttle = new LoginThrottle({ maxTrackedClients: 3, allowed: 1, allowedPerSite: 1 });
    // As the dashboard does: a failure is only recorded for a client that was allowed to try.
    const attempt = (ip: string, at: number) => {
      expect(throttle.retryAfterSeconds(address(ip), at), ip).toBeUndefined();
      throttle.fail(address(ip), 'x', at);
    };
    attempt('203.0.113.1', t0);
    // Its /64 and its /48: the table is full, and all three are throttled.
    attempt('2001:db8:1:1::1', t0 + 60_000);
    expect(throttle.retryAfterSeconds(address('198.51.100.9'), t0 + 60_000)).toBe(LOGIN_THROTTLE_WINDOW_MS / 1000 - 60);
    expect(throttle.retryAfterSeconds({ device: 'operator-browser' }, t0 + 60_000)).toBeUndefined();
    expect(throttle.retryAfterSeconds(address('198.51.100.9'), t0 + LOGIN_THROTTLE_WINDOW_MS + 1)).toBeUndefined();
  });
});

describe('KnownDevices', () => {
  const secret = Buffer.alloc(32, 7);
  const credentials = { user: 'admin', password: 'correct horse battery staple' };
  const now = Date.UTC(2026, 0, 1);

  it('recognises the cookies it issued, with their device and age', () => {
    const devices = new KnownDevices(secret, credentials);
    const value = devices.issue(now);
    const device = devices.verify(value, now + 60_000);
    expect(device).toEqual({ id: expect.stringMatching(/^[\w-]{22}$/) as unknown, issuedAt: now });
    expect(devices.verify(devices.issue(now + 1000, device!.id), now + 2000)?.id).toBe(device!.id);
    expect(devices.verify(devices.issue(now), now)?.id).not.toBe(device!.id);
    expect(devices.fromCookieHeader(`a=b; ${KNOWN_DEVICE_COOKIE}=garbage; ${KNOWN_DEVICE_COOKIE}=${value}`, now)?.id).toBe(device!.id);
    expect(devices.fromCookieHeader(undefined, now)).toBeUndefined();
  });

  it('refuses altered, foreign, expired and future cookies, and those issued under another password', () => {
    const devices = new KnownDevices(secret, credentials);
    const value = devices.issue(now);
    const altered = `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`;
    expect(devices.verify(altered, now)).toBeUndefined();
    expect(devices.verify(`${value}x`, now)).toBeUndefined();
    expect(devices.verify('', now)).toBeUndefined();
    expect(new KnownDevices(Buffer.alloc(32, 8), credentials).verify(value, now)).toBeUndefined();
    expect(new KnownDevices(secret, { ...credentials, password: 'rotated' }).verify(value, now)).toBeUndefined();
    expect(new KnownDevices(secret, { ...credentials, user: 'ops' }).verify(value, now)).toBeUndefined();
    expect(devices.verify(value, now + KNOWN_DEVICE_MAX_AGE_MS - 1)).toBeDefined();
    expect(devices.verify(value, now + KNOWN_DEVICE_MAX_AGE_MS + 1)).toBeUndefined();
    expect(devices.verify(devices.issue(now + 3_600_000), now)).toBeUndefined();
  });

  it('needs a secret of at least 16 bytes', () => {
    expect(() => new KnownDevices(Buffer.alloc(8), credentials)).toThrow(RangeError);
  });
});

describe('DASHBOARD_TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['off', false],
    ['false', false],
    ['0', false],
    ['1', 1],
    ['2', 2],
    ['loopback', ['loopback']],
    ['Loopback, uniquelocal', ['loopback', 'uniquelocal']],
    ['10.0.0.5, 172.16.0.0/12,::1, fd00::/8, linklocal', ['10.0.0.5', '172.16.0.0/12', '::1', 'fd00::/8', 'linklocal']],
  ])('reads %j as %j', (raw, expected) => {
    expect(parseConfig(raw === undefined ? {} : { DASHBOARD_TRUST_PROXY: raw }).DASHBOARD_TRUST_PROXY).toEqual(expected);
  });

  it.each([
    // Trusting every peer lets any client write its own address into X-Forwarded-For and never be throttled.
    ['true', 'must not trust every proxy'],
    ['on', 'must not trust every proxy'],
    ['0.0.0.0/0', 'must not trust every proxy'],
    ['::/0', 'must not trust every proxy'],
    ['10.0.0.1, ::ffff:0.0.0.0/96', 'must not trust every proxy'],
    ['nginx', '"nginx" is not an address'],
    ['10.0.0.0/33', '"10.0.0.0/33" is not an address'],
    ['10.0.0.0/255.0.0.0', 'is not an address'],
    ['-1', 'is not an address'],
    ['1.5', 'is not an address'],
    ['1, loopback', '"1" is not an address'],
    [',', 'is not an address'],
  ])('refuses %j, naming the variable', (raw, message) => {
    let error: unknown;
    try {
      parseConfig({ DASHBOARD_TRUST_PROXY: raw, IMAP_PORT: 'x' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(2);
    expect(problems.find((p) => p.startsWith('DASHBOARD_TRUST_PROXY='))).toContain(message);
  });
});
