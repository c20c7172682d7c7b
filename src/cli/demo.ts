/**
 * `npm run demo`: the whole main job in one terminal, on embedded defaults. It starts local servers (Redis, Dovecot
 * with the support mailbox, an SMTP catcher, and the scripted model unless OPENAI_API_KEY/OPENAI_BASE_URL name a
 * real one), indexes the sample knowledge base, starts every role of `npm start` in this process, mails two customer
 * questions — one the knowledge base answers, one it cannot — and prints what became of each: the reply as the
 * customer receives it, and the parked draft with the commands and page to approve it. It keeps running (printing any
 * later reply, e.g. after an approval) until Ctrl-C, which stops the roles, then the servers, and gives the user's
 * `.env` back. `infra/preflight.mjs` has installed what is missing before this file runs.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { ImapFlow } from 'imapflow';
import { reindexManual } from '../../jobs/reindex-manual.js';
import { reindexQa } from '../../jobs/reindex-qa.js';
import { nameProcessTimeZone, PLACEHOLDER_API_KEY, parseConfig, type Config } from '../config.js';
import { customerMail } from '../dev/customer-mail.js';
import { startDovecot, type DovecotServer } from '../dev/dovecot.js';
import { lendEnvFile, localServerSettings, nextFileNumber, readLiveRunState, type LocalRunState } from '../dev/local-run.js';
import { startOpenAIServer } from '../dev/openai-server.js';
import { freePort, LOOPBACK } from '../dev/ports.js';
import { startRedis } from '../dev/redis-server.js';
import { scriptedModel } from '../dev/scripted-model.js';
import { startSmtpReceiver, type ReceivedMessage } from '../dev/smtp-receiver.js';
import { configureLogging, createLogger } from '../logger.js';
import { startDashboardRole } from '../runtime/dashboard.js';
import { runRoles, type RoleHandle } from '../runtime/lifecycle.js';
import { startMaintenanceRole } from '../runtime/maintenance.js';
import { startPollerRole } from '../runtime/poller.js';
import { startAgentWorker } from '../runtime/agent-worker.js';
import { startSender } from '../runtime/sender.js';
import { Services } from '../runtime/services.js';
import { createSearchBackends } from '../search/factory.js';
import { ticketIdFor, type Ticket } from '../tickets/ticket.js';
import type { TicketStore } from '../tickets/ticket-store.js';
import { terminalSafe } from './format.js';

const SUPPORT = 'support@helpdesk.test';
/** The sample knowledge base ships with the checkout, wherever the demo is started from. */
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const DATA_DIR = path.resolve('.data/demo');
const OUTBOX = path.join(DATA_DIR, 'outbox');
const STATE_FILE = path.join(DATA_DIR, 'demo.json');
const ENV_HEADER = '# written by npm run demo (your own .env is in .env.before-demo until it stops)';
const FINAL_STATES = ['sent', 'parked', 'ignored', 'failed'] as const;

/** The two sample questions: the sample manual covers the first; nothing in the knowledge base covers the second. */
export const DEMO_MAILS = [
  { from: 'Sato Hanako <hanako.sato@example.com>', subject: '二段階認証の設定', text: '二段階認証を認証アプリで設定する手順を教えてください。' },
  { from: 'Tanaka Ichiro <ichiro.tanaka@example.net>', subject: '社員旅行について', text: '来月の社員旅行の集合場所はどこですか？' },
] as const;

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}
// Output piped into `head` or a closed terminal has nowhere to go: the demo still stops its servers and gives the
// .env back rather than dying on EPIPE.
process.stdout.on('error', () => undefined);

