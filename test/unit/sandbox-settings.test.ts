/**
 * What `npm run sandbox` writes into `.env` over the user's lines: a dashboard on loopback with a password of its
 * own run, whatever the user's DASHBOARD_HOST says — never the whole network behind a password printed in the source.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxDashboardPort, sandboxSettings } from '../../infra/sandbox.js';
import { loadConfig } from '../../src/config.js';
import { lendEnvFile } from '../../src/dev/local-run.js';
import { resolveAuth } from '../../src/server/auth.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SERVERS = {
  redis: { url: 'redis://127.0.0.1:6390' },
  imap: { host: '127.0.0.1', port: 1143, user: 'support@helpdesk.test', password: 'support' },
  smtp: { host: '127.0.0.1', port: 2525 },
};

describe('sandboxSettings', () => {
  it("serves the dashboard on loopback with the run's password, over a user's .env that opens it to the network", () => {
    writeFileSync(path.join(dir, '.env'), 'DASHBOARD_HOST=0.0.0.0\nDASHBOARD_PASSWORD=my-own-long-strong-password\nOPENAI_API_KEY=sk-real-key-of-the-user\n');
    const password = 'Run-Password-4f9c2a7e1b';
    const lent = lendEnvFile(path.join(dir, '.env'), path.join(dir, '.env.before-sandbox'), sandboxSettings(SERVERS, password), '# sandbox');
    try {
      const config = loadConfig({}, dir);
      expect(config.DASHBOARD_HOST).toBe('127.0.0.1');
      expect(config.DASHBOARD_PASSWORD).toBe(password);
      expect(config.DASHBOARD_AUTH).toBe('on');
      // The dashboard of `npm start` accepts it (a weak one would only warn on loopback, but it is not weak).
      expect(resolveAuth(config)).toMatchObject({ mode: 'basic', password });
    } finally {
      lent.restore();
    }
  });

  it('holds no fixed password: what it writes is the password it is given', () => {
    const settings = sandboxSettings({ ...SERVERS, llm: { url: 'http://127.0.0.1:9/v1' } }, 'x'.repeat(16));
    expect(settings).toMatchObject({ DASHBOARD_HOST: '127.0.0.1', DASHBOARD_PASSWORD: 'x'.repeat(16), OPENAI_API_KEY: 'sandbox', REVIEW_MODE: 'auto' });
    expect(Object.values(sandboxSettings(SERVERS, 'p'))).not.toContain('sandbox-only');
  });
});

/** A port something else holds on loopback, as another app held 3000 in the newcomer's walk. */
async function heldPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as AddressInfo).port, server };
}

// Newcomer's walk, finding 3: with port 3000 taken, `npm start` on the sandbox's .env stopped every role.
describe('sandboxDashboardPort', () => {
  it('keeps a free port, and lends a free one instead of a port in use', async () => {
    const held = await heldPort();
    const freed = await heldPort();
    await new Promise((resolve) => freed.server.close(resolve));
    try {
      expect(await sandboxDashboardPort(String(freed.port))).toBe(freed.port);
      const lent = await sandboxDashboardPort(String(held.port));
      expect(lent).toBeDefined();
      expect(lent).not.toBe(held.port);
      // What the sandbox writes is what `npm start` reads.
      expect(sandboxSettings(SERVERS, 'p', lent)).toMatchObject({ DASHBOARD_PORT: String(lent) });
    } finally {
      held.server.close();
    }
  });

  it.each([['0'], ['not-a-port'], ['70000']])('keeps the user\'s DASHBOARD_PORT=%s for the configuration to read', async (value) => {
    expect(await sandboxDashboardPort(value)).toBeUndefined();
  });

  it('writes no DASHBOARD_PORT when it keeps the user\'s', () => {
    expect(sandboxSettings(SERVERS, 'p')).not.toHaveProperty('DASHBOARD_PORT');
  });
});
