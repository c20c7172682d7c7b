/**
 * A throwaway Dovecot IMAP server (plain IMAP on a free loopback port, one
 * passwd-file user, maildir in a temp dir) for integration tests of the
 * mailbox poller.
 *
 * Dovecot runs in the foreground with a generated config, so nothing
 * under /etc/dovecot or /var/run is read or written and parallel test
 * workers each get their own instance. As root it drops to its own users;
 * as anyone else it runs rootless, as that user.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { ImapFlow } from 'imapflow';
import { LOOPBACK, createTempDir, freePort, pollUntil, probeTcp, spawnServer, type ServerProcess } from './ports.js';

/** Options for {@link startDovecot}. */
export interface DovecotOptions {
  /** IMAP login of the single mailbox user; default `support@helpdesk.test`. */
  user?: string;
  /** Its password (stored in PLAIN); default `test-password`. */
  password?: string;
  /** Extra mailboxes to create (and subscribe) before the handle is returned, e.g. `['Processed']`. */
  mailboxes?: readonly string[];
  /** Budget for each start; default 15 s. */
  startTimeoutMs?: number;
  /**
   * Accept OAuth2 bearer tokens (SASL XOAUTH2 and OAUTHBEARER) instead of the password: Dovecot's oauth2 passdb asks
   * this introspection endpoint about each token (RFC 7662 style: a form POST of `token=…`, answered with JSON whose
   * `active` must be `true` and whose `username` must be the login). The password then logs in nowhere.
   * `mechanisms` (default both) lets a test offer XOAUTH2 alone, as Microsoft 365 does (imapflow prefers OAUTHBEARER).
   */
  oauth2?: { introspectionUrl: string; mechanisms?: ReadonlyArray<'xoauth2' | 'oauthbearer'> };
}

/** Result of {@link DovecotServer.deliver}. */
export interface DeliveredMessage {
  /** UID the message got in the target mailbox. */
  uid: number;
  /** UIDVALIDITY of that mailbox, to pair with `uid` as a stable message key. */
  uidValidity: number;
}

