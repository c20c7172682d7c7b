/**
 * `npm run knowledge -- trust [--json]`: each knowledge source's track record in review, as `REVIEW_MODE=learn`
 * judges it with the current TRUST_* settings (src/tickets/trust.ts). Registered on the `knowledge` command's program
 * by {@link registerTrustCommand}.
 */
import type { Command } from 'commander';
import { connectProducer, produce } from '../queues/connection.js';
import { listTrust, type TrustRecord, type TrustSettings } from '../tickets/trust.js';
import { runCommand } from './common.js';
import { displayWidth, padToWidth, terminalSafe } from './format.js';

/** The human table: trusted sources first, then by reviews. */
export function formatTrust(records: readonly TrustRecord[], settings: TrustSettings): string {
  const rules =
    `A source is trusted with at least ${settings.TRUST_MIN_REVIEWS} of its last ${settings.TRUST_WINDOW} reviews, ` +
    `${Math.round(settings.TRUST_MIN_AS_IS * 100)} % of them approved with an edit ratio up to ${settings.TRUST_MAX_EDIT_RATIO}.`;
  if (records.length === 0) return `No source has been reviewed yet.\n${rules}`;
  const sorted = [...records].sort((a, b) => Number(b.trusted) - Number(a.trusted) || b.reviews - a.reviews || a.sourceId.localeCompare(b.sourceId));
  const rows = sorted.map((r) => [r.trusted ? 'trusted' : 'not yet', `${r.approvedAsIs}/${r.reviews}`, r.sourceId, r.missing ?? '']);
  const header = ['STATUS', 'AS IS', 'SOURCE', 'MISSING'];
  const widths = header.map((h, i) => Math.max(displayWidth(h), ...rows.map((row) => displayWidth(row[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => padToWidth(c, widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const trusted = records.filter((r) => r.trusted).length;
  return [line(header), ...rows.map(line), '', `${trusted} of ${records.length} sources trusted. ${rules}`].join('\n');
}

/** Adds `trust [--json]` to the `knowledge` program. */
export function registerTrustCommand(program: Command): Command {
  return program
    .command('trust')
    .description('List each knowledge source’s record in review and whether REVIEW_MODE=learn trusts it')
    .option('--json', 'print one JSON array of records')
    .action(async (opts: { json?: boolean }) => {
      await runCommand(
        'knowledge trust',
        async (ctx) => {
          const redis = await connectProducer(ctx.config.REDIS_URL, { name: `${ctx.config.QUEUE_PREFIX}:knowledge-cli`, timeoutMs: 5_000, giveUpOnError: true });
          try {
            const records = await produce(redis, () => listTrust(redis, ctx.config.QUEUE_PREFIX, ctx.config));
            ctx.print(opts.json ? JSON.stringify(records) : terminalSafe(formatTrust(records, ctx.config)));
          } finally {
            await redis.quit().catch(() => redis.disconnect());
          }
        },
        { quiet: true, groups: ['pipeline'] },
      );
    });
}
