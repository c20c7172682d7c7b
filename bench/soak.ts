/**
 * `npm run soak`: the whole pipeline under faults. The built roles (poller, two agent workers, sender) run against a
 * private redis-server (AOF, fsync as docker-compose.yml runs it), Dovecot, the SMTP receiver behind a TCP gate and the
 * scripted model behind a misbehaving front, each role restarted a second after it exits, as Compose's
 * `restart: unless-stopped` does. Mail arrives at a random pace while one fault at a time hits a role or a server; at
 * the end every mail is checked against the replies, the tickets and the mailbox. Exit code 1 on any violation.
 * See bench/README.md, "Fault soak".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { ImapFlow } from 'imapflow';
import { Redis } from 'ioredis';
import { parseConfig } from '../src/config.js';
import { startDovecot } from '../src/dev/dovecot.js';
import { buildMail, MAIL_FROM, SUPPORT_ADDRESS } from '../src/dev/mail-builder.js';
import { startRedis } from '../src/dev/redis-server.js';
import { startSmtpReceiver, type SmtpReply } from '../src/dev/smtp-receiver.js';
import { startTcpGate } from '../src/dev/tcp-gate.js';
import { configureLogging } from '../src/logger.js';
import { normalizeMessageId, ticketIdFor, type Ticket } from '../src/tickets/ticket.js';
import { TicketStore } from '../src/tickets/ticket-store.js';
import { manualMaterial, SAMPLE_MANUALS_DIR, SAMPLE_QA_DIR, samplePairs } from './lib/corpus.js';
import type { LlmFrontMode } from './lib/soak-llm-child.js';
import { buildRoles, REPO_ROOT } from './lib/proc.js';
import { pick, prng } from './lib/stats.js';
import { indexKnowledge } from '../src/dev/knowledge-index.js';

/** Faults drawn at random; `redis-kill-lose1s` only when named in `--faults`. */
const FAULT_KINDS = [
  'kill-poller', 'kill-agent', 'kill-sender',
  'term-poller', 'term-agent', 'term-sender',
  'redis-term', 'redis-kill', 'dovecot-restart',
  'smtp-refuse', 'smtp-421', 'smtp-451', 'smtp-drop',
  'llm-500', 'llm-429', 'llm-hang', 'llm-drop',
] as const;
/** A host crash under `appendfsync everysec`: Redis killed with its AOF as it was a second before. */
const HOST_CRASH_FAULT = 'redis-kill-lose1s';
const SCENARIOS = ['rollback-after-reply', 'kill-after-reply'] as const;