/** Handle to a running test Dovecot. */
export interface DovecotServer {
  readonly host: typeof LOOPBACK;
  /** IMAP port (plain text, no TLS); fixed across restarts. */
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** Generated `dovecot.conf`, for `doveadm -c` or for reading in a failing test. */
  readonly configPath: string;
  /** Temp dir holding config, logs and mail; removed by {@link DovecotServer.stop}. */
  readonly dir: string;
  /** Dovecot's log file (all levels). */
  readonly logPath: string;
  /** Whether the Dovecot master process is currently alive. */
  readonly running: boolean;
  /**
   * Delivers a raw RFC 5322 message like an MTA would (`doveadm save`), so it
   * arrives unseen and with `\Recent`. Use CRLF line endings if the test
   * compares RFC822.SIZE or the fetched source byte for byte.
   *
   * Deliveries through one handle are serialised so the returned UID is
   * exact; it throws if something else adds to the same mailbox concurrently.
   */
  deliver(rawEml: Buffer | string, mailbox?: string): Promise<DeliveredMessage>;
  /**
   * Delivers many messages in one IMAP session (APPEND each, UIDs from UIDPLUS), for backlogs: one `doveadm` run per
   * message costs three processes, seconds per hundred mails on a slow machine.
   */
  deliverMany(rawEmls: readonly (Buffer | string)[], mailbox?: string): Promise<DeliveredMessage[]>;
  /** Creates and subscribes a mailbox (`doveadm mailbox create -s`). */
  createMailbox(name: string): Promise<void>;
  /** Runs `doveadm -c CONF ...args` and resolves with its stdout; rejects with stderr on failure. */
  doveadm(args: readonly string[], stdin?: Buffer | string): Promise<string>;
  /** Contents of the Dovecot log, for assertions or failure diagnostics. */
  readLog(): Promise<string>;
  /** Graceful stop and start on the same port, keeping all mail and UIDVALIDITY. */
  restart(): Promise<void>;
  /** Final teardown: stops Dovecot and deletes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_USER = 'support@helpdesk.test';
const DEFAULT_PASSWORD = 'test-password';
const DEFAULT_START_TIMEOUT_MS = 15_000;
const BIND_ATTEMPTS = 5;
/**
 * Dovecot's master sometimes lingers for seconds after SIGTERM although all
 * its helpers are gone; mail is already on disk by then (maildir files and
 * indexes are written before a command's OK), so a short grace before SIGKILL
 * loses nothing and keeps restarts fast.
 */
const SHUTDOWN_GRACE_MS = 1_000;
const DOVECOT = '/usr/sbin/dovecot';
const DOVEADM = '/usr/bin/doveadm';

interface SystemAccount {
  uid: number;
  gid: number;
  /** User and group names (rootless mode names the current user's in the config). */
  name: string;
  group: string;
}

/** The user this process runs as, for a rootless Dovecot. */
function currentAccount(): SystemAccount {
  const info = userInfo();
  const group = execFileSync('id', ['-gn'], { encoding: 'utf8' }).trim();
  return { uid: info.uid, gid: info.gid, name: info.username, group };
}

/**
 * Starts Dovecot and resolves once its IMAP port sends this instance's
 * greeting. As root it runs as Dovecot's own `dovecot`/`dovenull` users; as any other user, rootless as that user.
 *
 * @example
 * ```ts
 * const imap = await startDovecot({ mailboxes: ['Processed'] });
 * afterAll(() => imap.stop());
 * await imap.deliver(eml);
 * const client = new ImapFlow({ host: imap.host, port: imap.port, secure: false,
 *   auth: { user: imap.user, pass: imap.password }, logger: false });
 * ```
 */
export async function startDovecot(options: DovecotOptions = {}): Promise<DovecotServer> {
  const user = options.user ?? DEFAULT_USER;
  const password = options.password ?? DEFAULT_PASSWORD;
  // Both end up in a colon-separated passwd-file and in config lines.
  for (const [name, value] of [['user', user], ['password', password]] as const) {
    if (value === '' || /[:\r\n\s]/.test(value)) throw new Error(`Dovecot test ${name} must be non-empty without ':' or whitespace`);
  }
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  // As root, Dovecot drops to its own dovecot/dovenull users; as anyone else it runs rootless, every process as the
  // current user (no chroot, which needs root), so a developer's `npm test` and `npm run demo` need no sudo.
  const rootless = process.getuid?.() !== 0;
  const account = rootless ? currentAccount() : { ...(await lookupAccount('dovecot')), name: 'dovecot', group: '' };

  const tmp = await createTempDir('helpdesk-dovecot');
  const dir = tmp.path;
  const configPath = join(dir, 'dovecot.conf');
  const logPath = join(dir, 'dovecot.log');
  // A per-instance greeting lets the readiness probe tell our Dovecot from
  // another worker's server that grabbed the same port first.
  const greeting = `helpdesk-test-${randomBytes(6).toString('hex')}`;

  let proc: ServerProcess | undefined;
  let stopped = false;
  let port = 0;

  const runDoveadm = (args: readonly string[], stdin?: Buffer | string): Promise<string> =>
    execCapture(DOVEADM, ['-c', configPath, ...args], stdin);

  const launch = async (): Promise<ServerProcess> => {
    const child = spawnServer(DOVECOT, ['-F', '-c', configPath], { cwd: dir });
    try {
      await pollUntil(
        () =>
          probeTcp({
            port,
            evaluate: (received) => {
              const end = received.indexOf('\r\n');
              if (end < 0) return 'incomplete';
              const line = received.slice(0, end);
              return line.startsWith('* OK') && line.includes(greeting) ? 'ready' : 'not-ready';
            },
          }),
        {
          timeoutMs: startTimeoutMs,
          what: `Dovecot IMAP on ${LOOPBACK}:${port}`,
          abortIf: () => {
            const exit = child.exitStatus();
            return exit && new Error(`dovecot exited during start-up (code ${exit.code}, signal ${exit.signal}):\n${child.output()}`);
          },
        },
      );
      return child;
    } catch (err) {
      await child.terminate('SIGTERM', SHUTDOWN_GRACE_MS);
      const log = await readFile(logPath, 'utf8').catch(() => '');
      throw new Error(`${String(err instanceof Error ? err.message : err)}\n--- ${logPath} ---\n${log.slice(-4_000)}`, { cause: err });
    }
  };

  try {
    await mkdir(join(dir, 'run'), { mode: 0o755 });
    await mkdir(join(dir, 'state'), { mode: 0o700 });
    for (const owned of ['mail', 'home']) {
      await mkdir(join(dir, owned), { mode: 0o700 });
      if (!rootless) await chown(join(dir, owned), account.uid, account.gid);
    }
    if (options.oauth2) {
      // Read by the auth process, as the users file.
      await writeFile(join(dir, 'dovecot-oauth2.conf.ext'), renderOAuth2Config(options.oauth2.introspectionUrl), { mode: 0o644 });
    }
    // The auth process reads it after dropping to the dovecot user.
    await writeFile(
      join(dir, 'users'),
      `${user}:{PLAIN}${password}:${account.uid}:${account.gid}::${join(dir, 'home', user)}::\n`,
      { mode: 0o644 },
    );
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      await writeFile(configPath, renderConfig({ dir, port, account, greeting, rootless, oauthMechanisms: options.oauth2 ? (options.oauth2.mechanisms ?? ['xoauth2', 'oauthbearer']) : undefined }), { mode: 0o644 });
      try {
        proc = await launch();
        break;
      } catch (err) {
        // freePort() can race with another worker; only then is a new port worth a try.
        if (attempt >= BIND_ATTEMPTS || !String(err instanceof Error ? err.message : err).includes('Address already in use')) throw err;
      }
    }
    for (const mailbox of options.mailboxes ?? []) {
      await runDoveadm(['mailbox', 'create', '-s', '-u', user, mailbox]);
    }
  } catch (err) {
    await proc?.terminate('SIGTERM', SHUTDOWN_GRACE_MS);
    await tmp.remove();
    throw err;
  }

