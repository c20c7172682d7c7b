/**
 * What the command-line tools share: stdout reserved for results, logs on stderr, one clear line per failure, and
 * checks that an index exists before searching it.
 */
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import type { Command, CommanderError } from 'commander';
import { APIConnectionError, APIError } from 'openai';
import { maskedServerUrl, withoutSecrets } from '../agent/model-errors.js';
import { apiKeyHint, apiKeyProblem, baseUrlHint, causes, llmServerUrl, OWN_SERVER_HINT } from '../openai.js';
import { loadConfigOrExit, type Config, type VariableGroup } from '../config.js';
import { readLiveRunState } from '../dev/local-run.js';
import { EmptySourceError, KnowledgeError } from '../knowledge/errors.js';
import { RedisUnavailableError } from '../queues/connection.js';
import { plural, terminalSafe } from './format.js';
import { configureLogging, createLogger, type Logger } from '../logger.js';
import type { ManualSearch, QaSearch } from '../search/types.js';

// plural lives with the other formatting (format.ts, which this file takes terminalSafe from); commands take it
// from here too.
export { plural };

/** A failure whose message is already the one line to show (no stack, no prefix beyond the tool name). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The running tool: its configuration, its logger and the one way to print results. */
export interface CliContext {
  config: Config;
  logger: Logger;
  /** Writes result text to stdout (nothing else reaches stdout). */
  print(text: string): void;
}

let resultWrite: ((text: string) => boolean) | undefined;

/**
 * Keeps stdout for results only. Our logs already go to stderr; this also catches libraries that print on stdout
 * (pdf.js, client warnings) by forwarding `process.stdout.write` to stderr, while results go out through the
 * original method kept here — so `--json` output stays parseable whatever a dependency prints.
 */
function reserveStdoutForResults(): (text: string) => boolean {
  if (resultWrite) return resultWrite;
  const stdout = process.stdout;
  const original = stdout.write.bind(stdout) as (text: string) => boolean;
  stdout.write = ((...args: Parameters<typeof process.stderr.write>) => process.stderr.write(...args)) as typeof stdout.write;
  // `npm run search -- … | head` closes the pipe early; that is the reader's choice, not a failure worth a stack.
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  resultWrite = original;
  return original;
}

/** What a command needs from the configuration and how much it logs. */
export interface CommandOptions {
  /** The variable groups it uses; a bad value in another group does not stop it. Default: all. */
  groups?: readonly VariableGroup[];
  /**
   * Logs below `warn` stay out of the way (a person reads the answer, a progress bar redraws its line) unless
   * `verbose` asks for them at LOG_LEVEL.
   */
  quiet?: boolean;
  verbose?: boolean;
}

const LEVEL_ORDER = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** The log level a command uses: LOG_LEVEL, raised to `warn` when quiet and not verbose. */
export function commandLogLevel(configured: string, options: Pick<CommandOptions, 'quiet' | 'verbose'>): string {
  if (!options.quiet || options.verbose) return configured;
  return LEVEL_ORDER.indexOf(configured) >= LEVEL_ORDER.indexOf('warn') ? configured : 'warn';
}

/**
 * Starts a command: loads configuration (exit 2 with the list of problems when invalid) and configures logging to
 * stderr at LOG_LEVEL (see {@link CommandOptions.quiet}).
 */
export function startCli(name: string, options: CommandOptions = {}): CliContext {
  const write = reserveStdoutForResults();
  const config = loadConfigOrExit(options.groups ? { groups: options.groups } : {});
  configureLogging(commandLogLevel(config.LOG_LEVEL, options), { stream: 'stderr', format: config.LOG_FORMAT });
  return { config, logger: createLogger(`cli:${name}`), print: (text) => void write(text.endsWith('\n') ? text : `${text}\n`) };
}

