/**
 * Reads everything a Redis server holds — every key's name and contents, whatever its type — and says where given
 * words occur: for tests that check an erasure left nothing of a customer behind, wherever the product or BullMQ put it.
 * Test-only: the product never scans the key space.
 */
import type { Redis } from 'ioredis';

/** One place a word was found. */
export interface Trace {
  key: string;
  /** The Redis type of the key. */
  type: string;
  /** The word found. */
  word: string;
  /** Found in the key's name rather than its contents. */
  inName: boolean;
}

/** Every value a key holds, as text (binary values decoded as UTF-8; hash fields and stream fields included). */
async function contentsOf(redis: Redis, key: string, type: string): Promise<string[]> {
  switch (type) {
    case 'string':
      return [((await redis.getBuffer(key)) ?? Buffer.alloc(0)).toString('utf8')];
    case 'hash':
      return Object.entries(await redis.hgetall(key)).flat();
    case 'list':
      return redis.lrange(key, 0, -1);
    case 'set':
      return redis.smembers(key);
    case 'zset':
      return redis.zrange(key, 0, -1);
    case 'stream':
      return (await redis.xrange(key, '-', '+')).flatMap(([, fields]) => fields);
    case 'none':
      // Expired or deleted between the SCAN and the read.
      return [];
    default:
      throw new Error(`key ${key} has type ${type}, which this scan cannot read`);
  }
}

/**
 * Where any of `words` occurs in the names or contents of the keys of the whole server, except in keys `allowed`
 * says may hold a word (tombstones that are meant to stay).
 */
export async function tracesOf(redis: Redis, words: readonly string[], allowed: (key: string, word: string) => boolean = () => false): Promise<Trace[]> {
  const traces: Trace[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      const contents = await contentsOf(redis, key, type);
      for (const word of words) {
        if (allowed(key, word)) continue;
        if (key.includes(word)) traces.push({ key, type, word, inName: true });
        else if (contents.some((value) => value.includes(word))) traces.push({ key, type, word, inName: false });
      }
    }
  } while (cursor !== '0');
  return traces;
}
