import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { decodeContainer, encodeContainer, float32View, LiveIndexFile, normalizeInPlace, topKByDot } from '../../src/search/vector-store.js';

describe('index container', () => {
  it('round-trips metadata and sections, deterministically', () => {
    const a = new Uint8Array([1, 2, 3]);
    const f = new Float32Array([0.5, -1, 2]);
    const bytes = encodeContainer({ hello: '世界' }, [a, new Uint8Array(f.buffer)]);
    expect(Buffer.from(encodeContainer({ hello: '世界' }, [a, new Uint8Array(f.buffer)])).equals(Buffer.from(bytes))).toBe(true);
    const { meta, sections } = decodeContainer<{ hello: string }>(bytes);
    expect(meta.hello).toBe('世界');
    expect(Array.from(sections[0]!)).toEqual([1, 2, 3]);
    expect(Array.from(float32View(sections[1]!))).toEqual([0.5, -1, 2]);
  });

  it('rejects foreign and truncated files', () => {
    const bytes = encodeContainer({ x: 1 }, [new Uint8Array(100)]);
    expect(() => decodeContainer(bytes.subarray(0, 40))).toThrow(/truncated/);
    expect(() => decodeContainer(new TextEncoder().encode('{"json":"file"}'))).toThrow(/not a helpdesk index/);
  });
});

describe('topKByDot', () => {
  it('equals a naive scan, for row counts that are and are not multiples of four', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) - 0.5;
    for (const rows of [1, 3, 4, 5, 37]) {
      const dims = 13;
      const m = Float32Array.from({ length: rows * dims }, rnd);
      const q = Float32Array.from({ length: dims }, rnd);
      const naive = Array.from({ length: rows }, (_, r) => ({ index: r, score: m.subarray(r * dims, (r + 1) * dims).reduce((s, x, j) => s + x * q[j]!, 0) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 5);
      const got = topKByDot(m, dims, q, 5);
      expect(got.map((g) => g.index)).toEqual(naive.map((n) => n.index));
      got.forEach((g, i) => expect(g.score).toBeCloseTo(naive[i]!.score, 5));
    }
    expect(topKByDot(new Float32Array(0), 4, new Float32Array(4), 3)).toEqual([]);
  });

  it('normalizeInPlace gives unit vectors and leaves zero vectors alone', () => {
    const v = normalizeInPlace(Float32Array.from([3, 4]));
    expect(Array.from(v)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(Array.from(normalizeInPlace(new Float32Array(2)))).toEqual([0, 0]);
  });
});

describe('LiveIndexFile', () => {
  let dir: string;
  const log = createLogger('test');
  const decode = (b: Uint8Array) => {
    const text = new TextDecoder().decode(b);
    if (!text.startsWith('ok:')) throw new Error('bad file');
    return text.slice(3);
  };
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'live-test-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('treats an absent file as no index, and picks up files written by another instance', async () => {
    const file = path.join(dir, 'sub', 'x.idx');
    const reader = new LiveIndexFile({ file, decode, log });
    const writer = new LiveIndexFile({ file, decode, log });
    expect(await reader.current()).toBeUndefined();
    await reader.check();
    await writer.replace(new TextEncoder().encode('ok:one'), 'one');
    expect(await reader.current()).toBe('one');
    await writer.replace(new TextEncoder().encode('ok:two'), 'two');
    expect(await reader.current()).toBe('two');
    expect(await readdir(path.dirname(file))).toEqual(['x.idx']);
  });

  it('keeps serving the last good index when the file turns unreadable, and check() reports it', async () => {
    const file = path.join(dir, 'x.idx');
    const reader = new LiveIndexFile({ file, decode, log });
    await writeFile(file, 'ok:good');
    expect(await reader.current()).toBe('good');
    await writeFile(file, 'garbage!');
    expect(await reader.current()).toBe('good');
    await expect(reader.check()).rejects.toThrow(/bad file/);
    const fresh = new LiveIndexFile({ file, decode, log });
    await expect(fresh.current()).rejects.toThrow(/bad file/);
  });

  // An index that was there and is gone (DATA_DIR cleaned, a volume remounted) answered every search with nothing:
  // the agent then parked every ticket as unanswered, which looks like a knowledge gap, not an outage.
  it('keeps serving the loaded index when its file disappears, and check() reports it; a new file is read again', async () => {
    const file = path.join(dir, 'x.idx');
    const reader = new LiveIndexFile({ file, decode, log });
    await writeFile(file, 'ok:good');
    expect(await reader.current()).toBe('good');
    await rm(file);
    expect(await reader.current()).toBe('good');
    await expect(reader.check()).rejects.toThrow(/disappeared/);
    await writeFile(file, 'ok:new');
    expect(await reader.current()).toBe('new');
    await reader.check();
  });

  // A process killed while writing leaves its temporary file; every later reindex added another (hundreds of MB).
  it("removes a dead writer's temporary files when it writes, and leaves a live writer's", async () => {
    const file = path.join(dir, 'x.idx');
    const dead = path.join(dir, `.x.idx.999999999.${'a'.repeat(36)}.tmp`);
    const live = path.join(dir, `.x.idx.${process.pid}.${'b'.repeat(36)}.tmp`);
    await writeFile(dead, 'partial');
    await writeFile(live, 'in progress');
    const writer = new LiveIndexFile({ file, decode, log });
    await writer.replace(new TextEncoder().encode('ok:one'), 'one');
    expect((await readdir(dir)).sort()).toEqual([path.basename(live), 'x.idx'].sort());
  });

  it('reads the whole file, however large', async () => {
    const file = path.join(dir, 'x.idx');
    const text = `ok:${'x'.repeat(200_000)}`;
    await writeFile(file, text);
    const reader = new LiveIndexFile({ file, log, decode });
    expect(await reader.current()).toBe(text.slice(3));
  });

  // A search during a rebuild in the same process, or a worker searching for many tickets, reads the index again and
  // again: each look at the file must let the rest of the process (the rebuild's writes, timers, sockets) go on.
  it('lets the process go on between the looks of a caller that reads it in a loop', async () => {
    const file = path.join(dir, 'x.idx');
    await writeFile(file, 'ok:one');
    const reader = new LiveIndexFile({ file, decode, log });
    expect(await reader.current()).toBe('one');
    let timerFired = false;
    setTimeout(() => (timerFired = true), 0);
    let reads = 0;
    // Bounded: a look that never yields would spin here for ever, with vitest's own timeout unable to fire.
    while (!timerFired && reads < 100_000) {
      expect(await reader.current()).toBe('one');
      reads++;
    }
    expect(timerFired).toBe(true);
  });

  it('with checkIntervalMs, does not look at the file again within the interval', async () => {
    const file = path.join(dir, 'x.idx');
    await writeFile(file, 'ok:first');
    const reader = new LiveIndexFile({ file, decode, log, checkIntervalMs: 60_000 });
    expect(await reader.current()).toBe('first');
    await new LiveIndexFile({ file, decode, log }).replace(new TextEncoder().encode('ok:second'), 'second');
    expect(await reader.current()).toBe('first');
    await reader.check();
    expect(await reader.current()).toBe('second');
  });
});
