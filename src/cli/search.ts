/**
 * `npm run search -- manual|qa "<text>" [--k N] [--json]` and `npm run search -- manual|qa --batch FILE [--json]`:
 * runs the agent's searches by hand, to check what the agent will see for a query. With --json stdout holds one
 * JSON array of `{fileName, content, score}` per query, one per line in query order.
 */
import { readFile } from 'node:fs/promises';
import { Argument, Command, InvalidArgumentError } from 'commander';
import { createSearchBackends } from '../search/factory.js';
import type { ManualSearch, QaSearch } from '../search/types.js';
import { CliError, closeAll, readStdin, requireIndex, parseCommandLine, runCommand } from './common.js';
import { batchQueries, formatHits, terminalSafe, toJsonHit } from './format.js';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

interface SearchOptions {
  k: number;
  verbose?: boolean;
  json?: boolean;
  batch?: string;
}

const program = new Command('search')
  .description('Search the manual (full text) or the past Q&A pairs (similarity) as the agent does')
  .addArgument(new Argument('<index>', 'which index').choices(['manual', 'qa']))
  .argument('[text...]', 'the query')
  .option('--k <n>', 'number of results', positiveInt, 3)
  .option('--json', 'print a JSON array of {fileName, content, score} per query')
  .option('--batch <file>', 'read one query per line from FILE (- for stdin)')
  .option('--verbose', 'also print info log lines (at LOG_LEVEL) on stderr')
  .showHelpAfterError()
  .action(async (index: 'manual' | 'qa', words: string[], opts: SearchOptions) => {
    await runCommand('search', async ({ config, print }) => {
      const text = words.join(' ').trim();
      if (opts.batch !== undefined && text) throw new CliError('give either a query or --batch FILE, not both', 2);
      if (opts.batch === undefined && !text) throw new CliError('missing query (or --batch FILE)', 2);
      let queries: string[];
      if (opts.batch === undefined) queries = [text];
      else {
        try {
          queries = batchQueries(opts.batch === '-' ? await readStdin() : await readFile(opts.batch, 'utf8'));
        } catch (err) {
          throw new CliError(`cannot read batch file ${opts.batch}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
        }
      }

      const backends = createSearchBackends(config);
      const search: ManualSearch | QaSearch = index === 'manual' ? backends.manual : backends.qa;
      try {
        await requireIndex(search, index === 'manual' ? 'manual' : 'Q&A');
        for (const query of queries) {
          const hits = query.trim() ? await search.search(query, opts.k) : [];
          if (opts.json) print(JSON.stringify(hits.map(toJsonHit)));
          // Hits hold what customers wrote (learned pairs); a pair may hold an escape sequence for the terminal.
          else print(terminalSafe(queries.length > 1 ? `## ${query}\n${formatHits(hits)}\n` : formatHits(hits)));
        }
      } finally {
        await closeAll(backends.manual, backends.qa);
      }
    }, { groups: ['search', 'knowledge', 'llm'], quiet: true, verbose: opts.verbose ?? false });
  });

await parseCommandLine(program);
