/**
 * Reindex job of the product manual: read and chunk every manual file, then swap the new chunks into the manual
 * search in one step. Written as a plain handler of (data, context) so the CLI calls it directly and a BullMQ
 * worker can call it with `job.data` and `job.updateProgress`.
 */
import path from 'node:path';
import { z } from 'zod';
import type { Config } from '../src/config.js';
import { EmptySourceError, parseJobData } from '../src/knowledge/errors.js';
import { loadManualChunks, type SkippedManualFile } from '../src/knowledge/manual-loader.js';
import { createLogger, type Logger } from '../src/logger.js';
import type { ManualSearch, ProgressFn } from '../src/search/types.js';

/** Job payload; every field is optional and falls back to configuration. */
export const reindexManualJobDataSchema = z
  .object({
    /** Manual directory instead of MANUALS_DIR. */
    dir: z.string().min(1).optional(),
    /** Chunk size instead of CHUNK_SIZE (same bounds). */
    chunkSize: z.number().int().min(50).max(10000).optional(),
    /** Chunk overlap instead of CHUNK_OVERLAP; must stay below the chunk size in effect. */
    chunkOverlap: z.number().int().min(0).max(5000).optional(),
  })
  .default({});
export type ReindexManualJobData = z.input<typeof reindexManualJobDataSchema>;

/** What a manual reindex did. */
export interface ReindexManualResult {
  /** Manual files read. */
  files: number;
  /** Files read per folder of the manual directory (`.` for the top), for the summary. */
  folders?: Record<string, number>;
  /** Folders (`.` for the top) that hold no readable manual file; each was logged as a warning. */
  emptyFolders?: string[];
  /**
   * The first {@link MAX_SKIPPED_IN_RESULT} files left out (unreadable, over a budget, a type not read), each with its
   * reason and fix; each was warned about and the log names all. The start page reads them from the completed job
   * (`readLastManualReindex`), so keep the field's name and shape.
   */
  skipped?: SkippedManualFile[];
  /** Files left out in all; absent in results recorded before it, whose `skipped` names every one. */
  skippedCount?: number;
  /** Chunks now in the index. */
  chunks: number;
  /** Wall time of the whole job. */
  seconds: number;
}

/**
 * Skipped files a result names. BullMQ stores the result with the job and the start page reads the newest 30
 * maintenance jobs on every view: a folder of 20,000 old `.doc` files made each result megabytes and each view slow.
 * The start page names 20, the CLI's summary 10; the count says how many more.
 */
export const MAX_SKIPPED_IN_RESULT = 100;

/** What the job runs against. */
export interface ReindexManualContext {
  config: Config;
  manual: ManualSearch;
  /** Stages: `read` (files), then whatever the search backend reports while building. */
  onProgress?: ProgressFn;
  logger?: Logger;
}

/**
 * Rebuilds the manual index from the manual directory.
 *
 * @throws TypeError on invalid data, KnowledgeError when the directory is missing (a file its reader refuses is
 *   skipped), the file system's error when a file cannot be read from the disk (EIO, EACCES, ENOENT: the live index
 *   stays), {@link EmptySourceError} when the directory yields no chunks while the live index has some.
 */
export async function reindexManual(data: ReindexManualJobData | undefined, ctx: ReindexManualContext): Promise<ReindexManualResult> {
  const started = performance.now();
  const logger = ctx.logger ?? createLogger('reindex-manual');
  const input = parseJobData(reindexManualJobDataSchema, data, 'reindex-manual');
  const dir = path.resolve(input.dir ?? ctx.config.MANUALS_DIR);
  const chunkSize = input.chunkSize ?? ctx.config.CHUNK_SIZE;
  const chunkOverlap = input.chunkOverlap ?? ctx.config.CHUNK_OVERLAP;
  if (chunkOverlap >= chunkSize) {
    throw new RangeError(`reindex-manual: chunk overlap ${chunkOverlap} must be smaller than chunk size ${chunkSize}`);
  }

  logger.info({ dir, chunkSize, chunkOverlap, backend: ctx.manual.kind }, 'reindexing manual');
  const { files, chunks, perFolder, emptyFolders, skipped } = await loadManualChunks(dir, { chunkSize, chunkOverlap, logger, onProgress: ctx.onProgress });
  if (chunks.length === 0) {
    const live = await ctx.manual.count();
    if (live > 0) {
      throw new EmptySourceError(
        `no manual chunks found in ${dir} (${files.length} readable files); refusing to replace the live manual index of ${live} chunks`,
      );
    }
    logger.warn({ dir }, 'no manual chunks found; the manual index stays empty');
  }
  await ctx.manual.replaceAll(chunks, ctx.onProgress);

  const seconds = (performance.now() - started) / 1000;
  const skippedNames = skipped.map((s) => s.fileName);
  const skippedNote = skipped.length > 0 ? `; skipped ${skipped.length === 1 ? '1 file' : `${skipped.length} files`}: ${skippedNames.join(', ')}` : '';
  logger.info({ files: files.length, chunks: chunks.length, folders: perFolder, skipped: skippedNames, seconds }, `manual reindexed${skippedNote}`);
  return { files: files.length, chunks: chunks.length, folders: perFolder, emptyFolders, skipped: skipped.slice(0, MAX_SKIPPED_IN_RESULT), skippedCount: skipped.length, seconds };
}
