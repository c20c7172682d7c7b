/**
 * `npm run reindex [-- --manual-only | --qa-only] [--json]`: rebuilds the manual and Q&A indexes from MANUALS_DIR
 * and QA_DIR with the same jobs the scheduler runs, then prints one summary line (or, with --json, one JSON object)
 * on stdout. Progress goes to stderr.
 */
import { Command, Option } from 'commander';
import { reindexManual } from '../../jobs/reindex-manual.js';
import { reindexQa } from '../../jobs/reindex-qa.js';
import { createSearchBackends } from '../search/factory.js';
import { closeAll, runCommand } from './common.js';
import { formatReindexSummary, type ReindexSummary } from './format.js';
import { createProgressReporter } from './progress.js';

const program = new Command('reindex')
  .description('Rebuild the manual and Q&A search indexes from MANUALS_DIR and QA_DIR')
  .addOption(new Option('--manual-only', 'only the manual').conflicts('qaOnly'))
  .addOption(new Option('--qa-only', 'only the Q&A pairs').conflicts('manualOnly'))
  .option('--json', 'print the result as one JSON object')
  .showHelpAfterError()
  .action(async (opts: { manualOnly?: boolean; qaOnly?: boolean; json?: boolean }) => {
    await runCommand('reindex', async ({ config, logger, print }) => {
      const started = performance.now();
      const backends = createSearchBackends(config);
      const progress = createProgressReporter(logger);
      const summary: ReindexSummary = { seconds: 0 };
      try {
        // Manual first: it needs no LLM server, so a missing embeddings server still leaves the manual searchable.
        if (!opts.qaOnly) {
          summary.manual = await reindexManual({}, { config, manual: backends.manual, onProgress: progress.track('manual'), logger });
        }
        if (!opts.manualOnly) {
          summary.qa = await reindexQa({}, { config, qa: backends.qa, onProgress: progress.track('Q&A'), logger });
        }
      } finally {
        progress.stop();
        await closeAll(backends.manual, backends.qa);
      }
      summary.seconds = (performance.now() - started) / 1000;
      print(opts.json ? JSON.stringify(summary) : formatReindexSummary(summary));
    });
  });

await program.parseAsync();
