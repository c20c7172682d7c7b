/**
 * `npm run check`: reads the configuration as the roles do and reaches each server they need once — Redis, the
 * IMAP mailbox, the SMTP server, the model server, the search indexes (compared with the last recorded build as the
 * agent worker compares them: src/cli/check-indexes.ts) — reads the Authentication-Results on top of
 * the mailbox's latest mails against AUTHSERV_ID, reads PROMPTS_FILE as the agent does (src/cli/check-prompts.ts), and
 * checks that the dashboard would start, then prints one line per check and exits 1 when any failed. What an admin runs after filling in `.env`, instead
 * of starting every role and reading logs. Nothing is changed anywhere: no mail is sent or marked, no index written,
 * no model call billed (the model server is asked for its list of models), the dashboard's port is only tried.
 * `--role ROLE` checks only what one role uses, for a machine that runs only it (src/cli/check-roles.ts).
 */
import { createServer } from 'node:net';
import type { ImapFlow } from 'imapflow';
import { Command, Option } from 'commander';
import { pino } from 'pino';
import { ConfigError, type Config } from '../config.js';
import { apiKeyProblem, createOpenAIClient, modelServerFailure, OWN_SERVER_HINT, shownLlmServerUrl } from '../openai.js';
import { checkRedisSettings, connectProducer, describeRedis } from '../queues/connection.js';
import { imapLoginSetting, mailTokenSource } from '../mail/oauth2.js';
import { connectForSentCopy } from '../mail/sent-copy.js';
import { classifySmtpError, createSmtpTransport, describeSmtp } from '../mail/smtp-transport.js';
import { describeImapFailure, type ConnectPhase } from '../runtime/poller.js';
import { failureLine } from '../runtime/role-status.js';
import { resolveAuth, type DashboardAuth } from '../server/auth.js';
import { weakDashboardPassword } from '../server/password-strength.js';
import { RECENT_MAILS, senderAuthenticationOutcome, senderAuthenticationUnread } from './check-authentication.js';
import { checkIndexes } from './check-indexes.js';
import { CHECK_ROLES, checksOfRole, type CheckName, type CheckRole } from './check-roles.js';
import { promptsFileOutcome } from './check-prompts.js';
import {
  appPasswordHint,
  CHECK_TIMEOUT_MS,
  checkLine,
  NoAnswerInTime,
  oneLine,
  withTimeout,
  durabilityProblem,
  evictionPolicyProblem,
  gotNoGreeting,
  mailConnectionProblem,
  missingLoginSettings,
  missingMailboxProblem,
  speaksTlsAtOnce,
  type MailServerSetting,
} from './check-diagnosis.js';
import { describeError, parseCommandLine, runCommand } from './common.js';
import { timeZoneProblem } from '../tickets/local-day.js';

/**
 * How long a mail server may take to connect and greet. Shorter than the check's other bounds on the connection (its
 * socket's quiet spell, the check's own timeout), so that a server that never greets fails as that, after which a TLS
 * handshake on the side can tell a server waiting for TLS from the start; with equal bounds whichever timer fired
 * first decided what the admin read.
 */
const GREETING_TIMEOUT_MS = CHECK_TIMEOUT_MS - 3_000;
/** How long a TLS handshake on the side may take (see {@link speaksTlsAtOnce}). */
const TLS_PROBE_TIMEOUT_MS = 5_000;

/** One server's check: what was reached, and the problem if it was not. */
export interface CheckOutcome {
  what: string;
  where: string;
  /** `ok`; `failed` (the role needing it cannot work); `warning` (it works, but not as configured); `skipped`. */
  status: 'ok' | 'failed' | 'warning' | 'skipped';
  detail?: string;
}

/** The roles' check of Redis's settings logs its warnings; here its answer becomes the line, so its log says nothing. */
const SILENT = pino({ level: 'silent' });

