/**
 * The dashboard as a role for `runRoles`: checks the authentication settings first (no password and
 * DASHBOARD_AUTH≠off → `ConfigError` naming both variables), waits for Redis, and serves {@link createDashboardApp}
 * on DASHBOARD_HOST:DASHBOARD_PORT — 127.0.0.1 unless DASHBOARD_HOST names another address, and 127.0.0.1 only
 * without authentication.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import { readPollerStatus, type PollerStatus } from './poller.js';
import { readRoleStatus } from './role-status.js';
import type { RoleHandle } from './lifecycle.js';
import { Services } from './services.js';
import { GapStore, seenInPeriod } from '../knowledge/gaps.js';
import type { KnowledgeGap as InsightGap } from '../server/insights.js';
import { createDashboardApp, type DashboardDeps } from '../server/app.js';
import { listTrust } from '../tickets/trust.js';
import { resolveAuth } from '../server/auth.js';

/** Options of {@link startDashboardRole}. */
export interface DashboardRoleOptions {
  /** Shared services of the process (`npm start`); without them the role builds and closes its own. */
  services?: Services;
  logger?: Logger;
  /** Overrides how `/readyz` learns the poller's state (default: the poller's Redis state of the configured mailbox). */
  pollerStatus?: () => Promise<PollerStatus>;
  /** Passed to {@link createDashboardApp}. */
  pollMaxAgeMs?: number;
  /**
   * A server already listening where the dashboard is to answer: the dashboard serves its requests instead of
   * listening anew, and closes it when it stops. The demo holds its port so from its first moment (src/cli/demo.ts):
   * freed to be listened on again, it was taken in between by a second demo starting beside it.
   */
  listening?: Server;
}

/** The running dashboard. */
export interface DashboardRole extends RoleHandle {
  /** Where it listens. */
  readonly address: AddressInfo;
  /** `http://host:port` of {@link address}. */
  readonly url: string;
}

/** Open connections get this long to finish their request on shutdown before they are cut. */
const CLOSE_GRACE_MS = 5_000;

/** How many ports after a busy one {@link freePortAfter} tries. */
const PORTS_TRIED = 20;

/** Whether `host:port` can be listened on now (the listener is closed again at once). */
function canListen(port: number, host: string | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/** The first of the next few ports after `port` that is free on `host` now, for the fix the message names. */
async function freePortAfter(port: number, host: string | undefined): Promise<number | undefined> {
  for (let candidate = port + 1; candidate <= Math.min(port + PORTS_TRIED, 65_535); candidate++) {
    if (await canListen(candidate, host)) return candidate;
  }
  return undefined;
}

/**
 * The message of a port in use, with the setting that fixes it: "set DASHBOARD_PORT" alone left a newcomer whose
 * port 3000 another program held (a second checkout, a web app) guessing which value would do, and where to put it.
 */
async function portInUseMessage(where: string, port: number, host: string | undefined): Promise<string> {
  const free = await freePortAfter(port, host);
  // 0 lets the system choose, and the dashboard logs the port it got.
  const setting = `DASHBOARD_PORT=${free ?? 0}`;
  return `the dashboard cannot listen on ${where}: the port is in use; stop what holds it, or set ${setting} in .env (or run with it: ${setting} npm start)`;
}

function listen(server: Server, port: number, host: string | undefined): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const where = `${host ?? '*'}:${port}`;
      const message = err.code === 'EADDRINUSE' ? portInUseMessage(where, port, host) : Promise.resolve(`the dashboard cannot listen on ${where}: ${err.message}`);
      void message.then((text) => reject(new Error(text, { cause: err })));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Starts the dashboard role; see the module comment. */
export async function startDashboardRole(config: Config, options: DashboardRoleOptions = {}): Promise<DashboardRole> {
  // Before any connection: a misconfigured dashboard must fail at once with the variables to set.
  const auth = resolveAuth(config);
  const logger = options.logger ?? createLogger('dashboard');
  const ownServices = options.services === undefined;
  const services = options.services ?? new Services(config, { logger: createLogger('services'), processName: 'dashboard' });

  let server: Server | undefined;
  try {
    const [redis, store, queues] = [await services.producer(), await services.store(), await services.queues()];
    const pollerStatus = options.pollerStatus ?? (config.IMAP_HOST && config.IMAP_USER ? () => readPollerStatus(redis, config) : undefined);
    const deps: DashboardDeps = {
      config,
      redis,
      store,
      queues,
      search: services.search(),
      qa: services.search().qa,
      tuning: services.tuning,
      logger,
      ...(pollerStatus ? { pollerStatus } : {}),
      agentStatus: () => readRoleStatus(redis, config.QUEUE_PREFIX, 'agent'),
      senderStatus: () => readRoleStatus(redis, config.QUEUE_PREFIX, 'sender'),
      ...(options.pollMaxAgeMs !== undefined ? { pollMaxAgeMs: options.pollMaxAgeMs } : {}),
      // The sources' trust records exist once reviews were recorded (any mode); the insights page lists them then.
      insightProviders: {
        trust: { sourceRecords: () => listTrust(redis, config.QUEUE_PREFIX, config) },
        gaps: { topGaps: (period) => topGapsOf(new GapStore(redis, { prefix: config.QUEUE_PREFIX }), period) },
      },
    };
    const app = createDashboardApp(deps);
    let address: AddressInfo;
    if (options.listening) {
      server = options.listening.on('request', app);
      address = server.address() as AddressInfo;
    } else {
      server = createServer(app);
      // Loopback unless DASHBOARD_HOST says otherwise; without authentication only this machine, whatever it says.
      const host = auth.mode === 'off' ? '127.0.0.1' : config.DASHBOARD_HOST;
      address = await listen(server, config.DASHBOARD_PORT, host);
    }
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `http://${shownHost}:${address.port}`;
    if (auth.mode === 'off') logger.warn({ url }, 'Dashboard authentication is OFF (DASHBOARD_AUTH=off); listening on 127.0.0.1 only');
    logger.info({ url, user: auth.mode === 'basic' ? auth.user : undefined }, `Dashboard listening on ${url}`);

    const running = server;
    let stopping: Promise<void> | undefined;
    return {
      name: 'dashboard',
      address,
      url,
      stop: () =>
        (stopping ??= (async () => {
          const closed = new Promise<void>((resolve) => running.close(() => resolve()));
          running.closeIdleConnections();
          const cut = setTimeout(() => running.closeAllConnections(), CLOSE_GRACE_MS);
          cut.unref();
          await closed;
          clearTimeout(cut);
          if (ownServices) await services.close();
        })()),
    };
  } catch (err) {
    server?.close();
    if (ownServices) await services.close();
    throw err;
  }
}

/**
 * The open knowledge gaps seen in a period, largest first, as the insights page shows them. A gap's count covers its
 * whole life (the store keeps no per-day counts); the period selects the gaps customers ran into within it.
 */
export async function topGapsOf(store: GapStore, period: { from: string; to: string; limit: number }): Promise<InsightGap[]> {
  const { open } = await store.list({ limit: 300 });
  return open
    .filter((gap) => seenInPeriod(gap, period))
    .slice(0, period.limit)
    .map((gap) => ({ topic: gap.examples[0] ?? gap.id, tickets: gap.count, ...(gap.examples[0] ? { example: gap.examples[0] } : {}), lastSeenAt: gap.lastSeen }));
}
