/**
 * Security review 8's findings on the dashboard, over real HTTP against the dashboard app and a real redis-server:
 * a draft that starts with a newline survives the review page's text area, so approving it untouched is no edit; an
 * API approval names what the caller decided on; a request body that does not decompress is the client's error.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { decodeHTML } from 'entities';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LearnedAnswerStore } from '../../src/knowledge/learned-answers.js';
import { newTicket, ticketIdFor, type Ticket } from '../../src/tickets/ticket.js';
import { basicAuth, useDashboardHarness, postToDashboard, type TestDashboard as Dashboard } from '../support/dashboard.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();
const post = (d: Dashboard, pathname: string, body: { form?: Record<string, string>; json?: unknown }) => postToDashboard(d.url, pathname, body, AUTH);

async function page(d: Dashboard, pathname: string): Promise<string> {
  return (await fetch(`${d.url}${pathname}`, { headers: { authorization: AUTH } })).text();
}

/**
 * The value a browser gives the text area `id` of `markup`: its text with character references decoded, less the one
 * line feed the HTML parser drops right after the start tag (https://html.spec.whatwg.org/#parsing-main-inbody).
 */
function textareaValue(markup: string, id: string): string {
  const raw = new RegExp(`<textarea id="${id}"[^>]*>([^<]*)</textarea>`).exec(markup)?.[1];
  if (raw === undefined) throw new Error(`no textarea #${id}`);
  const text = decodeHTML(raw);
  return text.startsWith('\n') ? text.slice(1) : text;
}

/** The approve form's hidden fields as the page renders them. */
function hiddenFields(markup: string, ticketId: string): Record<string, string> {
  const start = markup.indexOf(`action="/tickets/${ticketId}/approve"`);
  const form = markup.slice(start, markup.indexOf('</form>', start));
  return Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, decodeHTML(m[2]!)]));
}

async function parkedTicket(d: Dashboard, draft = 'Open Settings, then Password.'): Promise<Ticket> {
  const messageId = `<sec8-${randomUUID()}@customer.example>`;
  const id = ticketIdFor(messageId);
  await d.store.createIfAbsent(newTicket({ messageId, from: 'hanako@customer.example', subject: 'Password', question: 'How do I reset my password?', actor: 'poller' }));
  await d.store.transition(id, { to: 'processing', actor: 'agent-worker' });
  return d.store.transition(id, { to: 'parked', actor: 'agent-worker', patch: { reason: 'review mode always', draft } });
}

describe('a draft that starts with a newline in the review page', () => {
  it.each([
    ['one leading newline', '\nDear Hanako,\n\nOpen Settings, then Password.'],
    ['two leading newlines', '\n\nDear Hanako,\n\nOpen Settings & Password.'],
    ['no leading newline', 'Dear Hanako,\n\nOpen Settings, then Password.'],
  ])('shows the stored draft exactly (%s), and approving it untouched is recorded as unedited', async (_name, draft) => {
    const d = await harness.start();
    const t = await parkedTicket(d, draft);
    const detail = await page(d, `/tickets/${t.id}`);
    const shown = textareaValue(detail, 'reply');
    expect(shown).toBe(draft);

    const res = await post(d, `/tickets/${t.id}/approve`, { form: { ...hiddenFields(detail, t.id), reply: shown } });
    expect(res.status).toBe(303);
    const approved = await d.store.require(t.id);
    expect(approved.state).toBe('approved');
    expect(approved.history.at(-1)?.note).toBe('approved');
    expect(approved.draft).toBe(draft);
  });

  it('shows the reply a refused approval submitted exactly, leading newline included', async () => {
    const d = await harness.start();
    const t = await parkedTicket(d);
    const detail = await page(d, `/tickets/${t.id}`);
    const fields = hiddenFields(detail, t.id);
    // Another operator decides first, so this submit is refused and the page shows what it submitted.
    expect((await post(d, `/api/tickets/${t.id}/reject`, { json: { reason: 'answered by phone' } })).status).toBe(200);
    const submitted = '\nDear Hanako,\n\nmy own words';
    const refused = await post(d, `/tickets/${t.id}/approve`, { form: { ...fields, reply: submitted } });
    expect(refused.status).toBe(409);
    expect(textareaValue(await refused.text(), 'submitted')).toBe(submitted);
  });

  it('shows a learned-answer candidate whose question and answer start with a newline exactly on the Knowledge page', async () => {
    const d = await harness.start();
    const learned = new LearnedAnswerStore(harness.redis(), { prefix: d.prefix });
    const [c] = await learned.propose('a'.repeat(64), [{ question: '\n返品の方法は？', answer: '\n\nマイページから申請してください。', origin: 'rules', scrub: { replaced: 0, modelPass: 'off' } }]);
    const stored = (await learned.candidate(c!.id))!;
    const knowledge = await page(d, '/knowledge');
    expect(textareaValue(knowledge, `q-${c!.id}`)).toBe(stored.question);
    expect(textareaValue(knowledge, `a-${c!.id}`)).toBe(stored.answer);
  });
});

