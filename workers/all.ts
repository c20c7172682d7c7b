/**
 * `npm start`: the whole product in one process — IMAP poller, agent worker, sender, the maintenance role
 * (scheduled and requested reindexing) and the dashboard — for a single machine. Wiring and shutdown only.
 * On SIGTERM/SIGINT every role stops taking work at once and lets its active jobs finish (a long reindex does not
 * keep the sender taking replies until the deadline), then the shared connections close.
 *
 * The npm script `exec`s it (`node infra/build.mjs && exec node dist/workers/all.js`) because npm 11 signals only the shell it
 * spawned; without `exec` SIGTERM would orphan this process instead of stopping it.
 */
import { ConfigError } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { optionalRole } from '../src/runtime/lifecycle.js';
import { POLLER_VARIABLES, startPollerRole } from '../src/runtime/poller.js';
import { startMaintenanceRole } from '../src/runtime/maintenance.js';
import { startAgentWorker } from '../src/runtime/agent-worker.js';
import { runProcess } from '../src/runtime/main.js';
import { SENDER_VARIABLES, startSender } from '../src/runtime/sender.js';
import { startDashboardRole } from '../src/runtime/dashboard.js';

await runProcess('helpdesk', (services, config) => [
  () => startSender(services),
  () => startMaintenanceRole(config, { connection: services.workerConnection(), search: services.search(), tuning: services.tuning, logger: createLogger('maintenance') }),
  () => startAgentWorker(services),
  () => startPollerRole(config, { logger: createLogger('imap-poller') }),
  // Without DASHBOARD_PASSWORD (and without DASHBOARD_AUTH=off) the dashboard refuses to start; the mail pipeline
  // must not stop answering customers because of that, so here the refusal is one error line, not an exit.
  optionalRole('dashboard', () => startDashboardRole(config, { services, logger: createLogger('dashboard') }), {
    logger: createLogger('helpdesk'),
    isRefusal: (err) => err instanceof ConfigError,
  }),
], {
  required: [
    { names: SENDER_VARIABLES, role: 'sender' },
    { names: POLLER_VARIABLES, role: 'IMAP poller' },
  ],
});