  const assertUsable = (): void => {
    if (stopped) throw new Error('this Dovecot test server has been stopped for good; start a new one');
  };

  const uidStatus = async (mailbox: string): Promise<{ uidNext: number; uidValidity: number }> => {
    const out = await runDoveadm(['mailbox', 'status', '-u', user, 'uidnext uidvalidity', mailbox]);
    const uidNext = Number(/uidnext=(\d+)/.exec(out)?.[1]);
    const uidValidity = Number(/uidvalidity=(\d+)/.exec(out)?.[1]);
    if (!Number.isInteger(uidNext) || !Number.isInteger(uidValidity)) {
      throw new Error(`unexpected doveadm mailbox status output: ${out}`);
    }
    return { uidNext, uidValidity };
  };

  let deliveries: Promise<unknown> = Promise.resolve();

  const server: DovecotServer = {
    host: LOOPBACK,
    port,
    user,
    password,
    configPath,
    dir,
    logPath,
    get running(): boolean {
      return proc !== undefined && proc.exitStatus() === undefined;
    },
    deliver(rawEml: Buffer | string, mailbox = 'INBOX'): Promise<DeliveredMessage> {
      assertUsable();
      const run = async (): Promise<DeliveredMessage> => {
        const before = await uidStatus(mailbox);
        await runDoveadm(['save', '-u', user, '-m', mailbox], rawEml);
        const after = await uidStatus(mailbox);
        if (after.uidValidity !== before.uidValidity || after.uidNext !== before.uidNext + 1) {
          throw new Error(
            `cannot tell the delivered UID in ${mailbox}: UIDNEXT went ${before.uidNext} -> ${after.uidNext} ` +
              `(UIDVALIDITY ${before.uidValidity} -> ${after.uidValidity}); something else wrote to it concurrently`,
          );
        }
        return { uid: before.uidNext, uidValidity: after.uidValidity };
      };
      const result = deliveries.then(run, run);
      deliveries = result.catch(() => undefined);
      return result;
    },
    async deliverMany(rawEmls: readonly (Buffer | string)[], mailbox = 'INBOX'): Promise<DeliveredMessage[]> {
      assertUsable();
      if (options.oauth2) {
        // No password login to APPEND with: one `doveadm save` each.
        const out: DeliveredMessage[] = [];
        for (const raw of rawEmls) out.push(await server.deliver(raw, mailbox));
        return out;
      }
      const run = async (): Promise<DeliveredMessage[]> => {
        const client = new ImapFlow({ host: LOOPBACK, port, secure: false, auth: { user, pass: password }, logger: false });
        await client.connect();
        try {
          const out: DeliveredMessage[] = [];
          for (const raw of rawEmls) {
            const appended = await client.append(mailbox, typeof raw === 'string' ? Buffer.from(raw) : raw);
            if (!appended || !appended.uid || appended.uidValidity === undefined) throw new Error(`APPEND to ${mailbox} returned no UID`);
            out.push({ uid: appended.uid, uidValidity: Number(appended.uidValidity) });
          }
          return out;
        } finally {
          await client.logout().catch(() => client.close());
        }
      };
      const result = deliveries.then(run, run);
      deliveries = result.catch(() => undefined);
      return result;
    },
    async createMailbox(name: string): Promise<void> {
      assertUsable();
      await runDoveadm(['mailbox', 'create', '-s', '-u', user, name]);
    },
    doveadm(args: readonly string[], stdin?: Buffer | string): Promise<string> {
      assertUsable();
      return runDoveadm(args, stdin);
    },
    readLog: () => readFile(logPath, 'utf8').catch(() => ''),
    async restart(): Promise<void> {
      assertUsable();
      await proc?.terminate('SIGTERM', SHUTDOWN_GRACE_MS);
      proc = await launch();
    },
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      try {
        await proc?.terminate('SIGTERM', SHUTDOWN_GRACE_MS);
      } finally {
        await tmp.remove();
      }
    },
  };
  return server;
}

