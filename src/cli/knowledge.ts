/**
 * `npm run knowledge -- <command>`: the learned answers from a terminal (the Knowledge page's twin).
 *
 * - `list [--json]`: candidates waiting (with the ticket they came from, the pair they would update and the scrub's
 *   counts), then the accepted pairs.
 * - `show <id> [--json]`: one candidate or accepted pair in full (`<id>` is the number, `learned#<n>` works too).
 * - `accept <id> [--question Q] [--answer A] [--by NAME] [--new]`: store a candidate (optionally edited) as a pair;
 *   a candidate close to an accepted pair updates that pair unless `--new` is given.
 * - `edit <id> [--question Q] [--answer A] [--by NAME]`: change a candidate before accepting it.
 * - `discard <id>`: drop a candidate.
 * - `remove <id>`: take an accepted pair out of the knowledge base.
 * - `restore <id> [--version N] [--stamp S] [--by NAME]`: put back a previous answer of a pair (`show learned#<n>` lists
 *   them, 1, the default, is the latest, and prints the stamp, which refuses a restore of a pair changed since); the
 *   text it replaces becomes the newest previous answer.
 * - `export FILE`: the accepted pairs as CSV (`question,answer` plus provenance); `-` prints to stdout.
 *
 * Results go to stdout, logs and errors to stderr; an unknown id or bad input ends with one line and exit code 1.
 */
import { writeFile } from 'node:fs/promises';
import { Command } from 'commander';
import type { Redis } from 'ioredis';
import {
  acceptLearned,
  describeApproval,
  isCorrection,
  learnedPairIdOf,
  learnedPairsCsv,
  LearnedAnswerStore,
  MAX_PREVIOUS_ANSWERS,
  pairCorrected,
  pairStamp,
  removeLearned,
  restoreLearned,
  type LearnedCandidate,
  type LearnedPair,
  type UpdateTarget,
} from '../knowledge/learned-answers.js';
import { connectProducer, produce } from '../queues/connection.js';
import { createSearchBackends } from '../search/factory.js';
import { draftPlaceholders } from '../tickets/draft-placeholders.js';
import type { QaSearch } from '../search/types.js';
import { CliError, closeAll, operatorName, parseCommandLine, runCommand, type CliContext } from './common.js';
import { cut, shownTime, terminalSafe } from './format.js';
import { registerGapsCommand } from './knowledge-gaps.js';
import { registerTrustCommand } from './knowledge-trust.js';

interface Session {
  redis: Redis;
  learned: LearnedAnswerStore;
}

