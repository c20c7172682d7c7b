/** The shared real-world mail corpus (mikel/mail fixtures) that CI clones beside the repository as `../shared`. */
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Where the corpus lives: `../shared/corpora/mikel-mail` beside the repository. */
export const MAIL_CORPUS_DIR = path.resolve(import.meta.dirname, '../../../shared/corpora/mikel-mail');

/** Every raw mail of the corpus (its LICENSE left out) as paths relative to {@link MAIL_CORPUS_DIR}, sorted. */
export function mailCorpusFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : entry.name === 'LICENSE' ? [] : [path.join(dir, entry.name)]))
      .sort();
  return walk(MAIL_CORPUS_DIR).map((file) => path.relative(MAIL_CORPUS_DIR, file));
}
