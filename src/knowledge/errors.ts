/**
 * The one error type of knowledge loading, so callers (jobs, CLI) can print a single line that already names the
 * file and, where known, the line an operator has to fix.
 */

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
