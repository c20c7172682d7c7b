/**
 * The Docker deployment as files: `docker-compose.yml` validated and resolved by Compose itself (with the sample
 * `.env` of `infra/compose.env.example`), `docker-compose.worker.yml` (agent workers on another machine) resolved with
 * the `.env` the README gives such a machine, the sample `.env` read by the product's own configuration, and the
 * image's entry point mapping every role that Compose starts to an entry file that exists.
 *
 * There is no Docker engine in CI, so nothing is built or started here; Compose's `config` is the real parser and
 * validator of the file. Without a Compose binary on PATH the Compose checks are skipped with the reason printed.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, readEnvFile, requireVariables, VARIABLES } from '../../src/config.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
/** The roles built from infra/Dockerfile, as Compose services. */
const ROLES = ['poller', 'agent-worker', 'sender', 'scheduler', 'dashboard', 'reindex'];
/** The secrets the sample leaves empty and docker-compose.yml requires. */
const SECRETS = {
  MEILI_MASTER_KEY: 'meili-master-key-0123456789',
  MEILI_API_KEY_UID: '0b1e5c3a-2f4d-4c6b-9a8e-7d6f5e4c3b2a',
  MEILI_API_KEY: 'meili-product-key',
  QDRANT_API_KEY: 'qdrant-api-key',
  DASHBOARD_PASSWORD: 'dashboard-secret',
  REDIS_PASSWORD: 'redis0password0123456789',
};
/** Variables of the sample `.env` that Compose (not the product) reads. */
const COMPOSE_ONLY = ['COMPOSE_PROFILES', 'MEILI_MASTER_KEY', 'MEILI_API_KEY_UID', 'REDIS_PASSWORD'];
/** The servers an extra machine's agent workers use: those of the main machine, published on its private address. */
const MAIN_MACHINE = { REDIS_URL: `redis://:${SECRETS.REDIS_PASSWORD}@10.0.0.5:6379`, MEILI_HOST: 'http://10.0.0.5:7700', QDRANT_URL: 'http://10.0.0.5:6333' };
/** Lines of the main machine's `.env` an extra machine does not need (README, Scaling agent workers). */
const NOT_ON_WORKER_MACHINES = ['COMPOSE_PROFILES', 'MEILI_MASTER_KEY', 'MEILI_API_KEY_UID', 'DASHBOARD_PASSWORD', 'REDIS_PASSWORD'];

/** Secrets of the servers some roles talk to and others do not, as a deployment's `.env` holds them. */
const ROLE_SECRETS = {
  OPENAI_API_KEY: 'sk-openai-secret',
  LANGSMITH_API_KEY: 'ls-secret',
  IMAP_PASSWORD: 'imap-secret',
  SMTP_PASSWORD: 'smtp-secret',
  MAIL_OAUTH2_CLIENT_SECRET: 'oauth2-client-secret',
  MAIL_OAUTH2_REFRESH_TOKEN: 'oauth2-refresh-token',
  METRICS_TOKEN: 'metrics-secret',
  DASHBOARD_PASSWORD: SECRETS.DASHBOARD_PASSWORD,
};
/** The roles that read hostile input, and the secrets each is given empty. */
const HOSTILE_INPUT_ROLES: Record<string, string[]> = {
  poller: ['OPENAI_API_KEY', 'LANGSMITH_API_KEY', 'SMTP_PASSWORD', 'METRICS_TOKEN', 'DASHBOARD_PASSWORD'],
  'agent-worker': ['IMAP_PASSWORD', 'SMTP_PASSWORD', 'MAIL_OAUTH2_CLIENT_SECRET', 'MAIL_OAUTH2_REFRESH_TOKEN', 'METRICS_TOKEN', 'DASHBOARD_PASSWORD'],
};

