/**
 * `npm run review -- <command>`: the operator's view of the tickets from a terminal.
 *
 * - `list [--state S] [--limit N] [--json]`: newest first; a table, or one JSON array.
 * - `show <id> [--json]`: question, draft, plan, subtasks with their answers and reflection advice, sources and
 *   history; `--json` prints the whole ticket.
 * - `approve <id> [--reply-file F] [--by NAME]`: a parked draft (optionally replaced by the text of F) is approved
 *   and queued for sending, without `Auto-Submitted` since a person vouched for it.
 * - `reject <id> [--reason TEXT]`: a parked ticket gets no reply.
 *
 * A ticket is named by its id or by the Message-ID of its mail. Results go to stdout, logs and errors to stderr;
 * an unknown ticket or a transition the ticket table forbids ends with one line and exit code 1.
 */
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { Command, Option } from 'commander';
import type { Redis } from 'ioredis';
import { connectProducer, produce } from '../queues/connection.js';
import { closeAll as closeQueues, createQueues } from '../queues/registry.js';
import { describeOutcome, type TicketOutcome } from '../tickets/outcome.js';
import { TICKET_STATES, isTicketState, normalizeMessageId, type Ticket, type TicketState } from '../tickets/ticket.js';
import { TicketStore } from '../tickets/ticket-store.js';
import { approveTicket, rejectTicket } from '../tickets/review.js';
import { CliError, runCommand, type CliContext } from './common.js';
import { terminalSafe } from './format.js';

/** The fields `list --json` prints for each ticket. */
export interface TicketSummary {
  id: string;
  messageId: string;
  from: string;
  subject: string;
  state: TicketState;
  reason: string | null;
  createdAt: string;
  updatedAt: string;
  /** How the ticket ended; null while it has not. */
  outcome: TicketOutcome | null;
}

/** One ticket as `list --json` prints it. */
export function summarize(ticket: Ticket): TicketSummary {
  return {
    id: ticket.id,
    messageId: ticket.messageId,
    from: ticket.from,
    subject: ticket.subject,
    state: ticket.state,
    reason: ticket.reason ?? null,
    createdAt: ticket.createdAt,
    updatedAt: ticket.updatedAt,
    outcome: ticket.outcome ?? null,
  };
}

/** Who approves: `--by NAME`, else the OS user. */
export function operatorName(by: string | undefined): string {
  if (by?.trim()) return by.trim();
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}

function cut(text: string, width: number): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  return chars.length <= width ? chars.join('') : `${chars.slice(0, width - 1).join('')}…`;
}

