/**
 * A Lua script run by SHA with a fallback to the source, without `defineCommand`: the ticket store shares its
 * ioredis client with BullMQ, and adding custom commands to a shared client would be a side effect on it.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script with a fixed number of keys. */
export class LuaScript {
  /** SHA-1 of the source, as Redis' script cache names it. */
  readonly sha: string;

  /**
   * @param numberOfKeys keys every call passes
   * @param moreKeys true for a script that also takes a variable number of further keys after those
   */
  constructor(
    readonly source: string,
    readonly numberOfKeys: number,
    readonly moreKeys = false,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /**
   * Runs the script. EVALSHA first because the cache normally has it; EVAL on NOSCRIPT (after a restart or
   * SCRIPT FLUSH), which also loads it into the cache again.
   */
  async run(redis: Redis, keys: readonly string[], args: readonly (string | number | Buffer)[]): Promise<unknown> {
    if (this.moreKeys ? keys.length < this.numberOfKeys : keys.length !== this.numberOfKeys) {
      throw new TypeError(`Lua script expects ${this.moreKeys ? 'at least ' : ''}${this.numberOfKeys} keys, got ${keys.length}`);
    }
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('NOSCRIPT')) {
        return redis.eval(this.source, keys.length, ...keys, ...args);
      }
      throw err;
    }
  }
}
