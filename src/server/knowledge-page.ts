/**
 * The Knowledge page (`/knowledge`): candidate Q&A pairs proposed from approved replies, each with the ticket it came
 * from and editable question and answer (exactly what will be stored) to accept or discard, and — for one that would
 * update an accepted pair — that pair's current answer, with a warning when an unchanged approval would replace a
 * reviewer's correction; the accepted pairs with every ticket that taught them, who accepted them, their previous
 * answers with a Restore button each, and a Remove button; the sources reviewers corrected. Same login, CSRF tokens, escaping and CSP as the review page: its forms go
 * through the app's form middleware, its markup through the escaping `html` template.
 */
import { z } from 'zod';
import type { AgentResult } from '../agent/types.js';
import {
  acceptLearned,
  approvalsOf,
  describeApproval,
  isCorrection,
  MAX_PREVIOUS_ANSWERS,
  otherAnswersOfEach,
  pairCorrected,
  pairStamp,
  removeLearned,
  restoreLearned,
  ticketsOf,
  type AcceptConflict,
  type LearnedAnswerStore,
  type LearnedCandidate,
  type LearnedPair,
  type LearnedRefusal,
  type PreviousAnswer,
  type ShownTarget,
  type UpdateTarget,
} from '../knowledge/learned-answers.js';
import { assistantInstructions, MAX_CANDIDATE_ANSWER_CHARS, MAX_CANDIDATE_QUESTION_CHARS, oneCustomerDetails, questionLinksNotInAnswer, type ScrubSummary } from '../knowledge/learned-candidates.js';
import type { QaSearch } from '../search/types.js';
import { draftPlaceholders } from '../tickets/draft-placeholders.js';
import { listCorrectedSources, type CorrectedSource } from '../tickets/trust.js';
import { ANONYMOUS_OPERATOR, type CsrfTokens } from './auth.js';
import { html, type SafeHtml } from './html.js';
import { HttpError, type Handler, type HandlerResult } from './http.js';
import { csrfField, flashBanner, layout, renderMessagePage, type Flash } from './views.js';

/** What the Knowledge page needs. */
export interface KnowledgePageDeps {
  learned: LearnedAnswerStore;
  /** The Q&A backend, which takes accepted pairs itself when it can (Qdrant); the embedded index reads Redis. */
  qa?: QaSearch | undefined;
  csrf: CsrfTokens;
  /**
   * Renders the knowledge-gaps section (issue 14 §3) placed between the candidates and the accepted pairs; the page
   * shows nothing there without it.
   */
  gaps?: (() => Promise<SafeHtml | null>) | undefined;
  /**
   * The texts the agent's searches found for a candidate's ticket ({@link searchedKnowledgeOf}): a reference they
   * write (an error code, a help-centre link) is the company's, not named among one customer's details. Without it
   * every reference-shaped run is named (bug review R1 of session 51).
   */
  ticketKnowledge?: ((ticketId: string) => Promise<readonly string[]>) | undefined;
}

/**
 * The manual sections and Q&A rows an agent run's searches returned, as {@link oneCustomerDetails} reads knowledge:
 * not a learned pair (learned#…), which is itself one customer's reply.
 */
export function searchedKnowledgeOf(agent: Pick<AgentResult, 'subtasks'> | undefined): string[] {
  const texts = new Set<string>();
  for (const subtask of agent?.subtasks ?? []) {
    for (const call of subtask.toolResults.flat()) for (const hit of call.results) if (!hit.fileName.startsWith('learned#')) texts.add(hit.content);
  }
  return [...texts];
}

const DONE = ['accepted', 'updated', 'discarded', 'removed', 'restored'] as const;
const pageQuerySchema = z.object({
  done: z.enum(DONE).optional(),
  id: z.coerce.number().int().min(1).optional(),
  index: z.literal('failed').optional(),
});
const idSchema = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
/** The `target` field of an accept form: what the page offered, `new` or `<pair id>:<pair stamp>`. */
const TARGET_FIELD = /^(?:new|(\d{1,15}):([0-9a-f]{16}))$/;
const acceptFormSchema = z.object({
  question: z.string().max(MAX_CANDIDATE_QUESTION_CHARS * 2),
  answer: z.string().max(MAX_CANDIDATE_ANSWER_CHARS * 2),
  asNew: z.literal('1').optional(),
  target: z.string().regex(TARGET_FIELD),
});

