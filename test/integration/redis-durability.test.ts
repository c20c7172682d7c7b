/**
 * What the roles say at start about Redis's persistence, read from a real redis-server: README (Running without
 * Docker) asks for `appendonly yes` and `appendfsync always`, as docker-compose.yml runs it; with `everysec` a crash of
 * the host answered mail twice (fault soak 42). The roles read only `maxmemory-policy` before (walkthrough 45, M2).
 * `checkEvictionPolicy` is what every role calls at start.
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { captureLogger, WARN, type LogLine } from '../support/capture-logger.js';
import { checkEvictionPolicy, checkRedisSettings, connectProducer, createWorkerConnection } from '../../src/queues/connection.js';
import { startRedis, type RedisServer, type RedisServerOptions } from '../../src/dev/redis-server.js';

let servers: RedisServer[] = [];
let clients: Redis[] = [];

afterEach(async () => {
  for (const c of clients) c.disconnect();
  clients = [];
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});

async function connected(options: RedisServerOptions): Promise<Redis> {
  const server = await startRedis(options);
  servers.push(server);
  const redis = await connectProducer(server.url);
  clients.push(redis);
  return redis;
}

const warnings = (lines: readonly LogLine[]) => lines.filter((l) => l.level >= WARN).map((l) => l.msg);

describe('the roles’ start-up check of Redis persistence', () => {
  it.each<[name: string, options: RedisServerOptions, warned: RegExp[]]>([
    ['appendonly yes, appendfsync always: quiet', { appendfsync: 'always' }, []],
    ['appendfsync everysec', { appendfsync: 'everysec' }, [/^Redis appendfsync is everysec: .*answered twice; set appendfsync always \(redis\.conf/]],
    ['appendfsync no', { appendfsync: 'no' }, [/^Redis appendfsync is no: .*answered twice; set appendfsync always/]],
    ['appendonly no', { appendonly: false, appendfsync: 'always' }, [/^Redis appendonly is no: .*set appendonly yes and appendfsync always/]],
    // Managed Redis (ElastiCache, Upstash) refuses CONFIG: INFO says the append-only file is on, fsync is unknown.
    [
      'CONFIG renamed',
      { appendfsync: 'always', extraArgs: ['--rename-command', 'CONFIG', '""'] },
      [/^Redis appendfsync could not be read \(CONFIG refused\): make sure it is always/],
    ],
    [
      'CONFIG renamed, appendonly no',
      { appendonly: false, extraArgs: ['--rename-command', 'CONFIG', '""'] },
      [/^Redis appendonly is no: /],
    ],
  ])('%s', async (_name, options, warned) => {
    const redis = await connected(options);
    const { logger, lines } = captureLogger();
    expect(await checkEvictionPolicy(redis, logger)).toBe('noeviction');
    const said = warnings(lines);
    expect(said).toHaveLength(warned.length);
    warned.forEach((pattern, i) => expect(said[i]).toMatch(pattern));
  });

  it('returns what it read', async () => {
    const redis = await connected({ appendfsync: 'everysec', maxmemoryPolicy: 'allkeys-lru' });
    const { logger, lines } = captureLogger();
    expect(await checkRedisSettings(redis, logger)).toEqual({ maxmemoryPolicy: 'allkeys-lru', appendonly: 'yes', appendfsync: 'everysec' });
    // One line per problem: the eviction policy's, then persistence's.
    expect(warnings(lines)).toEqual([expect.stringMatching(/maxmemory-policy is allkeys-lru/), expect.stringMatching(/^Redis appendfsync is everysec/)]);
  });

  it('does not blame persistence while Redis refuses the password, and checks it once the password is right', async () => {
    const server = await startRedis({ appendfsync: 'everysec' });
    servers.push(server);
    const admin = new Redis(server.url);
    clients.push(admin);
    await admin.config('SET', 'requirepass', 'the-right-one');
    const { logger, lines } = captureLogger();
    const url = new URL(server.url);
    url.password = 'typo';
    const connection = createWorkerConnection(url.toString(), { logger });
    clients.push(connection);
    expect(await checkRedisSettings(connection, logger)).toBeUndefined();
    expect(warnings(lines).filter((m) => /append/.test(m))).toEqual([]);
    await admin.config('SET', 'requirepass', 'typo');
    const deadline = Date.now() + 15_000;
    while (!warnings(lines).some((m) => /^Redis appendfsync is everysec/.test(m))) {
      if (Date.now() > deadline) throw new Error(`no persistence warning after the password was fixed: ${JSON.stringify(lines)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(warnings(lines).some((m) => /could not be read/.test(m))).toBe(false);
  });
});
