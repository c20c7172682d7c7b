/**
 * Smoke tests for the real-server fixtures in test/support, driven through
 * the same client libraries the worker uses (ioredis, imapflow, nodemailer).
 * If these fail, every other integration test would fail for the wrong reason.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { Redis } from 'ioredis';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDovecot, type DovecotServer } from '../../src/dev/dovecot.js';
import { freePort } from '../../src/dev/ports.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { replySequence, startSmtpReceiver, type SmtpReceiver } from '../../src/dev/smtp-receiver.js';

/** Opens an ioredis client that fails fast instead of queueing forever, and closes it after `use`. */
async function withRedis<T>(url: string, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await client.connect();
    return await use(client);
  } finally {
    client.disconnect();
  }
}

describe('freePort', () => {
  it('returns a loopback port that can be bound right away', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(port).toBeGreaterThan(0);
  });
});

describe('redis-server fixture', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('serves SET/GET on loopback with BullMQ-safe settings', async () => {
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    await withRedis(redis.url, async (client) => {
      await client.set('greeting', 'こんにちは');
      expect(await client.get('greeting')).toBe('こんにちは');
      expect(await client.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
      expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      expect(await client.config('GET', 'dir')).toEqual(['dir', redis.dir]);
    });
  });

  it('keeps data across a graceful restart on the same port', async () => {
    await withRedis(redis.url, (client) => client.set('survives-restart', '1'));
    await redis.restart();
    expect(redis.running).toBe(true);
    expect(await withRedis(redis.url, (client) => client.get('survives-restart'))).toBe('1');
  });

  it('keeps acknowledged writes across SIGKILL and start()', async () => {
    await withRedis(redis.url, (client) => client.rpush('survives-kill', 'a', 'b'));
    await redis.kill();
    expect(redis.running).toBe(false);
    await redis.start();
    expect(await withRedis(redis.url, (client) => client.lrange('survives-kill', 0, -1))).toEqual(['a', 'b']);
  });

  it('can run with another eviction policy for tests of the BullMQ warning', async () => {
    const lru = await startRedis({ maxmemoryPolicy: 'allkeys-lru', maxmemory: '64mb' });
    try {
      expect(lru.port).not.toBe(redis.port);
      expect(lru.dir).not.toBe(redis.dir);
      await withRedis(lru.url, async (client) => {
        expect(await client.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'allkeys-lru']);
        expect(await client.get('greeting')).toBeNull();
      });
    } finally {
      await lru.stop();
    }
  });
});

// ISO-2022-JP is 7-bit, so the escape sequences can live in a latin1 string.
const JP_SUBJECT = 'お問い合わせ：ログインできません';
const JP_SUBJECT_ENCODED = '=?ISO-2022-JP?B?GyRCJCpMZCQkOWckbyQ7ISclbSUwJSQlcyRHJC0kXiQ7JHMbKEI=?=';
const JP_BODY = 'ログインできません。\r\nパスワードを再設定してください。\r\n';
const JP_BODY_ISO_2022_JP =
  '\x1b$B%m%0%$%s$G$-$^$;$s!#\x1b(B\r\n\x1b$B%Q%9%o!<%I$r:F@_Dj$7$F$/$@$5$$!#\x1b(B\r\n';

const japaneseEml = Buffer.from(
  [
    'From: =?ISO-2022-JP?B?GyRCOzNFRBsoQg==?= <yamada@example.jp>',
    'To: support@helpdesk.test',
    `Subject: ${JP_SUBJECT_ENCODED}`,
    'Date: Mon, 03 Feb 2025 10:00:00 +0900',
    'Message-ID: <jp-0001@example.jp>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=ISO-2022-JP',
    'Content-Transfer-Encoding: 7bit',
    '',
    JP_BODY_ISO_2022_JP,
  ].join('\r\n'),
  'latin1',
);

function imapClient(server: DovecotServer, pass = server.password): ImapFlow {
  return new ImapFlow({
    host: server.host,
    port: server.port,
    secure: false,
    auth: { user: server.user, pass },
    logger: false,
  });
}

