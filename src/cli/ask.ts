/**
 * `npm run ask -- "<question>" [--json]`: runs the help-desk agent once, outside the mail pipeline, and prints the
 * final answer — or, with --json, the whole AgentResult (plan, subtasks, tool calls, sources, usage) as one JSON
 * object and nothing else on stdout. Without a question argument the question is read from stdin.
 */
import { Command } from 'commander';
import { createSearchBackends } from '../search/factory.js';
import { CliError, closeAll, noIndexMessage, readStdin, requireIndex, parseCommandLine, runCommand } from './common.js';
import { terminalSafe } from './format.js';

const program = new Command('ask')
  .description('Answer one question with the help-desk agent')
  .argument('[question...]', 'the question (read from stdin when omitted)')
  .option('--json', 'print the whole agent result as one JSON object')
  .option('--verbose', 'also print info log lines (at LOG_LEVEL) on stderr')
  .showHelpAfterError()
  .action(async (words: string[], opts: { json?: boolean; verbose?: boolean }) => {
    await runCommand('ask', async ({ config, logger, print }) => {
      let question = words.join(' ');
      if (!question.trim() && !process.stdin.isTTY) question = await readStdin();
      if (!question.trim()) throw new CliError('missing question: npm run ask -- "<question>"', 2);

      const backends = createSearchBackends(config);
      try {
        await requireIndex(backends.manual, 'manual');
        // Some deployments have no past Q&A yet; the agent still answers from the manual, so this only warns.
        if ((await backends.qa.count()) === 0) logger.warn(noIndexMessage('Q&A'));
        // Loaded only now: LangChain and LangGraph take seconds to import, which usage errors and a missing index
        // should not wait for.
        const { createHelpDeskAgent } = await import('../agent/create-agent.js');
        const agent = createHelpDeskAgent(config, { manual: backends.manual, qa: backends.qa });
        const result = await agent.runAgent(question);
        // The answer quotes search hits, learned pairs among them: text customers wrote, possibly escape sequences.
        print(opts.json ? JSON.stringify(result) : terminalSafe(result.answer));
      } finally {
        await closeAll(backends.manual, backends.qa);
      }
    }, { groups: ['search', 'knowledge', 'llm', 'agent'], quiet: true, verbose: opts.verbose ?? false });
  });

await parseCommandLine(program);
