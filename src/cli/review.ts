/**
 * `npm run review -- <command>`: the operator's view of the tickets from a terminal.
 *
 * - `list [--state S] [--limit N] [--json]`: parked tickets oldest first, as the review page lists them (the customer
 *   who waited longest on top); any other state, or all together, newest first. A table, or one JSON array.
 * - `show <id> [--json] [--save-attachments DIR]`: question, attachments, draft, plan, subtasks with their answers and
 *   reflection advice, sources and history; `--json` prints the whole ticket. `--save-attachments` writes the mail's
 *   attachments, read from its stored raw mail, into DIR under safe names, never over a file already there.
 * - `approve <id> (--seen N | --reply-file F) [--by NAME] [--checked-no-copy] [--read-newer-mail] [--sender-verified]`:
 *   a parked draft (or the text of F instead) is approved and queued for sending, without `Auto-Submitted` since a
 *   person vouched for it. Without F it must name the draft it approves, as the API and the review page do: `--seen N`,
 *   the history length `show` prints under the draft; a ticket that moved on since (a rerun parked another draft) is
 *   refused. Refused, as the review page asks for its ticks: a reply that may already have been sent
 *   without `--checked-no-copy` (the operator checked the customer has none), a ticket whose conversation got mail
 *   from the customer after it (`show` lists it) without `--read-newer-mail`, and mail whose sender may be forged
 *   without `--sender-verified`.
 * - `reject <id> [--reason TEXT]`: a parked ticket gets no reply.
 * - `rerun <id> [--by NAME]`: the agent answers a parked ticket again (once its cause was fixed: the model's
 *   settings, the manual); refused for a ticket a reply may already have left for. The new draft is sent or parked as
 *   any other, except for a repeated question and reopened mail, whose draft is always parked for review.
 * - `arrived <id> [--note TEXT] [--by NAME]`: a reply parked as "may already have been sent" did arrive: the ticket
 *   ends `sent` on the person's word; nothing is sent.
 * - `close <id> [--note TEXT] [--by NAME]`: a reply that cannot be delivered (the SMTP server refused it for good, or
 *   it bounced) is acknowledged: a parked ticket ends `rejected` without a reply, a bounced `sent` one keeps its state
 *   and leaves the review page's list of replies that did not arrive.
 * - `reopen <id> [--note TEXT] [--by NAME]`: mail the automatic checks ignored by mistake (a customer's question from an
 *   address that looks automated, or carrying a list header) is parked for review; refused for a bounce and our own
 *   mail. Its new draft (`rerun`) is then always parked for a person.
 * - `take-over <id> [--by NAME]`: a ticket that waits for the model server (AGENT_MODEL_OUTAGE_MINUTES) is taken from the
 *   agent, which no longer answers it: it is parked without a draft, for the person to write the reply and `approve
 *   --reply-file` it. Refused for any other ticket (a `processing` one the agent is answering right now).
 * - `archive show <id> [--json]`: a ticket the retention job moved to DATA_DIR/archive.
 * - `retention`: one retention run now (what the daily `retention` job does).
 * - `forget <address> [--yes]`: erase a customer (tickets, raw mail, conversation entries, archive lines, rate-limit
 *   windows). Without `--yes` it only lists what would go and exits with code 3 (0 when nothing is stored), so a
 *   script that forgot `--yes` cannot mistake the listing for an erasure.
 *
 * A ticket is named by its id, a unique start of it of at least 8 characters (the 12 that `list` prints do), or
 * the Message-ID of its mail; a start that several tickets share is refused with their ids. Results go to stdout,
 * logs and errors to stderr; an unknown ticket or a transition the ticket table forbids ends with one line and exit
 * code 1.
 */
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { Redis } from 'ioredis';
import { connectProducer, produce } from '../queues/connection.js';
import { closeAll as closeQueues, createQueues } from '../queues/registry.js';
import { retention } from '../../jobs/retention.js';
import { archiveDir, findArchived } from '../tickets/archive.js';
import { describeOutcome, type TicketOutcome } from '../tickets/outcome.js';
import { forgetCustomer, type ForgetReport } from '../tickets/retention.js';
import { TICKET_STATES, describeBounce, isTicketState, normalizeMessageId, ticketIdFor, type Ticket, type TicketState } from '../tickets/ticket.js';
import { MIN_ID_PREFIX, TicketStore, type ConversationEntry } from '../tickets/ticket-store.js';
import { ticketsByReference, type TicketReference } from '../server/ticket-search.js';
import { approveTicket, closeUndeliverable, confirmArrived, conversationAround, rejectTicket, reopenIgnored, rerunAgent, takeOverTicket, uncertainSendAttempts, type ConversationView, type ReviewRefusal } from '../tickets/review.js';
import { AttachmentUnavailableError, loadTicketAttachments, saveAttachments, type RawMailSource, type TicketAttachment } from '../server/attachments.js';
import { approvalMessage, CliError, operatorName, parseCommandLine, runCommand, type CliContext } from './common.js';
import { cut, formatTable, shownTime, terminalSafe } from './format.js';
import { deskTimeZone } from '../tickets/local-day.js';

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