async function withLearned<T>(ctx: CliContext, body: (session: Session) => Promise<T>): Promise<T> {
  const redis = await connectProducer(ctx.config.REDIS_URL, { name: `${ctx.config.QUEUE_PREFIX}:knowledge-cli`, timeoutMs: 5_000, giveUpOnError: true });
  try {
    return await body({ redis, learned: new LearnedAnswerStore(redis, { prefix: ctx.config.QUEUE_PREFIX }) });
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

/**
 * The Q&A backend that stores learned pairs itself (Qdrant), or undefined: the embedded index reads them from
 * Redis, so the CLI has nothing to hand it.
 */
async function withIndex<T>(ctx: CliContext, body: (qa: QaSearch | undefined) => Promise<T>): Promise<T> {
  if (!ctx.config.QDRANT_URL) return body(undefined);
  const backends = createSearchBackends(ctx.config);
  try {
    return await body(backends.qa);
  } finally {
    await closeAll(backends.manual, backends.qa);
  }
}

/** The number of `ref` (`12` or `learned#12`), or a usage error. */
export function parseLearnedId(ref: string): number {
  const id = learnedPairIdOf(ref.trim()) ?? (/^\d+$/.test(ref.trim()) ? Number(ref.trim()) : undefined);
  if (id === undefined || !Number.isSafeInteger(id) || id < 1) throw new CliError(`not a learned-answer id: ${ref} (give the number list prints, e.g. 12 or learned#12)`, 2);
  return id;
}

/** The lines of a candidate in `list`: its id, ticket and question, then what the scrub did to it. */
function candidateLine(c: LearnedCandidate, target: UpdateTarget | undefined): string {
  const update = target ? `  update of learned#${target.pair.id} (similarity ${target.similarity.toFixed(2)})${replacesCorrection(c, target) ? ' REPLACES A CORRECTION' : ''}` : '';
  return `${String(c.id).padStart(4)}  ticket ${c.ticketId.slice(0, 12)}  ${cut(oneLine(c.question), 60)}${update}\n      ${scrubLine(c.scrub)}`;
}

/**
 * Every count of the scrub, zeros too, so a reader of the list sees which candidates lost a customer's link or hidden
 * text before opening one.
 */
function scrubLine(scrub: LearnedCandidate['scrub']): string {
  const model = `model pass ${scrub.modelPass}${scrub.modelError ? ` (${oneLine(scrub.modelError)})` : ''}`;
  return `scrubbed: personal data ${scrub.replaced}, links ${scrub.linksReplaced ?? 0}, invisible characters ${scrub.invisibleRemoved ?? 0}; ${model}`;
}

function pairLine(p: LearnedPair): string {
  return `learned#${p.id}  ticket ${p.ticketId.slice(0, 12)}  by ${p.acceptedBy} ${shownTime(p.acceptedAt)}  ${cut(oneLine(p.question), 60)}`;
}

/** The human `list` output. */
export function formatLearnedList(candidates: readonly { candidate: LearnedCandidate; target: UpdateTarget | undefined }[], pairs: readonly LearnedPair[]): string {
  const out = [`Candidates (${candidates.length})`];
  out.push(...(candidates.length ? candidates.map(({ candidate, target }) => candidateLine(candidate, target)) : ['  (none)']));
  out.push('', `Accepted pairs (${pairs.length})`);
  out.push(...(pairs.length ? pairs.map(pairLine) : ['  (none)']));
  return out.join('\n');
}

/** True when accepting `c` would replace a reviewer's correction with a text no reviewer corrected (audit H4). */
function replacesCorrection(c: LearnedCandidate, target: UpdateTarget): boolean {
  return pairCorrected(target.pair) && !isCorrection(c.approval);
}

function formatCandidate(c: LearnedCandidate, target: UpdateTarget | undefined): string {
  const lines = [
    `Candidate ${c.id}`,
    `From ticket: ${c.ticketId}`,
    `Proposed:    ${shownTime(c.proposedAt)} (split by ${c.origin}${c.distilError ? `; the model failed: ${c.distilError}` : ''})`,
    `Scrubbed:    ${c.scrub.replaced} piece(s) of personal data replaced; model pass ${c.scrub.modelPass}${c.scrub.modelError ? ` (${c.scrub.modelError})` : ''}`,
  ];
  if (c.editedBy) lines.push(`Edited by:   ${c.editedBy}`);
  lines.push(`Approval:    ${describeApproval(c.approval)}${c.proposedAnswer !== undefined && c.proposedAnswer !== c.answer ? '; its answer was edited since it was proposed (the approvals of the reply do not vouch for it)' : ''}`);
  if (target) lines.push(`Update of:   learned#${target.pair.id} (similarity ${target.similarity.toFixed(2)}): ${oneLine(target.pair.question)}`);
  lines.push('', 'Question:', c.question, '', 'Answer:', c.answer);
  const placeholders = draftPlaceholders(c.answer);
  if (placeholders.length > 0) {
    lines.push('', `Warning: ${placeholderWarning(placeholders)}. Edit it first: \`npm run knowledge -- edit ${c.id} --answer '…'\` (or accept it with --answer '…').`);
  }
  if (target) {
    lines.push('', `learned#${target.pair.id}'s current answer (${describeApproval(target.pair.approval, target.pair.answerEdited)}), which accepting replaces:`, target.pair.answer);
    if (replacesCorrection(c, target)) {
      lines.push('', `Warning: that answer is a reviewer's correction, and this candidate's approval did not correct the draft: it may bring back what the correction fixed. The replaced answer stays among the pair's previous answers (\`npm run knowledge -- restore ${target.pair.id}\`).`);
    }
  }
  return lines.join('\n');
}

/** What a placeholder of the scrub in an answer does: the model copies it, and the customer would read it. */
function placeholderWarning(placeholders: readonly string[]): string {
  const one = placeholders.length === 1;
  return `the answer holds the placeholder${one ? '' : 's'} ${placeholders.join(', ')} of the personal-data scrub, which a reply copying the answer would carry to the customer as written (such a draft waits for a person)`;
}

/**
 * What `accept` prints: the pair's id, and the answer it stored, which every later agent run reads; when that answer
 * holds a placeholder of the scrub (first-ten-minutes finding 2), a warning and how to undo the accept. The candidate
 * is gone once accepted, so `edit` no longer reaches it: an update is undone by `restore`, a new pair by `remove`.
 */
function formatAccepted(pair: Pick<LearnedPair, 'id' | 'answer'>, updated: boolean, by: string): string {
  const lines = [`${updated ? 'updated' : 'accepted'} learned#${pair.id} (by ${by}); it is searchable now`, '', 'Answer:', pair.answer];
  const placeholders = draftPlaceholders(pair.answer);
  if (placeholders.length > 0) {
    const undo = updated
      ? `put back the answer it replaced with \`npm run knowledge -- restore ${pair.id}\``
      : `take it out with \`npm run knowledge -- remove learned#${pair.id}\``;
    lines.push('', `Warning: ${placeholderWarning(placeholders)}. To change it, ${undo}; next time edit a candidate before accepting it (\`npm run knowledge -- edit <id> --answer '…'\`, or accept it with --answer '…').`);
  }
  return lines.join('\n');
}

function formatPair(p: LearnedPair): string {
  return [
    `Pair learned#${p.id}`,
    `Taught by:   ticket ${p.ticketId}${p.ticketIds.length > 1 ? ` (all: ${p.ticketIds.join(', ')})` : ''}`,
    `Accepted:    ${shownTime(p.acceptedAt)} by ${p.acceptedBy}${p.createdAt !== p.acceptedAt ? ` (first ${shownTime(p.createdAt)})` : ''}`,
    '',
    'Question:',
    p.question,
    '',
    'Answer:',
    p.answer,
    '',
    `Approval:    ${describeApproval(p.approval, p.answerEdited)}`,
    ...(p.previous?.length
      ? [
          '',
          // The stamp ties a restore to the pair as shown here: restored later, or updated, it refuses (as the page's 409).
          `Previous answers (newest first; put one back with \`npm run knowledge -- restore ${p.id} --version N --stamp ${pairStamp(p)}\`):`,
          ...p.previous.flatMap((old, i) => [
            `  ${i + 1}. ticket ${old.ticketId.slice(0, 12)}, ${describeApproval(old.approval, old.answerEdited)}; accepted by ${old.acceptedBy} ${shownTime(old.acceptedAt)}, replaced by ${old.replacedBy} ${shownTime(old.replacedAt)}`,
            ...(old.question !== p.question ? [`     Question: ${oneLine(old.question)}`] : []),
            ...old.answer.split('\n').map((line) => `     ${line}`),
          ]),
        ]
      : []),
  ].join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function refused(result: { outcome: string; message?: string }): never {
  throw new CliError(result.message ?? result.outcome);
}

const program = new Command('knowledge').description('Learned answers: candidates from approved replies, accepted Q&A pairs').showHelpAfterError();

program
  .command('list')
  .description('List candidates (with their ticket) and accepted pairs')
  .option('--json', 'print one JSON object { candidates, pairs }')
  .action(async (opts: { json?: boolean }) => {
    await runCommand('knowledge', async (ctx) => {
      await withLearned(ctx, async ({ redis, learned }) => {
        const [candidates, pairs] = await produce(redis, () => Promise.all([learned.candidates(), learned.pairs()]));
        const withTargets = await Promise.all(candidates.map(async (candidate) => ({ candidate, target: await learned.updateTargetOf(candidate, pairs) })));
        if (opts.json) {
          ctx.print(JSON.stringify({ candidates: withTargets.map(({ candidate, target }) => ({ ...candidate, updateOf: target ? `learned#${target.pair.id}` : null })), pairs }));
        } else ctx.print(terminalSafe(formatLearnedList(withTargets, pairs)));
      });
    });
  });

program
  .command('show <id>')
  .description('Show a candidate or an accepted pair in full')
  .option('--json', 'print it as JSON')
  .action(async (ref: string, opts: { json?: boolean }) => {
    await runCommand('knowledge', async (ctx) => {
      const id = parseLearnedId(ref);
      await withLearned(ctx, async ({ redis, learned }) => {
        const [candidate, pair] = await produce(redis, () => Promise.all([learned.candidate(id), learned.pair(id)]));
        // `learned#N` names a pair; a bare number is the candidate while there is one.
        const asPair = ref.trim().startsWith('learned#') || !candidate;
        if (asPair && pair) {
          ctx.print(opts.json ? JSON.stringify(pair) : terminalSafe(formatPair(pair)));
        } else if (candidate) {
          const target = await learned.updateTargetOf(candidate);
          ctx.print(opts.json ? JSON.stringify({ ...candidate, updateOf: target ? `learned#${target.pair.id}` : null }) : terminalSafe(formatCandidate(candidate, target)));
        } else throw new CliError(`no learned candidate or pair ${id}`);
      });
    });
  });

program
  .command('accept <id>')
  .description('Store a candidate as a Q&A pair (an update of a close accepted pair unless --new)')
  .option('--question <text>', 'store this question instead of the candidate’s')
  .option('--answer <text>', 'store this answer instead of the candidate’s')
  .option('--by <name>', 'who accepts (default: the OS user)')
  .option('--new', 'store as a new pair even when the question is close to an accepted one')
  .action(async (ref: string, opts: { question?: string; answer?: string; by?: string; new?: boolean }) => {
    await runCommand('knowledge', async (ctx) => {
      const id = parseLearnedId(ref);
      const by = operatorName(opts.by);
      await withLearned(ctx, (session) =>
        withIndex(ctx, async (qa) => {
          const result = await produce(session.redis, () =>
            acceptLearned({ store: session.learned, qa }, id, { by, question: opts.question, answer: opts.answer, ...(opts.new ? { asNew: true } : {}) }),
          );
          if (result.outcome !== 'accepted') refused(result);
          ctx.print(terminalSafe(formatAccepted(result.pair, result.updated, by)));
          if (result.indexError) throw new CliError(`learned#${result.pair.id} is stored, but Qdrant did not take it (${result.indexError}); the next Q&A reindex adds it`);
        }),
      );
    });
  });

program
  .command('edit <id>')
  .description('Change a candidate’s question and/or answer before accepting it')
  .option('--question <text>', 'the new question')
  .option('--answer <text>', 'the new answer')
  .option('--by <name>', 'who edits (default: the OS user)')
  .action(async (ref: string, opts: { question?: string; answer?: string; by?: string }) => {
    await runCommand('knowledge', async (ctx) => {
      const id = parseLearnedId(ref);
      if (opts.question === undefined && opts.answer === undefined) throw new CliError('give --question and/or --answer', 2);
      await withLearned(ctx, async ({ redis, learned }) => {
        const result = await produce(redis, () => learned.edit(id, { question: opts.question, answer: opts.answer, by: operatorName(opts.by) }));
        if (result.outcome !== 'edited') refused(result);
        ctx.print(`edited candidate ${id}`);
      });
    });
  });

program
  .command('discard <id>')
  .description('Drop a candidate without learning it')
  .action(async (ref: string) => {
    await runCommand('knowledge', async (ctx) => {
      const id = parseLearnedId(ref);
      await withLearned(ctx, async ({ redis, learned }) => {
        const result = await produce(redis, () => learned.discard(id));
        if (result.outcome !== 'discarded') refused(result);
        ctx.print(`discarded candidate ${id}`);
      });
    });
  });

program
  .command('remove <id>')
  .description('Remove an accepted pair from the knowledge base')
  .action(async (ref: string) => {
    await runCommand('knowledge', async (ctx) => {
      const id = parseLearnedId(ref);
      await withLearned(ctx, (session) =>
        withIndex(ctx, async (qa) => {
          const result = await produce(session.redis, () => removeLearned({ store: session.learned, qa }, id));
          if (result.outcome !== 'removed') refused(result);
          ctx.print(`removed learned#${id}`);
          if (result.indexError) throw new CliError(`learned#${id} is removed, but Qdrant still holds it (${result.indexError}); the next Q&A reindex drops it`);
        }),
      );
    });
  });

program
  .command('restore <id>')
  .description('Put back a previous answer of an accepted pair (show learned#<n> lists them)')
  .option('--version <n>', `which previous answer: 1 is the latest (at most ${MAX_PREVIOUS_ANSWERS} are kept)`, '1')
  .option('--by <name>', 'who restores (default: the OS user)')
  .option('--stamp <stamp>', 'the pair as `show` printed it: refused when it changed since (another restore or update)')
  .action(async (ref: string, opts: { version: string; by?: string; stamp?: string }) => {
    await runCommand('knowledge', async (ctx) => {
      const id = parseLearnedId(ref);
      const version = Number(opts.version.trim());
      if (!Number.isInteger(version) || version < 1 || version > MAX_PREVIOUS_ANSWERS) throw new CliError(`--version must be 1 to ${MAX_PREVIOUS_ANSWERS}`, 2);
      const by = operatorName(opts.by);
      const stamp = opts.stamp?.trim().toLowerCase();
      if (stamp !== undefined && !/^[0-9a-f]{16}$/.test(stamp)) throw new CliError('--stamp takes the 16 hex characters `show` prints', 2);
      await withLearned(ctx, (session) =>
        withIndex(ctx, async (qa) => {
          const result = await produce(session.redis, () => restoreLearned({ store: session.learned, qa }, id, { by, version, ...(stamp ? { stamp } : {}) }));
          if (result.outcome !== 'restored') refused(result);
          ctx.print(`restored learned#${id} to its previous answer ${version} (by ${by}); the text it replaced is now previous answer 1`);
          if (result.indexError) throw new CliError(`learned#${id} is restored, but Qdrant did not take it (${result.indexError}); the next Q&A reindex applies it`);
        }),
      );
    });
  });

program
  .command('export <file>')
  .description('Write the accepted pairs as CSV (question,answer + provenance); - for stdout')
  .action(async (file: string) => {
    await runCommand('knowledge', async (ctx) => {
      await withLearned(ctx, async ({ redis, learned }) => {
        const pairs = await produce(redis, () => learned.pairs());
        const csv = learnedPairsCsv(pairs);
        if (file === '-') {
          // learnedPairsCsv already leaves out what a terminal would run; this is the rule for anything printed from
          // what strangers wrote. Per record, so the CSV keeps its CRLF (terminalSafe drops every CR), the last
          // record's too: stdout holds what the file would.
          ctx.print(csv.split('\r\n').map(terminalSafe).join('\r\n'));
          return;
        }
        try {
          await writeFile(file, csv, 'utf8');
        } catch (err) {
          throw new CliError(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
        ctx.print(`exported ${pairs.length} pair(s) to ${file}`);
      });
    });
  });

registerGapsCommand(program);
registerTrustCommand(program);

await parseCommandLine(program);
