import { describe, expect, it } from 'vitest';
import type { PollerStatus } from '../../src/runtime/poller.js';
import { pollerCheck } from '../../src/server/health.js';
import { html, type SafeHtml } from '../../src/server/html.js';
import { checkTimeZone, localTime, pollerProblem, renderTicketDetail, renderTicketList, timeTag, withTicketLinks, type DeploymentProblem } from '../../src/server/views.js';
import { sendRetryStatus } from '../../src/tickets/review.js';
import { describeBounce, newTicket, TICKET_STATES, type HistoryEntry, type OutboundInfo, type Ticket, type TicketState } from '../../src/tickets/ticket.js';

describe('withTicketLinks', () => {
  const id = 'a'.repeat(12) + 'b'.repeat(52);
  const link = `<a href="/tickets/${id}" title="${id}"><code>aaaaaaaaaaaa…</code></a>`;
  it.each([
    ['plain text stays as it is', 'agent failed 3 time(s)', 'agent failed 3 time(s)'],
    ['a ticket id becomes a link', `repeated question (ticket ${id}, sent); parked`, `repeated question (ticket ${link}, sent); parked`],
    ['two ids, at the ends', `${id} and ${id}`, `${link} and ${link}`],
    ['the rest is escaped', `<b>x</b> ${id} "y"`, `&lt;b&gt;x&lt;/b&gt; ${link} &quot;y&quot;`],
    ['a longer hex run is no ticket id', `${id}0`, `${id}0`],
    ['capital hex is no ticket id', id.toUpperCase(), id.toUpperCase()],
  ])('%s', (_case, text, expected) => {
    expect(String(html`${withTicketLinks(text)}`)).toBe(expected);
  });
});

describe('describeBounce', () => {
  it.each([
    [{ status: '5.1.1', diagnostic: '550 5.1.1 User unknown', recipient: 'a@customer.example' }, '5.1.1 550 5.1.1 User unknown (to a@customer.example)'],
    [{ status: '5.3.0' }, '5.3.0'],
    [{ recipient: 'a@customer.example' }, 'no reason given (to a@customer.example)'],
    [{}, 'no reason given'],
  ])('%j → %j', (bounce, expected) => {
    expect(describeBounce(bounce)).toBe(expected);
  });
});

describe('localTime', () => {
  it.each([
    ['2026-03-02T15:04:00.000Z', 'UTC', '2026-03-02 15:04 UTC'],
    ['2026-03-02T15:04:00.000Z', 'Asia/Tokyo', '2026-03-03 00:04 GMT+9'],
    ['2026-03-02T00:00:00.000Z', 'Asia/Tokyo', '2026-03-02 09:00 GMT+9'],
    // Midnight is 00, never 24.
    ['2026-03-01T15:00:00.000Z', 'Asia/Tokyo', '2026-03-02 00:00 GMT+9'],
    // Summer and winter time of the same zone.
    ['2026-01-15T12:00:00.000Z', 'America/New_York', '2026-01-15 07:00 EST'],
    ['2026-07-15T12:00:00.000Z', 'America/New_York', '2026-07-15 08:00 EDT'],
    ['2026-07-15T12:00:00.000Z', 'Asia/Kolkata', '2026-07-15 17:30 GMT+5:30'],
  ])('%s in %s → %s', (iso, zone, expected) => {
    expect(localTime(iso, zone)).toBe(expected);
  });

  it('is undefined for a value that is not a date', () => {
    expect(localTime('', 'UTC')).toBeUndefined();
    expect(localTime('yesterday', 'UTC')).toBeUndefined();
  });
});

