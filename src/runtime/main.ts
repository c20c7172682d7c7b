/**
 * The body of every process entry file in `workers/`: load the configuration (one message naming every bad
 * variable, exit 2), set up logging, build the shared {@link Services}, start the roles with `runRoles` and stop
 * them on SIGTERM/SIGINT — roles first (each lets its active jobs finish), the shared connections last.
 */
import { ConfigError, loadConfigOrExit, requireRoleVariables, type Config, type VariableName } from '../config.js';
import { configureLogging, createLogger } from '../logger.js';
import { runRoles, type RoleHandle } from './lifecycle.js';
import { Services, type ServicesOptions } from './services.js';

/** Options of {@link runProcess}. */
export interface RunProcessOptions extends Pick<ServicesOptions, 'tuning'> {
  /**
   * What the process's roles cannot run without, checked before anything starts, so that one message names all
   * of it (each role also checks its own as it starts).
   */
  required?: ReadonlyArray<{ names: VariableName[]; role: string }>;
}

/** Builds the role starters of a process from its services. */
export type RoleStarters = (services: Services, config: Config) => Array<() => Promise<RoleHandle>>;

/**
 * Runs a process made of roles. A role that cannot start (missing SMTP_HOST, a broken PROMPTS_FILE) ends the
 * process with one line on stderr and exit code 2 for configuration problems, 1 otherwise.
 */
export async function runProcess(name: string, roles: RoleStarters, options: RunProcessOptions = {}): Promise<void> {
  const config = loadConfigOrExit();
  try {
    requireRoleVariables(config, options.required ?? []);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${name}: ${err.message}\n`);
    process.exit(2);
  }
  configureLogging(config.LOG_LEVEL, { format: config.LOG_FORMAT });
  const logger = createLogger(name);
  const services = new Services(config, { ...options, logger: createLogger('services'), processName: name });
  const servicesRole = async (): Promise<RoleHandle> => ({ name: 'connections', closesLast: true, stop: () => services.close() });
  try {
    await runRoles([servicesRole, ...roles(services, config)], { logger });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`${name}: ${message}\n`);
    logger.debug({ err }, 'start failed');
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
}
