/**
 * A reviewer's correction is never lost by a later accept (audit H4, HIGH 2; LOW 7). An approval that corrected the
 * agent's draft teaches a pair; a later approval of a stale draft, unchanged, proposes the old text as an update of
 * it. The candidate records how its approval treated the draft, the Knowledge page shows the pair's current answer
 * beside it and warns, accepting it keeps the corrected text among the pair's previous answers, and the operator
 * restores it (page and CLI). A ticket's page lists what its approval taught; the pairs table links every ticket.
 * Real redis-server, the proposal job by rules (no model), the dashboard over real HTTP.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { proposeLearnedAnswer } from '../../jobs/propose-learned-answer.js';
import { LearnedAnswerStore, learnedKeys, MAX_PREVIOUS_ANSWERS, pairCorrected, pairStamp, type LearnedPair } from '../../src/knowledge/learned-answers.js';
import type { ApprovalRecord } from '../../src/tickets/outcome.js';
import { newTicket, type Ticket } from '../../src/tickets/ticket.js';
import type { TicketStore } from '../../src/tickets/ticket-store.js';
import { basicAuth, useDashboardHarness, type TestDashboard } from '../support/dashboard.js';
import { runNpm } from '../support/pipeline.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();

const QUESTION = '解約後のデータは何日間保持されますか？';
const STALE = '解約後のデータは30日間保持されます。';
const CORRECTED = '解約後のデータは90日間保持されます。期間内であれば復元できます。';

/** A ticket approved with `reply` as the operator sent it, and `approval` as the review recorded it. */
async function approvedTicket(tickets: TicketStore, reply: string, approval: ApprovalRecord): Promise<Ticket> {
  const ticket = newTicket({ messageId: `<${randomUUID()}@customer.example>`, from: 'suzuki@customer.example', subject: '解約', question: QUESTION, actor: 'poller' });
  await tickets.createIfAbsent(ticket);
  await tickets.transition(ticket.id, { from: ['received'], to: 'processing', actor: 'test' });
  await tickets.transition(ticket.id, { from: ['processing'], to: 'parked', actor: 'test', patch: { draft: STALE } });
  return tickets.transition(ticket.id, { from: ['parked'], to: 'approved', actor: 'operator:sato', patch: { draft: reply, approval } });
}

/** The proposal job on `ticket`, by rules; the one candidate it stored. */
async function proposed(d: TestDashboard, learned: LearnedAnswerStore, ticket: Ticket): Promise<number> {
  const result = await proposeLearnedAnswer({ ticketId: ticket.id }, { store: d.store, learned });
  expect(result.proposed).toHaveLength(1);
  return result.proposed[0]!;
}

/**
 * The correction taught pair P; an unchanged approval of the stale draft then proposed candidate C as an update of P.
 */
async function correctedThenStale(d: TestDashboard): Promise<{ learned: LearnedAnswerStore; pairId: number; staleCandidate: number; corrector: Ticket; stale: Ticket }> {
  const learned = new LearnedAnswerStore(harness.redis(), { prefix: d.prefix });
  const corrector = await approvedTicket(d.store, CORRECTED, { edited: true, editRatio: 0.4, factsChanged: ['number'] });
  const pairId = await proposed(d, learned, corrector);
  expect(await learned.accept(pairId, { by: 'kato' }, new Date('2026-05-01T09:00:00Z'))).toMatchObject({ outcome: 'accepted', updated: false });
  const stale = await approvedTicket(d.store, STALE, { edited: false, editRatio: 0 });
  const staleCandidate = await proposed(d, learned, stale);
  expect((await learned.updateTargetOf((await learned.candidate(staleCandidate))!))?.pair.id).toBe(pairId);
  return { learned, pairId, staleCandidate, corrector, stale };
}

async function page(d: TestDashboard, pathname: string): Promise<string> {
  const res = await fetch(`${d.url}${pathname}`, { headers: { authorization: AUTH } });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return text;
}