/** A wrong option ends the soak before anything starts, with the one line that says why. */
function refuse(message: string): never {
  console.error(`npm run soak: ${message}`);
  process.exit(2);
}
/** The command line; see bench/README.md, "Fault soak", for each option. */
function readArgs() {
  try {
    return parseArgs({
      options: {
        seed: { type: 'string', default: '1' },
        minutes: { type: 'string', default: '10' },
        'mail-mean-ms': { type: 'string', default: '1500' },
        'fault-min-s': { type: 'string', default: '10' },
        'fault-max-s': { type: 'string', default: '30' },
        faults: { type: 'string' },
        overlap: { type: 'boolean', default: false },
        appendfsync: { type: 'string', default: 'always' },
        scenario: { type: 'string' },
        rounds: { type: 'string', default: '3' },
        'quiet-s': { type: 'string', default: '60' },
        'max-drain-minutes': { type: 'string', default: '12' },
        out: { type: 'string' },
        keep: { type: 'boolean', default: false },
        'no-build': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (err) {
    return refuse(`${(err as Error).message} (npm run soak -- --help lists the options)`);
  }
}
const args = readArgs();
if (args.help) {
  console.log(`npm run soak -- [options]   (bench/README.md, "Fault soak", says what each does)
  --seed N                the random schedule of mail and faults (1)
  --minutes N             how long mail arrives and faults are injected (10)
  --mail-mean-ms N        mean time between two mails (1500)
  --fault-min-s N         least time between two faults (10)
  --fault-max-s N         most time between two faults (30)
  --faults a,b            only these faults (${FAULT_KINDS.join(', ')}; ${HOST_CRASH_FAULT} with --appendfsync everysec)
  --overlap               windowed faults overlap the next fault
  --appendfsync MODE      always (as docker-compose.yml runs Redis) or everysec
  --scenario NAME         ${SCENARIOS.join(' or ')}: one narrowed reproduction, --rounds times
  --rounds N              rounds of --scenario (3)
  --quiet-s N             seconds without a new reply before the check (60)
  --max-drain-minutes N   longest wait for the queues to empty (12)
  --out DIR               where the run's logs go (a new directory under the OS temp dir)
  --keep                  keep the Redis and Dovecot directories
  --no-build              use dist/ as it is`);
  process.exit(0);
}

function positive(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) refuse(`--${name} must be a positive number, not ${value}`);
  return n;
}
const SEED = positive('seed', args.seed);
const MINUTES = positive('minutes', args.minutes);
const MAIL_MEAN_MS = positive('mail-mean-ms', args['mail-mean-ms']);
const FAULT_MIN_S = positive('fault-min-s', args['fault-min-s']);
const FAULT_MAX_S = Math.max(FAULT_MIN_S, positive('fault-max-s', args['fault-max-s']));
const ROUNDS = positive('rounds', args.rounds);
const QUIET_MS = positive('quiet-s', args['quiet-s']) * 1000;
const MAX_DRAIN_MS = positive('max-drain-minutes', args['max-drain-minutes']) * 60_000;
const ONLY_FAULTS = args.faults?.split(',').filter(Boolean);
for (const kind of ONLY_FAULTS ?? []) {
  if (kind !== HOST_CRASH_FAULT && !(FAULT_KINDS as readonly string[]).includes(kind)) refuse(`--faults: no fault ${kind}`);
}
const APPENDFSYNC = args.appendfsync;
if (APPENDFSYNC !== 'always' && APPENDFSYNC !== 'everysec') refuse(`--appendfsync is always or everysec, not ${APPENDFSYNC}`);
const SCENARIO = args.scenario as (typeof SCENARIOS)[number] | undefined;
if (SCENARIO && !SCENARIOS.includes(SCENARIO)) refuse(`--scenario is one of ${SCENARIOS.join(', ')}`);
// Under `always` a host crash loses nothing Redis had answered, so the rollback would model a loss that cannot happen.
if ((SCENARIO === 'rollback-after-reply' || ONLY_FAULTS?.includes(HOST_CRASH_FAULT)) && APPENDFSYNC !== 'everysec') {
  refuse(`${SCENARIO ?? HOST_CRASH_FAULT} models a host crash under appendfsync everysec: add --appendfsync everysec`);
}

// The in-process indexing logs each step at info; the soak's own lines are what the console is for.
configureLogging('warn', { stream: 'stderr' });
const PREFIX = 'soak';
const RUN_DIR = args.out ? path.resolve(args.out) : mkdtempSync(path.join(tmpdir(), `helpdesk-soak-seed-${SEED}-`));
mkdirSync(RUN_DIR, { recursive: true });
const t0 = Date.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
function log(message: string): void {
  const line = `[${`${((Date.now() - t0) / 1000).toFixed(1)}s`.padStart(8)}] ${message}`;
  console.log(line);
  appendFileSync(path.join(RUN_DIR, 'soak.log'), `${line}\n`);
}
// Two streams, so that a run restricted to some faults still sends the same mails as an unrestricted one.
const mailRand = prng(SEED);
const faultRand = prng(SEED * 7919 + 1);

// ------------------------------------------------------------------------------------------------------------------
// Servers.

log(`seed ${SEED}, ${SCENARIO ? `scenario ${SCENARIO}, ${ROUNDS} rounds` : `${MINUTES} min`}, appendfsync ${APPENDFSYNC}, run output in ${RUN_DIR}`);
if (!args['no-build']) {
  log('npm run build');
  buildRoles();
}
const kbRoot = mkdtempSync(path.join(tmpdir(), 'helpdesk-soak-kb-'));
const knowledgeEnv = {
  DATA_DIR: path.join(kbRoot, 'data'),
  MANUALS_DIR: SAMPLE_MANUALS_DIR,
  QA_DIR: SAMPLE_QA_DIR,
  EMBEDDINGS_PROVIDER: 'local',
  // Small vectors: indexing takes seconds, and retrieval quality is not what the soak checks.
  EMBEDDING_DIMENSIONS: '256',
};
async function indexSampleKnowledge(): Promise<void> {
  await indexKnowledge(parseConfig({ ...knowledgeEnv, LOG_LEVEL: 'warn' }));
}
const [redis, imap, smtp] = await Promise.all([
  startRedis({ appendfsync: APPENDFSYNC }),
  startDovecot({ user: SUPPORT_ADDRESS }),
  startSmtpReceiver(),
  indexSampleKnowledge(),
]);
const smtpGate = await startTcpGate({ host: smtp.host, port: smtp.port });
log(`redis ${redis.url} (${redis.dir}); dovecot port ${imap.port} (${imap.dir}); smtp port ${smtp.port} behind gate ${smtpGate.port}`);

/** A reply as the SMTP receiver accepted it. */
interface Receipt {
  at: number;
  inReplyTo: string;
  to: string[];
  text: string;
  messageId: string;
}
const receipts: Receipt[] = [];
const repliesTo = (messageId: string): Receipt[] => receipts.filter((r) => r.inReplyTo === normalizeMessageId(messageId));
let smtpMode: 'ok' | '421' | '451' | 'drop' = 'ok';
let dropsLeft = 0;
smtp.respondWith(({ parsed, envelope }): SmtpReply | undefined => {
  if (smtpMode === '421') return { code: 421, message: '4.3.2 soak: service shutting down' };
  if (smtpMode === '451') return { code: 451, message: '4.3.0 soak: try again later' };
  const receipt = { at: Date.now(), inReplyTo: normalizeMessageId(parsed.inReplyTo ?? '(none)'), to: envelope.to, text: parsed.text ?? '', messageId: parsed.messageId ?? '' };
  receipts.push(receipt);
  // The receiver has taken the reply, the sender never hears so: the customer has it, and a resend would be a second.
  if (smtpMode === 'drop' && dropsLeft > 0) {
    dropsLeft -= 1;
    log(`  smtp: dropped the connection after DATA of the reply to ${receipt.inReplyTo} (counted as received)`);
    return { code: 250, dropConnection: true };
  }
  return undefined;
});

const llmLog = openSync(path.join(RUN_DIR, 'llm.log'), 'a');
const llm = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'bench/lib/soak-llm-child.ts')], { cwd: REPO_ROOT, stdio: ['ignore', llmLog, llmLog, 'ipc'] });
closeSync(llmLog);
const llmUrl = await new Promise<string>((resolve, reject) => {
  llm.once('exit', (code) => reject(new Error(`the LLM child exited with ${code} (${RUN_DIR}/llm.log)`)));
  llm.on('message', (m: { type: string; url?: string }) => m.type === 'ready' && m.url && resolve(m.url));
});
const setLlmMode = (mode: LlmFrontMode): void => void llm.send({ type: 'mode', mode });

