/**
 * `GET /api/knowledge/gaps`: the knowledge gaps (src/knowledge/gaps.ts) as JSON, open ones largest first; `?all=1`
 * adds the closed ones, `?limit=N` cuts each list. The same object `npm run knowledge -- gaps --json` prints.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { GapStore } from '../knowledge/gaps.js';
import { parseInput, type Handler } from './http.js';

const gapsQuerySchema = z
  .object({
    all: z.enum(['0', '1', 'true', 'false'], { error: 'must be 1 or 0' }).optional(),
    limit: z.coerce.number().int().min(1).max(1000).optional(),
  })
  .strict();

/** The handler of `GET /api/knowledge/gaps`. */
export function gapsApiHandler(deps: { redis: Redis; prefix: string }): Handler {
  const gaps = new GapStore(deps.redis, { prefix: deps.prefix });
  return async ({ query }) => {
    const q = parseInput(gapsQuerySchema, query, 'query');
    const list = await gaps.list({ includeClosed: q.all === '1' || q.all === 'true', ...(q.limit !== undefined ? { limit: q.limit } : {}) });
    return { status: 200, json: list, headers: { 'X-Total-Count': String(list.openTotal) } };
  };
}
