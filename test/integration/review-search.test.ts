/**
 * Finding a customer's tickets from the review page and the API: a customer calls ("I mailed you yesterday") and the
 * operator types a part of their address, or words of the subject. The search reads at most a stated number of the
 * newest tickets per request and says so; what is typed is shown escaped and never becomes a pattern. Times on the
 * page are shown in the desk's time zone (the process's `TZ`), the exact ISO value kept in the markup. Real HTTP
 * against the dashboard app and a real redis-server.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newTicket, ticketIdFor, type NewTicketInput, type TicketState } from '../../src/tickets/ticket.js';
import { basicAuth, useDashboardHarness, type TestDashboard } from '../support/dashboard.js';

const AUTH = basicAuth();
const harness = useDashboardHarness();

interface Spec {
  from: string;
  replyTo?: string;
  fromName?: string;
  subject: string;
  at: Date;
  /** Where the ticket ends up (default parked). */
  state?: Extract<TicketState, 'received' | 'parked' | 'rejected' | 'ignored'>;
}

async function ticket(d: TestDashboard, spec: Spec): Promise<string> {
  const messageId = `<search-${randomUUID()}@mail.example>`;
  const id = ticketIdFor(messageId);
  const state = spec.state ?? 'parked';
  const input: NewTicketInput = {
    messageId,
    from: spec.from,
    subject: spec.subject,
    question: 'q?',
    actor: 'poller',
    ...(spec.replyTo ? { replyTo: spec.replyTo } : {}),
    ...(spec.fromName ? { fromName: spec.fromName } : {}),
    ...(state === 'ignored' ? { state: 'ignored' as const, reason: 'auto-reply' } : {}),
  };
  await d.store.createIfAbsent(newTicket(input, spec.at));
  if (state === 'received' || state === 'ignored') return id;
  await d.store.transition(id, { to: 'processing', actor: 'agent-worker' });
  await d.store.transition(id, { to: 'parked', actor: 'agent-worker', patch: { reason: 'review mode always', draft: 'Answer.' } });
  if (state === 'rejected') await d.store.transition(id, { to: 'rejected', actor: 'operator:anna', patch: { reason: 'answered by phone' } });
  return id;
}

const get = (d: TestDashboard, path: string) => fetch(`${d.url}${path}`, { headers: { authorization: AUTH } });
const page = async (d: TestDashboard, path: string) => (await get(d, path)).text();
/** The search results' rows: ticket id, state and subject, in page order. */
const resultsIn = (html: string) => {
  const section = html.slice(html.indexOf('<section class="card" id="search"'));
  return [...section.slice(0, section.indexOf('</section>')).matchAll(/<tr data-ticket="([0-9a-f]{64})">[\s\S]*?<span class="badge [a-z]+">([a-z]+)<\/span>[\s\S]*?<a href="\/tickets\/\1">([^<]*)<\/a>/g)].map(
    (m) => ({ id: m[1], state: m[2], subject: m[3] }),
  );
};
const search = (q: string, more = '') => `/?q=${encodeURIComponent(q)}${more}`;

const HOUR = 3_600_000;

