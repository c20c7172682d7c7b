/**
 * Error types of knowledge loading and reindexing, so callers (jobs, CLI) can print a single line that already
 * names the file and, where known, the line an operator has to fix.
 */
import type { z } from 'zod';

/** A manual or Q&A source that cannot be read; the message starts with the file (and line) at fault. */
export class KnowledgeError extends Error {
  constructor(
    message: string,
    /** Path of the offending file or directory as given to the loader. */
    readonly file: string,
    /** 1-based line of the problem, when the parser reported one. */
    readonly line?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KnowledgeError';
  }
}

/** Message of any thrown value, for wrapping library errors into a {@link KnowledgeError}. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A reindex found nothing to index while the live index has content. Replacing would silently empty search (e.g.
 * after a mount failed or a directory was moved), so the job refuses instead.
 */
export class EmptySourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmptySourceError';
  }
}

/** Validates a job payload, turning schema issues into one readable line prefixed with the job name. */
export function parseJobData<T>(schema: z.ZodType<T>, data: unknown, job: string): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || 'data'}: ${i.message}`);
  throw new TypeError(`${job}: invalid job data: ${problems.join('; ')}`);
}