const env: Record<string, string> = {
  ...knowledgeEnv,
  HELPDESK_ENV_FILE: 'none',
  LOG_LEVEL: 'info',
  REDIS_URL: redis.url,
  QUEUE_PREFIX: PREFIX,
  OPENAI_BASE_URL: llmUrl,
  OPENAI_API_KEY: 'soak',
  OPENAI_MODEL: 'gpt-4o',
  SMTP_HOST: smtpGate.host,
  SMTP_PORT: String(smtpGate.port),
  SMTP_SECURE: 'false',
  MAIL_FROM,
  REVIEW_MODE: 'auto',
  // An admin expecting this volume raises the global caps (as the benchmark does); the per-sender caps stay default.
  AUTO_REPLY_LIMIT_TOTAL_PER_HOUR: '1000000',
  AGENT_RUN_LIMIT_TOTAL_PER_HOUR: '1000000',
  // Every soak customer writes from customer.example: the per-domain window (100 an hour) would park the rest.
  AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR: '1000000',
  IMAP_HOST: imap.host,
  IMAP_PORT: String(imap.port),
  IMAP_SECURE: 'false',
  IMAP_ALLOW_PLAIN_LOGIN: 'true',
  IMAP_USER: imap.user,
  IMAP_PASSWORD: imap.password,
  IMAP_SENT_MAILBOX: 'off',
  REINDEX_MANUAL_CRON: '',
  REINDEX_QA_CRON: '',
  RETENTION_CRON: '',
};
writeFileSync(path.join(RUN_DIR, 'env.json'), JSON.stringify(env, null, 2));

// ------------------------------------------------------------------------------------------------------------------
// Roles, restarted as `restart: unless-stopped` restarts them.

interface Role {
  name: string;
  script: string;
  ready: RegExp;
  proc?: ChildProcess;
  starts: number;
  stopping: boolean;
  up: boolean;
}
const roles: Role[] = [
  { name: 'poller', script: 'dist/workers/imap-poller.js', ready: /IMAP connected/, starts: 0, stopping: false, up: false },
  { name: 'agent-a', script: 'dist/workers/agent-worker.js', ready: /Agent worker waiting for tickets/, starts: 0, stopping: false, up: false },
  { name: 'agent-b', script: 'dist/workers/agent-worker.js', ready: /Agent worker waiting for tickets/, starts: 0, stopping: false, up: false },
  { name: 'sender', script: 'dist/workers/sender.js', ready: /Sender waiting for replies/, starts: 0, stopping: false, up: false },
];
const roleNamed = (name: string): Role => roles.find((r) => r.name === name)!;
const roleLog = (role: Role): string => path.join(RUN_DIR, `${role.name}.log`);

function startRole(role: Role): void {
  role.starts += 1;
  appendFileSync(roleLog(role), `{"soak":"start #${role.starts}","time":${Date.now()}}\n`);
  const fd = openSync(roleLog(role), 'a');
  const child = spawn(process.execPath, [path.join(REPO_ROOT, role.script)], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  role.proc = child;
  role.up = true;
  child.once('exit', (code, signal) => {
    role.up = false;
    appendFileSync(roleLog(role), `{"soak":"exit code=${code} signal=${signal}","time":${Date.now()}}\n`);
    if (role.stopping) return;
    // The soak's own signals are expected; any other exit is the role giving up, worth a line.
    if (!(signal === 'SIGKILL' || signal === 'SIGTERM' || code === 0 || code === 143)) log(`  ${role.name} exited on its own (code ${code}, signal ${signal}); restarting in 1 s`);
    setTimeout(() => !role.stopping && startRole(role), 1_000);
  });
}
// A soak that dies half-way must not leave roles behind polling a deleted Redis.
process.once('exit', () => {
  for (const role of roles) if (role.up) role.proc?.kill('SIGKILL');
  llm.kill('SIGKILL');
});

async function waitReady(role: Role, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (role.ready.test(readFileSync(roleLog(role), 'utf8'))) return;
    await sleep(200);
  }
  throw new Error(`${role.name}: no ${role.ready} within ${timeoutMs / 1000} s (${roleLog(role)})`);
}
for (const role of roles) startRole(role);
await Promise.all(roles.map((role) => waitReady(role)));
log('all roles up');

