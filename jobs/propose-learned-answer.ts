/**
 * `propose-learned-answer`: after an operator approved a ticket's reply, propose candidate Q&A pairs from it (see
 * src/knowledge/learned-candidates.ts) and store them for the Knowledge page, scrubbed of personal data, without what
 * would teach nothing ({@link learnableDrafts}: "not found" fallbacks, questions that ask nothing). Runs on the
 * agent workers (it may call the model), queued by the approval; it never changes the ticket, so nothing it does
 * can hold up or undo the approval or the reply. A pair a pending candidate already teaches (the same question and
 * answer, `foldTargetOf` in src/knowledge/learned-answers.ts) is folded into it: the page shows one candidate proposed by several approvals.
 */
import type OpenAI from 'openai';
import type { ModelCallUsage } from '../src/agent/types.js';
import { addressNameOf, distilCandidates, learnableDrafts, ruleCandidates, scrubCandidate, signatureNames, teamNamesOf, type CandidateSource } from '../src/knowledge/learned-candidates.js';
import { candidateApprovalOf, type LearnedAnswerStore, type LearnedCandidate } from '../src/knowledge/learned-answers.js';
import { createLogger, type Logger } from '../src/logger.js';
import { hasQuestion } from '../src/mail/classify.js';
import type { ProposeLearnedAnswerData } from '../src/queues/payloads.js';
import type { TicketStore } from '../src/tickets/ticket-store.js';
import type { TicketState } from '../src/tickets/ticket.js';

/** What the job needs. */
export interface ProposeLearnedDeps {
  store: Pick<TicketStore, 'get'>;
  learned: Pick<LearnedAnswerStore, 'proposeOnce'>;
  /** The model for distilling and the second scrub pass; without it the rules alone propose and scrub. */
  llm?: { client: Pick<OpenAI, 'chat'>; model: string } | undefined;
  /**
   * Our From header (MAIL_FROM): its display name is a signature operators write under an answer, cut from the
   * candidates ({@link teamNamesOf}). Without it, only lines that name a support team are cut.
   */
  mailFrom?: string | undefined;
  logger?: Logger;
}

/** What the job did (the job's return value, shown in the queue dashboard). */
export interface ProposeLearnedResult {
  /** Candidate ids stored as new rows. */
  proposed: number[];
  /** Pending candidates this approval was folded into (it taught the same pair). */
  folded?: number[];
  /** Why nothing was proposed, when nothing was. */
  skipped?: string;
  origin?: LearnedCandidate['origin'];
  /** The model calls answered while proposing; the agent worker adds them to the LLM counters and the day's cost. */
  llmCalls?: ModelCallUsage[];
}

/** States of a ticket whose approval stands (the reply is going or has gone out). */
const APPROVED_STATES: readonly TicketState[] = ['approved', 'sending', 'sent'];

/** Proposes the candidates of one approved ticket; a ticket proposed before gets none again. */
export async function proposeLearnedAnswer(data: ProposeLearnedAnswerData, deps: ProposeLearnedDeps, signal?: AbortSignal): Promise<ProposeLearnedResult> {
  const logger = deps.logger ?? createLogger('learned-answers');
  const ticket = await deps.store.get(data.ticketId);
  if (!ticket) return { proposed: [], skipped: 'the ticket no longer exists' };
  // A reply that went back to review (send failed) or was rejected since is not knowledge yet; its next approval
  // queues a job of its own.
  if (!ticket.approval || !APPROVED_STATES.includes(ticket.state)) return { proposed: [], skipped: `the ticket is ${ticket.state}, not approved` };
  if (!ticket.draft?.trim()) return { proposed: [], skipped: 'the ticket has no reply' };
  // The operator answered a mail the agent could not read or that asks nothing (an attachment alone, an encrypted
  // mail, empty): their reply answers what no question in the ticket says, so no pair could find it again.
  if (ticket.unreadable) return { proposed: [], skipped: `the agent could not read the mail (${ticket.unreadable})` };
  if (!hasQuestion(ticket)) return { proposed: [], skipped: 'the mail has no question' };

  const source: CandidateSource = { question: ticket.question, reply: ticket.draft, ...(ticket.agent ? { subtasks: ticket.agent.subtasks } : {}) };
  const llm = deps.llm ? { ...deps.llm, ...(signal ? { signal } : {}) } : undefined;
  const distilled = llm ? await distilCandidates(source, llm) : undefined;
  if (distilled?.error) logger.warn({ ticketId: ticket.id, err: distilled.error }, 'the model could not split the approved reply; proposing by rules');
  const split = distilled?.pairs ?? ruleCandidates(source);
  const origin = distilled?.pairs ? 'model' : 'rules';
  // Whichever path split the reply: the model sees no subtask's fallback, and the rules catch only whole sections.
  const { pairs: drafts, dropped } = learnableDrafts(split, source, { teamNames: teamNamesOf(deps.mailFrom) });
  if (dropped.length > 0) logger.info({ ticketId: ticket.id, dropped }, 'approved reply parts not proposed');
  // Every name the mail gave for its writer: a web form's mail comes From the form and names the customer in its
  // Reply-To (security review 19), and an address's local part often spells the customer's name. The address's name
  // is matched only whole (bug review R1 of session 51): a stranger chooses the address, and one of its words alone
  // (tokyo.branch@, windows.setup@) would be cut from the answer wherever it stands.
  const names = [ticket.fromName, ticket.replyToName, ...signatureNames(ticket.mailText ?? ticket.question)].filter((n): n is string => Boolean(n?.trim()));
  const addressNames = [addressNameOf(ticket.from), addressNameOf(ticket.replyTo)].filter((n): n is string => n !== undefined);
  const scrubbed = [];
  for (const draft of drafts) scrubbed.push(await scrubCandidate(draft, names, llm, addressNames));
  const llmCalls = [...(distilled?.call ? [distilled.call] : []), ...scrubbed.flatMap((c) => c.calls)];
  // Whether the reviewer sent the draft as it was or corrected it: an unchanged approval of a stale draft proposes the
  // stale text, and the Knowledge page warns before it replaces a pair a correction taught.
  const approval = candidateApprovalOf(ticket.approval);
  // The customer may have been erased since the ticket was read: the store refuses the write then (see
  // LearnedAnswerStore.candidatesOfTickets), so nothing of the text read above is kept.
  const proposal = await deps.learned.proposeOnce(
    ticket.id,
    scrubbed.map((c) => ({ question: c.question, answer: c.answer, origin, scrub: c.scrub, approval, ...(distilled?.error ? { distilError: distilled.error } : {}) })),
  );
  const stored = proposal.outcome === 'stored' ? proposal.candidates : [];
  const folded = proposal.outcome === 'stored' ? (proposal.folded ?? []).map((c) => c.id) : [];
  logger.info(
    { ticketId: ticket.id, candidates: stored.map((c) => c.id), ...(folded.length > 0 ? { folded } : {}), origin, ...(proposal.outcome === 'stored' ? {} : { refused: proposal.outcome }) },
    'learned-answer candidates proposed',
  );
  const nothing = dropped.length > 0 ? `nothing to learn: ${[...new Set(dropped)].join('; ')}` : 'nothing to learn';
  const skipped = drafts.length === 0 ? nothing : proposal.outcome === 'erased' ? 'the ticket was erased' : 'proposed before';
  return {
    proposed: stored.map((c) => c.id),
    ...(folded.length > 0 ? { folded } : {}),
    origin,
    ...(stored.length === 0 && folded.length === 0 ? { skipped } : {}),
    ...(llmCalls.length > 0 ? { llmCalls } : {}),
  };
}
