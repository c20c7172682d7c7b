import { describe, expect, it } from 'vitest';
import { commandLogLevel } from '../../src/cli/common.js';

describe('commandLogLevel', () => {
  it.each([
    ['info', {}, 'info'],
    ['info', { quiet: true }, 'warn'],
    ['debug', { quiet: true }, 'warn'],
    ['info', { quiet: true, verbose: true }, 'info'],
    ['error', { quiet: true }, 'error'],
    ['silent', { quiet: true }, 'silent'],
  ])('LOG_LEVEL=%s with %j → %s', (configured, options, expected) => {
    expect(commandLogLevel(configured, options)).toBe(expected);
  });
});