// ------------------------------------------------------------------------------------------------------------------
// Mail.

type MailKind = 'one' | 'two' | 'thread' | 'autoreply' | 'bounce';
/** A mail the soak put into the mailbox. */
interface SoakMail {
  n: number;
  kind: MailKind;
  messageId: string;
  from: string;
  /** `CUST-<seed>-<n>` in the text: a reply carrying another customer's marker leaked that customer's mail. */
  marker: string;
  appendedAt: number;
  appendAttempts: number;
  /** The question a follow-up, auto-reply or bounce answers. */
  parent?: string;
}
const mails: SoakMail[] = [];
const [pairs, material] = await Promise.all([samplePairs(), manualMaterial()]);
let imapClient: ImapFlow | undefined;

/** APPENDs as a customer's server delivers: again and again while Dovecot is down; returns the attempts it took. */
async function append(raw: Buffer): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (!imapClient?.usable) {
        imapClient = new ImapFlow({ host: imap.host, port: imap.port, secure: false, auth: { user: imap.user, pass: imap.password }, logger: false });
        imapClient.on('error', () => undefined);
        await imapClient.connect();
      }
      await imapClient.append('INBOX', raw);
      return attempt;
    } catch (err) {
      imapClient?.close();
      imapClient = undefined;
      if (attempt >= 30) throw err;
      await sleep(1000);
    }
  }
}

const customerBody = (n: number, marker: string, text: string): string => `${text}\n\nお客様番号: ${marker}\nよろしくお願いいたします。\nCustomer ${n}`;

/** A delivery report for a reply of ours to `recipient`, as Postfix writes it. */
function bounceBody(boundary: string, marker: string, recipient: string, replyId: string, question: string): string {
  return [
    `--${boundary}`,
    'Content-Type: text/plain; charset=us-ascii',
    '',
    `This is the mail system at host mx.customer.example. ${marker}`,
    `I'm sorry to have to inform you that your message could not be delivered to ${recipient}.`,
    '',
    `--${boundary}`,
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.customer.example',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    'Action: failed',
    'Status: 5.1.1',
    'Diagnostic-Code: smtp; 550 5.1.1 user unknown',
    '',
    `--${boundary}`,
    'Content-Type: text/rfc822-headers',
    '',
    `From: ${MAIL_FROM}`,
    `To: ${recipient}`,
    `Message-ID: ${replyId}`,
    `In-Reply-To: ${question}`,
    'Subject: Re: question',
    '',
    `--${boundary}--`,
  ].join('\n');
}

/**
 * Appends the next mail: a one- or two-topic question from a new customer, or, once some question has its reply, a
 * follow-up in that thread, an out-of-office answer to the reply, or a bounce of it. `kind` forces the shape.
 */
