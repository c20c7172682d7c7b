/**
 * `npm run review -- list`: parked tickets come oldest first, as on the review page (the customer who waited longest
 * on top, and the one the page opens next first); every other state, and all states together, newest first. A real
 * redis-server and the real CLI process.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { newTicket, type InitialState } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { runNpm } from '../support/pipeline.js';

let server: RedisServer;
let redis: Redis;
let env: Record<string, string>;
let prefix: string;
const HOUR = 60 * 60 * 1000;
const START = Date.parse('2026-03-02T09:00:00.000Z');

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  prefix = `list-${randomUUID()}`;
  env = { REDIS_URL: server.url, QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', HELPDESK_ENV_FILE: 'none' };
  const store = new TicketStore(redis, { prefix });
  // Stored out of order, so neither insertion nor id order can pass for the order by arrival.
  const made: [string, InitialState, number][] = [['parked-2', 'parked', 2], ['ignored-1', 'ignored', 1.5], ['parked-3', 'parked', 3], ['parked-1', 'parked', 1], ['ignored-2', 'ignored', 2.5]];
  for (const [name, state, hour] of made) {
    await store.createIfAbsent(newTicket({ messageId: `<${name}@customer.example>`, from: 'mary@customer.example', subject: name, question: 'q', state, actor: 'poller' }, new Date(START + hour * HOUR)));
  }
});

afterAll(async () => {
  if (redis) {
    // Test-only cleanup by pattern; the product never scans.
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
  await server?.stop();
});

const listed = async (...args: string[]) => {
  const run = await runNpm(['run', 'review', '--', 'list', '--json', ...args], env);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { subject: string }[]).map((t) => t.subject);
};

describe('npm run review -- list', () => {
  it.each<[string, string[], string[]]>([
    ['parked: oldest first, as the page', ['--state', 'parked'], ['parked-1', 'parked-2', 'parked-3']],
    ['parked, a page of it: the longest waiting', ['--state', 'parked', '--limit', '2'], ['parked-1', 'parked-2']],
    ['another state: newest first', ['--state', 'ignored'], ['ignored-2', 'ignored-1']],
    ['every state: newest first', [], ['parked-3', 'ignored-2', 'parked-2', 'ignored-1', 'parked-1']],
  ])('%s', async (_case, args, subjects) => {
    expect(await listed(...args)).toEqual(subjects);
  });

  it('says the order in its help', async () => {
    const help = await runNpm(['run', 'review', '--', 'list', '--help'], env);
    expect(help.stdout).toContain('parked tickets oldest first');
  });

  it('counts all the parked tickets in the table, not only the page shown', async () => {
    const table = await runNpm(['run', 'review', '--', 'list', '--state', 'parked', '--limit', '2'], env);
    expect(table.stdout).toMatch(/\b2 of 3\b/);
  });
});
