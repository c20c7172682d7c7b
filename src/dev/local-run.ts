/**
 * Lending the checkout's `.env` to a local stand-in (the sandbox, the demo) and giving it back. While one runs, `.env`
 * points at its servers so `npm start`, `npm run review` and friends in other terminals use them; when it stops, the
 * user's own `.env` (or its absence) is restored.
 *
 * The backup is written once: when a previous run died without restoring (SIGKILL, power loss), its backup is still
 * the user's file, so a new run keeps it instead of saving the stand-in's settings over it.
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';

/** Content of a backup that stands for "there was no `.env`". */
const NO_ENV_FILE = '# there was no .env before the local servers started; restoring removes .env\n';
const PRIVATE_FILE = 0o600;

/** A lent `.env`. */
export interface LentEnvFile {
  /** Where the user's file is kept meanwhile. */
  readonly backupPath: string;
  /**
   * Puts the user's `.env` back (or removes ours when there was none). A `.env` changed meanwhile (the user wrote
   * their settings while the stand-in ran) is not thrown away: it is kept as `<.env>.edited-meanwhile`, whose path
   * is returned so the caller can say so. Idempotent.
   */
  restore(): string | undefined;
}

/**
 * Writes `settings` into `envPath` on top of the user's own lines (a line setting one of the same variables is
 * dropped; earlier lines written by a stand-in and their header too) and keeps the user's file in `backupPath`.
 */
export function lendEnvFile(envPath: string, backupPath: string, settings: Record<string, string>, header: string): LentEnvFile {
  // The copy is renamed over .env at the end, so it is made with the user's file's mode (a private 0600 .env holding
  // the model key and passwords came back 0644: security review 17); a lent file of our own is private too.
  if (!existsSync(backupPath)) {
    const mode = existsSync(envPath) ? statSync(envPath).mode & 0o777 : PRIVATE_FILE;
    writeFileSync(backupPath, existsSync(envPath) ? readFileSync(envPath) : NO_ENV_FILE, { mode });
  }
  const original = readFileSync(backupPath, 'utf8');
  const own = original === NO_ENV_FILE ? [] : original.split('\n');
  const kept = own.filter((line) => line.trim() !== '' && line !== header && !Object.keys(settings).some((k) => line.startsWith(`${k}=`)));
  const written = [...kept, header, ...Object.entries(settings).map(([k, v]) => `${k}=${v}`), ''].join('\n');
  writeFileSync(envPath, written, { mode: PRIVATE_FILE });
  let restored = false;
  return {
    backupPath,
    restore() {
      if (restored || !existsSync(backupPath)) return undefined;
      restored = true;
      let editedPath: string | undefined;
      if (existsSync(envPath) && readFileSync(envPath, 'utf8') !== written) {
        editedPath = `${envPath}.edited-meanwhile`;
        renameSync(envPath, editedPath);
      }
      if (readFileSync(backupPath, 'utf8') === NO_ENV_FILE) {
        rmSync(envPath, { force: true });
        rmSync(backupPath, { force: true });
      } else {
        renameSync(backupPath, envPath);
      }
      return editedPath;
    },
  };
}

/** What a running stand-in records for the commands of other terminals (`sandbox send`). */
export interface LocalRunState {
  pid: number;
  imap: { host: string; port: number; user: string; password: string };
}

/** The state of a stand-in whose process is still alive, else undefined (a stale file from a killed run). */
export function readLiveRunState(statePath: string): LocalRunState | undefined {
  let state: LocalRunState | null;
  try {
    state = JSON.parse(readFileSync(statePath, 'utf8')) as LocalRunState | null;
  } catch {
    return undefined;
  }
  // Only a positive whole pid (review 44b): kill(0, 0) and kill(-1, 0) ask about the process group and every process,
  // and succeed. A process of another user (a sandbox started with sudo) answers EPERM: alive.
  const pid: unknown = state?.pid;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return state!;
}

/**
 * Runs `stop` on the first SIGINT/SIGTERM and exits with its code. A terminal's Ctrl-C reaches node twice (from the
 * terminal and from npm), so signals within a second of each other count as one; a third separate one exits at once.
 */
export function stopOnSignals(stop: () => Promise<number>, say: (line: string) => void): void {
  let presses = 0;
  let last = -Infinity;
  const onSignal = (): void => {
    const now = performance.now();
    if (now - last < 1_000) return;
    last = now;
    presses += 1;
    if (presses === 1) {
      say('stopping…');
      void stop().then(
        (code) => process.exit(code),
        () => process.exit(1),
      );
    } else if (presses === 2) say('still stopping; press Ctrl-C once more to exit at once');
    else process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed terminal: stop as for Ctrl-C, and the output that has nowhere to go any more must not end the clean-up.
  process.on('SIGHUP', onSignal);
  process.stdout.on('error', () => undefined);
}

/** The next free number of a folder of `0001.eml`-style files, so a new run does not overwrite an earlier one's. */
export function nextFileNumber(names: readonly string[]): number {
  const numbers = names.map((n) => /^(\d+)\.eml$/.exec(n)?.[1]).filter((n): n is string => n !== undefined).map(Number);
  return numbers.length === 0 ? 1 : Math.max(...numbers) + 1;
}

/** The product's settings for a local Redis, Dovecot and SMTP catcher (the sandbox's and the demo's). */
export function localServerSettings(
  redis: { url: string },
  imap: { host: string; port: number; user: string; password: string },
  smtp: { host: string; port: number },
): Record<string, string> {
  return {
    REDIS_URL: redis.url,
    IMAP_HOST: imap.host,
    IMAP_PORT: String(imap.port),
    IMAP_SECURE: 'false',
    IMAP_ALLOW_PLAIN_LOGIN: 'true',
    IMAP_USER: imap.user,
    IMAP_PASSWORD: imap.password,
    IMAP_POLL_INTERVAL_MS: '5000',
    SMTP_HOST: smtp.host,
    SMTP_PORT: String(smtp.port),
    SMTP_SECURE: 'false',
    MAIL_FROM: `XYZ Support <${imap.user}>`,
  };
}