/**
 * What to do about an LLM server that cannot be reached: with OPENAI_BASE_URL, that server is the admin's own; without
 * it the server is OpenAI's, whose first cause is the key `npm run check` names ({@link apiKeyProblem}), and past
 * that, another server or local embeddings.
 */
function unreachableServerHint(config: Pick<Config, 'OPENAI_BASE_URL'> & Partial<Pick<Config, 'OPENAI_API_KEY'>>): string {
  if (config.OPENAI_BASE_URL) return '; check OPENAI_BASE_URL / that the server is running';
  // A caller that did not pass the key cannot tell a placeholder from a real one; the generic hint still holds.
  const keyProblem = 'OPENAI_API_KEY' in config ? apiKeyProblem({ ...config, OPENAI_API_KEY: config.OPENAI_API_KEY ?? '' }) : undefined;
  return `; ${keyProblem ?? OWN_SERVER_HINT}`;
}

/**
 * The stand-ins that lend `.env`: where each keeps the user's own file while it runs, and the state file it keeps
 * meanwhile (its pid; `infra/sandbox.ts` and `src/cli/demo.ts` write them, and remove them when they stop).
 */
const LENT_ENV_FILES = [
  { backup: '.env.before-sandbox', state: '.data/sandbox/sandbox.json', by: 'sandbox', restore: 'npm run sandbox restores it' },
  { backup: '.env.before-demo', state: '.data/demo/demo.json', by: 'demo', restore: 'npm run demo, then Ctrl-C, restores it' },
] as const;

/**
 * The note for a Redis that does not answer while `.env` is lent by a stand-in (in checkout `dir`). One that was
 * killed (SIGKILL, a crashed tab) left its `.env` pointing at its dead servers, with the user's own file beside it;
 * one still running (its recorded pid alive) lent the right `.env`, so the cause is elsewhere and restoring would be
 * wrong advice. Empty when no stand-in lent `.env`.
 */
export function lentEnvNote(dir = '.'): string {
  const lent = LENT_ENV_FILES.find((f) => existsSync(path.join(dir, f.backup)));
  if (!lent) return '';
  const running = readLiveRunState(path.join(dir, lent.state));
  if (running) return ` (.env points at the ${lent.by} still running as pid ${running.pid}, yet its Redis did not answer: see its terminal; your own .env waits in ${lent.backup})`;
  return ` (.env was written by a ${lent.by} that is no longer running: your own is ${lent.backup}; ${lent.restore})`;
}

/** The model server's URL for a terminal: its user, password and query values masked, as a parked ticket shows it. */
function shownServerUrl(config: Pick<Config, 'OPENAI_BASE_URL'> | undefined): string {
  return config ? maskedServerUrl(llmServerUrl(config)) : 'the configured URL';
}

/**
 * The one line to show for a failure. Errors of our own carry their message; LLM errors say which server, since
 * "Connection error." alone does not tell an operator that OPENAI_BASE_URL points at a stopped Ollama, with the URL
 * masked and every secret cut from what the server or fetch said (fetch repeats a URL with credentials whole).
 */
export function describeError(err: unknown, config?: Pick<Config, 'OPENAI_BASE_URL'> & Partial<Pick<Config, 'OPENAI_API_KEY'>>): string {
  for (const e of causes(err)) {
    if (e instanceof APIConnectionError) {
      const detail = e.cause instanceof Error && e.cause.message !== e.message ? ` (${e.cause.message})` : '';
      const hint = config ? unreachableServerHint(config) : '';
      return withoutSecrets(`cannot reach the LLM server at ${shownServerUrl(config)}: ${e.message}${detail}${hint}`, config ?? {});
    }
    if (e instanceof APIError && e.status !== undefined) {
      return withoutSecrets(`the LLM server at ${shownServerUrl(config)} answered ${e.status}: ${e.message}${apiKeyHint(e.status)}${config ? baseUrlHint(e.status, config) : ''}`, config ?? {});
    }
  }
  if (err instanceof CliError || err instanceof KnowledgeError || err instanceof EmptySourceError) return err.message;
  for (const e of causes(err)) {
    // The bare connection error does not say what to do.
    if (e instanceof RedisUnavailableError) return `${e.message}: is Redis running? Set REDIS_URL${lentEnvNote()}`;
  }
  const first = err instanceof Error ? err.message || err.name : String(err);
  return first.split('\n')[0] ?? first;
}