describe('searching tickets on the review page', () => {
  it("finds a customer's tickets in any state by a part of the From or Reply-To address, newest first, and no one else's", async () => {
    const d = await harness.start();
    const now = Date.now();
    const older = await ticket(d, { from: 'Hanako.Yamada@Customer.example', subject: '請求書の再発行', at: new Date(now - 50 * HOUR), state: 'rejected' });
    const viaReplyTo = await ticket(d, { from: 'noreply@forms.example', replyTo: 'hanako.yamada@customer.example', subject: 'Contact form', at: new Date(now - 30 * HOUR), state: 'received' });
    const newest = await ticket(d, { from: 'hanako.yamada@customer.example', subject: 'ログインできません', at: new Date(now - 2 * HOUR) });
    await ticket(d, { from: 'taro@customer.example', subject: '請求書について', at: new Date(now - HOUR) });
    await ticket(d, { from: 'yamada@other.example', subject: 'Hello', at: new Date(now - 3 * HOUR), state: 'ignored' });

    const found = await page(d, search('HANAKO.yamada@'));
    expect(resultsIn(found)).toEqual([
      { id: newest, state: 'parked', subject: 'ログインできません' },
      { id: viaReplyTo, state: 'received', subject: 'Contact form' },
      { id: older, state: 'rejected', subject: '請求書の再発行' },
    ]);
    expect(found).toContain('value="HANAKO.yamada@"');
    expect(found).toMatch(/Searched all 5 tickets/);
    // The exact address finds the same; a part of the domain finds everyone at it.
    expect(resultsIn(await page(d, search('hanako.yamada@customer.example'))).map((r) => r.id)).toEqual([newest, viaReplyTo, older]);
    expect(resultsIn(await page(d, search('@customer.example'))).map((r) => r.subject)).toEqual(['請求書について', 'ログインできません', 'Contact form', '請求書の再発行']);
    // A sub-address or full-width spelling of the address is the same customer.
    expect(resultsIn(await page(d, search('Hanako.Yamada+shop@customer.example'))).map((r) => r.id)).toEqual([newest, viaReplyTo, older]);
    expect(resultsIn(await page(d, search('ｈａｎａｋｏ．ｙａｍａｄａ＠'))).map((r) => r.id)).toEqual([newest, viaReplyTo, older]);
    // Every word must match, the address or the subject.
    expect(resultsIn(await page(d, search('請求書'))).map((r) => r.subject)).toEqual(['請求書について', '請求書の再発行']);
    expect(resultsIn(await page(d, search('hanako 請求書'))).map((r) => r.id)).toEqual([older]);
    expect(resultsIn(await page(d, search('nobody@nowhere.example')))).toEqual([]);
    expect(await page(d, search('nobody@nowhere.example'))).toContain('No ticket matches');
  });

  it('shows the received time and the state of each match, and links each to its ticket', async () => {
    const d = await harness.start({}, { timeZone: 'Asia/Tokyo' });
    const id = await ticket(d, { from: 'kenji@customer.example', subject: 'Invoice', at: new Date('2026-03-02T01:30:00.000Z') });
    const found = await page(d, search('kenji'));
    const row = found.slice(found.indexOf(`<tr data-ticket="${id}">`));
    expect(row.slice(0, row.indexOf('</tr>'))).toMatch(
      new RegExp(
        `<time datetime="2026-03-02T01:30:00.000Z" title="2026-03-02T01:30:00.000Z">2026-03-02 10:30 GMT\\+9</time>[\\s\\S]*<span class="badge parked">parked</span>[\\s\\S]*kenji@customer.example[\\s\\S]*<a href="/tickets/${id}">Invoice</a>`,
      ),
    );
  });

  it('shows what was typed as text, takes it literally (no pattern) and refuses an overlong search', async () => {
    const d = await harness.start();
    const now = Date.now();
    await ticket(d, { from: 'a@customer.example', subject: 'plain', at: new Date(now - HOUR) });
    const hostile = `"><script>alert(1)</script><img src=x onerror=alert(1)>`;
    const res = await get(d, search(hostile));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"');
    // Pattern characters are characters: `.*` matches no ticket, `(` breaks nothing.
    for (const literal of ['.*', '(', '[a-z]+', '\\']) {
      const r = await get(d, search(literal));
      expect(r.status, literal).toBe(200);
      expect(resultsIn(await r.text()), literal).toEqual([]);
    }
    const tooLong = await get(d, search('a'.repeat(201)));
    expect(tooLong.status).toBe(400);
    expect(await tooLong.text()).not.toContain('a'.repeat(201));
    // The box itself says how much it takes.
    expect(await page(d, '/')).toMatch(/<input type="search" name="q" value="" maxlength="200"/);
  });

  it('reads at most the newest N tickets per search, says so, and links to the next older ones', async () => {
    const d = await harness.start({}, { searchScanLimit: 3 });
    const now = Date.now();
    const oldest = await ticket(d, { from: 'mika@customer.example', subject: 'oldest', at: new Date(now - 10 * HOUR) });
    await ticket(d, { from: 'x1@other.example', subject: 'x1', at: new Date(now - 9 * HOUR) });
    await ticket(d, { from: 'x2@other.example', subject: 'x2', at: new Date(now - 8 * HOUR) });
    const recent = await ticket(d, { from: 'mika@customer.example', subject: 'recent', at: new Date(now - 7 * HOUR) });
    await ticket(d, { from: 'x3@other.example', subject: 'x3', at: new Date(now - 6 * HOUR) });

    const first = await page(d, search('mika'));
    expect(resultsIn(first).map((r) => r.id)).toEqual([recent]);
    expect(first).toContain('Searched the newest 3 of 5 tickets');
    // Two are left to read.
    const next = first.match(/<a href="([^"]+)">Search the next 2 older tickets/)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toBe('/?q=mika&skip=3');
    const second = await page(d, next!);
    expect(resultsIn(second).map((r) => r.id)).toEqual([oldest]);
    expect(second).toContain('Searched tickets 4–5 of 5');
    expect(second).not.toContain('Search the next');
  });
});