/** One other mail of the conversation in `show`: when, its id, state and subject, and our reply's time when we sent one. */
function conversationLine(m: ConversationEntry, timeZone: string): string {
  return `${shownTime(m.createdAt, timeZone)}  ${m.ticketId.slice(0, 12)}  ${m.state}  ${m.subject || '(no subject)'}${m.repliedAt ? `  (our reply sent ${shownTime(m.repliedAt, timeZone)})` : m.reply !== undefined ? '  (our reply sent)' : ''}`;
}

/**
 * The human `show` output; with `conversation`, the other mail of its conversation before and after it. Times are
 * shown in `timeZone`, the zone named, as `list` shows them (by default the desk's, `TZ`).
 */
export function formatTicket(t: Ticket, conversation?: ConversationView, timeZone: string = deskTimeZone()): string {
  const time = (at: string | undefined) => shownTime(at, timeZone);
  const out: string[] = [];
  out.push(`Ticket ${t.id}`, `State:      ${t.state}${t.reason ? ` — ${t.reason}` : ''}`);
  out.push(`From:       ${t.fromName ? `${t.fromName} <${t.from}>` : t.from}`, `Subject:    ${t.subject}`, `Message-ID: ${normalizeMessageId(t.messageId)}`);
  out.push(`Created:    ${time(t.createdAt)}`);
  if (t.outcome) out.push(`Outcome:    ${describeOutcome(t.outcome)} at ${time(t.outcome.at)}`);
  if (t.outbound) {
    out.push(`Reply:      ${normalizeMessageId(t.outbound.messageId)}${t.outbound.sentAt ? ` sent ${time(t.outbound.sentAt)}` : ''}${t.outbound.approvedBy ? ` approved by ${t.outbound.approvedBy}` : ''}`);
    if (t.outbound.smtpResponse) out.push(`SMTP:       ${t.outbound.smtpResponse}`);
    const check = t.outbound.deliveryCheck;
    if (check) {
      const what = check.verdict === 'arrived' ? 'confirmed arrived' : 'closed as undeliverable';
      out.push(`Delivery:   ${what} by ${check.by} at ${time(check.at)} (a person's word, no SMTP response)${check.note ? `: ${check.note}` : ''}`);
    }
  }
  if (t.replyBounce) {
    const ack = t.replyBounce.acknowledged;
    const acknowledged = ack ? `; acknowledged by ${ack.by} at ${time(ack.at)}${ack.note ? `: ${ack.note}` : ''}` : '';
    out.push(`Bounced:    ${describeBounce(t.replyBounce)} at ${time(t.replyBounce.at)}; report ${t.replyBounce.reportTicketId}${acknowledged}`);
  }
  if (conversation && (conversation.earlier.length > 0 || conversation.laterTotal > 0)) {
    const hidden = conversation.laterTotal - conversation.later.length;
    out.push('', '── Conversation', ...conversation.earlier.map((m) => conversationLine(m, timeZone)), `${time(t.createdAt)}  ${t.id.slice(0, 12)}  this mail`, ...conversation.later.map((m) => conversationLine(m, timeZone)));
    if (hidden > 0) out.push(`… and ${hidden} more later mail`);
    if (conversation.laterTotal > 0) out.push(`The customer wrote again after this mail: read it (\`show <id>\`) before approving this draft; \`approve\` asks for --read-newer-mail.`);
  }
  out.push('', '── Question', t.question || '(empty)');
  // Numbered as the dashboard's download links and `--save-attachments` number them.
  if (t.attachments.length > 0) out.push('', '── Attachments', ...t.attachments.map((a, i) => `${i + 1}. ${a.filename ?? '(unnamed)'} (${a.contentType}, ${a.size} bytes)`));
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
  out.push('', '── History', ...t.history.map((h) => `${time(h.at)}  ${h.from ?? '∅'} → ${h.to}  by ${h.actor}${h.note ? `: ${h.note}` : ''}`));
  // The history length pins the draft shown above: a rerun that parks another lengthens it, and `approve` refuses.
  if (t.state === 'parked' && t.draft !== undefined) out.push('', `To send this draft as it is: npm run review -- approve ${t.id} --seen ${t.history.length}`);
  return out.join('\n');
}

