/**
 * `npm run knowledge -- trust [--json]`: each knowledge source's track record in review, as `REVIEW_MODE=learn`
 * judges it with the current TRUST_* settings (src/tickets/trust.ts), and the sources reviewers corrected.
 * `trust --drop-review <ticket id>` withdraws one ticket's review (a mistaken approval) from every source's record, and
 * closes the gaps of corrections that no longer block a source.
 * Registered on the `knowledge` command's program by {@link registerTrustCommand}.
 */
import type { Command } from 'commander';
import { connectProducer, produce } from '../queues/connection.js';
import { TICKET_ID_PATTERN } from '../tickets/ticket.js';
import { withdrawReview } from '../knowledge/gaps.js';
import { listTrust, sourceLabelOfId, type DroppedReview, type TrustRecord, type TrustSettings } from '../tickets/trust.js';
import { CliError, runCommand, USAGE_EXIT_CODE } from './common.js';
import { displayWidth, padToWidth, terminalSafe } from './format.js';

/** The human table: trusted sources first, then by reviews; then the sources reviewers corrected. */
export function formatTrust(records: readonly TrustRecord[], settings: TrustSettings): string {
  const rules =
    `A source is trusted with at least ${settings.TRUST_MIN_REVIEWS} of its last ${settings.TRUST_WINDOW} reviews, ` +
    `${Math.round(settings.TRUST_MIN_AS_IS * 100)} % of them approved with an edit ratio up to ${settings.TRUST_MAX_EDIT_RATIO}.`;
  if (records.length === 0) return `No source has been reviewed yet.\n${rules}`;
  const sorted = [...records].sort((a, b) => Number(b.trusted) - Number(a.trusted) || b.reviews - a.reviews || a.sourceId.localeCompare(b.sourceId));
  // A corrected text an answer has since cited a newer text of in its place: nothing left to fix (it stays untrusted).
  const rows = sorted.map((r) => [r.trusted ? 'trusted' : 'not yet', `${r.approvedAsIs}/${r.reviews}`, r.sourceId, r.supersededBy ? `replaced by ${r.supersededBy}` : (r.missing ?? '')]);
  const header = ['STATUS', 'AS IS', 'SOURCE', 'MISSING'];
  const widths = header.map((h, i) => Math.max(displayWidth(h), ...rows.map((row) => displayWidth(row[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => padToWidth(c, widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const trusted = records.filter((r) => r.trusted).length;
  return [line(header), ...rows.map(line), '', `${trusted} of ${records.length} sources trusted. ${rules}`, ...formatCorrections(sorted)].join('\n');
}

/**
 * The corrected sources under the table: one line per correction, `corrected on ticket …`, saying whether the source
 * said the value taken out (then it is not trusted until its text is fixed and reindexed).
 */
function formatCorrections(records: readonly TrustRecord[]): string[] {
  const corrected = records.filter((r) => r.corrections && r.corrections.length > 0);
  if (corrected.length === 0) return [];
  const lines = corrected.flatMap((r) =>
    (r.corrections ?? []).map((c) => {
      const what = r.supersededBy
        ? `replaced by ${r.supersededBy}, which answers have cited since`
        : c.held
          ? `its text says ${c.values.join(', ')}: fix it and reindex`
          : 'no cited source says the value taken out: check it';
      return `  ${c.label || sourceLabelOfId(r.sourceId)} (${r.sourceId}): corrected on ticket ${c.ticketId} at ${c.at}; ${what}`;
    }),
  );
  return ['', 'Corrected by reviewers (withdraw a mistaken one with --drop-review <ticket id>):', ...lines];
}

/** What `--drop-review` changed, one line per source: its record before and after. */
export function formatDroppedReview(ticketId: string, changes: readonly DroppedReview[], closedGaps = 0): string {
  if (changes.length === 0) return `No source holds a review or correction of ticket ${ticketId}; nothing changed.`;
  const state = (r: TrustRecord) => `${r.trusted ? 'trusted' : 'not yet'} ${r.approvedAsIs}/${r.reviews}`;
  const lines = changes.map((c) => {
    const what = [c.reviews > 0 ? `${c.reviews} review${c.reviews === 1 ? '' : 's'}` : '', c.corrections > 0 ? `${c.corrections} correction${c.corrections === 1 ? '' : 's'}` : '']
      .filter(Boolean)
      .join(' and ');
    return `  ${c.sourceId}: ${what} removed; ${state(c.before)} → ${state(c.after)}`;
  });
  const gaps = closedGaps > 0 ? [`Closed ${closedGaps} gap${closedGaps === 1 ? '' : 's'} that asked to fix a source only this review had corrected.`] : [];
  return [`Withdrew ticket ${ticketId}'s review from ${changes.length} source${changes.length === 1 ? '' : 's'}:`, ...lines, ...gaps].join('\n');
}

/** Adds `trust [--json] [--drop-review <ticket id>]` to the `knowledge` program. */
export function registerTrustCommand(program: Command): Command {
  return program
    .command('trust')
    .description('List each knowledge source’s record in review and whether REVIEW_MODE=learn trusts it, and the sources reviewers corrected')
    .option('--json', 'print one JSON array of records (with --drop-review: of the changes)')
    .option('--drop-review <ticketId>', 'withdraw that ticket’s review (a mistaken approval, or its correction) from every source’s record')
    .action(async (opts: { json?: boolean; dropReview?: string }) => {
      await runCommand(
        'knowledge trust',
        async (ctx) => {
          const ticketId = opts.dropReview?.trim().toLowerCase();
          if (ticketId !== undefined && !TICKET_ID_PATTERN.test(ticketId)) {
            throw new CliError(`--drop-review takes a ticket's full id (64 hex characters), got ${JSON.stringify(opts.dropReview)}`, USAGE_EXIT_CODE);
          }
          const redis = await connectProducer(ctx.config.REDIS_URL, { name: `${ctx.config.QUEUE_PREFIX}:knowledge-cli`, timeoutMs: 5_000, giveUpOnError: true });
          try {
            if (ticketId !== undefined) {
              const { changes, closedGaps } = await produce(redis, () => withdrawReview({ redis, prefix: ctx.config.QUEUE_PREFIX }, ticketId, ctx.config));
              ctx.print(opts.json ? JSON.stringify(changes) : terminalSafe(formatDroppedReview(ticketId, changes, closedGaps.length)));
              return;
            }
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