/** A pair's Restore form: which previous answer (1 = the latest), and the version of the pair the page showed. */
const restoreFormSchema = z.object({
  version: z.coerce.number().int().min(1).max(MAX_PREVIOUS_ANSWERS),
  stamp: z.string().regex(/^[0-9a-f]{16}$/),
});

/** The `target` field of a candidate's accept form for what the page offers. */
export function targetField(target: UpdateTarget | undefined): string {
  return target ? `${target.pair.id}:${pairStamp(target.pair)}` : 'new';
}

/** What a posted `target` field says the page offered (the form schema has checked its shape). */
function shownTargetOf(field: string): ShownTarget {
  const m = TARGET_FIELD.exec(field);
  return m?.[1] && m[2] ? { kind: 'update', pairId: Number(m[1]), stamp: m[2] } : { kind: 'new' };
}

function conflictPage(conflict: AcceptConflict, user: string | undefined, what = 'the candidate was not accepted: reload the Knowledge page, check the pair and the candidate, and accept again'): HandlerResult {
  const message = `learned#${conflict.pairId} ${conflict.change} since this page was shown, so ${what}.`;
  return { status: 409, html: renderMessagePage({ status: 409, message, user, back: '/knowledge' }) };
}

function idOf(params: Record<string, string | undefined>): number {
  const parsed = idSchema.safeParse(params.id);
  if (!parsed.success) throw new HttpError(404, 'No such learned answer');
  return parsed.data;
}

function refusalPage(refusal: LearnedRefusal, user: string | undefined): HandlerResult {
  const status = refusal.outcome === 'not-found' ? 404 : 400;
  return { status, html: renderMessagePage({ status, message: refusal.message, user, back: '/knowledge' }) };
}

function flashOf(query: z.output<typeof pageQuerySchema>): Flash | undefined {
  if (!query.done) return undefined;
  const pair = `learned#${query.id ?? '?'}`;
  if (query.index === 'failed') {
    return { kind: 'bad', message: `The change to ${pair} is saved, but the Q&A server did not take it; the next Q&A reindex applies it.` };
  }
  switch (query.done) {
    case 'accepted':
      return { kind: 'ok', message: `Accepted as ${pair}: the agent finds it from now on.` };
    case 'updated':
      return { kind: 'ok', message: `Updated ${pair} with the candidate: the agent finds the new text from now on.` };
    case 'discarded':
      return { kind: 'ok', message: `Discarded candidate ${query.id ?? ''}.` };
    case 'removed':
      return { kind: 'ok', message: `Removed ${pair} from the knowledge base.` };
    case 'restored':
      return { kind: 'ok', message: `Restored the previous answer of ${pair}: the agent finds it from now on; the text it replaced is among its previous answers.` };
  }
}