/** Why `approve` without `--reply-file` or `--seen` is refused, and what to run instead. */
function unnamedDraftMessage(ticketId: string): string {
  return `say which draft you approve: read it with \`npm run review -- show ${ticketId}\` and pass the --seen N it prints, or send your own text with --reply-file F`;
}

/**
 * A refused approval in a terminal's words: the refusals about `--seen` (a ticket that changed since `show` printed
 * it, a number that names no draft) speak of the page the review flow shares ("since you opened it", "reload it");
 * here the next step is `show` and the --seen it prints. Other refusals as they are.
 */
function approvalRefusalMessage(ticketId: string, refusal: ReviewRefusal, seen: number | undefined): string {
  const showAgain = `run \`npm run review -- show ${ticketId}\` and use the --seen it prints`;
  if (refusal.outcome === 'invalid' && refusal.seenNamesNoDraft !== undefined) return `--seen ${refusal.seenNamesNoDraft} names no draft of this ticket: ${showAgain}`;
  if (refusal.outcome !== 'conflict' || refusal.changed === undefined) return refusal.message;
  const since = seen === undefined ? '' : ` since \`show\` printed --seen ${seen}`;
  const next =
    refusal.state === 'parked'
      ? ` ${capitalized(showAgain)}.`
      : refusal.state === 'processing'
        ? ` Once it is parked, ${showAgain}.`
        : ` \`npm run review -- show ${ticketId}\` shows it as it is now.`;
  return `the ticket changed${since}: ${refusal.changed}.${next}`;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `--seen`: the history length `show` printed, in decimal digits as it prints it. */
function historyLength(value: string): number {
  if (!/^\d{1,7}$/.test(value)) throw new InvalidArgumentError('give the history length `show` printed (a whole number)');
  return Number(value);
}

interface Session {
  store: TicketStore;
  redis: Redis;
}

async function withStore<T>(ctx: CliContext, body: (session: Session) => Promise<T>): Promise<T> {
  const redis = await connectProducer(ctx.config.REDIS_URL, { name: `${ctx.config.QUEUE_PREFIX}:review-cli`, timeoutMs: 5_000, giveUpOnError: true });
  try {
    return await body({ redis, store: new TicketStore(redis, { prefix: ctx.config.QUEUE_PREFIX }) });
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

/** Matches listed when a short id is ambiguous. */
const AMBIGUOUS_SHOWN = 10;

/**
 * The ticket named by `ref` (id, unique start of an id, or a Message-ID only one ticket's mail has: the review page's
 * search resolves it the same way, `ticketsByReference`), with its agent result, or a {@link CliError}. A Message-ID
 * several mails reused is refused like a short id several share: acting on the first would approve a reply written for
 * one customer to another.
 */
async function findTicket(store: TicketStore, redis: Redis, ref: string): Promise<Ticket> {
  const key = ref.trim();
  // Anything that names no ticket by its form may still be a Message-ID of a mail that wrote it without an `@`.
  const found =
    (await produce(redis, () => ticketsByReference(store, key, AMBIGUOUS_SHOWN))) ??
    ({ kind: 'message-id', text: key, ...(await produce(redis, () => store.findAllByMessageId(key, AMBIGUOUS_SHOWN))) } satisfies TicketReference);
  if (found.tickets.length > 1 || found.more) {
    const ids = `${found.tickets.map((t) => t.id).join(', ')}${found.more ? ', and more' : ''}`;
    throw new CliError(
      found.kind === 'message-id'
        ? `${key} is the Message-ID of more than one ticket's mail (several mails reused it); give the ticket id: ${ids}`
        : `${key} is the start of more than one ticket id; give more characters: ${ids}`,
    );
  }
  const id = found.tickets[0]?.id;
  const ticket = id ? await produce(redis, () => store.get(id)) : undefined;
  if (ticket) return ticket;
  const how = `give the ticket id, at least its first ${MIN_ID_PREFIX} characters, or the mail's Message-ID`;
  throw new CliError(found.kind === 'id-prefix' ? `no ticket id starts with ${key} (${how})` : `no ticket ${key} (${how})`);
}


const program = new Command('review').description('Review, approve and reject tickets').showHelpAfterError();

/** The `limit` parked tickets that waited longest, oldest first (the review page's order), and how many are parked. */
async function longestWaiting(store: TicketStore, limit: number): Promise<{ tickets: Ticket[]; total: number }> {
  const [ids, counts] = await Promise.all([store.idsCreatedBefore('parked', Number.MAX_SAFE_INTEGER, limit), store.countByState()]);
  return { tickets: await store.getMany(ids), total: counts.parked };
}

program
  .command('list')
  .description('List tickets: parked tickets oldest first, as the review page lists them; any other state, or all together, newest first')
  .addOption(new Option('--state <state>', 'only tickets in this state').choices([...TICKET_STATES]))
  .option('--limit <n>', 'at most this many (1–500)', '50')
  .option('--json', 'print one JSON array')
  .action(async (opts: { state?: string; limit: string; json?: boolean }) => {
    await runCommand('review', async (ctx) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new CliError('--limit must be a whole number from 1 to 500', 2);
      const state = opts.state && isTicketState(opts.state) ? opts.state : undefined;
      await withStore(ctx, async ({ store, redis }) => {
        const page = await produce(redis, () => (state === 'parked' ? longestWaiting(store, limit) : store.list({ limit, ...(state ? { state } : {}) })));
        ctx.print(opts.json ? JSON.stringify(page.tickets.map(summarize)) : terminalSafe(formatTable(page.tickets, page.total)));
      });
    });
  });

program
  .command('show')
  .description('Show one ticket: question, draft, plan, subtasks, sources and history')
  .argument('<id>', 'ticket id or Message-ID')
  .option('--json', 'print the whole ticket as JSON')
  .option('--save-attachments <dir>', "write the mail's attachments into this folder (made when missing) under safe names; a name already there gets a copy beside it")
  .action(async (id: string, opts: { json?: boolean; saveAttachments?: string }) => {
    await runCommand('review', async (ctx) => {
      await withStore(ctx, async ({ store, redis }) => {
        const ticket = await findTicket(store, redis, id);
        ctx.print(opts.json ? JSON.stringify(ticket) : terminalSafe(formatTicket(ticket, await produce(redis, () => conversationAround({ store, redis }, ticket)))));
        if (opts.saveAttachments !== undefined) ctx.print(terminalSafe(await saveTicketAttachments(ticket, opts.saveAttachments, { redis, prefix: ctx.config.QUEUE_PREFIX })));
      });
    });
  });

program
  .command('approve')
  .description('Approve a parked draft (optionally edited) and queue it for sending')
  .argument('<id>', 'ticket id or Message-ID')
  .option('--reply-file <file>', 'send the text of this file (UTF-8) instead of the stored draft')
  .option('--seen <n>', 'the history length `show` printed: approves the draft shown then, refused once the ticket moved on (needed without --reply-file)', historyLength)
  .option('--by <name>', 'who approves (default: the OS user)')
  .option('--checked-no-copy', 'for a reply that may already have been sent: you checked that the customer has no copy of it')
  .option('--read-newer-mail', 'the customer wrote again in the conversation after this mail: you read it (`show` lists it)')
  .option('--sender-verified', 'for mail whose sender may be forged: you verified another way that they wrote it')
  .action(async (id: string, opts: { replyFile?: string; seen?: number; by?: string; checkedNoCopy?: boolean; readNewerMail?: boolean; senderVerified?: boolean }) => {
    await runCommand('review', async (ctx) => {
      const reply = opts.replyFile === undefined ? undefined : await readReplyFile(opts.replyFile);
      const by = operatorName(opts.by);
      await withStore(ctx, async ({ store, redis }) => {
        const ticket = await findTicket(store, redis, id);
        // As the API and the page: without a text of the operator's own, the approval names the draft it approves,
        // or it would send whatever a rerun parked since the operator read the ticket.
        // Neither option given is a usage error (exit 2), found only here so the message can name the ticket's `show`.
        if (reply === undefined && opts.seen === undefined) throw new CliError(`cannot approve ticket ${ticket.id}: ${unnamedDraftMessage(ticket.id)}`, 2);
        const queues = createQueues(redis, ctx.config.QUEUE_PREFIX);
        try {
          // As the page's tick: a reply that may already have reached the customer is not sent again unasked.
          const checkedNoCopy = opts.checkedNoCopy ?? false;
          // As the page's ticks: the customer's later mail and a possibly forged sender are the operator's to check.
          const result = await approveTicket(
            { store, redis, outbound: queues.outbound, learning: queues.tickets, config: ctx.config },
            { ticketId: ticket.id, operator: by, reply, seen: opts.seen, checkedNoCopy, readNewerMail: opts.readNewerMail ?? false, senderVerified: opts.senderVerified ?? false },
          );
          if (result.outcome !== 'approved' && !checkedNoCopy && uncertainSendAttempts(ticket).length > 0) {
            const sameDraft = reply === undefined ? `--seen ${opts.seen}` : `--reply-file ${opts.replyFile}`;
            throw new CliError(
              `cannot approve ticket ${ticket.id}: ${result.message} From a terminal: run \`npm run review -- approve ${ticket.id} ${sameDraft} --checked-no-copy\` once you checked, or \`npm run review -- arrived ${ticket.id}\` if it arrived.`,
            );
          }
          if (result.outcome !== 'approved') throw new CliError(`cannot approve ticket ${ticket.id}: ${approvalRefusalMessage(ticket.id, result, opts.seen)}`);
          ctx.print(approvalMessage(ticket.id, by));
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
        const result = await rejectTicket({ store, redis }, { ticketId: ticket.id, operator: by, reason });
        if (result.outcome !== 'rejected') throw new CliError(`cannot reject ticket ${ticket.id}: ${result.message}`);
        ctx.print(`rejected ${ticket.id} (by ${by}): ${reason}`);
      });
    });
  });

program
  .command('rerun')
  .description('Have the agent answer a parked ticket again (after its cause was fixed); refused once a reply may have gone out')
  .argument('<id>', 'ticket id or Message-ID')
  .option('--by <name>', 'who asks (default: the OS user)')
  .action(async (id: string, opts: { by?: string }) => {
    await runCommand('review', async (ctx) => {
      const by = operatorName(opts.by);
      await withStore(ctx, async ({ store, redis }) => {
        const ticket = await findTicket(store, redis, id);
        const queues = createQueues(redis, ctx.config.QUEUE_PREFIX);
        try {
          const result = await rerunAgent({ store, redis, tickets: queues.tickets, config: ctx.config }, { ticketId: ticket.id, operator: by });
          if (result.outcome !== 'requeued') throw new CliError(`cannot answer ticket ${ticket.id} again: ${result.message}`);
          ctx.print(
            result.forReview
              ? `ticket ${ticket.id} is back with the agent (asked by ${by}); its new draft will be parked for review, nothing is sent without a person`
              : `ticket ${ticket.id} is back with the agent (asked by ${by}); its new draft is sent or parked as any other`,
          );
        } finally {
          await closeQueues(queues);
        }
      });
    });
  });

program
  .command('arrived')
  .description('Close as sent a parked reply that may already have been sent and did arrive; nothing is sent')
  .argument('<id>', 'ticket id or Message-ID')
  .option('--note <text>', 'how you know it arrived (recorded on the ticket)')
  .option('--by <name>', 'who confirms (default: the OS user)')
  .action(async (id: string, opts: { note?: string; by?: string }) => {
    await runCommand('review', async (ctx) => {
      const by = operatorName(opts.by);
      await withStore(ctx, async ({ store, redis }) => {
        const ticket = await findTicket(store, redis, id);
        const result = await produce(redis, () => confirmArrived({ store }, { ticketId: ticket.id, operator: by, note: opts.note }));
        if (result.outcome !== 'confirmed') throw new CliError(`cannot close ticket ${ticket.id} as sent: ${result.message}`);
        ctx.print(result.alreadyConfirmed ? `ticket ${ticket.id} was already closed as sent` : `closed ${ticket.id} as sent (confirmed by ${by}); nothing was sent again`);
      });
    });
  });

program
  .command('close')
  .description('Acknowledge and close a reply that cannot be delivered (refused for good by the SMTP server, or bounced)')
  .argument('<id>', 'ticket id or Message-ID')
  .option('--note <text>', 'what you did instead (recorded on the ticket)')
  .option('--by <name>', 'who closes (default: the OS user)')
  .action(async (id: string, opts: { note?: string; by?: string }) => {
    await runCommand('review', async (ctx) => {
      const by = operatorName(opts.by);
      await withStore(ctx, async ({ store, redis }) => {
        const ticket = await findTicket(store, redis, id);
        const result = await produce(redis, () => closeUndeliverable({ store }, { ticketId: ticket.id, operator: by, note: opts.note }));
        if (result.outcome !== 'closed') throw new CliError(`cannot close ticket ${ticket.id}: ${result.message}`);
        const done = result.closedAs === 'acknowledged' ? `acknowledged the bounce of ${ticket.id}; it stays ${result.ticket.state}` : `closed ${ticket.id} without a reply: it cannot be delivered`;
        ctx.print(result.alreadyClosed ? `ticket ${ticket.id} was already closed` : `${done} (by ${by})`);
      });
    });
  });

program
  .command('reopen')
  .description('Reopen mail the automatic checks ignored by mistake: it is parked for review; nothing is sent')
  .argument('<id>', 'ticket id or Message-ID')
  .option('--note <text>', 'why you reopen it (recorded on the ticket)')
  .option('--by <name>', 'who reopens (default: the OS user)')
  .action(async (id: string, opts: { note?: string; by?: string }) => {
    await runCommand('review', async (ctx) => {
      const by = operatorName(opts.by);
      await withStore(ctx, async ({ store, redis }) => {
        const ticket = await findTicket(store, redis, id);
        const result = await produce(redis, () => reopenIgnored({ store }, { ticketId: ticket.id, operator: by, note: opts.note }));
        if (result.outcome !== 'reopened') throw new CliError(`cannot reopen ticket ${ticket.id}: ${result.message}`);
        ctx.print(
          result.alreadyReopened
            ? `ticket ${ticket.id} was already reopened`
            : `reopened ${ticket.id} (by ${by}): it is parked for review; \`rerun ${ticket.id}\` has the agent draft a reply for you to approve`,
        );
      });
    });
  });

program
  .command('take-over')
  .description('Take a ticket that waits for the model server from the agent, to answer it yourself: it is parked without a draft; nothing is sent')
  .argument('<id>', 'ticket id or Message-ID')
  .option('--by <name>', 'who takes it over (default: the OS user)')
  .action(async (id: string, opts: { by?: string }) => {
    await runCommand('review', async (ctx) => {
      const by = operatorName(opts.by);
      await withStore(ctx, async ({ store, redis }) => {
        const ticket = await findTicket(store, redis, id);
        const result = await produce(redis, () => takeOverTicket({ store }, { ticketId: ticket.id, operator: by }));
        if (result.outcome !== 'taken-over') throw new CliError(`cannot take over ticket ${ticket.id}: ${result.message}`);
        ctx.print(
          result.alreadyTakenOver
            ? `ticket ${ticket.id} was already taken over`
            : `took over ${ticket.id} (by ${by}): the agent no longer answers it; write the reply and send it with \`approve ${ticket.id} --reply-file FILE\``,
        );
      });
    });
  });

const archive = program.command('archive').description('Tickets the retention job moved out of Redis (DATA_DIR/archive)');

archive
  .command('show')
  .description('Show an archived ticket')
  .argument('<id>', 'ticket id or Message-ID')
  .option('--json', 'print the archive line (archivedAt and the whole ticket) as JSON')
  .action(async (ref: string, opts: { json?: boolean }) => {
    await runCommand('review', async (ctx) => {
      const key = ref.trim();
      const id = /^[0-9a-f]{64}$/.test(key) ? key : ticketIdFor(key);
      const dir = archiveDir(ctx.config.DATA_DIR);
      const found = await findArchived(dir, id);
      if (!found) throw new CliError(`no archived ticket ${key} in ${dir} (give the 64-character ticket id or the mail's Message-ID)`);
      ctx.print(
        opts.json
          ? JSON.stringify({ archivedAt: found.archivedAt, ticket: found.ticket })
          : terminalSafe(`Archived ${shownTime(found.archivedAt)} in ${found.file}\n\n${formatTicket(found.ticket)}`),
      );
    });
  });

program
  .command('retention')
  .description('Archive old final tickets and drop old raw mail now (what the daily retention job does)')
  .action(async () => {
    await runCommand('review', async (ctx) => {
      await withStore(ctx, async ({ redis }) => {
        const result = await produce(redis, () => retention(undefined, { config: ctx.config, redis, logger: ctx.logger }));
        ctx.print(
          `archived ${result.ticketsArchived} tickets${result.archiveFiles.length > 0 ? ` to ${result.archiveFiles.join(', ')}` : ''}; ` +
            `dropped ${result.rawMailsDropped} raw mails` +
            (result.recovered > 0 ? `; completed an interrupted archive append of ${result.recovered} tickets` : ''),
        );
      });
    });
  });

/** The human output of `forget`: what was (or would be) removed. */
export function formatForgetReport(report: ForgetReport): string {
  const verb = report.removed ? 'removed' : 'would remove';
  const out = [`Customer ${report.address} (case, IDN spelling, +tag and Gmail dots ignored; sender or Reply-To)`];
  out.push(`${verb} ${report.tickets.length} tickets from Redis${report.tickets.length > 0 ? ':' : ''}`);
  for (const t of report.tickets) {
    out.push(`  ${t.id}  ${t.state.padEnd(10)} ${shownTime(t.createdAt)}  ${cut(t.from, 32)}  ${cut(t.subject, 40)}${t.rawMail ? '  (+ raw mail)' : ''}`);
  }
  const rawMails = report.tickets.filter((t) => t.rawMail).length;
  out.push(`${verb} ${rawMails} raw mails and the tickets' conversation entries and Message-ID links`);
  const lines = report.archiveLines.reduce((n, f) => n + f.tickets.length, 0);
  out.push(`${verb} ${lines} archive lines${lines > 0 ? ':' : ''}`);
  for (const f of report.archiveLines) out.push(`  ${f.file}: ${f.tickets.join(', ')}`);
  out.push(`${verb} ${report.threadLinks} further Message-ID links and ${report.rateLimitKeys.length} rate-limit windows`);
  out.push(`${verb} ${report.learnedCandidates.length} learned-answer candidates proposed from these tickets (or these tickets from the candidates they were folded into)${report.learnedCandidates.length > 0 ? ` (${report.learnedCandidates.join(', ')})` : ''}`);
  out.push(`${verb} these tickets' questions from ${report.knowledgeGaps.length} knowledge gaps${report.knowledgeGaps.length > 0 ? ` (${report.knowledgeGaps.join(', ')})` : ''}`);
  out.push(`${verb} the customer's digest from ${report.trustReviews} reviews in the sources' trust records (the reviews stay)`);
  if (report.learnedPairs.length > 0) {
    const names = report.learnedPairs.map((id) => `learned#${id}`);
    // A pair keeps the answers it had before an update (knowledge show lists them): text these tickets taught may be
    // among them, and stays with the pair until it is removed.
    out.push(
      `kept ${names.length} accepted learned pairs built from these tickets, with their previous answers (${names.join(', ')}): ${names.map((n) => `npm run knowledge -- remove ${n}`).join('; ')}`,
    );
  }
  return out.join('\n');
}

program
  .command('forget')
  .description(
    "Erase a customer: every ticket, raw mail, conversation entry and archive line of the address, its rate-limit windows, learned-answer candidates and knowledge-gap examples, and its tickets' queue jobs (every state) and their queue events",
  )
  .argument('<address>', "the customer's mail address")
  .option('--yes', 'remove for real; without it, only list what would be removed (exit code 3)')
  .option('--json', 'print the report as JSON')
  .action(async (address: string, opts: { yes?: boolean; json?: boolean }) => {
    await runCommand('review', async (ctx) => {
      await withStore(ctx, async ({ store, redis }) => {
        let report: ForgetReport;
        const queues = createQueues(redis, ctx.config.QUEUE_PREFIX);
        try {
          const deps = { redis, store, prefix: ctx.config.QUEUE_PREFIX, archiveDir: archiveDir(ctx.config.DATA_DIR), queues };
          report = await produce(redis, () => forgetCustomer(deps, address, { confirm: opts.yes === true }));
        } catch (err) {
          if (err instanceof TypeError) throw new CliError(err.message, 2);
          throw err;
        } finally {
          await closeQueues(queues);
        }
        ctx.print(opts.json ? JSON.stringify(report) : terminalSafe(formatForgetReport(report)));
        const found = report.tickets.length + report.archiveLines.length + report.threadLinks + report.rateLimitKeys.length + report.learnedCandidates.length + report.knowledgeGaps.length;
        if (!report.removed && found > 0) throw new CliError('nothing was removed: run again with --yes to remove it', 3);
      });
    });
  });

/** Writes the attachments of `ticket` into `dir` and says where each went; a {@link CliError} when they cannot be had. */
async function saveTicketAttachments(ticket: Ticket, dir: string, source: RawMailSource): Promise<string> {
  let attachments: TicketAttachment[];
  try {
    attachments = await produce(source.redis, () => loadTicketAttachments(source, ticket));
  } catch (err) {
    if (err instanceof AttachmentUnavailableError) throw new CliError(`cannot save the attachments of ticket ${ticket.id}: ${err.message}`);
    throw err;
  }
  if (attachments.length === 0) return `ticket ${ticket.id} has no attachments; nothing was saved`;
  let written: string[];
  try {
    written = await saveAttachments(dir, attachments);
  } catch (err) {
    throw new CliError(`cannot save the attachments of ticket ${ticket.id} in ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return [`saved ${attachments.length} attachment${attachments.length === 1 ? '' : 's'} to ${dir}:`, ...written.map((file, i) => `${i + 1}. ${file}`)].join('\n');
}

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

await parseCommandLine(program);
