/**
 * `npm run sandbox`: real local servers to try the whole pipeline on one machine without Docker — a redis-server,
 * a Dovecot IMAP server with the support mailbox, an SMTP server that catches every reply (printed here and saved
 * as .eml under `.data/sandbox/outbox/`), and optionally (`--llm`) the scripted OpenAI-compatible server the tests
 * use, for a machine without a model. It lends `.env` its settings (the user's file waits in `.env.before-sandbox`
 * and comes back on exit) so `npm start` in another terminal uses them. Needs `redis-server` and `dovecot-imapd`
 * (Debian packages) and root for Dovecot. `npm run demo` does all of this, and the rest, in one terminal.
 *
 * `npm run sandbox -- send "<question>" [--from ADDRESS] [--subject TEXT]` delivers a customer mail into the
 * sandbox mailbox of a running sandbox.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parse as parseDotenv } from 'dotenv';
import { ImapFlow } from 'imapflow';
import { terminalSafe } from '../src/cli/format.js';
import { PLACEHOLDER_API_KEY } from '../src/config.js';
import { startDovecot } from '../src/dev/dovecot.js';
import { freePort, LOOPBACK } from '../src/dev/ports.js';
import { lendEnvFile, localServerSettings, nextFileNumber, readLiveRunState, stopOnSignals, type LocalRunState } from '../src/dev/local-run.js';
import { customerMail } from '../src/dev/customer-mail.js';
import { startOpenAIServer } from '../src/dev/openai-server.js';
import { startRedis } from '../src/dev/redis-server.js';
import { scriptedModel } from '../src/dev/scripted-model.js';
import { startSmtpReceiver } from '../src/dev/smtp-receiver.js';

const STATE_FILE = path.resolve('.data/sandbox/sandbox.json');
const OUTBOX = path.resolve('.data/sandbox/outbox');
const DEMO_STATE_FILE = path.resolve('.data/demo/demo.json');
const ENV_HEADER = '# written by npm run sandbox (your own .env is in .env.before-sandbox until it stops)';
/** The header when there was no .env of the user's: no .env.before-sandbox to look for. */
const ENV_HEADER_WITHOUT_OWN = '# written by npm run sandbox (you had no .env; this one is removed when it stops)';
/** The dashboard's port unless DASHBOARD_PORT says another (src/config.ts). */
const DEFAULT_DASHBOARD_PORT = 3000;

const USAGE = `usage:
  npm run sandbox [-- --llm]          start Redis, Dovecot and an SMTP catcher (--llm: and the scripted model)
  npm run sandbox -- send "<question>" [--from ADDRESS] [--subject TEXT]
                                      mail a question to the running sandbox's support mailbox
`;

class UsageError extends Error {}

/** Whether the environment or `.env` names a model: a real API key (not the example's placeholder) or a server. */
function namesModel(fromFile: Record<string, string>): boolean {
  const pick = (name: string) => process.env[name] || fromFile[name];
  const key = pick('OPENAI_API_KEY');
  return Boolean(pick('OPENAI_BASE_URL') || (key && key !== PLACEHOLDER_API_KEY));
}

/** The servers a sandbox lends `.env`: the scripted model's only with `--llm`. */
export interface SandboxServers {
  redis: { url: string };
  imap: { host: string; port: number; user: string; password: string };
  smtp: { host: string; port: number };
  llm?: { url: string };
}

/**
 * The settings the sandbox writes into `.env` over the user's own lines (see lendEnvFile). The dashboard listens on
 * loopback whatever the user's DASHBOARD_HOST says (0.0.0.0 on a VM, say), with a password of this run's
 * (`password`, random): it would otherwise serve the whole network behind a password printed in this source, and
 * approving replies there spends the user's own OPENAI_API_KEY.
 */
export function sandboxSettings(servers: SandboxServers, password: string, dashboardPort?: number): Record<string, string> {
  const { redis, imap, smtp, llm } = servers;
  return {
    ...localServerSettings(redis, imap, smtp),
    DASHBOARD_HOST: '127.0.0.1',
    ...(dashboardPort === undefined ? {} : { DASHBOARD_PORT: String(dashboardPort) }),
    DASHBOARD_PASSWORD: password,
    // As the demo: replies appear here, as the README shows; the default (learn) would park each one for review.
    REVIEW_MODE: 'auto',
    // The model name says the stand-in answered, so the insights price no tokens at a real model's rates.
    ...(llm ? { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'sandbox', OPENAI_MODEL: 'scripted-model', EMBEDDINGS_PROVIDER: 'local' } : {}),
  };
}