/** The Knowledge page's handlers. */
export function knowledgePageHandlers(deps: KnowledgePageDeps): Record<'page' | 'accept' | 'discard' | 'remove' | 'restore', Handler> {
  const operator = (user: string | undefined) => user ?? ANONYMOUS_OPERATOR;
  return {
    async page({ query, user }) {
      const parsed = pageQuerySchema.safeParse(query);
      if (!parsed.success) throw new HttpError(400, 'Invalid page address');
      const [candidates, pairs] = await Promise.all([deps.learned.candidates(), deps.learned.pairs()]);
      const otherAnswers = otherAnswersOfEach(candidates);
      const items = await Promise.all(
        candidates.map(async (candidate) => ({
          candidate,
          target: await deps.learned.updateTargetOf(candidate, pairs),
          otherAnswers: otherAnswers.get(candidate.id) ?? [],
          ...(deps.ticketKnowledge ? { knowledge: await deps.ticketKnowledge(candidate.ticketId) } : {}),
        })),
      );
      const gaps = deps.gaps ? await deps.gaps() : null;
      const corrected = await listCorrectedSources(deps.learned.connection, deps.learned.prefix, CORRECTED_SHOWN);
      return {
        status: 200,
        html: renderKnowledgePage({ candidates: items, pairs, gaps, corrected, csrfToken: deps.csrf.tokenFor(operator(user)), user, flash: flashOf(parsed.data) }),
      };
    },

    async accept({ params, body, user }) {
      const id = idOf(params);
      const form = acceptFormSchema.safeParse(body ?? {});
      if (!form.success) throw new HttpError(400, 'The form was not filled in as expected; reload the page and try again');
      // The page's offer, not the edited question, decides between a new pair and an update: the operator accepted
      // what the button said.
      const result = await acceptLearned({ store: deps.learned, qa: deps.qa }, id, {
        by: operator(user),
        question: form.data.question,
        answer: form.data.answer,
        shown: shownTargetOf(form.data.target),
        ...(form.data.asNew ? { asNew: true } : {}),
      });
      if (result.outcome === 'conflict') return conflictPage(result, user);
      if (result.outcome !== 'accepted') return refusalPage(result, user);
      const index = result.indexError ? '&index=failed' : '';
      return { status: 303, location: `/knowledge?done=${result.updated ? 'updated' : 'accepted'}&id=${result.pair.id}${index}` };
    },

    async discard({ params, user }) {
      const id = idOf(params);
      const result = await deps.learned.discard(id);
      if (result.outcome !== 'discarded') return refusalPage(result, user);
      return { status: 303, location: `/knowledge?done=discarded&id=${id}` };
    },

    async remove({ params, user }) {
      const id = idOf(params);
      const result = await removeLearned({ store: deps.learned, qa: deps.qa }, id);
      if (result.outcome !== 'removed') return refusalPage(result, user);
      return { status: 303, location: `/knowledge?done=removed&id=${id}${result.indexError ? '&index=failed' : ''}` };
    },

    async restore({ params, body, user }) {
      const id = idOf(params);
      const form = restoreFormSchema.safeParse(body ?? {});
      if (!form.success) throw new HttpError(400, 'The form was not filled in as expected; reload the page and try again');
      // Only the version of the pair the page showed: the previous answer chosen is the one the operator read.
      const result = await restoreLearned({ store: deps.learned, qa: deps.qa }, id, { by: operator(user), version: form.data.version, stamp: form.data.stamp });
      if (result.outcome === 'conflict') return conflictPage(result, user, 'nothing was restored: reload the Knowledge page, check the pair and its previous answers, and restore again');
      if (result.outcome !== 'restored') return refusalPage(result, user);
      return { status: 303, location: `/knowledge?done=restored&id=${id}${result.indexError ? '&index=failed' : ''}` };
    },
  };
}

/** Data of the Knowledge page. */
export interface KnowledgePageView {
  /**
   * Each pending candidate, the accepted pair it would update, and the other pending candidates that answer its
   * question differently ({@link otherAnswersOfEach}; none when absent).
   */
  candidates: { candidate: LearnedCandidate; target: UpdateTarget | undefined; otherAnswers?: LearnedCandidate[]; knowledge?: readonly string[] }[];
  pairs: LearnedPair[];
  /** The gaps section, when one is wired (see {@link KnowledgePageDeps.gaps}). */
  gaps: SafeHtml | null;
  /** The sources reviewers corrected, most recently first (src/tickets/trust.ts `listCorrectedSources`); none when absent. */
  corrected?: CorrectedSource[];
  csrfToken: string;
  user: string | undefined;
  flash?: Flash | undefined;
}

function rowsFor(text: string, min: number, max: number): number {
  const lines = text.split('\n').reduce((n, line) => n + Math.max(1, Math.ceil(line.length / 50)), 0);
  return Math.min(Math.max(lines + 1, min), max);
}