/**
 * Redis answers, and its `maxmemory-policy`, `appendonly` and `appendfsync` read as the roles read them at start
 * ({@link checkRedisSettings}): a warning, as theirs is, when Redis may delete queued mail and tickets to make room,
 * or lose them or the record of a reply sent in a crash (README asks for noeviction, appendonly yes and appendfsync
 * always). A warning and not a failure: every role works with such a Redis, and a managed Redis that refuses CONFIG
 * (said as "could not be read") may well be durable.
 */
async function checkRedis(config: Config): Promise<CheckOutcome> {
  const where = describeRedis(config.REDIS_URL);
  try {
    const redis = await connectProducer(config.REDIS_URL, { timeoutMs: CHECK_TIMEOUT_MS, giveUpOnError: true });
    let problems: string[];
    try {
      await withTimeout(redis.ping(), where);
      // Undefined only when the connection broke right after the PING: then they are said unread.
      const settings = (await withTimeout(checkRedisSettings(redis, SILENT), where)) ?? {};
      problems = [evictionPolicyProblem(settings.maxmemoryPolicy), durabilityProblem(settings)].filter((p): p is string => p !== undefined);
    } finally {
      redis.disconnect();
    }
    return problems.length > 0 ? { what: 'Redis', where, status: 'warning', detail: problems.join('; ') } : { what: 'Redis', where, status: 'ok' };
  } catch (err) {
    // As review and knowledge say it: the variable to fix, and a stand-in's .env left behind.
    return { what: 'Redis', where, status: 'failed', detail: failureLine(describeError(err, config)) };
  }
}

/**
 * With MAIL_AUTH=oauth2, one token request to the token endpoint, before the IMAP and SMTP logins use the token (the
 * process's token source hands them the same one). Undefined with MAIL_AUTH=password.
 */
async function checkOAuth2Token(config: Config): Promise<CheckOutcome | undefined> {
  const tokens = config.MAIL_AUTH === 'oauth2' && config.MAIL_OAUTH2_TOKEN_URL && config.MAIL_OAUTH2_CLIENT_ID ? mailTokenSource(config) : undefined;
  if (!tokens) return undefined;
  const where = tokens.endpoint;
  try {
    await withTimeout(tokens.getToken(), where);
    return { what: 'OAuth2 token', where, status: 'ok', detail: `the token endpoint answered the ${tokens.grant} request of client ${config.MAIL_OAUTH2_CLIENT_ID}` };
  } catch (err) {
    return { what: 'OAuth2 token', where, status: 'failed', detail: oneLine(err) };
  }
}

/** With a failed token check, the logins are not tried: each would only repeat the token endpoint's answer. */
const NO_TOKEN = 'not tried: no OAuth2 token (see the OAuth2 token line)';

/** The IMAP check's lines: the login and mailbox, and, once the mailbox opened, what its latest mails' headers say. */
interface ImapOutcomes {
  imap: CheckOutcome;
  senderAuthentication?: CheckOutcome;
}

/** The mail server settings {@link mailConnectionProblem} reads. */
function mailServer(config: Config, protocol: MailServerSetting['protocol']): MailServerSetting {
  const imap = protocol === 'IMAP';
  return {
    protocol,
    host: (imap ? config.IMAP_HOST : config.SMTP_HOST) ?? '',
    port: imap ? config.IMAP_PORT : config.SMTP_PORT,
    secure: imap ? config.IMAP_SECURE : config.SMTP_SECURE,
    user: imap ? config.IMAP_USER : config.SMTP_USER,
    oauth2: config.MAIL_AUTH === 'oauth2',
  };
}

/**
 * After a connection without TLS from the start got no greeting, or nothing at all before the check gave up on it
 * (a busy machine can fire the check's timer before the connection's own): whether the server was waiting for a TLS
 * handshake (then TLS from the start is the fix). Undefined when there is nothing to ask.
 */
async function probedAfterNoGreeting(err: unknown, server: MailServerSetting): Promise<boolean | undefined> {
  if (server.secure || !(gotNoGreeting(err) || err instanceof NoAnswerInTime)) return undefined;
  return speaksTlsAtOnce(server.host, server.port, TLS_PROBE_TIMEOUT_MS);
}

