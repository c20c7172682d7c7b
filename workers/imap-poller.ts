/**
 * The IMAP poller process (`npm run poller`): watches the support mailbox and queues each mail for the agent
 * workers. Wiring only; the behaviour lives in `src/runtime/poller.ts`.
 */
import { ConfigError, loadConfigOrExit, requireVariables } from '../src/config.js';
import { configureLogging } from '../src/logger.js';
import { POLLER_VARIABLES, startPollerRole } from '../src/runtime/poller.js';
import { runRoles } from '../src/runtime/lifecycle.js';

const config = loadConfigOrExit();
const logger = configureLogging(config.LOG_LEVEL, { format: config.LOG_FORMAT });

try {
  requireVariables(config, POLLER_VARIABLES, 'IMAP poller');
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  // Same one-message form as loadConfigOrExit: a missing variable is not worth a stack trace.
  process.stderr.write(`${err.message}\n`);
  process.exit(2);
}

await runRoles([() => startPollerRole(config, { logger })], { logger });