/** The model settings the user gave (environment first, then their `.env`), when they name a real model. */
function userModelSettings(): Record<string, string> {
  const file = existsSync('.env.before-demo') ? '.env.before-demo' : '.env';
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file)) : {};
  const pick = (name: string): string | undefined => process.env[name] ?? fromFile[name];
  const settings: Record<string, string> = {};
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'EMBEDDINGS_PROVIDER', 'EMBEDDING_MODEL', 'EMBEDDING_DIMENSIONS']) {
    const value = pick(name);
    if (value) settings[name] = value;
  }
  // `.env.example` copied as it is carries the placeholder key: that names no model, and the demo runs the scripted one.
  if (settings.OPENAI_API_KEY === PLACEHOLDER_API_KEY) delete settings.OPENAI_API_KEY;
  return settings.OPENAI_API_KEY || settings.OPENAI_BASE_URL ? settings : {};
}

/** The dashboard's port, and the server holding it from the demo's start when it could be held. */
interface ReservedPort {
  port: number;
  /** Listening on `port`: the dashboard answers on it (its `listening` option), so the port is never free. */
  server?: Server;
  /** Frees the port when the demo stops before the dashboard took the server over; idempotent. */
  release(): Promise<void>;
}

/**
 * 3000 as in the README unless something already listens there. The port stays held from here on, and the dashboard
 * answers on the very server that holds it: freed for the dashboard to listen on, it was taken in between by a second
 * demo starting beside this one (two checkouts, two test runs), and this one stopped with "the port is in use".
 */
async function reserveDashboardPort(): Promise<ReservedPort> {
  const holder = createServer();
  const held = await new Promise<boolean>((resolve) => {
    holder.once('error', () => resolve(false));
    holder.listen(3000, LOOPBACK, () => resolve(true));
  });
  if (!held) return { port: await freePort(), release: async () => undefined };
  let released: Promise<void> | undefined;
  // A server the dashboard already closed answers close() with an error, which changes nothing here.
  return { port: 3000, server: holder, release: () => (released ??= new Promise<void>((resolve) => holder.close(() => resolve()))) };
}

async function waitForFinal(store: TicketStore, ticketId: string, timeoutMs: number): Promise<Ticket | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ticket = await store.get(ticketId);
    if (ticket && (FINAL_STATES as readonly string[]).includes(ticket.state)) return ticket;
    if (Date.now() > deadline) return ticket;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function printReply(message: ReceivedMessage, file: string): void {
  say(`── reply to ${message.envelope.to.join(', ')}: ${terminalSafe(message.subject ?? '')}  (saved as ${path.relative(process.cwd(), file)})`);
  say(terminalSafe(message.text ?? '').trimEnd());
  say();
}

async function deliver(imap: DovecotServer, raw: string): Promise<void> {
  const client = new ImapFlow({ host: imap.host, port: imap.port, secure: false, auth: { user: imap.user, pass: imap.password }, logger: false });
  await client.connect();
  try {
    await client.append('INBOX', raw);
  } finally {
    await client.logout();
  }
}

async function reindex(config: Config): Promise<void> {
  const backends = createSearchBackends(config);
  try {
    const manual = await reindexManual({}, { config, manual: backends.manual });
    const qa = await reindexQa({}, { config, qa: backends.qa });
    say(`indexed the sample knowledge base: ${manual.chunks} manual passages, ${qa.pairs} Q&A pairs`);
  } finally {
    await backends.manual.close?.();
    await backends.qa.close?.();
  }
}

