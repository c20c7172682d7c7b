import { configureLogging } from '../../src/logger.js';

// Tests assert on behaviour, not log lines; HELPDESK_TEST_LOGS=1 is not read here on purpose (config.ts owns env).
configureLogging('silent');

// Every test, and every process a test spawns (they inherit this environment), ignores the developer's `.env`.
process.env.HELPDESK_ENV_FILE = 'none';
