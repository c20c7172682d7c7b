/**
 * Reindex job of the past questions and answers: read every Q&A CSV file and workbook, then swap the pairs into the Q&A search in one
 * step (the backend embeds them, reusing cached vectors of unchanged pairs). A plain handler of (data, context), so
 * the CLI calls it directly and a BullMQ worker can call it with `job.data` and `job.updateProgress`.
 */
import path from 'node:path';
import { z } from 'zod';
import type { Config } from '../src/config.js';
import { EmptySourceError, parseJobData } from '../src/knowledge/errors.js';
import { loadQaPairs, type PassedOverQaTable } from '../src/knowledge/qa-loader.js';
import { ownDomains, ownMailboxesOf } from '../src/mail/classify.js';
import { createLogger, type Logger } from '../src/logger.js';
import type { ProgressFn, QaPair, QaSearch } from '../src/search/types.js';

/** Job payload; every field is optional and falls back to configuration. */
export const reindexQaJobDataSchema = z
  .object({
    /** Q&A directory instead of QA_DIR. */
    dir: z.string().min(1).optional(),
  })
  .default({});
export type ReindexQaJobData = z.input<typeof reindexQaJobDataSchema>;

/** What a Q&A reindex did. */
export interface ReindexQaResult {
  /** CSV files and workbooks read. */
  files: number;
  /** Pairs now in the index. */
  pairs: number;
  /** Of those, learned pairs (accepted on the Knowledge page) indexed beside the CSVs. */
  learned: number;
  /**
   * Rows left out (each logged with file and row): the question or answer was empty, or the row is a learned pair's
   * copy (`learnedCopies`).
   */
  skipped: number;
  /**
   * Of the skipped rows, copies of learned pairs: the Knowledge page's export put into QA_DIR. The pairs are indexed
   * from the store (`learned`), once; a copy of a removed pair stays out. Absent in results recorded before it.
   */
  learnedCopies?: number;
  /**
   * Files and sheets not read at all (a count or revision sheet: no text but ids, numbers or dates), each with why;
   * shown after the run so the person who ran it sees them, not only the log. Absent in results recorded before it.
   */
  passedOver: PassedOverQaTable[];
  /** Wall time of the whole job. */
  seconds: number;
}

/** What the job runs against. */
export interface ReindexQaContext {
  config: Config;
  qa: QaSearch;
  /** Stages: `read` (files), then whatever the search backend reports while embedding and building. */
  onProgress?: ProgressFn;
  logger?: Logger;
  /**
   * The accepted learned pairs (src/knowledge/learned-answers.ts), indexed beside the CSVs so a rebuild keeps them.
   * Without it the rebuild holds the CSVs only; the embedded index still merges learned pairs in from Redis when it
   * searches, a server backend (Qdrant) would lose them until they are accepted again, so its callers pass it.
   */
  learned?: () => Promise<QaPair[]>;
}

/**
 * Rebuilds the Q&A index from the Q&A directory.
 *
 * @throws TypeError on invalid data, KnowledgeError when a CSV is malformed (nothing is replaced),
 *   {@link EmptySourceError} when the directory yields no pairs while the live index has some.
 */
export async function reindexQa(data: ReindexQaJobData | undefined, ctx: ReindexQaContext): Promise<ReindexQaResult> {
  const started = performance.now();
  const logger = ctx.logger ?? createLogger('reindex-qa');
  const input = parseJobData(reindexQaJobDataSchema, data, 'reindex-qa');
  const dir = path.resolve(input.dir ?? ctx.config.QA_DIR);

  logger.info({ dir, backend: ctx.qa.kind }, 'reindexing Q&A');
  // An address on our own domains in a FAQ answer is the desk's, which the scrub of the pairs keeps; a desk on a
  // shared mail domain (gmail.com) has none, or every customer's address there would stay.
  const loaded = await loadQaPairs(dir, { logger, onProgress: ctx.onProgress, ownDomains: ownDomains(ownMailboxesOf(ctx.config)) });
  const { files, skipped, passedOver } = loaded;
  const learnedCopies = skipped.filter((row) => row.learnedPair !== undefined).length;
  const learned = (await ctx.learned?.()) ?? [];
  const pairs = [...loaded.pairs, ...learned];
  if (pairs.length === 0) {
    const live = await ctx.qa.count();
    if (live > 0) {
      throw new EmptySourceError(
        `no Q&A pairs found in ${dir} (${files.length} CSV files); refusing to replace the live Q&A index of ${live} pairs`,
      );
    }
    logger.warn({ dir }, 'no Q&A pairs found; the Q&A index stays empty');
  }
  await ctx.qa.replaceAll(pairs, ctx.onProgress);

  const seconds = (performance.now() - started) / 1000;
  logger.info(
    { files: files.length, pairs: pairs.length, learned: learned.length, skipped: skipped.length, learnedCopies, passedOver: passedOver.map((t) => t.table), seconds },
    'Q&A reindexed',
  );
  return { files: files.length, pairs: pairs.length, learned: learned.length, skipped: skipped.length, learnedCopies, passedOver, seconds };
}