describe('POST /api/tickets/:id/approve names what the caller decided on', () => {
  it.each([
    ['an empty body', {}],
    ['only the checks', { checkedNoCopy: true, senderVerified: true }],
  ])('refuses %s (neither reply nor seen) with 400 naming both fields, and approves nothing', async (_name, json) => {
    const d = await harness.start();
    const t = await parkedTicket(d);
    const res = await post(d, `/api/tickets/${t.id}/approve`, { json });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: string };
    expect(error).toMatch(/\breply\b/);
    expect(error).toMatch(/\bseen\b/);
    expect((await d.store.require(t.id)).state).toBe('parked');
    expect(await d.queues.outbound.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0 });
  });

  it.each([
    ['seen', (t: Ticket) => ({ seen: t.history.length })],
    ['reply', () => ({ reply: 'Dear Hanako,\n\nOpen Settings, then Password.' })],
    ['seen and reply', (t: Ticket) => ({ seen: t.history.length, reply: 'Dear Hanako,\n\nOpen Settings.' })],
  ])('approves with %s (202)', async (_name, body) => {
    const d = await harness.start();
    const t = await parkedTicket(d);
    expect((await post(d, `/api/tickets/${t.id}/approve`, { json: body(t) })).status).toBe(202);
    expect((await d.store.require(t.id)).state).toBe('approved');
  });

  it('refuses (409) a draft the agent replaced after the caller read the ticket', async () => {
    const d = await harness.start();
    const t = await parkedTicket(d, 'The draft the caller read');
    const read = (await (await fetch(`${d.url}/api/tickets/${t.id}`, { headers: { authorization: AUTH } })).json()) as Ticket;
    await d.store.transition(t.id, { to: 'processing', actor: 'operator:bob' });
    await d.store.transition(t.id, { to: 'parked', actor: 'agent-worker', patch: { draft: 'A draft nobody read', reason: 'review mode always' } });
    const res = await post(d, `/api/tickets/${t.id}/approve`, { json: { seen: read.history.length } });
    expect(res.status).toBe(409);
    const after = await d.store.require(t.id);
    expect(after.state).toBe('parked');
    expect(after.draft).toBe('A draft nobody read');
  });
});

describe('a request body whose Content-Encoding does not hold', () => {
  const corrupt = Buffer.from('{"reason":"answered by phone"}');
  it.each([
    ['gzip', 400, corrupt],
    ['deflate', 400, corrupt],
    ['br', 400, corrupt],
    ['gzip (truncated)', 400, gzipSync(corrupt).subarray(0, 12)],
    ['compress', 415, corrupt],
    ['x-unknown', 415, corrupt],
  ])('%s: answers %i with a short message and logs no dashboard failure', async (name, status, body) => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const d = await harness.start({}, { logger });
    const t = await parkedTicket(d);
    const encoding = name.split(' ')[0]!;
    for (const [pathname, contentType] of [
      [`/api/tickets/${t.id}/reject`, 'application/json'],
      [`/tickets/${t.id}/reject`, 'application/x-www-form-urlencoded'],
    ] as const) {
      const res = await fetch(`${d.url}${pathname}`, {
        method: 'POST',
        headers: { authorization: AUTH, 'content-type': contentType, 'content-encoding': encoding, origin: d.url },
        body,
        redirect: 'manual',
      });
      expect(res.status, pathname).toBe(status);
      const text = await res.text();
      expect(text, pathname).toMatch(/Content-Encoding|content encoding/i);
      expect(text).not.toMatch(/\bat \S+ \(|Internal error/);
    }
    const logged = lines.map((l) => JSON.parse(l) as { level: number; msg: string; err?: unknown });
    expect(logged.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.join('\n')).not.toContain('Dashboard request failed');
    expect((await d.store.require(t.id)).state).toBe('parked');
  });
});