/** The hidden fields of the first form posting to `action` on `html`. */
function formFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  expect(start, `the page has a form posting to ${action}`).toBeGreaterThan(0);
  const form = html.slice(start, html.indexOf('</form>', start));
  return Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
}

async function post(d: TestDashboard, action: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${d.url}${action}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { authorization: AUTH, 'content-type': 'application/x-www-form-urlencoded', origin: d.url },
    body: new URLSearchParams(form).toString(),
  });
}

describe('a reviewer’s correction and a later accept', () => {
  it('keeps the corrected answer when an unchanged approval’s stale candidate updates the pair, and restores it', async () => {
    const d = await harness.start();
    const { learned, pairId, staleCandidate, corrector, stale } = await correctedThenStale(d);
    expect((await learned.candidate(staleCandidate))?.approval).toEqual({ edited: false });
    expect((await learned.pair(pairId))?.approval).toEqual({ edited: true, factsChanged: ['number'] });

    // The CLI's path: no page, the candidate updates the close pair.
    const updated = await learned.accept(staleCandidate, { by: 'ito' }, new Date('2026-05-02T09:00:00Z'));
    expect(updated).toMatchObject({ outcome: 'accepted', updated: true, pair: { id: pairId, answer: STALE } });
    const pair = (await learned.pair(pairId))!;
    expect(pair.previous).toEqual([
      {
        question: QUESTION,
        answer: CORRECTED,
        ticketId: corrector.id,
        acceptedBy: 'kato',
        acceptedAt: '2026-05-01T09:00:00.000Z',
        approval: { edited: true, factsChanged: ['number'] },
        replacedBy: 'ito',
        replacedAt: '2026-05-02T09:00:00.000Z',
      },
    ]);
    expect(pair.ticketIds).toEqual([corrector.id, stale.id]);

    const restored = await learned.restore(pairId, { by: 'kato', version: 1 }, new Date('2026-05-03T09:00:00Z'));
    expect(restored).toMatchObject({ outcome: 'restored', pair: { id: pairId, answer: CORRECTED, ticketId: corrector.id, approval: { edited: true, factsChanged: ['number'] }, acceptedBy: 'kato' } });
    const after = (await learned.pair(pairId))!;
    expect(after.answer).toBe(CORRECTED);
    expect(pairCorrected(after)).toBe(true);
    // The restore is undone the same way: the stale text is now the previous answer.
    expect(after.previous?.map((p) => [p.answer, p.replacedBy])).toEqual([[STALE, 'kato']]);
    expect((await learned.qaPairs()).find((p) => p.id === `learned#${pairId}`)?.answer).toBe(CORRECTED);
  });

  it('keeps at most MAX_PREVIOUS_ANSWERS previous answers, newest first', async () => {
    const d = await harness.start();
    const learned = new LearnedAnswerStore(harness.redis(), { prefix: d.prefix });
    const [first] = await learned.propose('a'.repeat(64), [{ question: QUESTION, answer: 'answer 0', origin: 'rules', scrub: { replaced: 0, modelPass: 'off' } }]);
    await learned.accept(first!.id, { by: 'op' });
    for (let i = 1; i <= MAX_PREVIOUS_ANSWERS + 2; i++) {
      const [c] = await learned.propose(String(i).repeat(64), [{ question: QUESTION, answer: `answer ${i}`, origin: 'rules', scrub: { replaced: 0, modelPass: 'off' } }]);
      expect(await learned.accept(c!.id, { by: 'op' })).toMatchObject({ outcome: 'accepted', updated: true });
    }
    const pair = (await learned.pair(first!.id))!;
    expect(pair.answer).toBe(`answer ${MAX_PREVIOUS_ANSWERS + 2}`);
    expect(pair.previous?.map((p) => p.answer)).toEqual(Array.from({ length: MAX_PREVIOUS_ANSWERS }, (_, i) => `answer ${MAX_PREVIOUS_ANSWERS + 1 - i}`));
    expect(await learned.restore(first!.id, { by: 'op', version: MAX_PREVIOUS_ANSWERS + 1 })).toMatchObject({ outcome: 'not-found' });
  });

  it('loads a pair stored before previous answers were kept, updates it, and refuses to restore what it never kept', async () => {
    const d = await harness.start();
    const learned = new LearnedAnswerStore(harness.redis(), { prefix: d.prefix });
    const old = { id: 7, question: QUESTION, answer: CORRECTED, ticketId: 'c'.repeat(64), ticketIds: ['c'.repeat(64)], acceptedBy: 'kato', acceptedAt: '2026-01-01T00:00:00.000Z', createdAt: '2026-01-01T00:00:00.000Z' };
    await harness.redis().hset(learnedKeys(d.prefix).pairs, '7', JSON.stringify(old));
    await harness.redis().set(learnedKeys(d.prefix).seq, '7');
    expect(await learned.pair(7)).toEqual(old);
    expect(pairCorrected(old)).toBe(false);
    expect(await learned.restore(7, { by: 'op', version: 1 })).toMatchObject({ outcome: 'not-found' });
    const [c] = await learned.propose('d'.repeat(64), [{ question: QUESTION, answer: STALE, origin: 'rules', scrub: { replaced: 0, modelPass: 'off' } }]);
    expect(await learned.accept(c!.id, { by: 'op' })).toMatchObject({ outcome: 'accepted', updated: true, pair: { id: 7, answer: STALE } });
    expect((await learned.pair(7))?.previous?.map((p) => [p.answer, p.ticketId, p.approval])).toEqual([[CORRECTED, 'c'.repeat(64), undefined]]);
    expect(await learned.restore(7, { by: 'op', version: 1 })).toMatchObject({ outcome: 'restored', pair: { answer: CORRECTED } });
  });

  it('counts an answer the accepting operator rewrote as a correction', async () => {
    const d = await harness.start();
    const learned = new LearnedAnswerStore(harness.redis(), { prefix: d.prefix });
    const [c] = await learned.propose('e'.repeat(64), [{ question: QUESTION, answer: STALE, origin: 'rules', scrub: { replaced: 0, modelPass: 'off' } }]);
    const accepted = await learned.accept(c!.id, { by: 'op', answer: CORRECTED });
    expect(accepted).toMatchObject({ outcome: 'accepted', pair: { answer: CORRECTED, answerEdited: true } });
    expect(pairCorrected((accepted as { pair: LearnedPair }).pair)).toBe(true);
  });
});

