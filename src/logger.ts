/**
 * One pino logger for the process; modules take a child with {@link createLogger}.
 * Secrets never reach it: config values are logged only through `redactConfig`, and the redact paths below catch
 * the usual suspects should an object carry them anyway.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

let root: Logger | undefined;

/** Where log lines go: stdout for services (what container runtimes collect), stderr for command-line tools. */
export interface LoggingOptions {
  stream?: 'stdout' | 'stderr';
}

/** Sets the root logger's level and stream (called once the configuration is loaded). */
export function configureLogging(level: string, options: LoggingOptions = {}): Logger {
  const destination = pino.destination({ fd: options.stream === 'stderr' ? 2 : 1, sync: true });
  root = pino({
    level,
    base: { pid: process.pid },
    redact: {
      paths: ['*.password', '*.apiKey', '*.api_key', '*.authorization', 'headers.authorization', 'config.*_PASSWORD', 'config.*_API_KEY'],
      censor: '***',
    },
  }, destination);
  return root;
}

/** The process-wide root logger; until an entry point calls {@link configureLogging} it logs at `info`. */
export function rootLogger(): Logger {
  root ??= configureLogging('info');
  return root;
}

/** A child logger for one module, e.g. `createLogger('agent')`. */
export function createLogger(module: string, bindings: Record<string, unknown> = {}): Logger {
  return rootLogger().child({ module, ...bindings });
}
