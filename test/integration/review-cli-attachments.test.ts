/**
 * `npm run review -- show <id> --save-attachments DIR`, spawned as an operator runs it against a real redis-server:
 * the ticket's attachments, read from its stored raw mail, are written into DIR under safe names, never outside it,
 * never over a file (or through a link) already there; `show` numbers them as the dashboard does; a raw mail that is
 * gone is one clear line and exit code 1.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { startRedis, type RedisServer } from '../../src/dev/redis-server.js';
import { ingestMessage } from '../../src/mail/ingest.js';
import { deleteRaw } from '../../src/mail/raw-store.js';
import { closeAll, createQueues, type Queues } from '../../src/queues/registry.js';
import { TicketStore } from '../../src/tickets/ticket-store.js';
import { MAIL_FROM, runNpm } from '../support/pipeline.js';

let server: RedisServer;
let redis: Redis;
let root: string;
let prefix: string;
let env: Record<string, string>;
let store: TicketStore;
let queues: Queues;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  root = await mkdtemp(path.join(tmpdir(), 'review-attachments-'));
  prefix = `attach-${randomUUID()}`;
  env = { REDIS_URL: server.url, QUEUE_PREFIX: prefix, DATA_DIR: path.join(root, 'data'), LOG_LEVEL: 'silent', HELPDESK_ENV_FILE: 'none' };
  store = new TicketStore(redis, { prefix });
  queues = createQueues(redis, prefix);
});

afterAll(async () => {
  if (queues) await closeAll(queues).catch(() => undefined);
  if (redis) {
    // Test-only cleanup by pattern; the product never scans.
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const review = (...args: string[]) => runNpm(['run', 'review', '--', ...args], env, 60_000);

function part(headers: string[], content: Buffer): string {
  return [...headers, 'Content-Transfer-Encoding: base64', '', content.toString('base64').replace(/.{76}/g, '$&\r\n')].join('\r\n');
}

/** A mail of a text and `files` (name params as the sender's client wrote them), ingested as the poller does. */
async function ingestWithFiles(files: Array<{ params: string; content: Buffer }>): Promise<string> {
  const boundary = `b-${randomUUID()}`;
  const parts = [
    part(['Content-Type: text/plain; charset=utf-8'], Buffer.from('詳細は添付ファイルをご確認ください')),
    ...files.map((f) => part([`Content-Type: application/octet-stream; ${f.params}`, `Content-Disposition: attachment; ${f.params.replace(/\bname/g, 'filename')}`], f.content)),
  ];
  const raw = Buffer.from(
    [
      `From: Yamada <yamada@customer.example>`,
      `To: ${MAIL_FROM}`,
      'Subject: attachments',
      `Date: ${new Date().toUTCString()}`,
      `Message-ID: <cli-att-${randomUUID()}@customer.example>`,
      'MIME-Version: 1.0',
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      '',
      ...parts.flatMap((p) => [`--${boundary}`, p]),
      `--${boundary}--`,
      '',
    ].join('\r\n'),
  );
  const config = parseConfig({ REDIS_URL: server.url, QUEUE_PREFIX: prefix });
  return (await ingestMessage(raw, { redis, store, ticketsQueue: queues.tickets, prefix, config })).ticketId;
}

const REPORT = randomBytes(3000);
const PASSWD = Buffer.from('not the real one');
const SHOT = randomBytes(1000);

describe('npm run review -- show --save-attachments', () => {
  it('writes every attachment into DIR under a safe name, and a second run adds copies beside them', async () => {
    const id = await ingestWithFiles([
      { params: 'name="report.pdf"', content: REPORT },
      { params: 'name="../../etc/passwd"', content: PASSWD },
      { params: "name*=UTF-8''%E7%94%BB%E9%9D%A2%E2%80%AE%0D%0Agnp.exe", content: SHOT },
    ]);
    const dir = path.join(root, 'first', 'new-folder');
    await mkdir(path.dirname(dir), { recursive: true });
    const first = await review('show', id.slice(0, 12), '--save-attachments', dir);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('── Attachments');
    expect(first.stdout).toMatch(/1\. report\.pdf \(application\/pdf, 3000 bytes\)/);
    expect(first.stdout).toContain(`saved 3 attachments to ${dir}`);
    expect((await readdir(dir)).sort()).toEqual(['passwd', 'report.pdf', '画面 gnp.exe'].sort());
    expect((await readFile(path.join(dir, 'report.pdf'))).equals(REPORT)).toBe(true);
    expect((await readFile(path.join(dir, 'passwd'))).equals(PASSWD)).toBe(true);
    expect((await readFile(path.join(dir, '画面 gnp.exe'))).equals(SHOT)).toBe(true);
    // Nothing was written beside or above DIR.
    expect(await readdir(path.dirname(dir))).toEqual(['new-folder']);

    const second = await review('show', id, '--save-attachments', dir);
    expect(second.code).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(['passwd', 'passwd (2)', 'report (2).pdf', 'report.pdf', '画面 gnp (2).exe', '画面 gnp.exe'].sort());
    expect((await readFile(path.join(dir, 'report (2).pdf'))).equals(REPORT)).toBe(true);
  });

  it('neither overwrites a file nor writes through a link that is already there', async () => {
    const id = await ingestWithFiles([
      { params: 'name="report.pdf"', content: REPORT },
      { params: 'name="passwd"', content: PASSWD },
    ]);
    const dir = await mkdtemp(path.join(root, 'existing-'));
    const target = path.join(root, `target-${randomUUID()}`);
    await writeFile(target, 'keep me');
    await writeFile(path.join(dir, 'report.pdf'), 'the operator’s own file');
    await symlink(target, path.join(dir, 'passwd'));
    const result = await review('show', id, '--save-attachments', dir);
    expect(result.code).toBe(0);
    expect(await readFile(path.join(dir, 'report.pdf'), 'utf8')).toBe('the operator’s own file');
    expect(await readFile(target, 'utf8')).toBe('keep me');
    expect((await lstat(path.join(dir, 'passwd'))).isSymbolicLink()).toBe(true);
    expect((await readFile(path.join(dir, 'report (2).pdf'))).equals(REPORT)).toBe(true);
    expect((await readFile(path.join(dir, 'passwd (2)'))).equals(PASSWD)).toBe(true);
  });

  it('says so in one line, exit code 1, when the raw mail is no longer stored', async () => {
    const id = await ingestWithFiles([{ params: 'name="report.pdf"', content: REPORT }]);
    await deleteRaw(redis, prefix, id);
    const dir = await mkdtemp(path.join(root, 'gone-'));
    const result = await review('show', id, '--save-attachments', dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no longer stored');
    expect(await readdir(dir)).toEqual([]);
  });
});