/**
 * What `review approve` prints: the approval, and that the approved reply may come back as a learned-answer candidate
 * — approving alone teaches the desk nothing until a person accepts that candidate.
 */
export function approvalMessage(ticketId: string, by: string): string {
  return [
    `approved ${ticketId} (by ${by}); the reply is queued for sending`,
    'it may be proposed as a learned answer: accept it on the dashboard\'s /knowledge page or with npm run knowledge -- list / accept <id>, and the next such question is answered from it',
  ].join('\n');
}

/**
 * Runs a command: {@link startCli}, then `body`. On failure prints `name: <one line>` ({@link terminalSafe}) to
 * stderr, logs the details at debug and sets a non-zero exit code. The process then ends by itself once handles
 * close, so output still buffered is never cut off.
 */
export async function runCommand(name: string, body: (ctx: CliContext) => Promise<void>, options: CommandOptions = {}): Promise<void> {
  const ctx = startCli(name, options);
  try {
    await body(ctx);
  } catch (err) {
    // A failure's message may quote what strangers wrote (a manual file's name, a reader's verdict on it, a worker's
    // failedReason): its control characters must not retitle or clear the terminal.
    process.stderr.write(`${name}: ${terminalSafe(describeError(err, ctx.config))}\n`);
    ctx.logger.debug({ err }, 'command failed');
    process.exitCode = err instanceof CliError ? err.exitCode : 1;
  }
}

/** Exit code of a usage error: the command line is wrong, nothing was tried (README's Commands section). */
export const USAGE_EXIT_CODE = 2;

/**
 * Parses the command line with `program` and runs its action. Commander ends a usage error it finds (an unknown
 * command or option, a missing or invalid argument, `program.error`, no command given) with exit 1, which the
 * commands keep for work that failed: here those end with {@link USAGE_EXIT_CODE}, as the usage errors the commands
 * find themselves (`CliError(…, 2)`) and the sandbox's do. `--help` and `--version` still exit 0.
 */
export async function parseCommandLine(program: Command): Promise<void> {
  const usageExit = (err: CommanderError): never => process.exit(err.exitCode === 0 ? 0 : USAGE_EXIT_CODE);
  const override = (command: Command): void => {
    command.exitOverride(usageExit);
    for (const sub of command.commands) override(sub);
  };
  override(program);
  await program.parseAsync();
}

/** Message of a missing index, pointing at the command that builds it. */
export function noIndexMessage(what: 'manual' | 'Q&A'): string {
  return `no ${what} index yet: run npm run reindex`;
}

/** Fails with {@link noIndexMessage} when the search has nothing indexed. */
export async function requireIndex(search: ManualSearch | QaSearch, what: 'manual' | 'Q&A'): Promise<void> {
  if ((await search.count()) === 0) throw new CliError(noIndexMessage(what));
}

/** Closes search backends, ignoring close errors (the command's own outcome is what matters). */
export async function closeAll(...items: ({ close?(): Promise<void> } | undefined)[]): Promise<void> {
  await Promise.all(items.map(async (item) => item?.close?.().catch(() => undefined)));
}

/** Reads all of stdin as UTF-8 text. */
export async function readStdin(): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of process.stdin) parts.push(typeof part === 'string' ? Buffer.from(part) : (part as Buffer));
  return Buffer.concat(parts).toString('utf8');
}

/** Who acts (approves, accepts): `--by NAME`, else the OS user. */
export function operatorName(by: string | undefined): string {
  if (by?.trim()) return by.trim();
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}