async function sendMail(kind?: MailKind): Promise<SoakMail> {
  const n = mails.length + 1;
  const marker = `CUST-${SEED}-${String(n).padStart(5, '0')}`;
  const r = mailRand();
  const answered = mails.filter((m) => (m.kind === 'one' || m.kind === 'two') && repliesTo(m.messageId).length > 0);
  let chosen: MailKind = r < 0.45 ? 'one' : r < 0.82 ? 'two' : r < 0.92 ? 'thread' : r < 0.96 ? 'autoreply' : 'bounce';
  if (chosen !== 'one' && chosen !== 'two' && answered.length === 0) chosen = 'one';
  chosen = kind ?? chosen;
  const messageId = `<soak-${SEED}-${n}-${Math.floor(mailRand() * 1e9).toString(36)}@customer.example>`;
  let raw: Buffer;
  let from = `customer-${SEED}-${n}@customer.example`;
  let parent: string | undefined;
  if (chosen === 'one') {
    const p = pick(mailRand, pairs);
    raw = buildMail({ messageId, from: `Customer ${n} <${from}>`, subject: `${Array.from(p.question).slice(0, 20).join('')} (${n})`, body: customerBody(n, marker, p.question) });
  } else if (chosen === 'two') {
    const [a, b] = [pick(mailRand, pairs), pick(mailRand, pairs)];
    const [h1, h2] = [pick(mailRand, material.headings), pick(mailRand, material.headings)];
    const body = `お世話になっております。\n次の2点を教えてください。\n\n1. ${h1}について\n${a.question}\n\n2. ${h2}について\n${b.question}`;
    raw = buildMail({ messageId, from: `Customer ${n} <${from}>`, subject: `${h1}と${h2}について (${n})`, body: customerBody(n, marker, body) });
  } else {
    const base = pick(mailRand, answered);
    const reply = repliesTo(base.messageId)[0]!;
    parent = base.messageId;
    const replyId = normalizeMessageId(reply.messageId);
    if (chosen === 'thread') {
      from = base.from;
      const p = pick(mailRand, pairs);
      raw = buildMail({
        messageId,
        from: `Customer ${base.n} <${from}>`,
        subject: `Re: follow-up ${n}`,
        inReplyTo: replyId,
        references: [base.messageId, replyId],
        body: `ご回答ありがとうございます。追加で質問です。\n${p.question}\n\nお客様番号: ${marker}\n\n> ${reply.text.split('\n').slice(0, 3).join('\n> ')}`,
      });
    } else if (chosen === 'autoreply') {
      from = base.from;
      raw = buildMail({
        messageId,
        from: `Customer ${base.n} <${from}>`,
        subject: `自動応答: 不在のお知らせ (${n})`,
        inReplyTo: replyId,
        references: [replyId],
        headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' },
        body: `ただいま不在にしております。${marker}\n戻り次第ご連絡いたします。`,
      });
    } else {
      from = 'mailer-daemon@customer.example';
      const boundary = `b-${n}`;
      raw = buildMail({
        messageId,
        from: `Mail Delivery System <${from}>`,
        to: SUPPORT_ADDRESS,
        subject: `Undelivered Mail Returned to Sender (${n})`,
        headers: { 'Auto-Submitted': 'auto-replied' },
        body: '',
        rawBody: { contentType: `multipart/report; report-type=delivery-status; boundary="${boundary}"`, body: bounceBody(boundary, marker, base.from, replyId, base.messageId) },
      });
    }
  }
  const mail: SoakMail = { n, kind: chosen, messageId, from, marker, appendedAt: Date.now(), appendAttempts: 0, ...(parent ? { parent } : {}) };
  mails.push(mail);
  mail.appendAttempts = await append(raw);
  return mail;
}

// ------------------------------------------------------------------------------------------------------------------
// Faults.

/** A fault as injected; windowed faults (SMTP, LLM) have an end. */
interface FaultRecord {
  at: number;
  kind: string;
  detail: string;
  until?: number;
}
const faults: FaultRecord[] = [];

/** Copies Redis's AOF aside, to bring back later as what a host crash would have left on disk. */
function snapshotAof(): () => void {
  const live = path.join(redis.dir, 'appendonlydir');
  const snapshot = path.join(RUN_DIR, 'aof-snapshot');
  rmSync(snapshot, { recursive: true, force: true });
  cpSync(live, snapshot, { recursive: true });
  return () => {
    rmSync(live, { recursive: true, force: true });
    cpSync(snapshot, live, { recursive: true });
  };
}

async function injectFault(kind: string): Promise<void> {
  const record: FaultRecord = { at: Date.now(), kind, detail: '' };
  faults.push(record);
  if (/^(smtp|llm)-/.test(kind)) log(`FAULT ${kind} begins`);
  if (/^(kill|term)-/.test(kind)) {
    const signal = kind.startsWith('kill') ? 'SIGKILL' : 'SIGTERM';
    const target = kind.endsWith('agent') ? roleNamed(faultRand() < 0.5 ? 'agent-a' : 'agent-b') : roleNamed(kind.split('-')[1]!);
    if (!target.up || !target.proc) {
      record.detail = `${target.name} not up; skipped`;
    } else {
      record.detail = `${signal} ${target.name} pid ${target.proc.pid}`;
      target.proc.kill(signal);
    }
  } else if (kind === 'redis-term') {
    record.detail = 'redis SIGTERM + start';
    await redis.restart();
  } else if (kind === 'redis-kill') {
    record.detail = 'redis SIGKILL, start after 1 s';
    await redis.kill();
    await sleep(1000);
    await redis.start();
  } else if (kind === HOST_CRASH_FAULT) {
    // What was on disk a second before the crash: under everysec, the writes of that second were not fsynced yet.
    const rollBack = snapshotAof();
    await sleep(1000);
    await redis.kill();
    rollBack();
    record.detail = 'redis SIGKILL, AOF rolled back to 1 s before (host crash under everysec), start after 0.5 s';
    await sleep(500);
    await redis.start();
  } else if (kind === 'dovecot-restart') {
    record.detail = 'dovecot restart';
    await imap.restart();
  } else if (kind.startsWith('smtp-')) {
    const seconds = 8 + Math.floor(faultRand() * 5);
    if (kind === 'smtp-refuse') {
      record.detail = `gate closed ${seconds} s`;
      await smtpGate.close();
      await sleep(seconds * 1000);
      await smtpGate.open();
    } else if (kind === 'smtp-drop') {
      dropsLeft = 1 + Math.floor(faultRand() * 2);
      record.detail = `drop after DATA for the next ${dropsLeft} replies (window ${seconds} s)`;
      smtpMode = 'drop';
      await sleep(seconds * 1000);
      smtpMode = 'ok';
      dropsLeft = 0;
    } else {
      const code = kind === 'smtp-421' ? '421' : '451';
      record.detail = `${code} on DATA for ${seconds} s`;
      smtpMode = code;
      await sleep(seconds * 1000);
      smtpMode = 'ok';
    }
    record.until = Date.now();
  } else if (kind.startsWith('llm-')) {
    // A hang lasts past the product's model timeout, so that the timeout, not the fault's end, frees the ticket.
    const seconds = kind === 'llm-hang' ? 20 + Math.floor(faultRand() * 60) : 8 + Math.floor(faultRand() * 25);
    const mode = kind.slice(4) as LlmFrontMode;
    record.detail = `${mode} for ${seconds} s`;
    setLlmMode(mode);
    await sleep(seconds * 1000);
    setLlmMode('ok');
    record.until = Date.now();
  }
  log(`FAULT ${kind}: ${record.detail}`);
}