/**
 * The check's line for a mail server that could not be used, or undefined for the roles' own description. A server
 * found speaking TLS at once is said as such whatever the connection's own error was (a greeting timeout, or the
 * check's timeout, which alone names no missing greeting).
 */
function mailServerLine(err: unknown, server: MailServerSetting, speaksTls: boolean | undefined): string | undefined {
  return mailConnectionProblem(speaksTls ? undefined : err, server, speaksTls);
}

/**
 * When the mailbox did not open: the line naming the mailboxes the server lists, if IMAP_MAILBOX is none of them;
 * undefined otherwise (or when the list cannot be read), for the roles' own description of the failure.
 */
async function missingMailbox(client: ImapFlow, mailbox: string): Promise<string | undefined> {
  try {
    const listed = await client.list();
    // \Noselect and \NonExistent entries are only levels of the hierarchy: no IMAP_MAILBOX can name them.
    const selectable = listed.filter((m) => !m.flags.has('\\Noselect') && !m.flags.has('\\NonExistent')).map((m) => m.path);
    return missingMailboxProblem(mailbox, selectable);
  } catch {
    return undefined;
  }
}

async function checkImap(config: Config, token: Promise<CheckOutcome | undefined>): Promise<ImapOutcomes> {
  const where = `${config.IMAP_HOST ?? '(IMAP_HOST not set)'}:${config.IMAP_PORT} ${config.IMAP_MAILBOX}`;
  const login = imapLoginSetting(config);
  if (!login.complete) return { imap: { what: 'IMAP mailbox', where, status: 'failed', detail: missingLoginSettings(login.missing) } };
  if ((await token)?.status === 'failed') return { imap: { what: 'IMAP mailbox', where, status: 'skipped', detail: NO_TOKEN } };
  const server = mailServer(config, 'IMAP');
  let phase: ConnectPhase = 'connect';
  try {
    const timeouts = { connectionTimeoutMs: CHECK_TIMEOUT_MS, greetingTimeoutMs: GREETING_TIMEOUT_MS, socketTimeoutMs: CHECK_TIMEOUT_MS };
    const client = await connectForSentCopy(config, timeouts);
    let senderAuthentication: CheckOutcome;
    try {
      phase = 'open';
      let mailbox;
      try {
        // Read-only: opening the mailbox marks nothing seen.
        mailbox = await client.mailboxOpen(config.IMAP_MAILBOX, { readOnly: true });
      } catch (err) {
        const missing = await missingMailbox(client, config.IMAP_MAILBOX);
        if (missing) return { imap: { what: 'IMAP mailbox', where, status: 'failed', detail: missing } };
        throw err;
      }
      senderAuthentication = await checkSenderAuthentication(config, client, mailbox.exists);
    } finally {
      await client.logout().catch(() => undefined);
    }
    return { imap: { what: 'IMAP mailbox', where, status: 'ok' }, senderAuthentication };
  } catch (err) {
    const detail =
      mailServerLine(err, server, await probedAfterNoGreeting(err, server)) ??
      `${describeImapFailure(config, phase, err instanceof Error ? err : undefined)}${appPasswordHint(err, server)}`;
    return { imap: { what: 'IMAP mailbox', where, status: 'failed', detail } };
  }
}

/**
 * The Authentication-Results on top of the mailbox's latest mails ({@link senderAuthenticationOutcome}), in one FETCH
 * of that header field alone: BODY.PEEK, so nothing is marked seen and no body is read. A failure to read them is a
 * warning on its own line: the poller's login and mailbox, which the IMAP line is about, worked.
 */
async function checkSenderAuthentication(config: Config, client: ImapFlow, exists: number): Promise<CheckOutcome> {
  try {
    const headerBlocks =
      exists === 0
        ? []
        : (await client.fetchAll(`${Math.max(1, exists - RECENT_MAILS + 1)}:${exists}`, { headers: ['authentication-results'] })).map((m) => m.headers ?? Buffer.alloc(0));
    return await senderAuthenticationOutcome(headerBlocks, config);
  } catch (err) {
    return senderAuthenticationUnread(config, oneLine(err));
  }
}