describe('the Knowledge page and a correction', () => {
  it('shows the pair’s current answer beside the stale candidate, warns, and restores the corrected answer with a CSRF-checked form', async () => {
    const d = await harness.start();
    const { learned, pairId, staleCandidate, corrector, stale } = await correctedThenStale(d);
    const before = await page(d, '/knowledge');
    const article = before.slice(before.indexOf(`id="candidate-${staleCandidate}"`), before.indexOf('</article>', before.indexOf(`id="candidate-${staleCandidate}"`)));
    expect(article).toContain('90日間保持されます');
    expect(article).toContain('correction-warning');

    const accept = formFields(before, `/knowledge/candidates/${staleCandidate}/accept`);
    const res = await post(d, `/knowledge/candidates/${staleCandidate}/accept`, { ...accept, question: QUESTION, answer: STALE });
    expect(res.headers.get('location')).toBe(`/knowledge?done=updated&id=${pairId}`);

    const after = await page(d, '/knowledge');
    const row = after.slice(after.indexOf(`id="pair-${pairId}"`), after.indexOf('</tr>', after.indexOf(`id="pair-${pairId}"`)));
    // Every ticket that taught the pair is linked, not only the latest.
    expect(row).toContain(`href="/tickets/${corrector.id}"`);
    expect(row).toContain(`href="/tickets/${stale.id}"`);
    const action = `/knowledge/pairs/${pairId}/restore`;
    const restore = formFields(after, action);
    expect(restore).toMatchObject({ version: '1' });
    // No CSRF token: refused, nothing changed.
    const { _csrf: _token, ...unsigned } = restore;
    expect((await post(d, action, unsigned)).status).toBe(403);
    expect((await learned.pair(pairId))?.answer).toBe(STALE);

    const restored = await post(d, action, restore);
    expect(restored.status).toBe(303);
    expect(restored.headers.get('location')).toBe(`/knowledge?done=restored&id=${pairId}`);
    expect((await learned.pair(pairId))?.answer).toBe(CORRECTED);
    // The same form again is for a version of the pair that is gone: a conflict, nothing changed.
    expect((await post(d, action, restore)).status).toBe(409);
    expect((await learned.pair(pairId))?.answer).toBe(CORRECTED);
  });

  it('lists on a ticket’s page the candidates and pairs its approval taught', async () => {
    const d = await harness.start();
    const { pairId, staleCandidate, corrector, stale } = await correctedThenStale(d);
    const correctorPage = await page(d, `/tickets/${corrector.id}`);
    expect(correctorPage).toContain('id="taught"');
    expect(correctorPage).toContain(`href="/knowledge#pair-${pairId}"`);
    const stalePage = await page(d, `/tickets/${stale.id}`);
    expect(stalePage).toContain(`href="/knowledge#candidate-${staleCandidate}"`);
    expect(stalePage).not.toContain(`href="/knowledge#pair-${pairId}"`);
  });
});