/**
 * What the scrub did, in words that do not claim more: the rules find labelled and shaped data, not a company, a
 * relative named in passing or what one customer was refunded, and the model's pass may not have run.
 */
function scrubNote(scrub: ScrubSummary): string {
  if (scrub.modelPass === 'done') {
    const found = scrub.replaced > 0 ? `the rules and the model replaced ${scrub.replaced}` : 'the rules and the model found nothing to replace';
    return `${found}; check it holds nothing specific to one customer before accepting`;
  }
  const count = scrub.replaced > 0 ? `${scrub.replaced} replaced` : 'nothing replaced';
  const failed = scrub.modelPass === 'failed' ? ' (the model’s check failed)' : '';
  return `${count} by the rules${failed}; read it for names, companies, amounts and dates before accepting`;
}

/**
 * Where a candidate came from: its ticket, or — folded approvals of the same pair — how many approvals proposed it and
 * a link to each ticket kept, its own first.
 */
function provenance(c: LearnedCandidate): SafeHtml {
  const approvals = approvalsOf(c);
  if (approvals <= 1) return html`from <a href="/tickets/${c.ticketId}">ticket ${c.ticketId.slice(0, 12)}</a>`;
  const tickets = ticketsOf(c);
  const links = tickets.map((id, i) => html`${i > 0 ? ', ' : ''}<a href="/tickets/${id}">${id.slice(0, 12)}</a>`);
  const unlisted = approvals - tickets.length;
  return html`proposed by ${approvals} approvals (tickets ${links}${unlisted > 0 ? ` and ${unlisted} more` : ''})`;
}

/** The other pending candidates that answer the same question differently, named so that the reviewer compares them. */
function otherAnswersNote(others: readonly LearnedCandidate[]): SafeHtml | null {
  if (others.length === 0) return null;
  const links = others.map((o, i) => html`${i > 0 ? ', ' : ''}<a href="#candidate-${o.id}">candidate ${o.id}</a>`);
  const verb = others.length === 1 ? 'answers' : 'answer';
  return html`<p class="flash bad small">Another pending candidate answers the same question differently: ${links} ${verb} it with other text. Compare them before you accept one; accepting both teaches the agent two answers.</p>`;
}

/**
 * Amounts, dates, companies and reference numbers of a candidate (oneCustomerDetails): what a reply said of the one
 * customer it went to reaches every later customer once learned, and the scrub removes only people's data (audit s49
 * H4, MED 6; security review 19).
 */
function customerDetailsNote(details: readonly { text: string }[]): SafeHtml | null {
  if (details.length === 0) return null;
  return html`<p class="flash bad small" role="alert">Amounts, dates, companies or reference numbers that may be this one customer’s: <bdi>${details.map((d) => d.text).join(', ')}</bdi>. Every later customer’s agent reads a learned pair as our answer: make them general or remove them, unless they hold for everyone (a plan’s price, a release date, a partner, an error code).</p>`;
}

/**
 * Placeholders of the scrub in a candidate's answer ([氏名]様…): the model copies them into a later customer's reply,
 * which then waits for a person (first-ten-minutes finding 2). The question may keep them: it is only searched.
 */
function placeholderNote(answer: string): SafeHtml | null {
  const placeholders = draftPlaceholders(answer);
  if (placeholders.length === 0) return null;
  const [what, it] = placeholders.length === 1 ? ['the placeholder', 'it'] : ['the placeholders', 'them'];
  return html`<p class="flash bad small" role="alert">The answer holds ${what} <bdi>${placeholders.join(', ')}</bdi>: a reply that copies the answer would carry ${it} to the customer as written. Write the answer without ${it} (“お客様”, or nothing) before you accept.</p>`;
}

