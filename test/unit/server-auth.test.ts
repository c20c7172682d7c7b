import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { CsrfTokens, credentialsMatch, loginClientKey, parseBasicAuth, resolveAuth, secretsEqual } from '../../src/server/auth.js';

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
    expect(() => resolveAuth({ DASHBOARD_AUTH: 'on', DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: undefined })).toThrow(ConfigError);
    expect(() => resolveAuth({ DASHBOARD_AUTH: 'on', DASHBOARD_USER: 'admin', DASHBOARD_PASSWORD: '' })).toThrow(/DASHBOARD_PASSWORD.*DASHBOARD_AUTH=off/s);
  });

  it('returns the credentials, or off', () => {
    expect(resolveAuth({ DASHBOARD_AUTH: 'on', DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'pw' })).toEqual({ mode: 'basic', user: 'ops', password: 'pw' });
    expect(resolveAuth({ DASHBOARD_AUTH: 'off', DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: undefined })).toEqual({ mode: 'off' });
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
    ['not an address', 'unknown', 'unknown'],
  ])('%s', (_name, ip, key) => {
    expect(loginClientKey(ip)).toBe(key);
  });
});
