import { spawn } from 'node:child_process';
import path from 'node:path';
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

  it('asks every role to stop at once, so one finishing long work (a reindex) does not keep the others taking jobs; shared connections close last', async () => {
    const events: string[] = [];
    let finishReindex!: () => void;
    const reindexDone = new Promise<void>((resolve) => (finishReindex = resolve));
    const exits: number[] = [];
    const { shutdown } = await runRoles(
      [
        async () => ({ name: 'connections', closesLast: true, stop: async () => void events.push('connections closed') }),
        async () => ({ name: 'sender', stop: async () => void events.push('sender stopped') }),
        async () => ({
          name: 'maintenance',
          stop: async () => {
            events.push('maintenance stopping');
            await reindexDone;
            events.push('maintenance stopped');
          },
        }),
        async () => ({ name: 'agent', stop: async () => void events.push('agent stopped') }),
      ],
      { logger: createLogger('test'), exit: (c) => void exits.push(c), signals: [] },
    );
    const stopping = shutdown('test');
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual(['agent stopped', 'maintenance stopping', 'sender stopped']);
    finishReindex();
    await stopping;
    expect(events.slice(3)).toEqual(['maintenance stopped', 'connections closed']);
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

  it('a second signal during shutdown does not cut it short (a terminal and npm both send SIGINT); a third forces exit', async () => {
    let release!: () => void;
    const slowStop = new Promise<void>((resolve) => (release = resolve));
    const exits: number[] = [];
    await runRoles([async () => ({ name: 'busy', stop: () => slowStop })], {
      logger: createLogger('test'),
      exit: (c) => void exits.push(c),
      signals: ['SIGUSR2'],
      repeatWindowMs: 20,
    });
    try {
      process.emit('SIGUSR2');
      process.emit('SIGUSR2'); // the same Ctrl-C, delivered twice
      await new Promise((r) => setTimeout(r, 40));
      process.emit('SIGUSR2'); // a second press: still waiting for the work in progress
      await new Promise((r) => setTimeout(r, 10));
      expect(exits).toEqual([]);
      release();
      await new Promise((r) => setTimeout(r, 10));
      expect(exits).toEqual([0]);
    } finally {
      process.removeAllListeners('SIGUSR2');
    }
  });

  it('a third separate signal forces the exit, saying so', async () => {
    const exits: number[] = [];
    await runRoles([async () => ({ name: 'stuck', stop: () => new Promise<void>(() => {}) })], {
      logger: createLogger('test'),
      exit: (c) => void exits.push(c),
      signals: ['SIGUSR2'],
      repeatWindowMs: 5,
    });
    try {
      for (let i = 0; i < 3; i++) {
        process.emit('SIGUSR2');
        await new Promise((r) => setTimeout(r, 15));
      }
      expect(exits).toEqual([130]);
    } finally {
      process.removeAllListeners('SIGUSR2');
    }
  });

  it('a process group signalled twice during shutdown, as by Ctrl-C under npm, still stops its roles and exits 0', async () => {
    // A real process and real signals: an in-process emit cannot show what the default action of a second SIGINT does.
    const script = `
      import { runRoles } from ${JSON.stringify(path.resolve('src/runtime/lifecycle.ts'))};
      import { createLogger } from ${JSON.stringify(path.resolve('src/logger.ts'))};
      await runRoles([async () => ({ name: 'busy', stop: async () => { await new Promise((r) => setTimeout(r, 400)); console.log('role stopped'); } })], { logger: createLogger('test') });
      console.log('ready');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`child not ready: ${out}`)), 20_000);
        child.stdout.on('data', () => out.includes('ready') && (clearTimeout(timer), resolve()));
      });
      // To the whole process group, twice, as a terminal and npm both deliver Ctrl-C.
      process.kill(-child.pid!, 'SIGINT');
      await new Promise((r) => setTimeout(r, 100));
      process.kill(-child.pid!, 'SIGINT');
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(out).toContain('role stopped');
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  }, 30_000);
});