describe('npm run knowledge -- restore', () => {
  it('restores a previous answer from the terminal', async () => {
    const d = await harness.start();
    const { learned, pairId, staleCandidate } = await correctedThenStale(d);
    await learned.accept(staleCandidate, { by: 'ito' });
    const env = { REDIS_URL: d.config.REDIS_URL, QUEUE_PREFIX: d.prefix, LOG_LEVEL: 'silent' };
    const knowledge = (...args: string[]) => runNpm(['run', 'knowledge', '--', ...args], env, 60_000);
    const shown = await knowledge('show', `learned#${pairId}`);
    expect(shown.stdout).toContain('Previous answers');
    expect(shown.stdout).toContain('90日間');
    expect(await knowledge('restore', String(pairId), '--by', 'kato')).toMatchObject({ code: 0, stdout: expect.stringContaining(`restored learned#${pairId}`) });
    expect((await learned.pair(pairId))?.answer).toBe(CORRECTED);
  });

  // Bug review B2 (LOW 4): version N from an earlier `show` must not be applied to the pair as it is now.
  it('restores only the pair as `show` printed it, with --stamp', async () => {
    const d = await harness.start();
    const { learned, pairId, staleCandidate } = await correctedThenStale(d);
    await learned.accept(staleCandidate, { by: 'ito' });
    const env = { REDIS_URL: d.config.REDIS_URL, QUEUE_PREFIX: d.prefix, LOG_LEVEL: 'silent' };
    const knowledge = (...args: string[]) => runNpm(['run', 'knowledge', '--', ...args], env, 60_000);
    const stamp = pairStamp((await learned.pair(pairId))!);
    // The command as it runs (walkthrough W1: "knowledge restore 1" is no command of a checkout).
    expect((await knowledge('show', `learned#${pairId}`)).stdout).toContain(`\`npm run knowledge -- restore ${pairId} --version N --stamp ${stamp}\``);
    // Meanwhile someone restored it: the stamp shown is stale, and nothing is restored over their change.
    await learned.restore(pairId, { by: 'sato', version: 1 });
    const now = (await learned.pair(pairId))!;
    const stale = await knowledge('restore', String(pairId), '--by', 'kato', '--stamp', stamp);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`learned#${pairId} changed since it was shown`);
    expect(await learned.pair(pairId)).toEqual(now);
    expect(await knowledge('restore', String(pairId), '--by', 'kato', '--stamp', pairStamp(now))).toMatchObject({ code: 0 });
  });
});
