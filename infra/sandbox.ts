/**
 * `npm run sandbox`: real local servers to try the whole pipeline on one machine without Docker — a redis-server,
 * a Dovecot IMAP server with the support mailbox, an SMTP server that catches every reply (printed here and saved
 * as .eml under `.data/sandbox/outbox/`), and optionally (`--llm`) the scripted OpenAI-compatible server the tests
 * use, for a machine without a model. It writes the matching settings to `.env` (keeping a backup) so `npm start`
 * in another terminal uses them. Needs `redis-server` and `dovecot-imapd` (Debian packages) and root for Dovecot.
 *
 * `npm run sandbox -- send "<question>" [--from ADDRESS] [--subject TEXT]` delivers a customer mail into the
 * sandbox mailbox of a running sandbox.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ImapFlow } from 'imapflow';
import { startDovecot } from '../src/dev/dovecot.js';
import { startOpenAIServer } from '../src/dev/openai-server.js';
import { startRedis } from '../src/dev/redis-server.js';
import { scriptedModel } from '../src/dev/scripted-model.js';
import { startSmtpReceiver } from '../src/dev/smtp-receiver.js';

const STATE_FILE = path.resolve('.data/sandbox/sandbox.json');
const OUTBOX = path.resolve('.data/sandbox/outbox');

interface SandboxState {
  imap: { host: string; port: number; user: string; password: string };
}

async function serve(withLlm: boolean): Promise<void> {
  mkdirSync(OUTBOX, { recursive: true });
  const redis = await startRedis();
  const imap = await startDovecot({ user: 'support@helpdesk.test', password: 'support' });
  const smtp = await startSmtpReceiver();
  const llm = withLlm ? await startOpenAIServer({ handler: scriptedModel() }) : undefined;

  const env: Record<string, string> = {
    REDIS_URL: redis.url,
    IMAP_HOST: imap.host,
    IMAP_PORT: String(imap.port),
    IMAP_SECURE: 'false',
    IMAP_USER: imap.user,
    IMAP_PASSWORD: imap.password,
    IMAP_POLL_INTERVAL_MS: '5000',
    SMTP_HOST: smtp.host,
    SMTP_PORT: String(smtp.port),
    SMTP_SECURE: 'false',
    MAIL_FROM: 'XYZ Support <support@helpdesk.test>',
    DASHBOARD_PASSWORD: 'sandbox',
    ...(llm ? { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'sandbox', EMBEDDINGS_PROVIDER: 'local' } : {}),
  };
  if (existsSync('.env')) copyFileSync('.env', '.env.before-sandbox');
  const kept = existsSync('.env')
    ? readFileSync('.env', 'utf8')
        .split('\n')
        .filter((line) => !Object.keys(env).some((k) => line.startsWith(`${k}=`)))
    : [];
  writeFileSync('.env', [...kept.filter(Boolean), '# written by npm run sandbox', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ''].join('\n'));
  writeFileSync(STATE_FILE, JSON.stringify({ imap: { host: imap.host, port: imap.port, user: imap.user, password: imap.password } } satisfies SandboxState));

  let received = 0;
  const timer = setInterval(() => {
    for (const message of smtp.messages.slice(received)) {
      received++;
      const file = path.join(OUTBOX, `${String(received).padStart(4, '0')}.eml`);
      writeFileSync(file, message.raw);
      process.stdout.write(`\n── reply ${received} to ${message.envelope.to.join(', ')}: ${message.subject ?? ''} (${file})\n${message.text ?? ''}\n`);
    }
  }, 500);

  process.stdout.write(
    [
      'sandbox running (Ctrl-C stops it; .env now points at it, the previous one is in .env.before-sandbox):',
      ...Object.entries(env).map(([k, v]) => `  ${k}=${v}`),
      '',
      'in another terminal:  npm run reindex && npm start',
      'then:                 npm run sandbox -- send "二段階認証を認証アプリで設定する手順を教えてください。"',
      '',
    ].join('\n'),
  );

  const stop = async (): Promise<void> => {
    clearInterval(timer);
    await Promise.allSettled([smtp.stop(), imap.stop(), redis.stop(), llm?.close()]);
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

async function send(args: string[]): Promise<void> {
  if (!existsSync(STATE_FILE)) throw new Error('no sandbox is running: start one with npm run sandbox');
  const state = JSON.parse(readFileSync(STATE_FILE, 'utf8')) as SandboxState;
  const option = (name: string, fallback: string): string => {
    const at = args.indexOf(name);
    if (at < 0) return fallback;
    const [value] = args.splice(at, 2).slice(1);
    return value ?? fallback;
  };
  const from = option('--from', 'customer@example.com');
  const subject = option('--subject', 'お問い合わせ');
  const question = args.join(' ').trim();
  if (!question) throw new Error('usage: npm run sandbox -- send "<question>" [--from ADDRESS] [--subject TEXT]');
  const raw = [
    `From: ${from}`,
    `To: ${state.imap.user}`,
    `Subject: =?UTF-8?B?${Buffer.from(subject).toString('base64')}?=`,
    `Message-ID: <${randomUUID()}@sandbox.example>`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=UTF-8',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from(question).toString('base64'),
    '',
  ].join('\r\n');
  const client = new ImapFlow({ host: state.imap.host, port: state.imap.port, secure: false, auth: { user: state.imap.user, pass: state.imap.password }, logger: false });
  await client.connect();
  await client.append('INBOX', raw);
  await client.logout();
  process.stdout.write(`delivered a mail from ${from} to ${state.imap.user}\n`);
}

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === 'send') await send(rest);
  else await serve(process.argv.includes('--llm'));
} catch (err) {
  process.stderr.write(`sandbox: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