function renderCandidate({ candidate: c, target, otherAnswers = [], knowledge }: KnowledgePageView['candidates'][number], csrfToken: string): SafeHtml {
  const scrub = scrubNote(c.scrub);
  // Left out of the question when proposed, or still in it (proposed before they were, or edited back in).
  const instructions = (c.scrub.assistantInstructions ?? 0) > 0 || assistantInstructions(c.question).length > 0;
  // Invisible characters in a customer's mail are rarely an accident: they hide text from the people who review it.
  const invisible = c.scrub.invisibleRemoved ?? 0;
  const linksReplaced = c.scrub.linksReplaced ?? 0;
  const links = linksReplaced > 0 ? ` · ${linksReplaced} of the customer’s links, addresses or phone numbers replaced in the question` : '';
  // What a question still links to, writes to or calls that the answer does not: a candidate proposed before they were
  // replaced when built, or an edit. The model reads the question of every pair it finds, and may repeat it.
  const unvouched = questionLinksNotInAnswer(c.question, c.answer);
  // Each <textarea> starts with the line feed the HTML parser drops, so a text's own leading newline is kept.
  return html`<article class="candidate" id="candidate-${c.id}">
  <header>
    <h3>Candidate ${c.id}</h3>
    <span class="small muted">${provenance(c)} · ${c.proposedAt.slice(0, 16).replace('T', ' ')} · split by ${c.origin}</span>
    ${target ? html`<span class="badge update" title="similarity ${target.similarity.toFixed(2)}">update of learned#${target.pair.id}</span>` : null}
  </header>
  ${target ? renderUpdateTarget(c, target) : null}
  ${otherAnswersNote(otherAnswers)}
  <form method="post" action="/knowledge/candidates/${c.id}/accept">
    ${csrfField(csrfToken)}
    <input type="hidden" name="target" value="${targetField(target)}">
    <label for="q-${c.id}" class="small muted">Question</label>
    <textarea id="q-${c.id}" name="question" rows="${rowsFor(c.question, 2, 8)}" required maxlength="${MAX_CANDIDATE_QUESTION_CHARS}">\n${c.question}</textarea>
    <label for="a-${c.id}" class="small muted">Answer</label>
    <textarea id="a-${c.id}" name="answer" rows="${rowsFor(c.answer, 4, 16)}" required maxlength="${MAX_CANDIDATE_ANSWER_CHARS}">\n${c.answer}</textarea>
    ${
      invisible > 0
        ? html`<p class="flash bad small" role="alert">${invisible} invisible character${invisible === 1 ? '' : 's'} removed (tag, zero-width or text-direction characters: text a reader does not see, possibly instructions hidden for the model). Check the ticket before you accept.</p>`
        : null
    }
    ${
      instructions
        ? html`<p class="flash bad small" role="alert">The customer’s mail contains instructions to the assistant or a made-up answer line; check the ticket, the question and the answer before accepting.</p>`
        : null
    }
    ${
      unvouched.length > 0
        ? html`<p class="flash bad small" role="alert">The question holds links, addresses or phone numbers the answer does not: <bdi>${unvouched.join(', ')}</bdi>. They are the customer’s words, not ours: replace them (for example with [URL]) before you accept.</p>`
        : null
    }
    ${customerDetailsNote(oneCustomerDetails(c.question, c.answer, knowledge ? { knowledge } : {}))}
    ${placeholderNote(c.answer)}
    <p class="small muted">Stored exactly as written here · ${scrub}${links}</p>
    <div class="actions">
      <button type="submit" class="primary">${target ? `Accept as update of learned#${target.pair.id}` : 'Accept'}</button>
      ${target ? html`<label class="small"><input type="checkbox" name="asNew" value="1"> store as a new pair instead</label>` : null}
    </div>
  </form>
  <form method="post" action="/knowledge/candidates/${c.id}/discard" class="inline">
    ${csrfField(csrfToken)}
    <button type="submit" class="danger">Discard</button>
  </form>
</article>`;
}

/**
 * What accepting a candidate as an update replaces: the pair's question and current answer, how that text came about,
 * and a warning when a reviewer's correction would give way to a text nobody corrected (audit H4: an unchanged
 * approval of a stale draft proposes the stale fact again, offered as an update of the pair that fixed it).
 */
function renderUpdateTarget(c: LearnedCandidate, target: UpdateTarget): SafeHtml {
  const pair = target.pair;
  const corrected = pairCorrected(pair);
  const candidateCorrects = isCorrection(c.approval);
  const warning =
    corrected && !candidateCorrects
      ? html`<p class="flash bad small correction-warning" role="alert">learned#${pair.id}’s answer is a reviewer’s correction (ticket <a href="/tickets/${pair.ticketId}">${pair.ticketId.slice(0, 12)}</a>), and ${
          c.approval ? 'this candidate comes from a draft approved as the agent wrote it' : 'it is not recorded whether this candidate’s approval changed the draft'
        }: it may bring back what the correction fixed. Compare the two answers; accept only if the candidate is right. The replaced answer stays among the pair’s previous answers.</p>`
      : null;
  return html`<div class="update-target">
    <p class="small muted">Close to the accepted question “${pair.question}”: accepting replaces that pair’s text (it keeps id learned#${pair.id}). Its current answer (${describeApproval(pair.approval, pair.answerEdited)}):</p>
    <blockquote class="small current-answer">${pair.answer}</blockquote>
    <p class="small muted">This candidate: ${describeApproval(c.approval)}${c.proposedAnswer !== undefined && c.proposedAnswer !== c.answer ? '; its answer was edited since it was proposed (the approvals of the reply do not vouch for it)' : ''}.</p>
    ${warning}
  </div>`;
}

/** Every ticket that taught a pair, oldest first, the one whose text it holds marked. */
function taughtLinks(p: LearnedPair): SafeHtml {
  const links = p.ticketIds.map((id, i) => html`${i > 0 ? html`<br>` : null}<a href="/tickets/${id}"${id === p.ticketId ? html` title="taught the current text"` : null}>${id.slice(0, 12)}</a>${id === p.ticketId && p.ticketIds.length > 1 ? html` <span class="muted">(current text)</span>` : null}`);
  // A pair stored before ticketIds held its own ticket's id.
  return p.ticketIds.includes(p.ticketId) ? html`${links}` : html`<a href="/tickets/${p.ticketId}">${p.ticketId.slice(0, 12)}</a>${p.ticketIds.length > 0 ? html`<br>` : null}${links}`;
}

/** A pair's previous answers, newest first, each with who taught and replaced it and a Restore button. */
function renderPrevious(p: LearnedPair, csrfToken: string): SafeHtml | null {
  const previous = p.previous ?? [];
  if (previous.length === 0) return null;
  const stamp = pairStamp(p);
  const items = previous.map(
    (old: PreviousAnswer, i) => html`<li>
      <div class="a small">${old.answer}</div>
      ${old.question !== p.question ? html`<div class="small muted">Question: ${old.question}</div>` : null}
      <div class="small muted">ticket <a href="/tickets/${old.ticketId}">${old.ticketId.slice(0, 12)}</a> · ${describeApproval(old.approval, old.answerEdited)} · accepted by ${old.acceptedBy} ${old.acceptedAt.slice(0, 16).replace('T', ' ')} · replaced by ${old.replacedBy} ${old.replacedAt.slice(0, 16).replace('T', ' ')}</div>
      <form method="post" action="/knowledge/pairs/${p.id}/restore" class="inline">${csrfField(csrfToken)}<input type="hidden" name="version" value="${String(i + 1)}"><input type="hidden" name="stamp" value="${stamp}"><button type="submit">Restore this answer</button></form>
    </li>`,
  );
  return html`<details class="previous"><summary class="small">${previous.length} previous answer${previous.length === 1 ? '' : 's'}</summary><ol>${items}</ol></details>`;
}

function renderPairs(pairs: LearnedPair[], csrfToken: string): SafeHtml {
  if (pairs.length === 0) return html`<p class="empty">No learned pairs yet.</p>`;
  const rows = pairs.map(
    (p) => html`<tr id="pair-${p.id}">
      <td class="nowrap"><code>learned#${p.id}</code></td>
      <td class="qa"><div class="q">${p.question}</div><div class="a small">${p.answer}</div><div class="small muted">${describeApproval(p.approval, p.answerEdited)}</div>${renderPrevious(p, csrfToken)}</td>
      <td class="nowrap small">${taughtLinks(p)}</td>
      <td class="nowrap small">${p.acceptedBy}<br><span class="muted">${p.acceptedAt.slice(0, 16).replace('T', ' ')}</span></td>
      <td><form method="post" action="/knowledge/pairs/${p.id}/remove">${csrfField(csrfToken)}<button type="submit" class="danger">Remove</button></form></td>
    </tr>`,
  );
  return html`<table>
    <thead><tr><th>Pair</th><th>Question and answer</th><th>Taught by</th><th>Accepted</th><th></th></tr></thead>
    <tbody>${rows}</tbody>
  </table>`;
}

/** Corrected sources the page lists: the latest; `npm run knowledge -- trust` lists them all. */
const CORRECTED_SHOWN = 50;

/**
 * The sources reviewers corrected, each with what it said and the ticket of its latest correction: the manual
 * sections and Q&A rows to fix (not trusted until their text changes), those replaced by a newer text since, and
 * those a correction did not say (to check). Nothing when none.
 */
function renderCorrected(corrected: readonly CorrectedSource[]): SafeHtml | null {
  if (corrected.length === 0) return null;
  const rows = corrected.map((c) => {
    const latest = c.corrections[0]!;
    const values = [...new Set(c.corrections.flatMap((x) => x.values))].join(', ');
    const state = c.supersededBy
      ? html`<span class="muted">replaced by a newer text</span>`
      : c.blocking
        ? html`<strong>fix and reindex</strong>: not trusted until its text changes`
        : html`<span class="muted">no cited source said the value taken out: check it</span>`;
    return html`<tr>
      <td><bdi>${c.label}</bdi><div class="small muted"><code>${c.sourceId}</code></div></td>
      <td class="nowrap">${values}</td>
      <td class="nowrap small"><a href="/tickets/${latest.ticketId}">${latest.ticketId.slice(0, 12)}</a>${c.corrections.length > 1 ? ` and ${c.corrections.length - 1} more` : ''}</td>
      <td class="small">${state}</td>
    </tr>`;
  });
  return html`<section class="card" id="corrected">
  <h2>Corrected by reviewers <span class="muted">(${corrected.length})</span></h2>
  <p class="small muted">Sources whose value a reviewer replaced in an approved reply. A mistaken one is withdrawn with <code>npm run knowledge -- trust --drop-review &lt;ticket id&gt;</code>.</p>
  <table>
    <thead><tr><th>Source</th><th>Value</th><th>Ticket</th><th></th></tr></thead>
    <tbody>${rows}</tbody>
  </table>
</section>`;
}

/** The Knowledge page. */
export function renderKnowledgePage(view: KnowledgePageView): SafeHtml {
  const body = html`
${flashBanner(view.flash)}
<section class="card">
  <h2>Candidates <span class="muted">(${view.candidates.length})</span></h2>
  <p class="small muted">Proposed from replies an operator approved, with personal data replaced by placeholders. Check and edit them: what you accept is what every later customer’s agent run can read.</p>
  ${view.candidates.length > 0 ? view.candidates.map((c) => renderCandidate(c, view.csrfToken)) : html`<p class="empty">No candidates waiting.</p>`}
</section>
${view.gaps}
${renderCorrected(view.corrected ?? [])}
<section class="card">
  <h2>Learned pairs <span class="muted">(${view.pairs.length})</span></h2>
  <p class="small muted">Searched beside the Q&amp;A files at once, no reindex needed; <code>npm run knowledge -- export FILE</code> writes them as CSV.</p>
  ${renderPairs(view.pairs, view.csrfToken)}
</section>`;
  return layout({ title: 'Knowledge', user: view.user, section: 'knowledge', body });
}