// ------------------------------------------------------------------------------------------------------------------
// Run: a scenario's rounds, or mail and faults for --minutes.

if (SCENARIO) {
  // Redis brought back right after a mail's reply was accepted: as it was just before that mail arrived
  // (rollback-after-reply: a host crash losing the last second under everysec), or as it was (kill-after-reply: a
  // process crash, nothing lost; the control).
  for (let round = 0; round < ROUNDS; round++) {
    await sleep(1500);
    const rollBack = snapshotAof();
    const mail = await sendMail('one');
    const end = Date.now() + 60_000;
    while (repliesTo(mail.messageId).length === 0 && Date.now() < end) await sleep(20);
    const record: FaultRecord = { at: Date.now(), kind: SCENARIO, detail: `right after the reply to #${mail.n} was accepted` };
    await redis.kill();
    if (SCENARIO === 'rollback-after-reply') rollBack();
    await redis.start();
    faults.push(record);
    log(`SCENARIO ${SCENARIO}: ${record.detail}; Redis back`);
    await sleep(20_000);
    log(`  replies to #${mail.n} so far: ${repliesTo(mail.messageId).length}`);
  }
} else {
  const soakEnd = Date.now() + MINUTES * 60_000;
  const mailLoop = (async () => {
    while (Date.now() < soakEnd) {
      try {
        await sendMail();
      } catch (err) {
        log(`append failed for good: ${String(err)}`);
      }
      // Poisson arrivals, capped so that a long gap never idles a short run.
      await sleep(Math.min(6000, -Math.log(1 - mailRand()) * MAIL_MEAN_MS));
    }
  })();
  const faultLoop = (async () => {
    await sleep(5_000);
    // No fault in the last 20 s: the last one's effects belong to the run, not to the drain.
    while (Date.now() < soakEnd - 20_000) {
      const kinds = ONLY_FAULTS ?? FAULT_KINDS;
      const fault = injectFault(kinds[Math.floor(faultRand() * kinds.length)]!);
      if (!args.overlap) await fault;
      await sleep((FAULT_MIN_S + faultRand() * (FAULT_MAX_S - FAULT_MIN_S)) * 1000);
    }
  })();
  const progress = setInterval(
    () => log(`progress: ${mails.length} mails appended, ${receipts.length} replies received, roles ${roles.map((r) => `${r.name}${r.up ? '' : '(down)'}#${r.starts}`).join(' ')}`),
    30_000,
  );
  await Promise.all([mailLoop, faultLoop]);
  clearInterval(progress);
}
log(`faults stopped; ${mails.length} mails appended; draining`);

// ------------------------------------------------------------------------------------------------------------------
// Drain: queues empty and no new reply for --quiet-s (a retry's backoff or a stalled job's lock may still send one).

const client = new Redis(redis.url, { maxRetriesPerRequest: null });
const queues = ['tickets', 'outbound', 'sentcopy'].map((name) => new Queue(name, { connection: client, prefix: PREFIX }));
const store = new TicketStore(client, { prefix: PREFIX });
const drainStart = Date.now();
let lastReplies = receipts.length;
let lastChange = Date.now();
let lastReport = 0;
for (;;) {
  const counts = await Promise.all(queues.map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children')));
  const busy = counts.reduce((sum, c) => sum + Object.values(c).reduce((a, b) => a + b, 0), 0);
  if (receipts.length !== lastReplies) [lastReplies, lastChange] = [receipts.length, Date.now()];
  const quietFor = Date.now() - lastChange;
  if (busy === 0 && quietFor >= QUIET_MS) break;
  if (Date.now() - drainStart > MAX_DRAIN_MS) {
    log(`drain gave up after ${MAX_DRAIN_MS / 1000} s: ${JSON.stringify(counts)}`);
    break;
  }
  if (Date.now() - lastReport >= 30_000) {
    lastReport = Date.now();
    const queued = counts.map((c, i) => [queues[i]!.name, Object.fromEntries(Object.entries(c).filter(([, v]) => v > 0))]);
    log(`draining: queues ${JSON.stringify(queued)}, quiet ${Math.round(quietFor / 1000)} s`);
  }
  await sleep(2_000);
}
log('quiescent; checking');

// ------------------------------------------------------------------------------------------------------------------
// Check every mail against its replies, its ticket and the mailbox.

const unseen = (await imap.doveadm(['search', '-u', imap.user, 'mailbox', 'INBOX', 'UNSEEN'])).trim();
const unseenUids = unseen ? unseen.split('\n').map((line) => line.trim().split(/\s+/)[1]!) : [];
const unseenIds = new Set<string>();
for (const uid of unseenUids) {
  const header = await imap.doveadm(['fetch', '-u', imap.user, 'hdr.message-id', 'mailbox', 'INBOX', 'uid', uid]);
  const id = /<[^>]+>/.exec(header);
  if (id) unseenIds.add(normalizeMessageId(id[0]));
}
const byMarker = new Map(mails.map((m) => [m.marker, m]));
const roleLogs = Object.fromEntries(roles.map((r) => [r.name, readFileSync(roleLog(r), 'utf8').split('\n')]));
/** The roles' log lines that name the mail or its ticket. */
function evidence(mail: SoakMail, ticket?: Ticket): string[] {
  const keys = [mail.messageId.slice(1, -1), ...(ticket ? [ticket.id.slice(0, 12)] : []), ticketIdFor(mail.messageId).slice(0, 12)];
  const lines: string[] = [];
  for (const [name, logLines] of Object.entries(roleLogs)) for (const line of logLines) if (keys.some((k) => line.includes(k))) lines.push(`${name}: ${line.slice(0, 400)}`);
  return lines.slice(0, 25);
}
/** Faults from 30 s before the mail arrived to 5 s after its ticket's last step (3 minutes without a ticket). */
function faultsAround(mail: SoakMail, ticket?: Ticket): string[] {
  const end = ticket ? Math.max(...ticket.history.map((h) => Date.parse(h.at))) + 5_000 : mail.appendedAt + 180_000;
  return faults
    .filter((f) => (f.until ?? f.at) >= mail.appendedAt - 30_000 && f.at <= end)
    .map((f) => `+${((f.at - mail.appendedAt) / 1000).toFixed(1)}s ${f.kind} (${f.detail})`);
}

/** The states in which a ticket without a reply waits for a person, who sees it. */
const OPERATOR_STATES = new Set(['parked', 'failed', 'rejected']);
interface Violation {
  kind: string;
  mail: SoakMail;
  ticket?: Ticket;
  note: string;
}
const violations: Violation[] = [];
const table: Record<string, Record<string, number>> = {};
const ticketStates: Record<string, number> = {};
const tickets = new Map<SoakMail, Ticket | undefined>();
for (const mail of mails) {
  const ticket = await store.get(ticketIdFor(mail.messageId));
  tickets.set(mail, ticket);
  const replies = repliesTo(mail.messageId);
  const state = ticket?.state ?? '(none)';
  ticketStates[state] = (ticketStates[state] ?? 0) + 1;
  const row = (table[mail.kind] ??= {});
  const cell = `${state}/${replies.length}r`;
  row[cell] = (row[cell] ?? 0) + 1;
  const violation = (kind: string, note: string): void => void violations.push({ kind, mail, ...(ticket ? { ticket } : {}), note });
  if (mail.kind === 'one' || mail.kind === 'two' || mail.kind === 'thread') {
    if (replies.length > 1) violation('DOUBLE-REPLY', `${replies.length} replies`);
    else if (replies.length === 0 && !ticket) violation('LOST', 'no reply and no ticket');
    else if (replies.length === 0 && !OPERATOR_STATES.has(ticket!.state)) violation('SILENT', `no reply, ticket in ${ticket!.state} (reason: ${ticket!.reason ?? '-'})`);
    else if (replies.length === 0 && !ticket!.reason) violation('NO-REASON', `no reply, ticket ${ticket!.state} without a reason`);
    else if (replies.length === 1 && !ticket) violation('REPLIED-NO-TICKET', 'one reply, no ticket');
    // A reply the receiver took while the connection dropped is parked saying it may have been delivered.
    else if (replies.length === 1 && ticket!.state !== 'sent' && !(ticket!.state === 'parked' && /sent|accept|deliver/i.test(ticket!.reason ?? '')))
      violation('REPLIED-BUT-STATE', `one reply, ticket ${ticket!.state} (reason: ${ticket!.reason ?? '-'})`);
  } else {
    if (replies.length > 0) violation('AUTO-ANSWERED', `${replies.length} replies to an ${mail.kind}`);
    if (!ticket) violation('NO-TICKET', `${mail.kind} has no ticket`);
  }
  for (const reply of replies) {
    if (!reply.to.map((a) => a.toLowerCase()).includes(mail.from.toLowerCase())) violation('WRONG-RECIPIENT', `reply to ${reply.to.join(',')}`);
    for (const marker of reply.text.match(/CUST-\d+-\d{5}/g) ?? []) {
      const other = byMarker.get(marker);
      if (other && other.from !== mail.from) violation('FOREIGN-TEXT', `reply carries ${marker} of ${other.from}`);
    }
  }
  if (unseenIds.has(normalizeMessageId(mail.messageId))) violation('UNSEEN', 'still \\Unseen in INBOX');
}
const known = new Set(mails.map((m) => normalizeMessageId(m.messageId)));
const strays = receipts.filter((r) => !known.has(r.inReplyTo));
for (const stray of strays) log(`STRAY reply In-Reply-To ${stray.inReplyTo} to ${stray.to.join(',')}`);

const countBy = <T>(items: readonly T[], key: (item: T) => string): Record<string, number> =>
  items.reduce<Record<string, number>>((acc, item) => ((acc[key(item)] = (acc[key(item)] ?? 0) + 1), acc), {});
log('================ RESULTS');
log(`mails ${mails.length} (${Object.entries(countBy(mails, (m) => m.kind)).map(([k, v]) => `${k} ${v}`).join(', ')}); replies ${receipts.length} (stray ${strays.length}); unseen ${unseenUids.length}`);
log(`tickets of appended mails by state: ${JSON.stringify(ticketStates)}; store countByState: ${JSON.stringify(await store.countByState())}`);
log(`faults (${faults.length}): ${JSON.stringify(countBy(faults, (f) => f.kind))}`);
log(`role starts: ${roles.map((r) => `${r.name} ${r.starts}`).join(', ')}`);
for (const [kind, cells] of Object.entries(table)) log(`  ${kind.padEnd(10)} ${Object.entries(cells).map(([c, n]) => `${c}:${n}`).join('  ')}`);
for (const mail of mails) {
  const ticket = tickets.get(mail);
  if (!ticket || ticket.state === 'sent' || ticket.state === 'ignored') continue;
  log(`  not sent: #${mail.n} ${mail.kind} ${ticket.state} ${ticket.id.slice(0, 12)} reason: ${(ticket.reason ?? '-').slice(0, 200)}; faults: ${faultsAround(mail, ticket).join('; ')}`);
}
log(`VIOLATIONS: ${violations.length}`);
for (const v of violations) {
  log(`--- ${v.kind} mail #${v.mail.n} ${v.mail.kind} ${v.mail.messageId} from ${v.mail.from} appended +${((v.mail.appendedAt - t0) / 1000).toFixed(1)}s (append attempts ${v.mail.appendAttempts}): ${v.note}`);
  log(`    ticket ${v.ticket?.id ?? '-'} state ${v.ticket?.state ?? '-'} reason ${v.ticket?.reason ?? '-'}`);
  for (const h of v.ticket?.history ?? []) log(`    history ${h.at} ${h.from}→${h.to} ${h.actor} ${h.note ?? ''}`);
  for (const f of faultsAround(v.mail, v.ticket)) log(`    fault ${f}`);
  for (const line of evidence(v.mail, v.ticket)) log(`    log ${line}`);
}
writeFileSync(
  path.join(RUN_DIR, 'result.json'),
  JSON.stringify(
    {
      seed: SEED,
      scenario: SCENARIO ?? null,
      appendfsync: APPENDFSYNC,
      t0,
      mails,
      faults,
      receipts,
      violations: violations.map((v) => ({ ...v, ticket: v.ticket && { id: v.ticket.id, state: v.ticket.state, reason: v.ticket.reason, history: v.ticket.history } })),
    },
    null,
    1,
  ),
);

// ------------------------------------------------------------------------------------------------------------------
// Teardown.

for (const role of roles) role.stopping = true;
await Promise.all(
  roles.map(async (role) => {
    if (!role.up || !role.proc) return;
    const proc = role.proc;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    // Roles stop within 25 s of SIGTERM (Compose gives them 30).
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }),
);
await Promise.all(queues.map((q) => q.close()));
client.disconnect();
await imapClient?.logout().catch(() => undefined);
llm.kill('SIGTERM');
if (args.keep) log(`kept servers' data: redis ${redis.dir}, dovecot ${imap.dir}, knowledge base ${kbRoot}`);
else await Promise.allSettled([smtp.stop(), smtpGate.close(), imap.stop(), redis.stop(), rm(kbRoot, { recursive: true, force: true })]);
log(`${violations.length === 0 ? 'PASS' : 'FAIL'}: ${violations.length} violations in ${mails.length} mails under ${faults.length} faults; run output in ${RUN_DIR}`);
process.exit(violations.length === 0 ? 0 : 1);