/** `env` with every {@link ROLE_SECRETS} line set (replacing a line of the sample, or added). */
function withRoleSecrets(env: string): string {
  const lines = env.split('\n').filter((line) => !Object.keys(ROLE_SECRETS).some((name) => line.startsWith(`${name}=`)));
  return [...lines, ...Object.entries(ROLE_SECRETS).map(([name, value]) => `${name}=${value}`)].join('\n');
}

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  container_name?: string;
  environment?: Record<string, string | null>;
  /** v1 and older v2: `["name:address"]`; newer v2: `{ name: address }` or `{ name: [address] }`. */
  extra_hosts?: string[] | Record<string, string | string[]>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: (string | { target: number | string; published?: string | number; host_ip?: string })[];
  profiles?: string[];
  restart?: string;
  volumes?: (string | { source?: string; target: string })[];
}

/** How to run Compose here: the v2 plugin, a v2 binary, or the Python v1 (whose `config` prints YAML only). */
interface ComposeCommand {
  argv: string[];
  json: 'native' | 'python-yaml';
}

function findCompose(): ComposeCommand | undefined {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0) return { argv: ['docker', 'compose'], json: 'native' };
  const legacy = spawnSync('docker-compose', ['version', '--short'], { encoding: 'utf8' });
  if (legacy.status !== 0) return undefined;
  return { argv: ['docker-compose'], json: legacy.stdout.trim().startsWith('1.') ? 'python-yaml' : 'native' };
}

const compose = findCompose();
if (!compose) {
  process.stderr.write('compose-config: no docker-compose or `docker compose` on PATH; the Compose checks are skipped\n');
}

let dir: string;
let sampleEnv: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'compose-config-'));
  // Copies, so a developer's own .env beside the real files never takes part.
  await copyFile(path.join(ROOT, 'docker-compose.yml'), path.join(dir, 'docker-compose.yml'));
  await copyFile(path.join(ROOT, 'docker-compose.worker.yml'), path.join(dir, 'docker-compose.worker.yml'));
  sampleEnv = await readFile(path.join(ROOT, 'infra/compose.env.example'), 'utf8');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The sample `.env` with the secrets filled in, minus `omit`. */
function filledEnv(omit: string[] = []): string {
  return sampleEnv
    .split('\n')
    .map((line) => {
      const name = /^([A-Z_]+)=/.exec(line)?.[1];
      if (name && omit.includes(name)) return `# ${line}`;
      return name && name in SECRETS && line === `${name}=` ? `${name}=${SECRETS[name as keyof typeof SECRETS]}` : line;
    })
    .join('\n');
}

/** The extra machine's `.env`: the main machine's, less what it does not need, plus the lines the README adds. */
function workerEnv(omit: string[] = []): string {
  const added = { COMPOSE_FILE: 'docker-compose.worker.yml', ...MAIN_MACHINE };
  return [filledEnv([...NOT_ON_WORKER_MACHINES, ...omit]), ...Object.entries(added).filter(([name]) => !omit.includes(name)).map(([name, value]) => `${name}=${value}`)].join('\n');
}

/**
 * Runs Compose in the temporary directory with `env` as its `.env`, on `file` (`-f`), or on whatever the `.env`'s
 * COMPOSE_FILE names (default docker-compose.yml) when `file` is null, as a plain `docker compose up` would.
 */
async function composeRun(args: string[], env: string, file: string | null = 'docker-compose.yml'): Promise<{ stdout: string; stderr: string }> {
  await writeFile(path.join(dir, '.env'), env);
  const [cmd, ...pre] = compose!.argv;
  const files = file === null ? [] : ['-f', path.join(dir, file)];
  // Only PATH and HOME: variables of the test's own environment must not fill in the file's ${…}.
  return run(cmd!, [...pre, ...files, '--project-directory', dir, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir },
  });
}

/** The error Compose stops with, or undefined when it does not. */
async function composeError(args: string[], env: string, file: string | null = 'docker-compose.yml'): Promise<string | undefined> {
  return composeRun(args, env, file).then(
    () => undefined,
    (err: { stderr?: string }) => err.stderr ?? String(err),
  );
}

