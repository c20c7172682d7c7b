/**
 * `npm run check` as an admin runs it after filling in `.env`: a separate process against real servers (redis-server,
 * Dovecot, the SMTP receiver, the scripted OpenAI-compatible server, the embedded indexes), one line per server, and
 * exit 1 when one of them cannot be used — with the reason the role would log.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { ImapFlow } from 'imapflow';
import { Redis } from 'ioredis';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/dev/redis-server.js';
import { startSmtpReceiver } from '../../src/dev/smtp-receiver.js';
import { buildMail, customerMessageId, pipelineEnv, runNpm, startPipelineServers, type PipelineServers } from '../support/pipeline.js';

// A Node process compiling TypeScript on the fly, on a busy two-core machine.
const SLOW = { timeout: 120_000 };

let servers: PipelineServers;

beforeAll(async () => {
  servers = await startPipelineServers({ imap: true });
  // The test Redis skips fsync for speed; this file's clean run is a Redis as README asks for it (appendfsync always).
  const admin = new Redis(servers.redis.url);
  try {
    await admin.config('SET', 'appendfsync', 'always');
  } finally {
    admin.disconnect();
  }
});
afterAll(async () => {
  await servers?.stop();
});

/** `npm run check` as an admin runs it, with the servers of this file in its environment. */
function check(overrides: Record<string, string> = {}, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runNpm(['run', 'check', ...(args.length > 0 ? ['--', ...args] : [])], { HELPDESK_ENV_FILE: 'none', ...pipelineEnv(servers, overrides) }, SLOW.timeout);
}

