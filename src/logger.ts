/**
 * One pino logger for the process; modules take a child with {@link createLogger}.
 * Secrets never reach it: config values are logged only through `redactConfig`, the redact paths below catch the
 * usual suspects should an object carry them anyway, and errors lose the Redis command arguments ioredis attaches
 * ({@link serializeError}).
 */
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

let root: Logger | undefined;

/** Where log lines go: stdout for services (what container runtimes collect), stderr for command-line tools. */
export interface LoggingOptions {
  stream?: 'stdout' | 'stderr';
}

/**
 * An error as logged: pino's standard serialization, less the arguments of a Redis command ioredis attaches to it
 * (`command: {name, args}`), down the cause chain: an AUTH's argument is the password in REDIS_URL, and another
 * command's arguments may be a ticket with a customer's mail. The command's name stays.
 */
export function serializeError(err: unknown): unknown {
  return withoutCommandArgs(pino.stdSerializers.err(err as Error), 0);
}

function withoutCommandArgs(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 8) return value;
  const record = value as Record<string, unknown>;
  const command = record.command;
  if (typeof command === 'object' && command !== null && 'args' in command) {
    record.command = { name: (command as { name?: unknown }).name };
  }
  if (record.cause !== undefined) record.cause = withoutCommandArgs(record.cause, depth + 1);
  if (Array.isArray(record.errors)) record.errors = record.errors.map((e) => withoutCommandArgs(e, depth + 1));
  return record;
}

/** The root logger's options at `level`: the same for every process, tests build their loggers from them. */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    base: { pid: process.pid },
    serializers: { err: serializeError },
    redact: {
      paths: ['*.password', '*.apiKey', '*.api_key', '*.authorization', 'headers.authorization', 'config.*_PASSWORD', 'config.*_API_KEY'],
      censor: '***',
    },
  };
}

/** Sets the root logger's level and stream (called once the configuration is loaded). */
export function configureLogging(level: string, options: LoggingOptions = {}): Logger {
  const destination = pino.destination({ fd: options.stream === 'stderr' ? 2 : 1, sync: true });
  root = pino(loggerOptions(level), destination);
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
