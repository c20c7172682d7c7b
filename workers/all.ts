/**
 * `npm start`: the whole pipeline in one process — IMAP poller, agent worker, sender and the maintenance role
 * (scheduled and requested reindexing) — for a single machine or `docker compose up`. Wiring and shutdown only.
 * On SIGTERM/SIGINT the roles stop in reverse start order: polling first, then the workers let their active jobs
 * finish, then the shared connections close.
 *
 * Run it as `node --import tsx workers/all.ts` in containers: npm does not relay SIGTERM to its script.
 */
import { createLogger } from '../src/logger.js';
import { startPollerRole } from '../src/mail/imap-supervisor.js';
import { startMaintenanceRole } from '../src/queues/maintenance.js';
import { startAgentWorker } from '../src/runtime/agent-worker.js';
import { runProcess } from '../src/runtime/main.js';
import { startSender } from '../src/runtime/sender.js';

await runProcess('helpdesk', (services, config) => [
  () => startSender(services),
  () => startMaintenanceRole(config, { connection: services.workerConnection(), search: services.search(), logger: createLogger('maintenance') }),
  () => startAgentWorker(services),
  () => startPollerRole(config, { logger: createLogger('imap-poller') }),
]);