/** How far the SMTP check got: logged in, failed, or found TLS spoken at once where SMTP_SECURE=false waits for a greeting. */
type SmtpReach = { verified: true } | { verified: false; err: unknown } | { tlsAtOnce: true };

async function checkSmtp(config: Config, token: Promise<CheckOutcome | undefined>): Promise<CheckOutcome> {
  if (!config.SMTP_HOST) return { what: 'SMTP server', where: '(SMTP_HOST not set)', status: 'failed', detail: 'SMTP_HOST is required by the sender' };
  // Without SMTP_USER the sender does not log in, and needs no token.
  if (config.SMTP_USER && (await token)?.status === 'failed') return { what: 'SMTP server', where: describeSmtp(config), status: 'skipped', detail: NO_TOKEN };
  const smtp = createSmtpTransport(config, { connectionTimeoutMs: GREETING_TIMEOUT_MS, socketTimeoutMs: CHECK_TIMEOUT_MS, idleConnections: 0 });
  const where = describeSmtp(config);
  const server = mailServer(config, 'SMTP');
  // On 465 without SMTP_SECURE the connection waits the whole timeout for a plain-text greeting that a server speaking
  // TLS from the start never sends; a TLS handshake on the side (what port 465 is for) finds that out at once.
  const tlsAtOnce = !server.secure && server.port === 465 ? speaksTlsAtOnce(server.host, server.port, TLS_PROBE_TIMEOUT_MS) : undefined;
  try {
    const verified: Promise<SmtpReach> = smtp.verify().then(
      () => ({ verified: true }),
      (err: unknown) => ({ verified: false, err }),
    );
    const contenders = [verified];
    if (tlsAtOnce) contenders.push(tlsAtOnce.then((speaks) => (speaks ? { tlsAtOnce: true } : verified)));
    const first = await withTimeout(Promise.race(contenders), where);
    if ('tlsAtOnce' in first) return { what: 'SMTP server', where, status: 'failed', detail: mailConnectionProblem(undefined, server, true) ?? 'the server speaks TLS from the start' };
    if (!first.verified) throw first.err;
    // MAIL_FROM is what replies are sent from; without it the sender does not start.
    if (!config.MAIL_FROM) return { what: 'SMTP server', where, status: 'failed', detail: 'reached, but MAIL_FROM (the From of replies) is not set' };
    return { what: 'SMTP server', where, status: 'ok' };
  } catch (err) {
    const speaks = tlsAtOnce ? await tlsAtOnce : await probedAfterNoGreeting(err, server);
    return { what: 'SMTP server', where, status: 'failed', detail: mailServerLine(err, server, speaks) ?? classifySmtpError(err).message };
  } finally {
    smtp.close();
  }
}

async function checkModelServer(config: Config): Promise<CheckOutcome> {
  // Masked as the failure line masks it: a gateway's password or query key would reach every terminal and CI log.
  const where = shownLlmServerUrl(config);
  // OpenAI refuses the placeholder an empty key becomes; saying so needs no request (nor access to OpenAI).
  const keyProblem = apiKeyProblem(config);
  if (keyProblem) return { what: 'Model server', where, status: 'failed', detail: keyProblem };
  try {
    const client = createOpenAIClient({ ...config, LLM_MAX_RETRIES: 0, LLM_TIMEOUT_MS: CHECK_TIMEOUT_MS });
    const page = await withTimeout(client.models.list(), where);
    const listed = new Set(page.data.map((m) => m.id));
    // Servers that list nothing (some proxies) are not judged; one that lists models without ours will fail every run.
    const wanted = [config.OPENAI_MODEL, ...(config.EMBEDDINGS_PROVIDER === 'openai' ? [config.EMBEDDING_MODEL] : [])];
    const missing = listed.size > 0 ? wanted.filter((m) => !listed.has(m)) : [];
    if (missing.length > 0) {
      return { what: 'Model server', where, status: 'warning', detail: `it does not list ${missing.join(', ')} (it lists ${[...listed].slice(0, 8).join(', ')}${listed.size > 8 ? ', …' : ''}): check OPENAI_MODEL / EMBEDDING_MODEL` };
    }
    return { what: 'Model server', where, status: 'ok', detail: `${config.OPENAI_MODEL}${config.EMBEDDINGS_PROVIDER === 'openai' ? `, embeddings ${config.EMBEDDING_MODEL}` : ', embeddings local'}` };
  } catch (err) {
    const failure = modelServerFailure(err, config);
    // OpenAI out of reach (a machine without that access): say what else works, as reindex does.
    const hint = failure?.startsWith('cannot reach') && !config.OPENAI_BASE_URL ? `; ${OWN_SERVER_HINT}` : '';
    return { what: 'Model server', where, status: 'failed', detail: failure ? `${failure}${hint}` : oneLine(err) };
  }
}

