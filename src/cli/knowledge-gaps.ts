/**
 * `npm run knowledge -- gaps [--json] [--all] [--limit N]`: the knowledge gaps (src/knowledge/gaps.ts) — the topics
 * the agent could not answer or whose drafts were rejected, largest first: what to write into the manual next.
 * `--all` adds the closed gaps (most recently closed first) with the ticket whose answer closed each.
 *
 * Only the command is defined here; the `knowledge` entry registers it with {@link registerGapsCommand}.
 */
import type { Command } from 'commander';
import { GapStore, type GapList, type KnowledgeGap } from '../knowledge/gaps.js';
import { connectProducer, produce } from '../queues/connection.js';
import { deskTimeZone } from '../tickets/local-day.js';
import { CliError, plural, runCommand } from './common.js';
import { shownTime, terminalSafe } from './format.js';

/** Characters of a ticket id shown (what `review list` prints and `review show` accepts). */
const SHORT_ID = 12;
/** Ticket ids listed per gap in the human output; `--json` has them all. */
const TICKETS_SHOWN = 5;

/** The human output of `gaps`, its times in `timeZone` (the desk's by default), the zone named, as `review list` shows them. */
export function formatGaps(list: GapList, options: { all?: boolean; timeZone?: string } = {}): string {
  const timeZone = options.timeZone ?? deskTimeZone();
  const out: string[] = [];
  if (list.open.length === 0) out.push('No open knowledge gaps: every recent question was answered.');
  else {
    const shown = list.open.length < list.openTotal ? ` (the ${list.open.length} largest)` : '';
    out.push(`${plural(list.openTotal, 'open knowledge gap')}, largest first${shown}:`);
    for (const gap of list.open) out.push('', ...formatGap(gap, timeZone));
  }
  if (options.all) {
    out.push('', list.closed.length === 0 ? 'No closed knowledge gaps.' : `${plural(list.closedTotal, 'closed knowledge gap')}, most recently closed first:`);
    for (const gap of list.closed) out.push('', ...formatGap(gap, timeZone));
  } else if (list.closedTotal > 0) {
    out.push('', `${plural(list.closedTotal, 'closed gap')} not shown (--all shows them)`);
  }
  return out.join('\n');
}

function formatGap(gap: KnowledgeGap, timeZone: string): string[] {
  const lines = [`● ${plural(gap.count, 'ticket')} · first ${shownTime(gap.firstSeen, timeZone)} · last ${shownTime(gap.lastSeen, timeZone)} · gap ${gap.id}`];
  for (const example of gap.examples) lines.push(`  「${example}」`);
  const more = gap.count > TICKETS_SHOWN ? `, … (${gap.count} in all)` : '';
  lines.push(`  tickets: ${gap.tickets.slice(0, TICKETS_SHOWN).map((t) => t.slice(0, SHORT_ID)).join(', ')}${more}`);
  if (gap.closedAt) {
    lines.push(`  closed ${shownTime(gap.closedAt, timeZone)} by ticket ${gap.closedBy?.slice(0, SHORT_ID) ?? '?'}${gap.closedByQuestion ? `: 「${gap.closedByQuestion}」` : ''}`);
  }
  return lines;
}

/** Adds `gaps` to `program` (the `knowledge` command line). */
export function registerGapsCommand(program: Command): Command {
  return program
    .command('gaps')
    .description('List the knowledge gaps, largest first: questions the knowledge base could not answer, grouped by topic')
    .option('--json', 'print one JSON object: { open, closed, openTotal, closedTotal }')
    .option('--all', 'also list the closed gaps, most recently closed first')
    .option('--limit <n>', 'at most this many gaps per list (1–1000)')
    .action(async (opts: { json?: boolean; all?: boolean; limit?: string }) => {
      await runCommand(
        'knowledge',
        async (ctx) => {
          const limit = opts.limit === undefined ? undefined : Number(opts.limit);
          if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 1000)) throw new CliError('--limit must be a whole number from 1 to 1000', 2);
          const redis = await connectProducer(ctx.config.REDIS_URL, { name: `${ctx.config.QUEUE_PREFIX}:knowledge-cli`, timeoutMs: 5_000, giveUpOnError: true });
          try {
            const gaps = new GapStore(redis, { prefix: ctx.config.QUEUE_PREFIX });
            const list = await produce(redis, () => gaps.list({ includeClosed: opts.all === true, ...(limit !== undefined ? { limit } : {}) }));
            ctx.print(opts.json ? JSON.stringify(list) : terminalSafe(formatGaps(list, { all: opts.all === true })));
          } finally {
            await redis.quit().catch(() => redis.disconnect());
          }
        },
        { groups: [] },
      );
    });
}
