/**
 * Archive files as retention writes them (gzip members appended per batch). A torn end after a crash is skipped,
 * since its tickets are still in Redis; a member damaged in the middle is not a torn end: reading on past it
 * silently loses the records after it, and rewriting the file (an erasure) would drop them for good.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { archiveMember, readArchive, rewriteArchive, type ArchiveRecord } from '../../src/tickets/archive.js';
import { newTicket } from '../../src/tickets/ticket.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const record = (n: number): ArchiveRecord => ({
  archivedAt: '2026-06-01T00:00:00.000Z',
  ticket: newTicket({ messageId: `<a${n}@customer.example>`, from: `c${n}@customer.example`, subject: `Q${n}`, question: `How ${n}? ${'x'.repeat(200)}`, actor: 'poller' }),
});

/** An archive of three members of 20 records each. */
async function archive(): Promise<{ file: string; members: Buffer[] }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'archive-test-'));
  dirs.push(dir);
  const members = [0, 1, 2].map((m) => archiveMember(Array.from({ length: 20 }, (_, i) => record(m * 20 + i))));
  const file = path.join(dir, '2025-01.jsonl.gz');
  await writeFile(file, Buffer.concat(members));
  return { file, members };
}

const readAll = async (file: string) => {
  const ids: string[] = [];
  const summary = await readArchive(file, (r) => void ids.push(r.ticket.id));
  return { ids, summary };
};

describe('archive files', () => {
  it('skips a torn end (a crash cut the last member short) and reads everything before it', async () => {
    const { file, members } = await archive();
    const whole = await readFile(file);
    await writeFile(file, whole.subarray(0, whole.length - Math.floor(members[2]!.length / 2)));
    const { ids, summary } = await readAll(file);
    expect(ids.length).toBeGreaterThanOrEqual(40);
    expect(summary.damaged).toBe(1);
  });

  it('refuses a file damaged in the middle, and an erasure leaves it as it was', async () => {
    const { file, members } = await archive();
    const damaged = Buffer.from(await readFile(file));
    // One flipped byte in the compressed data of the second member.
    const at = members[0]!.length + Math.floor(members[1]!.length / 2);
    damaged[at] = damaged[at]! ^ 0xff;
    await writeFile(file, damaged);
    await expect(readAll(file)).rejects.toThrow(/damaged.*2025-01\.jsonl\.gz|2025-01\.jsonl\.gz.*damaged/);
    await expect(rewriteArchive(path.dirname(file), path.basename(file), (r) => r?.ticket.from === 'c1@customer.example')).rejects.toThrow(/damaged/);
    expect((await readFile(file)).equals(damaged)).toBe(true);
  });
});