/** The human `list` output: one line per ticket with a short id. */
export function formatTable(tickets: readonly Ticket[], total: number): string {
  if (tickets.length === 0) return 'No tickets.';
  const rows = tickets.map((t) => [t.id.slice(0, 12), t.state, t.createdAt.replace('T', ' ').slice(0, 19), cut(t.from, 28), cut(t.subject, 36), cut(t.reason ?? '', 60)]);
  const header = ['ID', 'STATE', 'CREATED', 'FROM', 'SUBJECT', 'REASON'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => Array.from(r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c + ' '.repeat(Math.max(0, (widths[i] ?? 0) - Array.from(c).length)))
      .join('  ')
      .trimEnd();
  const more = total > tickets.length ? `\n(${tickets.length} of ${total}; use --limit to see more)` : '';
  return [line(header), ...rows.map(line)].join('\n') + more;
}

/** The human `show` output. */
export function formatTicket(t: Ticket): string {
  const out: string[] = [];
  out.push(`Ticket ${t.id}`, `State:      ${t.state}${t.reason ? ` — ${t.reason}` : ''}`);
  out.push(`From:       ${t.fromName ? `${t.fromName} <${t.from}>` : t.from}`, `Subject:    ${t.subject}`, `Message-ID: ${normalizeMessageId(t.messageId)}`);
  out.push(`Created:    ${t.createdAt}`);
  if (t.outcome) out.push(`Outcome:    ${describeOutcome(t.outcome)} at ${t.outcome.at}`);
  if (t.outbound) {
    out.push(`Reply:      ${normalizeMessageId(t.outbound.messageId)}${t.outbound.sentAt ? ` sent ${t.outbound.sentAt}` : ''}${t.outbound.approvedBy ? ` approved by ${t.outbound.approvedBy}` : ''}`);
    if (t.outbound.smtpResponse) out.push(`SMTP:       ${t.outbound.smtpResponse}`);
  }
  out.push('', '── Question', t.question || '(empty)');
  if (t.agent) {
    out.push('', '── Plan', ...t.agent.plan.subtasks.map((s, i) => `${i + 1}. ${s}`));
    out.push('', '── Subtasks');
    for (const s of t.agent.subtasks) {
      const status = s.usedFallback ? 'NOT FOUND (fallback)' : s.isCompleted ? 'completed' : 'incomplete';
      out.push(`● ${s.taskName} [${status}, ${s.challengeCount} tr${s.challengeCount === 1 ? 'y' : 'ies'}]`);
      out.push(`  Answer: ${s.subtaskAnswer}`);
      s.reflectionResults.forEach((r, i) => out.push(`  Reflection ${i + 1}: ${r.isCompleted ? 'ok' : 'not enough'} — ${r.advice}`));
    }
    if (t.agent.sources.length > 0) out.push('', '── Sources', ...t.agent.sources.map((s) => `- ${s.kind}: ${s.fileName}`));
  }
  out.push('', '── Draft', t.draft ?? '(none)');
  out.push('', '── History', ...t.history.map((h) => `${h.at}  ${h.from ?? '∅'} → ${h.to}  by ${h.actor}${h.note ? `: ${h.note}` : ''}`));
  return out.join('\n');
}

interface Session {
  store: TicketStore;
  redis: Redis;
}

async function withStore<T>(ctx: CliContext, body: (session: Session) => Promise<T>): Promise<T> {
  const redis = await connectProducer(ctx.config.REDIS_URL, { name: `${ctx.config.QUEUE_PREFIX}:review-cli`, timeoutMs: 5_000 });
  try {
    return await body({ redis, store: new TicketStore(redis, { prefix: ctx.config.QUEUE_PREFIX }) });
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

/** The ticket named by `ref` (id or Message-ID), or a {@link CliError}. */
async function findTicket(store: TicketStore, redis: Redis, ref: string): Promise<Ticket> {
  const key = ref.trim();
  const ticket = await produce(redis, () => (/^[0-9a-f]{64}$/.test(key) ? store.get(key) : store.findByMessageId(key)));
  if (!ticket) throw new CliError(`no ticket ${key} (give the 64-character ticket id or the mail's Message-ID)`);
  return ticket;
}


const program = new Command('review').description('Review, approve and reject tickets').showHelpAfterError();

program
  .command('list')
  .description('List tickets, newest first')
  .addOption(new Option('--state <state>', 'only tickets in this state').choices([...TICKET_STATES]))
  .option('--limit <n>', 'at most this many (1–500)', '50')
  .option('--json', 'print one JSON array')
  .action(async (opts: { state?: string; limit: string; json?: boolean }) => {
    await runCommand('review', async (ctx) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new CliError('--limit must be a whole number from 1 to 500', 2);
      const state = opts.state && isTicketState(opts.state) ? opts.state : undefined;
      await withStore(ctx, async ({ store, redis }) => {
        const page = await produce(redis, () => store.list({ limit, ...(state ? { state } : {}) }));
        ctx.print(opts.json ? JSON.stringify(page.tickets.map(summarize)) : terminalSafe(formatTable(page.tickets, page.total)));
      });
    });
  });

program
  .command('show')
  .description('Show one ticket: question, draft, plan, subtasks, sources and history')
  .argument('<id>', 'ticket id or Message-ID')
  .option('--json', 'print the whole ticket as JSON')
  .action(async (id: string, opts: { json?: boolean }) => {
    await runCommand('review', async (ctx) => {
      await withStore(ctx, async ({ store, redis }) => {
        const ticket = await findTicket(store, redis, id);
        ctx.print(opts.json ? JSON.stringify(ticket) : terminalSafe(formatTicket(ticket)));
      });
    });
  });

program
  .command('approve')
  .description('Approve a parked draft (optionally edited) and queue it for sending')
  .argument('<id>', 'ticket id or Message-ID')
  .option('--reply-file <file>', 'send the text of this file (UTF-8) instead of the stored draft')
  .option('--by <name>', 'who approves (default: the OS user)')
  .action(async (id: string, opts: { replyFile?: string; by?: string }) => {
    await runCommand('review', async (ctx) => {
      const reply = opts.replyFile === undefined ? undefined : await readReplyFile(opts.replyFile);
      const by = operatorName(opts.by);
      await withStore(ctx, async ({ store, redis }) => {
        const ticket = await findTicket(store, redis, id);
        const queues = createQueues(redis, ctx.config.QUEUE_PREFIX);
        try {
          const result = await approveTicket({ store, redis, outbound: queues.outbound, config: ctx.config }, { ticketId: ticket.id, operator: by, reply });
          if (result.outcome !== 'approved') throw new CliError(`cannot approve ticket ${ticket.id}: ${result.message}`);
          ctx.print(`approved ${ticket.id} (by ${by}); the reply is queued for sending`);
        } finally {
          await closeQueues(queues);
        }
      });
    });
  });

program
  .command('reject')
  .description('Reject a parked ticket: no reply is sent')
  .argument('<id>', 'ticket id or Message-ID')
  .option('--reason <text>', 'why (recorded on the ticket)')
  .option('--by <name>', 'who rejects (default: the OS user)')
  .action(async (id: string, opts: { reason?: string; by?: string }) => {
    await runCommand('review', async (ctx) => {
      const by = operatorName(opts.by);
      const reason = opts.reason?.trim() || 'rejected by an operator';
      await withStore(ctx, async ({ store, redis }) => {
        const ticket = await findTicket(store, redis, id);
        const result = await rejectTicket({ store }, { ticketId: ticket.id, operator: by, reason });
        if (result.outcome !== 'rejected') throw new CliError(`cannot reject ticket ${ticket.id}: ${result.message}`);
        ctx.print(`rejected ${ticket.id} (by ${by}): ${reason}`);
      });
    });
  });

async function readReplyFile(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read --reply-file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (!text.trim()) throw new CliError(`--reply-file ${file} is empty`);
  return text.replace(/\r\n?/g, '\n');
}

await program.parseAsync();
