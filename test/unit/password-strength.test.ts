/**
 * A weak DASHBOARD_PASSWORD: refused when the dashboard listens beyond loopback (the whole network may guess, some
 * 10 000 tries a day against the default user), a warning on loopback.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { resolveAuth } from '../../src/server/auth.js';
import { isLoopbackHost, passwordWeakness, weakDashboardPassword } from '../../src/server/password-strength.js';

describe('passwordWeakness', () => {
  it.each<[string, string, RegExp | undefined]>([
    ['admin', 'sandbox-only', undefined],
    ['admin', 'correct horse battery staple', undefined],
    ['admin', 'q9LmX2vR7tZp', undefined],
    ['admin', 'short-pw', /8 characters, fewer than 12/],
    // Characters, not UTF-16 units: eleven emoji are eleven characters.
    ['admin', '😀'.repeat(11), /11 characters/],
    ['admin', 'admin-password-2024', /user name/],
    ['Support-Lead', 'my-support-lead-pw', /user name/],
    ['admin', 'password1234', /easy to guess/],
    ['admin', 'helpdesk12345', /easy to guess/],
    ['admin', 'hunter2hunter2', /easy to guess/],
    ['admin', 'qwertyuiop123', /easy to guess/],
  ])('%s / %s', (user, password, weakness) => {
    const found = passwordWeakness(user, password);
    if (weakness === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(weakness);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.4.5.6', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['::ffff:10.0.0.1', false],
    ['fe80::1%eth0', false],
    ['dashboard.example.com', false],
  ])('%s: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

const config = (host: string, password: string | undefined, user = 'admin') =>
  ({ DASHBOARD_HOST: host, DASHBOARD_AUTH: 'on', DASHBOARD_USER: user, DASHBOARD_PASSWORD: password }) as const;

describe('a weak DASHBOARD_PASSWORD', () => {
  it.each(['0.0.0.0', '::', '192.168.1.10'])('beyond loopback (%s): the dashboard refuses to start, saying how to make one', (host) => {
    for (const password of ['short', 'admin-password-2024', 'password1234']) {
      let failure: unknown;
      try {
        resolveAuth(config(host, password));
      } catch (err) {
        failure = err;
      }
      expect(failure, password).toBeInstanceOf(ConfigError);
      expect((failure as ConfigError).message).toMatch(/DASHBOARD_PASSWORD is weak: .*openssl rand -base64 18/);
      // The message names the problem, never the password.
      expect((failure as ConfigError).message).not.toContain(password);
    }
  });

  it('on loopback: it starts, with a warning', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1']) {
      expect(resolveAuth(config(host, 'short'))).toEqual({ mode: 'basic', user: 'admin', password: 'short' });
      expect(weakDashboardPassword(config(host, 'short'))).toEqual({ refuse: false, message: expect.stringMatching(/^DASHBOARD_PASSWORD is weak: it has 5 characters.*anyone who reaches the dashboard can approve replies; make one with: openssl rand -base64 18$/) });
    }
  });

  it('a strong one starts anywhere; without authentication there is nothing to check', () => {
    expect(resolveAuth(config('0.0.0.0', 'Kx8mP2vQ9wRt4Lz7'))).toMatchObject({ mode: 'basic' });
    expect(weakDashboardPassword(config('0.0.0.0', 'Kx8mP2vQ9wRt4Lz7'))).toBeUndefined();
    expect(resolveAuth({ ...config('0.0.0.0', 'x'), DASHBOARD_AUTH: 'off' })).toEqual({ mode: 'off' });
  });
});