/** Whether a listener could be opened on loopback's `port` now (it is closed again at once). */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, LOOPBACK, () => probe.close(() => resolve(true)));
  });
}

/**
 * The DASHBOARD_PORT the sandbox lends `.env`: the user's (`userPort`, else 3000) when it is free on loopback, else a
 * free one, as the demo picks (src/cli/demo.ts). With 3000 taken (another app, a second checkout) `npm start` stopped
 * every role with "the port is in use", after the sandbox had said all was ready. Undefined when the user's value is
 * no fixed port (0 lets the dashboard choose; a wrong one is the configuration's to name): theirs is kept.
 */
export async function sandboxDashboardPort(userPort: string | undefined): Promise<number | undefined> {
  const wanted = userPort === undefined || userPort.trim() === '' ? DEFAULT_DASHBOARD_PORT : Number(userPort);
  if (!Number.isInteger(wanted) || wanted < 1 || wanted > 65_535) return undefined;
  return (await canListen(wanted)) ? wanted : await freePort();
}

async function serve(withLlm: boolean): Promise<number> {
  const running = readLiveRunState(STATE_FILE);
  if (running) throw new Error(`a sandbox is already running (pid ${running.pid}); stop it first, or use: npm run sandbox -- send "…"`);
  mkdirSync(OUTBOX, { recursive: true });
  // A server that fails to start (Dovecot without root or its package) must not leave the ones before it running:
  // a live Redis would keep this process, and the terminal, waiting for ever.
  const started: Array<() => Promise<unknown>> = [];
  const start = async <T>(server: Promise<T>, stop: (s: T) => Promise<unknown>): Promise<T> => {
    const s = await server;
    started.push(() => stop(s));
    return s;
  };
  let servers;
  try {
    const redis = await start(startRedis({ appendfsync: 'always' }), (r) => r.stop());
    const imap = await start(startDovecot({ user: 'support@helpdesk.test', password: 'support' }), (i) => i.stop());
    const smtp = await start(startSmtpReceiver(), (m) => m.stop());
    const llm = withLlm ? await start(startOpenAIServer({ handler: scriptedModel({ judgeRelevance: true, tools: 'both' }) }), (l) => l.close()) : undefined;
    servers = { redis, imap, smtp, llm };
  } catch (err) {
    await Promise.allSettled(started.map((stop) => stop()));
    throw err;
  }
  const { redis, imap, smtp, llm } = servers;

  // Whether the user had a .env to give back, as the demo tells it: a backup a killed sandbox left holds theirs, or
  // src/dev/local-run.ts's note that there was none.
  const hadEnv = existsSync('.env.before-sandbox') ? !readFileSync('.env.before-sandbox', 'utf8').startsWith('# there was no .env before') : existsSync('.env');
  const ownFile = existsSync('.env.before-sandbox') ? '.env.before-sandbox' : '.env';
  const own = hadEnv ? parseDotenv(readFileSync(ownFile)) : {};
  // The environment wins over .env for `npm start` too.
  const userPort = process.env.DASHBOARD_PORT || own.DASHBOARD_PORT;
  const dashboardPort = await sandboxDashboardPort(userPort);
  const env = sandboxSettings({ redis, imap, smtp, ...(llm ? { llm } : {}) }, randomBytes(12).toString('base64url'), dashboardPort);
  const giveBack = hadEnv ? 'your .env is back' : "the sandbox's .env is removed";
  const lent = lendEnvFile('.env', '.env.before-sandbox', env, hadEnv ? ENV_HEADER : ENV_HEADER_WITHOUT_OWN);
  // However the process ends short of SIGKILL (a crash, a closed terminal), the user's .env comes back.
  process.once('exit', () => lent.restore());
  writeFileSync(STATE_FILE, JSON.stringify({ pid: process.pid, imap: { host: imap.host, port: imap.port, user: imap.user, password: imap.password } } satisfies LocalRunState));

  let number = nextFileNumber(readdirSync(OUTBOX));
  let printed = 0;
  const timer = setInterval(() => {
    for (const message of smtp.messages.slice(printed)) {
      printed++;
      const file = path.join(OUTBOX, `${String(number++).padStart(4, '0')}.eml`);
      writeFileSync(file, message.raw);
      // What a stranger's mail or the model wrote reaches this terminal: no escape sequences (as the demo prints).
      const shown = terminalSafe(`── reply to ${message.envelope.to.join(', ')}: ${message.subject ?? ''} (${file})\n${message.text ?? ''}`);
      process.stdout.write(`\n${shown}\n`);
    }
  }, 500);

  // The signals are handled before "sandbox running" is printed: a terminal closed (or a test's SIGHUP) right after
  // that line otherwise ended the process by the signal's default, servers and .env left as they were.
  const stopped = new Promise<number>((resolve) => {
    stopOnSignals(async () => {
      clearInterval(timer);
      await Promise.allSettled([smtp.stop(), imap.stop(), redis.stop(), llm?.close()]);
      const kept = lent.restore();
      rmSync(STATE_FILE, { force: true });
      // The last line says the stop is done: "stopping…" alone read as a hang (walkthrough W1).
      process.stdout.write(`stopped; ${giveBack}.\n`);
      if (kept) process.stdout.write(`the .env written while the sandbox ran is kept as ${kept}\n`);
      resolve(0);
      return 0;
    }, (line) => process.stdout.write(`${line}\n`));
  });
  process.stdout.write(
    [
      // Without a .env of theirs there is no .env.before-sandbox to look for (walkthrough W1).
      `sandbox running (Ctrl-C stops it; .env now points at it, ${hadEnv ? 'your own is in .env.before-sandbox until then' : 'you had no .env; it is removed when the sandbox stops'}):`,
      ...Object.entries(env).map(([k, v]) => `  ${k}=${v}`),
      '',
      ...(dashboardPort === undefined
        ? []
        : [`dashboard, once npm start runs: http://${LOOPBACK}:${dashboardPort}${dashboardPort === Number(userPort || DEFAULT_DASHBOARD_PORT) ? '' : ` (port ${userPort || DEFAULT_DASHBOARD_PORT} is in use)`}`]),
      ...(llm || namesModel(parseDotenv(readFileSync('.env')))
        ? ['in another terminal:  npm run reindex && npm start']
        : [
            'no model here: put OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL (Ollama, vLLM) with EMBEDDINGS_PROVIDER=local or an',
            'embedding model it serves (EMBEDDING_MODEL), in your .env before the sandbox starts (it keeps your lines), or',
            'restart it with the scripted model the tests use: npm run sandbox -- --llm',
            // Without any model the indexes can still be built, and mail is read and parked: nothing writes a draft.
            'or, with no model at all, in another terminal:',
            '                      EMBEDDINGS_PROVIDER=local npm run reindex && EMBEDDINGS_PROVIDER=local npm start',
            '                      (mail is read and parked for review after the agent fails to reach a model)',
          ]),
      'then:                 npm run sandbox -- send "二段階認証を認証アプリで設定する手順を教えてください。"',
      '',
    ].join('\n'),
  );

  return await stopped;
}

