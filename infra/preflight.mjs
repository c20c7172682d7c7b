/**
 * What a command needs from the machine before it can run, in plain JavaScript so it works before `npm ci`:
 * `node_modules` and the Debian packages of the real servers (Redis, Dovecot) and of the browser test.
 *
 *   node infra/preflight.mjs tests   # before `npm test`: says which packages are missing and the one command to install them
 *   node infra/preflight.mjs demo    # before `npm run demo`: installs them through apt when run as root, else names them
 *   node infra/preflight.mjs sandbox # before `npm run sandbox`: the same
 *   node infra/preflight.mjs missing tests   # the missing package names, one per line (for .ci/run)
 *
 * This file is the one list of system packages; `.ci/run` reads it too.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/** A program on PATH (or in the sbin directories a non-root PATH may lack). */
function onPath(program) {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/sbin', '/usr/local/sbin'];
  return dirs.some((dir) => {
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function debianPackageInstalled(name) {
  return spawnSync('dpkg', ['-s', name], { stdio: 'ignore' }).status === 0;
}

/**
 * Debian packages, what they are for, how to tell they are there, and which commands need them. Tests start their
 * own servers on free loopback ports, so the packaged daemons themselves are never used.
 */
export const SYSTEM_PACKAGES = [
  { name: 'redis-server', why: 'the Redis server the queues and tickets live in', present: () => onPath('redis-server'), for: ['tests', 'demo'] },
  { name: 'dovecot-imapd', why: 'the IMAP server holding the support mailbox', present: () => onPath('dovecot'), for: ['tests', 'demo'] },
  { name: 'dovecot-core', why: 'doveadm, which delivers test mail', present: () => onPath('doveadm'), for: ['tests', 'demo'] },
  // The review page's browser test drives Debian's Chromium through playwright-core (no browser download).
  { name: 'chromium', why: 'the browser the review page is tested in', present: () => existsSync('/usr/bin/chromium'), for: ['tests'] },
  // Without a CJK font every Japanese character of the browser test's screenshots is a box.
  { name: 'fonts-noto-cjk', why: 'a Japanese font for the browser test', present: () => debianPackageInstalled('fonts-noto-cjk'), for: ['tests'] },
  // docker-compose.yml is validated with `docker-compose config`; no Docker engine is needed.
  { name: 'docker-compose', why: 'validating docker-compose.yml', present: () => onPath('docker-compose'), for: ['tests'] },
  // The meili-key service's script (docker-compose.yml) is run as written, with sh and curl, against the test's fake.
  { name: 'curl', why: "running docker-compose.yml's meili-key script in a test", present: () => onPath('curl'), for: ['tests'] },
];

/** Packages `purpose` needs that this machine lacks. */
export function missingPackages(purpose) {
  return SYSTEM_PACKAGES.filter((p) => p.for.includes(purpose) && !p.present());
}

/** The one command that installs `packages` (with sudo unless we are root). */
export function installCommand(packages, asRoot = process.getuid?.() === 0) {
  const apt = `apt-get update && apt-get install -y --no-install-recommends ${packages.map((p) => p.name).join(' ')}`;
  return asRoot ? apt : `sudo sh -c '${apt}'`;
}

/** The system service each package brings, which Debian starts (and enables) as soon as the package is installed. */
const SYSTEM_SERVICES = {
  'redis-server': { service: 'redis-server', what: 'redis-server (Redis on loopback)' },
  'dovecot-imapd': { service: 'dovecot', what: 'dovecot (IMAP, listening on every interface)' },
  'dovecot-core': { service: 'dovecot', what: 'dovecot (IMAP, listening on every interface)' },
};

/**
 * A note for whoever installs `packages`: on a machine run by systemd, Debian starts their services at once and at
 * every boot, although the demo and the tests only borrow the programs and start servers of their own. Undefined when
 * none of them brings a service. The admin decides; this file never runs systemctl.
 */
export function systemServicesNote(packages, asRoot = process.getuid?.() === 0) {
  // One entry per service: dovecot-imapd and dovecot-core bring the same one.
  const brought = new Map(packages.map((p) => SYSTEM_SERVICES[p.name]).filter(Boolean).map((s) => [s.service, s.what]));
  if (brought.size === 0) return undefined;
  return (
    `note: Debian starts the system services ${[...brought.values()].join(' and ')} once installed, and at every boot;\n` +
    'the demo and the tests start servers of their own and use neither. If you do not want them running:\n' +
    `  ${asRoot ? '' : 'sudo '}systemctl disable --now ${[...brought.keys()].join(' ')}`
  );
}

function say(line) {
  process.stderr.write(`${line}\n`);
}

function ensureNodeModules() {
  if (existsSync(path.join(ROOT, 'node_modules', '.package-lock.json'))) return;
  say('node_modules is missing: running npm ci');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: ROOT, stdio: 'inherit' });
}

function ensurePackages(purpose, { install }) {
  const missing = missingPackages(purpose);
  if (missing.length === 0) return true;
  const list = missing.map((p) => `  ${p.name}: ${p.why}`).join('\n');
  if (install && process.getuid?.() === 0) {
    say(`installing the Debian packages ${purpose === 'demo' ? 'the demo' : 'the tests'} need:\n${list}`);
    const result = spawnSync('sh', ['-c', installCommand(missing, true)], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status === 0 && missingPackages(purpose).length === 0) {
      const note = systemServicesNote(missing, true);
      if (note) say(note);
      return true;
    }
    say(`installing them failed; run this and try again:\n  ${installCommand(missing, true)}`);
    return false;
  }
  // The note comes first: the install command stays the last line, the one to copy.
  const note = systemServicesNote(missing);
  say(`${purpose === 'demo' ? 'npm run demo' : 'npm test'} needs Debian packages that are missing:\n${list}\n${note ? `${note}\n` : ''}install them with:\n  ${installCommand(missing)}`);
  return false;
}

const [command, purpose] = process.argv.slice(2);
if (import.meta.url === `file://${process.argv[1]}`) {
  if (command === 'missing') {
    for (const p of missingPackages(purpose ?? 'tests')) process.stdout.write(`${p.name}\n`);
  } else if (command === 'tests') {
    ensureNodeModules();
    if (!ensurePackages('tests', { install: false })) process.exit(1);
  } else if (command === 'demo' || command === 'sandbox') {
    // The sandbox starts the demo's servers. Dovecot runs rootless for a user who is not root (src/dev/dovecot.ts);
    // only installing missing packages needs root.
    if (!ensurePackages('demo', { install: process.getuid?.() === 0 })) process.exit(1);
    ensureNodeModules();
  } else {
    say('usage: node infra/preflight.mjs tests|demo|sandbox|missing [tests|demo]');
    process.exit(2);
  }
}