/** Whether a listener could be opened on `host:port` now: undefined when it could, else the error's code. */
function probeListen(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

/**
 * Whether the dashboard would start, decided as the dashboard role decides it ({@link resolveAuth}: a weak
 * DASHBOARD_PASSWORD beyond loopback fails, on loopback it is a warning), and whether its port is free. Without it
 * `npm start` runs every other role and logs one error line, and the admin's next step, opening the dashboard, fails.
 */
async function checkDashboard(config: Config): Promise<CheckOutcome> {
  const at = (host: string) => `http://${host.includes(':') ? `[${host}]` : host}:${config.DASHBOARD_PORT}`;
  let auth: DashboardAuth;
  try {
    auth = resolveAuth(config);
  } catch (err) {
    const detail = err instanceof ConfigError ? err.problems.join('; ') : oneLine(err);
    return { what: 'Dashboard', where: at(config.DASHBOARD_HOST), status: 'failed', detail };
  }
  // Where the role listens: without authentication only on loopback, whatever DASHBOARD_HOST says.
  const host = auth.mode === 'off' ? '127.0.0.1' : config.DASHBOARD_HOST;
  const where = at(host);
  const login = auth.mode === 'off' ? 'no login (DASHBOARD_AUTH=off), this machine only' : `user ${auth.user}`;
  // Beyond loopback resolveAuth refused a weak password above; on loopback it starts, with this warning.
  const weak = weakDashboardPassword(config)?.message;
  const ok = (detail: string): CheckOutcome => (weak ? { what: 'Dashboard', where, status: 'warning', detail: `${detail}; ${weak}` } : { what: 'Dashboard', where, status: 'ok', detail });
  if (config.DASHBOARD_PORT === 0) return ok(`${login}; the port is chosen at start (DASHBOARD_PORT=0)`);
  const refused = await probeListen(host, config.DASHBOARD_PORT);
  if (refused === 'EADDRINUSE') {
    // Not a failure: checking a running installation finds its own dashboard there.
    return {
      what: 'Dashboard',
      where,
      status: 'warning',
      detail: `port ${config.DASHBOARD_PORT} is in use: fine if it is this dashboard already running; otherwise stop what holds it or set DASHBOARD_PORT${weak ? `; ${weak}` : ''}`,
    };
  }
  if (refused) return { what: 'Dashboard', where, status: 'failed', detail: `cannot listen there (${refused}): check DASHBOARD_HOST and DASHBOARD_PORT` };
  return ok(login);
}

/**
 * A warning when only one of SUPPORT_GROUP_ADDRESSES and AUTHSERV_ID is set: a mail is our group's only with both
 * (src/mail/classify.ts), so until then every mail through the group is parked for a person, which the admin would
 * otherwise learn from the first parked tickets. Undefined when both or neither are set.
 */
function checkOwnGroup(config: Config): CheckOutcome | undefined {
  const groups = config.SUPPORT_GROUP_ADDRESSES;
  const authservIds = config.AUTHSERV_ID;
  if ((groups.length > 0) === (authservIds.length > 0)) return undefined;
  const parked = 'mail through the group is parked until it is set';
  if (groups.length > 0) {
    return {
      what: 'Own group',
      where: `SUPPORT_GROUP_ADDRESSES ${groups.join(', ')}`,
      status: 'warning',
      detail: `AUTHSERV_ID is not set (the first word of the Authentication-Results your receiving server writes on top, e.g. mx.google.com): ${parked}`,
    };
  }
  return {
    what: 'Own group',
    where: `AUTHSERV_ID ${authservIds.join(', ')}`,
    status: 'warning',
    // A list address that is none of ours is a foreign list's: its mail is ignored rather than parked.
    detail: `SUPPORT_GROUP_ADDRESSES is not set (the address of the Google Group or list that is the support address): ${parked} (ignored as list mail when the group's address is none of MAIL_FROM and SUPPORT_ADDRESSES)`,
  };
}

/**
 * A warning when `TZ` names no zone this machine knows and is no POSIX offset it can read (`JST-9` is read as UTC+9):
 * the roles would then show times and count the insights' days in UTC. Not checked by the configuration, since a TZ
 * the process was started with is Node's own.
 */
function checkTimeZone(): CheckOutcome | undefined {
  const problem = timeZoneProblem();
  return problem ? { what: 'Time zone', where: 'TZ', status: 'warning', detail: problem } : undefined;
}

/**
 * Every check `role` needs ({@link checksOfRole}; all of them for `all`), in the order the pipeline uses the servers
 * (the OAuth2 token before the logins that need it, the group setting where the poller's mail is classified, the
 * prompts before the model), then the dashboard where people review its work. A check the role does not need is not
 * run at all: it would reach a server this machine may not be allowed to reach.
 */
export async function runChecks(config: Config, role: CheckRole = 'all'): Promise<CheckOutcome[]> {
  const wanted = checksOfRole(role, config);
  const when = <T>(name: CheckName, run: () => Promise<T>): Promise<T | undefined> => (wanted.has(name) ? run() : Promise.resolve(undefined));
  const token = when('oauth2', () => checkOAuth2Token(config));
  const [redis, oauth2, imap, smtp, model, search, dashboard] = await Promise.all([
    when('redis', () => checkRedis(config)),
    token,
    when('imap', () => checkImap(config, token)),
    when('smtp', () => checkSmtp(config, token)),
    when('model', () => checkModelServer(config)),
    when('search', () => checkIndexes(config)),
    when('dashboard', () => checkDashboard(config)),
  ]);
  const ownGroup = wanted.has('ownGroup') ? checkOwnGroup(config) : undefined;
  const timeZone = wanted.has('timeZone') ? checkTimeZone() : undefined;
  const prompts = wanted.has('prompts') ? promptsFileOutcome(config.PROMPTS_FILE) : undefined;
  return [timeZone, redis, oauth2, imap?.imap, imap?.senderAuthentication, ownGroup, prompts, model, ...(search ?? []), smtp, dashboard].filter(
    (outcome): outcome is CheckOutcome => outcome !== undefined,
  );
}

/** One line per check ({@link checkLine}). */
export function formatChecks(outcomes: readonly CheckOutcome[]): string {
  return outcomes.map(checkLine).join('\n');
}

const program = new Command('check')
  .description('Check the configuration and reach every server it names once; changes nothing')
  .addOption(
    new Option('--role <role>', 'check only what this role uses, for a machine that runs only it (agent-worker: Redis, model server, indexes, PROMPTS_FILE)')
      .choices(CHECK_ROLES)
      .default('all'),
  )
  .option('--verbose', 'also print info log lines (at LOG_LEVEL) on stderr')
  .showHelpAfterError()
  .action(async (opts: { role: CheckRole; verbose?: boolean }) => {
    await runCommand('check', async ({ config, print }) => {
      const outcomes = await runChecks(config, opts.role);
      print(formatChecks(outcomes));
      const failed = outcomes.filter((o) => o.status === 'failed').length;
      if (failed > 0) {
        print(`${failed} of ${outcomes.length} checks failed`);
        process.exitCode = 1;
      }
      // Quiet: the searches' "index loaded" lines came before the results the admin runs this for.
    }, { quiet: true, verbose: opts.verbose ?? false });
  });

await parseCommandLine(program);