async function send(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { from: { type: 'string', default: 'customer@example.com' }, subject: { type: 'string', default: 'お問い合わせ' } },
  });
  const question = positionals.join(' ').trim();
  if (!question) throw new UsageError('send needs the question');
  // `npm run demo` runs the same servers; its mailbox takes mail the same way.
  const state = readLiveRunState(STATE_FILE) ?? readLiveRunState(DEMO_STATE_FILE);
  if (!state) throw new Error('no sandbox is running: start one with npm run sandbox (or npm run demo)');
  const raw = customerMail({ from: values.from, to: state.imap.user, subject: values.subject, text: question });
  const client = new ImapFlow({ host: state.imap.host, port: state.imap.port, secure: false, auth: { user: state.imap.user, pass: state.imap.password }, logger: false });
  await client.connect();
  await client.append('INBOX', raw);
  await client.logout();
  process.stdout.write(`delivered a mail from ${values.from} to ${state.imap.user}\n`);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'send') return await send(rest);
  if (command === undefined || command.startsWith('-')) {
    const { values } = parseArgs({ args: argv, options: { llm: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    return await serve(values.llm);
  }
  throw new UsageError(`unknown command: ${command}`);
}

// Run as `npm run sandbox`, not when a test imports sandboxSettings.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // parseArgs reports unknown options and missing values with a TypeError of code ERR_PARSE_ARGS_*.
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`sandbox: ${message}\n${usage ? USAGE : ''}`);
    process.exitCode = usage ? 2 : 1;
  }
}
