/**
 * One pino logger for the process; modules take a child with {@link createLogger}.
 * Secrets never reach it: config values are logged only through `redactConfig`, the redact paths below catch the
 * usual suspects should an object carry them anyway, and errors lose the Redis command arguments ioredis attaches
 * ({@link serializeError}).
 */
import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { VARIABLES, type Config } from './config.js';

export type { Logger };

let root: Logger | undefined;

/** How log lines look: see `LOG_FORMAT` in `src/config.ts`. */
export type LogFormat = Config['LOG_FORMAT'];

/** Where log lines go and how they look. */
export interface LoggingOptions {
  /** stdout for services (what container runtimes collect), stderr for command-line tools. */
  stream?: 'stdout' | 'stderr';
  /** Default `json`: entry points pass `LOG_FORMAT`. */
  format?: LogFormat;
}

/**
 * The format a process logs in. `auto` is pretty only for a person watching a terminal: a container runtime, a pipe
 * or a file gets JSON, which log collectors read. pino-pretty is a dev dependency (the production image leaves it
 * out), so without it every format is JSON.
 */
export function resolveLogFormat(format: LogFormat, terminal: boolean, prettyInstalled: boolean): 'json' | 'pretty' {
  if (!prettyInstalled) return 'json';
  if (format === 'auto') return terminal ? 'pretty' : 'json';
  return format;
}

type PrettyFactory = (options: Record<string, unknown>) => DestinationStream;

// Loaded on demand: production installs omit it, and a process that logs JSON never needs it.
function loadPretty(): PrettyFactory | undefined {
  try {
    return createRequire(import.meta.url)('pino-pretty') as PrettyFactory;
  } catch {
    return undefined;
  }
}

/**
 * An error as logged: pino's standard serialization, less the arguments of a Redis command ioredis attaches to it
 * (`command: {name, args}`), in every error the serialization holds: an AUTH's argument is the password in
 * REDIS_URL, and another command's arguments may be a ticket with a customer's mail. The command's name stays.
 */
export function serializeError(err: unknown): unknown {
  return withoutCommandArgs(pino.stdSerializers.err(err as Error), 0);
}

// pino folds an error's causes into its message and stack, but writes out in full the errors of an AggregateError
// (`aggregateErrors`) and an error held in any other field, each serialized like the error itself.
function withoutCommandArgs(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 8) return value;
  const record = value as Record<string, unknown>;
  const command = record.command;
  if (typeof command === 'object' && command !== null && 'args' in command) {
    record.command = { name: (command as { name?: unknown }).name };
  }
  for (const [key, field] of Object.entries(record)) {
    if (Array.isArray(field)) record[key] = field.map((item) => (isSerializedError(item) ? withoutCommandArgs(item, depth + 1) : item));
    else if (isSerializedError(field)) record[key] = withoutCommandArgs(field, depth + 1);
  }
  return record;
}

/** An error as pino's serializer writes it: only those are walked, not whatever other objects an error holds. */
function isSerializedError(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string' && typeof (value as { stack?: unknown }).stack === 'string';
}

// pino's redaction takes whole keys (`*` stands for one whole key, never part of one), so every sensitive variable
// is named: at the top of a log object and one level down (`{ config: {...} }`, `{ env: {...} }`).
const SENSITIVE_VARIABLES = Object.entries(VARIABLES)
  .filter(([, spec]) => spec.sensitive)
  .flatMap(([name]) => [name, `*.${name}`]);

/** The root logger's options at `level`: the same for every process, tests build their loggers from them. */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    base: { pid: process.pid },
    serializers: { err: serializeError },
    redact: {
      paths: [
        '*.password',
        '*.pass',
        '*.apiKey',
        '*.api_key',
        '*.authorization',
        'headers.authorization',
        '*.headers.authorization',
        // OAuth2 mail logins (src/mail/oauth2.ts): the library options' and the token endpoint's names.
        '*.accessToken',
        '*.access_token',
        '*.clientSecret',
        '*.client_secret',
        '*.refreshToken',
        '*.refresh_token',
        ...SENSITIVE_VARIABLES,
      ],
      censor: '***',
    },
  };
}

/** Sets the root logger's level, stream and format (called once the configuration is loaded). */
export function configureLogging(level: string, options: LoggingOptions = {}): Logger {
  const fd = options.stream === 'stderr' ? 2 : 1;
  const requested = options.format ?? 'json';
  const pretty = requested === 'json' ? undefined : loadPretty();
  const format = resolveLogFormat(requested, isatty(fd), pretty !== undefined);
  const destination =
    format === 'pretty' && pretty
      ? pretty({ destination: fd, sync: true, colorize: isatty(fd), singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
      : pino.destination({ fd, sync: true });
  root = pino(loggerOptions(level), destination);
  if (requested === 'pretty' && format === 'json') root.warn('LOG_FORMAT=pretty needs pino-pretty (a dev dependency, not in production installs): logging JSON');
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
