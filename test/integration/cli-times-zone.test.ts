/**
 * `npm run review -- show` and `npm run knowledge` print a ticket's and a pair's times in the desk's zone, named, as
 * `review list` does; `--json` keeps the stored ISO value (walkthrough 45: they printed UTC ISO strings). A POSIX
 * `TZ` such as `JST-9`, which Node's Intl cannot name, is read as the fixed offset it means, not shown as UTC.
 * The commands run as child processes against a real redis-server.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { learnedKeys, type LearnedPair } from '../../src/knowledge/learned-answers.js';
import { newTicket, type Ticket } from '../../src/tickets/ticket.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { removePrefix, runNpm } from '../support/pipeline.js';

let redisServer: RedisServer;
let redis: Redis;
let dir: string;
let env: Record<string, string>;
let ticket: Ticket;

const PAIR: LearnedPair = {
  id: 900_001,
  question: '領収書の宛名変更はできますか？',
  answer: '「請求」→「領収書」で変更できます。',
  ticketId: 'd'.repeat(64),
  ticketIds: ['d'.repeat(64)],
  acceptedBy: 'sato',
  acceptedAt: '2026-01-01T18:30:00.000Z',
  createdAt: '2026-01-01T00:00:00.000Z',
};

beforeAll(async () => {
  redisServer = await startRedis();
  redis = new Redis(redisServer.url);
  dir = await mkdtemp(path.join(tmpdir(), 'cli-times-'));
  const prefix = `tz${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  env = { HELPDESK_ENV_FILE: 'none', REDIS_URL: redisServer.url, QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', DATA_DIR: dir };
  const created = new Date('2025-01-02T18:04:05Z');
  const store = new TicketStore(redis, { prefix, now: () => created });
  ticket = newTicket({ messageId: '<tz@customer.example>', from: 'tz@customer.example', subject: 'Invoice', question: '請求書は？', actor: 'poller' }, created);
  await store.createIfAbsent(ticket);
  await redis.hset(learnedKeys(prefix).pairs, String(PAIR.id), JSON.stringify(PAIR));
});
afterAll(async () => {
  if (redisServer) await removePrefix(redisServer.url, env.QUEUE_PREFIX!);
  redis?.disconnect();
  await redisServer?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('CLI times in the desk’s zone', () => {
  it.each([
    { tz: 'Asia/Tokyo', created: '2025-01-03 03:04 GMT+9', accepted: '2026-01-02 03:30 GMT+9', first: '2026-01-01 09:00 GMT+9' },
    { tz: 'JST-9', created: '2025-01-03 03:04 GMT+9', accepted: '2026-01-02 03:30 GMT+9', first: '2026-01-01 09:00 GMT+9' },
    { tz: 'IST-5:30', created: '2025-01-02 23:34 GMT+5:30', accepted: '2026-01-02 00:00 GMT+5:30', first: '2026-01-01 05:30 GMT+5:30' },
    { tz: 'UTC', created: '2025-01-02 18:04 UTC', accepted: '2026-01-01 18:30 UTC', first: '2026-01-01 00:00 UTC' },
  ])('TZ=$tz', async ({ tz, created, accepted, first }) => {
    const run = (command: string, ...args: string[]) => runNpm(['run', command, '--', ...args], { ...env, TZ: tz }, 60_000);
    const [show, json, list, pair] = await Promise.all([
      run('review', 'show', ticket.id),
      run('review', 'show', ticket.id, '--json'),
      run('knowledge', 'list'),
      run('knowledge', 'show', `learned#${PAIR.id}`),
    ]);
    for (const r of [show, json, list, pair]) expect(r.code, r.stderr).toBe(0);
    expect(show.stdout).toContain(`Created:    ${created}\n`);
    expect(show.stdout.split('\n').some((line) => line.startsWith(`${created}  `) && line.includes(' → received  by poller'))).toBe(true);
    expect(show.stdout).not.toContain('2025-01-02T18:04:05');
    expect((JSON.parse(json.stdout) as Ticket).createdAt).toBe('2025-01-02T18:04:05.000Z');
    expect(list.stdout).toContain(`learned#${PAIR.id}  ticket dddddddddddd  by sato ${accepted}  `);
    expect(pair.stdout).toContain(`Accepted:    ${accepted} by sato (first ${first})`);
  }, 120_000);
});