describe('timeTag', () => {
  it('keeps the ISO value in the markup and shows the local time', () => {
    expect(String(timeTag('2026-03-02T15:04:00.000Z', 'Asia/Tokyo'))).toBe(
      '<time datetime="2026-03-02T15:04:00.000Z" title="2026-03-02T15:04:00.000Z">2026-03-03 00:04 GMT+9</time>',
    );
  });

  it('shows a value that is not a date as escaped text', () => {
    expect(String(timeTag('<b>soon</b>', 'UTC'))).toBe('&lt;b&gt;soon&lt;/b&gt;');
  });
});

describe('checkTimeZone', () => {
  it('accepts IANA names and refuses what ICU does not know', () => {
    expect(checkTimeZone('Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(checkTimeZone('UTC')).toBe('UTC');
    expect(() => checkTimeZone('Mars/Olympus')).toThrow(/Unknown time zone.*Mars\/Olympus/);
  });
});

describe('pollerProblem: the start page banner about the IMAP poller', () => {
  const now = new Date('2026-11-26T10:00:00.000Z');
  const ago = (s: number) => new Date(now.getTime() - s * 1000);
  const LOGIN = 'IMAP login as support@example.test to imap.example.test:993 failed (wrong IMAP_USER or IMAP_PASSWORD?)';
  const LOST = 'IMAP server imap.example.test:993 unreachable (ECONNREFUSED)';
  const text = (markup: SafeHtml | string) => String(markup).replace(/<[^>]+>/g, '');
  it.each<[string, PollerStatus, 'bad' | 'warn' | undefined, string?, string?]>([
    ['polled recently: nothing to say', { lastSuccessfulPollAt: ago(30) }, undefined],
    ['polled recently, an older failure is history', { lastSuccessfulPollAt: ago(30), lastFailure: { at: ago(600), message: LOGIN } }, undefined],
    // Within the allowed time /readyz stays ok, but the operator is warned that the last attempt failed.
    [
      'polled recently, failing since: a warning',
      { lastSuccessfulPollAt: ago(30), lastFailure: { at: ago(15), message: LOST } },
      'warn',
      'The last poll of the mailbox failed',
      `15 s ago: ${LOST}; the poller tries again. The last successful poll was 30 s ago (2026-11-26 18:59 GMT+9); if none succeeds by 2026-11-26 19:02 GMT+9, incoming mail is not being read.`,
    ],
    [
      'stale, failing since',
      { lastSuccessfulPollAt: ago(190), lastFailure: { at: ago(15), message: LOST } },
      'bad',
      'Incoming mail is not being read',
      `the last successful poll was 3 min ago (2026-11-26 18:56 GMT+9), longer than the allowed 3 min; the last attempt failed 15 s ago: ${LOST}. New mail waits in the mailbox until a poll succeeds.`,
    ],
    [
      'stale, no failure recorded',
      { lastSuccessfulPollAt: ago(600) },
      'bad',
      'Incoming mail is not being read',
      'the last successful poll was 10 min ago (2026-11-26 18:50 GMT+9), longer than the allowed 3 min. New mail waits in the mailbox until a poll succeeds.',
    ],
    [
      'never polled, failing',
      { lastFailure: { at: ago(5), message: LOGIN } },
      'bad',
      'Incoming mail is not being read',
      `the IMAP poller has not completed a poll yet; the last attempt failed 5 s ago: ${LOGIN}. New mail waits in the mailbox until a poll succeeds.`,
    ],
    [
      'never polled, nothing recorded',
      {},
      'bad',
      'Incoming mail is not being read',
      'the IMAP poller has not completed a poll yet. New mail waits in the mailbox until a poll succeeds.',
    ],
  ])('%s', (_case, status, level, headline, detail) => {
    const problem = pollerProblem(status, now, 3 * 60_000, 'Asia/Tokyo');
    if (level === undefined) return expect(problem).toBeUndefined();
    expect(problem).toMatchObject({ level, headline });
    expect(text(problem!.detail)).toBe(detail);
  });

  it('keeps the exact time in the markup, as the rest of the page does', () => {
    const problem = pollerProblem({ lastSuccessfulPollAt: ago(600) }, now, 3 * 60_000, 'UTC');
    expect(String(problem!.detail)).toContain('(<time datetime="2026-11-26T09:50:00.000Z" title="2026-11-26T09:50:00.000Z">2026-11-26 09:50 UTC</time>)');
    expect(String(problem!.detail)).not.toMatch(/\(2026-11-26T09:50:00\.000Z\)/);
  });

  it('agrees with /readyz: red exactly when the poller check fails', () => {
    for (const s of [0, 179, 180, 181, 3600]) {
      const status: PollerStatus = { lastSuccessfulPollAt: ago(s), lastFailure: { at: ago(0), message: LOST } };
      expect(pollerProblem(status, now, 180_000)?.level === 'bad', `${s} s`).toBe(pollerCheck(status, now, 180_000).status === 'fail');
    }
  });
});

describe('deployment banners on the start page', () => {
  const counts = Object.fromEntries(TICKET_STATES.map((s) => [s, 0])) as Record<TicketState, number>;
  const page = (problems: DeploymentProblem[]) =>
    String(renderTicketList({ tickets: [], total: 0, page: 1, pageSize: 20, order: 'oldest', counts, now: new Date(), csrfToken: 't', user: 'anna', problems }));
  it.each<[string, DeploymentProblem, string]>([
    [
      'a headline in plain words, then the detail, in red',
      { level: 'bad', headline: 'Incoming mail is not being read', detail: 'the IMAP poller has not completed a poll yet' },
      '<div class="flash bad" role="alert"><strong>Incoming mail is not being read:</strong> the IMAP poller has not completed a poll yet</div>',
    ],
    [
      'an early sign in yellow, not as an alert',
      { level: 'warn', headline: 'The last poll of the mailbox failed', detail: '15 s ago: <unreachable>' },
      '<div class="warning" role="status"><strong>The last poll of the mailbox failed:</strong> 15 s ago: &lt;unreachable&gt;</div>',
    ],
    [
      'a sentence that says it needs no headline',
      { level: 'bad', detail: 'the sender cannot use the SMTP server' },
      '<div class="flash bad" role="alert">the sender cannot use the SMTP server</div>',
    ],
  ])('%s', (_case, problem, markup) => {
    expect(page([problem])).toContain(markup);
  });
});

describe('the detail page of a reply that went out, or is still trying to', () => {
  const base = newTicket({ messageId: '<mary-1@customer.example>', from: 'mary@customer.example', subject: 'Invoice', question: 'Where is my invoice?', actor: 'poller' }, new Date('2026-03-02T09:00:00.000Z'));
  const history = (...entries: [TicketState | null, TicketState, string, string?][]): HistoryEntry[] =>
    entries.map(([from, to, actor, note], i) => ({ at: new Date(Date.parse('2026-03-02T09:00:00.000Z') + i * 60_000).toISOString(), from, to, actor, ...(note ? { note } : {}) }));
  const approvedThenRetried = history([null, 'received', 'poller'], ['received', 'processing', 'agent-worker'], ['processing', 'parked', 'agent-worker'], ['parked', 'approved', 'operator:anna'], ['approved', 'sending', 'sender', 'attempt 1'], ['sending', 'approved', 'sender', 'not accepted, will retry: 421 4.7.0 try later']);
  const outbound: OutboundInfo = { messageId: '<reply-1@support.example>', autoSubmitted: false, sentAt: '2026-03-02T09:10:00.000Z', smtpResponse: '250 2.0.0 OK queued' };
  const page = (ticket: Ticket, extra: Partial<Parameters<typeof renderTicketDetail>[0]> = {}) =>
    String(renderTicketDetail({ ticket, mailText: undefined, now: new Date('2026-03-02T12:00:00.000Z'), csrfToken: 't', user: 'anna', timeZone: 'Asia/Tokyo', ...extra })).replace(/<[^>]+>/g, '').replaceAll('&#39;', "'");

  it.each<[string, Partial<Ticket>, string | undefined, string[]]>([
    [
      'approved, sent after a retry (the sender stored no approver then): who approved it is read from the history',
      { state: 'sent', draft: 'It is under Billing.', history: [...approvedThenRetried, ...history(['approved', 'sending', 'sender', 'attempt 2'], ['sending', 'sent', 'sender', '250'])], outbound: { ...outbound, sentCopy: { mailbox: 'Sent', at: '2026-03-02T09:11:00.000Z' } } },
      undefined,
      ['Sent reply', 'Tomary@customer.example', 'Our Message-ID&lt;reply-1@support.example&gt;', 'Sent2026-03-02 18:10 GMT+9', 'Howapproved by anna', 'SMTP answer250 2.0.0 OK queued', 'Sent foldercopy filed in Sent 2026-03-02 18:11 GMT+9', "Quotethe customer's mail was quoted below the reply"],
    ],
    [
      'sent automatically, the quote left out, no copy filed',
      { state: 'sent', draft: 'It is under Billing.', outbound: { ...outbound, autoSubmitted: true } },
      'a link nothing vouches for',
      ['Howsent automatically (no person approved it)', 'Sent folderno copy filed', 'Quoteleft out: a link nothing vouches for'],
    ],
    [
      'to a Reply-To of another mailbox: no quote',
      { state: 'sent', draft: 'x', replyTo: 'office@customer.example', outbound: { ...outbound, approvedBy: 'ben' } },
      undefined,
      ['Tooffice@customer.example', 'Howapproved by ben', "Quoteleft out: the reply went to another mailbox than the sender's"],
    ],
  ])('%s', (_case, patch, quoteOmitted, expected) => {
    const text = page({ ...base, ...patch } as Ticket, { quoteOmitted });
    for (const line of expected) expect(text.replace(/\s+/g, ' ')).toContain(line.replace(/\s+/g, ' '));
  });

  it('says a reply held up by the mail server is not sent yet, how often it failed, and when it is parked if it keeps failing', () => {
    const ticket = { ...base, state: 'approved', draft: 'x', history: approvedThenRetried, outbound } as Ticket;
    const sendRetry = sendRetryStatus(ticket, { attempts: 8, backoffMs: 60_000 });
    const text = page(ticket, { sendRetry }).replace(/\s+/g, ' ');
    expect(text).toContain('Not sent yet: the mail server did not accept this reply. Attempt 1 of 8 failed 2026-03-02 18:05 GMT+9: 421 4.7.0 try later.');
    // Failed at 09:05 UTC: the next attempt within a minute, the 8th within 127.
    expect(text).toContain('The sender tries again by 2026-03-02 18:06 GMT+9; if every attempt fails, the last starts by 2026-03-02 20:12 GMT+9, and the reply is then parked here for you');
    expect(page({ ...ticket, state: 'sent' } as Ticket)).not.toContain('Not sent yet');
  });
});

describe("the reject button of a parked ticket", () => {
  const base = newTicket({ messageId: '<mary-2@customer.example>', from: 'mary@customer.example', subject: 'Fwd: minutes', question: 'FYI', actor: 'poller' }, new Date('2026-03-02T09:00:00.000Z'));
  const rejectForm = (ticket: Ticket) => {
    const html = String(renderTicketDetail({ ticket, mailText: undefined, now: new Date('2026-03-02T12:00:00.000Z'), csrfToken: 't', user: 'anna', timeZone: 'UTC' }));
    const form = html.slice(html.indexOf(`action="/tickets/${ticket.id}/reject"`));
    return form.slice(0, form.indexOf('</form>'));
  };
  const parkedEntry = (from: 'received' | 'processing', note: string) => ({ from, to: 'parked' as const, actor: 'agent-worker', at: base.createdAt, note });
  const byChecks = (reason: string): Partial<Ticket> => ({ reason, history: [...base.history, parkedEntry('received', reason)] });
  const afterRun = (reason: string): Partial<Ticket> => ({ reason, history: [...base.history, { from: 'received', to: 'processing', actor: 'agent-worker', at: base.createdAt }, parkedEntry('processing', reason)] });
  it.each<[string, Partial<Ticket>, string, string]>([
    ['parked by the checks before the agent wrote anything: no reply needed', byChecks('internal mail from k.suzuki@support.example on our own domain support.example (a colleague, or a system of ours): an answer would go to them; a person answers'), '>No reply needed</button>', 'Reason, e.g. an FYI forward'],
    ['a draft of only blank lines is none', { draft: ' \n', ...byChecks('calendar invitation (text/calendar; method=REQUEST): a person answers it') }, '>No reply needed</button>', 'Reason, e.g. an FYI forward'],
    ["the agent's draft: a rejection of it", { draft: 'It is under Billing.', ...afterRun('review mode always') }, '>Reject</button>', 'Reason, e.g. answered by phone'],
    ['no draft because the model failed: the mail needed an answer', afterRun('agent failed 3 time(s): the model server could not be reached'), '>Reject</button>', 'Reason, e.g. answered by phone'],
    ['no draft because the agent-run limit parked it', byChecks('agent-run limit reached: 20 agent runs in the last hour'), '>Reject</button>', 'Reason, e.g. answered by phone'],
    ['no draft because it was too large to read', { reason: 'too large', history: [{ from: null, to: 'parked', actor: 'poller', at: base.createdAt, note: 'too large' }] }, '>Reject</button>', 'Reason, e.g. answered by phone'],
  ])('%s', (_case, patch, button, placeholder) => {
    const form = rejectForm({ ...base, state: 'parked', ...patch } as Ticket);
    expect(form).toContain(button);
    expect(form).toContain(placeholder);
  });
});

// Walkthrough: a repeated question has no draft, yet its box said "Edit the reply if needed" over "Approve and send".
describe('the reply box of a parked ticket says whether there is a draft', () => {
  const base = newTicket({ messageId: '<mary-3@customer.example>', from: 'mary@customer.example', subject: 'Invoice', question: 'Where is my invoice?', actor: 'poller' }, new Date('2026-03-02T09:00:00.000Z'));
  const parked = (from: 'received' | 'processing', reason: string, draft?: string): Ticket =>
    ({ ...base, state: 'parked', reason, ...(draft ? { draft } : {}), history: [...base.history, { from, to: 'parked', actor: 'agent-worker', at: base.createdAt, note: reason }] }) as Ticket;
  const approveForm = (ticket: Ticket) => {
    const page = String(renderTicketDetail({ ticket, mailText: undefined, now: new Date('2026-03-02T12:00:00.000Z'), csrfToken: 't', user: 'anna', timeZone: 'UTC' }));
    const form = page.slice(page.indexOf(`action="/tickets/${ticket.id}/approve"`));
    return form.slice(0, form.indexOf('</form>'));
  };
  it.each<[string, Ticket, string, string]>([
    ['a draft to edit', parked('processing', 'review mode always', 'It is under Billing.'), 'Edit the reply if needed; it is sent exactly as written here.', 'primary'],
    [
      'a repeated question: no draft, and the customer has or gets the first copy\'s reply',
      parked('received', 'repeated question: the same sender asked the same under the same subject less than a minute ago (ticket abc, sent); parked so the customer does not get the same automatic reply twice'),
      'There is no draft: the checks parked this mail as needing no reply of its own (see the reason). Write a reply only if one is needed; it is sent exactly as written here.',
      'secondary',
    ],
    ['no draft after a failure: the mail needs a reply', parked('processing', 'agent failed 3 time(s): the model server could not be reached'), 'There is no draft (see the reason): write the reply here; it is sent exactly as written.', 'primary'],
  ])('%s', (_case, ticket, label, button) => {
    const form = approveForm(ticket);
    expect(form).toContain(`>${label}</label>`);
    expect(form).toContain(`<button type="submit" class="${button}">Approve and send</button>`);
  });
});

describe("the agent's run under Sources used", () => {
  const base = newTicket({ messageId: '<mary-4@customer.example>', from: 'mary@customer.example', subject: 'Invoice', question: 'Where is my invoice?', actor: 'poller' }, new Date('2026-03-02T09:00:00.000Z'));
  const usage = { calls: 11, promptTokens: 7248, completionTokens: 301, totalTokens: 7549 };
  const line = (durationMs: number) => {
    const agent = { question: 'q', plan: { subtasks: [] }, subtasks: [], answer: 'a', sources: [], usage, llmCalls: [], truncated: false, droppedSubtasks: [], durationMs };
    const page = String(renderTicketDetail({ ticket: { ...base, state: 'parked', reason: 'review mode always', draft: 'a', agent } as Ticket, mailText: undefined, now: new Date('2026-03-02T12:00:00.000Z'), csrfToken: 't', user: 'anna', timeZone: 'UTC' }));
    return /11 LLM calls[^<]*/.exec(page)?.[0];
  };
  it.each([
    [412, 'run 0.4 s'],
    [0, 'run 0.0 s'],
    [9_440, 'run 9.4 s'],
    [12_600, 'run 13 s'],
    [185_000, 'run 3 min'],
  ])('%d ms: %s', (ms, run) => {
    expect(line(ms)).toBe(`11 LLM calls · 7248 prompt + 301 completion tokens · ${run}`);
  });
});

describe('the start page for a keyboard', () => {
  const counts = { ...(Object.fromEntries(TICKET_STATES.map((s) => [s, 0])) as Record<TicketState, number>), parked: 2 };
  const oldest = 'a'.repeat(64);
  const page = (nextToReview: string | undefined, state: TicketState = 'parked') =>
    String(renderTicketList({ tickets: [], total: 2, page: 1, pageSize: 20, order: 'newest', state, counts, now: new Date(), csrfToken: 't', user: 'anna', nextToReview }));
  // The first element a Tab reaches: links, buttons, fields, in document order.
  const firstTabStop = (markup: string) => /<(a|button|input(?![^>]*type="hidden")|textarea|select)\b[^>]*>([^<]*)/.exec(markup);

  it.each<[string, TicketState]>([
    ['the parked list, newest first', 'parked'],
    ["another state's list", 'sent'],
  ])('%s: the first tab stop opens the ticket the review flow opens next', (_case, state) => {
    const stop = firstTabStop(page(oldest, state));
    expect(stop?.[0]).toContain(`href="/tickets/${oldest}#reply"`);
    expect(stop?.[2]).toBe('Review the oldest waiting ticket');
  });

  it('has no such link when nothing waits', () => {
    expect(page(undefined)).not.toContain('Review the oldest waiting ticket');
    expect(firstTabStop(page(undefined))?.[0]).toContain('href="/"');
  });
});

describe('the Sent list', () => {
  const counts = { ...(Object.fromEntries(TICKET_STATES.map((s) => [s, 0])) as Record<TicketState, number>), sent: 3 };
  const base = newTicket({ messageId: '<sent-1@customer.example>', from: 'mary@customer.example', subject: 'Invoice', question: 'Where is my invoice?', actor: 'poller' }, new Date('2026-03-01T09:00:00.000Z'));
  const outbound: OutboundInfo = { messageId: '<reply-1@support.example>', autoSubmitted: false, sentAt: '2026-03-02T01:02:00.000Z' };
  const approvedByAnna: HistoryEntry = { at: '2026-03-02T01:00:00.000Z', from: 'parked', to: 'approved', actor: 'operator:anna' };
  const row = (patch: Partial<Ticket>) => {
    const markup = String(renderTicketList({ tickets: [{ ...base, state: 'sent', ...patch } as Ticket], total: 1, page: 1, pageSize: 20, order: 'oldest', state: 'sent', counts, now: new Date('2026-03-05T00:00:00.000Z'), csrfToken: 't', user: 'anna', timeZone: 'Asia/Tokyo' }));
    return {
      head: /<thead>(.*?)<\/thead>/s.exec(markup)![1]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim(),
      cells: [.../<tbody>(.*?)<\/tbody>/s.exec(markup)![1]!.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((m) => m[1]!.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim()),
    };
  };

  it.each<[string, Partial<Ticket>, string, string]>([
    ['sent without a person', { outbound: { ...outbound, autoSubmitted: true } }, '2026-03-02 10:02 GMT+9', 'sent automatically'],
    ['approved, the sender named the approver', { outbound: { ...outbound, approvedBy: 'ben' } }, '2026-03-02 10:02 GMT+9', 'approved by ben'],
    ['approved, the approver only in the history', { outbound, history: [...base.history, approvedByAnna] }, '2026-03-02 10:02 GMT+9', 'approved by anna'],
    ['no send time recorded', { outbound: { messageId: '<r@support.example>', autoSubmitted: true } }, 'no time recorded', 'sent automatically'],
  ])('%s: shows when it went out, in the desk zone, and how', (_case, patch, sent, how) => {
    const { head, cells } = row(patch);
    expect(head).toBe('Sent From Subject How it went out');
    expect(cells[0]).toBe(sent);
    expect(cells.at(-1)).toBe(how);
  });
});

// Walkthrough 43: the top bar's Metrics and Readiness opened raw Prometheus text and JSON like any page. The
// endpoints stay as machines read them; the links say what they open.
describe("the top bar's links to what machines read", () => {
  const counts = Object.fromEntries(TICKET_STATES.map((s) => [s, 0])) as Record<TicketState, number>;
  const nav = /<nav>(.*?)<\/nav>/s.exec(String(renderTicketList({ tickets: [], total: 0, page: 1, pageSize: 20, order: 'oldest', counts, now: new Date(), csrfToken: 't', user: 'anna' })))![1]!;
  const link = (href: string) => {
    const m = new RegExp(`<a href="${href}"([^>]*)>(.*?)</a>`, 's').exec(nav);
    return { attributes: m?.[1] ?? '', text: (m?.[2] ?? '').replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim() };
  };
  it.each([
    ['/metrics', 'Metrics (raw)', /title="[^"]*Prometheus[^"]*"/],
    ['/readyz', 'Readiness (JSON)', /title="[^"]*JSON[^"]*"/],
  ])('%s: %s', (href, text, title) => {
    expect(link(href).text).toBe(text);
    expect(link(href).attributes).toMatch(title);
  });
  it.each([['/'], ['/knowledge'], ['/insights'], ['/admin/queues']])('%s: a page, named as before', (href) => {
    expect(link(href).text).not.toMatch(/\(/);
  });
});

// Walkthrough 43: the Searches under a subtask listed "xyz-manual.md, xyz-manual.md, xyz-manual.md", not which
// section of the manual each result came from.
describe('the Searches of a subtask', () => {
  const base = newTicket({ messageId: '<mary-5@customer.example>', from: 'mary@customer.example', subject: '2FA', question: 'How do I set up 2FA?', actor: 'poller' }, new Date('2026-03-02T09:00:00.000Z'));
  const usage = { calls: 1, promptTokens: 1, completionTokens: 1, totalTokens: 2 };
  const searches = (results: Array<{ toolName: string; results: Array<{ fileName: string; content: string }> }>) => {
    const subtask = { taskName: '二段階認証', toolResults: [results.map((r) => ({ ...r, args: '{"keywords":"二段階認証"}' }))], reflectionResults: [], isCompleted: true, subtaskAnswer: 'a', challengeCount: 1, usedFallback: false, usage };
    const agent = { question: 'q', plan: { subtasks: ['二段階認証'] }, subtasks: [subtask], answer: 'a', sources: [], usage, llmCalls: [], truncated: false, droppedSubtasks: [], durationMs: 10 };
    const page = String(renderTicketDetail({ ticket: { ...base, state: 'parked', reason: 'review mode always', draft: 'a', agent } as Ticket, mailText: undefined, now: new Date('2026-03-02T12:00:00.000Z'), csrfToken: 't', user: 'anna', timeZone: 'UTC' }));
    return [...page.matchAll(/<li>try \d+: (.*?)<\/li>/gs)].map((m) => m[1]!.replace(/<[^>]+>/g, '').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replace(/\s+/g, ' ').trim());
  };
  it.each<[string, Parameters<typeof searches>[0], string[]]>([
    [
      'manual results: each with the heading path it sits under, when it has one',
      [{ toolName: 'search_xyz_manual', results: [{ fileName: 'xyz-manual.md', content: '【第2章 アカウントとセキュリティ > 二段階認証】\n二段階認証を有効にすると…' }, { fileName: 'xyz-manual.md', content: '前書きの本文' }] }],
      ['search_xyz_manual {"keywords":"二段階認証"} → xyz-manual.md § 第2章 アカウントとセキュリティ > 二段階認証; xyz-manual.md'],
    ],
    [
      'a Q&A pair is named by its row; brackets opening its text are no section',
      [{ toolName: 'search_xyz_qa', results: [{ fileName: 'xyz-qa.csv#17', content: '【重要】Q: 二段階認証は？\nA: 設定から。' }] }],
      ['search_xyz_qa {"keywords":"二段階認証"} → xyz-qa.csv#17'],
    ],
    ['no results', [{ toolName: 'search_xyz_manual', results: [] }], ['search_xyz_manual {"keywords":"二段階認証"} → no results']],
    // Review 44b: a heading is the manual's text, as long as its author wrote it; cut to one short line.
    [
      'a long heading is cut',
      [{ toolName: 'search_xyz_manual', results: [{ fileName: 'xyz-manual.md', content: `【${'長い見出し'.repeat(40)}】\n本文` }] }],
      // 120 columns with the ellipsis: 59 characters of two columns each.
      [`search_xyz_manual {"keywords":"二段階認証"} → xyz-manual.md § ${'長い見出し'.repeat(12).slice(0, 59)}…`],
    ],
  ])('%s', (_case, results, expected) => {
    expect(searches(results)).toEqual(expected);
  });

  // The manual's text, which a stranger may have written (an uploaded page): isolated like the page's other
  // untrusted names, so right-to-left characters in it do not reorder the file names beside it.
  it('shows the heading inside <bdi>', () => {
    const subtask = {
      taskName: 't',
      toolResults: [[{ toolName: 'search_xyz_manual', args: '{}', results: [{ fileName: 'xyz-manual.md', content: '【\u202Eevil heading】\n本文' }] }]],
      reflectionResults: [],
      isCompleted: true,
      subtaskAnswer: 'a',
      challengeCount: 1,
      usedFallback: false,
      usage,
    };
    const agent = { question: 'q', plan: { subtasks: ['t'] }, subtasks: [subtask], answer: 'a', sources: [], usage, llmCalls: [], truncated: false, droppedSubtasks: [], durationMs: 10 };
    const page = String(renderTicketDetail({ ticket: { ...base, state: 'parked', reason: 'review mode always', draft: 'a', agent } as Ticket, mailText: undefined, now: new Date('2026-03-02T12:00:00.000Z'), csrfToken: 't', user: 'anna', timeZone: 'UTC' }));
    expect(page).toMatch(/§ <bdi>\u202Eevil heading<\/bdi>/);
  });
});