/** The resolved model, as Compose prints it with every profile enabled. */
async function resolvedServices(env = filledEnv(), file: string | null = 'docker-compose.yml'): Promise<Record<string, ComposeService>> {
  const profiles = ['--profile', 'testmail', '--profile', 'tools'];
  if (compose!.json === 'native') {
    const { stdout } = await composeRun([...profiles, 'config', '--format', 'json'], env, file);
    return (JSON.parse(stdout) as { services: Record<string, ComposeService> }).services;
  }
  const { stdout } = await composeRun([...profiles, 'config'], env, file);
  // Compose v1 ships with Python and PyYAML, which read its YAML back exactly.
  const converted = spawnSync('python3', ['-c', 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'], {
    input: stdout,
    encoding: 'utf8',
  });
  if (converted.status !== 0) throw new Error(`could not read docker-compose config output: ${converted.stderr}`);
  return (JSON.parse(converted.stdout) as { services: Record<string, ComposeService> }).services;
}

describe.skipIf(!compose)('docker-compose.yml, as Compose resolves it', () => {
  let services: Record<string, ComposeService>;

  beforeAll(async () => {
    services = await resolvedServices();
  });

  it('is valid with the sample .env', async () => {
    await expect(composeRun(['config', '-q'], filledEnv())).resolves.toBeDefined();
  });

  it.each(Object.keys(SECRETS))('refuses to run without %s, naming it', async (secret) => {
    expect(await composeError(['config', '-q'], filledEnv([secret]))).toContain(`set ${secret} in .env`);
  });

  it('has the infrastructure, the test mail server and every role', () => {
    expect(Object.keys(services).sort()).toEqual(['redis', 'meilisearch', 'meili-key', 'qdrant', 'mail', ...ROLES].sort());
  });

  it('builds every role from one image of infra/Dockerfile, the role being the command', () => {
    const builds = ROLES.map((role) => ({ image: services[role]!.image, build: services[role]!.build }));
    expect(new Set(builds.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(builds[0]!.build?.dockerfile).toBe('infra/Dockerfile');
    expect(path.resolve(builds[0]!.build!.context)).toBe(path.resolve(dir));
    for (const role of ROLES.filter((r) => r !== 'reindex')) expect(services[role]!.command).toEqual([role]);
    expect(services.reindex!.command).toEqual(['reindex', '--queue', '--wait']);
  });

  it('lets agent workers scale: no container_name on any role', () => {
    for (const role of ROLES) expect(services[role]!.container_name).toBeUndefined();
  });

  it('runs Redis with an append-only file, noeviction and the password of .env, on a volume, with a health check', () => {
    const redis = services.redis!;
    const command = (redis.command ?? []).join(' ');
    expect(command).toContain('--appendonly yes');
    // Fault soak 42: with Redis's default (everysec), a host crash loses the last second of writes, the poller takes a
    // mail again whose reply already went out, and the customer gets two replies.
    expect(command).toContain('--appendfsync always');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(command).toContain(`--requirepass ${SECRETS.REDIS_PASSWORD}`);
    expect(redis.volumes?.map(volumeTarget)).toContain('/data');
    expect(redis.healthcheck?.test.join(' ')).toContain('redis-cli ping');
    // redis-cli logs in with REDISCLI_AUTH; without it the health check would get NOAUTH and never become healthy.
    expect(redis.environment?.REDISCLI_AUTH).toBe(SECRETS.REDIS_PASSWORD);
  });

  it('publishes Redis, Meilisearch and Qdrant to no other machine unless .env names an address for each', async () => {
    // Unset: an ephemeral port on loopback, which takes no port of the host and no other machine reaches.
    for (const [name, target] of Object.entries(SHARED_SERVERS)) {
      expect(publishedPorts(services[name]!)).toEqual([{ hostIp: '127.0.0.1', published: '', target }]);
    }
    const shared = await resolvedServices(
      [filledEnv(), 'REDIS_PUBLISH=10.0.0.5:6379', 'MEILI_PUBLISH=10.0.0.5:7700', 'QDRANT_PUBLISH=10.0.0.5:6333'].join('\n'),
    );
    for (const [name, target] of Object.entries(SHARED_SERVERS)) {
      expect(publishedPorts(shared[name]!)).toEqual([{ hostIp: '10.0.0.5', published: String(target), target }]);
    }
    // The roles of this machine keep using the servers by their Compose names.
    expect(shared['agent-worker']!.environment?.REDIS_URL).toBe(`redis://:${SECRETS.REDIS_PASSWORD}@redis:6379`);
  });

  it('keeps Meilisearch and Qdrant on volumes, keyed by the .env secrets, with health checks', () => {
    expect(services.meilisearch!.environment?.MEILI_MASTER_KEY).toBe(SECRETS.MEILI_MASTER_KEY);
    expect(services.qdrant!.environment?.QDRANT__SERVICE__API_KEY).toBe(SECRETS.QDRANT_API_KEY);
    for (const name of ['meilisearch', 'qdrant']) {
      expect(services[name]!.volumes?.length).toBeGreaterThan(0);
      expect(services[name]!.healthcheck?.test.length).toBeGreaterThan(1);
    }
  });

  it('gives the product its own Meilisearch key, never the master key', () => {
    const keyService = services['meili-key']!;
    expect(keyService.environment).toMatchObject({ MEILI_MASTER_KEY: SECRETS.MEILI_MASTER_KEY, MEILI_API_KEY_UID: SECRETS.MEILI_API_KEY_UID });
    expect(keyService.depends_on?.meilisearch).toEqual(expect.objectContaining({ condition: 'service_healthy' }));
    // Compose v1's `config` keeps the `$$` escapes that v2 resolves.
    const script = keyService.command!.join('\n').replaceAll('$$', '$');
    expect(script).toContain('"indexes":["\'"$MEILI_INDEX"\'*"]');
    for (const action of ['search', 'documents.add', 'indexes.create', 'indexes.get', 'indexes.delete', 'indexes.swap', 'settings.update', 'stats.get', 'tasks.get']) {
      expect(script).toContain(`"${action}"`);
    }
    for (const [name, service] of Object.entries(services)) {
      if (name === 'meilisearch' || name === 'meili-key') continue;
      expect(JSON.stringify(service.environment ?? {})).not.toContain(SECRETS.MEILI_MASTER_KEY);
    }
    for (const role of ['agent-worker', 'scheduler', 'dashboard', 'reindex']) {
      expect(services[role]!.depends_on?.['meili-key']).toEqual(expect.objectContaining({ condition: 'service_completed_successfully' }));
    }
  });

  it('points every role at the Compose services and starts it once Redis is healthy', () => {
    for (const role of ROLES) {
      const service = services[role]!;
      expect(service.environment).toMatchObject({
        REDIS_URL: `redis://:${SECRETS.REDIS_PASSWORD}@redis:6379`,
        MEILI_HOST: 'http://meilisearch:7700',
        MEILI_API_KEY: SECRETS.MEILI_API_KEY,
        QDRANT_URL: 'http://qdrant:6333',
        QDRANT_API_KEY: SECRETS.QDRANT_API_KEY,
        DATA_DIR: '/data',
      });
      expect(service.depends_on?.redis).toEqual(expect.objectContaining({ condition: 'service_healthy' }));
      for (const dependency of Object.keys(service.depends_on ?? {})) expect(services).toHaveProperty(dependency);
      if (role !== 'reindex') expect(service.restart).toBe('unless-stopped');
    }
    // Every dependency waited on as healthy has a health check to become healthy with.
    for (const service of Object.values(services)) {
      for (const [name, { condition }] of Object.entries(service.depends_on ?? {})) {
        if (condition === 'service_healthy') expect(services[name]!.healthcheck).toBeDefined();
      }
    }
    // The role that reads the knowledge base (reindex jobs run in the scheduler) sees the checkout's data/ where
    // MANUALS_DIR and QA_DIR point; agent workers read only the indexes.
    expect(services.scheduler!.volumes?.map(volumeTarget)).toContain('/app/data');
    expect(services['agent-worker']!.volumes?.map(volumeTarget)).toEqual(['/data']);
  });

  it('lets every role reach a model server on the Docker host as host.docker.internal, Docker Engine on Linux included', () => {
    for (const role of ROLES) expect(extraHosts(services[role]!), role).toContain('host.docker.internal:host-gateway');
  });

  it('publishes the dashboard on port 3000 with authentication and a /healthz health check', () => {
    const dashboard = services.dashboard!;
    expect(dashboard.environment).toMatchObject({ DASHBOARD_HOST: '0.0.0.0', DASHBOARD_PORT: '3000', DASHBOARD_AUTH: 'on', DASHBOARD_PASSWORD: SECRETS.DASHBOARD_PASSWORD });
    expect(JSON.stringify(dashboard.ports)).toContain('3000');
    expect(dashboard.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:3000/healthz');
    for (const role of ROLES.filter((r) => r !== 'dashboard')) expect(services[role]!.healthcheck).toBeUndefined();
  });

  // The poller and the agent worker read what strangers wrote (raw MIME, the mail's text, the model's answer about it):
  // a flaw there must not hand over the passwords of servers the role never talks to.
  it.each(Object.entries(HOSTILE_INPUT_ROLES))('gives the %s none of the secrets it does not use', async (role, withheld) => {
    const resolved = await resolvedServices(withRoleSecrets(filledEnv()));
    const environment = resolved[role]!.environment ?? {};
    for (const name of withheld) expect(environment[name] ?? '', `${role} ${name}`).toBe('');
    // …and still the ones it does use.
    for (const [name, value] of Object.entries(ROLE_SECRETS)) if (!withheld.includes(name)) expect(environment[name], `${role} ${name}`).toBe(value);
  });

  // With MAIL_AUTH=oauth2 the client secret and refresh token are the mailbox's login, as the passwords are.
  it('gives the sender, which logs in to SMTP and IMAP, the mail logins of both kinds', async () => {
    const environment = (await resolvedServices(withRoleSecrets(filledEnv())))['sender']!.environment ?? {};
    for (const name of ['IMAP_PASSWORD', 'SMTP_PASSWORD', 'MAIL_OAUTH2_CLIENT_SECRET', 'MAIL_OAUTH2_REFRESH_TOKEN'] as const) {
      expect(environment[name], name).toBe(ROLE_SECRETS[name]);
    }
  });

  it('keeps the one-shot reindex and the test mail server out of a plain `up`', () => {
    expect(services.reindex!.profiles).toEqual(['tools']);
    expect(services.reindex!.restart).toBe('no');
    expect(services.mail!.profiles).toEqual(['testmail']);
  });
});

describe.skipIf(!compose)('docker-compose.worker.yml, for agent workers on another machine', () => {
  it("runs only the agent worker, pointed at the main machine's servers by .env, chosen by COMPOSE_FILE in .env", async () => {
    // No -f: a plain `docker compose up` on that machine takes the file its .env names.
    const services = await resolvedServices(workerEnv(), null);
    expect(Object.keys(services)).toEqual(['agent-worker']);
    const worker = services['agent-worker']!;
    expect(worker.environment).toMatchObject({
      ...MAIN_MACHINE,
      MEILI_API_KEY: SECRETS.MEILI_API_KEY,
      QDRANT_API_KEY: SECRETS.QDRANT_API_KEY,
      MEILI_MASTER_KEY: '',
      DATA_DIR: '/data',
      TZ: 'UTC',
    });
    // Nothing of its own to wait for or start: no Redis, Meilisearch or Qdrant on this machine.
    expect(worker.depends_on).toBeUndefined();
    expect(worker.command).toEqual(['agent-worker']);
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    expect(worker.restart).toBe('unless-stopped');
    // Only its own DATA_DIR (the embedding cache); no knowledge files, which only the scheduler reads.
    expect(worker.volumes?.map(volumeTarget)).toEqual(['/data']);
    // An Ollama on that machine, as on the main one.
    expect(extraHosts(worker)).toContain('host.docker.internal:host-gateway');
  });

  it('gives the agent worker none of the secrets it does not use', async () => {
    const environment = (await resolvedServices(withRoleSecrets(workerEnv()), null))['agent-worker']!.environment ?? {};
    for (const name of HOSTILE_INPUT_ROLES['agent-worker']!) expect(environment[name] ?? '', name).toBe('');
    expect(environment.OPENAI_API_KEY).toBe(ROLE_SECRETS.OPENAI_API_KEY);
  });

  it('builds the same image as docker-compose.yml', async () => {
    const main = (await resolvedServices())['agent-worker']!;
    const worker = (await resolvedServices(workerEnv(), 'docker-compose.worker.yml'))['agent-worker']!;
    expect({ image: worker.image, build: worker.build, init: (worker as { init?: boolean }).init }).toEqual({
      image: main.image,
      build: main.build,
      init: (main as { init?: boolean }).init,
    });
  });

  it.each(['REDIS_URL', 'MEILI_HOST', 'QDRANT_URL', 'MEILI_API_KEY', 'QDRANT_API_KEY'])('refuses to run without %s, naming it', async (name) => {
    expect(await composeError(['config', '-q'], workerEnv([name]), null)).toContain(`set ${name} in .env`);
  });

  it("gives the extra machine's .env to the product as a valid configuration", async () => {
    const sampleDir = await mkdtemp(path.join(dir, 'worker-'));
    await writeFile(path.join(sampleDir, '.env'), workerEnv());
    const env = readEnvFile(sampleDir, {});
    const config = parseConfig({ ...env, MEILI_MASTER_KEY: '', DATA_DIR: '/data' });
    expect(config).toMatchObject({ ...MAIN_MACHINE, MEILI_API_KEY: SECRETS.MEILI_API_KEY, QDRANT_API_KEY: SECRETS.QDRANT_API_KEY });
  });

  it("makes docker-compose.yml refuse that .env, rather than start an empty deployment of this machine's own", async () => {
    // REDIS_PASSWORD is the first secret the file requires; "set REDIS_PASSWORD" alone would lead the admin of an
    // extra machine to set up a Redis of its own instead of the line they forgot.
    const error = await composeError(['config', '-q'], workerEnv(['COMPOSE_FILE']));
    expect(error).toContain('set REDIS_PASSWORD in .env');
    expect(error).toContain('on a machine that only adds agent workers, set COMPOSE_FILE=docker-compose.worker.yml instead');
  });
});

describe('infra/compose.env.example', () => {
  it('holds only product variables (and the few Compose reads) and is a valid configuration for every role', async () => {
    const sampleDir = await mkdtemp(path.join(dir, 'sample-'));
    await writeFile(path.join(sampleDir, '.env'), filledEnv());
    // Read as the product reads a .env file.
    const env = readEnvFile(sampleDir, {});
    for (const name of Object.keys(env)) {
      if (!COMPOSE_ONLY.includes(name)) expect(Object.keys(VARIABLES)).toContain(name);
    }
    // What a role container sees: the sample, overridden by the addresses docker-compose.yml sets.
    const config = parseConfig({
      ...env,
      REDIS_URL: `redis://:${env.REDIS_PASSWORD}@redis:6379`,
      MEILI_HOST: 'http://meilisearch:7700',
      MEILI_API_KEY: env.MEILI_API_KEY,
      QDRANT_URL: 'http://qdrant:6333',
      DATA_DIR: '/data',
    });
    expect(() => requireVariables(config, ['IMAP_HOST', 'IMAP_USER', 'IMAP_PASSWORD'], 'IMAP poller')).not.toThrow();
    expect(() => requireVariables(config, ['SMTP_HOST', 'MAIL_FROM', 'DASHBOARD_PASSWORD'], 'sender and dashboard')).not.toThrow();
    expect(config).toMatchObject({ IMAP_HOST: 'mail', IMAP_PORT: 3143, IMAP_SECURE: false, IMAP_ALLOW_PLAIN_LOGIN: true, SMTP_HOST: 'mail', SMTP_PORT: 3025 });
    expect(config.REINDEX_MANUAL_CRON).toBe('0 3 * * *');
  });
});

describe('the image entry point', () => {
  const entrypoint = path.join(ROOT, 'infra/entrypoint.sh');

  it.each(ROLES.filter((r) => r !== 'reindex'))('maps role %s to the built form of an entry file that exists', async (role) => {
    const text = await readFile(entrypoint, 'utf8');
    const line = text.split('\n').find((l) => new RegExp(`^\\s*(${role}|[a-z-]+ \\| ${role})(\\s*\\|[^)]*)?\\)`).test(l));
    const entry = /role_ (\S+)/.exec(line ?? '')?.[1];
    expect(entry, `no case for ${role} in infra/entrypoint.sh`).toBeDefined();
    // The image runs dist/workers/<entry>.js, which `npm run build` makes of workers/<entry>.ts.
    expect(existsSync(path.join(ROOT, `workers/${entry}.ts`)), `workers/${entry}.ts does not exist`).toBe(true);
    expect(text).toContain('exec node "dist/workers/$entry.js"');
  });

  it('runs the commands through their CLI files, prints usage and refuses an unknown role', async () => {
    const text = await readFile(entrypoint, 'utf8');
    const commandCase = text.split('\n').find((l) => /^\s*[a-z| -]+\) command_ "\$role" "\$@" ;;$/.test(l)) ?? '';
    // Every command the README runs in the image (`docker compose run --rm dashboard check`), as its npm script does.
    const commands = ['check', 'reindex', 'review', 'knowledge', 'ask', 'search'];
    expect(commandCase.slice(0, commandCase.indexOf(')')).split('|').map((c) => c.trim()).sort()).toEqual([...commands].sort());
    const scripts = (JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const cli of commands) {
      expect(existsSync(path.join(ROOT, `src/cli/${cli}.ts`))).toBe(true);
      expect(scripts[cli]).toBe(`tsx src/cli/${cli}.ts`);
    }
    const help = spawnSync('sh', [entrypoint, 'help'], { cwd: ROOT, encoding: 'utf8' });
    expect(help.status).toBe(0);
    for (const name of [...ROLES, ...commands]) expect(help.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    const unknown = spawnSync('sh', [entrypoint, 'no-such-role'], { cwd: ROOT, encoding: 'utf8' });
    expect(unknown.status).toBe(64);
    expect(unknown.stderr).toContain("unknown role 'no-such-role'");
  });

  it('is copied by infra/Dockerfile together with every source the image needs', async () => {
    const dockerfile = await readFile(path.join(ROOT, 'infra/Dockerfile'), 'utf8');
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.trim().split(/\s+/));
    expect(sources).toEqual(expect.arrayContaining(['src', 'jobs', 'workers', 'infra/build.mjs', 'infra/entrypoint.sh', 'package-lock.json']));
    for (const source of sources) expect(existsSync(path.join(ROOT, source)), `${source} does not exist`).toBe(true);
    // The roles run from dist/, built in the image exactly as `npm run build` builds it.
    expect(dockerfile).toMatch(/^RUN node infra\/build\.mjs$/m);
    expect(dockerfile).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
  });
});

/** A service's extra host names as `name:address`, whichever form the Compose at hand prints. */
function extraHosts(service: ComposeService): string[] {
  const hosts = service.extra_hosts ?? [];
  if (Array.isArray(hosts)) return hosts.map((h) => h.replace('=', ':'));
  return Object.entries(hosts).flatMap(([name, addresses]) => [addresses].flat().map((address) => `${name}:${address}`));
}

function volumeTarget(volume: string | { target: string }): string {
  return typeof volume === 'string' ? volume.split(':')[1]! : volume.target;
}

/** The servers other machines' agent workers use, with their port in the container. */
const SHARED_SERVERS = { redis: 6379, meilisearch: 7700, qdrant: 6333 };

/** A service's published ports, from Compose v1's strings (`127.0.0.1::6379/tcp`) or v2's objects alike. */
function publishedPorts(service: ComposeService): { hostIp: string; published: string; target: number }[] {
  return (service.ports ?? []).map((port) => {
    if (typeof port !== 'string') return { hostIp: port.host_ip ?? '', published: String(port.published ?? ''), target: Number(port.target) };
    const parts = port.replace(/\/tcp$/, '').split(':');
    const [hostIp, published, target] = parts.length === 3 ? parts : parts.length === 2 ? ['', ...parts] : ['', '', ...parts];
    return { hostIp: hostIp!, published: published!, target: Number(target) };
  });
}