describe('npm run check', () => {
  it('reaches every server once and exits 0, changing nothing', SLOW, async () => {
    const smtpBefore = servers.smtp.messages.length;
    const result = await check();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.map((l) => l.slice(0, l.indexOf(':')))).toEqual(['✓ Redis', '✓ IMAP mailbox', '- Sender authentication', '✓ Model server', '✓ Manual search', '✓ Q&A search', '✓ SMTP server', '✓ Dashboard']);
    // The servers' DASHBOARD_AUTH=off: what the dashboard then does, said where the admin looks next.
    expect(result.stdout).toMatch(/^✓ Dashboard: http:\/\/127\.0\.0\.1:0 — no login \(DASHBOARD_AUTH=off\), this machine only; the port is chosen at start \(DASHBOARD_PORT=0\)$/m);
    expect(servers.smtp.messages.length).toBe(smtpBefore);
    expect(servers.llm.chatRequests()).toHaveLength(0);
  });

  it('names what is wrong, as the role would, and exits 1', SLOW, async () => {
    const result = await check({ IMAP_PASSWORD: 'wrong', SMTP_PORT: '1', OPENAI_MODEL: 'gpt-4o' });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`✗ IMAP mailbox: ${servers.imap!.host}:${servers.imap!.port} INBOX — IMAP login as ${servers.imap!.user} to ${servers.imap!.host}:${servers.imap!.port} failed (wrong IMAP_USER or IMAP_PASSWORD?)`);
    expect(result.stdout).toMatch(/^✗ SMTP server: smtp:\/\/127\.0\.0\.1:1 — .*ECONNREFUSED/m);
    // The server answers, but every run would ask it for a model it does not have.
    expect(result.stdout).toMatch(/^! Model server: .* — it does not list gpt-4o \(it lists scripted-model\)/m);
    expect(result.stdout).toMatch(/^✓ Redis/m);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('2 of 7 checks failed');
  });

  it('fails when there is no index at all, in the words of /readyz, as the agent worker takes no tickets', SLOW, async () => {
    const result = await check({ DATA_DIR: path.join(servers.kb.dataDir, 'nothing-here') });
    expect(result.code).toBe(1);
    for (const what of ['Manual search', 'Q&A search']) {
      expect(result.stdout).toMatch(
        new RegExp(`^✗ ${what}: embedded, .* — an agent worker here takes no tickets: no knowledge index yet: run \`npm run reindex\` \\(or start the scheduler\\) on this machine; the mail waits in the queue$`, 'm'),
      );
    }
  });

  it('fails a dashboard that would not start, and OpenAI without a key, before asking any server', SLOW, async () => {
    const [result, placeholder] = await Promise.all([
      check({ DASHBOARD_AUTH: 'on', DASHBOARD_PASSWORD: '', OPENAI_BASE_URL: '', OPENAI_API_KEY: '' }),
      // As .env.example sets it: "not set" would send the admin looking for a line that is there.
      check({ OPENAI_BASE_URL: '', OPENAI_API_KEY: 'not-needed' }),
    ]);
    expect(result.code).toBe(1);
    // What `npm start` would log, instead of a dashboard at http://127.0.0.1:3000.
    expect(result.stdout).toMatch(
      /^✗ Dashboard: http:\/\/127\.0\.0\.1:0 — DASHBOARD_PASSWORD is required by the dashboard \(HTTP Basic password for DASHBOARD_USER\); set it, or set DASHBOARD_AUTH=off to run without authentication on 127\.0\.0\.1 only$/m,
    );
    // An empty key becomes a placeholder that only servers of one's own accept.
    const noKey =
      '✗ Model server: https://api.openai.com/v1 — OPENAI_API_KEY is not set (or is the placeholder not-needed, as .env.example has it): OpenAI needs a real key; a local server (Ollama, vLLM) needs OPENAI_BASE_URL';
    expect(result.stdout).toContain(noKey);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('2 of 8 checks failed');
    expect(placeholder.code).toBe(1);
    expect(placeholder.stdout).toContain(noKey);
  });

  // A machine of docker-compose.worker.yml: no mailbox, SMTP server or dashboard of its own (newcomer's walk, 5).
  it('checks only what the role uses with --role, so an agent-worker-only machine passes', SLOW, async () => {
    const workerOnly = { IMAP_HOST: '', IMAP_USER: '', IMAP_PASSWORD: '', SMTP_HOST: '', MAIL_FROM: '', DASHBOARD_AUTH: 'on', DASHBOARD_PASSWORD: '' };
    const [every, worker] = await Promise.all([check(workerOnly), check(workerOnly, ['--role', 'agent-worker'])]);
    const names = (stdout: string) => stdout.trim().split('\n').map((l) => l.slice(0, l.indexOf(':')));
    expect(every.code).toBe(1);
    expect(names(every.stdout)).toEqual(expect.arrayContaining(['✗ IMAP mailbox', '✗ SMTP server', '✗ Dashboard']));
    expect(worker.code, worker.stdout + worker.stderr).toBe(0);
    expect(names(worker.stdout)).toEqual(['✓ Redis', '✓ Model server', '✓ Manual search', '✓ Q&A search']);
  });

  it('prints no info log lines at LOG_LEVEL=info unless --verbose', SLOW, async () => {
    const [quiet, verbose] = await Promise.all([check({ LOG_LEVEL: 'info' }), check({ LOG_LEVEL: 'info' }, ['--verbose'])]);
    expect(quiet.code, quiet.stdout + quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(verbose.code, verbose.stdout + verbose.stderr).toBe(0);
    expect(verbose.stderr).toMatch(/"level":30.*"msg":"index loaded"/);
    expect(verbose.stdout).toBe(quiet.stdout);
  });

  // With only one of the two set, every mail through the group is parked: the admin learns it here, not from the
  // first parked ticket.
  it.each<[Record<string, string>, string | undefined]>([
    [{ SUPPORT_GROUP_ADDRESSES: 'help@support.example' }, '! Own group: SUPPORT_GROUP_ADDRESSES help@support.example — AUTHSERV_ID is not set'],
    [{ AUTHSERV_ID: 'mx.google.com' }, '! Own group: AUTHSERV_ID mx.google.com — SUPPORT_GROUP_ADDRESSES is not set'],
    [{ SUPPORT_GROUP_ADDRESSES: 'help@support.example', AUTHSERV_ID: 'mx.google.com' }, undefined],
  ])('warns of a group half set up, without failing: %j', SLOW, async (overrides, line) => {
    const result = await check(overrides);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const warning = result.stdout.split('\n').find((l) => l.includes('Own group'));
    if (line === undefined) {
      expect(warning).toBeUndefined();
      return;
    }
    expect(warning).toContain(line);
    expect(warning).toMatch(/mail through the group is parked until it is set/);
  });

  // The dashboard refuses a weak password beyond loopback: the check says so before `npm start` does.
  it('fails a weak DASHBOARD_PASSWORD beyond loopback, and warns of it on loopback', SLOW, async () => {
    const weak = { DASHBOARD_AUTH: 'on', DASHBOARD_PASSWORD: 'admin-2024', DASHBOARD_PORT: '0' };
    const [beyond, loopback] = await Promise.all([check({ ...weak, DASHBOARD_HOST: '0.0.0.0' }), check(weak)]);
    expect(beyond.code, beyond.stdout + beyond.stderr).toBe(1);
    expect(beyond.stdout).toMatch(
      /^✗ Dashboard: http:\/\/0\.0\.0\.0:0 — DASHBOARD_PASSWORD is weak: it has 10 characters, fewer than 12; the dashboard listens on 0\.0\.0\.0, beyond this machine, so it does not start with it; make one with: openssl rand -base64 18$/m,
    );
    expect(loopback.code, loopback.stdout + loopback.stderr).toBe(0);
    expect(loopback.stdout).toMatch(/^! Dashboard: http:\/\/127\.0\.0\.1:0 — user admin; the port is chosen at start \(DASHBOARD_PORT=0\); DASHBOARD_PASSWORD is weak: it has 10 characters/m);
    expect(beyond.stdout + loopback.stdout).not.toContain('admin-2024');
  });

  it("warns when the dashboard's port is taken, without failing: it may be the dashboard itself", SLOW, async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const result = await check({ DASHBOARD_AUTH: 'on', DASHBOARD_PASSWORD: 'a-dashboard-password', DASHBOARD_PORT: String(port) });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain(
        `! Dashboard: http://127.0.0.1:${port} — port ${port} is in use: fine if it is this dashboard already running; otherwise stop what holds it or set DASHBOARD_PORT`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('names the missing IMAP settings alone, the mailboxes there are, a refused SMTP login and an evicting Redis', SLOW, async () => {
    const [evicting, guarded] = await Promise.all([startRedis({ maxmemoryPolicy: 'allkeys-lru' }), startSmtpReceiver({ user: 'support', password: 'right' })]);
    try {
      const [wrong, noUser] = await Promise.all([
        check({
          REDIS_URL: evicting.url,
          IMAP_MAILBOX: 'Nowhere',
          SMTP_PORT: String(guarded.port),
          SMTP_USER: 'support',
          SMTP_PASSWORD: 'wrong',
          SMTP_ALLOW_PLAIN_AUTH: 'true',
        }),
        check({ IMAP_USER: '' }),
      ]);
      expect(wrong.code).toBe(1);
      // What the roles warn of at start: with it, Redis may delete queued mail to make room.
      expect(wrong.stdout).toMatch(/^! Redis: redis:\/\/127\.0\.0\.1:\d+ — maxmemory-policy is allkeys-lru: .*set maxmemory-policy noeviction/m);
      expect(wrong.stdout).toMatch(/^✗ IMAP mailbox: .* Nowhere — there is no mailbox Nowhere on the server; it has INBOX\b.*: set IMAP_MAILBOX to one of them$/m);
      expect(wrong.stdout).toMatch(/^✗ SMTP server: smtp:\/\/support:\*\*\*@127\.0\.0\.1:\d+ — SMTP login as support refused \(535 .*\): wrong SMTP_USER or SMTP_PASSWORD\?$/m);
      expect(noUser.code).toBe(1);
      expect(noUser.stdout).toMatch(/^✗ IMAP mailbox: .* — IMAP_USER is required by the poller$/m);
    } finally {
      await Promise.all([evicting.stop(), guarded.stop()]);
    }
  });

  // README (Running without Docker): appendonly yes and appendfsync always, or a crash of the host answers mail twice;
  // a `!` as for the eviction policy (it works, but not as configured), so the exit code stays the others' to decide.
  // And a MANUALS_DIR or QA_DIR naming no folder: npm run reindex exits 1 and the scheduled one fails, so check fails.
  it('warns of a Redis that may lose writes, and fails a knowledge folder the reindex cannot read', SLOW, async () => {
    const [noAof, everysec, noConfig] = await Promise.all([
      startRedis({ appendonly: false, appendfsync: 'always' }),
      startRedis({ appendfsync: 'everysec' }),
      startRedis({ appendfsync: 'always', extraArgs: ['--rename-command', 'CONFIG', '""'] }),
    ]);
    try {
      const nowhere = path.join(servers.kb.dataDir, 'no-such-folder');
      const [aofOff, fsyncLate, managed] = await Promise.all([
        check({ REDIS_URL: noAof.url, MANUALS_DIR: nowhere, REINDEX_MANUAL_CRON: '0 3 * * *' }),
        check({ REDIS_URL: everysec.url, QA_DIR: nowhere }),
        check({ REDIS_URL: noConfig.url }),
      ]);
      expect(aofOff.stdout).toMatch(/^! Redis: redis:\/\/127\.0\.0\.1:\d+ — appendonly is no: .*set appendonly yes and appendfsync always/m);
      expect(aofOff.stdout).toContain(
        `✗ Manual search: embedded, ${servers.kb.dataDir} — MANUALS_DIR ${nowhere} does not exist: npm run reindex fails, and so does the scheduled reindex (REINDEX_MANUAL_CRON 0 3 * * *); set MANUALS_DIR to the folder of the manual files`,
      );
      expect(aofOff.stdout).toMatch(/^✓ Q&A search/m);
      expect(aofOff.code).toBe(1);
      expect(aofOff.stdout.trim().split('\n').at(-1)).toBe('1 of 8 checks failed');

      expect(fsyncLate.stdout).toMatch(/^! Redis: .* — appendfsync is everysec: .*answered twice; set appendfsync always/m);
      expect(fsyncLate.stdout).toMatch(/^✗ Q&A search: .* — QA_DIR .*no-such-folder does not exist: npm run reindex fails; set QA_DIR to the folder of the Q&A files; the index here: \d+ entries$/m);
      expect(fsyncLate.code).toBe(1);

      // Managed Redis refuses CONFIG: said as unknown, neither a false alarm nor a failure.
      expect(managed.stdout).toMatch(/^! Redis: .* — appendfsync could not be read \(CONFIG refused\): make sure it is always/m);
      expect(managed.stdout).not.toMatch(/maxmemory-policy/);
      expect(managed.code, managed.stdout + managed.stderr).toBe(0);
    } finally {
      await Promise.all([noAof.stop(), everysec.stop(), noConfig.stop()]);
    }
  });

  // TLS from the start or STARTTLS, and whether this machine trusts the server's certificate: what a newcomer gets
  // wrong first, and what OpenSSL's own words ("wrong version number", "self-signed certificate") do not explain.
  describe('TLS', () => {
    let dir: string;
    let cert: string;
    let key: Buffer;
    const closers: Array<() => Promise<void>> = [];

    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'helpdesk-check-tls-'));
      cert = path.join(dir, 'cert.pem');
      // openssl comes with Dovecot (dovecot-core depends on it).
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', cert], { stdio: 'ignore' });
      key = await readFile(path.join(dir, 'key.pem'));
    });
    afterAll(async () => {
      await Promise.allSettled(closers.map((close) => close()));
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    const listen = async (server: Server): Promise<number> => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(() => new Promise((resolve) => server.close(() => resolve())));
      return (server.address() as AddressInfo).port;
    };

    /** Dovecot behind TLS from the start, with the self-signed certificate: an IMAPS server on loopback. */
    async function imapsInFrontOfDovecot(): Promise<number> {
      const imap = servers.imap!;
      const front = tls.createServer({ key, cert: await readFile(cert) }, (client) => {
        const upstream = connect(imap.port, imap.host);
        client.pipe(upstream).pipe(client);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
      });
      front.on('tlsClientError', () => undefined);
      return listen(front);
    }

    /** An SMTP server speaking TLS from the start (as on port 465), with the self-signed certificate. */
    async function smtps(): Promise<number> {
      const server = new SMTPServer({ secure: true, key, cert: await readFile(cert), authOptional: true, logger: false, disableReverseLookup: true, closeTimeout: 100 });
      server.on('error', () => undefined);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(() => new Promise((resolve) => server.close(() => resolve())));
      return (server.server.address() as AddressInfo).port;
    }

    it('says which setting to change when the port does not speak TLS the way the setting expects', SLOW, async () => {
      const [implicit, imapImplicit] = await Promise.all([smtps(), imapsInFrontOfDovecot()]);
      const [secureOnPlain, plainOnImplicit] = await Promise.all([
        check({ IMAP_SECURE: 'true', SMTP_SECURE: 'true' }),
        // No greeting comes in plain text: after waiting for one, the check finds each server speaks TLS.
        check({ SMTP_PORT: String(implicit), IMAP_PORT: String(imapImplicit) }),
      ]);
      expect(secureOnPlain.code).toBe(1);
      const imap = servers.imap!;
      expect(secureOnPlain.stdout).toContain(
        `✗ IMAP mailbox: ${imap.host}:${imap.port} INBOX — the server does not speak TLS at once on port ${imap.port} (ERR_SSL_WRONG_VERSION_NUMBER): set IMAP_SECURE=false for port 143 (STARTTLS), or use port 993 with IMAP_SECURE=true`,
      );
      expect(secureOnPlain.stdout).toContain(
        `✗ SMTP server: smtps://127.0.0.1:${servers.smtp.port} — the server does not speak TLS at once on port ${servers.smtp.port} (ERR_SSL_WRONG_VERSION_NUMBER): set SMTP_SECURE=false for port 587 (STARTTLS), or use port 465 with SMTP_SECURE=true`,
      );
      expect(secureOnPlain.stdout).not.toMatch(/unreachable|SSL routines/);
      expect(plainOnImplicit.code).toBe(1);
      expect(plainOnImplicit.stdout).toContain(
        `✗ SMTP server: smtp://127.0.0.1:${implicit} — the server on port ${implicit} speaks TLS from the start (SMTP_SECURE=false waits for a plain-text greeting that never comes): set SMTP_SECURE=true`,
      );
      expect(plainOnImplicit.stdout).toContain(
        `✗ IMAP mailbox: ${imap.host}:${imapImplicit} INBOX — the server on port ${imapImplicit} speaks TLS from the start (IMAP_SECURE=false waits for a plain-text greeting that never comes): set IMAP_SECURE=true`,
      );
    });

    it('says a certificate this machine does not trust is not trusted, and NODE_EXTRA_CA_CERTS trusts it', SLOW, async () => {
      const [imapPort, smtpPort] = await Promise.all([imapsInFrontOfDovecot(), smtps()]);
      const overTls = { IMAP_PORT: String(imapPort), IMAP_SECURE: 'true', SMTP_PORT: String(smtpPort), SMTP_SECURE: 'true' };
      const [untrusted, trusted] = await Promise.all([check(overTls), check({ ...overTls, NODE_EXTRA_CA_CERTS: cert })]);
      expect(untrusted.code).toBe(1);
      const advice =
        'reached, but its certificate is not trusted: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT); use a certificate from a public CA on the server, or trust its CA here: NODE_EXTRA_CA_CERTS=/path/ca.pem in the environment the process starts with (Node reads it at start, before .env is read)';
      expect(untrusted.stdout).toContain(`✗ IMAP mailbox: ${servers.imap!.host}:${imapPort} INBOX — ${advice}`);
      expect(untrusted.stdout).toContain(`✗ SMTP server: smtps://127.0.0.1:${smtpPort} — ${advice}`);
      // The advice works: the same servers, with the certificate trusted in the environment the process starts with.
      expect(trusted.code, trusted.stdout + trusted.stderr).toBe(0);
      expect(trusted.stdout).toMatch(/^✓ IMAP mailbox: /m);
      expect(trusted.stdout).toMatch(/^✓ SMTP server: /m);
    });
  });

  // Whether anything ever vouches for a sender depends on the Authentication-Results the receiving server writes on
  // top of each mail, and on AUTHSERV_ID naming it: what the check reads in the latest mails' headers.
  describe('the Authentication-Results on top of the latest mails', () => {
    const OURS = 'mx.helpdesk.test';
    const ours = `Authentication-Results: ${OURS}; spf=pass smtp.mailfrom=shop.example; dkim=pass header.d=shop.example; dmarc=pass header.from=shop.example\r\n`;
    // A forger's own field, below the one our server writes on top.
    const forgers = 'Authentication-Results: forger.example; dmarc=pass header.from=bank.example\r\n';
    const mail = (...fields: string[]): Buffer =>
      Buffer.concat([Buffer.from(fields.join(''), 'ascii'), buildMail({ messageId: customerMessageId('ar'), from: 'Taro <taro@shop.example>', subject: 'Login', body: 'I cannot log in.' })]);

    /** A mailbox of its own holding `mails`, so that the other checks' INBOX stays as it was. */
    async function mailbox(name: string, mails: readonly Buffer[]): Promise<string> {
      await servers.imap!.createMailbox(name);
      if (mails.length > 0) await servers.imap!.deliverMany(mails, name);
      return name;
    }

    async function unseen(name: string): Promise<number | undefined> {
      const imap = servers.imap!;
      const client = new ImapFlow({ host: imap.host, port: imap.port, secure: false, auth: { user: imap.user, pass: imap.password }, logger: false });
      await client.connect();
      try {
        const status = await client.status(name, { unseen: true });
        return status ? status.unseen : undefined;
      } finally {
        await client.logout();
      }
    }

    const line = (stdout: string) => stdout.split('\n').find((l) => l.includes('Sender authentication'));

    it('names the id the server writes on the last 20 mails, and says whether AUTHSERV_ID matches it; marks nothing seen', SLOW, async () => {
      // Five older mails by another server: outside the last 20, so not counted.
      const older = Array.from({ length: 5 }, () => mail('Authentication-Results: mx.old-provider.example; dmarc=pass\r\n'));
      const latest = [...Array.from({ length: 9 }, () => mail(ours)), ...Array.from({ length: 9 }, () => mail(ours, forgers)), mail(), mail()];
      const name = await mailbox('AR-ours', [...older, ...latest]);
      const [unset, matching, misspelt] = await Promise.all([
        check({ IMAP_MAILBOX: name }),
        check({ IMAP_MAILBOX: name, AUTHSERV_ID: OURS }),
        check({ IMAP_MAILBOX: name, AUTHSERV_ID: 'mx.helpdsk.test', SUPPORT_GROUP_ADDRESSES: 'help@helpdesk.test' }),
      ]);
      for (const result of [unset, matching, misspelt]) {
        expect(result.code, result.stdout + result.stderr).toBe(0);
        expect(result.stdout).toMatch(/^✓ IMAP mailbox: /m);
      }
      expect(line(unset.stdout)).toBe(
        `! Sender authentication: AUTHSERV_ID not set — set AUTHSERV_ID=${OURS}, the first word of the Authentication-Results your server writes on top of 18 of the last 20 mails in AR-ours: until then the topmost one is read whoever wrote it, and a forger's own dmarc=pass can vouch for them`,
      );
      expect(line(matching.stdout)).toBe(`✓ Sender authentication: AUTHSERV_ID ${OURS} — on top of 18 of the last 20 mails in AR-ours`);
      expect(line(misspelt.stdout)).toBe(
        `! Sender authentication: AUTHSERV_ID mx.helpdsk.test — none of the last 20 mails in AR-ours carries it on top: your server writes ${OURS} (on top of 18 of them); set AUTHSERV_ID=${OURS}, or nothing vouches for any sender and mail through the group is parked`,
      );
      expect(await unseen(name)).toBe(25);
    });

    it('warns when the server writes no Authentication-Results, and says an empty mailbox had nothing to read', SLOW, async () => {
      const [none, empty] = await Promise.all([mailbox('AR-none', [mail(), mail(), mail()]), mailbox('AR-empty', [])]);
      const [withoutField, nothing] = await Promise.all([check({ IMAP_MAILBOX: none }), check({ IMAP_MAILBOX: empty })]);
      expect(withoutField.code, withoutField.stdout + withoutField.stderr).toBe(0);
      expect(line(withoutField.stdout)).toMatch(
        /^! Sender authentication: AUTHSERV_ID not set — none of the last 3 mails in AR-none carries an Authentication-Results: your receiving server writes none, so nothing vouches for any sender and quotes with links or phone numbers are left out of replies.*; turning it on is the mail server's DMARC\/SPF\/DKIM check, outside this product$/,
      );
      expect(nothing.code, nothing.stdout + nothing.stderr).toBe(0);
      expect(line(nothing.stdout)).toBe('- Sender authentication: AUTHSERV_ID not set — AR-empty is empty: no mail to read the Authentication-Results of');
      expect(await unseen(none)).toBe(3);
    });
  });
});
