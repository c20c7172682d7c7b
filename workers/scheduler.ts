/**
 * Process entry of the scheduler (`npm run scheduler`): runs the reindex jobs of the `maintenance` queue and keeps
 * their cron schedules in Redis. Wiring and shutdown only; see `src/runtime/maintenance.ts`.
 */
import { ConfigError, loadConfigOrExit } from '../src/config.js';
import { configureLogging } from '../src/logger.js';
import { startMaintenanceRole } from '../src/runtime/maintenance.js';
import { runRoles } from '../src/runtime/lifecycle.js';

const config = loadConfigOrExit();
const logger = configureLogging(config.LOG_LEVEL, { format: config.LOG_FORMAT });

try {
  await runRoles([() => startMaintenanceRole(config)], { logger });
} catch (err) {
  // A message on stderr, like the other entry files: a start failure is the operator's to read, not a stack trace.
  // Exit code 2 for configuration problems (a cron the parser rejects), as loadConfigOrExit does.
  process.stderr.write(`scheduler: ${err instanceof Error ? err.message : String(err)}\n`);
  logger.debug({ err }, 'start failed');
  process.exit(err instanceof ConfigError ? 2 : 1);
}
