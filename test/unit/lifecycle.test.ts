import { describe, expect, it } from 'vitest';
import { optionalRole, runRoles, type RoleHandle } from '../../src/runtime/lifecycle.js';
import { createLogger } from '../../src/logger.js';

class Refused extends Error {}

describe('optionalRole', () => {
  const logger = createLogger('test');
  const isRefusal = (err: unknown) => err instanceof Refused;

  it('turns a refusal into a role that does nothing, so the other roles keep running', async () => {
    const role = await optionalRole('dashboard', async () => Promise.reject(new Refused('no password')), { logger, isRefusal })();
    expect(role.name).toBe('dashboard (not started)');
    await expect(role.stop()).resolves.toBeUndefined();
  });

  it('passes a started role through and still fails on other errors', async () => {
    const started: RoleHandle = { name: 'dashboard', stop: async () => {} };
    expect(await optionalRole('dashboard', async () => started, { logger, isRefusal })()).toBe(started);
    await expect(optionalRole('dashboard', async () => Promise.reject(new Error('port in use')), { logger, isRefusal })()).rejects.toThrow('port in use');
  });
});

describe('runRoles', () => {
  it('stops the roles in reverse order and exits 0 on shutdown', async () => {
    const stopped: string[] = [];
    const role = (name: string) => async (): Promise<RoleHandle> => ({ name, stop: async () => void stopped.push(name) });
    const exits: number[] = [];
    const { shutdown } = await runRoles([role('a'), role('b'), role('c')], { logger: createLogger('test'), exit: (c) => void exits.push(c), signals: [] });
    await shutdown('test');
    expect(stopped).toEqual(['c', 'b', 'a']);
    expect(exits).toEqual([0]);
  });

  it('exits 1 when a role does not stop before the deadline', async () => {
    const exits: number[] = [];
    const { shutdown } = await runRoles([async () => ({ name: 'stuck', stop: () => new Promise<void>(() => {}) })], {
      logger: createLogger('test'),
      exit: (c) => void exits.push(c),
      signals: [],
      shutdownTimeoutMs: 50,
    });
    await shutdown('test');
    expect(exits).toEqual([1]);
  });

  it('stops the roles already started when a later one fails to start', async () => {
    const stopped: string[] = [];
    await expect(
      runRoles(
        [async () => ({ name: 'a', stop: async () => void stopped.push('a') }), async () => Promise.reject(new Error('boom'))],
        { logger: createLogger('test'), exit: () => {}, signals: [] },
      ),
    ).rejects.toThrow('boom');
    expect(stopped).toEqual(['a']);
  });
});