describe("opening a ticket by its own name, as `npm run review` takes it", () => {
  /** Two Message-IDs whose ticket ids (sha256) share their first 8 hex characters: a birthday search. */
  function twinMessageIds(): [string, string] {
    const seen = new Map<string, string>();
    for (let i = 0; i < 1_000_000; i++) {
      const messageId = `<twin-${i}@mail.example>`;
      const earlier = seen.get(ticketIdFor(messageId).slice(0, 8));
      if (earlier) return [earlier, messageId];
      seen.set(ticketIdFor(messageId).slice(0, 8), messageId);
    }
    throw new Error('no twin found');
  }

  it.each([
    ['the 12 characters lists print', (id: string) => id.slice(0, 12)],
    ['8 characters, in capitals', (id: string) => id.slice(0, 8).toUpperCase()],
    ['the whole id', (id: string) => id],
    ["the mail's Message-ID without angle brackets", (_id: string, messageId: string) => messageId.slice(1, -1)],
    ["the mail's Message-ID with them", (_id: string, messageId: string) => messageId],
  ])('a search for %s opens the ticket', async (_case, name) => {
    const d = await harness.start();
    const messageId = `<jp-park-${randomUUID()}@customer.example>`;
    const id = ticketIdFor(messageId);
    await d.store.createIfAbsent(newTicket({ messageId, from: 'taro@customer.example', subject: '社員旅行', question: '集合場所は？', state: 'parked', reason: 'test', actor: 'poller' }));
    const res = await fetch(`${d.url}${search(name(id, messageId))}`, { headers: { authorization: AUTH }, redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/tickets/${id}`);
  });

  it('opens /tickets/<start of an id> at the full id, lists the tickets a start shares, and says when none has it', async () => {
    const d = await harness.start();
    const [a, b] = await Promise.all(
      twinMessageIds().map(async (messageId) => (await d.store.createIfAbsent(newTicket({ messageId, from: 'twin@customer.example', subject: 'Twin', question: '?', state: 'parked', reason: 'test', actor: 'poller' }))).ticket),
    );
    const shared = a!.id.slice(0, 8);
    const redirect = await fetch(`${d.url}/tickets/${a!.id.slice(0, 12)}`, { headers: { authorization: AUTH }, redirect: 'manual' });
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('location')).toBe(`/tickets/${a!.id}`);

    const both = await get(d, `/tickets/${shared}`);
    expect(both.status).toBe(300);
    const listed = await both.text();
    for (const t of [a!, b!]) expect(listed).toContain(`href="/tickets/${t.id}"`);
    const searched = await page(d, search(shared));
    for (const t of [a!, b!]) expect(searched).toContain(`href="/tickets/${t.id}"`);

    expect((await get(d, '/tickets/abcdef0123')).status).toBe(404);
    expect(await page(d, search('abcdef0123'))).toContain('No ticket whose id starts with <code>abcdef0123</code>');
    // An address is searched as words, not taken for a Message-ID.
    expect(resultsIn(await page(d, search('twin@customer.example'))).map((r) => r.id).sort()).toEqual([a!.id, b!.id].sort());
  });
});

describe('searching tickets through the JSON API', () => {
  it('GET /api/tickets?q= answers the same matches, newest first, with how far it searched; state narrows it', async () => {
    const d = await harness.start({}, { searchScanLimit: 3 });
    const now = Date.now();
    const rejected = await ticket(d, { from: 'sora@customer.example', subject: 'first', at: new Date(now - 5 * HOUR), state: 'rejected' });
    const parked = await ticket(d, { from: 'other@customer.example', replyTo: 'Sora@Customer.example', subject: 'second', at: new Date(now - 4 * HOUR) });
    await ticket(d, { from: 'ren@customer.example', subject: 'third', at: new Date(now - 3 * HOUR) });

    const res = await get(d, '/api/tickets?q=sora%40');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-searched-count')).toBe('3');
    expect(res.headers.get('x-search-next-skip')).toBeNull();
    const list = (await res.json()) as Array<{ id: string; state: string; replyTo: string }>;
    expect(list.map((t) => t.id)).toEqual([parked, rejected]);
    expect(list[0]).toMatchObject({ state: 'parked', replyTo: 'Sora@Customer.example' });
    expect(list[0]).not.toHaveProperty('agent');

    const onlyParked = (await (await get(d, '/api/tickets?q=sora&state=parked')).json()) as Array<{ id: string }>;
    expect(onlyParked.map((t) => t.id)).toEqual([parked]);

    // Bounded: the newest 3 of 4; the header says where to go on.
    await ticket(d, { from: 'ren@customer.example', subject: 'fourth', at: new Date(now - HOUR) });
    const bounded = await get(d, '/api/tickets?q=sora');
    expect(((await bounded.json()) as Array<{ id: string }>).map((t) => t.id)).toEqual([parked]);
    expect(bounded.headers.get('x-search-next-skip')).toBe('3');
    const rest = await get(d, '/api/tickets?q=sora&skip=3');
    expect(((await rest.json()) as Array<{ id: string }>).map((t) => t.id)).toEqual([rejected]);

    for (const bad of [`q=${'a'.repeat(201)}`, 'skip=3', 'q=x&offset=2', 'q=x&skip=-1']) {
      const r = await get(d, `/api/tickets?${bad}`);
      expect(r.status, bad).toBe(400);
      expect(((await r.json()) as { error: string }).error).toMatch(/Invalid query/);
    }
  });
});

describe('times on the review page', () => {
  it("are shown in the desk's time zone with the zone named, the exact ISO value kept in the markup", async () => {
    const d = await harness.start({}, { timeZone: 'Asia/Tokyo' });
    const id = await ticket(d, { from: 'yui@customer.example', subject: 'Times', at: new Date('2026-03-02T15:04:00.000Z') });
    const detail = await page(d, `/tickets/${id}`);
    // Received: 00:04 the next day in Tokyo.
    expect(detail).toMatch(/<dt>Received<\/dt><dd><time datetime="2026-03-02T15:04:00.000Z" title="2026-03-02T15:04:00.000Z">2026-03-03 00:04 GMT\+9<\/time>/);
    // Every history entry too; no bare ISO time is left as text.
    const history = detail.slice(detail.indexOf('<table class="history">'));
    expect(history).toMatch(/<td class="small"><time datetime="[^"]+" title="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d GMT\+9<\/time><\/td>/);
    expect(detail.replace(/<time datetime="[^"]*" title="[^"]*">/g, '')).not.toMatch(/>\s*\d{4}-\d\d-\d\dT\d\d:\d\d/);
    // The list's age keeps its short form; its hover names the local time and the ISO value.
    const list = await page(d, '/');
    expect(list).toMatch(/<td class="age" title="2026-03-03 00:04 GMT\+9 \(2026-03-02T15:04:00.000Z\)">/);

    const utc = await harness.start({}, { timeZone: 'UTC' });
    const inUtc = await ticket(utc, { from: 'yui@customer.example', subject: 'Times', at: new Date('2026-03-02T15:04:00.000Z') });
    expect(await page(utc, `/tickets/${inUtc}`)).toContain('>2026-03-02 15:04 UTC</time>');
  });

  it('refuses to start with a time zone ICU does not know', async () => {
    await expect(harness.start({}, { timeZone: 'Mars/Olympus' })).rejects.toThrow(/time zone/i);
  });
});
