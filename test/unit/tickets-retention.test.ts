import { appendFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTicketDetail } from '../../src/server/views.js';
import { usedMemory } from '../../src/server/metrics.js';
import { archiveFileFor, archiveMember, readArchive, rewriteArchive, type ArchiveRecord } from '../../src/tickets/archive.js';
import { customerAddress, forgetCommand, isCustomersTicket, isExpired, retentionCutoff } from '../../src/tickets/retention.js';
import { newTicket, type Ticket } from '../../src/tickets/ticket.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'archive-unit-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NOW = new Date('2026-06-01T00:00:00Z');
const DAY = 24 * 60 * 60 * 1000;

function ticket(n: string, from = `${n}@customer.example`, extra: Partial<Ticket> = {}): Ticket {
  return { ...newTicket({ messageId: `<${n}@customer.example>`, from, subject: `Q ${n}`, question: 'How?', actor: 'poller' }, new Date('2025-03-15T12:00:00Z')), ...extra };
}

describe('forgetCommand', () => {
  it.each([
    ['alice@customer.example', 'npm run review -- forget alice@customer.example'],
    ['a.b+tag@x.example', 'npm run review -- forget a.b+tag@x.example'],
    ["o'neil@x.example", `npm run review -- forget 'o'\\''neil@x.example'`],
    ['$(rm -rf ~)@x.example', `npm run review -- forget '$(rm -rf ~)@x.example'`],
    ['a&b;c@x.example', `npm run review -- forget 'a&b;c@x.example'`],
  ])('quotes %s for a shell', (address, command) => {
    expect(forgetCommand(address)).toBe(command);
  });
});

describe('customer matching', () => {
  it.each([
    ['alice@customer.example', 'alice@customer.example'],
    ['Alice <ALICE@Customer.Example>', 'alice@customer.example'],
    ['alice+billing@customer.example', 'alice@customer.example'],
    ['ａｌｉｃｅ@customer.example', 'alice@customer.example'],
    ['not an address', undefined],
    ['', undefined],
  ])('customerAddress(%j) is %j', (value, expected) => {
    expect(customerAddress(value)).toBe(expected);
  });

  it('matches the sender or the Reply-To, never a look-alike', () => {
    const alice = 'alice@customer.example';
    expect(isCustomersTicket(ticket('a', 'Alice+x@customer.example'), alice)).toBe(true);
    expect(isCustomersTicket(ticket('b', 'carol@customer.example', { replyTo: 'alice@customer.example' }), alice)).toBe(true);
    expect(isCustomersTicket(ticket('c', 'malice@customer.example'), alice)).toBe(false);
    expect(isCustomersTicket(ticket('d', 'alice@customer.example.evil'), alice)).toBe(false);
  });

  it('matches a bounce that reports a mail to the customer, by the recipient it names', () => {
    const alice = 'alice@customer.example';
    const bounce = (recipient: string | undefined) => ({
      ...ticket('e', 'mailer-daemon@mx.customer.example'),
      deliveryReport: { messageIds: ['<r@support.example>'], failed: true, ...(recipient ? { recipient } : {}) },
    });
    expect(isCustomersTicket(bounce('Alice+x@Customer.example'), alice)).toBe(true);
    expect(isCustomersTicket(bounce('malice@customer.example'), alice)).toBe(false);
    expect(isCustomersTicket(bounce(undefined), alice)).toBe(false);
  });
});

describe('expiry', () => {
  it('counts from the last change and only for settled states (final, or ignored and never taken up)', () => {
    const cutoff = retentionCutoff(NOW, 30);
    const at = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString();
    expect(isExpired({ state: 'sent', createdAt: at(100), updatedAt: at(31) }, cutoff)).toBe(true);
    expect(isExpired({ state: 'rejected', createdAt: at(100), updatedAt: at(30) }, cutoff)).toBe(true);
    expect(isExpired({ state: 'sent', createdAt: at(100), updatedAt: at(29) }, cutoff)).toBe(false);
    expect(isExpired({ state: 'ignored', createdAt: at(40), updatedAt: at(40) }, cutoff)).toBe(true);
    expect(isExpired({ state: 'ignored', createdAt: at(10), updatedAt: at(10) }, cutoff)).toBe(false);
    for (const state of ['parked', 'failed', 'drafted', 'received'] as const) expect(isExpired({ state, createdAt: at(900), updatedAt: at(900) }, cutoff)).toBe(false);
  });

  it('refuses a period that is not a whole number of days ≥ 1', () => {
    expect(() => retentionCutoff(NOW, 0)).toThrow(RangeError);
    expect(() => retentionCutoff(NOW, 1.5)).toThrow(RangeError);
  });

  it('files a ticket under the UTC month of its creation', () => {
    expect(archiveFileFor({ createdAt: '2025-03-31T23:30:00-02:00' })).toBe('2025-04.jsonl.gz');
    expect(archiveFileFor({ createdAt: '2025-12-01T00:00:00Z' })).toBe('2025-12.jsonl.gz');
  });
});

describe('archive files', () => {
  const record = (n: string): ArchiveRecord => ({ archivedAt: NOW.toISOString(), ticket: ticket(n) });

  it('reads every member of an appended file and skips a torn end', async () => {
    const file = path.join(dir, 'torn.jsonl.gz');
    await writeFile(file, archiveMember([record('a'), record('b')]));
    await appendFile(file, archiveMember([record('c')]));
    const torn = archiveMember([record('d')]);
    await appendFile(file, torn.subarray(0, Math.floor(torn.length / 2)));
    const ids: string[] = [];
    const summary = await readArchive(file, (r) => void ids.push(r.ticket.id));
    expect(ids).toEqual([record('a'), record('b'), record('c')].map((r) => r.ticket.id));
    expect(summary).toEqual({ records: 3, damaged: 1 });
  });

  it('rewrites a file without the dropped lines and leaves no temporary file; a file with nothing to drop is untouched', async () => {
    const sub = await mkdtemp(path.join(dir, 'rewrite-'));
    await writeFile(path.join(sub, '2025-03.jsonl.gz'), Buffer.concat([archiveMember([record('keep1'), record('drop')]), archiveMember([record('keep2')])]));
    const dropped = await rewriteArchive(sub, '2025-03.jsonl.gz', (r) => r?.ticket.from === 'drop@customer.example');
    expect(dropped.map((r) => r.ticket.from)).toEqual(['drop@customer.example']);
    const left: string[] = [];
    await readArchive(path.join(sub, '2025-03.jsonl.gz'), (r) => void left.push(r.ticket.from));
    expect(left).toEqual(['keep1@customer.example', 'keep2@customer.example']);
    expect(await rewriteArchive(sub, '2025-03.jsonl.gz', () => false)).toEqual([]);
    expect(await readdir(sub)).toEqual(['2025-03.jsonl.gz']);
  });
});

describe('dashboard and metrics', () => {
  it('shows the erase command of the sender and of a different Reply-To, escaped', () => {
    const t = ticket('v', 'carol@customer.example', { replyTo: "o'neil@customer.example" });
    const page = String(renderTicketDetail({ ticket: t, mailText: undefined, now: NOW, csrfToken: 'x', user: undefined }));
    expect(page).toContain('npm run review -- forget carol@customer.example');
    expect(page).toContain('npm run review -- forget &#39;o&#39;\\&#39;&#39;neil@customer.example&#39;');
  });

  it('reads used_memory from INFO memory', () => {
    expect(usedMemory('# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\n')).toBe(1048576);
    expect(usedMemory('')).toBe(0);
  });
});