/** The whole generated config; every path lives in the instance's temp dir. */
function renderConfig(params: {
  dir: string;
  port: number;
  account: SystemAccount;
  greeting: string;
  rootless: boolean;
  /** Set: tokens only, with these SASL mechanisms. */
  oauthMechanisms: readonly string[] | undefined;
}): string {
  const { dir, port, account, greeting, rootless, oauthMechanisms } = params;
  const q = (path: string): string => `"${path}"`;
  return `# Generated by src/dev/dovecot.ts for one test run; deleted with it.
base_dir = ${q(join(dir, 'run'))}
state_dir = ${q(join(dir, 'state'))}
log_path = ${q(join(dir, 'dovecot.log'))}
info_log_path = ${q(join(dir, 'dovecot.log'))}
debug_log_path = ${q(join(dir, 'dovecot.log'))}

protocols = imap
listen = ${LOOPBACK}
ssl = no
disable_plaintext_auth = no
# With tokens only, PLAIN and LOGIN are not offered: with no passdb to check a password, Dovecot would answer a
# password login "temporary authentication failure" rather than refuse it.
auth_mechanisms = ${oauthMechanisms ? oauthMechanisms.join(' ') : 'plain login'}
auth_verbose = yes
# Tests of bad credentials should fail at once, not after the 2 s anti-brute-force delay.
auth_failure_delay = 0
login_greeting = ${greeting}
verbose_proctitle = yes

${
  rootless
    ? `# Rootless: every process runs as the current user.
default_login_user = ${account.name}
default_internal_user = ${account.name}
default_internal_group = ${account.group}`
    : `default_login_user = dovenull
default_internal_user = dovecot`
}
# Only the dovecot account may own mail here, never root or a real user.
first_valid_uid = ${account.uid}
last_valid_uid = ${account.uid}
first_valid_gid = ${account.gid}
last_valid_gid = ${account.gid}

mail_location = maildir:${join(dir, 'mail')}/%u
# Test mail only has to survive process restarts, which the page cache covers.
mail_fsync = never
# Fallback for IDLE when inotify is unavailable; the 30 s default would stall IDLE tests.
mailbox_idle_check_interval = 1 secs

namespace inbox {
  inbox = yes
  separator = /
  mailbox Drafts {
    special_use = \\Drafts
  }
  # Created on first login like on a real server, so the sender finds a Sent folder (special-use \\Sent) to copy to.
  mailbox Sent {
    special_use = \\Sent
    auto = subscribe
  }
  mailbox Junk {
    special_use = \\Junk
  }
  mailbox Trash {
    special_use = \\Trash
  }
}

${
  oauthMechanisms
    ? `passdb {
  driver = oauth2
  mechanisms = ${oauthMechanisms.join(' ')}
  args = ${join(dir, 'dovecot-oauth2.conf.ext')}
}`
    : `passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${join(dir, 'users')}
}`
}
userdb {
  driver = passwd-file
  args = username_format=%u ${join(dir, 'users')}
}

# No per-IP auth penalty: one test's deliberate bad login must not slow the
# next test's good login from the same 127.0.0.1 by 2-15 s.
service anvil {
${rootless ? '  chroot =\n' : ''}  unix_listener anvil-auth-penalty {
    mode = 0
  }
}

service imap-login {
${rootless ? '  chroot =\n' : ''}  inet_listener imap {
    address = ${LOOPBACK}
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
`;
}

/** The oauth2 passdb's settings: every token is introspected (no tokeninfo URL), and only an active one logs in. */
function renderOAuth2Config(introspectionUrl: string): string {
  if (/[\s"]/.test(introspectionUrl)) throw new Error('Dovecot test introspection URL must have no whitespace or quotes');
  return `introspection_mode = post
introspection_url = ${introspectionUrl}
force_introspection = yes
username_attribute = username
active_attribute = active
active_value = true
timeout_msecs = 5000
`;
}

/** Resolves a system account's uid and primary gid via NSS (`getent passwd`). */
async function lookupAccount(name: string): Promise<Pick<SystemAccount, 'uid' | 'gid'>> {
  const line = (await execCapture('getent', ['passwd', name])).trim();
  const fields = line.split(':');
  const uid = Number(fields[2]);
  const gid = Number(fields[3]);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) {
    throw new Error(`no usable '${name}' system account (is dovecot-imapd installed?): ${line}`);
  }
  return { uid, gid };
}

/** Runs a short command, feeding `stdin`, and resolves with stdout; rejects with stderr on a non-zero exit. */
function execCapture(command: string, args: readonly string[], stdin?: Buffer | string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) {
        resolve(Buffer.concat(stdout).toString('utf8'));
        return;
      }
      const detail = Buffer.concat(stderr).toString('utf8').trim();
      reject(new Error(`${command} ${args.join(' ')} failed (code ${code}, signal ${signal}): ${detail}`));
    });
    // EPIPE when the command exits without reading stdin; its exit status tells the real story.
    child.stdin.once('error', () => undefined);
    child.stdin.end(stdin);
  });
}