// A developer's `npm test` and `npm run demo` run as themselves: Dovecot then runs rootless, as that user. CI runs
// as root, so this runs the script as nobody there.
describe('dovecot fixture, rootless', () => {
  it('serves the mailbox as a user who is not root, and refuses a wrong password', () => {
    const node = [process.execPath, '--import', 'tsx', 'test/support/dovecot-as-user.ts'];
    const asRoot = process.getuid?.() === 0;
    const home = mkdtempSync(path.join(tmpdir(), 'rootless-'));
    chmodSync(home, 0o777);
    try {
      const [command, ...args] = asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...node] : node;
      const run = spawnSync(command!, args, { cwd: path.resolve(import.meta.dirname, '../..'), encoding: 'utf8', timeout: 60_000, env: { ...process.env, HOME: home, TMPDIR: home } });
      expect(run.status, run.stderr).toBe(0);
      const seen = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { uid: number; delivered: number; exists: number; refused: boolean };
      expect(seen).toMatchObject({ delivered: 1, exists: 1, refused: true });
      expect(seen.uid).not.toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('dovecot fixture', () => {
  let dovecot: DovecotServer;

  beforeAll(async () => {
    dovecot = await startDovecot({ mailboxes: ['Processed'] });
  });
  afterAll(async () => {
    await dovecot?.stop();
  });

  it('has a fixture that really is ISO-2022-JP for the expected text', () => {
    expect(new TextDecoder('iso-2022-jp').decode(Buffer.from(JP_BODY_ISO_2022_JP, 'latin1'))).toBe(JP_BODY);
  });

  it('lists a doveadm-delivered Japanese mail over plain IMAP with UID, size and source', async () => {
    const delivered = await dovecot.deliver(japaneseEml);
    const client = imapClient(dovecot);
    await client.connect();
    try {
      const mailbox = await client.mailboxOpen('INBOX');
      expect(mailbox.uidValidity).toBe(BigInt(delivered.uidValidity));

      const listed = await client.fetchAll('1:*', { uid: true, size: true, envelope: true, flags: true });
      const message = listed.find((m) => m.uid === delivered.uid);
      expect(message?.size).toBe(japaneseEml.length);
      expect(message?.envelope?.subject).toBe(JP_SUBJECT);
      expect(message?.envelope?.messageId).toBe('<jp-0001@example.jp>');
      expect(message?.flags?.has('\\Seen')).toBe(false);

      const fetched = await client.fetchOne(String(delivered.uid), { source: true }, { uid: true });
      expect(fetched && fetched.source?.equals(japaneseEml)).toBe(true);
      const parsed = await simpleParser(fetched ? (fetched.source ?? Buffer.alloc(0)) : Buffer.alloc(0));
      expect(parsed.subject).toBe(JP_SUBJECT);
      expect(parsed.text?.replace(/\r\n/g, '\n')).toBe(JP_BODY.replace(/\r\n/g, '\n'));
    } finally {
      await client.logout();
    }
  });

  it('has the requested extra mailbox and can create more', async () => {
    await dovecot.createMailbox('Escalated');
    const client = imapClient(dovecot);
    await client.connect();
    try {
      const paths = (await client.list()).map((entry) => entry.path);
      expect(paths).toEqual(expect.arrayContaining(['INBOX', 'Processed', 'Escalated']));
      const status = await client.status('Processed', { messages: true, uidValidity: true });
      expect(status).toMatchObject({ path: 'Processed', messages: 0 });
      expect(status && typeof status.uidValidity).toBe('bigint');
    } finally {
      await client.logout();
    }
  });

  it('delivers into a named mailbox with consecutive UIDs', async () => {
    const first = await dovecot.deliver(japaneseEml, 'Processed');
    const second = await dovecot.deliver(japaneseEml.toString('latin1'), 'Processed');
    expect(second.uid).toBe(first.uid + 1);
    expect(second.uidValidity).toBe(first.uidValidity);
  });

  it('rejects a wrong password', async () => {
    const client = imapClient(dovecot, 'not-the-password');
    await expect(client.connect()).rejects.toThrow();
    client.close();
  });

  it('keeps mail, UIDs and UIDVALIDITY across a restart on the same port', async () => {
    const delivered = await dovecot.deliver(japaneseEml);
    const before = imapClient(dovecot);
    await before.connect();
    const { uidValidity } = await before.mailboxOpen('INBOX');
    const uidsBefore = (await before.fetchAll('1:*', { uid: true })).map((m) => m.uid);
    await before.logout();

    const port = dovecot.port;
    await dovecot.restart();
    expect(dovecot.running).toBe(true);
    expect(dovecot.port).toBe(port);

    const after = imapClient(dovecot);
    await after.connect();
    try {
      const reopened = await after.mailboxOpen('INBOX');
      expect(reopened.uidValidity).toBe(uidValidity);
      const uidsAfter = (await after.fetchAll('1:*', { uid: true })).map((m) => m.uid);
      expect(uidsAfter).toEqual(uidsBefore);
      expect(uidsAfter).toContain(delivered.uid);
      expect((await after.list()).map((entry) => entry.path)).toContain('Processed');
    } finally {
      await after.logout();
    }
  });
});

describe('smtp-receiver fixture', () => {
  let smtp: SmtpReceiver;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
  });
  afterAll(async () => {
    await smtp?.stop();
  });

  const transport = () => nodemailer.createTransport({ host: smtp.host, port: smtp.port, secure: false, ignoreTLS: true });

  it('receives and parses a UTF-8 Japanese mail sent by nodemailer', async () => {
    smtp.clear();
    smtp.respondWith(undefined);
    const info = await transport().sendMail({
      from: 'support@helpdesk.test',
      to: 'yamada@example.jp',
      subject: 'Re: お問い合わせ：ログインできません',
      text: 'パスワード再設定のリンクをお送りしました。\n',
      headers: { 'In-Reply-To': '<jp-0001@example.jp>' },
    });
    expect(info.response).toMatch(/^250 /);

    const [message] = await smtp.waitFor(1);
    expect(message?.envelope).toEqual({ from: 'support@helpdesk.test', to: ['yamada@example.jp'] });
    expect(message?.subject).toBe('Re: お問い合わせ：ログインできません');
    expect(message?.text).toBe('パスワード再設定のリンクをお送りしました。\n');
    expect(message?.headers.get('in-reply-to')).toBe('<jp-0001@example.jp>');
    expect(message?.raw.toString('latin1')).toMatch(/charset=utf-8/i);
  });

  it('makes 451-then-250 sequencing observable', async () => {
    smtp.clear();
    smtp.respondWith(replySequence({ code: 451, message: '4.3.0 Try again later' }));
    const mail = { from: 'support@helpdesk.test', to: 'customer@example.com', subject: 'retry me', text: 'hello' };

    await expect(transport().sendMail(mail)).rejects.toMatchObject({ responseCode: 451 });
    expect(smtp.messages).toHaveLength(0);
    const info = await transport().sendMail(mail);
    expect(info.response).toMatch(/^250 /);

    expect(smtp.attempts.map((a) => a.reply.code)).toEqual([451, 250]);
    expect((await smtp.waitFor(1)).map((m) => m.attempt)).toEqual([2]);
  });

  it('rejects permanently with 550', async () => {
    smtp.clear();
    smtp.respondWith(() => ({ code: 550, message: '5.1.1 Mailbox unavailable' }));
    await expect(
      transport().sendMail({ from: 'support@helpdesk.test', to: 'gone@example.com', subject: 'x', text: 'x' }),
    ).rejects.toMatchObject({ responseCode: 550, response: expect.stringContaining('5.1.1 Mailbox unavailable') });
    expect(smtp.messages).toHaveLength(0);
    expect(smtp.attempts).toHaveLength(1);
    smtp.respondWith(undefined);
  });

  it('enforces configured AUTH credentials and records the user', async () => {
    const authed = await startSmtpReceiver({ user: 'mailer', password: 's3cret' });
    try {
      const send = (pass: string) =>
        nodemailer
          .createTransport({ host: authed.host, port: authed.port, secure: false, ignoreTLS: true, auth: { user: 'mailer', pass } })
          .sendMail({ from: 'support@helpdesk.test', to: 'a@example.com', subject: 'auth', text: 'auth' });
      await expect(send('wrong')).rejects.toMatchObject({ responseCode: 535 });
      await send('s3cret');
      const [message] = await authed.waitFor(1);
      expect(message?.authUser).toBe('mailer');
    } finally {
      await authed.stop();
    }
  });

  it('times out waitFor with a description of what arrived', async () => {
    smtp.clear();
    await expect(smtp.waitFor(1, 50)).rejects.toThrow(/expected 1 accepted message\(s\) within 50 ms, got 0/);
  });
});
