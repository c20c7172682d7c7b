/**
 * Retention job: archives the final tickets past TICKET_RETENTION_DAYS to DATA_DIR/archive and drops the raw mail of
 * final tickets past RAW_MAIL_RETENTION_DAYS (see `src/tickets/retention.ts`). A plain handler of (data, context), so
 * `npm run review -- retention` runs it in the terminal and the maintenance worker runs it on its daily schedule.
 */
import type { Redis } from 'ioredis';
import type { Config } from '../src/config.js';
import { createLogger, type Logger } from '../src/logger.js';
import type { RetentionData } from '../src/queues/payloads.js';
import { recordRetention } from '../src/server/metrics.js';
import { archiveDir } from '../src/tickets/archive.js';
import { runRetention, type RetentionResult } from '../src/tickets/retention.js';
import { TicketStore } from '../src/tickets/ticket-store.js';

/** The job's data; the periods come from configuration, so a hand-made job cannot shorten them. */
export type RetentionJobData = RetentionData;

/** What the job runs against. */
export interface RetentionContext {
  config: Pick<Config, 'QUEUE_PREFIX' | 'DATA_DIR' | 'RAW_MAIL_RETENTION_DAYS' | 'TICKET_RETENTION_DAYS'>;
  /** A connection for commands (not a blocking one). */
  redis: Redis;
  logger?: Logger;
  /** Clock; tests pass a fixed one. */
  now?: () => Date;
}

/** Runs retention once and records what it did in the `/metrics` counters. */
export async function retention(data: RetentionJobData | undefined, ctx: RetentionContext): Promise<RetentionResult> {
  const logger = ctx.logger ?? createLogger('retention');
  const prefix = ctx.config.QUEUE_PREFIX;
  const result = await runRetention(
    { redis: ctx.redis, store: new TicketStore(ctx.redis, { prefix }), prefix, archiveDir: archiveDir(ctx.config.DATA_DIR), ...(ctx.now ? { now: ctx.now } : {}) },
    { rawMailDays: ctx.config.RAW_MAIL_RETENTION_DAYS, ticketDays: ctx.config.TICKET_RETENTION_DAYS },
  );
  await recordRetention(ctx.redis, prefix, result);
  logger.info({ trigger: data?.trigger, ...result }, 'retention finished');
  return result;
}