async function main(): Promise<void> {
  const running = readLiveRunState(STATE_FILE);
  if (running) throw new Error(`a demo is already running (pid ${running.pid}); stop it with Ctrl-C in its terminal first`);
  mkdirSync(OUTBOX, { recursive: true });

  say('starting local servers: Redis, Dovecot (IMAP), an SMTP catcher…');
  const model = userModelSettings();
  const [redis, imap, smtp, llm, reserved] = await Promise.all([
    startRedis({ appendfsync: 'always' }),
    startDovecot({ user: SUPPORT, password: 'support' }),
    startSmtpReceiver(),
    model.OPENAI_API_KEY || model.OPENAI_BASE_URL ? Promise.resolve(undefined) : startOpenAIServer({ handler: scriptedModel({ judgeRelevance: true, tools: 'both' }) }),
    reserveDashboardPort(),
  ]);
  const port = reserved.port;
  // README and `npm start` say 3000; a newcomer who finds nothing there (another dashboard or demo holds it) is told
  // at once, not only by the URL printed once the mails are answered.
  if (!reserved.server) say(`port 3000 is taken (another dashboard or demo?); the demo's dashboard listens on http://127.0.0.1:${port} instead`);
  const stopServers = async (): Promise<void> => {
    await Promise.allSettled([smtp.stop(), imap.stop(), redis.stop(), llm?.close(), reserved.release()]);
  };

  const password = randomBytes(12).toString('base64url');
  const env: Record<string, string> = {
    ...localServerSettings(redis, imap, smtp),
    DATA_DIR,
    MANUALS_DIR: path.join(REPO_ROOT, 'data/manuals'),
    QA_DIR: path.join(REPO_ROOT, 'data/qa'),
    REVIEW_MODE: 'auto',
    DASHBOARD_PORT: String(port),
    DASHBOARD_PASSWORD: password,
    LOG_LEVEL: 'warn',
    ...(llm ? { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'demo', OPENAI_MODEL: 'scripted-model', EMBEDDINGS_PROVIDER: 'local' } : model),
  };
  // Whether the user had a .env to give back: without one, stopping removes the demo's. A backup a killed demo left
  // holds theirs, or src/dev/local-run.ts's note that there was none.
  const hadEnv = existsSync('.env.before-demo') ? !readFileSync('.env.before-demo', 'utf8').startsWith('# there was no .env before') : existsSync('.env');
  const giveBack = hadEnv ? 'your .env is back' : "the demo's .env is removed";
  let lent: ReturnType<typeof lendEnvFile>;
  let config: Config;
  try {
    lent = lendEnvFile('.env', '.env.before-demo', env, ENV_HEADER);
    // However the process ends short of SIGKILL (a crash, a closed terminal), the user's .env comes back.
    process.once('exit', () => lent.restore());
    writeFileSync(STATE_FILE, JSON.stringify({ pid: process.pid, imap: { host: imap.host, port: imap.port, user: imap.user, password: imap.password } } satisfies LocalRunState));
    config = parseConfig(env);
    // As loadConfig does for every other entry point: the schedules, reply dates and the dashboard read one zone.
    nameProcessTimeZone();
    configureLogging(config.LOG_LEVEL, { format: config.LOG_FORMAT });
    say(llm ? 'model: the scripted stand-in (set OPENAI_API_KEY or OPENAI_BASE_URL to use a real one)' : `model: ${config.OPENAI_MODEL} at ${config.OPENAI_BASE_URL ?? 'OpenAI'}`);
    await reindex(config);
  } catch (err) {
    await stopServers();
    lent!?.restore();
    rmSync(STATE_FILE, { force: true });
    throw err;
  }

  // Ctrl-C: runRoles stops the roles (coalescing the terminal's double SIGINT), then this gives back the machine.
  const cleanUp = (code: number): void => {
    void (async () => {
      await stopServers();
      const kept = lent.restore();
      rmSync(STATE_FILE, { force: true });
      say(code === 0 ? `stopped; ${giveBack}.` : `stopped with work in progress; ${giveBack}.`);
      if (kept) say(`the .env written while the demo ran is kept as ${kept}`);
      process.exit(code);
    })();
  };
  const services = new Services(config, { logger: createLogger('services'), processName: 'demo' });
  const logger = createLogger('demo');
  const servicesRole = async (): Promise<RoleHandle> => ({ name: 'connections', closesLast: true, stop: () => services.close() });
  try {
    await runRoles(
      [
        servicesRole,
        () => startSender(services),
        () => startMaintenanceRole(config, { connection: services.workerConnection(), search: services.search(), tuning: services.tuning, logger: createLogger('maintenance') }),
        () => startAgentWorker(services),
        () => startPollerRole(config, { logger: createLogger('imap-poller') }),
        () => startDashboardRole(config, { services, logger: createLogger('dashboard'), ...(reserved.server ? { listening: reserved.server } : {}) }),
      ],
      // SIGHUP: a closed terminal stops the demo as Ctrl-C does, and gives the .env back.
      { logger, exit: cleanUp, signals: ['SIGTERM', 'SIGINT', 'SIGHUP'] },
    );
  } catch (err) {
    await stopServers();
    lent.restore();
    rmSync(STATE_FILE, { force: true });
    throw err;
  }

  // Every reply the catcher receives is printed and saved, now and later (an approval from the dashboard, say).
  let number = nextFileNumber(readdirSync(OUTBOX));
  let printed = 0;
  const printNewReplies = (): void => {
    for (const message of smtp.messages.slice(printed)) {
      printed++;
      const file = path.join(OUTBOX, `${String(number++).padStart(4, '0')}.eml`);
      writeFileSync(file, message.raw);
      printReply(message, file);
    }
  };

  const store = await services.store();
  const dashboard = `http://127.0.0.1:${port}`;
  say(`every role is running; mailing ${DEMO_MAILS.length} customer questions to ${SUPPORT}…`);
  say();
  const ids = DEMO_MAILS.map(() => `<${randomBytes(8).toString('hex')}@customer.example>`);
  for (const [i, mail] of DEMO_MAILS.entries()) {
    say(`→ from ${mail.from}: ${mail.text}`);
    await deliver(imap, customerMail({ ...mail, to: SUPPORT, messageId: ids[i]! }));
  }
  say();
  const timeoutMs = llm ? 60_000 : 300_000;
  for (const [i, mail] of DEMO_MAILS.entries()) {
    const ticket = await waitForFinal(store, ticketIdFor(ids[i]!), timeoutMs);
    printNewReplies();
    if (!ticket) say(`✗ "${mail.text}": no ticket yet after ${timeoutMs / 1000} s (see ${dashboard})`);
    else if (ticket.state === 'sent') {
      say(`✓ "${mail.text}": answered automatically (the reply above).`);
      // A newcomer judges the product by this reply: the stand-in pastes what the searches found, it writes no prose.
      if (llm) say('   (the scripted stand-in pastes the passages the searches found; a real model writes them as a reply)');
    }
    else if (ticket.state === 'parked') {
      say(`⏸ "${mail.text}": parked for a person — ${terminalSafe(ticket.reason ?? '')}`);
      const id = ticket.id.slice(0, 12); // as `review list` prints it; any unique start of 8+ characters works
      say(`   look:     npm run review -- show ${id}`);
      // The draft of a question the knowledge base cannot answer says so; sent as is it helps nobody.
      say(`   answer:   npm run review -- approve ${id} --reply-file answer.txt   (your text; to send the draft as it is, pass the --seen N that show prints instead)`);
      say(`   or:       npm run review -- reject ${id} --reason "…"`);
      say(`   or open   ${dashboard}/tickets/${ticket.id}`);
      // Approving alone teaches nothing: the approval proposes a learned answer, used once a person accepts it.
      say(`   then:     once you approved a reply, accept the learned answer it proposes on ${dashboard}/knowledge (or npm run knowledge -- list), and the next such question is answered from it`);
    } else say(`• "${mail.text}": ${ticket.state}${ticket.reason ? ` — ${terminalSafe(ticket.reason)}` : ''}`);
    say();
  }
  say(`dashboard: ${dashboard}   user ${config.DASHBOARD_USER}, password ${password}`);
  say(`queues:    ${dashboard}/admin/queues`);
  say(`more mail: npm run sandbox -- send "<question>"   (from another terminal; .env points at the demo meanwhile)`);
  say(hadEnv ? 'Ctrl-C stops everything and gives your .env back.' : "Ctrl-C stops everything and removes the demo's .env.");
  setInterval(printNewReplies, 500).unref();
}

try {
  await main();
} catch (err) {
  process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
